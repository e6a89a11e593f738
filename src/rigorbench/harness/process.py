"""Run a harness command as its own process group, stream its output, and stop it cleanly.

Every command is an argument list (never a shell string), so benchmark names and options
reach the program verbatim and never a shell. The child starts in a new session
(``start_new_session=True``): it and everything it forks (JMH's forked benchmark JVMs) form
one process group, which a timeout or Ctrl-C stops as a whole - SIGTERM first, SIGKILL
after a grace period - so that no orphaned JVM keeps burning a core of the next trial.
Output (stdout and stderr merged) is read line by line as it comes, handed to a callback
and appended to a log file at once, so a killed trial leaves everything it printed.

A harness process started outside the main thread (a duet run's executions, two at a time)
does not see the main thread's Ctrl-C: the code that started that thread learns of every
process it starts through :func:`announcing_starts` and stops them itself.

A rigorbench killed with ``kill -9`` cannot stop its group: the trial runs on to its end,
unguarded by the machine's trial lock (the kernel released it), beside the trials of the run
resumed meanwhile. So every group started here is recorded in a file beside that lock
(:func:`group_records`) until it ends, and the next trial on the machine stops the groups
whose recorder is dead (:func:`stop_orphaned_groups`).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

from rigorbench.harness.base import HarnessError

DEFAULT_GRACE_S = 5.0
_POLL_S = 0.05
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Told of every process run_streamed starts in this context (see announcing_starts).
_ON_START: ContextVar[Callable[[subprocess.Popen], None] | None] = ContextVar("rigorbench_on_start", default=None)


@contextlib.contextmanager
def announcing_starts(on_start: Callable[[subprocess.Popen], None]) -> Iterator[None]:
    """Call ``on_start`` with every process :func:`run_streamed` starts in the body (in this
    thread): whoever runs a harness in a thread of its own can then stop its processes."""
    token = _ON_START.set(on_start)
    try:
        yield
    finally:
        _ON_START.reset(token)


@dataclass(frozen=True)
class ProcessResult:
    """What a finished (or stopped) command left behind."""

    returncode: int           # negative: killed by that signal
    lines: tuple[str, ...]    # merged stdout/stderr, without line ends
    seconds: float            # wall time from start to exit of the child
    timed_out: bool = False


def pinned_cpus() -> frozenset[int] | None:
    """The CPUs the calling thread is pinned to when they are fewer than its process's (a duet
    run's execution thread: what it starts inherits them), else None. For a harness that would
    pin its workers elsewhere of its own accord (pyperf, to isolated CPUs)."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    mine = os.sched_getaffinity(0)
    return frozenset(mine) if mine < os.sched_getaffinity(os.getpid()) else None


def strip_ansi(text: str) -> str:
    """``text`` without terminal colour codes (Maven prints them even with ``-B`` at times)."""
    return _ANSI.sub("", text)


def describe_command(command: Sequence[str]) -> str:
    """The command as a user could paste it into a shell (for messages only)."""
    return shlex.join(str(part) for part in command)


def tail(lines: Sequence[str], count: int) -> str:
    """The last ``count`` lines joined by newlines."""
    return "\n".join(lines[-count:]) if count > 0 else ""


def output_tail(lines: Sequence[str], count: int) -> tuple[str, ...]:
    """The last ``count`` output lines of a failed command as an error's details (indented
    below a heading), or nothing when it printed nothing."""
    shown = [line.rstrip() for line in lines[-count:]] if count > 0 else []
    return ("last lines of its output:", *(f"  {line}" for line in shown)) if shown else ()


def run_streamed(command: Sequence[str], *, cwd: Path, on_line: Callable[[str], None] = lambda line: None,
                 log_path: Path | None = None, timeout_s: float | None = None,
                 grace_s: float = DEFAULT_GRACE_S, env: Mapping[str, str] | None = None) -> ProcessResult:
    """Run ``command`` in ``cwd``; call ``on_line`` for every output line as it arrives.

    At ``timeout_s`` the process group is stopped and ``timed_out`` is set; what the
    processes print while they die (JMH: "VM prematurely exited") is kept in the result
    and the log but not passed to ``on_line``. Any exception while reading (Ctrl-C's
    KeyboardInterrupt, an error in ``on_line``) stops the group and is re-raised.
    ``env`` (None: ours) is the child's whole environment.
    Raises HarnessError when the program cannot be started.
    """
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            [str(part) for part in command], cwd=cwd, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
            env=None if env is None else dict(env),
        )
    except OSError as error:
        raise HarnessError(f"cannot run {describe_command(command)}: {error.strerror or error}") from None
    if (on_start := _ON_START.get()) is not None:
        on_start(process)
    record = _record_group(process.pid)
    watchdog = _Watchdog(process, timeout_s, grace_s)
    lines: list[str] = []
    try:
        _pump(process, lines, on_line, log_path, watchdog.fired)
        process.wait()
    except BaseException:
        stop_group(process, grace_s)
        raise
    finally:
        watchdog.cancel()
        process.stdout.close()
        if record is not None:
            record.unlink(missing_ok=True)
    seconds = time.monotonic() - started
    return ProcessResult(process.returncode, tuple(lines), seconds, watchdog.fired.is_set())


def _pump(
    process: subprocess.Popen, lines: list[str], on_line, log_path: Path | None, stopping: threading.Event
) -> None:
    """Copy the child's output to ``lines``, ``on_line`` (until ``stopping``) and the log file until EOF."""
    log = open(log_path, "w", encoding="utf-8") if log_path is not None else None
    try:
        for raw in iter(process.stdout.readline, b""):
            text = raw.decode("utf-8", "replace")
            if log is not None:
                log.write(text)
                log.flush()
            line = text.rstrip("\r\n")
            lines.append(line)
            if not stopping.is_set():
                on_line(line)
    finally:
        if log is not None:
            log.close()


class _Watchdog:
    """Stops the process group when the timeout passes (a daemon thread; no-op without timeout)."""

    def __init__(self, process: subprocess.Popen, timeout_s: float | None, grace_s: float) -> None:
        self.fired = threading.Event()
        self._done = threading.Event()
        self._thread = None
        if timeout_s is not None:
            args = (process, max(0.0, timeout_s), grace_s)
            self._thread = threading.Thread(target=self._watch, args=args, daemon=True)
            self._thread.start()

    def _watch(self, process: subprocess.Popen, timeout_s: float, grace_s: float) -> None:
        if not self._done.wait(timeout_s):
            self.fired.set()
            stop_group(process, grace_s)

    def cancel(self) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()


_KILL_WAIT_S = 5.0


def stop_group(process: subprocess.Popen, grace_s: float = DEFAULT_GRACE_S) -> None:
    """SIGTERM the child's process group, SIGKILL what is left after ``grace_s``, reap the child."""
    group = process.pid  # the child leads its own session and group
    _signal_group(group, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and group_alive(group, process):
        time.sleep(_POLL_S)
    if group_alive(group, process):
        _signal_group(group, signal.SIGKILL)
    process.wait()
    # SIGKILL is delivered at once but a grandchild takes a moment to exit: return only when
    # the group is gone (bounded), so nothing of a stopped trial runs on beside the next one.
    deadline = time.monotonic() + _KILL_WAIT_S
    while time.monotonic() < deadline and group_alive(group):
        time.sleep(_POLL_S)


def _signal_group(group: int, sig: int) -> None:
    try:
        os.killpg(group, sig)
    except (ProcessLookupError, PermissionError):
        pass


def group_alive(group: int, process: subprocess.Popen | None = None) -> bool:
    """Whether any live (non-zombie) process is in ``group``.

    Reads ``/proc`` where it exists, because an orphaned zombie that no init reaps still
    counts for ``kill(-group, 0)``; falls back to that elsewhere.
    """
    if process is not None:
        process.poll()  # reap our own child if it exited, so it does not count as alive
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return any(_in_group(entry.name, group) for entry in proc.iterdir() if entry.name.isdigit())


def _stat_fields(pid: int | str) -> list[str] | None:
    """``/proc/PID/stat`` after "pid (comm) ": state, ppid, pgrp, ... (None: no such process,
    or no /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()


def _in_group(pid: str, group: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and len(fields) > 2 and fields[0] not in ("Z", "X") and fields[2] == str(group)


def lock_dir() -> Path:
    """Where the machine's trial lock and the records of running harness groups live
    (``RIGORBENCH_LOCK_DIR``, else the temporary directory)."""
    return Path(os.environ.get("RIGORBENCH_LOCK_DIR") or tempfile.gettempdir())


def group_records() -> Path:
    """The folder of records ``OWNER-GROUP`` (a rigorbench's pid, the group it started),
    each holding the group leader's start time."""
    return lock_dir() / "rigorbench-groups"


def _start_time(pid: int) -> str | None:
    """Field 22 of ``/proc/PID/stat`` (clock ticks since boot), or None without it."""
    fields = _stat_fields(pid)
    return fields[19] if fields is not None and len(fields) > 19 else None


def _record_group(group: int) -> Path | None:
    """Record ``group`` as started by this process; None where it cannot be (no /proc, an
    unwritable folder: the group then goes unrecorded, as before)."""
    started = _start_time(group)
    if started is None:
        return None
    try:
        folder = group_records()
        folder.mkdir(exist_ok=True)
        path = folder / f"{os.getpid()}-{group}"
        path.write_text(started)
    except OSError:
        return None
    return path


def _pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, killed but not yet reaped, does not). Records
    exist only where /proc does (:func:`_record_group`), so /proc is what is read."""
    fields = _stat_fields(pid)
    return fields is not None and fields[:1] not in (["Z"], ["X"])


def stop_orphaned_groups(say: Callable[[str], None]) -> int:
    """SIGKILL the recorded harness groups whose rigorbench is gone (killed with ``kill -9``),
    say so once for each, and drop their records; returns how many were stopped.

    A group is stopped only while its leader is the recorded process (same start time): a
    record may come from another PID namespace sharing the folder (a container), where the
    same numbers name other processes. A group whose leader has exited is left to end (the
    harness command leads it and outlives its forks when only rigorbench was killed)."""
    folder = group_records()
    try:
        records = list(folder.iterdir())
    except OSError:
        return 0
    stopped = 0
    for record in records:
        owner, _, group_text = record.name.partition("-")
        if not (owner.isdigit() and group_text.isdigit()) or _pid_alive(int(owner)):
            continue
        group = int(group_text)
        try:
            recorded = record.read_text().strip()
        except OSError:
            continue
        if _start_time(group) == recorded and group_alive(group):
            try:
                os.killpg(group, signal.SIGKILL)
            except ProcessLookupError:
                pass
            except PermissionError:   # another user's: theirs to stop, and their record to drop
                continue
            say(f"stopped process group {group}, a trial left running by a rigorbench that was killed "
                f"(pid {owner}), so that it does not run beside this one")
            deadline = time.monotonic() + _KILL_WAIT_S
            while time.monotonic() < deadline and group_alive(group):
                time.sleep(_POLL_S)
            stopped += 1
        with contextlib.suppress(OSError):
            record.unlink(missing_ok=True)
    return stopped
