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


# A rigorbench that runs a harness command (a child that forks a grandchild, as JMH forks its
# benchmark JVM) and never returns: the test kills it with SIGKILL, as a user's kill -9 does.
_KILLED_RUNNER = """
import sys
from pathlib import Path
from rigorbench.harness.process import run_streamed
run_streamed([sys.executable, "-c", "import subprocess, sys, time; "
              "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
              "print('started', flush=True); time.sleep(120)"],
             cwd=Path("."), on_line=lambda line: print(line, flush=True))
"""


def _wait_for(predicate, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_a_trial_left_running_by_a_killed_rigorbench_is_stopped_by_the_next_trial(tmp_path, monkeypatch):
    import os
    import subprocess

    from rigorbench.experiment.machine_lock import one_trial_at_a_time
    from rigorbench.harness.process import group_records

    monkeypatch.setenv("RIGORBENCH_LOCK_DIR", str(tmp_path))
    runner = subprocess.Popen([sys.executable, "-c", _KILLED_RUNNER], cwd=tmp_path, stdout=subprocess.PIPE,
                              env={**os.environ, "RIGORBENCH_LOCK_DIR": str(tmp_path)})
    try:
        assert runner.stdout.readline().strip() == b"started"
        records = list(group_records().iterdir())
        assert [r.name.partition("-")[0] for r in records] == [str(runner.pid)]
        group = int(records[0].name.partition("-")[2])
        runner.send_signal(signal.SIGKILL)
        runner.wait()
        time.sleep(0.2)
        assert group_alive(group)                 # kill -9 stopped rigorbench, not its trial
        said: list[str] = []
        with one_trial_at_a_time(said.append):
            assert not group_alive(group)         # the next trial stopped it first, grandchild included
        assert len(said) == 1 and f"stopped process group {group}" in said[0] and f"pid {runner.pid}" in said[0]
        assert list(group_records().iterdir()) == []
    finally:
        runner.kill()
        runner.wait()
        if group_records().is_dir():
            for record in group_records().iterdir():
                os.killpg(int(record.name.partition("-")[2]), signal.SIGKILL)


def test_a_finished_command_leaves_no_record_and_a_live_rigorbench_keeps_its_groups(tmp_path, monkeypatch):
    import os
    import subprocess

    from rigorbench.harness.process import group_records, stop_orphaned_groups

    monkeypatch.setenv("RIGORBENCH_LOCK_DIR", str(tmp_path))
    run_streamed([sys.executable, "-c", "print('x')"], cwd=tmp_path)
    assert list(group_records().iterdir()) == []
    # a group recorded by a process that still runs (this one) is another experiment's trial
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        stat = open(f"/proc/{child.pid}/stat").read()
        (group_records() / f"{os.getpid()}-{child.pid}").write_text(stat[stat.rfind(")") + 2:].split()[19])
        said: list[str] = []
        assert stop_orphaned_groups(said.append) == 0 and said == [] and group_alive(child.pid)
        # ... and a record whose group has ended, or whose leader's start time differs (the id
        # taken again by an unrelated process), is dropped without stopping anything
        (group_records() / f"{os.getpid()}-{child.pid}").unlink()
        (group_records() / f"999999999-{child.pid}").write_text("1")
        assert stop_orphaned_groups(said.append) == 0 and group_alive(child.pid)
        assert list(group_records().iterdir()) == []
    finally:
        child.kill()
        child.wait()
    # ... nor is a group whose leader has exited, though members remain: the numbers of a record
    # may come from another PID namespace sharing the folder, where they name other processes
    leader = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; "
                               "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
                               "print(p.pid, flush=True); time.sleep(1)"],
                              start_new_session=True, stdout=subprocess.PIPE)
    try:
        stat = open(f"/proc/{leader.pid}/stat").read()
        (group_records() / f"999999999-{leader.pid}").write_text(stat[stat.rfind(")") + 2:].split()[19])
        member = int(leader.stdout.readline())
        leader.wait()
        assert group_alive(leader.pid)
        assert stop_orphaned_groups(said.append) == 0 and group_alive(leader.pid) and said == []
    finally:
        os.killpg(leader.pid, signal.SIGKILL)
        leader.wait()
        assert member > 0
