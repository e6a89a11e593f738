"""The Go benchmark format (``go test -bench`` output; golang.org/x/perf's benchfmt).

Two kinds of lines matter, everything else (``PASS``, ``ok``, test logs) is ignored:

- configuration ``key: value`` (``goos``, ``goarch``, ``pkg``, ``cpu``, ...), valid for the
  benchmarks that follow until the key is set again;
- results ``BenchmarkName/sub=1-8  1000  1234 ns/op  56 B/op  2 allocs/op``: the name with
  its ``-GOMAXPROCS`` suffix, the iteration count, then value/unit pairs;
- unit metadata ``Unit frames/op better=higher`` (the Go benchmark format proposal): a unit
  declared ``better=higher`` or ``better=lower`` is read that way wherever it appears in the
  file; otherwise ``MB/s`` and any ``*/s`` unit are higher-is-better, the rest lower.

A value beyond float range, or a negative value of a known unit (``ns/op``, ``B/op``,
``allocs/op``, ``MB/s``), is an input error naming the line. Sub-benchmark segments ``key=value`` become parameters; other segments stay in the name.
Each result line of one benchmark (``-count N``) is one iteration of fork 0. When a file
mixes packages or GOMAXPROCS values, ``pkg`` / ``gomaxprocs`` become parameters as well, so
that different configurations never share a series.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from rigorbench.formats.collect import EnvironmentCollector, SeriesCollector, input_error, out_of_range, result_file
from rigorbench.model import ALLOC, TIME, BenchmarkCase, Metric, ResultFile

_CONFIG = re.compile(r"([a-z][^\sA-Z:]*):(?:[ \t]+(.*))?")
_PROCS = re.compile(r"(.+)-(\d+)")
_SNIFF = re.compile(r"^(Benchmark[^\sa-z]\S*[ \t]+\d+[ \t]+\S+[ \t]+\S+|(goos|goarch|pkg): \S)", re.M)

_NON_FINITE = ("nan", "inf", "infinity")
_KNOWN_UNITS = {
    "ns/op": Metric(TIME, "ns/op", higher_is_better=False, primary=True),
    "B/op": Metric(ALLOC, "B/op", higher_is_better=False),
    "allocs/op": Metric("allocs", "allocs/op", higher_is_better=False),
    "MB/s": Metric("MB/s", "MB/s", higher_is_better=True),
}


def unit_metric(unit: str, higher_is_better: bool | None = None) -> Metric:
    """``ns/op`` is the primary ``time``; other units name their own metric, higher-is-better
    as declared (a ``Unit`` line's ``better=``) or, undeclared, when it is a rate (``*/s``)."""
    known = _KNOWN_UNITS.get(unit)
    if known is not None and (higher_is_better is None or higher_is_better == known.higher_is_better):
        return known
    if higher_is_better is None:
        higher_is_better = unit.endswith("/s")
    return Metric(known.name if known else unit, unit, higher_is_better=higher_is_better, primary=bool(known and known.primary))


def split_name(full: str) -> tuple[str, dict[str, str], str]:
    """``BenchmarkSum/size=100/fast-8`` -> (``BenchmarkSum/fast``, {size: 100}, ``"8"``).

    Go omits the suffix when GOMAXPROCS is 1.
    """
    match = _PROCS.fullmatch(full)
    base, procs = (match.group(1), match.group(2)) if match else (full, "1")
    segments = base.split("/")
    kept, params = [segments[0]], {}
    for segment in segments[1:]:
        key, sep, value = segment.partition("=")
        if sep and key:
            params[key] = value
        else:
            kept.append(segment)
    return "/".join(kept), params, procs


def is_benchmark_line(line: str) -> bool:
    """benchfmt: ``Benchmark`` followed by end of name or a character that is not lower case."""
    return line.startswith("Benchmark") and (len(line) == 9 or not line[9].islower())


@dataclass(frozen=True)
class _Result:
    name: str
    params: tuple[tuple[str, str], ...]
    procs: str
    pkg: str
    values: tuple[tuple[str, float], ...]


class GoBenchReader:
    name = "go"
    description = "go test -bench output"

    def sniff(self, text: str) -> bool:
        return bool(_SNIFF.search(text))

    def parse(self, text: str, path: str) -> ResultFile:
        environment = EnvironmentCollector()
        warnings: list[str] = []
        results: list[_Result] = []
        better: dict[str, bool] = {}
        pkg = ""
        for number, raw in enumerate(text.split("\n"), 1):
            line = raw.rstrip("\r")
            if line.startswith("--- FAIL: Benchmark"):   # b.Fatal without -v: the name after FAIL
                warnings.append(f"benchmark {line.split()[2]} failed")
                continue
            if is_benchmark_line(line):
                result = _parse_result(line, number, path, pkg, warnings)
                if result is not None:
                    results.append(result)
                    environment.set("gomaxprocs", result.procs)
                continue
            if line.startswith("Unit ") or line.startswith("Unit\t"):
                _unit_line(line, number, path, better)
                continue
            match = _CONFIG.fullmatch(line)
            if match and match.group(2):
                key, value = match.group(1), match.group(2).strip()
                environment.set(key, value)
                if key == "pkg":
                    pkg = value
        return result_file(path, self.name, _collect(results, better), environment, warnings)


def _parse_result(line: str, number: int, path: str, pkg: str, warnings: list[str]) -> _Result | None:
    fields = line.split()
    if len(fields) == 1:
        return None  # "BenchmarkX" alone: the name printed by -v before the result
    if fields[1].startswith("---"):
        if fields[1] == "---" and len(fields) > 2 and fields[2].startswith("FAIL"):
            warnings.append(f"benchmark {fields[0]} failed")
        return None
    if not fields[1].isdigit():
        raise input_error(path, number, f"malformed benchmark line: iteration count {fields[1]!r} is not an integer")
    pairs = fields[2:]
    if not pairs or len(pairs) % 2:
        raise input_error(
            path, number, f"malformed benchmark line: expected value/unit pairs after the iteration count, got {len(pairs)} fields"
        )
    values = [(unit, _value(value, unit, path, number)) for value, unit in zip(pairs[::2], pairs[1::2])]
    name, params, procs = split_name(fields[0])
    return _Result(name, tuple(params.items()), procs, pkg, tuple(values))


def _value(text: str, unit: str, path: str, number: int) -> float:
    """A result value; NaN and ±Inf as Go prints them are kept (and later skipped)."""
    try:
        value = float(text)
    except ValueError:
        raise input_error(path, number, f"malformed benchmark line: {text[:40]!r} is not a number") from None
    if not math.isfinite(value) and text.lstrip("+-").lower() not in _NON_FINITE:
        raise input_error(path, number, f"malformed benchmark line: {out_of_range(text)}")
    if value < 0 and unit in _KNOWN_UNITS:
        raise input_error(path, number, f"negative value {text} {unit}: a {unit} value cannot be negative")
    return value


def _unit_line(line: str, number: int, path: str, better: dict[str, bool]) -> None:
    """``Unit UNIT key=value ...``: keeps ``better=higher|lower``; other keys (``assume=``) are not used here."""
    fields = line.split()
    if len(fields) < 2:
        raise input_error(path, number, "malformed Unit line: expected 'Unit UNIT key=value ...'")
    for pair in fields[2:]:
        key, sep, value = pair.partition("=")
        if not sep:
            raise input_error(path, number, f"malformed Unit line: {pair[:40]!r} is not key=value")
        if key == "better":
            if value not in ("higher", "lower"):
                raise input_error(path, number, f"Unit {fields[1]}: better={value[:20]!r}, expected better=higher or better=lower")
            better[fields[1]] = value == "higher"


def _collect(results: list[_Result], better: dict[str, bool] | None = None) -> SeriesCollector:
    """One iteration per result line; pkg/gomaxprocs become parameters where they vary."""
    mixed_pkg = len({r.pkg for r in results}) > 1
    mixed_procs = len({r.procs for r in results}) > 1
    collector = SeriesCollector()
    seen: dict[BenchmarkCase, int] = {}
    for result in results:
        params = dict(result.params)
        if mixed_pkg:
            params["pkg"] = result.pkg
        if mixed_procs:
            params["gomaxprocs"] = result.procs
        case = BenchmarkCase.of("go", result.name, params)
        iteration = seen.get(case, 0)
        seen[case] = iteration + 1
        for unit, value in result.values:
            collector.add(case, unit_metric(unit, (better or {}).get(unit)), value, iteration=iteration)
    return collector
