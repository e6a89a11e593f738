"""Compare two versions benchmark by benchmark and decide.

For each benchmark case and metric present on both sides: a hierarchical bootstrap CI of
each side's statistic, the bootstrap ratio contender/baseline with its CI (the two sides
resampled independently), the Mann-Whitney U p-value and Cliff's delta over the measurement
iterations, and a verdict from the configured decision rule (ARCHITECTURE.md, "Statistics").
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from rigorbench.analysis.dataset import Dataset, Observations, iteration_observations, outliers_removed
from rigorbench.analysis.forks import select_steady, steady_report
from rigorbench.analysis.settings import Settings
from rigorbench.model import BenchmarkCase, Diagnostic, Metric
from rigorbench.stats import (
    ConfidenceInterval,
    Evidence,
    Verdict,
    adjust_p_values,
    bootstrap_ratio,
    cliffs_delta,
    effect_magnitude,
    mann_whitney_u,
    percentile_interval,
    summarize,
)

# Below this many measurement values on a side, the rank test has almost no power and the
# bootstrap distribution has too few distinct resamples to be trusted.
_FEW_VALUES = 6


@dataclass(frozen=True)
class SideSummary:
    """One version's figures for one benchmark case and metric."""

    n: int
    mean: float
    median: float
    ci: ConfidenceInterval          # of the compared statistic (mean or median)
    cv: float
    forks: int
    trials: int


@dataclass(frozen=True)
class Comparison:
    case: BenchmarkCase
    metric: Metric
    baseline: SideSummary
    contender: SideSummary
    ratio: ConfidenceInterval       # contender / baseline of the statistic
    p_value: float
    cliffs_delta: float
    effect_size: str
    verdict: Verdict
    warnings: tuple[Diagnostic, ...] = ()
    # The bootstrap ratios the CI came from (the HTML report plots them); not part of JSON.
    distribution: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def change_pct(self) -> float:
        return (self.ratio.estimate - 1.0) * 100.0


@dataclass(frozen=True)
class ComparisonResult:
    baseline_label: str
    contender_label: str
    settings: Settings
    comparisons: tuple[Comparison, ...]
    only_in_baseline: tuple[tuple[BenchmarkCase, Metric], ...] = ()
    only_in_contender: tuple[tuple[BenchmarkCase, Metric], ...] = ()
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    input_warnings: tuple[str, ...] = ()

    def count(self, verdict: Verdict) -> int:
        return sum(1 for c in self.comparisons if c.verdict == verdict)

    def fails(self, fail_on: str) -> bool:
        """Whether ``--fail-on`` is met: a regression, or any change."""
        wanted = {"regression": {Verdict.SLOWER}, "change": {Verdict.SLOWER, Verdict.FASTER}}
        return any(c.verdict in wanted.get(fail_on, set()) for c in self.comparisons)


def compare_datasets(
    baseline: Dataset, contender: Dataset, settings: Settings, progress: Callable[[int, int], None] | None = None,
) -> ComparisonResult:
    """Compare every (case, metric) both sides have; list the ones only one side has.
    ``progress(done, total)`` is called after each of them."""
    base_keys = [k for k in baseline.series if settings.wants_metric(k[1])]
    cont_keys = [k for k in contender.series if settings.wants_metric(k[1])]
    common = [k for k in base_keys if k in contender.series]
    drafts = []
    for done, (case, metric) in enumerate(common, 1):
        drafts.append(_compare_one(case, metric, baseline.series[(case, metric)], contender.series[(case, metric)], settings))
        if progress is not None:
            progress(done, len(common))
    drafts = [d for d in drafts if d is not None]
    comparisons = _decide_all(drafts, settings)
    return ComparisonResult(
        baseline_label=baseline.label,
        contender_label=contender.label,
        settings=settings,
        comparisons=tuple(comparisons),
        only_in_baseline=tuple(k for k in base_keys if k not in contender.series),
        only_in_contender=tuple(k for k in cont_keys if k not in baseline.series),
        sources={"baseline": baseline.sources, "contender": contender.sources},
        input_warnings=baseline.warnings + contender.warnings,
    )


def series_seed(seed: int, case: BenchmarkCase, metric: Metric) -> int:
    """A seed per series, stable across runs and input order, so results are reproducible."""
    key = f"{case.harness}\0{case.display_name}\0{metric.name}".encode()
    return (seed * 1_000_003 + zlib.crc32(key)) % (2**63)


def _compare_one(case, metric, base_table, cont_table, settings: Settings) -> Comparison | None:
    notes: list[Diagnostic] = []
    if settings.steady_only:
        base_table, base_notes = select_steady(base_table, steady_report(base_table), "baseline")
        cont_table, cont_notes = select_steady(cont_table, steady_report(cont_table), "contender")
        notes = [*base_notes, *cont_notes]
    base = iteration_observations(base_table, outlier_factor=settings.outlier_factor)
    cont = iteration_observations(cont_table, outlier_factor=settings.outlier_factor)
    if len(base.values) == 0 or len(cont.values) == 0:
        return None
    seed = series_seed(settings.seed, case, metric)
    ratio = bootstrap_ratio(
        base.values, base.levels, cont.values, cont.levels,
        statistic=settings.statistic, confidence=settings.confidence,
        resamples=settings.resamples, seed=seed,
    )
    test = mann_whitney_u(base.values, cont.values)
    delta = cliffs_delta(base.values, cont.values)
    baseline = _side_summary(base, ratio.baseline_distribution, settings)
    contender = _side_summary(cont, ratio.contender_distribution, settings)
    return Comparison(
        case=case,
        metric=metric,
        baseline=baseline,
        contender=contender,
        ratio=ratio.interval,
        p_value=test.p_value,
        cliffs_delta=delta,
        effect_size=effect_magnitude(delta),
        verdict=Verdict.INCONCLUSIVE,
        warnings=tuple(notes + _warnings({"baseline": (base, baseline), "contender": (cont, contender)}, ratio.estimate)),
        distribution=ratio.distribution,
    )


def _side_summary(obs: Observations, distribution, settings: Settings) -> SideSummary:
    """One side's figures; its CI comes from the resamples the ratio was formed from."""
    summary = summarize(obs.values)
    low, high = percentile_interval(distribution, settings.confidence)
    trials = len({(i, t) for i, t in zip(obs.levels[0], obs.levels[1])})
    forks = len(set(zip(obs.levels[0], obs.levels[1], obs.levels[2])))
    estimate = summary.mean if settings.statistic == "mean" else summary.median
    ci = ConfidenceInterval(estimate, low, high, settings.confidence)
    return SideSummary(summary.n, summary.mean, summary.median, ci, summary.cv, forks, trials)


def _warnings(sides: dict[str, tuple[Observations, SideSummary]], ratio: float) -> list[Diagnostic]:
    found = []
    for side, (obs, summary) in sides.items():
        removed = outliers_removed(obs, side)
        if removed:
            found.append(removed)
        if len(obs.values) < _FEW_VALUES:
            found.append(Diagnostic(
                "few_samples",
                f"{side}: only {len(obs.values)} measurement values",
                "warning",
                "run more iterations, forks or trials before trusting a verdict",
            ))
        if summary.forks == 1:
            found.append(Diagnostic(
                "single_fork",
                f"{side}: all values come from one fork",
                "warning",
                "run-to-run variance is not captured; use at least 2 forks or several trials",
            ))
    if not np.isfinite(ratio):
        found.append(Diagnostic("undefined_ratio", "the baseline statistic is zero", "error", ""))
    return found


def _decide_all(drafts: list[Comparison], settings: Settings) -> list[Comparison]:
    """Adjust p-values for multiple comparisons, then apply the decision rule to each."""
    if not drafts:
        return []
    adjusted = adjust_p_values(np.array([d.p_value for d in drafts]), settings.correction)
    rule = settings.decision_rule()
    decided = []
    for draft, p_value in zip(drafts, adjusted):
        evidence = Evidence(draft.ratio, float(p_value), draft.cliffs_delta)
        verdict = rule.decide(evidence, draft.metric.higher_is_better)
        decided.append(replace(draft, p_value=float(p_value), verdict=verdict))
    return decided
