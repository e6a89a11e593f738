"""The dispatcher on a real Dask cluster of thread workers, with a replaying harness
(``benchmarks/replay_cluster.py``, which ``bench_cluster_scaling.py`` times at scale): every
planned trial is stored once, with the instance that ran it in its samples and environment."""

from __future__ import annotations

import collections
import io
import sys
from pathlib import Path

import numpy as np
import pytest

from rigorbench.errors import UserError
from rigorbench.experiment.progress import PlainReporter
from rigorbench.store import ResultStore

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from replay_cluster import LABELS, ReplayHarness, recorded_trials, registered, replay_run, threads_cluster  # noqa: E402

WORKERS, TRIALS_PER_INSTANCE = 4, 2


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A trial-based A/B of 8 trials x 2 versions on 4 thread workers, stored in SQLite (once)."""
    tmp_path = tmp_path_factory.mktemp("cluster")
    harness = ReplayHarness(0.05, {label: recorded_trials(label) for label in LABELS})
    log = io.StringIO()
    with (pytest.MonkeyPatch.context() as patch, registered(harness), threads_cluster(WORKERS) as session,
          ResultStore.open(tmp_path / "results.db") as store):
        patch.setenv("RIGORBENCH_WORKER_DIR", str(tmp_path / "worker"))
        result = replay_run(session, store, tmp_path / "scratch", TRIALS_PER_INSTANCE, PlainReporter(log))
        yield store, store.run(result.run_id), result, log.getvalue()


def test_every_planned_trial_is_stored_once(finished_run):
    store, run, result, _ = finished_run
    stored = collections.Counter((e.trial, e.label) for e in store.executions(run.run_id))
    planned = {(e.trial, e.label) for e in run.schedule}
    assert len(planned) == WORKERS * TRIALS_PER_INSTANCE * len(LABELS)
    assert set(stored) == planned and set(stored.values()) == {1}
    assert run.status == "finished" and result.executed == len(planned) and result.failed == 0


def test_samples_name_the_instance_that_ran_their_trial(finished_run):
    store, run, _, _ = finished_run
    names = run.setup.cluster["instance_names"]
    ran_on = {(e.trial, e.label): e.environment["instance"] for e in store.executions(run.run_id)}
    assert set(ran_on.values()) <= {f"local-{i}" for i in range(WORKERS)}
    for label in LABELS:
        for series in store.load_series(run.run_id, label):
            table = series.samples
            assert len(table.value)
            for trial, code in set(zip(table.trial.tolist(), table.instance.tolist())):
                assert names[code] == ran_on[(trial, label)]


def test_trials_spread_over_instances_and_keep_their_versions_together(finished_run):
    store, run, result, log = finished_run
    by_trial = collections.defaultdict(set)
    for execution in store.executions(run.run_id):
        by_trial[execution.trial].add(execution.environment["instance"])
    assert all(len(instances) == 1 for instances in by_trial.values())
    used = set().union(*by_trial.values())
    assert len(used) > 1
    assert result.instances == 1       # local:N's overhead is counted for one machine
    assert f"trials ran on {len(used)} instances" in log


def test_replayed_values_are_the_recorded_ones(finished_run):
    store, run, _, _ = finished_run
    recorded = {(one.case, one.metric.name): one.samples.value for one in recorded_trials("v1")[0]}
    for series in store.load_series(run.run_id, "v1"):
        key = (series.case, series.metric.name)
        if key in recorded:
            assert np.isin(recorded[key], series.samples.value).all()


def test_a_failing_trial_stops_the_run_and_keeps_what_finished(tmp_path, monkeypatch):
    monkeypatch.setenv("RIGORBENCH_WORKER_DIR", str(tmp_path / "worker"))
    harness = ReplayHarness(0.02, {label: recorded_trials(label) for label in LABELS}, fail_at=("v2", 2))
    with registered(harness), threads_cluster(2) as session, ResultStore.open(tmp_path / "results.db") as store:
        with pytest.raises(UserError, match=r"on instance local-\d failed: RuntimeError: replay of v2 failed at turn 2.*resume with"):
            replay_run(session, store, tmp_path / "scratch", 3, PlainReporter(io.StringIO()))
        run = store.run(store.run_ids()[-1])
        stored = collections.Counter(e.trial for e in store.executions(run.run_id))
    assert run.status == "interrupted"
    assert 1 <= len(stored) < 6 and set(stored.values()) == {len(LABELS)}   # whole trials only
