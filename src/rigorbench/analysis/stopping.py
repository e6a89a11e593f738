"""When an experiment stops: the stopping rules the experiment driver asks after each look.

A rule is pure: it reads the comparisons of a look and says which benchmarks are still open,
how many trials to add, or why the experiment stops. Every executor works with every rule.

* :class:`FixedTrials`: the planned trials, then stop (the fixed design).
* :class:`ProbeLooks`: one ``bisect`` probe, looked at after doubling trials until it decides.
* :class:`UntilDecided` (``--until-decided``): looks at every benchmark after each look from
  ``min_trials`` on (every version run once per trial, in RMIT order as always). A look adds
  ``step`` trials at once (1 on this machine, one per instance on a cluster), and the looks'
  level accounts for it. A benchmark whose verdict is ``slower``, ``faster`` or ``unchanged``
  at the sequential level is *retired*: later trials do not run it. The experiment ends when
  every benchmark is retired, or at the last look by ``max_trials``, or when the next look
  would pass ``max_seconds``.

The level: every look uses the same nominal confidence, Pocock's for the planned looks
``min_trials, min_trials + step, ... <= max_trials`` at the user's overall ``--confidence``
(:mod:`rigorbench.stats.group_sequential`), so the chance of any false ``slower``/``faster`` over all
looks stays at the fixed design's ``1 - confidence``. ``compare`` of the stored run at that
level gives the verdicts the experiment stopped on: a retired benchmark's data ends at the
look it was decided in.

A benchmark is decided when every one of its cases (``@Param`` combinations) is, on its
primary metric, with at least :data:`MIN_EXPANDED_UNITS` trials per version (below that no
interval is trustworthy). Only the bootstrap rule decides ``unchanged`` from evidence, so
only it can drive the experiment.

Futility (``--futility P``, default 10%): a case that is still open but whose chance of any
verdict by the last look is below ``P`` (the conditional power under the current trend,
:func:`rigorbench.stats.group_sequential.chance_of_verdict`), from :data:`FUTILITY_FROM` trials on, is
*given up*: it counts as ``inconclusive``, and a benchmark whose cases are all decided or given
up is retired then rather than run until the budget. A change sitting on the threshold, or a
benchmark too noisy for the threshold, stops costing trials. Giving up only removes verdicts,
so it cannot add a false ``slower`` or ``faster``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Mapping, Sequence, Union

from rigorbench.analysis.bisect import Decision, Direction, decide_probe
from rigorbench.analysis.bisect import looks as bisect_looks, confidence_per_look
from rigorbench.analysis.compare import ComparisonResult, top_units
from rigorbench.analysis.settings import DEFAULT_FUTILITY, DEFAULT_MAX_TRIALS, DEFAULT_MIN_TRIALS, Settings
from rigorbench.units import format_duration
from rigorbench.errors import UserError
from rigorbench.model import short_name
from rigorbench.stats import Verdict
from rigorbench.stats.bootstrap import MIN_EXPANDED_UNITS, ConfidenceInterval
from rigorbench.stats.group_sequential import chance_of_verdict, looks_between, per_look_confidence

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
class Look:
    """What a rule says after a look: the rule as it stands now (its retirements), the
    benchmarks still open (None: all of them), the trials to add (0: stop) and a line to say."""

    rule: "StoppingRule"
    open: tuple[str, ...] | None
    more_trials: int
    message: str = ""
    stop_reason: str = ""


@dataclass(frozen=True)
class FixedTrials:
    """The fixed design: the planned trials, then stop."""

    trials: int
    needs_comparisons = False

    def open_benchmarks(self) -> tuple[str, ...] | None:
        return None

    def look(self, results: Sequence[ComparisonResult], trials: int, wall_seconds: float = 0.0,
             next_seconds: float = 0.0) -> Look:
        return Look(self, None, 0)

    def comparison_settings(self, settings: Settings) -> Settings:
        return settings

    def as_dict(self) -> dict:
        return {"kind": "fixed", "trials": self.trials}


@dataclass(frozen=True)
class UntilDecided:
    """The stopping rule of an adaptive experiment, as stored with the run."""

    min_trials: int = DEFAULT_MIN_TRIALS
    max_trials: int = DEFAULT_MAX_TRIALS
    max_seconds: float | None = None
    analysis: Settings = Settings()    # the user's; its confidence is the overall level
    retired: Mapping[str, Retirement] = field(default_factory=dict)
    benchmarks: Mapping[str, int] = field(default_factory=dict)   # run: name -> its cases
    futility: float = DEFAULT_FUTILITY  # give a case up when its chance of a verdict by max_trials is below this (0: never)
    step: int = 1                       # trials one look adds (a cluster's instances run one each)

    def __post_init__(self) -> None:
        if self.min_trials < MIN_EXPANDED_UNITS:
            raise UserError(f"--min-trials must be at least {MIN_EXPANDED_UNITS}: no interval from fewer trials is trustworthy")
        if self.max_trials < self.min_trials:
            raise UserError(f"--max-trials ({self.max_trials}) must be at least --min-trials ({self.min_trials})")
        if self.max_seconds is not None and self.max_seconds <= 0:
            raise UserError("--max-time must be positive")
        if self.step < 1:
            raise UserError(f"a look must add at least one trial, got {self.step}")
        if not 0 <= self.futility <= MAX_FUTILITY:
            raise UserError(f"--futility must lie between 0% and {MAX_FUTILITY:.0%}, got {self.futility:.0%}")
        check_settings(self.analysis)

    @property
    def confidence(self) -> float:
        return self.analysis.confidence

    @property
    def looks(self) -> tuple[int, ...]:
        return looks_between(self.min_trials, self.max_trials, self.step)

    @property
    def last(self) -> int:
        """The trials of the last look (``max_trials``, or below it when looks add several)."""
        return self.looks[-1]

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
        step = f" in steps of {self.step}" if self.step > 1 else ""
        return (f"until decided: {self.min_trials} to {self.last} trials{step}{budget}; each look at "
                f"{self.per_look * 100:.2f}% confidence (Pocock's boundary for {self.confidence * 100:g}% over "
                f"{len(self.looks)} looks){futility}")

    needs_comparisons = True

    def open_benchmarks(self) -> tuple[str, ...]:
        return tuple(n for n in self.benchmarks if n not in self.retired)

    def comparison_settings(self, settings: Settings) -> Settings:
        """``settings`` at the looks' level and interval, as the experiment stopped on."""
        return replace(settings, confidence=self.per_look, interval="t")

    def look(self, results: Sequence[ComparisonResult], trials: int, wall_seconds: float = 0.0,
             next_seconds: float = 0.0) -> Look:
        """The look after ``trials`` complete trials, on each contender's comparison with the
        baseline (``results``, of the open benchmarks at :attr:`look_settings`); ``next_seconds``
        is what the next look's trials would take, for ``max_seconds``."""
        names = tuple(self.benchmarks)
        open_names = self.open_benchmarks()
        newly: dict[str, Retirement] = {}
        if trials >= self.min_trials and open_names and results:
            found = [look(result, open_names, trials, self) for result in results]
            # decided only when decided against every contender; verdicts may differ between them
            newly = {name: _both([f[name] for f in found]) for name in found[0] if all(name in f for f in found)}
        rule = replace(self, retired={**self.retired, **newly})
        left = rule.open_benchmarks()
        message = _summary(rule, names, newly, trials)
        reason = rule._stop_reason(left, trials, wall_seconds, next_seconds * sum(self.benchmarks[n] for n in left)
                                   / max(1, sum(self.benchmarks[n] for n in open_names)))
        return Look(rule, left, 0 if reason else self.step, message, reason or "")

    def _stop_reason(self, open_names: tuple[str, ...], trials: int, wall_seconds: float, next_seconds: float) -> str | None:
        """Why the experiment stops after ``trials`` trials, or None to run another look."""
        if not open_names:
            if any(r.verdict == "inconclusive" for r in self.retired.values()):
                return f"every benchmark decided or given up after {trials} trials"
            return f"every benchmark decided after {trials} trials"
        count = len(open_names)
        undecided = f"{count} benchmark{'s' if count != 1 else ''} still undecided"
        if trials + self.step > self.max_trials:
            return f"stopped at --max-trials {self.max_trials}: {undecided}"
        if self.max_seconds is not None and wall_seconds + next_seconds > self.max_seconds:
            return (f"stopped after {format_duration(wall_seconds)}: another look (about {format_duration(next_seconds)}) "
                    f"would pass --max-time {format_duration(self.max_seconds)}; {undecided}")
        return None

    def as_dict(self) -> dict:
        return {
            "kind": "until_decided", "min_trials": self.min_trials, "max_trials": self.max_trials, "max_seconds": self.max_seconds,
            "confidence_per_look": self.per_look, "analysis": asdict(self.analysis), "futility": self.futility,
            "retired": {name: {"verdict": r.verdict, "trials": r.trials, **({"chance": r.chance} if r.chance is not None else {})}
                        for name, r in sorted(self.retired.items())},
            "benchmarks": dict(self.benchmarks), "step": self.step,
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> "UntilDecided":
        retired = {name: Retirement(str(r["verdict"]), int(r["trials"]), r.get("chance"))
                   for name, r in (data.get("retired") or {}).items()}
        # runs stored before futility existed never gave up: they resume without it
        return cls(int(data["min_trials"]), int(data["max_trials"]), data.get("max_seconds"),
                   Settings(**data.get("analysis", {})), retired,
                   {str(k): int(v) for k, v in (data.get("benchmarks") or {}).items()}, float(data.get("futility", 0.0)),
                   int(data.get("step", 1)))


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
         design: UntilDecided | None = None) -> dict[str, Retirement]:
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


def _hopeless(c, units: int, trials: int, design: UntilDecided | None) -> float | None:
    """:func:`given_up` for one comparison of a look; never on an interval the rule does not
    read (a caveat)."""
    if design is None or not c.verdict_supported:
        return None
    return given_up(c.ratio, trials=units, max_trials=units + design.last - trials,
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


@dataclass(frozen=True)
class ProbeLooks:
    """The stopping rule of one bisection probe (good against one commit): looks after
    ``first`` trials, then at twice as many, up to ``most`` (:func:`rigorbench.analysis.bisect.looks`),
    each at the Bonferroni level over those looks; it stops at the first look whose probe
    decision is made (:func:`rigorbench.analysis.bisect.decide_probe`), or at the last. The
    tracked cases (what the premise found changed) and the decision are stored with it, so a
    probe interrupted between looks resumes where it stopped."""

    first: int
    most: int
    analysis: Settings = Settings()      # the user's; its confidence is the probe's overall level
    find: str = "slower"                 # a bisect Direction value
    benchmarks: Mapping[str, int] = field(default_factory=dict)   # run: name -> its cases
    tracked: tuple | None = None         # bisect TrackedKeys the premise found changed; None: this is the premise
    decision: str | None = None          # a bisect Decision value once a look decided (or the last look did not)
    needs_comparisons = True
    step = 1

    @property
    def min_trials(self) -> int:
        return self.first

    @property
    def looks(self) -> tuple[int, ...]:
        return bisect_looks(self.first, self.most)

    @property
    def last(self) -> int:
        return self.looks[-1]

    @property
    def per_look(self) -> float:
        return confidence_per_look(self.analysis.confidence, len(self.looks))

    @property
    def look_settings(self) -> Settings:
        return replace(self.analysis, confidence=self.per_look)

    def open_benchmarks(self) -> None:
        """Every benchmark runs in every trial of a probe (a harness that cannot select
        benchmarks, pyperf, bisects too)."""
        return None

    def comparison_settings(self, settings: Settings) -> Settings:
        return replace(settings, confidence=self.per_look)

    def look(self, results: Sequence[ComparisonResult], trials: int, wall_seconds: float = 0.0,
             next_seconds: float = 0.0) -> Look:
        """The look after ``trials`` complete trials on the commit's comparison with good."""
        later = [n for n in self.looks if n > trials]
        if trials < self.first or not results:
            return Look(self, self.open_benchmarks(), (later[0] - trials) if later else 0)
        keys = None if self.tracked is None else frozenset(_key(k) for k in self.tracked)
        decision, _, keys = decide_probe(results[0], self.analysis.threshold, Direction(self.find), keys)
        tracked = None if keys is None else tuple(sorted(keys))
        rule = replace(self, tracked=tracked, decision=decision.value)
        if decision is not Decision.INCONCLUSIVE or not later:
            return Look(rule, self.open_benchmarks(), 0)
        return Look(replace(rule, decision=None), self.open_benchmarks(), later[0] - trials,
                    f"after trial {trials}: undecided at {self.per_look * 100:.2f}% confidence; on to {later[0]} trials")

    def as_dict(self) -> dict:
        return {"kind": "probe", "first": self.first, "most": self.most, "analysis": asdict(self.analysis), "find": self.find,
                "benchmarks": dict(self.benchmarks), "decision": self.decision,
                "tracked": None if self.tracked is None else [[n, [list(p) for p in params], m] for n, params, m in self.tracked]}

    @classmethod
    def from_dict(cls, data: Mapping) -> "ProbeLooks":
        tracked = data.get("tracked")
        return cls(int(data["first"]), int(data["most"]), Settings(**data.get("analysis", {})), str(data.get("find", "slower")),
                   {str(k): int(v) for k, v in (data.get("benchmarks") or {}).items()},
                   None if tracked is None else tuple(sorted(_key(k) for k in tracked)), data.get("decision"))


def _key(stored) -> tuple:
    """A tracked case key from its stored (JSON) form or as it is: (name, params, metric)."""
    name, params, metric = stored
    return str(name), tuple((str(k), str(v)) for k, v in params), str(metric)


StoppingRule = Union[FixedTrials, UntilDecided, ProbeLooks]


def rule_from_dict(data: Mapping) -> StoppingRule:
    """A stored rule (``as_dict``); a rule stored before kinds existed is an ``UntilDecided``."""
    if data.get("kind") == "fixed":
        return FixedTrials(int(data["trials"]))
    if data.get("kind") == "probe":
        return ProbeLooks.from_dict(data)
    return UntilDecided.from_dict(data)


def _both(found: Sequence[Retirement]) -> Retirement:
    """One benchmark's retirement over several contenders: "mixed" when their verdicts differ."""
    chances = [r.chance for r in found if r.chance is not None]
    verdict = found[0].verdict if len({r.verdict for r in found}) == 1 else "mixed"
    return Retirement(verdict, found[0].trials, max(chances) if chances else None)


def _summary(rule: UntilDecided, names: tuple[str, ...], newly: Mapping[str, Retirement], trials: int) -> str:
    open_count = sum(name not in rule.retired for name in names)
    line = f"after trial {trials}: {open_count} of {len(names)} benchmark{'s' if len(names) != 1 else ''} still open"
    decided = {name: r for name, r in newly.items() if r.verdict != "inconclusive"}
    given_up = {name: r for name, r in newly.items() if r.verdict == "inconclusive"}
    if decided:
        line += "; decided now: " + ", ".join(f"{short_name(name)} {r.verdict}" for name, r in sorted(decided.items()))
    if given_up:
        line += (f"; given up (a verdict by trial {rule.last} is unlikely): "
                 + ", ".join(f"{short_name(name)} ({r.chance:.0%} chance)" for name, r in sorted(given_up.items())))
    return line


def final_settings(setup, settings: Settings, level_chosen: bool = False) -> tuple[Settings, Mapping | None]:
    """The settings a stored run is compared with and the adaptive rule its verdicts then
    report (``setup``: the run's ``RunSetup``): a run of --until-decided is read at the level
    and by the interval its looks decided with, unless the caller chose a level or interval
    (``level_chosen``): then the run's sequential verdicts do not apply (None)."""
    stored = setup.until_decided
    if stored is None or level_chosen:
        return settings, None
    return rule_from_dict(stored).comparison_settings(settings), stored
