"""Tests of the hierarchical bootstrap: exact resampling law, properties, reproducibility."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from rigorbench.stats import (
    ConfidenceInterval,
    RatioEstimate,
    bootstrap_distribution,
    bootstrap_ratio,
    hierarchical_bootstrap,
    percentile_interval,
)
from rigorbench.stats import _resample, bootstrap as bootstrap_module
from rigorbench.stats._hierarchy import build_hierarchy

# ---------------------------------------------------------------------------------------
# The resampling law, checked against a brute-force enumeration on tiny hierarchies


def _leaf_law(values):
    """Exact law of one leaf's resample: sorted tuple of n draws -> probability."""
    n = len(values)
    law = Counter()
    for draw in itertools.product(values, repeat=n):
        law[tuple(sorted(draw))] += Fraction(1, n**n)
    return law


def _union(laws):
    """Law of the union of independent resamples."""
    total = Counter({(): Fraction(1)})
    for law in laws:
        nxt = Counter()
        for a, pa in total.items():
            for b, pb in law.items():
                nxt[tuple(sorted(a + b))] += pa * pb
        total = nxt
    return total


def _unit_law(unit):
    """A unit is a list of values (a leaf) or a list of units."""
    if not isinstance(unit[0], list):
        return _leaf_law(unit)
    children = [_unit_law(child) for child in unit]
    law = Counter()
    k = len(children)
    for choice in itertools.product(range(k), repeat=k):
        for content, p in _union([children[i] for i in choice]).items():
            law[content] += p * Fraction(1, k**k)
    return law


def _flatten(unit, prefix=()):
    """(values, code columns) of a nested unit, codes unique within their parent."""
    if not isinstance(unit[0], list):
        return [(v, prefix) for v in unit]
    rows = []
    for i, child in enumerate(unit):
        rows += _flatten(child, prefix + (i,))
    return rows


def _statistic_law(tree, statistic):
    law = Counter()
    for content, p in _unit_law(tree).items():
        value = np.mean(content) if statistic == "mean" else np.median(content)
        law[round(float(value), 9)] += p
    return law


TREES = {
    # trials with different numbers of forks, forks with odd and even iteration counts
    "unbalanced": [[[1, 4], [2]], [[7, 3, 5]]],
    # equal leaf sizes but a different number of forks per trial
    "uniform leaves": [[[1, 6], [2, 2]], [[9, 3]]],
    # one level (iid bootstrap), odd count
    "iid": [1, 2, 4, 8, 16],
}


@pytest.mark.parametrize(("statistic", "shortcut"), [("mean", "pair table"), ("mean", None),
                                                    ("median", "bisection"), ("median", None)])
@pytest.mark.parametrize("name", sorted(TREES))
def test_resampling_law_matches_enumeration(name, statistic, shortcut, monkeypatch):
    """Chi-square goodness of fit of 20,000 resamples against the exact law, with and without
    each sampler's shortcut (the mean's pair sums, the median's bisection over ranks, and
    that one also with its count table off)."""
    monkeypatch.setattr(_resample, "_PAIR_TABLE_LIMIT", _resample._PAIR_TABLE_LIMIT if shortcut else 0)
    monkeypatch.setattr(_resample, "BISECTION_LEAF_SIZE", 0 if shortcut else 1 << 40)
    tree = TREES[name]
    rows = _flatten(tree)
    values = np.array([v for v, _ in rows], dtype=float)
    depth = len(rows[0][1])
    levels = [np.array([codes[d] for _, codes in rows]) for d in range(depth)]
    law = _statistic_law(tree, statistic)
    draws = bootstrap_distribution(values, levels, statistic=statistic, resamples=20_000,
                                   seed=7)
    observed = Counter(np.round(draws, 9).tolist())
    assert set(observed) <= set(law), "a resample took a value the law does not allow"
    support = sorted(law)
    expected = np.array([float(law[s]) for s in support]) * draws.size
    counts = np.array([observed.get(s, 0) for s in support])
    # pool cells with small expectations so the chi-square approximation holds
    keep = expected >= 5
    counts = np.append(counts[keep], counts[~keep].sum())
    expected = np.append(expected[keep], expected[~keep].sum())
    if expected[-1] == 0:
        counts, expected = counts[:-1], expected[:-1]
    assert sps.chisquare(counts, expected).pvalue > 1e-4


@pytest.mark.parametrize("name", sorted(TREES))
def test_bisection_median_without_its_count_table_has_the_same_law(name, monkeypatch):
    """The bisection's sparse paths: counts by searchsorted, slots merged by sorting."""
    monkeypatch.setattr(_resample, "_COUNT_TABLE_LIMIT", 0)
    monkeypatch.setattr(_resample, "_DENSE_SLOTS", 0)
    test_resampling_law_matches_enumeration(name, "median", "bisection", monkeypatch)


def test_codes_unique_globally_or_within_parent_agree():
    rng = np.random.default_rng(3)
    trial = np.repeat(np.arange(4), 6)
    fork_local = np.tile(np.repeat(np.arange(3), 2), 4)
    fork_global = trial * 3 + fork_local
    values = rng.lognormal(size=24)
    a = bootstrap_distribution(values, [trial, fork_local], resamples=500)
    b = bootstrap_distribution(values, [trial, fork_global], resamples=500)
    np.testing.assert_array_equal(a, b)


def test_row_order_does_not_matter():
    rng = np.random.default_rng(4)
    trial = np.repeat(np.arange(5), 8)
    fork = np.tile(np.repeat(np.arange(2), 4), 5)
    values = rng.lognormal(size=40)
    perm = rng.permutation(40)
    a = bootstrap_distribution(values, [trial, fork], resamples=300, seed=1)
    b = bootstrap_distribution(values[perm], [trial[perm], fork[perm]], resamples=300, seed=1)
    np.testing.assert_allclose(a, b, rtol=1e-12)


# ---------------------------------------------------------------------------------------
# Reproducibility and threads


def test_same_seed_same_output_and_different_seed_differs():
    rng = np.random.default_rng(5)
    x, y = rng.lognormal(size=300), rng.lognormal(size=300)
    levels = [np.repeat(np.arange(10), 30)]
    r1 = bootstrap_ratio(x, levels, y, levels, resamples=3000, seed=11)
    r2 = bootstrap_ratio(x, levels, y, levels, resamples=3000, seed=11)
    r3 = bootstrap_ratio(x, levels, y, levels, resamples=3000, seed=12)
    np.testing.assert_array_equal(r1.distribution, r2.distribution)
    assert (r1.low, r1.high) == (r2.low, r2.high)
    assert not np.array_equal(r1.distribution, r3.distribution)


@pytest.mark.parametrize("statistic", ["mean", "median"])
def test_output_does_not_depend_on_thread_count(monkeypatch, statistic):
    rng = np.random.default_rng(6)
    x = rng.lognormal(size=4000)  # several chunks per version
    levels = [np.repeat(np.arange(20), 200)]
    results = []
    for workers in (1, 2, 7):
        monkeypatch.setattr(bootstrap_module, "_workers", lambda w=workers: w)
        results.append(bootstrap_ratio(x, levels, x[::-1], levels, statistic=statistic,
                                       resamples=500, seed=3).distribution)
    for other in results[1:]:
        np.testing.assert_array_equal(results[0], other)


def test_ratio_uses_independent_streams_from_spawned_seeds():
    rng = np.random.default_rng(8)
    x, y = rng.lognormal(size=200), rng.lognormal(size=150)
    lx, ly = [np.repeat(np.arange(10), 20)], [np.repeat(np.arange(10), 15)]
    seed_b, seed_c = np.random.SeedSequence(21).spawn(2)
    r = bootstrap_ratio(x, lx, y, ly, resamples=700, seed=21)
    dist_b = bootstrap_distribution(x, lx, resamples=700, seed=seed_b)
    dist_c = bootstrap_distribution(y, ly, resamples=700, seed=seed_c)
    np.testing.assert_array_equal(r.distribution, dist_c / dist_b)  # generation order
    # Passing a SeedSequence does not consume it.
    again = np.random.SeedSequence(21)
    bootstrap_distribution(x, lx, resamples=10, seed=again)
    assert again.n_children_spawned == 0


# ---------------------------------------------------------------------------------------
# Never sort before dividing


def test_ratio_interval_width_matches_independent_resampling():
    """The sorted-vector bug makes the ratio CI far too narrow; catch it analytically.

    For iid data the bootstrap mean of each version is close to normal with standard
    error ``s / sqrt(n)``; the log-ratio of two independent such means has standard
    deviation ``sqrt(cv_b^2 / n_b + cv_c^2 / n_c)``. Pairing sorted vectors would give
    a width near ``|cv_c - cv_b| / sqrt(n)`` instead, i.e. close to zero here.
    """
    rng = np.random.default_rng(9)
    n = 400
    b = rng.normal(100.0, 10.0, size=n)
    c = rng.normal(100.0, 10.0, size=n)
    r = bootstrap_ratio(b, [], c, [], confidence=0.99, resamples=20_000, seed=1)
    se = np.sqrt((b.std() / b.mean()) ** 2 / n + (c.std() / c.mean()) ** 2 / n)
    expected_width = 2 * sps.norm.ppf(0.995) * se * r.estimate
    assert r.high - r.low == pytest.approx(expected_width, rel=0.08)
    # and the ratios are not monotone in generation order
    assert not np.all(np.diff(r.distribution) >= 0)


# ---------------------------------------------------------------------------------------
# Results and validation


def test_results_are_frozen_and_ratio_distribution_read_only():
    ci = hierarchical_bootstrap([1.0, 2.0, 3.0], [], resamples=100)
    assert isinstance(ci, ConfidenceInterval) and ci.confidence == 0.99
    with pytest.raises(AttributeError):
        ci.low = 0.0  # type: ignore[misc]
    r = bootstrap_ratio([1.0, 2.0], [], [2.0, 4.0], [], resamples=100)
    assert isinstance(r, RatioEstimate) and r.distribution.shape == (100,)
    with pytest.raises(ValueError):
        r.distribution[0] = 1.0


def test_point_estimate_is_statistic_of_pooled_values():
    values = np.array([1.0, 2.0, 3.0, 10.0, 11.0])
    levels = [np.array([0, 0, 0, 1, 1])]
    assert hierarchical_bootstrap(values, levels, resamples=50).estimate == pytest.approx(5.4)
    ci = hierarchical_bootstrap(values, levels, statistic="median", resamples=50)
    assert ci.estimate == 3.0


def test_single_value_and_single_units():
    ci = hierarchical_bootstrap([5.0], [[0], [0]], resamples=20)
    assert (ci.estimate, ci.low, ci.high) == (5.0, 5.0, 5.0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(values=[], levels=[]), "at least one value"),
        (dict(values=[1.0, np.nan], levels=[]), "finite"),
        (dict(values=[1.0, np.inf], levels=[]), "finite"),
        (dict(values=[1.0, 2.0], levels=[[0, 1, 2]]), "level 0"),
        (dict(values=[1.0, 2.0], levels=[[0.5, 1.5]]), "integers"),
        (dict(values=[1.0], levels=[], statistic="mode"), "valid statistics are"),
        (dict(values=[1.0], levels=[], resamples=0), "resamples"),
        (dict(values=[1.0], levels=[], confidence=1.0), "confidence"),
    ],
)
def test_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        hierarchical_bootstrap(**kwargs)


def test_ratio_validation_names_the_side():
    with pytest.raises(ValueError, match="contender"):
        bootstrap_ratio([1.0], [], [np.nan], [])
    with pytest.raises(ValueError, match="valid statistics are \\['mean', 'median'\\]"):
        bootstrap_ratio([1.0], [], [1.0], [], statistic="trimmed")


# ---------------------------------------------------------------------------------------
# Properties (hypothesis)

positive = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)


@st.composite
def hierarchical_samples(draw):
    """Values with 0-2 levels, unbalanced: random unit sizes."""
    depth = draw(st.integers(0, 2))
    top = draw(st.integers(1, 4))
    rows = []
    for t in range(top):
        forks = draw(st.integers(1, 3)) if depth == 2 else 1
        for f in range(forks):
            for _ in range(draw(st.integers(1, 6))):
                rows.append((t, f))
    values = draw(st.lists(positive, min_size=len(rows), max_size=len(rows)))
    levels = [np.array([r[d] for r in rows]) for d in range(depth)]
    return np.array(values), levels


SETTINGS = settings(max_examples=40, deadline=None)


@SETTINGS
@given(hierarchical_samples(), st.sampled_from(["mean", "median"]))
def test_bootstrap_statistic_within_data_range(sample, statistic):
    values, levels = sample
    dist = bootstrap_distribution(values, levels, statistic=statistic, resamples=200)
    ci = hierarchical_bootstrap(values, levels, statistic=statistic, resamples=200, interval="percentile")
    lo, hi = values.min(), values.max()
    tol = 1e-12 * hi
    assert np.all(dist >= lo - tol) and np.all(dist <= hi + tol)
    assert lo - tol <= ci.low <= ci.high <= hi + tol
    assert lo - tol <= ci.estimate <= hi + tol
    # The expanded interval widens the percentile one and stays positive for positive data
    # (it may leave the data's range: with two units its factor is about 5).
    wide = hierarchical_bootstrap(values, levels, statistic=statistic, resamples=200)
    assert 0 < wide.low <= ci.low + tol and ci.high - tol <= wide.high
    assert wide.estimate == ci.estimate


@SETTINGS
@given(hierarchical_samples(), st.floats(1e-3, 1e3), st.sampled_from(["mean", "median"]))
def test_scale_equivariance(sample, c, statistic):
    values, levels = sample
    a = hierarchical_bootstrap(values, levels, statistic=statistic, resamples=200, seed=4)
    b = hierarchical_bootstrap(c * values, levels, statistic=statistic, resamples=200, seed=4)
    for x, y in ((a.estimate, b.estimate), (a.low, b.low), (a.high, b.high)):
        assert y == pytest.approx(c * x, rel=1e-9)


@SETTINGS
@given(hierarchical_samples(), st.floats(1e-2, 1e2))
def test_ratio_scale_equivariance(sample, c):
    values, levels = sample
    same = bootstrap_ratio(values, levels, values, levels, resamples=200, seed=2)
    scaled = bootstrap_ratio(values, levels, c * values, levels, resamples=200, seed=2)
    for x, y in ((same.estimate, scaled.estimate), (same.low, scaled.low),
                 (same.high, scaled.high)):
        assert y == pytest.approx(c * x, rel=1e-9)


@SETTINGS
@given(hierarchical_samples(), st.sampled_from(["mean", "median"]))
def test_ratio_of_a_version_with_itself_contains_one(sample, statistic):
    values, levels = sample
    r = bootstrap_ratio(values, levels, values, levels, statistic=statistic, resamples=300)
    assert r.estimate == pytest.approx(1.0)
    assert r.low <= 1.0 + 1e-12 and r.high >= 1.0 - 1e-12


def _medians_via_ranks(pooled: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    ranks = _resample._Ranks.of(pooled)
    low, high = _resample._row_middles(ranks.of_value.copy(), lengths)
    return (ranks.ordered[low] + ranks.ordered[high]) / 2


def test_row_medians_of_ragged_rows_match_numpy():
    rng = np.random.default_rng(10)
    lengths = rng.integers(1, 12, size=40)
    pooled = rng.normal(size=int(lengths.sum())).round(1)   # ties too
    expected = [np.median(row) for row in np.split(pooled, np.cumsum(lengths)[:-1])]
    np.testing.assert_array_equal(_medians_via_ranks(pooled, lengths), expected)
    equal = np.full(7, 6)
    pooled = rng.normal(size=42)
    np.testing.assert_array_equal(_medians_via_ranks(pooled, equal), np.median(pooled.reshape(7, 6), axis=1))


# -- the expanded interval (small-sample correction) ---------------------------------------------


def test_expansion_factor_is_the_t_over_z_ratio_with_the_unbiased_variance():
    from rigorbench.stats.bootstrap import expansion_factor

    z = sps.norm.ppf(0.995)
    for n in (3, 5, 10, 20, 100):
        expected = np.sqrt(n / (n - 1)) * sps.t.ppf(0.995, n - 1) / z
        assert expansion_factor(0.99, [n]) == pytest.approx(expected, rel=1e-12)
    # Two versions of equal variance and size: pooled degrees of freedom 2(n - 1).
    assert expansion_factor(0.99, [5, 5], [1.0, 1.0]) == pytest.approx(
        np.sqrt(5 / 4) * sps.t.ppf(0.995, 8) / z, rel=1e-12)
    # One version dominating the variance: its own n - 1 (Welch-Satterthwaite's limit).
    assert expansion_factor(0.95, [4, 50], [1.0, 1e-9]) == pytest.approx(
        np.sqrt(4 / 3) * sps.t.ppf(0.975, 3) / sps.norm.ppf(0.975), rel=1e-6)
    # Fewer than three units: no correction (none would be useful), and the factor falls with n.
    assert expansion_factor(0.99, [2]) == expansion_factor(0.99, [1, 9]) == 1.0
    factors = [expansion_factor(0.99, [n, n]) for n in range(3, 60)]
    assert all(a > b > 1 for a, b in zip(factors, factors[1:]))


def test_expanded_widens_on_the_log_scale_and_keeps_the_skew():
    from rigorbench.stats.bootstrap import expanded

    low, high = expanded(1.0, 0.9, 1.2, 2.0)
    assert low == pytest.approx(0.81) and high == pytest.approx(1.44)
    assert expanded(2.0, -1.0, 4.0, 3.0) == (-7.0, 8.0)  # not all positive: the plain scale
    assert expanded(1.0, 0.9, 1.2, 1.0) == (0.9, 1.2)
    assert expanded(1.0, 1.1, 1.3, 2.0)[0] == 1.1  # estimate below the interval: no bound moves in


def test_top_units_are_the_first_level_with_more_than_one():
    from rigorbench.stats._hierarchy import build_hierarchy
    from rigorbench.stats.bootstrap import top_units

    values = np.arange(24, dtype=float)
    instance = np.zeros(24, dtype=int)
    trial, fork = np.repeat(np.arange(4), 6), np.tile(np.repeat(np.arange(2), 3), 4)
    assert top_units(build_hierarchy(values, [instance, trial, fork])) == 4
    assert top_units(build_hierarchy(values, [instance, np.zeros(24, dtype=int), fork])) == 2
    assert top_units(build_hierarchy(values, [instance])) == 24
    assert top_units(build_hierarchy(values, [])) == 24


def test_the_ratio_interval_names_its_method_and_units_and_percentile_is_the_old_one():
    rng = np.random.default_rng(3)
    levels = [np.repeat(np.arange(4), 10)]
    a, b = rng.lognormal(0, 0.05, 40), rng.lognormal(0.1, 0.05, 40)
    plain = bootstrap_ratio(a, levels, b, levels, resamples=500, interval="percentile")
    wide = bootstrap_ratio(a, levels, b, levels, resamples=500)
    assert (plain.method, wide.method) == ("percentile", "expanded")
    assert (wide.baseline_units, wide.contender_units) == (4, 4)
    assert (plain.low, plain.high) == pytest.approx(percentile_interval(plain.distribution, 0.99))
    assert wide.low < plain.low < plain.high < wide.high and wide.estimate == plain.estimate
    with pytest.raises(ValueError, match="unknown interval"):
        bootstrap_ratio(a, levels, b, levels, resamples=500, interval="bca")


def test_bisection_and_drawing_every_value_agree_on_a_large_benchmark():
    """20 forks x 1000 iterations (the bisection's case): two-sample KS test of the medians of
    4,000 resamples each from the two samplers (same law, independent streams)."""
    rng = np.random.default_rng(11)
    values = (rng.normal(1, 0.02, (20, 1)) * rng.lognormal(0, 0.05, (20, 1000))).ravel()
    h = build_hierarchy(values, [np.repeat(np.arange(20), 1000)])
    assert isinstance(_resample.median_sampler(h), _resample.BisectionMedianSampler)
    every = _resample.MedianSampler.of(h)(np.random.default_rng(1), 4000)
    bisected = _resample.BisectionMedianSampler.of(h)(np.random.default_rng(2), 4000)
    assert sps.ks_2samp(every, bisected).pvalue > 1e-3


def _forks(rng, forks: int, iterations: int, sigma: float, fork_sd: float = 0.02) -> tuple[np.ndarray, list[np.ndarray]]:
    values = (rng.normal(1, fork_sd, (forks, 1)) * rng.lognormal(0, sigma, (forks, iterations))).ravel()
    return values, [np.repeat(np.arange(forks), iterations)]


@pytest.mark.parametrize("sigma", [0.03, 0.3])
def test_normal_leaf_means_agree_with_drawing_every_value(sigma):
    """20 forks x 1000 iterations of lognormal noise (skewness 0.1 and 1), the forks' levels as
    spread as their resampled means (so the shortcut's part is half the variance): the
    shortcut applies, and a two-sample KS test of 4,000 resamples each cannot tell its
    distribution from drawing every value, nor do their quantiles differ in the tails."""
    values, levels = _forks(np.random.default_rng(5), 20, 1000, sigma, fork_sd=sigma / np.sqrt(1000))
    h = build_hierarchy(values, levels)
    assert isinstance(_resample.mean_sampler(h), _resample.NormalLeafMeanSampler)
    exact = _resample.MeanSampler.of(h)(np.random.default_rng(1), 4000)
    normal = _resample.mean_sampler(h)(np.random.default_rng(2), 4000)
    assert sps.ks_2samp(exact, normal).pvalue > 1e-3
    spread = np.std(exact)
    for q in (0.005, 0.025, 0.975, 0.995):
        assert abs(np.quantile(exact, q) - np.quantile(normal, q)) < 0.25 * spread


def test_heavy_tails_small_leaves_and_few_values_are_drawn_exactly():
    rng = np.random.default_rng(3)
    # a GC pause of 50x in 1% of the iterations: skewness about 10
    values, levels = _forks(rng, 20, 1000, 0.03)
    values[rng.random(values.size) < 0.01] *= 50
    assert isinstance(_resample.mean_sampler(build_hierarchy(values, levels)), _resample.MeanSampler)
    values, levels = _forks(rng, 20, 400, 0.03)  # below NORMAL_LEAF_SIZE
    assert isinstance(_resample.mean_sampler(build_hierarchy(values, levels)), _resample.MeanSampler)
    values, levels = _forks(rng, 20, 1000, 0.03)
    assert isinstance(_resample.mean_sampler(build_hierarchy(values, levels)), _resample.NormalLeafMeanSampler)


def test_smallest_pooled_count_of_an_unbalanced_tree():
    # trial 0: forks of 3 and 5 values; trial 1: one fork of 4. A resample draws 2 trials;
    # the fewest values: trial 1 twice (4 + 4) beats trial 0 twice (2 forks x 3 each, twice).
    sizes = {(0, 0): 3, (0, 1): 5, (1, 0): 4}
    trial = np.concatenate([np.full(n, t) for (t, _), n in sizes.items()])
    fork = np.concatenate([np.full(n, f) for (_, f), n in sizes.items()])
    h = build_hierarchy(np.arange(trial.size, dtype=float), [trial, fork])
    assert _resample._smallest_pooled_count(h) == 8
