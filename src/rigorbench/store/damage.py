"""What a damaged results store looks like to the user: one line that names the store, says
what is wrong and which command helps.

A read that fails is diagnosed, not crashed on: SQLite's own check (``PRAGMA quick_check``)
tells a damaged file from a damaged row, and a row whose JSON or number cannot be read names
the run it belongs to, so that ``rigorbench store recover`` can save every other run.
"""

from __future__ import annotations

import json
import sqlite3

from rigorbench.errors import UserError


class DamagedRow(Exception):
    """A stored value that cannot be read; ``where`` names its run (and column)."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


class StoreDamaged(UserError):
    """The store cannot be read; the message names it and the commands that help."""

    def __init__(self, path: str, what: str) -> None:
        self.path = path
        self.what = what = " ".join(str(what).split())  # one line, whatever SQLite said
        super().__init__(
            f"{path}: damaged ({what}); run `rigorbench store check {path}` / "
            f"`rigorbench store recover {path} NEW`"
        )


def parse_json(text, kind: type, where: str):
    """``text`` as JSON of type ``kind`` (dict or list); DamagedRow when it is not."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as error:
        raise DamagedRow(f"{where} is not valid JSON: {error}") from None
    if not isinstance(value, kind):
        raise DamagedRow(f"{where} is JSON but not a {'list' if kind is list else 'JSON object'}")
    return value


def quick_check(conn: sqlite3.Connection, *, full: bool = False, limit: int = 20) -> list[str]:
    """SQLite's own problems with the file (empty when sound); ``full`` runs integrity_check.
    A PostgreSQL server checks its own pages: nothing to ask it here."""
    if not isinstance(conn, sqlite3.Connection):
        return []
    pragma = "integrity_check" if full else "quick_check"
    try:
        lines = [row[0] for row in conn.execute(f"PRAGMA {pragma}({int(limit)})")]
    except sqlite3.DatabaseError as error:
        # Looking past the first problem can stop at a page SQLite cannot read at all;
        # the first problem alone still says which page is bad.
        try:
            lines = [row[0] for row in conn.execute(f"PRAGMA {pragma}(1)")] if limit > 1 else []
        except sqlite3.DatabaseError:
            lines = []
        if not lines or lines == ["ok"]:
            return [str(error)]
        lines.append(str(error))
    if lines == ["ok"]:
        return []
    parts = (line.strip() for entry in lines for line in str(entry).splitlines())
    return [" ".join(part.split()) for part in parts if part and not part.startswith("*** in database")]


def diagnose(path: str, conn: sqlite3.Connection, error: Exception) -> StoreDamaged:
    """The one-line diagnosis of a failed read: SQLite's check first, then the error."""
    if isinstance(error, DamagedRow):
        return StoreDamaged(path, error.where)
    problems = quick_check(conn)
    if problems and problems[0] != str(error):
        return StoreDamaged(path, f"{error}: {problems[0]}")
    return StoreDamaged(path, str(error))


def is_not_a_database(error: sqlite3.Error) -> bool:
    """SQLite says the file is not a database at all (rather than a damaged one)."""
    name = getattr(error, "sqlite_errorname", "")
    return name == "SQLITE_NOTADB" or "file is not a database" in str(error)


def check_numbers(where: str, **values) -> None:
    """Each value must be a number (``int`` for names starting ``n_``), or None where the name
    ends in ``_or_none``; DamagedRow naming the first that is not."""
    for name, value in values.items():
        if value is None and name.endswith("_or_none"):
            continue
        kind = int if name.startswith("n_") else (int, float)
        if isinstance(value, bool) or not isinstance(value, kind):
            column = name.removeprefix("n_").removesuffix("_or_none")
            raise DamagedRow(f"{where}: its {column} is {value!r}, not a number")
