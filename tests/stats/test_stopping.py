"""Stopping rules (rigorbench.stats.stopping) on synthetic series with known truth."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rigorbench.stats.stopping import MARGIN, MIN_MARGIN, WarmupChoice, auto_warmup, plateau_drifts, warmup_margin


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
    assert truth - 0.2 * tau <= choice.steady_start <= truth + tau
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
