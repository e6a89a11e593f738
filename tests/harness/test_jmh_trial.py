"""``JmhHarness.run_trial`` with a deterministic fake JMH (``fake_jmh.py``) replaying real output."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from rigorbench.harness.base import DONE, FAILED, TIMEOUT, Build, RunSettings
from rigorbench.harness.jmh import JmhHarness
from rigorbench.harness.process import group_alive

HERE = Path(__file__).parent
DATA = HERE / "data"
LOG, JSON = DATA / "trial-with-failure.log", DATA / "trial-with-failure.json"
PRIME = "dev.rigorbench.demo.PrimeCountBenchmark.countPrimes"
STATS = "dev.rigorbench.demo.StatsBenchmark.meanAndVariance"
SETTINGS = RunSettings(forks=2, warmup_iterations=2, iterations=2, warmup_time="100ms", iteration_time="100ms")


def fake_harness(*options: str) -> JmhHarness:
    return JmhHarness(java_command=(sys.executable, str(HERE / "fake_jmh.py"), *options), kill_grace_s=1.0)


def run(harness: JmhHarness, tmp_path: Path, settings: RunSettings = SETTINGS):
    events = []
    build = Build(project_dir=tmp_path, artifact=tmp_path / "benchmarks.jar")
    outcome = harness.run_trial(build, settings, tmp_path / "work", events.append)
    return outcome, events


def series_of(outcome, name: str, metric: str):
    return next(s for s in outcome.series if s.case.display_name == name and s.metric.name == metric)


def test_complete_trial_takes_measurements_from_json_and_warmups_from_the_log(tmp_path):
    outcome, events = run(fake_harness("--log", str(LOG), "--json", str(JSON)), tmp_path)
    assert (outcome.status, outcome.message) == (DONE, "")
    prime = series_of(outcome, PRIME, "throughput")
    raw = json.loads(JSON.read_text())[0]["primaryMetric"]["rawData"]
    measured = prime.samples.measurement()
    assert measured.value.tolist() == [v for fork in raw for v in fork]  # exact JSON values
    warmup = prime.samples.select(prime.samples.warmup)
    assert warmup.value.tolist() == [41.397, 37.559, 36.534, 16.679]  # printed values of the log
    assert prime.samples.fork.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert prime.samples.warmup.tolist() == [True, True, False, False] * 2
    assert not series_of(outcome, PRIME, "alloc").samples.warmup.any()  # profilers report measurement only
    assert len(series_of(outcome, f"{STATS}{{size=100}}", "time").samples) == 8
    assert not any(s.case.display_name == f"{STATS}{{size=0}}" for s in outcome.series)


def test_complete_trial_reports_failures_environment_and_output(tmp_path):
    outcome, events = run(fake_harness("--log", str(LOG), "--json", str(JSON)), tmp_path)
    assert outcome.failures == (f"{STATS}{{size=0}}: java.lang.IllegalArgumentException: mean of an empty array",)
    assert outcome.environment == {
        "jmh_version": "1.37", "vm_name": "OpenJDK 64-Bit Server VM", "vm_version": "17.0.15+6-Debian-1deb12u1",
        "jdk_version": "17.0.15", "jvm": "/usr/lib/jvm/java-17-openjdk-amd64/bin/java",
        "jvm_args": "-Djava.io.tmpdir=/tmp/explore/jt", "blackhole_mode": "compiler",
    }
    log_lines = LOG.read_text().splitlines()
    assert outcome.output_tail == "\n".join(log_lines[-40:])
    work = tmp_path / "work"
    assert (work / "console.log").read_text() == LOG.read_text()
    assert "-rff" in (work / "command.txt").read_text()
    assert [e.line for e in events] == log_lines
    assert sum(e.iteration is not None for e in events) == 16
    assert outcome.harness_seconds > 0


def test_result_file_of_an_earlier_attempt_is_not_taken(tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "result.json").write_text(JSON.read_text())
    outcome, _ = run(fake_harness("--log", str(LOG)), tmp_path)
    assert outcome.status == FAILED
    assert outcome.message.startswith("JMH exited 0 but left no complete result file")
    assert len(series_of(outcome, PRIME, "throughput").samples) == 8  # recovered from the log


def test_truncated_json_falls_back_to_the_log(tmp_path):
    cut = tmp_path / "cut.json"
    cut.write_text(JSON.read_text()[:3000])
    outcome, _ = run(fake_harness("--log", str(LOG), "--json", str(cut)), tmp_path)
    assert outcome.status == FAILED and "truncated JSON" in outcome.message
    prime = series_of(outcome, PRIME, "throughput")
    assert prime.samples.value.tolist() == [41.397, 37.559, 36.539, 57.191, 36.534, 16.679, 39.281, 33.523]


def test_jmh_error_exit_is_failed_with_the_error_line(tmp_path):
    log = tmp_path / "error.log"
    log.write_text(
        "ERROR: org.openjdk.jmh.runner.RunnerException: ERROR: Another JMH instance might be running.\n"
        "\tat org.openjdk.jmh.runner.Runner.run(Runner.java:210)\n"
    )
    outcome, _ = run(fake_harness("--log", str(log), "--exit", "1"), tmp_path)
    assert outcome.status == FAILED and outcome.series == ()
    assert outcome.message.startswith("JMH exited with code 1: ERROR: org.openjdk.jmh.runner.RunnerException")


@pytest.mark.parametrize("output, reason", [
    ("No matching benchmarks. Miss-spelled regexp?\nUse EXTRA verbose mode to debug the pattern matching.\n",
     "No matching benchmarks. Miss-spelled regexp?"),
    ("Error parsing command line:\n Cannot parse argument 'x' of option f\n",
     "Error parsing command line: Cannot parse argument 'x' of option f"),
    ("", "no output"),
])
def test_failed_exit_message_names_the_reason(tmp_path, output, reason):
    log = tmp_path / "out.log"
    log.write_text(output)
    outcome, _ = run(fake_harness("--log", str(log), "--exit", "1"), tmp_path)
    assert outcome.message == f"JMH exited with code 1: {reason}"


def test_every_benchmark_failed_is_done_without_series(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("[\n]\n")
    outcome, _ = run(fake_harness("--log", str(DATA / "forked-vm-failed.log"), "--json", str(empty)), tmp_path)
    assert (outcome.status, outcome.series) == (DONE, ())
    assert outcome.failures == (f"{PRIME}: forked VM failed with exit code 1: Unrecognized option: -Xbogus",)


def test_timeout_kills_the_process_group_and_keeps_finished_iterations(tmp_path):
    lines = LOG.read_text().splitlines(keepends=True)
    partial = tmp_path / "partial.log"
    partial.write_text("".join(lines[:33]))  # fork 2 of countPrimes: warmups and iteration 1 done
    pidfile = tmp_path / "pids"
    harness = fake_harness("--log", str(partial), "--cut", "Iteration   2: ", "--hang", "--pidfile", str(pidfile))
    settings = RunSettings(**{**SETTINGS.as_dict(), "timeout_s": 3.0})
    outcome, events = run(harness, tmp_path, settings)
    assert outcome.status == TIMEOUT
    assert outcome.message == f"timed out after 3 s in {PRIME}, fork 2"
    pid, pgid, grandchild = map(int, pidfile.read_text().split())
    assert pgid == pid and not group_alive(pgid)
    prime = series_of(outcome, PRIME, "throughput")
    assert prime.samples.warmup.tolist() == [True, True, False, False, True, True, False]
    assert np.allclose(prime.samples.value[-1], 39.281)
    assert 3.0 <= outcome.harness_seconds < 15
    assert (tmp_path / "work" / "console.log").read_text().endswith("Iteration   2: ")


def test_log_is_read_up_to_a_line_the_reader_cannot_read(tmp_path):
    lines = LOG.read_text().splitlines(keepends=True)
    log = tmp_path / "killed.log"
    log.write_text("".join(lines[:33]) + "Iteration   2: <failure: VM prematurely exited before JMH had finished>\n")
    outcome, _ = run(fake_harness("--log", str(log), "--exit", "143"), tmp_path)
    assert outcome.status == FAILED
    last_line = "Iteration   2: <failure: VM prematurely exited before JMH had finished>"
    assert outcome.message == f"JMH exited with code 143 (SIGTERM): {last_line}"
    assert len(series_of(outcome, PRIME, "throughput").samples) == 7


def test_ctrl_c_kills_the_process_group_and_is_re_raised(tmp_path):
    pidfile = tmp_path / "pids"
    harness = fake_harness("--log", str(LOG), "--delay", "0.05", "--hang", "--pidfile", str(pidfile))
    seen = []

    def interrupt(event):
        seen.append(event)
        if len(seen) == 3:
            raise KeyboardInterrupt

    build = Build(project_dir=tmp_path, artifact=tmp_path / "benchmarks.jar")
    with pytest.raises(KeyboardInterrupt):
        harness.run_trial(build, SETTINGS, tmp_path / "work", interrupt)
    pid, pgid, grandchild = map(int, pidfile.read_text().split())
    assert pgid == pid and not group_alive(pgid)
    assert len(seen) == 3  # streamed: the interrupt came while the fake was still printing


def test_missing_java_is_a_failed_trial(tmp_path):
    harness = JmhHarness(java_command=("rigorbench-no-such-java",))
    outcome, _ = run(harness, tmp_path)
    assert outcome.status == FAILED and "cannot run rigorbench-no-such-java" in outcome.message
