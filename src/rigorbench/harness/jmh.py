"""The JMH harness: build a Maven project's benchmark jar and run it one trial at a time.

One trial is one ``java -jar benchmarks.jar ...`` invocation (:func:`trial_command`) with
the experiment's settings on the command line, so that annotations in the code cannot
silently change what was asked for, ``-prof gc`` for allocation and GC counts, and a JSON
result file in the trial's work directory. The console output is streamed: every line is
kept in ``console.log`` as it arrives and turned into a progress event; the outcome is
assembled by :mod:`rigorbench.harness.jmh_results`.

JMH guards against two benchmark runs at once with a lock file in ``java.io.tmpdir``
(``jmh.lock``); a trial started while another JMH runs fails with JMH's "Another JMH
instance might be running" message rather than measuring a contended machine.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Sequence

from rigorbench.errors import UserError
from rigorbench.harness.base import FAILED, Build, HarnessError, Progress, RunSettings, TrialOutcome
from rigorbench.harness.jmh_console import ConsoleTracker
from rigorbench.harness.jmh_jar import find_benchmarks_jar, jmh_version
from rigorbench.harness.jmh_results import trial_outcome
from rigorbench.harness.process import DEFAULT_GRACE_S, describe_command, run_streamed, strip_ansi, tail
from rigorbench.harness.tools import java_version, maven_version

DEFAULT_BUILD_COMMAND = ("mvn", "-q", "-B", "-DskipTests", "package")
DEFAULT_JAVA_COMMAND = ("java",)
RESULT_FILE, CONSOLE_LOG, COMMAND_FILE = "result.json", "console.log", "command.txt"
BUILD_TAIL_LINES = 20
LIST_TIMEOUT_S = 120.0
_BENCHMARK_NAME = re.compile(r"[\w$.]+")


class JmhHarness:
    """Builds with Maven (or ``build_command``) and runs JMH uber-jars.

    ``java_command`` is the launcher and options of the *host* JVM (JMH's own process,
    which only orchestrates), e.g. ``("java", "-Djava.io.tmpdir=/scratch")``. Forked
    benchmark JVMs inherit these options unless ``RunSettings.jvm_args`` is set.
    """

    name = "jmh"

    def __init__(
        self,
        build_command: Sequence[str] = DEFAULT_BUILD_COMMAND,
        java_command: Sequence[str] = DEFAULT_JAVA_COMMAND,
        kill_grace_s: float = DEFAULT_GRACE_S,
    ) -> None:
        if not build_command or not java_command:
            raise ValueError("build_command and java_command must not be empty")
        self.build_command = tuple(build_command)
        self.java_command = tuple(java_command)
        self.kill_grace_s = kill_grace_s

    def build(self, project_dir: Path, log: Callable[[str], None]) -> Build:
        """Run the build command in ``project_dir`` and find the benchmark jar it made."""
        project_dir = Path(project_dir).resolve()  # the jar path must not depend on the child's cwd
        if not project_dir.is_dir():
            raise HarnessError(f"{project_dir}: no such project directory")
        command = describe_command(self.build_command)
        log(f"$ {command}   (in {project_dir})")
        try:
            run = run_streamed(self.build_command, cwd=project_dir)
        except HarnessError as error:
            hint = f"is {self.build_command[0]} installed and on the PATH?"
            raise HarnessError(f"{project_dir}: {error} ({hint})") from None
        if run.returncode != 0:
            lines = [strip_ansi(line) for line in run.lines]
            raise HarnessError(
                f"{project_dir}: build failed: `{command}` exited with code {run.returncode}; "
                f"last lines of its output:\n{tail(lines, BUILD_TAIL_LINES)}"
            )
        jar = find_benchmarks_jar(project_dir)
        log(f"benchmark jar: {jar}")
        return Build(project_dir=project_dir, artifact=jar, tool_versions=self.tool_versions(jar), seconds=run.seconds)

    def tool_versions(self, jar: Path) -> dict[str, str]:
        """JMH version of ``jar``, the Java version, and Maven's when Maven builds."""
        versions = dict(java_version(self.java_command[0]))
        jmh = jmh_version(jar)
        if jmh:
            versions["jmh"] = jmh
        if Path(self.build_command[0]).name == "mvn":
            maven = maven_version(self.build_command[0])
            if maven:
                versions["maven"] = maven
        else:
            versions["build_command"] = describe_command(self.build_command)
        return versions

    def list_benchmarks(self, build: Build, settings: RunSettings) -> list[str]:
        """``java -jar benchmarks.jar -l [include...]``: the names JMH would run."""
        jar = Path(build.artifact).resolve()
        command = [*self.java_command, "-jar", str(jar), "-l", *checked_includes(settings.include)]
        run = run_streamed(command, cwd=build.project_dir, timeout_s=LIST_TIMEOUT_S, grace_s=self.kill_grace_s)
        if run.timed_out or run.returncode != 0:
            why = "timed out" if run.timed_out else f"exited with code {run.returncode}"
            raise HarnessError(
                f"{build.project_dir}: listing benchmarks failed: `{describe_command(command)}` {why}; "
                f"last lines of its output:\n{tail(run.lines, BUILD_TAIL_LINES)}"
            )
        return parse_benchmark_list(run.lines)

    def run_trial(
        self, build: Build, settings: RunSettings, work_dir: Path, on_progress: Callable[[Progress], None]
    ) -> TrialOutcome:
        """One JMH invocation; stopped (with its forked JVMs) at ``settings.timeout_s`` or Ctrl-C."""
        work_dir = Path(work_dir).resolve()
        work_dir.mkdir(parents=True, exist_ok=True)
        result_path, log_path = work_dir / RESULT_FILE, work_dir / CONSOLE_LOG
        result_path.unlink(missing_ok=True)  # a file left by an earlier attempt must not pass for this one's
        command = trial_command(self.java_command, Path(build.artifact).resolve(), settings, result_path)
        (work_dir / COMMAND_FILE).write_text(describe_command(command) + "\n", encoding="utf-8")
        tracker = ConsoleTracker()
        try:
            run = run_streamed(
                command, cwd=build.project_dir, on_line=lambda line: on_progress(tracker.feed(line)),
                log_path=log_path, timeout_s=settings.timeout_s, grace_s=self.kill_grace_s,
            )
        except HarnessError as error:  # java could not be started
            return TrialOutcome(status=FAILED, series=(), harness_seconds=0.0, message=str(error))
        return trial_outcome(run, tracker, result_path, log_path, settings.timeout_s)


def trial_command(java_command: Sequence[str], jar: Path, settings: RunSettings, result_path: Path) -> list[str]:
    """The argument list of one trial::

        java -jar benchmarks.jar [include...] -f F -wi W -i I -w T -r T [-bm M] [-tu U] [-t N]
             [-p name=v1,v2 ...] [-jvmArgs ARG ...] -prof gc [-prof P ...] -rf json -rff RESULT
    """
    command = [*java_command, "-jar", str(jar), *checked_includes(settings.include)]
    command += [
        "-f", str(settings.forks), "-wi", str(settings.warmup_iterations), "-i", str(settings.iterations),
        "-w", _option_value("warmup time", settings.warmup_time),
        "-r", _option_value("iteration time", settings.iteration_time),
    ]
    if settings.mode:
        command += ["-bm", _option_value("benchmark mode", settings.mode)]
    if settings.time_unit:
        command += ["-tu", _option_value("time unit", settings.time_unit)]
    if settings.threads is not None:
        command += ["-t", str(settings.threads)]
    for name, values in settings.params:
        if not name or "=" in name:
            raise UserError(f"bad JMH parameter name {name!r}")
        command += ["-p", f"{name}={values}"]
    command += jvm_args_options(settings.jvm_args)
    for profiler in settings.profilers:
        command += ["-prof", _option_value("profiler", profiler)]
    return command + ["-rf", "json", "-rff", str(result_path)]


def checked_includes(include: Sequence[str]) -> list[str]:
    """The include regexes; one starting with ``-`` would be read by JMH as an option."""
    return [_option_value("benchmark include pattern", pattern) for pattern in include]


def _option_value(what: str, value: str) -> str:
    text = str(value)
    if not text.strip() or text.startswith("-"):
        raise UserError(f"bad {what} {text!r}: it must not be empty or start with '-'")
    return text


def jvm_args_options(jvm_args: Sequence[str]) -> list[str]:
    """``-jvmArgs`` options that give the forked JVMs exactly ``jvm_args``, one argument each.

    JMH keeps each value of a repeated ``-jvmArgs`` as one argument, but splits a single
    value at spaces (double quotes group and are removed): so one argument with a space is
    quoted, and one with a double quote cannot be passed.
    """
    for arg in jvm_args:
        if not arg:
            raise UserError("an empty JVM argument cannot be passed to JMH")
    if len(jvm_args) != 1:
        return [part for arg in jvm_args for part in ("-jvmArgs", arg)]
    arg = jvm_args[0]
    if '"' in arg:
        raise UserError(f"JVM argument {arg!r}: JMH cannot pass a double quote in a single -jvmArgs value")
    return ["-jvmArgs", f'"{arg}"' if " " in arg else arg]


def parse_benchmark_list(lines: Sequence[str]) -> list[str]:
    """The names under JMH's ``Benchmarks:`` heading (``-l`` output)."""
    names: list[str] = []
    listing = False
    for line in lines:
        text = line.strip()
        if text.startswith("Benchmarks:"):
            listing = True
        elif listing and _BENCHMARK_NAME.fullmatch(text):
            names.append(text)
    return names
