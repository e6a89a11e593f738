"""``analyze`` of a whole dataset keeps a summary per series, not copies of the data."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rigorbench import api
from rigorbench.analysis.analyze import CaseInputs, analyze_series
from rigorbench.analysis.settings import Settings
from rigorbench.model import ALLOC

JMH = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
SETTINGS = Settings(resamples=300)


HEADER = "project;commit;benchmark;params;instance;trial;fork;iteration;mode;unit;value_count;value\n"


def long_forks(path: Path) -> Path:
    """pa CSV of 3 forks x 60 iterations, long enough for steady-state detection."""
    rng = np.random.default_rng(4)
    rows = [f"p;c;org.example.B.op;;i;1;{fork};{i + 1};avgt;ns/op;1;{100 * (1 + 2 / (i + 1)) * rng.lognormal(0, 0.02):.6f}\n"
            for fork in (1, 2, 3) for i in range(60)]
    path.write_text(HEADER + "".join(rows))
    return path


@pytest.mark.parametrize("source", ["log", "long"])
def test_results_hold_no_fork_values_and_render_as_one_series_analysis_does(source, tmp_path):
    path = JMH / "v1-trial1.log" if source == "log" else long_forks(tmp_path / "long.csv")
    dataset = api.load_results([path])
    result = api.analyze(dataset, SETTINGS)
    assert result.benchmarks and all(b.steady.forks for b in result.benchmarks)
    assert all(f.values.size == 0 and f.rows.size == 0 for b in result.benchmarks for f in b.steady.forks)
    inputs = CaseInputs.of(dataset)
    fulls = []
    for kept in result.benchmarks:
        events, alloc = inputs.of_case(kept.case)
        full = analyze_series(kept.case, kept.metric, dataset.series[(kept.case, kept.metric)], SETTINGS,
                              events=events, alloc=alloc)
        assert full.steady.forks[0].values.size > 0
        assert [(f.instance, f.trial, f.fork, f.warmup) for f in kept.steady.forks] == \
            [(f.instance, f.trial, f.fork, f.warmup) for f in full.steady.forks]
        assert kept.steady.states == full.steady.states and kept.diagnostics == full.diagnostics
        assert (kept.mean, kept.median, kept.variability) == (full.mean, full.median, full.variability)
        fulls.append(full)
        assert kept.steady.assessed == (source == "long")
    with_values = replace(result, benchmarks=tuple(fulls))
    for fmt in ("json", "text"):
        assert api.render(result, fmt) == api.render(with_values, fmt)


def test_case_inputs_find_each_cases_alloc_and_events():
    dataset = api.load_results([JMH / "v1-trial1.json"])   # -prof gc: alloc and gc.count per case
    inputs = CaseInputs.of(dataset)
    for case in dataset.cases:
        events, alloc = inputs.of_case(case)
        names = {m.name for c, m in dataset.series if c == case}
        assert set(events) == names & {"gc.count", "gc.time", "compiler.time.total", "compiler.time.profiled"}
        assert (alloc is not None) == (ALLOC in names)
        if alloc is not None:
            assert alloc[1] is dataset.series[(case, alloc[0])]
    assert any(inputs.of_case(case)[1] is not None for case in dataset.cases)
