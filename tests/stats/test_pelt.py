"""The vectorised PELT of ``stats.steady`` against ``ruptures.Pelt`` itself (the oracle it
replaced), with the cost the steady-state detection used to give ``ruptures``."""

from __future__ import annotations

import math

import numpy as np
import pytest
import ruptures as rpt
from hypothesis import given, settings, strategies as st
from ruptures.base import BaseCost

from rigorbench.stats import steady


class _ScalarMeanVarCost(BaseCost):
    """``m * log(var)`` one segment at a time, as steady.py computed it for ruptures."""

    model = "meanvar-scalar"

    def __init__(self, min_size: int) -> None:
        self.min_size = min_size

    def fit(self, signal):
        x = np.asarray(signal, dtype=np.float64)
        centred = x - np.median(x)
        self._s1 = np.concatenate(([0.0], np.cumsum(centred)))
        self._s2 = np.concatenate(([0.0], np.cumsum(centred * centred)))
        self._floor = (1e-9 * max(float(np.mean(np.abs(x))), np.finfo(float).tiny)) ** 2
        self.signal = x
        return self

    def error(self, start: int, end: int) -> float:
        m = end - start
        s1, s2 = self._s1[end] - self._s1[start], self._s2[end] - self._s2[start]
        return m * math.log(max(s2 / m - (s1 / m) ** 2, self._floor))


PENALTY = 60.0  # per log(n); any fixed penalty compares the two searches


def ruptures_change_points(y: np.ndarray, min_size: int, jump: int) -> list[int]:
    algo = rpt.Pelt(custom_cost=_ScalarMeanVarCost(min_size), min_size=min_size, jump=jump)
    bkps = algo.fit(y).predict(pen=PENALTY * math.log(y.size))
    return [b for b in bkps if b < y.size]


def series(seed: int, n: int, steps: int, noise: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    level = np.ones(n)
    for start in rng.integers(0, n, steps):
        level[start:] *= rng.uniform(0.6, 1.6)
    return 1e-6 * level * rng.lognormal(0.0, noise, n)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(500, 1600), steps=st.integers(0, 4),
       noise=st.sampled_from([0.001, 0.03, 0.3]), min_size=st.integers(2, 9), jump=st.integers(1, 12))
def test_same_change_points_as_ruptures(seed, n, steps, noise, min_size, jump):
    y = series(seed, n, steps, noise)
    assert steady._change_points(y, min_size, jump, PENALTY * math.log(y.size)) == ruptures_change_points(y, min_size, jump)


@pytest.mark.parametrize("min_size, jump", [(5, 4), (2, 4), (5, 10), (9, 2)])
def test_planted_steps_found_as_ruptures_finds_them(min_size, jump):
    y = series(7, 1000, 0, 0.02)
    y[300:] *= 1.5
    y[700:] *= 0.5
    found = steady._change_points(y, min_size, jump, PENALTY * math.log(y.size))
    assert found == ruptures_change_points(y, min_size, jump)
    assert len(found) >= 2 and any(abs(c - 300) <= jump for c in found) and any(abs(c - 700) <= jump for c in found)
