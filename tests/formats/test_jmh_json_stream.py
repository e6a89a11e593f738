"""JMH JSON read as a stream (``stream_result_file``): the same series, warnings and errors as
reading the file whole, whatever the size of the chunks the text arrives in."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from rigorbench import files
from rigorbench.errors import InputError
from rigorbench.formats import count_benchmarks, read_result_file, stream_result_file
from rigorbench.formats.jmh_json import InterleavedBenchmarks

from tests.formats.test_jmh_json import document, entry

TESTDATA = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
# Chunk sizes that cut the text everywhere: inside numbers, strings, escapes and literals.
CHUNKS = (1, 7, 64, 4096)


def streamed(path, chunk_bytes=None, monkeypatch=None):
    """(series, summary) of a streamed file, with chunks of ``chunk_bytes`` bytes."""
    if chunk_bytes is not None:
        monkeypatch.setattr(files, "CHUNK_BYTES", chunk_bytes)
    stream = stream_result_file(path)
    assert stream is not None
    series = [s for group in stream.groups() for s in group.series]
    return series, stream.summary()


def same_series(a, b) -> None:
    assert [(s.case, s.metric, s.version) for s in a] == [(s.case, s.metric, s.version) for s in b]
    for x, y in zip(a, b):
        for column in x.samples.columns():
            np.testing.assert_array_equal(getattr(x.samples, column), getattr(y.samples, column))


def error_of(read) -> tuple:
    with pytest.raises(InputError) as info:
        read()
    return info.value.line, info.value.message


@pytest.mark.parametrize("name", sorted(p.name for p in TESTDATA.glob("*.json*")))
@pytest.mark.parametrize("chunk", (7, 4096))
def test_real_files_stream_to_what_reading_them_whole_gives(name, chunk, monkeypatch):
    whole = read_result_file(TESTDATA / name)
    series, summary = streamed(TESTDATA / name, chunk, monkeypatch)
    same_series(series, whole.series)
    assert (summary.environment, summary.warnings, summary.digest) == (whole.environment, whole.warnings, whole.digest)
    assert count_benchmarks(TESTDATA / name) == len(json.loads(gzip.open(TESTDATA / name).read() if name.endswith(".gz")
                                                               else (TESTDATA / name).read_bytes()))


def test_each_benchmark_is_handed_on_with_all_its_entries(write):
    text = document(entry(name="a.B.x", mode="avgt", raw=[[1.0, 2.0]]), entry(name="a.B.x", mode="thrpt", unit="ops/s", raw=[[3.0]]),
                    entry(name="a.B.y", raw=[[4.0]]))
    groups = list(stream_result_file(write(text)).groups())
    assert [group.entries for group in groups] == [2, 1]
    assert [[s.metric.name for s in group.series] for group in groups] == [["time", "throughput"], ["time"]]


def test_a_benchmark_seen_again_after_others_is_refused_for_reading_whole(write):
    text = document(entry(name="a.B.x", raw=[[1.0]]), entry(name="a.B.y", raw=[[2.0]]),
                    entry(name="a.B.x", mode="thrpt", unit="ops/s", raw=[[3.0]]))
    with pytest.raises(InterleavedBenchmarks):
        list(stream_result_file(write(text)).groups())
    assert len(read_result_file(write(text, "again")).series) == 3


@pytest.mark.parametrize("chunk", CHUNKS)
def test_escapes_literals_and_numbers_cut_by_a_chunk_decode_alike(write, monkeypatch, chunk):
    raw = [[1e-300, 123456.789, 2.5e10], ["NaN", 0.0, 1.0]]
    text = document(entry(name="a.B.\\u00e9t\u00e9", raw=raw, params={"p": "x\"\\n\u2603"}),
                    entry(name="a.B.y", raw=[[7.0, 8.0]], secondaryMetrics={"·gc.alloc.rate.norm": {
                        "score": 1.0, "scoreUnit": "B/op", "rawData": [[16.0, 16.0]]}}))
    path = write(text)
    series, summary = streamed(path, chunk, monkeypatch)
    whole = read_result_file(path)
    same_series(series, whole.series)
    assert summary.warnings == whole.warnings and summary.warnings   # the NaN skipped, counted


@pytest.mark.parametrize("chunk", CHUNKS)
def test_a_truncated_stream_names_its_last_line_and_the_benchmark(write, monkeypatch, chunk):
    text = document(*(entry(name=f"a.B.m{i}", raw=[[1.0 + i, 2.0]]) for i in range(30)))
    cut = text[: text.index("a.B.m17") + 120]
    path = write(cut)
    expected = error_of(lambda: read_result_file(path))
    monkeypatch.setattr(files, "CHUNK_BYTES", chunk)
    got = error_of(lambda: list(stream_result_file(path).groups()))
    assert got == expected
    start = text[: text.index("a.B.m17")].rfind("{")
    assert got == (cut.count("\n") + 1,
                   f"truncated JSON: the file ends inside the benchmark that starts at line {text.count(chr(10), 0, start) + 1}")


@pytest.mark.parametrize("chunk", CHUNKS)
@pytest.mark.parametrize("damage", [
    ('"mode": "avgt",', '"mode": "avgt",,'),          # a syntax error inside a benchmark
    ('"a.B.m12"', '"a.B.m12\x01"'),                       # a control character in a string
    ('}, {', '} {'),                                      # no comma between benchmarks
    ('"scoreError": 0.1', '"scoreError": 0.1.0'),           # a bad number
])
def test_malformed_json_part_way_names_its_line_and_column_as_reading_whole(write, monkeypatch, chunk, damage):
    text = json.dumps([entry(name=f"a.B.m{i}", raw=[[1.0 + i, 2.0]]) for i in range(30)], indent=1)
    text = text.replace("},\n {", "}, {")
    old, new = damage
    at = text.index(old, text.index("a.B.m12") - 400)
    path = write(text[:at] + new + text[at + len(old):])
    expected = error_of(lambda: read_result_file(path))
    monkeypatch.setattr(files, "CHUNK_BYTES", chunk)
    assert error_of(lambda: list(stream_result_file(path).groups())) == expected
    assert expected[0] > 100                               # part way through, not at the start


def test_text_after_the_list_and_an_empty_list_are_errors_as_when_read_whole(write, monkeypatch):
    monkeypatch.setattr(files, "CHUNK_BYTES", 3)
    for text in (document(entry(raw=[[1.0]])) + "\n\n  x", "[\n]\n", "  {}"):
        path = write(text)
        expected = error_of(lambda: read_result_file(path))

        def stream():
            s = stream_result_file(path)
            list(s.groups())
            s.summary()
        assert error_of(stream) == expected


def test_gzip_and_non_utf8_and_other_formats(write, monkeypatch):
    text = document(entry(raw=[[1.0, 2.0]]))
    path = write(gzip.compress(text.encode()), "r.json.gz")
    series, summary = streamed(path, 5, monkeypatch)
    same_series(series, read_result_file(path).series)
    assert summary.digest == read_result_file(path).digest
    bad = write(text.encode()[:40] + b"\xff" + text.encode()[40:], "bad.json")
    assert error_of(lambda: list(stream_result_file(bad).groups())) == error_of(lambda: read_result_file(bad))
    assert stream_result_file(write("goos: linux\nBenchmarkX-8   100   5 ns/op\n", "go.txt")) is None
