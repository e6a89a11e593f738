"""What harnesses that run a benchmark binary once per fork share (Go, Google Benchmark):
one process's result file becomes one fork of the trial, its first ``warmup`` iterations
kept as warmup iterations, and the forks' tables become the trial's outcome."""

from __future__ import annotations

import time

import numpy as np

from rigorbench.harness.base import TrialOutcome
from rigorbench.harness.process import tail
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
