"""One benchmark trial at a time on a machine.

Two trials that run at once measure each other: they share the CPUs, caches and memory
bandwidth. JMH guards against it with a lock file of its own and exits at once when another
JMH holds it, which turned every trial of a second concurrent ``rigorbench`` into a failed
one. rigorbench takes its own machine-wide lock around each trial instead, and waits for it:
two experiments started together interleave their trials instead of measuring each other or
failing. The lock is an ``flock`` on a file in the system's temporary directory, released by
the kernel when the process ends, however it ends (``kill -9`` included). A trial that a
``kill -9`` left running is stopped by the next holder of the lock
(:func:`rigorbench.harness.process.stop_orphaned_groups`).
"""

from __future__ import annotations

import contextlib
import fcntl
import time
from pathlib import Path
from typing import Callable, Iterator

from rigorbench.harness.process import lock_dir, stop_orphaned_groups

LOCK_NAME = "rigorbench-trial.lock"


def lock_path(name: str = LOCK_NAME) -> Path:
    """A machine-wide lock file (``RIGORBENCH_LOCK_DIR``, else the temporary directory)."""
    return lock_dir() / name


@contextlib.contextmanager
def one_trial_at_a_time(say: Callable[[str], None]) -> Iterator[float]:
    """Hold the machine's trial lock for the body; ``say`` once when another trial holds it.

    Yields the seconds spent waiting for the lock (0 when it was free), so that the time other
    experiments' trials took is not counted as this experiment's overhead.
    """
    path = lock_path()
    try:
        handle = open(path, "a+")
    except OSError:          # an unwritable temporary directory must not stop the experiment
        yield 0.0
        return
    with handle:
        waited = 0.0
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting: another rigorbench trial is running on this machine (lock {path})")
            started = time.monotonic()
            fcntl.flock(handle, fcntl.LOCK_EX)
            waited = time.monotonic() - started
        try:
            stop_orphaned_groups(say)
            yield waited
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
