"""Experiment settings from the command line or a config file: presets and validation."""

from __future__ import annotations

import re
from dataclasses import replace

# --until-decided's defaults live with its rule; re-exported for the CLI and the config file.
from rigorbench.analysis.settings import DEFAULT_FUTILITY, DEFAULT_MAX_TRIALS, DEFAULT_MIN_TRIALS  # noqa: F401
from rigorbench.errors import UserError
from rigorbench.harness.base import RunSettings
from rigorbench.units import parse_duration

# Defaults for a real comparison: 3 trials x 2 forks x (5 warmup + 10 measurement) iterations
# of 1 s each per benchmark and version. Laaber et al. find trial-based sampling with
# several trials is what keeps A/A false positives low; raise --trials first.
DEFAULT_TRIALS = 3
DEFAULT_SETTINGS = RunSettings(forks=2, warmup_iterations=5, iterations=10, warmup_time="1s", iteration_time="1s")

# --quick: seconds, not minutes, per trial; for demos and tests, not for decisions.
QUICK_TRIALS = 5
QUICK_SETTINGS = RunSettings(forks=2, warmup_iterations=3, iterations=5, warmup_time="200ms", iteration_time="200ms")


# --warmup auto: warmup iterations of the pilot fork, generous next to JMH's default of 5.
PILOT_WARMUP = 30

_JMH_TIME = re.compile(r"\d+\s*[a-z]+")   # JMH takes whole numbers, in any unit of rigorbench.units
_COUNT = re.compile(r"^\d+x$")


def jmh_time(text: str, option: str) -> str:
    """A JMH time value such as ``200ms`` or ``1s``, checked before JMH sees it."""
    value = str(text).strip()
    if not _JMH_TIME.fullmatch(value) or parse_duration(value) is None:
        raise UserError(f"{option}: {text!r} is not a time such as 200ms, 1s or 1m")
    return value.replace(" ", "")


def iteration_time(text: str, option: str) -> str:
    """A measurement iteration's time (``200ms``, ``1s``), or a fixed count of the benchmark's
    own iterations such as ``100x`` (Go's ``-test.benchtime=100x``, Google Benchmark 1.8's
    ``--benchmark_min_time=100x``; the harnesses without such a count refuse it)."""
    value = str(text).strip()
    if _COUNT.match(value):
        if int(value[:-1]) < 1:
            raise UserError(f"{option}: {text!r}: a fixed count must be at least 1x")
        return value
    return jmh_time(text, option)


def fraction(text: str) -> float:
    """A fraction given as ``0.01`` or ``1%``, on the command line or in a config file; a
    ValueError says why not (its callers add the option or the file and line)."""
    raw = str(text).strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise ValueError(f"not a number or percentage: {text!r}") from None
    if not raw.endswith("%") and value >= 1:
        raise ValueError(f"{text!r} is not a fraction; write {value / 100:g} or {text}%")
    return value


def seconds(text: str, option: str) -> float:
    """A duration such as ``90``, ``90s``, ``10m`` or ``1h``, in seconds."""
    value = parse_duration(text, default="s")
    if value is None:
        raise UserError(f"{option}: {text!r} is not a duration such as 90s, 10m or 1h")
    if value <= 0:
        raise UserError(f"{option}: must be positive")
    return value


def parse_params(items: list[str] | tuple[str, ...], option: str = "--param") -> tuple[tuple[str, str], ...]:
    """``name=v1,v2`` items (JMH -p): values stay strings."""
    params = []
    for item in items:
        name, sep, values = str(item).partition("=")
        if not sep or not name.strip() or not values.strip():
            raise UserError(f"{option}: expected name=value[,value...], got {item!r}")
        params.append((name.strip(), values.strip()))
    return tuple(params)


def settings_with(base: RunSettings, **overrides) -> RunSettings:
    """``base`` with every override that is not None."""
    given = {k: v for k, v in overrides.items() if v is not None}
    for key in ("forks", "warmup_iterations", "iterations"):
        if key in given and int(given[key]) < (1 if key != "warmup_iterations" else 0):
            raise UserError(f"--{key.replace('_', '-')} must be at least {1 if key != 'warmup_iterations' else 0}")
    return replace(base, **given)
