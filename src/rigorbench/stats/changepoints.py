"""Change points in a per-commit series of benchmark results (pure; issue 17).

A *series* is one benchmark's results over the commits of a branch, one point per stored run:
its estimate (the mean, say) and, where rigorbench measured it, the run's own uncertainty
(the bootstrap CI of that estimate). :func:`change_points` answers "where did the level
change?" with the method of E-divisive means as Apache Otava (formerly Hunter) uses it:

1. **Split.** Matteson & James, "A nonparametric approach for multiple change point analysis
   of multivariate data" (JASA 2014): a split of a stretch into ``X | Y`` scores
   ``q = mn/(m+n) * (2 E|X-Y| - E|X-X'| - E|Y-Y'|)``, the energy distance between the two
   sides; the best split of a stretch is tested and, if significant, each side is split
   again. Fleming et al., "Hunter: using change point detection to hunt for performance
   regressions" (ICPE 2023) replace the permutation test by a t-test (deterministic, fast,
   good with few points), run the split in overlapping windows (``window`` points, moved by
   half a window) so that one large change does not hide a small one far away, and keep the
   change points found at a relaxed threshold (ten times ``max_p``) as *weak* ones.
2. **Merge.** Bottom-up: each weak change point is tested between its neighbours; the least
   significant is dropped and its neighbours re-tested, until every remaining one has
   ``p <= max_p``.

What rigorbench adds, and why (measured in ``benchmarks/changepoints_vs_otava.py``):

- **A minimum segment length** (``min_size``, default 3 points on each side). A single slow
  run (a noisy neighbour, a thermal event) is not a change of level, nor are two in the middle
  of a series (tested). Otava's t-test already rejects most single spikes; the minimum makes it
  a rule. The price: a change in the last two commits is not reported yet, and two slow runs
  at the very end show as a change of the last three, one commit early.
- **The choice of the split is paid for.** Testing the best of many candidate splits with a
  t-test makes its p-value far too small: in stretches of pure normal noise the chosen split
  passes at p <= 0.001 in 1-3% of stretches, not 0.1% (``benchmarks/changepoint_null.py``). The
  split step keeps candidates at the relaxed threshold, as Otava does; the merge, which decides,
  multiplies each p-value by the factor measured there: the number of candidate splits for
  stretches of up to 9 points (Bonferroni), 50 from 10 points on (the factor measured at 0.1%
  is 4-6 at 10 points and 30-60 from 12 on; Bonferroni's count of overlapping candidates would be needlessly strict).
- **Pooled variance.** Student's two-sample test on the pooled variance, not Welch's: a 3-point
  side's own variance estimate is too unstable to stand alone.
- **Outlying runs.** In a side of 8 points or more, a run more than 4 robust standard
  deviations (1.4826 x MAD) from the side's median takes no part in its level or variance: a
  whole run slowed by a noisy neighbour looks clean in its own data, and one such run inflates
  a segment's variance enough to hide a real 5% change next to it.
- **Each run's own noise.** Every point may carry the standard error of its own estimate (from
  its CI); the scatter of points around their level cannot be smaller than the noise each was
  measured with, so each side's variance is at least the mean of its points' squared errors.
  A shift must be larger than the noise of the runs around it, even where a few points happen
  to agree closely.
- **Relative scale.** Performance changes multiply; with all values positive the test runs on
  their logarithms (a lognormal run-to-run noise becomes normal) and the levels are geometric
  means, the change their ratio.

Each change point reports the index of the first point after the change, the levels before
and after (mean of the points with a t interval on the same variance), the relative change,
and the p-value of the test between its neighbouring segments.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

WINDOW = 50
MAX_P = 0.001
MIN_SIZE = 3
# A run this many robust standard deviations (1.4826 x MAD) from its segment's median is an
# outlier and takes no part in the segment's level or variance (in sides of MIN_FOR_OUTLIERS
# points or more). For normal scatter 4 true sds are passed by 1 point in 16,000; the spread
# estimated from a few points drops more, which the calibration of SELECTION_FACTOR includes.
OUTLIER_MADS = 4.0
MIN_FOR_OUTLIERS = 8
WEAK_FACTOR = 10  # the split keeps change points at up to WEAK_FACTOR x max_p (Fleming et al.)
# The merge multiplies a p-value by SELECTION_FACTOR in stretches of SELECTION_FROM points or
# more, by the number of candidate splits below that (see selection_factor).
SELECTION_FACTOR = 50
SELECTION_FROM = 10


@dataclass(frozen=True)
class Level:
    """A segment's level: the mean of its points (geometric when all values are positive),
    without outlying runs, and a t confidence interval for it."""

    mean: float
    low: float
    high: float
    points: int


@dataclass(frozen=True)
class ChangePoint:
    """A change between ``index - 1`` and ``index`` (the first point of the new level)."""

    index: int
    before: Level
    after: Level
    p_value: float

    @property
    def ratio(self) -> float:
        return self.after.mean / self.before.mean if self.before.mean else math.inf

    @property
    def change_pct(self) -> float:
        return (self.ratio - 1) * 100


@dataclass(frozen=True)
class _Series:
    """The values the tests see (logarithms when all are positive) and their squared errors."""

    x: np.ndarray
    var: np.ndarray  # squared standard error of each point's own estimate (0 when unknown)
    log: bool


def _prepare(values, errors) -> _Series:
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1 or not np.all(np.isfinite(v)):
        raise ValueError("values must be a 1-d sequence of finite numbers")
    se = np.zeros_like(v) if errors is None else np.asarray(errors, dtype=np.float64)
    if se.shape != v.shape or not np.all(np.isfinite(se)) or np.any(se < 0):
        raise ValueError("errors must be finite, non-negative and one per value")
    log = bool(v.size and np.all(v > 0))
    if log:
        # delta method: the standard error of log(v) is se / v
        return _Series(np.log(v), (se / v) ** 2, True)
    return _Series(v, se ** 2, False)


def standard_errors(low, high, estimate, confidence: float) -> np.ndarray:
    """Each point's standard error from its CI (half width over z, on the log scale when the
    interval is positive, back on the value's scale by the delta method)."""
    low, high, estimate = (np.asarray(a, dtype=np.float64) for a in (low, high, estimate))
    z = sps.norm.ppf(0.5 + confidence / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        positive = (low > 0) & (high > 0) & (estimate > 0)
        on_log = np.where(positive, (np.log(np.where(positive, high, 1)) - np.log(np.where(positive, low, 1))) / (2 * z), 0)
        se = np.where(positive, on_log * estimate, (high - low) / (2 * z))
    return np.where(np.isfinite(se) & (se >= 0), se, 0.0)


def _side(s: _Series, a: int, b: int) -> tuple[float, float, int]:
    """Mean, variance (at least the points' own mean squared error) and size of s[a:b],
    without its outlying runs (see :data:`OUTLIER_MADS`)."""
    part, own = s.x[a:b], s.var[a:b]
    if part.size >= MIN_FOR_OUTLIERS:
        centre = np.median(part)
        spread = 1.4826 * np.median(np.abs(part - centre))
        if spread > 0:
            keep = np.abs(part - centre) <= OUTLIER_MADS * spread
            part, own = part[keep], own[keep]
    n = part.size
    scatter = float(part.var(ddof=1)) if n >= 2 else 0.0
    return float(part.mean()), max(scatter, float(own.mean())), n


def selection_factor(length: int, min_size: int) -> float:
    """How much more often than its p-value says the best split of a stretch of pure noise
    passes the t-test: the number of candidate splits (Bonferroni) for short stretches, and
    SELECTION_FACTOR from ``SELECTION_FROM`` points on, where the candidates overlap so much
    that Bonferroni would be needlessly strict (``benchmarks/changepoint_null.py``)."""
    candidates = max(1, length - 2 * min_size + 1)
    return float(SELECTION_FACTOR) if length >= SELECTION_FROM else float(candidates)


def _adjusted(s: _Series, a: int, c: int, b: int, min_size: int) -> float:
    """The p-value of the split at ``c`` of s[a:b], corrected for having been chosen as the
    best of the stretch's candidate splits (:func:`selection_factor`)."""
    return min(1.0, _t_test(s, a, c, b) * selection_factor(b - a, min_size))


def _t_test(s: _Series, a: int, c: int, b: int) -> float:
    """Two-sided p-value of Student's two-sample t-test between s[a:c] and s[c:b], on the
    pooled variance (each side's at least its points' own mean squared error): a short side's
    own variance estimate is too unstable to stand alone (with 3 points Welch's test called
    2% of pure-noise stretches changed at p <= 0.001 after the best split was chosen)."""
    m1, v1, n1 = _side(s, a, c)
    m2, v2, n2 = _side(s, c, b)
    df = n1 + n2 - 2
    if df < 1:
        return 1.0
    pooled = ((n1 - 1) * v1 + (n2 - 1) * v2) / df
    # a side of one point has no scatter: its own error is its variance
    pooled = max(pooled, v1 if n1 == 1 else 0.0, v2 if n2 == 1 else 0.0)
    scale = math.sqrt(pooled * (1 / n1 + 1 / n2))
    if scale == 0:
        return 0.0 if m1 != m2 else 1.0
    return float(2 * sps.t.sf(abs(m2 - m1) / scale, df))


def _best_split(x: np.ndarray, min_size: int) -> int | None:
    """The split of ``x`` with the largest energy statistic q, as an index into ``x``."""
    n = x.size
    if n < 2 * min_size:
        return None
    d = np.abs(x[:, None] - x[None, :])
    s = np.zeros((n + 1, n + 1))
    s[1:, 1:] = d.cumsum(0).cumsum(1)

    def block(r0, r1, c0, c1):
        return s[r1, c1] - s[r0, c1] - s[r1, c0] + s[r0, c0]

    tau = np.arange(min_size, n - min_size + 1)
    m, k = tau.astype(float), (n - tau).astype(float)
    between = block(0, tau, tau, n)
    left = block(0, tau, 0, tau) / 2
    right = block(tau, n, tau, n) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        energy = (2 * between / (m * k)
                  - np.where(m > 1, left / (m * (m - 1) / 2), 0.0)
                  - np.where(k > 1, right / (k * (k - 1) / 2), 0.0))
    q = m * k / (m + k) * energy
    return int(tau[int(np.argmax(q))])


def _split(s: _Series, a: int, b: int, max_p: float, min_size: int, found: set[int]) -> None:
    """Recursively split s[a:b] while the best split is significant at ``max_p``."""
    tau = _best_split(s.x[a:b], min_size)
    if tau is None:
        return
    c = a + tau
    # Candidates only: the merge decides, with the correction for the choice of the split.
    if _t_test(s, a, c, b) > max_p:
        return
    found.add(c)
    _split(s, a, c, max_p, min_size, found)
    _split(s, c, b, max_p, min_size, found)


def _merge(s: _Series, points: list[int], max_p: float, min_size: int) -> list[tuple[int, float]]:
    """Drop the least significant change point, bottom-up, until all have p <= max_p."""
    points = sorted(points)
    while points:
        bounds = [0, *points, s.x.size]
        p = [_adjusted(s, bounds[i], bounds[i + 1], bounds[i + 2], min_size) for i in range(len(points))]
        worst = int(np.argmax(p))
        if p[worst] <= max_p:
            return list(zip(points, p))
        del points[worst]
    return []


def _level(s: _Series, a: int, b: int, confidence: float) -> Level:
    mean, var, n = _side(s, a, b)
    half = float(sps.t.ppf(0.5 + confidence / 2, max(n - 1, 1))) * math.sqrt(var / n)
    if s.log:
        return Level(math.exp(mean), math.exp(mean - half), math.exp(mean + half), n)
    return Level(mean, mean - half, mean + half, n)


def change_points(values: Sequence[float], errors: Sequence[float] | None = None, *, window: int = WINDOW,
                  max_p: float = MAX_P, min_size: int = MIN_SIZE, confidence: float = 0.95) -> list[ChangePoint]:
    """Change points of one series in order (see the module docstring).

    ``errors`` are the points' standard errors (:func:`standard_errors` turns CIs into them);
    without them the test uses the points' scatter alone, as Otava does. ``confidence`` is
    that of the reported levels' intervals.
    """
    if window < 2 * min_size:
        raise ValueError(f"window ({window}) must hold two segments of min_size ({min_size})")
    if min_size < 1:
        raise ValueError("min_size must be at least 1")
    if not 0 < max_p < 1:
        raise ValueError("max_p must be in (0, 1)")
    s = _prepare(values, errors)
    n = s.x.size
    weak: set[int] = set()
    step = max(1, window // 2)
    for start in range(0, max(1, n - step), step):
        _split(s, start, min(start + window, n), min(0.5, max_p * WEAK_FACTOR), min_size, weak)
    # The windows' own edges: a segment shorter than min_size at either end of the series
    # cannot be tested; the merge tests each point between its neighbours on the whole series.
    weak = {c for c in weak if min_size <= c <= n - min_size}
    merged = _merge(s, sorted(weak), max_p, min_size)
    bounds = [0, *(c for c, _ in merged), n]
    return [
        ChangePoint(c, _level(s, bounds[i], c, confidence), _level(s, c, bounds[i + 2], confidence), p)
        for i, (c, p) in enumerate(merged)
    ]


def segment_levels(values: Sequence[float], errors: Sequence[float] | None, starts: Sequence[int],
                   confidence: float = 0.95) -> list[Level]:
    """The level of each segment of a series cut before the points ``starts`` (the indices
    of its change points, in order), measured as :func:`change_points` measures the levels
    beside a change; a series without change points is one segment."""
    s = _prepare(values, errors)
    bounds = [0, *starts, s.x.size]
    return [_level(s, a, b, confidence) for a, b in zip(bounds, bounds[1:]) if b > a]
