"""read_result_file: detection from content, gzip, bad files, the registry."""

from __future__ import annotations

import gzip
import os

import pytest

from rigorbench.errors import InputError, UserError
from rigorbench.formats import READERS, Reader, read_result_file, reader_names

JMH_JSON = '[\n  {"jmhVersion": "1.37", "benchmark": "a.B.c", "mode": "avgt",\n   "primaryMetric": {"scoreUnit": "ns/op", "rawData": [[1.0, 2.0]]}}\n]\n'
JMH_LOG = "# JMH version: 1.37\n# Benchmark mode: Average time, time/op\n# Benchmark: a.B.c\n\n# Fork: 1 of 1\nIteration   1: 1.000 ns/op\n"
GO = "goos: linux\nBenchmarkX-8   100   5 ns/op\nPASS\n"
GBENCH = '{\n  "context": {"num_cpus": 2},\n  "benchmarks": [{"name": "BM_X", "run_type": "iteration", "real_time": 5.0, "time_unit": "ns"}]\n}\n'
PYPERF = '{"benchmarks": [{"metadata": {"name": "x"}, "runs": [{"values": [1e-06, 2e-06]}]}], "metadata": {"unit": "second"}, "version": "1.0"}\n'
PA = "project;commit;benchmark;params;instance;trial;fork;iteration;mode;unit;value_count;value\np;c;a.B.c;;i;1;1;1;avgt;ns/op;1;1.0\n"

UNKNOWN = (
    "unknown format; rigorbench reads: jmh-json (JMH -rf json), jmh-text (JMH console log), "
    "go (go test -bench output), gbench (Google Benchmark --benchmark_format=json), pyperf (pyperf --output JSON), pa-csv (pa CSV)"
)


def test_registry_order_names_and_protocol():
    assert list(READERS) == ["jmh-json", "jmh-text", "go", "gbench", "pyperf", "pa-csv"]
    for name, reader in READERS.items():
        assert isinstance(reader, Reader)
        assert reader.name == name and reader.description
    assert reader_names() == UNKNOWN.split(": ", 1)[1]


@pytest.mark.parametrize(
    "text, format",
    [(JMH_JSON, "jmh-json"), (JMH_LOG, "jmh-text"), (GO, "go"), (GBENCH, "gbench"), (PYPERF, "pyperf"), (PA, "pa-csv")],
)
def test_format_is_detected_from_content_not_name(write, text, format):
    result = read_result_file(write(text, name="misleading.csv.json.txt"))
    assert result.format == format
    assert result.path.endswith("misleading.csv.json.txt")


@pytest.mark.parametrize("text", [JMH_JSON, JMH_LOG, GO, GBENCH, PYPERF, PA])
def test_each_sniffer_claims_only_its_own_format(text):
    claims = [name for name, reader in READERS.items() if reader.sniff(text)]
    assert len(claims) == 1, claims


def test_gzip_is_read_transparently_whatever_the_name(write):
    result = read_result_file(write(gzip.compress(JMH_LOG.encode()), name="plain.log"))
    assert result.format == "jmh-text" and result.series[0].samples.value.tolist() == [1.0]


def test_corrupt_gzip(write):
    data = gzip.compress(JMH_LOG.encode())[:20]
    with pytest.raises(InputError, match="corrupt gzip data"):
        read_result_file(write(data))


def test_utf8_bom_is_ignored(write):
    assert read_result_file(write("\ufeff" + JMH_JSON)).format == "jmh-json"


@pytest.mark.parametrize("content", ["", b"", "   \n\n", gzip.compress(b"", mtime=0)],
                         ids=["empty text", "empty bytes", "blank lines", "empty gzip"])
def test_empty_file(write, content):
    path = write(content)
    with pytest.raises(InputError) as info:
        read_result_file(path)
    assert str(info.value) == f"{path}: empty file"


@pytest.mark.parametrize(
    "data, detail",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "it contains NUL bytes"),
        (b"Iteration   1: \xff\xfe 1.0 ns/op\n", "not UTF-8 text at byte 15"),
    ],
)
def test_binary_content(write, data, detail):
    path = write(data)
    with pytest.raises(InputError) as info:
        read_result_file(path)
    assert info.value.line is None
    assert str(info.value) == f"{path}: binary file, not a benchmark result ({detail})"


def test_unknown_format_lists_the_registry(write):
    path = write("hello\nworld\n")
    with pytest.raises(InputError) as info:
        read_result_file(path)
    assert str(info.value) == f"{path}:1: {UNKNOWN}"


def test_missing_file(tmp_path):
    path = tmp_path / "nope.json"
    with pytest.raises(InputError) as info:
        read_result_file(path)
    assert str(info.value) == f"{path}: no such file"


def test_directory(tmp_path):
    with pytest.raises(InputError) as info:
        read_result_file(tmp_path)
    assert str(info.value) == f"{tmp_path}: is a directory, not a result file"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads everything")
def test_unreadable_file(write):
    path = write(JMH_LOG)
    os.chmod(path, 0)
    with pytest.raises(InputError, match="permission denied"):
        read_result_file(path)


def test_format_forces_a_reader(write):
    path = write(JMH_LOG)
    with pytest.raises(InputError, match="not a JMH JSON result"):
        read_result_file(path, format="jmh-json")
    assert read_result_file(path, format="jmh-text").format == "jmh-text"


def test_unknown_format_name_lists_the_valid_ones(write):
    with pytest.raises(UserError) as info:
        read_result_file(write(JMH_LOG), format="csv")
    assert not isinstance(info.value, InputError)
    assert str(info.value) == "unknown format 'csv'; valid formats: jmh-json, jmh-text, go, gbench, pyperf, pa-csv"


def test_pathlike_and_str_give_the_same_path(write):
    path = write(GO)
    from pathlib import Path

    assert read_result_file(Path(path)).path == read_result_file(path).path == path
