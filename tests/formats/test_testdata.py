"""Facts about the project's own real harness output (tests/testdata), beyond the golden dumps."""

from __future__ import annotations

import re
from pathlib import Path


from rigorbench.formats import read_result_file
from tests.formats.dump import dump_result_file

TESTDATA = Path(__file__).resolve().parents[1] / "testdata"


def needs(*names: str):
    """The fixtures are committed: a missing one is a failure (make testdata), not a skip."""
    missing = [n for n in names if not (TESTDATA / n).is_file()]
    assert not missing, f"not in tests/testdata: {missing} (regenerate with make testdata)"
    return lambda test: test


@needs("jmh/v1-trial1.json", "jmh/v1-trial1.json.gz")
def test_gzipped_json_reads_like_the_plain_file():
    plain = read_result_file(TESTDATA / "jmh/v1-trial1.json")
    gzipped = read_result_file(TESTDATA / "jmh/v1-trial1.json.gz")
    assert dump_result_file(gzipped) == dump_result_file(plain)


@needs("jmh/v1-sample.json", "jmh/v1-sample.log")
def test_sample_histogram_holds_every_sampled_invocation():
    """JMH 1.37 SampleTime: rawDataHistogram only (no rawData); its counts add up to the log's N."""
    result = read_result_file(TESTDATA / "jmh/v1-sample.json")
    (series,) = [s for s in result.series if s.metric.primary]
    assert series.samples.has_histogram
    n = int(re.search(r"^\s+N = (\d+)$", (TESTDATA / "jmh/v1-sample.log").read_text(), re.M).group(1))
    assert series.samples.count.sum() == n
    assert [s.metric.name for s in result.series] == ["sample_time"], "percentiles p0.00..p1.00 are not kept"


@needs("jmh/v1-fail.json", "jmh/v1-fail.log")
def test_failed_benchmark_is_absent_from_json_and_a_failure_in_the_log():
    from_json = read_result_file(TESTDATA / "jmh/v1-fail.json")
    from_log = read_result_file(TESTDATA / "jmh/v1-fail.log")
    assert {s.case for s in from_json.series} == {s.case for s in from_log.series}
    assert from_json.warnings == () == from_json.failures
    assert len(from_log.failures) == 1 and ": java.lang.IllegalArgumentException" in from_log.failures[0]


@needs("go/bench.txt")
def test_go_count_lines_are_iterations():
    result = read_result_file(TESTDATA / "go/bench.txt")
    assert result.format == "go"
    primary = [s for s in result.series if s.metric.primary]
    assert primary and all(len(s.samples) == 5 for s in primary)
    assert all(s.samples.iteration.tolist() == [0, 1, 2, 3, 4] for s in primary)
    assert all(s.case.harness == "go" and not s.case.name.endswith("-2") for s in result.series)
