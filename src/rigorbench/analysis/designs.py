"""Which design reaches a target detectable change, measured on the user's own run (issue 33).

``rigorbench power --store DB --version A --contender B``: from a stored run of two versions,
each benchmark is compared as ``compare`` does, read both ways -- ``rmit unpaired`` (each
version's trials resampled on their own) and ``rmit paired`` (trial k of one version with trial
k of the other, so the machine's drift between trials cancels) -- and, when the store also
holds a ``--design duet`` run of the same two versions, ``duet`` (paired). For each reading:

* the change it could call now (``detects``: analysis/compare.py ``detectable_change``, the
  figure of compare's ``detects`` column), and
* the trials it needs for ``--target`` to be called in 95% of experiments, projected from the
  interval measured now: the expanded interval's half width (log scale) ``h`` scales with
  ``t(q, df(n)) / sqrt(n)`` -- Student t with the trials' degrees of freedom (``n - 1`` paired,
  ``2n - 2`` unpaired, analysis/compare.py) over the square root of the trials -- and a change
  ``c`` is called in 95% of experiments once ``log(1 + c) >= h(n) (1 + z_0.95 / t(q, df(n)))``
  (the estimate must clear the interval's edge one-sidedly 95% of the time; its standard
  error is ``h / t``).

The projection assumes the variance per trial stays what this run measured (the same machine,
the same load); it is the normal-theory version of what ``power``'s simulations measure. Each
design's cost is its trials times the seconds one of its trials took in the stored run (a duet
trial runs both versions at once, so it takes about half an RMIT trial's time); the design
recommended is the one whose trials for every benchmark cost the least machine time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from scipy import stats as scipy_stats

from rigorbench.analysis.compare import Comparison, compare_datasets, ordered
from rigorbench.analysis.dataset import Dataset
from rigorbench.analysis.settings import Settings

UNPAIRED, PAIRED, DUET = "rmit unpaired", "rmit paired", "duet"
MAX_TRIALS = 500          # beyond this the projection says "more than 500"
_POWER_Z = scipy_stats.norm.ppf(0.95)


@dataclass(frozen=True)
class DesignData:
    """One design's data: the two versions' datasets and the seconds one of its trials took
    (both versions; None when the store did not record it)."""

    design: str
    baseline: Dataset
    contender: Dataset
    trial_seconds: float | None
    run_id: int | None = None


@dataclass(frozen=True)
class DesignFigure:
    design: str
    trials: int                 # trials per version measured
    detects: float | None       # the change callable now (a fraction), compare's mds
    needed: int | None          # trials for the target in 95% of experiments (None: beyond MAX_TRIALS)


@dataclass(frozen=True)
class BenchmarkDesigns:
    comparison: Comparison      # the paired reading of the RMIT run (names, metric, verdict)
    figures: tuple[DesignFigure, ...]


@dataclass(frozen=True)
class DesignAdvice:
    baseline: str
    contender: str
    target: float
    settings: Settings
    designs: tuple[DesignData, ...]
    benchmarks: tuple[BenchmarkDesigns, ...]

    def suite_trials(self, design: str) -> int | None:
        """The trials that give every benchmark ``target`` under ``design`` (None: some
        benchmark needs more than :data:`MAX_TRIALS` or has no figure)."""
        needed = [f.needed for b in self.benchmarks for f in b.figures if f.design == design]
        return max(needed) if needed and None not in needed else None

    def suite_seconds(self, design: str) -> float | None:
        seconds = next((d.trial_seconds for d in self.designs if d.design == design), None)
        trials = self.suite_trials(design)
        return None if seconds is None or trials is None else trials * seconds

    @property
    def recommended(self) -> str | None:
        """The design whose trials for every benchmark take the least machine time (by trials
        when a design's trial time is unknown; paired before unpaired on a tie)."""
        known = [d.design for d in self.designs if self.suite_trials(d.design) is not None]
        if not known:
            return None
        if all(self.suite_seconds(d) is not None for d in known):
            return min(known, key=lambda d: (self.suite_seconds(d), d != PAIRED))
        return min(known, key=lambda d: (self.suite_trials(d), d != PAIRED))


def degrees_of_freedom(design: str, trials: int) -> int:
    """The expanded interval's degrees of freedom: n - 1 pairs when paired, 2n - 2 unpaired."""
    return 2 * trials - 2 if design == UNPAIRED else trials - 1


def _quantile(settings: Settings, design: str, trials: int) -> float:
    q = (1 + settings.confidence) / 2
    if settings.interval == "percentile":     # no small-sample correction: the normal law
        return float(scipy_stats.norm.ppf(q))
    return float(scipy_stats.t.ppf(q, max(1, degrees_of_freedom(design, trials))))


def trials_needed(half_width: float, trials: int, target: float, settings: Settings, design: str) -> int | None:
    """The fewest trials per version (at least 3) for which a change of ``target`` is called
    in 95% of experiments, given the log-scale half width ``half_width`` measured with
    ``trials`` (see the module docstring); None beyond :data:`MAX_TRIALS`."""
    if not math.isfinite(half_width) or half_width <= 0 or trials < 2:
        return None
    goal = math.log1p(target)
    spread = half_width / _quantile(settings, design, trials) * math.sqrt(trials)   # sd of one trial's log ratio
    for n in range(3, MAX_TRIALS + 1):
        quantile = _quantile(settings, design, n)
        if goal >= spread / math.sqrt(n) * (quantile + _POWER_Z) and target > settings.threshold:
            return n
    return None


def _figure(c: Comparison, design: str, target: float, settings: Settings) -> DesignFigure:
    trials = min(c.baseline.trials, c.contender.trials)
    e, low, high = c.ratio.estimate, c.ratio.low, c.ratio.high
    usable = all(math.isfinite(v) and v > 0 for v in (e, low, high))
    half = max(math.log(e / low), math.log(high / e)) if usable else math.nan
    return DesignFigure(design, trials, c.detectable, trials_needed(half, trials, target, settings, design))


def design_advice(designs: list[DesignData], settings: Settings, target: float) -> DesignAdvice:
    """Each benchmark's detectable change and trials for ``target`` under each design of
    ``designs`` (the RMIT run first: its data is read unpaired and paired)."""
    rmit = designs[0]
    readings = {UNPAIRED: compare_datasets(rmit.baseline, rmit.contender, replace(settings, paired=False)),
                PAIRED: compare_datasets(rmit.baseline, rmit.contender, replace(settings, paired=True))}
    for other in designs[1:]:
        readings[other.design] = compare_datasets(other.baseline, other.contender, replace(settings, paired=True))
    keyed = {name: {(c.case, c.metric): c for c in result.comparisons} for name, result in readings.items()}
    benchmarks = []
    for c in ordered(readings[PAIRED].comparisons):
        figures = tuple(_figure(found, name, target, settings) for name, by_key in keyed.items()
                        if (found := by_key.get((c.case, c.metric))) is not None)
        benchmarks.append(BenchmarkDesigns(c, figures))
    rows = (replace(rmit, design=UNPAIRED), replace(rmit, design=PAIRED), *designs[1:])
    return DesignAdvice(rmit.baseline.label, rmit.contender.label, target, settings, rows, tuple(benchmarks))
