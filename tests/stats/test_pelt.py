"""The PELT of ``stats/segmentation.py`` (one series, or many in one loop) against
``ruptures.Pelt`` itself (the oracle it replaced), with the cost the steady-state detection
used to give ``ruptures``, and many series at once against each series alone."""

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
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(300, 900), steps=st.integers(0, 4),
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


# -- many series in one loop (stats/segmentation.py) ---------------------------------------------


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(1, 6), min_size=st.integers(2, 9), jump=st.integers(1, 12))
def test_many_rows_give_each_row_its_own_answer(seed, rows, min_size, jump):
    """Series of different lengths at different penalties, segmented together, give what
    each gives alone (and each alone is checked against ruptures above)."""
    from rigorbench.stats.segmentation import MeanVarCost, pelt

    rng = np.random.default_rng(seed)
    ys = [series(int(rng.integers(1 << 30)), int(rng.integers(300, 1300)), int(rng.integers(0, 4)),
                 float(rng.choice([0.001, 0.03, 0.3]))) for _ in range(rows)]
    penalties = [float(rng.uniform(2, 200)) * math.log(y.size) for y in ys]
    together = pelt([MeanVarCost(y) for y in ys], penalties, min_size, jump)
    alone = [pelt([MeanVarCost(y)], [p], min_size, jump)[0] for y, p in zip(ys, penalties)]
    assert together == alone
    assert all(ends[-1] == y.size for ends, y in zip(together, ys))


def test_crops_of_many_series_is_crops_of_each():
    from rigorbench.stats.segmentation import crops, crops_many

    rng = np.random.default_rng(5)
    ys = []
    for k in range(8):
        y = series(k, int(rng.integers(900, 1100)), k % 3, 0.02)
        y[: 50 + 10 * k] *= 1.3  # a warmup of its own length
        ys.append(y)
    low = [20 * math.log(y.size) for y in ys]
    high = [400 * math.log(y.size) for y in ys]
    many = crops_many(ys, low, high, min_size=5, jump=4)
    assert many == [crops(y, a, b, min_size=5, jump=4) for y, a, b in zip(ys, low, high)]
    assert any(len(path) > 2 for path in many)  # some searches needed more than the two ends
