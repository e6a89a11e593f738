"""The measured time per operation of stored benchmarks, for grading lint findings.

Each case's time is the mean of its measurement iterations (warmup left out, invocation
histograms collapsed to their iteration means, Laaber et al.'s conservative 10x-the-median
rule applied: :func:`rigorbench.analysis.dataset.iteration_observations`) of its primary
metric, as time per operation (a throughput is turned into its inverse). No bootstrap: the
grading bounds (:mod:`rigorbench.lint.grading`) are an order of magnitude apart or sit at one
clock cycle, far outside the few percent a mean's interval spans, and a mean reads in
milliseconds for the few cases a lint result names.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from rigorbench.analysis.dataset import iteration_observations
from rigorbench.analysis.diagnostics import clock_cycle_ns
from rigorbench.lint.grading import CaseTime, Measurements
from rigorbench.model import short_name
from rigorbench.units import nanoseconds_per_op


def stored_times(store, run_id: int, label: str, names: Collection[str] | None = None) -> Measurements:
    """Version ``label`` of stored run ``run_id``: the mean time per operation of each case
    whose ``Class.method`` (or Go name) is in ``names`` (all cases when None)."""
    cases = []
    for series in store.load_series(run_id, label):
        name = series.case.name
        if not series.metric.primary or (names is not None and short_name(name.split("/", 1)[0]) not in names
                                         and name.split("/", 1)[0] not in names):
            continue
        values = iteration_observations(series.samples).values
        ns = nanoseconds_per_op(float(np.mean(values)), series.metric.unit) if len(values) else None
        if ns is not None:
            cases.append(CaseTime(name, series.case.params, ns))
    cycle = clock_cycle_ns(store.environments(run_id, label))
    return Measurements(tuple(cases), f"run {run_id} (version {label})", cycle)
