"""Time per operation from a score and its unit, for plausibility checks.

JMH reports time as ``ns/op`` ... ``s/op`` (also ``us/op`` for microseconds) and throughput
as ``ops/ns`` ... ``ops/s``; Go reports ``ns/op``. Other units (B/op, counts) have no time.
"""

from __future__ import annotations

_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}


def nanoseconds_per_op(value: float, unit: str) -> float | None:
    """The time one operation takes, in ns, or None when the unit is not a time or a rate."""
    if "/" not in unit:
        return None
    top, bottom = unit.split("/", 1)
    if bottom == "op" and top in _SECONDS:
        return value * _SECONDS[top] * 1e9
    if top == "ops" and bottom in _SECONDS and value > 0:
        return _SECONDS[bottom] * 1e9 / value
    return None


def is_time_metric(unit: str) -> bool:
    return nanoseconds_per_op(1.0, unit) is not None


def unit_factor(source: str, target: str) -> float | None:
    """What a value in ``source`` is multiplied by to be in ``target`` (``ns/op`` -> ``us/op``:
    0.001; ``ops/ms`` -> ``ops/s``: 1000), or None when they are not units of one dimension."""
    if source == target:
        return 1.0
    source_top, _, source_bottom = source.partition("/")
    target_top, _, target_bottom = target.partition("/")
    if source_bottom == target_bottom == "op" and source_top in _SECONDS and target_top in _SECONDS:
        return _SECONDS[source_top] / _SECONDS[target_top]
    if source_top == target_top == "ops" and source_bottom in _SECONDS and target_bottom in _SECONDS:
        return _SECONDS[target_bottom] / _SECONDS[source_bottom]
    return None
