"""``store check`` and ``store recover``: how sound a results store is, and saving what can be read.

The check is SQLite's own (``PRAGMA quick_check``; ``integrity_check`` with ``full``) plus
rigorbench's: the schema version, the tables, that every run's and execution's JSON columns
parse, that every sample refers to an execution, case and metric that exist, and that values
are numbers. Recovery copies every run that reads completely (its versions, schedule,
executions with environment and output, and samples) into a new store, with its run id, and
says why each other run was lost: a run is copied whole or not at all.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass

from rigorbench.errors import UserError
from rigorbench.store import damage, location, opening, schema
from rigorbench.store.backend import backend_of
from rigorbench.store.api import ExecutionRecord, RunInfo, TrialRecord
from rigorbench.store.results import BUSY_TIMEOUT_S, ResultStore


# (what is wrong, SQL counting it); each names the runs it concerns where it can.
_ROW_CHECKS = (
    ("samples of no stored execution", "SELECT NULL, COUNT(*) FROM samples WHERE execution_id NOT IN (SELECT id FROM executions)"),
    ("samples of no benchmark case", "SELECT NULL, COUNT(*) FROM samples WHERE case_id NOT IN (SELECT id FROM cases)"),
    ("samples of no metric", "SELECT NULL, COUNT(*) FROM samples WHERE metric_id NOT IN (SELECT id FROM metrics)"),
    ("executions of no run", "SELECT NULL, COUNT(*) FROM executions WHERE run_id NOT IN (SELECT id FROM runs)"),
    (
        "samples whose value, count or level is not a number",
        "SELECT e.run_id, COUNT(*) FROM samples AS s JOIN executions AS e ON s.execution_id = e.id "
        "WHERE typeof(s.value) NOT IN ('real', 'integer', 'null') OR typeof(s.count) NOT IN ('real', 'integer') "
        "OR typeof(s.fork) != 'integer' OR typeof(s.iteration) != 'integer' OR typeof(s.instance) != 'integer' "
        "GROUP BY e.run_id",
    ),
)
# Schema 2: the history points.
_HISTORY_CHECKS = (
    ("history points of no benchmark case", "SELECT NULL, COUNT(*) FROM history_points WHERE case_id NOT IN (SELECT id FROM cases)"),
    ("history points of no metric", "SELECT NULL, COUNT(*) FROM history_points WHERE metric_id NOT IN (SELECT id FROM metrics)"),
    ("history points of no machine kind", "SELECT NULL, COUNT(*) FROM history_points WHERE machine_id NOT IN (SELECT id FROM machines)"),
    (
        "history points whose count, mean or interval is not a number",
        "SELECT NULL, COUNT(*) FROM history_points WHERE typeof(n) != 'integer' OR typeof(mean) NOT IN ('real', 'integer') "
        "OR typeof(ci_low) NOT IN ('real', 'integer', 'null') OR typeof(ci_high) NOT IN ('real', 'integer', 'null')",
    ),
)


@dataclass(frozen=True)
class StoreCheck:
    path: str
    schema: int
    runs: int
    samples: int
    problems: tuple[str, ...]     # empty when the store is sound

    @property
    def sound(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class Recovery:
    recovered: tuple[int, ...]                # run ids copied, with their data
    lost: tuple[tuple[int, str], ...]         # (run id, why)
    points: int = 0                           # history points copied
    points_lost: str = ""                     # why the history could not be copied, if so

    @property
    def complete(self) -> bool:
        """Every run and the history were recovered."""
        return not (self.lost or self.points_lost)


def check_store(path: str, *, full: bool = False) -> StoreCheck:
    """How sound the store at ``path`` is; UserError when it is not a rigorbench store at all."""
    if location.is_postgres(path):
        return _check_server(path)
    opening.check_file(path, create=False)
    conn = opening.connect(path, True, BUSY_TIMEOUT_S)
    try:
        tables = _tables(conn, path)
        if tables is None:
            problems = damage.quick_check(conn, full=full) or ["the table list cannot be read"]
            return StoreCheck(path, 0, 0, 0, tuple(problems))
        version = _version(conn, path, tables)
        problems = damage.quick_check(conn, full=full)
        if version < schema.OLDEST_READABLE:
            problems.append(f"schema {version} is older than {schema.OLDEST_READABLE}; ab or run migrates it")
        problems += [f"table {name} is missing" for name in schema.tables_of(version)[1:] if name not in tables]
        problems += _json_problems(conn, version) + _row_problems(conn, _ROW_CHECKS)
        if version >= 2:
            problems += _row_problems(conn, _HISTORY_CHECKS)
        runs, samples = _count(conn, "runs"), _count(conn, "samples")
        return StoreCheck(path, version, runs, samples, tuple(problems))
    finally:
        conn.close()


def _check_server(url: str) -> StoreCheck:
    """A PostgreSQL store: the server keeps its own pages and every column's type, and
    enforces the foreign keys, so what is left to check is rigorbench's own: the schema
    version and tables, the JSON columns, and rows that refer to nothing."""
    with ResultStore.read(url) as store:
        conn = store._conn
        version = store.schema
        tables = backend_of(conn).table_names(conn)
        problems = [f"table {name} is missing" for name in schema.tables_of(version)[1:] if name not in tables]
        problems += _json_problems(conn, version) + _row_problems(conn, _ROW_CHECKS[:4])
        if version >= 2:
            problems += _row_problems(conn, _HISTORY_CHECKS[:3])
        return StoreCheck(store.path, version, _count(conn, "runs"), _count(conn, "samples"), tuple(problems))


def _tables(conn: sqlite3.Connection, path: str) -> set[str] | None:
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as error:
        if damage.is_not_a_database(error):
            raise UserError(f"{path}: not a rigorbench results store") from None
        return None
    if not tables:
        raise UserError(f"{path}: no results store here (nothing has been stored yet)")
    return tables


def _version(conn: sqlite3.Connection, path: str, tables: set[str]) -> int:
    if "meta" not in tables:
        raise UserError(f"{path}: not a rigorbench results store")
    return schema.stored_version(conn, path, create=False) or 0


def _json_problems(conn: sqlite3.Connection, version: int) -> list[str]:
    """Every JSON column that does not parse, named by run (and trial)."""
    queries = (
        ("SELECT id, NULL, NULL, settings FROM runs", dict, "settings"),
        ("SELECT run_id, trial, label, environment FROM executions", dict, "environment"),
        ("SELECT run_id, trial, label, failures FROM executions", list, "failures"),
        ("SELECT id, NULL, NULL, params FROM cases", list, "params"),
    ) + ((("SELECT kind, NULL, NULL, facts FROM machines", dict, "facts"),) if version >= 2 else ())
    problems = []
    for sql, kind, column in queries:
        try:
            rows = conn.execute(sql).fetchall()
        except backend_of(conn).errors as error:
            problems.append(f"{column} cannot be read: {error}")
            continue
        for key, trial, label, text in rows:
            where = _where(column, key, trial, label)
            try:
                damage.parse_json(text, kind, where)
            except damage.DamagedRow as error:
                problems.append(error.where)
    return problems


def _where(column: str, key, trial, label) -> str:
    if column == "params":
        return f"benchmark case {key}: its params"
    if column == "facts":
        return f"machine kind {key!r}: its facts"
    if trial is None:
        return f"run {key}: its {column}"
    return f"run {key}: trial {trial + 1 if isinstance(trial, int) else trial} of version {label!r}: its {column}"


def _row_problems(conn: sqlite3.Connection, checks) -> list[str]:
    problems = []
    for what, sql in checks:
        try:
            rows = conn.execute(sql).fetchall()
        except backend_of(conn).errors as error:
            problems.append(f"{what}: cannot be checked ({error})")
            continue
        for run_id, count in rows:
            if count:
                problems.append(f"{'' if run_id is None else f'run {run_id}: '}{count} {what}")
    return problems


def _count(conn: sqlite3.Connection, table: str) -> int:
    try:
        return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])  # table: one of TABLES
    except backend_of(conn).errors:
        return 0


def recover_store(path: str, new: str) -> Recovery:
    """Copy every readable run of ``path``, then its history points, into the new store
    ``new`` (never overwritten)."""
    if location.is_postgres(new):
        raise UserError(f"{location.masked(new)}: recover writes a new SQLite file; "
                        "copy the recovered store to PostgreSQL with `rigorbench store copy`")
    if os.path.lexists(new):
        raise UserError(f"{new}: exists; recover writes a new store and never overwrites a file")
    recovered, lost = [], []
    with ResultStore.read(path) as source:
        run_ids = source.run_ids()
        with ResultStore.open(new) as target:
            for run_id in run_ids:
                try:
                    info, executions, series = read_run(source, run_id)
                except UserError as error:
                    lost.append((run_id, getattr(error, "what", str(error))))
                    continue
                write_run(target, info, executions, series, keep_id=True)
                recovered.append(run_id)
            points, why = _copy_history(source, target, set(recovered))
    return Recovery(tuple(recovered), tuple(lost), points, why)


def _copy_history(source: ResultStore, target: ResultStore, runs: set[int]) -> tuple[int, str]:
    """Copy the history points, all or none (they are read in one query). A point keeps its
    summary when its run was lost, without the reference to the run."""
    from dataclasses import replace

    try:
        points = source.history_points()
    except UserError as error:
        return 0, getattr(error, "what", str(error))
    kept = [p if p.run_id is None or p.run_id in runs else replace(p, run_id=None, label=None) for p in points]
    return target.add_points(kept), ""


def read_run(store: ResultStore, run_id: int):
    """Everything of one run, read before anything is written (a run is copied whole)."""
    info = store.run(run_id)
    executions = store.executions(run_id)
    planned = {(e.trial, e.label) for e in info.schedule}
    unplanned = [e for e in executions if (e.trial, e.label) not in planned]
    if unplanned:
        raise UserError(f"trial {unplanned[0].trial + 1} of version {unplanned[0].label!r} is not in the run's schedule")
    series = {v.label: store.load_series(run_id, v.label) for v in info.versions}
    return info, executions, series


def write_run(store: ResultStore, info: RunInfo, executions: list[ExecutionRecord], series: dict, *,
              keep_id: bool) -> int:
    """Store a run read by :func:`read_run`, each trial in its own transaction; returns its id
    in ``store`` (the same id with ``keep_id``, else one the store gives)."""
    from rigorbench.model import Series

    run_id = store.create_run(
        harness=info.harness, project=info.project, order=info.order, seed=info.seed, settings=info.settings,
        versions=info.versions, schedule=info.schedule, tool_version=info.tool_version,
        run_id=info.run_id if keep_id else None, created=info.created,
    )
    for record in executions:
        trial_series = [
            Series(one.case, one.metric, one.samples.select(one.samples.trial == record.trial), one.version)
            for one in series[record.label]
        ]
        planned = next(e for e in info.schedule if (e.trial, e.label) == (record.trial, record.label))
        store.record_execution(run_id, planned, TrialRecord(
            record.status, record.started, record.ended, record.harness_seconds, trial_series,
            record.environment, record.failures, record.output_tail, record.message,
        ))
    store.finish_run(run_id, status=info.status, wall_seconds=info.wall_seconds, harness_seconds=info.harness_seconds)
    return run_id
