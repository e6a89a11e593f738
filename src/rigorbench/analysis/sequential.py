"""Decide benchmarks as an adaptive experiment goes: which are decided after this trial, which stay open.

``ab --until-decided`` looks at every benchmark after each trial from ``min_trials`` on
(every version run once per trial, in RMIT order as always). A benchmark whose verdict is
``slower``, ``faster`` or ``unchanged`` at the sequential level is *retired*: later trials do
not run it. The experiment ends when every benchmark is retired, or at ``max_trials``, or
when the next trial would pass ``max_seconds``.

The level: every look uses the same nominal confidence, Pocock's for the planned looks
``min_trials..max_trials`` at the user's overall ``--confidence``
(:mod:`rigorbench.stats.sequential`), so the chance of any false ``slower``/``faster`` over all
looks stays at the fixed design's ``1 - confidence``. ``compare`` of the stored run at that
level gives the verdicts the experiment stopped on: a retired benchmark's data ends at the
trial it was decided in.

A benchmark is decided when every one of its cases (``@Param`` combinations) is, on its
primary metric, with at least :data:`MIN_EXPANDED_UNITS` trials per version (below that no
interval is trustworthy). Only the bootstrap rule decides ``unchanged`` from evidence, so
only it can drive the experiment.

Futility (``--futility P``, default 10%): a case that is still open but whose chance of any
verdict by ``max_trials`` is below ``P`` (the conditional power under the current trend,
:func:`rigorbench.stats.sequential.chance_of_verdict`), from :data:`FUTILITY_FROM` trials on, is
*given up*: it counts as
``inconclusive``, and a benchmark whose cases are all decided or given up is retired then
rather than run until the budget. A change sitting on the threshold, or a benchmark too noisy
for the threshold, stops costing trials. Giving up only removes verdicts, so it cannot add a
false ``slower`` or ``faster``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Mapping

from rigorbench.analysis.compare import ComparisonResult, top_units
from rigorbench.analysis.settings import Settings
from rigorbench.errors import UserError
from rigorbench.experiment.options import DEFAULT_FUTILITY, DEFAULT_MAX_TRIALS, DEFAULT_MIN_TRIALS
from rigorbench.stats import Verdict
from rigorbench.stats.bootstrap import MIN_EXPANDED_UNITS, ConfidenceInterval
from rigorbench.stats.sequential import chance_of_verdict, looks_between, per_look_confidence

DECIDED = (Verdict.SLOWER, Verdict.FASTER, Verdict.UNCHANGED)
# Giving up on a case with a 1-in-2 chance of a verdict would be guessing, not curtailing.
MAX_FUTILITY = 0.5
# No case is given up before this many trials. With 3 trials the chance rests on a variance of
# 4 degrees of freedom, which one odd trial can triple: on the example, sumCsv (+31% after 10
# trials, "slower") had its 3-trial interval blown to [-65%, +313%] by one trial whose forks
# mostly ran in sumCsv's fast mode, and was given up at 5% chance; one trial later its chance
# was 27%.
FUTILITY_FROM = 4


@dataclass(frozen=True)
class Retirement:
    """A benchmark decided at a look: its verdict and the trials it took."""

    verdict: str          # a Verdict value; "mixed" when its cases differ (say, one slower, one unchanged);
                          # "failed" when no case has a comparison (it measured nothing in a version);
                          # "inconclusive" when every case was given up (see futility above)
    trials: int
    chance: float | None = None   # given up: the largest chance of a verdict by max_trials among its cases


@dataclass(frozen=True)
class SequentialDesign:
    """The stopping rule of an adaptive experiment, as stored with the run."""

    min_trials: int = DEFAULT_MIN_TRIALS
    max_trials: int = DEFAULT_MAX_TRIALS
    max_seconds: float | None = None
    analysis: Settings = Settings()    # the user's; its confidence is the overall level
    retired: Mapping[str, Retirement] = field(default_factory=dict)
    benchmarks: Mapping[str, int] = field(default_factory=dict)   # run: name -> its cases
    futility: float = DEFAULT_FUTILITY  # give a case up when its chance of a verdict by max_trials is below this (0: never)

    def __post_init__(self) -> None:
        if self.min_trials < MIN_EXPANDED_UNITS:
            raise UserError(f"--min-trials must be at least {MIN_EXPANDED_UNITS}: no interval from fewer trials is trustworthy")
        if self.max_trials < self.min_trials:
            raise UserError(f"--max-trials ({self.max_trials}) must be at least --min-trials ({self.min_trials})")
        if self.max_seconds is not None and self.max_seconds <= 0:
            raise UserError("--max-time must be positive")
        if not 0 <= self.futility <= MAX_FUTILITY:
            raise UserError(f"--futility must lie between 0% and {MAX_FUTILITY:.0%}, got {self.futility:.0%}")
        check_settings(self.analysis)

    @property
    def confidence(self) -> float:
        return self.analysis.confidence

    @property
    def looks(self) -> tuple[int, ...]:
        return looks_between(self.min_trials, self.max_trials)

    @property
    def per_look(self) -> float:
        """The confidence every look decides at (Pocock's nominal level)."""
        return per_look_confidence(self.confidence, self.looks)

    @property
    def look_settings(self) -> Settings:
        """The analysis settings of every look, and of the final comparison: the per-look
        level, with the ``t`` interval (stats/bootstrap.py: the percentile interval cannot
        reach 99.8% with few trials and lets through about three times the false verdicts)."""
        return replace(self.analysis, confidence=self.per_look, interval="t")

    def describe(self) -> str:
        budget = f", at most {self.max_seconds:g} s" if self.max_seconds else ""
        futility = (f"; a benchmark is given up when its chance of a verdict by trial {self.max_trials} falls below "
                    f"{self.futility:.0%}" if self.futility else "")
        return (f"until decided: {self.min_trials} to {self.max_trials} trials{budget}; each look at "
                f"{self.per_look * 100:.2f}% confidence (Pocock's boundary for {self.confidence * 100:g}% over "
                f"{len(self.looks)} looks){futility}")

    def as_dict(self) -> dict:
        return {
            "min_trials": self.min_trials, "max_trials": self.max_trials, "max_seconds": self.max_seconds,
            "confidence_per_look": self.per_look, "analysis": asdict(self.analysis), "futility": self.futility,
            "retired": {name: {"verdict": r.verdict, "trials": r.trials, **({"chance": r.chance} if r.chance is not None else {})}
                        for name, r in sorted(self.retired.items())},
            "benchmarks": dict(self.benchmarks),
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> "SequentialDesign":
        retired = {name: Retirement(str(r["verdict"]), int(r["trials"]), r.get("chance"))
                   for name, r in (data.get("retired") or {}).items()}
        # runs stored before futility existed never gave up: they resume without it
        return cls(int(data["min_trials"]), int(data["max_trials"]), data.get("max_seconds"),
                   Settings(**data.get("analysis", {})), retired,
                   {str(k): int(v) for k, v in (data.get("benchmarks") or {}).items()}, float(data.get("futility", 0.0)))


def check_settings(settings: Settings) -> None:
    """Only the bootstrap rule decides ``unchanged`` from evidence; the rank rule cannot retire."""
    if settings.test != "bootstrap":
        raise UserError("--until-decided needs the bootstrap rule (--test bootstrap): the rank rule's "
                        "'unchanged' only means no evidence of a change, so it cannot stop a benchmark")


def listed_name(case_name: str, listed) -> str | None:
    """The benchmark of ``listed`` (names as the harness lists them) that a result's case
    belongs to: the same name, or a sub-benchmark of it (Go's ``BenchmarkJoin/concat`` runs
    under ``BenchmarkJoin``); None when none does."""
    if case_name in listed:
        return case_name
    parts = case_name.split("/")
    return next((prefix for i in range(len(parts) - 1, 0, -1) if (prefix := "/".join(parts[:i])) in listed), None)


def look(result: ComparisonResult, open_benchmarks: tuple[str, ...], trials: int,
         design: SequentialDesign | None = None) -> dict[str, Retirement]:
    """The benchmarks of ``open_benchmarks`` decided by ``result`` (compared at the look's
    level on ``trials`` complete trials), with their verdicts.

    A benchmark without any comparison has measured nothing in a version in all ``trials``
    (it fails there): it is retired as ``failed`` rather than run again until the budget.
    With a ``design`` whose futility is set, a case still open with too small a chance of a
    verdict by its ``max_trials`` is given up (``inconclusive``), see the module docstring.
    """
    verdicts: dict[str, list[str]] = {name: [] for name in open_benchmarks}
    chances: dict[str, list[float]] = {name: [] for name in open_benchmarks}
    undecided: set[str] = set()
    for c in result.comparisons:
        name = listed_name(c.case.name, verdicts)
        if name is None or not c.metric.primary:
            continue
        units = min(top_units(c.baseline)[0], top_units(c.contender)[0])
        if c.verdict in DECIDED and c.verdict_supported and units >= MIN_EXPANDED_UNITS:
            verdicts[name].append(c.verdict.value)
        elif (chance := _hopeless(c, units, trials, design)) is not None:
            verdicts[name].append(Verdict.INCONCLUSIVE.value)
            chances[name].append(chance)
        else:
            undecided.add(name)
    decided = {}
    for name, found in verdicts.items():
        if found and name not in undecided:
            chance = max(chances[name]) if chances[name] else None
            decided[name] = Retirement(found[0] if len(set(found)) == 1 else "mixed", trials, chance)
        elif not found and name not in undecided:
            decided[name] = Retirement("failed", trials)
    return decided


def _hopeless(c, units: int, trials: int, design: SequentialDesign | None) -> float | None:
    """:func:`given_up` for one comparison of a look; never on an interval the rule does not
    read (a caveat)."""
    if design is None or not c.verdict_supported:
        return None
    return given_up(c.ratio, trials=units, max_trials=units + design.max_trials - trials,
                    threshold=design.analysis.threshold, futility=design.futility)


def given_up(interval: ConfidenceInterval, *, trials: int, max_trials: int, threshold: float, futility: float) -> float | None:
    """The chance of a verdict by ``max_trials`` of a comparison still open after ``trials``
    (its look's ``t`` interval), when it is below ``futility`` (the comparison is given up),
    else None. Never at the last look (the budget ends the run then) and never before
    :data:`FUTILITY_FROM` trials."""
    if not futility or trials < FUTILITY_FROM or trials >= max_trials:
        return None
    chance = chance_of_verdict(interval.estimate, interval.low, interval.high, confidence=interval.confidence,
                               trials=trials, max_trials=max_trials, threshold=threshold)
    return chance if chance < futility else None


def stored_decision(settings: Settings, stored: Mapping | None, level_chosen: bool) -> tuple[Settings, Mapping | None]:
    """The settings a stored run is compared with and the adaptive design its verdicts then
    report: a run of --until-decided (``stored``: its ``until_decided`` settings) is read at
    the level and by the interval its looks decided with, unless the caller chose a level or
    interval (``level_chosen``): then the run's sequential verdicts do not apply."""
    if stored is None or level_chosen:
        return settings, None
    design = SequentialDesign.from_dict(stored)
    return replace(settings, confidence=design.per_look, interval="t"), stored
