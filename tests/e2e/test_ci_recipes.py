"""The CI recipes in examples/ci: the files are valid YAML of the shape each CI expects, every
rigorbench command in them is one this rigorbench accepts, and the GitHub pull-request step runs
for real (its own shell script, with shorter trials) on a local repository whose "pull
request" commit plants the example's changes, leaving the summary, report and store it uploads."""

from __future__ import annotations

import io
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rigorbench.cli import build_parser

from tests.e2e.projects import commit_all, git

ROOT = Path(__file__).resolve().parents[2]
CI = ROOT / "examples" / "ci"
TINY = ("--trials 3 --forks 1 --warmup-iterations 1 --iterations 2 --warmup-time 100ms "
        "--iteration-time 100ms --resamples 1000 --bench CsvParse")


def load(name: str) -> dict:
    return yaml.safe_load((CI / name).read_text(encoding="utf-8"))


def github_steps() -> list[dict]:
    (job,) = load("github-pull-request.yml")["jobs"].values()
    return job["steps"]


def gitlab_job() -> dict:
    return load("gitlab-merge-request.yml")["benchmarks"]


def rigorbench_lines(scripts: list[str]) -> list[str]:
    return [line.strip() for script in scripts for line in script.splitlines() if line.strip().startswith("rigorbench ")]


def test_the_recipes_have_the_shape_their_ci_reads():
    document = load("github-pull-request.yml")
    triggers = document.get("on", document.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "pull_request" in triggers and document["permissions"] == {"contents": "read"}
    steps = github_steps()
    assert steps[0]["uses"].startswith("actions/checkout@") and steps[0]["with"]["fetch-depth"] == 0
    assert any(s.get("uses", "").startswith("actions/upload-artifact@") and "report.html" in s["with"]["path"] for s in steps)
    assert any("GITHUB_STEP_SUMMARY" in s.get("run", "") and s.get("if") == "always()" for s in steps)
    job = gitlab_job()
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert job["variables"]["GIT_DEPTH"] == "0" and job["artifacts"]["when"] == "always"


@pytest.mark.parametrize("recipe", ["github", "gitlab"])
def test_every_rigorbench_command_is_one_this_version_accepts(recipe):
    scripts = [s.get("run", "") for s in github_steps()] if recipe == "github" else gitlab_job()["script"]
    (command,) = rigorbench_lines(scripts)
    argv = shlex.split(command.replace("$PROJECT", ".").replace("$base", "HEAD~1"))[1:]
    args, extras = build_parser(io.StringIO(), only=[argv[0]]).parse_known_args(argv)
    assert extras == []
    assert (args.command, args.fail_on, args.format, args.html, args.output) == ("ab", "regression", "markdown", "report.html", "summary.md")
    assert (args.base, args.contender, args.store) == ("HEAD~1", "HEAD", "results.db")


@pytest.mark.e2e
def test_the_github_step_runs_on_a_local_pull_request(tmp_path):
    """main holds the example's v1, the pull request its v2 (sumCsv about 25% slower, countPrimes
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


def nightly_steps() -> list[dict]:
    (job,) = load("github-nightly.yml")["jobs"].values()
    return job["steps"]


def test_the_nightly_recipes_have_the_shape_their_ci_reads():
    document = load("github-nightly.yml")
    triggers = document.get("on", document.get(True))
    assert "schedule" in triggers and triggers["schedule"][0]["cron"] and document["permissions"] == {"contents": "read"}
    steps = nightly_steps()
    restore = next(s for s in steps if s.get("uses", "").startswith("actions/cache/restore@"))
    save = next(s for s in steps if s.get("uses", "").startswith("actions/cache/save@"))
    assert restore["with"]["path"] == save["with"]["path"] == ".rigorbench/history.db" and save["if"] == "always()"
    assert restore["with"]["restore-keys"] and steps.index(restore) < steps.index(save)
    assert any(s.get("uses", "").startswith("actions/upload-artifact@") and ".rigorbench/history.db" in s["with"]["path"] for s in steps)
    job = load("gitlab-nightly.yml")["nightly-benchmarks"]
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "schedule"'}]
    assert job["cache"]["paths"] == [".rigorbench/history.db"] and job["artifacts"]["when"] == "always"


@pytest.mark.parametrize("recipe", ["github", "gitlab"])
def test_every_nightly_command_is_one_this_version_accepts(recipe):
    if recipe == "github":
        scripts = [s.get("run", "") for s in nightly_steps()]
    else:
        scripts = load("gitlab-nightly.yml")["nightly-benchmarks"]["script"]
    record, changes = rigorbench_lines(scripts)
    parsed = []
    for command in (record, changes):
        argv = shlex.split(command.replace("$PROJECT", ".").replace("$GITHUB_REF_NAME", "main").replace("$CI_COMMIT_REF_NAME", "main"))[1:]
        args, extras = build_parser(io.StringIO(), only=[argv[0]]).parse_known_args(argv)
        assert extras == []
        parsed.append(args)
    record_args, changes_args = parsed
    assert (record_args.command, record_args.branch, record_args.store) == ("record", "main", ".rigorbench/history.db")
    assert (changes_args.command, changes_args.history_command, changes_args.store) == ("history", "changes", ".rigorbench/history.db")
    assert (changes_args.branch, changes_args.fail_on, changes_args.format, changes_args.output) == ("main", "regression", "markdown", "changes.md")


@pytest.mark.e2e
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
