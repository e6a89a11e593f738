"""The results store on real SQLite files and a real PostgreSQL server: runs, executions,
samples read back exactly, whatever the backend."""

from __future__ import annotations

import numpy as np
import pytest
from storedata import ADD, ALLOC, GC_COUNT, LABELS, SAMPLE, SAMPLE_TIME, TIME, TRIALS, new_run, record, schedule, trial_series

from rigorbench.errors import UserError
from rigorbench.model import SampleTable, Series
from rigorbench.store import DEFAULT_STORE, Execution, ResultStore


@pytest.fixture
def store(backend_store):
    return backend_store


def expected_series(label: str) -> dict:
    """(case, metric) -> the SampleTable the store must give for ``label``: the trials'
    tables in execution order, with trial = the execution's trial."""
    tables: dict = {}
    for execution in schedule():
        if execution.label != label:
            continue
        for one in trial_series(label, execution.trial):
            table = one.samples.with_columns(trial=np.full(len(one.samples), execution.trial))
            tables.setdefault((one.case, one.metric), []).append(table)
    return {key: SampleTable.concat(parts) for key, parts in tables.items()}


def assert_same_table(got: SampleTable, want: SampleTable) -> None:
    for column in SampleTable.columns():
        np.testing.assert_array_equal(getattr(got, column), getattr(want, column), err_msg=column)
        assert getattr(got, column).dtype == getattr(want, column).dtype, column


def test_default_store_path():
    assert DEFAULT_STORE == ".rigorbench/results.db"


def test_open_creates_parent_folders_and_schema(store_path):
    assert not store_path.parent.exists()
    with ResultStore.open(store_path) as store:
        assert store.path == str(store_path)
        assert store.list_runs() == []
        assert store.latest_run() is None
    assert store_path.is_file()


@pytest.mark.parametrize("label", LABELS)
def test_series_read_back_exactly(store, full_run, label):
    got = store.load_series(full_run, label)
    want = expected_series(label)
    assert [(s.case, s.metric) for s in got] == [(ADD, TIME), (ADD, ALLOC), (SAMPLE, SAMPLE_TIME), (SAMPLE, GC_COUNT)]
    for series in got:
        assert series.version is None
        assert_same_table(series.samples, want[(series.case, series.metric)])


def test_levels_warmup_counts_and_params_survive(store, full_run):
    by_key = {(s.case, s.metric): s for s in store.load_series(full_run, "base")}
    add = by_key[(ADD, TIME)]
    assert add.case.params == (("kind", "a,b"), ("size", "10"))
    assert add.metric.primary and not add.metric.higher_is_better
    assert add.samples.trial.tolist() == [0] * 10 + [1] * 10 + [2] * 10
    assert add.samples.warmup.sum() == 3 * 2 * 2  # trials x forks x warmup iterations
    histogram = by_key[(SAMPLE, SAMPLE_TIME)].samples
    assert histogram.has_histogram and set(histogram.count.tolist()) == {50.0, 7.0, 1.0}
    assert by_key[(ADD, ALLOC)].metric == ALLOC


def test_executions_finished_and_environments(store, full_run):
    records = store.executions(full_run)
    assert [(r.position, r.trial, r.label) for r in records] == [(e.position, e.trial, e.label) for e in schedule()]
    first = records[0]
    assert first.status == "done" and first.harness_seconds == 60.0
    assert first.started == "2024-05-01T10:00:00+00:00" and first.output_tail == "last line\n"
    assert first.samples == sum(len(s.samples) for s in trial_series(first.label, first.trial))
    assert store.finished(full_run) == {(t, label) for t in range(TRIALS) for label in LABELS}
    environments = store.environments(full_run, "contender")
    assert [env["trial"] for env in environments] == ["0", "1", "2"]
    assert environments[0]["os"] == "Linux"


def test_run_info_round_trip(store, full_run):
    info = store.run(full_run)
    assert info.run_id == full_run and info.status == "running"
    assert (info.harness, info.project, info.order, info.seed) == ("jmh", "demo", "rmit", 42)
    assert info.tool_version == "0.1.0"
    assert info.settings == {"run": {"forks": 2}, "trials": 3}
    assert [v.label for v in info.versions] == list(LABELS)
    assert info.versions[0].commit == "a" * 40 and info.versions[0].dirty is False
    assert info.versions[1].dirty is True
    assert info.schedule == tuple(schedule())
    assert info.created.endswith("+00:00") and info.created[:4].isdigit()
    assert info.wall_seconds is None


def test_partial_run_counts_and_failed_executions(store):
    run_id = new_run(store)
    plan = schedule()
    record(store, run_id, plan[0])
    record(store, run_id, plan[1], status="failed", series=[])
    record(store, run_id, plan[2], status="timeout", series=trial_series(plan[2].label, plan[2].trial)[:1])
    ((info, counts),) = store.list_runs()
    assert info.run_id == run_id
    per_trial = sum(len(s.samples) for s in trial_series("base", 0))
    assert counts == {"executions_done": 3, "executions_planned": 6, "failed": 2, "samples": per_trial + 10}
    assert store.finished(run_id) == {(0, "base"), (0, "contender"), (1, "contender")}
    failed = store.executions(run_id)[1]
    assert failed.status == "failed" and failed.message == "exit code 1"
    assert failed.failures == ("org.example.Bench.broken: OutOfMemoryError",) and failed.samples == 0


def test_finish_run_records_status_and_times(store, full_run):
    store.finish_run(full_run, status="interrupted", wall_seconds=12.5, harness_seconds=10.0)
    info = store.run(full_run)
    assert (info.status, info.wall_seconds, info.harness_seconds) == ("interrupted", 12.5, 10.0)
    store.finish_run(full_run, status="finished", wall_seconds=20.0, harness_seconds=None)
    assert store.run(full_run).status == "finished"
    with pytest.raises(ValueError):
        store.finish_run(full_run, status="done", wall_seconds=None, harness_seconds=None)
    with pytest.raises(UserError, match="no run 99 in"):
        store.finish_run(99, status="finished", wall_seconds=None, harness_seconds=None)


def test_list_runs_newest_first_and_latest_run_by_labels(store):
    first = new_run(store, labels=["a", "b"])
    second = new_run(store, labels=["b", "c"])
    third = new_run(store, labels=["a", "c"])
    assert [info.run_id for info, _ in store.list_runs()] == [third, second, first]
    assert store.list_runs()[0][1] == {"executions_done": 0, "executions_planned": 2, "failed": 0, "samples": 0}
    assert store.latest_run().run_id == third
    assert store.latest_run(["a", "b"]).run_id == first
    assert store.latest_run(["b"]).run_id == second
    assert store.latest_run(["c", "a"]).run_id == third
    assert store.latest_run(["a", "b", "c"]) is None
    assert store.latest_run(["nope"]) is None


def test_unknown_run_and_label_are_user_errors(store, full_run):
    with pytest.raises(UserError, match=r"no run 7 in .*(results\.db|rigorbench:\*\*\*@127\.0\.0\.1)"):
        store.run(7)
    with pytest.raises(UserError, match="no run 7"):
        store.executions(7)
    with pytest.raises(UserError, match="has no version 'other'; its versions: base, contender"):
        store.load_series(full_run, "other")
    with pytest.raises(UserError, match="has no version 'other'"):
        store.environments(full_run, "other")


def test_recording_an_unplanned_execution_is_refused(store, full_run):
    with pytest.raises(UserError, match="no trial 4 of version 'base'"):
        record(store, full_run, Execution(3, "base", 6))
    with pytest.raises(UserError, match="no run 5"):
        record(store, 5, Execution(0, "base", 0))


def test_bad_plans_and_statuses_are_programming_errors(store):
    with pytest.raises(ValueError, match="distinct version labels"):
        new_run(store, labels=["a", "a"])
    run_id = new_run(store, labels=["a"])
    with pytest.raises(ValueError, match="status"):
        record(store, run_id, Execution(0, "a", 0), status="ok", series=[])
    assert store.finished(run_id) == set()


def test_nan_and_infinite_values_round_trip(store):
    run_id = new_run(store, labels=["a"])
    table = SampleTable.build([1.0, float("nan"), float("inf"), -0.5])
    record(store, run_id, Execution(0, "a", 0), series=[Series(ADD, TIME, table)])
    (got,) = store.load_series(run_id, "a")
    np.testing.assert_array_equal(got.samples.value, [1.0, np.nan, np.inf, -0.5])


def test_cases_and_metrics_are_shared_between_runs(store):
    for labels in (["a"], ["b"]):
        run_id = new_run(store, labels=labels)
        record(store, run_id, Execution(0, labels[0], 0), series=trial_series("base", 0))
    conn = store._conn  # the backend's own connection: SQLite's, or psycopg's behind the same interface
    assert conn.execute("SELECT COUNT(*) FROM cases").fetchone()[0] == 2
    assert conn.execute("SELECT COUNT(*) FROM metrics").fetchone()[0] == 4  # time, sample_time, alloc, gc.count


def test_reopen_after_close_keeps_everything(store_path):
    with ResultStore.open(store_path) as store:
        run_id = new_run(store)
        for execution in schedule()[:4]:
            record(store, run_id, execution)
        before = {label: store.load_series(run_id, label) for label in LABELS}
    with ResultStore.open(store_path, create=False) as store:
        assert store.finished(run_id) == {(e.trial, e.label) for e in schedule()[:4]}
        for label in LABELS:
            got = store.load_series(run_id, label)
            assert [(s.case, s.metric) for s in got] == [(s.case, s.metric) for s in before[label]]
            for a, b in zip(got, before[label]):
                assert_same_table(a.samples, b.samples)
        for execution in schedule()[4:]:
            record(store, run_id, execution)
        assert len(store.finished(run_id)) == 6


def test_extend_run_plans_more_trials_and_keeps_what_is_stored(store, full_run):
    store.finish_run(full_run, status="finished", wall_seconds=1.0, harness_seconds=0.5)
    more = [Execution(3, "contender", 6), Execution(3, "base", 7)]
    store.extend_run(full_run, more)
    run = store.run(full_run)
    assert run.schedule[-2:] == tuple(more) and len(run.schedule) == 8
    assert run.settings["trials"] == 4 and run.settings["run"] == {"forks": 2}
    assert run.status == "running"
    assert len(store.finished(full_run)) == 6                  # the stored trials are untouched
    record(store, full_run, more[0])
    assert (3, "contender") in store.finished(full_run)
    with pytest.raises(ValueError):                            # a (trial, version) planned twice
        store.extend_run(full_run, [Execution(3, "base", 8)])
    assert len(store.run(full_run).schedule) == 8
