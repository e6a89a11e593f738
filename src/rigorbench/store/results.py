"""The results store: every run, execution and sample of an experiment in one SQLite file,
or in a PostgreSQL database (:mod:`rigorbench.store.postgres`) through the same SQL.

Nothing measured is ever lost: each execution (one harness invocation) is committed with
all its samples in one transaction before :meth:`ResultStore.record_execution` returns, so
a crash or ``kill -9`` between executions loses nothing and one during an execution loses
only that execution. A (trial, version) pair is stored at most once, which is what makes an
interrupted experiment resumable. The file is in WAL mode with foreign keys on; a store
another process holds is waited for (30 s) rather than failed on.

The tables and their migrations are in :mod:`rigorbench.store.schema`; what differs between
SQLite and PostgreSQL is in :mod:`rigorbench.store.backend`.
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from rigorbench import __version__
from rigorbench.errors import UserError
from rigorbench.model import Series
from rigorbench.store import damage, history, location, opening, samples, schema
from rigorbench.store.backend import SQLITE, inserted_id
from rigorbench.store.api import (
    Execution, ExecutionRecord, HistoryPoint, RunInfo, TrialRecord, VersionInfo, check_plan,
)

BUSY_TIMEOUT_S = 30
RUN_STATUSES = ("running", "interrupted", "finished")
EXECUTION_STATUSES = ("done", "failed", "timeout")

_EXECUTION_COLUMNS = (
    "trial, label, position, status, started, ended, harness_seconds, "
    "environment, failures, output_tail, message, samples"
)


class ResultStore:
    """A results store; open it with :meth:`open`, use it as a context manager.

    ``path`` is where it is as it may be shown: a file path, or a URL with its password masked.
    """

    def __init__(self, conn: sqlite3.Connection, path: str, backend=SQLITE) -> None:
        self._conn = conn
        self._backend = backend
        self.path = path
        self.read_only = False
        self.schema = schema.schema_version()   # the stored schema (older when read-only)

    # -- opening and closing ------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike, *, create: bool = True, read_only: bool = False) -> "ResultStore":
        """Open the store at ``path``; with ``create``, make it (and its folders) when absent.

        ``read_only`` opens it for reading only (``mode=ro``): the file is never written,
        which also makes a store the user may not write readable. A store opened for writing
        is checked first (SQLite's quick_check and a write that is rolled back), so that an
        experiment never starts on a store that cannot keep its results.

        Raises UserError for a missing store (``create=False``), a file that is not a
        rigorbench store, a damaged or read-only one, or a store written by a newer rigorbench.
        A ``postgresql://`` URL opens (and on first use creates the tables of) a store in that
        PostgreSQL database; the database itself must exist.
        """
        path = os.fspath(path)
        if location.is_postgres(path):
            from rigorbench.store import postgres

            conn = postgres.connect(path, BUSY_TIMEOUT_S)
            store = cls(conn, location.masked(path), conn.backend)
        else:
            opening.check_file(path, create and not read_only)
            store = cls(opening.connect(path, read_only, BUSY_TIMEOUT_S), path)
        conn = store._conn
        store.read_only = read_only
        try:
            store._prepare(create and not read_only)
        except BaseException:
            conn.close()
            raise
        return store

    @classmethod
    def read(cls, path: str | os.PathLike) -> "ResultStore":
        """An existing store opened for reading only (what compare, analyze, report, export
        and runs use)."""
        return cls.open(path, create=False, read_only=True)

    def _prepare(self, create: bool) -> None:
        """Check the schema (without waiting for a writer), migrate when needed, set the pragmas."""
        conn, path, backend = self._conn, self.path, self._backend
        try:
            backend.configure(conn)
            backend.begin(conn, write=False)
            try:
                version = schema.stored_version(conn, path, create=create)
            finally:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
        except backend.errors as error:  # "file is not a database" and its kin
            if backend is SQLITE and damage.is_not_a_database(error):
                raise UserError(f"{path}: not a rigorbench results store") from None
            raise self._write_error(error) from None
        if self.read_only:
            schema.check_readable(version, path)
            self.schema = version
            return
        if version != schema.schema_version():
            with self._transaction():  # every migration in one transaction: all or nothing
                schema.prepare(conn, path, __version__, create=create)
        self._check_writable()

    def _check_writable(self) -> None:
        """Refuse now, before anything is built or measured, a store that cannot keep results."""
        conn = self._conn
        try:
            self._backend.make_durable(conn)
            with self._transaction() as conn:
                conn.execute("UPDATE meta SET value = value WHERE key = 'application'")
                conn.execute("ROLLBACK")
        except self._backend.errors as error:
            raise self._write_error(error) from None
        problems = damage.quick_check(conn) + [f"no table {name}" for name in schema.missing_tables(conn)]
        if problems:
            raise damage.StoreDamaged(self.path, problems[0])

    def _write_error(self, error: Exception) -> UserError:
        if self._backend.is_busy(error):
            return _busy(self.path)
        if self._backend.is_read_only(error):
            return UserError(f"{self.path}: the results store is read-only; nothing can be stored in it")
        if self._backend is not SQLITE:  # a server's error: no file to check or recover
            return UserError(f"{self.path}: {' '.join(location.scrubbed(str(error), self.path).split())}")
        return damage.diagnose(self.path, self._conn, error)

    @property
    def work_dir(self) -> Path:
        """The local folder for builds and trial output (:func:`location.work_dir`)."""
        return location.work_dir(self.path)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    @contextmanager
    def _transaction(self, *, write: bool = True) -> Iterator[sqlite3.Connection]:
        """One transaction: committed when the block ends, rolled back when it raises.

        Writers take the write lock at the start (``BEGIN IMMEDIATE``), so they wait for
        another writer up to the busy timeout instead of failing half-way. A read or write
        SQLite cannot do, or a stored value that cannot be read, becomes one line naming
        the store and what is wrong with it (:mod:`rigorbench.store.damage`).
        """
        conn = self._conn
        if write and self.read_only:
            raise UserError(f"{self.path}: opened read-only; nothing can be stored in it")
        try:
            self._backend.begin(conn, write=write)
            yield conn
            if conn.in_transaction:
                conn.execute("COMMIT")
        except (*self._backend.errors, damage.DamagedRow) as error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if not isinstance(error, damage.DamagedRow):
                raise self._write_error(error) from None
            raise damage.diagnose(self.path, conn, error) from None
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    # -- runs -------------------------------------------------------------------------

    def create_run(self, *, harness: str, project: str, order: str, seed: int, settings: Mapping,
                   versions: Sequence[VersionInfo], schedule: Sequence[Execution], tool_version: str,
                   run_id: int | None = None, created: str | None = None) -> int:
        """Store a new run (status ``running``, created now) with its versions and schedule.

        ``run_id`` and ``created`` keep a copied run's own (``store recover``)."""
        check_plan(versions, schedule)
        created = created or datetime.now(timezone.utc).isoformat(timespec="seconds")
        given = () if run_id is None else (run_id,)
        with self._transaction() as conn:
            run_id = inserted_id(
                conn,
                f"INSERT INTO runs ({'id, ' * len(given)}created, status, harness, project, run_order, seed, settings, "
                f"tool_version) VALUES ({'?, ' * len(given)}?, 'running', ?, ?, ?, ?, ?, ?)",
                (*given, created, harness, project, order, int(seed), json.dumps(dict(settings)), tool_version),
            )
            if given:
                self._backend.ids_given(conn, "runs")
            conn.executemany(
                "INSERT INTO versions (run_id, position, label, source, git_commit, dirty) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (run_id, i, v.label, v.source, v.commit, None if v.dirty is None else int(v.dirty))
                    for i, v in enumerate(versions)
                ],
            )
            _insert_schedule(conn, run_id, schedule)
        return run_id

    def run(self, run_id: int) -> RunInfo:
        """The run ``run_id``; UserError when there is none."""
        with self._transaction(write=False) as conn:
            return self._run_info(conn, run_id)

    def run_ids(self) -> list[int]:
        """The id of every run, oldest first."""
        with self._transaction(write=False) as conn:
            return [row[0] for row in conn.execute("SELECT id FROM runs ORDER BY id")]

    def latest_run(self, labels: Sequence[str] | None = None) -> RunInfo | None:
        """The newest run; with ``labels``, the newest run that has all those versions."""
        wanted = sorted(set(labels or ()))
        with self._transaction(write=False) as conn:
            if wanted:
                marks = ", ".join("?" for _ in wanted)
                row = conn.execute(
                    f"SELECT run_id FROM versions WHERE label IN ({marks}) GROUP BY run_id "
                    "HAVING COUNT(DISTINCT label) = ? ORDER BY run_id DESC LIMIT 1",
                    (*wanted, len(wanted)),
                ).fetchone()
            else:
                row = conn.execute("SELECT MAX(id) FROM runs").fetchone()
            if row is None or row[0] is None:
                return None
            return self._run_info(conn, row[0])

    def list_runs(self) -> list[tuple[RunInfo, dict]]:
        """Every run, newest first, with its execution and sample counts.

        The listing reads only the small tables, so SQLite's quick_check runs first: a list
        of runs must not look sound when their samples are damaged.
        """
        with self._transaction(write=False) as conn:
            problems = damage.quick_check(conn, limit=1)
            if problems:
                raise damage.DamagedRow(problems[0])
            counts = conn.execute(
                """
                SELECT r.id,
                       COUNT(e.id),
                       (SELECT COUNT(*) FROM schedule AS s WHERE s.run_id = r.id),
                       CAST(COALESCE(SUM(CASE WHEN e.status != 'done' THEN 1 ELSE 0 END), 0) AS BIGINT),
                       CAST(COALESCE(SUM(e.samples), 0) AS BIGINT)
                FROM runs AS r LEFT JOIN executions AS e ON e.run_id = r.id
                GROUP BY r.id ORDER BY r.id DESC"""
            ).fetchall()
            return [
                (
                    self._run_info(conn, run_id),
                    {"executions_done": done, "executions_planned": planned, "failed": failed, "samples": count},
                )
                for run_id, done, planned, failed, count in counts
            ]

    def finish_run(
        self, run_id: int, *, status: str, wall_seconds: float | None, harness_seconds: float | None
    ) -> None:
        """Record how a run ended (``finished`` or ``interrupted``) and its total times."""
        if status not in RUN_STATUSES:
            raise ValueError(f"run status {status!r} is not one of {', '.join(RUN_STATUSES)}")
        with self._transaction() as conn:
            updated = conn.execute(
                "UPDATE runs SET status = ?, wall_seconds = ?, harness_seconds = ? WHERE id = ?",
                (status, wall_seconds, harness_seconds, run_id),
            ).rowcount
            if not updated:
                raise self._no_run(run_id)

    def extend_run(self, run_id: int, executions: Sequence[Execution], settings_update: Mapping | None = None) -> None:
        """Plan more trials of a run's versions (``bisect`` adds trials to a probe that is
        not decided yet, ``ab --until-decided`` one trial at a time): the schedule grows, the
        settings' trial count follows, top-level keys of ``settings_update`` replace the
        settings' own (in the same transaction), and the run is ``running`` until it is
        finished again. No stored trial is changed."""
        with self._transaction() as conn:
            info = self._run_info(conn, run_id)
            schedule = [*info.schedule, *executions]
            check_plan(info.versions, schedule)
            _insert_schedule(conn, run_id, executions)
            settings = {**info.settings, **(settings_update or {}), "trials": len({e.trial for e in schedule})}
            conn.execute("UPDATE runs SET settings = ?, status = 'running' WHERE id = ?", (json.dumps(settings), run_id))

    def _run_info(self, conn: sqlite3.Connection, run_id: int) -> RunInfo:
        row = conn.execute(
            "SELECT id, created, status, harness, project, run_order, seed, settings, wall_seconds, "
            "harness_seconds, tool_version FROM runs WHERE id = ?",
            (run_id,),
        ).fetchone()
        if row is None:
            raise self._no_run(run_id)
        versions = tuple(
            VersionInfo(label, source, commit, None if dirty is None else bool(dirty))
            for label, source, commit, dirty in conn.execute(
                "SELECT label, source, git_commit, dirty FROM versions WHERE run_id = ? ORDER BY position", (run_id,)
            )
        )
        planned = tuple(
            Execution(trial, label, position)
            for trial, label, position in conn.execute(
                "SELECT trial, label, position FROM schedule WHERE run_id = ? ORDER BY position", (run_id,)
            )
        )
        damage.check_numbers(f"run {run_id}", n_seed=row[6], wall_seconds_or_none=row[8], harness_seconds_or_none=row[9])
        return RunInfo(
            run_id=row[0], created=row[1], status=row[2], harness=row[3], project=row[4], order=row[5],
            seed=row[6], settings=damage.parse_json(row[7], dict, f"run {run_id}: its settings"),
            versions=versions, schedule=planned,
            wall_seconds=row[8], harness_seconds=row[9], tool_version=row[10],
        )

    def _no_run(self, run_id: int) -> UserError:
        return UserError(f"no run {run_id} in {self.path}")

    # -- executions -------------------------------------------------------------------

    def record_execution(self, run_id: int, execution: Execution, record: TrialRecord) -> None:
        """Store one execution and all its samples in one transaction, committed on return.

        A (trial, version) pair already stored is refused with UserError, and the store is
        left unchanged. The tables' ``trial`` column is ignored: the trial is the execution's.
        """
        self.record_executions(run_id, [(execution, record)])

    def record_executions(self, run_id: int, finished: Sequence[tuple[Execution, TrialRecord]]) -> None:
        """Store several executions in one transaction: all of them, or (on any error) none.
        A cluster trial's versions arrive together and are stored together (cluster/dispatch.py)."""
        for _, record in finished:
            if record.status not in EXECUTION_STATUSES:
                raise ValueError(f"execution status {record.status!r} is not one of {', '.join(EXECUTION_STATUSES)}")
        with self._transaction() as conn:
            for execution, record in finished:
                self._insert_execution(conn, run_id, execution, record)

    def _insert_execution(self, conn, run_id: int, execution: Execution, record: TrialRecord) -> None:
        rows = sum(len(one.samples) for one in record.series)
        self._check_planned(conn, run_id, execution)
        try:
            execution_id = inserted_id(
                conn,
                f"INSERT INTO executions (run_id, {_EXECUTION_COLUMNS}) VALUES ({', '.join('?' * 13)})",
                (
                    run_id, execution.trial, execution.label, execution.position, record.status, record.started,
                    record.ended, float(record.harness_seconds),
                    json.dumps({str(k): str(v) for k, v in record.environment.items()}),
                    json.dumps([str(f) for f in record.failures]), record.output_tail, record.message, rows,
                ),
            )
        except self._backend.errors as error:
            if not self._backend.is_unique_violation(error):
                raise
            raise UserError(
                f"{self.path}: trial {execution.trial + 1} of version {execution.label!r} is already "
                f"stored in run {run_id}; a trial is never stored twice"
            ) from None
        samples.insert_series(conn, execution_id, record.series)

    def _check_planned(self, conn: sqlite3.Connection, run_id: int, execution: Execution) -> None:
        planned = conn.execute(
            "SELECT 1 FROM schedule WHERE run_id = ? AND trial = ? AND label = ?",
            (run_id, execution.trial, execution.label),
        ).fetchone()
        if planned is None:
            self._run_info(conn, run_id)  # raises when the run does not exist
            raise UserError(
                f"{self.path}: run {run_id} has no trial {execution.trial + 1} of version {execution.label!r} "
                "in its schedule"
            )

    def executions(self, run_id: int) -> list[ExecutionRecord]:
        """The run's stored executions (without samples), in position order."""
        with self._transaction(write=False) as conn:
            self._run_info(conn, run_id)
            rows = conn.execute(
                f"SELECT {_EXECUTION_COLUMNS} FROM executions WHERE run_id = ? ORDER BY position", (run_id,)
            ).fetchall()
            return [_execution_record(run_id, *row) for row in rows]

    def finished(self, run_id: int) -> set[tuple[int, str]]:
        """The (trial, label) pairs already stored, whatever their status."""
        with self._transaction(write=False) as conn:
            rows = conn.execute("SELECT trial, label FROM executions WHERE run_id = ?", (run_id,)).fetchall()
        return {(trial, label) for trial, label in rows}

    # -- samples ----------------------------------------------------------------------

    def load_series(self, run_id: int, label: str) -> list[Series]:
        """Every (case, metric) of version ``label`` over all its executions in the run."""
        with self._transaction(write=False) as conn:
            self._check_label(conn, run_id, label)
            return samples.load_series(conn, run_id, label)

    def environments(self, run_id: int, label: str) -> list[dict]:
        """The environment of each stored execution of version ``label``, in position order."""
        with self._transaction(write=False) as conn:
            self._check_label(conn, run_id, label)
            rows = conn.execute(
                "SELECT trial, environment FROM executions WHERE run_id = ? AND label = ? ORDER BY position",
                (run_id, label),
            ).fetchall()
            return [
                damage.parse_json(text, dict, f"{_trial_name(run_id, trial, label)}: its environment")
                for trial, text in rows
            ]

    def _check_label(self, conn: sqlite3.Connection, run_id: int, label: str) -> None:
        labels = [v.label for v in self._run_info(conn, run_id).versions]
        if label not in labels:
            raise UserError(f"run {run_id} in {self.path} has no version {label!r}; its versions: {', '.join(labels)}")

    # -- history (rigorbench.store.history) ----------------------------------------------

    def add_points(self, points: Sequence[HistoryPoint], *, dry_run: bool = False,
                   once_for: tuple[int, str] | None = None, skip_stored: bool = False) -> int:
        """Store history points, all or none, and return how many were stored; ``dry_run``
        checks that they can be (no point already stored) and rolls back. With
        ``once_for=(run_id, label)``, nothing is stored (0 returned) when the history already
        has points of that run's version: a run adds its points once, however often it is
        resumed. With ``skip_stored``, points whose series has one at their commit and time
        already are left out (see :func:`rigorbench.store.history.insert_points`)."""
        with self._transaction() as conn:
            if once_for is not None and history.points_of_run(conn, *once_for):
                return 0
            count = history.insert_points(conn, points, self.path, skip_stored=skip_stored)
            if dry_run:
                conn.execute("ROLLBACK")
            return count

    def history_points(self) -> list[HistoryPoint]:
        """Every history point, by series and time; none in a store older than schema 2."""
        if self.schema < 2:
            return []
        with self._transaction(write=False) as conn:
            return history.select_points(conn)


def _execution_record(
    run_id, trial, label, position, status, started, ended, seconds, environment, failures, tail, message, count
) -> ExecutionRecord:
    """An ExecutionRecord from a row of ``_EXECUTION_COLUMNS`` (DamagedRow when unreadable)."""
    where = _trial_name(run_id, trial, label)
    damage.check_numbers(where, n_trial=trial, n_position=position, harness_seconds=seconds, n_samples=count)
    if status not in EXECUTION_STATUSES:
        raise damage.DamagedRow(f"{where}: its status is {status!r}, not one of {', '.join(EXECUTION_STATUSES)}")
    return ExecutionRecord(
        trial=trial, label=label, position=position, status=status, started=started, ended=ended,
        harness_seconds=seconds, environment=damage.parse_json(environment, dict, f"{where}: its environment"),
        failures=tuple(damage.parse_json(failures, list, f"{where}: its failures")),
        output_tail=tail, message=message, samples=count,
    )


def _insert_schedule(conn, run_id: int, executions: Sequence[Execution]) -> None:
    conn.executemany("INSERT INTO schedule (run_id, position, trial, label) VALUES (?, ?, ?, ?)",
                     [(run_id, e.position, e.trial, e.label) for e in executions])


def _trial_name(run_id: int, trial, label: str) -> str:
    return f"run {run_id}: trial {trial + 1 if isinstance(trial, int) else trial} of version {label!r}"


def _busy(path: str) -> UserError:
    return UserError(
        f"{path}: the results store is locked by another process (waited {BUSY_TIMEOUT_S} s); try again when it is done"
    )
