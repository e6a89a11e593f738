"""unique_rows against numpy.unique(axis=0), its oracle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from rigorbench.stats.grouping import unique_rows


@settings(max_examples=60, deadline=None)
@given(arrays(np.int64, st.tuples(st.integers(0, 300), st.integers(1, 4)),
              elements=st.integers(-5, 40) | st.sampled_from([-(2**40), 2**40])))
def test_same_groups_in_the_same_order_as_numpy_unique(keys):
    unique, inverse = unique_rows(keys)
    expected, expected_inverse = np.unique(keys, axis=0, return_inverse=True)
    assert np.array_equal(unique, expected) and unique.dtype == keys.dtype
    assert np.array_equal(inverse, expected_inverse.reshape(-1))


def test_codes_too_wide_for_one_integer_fall_back_to_numpy():
    keys = np.array([[0, 0, 0], [2**40, 2**40, 1], [0, 0, 0]], dtype=np.int64)
    unique, inverse = unique_rows(keys)
    assert unique.tolist() == [[0, 0, 0], [2**40, 2**40, 1]] and inverse.tolist() == [0, 1, 0]


def test_floats_and_bad_shapes():
    unique, inverse = unique_rows(np.array([[1.5, 0.0], [1.5, 0.0], [0.5, 1.0]]))
    assert unique.tolist() == [[0.5, 1.0], [1.5, 0.0]] and inverse.tolist() == [1, 1, 0]
    with pytest.raises(ValueError, match="2-d"):
        unique_rows(np.arange(3))
