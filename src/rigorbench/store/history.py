"""History points in and out of the store (schema 2; see :mod:`rigorbench.store.schema`).

A point refers to its benchmark case and metric (the tables runs share) and to its kind of
machine; its summary is stored with it, so reading a history never resamples anything.
Everything here runs inside the caller's transaction; untrusted text (benchmark names,
branches, commits, sources) goes in as SQL parameters only.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from typing import Sequence

from rigorbench.errors import UserError
from rigorbench.store import damage, samples
from rigorbench.store.api import HistoryPoint
from rigorbench.store.backend import backend_of, inserted_id

_INSERT = (
    "INSERT INTO history_points (case_id, metric_id, branch, machine_id, git_commit, dirty, time, run_id, label, "
    "source, n, mean, ci_low, ci_high, confidence, added) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

_SELECT = """
    SELECT p.id, p.case_id, p.metric_id, p.branch, m.kind, m.facts, p.git_commit, p.dirty, p.time, p.run_id,
           p.label, p.source, p.n, p.mean, p.ci_low, p.ci_high, p.confidence, p.added
    FROM history_points AS p JOIN machines AS m ON p.machine_id = m.id
    ORDER BY p.case_id, p.metric_id, p.branch, m.kind, p.time, p.id"""


def machine_id(conn: sqlite3.Connection, kind: str, facts: dict) -> int:
    """The id of machine kind ``kind`` (get or create)."""
    row = conn.execute("SELECT id FROM machines WHERE kind = ?", (kind,)).fetchone()
    if row:
        return row[0]
    text = json.dumps({str(k): str(v) for k, v in facts.items()}, sort_keys=True, ensure_ascii=False)
    return inserted_id(conn, "INSERT INTO machines (kind, facts) VALUES (?, ?)", (kind, text))


_STORED = """
    SELECT 1 FROM history_points AS p JOIN metrics AS m ON p.metric_id = m.id
    WHERE p.case_id = ? AND m.name = ? AND m.unit = ? AND p.branch = ? AND p.machine_id = ? AND p.git_commit = ?
      AND p.time = ? LIMIT 1
"""


def insert_points(conn: sqlite3.Connection, points: Sequence[HistoryPoint], path: str, *, skip_stored: bool = False) -> int:
    """Insert every point and return how many were inserted; a point already stored (same
    series, commit, time and source) is refused with UserError naming it, and the caller's
    transaction is rolled back. With ``skip_stored``, a point whose series (case, metric,
    branch, machine) has one at its commit and time already, from any source, is left out
    (a history imported twice, from two folders, is the same history)."""
    added = datetime.now(timezone.utc).isoformat(timespec="seconds")
    cases, metrics, machines = {}, {}, {}
    inserted = 0
    for point in points:
        if point.case not in cases:
            cases[point.case] = samples.case_row_id(conn, point.case)
        if point.metric not in metrics:
            metrics[point.metric] = samples.metric_row_id(conn, point.metric)
        if point.machine not in machines:
            machines[point.machine] = machine_id(conn, point.machine, dict(point.machine_facts))
        if skip_stored and conn.execute(_STORED, (
            cases[point.case], point.metric.name, point.metric.unit, point.branch, machines[point.machine], point.commit,
            point.time,
        )).fetchone():
            continue
        try:
            conn.execute(_INSERT, (
                cases[point.case], metrics[point.metric], point.branch, machines[point.machine], point.commit,
                None if point.dirty is None else int(point.dirty), point.time, point.run_id, point.label,
                point.source, int(point.n), float(point.mean), point.ci_low, point.ci_high, point.confidence,
                point.added or added,
            ))
        except backend_of(conn).errors as error:
            if not backend_of(conn).is_unique_violation(error):
                raise
            raise UserError(
                f"{path}: {point.case.display_name} {point.metric.name} at commit {point.commit} "
                f"from {point.source} is already in the history; nothing was added"
            ) from None
        inserted += 1
    return inserted


def points_of_run(conn: sqlite3.Connection, run_id: int, label: str) -> int:
    """How many stored points came from version ``label`` of run ``run_id``."""
    return conn.execute("SELECT COUNT(*) FROM history_points WHERE run_id = ? AND label = ?", (run_id, label)).fetchone()[0]


def select_points(conn: sqlite3.Connection) -> list[HistoryPoint]:
    """Every stored point, grouped by series (case, metric, branch, machine), oldest first."""
    rows = conn.execute(_SELECT).fetchall()
    cases, metrics = {}, {}
    points = []
    for (point_id, case_id, metric_id, branch, kind, facts, commit, dirty, time, run_id, label, source, n, mean,
         low, high, confidence, added) in rows:
        where = f"history point {point_id}"
        damage.check_numbers(where, n_count=n, mean=mean)
        if case_id not in cases:
            cases[case_id] = samples.case_of(conn, case_id)
        if metric_id not in metrics:
            metrics[metric_id] = samples.metric_of(conn, metric_id)
        points.append(HistoryPoint(
            case=cases[case_id], metric=metrics[metric_id], branch=branch, machine=kind, commit=commit,
            time=time, source=source, n=n, mean=mean, ci_low=low, ci_high=high, confidence=confidence,
            dirty=None if dirty is None else bool(dirty), run_id=run_id, label=label,
            machine_facts=damage.parse_json(facts, dict, f"machine {kind!r}: its facts"), added=added,
        ))
    return points
