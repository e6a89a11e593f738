"""Waiting for a rigorbench run in a child process to have stored some trials, so that a test
can kill it mid-run (``kill -9``) and check what the store kept."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from rigorbench.errors import UserError
from rigorbench.store import ResultStore


def wait_for_trials(child: subprocess.Popen, db: Path, trials: int, timeout_s: float = 300, poll_s: float = 0.2) -> None:
    """Return once the newest run in ``db`` has ``trials`` finished trials while ``child`` still
    runs; fail when the child ends first (it would have finished before it could be killed)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and child.poll() is None:
        if db.exists() and _finished(db) >= trials:
            break
        time.sleep(poll_s)
    assert child.poll() is None, "the run ended before it could be killed"


def _finished(db: Path) -> int:
    """Finished trials of run 1; 0 while the child has made the file but not yet its tables
    (opening the store then says "no results store here", which failed a CI run once)."""
    try:
        with ResultStore.open(db, create=False) as store:
            return len(store.finished(1)) if store.latest_run() else 0
    except UserError:
        return 0
