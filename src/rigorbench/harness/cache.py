"""A cache of built benchmark jars, keyed by what determines the jar.

Building a real project takes minutes (JCTools' benchmark module and its siblings: about a
minute here). A clean commit built with the same settings by the same JDK gives the same
jar, so a second ``ab`` of the same revisions, or ``--resume``, reuses it. The key is a
SHA-256 over the commit and the build identity (the harness, the inferred build with its
paths relative to the checkout, the user's build settings, the JDK's path and version); dirty or unversioned
trees are never cached. Only self-contained jars (JMH inside, no ``Class-Path``) are kept:
they run the same from the cache as from the build tree.

Layout: ``DIR/<key>/<jar name>`` and ``DIR/<key>/build.json``, written into a temporary
directory and renamed into place, so a crash never leaves a half-written entry.

The Go, Google Benchmark and pyperf harnesses keep their builds the same way, with an identity
that also holds a hash of the version's sources (:func:`sources_hash`) and the versions of the
tools that build them. Where that identity names everything the build reads (Go: the module and
the local folders its ``replace`` directives name, its dependencies being pinned by go.sum;
pyperf: what is installed into the environment), the key leaves out the commit (``by_content``):
an unchanged module is not built again at another commit, and a dirty tree is cached too. A
CMake project may read files anywhere in the checkout, so Google Benchmark builds are kept for
clean commits only, like jars. Go's test binaries and
Google Benchmark's executables are copied into an entry (:meth:`BuildCache.put_files`); a
virtual environment cannot be moved (its scripts name its own path), so pyperf's is built in
place in its entry (:meth:`BuildCache.in_place`), and ``build.json`` is written last: an
entry without it is an interrupted build, removed and built again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

FORMAT_VERSION = 1
META = "build.json"
# Folders that are build output or tool state, not sources: left out of sources_hash.
_NOT_SOURCES = {".git", ".hg", ".svn", "__pycache__", ".venv", ".rigorbench", ".mypy_cache", ".pytest_cache"}


@dataclass(frozen=True)
class CachedBuild:
    artifact: Path
    meta: Mapping


def cache_key(*parts: object) -> str:
    text = json.dumps([FORMAT_VERSION, *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def sources_hash(folder: Path) -> str:
    """SHA-256 over every file under ``folder`` (path, mode and bytes; a symbolic link's
    target), leaving out version control (folders, and a worktree's ``.git`` file), rigorbench's
    own build folders (``.rigorbench*``),
    Python caches and CMake build trees (a folder holding a ``CMakeCache.txt``)."""
    digest = hashlib.sha256()
    folder = Path(folder)
    for directory, subdirs, files in os.walk(folder):
        here = Path(directory)
        subdirs[:] = sorted(d for d in subdirs if d not in _NOT_SOURCES and not d.startswith(".rigorbench")
                            and not (here / d / "CMakeCache.txt").is_file())
        # A git worktree's ".git" is a file naming its (randomly named) admin folder: leave it
        # out too, or no two checkouts of one commit share a cache entry.
        for name in sorted(f for f in files if f not in _NOT_SOURCES):
            path = here / name
            digest.update(str(path.relative_to(folder)).encode("utf-8", "surrogateescape") + b"\0")
            if path.is_symlink():
                digest.update(b"link:" + os.readlink(path).encode("utf-8", "surrogateescape"))
            else:
                digest.update(b"x" if os.access(path, os.X_OK) else b"-")
                with open(path, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
            digest.update(b"\0")
    return digest.hexdigest()


def self_contained(jar: Path) -> bool:
    """True when ``jar`` carries JMH and points at no other jar."""
    try:
        with zipfile.ZipFile(jar) as archive:
            if "org/openjdk/jmh/Main.class" not in archive.namelist():
                return False
            manifest = archive.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except (OSError, KeyError, zipfile.BadZipFile):
        return False
    return "Class-Path:" not in manifest


class BuildCache:
    """Built jars under ``directory``; ``scope`` names the sources (a clean commit) or is
    None (nothing is cached); ``root`` is that commit's checkout, so that the same build
    reached from the repository root or from a module directory has the same key."""

    def __init__(self, directory: Path, scope: str | None, root: Path | None = None) -> None:
        self.directory = Path(directory)
        self.scope = scope
        self.root = Path(root).resolve() if root is not None else None

    def relative(self, path: Path | str) -> str:
        """``path`` inside the checkout as a relative path (as given when outside it)."""
        text = str(path)
        if self.root is None or not Path(text).is_absolute() or not Path(text).resolve().is_relative_to(self.root):
            return text
        return str(Path(text).resolve().relative_to(self.root))

    def get(self, identity: Mapping) -> CachedBuild | None:
        entry = self._entry(identity, by_content=False)
        if entry is None:
            return None
        try:
            meta = json.loads((entry / META).read_text(encoding="utf-8"))
            artifact = entry / meta["jar"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return CachedBuild(artifact, meta) if artifact.is_file() else None

    def put(self, identity: Mapping, jar: Path, meta: Mapping) -> Path | None:
        """Keep a copy of ``jar``; returns the cached path, or None when not cacheable."""
        entry = self._entry(identity, by_content=False)
        if entry is None or not self_contained(jar):
            return None
        return entry / jar.name if self._publish(entry, {jar.name: jar}, {**meta, "jar": jar.name}) else None

    def _publish(self, entry: Path, files: Mapping[str, Path], meta: Mapping) -> bool:
        """Copy ``files`` (name in the entry -> built file) and ``meta`` into a temporary
        folder renamed to ``entry``; False when the cache cannot be written."""
        self.directory.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".tmp-", dir=self.directory))
        try:
            for name, path in files.items():
                shutil.copy2(path, staging / name)
            (staging / META).write_text(json.dumps(meta, indent=1), encoding="utf-8")
            shutil.rmtree(entry, ignore_errors=True)
            os.replace(staging, entry)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
            return False  # a cache that cannot be written only costs a rebuild next time
        return True

    # -- builds of several files (Go, Google Benchmark) and builds made in place (pyperf) --

    def _entry(self, identity: Mapping, by_content: bool) -> Path | None:
        """``by_content``: the identity names everything the build reads (its sources' hash
        among it), so the key leaves out the commit and a dirty or unversioned tree is cached too."""
        if by_content:
            return self.directory / cache_key("content", identity)
        return None if self.scope is None else self.directory / cache_key(self.scope, identity)

    def get_files(self, identity: Mapping, by_content: bool = False) -> CachedBuild | None:
        """An entry of :meth:`put_files` whose files are all there; ``artifact`` is its folder."""
        entry = self._entry(identity, by_content)
        if entry is None:
            return None
        try:
            meta = json.loads((entry / META).read_text(encoding="utf-8"))
            complete = all((entry / name).is_file() for name in meta["files"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return CachedBuild(entry, meta) if complete else None

    def put_files(self, identity: Mapping, files: Mapping[str, Path], meta: Mapping, by_content: bool = False) -> Path | None:
        """Keep copies of ``files`` (name in the entry -> built file); the entry's folder, or
        None when not cacheable."""
        entry = self._entry(identity, by_content)
        if entry is None or any("/" in name or name in ("", META, ".", "..") for name in files):
            return None
        return entry if self._publish(entry, files, {**meta, "files": sorted(files)}) else None

    def in_place(self, identity: Mapping, by_content: bool = False, required: str = "") -> tuple[Path, Mapping | None] | None:
        """The folder to build into for ``identity``, and its metadata when a complete build
        is there already (None: build it, then :meth:`complete`); None when not cacheable.
        A folder without metadata, or without the ``required`` file, is an interrupted (or
        damaged) build and is emptied."""
        entry = self._entry(identity, by_content)
        if entry is None:
            return None
        try:
            meta = json.loads((entry / META).read_text(encoding="utf-8"))
            if not required or (entry / required).exists():
                return entry, meta
        except (OSError, ValueError):
            pass
        shutil.rmtree(entry, ignore_errors=True)
        try:
            entry.mkdir(parents=True)
        except OSError:
            return None
        return entry, None

    def complete(self, entry: Path, meta: Mapping) -> None:
        """Mark a build made :meth:`in_place` complete (its metadata, written atomically)."""
        staging = entry / f".{META}.tmp"
        try:
            staging.write_text(json.dumps(meta, indent=1), encoding="utf-8")
            os.replace(staging, entry / META)
        except OSError:
            pass   # a cache that cannot be written only costs a rebuild next time
