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


@dataclass(frozen=True)
class CachedBuild:
    artifact: Path
    meta: Mapping


def cache_key(*parts: object) -> str:
    text = json.dumps([FORMAT_VERSION, *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


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
        if self.scope is None:
            return None
        entry = self.directory / cache_key(self.scope, identity)
        try:
            meta = json.loads((entry / META).read_text(encoding="utf-8"))
            artifact = entry / meta["jar"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return CachedBuild(artifact, meta) if artifact.is_file() else None

    def put(self, identity: Mapping, jar: Path, meta: Mapping) -> Path | None:
        """Keep a copy of ``jar``; returns the cached path, or None when not cacheable."""
        if self.scope is None or not self_contained(jar):
            return None
        entry = self.directory / cache_key(self.scope, identity)
        self.directory.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".tmp-", dir=self.directory))
        try:
            shutil.copy2(jar, staging / jar.name)
            (staging / META).write_text(json.dumps({**meta, "jar": jar.name}, indent=1), encoding="utf-8")
            shutil.rmtree(entry, ignore_errors=True)
            os.replace(staging, entry)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
            return None  # a cache that cannot be written only costs a rebuild next time
        return entry / jar.name
