"""Descriptive statistics against numpy, weighted and unweighted."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigorbench.stats import Summary, percentiles, summarize

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


def _expected(x: np.ndarray) -> dict:
    n = x.size
    mean = x.mean()
    sd = x.std(ddof=1) if n >= 2 else math.nan
    median = np.median(x)
    return dict(
        n=n, mean=mean, median=median, sd=sd,
        cv=sd / abs(mean) if n >= 2 and mean != 0 else math.nan,
        min=x.min(), max=x.max(), mad=np.median(np.abs(x - median)),
    )


def _check(summary: Summary, expected: dict) -> None:
    assert summary.n == expected["n"]
    for field in ("mean", "median", "sd", "cv", "min", "max", "mad"):
        got, want = getattr(summary, field), expected[field]
        if math.isnan(want):
            assert math.isnan(got), field
        else:
            assert got == pytest.approx(want, rel=1e-9, abs=1e-9), field


def test_small_table():
    s = summarize([1.0, 2.0, 3.0, 4.0, 100.0])
    # deviations from 22: -21 -20 -19 -18 78 -> sum of squares 7610, / 4 = 1902.5
    sd = 1902.5**0.5
    assert s == Summary(n=5, mean=22.0, median=3.0, sd=pytest.approx(sd),
                        cv=pytest.approx(sd / 22.0), min=1.0, max=100.0, mad=1.0)


def test_single_value_and_zero_mean():
    s = summarize([7.0])
    assert (s.n, s.mean, s.median, s.min, s.max, s.mad) == (1, 7.0, 7.0, 7.0, 7.0, 0.0)
    assert math.isnan(s.sd) and math.isnan(s.cv)
    assert math.isnan(summarize([-1.0, 1.0]).cv)


def test_histogram_weights_equal_expanded_sample():
    values = [10.0, 11.0, 12.0, 50.0]
    weights = [3, 5, 1, 1]
    _check(summarize(values, weights), _expected(np.repeat(values, weights)))
    assert summarize(values, weights).n == 10


@settings(max_examples=100, deadline=None)
@given(st.lists(finite, min_size=1, max_size=30))
def test_unweighted_matches_numpy(values):
    _check(summarize(values), _expected(np.array(values)))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(finite, st.integers(1, 5)), min_size=1, max_size=20))
def test_weighted_matches_expanded(rows):
    values = np.array([v for v, _ in rows])
    weights = np.array([w for _, w in rows])
    expanded = np.repeat(values, weights)
    _check(summarize(values, weights), _expected(expanded))
    # float weights holding integers are accepted too
    _check(summarize(values, weights.astype(float)), _expected(expanded))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(finite, st.integers(1, 5)), min_size=1, max_size=20),
    st.lists(st.floats(0, 100), min_size=1, max_size=6),
)
def test_percentiles_match_numpy(rows, qs):
    values = np.array([v for v, _ in rows])
    weights = np.array([w for _, w in rows])
    np.testing.assert_allclose(percentiles(values, qs), np.percentile(values, qs),
                               rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(percentiles(values, qs, weights),
                               np.percentile(np.repeat(values, weights), qs),
                               rtol=1e-12, atol=1e-9)


def test_percentiles_shape_and_scalar():
    assert percentiles([1.0, 2.0, 3.0], [0, 50, 100]).tolist() == [1.0, 2.0, 3.0]
    assert float(percentiles([1.0, 2.0, 3.0, 4.0], 50, weights=[1, 1, 1, 1])) == 2.5


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: summarize([]), "at least one value"),
        (lambda: summarize([1.0, float("nan")]), "finite"),
        (lambda: summarize([1.0, 2.0], [1, 0]), "positive integer"),
        (lambda: summarize([1.0, 2.0], [1, 1.5]), "positive integer"),
        (lambda: summarize([1.0, 2.0], [1]), "weights has 1"),
        (lambda: percentiles([1.0], [101]), r"\[0, 100\]"),
        (lambda: percentiles([1.0], [-1]), r"\[0, 100\]"),
    ],
)
def test_validation(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_t_half_width_is_scipys_t_interval_and_counts_weight_values():
    from scipy import stats as sps

    from rigorbench.stats.descriptive import t_half_width

    rng = np.random.default_rng(11)
    values = rng.normal(10, 2, 25)
    low, high = sps.t.interval(0.999, len(values) - 1, loc=values.mean(), scale=sps.sem(values))
    assert t_half_width(values, np.ones(25), 0.999) == pytest.approx((high - low) / 2, rel=1e-10)
    repeated = np.repeat(values[:5], [1, 2, 3, 1, 1])
    expected = t_half_width(repeated, np.ones(len(repeated)), 0.99)
    assert t_half_width(values[:5], np.array([1, 2, 3, 1, 1]), 0.99) == pytest.approx(expected)
    assert np.isnan(t_half_width(values[:2], np.ones(2), 0.99))
