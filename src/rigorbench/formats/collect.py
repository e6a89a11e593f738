"""Accumulate what a reader finds, then build the :class:`ResultFile` once.

Readers stream records and hand every value to a :class:`SeriesCollector`, which keeps
plain Python lists per (version, benchmark case, metric) and turns each into numpy columns
once, at the end (linear in the number of records). Non-finite values are skipped and
counted, never stored: a NaN score is a harness failure, not a measurement.
"""

from __future__ import annotations

import json
import math

import numpy as np

from rigorbench import terminal
from rigorbench.errors import InputError
from rigorbench.model import ALLOC, BenchmarkCase, Metric, ResultFile, SampleTable, Series

SeriesKey = tuple[str | None, BenchmarkCase, Metric]


class OutOfRange(float):
    """A JSON number literal beyond float range (its value is inf); keeps its text."""

    text: str


def _json_number(text: str) -> float:
    value = float(text)
    if math.isfinite(value):
        return value
    number = OutOfRange(value)
    number.text = text
    return number


def _json_int(text: str) -> int | float:
    return int(text) if len(text) <= 300 else _json_number(text)  # int() refuses 4,300 digits


# JSON as the readers decode it: numbers beyond float range keep their text for the error.
JSON_DECODER = json.JSONDecoder(parse_float=_json_number, parse_int=_json_int)


def line_at(text: str, pos: int) -> int:
    """The 1-based line of ``text`` that character ``pos`` is on."""
    return text.count("\n", 0, pos) + 1


def _table(rows: list[tuple]) -> SampleTable:
    """Rows of (instance, trial, fork, iteration, warmup, value, count): SampleTable's columns, in its order."""
    return SampleTable(*zip(*rows))


def _table_of(parts: list) -> SampleTable:
    """One SampleTable of a series' parts (row lists and fork blocks), in order."""
    if len(parts) == 1 and isinstance(parts[0], list):
        return _table(parts[0])
    columns: list[list[np.ndarray]] = [[] for _ in range(7)]
    for part in parts:
        if isinstance(part, list):
            table = _table(part)
            block = tuple(getattr(table, name) for name in SampleTable.columns())
        else:
            instance, trial, fork, values = part
            n = values.size
            block = (np.full(n, instance), np.full(n, trial), np.full(n, fork), np.arange(n),
                     np.zeros(n, dtype=bool), values, np.ones(n))
        for column, piece in zip(columns, block):
            column.append(piece)
    return SampleTable(*(np.concatenate(c) for c in columns))


class SeriesCollector:
    """Rows per series in first-seen order; non-finite values counted per series.

    A series' values arrive one by one (``add``) or a fork at a time (``add_fork``, for
    readers that already hold a fork's list of checked values: one numpy conversion instead
    of a call per value, about 3x faster to read a large JMH JSON file); both keep arrival
    order.
    """

    def __init__(self) -> None:
        # Per series: parts in arrival order, each a list of row tuples or a fork block.
        self._parts: dict[SeriesKey, list] = {}
        self._tables: dict[SeriesKey, SampleTable] = {}
        self._non_finite: dict[SeriesKey, int] = {}

    def add_table(self, case: BenchmarkCase, metric: Metric, table: SampleTable, version: str | None = None) -> None:
        """A whole series a reader built column-wise (finite values only), after the rows'."""
        self._tables[(version, case, metric)] = table

    def add(self, case: BenchmarkCase, metric: Metric, value: float, *, fork: int = 0, iteration: int = 0,
            warmup: bool = False, trial: int = 0, instance: int = 0, count: float = 1.0,
            version: str | None = None) -> None:
        key = (version, case, metric)
        if not math.isfinite(value):
            self._non_finite[key] = self._non_finite.get(key, 0) + 1
            return
        parts = self._parts.get(key)
        if parts is None:
            parts = self._parts[key] = []
        if not parts or not isinstance(parts[-1], list):
            parts.append([])
        parts[-1].append((instance, trial, fork, iteration, warmup, value, count))

    def add_fork(self, case: BenchmarkCase, metric: Metric, values, *, fork: int,
                 trial: int = 0, instance: int = 0, version: str | None = None) -> None:
        """One fork's measurement iterations 0..n-1 (no warmup, count 1), a sequence of floats;
        the caller has checked every value is finite and one that ``impossible`` accepts."""
        key = (version, case, metric)
        parts = self._parts.get(key)
        if parts is None:
            parts = self._parts[key] = []
        parts.append((instance, trial, fork, np.array(values, dtype=np.float64)))

    def skip_non_finite(self, case: BenchmarkCase, metric: Metric, version: str | None = None) -> None:
        """Count a value that was not even a number (JMH's ``"NaN"``, ``"+INF"``)."""
        key = (version, case, metric)
        self._non_finite[key] = self._non_finite.get(key, 0) + 1

    def series(self) -> tuple[Series, ...]:
        tables = {key: _table_of(parts) for key, parts in self._parts.items()} | self._tables
        return tuple(
            Series(case=case, metric=metric, samples=table, version=version)
            for (version, case, metric), table in tables.items()
        )

    def take(self) -> tuple[Series, ...]:
        """The series so far (as :meth:`series`), forgotten here: a streaming reader hands
        them on and keeps only the counts of non-finite values for its warnings."""
        series = self.series()
        self._parts, self._tables = {}, {}
        return series

    def warnings(self) -> list[str]:
        return [
            f"{n} non-finite value{'s' if n != 1 else ''} skipped in {describe(case, metric, version)}"
            for (version, case, metric), n in self._non_finite.items()
        ]


MESSAGE_LIMIT = 300


def printable(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` for a one-line message about file content (see :mod:`rigorbench.terminal`),
    at most ``limit`` characters."""
    return terminal.printable(text, limit)


def input_error(path: str, line: int | None, message: str) -> InputError:
    """An :class:`InputError` whose message quotes file content safely (see :func:`printable`)."""
    return InputError(path, line, printable(message))


def impossible(metric: Metric, value: float) -> str | None:
    """Why ``value`` cannot be a measurement of ``metric``, or None.

    Times and throughputs (every primary metric) and allocations are never negative.
    """
    if value < 0 and (metric.primary or metric.name == ALLOC):
        return f"negative {metric.name} {value:g} {metric.unit}: a {metric.name} cannot be negative"
    return None


def out_of_range(text: str) -> str:
    """How an error quotes a number beyond float range: its start and its length."""
    shown = text if len(text) <= 24 else f"{text[:12]}...{text[-6:]} ({len(text)} characters)"
    return f"number out of range: {shown}"


def describe(case: BenchmarkCase, metric: Metric, version: str | None = None) -> str:
    """``name{k=v} metric`` (and ``@version``): how warnings name a series."""
    where = f"{case.display_name} {metric.name}"
    return f"{where} @{version}" if version is not None else where


class EnvironmentCollector:
    """``key -> value`` pairs; a key seen with different values keeps them all, in order."""

    def __init__(self) -> None:
        self._values: dict[str, list[str]] = {}

    def set(self, key: str, value: object) -> None:
        text = " ".join(str(value).split())
        seen = self._values.setdefault(key, [])
        if text not in seen:
            seen.append(text)

    def __contains__(self, key: str) -> bool:
        return key in self._values

    def build(self) -> dict[str, str]:
        return {key: " | ".join(values) for key, values in sorted(self._values.items())}


def result_file(path: str, format: str, collector: SeriesCollector, environment: EnvironmentCollector,
                warnings: list[str], failures: list[str] = (), taken: int = 0) -> ResultFile:
    """The finished :class:`ResultFile`; a file without a single value is an input error
    (``taken``: series a streaming reader has already handed on)."""
    series = collector.series()
    all_warnings = _collapse([*warnings, *collector.warnings()])
    if not series and not taken:
        reasons = [describe_failure(failure) for failure in failures] + all_warnings
        detail = f" ({reasons[0]})" if reasons else ""
        raise InputError(path, None, f"no benchmark results found{detail}")
    return ResultFile(path=path, format=format, series=series, environment=environment.build(),
                      warnings=tuple(all_warnings), failures=tuple(dict.fromkeys(failures)))


def describe_failure(failure: str) -> str:
    """``"a.B.c: java.lang.X: why"`` -> ``"benchmark a.B.c failed: java.lang.X: why"``."""
    name, _, detail = failure.partition(": ")
    return f"benchmark {name} failed" + (f": {detail}" if detail else "")


def _collapse(warnings: list[str]) -> list[str]:
    """Repeated warnings once, with their count (a benchmark failing in every fork)."""
    counts: dict[str, int] = {}
    for warning in warnings:
        counts[warning] = counts.get(warning, 0) + 1
    return [w if n == 1 else f"{w} ({n} times)" for w, n in counts.items()]
