"""Cliff's delta and Romano's magnitudes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigorbench.stats import cliffs_delta, effect_magnitude

values = st.lists(st.integers(-5, 5).map(float), min_size=1, max_size=25)


def _brute_force(baseline, contender) -> float:
    wins = sum(c > b for c in contender for b in baseline)
    losses = sum(c < b for c in contender for b in baseline)
    return (wins - losses) / (len(baseline) * len(contender))


def test_hand_computed_table():
    # contender 3 vs baseline {1, 2, 3}: wins 2, ties 1 -> 2/3 for that value
    assert cliffs_delta([1, 2, 3], [3]) == pytest.approx(2 / 3)
    # pairs: (4,1) (4,2) (4,3) win, (0,1) (0,2) (0,3) lose -> 0
    assert cliffs_delta([1, 2, 3], [4, 0]) == 0.0
    assert cliffs_delta([1, 2], [3, 4]) == 1.0
    assert cliffs_delta([3, 4], [1, 2]) == -1.0
    assert cliffs_delta([5, 5], [5]) == 0.0
    # 2x3: contender [2, 2, 9] vs baseline [1, 2]: wins 1+1+2 = 4, losses 0 -> 4/6
    assert cliffs_delta([1, 2], [2, 2, 9]) == pytest.approx(4 / 6)


@settings(max_examples=200, deadline=None)
@given(values, values)
def test_matches_brute_force_antisymmetric_and_bounded(baseline, contender):
    d = cliffs_delta(baseline, contender)
    assert d == pytest.approx(_brute_force(baseline, contender), abs=1e-12)
    assert d == pytest.approx(-cliffs_delta(contender, baseline), abs=1e-12)
    assert -1.0 <= d <= 1.0


def test_large_input_is_fast_enough_to_be_n_log_n():
    rng = np.random.default_rng(0)
    b, c = rng.normal(size=200_000), rng.normal(0.1, size=200_000)
    d = cliffs_delta(b, c)  # O(n^2) would be 4e10 comparisons
    assert 0.0 < d < 0.15


@pytest.mark.parametrize(
    "delta, label",
    [
        (0.0, "negligible"), (0.147, "negligible"), (-0.147, "negligible"),
        (0.1471, "small"), (0.33, "small"), (-0.33, "small"),
        (0.3301, "medium"), (0.474, "medium"), (-0.474, "medium"),
        (0.4741, "large"), (1.0, "large"), (-1.0, "large"),
    ],
)
def test_romano_boundaries(delta, label):
    assert effect_magnitude(delta) == label


@pytest.mark.parametrize("bad", [float("nan"), 1.5, -2.0])
def test_magnitude_rejects_impossible_delta(bad):
    with pytest.raises(ValueError):
        effect_magnitude(bad)


def test_validation():
    with pytest.raises(ValueError, match="baseline"):
        cliffs_delta([], [1.0])
    with pytest.raises(ValueError, match="contender"):
        cliffs_delta([1.0], [float("nan")])
