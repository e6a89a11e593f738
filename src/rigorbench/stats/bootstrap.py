"""Hierarchical percentile bootstrap of a statistic and of the ratio of two versions.

Statistical stance: repeated measurements of a benchmark are not independent -- iterations
of one fork share that fork's JIT decisions and memory layout, forks of one trial share the
machine state of that trial, and so on. Kalibera & Jones (2012, "Quantifying performance
changes with effect size confidence intervals", p. 24ff; 2013, "Rigorous benchmarking in
reasonable time") therefore resample *hierarchically*: uniformly with replacement at every
level, outermost first, and then the iterations inside every chosen innermost unit (Ren et
al. 2010). Laaber et al. (``shared/reference/004`` section 5.1.2) use the same scheme over
instances, trials and iterations. The interval is the percentile interval of the bootstrap
distribution (Davison & Hinkley 1997, section 5.3); the point estimate is the statistic of
all original values pooled. Unbalanced data is fine: a resampled unit picks as many
children as it has.

For a comparison the two versions are resampled *independently* and the ratio distribution
is ``contender / baseline`` taken element-wise in generation order. Sorting the resample
vectors before dividing (a bug in a public tool) pairs the i-th smallest with the i-th
smallest and makes ratio intervals far too narrow; the tests guard against it.

Caveat, measured in ``tests/stats/test_coverage.py``: like every percentile bootstrap, this
interval under-covers when the outermost level has few units and dominates the variance
(the bootstrap sees the plug-in variance, (k-1)/k of the unbiased one, and normal-like
rather than Student-t tails). Plan enough units at the level with the most variance.

Reproducibility: ``bootstrap_distribution`` draws from ``SeedSequence(seed)``; in
``bootstrap_ratio`` the baseline draws from ``SeedSequence(seed).spawn(2)[0]`` and the
contender from ``[1]``. The work of a version is split into chunks whose size depends only
on the data size, chunk ``i`` drawing from child ``i`` of the version's stream. The chunks
run on all CPUs (numpy and scipy release the GIL), so the output depends on the input and
the seed, never on the number of threads or the machine.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from rigorbench.cpus import usable_cpus
from rigorbench.stats._hierarchy import Hierarchy, build_hierarchy
from rigorbench.stats._resample import POINT_ESTIMATORS, SAMPLERS

# About this many resampled values per chunk: a few MiB of float64, enough to amortize
# Python overhead, small enough to stay in cache and to spread over threads.
_CHUNK_VALUES = 1 << 18

Seed = int | np.random.SeedSequence


@dataclass(frozen=True)
class ConfidenceInterval:
    """Point estimate with a two-sided percentile interval at level ``confidence``."""

    estimate: float
    low: float
    high: float
    confidence: float

    def scaled(self, factor: float) -> "ConfidenceInterval":
        """The interval of ``factor`` times the quantity (a positive factor)."""
        return ConfidenceInterval(self.estimate * factor, self.low * factor, self.high * factor, self.confidence)


@dataclass(frozen=True, eq=False)
class RatioEstimate:
    """contender / baseline: estimate, interval and the (read-only) bootstrap ratios.

    ``baseline_distribution`` and ``contender_distribution`` are the two versions' own
    bootstrap distributions the ratios were formed from, so a caller can take each
    version's interval from them (:func:`percentile_interval`) without resampling again.
    """

    estimate: float
    low: float
    high: float
    confidence: float
    distribution: np.ndarray
    baseline_distribution: np.ndarray | None = None
    contender_distribution: np.ndarray | None = None

    @property
    def interval(self) -> ConfidenceInterval:
        return ConfidenceInterval(self.estimate, self.low, self.high, self.confidence)


def _check_statistic(statistic: str) -> None:
    if statistic not in SAMPLERS:
        raise ValueError(
            f"unknown statistic {statistic!r}; valid statistics are {sorted(SAMPLERS)}"
        )


def _check_settings(resamples: int, confidence: float | None = None) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)):
        raise ValueError(f"resamples must be an integer, got {resamples!r}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if confidence is not None and not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")


def _validated_hierarchy(values, levels: Sequence, name: str = "values") -> Hierarchy:
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if x.size == 0:
        raise ValueError(f"{name}: need at least one value")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name}: values must be finite (no NaN or infinity)")
    codes = []
    for depth, level in enumerate(levels):
        c = np.asarray(level)
        if c.ndim != 1 or c.size != x.size:
            raise ValueError(
                f"{name}: level {depth} has shape {c.shape}, expected ({x.size},)"
            )
        if not (np.issubdtype(c.dtype, np.integer) or c.dtype == np.bool_):
            raise ValueError(f"{name}: level {depth} codes must be integers, got {c.dtype}")
        codes.append(c)
    return build_hierarchy(x, codes)


def _child_seeds(seed: Seed, count: int) -> list[np.random.SeedSequence]:
    """``SeedSequence(seed).spawn(count)`` without mutating a SeedSequence passed in."""
    base = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return [
        np.random.SeedSequence(base.entropy, spawn_key=(*base.spawn_key, i),
                               pool_size=base.pool_size)
        for i in range(count)
    ]


def _chunk_tasks(h: Hierarchy, statistic: str, resamples: int, seed: Seed) -> list[Callable]:
    """Independent pieces of work, each filling one chunk of the distribution."""
    per_chunk = max(1, _CHUNK_VALUES // h.size)
    sizes = [min(per_chunk, resamples - start) for start in range(0, resamples, per_chunk)]
    sampler = SAMPLERS[statistic](h)

    def task(size: int, child: np.random.SeedSequence) -> Callable[[], np.ndarray]:
        return lambda: sampler(np.random.Generator(np.random.PCG64(child)), size)

    return [task(size, child) for size, child in zip(sizes, _child_seeds(seed, len(sizes)))]


def _workers() -> int:
    return usable_cpus()


# Below this many chunks, starting threads costs more than they save (a report of 200
# small benchmarks spent 40% of its time starting threads); the results are the same.
_MIN_PARALLEL_CHUNKS = 4


def _run(tasks: list[Callable[[], np.ndarray]]) -> list[np.ndarray]:
    """Run the tasks on all CPUs; results in task order."""
    workers = min(_workers(), len(tasks)) if len(tasks) >= _MIN_PARALLEL_CHUNKS else 1
    if workers <= 1:
        return [task() for task in tasks]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda task: task(), tasks))


def bootstrap_distribution(
    values, levels: Sequence, *, statistic: str = "mean", resamples: int = 10_000,
    seed: Seed = 0,
) -> np.ndarray:
    """The statistic of ``resamples`` hierarchical resamples, shape ``(resamples,)``.

    ``levels`` lists integer code arrays (outermost first, each as long as ``values``)
    saying which unit of that level each value belongs to; ``[]`` is the iid bootstrap.
    """
    _check_statistic(statistic)
    _check_settings(resamples)
    h = _validated_hierarchy(values, levels)
    return np.concatenate(_run(_chunk_tasks(h, statistic, resamples, seed)))


def percentile_interval(distribution: np.ndarray, confidence: float) -> tuple[float, float]:
    """The two-sided percentile interval of a bootstrap distribution."""
    tail = (1 - confidence) / 2
    low, high = np.quantile(distribution, [tail, 1 - tail])
    return float(low), float(high)


def hierarchical_bootstrap(
    values, levels: Sequence, *, statistic: str = "mean", confidence: float = 0.99,
    resamples: int = 10_000, seed: Seed = 0,
) -> ConfidenceInterval:
    """Point estimate of ``statistic`` with its hierarchical percentile-bootstrap CI."""
    _check_settings(resamples, confidence)
    distribution = bootstrap_distribution(
        values, levels, statistic=statistic, resamples=resamples, seed=seed
    )
    estimate = float(POINT_ESTIMATORS[statistic](np.asarray(values, dtype=np.float64)))
    low, high = percentile_interval(distribution, confidence)
    return ConfidenceInterval(estimate, low, high, confidence)


def bootstrap_ratio(
    baseline, baseline_levels: Sequence, contender, contender_levels: Sequence, *,
    statistic: str = "mean", confidence: float = 0.99, resamples: int = 10_000,
    seed: Seed = 0,
) -> RatioEstimate:
    """contender / baseline of ``statistic`` with a percentile CI.

    The versions are resampled independently, from streams 0 (baseline) and 1 (contender)
    of ``SeedSequence(seed).spawn(2)``, and ratios are formed pair by pair in generation
    order. A baseline statistic of 0 gives an infinite or NaN ratio.
    """
    _check_statistic(statistic)
    _check_settings(resamples, confidence)
    hb = _validated_hierarchy(baseline, baseline_levels, "baseline")
    hc = _validated_hierarchy(contender, contender_levels, "contender")
    seed_b, seed_c = _child_seeds(seed, 2)
    tasks_b = _chunk_tasks(hb, statistic, resamples, seed_b)
    tasks_c = _chunk_tasks(hc, statistic, resamples, seed_c)
    results = _run(tasks_b + tasks_c)  # one pool for both versions keeps every CPU busy
    dist_b = np.concatenate(results[: len(tasks_b)])
    dist_c = np.concatenate(results[len(tasks_b):])
    point = POINT_ESTIMATORS[statistic]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = dist_c / dist_b  # element-wise, never sorted: the draws are independent
        estimate = float(point(np.asarray(contender, dtype=np.float64))
                         / point(np.asarray(baseline, dtype=np.float64)))
    low, high = percentile_interval(ratios, confidence)
    for array in (ratios, dist_b, dist_c):
        array.setflags(write=False)
    return RatioEstimate(estimate, low, high, confidence, ratios, dist_b, dist_c)
