"""Sample rows in and out of the store: one SQL row per measured value.

Benchmark cases and metrics are normalised into their own tables (get-or-create); a sample
row refers to them by id. Rows go in with one ``executemany`` over numpy ``.tolist()``
columns and come out with one query, grouped back into :class:`Series` with numpy, so that
100 000 rows take a fraction of a second each way.
"""

from __future__ import annotations

import json
import sqlite3
from itertools import repeat
from typing import Sequence

import numpy as np

from rigorbench.model import BenchmarkCase, Metric, SampleTable, Series
from rigorbench.store.backend import backend_of, inserted_id
from rigorbench.store.damage import DamagedRow, parse_json

_COLUMNS = ("execution_id", "case_id", "metric_id", "instance", "fork", "iteration", "warmup", "value", "count")

# Every sample of one version of one run, in execution order, then in recorded order.
_SELECT = """
    SELECT s.case_id, s.metric_id, e.trial, s.instance, s.fork, s.iteration, s.warmup, s.value, s.count
    FROM samples AS s JOIN executions AS e ON s.execution_id = e.id
    WHERE e.run_id = ? AND e.label = ?
    ORDER BY e.position, s.rowid"""


def params_json(case: BenchmarkCase) -> str:
    """The stored form of a case's parameters: JSON of its ordered (name, value) pairs."""
    return json.dumps([list(pair) for pair in case.params], ensure_ascii=False, separators=(",", ":"))


def insert_series(conn: sqlite3.Connection, execution_id: int, series: Sequence[Series]) -> int:
    """Insert every row of ``series`` for one execution; returns the number of rows."""
    cases: dict[BenchmarkCase, int] = {}
    metrics: dict[Metric, int] = {}
    total = 0
    for one in series:
        table = one.samples
        if not len(table):
            continue
        if one.case not in cases:
            cases[one.case] = case_row_id(conn, one.case)
        if one.metric not in metrics:
            metrics[one.metric] = metric_row_id(conn, one.metric)
        case_id, metric_id = cases[one.case], metrics[one.metric]
        backend_of(conn).insert_rows(conn, "samples", _COLUMNS, _rows(execution_id, case_id, metric_id, table))
        total += len(table)
    return total


def _rows(execution_id: int, case_id: int, metric_id: int, table: SampleTable):
    """SQL parameter tuples of a table (NaN values become NULL)."""
    value = table.value.tolist()
    if np.isnan(table.value).any():
        value = [None if v != v else v for v in value]
    return zip(repeat(execution_id), repeat(case_id), repeat(metric_id), table.instance.tolist(),
               table.fork.tolist(), table.iteration.tolist(), table.warmup.astype(np.int64).tolist(), value,
               table.count.tolist())


def case_row_id(conn: sqlite3.Connection, case: BenchmarkCase) -> int:
    key = (case.harness, case.name, params_json(case))
    row = conn.execute("SELECT id FROM cases WHERE harness = ? AND name = ? AND params = ?", key).fetchone()
    if row:
        return row[0]
    return inserted_id(conn, "INSERT INTO cases (harness, name, params) VALUES (?, ?, ?)", key)


def metric_row_id(conn: sqlite3.Connection, metric: Metric) -> int:
    key = (metric.name, metric.unit, int(metric.higher_is_better), int(metric.primary))
    row = conn.execute(
        "SELECT id FROM metrics WHERE name = ? AND unit = ? AND higher_is_better = ? AND is_primary = ?", key
    ).fetchone()
    if row:
        return row[0]
    return inserted_id(conn, "INSERT INTO metrics (name, unit, higher_is_better, is_primary) VALUES (?, ?, ?, ?)", key)


def load_series(conn: sqlite3.Connection, run_id: int, label: str) -> list[Series]:
    """Every (case, metric) of one version of a run over all its executions.

    The table's ``trial`` is the execution's trial; series come in order of first
    appearance, rows in execution order and then in the order they were recorded.
    """
    rows = conn.execute(_SELECT, (run_id, label)).fetchall()
    if not rows:
        return []
    try:
        return _grouped(conn, rows)
    except (TypeError, ValueError) as error:
        raise DamagedRow(f"run {run_id}: a sample of version {label!r} cannot be read: {error}") from None


def _grouped(conn: sqlite3.Connection, rows: list[tuple]) -> list[Series]:
    """The rows of :data:`_SELECT` as one Series per (case, metric), in order of first appearance."""
    columns = list(zip(*rows))
    case_ids = np.array(columns[0], dtype=np.int64)
    metric_ids = np.array(columns[1], dtype=np.int64)
    table = SampleTable(
        trial=columns[2],
        instance=columns[3],
        fork=columns[4],
        iteration=columns[5],
        warmup=np.array(columns[6], dtype=bool),
        value=np.array(columns[7], dtype=np.float64),  # NULL -> NaN
        count=columns[8],
    )
    keys = case_ids * (int(metric_ids.max()) + 1) + metric_ids
    _, inverse = np.unique(keys, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    bounds = np.cumsum(np.bincount(inverse))
    groups = np.split(order, bounds[:-1])
    result = []
    for group in sorted(groups, key=lambda g: g[0]):  # g[0] is the group's first row
        case = case_of(conn, int(case_ids[group[0]]))
        metric = metric_of(conn, int(metric_ids[group[0]]))
        result.append(Series(case=case, metric=metric, samples=table.select(group)))
    return result


def case_of(conn: sqlite3.Connection, case_id: int) -> BenchmarkCase:
    harness, name, params = conn.execute("SELECT harness, name, params FROM cases WHERE id = ?", (case_id,)).fetchone()
    pairs = parse_json(params, list, f"benchmark case {case_id}: its params")
    return BenchmarkCase(harness, name, tuple((str(k), str(v)) for k, v in pairs))


def metric_of(conn: sqlite3.Connection, metric_id: int) -> Metric:
    name, unit, higher, primary = conn.execute(
        "SELECT name, unit, higher_is_better, is_primary FROM metrics WHERE id = ?", (metric_id,)
    ).fetchone()
    return Metric(name, unit, higher_is_better=bool(higher), primary=bool(primary))
