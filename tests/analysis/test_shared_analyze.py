"""``analyze`` on the Traini et al. data (``shared/data/steady-state-dev``): the steady-state
verdict of the whole analysis agrees with the study, and forks that never settle are named
in a diagnostic. Three benchmarks of each class, the first by name, keep the test short."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from rigorbench.analysis.analyze import analyze_series
from rigorbench.analysis.settings import Settings
from rigorbench.model import BenchmarkCase, Metric, SampleTable

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "steady-state-dev"
pytestmark = [
    pytest.mark.shared_data,
    pytest.mark.skipif(not DATA.is_dir(), reason="shared/data/steady-state-dev is not beside the checkout"),
]


def _cases() -> list[tuple[str, str]]:
    if not DATA.is_dir():
        return []
    labelled = []
    for path in sorted((DATA / "classification").glob("*.json")):
        labelled.append((path.name[: -len(".json")], json.loads(path.read_text())["run"]))
    steady = [c for c in labelled if c[1] == "steady state"][:3]
    inconsistent = [c for c in labelled if c[1] != "steady state"][:3]
    return steady + inconsistent


def test_analyze_agrees_with_the_study_on_steady_state():
    agree = 0
    for name, study in _cases():
        with gzip.open(DATA / "timeseries" / f"{name}.json.gz", "rt") as handle:
            forks = [np.asarray(f, dtype=float) for f in json.load(handle)]
        table = SampleTable.build(
            np.concatenate(forks), fork=np.repeat(np.arange(len(forks)), [len(f) for f in forks]),
            iteration=np.concatenate([np.arange(len(f)) for f in forks]),
        )
        a = analyze_series(BenchmarkCase("jmh", name.split("#")[1]), Metric("time", "s/op", False, True), table, Settings(resamples=1000))
        codes = [d.code for d in a.diagnostics]
        print(f"{name.split('#')[1]}: study {study}, ours {a.steady.verdict}: {codes}")
        ours = "steady state" if a.steady.verdict == "steady" else "inconsistent"
        agree += ours == study
        if a.steady.verdict != "steady":
            assert {"inconsistent_steady_state", "not_steady"} & set(codes)
        assert a.n + a.removed_outliers == 30_000 and a.forks == 10
    assert agree >= 5, f"only {agree} of 6 verdicts agree with the study"
