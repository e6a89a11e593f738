"""Turn a version as named by the user (a directory or a git revision) into a project tree.

A directory is used where it is. A git revision of the repository that holds the benchmark
project is checked out into a temporary worktree (``git worktree add --detach``), so the
user's working tree is never touched; the worktree is removed afterwards. Git is called
with argument lists only: revision names never reach a shell.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rigorbench.errors import UserError
from rigorbench.experiment.plan import VersionSpec
from rigorbench.harness.environment import git_info
from rigorbench.store.api import VersionInfo


@dataclass(frozen=True)
class PreparedVersion:
    info: VersionInfo
    project_dir: Path
    worktree: Path | None = None   # to remove when done


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise UserError("git is not installed; give versions as directories") from None


def resolve_directory(project: Path, source: str) -> Path | None:
    """A version directory, looked up relative to the project first, then as given."""
    for candidate in (project / source, Path(source)):
        if candidate.is_dir():
            return candidate.resolve()
    return None


def prepare_version(project: Path, spec: VersionSpec, scratch: Path) -> PreparedVersion:
    directory = resolve_directory(project, spec.source)
    if directory is not None:
        commit, dirty = git_info(directory)
        return PreparedVersion(VersionInfo(spec.label, spec.source, commit, dirty), directory)
    return checkout_revision(project, spec, scratch)


def checkout_revision(project: Path, spec: VersionSpec, scratch: Path) -> PreparedVersion:
    """``project`` at git revision ``spec.source``, in a new worktree under ``scratch``."""
    top = _git(["rev-parse", "--show-toplevel"], project)
    if top.returncode != 0:
        raise UserError(f"{spec.source}: not a directory, and {project} is not in a git repository")
    root = Path(top.stdout.strip())
    # A name starting with "-" would be read as an option by git: never pass it on.
    resolved = None
    if not spec.source.startswith("-"):
        verify = ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{spec.source}^{{commit}}"]
        resolved = _git(verify, root)
    if resolved is None or resolved.returncode != 0:
        raise UserError(f"{spec.source}: neither a directory nor a git revision of {root}")
    commit = resolved.stdout.strip()
    target = Path(tempfile.mkdtemp(prefix=f"wt-{commit[:10]}-", dir=scratch))
    added = _git(["worktree", "add", "--detach", "--force", str(target), commit], root)
    if added.returncode != 0:
        # git's last line ("Could not reset index file") is rarely the cause; its error: lines
        # before it name it ("unable to read sha1 file of collate/tables.go"): show them all.
        lines = [line for line in added.stderr.strip().splitlines() if line.strip()]
        causes = [line for line in lines if line.startswith(("error:", "fatal:"))] or lines[-1:]
        remove_worktree(root, target)
        raise UserError(f"{spec.source}: git worktree add failed: {causes[0] if causes else 'no message'}",
                        details=causes[1:10])
    relative = os.path.relpath(project.resolve(), root.resolve())
    project_dir = (target / relative).resolve()
    if not project_dir.is_dir():
        remove_worktree(root, target)
        raise UserError(f"{spec.source}: the benchmark project {relative} does not exist at that revision")
    return PreparedVersion(VersionInfo(spec.label, spec.source, commit, False), project_dir, target)


def remove_worktree(project: Path, worktree: Path) -> None:
    top = _git(["rev-parse", "--show-toplevel"], project)
    root = Path(top.stdout.strip()) if top.returncode == 0 else project
    _git(["worktree", "remove", "--force", str(worktree)], root)


def checkout_root(version: PreparedVersion) -> Path | None:
    """The top of the version's checkout (its worktree, or the git repository it is in)."""
    if version.worktree is not None:
        return version.worktree
    found = _git(["rev-parse", "--show-toplevel"], version.project_dir)
    return Path(found.stdout.strip()) if found.returncode == 0 else None


def cache_scope(version: PreparedVersion) -> str | None:
    """What names a version's sources for the build cache: its commit, when the tree is
    clean; None when it is dirty or not under git."""
    if not version.info.commit or version.info.dirty is not False:
        return None
    return version.info.commit


@dataclass(frozen=True)
class CommitFacts:
    """A commit as history points name it: its full id, its committer time (ISO 8601)."""

    commit: str
    time: str


def git_repository(path: Path) -> Path | None:
    """The top of the git repository holding ``path``, None when it is in none."""
    try:
        found = _git(["rev-parse", "--show-toplevel"], path)
    except UserError:  # git not installed: no repository can be read
        return None
    return Path(found.stdout.strip()) if found.returncode == 0 else None


def commit_facts(repository: Path, revision: str) -> CommitFacts:
    """The commit ``revision`` names in ``repository``; UserError when it names none.

    The name goes to git as one argument after ``--end-of-options``; a name starting with
    "-" is refused rather than read as an option."""
    resolved = None
    if revision and not revision.startswith("-"):
        resolved = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], repository)
    if resolved is None or resolved.returncode != 0:
        raise UserError(f"{revision}: not a commit of the git repository {repository}")
    commit = resolved.stdout.strip()
    shown = _git(["show", "-s", "--format=%cI", commit], repository)
    if shown.returncode != 0 or not shown.stdout.strip():
        raise UserError(f"{revision}: git cannot show the time of commit {commit}")
    return CommitFacts(commit, shown.stdout.strip())


def remote_url(path: Path) -> str | None:
    """The URL of the git remote ``origin`` (else of the first remote) of the repository
    holding ``path``; None outside git or without a remote."""
    try:
        names = _git(["remote"], path)
    except UserError:
        return None
    remotes = names.stdout.split() if names.returncode == 0 else []
    if not remotes:
        return None
    found = _git(["remote", "get-url", "--", "origin" if "origin" in remotes else remotes[0]], path)
    return found.stdout.strip() or None if found.returncode == 0 else None
