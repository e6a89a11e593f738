"""Power of the user's own setup, per benchmark: A/A false positives, MDS, trials needed.

Laaber et al. (``shared/reference/004``, section 5) showed that whether identical code is
reported as changed, and whether a 5% or a 50% slowdown can be seen, depends on the
benchmark and the environment; Costa et al. ask for "statistical power analysis to evaluate
if this configuration is trustworthy". This module runs ``stats.power`` on each benchmark of
one version's data with the decision rule ``compare`` would use.

Units: trial-based sampling draws disjoint trials (the RMIT setting: both groups from the
same instances); instance-based draws disjoint instances. ``auto`` takes instances when
there are at least 4 of them and fewer than 4 trials in each, trials otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rigorbench import parallel
from rigorbench.analysis.compare import series_seed
from rigorbench.analysis.dataset import Dataset, iteration_observations
from rigorbench.analysis.settings import DEFAULT_POWER_TARGET, PowerOptions, Settings
from rigorbench.model import BenchmarkCase, Metric
from rigorbench.stats.bootstrap import MIN_EXPANDED_UNITS
from rigorbench.stats.power import MAX_FALSE_POSITIVES, PowerSimulation, extrapolated_group_size, simulate_power

MIN_UNITS = 4

@dataclass(frozen=True)
class BenchmarkPower:
    case: BenchmarkCase
    metric: Metric
    strategy: str
    units: int                          # trials or instances available
    result: PowerSimulation | None      # None when the data is too small
    recommended: int | None             # units per version for --target
    extrapolated: bool                  # the recommendation goes beyond the data
    note: str = ""


@dataclass(frozen=True)
class PowerResult:
    label: str
    settings: Settings
    options: PowerOptions
    benchmarks: tuple[BenchmarkPower, ...]
    sources: tuple[str, ...] = ()
    trial_seconds: float | None = None   # one trial of the whole suite, one version (stored runs)

    @property
    def suite_trials(self) -> int | None:
        """Trials per version that give every benchmark with an answer its --target."""
        needed = [b.recommended for b in self.benchmarks if b.recommended is not None]
        return max(needed) if needed else None

    @property
    def summary(self) -> PowerSummary:
        return summarize_power(self)

    @property
    def suite_seconds(self) -> float | None:
        """Wall time of an A/B experiment with ``suite_trials`` trials of two versions."""
        if self.suite_trials is None or self.trial_seconds is None:
            return None
        return 2 * self.suite_trials * self.trial_seconds


@dataclass(frozen=True)
class PowerSummary:
    """What the simulations say about the suite as a whole."""

    target: float            # the slowdown judged against: --target, else DEFAULT_POWER_TARGET
    judged: int              # benchmarks with enough units to simulate
    able: int                # of those, with an MDS at or below ``target``
    unable: int              # detect not even the largest slowdown, without false alarms
    false_alarms: int        # call identical code changed in more than MAX_FALSE_POSITIVES of A/A tests
    skipped: int             # too few units to tell
    largest: float           # the largest slowdown simulated


def summarize_power(result: "PowerResult") -> PowerSummary:
    judged = [b.result for b in result.benchmarks if b.result is not None]
    target = result.options.target or DEFAULT_POWER_TARGET
    return PowerSummary(
        target=target, judged=len(judged), able=sum(r.mds is not None and r.mds <= target for r in judged),
        unable=sum(r.mds is None and r.false_positive_rate <= MAX_FALSE_POSITIVES for r in judged),
        false_alarms=sum(r.false_positive_rate > MAX_FALSE_POSITIVES for r in judged),
        skipped=len(result.benchmarks) - len(judged), largest=max(result.options.slowdowns))


def _units(levels: list[np.ndarray], strategy: str) -> tuple[str, np.ndarray]:
    instance, trial = levels[0], levels[1]
    instances = len(np.unique(instance))
    trials = len(np.unique(np.stack([instance, trial], axis=1), axis=0))
    if strategy == "auto":
        strategy = "instance" if instances >= MIN_UNITS and trials / instances < MIN_UNITS else "trial"
    if strategy == "instance":
        return strategy, instance
    return strategy, instance * (int(trial.max()) + 1) + trial


def _recommend(case, metric, values, levels, unit, settings, options, result) -> tuple[int | None, bool, str]:
    """Smallest group size (in the data) detecting the target in 95% with A/A false
    positives at or below 5%; beyond the data, extrapolated from the CI width."""
    if options.target is None:
        return None, False, ""
    available = len(np.unique(unit)) // 2
    rule = settings.decision_rule()
    powerful = False
    # compare marks every verdict from fewer units than the expanded interval's minimum as
    # untrustworthy (its interval is the uncorrected one there): never recommend such a size.
    smallest = MIN_EXPANDED_UNITS if settings.interval == "expanded" else 2
    for size in sorted({smallest, 3, 5, 8, 12, 20, available} & set(range(smallest, available + 1))):
        trial = result if size == result.group_size else simulate_power(
            values, levels, unit, group_size=size, rule=rule, higher_is_better=metric.higher_is_better,
            slowdowns=(options.target,), simulations=options.simulations, statistic=settings.statistic,
            confidence=settings.confidence, resamples=settings.resamples, interval=settings.interval, seed=series_seed(settings.seed, case, metric) + size,
        )
        detected = trial.detection_rate[trial.slowdowns.index(options.target)] >= 0.95
        if detected and trial.false_positive_rate <= 0.05:
            return size, False, ""
        powerful |= detected
    if powerful:
        return None, False, "A/A false positives above 5%: more trials per group or a higher --confidence"
    if rule.name != "bootstrap":
        return None, False, ""
    needed = extrapolated_group_size(result, options.target, settings.threshold, settings.confidence, settings.interval)
    if needed is None:
        return None, False, ""
    return max(needed, available + 1, smallest), True, ""


def benchmark_power(case, metric, table, settings: Settings, options: PowerOptions) -> BenchmarkPower:
    obs = iteration_observations(table, outlier_factor=settings.outlier_factor)
    strategy, unit = _units(obs.levels, options.strategy)
    count = len(np.unique(unit))
    if count < MIN_UNITS:
        what = "trials" if strategy == "trial" else "instances"
        return BenchmarkPower(case, metric, strategy, count, None, None, False,
                              f"needs at least {MIN_UNITS} {what}; has {count}")
    size = min(options.group_size or count // 2, count // 2)
    slowdowns = tuple(sorted(set(options.slowdowns) | ({options.target} if options.target else set())))
    result = simulate_power(
        obs.values, obs.levels, unit, group_size=size, rule=settings.decision_rule(),
        higher_is_better=metric.higher_is_better, slowdowns=slowdowns, simulations=options.simulations,
        statistic=settings.statistic, confidence=settings.confidence, resamples=settings.resamples,
        interval=settings.interval, seed=series_seed(settings.seed, case, metric),
    )
    recommended, extrapolated, note = _recommend(case, metric, obs.values, obs.levels, unit, settings, options, result)
    return BenchmarkPower(case, metric, strategy, count, result, recommended, extrapolated, note)


def power_dataset(dataset: Dataset, settings: Settings, options: PowerOptions,
                  trial_seconds: float | None = None, progress: Callable[[int, int], None] | None = None,
                  jobs: int | None = None) -> PowerResult:
    """The power of every series the settings ask for; ``progress(done, total)`` after each.
    Each series takes seconds (hundreds of simulated experiments), so from two series on they
    run on one process per CPU (``jobs`` to choose); each has its own seed, so the results
    are the same for any number."""
    work = [(case, metric, table, settings, options) for (case, metric), table in dataset.series.items()
            if settings.wants_metric(metric)]
    found = []
    workers = parallel.workers_for(len(work), jobs, min_series=2)
    for done, one in enumerate(parallel.ordered_map(_power_work, work, workers), 1):
        found.append(one)
        if progress is not None:
            progress(done, len(work))
    return PowerResult(dataset.label, settings, options, tuple(found), dataset.sources, trial_seconds)


def _power_work(work: tuple) -> BenchmarkPower:
    return benchmark_power(*work)
