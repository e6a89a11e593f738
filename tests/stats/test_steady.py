"""Steady-state detection (rigorbench.stats.steady) on synthetic series with known truth."""

from __future__ import annotations

import numpy as np
import pytest

from rigorbench.stats.steady import (
    SteadyState,
    SteadyStateVerdict,
    classify_forks,
    detect_steady_state,
)

N = 3000


def noisy(level: np.ndarray | float, seed: int, n: int = N, cv: float = 0.02) -> np.ndarray:
    """Seconds/op around ``level`` with multiplicative Gaussian noise."""
    rng = np.random.default_rng(seed)
    return 1e-4 * np.asarray(level) * (1 + cv * rng.standard_normal(n))


def warmup(tau: float, seed: int, n: int = N) -> np.ndarray:
    """Exponential-decay warmup: twice as slow at first, then flat."""
    return noisy(1 + np.exp(-np.arange(n) / tau), seed, n)


@pytest.mark.parametrize("tau", [50, 100, 200])
def test_exponential_warmup_start_is_near_where_the_decay_falls_below_tolerance(tau):
    truth = tau * np.log(1 / 0.05)  # exp(-i / tau) < 5% from here on
    result = detect_steady_state(warmup(tau, seed=tau))
    assert result.reached
    assert truth - 0.2 * tau <= result.start <= truth + 1.0 * tau
    assert result.change_points and result.start in result.change_points
    assert len(result.segment_means) == len(result.change_points) + 1
    assert result.n == N


@pytest.mark.parametrize("seed", range(5))
def test_flat_series_is_steady_from_the_start(seed):
    result = detect_steady_state(noisy(1.0, seed))
    assert result.reached
    assert result.start <= 50


def test_level_shift_at_90_percent_is_not_reached():
    level = np.where(np.arange(N) < 2700, 1.0, 1.2)
    result = detect_steady_state(noisy(level, seed=3))
    assert not result.reached
    assert abs(result.start - 2700) <= 10


def test_small_shift_inside_tolerance_does_not_delay_the_start():
    level = np.where(np.arange(N) < 1500, 1.02, 1.0)
    result = detect_steady_state(noisy(level, seed=4))
    assert result.reached and result.start == 0


def test_step_warmup_start_is_the_step():
    level = np.where(np.arange(N) < 500, 1.3, 1.0)
    result = detect_steady_state(noisy(level, seed=5))
    assert result.reached and abs(result.start - 500) <= 10


def test_isolated_spikes_are_filtered_and_do_not_move_the_start():
    x = noisy(1.0, seed=6)
    spikes = [100, 900, 1500, 2600, 2800, 2950, 2999]
    x[spikes] *= 20
    result = detect_steady_state(x)
    assert result.reached and result.start <= 50


def test_same_seed_same_result_and_default_is_deterministic():
    x = warmup(100, seed=7)
    assert detect_steady_state(x, seed=11) == detect_steady_state(x, seed=11)
    assert detect_steady_state(x) == detect_steady_state(x)


def test_segments_are_compared_as_measured_with_their_outliers():
    """The filter only feeds the segmentation: the walk-back reads the input's segments, so
    segment_means are the input's means between change points, outliers included (as the
    study compares them)."""
    x = noisy(np.where(np.arange(N) < 800, 1.5, 1.0), seed=8)
    x[[1000, 1500, 2000]] *= 50  # outliers: dropped from the segmentation, not from the means
    result = detect_steady_state(x)
    bounds = [0, *result.change_points, N]
    assert result.segment_means == tuple(float(x[a:b].mean()) for a, b in zip(bounds, bounds[1:]))
    assert result.segment_means[-1] > 1.04 * np.median(x[800:])  # three points at 50x lift it
    assert result.reached and abs(result.start - 800) <= 10


def test_start_is_an_index_of_the_input_even_with_outliers_removed_before_it():
    level = np.where(np.arange(N) < 800, 1.5, 1.0)
    x = noisy(level, seed=8)
    x[[10, 20, 30, 40, 50]] *= 50  # removed by the filter: filtered indices shift by 5
    result = detect_steady_state(x)
    assert abs(result.start - 800) <= 10


def test_constant_series_has_no_change_points():
    for n in (5, 20, 3000):
        result = detect_steady_state(np.full(n, 2.5e-5))
        assert result == SteadyState(result.start, True, result.change_points,
                                     result.segment_means, n)
        assert result.start == 0


def test_short_flat_series_are_steady_from_zero():
    for n in (1, 2, 5, 10, 20, 50, 200):
        result = detect_steady_state(noisy(1.0, seed=n, n=n, cv=0.01))
        assert result.start == 0 and result.reached, n


@pytest.mark.parametrize("n", [5, 10, 20, 80, 200])
def test_short_series_still_trending_has_not_reached_steady_state(n):
    result = detect_steady_state(noisy(np.linspace(2, 1, n), seed=n, n=n, cv=0.01))
    assert not result.reached


@pytest.mark.parametrize("n", [20, 100, 400])
def test_short_series_with_warmup_then_flat_starts_in_the_second_half(n):
    level = np.r_[np.linspace(2, 1, n // 2), np.ones(n - n // 2)]
    result = detect_steady_state(noisy(level, seed=n, n=n, cv=0.01))
    assert result.reached and n // 4 <= result.start <= 3 * n // 4


@pytest.mark.parametrize("bad", [[1.0, np.nan, 2.0], [1.0, np.inf], [], [[1.0, 2.0]]])
def test_invalid_series_raise_value_error(bad):
    with pytest.raises(ValueError):
        detect_steady_state(np.array(bad, dtype=float))


@pytest.mark.parametrize("kw", [{"tolerance": 0}, {"tolerance": 1.5},
                                {"last_fraction": 0}, {"min_size": 1}])
def test_invalid_options_raise_value_error(kw):
    with pytest.raises(ValueError):
        detect_steady_state(noisy(1.0, seed=0, n=100), **kw)


def test_last_fraction_decides_reached():
    level = np.where(np.arange(N) < 2000, 1.3, 1.0)
    x = noisy(level, seed=9)
    assert detect_steady_state(x).reached
    assert not detect_steady_state(x, last_fraction=0.5).reached


def test_verdicts_steady_inconsistent_none():
    steady = [noisy(1.0, seed=s) for s in range(3)]
    late = noisy(np.where(np.arange(N) < 2800, 1.0, 1.3), seed=10)
    assert classify_forks(steady).verdict == "steady"
    assert classify_forks(steady + [late]).verdict == "inconsistent"
    result = classify_forks([late, late])
    assert isinstance(result, SteadyStateVerdict)
    assert result.verdict == "none" and len(result.forks) == 2
    assert not any(f.reached for f in result.forks)


def test_classify_forks_passes_options_and_is_deterministic():
    forks = [warmup(100, seed=s) for s in range(2)]
    assert classify_forks(forks, seed=3) == classify_forks(forks, seed=3)
    strict = classify_forks(forks, last_fraction=0.05)
    assert strict.verdict == "none"
    with pytest.raises(ValueError):
        classify_forks([])


# -- CROPS, the elbow and the late-burst check ---------------------------------------------------


def test_crops_returns_exactly_the_segmentations_pelt_gives_across_the_penalty_range():
    """Oracle: PELT itself at 60 penalties spread over the range; each of its answers is on
    the CROPS path, and each path entry is PELT's answer at the penalty it was found at."""
    import math

    from rigorbench.stats import steady

    y = warmup(80, seed=3)[:1200]
    y[900:] *= 1.08
    low, high = 5 * math.log(y.size), 400 * math.log(y.size)
    path = steady.crops(y, low, high, min_size=5, jump=4)
    cps = [p.change_points for p in path]
    assert [len(c) for c in cps] == sorted({len(c) for c in cps})  # fewest first, one per count
    for penalty in np.geomspace(low, high, 60):
        assert tuple(steady._change_points(y, 5, 4, penalty)) in cps
    for p in path:
        assert tuple(steady._change_points(y, 5, 4, p.penalty)) == p.change_points


def test_elbow_picks_where_more_change_points_stop_paying():
    from rigorbench.stats.steady import Segmentation, elbow

    path = [Segmentation(tuple(range(m)), cost, 0.0) for m, cost in
            ((0, 1000.0), (1, 400.0), (2, 100.0), (3, 90.0), (5, 80.0), (9, 70.0))]
    assert len(elbow(path).change_points) == 2
    assert elbow(path[:2]) is path[0]


def test_a_late_burst_after_the_cut_means_the_fork_has_not_settled():
    flat = noisy(1.0, seed=11)
    assert detect_steady_state(flat).reached
    burst = flat.copy()
    burst[2650:2850] *= 1.10  # 200 iterations 10% slower, after the 5/6 cut (2500)
    late = detect_steady_state(burst)
    assert not late.reached and late.start >= 2500
    small = flat.copy()
    small[2650:2850] *= 1.02  # inside the 5% tolerance: still steady
    assert detect_steady_state(small).reached


def test_stationary_autocorrelated_noise_is_called_steady():
    """False alarms of "not steady" on AR(1) noise (phi 0.5, 2% noise) with no warmup and no
    change: at most 1 of 12 forks."""
    rng = np.random.default_rng(5)
    missed = 0
    for _ in range(12):
        e = rng.standard_normal(N + 100)
        z = np.zeros(N + 100)
        for i in range(1, N + 100):
            z[i] = 0.5 * z[i - 1] + e[i]
        missed += not detect_steady_state(1e-4 * (1 + 0.02 * z[100:])).reached
    assert missed <= 1


def test_classify_forks_gives_each_fork_what_detect_steady_state_gives_it():
    """classify_forks segments all forks in one loop; each fork's state is the one the
    single-fork detector finds with the same spawned seed (long, short and filtered forks)."""
    forks = [warmup(60 + 30 * s, seed=s) for s in range(4)] + [noisy(1.0, seed=20, n=300)]
    forks[1] = forks[1][:1800]
    forks[2][100::97] *= 4  # outliers: fewer kept points, another grid
    seeds = np.random.SeedSequence(7).spawn(len(forks))
    assert classify_forks(forks, seed=7).forks == tuple(
        detect_steady_state(f, seed=q) for f, q in zip(forks, seeds))
    with pytest.raises(TypeError, match="toleranse"):
        classify_forks(forks, toleranse=0.1)


@pytest.mark.parametrize("window", [200, 150, 201, 50])
def test_window_quantiles_from_rank_filter_are_numpys_to_the_bit(window):
    """The sliding filter's median and 1st/99th percentiles (scipy.ndimage.rank_filter order
    statistics) equal numpy's median and linear percentile of every window, on heavy-tailed
    and on rounded (tied) data."""
    from rigorbench.stats import steady

    rng = np.random.default_rng(window)
    for rounded in (False, True):
        x = rng.lognormal(0, 0.1, 1200) * np.where(rng.random(1200) < 0.02, 5, 1)
        if rounded:
            x = np.round(x * 20) / 20
        views = np.lib.stride_tricks.sliding_window_view(x, window)
        assert np.array_equal(steady._window_quantile(x, window, 0.5), np.median(views, axis=1))
        p1, p99 = np.percentile(views, [1, 99], axis=1)
        assert np.array_equal(steady._window_quantile(x, window, 0.01), p1)
        assert np.array_equal(steady._window_quantile(x, window, 0.99), p99)
