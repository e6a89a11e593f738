"""Bisection of a regression over a range of commits: which commit to probe next, what a
probe decided, and what the probes together say.

The stance: a probe is an A/B experiment of one commit against ``--good``; it decides
``slower`` (like ``--bad``), ``not slower`` (like ``--good``) or nothing. The search is
``git bisect``'s, on the first-parent chain good..bad, assuming that once the benchmark got
slower it stays slower: every ``not slower`` commit moves the lower end up, every ``slower``
one the upper end down. A probe that cannot decide is never guessed. A commit that cannot be
tested (it does not build, or lacks the benchmark) is skipped like ``git bisect skip``: the
commit nearest the middle of the remaining range is probed instead. A probe still
``inconclusive`` at its trial budget stops the search: the machine is too noisy for this
threshold and budget, and probing the other commits would spend the same budget on each
for the same answer. Either way the result is then the range of candidates, not a culprit.

Each probe looks at its data several times (after its first trials, then after each batch
added while it is undecided). Every look is a chance of a false verdict, so the looks share
the confidence level: each uses ``1 - (1 - C) / looks`` (Bonferroni over the planned looks),
which keeps a probe's chance of any false verdict at most ``1 - C``.

``--find faster`` bisects an improvement the same way, mirrored: the premise is that bad is
faster than good, a probe decides ``faster``, ``not faster`` or nothing, and the search
looks for the first ``faster`` commit. The search itself only knows that a decision is the
change sought (:data:`FOUND`) or rules it out (:data:`RULED_OUT`).

Everything here is pure: the experiment (``experiment/bisect.py``) runs the probes.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from rigorbench.analysis.compare import Comparison, ComparisonResult, top_units
from rigorbench.analysis.settings import Settings
from rigorbench.stats import Verdict
from rigorbench.stats.bootstrap import MIN_EXPANDED_UNITS


class Decision(str, enum.Enum):
    """What one probe says about its commit."""

    SLOWER = "slower"               # slower than good: the regression is in by this commit
    NOT_SLOWER = "not slower"       # rules out a slowdown of the threshold or more
    FASTER = "faster"               # --find faster: faster than good, the improvement is in
    NOT_FASTER = "not faster"       # --find faster: rules out an improvement of the threshold or more
    INCONCLUSIVE = "inconclusive"   # the budget of trials did not decide
    UNTESTABLE = "untestable"       # the commit could not be built or lacks the benchmark


FOUND = frozenset({Decision.SLOWER, Decision.FASTER})            # the change sought is in by this commit
RULED_OUT = frozenset({Decision.NOT_SLOWER, Decision.NOT_FASTER})  # the change sought is not


class Direction(str, enum.Enum):
    """What a bisection looks for (``--find``): the first slower commit, or the first faster."""

    SLOWER = "slower"
    FASTER = "faster"

    @property
    def found(self) -> Decision:
        """A probe's decision that the change is in."""
        return Decision.SLOWER if self is Direction.SLOWER else Decision.FASTER

    @property
    def ruled_out(self) -> Decision:
        """A probe's decision that rules the change out."""
        return Decision.NOT_SLOWER if self is Direction.SLOWER else Decision.NOT_FASTER

    @property
    def verdict(self) -> Verdict:
        return Verdict.SLOWER if self is Direction.SLOWER else Verdict.FASTER


# -- one probe ----------------------------------------------------------------------------


def case_decision(c: Comparison, threshold: float, find: Direction = Direction.SLOWER) -> Decision:
    """The decision one benchmark case's comparison with good supports.

    ``slower`` is compare's verdict. ``not slower`` is compare's ``unchanged`` or ``faster``,
    or an interval that rules out a slowdown of ``threshold`` or more (its worse end is
    closer to 1), which is all a bisection needs to know. Too few trials or forks for a
    trustworthy interval decide nothing. With ``find`` faster, the mirror: ``faster`` is
    compare's verdict, ``not faster`` its ``unchanged`` or ``slower``, or an interval whose
    better end is closer to 1 than ``threshold``."""
    if min(top_units(c.baseline)[0], top_units(c.contender)[0]) < MIN_EXPANDED_UNITS or not c.verdict_supported:
        return Decision.INCONCLUSIVE
    if c.verdict == find.verdict:
        return find.found
    if c.verdict in (Verdict.UNCHANGED, Verdict.FASTER, Verdict.SLOWER):
        return find.ruled_out
    if find is Direction.SLOWER:
        end = 1 - c.ratio.low if c.metric.higher_is_better else c.ratio.high - 1       # the worse end
    else:
        end = c.ratio.high - 1 if c.metric.higher_is_better else 1 - c.ratio.low       # the better end
    return find.ruled_out if end < threshold else Decision.INCONCLUSIVE


def probe_decision(decisions: Sequence[Decision], find: Direction = Direction.SLOWER) -> Decision:
    """One commit's decision over the tracked cases: slower (faster) when any case is, not
    slower (not faster) when every case is, else undecided."""
    if not decisions:
        return Decision.UNTESTABLE
    if find.found in decisions:
        return find.found
    if all(d == find.ruled_out for d in decisions):
        return find.ruled_out
    return Decision.INCONCLUSIVE


def tracked(result: ComparisonResult, threshold: float, find: Direction = Direction.SLOWER) -> list[Comparison]:
    """The comparisons of the premise (bad vs good) that are slower (faster): what is bisected."""
    return [c for c in result.comparisons if case_decision(c, threshold, find) == find.found]


# A tracked case as it is stored with a probe's stopping rule: (name, params, metric).
TrackedKey = tuple[str, tuple[tuple[str, str], ...], str]


def tracked_key(c: Comparison) -> TrackedKey:
    return c.case.name, c.case.params, c.metric.name


def decide_probe(result: ComparisonResult, threshold: float, find: Direction,
                 tracked_keys: frozenset[TrackedKey] | None) -> tuple[Decision, tuple[tuple[Comparison, Decision], ...], frozenset[TrackedKey] | None]:
    """One look at a probe: its decision over the tracked cases, those cases' comparisons with
    their decisions, and the tracked cases from then on. The premise (``tracked_keys`` None)
    tracks what it finds slower (faster); every later probe is decided on those cases only."""
    found = [(c, case_decision(c, threshold, find)) for c in result.comparisons]
    if tracked_keys is None:
        changed = [(c, d) for c, d in found if d == find.found]
        if changed:
            tracked_keys, found = frozenset(tracked_key(c) for c, _ in changed), changed
    else:
        found = [(c, d) for c, d in found if tracked_key(c) in tracked_keys]
    return probe_decision([d for _, d in found], find), tuple(found), tracked_keys


def looks(first: int, most: int) -> tuple[int, ...]:
    """The trial counts at which a probe is decided: ``first``, then doubling, up to ``most``."""
    counts = [first]
    while counts[-1] < most:
        counts.append(min(most, counts[-1] * 2))
    return tuple(counts)


def confidence_per_look(confidence: float, planned_looks: int) -> float:
    """Bonferroni over the looks: each at ``1 - (1 - confidence) / looks``."""
    return 1 - (1 - confidence) / max(1, planned_looks)


# -- the search ---------------------------------------------------------------------------


def bounds(count: int, decisions: Mapping[int, Decision]) -> tuple[int, int]:
    """``(lo, hi)`` over candidate indices ``0..count-1`` (oldest first): ``lo`` the newest
    commit known not slower (not faster; -1: good itself), ``hi`` the oldest known slower
    (faster) after it (``count - 1``, bad, when none is)."""
    lo = max((i for i, d in decisions.items() if d in RULED_OUT), default=-1)
    hi = min((i for i, d in decisions.items() if d in FOUND and i > lo), default=count - 1)
    return lo, hi


def next_probe(count: int, decisions: Mapping[int, Decision]) -> int | None:
    """The candidate to probe next: the unprobed commit strictly between the ends that is
    nearest their middle (the older one on a tie); None when none is left."""
    lo, hi = bounds(count, decisions)
    middle = (lo + hi) / 2
    open_ = [i for i in range(lo + 1, hi) if i not in decisions]
    return min(open_, key=lambda i: (abs(i - middle), i)) if open_ else None


def candidates(count: int, decisions: Mapping[int, Decision]) -> tuple[int, ...]:
    """Indices that may still be the first slower (faster) commit: ``lo+1..hi``; one is the culprit."""
    lo, hi = bounds(count, decisions)
    return tuple(range(lo + 1, hi + 1))


class Status(str, enum.Enum):
    FOUND = "found"                     # one culprit
    INCONCLUSIVE = "inconclusive"       # a range of candidates remains
    NOT_SLOWER = "not slower"           # the premise failed: bad is not slower than good
    NOT_FASTER = "not faster"           # --find faster: bad is not faster than good
    PREMISE_INCONCLUSIVE = "premise inconclusive"


@dataclass(frozen=True)
class Search:
    """Where a bisection stands: decisions by candidate index, and what they conclude."""

    count: int
    decisions: Mapping[int, Decision]

    @property
    def status(self) -> Status:
        premise = self.decisions.get(self.count - 1)
        if premise in (None, Decision.INCONCLUSIVE, Decision.UNTESTABLE):
            return Status.PREMISE_INCONCLUSIVE
        if premise == Decision.NOT_SLOWER:
            return Status.NOT_SLOWER
        if premise == Decision.NOT_FASTER:
            return Status.NOT_FASTER
        return Status.FOUND if len(candidates(self.count, self.decisions)) == 1 else Status.INCONCLUSIVE

    @property
    def candidates(self) -> tuple[int, ...]:
        return candidates(self.count, self.decisions)


def search(count: int, probe: Callable[[int], Decision]) -> Search:
    """Bisect candidates ``0..count-1`` (the last is bad): first the premise, that bad is
    slower (faster) than good, then probes until one culprit is left, an inconclusive probe stops
    the search, or only untestable commits are left between the ends."""
    if count < 1:
        raise ValueError("nothing to bisect: no commit between good and bad")
    decisions = {count - 1: probe(count - 1)}
    if decisions[count - 1] not in FOUND:
        return Search(count, decisions)
    while (index := next_probe(count, decisions)) is not None:
        decisions[index] = probe(index)
        if decisions[index] == Decision.INCONCLUSIVE:
            break
    return Search(count, decisions)


# -- what a bisection found (the report renders it) ----------------------------------------


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str                    # untrusted text: escaped where printed
    parent: str | None = None       # the first parent

    @property
    def short(self) -> str:
        return self.sha[:12]


@dataclass(frozen=True)
class Probe:
    """One commit's A/B against good: its decision, the tracked cases' comparisons, the
    trials it took and the stored run that holds them."""

    index: int                      # into Bisection.commits
    decision: Decision
    comparisons: tuple[tuple[Comparison, Decision], ...] = ()
    trials: int = 0
    run_id: int | None = None
    confidence: float = 0.99        # of the look that decided (or the last one)
    seconds: float = 0.0
    reason: str = ""                # why a commit is untestable


@dataclass(frozen=True)
class Bisection:
    good: Commit
    commits: tuple[Commit, ...]     # good..bad on the first-parent chain, oldest first; the last is bad
    probes: tuple[Probe, ...]       # in the order run; the first is the premise (bad against good)
    settings: Settings
    looks: tuple[int, ...]          # trial counts at which each probe is decided
    store: str
    find: Direction = Direction.SLOWER   # the first slower commit, or (--find faster) the first faster

    @property
    def search(self) -> Search:
        return Search(len(self.commits), {p.index: p.decision for p in self.probes})

    @property
    def culprit(self) -> Commit | None:
        found = self.search
        return self.commits[found.candidates[0]] if found.status == Status.FOUND else None

    def parent_of(self, index: int) -> Commit:
        return self.commits[index - 1] if index > 0 else self.good
