"""Drift within a measurement series: still warming up, or accumulating state.

Theil-Sen slope (robust to outliers) and Kendall's tau against the iteration index (the
Mann-Kendall trend test), both from scipy. Iteration series are autocorrelated, which makes
the p-value too small (the effective sample is smaller than n); so a trend only counts when
it is also large enough to matter: the fitted drift over the series is at least
``min_drift`` (2% by default) of the median. Series longer than ``MAX_POINTS`` are tested on
the means of consecutive blocks (Theil-Sen is quadratic in n); block means also temper the
autocorrelation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from rigorbench.stats._checks import finite_sample


MAX_POINTS = 200


def _blocks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(positions, values): the series itself, or means of equal consecutive blocks."""
    if len(x) <= MAX_POINTS:
        return np.arange(len(x), dtype=float), x
    size = int(np.ceil(len(x) / MAX_POINTS))
    count = len(x) // size
    means = x[: count * size].reshape(count, size).mean(axis=1)
    return np.arange(count) * size + (size - 1) / 2, means


@dataclass(frozen=True)
class Trend:
    slope: float                # per iteration (Theil-Sen)
    relative_drift: float       # slope * (n - 1) / median: change over the series
    tau: float
    p_value: float
    significant: bool
    direction: str | None       # "up" | "down" | None


def trend(values, *, alpha: float = 0.01, min_drift: float = 0.02) -> Trend:
    x = finite_sample(values, "trend")
    if len(x) < 3 or np.all(x == x[0]):
        return Trend(0.0, 0.0, 0.0, 1.0, False, None)
    index, points = _blocks(x)
    slope = float(sps.theilslopes(points, index).slope)
    tau = sps.kendalltau(index, points)
    median = float(np.median(x))
    drift = slope * (len(x) - 1) / abs(median) if median else 0.0
    significant = bool(tau.pvalue < alpha and abs(drift) >= min_drift)
    direction = ("up" if drift > 0 else "down") if significant else None
    return Trend(slope, float(drift), float(tau.statistic), float(tau.pvalue), significant, direction)
