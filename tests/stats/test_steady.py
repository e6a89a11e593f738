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
                                {"last_fraction": 0}, {"last_fraction": 1.5}])
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


# -- the study's outlier filter and segments -------------------------------------------------------


def study_filter(x: np.ndarray, op_seconds: float) -> list[int]:
    """Oracle: Traini et al.'s filter as their replication package states it, one window at
    a time (a point is an outlier when any window of 200 from the first ``skip`` on puts it
    outside median +/- 3 (p99 - p1))."""
    import math

    skip = math.ceil(200 / math.log1p(math.ceil(0.1 / op_seconds)))
    outliers = set()
    for first in range(skip, x.size - 200 + 1):
        window = x[first:first + 200]
        median, (p1, p99) = np.median(window), np.quantile(window, [0.01, 0.99])
        outliers |= {first + i for i, v in enumerate(window) if abs(v - median) > 3 * (p99 - p1)}
    return [i for i in range(x.size) if i not in outliers]


@pytest.mark.parametrize("op_seconds", [1e-4, 1e-7, 0.02])
def test_kept_points_are_the_studys_filter(op_seconds):
    from rigorbench.stats.steady import kept_points

    rng = np.random.default_rng(int(op_seconds * 1e9))
    x = op_seconds * rng.lognormal(0, 0.05, 900) * np.where(rng.random(900) < 0.005, 10, 1)
    x[:40] *= 4  # a warmup the first windows skip: kept however far off it is
    x = np.round(x / op_seconds * 500) * op_seconds / 500  # ties, as timers give them
    kept = kept_points(x)
    assert kept.tolist() == study_filter(x, op_seconds)
    assert 0 < x.size - kept.size < 0.2 * x.size and set(range(10)) <= set(kept.tolist())
    assert kept_points(x / op_seconds * 7, op_seconds).tolist() == kept.tolist()  # any unit, same skip


def test_segments_run_between_the_kept_points_and_start_after_the_last_one():
    """The study's segments: each ends at a kept point, the next starts right after it (so
    outliers between belong to the next), the last runs to the series' end."""
    from rigorbench.stats.steady import fork_state

    x = np.r_[np.full(10, 2.0), np.full(10, 1.0)]
    kept = np.array([i for i in range(20) if i not in (9, 10, 19)])
    state = fork_state(x, kept, [9, 17], tolerance=0.05, last_fraction=5 / 6, rng=np.random.default_rng(0))
    assert state.change_points == (9,)  # kept[9 - 1] = 8 ends the first; the second starts at 9
    assert state.segment_means == (2.0, np.r_[2.0, np.full(10, 1.0)].mean())
    assert state.start == 9 and state.reached


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
    """Each fork's state in classify_forks is the one the single-fork detector finds with the
    same spawned seed and time per operation (long, short and filtered forks)."""
    forks = [warmup(60 + 30 * s, seed=s) for s in range(4)] + [noisy(1.0, seed=20, n=300)]
    forks[1] = forks[1][:1800]
    forks[2][100::97] *= 4  # outliers: fewer kept points, another grid
    seeds = np.random.SeedSequence(7).spawn(len(forks))
    times = [float(np.mean(f)) * 10 for f in forks]
    assert classify_forks(forks, seed=7, op_seconds=times).forks == tuple(
        detect_steady_state(f, seed=q, op_seconds=t) for f, q, t in zip(forks, seeds, times))
    with pytest.raises(TypeError, match="toleranse"):
        classify_forks(forks, toleranse=0.1)
