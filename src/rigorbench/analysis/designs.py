"""Which design reaches a target detectable change, measured on the user's own run (issue 33).

``rigorbench power --store DB --version A --contender B``: from a stored run of two versions,
each benchmark is compared as ``compare`` does, read both ways -- ``rmit unpaired`` (each
version's trials resampled on their own) and ``rmit paired`` (trial k of one version with trial
k of the other, so the machine's drift between trials cancels) -- and, when the store also
holds a ``--design duet`` run of the same two versions, ``duet`` (paired). For each reading:

* the change it could call now (``detects``: analysis/compare.py ``detectable_change``, the
  figure of compare's ``detects`` column), and
* the trials it needs for ``--target`` to be called in 95% of experiments, projected from the
  interval measured now by ``stats/power.py``'s ``units_for_target`` (what ``power --target``
  extrapolates with): the standard error shrinks as one over the square root of the trials,
  the expanded interval's factor with its degrees of freedom (``n - 1`` pairs when paired,
  two versions of ``n`` trials unpaired), and the target must clear the threshold by the half
  width plus 1.645 standard errors.

The projection assumes the variance per trial stays what this run measured (the same machine,
the same load); it is the normal-theory version of what ``power``'s simulations measure. Each
design's cost is its trials times the seconds one of its trials took in its stored run (a
duet trial's own measured time, not an assumption about it); the design recommended is the one
whose trials for every benchmark cost the least machine time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from rigorbench.analysis.compare import Comparison, compare_datasets, ordered
from rigorbench.analysis.dataset import Dataset
from rigorbench.analysis.settings import Settings
from rigorbench.stats.bootstrap import MIN_EXPANDED_UNITS
from rigorbench.stats.power import units_for_target

UNPAIRED, PAIRED, DUET = "rmit unpaired", "rmit paired", "duet"
MAX_TRIALS = 500          # beyond this the projection says "more than 500"


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


def _figure(c: Comparison, design: str, target: float, settings: Settings) -> DesignFigure:
    """The change ``c`` could call now and the trials ``target`` needs (at least 3, the fewest
    an expanded interval is trusted from; None beyond :data:`MAX_TRIALS`)."""
    trials = min(c.baseline.trials, c.contender.trials)
    e, low, high = c.ratio.estimate, c.ratio.low, c.ratio.high
    half = (high - low) / 2 / e if all(math.isfinite(v) and v > 0 for v in (e, low, high)) else math.nan
    needed = units_for_target(half, trials, target, settings.threshold, settings.confidence,
                              expanded=settings.interval != "percentile", paired=design != UNPAIRED)
    return DesignFigure(design, trials, c.detectable,
                        None if needed is None or needed > MAX_TRIALS else max(MIN_EXPANDED_UNITS, needed))


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
