"""Steady-state detection for one benchmark's iteration series (per fork, then per benchmark).

Statistical stance: a fork reaches steady state when, from some iteration on, its
performance stays within a tolerance (5% by default) of the level it ends at, and that
happens early enough to leave a real steady stretch (in the first 5/6 of the series).
This follows the procedure of Traini et al., *Towards effective assessment of steady
state performance in Java software: are we there yet?* (EMSE 2022), which itself builds
on Barrett et al., *Virtual machine warmup blows hot and cold* (OOPSLA 2017):

1. Outliers are dropped with a sliding window of 200 iterations: a point is an outlier
   when it lies outside ``median +/- 3 * (p99 - p1)`` of its window.  The filtered points
   take no part in the segmentation (only there: step 4 compares the segments of the
   series as measured); indices reported are always those of the input.
2. Change points are found by PELT (as ``ruptures.Pelt`` finds them, see ``stats/segmentation.py``) with a Gaussian cost on mean *and*
   variance: a segment of ``m`` points costs ``m * log(variance)`` (twice its negative
   maximised log-likelihood up to a constant).  The cost is computed from cumulative
   sums (O(1) per segment) by ``segmentation.MeanVarCost``; ``ruptures``' own ``"normal"`` cost
   adds a fixed 1e-6 to the variance, which swamps timings in seconds/op (variances of
   1e-12 and less), and recomputes every variance from scratch.
3. Penalty: chosen per series, as the study does, with CROPS (Haynes, Eckley & Fearnhead
   2017; ``segmentation.crops``): every optimal PELT segmentation for penalties between 30 and 200
   times ``log(n)``, and of those the one at the elbow of cost against number of change
   points (:func:`elbow`, the Kneedle rule of Satopaa et al. 2011), where more change
   points stop paying. Because the cost uses ``log(variance)`` it is scale-free: multiplying
   a series by a constant adds the same amount to every segmentation. Below 20 log n
   (BIC charges 2 log n) the autocorrelated, heavy-tailed iteration timings split into
   dozens of segments whose short tails "differ" from the rest; the range's ends were
   chosen by cross-validation (below).  Before issue 16 a fixed 60 log n was used.  The
   study searched 4 to 100000 log n with segments of 2 points at every position and took
   the elbow of the number of change points against the penalty; run that way on its
   development data, CROPS finds the segmentation it chose for 92 of 100 forks checked
   (penalties of about 10-280 log n, mostly 15-60), but that search costs about 15 s per
   fork of 3000 iterations, and a re-implementation of its elbow rule as published picked
   the study's segmentation for only 17 of the 100.
4. Walk back from the last segment while a segment's mean agrees with the last one's:
   two segments differ when the 95% bootstrap interval of the ratio of their means lies
   wholly outside ``[1 - tolerance, 1 + tolerance]``.  The segments are those of the input,
   outliers included, as in the study (its walk-back reads the unfiltered series between
   change points found on the filtered one): a segment whose level is uncertain because
   of its outliers does not count as different (comparing filtered segments, as
   rigorbench did before, agreed with the study on fewer benchmarks: see below).  The
   steady state starts at the first segment of that agreeing tail (0 when every segment
   agrees).  Then the late-burst
   check (:func:`_late_burst`): a segmentation parsimonious enough for the whole series
   misses short bursts near its end, which the study's finer segmentations see as a late
   segment -- the fork then has not settled.  So the part after the cut (below) is read in
   windows of :data:`TAIL_WINDOW` (150) iterations of the input, and a window that differs
   from the last segment by the same test moves the start there.
5. A fork has reached steady state when that start lies in the first ``last_fraction`` of
   the series (iteration < 2500 of 3000, as in the study).  A benchmark is ``steady`` when
   every fork is, ``none`` when no fork is and ``inconsistent`` otherwise (the study calls
   both of the latter "inconsistent").

Short series (typical JMH runs have 5-20 measurement iterations) are not segmented by
PELT below :data:`MIN_SEGMENTED` (500) points: a penalty tuned for thousands of
autocorrelated iterations would hide even a steady two-fold trend over a few hundred (a
gradual trend needs many segments, each paying the penalty).  Instead the series is cut
into 2 to 20 equal blocks (of at least five points) and the same walk-back runs over the
blocks, without the outlier filter (with the whole series as its window it removes
nothing).  If only the last block agrees with itself there is no evidence of a plateau
(the series may still be trending), so the start is ``None`` and the fork has not reached
steady state; a run that short should have had more warmup.  Between 500 and a few
thousand iterations PELT still sees a gradual trend as one or two steps, so a fork that
trends to its very end may be reported as reaching steady state at the last step.

Settings and agreement: the penalty range and the window were chosen on the study's 50
development benchmarks; agreement with the study on them is 0.950 of forks and 0.84 of
benchmarks, and cross-validated by project (settings chosen on four fifths, measured on the
rest; ``benchmarks/steady_cv.py``) 0.946 of forks and 0.80 of benchmarks, against 0.944 and
0.78 for a fixed penalty (comparing filtered segments, as before: 0.948 and 0.76, and 0.926
and 0.72 for the fixed penalty).  Most remaining disagreements are benchmarks the
study calls inconsistent because one fork of ten has a short late segment (often a few
iterations, in the cases plotted) about 5% off.

Speed: ``jump`` is chosen so that PELT considers at most about 300 candidate change
points per series (``jump = 10`` for 3000 iterations); change points therefore fall on a
grid of the filtered series and are mapped back to the input's indices.  CROPS runs PELT
two to fifty times per fork; :func:`classify_forks` runs the searches of all forks together
(``segmentation.crops_many``), about 0.2-0.4 s for 10 forks of 3000 iterations.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# Segmentation and crops are part of this module's interface (the path that elbow() reads).
from rigorbench.stats.segmentation import MeanVarCost, Segmentation, crops, crops_many, pelt  # noqa: F401

WINDOW = 200
OUTLIER_SPREAD = 3.0
PENALTY_RANGE = (30.0, 200.0)   # CROPS searches penalties of these multiples of log(n)
TAIL_WINDOW = 150               # iterations per window of the late-burst check
MIN_SEGMENTED = 500
SHORT_BLOCKS = 20
MAX_CANDIDATES = 300
RESAMPLES = 200
VERDICTS = ("steady", "inconsistent", "none")


@dataclass(frozen=True)
class SteadyState:
    """Steady state of one fork.

    ``start`` is an index into the input: where the agreeing tail begins, reported even
    when it is too late to count (``reached`` is False); ``None`` only for a short series
    with no plateau at all.  ``change_points`` (input indices) start the segments whose
    means (of the input, outliers included) are ``segment_means``.
    """

    start: int | None
    reached: bool
    change_points: tuple[int, ...]
    segment_means: tuple[float, ...]
    n: int


@dataclass(frozen=True)
class SteadyStateVerdict:
    """Steady state of one benchmark over its forks (``verdict`` is one of VERDICTS)."""

    verdict: str
    forks: tuple[SteadyState, ...]


def _sliding_keep(x: np.ndarray, window: int = WINDOW) -> np.ndarray:
    """Mask of points inside median +/- 3 (p99 - p1) of their (centred) window.

    The window of point ``i`` is ``x[s:s + window]`` with ``s = clip(i - window // 2, 0,
    n - window)``. Its median and percentiles (numpy's linear interpolation) come from the
    order statistics of every window, which ``scipy.ndimage.rank_filter`` finds in one
    pass per rank (about 13x faster than sorting every window of 200 points).
    """
    n = x.size
    if n <= window:
        med = np.median(x)
        p1, p99 = np.percentile(x, [1, 99])
        return np.abs(x - med) <= OUTLIER_SPREAD * (p99 - p1)
    first = np.clip(np.arange(n) - window // 2, 0, n - window)
    med = _window_quantile(x, window, 0.5)
    p1, p99 = _window_quantile(x, window, 0.01), _window_quantile(x, window, 0.99)
    bound = OUTLIER_SPREAD * (p99 - p1)
    return np.abs(x - med[first]) <= bound[first]


def _window_quantile(x: np.ndarray, window: int, q: float) -> np.ndarray:
    """The ``q`` quantile of every window ``x[s:s + window]`` (s = 0 .. n - window), with
    numpy's default (linear) interpolation between the two order statistics around it."""
    from scipy.ndimage import rank_filter  # imported here: scipy.ndimage costs 0.1 s to load

    def order_statistic(rank: int) -> np.ndarray:
        # rank_filter's window for output j starts at j - window // 2: take j = s + window // 2.
        ranked = rank_filter(x, rank, size=window, mode="nearest")
        return ranked[window // 2: window // 2 + x.size - window + 1]

    index = q * (window - 1)
    low = math.floor(index)
    gamma = index - low
    lower = order_statistic(low)
    if gamma == 0:
        return lower
    upper = order_statistic(low + 1)
    if q == 0.5:
        return (lower + upper) / 2  # as np.median: the mean of the two middle values
    # numpy's lerp: from the nearer end, so that the result stays inside [lower, upper]
    diff = upper - lower
    return upper - diff * (1 - gamma) if gamma >= 0.5 else lower + diff * gamma


def _change_points(y: np.ndarray, min_size: int, jump: int, penalty: float) -> list[int]:
    """PELT change points of ``y`` at ``penalty`` (segment starts, excluding 0 and len(y))."""
    bkps = pelt([MeanVarCost(y)], [penalty], min_size, jump)[0]
    return [b for b in bkps if b < y.size]


def elbow(path: Sequence[Segmentation]) -> Segmentation:
    """The segmentation at the elbow of cost against number of change points: after scaling
    both to [0, 1] between the path's ends, the point farthest below the chord joining them
    (Kneedle: Satopaa et al. 2011), where adding change points stops paying."""
    if len(path) <= 2:
        return path[0]
    m = np.array([len(s.change_points) for s in path], dtype=float)
    q = np.array([s.cost for s in path])
    if q[0] == q[-1] or m[0] == m[-1]:
        return path[0]
    x = (m - m[0]) / (m[-1] - m[0])
    f = (q - q[-1]) / (q[0] - q[-1])  # 1 at the fewest change points, 0 at the most
    below = (1 - x) - f               # the chord from (0, 1) to (1, 0), minus the curve
    return path[int(np.argmax(below))]


def _differs(a: np.ndarray, b: np.ndarray, tolerance: float, rng: np.random.Generator) -> bool:
    """Whether the bootstrap 95% CI of mean(a)/mean(b) lies wholly outside 1 +/- tolerance."""
    ma, mb = a.mean(), b.mean()
    if mb == 0 or ma == 0:
        return ma != mb
    ratio = ma / mb
    if 1 - tolerance <= ratio <= 1 + tolerance:
        return False  # the interval contains the estimate, which is inside the band
    ra = a[rng.integers(0, a.size, size=(RESAMPLES, a.size))].mean(axis=1)
    rb = b[rng.integers(0, b.size, size=(RESAMPLES, b.size))].mean(axis=1)
    low, high = np.quantile(ra / rb, [0.025, 0.975])
    return bool(low > 1 + tolerance or high < 1 - tolerance)


def _walk_back(segments: list[np.ndarray], tolerance: float, rng: np.random.Generator) -> int:
    """Index of the first segment of the tail that agrees with the last segment."""
    last = segments[-1]
    for k in range(len(segments) - 2, -1, -1):
        if _differs(segments[k], last, tolerance, rng):
            return k + 1
    return 0


def _late_burst(x: np.ndarray, last: np.ndarray, cut: int, tolerance: float,
                rng: np.random.Generator, window: int = TAIL_WINDOW) -> int | None:
    """Where a window of :data:`TAIL_WINDOW` iterations from ``cut`` (the end of the part
    where steady state may start) on differs from the final segment's level; None when the
    whole tail agrees. A segmentation parsimonious enough for the whole series misses short
    late bursts, and a fork whose level moves after the cut has not settled (Traini et al.'s
    criterion counts such a segment)."""
    for a in range(cut, x.size - window // 2, window):
        if _differs(x[a:a + window], last, tolerance, rng):
            return a
    return None


def _short_series(x: np.ndarray, tolerance: float, last_fraction: float,
                  rng: np.random.Generator) -> SteadyState:
    """Too short to segment: walk back over 2-20 equal blocks instead of PELT segments.

    A plateau needs evidence: when only the last block agrees with itself, the series may
    still be trending, so the start is ``None`` (not reached) rather than the last block.
    """
    n = x.size
    blocks = np.array_split(x, max(2, min(SHORT_BLOCKS, n // 5))) if n > 1 else [x]
    first = _walk_back(blocks, tolerance, rng)
    bounds = np.cumsum([0] + [b.size for b in blocks])
    start = int(bounds[first]) if first < len(blocks) - 1 or first == 0 else None
    reached = start is not None and start < last_fraction * n
    return SteadyState(start, reached, tuple(int(c) for c in bounds[1:-1]),
                       tuple(float(b.mean()) for b in blocks), n)


def _validated(series, tolerance: float, last_fraction: float, min_size: int) -> np.ndarray:
    x = np.asarray(series, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("series must be a non-empty 1-d sequence of iteration values")
    if not np.all(np.isfinite(x)):
        raise ValueError("series values must be finite (no NaN or infinity)")
    if not 0 < tolerance < 1:
        raise ValueError(f"tolerance must be in (0, 1), got {tolerance}")
    if not 0 < last_fraction <= 1:
        raise ValueError(f"last_fraction must be in (0, 1], got {last_fraction}")
    if min_size < 2:
        raise ValueError(f"min_size must be at least 2, got {min_size}")
    return x


def detect_steady_state(series: np.ndarray, *, tolerance: float = 0.05,
                        last_fraction: float = 5 / 6, min_size: int = 5,
                        seed: int | np.random.SeedSequence | None = 0) -> SteadyState:
    """Steady state of one fork's ordered iteration series (see the module docstring).

    ``min_size`` is the shortest segment PELT may create (in filtered points); ``seed``
    drives the bootstrap of the walk-back, so equal seeds give equal results.
    """
    return _steady_states([series], [seed], tolerance, last_fraction, min_size)[0]


def _steady_states(series: Sequence, seeds: Sequence, tolerance: float, last_fraction: float,
                   min_size: int) -> list[SteadyState]:
    """:func:`detect_steady_state` of every series, with the CROPS searches of all the long
    ones in one loop (``segmentation.crops_many``): the same answers, a fraction of the time."""
    xs = [_validated(s, tolerance, last_fraction, min_size) for s in series]
    states: list[SteadyState | None] = [None] * len(xs)
    plans: dict[tuple[int, int], list[tuple[int, np.ndarray]]] = {}
    for i, x in enumerate(xs):
        if x.size < MIN_SEGMENTED:
            states[i] = _short_series(x, tolerance, last_fraction, np.random.default_rng(seeds[i]))
            continue
        kept = kept_points(x)
        size = min(min_size, max(2, kept.size // 4))
        jump = max(1, math.ceil(kept.size / MAX_CANDIDATES))
        plans.setdefault((size, jump), []).append((i, kept))
    for (size, jump), members in plans.items():
        ys = [xs[i][kept] for i, kept in members]
        low = [PENALTY_RANGE[0] * math.log(y.size) for y in ys]
        high = [PENALTY_RANGE[1] * math.log(y.size) for y in ys]
        for (i, kept), path in zip(members, crops_many(ys, low, high, min_size=size, jump=jump)):
            states[i] = fork_state(xs[i], kept, elbow(path).change_points, tolerance=tolerance,
                                   last_fraction=last_fraction, rng=np.random.default_rng(seeds[i]))
    return states


def fork_state(x: np.ndarray, kept: np.ndarray, change_points: Sequence[int], *, tolerance: float,
               last_fraction: float, rng: np.random.Generator, window: int = TAIL_WINDOW) -> SteadyState:
    """Steady state of fork ``x`` from a segmentation of its kept (filtered) points
    ``x[kept]``: the walk-back over the segments of ``x`` itself (outliers included, as the
    study compares them), then the late-burst check over windows of ``window``."""
    n = x.size
    bounds = [0] + [int(kept[c]) for c in change_points]
    segments = np.split(x, bounds[1:])
    first = _walk_back(segments, tolerance, rng)
    start = bounds[first]
    reached = start < last_fraction * n
    if reached:
        burst = _late_burst(x, segments[-1], math.ceil(last_fraction * n), tolerance, rng, window)
        if burst is not None:
            start, reached = burst, False
    return SteadyState(start=start, reached=reached, change_points=tuple(bounds[1:]),
                       segment_means=tuple(float(s.mean()) for s in segments), n=n)


def kept_points(x: np.ndarray) -> np.ndarray:
    """Indices of the points the segmentation sees: all but the sliding-window outliers
    (everything when the filter would leave too few)."""
    kept = np.flatnonzero(_sliding_keep(x))
    return kept if kept.size >= MIN_SEGMENTED else np.arange(x.size)


def classify_forks(series_per_fork: Sequence[np.ndarray], *,
                   seed: int | np.random.SeedSequence | None = 0, **kw) -> SteadyStateVerdict:
    """Steady state of every fork and the benchmark's verdict.

    Keywords other than ``seed`` go to :func:`detect_steady_state`; each fork gets its own
    bootstrap stream spawned from ``seed``.
    """
    if len(series_per_fork) == 0:
        raise ValueError("need at least one fork")
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    seeds = root.spawn(len(series_per_fork))
    options = {"tolerance": 0.05, "last_fraction": 5 / 6, "min_size": 5}
    unknown = set(kw) - set(options)
    if unknown:
        raise TypeError(f"classify_forks() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
    options.update(kw)
    forks = tuple(_steady_states(series_per_fork, seeds, **options))
    reached = sum(f.reached for f in forks)
    verdict = "steady" if reached == len(forks) else "none" if reached == 0 else "inconsistent"
    return SteadyStateVerdict(verdict, forks)
