"""Harness adapters: build and run benchmarks of one version, one trial at a time.

Each adapter implements :class:`rigorbench.harness.base.Harness` and is listed in the
explicit registry :data:`HARNESSES` (STYLE.md rule 6); :func:`get_harness` makes one by
name and lists the valid names when the name is unknown.
"""

from __future__ import annotations

from pathlib import Path

from rigorbench.errors import UserError
from rigorbench.harness.base import Harness
from rigorbench.harness.gbench import GbenchHarness, is_gbench_project
from rigorbench.harness.gotest import GoHarness
from rigorbench.harness.jmh import JmhHarness
from rigorbench.harness.pyperf import PyperfHarness, is_pyperf_project

__all__ = ["HARNESSES", "detect_harness", "get_harness"]

HARNESSES: dict[str, type] = {"jmh": JmhHarness, "go": GoHarness, "gbench": GbenchHarness, "pyperf": PyperfHarness}
_JMH_BUILDS = ("pom.xml", "build.gradle", "build.gradle.kts")


def detect_harness(project: Path, version: str | None = None) -> str:
    """``go`` when the project (or the version's folder in it, ``ab PATH --base v1``) has a
    go.mod or is a package folder of a module, ``gbench`` when it has a CMakeLists.txt that links Google Benchmark, ``pyperf`` when
    it has a bench.py that uses pyperf, and no Maven or Gradle build; else ``jmh``."""
    folders = [project] + ([project / version] if version and (project / version).is_dir() else [])
    for folder in folders:
        if any((folder / name).is_file() for name in _JMH_BUILDS):
            return "jmh"
        if (folder / "go.mod").is_file():
            return "go"
        if (folder / "CMakeLists.txt").is_file() and is_gbench_project(folder):
            return "gbench"
        if is_pyperf_project(folder):
            return "pyperf"
        if any(folder.glob("*_test.go")) and any((above / "go.mod").is_file() for above in folder.parents):
            return "go"   # a package folder of a module: its benchmarks alone
    return "jmh"


def get_harness(name: str) -> Harness:
    """A harness adapter with its default settings; UserError for an unknown name."""
    try:
        factory = HARNESSES[name]
    except KeyError:
        raise UserError(f"unknown harness {name!r}; valid harnesses: {', '.join(sorted(HARNESSES))}") from None
    return factory()
