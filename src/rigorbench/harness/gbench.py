"""The Google Benchmark harness: build a CMake project once per version, run its benchmark
executables one trial at a time.

A version is configured and built with CMake (``-DCMAKE_BUILD_TYPE=Release``) into
``.rigorbench-gbench/`` in the version's directory. Its benchmark executables are the targets of
``add_executable(...)`` in CMakeLists.txt files that link ``benchmark::benchmark``; nothing
else the build makes is ever run. A trial runs every executable ``forks`` times, each run a
fresh process::

    exe --benchmark_filter=RE --benchmark_repetitions=W+I --benchmark_min_time=T
        --benchmark_out=FILE --benchmark_out_format=json

``T`` is ``--iteration-time`` in the form the library takes: a plain number of seconds before
1.8, ``<float>s`` from 1.8 on, where ``--iteration-time 100x`` (a fixed count of iterations
per repetition) becomes ``100x``; before 1.8 a count is refused (``gbench_build.py`` reads the
version). With a build cache (a clean commit) the executables are kept in it, keyed by CMake,
the compiler and its flags, the library and a hash of the sources, unless they name the build
folder (a run path to a library built there).

Levels: trial = one RMIT trial, fork = one process, iteration = one repetition; the first
``warmup_iterations`` repetitions of every benchmark are kept as warmup iterations (the library
has no warmup of its own before 1.8). The JSON is read by ``formats/gbench.py``: ``real_time``
is the primary metric, ``cpu_time`` and the counters are recorded too, and the library's build
type, CPU count, MHz and frequency scaling go with every trial.
"""

from __future__ import annotations

import re
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from rigorbench.errors import InputError, UserError
from rigorbench.formats.gbench import GbenchJsonReader, split_name
from rigorbench.harness.base import DONE, FAILED, TIMEOUT, Build, BuildSpec, HarnessError, ListedBenchmark, Progress, RunSettings, TrialOutcome
from rigorbench.harness.cache import BuildCache
from rigorbench.harness.gbench_build import BUILD_TYPE, MIN_TIME_FORM, SUFFIXED, build_identity, configured_tools, min_time_form, relocatable
from rigorbench.harness.process import describe_command, output_tail, run_streamed
from rigorbench.harness.repetitions import Tables, add_process, outcome, progress_of, read_or_empty, run_checked
from rigorbench.units import parse_duration

BUILD_DIR = ".rigorbench-gbench"
TAIL_LINES = 20
LIST_TIMEOUT_S = 60.0
_EXECUTABLE = re.compile(r"add_executable\s*\(\s*([A-Za-z0-9_.+-]+)")
_COUNT = re.compile(r"(\d+)x")
# A console line of a running benchmark; the library's aggregate lines (NAME_mean, _median,
# _stddev, _cv after the repetitions) name the same benchmark, so progress does not list them again.
_RUNNING = re.compile(r"^(BM_\S+?|\w+/\S+?)(?:_(?:mean|median|stddev|cv))?\s")


def is_gbench_project(folder: Path) -> bool:
    """A CMakeLists.txt that links Google Benchmark."""
    return any("benchmark::benchmark" in read_or_empty(path) for path in _cmake_lists(folder))


class GbenchHarness:
    name = "gbench"

    def build(self, project_dir: Path, spec: BuildSpec, log: Callable[[str], None], cache: BuildCache | None = None) -> Build:
        """Configure and build ``project_dir`` with CMake, or take its executables from ``cache``
        (looked up after configuring: the compiler and library CMake found are in the key)."""
        project_dir = Path(project_dir).resolve()
        if not (project_dir / "CMakeLists.txt").is_file():
            raise HarnessError(f"{project_dir}: no CMakeLists.txt here; the Google Benchmark harness builds a CMake project")
        if spec.command or spec.jar or spec.module or spec.java_home:
            raise UserError("the Google Benchmark harness takes no build command, jar, module or java_home")
        targets = _targets(project_dir)
        if not targets:
            raise HarnessError(f"{project_dir}: no add_executable(...) in a CMakeLists.txt that links benchmark::benchmark")
        out = project_dir / BUILD_DIR
        started = time.monotonic()
        configure = ["cmake", "-S", str(project_dir), "-B", str(out), f"-DCMAKE_BUILD_TYPE={BUILD_TYPE}"]
        log(f"$ {describe_command(configure)}")
        run_checked(configure, project_dir, "configuring with CMake")
        versions = configured_tools(out, project_dir)
        identity = build_identity(versions, out, project_dir, cache) if cache is not None else {}
        cached = cache.get_files(identity) if cache is not None else None
        if cached is not None:
            log(f"build cache hit: {cached.artifact} (built in {cached.meta.get('seconds', 0):.0f} s on {cached.meta.get('built', '?')})")
            return Build(project_dir, cached.artifact, dict(cached.meta.get("tool_versions", {})), 0.0, cached=True)
        compile_ = ["cmake", "--build", str(out), "--parallel"]
        log(f"$ {describe_command(compile_)}")
        run_checked(compile_, project_dir, "building with CMake")
        build = Build(project_dir, out, versions, time.monotonic() - started)
        executables = self.executables(build)
        if not executables:
            raise HarnessError(f"{project_dir}: the build made none of {', '.join(targets)}")
        build = replace(build, tool_versions={**versions, MIN_TIME_FORM: min_time_form(versions.get("benchmark"), executables[0])})
        if cache is not None and all(relocatable(exe, out) for exe in executables):
            meta = {"tool_versions": dict(build.tool_versions), "seconds": build.seconds, "built": time.strftime("%Y-%m-%d %H:%M")}
            kept = cache.put_files(identity, {exe.name: exe for exe in executables}, meta)
            if kept is not None:
                build = replace(build, artifact=kept)
        return build

    def executables(self, build: Build) -> list[Path]:
        """The built benchmark targets (the CMakeLists name them; the build folder holds them)."""
        return [found for name in _targets(Path(build.project_dir)) if (found := _find(Path(build.artifact), name))]

    def exact_includes(self, names, within=()) -> tuple[str, ...]:
        """A filter per family that matches its every instance (``BM_Sum`` and ``BM_Sum/size:8``)
        and nothing else: the family name with the regex characters escaped (POSIX extended)."""
        return tuple("^" + re.sub(r"([.\[\](){}*+?|^$\\])", r"\\\1", name) + "(/.*)?$" for name in names)

    def list_benchmarks(self, build: Build, settings: RunSettings) -> list[ListedBenchmark]:
        """The families the executables list (``--benchmark_list_tests``), each with its
        arguments as parameters, as the results name them (``BM_Sum`` with ``size`` 100, 1000);
        first, the trials' arguments are checked (a count on a 1.7 library is refused here,
        before anything is stored)."""
        trial_arguments(settings, build.tool_versions.get(MIN_TIME_FORM) == SUFFIXED)
        families: dict[str, dict[str, list[str]]] = {}
        for exe in self.executables(build):
            command = [str(exe), "--benchmark_list_tests=true", f"--benchmark_filter={bench_filter(settings.include)}"]
            run = run_streamed(command, cwd=build.project_dir, timeout_s=LIST_TIMEOUT_S)
            if run.timed_out or run.returncode != 0:
                raise HarnessError(f"{exe.name}: listing benchmarks failed", output_tail(run.lines, TAIL_LINES))
            for line in filter(None, map(str.strip, run.lines)):
                family, params = split_name(line)
                values = families.setdefault(family, {})
                for key, value in params.items():
                    if value not in values.setdefault(key, []):
                        values[key].append(value)
        return [ListedBenchmark(name, tuple((k, tuple(v)) for k, v in params.items())) for name, params in families.items()]

    def run_trial(self, build: Build, settings: RunSettings, work_dir: Path,
                  on_progress: Callable[[Progress], None]) -> TrialOutcome:
        work_dir = Path(work_dir).resolve()
        work_dir.mkdir(parents=True, exist_ok=True)
        arguments = trial_arguments(settings, build.tool_versions.get(MIN_TIME_FORM) == SUFFIXED)
        (work_dir / "command.txt").write_text(describe_command(["EXE", *arguments]) + "\n", encoding="utf-8")
        started = time.monotonic()
        deadline = started + settings.timeout_s if settings.timeout_s else None
        tables: Tables = {}
        environment: dict[str, str] = {key: build.tool_versions[key] for key in ("cmake", "compiler", "benchmark")
                                       if build.tool_versions.get(key)}
        failures: list[str] = []
        lines: list[str] = []
        for fork in range(settings.forks):
            for number, exe in enumerate(self.executables(build)):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return outcome(TIMEOUT, tables, started, environment, failures, lines, "stopped at the trial timeout")
                result_path = work_dir / f"result-{fork + 1}-{number}.json"
                result_path.unlink(missing_ok=True)
                run = run_streamed([str(exe), *arguments, f"--benchmark_out={result_path}", "--benchmark_out_format=json"],
                                   cwd=build.project_dir, on_line=progress_of(on_progress, _RUNNING, fork, settings.forks),
                                   log_path=work_dir / f"console-{fork + 1}-{number}.log", timeout_s=left)
                lines += run.lines
                if result_path.is_file():
                    try:
                        result = GbenchJsonReader().parse(result_path.read_text(encoding="utf-8"), str(result_path))
                    except InputError as error:
                        failures.append(f"{exe.name}: {error}")
                    else:
                        failures += result.failures
                        environment.update({k: v for k, v in result.environment.items() if k not in ("date", "executable")})
                        add_process(result, fork, settings.warmup_iterations, tables)
                if run.timed_out:
                    return outcome(TIMEOUT, tables, started, environment, failures, lines, "stopped at the trial timeout")
                if run.returncode != 0:
                    failures.append(f"{exe.name}: exited with code {run.returncode}")
        return outcome(DONE if tables else FAILED, tables, started, environment, failures, lines,
                       "" if tables else "no benchmark result: see the output's last lines")


def bench_filter(include) -> str:
    """One ``--benchmark_filter`` regex (POSIX extended, as the library reads it): one include
    pattern as written, several as alternatives (all: ``.``)."""
    pattern = include[0] if len(include) == 1 else "|".join(f"({p})" for p in include) if include else "."
    if pattern.startswith("-"):
        raise UserError(f"bad benchmark pattern {pattern!r}: a filter starting with '-' excludes in Google Benchmark")
    return pattern


def trial_arguments(settings: RunSettings, suffixed: bool = False) -> list[str]:
    """The benchmark executable's arguments for one process of a trial (before --benchmark_out);
    ``suffixed``: the library takes 1.8's ``--benchmark_min_time`` forms (see :func:`min_time`)."""
    if settings.iterations < 1:
        raise UserError("--iterations must be at least 1")
    arguments = [f"--benchmark_filter={bench_filter(settings.include)}",
                 f"--benchmark_repetitions={settings.warmup_iterations + settings.iterations}",
                 f"--benchmark_min_time={min_time(settings.iteration_time, suffixed)}"]
    if settings.threads is not None:
        raise UserError("--threads is not passed to Google Benchmark (threads are set per benchmark in its code)")
    return arguments


def min_time(iteration_time: str, suffixed: bool) -> str:
    """``--benchmark_min_time``'s value for ``--iteration-time``. Google Benchmark 1.8 takes
    ``<float>s`` (seconds) or ``<integer>x`` (a fixed count of iterations); before 1.8 it takes
    a plain number of seconds and nothing else, so a count is refused there."""
    text = str(iteration_time)
    count = _COUNT.fullmatch(text)
    if count:
        if not suffixed:
            raise UserError(f"iteration time {text!r}: a fixed iteration count needs Google Benchmark 1.8 or later "
                            "(--benchmark_min_time=Nx); this build's library takes seconds only: give a time such as 100ms")
        return f"{int(count.group(1))}x"
    seconds = parse_duration(text)
    if seconds is None:
        raise UserError(f"bad iteration time {text!r} for Google Benchmark: a duration such as 1s or 100ms, "
                        "or a count such as 100x (Google Benchmark 1.8 or later)")
    return f"{seconds:g}s" if suffixed else f"{seconds:g}"


def _targets(project_dir: Path) -> list[str]:
    """``add_executable`` targets of the CMakeLists that link Google Benchmark, once each."""
    return list(dict.fromkeys(name for path in _cmake_lists(project_dir) if "benchmark::benchmark" in (text := read_or_empty(path))
                              for name in _EXECUTABLE.findall(text)))


def _cmake_lists(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("CMakeLists.txt") if BUILD_DIR not in p.parts and "build" not in p.parts[len(folder.parts):-1]]


def _find(out: Path, name: str) -> Path | None:
    for path in sorted(out.rglob(name)):
        if path.is_file() and "CMakeFiles" not in path.parts and shutil.which(str(path)):
            return path
    return None
