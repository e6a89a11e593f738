"""Nothing stored twice, nothing lost: duplicates, killed writers, locks, hostile text, volume."""

from __future__ import annotations

import os
import sqlite3
import threading
import time

import numpy as np
import pytest
from storedata import ADD, TIME, new_run, record, schedule, trial_series

from rigorbench.errors import UserError
from rigorbench.model import BenchmarkCase, Metric, SampleTable, Series
from rigorbench.store import Execution, ResultStore, TrialRecord, VersionInfo
from rigorbench.store import samples as samples_module
from rigorbench.store import results as results_module


def snapshot(path) -> dict:
    """Row counts of every table, read with a separate connection."""
    conn = sqlite3.connect(path)
    try:
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in tables}
    finally:
        conn.close()


def test_a_trial_is_never_stored_twice(store, store_path):
    run_id = new_run(store)
    first = schedule()[0]
    record(store, run_id, first)
    before = snapshot(store_path)
    series_before = store.load_series(run_id, first.label)
    with pytest.raises(UserError, match="trial 1 of version 'base' is already stored in run 1"):
        record(store, run_id, first)
    with pytest.raises(UserError, match="already stored"):  # same pair at another position: still refused
        record(store, run_id, Execution(first.trial, first.label, 5), status="failed", series=[])
    assert snapshot(store_path) == before
    series_after = store.load_series(run_id, first.label)
    assert len(series_after) == len(series_before)
    for a, b in zip(series_after, series_before):
        np.testing.assert_array_equal(a.samples.value, b.samples.value)
    assert len(store.executions(run_id)) == 1


def test_an_uncommitted_execution_of_another_connection_is_lost_alone(store, store_path):
    run_id = new_run(store)
    plan = schedule()
    record(store, run_id, plan[0])
    before = snapshot(store_path)
    other = sqlite3.connect(store_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    execution_id = other.execute(
        "INSERT INTO executions (run_id, trial, label, position, status, started, ended, harness_seconds, "
        "environment, failures, output_tail, message, samples) VALUES (?, 0, 'contender', 1, 'done', '', '', 1, "
        "'{}', '[]', '', '', 1)",
        (run_id,),
    ).lastrowid
    other.execute(
        "INSERT INTO samples (execution_id, case_id, metric_id, instance, fork, iteration, warmup, value, count) "
        "VALUES (?, 1, 1, 0, 0, 0, 0, 1.0, 1)",
        (execution_id,),
    )
    other.close()  # the "crash": closed without COMMIT
    assert snapshot(store_path) == before
    assert store.finished(run_id) == {(0, "base")}
    record(store, run_id, plan[1])  # the lost execution can be run again
    assert store.finished(run_id) == {(0, "base"), (0, "contender")}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_writer_killed_inside_record_execution_loses_only_that_execution(store_path, monkeypatch):
    with ResultStore.open(store_path) as store:
        run_id = new_run(store)
        plan = schedule()
        record(store, run_id, plan[0])
    before = snapshot(store_path)

    def insert_then_die(conn, execution_id, series):
        inserted = original(conn, execution_id, series)
        assert conn.in_transaction and inserted > 0
        os._exit(0)  # as kill -9: no rollback, no close, no atexit

    original = samples_module.insert_series
    pid = os.fork()
    if pid == 0:  # child: its own connection, killed with the samples written but not committed
        try:
            monkeypatch.setattr(samples_module, "insert_series", insert_then_die)
            with ResultStore.open(store_path, create=False) as child_store:
                record(child_store, run_id, plan[1])
        finally:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0, "the child did not reach the kill point"
    assert snapshot(store_path) == before
    with ResultStore.open(store_path, create=False) as store:
        assert store.finished(run_id) == {(plan[0].trial, plan[0].label)}
        assert len(store.load_series(run_id, plan[0].label)) == 4
        assert store.load_series(run_id, plan[1].label) == []
        record(store, run_id, plan[1])
        assert len(store.finished(run_id)) == 2


def test_a_locked_store_is_waited_for(store, store_path):
    run_id = new_run(store)
    holder = sqlite3.connect(store_path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.5, lambda: holder.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    try:
        record(store, run_id, schedule()[0])
    finally:
        release.join()
        holder.close()
    assert time.monotonic() - started >= 0.4
    assert store.finished(run_id) == {(0, "base")}


def test_a_store_locked_for_too_long_is_a_user_error(store_path, monkeypatch):
    with ResultStore.open(store_path) as store:
        run_id = new_run(store)
    monkeypatch.setattr(results_module, "BUSY_TIMEOUT_S", 0.2)
    writer = ResultStore.open(store_path, create=False)
    holder = sqlite3.connect(store_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with ResultStore.read(store_path) as store:  # reading does not wait for the writer
            assert store.run(run_id).run_id == run_id
        with writer, pytest.raises(UserError, match="locked by another process"):
            record(writer, run_id, schedule()[0])
        with pytest.raises(UserError, match="locked by another process"):  # opening to write checks it can
            ResultStore.open(store_path, create=False)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with ResultStore.open(store_path, create=False) as store:
        assert store.finished(run_id) == set()


HOSTILE = [
    "x'); DROP TABLE samples; --",
    'quote " and \' both',
    "semi;colon, comma=equals",
    "Robert'); DELETE FROM runs WHERE ('1'='1",
    "ünïcødé ☃ \u00b7gc.alloc",
    "new\nline\ttab",
    "%s %d {} ?",
]


def test_hostile_text_round_trips_unchanged(store, store_path):
    label = HOSTILE[0]
    versions = [VersionInfo(label, HOSTILE[1], HOSTILE[2], None), VersionInfo(HOSTILE[3], "src", None, None)]
    run_id = store.create_run(
        harness="jmh", project=HOSTILE[4], order="rmit", seed=1, settings={"note": HOSTILE[5]},
        versions=versions, schedule=[Execution(0, label, 0), Execution(0, HOSTILE[3], 1)], tool_version=HOSTILE[6],
    )
    cases = [BenchmarkCase.of("jmh" + text, text, {text: text, "p": text}) for text in HOSTILE]
    series = [
        Series(case, Metric(text, text, False, True), SampleTable.build([float(i)]))
        for i, (case, text) in enumerate(zip(cases, HOSTILE))
    ]
    store.record_execution(run_id, Execution(0, label, 0), TrialRecord(
        status="failed", started=HOSTILE[1], ended=HOSTILE[2], harness_seconds=1.0,
        series=series, environment={text: text for text in HOSTILE}, failures=HOSTILE, output_tail=HOSTILE[3],
        message=HOSTILE[0],
    ))
    assert {"samples", "runs", "cases", "metrics"} <= set(snapshot(store_path))
    info = store.latest_run([label, HOSTILE[3]])
    assert info.run_id == run_id and info.project == HOSTILE[4] and info.tool_version == HOSTILE[6]
    assert info.versions == tuple(versions) and info.settings == {"note": HOSTILE[5]}
    got = store.load_series(run_id, label)
    assert [(s.case, s.metric) for s in got] == [(s.case, s.metric) for s in series]
    assert [s.samples.value.tolist() for s in got] == [[float(i)] for i in range(len(HOSTILE))]
    (execution,) = store.executions(run_id)
    assert execution.failures == tuple(HOSTILE)
    assert (execution.output_tail, execution.message) == (HOSTILE[3], HOSTILE[0])
    assert store.environments(run_id, label) == [{text: text for text in HOSTILE}]
    assert store.finished(run_id) == {(0, label)}


def test_a_hundred_thousand_samples(store):
    run_id = new_run(store, labels=["big"])
    n = 100_000
    rng = np.random.default_rng(7)
    table = SampleTable.build(
        rng.lognormal(3, 0.2, n), fork=np.arange(n) // 10_000, iteration=np.arange(n) % 10_000,
        warmup=(np.arange(n) % 10_000) < 100, count=rng.integers(1, 5, n).astype(float),
    )
    record(store, run_id, Execution(0, "big", 0), series=[Series(ADD, TIME, table)])
    ((_, counts),) = store.list_runs()
    assert counts["samples"] == n
    (got,) = store.load_series(run_id, "big")
    np.testing.assert_array_equal(got.samples.value, table.value)
    np.testing.assert_array_equal(got.samples.count, table.count)
    np.testing.assert_array_equal(got.samples.warmup, table.warmup)


def test_trial_series_helper_is_what_the_store_tests_assume():
    assert [len(s.samples) for s in trial_series("base", 0)] == [10, 10, 18, 6]
