"""lint --measure's verdict on a finding, from its benchmark's comparison (original vs fixed)."""

from __future__ import annotations

import pytest

from rigorbench.analysis.compare import Comparison, SideSummary
from rigorbench.analysis.impact import case_verdict, finding_impact, unmeasured_reason
from rigorbench.lint import RULES
from rigorbench.model import BenchmarkCase, Impact, Metric
from rigorbench.stats.bootstrap import ConfidenceInterval
from rigorbench.stats.decision import Verdict

TIME = Metric("time", "ns/op", False, primary=True)
THROUGHPUT = Metric("thrpt", "ops/s", True, primary=True)
NAME = "dev.example.DeadCode.measureWrong"


def comparison(verdict: Verdict, estimate: float, low: float, high: float, params=(), metric: Metric = TIME) -> Comparison:
    side = SideSummary(10, 1.0, 1.0, ConfidenceInterval(1.0, 0.9, 1.1, 0.99), 0.01, 5, 5)
    return Comparison(BenchmarkCase("jmh", NAME, params), metric, side, side,
                      ConfidenceInterval(estimate, low, high, 0.99), 0.01, 0.9, "large", verdict)


@pytest.mark.parametrize(("change", "verdict"), [
    ("slower", "confirmed"), ("unchanged", "no_effect"), ("inconclusive", "inconclusive"),
    ("faster", "inconclusive"),   # the opposite of the prediction is never a confirmation
])
def test_a_case_is_confirmed_only_in_the_predicted_direction(change, verdict):
    assert case_verdict(change, "slower") == verdict


def test_a_fixed_variant_many_times_slower_confirms_a_dead_code_finding():
    impact = finding_impact(NAME, "slower", [comparison(Verdict.SLOWER, 45.0, 8.3, 270.0)])
    assert impact.verdict == "confirmed" and impact.predicted == "slower"
    assert (impact.ratio.estimate, impact.ratio.ci_low, impact.ratio.ci_high) == (45.0, 8.3, 270.0)
    assert impact.benchmark == NAME and impact.unit == "ns/op" and not impact.higher_is_better


def test_throughput_speaks_of_slower_in_the_users_sense():
    # Lower throughput after the fix is compare's 'slower': confirmed all the same.
    impact = finding_impact(NAME, "slower", [comparison(Verdict.SLOWER, 0.05, 0.02, 0.1, metric=THROUGHPUT)])
    assert impact.verdict == "confirmed" and impact.higher_is_better


def test_param_cases_that_disagree_are_inconclusive_and_say_so():
    cases = [comparison(Verdict.SLOWER, 3.0, 2.0, 4.0, (("n", "1"),)),
             comparison(Verdict.UNCHANGED, 1.0, 0.995, 1.005, (("n", "1000"),))]
    impact = finding_impact(NAME, "slower", cases, shared=2)
    assert impact.verdict == "inconclusive" and "2 cases disagree" in impact.reason
    assert impact.ratio is None and [c.change for c in impact.cases] == ["slower", "unchanged"]
    assert impact.shared == 2
    agreeing = finding_impact(NAME, "slower", [cases[1], cases[1]])
    assert agreeing.verdict == "no_effect" and agreeing.reason == ""


def test_no_comparison_is_not_measured():
    impact = finding_impact(NAME, "slower", [])
    assert impact.verdict == "not_measured" and "no result" in impact.reason


def test_every_fixable_jmh_rule_predicts_a_direction_or_says_why_not():
    for rule in RULES.values():
        if rule.fixable and rule.language == "java":
            assert rule.fix_effect in ("slower", "faster") or "forks" in unmeasured_reason(rule), rule.id
    assert RULES["RETU"].fix_effect == RULES["VOID"].fix_effect == "slower"


def test_an_impact_verdict_outside_the_vocabulary_is_refused():
    with pytest.raises(ValueError, match="impact verdict"):
        Impact("maybe")
