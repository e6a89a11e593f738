"""Duet runs with a fake harness: the two executions of a trial overlap, each pinned to its own
CPU set, the sets swap every trial, the environment says so, and a stop loses nothing."""

from __future__ import annotations

import io
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from rigorbench import api
from rigorbench.analysis.settings import Settings
from rigorbench.analysis.stopping import UntilDecided
from rigorbench.errors import Interrupted, UserError
from rigorbench.experiment import cpuset, duet
from rigorbench.experiment.plan import ExperimentPlan, VersionSpec, make_schedule
from rigorbench.experiment.progress import PlainReporter
from rigorbench.harness.base import RunSettings
from rigorbench.harness.process import run_streamed
from rigorbench.store import ResultStore

two_cpus = pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                              reason="a duet run needs 2 usable CPUs")


@pytest.fixture
def project(tmp_path) -> Path:
    for label in ("v1", "v2"):
        (tmp_path / "proj" / label).mkdir(parents=True)
    return tmp_path / "proj"


def pinning_method() -> str:
    """How a duet run pins on this machine: in cpuset groups where the cgroup v1 hierarchy is writable."""
    hierarchy, _ = cpuset.find_hierarchy()
    return "cgroup-v1" if hierarchy is not None and os.access(hierarchy.folder, os.W_OK) else "affinity"


def leftover_groups() -> list[str]:
    hierarchy, _ = cpuset.find_hierarchy()
    return [] if hierarchy is None else [name for name in os.listdir(hierarchy.folder)
                                         if name.startswith(f"{cpuset.PREFIX}{os.getpid()}-")]


def duet_plan(project: Path, trials: int = 4, **changes) -> ExperimentPlan:
    versions = (VersionSpec("v1", "v1"), VersionSpec("v2", "v2"))
    return ExperimentPlan(str(project), "jmh", versions, trials, "duet", 5, RunSettings(), **changes)


@pytest.fixture
def side_by_side(fake, monkeypatch):
    """The fake harness, made to wait in every trial until the other version's trial has started
    too (a barrier: two executions run one after the other time out there), and to note the
    CPUs its thread may use and when it ran."""
    barrier = threading.Barrier(2, timeout=10)
    seen: list[tuple[str, frozenset, float, float]] = []
    run_trial = type(fake).run_trial

    def together(self, build, settings, work_dir, on_progress):
        started = time.monotonic()
        barrier.wait()
        outcome = run_trial(self, build, settings, work_dir, on_progress)
        seen.append((build.project_dir.name, frozenset(os.sched_getaffinity(0)), started, time.monotonic()))
        return outcome

    monkeypatch.setattr(type(fake), "run_trial", together)
    return seen


def test_the_schedule_lists_every_trial_baseline_first_and_cpu_sets_are_disjoint_halves():
    schedule = make_schedule(["a", "b"], 3, "duet", seed=1)
    assert [(e.trial, e.label) for e in schedule] == [(0, "a"), (0, "b"), (1, "a"), (1, "b"), (2, "a"), (2, "b")]
    assert duet.cpu_sets({0, 1}) == ({0}, {1})
    assert duet.cpu_sets(range(5)) == ({0, 1}, {2, 3}), "equal halves: the odd CPU is left out"
    assert [duet.set_index(trial, 0) for trial in range(4)] == [0, 1, 0, 1]
    assert [duet.set_index(trial, 1) for trial in range(4)] == [1, 0, 1, 0]


@two_cpus
def test_a_trials_executions_overlap_on_disjoint_cpu_sets_that_swap_every_trial(project, side_by_side, tmp_path):
    with ResultStore.open(tmp_path / "r.db") as store:
        out = io.StringIO()
        result = api.run_experiment(duet_plan(project), store, PlainReporter(out))
        run = store.run(result.run_id)
        assert run.order == "duet" and run.setup.executor["design"] == "duet"
        assert result.executed == 8 and result.failed == 0 and len(side_by_side) == 8
        sets = duet.cpu_sets(os.sched_getaffinity(0))
        environments = {label: store.environments(result.run_id, label) for label in ("v1", "v2")}
    assert out.getvalue().count("    version v2: done in") == 4, "a pair's finished lines say whose they are"
    assert "trial 1/4, version v2\n[1/8] trial 1/4, version v1\n" in out.getvalue(), "the lead (whose progress shows) last"
    for trial in range(4):
        (a, a_cpus, a_start, a_end), (b, b_cpus, b_start, b_end) = sorted(side_by_side[2 * trial:2 * trial + 2])
        assert max(a_start, b_start) < min(a_end, b_end), f"trial {trial}: the two executions overlap"
        assert (a, b) == ("v1", "v2") and not a_cpus & b_cpus
        assert a_cpus == sets[trial % 2] and b_cpus == sets[1 - trial % 2], "the baseline swaps sets every trial"
        assert environments["v1"][trial]["cpu_set"] == duet.cpu_list(a_cpus)
        assert environments["v2"][trial]["cpu_set"] == duet.cpu_list(b_cpus)
        assert environments["v1"][trial]["design"] == "duet"
        for label, cpus in (("v1", a_cpus), ("v2", b_cpus)):
            assert environments[label][trial]["pinning.method"] == pinning_method()
            if pinning_method() == "cgroup-v1":       # the group of the set the execution ran on
                assert environments[label][trial]["pinning.cgroup"].endswith(f"-{os.getpid()}-{sets.index(cpus)}")
    assert not leftover_groups(), "the run removed its cpuset groups"


def test_one_usable_cpu_is_refused_in_one_line_before_anything_runs(project, fake, tmp_path, monkeypatch):
    from rigorbench.cli import main

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3})
    err = io.StringIO()
    code = main(["ab", str(project), "--base", "v1", "--contender", "v2", "--design", "duet",
                 "--store", str(tmp_path / "r.db")], io.StringIO(), err)
    assert code == 2 and fake.calls == []
    assert err.getvalue().count("\n") == 1 and "at least 2 usable CPUs" in err.getvalue() and "may use 1" in err.getvalue()


@pytest.mark.parametrize("argv, message", [
    (["--order", "sequential"], "--design duet runs both versions of a trial at once; it does not go with --order sequential"),
    (["--cluster", "local:2"], "--design duet runs both versions at once on this machine's CPUs; it does not go with --cluster"),
])
def test_duet_refuses_what_it_cannot_be(project, fake, tmp_path, argv, message):
    from rigorbench.cli import main

    err = io.StringIO()
    code = main(["ab", str(project), "--base", "v1", "--contender", "v2", "--design", "duet", *argv,
                 "--store", str(tmp_path / "r.db")], io.StringIO(), err)
    assert code == 2 and err.getvalue().strip().endswith(message) and err.getvalue().count("\n") == 1


def test_record_does_not_offer_duet_and_three_versions_are_refused(project, tmp_path):
    from rigorbench.cli import main

    err = io.StringIO()
    assert main(["record", str(project), "--design", "duet", "--commit", "abc"], io.StringIO(), err) == 2
    assert "invalid choice: 'duet'" in err.getvalue()
    versions = tuple(VersionSpec(label, "v1") for label in ("a", "b", "c"))
    with pytest.raises(UserError, match="two versions side by side; this experiment has 3"):
        ExperimentPlan(str(project), "jmh", versions, 2, "duet", 5, RunSettings())


@two_cpus
def test_a_stopped_duet_run_resumes_without_losing_or_repeating_an_execution(project, fake, tmp_path):
    fake.interrupt_at = 3           # the fourth harness run: trial 2's second execution
    with ResultStore.open(tmp_path / "r.db") as store:
        with pytest.raises(Interrupted, match="Resume with: rigorbench ab --resume 1"):
            api.run_experiment(duet_plan(project, trials=3), store, PlainReporter(io.StringIO()))
        assert not leftover_groups(), "a stopped run removes its cpuset groups too"
        stored = store.finished(1)
        assert {(0, "v1"), (0, "v2")} <= stored and len(stored) in (2, 3), "every finished execution is stored"
        fake.interrupt_at = None
        fake.calls.clear()
        out = io.StringIO()
        result = api.resume_experiment(1, store, PlainReporter(out))
        keys = [(e.trial, e.label) for e in store.executions(1)]
        assert len(keys) == len(set(keys)) == 6 and store.run(1).status == "finished"
        assert result.executed == 6 - len(stored)
        assert len(fake.calls) == 4, "trial 2 runs again as a pair, trial 3 as usual"
        if len(stored) == 3:
            assert "(stored already: not kept)" in out.getvalue()


@two_cpus
def test_duet_runs_until_decided_with_warmup_auto(project, fake, tmp_path):
    rule = UntilDecided(min_trials=3, max_trials=6, analysis=Settings(resamples=300))
    with ResultStore.open(tmp_path / "r.db") as store:
        result = api.run_experiment(duet_plan(project, trials=3, until_decided=rule, pilot_warmup=10), store,
                                    PlainReporter(io.StringIO()))
        run = store.run(result.run_id)
        assert run.status == "finished" and run.setup.warmups and run.order == "duet"
        assert store.finished(result.run_id) == {(t, label) for t in range(3) for label in ("v1", "v2")}


@two_cpus
def test_a_harness_started_in_a_pinned_thread_runs_on_those_cpus_and_so_do_its_children(tmp_path):
    cpus = duet.cpu_sets(os.sched_getaffinity(0))[1]
    script = ("import os, subprocess, sys; print(sorted(os.sched_getaffinity(0)));"
              "subprocess.run([sys.executable, '-c', 'import os; print(sorted(os.sched_getaffinity(0)))'])")
    with duet.SideBySide() as side:
        side.start(cpus, lambda progress: run_streamed([sys.executable, "-c", script], cwd=tmp_path))
        (_, _, result), = [event for event in side.events() if event[0] == "done"]
    assert result.lines == (str(sorted(cpus)), str(sorted(cpus)))
    assert os.sched_getaffinity(0) != cpus, "the caller's own thread is not pinned"


@two_cpus
def test_leaving_side_by_side_on_an_error_stops_the_other_threads_harness(tmp_path):
    sleeper = [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)"]
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with duet.SideBySide() as side:
            side.start(frozenset({0}), lambda progress: run_streamed(sleeper, cwd=tmp_path))
            time.sleep(0.5)
            raise KeyboardInterrupt
    assert time.monotonic() - started < 20, "the sleeping harness was stopped, not waited for"


def test_the_stored_design_is_kept_on_resume_on_any_machine(project, fake, tmp_path, monkeypatch):
    """(Pinning faked, so that this runs where only one CPU is usable.)"""
    monkeypatch.setattr(duet, "usable_cpus", lambda: {0, 1})
    monkeypatch.setattr(duet.os, "sched_setaffinity", lambda pid, cpus: None)
    with ResultStore.open(tmp_path / "r.db") as store:
        fake.interrupt_at = 0
        with pytest.raises(Interrupted):
            api.run_experiment(duet_plan(project, trials=1), store, PlainReporter(io.StringIO()))
        fake.interrupt_at = None
        out = io.StringIO()
        api.resume_experiment(1, store, PlainReporter(out))
        assert "duet: trial 1, v1 on CPUs 0, v2 on CPUs 1" in out.getvalue()
        assert store.run(1).order == "duet" and store.finished(1) == {(0, "v1"), (0, "v2")}


@two_cpus
def test_a_pinned_thread_knows_its_cpus_so_pyperf_is_told_to_keep_its_workers_there():
    from rigorbench.harness.process import pinned_cpus
    from rigorbench.harness.pyperf import affinity_arguments

    cpus = duet.cpu_sets(os.sched_getaffinity(0))[1]
    assert pinned_cpus() is None and affinity_arguments(None) == []
    with duet.SideBySide() as side:
        side.start(cpus, lambda progress: affinity_arguments(pinned_cpus()))
        (_, _, arguments), = [event for event in side.events() if event[0] == "done"]
    assert arguments == ["--affinity", duet.cpu_list(cpus)]
