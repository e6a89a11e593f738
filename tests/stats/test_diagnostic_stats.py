"""The statistics behind ``analyze``'s diagnostics, against oracles (scipy, hand tables) and
synthetic data with known truth: variability by level, modes, outliers, trend, coincidence."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from rigorbench.stats.coincidence import coincidence
from rigorbench.stats.modality import fork_clusters, modes
from rigorbench.stats.outliers import extreme_outliers, tukey_fences
from rigorbench.stats.trend import trend
from rigorbench.stats.variability import group_means, variability_by_level


def nested(rng, trials=30, forks=4, iterations=20, sd=(2.0, 1.0, 0.5), mean=100.0):
    """Normal data with a random effect per trial, fork and iteration (sd in that order)."""
    values, trial, fork = [], [], []
    for t in range(trials):
        t_effect = rng.normal(0, sd[0])
        for f in range(forks):
            f_effect = rng.normal(0, sd[1])
            values.extend(mean + t_effect + f_effect + rng.normal(0, sd[2], iterations))
            trial += [t] * iterations
            fork += [f] * iterations
    n = len(values)
    return np.array(values), np.zeros(n, int), np.array(trial), np.array(fork)


def test_cvs_per_level_on_a_hand_table():
    # One trial, two forks of three iterations: [1, 2, 3] and [3, 4, 5].
    values = np.array([1, 2, 3, 3, 4, 5], dtype=float)
    v = variability_by_level(values, [0] * 6, [0] * 6, [0, 0, 0, 1, 1, 1])
    assert v.total == pytest.approx(np.std(values, ddof=1) / 3)
    assert v.iteration == pytest.approx(np.mean([1 / 2, 1 / 4]))
    assert v.fork == pytest.approx(np.std([2, 4], ddof=1) / 3)
    assert v.trial is None and v.instance is None
    # within-fork variance 1; fork means 2 and 4 vary by 2, of which 1/3 is iteration noise.
    assert v.components["iteration"] == pytest.approx(1 / (1 + 2 - 1 / 3))
    assert set(v.components) == {"iteration", "fork"} and v.dominant == "fork"


def test_fork_component_matches_one_way_anova_from_scipy():
    rng = np.random.default_rng(1)
    forks = [rng.normal(rng.normal(50, 2), 1.5, 12) for _ in range(15)]
    values = np.concatenate(forks)
    code = np.repeat(np.arange(15), 12)
    v = variability_by_level(values, np.zeros_like(code), np.zeros_like(code), code)
    msw = np.mean([np.var(f, ddof=1) for f in forks])
    msb = sps.f_oneway(*forks).statistic * msw
    fork_var, iter_var = (msb - msw) / 12, msw
    assert v.components["fork"] == pytest.approx(fork_var / (fork_var + iter_var))


@pytest.mark.parametrize("level, sd", [("trial", (4, 0.3, 0.3)), ("fork", (0.3, 4, 0.3)), ("iteration", (0.3, 0.3, 4))])
def test_components_recover_the_dominant_level(level, sd):
    rng = np.random.default_rng(2)
    values, instance, trial, fork = nested(rng, sd=sd)
    v = variability_by_level(values, instance, trial, fork)
    truth = {"trial": sd[0] ** 2, "fork": sd[1] ** 2, "iteration": sd[2] ** 2}
    total = sum(truth.values())
    assert v.dominant == level
    for name, var in truth.items():
        assert v.components[name] == pytest.approx(var / total, abs=0.1), (name, v.components)
    assert sum(v.components.values()) == pytest.approx(1.0)


def test_group_means_are_the_means_of_each_label_combination():
    rng = np.random.default_rng(5)
    trial, fork = rng.integers(0, 3, 200), rng.integers(0, 4, 200)
    values = rng.normal(10, 2, 200)
    expected = [values[(trial == t) & (fork == f)].mean() for t in range(3) for f in range(4) if ((trial == t) & (fork == f)).any()]
    assert group_means(values, [trial, fork]) == pytest.approx(expected, rel=1e-12)
    assert len(group_means(np.array([]), [np.array([]), np.array([])])) == 0


def test_variability_validates_input():
    with pytest.raises(ValueError):
        variability_by_level([1.0, np.nan], [0, 0], [0, 0], [0, 0])
    with pytest.raises(ValueError):
        variability_by_level([1.0, 2.0], [0], [0, 0], [0, 0])


def test_tukey_fences_on_a_hand_table():
    values = np.array([1, 2, 3, 4, 5, 6, 7, 8, 30, -40], dtype=float)
    o = tukey_fences(values)
    q1, q3 = np.percentile(values, [25, 75])
    assert (o.q1, o.q3, o.iqr) == (q1, q3, q3 - q1)
    assert o.high_mild == q3 + 1.5 * (q3 - q1) and o.low_severe == q1 - 3 * (q3 - q1)
    assert list(o.severe_index) == [8, 9] and o.mild == 0
    mild = tukey_fences(np.array([1, 2, 3, 4, 5, 6, 7, 8, 14.0]))
    assert list(mild.mild_index) == [8] and mild.severe == 0


def test_extreme_outliers_are_ten_times_the_median():
    assert list(extreme_outliers([1.0, 1.0, 1.0, 1.0, 10.0, 9.9])) == [False, False, False, False, True, False]
    assert not extreme_outliers([-1.0, -20.0, -1.0]).any()


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=50))
@settings(max_examples=50, deadline=None)
def test_tukey_mild_and_severe_never_overlap(values):
    o = tukey_fences(values)
    assert not set(o.mild_index) & set(o.severe_index)


def test_trend_slope_is_scipys_and_flags_real_drift_only():
    rng = np.random.default_rng(3)
    drift = 100 * (1 + 0.05 * np.linspace(0, 1, 80)) + rng.normal(0, 0.5, 80)
    t = trend(drift)
    assert t.slope == pytest.approx(sps.theilslopes(drift, np.arange(80)).slope)
    assert t.significant and t.direction == "up" and t.relative_drift == pytest.approx(0.05, abs=0.01)
    assert trend(drift[::-1]).direction == "down"
    false_alarms = sum(trend(100 + rng.normal(0, 1, 80)).significant for _ in range(100))
    assert false_alarms <= 3
    assert not trend(np.full(10, 5.0)).significant


def test_coincidence_uses_fishers_exact_test_and_finds_gc_spikes():
    rng = np.random.default_rng(4)
    events = (rng.random(300) < 0.2).astype(float)
    values = 100 * np.where(events > 0, 1.3, 1.0) + rng.normal(0, 1, 300)
    c = coincidence(values, events)
    slow = values > np.quantile(values, 0.9)
    has = events > 0
    table = [[np.sum(slow & has), np.sum(slow & ~has)], [np.sum(~slow & has), np.sum(~slow & ~has)]]
    assert c.p_value == pytest.approx(sps.fisher_exact(table, alternative="greater").pvalue)
    assert c.associated and c.slowdown == pytest.approx(1.3, abs=0.02)
    # Throughput: slow is low; a GC iteration with 30% less throughput is "slower".
    thr = coincidence(1 / values, events, higher_is_slower=False)
    assert thr.associated and thr.slowdown == pytest.approx(1.3, abs=0.02)


def test_coincidence_stays_quiet_without_association():
    rng = np.random.default_rng(5)
    alarms = sum(coincidence(rng.normal(100, 1, 200), (rng.random(200) < 0.2).astype(float)).associated for _ in range(200))
    assert alarms <= 6  # alpha 0.01: expect about 2 of 200
    none = coincidence(rng.normal(100, 1, 50), np.zeros(50))
    assert not none.associated and none.mean_with is None and none.slowdown is None


@pytest.mark.parametrize("n", [200, 2000, 20000])
def test_unimodal_data_is_not_called_multimodal(n):
    rng = np.random.default_rng(6)
    runs = 50 if n < 20000 else 10
    alarms = sum(modes(rng.normal(100, 3, n)).multimodal for _ in range(runs))
    assert alarms <= max(1, runs // 10)
    assert not modes(rng.lognormal(0, 0.5, n)).multimodal


def test_a_seventy_thirty_mixture_is_bimodal_with_its_centres_and_shares():
    rng = np.random.default_rng(7)
    high = rng.random(2000) < 0.3
    m = modes(np.where(high, rng.normal(170, 1, 2000), rng.normal(164, 1, 2000)))
    assert m.multimodal and len(m.centers) == 2
    assert m.centers[0] == pytest.approx(164, abs=0.5) and m.centers[1] == pytest.approx(170, abs=0.5)
    assert m.shares[0] == pytest.approx(0.7, abs=0.03) and m.shares[1] == pytest.approx(0.3, abs=0.03)
    flat = modes(np.full(50, 3.0))
    assert not flat.multimodal and flat.p_value is None


def test_fork_means_in_two_groups_and_in_one():
    rng = np.random.default_rng(8)
    two = np.r_[rng.normal(100, 0.3, 6), rng.normal(110, 0.3, 4)]
    c = fork_clusters(two)
    assert c.clustered and sorted(map(len, c.groups)) == [4, 6]
    assert sorted(round(x) for x in c.centers) == [100, 110]
    alarms = sum(fork_clusters(rng.normal(100, 1, n)).clustered for n in (6, 10, 20, 50) for _ in range(100))
    assert alarms <= 8  # critical values at the 99.9th percentile: expect about 0.4 of 400
    assert not fork_clusters(np.array([1.0, 5.0, 9.0])).clustered  # too few forks to tell


def test_long_series_are_tested_on_block_means_with_the_same_drift():
    rng = np.random.default_rng(9)
    long = 100 * (1 + 0.04 * np.linspace(0, 1, 3000)) + rng.normal(0, 1, 3000)
    t = trend(long)
    assert t.significant and t.direction == "up" and t.relative_drift == pytest.approx(0.04, abs=0.005)
    assert not trend(100 + rng.normal(0, 1, 3000)).significant


@pytest.mark.parametrize("sd", [0.3, 0.6, 1.0])
def test_values_rounded_to_a_grid_are_not_called_multimodal(sd):
    # Integer ns/op with a spread of about one step: every integer is a spike.
    rng = np.random.default_rng(10)
    alarms = sum(modes(np.round(rng.normal(100, sd, 500))).multimodal for _ in range(20))
    assert alarms <= 2
    high = rng.random(1000) < 0.3
    assert modes(np.round(np.where(high, rng.normal(130, 2, 1000), rng.normal(100, 2, 1000)))).multimodal


# -- Mann-Kendall corrected for autocorrelation (Hamed & Rao 1998) -------------------------------


def _ar1(rng: np.random.Generator, n: int, phi: float) -> np.ndarray:
    e = rng.normal(0, 1, n + 100)
    x = np.zeros(n + 100)
    for i in range(1, n + 100):
        x[i] = phi * x[i - 1] + e[i]
    return 100 + x[100:]


@pytest.mark.parametrize("n, phi", [(30, 0.0), (80, 0.6), (150, 0.9)])
def test_mann_kendall_statistics_and_the_hamed_rao_formula_match_pymannkendall(n, phi):
    import pymannkendall as mk

    from rigorbench.stats import trend as trend_module

    rng = np.random.default_rng(n)
    x = _ar1(rng, n, phi) + 0.01 * np.arange(n)
    plain = mk.original_test(x)
    t = trend(x)
    assert t.plain_p_value == pytest.approx(plain.p, rel=1e-9, abs=1e-15)
    index = np.arange(n, dtype=float)
    assert trend_module._mann_kendall_s(x) == plain.s and trend_module._s_variance(x) == pytest.approx(plain.var_s)
    # The formula with the lag-1 autocorrelation alone is pymannkendall's Hamed-Rao test at lag 1.
    r = trend_module.rank_lag1(index, x, t.slope)
    significant = abs(r) > sps.norm.ppf(0.975) / np.sqrt(n)
    factor = trend_module.hamed_rao_factor(n, [r]) if significant else 1.0
    ours = trend_module._p_value(plain.s, plain.var_s * factor)
    assert ours == pytest.approx(mk.hamed_rao_modification_test(x, alpha=0.05, lag=1).p, rel=1e-9, abs=1e-15)


def test_autocorrelated_noise_without_trend_rarely_raises_the_alarm():
    """AR(1) noise, no trend, alpha 1%: the corrected p-value keeps false alarms near the
    nominal rate where the plain one fires in a third of the series."""
    rng = np.random.default_rng(11)
    runs = 150
    for phi, plain_at_least, corrected_at_most in ((0.0, 0.0, 0.03), (0.8, 0.2, 0.06)):
        results = [trend(_ar1(rng, 200, phi)) for _ in range(runs)]
        plain = sum(r.plain_p_value < 0.01 for r in results) / runs
        corrected = sum(r.p_value < 0.01 for r in results) / runs
        assert corrected <= corrected_at_most and plain >= plain_at_least, (phi, plain, corrected)
    # ... and a real drift in autocorrelated noise is still found.
    drifting = _ar1(rng, 200, 0.5) + np.linspace(0, 15, 200)
    assert trend(drifting).significant and trend(drifting).direction == "up"


def test_fork_cluster_statistic_matches_the_direct_loop():
    """Oracle: the gap over the pooled within-side sd at every split, one split at a time."""
    rng = np.random.default_rng(21)
    from rigorbench.stats.modality import gap_ratios

    for n in (4, 5, 9, 23):
        s = np.sort(rng.normal(100, 2, n))
        direct = []
        for k in range(2, n - 1):
            low, high = s[:k], s[k:]
            pooled = np.sqrt(((k - 1) * low.var(ddof=1) + (n - k - 1) * high.var(ddof=1)) / (n - 2))
            direct.append((high[0] - low[-1]) / pooled)
        assert gap_ratios(s)[0] == pytest.approx(direct, rel=1e-9)


@pytest.mark.parametrize("n", [4, 5, 7, 12, 30, 50])
def test_fork_cluster_false_alarm_rate_is_the_nominal_one_in_a_thousand(n):
    """Normal fork means (no groups), a seed independent of the table's: the share called
    clustered is compatible with 0.1% (its Wilson 99% interval holds 0.001), for every count
    from 4 forks on. The old table (6/10/20/50, interpolated, 4,000 draws each) measured
    0.16% at 6 forks, 0.21% at 10, 0.06% at 30, and never tested 4 or 5 (200,000 draws)."""
    from rigorbench.stats.modality import _critical, gap_ratios

    draws = 60_000
    rng = np.random.default_rng(1000 + n)
    best = gap_ratios(np.sort(rng.standard_normal((draws, n)), axis=1)).max(axis=1)
    alarms = int(np.sum(best > _critical(n)))
    interval = sps.binomtest(alarms, draws).proportion_ci(0.99, method="wilson")
    assert interval.low <= 0.001 <= interval.high, alarms
    # fork_clusters decides with the same statistic and value.
    sample = rng.normal(100, 1, n)
    assert fork_clusters(sample).clustered == (gap_ratios(np.sort(sample)).max() > _critical(n))


def test_four_forks_in_two_clear_pairs_are_clustered():
    c = fork_clusters(np.array([100.0, 100.2, 150.0, 150.1]))
    assert c.clustered and sorted(map(len, c.groups)) == [2, 2]


# -- Sheather-Jones bandwidth -------------------------------------------------------------------


def _psi_direct(x: np.ndarray, g: float, order: int) -> float:
    """Unbinned oracle: the mean over all pairs (i, j), diagonal included, of the Gaussian
    kernel's order-th derivative at (x_i - x_j) / g, over n (n - 1) g^(order + 1)."""
    u = (x[:, None] - x[None, :]) / g
    phi = np.exp(-u * u / 2) / np.sqrt(2 * np.pi)
    hermite = {4: u**4 - 6 * u**2 + 3, 6: u**6 - 15 * u**4 + 45 * u**2 - 15}[order]
    n = len(x)
    return float((hermite * phi).sum() / (n * (n - 1) * g ** (order + 1)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binned_curvature_sums_match_the_direct_double_sums(seed):
    from rigorbench.stats import bandwidth

    rng = np.random.default_rng(seed)
    x = np.r_[rng.normal(0, 1, 300), rng.normal(3, 0.5, 100)]
    width, pairs = bandwidth._pair_counts(x, bandwidth.BINS)
    for order, g in ((4, 0.3), (4, 0.6), (6, 0.5), (6, 0.9)):
        assert bandwidth._psi(order, width, pairs, len(x), g) == pytest.approx(_psi_direct(x, g, order), rel=0.02)


def test_sheather_jones_solves_its_equation_and_is_near_the_normal_optimum_for_normal_data():
    from rigorbench.stats.bandwidth import sheather_jones

    rng = np.random.default_rng(12)
    x = rng.normal(50, 2, 400)
    h = sheather_jones(x)
    # The equation, evaluated with the unbinned sums at the solution.
    n, sd = len(x), x.std(ddof=1)
    scale = min(sd, np.subtract(*np.percentile(x, [75, 25])) / 1.349)
    a, b = 1.24 * scale * n ** (-1 / 7), 1.23 * scale * n ** (-1 / 9)
    alpha2 = 1.357 * (_psi_direct(x, a, 4) / -_psi_direct(x, b, 6)) ** (1 / 7)
    rhs = (1 / (2 * np.sqrt(np.pi) * n) / _psi_direct(x, alpha2 * h ** (5 / 7), 4)) ** 0.2
    assert h == pytest.approx(rhs, rel=0.02)
    # For a normal density the optimal bandwidth is (4/3)^(1/5) sd n^(-1/5).
    big = rng.normal(0, 1, 5000)
    assert sheather_jones(big) == pytest.approx((4 / 3) ** 0.2 * 5000 ** -0.2, rel=0.1)
    assert sheather_jones(np.array([1.0, 1.0, 2.0])) is None


def test_sheather_jones_keeps_unimodal_data_unimodal_and_finds_modes_silverman_merges(monkeypatch):
    """False alarms: none in 90 unimodal samples (normal, lognormal, Student t3; 50 to 2000
    values). Detection: two narrow modes 5 sd apart with a 2% tail of GC iterations at 3x
    the time -- the tail inflates Silverman's bandwidth until the modes merge (0 of 15
    found); Sheather-Jones finds all 15."""
    from rigorbench.stats import modality

    rng = np.random.default_rng(13)
    unimodal = [gen(n) for n in (50, 500, 2000) for gen in (
        lambda n: rng.normal(100, 3, n), lambda n: rng.lognormal(0, 0.5, n), lambda n: 100 + rng.standard_t(3, n),
    ) for _ in range(10)]
    assert sum(modes(x).multimodal for x in unimodal) == 0

    def two_narrow_modes_and_gc(n=1000):
        core = rng.normal(100, 1, n) + 5 * rng.integers(0, 2, n)
        return np.where(rng.random(n) < 0.02, rng.normal(300, 20, n), core)

    samples = [two_narrow_modes_and_gc() for _ in range(15)]
    found = [modes(x) for x in samples]
    assert all(m.multimodal and len(m.centers) == 2 for m in found)
    monkeypatch.setattr(modality, "sheather_jones", lambda values: None)  # Silverman's rule
    assert sum(modes(x).multimodal for x in samples) <= 2


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 400), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.05, 1.0]))
def test_trend_slope_and_tau_are_scipys_on_blocks_with_ties(n, seed, grid):
    """The Theil-Sen slope and Kendall's tau-b written in trend.py equal scipy's (their
    oracle), also on values rounded to a grid (ties)."""
    from rigorbench.stats import trend as trend_module

    rng = np.random.default_rng(seed)
    x = 100 + rng.normal(0, 1, n) + 0.01 * np.arange(n)
    if grid:
        x = np.round(x / grid) * grid
    index, points = trend_module._blocks(x)
    t = trend(x)
    if np.all(x == x[0]):
        return
    assert t.slope == sps.theilslopes(points, index).slope
    assert t.tau == pytest.approx(sps.kendalltau(index, points).statistic, rel=1e-12, abs=1e-15)
