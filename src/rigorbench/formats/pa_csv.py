"""The input CSV of Laaber's ``pa`` tool (github.com/chrstphlbr/pa), as ``bencher`` writes it.

``;``-separated, 12 columns, a header row first::

    project;commit;benchmark;params;instance;trial;fork;iteration;mode;unit;value_count;value

``params`` is ``name=value,name=value`` (JMH ``@Param`` values, which may themselves hold
commas: a comma only separates parameters where a ``name=`` follows). ``instance`` is a
free machine name; ``trial``, ``fork``, ``iteration`` are integers (bencher writes them
1-based); ``mode`` is JMH's short mode (``thrpt``, ``avgt``, ``sample``, ``ss``);
``value_count`` is how many invocations had ``value`` (SampleTime histograms), else 1.
bencher formats values with Java's ``%e``, which uses a decimal comma in some locales.

``commit`` becomes :attr:`Series.version`. Instance names get 0-based codes in order of
appearance in the file (listed in the environment as ``instances``); trial, fork and
iteration numbers become 0-based codes by subtracting the smallest number of that column in
the file.
"""

from __future__ import annotations

import csv
import io
import math
import re

import numpy as np

from rigorbench.errors import InputError
from rigorbench.formats import jmh
from rigorbench.formats.collect import EnvironmentCollector, SeriesCollector, input_error, impossible, out_of_range, result_file
from rigorbench.model import BenchmarkCase, Metric, ResultFile, SampleTable

HEADER = ("project", "commit", "benchmark", "params", "instance", "trial", "fork", "iteration", "mode", "unit", "value_count", "value")
_MAX_LEVEL = 2**31 - 1  # trial, fork and iteration numbers
_MAX_COUNT = 2**53  # value_count: exact as a float
_PARAM_START = re.compile(r",(?=[^,=]+=)")
_DATA_ROW = re.compile(r"[^;\n]*;[^;\n]*;[^;\n]+;[^;\n]*;[^;\n]*;\s*\d+\s*;\s*\d+\s*;\s*\d+\s*;[^;\n]*;[^;\n]*;\s*\d+\s*;[^;\n]+")


class PaCsvReader:
    name = "pa-csv"
    description = "pa CSV"

    def sniff(self, text: str) -> bool:
        first = next((line.strip() for line in text[:65536].split("\n") if line.strip()), "")
        if [f.strip().lower() for f in first.split(";")] == list(HEADER):
            return True
        return bool(_DATA_ROW.fullmatch(first))

    def parse(self, text: str, path: str) -> ResultFile:
        rows = csv.reader(io.StringIO(text, newline=""), delimiter=";", quotechar='"')
        records, lines = [], []
        first = True
        for record in rows:
            if not record or (len(record) == 1 and not record[0].strip()):
                continue
            if first and [f.strip().lower() for f in record] == list(HEADER):
                first = False
                continue
            first = False
            records.append(record)
            lines.append(rows.line_num)
        fast = _columnwise(records, path, self.name)
        if fast is not None:
            return fast
        parser = _RowParser(path)
        for record, line in zip(records, lines):
            parser.row(record, line)
        return parser.result(self.name)


def parse_params(text: str) -> dict[str, str]:
    """``"a=1,b=x,y"`` -> ``{"a": "1", "b": "x,y"}`` (a comma splits only before ``name=``)."""
    params = {}
    for part in _PARAM_START.split(text.strip()) if text.strip() else ():
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"parameter {part!r} is not name=value")
        params[key.strip()] = value
    return params


class _RowParser:
    """Rows of one file; cases, metrics and instance codes are cached by their raw text."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.records: list[tuple] = []
        self.cases: dict[tuple[str, str], BenchmarkCase] = {}
        self.metrics: dict[tuple[str, str], Metric] = {}
        self.instances: dict[str, int] = {}
        self.projects: dict[str, None] = {}

    def fail(self, line: int, message: str) -> InputError:
        return input_error(self.path, line, message)

    def row(self, record: list[str], line: int) -> None:
        if len(record) != len(HEADER):
            raise self.fail(line, f"expected {len(HEADER)} ';'-separated fields, got {len(record)}")
        project, commit, benchmark, params, instance, trial, fork, iteration, mode, unit, count, value = record
        case = self.cases.get((benchmark, params))
        if case is None:
            case = self.cases[(benchmark, params)] = benchmark_case(benchmark, params, self.path, line)
        metric = self.metrics.get((mode, unit))
        if metric is None:
            metric = self.metrics[(mode, unit)] = _metric(mode.strip(), unit.strip())
        code = self.instances.get(instance)
        if code is None:
            code = self.instances[instance] = len(self.instances)
            self.projects[project.strip()] = None
        levels = [self._level(column, text, line) for column, text in (("trial", trial), ("fork", fork), ("iteration", iteration))]
        if not _is_int(count) or not 1 <= int(count) <= _MAX_COUNT:
            raise self.fail(line, f"value_count must be an integer from 1 to {_MAX_COUNT}, got {count.strip()[:40]!r}")
        self.records.append((commit.strip() or None, case, metric, code, *levels, int(count), self._value(metric, value, line)))

    def _level(self, column: str, text: str, line: int) -> int:
        if not _is_int(text) or not 0 <= int(text) <= _MAX_LEVEL:
            raise self.fail(line, f"{column} must be an integer from 0 to {_MAX_LEVEL}, got {text.strip()[:40]!r}")
        return int(text)

    def _value(self, metric: Metric, text: str, line: int) -> float:
        number = _number(text.strip())
        if number is None:
            raise self.fail(line, f"value {text.strip()[:40]!r} is not a number")
        if not math.isfinite(number) and text.strip().lstrip("+-").lower() not in ("nan", "infinity", "inf"):
            raise self.fail(line, out_of_range(text.strip()))
        problem = impossible(metric, number)
        if problem:
            raise self.fail(line, problem)
        return number

    def result(self, format: str) -> ResultFile:
        collector = SeriesCollector()
        records = self.records
        if records:
            base_trial = min(r[4] for r in records)
            base_fork = min(r[5] for r in records)
            base_iteration = min(r[6] for r in records)
            add = collector.add
            for version, case, metric, code, trial, fork, iteration, count, value in records:
                add(case, metric, value, instance=code, trial=trial - base_trial, fork=fork - base_fork,
                    iteration=iteration - base_iteration, count=float(count), version=version)
        return result_file(self.path, format, collector, _environment(self.projects, self.instances), [])


def benchmark_case(benchmark: str, params: str, path: str, line: int) -> BenchmarkCase:
    """A row's benchmark case; an empty name or a malformed ``params`` is an input error."""
    if not benchmark.strip():
        raise input_error(path, line, "empty benchmark name")
    try:
        return BenchmarkCase.of("jmh", benchmark.strip(), parse_params(params))
    except ValueError as error:
        raise input_error(path, line, str(error)) from None


def _columnwise(records: list[list[str]], path: str, format: str) -> ResultFile | None:
    """The file read a column at a time with numpy (pa files hold one row per iteration:
    several times faster than row by row), when every row is well formed; None sends it
    down the row-by-row path, which names the line of whatever is wrong."""
    if not records or any(len(record) != len(HEADER) for record in records):
        return None
    project, commit, benchmark, params, instance, trial, fork, iteration, mode, unit, count, value = map(list, zip(*records))
    try:
        levels = np.array([trial, fork, iteration], dtype=np.int64)
        counts = np.array(count, dtype=np.int64)
        values = np.array(value, dtype=np.float64)
    except (ValueError, OverflowError):
        return None
    if levels.min() < 0 or levels.max() > _MAX_LEVEL or counts.min() < 1 or counts.max() > _MAX_COUNT:
        return None
    if not np.all(np.isfinite(values)) or values.min() < 0:
        return None   # non-finite values are counted and negative ones refused, row by row
    raw_keys = list(zip(commit, benchmark, params, mode, unit))
    try:
        series_of = {raw: _series_key(raw, path) for raw in dict.fromkeys(raw_keys)}
    except InputError:
        return None
    ids: dict[tuple, int] = {}   # (version, case, metric) -> its number, in first-seen order
    group = np.fromiter((ids.setdefault(series_of[raw], len(ids)) for raw in raw_keys), dtype=np.int64, count=len(raw_keys))
    codes: dict[str, int] = {}
    projects: dict[str, None] = {}
    for name, text in zip(project, instance):
        if text not in codes:
            codes[text] = len(codes)
            projects[name.strip()] = None
    instance_code = np.array([codes[text] for text in instance], dtype=np.int64)
    levels -= levels.min(axis=1, keepdims=True)
    collector = SeriesCollector()
    order = np.argsort(group, kind="stable")
    for (version, case, metric), rows in zip(ids, np.split(order, np.flatnonzero(np.diff(group[order])) + 1)):
        collector.add_table(case, metric, SampleTable(
            instance=instance_code[rows], trial=levels[0, rows], fork=levels[1, rows], iteration=levels[2, rows],
            warmup=np.zeros(rows.size, dtype=bool), value=values[rows], count=counts[rows].astype(np.float64),
        ), version)
    return result_file(path, format, collector, _environment(projects, codes), [])


def _environment(projects, instances) -> EnvironmentCollector:
    """The file's projects and instance names (in order of appearance); nothing for no rows."""
    environment = EnvironmentCollector()
    for name in projects:
        if name:
            environment.set("project", name)
    if instances:
        environment.set("instances", ", ".join(text.strip() for text in instances))
    return environment


def _series_key(raw: tuple[str, str, str, str, str], path: str) -> tuple:
    commit, benchmark, params, mode, unit = raw
    case = benchmark_case(benchmark, params, path, 0)
    return commit.strip() or None, case, _metric(mode.strip(), unit.strip())


def _is_int(text: str) -> bool:
    if len(text.strip()) > 18:  # beyond every limit below; int() refuses 4,300 digits
        return False
    try:
        int(text)
    except ValueError:
        return False
    return True


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return float(text.replace(",", ".")) if text.count(",") == 1 and "." not in text else None
    except ValueError:
        return None


def _metric(mode: str, unit: str) -> Metric:
    return jmh.primary_metric(jmh.mode_from_label(mode) if mode else None, unit)
