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
