"""Fixtures shared by the end-to-end tests.

Building an example takes most of a short real run (Maven and its shade plugin: tens of
seconds a version on a loaded 2-CPU machine), so the session builds each one once: the
examples are committed to git repositories made once per session (a clean commit is what the
build cache keeps), and every store a test makes with ``db`` has the session's build cache
next to it. The commits are made with fixed dates, so every test worker (pytest-xdist) makes
the same commit, and the workers share one build cache: what one worker built, the other takes
from the cache (the cache renames complete entries into place, so two workers building the same
version at once both succeed). A test that asserts what a first build does (or does not) do
makes its own repository and store instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def committed_demo(name: str, root: Path) -> Path:
    """examples/NAME-demo (v1 and v2 as folders) as one commit of a new git repository."""
    project = root / f"{name}-demo"
    shutil.copytree(ROOT / "examples" / f"{name}-demo", project,
                    ignore=shutil.ignore_patterns("target", ".rigorbench*"))
    (project / ".gitignore").write_text("target/\n.rigorbench*/\n")
    dated = {**os.environ, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "the demo"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=project,
                       check=True, capture_output=True, env=dated)
    return project


@pytest.fixture(scope="session")
def project(tmp_path_factory) -> Path:
    """examples/jmh-demo, committed once per session (tests must not change it)."""
    return committed_demo("jmh", tmp_path_factory.mktemp("e2e"))


@pytest.fixture(scope="session")
def build_cache(tmp_path_factory) -> Path:
    """The session's rigorbench build cache, shared by every store made with ``db`` (and by
    every test worker: their base folders are siblings in the session's folder)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "build-cache"
        shared.mkdir(exist_ok=True)
        return shared
    return tmp_path_factory.mktemp("build-cache")


@pytest.fixture
def db(tmp_path, build_cache) -> Path:
    """A new store in ``tmp_path`` whose build cache (``builds`` beside it) is the session's."""
    (tmp_path / "builds").symlink_to(build_cache, target_is_directory=True)
    return tmp_path / "results.db"
