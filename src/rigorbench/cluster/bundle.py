"""Ship a built version to the workers: its checkout and its built artifact in one tar.gz,
named and checked by its SHA-256.

The submitting machine builds every version once (it has to list their benchmarks anyway)
and the workers run what it built, so every instance measures the same bytes. With
``--build-on-workers`` the bundle carries the sources only and every worker builds them with
its own toolchain, for instances whose CPUs or JDKs differ (docs/cluster.md).

On a worker a bundle is unpacked once per SHA-256 into its work directory (atomically: into a
temporary folder, then renamed), and never trusted without its hash checked first. Unpacking
uses tarfile's ``data`` filter: no absolute paths, no ``..``, no links out of the folder.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from rigorbench.errors import UserError
from rigorbench.harness.base import Build, BuildSpec

# Never shipped: version control, rigorbench's own store and caches, virtual environments.
SKIPPED_DIRS = frozenset({".git", ".rigorbench", ".venv", "node_modules", "__pycache__", ".gradle"})
PROJECT, ARTIFACT = "source", "artifact"


@dataclass(frozen=True)
class BundleInfo:
    """What a worker needs besides the bytes: where things are inside the bundle and how the
    version was built on the submitting machine."""

    label: str
    sha256: str
    size: int
    project: str                          # the project folder, relative to the shipped checkout
    artifact: str | None                  # the artifact, relative to the bundle's artifact folder (None: build on the worker)
    tool_versions: Mapping[str, str] = field(default_factory=dict)
    java_command: tuple[str, ...] = ()
    main_class: str | None = None
    build: Mapping = field(default_factory=dict)   # BuildSpec.as_dict(), for --build-on-workers

    @property
    def build_on_worker(self) -> bool:
        return self.artifact is None


def make_bundle(label: str, root: Path, project_dir: Path, build: Build | None, spec: BuildSpec, harness: str) -> tuple[BundleInfo, bytes]:
    """The bundle of one version: ``root`` (its checkout) without SKIPPED_DIRS and build
    output, and ``build``'s artifact (None: the sources only, built on each worker)."""
    if build is not None and harness == "pyperf":
        raise UserError(f"version {label}: pyperf versions run in a virtual environment built on each machine; "
                        "add --build-on-workers")
    root, project_dir = root.resolve(), project_dir.resolve()
    artifact = Path(build.artifact).resolve() if build is not None else None
    buffer = io.BytesIO()
    # mtime 0 and sorted names: the same tree gives the same bytes, hence the same hash, and a
    # resumed run finds its bundles already unpacked on the workers.
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=6, mtime=0) as packed, tarfile.open(fileobj=packed, mode="w") as tar:
        for path in _files(root, artifact):
            _add(tar, path, f"{PROJECT}/{path.relative_to(root).as_posix()}")
        if artifact is not None:
            files = sorted(p for p in artifact.rglob("*") if p.is_file()) if artifact.is_dir() else [artifact]
            for path in files:
                _add(tar, path, f"{ARTIFACT}/{path.relative_to(artifact.parent).as_posix()}")
    data = buffer.getvalue()
    info = BundleInfo(
        label=label, sha256=hashlib.sha256(data).hexdigest(), size=len(data),
        project=project_dir.relative_to(root).as_posix() if project_dir != root else ".",
        artifact=artifact.name if artifact is not None else None,
        tool_versions=dict(build.tool_versions) if build is not None else {},
        java_command=tuple(build.java_command) if build is not None else (),
        main_class=build.main_class if build is not None else None,
        build=spec.as_dict(),
    )
    return info, data


def _files(root: Path, artifact: Path | None) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not _build_output(here, d)
                         and (artifact is None or here / d != artifact))
        found.extend(here / f for f in sorted(files) if (artifact is None or here / f != artifact) and not (here / f).is_symlink())
    return found


def _build_output(folder: Path, name: str) -> bool:
    """Maven's ``target`` beside a pom.xml, a CMake build folder: rebuilt, never shipped."""
    return (name == "target" and (folder / "pom.xml").is_file()) or (folder / name / "CMakeCache.txt").is_file()


def _add(tar: tarfile.TarFile, path: Path, name: str) -> None:
    info = tar.gettarinfo(str(path), arcname=name)
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
    with path.open("rb") as handle:
        tar.addfile(info, handle)


def unpack(info: BundleInfo, data: bytes, root: Path, private: str | None = None) -> Path:
    """The bundle unpacked under ``root`` (once per hash; ``private`` names a folder of this
    worker's own, for a build on the worker that must not share its tree with another)."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != info.sha256:
        raise RuntimeError(f"the bundle of version {info.label} arrived damaged: sha256 {digest[:12]}, expected {info.sha256[:12]}")
    target = root / (info.sha256 if private is None else f"{info.sha256}-{private}")
    if target.is_dir():
        return target
    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".unpack-", dir=root))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tar.extractall(scratch, filter="data")
        try:
            os.rename(scratch, target)
        except OSError:          # another worker on this machine unpacked it first
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def shipped_build(info: BundleInfo, unpacked: Path) -> Build:
    """The submitting machine's build, at its place on this worker."""
    java = info.java_command
    if java and not shutil.which(java[0]):
        java = ()     # that JDK is not installed here: the harness's default java, recorded with the trial
    return Build(
        project_dir=unpacked / PROJECT / info.project, artifact=unpacked / ARTIFACT / str(info.artifact),
        tool_versions=dict(info.tool_versions), java_command=tuple(java), main_class=info.main_class, cached=True,
    )


def source_dir(info: BundleInfo, unpacked: Path) -> Path:
    """The project folder of an unpacked bundle."""
    return unpacked / PROJECT / info.project

