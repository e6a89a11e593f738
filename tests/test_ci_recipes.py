"""The CI recipes in examples/ci: the files are valid YAML of the shape each CI expects, and every
rigorbench command in them is one this rigorbench accepts. (The GitHub steps run for real in
tests/e2e/test_ci_recipes.py.)"""

from __future__ import annotations

import io
import shlex
from pathlib import Path

import pytest
import yaml

from rigorbench.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / "examples" / "ci"


def load(name: str) -> dict:
    return yaml.safe_load((CI / name).read_text(encoding="utf-8"))


def github_steps() -> list[dict]:
    (job,) = load("github-pull-request.yml")["jobs"].values()
    return job["steps"]


def gitlab_job() -> dict:
    return load("gitlab-merge-request.yml")["benchmarks"]


def rigorbench_lines(scripts: list[str]) -> list[str]:
    return [line.strip() for script in scripts for line in script.splitlines() if line.strip().startswith("rigorbench ")]


def nightly_steps() -> list[dict]:
    (job,) = load("github-nightly.yml")["jobs"].values()
    return job["steps"]


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
