"""Google Benchmark JSON reader: the demo's real output (examples/gbench-demo), and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rigorbench import api
from rigorbench.errors import InputError
from rigorbench.formats import read_result_file
from rigorbench.formats.gbench import split_name
from rigorbench.model import Metric

GBENCH = Path(__file__).resolve().parents[1] / "testdata" / "gbench"


def series_by(result):
    return {(s.case.display_name, s.metric.name): s for s in result.series}


def test_the_demos_repetitions_are_iterations_of_one_fork_and_aggregates_are_left_out():
    path = GBENCH / "v1-trial1.json"
    result = read_result_file(path)
    assert result.format == "gbench"
    got = series_by(result)
    assert {name for name, _ in got} == {"BM_SumVector{size=1000}", "BM_SumVector{size=10000}", "BM_JoinWords"}
    time = got[("BM_SumVector{size=1000}", "time")]
    assert time.case.harness == "gbench" and time.case.name == "BM_SumVector"
    assert time.metric == Metric("time", "ns/op", higher_is_better=False, primary=True)
    assert time.samples.iteration.tolist() == [0, 1, 2, 3, 4] and set(time.samples.fork.tolist()) == {0}
    # Oracle: the library's own aggregates over the same repetitions.
    document = json.loads(path.read_text())
    aggregates = {(b["run_name"], b["aggregate_name"]): b for b in document["benchmarks"] if b["run_type"] == "aggregate"}
    for (name, metric), series in got.items():
        run_name = "BM_SumVector/size:" + name.split("=")[1].rstrip("}") if "size" in name else name
        key = {"time": "real_time"}.get(metric, metric)
        assert np.mean(series.samples.value) == pytest.approx(aggregates[(run_name, "mean")][key], rel=1e-12)
        assert np.median(series.samples.value) == pytest.approx(aggregates[(run_name, "median")][key], rel=1e-12)


def test_cpu_time_and_counters_are_metrics_with_their_direction():
    got = series_by(read_result_file(GBENCH / "v1-trial1.json"))
    assert got[("BM_JoinWords", "cpu_time")].metric == Metric("cpu_time", "ns/op", higher_is_better=False)
    rate = got[("BM_SumVector{size=1000}", "items_per_second")].metric
    assert rate.higher_is_better and not rate.primary
    assert got[("BM_JoinWords", "words")].samples.value.tolist() == [200.0] * 5


def test_a_failed_benchmark_is_a_failure_and_a_debug_library_a_warning():
    result = read_result_file(GBENCH / "v2-trial1.json")
    assert result.failures == ("BM_Broken: the input file is missing",)
    assert not any(s.case.name == "BM_Broken" for s in result.series)
    assert any("debug build" in w for w in result.warnings) == (result.environment["library_build_type"] == "debug")
    assert result.environment["harness"] == "gbench" and int(result.environment["cpus"]) >= 1


def test_compare_finds_the_planted_changes():
    base = api.load_results(sorted(GBENCH.glob("v1-trial*.json")))
    head = api.load_results(sorted(GBENCH.glob("v2-trial*.json")))
    verdicts = {c.case.display_name: c.verdict.value for c in api.compare(base, head).comparisons}
    assert verdicts["BM_SumVector{size=1000}"] == verdicts["BM_SumVector{size=10000}"] == "slower"
    assert verdicts["BM_JoinWords"] == "faster"


@pytest.mark.parametrize("name, family, params", [
    ("BM_X", "BM_X", {}),
    ("BM_Sum/size:100", "BM_Sum", {"size": "100"}),
    ("BM_Sum/8/64/threads:2", "BM_Sum", {"arg0": "8", "arg1": "64", "threads": "2"}),
    ("BM_Sum/real_time", "BM_Sum", {"arg0": "real_time"}),
])
def test_names_become_a_family_and_parameters(name, family, params):
    assert split_name(name) == (family, params)


def run(**fields) -> dict:
    return {"name": "BM_X", "run_name": "BM_X", "run_type": "iteration", "repetition_index": 0,
            "real_time": 5.0, "cpu_time": 5.0, "time_unit": "ns", **fields}


def document(*runs, context=None) -> str:
    lines = ['{', f'  "context": {json.dumps(context or {"num_cpus": 2})},', '  "benchmarks": [']
    lines.append(",\n".join("    " + json.dumps(r) for r in runs))
    lines += ['  ]', '}']
    return "\n".join(lines) + "\n"


def test_skipped_runs_of_newer_libraries_are_failures(write):
    result = read_result_file(write(document(run(), run(name="BM_Y", run_name="BM_Y", skipped="SkippedWithError",
                                                        skip_message="no GPU"))))
    assert result.failures == ("BM_Y: no GPU",)


@pytest.mark.parametrize("runs, line, message", [
    ((run(), run()), 5, "BM_X: repetition 0 is listed twice (first at line 4)"),
    ((run(), run(repetition_index=1, real_time=-3.0)), 5, "negative time -3: a time cannot be negative"),
    ((run(time_unit="fortnights"),), 4, "unknown time_unit 'fortnights'"),
    ((run(real_time="fast"),), 4, "time is not a number"),
    (([1, 2],), 4, "a benchmark run is not an object"),
])
def test_bad_runs_name_their_line(write, runs, line, message):
    path = write(document(*runs))
    with pytest.raises(InputError) as info:
        read_result_file(path)
    assert str(info.value).startswith(f"{path}:{line}: ") and message in str(info.value)


@pytest.mark.parametrize("text, message", [
    (document(run()).replace("5.0", "1e999", 1), "time: number out of range: 1e999"),
    (document(run())[:-20], "truncated JSON"),
    ('{"context": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ('{"context": {}}', 'no "benchmarks" list'),
    (document(run()) + "[]", "unexpected text after the document"),
])
def test_bad_documents_are_one_clear_error(write, text, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        read_result_file(write(text))
