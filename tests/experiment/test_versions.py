"""Versions as directories or git revisions, with a real git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rigorbench.errors import UserError
from rigorbench.experiment.plan import VersionSpec
from rigorbench.experiment.versions import prepare_version, remove_worktree


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    (root / "bench").mkdir(parents=True)
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / "bench" / "Lib.java").write_text("// version one\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "one")
    (root / "bench" / "Lib.java").write_text("// version two\n")
    git(root, "commit", "-qam", "two")
    return root


def test_a_revision_is_checked_out_into_a_worktree_and_removed_after(repo, tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (repo / "bench" / "Lib.java").write_text("// uncommitted edit\n")
    version = prepare_version(repo / "bench", VersionSpec("old", "HEAD~1"), scratch)
    assert version.info.commit == git(repo, "rev-parse", "HEAD~1")
    assert version.info.dirty is False
    assert (version.project_dir / "Lib.java").read_text() == "// version one\n"
    # The user's working tree is untouched.
    assert (repo / "bench" / "Lib.java").read_text() == "// uncommitted edit\n"
    remove_worktree(repo / "bench", version.worktree)
    assert not version.worktree.exists()
    assert "old" not in git(repo, "worktree", "list")


def test_a_directory_is_used_in_place_with_its_git_state(repo, tmp_path):
    (repo / "bench" / "Lib.java").write_text("// uncommitted edit\n")
    version = prepare_version(repo, VersionSpec("here", "bench"), tmp_path)
    assert version.project_dir == (repo / "bench").resolve()
    assert version.worktree is None
    assert version.info.commit == git(repo, "rev-parse", "HEAD")
    assert version.info.dirty is True


@pytest.mark.parametrize("source", ["no-such-rev", "--upload-pack=touch /tmp/x"])
def test_neither_directory_nor_revision_is_a_clear_error(repo, tmp_path, source):
    with pytest.raises(UserError, match="neither a directory nor a git revision"):
        prepare_version(repo / "bench", VersionSpec("x", source), tmp_path)


def test_a_revision_outside_git_is_a_clear_error(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(UserError, match="not in a git repository"):
        prepare_version(tmp_path / "plain", VersionSpec("x", "HEAD"), tmp_path)


def test_a_checkout_that_fails_names_gits_cause(repo, tmp_path):
    """A clone missing a blob (a partial mirror) cannot check the revision out: the error names
    the file git could not read, not only git's last line."""
    blob = git(repo, "rev-parse", "HEAD~1:bench/Lib.java")
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with pytest.raises(UserError) as raised:
        prepare_version(repo / "bench", VersionSpec("old", "HEAD~1"), scratch)
    everything = " ".join([str(raised.value), *raised.value.details])
    assert "git worktree add failed: error:" in str(raised.value) and "bench/Lib.java" in everything
    assert "old" not in git(repo, "worktree", "list") and len(git(repo, "worktree", "list").splitlines()) == 1
