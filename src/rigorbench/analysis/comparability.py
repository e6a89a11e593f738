"""Whether two versions' data measure the same thing, and the unit conversions that make them so.

A ratio of two scores means something only when both measure the same thing: the same
benchmark mode (JMH's SampleTime is not AverageTime), the same parameters, in units of one
dimension (ns/op against us/op is one metric, converted), and under the run settings that
change what a score is (JMH's warmup, iteration time, threads, blackhole mode, JVM and its
options, JMH's version; Go's platform, CPU and GOMAXPROCS). Amounts of data (forks, the
number of measurement iterations) change how sure a verdict is, not what is measured, and
are not checked here.

Result files carry their settings per file (a value that differs between a file's
benchmarks is recorded as ``a | b``), so two files disagree on a setting when neither's set
of values contains the other's: a file of fewer benchmarks is not a mismatch by itself.
Stored runs are not checked: one experiment ran both versions with one configuration, and
what it varied on purpose (a JDK per version) is what the user asked to compare.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterable, Mapping

from rigorbench.errors import InputError
from rigorbench.model import BenchmarkCase, Metric, ResultFile, SampleTable
from rigorbench.units import unit_factor

SeriesKey = tuple[BenchmarkCase, Metric]

# Recorded settings that change what a score is: key -> how a message names it.
MEASURED_SETTINGS = {
    "warmup": "warmup",
    "measurement": "measurement iteration time",
    "threads": "threads",
    "blackhole_mode": "blackhole mode",
    "jvm_args": "JVM options",
    "vm_name": "JVM",
    "vm_version": "JVM version",
    "jdk_version": "JDK version",
    "jmh_version": "JMH version",
    "goos": "GOOS",
    "goarch": "GOARCH",
    "cpu": "CPU",
    "gomaxprocs": "GOMAXPROCS",
}
_ITERATION_COUNT = re.compile(r"^\d+ iterations?, ")


@dataclass(frozen=True)
class Mismatch:
    """One way the two sides do not measure the same thing."""

    kind: str          # "mode" | "params" | "setting"
    subject: str       # the benchmark, or the setting's name
    baseline: str
    contender: str

    @property
    def message(self) -> str:
        return f"{self.subject}: baseline {self.baseline}, contender {self.contender}"


def setting_values(key: str, text: str) -> frozenset[str]:
    """The values a file records for a setting; the measurement's iteration count is left
    out (it changes how much was measured, not what)."""
    values = [v.strip() for v in text.split(" | ")]
    if key == "measurement":
        values = [_ITERATION_COUNT.sub("", v) for v in values]
    return frozenset(values)


def _disagree(a: frozenset[str], b: frozenset[str]) -> bool:
    return not (a <= b or b <= a)


def setting_mismatches(baseline: Mapping[str, str], contender: Mapping[str, str]) -> list[Mismatch]:
    """Measured settings both sides recorded with values that disagree."""
    found = []
    for key, name in MEASURED_SETTINGS.items():
        if key in baseline and key in contender:
            a, b = setting_values(key, baseline[key]), setting_values(key, contender[key])
            if _disagree(a, b):
                found.append(Mismatch("setting", name, " | ".join(sorted(a)), " | ".join(sorted(b))))
    return found


# -- one side's files -------------------------------------------------------------------------


def check_side(files: list[ResultFile]) -> None:
    """Files given for one version must be trials of one configuration: the same version (or
    commit, where a file records one), the
    same mode per benchmark, and the same measured settings where two files hold a benchmark
    in common (a suite run one benchmark per file may set each its own); else an input error
    names two of them."""
    version: tuple[str, str] | None = None
    commit: tuple[str, str] | None = None
    first_of: dict = {}                           # case -> the first file that holds it
    for result in files:
        versions = sorted({s.version for s in result.series if s.version is not None})
        if len(versions) == 1:  # several in one file are its reader's error
            version = version or (versions[0], result.path)
            _same(result, "the version", version, versions[0])
        if result.environment.get("commit"):  # a Go file's "commit: ..." configuration line
            commit = commit or (result.environment["commit"], result.path)
            _same(result, "the commit", commit, result.environment["commit"])
        earlier = {}
        for series in result.series:
            owner = first_of.setdefault(series.case, result)
            if owner is not result:
                earlier[owner.path] = owner
        for other in earlier.values():
            _same_configuration(result, other)


def _same_configuration(result: ResultFile, other: ResultFile) -> None:
    modes = {s.case: s.metric for s in other.series if s.metric.primary}
    for series in result.series:
        if series.metric.primary and series.case in modes and modes[series.case].name != series.metric.name:
            what = f"the mode of {series.case.display_name}"
            _same(result, what, (_mode_name(modes[series.case]), other.path), _mode_name(series.metric))
    for key, name in MEASURED_SETTINGS.items():
        if key in result.environment and key in other.environment:
            here, there = result.environment[key], other.environment[key]
            if _disagree(setting_values(key, here), setting_values(key, there)):
                _same(result, f"the {name}", (there, other.path), here)


def _same(result: ResultFile, what: str, seen: tuple[str, str], value: str) -> None:
    if seen[0] != value:
        raise InputError(
            result.path, None,
            f"disagrees with {seen[1]} on {what} ({value} here, {seen[0]} there); "
            "the files of one version must be trials of one configuration",
        )


# -- units --------------------------------------------------------------------------------------


def _metric_family(metric: Metric) -> tuple[str, bool, bool]:
    return metric.name, metric.higher_is_better, metric.primary


def unify_units(series: Mapping[SeriesKey, SampleTable]) -> dict[SeriesKey, SampleTable]:
    """Series of one case and metric recorded in different units of one dimension (files
    of one side, some in us/op and some in ns/op) become one series in the first unit seen."""
    target: dict[tuple, Metric] = {}
    merged: dict[SeriesKey, list[SampleTable]] = {}
    for (case, metric), table in series.items():
        unit_of = target.setdefault((case, *_metric_family(metric)), metric)
        factor = unit_factor(metric.unit, unit_of.unit)
        key = (case, unit_of) if factor is not None else (case, metric)
        merged.setdefault(key, []).append(_scaled(table, factor))
    return {key: parts[0] if len(parts) == 1 else SampleTable.concat(parts) for key, parts in merged.items()}


def _scaled(table: SampleTable, factor: float | None) -> SampleTable:
    if factor is None or factor == 1.0:
        return table
    return table.with_columns(value=table.value * factor)


def to_baseline_units(
    baseline: Mapping[SeriesKey, SampleTable], contender: Mapping[SeriesKey, SampleTable]
) -> tuple[dict[SeriesKey, SampleTable], list[Mismatch]]:
    """The contender's series in the baseline's units and, where a benchmark's primary score
    was measured in another mode on each side, under the baseline's metric (so that, when
    the user insists, they are compared) with the mismatch that says so."""
    families = {(case, *_metric_family(metric)): metric for case, metric in baseline}
    primary = _primary_by_case(baseline)
    converted: dict[SeriesKey, SampleTable] = {}
    mismatches: list[Mismatch] = []
    for (case, metric), table in contender.items():
        target = families.get((case, *_metric_family(metric)))
        if target is None and metric.primary and case in primary and primary[case].name != metric.name:
            base = primary[case]
            mismatches.append(Mismatch("mode", case.display_name, _mode_name(base), _mode_name(metric)))
            if base.higher_is_better == metric.higher_is_better:
                target = base
        factor = unit_factor(metric.unit, target.unit) if target is not None else None
        key = (case, target) if factor is not None else (case, metric)
        converted[key] = _scaled(table, factor)
    return converted, mismatches


def in_baseline_terms(baseline, contender):
    """The contender's dataset with its series as :func:`to_baseline_units` gives them (for
    the report, which draws both versions of a benchmark on one axis)."""
    series, _ = to_baseline_units(baseline.series, contender.series)
    return replace(contender, series=series)


def _primary_by_case(series: Iterable[SeriesKey]) -> dict[BenchmarkCase, Metric]:
    found: dict[BenchmarkCase, Metric] = {}
    for case, metric in series:
        if metric.primary:
            found.setdefault(case, metric)
    return found


def _mode_name(metric: Metric) -> str:
    from rigorbench.formats import jmh

    mode = jmh.metric_mode(metric)
    return f"{mode} ({metric.name})" if mode else metric.name


# -- parameters ------------------------------------------------------------------------------


def param_mismatches(baseline: Iterable[BenchmarkCase], contender: Iterable[BenchmarkCase]) -> list[Mismatch]:
    """Benchmarks both sides ran, but with no parameter set in common (a @Param renamed,
    added or given other values): nothing of them can be compared."""
    base_params, cont_params = _params_by_name(baseline), _params_by_name(contender)
    found = []
    for name in base_params.keys() & cont_params.keys():
        a, b = base_params[name], cont_params[name]
        if a.isdisjoint(b):
            found.append(Mismatch("params", name, _describe_params(a), _describe_params(b)))
    return sorted(found, key=lambda m: m.subject)


def _params_by_name(cases: Iterable[BenchmarkCase]) -> dict[str, set]:
    found: dict[str, set] = {}
    for case in cases:
        found.setdefault(case.name, set()).add(case.params)
    return found


def _describe_params(sets: set) -> str:
    shown = sorted("{" + ",".join(f"{k}={v}" for k, v in params) + "}" for params in sets)
    more = f" and {len(shown) - 3} more" if len(shown) > 3 else ""
    return ", ".join(shown[:3]) + more
