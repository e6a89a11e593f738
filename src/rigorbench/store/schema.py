"""The results store's SQLite schema, in one place, and its migrations.

The schema is versioned (STYLE.md rule 8): the ``meta`` table holds ``schema_version`` and
the rigorbench version that created the file. :data:`MIGRATIONS` maps a version to the
function that takes a store from the version before it to that version; migration 1 creates
the tables of a new store. :func:`prepare` applies every missing migration, in order, in
the caller's transaction, so that a store is either fully upgraded or left as it was.

Untrusted text (benchmark names, parameters, labels, console output) never appears in these
statements: the store passes it as SQL parameters only.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime, timezone
from functools import partial
from typing import Callable

from rigorbench.errors import UserError
from rigorbench.store.backend import backend_of

APPLICATION = "rigorbench"
TABLES_1 = ("meta", "runs", "versions", "schedule", "executions", "cases", "metrics", "samples")
TABLES_2 = TABLES_1 + ("machines", "history_points")
TABLES = TABLES_2
# The oldest schema a read-only command reads: history tables absent read as no history.
OLDEST_READABLE = 1

# meta: what this file is. One row per key:
#   application     always "rigorbench" (tells our store from any other SQLite file)
#   schema_version  the version of the tables below (an integer, as text)
#   created_by      the rigorbench version that created the file
#   created         when (UTC, ISO 8601)
#   migrated_by     the rigorbench version that last migrated it (absent until a migration)
_META = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
)"""

_SCHEMA_1 = (
    # One experiment: versions x trials executed in `run_order` ("rmit" | "sequential").
    # `settings` is JSON (RunSettings.as_dict() plus experiment settings). The times add up
    # over resumed sessions and stay NULL while the run has never been finished.
    """
    CREATE TABLE runs (
        id              INTEGER PRIMARY KEY,
        created         TEXT NOT NULL,          -- UTC, ISO 8601
        status          TEXT NOT NULL,          -- running | interrupted | finished
        harness         TEXT NOT NULL,
        project         TEXT NOT NULL,
        run_order       TEXT NOT NULL,
        seed            INTEGER NOT NULL,
        settings        TEXT NOT NULL,          -- JSON object
        wall_seconds    REAL,
        harness_seconds REAL,
        tool_version    TEXT NOT NULL
    )""",
    # The versions compared in a run, in the order the user named them.
    """
    CREATE TABLE versions (
        run_id     INTEGER NOT NULL REFERENCES runs(id),
        position   INTEGER NOT NULL,
        label      TEXT NOT NULL,
        source     TEXT NOT NULL,               -- the revision or directory the user named
        git_commit TEXT,                        -- resolved commit, NULL outside git
        dirty      INTEGER,                     -- 0/1, NULL outside git
        PRIMARY KEY (run_id, position),
        UNIQUE (run_id, label)
    )""",
    # The planned executions (harness invocations) in executed order.
    """
    CREATE TABLE schedule (
        run_id   INTEGER NOT NULL REFERENCES runs(id),
        position INTEGER NOT NULL,              -- 0-based over the whole experiment
        trial    INTEGER NOT NULL,              -- 0-based
        label    TEXT NOT NULL,
        PRIMARY KEY (run_id, position),
        UNIQUE (run_id, trial, label),
        FOREIGN KEY (run_id, label) REFERENCES versions(run_id, label)
    )""",
    # The executions that happened, each one of the schedule. (run_id, trial, label) is
    # unique: no trial is ever stored twice. `samples` counts this execution's rows in `samples`.
    """
    CREATE TABLE executions (
        id              INTEGER PRIMARY KEY,
        run_id          INTEGER NOT NULL REFERENCES runs(id),
        trial           INTEGER NOT NULL,
        label           TEXT NOT NULL,
        position        INTEGER NOT NULL,
        status          TEXT NOT NULL,          -- done | failed | timeout
        started         TEXT NOT NULL,
        ended           TEXT NOT NULL,
        harness_seconds REAL NOT NULL,
        environment     TEXT NOT NULL,          -- JSON object of strings
        failures        TEXT NOT NULL,          -- JSON list of strings
        output_tail     TEXT NOT NULL,
        message         TEXT NOT NULL,
        samples         INTEGER NOT NULL,
        UNIQUE (run_id, trial, label),
        FOREIGN KEY (run_id, trial, label) REFERENCES schedule(run_id, trial, label)
    )""",
    # Benchmark cases, shared by all runs. `params` is the JSON list of the ordered
    # [name, value] pairs of BenchmarkCase.params ("[]" without parameters).
    """
    CREATE TABLE cases (
        id      INTEGER PRIMARY KEY,
        harness TEXT NOT NULL,
        name    TEXT NOT NULL,
        params  TEXT NOT NULL,
        UNIQUE (harness, name, params)
    )""",
    # Metrics, shared by all runs.
    """
    CREATE TABLE metrics (
        id               INTEGER PRIMARY KEY,
        name             TEXT NOT NULL,
        unit             TEXT NOT NULL,
        higher_is_better INTEGER NOT NULL,      -- 0/1
        is_primary       INTEGER NOT NULL,      -- 0/1
        UNIQUE (name, unit, higher_is_better, is_primary)
    )""",
    # One row per measured value. The trial is the execution's; `instance`, `fork` and
    # `iteration` are the SampleTable's level codes; `count` is the number of invocations
    # of a histogram row (1 otherwise); a NULL value is a NaN. Rows keep insertion order
    # (rowid), which is the order the harness reported them in.
    """
    CREATE TABLE samples (
        execution_id INTEGER NOT NULL REFERENCES executions(id),
        case_id      INTEGER NOT NULL REFERENCES cases(id),
        metric_id    INTEGER NOT NULL REFERENCES metrics(id),
        instance     INTEGER NOT NULL,
        fork         INTEGER NOT NULL,
        iteration    INTEGER NOT NULL,
        warmup       INTEGER NOT NULL,          -- 0/1
        value        REAL,
        count        REAL NOT NULL
    )""",
    "CREATE INDEX samples_by_execution ON samples (execution_id, case_id, metric_id)",
    "CREATE INDEX executions_by_run ON executions (run_id, position)",
)


_SCHEMA_2 = (
    # A kind of machine, as the recorded environment describes it (CPU model and count, OS
    # and architecture, memory; see rigorbench.analysis.machines). `kind` is that
    # description ("unknown" when nothing was recorded); `facts` the JSON object of strings
    # it came from.
    "CREATE TABLE machines (id INTEGER PRIMARY KEY, kind TEXT NOT NULL UNIQUE, facts TEXT NOT NULL)",
    # One point of a history: one benchmark case and metric at one commit of one branch
    # ('' when none was given) on one kind of machine, with its summary: n values, their
    # mean and the mean's CI at `confidence` (NULL for an imported number without one).
    # `time` is the commit's time and `added` when the point was stored (UTC, ISO 8601);
    # `dirty` is 0/1, NULL when not known. A point made from samples refers to the stored
    # run and version that hold them (run_id, label); one imported from a CSV history has
    # no run. `source` says where it came from.
    """CREATE TABLE history_points (id INTEGER PRIMARY KEY,
        case_id INTEGER NOT NULL REFERENCES cases(id), metric_id INTEGER NOT NULL REFERENCES metrics(id),
        branch TEXT NOT NULL, machine_id INTEGER NOT NULL REFERENCES machines(id),
        git_commit TEXT NOT NULL, dirty INTEGER, time TEXT NOT NULL,
        run_id INTEGER REFERENCES runs(id), label TEXT, source TEXT NOT NULL,
        n INTEGER NOT NULL, mean REAL NOT NULL, ci_low REAL, ci_high REAL, confidence REAL, added TEXT NOT NULL,
        UNIQUE (case_id, metric_id, branch, machine_id, git_commit, time, source))""",
    "CREATE INDEX history_by_series ON history_points (case_id, metric_id, branch, machine_id, time)",
)


def tables_of(version: int) -> tuple[str, ...]:
    """The tables a store of schema ``version`` has."""
    return TABLES_1 if version < 2 else TABLES_2


def missing_tables(conn: sqlite3.Connection, version: int | None = None) -> list[str]:
    """The tables of schema ``version`` (default: the current one) that the store does not
    have (a table dropped by hand)."""
    present = backend_of(conn).table_names(conn)
    return [name for name in tables_of(version or schema_version()) if name not in present]


def _compact(statement: str) -> str:
    """A statement without its comments and runs of blanks: SQLite keeps the text of every
    CREATE in its schema table, and a schema that fits its first page is read from there
    alone (a damaged page elsewhere then spares the table list)."""
    return " ".join(re.sub(r"--[^\n]*", "", statement).split())


def _create(statements: tuple[str, ...], conn: sqlite3.Connection) -> None:
    for statement in statements:
        conn.execute(backend_of(conn).ddl(_compact(statement)))


# version -> the function that upgrades a store from version - 1 to version: 0 (a ``meta``
# table only) -> 1 creates the tables of a new store, 1 -> 2 adds the history of benchmark
# results over commits (issue 17).
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: partial(_create, _SCHEMA_1), 2: partial(_create, _SCHEMA_2),
}


def schema_version() -> int:
    """The newest schema this code reads and writes."""
    return max(MIGRATIONS)


def stored_version(conn: sqlite3.Connection, path: str, *, create: bool) -> int | None:
    """The schema version of the store, None for an empty database (a new store).

    Raises UserError for a store that is absent (not ``create``), not ours, or newer.
    """
    tables = backend_of(conn).table_names(conn)
    if not tables:
        if not create:
            raise UserError(f"{path}: no results store here (nothing has been stored yet)")
        return None
    if "meta" not in tables:
        raise UserError(f"{path}: not a rigorbench results store")
    version = _meta_version(conn, path)
    newest = schema_version()
    if version > newest:
        raise UserError(
            f"{path}: this results store was written by a newer rigorbench "
            f"(schema {version}, this one reads up to {newest}); upgrade rigorbench"
        )
    return version


def check_readable(version: int | None, path: str, oldest: int = OLDEST_READABLE) -> None:
    """A store opened read-only cannot be migrated: it must have schema ``oldest`` or newer.

    Schema 1 stores (before the history tables) stay readable: their runs read as they
    are, and their history reads as empty until a writing command migrates them.
    """
    if version is None:
        raise UserError(f"{path}: no results store here (nothing has been stored yet)")
    if version < oldest:
        raise UserError(
            f"{path}: this results store has an older schema ({version}, this command reads "
            f"{oldest} or newer); a command that writes to it (ab, run, record, history add) migrates it first"
        )


def prepare(conn: sqlite3.Connection, path: str, tool_version: str, *, create: bool) -> None:
    """Check that ``conn`` is a rigorbench store and bring it to :func:`schema_version`.

    Runs inside the caller's (write) transaction: a new store gets its ``meta`` table and
    every migration; an older one the missing migrations.
    """
    version = stored_version(conn, path, create=create)
    if version is None:
        _create_meta(conn, tool_version)
        migrate(conn, 0, schema_version())
    elif version < schema_version():
        migrate(conn, version, schema_version())
        _set(conn, "migrated_by", tool_version)


def migrate(conn: sqlite3.Connection, version: int, target: int) -> None:
    """Apply migrations ``version + 1 .. target`` in order and record the new version."""
    for step in range(version + 1, target + 1):
        if step not in MIGRATIONS:
            raise RuntimeError(f"no migration to schema {step}")
        MIGRATIONS[step](conn)
    _set(conn, "schema_version", str(target))


def _create_meta(conn: sqlite3.Connection, tool_version: str) -> None:
    conn.execute(backend_of(conn).ddl(_META))
    created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    for key, value in (("application", APPLICATION), ("schema_version", "0"), ("created_by", tool_version),
                       ("created", created)):
        _set(conn, key, value)


def _meta_version(conn: sqlite3.Connection, path: str) -> int:
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except backend_of(conn).errors:
        raise UserError(f"{path}: not a rigorbench results store") from None
    try:
        if meta.get("application") != APPLICATION:
            raise ValueError
        return int(meta["schema_version"])
    except (KeyError, TypeError, ValueError):
        raise UserError(f"{path}: not a rigorbench results store") from None


def _set(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
