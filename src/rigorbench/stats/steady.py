"""Steady-state detection for one benchmark's iteration series (per fork, then per benchmark).

Statistical stance: a fork reaches steady state when, from some iteration on, its
performance stays within a tolerance (5% by default) of the level it ends at, and that
happens early enough to leave a real steady stretch (in the first 5/6 of the series).
This is the procedure of Traini et al., *Towards effective assessment of steady state
performance in Java software: are we there yet?* (EMSE 2022), which builds on Barrett et
al., *Virtual machine warmup blows hot and cold* (OOPSLA 2017), done as their replication
package (``SEALABQualityGroup/steady-state``) does it:

1. Outliers (:func:`kept_points`): every window of 200 iterations, from the first
   ``ceil(200 / log(1 + ops))`` on (``ops``: operations in a 100-ms iteration at the fork's
   mean time per operation, so short operations skip fewer), marks the points outside
   ``median +/- 3 (p99 - p1)`` of the window; a point marked by any window takes no part in
   the segmentation.
2. Change points of the filtered series (``segmentation.change_points``): PELT with a
   Gaussian mean-and-variance cost and segments of at least 2 points, at the penalty at the
   elbow of CROPS's path from 4 to 100,000 log n, computed as the study's R and ``kneed``
   computed it (see ``stats/segmentation.py``).
3. Walk back from the last segment while segments agree with it: a segment differs when the
   95% bootstrap interval of the ratio (last segment's mean / its mean) lies wholly outside
   ``[1 - tolerance, 1 + tolerance]``. The segments are the series as measured, outliers
   included, between the change points found on the filtered one. Steady state starts where
   the agreeing tail starts (0 when every segment agrees).
4. A fork has reached steady state when that start is at most ``last_fraction`` of the
   series (iteration 2500 of 3000, as in the study). A benchmark is ``steady`` when every
   fork is, ``none`` when no fork is and ``inconsistent`` otherwise (the study calls both
   of the latter "inconsistent").

Agreement with the study's published verdicts is measured by ``benchmarks/steady_full.py``
on all of its data (``docs/statistics.md`` gives the figures); nothing here was chosen on
that data: every setting is the study's.

Short series (typical JMH runs have 5-20 measurement iterations) are not segmented below
:data:`MIN_SEGMENTED` (500) points: a penalty meant for thousands of autocorrelated
iterations would hide even a steady two-fold trend over a few hundred. Instead the series is
cut into 2 to 20 equal blocks (of at least five points) and the same walk-back runs over the
blocks, without the outlier filter. If only the last block agrees with itself there is no
evidence of a plateau (the series may still be trending), so the start is ``None`` and the
fork has not reached steady state; a run that short should have had more warmup.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rigorbench.stats import segmentation

WINDOW = 200                    # iterations per window of the outlier filter
OUTLIER_SPREAD = 3.0
ITERATION_SECONDS = 0.1         # the study's iteration time, for the filter's first window
MIN_SEGMENTED = 500
SHORT_BLOCKS = 20
RESAMPLES = 1000                # bootstrap resamples per segment comparison
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


def kept_points(x: np.ndarray, op_seconds: float | None = None) -> np.ndarray:
    """Indices of the points the segmentation sees (step 1 of the module docstring).

    ``op_seconds`` is the fork's mean time per operation in seconds (None: the values are
    seconds per operation, as in the study's data); it sets where the first window starts.
    Everything is kept when fewer than a window's points remain after that start, or when
    the filter would leave fewer than :data:`MIN_SEGMENTED`.
    """
    n = x.size
    mean = float(np.mean(x)) if op_seconds is None else float(op_seconds)
    operations = math.ceil(ITERATION_SECONDS / mean) if mean > 0 else 1
    skip = math.ceil(WINDOW / math.log1p(max(operations, 1)))
    if n - skip < WINDOW:
        return np.arange(n)
    windows = np.lib.stride_tricks.sliding_window_view(np.arange(skip, n), WINDOW)
    values = x[windows]
    median = np.median(values, axis=1)
    p1, p99 = np.quantile(values, [0.01, 0.99], axis=1)
    bound = OUTLIER_SPREAD * (p99 - p1)
    outside = (values > (median + bound)[:, None]) | (values < (median - bound)[:, None])
    marked = np.zeros(n, dtype=bool)
    marked[windows[outside]] = True
    kept = np.flatnonzero(~marked)
    return kept if kept.size >= MIN_SEGMENTED else np.arange(n)


def _differs(a: np.ndarray, b: np.ndarray, tolerance: float, rng: np.random.Generator) -> bool:
    """Whether the bootstrap 95% CI of mean(a)/mean(b) lies wholly outside
    ``(1 - tolerance, 1 + tolerance)`` (an end on the band's edge counts as outside, as in
    the study's test)."""
    ma, mb = a.mean(), b.mean()
    if mb == 0 or ma == 0:
        return ma != mb
    if 1 - tolerance < ma / mb < 1 + tolerance:
        return False  # the interval contains the estimate, which is inside the band
    ra = a[rng.integers(0, a.size, size=(RESAMPLES, a.size))].mean(axis=1)
    rb = b[rng.integers(0, b.size, size=(RESAMPLES, b.size))].mean(axis=1)
    low, high = np.quantile(ra / rb, [0.025, 0.975])
    return bool(low >= 1 + tolerance or high <= 1 - tolerance)


def _walk_back(segments: list[np.ndarray], tolerance: float, rng: np.random.Generator) -> int:
    """Index of the first segment of the tail that agrees with the last segment."""
    last = segments[-1]
    for k in range(len(segments) - 2, -1, -1):
        if _differs(last, segments[k], tolerance, rng):
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


def _validated(series, tolerance: float, last_fraction: float) -> np.ndarray:
    x = np.asarray(series, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("series must be a non-empty 1-d sequence of iteration values")
    if not np.all(np.isfinite(x)):
        raise ValueError("series values must be finite (no NaN or infinity)")
    if not 0 < tolerance < 1:
        raise ValueError(f"tolerance must be in (0, 1), got {tolerance}")
    if not 0 < last_fraction <= 1:
        raise ValueError(f"last_fraction must be in (0, 1], got {last_fraction}")
    return x


def detect_steady_state(series: np.ndarray, *, tolerance: float = 0.05,
                        last_fraction: float = 5 / 6, op_seconds: float | None = None,
                        seed: int | np.random.SeedSequence | None = 0) -> SteadyState:
    """Steady state of one fork's ordered iteration series (see the module docstring).

    ``op_seconds``: the series' mean time per operation in seconds, for the outlier filter
    (None: the values are seconds per operation); ``seed`` drives the bootstrap of the
    walk-back, so equal seeds give equal results.
    """
    x = _validated(series, tolerance, last_fraction)
    rng = np.random.default_rng(seed)
    if x.size < MIN_SEGMENTED:
        return _short_series(x, tolerance, last_fraction, rng)
    kept = kept_points(x, op_seconds)
    ends = segmentation.change_points(x[kept])
    return fork_state(x, kept, ends, tolerance=tolerance, last_fraction=last_fraction, rng=rng)


def fork_state(x: np.ndarray, kept: np.ndarray, ends: Sequence[int], *, tolerance: float,
               last_fraction: float, rng: np.random.Generator) -> SteadyState:
    """Steady state of fork ``x`` from the segment ends (the last is ``len(kept)``) of its
    kept points ``x[kept]``: each segment of ``x`` runs from the point after one segment's
    last kept point to that of the next, outliers included, the last one to the end."""
    n = x.size
    bounds = [0] + [int(kept[e - 1]) + 1 for e in ends[:-1]]
    segments = np.split(x, bounds[1:])
    first = _walk_back(segments, tolerance, rng)
    start = bounds[first]
    return SteadyState(start=start, reached=start <= last_fraction * n, change_points=tuple(bounds[1:]),
                       segment_means=tuple(float(s.mean()) for s in segments), n=n)


def classify_forks(series_per_fork: Sequence[np.ndarray], *,
                   seed: int | np.random.SeedSequence | None = 0,
                   op_seconds: Sequence[float | None] | None = None, **kw) -> SteadyStateVerdict:
    """Steady state of every fork and the benchmark's verdict.

    ``op_seconds``: each fork's mean time per operation in seconds (see
    :func:`detect_steady_state`); other keywords go to :func:`detect_steady_state`; each
    fork gets its own bootstrap stream spawned from ``seed``.
    """
    if len(series_per_fork) == 0:
        raise ValueError("need at least one fork")
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    seeds = root.spawn(len(series_per_fork))
    options = {"tolerance": 0.05, "last_fraction": 5 / 6}
    unknown = set(kw) - set(options)
    if unknown:
        raise TypeError(f"classify_forks() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
    options.update(kw)
    times = list(op_seconds) if op_seconds is not None else [None] * len(series_per_fork)
    forks = tuple(detect_steady_state(s, seed=fork_seed, op_seconds=t, **options)
                  for s, fork_seed, t in zip(series_per_fork, seeds, times))
    reached = sum(f.reached for f in forks)
    verdict = "steady" if reached == len(forks) else "none" if reached == 0 else "inconsistent"
    return SteadyStateVerdict(verdict, forks)
