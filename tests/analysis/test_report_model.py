"""What the report shows, computed: traces with events, scaling groups, growth exponents."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from rigorbench.analysis.dataset import Dataset, load_dataset
from rigorbench.analysis.report import build_page, scaling_groups
from rigorbench.stats.scaling import growth_exponent
from rigorbench.analysis.settings import Settings
from rigorbench.model import BenchmarkCase, Metric, SampleTable
from rigorbench.stats import percentile_interval

JMH = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
TIME = Metric("time", "ns/op", False, True)


def test_growth_exponent_is_the_least_squares_slope_on_log_log_axes():
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = np.sort(rng.uniform(1, 1e5, rng.integers(2, 9)))
        y = 3.0 * x ** rng.uniform(-1, 3) * rng.lognormal(0, 0.2, len(x))
        slope, intercept = growth_exponent(x, y)
        oracle = stats.linregress(np.log(x), np.log(y))
        assert slope == pytest.approx(oracle.slope, rel=1e-9, abs=1e-9)
        assert intercept == pytest.approx(oracle.intercept, rel=1e-9, abs=1e-9)


def _dataset(label: str, cases: dict[BenchmarkCase, float], seed: int = 1) -> Dataset:
    rng = np.random.default_rng(seed)
    series = {}
    for case, mean in cases.items():
        values = mean * rng.lognormal(0, 0.02, 40)
        series[(case, TIME)] = SampleTable.build(values, fork=np.repeat(np.arange(4), 10), iteration=np.tile(np.arange(10), 4))
    return Dataset(label, series)


def test_scaling_groups_vary_one_numeric_parameter_with_the_others_fixed():
    cases = {}
    for n in (8, 64, 512):
        for kind in ("array", "list"):
            cases[BenchmarkCase.of("jmh", "Sort.sort", {"kind": kind, "n": str(n)})] = n * np.log2(n)
    cases[BenchmarkCase.of("jmh", "Hash.put", {"n": "10"})] = 5.0           # one value: no group
    cases[BenchmarkCase.of("jmh", "Parse.go", {"input": "small"})] = 5.0     # not numeric
    cases[BenchmarkCase.of("jmh", "Parse.go", {"input": "large"})] = 9.0
    report = build_page([_dataset("a", cases)], Settings(resamples=200))
    groups = scaling_groups(report.cases)
    assert [(g.name, g.parameter, g.fixed) for g in groups] == [
        ("Sort.sort", "n", (("kind", "array"),)), ("Sort.sort", "n", (("kind", "list"),)),
    ]
    line = groups[0].lines[0]
    assert line.x == (8.0, 64.0, 512.0)
    # n log n over 8..512: a slope between 1 and 1.3 on log-log axes.
    assert 1.0 < line.exponent < 1.3
    assert all(lo <= m <= hi for lo, m, hi in zip(line.low, line.mean, line.high))


def test_two_values_of_a_parameter_are_plotted_without_a_growth_exponent():
    """A line through two points fits them exactly, whatever the growth (issue 35)."""
    cases = {BenchmarkCase.of("jmh", "Stats.standardize", {"size": str(n)}): float(n) for n in (100, 1000)}
    (group,) = scaling_groups(build_page([_dataset("a", cases)], Settings(resamples=200)).cases)
    (line,) = group.lines
    assert line.x == (100.0, 1000.0) and line.exponent is None and line.intercept is None


def test_traces_carry_steady_state_and_the_iterations_with_gc_and_jit():
    data = load_dataset([JMH / "long-v2-trial1.json.gz", JMH / "long-v2-trial2.json.gz"], "v2")
    report = build_page([data], Settings(resamples=200))
    assert len(report.cases) == 4
    for case in report.cases:
        view = case.versions[0]
        assert view.events_recorded == ("gc.count", "compiler.time.profiled")
        for name, attribute in (("gc.count", "gc"), ("compiler.time.profiled", "jit")):
            events = data.series[next(k for k in data.series if k[0] == case.case and k[1].name == name)]
            assert sum(len(getattr(f, attribute)) for f in view.forks) == int((events.value > 0).sum())
        for trace, state in zip(view.forks, view.analysis.steady.states):
            assert trace.steady_start == (state.start if state.reached else None)
        assert len(view.fork_means) == len(view.forks) == 4


def test_comparison_carries_the_bootstrap_ratios_its_interval_came_from():
    base = load_dataset([JMH / "v1-trial1.json", JMH / "v1-trial2.json"], "v1")
    head = load_dataset([JMH / "v2-trial1.json", JMH / "v2-trial2.json"], "v2")
    settings = Settings(resamples=2000, interval="percentile")
    report = build_page([base, head], settings)
    for case in report.cases:
        c = case.comparison
        assert len(c.distribution) == settings.resamples
        low, high = percentile_interval(c.distribution, settings.confidence)
        assert (low, high) == pytest.approx((c.ratio.low, c.ratio.high), rel=1e-12)
    # The default (expanded) interval corrects from 3 trials on; with these 2 it is the same
    # interval, and the verdicts carry the few_units caveat instead.
    default = build_page([base, head], Settings(resamples=2000))
    for case, same in zip(report.cases, default.cases):
        assert (same.comparison.ratio.low, same.comparison.ratio.high) == (case.comparison.ratio.low, case.comparison.ratio.high)
    # Regressions first: the order is by verdict, then by the size of the change.
    ranks = [("slower", "faster", "inconclusive", "unchanged").index(c.comparison.verdict.value) for c in report.cases]
    assert ranks == sorted(ranks)


@pytest.mark.parametrize("steady_only", [False, True])
def test_plotted_values_are_the_ones_the_analysis_summarized(steady_only):
    data = load_dataset([JMH / "long-v2-trial1.json.gz", JMH / "long-v2-trial2.json.gz"], "v2")
    report = build_page([data], Settings(resamples=200, steady_only=steady_only))
    dropped = 0
    for case in report.cases:
        view = case.versions[0]
        assert len(view.values) == view.analysis.n and view.analysis.steady_only == steady_only
        assert np.mean(view.values) == pytest.approx(view.analysis.mean.estimate, rel=1e-9)
        dropped += sum(len(f.values) - f.warmup for f in view.forks) - len(view.values)
    # The long data has forks that settle only after the warmup: --steady-only leaves some out.
    assert (dropped > 0) == steady_only


def test_a_comparison_already_made_is_reused_for_its_primary_metric():
    from rigorbench.analysis.compare import compare_datasets

    base = load_dataset([JMH / "v1-trial1.json", JMH / "v1-trial2.json"], "v1")
    head = load_dataset([JMH / "v2-trial1.json", JMH / "v2-trial2.json"], "v2")
    every_metric = compare_datasets(base, head, Settings(resamples=300, metric="all"))
    report = build_page([base, head], Settings(resamples=300), comparison=every_metric)
    assert report.comparison is every_metric
    reused = {id(c) for c in every_metric.comparisons}
    assert report.cases and all(id(case.comparison) in reused and case.metric.primary for case in report.cases)
    # Made for another metric only: the report makes the primary comparison itself.
    alloc_only = compare_datasets(base, head, Settings(resamples=300, metric="alloc"))
    report = build_page([base, head], Settings(resamples=300), comparison=alloc_only)
    assert report.comparison is not alloc_only and all(case.metric.primary for case in report.cases)
    assert len(report.cases) == len(build_page([base, head], Settings(resamples=300)).cases)
