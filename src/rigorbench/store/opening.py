"""Opening a results store file: refuse early what SQLite would hang on or misreport, and
connect read-only when only reading.

A read-only connection uses SQLite's ``mode=ro`` URI, so a command that only reads never
writes the file, and a store the user may not write (chmod 444) is still readable. A store
whose write-ahead log is left in a folder the user may not write cannot get its
shared-memory file: with an empty log it is opened ``immutable=1`` (nobody can be writing
it there); a log that still holds results is refused, since an immutable read ignores it.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from rigorbench.errors import UserError

SQLITE_MAGIC = b"SQLite format 3\x00"


def check_file(path: str, create: bool) -> None:
    """Refuse a missing store (unless ``create``), a folder, a FIFO or device, or a non-SQLite
    file, with one line each."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if not create:
            raise UserError(f"{path}: no results store here (nothing has been stored yet)") from None
        _make_folder(path)
        return
    except OSError as error:
        raise UserError(f"{path}: cannot read the results store: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        raise UserError(f"{path}: is a directory, not a results store")
    if not stat.S_ISREG(info.st_mode):
        raise UserError(f"{path}: is not a regular file (a FIFO, socket or device), not a results store")
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as error:
        raise UserError(f"{path}: cannot read the results store: {error.strerror or error}") from None
    if head and head != SQLITE_MAGIC:
        raise UserError(f"{path}: not a rigorbench results store")


def _make_folder(path: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        raise UserError(f"{path}: cannot create the results store's folder: {error.strerror or error}") from None


def connect(path: str, read_only: bool, timeout_s: float) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit); read-only when asked."""
    try:
        if not read_only:
            return sqlite3.connect(path, timeout=timeout_s, isolation_level=None)
        uri = Path(path).absolute().as_uri()
        conn = sqlite3.connect(f"{uri}?mode=ro", timeout=timeout_s, isolation_level=None, uri=True)
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as error:
            if "unable to open" not in str(error):
                return conn  # not a database, or damaged: diagnosed when the schema is read
            conn.close()
            _check_no_pending_log(path)
            conn = sqlite3.connect(f"{uri}?mode=ro&immutable=1", timeout=timeout_s, isolation_level=None, uri=True)
        return conn
    except sqlite3.Error as error:
        raise UserError(f"{path}: cannot open the results store: {error}") from None


def _check_no_pending_log(path: str) -> None:
    """An immutable read ignores the write-ahead log: refuse rather than show a store without
    the trials its log still holds."""
    try:
        pending = os.path.getsize(f"{path}-wal") > 0
    except OSError:
        return
    if pending:
        raise UserError(
            f"{path}: its write-ahead log ({os.path.basename(path)}-wal) holds results not yet in the store, "
            "and the folder is read-only; copy both files to a folder you can write, or open it once where it can be written"
        )
