"""The iteration plots are scaled to the measurement phase; warmup beyond it is clipped and said so."""

from __future__ import annotations

import re

import numpy as np

from rigorbench.analysis.dataset import load_dataset
from rigorbench.analysis.report import ForkTrace, build_page, environment_rows, iteration_range
from rigorbench.analysis.settings import Settings
from rigorbench.report.plots import iteration_series

from .conftest import JMH


def _fork(values, warmup):
    empty = np.array([], dtype=int)
    return ForkTrace(0, 0, 0, warmup, np.array(values, dtype=float), None, empty, empty)


class _View:
    """Only what iteration_range reads: a version's forks."""

    def __init__(self, *forks):
        self.forks = forks


def test_range_is_the_measurement_phase_padded_and_counts_clipped_warmup():
    spiky = _View(_fork([900.0, 300.0, 101.0, 100.0, 102.0, 99.0], warmup=3), _fork([50.0, 100.0, 101.0], warmup=1))
    calm = _View(_fork([101.0, 100.0, 103.0], warmup=1))
    axis = iteration_range([spiky, calm])
    spread = 103.0 - 99.0
    assert np.isclose(axis.low, 99.0 - 0.08 * spread) and np.isclose(axis.high, 103.0 + 0.08 * spread)
    assert axis.clipped == (3, 0)       # 900 and 300 above, 50 below; 101 is inside


def test_range_of_nonnegative_scores_stops_at_zero_and_of_a_flat_series_is_not_empty():
    assert iteration_range([_View(_fork([5.0, 0.0, 40.0], warmup=0))]).low == 0.0
    flat = iteration_range([_View(_fork([7.0, 7.0], warmup=0))])
    assert flat.low < 7.0 < flat.high
    assert iteration_range([_View(_fork([1.0, np.nan], warmup=1))]) is None


def test_the_example_report_plots_are_scaled_to_measurement_with_clipped_warmup_marked():
    # Console logs keep the warmup iterations, whose first values are far above the steady state.
    base = load_dataset([JMH / "v1-trial1.log"], "v1")
    head = load_dataset([JMH / "v2-trial1.log"], "v2")
    page = build_page([base, head], Settings(resamples=200))
    clipped_cases = [case for case in page.cases if case.iteration_range and sum(case.iteration_range.clipped)]
    assert clipped_cases, "the example's warmup should reach beyond its measurement phase"
    case = clipped_cases[0]
    for view in case.versions:
        measured = np.concatenate([f.values[f.warmup:] for f in view.forks])
        assert case.iteration_range.low <= measured.min() and measured.max() <= case.iteration_range.high
    svg = iteration_series(case, "t")
    noted = re.findall(r"(\d+) warmup iteration\(s\) beyond the scale, clipped at the axis", svg)
    assert [int(n) for n in noted] == [n for n in case.iteration_range.clipped if n]


def test_environment_rows_put_differences_first():
    rows = environment_rows({"a": ({"os": "x", "cpu": "c", "load": "1"}, {"os": "x", "cpu": "c", "load": "2"}),
                             "b": ({"os": "y", "cpu": "c", "load": "1"},)})
    assert [(r.fact, r.differs) for r in rows] == [("load", True), ("os", True), ("cpu", False)]
    assert rows[0].values == ("1, 2", "1")
