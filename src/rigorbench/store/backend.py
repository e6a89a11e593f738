"""What differs between the SQL databases a results store lives in, and nothing else.

The store's SQL (:mod:`rigorbench.store.results`, :mod:`~rigorbench.store.samples`,
:mod:`~rigorbench.store.history`, :mod:`~rigorbench.store.schema`) is written once, in the
subset SQLite and PostgreSQL agree on: ``?`` parameters, ``INSERT ... RETURNING id``,
``ON CONFLICT``, JSON kept as TEXT, 0/1 integers for flags. A backend supplies the rest:
how a transaction starts (a writer takes the store's write lock first, as SQLite's
``BEGIN IMMEDIATE`` does), how the table list is read, how a ``CREATE TABLE`` is spelled,
which driver errors mean "locked", "read-only" or "already stored".

:data:`SQLITE` is the file backend; the PostgreSQL one is in :mod:`rigorbench.store.postgres`
(imported only for a ``postgresql://`` store, since psycopg is an optional dependency).
"""

from __future__ import annotations

import sqlite3


class SQLiteBackend:
    name = "SQLite"
    errors: tuple[type[BaseException], ...] = (sqlite3.DatabaseError,)

    def begin(self, conn, *, write: bool) -> None:
        conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")

    def configure(self, conn) -> None:
        conn.execute("PRAGMA foreign_keys = ON")

    def make_durable(self, conn) -> None:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")

    def table_names(self, conn) -> set[str]:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def ddl(self, statement: str) -> str:
        return statement

    def is_unique_violation(self, error: BaseException) -> bool:
        return isinstance(error, sqlite3.IntegrityError) and "UNIQUE" in str(error)

    def is_busy(self, error: BaseException) -> bool:
        text = str(error).lower()
        return "locked" in text or "busy" in text

    def is_read_only(self, error: BaseException) -> bool:
        text = str(error).lower()
        return "readonly" in text or "read-only" in text

    def insert_rows(self, conn, table: str, columns: tuple[str, ...], rows) -> None:
        """Insert many rows at once (``table`` and ``columns`` are the schema's, never user text)."""
        marks = ", ".join("?" for _ in columns)
        conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    def ids_given(self, conn, table: str) -> None:
        """Rows were inserted into ``table`` with ids chosen by the caller (SQLite's next id
        follows the largest one by itself)."""


SQLITE = SQLiteBackend()


def backend_of(conn):
    """The backend of a connection: a PostgreSQL connection says so, a sqlite3 one cannot."""
    return getattr(conn, "backend", SQLITE)


def inserted_id(conn, sql: str, params) -> int:
    """Run an ``INSERT`` into a table with an ``id`` and return the id the database gave."""
    return conn.execute(f"{sql} RETURNING id", params).fetchall()[0][0]
