"""``rigorbench.toml``: an experiment a team keeps in its repository.

    [experiment]
    project = "examples/jmh-demo"   # relative to this file
    trials = 3
    order = "rmit"                  # or "sequential"
    seed = 1
    store = ".rigorbench/results.db"  # relative to this file
    baseline = "v1"                 # the label the others are compared with (default: the first)

    [[versions]]
    label = "v1"
    source = "v1"                   # a directory (inside project first) or a git revision

    [[versions]]
    label = "v2"
    source = "v2"
    java_home = "/usr/lib/jvm/temurin-21"   # build settings may differ per version

    [build]                        # how every version is built (inferred when absent)
    module = "benchmarks"          # the JMH module of a multi-module build
    command = "mvn -B -q -DskipTests -Pbench package"   # no shell; a string or a list
    jar = "benchmarks/target/*-jmh.jar"                 # relative to project
    java_home = "/usr/lib/jvm/java-17"
    cache = true                   # reuse jars of clean commits

    [jmh]
    forks = 2
    warmup_iterations = 3
    iterations = 5
    warmup_time = "200ms"
    iteration_time = "200ms"
    include = ["StatsBenchmark"]
    params = { size = "100,1000" }
    jvm_args = ["-Xmx1g"]
    profilers = ["gc"]
    timeout = "10m"

    [compare]                      # the same names as the compare options
    threshold = "1%"
    confidence = 0.99
    fail_on = "regression"

Unknown keys are errors (a typo must not silently fall back to a default).
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from rigorbench.analysis.settings import DEFAULT_SEED
from rigorbench.errors import InputError, UserError
from rigorbench.experiment.options import DEFAULT_SETTINGS, DEFAULT_TRIALS, jmh_time, parse_params, seconds, settings_with
from rigorbench.experiment.plan import ExperimentPlan, VersionSpec
from rigorbench.files import read_input
from rigorbench.harness.base import BuildSpec

_EXPERIMENT_KEYS = {"project", "trials", "order", "seed", "store", "baseline", "harness"}
_JMH_KEYS = {"forks", "warmup_iterations", "iterations", "warmup_time", "iteration_time", "include",
             "params", "jvm_args", "profilers", "timeout", "mode", "time_unit", "threads"}
_BUILD_KEYS = {"command", "jar", "module", "java_home", "cache"}
# A version's own build settings (over the [build] table's).
_VERSION_KEYS = {"label", "source", "build_command", "jar", "module", "java_home"}
_COMPARE_KEYS = {"threshold", "confidence", "resamples", "statistic", "test", "alpha", "metric",
                 "correction", "fail_on", "format"}


@dataclass(frozen=True)
class ExperimentConfig:
    path: Path
    plan: ExperimentPlan
    store: Path
    baseline: str
    compare: dict = field(default_factory=dict)
    build_cache: bool = True


def _line_of(text: str, key: str) -> int | None:
    """The first line that sets ``key`` (for error messages)."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=|^\s*\[+\s*{re.escape(key)}\s*\]+", re.M)
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def load_config(path: str | Path) -> ExperimentConfig:
    path = Path(path)
    data = read_input(str(path), what="config file", gunzip=False)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(str(path), None, f"not UTF-8 text at byte {error.start}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        line = re.search(r"line (\d+)", str(error))
        raise InputError(str(path), int(line.group(1)) if line else None, f"not valid TOML: {error}") from None
    try:
        return _build(path, data)
    except UserError as error:
        if isinstance(error, InputError):
            raise
        key = getattr(error, "key", None)
        raise InputError(str(path), _line_of(text, key) if key else None, str(error)) from None


class _KeyError(UserError):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def _table(data: dict, name: str, allowed: set[str]) -> dict:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise _KeyError(name, f"[{name}] must be a table")
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise _KeyError(unknown[0], f"[{name}]: unknown key {unknown[0]!r}; allowed keys are {', '.join(sorted(allowed))}")
    return table


def _build(path: Path, data: dict) -> ExperimentConfig:
    unknown = sorted(set(data) - {"experiment", "versions", "jmh", "compare", "build"})
    if unknown:
        raise _KeyError(unknown[0], f"unknown table [{unknown[0]}]; allowed: experiment, versions, build, jmh, compare")
    experiment = _table(data, "experiment", _EXPERIMENT_KEYS)
    build_table = _table(data, "build", _BUILD_KEYS)
    common_build = _build_spec(build_table, "command")
    jmh = _table(data, "jmh", _JMH_KEYS)
    compare = _table(data, "compare", _COMPARE_KEYS)
    versions = data.get("versions")
    if not isinstance(versions, list) or len(versions) < 2:
        raise _KeyError("versions", "at least two [[versions]] are needed, each with label and source")
    specs = []
    for version in versions:
        if not isinstance(version, dict) or "source" not in version:
            raise _KeyError("versions", "every [[versions]] needs a source (a directory or a git revision)")
        unknown = sorted(set(version) - _VERSION_KEYS)
        if unknown:
            raise _KeyError(unknown[0], f"[[versions]]: unknown key {unknown[0]!r}; allowed keys are {', '.join(sorted(_VERSION_KEYS))}")
        build = common_build.merged(_build_spec(version, "build_command"))
        specs.append(VersionSpec(str(version.get("label", version["source"])), str(version["source"]), build))
    base_dir = path.parent
    project = base_dir / str(experiment.get("project", "."))
    settings = _keyed(_run_settings, jmh)
    plan = ExperimentPlan(
        str(project), str(experiment.get("harness", "jmh")), tuple(specs),
        int(experiment.get("trials", DEFAULT_TRIALS)), str(experiment.get("order", "rmit")),
        int(experiment.get("seed", DEFAULT_SEED)), settings,
    )
    baseline = str(experiment.get("baseline", specs[0].label))
    if baseline not in {s.label for s in specs}:
        raise _KeyError("baseline", f"baseline {baseline!r} is not one of the version labels")
    store = base_dir / str(experiment.get("store", ".rigorbench/results.db"))
    cache = build_table.get("cache", True)
    if not isinstance(cache, bool):
        raise _KeyError("cache", "[build] cache must be true or false")
    return ExperimentConfig(path, plan, store, baseline, dict(compare), cache)


def _build_spec(table: dict, command_key: str) -> BuildSpec:
    """Build settings from ``table`` (``[build]`` or one ``[[versions]]``)."""
    command = table.get(command_key)
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError as error:
            raise _KeyError(command_key, f"{command_key}: {error}") from None
    if command is not None and (not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command)):
        raise _KeyError(command_key, f"{command_key} must be a non-empty string or list of strings")
    for key in ("jar", "module", "java_home"):
        if key in table and not isinstance(table[key], str):
            raise _KeyError(key, f"{key} must be a string")
    return BuildSpec(tuple(command) if command is not None else None, table.get("jar"), table.get("module"), table.get("java_home"))


def _run_settings(jmh: dict):
    return settings_with(
        DEFAULT_SETTINGS,
        forks=jmh.get("forks"),
        warmup_iterations=jmh.get("warmup_iterations"),
        iterations=jmh.get("iterations"),
        warmup_time=jmh_time(jmh["warmup_time"], "warmup_time") if "warmup_time" in jmh else None,
        iteration_time=jmh_time(jmh["iteration_time"], "iteration_time") if "iteration_time" in jmh else None,
        include=tuple(_strings(jmh, "include")) if "include" in jmh else None,
        params=parse_params([f"{k}={v}" for k, v in jmh["params"].items()], "params") if "params" in jmh else None,
        jvm_args=tuple(_strings(jmh, "jvm_args")) if "jvm_args" in jmh else None,
        profilers=tuple(_strings(jmh, "profilers")) if "profilers" in jmh else None,
        timeout_s=seconds(jmh["timeout"], "timeout") if "timeout" in jmh else None,
        mode=jmh.get("mode"),
        time_unit=jmh.get("time_unit"),
        threads=jmh.get("threads"),
    )


def _keyed(build, table: dict):
    """Run ``build``; an error about ``key: ...`` points at the line of that key."""
    try:
        return build(table)
    except _KeyError:
        raise
    except UserError as error:
        key = str(error).split(":", 1)[0].lstrip("-").replace("-", "_")
        raise _KeyError(key if key in table else "jmh", str(error)) from None


def _strings(table: dict, key: str) -> list[str]:
    value = table[key]
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _KeyError(key, f"{key} must be a string or a list of strings")
    return value
