"""The results store on a real PostgreSQL server (started by the suite, tests/pgserver.py):
concurrent writers, store copy in every direction, store check, and passwords never shown."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from storedata import LABELS, new_run, record, schedule

from rigorbench.cli import main
from rigorbench.errors import UserError
from rigorbench.store import ResultStore
from rigorbench.store.api import HistoryPoint
from rigorbench.store.check import check_store
from rigorbench.store.copy import copy_store
from rigorbench.store.location import masked
from rigorbench.model import BenchmarkCase, Metric

SRC = Path(__file__).resolve().parents[2] / "src"

# One writer: waits for the start signal, creates its run, waits until the other writer's run
# exists, then stores TRIALS trials of two versions, each trial's samples all equal to
# WRITER * 1000 + trial, so that a sample in the wrong run or trial shows.
WRITER = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    from rigorbench.model import BenchmarkCase, Metric, SampleTable, Series
    from rigorbench.store import Execution, ResultStore, TrialRecord, VersionInfo
    url, writer, go, trials = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    open(f"{go}-ready{writer}", "w").close()
    while not os.path.exists(go):
        time.sleep(0.005)
    case, metric = BenchmarkCase("jmh", "demo.Bench.shared"), Metric("time", "ns/op", False, True)
    with ResultStore.open(url) as store:
        plan = [Execution(t, label, 2 * t + i) for t in range(trials) for i, label in enumerate(("a", "b"))]
        run_id = store.create_run(harness="jmh", project=f"writer{writer}", order="rmit", seed=writer,
                                  settings={"trials": trials}, versions=[VersionInfo("a", "a", None, None), VersionInfo("b", "b", None, None)],
                                  schedule=plan, tool_version="test")
        # Second barrier: both runs exist before either stores a trial, and each trial takes a
        # few milliseconds, so the two writers' trials overlap even on a loaded machine.
        open(f"{go}-created{writer}", "w").close()
        while not os.path.exists(f"{go}-created{3 - writer}"):
            time.sleep(0.005)
        for e in plan:
            time.sleep(0.005)
            table = SampleTable.build(np.full(50, writer * 1000.0 + e.trial), fork=np.repeat([0, 1], 25),
                                      iteration=np.tile(np.arange(25), 2))
            store.record_execution(run_id, e, TrialRecord("done", "s", "e", 0.1, [Series(case, metric, table)],
                                                          {"writer": str(writer)}))
        store.finish_run(run_id, status="finished", wall_seconds=1.0, harness_seconds=1.0)
    print(run_id)
""")


def test_two_processes_writing_at_once_lose_nothing_and_never_interleave_a_run(pg_url, tmp_path):
    """Two real processes store a run each into one fresh database at the same moment (both
    also create the tables at once); every trial of both is stored, in its own run."""
    trials, go = 30, tmp_path / "go"
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
    writers = [subprocess.Popen([sys.executable, str(script), pg_url, str(w), str(go), str(trials)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in (1, 2)]
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"go-ready{w}").exists() for w in (1, 2)) and time.monotonic() < deadline:
        time.sleep(0.01)  # until both have imported rigorbench and wait for the signal
    go.touch()
    outputs = [w.communicate(timeout=120) for w in writers]
    assert [w.returncode for w in writers] == [0, 0], [err for _, err in outputs]
    run_of = {w: int(out) for w, (out, _) in zip((1, 2), outputs)}
    assert sorted(run_of.values()) == [1, 2]   # ids from the database, one each
    with ResultStore.read(pg_url) as store:
        for writer, run_id in run_of.items():
            info = store.run(run_id)
            assert info.project == f"writer{writer}" and info.status == "finished"
            assert store.finished(run_id) == {(t, label) for t in range(trials) for label in ("a", "b")}
            for label in ("a", "b"):
                (series,) = store.load_series(run_id, label)
                table = series.samples
                np.testing.assert_array_equal(table.value, writer * 1000.0 + table.trial)
                assert len(table) == 50 * trials
            assert {e["writer"] for e in store.environments(run_id, "a")} == {str(writer)}
        # The two writers did run at once: their trials' ids interleave.
        ids = store._conn.execute("SELECT run_id FROM executions ORDER BY id").fetchall()
    order = [run_id for (run_id,) in ids]
    assert order != sorted(order), "the writers ran one after the other; the test proved nothing"


def full_store(where, runs: int = 2) -> None:
    case, metric = BenchmarkCase("jmh", "demo.Bench.add", (("size", "10"),)), Metric("time", "ns/op", False, True)
    with ResultStore.open(where) as store:
        for _ in range(runs):
            run_id = new_run(store)
            for execution in schedule():
                record(store, run_id, execution)
        store.finish_run(1, status="finished", wall_seconds=3.5, harness_seconds=2.5)
        store.add_points([
            HistoryPoint(case, metric, "main", "x86_64 4 cpus", f"c{i}", f"2026-11-0{i}T00:00:00+00:00", "test",
                         10, 100.0 + i, 99.0 + i, 101.0 + i, 0.99, run_id=1 if i == 1 else None,
                         label="base" if i == 1 else None, machine_facts={"cpus": "4"}, added="2026-11-20T00:00:00+00:00")
            for i in (1, 2, 3)
        ])


def contents(where) -> dict:
    """Everything a store holds, without its run ids (a copy gives new ones)."""
    with ResultStore.read(where) as store:
        runs = []
        for run_id in store.run_ids():
            info = store.run(run_id)
            series = {label: [(s.case, s.metric, {c: getattr(s.samples, c).tolist() for c in s.samples.columns()})
                              for s in store.load_series(run_id, label)] for label in LABELS}
            runs.append((info.__class__(**{**info.__dict__, "run_id": 0}), store.executions(run_id), series,
                         [store.environments(run_id, label) for label in LABELS]))
        points = [(p.run_id, p.__class__(**{**p.__dict__, "run_id": None})) for p in store.history_points()]
    return {"runs": runs, "points": [p for _, p in points], "point_runs": [r is not None for r, _ in points]}


def test_copy_sqlite_to_postgresql_to_sqlite_reads_back_equal(pg_url, tmp_path):
    first, last = tmp_path / "first.db", tmp_path / "last.db"
    full_store(first)
    want = contents(first)
    seen = []
    copied = copy_store(str(first), pg_url, progress=lambda *a: seen.append(a))
    assert copied.runs == {1: 1, 2: 2} and copied.points == 3 and [s[:2] for s in seen] == [(1, 2), (2, 2)]
    assert contents(pg_url) == want
    copy_store(pg_url, str(last))
    assert contents(last) == want


def test_copy_refuses_a_store_with_runs_unless_appended_and_remaps_run_ids(pg_url, tmp_path):
    source = tmp_path / "source.db"
    full_store(source, runs=1)
    with ResultStore.open(pg_url) as store:      # DST holds a run of its own
        new_run(store)
    with pytest.raises(UserError, match=r"rigorbench:\*\*\*@.*already holds 1 runs.*--append"):
        copy_store(str(source), pg_url)
    assert masked(pg_url) != pg_url
    copied = copy_store(str(source), pg_url, append=True)
    assert copied.runs == {1: 2}
    with ResultStore.read(pg_url) as store:
        assert [p.run_id for p in store.history_points()] == [2, None, None]
    with pytest.raises(UserError, match="already in the history; nothing was added"):
        copy_store(str(source), pg_url, append=True)   # the points are there: refused before any run
    with ResultStore.read(pg_url) as store:
        assert store.run_ids() == [1, 2]


def test_sqlite_to_sqlite_copy_and_a_copy_onto_itself(tmp_path):
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    full_store(first, runs=1)
    copy_store(str(first), str(second))
    assert contents(second) == contents(first)
    with pytest.raises(UserError, match="is the store being copied"):
        copy_store(str(first), str(first), append=True)


def test_store_check_on_postgresql_checks_rigorbenchs_own_rows(pg_url):
    full_store(pg_url, runs=1)
    result = check_store(pg_url)
    assert result.sound and result.runs == 1 and result.samples > 0 and result.path == masked(pg_url)
    with ResultStore.open(pg_url) as store:
        store._conn.execute("UPDATE runs SET settings = 'not json' WHERE id = 1")
        # the samples table declares no foreign keys on PostgreSQL (speed): the check finds strays
        store._conn.execute("INSERT INTO samples (execution_id, case_id, metric_id, instance, fork, iteration, "
                            "warmup, value, count) VALUES (999, 1, 1, 0, 0, 0, 0, 1.5, 1)")
    result = check_store(pg_url)
    assert result.problems == ("run 1: its settings is not valid JSON: Expecting value: line 1 column 1 (char 0)",
                               "1 samples of no stored execution")
    out, err = io.StringIO(), io.StringIO()
    assert main(["store", "check", pg_url], out, err) == 1
    assert "damaged, 2 problems" in out.getvalue() and "s3cr3t" not in out.getvalue() + err.getvalue()
    assert "(PostgreSQL: rigorbench's own checks; the server keeps its pages and types)" in out.getvalue()
    assert main(["store", "check", pg_url, "--full"], out, err) == 2 and "a PostgreSQL server checks its own" in err.getvalue()


def test_a_server_that_is_not_there_is_one_masked_line_and_exit_2(pg_server):
    url = f"postgresql://someone:hunter2@127.0.0.1:{pg_server.port}/no_such_db"
    for argv in (["runs", "--store", url], ["compare", "--store", url, "--baseline", "a", "--contender", "b"],
                 ["store", "copy", url, "x.db"]):
        out, err = io.StringIO(), io.StringIO()
        assert main(argv, out, err) == 2
        lines = err.getvalue().splitlines()
        assert len(lines) == 1 and "hunter2" not in err.getvalue(), lines
        assert lines[0].startswith("rigorbench: error: postgresql://someone:***@127.0.0.1:"), lines
        assert ": cannot connect: " in lines[0]


def test_a_run_stored_with_its_own_id_moves_the_servers_next_id_past_it(pg_url):
    with ResultStore.open(pg_url) as store:
        assert new_run(store) == 1
        kept = store.create_run(harness="jmh", project="p", order="rmit", seed=1, settings={},
                                versions=store.run(1).versions, schedule=store.run(1).schedule, tool_version="t", run_id=7)
        assert kept == 7 and new_run(store) == 8 and store.run_ids() == [1, 7, 8]


def test_recover_writes_a_sqlite_file_and_names_store_copy_for_postgresql(tmp_path):
    source = tmp_path / "a.db"
    full_store(source, runs=1)
    out, err = io.StringIO(), io.StringIO()
    assert main(["store", "recover", str(source), "--append"], out, err) == 2 and "--append goes with store copy" in err.getvalue()
    assert main(["store", "recover", str(source), "postgresql://u:pw@h/db"], out, err) == 2
    assert "postgresql://u:***@h/db: recover writes a new SQLite file" in err.getvalue() and ":pw@" not in err.getvalue()


def test_a_password_given_as_store_equals_url_is_masked_in_an_error_too(pg_server):
    url = f"postgresql://someone:hunter2@127.0.0.1:{pg_server.port}/no_such_db"
    out, err = io.StringIO(), io.StringIO()
    assert main(["history", "list", f"--store={url}"], out, err) == 2
    assert "hunter2" not in err.getvalue() and "someone:***@" in err.getvalue()


def test_without_psycopg_a_postgresql_store_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "psycopg", None)   # import psycopg raises ImportError
    out, err = io.StringIO(), io.StringIO()
    assert main(["runs", "--store", "postgres://ci:pw@db.example.org/bench"], out, err) == 2
    assert err.getvalue() == (
        "rigorbench: error: postgres://ci:***@db.example.org/bench: a PostgreSQL results store needs the "
        "'psycopg' package (rigorbench's postgres extra): pip install 'psycopg[binary]>=3.1'\n"
    )


@pytest.mark.parametrize("url, shown", [
    ("postgresql://u:p%40ss@h:5/db", "postgresql://u:***@h:5/db"),
    ("postgresql://u@h/db", "postgresql://u@h/db"),
    ("postgresql:///db?host=/tmp&password=x", "postgresql:///db?host=/tmp&password=***"),
    ("results.db", "results.db"),
])
def test_masked_hides_every_password(url, shown):
    assert masked(url) == shown


def test_a_copy_into_a_new_file_stopped_part_way_leaves_no_store_there(tmp_path, monkeypatch):
    """A Ctrl-C (or any error) during the copy: no partial store at DST (a later command would
    take it for a whole one), no temporary file beside it; a complete copy takes the name."""
    from rigorbench.store import copy as copying

    source, target = tmp_path / "a.db", tmp_path / "new" / "b.db"
    full_store(source, runs=2)
    written = []

    def stopped_at_the_second_run(*args, **kwargs):
        if written:
            raise KeyboardInterrupt
        written.append(copying_write_run(*args, **kwargs))
        return written[-1]

    copying_write_run = copying.write_run
    monkeypatch.setattr(copying, "write_run", stopped_at_the_second_run)
    with pytest.raises(KeyboardInterrupt):
        copy_store(str(source), str(target))
    assert written == [1] and list(target.parent.iterdir()) == []
    monkeypatch.setattr(copying, "write_run", copying_write_run)
    copy_store(str(source), str(target))
    assert [p.name for p in target.parent.iterdir()] == ["b.db"] and contents(target) == contents(source)


def test_a_copy_into_a_folder_that_cannot_be_made_is_one_line(tmp_path):
    source = tmp_path / "a.db"
    full_store(source, runs=1)
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(UserError, match=r"new\.db: cannot create the results store: "):
        copy_store(str(source), str(tmp_path / "file" / "new.db"))
