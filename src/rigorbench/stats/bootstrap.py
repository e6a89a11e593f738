"""Hierarchical bootstrap CIs of a statistic and of the ratio of two versions.

Statistical stance: repeated measurements of a benchmark are not independent -- iterations
of one fork share that fork's JIT decisions and memory layout, forks of one trial share the
machine state of that trial, and so on. Kalibera & Jones (2012, "Quantifying performance
changes with effect size confidence intervals", p. 24ff; 2013, "Rigorous benchmarking in
reasonable time") therefore resample *hierarchically*: uniformly with replacement at every
level, outermost first, and then the iterations inside every chosen innermost unit (Ren et
al. 2010). Laaber et al. (``shared/reference/004`` section 5.1.2) use the same scheme over
instances, trials and iterations. The interval starts from the percentile interval of the
bootstrap distribution (Davison & Hinkley 1997, section 5.3), widened for few top-level
units by default (below); the point estimate is the statistic of
all original values pooled. Unbalanced data is fine: a resampled unit picks as many
children as it has.

For a comparison the two versions are resampled *independently* and the ratio distribution
is ``contender / baseline`` taken element-wise in generation order. Sorting the resample
vectors before dividing (a bug in a public tool) pairs the i-th smallest with the i-th
smallest and makes ratio intervals far too narrow; the tests guard against it.

Small samples (issue 16): every percentile bootstrap interval is too narrow when the
outermost level has few units -- the bootstrap sees the plug-in variance of those units,
(n-1)/n of the unbiased one, and normal-like rather than Student-t tails (Hesterberg, "What
teachers should know about the bootstrap", 2015, section 3.4; Davison & Hinkley 1997,
section 5.4). With 5 trials and trial-dominated variance the 99% ratio interval covered the
truth in 95.9% of synthetic experiments. The default interval is therefore the *expanded*
one: the percentile interval widened around the estimate by

    f = sqrt(n / (n - 1)) * t(df, 1 - a/2) / z(1 - a/2)

where ``n`` counts the top-level units (the first level, outermost first, with more than one
unit: the trials, or the forks of a single trial). This is Hesterberg's expanded percentile
in its normal-theory form: instead of reading the bootstrap distribution further out
(at 99% and 5 trials that is the 1e-7 quantile, which 10,000 resamples cannot resolve) the
interval's distances from the estimate are multiplied by ``f``, on the log scale when
everything is positive so the interval stays positive and keeps its skew. For one version
``df = n - 1``. For a ratio the two versions' variances are added, so ``df`` is the
Welch-Satterthwaite combination of ``n_b - 1`` and ``n_c - 1`` weighted by each version's
relative bootstrap variance, and each version's variance gets its own ``n / (n - 1)``.
With two units there is no useful correction: the t quantile with one or two degrees of
freedom makes the interval 5 to 35 times wider, wider than any benchmark's plausible range;
no interval from two units is trustworthy, so the percentile interval is kept and the
callers say so (``analysis/compare.py``: the ``few_units`` warning marks every verdict).
``interval="percentile"`` gives the uncorrected interval. Measured coverage of both, at 3 to
20 trials: ``docs/statistics.md`` and ``tests/stats/test_coverage.py``.

High levels (issue 18): an adaptive experiment decides each look at 99.8% or so. The
percentile interval cannot reach that far with few units: its bounds can never pass the
most extreme resample, and with 3 trials a quarter of a percent of resamples is a couple of
repeats of the largest trial. ``interval="t"`` therefore reads only the spread of the
bootstrap distribution: ``estimate x exp(+/- t_df x sd(log resamples) x sqrt(n/(n-1)))``, the
same t quantile, degrees of freedom and variance correction as the expanded interval (so the
two agree where the percentile interval is reliable), the normal-theory interval with a
bootstrap standard error (Efron & Tibshirani 1993, section 12.2). ``ab --until-decided``
decides with it; ``tests/analysis/test_stopping.py`` measures its A/A error.

Reproducibility: ``bootstrap_distribution`` draws from ``SeedSequence(seed)``; in
``bootstrap_ratio`` the baseline draws from ``SeedSequence(seed).spawn(2)[0]`` and the
contender from ``[1]``. The work of a version is split into chunks whose size depends only
on the data size, chunk ``i`` drawing from child ``i`` of the version's stream. The chunks
run on all CPUs (numpy and scipy release the GIL), so the output depends on the input and
the seed, never on the number of threads or the machine.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np

from scipy.special import ndtri, stdtrit

from rigorbench.cpus import usable_cpus
from rigorbench.stats._hierarchy import Hierarchy, build_hierarchy, choose_levels
from rigorbench.stats._resample import POINT_ESTIMATORS, SAMPLERS

# About this many resampled values per chunk: a few MiB of float64, enough to amortize
# Python overhead, small enough to stay in cache and to spread over threads.
_CHUNK_VALUES = 1 << 18

Seed = int | np.random.SeedSequence

# The interval methods: "expanded" (default, the small-sample correction above),
# "percentile" (the plain percentile interval of the bootstrap distribution) and "t"
# (the bootstrap standard error with the t quantile, for high levels; see above).
INTERVALS = ("expanded", "percentile", "t")
# Fewest top-level units per version the expanded interval corrects for (see above).
MIN_EXPANDED_UNITS = 3


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
    method: str = "percentile"
    baseline_units: int = 0     # top-level units of each version (see the module docstring)
    contender_units: int = 0
    paired: bool = False        # resampled in matched blocks (bootstrap_paired_ratio)

    @property
    def interval(self) -> ConfidenceInterval:
        return ConfidenceInterval(self.estimate, self.low, self.high, self.confidence)

    def at(self, confidence: float, method: str | None = None) -> ConfidenceInterval:
        """The interval at ``confidence`` from the same resamples, by ``method`` (default: the
        estimate's own); an adaptive experiment's A/A check reads several of one draw."""
        method = method or self.method
        _check_interval(method)
        units = (self.baseline_units, self.contender_units)
        if method == "percentile":
            low, high = percentile_interval(self.distribution, confidence)
        else:
            if self.paired:  # one quantity: the ratio of matched blocks, n - 1 degrees of freedom
                factor = expansion_factor(confidence, units[:1])
            else:
                variances = (_relative_variance(self.baseline_distribution), _relative_variance(self.contender_distribution))
                factor = expansion_factor(confidence, units, variances)
            if method == "t":
                low, high = t_interval(self.distribution, self.estimate, confidence, factor)
            else:
                low, high = expanded(self.estimate, *percentile_interval(self.distribution, confidence), factor)
        return ConfidenceInterval(self.estimate, low, high, confidence)

    def with_confidence(self, confidence: float) -> "RatioEstimate":
        interval = self.at(confidence)
        return replace(self, low=interval.low, high=interval.high, confidence=confidence)


def _check_interval(interval: str) -> None:
    if interval not in INTERVALS:
        raise ValueError(f"unknown interval {interval!r}; valid intervals are {list(INTERVALS)}")


def _check_settings(statistic: str, resamples: int, confidence: float | None = None,
                    interval: str = "expanded") -> None:
    if statistic not in SAMPLERS:
        raise ValueError(f"unknown statistic {statistic!r}; valid statistics are {sorted(SAMPLERS)}")
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)):
        raise ValueError(f"resamples must be an integer, got {resamples!r}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if confidence is not None and not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    _check_interval(interval)


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
            raise ValueError(f"{name}: level {depth} has shape {c.shape}, expected ({x.size},)")
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
    sampler = SAMPLERS[statistic](h)
    per_chunk = max(1, _CHUNK_VALUES // sampler.footprint)
    sizes = [min(per_chunk, resamples - start) for start in range(0, resamples, per_chunk)]

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
    _check_settings(statistic, resamples)
    h = _validated_hierarchy(values, levels)
    return np.concatenate(_run(_chunk_tasks(h, statistic, resamples, seed)))


def percentile_interval(distribution: np.ndarray, confidence: float) -> tuple[float, float]:
    """The two-sided percentile interval of a bootstrap distribution."""
    tail = (1 - confidence) / 2
    low, high = np.quantile(distribution, [tail, 1 - tail])
    return float(low), float(high)


def top_units(h: Hierarchy) -> int:
    """Units of the outermost level that has more than one (the values, if none has)."""
    nodes = 1
    for _first, count in h.children:
        nodes = int(count.sum())
        if nodes > 1:
            return nodes
    return h.size


def _relative_variance(distribution: np.ndarray) -> float:
    """Variance of a bootstrap distribution relative to its squared mean (that of the log,
    to first order); NaN when undefined."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = float(np.mean(distribution))
        return float(np.var(distribution) / (mean * mean)) if mean else float("nan")


def expansion_factor(confidence: float, units: Sequence[int], variances: Sequence[float] = ()) -> float:
    """How much wider than the percentile interval the expanded interval is.

    ``units``: top-level units of each version that contributes to the estimate (one, or two
    for a ratio); ``variances``: each version's relative bootstrap variance (weights of the
    Welch-Satterthwaite degrees of freedom; needed only for two versions). With a version of
    fewer than :data:`MIN_EXPANDED_UNITS` units the factor is 1 (see the module docstring).
    """
    n = np.asarray(units, dtype=float)
    if n.size == 0 or np.any(n < MIN_EXPANDED_UNITS):
        return 1.0
    v = np.asarray(variances, dtype=float) if len(variances) == n.size else np.ones_like(n)
    if not np.all(np.isfinite(v)) or v.sum() <= 0:
        v = np.ones_like(n)
    unbiased = v * n / (n - 1)
    df = unbiased.sum() ** 2 / np.sum(unbiased**2 / (n - 1))
    tail = 1 - (1 - confidence) / 2
    return float(np.sqrt(unbiased.sum() / v.sum()) * stdtrit(df, tail) / ndtri(tail))


def expanded(estimate: float, low: float, high: float, factor: float) -> tuple[float, float]:
    """``(low, high)`` with their distances from ``estimate`` multiplied by ``factor``: on the
    log scale when all three are positive (the interval stays positive and keeps its skew),
    else on the plain scale."""
    if factor == 1.0 or not np.isfinite(factor) or not all(np.isfinite((estimate, low, high))):
        return low, high
    if min(estimate, low, high) > 0:
        log_e = np.log(estimate)
        wide = (float(np.exp(log_e - factor * (log_e - np.log(low)))),
                float(np.exp(log_e + factor * (np.log(high) - log_e))))
    else:
        wide = (estimate - factor * (estimate - low), estimate + factor * (high - estimate))
    # An estimate outside the percentile interval (a median on coarse data) would move a
    # bound inwards: the expanded interval is never narrower than the percentile one.
    return min(wide[0], low), max(wide[1], high)


def t_interval(distribution: np.ndarray, estimate: float, confidence: float, factor: float) -> tuple[float, float]:
    """``estimate`` +/- ``factor`` x the normal quantile x the bootstrap standard error: on the
    log scale when the estimate and every resample are positive, else on the plain scale.
    ``factor`` is :func:`expansion_factor`'s (t over normal quantile, variance correction)."""
    half = factor * float(ndtri(1 - (1 - confidence) / 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        if estimate > 0 and np.all(distribution > 0):
            sd = float(np.std(np.log(distribution)))
            return float(estimate * np.exp(-half * sd)), float(estimate * np.exp(half * sd))
        sd = float(np.std(distribution))
        return estimate - half * sd, estimate + half * sd


def interval_of(distribution: np.ndarray, estimate: float, confidence: float, *, units: int,
                interval: str = "expanded") -> tuple[float, float]:
    """One version's interval from its bootstrap distribution, by the method ``interval``."""
    _check_interval(interval)
    if interval == "t":
        return t_interval(distribution, estimate, confidence, expansion_factor(confidence, [units]))
    low, high = percentile_interval(distribution, confidence)
    if interval == "percentile":
        return low, high
    return expanded(estimate, low, high, expansion_factor(confidence, [units]))


def hierarchical_bootstrap(
    values, levels: Sequence, *, statistic: str = "mean", confidence: float = 0.99,
    resamples: int = 10_000, seed: Seed = 0, interval: str = "expanded",
) -> ConfidenceInterval:
    """Point estimate of ``statistic`` with its hierarchical bootstrap CI (``interval``:
    "expanded", the default, or "percentile"; see the module docstring)."""
    _check_settings(statistic, resamples, confidence, interval)
    h = _validated_hierarchy(values, levels)
    distribution = np.concatenate(_run(_chunk_tasks(h, statistic, resamples, seed)))
    estimate = float(POINT_ESTIMATORS[statistic](np.asarray(values, dtype=np.float64)))
    low, high = interval_of(distribution, estimate, confidence, units=top_units(h), interval=interval)
    return ConfidenceInterval(estimate, low, high, confidence)


def bootstrap_ratio(
    baseline, baseline_levels: Sequence, contender, contender_levels: Sequence, *,
    statistic: str = "mean", confidence: float = 0.99, resamples: int = 10_000,
    seed: Seed = 0, interval: str = "expanded",
) -> RatioEstimate:
    """contender / baseline of ``statistic`` with its CI by the method ``interval``
    ("expanded", the default, or "percentile"; see the module docstring).

    The versions are resampled independently, from streams 0 (baseline) and 1 (contender)
    of ``SeedSequence(seed).spawn(2)``, and ratios are formed pair by pair in generation
    order. A baseline statistic of 0 gives an infinite or NaN ratio.
    """
    _check_settings(statistic, resamples, confidence, interval)
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
    units = (top_units(hb), top_units(hc))
    for array in (ratios, dist_b, dist_c):
        array.setflags(write=False)
    found = RatioEstimate(estimate, np.nan, np.nan, confidence, ratios, dist_b, dist_c, interval, *units)
    return found.with_confidence(confidence)


def bootstrap_paired_ratio(
    baseline, baseline_levels: Sequence, contender, contender_levels: Sequence, *, matched: int,
    statistic: str = "mean", confidence: float = 0.99, resamples: int = 10_000,
    seed: Seed = 0, interval: str = "expanded",
) -> RatioEstimate:
    """contender / baseline of ``statistic`` when the outermost ``matched`` levels are the
    same units on both sides (the instances and trials of an RMIT or duet run, where each
    trial ran both versions back to back or at once), with its CI by ``interval``.

    The matched levels are resampled *once* for both versions -- a resample that draws trial
    3 twice draws it twice for both -- and the levels below them independently per version:
    the block bootstrap of matched pairs (Davison & Hinkley 1997, section 3.8, resampling
    cases of a paired design). Whatever a trial does to both versions (the machine's state
    then: another process, the frequency, the heat) is in numerator and denominator of the
    same resample and cancels in the ratio instead of adding to its spread, as the paired
    t-test's difference removes the pair effect. Each version's own distribution is still
    its hierarchical bootstrap. The expanded interval counts the matched top-level units
    once: ``n`` pairs give ``n - 1`` degrees of freedom (the paired t-test's), not the
    Welch-Satterthwaite combination of two independent samples.

    Streams: ``SeedSequence(seed).spawn(3)``: the matched levels from child 0, the
    baseline's lower levels from 1, the contender's from 2; chunks as in
    :func:`bootstrap_ratio`, one size for both versions. Raises ``ValueError`` when the
    matched levels do not hold the same units on both sides.
    """
    _check_settings(statistic, resamples, confidence, interval)
    hb = _validated_hierarchy(baseline, baseline_levels, "baseline")
    hc = _validated_hierarchy(contender, contender_levels, "contender")
    if not 0 < matched <= min(len(baseline_levels), len(contender_levels)):
        raise ValueError(f"matched must lie in 1..{min(len(baseline_levels), len(contender_levels))}, got {matched}")
    units = _units(baseline_levels, matched)
    if units.shape != _units(contender_levels, matched).shape or np.any(units != _units(contender_levels, matched)):
        raise ValueError(f"the outermost {matched} levels do not hold the same units on both sides")
    if len(units) < 2:
        raise ValueError("a paired ratio needs at least two matched units")
    sampler_b, sampler_c = SAMPLERS[statistic](hb), SAMPLERS[statistic](hc)
    per_chunk = max(1, _CHUNK_VALUES // max(sampler_b.footprint, sampler_c.footprint))
    sizes = [min(per_chunk, resamples - start) for start in range(0, resamples, per_chunk)]
    streams = [_child_seeds(child, len(sizes)) for child in _child_seeds(seed, 3)]

    def task(size: int, shared, own_b, own_c) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
        def draw():
            start = choose_levels(hb, np.random.Generator(np.random.PCG64(shared)), size, matched)
            return (sampler_b(np.random.Generator(np.random.PCG64(own_b)), size, start),
                    sampler_c(np.random.Generator(np.random.PCG64(own_c)), size, start))
        return draw

    results = _run([task(size, *children) for size, *children in zip(sizes, *streams)])
    dist_b = np.concatenate([b for b, _ in results])
    dist_c = np.concatenate([c for _, c in results])
    point = POINT_ESTIMATORS[statistic]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = dist_c / dist_b  # element-wise: resample i of both versions drew the same blocks
        estimate = float(point(np.asarray(contender, dtype=np.float64))
                         / point(np.asarray(baseline, dtype=np.float64)))
    for array in (ratios, dist_b, dist_c):
        array.setflags(write=False)
    found = RatioEstimate(estimate, np.nan, np.nan, confidence, ratios, dist_b, dist_c, interval,
                          top_units(hb), top_units(hc), paired=True)
    return found.with_confidence(confidence)


def _units(levels: Sequence, depth: int) -> np.ndarray:
    """The distinct units of the outermost ``depth`` levels, one row of codes each, sorted."""
    return np.unique(np.column_stack([np.asarray(level, dtype=np.int64) for level in levels[:depth]]), axis=0)


def narrower_of_paired_and_unpaired(paired: RatioEstimate, seed: Seed = 0) -> RatioEstimate:
    """``paired``, or the unpaired ratio of the same resamples when its interval is narrower.

    Pairing removes what the versions of a trial share from the ratio's spread but counts the
    trials once: ``n`` pairs give ``n - 1`` degrees of freedom where two independent samples
    give about ``2n - 2``. At 5 trials and 99% that is a t quantile of 4.60 against 3.36, so a
    paired interval is narrower only when the versions' trial effects correlate by more than
    about 0.47 (0.22 at 10 trials). Matched trials are therefore analysed both ways and the
    narrower interval is kept. The unpaired ratio needs no second bootstrap: each version's
    resamples under pairing are its own hierarchical bootstrap, and shuffling the contender's
    against the baseline's makes them independent draws (stream 3 of ``SeedSequence(seed)``).
    Keeping the narrower of two valid intervals could cost coverage; the coverage and A/A
    experiments of ``tests/stats/test_paired.py`` measure this rule, with and without a
    shared trial effect.
    """
    if not paired.paired:
        return paired
    rng = np.random.Generator(np.random.PCG64(_child_seeds(seed, 4)[3]))
    shuffled = paired.contender_distribution[rng.permutation(paired.contender_distribution.size)]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = shuffled / paired.baseline_distribution
    for array in (ratios, shuffled):
        array.setflags(write=False)
    unpaired = replace(paired, distribution=ratios, contender_distribution=shuffled, paired=False)
    unpaired = unpaired.with_confidence(paired.confidence)

    def width(r: RatioEstimate) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.log(r.high / r.low) if min(r.low, r.high) > 0 else r.high - r.low
        return float(w) if np.isfinite(w) else np.inf

    return unpaired if width(unpaired) < width(paired) else paired
