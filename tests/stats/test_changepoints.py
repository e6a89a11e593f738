"""Change points of a per-commit series: planted steps found with their levels, spikes and
noise not, the runs' own errors respected, and the comparison with Apache Otava on the same
synthetic series (``benchmarks/changepoints_vs_otava.py``): at least as many planted changes
found, fewer false alarms, for every kind of noise."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from rigorbench.stats.changepoints import ChangePoint, change_points, segment_levels, standard_errors

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from changepoint_series import KINDS, score, synthetic_series  # noqa: E402


def steps(rng, levels_and_lengths, sd=0.02):
    level = np.concatenate([np.full(n, v) for v, n in levels_and_lengths])
    return level * rng.lognormal(0, sd, level.size)


def kept(x: np.ndarray) -> np.ndarray:
    robust_sd = 1.4826 * np.median(np.abs(x - np.median(x)))
    return x[np.abs(x - np.median(x)) <= 4 * robust_sd]


def test_planted_steps_with_their_levels_change_and_p_value():
    rng = np.random.default_rng(1)
    x = steps(rng, [(100, 30), (110, 25), (104, 30)])
    found = change_points(x)
    assert [c.index for c in found] == [30, 55]
    first: ChangePoint = found[0]
    # the levels are the segments' geometric means, without runs 4 robust sds from the
    # segment's median, with a t interval around them
    before, after = kept(np.log(x[:30])), kept(np.log(x[30:55]))
    assert first.before.mean == pytest.approx(np.exp(before.mean()))
    assert first.after.mean == pytest.approx(np.exp(after.mean()))
    assert (first.before.points, first.after.points) == (before.size, after.size)
    assert 28 <= before.size <= 30 and 23 <= after.size <= 25
    half = sps.t.ppf(0.975, before.size - 1) * before.std(ddof=1) / np.sqrt(before.size)
    assert np.log(first.before.high / first.before.mean) == pytest.approx(half)
    assert first.change_pct == pytest.approx((first.after.mean / first.before.mean - 1) * 100)
    assert 8 < first.change_pct < 12 and -7 < found[1].change_pct < -3
    assert all(c.p_value <= 0.001 for c in found)


def test_segment_levels_are_the_levels_beside_each_change():
    rng = np.random.default_rng(1)
    x = steps(rng, [(100, 30), (110, 25), (104, 30)])
    errors = np.full(x.size, 0.5)
    found = change_points(x, errors)
    levels = segment_levels(x, errors, [c.index for c in found])
    assert levels == [found[0].before, found[0].after, found[1].after]
    assert found[1].before == found[0].after
    (whole,) = segment_levels(x, None, [])
    assert whole.points <= x.size and whole.low < whole.mean < whole.high
    assert levels[0].low < levels[0].mean < levels[0].high


def test_a_single_slow_run_is_not_a_change_but_a_short_plateau_is():
    rng = np.random.default_rng(2)
    x = steps(rng, [(100, 60)], sd=0.01)
    for where in ([30], [30, 31], [59], [0]):  # one or two slow runs, inside or at either end
        spike = x.copy()
        spike[where] *= 1.3
        assert change_points(spike) == [], where
    plateau = x.copy()
    plateau[57:] *= 1.3  # three runs at a new level at the end: min_size = 3 points
    assert [c.index for c in change_points(plateau)] == [57]


def test_pure_noise_is_almost_never_called_changed():
    """300 series of 120 points with no change: the Wilson 95% upper bound of the share of
    series with any change point stays under 2% (observed: 1 in 3,000 series of 20-120 points)."""
    rng = np.random.default_rng(3)
    flagged = sum(bool(change_points(rng.normal(100, 2, 120))) for _ in range(300))
    assert sps.binomtest(flagged, 300).proportion_ci(0.95, method="wilson").high < 0.02


def test_a_shift_smaller_than_the_runs_own_noise_is_not_a_change():
    """Points that agree with each other by chance (scatter 0.1%) step by 1%: with no errors
    that is a clear change; when every run says its own estimate is only good to 2%, it is not."""
    rng = np.random.default_rng(4)
    x = steps(rng, [(100, 10), (101, 10)], sd=0.001)
    assert [c.index for c in change_points(x)] == [10]
    assert change_points(x, np.full(x.size, 2.0)) == []
    assert [c.index for c in change_points(x, np.full(x.size, 0.01))] == [10]


def test_values_that_are_not_all_positive_are_tested_as_they_are():
    x = np.r_[np.zeros(20), np.full(20, 5.0)] + np.random.default_rng(5).normal(0, 1, 40)
    (found,) = change_points(x)
    assert found.index == 20
    assert found.after.mean - found.before.mean == pytest.approx(x[20:].mean() - x[:20].mean())


def test_standard_errors_from_intervals():
    z = sps.norm.ppf(0.995)
    se = standard_errors([90.0, -1.0], [110.0, 1.0], [100.0, 0.0], 0.99)
    assert se[0] == pytest.approx(100 * np.log(110 / 90) / (2 * z))
    assert se[1] == pytest.approx(2 / (2 * z))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"values": [1.0, float("nan")]}, "finite"),
    ({"values": [1.0, 2.0], "errors": [0.1]}, "one per value"),
    ({"values": [1.0, 2.0], "errors": [0.1, -1]}, "non-negative"),
    ({"values": [1.0], "window": 4}, "window"),
    ({"values": [1.0], "max_p": 0}, "max_p"),
])
def test_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        change_points(**kwargs)


@pytest.mark.slow   # many simulated series, twice
def test_finds_at_least_as_many_planted_changes_as_otava_with_fewer_false_alarms():
    """The benchmark's comparison on 60 series per kind (120 commits, 1-3 planted changes of
    5-20%), within +-1 commit. Otava runs at its defaults (window 50, p 0.001) on the points;
    rigorbench on the points and their runs' standard errors."""
    from changepoints_vs_otava import compare

    table = compare(60)
    for kind in KINDS:
        otava, ours = table[kind]["otava"], table[kind]["rigorbench"]
        assert otava[0] == ours[0]  # the same planted changes
        assert ours[1] >= otava[1], (kind, table[kind])
        assert ours[2] < otava[2], (kind, table[kind])


def test_the_synthetic_series_hold_what_they_promise():
    rng = np.random.default_rng(6)
    for kind in KINDS:
        s = synthetic_series(rng, kind)
        assert s.values.shape == s.errors.shape == (120,) and np.all(s.errors > 0)
        assert 1 <= len(s.changes) <= 3 and all(b - a >= 12 for a, b in zip(s.changes, s.changes[1:]))
    assert score([10, 20, 51], (11, 50)) == (2, 1)
    assert score([10, 11], (11,)) == (1, 1)
