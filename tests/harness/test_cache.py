"""The build cache: what it keys on, what it keeps, and what it refuses."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from rigorbench.harness.cache import BuildCache, cache_key, self_contained


def jar(path: Path, *, jmh_inside=True, class_path="") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        manifest = "Manifest-Version: 1.0\nMain-Class: org.openjdk.jmh.Main\n" + (f"Class-Path: {class_path}\n" if class_path else "")
        archive.writestr("META-INF/MANIFEST.MF", manifest)
        if jmh_inside:
            archive.writestr("org/openjdk/jmh/Main.class", b"\xca\xfe")
    return path


IDENTITY = {"harness": "jmh", "command": ["mvn", "package"], "java": {"java": "17"}}


def test_put_then_get_returns_a_copy_with_its_metadata(tmp_path):
    built = jar(tmp_path / "wt" / "target" / "benchmarks.jar")
    cache = BuildCache(tmp_path / "builds", "abc123")
    assert cache.get(IDENTITY) is None
    kept = cache.put(IDENTITY, built, {"seconds": 12.5})
    assert kept is not None and kept.read_bytes() == built.read_bytes() and tmp_path / "builds" in kept.parents
    built.unlink()  # the worktree goes away; the cached copy stays
    hit = cache.get(IDENTITY)
    assert hit.artifact == kept and hit.meta["seconds"] == 12.5 and hit.meta["jar"] == "benchmarks.jar"
    # Another commit, other settings, or another JDK: a miss.
    assert BuildCache(tmp_path / "builds", "def456").get(IDENTITY) is None
    assert cache.get({**IDENTITY, "command": ["mvn", "-Pfast", "package"]}) is None
    assert cache.get({**IDENTITY, "java": {"java": "21"}}) is None
    assert not list((tmp_path / "builds").glob(".tmp-*")), "no staging directory is left behind"


def test_dirty_trees_and_jars_that_need_other_files_are_not_cached(tmp_path):
    built = jar(tmp_path / "b.jar")
    assert BuildCache(tmp_path / "builds", None).put(IDENTITY, built, {}) is None
    assert not (tmp_path / "builds").exists()
    thin = jar(tmp_path / "thin.jar", class_path="lib/jmh-core-1.37.jar")
    assert not self_contained(thin) and BuildCache(tmp_path / "builds", "abc").put(IDENTITY, thin, {}) is None
    assert not self_contained(jar(tmp_path / "nojmh.jar", jmh_inside=False))
    (tmp_path / "broken.jar").write_text("not a zip")
    assert not self_contained(tmp_path / "broken.jar")


def test_a_damaged_entry_is_a_miss_not_an_error(tmp_path):
    cache = BuildCache(tmp_path / "builds", "abc")
    kept = cache.put(IDENTITY, jar(tmp_path / "b.jar"), {})
    (kept.parent / "build.json").write_text("{not json")
    assert cache.get(IDENTITY) is None
    (kept.parent / "build.json").write_text(json.dumps({"jar": "gone.jar"}))
    assert cache.get(IDENTITY) is None


def test_key_depends_on_every_part_and_not_on_dict_order():
    assert cache_key("c", {"a": 1, "b": 2}) == cache_key("c", {"b": 2, "a": 1})
    assert len({cache_key("c", {"a": 1}), cache_key("d", {"a": 1}), cache_key("c", {"a": 2})}) == 3


def test_paths_inside_the_checkout_are_made_relative(tmp_path):
    cache = BuildCache(tmp_path, "abc", root=tmp_path / "wt")
    assert cache.relative(tmp_path / "wt" / "bench" / "target") == "bench/target"
    assert cache.relative("mvn") == "mvn" and cache.relative("/usr/bin/gradle") == "/usr/bin/gradle"


def test_sources_hash_follows_the_sources_and_leaves_build_output_out(tmp_path):
    from rigorbench.harness.cache import sources_hash

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.go").write_text("package a\n")
    (tmp_path / "go.mod").write_text("module x\n")
    first = sources_hash(tmp_path)
    for output in (".rigorbench-go/0.test", ".git/HEAD", "__pycache__/a.pyc", "out/CMakeCache.txt", "out/bench"):
        (tmp_path / output).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / output).write_text("built")
    assert sources_hash(tmp_path) == first
    (tmp_path / "pkg" / "a.go").write_text("package a // changed\n")
    changed = sources_hash(tmp_path)
    assert changed != first
    (tmp_path / "pkg" / "a.go").rename(tmp_path / "pkg" / "b.go")      # same bytes, another name
    assert sources_hash(tmp_path) not in (first, changed)


def test_files_are_kept_and_found_only_whole_and_only_for_clean_commits(tmp_path):
    built = tmp_path / "wt" / ".rigorbench-go"
    built.mkdir(parents=True)
    (built / "0.test").write_bytes(b"\x7fELF")
    (built / "0.test").chmod(0o755)
    (built / "manifest.json").write_text("[]")
    identity = {"harness": "go", "sources": "abc"}
    files = {"0.test": built / "0.test", "manifest.json": built / "manifest.json"}
    assert BuildCache(tmp_path / "builds", None).put_files(identity, files, {}) is None      # a dirty tree
    cache = BuildCache(tmp_path / "builds", "c0ffee")
    assert cache.get_files(identity) is None
    kept = cache.put_files(identity, files, {"seconds": 3.0})
    assert (kept / "0.test").read_bytes() == b"\x7fELF" and (kept / "0.test").stat().st_mode & 0o111
    hit = cache.get_files(identity)
    assert hit.artifact == kept and hit.meta["files"] == ["0.test", "manifest.json"] and hit.meta["seconds"] == 3.0
    assert cache.get_files({**identity, "sources": "abd"}) is None
    (kept / "0.test").unlink()                         # a damaged entry is a miss
    assert cache.get_files(identity) is None
    assert cache.put_files(identity, {"../x": built / "0.test"}, {}) is None


def test_a_build_in_place_is_found_once_complete_and_an_interrupted_one_is_emptied(tmp_path):
    cache = BuildCache(tmp_path / "builds", "c0ffee")
    identity = {"harness": "pyperf", "sources": "abc"}
    entry, meta = cache.in_place(identity)
    assert meta is None and entry.is_dir()
    (entry / "venv").mkdir()                           # interrupted here: no build.json
    entry_again, meta = cache.in_place(identity)
    assert entry_again == entry and meta is None and not (entry / "venv").exists()
    (entry / "venv").mkdir()
    cache.complete(entry, {"tool_versions": {"pyperf": "2.10.0"}})
    assert cache.in_place(identity) == (entry, {"tool_versions": {"pyperf": "2.10.0"}})
    assert (entry / "venv").is_dir() and BuildCache(tmp_path / "builds", None).in_place(identity) is None
    # The environment went away but its metadata stayed: a miss, and the entry is emptied.
    assert cache.in_place(identity, required="venv/bin/python") == (entry, None) and not (entry / "venv").exists()


def test_two_git_worktrees_of_one_commit_have_one_sources_hash(tmp_path):
    """A worktree's ``.git`` is a file naming its own admin folder; it is not a source."""
    import subprocess

    from rigorbench.harness.cache import sources_hash

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.go").write_text("package a\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@e", "-C", str(repo)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "a.go"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    trees = [tmp_path / "wt1", tmp_path / "wt2"]
    for tree in trees:
        subprocess.run([*git, "worktree", "add", "-q", "--detach", str(tree), "HEAD"], check=True)
    assert (trees[0] / ".git").is_file() and (trees[0] / ".git").read_text() != (trees[1] / ".git").read_text()
    assert sources_hash(trees[0]) == sources_hash(trees[1])
