"""``rigorbench ab --cluster`` with real JMH on real Dask clusters: a LocalCluster (``local:2``)
in both designs, and a real ``dask scheduler`` with two ``rigorbench worker`` processes, one
of which is killed during a trial, and a submitting process killed mid-run and resumed.

Only PrimeCountBenchmark runs (the demo's planted +50% speed-up), with tiny settings. Under
load a few tiny trials do not always call it, so the verdict is asserted as "never slower",
with an estimate that points up.
"""

from __future__ import annotations

import io
import json
import os
import shutil
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
                store.run(1).setup.cluster)


def speed_up(out: str) -> dict:
    (comparison,) = json.loads(out)["comparisons"]
    assert comparison["verdict"] != "slower"
    assert comparison["ratio"]["estimate"] > 1.1      # the +50% of countPrimes, whatever the load
    return comparison


def test_local_cluster_trial_based_runs_every_version_on_every_instance(project, db, tmp_path):
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


def test_local_cluster_instance_based_gives_each_version_its_own_instance(project, db, tmp_path):
    code, out, err = cli("ab", str(project), "--base", "v1", "--contender", "v2", "--cluster", "local:2",
                         "--design", "instance-based", "--trials", "2", "--store", str(db), "--format", "json", *TINY)
    assert code in (0, 1), err
    # one instance per version: the instances' difference is part of the comparison (Laaber et
    # al.'s reason to prefer trial-based), so only "never slower" is asserted here
    (comparison,) = json.loads(out)["comparisons"]
    assert comparison["verdict"] != "slower"
    assert comparison["baseline"]["instances"] == comparison["contender"]["instances"] == 1
    keys, instance, cluster = stored(db)
    assert sorted(keys) == [(0, "v1"), (1, "v1"), (2, "v2"), (3, "v2")]
    assert {instance[k] for k in keys if k[1] == "v1"} .isdisjoint({instance[k] for k in keys if k[1] == "v2"})
    assert cluster["design"] == "instance-based"
    code, _, err = cli("report", "--store", str(db), "--html", str(tmp_path / "r.html"), "--resamples", "500")
    assert code == 0, err
    table = (tmp_path / "r.html").read_text().split('<table class="instances">')[1].split("</table>")[0]
    assert table.count("did not run here") == 2 and "contender / baseline" not in table   # one version per instance


def make_certificates(folder: Path) -> dict[str, list[str]]:
    """A CA and a certificate per role (openssl), as docs/cluster.md makes them; each role's
    --tls-* options."""
    def openssl(*argv: str) -> None:
        subprocess.run(["openssl", *argv], cwd=folder, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test CA", "-keyout", "ca-key.pem", "-out", "ca.pem")
    (folder / "endpoint.ext").write_text("basicConstraints = CA:FALSE\nkeyUsage = digitalSignature, keyEncipherment\n"
                                         "extendedKeyUsage = serverAuth, clientAuth\n")
    options = {}
    for role in ("scheduler", "worker", "client"):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={role}", "-keyout", f"{role}-key.pem", "-out", f"{role}.csr")
        openssl("x509", "-req", "-in", f"{role}.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial", "-days", "2",
                "-extfile", "endpoint.ext", "-out", f"{role}.pem")
        options[role] = ["--tls-ca-file", str(folder / "ca.pem"), "--tls-cert", str(folder / f"{role}.pem"),
                         "--tls-key", str(folder / f"{role}-key.pem")]
    return options


class RealCluster:
    """A ``dask scheduler`` and named ``rigorbench worker`` processes on loopback, each worker
    with its own lock folder, as if on its own machine, all speaking TLS with certificates of
    one CA (so the client's options are ``self.client``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tls = make_certificates(root)
        self.client = self.tls["client"]
        scheduler_file = root / "scheduler.json"
        self.scheduler = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--protocol", "tls",
             "--no-dashboard", "--scheduler-file", str(scheduler_file), *self.tls["scheduler"]],
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
            [sys.executable, "-m", "rigorbench", "worker", self.address, "--name", name, "--work-dir", str(self.root / name),
             *self.tls["worker"]],
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


def test_a_worker_killed_mid_trial_and_the_submitting_process_killed_lose_nothing(project, db, tmp_path, real_cluster):
    """The engine's real composition: two TLS workers, --until-decided and --warmup auto.
    kill -9 worker-a while it runs a benchmark JVM (the pilot or a trial; it comes back, as a
    restarted machine would), then kill -9 the submitting process once some trials are stored,
    and --resume: every planned execution is stored exactly once, the lost work never was, and
    the looks added one trial per instance."""
    log = tmp_path / "ab.log"
    argv = [sys.executable, "-m", "rigorbench", "ab", str(project), "--base", "v1", "--contender", "v2",
            "--cluster", real_cluster.address, *real_cluster.client, "--instances", "2", "--until-decided", "--min-trials", "3",
            "--max-trials", "6", "--warmup", "auto", "--pilot-warmup", "4", "--store", str(db),
            *TINY[:2], *TINY[4:]]                             # TINY without its --warmup-iterations
    with log.open("w") as stderr:
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr, env=ENV, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while not real_cluster.running_a_trial("worker-a") and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.1)
        assert real_cluster.running_a_trial("worker-a"), "worker-a never ran a trial"
        real_cluster.kill_worker("worker-a")
        real_cluster.start_worker("worker-a")
        wait_for_trials(child, db, 4, poll_s=0.2)          # 2 of the first look's 4 trials, both versions each
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    first = log.read_text()
    assert "instance worker-a was lost during" in first and "it runs again" in first
    assert "until decided: 4 to 6 trials in steps of 2" in first   # 3 rounded up to a trial per instance
    assert "not on a private network" not in first
    before, _, _ = stored(db)
    assert 4 <= len(before) < 8 and len(before) % 2 == 0     # whole trials only: both versions in one transaction

    code, out, err = cli("ab", "--resume", "1", "--store", str(db), "--format", "json")
    assert code in (0, 1), err
    assert f"resuming run 1 on {real_cluster.address}" in err     # its stored address and TLS files
    assert real_cluster.address.startswith("tls://")
    speed_up(out)
    keys, instance, _ = stored(db)
    with ResultStore.open(db, create=False) as store:
        run = store.run(1)
        assert run.status == "finished"
        trials = len({e.trial for e in run.schedule})
        assert sorted(keys) == sorted((e.trial, e.label) for e in run.schedule)   # none lost, none twice
        assert run.setup.warmups and run.setup.pilot_warmup == 4 and run.setup.rule["step"] == 2
    assert trials in (4, 6) and set(before) <= set(keys) and set(instance.values()) <= {"worker-a", "worker-b"}
    assert json.loads(out)["comparisons"], "the resumed run decides at its looks' level"


def test_build_on_workers_builds_each_version_on_the_worker_with_its_own_toolchain(tmp_path):
    """A Go module's sources are shipped and built on the worker (``go`` is on this machine)."""
    assert shutil.which("go"), "the Go end-to-end tests need the go command on PATH"
    project = tmp_path / "go-demo"
    shutil.copytree(ROOT / "examples" / "go-demo", project, ignore=shutil.ignore_patterns(".rigorbench*"))
    db = tmp_path / "results.db"
    code, out, err = cli("ab", str(project), "--base", "v1", "--contender", "v2", "--harness", "go", "--cluster", "local:1",
                         "--build-on-workers", "--trials", "2", "--bench", "BenchmarkAdler32", "--forks", "1",
                         "--iterations", "2", "--warmup-iterations", "0", "--iteration-time", "5ms", "--resamples", "1000",
                         "--no-lint", "--store", str(db), "--format", "json")
    assert code in (0, 1), err
    assert "sources, built on each worker" in err
    assert "built v1 on local-0" in err and "built v2 on local-0" in err   # once each, on the worker
    assert err.count("built v1 on local-0") == 1
    with ResultStore.open(db, create=False) as store:
        environments = [e.environment for e in store.executions(1)]
    assert len(environments) == 4
    assert all(e["build.on_worker"] == "true" and e["tool.go"].startswith("go") for e in environments)
    assert {c["verdict"] for c in json.loads(out)["comparisons"]} <= {"slower", "inconclusive"}
