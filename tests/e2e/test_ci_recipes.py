"""The GitHub CI recipes of examples/ci run for real (their own shell scripts, with shorter trials)
on local repositories: the pull-request step on a "pull request" commit that plants the
example's changes, leaving the summary, report and store it uploads; the nightly record and
change-point steps. (Their shape and commands are checked in tests/test_ci_recipes.py.)"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.e2e.projects import commit_all, git
from tests.test_ci_recipes import github_steps, nightly_steps

ROOT = Path(__file__).resolve().parents[2]
TINY = ("--trials 3 --forks 1 --warmup-iterations 1 --iterations 2 --warmup-time 100ms "
        "--iteration-time 100ms --resamples 1000 --bench CsvParse")


def test_the_github_step_runs_on_a_local_pull_request(tmp_path):
    """main holds the example's v1, the pull request its v2 (sumCsv about 1.8x the time, countPrimes
    faster); origin/main is where GitHub's checkout leaves the base branch."""
    assert shutil.which("mvn") and shutil.which("java"), "the end-to-end tests need Maven and a JDK on PATH"
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "jmh-demo" / "v1", repo, ignore=shutil.ignore_patterns("target"))
    commit_all(repo, "main: v1")
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    git(repo, "checkout", "-q", "-b", "pull-request")
    shutil.rmtree(repo / "src")
    shutil.copytree(ROOT / "examples" / "jmh-demo" / "v2" / "src", repo / "src")
    shutil.copy(ROOT / "examples" / "jmh-demo" / "v2" / "pom.xml", repo / "pom.xml")
    commit_all(repo, "pull request: v2")
    (step,) = [s for s in github_steps() if "rigorbench ab" in s.get("run", "")]
    script = step["run"].replace("rigorbench ab ", f"rigorbench ab {TINY} ", 1)
    env = {**os.environ, "GITHUB_BASE_REF": "main", "PROJECT": ".",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-e", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=1200)
    print(done.stderr[-3000:])
    assert done.returncode in (0, 1), done.stderr[-2000:]  # 1: the gate found the regression
    summary = (repo / "summary.md").read_text()
    assert "CsvParseBenchmark" in summary and "| benchmark" in summary.lower()
    assert (done.returncode == 1) == ("| **slower" in summary)  # the gate fails on the verdict, not on words
    assert (repo / "report.html").stat().st_size > 10_000
    with sqlite3.connect(repo / "results.db") as conn:
        labels = [row[0] for row in conn.execute("SELECT label FROM versions ORDER BY position")]
    assert labels == ["base", "pull-request"]


def test_the_github_nightly_steps_run_on_a_local_repository(tmp_path):
    """The record and change-point steps' own scripts, with tiny trials, on a repository holding
    the example's v1: the store keeps one point per benchmark at HEAD, not dirty."""
    assert shutil.which("mvn") and shutil.which("java"), "the end-to-end tests need Maven and a JDK on PATH"
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "jmh-demo" / "v1", repo, ignore=shutil.ignore_patterns("target"))
    head = commit_all(repo, "main: v1")
    env = {**os.environ, "GITHUB_REF_NAME": "main", "PROJECT": ".", "JAVA_TOOL_OPTIONS": f"-Djava.io.tmpdir={tmp_path}",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    tiny = TINY.replace(" --resamples 1000", "").replace("--trials 3", "--trials 2")
    for name, code in (("Record this commit", 0), ("Change points", 0)):
        (step,) = [s for s in nightly_steps() if s.get("name") == name]
        script = step["run"].replace("rigorbench record ", f"rigorbench record {tiny} ", 1)
        done = subprocess.run(["bash", "-e", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=600)
        print(done.stderr[-3000:])
        assert done.returncode == code, done.stderr[-2000:]
    changes = (repo / "changes.md").read_text()
    assert changes.startswith("### history changes: .rigorbench/history.db: 1 series, 1 points")
    with sqlite3.connect(repo / ".rigorbench" / "history.db") as conn:
        rows = conn.execute("SELECT git_commit, dirty, branch FROM history_points").fetchall()
    assert rows and set(rows) == {(head, 0, "main")}
