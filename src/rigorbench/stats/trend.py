"""Drift within a measurement series: still warming up, or accumulating state.

Theil-Sen slope (robust to outliers; Sen 1968) and the Mann-Kendall trend test (Mann 1945,
Kendall 1975) against the iteration index. Iteration series are autocorrelated -- a fork's
GC and JIT state carries over from one iteration to the next -- and positive
autocorrelation makes the plain Mann-Kendall p-value far too small: on AR(1) noise with
phi = 0.8 and no trend the plain test at alpha = 0.01 fires in a third of series of 50-200
iterations. The p-value is therefore corrected as in **Hamed & Rao (1998)** ("A modified
Mann-Kendall trend test for autocorrelated data", J. Hydrology 204, 182-196): the variance of
the S statistic is multiplied by

    n / n* = 1 + 2 / (n (n-1) (n-2)) * sum_k (n-k) (n-k-1) (n-k-2) rho_k

where ``rho_k`` are the autocorrelations of the ranks of the series detrended by its
Theil-Sen slope. Which ``rho_k``: the paper sums every lag whose sample autocorrelation is
significant; measured here on AR(1) noise, that is liberal (3-4% false alarms at alpha 1%
even without autocorrelation, because chance negative correlations shrink the variance, and
18% at phi = 0.8). rigorbench uses the lag-1 form: the ranks' lag-1 autocorrelation ``r``,
corrected for its small-sample bias (E[r] ~ rho - (1 + 3 rho) / n; Kendall 1954), counts when
it is significant at 5%, and the AR(1) model it implies gives ``rho_k = r^k`` at every lag;
the factor is never below 1. False alarms at alpha 1%: 0.3-1% without autocorrelation,
2-7% at phi = 0.8 (plain: 34-40%); ``docs/statistics.md``. Written here because scipy has
only the plain test; ``pymannkendall`` is the oracle for S, its variance and the formula.

A trend also counts only when it is large enough to matter: the fitted drift over the
series is at least ``min_drift`` (2% by default) of the median. Series longer than
``MAX_POINTS`` are tested on the means of consecutive blocks (Theil-Sen and S are quadratic
in n); block means also temper the autocorrelation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats as sps

from rigorbench.stats._checks import finite_sample


MAX_POINTS = 200
ACF_LEVEL = 0.05   # the lag-1 autocorrelation counts when significant at this level (two-sided)
MAX_LAG1 = 0.99    # a corrected lag-1 estimate at or above 1 is no AR(1) model


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
    p_value: float              # Hamed & Rao's, corrected for autocorrelation
    significant: bool
    direction: str | None       # "up" | "down" | None
    plain_p_value: float = 1.0  # the uncorrected Mann-Kendall p-value
    variance_factor: float = 1.0  # Hamed & Rao's n / n*


def _mann_kendall_s(x: np.ndarray) -> float:
    """S = sum over i < j of sign(x_j - x_i)."""
    diff = x[None, :] - x[:, None]
    return float(np.sign(diff[np.triu_indices(len(x), 1)]).sum())


def _theil_sen_slope(index: np.ndarray, x: np.ndarray) -> float:
    """The median of the slopes between all pairs of points with distinct positions: the
    slope of ``scipy.stats.theilslopes``, without its intercept and confidence interval
    (which cost three quarters of its time here)."""
    dx = index[:, None] - index[None, :]
    dy = x[:, None] - x[None, :]
    later = dx > 0
    return float(np.median(dy[later] / dx[later]))


def _kendall_tau_b(s: float, x: np.ndarray) -> float:
    """Kendall's tau-b of ``x`` against distinct positions, from Mann-Kendall's S (the number
    of concordant minus discordant pairs), as ``scipy.stats.kendalltau`` computes it."""
    n = len(x)
    _, t = np.unique(x, return_counts=True)
    pairs, tied = n * (n - 1) // 2, int(np.sum(t * (t - 1) // 2))
    if pairs == tied:
        return float("nan")
    return float(min(1.0, max(-1.0, s / np.sqrt(pairs) / np.sqrt(pairs - tied))))


def _s_variance(x: np.ndarray) -> float:
    """Var(S) under no trend, corrected for ties."""
    n = len(x)
    _, t = np.unique(x, return_counts=True)
    return float((n * (n - 1) * (2 * n + 5) - np.sum(t * (t - 1) * (2 * t + 5))) / 18)


def hamed_rao_factor(n: int, rho) -> float:
    """Hamed & Rao's n / n* for rank autocorrelations ``rho`` at lags 1, 2, ..."""
    rho = np.asarray(rho, dtype=float)
    k = np.arange(1, rho.size + 1)
    return float(1 + 2 / (n * (n - 1) * (n - 2)) * np.sum((n - k) * (n - k - 1) * (n - k - 2) * rho))


def rank_lag1(index: np.ndarray, x: np.ndarray, slope: float) -> float:
    """Lag-1 autocorrelation of the ranks of the series detrended by ``slope``."""
    ranks = sps.rankdata(x - slope * index)
    centred = ranks - ranks.mean()
    total = float(np.sum(centred * centred))
    return float(np.sum(centred[1:] * centred[:-1]) / total) if total > 0 else 0.0


def _variance_factor(index: np.ndarray, x: np.ndarray, slope: float) -> float:
    """n / n* from the bias-corrected lag-1 rank autocorrelation and its AR(1) model."""
    n = len(x)
    r = rank_lag1(index, x, slope)
    r = min(r + (1 + 3 * r) / n, MAX_LAG1)
    if r <= special.ndtri(1 - ACF_LEVEL / 2) / np.sqrt(n):  # the normal quantile, as norm.ppf
        return 1.0
    return max(1.0, hamed_rao_factor(n, r ** np.arange(1, n)))


def _p_value(s: float, variance: float) -> float:
    if variance <= 0 or s == 0:
        return 1.0
    z = (s - np.sign(s)) / np.sqrt(variance)
    return float(2 * special.ndtr(-abs(z)))  # the normal tail, as norm.sf


def trend(values, *, alpha: float = 0.01, min_drift: float = 0.02) -> Trend:
    x = finite_sample(values, "trend")
    if len(x) < 3 or np.all(x == x[0]):
        return Trend(0.0, 0.0, 0.0, 1.0, False, None)
    index, points = _blocks(x)
    slope = _theil_sen_slope(index, points)
    s, variance = _mann_kendall_s(points), _s_variance(points)
    tau = _kendall_tau_b(s, points)
    factor = _variance_factor(index, points, slope) if len(points) >= 3 else 1.0
    p_value = _p_value(s, variance * factor)
    median = float(np.median(x))
    drift = slope * (len(x) - 1) / abs(median) if median else 0.0
    significant = bool(p_value < alpha and abs(drift) >= min_drift)
    direction = ("up" if drift > 0 else "down") if significant else None
    return Trend(slope, float(drift), tau, p_value, significant, direction, _p_value(s, variance), factor)
