"""The bisection's search: which commit is probed next, and what the probes conclude."""

from __future__ import annotations

import pytest

from rigorbench.analysis.bisect import (
    Decision, Direction, Status, bounds, case_decision, confidence_per_look, looks, next_probe, probe_decision, search, tracked,
)
from rigorbench.analysis.compare import Comparison, ComparisonResult, SideSummary
from rigorbench.analysis.settings import Settings
from rigorbench.model import BenchmarkCase, Metric
from rigorbench.stats import ConfidenceInterval, Verdict

SLOWER, NOT_SLOWER, INCONCLUSIVE, UNTESTABLE = Decision.SLOWER, Decision.NOT_SLOWER, Decision.INCONCLUSIVE, Decision.UNTESTABLE
FASTER, NOT_FASTER = Decision.FASTER, Decision.NOT_FASTER


def step(culprit: int, undecided=()):
    """A probe of a repository whose first slower commit is ``culprit``; the commits in
    ``undecided`` never decide. Records the probed indices."""
    probed = []

    def probe(index: int) -> Decision:
        probed.append(index)
        if index in undecided:
            return INCONCLUSIVE
        return SLOWER if index >= culprit else NOT_SLOWER

    return probe, probed


@pytest.mark.parametrize("culprit", range(16))
def test_every_position_of_the_culprit_among_16_commits_is_found_in_at_most_5_probes(culprit):
    probe, probed = step(culprit)
    result = search(16, probe)
    assert result.status == Status.FOUND
    assert result.candidates == (culprit,)
    assert probed[0] == 15                      # the premise first: bad against good
    assert len(probed) <= 1 + 4 and len(set(probed)) == len(probed)


def test_the_probes_halve_the_range():
    probe, probed = step(11)
    search(16, probe)
    # premise, then the middles of (-1, 15), (7, 15), (7, 11), (9, 11)
    assert probed == [15, 7, 11, 9, 10]


def test_an_inconclusive_probe_stops_the_search_and_leaves_the_range_not_a_guess():
    probe, probed = step(11, undecided={9})
    result = search(16, probe)
    # premise, 7 (not slower), 11 (slower), 9 (undecided): stop; 8..11 are the candidates
    assert probed == [15, 7, 11, 9]
    assert result.status == Status.INCONCLUSIVE
    assert result.candidates == (8, 9, 10, 11)
    assert result.decisions[9] == INCONCLUSIVE


@pytest.mark.parametrize("culprit", [0, 5, 11, 15])
def test_an_inconclusive_probe_anywhere_leaves_a_range_holding_the_culprit(culprit):
    for undecided in range(15):
        probe, probed = step(culprit, undecided={undecided})
        result = search(16, probe)
        assert culprit in result.candidates
        assert result.status == (Status.FOUND if len(result.candidates) == 1 else Status.INCONCLUSIVE)
        assert result.status == Status.FOUND or probed[-1] == undecided


def test_untestable_commits_next_to_the_culprit_leave_a_range_not_a_guess():
    probe, probed = step(11)
    def broken(index):
        return UNTESTABLE if index in (9, 10) else probe(index)
    result = search(16, broken)
    assert result.status == Status.INCONCLUSIVE
    # 8 is not slower and 11 is slower; 9 and 10 could not be built: one of 9, 10, 11.
    assert result.candidates == (9, 10, 11)


def test_an_untestable_commit_is_skipped_and_its_neighbour_probed():
    probe, probed = step(3)
    def broken(index):
        return UNTESTABLE if index == 7 else probe(index)
    result = search(16, broken)
    assert result.status == Status.FOUND and result.candidates == (3,)


def test_premise_not_slower_stops_after_one_probe():
    probe, probed = step(99)   # nothing is slower
    result = search(16, probe)
    assert result.status == Status.NOT_SLOWER and probed == [15]


def test_premise_inconclusive_stops_after_one_probe():
    probe, probed = step(3, undecided={15})
    result = search(16, probe)
    assert result.status == Status.PREMISE_INCONCLUSIVE and probed == [15]


def test_a_single_commit_is_its_own_culprit_once_the_premise_holds():
    probe, probed = step(0)
    assert search(1, probe).candidates == (0,) and probed == [0]
    with pytest.raises(ValueError):
        search(0, probe)


def test_bounds_and_next_probe():
    assert bounds(16, {15: SLOWER}) == (-1, 15)
    assert next_probe(16, {15: SLOWER}) == 7
    assert next_probe(16, {15: SLOWER, 7: NOT_SLOWER, 11: SLOWER, 9: NOT_SLOWER, 10: NOT_SLOWER}) is None
    # every commit between the ends undecided: nothing left to probe
    assert next_probe(4, {3: SLOWER, 0: INCONCLUSIVE, 1: INCONCLUSIVE, 2: UNTESTABLE}) is None


def test_looks_double_up_to_the_budget_and_share_the_confidence():
    assert looks(3, 3) == (3,)
    assert looks(3, 10) == (3, 6, 10)
    assert looks(2, 16) == (2, 4, 8, 16)
    assert confidence_per_look(0.99, 3) == pytest.approx(1 - 0.01 / 3)
    assert confidence_per_look(0.99, 1) == pytest.approx(0.99)


TIME = Metric("time", "ns/op", False, True)
THRPT = Metric("thrpt", "ops/ms", True, True)


def comparison(verdict: Verdict, low: float, high: float, metric: Metric = TIME, trials: int = 3, warnings=()) -> Comparison:
    side = SideSummary(30, 1.0, 1.0, ConfidenceInterval(1.0, 0.9, 1.1, 0.99), 0.01, trials, trials)
    return Comparison(BenchmarkCase("jmh", "a.B.c"), metric, side, side,
                      ConfidenceInterval((low + high) / 2, low, high, 0.99), 0.5, 0.0, "negligible", verdict, warnings)


def test_case_decision_uses_the_verdict_and_a_ci_that_rules_out_the_slowdown():
    assert case_decision(comparison(Verdict.SLOWER, 1.5, 2.5), 0.1) == SLOWER
    assert case_decision(comparison(Verdict.UNCHANGED, 0.995, 1.005), 0.1) == NOT_SLOWER
    assert case_decision(comparison(Verdict.FASTER, 0.5, 0.7), 0.1) == NOT_SLOWER
    # Inconclusive in compare's sense, but a slowdown of 10% or more is ruled out:
    assert case_decision(comparison(Verdict.INCONCLUSIVE, 0.95, 1.08), 0.1) == NOT_SLOWER
    assert case_decision(comparison(Verdict.INCONCLUSIVE, 0.95, 1.12), 0.1) == INCONCLUSIVE
    # throughput: worse is lower
    assert case_decision(comparison(Verdict.INCONCLUSIVE, 0.93, 1.05, THRPT), 0.1) == NOT_SLOWER
    assert case_decision(comparison(Verdict.INCONCLUSIVE, 0.88, 1.05, THRPT), 0.1) == INCONCLUSIVE
    # too few trials: nothing is decided, whatever the interval
    assert case_decision(comparison(Verdict.SLOWER, 1.5, 2.5, trials=2), 0.1) == INCONCLUSIVE
    assert case_decision(comparison(Verdict.UNCHANGED, 0.99, 1.01, trials=1), 0.1) == INCONCLUSIVE


def test_probe_decision_over_several_cases():
    assert probe_decision([NOT_SLOWER, SLOWER]) == SLOWER
    assert probe_decision([NOT_SLOWER, NOT_SLOWER]) == NOT_SLOWER
    assert probe_decision([NOT_SLOWER, INCONCLUSIVE]) == INCONCLUSIVE
    assert probe_decision([]) == UNTESTABLE


# -- --find faster: the mirror image ---------------------------------------------------------


def test_case_decision_for_faster_uses_the_verdict_and_a_ci_that_rules_out_the_improvement():
    faster = Direction.FASTER
    assert case_decision(comparison(Verdict.FASTER, 0.4, 0.6), 0.1, faster) == FASTER
    assert case_decision(comparison(Verdict.UNCHANGED, 0.995, 1.005), 0.1, faster) == NOT_FASTER
    assert case_decision(comparison(Verdict.SLOWER, 1.5, 2.5), 0.1, faster) == NOT_FASTER
    # time: better is lower, so the better end is the low one. An improvement of 10% or
    # more is ruled out when it is above 0.9, whatever the worse end says:
    assert case_decision(comparison(Verdict.INCONCLUSIVE, 0.92, 1.2), 0.1, faster) == NOT_FASTER
    assert case_decision(comparison(Verdict.INCONCLUSIVE, 0.88, 1.05), 0.1, faster) == INCONCLUSIVE
    # ... the interval that decides 'not slower' does not decide 'not faster', and back:
    assert case_decision(comparison(Verdict.INCONCLUSIVE, 0.88, 1.05), 0.1) == NOT_SLOWER
    assert case_decision(comparison(Verdict.INCONCLUSIVE, 0.92, 1.2), 0.1) == INCONCLUSIVE
    # throughput: better is higher, so the better end is the high one
    assert case_decision(comparison(Verdict.INCONCLUSIVE, 0.8, 1.05, THRPT), 0.1, faster) == NOT_FASTER
    assert case_decision(comparison(Verdict.INCONCLUSIVE, 0.95, 1.12, THRPT), 0.1, faster) == INCONCLUSIVE
    # compare's verdict is already in the user's sense: a throughput case faster is faster
    assert case_decision(comparison(Verdict.FASTER, 1.5, 2.5, THRPT), 0.1, faster) == FASTER
    # too few trials: nothing is decided
    assert case_decision(comparison(Verdict.FASTER, 0.4, 0.6, trials=2), 0.1, faster) == INCONCLUSIVE


def test_probe_decision_for_faster_over_several_cases():
    faster = Direction.FASTER
    assert probe_decision([NOT_FASTER, FASTER], faster) == FASTER
    assert probe_decision([NOT_FASTER, NOT_FASTER], faster) == NOT_FASTER
    assert probe_decision([NOT_FASTER, INCONCLUSIVE], faster) == INCONCLUSIVE
    assert probe_decision([], faster) == UNTESTABLE
    # the other direction's decisions decide nothing here
    assert probe_decision([NOT_SLOWER, NOT_SLOWER], faster) == INCONCLUSIVE
    assert probe_decision([SLOWER], faster) == INCONCLUSIVE


def test_tracked_keeps_the_premise_cases_that_changed_the_way_sought():
    slow = comparison(Verdict.SLOWER, 1.5, 2.5)
    quick = comparison(Verdict.FASTER, 0.4, 0.6)
    quick_thrpt = comparison(Verdict.FASTER, 1.5, 2.5, THRPT)
    same = comparison(Verdict.UNCHANGED, 0.99, 1.01)
    result = ComparisonResult("good", "bad", Settings(), (slow, quick, quick_thrpt, same))
    assert tracked(result, 0.1) == [slow]
    assert tracked(result, 0.1, Direction.FASTER) == [quick, quick_thrpt]


def faster_step(culprit: int, undecided=()):
    probed = []

    def probe(index: int) -> Decision:
        probed.append(index)
        if index in undecided:
            return INCONCLUSIVE
        return FASTER if index >= culprit else NOT_FASTER

    return probe, probed


@pytest.mark.parametrize("culprit", range(16))
def test_the_search_finds_the_first_faster_commit_the_same_way(culprit):
    probe, probed = faster_step(culprit)
    result = search(16, probe)
    assert result.status == Status.FOUND and result.candidates == (culprit,)
    slower, slower_probed = step(culprit)
    search(16, slower)
    assert probed == slower_probed


def test_premise_not_faster_stops_after_one_probe_and_an_undecided_probe_leaves_a_range():
    probe, probed = faster_step(99)
    assert search(16, probe).status == Status.NOT_FASTER and probed == [15]
    probe, probed = faster_step(11, undecided={9})
    result = search(16, probe)
    assert result.status == Status.INCONCLUSIVE and result.candidates == (8, 9, 10, 11)


def test_probe_looks_is_a_stopping_rule_that_adds_trials_to_the_next_look_until_the_probe_decides():
    """bisect's probe looks as the driver's stopping rule: undecided looks add trials up to the
    next look (6, 12, 24), a decided look or the last one stops, the premise's tracked cases
    stay with the rule, and the stored form comes back equal."""
    from rigorbench.analysis.stopping import ProbeLooks, rule_from_dict

    rule = ProbeLooks(6, 24, Settings(threshold=0.1), "slower", {"a.B.c": 1})
    assert rule.looks == (6, 12, 24) and rule.per_look == pytest.approx(1 - 0.01 / 3)
    assert rule.look([], 0).more_trials == 6            # before the first look: plan it
    undecided = ComparisonResult("good", "probe", Settings(), (comparison(Verdict.INCONCLUSIVE, 0.8, 1.3),))
    look = rule.look([undecided], 6)
    assert look.more_trials == 6 and look.rule.decision is None and "on to 12 trials" in look.message
    slower = ComparisonResult("good", "probe", Settings(), (comparison(Verdict.SLOWER, 1.4, 1.6),))
    look = rule.look([slower], 12)
    assert look.more_trials == 0 and look.rule.decision == "slower" and look.rule.tracked == (("a.B.c", (), "time"),)
    assert rule_from_dict(look.rule.as_dict()) == look.rule
    # a probe after the premise decides on the tracked cases only; still undecided at the last look: it stops
    probe = ProbeLooks(6, 24, Settings(threshold=0.1), "slower", {"a.B.c": 1}, look.rule.tracked)
    last = probe.look([undecided], 24)
    assert last.more_trials == 0 and last.rule.decision == "inconclusive"
    other = ComparisonResult("good", "probe", Settings(), (comparison(Verdict.SLOWER, 1.4, 1.6, metric=Metric("alloc", "B/op", False)),))
    gone = probe.look([other], 6)     # the tracked case measured nothing: untestable, no more trials
    assert gone.rule.decision == "untestable" and gone.more_trials == 0
