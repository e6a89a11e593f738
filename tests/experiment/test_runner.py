"""The execution loop with a deterministic fake harness (real SQLite store, no JMH)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rigorbench import api
from rigorbench.errors import Interrupted
from rigorbench.experiment.driver import ExperimentResult
from rigorbench.experiment.plan import ExperimentPlan, VersionSpec, make_schedule
from rigorbench.experiment.progress import PlainReporter
from rigorbench.harness.base import RunSettings
from rigorbench.store import ResultStore


@pytest.fixture
def project(tmp_path) -> Path:
    for label in ("v1", "v2"):
        (tmp_path / "proj" / label).mkdir(parents=True)
    return tmp_path / "proj"


def plan_for(project: Path, trials=3, order="rmit") -> ExperimentPlan:
    versions = (VersionSpec("v1", "v1"), VersionSpec("v2", "v2"))
    return ExperimentPlan(str(project), "jmh", versions, trials, order, 5, RunSettings())


def test_rmit_schedule_runs_every_version_once_per_trial_in_seeded_random_order():
    schedule = make_schedule(["a", "b", "c"], 20, "rmit", seed=3)
    assert [e.position for e in schedule] == list(range(60))
    for trial in range(20):
        assert sorted(e.label for e in schedule if e.trial == trial) == ["a", "b", "c"]
    orders = {tuple(e.label for e in schedule if e.trial == t) for t in range(20)}
    assert len(orders) > 1, "the order must change between trials"
    assert make_schedule(["a", "b", "c"], 20, "rmit", seed=3) == schedule
    assert make_schedule(["a", "b", "c"], 20, "rmit", seed=4) != schedule
    sequential = make_schedule(["a", "b"], 2, "sequential", seed=3)
    assert [(e.trial, e.label) for e in sequential] == [(0, "a"), (1, "a"), (0, "b"), (1, "b")]


def test_run_stores_every_trial_in_the_executed_order(project, fake, tmp_path):
    with ResultStore.open(tmp_path / "r.db") as store:
        result = api.run_experiment(plan_for(project), store, PlainReporter(io.StringIO()))
        executions = store.executions(result.run_id)
        planned = store.run(result.run_id).schedule
        assert [(e.trial, e.label) for e in executions] == [(p.trial, p.label) for p in planned]
        assert fake.calls == [p.label for p in planned]
        assert result.executed == 6 and result.failed == 0
        assert store.run(result.run_id).status == "finished"
        env = store.environments(result.run_id, "v1")[0]
        assert env["jmh_version"] == "fake" and "cpu_count" in env and env["version.source"] == "v1"
        series = store.load_series(result.run_id, "v2")
        assert sorted(set(series[0].samples.trial.tolist())) == [0, 1, 2]


def test_interrupt_then_resume_loses_nothing_and_stores_nothing_twice(project, fake, tmp_path):
    fake.interrupt_at = 3
    out = io.StringIO()
    with ResultStore.open(tmp_path / "r.db") as store:
        with pytest.raises(Interrupted, match="Resume with: rigorbench ab --resume 1"):
            api.run_experiment(plan_for(project), store, PlainReporter(out))
        assert len(store.finished(1)) == 3
        assert store.run(1).status == "interrupted"
        fake.interrupt_at = None
        fake.calls.clear()
        result = api.resume_experiment(1, store, PlainReporter(out))
        assert result.executed == 3 and len(fake.calls) == 3
        keys = [(e.trial, e.label) for e in store.executions(1)]
        assert len(keys) == len(set(keys)) == 6
        assert store.run(1).status == "finished"
        # A second resume has nothing left to do.
        assert api.resume_experiment(1, store, PlainReporter(out)).executed == 0
    assert "already stored" in out.getvalue()


def test_a_failed_trial_is_recorded_and_the_others_go_on(project, fake, tmp_path):
    fake.fail_label = "v2"
    out = io.StringIO()
    with ResultStore.open(tmp_path / "r.db") as store:
        result = api.run_experiment(plan_for(project, trials=2), store, PlainReporter(out))
        statuses = {(e.label, e.status) for e in store.executions(result.run_id)}
    assert statuses == {("v1", "done"), ("v2", "failed")}
    assert result.failed == 2 and result.executed == 4
    assert "failed in" in out.getvalue() and "boom" in out.getvalue()


def test_overhead_is_the_share_of_wall_time_outside_the_harness():
    result = ExperimentResult(1, 2, 0, wall_seconds=10.0, harness_seconds=9.7)
    assert result.overhead == pytest.approx(0.03)


def test_plan_validation(project):
    from rigorbench.errors import UserError

    with pytest.raises(UserError, match="labels must differ"):
        ExperimentPlan(str(project), "jmh", (VersionSpec("a", "v1"), VersionSpec("a", "v2")), 1, "rmit", 1, RunSettings())
    with pytest.raises(UserError, match="FORK"):
        ExperimentPlan(str(project), "jmh", (VersionSpec("a", "v1"), VersionSpec("b", "v2")), 1, "rmit", 1, RunSettings(forks=0))
    with pytest.raises(UserError, match="allowed values are rmit, sequential"):
        ExperimentPlan(str(project), "jmh", (VersionSpec("a", "v1"), VersionSpec("b", "v2")), 1, "random", 1, RunSettings())


def test_ctrl_c_exits_130_and_says_how_to_resume(project, fake, tmp_path, monkeypatch):
    from rigorbench.cli import main

    fake.interrupt_at = 1
    out, err = io.StringIO(), io.StringIO()
    code = main(["ab", str(project), "--base", "v1", "--contender", "v2", "--trials", "2",
                 "--store", str(tmp_path / "r.db")], out, err)
    assert code == 130
    assert "1 of 4 executions are stored" in err.getvalue()
    assert f"rigorbench ab --resume 1 --store {tmp_path / 'r.db'}" in err.getvalue()
    assert out.getvalue() == ""


def test_benchmarks_only_some_versions_have_are_reported_and_not_run(project, fake, tmp_path):
    fake.extra = {"v2": ["demo.Bench.added"], "v1": ["demo.Bench$Inner.removed"]}
    out = io.StringIO()
    with ResultStore.open(tmp_path / "r.db") as store:
        result = api.run_experiment(plan_for(project, trials=1), store, PlainReporter(out))
        settings = store.run(result.run_id).settings
    text = out.getvalue()
    assert "not run: demo.Bench.added is only in v2" in text and "not run: demo.Bench$Inner.removed is only in v1" in text
    # Every trial ran with exact-name includes of the shared benchmark only (Java regex syntax).
    assert fake.includes == [(r"^demo\.Bench\.a$",)] * 2
    assert settings["run"]["include"] == [r"^demo\.Bench\.a$"]
    assert settings["not_run"] == {"demo.Bench$Inner.removed": ["v1"], "demo.Bench.added": ["v2"]}
    assert "x 1 benchmark," in text and "about" in text


def test_no_shared_benchmark_stops_before_anything_is_stored(project, fake, tmp_path, monkeypatch):
    from rigorbench.errors import UserError
    from rigorbench.harness.base import ListedBenchmark

    monkeypatch.setattr(fake, "list_benchmarks", lambda build, settings: [ListedBenchmark(f"x.{build.project_dir.name}")])
    with ResultStore.open(tmp_path / "r.db") as store:
        with pytest.raises(UserError, match=r"no benchmark is in every version \(benchmarks per version: v1 1, v2 1\)"):
            api.run_experiment(plan_for(project, trials=1), store, PlainReporter(io.StringIO()))
        assert store.list_runs() == []
    assert fake.calls == []


def test_resume_builds_each_version_with_its_stored_build_settings(project, fake, tmp_path, monkeypatch):
    from rigorbench.harness.base import BuildSpec

    specs = []
    monkeypatch.setattr(fake, "build", lambda project_dir, spec, log, cache=None: specs.append((project_dir.name, spec)) or
                        type(fake).build(fake, project_dir, spec, log))
    jdk = BuildSpec(command=("make", "bench"), jar="out/*.jar", java_home="/opt/jdk-11")
    plan = ExperimentPlan(str(project), "jmh", (VersionSpec("v1", "v1", jdk), VersionSpec("v2", "v2")), 2, "rmit", 5, RunSettings())
    fake.interrupt_at = 1
    with ResultStore.open(tmp_path / "r.db") as store:
        with pytest.raises(Interrupted):
            api.run_experiment(plan, store, PlainReporter(io.StringIO()))
        fake.interrupt_at = None
        specs.clear()
        api.resume_experiment(1, store, PlainReporter(io.StringIO()))
    assert specs == [("v1", jdk), ("v2", BuildSpec())]


def test_a_trial_without_samples_is_stored_as_failed_with_the_harness_output(project, fake, tmp_path, monkeypatch):
    """Every fork crashed (say -XX:NoSuchOption): JMH exits 0 with no data; that trial failed."""
    import json

    from rigorbench.cli import main
    from rigorbench.harness.base import DONE, TrialOutcome

    real = type(fake).run_trial

    def crashing_v2(build, settings, work_dir, on_progress):
        outcome = real(fake, build, settings, work_dir, on_progress)
        if build.project_dir.name != "v2":
            return outcome
        return TrialOutcome(DONE, (), 0.2, {"jmh_version": "fake"},
                            failures=("demo.Bench.a: <forked VM failed with exit code 1>",),
                            output_tail="Unrecognized VM option 'NoSuchOption'\n")

    monkeypatch.setattr(fake, "run_trial", crashing_v2)
    with ResultStore.open(tmp_path / "r.db") as store:
        result = api.run_experiment(plan_for(project, trials=2), store, PlainReporter(io.StringIO()))
        stored = {(e.label, e.trial): e for e in store.executions(result.run_id)}
    assert result.failed == 2
    v2 = stored[("v2", 0)]
    assert v2.status == "failed" and v2.samples == 0
    assert "no samples" in v2.message and "forked VM failed" in v2.message
    assert "NoSuchOption" in v2.output_tail
    assert stored[("v1", 0)].status == "done" and stored[("v1", 0)].samples == 6
    out = io.StringIO()
    assert main(["runs", "--store", str(tmp_path / "r.db"), "--format", "json"], out, io.StringIO()) == 0
    assert json.loads(out.getvalue())["runs"][0]["failed"] == 2
