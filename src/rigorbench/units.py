"""Units in one place (STYLE.md rule 12, as x/perf's ``benchunit``): time per operation,
throughput, and durations, parsed and converted here and nowhere else.

JMH reports time as ``ns/op`` ... ``s/op`` (``us/op`` for microseconds, ``min/op``) and
throughput as ``ops/ns`` ... ``ops/s``; Go reports ``ns/op`` and ``B/op``; pyperf seconds.
Bytes (``B/op``) and counts have no time and convert only to themselves. Durations are
written as JMH takes them (``200ms``, ``1s``, ``10m``, ``1h``). A base module: it imports
nothing of rigorbench's, so every layer may use it.
"""

from __future__ import annotations

import math
import re
from typing import Iterable

# Seconds per unit symbol: JMH's TimeUnit labels (ns ... min, hr, day) and the short forms
# its time values and Go's -benchtime accept (µs, m, h, d).
SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "min": 60.0,
           "h": 3600.0, "hr": 3600.0, "d": 86400.0, "day": 86400.0}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([a-zµ]*)")


def parse_duration(text: str, default: str | None = None) -> float | None:
    """The seconds of ``200ms``, ``1.5s``, ``10 min`` or ``1h`` (a bare number is in
    ``default``, when one is given), or None when ``text`` is not a duration."""
    match = _DURATION.fullmatch(str(text).strip())
    symbol = match and (match.group(2) or default)
    return float(match.group(1)) * SECONDS[symbol] if symbol in SECONDS else None


def format_duration(seconds: float) -> str:
    """``m:ss`` or ``h:mm:ss``, rounded to the second."""
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def nanoseconds_per_op(value: float, unit: str) -> float | None:
    """The time one operation takes, in ns, or None when the unit is not a time or a rate."""
    top, _, bottom = unit.partition("/")
    if bottom == "op" and top in SECONDS:
        return value * SECONDS[top] * 1e9
    if top == "ops" and bottom in SECONDS and value > 0:
        return SECONDS[bottom] * 1e9 / value
    return None


def time_unit_for(ns_per_op: float) -> str:
    """The largest of ``s/op``, ``ms/op``, ``us/op`` and ``ns/op`` in which ``ns_per_op`` reads
    1 or more (``ns/op`` below 1 ns): ``23100000`` -> ``ms/op``, ``0.4`` -> ``ns/op``. For one
    time said in a sentence; a column of values takes :func:`readable_unit`."""
    for unit in ("s/op", "ms/op", "us/op"):
        if ns_per_op >= SECONDS[unit.partition("/")[0]] * 1e9:
            return unit
    return "ns/op"


def is_time_metric(unit: str) -> bool:
    """A time per operation or a throughput (``B/op`` and counts are not)."""
    return nanoseconds_per_op(1.0, unit) is not None


def unit_factor(source: str, target: str) -> float | None:
    """What a value in ``source`` is multiplied by to be in ``target`` (``ns/op`` -> ``us/op``:
    0.001; ``ops/ms`` -> ``ops/s``: 1000), or None when they are not units of one dimension."""
    if source == target:
        return 1.0
    source_top, _, source_bottom = source.partition("/")
    target_top, _, target_bottom = target.partition("/")
    if source_bottom == target_bottom == "op" and source_top in SECONDS and target_top in SECONDS:
        return SECONDS[source_top] / SECONDS[target_top]
    if source_top == target_top == "ops" and source_bottom in SECONDS and target_bottom in SECONDS:
        return SECONDS[target_bottom] / SECONDS[source_bottom]
    return None


def dimension(unit: str) -> str:
    """What ``unit`` measures: ``time/op`` for ``ns/op`` ... ``s/op``, ``ops/time`` for
    ``ops/ns`` ... ``ops/s``, else the unit itself (bytes and counts convert to nothing else)."""
    top, _, bottom = unit.partition("/")
    if bottom == "op" and top in SECONDS:
        return "time/op"
    if top == "ops" and bottom in SECONDS:
        return "ops/time"
    return unit


# The units a table may show a dimension in, in the order they are tried.
_SCALES = {"time/op": ("s/op", "ms/op", "us/op", "ns/op"), "ops/time": ("ops/ns", "ops/us", "ops/ms", "ops/s")}


def readable_unit(units: Iterable[str], values: Iterable[float]) -> tuple[str, dict[str, float]]:
    """The one unit a column of ``values`` (each in the unit beside it in ``units``, all of
    one :func:`dimension`) is shown in, and the factor from each given unit to it.

    The values' own unit when they share one and all read as 1 to 9999 in it (the unit the
    author chose, JMH's ``@OutputTimeUnit``, stays); otherwise the unit of the dimension in
    which the fewest values fall outside 1 to 999 and 1 to 9999 (``1041000 ns/op`` reads
    ``1.041 ms/op``; ``ns/op`` and ``us/op`` of one metric share one column), on a tie the
    unit most values are given in, then the larger one. Benchstat scales each value on its
    own instead; one unit per column keeps a column's values comparable at a glance."""
    units = list(units)
    given = list(dict.fromkeys(units))
    if not given:
        return "", {}
    candidates = _SCALES.get(dimension(given[0]))
    if candidates is None or any(dimension(u) != dimension(given[0]) for u in given):
        return given[0], {u: 1.0 for u in given}
    pairs = [(u, v) for u, v in zip(units, values) if math.isfinite(v) and v > 0]

    def misfits(unit: str) -> int:
        scaled = [v * unit_factor(u, unit) for u, v in pairs]
        return sum(not 1 <= v < 1000 for v in scaled) + sum(not 1 <= v < 10_000 for v in scaled)

    most = max(given, key=units.count)
    if len(given) == 1 and all(1 <= v < 10_000 for _, v in pairs):
        return most, {most: 1.0}
    chosen = min(candidates, key=lambda c: (misfits(c), c != most, candidates.index(c)))
    return chosen, {u: unit_factor(u, chosen) for u in given}


# Which way is better, read from a metric's name or unit (a CSV history's column names carry
# nothing else). A rate -- something counted per unit of time -- is better higher; a time, a
# time per operation, a size or a count per operation is better lower.
_HIGHER_WORDS = frozenset({"ops", "throughput", "thrpt", "qps", "rps", "tps", "iops", "bandwidth", "mbps", "gbps",
                           "hz", "fps", "rate"})
_LOWER_WORDS = frozenset({"time", "latency", "duration", "elapsed", "wall", "ns", "us", "µs", "ms", "sec", "secs",
                          "seconds", "alloc", "allocs", "bytes", "memory", "mem", "rss", "size", "p50", "p90", "p95",
                          "p99", "p999"})
_COUNTED = frozenset({"ops", "op", "requests", "req", "reqs", "calls", "items", "events", "msgs", "messages", "rows",
                      "records", "bytes", "b", "kb", "mb", "gb", "tx", "txns", "transactions", "iterations", "frames"})
_PER_OP = frozenset({"op", "ops", "call", "calls", "iteration", "iter", "invocation", "request", "item", "row"})
_TIME_WORDS = frozenset(SECONDS) | {"sec", "second", "seconds", "minute", "hour"}
_WORD = re.compile(r"[a-zµ]+[0-9]*|[0-9]+")


def higher_is_better_from_name(name: str) -> bool | None:
    """True for a rate (``encode_ops_s``, ``ops/ms``, ``requests_per_second``, ``throughput``),
    False for a cost (``parse_ns``, ``ns/op``, ``latency_p99_ms``, ``allocs_per_op``), None when
    the name does not say."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)          # renderTimeMs -> render Time Ms
    words = _WORD.findall(spaced.lower().replace("/", " per "))
    if "per" in words[:-1]:
        after = words[words.index("per") + 1]
        if after in _TIME_WORDS:
            return True
        if after in _PER_OP:
            return False
    if len(words) > 1 and words[-1] in _TIME_WORDS and words[-2] in _COUNTED:
        return True             # encode_ops_s, requests_s, mb_s: counted per unit of time
    if any(word in _HIGHER_WORDS for word in words):
        return True
    if any(word in _LOWER_WORDS for word in words) or (words and words[-1] in _TIME_WORDS):
        return False
    return None
