"""Multimodality within a fork and groups among fork means.

Within a fork: Hartigan & Hartigan's dip test (the ``diptest`` package) says whether the
iteration scores are unimodal; a Gaussian kernel density estimate with Silverman's
rule-of-thumb bandwidth then locates the modes and the share of values in each (values are
assigned to the mode whose basin, between the density minima, holds them). Silverman's
bandwidth over-smooths multimodal data, so it errs towards fewer modes; and the dip test
alone flags tiny bumps once n is large, so both must agree and every mode must hold at
least ``min_share`` of the values.

Between forks: Laaber et al. (``shared/reference/004``, section 4) saw results cluster by
the hardware an instance landed on; forks of one JVM can likewise settle into different
states. Sorted fork means are split at their widest gap relative to the pooled spread within
the two sides; the split counts when that ratio exceeds the 99.9th percentile it reaches
for normally distributed fork means of the same count (critical values from a Monte Carlo
of 4,000 draws per count, below).
"""

from __future__ import annotations

from dataclasses import dataclass

import diptest
import numpy as np
from scipy import stats as sps

from rigorbench.stats._checks import finite_sample

MIN_VALUES = 10
GRID = 512
MAX_KDE_VALUES = 5_000      # the KDE is evaluated from a systematic subsample beyond this
# Fork count -> 99.9th percentile of max gap / pooled within-side sd for normal fork means.
_CRITICAL = ((6, 13.07), (10, 5.29), (20, 2.84), (50, 1.70))


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
    kde = sps.gaussian_kde(sample, bw_method="silverman")
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
    centers, shares = _merge_small(*_density_modes(x), min_share)
    multimodal = bool(p_value < alpha and len(centers) >= 2)
    if not multimodal:
        centers, shares = np.array([float(np.median(x))]), np.array([1.0])
    return Modality(float(dip), float(p_value), multimodal, tuple(map(float, centers)), tuple(map(float, shares)))


def _critical(n: int) -> float:
    counts, values = zip(*_CRITICAL)
    return float(np.interp(np.log(n), np.log(counts), values))


def fork_clusters(fork_means, within_sd: float | None = None) -> ForkClusters:
    """Do fork means fall into separate groups? (``within_sd`` is accepted for context; the
    test uses the spread of the fork means themselves, which includes it.)"""
    means = finite_sample(fork_means, "fork_clusters")
    order = np.argsort(means)
    s = means[order]
    n = len(s)
    everything = ForkClusters((tuple(int(i) for i in order),), (float(s.mean()),), False, 0.0)
    if n < _CRITICAL[0][0]:
        return everything
    best, split = 0.0, 0
    for k in range(2, n - 1):
        low, high = s[:k], s[k:]
        pooled = np.sqrt(((k - 1) * low.var(ddof=1) + (n - k - 1) * high.var(ddof=1)) / (n - 2))
        ratio = (high[0] - low[-1]) / pooled if pooled > 0 else (np.inf if high[0] > low[-1] else 0.0)
        if ratio > best:
            best, split = ratio, k
    if best <= _critical(n):
        return ForkClusters(everything.groups, everything.centers, False, float(best))
    groups = (tuple(int(i) for i in order[:split]), tuple(int(i) for i in order[split:]))
    return ForkClusters(groups, (float(s[:split].mean()), float(s[split:].mean())), True, float(best))
