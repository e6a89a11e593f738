"""``rigorbench.toml``: an experiment a team keeps in its repository.

Every key the file may hold is in docs/configuration.md's example; the type of
each is checked by :mod:`rigorbench.experiment.config_schema`. Unknown keys are errors (a typo
must not silently fall back to a default).
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from rigorbench.analysis.settings import DEFAULT_SEED
from rigorbench.errors import InputError, UserError
from rigorbench.experiment.options import DEFAULT_SETTINGS, DEFAULT_TRIALS, PILOT_WARMUP, fraction, iteration_time, jmh_time, parse_params, seconds, settings_with
from rigorbench.experiment.plan import DUET, ExperimentPlan, VersionSpec
from rigorbench.experiment.config_schema import ConfigKeyError, check_table, check_top, key_line
from rigorbench.files import read_input
from rigorbench.harness.base import BuildSpec
from rigorbench.store.location import is_postgres


@dataclass(frozen=True)
class ExperimentConfig:
    path: Path
    plan: ExperimentPlan
    store: Path | str          # a file, or a postgresql:// URL
    baseline: str
    compare: dict = field(default_factory=dict)
    build_cache: bool = True
    # until_decided, min_trials, max_trials, max_time of [experiment] when until_decided is
    # set: the design needs the [compare] settings, so the command makes it (cli/run.py)
    sequential: dict | None = None


def load_config(path: str | Path) -> ExperimentConfig:
    path = Path(path)
    data = read_input(str(path), what="config file", gunzip=False)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(str(path), None, f"not UTF-8 text at byte {error.start}") from None
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise InputError(str(path), None, "not valid TOML: nested too deeply") from None
    except tomllib.TOMLDecodeError as error:
        line = re.search(r"line (\d+)", str(error))
        raise InputError(str(path), int(line.group(1)) if line else None, f"not valid TOML: {error}") from None
    try:
        return _build(path, data)
    except ConfigKeyError as error:
        line = key_line(text, error.key, error.table, error.index) or key_line(text, error.key)
        raise InputError(str(path), line, str(error)) from None
    except InputError:
        raise
    except UserError as error:
        raise InputError(str(path), None, str(error)) from None


def _build(path: Path, data: dict) -> ExperimentConfig:
    check_top(data)
    experiment = check_table("experiment", data.get("experiment", {}))
    build_table = check_table("build", data.get("build", {}))
    common_build = _build_spec(build_table, "command")
    jmh = check_table("jmh", data.get("jmh", {}))
    compare = check_table("compare", data.get("compare", {}))
    versions = data.get("versions")
    if not isinstance(versions, list) or len(versions) < 2:
        raise ConfigKeyError("versions", "at least two [[versions]] are needed, each with label and source")
    specs = []
    for index, version in enumerate(versions):
        check_table("versions", version, index)
        if "source" not in version:
            raise ConfigKeyError("versions", "every [[versions]] needs a source (a directory or a git revision)")
        build = common_build.merged(_build_spec(version, "build_command", index))
        specs.append(VersionSpec(version.get("label", version["source"]), version["source"], build))
    base_dir = path.parent
    project = base_dir / str(experiment.get("project", "."))
    settings = _keyed(_run_settings, jmh)
    if jmh.get("warmup") == "auto" and "warmup_iterations" in jmh:
        raise ConfigKeyError("warmup", "warmup = \"auto\" chooses each benchmark's warmup iterations; leave out warmup_iterations", "jmh")
    if "pilot_warmup" in jmh and jmh.get("warmup") != "auto":
        raise ConfigKeyError("pilot_warmup", "pilot_warmup goes with warmup = \"auto\"", "jmh")
    plan = ExperimentPlan(
        str(project), str(experiment.get("harness", "jmh")), tuple(specs),
        int(experiment.get("trials", DEFAULT_TRIALS)), _order(experiment),
        int(experiment.get("seed", DEFAULT_SEED)), settings,
        pilot_warmup=int(jmh.get("pilot_warmup", PILOT_WARMUP)) if jmh.get("warmup") == "auto" else None,
        cluster=_cluster(experiment, base_dir),
    )
    sequential = {k: experiment[k] for k in ("until_decided", "min_trials", "max_trials", "max_time", "futility") if k in experiment}
    if sequential and not sequential.get("until_decided"):
        raise ConfigKeyError(next(iter(sequential)), "min_trials, max_trials, max_time and futility go with until_decided = true", "experiment")
    if "futility" in sequential:
        sequential["futility"] = _fraction(sequential["futility"], "futility", "experiment")
    baseline = str(experiment.get("baseline", specs[0].label))
    if baseline not in {s.label for s in specs}:
        raise ConfigKeyError("baseline", f"baseline {baseline!r} is not one of the version labels")
    store = str(experiment.get("store", ".rigorbench/results.db"))
    store = store if is_postgres(store) else base_dir / store   # a server's URL, or a file next to this one
    return ExperimentConfig(path, plan, store, baseline, dict(compare), build_table.get("cache", True), sequential or None)


def _fraction(value: object, key: str, table: str) -> float:
    """A fraction written as 0.1 or "10%" (as on the command line)."""
    try:
        return fraction(value)
    except ValueError as error:
        raise ConfigKeyError(key, str(error), table) from None


def _order(experiment: dict) -> str:
    """``order``, or duet for ``design = "duet"`` on this machine (no order to choose then)."""
    order = str(experiment.get("order", "rmit"))
    if experiment.get("design") != DUET:
        return order
    if "cluster" in experiment:
        raise ConfigKeyError("design", "design = \"duet\" runs both versions at once on this machine's CPUs; it does not go with cluster", "experiment")
    if order == "sequential":
        raise ConfigKeyError("design", "design = \"duet\" runs both versions of a trial at once; it does not go with order = \"sequential\"", "experiment")
    return DUET


def _cluster(experiment: dict, base_dir: Path):
    """The ClusterOptions of ``cluster = ...`` (None without it; its options alone are errors)."""
    from rigorbench.experiment.address import TLSFiles, parse_cluster
    from rigorbench.experiment.address import ClusterOptions

    keys = ("design", "instances", "build_on_workers", "tls_ca_file", "tls_cert", "tls_key")
    if "cluster" not in experiment:
        given = [key for key in keys if key in experiment and (key, experiment[key]) != ("design", DUET)]
        if given:
            raise ConfigKeyError(given[0], f"{given[0]} goes with cluster = \"tcp://HOST:8786\"", "experiment")
        return None
    try:
        address = parse_cluster(experiment["cluster"], "cluster")
    except UserError as error:
        raise ConfigKeyError("cluster", str(error), "experiment") from None
    files = [str(base_dir / experiment[k]) if k in experiment else None for k in ("tls_ca_file", "tls_cert", "tls_key")]
    tls = TLSFiles(*files)
    try:
        tls.check(address)
    except UserError as error:
        key = next(k for k in ("tls_ca_file", "tls_cert", "tls_key") if k in experiment)
        raise ConfigKeyError(key, str(error).replace("--tls-ca-file", "tls_ca_file").replace("--tls-cert", "tls_cert")
                             .replace("--tls-key", "tls_key"), "experiment") from None
    return ClusterOptions(address, tls, str(experiment.get("design", "trial-based")),
                          experiment.get("instances"), bool(experiment.get("build_on_workers", False)))


def _build_spec(table: dict, command_key: str, index: int | None = None) -> BuildSpec:
    """Build settings from ``table`` (``[build]`` or one ``[[versions]]``), types checked."""
    command = table.get(command_key)
    where = "versions" if index is not None else "build"
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError as error:
            raise ConfigKeyError(command_key, f"{command_key}: {error}", where, index) from None
        if not command:
            message = f"{command_key} must be a non-empty string or list of strings"
            raise ConfigKeyError(command_key, message, where, index)
    return BuildSpec(tuple(command) if command is not None else None, table.get("jar"), table.get("module"), table.get("java_home"))


def _run_settings(jmh: dict):
    return settings_with(
        DEFAULT_SETTINGS,
        forks=jmh.get("forks"),
        warmup_iterations=jmh.get("warmup_iterations"),
        iterations=jmh.get("iterations"),
        warmup_time=jmh_time(jmh["warmup_time"], "warmup_time") if "warmup_time" in jmh else None,
        iteration_time=iteration_time(jmh["iteration_time"], "iteration_time") if "iteration_time" in jmh else None,
        include=tuple(_strings(jmh, "include")) if "include" in jmh else None,
        params=parse_params([f"{k}={_param_text(v)}" for k, v in jmh["params"].items()], "params") if "params" in jmh else None,
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
    except ConfigKeyError:
        raise
    except UserError as error:
        words = str(error).split(":", 1)[0].split()
        key = words[0].lstrip("-").replace("-", "_") if words else ""
        keyed = ConfigKeyError(key, str(error), "jmh") if key in table else ConfigKeyError("jmh", str(error))
        raise keyed from None


def _strings(table: dict, key: str) -> list[str]:
    value = table[key]
    return [value] if isinstance(value, str) else value


def _param_text(value) -> str:
    """``"100,1000"``, ``100`` or ``[100, 1000]`` as JMH's ``-p`` value text."""
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)
