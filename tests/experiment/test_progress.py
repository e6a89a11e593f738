"""Progress reporting: plain lines for logs, a live bar with an ETA on a terminal."""

from __future__ import annotations

import io

from rigorbench.experiment.progress import EtaClock, LiveReporter, PlainReporter, make_reporter
from rigorbench.harness.base import DONE, TIMEOUT, Progress, TrialOutcome
from rigorbench.store.api import Execution


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def drive(reporter) -> None:
    reporter.start(executions=2, trials=1, iterations_per_execution=4)
    for position, label in enumerate(("v1", "v2")):
        execution = Execution(0, label, position)
        reporter.execution_started(execution)
        for i in range(4):
            reporter.progress(Progress(benchmark="dev.demo.Bench.run", fork=1, forks=1, iteration=i + 1, warmup=i < 2))
        status = DONE if label == "v1" else TIMEOUT
        reporter.execution_finished(execution, TrialOutcome(status, (), 3.0, message="" if status == DONE else "timed out after 3 s"))
    reporter.close()


def test_plain_lines_name_trial_version_benchmark_and_status():
    out = io.StringIO()
    drive(PlainReporter(out))
    text = out.getvalue()
    assert "[1/2] trial 1/1, version v1" in text and "[2/2] trial 1/1, version v2 (ETA" in text
    assert "dev.demo.Bench.run" in text
    assert "done in 0:03" in text and "timeout in 0:03: timed out after 3 s" in text


def test_live_bar_on_a_terminal_keeps_finished_trials_above_it():
    out = Terminal()
    reporter = make_reporter(out)
    assert isinstance(reporter, LiveReporter)
    drive(reporter)
    assert "trial 1/1, version v1: done in 0:03" in out.getvalue()
    assert "trial 1/1, version v2: timeout in 0:03: timed out after 3 s" in out.getvalue()
    assert isinstance(make_reporter(io.StringIO()), PlainReporter)


def test_eta_counts_iterations():
    clock = EtaClock(executions=4, per_execution=10)
    for _ in range(5):
        clock.tick()
    assert clock.fraction == 5 / 40
    for _ in range(15):  # the first execution ran 20 iterations: the estimate follows
        clock.tick()
    clock.execution_done()
    assert clock.per_execution == 20 and clock.fraction == 0.25
    assert clock.eta_seconds() is not None


def test_a_quiet_build_shows_a_spinner_on_a_terminal_only():
    out = Terminal()
    reporter = make_reporter(out)
    with reporter.working("building v1"):
        reporter.message("$ mvn -B -q package")
    reporter.close()
    assert "$ mvn -B -q package" in out.getvalue()
    plain = io.StringIO()
    with PlainReporter(plain).working("building v1"):
        pass
    assert plain.getvalue() == ""
