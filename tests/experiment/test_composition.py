"""Every executor with every stopping rule and warmup, each stopped mid-run and resumed.

The fast tier's composition matrix: {this machine, a cluster} x {fixed trials, until decided}
x {configured warmup, --warmup auto}, through the library API as ``ab`` and ``run`` call it
and the driver as ``record`` and ``bisect`` do. This machine runs the deterministic
FakeHarness (tests/conftest.py); the cluster is a real Dask cluster of thread workers running
the ReplayHarness (benchmarks/replay_cluster.py: real dispatcher, bundles and store, trials
replayed from real JMH runs). The real JMH runs of these paths are in tests/e2e.
"""

from __future__ import annotations

import io
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from rigorbench import api
from rigorbench.analysis.settings import Settings
from rigorbench.analysis.stopping import UntilDecided, rule_from_dict
from rigorbench.errors import Interrupted
from rigorbench.experiment.plan import ExperimentPlan, VersionSpec
from rigorbench.experiment.progress import PlainReporter
from rigorbench.harness.base import RunSettings
from rigorbench.store import ResultStore

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from replay_cluster import LABELS, ReplayHarness, recorded_trials, registered, threads_cluster  # noqa: E402


def _plan(project: Path, harness: str, *, adaptive: bool, auto: bool, trials: int = 3) -> ExperimentPlan:
    versions = tuple(VersionSpec(label, label) for label in LABELS)
    rule = UntilDecided(min_trials=3, max_trials=8, analysis=Settings(resamples=500)) if adaptive else None
    return ExperimentPlan(str(project), harness, versions, trials, "rmit", 5, RunSettings(forks=1),
                          until_decided=rule, pilot_warmup=10 if auto else None)


@pytest.fixture
def project(tmp_path) -> Path:
    for label in LABELS:
        (tmp_path / "proj" / label).mkdir(parents=True)
        (tmp_path / "proj" / label / "replay.jar").write_bytes(label.encode() * 64)
    return tmp_path / "proj"


def _finished(store: ResultStore, run_id: int) -> tuple:
    run = store.run(run_id)
    finished = store.finished(run_id)
    assert run.status == "finished"
    assert finished == {(e.trial, e.label) for e in run.schedule}, "every planned execution is stored once"
    return run, finished


@pytest.mark.parametrize("adaptive", [False, True], ids=["fixed", "until-decided"])
@pytest.mark.parametrize("auto", [False, True], ids=["configured-warmup", "warmup-auto"])
def test_this_machine_runs_every_rule_and_warmup_and_resumes_after_a_stop(project, fake, tmp_path, adaptive, auto):
    fake.name = "jmh"
    fake.interrupt_at = 3           # the fourth harness run (pilots included) is stopped as Ctrl-C stops it
    with ResultStore.open(tmp_path / "r.db") as store:
        with pytest.raises(Interrupted, match="Resume with: rigorbench ab --resume 1"):
            api.run_experiment(_plan(project, "jmh", adaptive=adaptive, auto=auto), store, PlainReporter(io.StringIO()))
        stored = len(store.finished(1))
        assert store.run(1).status == "interrupted" and stored >= 1
        fake.interrupt_at = None
        out = io.StringIO()
        result = api.resume_experiment(1, store, PlainReporter(out))
        run, finished = _finished(store, 1)
        assert result.executed == len(finished) - stored, "resuming runs only what was missing"
        setup = run.setup
        assert setup.executor == {"kind": "local"}
        assert bool(setup.warmups) == auto and (setup.pilot_warmup == 10) == auto
        rule = rule_from_dict(setup.rule)
        if adaptive:   # v2 is 20% slower in every trial: decided at the first look
            assert rule.retired["demo.Bench.a"].verdict == "slower" and rule.retired["demo.Bench.a"].trials == 3
            assert "every benchmark decided after 3 trials" in out.getvalue()
            (label, comparison, _, _), = api.finish_experiment(store, 1, "v1", ["v2"])
            assert comparison.sequential is not None and comparison.settings.confidence == pytest.approx(rule.per_look)
        else:
            assert rule.trials == 3 and len(finished) == 6


def test_a_record_shaped_run_of_one_version_with_warmup_auto_resumes(project, fake, tmp_path):
    """record's run: one version, --warmup auto, stopped and resumed; the resume is 'record'."""
    fake.interrupt_at = 2           # after the pilot and one execution
    plan = replace(_plan(project, "jmh", adaptive=False, auto=True), versions=(VersionSpec("v1", "v1"),), min_versions=1,
                   notes={"command": "record"})
    with ResultStore.open(tmp_path / "r.db") as store:
        with pytest.raises(Interrupted, match="Resume with: rigorbench record --resume 1"):
            api.run_experiment(plan, store, PlainReporter(io.StringIO()))
        fake.interrupt_at = None
        api.resume_experiment(1, store, PlainReporter(io.StringIO()))
        run, finished = _finished(store, 1)
    assert len(finished) == 3 and run.setup.warmups and fake.calls.count("v1") == 1 + 3


@pytest.fixture
def replay():
    harness = ReplayHarness(0.0, {label: recorded_trials(label) for label in LABELS})
    with registered(harness), threads_cluster(2) as session:
        yield harness, session


def test_a_cluster_runs_until_decided_with_warmup_auto(project, tmp_path, replay, monkeypatch):
    from rigorbench.cluster.executor import ClusterExecutor
    from rigorbench.experiment.address import ClusterOptions, TLSFiles
    from rigorbench.experiment.driver import start_experiment

    harness, session = replay
    plan = replace(_plan(project, "replay", adaptive=True, auto=True), cluster=ClusterOptions(session.address, TLSFiles()))
    out = io.StringIO()
    with ResultStore.open(tmp_path / "r.db") as store:
        executor = ClusterExecutor.on_session(session, plan.cluster, store, PlainReporter(out), list(LABELS))
        result = start_experiment(plan, store, PlainReporter(out), executor)
        run, finished = _finished(store, result.run_id)
    rule = rule_from_dict(run.setup.rule)
    assert run.setup.cluster["instances"] == 2 and rule.step == 2
    assert rule.min_trials == 4, "the first look gives both instances as many trials (3 rounded up to 4)"
    assert rule.looks == (4, 6, 8) and rule.per_look > rule.confidence
    assert {len({e.trial for e in run.schedule}) % 2} == {0}, "every look adds one trial per instance"
    assert run.setup.warmups and set(run.setup.warmups) == set(rule.benchmarks)
    assert "warmup auto (pilot" not in out.getvalue()   # the pilot's choices are said per benchmark:
    assert any(line.startswith(("warmup auto: ", "warning: ")) for line in out.getvalue().splitlines())
    assert executor.totals.instances_used and executor.totals.instances_used <= set(session.instances())


def test_a_cluster_runs_a_record_shaped_run_of_one_version_with_warmup_auto(project, tmp_path, replay):
    """record --cluster: one version, fixed trials, --warmup auto's pilot on an instance."""
    from rigorbench.cluster.executor import ClusterExecutor
    from rigorbench.experiment.address import ClusterOptions, TLSFiles
    from rigorbench.experiment.driver import start_experiment

    harness, session = replay
    plan = replace(_plan(project, "replay", adaptive=False, auto=True, trials=4), versions=(VersionSpec("v1", "v1"),),
                   min_versions=1, notes={"command": "record"}, cluster=ClusterOptions(session.address, TLSFiles()))
    out = io.StringIO()
    with ResultStore.open(tmp_path / "r.db") as store:
        executor = ClusterExecutor.on_session(session, plan.cluster, store, PlainReporter(out), ["v1"])
        result = start_experiment(plan, store, PlainReporter(out), executor)
        run, finished = _finished(store, result.run_id)
    executions = store_executions(tmp_path / "r.db", result.run_id)
    assert run.setup.cluster["instances"] == 2 and run.setup.warmups
    assert {e.label for e in executions} == {"v1"} and len(finished) == len(executions) == 8
    per_instance = [sum(e.environment["instance"] == instance for e in executions) for instance in {e.environment["instance"] for e in executions}]
    assert sorted(per_instance) == [4, 4], per_instance


def store_executions(path: Path, run_id: int) -> list:
    with ResultStore.open(path, create=False) as store:
        return store.executions(run_id)


def test_bisect_on_a_cluster_names_the_planted_commit_and_runs_every_probe_there(tmp_path, replay):
    """bisect --cluster: every probe's trials run on the cluster's instances. Six commits whose
    replay jar is v2's before commit 3 and v1's from there: countPrimes loses about a third of its
    throughput (the recorded v2 has 1.44x v1's)."""
    from rigorbench.analysis.bisect import Decision
    from rigorbench.cluster.executor import ClusterExecutor
    from rigorbench.experiment.address import ClusterOptions, TLSFiles
    from rigorbench.experiment.bisect import BisectPlan, run_bisection
    from rigorbench.harness.base import BuildSpec
    from tests.e2e.projects import commit_all

    harness, session = replay
    repo = tmp_path / "repo"
    repo.mkdir()
    commits = []
    for k in range(6):
        (repo / "replay.jar").write_bytes(("v2" if k < 3 else "v1").encode() * 64)
        (repo / "NOTES.md").write_text(f"commit {k}\n")
        commits.append(commit_all(repo, f"commit {k}"))
    plan = BisectPlan(str(repo), "HEAD~5", "HEAD", BuildSpec(), RunSettings(forks=1, include=("PrimeCountBenchmark.countPrimes",)),
                      first_trials=4, max_trials=8, seed=7, harness="replay",
                      cluster=ClusterOptions(session.address, TLSFiles()))
    out = io.StringIO()
    with ResultStore.open(tmp_path / "r.db") as store:
        executor = ClusterExecutor.on_session(session, plan.cluster, store, PlainReporter(out), ["good", "probe"])
        bisection = run_bisection(plan, Settings(resamples=500, threshold=0.2), store, lambda: PlainReporter(out), build_cache=False,
                                  executor=executor)
        runs = [store.run(run_id) for run_id in store.run_ids()]
        instances = {e.environment["instance"] for run in runs for e in store.executions(run.run_id)}
    print("\n".join(line for line in out.getvalue().splitlines() if not line.startswith(("[", "    ", "trial ", "warning: instance", "info: instance"))))
    assert bisection.culprit is not None and bisection.culprit.sha == commits[3]
    assert bisection.probes[0].decision == Decision.SLOWER and len(runs) == len(bisection.probes)
    assert all(run.status == "finished" and run.setup.cluster["instances"] == 2 for run in runs)
    assert instances == set(session.instances()), "the probes' trials ran on both instances"
