"""``rigorbench record`` on the real example project at two commits, then the history commands
on the store it wrote: real git, real Maven, real JMH, real SQLite.

The example's v1 and v2 become two commits of a fresh repository a day apart. Settings are
tiny and one benchmark runs (the planted 1.5x improvement of PrimeCountBenchmark); what is
asserted is what the store and the history hold, not timings.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.store import ResultStore
from tests.e2e.killing import wait_for_trials

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PRIME = "dev.rigorbench.demo.PrimeCountBenchmark.countPrimes"
TINY = ["--trials", "2", "--forks", "1", "--warmup-iterations", "1", "--iterations", "2",
        "--warmup-time", "100ms", "--iteration-time", "100ms", "--bench", "PrimeCount", "--no-lint"]

assert shutil.which("mvn") and shutil.which("java"), "the end-to-end tests need Maven and a JDK on PATH"


def git(repo: Path, *args: str, date: str) -> None:
    env = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date, "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=repo, env=env,
                   capture_output=True, check=True)


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """The example's v1, then v2, as two commits of one repository."""
    path = tmp_path_factory.mktemp("record") / "demo"
    shutil.copytree(ROOT / "examples" / "jmh-demo" / "v1", path, ignore=shutil.ignore_patterns("target"))
    git(path, "init", "-q", date="2026-11-01T10:00:00Z")
    git(path, "add", "-A", date="2026-11-01T10:00:00Z")
    git(path, "commit", "-qm", "v1", date="2026-11-01T10:00:00Z")
    shutil.rmtree(path / "src")
    shutil.copytree(ROOT / "examples" / "jmh-demo" / "v2", path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("target"))
    git(path, "add", "-A", date="2026-11-02T10:00:00Z")
    git(path, "commit", "-qm", "v2", date="2026-11-02T10:00:00Z")
    return path


def rb(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in args], out, err)
    return code, out.getvalue(), err.getvalue()


def test_record_two_commits_then_list_show_and_changes(repo, tmp_path, monkeypatch):
    # JMH's lock file goes to this test's own folder: no wait on, or for, other JMH runs.
    monkeypatch.setenv("JAVA_TOOL_OPTIONS", f"-Djava.io.tmpdir={tmp_path}")
    db = repo.parent / "results.db"     # the build cache next to it serves the other tests too
    for rev in ("HEAD~1", "HEAD"):
        code, out, err = rb("record", repo, "--rev", rev, "--branch", "main", "--store", db, *TINY)
        print(err[-1500:])
        assert code == 0, err
        assert "executions (0 failed)" in out and "countPrimes throughput (ops/ms) (branch main; machine " in out
    code, out, err = rb("history", "list", "--store", db, "--format", "json")
    assert code == 0, err
    (series,) = json.loads(out)["series"]
    assert (series["benchmark"], series["metric"], series["unit"], series["points"]) == (PRIME, "throughput", "ops/ms", 2)
    assert series["branch"] == "main" and "CPUs" in series["machine"]
    assert (series["first"]["time"], series["last"]["time"]) == ("2026-11-01T10:00:00+00:00", "2026-11-02T10:00:00+00:00")
    code, out, err = rb("history", "show", "--store", db, "--format", "json")
    points = json.loads(out)["series"][0]["history"]
    assert [(p["run_id"], p["n"], p["dirty"]) for p in points] == [(1, 4, False), (2, 4, False)]  # 2 trials x 2 iterations
    assert all(p["ci_low"] <= p["mean"] <= p["ci_high"] for p in points)
    with ResultStore.read(db) as store:
        commits = [store.run(run_id).versions[0].commit for run_id in (1, 2)]
        assert [p["commit"] for p in points] == commits and len(set(commits)) == 2
    code, out, err = rb("history", "list", "--store", db, "--metric", "all")
    assert code == 0 and "alloc (B/op)" in out
    code, out, err = rb("history", "changes", "--store", db, "--fail-on", "regression")
    assert code == 0 and "1 series, 2 points" in out and "0 change points in 0 of 1 series" in out, err


def child_pids(parent: int) -> list[int]:
    """The processes whose parent is ``parent`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == parent:
                found.append(int(stat.parent.name))
    return found


def test_record_killed_mid_run_resumes_with_the_missing_trials_and_adds_one_point(repo, tmp_path, monkeypatch):
    # JMH's lock file goes to this test's own folder, for the killed run and the resumed one.
    monkeypatch.setenv("JAVA_TOOL_OPTIONS", f"-Djava.io.tmpdir={tmp_path}")
    db = repo.parent / "resume.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "JAVA_TOOL_OPTIONS": f"-Djava.io.tmpdir={tmp_path}"}
    tiny = [a if a != "2" or i != 1 else "3" for i, a in enumerate(TINY)]   # --trials 3
    argv = [sys.executable, "-m", "rigorbench", "record", str(repo), "--rev", "HEAD", "--branch", "main",
            "--store", str(db), *tiny]
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
        wait_for_trials(child, db, 1)
    finally:
        # A crash of the machine: rigorbench, and JMH in the process group it started for it.
        harness = child_pids(child.pid)
        os.killpg(child.pid, signal.SIGKILL)
        for pid in harness:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        child.wait()
    with ResultStore.open(db, create=False) as store:
        stored_before = len(store.finished(1))
        assert 1 <= stored_before < 3 and store.run(1).status == "running"
        assert store.history_points() == []      # no point for a run that is not complete

    code, out, err = rb("record", "--resume", "1", "--store", db)
    assert code == 0, err
    assert f"resuming run 1: {stored_before} of 3 executions already stored" in err
    assert out.startswith(f"run 1: {3 - stored_before} executions (0 failed)")
    with ResultStore.open(db, create=False) as store:
        assert sorted(e.trial for e in store.executions(1)) == [0, 1, 2] and store.run(1).status == "finished"
        points = store.history_points()
        head = store.run(1).versions[0].commit
    # One point per benchmark case and metric (throughput, alloc, ...), all of this run.
    assert len({(p.case, p.metric) for p in points}) == len(points) > 1
    (point,) = [p for p in points if p.metric.primary]
    assert (point.commit, point.branch, point.run_id, point.n) == (head, "main", 1, 6)   # 3 trials x 2 iterations
    assert point.time == "2026-11-02T10:00:00+00:00" and {p.run_id for p in points} == {1}
    code, out, err = rb("record", "--resume", "1", "--store", db)
    assert code == 0 and "nothing added" in out
    with ResultStore.open(db, create=False) as store:
        assert len(store.history_points()) == len(points)
