"""JMH's JSON result file (``-rf json``), any JMH version.

The document is a list with one object per benchmark (and parameter set and mode).
Measurements sit in ``primaryMetric.rawData`` as ``[fork][iteration] -> score``; in
SampleTime mode JMH writes ``rawDataHistogram`` instead, ``[fork][iteration] -> [[value,
count], ...]`` (one row per distinct sampled time, with its count). Profiler results are
``secondaryMetrics``, keyed by name (``·gc.alloc.rate.norm`` before JMH 1.37,
``gc.alloc.rate.norm`` from 1.37 on). JMH writes non-finite numbers as the strings
``"NaN"``, ``"+INF"``, ``"-INF"``. Warmup iterations are not in this file.

The list is decoded one benchmark at a time so that every error names the line where the
offending benchmark starts. Numbers beyond float range (``1e999``, an integer of 5,000
digits), nesting deeper than Python's recursion limit, negative times or throughputs, and a
benchmark case (name, mode, parameters) listed twice are input errors, never merged or
skipped: JMH writes none of them.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from typing import Callable, Iterator

import numpy as np

from rigorbench.errors import InputError
from rigorbench.formats import jmh
from rigorbench.formats.json_list import list_elements
from rigorbench.formats.collect import (
    OutOfRange, EnvironmentCollector, SeriesCollector, describe, impossible, input_error,
    out_of_range, result_file,
)
from rigorbench.model import BenchmarkCase, Metric, ResultFile, Series

_SNIFF = re.compile(r'\A\s*\[\s*(\]|\{\s*"(jmhVersion|benchmark)"\s*:)')


class JmhJsonReader:
    name = "jmh-json"
    description = "JMH -rf json"

    def sniff(self, text: str) -> bool:
        return bool(_SNIFF.match(text[:4096])) or (text.lstrip().startswith("[") and '"primaryMetric"' in text)

    def parse(self, text: str, path: str) -> ResultFile:
        parser = _Parser(path)
        for line, entry in list_elements(iter((text,)), path):
            parser.entry(entry, line)
        return result_file(path, self.name, parser.collector, parser.environment, parser.warnings)


@dataclass(frozen=True, eq=False)
class BenchmarkGroup:
    """The series of consecutive entries of one benchmark (all its parameters and modes)."""

    entries: int
    series: tuple[Series, ...]


class InterleavedBenchmarks(Exception):
    """A benchmark's entries are not all next to each other: a series handed on may not be
    whole (a case's secondary metrics gather the forks of all its modes); read the file whole."""


class JmhJsonStream:
    """One JMH JSON file read benchmark by benchmark.

    :meth:`groups` yields the series of each run of consecutive entries of one benchmark
    name (JMH writes a benchmark's parameters and modes together), then forgets them: only
    that group's values are held. A series is whole when its group is handed on, since what
    joins series (a case's modes, its allocation and GC series) is within one benchmark;
    a name seen again after its group raises :class:`InterleavedBenchmarks`. After the
    groups, :meth:`summary` is the file without its series (environment, warnings, digest),
    with the same checks and errors as reading it whole.
    """

    def __init__(self, path: str, texts: Iterator[str], digest: Callable[[], str]) -> None:
        self.path = path
        self._texts = texts
        self._digest = digest
        self._parser = _Parser(path)
        self._taken = 0
        self._done = False

    def groups(self) -> Iterator[BenchmarkGroup]:
        parser, name, entries, finished = self._parser, None, 0, set()
        for line, entry in list_elements(self._texts, self.path):
            here = entry.get("benchmark") if isinstance(entry, dict) else None
            if here != name and entries:
                yield self._take(entries)
                finished.add(name)
                entries = 0
            parser.entry(entry, line)            # the file's own errors first (a case listed twice)
            if here in finished:
                raise InterleavedBenchmarks(f"{self.path}:{line}: {here} again after other benchmarks")
            name, entries = here, entries + 1
        if entries:
            yield self._take(entries)
        self._done = True

    def _take(self, entries: int) -> BenchmarkGroup:
        series = self._parser.collector.take()
        self._taken += len(series)
        return BenchmarkGroup(entries, series)

    def summary(self) -> ResultFile:
        if not self._done:
            raise RuntimeError("summary() before all groups were read")
        parser = self._parser
        result = result_file(self.path, JmhJsonReader.name, parser.collector, parser.environment, parser.warnings,
                             taken=self._taken)
        return replace(result, digest=self._digest())


def _number(raw: object) -> float | None:
    """A JSON score as float (NaN for JMH's "NaN"/"+INF"/"-INF"); None if not a number at all."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, OutOfRange):
        return raw
    if isinstance(raw, (int, float)):
        return float(raw)
    if isinstance(raw, str):
        try:
            value = float(raw)
        except ValueError:
            return None
        return value if math.isfinite(value) else math.nan
    return None


def _param_text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


class _Parser:
    """Turns benchmark objects into rows; one instance per file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.collector = SeriesCollector()
        self.environment = EnvironmentCollector()
        self.warnings: list[str] = []
        self._forks_seen: dict[tuple[BenchmarkCase, Metric], int] = {}
        self._modes_seen: dict[tuple[BenchmarkCase, Metric], str] = {}
        self._entries_seen: dict[tuple[BenchmarkCase, str | None], int] = {}  # -> line

    def fail(self, line: int, message: str) -> InputError:
        return input_error(self.path, line, message)

    def entry(self, entry: object, line: int) -> None:
        if not isinstance(entry, dict):
            raise self.fail(line, "benchmark entry is not a JSON object")
        name = entry.get("benchmark")
        if not isinstance(name, str) or not name:
            raise self.fail(line, 'benchmark entry has no "benchmark" name')
        params = entry.get("params") or {}
        if not isinstance(params, dict):
            raise self.fail(line, f'{name}: "params" is not an object')
        case = BenchmarkCase.of("jmh", name, {str(k): _param_text(v) for k, v in params.items()})
        mode = entry.get("mode") if isinstance(entry.get("mode"), str) else None
        self._once(case, mode, line)
        self._environment(entry)

        primary = entry.get("primaryMetric")
        if not isinstance(primary, dict):
            raise self.fail(line, f'{name}: no "primaryMetric" object')
        unit = primary.get("scoreUnit")
        if not isinstance(unit, str):
            raise self.fail(line, f'{name}: primaryMetric has no "scoreUnit"')
        metric = jmh.primary_metric(mode, unit)
        if "rawDataHistogram" in primary:
            self._histogram(case, metric, primary["rawDataHistogram"], line, mode)
        elif "rawData" in primary:
            self._raw_data(case, metric, primary["rawData"], line, "primaryMetric", mode)
        else:
            self.warnings.append(f"{case.display_name}: no raw data in primaryMetric (JMH too old?); skipped")

        secondary = entry.get("secondaryMetrics") or {}
        if not isinstance(secondary, dict):
            raise self.fail(line, f'{name}: "secondaryMetrics" is not an object')
        for label, result in secondary.items():
            if not isinstance(result, dict) or not result.get("rawData") or jmh.is_sample_percentile(label, mode):
                continue  # summary-only results, or quantiles derived from the histogram
            sunit = result.get("scoreUnit")
            if not isinstance(sunit, str):
                raise self.fail(line, f'{name}: secondary metric {label!r} has no "scoreUnit"')
            smetric = jmh.secondary_metric(label, sunit)
            self._raw_data(case, smetric, result["rawData"], line, f"secondaryMetrics[{label!r}]", mode)

    def _once(self, case: BenchmarkCase, mode: str | None, line: int) -> None:
        """A case (name, parameters, mode) listed twice would count its forks twice."""
        first = self._entries_seen.get((case, mode))
        self._entries_seen[(case, mode)] = line
        if first is not None:
            raise self.fail(
                line,
                f"{case.display_name}{f' (mode {mode})' if mode else ''}: listed again "
                f"(first at line {first}); one file holds each benchmark case once",
            )

    def _value(self, case, metric, raw, line, where) -> float:
        """A score as float (NaN for JMH's non-finite strings); raises for what cannot be one."""
        value = _number(raw)
        if value is None:
            raise self.fail(line, f"{case.name}: {where} is not a number: {raw!r}"[:300])
        if isinstance(value, OutOfRange):
            raise self.fail(line, f"{case.name}: {where}: {out_of_range(value.text)}")
        problem = impossible(metric, value)
        if problem:
            raise self.fail(line, f"{case.name}: {where}: {problem}")
        return value

    def _first_fork(self, case: BenchmarkCase, metric: Metric, forks: int, mode: str | None) -> int:
        """Fork code of this entry's first fork: a case seen again (mode "all") continues."""
        key = (case, metric)
        first = self._forks_seen.get(key, 0)
        self._forks_seen[key] = first + forks
        previous = self._modes_seen.setdefault(key, mode or "?")
        if first and metric.primary and previous != (mode or "?"):
            self.warnings.append(
                f"{describe(case, metric)}: results of modes {previous} and {mode} are in one series"
            )
        return first

    def _raw_data(self, case, metric, raw, line, where, mode) -> None:
        if not isinstance(raw, list) or not all(isinstance(fork, list) for fork in raw):
            raise self.fail(line, f"{case.name}: {where}.rawData is not a list of forks")
        first = self._first_fork(case, metric, len(raw), mode)
        add = self.collector.add
        for f, fork in enumerate(raw):
            # The common case: every score a finite, non-negative float (out-of-range literals
            # decode to another type; bare NaN and Infinity literals are floats, hence the
            # finiteness check); one block for the whole fork.
            if all(type(score) is float for score in fork):
                scores = np.array(fork, dtype=np.float64)
                if scores.size == 0 or (np.isfinite(scores).all() and scores.min() >= 0):
                    self.collector.add_fork(case, metric, scores, fork=first + f)
                    continue
            for i, score in enumerate(fork):
                if type(score) is not float or score < 0:  # the common case skips the checks
                    score = self._value(case, metric, score, line, f"{where}.rawData[{f}][{i}]")
                add(case, metric, score, fork=first + f, iteration=i)

    def _histogram(self, case, metric, raw, line, mode) -> None:
        if not isinstance(raw, list) or not all(isinstance(fork, list) for fork in raw):
            raise self.fail(line, f"{case.name}: rawDataHistogram is not a list of forks")
        first = self._first_fork(case, metric, len(raw), mode)
        add = self.collector.add
        for f, fork in enumerate(raw):
            for i, iteration in enumerate(fork):
                if not isinstance(iteration, list):
                    raise self.fail(line, f"{case.name}: rawDataHistogram[{f}][{i}] is not a list")
                for pair in iteration:
                    value, count = self._histogram_pair(case, metric, pair, line, f, i)
                    add(case, metric, value, fork=first + f, iteration=i, count=count)

    def _histogram_pair(self, case, metric, pair, line, f, i) -> tuple[float, float]:
        if isinstance(pair, list) and len(pair) == 2:
            where = f"rawDataHistogram[{f}][{i}]"
            value = self._value(case, metric, pair[0], line, where)
            count = _number(pair[1])
            if count is not None and 0 < count < math.inf:
                return value, count
        raise self.fail(line, f"{case.name}: rawDataHistogram[{f}][{i}] has a bad [value, count] pair: {pair!r}")

    def _environment(self, entry: dict) -> None:
        env = self.environment
        for key, field in (("jmh_version", "jmhVersion"), ("jvm", "jvm"), ("jdk_version", "jdkVersion"),
                           ("vm_name", "vmName"), ("vm_version", "vmVersion"), ("mode", "mode"),
                           ("threads", "threads"), ("forks", "forks")):
            if entry.get(field) is not None:
                env.set(key, entry[field])
        if isinstance(entry.get("jvmArgs"), list):
            env.set("jvm_args", " ".join(map(str, entry["jvmArgs"])) or "<none>")
        for key, prefix in (("warmup", "warmup"), ("measurement", "measurement")):
            iterations = entry.get(f"{prefix}Iterations")
            if isinstance(iterations, int):
                time = entry.get(f"{prefix}Time", "?")
                batch = entry.get(f"{prefix}BatchSize", 1)
                env.set(key, jmh.iterations_text(iterations, str(time), batch if isinstance(batch, int) else 1))
