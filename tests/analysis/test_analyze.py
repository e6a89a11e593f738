"""Every diagnostic of ``analyze``: triggered on data made to show it, silent on data that
does not. Data is synthetic with known truth (levels, warmup curves, modes, GC events)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from rigorbench.analysis.analyze import analyze_series
from rigorbench.analysis.settings import Settings
from rigorbench.model import BenchmarkCase, Metric, SampleTable

TIME = Metric("time", "ns/op", False, True)
THRPT = Metric("throughput", "ops/ms", True, True)
CASE = BenchmarkCase("jmh", "demo.Bench.work")
SETTINGS = Settings(resamples=1000)


def table(forks_values: list[np.ndarray], warmup: int = 0, forks_per_trial: int = 2) -> SampleTable:
    """One row per iteration; the first ``warmup`` of each fork are warmup rows."""
    columns = {k: [] for k in ("value", "trial", "fork", "iteration", "warmup")}
    for index, values in enumerate(forks_values):
        n = len(values)
        phase = np.arange(n) < warmup
        columns["value"].extend(values)
        columns["trial"].extend([index // forks_per_trial] * n)
        columns["fork"].extend([index % forks_per_trial] * n)
        columns["iteration"].extend(np.where(phase, np.arange(n), np.arange(n) - warmup))
        columns["warmup"].extend(phase)
    return SampleTable.build(
        columns["value"], trial=columns["trial"], fork=columns["fork"],
        iteration=columns["iteration"], warmup=columns["warmup"],
    )


def clean_forks(rng, forks=10, n=60, mean=100.0, sd=1.0, trial_sd=0.3) -> list[np.ndarray]:
    trial_shift = rng.normal(0, trial_sd, forks // 2 + 1)
    return [mean + trial_shift[i // 2] + rng.normal(0, sd, n) for i in range(forks)]


def codes(analysis, severities=("warning", "error")) -> set[str]:
    return {d.code for d in analysis.diagnostics if d.severity in severities}


def analyze(forks, warmup=0, metric=TIME, events=None, settings=SETTINGS, cycle_ns=None, **kw):
    return analyze_series(CASE, metric, table(forks, warmup, **kw), settings, events=events, cycle_ns=cycle_ns)


def test_clean_data_gives_no_warnings_and_a_steady_verdict():
    rng = np.random.default_rng(1)
    a = analyze(clean_forks(rng), warmup=10)
    assert codes(a) == set()
    assert "steady_state_unchecked" not in codes(a, ("info",))
    assert a.steady.verdict == "steady"
    assert a.n == 10 * 50 and a.forks == 10 and a.trials == 5
    assert a.mean.low < 100.3 and a.mean.high > 99.7
    assert a.rciw < 0.02
    assert a.diagnostics == tuple(sorted(a.diagnostics, key=lambda d: ("error", "warning", "info").index(d.severity)))


def test_implausibly_fast_fires_below_one_nanosecond_only():
    rng = np.random.default_rng(2)
    fast = analyze([0.3 + rng.normal(0, 0.01, 30) for _ in range(4)])
    assert "implausibly_fast" in codes(fast)
    assert "0.30 ns per operation" in next(d.message for d in fast.diagnostics if d.code == "implausibly_fast")
    slow = analyze([5 + rng.normal(0, 0.1, 30) for _ in range(4)])
    assert "implausibly_fast" not in codes(slow)
    # Throughput converts: 2 ops/ns is 0.5 ns per op.
    rate = analyze([2000 + rng.normal(0, 10, 30) for _ in range(4)], metric=Metric("throughput", "ops/us", True, True))
    assert "implausibly_fast" in codes(rate)


def test_implausibly_fast_uses_the_recorded_clock_when_there_is_one():
    from rigorbench.analysis.diagnostics import clock_cycle_ns

    rng = np.random.default_rng(3)
    two_ghz = clock_cycle_ns([{"cpu_max_mhz": "2000"}])
    assert two_ghz == 0.5
    # 0.3 ns on a 2 GHz CPU is 0.6 cycles: flagged, with the clock named.
    fast = analyze([0.3 + rng.normal(0, 0.01, 30) for _ in range(4)], cycle_ns=two_ghz)
    message = next(d.message for d in fast.diagnostics if d.code == "implausibly_fast")
    assert "one clock cycle of this 2 GHz CPU is 0.50 ns" in message
    # 0.8 ns there is 1.6 cycles: plausible, although below the 1 ns used without a clock.
    tight = [0.8 + rng.normal(0, 0.01, 30) for _ in range(4)]
    assert "implausibly_fast" not in codes(analyze(tight, cycle_ns=two_ghz))
    assert "implausibly_fast" in codes(analyze(tight))
    # The fastest machine of the data counts; unreadable values are ignored.
    assert clock_cycle_ns([{"cpu_max_mhz": "2000"}, {"cpu_max_mhz": "4000"}, {"cpu_max_mhz": "x"}, {}]) == 0.25
    assert clock_cycle_ns([{}, {"cpu_max_mhz": "0"}]) is None


def test_fork_spread_fires_when_forks_are_ten_times_apart():
    rng = np.random.default_rng(3)
    forks = [100 + rng.normal(0, 1, 30) for _ in range(4)]
    assert "fork_spread" not in codes(analyze(forks))
    forks[3] = forks[3] * 12
    assert "fork_spread" in codes(analyze(forks, settings=Settings(resamples=1000, outlier_factor=None)))


def test_timer_resolution_fires_on_quantized_scores():
    rng = np.random.default_rng(4)
    quantized = [rng.choice([100.0, 200.0], 30) for _ in range(4)]
    assert "timer_resolution" in codes(analyze(quantized))
    assert "timer_resolution" not in codes(analyze(clean_forks(rng, forks=4, n=30)))


def warmup_curve(rng, n, steady_from, level=100.0, excess=0.8, sd=1.0):
    """Slow at first, decaying to ``level`` by ``steady_from`` (a JIT warmup)."""
    i = np.arange(n)
    curve = level * (1 + excess * np.clip(1 - i / steady_from, 0, None) ** 2)
    return curve + rng.normal(0, sd, n)


def test_a_slow_first_measured_iteration_in_most_forks_is_warmup_too_short():
    """One slow iteration is too short for the detector's segments; in most forks at once it is
    warmup (tests/testdata/jmh/long-v2: sumCsv's first iteration 18-19% slower in every fork)."""
    rng = np.random.default_rng(11)
    forks = [100 + rng.normal(0, 1, 60) for _ in range(4)]
    assert "warmup_too_short" not in codes(analyze(forks))
    for fork in forks:
        fork[0] *= 1.19
    found = {d.code: d for d in analyze(forks).diagnostics}
    assert "warmup too short in 4 of 4 forks (steady from iteration 1" in found["warmup_too_short"].message
    two = [f.copy() for f in forks]
    two[1][0] /= 1.19
    two[2][0] /= 1.19             # two of four forks start slow: could be noise, nothing said
    assert "warmup_too_short" not in codes(analyze(two))
    steady = analyze(forks, settings=Settings(resamples=1000, steady_only=True))
    assert steady.n == 4 * 59       # --steady-only leaves each fork's first iteration out


def test_the_long_example_runs_say_sumcsv_starts_slow():
    from rigorbench.analysis.dataset import load_dataset
    from rigorbench.analysis.analyze import analyze_dataset

    data = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
    dataset = load_dataset([data / "long-v2-trial1.json.gz", data / "long-v2-trial2.json.gz"], "long-v2")
    (sum_csv,) = [a for a in analyze_dataset(dataset, SETTINGS).benchmarks if a.case.name.endswith("sumCsv") and a.metric.name == "time"]
    assert "warmup_too_short" in codes(sum_csv)


def test_warmup_too_short_and_steady_only():
    rng = np.random.default_rng(5)
    forks = [warmup_curve(rng, 120, 40) for _ in range(6)]
    short = analyze(forks, warmup=10)
    found = {d.code: d for d in short.diagnostics}
    assert "warmup_too_short" in found
    assert "warmup ends at 10" in found["warmup_too_short"].message
    assert short.steady.verdict == "steady"
    starts = [s.start for s in short.steady.states]
    assert all(25 <= s <= 60 for s in starts), starts
    steady = analyze(forks, warmup=10, settings=Settings(resamples=1000, steady_only=True))
    assert steady.steady_only and steady.n < short.n
    assert steady.mean.estimate < short.mean.estimate  # the slow warmup iterations are left out
    (used,) = [d for d in steady.diagnostics if d.code == "steady_only"]
    assert used.severity == "info" and f"{steady.n} of " in used.message
    long_enough = analyze(forks, warmup=70)
    assert "warmup_too_short" not in codes(long_enough)


def test_warmup_longer_than_needed():
    rng = np.random.default_rng(6)
    forks = clean_forks(rng, forks=4, n=100)
    found = {d.code for d in analyze(forks, warmup=50).diagnostics}
    assert "warmup_longer_than_needed" in found
    assert "warmup_longer_than_needed" not in {d.code for d in analyze(forks, warmup=3).diagnostics}


def test_forks_that_never_settle():
    rng = np.random.default_rng(7)
    ramp = lambda: 100 + np.arange(200) * 0.5 + rng.normal(0, 1, 200)  # noqa: E731
    none = analyze([ramp() for _ in range(4)])
    assert none.steady.verdict == "none" and "not_steady" in codes(none)
    mixed = analyze([ramp(), ramp()] + clean_forks(rng, forks=2, n=200))
    assert mixed.steady.verdict == "inconsistent" and "inconsistent_steady_state" in codes(mixed)
    assert not {"not_steady", "inconsistent_steady_state"} & codes(analyze(clean_forks(rng, forks=4, n=200)))


def test_short_forks_say_steady_state_was_not_checked():
    rng = np.random.default_rng(8)
    a = analyze(clean_forks(rng, forks=4, n=8), warmup=3)
    assert a.steady.verdict is None
    assert "steady_state_unchecked" in {d.code for d in a.diagnostics}
    # --steady-only cannot apply: analyze says so, as compare does (it used to fall back silently).
    only = analyze(clean_forks(rng, forks=4, n=8), warmup=3, settings=Settings(resamples=1000, steady_only=True))
    assert not only.steady_only and "steady_only_not_applied" in {d.code for d in only.diagnostics}


@pytest.mark.parametrize("level", ["trial", "fork", "iteration"])
def test_dominant_level_is_named_with_its_advice(level):
    rng = np.random.default_rng(9)
    sds = {"trial": 0.1, "fork": 0.1, "iteration": 0.1} | {level: 5.0}
    trial_shift = rng.normal(0, sds["trial"], 10)
    forks = [100 + trial_shift[i // 2] + rng.normal(0, sds["fork"]) + rng.normal(0, sds["iteration"], 30) for i in range(20)]
    a = analyze(forks)
    dominant = next(d for d in a.diagnostics if d.code == "dominant_variance")
    assert f"at the {level} level" in dominant.message
    assert {"trial": "more trials", "fork": "more forks", "iteration": "more or longer iterations"}[level] in dominant.hint


def test_wide_ci_fires_on_noisy_few_trials_only():
    rng = np.random.default_rng(10)
    noisy = [100 * (1 + rng.normal(0, 0.3)) + rng.normal(0, 5, 20) for _ in range(4)]
    assert "wide_ci" in codes(analyze(noisy))
    assert "wide_ci" not in codes(analyze(clean_forks(rng)))


def test_bimodal_iterations_within_forks():
    rng = np.random.default_rng(11)
    forks = []
    for _ in range(4):
        high = rng.random(200) < 0.3
        forks.append(np.where(high, rng.normal(170, 1, 200), rng.normal(164, 1, 200)))
    a = analyze(forks, metric=THRPT)
    message = next(d.message for d in a.diagnostics if d.code == "multimodal")
    assert message.startswith("bimodal within 4 of 4 forks")
    shares = re.findall(r"(\d+)% near (\d+)", message)
    assert [center for _, center in shares] == ["164", "170"], message
    assert abs(int(shares[0][0]) - 70) <= 4 and abs(int(shares[1][0]) - 30) <= 4, message
    assert "multimodal" not in codes(analyze(clean_forks(rng, forks=4, n=200)))


def test_fork_means_in_groups():
    rng = np.random.default_rng(12)
    forks = [(100 if i % 2 else 110) + rng.normal(0, 0.5, 40) for i in range(10)]
    a = analyze(forks)
    message = next(d.message for d in a.diagnostics if d.code == "fork_clusters")
    assert "2 groups: 5 near 100" in message or "2 groups: 5 near 110" in message
    assert "fork_clusters" not in codes(analyze(clean_forks(rng)))


def test_outliers_removed_and_tukey_outliers():
    rng = np.random.default_rng(13)
    forks = clean_forks(rng, forks=4, n=40)
    assert not {"outliers_removed"} & codes(analyze(forks))
    assert "tukey_outliers" not in {d.code for d in analyze(forks).diagnostics}
    forks[0][5] = 5000.0   # >= 10x the median: an error, removed
    forks[1][7] = 140.0    # far beyond 3 IQR: a severe outlier, kept
    a = analyze(forks)
    assert a.removed_outliers == 1 and "outliers_removed" in codes(a)
    tukey = next(d.message for d in a.diagnostics if d.code == "tukey_outliers")
    assert tukey.startswith("1 severe")


def test_trend_during_measurement():
    rng = np.random.default_rng(14)
    drifting = [100 * (1 + 0.1 * np.linspace(0, 1, 60)) + rng.normal(0, 0.5, 60) for _ in range(4)]
    message = next(d.message for d in analyze(drifting).diagnostics if d.code == "trend")
    assert message.startswith("time rises during measurement in 4 of 4 forks")
    assert "trend" not in codes(analyze(clean_forks(rng, forks=4, n=60)))


def events_table(like: SampleTable, values) -> SampleTable:
    return like.with_columns(value=np.asarray(values, dtype=float))


def test_gc_spikes_when_slow_iterations_follow_gc():
    rng = np.random.default_rng(15)
    forks = clean_forks(rng, forks=4, n=50)
    base = table(forks)
    gc = (rng.random(len(base)) < 0.2).astype(float)
    spiky = base.with_columns(value=base.value * np.where(gc > 0, 1.3, 1.0))
    a = analyze_series(CASE, TIME, spiky, SETTINGS, events={"gc.count": events_table(spiky, gc)})
    message = next(d.message for d in a.diagnostics if d.code == "gc_spikes")
    assert "slow iterations coincide with GC" in message and "30% slower" in message
    calm = analyze_series(CASE, TIME, base, SETTINGS, events={"gc.count": events_table(base, gc)})
    assert "gc_spikes" not in codes(calm)


def test_jit_during_measurement():
    rng = np.random.default_rng(16)
    base = table(clean_forks(rng, forks=4, n=50))
    compile_ms = np.zeros(len(base))
    compile_ms[[3, 60, 120]] = 12.0
    a = analyze_series(CASE, TIME, base, SETTINGS, events={"compiler.time.profiled": events_table(base, compile_ms)})
    jit = next(d for d in a.diagnostics if d.code == "jit_during_measurement")
    assert jit.message.startswith("JIT compilation in 3 of 200 measurement iterations (36 ms)")
    quiet = analyze_series(CASE, TIME, base, SETTINGS, events={"compiler.time.profiled": events_table(base, compile_ms * 0)})
    assert "jit_during_measurement" not in {d.code for d in quiet.diagnostics}


def test_single_fork():
    rng = np.random.default_rng(17)
    single = analyze([100 + rng.normal(0, 1, 40)])
    assert "single_fork" in codes(single)
    # One fork has only the iteration level: no level to name as dominant.
    assert "dominant_variance" not in codes(single, ("info",))
    assert "single_fork" not in codes(analyze(clean_forks(rng, forks=2, n=40)))


def test_percentiles_are_numpys_over_the_measurement_values():
    rng = np.random.default_rng(12)
    forks = clean_forks(rng, forks=4, n=30)
    result = analyze(forks)
    values = np.concatenate(forks)
    for p, value in result.percentiles.items():
        assert value == pytest.approx(np.percentile(values, p)), p
    assert result.minimum <= result.percentiles[50] <= result.maximum


def test_a_dataset_measured_on_a_known_clock_is_judged_by_that_clock():
    from rigorbench.analysis.analyze import analyze_dataset
    from rigorbench.analysis.dataset import dataset_from_files
    from rigorbench.model import ResultFile, Series

    rng = np.random.default_rng(4)
    forks = [0.8 + rng.normal(0, 0.01, 30) for _ in range(4)]

    def flagged(environment) -> bool:
        result = ResultFile("run.json", "jmh-json", (Series(CASE, TIME, table(forks, 0)),), environment)
        [a] = analyze_dataset(dataset_from_files([result], "v"), SETTINGS).benchmarks
        return "implausibly_fast" in codes(a)

    assert not flagged({"cpu_max_mhz": "2000"}) and flagged({})


@pytest.mark.parametrize("harness, says", [
    ("jmh", "run more forks (-f)"),
    ("go", "run the test binary more times (each go test run is one fork"),
    ("gbench", "run the benchmark binary more times"),
    ("pyperf", "run more processes (--processes)"),
    ("otava-csv", "run more forks (separate processes)"),
])
def test_advice_speaks_the_harness_language(harness, says):
    # A Go user was told to "run more forks": each harness has its own word and option.
    from dataclasses import replace as replaced

    from rigorbench.analysis.advice import words
    from rigorbench.analysis.diagnostics import sample_size

    rng = np.random.default_rng(3)
    single = analyze(clean_forks(rng, forks=1, n=40))
    single = replaced(single, case=replaced(single.case, harness=harness))
    [hint] = [d.hint for d in sample_size(single, None) if d.code == "single_fork"]
    assert says in hint and (harness == "jmh" or "-f)" not in hint)
    iterations = {"jmh": "(-i, -r)", "go": "-count", "gbench": "--benchmark_repetitions", "pyperf": "--values"}
    assert iterations.get(harness, "run more or longer iterations") in words(harness).more_iterations
