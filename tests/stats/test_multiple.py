"""p-value adjustment for multiple comparisons."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigorbench.stats import adjust_p_values


def test_holm_known_vector():
    # sorted: 0.01*4=0.04, 0.02*3=0.06, 0.03*2=0.06, 0.04*1=0.04 -> monotone 0.04 0.06 0.06 0.06
    p = [0.03, 0.01, 0.04, 0.02]
    np.testing.assert_allclose(adjust_p_values(p), [0.06, 0.04, 0.06, 0.06])
    np.testing.assert_allclose(adjust_p_values(p, "holm"), [0.06, 0.04, 0.06, 0.06])


def test_holm_caps_at_one_and_handles_ties():
    np.testing.assert_allclose(adjust_p_values([0.5, 0.5, 0.9]), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(adjust_p_values([0.01, 0.01]), [0.02, 0.02])


def test_bonferroni_and_none():
    p = [0.03, 0.01, 0.4]
    np.testing.assert_allclose(adjust_p_values(p, "bonferroni"), [0.09, 0.03, 1.0])
    out = adjust_p_values(p, "none")
    np.testing.assert_allclose(out, p)


def test_empty_and_single():
    assert adjust_p_values([]).size == 0
    np.testing.assert_allclose(adjust_p_values([0.2]), [0.2])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_properties(p):
    p = np.array(p)
    holm = adjust_p_values(p)
    assert np.all(holm >= p - 1e-15) and np.all(holm <= 1.0)
    assert np.all(holm <= adjust_p_values(p, "bonferroni") + 1e-15)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(holm[order]) >= 0)  # monotone in the raw p-values


def test_validation():
    with pytest.raises(ValueError, match=r"valid methods are \['bonferroni', 'holm', 'none'\]"):
        adjust_p_values([0.1], "fdr")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        adjust_p_values([0.1, 1.5])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        adjust_p_values([float("nan")])
