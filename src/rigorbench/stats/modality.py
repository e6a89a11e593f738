"""Multimodality within a fork and groups among fork means.

Within a fork: Hartigan & Hartigan's dip test (the ``diptest`` package) says whether the
iteration scores are unimodal; a Gaussian kernel density estimate then locates the modes and
the share of values in each (values are assigned to the mode whose basin, between the
density minima, holds them). Its bandwidth is Sheather & Jones's plug-in
(``stats/bandwidth.py``): Silverman's rule of thumb, used before, over-smooths multimodal
data (the spread of the mixture inflates it) and merged modes the dip test had found. The
dip test alone flags tiny bumps once n is large, so both must agree and every mode must hold
at least ``min_share`` of the values. Measured false-alarm and detection rates:
``docs/statistics.md``.

Between forks: Laaber et al. (``shared/reference/004``, section 4) saw results cluster by
the hardware an instance landed on; forks of one JVM can likewise settle into different
states. Sorted fork means are split at their widest gap relative to the pooled spread within
the two sides; the split counts when that ratio exceeds the 99.9th percentile it reaches
for normally distributed fork means of the same count: a false-alarm rate of 0.1% per
benchmark. The critical values, one per fork count from 4 to 50, come from a Monte Carlo of
200,000 draws per count (``benchmarks/fork_cluster_table.py``, seeded; it prints the table
below). Beyond 50 forks the value for 50 is used, which errs towards fewer alarms: the
statistic's tail shrinks as forks are added. Below 4 forks no split has two forks a side.
"""

from __future__ import annotations

from dataclasses import dataclass

import diptest
import numpy as np
from scipy import stats as sps

from rigorbench.stats._checks import finite_sample
from rigorbench.stats.bandwidth import sheather_jones

MIN_VALUES = 10
GRID = 512
MAX_KDE_VALUES = 5_000      # the KDE is evaluated from a systematic subsample beyond this
# Fork count -> 99.9th percentile of max gap / pooled within-side sd for normal fork means
# (benchmarks/fork_cluster_table.py; 4 forks is the first count with two forks a side).
_CRITICAL = {
    4: 52.35, 5: 24.83, 6: 14.87, 7: 10.45, 8: 8.342, 9: 7.199,
    10: 5.97, 11: 5.33, 12: 4.806, 13: 4.33, 14: 3.972, 15: 3.66,
    16: 3.52, 17: 3.285, 18: 3.126, 19: 2.967, 20: 2.856, 21: 2.766,
    22: 2.632, 23: 2.583, 24: 2.486, 25: 2.384, 26: 2.378, 27: 2.306,
    28: 2.272, 29: 2.255, 30: 2.19, 31: 2.145, 32: 2.118, 33: 2.065,
    34: 2.041, 35: 2.024, 36: 2.013, 37: 1.976, 38: 1.969, 39: 1.95,
    40: 1.94, 41: 1.916, 42: 1.872, 43: 1.864, 44: 1.873, 45: 1.853,
    46: 1.819, 47: 1.816, 48: 1.784, 49: 1.803, 50: 1.785,
}


@dataclass(frozen=True)
class Modality:
    dip: float | None
    p_value: float | None
    multimodal: bool
    centers: tuple[float, ...]
    shares: tuple[float, ...]


@dataclass(frozen=True)
class ForkClusters:
    groups: tuple[tuple[int, ...], ...]
    centers: tuple[float, ...]
    clustered: bool
    gap_ratio: float


def _density_modes(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mode locations and the share of values in each mode's basin."""
    sample = x if len(x) <= MAX_KDE_VALUES else np.sort(x)[:: int(np.ceil(len(x) / MAX_KDE_VALUES))]
    h = sheather_jones(sample)
    spread = float(sample.std(ddof=1))
    kde = sps.gaussian_kde(sample, bw_method=h / spread if h and spread > 0 else "silverman")
    pad = 3 * kde.factor * sample.std(ddof=1)
    grid = np.linspace(x.min() - pad, x.max() + pad, GRID)
    density = kde(grid)
    peaks = np.flatnonzero((density[1:-1] > density[:-2]) & (density[1:-1] >= density[2:])) + 1
    valleys = [grid[a + np.argmin(density[a:b + 1])] for a, b in zip(peaks[:-1], peaks[1:])]
    basin = np.searchsorted(np.asarray(valleys), x)
    shares = np.bincount(basin, minlength=len(peaks)) / len(x)
    return grid[peaks], shares


def _merge_small(centers: np.ndarray, shares: np.ndarray, min_share: float) -> tuple[np.ndarray, np.ndarray]:
    """Fold modes holding less than ``min_share`` into their larger neighbour."""
    centers, shares = list(centers), list(shares)
    while len(shares) > 1 and min(shares) < min_share:
        i = int(np.argmin(shares))
        j = i - 1 if i == len(shares) - 1 or (i > 0 and shares[i - 1] >= shares[i + 1]) else i + 1
        share = shares.pop(i)
        centers.pop(i)
        shares[j - (j > i)] += share
    return np.asarray(centers), np.asarray(shares)


def _lattice_step(x: np.ndarray) -> float | None:
    """The rounding step when the values sit on a grid (timer ticks, integer ns/op)."""
    u = np.unique(x)
    if len(u) < 2 or len(u) > len(x) / 2:
        return None
    step = float(np.min(np.diff(u)))
    units = (u - u[0]) / step
    return step if np.allclose(units, np.round(units), atol=1e-6) else None


def modes(values, *, alpha: float = 0.05, min_share: float = 0.05) -> Modality:
    x = finite_sample(values, "modes")
    if len(x) < MIN_VALUES or np.ptp(x) == 0:
        return Modality(None, None, False, (float(np.median(x)),), (1.0,))
    step = _lattice_step(x)
    if step is not None:
        # Rounded values make every grid point a spike for both the dip test and the KDE;
        # spreading each value uniformly over its rounding interval (fixed seed) undoes that.
        x = x + np.random.default_rng(0).uniform(-step / 2, step / 2, len(x))
    dip, p_value = diptest.diptest(x)
    # The modes are located only when the dip test rejects unimodality: otherwise the result
    # is the median whatever the density says, and the KDE (the costliest step) is skipped.
    multimodal = False
    if p_value < alpha:
        centers, shares = _merge_small(*_density_modes(x), min_share)
        multimodal = len(centers) >= 2
    if not multimodal:
        centers, shares = np.array([float(np.median(x))]), np.array([1.0])
    return Modality(float(dip), float(p_value), multimodal, tuple(map(float, centers)), tuple(map(float, shares)))


def _critical(n: int) -> float:
    return _CRITICAL[min(n, max(_CRITICAL))]


def gap_ratios(sorted_means: np.ndarray) -> np.ndarray:
    """For rows of sorted fork means (shape ``(draws, n)``), the ratio of the gap at every
    split ``k`` (2 <= k <= n-2: at least two forks a side) to the pooled within-side standard
    deviation; shape ``(draws, n - 3)``, column ``k - 2``. Vectorised with prefix sums, so
    the Monte Carlo of the critical values and the test use one definition."""
    s = np.atleast_2d(np.asarray(sorted_means, dtype=float))
    n = s.shape[1]
    k = np.arange(2, n - 1)
    centred = s - s.mean(axis=1, keepdims=True)  # centring keeps the sums of squares accurate
    c1 = np.cumsum(centred, axis=1)
    c2 = np.cumsum(centred * centred, axis=1)
    low_sum, low_sq = c1[:, k - 1], c2[:, k - 1]
    high_sum, high_sq = c1[:, -1:] - low_sum, c2[:, -1:] - low_sq
    within = (low_sq - low_sum**2 / k) + (high_sq - high_sum**2 / (n - k))
    pooled = np.sqrt(np.maximum(within, 0.0) / (n - 2))
    gap = s[:, k] - s[:, k - 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(pooled > 0, gap / pooled, np.where(gap > 0, np.inf, 0.0))
    return ratio


def fork_clusters(fork_means) -> ForkClusters:
    """Do fork means fall into separate groups? (The test uses the spread of the fork means
    themselves, which includes the spread within each fork.)"""
    means = finite_sample(fork_means, "fork_clusters")
    order = np.argsort(means)
    s = means[order]
    n = len(s)
    everything = ForkClusters((tuple(int(i) for i in order),), (float(s.mean()),), False, 0.0)
    if n < min(_CRITICAL):
        return everything
    ratios = gap_ratios(s)[0]
    split = int(np.argmax(ratios)) + 2
    best = float(ratios[split - 2])
    if best <= _critical(n):
        return ForkClusters(everything.groups, everything.centers, False, float(best))
    groups = (tuple(int(i) for i in order[:split]), tuple(int(i) for i in order[split:]))
    return ForkClusters(groups, (float(s[:split].mean()), float(s[split:].mean())), True, float(best))
