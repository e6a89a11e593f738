"""The cluster mode's parts without a cluster: designs, addresses and TLS, bundles, the worker
lock, the dispatcher's placement rules, tool mismatches, and the command line's refusals."""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.experiment.address import TLSFiles, exposure_warning, parse_cluster
from rigorbench.cluster.bundle import make_bundle, shipped_build, unpack
from rigorbench.cluster.design import Placement
from rigorbench.experiment.trial import TrialSpec
from rigorbench.cluster.dispatch import Dispatcher, Job, tool_mismatches
from rigorbench.cluster.worker import WorkerOptions, dask_worker_command, one_worker_per_machine
from rigorbench.errors import UserError
from rigorbench.harness.base import Build, BuildSpec, RunSettings
from rigorbench.store import ResultStore
from rigorbench.store.api import Execution, TrialRecord, VersionInfo


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


# -- designs -------------------------------------------------------------------------------

def test_trial_based_runs_every_version_in_every_trial_in_a_random_order():
    design = Placement("trial-based", instances=3, trials_per_instance=4)
    schedule = design.schedule(["a", "b"], seed=7)
    assert design.trials == 12 and len(schedule) == 24
    assert [e.position for e in schedule] == list(range(24))
    for trial in range(12):
        assert sorted(e.label for e in schedule if e.trial == trial) == ["a", "b"]
    orders = {tuple(e.label for e in schedule if e.trial == t) for t in range(12)}
    assert orders == {("a", "b"), ("b", "a")}          # randomized, not fixed
    assert [design.slot_of(t) for t in (0, 3, 4, 11)] == [0, 0, 1, 2]
    assert schedule == design.schedule(["a", "b"], seed=7)   # reproducible from the seed


def test_instance_based_gives_each_instance_one_version():
    design = Placement("instance-based", instances=4, trials_per_instance=2)
    schedule = design.schedule(["a", "b"], seed=1)
    assert [(e.trial, e.label) for e in schedule] == [(0, "a"), (1, "a"), (2, "b"), (3, "b"), (4, "a"), (5, "a"), (6, "b"), (7, "b")]
    with pytest.raises(UserError, match="multiple of 2"):
        Placement("instance-based", instances=3, trials_per_instance=1).schedule(["a", "b"], seed=1)
    with pytest.raises(UserError, match="--design"):
        Placement("random", 2, 1)


# -- addresses and TLS -----------------------------------------------------------------------

def test_cluster_addresses():
    assert parse_cluster("local:3").local_workers == 3
    assert parse_cluster("10.0.0.5:8786").text == "tcp://10.0.0.5:8786"
    assert parse_cluster("tls://bench.internal:8786").local is False
    for bad in ("local:0", "local:99", "http://x:1", "tcp://:8786", "tcp://host:notaport"):
        with pytest.raises(UserError, match="--cluster"):
            parse_cluster(bad)


def test_exposure_warning_only_for_a_public_address_without_tls(tmp_path):
    for private in ("tcp://127.0.0.1:8786", "tcp://10.1.2.3:8786", "tcp://192.168.0.7:8786", "local:2"):
        assert exposure_warning(parse_cluster(private), TLSFiles()) is None
    public = parse_cluster("tcp://8.8.8.8:8786")
    assert "not on a private network and TLS is off" in exposure_warning(public, TLSFiles())
    assert exposure_warning(parse_cluster("tls://8.8.8.8:8786"), TLSFiles()) is None
    files = [tmp_path / name for name in ("ca.pem", "cert.pem", "key.pem")]
    for f in files:
        f.write_text("x")
    assert exposure_warning(public, TLSFiles(*map(str, files))) is None


def test_tls_needs_all_three_existing_files(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("x")
    with pytest.raises(UserError, match="--tls-ca-file needs --tls-cert and --tls-key"):
        TLSFiles(str(ca)).check()
    with pytest.raises(UserError, match="--tls-key: .*missing.pem: no such file"):
        TLSFiles(str(ca), str(ca), str(tmp_path / "missing.pem")).check()
    TLSFiles().check()


# -- bundles ---------------------------------------------------------------------------------

def _maven_project(root: Path) -> tuple[Path, Build]:
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref")
    (root / "pom.xml").write_text("<project/>")
    (root / "src" / "main").mkdir(parents=True)
    (root / "src" / "main" / "Bench.java").write_text("class Bench {}")
    (root / "target" / "classes").mkdir(parents=True)
    (root / "target" / "classes" / "Bench.class").write_bytes(b"\xca\xfe")
    jar = root / "target" / "benchmarks.jar"
    jar.write_bytes(b"PK jar bytes")
    return jar, Build(project_dir=root, artifact=jar, tool_versions={"jmh": "1.37"}, java_command=("/no/such/jdk/bin/java",))


def test_a_bundle_ships_the_sources_and_the_artifact_and_nothing_else(tmp_path):
    jar, build = _maven_project(tmp_path / "project")
    info, data = make_bundle("v1", tmp_path / "project", tmp_path / "project", build, BuildSpec(), "jmh")
    assert info.sha256 == hashlib.sha256(data).hexdigest() and info.size == len(data)
    names = tarfile.open(fileobj=io.BytesIO(data)).getnames()
    assert sorted(names) == ["artifact/benchmarks.jar", "source/pom.xml", "source/src/main/Bench.java"]
    assert make_bundle("v1", tmp_path / "project", tmp_path / "project", build, BuildSpec(), "jmh")[1] == data   # reproducible
    unpacked = unpack(info, data, tmp_path / "worker")
    shipped = shipped_build(info, unpacked)
    assert shipped.artifact.read_bytes() == b"PK jar bytes"
    assert (shipped.project_dir / "pom.xml").is_file()
    assert shipped.java_command == ()              # that JDK is not on this "worker": the default java
    assert dict(shipped.tool_versions) == {"jmh": "1.37"}
    assert unpack(info, data, tmp_path / "worker") == unpacked       # once per hash


def test_a_damaged_bundle_is_refused(tmp_path):
    _, build = _maven_project(tmp_path / "project")
    info, data = make_bundle("v1", tmp_path / "project", tmp_path / "project", build, BuildSpec(), "jmh")
    with pytest.raises(RuntimeError, match="arrived damaged"):
        unpack(info, data[:-1] + bytes([data[-1] ^ 1]), tmp_path / "worker")
    assert not (tmp_path / "worker" / info.sha256).exists()


def test_sources_only_for_build_on_workers_and_pyperf_needs_it(tmp_path):
    _, build = _maven_project(tmp_path / "project")
    info, data = make_bundle("v1", tmp_path / "project", tmp_path / "project", None, BuildSpec(module="bench"), "jmh")
    assert info.build_on_worker and dict(info.build) == {"module": "bench"}
    assert not any(n.startswith("artifact/") for n in tarfile.open(fileobj=io.BytesIO(data)).getnames())
    with pytest.raises(UserError, match="add --build-on-workers"):
        make_bundle("v1", tmp_path / "project", tmp_path / "project", build, BuildSpec(), "pyperf")


# -- the worker wrapper -------------------------------------------------------------------------

def test_one_benchmarking_worker_per_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("RIGORBENCH_LOCK_DIR", str(tmp_path))
    with one_worker_per_machine(force=False):
        with pytest.raises(UserError, match="already runs on this machine .*--force"):
            with one_worker_per_machine(force=False):
                pass
        with one_worker_per_machine(force=True):
            pass
        code, _, err = cli("worker", "tcp://127.0.0.1:8786")
        assert code == 2 and err.count("\n") == 1 and "already runs on this machine" in err
    with one_worker_per_machine(force=False):   # released when the first one ended
        pass


def test_the_dask_worker_command_declares_one_slot_and_one_thread(tmp_path):
    files = [str(tmp_path / n) for n in ("ca", "cert", "key")]
    command = dask_worker_command(WorkerOptions(parse_cluster("tls://10.0.0.5:8786"), TLSFiles(*files), name="box-1"))
    assert command[1:4] == ["-m", "distributed.cli.dask_worker", "tls://10.0.0.5:8786"]
    text = " ".join(command)
    assert "--nworkers 1 --nthreads 1 --resources benchmark=1 --name box-1" in text
    assert f"--tls-ca-file {files[0]} --tls-cert {files[1]} --tls-key {files[2]}" in text


# -- the dispatcher's placement -------------------------------------------------------------------

def _store_with_run(tmp_path, design: Placement, slots) -> tuple[ResultStore, int]:
    store = ResultStore.open(tmp_path / "results.db")
    cluster = {**design.as_dict(), "address": "local:2", "slots": slots, "instance_names": []}
    run_id = store.create_run(harness="jmh", project=str(tmp_path), order="rmit", seed=1,
                              settings={"run": RunSettings().as_dict(), "trials": design.trials, "cluster": cluster},
                              versions=[VersionInfo("a", "a", None, None), VersionInfo("b", "b", None, None)],
                              schedule=design.schedule(["a", "b"], 1), tool_version="test")
    return store, run_id


def _dispatcher(store: ResultStore, run_id: int, reporter) -> Dispatcher:
    """A dispatcher of a run stored with the cluster settings of before the one setup key."""
    run = store.run(run_id)
    return Dispatcher(None, store, run, {}, reporter, {}, TrialSpec(run.settings["run"]),
                      lambda items: store.record_executions(run_id, items))


def test_instance_based_orphans_stay_with_their_version(tmp_path):
    design = Placement("instance-based", instances=2, trials_per_instance=2)
    store, run_id = _store_with_run(tmp_path, design, ["x", "y"])
    with store:
        dispatcher = _dispatcher(store, run_id, None)
        assert dispatcher.plan(store.run(run_id).schedule) == 4
        orphan = dispatcher.queues[0].popleft()      # a trial of x's version "a", lost with x
        dispatcher.orphans.append(orphan)
        assert dispatcher._take("y").version == "b"   # y runs "b" only: its own trial, not the orphan
        spare = dispatcher._take("z")                 # a spare worker takes it and now belongs to "a"
        assert spare is orphan and dispatcher.assigned["z"] == "a"
        assert dispatcher._take("z") is None          # nothing else of "a" is orphaned
        assert dispatcher._take("x").trial == 1       # x, back, runs its own remaining trial


def test_trial_based_orphans_go_to_any_instance_first(tmp_path):
    design = Placement("trial-based", instances=2, trials_per_instance=2)
    store, run_id = _store_with_run(tmp_path, design, ["x", "y"])
    with store:
        dispatcher = _dispatcher(store, run_id, None)
        assert dispatcher.plan(store.run(run_id).schedule) == 8
        dispatcher.orphans.append(Job(0, (Execution(0, "a", 0), Execution(0, "b", 1)), 0, None))
        assert dispatcher._take("y").trial == 0       # the late trial before y's own
        assert dispatcher._take("y").trial == 2


def test_instances_that_differ_in_their_jdk_are_reported(tmp_path):
    design = Placement("trial-based", instances=2, trials_per_instance=1)
    store, run_id = _store_with_run(tmp_path, design, ["x", "y"])
    with store:
        for trial, (instance, java) in enumerate((("x", "17.0.15"), ("y", "21.0.2"))):
            record = TrialRecord("done", "t0", "t1", 1.0, (), {"instance": instance, "java_version": java, "tool.jmh": "1.37"})
            store.record_executions(run_id, [(Execution(trial, label, 0), record) for label in ("a", "b")])
        assert tool_mismatches(store, store.run(run_id)) == [
            "warning: the instances differ in java_version: 17.0.15 on x; 21.0.2 on y"]


# -- the command line --------------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["--design", "instance-based"], "--design goes with --cluster"),
    (["--cluster", "local:2", "--design", "instance-based", "--until-decided"], "--until-decided needs --design trial-based"),
    (["--cluster", "ftp://host:1"], "is not a scheduler address"),
    (["--cluster", "local:2", "--tls-cert", "c.pem"], "--tls-cert needs --tls-ca-file and --tls-key"),
    (["--cluster", "local:2", "--order", "sequential"], "--cluster needs --order rmit"),
])
def test_ab_refuses_cluster_misuse_in_one_line(tmp_path, argv, message):
    project = tmp_path / "project"
    (project / "v1").mkdir(parents=True)
    (project / "v2").mkdir()
    code, _, err = cli("ab", str(project), "--base", "v1", "--contender", "v2", "--harness", "jmh", "--no-lint",
                       "--store", str(tmp_path / "r.db"), *argv)
    assert code == 2, err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_worker_refuses_local(tmp_path):
    code, _, err = cli("worker", "local:2")
    assert code == 2 and "connects to a scheduler" in err


def test_tls_files_need_a_tls_address(tmp_path):
    files = [tmp_path / name for name in ("ca.pem", "cert.pem", "key.pem")]
    for f in files:
        f.write_text("x")
    tls = TLSFiles(*map(str, files))
    with pytest.raises(UserError, match="need a tls:// scheduler address, not tcp://10.0.0.5:8786"):
        tls.check(parse_cluster("10.0.0.5:8786"))
    tls.check(parse_cluster("tls://10.0.0.5:8786"))
    tls.check(parse_cluster("local:2"))


class _Future:
    def __init__(self, status: str) -> None:
        self.status, self.cancelled = status, False

    def cancel(self) -> None:
        self.cancelled = True

    def exception(self):
        return None


class _Say:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def message(self, text: str) -> None:
        self.lines.append(text)


def test_a_lost_worker_orphans_its_trial_unless_its_result_already_arrived(tmp_path):
    design = Placement("trial-based", instances=2, trials_per_instance=1)
    store, run_id = _store_with_run(tmp_path, design, ["x", "y"])
    with store:
        say = _Say()
        dispatcher = _dispatcher(store, run_id, say)
        dispatcher.plan(store.run(run_id).schedule)
        running, finished = _Future("pending"), _Future("finished")
        dispatcher.inflight = {"x": (running, dispatcher.queues[0].popleft(), "tcp://a"),
                               "y": (finished, dispatcher.queues[1].popleft(), "tcp://b")}
        dispatcher._find_lost({})                      # both workers are gone
        assert running.cancelled and [job.trial for job in dispatcher.orphans] == [0]
        assert "instance x was lost during trial 1" in say.lines[0]
        assert "y" in dispatcher.inflight and not finished.cancelled   # its result is collected, not run again
