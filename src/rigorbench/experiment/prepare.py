"""Prepare an experiment's versions: check out and build each once (through the build cache),
list their benchmarks and keep those every version has; rebuild a stored run's versions to
resume it. The driver (:mod:`rigorbench.experiment.driver`) runs the trials.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator

from rigorbench.errors import UserError
from rigorbench.experiment.plan import VersionSpec
from rigorbench.experiment.progress import Reporter, format_duration
from rigorbench.experiment.selection import Selection, cases, select_benchmarks
from rigorbench.experiment.versions import PreparedVersion, cache_scope, checkout_root, prepare_version, remove_worktree
from rigorbench.harness import get_harness
from rigorbench.harness.base import Build, BuildSpec, Harness, HarnessError, RunSettings
from rigorbench.harness.cache import BuildCache
from rigorbench.store import ResultStore
from rigorbench.store.api import RunInfo


# Called with a version's label and checked-out source directory before it is built.
BeforeBuild = Callable[[str, Path], None]


@contextlib.contextmanager
def built_versions(
    project: Path, specs: tuple[VersionSpec, ...], harness: Harness, reporter: Reporter,
    before_build: BeforeBuild | None = None, cache_dir: Path | None = None,
) -> Iterator[dict[str, tuple[PreparedVersion, Build]]]:
    """Check out and build every version; remove temporary worktrees afterwards.

    ``before_build(label, source_dir)`` runs on each checked-out version before it is built
    (``ab`` and ``run`` lint the benchmark sources there); an exception from it stops the
    experiment before anything is built or stored. With ``cache_dir``, the jars of clean
    commits are kept there and reused (see :mod:`rigorbench.harness.cache`).
    """
    scratch = Path(tempfile.mkdtemp(prefix="rigorbench-"))
    prepared: list[PreparedVersion] = []
    try:
        builds = {}
        for spec in specs:
            version = prepare_version(project, spec, scratch)
            prepared.append(version)
            if before_build is not None:
                before_build(spec.label, version.project_dir)
            builds[spec.label] = (version, _build(version, spec, harness, reporter, cache_dir))
        yield builds
    finally:
        for version in prepared:
            if version.worktree is not None:
                remove_worktree(project, version.worktree)
        shutil.rmtree(scratch, ignore_errors=True)


def _build(version: PreparedVersion, spec: VersionSpec, harness: Harness, reporter: Reporter, cache_dir: Path | None) -> Build:
    where = version.info.commit[:12] if version.worktree and version.info.commit else str(version.project_dir)
    reporter.message(f"building {spec.label} ({where}) ...")
    cache = BuildCache(cache_dir, cache_scope(version), checkout_root(version)) if cache_dir is not None else None
    try:
        with reporter.working(f"building {spec.label}"):
            build = harness.build(version.project_dir, spec.build, reporter.message, cache)
    except HarnessError as error:
        message, details = _outside_worktree(str(error), error.details, version)
        raise UserError(f"version {spec.label}: {message}", details=details) from None
    if not build.cached:  # a cache hit was reported by the harness, with the jar's path
        kept = "; kept in the build cache" if cache is not None and Path(build.artifact).is_relative_to(cache_dir) else ""
        reporter.message(f"built {spec.label} in {format_duration(build.seconds)}{kept}")
    return build


def _outside_worktree(message: str, details: tuple[str, ...], version: PreparedVersion) -> tuple[str, tuple[str, ...]]:
    """The temporary worktree is gone when the user reads the message: say how to get it back."""
    worktree = str(version.worktree)
    if version.worktree is None or not any(worktree in text for text in (message, *details)):
        return message, details
    checkout = "CHECKOUT"
    how = f"where CHECKOUT is a checkout of {version.info.commit}: git worktree add --detach CHECKOUT {version.info.commit}"
    details = tuple(text.replace(worktree, checkout) for text in details)
    return message.replace(worktree, checkout), (*details[:1], how, *details[1:])


def list_selection(builds: dict, harness: Harness, settings: RunSettings) -> Selection:
    """Each built version's benchmarks under ``settings``, and which all versions share."""
    listings = {}
    for label, (_, build) in builds.items():
        try:
            listings[label] = harness.list_benchmarks(build, settings)
        except HarnessError as error:
            raise UserError(f"version {label}: {error}", details=error.details) from None
    return select_benchmarks(listings)


def select(builds: dict, harness: Harness, settings: RunSettings, reporter: Reporter) -> tuple[RunSettings, Selection]:
    """Narrow ``settings`` to the benchmarks every version has; report the others."""
    selection = list_selection(builds, harness, settings)
    counts = ", ".join(f"{label} {len(found)}" for label, found in selection.listings.items())
    if not selection.common:
        selected = f" matching {' '.join(settings.include)}" if settings.include else ""
        raise UserError(f"no benchmark{selected} is in every version (benchmarks per version: {counts})")
    for name, labels in selection.partial.items():
        reporter.message(f"not run: {name} is only in {', '.join(labels)}")
    for name, difference in selection.param_differences.items():
        reporter.message(f"warning: {name} has other @Param values per version ({difference}); unmatched cases are not compared")
    if selection.partial:
        settings = replace(settings, include=harness.exact_includes(selection.common, settings.include))
    return settings, selection


BUILDS_DIR = "builds"


def build_cache_dir(store: ResultStore) -> Path:
    """The build cache sits next to the store (``.rigorbench/builds``)."""
    return store.work_dir / BUILDS_DIR


def list_experiment(
    project: str, harness_name: str, versions: tuple[VersionSpec, ...], settings: RunSettings,
    reporter: Reporter, cache_dir: Path | None,
) -> Selection:
    """Build (or take from the cache) every version and list what each has; runs nothing."""
    harness = get_harness(harness_name)
    if not Path(project).is_dir():
        raise UserError(f"{project}: no such project directory")
    with built_versions(Path(project), versions, harness, reporter, cache_dir=cache_dir) as builds:
        return list_selection(builds, harness, settings)


@contextlib.contextmanager
def rebuilt(run: RunInfo, store: ResultStore, harness: Harness, reporter: Reporter) -> Iterator[dict]:
    """A stored run's versions built again, and their build settings; refused when a revision
    now names other code."""
    build_settings = run.settings.get("build", {})
    specs = tuple(VersionSpec(v.label, v.source, BuildSpec.from_dict(build_settings.get(v.label))) for v in run.versions)
    cache_dir = build_cache_dir(store) if run.settings.get("build_cache", True) else None
    with built_versions(Path(run.project), specs, harness, reporter, cache_dir=cache_dir) as builds:
        for stored in run.versions:
            now = builds[stored.label][0].info
            if stored.commit and now.commit and stored.commit != now.commit and not stored.dirty:
                raise UserError(
                    f"run {run.run_id}: version {stored.label} was {stored.commit[:12]}, now {now.commit[:12]}; "
                    "resuming would mix two versions' results"
                )
        yield builds, {spec.label: spec.build for spec in specs}


def listed_cases(harness: Harness, build: Build, settings: RunSettings) -> int:
    """Benchmark cases one trial runs, for a resumed run's progress bar."""
    try:
        return sum(cases(b.params, settings) for b in harness.list_benchmarks(build, settings))
    except Exception:  # only an estimate for the progress bar; the run itself reports errors
        return 1
