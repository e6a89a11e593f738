"""``rigorbench store check|recover`` on real stores, damaged the way disks and hand edits do."""

from __future__ import annotations

import io
import shutil
import sqlite3

import pytest
from storedata import write_store
from test_damaged_stores import corrupt_pages, edit

from rigorbench.cli import main
from rigorbench.store import ResultStore


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory):
    """A sound store with three full runs, made once and copied by each test."""
    path = tmp_path_factory.mktemp("three") / "results.db"
    write_store(path, runs=3)
    return path


@pytest.fixture
def db(three_runs, tmp_path):
    path = tmp_path / "results.db"
    shutil.copyfile(three_runs, path)
    return path


def cli(*argv) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_a_sound_store_checks_sound(db):
    for extra in ([], ["--full"]):
        code, out, err = cli("store", "check", db, *extra)
        assert (code, err) == (0, "")
        assert out == f"{db}: schema 2, 3 runs, 792 samples: sound\n"


@pytest.mark.parametrize(
    "spoil, problem",
    [
        (lambda p: edit(p, "UPDATE runs SET settings = 'nope' WHERE id = 2"), "run 2: its settings is not valid JSON"),
        (lambda p: edit(p, "UPDATE executions SET failures = '{}' WHERE run_id = 1 AND trial = 0 AND label = 'base'"),
         "run 1: trial 1 of version 'base': its failures is JSON but not a list"),
        (lambda p: edit(p, "UPDATE samples SET value = 'slow' WHERE rowid = 700"), "run 3: 1 samples whose value"),
        (lambda p: edit(p, "DELETE FROM executions WHERE id = 1"), "44 samples of no stored execution"),
        (lambda p: edit(p, "DROP TABLE metrics"), "table metrics is missing"),
        (lambda p: edit(p, "UPDATE meta SET value = '0' WHERE key = 'schema_version'"), "schema 0 is older than 1"),
    ],
    ids=["settings-json", "failures-type", "text-value", "orphan-samples", "dropped-table", "old-schema"],
)
def test_check_names_each_problem_and_exits_1(db, spoil, problem):
    spoil(db)
    code, out, err = cli("store", "check", db)
    assert (code, err) == (1, "")
    assert "damaged" in out.splitlines()[0]
    assert problem in out
    assert f"rigorbench store recover {db} NEW" in out


def test_check_finds_a_corrupted_page_with_sqlite(db):
    corrupt_pages(db)
    for extra in ([], ["--full"]):
        code, out, err = cli("store", "check", db, *extra)
        assert (code, err) == (1, "")
        assert "damaged" in out and len(out.splitlines()) >= 3


def test_check_of_what_is_not_a_store_exits_2(tmp_path):
    text = tmp_path / "notes.db"
    text.write_text("hello\n")
    plain = tmp_path / "plain.db"
    sqlite3.connect(plain).execute("CREATE TABLE t (x)").connection.close()
    for path, message in ((text, "not a rigorbench results store"), (plain, "not a rigorbench results store"),
                          (tmp_path / "absent.db", "no results store here"), (tmp_path, "is a directory")):
        code, out, err = cli("store", "check", path)
        assert code == 2 and out == ""
        assert message in err and len(err.splitlines()) == 1


def stored(path) -> dict:
    """What a reader sees of every run: info, executions and samples per version."""
    with ResultStore.read(path) as store:
        result = {}
        for run_id in store.run_ids():
            info = store.run(run_id)
            series = {v.label: [(s.case, s.metric, s.samples.value.tolist(), s.samples.trial.tolist(), s.samples.fork.tolist())
                                for s in store.load_series(run_id, v.label)] for v in info.versions}
            result[run_id] = (info, store.executions(run_id), series)
        return result


def test_recover_copies_every_readable_run_whole_and_names_the_lost(db, tmp_path):
    before = stored(db)
    edit(db, "UPDATE runs SET settings = '{\"run\": ' WHERE id = 2")
    new = tmp_path / "recovered.db"
    code, out, err = cli("store", "recover", db, new)
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == f"{new}: recovered 2 runs (1, 3), lost 1"
    assert out.splitlines()[1].startswith("  run 2 lost: its settings is not valid JSON")
    after = stored(new)
    assert sorted(after) == [1, 3]
    for run_id in (1, 3):
        assert after[run_id] == before[run_id]  # info (status, times, created), executions, samples
    assert cli("store", "check", new)[0] == 0


def test_recover_saves_the_runs_a_corrupted_page_spares(db, tmp_path):
    corrupt_pages(db)
    new = tmp_path / "recovered.db"
    code, out, err = cli("store", "recover", db, new)
    assert err == "" and code in (0, 1)
    first = out.splitlines()[0]
    assert first.startswith(f"{new}: recovered ")
    lost = [line for line in out.splitlines()[1:] if "lost:" in line]
    assert code == (1 if lost else 0)
    assert cli("store", "check", new)[0] == 0  # what was copied is sound
    assert len(stored(new)) + len(lost) == 3


def last_page_of(path, table: str) -> int | None:
    """The last leaf page of ``table`` (SQLite's dbstat), None when SQLite lacks dbstat."""
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT MAX(pageno) FROM dbstat WHERE name = ? AND pagetype = 'leaf'", (table,)).fetchone()
    except sqlite3.OperationalError:
        return None
    finally:
        conn.close()
    return row[0]


def test_recover_keeps_the_runs_a_corrupted_page_does_not_touch(db, tmp_path):
    page = last_page_of(db, "samples")
    if page is None:
        pytest.skip("this SQLite has no dbstat table to find the page of the last run's samples")
    before = stored(db)
    with open(db, "r+b") as handle:  # the page of run 3's last samples, overwritten
        handle.seek((page - 1) * 4096 + 100)
        handle.write(b"\xff" * 200)
    new = tmp_path / "recovered.db"
    code, out, err = cli("store", "recover", db, new)
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == f"{new}: recovered 2 runs (1, 2), lost 1"
    assert out.splitlines()[1].startswith("  run 3 lost: database disk image is malformed")
    after = stored(new)
    assert after == {1: before[1], 2: before[2]}
    assert cli("compare", "--store", db, "--baseline", "base", "--contender", "contender", "--run", "3")[0] == 2


def test_recover_never_overwrites_and_needs_two_stores(db, tmp_path):
    existing = tmp_path / "existing.db"
    existing.write_bytes(b"keep me")
    code, out, err = cli("store", "recover", db, existing)
    assert code == 2 and "exists; recover writes a new store" in err
    assert existing.read_bytes() == b"keep me"
    assert cli("store", "recover", db)[0] == 2
    assert cli("store", "check", db, existing)[0] == 2
