"""Runs given twice (analysis/duplicates.py) and file names that name versions (dataset.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rigorbench.analysis.dataset import load_dataset, version_name
from rigorbench.analysis.duplicates import fingerprint, once_each, refuse_shared
from rigorbench.errors import UserError
from rigorbench.formats import read_result_file
from rigorbench.model import BenchmarkCase, Metric, ResultFile, SampleTable, Series

JMH = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
TIME = Metric("time", "ns/op", False, primary=True)


def _file(path: str, values: list[float], digest: str = "") -> ResultFile:
    table = SampleTable.build(values, iteration=np.arange(len(values)))
    return ResultFile(path, "test", (Series(BenchmarkCase("go", "BenchmarkX"), TIME, table),), digest=digest)


@pytest.mark.parametrize("name, expected", [
    ("v1-trial2.json", "v1"), ("results-3.log", "results"), ("a2.json", "a"), ("old.json", "old"),
    ("run_7.json.gz", ""), ("2026-01-02.json", "2026-01"), ("new.txt", "new"),
])
def test_version_name(name, expected):
    assert version_name(f"some/folder/{name}") == expected


def test_real_trials_of_one_version_are_different_runs():
    one, two = (read_result_file(JMH / f"v1-trial{i}.json") for i in (1, 2))
    kept, _ = once_each([one, two])
    assert kept == [one, two]


def test_sample_mode_json_and_its_log_are_one_run():
    # SampleTime: the JSON holds invocation histograms, the log each iteration's score.
    json_file, log = read_result_file(JMH / "v1-sample.json"), read_result_file(JMH / "v1-sample.log")
    notes = []
    kept, _ = once_each([json_file, log], notes.append)
    assert kept == [json_file] and notes == [f"{log.path} holds the same samples as {json_file.path}; counted once"]


def test_few_values_count_as_one_run_only_when_the_content_is_the_same():
    # Two Go runs of -count 1 may print the same ns/op by chance: too few values to tell.
    a, b = _file("a.txt", [0.25, 0.25], "d1"), _file("b.txt", [0.25, 0.25], "d2")
    assert once_each([a, b])[0] == [a, b]
    assert once_each([a, replace(b, digest="d1")])[0] == [a]


def test_values_a_little_apart_are_different_runs():
    a, b = _file("a.txt", [100.0, 101.0, 102.0]), _file("b.txt", [100.0, 101.0, 102.01])
    assert once_each([a, b])[0] == [a, b]
    c = _file("c.txt", [100.0, 101.0004, 102.0])
    assert once_each([a, c])[0] == [a]


def test_a_run_on_both_sides_is_refused():
    v1 = fingerprint(read_result_file(JMH / "v1-trial1.json"))
    v2 = fingerprint(read_result_file(JMH / "v2-trial1.json"))
    refuse_shared([v1], [v2])
    with pytest.raises(UserError, match="is given as both baseline and contender"):
        refuse_shared([v1], [v1])


def test_api_load_results_tells_the_note():
    notes = []
    data = load_dataset([JMH / "v1-trial1.json", JMH / "v1-trial1.json"], note=notes.append)
    assert notes == [f"{JMH / 'v1-trial1.json'} is given 2 times; counted once"] and len(data.sources) == 1
