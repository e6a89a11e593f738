"""What the harnesses that run a build tool and then a benchmark program share (Go, Google
Benchmark, pyperf): a build step that fails as one clear error, one process's result file as
one fork of the trial (its first ``warmup`` iterations kept as warmup iterations), the forks'
tables as the trial's outcome, and progress from the program's output lines."""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from rigorbench.harness.base import HarnessError, Progress, TrialOutcome
from rigorbench.harness.process import describe_command, output_tail, run_streamed, tail
from rigorbench.model import ResultFile, SampleTable, Series

TAIL_LINES = 20

# (case, metric) -> the tables of every fork run so far in this trial
Tables = dict[tuple, list[SampleTable]]


def add_process(result: ResultFile, fork: int, warmup: int, tables: Tables) -> None:
    """One process's results (iterations 0..n-1 of fork 0, as the readers give them) as fork
    ``fork``, the first ``warmup`` iterations of every benchmark marked warmup and the others
    numbered from 0."""
    for series in result.series:
        s = series.samples
        is_warmup = s.iteration < warmup
        moved = SampleTable(instance=s.instance, trial=s.trial, fork=np.full(len(s.value), fork),
                            iteration=np.where(is_warmup, s.iteration, s.iteration - warmup),
                            warmup=is_warmup, value=s.value, count=s.count)
        tables.setdefault((series.case, series.metric), []).append(moved)


def outcome(status: str, tables: Tables, started: float, environment: dict, failures: list, lines: list,
            message: str) -> TrialOutcome:
    """The trial's outcome from the forks' tables (``started``: ``time.monotonic()`` at its start)."""
    series = tuple(Series(case, metric, SampleTable.concat(parts)) for (case, metric), parts in tables.items())
    return TrialOutcome(status=status, series=series, harness_seconds=time.monotonic() - started,
                        environment=environment, failures=tuple(dict.fromkeys(failures)),
                        output_tail=tail(lines, TAIL_LINES), message=message)


def run_checked(command: list[str], cwd: Path, what: str, env: Mapping[str, str] | None = None) -> list[str]:
    """Run a build step; its output lines, or HarnessError with the command and its last lines."""
    run = run_streamed(command, cwd=cwd, env=env)
    if run.returncode != 0:
        raise HarnessError(f"{what} failed: `{describe_command(command)}` exited with code {run.returncode} (in {cwd})",
                           (f"reproduce it with: cd {shlex.quote(str(cwd))} && {describe_command(command)}",
                            *output_tail(run.lines, TAIL_LINES)))
    return list(run.lines)


def progress_of(on_progress: Callable[[Progress], None], running: re.Pattern, fork: int | None = None,
                forks: int | None = None) -> Callable[[str], None]:
    """An ``on_line`` that reports each output line, with the benchmark ``running`` finds in it."""
    def feed(line: str) -> None:
        match = running.match(line)
        on_progress(Progress(benchmark=match.group(1) if match else None,
                             fork=None if fork is None else fork + 1, forks=forks, line=line))
    return feed


def read_or_empty(path: Path) -> str:
    """A source file's text for a look at what it declares ("" when it cannot be read)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
