"""pyperf JSON reader: the demo's real output (examples/pyperf-demo), read against pyperf's own
loader, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyperf
import pytest

from rigorbench import api
from rigorbench.errors import InputError
from rigorbench.formats import read_result_file
from rigorbench.model import Metric

PYPERF = Path(__file__).resolve().parents[1] / "testdata" / "pyperf"


@pytest.mark.parametrize("name", ["v1-trial1.json", "v2-trial2.json"])
def test_values_and_warmups_are_pyperfs_own_per_process(name):
    path = PYPERF / name
    result = read_result_file(path)
    assert result.format == "pyperf"
    suite = pyperf.BenchmarkSuite.load(str(path))
    assert {s.case.name for s in result.series} == set(suite.get_benchmark_names())
    for series in result.series:
        assert series.metric == Metric("time", "ns/op", higher_is_better=False, primary=True)
        runs = [run for run in suite.get_benchmark(series.case.name).get_runs() if run.values]
        table = series.samples
        for fork, run in enumerate(runs):
            here = table.fork == fork
            measured = table.value[here & ~table.warmup]
            warm = table.value[here & table.warmup]
            assert measured.tolist() == pytest.approx([v * 1e9 for v in run.values], rel=1e-12)
            assert warm.tolist() == pytest.approx([value * 1e9 for _, value in run.warmups], rel=1e-12)
        assert set(table.fork.tolist()) == set(range(len(runs)))   # the calibration process left out
        measured = table.value[~table.warmup]
        assert np.mean(measured) == pytest.approx(suite.get_benchmark(series.case.name).mean() * 1e9, rel=1e-12)


def test_the_environment_comes_from_the_common_metadata():
    environment = read_result_file(PYPERF / "v1-trial1.json").environment
    assert environment["harness"] == "pyperf" and environment["python_implementation"] == "cpython"
    assert environment["perf_version"] and environment["timer"]


def test_compare_finds_the_planted_changes():
    base = api.load_results(sorted(PYPERF.glob("v1-trial*.json")))
    head = api.load_results(sorted(PYPERF.glob("v2-trial*.json")))
    verdicts = {c.case.name: c.verdict.value for c in api.compare(base, head).comparisons}
    assert verdicts == {"sum_squares": "slower", "join_words": "faster"}


def document(*benchmarks, unit="second") -> str:
    return json.dumps({"benchmarks": list(benchmarks), "metadata": {"unit": unit, "perf_version": "2.10.0"},
                       "version": "1.0"})


def bench(name="b", runs=None, **metadata) -> dict:
    return {"metadata": {"name": name, "loops": 8, **metadata},
            "runs": runs if runs is not None else [{"metadata": {"calibrate_loops": 8}, "warmups": [[1, 1e-6], [8, 1e-6]]},
                                                   {"values": [1e-6, 2e-6], "warmups": [[8, 3e-6]]}]}


def test_byte_and_integer_benchmarks_keep_their_unit(write):
    result = read_result_file(write(document(bench(), unit="byte")))
    assert result.series[0].metric == Metric("memory", "B", higher_is_better=False, primary=True)
    assert result.series[0].samples.value[~result.series[0].samples.warmup].tolist() == [1e-6, 2e-6]


@pytest.mark.parametrize("text, message", [
    (document(bench(), unit="parsec"), "benchmark 'b': unknown unit 'parsec'"),
    (document(bench(runs=[{"values": [1e-6, -2e-6]}])), "benchmark 'b', run 1: negative value -2e-06"),
    (document(bench(runs=[{"values": ["fast"]}])), "value 'fast' is not a number"),
    (document(bench(runs=[{"values": [1.0], "warmups": [[1]]}])), "warmup 1 is not a [loops, value] pair"),
    (document(bench(runs=["x"])), "benchmark 'b': run 1 is not an object"),
    (document(bench(), bench()), "benchmark 'b': is listed twice"),
    (document({"metadata": {}, "runs": []}), 'benchmark 1: has no name'),
    (document(bench()).replace("2e-06", "1e999"), "number out of range: 1e999"),
    (document(bench())[:-30], "truncated JSON"),
    ('{"benchmarks": ' + "[" * 100_000 + "]" * 100_000 + ', "runs": 1}', "nested too deeply"),
    ('{"version": "1.0", "runs": []}', 'no "benchmarks" list'),
])
def test_bad_input_is_one_clear_error(write, text, message):
    path = write(text)
    with pytest.raises(InputError) as info:
        read_result_file(path, format="pyperf")
    assert str(info.value).startswith(f"{path}") and message in str(info.value)
