"""``rigorbench worker``: a benchmarking worker for one machine, a thin wrapper over ``dask worker``.

It starts one Dask worker process with one thread and one ``benchmark`` slot (the resource
every trial needs), named after the host, so that the scheduler never gives this machine two
trials at once and a restarted worker is the same instance again. A second benchmarking
worker on the same machine would measure its trials against this one's, so it is refused
(a lock file held for the worker's life) unless ``--force``.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from rigorbench.experiment.address import SLOT, ClusterAddress, TLSFiles, exposure_warning
from rigorbench.cluster.task import WORK_DIR_ENV
from rigorbench.errors import MissingDependency, UserError
from rigorbench.experiment.machine_lock import lock_path

LOCK_NAME = "rigorbench-worker.lock"


@dataclass(frozen=True)
class WorkerOptions:
    address: ClusterAddress
    tls: TLSFiles
    name: str | None = None          # default: the host name
    work_dir: str | None = None      # default: ~/.cache/rigorbench/worker
    force: bool = False


@contextlib.contextmanager
def one_worker_per_machine(force: bool) -> Iterator[None]:
    """Hold the machine's worker lock for the worker's life; refuse when another holds it."""
    path = lock_path(LOCK_NAME)
    handle = open(path, "a+")
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not force:
                handle.seek(0)
                pid = handle.read().strip() or "?"
                raise UserError(f"a rigorbench worker already runs on this machine (pid {pid}, lock {path}): two would "
                                "measure each other's trials; --force starts another anyway") from None
            yield
            return
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def dask_worker_command(options: WorkerOptions) -> list[str]:
    """The ``dask worker`` command line (an argument list: nothing goes through a shell)."""
    return [
        sys.executable, "-m", "distributed.cli.dask_worker", options.address.text,
        "--nworkers", "1", "--nthreads", "1", "--resources", f"{SLOT}=1",
        "--name", options.name or socket.gethostname(), "--no-dashboard",
        *options.tls.worker_arguments(),
    ]


def run_worker(options: WorkerOptions, say: Callable[[str], None]) -> int:
    """Start the worker and wait for it; its exit status."""
    from rigorbench.harness.base import RunSettings
    from rigorbench.harness.environment import capture_environment, fitness_warnings

    if options.address.local:
        raise UserError("rigorbench worker connects to a scheduler (tcp://HOST:8786); local:N starts its own workers")
    if importlib.util.find_spec("distributed") is None:  # the worker process is `python -m distributed...`
        raise MissingDependency("rigorbench worker", "distributed", "cluster")
    options.tls.check(options.address)
    warning = exposure_warning(options.address, options.tls)
    if warning:
        say(f"warning: {warning}")
    with one_worker_per_machine(options.force):
        for found in fitness_warnings(capture_environment(), RunSettings()):
            say(f"{found.severity}: {found.message}" + (f" ({found.hint})" if found.hint else ""))
        command = dask_worker_command(options)
        environment = dict(os.environ)
        if options.work_dir:
            environment[WORK_DIR_ENV] = str(Path(options.work_dir).resolve())
        say(f"benchmarking worker {command[command.index('--name') + 1]} for {options.address.text}: one trial at a time "
            "(Ctrl-C stops it; a trial it was running runs again elsewhere)")
        try:
            return subprocess.run(command, env=environment, check=False).returncode
        except KeyboardInterrupt:
            return 130
