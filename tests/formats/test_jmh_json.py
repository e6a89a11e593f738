"""JMH JSON reader on small hand-written documents (edge cases real runs rarely show)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rigorbench.errors import InputError
from rigorbench.formats import read_result_file
from rigorbench.model import BenchmarkCase


def entry(name="dev.rigorbench.demo.Foo.bar", mode="avgt", unit="ns/op", raw=None, **extra):
    """A benchmark object shaped like JMH 1.37's, with only the fields the reader uses."""
    primary = {"score": 1.0, "scoreError": 0.1, "scoreUnit": unit}
    if raw is not None:
        primary["rawData"] = raw
    body = {
        "jmhVersion": "1.37",
        "benchmark": name,
        "mode": mode,
        "threads": 1,
        "forks": 2,
        "jvm": "/usr/lib/jvm/java-17/bin/java",
        "jvmArgs": ["-Xmx1g"],
        "jdkVersion": "17.0.9",
        "vmName": "OpenJDK 64-Bit Server VM",
        "vmVersion": "17.0.9+9",
        "warmupIterations": 3,
        "warmupTime": "1 s",
        "warmupBatchSize": 1,
        "measurementIterations": 3,
        "measurementTime": "1 s",
        "measurementBatchSize": 1,
        "primaryMetric": primary,
        "secondaryMetrics": {},
    }
    body.update(extra)
    return body


def document(*entries) -> str:
    return json.dumps(list(entries), indent=4)


def only(result, metric="time"):
    found = [s for s in result.series if s.metric.name == metric]
    assert len(found) == 1, [s.metric.name for s in result.series]
    return found[0]


def test_rawdata_gives_one_row_per_iteration_with_fork_and_iteration_codes(write):
    result = read_result_file(write(document(entry(raw=[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))))
    assert result.format == "jmh-json"
    series = only(result)
    assert series.case == BenchmarkCase("jmh", "dev.rigorbench.demo.Foo.bar", ())
    assert series.metric.unit == "ns/op" and series.metric.primary and not series.metric.higher_is_better
    s = series.samples
    assert s.value.tolist() == [1, 2, 3, 4, 5, 6]
    assert s.fork.tolist() == [0, 0, 0, 1, 1, 1]
    assert s.iteration.tolist() == [0, 1, 2, 0, 1, 2]
    assert not s.warmup.any() and set(s.trial.tolist()) == {0} and set(s.instance.tolist()) == {0}
    env = result.environment
    assert env["jmh_version"] == "1.37" and env["mode"] == "avgt" and env["forks"] == "2"
    assert env["jvm_args"] == "-Xmx1g" and env["vm_name"] == "OpenJDK 64-Bit Server VM"
    assert env["warmup"] == "3 iterations, 1 s each"


def test_throughput_mode_is_higher_is_better(write):
    result = read_result_file(write(document(entry(mode="thrpt", unit="ops/ms", raw=[[10.0]]))))
    metric = result.series[0].metric
    assert (metric.name, metric.unit, metric.higher_is_better, metric.primary) == ("throughput", "ops/ms", True, True)


@pytest.mark.parametrize("prefix", ["\u00b7", ""], ids=["jmh-1.36-dot", "jmh-1.37-plain"])
def test_secondary_metric_names_with_and_without_the_dot(write, prefix):
    secondary = {
        f"{prefix}gc.alloc.rate": {"score": 1.0, "scoreUnit": "MB/sec", "rawData": [[100.0, 110.0]]},
        f"{prefix}gc.alloc.rate.norm": {"score": 24.0, "scoreUnit": "B/op", "rawData": [[24.0, 24.0]]},
        f"{prefix}gc.count": {"score": 0.0, "scoreUnit": "counts", "rawData": [[0.0, 1.0]]},
        f"{prefix}gc.time": {"score": 3.0, "scoreUnit": "ms", "rawData": [[2.0, 4.0]]},
        f"{prefix}gc.churn.G1_Eden_Space": {"score": 9.0, "scoreUnit": "MB/sec"},  # no raw data: skipped
    }
    result = read_result_file(write(document(entry(raw=[[1.0, 2.0]], secondaryMetrics=secondary))))
    names = [s.metric.name for s in result.series]
    assert names == ["time", "gc.alloc.rate", "alloc", "gc.count", "gc.time"]
    alloc = only(result, "alloc")
    assert (alloc.metric.unit, alloc.metric.higher_is_better, alloc.metric.primary) == ("B/op", False, False)
    assert alloc.samples.value.tolist() == [24.0, 24.0]
    assert not only(result, "gc.alloc.rate").metric.higher_is_better


def test_secondary_rate_of_operations_is_higher_is_better(write):
    secondary = {"get": {"score": 5.0, "scoreUnit": "ops/us", "rawData": [[5.0]]}}
    result = read_result_file(write(document(entry(mode="thrpt", unit="ops/us", raw=[[9.0]], secondaryMetrics=secondary))))
    assert only(result, "get").metric.higher_is_better


def test_params_are_strings_ordered_by_name(write):
    result = read_result_file(write(document(entry(raw=[[1.0]], params={"size": "100", "mode": "fast"}))))
    assert result.series[0].case.params == (("mode", "fast"), ("size", "100"))


def test_missing_params_give_an_empty_tuple(write):
    result = read_result_file(write(document(entry(raw=[[1.0]]))))
    assert result.series[0].case.params == ()


def test_non_finite_strings_are_skipped_and_counted(write):
    text = document(entry(raw=[[1.0, "NaN", 2.0], ["+INF", 3.0, "-INF"]]))
    result = read_result_file(write(text))
    s = only(result).samples
    assert s.value.tolist() == [1.0, 2.0, 3.0]
    assert s.fork.tolist() == [0, 0, 1] and s.iteration.tolist() == [0, 2, 1]
    assert result.warnings == ("3 non-finite values skipped in dev.rigorbench.demo.Foo.bar time",)


def test_all_values_non_finite_means_no_results(write):
    with pytest.raises(InputError, match="no benchmark results found .*non-finite"):
        read_result_file(write(document(entry(raw=[["NaN", "NaN"]]))))


def test_ragged_rawdata_keeps_every_iteration(write):
    result = read_result_file(write(document(entry(raw=[[1.0, 2.0, 3.0], [4.0], []]))))
    s = only(result).samples
    assert s.fork.tolist() == [0, 0, 0, 1]
    assert s.iteration.tolist() == [0, 1, 2, 0]


def test_histogram_gives_one_row_per_distinct_value_with_its_count(write):
    hist = [[[[10.0, 3], [20.0, 1]], [[15.0, 2]]], [[[30.0, 1]]]]
    e = entry(mode="sample", unit="us/op")
    e["primaryMetric"]["rawDataHistogram"] = hist
    result = read_result_file(write(document(e)))
    s = only(result, "sample_time").samples
    assert s.value.tolist() == [10.0, 20.0, 15.0, 30.0]
    assert s.count.tolist() == [3.0, 1.0, 2.0, 1.0]
    assert s.fork.tolist() == [0, 0, 0, 1] and s.iteration.tolist() == [0, 0, 1, 0]
    assert s.has_histogram


def test_histogram_is_preferred_over_rawdata(write):
    e = entry(mode="sample", unit="us/op", raw=[[99.0]])
    e["primaryMetric"]["rawDataHistogram"] = [[[[1.0, 2]]]]
    s = only(read_result_file(write(document(e))), "sample_time").samples
    assert s.value.tolist() == [1.0] and s.count.tolist() == [2.0]


def test_several_benchmarks_keep_file_order(write):
    text = document(entry(name="a.B.z", raw=[[1.0]]), entry(name="a.B.a", raw=[[2.0]]))
    assert [s.case.name for s in read_result_file(write(text)).series] == ["a.B.z", "a.B.a"]


def test_empty_list_has_no_results(write):
    with pytest.raises(InputError, match="no benchmark results found") as info:
        read_result_file(write("[\n]\n"))
    assert info.value.line is None


def test_truncated_json_names_the_last_line_and_the_benchmark(write):
    text = document(entry(name="a.B.first", raw=[[1.0]]), entry(name="a.B.second", raw=[[2.0, 3.0]]))
    cut = text[: text.index("a.B.second") + 200]
    path = write(cut)
    with pytest.raises(InputError) as info:
        read_result_file(path)
    error = info.value
    second_start = text[: text.index("a.B.second")].rfind("{")
    start_line = text.count("\n", 0, second_start) + 1
    assert error.line == cut.count("\n") + 1
    assert error.message == f"truncated JSON: the file ends inside the benchmark that starts at line {start_line}"
    assert str(error) == f"{path}:{error.line}: {error.message}"


def test_json_syntax_error_gives_its_line(write):
    text = '[\n  {"benchmark": "a.B.c",\n   "mode": "avgt",,\n  }\n]\n'
    with pytest.raises(InputError, match="invalid JSON") as info:
        read_result_file(write(text))
    assert info.value.line == 3


def test_structurally_wrong_entry_names_the_line_where_it_starts(write):
    good = entry(name="a.B.good", raw=[[1.0]])
    bad = entry(name="a.B.bad", raw=[[1.0, "fast"]])
    text = document(good, bad)
    start_line = text.count("\n", 0, text[: text.index("a.B.bad")].rfind("{")) + 1
    with pytest.raises(InputError) as info:
        read_result_file(write(text))
    assert info.value.line == start_line
    assert info.value.message == "a.B.bad: primaryMetric.rawData[0][1] is not a number: 'fast'"


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda e: e.pop("benchmark"), 'benchmark entry has no "benchmark" name'),
        (lambda e: e.pop("primaryMetric"), 'no "primaryMetric" object'),
        (lambda e: e["primaryMetric"].pop("scoreUnit"), 'primaryMetric has no "scoreUnit"'),
        (lambda e: e["primaryMetric"].update(rawData=[1.0, 2.0]), "rawData is not a list of forks"),
        (lambda e: e["primaryMetric"].update(rawDataHistogram=[[[[1.0]]]]), r"bad \[value, count\] pair"),
        (lambda e: e.update(params=["x"]), '"params" is not an object'),
    ],
)
def test_structural_errors(write, mutate, message):
    e = entry(raw=[[1.0]])
    mutate(e)
    with pytest.raises(InputError, match=message) as info:
        read_result_file(write(document(e)))
    assert info.value.line == 2


def test_not_a_list(write):
    with pytest.raises(InputError, match="expected a list of benchmarks"):
        read_result_file(write('{"benchmark": "a.B.c"}'), format="jmh-json")


def test_same_benchmark_case_in_two_entries_is_an_error_not_a_merge(write):
    text = document(entry(raw=[[1.0], [2.0]]), entry(raw=[[3.0], [4.0]]))
    with pytest.raises(InputError) as info:
        read_result_file(write(text))
    first, again = (i + 1 for i, line in enumerate(text.split("\n")) if line.lstrip().startswith("{"))
    assert info.value.line == again
    assert info.value.message == (
        f"dev.rigorbench.demo.Foo.bar (mode avgt): listed again (first at line {first}); "
        "one file holds each benchmark case once"
    )


def test_same_benchmark_in_two_modes_or_with_other_params_is_two_cases(write):
    text = document(
        entry(raw=[[1.0]]), entry(mode="thrpt", unit="ops/ms", raw=[[5.0]]),
        entry(raw=[[2.0]], params={"size": "10"}),
    )
    assert len(read_result_file(write(text)).series) == 3


def test_values_are_float64_read_only(write):
    s = only(read_result_file(write(document(entry(raw=[[1, 2]]))))).samples
    assert s.value.dtype == np.float64 and not s.value.flags.writeable


@pytest.mark.parametrize("literal, shown", [
    ("1e999", "1e999"),
    ("-1e400", "-1e400"),
    ("9" * 5000, "999999999999...999999 (5000 characters)"),
])
def test_numbers_beyond_float_range_are_input_errors(write, literal, shown):
    text = document(entry(raw=[[1.0, 2.0]])).replace("2.0", literal)
    with pytest.raises(InputError) as info:
        read_result_file(write(text))
    assert info.value.line == 2
    assert info.value.message == f"dev.rigorbench.demo.Foo.bar: primaryMetric.rawData[0][1]: number out of range: {shown}"


def test_a_huge_integer_in_a_histogram_is_an_input_error(write):
    text = document(entry(mode="sample", raw=None)).replace(
        '"scoreUnit"', '"rawDataHistogram": [[[[1' + "0" * 400 + ', 2]]]], "scoreUnit"'
    )
    with pytest.raises(InputError, match=r"rawDataHistogram\[0\]\[0\]: number out of range"):
        read_result_file(write(text))


@pytest.mark.parametrize("nested", ['{"a": ' * 5000 + "1" + "}" * 5000, "[" * 5000 + "]" * 5000])
def test_deep_nesting_is_an_input_error(write, nested):
    text = document(entry(raw=[[1.0]]), entry(name="a.B.c", raw=[[1.0]]))
    text = text.replace('"threads": 1', f'"threads": {nested}', 1)
    with pytest.raises(InputError) as info:
        read_result_file(write(text))
    assert (info.value.line, info.value.message) == (2, "invalid JSON: nested too deeply")


@pytest.mark.parametrize("mode, unit, raw", [
    ("thrpt", "ops/ms", [[3.0, -5.0]]),
    ("avgt", "ns/op", [[-0.5]]),
])
def test_negative_times_and_throughputs_are_input_errors(write, mode, unit, raw):
    with pytest.raises(InputError, match="cannot be negative") as info:
        read_result_file(write(document(entry(mode=mode, unit=unit, raw=raw))))
    assert info.value.line == 2 and "primaryMetric.rawData[0]" in info.value.message


def test_a_negative_sample_in_a_histogram_is_an_input_error(write):
    text = document(entry(mode="sample", raw=None)).replace(
        '"scoreUnit"', '"rawDataHistogram": [[[[-3.0, 2]]]], "scoreUnit"'
    )
    with pytest.raises(InputError, match="negative sample_time -3 ns/op"):
        read_result_file(write(text))


def test_names_in_error_messages_have_control_characters_escaped(write):
    text = document(entry(name="a.B.c\nrigorbench: error: forged\x1b[2J", raw=[[1.0, "fast"]]))
    with pytest.raises(InputError) as info:
        read_result_file(write(text))
    assert "\n" not in str(info.value) and "\x1b" not in str(info.value)
    assert info.value.message.startswith("a.B.c\\nrigorbench: error: forged\\x1b[2J: primaryMetric.rawData[0][1]")
