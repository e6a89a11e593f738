"""The pyperf harness: a version's benchmark script run with pyperf, one trial at a time.

A version (a directory or a git revision) gets a virtual environment of its own,
``.rigorbench-pyperf/`` in the version's directory, made from the Python that runs rigorbench;
pyperf is installed into it, and the version itself too when it is a package (a
``pyproject.toml`` or ``setup.py``), so each version is measured with its own code. The script
is ``bench.py`` (or the one ``BuildSpec.jar`` names: the build option that names the
artifact). A trial is one pyperf run::

    python SCRIPT --processes F --values I --warmups W --min-time T --output FILE --quiet

pyperf spawns the worker processes itself: each is a fork, its values the iterations and its
warmups the warmup iterations (``formats/pyperf.py`` reads the file, calibration processes
left out). ``--iteration-time`` is pyperf's ``--min-time``, the least time of one value.

With a build cache the environment is made in the cache instead, in the entry of its identity
(the Python, what is installed, a hash of the version's folder), and a later experiment on the
same sources, at any commit or none, reuses it. It is made there, not copied there: a virtual
environment cannot be moved (its scripts and ``pyvenv.cfg`` name its own path).
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from rigorbench.errors import InputError, UserError
from rigorbench.formats.pyperf import PyperfJsonReader
from rigorbench.harness.base import DONE, FAILED, TIMEOUT, Build, BuildSpec, HarnessError, ListedBenchmark, Progress, RunSettings, TrialOutcome
from rigorbench.harness.cache import BuildCache, sources_hash
from rigorbench.harness.process import describe_command, output_tail, pinned_cpus, run_streamed, tail
from rigorbench.harness.repetitions import progress_of, read_or_empty, run_checked
from rigorbench.units import parse_duration

VENV_DIR, DEFAULT_SCRIPT, RESULT_FILE = ".rigorbench-pyperf", "bench.py", "result.json"
VENV_IN_CACHE = "venv"
TAIL_LINES = 20
LIST_TIMEOUT_S = 300.0
_RUNNING = re.compile(r"^(\S+): ")


def is_pyperf_project(folder: Path) -> bool:
    script = folder / DEFAULT_SCRIPT
    return script.is_file() and "pyperf" in read_or_empty(script)


class PyperfHarness:
    name = "pyperf"

    def build(self, project_dir: Path, spec: BuildSpec, log: Callable[[str], None], cache: BuildCache | None = None) -> Build:
        """The version's virtual environment with pyperf (and the version's package) in it:
        made in the build cache's entry for it when there is one, else in the version's folder."""
        project_dir = Path(project_dir).resolve()
        if spec.command or spec.module or spec.java_home:
            raise UserError("the pyperf harness takes no build command, module or java_home (--jar names the script)")
        script = project_dir / (spec.jar or DEFAULT_SCRIPT)
        if not script.is_file():
            raise HarnessError(f"{project_dir}: no {script.name} here; the pyperf harness runs a pyperf script")
        packages = ["pyperf"] + ([str(project_dir)] if any((project_dir / f).is_file() for f in ("pyproject.toml", "setup.py")) else [])
        identity = build_identity(project_dir, script, len(packages) > 1, cache) if cache is not None else {}
        place = cache.in_place(identity, by_content=True, required=f"{VENV_IN_CACHE}/bin/python") if cache is not None else None
        if place is not None and place[1] is not None:
            entry, meta = place
            log(f"build cache hit: {entry / VENV_IN_CACHE} (built in {meta.get('seconds', 0):.0f} s on {meta.get('built', '?')})")
            return Build(project_dir, script, dict(meta.get("tool_versions", {})), 0.0, cached=True)
        started = time.monotonic()
        venv = place[0] / VENV_IN_CACHE if place is not None else project_dir / VENV_DIR
        versions = _install(venv, packages, project_dir, log)
        seconds = time.monotonic() - started
        if place is not None:
            cache.complete(place[0], {"tool_versions": versions, "seconds": seconds, "built": time.strftime("%Y-%m-%d %H:%M")})
            log(f"virtual environment kept in the build cache: {venv}")
        return Build(project_dir, script, versions, seconds)

    def exact_includes(self, names, within=()) -> tuple[str, ...]:
        raise UserError("pyperf scripts run all their benchmarks (pyperf has no filter of its own), so "
                        "this needs a subset rigorbench cannot select: select benchmarks in the script, "
                        "or leave out --until-decided and --warmup auto")

    def list_benchmarks(self, build: Build, settings: RunSettings) -> list[ListedBenchmark]:
        """pyperf cannot list a script's benchmarks without running them: one quick run (one
        process, one value, the least time) says which there are."""
        trial_arguments(settings)   # the trials' options are checked before anything is stored
        quick = RunSettings(forks=1, warmup_iterations=0, iterations=1, iteration_time="1ms", include=settings.include)
        with tempfile.TemporaryDirectory(prefix="rigorbench-pyperf-list-") as work:
            outcome = self.run_trial(build, quick, Path(work), lambda event: None)
        if outcome.status != DONE:
            raise HarnessError(f"{build.artifact}: listing its benchmarks failed: {outcome.message}",
                               output_tail(outcome.output_tail.splitlines(), TAIL_LINES))
        return [ListedBenchmark(name) for name in dict.fromkeys(s.case.name for s in outcome.series)]

    def run_trial(self, build: Build, settings: RunSettings, work_dir: Path,
                  on_progress: Callable[[Progress], None]) -> TrialOutcome:
        work_dir = Path(work_dir).resolve()
        work_dir.mkdir(parents=True, exist_ok=True)
        result_path = work_dir / RESULT_FILE
        result_path.unlink(missing_ok=True)
        python = Path(build.tool_versions["venv"]) / "bin" / "python"
        command = [str(python), str(build.artifact), *trial_arguments(settings), *affinity_arguments(pinned_cpus()),
                   "--output", str(result_path)]
        (work_dir / "command.txt").write_text(describe_command(command) + "\n", encoding="utf-8")
        started = time.monotonic()
        run = run_streamed(command, cwd=build.project_dir, log_path=work_dir / "console.log", timeout_s=settings.timeout_s,
                           on_line=progress_of(on_progress, _RUNNING))
        seconds = time.monotonic() - started
        status = TIMEOUT if run.timed_out else DONE if run.returncode == 0 else FAILED
        series, environment, message = (), {"python": build.tool_versions.get("python", "")}, ""
        if result_path.is_file():
            try:
                result = PyperfJsonReader().parse(result_path.read_text(encoding="utf-8"), str(result_path))
            except InputError as error:
                status, message = FAILED, str(error)
            else:
                series, environment = result.series, {**environment, **result.environment}
        if status == DONE and not series:
            status, message = FAILED, "no benchmark result: see the output's last lines"
        if status == FAILED and not message:
            message = f"pyperf exited with code {run.returncode}"
        return TrialOutcome(status=status, series=tuple(series), harness_seconds=seconds, environment=environment,
                            output_tail=tail(run.lines, TAIL_LINES), message=message)


def _install(venv: Path, packages: list[str], project_dir: Path, log: Callable[[str], None]) -> dict[str, str]:
    """Make ``venv`` (unless it is there) and install ``packages`` into it; the versions."""
    python = venv / "bin" / "python"
    if not python.is_file():
        log(f"$ {sys.executable} -m venv {venv}")
        run_checked([sys.executable, "-m", "venv", str(venv)], project_dir, "creating the version's virtual environment")
    command = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *packages]
    log(f"$ {describe_command(command)}")
    run_checked(command, project_dir, "installing into the version's virtual environment")
    versions = run_streamed([str(python), "-c", "import platform, pyperf; print(platform.python_version(), pyperf.__version__)"],
                            cwd=project_dir)
    python_version, _, pyperf_version = (versions.lines[0] if versions.lines else "").partition(" ")
    return {"python": python_version, "pyperf": pyperf_version, "venv": str(venv)}


def build_identity(project_dir: Path, script: Path, package: bool, cache: BuildCache) -> dict:
    """What, besides the commit, decides the virtual environment: the Python that makes it,
    what is installed (pyperf, and the version's package, whose sources are hashed with the
    rest of the folder) and the script. pyperf itself is not pinned: a kept environment keeps
    the pyperf it was made with (recorded with every trial); with --no-build-cache the
    environment is made, or updated, in the version's folder instead."""
    return {"harness": "pyperf", "python": sys.version, "python_path": str(Path(sys.executable).resolve()),
            "requirements": ["pyperf", *(["the version's package"] if package else [])],
            "script": cache.relative(script), "path": cache.relative(project_dir), "sources": sources_hash(project_dir)}


def affinity_arguments(cpus: frozenset[int] | None) -> list[str]:
    """``--affinity`` for a pinned trial (a duet run's): without it pyperf pins its workers to
    the machine's isolated CPUs, when it has some, out of the set the trial was given."""
    return ["--affinity", ",".join(str(cpu) for cpu in sorted(cpus))] if cpus else []


def trial_arguments(settings: RunSettings) -> list[str]:
    """pyperf's options for one trial (before --output)."""
    if settings.iterations < 1:
        raise UserError("--iterations must be at least 1")
    seconds = parse_duration(settings.iteration_time)
    if seconds is None:
        raise UserError(f"bad iteration time {settings.iteration_time!r} for pyperf: a duration such as 1s or 100ms")
    arguments = ["--processes", str(settings.forks), "--values", str(settings.iterations),
                 "--warmups", str(settings.warmup_iterations), "--min-time", f"{seconds:g}", "--quiet"]
    if settings.include:
        raise UserError("--bench is not passed to pyperf scripts (pyperf has no filter of its own); "
                        "select benchmarks in the script")
    return arguments
