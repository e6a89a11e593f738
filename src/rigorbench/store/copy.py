"""``store copy SRC DST``: move a store's history between SQLite files and PostgreSQL.

Every run (its versions, schedule, trials with their environment and output, and every
sample) and every history point with its machine kind go from SRC to DST. Runs get new ids
in DST, given by DST, in SRC's order; a history point that refers to a run refers to its
copy. Each run is written as the experiment wrote it, one transaction per trial, so another
process may write to DST meanwhile. The history points go in last, all or none, after they
have been checked against DST's own (a point already there is refused before anything is
copied).

DST that already holds runs or history is refused unless ``append``: copying twice into one
store would store every run twice. A DST that is a new SQLite file is written under a temporary
name beside it and takes its name only when the copy is complete: an error or Ctrl-C part way
leaves no partial store that a later command would take for a whole one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from rigorbench.errors import UserError
from rigorbench.store import location
from rigorbench.store.check import read_run, write_run
from rigorbench.store.results import ResultStore

# progress(copied runs, all runs, source run id, its id in DST, samples of the run)
Progress = Callable[[int, int, int, int, int], None]


@dataclass(frozen=True)
class Copy:
    runs: dict[int, int]      # source run id -> its id in DST
    samples: int
    points: int


def copy_store(source: str, target: str, *, append: bool = False, progress: Progress | None = None) -> Copy:
    """Copy everything in the store ``source`` into ``target`` (created when absent)."""
    if _same(source, target):
        raise UserError(f"{location.masked(target)}: is the store being copied; give another store to copy into")
    if location.is_postgres(target) or os.path.lexists(target):
        return _copy(source, target, append, progress)
    final = Path(target)
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".partial", dir=final.parent)
    except OSError as error:
        raise UserError(f"{target}: cannot create the results store: {error.strerror or error}") from None
    os.close(handle)
    os.unlink(partial)            # the store makes the file itself
    try:
        copied = _copy(source, partial, append, progress)
        try:
            os.link(partial, final)   # unlike a rename, never replaces a store made meanwhile
        except FileExistsError:
            raise UserError(f"{target}: was created by another process during the copy; nothing was copied into it") from None
        except OSError:               # a file system without hard links: a rename, which replaces
            os.replace(partial, final)
        return copied
    finally:
        for leftover in (partial, f"{partial}-wal", f"{partial}-shm", f"{partial}-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)


def _copy(source: str, target: str, append: bool, progress: Progress | None) -> Copy:
    with ResultStore.read(source) as src, ResultStore.open(target) as dst:
        run_ids = src.run_ids()
        points = src.history_points()
        if not append:
            _check_empty(dst)
        if points:  # refused now, before any run is copied, when DST has one of them already
            dst.add_points([replace(p, run_id=None, label=None) for p in points], dry_run=True)
        mapping, samples = {}, 0
        for done, run_id in enumerate(run_ids, 1):
            info, executions, series = read_run(src, run_id)
            mapping[run_id] = write_run(dst, info, executions, series, keep_id=False)
            count = sum(e.samples for e in executions)
            samples += count
            if progress:
                progress(done, len(run_ids), run_id, mapping[run_id], count)
        copied = [p if p.run_id is None else replace(p, run_id=mapping.get(p.run_id)) for p in points]
        dst.add_points(copied)
    return Copy(mapping, samples, len(copied))


def _check_empty(store: ResultStore) -> None:
    runs, points = len(store.run_ids()), len(store.history_points())
    if runs or points:
        raise UserError(
            f"{store.path}: already holds {runs} runs and {points} history points; "
            "store copy adds to a store that is not empty only with --append"
        )


def _same(source: str, target: str) -> bool:
    if location.is_postgres(source) or location.is_postgres(target):
        return source == target
    import os

    try:
        return os.path.samefile(source, target)
    except OSError:
        return False
