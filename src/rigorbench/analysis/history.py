"""Change points of per-commit histories (issue 17).

:func:`detect_changes` runs :func:`rigorbench.stats.changepoints.change_points` on each series
of a history (``rigorbench.formats.history_csv``); where the runs carry their own confidence
intervals, each run's standard error comes from its interval, so that a shift must be larger
than the runs' own noise. Series built from rigorbench's own stored runs come later.
"""

from __future__ import annotations

from dataclasses import dataclass

from rigorbench.formats.history_csv import HistorySeries
from rigorbench.stats.changepoints import MAX_P, MIN_SIZE, WINDOW, ChangePoint, change_points, standard_errors

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


def _errors(s: HistorySeries, confidence: float) -> list[float] | None:
    if s.ci_low is None or s.ci_high is None:
        return None
    return standard_errors(s.ci_low, s.ci_high, s.values, confidence).tolist()


def detect_changes(series: list[HistorySeries], sources: tuple[str, ...], *, max_p: float = MAX_P,
                   min_size: int = MIN_SIZE, window: int = WINDOW, ci_confidence: float = CI_CONFIDENCE) -> HistoryChanges:
    """Change points of every series; ``ci_confidence`` is that of the runs' own intervals."""
    found = tuple(
        SeriesChanges(s, tuple(change_points(s.values, _errors(s, ci_confidence), window=window, max_p=max_p,
                                             min_size=min_size)))
        for s in series
    )
    return HistoryChanges(sources, found, max_p, min_size, window)
