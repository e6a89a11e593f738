"""``rigorbench record`` on the real example project at two commits, then the history commands
on the store it wrote: real git, real Maven, real JMH, real SQLite.

The example's v1 and v2 become two commits of a fresh repository a day apart. Settings are
tiny and one benchmark runs (the planted 1.5x improvement of PrimeCountBenchmark); what is
asserted is what the store and the history hold, not timings.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.store import ResultStore

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
    db = tmp_path / "results.db"
    for rev in ("HEAD~1", "HEAD"):
        code, out, err = rb("record", repo, "--rev", rev, "--branch", "main", "--store", db, *TINY)
        print(err[-1500:])
        assert code == 0, err
        assert "trials (0 failed)" in out and "countPrimes throughput (ops/ms) (branch main; machine " in out
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
