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

import os
import re
import shlex
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

from rigorbench.errors import UserError
from rigorbench.harness import gradle, maven
from rigorbench.harness.base import FAILED, Build, BuildSpec, HarnessError, ListedBenchmark, Progress, RunSettings, TrialOutcome
from rigorbench.harness.cache import BuildCache
from rigorbench.harness.jmh_console import ConsoleTracker
from rigorbench.harness.jmh_jar import find_benchmarks_jar, jar_from_pattern, jmh_version
from rigorbench.harness.jmh_layout import BuildLayout, plan_build
from rigorbench.harness.jmh_results import trial_outcome
from rigorbench.harness.process import DEFAULT_GRACE_S, describe_command, output_tail, run_streamed, strip_ansi
from rigorbench.harness.tools import java_version, maven_version, resolve_java

DEFAULT_JAVA_COMMAND = ("java",)
RESULT_FILE, CONSOLE_LOG, COMMAND_FILE = "result.json", "console.log", "command.txt"
BUILD_TAIL_LINES = 20
LIST_TIMEOUT_S = 120.0
_BENCHMARK_NAME = re.compile(r"[\w$.]+")
_PARAM_LINE = re.compile(r'^\s+param "([^"]+)" = \{(.*)\}\s*$')



def jmh_exact_includes(names) -> tuple[str, ...]:
    """JMH include regexes (Java syntax) that match exactly ``names``."""
    return tuple("^" + name.replace(".", r"\.").replace("$", r"\$") + "$" for name in names)

class JmhHarness:
    """Builds a version's JMH benchmark jar (Maven, Gradle or a given command) and runs it.

    ``java_command`` is the launcher and options of the *host* JVM (JMH's own process,
    which only orchestrates), e.g. ``("java", "-Djava.io.tmpdir=/scratch")``; a version's
    ``java_home`` replaces the launcher. Forked benchmark JVMs inherit these options unless
    ``RunSettings.jvm_args`` is set.
    """

    name = "jmh"

    def __init__(self, java_command: Sequence[str] = DEFAULT_JAVA_COMMAND, kill_grace_s: float = DEFAULT_GRACE_S) -> None:
        if not java_command:
            raise ValueError("java_command must not be empty")
        self.java_command = tuple(java_command)
        self.kill_grace_s = kill_grace_s

    def java_for(self, spec: BuildSpec) -> tuple[tuple[str, ...], dict[str, str] | None]:
        """The launcher for ``spec`` and the build's environment (None: unchanged)."""
        if spec.java_home is None:
            return self.java_command, None
        home, java = resolve_java(spec.java_home)
        env = {**os.environ, "JAVA_HOME": str(home), "PATH": f"{home / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
        return (str(java), *self.java_command[1:]), env

    def build_identity(self, spec: BuildSpec, layout: BuildLayout, project_dir: Path, cache: BuildCache,
                       java: Sequence[str]) -> dict:
        """What, besides the sources, decides the jar: the build, the user's settings, the JDK."""
        return {
            "harness": self.name,
            "tool": layout.tool, "cwd": cache.relative(layout.cwd),
            "command": [cache.relative(part) for part in layout.command],
            "jar_dirs": [cache.relative(d) for d in layout.jar_dirs],
            # A given command and jar pattern are relative to PATH.
            "path": cache.relative(project_dir) if spec.command or spec.jar else None,
            "jar": spec.jar, "java_home": spec.java_home,
            "java": java_version(java[0]), "java_path": shutil.which(java[0]) or java[0],
        }

    def build(self, project_dir: Path, spec: BuildSpec, log: Callable[[str], None], cache: BuildCache | None = None) -> Build:
        """Build ``project_dir`` (or take the jar from ``cache``) and find the benchmark jar."""
        project_dir = Path(project_dir).resolve()  # the jar path must not depend on the child's cwd
        if not project_dir.is_dir():
            raise HarnessError(f"{project_dir}: no such project directory")
        java, env = self.java_for(spec)
        layout = plan_build(project_dir, spec)
        identity = self.build_identity(spec, layout, project_dir, cache, java) if cache is not None else {}
        cached = cache.get(identity) if cache is not None else None
        if cached is not None:
            meta = cached.meta
            log(f"build cache hit: {cached.artifact} (built in {meta.get('seconds', 0):.0f} s on {meta.get('built', '?')})")
            return Build(project_dir, cached.artifact, dict(meta.get("tool_versions", {})), 0.0, java,
                         meta.get("main_class"), cached=True)
        seconds = self._run_build(layout, env, log)
        jar = jar_from_pattern(spec.jar, project_dir) if spec.jar else find_benchmarks_jar(layout.jar_dirs)
        log(f"benchmark jar: {jar.path}")
        versions = self.tool_versions(jar.path, java[0], layout)
        build = Build(project_dir, jar.path, versions, seconds, java, jar.main_class)
        if cache is not None:
            meta = {"tool_versions": versions, "seconds": seconds, "main_class": jar.main_class,
                    "built": time.strftime("%Y-%m-%d %H:%M")}
            kept = cache.put(identity, jar.path, meta)
            if kept is not None:
                build = replace(build, artifact=kept)
        return build

    def _run_build(self, layout: BuildLayout, env: dict | None, log: Callable[[str], None]) -> float:
        command = describe_command(layout.command)
        log(f"$ {command}   (in {layout.cwd})")
        try:
            run = run_streamed(layout.command, cwd=layout.cwd, env=env)
        except HarnessError as error:
            hint = f"is {layout.command[0]} installed and on the PATH?"
            raise HarnessError(f"{layout.cwd}: {error} ({hint})") from None
        if run.returncode == 0:
            return run.seconds
        lines = [strip_ansi(line) for line in run.lines]
        if layout.tool == "maven":
            lines = maven.without_advice(lines)
        offline = gradle.wrapper_offline_hint(layout.gradle_project or layout.cwd, "\n".join(lines))
        java_home = f"JAVA_HOME={shlex.quote(env['JAVA_HOME'])} " if env else ""
        raise HarnessError(
            f"build failed: `{command}` exited with code {run.returncode}" + (f"; {offline}" if offline else ""),
            (f"reproduce it with: cd {shlex.quote(str(layout.cwd))} && {java_home}{command}",
             *output_tail(lines, BUILD_TAIL_LINES)),
        )

    def tool_versions(self, jar: Path, java: str = "java", layout: BuildLayout | None = None) -> dict[str, str]:
        """JMH version of ``jar``, the Java version, and Maven's when Maven builds."""
        versions = dict(java_version(java))
        versions["java_path"] = shutil.which(java) or java
        jmh = jmh_version(jar)
        if jmh:
            versions["jmh"] = jmh
        if layout is not None and layout.tool == "maven" and layout.command[0] == "mvn":
            maven = maven_version("mvn")
            if maven:
                versions["maven"] = maven
        if layout is not None:
            versions["build_tool"] = layout.tool
            versions["build_command"] = describe_command(layout.command)
            if layout.module:
                versions["build_module"] = layout.module
        return versions

    def launch(self, build: Build) -> list[str]:
        """``java [options] -jar JAR`` or ``java [options] -cp JAR org.openjdk.jmh.Main``."""
        jar = str(Path(build.artifact).resolve())
        java = list(build.java_command or self.java_command)
        return [*java, "-cp", jar, build.main_class] if build.main_class else [*java, "-jar", jar]

    def exact_includes(self, names, within=()) -> tuple[str, ...]:
        return jmh_exact_includes(names)

    def list_benchmarks(self, build: Build, settings: RunSettings) -> list[ListedBenchmark]:
        """``-lp [include...]``: the benchmarks JMH would run, with their parameters."""
        trial_command(self.launch(build), settings, Path(RESULT_FILE))   # the trials' options, checked before anything is stored
        command = [*self.launch(build), "-lp", *checked_includes(settings.include)]
        run = run_streamed(command, cwd=build.project_dir, timeout_s=LIST_TIMEOUT_S, grace_s=self.kill_grace_s)
        if not run.timed_out and run.returncode != 0:
            # JMH before -lp existed: the names without their parameters.
            command[command.index("-lp")] = "-l"
            run = run_streamed(command, cwd=build.project_dir, timeout_s=LIST_TIMEOUT_S, grace_s=self.kill_grace_s)
        if run.timed_out or run.returncode != 0:
            why = "timed out" if run.timed_out else f"exited with code {run.returncode}"
            raise HarnessError(f"{build.project_dir}: listing benchmarks failed: `{describe_command(command)}` {why}",
                               output_tail(run.lines, BUILD_TAIL_LINES))
        return parse_benchmark_list(run.lines)

    def run_trial(
        self, build: Build, settings: RunSettings, work_dir: Path, on_progress: Callable[[Progress], None]
    ) -> TrialOutcome:
        """One JMH invocation; stopped (with its forked JVMs) at ``settings.timeout_s`` or Ctrl-C."""
        work_dir = Path(work_dir).resolve()
        work_dir.mkdir(parents=True, exist_ok=True)
        result_path, log_path = work_dir / RESULT_FILE, work_dir / CONSOLE_LOG
        result_path.unlink(missing_ok=True)  # a file left by an earlier attempt must not pass for this one's
        command = trial_command(self.launch(build), settings, result_path)
        (work_dir / COMMAND_FILE).write_text(describe_command(command) + "\n", encoding="utf-8")
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            tracker = ConsoleTracker()
            try:
                run = run_streamed(
                    command, cwd=build.project_dir, on_line=lambda line: on_progress(tracker.feed(line)),
                    log_path=log_path, timeout_s=settings.timeout_s, grace_s=self.kill_grace_s,
                )
            except HarnessError as error:  # java could not be started
                return TrialOutcome(status=FAILED, series=(), harness_seconds=0.0, message=str(error))
            if run.returncode == 0 or not _lock_held(log_path) or time.monotonic() > deadline:
                return trial_outcome(run, tracker, result_path, log_path, settings.timeout_s)
            # Another JMH (not a rigorbench trial: those wait for each other) holds JMH's
            # lock; JMH gave up at once. Wait for it rather than store a failed trial.
            time.sleep(LOCK_RETRY_S)


# Another JMH on the machine: retry every LOCK_RETRY_S seconds for up to LOCK_WAIT_S.
LOCK_RETRY_S = 5.0
LOCK_WAIT_S = 1800.0
_LOCK_MESSAGE = "Unable to acquire the JMH lock"


def _lock_held(log_path: Path) -> bool:
    try:
        return _LOCK_MESSAGE in log_path.read_text(encoding="utf-8", errors="replace")[-4000:]
    except OSError:
        return False


def trial_command(launch: Sequence[str], settings: RunSettings, result_path: Path) -> list[str]:
    """The argument list of one trial, after the launcher (``java -jar JAR``)::

        java -jar benchmarks.jar [include...] -f F -wi W -i I -w T -r T [-bm M] [-tu U] [-t N]
             [-p name=v1,v2 ...] [-jvmArgs ARG ...] -prof gc [-prof P ...] -rf json -rff RESULT
    """
    command = [*launch, *checked_includes(settings.include)]
    if str(settings.iteration_time).endswith("x"):
        raise UserError(f"iteration time {settings.iteration_time!r}: JMH runs iterations for a time (such as 1s), "
                        "not a fixed count of invocations")
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


def parse_benchmark_list(lines: Sequence[str]) -> list[ListedBenchmark]:
    """The names under JMH's ``Benchmarks:`` heading (``-l``/``-lp`` output), with the
    ``  param "name" = {v1, v2}`` lines that ``-lp`` prints under each."""
    found: list[ListedBenchmark] = []
    listing = False
    for line in lines:
        text = strip_ansi(line).rstrip()
        if text.strip().startswith("Benchmarks:"):
            listing = True
        elif listing and (param := _PARAM_LINE.match(text)) and found:
            values = tuple(v.strip() for v in param.group(2).split(", ")) if param.group(2).strip() else ()
            last = found[-1]
            found[-1] = ListedBenchmark(last.name, (*last.params, (param.group(1), values)))
        elif listing and _BENCHMARK_NAME.fullmatch(text.strip()):
            found.append(ListedBenchmark(text.strip()))
    return found
