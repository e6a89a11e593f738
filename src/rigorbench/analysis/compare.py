"""Compare two versions benchmark by benchmark and decide.

For each benchmark case and metric present on both sides: a hierarchical bootstrap CI of
each side's statistic, the bootstrap ratio contender/baseline with its CI, the Mann-Whitney U
p-value and Cliff's delta over the measurement iterations, and a verdict from the configured
decision rule (ARCHITECTURE.md, "Statistics").

The ratio is *paired* when the two sides' trials are matched -- the versions of one stored
RMIT run, or result files under ``compare --paired`` (trial k of the baseline with trial k of
the contender) -- and every trial (and instance) holds both versions: matched trials are
resampled as blocks of both versions, so what a trial did to the machine cancels in the
ratio (stats/bootstrap.py, ``bootstrap_paired_ratio``). A stored run's comparison keeps the
unpaired interval of the same resamples where it is narrower (pairing costs degrees of
freedom; ``narrower_of_paired_and_unpaired``); ``--paired`` always pairs. Otherwise the sides
are resampled independently. Every comparison also gives the smallest change its interval could have
called (:func:`detectable_change`).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

import numpy as np

from rigorbench import parallel
from rigorbench.analysis.comparability import Mismatch, param_mismatches, setting_mismatches, to_baseline_units
from rigorbench.analysis.advice import Words, words
from rigorbench.analysis.agreement import p_disagreement
from rigorbench.analysis.duplicates import refuse_shared
from rigorbench.analysis.gate import parse_fail_on
from rigorbench.analysis.dataset import Dataset, Observations, iteration_observations, outliers_removed
from rigorbench.errors import UserError
from rigorbench.analysis.forks import select_steady, steady_report
from rigorbench.analysis.settings import Settings
from rigorbench.model import BenchmarkCase, Diagnostic, Metric
from rigorbench.stats.bootstrap import MIN_EXPANDED_UNITS, interval_of
from rigorbench.units import dimension
from rigorbench.stats import (
    ConfidenceInterval, Evidence, Verdict, adjust_p_values, bootstrap_paired_ratio, bootstrap_ratio, cliffs_delta,
    effect_magnitude, mann_whitney_u, narrower_of_paired_and_unpaired, summarize,
)

# Below this many measurement values on a side, the rank test has almost no power and the
# bootstrap distribution has too few distinct resamples to be trusted.
_FEW_VALUES = 6

# With fewer top-level units (the trials, or the forks of one trial) than this on a side, the
# percentile bootstrap's interval is too narrow by about the factor between the t and the
# normal quantiles (Hesterberg, "What teachers should know about the bootstrap", 2015): under
# --interval percentile a slower/faster verdict is printed with this caveat next to it. The
# default expanded interval corrects for it (stats/bootstrap.py) from 3 units on; with 2 or
# fewer no interval is trustworthy and every decided verdict gets the caveat.
FEW_UNITS = 5

# Differences below these are not changes of the metric, whatever their ratio: allocation
# below one byte per operation is JMH's accounting noise (0.044 -> 0.055 B/op is +25%).
ABSOLUTE_FLOOR = {"B/op": 1.0}

# Warning codes that say a verdict cannot be trusted as printed (the renderers mark it).
VERDICT_CAVEATS = frozenset({"few_units"})


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
    instances: int = 1              # machines the trials ran on (--cluster); 1 on one machine


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
    paired: bool = False            # resampled in matched trials (see the module docstring)
    detectable: float | None = None  # detectable_change(ratio, threshold), a fraction

    @property
    def change_pct(self) -> float:
        return (self.ratio.estimate - 1.0) * 100.0

    @property
    def mds_pct(self) -> float | None:
        """The smallest change in percent this comparison could have called; None when its
        interval reaches zero or infinity."""
        return None if self.detectable is None else self.detectable * 100.0

    @property
    def verdict_supported(self) -> bool:
        """False when a warning says the design cannot carry this verdict as printed."""
        return not any(w.code in VERDICT_CAVEATS for w in self.warnings)


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
    # Why the sides do not measure the same thing; non-empty only under --allow-mismatch.
    mismatches: tuple[Mismatch, ...] = ()
    failed_in_baseline: tuple[str, ...] = ()
    failed_in_contender: tuple[str, ...] = ()
    # An adaptive run's rule (analysis/stopping.py, UntilDecided.as_dict()): the
    # per-look level and when each benchmark was decided. None for a fixed design.
    sequential: Mapping | None = None

    def count(self, verdict: Verdict) -> int:
        return sum(1 for c in self.comparisons if c.verdict == verdict)

    def geometric_means(self) -> dict[tuple[str, str], tuple[float, int]]:
        """Per metric and :func:`~rigorbench.units.dimension` (``ns/op`` and ``us/op`` are one:
        a ratio has no unit): the geometric mean of the ratios contender/baseline (the suite's
        overall change, as benchstat's geomean row) and how many it is over."""
        groups: dict[tuple[str, str], list[float]] = {}
        for c in self.comparisons:
            if np.isfinite(c.ratio.estimate) and c.ratio.estimate > 0:
                groups.setdefault((c.metric.name, dimension(c.metric.unit)), []).append(c.ratio.estimate)
        return {key: (float(np.exp(np.mean(np.log(ratios)))), len(ratios)) for key, ratios in groups.items()}

    def fails(self, fail_on: str | Iterable[str]) -> bool:
        """Whether ``--fail-on`` is met. ``regression``: a benchmark got slower, or failed in
        the contender; ``change``: slower or faster, or failed in the contender; ``missing``:
        a benchmark is on one side only. Several conditions: any of them."""
        conditions = parse_fail_on(fail_on) if isinstance(fail_on, str) else set(fail_on)
        verdicts = set()
        if "regression" in conditions:
            verdicts |= {Verdict.SLOWER}
        if "change" in conditions:
            verdicts |= {Verdict.SLOWER, Verdict.FASTER}
        if verdicts and (self.failed_in_contender or any(c.verdict in verdicts for c in self.comparisons)):
            return True
        return "missing" in conditions and bool(self.only_in_baseline or self.only_in_contender)

    def ungated(self, fail_on: str | Iterable[str]) -> str | None:
        """The line that says what ``--fail-on`` lets through unseen: benchmarks only the
        baseline has (renamed or removed in the contender) under ``regression`` or ``change``
        without ``missing``; None when there are none."""
        conditions = parse_fail_on(fail_on) if isinstance(fail_on, str) else set(fail_on)
        gate = next((c for c in ("regression", "change") if c in conditions), None)
        names = list(dict.fromkeys(case.display_name for case, _ in self.only_in_baseline))
        if gate is None or "missing" in conditions or not names:
            return None
        them = "it" if len(names) == 1 else "them"
        listed = names[0] if len(names) == 1 else f"{len(names)} benchmarks ({', '.join(names)})"
        return (f"{listed} {'is' if len(names) == 1 else 'are'} in the baseline only; --fail-on {gate} does not gate "
                f"{them}: use --fail-on {gate},missing")


# The order of every output: regressions first, then improvements, then what is not decided,
# then what did not change.
VERDICT_RANK = {Verdict.SLOWER: 0, Verdict.FASTER: 1, Verdict.INCONCLUSIVE: 2, Verdict.UNCHANGED: 3}


def ordered(comparisons) -> list[Comparison]:
    """Comparisons in :data:`VERDICT_RANK` order (stable within a verdict)."""
    return sorted(comparisons, key=lambda c: VERDICT_RANK[c.verdict])


def compare_datasets(
    baseline: Dataset, contender: Dataset, settings: Settings, progress: Callable[[int, int], None] | None = None,
    jobs: int | None = None,
) -> ComparisonResult:
    """Compare every (case, metric) both sides have; list the ones only one side has.
    ``progress(done, total)`` is called after each of them. ``jobs``: processes to compare
    on (default: every CPU for many series, see ``rigorbench.parallel``); the results are the
    same for any number.

    Sides that do not measure the same thing (analysis/comparability.py) are refused, or
    with ``settings.allow_mismatch`` compared with the mismatches in the result; a run on
    both sides is refused (analysis/duplicates.py)."""
    refuse_shared(baseline.fingerprints, contender.fingerprints)
    contender_series, mismatches = _matched(baseline, contender, settings)
    base_keys = [k for k in baseline.series if settings.wants_metric(k[1])]
    cont_keys = [k for k in contender_series if settings.wants_metric(k[1])]
    common = [k for k in base_keys if k in contender_series]
    pairing = settings.paired if settings.paired is not None else (
        "auto" if baseline.matched and baseline.matched == contender.matched else False)
    work = [(case, metric, baseline.series[(case, metric)], contender_series[(case, metric)], settings, pairing)
            for case, metric in common]
    drafts = []
    for done, draft in enumerate(parallel.ordered_map(_compare_one, work, parallel.workers_for(len(work), jobs)), 1):
        drafts.append(draft)
        if progress is not None:
            progress(done, len(common))
    drafts = [d for d in drafts if d is not None]
    comparisons = _decide_all(drafts, settings)
    return ComparisonResult(baseline_label=baseline.label, contender_label=contender.label,
                            settings=settings, comparisons=tuple(comparisons),
                            only_in_baseline=tuple(k for k in base_keys if k not in contender_series),
                            only_in_contender=tuple(k for k in cont_keys if k not in baseline.series),
                            sources={"baseline": baseline.sources, "contender": contender.sources},
                            input_warnings=baseline.warnings + contender.warnings,
                            mismatches=tuple(mismatches), failed_in_baseline=baseline.failures,
                            failed_in_contender=contender.failures)


def _matched(baseline: Dataset, contender: Dataset, settings: Settings):
    """The contender's series in the baseline's terms, and what does not match (refused
    unless the user allows it)."""
    series, mismatches = to_baseline_units(baseline.series, contender.series)
    mismatches += param_mismatches(baseline.cases, contender.cases)
    if baseline.origin == contender.origin == "files":
        mismatches += setting_mismatches(_merged(baseline.environments), _merged(contender.environments))
    if mismatches and not settings.allow_mismatch:
        more = f" (and {len(mismatches) - 1} more)" if len(mismatches) > 1 else ""
        kind = {"mode": "benchmark modes", "params": "parameters", "setting": "run settings"}[mismatches[0].kind]
        raise UserError(
            f"the sides do not measure the same thing: {kind} differ: {mismatches[0].message}{more}; "
            "compare anyway with --allow-mismatch"
        )
    return series, mismatches


def _merged(environments) -> dict[str, str]:
    """One side's settings over its files (they agree: dataset.check_side saw to it)."""
    merged: dict[str, str] = {}
    for environment in environments:
        for key, value in environment.items():
            merged[key] = value if key not in merged or value == merged[key] else f"{merged[key]} | {value}"
    return merged


def series_seed(seed: int, case: BenchmarkCase, metric: Metric) -> int:
    """A seed per series, stable across runs and input order, so results are reproducible."""
    key = f"{case.harness}\0{case.display_name}\0{metric.name}".encode()
    return (seed * 1_000_003 + zlib.crc32(key)) % (2**63)


def _compare_one(work: tuple) -> Comparison | None:
    """One (case, metric) from ``(case, metric, baseline table, contender table, settings,
    pairing)``; ``pairing``: True (required), "auto" (when the trials match) or False."""
    case, metric, base_table, cont_table, settings, pairing = work
    notes: list[Diagnostic] = []
    if settings.steady_only:
        base_table, base_notes = select_steady(base_table, steady_report(base_table, metric.unit), "baseline")
        cont_table, cont_notes = select_steady(cont_table, steady_report(cont_table, metric.unit), "contender")
        notes = [*base_notes, *cont_notes]
    base = iteration_observations(base_table, outlier_factor=settings.outlier_factor)
    cont = iteration_observations(cont_table, outlier_factor=settings.outlier_factor)
    if len(base.values) == 0 or len(cont.values) == 0:
        return None
    seed = series_seed(settings.seed, case, metric)
    options = dict(statistic=settings.statistic, confidence=settings.confidence, resamples=settings.resamples,
                   seed=seed, interval=settings.interval)
    unmatched = _unmatched(base, cont) if pairing else None
    if pairing is True and unmatched:
        raise UserError(f"{case.display_name}: --paired needs two or more matched trials, but {unmatched}; "
                        "give both sides' files in trial order, or compare without --paired")
    if pairing and not unmatched:
        ratio = bootstrap_paired_ratio(base.values, base.levels, cont.values, cont.levels, matched=2, **options)
        if pairing == "auto":   # matched trials of a stored run: paired unless that is wider
            ratio = narrower_of_paired_and_unpaired(ratio, seed)
    else:
        ratio = bootstrap_ratio(base.values, base.levels, cont.values, cont.levels, **options)
        if pairing and unmatched != _SINGLE_TRIAL:
            notes.append(Diagnostic("unpaired", f"trials not matched ({unmatched}): the versions were resampled "
                                    "independently, so the interval is wider than a paired one", "info"))
    test = mann_whitney_u(base.values, cont.values)
    delta = cliffs_delta(base.values, cont.values)
    baseline = _side_summary(base, ratio.baseline_distribution, ratio.baseline_units, settings)
    contender = _side_summary(cont, ratio.contender_distribution, ratio.contender_units, settings)
    warnings = _warnings({"baseline": (base, baseline), "contender": (cont, contender)}, ratio.estimate,
                         words(case.harness))
    return Comparison(case=case, metric=metric, baseline=baseline, contender=contender, ratio=ratio.interval,
                      p_value=test.p_value, cliffs_delta=delta, effect_size=effect_magnitude(delta),
                      verdict=Verdict.INCONCLUSIVE, warnings=tuple(notes + warnings),
                      distribution=ratio.distribution, paired=ratio.paired,
                      detectable=detectable_change(ratio.interval, settings.threshold))


_SINGLE_TRIAL = "each side has one trial"


def _unmatched(base: Observations, cont: Observations) -> str | None:
    """Why the two sides' trials cannot be paired, or None when every (instance, trial)
    of each side holds the other version too and there are at least two of them."""
    def units(obs: Observations) -> set[tuple[int, int]]:
        return set(zip(obs.levels[0].tolist(), obs.levels[1].tolist()))

    b, c = units(base), units(cont)
    if b != c:
        only_b, only_c = len(b - c), len(c - b)
        return (f"the baseline has {len(b)} trials and the contender {len(c)}, "
                f"{only_b + only_c} of them on one side only")
    return _SINGLE_TRIAL if len(b) < 2 else None


def detectable_change(ratio: ConfidenceInterval, threshold: float) -> float | None:
    """The smallest change (a fraction) an interval as wide as ``ratio``'s could have called.

    A verdict needs the interval to exclude 1 and the estimate to be at least ``threshold``
    away. An interval ``[e / l, e x h]`` around an estimate ``e`` (``l``, ``h``: its
    multiplicative distances) excludes 1 once ``e > l`` or ``e < 1 / h``; so, measured with
    this spread, a change of ``max(l, h, 1 + threshold) - 1`` is where the interval just
    clears 1 -- a change that size is decided about half the time, a larger one more often
    (``rigorbench power`` gives the size decided 95% of the time). None when the interval
    touches zero or is not finite.
    """
    e, low, high = ratio.estimate, ratio.low, ratio.high
    if not all(np.isfinite((e, low, high))) or min(e, low, high) <= 0:
        return None
    return max(e / low, high / e, 1.0 + threshold) - 1.0


def _side_summary(obs: Observations, distribution, units: int, settings: Settings) -> SideSummary:
    """One side's figures; its CI comes from the resamples the ratio was formed from."""
    summary = summarize(obs.values)
    trials = len({(i, t) for i, t in zip(obs.levels[0], obs.levels[1])})
    forks = len(set(zip(obs.levels[0], obs.levels[1], obs.levels[2])))
    estimate = summary.mean if settings.statistic == "mean" else summary.median
    low, high = interval_of(distribution, estimate, settings.confidence, units=units, interval=settings.interval)
    ci = ConfidenceInterval(estimate, low, high, settings.confidence)
    instances = len(set(obs.levels[0].tolist()))
    return SideSummary(summary.n, summary.mean, summary.median, ci, summary.cv, forks, trials, instances)


def _warnings(sides: dict[str, tuple[Observations, SideSummary]], ratio: float, said: Words) -> list[Diagnostic]:
    """Each side's warnings; hints in the harness's words (``said``)."""
    found = []
    for side, (obs, summary) in sides.items():
        removed = outliers_removed(obs, side)
        if removed:
            found.append(removed)
        if len(obs.values) < _FEW_VALUES:
            found.append(Diagnostic(
                "few_samples", f"{side}: only {len(obs.values)} measurement values", "warning",
                f"{said.more_iterations}, {said.more_forks}, or run more trials before trusting a verdict"))
        if summary.forks == 1:
            found.append(Diagnostic(
                "single_fork", f"{side}: all values come from one fork", "warning",
                f"run-to-run variance is not captured: {said.more_forks}, at least 2, or several trials"))
        elif summary.trials == 1:
            found.append(Diagnostic(
                "single_trial",
                f"{side}: all values come from one trial: its CI rests on the trial's forks and "
                "misses the variation between runs of the machine",
                "warning",
                "run several trials (e.g. 'rigorbench ab --trials 5', or one result file per trial with "
                "--baseline/--contender)",
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
        ruled = rule.decide(evidence, draft.metric.higher_is_better)
        verdict = _below_floor(draft, ruled)
        warnings = [w for w in draft.warnings if not (verdict == Verdict.UNCHANGED and w.code == "undefined_ratio")]
        warnings += _caveats(draft, verdict, settings)
        floor = f"{ABSOLUTE_FLOOR.get(draft.metric.unit, 0):g} {draft.metric.unit}" if verdict != ruled else None
        warnings += [note] if (note := p_disagreement(float(p_value), verdict, settings, floor)) else []
        decided.append(replace(draft, p_value=float(p_value), verdict=verdict, warnings=tuple(warnings)))
    return decided


def _below_floor(c: Comparison, verdict: Verdict) -> Verdict:
    """Zero on both sides is unchanged; a difference below the metric's absolute floor is not
    a change (unchanged when even the CIs' extremes are closer, else not decided)."""
    base, cont = c.baseline.ci, c.contender.ci
    if c.baseline.mean == 0 == c.contender.mean and c.baseline.median == 0 == c.contender.median:
        return Verdict.UNCHANGED
    floor = ABSOLUTE_FLOOR.get(c.metric.unit)
    if floor is None or verdict == Verdict.UNCHANGED:
        return verdict
    if max(abs(cont.high - base.low), abs(base.high - cont.low)) < floor:
        return Verdict.UNCHANGED
    if abs(cont.estimate - base.estimate) < floor:
        return Verdict.INCONCLUSIVE
    return verdict


def top_units(side: SideSummary) -> tuple[int, str]:
    """The units the bootstrap resamples first: the trials, or the forks of one trial."""
    return (side.trials, "trials") if side.trials > 1 else (side.forks, "forks")


def _caveats(c: Comparison, verdict: Verdict, settings: Settings) -> list[Diagnostic]:
    (n_base, what), (n_cont, _) = top_units(c.baseline), top_units(c.contender)
    fewest = min(n_base, n_cont)
    # "unchanged" rests on the interval under the bootstrap rule; under the rank rule it is
    # only "no evidence of a change".
    decided = {Verdict.SLOWER, Verdict.FASTER} | ({Verdict.UNCHANGED} if settings.test == "bootstrap" else set())
    if verdict in decided and fewest < MIN_EXPANDED_UNITS:
        return [Diagnostic(
            "few_units",
            f"{verdict.value} from {n_base} {what} of the baseline and {n_cont} of the contender: no confidence "
            f"interval from {fewest} {'unit' if fewest == 1 else 'units'} is trustworthy (the small-sample correction "
            "would make it several times wider than the data; Hesterberg 2015), so this verdict is a guess",
            "warning",
            f"run at least {MIN_EXPANDED_UNITS} trials per version ({FEW_UNITS} or more for a 99% interval that "
            "holds in the trial-dominated case), e.g. 'rigorbench ab --trials 5'",
        )]
    if settings.interval != "percentile" or verdict not in (Verdict.SLOWER, Verdict.FASTER) or fewest >= FEW_UNITS:
        return []
    return [Diagnostic(
        "few_units",
        f"{verdict.value} from {n_base} {what} of the baseline and {n_cont} of the contender: with fewer than "
        f"{FEW_UNITS} the percentile interval is too narrow (Hesterberg 2015) and an A/A comparison can come out "
        f"{verdict.value} too",
        "warning",
        f"use the default --interval expanded, run at least {FEW_UNITS} trials per version, or measure this "
        "design's false-positive rate with 'rigorbench power'",
    )]
