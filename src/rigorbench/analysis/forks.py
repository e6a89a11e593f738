"""Per-fork iteration series, their steady state, and the configured warmup.

JMH runs warmup iterations and then measurement iterations in each fork; rigorbench keeps
both (warmup rows from the console log). The steady-state detector (``stats.steady``,
after Traini et al., EMSE 2022) looks at the whole series of a fork, warmup included, so
its answer can be set against the warmup the user configured: "warmup too short in 3 of 5
forks" or "warmup longer than needed by 40 iterations" (issue #5).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from rigorbench.model import Diagnostic, SampleTable
from rigorbench.stats.grouping import unique_rows

if TYPE_CHECKING:
    from rigorbench.stats.steady import SteadyState

# Below this many iterations in a fork, change-point detection has nothing to work with.
MIN_STEADY_ITERATIONS = 20
# The detector places a fork's start on segments of at least 5 iterations (stats.steady), so
# one or two slow iterations at the start of measurement do not move it: every fork of
# tests/testdata/jmh/long-v2 measured sumCsv's first iteration 18-19% slower than the rest and
# was called steady from its first. When most forks start that way, those iterations are
# warmup: up to LEADING iterations, each off the rest of its fork by more than the detector's
# tolerance.
LEADING = 3
LEADING_TOLERANCE = 0.05
LEADING_SHARE = 0.75


@dataclass(frozen=True, eq=False)
class ForkSeries:
    """One fork's scores in the order they were taken: warmup first, then measurement."""

    instance: int
    trial: int
    fork: int
    warmup: int                 # number of warmup iterations at the start of ``values``
    values: np.ndarray
    rows: np.ndarray            # row index into the (iteration-level) table, per value

    @property
    def measurement(self) -> np.ndarray:
        return self.values[self.warmup:]


@dataclass(frozen=True, eq=False)
class SteadyResult:
    """The steady-state verdict of a benchmark with each fork's start (None: never)."""

    verdict: str | None         # steady | inconsistent | none; None when forks are too short
    forks: tuple[ForkSeries, ...]
    states: tuple[SteadyState, ...]

    @property
    def assessed(self) -> bool:
        return self.verdict is not None


def fork_series(table: SampleTable) -> list[ForkSeries]:
    """Split an iteration-level table into per-fork series, warmup before measurement."""
    if table.has_histogram:
        table = table.iteration_means()
    keys, fork_of = unique_rows(np.stack([table.instance, table.trial, table.fork], axis=1))
    # Fork by fork; in each, warmup first (JMH's phase order), then by iteration code within
    # each phase (a stable sort: equal codes keep the table's order).
    order = np.lexsort((table.iteration, ~table.warmup, fork_of))
    bounds = np.flatnonzero(np.diff(fork_of[order])) + 1
    forks = []
    for key, rows in zip(keys, np.split(order, bounds)):
        forks.append(ForkSeries(
            int(key[0]), int(key[1]), int(key[2]), int(table.warmup[rows].sum()), table.value[rows], rows,
        ))
    return forks


def steady_report(table: SampleTable, unit: str = "") -> SteadyResult:
    """Detect the steady state of every fork long enough to tell; ``unit`` (the metric's)
    gives each fork's time per operation to the outlier filter (``stats/steady.py``)."""
    # Imported here: change-point detection (numba, scipy) costs a second to load and only
    # --steady-only and analyze need it.
    from rigorbench.stats.steady import classify_forks
    from rigorbench.units import nanoseconds_per_op

    forks = tuple(fork_series(table))
    if not forks or min(len(f.values) for f in forks) < MIN_STEADY_ITERATIONS:
        return SteadyResult(None, forks, ())
    nanoseconds = [nanoseconds_per_op(float(np.mean(f.values)), unit) if unit else None for f in forks]
    verdict = classify_forks([f.values for f in forks],
                             op_seconds=[None if ns is None else ns * 1e-9 for ns in nanoseconds])
    return SteadyResult(verdict.verdict, forks, _leading_iterations(forks, tuple(verdict.forks)))


def _leading_iterations(forks: tuple[ForkSeries, ...], states: tuple) -> tuple:
    """``states`` with each fork's start moved past its leading unsteady iterations when at
    least LEADING_SHARE of two or more forks have some (one fork's odd first value is noise)."""
    leading = [_leading(f, s) for f, s in zip(forks, states)]
    if len(forks) < 2 or sum(k > 0 for k in leading) < LEADING_SHARE * len(forks):
        return states
    return tuple(replace(s, start=max(s.start, f.warmup) + k) if k else s for f, s, k in zip(forks, states, leading))


def _leading(fork: ForkSeries, state) -> int:
    """How many iterations at the start of the fork's steady part (0 to LEADING) differ from
    the median of the rest of it by more than LEADING_TOLERANCE, in a row."""
    if state.start is None or not state.reached:
        return 0
    steady = fork.values[max(state.start, fork.warmup):]
    if steady.size < 4 * LEADING:
        return 0
    median = float(np.median(steady[LEADING:]))
    count = 0
    while count < LEADING and median > 0 and abs(steady[count] / median - 1) > LEADING_TOLERANCE:
        count += 1
    return count


def steady_rows(table: SampleTable, report: SteadyResult) -> SampleTable:
    """Only the measurement iterations taken at or after each fork's steady-state start.

    Forks that never reach steady state contribute nothing. The caller decides what to do
    when nothing is left (``--steady-only`` keeps all data and says so).
    """
    if table.has_histogram:
        table = table.iteration_means()
    keep = np.zeros(len(table), dtype=bool)
    for fork, state in zip(report.forks, report.states):
        if state.start is None or not state.reached:
            continue
        start = max(state.start, fork.warmup)
        keep[fork.rows[start:]] = True
    return table.select(keep & ~table.warmup)


def select_steady(table: SampleTable, report: SteadyResult, side: str = "") -> tuple[SampleTable, tuple[Diagnostic, ...]]:
    """``--steady-only`` for compare and analyze alike: the measurement iterations taken in
    steady state, or all of them when there are none, with a diagnostic saying which."""
    where = f"{side}: " if side else ""
    if not report.assessed:
        return table, (Diagnostic(
            "steady_only_not_applied", f"{where}forks have fewer than {MIN_STEADY_ITERATIONS} iterations; "
            "steady state cannot be detected, all measurement iterations used", "info",
            "run more iterations per fork to let rigorbench find where steady state starts",
        ),)
    steady = steady_rows(table, report)
    if not len(steady):
        return table, (Diagnostic(
            "steady_only_not_applied", f"{where}no fork reaches steady state; all measurement iterations used",
            "warning", "see 'rigorbench analyze': the benchmark may never settle on this machine",
        ),)
    measured = sum(len(fork.measurement) for fork in report.forks)
    return steady, (Diagnostic(
        "steady_only", f"{where}{len(steady)} of {measured} measurement iterations are in steady state and used", "info", "",
    ),)
