"""Per-commit histories (issue 17): their series, and the change points in them.

A series is one benchmark case and metric over the commits of one branch on one kind of
machine. :func:`stored_series` groups the results store's history points into series and
selects among them; :func:`detect_changes` runs
:func:`rigorbench.stats.changepoints.change_points` on each series (from the store or from
an Otava CSV file, ``rigorbench.formats.history_csv``). Where the points carry their own
confidence intervals, each point's standard error comes from its interval, so that a shift
must be larger than the runs' own noise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from rigorbench.errors import UserError
from rigorbench.formats.history_csv import HistorySeries
from rigorbench.model import BenchmarkCase, Metric
from rigorbench.stats.changepoints import MAX_P, MIN_SIZE, WINDOW, ChangePoint, change_points, standard_errors
from rigorbench.store.api import HistoryPoint

CI_CONFIDENCE = 0.99  # of the runs' intervals in METRIC.ci_low / METRIC.ci_high (rigorbench's default)


@dataclass(frozen=True)
class SeriesChanges:
    series: HistorySeries
    changes: tuple[ChangePoint, ...]

    def direction(self, change: ChangePoint) -> str:
        """"slower" or "faster" in the user's sense (a throughput that drops is slower)."""
        up = change.after.mean > change.before.mean
        return "faster" if up == self.series.higher_is_better else "slower"

    @property
    def newest_is_regression(self) -> bool:
        return bool(self.changes) and self.direction(self.changes[-1]) == "slower"


@dataclass(frozen=True)
class HistoryChanges:
    sources: tuple[str, ...]
    series: tuple[SeriesChanges, ...]
    max_p: float
    min_size: int
    window: int

    def fails(self, fail_on: str | None) -> bool:
        return fail_on == "regression" and any(s.newest_is_regression for s in self.series)


@dataclass(frozen=True)
class Selection:
    """Which series to show: ``bench`` searched in the benchmark's name (with its params),
    ``metrics`` by name (None: the primary metrics; "all": every one), ``branch`` exactly,
    points at or after ``since``."""

    bench: re.Pattern | None = None
    metrics: tuple[str, ...] | None = None
    branch: str | None = None
    since: datetime | None = None

    def wants(self, point: HistoryPoint) -> bool:
        if self.bench is not None and not self.bench.search(point.case.display_name):
            return False
        if self.metrics is None:
            if not point.metric.primary:
                return False
        elif "all" not in self.metrics and point.metric.name not in self.metrics:
            return False
        if self.branch is not None and point.branch != self.branch:
            return False
        return self.since is None or datetime.fromisoformat(point.time) >= self.since


@dataclass(frozen=True)
class StoredSeries:
    """The points of one series, oldest first."""

    case: BenchmarkCase
    metric: Metric
    branch: str
    machine: str
    points: tuple[HistoryPoint, ...]

    def as_history(self) -> HistorySeries:
        """The series as change-point detection reads it."""
        points = self.points
        with_ci = all(p.ci_low is not None for p in points)
        return HistorySeries(
            self.case.name, self.metric.name, self.metric.higher_is_better,
            tuple(p.time for p in points), tuple(p.commit for p in points), tuple(p.mean for p in points),
            tuple(p.ci_low for p in points) if with_ci else None, tuple(p.ci_high for p in points) if with_ci else None,
            confidences=tuple(p.confidence for p in points) if with_ci else None,
            params=self.case.params, unit=self.metric.unit, branch=self.branch, machine=self.machine,
        )


def stored_series(points: list[HistoryPoint], selection: Selection = Selection()) -> list[StoredSeries]:
    """The selected points grouped into series (case, metric, branch, machine kind), each in
    time order, the series by benchmark, metric, branch and machine."""
    groups: dict[tuple, list[HistoryPoint]] = {}
    for point in points:
        if selection.wants(point):
            groups.setdefault((point.case, point.metric.name, point.metric, point.branch, point.machine), []).append(point)
    series = []
    for (case, _, metric, branch, machine), members in sorted(groups.items(), key=lambda item: _order(item[0])):
        ordered = sorted(members, key=lambda p: datetime.fromisoformat(p.time))  # stable: equal times keep storing order
        series.append(StoredSeries(case, metric, branch, machine, tuple(ordered)))
    return series


def _order(key: tuple) -> tuple:
    case, name, metric, branch, machine = key
    return (case.name, case.params, not metric.primary, name, metric.unit, branch, machine)


def machine_kinds(series: list[StoredSeries]) -> dict[tuple, list[str]]:
    """(case, metric name, branch) measured on more than one kind of machine -> the kinds:
    such series are never mixed, and the outputs say so."""
    kinds: dict[tuple, list[str]] = {}
    for s in series:
        kinds.setdefault((s.case, s.metric.name, s.branch), []).append(s.machine)
    return {key: machines for key, machines in kinds.items() if len(machines) > 1}


def point_errors(s: HistorySeries, confidence: float) -> list[float] | None:
    if s.ci_low is None or s.ci_high is None:
        return None
    level = np.asarray(s.confidences, dtype=np.float64) if s.confidences is not None else confidence
    return standard_errors(s.ci_low, s.ci_high, s.values, level).tolist()


def detect_changes(series: list[HistorySeries], sources: tuple[str, ...], *, max_p: float = MAX_P,
                   min_size: int = MIN_SIZE, window: int = WINDOW, ci_confidence: float = CI_CONFIDENCE) -> HistoryChanges:
    """Change points of every series; ``ci_confidence`` is that of the runs' own intervals."""
    found = tuple(
        SeriesChanges(s, tuple(change_points(s.values, point_errors(s, ci_confidence), window=window, max_p=max_p,
                                             min_size=min_size)))
        for s in series
    )
    return HistoryChanges(sources, found, max_p, min_size, window)


def stored_history(store_path: str, selection: Selection = Selection()) -> tuple[str, list[StoredSeries], int]:
    """A store's history: the store as it may be shown (password masked), its selected
    series (:func:`stored_series`) and how many points it holds in all."""
    from rigorbench.store import ResultStore
    from rigorbench.store.location import masked

    with ResultStore.read(store_path) as store:
        points = store.history_points()
    return masked(store_path), stored_series(points, selection), len(points)


def history_changes(store_path: str | None = None, *, csv: str | None = None, selection: Selection = Selection(),
                    time_column: str = "time", commit_column: str = "commit", higher_is_better: re.Pattern | None = None,
                    lower_is_better: re.Pattern | None = None,
                    max_p: float = MAX_P, min_size: int = MIN_SIZE, window: int = WINDOW,
                    ci_confidence: float = CI_CONFIDENCE) -> HistoryChanges:
    """Change points of the selected series of the history in ``store_path``, or of the
    metric columns of an Otava-style CSV file ``csv`` (read with ``time_column``,
    ``commit_column``, ``higher_is_better`` and ``lower_is_better``; ``selection`` picks
    columns and rows)."""
    if csv is not None:
        from rigorbench.formats.history_csv import read_history_csv

        series = read_history_csv(
            csv, time_column=time_column, commit_column=commit_column,
            metrics=list(selection.metrics) if selection.metrics else None, bench=selection.bench,
            higher_is_better=higher_is_better, lower_is_better=lower_is_better, branch=selection.branch,
            since=selection.since,
        )
        if not series:
            raise UserError(f"{csv}: no metric column with numbers{' matches --bench' if selection.bench else ''}")
        sources = (csv,)
    else:
        store, stored, _ = stored_history(store_path, selection)
        series, sources = [s.as_history() for s in stored], (store,)
    return detect_changes(series, sources, max_p=max_p, min_size=min_size, window=window, ci_confidence=ci_confidence)
