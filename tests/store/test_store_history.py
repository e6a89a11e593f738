"""History points in the store (schema 2): stored and read back, refused twice, the migration
of a real schema-1 store, check and recover."""

from __future__ import annotations

import io
import sqlite3

import pytest
from storedata import ADD, ALLOC, TIME, new_run, record, schedule, write_store

from rigorbench.analysis.dataset import dataset_from_store
from rigorbench.analysis.history_points import PointOrigin, add_run_points, points_of, record_notes, recorded_origin
from rigorbench.cli import main
from rigorbench.errors import UserError
from rigorbench.store import ResultStore, schema
from rigorbench.store.api import HistoryPoint
from rigorbench.store.check import check_store, recover_store


def point(commit: str, mean: float, *, time: str = "2026-11-01T10:00:00+00:00", machine: str = "box",
          case=ADD, metric=TIME, **extra) -> HistoryPoint:
    return HistoryPoint(case=case, metric=metric, branch="main", machine=machine, commit=commit, time=time,
                        source="test", n=6, mean=mean, ci_low=mean - 1, ci_high=mean + 1, confidence=0.95, **extra)


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def store(backend_store):
    return backend_store


def test_points_come_back_as_stored_with_their_machine_facts(store):
    stored = [point("c1", 100.0, machine_facts={"cpu_model": "Xeon"}, dirty=True),
              point("c2", 110.0, time="2026-11-02T10:00:00+00:00", machine="other")]
    assert store.add_points(stored) == 2
    got = store.history_points()
    assert [(p.commit, p.mean, p.ci_low, p.ci_high, p.confidence, p.machine, p.dirty) for p in got] == [
        ("c1", 100.0, 99.0, 101.0, 0.95, "box", True), ("c2", 110.0, 109.0, 111.0, 0.95, "other", None)]
    assert got[0].case == ADD and got[0].metric == TIME and got[0].machine_facts == {"cpu_model": "Xeon"}
    assert all(p.added for p in got)


def test_a_point_stored_twice_is_refused_and_nothing_of_the_batch_is_added(store):
    store.add_points([point("c1", 100.0)])
    with pytest.raises(UserError, match=r"org\.example\.Bench\.add\{kind=a,b,size=10\} time at commit c1 from test is already in the history; nothing was added"):
        store.add_points([point("c2", 90.0), point("c1", 100.0)])
    assert [p.commit for p in store.history_points()] == ["c1"]


def test_a_dry_run_checks_and_stores_nothing(store):
    assert store.add_points([point("c1", 100.0)], dry_run=True) == 1
    assert store.history_points() == []


def test_points_of_a_stored_run_carry_a_95_percent_bootstrap_ci(store, full_run):
    data = dataset_from_store(store, full_run, "base")
    origin = PointOrigin("a" * 40, "2026-11-01T10:00:00+00:00", "main", False)
    points = points_of(data, origin, "run 1 (base)", run_id=full_run, label="base")
    by_metric = {(p.case.name, p.metric.name): p for p in points}
    add = by_metric[(ADD.name, "time")]
    assert add.n == 3 * 2 * 3 and add.confidence == 0.95  # trials x forks x measurement iterations
    assert add.ci_low < add.mean < add.ci_high and add.run_id == full_run and add.label == "base"
    assert by_metric[(ADD.name, ALLOC.name)].mean == 24.0
    assert add.machine == "Linux"  # the recorded environment holds only the OS
    store.add_points(points)
    assert len(store.history_points()) == len(points)


def test_a_run_adds_its_points_once_however_often_it_is_completed(store, full_run):
    origin = PointOrigin("b" * 40, "2026-11-01T10:00:00+00:00", "main", False)
    points, added = add_run_points(store, full_run, "base", origin)
    assert added and points and all(p.run_id == full_run and p.label == "base" for p in points)
    # Again (a resumed run completing a second time, or on another branch): nothing more.
    again, added = add_run_points(store, full_run, "base", PointOrigin(origin.commit, origin.time, "dev", False))
    assert not added and len(again) == len(points)
    assert len(store.history_points()) == len(points)
    # The run's other version is another series of points: it may still be added.
    other, added = add_run_points(store, full_run, "contender", PointOrigin("c" * 40, origin.time, "main", False))
    assert added and len(store.history_points()) == len(points) + len(other)


def test_a_record_runs_notes_give_back_its_origin():
    origin = PointOrigin("d" * 40, "2026-11-01T10:00:00+00:00", "main", True, "big box")
    assert recorded_origin(record_notes(origin, "ddd"), "run 1") == (origin, "ddd")
    with pytest.raises(UserError, match="run 2: not a run of 'rigorbench record'"):
        recorded_origin({"trials": 3}, "run 2")
    with pytest.raises(UserError, match="not a run of 'rigorbench record'"):
        recorded_origin({"command": "record", "history": {"commit": 1}}, "run 3")


def schema_1_store(path, monkeypatch) -> None:
    """A store written by the schema-1 code path (before history, its statements stored with
    their comments as that code did), with two runs."""
    with monkeypatch.context() as patch:
        patch.setattr(schema, "MIGRATIONS", {1: schema.MIGRATIONS[1]})
        patch.setattr(schema, "_compact", lambda statement: statement)
        write_store(path, runs=2)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("1",)
    assert "history_points" not in {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "-- UTC, ISO 8601" in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'runs'").fetchone()[0]
    conn.close()


def test_a_schema_1_store_stays_readable_and_is_not_written_by_readers(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    schema_1_store(path, monkeypatch)
    before = path.read_bytes()
    with ResultStore.read(path) as store:
        assert store.schema == 1 and store.history_points() == [] and len(store.list_runs()) == 2
    code, out, err = cli("compare", "--store", path, "--baseline", "base", "--contender", "contender", "--resamples", "200")
    assert code == 0 and "Bench.add{kind=a,b,size=10}" in out, err
    code, out, err = cli("analyze", "--store", path, "--version", "base", "--resamples", "200")
    assert code == 0 and "Bench.add" in out, err
    code, out, err = cli("runs", "--store", path)
    assert code == 0 and out.count("finished") + out.count("running") == 2, err
    code, out, err = cli("history", "list", "--store", path)
    assert code == 0 and "0 series, 0 of 0 points" in out, err
    assert cli("store", "check", path)[1] == f"{path}: schema 1, 2 runs, 528 samples: sound\n"
    assert path.read_bytes() == before


def test_a_writer_migrates_a_schema_1_store_to_2_and_keeps_its_runs(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    schema_1_store(path, monkeypatch)
    with ResultStore.read(path) as store:
        runs_before = [(info.run_id, counts) for info, counts in store.list_runs()]
    with ResultStore.open(path, create=False) as store:
        assert store.schema == 2
        store.add_points([point("c1", 100.0)])
        assert [(info.run_id, counts) for info, counts in store.list_runs()] == runs_before
    conn = sqlite3.connect(path)
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    conn.close()
    assert meta["schema_version"] == "2" and "migrated_by" in meta
    assert check_store(str(path)).sound


def test_check_names_damaged_history_rows(store_path):
    with ResultStore.open(store_path) as store:
        store.add_points([point("c1", 100.0)])
    conn = sqlite3.connect(store_path)
    conn.execute("UPDATE history_points SET mean = 'fast'")
    conn.execute("UPDATE machines SET facts = '{broken'")
    conn.commit()
    conn.close()
    problems = check_store(str(store_path)).problems
    assert any(p.startswith("machine kind 'box': its facts") for p in problems), problems
    assert any("history points whose count, mean or interval is not a number" in p for p in problems)


def test_recover_copies_the_history_and_keeps_points_of_a_lost_run(store_path, tmp_path):
    with ResultStore.open(store_path) as store:
        kept, lost = new_run(store), new_run(store)
        for execution in schedule():
            record(store, kept, execution)
            record(store, lost, execution)
        store.add_points([point("c1", 100.0, run_id=kept, label="base"), point("c2", 90.0, run_id=lost, label="base")])
    conn = sqlite3.connect(store_path)
    conn.execute("UPDATE runs SET settings = 'not json' WHERE id = ?", (lost,))
    conn.commit()
    conn.close()
    new = tmp_path / "recovered.db"
    recovery = recover_store(str(store_path), str(new))
    assert recovery.recovered == (kept,) and [r for r, _ in recovery.lost] == [lost] and recovery.points == 2
    with ResultStore.read(new) as store:
        got = {p.commit: (p.run_id, p.label, p.mean) for p in store.history_points()}
    assert got == {"c1": (kept, "base", 100.0), "c2": (None, None, 90.0)}
    code, out, _ = cli("store", "recover", store_path, tmp_path / "again.db")
    assert code == 1 and "history: 2 points copied" in out
