"""A connection to the cluster: a Dask client to a scheduler, or a LocalCluster it starts.

The instances are the workers that declare the ``benchmark`` slot (``rigorbench worker``
does; a plain ``dask worker`` does not and gets no trials). An instance is named by its
worker's name, which ``rigorbench worker`` sets to the host name, so a worker that restarts
is the same instance again; the workers of ``local:N`` are ``local-0`` .. ``local-N-1``.
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Callable, Iterator

from rigorbench.experiment.address import SLOT, ClusterAddress, TLSFiles
from rigorbench.errors import UserError, import_optional

# How long to wait for the scheduler, and for the instances the design asks for.
CONNECT_TIMEOUT_S = 30
WAIT_FOR_INSTANCES_S = 60


class ClusterSession:
    def __init__(self, client, address: ClusterAddress) -> None:
        self.client = client
        self.address = address

    @property
    def local(self) -> bool:
        return self.address.local

    def instances(self) -> dict[str, str]:
        """Instance name -> worker address, of the workers with a benchmark slot now."""
        workers = self.client.scheduler_info(n_workers=-1).get("workers", {})
        found = {}
        for address, info in workers.items():
            if (info.get("resources") or {}).get(SLOT, 0) >= 1:
                found[self.instance_name(info.get("name", address))] = address
        return found

    def others(self) -> list[str]:
        """Workers without a benchmark slot (plain ``dask worker``s): they get no trials."""
        workers = self.client.scheduler_info(n_workers=-1).get("workers", {})
        return sorted(str(info.get("name", address)) for address, info in workers.items()
                      if (info.get("resources") or {}).get(SLOT, 0) < 1)

    def instance_name(self, worker_name) -> str:
        return f"local-{worker_name}" if self.local else str(worker_name)

    def wait_for(self, count: int, say: Callable[[str], None], timeout_s: float = WAIT_FOR_INSTANCES_S) -> dict[str, str]:
        """Wait until ``count`` instances are connected (or ``timeout_s``); at least one is needed."""
        deadline = time.monotonic() + timeout_s
        said = False
        while True:
            found = self.instances()
            if len(found) >= count or time.monotonic() >= deadline:
                break
            if not said:
                say(f"waiting for {count} instances (benchmarking workers) at {self.address.text}; {len(found)} connected")
                said = True
            time.sleep(0.5)
        if not found:
            plain = self.others()
            hint = (f" ({len(plain)} worker{'s' if len(plain) != 1 else ''} without a benchmark slot: start them with "
                    "'rigorbench worker', not 'dask worker')" if plain else "")
            raise UserError(f"--cluster {self.address.text}: no benchmarking worker connected within "
                            f"{timeout_s:.0f} s{hint}; start one per machine with: rigorbench worker {self.address.text}")
        return found


@contextlib.contextmanager
def open_cluster(address: ClusterAddress, tls: TLSFiles) -> Iterator[ClusterSession]:
    """Connect to ``address`` (or start ``local:N``); closed (and a LocalCluster stopped) on exit."""
    distributed = import_optional("distributed", "--cluster", "cluster")
    Client, LocalCluster = distributed.Client, distributed.LocalCluster

    # Dask's own log lines (connection retries, a worker's death) would interleave with the
    # progress; rigorbench reports what they mean itself.
    for name in ("distributed", "distributed.client", "distributed.scheduler", "distributed.nanny", "distributed.worker"):
        logging.getLogger(name).setLevel(logging.ERROR)
    cluster = None
    try:
        if address.local:
            cluster = LocalCluster(
                n_workers=address.local_workers, threads_per_worker=1, processes=True, resources={SLOT: 1},
                host="127.0.0.1", silence_logs=logging.ERROR, security=tls.security(worker=True) if tls.on else None,
                protocol="tls" if tls.on else None,
                # no dashboard; the scheduler's HTTP server (health routes) on a free port, not
                # on 8787, which another cluster may hold
                dashboard_address="127.0.0.1:0", scheduler_kwargs={"dashboard": False},
            )
            client = Client(cluster, security=tls.security() if tls.on else None)
        else:
            client = Client(address.text, security=tls.security(), timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as error:
        if cluster is not None:
            cluster.close()
        raise UserError(f"--cluster {address.text}: cannot connect to the scheduler ({error}); "
                        "is it running (dask scheduler) and reachable from here?") from None
    try:
        yield ClusterSession(client, address)
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=10)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=10)
