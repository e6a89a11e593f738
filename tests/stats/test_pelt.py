"""The segmentation of ``stats/segmentation.py`` against oracles: ``ruptures.Pelt`` with the same
cost (PELT), PELT itself across the penalty range (CROPS) and ``kneed`` 0.7.0 (the elbow)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import ruptures as rpt
from hypothesis import given, settings, strategies as st
from ruptures.base import BaseCost

from rigorbench.stats import segmentation


class _RCost(BaseCost):
    """R changepoint's Gaussian mean-and-variance cost, one segment at a time."""

    model = "r-meanvar"
    min_size = 2

    def fit(self, signal):
        self.signal = np.asarray(signal, dtype=np.float64).reshape(-1)
        self._s1, self._s2 = segmentation.sums(self.signal)
        return self

    def error(self, start: int, end: int) -> float:
        m = float(end - start)
        s2 = (self._s2[end] - self._s2[start] - (self._s1[end] - self._s1[start]) ** 2 / m) / m
        return m * (math.log(2 * math.pi) + math.log(s2 if s2 > 0 else 1e-11) + 1)


def series(seed: int, n: int, steps: int, noise: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    level = np.ones(n)
    for start in rng.integers(0, n, steps):
        level[start:] *= rng.uniform(0.6, 1.6)
    return 1e-6 * level * rng.lognormal(0.0, noise, n)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(60, 250), steps=st.integers(0, 4),
       noise=st.sampled_from([0.001, 0.03, 0.3]), per_log_n=st.floats(2, 200))
def test_pelt_finds_the_segmentation_ruptures_finds(seed, n, steps, noise, per_log_n):
    """At a penalty drawn at random (not on a tie of two segmentations) the optimum is
    unique, so any exact search finds it."""
    y = series(seed, n, steps, noise)
    penalty = per_log_n * math.log(n)
    expected = rpt.Pelt(custom_cost=_RCost(), min_size=2, jump=1).fit(y).predict(pen=penalty)
    assert segmentation.pelt(y, penalty) == expected


def test_planted_steps_are_found():
    y = series(7, 1000, 0, 0.02)
    y[300:] *= 1.5
    y[700:] *= 0.5
    ends = segmentation.pelt(y, 60 * math.log(y.size))
    assert ends[-1] == 1000 and {300, 700} <= set(ends)


def test_crops_path_is_every_segmentation_pelt_gives_in_the_range():
    """Oracle: PELT at 80 penalties spread over the range; each answer is on the path, at a
    penalty inside its interval; the path's counts fall and its interval ends rise."""
    rng = np.random.default_rng(3)
    y = 1e-4 * (1 + np.exp(-np.arange(1200) / 80)) * (1 + 0.02 * rng.standard_normal(1200))
    y[900:] *= 1.08
    low, high = 4 * math.log(y.size), 1000 * math.log(y.size)
    path = segmentation.crops(y, low, high)
    assert list(path.counts) == sorted(path.counts, reverse=True) and len(set(path.counts)) == len(path.counts)
    assert list(path.penalties) == sorted(path.penalties) and path.penalties[0] == low
    assert all(len(e) - 1 == c for e, c in zip(path.ends, path.counts))
    bounds = list(path.penalties[1:]) + [high]
    for penalty in np.geomspace(low, high, 80):
        ends = tuple(segmentation.pelt(y, penalty))
        k = path.ends.index(ends)
        assert path.penalties[k] * (1 - 1e-9) <= penalty <= bounds[k] * (1 + 1e-9)


def _kneed_elbow(x, y):
    from kneed import KneeLocator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return KneeLocator(x, y, S=1.0, curve="convex", direction="decreasing").elbow
        except IndexError:
            return None


def test_elbow_is_kneed_070s_on_real_crops_paths_and_random_ones():
    """kneed 0.7.0, the study's version, is the oracle, on CROPS paths of synthetic forks
    and on random decreasing penalty/count paths (the study's call: penalties decreasing)."""
    from importlib.metadata import version

    assert version("kneed") == "0.7.0"
    rng = np.random.default_rng(11)
    checked = 0
    for seed in range(6):
        y = series(seed, 700, seed % 4, 0.05)
        path = segmentation.crops(y, 4 * math.log(700), 1e5 * math.log(700))
        if len(path.penalties) >= 2:
            x, c = path.penalties[::-1], path.counts[::-1]
            assert segmentation.elbow(x, c) == _kneed_elbow(x, c)
            checked += 1
    for _ in range(300):
        size = int(rng.integers(2, 40))
        x = np.sort(rng.choice(np.arange(1, 10_000), size, replace=False).astype(float))[::-1] * 0.37
        c = np.sort(rng.choice(np.arange(0, 400), size, replace=False))
        assert segmentation.elbow(x, c) == _kneed_elbow(x, c)
        checked += 1
    assert checked >= 300


def test_the_penalty_is_the_elbow_or_the_fallback():
    y = series(5, 800, 2, 0.03)
    log_n = math.log(y.size)
    path = segmentation.crops(y, 4 * log_n, 1e5 * log_n)
    elbow = segmentation.elbow(path.penalties[::-1], path.counts[::-1])
    assert segmentation.study_penalty(y) == (elbow if elbow is not None else 15 * log_n)
    assert segmentation.change_points(y) == segmentation.pelt(y, segmentation.study_penalty(y))


def test_constant_and_two_level_series():
    assert segmentation.pelt(np.full(50, 3.0), 10.0) == [50]  # equal values: the floor, no log(0)
    y = np.r_[np.full(30, 1.0), np.full(30, 2.0)] + np.tile([0.0, 1e-3], 30)
    assert segmentation.pelt(y, 10 * math.log(60)) == [30, 60]


@pytest.mark.parametrize("n", [4, 5, 7])
def test_the_shortest_series_have_segments_of_two_points_or_more(n):
    ends = segmentation.pelt(np.arange(n, dtype=float) ** 3, 0.0)
    assert ends[-1] == n and all(b - a >= 2 for a, b in zip([0, *ends], ends))
