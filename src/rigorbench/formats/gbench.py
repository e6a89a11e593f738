"""Google Benchmark's JSON output (``--benchmark_format=json``, ``--benchmark_out=FILE``).

The document is an object: ``context`` (the machine and the library: host, CPUs, MHz,
frequency scaling, caches, load, ``library_build_type``) and ``benchmarks``, a list with one
object per run. ``run_type`` is ``iteration`` for a repetition's own measurement and
``aggregate`` for the mean, median, stddev and cv the library computes over repetitions:
only the repetitions are read (rigorbench computes its own statistics from them).

Levels: one file is one process run of the benchmark binary, so it is one fork (fork 0 of
trial 0); each repetition (``repetition_index``) is one iteration. Metrics: ``real_time``
(wall clock per iteration, the primary ``time``), ``cpu_time``, and every user counter (a
numeric field the library does not define); a counter whose name ends in ``_per_second``
(``SetItemsProcessed``, ``SetBytesProcessed``) is a rate, higher is better. A benchmark name
``BM_Sum/size:100/8/threads:2`` becomes the case ``BM_Sum`` with parameters ``size=100``,
``arg1=8``, ``threads=2``. ``error_occurred`` (up to 1.7) and ``skipped`` (from 1.8) runs are
failures, not values. A debug build of the library, or CPU frequency scaling, is a warning:
both distort the timings (the library prints the same warnings on its console).
"""

from __future__ import annotations

import json
import math
import re
from typing import Iterator

from rigorbench.errors import InputError
from rigorbench.formats.collect import (
    JSON_DECODER, EnvironmentCollector, OutOfRange, SeriesCollector, input_error, line_at, out_of_range, result_file,
)
from rigorbench.model import TIME, BenchmarkCase, Metric, ResultFile

_SNIFF = re.compile(r'\A\s*\{\s*"(context|benchmarks)"\s*:')
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_TIME_UNITS = ("ns", "us", "ms", "s")
# Fields of a run object that are not user counters.
_FIELDS = {
    "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
    "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
    "aggregate_name", "aggregate_unit", "error_occurred", "error_message", "skipped", "skip_message",
    "label", "big_o", "rms", "complexity_n",
}


def _metrics(unit: str) -> tuple[Metric, Metric]:
    return (Metric(TIME, f"{unit}/op", higher_is_better=False, primary=True),
            Metric("cpu_time", f"{unit}/op", higher_is_better=False))


def counter_metric(name: str) -> Metric:
    """A user counter: a rate (``*_per_second``) is higher-is-better; other counters have no
    unit the file states and are read as lower-is-better."""
    rate = name.endswith("_per_second")
    return Metric(name, "/s" if rate else "counter", higher_is_better=rate)


def split_name(run_name: str) -> tuple[str, dict[str, str]]:
    """``BM_Sum/size:100/8/threads:2`` -> (``BM_Sum``, {size: 100, arg1: 8, threads: 2})."""
    family, *rest = run_name.split("/")
    params: dict[str, str] = {}
    for position, segment in enumerate(rest):
        key, sep, value = segment.partition(":")
        if sep and key:
            params[key] = value
        else:
            params[f"arg{position}"] = segment
    return family, params


class GbenchJsonReader:
    name = "gbench"
    description = "Google Benchmark --benchmark_format=json"

    def sniff(self, text: str) -> bool:
        head = text[:65536]
        return bool(_SNIFF.match(head)) and ('"context"' in head[:200] or '"run_type"' in head)

    def parse(self, text: str, path: str) -> ResultFile:
        parser = _Parser(path)
        found = set()
        for key, line, value in _members(text, path):
            found.add(key)
            if key == "context":
                parser.context(value, line)
            elif key == "benchmarks":
                for entry_line, entry in value:
                    parser.run(entry, entry_line)
        if "benchmarks" not in found:
            raise InputError(path, None, "not a Google Benchmark JSON result: no \"benchmarks\" list")
        return result_file(path, self.name, parser.collector, parser.environment, parser.warnings, parser.failures)


def _decode(text: str, pos: int, path: str) -> tuple[object, int]:
    try:
        return JSON_DECODER.raw_decode(text, pos)
    except RecursionError:
        raise InputError(path, line_at(text, pos), "invalid JSON: nested too deeply") from None
    except json.JSONDecodeError as error:
        if error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string"):
            raise InputError(path, text.count("\n") + 1, "truncated JSON: the file ends before the document does") from None
        raise InputError(path, error.lineno, f"invalid JSON: {error.msg} (column {error.colno})") from None


def _expect(text: str, pos: int, path: str, chars: str, what: str) -> int:
    pos = _WHITESPACE.match(text, pos).end()
    if pos >= len(text):
        raise InputError(path, text.count("\n") + 1, "truncated JSON: the file ends before the document does")
    if text[pos] not in chars:
        raise InputError(path, line_at(text, pos), f"invalid JSON: expected {what}")
    return pos


def _members(text: str, path: str) -> Iterator[tuple[str, int, object]]:
    """The top-level object's members as (key, line, value); the ``benchmarks`` list's value
    is an iterator of (line, element), so that every run's errors name its own line."""
    pos = _expect(text, 0, path, "{", "an object with \"context\" and \"benchmarks\"")
    pos = _WHITESPACE.match(text, pos + 1).end()
    if text.startswith("}", pos):
        return
    while True:
        pos = _expect(text, pos, path, '"', "a member name")
        key, pos = _decode(text, pos, path)
        pos = _expect(text, pos, path, ":", "':'") + 1
        pos = _WHITESPACE.match(text, pos).end()
        line = line_at(text, pos)
        if key == "benchmarks" and text.startswith("[", pos):
            items: list[tuple[int, object]] = []
            pos = _array(text, pos, path, items)
            yield key, line, items
        else:
            value, pos = _decode(text, pos, path)
            yield key, line, value
        pos = _expect(text, pos, path, ",}", "',' or '}'")
        if text[pos] == "}":
            break
        pos += 1
    rest = _WHITESPACE.match(text, pos + 1).end()
    if rest < len(text):
        raise InputError(path, line_at(text, rest), "invalid JSON: unexpected text after the document")


def _array(text: str, pos: int, path: str, items: list) -> int:
    """Decode the list at ``pos`` element by element into ``items``; the position after it."""
    pos = _WHITESPACE.match(text, pos + 1).end()
    if text.startswith("]", pos):
        return pos + 1
    while True:
        pos = _WHITESPACE.match(text, pos).end()
        line = line_at(text, pos)
        value, pos = _decode(text, pos, path)
        items.append((line, value))
        pos = _expect(text, pos, path, ",]", "',' or ']' between benchmarks")
        if text[pos] == "]":
            return pos + 1
        pos += 1


class _Parser:
    def __init__(self, path: str) -> None:
        self.path = path
        self.collector = SeriesCollector()
        self.environment = EnvironmentCollector()
        self.warnings: list[str] = []
        self.failures: list[str] = []
        self.seen: dict[tuple[BenchmarkCase, int], int] = {}   # (case, repetition) -> its line
        self.counts: dict[BenchmarkCase, int] = {}

    def context(self, context: object, line: int) -> None:
        if not isinstance(context, dict):
            raise input_error(self.path, line, "\"context\" is not an object")
        self.environment.set("harness", "gbench")
        for key, name in (("host_name", "host"), ("executable", "executable"), ("num_cpus", "cpus"),
                          ("mhz_per_cpu", "cpu_mhz"), ("library_build_type", "library_build_type"),
                          ("date", "date"), ("library_version", "library_version")):
            value = context.get(key)
            if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                self.environment.set(name, value)
        if isinstance(context.get("cpu_scaling_enabled"), bool):
            self.environment.set("cpu_scaling", "enabled" if context["cpu_scaling_enabled"] else "disabled")
            if context["cpu_scaling_enabled"]:
                self.warnings.append("CPU frequency scaling was enabled: timings vary with the clock speed "
                                     "(set the performance governor before benchmarking)")
        caches = context.get("caches")
        if isinstance(caches, list):
            sizes = [f"L{c.get('level')} {c.get('type')} {c.get('size')}" for c in caches if isinstance(c, dict)]
            if sizes:
                self.environment.set("caches", ", ".join(sizes))
        if context.get("library_build_type") == "debug":
            self.warnings.append("the Google Benchmark library is a debug build: its own overhead is in every "
                                 "timing (build it, or install a package built, with CMAKE_BUILD_TYPE=Release)")

    def run(self, entry: object, line: int) -> None:
        if not isinstance(entry, dict):
            raise input_error(self.path, line, "a benchmark run is not an object")
        if entry.get("run_type", "iteration") != "iteration":
            return   # the library's aggregates: rigorbench computes its own from the repetitions
        name = entry.get("run_name", entry.get("name"))
        if not isinstance(name, str) or not name:
            raise input_error(self.path, line, "a benchmark run has no name")
        if entry.get("error_occurred") or entry.get("skipped") not in (None, False, 0, "NotSkipped"):
            message = entry.get("error_message", entry.get("skip_message", ""))
            self.failures.append(f"{name}: {message}" if isinstance(message, str) and message else name)
            return
        unit = entry.get("time_unit", "ns")
        if unit not in _TIME_UNITS:
            raise input_error(self.path, line, f"benchmark {name}: unknown time_unit {str(unit)[:20]!r} (expected ns, us, ms or s)")
        family, params = split_name(name)
        case = BenchmarkCase.of("gbench", family, params)
        iteration = self._iteration(case, entry, line)
        real, cpu = _metrics(unit)
        for metric, key in ((real, "real_time"), (cpu, "cpu_time")):
            if key in entry:
                self._add(case, metric, entry[key], iteration, line, name)
        for key, value in entry.items():
            if key not in _FIELDS and isinstance(value, (int, float)) and not isinstance(value, bool):
                self._add(case, counter_metric(key), value, iteration, line, name)

    def _iteration(self, case: BenchmarkCase, entry: dict, line: int) -> int:
        """The repetition's index; a repetition listed twice is an input error."""
        index = entry.get("repetition_index")
        if index is None:   # files written before repetition_index existed: in file order
            index = self.counts.get(case, 0)
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise input_error(self.path, line, f"repetition_index {str(index)[:20]!r} is not a whole number")
        if (case, index) in self.seen:
            raise input_error(self.path, line, f"benchmark {case.display_name}: repetition {index} is listed twice "
                                               f"(first at line {self.seen[(case, index)]})")
        self.seen[(case, index)] = line
        self.counts[case] = self.counts.get(case, 0) + 1
        return index

    def _add(self, case: BenchmarkCase, metric: Metric, raw: object, iteration: int, line: int, name: str) -> None:
        if isinstance(raw, OutOfRange):
            raise input_error(self.path, line, f"benchmark {name}: {metric.name}: {out_of_range(raw.text)}")
        if not isinstance(raw, (int, float)) or isinstance(raw, bool):
            raise input_error(self.path, line, f"benchmark {name}: {metric.name} is not a number")
        value = float(raw)
        if value < 0 and metric.name in (TIME, "cpu_time"):
            raise input_error(self.path, line, f"benchmark {name}: negative {metric.name} {value:g}: a time cannot be negative")
        if math.isfinite(value):
            self.collector.add(case, metric, value, iteration=iteration)
        else:
            self.collector.skip_non_finite(case, metric)
