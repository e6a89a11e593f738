"""Real Maven builds and JMH runs of ``examples/jmh-demo/v1`` (copied; examples/ stays untouched).

The project is built once per test session. JMH's lock file (``jmh.lock`` in
``java.io.tmpdir``) is moved to the session's temporary directory through the host JVM's
options, so these tests neither wait for nor block other JMH runs on the machine.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from rigorbench.harness.base import DONE, FAILED, TIMEOUT, Build, BuildSpec, RunSettings
from rigorbench.harness.jmh import JmhHarness

pytestmark = pytest.mark.e2e

# Maven and a JDK are part of the project's set-up: without them this fails, never skips.
assert shutil.which("mvn") and shutil.which("java"), "the JMH end-to-end tests need Maven and a JDK on PATH"

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "jmh-demo" / "v1"
PRIME = "dev.rigorbench.demo.PrimeCountBenchmark.countPrimes"
STATS_CLASS = "dev.rigorbench.demo.StatsBenchmark"  # its method name is the example's to choose
TINY = RunSettings(forks=1, warmup_iterations=1, iterations=2, warmup_time="100ms", iteration_time="100ms",
                   include=("PrimeCountBenchmark",))


@pytest.fixture(scope="session")
def harness(tmp_path_factory) -> JmhHarness:
    tmpdir = tmp_path_factory.mktemp("jvm-tmp")
    return JmhHarness(java_command=("java", f"-Djava.io.tmpdir={tmpdir}"), kill_grace_s=3.0)


@pytest.fixture(scope="session")
def build(harness, tmp_path_factory) -> Build:
    project = tmp_path_factory.mktemp("jmh-demo") / "v1"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("target"))
    messages: list[str] = []
    return harness.build(project, BuildSpec(), messages.append)


def with_settings(**changes) -> RunSettings:
    return RunSettings(**{**TINY.as_dict(), **changes})


def test_build_finds_the_jar_and_records_tool_versions(build):
    assert build.artifact.name == "benchmarks.jar" and build.artifact.is_file()
    assert EXAMPLE not in build.artifact.parents
    assert build.tool_versions["jmh"] == "1.37"
    assert build.tool_versions["maven"] and build.tool_versions["java"]
    assert build.seconds > 0


def test_list_benchmarks(harness, build):
    listed = harness.list_benchmarks(build, RunSettings())
    names = [b.name for b in listed]
    assert len(names) == len(set(names)) and PRIME in names
    (stats,) = [b for b in listed if b.name.startswith(STATS_CLASS + ".")]
    assert stats.params == (("size", ("100", "1000")),)  # the example's @Param defaults
    assert [b.name for b in harness.list_benchmarks(build, RunSettings(include=("Prime",)))] == [PRIME]
    assert harness.list_benchmarks(build, RunSettings(include=("NoSuchBenchmark",))) == []


def test_tiny_trial(harness, build, tmp_path):
    events = []
    outcome = harness.run_trial(build, TINY, tmp_path, events.append)
    assert (outcome.status, outcome.failures, outcome.message) == (DONE, (), "")
    by_metric = {s.metric.name: s for s in outcome.series}
    assert {"throughput", "alloc", "gc.alloc.rate", "gc.count"} <= set(by_metric)
    primary = by_metric["throughput"]
    assert primary.case.name == PRIME and primary.metric.unit == "ops/ms" and primary.metric.higher_is_better
    assert primary.samples.warmup.tolist() == [True, False, False]
    assert (primary.samples.value > 0).all()
    assert len(by_metric["alloc"].samples) == 2 and by_metric["alloc"].metric.unit == "B/op"
    iterations = [(e.benchmark, e.fork, e.forks, e.iteration, e.warmup) for e in events if e.iteration]
    assert iterations == [(PRIME, 1, 1, 1, True), (PRIME, 1, 1, 1, False), (PRIME, 1, 1, 2, False)]
    assert outcome.environment["jmh_version"] == "1.37" and outcome.environment["jdk_version"]
    assert (tmp_path / "result.json").is_file() and (tmp_path / "console.log").is_file()
    assert "# Run complete" in (tmp_path / "console.log").read_text()
    assert 0 < outcome.harness_seconds < 120 and "Benchmark result is saved" in outcome.output_tail


def test_failing_benchmark_is_listed_and_the_trial_goes_on(harness, build, tmp_path):
    """The example's ``-p size=0`` makes StatsBenchmark throw; JMH goes on with ``size=100``."""
    (listed,) = harness.list_benchmarks(build, RunSettings(include=("StatsBenchmark",)))
    stats = listed.name
    settings = with_settings(include=("StatsBenchmark",), params=(("size", "0,100"),), profilers=())
    outcome = harness.run_trial(build, settings, tmp_path, lambda event: None)
    assert outcome.status == DONE
    (failure,) = outcome.failures
    assert failure.startswith(f"{stats}{{size=0}}: java.lang.IllegalArgumentException")
    assert [s.case.display_name for s in outcome.series] == [f"{stats}{{size=100}}"]
    assert outcome.series[0].samples.warmup.tolist() == [True, False, False]


def test_timeout_kills_jmh_and_its_forked_jvm(harness, build, tmp_path):
    members: dict[int, str] = {}  # pid -> command line, of JMH's process group while it measures
    events = []

    def watch(event):
        events.append(event)
        if event.iteration is not None and not members:
            members.update(_group_members(_group_of_process_mentioning(str(tmp_path))))

    outcome = harness.run_trial(build, with_settings(iterations=200, timeout_s=4.0), tmp_path, watch)
    assert outcome.status == TIMEOUT and outcome.failures == ()  # JMH's "VM prematurely exited" is our kill
    assert outcome.message.startswith("timed out after 4 s")
    finished = sum(1 for e in events if e.iteration is not None and not e.warmup)
    if members:  # JMH got as far as an iteration before the timeout (it should, but the machine is shared)
        assert any("ForkedMain" in cmdline for cmdline in members.values())
        assert outcome.message == f"timed out after 4 s in {PRIME}, fork 1"
        primary = next(s for s in outcome.series if s.metric.name == "throughput")
        logged = re.findall(r"(?m)^Iteration +\d+: [\d.]+ ops/ms$", (tmp_path / "console.log").read_text())
        # every finished iteration is kept: those streamed before the kill, and any printed just after it
        assert len(primary.samples.measurement()) == len(logged) >= finished
    assert not any(_alive(pid) for pid in members)
    assert not _group_of_process_mentioning(str(tmp_path))
    assert outcome.harness_seconds < 4.0 + 10


def test_bad_option_fails_the_trial(harness, build, tmp_path):
    outcome = harness.run_trial(build, with_settings(mode="nosuchmode"), tmp_path, lambda event: None)
    assert outcome.status == FAILED and outcome.series == ()
    assert outcome.message.startswith("JMH exited with code 1:") and "nosuchmode" in outcome.message


def _processes() -> dict[int, tuple[str, int, str]]:
    """pid -> (state, process group, command line) of every process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes().decode("utf-8", "replace").replace("\0", " ")
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2:].split()
            found[int(entry.name)] = (fields[0], int(fields[2]), cmdline)
    return found


def _group_of_process_mentioning(text: str) -> int | None:
    return next((group for state, group, cmd in _processes().values() if text in cmd and state != "Z"), None)


def _group_members(group: int | None) -> dict[int, str]:
    return {pid: cmd for pid, (state, g, cmd) in _processes().items() if g == group and state != "Z"}


def _alive(pid: int) -> bool:
    entry = _processes().get(pid)
    return entry is not None and entry[0] != "Z"
