"""``analyze`` of a JMH JSON file read as a stream (``api.analyze_files``): the same results as
reading the whole file first, with memory that does not grow with the number of benchmarks."""

from __future__ import annotations

import json
import sys
import tracemalloc
from pathlib import Path

import pytest

from rigorbench import api, files
from rigorbench.analysis.settings import Settings
from rigorbench.formats import stream_result_file

# The large-suite writer lives with the benchmark that times it (benchmarks/bench_large_suite.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from large_suite import write_large_suite  # noqa: E402

SETTINGS = Settings(resamples=200)


def suite(tmp_path, benchmarks: int, forks: int = 6, iterations: int = 300) -> Path:
    return write_large_suite(tmp_path / f"suite-{benchmarks}.json", benchmarks=benchmarks, forks=forks,
                             iterations=iterations)


def whole(path, settings=SETTINGS, jobs=None) -> str:
    return api.render(api.analyze(api.load_results([path]), settings, jobs=jobs), "json")


@pytest.mark.parametrize("jobs", (1, 2))
def test_a_streamed_suite_has_the_results_of_the_whole_file(tmp_path, jobs):
    path = suite(tmp_path, 40, forks=4, iterations=120)
    streamed = api.render(api.analyze_files([path], SETTINGS, jobs=jobs), "json")
    assert streamed == whole(path, jobs=1)
    assert len(json.loads(streamed)["benchmarks"]) == 40


def test_every_metric_and_steady_only_stream_alike(tmp_path):
    path = suite(tmp_path, 5, forks=3, iterations=80)
    settings = Settings(resamples=100, metric="all", steady_only=True)
    assert api.render(api.analyze_files([path], settings), "json") == whole(path, settings)


def test_benchmarks_whose_entries_are_apart_are_read_whole_with_the_same_results(tmp_path):
    from tests.formats.test_jmh_json import document, entry

    alloc = {"·gc.alloc.rate.norm": {"score": 1.0, "scoreUnit": "B/op", "rawData": [[24.0] * 30, [40.0] * 30]}}
    raw = [[10.0 + (i % 7) * 0.1 for i in range(30)], [11.0 + (i % 5) * 0.1 for i in range(30)]]
    text = document(entry(name="a.B.x", raw=raw, secondaryMetrics=alloc), entry(name="a.B.y", raw=raw),
                    entry(name="a.B.x", mode="thrpt", unit="ops/us", raw=raw, secondaryMetrics=alloc))
    path = tmp_path / "apart.json"
    path.write_text(text)
    streamed = api.analyze_files([path], SETTINGS)
    assert api.render(streamed, "json") == whole(path)
    assert [b.alloc.value for b in streamed.benchmarks if b.case.name == "a.B.x"] == [32.0, 32.0]  # both modes' forks


def test_progress_counts_to_the_benchmarks_counted_before_reading(tmp_path):
    path = suite(tmp_path, 18, forks=2, iterations=60)
    calls = []
    api.analyze_files([path], SETTINGS, progress=lambda done, total: calls.append((done, total)), jobs=1)
    assert calls == [(done, 18) for done in range(1, 19)]


def traced_peak(function) -> int:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_benchmarks_streamed(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "CHUNK_BYTES", 1 << 16)     # files several times larger than a chunk
    small, large = suite(tmp_path, 4), suite(tmp_path, 16)
    one = sum(getattr(s.samples, c).nbytes for s in next(stream_result_file(small).groups()).series
              for c in s.samples.columns())                  # one benchmark's values: 6 x 300 rows
    api.analyze_files([small], SETTINGS, jobs=1)            # imports and caches, outside the peaks

    def analyse(path):
        return lambda: api.analyze_files([path], SETTINGS, jobs=1)

    def keep(path):
        return lambda: list(stream_result_file(path).groups())

    # The measure sees values kept: holding every group grows by about 12 benchmarks' values.
    assert traced_peak(keep(large)) - traced_peak(keep(small)) > 10 * one
    # Analysing 12 more benchmarks adds their summaries (about 13 KB each), not their values:
    # less than a quarter of what their values take.
    assert traced_peak(analyse(large)) - traced_peak(analyse(small)) < 12 * one / 4
