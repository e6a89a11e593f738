"""The decision rules follow their specification on hand-made evidence."""

from __future__ import annotations

import math

import pytest

from rigorbench.stats import (
    ConfidenceInterval,
    BootstrapRule,
    DecisionRule,
    Evidence,
    Verdict,
    WilcoxonRule,
)

U, S, F, I = Verdict.UNCHANGED, Verdict.SLOWER, Verdict.FASTER, Verdict.INCONCLUSIVE


def ev(ratio, low, high, p=1.0, delta=0.0) -> Evidence:
    return Evidence(ratio=ConfidenceInterval(ratio, low, high, 0.99), p_value=p, cliffs_delta=delta)


@pytest.mark.parametrize(
    "evidence, time_verdict, throughput_verdict",
    [
        # whole CI inside [0.99, 1.01] -> unchanged, even if it excludes 1
        (ev(1.005, 1.001, 1.009), U, U),
        (ev(1.0, 0.99, 1.01), U, U),  # boundaries included
        (ev(0.995, 0.991, 0.999), U, U),
        # CI excludes 1 and estimate >= 1% away
        (ev(1.05, 1.02, 1.08), S, F),
        (ev(0.95, 0.92, 0.98), F, S),
        (ev(1.01, 1.005, 1.02), S, F),  # exactly t away counts
        (ev(0.99, 0.98, 0.995), F, S),
        # CI excludes 1 but estimate less than 1% away, CI not inside the band
        (ev(1.008, 1.001, 1.015), I, I),
        # CI contains 1 and is wider than the band
        (ev(1.05, 0.97, 1.12), I, I),
        (ev(1.0, 0.98, 1.02), I, I),
        # NaN evidence never gives a verdict other than inconclusive
        (ev(math.nan, math.nan, math.nan), I, I),
    ],
)
def test_bootstrap_rule(evidence, time_verdict, throughput_verdict):
    rule = BootstrapRule(0.01)
    assert rule.decide(evidence, higher_is_better=False) is time_verdict
    assert rule.decide(evidence, higher_is_better=True) is throughput_verdict


def test_bootstrap_rule_threshold_is_used():
    evidence = ev(1.04, 1.02, 1.06)
    assert BootstrapRule(0.07).decide(evidence, False) is U  # inside [0.93, 1.07]
    assert BootstrapRule(0.03).decide(evidence, False) is S
    assert BootstrapRule(0.045).decide(evidence, False) is I  # estimate < 4.5% away


@pytest.mark.parametrize(
    "p, delta, time_verdict, throughput_verdict",
    [
        (0.001, 0.5, S, F),
        (0.001, -0.5, F, S),
        (0.01, 0.33, S, F),  # both boundaries included
        (0.01, -0.33, F, S),
        (0.011, 0.9, U, U),  # not significant
        (0.001, 0.32, U, U),  # effect too small
        (0.001, -0.2, U, U),
    ],
)
def test_wilcoxon_rule(p, delta, time_verdict, throughput_verdict):
    rule = WilcoxonRule()
    evidence = ev(1.0, 0.5, 2.0, p=p, delta=delta)
    assert rule.decide(evidence, higher_is_better=False) is time_verdict
    assert rule.decide(evidence, higher_is_better=True) is throughput_verdict


def test_rules_follow_the_protocol_and_are_named_as_settings_test():
    from rigorbench.analysis.settings import TESTS, Settings

    for name in TESTS:
        rule: DecisionRule = Settings(test=name).decision_rule()
        assert rule.name == name
        assert isinstance(rule.decide(ev(1.0, 0.9, 1.1), False), Verdict)
    assert BootstrapRule().threshold == 0.01
    assert (WilcoxonRule().alpha, WilcoxonRule().min_delta) == (0.01, 0.33)
    assert Verdict.SLOWER == "slower" and Verdict("inconclusive") is I


def test_rules_are_frozen_and_validated():
    with pytest.raises(AttributeError):
        BootstrapRule().threshold = 0.5  # type: ignore[misc]
    with pytest.raises(ValueError):
        BootstrapRule(-0.1)
    with pytest.raises(ValueError):
        WilcoxonRule(alpha=0.0)
    with pytest.raises(ValueError):
        WilcoxonRule(min_delta=1.5)
