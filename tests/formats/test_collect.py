"""The collector keeps arrival order whether values come one by one or a fork at a time."""

from __future__ import annotations

import json

import numpy as np

from rigorbench.formats.collect import SeriesCollector
from rigorbench.formats.jmh_json import JmhJsonReader
from rigorbench.model import BenchmarkCase, Metric


def test_rows_and_fork_blocks_interleave_in_arrival_order():
    case, metric = BenchmarkCase("jmh", "a.B.c"), Metric("time", "ns/op", False, primary=True)
    collector = SeriesCollector()
    collector.add(case, metric, 5.0, fork=0, iteration=0, warmup=True)
    collector.add_fork(case, metric, [1.0, 2.0, 3.0], fork=0)
    collector.add(case, metric, float("nan"), fork=1, iteration=0)
    collector.add(case, metric, 4.0, fork=1, iteration=1, count=2.0)
    collector.add_fork(case, metric, [], fork=2)
    collector.add_fork(case, metric, [6.0], fork=3, trial=1, instance=2)
    (series,) = collector.series()
    table = series.samples
    assert table.value.tolist() == [5.0, 1.0, 2.0, 3.0, 4.0, 6.0]
    assert table.fork.tolist() == [0, 0, 0, 0, 1, 3]
    assert table.iteration.tolist() == [0, 0, 1, 2, 1, 0]
    assert table.warmup.tolist() == [True, False, False, False, False, False]
    assert table.count.tolist() == [1, 1, 1, 1, 2, 1]
    assert (table.trial.tolist(), table.instance.tolist()) == ([0] * 5 + [1], [0] * 5 + [2])
    (warning,) = collector.warnings()
    assert warning.startswith("1 non-finite value skipped in ")


def test_jmh_json_reads_the_same_values_by_fork_and_one_by_one():
    """A fork of plain floats goes in as one block; a fork with an integer score goes value by
    value; both give the same table as the file's numbers."""
    entry = {"benchmark": "a.B.c", "mode": "avgt", "forks": 2,
             "primaryMetric": {"score": 1, "scoreUnit": "ns/op", "rawData": [[1.5, 2.5, 0.0], [3, 4.5]]}}
    result = JmhJsonReader().parse(json.dumps([entry]), "r.json")
    (series,) = [s for s in result.series if s.metric.primary]
    np.testing.assert_array_equal(series.samples.value, [1.5, 2.5, 0.0, 3.0, 4.5])
    np.testing.assert_array_equal(series.samples.fork, [0, 0, 0, 1, 1])
    np.testing.assert_array_equal(series.samples.iteration, [0, 1, 2, 0, 1])


def test_bare_nan_and_infinity_literals_are_skipped_and_counted_not_stored():
    """Python's JSON decoder reads bare NaN and Infinity as floats: the fork-at-a-time path must
    not store them (they are counted as non-finite, as value by value)."""
    text = ('[{"benchmark": "a.B.c", "mode": "avgt", "forks": 2, "primaryMetric": {"score": 1, '
            '"scoreUnit": "ns/op", "rawData": [[1.5, NaN, 2.5], [Infinity, 3.0]]}}]')
    result = JmhJsonReader().parse(text, "r.json")
    (series,) = [s for s in result.series if s.metric.primary]
    np.testing.assert_array_equal(series.samples.value, [1.5, 2.5, 3.0])
    np.testing.assert_array_equal(series.samples.iteration, [0, 2, 1])
    assert any("2 non-finite values skipped" in w for w in result.warnings)
