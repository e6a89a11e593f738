"""The corpus extractor (benchmarks/lint_corpus/extract.py) never writes into the shared
lint-real-dev trees it links to: a project named like a linked one is refused before anything
is written, and so is a tree folder that is a link."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.lint.corpus import corpus_script


def _mirror(tmp_path: Path) -> tuple[Path, str]:
    """A bare mirror owner+name/repo holding one JMH file, and its commit."""
    work = tmp_path / "work"
    (work / "bench").mkdir(parents=True)
    (work / "bench" / "B.java").write_text("import org.openjdk.jmh.annotations.Benchmark;\nclass B {}\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "."], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "b"], check=True)
    commit = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()
    mirrors = tmp_path / "mirrors"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirrors / "o+shared" / "repo")], check=True)
    return mirrors, commit


def test_a_project_name_used_twice_is_refused(tmp_path, monkeypatch):
    extract = corpus_script("extract")
    mirrors, commit = _mirror(tmp_path)
    twice = [{"name": "shared", "source": "lint-real-dev", "split": "tune"},
             {"name": "shared", "repository": "o/shared", "commit": commit, "folders": ["bench"], "split": "h"}]
    monkeypatch.setattr(extract, "load_projects", lambda: twice)
    with pytest.raises(SystemExit, match="used twice: shared"):
        extract.main([str(mirrors), str(tmp_path / "out")])
    assert not (tmp_path / "out" / "shared").exists()


def test_a_linked_tree_is_not_written_through(tmp_path, monkeypatch):
    extract = corpus_script("extract")
    mirrors, commit = _mirror(tmp_path)
    linked = tmp_path / "linked"
    linked.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "shared").symlink_to(linked)
    project = {"name": "shared", "repository": "o/shared", "commit": commit, "folders": ["bench"], "split": "h"}
    monkeypatch.setattr(extract, "load_projects", lambda: [project])
    with pytest.raises(SystemExit, match="refusing to write through it"):
        extract.main([str(mirrors), str(tmp_path / "out")])
    assert list(linked.iterdir()) == []
    # the same project into a plain folder is extracted
    assert extract.extract(project, mirrors, tmp_path / "plain") == 1
    assert (tmp_path / "plain" / "shared" / "bench" / "B.java").is_file()


def test_a_mirror_written_with_its_git_directory_inside_is_read(tmp_path):
    # the fetch tool writes some mirrors as owner+name/repo/.git instead of a bare owner+name/repo
    extract = corpus_script("extract")
    mirrors, commit = _mirror(tmp_path)
    bare = mirrors / "o+shared" / "repo"
    inner = mirrors / "o+nested" / "repo"
    inner.mkdir(parents=True)
    bare.rename(inner / ".git")
    project = {"name": "nested", "repository": "o/nested", "commit": commit, "folders": ["bench"], "split": "h"}
    assert extract.extract(project, mirrors, tmp_path / "out") == 1
    assert (tmp_path / "out" / "nested" / "bench" / "B.java").is_file()
