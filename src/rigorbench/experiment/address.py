"""``--cluster``: a Dask scheduler's address, or ``local:N`` for a LocalCluster on this machine.

The client side of the cluster: connecting (with TLS when asked), waiting for the instances,
and the warning a user needs before sending benchmark code over an open network. A Dask
worker runs whatever the scheduler sends it, so a scheduler reachable from outside a private
network without TLS lets anyone who reaches it run code on every worker (docs/cluster.md).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from rigorbench.errors import UserError, import_optional

LOCAL = re.compile(r"^local:(\d+)$")
SCHEMES = ("tcp", "tls", "ws", "wss", "inproc")
# The Dask resource a benchmarking worker declares once: one trial at a time per machine.
SLOT = "benchmark"


@dataclass(frozen=True)
class TLSFiles:
    """Dask's TLS files (``--tls-ca-file``, ``--tls-cert``, ``--tls-key``), all or none."""

    ca_file: str | None = None
    cert: str | None = None
    key: str | None = None

    @property
    def on(self) -> bool:
        return self.ca_file is not None

    def check(self, address: "ClusterAddress | None" = None) -> None:
        """All three files or none, each one there; with them, a ``tls://`` address (Dask
        refuses an unencrypted one when TLS is required)."""
        given = {"--tls-ca-file": self.ca_file, "--tls-cert": self.cert, "--tls-key": self.key}
        named = [option for option, value in given.items() if value]
        if named and len(named) < 3:
            missing = [option for option, value in given.items() if not value]
            raise UserError(f"{named[0]} needs {' and '.join(missing)} too: TLS needs the CA, a certificate and its key")
        for option, value in given.items():
            if value and not Path(value).is_file():
                raise UserError(f"{option}: {value}: no such file")
        if self.on and address is not None and not address.local and not address.text.startswith(("tls://", "wss://")):
            raise UserError(f"--tls-ca-file and its certificate need a tls:// scheduler address, not {address.text}")

    def security(self, *, worker: bool = False):
        """A ``distributed.security.Security`` for the client (or a worker), or None."""
        if not self.on:
            return None
        Security = import_optional("distributed.security", "--cluster", "cluster").Security

        role = "worker" if worker else "client"
        return Security(tls_ca_file=self.ca_file, require_encryption=True,
                        **{f"tls_{role}_cert": self.cert, f"tls_{role}_key": self.key})

    def worker_arguments(self) -> list[str]:
        """The same files as ``dask worker`` options."""
        if not self.on:
            return []
        return ["--tls-ca-file", str(self.ca_file), "--tls-cert", str(self.cert), "--tls-key", str(self.key)]


@dataclass(frozen=True)
class ClusterAddress:
    text: str                     # as given: tcp://host:8786, tls://..., local:3
    local_workers: int | None     # N of local:N, else None

    @property
    def local(self) -> bool:
        return self.local_workers is not None


def parse_cluster(text: str, option: str = "--cluster") -> ClusterAddress:
    """``local:N`` or ``SCHEME://HOST:PORT`` (a bare ``HOST:PORT`` is tcp)."""
    value = str(text).strip()
    match = LOCAL.match(value)
    if match:
        workers = int(match.group(1))
        if not 1 <= workers <= 64:
            raise UserError(f"{option}: local:N takes 1 to 64 workers, got {workers}")
        return ClusterAddress(value, workers)
    if "://" not in value:
        value = f"tcp://{value}"
    parts = urlsplit(value)
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise UserError(f"{option}: {text!r} is not a scheduler address such as tcp://HOST:8786, tls://HOST:8786 or local:2")
    try:
        parts.port
    except ValueError:
        raise UserError(f"{option}: {text!r} has no valid port") from None
    return ClusterAddress(value, None)


def exposure_warning(address: ClusterAddress, tls: TLSFiles) -> str | None:
    """A warning when the scheduler is on a public address and TLS is off."""
    if address.local or tls.on or address.text.startswith(("tls://", "wss://", "inproc://")):
        return None
    host = urlsplit(address.text).hostname or ""
    if not is_public(host):
        return None
    return (f"the scheduler {address.text} is not on a private network and TLS is off: anyone who can reach it can run "
            "code on every worker, and trials cross the network unencrypted; use --tls-ca-file/--tls-cert/--tls-key "
            "or a private network (docs/cluster.md)")


def is_public(host: str) -> bool:
    """Whether ``host`` resolves to an address outside private, loopback and link-local ranges
    (a name that does not resolve counts as public: nothing says it is private)."""
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except OSError:
        return True
    for text in addresses:
        ip = ipaddress.ip_address(text.split("%")[0])
        if not (ip.is_private or ip.is_loopback or ip.is_link_local):
            return True
    return False


@dataclass(frozen=True)
class ClusterOptions:
    """``--cluster`` and its options, as the user gave them."""

    address: ClusterAddress
    tls: TLSFiles
    design: str = "trial-based"
    instances: int | None = None          # None: every benchmarking worker connected at the start (N of local:N)
    build_on_workers: bool = False
