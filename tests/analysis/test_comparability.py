"""What may be compared: modes, units, parameters, run settings, files of one side; and the gate."""

from __future__ import annotations

from dataclasses import replace

import json
import re
from pathlib import Path

import numpy as np
import pytest

from rigorbench.analysis.comparability import check_side, setting_mismatches, unify_units
from rigorbench.analysis.compare import compare_datasets
from rigorbench.analysis.dataset import dataset_from_files
from rigorbench.analysis.settings import Settings
from rigorbench.cli import main
from rigorbench.errors import InputError, UserError
from rigorbench.model import BenchmarkCase, Metric, ResultFile, SampleTable, Series
from rigorbench.stats import Verdict

from test_compare import FAST, result_files

JMH = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
NS = Metric("time", "ns/op", higher_is_better=False, primary=True)
US = Metric("time", "us/op", higher_is_better=False, primary=True)
SAMPLE = Metric("sample_time", "us/op", higher_is_better=False, primary=True)
ALLOC = Metric("alloc", "B/op", higher_is_better=False)
GC = Metric("gc.count", "counts", higher_is_better=False)


@pytest.fixture
def rng():
    return np.random.default_rng(20241123)


def cli(*argv: str) -> tuple[int, str, str]:
    import io

    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def unwrapped(text: str) -> str:
    """Text output with its wrapped notes joined again (continuation lines are indented)."""
    return re.sub(r"\n +", " ", text)


def scaled(files: list[ResultFile], metric: Metric, factor: float) -> list[ResultFile]:
    """The same measurements in another unit (or mode): every value times ``factor``."""
    return [
        ResultFile(f.path, f.format, tuple(
            Series(s.case, metric, s.samples.with_columns(value=s.samples.value * factor)) for s in f.series
        ), f.environment)
        for f in files
    ]


# -- units ------------------------------------------------------------------------------------


def test_a_baseline_in_us_and_a_contender_in_ns_are_one_metric_and_a_3x_slowdown_fails_the_gate(rng):
    base = result_files(rng, {("a.B.x", US): 2.0}, trials=5)
    cont = scaled(result_files(rng, {("a.B.x", US): 6.0}, trials=5), NS, 1000.0)   # 6 us/op as 6000 ns/op
    result = compare_datasets(dataset_from_files(base, "b"), dataset_from_files(cont, "c"), FAST)
    [c] = result.comparisons
    assert c.metric.unit == "us/op" and c.contender.mean == pytest.approx(6.0, rel=0.02)
    assert c.ratio.estimate == pytest.approx(3.0, rel=0.02) and c.verdict == Verdict.SLOWER
    assert result.fails("regression") and not result.only_in_baseline and not result.only_in_contender


def test_files_of_one_side_in_different_units_are_pooled_in_the_first_unit(rng):
    files = result_files(rng, {("a.B.x", US): 2.0}, trials=2)
    files = [files[0], *scaled(files[1:], NS, 1000.0)]
    dataset = dataset_from_files(files, "v")
    assert list(dataset.series) == [(BenchmarkCase("jmh", "a.B.x"), US)]
    values = dataset.series[(BenchmarkCase("jmh", "a.B.x"), US)].value
    assert set(np.unique(dataset.series[(BenchmarkCase("jmh", "a.B.x"), US)].trial)) == {0, 1}
    assert values.max() < 3.0, "ns values converted to us"


def test_unify_units_leaves_other_dimensions_alone():
    case = BenchmarkCase("jmh", "x")
    table = SampleTable.build([1.0, 2.0])
    unified = unify_units({(case, NS): table, (case, ALLOC): table})
    assert set(unified) == {(case, NS), (case, ALLOC)}


# -- modes, parameters, settings ------------------------------------------------------------------


def test_sample_time_against_average_time_is_refused_and_allowed_loudly():
    code, out, err = cli("compare", str(JMH / "v1-sample.json"), str(JMH / "v2-trial1.json"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "benchmark modes differ" in err and "sample (sample_time)" in err
    assert "avgt (time)" in err and "--allow-mismatch" in err
    code, out, err = cli("compare", str(JMH / "v1-sample.json"), str(JMH / "v2-trial1.json"), "--allow-mismatch", "--format", "json")
    document = json.loads(out)
    assert code == 0 and [m["kind"] for m in document["mismatches"]][0] == "mode"
    assert document["comparisons"][0]["benchmark"].endswith("CsvParseBenchmark.sumCsv")
    code, out, _ = cli("compare", str(JMH / "v1-sample.json"), str(JMH / "v2-trial1.json"), "--allow-mismatch")
    assert out.startswith("NOT COMPARABLE, compared anyway (--allow-mismatch)")


def test_a_glob_of_one_side_pooling_another_mode_and_another_configuration_is_an_input_error():
    files = sorted(str(p) for p in JMH.glob("v1-*.json"))
    code, out, err = cli("compare", "--baseline", *files, "--contender", str(JMH / "v2-trial1.json"))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "disagrees with" in err and "the files of one version must be trials of one configuration" in err


def test_check_side_accepts_a_suite_run_one_benchmark_per_file_with_its_own_settings():
    table = SampleTable.build([1.0])
    one = ResultFile("a.json", "jmh-json", (Series(BenchmarkCase("jmh", "A.a"), NS, table),), {"warmup": "5 iterations, 1 s each"})
    two = ResultFile("b.json", "jmh-json", (Series(BenchmarkCase("jmh", "B.b"), NS, table),), {"warmup": "10 iterations, 1 s each"})
    check_side([one, two])
    three = ResultFile("c.json", "jmh-json", (Series(BenchmarkCase("jmh", "A.a"), NS, table),), {"warmup": "1 iterations, 1 s each"})
    with pytest.raises(InputError, match=r"c.json: disagrees with a.json on the warmup"):
        check_side([one, two, three])


def test_settings_that_change_what_is_measured_differ_but_amounts_of_data_do_not():
    base = {"warmup": "2 iterations, 200 ms each", "measurement": "4 iterations, 200 ms each", "forks": "2",
            "jvm_args": "<none> | -XX:+UseSerialGC"}
    more_data = {**base, "measurement": "10 iterations, 200 ms each", "forks": "5", "jvm_args": "<none>"}
    assert setting_mismatches(base, more_data) == []
    other = {**base, "measurement": "4 iterations, 1 s each", "threads": "4"}
    assert [m.subject for m in setting_mismatches(base, other)] == ["measurement iteration time"]
    assert [m.subject for m in setting_mismatches({**base, "threads": "1"}, other)] == ["measurement iteration time", "threads"]


def test_parameters_with_nothing_in_common_are_refused(rng):
    base = result_files(rng, {("a.B.x", NS): 1.0}, trials=2)
    cont = [
        ResultFile(f.path, f.format, tuple(Series(BenchmarkCase.of("jmh", "a.B.x", {"size": "10"}), s.metric, s.samples) for s in f.series))
        for f in result_files(rng, {("a.B.x", NS): 1.0}, trials=2)
    ]
    with pytest.raises(UserError, match=r"parameters differ: a.B.x: baseline \{\}, contender \{size=10\}"):
        compare_datasets(dataset_from_files(base, "b"), dataset_from_files(cont, "c"), FAST)


# -- the gate ---------------------------------------------------------------------------------


def test_a_crashed_contender_fails_the_regression_gate(tmp_path):
    # v1-fail.log ran with other settings, so it is refused (exit 2) unless allowed ...
    code, _, err = cli("compare", str(JMH / "v1-trial1.log"), str(JMH / "v1-fail.log"), "--fail-on", "regression")
    assert code == 2 and "run settings differ: warmup" in err
    # ... and allowed, the benchmark that threw fails the gate although no verdict is slower.
    code, out, _ = cli("compare", str(JMH / "v1-trial1.log"), str(JMH / "v1-fail.log"), "--fail-on", "regression", "--allow-mismatch")
    out = unwrapped(out)
    assert code == 1
    assert "FAILED in the contender: dev.rigorbench.demo.StatsBenchmark.standardize{size=0}: java.lang.IllegalArgumentException" in out
    assert out.index("FAILED in the contender") < out.index("throughput [ops/ms]")
    # The same files in the other order: the failure is the baseline's, which is no regression.
    code, out, _ = cli("compare", str(JMH / "v1-fail.log"), str(JMH / "v1-trial1.log"), "--fail-on", "regression", "--allow-mismatch")
    assert code == 0 and "failed in the baseline" in out


def test_a_crashed_contender_with_the_same_settings_fails_the_gate(tmp_path):
    """A contender log of the same configuration in which one benchmark threw."""
    log = (JMH / "v2-trial1.log").read_text(encoding="utf-8")
    start = log.index("# Benchmark: dev.rigorbench.demo.StatsBenchmark.standardize")
    fork = log.index("# Fork: 1 of", start)
    end = log.index("\n\n", log.index("Iteration   1:", fork))
    broken = log[:fork] + "# Fork: 1 of 2\n# Warmup Iteration   1: <failure>\n\njava.lang.IllegalStateException: broken\n\tat x.Y(Y.java:1)\n" + log[end:]
    (tmp_path / "v2-broken.log").write_text(broken, encoding="utf-8")
    code, out, _ = cli("compare", str(JMH / "v1-trial1.log"), str(tmp_path / "v2-broken.log"), "--fail-on", "regression")
    out = unwrapped(out)
    assert code == 1 and "FAILED in the contender: dev.rigorbench.demo.StatsBenchmark.standardize{size=100}: java.lang.IllegalStateException: broken" in out
    code, _, _ = cli("compare", str(JMH / "v1-trial1.log"), str(tmp_path / "v2-broken.log"), "--fail-on", "never")
    assert code == 0


def test_fail_on_missing_and_several_conditions(rng):
    base = result_files(rng, {("a.B.x", NS): 1.0, ("a.B.y", NS): 1.0}, trials=3)
    cont = result_files(rng, {("a.B.x", NS): 1.0}, trials=3)
    result = compare_datasets(dataset_from_files(base, "b"), dataset_from_files(cont, "c"), FAST)
    assert not result.fails("regression") and result.fails("missing") and result.fails("regression,missing")
    assert not result.fails("never")
    code, _, err = cli("compare", str(JMH / "v1-trial1.json"), str(JMH / "v2-trial1.json"), "--fail-on", "regresion")
    assert code == 2 and "unknown condition 'regresion'" in err and err.count("\n") == 1


def test_fail_on_missing_from_the_command_line(tmp_path):
    document = json.loads((JMH / "v2-trial1.json").read_text(encoding="utf-8"))
    (tmp_path / "fewer.json").write_text(json.dumps(document[:-1]), encoding="utf-8")
    args = ("compare", str(JMH / "v1-trial1.json"), str(tmp_path / "fewer.json"))
    assert cli(*args, "--fail-on", "regression")[0] == 0
    code, out, _ = cli(*args, "--fail-on", "regression,missing")
    assert code == 1 and out.startswith("only in baseline (not compared):")


# -- verdicts the design cannot carry, and secondary metrics ---------------------------------------


def test_a_verdict_from_few_trials_says_so_next_to_it(rng):
    def compared(trials: int, settings: Settings = FAST):
        base = result_files(rng, {("a.B.x", NS): 1.0}, trials=trials)
        cont = result_files(rng, {("a.B.x", NS): 1.5}, trials=trials)
        [c] = compare_datasets(dataset_from_files(base, "b"), dataset_from_files(cont, "c"), settings).comparisons
        return c

    # Two trials: no interval is trustworthy, whatever the method; the verdict says so.
    two = compared(2)
    assert two.verdict == Verdict.SLOWER and not two.verdict_supported
    assert [w.code for w in two.warnings] == ["few_units"] and "2 trials" in two.warnings[0].message
    assert "no confidence interval from 2 units is trustworthy" in two.warnings[0].message
    # Three: the expanded interval (default) is corrected for them; the percentile one is not.
    three = compared(3)
    assert three.verdict == Verdict.SLOWER and three.verdict_supported and three.warnings == ()
    plain = compared(3, replace(FAST, interval="percentile"))
    assert plain.verdict == Verdict.SLOWER and not plain.verdict_supported
    assert [w.code for w in plain.warnings] == ["few_units"] and "3 trials" in plain.warnings[0].message
    assert "--interval expanded" in plain.warnings[0].hint
    five = compared(5, replace(FAST, interval="percentile"))
    assert five.verdict == Verdict.SLOWER and five.verdict_supported


def test_allocation_below_a_byte_is_not_a_change_and_zero_counts_are_unchanged(rng):
    base = result_files(rng, {("a.B.x", ALLOC): 0.044, ("a.B.y", ALLOC): 100.0}, trials=5)
    cont = result_files(rng, {("a.B.x", ALLOC): 0.055, ("a.B.y", ALLOC): 125.0}, trials=5)
    zeros = {("a.B.x", GC): 0.0}
    settings = Settings(resamples=2000, metric="all")
    result = compare_datasets(dataset_from_files(base + [], "b"), dataset_from_files(cont, "c"), settings)
    verdicts = {c.case.name: c.verdict for c in result.comparisons}
    assert verdicts == {"a.B.x": Verdict.UNCHANGED, "a.B.y": Verdict.SLOWER}
    zero = compare_datasets(
        dataset_from_files(result_files(rng, zeros, trials=3, noise=0.0, fork_noise=0.0), "b"),
        dataset_from_files(result_files(rng, zeros, trials=3, noise=0.0, fork_noise=0.0), "c"), settings,
    )
    assert [c.verdict for c in zero.comparisons] == [Verdict.UNCHANGED] and zero.comparisons[0].warnings == ()


def test_a_stored_contender_whose_benchmark_failed_fails_the_gate(tmp_path, rng):
    """A real SQLite store: one benchmark failed in a contender trial, which was stored."""
    from rigorbench import api
    from rigorbench.store import Execution, ResultStore, TrialRecord, VersionInfo

    case = BenchmarkCase("jmh", "a.B.x")
    with ResultStore.open(tmp_path / "results.db") as store:
        run_id = store.create_run(
            harness="jmh", project="p", order="rmit", seed=1, settings={}, tool_version="0",
            versions=[VersionInfo("v1", "v1", None, None), VersionInfo("v2", "v2", None, None)],
            schedule=[Execution(t, label, 2 * t + i) for t in range(5) for i, label in enumerate(("v1", "v2"))],
        )
        for t in range(5):
            for i, label in enumerate(("v1", "v2")):
                table = result_files(rng, {("a.B.x", NS): 1.0}, trials=1)[0].series[0].samples
                store.record_execution(run_id, Execution(t, label, 2 * t + i), TrialRecord(
                    status="done", started="2026-01-01T00:00:00+00:00", ended="2026-01-01T00:01:00+00:00",
                    harness_seconds=1.0, series=[Series(case, NS, table)], environment={},
                    failures=("a.B.broken: java.lang.IllegalStateException: no",) if (label, t) == ("v2", 3) else (),
                ))
        baseline, contender = api.load_stored(store, ["v1", "v2"])
    result = api.compare(baseline, contender, FAST)
    assert result.failed_in_contender == ("a.B.broken: java.lang.IllegalStateException: no",)
    assert [c.verdict for c in result.comparisons] != [Verdict.SLOWER]
    assert result.fails("regression") and result.fails("change") and not result.fails("missing")
    swapped = api.compare(contender, baseline, FAST)
    assert swapped.failed_in_baseline and not swapped.fails("regression")


def test_rigorbench_toml_fail_on_may_list_several_conditions():
    from rigorbench.cli import build_parser
    from rigorbench.cli.run import _apply_file_settings

    args = build_parser().parse_args(["run", "rigorbench.toml"])
    _apply_file_settings(args, {"fail_on": ["regression", "missing"]})
    assert args.fail_on == "regression,missing"
    given = build_parser().parse_args(["run", "rigorbench.toml", "--fail-on", "change"])
    _apply_file_settings(given, {"fail_on": "regression,missing"})
    assert given.fail_on == "change", "the command line wins over the file"


def test_one_trial_per_side_is_compared_over_its_forks_with_a_warning(rng):
    base = result_files(rng, {("a.B.x", NS): 1.0}, trials=1, forks=6)
    cont = result_files(rng, {("a.B.x", NS): 1.5}, trials=1, forks=6)
    [c] = compare_datasets(dataset_from_files(base, "b"), dataset_from_files(cont, "c"), FAST).comparisons
    assert (c.baseline.trials, c.baseline.forks) == (1, 6)
    assert c.verdict == Verdict.SLOWER and c.verdict_supported  # six forks carry the interval
    codes = [w.code for w in c.warnings]
    assert codes == ["single_trial", "single_trial"]
    assert c.warnings[0].message.startswith("baseline: all values come from one trial")
    assert c.warnings[1].message.startswith("contender: all values come from one trial")
