"""pyperf's JSON result file (``--output``, ``-o``; the format pyperf calls version 1.0).

The document is an object: ``metadata`` common to every benchmark (Python version and
build, CPU, host, timer, and the ``unit``), and ``benchmarks``, each with its own
``metadata`` (its ``name``, ``loops``, ``inner_loops``...) that adds to or overrides the
common one, and its ``runs``: one per worker process. A run's ``values`` are already per loop
iteration (pyperf divides each raw timing by ``loops x inner_loops``), and so are its
``warmups``, stored as ``[loops, value]`` pairs. The first processes only calibrate the
number of loops (``calibrate_loops`` or ``recalibrate_loops`` in their metadata, warmups and
no values): they are left out.

Levels: each measuring process is a fork, each value an iteration, and the warmups are kept
as warmup iterations (as JMH console logs keep theirs). Unit ``second`` is read as ns/op
(values times 10^9: the unit JMH and Go users read); ``byte`` and ``integer`` benchmarks keep
their unit, lower is better. pyperf writes the document on one line, so errors name the
benchmark and run rather than a line.
"""

from __future__ import annotations

import json
import math
import re

from rigorbench.errors import InputError
from rigorbench.formats.collect import (
    JSON_DECODER, EnvironmentCollector, OutOfRange, SeriesCollector, line_at, out_of_range, result_file,
)
from rigorbench.model import TIME, BenchmarkCase, Metric, ResultFile
from rigorbench.units import unit_factor

_SNIFF = re.compile(r'\A\s*\{\s*"(benchmarks|metadata|version)"\s*:')
_UNITS = {
    "second": (Metric(TIME, "ns/op", higher_is_better=False, primary=True), unit_factor("s/op", "ns/op")),
    "byte": (Metric("memory", "B", higher_is_better=False, primary=True), 1.0),
    "integer": (Metric("value", "count", higher_is_better=False, primary=True), 1.0),
}
# Common metadata recorded as the environment (pyperf's names, kept).
_ENVIRONMENT = ("hostname", "cpu_model_name", "cpu_count", "cpu_freq", "cpu_config", "platform",
                "python_implementation", "python_version", "python_compiler", "perf_version", "timer", "aslr")


class PyperfJsonReader:
    name = "pyperf"
    description = "pyperf --output JSON"

    def sniff(self, text: str) -> bool:
        head = text[:65536]
        return bool(_SNIFF.match(head)) and '"runs"' in head and '"run_type"' not in head

    def parse(self, text: str, path: str) -> ResultFile:
        document = _decode(text, path)
        benchmarks = document.get("benchmarks")
        if not isinstance(benchmarks, list):
            raise InputError(path, None, 'not a pyperf JSON result: no "benchmarks" list')
        common = document.get("metadata", {})
        if not isinstance(common, dict):
            raise InputError(path, None, 'pyperf JSON: "metadata" is not an object')
        parser = _Parser(path)
        parser.environment.set("harness", "pyperf")
        for key in _ENVIRONMENT:
            value = common.get(key)
            if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                parser.environment.set(key, value)
        for number, benchmark in enumerate(benchmarks, 1):
            parser.benchmark(benchmark, number, common)
        return result_file(path, self.name, parser.collector, parser.environment, parser.warnings)


def _decode(text: str, path: str) -> dict:
    try:
        document, end = JSON_DECODER.raw_decode(text, len(text) - len(text.lstrip()))
    except RecursionError:
        raise InputError(path, None, "invalid JSON: nested too deeply") from None
    except json.JSONDecodeError as error:
        if error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string"):
            raise InputError(path, error.lineno, "truncated JSON: the file ends before the document does") from None
        raise InputError(path, error.lineno, f"invalid JSON: {error.msg} (column {error.colno})") from None
    if text[end:].strip():
        raise InputError(path, line_at(text, end), "invalid JSON: unexpected text after the document")
    if not isinstance(document, dict):
        raise InputError(path, None, "not a pyperf JSON result: expected an object")
    return document


class _Parser:
    def __init__(self, path: str) -> None:
        self.path = path
        self.collector = SeriesCollector()
        self.environment = EnvironmentCollector()
        self.warnings: list[str] = []
        self.cases: set[BenchmarkCase] = set()

    def error(self, where: str, message: str) -> InputError:
        return InputError(self.path, None, f"{where}: {message}")

    def benchmark(self, benchmark: object, number: int, common: dict) -> None:
        where = f"benchmark {number}"
        if not isinstance(benchmark, dict):
            raise self.error(where, "not an object")
        own = benchmark.get("metadata", {})
        if not isinstance(own, dict):
            raise self.error(where, '"metadata" is not an object')
        metadata = {**common, **own}
        name = metadata.get("name")
        if not isinstance(name, str) or not name:
            raise self.error(where, "has no name (metadata \"name\")")
        where = f"benchmark {name!r}"
        unit = metadata.get("unit", "second")
        if unit not in _UNITS:
            raise self.error(where, f"unknown unit {str(unit)[:20]!r} (pyperf writes second, byte or integer)")
        metric, scale = _UNITS[unit]
        case = BenchmarkCase.of("pyperf", name)
        if case in self.cases:
            raise self.error(where, "is listed twice")
        self.cases.add(case)
        runs = benchmark.get("runs")
        if not isinstance(runs, list):
            raise self.error(where, 'has no "runs" list')
        fork = 0
        for index, run in enumerate(runs, 1):
            if not isinstance(run, dict):
                raise self.error(where, f"run {index} is not an object")
            meta = run.get("metadata", {})
            if isinstance(meta, dict) and ("calibrate_loops" in meta or "recalibrate_loops" in meta) and not run.get("values"):
                continue   # a calibration process: it only chose the number of loops
            values = run.get("values", [])
            warmups = run.get("warmups", [])
            if not isinstance(values, list) or not isinstance(warmups, list):
                raise self.error(where, f"run {index}: values and warmups must be lists")
            if not values:
                continue
            for iteration, pair in enumerate(warmups):
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise self.error(where, f"run {index}: warmup {iteration + 1} is not a [loops, value] pair")
                self._add(case, metric, pair[1], scale, fork, iteration, True, f"{where}, run {index}")
            for iteration, value in enumerate(values):
                self._add(case, metric, value, scale, fork, iteration, False, f"{where}, run {index}")
            fork += 1

    def _add(self, case: BenchmarkCase, metric: Metric, raw: object, scale: float, fork: int, iteration: int,
             warmup: bool, where: str) -> None:
        if isinstance(raw, OutOfRange):
            raise self.error(where, out_of_range(raw.text))
        if not isinstance(raw, (int, float)) or isinstance(raw, bool):
            raise self.error(where, f"value {str(raw)[:20]!r} is not a number")
        value = float(raw) * scale
        if value < 0:
            raise self.error(where, f"negative value {float(raw):g}: a {metric.name} cannot be negative")
        if math.isfinite(value):
            self.collector.add(case, metric, value, fork=fork, iteration=iteration, warmup=warmup)
        else:
            self.collector.skip_non_finite(case, metric)
