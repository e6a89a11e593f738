"""Progress of analyze, compare and report on long inputs: on stderr only, counted once per
benchmark, and only when stderr is a terminal (a CI log or a pipe gets none)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rigorbench import api
from rigorbench.analysis.settings import Settings
from rigorbench.cli import main

JMH = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
V1 = str(JMH / "v1-trial1.json")
V2 = str(JMH / "v2-trial1.json")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


COMMANDS = {
    "analyze": (["analyze", V1, "--resamples", "500"], "analyze: analysing"),
    "compare": (["compare", V1, V2, "--resamples", "500", "--color", "never"], "compare: comparing"),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_terminal_sees_a_counter_and_stdout_stays_the_result(command):
    argv, prefix = COMMANDS[command]
    quiet_out, quiet_err = io.StringIO(), io.StringIO()
    assert main(argv, quiet_out, quiet_err) == 0
    out, err = Terminal(), Terminal()
    assert main(argv, out, err) == 0
    # The counter never reaches stdout: the result is the same with and without a terminal.
    assert out.getvalue() == quiet_out.getvalue() and prefix not in out.getvalue()
    counts = [line for line in err.getvalue().split("\r") if line]
    assert counts == [f"{prefix} {done}/4 benchmarks" for done in range(1, 4)] + [f"{prefix} 4/4 benchmarks\n"]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_pipe_or_log_gets_no_progress(command):
    argv, _ = COMMANDS[command]
    err = io.StringIO()
    assert main(argv, io.StringIO(), err) == 0
    assert err.getvalue() == ""


def test_analyze_calls_progress_once_per_series_in_order():
    calls: list[tuple[int, int]] = []
    result = api.analyze(api.load_results([V1]), Settings(resamples=200), progress=lambda *c: calls.append(c))
    assert calls == [(done, len(result.benchmarks)) for done in range(1, len(result.benchmarks) + 1)]
    assert len(result.benchmarks) == 4


def test_compare_calls_progress_once_per_series_in_order():
    calls: list[tuple[int, int]] = []
    result = api.compare(api.load_results([V1]), api.load_results([V2]), Settings(resamples=200),
                         progress=lambda *c: calls.append(c))
    assert calls == [(done, 4) for done in range(1, 5)]
    assert len(result.comparisons) == 4
