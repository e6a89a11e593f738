"""Pocock's group-sequential boundary against published constants and scipy's multivariate normal."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtri
from scipy.stats import multivariate_normal

from rigorbench.stats.group_sequential import looks_between, per_look_confidence, pocock_boundary

# Jennison & Turnbull (2000), table 2.1: Pocock's constants C_P(K, alpha) for K equally
# spaced looks, two-sided alpha = 0.05.
JENNISON_TURNBULL_05 = {2: 2.178, 3: 2.289, 4: 2.361, 5: 2.413, 10: 2.555}


@pytest.mark.parametrize("looks, constant", sorted(JENNISON_TURNBULL_05.items()))
def test_pocock_constant_matches_the_published_table(looks, constant):
    assert pocock_boundary(0.95, range(1, looks + 1)) == pytest.approx(constant, abs=0.01)


def _crossing_probability(c: float, counts: tuple[int, ...]) -> float:
    """P(max_k |S_{n_k}| / sqrt(n_k) >= c) from scipy's multivariate normal CDF."""
    n = np.asarray(counts, dtype=float)
    cov = np.sqrt(np.minimum.outer(n, n) / np.maximum.outer(n, n))
    inside = multivariate_normal(mean=np.zeros(len(n)), cov=cov).cdf(np.full(len(n), c), lower_limit=np.full(len(n), -c))
    return 1 - float(inside)


@pytest.mark.parametrize("counts", [(3, 4, 5), (3, 5, 8, 12), (5, 10)])
def test_boundary_holds_the_overall_level_for_unequal_looks(counts):
    c = pocock_boundary(0.99, counts)
    assert _crossing_probability(c, counts) == pytest.approx(0.01, abs=0.0006)
    # a single look at the overall level would cross far more often over the same looks
    assert _crossing_probability(float(ndtri(0.995)), counts) > 0.015


def test_one_look_is_the_ordinary_interval():
    assert pocock_boundary(0.99, [5]) == pytest.approx(float(ndtri(0.995)))
    assert per_look_confidence(0.99, [5]) == pytest.approx(0.99)


def test_more_looks_need_a_stricter_level_and_it_is_reproducible():
    few, many = per_look_confidence(0.99, looks_between(3, 10)), per_look_confidence(0.99, looks_between(3, 20))
    assert 0.99 < few < many < 1 - 0.01 / 18      # stricter than one look, looser than Bonferroni
    assert per_look_confidence(0.99, looks_between(3, 20)) == many


@pytest.mark.parametrize("looks", [(), (0, 1), (3, 3), (5, 4)])
def test_bad_looks_are_refused(looks):
    with pytest.raises(ValueError):
        pocock_boundary(0.99, looks)


# The futility rule's conditional power, against a Monte Carlo oracle of the same model: each
# version's trials are normal on the log scale with a common spread; after n trials the t
# interval (Welch, equal variances) is formed; the remaining trials are drawn with the truth
# set to the current estimate and spread; at N the real rule decides on the real interval,
# whose width is random (the formula takes its expected width, hence the tolerance).
def _simulated_chance(theta, sigma, n, big_n, confidence, threshold, draws=40_000, seed=5):
    from scipy.special import stdtrit

    from rigorbench.stats.decision import BootstrapRule, Evidence
    from rigorbench.stats.bootstrap import ConfidenceInterval

    rng = np.random.default_rng(seed)
    a = rng.normal(0.0, sigma, size=(draws, big_n - n))
    b = rng.normal(theta, sigma, size=(draws, big_n - n))
    # the first n trials: fixed so that their estimate is theta and their variance sigma^2
    first = np.linspace(-1, 1, n)
    first = first / first.std(ddof=1) * sigma
    a_all = np.hstack([np.tile(first, (draws, 1)), a])
    b_all = np.hstack([np.tile(first + theta, (draws, 1)), b])
    diff = b_all.mean(axis=1) - a_all.mean(axis=1)
    se = np.sqrt(a_all.var(axis=1, ddof=1) / big_n + b_all.var(axis=1, ddof=1) / big_n)
    half = stdtrit(2 * (big_n - 1), 1 - (1 - confidence) / 2) * se
    rule = BootstrapRule(threshold)
    decided = 0
    for d, h in zip(diff, half):
        ci = ConfidenceInterval(float(np.exp(d)), float(np.exp(d - h)), float(np.exp(d + h)), confidence)
        decided += rule.decide(Evidence(ci, float("nan"), 0.0), higher_is_better=False) != "inconclusive"
    return decided / draws


@pytest.mark.parametrize("theta, sigma, n, big_n, threshold", [
    (0.0, 0.10, 3, 10, 0.20),     # A/A, a generous threshold: "unchanged" is likely
    (0.0, 0.06, 4, 10, 0.08),     # A/A, a tight threshold: hardly ever
    (0.18, 0.12, 4, 10, 0.20),    # just under the threshold, wide: a toss-up
    (-0.12, 0.10, 5, 12, 0.10),   # a speed-up near the edge of what N trials resolve
    (-0.20, 0.20, 5, 12, 0.10),   # a larger one, noisier
    (0.03, 0.05, 3, 20, 0.01),    # a small change, many trials to go
    (0.25, 0.08, 3, 20, 0.10),    # a clear slowdown: decided
])
def test_chance_of_verdict_matches_a_simulation_of_its_model(theta, sigma, n, big_n, threshold):
    from scipy.special import stdtrit

    from rigorbench.stats.group_sequential import chance_of_verdict

    confidence = 0.997
    se = sigma * np.sqrt(2 / n)
    half = stdtrit(2 * (n - 1), 1 - (1 - confidence) / 2) * se
    chance = chance_of_verdict(np.exp(theta), np.exp(theta - half), np.exp(theta + half), confidence=confidence,
                               trials=n, max_trials=big_n, threshold=threshold)
    assert chance == pytest.approx(_simulated_chance(theta, sigma, n, big_n, confidence, threshold), abs=0.03)


def test_chance_of_verdict_edges():
    from rigorbench.stats.group_sequential import chance_of_verdict

    common = dict(confidence=0.99, threshold=0.1)
    assert chance_of_verdict(1.5, 1.3, 1.7, trials=5, max_trials=10, **common) > 0.99     # decided already
    assert chance_of_verdict(1.0, 0.5, 2.0, trials=3, max_trials=4, **common) < 0.01      # hopeless: one trial left
    assert np.isnan(chance_of_verdict(1.0, 1.0, 1.0, trials=3, max_trials=10, **common))  # no spread
    assert np.isnan(chance_of_verdict(float("nan"), 0.9, 1.1, trials=3, max_trials=10, **common))
    with pytest.raises(ValueError):
        chance_of_verdict(1.0, 0.9, 1.1, trials=5, max_trials=4, **common)
