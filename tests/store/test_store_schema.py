"""The store's versioned schema: what is refused, what is migrated, in one transaction."""

from __future__ import annotations

import sqlite3

import pytest
from storedata import new_run, record, schedule

from rigorbench import __version__
from rigorbench.errors import UserError
from rigorbench.store import ResultStore, schema


def meta(path) -> dict:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())
    finally:
        conn.close()


def tables(path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()


def test_a_new_store_records_its_schema_and_creator(store_path):
    ResultStore.open(store_path).close()
    info = meta(store_path)
    assert info["application"] == "rigorbench"
    assert info["schema_version"] == str(schema.schema_version()) == "2"
    assert info["created_by"] == __version__
    assert "migrated_by" not in info
    assert {"meta", "runs", "versions", "schedule", "executions", "cases", "metrics", "samples",
            "machines", "history_points"} <= tables(store_path)


def test_wal_mode_and_foreign_keys(store, store_path):
    assert store._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    conn = sqlite3.connect(store_path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_missing_store_without_create_is_refused_and_not_created(tmp_path):
    path = tmp_path / "none" / "results.db"
    with pytest.raises(UserError, match=r"results\.db: no results store here"):
        ResultStore.open(path, create=False)
    assert not path.exists() and not path.parent.exists()


def test_an_empty_file_is_a_new_store_only_with_create(tmp_path):
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    with pytest.raises(UserError, match="no results store here"):
        ResultStore.open(path, create=False)
    with ResultStore.open(path) as store:
        assert store.list_runs() == []


def test_a_newer_schema_is_refused_with_both_versions(store_path):
    ResultStore.open(store_path).close()
    conn = sqlite3.connect(store_path)
    conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(UserError) as error:
        ResultStore.open(store_path)
    assert str(error.value) == (
        f"{store_path}: this results store was written by a newer rigorbench "
        "(schema 3, this one reads up to 2); upgrade rigorbench"
    )
    assert meta(store_path)["schema_version"] == "3"


@pytest.mark.parametrize(
    "content",
    [b"project;commit;benchmark\n", b"SQLite format 2\x00 and then some", b"\x1f\x8b\x08\x00binary", "x" * 5000],
    ids=["csv", "almost-sqlite", "gzip", "long-text"],
)
def test_a_file_that_is_not_sqlite_is_refused(tmp_path, content):
    path = tmp_path / "results.db"
    if isinstance(content, str):
        path.write_text(content)
    else:
        path.write_bytes(content)
    before = path.read_bytes()
    with pytest.raises(UserError, match=r"results\.db: not a rigorbench results store$"):
        ResultStore.open(path)
    assert path.read_bytes() == before


def test_a_corrupt_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "results.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    with pytest.raises(UserError, match="not a rigorbench results store"):
        ResultStore.open(path)


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(UserError, match="is a directory"):
        ResultStore.open(tmp_path)


@pytest.mark.parametrize(
    "ddl",
    [
        ["CREATE TABLE other (x)"],
        ["CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)", "INSERT INTO meta VALUES ('schema_version', '1')"],
        ["CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)", "INSERT INTO meta VALUES ('application', 'other')"],
        ["CREATE TABLE meta (a, b, c)"],
    ],
    ids=["no-meta", "meta-of-another-tool", "other-application", "other-meta-table"],
)
def test_a_sqlite_file_of_something_else_is_refused_and_left_alone(tmp_path, ddl):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    for statement in ddl:
        conn.execute(statement)
    conn.commit()
    conn.close()
    before = tables(path)
    with pytest.raises(UserError, match=r"other\.db: not a rigorbench results store"):
        ResultStore.open(path)
    assert tables(path) == before
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal"
    finally:
        conn.close()


def hand_built_version_0(path) -> None:
    """What a store looks like before any migration: only its meta table."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.executemany(
        "INSERT INTO meta VALUES (?, ?)",
        [("application", "rigorbench"), ("schema_version", "0"), ("created_by", "0.0.1"), ("created", "2024-01-01")],
    )
    conn.commit()
    conn.close()


def test_version_0_is_migrated_to_the_current_schema(tmp_path):
    path = tmp_path / "old.db"
    hand_built_version_0(path)
    with ResultStore.open(path, create=False) as store:
        run_id = new_run(store)
        record(store, run_id, schedule()[0])
        assert store.finished(run_id) == {(0, "base")}
    info = meta(path)
    assert info["schema_version"] == "2" and info["created_by"] == "0.0.1" and info["migrated_by"] == __version__


def _add_notes_table(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE notes (run_id INTEGER NOT NULL REFERENCES runs(id), text TEXT NOT NULL)")
    conn.execute("INSERT INTO notes SELECT id, 'migrated' FROM runs")


def test_a_registered_migration_upgrades_an_existing_store_and_keeps_its_data(store_path, monkeypatch):
    with ResultStore.open(store_path) as store:
        run_id = new_run(store)
        record(store, run_id, schedule()[0])
    monkeypatch.setattr(schema, "MIGRATIONS", {**schema.MIGRATIONS, 3: _add_notes_table})
    with ResultStore.open(store_path, create=False) as store:
        assert store.finished(run_id) == {(0, "base")}
        assert store._conn.execute("SELECT run_id, text FROM notes").fetchall() == [(run_id, "migrated")]
    assert meta(store_path)["schema_version"] == "3"
    monkeypatch.setattr(schema, "MIGRATIONS", {1: schema.MIGRATIONS[1], 2: schema.MIGRATIONS[2]})
    with pytest.raises(UserError, match=r"\(schema 3, this one reads up to 2\)"):
        ResultStore.open(store_path)


def test_migrations_apply_in_order_from_version_0(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    hand_built_version_0(path)
    applied = []
    create_tables, add_history = schema.MIGRATIONS[1], schema.MIGRATIONS[2]
    migrations = {
        3: lambda conn: applied.append(3),
        1: lambda conn: (create_tables(conn), applied.append(1)),
        2: lambda conn: (add_history(conn), applied.append(2)),
    }
    monkeypatch.setattr(schema, "MIGRATIONS", migrations)
    ResultStore.open(path).close()
    assert applied == [1, 2, 3]
    assert meta(path)["schema_version"] == "3"


def test_a_failing_migration_leaves_the_store_as_it_was(store_path, monkeypatch):
    with ResultStore.open(store_path) as store:
        new_run(store)

    def half_done(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE more_notes (text TEXT)")
        conn.execute("DELETE FROM schedule")
        raise RuntimeError("migration bug")

    monkeypatch.setattr(schema, "MIGRATIONS", {**schema.MIGRATIONS, 3: _add_notes_table, 4: half_done})
    with pytest.raises(RuntimeError, match="migration bug"):
        ResultStore.open(store_path)
    assert meta(store_path)["schema_version"] == "2"
    assert not {"notes", "more_notes"} & tables(store_path)
    monkeypatch.undo()
    with ResultStore.open(store_path) as store:
        ((_, counts),) = store.list_runs()
        assert counts["executions_planned"] == 6
