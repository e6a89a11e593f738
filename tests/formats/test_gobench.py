"""Go benchmark format reader on small hand-written outputs."""

from __future__ import annotations

import pytest

from rigorbench.errors import InputError
from rigorbench.formats import read_result_file
from rigorbench.formats.gobench import split_name, unit_metric
from rigorbench.model import BenchmarkCase, Metric

OUTPUT = """\
goos: linux
goarch: amd64
pkg: example.com/sum
cpu: Intel(R) Xeon(R) CPU @ 2.20GHz
BenchmarkSum/size=100-8         	  500000	      2400 ns/op	     896 B/op	       1 allocs/op
BenchmarkSum/size=100-8         	  500000	      2450 ns/op	     896 B/op	       1 allocs/op
BenchmarkSum/size=1000-8        	   50000	     24000 ns/op	    8192 B/op	       1 allocs/op
BenchmarkSum/size=1000-8        	   50000	     24100 ns/op	    8192 B/op	       1 allocs/op
BenchmarkCopy/small-8           	 1000000	      1000 ns/op	 512.00 MB/s	   3.5 hits/op
BenchmarkCopy/small-8           	 1000000	      1100 ns/op	 465.45 MB/s	   3.0 hits/op
PASS
ok  	example.com/sum	12.345s
"""


def series_by(result):
    return {(s.case.name, s.case.params, s.metric.name): s for s in result.series}


def test_benchmark_lines_config_and_sub_benchmark_params(write):
    result = read_result_file(write(OUTPUT))
    assert result.format == "go"
    got = series_by(result)
    time = got[("BenchmarkSum", (("size", "100"),), "time")]
    assert time.case.harness == "go"
    assert time.metric == Metric("time", "ns/op", False, primary=True)
    assert time.samples.value.tolist() == [2400.0, 2450.0]
    assert time.samples.iteration.tolist() == [0, 1] and time.samples.fork.tolist() == [0, 0]
    assert got[("BenchmarkSum", (("size", "100"),), "alloc")].metric == Metric("alloc", "B/op", False)
    assert got[("BenchmarkSum", (("size", "1000"),), "allocs")].metric == Metric("allocs", "allocs/op", False)
    assert got[("BenchmarkCopy/small", (), "MB/s")].metric == Metric("MB/s", "MB/s", True)
    assert got[("BenchmarkCopy/small", (), "hits/op")].samples.value.tolist() == [3.5, 3.0]
    assert len(result.series) == 3 + 3 + 3
    env = result.environment
    assert (env["goos"], env["goarch"], env["pkg"], env["gomaxprocs"]) == ("linux", "amd64", "example.com/sum", "8")
    assert env["cpu"] == "Intel(R) Xeon(R) CPU @ 2.20GHz"


@pytest.mark.parametrize(
    "full, expected",
    [
        ("BenchmarkSum-8", ("BenchmarkSum", {}, "8")),
        ("BenchmarkSum", ("BenchmarkSum", {}, "1")),
        ("BenchmarkSum/size=100/mode=fast-16", ("BenchmarkSum", {"size": "100", "mode": "fast"}, "16")),
        ("BenchmarkSum/json/size=1/v2-4", ("BenchmarkSum/json/v2", {"size": "1"}, "4")),
        ("BenchmarkX/a=b=c-2", ("BenchmarkX", {"a": "b=c"}, "2")),
    ],
)
def test_split_name(full, expected):
    assert split_name(full) == expected


@pytest.mark.parametrize(
    "unit, higher",
    [("ns/op", False), ("B/op", False), ("MB/s", True), ("frames/s", True), ("hits/op", False)],
)
def test_unit_direction(unit, higher):
    assert unit_metric(unit).higher_is_better is higher


def test_a_new_pkg_line_changes_the_package_and_packages_become_params(write):
    text = "pkg: a\nBenchmarkX-8  10  5 ns/op\npkg: b\nBenchmarkX-8  10  7 ns/op\n"
    result = read_result_file(write(text))
    cases = [s.case for s in result.series]
    assert cases == [BenchmarkCase("go", "BenchmarkX", (("pkg", "a"),)), BenchmarkCase("go", "BenchmarkX", (("pkg", "b"),))]
    assert result.environment["pkg"] == "a | b"


def test_several_gomaxprocs_do_not_share_a_series(write):
    text = "BenchmarkX  10  5 ns/op\nBenchmarkX-4  10  7 ns/op\n"
    result = read_result_file(write(text))
    assert [s.case.params for s in result.series] == [(("gomaxprocs", "1"),), (("gomaxprocs", "4"),)]


def test_verbose_name_lines_and_test_logs_are_ignored(write):
    text = """\
goos: linux
BenchmarkX
BenchmarkX-8   	     100	     12345 ns/op
--- BENCH: BenchmarkX-8
    x_test.go:12: log line: 3 things
Benchmarking is fun: yes
PASS
"""
    result = read_result_file(write(text))
    assert len(result.series) == 1 and result.series[0].samples.value.tolist() == [12345.0]


def test_failed_benchmark_is_a_warning(write):
    text = "BenchmarkBad-8   \t--- FAIL: BenchmarkBad-8\n    bad_test.go:9: boom\nBenchmarkOK-8  10  5 ns/op\nFAIL\n"
    result = read_result_file(write(text))
    assert result.warnings == ("benchmark BenchmarkBad-8 failed",)
    assert [s.case.name for s in result.series] == ["BenchmarkOK"]


def test_non_finite_values_are_skipped(write):
    result = read_result_file(write("BenchmarkX-8  10  NaN ns/op\nBenchmarkX-8  10  5 ns/op\n"))
    assert result.series[0].samples.value.tolist() == [5.0]
    assert result.warnings == ("1 non-finite value skipped in BenchmarkX time",)


@pytest.mark.parametrize(
    "line, message",
    [
        ("BenchmarkX-8  10  5 ns/op  7", "expected value/unit pairs after the iteration count, got 3 fields"),
        ("BenchmarkX-8  10", "expected value/unit pairs after the iteration count, got 0 fields"),
        ("BenchmarkX-8  10  fast ns/op", "'fast' is not a number"),
        ("BenchmarkX-8  ten  5 ns/op", "iteration count 'ten' is not an integer"),
        ("BenchmarkX-8  10  1e999 ns/op", "number out of range: 1e999"),
        (f"BenchmarkX-8  10  {'9' * 5000} ns/op", "number out of range: 999999999999...999999 (5000 characters)"),
    ],
)
def test_malformed_benchmark_line_names_path_and_line(write, line, message):
    text = f"goos: linux\npkg: example.com/x\nBenchmarkOK-8  10  5 ns/op\n{line}\nPASS\n"
    path = write(text)
    with pytest.raises(InputError) as info:
        read_result_file(path)
    assert str(info.value) == f"{path}:4: malformed benchmark line: {message}"


@pytest.mark.parametrize("unit", ["ns/op", "B/op", "allocs/op", "MB/s"])
def test_negative_values_of_known_units_are_input_errors(write, unit):
    path = write(f"BenchmarkX-8  10  5 ns/op\nBenchmarkX-8  10  5 ns/op  -3 {unit}\n")
    with pytest.raises(InputError) as info:
        read_result_file(path)
    assert str(info.value) == f"{path}:2: negative value -3 {unit}: a {unit} value cannot be negative"


def test_repeated_lines_are_iterations_and_custom_units_may_be_negative(write):
    result = read_result_file(write("BenchmarkX-8  10  5 ns/op  -2 delta/op\nBenchmarkX-8  10  6 ns/op  -1 delta/op\n"))
    by_metric = {s.metric.name: s.samples for s in result.series}
    assert by_metric["time"].iteration.tolist() == [0, 1]
    assert by_metric["delta/op"].value.tolist() == [-2.0, -1.0]


def test_only_config_lines_is_no_results(write):
    with pytest.raises(InputError, match="no benchmark results found"):
        read_result_file(write("goos: linux\ngoarch: amd64\npkg: x\nPASS\n"))


def test_a_benchmark_that_calls_fatal_is_a_failure_warning(write):
    text = "pkg: x\nBenchmarkFine-2  100  5 ns/op\n--- FAIL: BenchmarkBroken\n    x_test.go:14: missing\nFAIL\n"
    result = read_result_file(write(text))
    assert result.warnings == ("benchmark BenchmarkBroken failed",)
    assert [s.case.name for s in result.series] == ["BenchmarkFine"]


def test_unit_lines_declare_which_way_is_better_for_the_whole_file(write):
    # The Go benchmark format proposal's unit metadata; undeclared units keep the */s rule.
    text = ("BenchmarkRender-8  10  5 ns/op  60 frames/op  3 misses/s\n"
            "Unit frames/op better=higher assume=exact\n"
            "Unit misses/s better=lower\n")
    better = {s.metric.unit: s.metric.higher_is_better for s in read_result_file(write(text)).series}
    assert better == {"ns/op": False, "frames/op": True, "misses/s": False}


@pytest.mark.parametrize("line, message", [
    ("Unit frames/op better=more", "better='more', expected better=higher or better=lower"),
    ("Unit frames/op higher", "'higher' is not key=value"),
])
def test_a_bad_unit_line_is_an_input_error_naming_the_line(write, line, message):
    with pytest.raises(InputError) as info:
        read_result_file(write(f"BenchmarkX-8  10  5 ns/op  6 frames/op\n{line}\n"))
    assert ":2:" in str(info.value) and message in str(info.value)
