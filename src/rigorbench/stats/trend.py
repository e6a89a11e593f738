"""Drift within a measurement series: still warming up, or accumulating state.

Theil-Sen slope (robust to outliers) and Kendall's tau against the iteration index (the
Mann-Kendall trend test), both from scipy. Iteration series are autocorrelated, which makes
the p-value too small (the effective sample is smaller than n); so a trend only counts when
it is also large enough to matter: the fitted drift over the series is at least
``min_drift`` (2% by default) of the median.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from rigorbench.stats._checks import finite_sample


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
    index = np.arange(len(x))
    slope = float(sps.theilslopes(x, index).slope)
    tau = sps.kendalltau(index, x)
    median = float(np.median(x))
    drift = slope * (len(x) - 1) / abs(median) if median else 0.0
    significant = bool(tau.pvalue < alpha and abs(drift) >= min_drift)
    direction = ("up" if drift > 0 else "down") if significant else None
    return Trend(slope, float(drift), float(tau.statistic), float(tau.pvalue), significant, direction)
