"""A real PostgreSQL server for the tests, started from the machine's server binaries.

The server runs from a temporary folder (its data directory and Unix socket), listens on a
free localhost port, trusts local connections (so any password works, which lets the tests
put one in their URLs and check it is never shown), and runs without fsync: it lives for one
test session. initdb and postgres refuse to run as root, so as root they run as ``nobody``
through ``runuser``. The Makefile installs Debian's ``postgresql`` package, whose binaries
are in /usr/lib/postgresql/VERSION/bin, off the PATH.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SUPERUSER = "rigorbench"
PASSWORD = "s3cr3t-pw"   # accepted (trust) and never to be shown


def find_bin_dir() -> Path | None:
    """The folder of initdb and pg_ctl: on the PATH, or Debian's newest version."""
    on_path = shutil.which("pg_ctl")
    if on_path and shutil.which("initdb"):
        return Path(on_path).parent
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    bin_dir: Path
    root: Path
    port: int

    @property
    def data(self) -> Path:
        return self.root / "data"

    def url(self, database: str, *, password: bool = True) -> str:
        secret = f":{PASSWORD}" if password else ""
        return f"postgresql://{SUPERUSER}{secret}@127.0.0.1:{self.port}/{database}"

    def _run(self, *argv: str) -> None:
        prefix = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *argv], check=True, cwd=self.root, capture_output=True, timeout=60)

    def start(self) -> None:
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", SUPERUSER, "--auth=trust",
                  "-E", "UTF8", "--no-sync", "--no-instructions")
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-o", options, "-l",
                  str(self.root / "server.log"), "-w", "-t", "60", "start")

    def stop(self) -> None:
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def create_database(self, name: str) -> str:
        """A fresh, empty database; returns its URL (with the password)."""
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def start_server() -> Server:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise FileNotFoundError("no PostgreSQL server binaries (initdb, pg_ctl) on PATH or in /usr/lib/postgresql/*/bin")
    root = Path(tempfile.mkdtemp(prefix="rigorbench-pg-"))
    if os.geteuid() == 0:
        os.chown(root, 65534, 65534)  # nobody: the server's own folder
    server = Server(bin_dir, root, _free_port())
    try:
        server.start()
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return server
