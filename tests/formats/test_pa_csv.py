"""pa CSV reader (Laaber's pa tool input, as bencher writes it) on hand-written files."""

from __future__ import annotations

import itertools

import numpy as np

import pytest

from rigorbench.errors import InputError
from rigorbench.formats import read_result_file
from rigorbench.formats.pa_csv import parse_params

HEADER = "project;commit;benchmark;params;instance;trial;fork;iteration;mode;unit;value_count;value\n"
BENCH = "org.example.Foo.bar"


def rows(commit="c1", params="size=10,mode=a,b", mode="avgt", unit="ns/op", value=lambda *k: 1.0, count=1):
    """2 instances x 2 trials x 2 forks x 2 iterations, 1-based numbers as bencher writes them."""
    out = []
    for instance, trial, fork, iteration in itertools.product(["i-7f3a", "i-01bc"], [1, 2], [1, 2], [1, 2]):
        v = value(instance, trial, fork, iteration)
        out.append(f"proj;{commit};{BENCH};{params};{instance};{trial};{fork};{iteration};{mode};{unit};{count};{v:e}\n")
    return "".join(out)


def test_levels_become_zero_based_codes(write):
    text = HEADER + rows(value=lambda i, t, f, it: 1000 * t + 100 * f + it + (0.5 if i == "i-01bc" else 0))
    result = read_result_file(write(text))
    assert result.format == "pa-csv"
    (series,) = result.series
    assert series.version == "c1"
    assert series.case.harness == "jmh" and series.case.name == BENCH
    assert series.case.params == (("mode", "a,b"), ("size", "10"))
    assert (series.metric.name, series.metric.unit, series.metric.primary) == ("time", "ns/op", True)
    s = series.samples
    assert len(s) == 16
    assert s.instance.tolist() == [0] * 8 + [1] * 8
    assert s.trial.tolist() == ([0] * 4 + [1] * 4) * 2
    assert s.fork.tolist() == [0, 0, 1, 1] * 4
    assert s.iteration.tolist() == [0, 1] * 8
    assert s.value[:3].tolist() == [1101.0, 1102.0, 1201.0] and s.value[8] == 1101.5
    assert not s.warmup.any() and not s.has_histogram
    assert result.environment == {"instances": "i-7f3a, i-01bc", "project": "proj"}


def test_series_per_commit_params_and_mode(write):
    text = HEADER + rows(commit="v1") + rows(commit="v2") + rows(commit="v2", params="size=20") + rows(
        commit="v2", mode="thrpt", unit="ops/s"
    )
    result = read_result_file(write(text))
    got = [(s.version, s.case.params_dict.get("size"), s.metric.name) for s in result.series]
    assert got == [("v1", "10", "time"), ("v2", "10", "time"), ("v2", "20", "time"), ("v2", "10", "throughput")]
    assert result.series[3].metric.higher_is_better


def test_value_count_is_the_histogram_count(write):
    result = read_result_file(write(HEADER + rows(mode="sample", count=7)))
    s = result.series[0].samples
    assert s.count.tolist() == [7.0] * 16 and s.has_histogram


def test_without_header_and_with_decimal_comma(write):
    line = f"p;c;{BENCH};;i1;1;1;1;avgt;ns/op;1;1,5e+01\n"
    result = read_result_file(write(line))
    assert result.format == "pa-csv"
    assert result.series[0].samples.value.tolist() == [15.0]
    assert result.series[0].case.params == ()


def test_empty_mode_and_unit_as_in_pa_tests(write):
    result = read_result_file(write(HEADER + ";;b1;;i1;1;1;1;;;1;0.0\n"))
    series = result.series[0]
    assert series.version is None and series.metric.name == "time"


def test_non_finite_values_are_skipped(write):
    text = HEADER + f"p;c;{BENCH};;i1;1;1;1;avgt;ns/op;1;NaN\np;c;{BENCH};;i1;1;1;2;avgt;ns/op;1;2.0\n"
    result = read_result_file(write(text))
    assert result.series[0].samples.value.tolist() == [2.0]
    assert result.warnings == (f"1 non-finite value skipped in {BENCH} time @c",)


@pytest.mark.parametrize(
    "row, message",
    [
        (f"p;c;{BENCH};;i1;1;1;1;avgt;ns/op;1", "expected 12 ';'-separated fields, got 11"),
        (f"p;c;{BENCH};;i1;one;1;1;avgt;ns/op;1;2.0", "trial must be an integer from 0 to 2147483647, got 'one'"),
        (f"p;c;{BENCH};;i1;1;{'9' * 5000};1;avgt;ns/op;1;2.0", f"fork must be an integer from 0 to 2147483647, got '{'9' * 40}'"),
        (f"p;c;{BENCH};;i1;1;1;-1;avgt;ns/op;1;2.0", "iteration must be an integer from 0 to 2147483647, got '-1'"),
        (f"p;c;{BENCH};;i1;1;1;1;avgt;ns/op;1;1e999", "number out of range: 1e999"),
        (f"p;c;{BENCH};;i1;1;1;1;avgt;ns/op;1;{'9' * 5000}", "number out of range: 999999999999...999999 (5000 characters)"),
        (f"p;c;{BENCH};;i1;1;1;1;thrpt;ops/s;1;-5.0", "negative throughput -5 ops/s: a throughput cannot be negative"),
        (f"p;c;{BENCH};;i1;1;1;1;avgt;ns/op;0;2.0", "value_count must be an integer from 1 to 9007199254740992, got '0'"),
        (f"p;c;{BENCH};;i1;1;1;1;avgt;ns/op;{'9' * 400};2.0", f"value_count must be an integer from 1 to 9007199254740992, got '{'9' * 40}'"),
        (f"p;c;{BENCH};;i1;1;1;1;avgt;ns/op;1;fast", "value 'fast' is not a number"),
        (f"p;c;{BENCH};size;i1;1;1;1;avgt;ns/op;1;2.0", "parameter 'size' is not name=value"),
    ],
)
def test_malformed_rows_name_their_line(write, row, message):
    text = HEADER + f"p;c;{BENCH};;i1;1;1;1;avgt;ns/op;1;2.0\n" + row + "\n"
    path = write(text)
    with pytest.raises(InputError) as info:
        read_result_file(path, format="pa-csv")
    assert str(info.value) == f"{path}:3: {message}"


def test_header_only_has_no_results(write):
    with pytest.raises(InputError, match="no benchmark results found"):
        read_result_file(write(HEADER))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", {}),
        ("a=1", {"a": "1"}),
        ("a=1,b=2", {"a": "1", "b": "2"}),
        ("a=x,y,b=2", {"a": "x,y", "b": "2"}),
        ("a=", {"a": ""}),
    ],
)
def test_parse_params(text, expected):
    assert parse_params(text) == expected


def _both_paths(text: str, path: str):
    """The column-wise reading and the row-by-row one of the same rows."""
    import csv
    import io

    from rigorbench.formats.pa_csv import HEADER, _columnwise, _RowParser

    records = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=";") if r and [f.lower() for f in r] != list(HEADER)]
    slow = _RowParser(path)
    for line, record in enumerate(records, 2):
        slow.row(record, line)
    return _columnwise(records, path, "pa-csv"), slow.result("pa-csv")


def test_the_column_wise_path_reads_exactly_what_the_row_path_reads():
    from rigorbench.formats.pa_csv import HEADER as COLUMNS

    rng = np.random.default_rng(3)
    lines = [";".join(COLUMNS)]
    for commit in ("v1", "v2"):
        for bench, params in (("a.B.x", ""), ("a.B.y", "size=10,kind=a,b"), ("a.B.x", "n=1")):
            for instance in ("i2", "i1"):
                for trial in (3, 4):
                    for fork in (1, 2):
                        for it in (1, 2, 3):
                            mode, unit = ("thrpt", "ops/ms") if bench.endswith("y") else ("avgt", "ns/op")
                            lines.append(f"p{instance};{commit};{bench};{params};{instance};{trial};{fork};{it};{mode};{unit};{rng.integers(1, 4)};{rng.lognormal(3, 1):.6g}")
    fast, slow = _both_paths("\n".join(lines) + "\n", "x.csv")
    assert fast is not None
    assert [(s.version, s.case, s.metric) for s in fast.series] == [(s.version, s.case, s.metric) for s in slow.series]
    for a, b in zip(fast.series, slow.series):
        for column in ("instance", "trial", "fork", "iteration", "warmup", "value", "count"):
            assert np.array_equal(getattr(a.samples, column), getattr(b.samples, column)), (a.case, column)
    assert fast.environment == slow.environment


@pytest.mark.parametrize("bad", ["-1.5", "nan", "1,5", "x", "1e999"])
def test_a_row_the_column_path_cannot_take_goes_down_the_row_path(bad):
    from rigorbench.formats.pa_csv import _columnwise

    record = f"p;v1;a.B.x;;i1;1;1;1;avgt;ns/op;1;{bad}".split(";")
    assert _columnwise([record], "x.csv", "pa-csv") is None
