"""Streaming a child's output, and stopping its whole process group."""

from __future__ import annotations

import signal
import sys
import time

import pytest

from rigorbench.harness.base import HarnessError
from rigorbench.harness.process import describe_command, group_alive, run_streamed, strip_ansi, tail

PY = sys.executable


def test_lines_are_streamed_as_they_come_and_logged(tmp_path):
    script = "import time\nprint('one', flush=True)\ntime.sleep(1.0)\nprint('two')\nprint('drei \u00e4', end='')"
    seen: list[tuple[str, float]] = []
    started = time.monotonic()
    result = run_streamed([PY, "-c", script], cwd=tmp_path, log_path=tmp_path / "log",
                          on_line=lambda line: seen.append((line, time.monotonic() - started)))
    assert result.returncode == 0 and not result.timed_out
    assert result.lines == ("one", "two", "drei \u00e4")
    assert seen[0][1] < seen[1][1] - 0.5  # "one" arrived before the child slept
    assert (tmp_path / "log").read_text(encoding="utf-8") == "one\ntwo\ndrei \u00e4"
    assert result.seconds >= 1.0


def test_stderr_is_merged_and_exit_code_kept(tmp_path):
    script = "import sys\nprint('out', flush=True)\nprint('err', file=sys.stderr, flush=True)\nsys.exit(4)"
    result = run_streamed([PY, "-c", script], cwd=tmp_path)
    assert result.returncode == 4 and set(result.lines) == {"out", "err"}


def test_timeout_sends_sigkill_when_sigterm_is_ignored(tmp_path):
    script = (
        "import os, signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "print(os.getpgid(0), flush=True)\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "time.sleep(60)\n"
    )
    result = run_streamed([PY, "-c", script], cwd=tmp_path, timeout_s=3.0, grace_s=0.5)
    assert result.timed_out and result.returncode == -signal.SIGKILL
    assert not group_alive(int(result.lines[0]))
    assert 3.0 <= result.seconds < 15


def test_what_the_child_prints_while_dying_is_kept_but_not_streamed(tmp_path):
    script = (
        "import signal, sys, time\n"
        "def bye(*_):\n    print('dying', flush=True); sys.exit(1)\n"
        "signal.signal(signal.SIGTERM, bye)\n"
        "print('working', flush=True)\n"
        "time.sleep(60)\n"
    )
    seen = []
    result = run_streamed([PY, "-c", script], cwd=tmp_path, on_line=seen.append, timeout_s=3.0,
                          log_path=tmp_path / "log")
    assert result.timed_out and result.lines == ("working", "dying") and seen == ["working"]
    assert (tmp_path / "log").read_text() == "working\ndying\n"


def test_error_in_the_line_callback_stops_the_child(tmp_path):
    script = "import os, time\nprint(os.getpgid(0), flush=True)\ntime.sleep(60)"
    groups = []

    def fail(line):
        groups.append(int(line))
        raise RuntimeError("consumer broke")

    with pytest.raises(RuntimeError, match="consumer broke"):
        run_streamed([PY, "-c", script], cwd=tmp_path, on_line=fail, grace_s=1.0)
    assert not group_alive(groups[0])


def test_missing_program_is_a_harness_error(tmp_path):
    with pytest.raises(HarnessError, match="cannot run rigorbench-missing 'a b'"):
        run_streamed(["rigorbench-missing", "a b"], cwd=tmp_path)


def test_helpers():
    assert strip_ansi("\x1b[1mApache Maven 3.8.7\x1b[m\x1b[0m") == "Apache Maven 3.8.7"
    assert describe_command(["java", "-jar", "a b.jar", "$(x)"]) == "java -jar 'a b.jar' '$(x)'"
    assert tail(["a", "b", "c"], 2) == "b\nc" and tail(["a"], 0) == ""
