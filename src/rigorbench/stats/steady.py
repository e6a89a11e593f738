"""Steady-state detection for one benchmark's iteration series (per fork, then per benchmark).

Statistical stance: a fork reaches steady state when, from some iteration on, its
performance stays within a tolerance (5% by default) of the level it ends at, and that
happens early enough to leave a real steady stretch (in the first 5/6 of the series).
This follows the procedure of Traini et al., *Towards effective assessment of steady
state performance in Java software: are we there yet?* (EMSE 2022), which itself builds
on Barrett et al., *Virtual machine warmup blows hot and cold* (OOPSLA 2017):

1. Outliers are dropped with a sliding window of 200 iterations: a point is an outlier
   when it lies outside ``median +/- 3 * (p99 - p1)`` of its window.  The filtered points
   take no part in the segmentation; indices reported are always those of the input.
2. Change points are found by PELT (as ``ruptures.Pelt`` finds them, see :func:`_pelt`) with a Gaussian cost on mean *and*
   variance: a segment of ``m`` points costs ``m * log(variance)`` (twice its negative
   maximised log-likelihood up to a constant).  The cost is computed from cumulative
   sums (O(1) per segment) by :class:`_MeanVarCost`; ``ruptures``' own ``"normal"`` cost
   adds a fixed 1e-6 to the variance, which swamps timings in seconds/op (variances of
   1e-12 and less), and recomputes every variance from scratch.
3. Penalty: the study chose it per series with CROPS, which ``ruptures`` lacks.  We use a
   fixed per-change penalty of ``PENALTY_PER_LOG_N * log(n)``.  Because the cost uses
   ``log(variance)``, it is scale-free: multiplying a series by a constant adds the same
   amount to every segmentation, so no variance scaling is needed.  BIC would charge
   ``2 log n`` (two parameters per change), but iteration timings are autocorrelated and
   heavy-tailed, so BIC -- and even Barrett et al.'s manual ``15 log n`` for the same
   cost -- splits stationary noise into dozens of segments whose short tails then "differ"
   from the rest.  We charge ``60 log n`` (about 480 for 3000 iterations), tuned on the
   study's 50 validation benchmarks (``tests/analysis/test_shared_steady_state.py``):
   per-benchmark agreement was 0.72 / 0.76 / 0.78 / 0.74 / 0.72 for multiples 30 / 45 /
   60 / 80 / 120 and per-fork agreement 0.93-0.94 throughout, so the choice is not
   knife-edge.  A per-series penalty search (CROPS with an elbow rule) would follow the
   study more closely but costs several PELT passes per fork.
4. Walk back from the last segment while a segment's mean agrees with the last one's:
   two segments differ when the 95% bootstrap interval of the ratio of their means lies
   wholly outside ``[1 - tolerance, 1 + tolerance]``.  The steady state starts at the
   first segment of that agreeing tail (0 when every segment agrees).
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

Speed: ``jump`` is chosen so that PELT considers at most about 300 candidate change
points per series (``jump = 10`` for 3000 iterations; ``jump = 5`` gave the same
verdicts on the validation data at three times the cost); change points therefore fall
on a grid of the filtered series and are mapped back to the input's indices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

WINDOW = 200
OUTLIER_SPREAD = 3.0
PENALTY_PER_LOG_N = 60.0
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
    means (after the outlier filter) are ``segment_means``.
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


class _MeanVarCost:
    """Gaussian mean-and-variance segment cost ``m * log(var)`` from cumulative sums."""

    def __init__(self, signal) -> None:
        x = np.asarray(signal, dtype=np.float64).reshape(-1)
        centred = x - np.median(x)  # centring keeps the sums of squares accurate
        self._s1 = np.concatenate(([0.0], np.cumsum(centred)))
        self._s2 = np.concatenate(([0.0], np.cumsum(centred * centred)))
        scale = max(float(np.mean(np.abs(x))), np.finfo(float).tiny)
        self._floor = (1e-9 * scale) ** 2  # constant segments: tiny variance, no log(0)

    def errors(self, starts: np.ndarray, end: int) -> np.ndarray:
        """The cost of every segment ``[start, end)``, one per entry of ``starts``.

        The formula of the cost ``ruptures`` was given before :func:`_pelt` replaced it;
        numpy's ``log`` and square may differ from ``math.log`` and ``x ** 2`` in the last
        bit, which moves a change point only on an exact tie of two segmentations (the tests
        compare with ``ruptures`` itself).
        """
        m = end - starts
        s1 = self._s1[end] - self._s1[starts]
        s2 = self._s2[end] - self._s2[starts]
        mean = s1 / m
        var = np.maximum(s2 / m - mean * mean, self._floor)
        return m * np.log(var)


def _pelt(cost: _MeanVarCost, n: int, pen: float, min_size: int, jump: int) -> list[int]:
    """Segment ends of the PELT segmentation (Killick et al. 2012), as ``ruptures.Pelt``.

    The same recursion, candidate grid, tie-breaking (first minimum) and pruning as
    ``ruptures`` 1.1 (``Pelt._seg``), so the change points are the same; but the costs of
    all admissible starts of a step are computed at once, and each step keeps the best
    total and a back-pointer instead of copying a dict per candidate (the Python loop of
    ``ruptures`` took about 2.5 s per benchmark of 20 forks x 1000 iterations). As in
    ``ruptures``, an admissible start without a partition (a grid point below
    ``min_size``) is skipped and the pruning pairs the remaining totals with the first
    admissible starts in order.
    """
    total = np.zeros(n + 1)  # best total cost of a partition of [0, t), where one exists
    solved = np.zeros(n + 1, dtype=bool)
    solved[0] = True
    back = np.zeros(n + 1, dtype=np.intp)
    admissible = np.empty(0, dtype=np.intp)
    for end in [*range(-(-min_size // jump) * jump, n, jump), n]:
        admissible = np.append(admissible, (end - min_size) // jump * jump)
        starts = admissible[solved[admissible]]
        totals = total[starts] + (cost.errors(starts, end) + pen)
        best = int(np.argmin(totals))
        total[end], back[end], solved[end] = totals[best], starts[best], True
        admissible = admissible[: starts.size][totals <= total[end] + pen]
    bkps, end = [], n
    while end > 0:
        bkps.append(end)
        end = int(back[end])
    return sorted(bkps)


def _sliding_keep(x: np.ndarray, window: int = WINDOW) -> np.ndarray:
    """Mask of points inside median +/- 3 (p99 - p1) of their (centred) window."""
    n = x.size
    if n <= window:
        med = np.median(x)
        p1, p99 = np.percentile(x, [1, 99])
        return np.abs(x - med) <= OUTLIER_SPREAD * (p99 - p1)
    views = np.lib.stride_tricks.sliding_window_view(x, window)
    first = np.clip(np.arange(n) - window // 2, 0, n - window)
    med = np.median(views, axis=1)
    p1, p99 = np.percentile(views, [1, 99], axis=1)
    bound = OUTLIER_SPREAD * (p99 - p1)
    return np.abs(x - med[first]) <= bound[first]


def _change_points(y: np.ndarray, min_size: int, jump: int) -> list[int]:
    """PELT change points of ``y`` (segment starts, excluding 0 and len(y))."""
    bkps = _pelt(_MeanVarCost(y), y.size, PENALTY_PER_LOG_N * math.log(y.size), min_size, jump)
    return [b for b in bkps if b < y.size]


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
    x = _validated(series, tolerance, last_fraction, min_size)
    n = x.size
    if n < MIN_SEGMENTED:
        return _short_series(x, tolerance, last_fraction, np.random.default_rng(seed))
    kept = np.flatnonzero(_sliding_keep(x))
    if kept.size < MIN_SEGMENTED:  # degenerate spread: keep everything
        kept = np.arange(n)
    y = x[kept]
    size = min(min_size, max(2, y.size // 4))
    jump = max(1, math.ceil(y.size / MAX_CANDIDATES))
    cps = _change_points(y, size, jump)
    segments = np.split(y, cps)
    first = _walk_back(segments, tolerance, np.random.default_rng(seed))
    bounds = [0] + [int(kept[c]) for c in cps]
    start = bounds[first]
    return SteadyState(
        start=start,
        reached=start < last_fraction * n,
        change_points=tuple(bounds[1:]),
        segment_means=tuple(float(s.mean()) for s in segments),
        n=n,
    )


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
    forks = tuple(detect_steady_state(s, seed=q, **kw) for s, q in zip(series_per_fork, seeds))
    reached = sum(f.reached for f in forks)
    verdict = "steady" if reached == len(forks) else "none" if reached == 0 else "inconsistent"
    return SteadyStateVerdict(verdict, forks)
