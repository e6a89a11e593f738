"""Mann-Whitney U against scipy: exact (with and without ties) and asymptotic."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from rigorbench.stats import MannWhitneyResult, mann_whitney_u
from rigorbench.stats.ranktest import EXACT_LIMIT

PERMUTATION = sps.PermutationMethod(n_resamples=np.inf)


def test_textbook_example():
    # scipy's documented example: males vs females, U_males = 17, exact p = 0.1111
    males, females = [19, 22, 16, 29, 24], [20, 11, 17, 12]
    r = mann_whitney_u(females, males)
    assert r == MannWhitneyResult(u=17.0, p_value=pytest.approx(1 / 9), method="exact")


def test_u_counts_contender_wins_and_half_ties():
    r = mann_whitney_u([1.0, 2.0, 3.0], [2.0, 4.0])
    # pairs (2,1) win, (2,2) tie, (2,3) loss, (4,*) 3 wins -> 4.5
    assert r.u == 4.5


@pytest.mark.parametrize("seed", range(60))
def test_exact_without_ties_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    n1, n2 = rng.integers(1, 30, size=2)
    b = rng.normal(size=n1)
    c = rng.normal(rng.uniform(-1, 1), size=n2)
    ours = mann_whitney_u(b, c, method="exact")
    theirs = sps.mannwhitneyu(c, b, method="exact")
    assert ours.u == theirs.statistic
    assert ours.p_value == pytest.approx(theirs.pvalue, abs=1e-9)
    assert ours.method == "exact"


@pytest.mark.parametrize("seed", range(150))
def test_exact_with_ties_matches_complete_permutation_test(seed):
    rng = np.random.default_rng(1000 + seed)
    n1, n2 = rng.integers(2, 9, size=2)
    levels = rng.integers(1, 6)  # 1 = all equal, heavy ties otherwise
    b = rng.integers(0, levels, size=n1).astype(float)
    c = rng.integers(0, levels, size=n2).astype(float)
    ours = mann_whitney_u(b, c, method="exact")
    theirs = sps.mannwhitneyu(c, b, method=PERMUTATION)
    assert ours.u == theirs.statistic
    assert ours.p_value == pytest.approx(theirs.pvalue, abs=1e-9)


def _brute_force_p(b, c) -> float:
    """Two-sided p by enumerating every split of the pooled sample (handles n = 1)."""
    pooled = np.concatenate([c, b])
    ranks = sps.rankdata(pooled)
    n1 = len(c)
    observed = ranks[:n1].sum()
    sums = [ranks[list(idx)].sum() for idx in itertools.combinations(range(len(pooled)), n1)]
    sums = np.array(sums)
    below = np.mean(sums <= observed + 1e-9)
    above = np.mean(sums >= observed - 1e-9)
    return min(1.0, 2 * min(below, above))


@pytest.mark.parametrize(
    "b, c",
    [([1.0], [2.0]), ([1.0], [1.0]), ([1.0, 1.0, 2.0], [1.0]), ([3.0], [1.0, 3.0, 3.0, 5.0])],
)
def test_exact_single_values_against_enumeration(b, c):
    assert mann_whitney_u(b, c, method="exact").p_value == pytest.approx(
        _brute_force_p(np.array(b), np.array(c)), abs=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 4), min_size=2, max_size=7),
    st.lists(st.integers(0, 4), min_size=2, max_size=7),
)
def test_exact_heavy_ties_property(b, c):
    ours = mann_whitney_u(b, c, method="exact")
    theirs = sps.mannwhitneyu(c, b, method=PERMUTATION)
    assert ours.p_value == pytest.approx(theirs.pvalue, abs=1e-9)


@pytest.mark.parametrize("seed", range(60))
def test_asymptotic_matches_scipy(seed):
    rng = np.random.default_rng(2000 + seed)
    n1, n2 = rng.integers(2, 300, size=2)
    b = np.round(rng.lognormal(size=n1), int(rng.integers(0, 3)))  # ties from rounding
    c = np.round(rng.lognormal(rng.uniform(-0.3, 0.3), size=n2), 1)
    ours = mann_whitney_u(b, c, method="asymptotic")
    theirs = sps.mannwhitneyu(c, b, method="asymptotic", use_continuity=True)
    assert ours.u == theirs.statistic
    assert ours.p_value == pytest.approx(theirs.pvalue, abs=1e-12)
    assert ours.method == "asymptotic"


def test_auto_chooses_by_size():
    rng = np.random.default_rng(7)
    assert mann_whitney_u(rng.normal(size=50), rng.normal(size=50)).method == "exact"
    assert mann_whitney_u(rng.normal(size=51), rng.normal(size=50)).method == "asymptotic"
    assert mann_whitney_u(rng.normal(size=1), rng.normal(size=EXACT_LIMIT)).method == "exact"
    assert 50 * 50 == EXACT_LIMIT


def test_exact_at_the_auto_limit_matches_scipy_and_ties():
    rng = np.random.default_rng(8)
    b, c = rng.normal(size=50), rng.normal(0.3, size=50)
    assert mann_whitney_u(b, c).p_value == pytest.approx(
        sps.mannwhitneyu(c, b, method="exact").pvalue, abs=1e-9)
    # tied 50 x 50: exact vs scipy's asymptotic with tie correction (close, not equal)
    b, c = rng.integers(0, 8, size=50), rng.integers(1, 9, size=50)
    exact = mann_whitney_u(b, c).p_value
    normal = sps.mannwhitneyu(c, b, method="asymptotic").pvalue
    assert exact == pytest.approx(normal, rel=0.1)


@pytest.mark.parametrize("method", ["exact", "asymptotic", "auto"])
def test_all_equal_gives_p_one(method):
    r = mann_whitney_u([3.0] * 10, [3.0] * 7, method=method)
    assert r.p_value == 1.0 and r.u == 35.0


def test_p_value_is_symmetric_in_the_samples():
    rng = np.random.default_rng(9)
    b, c = rng.integers(0, 5, size=12), rng.integers(0, 5, size=9)
    for method in ("exact", "asymptotic"):
        one = mann_whitney_u(b, c, method=method)
        other = mann_whitney_u(c, b, method=method)
        assert one.p_value == pytest.approx(other.p_value, abs=1e-12)
        assert one.u + other.u == 12 * 9


def test_validation():
    with pytest.raises(ValueError, match=r"valid methods are \['auto', 'exact', 'asymptotic'\]"):
        mann_whitney_u([1.0], [2.0], method="permutation")
    with pytest.raises(ValueError, match="baseline"):
        mann_whitney_u([], [1.0])
    with pytest.raises(ValueError, match="contender"):
        mann_whitney_u([1.0], [math.inf])
    with pytest.raises(ValueError, match="asymptotic"):
        mann_whitney_u(np.arange(3000.0), np.arange(3000.0) + 0.5, method="exact")
