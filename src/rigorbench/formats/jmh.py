"""JMH's vocabulary, shared by the JSON, console-log and ``pa`` CSV readers.

Benchmark modes and their metrics, secondary-metric names across JMH versions (JMH <= 1.36
prefixes profiler results with ``·``, 1.37 does not), and the environment keys every JMH
reader records, so that the JSON and the console log of one run describe it alike.
"""

from __future__ import annotations

import re

from rigorbench.model import ALLOC, THROUGHPUT, TIME, Metric

THROUGHPUT_MODE = "thrpt"
TIME_MODES = frozenset({"avgt", "sample", "ss"})

# "# Benchmark mode: Throughput, ops/time" -> "thrpt" (JMH's Mode long labels).
MODE_LABELS = {
    "throughput": "thrpt",
    "average time": "avgt",
    "sampling time": "sample",
    "single shot invocation time": "ss",
}

SECONDARY_PREFIX = "\u00b7"  # "·"
_RENAMED = {"gc.alloc.rate.norm": ALLOC}
_PERCENTILE = re.compile(r"(?:^|[\u00b7:])p\d+(?:\.\d+)?$")  # p0.50, ·p0.50, bar·p0.50


def mode_from_label(label: str) -> str | None:
    """``"Throughput, ops/time"`` or ``"thrpt"`` -> ``"thrpt"``; None if unknown."""
    head = label.split(",")[0].strip().lower()
    if head in MODE_LABELS:
        return MODE_LABELS[head]
    if head == THROUGHPUT_MODE or head in TIME_MODES:
        return head
    return None


# The primary metric's name per mode. The mode is part of what a score *is*: SampleTime's
# per-invocation samples and a single shot's cold time are not AverageTime's mean, so a
# series of one mode is never compared with, or pooled into, a series of another.
MODE_METRICS = {THROUGHPUT_MODE: THROUGHPUT, "avgt": TIME, "sample": "sample_time", "ss": "single_shot_time"}


def primary_metric(mode: str | None, unit: str) -> Metric:
    """The primary score: ``throughput`` for thrpt, ``time`` for avgt, ``sample_time`` for
    sample, ``single_shot_time`` for ss.

    Without a known mode the unit decides (``ops/...`` is a throughput, else a time).
    """
    if mode == THROUGHPUT_MODE or (mode not in TIME_MODES and unit.startswith("ops/")):
        return Metric(THROUGHPUT, unit, higher_is_better=True, primary=True)
    return Metric(MODE_METRICS.get(mode or "", TIME), unit, higher_is_better=False, primary=True)


def metric_mode(metric: Metric) -> str | None:
    """The JMH mode a primary metric was measured in, or None (secondary, or not JMH's)."""
    if not metric.primary:
        return None
    return next((mode for mode, name in MODE_METRICS.items() if name == metric.name), None)


def secondary_name(label: str) -> str:
    """A profiler result's name without JMH <= 1.36's ``·`` prefix."""
    return label[1:] if label.startswith(SECONDARY_PREFIX) else label


def is_sample_percentile(label: str, mode: str | None) -> bool:
    """SampleTime's ``p0.00`` ... ``p1.00``: quantiles of each iteration's invocation sample.

    They are derived from the histogram kept as the primary metric, so readers skip them.
    """
    return mode == "sample" and bool(_PERCENTILE.search(label))


def secondary_metric(label: str, unit: str) -> Metric:
    """``gc.alloc.rate.norm`` -> ``alloc``; other names kept; only ``ops/...`` rates are better high."""
    name = secondary_name(label)
    name = _RENAMED.get(name, name)
    return Metric(name, unit, higher_is_better=unit.startswith("ops/"), primary=False)


def vm_version_fields(text: str) -> dict[str, str]:
    """``"JDK 17.0.2, OpenJDK 64-Bit Server VM, 17.0.2+8"`` -> jdk_version, vm_name, vm_version.

    JMH before 1.20 printed ``"JDK 10.0.1, VM 10.0.1+10"`` (no VM name).
    """
    parts = [p.strip() for p in text.split(",")]
    fields: dict[str, str] = {}
    if parts and parts[0].startswith("JDK "):
        fields["jdk_version"] = parts[0][4:].strip()
        parts = parts[1:]
    if len(parts) == 1 and parts[0].startswith("VM "):
        fields["vm_version"] = parts[0][3:].strip()
    elif len(parts) >= 2:
        fields["vm_name"] = ", ".join(parts[:-1])
        fields["vm_version"] = parts[-1]
    return fields


def iterations_text(iterations: int, time: str, batch_size: int = 1) -> str:
    """The console log's ``# Warmup:`` text from JSON fields: ``"5 iterations, 10 s each"``."""
    if iterations <= 0:
        return "<none>"
    text = f"{iterations} iterations, {time} each"
    if batch_size != 1:
        text += f", {batch_size} calls per op"
    return text
