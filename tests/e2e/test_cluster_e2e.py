"""``rigorbench ab --cluster`` with real JMH on real Dask clusters: a LocalCluster (``local:2``)
in both designs, and a real ``dask scheduler`` with two ``rigorbench worker`` processes, one
of which is killed during a trial, and a submitting process killed mid-run and resumed.

Only PrimeCountBenchmark runs (the demo's planted +50% speed-up), with tiny settings. The
local workers share this machine's two CPUs, so a trial-based verdict is asserted as "never
slower, and faster unless the load hid it" (the estimate must still point up).
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.store import ResultStore
from tests.e2e.killing import wait_for_trials

pytestmark = pytest.mark.e2e
psutil = pytest.importorskip("psutil")   # a dependency of distributed

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--forks", "1", "--warmup-iterations", "1", "--iterations", "3", "--warmup-time", "100ms",
        "--iteration-time", "100ms", "--resamples", "1000", "--no-prof-gc", "--no-lint", "--bench", "PrimeCountBenchmark"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def stored(db: Path) -> tuple[list[tuple[int, str]], dict[tuple[int, str], str], dict]:
    """The stored (trial, version) keys, the instance of each, and the run's cluster settings."""
    with ResultStore.open(db, create=False) as store:
        executions = store.executions(1)
        return ([(e.trial, e.label) for e in executions], {(e.trial, e.label): e.environment["instance"] for e in executions},
                store.run(1).settings["cluster"])


def speed_up(out: str) -> dict:
    (comparison,) = json.loads(out)["comparisons"]
    assert comparison["verdict"] != "slower"
    assert comparison["ratio"]["estimate"] > 1.1      # the +50% of countPrimes, whatever the load
    return comparison


def test_local_cluster_trial_based_runs_every_version_on_every_instance(project, tmp_path):
    db = tmp_path / "results.db"
    code, out, err = cli("ab", str(project), "--base", "v1", "--contender", "v2", "--cluster", "local:2", "--trials", "2",
                         "--store", str(db), "--format", "json", *TINY)
    assert code == 0, err
    assert "not independent instances" in err and "trials ran on 2 instances: local-0, local-1" in err
    comparison = speed_up(out)
    assert comparison["baseline"]["instances"] == comparison["contender"]["instances"] == 2
    assert comparison["baseline"]["trials"] == 4
    keys, instance, cluster = stored(db)
    assert sorted(keys) == sorted((t, v) for t in range(4) for v in ("v1", "v2"))   # each planned trial once
    assert cluster["design"] == "trial-based" and sorted(cluster["instance_names"]) == ["local-0", "local-1"]
    for trial in range(4):   # both versions of a trial ran on the same instance
        assert instance[(trial, "v1")] == instance[(trial, "v2")]
    # the instance is a level of the data: analyze shows its share of the variance
    code, out, err = cli("analyze", "--store", str(db), "--version", "v2", "--resamples", "1000", "--format", "json")
    assert code == 0, err
    (benchmark,) = json.loads(out)["benchmarks"]
    assert benchmark["instances"] == 2
    # the report groups by instance, under the names the dispatcher recorded
    code, _, err = cli("report", "--store", str(db), "--html", str(tmp_path / "r.html"), "--resamples", "500")
    assert code == 0, err
    table = (tmp_path / "r.html").read_text().split('<table class="instances">')[1].split("</table>")[0]
    assert [row.split("<th>")[1].split("</th>")[0] for row in table.split("<tbody>")[1].split("</tr>")[:-1]] == \
        cluster["instance_names"]


def test_local_cluster_instance_based_gives_each_version_its_own_instance(project, tmp_path):
    db = tmp_path / "results.db"
    code, out, err = cli("ab", str(project), "--base", "v1", "--contender", "v2", "--cluster", "local:2",
                         "--design", "instance-based", "--trials", "2", "--store", str(db), "--format", "json", *TINY)
    assert code in (0, 1), err
    comparison = speed_up(out)
    assert comparison["baseline"]["instances"] == comparison["contender"]["instances"] == 1
    keys, instance, cluster = stored(db)
    assert sorted(keys) == [(0, "v1"), (1, "v1"), (2, "v2"), (3, "v2")]
    assert {instance[k] for k in keys if k[1] == "v1"} .isdisjoint({instance[k] for k in keys if k[1] == "v2"})
    assert cluster["design"] == "instance-based"
    code, _, err = cli("report", "--store", str(db), "--html", str(tmp_path / "r.html"), "--resamples", "500")
    assert code == 0, err
    table = (tmp_path / "r.html").read_text().split('<table class="instances">')[1].split("</table>")[0]
    assert table.count("did not run here") == 2 and "contender / baseline" not in table   # one version per instance


class RealCluster:
    """A ``dask scheduler`` and named ``rigorbench worker`` processes on loopback, each worker
    with its own lock folder, as if on its own machine."""

    def __init__(self, root: Path) -> None:
        self.root = root
        scheduler_file = root / "scheduler.json"
        self.scheduler = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
             "--no-dashboard", "--scheduler-file", str(scheduler_file)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, start_new_session=True)
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(0.2)
        self.address = json.loads(scheduler_file.read_text())["address"]
        self.workers: dict[str, subprocess.Popen] = {}

    def start_worker(self, name: str) -> None:
        locks = self.root / f"locks-{name}"
        locks.mkdir(exist_ok=True)
        self.workers[name] = subprocess.Popen(
            [sys.executable, "-m", "rigorbench", "worker", self.address, "--name", name, "--work-dir", str(self.root / name)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**ENV, "RIGORBENCH_LOCK_DIR": str(locks)},
            start_new_session=True)

    def kill_worker(self, name: str) -> None:
        """kill -9 the worker and everything it started (its nanny, its JVMs)."""
        process = self.workers.pop(name)
        family = [process.pid] + [p.pid for p in psutil.Process(process.pid).children(recursive=True)]
        for pid in family:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        process.wait()

    def running_a_trial(self, name: str) -> bool:
        """Whether the worker has a benchmark JVM running."""
        try:
            children = psutil.Process(self.workers[name].pid).children(recursive=True)
            return any("java" in (c.name() or "") for c in children)
        except psutil.Error:
            return False

    def close(self) -> None:
        for name in list(self.workers):
            self.kill_worker(name)
        os.killpg(self.scheduler.pid, signal.SIGKILL)
        self.scheduler.wait()


@pytest.fixture(scope="module")
def real_cluster(tmp_path_factory):
    cluster = RealCluster(tmp_path_factory.mktemp("cluster"))
    cluster.start_worker("worker-a")
    cluster.start_worker("worker-b")
    yield cluster
    cluster.close()


def test_a_worker_killed_during_a_trial_loses_nothing_and_the_trial_runs_again(project, tmp_path, real_cluster):
    db = tmp_path / "results.db"
    argv = [sys.executable, "-m", "rigorbench", "ab", str(project), "--base", "v1", "--contender", "v2",
            "--cluster", real_cluster.address, "--trials", "2", "--store", str(db), "--format", "json", *TINY]
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    deadline = time.monotonic() + 240
    while not real_cluster.running_a_trial("worker-a") and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.1)
    assert real_cluster.running_a_trial("worker-a"), "worker-a never ran a trial"
    real_cluster.kill_worker("worker-a")
    real_cluster.start_worker("worker-a")      # it comes back, as a restarted machine would
    out, err = child.communicate(timeout=400)
    assert child.returncode in (0, 1), err
    assert "instance worker-a was lost during trial" in err
    speed_up(out)
    keys, instance, cluster = stored(db)
    assert sorted(keys) == sorted((t, v) for t in range(4) for v in ("v1", "v2"))   # none lost, none twice
    assert set(instance.values()) <= {"worker-a", "worker-b"}
    with ResultStore.open(db, create=False) as store:
        assert store.run(1).status == "finished"


def test_the_submitting_process_killed_mid_run_resumes_on_the_same_cluster(project, tmp_path, real_cluster):
    db = tmp_path / "results.db"
    argv = [sys.executable, "-m", "rigorbench", "ab", str(project), "--base", "v1", "--contender", "v2",
            "--cluster", real_cluster.address, "--trials", "2", "--store", str(db), *TINY]
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, start_new_session=True)
    try:
        wait_for_trials(child, db, 2, poll_s=0.2)
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    before, _, _ = stored(db)
    assert 2 <= len(before) < 8
    code, out, err = cli("ab", "--resume", "1", "--store", str(db), "--format", "json")
    assert code in (0, 1), err
    assert f"resuming run 1 on {real_cluster.address}" in err
    speed_up(out)
    keys, _, _ = stored(db)
    assert sorted(keys) == sorted((t, v) for t in range(4) for v in ("v1", "v2"))
    assert set(before) <= set(keys)
