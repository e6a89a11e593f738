"""The suite's two tiers (STYLE.md, "Tests"): ``make check`` runs ``-m "not e2e and not slow"``,
the fast tier for every edit (pure functions, the CLI in-process, fakes); ``make test`` runs
everything.

A test is put in its tier by where it is and what it uses, so that a new test falls in the
right one without a marker of its own:

- ``e2e``: every test under tests/e2e/ and in ``E2E_MODULES`` (a Dask cluster); every test
  that uses a fixture that starts a real tool (``REAL_FIXTURES``: the PostgreSQL server, the
  browser); the PostgreSQL case of ``backend_store``; and a test marked so by hand, where a
  module mixes unit tests with real builds (tests/harness).
- ``slow``: in-process but long: every ``shared_data`` test (it replays the studies' data
  in ../shared/data, minutes of analysis), every test that uses a fixture in
  ``SLOW_FIXTURES``, and tests marked so by hand (simulations, fuzzing).

And a test outside ``e2e`` that starts a build tool, a JVM or a browser fails, saying so
(:func:`real_tool_guard`): it belongs in the full suite.

Both tiers run on pytest-xdist workers (``--dist loadgroup``, the Makefile). Tests that share
something expensive stay on one worker (:func:`xdist_group_of`): an end-to-end module (its
module-scoped builds and runs), the report fixtures of the 100-benchmark suite, the PostgreSQL
server. Real trials of the two workers take turns on the machine's trial lock
(:func:`private_trial_lock`).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

E2E_FOLDERS = ("e2e",)
# Modules whose every test runs on a real Dask cluster, beside unit tests of the same package.
E2E_MODULES = ("cluster/test_dispatch_threads.py",)
# Fixtures that start a real server or browser.
REAL_FIXTURES = {"pg_server", "browser"}
# Fixtures that take a minute to make (a report of a 100-benchmark suite).
SLOW_FIXTURES = {"suite_html"}
# Programs the fast tier never starts: builds, JVMs, toolchains, browsers, database servers.
REAL_TOOLS = {"mvn", "gradle", "gradlew", "java", "go", "cmake", "make", "g++", "c++", "gcc", "cc",
              "chromium", "chromium-browser", "initdb", "pg_ctl", "postgres", "npm"}
TESTS = Path(__file__).resolve().parent


def tier_markers(item: pytest.Item) -> list[str]:
    """The tier markers ``item`` gets from its folder and fixtures."""
    path = Path(str(item.fspath)).resolve()
    found = []
    where = path.relative_to(TESTS) if path.is_relative_to(TESTS) else path
    if where.parts[0] in E2E_FOLDERS or where.as_posix() in E2E_MODULES:
        found.append("e2e")
    if REAL_FIXTURES & set(getattr(item, "fixturenames", ())):
        found.append("e2e")
    if item.get_closest_marker("shared_data") is not None or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
        found.append("slow")
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.params.get("backend_store") == "postgresql":
        found.append("e2e")
    return found


# Session fixtures that take long to make, and the group of workers' tests that share each one.
SHARED_FIXTURES = {"suite_html": "report-suite", "suite_files": "report-suite", "browser": "report-suite",
                   "pg_server": "postgresql", "pg_url": "postgresql"}


def xdist_group_of(item: pytest.Item) -> str | None:
    """The group whose tests one xdist worker runs together (None: any worker, one by one)."""
    for fixture in getattr(item, "fixturenames", ()):
        if fixture in SHARED_FIXTURES:
            return SHARED_FIXTURES[fixture]
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.params.get("backend_store") == "postgresql":
        return SHARED_FIXTURES["pg_server"]      # asks for the server inside the fixture
    if any(mark.name == "e2e" for mark in item.iter_markers()):
        path = Path(str(item.fspath)).resolve()
        return path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else path.name
    return None


# First, so that xdist's own hook (which reads the groups) sees them.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        for name in tier_markers(item):
            if item.get_closest_marker(name) is None:
                item.add_marker(name)
        group = xdist_group_of(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))


def pytest_collection_finish(session):
    """On an xdist worker with ``--dist loadgroup``: fail when the groups did not reach the
    items' ids (what the scheduler reads), rather than let every worker build what a group
    shares (pytest-xdist 3.8 under pytest 9 lost them silently)."""
    if getattr(session.config.option, "loadgroup", False):
        lost = [item.nodeid for item in session.items
                if item.get_closest_marker("xdist_group") is not None and "@" not in item.nodeid]
        if lost:
            raise pytest.UsageError(f"--dist loadgroup: {len(lost)} grouped tests lost their group ({lost[0]}); "
                                    "check the pytest and pytest-xdist versions (pyproject.toml)")


def _program(args) -> str:
    first = args if isinstance(args, (str, bytes, os.PathLike)) else (args[0] if args else "")
    text = os.fsdecode(first)
    return os.path.basename(text.split()[0] if isinstance(args, (str, bytes)) and text.split() else text)


_started: list[str] = []      # REAL_TOOLS started since the current test's set-up began
_original_init = subprocess.Popen.__init__


def _watched_init(self, args, *rest, **options):
    program = _program(args)
    if program in REAL_TOOLS:
        _started.append(program)
    _original_init(self, args, *rest, **options)


def pytest_configure(config):
    subprocess.Popen.__init__ = _watched_init


def pytest_unconfigure(config):
    subprocess.Popen.__init__ = _original_init


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    _started.clear()           # before the fixtures this test sets up (a module's build too)
    yield


@pytest.fixture(autouse=True)
def real_tool_guard(request):
    """Fails a test outside ``e2e`` that started one of ``REAL_TOOLS`` in this process, itself
    or in a fixture it set up."""
    yield
    if request.node.get_closest_marker("e2e") is None and _started:
        pytest.fail(f"this test started {', '.join(sorted(set(_started)))}: a real tool belongs in the full suite; "
                    "move the test to tests/e2e or mark it @pytest.mark.e2e (tests/tiers.py)", pytrace=False)


@pytest.fixture(autouse=True)
def private_trial_lock(request, tmp_path_factory, monkeypatch):
    """Outside ``e2e``, trials are fakes that measure nothing: they take their worker's own trial
    lock (``RIGORBENCH_LOCK_DIR``) rather than the machine's, which would make them wait for
    every real benchmark run on a shared machine (another session's ``make test`` or demo).

    The end-to-end tests keep the machine's lock, as a user's runs do: two workers' real trials
    never measure at once (only a build or a fast test runs beside a trial), so the verdicts they
    assert come from trials no noisier than on a machine with one other busy process."""
    if request.node.get_closest_marker("e2e") is None:
        folder = tmp_path_factory.getbasetemp() / "trial-lock"
        folder.mkdir(exist_ok=True)
        monkeypatch.setenv("RIGORBENCH_LOCK_DIR", str(folder))
    yield
