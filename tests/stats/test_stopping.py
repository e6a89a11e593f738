"""Warmup from a pilot (rigorbench.stats.stopping) and Laaber et al.'s stoppage criteria
(benchmarks/laaber_criteria.py, the baseline of benchmarks/replay_stopping.py) on synthetic
series with known truth."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from rigorbench.stats.stopping import MARGIN, MIN_MARGIN, WarmupChoice, auto_warmup, plateau_drifts, warmup_margin

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from laaber_criteria import (  # noqa: E402
    CRITERIA,
    CovCriterion,
    KldCriterion,
    RciwCriterion,
    coefficient_of_variation,
    far_outliers,
    first_stable,
    kld_similarity,
    relative_ci_width,
)


def noisy(level, seed: int, cv: float = 0.02) -> np.ndarray:
    """Seconds/op around ``level`` with multiplicative Gaussian noise."""
    level = np.asarray(level, dtype=float)
    rng = np.random.default_rng(seed)
    return 1e-4 * level * (1 + cv * rng.standard_normal(level.size))


def decay(n: int, tau: float, seed: int) -> np.ndarray:
    """Exponential warmup: twice as slow at first, within 5% of the plateau from tau*ln(20)."""
    return noisy(1 + np.exp(-np.arange(n) / tau), seed)


# -- auto_warmup ---------------------------------------------------------------------------

@pytest.mark.parametrize("tau,n", [(50, 1000), (100, 1000), (150, 3000)])
def test_pilot_with_exponential_warmup_gets_its_start_plus_the_margin(tau, n):
    truth = tau * math.log(20)
    choice = auto_warmup(decay(n, tau, seed=tau))
    assert choice.reached
    # A segment agrees when its mean is within 5% of the last one's, so it may start a little
    # before the decay itself falls under 5% (its later points pull its mean down).
    assert truth - 0.5 * tau <= choice.steady_start <= truth + tau
    assert choice.iterations == choice.steady_start + warmup_margin(choice.steady_start)
    assert choice.iterations > truth  # the later forks start measuring on the plateau


def test_margin_is_relative_with_a_floor():
    assert warmup_margin(0) == MIN_MARGIN
    assert warmup_margin(5) == MIN_MARGIN
    assert warmup_margin(100) == math.ceil(MARGIN * 100)
    assert warmup_margin(101, margin=0.5, min_margin=0) == 51


@pytest.mark.parametrize("n,slope", [(1000, 1.0), (1000, 4.0), (3000, 2.0)])
def test_drifting_pilot_is_flagged_and_given_its_whole_length(n, slope):
    series = noisy(1 + slope * np.arange(n) / n, seed=7)  # slows down steadily: never settles
    choice = auto_warmup(series)
    assert not choice.reached
    assert choice.iterations == n


def test_plateau_drift_check_tells_a_trend_from_noise():
    assert plateau_drifts(noisy(np.linspace(1.0, 1.2, 400), seed=1))
    assert not plateau_drifts(noisy(np.ones(400), seed=1, cv=0.1))
    assert not plateau_drifts(noisy(np.linspace(1.0, 1.04, 400), seed=1))  # inside 5%


def test_flat_pilot_needs_only_the_minimum_margin():
    choice = auto_warmup(noisy(np.ones(1000), seed=1))
    assert choice.reached and choice.steady_start <= 20
    assert choice.iterations == choice.steady_start + warmup_margin(choice.steady_start)


@pytest.mark.parametrize("n", [30, 45, 60])
def test_short_jmh_like_pilot_with_warmup_in_its_first_third(n):
    level = np.where(np.arange(n) < n // 3, 2.0, 1.0)  # a JIT step after the first third
    choice = auto_warmup(noisy(level, seed=n, cv=0.01))
    assert choice.reached
    assert n // 3 - 5 <= choice.steady_start <= n // 3 + 5
    assert n // 3 <= choice.iterations <= n


@pytest.mark.parametrize("n", [30, 60])
def test_short_drifting_pilot_is_flagged(n):
    choice = auto_warmup(noisy(1 + 2 * np.arange(n) / n, seed=n, cv=0.005))
    assert not choice.reached
    assert choice.iterations == n


def test_margin_never_takes_the_warmup_past_the_pilot():
    n = 60
    level = np.where(np.arange(n) < 45, 2.0, 1.0)  # settles at 45, inside 5/6 of 60 = 50
    choice = auto_warmup(noisy(level, seed=3, cv=0.01), margin=1.0)
    assert choice.reached and choice.iterations == n


def test_same_seed_same_choice_and_bad_settings_rejected():
    series = decay(1000, 80, seed=2)
    assert auto_warmup(series, seed=5) == auto_warmup(series, seed=5)
    with pytest.raises(ValueError):
        auto_warmup(series, margin=-0.1)
    with pytest.raises(ValueError):
        auto_warmup([1.0, float("nan"), 2.0])
    with pytest.raises(ValueError):
        WarmupChoice(iterations=3, steady_start=None, reached=True)


# -- Laaber et al.'s criteria ------------------------------------------------------------------

def test_cov_matches_scipy_and_the_cumulative_steps_match_a_recomputation():
    x = noisy(np.ones(200), seed=11, cv=0.05)
    assert coefficient_of_variation(x) == pytest.approx(scipy_stats.variation(x, ddof=1), rel=1e-12)
    units = x.reshape(20, 10)
    steps = list(CovCriterion().step_values(units, np.random.default_rng(0)))
    for i in (2, 7, 20):
        assert steps[i - 1] == pytest.approx(np.std(x[:10 * i], ddof=1) / np.mean(x[:10 * i]), rel=1e-9)


def test_cov_steps_leave_out_far_outliers_of_each_unit():
    units = noisy(np.ones(50), seed=2).reshape(5, 10)
    units[3, 4] = 50 * units[3, 4]  # an error, not a measurement
    assert far_outliers(units[3]).sum() == 1
    steps = list(CovCriterion().step_values(units, np.random.default_rng(0)))
    kept = np.delete(units.ravel(), 34)
    assert steps[-1] == pytest.approx(scipy_stats.variation(kept, ddof=1), rel=1e-9)


@pytest.mark.parametrize("shape", [(4000,), (200, 20)])
def test_rciw_on_a_large_sample_matches_the_normal_approximation(shape):
    rng = np.random.default_rng(5)
    x = 1e-4 * (1 + 0.1 * rng.standard_normal(shape))
    z = scipy_stats.norm.ppf(0.995)
    expected = 2 * z * np.std(x, ddof=1) / math.sqrt(x.size) / np.mean(x)
    if len(shape) == 2:
        # resampling at both levels counts the within-iteration variance twice on iid data:
        # the variance of the resampled mean is (2 - 1/n1) sigma^2 / N
        expected *= math.sqrt(2 - 1 / shape[1])
    assert relative_ci_width(x, seed=1) == pytest.approx(expected, rel=0.1)


def test_rciw_hierarchical_resampling_widens_the_interval_when_iterations_differ():
    rng = np.random.default_rng(6)
    levels = 1 + 0.05 * rng.standard_normal((50, 1))   # iterations differ by 5% ...
    x = 1e-4 * levels * (1 + 0.01 * rng.standard_normal((50, 10)))  # ... values inside by 1%
    nested, flat = relative_ci_width(x, seed=2), relative_ci_width(x.ravel(), seed=2)
    z = scipy_stats.norm.ppf(0.995)
    means = x.mean(axis=1)
    assert nested == pytest.approx(2 * z * np.std(means, ddof=1) / math.sqrt(50) / means.mean(), rel=0.15)
    assert nested > 2 * flat


def test_rciw_ignores_removed_values():
    x = noisy(np.ones(400), seed=3).reshape(40, 10)
    y = x.copy()
    y[5, 5] = np.nan
    assert relative_ci_width(y, seed=4) == pytest.approx(relative_ci_width(x, seed=4), rel=0.15)
    with pytest.raises(ValueError):
        relative_ci_width(np.full(5, np.nan))


def test_kld_of_identical_distributions_is_near_one_and_of_shifted_ones_is_analytic():
    rng = np.random.default_rng(7)
    a, b = 10 + rng.standard_normal(4000), 10 + rng.standard_normal(4000)
    assert kld_similarity(a, a) == pytest.approx(1.0)
    assert kld_similarity(a, b) > 0.99
    for shift in (0.5, 1.0):
        # KL between N(0,1) and N(d,1) is d^2/2 nats each way: similarity 2^(-d^2)
        c = 10 + shift + rng.standard_normal(4000)
        assert kld_similarity(a, c) == pytest.approx(2.0 ** -(shift ** 2), abs=0.06)
    assert kld_similarity(a, a + 100) == 0.0  # no overlap at all
    assert kld_similarity(np.ones(10), np.ones(10)) == 1.0


@pytest.mark.parametrize("name", sorted(CRITERIA))
def test_each_criterion_stops_a_flat_series_and_not_a_trend(name):
    criterion = CRITERIA[name]
    flat = noisy(np.ones(500), seed=8, cv=0.002).reshape(50, 10)
    stop = first_stable(flat, criterion, history=criterion.iteration_history, minimum=5)
    assert stop is not None and criterion.iteration_history <= stop <= 20
    # a slowdown that doubles the time every ten iterations never settles within 50 ...
    trend = noisy(np.repeat(2.0 ** (np.arange(50) / 10), 10), seed=8, cv=0.002).reshape(50, 10)
    trend_stop = first_stable(trend, criterion, history=criterion.iteration_history, minimum=5)
    if name == "rciw":
        # ... but the width of the interval of everything so far changes by less than 0.03 per
        # window once enough iterations are pooled: RCIW stops on a trend (later than on a plateau)
        assert trend_stop is not None and trend_stop > stop
    else:
        assert trend_stop is None


def test_fork_level_compares_the_last_two_forks():
    forks = noisy(np.ones(5 * 500), seed=9, cv=0.01).reshape(5, 50, 10)
    for criterion in (CovCriterion(), RciwCriterion(), KldCriterion()):
        assert first_stable(forks, criterion, history=criterion.fork_history, minimum=2) == 2
    forks[1] *= 1.5  # the second fork runs 50% slower: its cumulative statistic moves
    assert first_stable(forks, CovCriterion(), history=2, minimum=2) > 2


def test_window_rule_and_bad_history():
    cov = CovCriterion()
    assert cov.stable([0.050, 0.055, 0.052]) and not cov.stable([0.040, 0.055, 0.052])
    kld = KldCriterion()
    assert kld.stable([0.1, 0.995, 0.999]) and not kld.stable([0.995, 0.98, 0.999])
    with pytest.raises(ValueError):
        first_stable(np.ones((5, 2)), cov, history=1)
