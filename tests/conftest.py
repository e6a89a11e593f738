"""Fixtures shared across test folders."""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from rigorbench.harness.base import DONE, FAILED, Build, ListedBenchmark, Progress, TrialOutcome
from rigorbench.model import BenchmarkCase, Metric, SampleTable, Series

# The tiers of the suite (make check, make test): markers by folder and fixture, and the guard.
from tiers import (private_trial_lock, pytest_collection_finish, pytest_collection_modifyitems,  # noqa: F401
                   pytest_configure, pytest_runtest_setup, pytest_unconfigure, real_tool_guard)

TIME = Metric("time", "ns/op", False, True)

# The build tools' own JVMs (not the benchmarks' forks, which JMH starts with their own options)
# with the C1 compiler only: a Maven build of the JMH example took about half the time (45 s ->
# 22 s, each measured twice in turn on this loaded 2-CPU machine), a Gradle build of the Gradle
# fixture 24 s -> 11-16 s, and the suite builds JVM projects a few dozen times. A user's own
# MAVEN_OPTS or GRADLE_OPTS is kept.
_BUILD_JVM = "-XX:+TieredCompilation -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
os.environ.setdefault("MAVEN_OPTS", _BUILD_JVM)
os.environ.setdefault("GRADLE_OPTS", _BUILD_JVM)

# Text output fits COLUMNS when it is set (terminal.text_width): a developer's shell that
# exports it must not change what the tests see; tests of the width set it themselves.
os.environ.pop("COLUMNS", None)


@dataclass
class FakeHarness:
    """Builds nothing; each trial yields 2 forks x 3 iterations around a per-version mean."""

    name: str = "jmh"
    interrupt_at: int | None = None
    fail_label: str | None = None
    calls: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)       # label -> benchmarks only that version has
    includes: list = field(default_factory=list)    # settings.include of every trial

    def build(self, project_dir: Path, spec, log, cache=None) -> Build:
        return Build(project_dir, project_dir / "fake.jar", {"jmh": "fake"}, 0.0)

    def exact_includes(self, names, within=()) -> tuple[str, ...]:
        from rigorbench.harness.jmh import jmh_exact_includes
        return jmh_exact_includes(names)

    def list_benchmarks(self, build, settings) -> list[ListedBenchmark]:
        names = ["demo.Bench.a", *self.extra.get(build.project_dir.name, [])]
        return [ListedBenchmark(name, (("size", ("1", "2")),)) for name in names]

    def run_trial(self, build, settings, work_dir, on_progress) -> TrialOutcome:
        label = build.project_dir.name
        self.includes.append(settings.include)
        if self.interrupt_at is not None and len(self.calls) == self.interrupt_at:
            raise KeyboardInterrupt
        self.calls.append(label)
        for i in range(6):
            on_progress(Progress(benchmark="demo.Bench.a", fork=i // 3 + 1, forks=2, iteration=i % 3 + 1))
        mean = 100.0 if label == "v1" else 120.0
        table = SampleTable.build(mean + np.arange(6) * 0.1, fork=[0, 0, 0, 1, 1, 1], iteration=[0, 1, 2] * 2)
        status = FAILED if label == self.fail_label else DONE
        return TrialOutcome(status, (Series(BenchmarkCase("jmh", "demo.Bench.a"), TIME, table),), 0.5,
                            {"jmh_version": "fake"}, message="boom" if status == FAILED else "")


@pytest.fixture
def fake(monkeypatch):
    """A FakeHarness standing in for JMH in the experiment engine (every place that looks a harness up)."""
    import rigorbench.harness
    from rigorbench.experiment import bisect, driver, prepare

    harness = FakeHarness()
    for module in (rigorbench.harness, driver, prepare, bisect):
        monkeypatch.setattr(module, "get_harness", lambda name: harness)
    return harness


# -- a real PostgreSQL server (tests/pgserver.py), started once per session --------------

_DATABASES = itertools.count(1)


@pytest.fixture(scope="session")
def pg_server():
    """The session's PostgreSQL server; skips (saying why) only where no server binaries exist."""
    import shutil

    import pgserver

    pytest.importorskip("psycopg", reason="psycopg (the test extras) is not installed")
    if pgserver.find_bin_dir() is None:
        pytest.skip("no PostgreSQL server binaries (Debian: apt-get install postgresql; `make test` does)")
    server = pgserver.start_server()
    yield server
    try:
        server.stop()
    finally:
        shutil.rmtree(server.root, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server, request):
    """The URL (with a password) of a fresh database on the session's server, for one test."""
    return pg_server.create_database(f"test_{next(_DATABASES)}")
