"""The Go harness: build a module's benchmark test binaries once, run them one trial at a time.

A version is built with ``go test -c`` once per package that has benchmarks (a ``func
Benchmark`` in its test files), into ``.rigorbench-go/`` in the version's directory, with
the installed toolchain only (``GOTOOLCHAIN=local``, ``GOWORK=off``; ``GOFLAGS`` as the
user set it). A trial runs every binary ``forks`` times, each run a fresh process::

    pkg.test -test.run=^$ -test.bench=RE -test.benchmem -test.count=W+I -test.benchtime=T

Levels as the issue maps them: trial = one RMIT trial, fork = one test-binary process,
iteration = one result line (``-test.count``). Go has no warmup of its own: the first
``warmup_iterations`` result lines of each benchmark in a process are kept as warmup
iterations, the next ``iterations`` are measured. ``iteration_time`` is ``-test.benchtime``
(``1s``, ``100ms``, or ``100x`` for a fixed b.N). The output is read by the Go format reader
(``formats/gobench.py``); the Go version, the module and its ``go`` directive, the
``goos``/``goarch``/``cpu`` lines and GOMAXPROCS are recorded. ``GOFLAGS`` (``-tags=...``)
passes through from the environment to the build.

With a build cache, the binaries and their manifest are kept in it, keyed by the Go
toolchain, the ``go env`` settings that change what it makes (``GOFLAGS``, cgo, the target),
and a hash of the module's sources and of the local folders its ``replace`` directives name
(:func:`build_identity`; other dependencies are pinned by go.sum); a later experiment on the
same sources, at any commit or none, runs the kept binaries. The manifest names package folders relative to the
module, so kept binaries run in the package folders of the checkout at hand.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from rigorbench.errors import InputError, UserError
from rigorbench.formats.gobench import GoBenchReader
from rigorbench.harness.base import DONE, FAILED, TIMEOUT, Build, BuildSpec, HarnessError, ListedBenchmark, Progress, RunSettings, TrialOutcome
from rigorbench.harness.cache import BuildCache, sources_hash
from rigorbench.harness.process import describe_command, output_tail, run_streamed
from rigorbench.harness.repetitions import Tables, add_process, outcome, progress_of, read_or_empty, run_checked

OUT_DIR, MANIFEST = ".rigorbench-go", "manifest.json"
TAIL_LINES = 20
LIST_TIMEOUT_S = 120.0
_BENCH_FUNC = re.compile(r"^func\s+Benchmark\w*\s*\(", re.M)
_RUNNING = re.compile(r"^(Benchmark\S*)")
_FAIL = re.compile(r"^--- FAIL: (Benchmark\S*)")
# go env settings that change what `go test -c` makes (GOFLAGS carries -tags and -trimpath).
_GO_ENV = ("GOVERSION", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "GOEXPERIMENT", "GOFLAGS", "CGO_ENABLED", "CC", "CXX",
           "CGO_CFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS")
_LOCAL_REPLACE = re.compile(r"=>\s*(\.{1,2}/[^\s)]*|/[^\s)]*)", re.M)
_TIME = re.compile(r"\d+(\.\d+)?(ns|us|µs|ms|s|m|h|x)")


def go_env() -> dict[str, str]:
    """The installed toolchain only, never a workspace of the user's elsewhere."""
    return {**os.environ, "GOTOOLCHAIN": "local", "GOWORK": "off"}


def _go(args: list[str], cwd: Path, what: str) -> list[str]:
    return run_checked(["go", *args], cwd, what, env=go_env())


class GoHarness:
    name = "go"

    def build(self, project_dir: Path, spec: BuildSpec, log: Callable[[str], None], cache: BuildCache | None = None) -> Build:
        """Build the test binaries of ``project_dir`` (or take them from ``cache``)."""
        project_dir = Path(project_dir).resolve()
        module_root(project_dir)   # refused outside a module
        if spec.command or spec.jar or spec.module or spec.java_home:
            raise UserError("the Go harness takes no build command, jar, module or java_home")
        identity = build_identity(project_dir, cache) if cache is not None else {}
        cached = cache.get_files(identity, by_content=True) if cache is not None else None
        if cached is not None:
            log(f"build cache hit: {cached.artifact} (built in {cached.meta.get('seconds', 0):.0f} s on {cached.meta.get('built', '?')})")
            return Build(project_dir, cached.artifact, dict(cached.meta.get("tool_versions", {})), 0.0, cached=True)
        build = self._build(project_dir, log)
        if cache is not None:
            files = {name: Path(build.artifact) / name for name in [MANIFEST, *(p["binary"] for p in _manifest_entries(build))]}
            meta = {"tool_versions": dict(build.tool_versions), "seconds": build.seconds, "built": time.strftime("%Y-%m-%d %H:%M")}
            kept = cache.put_files(identity, files, meta, by_content=True)
            if kept is not None:
                build = replace(build, artifact=kept)
        return build

    def _build(self, project_dir: Path, log: Callable[[str], None]) -> Build:
        started = time.monotonic()
        listing = _go(["list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .TestGoFiles \",\"}},{{join .XTestGoFiles \",\"}}", "./..."],
                      project_dir, "listing the module's packages")
        out = project_dir / OUT_DIR
        out.mkdir(exist_ok=True)
        packages = []
        for line in listing:
            parts = line.split("\t")
            if len(parts) != 3:
                continue
            import_path, directory, files = parts
            if not any(_BENCH_FUNC.search(read_or_empty(Path(directory) / f)) for f in files.split(",") if f):
                continue
            binary = f"{len(packages)}.test"
            log(f"$ go test -c -o {out / binary} {import_path}")
            _go(["test", "-c", "-o", str(out / binary), import_path], project_dir, f"building the benchmarks of {import_path}")
            packages.append({"package": import_path, "dir": _relative_dir(Path(directory), project_dir), "binary": binary})
        if not packages:
            raise HarnessError(f"{project_dir}: no package of this module has a func Benchmark in its tests")
        (out / MANIFEST).write_text(json.dumps(packages, indent=1), encoding="utf-8")
        version = " ".join(_go(["version"], project_dir, "go version")).strip()
        module = _go(["list", "-m", "-f", "{{.Path}} (go {{.GoVersion}})"], project_dir, "go list -m")
        return Build(project_dir, out, {"go": version, "go_module": " ".join(module).strip()}, time.monotonic() - started)

    def exact_includes(self, names, within=()) -> tuple[str, ...]:
        """``^Name$`` per benchmark: ``-test.bench`` matches it against the first level of the
        name, so every sub-benchmark of ``Name`` runs (they are its parameter cases) -- unless
        the user's pattern (``within``) selects sub-benchmarks (``Encode/^best$``): then one
        pattern, the names as alternatives at the first level and the user's levels below."""
        exact = [f"^{re.escape(name)}$" for name in names]
        below = list(dict.fromkeys(p[len(first_level(p)) + 1:] for p in within if first_level(p) != p))
        if not exact or not below:
            return tuple(exact)
        if len(below) > 1:
            raise UserError("several benchmark patterns with a '/' cannot be joined for go test -bench; give one pattern")
        return (f"(?:{'|'.join(exact)})/{below[0]}",)

    def list_benchmarks(self, build: Build, settings: RunSettings) -> list[ListedBenchmark]:
        """``-test.list ^Benchmark`` of every binary, filtered by the include patterns."""
        trial_arguments(settings)   # the trials' options are checked before anything is stored
        patterns = [_compiled(first_level(p)) for p in settings.include]
        found: list[ListedBenchmark] = []
        for package in _manifest(build):
            run = run_streamed([package["binary"], "-test.list", "^Benchmark"], cwd=Path(package["dir"]),
                               env=go_env(), timeout_s=LIST_TIMEOUT_S)
            if run.timed_out or run.returncode != 0:
                raise HarnessError(f"{package['package']}: listing benchmarks failed", output_tail(run.lines, TAIL_LINES))
            for name in run.lines:
                name = name.strip()
                if name.startswith("Benchmark") and (not patterns or any(p.search(name) for p in patterns)):
                    found.append(ListedBenchmark(name))
        return found

    def run_trial(self, build: Build, settings: RunSettings, work_dir: Path,
                  on_progress: Callable[[Progress], None]) -> TrialOutcome:
        work_dir = Path(work_dir).resolve()
        work_dir.mkdir(parents=True, exist_ok=True)
        command_tail = trial_arguments(settings)
        (work_dir / "command.txt").write_text(describe_command(["PKG.test", *command_tail]) + "\n", encoding="utf-8")
        started, deadline = time.monotonic(), (time.monotonic() + settings.timeout_s) if settings.timeout_s else None
        tables: Tables = {}
        environment = {key: build.tool_versions[key] for key in ("go", "go_module") if key in build.tool_versions}
        failures: list[str] = []
        lines: list[str] = []
        for fork in range(settings.forks):
            for number, package in enumerate(_manifest(build)):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return outcome(TIMEOUT, tables, started, environment, failures, lines, "stopped at the trial timeout")
                log = work_dir / f"console-{fork + 1}-{number}.log"
                run = run_streamed([package["binary"], *command_tail], cwd=Path(package["dir"]), env=go_env(),
                                   on_line=progress_of(on_progress, _RUNNING, fork, settings.forks), log_path=log, timeout_s=left)
                lines += run.lines
                self._collect(run.lines, str(log), fork, settings.warmup_iterations, tables, environment, failures)
                if run.timed_out:
                    return outcome(TIMEOUT, tables, started, environment, failures, lines, "stopped at the trial timeout")
                if run.returncode != 0 and not any("--- FAIL" in line for line in run.lines):
                    failures.append(f"{package['package']}: the test binary exited with code {run.returncode}")
        status = DONE if tables else FAILED
        return outcome(status, tables, started, environment, failures, lines,
                        "" if tables else "no benchmark result: see the output's last lines")

    @staticmethod
    def _collect(lines, path: str, fork: int, warmup: int, tables: dict, environment: dict, failures: list) -> None:
        failures += _failures(lines)
        try:
            result = GoBenchReader().parse("\n".join(lines), path)
        except InputError:
            return   # no result line at all (every benchmark failed): the failures say why
        for key in ("goos", "goarch", "cpu", "gomaxprocs"):
            if key in result.environment:
                environment[key] = result.environment[key]
        add_process(result, fork, warmup, tables)


def trial_arguments(settings: RunSettings) -> list[str]:
    """The test binary's arguments for one process of a trial."""
    if settings.iterations < 1:
        raise UserError("--iterations must be at least 1")
    benchtime = str(settings.iteration_time)
    if not _TIME.fullmatch(benchtime):
        raise UserError(f"bad iteration time {benchtime!r} for Go: a duration such as 1s or 100ms, or a count such as 100x")
    pattern = bench_pattern(settings.include)
    if pattern.startswith("-"):
        raise UserError(f"bad benchmark pattern {pattern!r}: it must not start with '-'")
    arguments = ["-test.run=^$", f"-test.bench={pattern}", "-test.benchmem",
                 f"-test.count={settings.warmup_iterations + settings.iterations}", f"-test.benchtime={benchtime}"]
    if settings.threads is not None:
        arguments.append(f"-test.cpu={settings.threads}")
    return arguments


def bench_pattern(include) -> str:
    """One ``-test.bench`` pattern. Go matches it level by level, split at slashes outside
    brackets and parentheses (``Join/concat``: top level ``Join``, sub-benchmark ``concat``),
    so one pattern goes as written and several (top-level names) are joined as alternatives."""
    if not include:
        return "."
    if len(include) == 1:
        return include[0]
    if any(first_level(p) != p for p in include):
        raise UserError("several benchmark patterns with a '/' cannot be joined for go test -bench; give one pattern")
    return "|".join(f"(?:{p})" for p in include)


def first_level(pattern: str) -> str:
    """The part of a ``-test.bench`` pattern that top-level benchmark names must match (as
    Go's testing package splits it)."""
    depth, in_class, escaped = 0, False, False
    for index, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "/" and depth == 0:
            return pattern[:index]
    return pattern


def _failures(lines) -> list[str]:
    """``--- FAIL: BenchmarkX`` with the first line of its log (``b.Fatal``'s message)."""
    found = []
    for number, line in enumerate(lines):
        match = _FAIL.match(line)
        if match:
            detail = lines[number + 1].strip() if number + 1 < len(lines) and lines[number + 1].startswith(" ") else ""
            found.append(f"{match.group(1)}: {detail}" if detail else match.group(1))
    return found


def module_root(folder: Path) -> Path:
    """The module ``folder`` is in: itself or the nearest folder above with a go.mod. A
    folder inside a module selects the packages under it (``go list ./...`` there), so a
    large module's one package is built without the others' test binaries."""
    for candidate in (folder, *folder.parents):
        if (candidate / "go.mod").is_file():
            return candidate
    raise HarnessError(f"{folder}: no go.mod here or in a folder above; the Go harness builds a module's packages")


def build_identity(project_dir: Path, cache: BuildCache) -> dict:
    """What, besides the commit, decides the test binaries: the toolchain and the environment
    it builds in (``GOFLAGS`` with its ``-tags``, cgo, the target), the packages' place in the
    checkout, and the sources of the whole module (the packages built may import any of it)
    and of the local directories its go.mod ``replace`` directives name."""
    root = module_root(project_dir)
    settings = _go(["env", *_GO_ENV], project_dir, "go env")
    replaced = {}
    for target in _LOCAL_REPLACE.findall(read_or_empty(root / "go.mod")):
        folder = (root / target).resolve()
        replaced[target] = sources_hash(folder) if folder.is_dir() else "missing"
    return {"harness": "go", "go_env": dict(zip(_GO_ENV, settings)), "go_path": shutil.which("go") or "go",
            "path": cache.relative(project_dir), "sources": sources_hash(root), "replaced": replaced}


def _relative_dir(directory: Path, project_dir: Path) -> str:
    """A package's folder relative to the module (the binaries may outlive the checkout)."""
    resolved = directory.resolve()
    return str(resolved.relative_to(project_dir)) if resolved.is_relative_to(project_dir) else str(resolved)


def _manifest_entries(build: Build) -> list[dict]:
    return json.loads((Path(build.artifact) / MANIFEST).read_text(encoding="utf-8"))


def _manifest(build: Build) -> list[dict]:
    """The built packages, with the binary's and the package folder's full paths."""
    return [{**entry, "binary": str(Path(build.artifact) / entry["binary"]), "dir": str(Path(build.project_dir) / entry["dir"])}
            for entry in _manifest_entries(build)]


def _compiled(pattern: str) -> re.Pattern:
    try:
        return re.compile(pattern)
    except re.error as error:
        raise UserError(f"bad benchmark pattern {pattern!r}: {error}") from None
