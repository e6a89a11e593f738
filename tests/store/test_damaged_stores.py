"""Damaged and unusual store files: every command that reads one says what is wrong in one
line (exit 2), never a traceback, never silence.

Each store is a real one made by the code (storedata), then damaged the way a disk, a bad
copy or a hand edit would: a page overwritten, a table dropped, a column edited."""

from __future__ import annotations

import io
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from storedata import record, schedule, write_store

from rigorbench.cli import main
from rigorbench.store import ResultStore

DAMAGED_HINT = "run `rigorbench store check"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A sound store with one full run (6 trials), made once and copied by each test."""
    path = tmp_path_factory.mktemp("pristine") / "results.db"
    write_store(path)
    return path


@pytest.fixture
def copy(pristine, tmp_path):
    path = tmp_path / "results.db"
    shutil.copyfile(pristine, path)
    return path


def edit(path, *statements) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
    finally:
        conn.close()


def corrupt_pages(path) -> None:
    """Overwrite the middle of the file (b-tree pages of the samples) with junk."""
    size = os.path.getsize(path)
    with open(path, "r+b") as handle:
        handle.seek(size // 2)
        handle.write(b"\xde\xad\xbe\xef" * 2048)


READERS = {
    "runs": lambda db, out: ["runs", "--store", db],
    "compare": lambda db, out: ["compare", "--store", db, "--baseline", "base", "--contender", "contender", "--resamples", "200"],
    "analyze": lambda db, out: ["analyze", "--store", db, "--version", "base", "--resamples", "200"],
    "report": lambda db, out: ["report", "--store", db, "--resamples", "200", "--html", str(out / "r.html")],
    "export": lambda db, out: ["export", "--store", db, "--format", "jmh-json", "--output-dir", str(out / "export")],
}


def run_cli(argv) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def one_error_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("rigorbench: error: "), stderr
    return lines[0]


DAMAGES = {
    "corrupted-page": (corrupt_pages, "damaged ("),
    "dropped-samples": (lambda p: edit(p, "DROP TABLE samples"), "damaged (no such table: samples"),
    "dropped-runs": (lambda p: edit(p, "DROP TABLE executions"), "damaged (no such table: executions"),
    "bad-settings-json": (lambda p: edit(p, "UPDATE runs SET settings = '{\"run\": '"), "damaged (run 1: its settings is not valid JSON"),
    "bad-environment-json": (
        lambda p: edit(p, "UPDATE executions SET environment = 'not json' WHERE label = 'base' AND trial = 1"),
        "damaged (run 1: trial 2 of version 'base': its environment is not valid JSON",
    ),
    "bad-params-json": (lambda p: edit(p, "UPDATE cases SET params = '[[\"size\"'"), "damaged (benchmark case 1: its params is not valid JSON"),
    "text-as-value": (
        lambda p: edit(p, "UPDATE samples SET value = 'fast' WHERE rowid = 3"),
        "damaged (run 1: a sample of version 'base' cannot be read",
    ),
    "text-as-wall-time": (lambda p: edit(p, "UPDATE runs SET wall_seconds = 'long'"), "damaged (run 1: its wall_seconds is 'long', not a number"),
    "text-as-trial-seconds": (
        lambda p: edit(p, "UPDATE executions SET harness_seconds = 'x' WHERE position = 4"),
        "damaged (run 1: trial 3 of version 'base': its harness_seconds is 'x', not a number",
    ),
}


@pytest.mark.parametrize("command", ["runs", "compare", "analyze", "report", "export"])
@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_store_is_one_line_and_exit_2(copy, tmp_path, command, damage):
    spoil, expected = DAMAGES[damage]
    spoil(copy)
    code, _, stderr = run_cli(READERS[command](str(copy), tmp_path))
    unread = {
        "runs": ("dropped-samples", "bad-environment-json", "bad-params-json", "text-as-value", "text-as-trial-seconds"),
        "export": ("text-as-trial-seconds",),
    }
    if damage in unread.get(command, ()) or (damage == "bad-environment-json" and command == "export"):
        # a column the command does not read: what it shows is sound (runs still checks the pages)
        assert code == 0 and stderr == ""
        return
    assert code == 2, stderr
    line = one_error_line(stderr)
    assert f"{copy}: {expected}" in line
    assert DAMAGED_HINT in line and "rigorbench store recover" in line


def test_the_pristine_store_reads_cleanly_with_every_command(copy, tmp_path):
    for command, argv in READERS.items():
        code, _, stderr = run_cli(argv(str(copy), tmp_path))
        assert code == 0, (command, stderr)


@pytest.mark.parametrize("command", list(READERS))
def test_a_zero_length_or_non_sqlite_file_is_one_line(tmp_path, command):
    empty, text = tmp_path / "empty.db", tmp_path / "text.db"
    empty.write_bytes(b"")
    text.write_text("benchmark,score\n")
    for path, expected in ((empty, "no results store here"), (text, "not a rigorbench results store")):
        code, _, stderr = run_cli(READERS[command](str(path), tmp_path))
        assert code == 2
        assert expected in one_error_line(stderr)
    assert empty.read_bytes() == b""


@pytest.mark.parametrize("command", list(READERS))
def test_a_newer_or_older_schema_is_named(copy, tmp_path, command):
    edit(copy, "UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    code, _, stderr = run_cli(READERS[command](str(copy), tmp_path))
    assert code == 2 and "written by a newer rigorbench (schema 7" in one_error_line(stderr)
    edit(copy, "UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    code, _, stderr = run_cli(READERS[command](str(copy), tmp_path))
    assert code == 2 and "older schema (0" in one_error_line(stderr)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
@pytest.mark.parametrize("command", list(READERS))
def test_a_fifo_as_store_is_refused_without_reading_it(tmp_path, command):
    fifo = tmp_path / "results.db"
    os.mkfifo(fifo)
    code, _, stderr = run_cli(READERS[command](str(fifo), tmp_path))  # would block forever if opened
    assert code == 2 and "is not a regular file" in one_error_line(stderr)


def test_writing_to_a_damaged_store_is_refused_when_opened(copy):
    corrupt_pages(copy)
    before = copy.read_bytes()
    with pytest.raises(Exception) as error:
        ResultStore.open(copy, create=False)
    assert "damaged (" in str(error.value) and DAMAGED_HINT in str(error.value)
    assert copy.read_bytes() == before


@pytest.mark.parametrize("command", list(READERS))
def test_reading_commands_never_write_the_store(copy, tmp_path, command):
    before = (copy.read_bytes(), copy.stat().st_mtime_ns)
    code, _, stderr = run_cli(READERS[command](str(copy), tmp_path / "out"))
    assert code == 0, stderr
    assert (copy.read_bytes(), copy.stat().st_mtime_ns) == before
    wal = copy.with_name(copy.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0  # SQLite's reader files at most, nothing written


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root ignores file permissions")
@pytest.mark.parametrize("command", list(READERS))
def test_a_read_only_store_and_folder_are_readable(copy, tmp_path, command):
    folder = copy.parent
    copy.chmod(0o444)
    try:
        code, _, stderr = run_cli(READERS[command](str(copy), tmp_path / "out"))
        assert code == 0, stderr
        folder.chmod(0o555)
        out = tmp_path.parent / f"{tmp_path.name}-out"
        code, _, stderr = run_cli(READERS[command](str(copy), out))
        assert code == 0, stderr
    finally:
        folder.chmod(0o755)
        copy.chmod(0o644)


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root ignores file permissions")
def test_writing_to_a_read_only_store_says_so(copy):
    copy.chmod(0o444)
    try:
        with pytest.raises(Exception, match="results store is read-only"):
            ResultStore.open(copy, create=False)
    finally:
        copy.chmod(0o644)


def test_a_store_opened_for_reading_refuses_to_write(copy):
    with ResultStore.read(copy) as store, pytest.raises(Exception, match="opened read-only"):
        record(store, 1, schedule()[0])


def run_as_nobody(argv) -> tuple[int, str]:
    """Run the CLI in a forked child that dropped root (uid/gid 65534), so that file
    permissions apply even when the tests run as root. Modules are already loaded."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code, err = 99, ""
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            code, _, err = run_cli(argv)
        except BaseException as error:  # noqa: BLE001 - reported to the parent
            err = repr(error)
        finally:
            os.write(write, f"{code}\n{err}".encode())
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    code, _, err = text.partition("\n")
    return int(code), err


@pytest.mark.skipif(not hasattr(os, "fork") or os.geteuid() != 0, reason="needs root to drop to another user (the chmod tests above run as non-root)")
@pytest.mark.parametrize("command", ["runs", "compare", "analyze"])
def test_a_store_in_a_read_only_folder_is_readable_by_another_user(pristine, command):
    import tempfile

    top = tempfile.mkdtemp(prefix="rigorbench-ro-")  # under /tmp, which every user can enter
    folder = os.path.join(top, "store")
    os.mkdir(folder)
    store = os.path.join(folder, "results.db")
    shutil.copyfile(pristine, store)
    os.chmod(store, 0o444)
    os.chmod(folder, 0o555)
    os.chmod(top, 0o755)
    try:
        argv = READERS[command](store, Path(top) / "out")
        code, _, stderr = run_cli(argv)  # as root first: loads every module the command needs
        assert code == 0, stderr
        code, stderr = run_as_nobody(argv[:-2] if command == "report" else argv)
        assert code == 0, stderr
        code, stderr = run_as_nobody(["store", "check", store])
        assert code == 0, stderr
        code, stderr = run_as_nobody(["store", "recover", store, os.path.join(folder, "new.db")])
        assert code == 2 and "cannot" in stderr, stderr
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(top)


@pytest.mark.skipif(not hasattr(os, "fork") or os.geteuid() != 0, reason="needs root to drop to another user")
def test_a_write_ahead_log_left_in_a_read_only_folder(pristine):
    """An empty log left behind is harmless (read immutable); one holding results is refused,
    since an immutable read would silently show the store without them."""
    import tempfile

    top = tempfile.mkdtemp(prefix="rigorbench-wal-")
    folder = os.path.join(top, "store")
    os.mkdir(folder)
    store = os.path.join(folder, "results.db")
    writer_copy = os.path.join(top, "writer.db")
    shutil.copyfile(pristine, writer_copy)
    writer = sqlite3.connect(writer_copy, isolation_level=None)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("UPDATE runs SET status = 'finished'")  # committed, only in the log
    shutil.copyfile(writer_copy, store)
    os.chmod(top, 0o755)
    try:
        for log, expected in ((b"", 0), (open(writer_copy + "-wal", "rb").read(), 2)):
            os.chmod(folder, 0o755)
            with open(store + "-wal", "wb") as handle:
                handle.write(log)
            os.chmod(folder, 0o555)
            code, stderr = run_as_nobody(["runs", "--store", store])
            assert code == expected, stderr
            if expected:
                assert "write-ahead log (results.db-wal) holds results not yet in the store" in stderr
    finally:
        writer.close()
        os.chmod(folder, 0o755)
        shutil.rmtree(top)


@pytest.mark.skipif(not hasattr(os, "fork") or os.geteuid() != 0, reason="needs root to drop to another user")
def test_ab_on_a_store_it_may_not_write_says_read_only_before_running(pristine, fake, tmp_path):
    """(The fake harness stands in for JMH should ab get past the store; it must not.)"""
    import tempfile

    top = tempfile.mkdtemp(prefix="rigorbench-ab-")
    for label in ("v1", "v2"):
        os.makedirs(os.path.join(top, "proj", label))
    store = os.path.join(top, "results.db")
    shutil.copyfile(pristine, store)
    os.chmod(store, 0o444)
    os.chmod(top, 0o777)  # the folder is writable: only the file is read-only
    try:
        before = Path(store).read_bytes()
        code, stderr = run_as_nobody(["ab", os.path.join(top, "proj"), "--base", "v1", "--contender", "v2",
                                      "--trials", "2", "--store", store, "--no-lint"])
        assert code == 2, stderr
        assert f"{store}: the results store is read-only; nothing can be stored in it" in stderr.splitlines()[-1]
        assert Path(store).read_bytes() == before
    finally:
        shutil.rmtree(top)
