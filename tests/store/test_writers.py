"""pa CSV and JMH JSON writers: exact layout, and round trips through rigorbench's own readers.

(These live with the store tests because exporting stored runs is what the writers are for.)
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats
from storedata import ADD, ALLOC, GC_COUNT, LABELS, SAMPLE, SAMPLE_TIME, TIME, TRIALS

from rigorbench.formats import read_result_file
from rigorbench.formats.writers import PA_HEADER, jmh_mode, write_jmh_json, write_pa_csv
from rigorbench.model import BenchmarkCase, Metric, SampleTable, Series

THRPT = Metric("throughput", "ops/s", higher_is_better=True, primary=True)


def one_trial(series: list[Series], trial: int) -> list[Series]:
    return [Series(s.case, s.metric, s.samples.select(s.samples.trial == trial)) for s in series]


def measurement_columns(table: SampleTable) -> dict:
    table = table.measurement()
    return {c: getattr(table, c).tolist() for c in ("instance", "trial", "fork", "iteration", "value", "count")}


# -- pa CSV layout ---------------------------------------------------------------------


def test_pa_csv_layout():
    thrpt = SampleTable.build(
        [1.0, 1500.25, 1600.5, 1e-07], fork=[0, 0, 0, 1], iteration=[0, 1, 2, 0],
        warmup=[True, False, False, False], trial=[1, 1, 1, 1],
    )
    histogram = SampleTable.build([10.5, 12.0], fork=[0, 0], iteration=[0, 0], count=[40, 2])
    zeta = BenchmarkCase.of("jmh", "org.ex.Z.run", {"size": "10", "mode": "fast"})
    alpha = BenchmarkCase.of("jmh", "org.ex.A;semi.run")
    text = write_pa_csv(
        [
            ("v1", "host-1", Series(zeta, THRPT, thrpt)),
            ("v1", "host-1", Series(zeta, ALLOC, SampleTable.build([24.0]))),  # secondary: not in pa
            ("v1", "host-1", Series(alpha, TIME, histogram)),
        ],
        project="demo",
    )
    assert text.splitlines()[0] == ";".join(PA_HEADER)
    assert text == (
        "project;commit;benchmark;params;instance;trial;fork;iteration;mode;unit;value_count;value\n"
        'demo;v1;"org.ex.A;semi.run";;host-1;1;1;1;sample;ns/op;40;10.5\n'
        'demo;v1;"org.ex.A;semi.run";;host-1;1;1;1;sample;ns/op;2;12.0\n'
        "demo;v1;org.ex.Z.run;mode=fast,size=10;host-1;2;1;1;thrpt;ops/s;1;1500.25\n"
        "demo;v1;org.ex.Z.run;mode=fast,size=10;host-1;2;1;2;thrpt;ops/s;1;1600.5\n"
        "demo;v1;org.ex.Z.run;mode=fast,size=10;host-1;2;2;1;thrpt;ops/s;1;1e-07\n"
    )


def test_pa_csv_orders_benchmarks_as_pa_compares_them():
    def case(name, **params):
        return BenchmarkCase.of("jmh", name, params)

    cases = [case("b", x="2"), case("b", x="10"), case("b"), case("a", y="1", x="9"), case("b", a="1", b="1")]
    rows = [("v", "i", Series(c, TIME, SampleTable.build([1.0]))) for c in cases]
    lines = write_pa_csv(rows, project="p").splitlines()[1:]
    assert [line.split(";")[2:4] for line in lines] == [
        ["a", "x=9,y=1"], ["b", ""], ["b", "x=10"], ["b", "x=2"], ["b", "a=1,b=1"],
    ]


def test_pa_csv_names_several_instances_and_skips_non_finite_values():
    table = SampleTable.build([1.0, float("nan"), 3.0], instance=[0, 0, 1], iteration=[0, 1, 0])
    lines = write_pa_csv([("v", "m", Series(ADD, TIME, table))], project="p").splitlines()
    assert len(lines) == 3
    assert [line.split(";")[4] for line in lines[1:]] == ["m#1", "m#2"]


def test_pa_csv_refuses_fractional_counts():
    table = SampleTable.build([1.0], count=[2.5])
    with pytest.raises(ValueError, match="whole invocation counts"):
        write_pa_csv([("v", "m", Series(SAMPLE, TIME, table))], project="p")


def test_modes():
    assert jmh_mode(Series(ADD, THRPT, SampleTable.build([1.0]))) == "thrpt"
    assert jmh_mode(Series(ADD, TIME, SampleTable.build([1.0]))) == "avgt"
    assert jmh_mode(Series(ADD, TIME, SampleTable.build([1.0], count=[3]))) == "sample"


# -- JMH JSON layout -------------------------------------------------------------------


def test_jmh_json_layout_and_score_error():
    values = [10.0, 11.0, 12.5, 9.0, 10.5, 11.5]
    primary = SampleTable.build(
        [99.0] + values[:3] + [99.0] + values[3:], fork=[0] * 4 + [1] * 4, iteration=[0, 0, 1, 2] * 2,
        warmup=[True, False, False, False] * 2,
    )
    series = [
        Series(ADD, TIME, primary),
        Series(ADD, ALLOC, SampleTable.build([24.0, 24.0], fork=[0, 1], iteration=[0, 0])),
        Series(ADD, Metric("\u00b7gc.count", "counts", False), SampleTable.build([1.0, 2.0], fork=[0, 1])),
        Series(SAMPLE, TIME, SampleTable.build([5.0], count=[3])),
    ]
    document = json.loads(write_jmh_json(series))
    add, sample = document
    assert list(add) == [
        "benchmark", "mode", "forks", "warmupIterations", "measurementIterations", "params",
        "primaryMetric", "secondaryMetrics",
    ]
    assert (add["benchmark"], add["mode"], add["forks"]) == ("org.example.Bench.add", "avgt", 2)
    assert (add["warmupIterations"], add["measurementIterations"]) == (1, 3)
    assert add["params"] == {"kind": "a,b", "size": "10"}
    metric = add["primaryMetric"]
    assert metric["rawData"] == [values[:3], values[3:]]
    assert metric["scoreUnit"] == "ns/op"
    half_width = stats.t.ppf(0.9995, 5) * np.std(values, ddof=1) / np.sqrt(6)
    assert metric["score"] == pytest.approx(np.mean(values))
    assert metric["scoreError"] == pytest.approx(half_width)
    assert metric["scoreConfidence"] == pytest.approx([np.mean(values) - half_width, np.mean(values) + half_width])
    assert set(add["secondaryMetrics"]) == {"gc.alloc.rate.norm", "gc.count"}
    alloc = add["secondaryMetrics"]["gc.alloc.rate.norm"]
    assert alloc["rawData"] == [[24.0], [24.0]] and alloc["scoreUnit"] == "B/op" and alloc["scoreError"] == "NaN"
    assert "params" not in sample and sample["mode"] == "sample"
    assert sample["primaryMetric"]["rawDataHistogram"] == [[[[5.0, 3]]]]
    assert "rawData" not in sample["primaryMetric"]
    assert sample["primaryMetric"]["scoreError"] == pytest.approx(0.0)  # n = 3 equal invocations


def test_jmh_json_mode_by_case_and_refusals():
    series = [Series(ADD, TIME, SampleTable.build([1.0, 2.0, 3.0]))]
    assert json.loads(write_jmh_json(series, mode_by_case={ADD: "ss"}))[0]["mode"] == "ss"
    with pytest.raises(ValueError, match="one trial"):
        write_jmh_json([Series(ADD, TIME, SampleTable.build([1.0, 2.0], trial=[0, 1]))])
    with pytest.raises(ValueError, match="exactly one primary metric"):
        write_jmh_json([Series(ADD, ALLOC, SampleTable.build([1.0]))])
    assert write_jmh_json([]) == "[]\n"


# -- round trips through the readers ---------------------------------------------------


@pytest.fixture
def stored(store, full_run):
    """label -> the series the store gives for it."""
    return {label: store.load_series(full_run, label) for label in LABELS}


def test_pa_csv_round_trip(tmp_path, stored):
    rows = [(label, "host-1", s) for label in LABELS for s in stored[label]]
    path = tmp_path / "pa.csv"
    path.write_text(write_pa_csv(rows, project="demo"), encoding="utf-8")
    result = read_result_file(path)
    assert result.format == "pa-csv"
    got = {(s.version, s.case, s.metric): s for s in result.series}
    want = {(label, s.case, s.metric): s for label in LABELS for s in stored[label] if s.metric.primary}
    assert set(got) == set(want) == {(label, case, metric) for label in LABELS for case, metric in ((ADD, TIME), (SAMPLE, SAMPLE_TIME))}
    for key, series in want.items():
        assert measurement_columns(got[key].samples) == measurement_columns(series.samples), key


@pytest.mark.parametrize("label", LABELS)
def test_jmh_json_round_trip_per_trial(tmp_path, stored, label):
    for trial in range(TRIALS):
        want = one_trial(stored[label], trial)
        path = tmp_path / f"{label}-{trial}.json"
        path.write_text(write_jmh_json(want), encoding="utf-8")
        result = read_result_file(path)
        assert result.format == "jmh-json"
        assert [(s.case, s.metric) for s in result.series] == [
            (ADD, TIME), (ADD, ALLOC), (SAMPLE, SAMPLE_TIME), (SAMPLE, GC_COUNT)
        ]
        for got, series in zip(result.series, want):
            expected = measurement_columns(series.samples)
            expected["trial"] = [0] * len(expected["trial"])  # one file is one trial
            assert measurement_columns(got.samples) == expected, (got.case, got.metric)
