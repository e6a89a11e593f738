"""Writers of result formats other tools read: Laaber's ``pa`` CSV and JMH's JSON.

Pure text out: the caller decides what to write (a stored run, a file read before) and
where. Both formats hold measurement iterations only; warmup rows are left out.

``pa`` CSV (github.com/chrstphlbr/pa, README "Input Files", ``pkg/bench/csv.go``; written
by bencher's ``JMHResultPrinter.kt``): a header row, then ``;``-separated rows
``project;commit;benchmark;params;instance;trial;fork;iteration;mode;unit;value_count;value``.
``params`` is ``name=value`` joined by ``,``; trial, fork and iteration are 1-based
integers; ``mode`` is JMH's short mode (``thrpt``, ``avgt``, ``sample``); ``value_count``
is how many invocations had ``value`` (histograms), else 1. pa needs the rows of one
benchmark together and the benchmarks sorted (by name, then parameters), and it reads one
version per file (it ignores ``project`` and ``commit``). Two deliberate differences from
bencher: values are written with full precision (``repr``, which Go's ``ParseFloat`` reads)
instead of Java's six-digit ``%e``, and parameter values are written as they are, while
bencher strips their whitespace (pa itself cannot read a value holding ``,`` or ``=``;
rigorbench's reader can).

JMH JSON (``-rf json``): a list of benchmark objects with ``primaryMetric`` and
``secondaryMetrics`` (1.37 names, without the ``·`` prefix), ``rawData`` as
``[fork][iteration]`` and, in SampleTime mode, ``rawDataHistogram`` as
``[fork][iteration][[value, count], ...]``. ``scoreError`` is JMH's half width of the 99.9%
Student-t interval of the mean, ``"NaN"`` with fewer than three values, as JMH writes it.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from rigorbench.files import safe_name
from rigorbench.stats.descriptive import t_half_width
from rigorbench.formats import jmh
from rigorbench.model import ALLOC, THROUGHPUT, BenchmarkCase, SampleTable, Series

PA_HEADER = (
    "project", "commit", "benchmark", "params", "instance", "trial",
    "fork", "iteration", "mode", "unit", "value_count", "value",
)
JMH_CONFIDENCE = 0.999
_JMH_NAMES = {ALLOC: "gc.alloc.rate.norm"}  # rigorbench metric name -> JMH secondary metric name


def jmh_mode(series: Series) -> str:
    """JMH's short mode of a primary metric: thrpt for a rate, sample for a histogram (also
    in stores written before ``sample_time`` had its own name), else the one the metric's
    name says (see ``jmh.MODE_METRICS``), else avgt."""
    if series.metric.name == THROUGHPUT or series.metric.higher_is_better:
        return jmh.THROUGHPUT_MODE
    if series.samples.has_histogram:
        return "sample"
    return jmh.metric_mode(series.metric) or "avgt"


def measurement_iterations(table: SampleTable) -> np.ndarray:
    """0-based rank of each row's iteration among the measurement iterations of its fork.

    Warmup and measurement iterations may share one numbering; formats that hold
    measurements only number them from the first measurement iteration.
    """
    keys = list(zip(table.instance.tolist(), table.trial.tolist(), table.fork.tolist(), table.iteration.tolist()))
    ranks: dict[tuple, int] = {}
    per_fork: dict[tuple, int] = {}
    for key in sorted(set(keys)):
        fork = key[:3]
        ranks[key] = per_fork.get(fork, 0)
        per_fork[fork] = ranks[key] + 1
    return np.array([ranks[key] for key in keys], dtype=np.int64)


# -- pa CSV ----------------------------------------------------------------------------


def write_pa_csv(rows: Iterable[tuple[str, str, Series]], *, project: str) -> str:
    """pa's input CSV of ``(version label or commit, instance name, series)`` rows.

    Only primary metrics (pa has one metric per benchmark) and measurement iterations are
    written; non-finite values are left out. A series with several instance codes gets
    instance names ``NAME#1``, ``NAME#2``, ...
    """
    selected = [(commit, instance, s) for commit, instance, s in rows if s.metric.primary]
    selected.sort(key=lambda row: _pa_order(row[2].case))  # stable: input order within a benchmark
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\n")
    writer.writerow(PA_HEADER)
    for commit, instance, series in selected:
        writer.writerows(_pa_rows(project, commit, instance, series))
    return out.getvalue()


def _pa_order(case: BenchmarkCase) -> tuple:
    """pa's benchmark order (``bench.B.Compare``): name, number of parameters, then the pairs."""
    return case.name, len(case.params), case.params


def _pa_rows(project: str, commit: str, instance: str, series: Series):
    table = series.samples.measurement()
    table = table.select(np.isfinite(table.value))
    if not len(table):
        return
    if np.any(table.count != np.round(table.count)):
        raise ValueError(f"{series.case.display_name}: pa needs whole invocation counts")
    params = ",".join(f"{name}={value}" for name, value in series.case.params)
    mode, unit = jmh_mode(series), series.metric.unit
    several = len(np.unique(table.instance)) > 1
    iterations = measurement_iterations(table)
    for code, trial, fork, iteration, count, value in zip(
        table.instance.tolist(), table.trial.tolist(), table.fork.tolist(), iterations.tolist(),
        table.count.tolist(), table.value.tolist(),
    ):
        name = f"{instance}#{code + 1}" if several else instance
        yield (project, commit, series.case.name, params, name, trial + 1, fork + 1, iteration + 1,
               mode, unit, int(count), repr(value))


# -- JMH JSON --------------------------------------------------------------------------


def write_jmh_json(series: Sequence[Series], *, mode_by_case: Mapping | None = None) -> str:
    """A JMH ``-rf json`` document of ONE trial's series (split by trial before calling).

    One benchmark object per case, in order of first appearance; every case needs one
    primary metric. ``mode_by_case`` maps a :class:`BenchmarkCase` to JMH's short mode
    (``thrpt``, ``avgt``, ``sample``, ``ss``); by default the metric decides (:func:`jmh_mode`).
    """
    trials = {t for s in series for t in np.unique(s.samples.trial).tolist()}
    if len(trials) > 1:
        raise ValueError(f"write_jmh_json writes one trial; these series hold trials {sorted(trials)}")
    by_case: dict[BenchmarkCase, list[Series]] = {}
    for one in series:
        by_case.setdefault(one.case, []).append(one)
    modes = mode_by_case or {}
    document = [_benchmark(case, group, modes.get(case)) for case, group in by_case.items()]
    return json.dumps(document, indent=4, ensure_ascii=False) + "\n"


def _benchmark(case: BenchmarkCase, group: list[Series], mode: str | None) -> dict:
    primaries = [s for s in group if s.metric.primary]
    if len(primaries) != 1:
        raise ValueError(f"{case.display_name}: JMH JSON needs exactly one primary metric, got {len(primaries)}")
    primary = primaries[0]
    mode = mode or jmh_mode(primary)
    forks = sorted({f for s in group for f in np.unique(s.samples.measurement().fork).tolist()})
    warmup = primary.samples.select(primary.samples.warmup)
    entry: dict = {
        "benchmark": case.name,
        "mode": mode,
        "forks": len(forks),
        "warmupIterations": _iterations_per_fork(warmup),
        "measurementIterations": _iterations_per_fork(primary.samples.measurement()),
    }
    if case.params:
        entry["params"] = dict(case.params)
    histogram = mode == "sample"  # JMH writes SampleTime results as histograms only
    entry["primaryMetric"] = _metric_object(primary, forks, histogram)
    secondary: dict[str, dict] = {}
    for one in group:
        if one is primary:
            continue
        name = _JMH_NAMES.get(one.metric.name, jmh.secondary_name(one.metric.name))
        if name in secondary:
            raise ValueError(f"{case.display_name}: two secondary metrics are both named {name!r}")
        secondary[name] = _metric_object(one, forks, histogram=False)
    entry["secondaryMetrics"] = secondary
    return entry


def _iterations_per_fork(table: SampleTable) -> int:
    if not len(table):
        return 0
    return int(measurement_iterations(table).max()) + 1


def _metric_object(series: Series, forks: list[int], histogram: bool) -> dict:
    table = series.samples.measurement()
    table = table.select(np.isfinite(table.value))
    iterations = measurement_iterations(table)
    if not histogram and table.has_histogram:
        table = table.with_columns(iteration=iterations).iteration_means()
        iterations = table.iteration
    score, error = _score(table.value, table.count)
    result = {
        "score": _number(score),
        "scoreError": _number(error),
        "scoreConfidence": [_number(score - error), _number(score + error)],
        "scoreUnit": series.metric.unit,
    }
    if histogram:
        result["rawDataHistogram"] = [_fork_histogram(table, iterations, fork) for fork in forks]
    else:
        result["rawData"] = [_fork_values(table, iterations, fork) for fork in forks]
    return result


def _fork_values(table: SampleTable, iterations: np.ndarray, fork: int) -> list:
    mask = table.fork == fork
    order = np.argsort(iterations[mask], kind="stable")
    return [_number(v) for v in table.value[mask][order].tolist()]


def _fork_histogram(table: SampleTable, iterations: np.ndarray, fork: int) -> list:
    """``[iteration] -> [[value, count], ...]`` of one fork, pairs in recorded order."""
    rows = np.flatnonzero(table.fork == fork)
    ranks = iterations[rows]
    length = int(ranks.max()) + 1 if len(rows) else 0
    result = []
    for rank in range(length):
        picked = rows[ranks == rank]
        values, counts = table.value[picked].tolist(), table.count[picked].tolist()
        result.append([[_number(v), _count(c)] for v, c in zip(values, counts)])
    return result


def _score(values: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
    """Mean and JMH's 99.9% error: t(0.9995, n - 1) * sd / sqrt(n), NaN for n < 3."""
    n = float(counts.sum())
    if n == 0:
        return math.nan, math.nan
    mean = float(np.sum(values * counts) / n)
    return mean, t_half_width(values, counts, JMH_CONFIDENCE)


def _number(value: float) -> float | str:
    """A JSON number; JMH writes non-finite numbers as strings."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+INF" if value > 0 else "-INF"
    return float(value)


def _count(count: float) -> int | float:
    return int(count) if float(count).is_integer() else float(count)


EXPORT_FORMATS = ("pa-csv", "jmh-json")


def export_files(store, info, format: str, out_dir: Path) -> dict[Path, str]:
    """Stored run ``info`` of ``store`` as files under ``out_dir`` (path -> text, nothing
    written): pa CSV, one file per version (primary metrics), or JMH JSON, one per version and trial."""
    if format not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {format!r}; valid: {', '.join(EXPORT_FORMATS)}")
    files: dict[Path, str] = {}
    for version in info.versions:
        series = store.load_series(info.run_id, version.label)
        if format == "pa-csv":
            rows = [(version.commit or version.label, "instance-1", s) for s in series if s.metric.primary]
            files[out_dir / f"{_file_name('run', info.run_id, version.label)}.csv"] = write_pa_csv(rows, project=info.project)
        else:
            for trial, part in sorted(_by_trial(series).items()):
                name = _file_name("run", info.run_id, version.label, f"trial{trial + 1}")
                files[out_dir / f"{name}.json"] = write_jmh_json(part)
    return files


def _file_name(*parts: object) -> str:
    return "-".join(safe_name(p) for p in parts)


def _by_trial(series: list[Series]) -> dict[int, list[Series]]:
    trials: dict[int, list[Series]] = {}
    for s in series:
        for trial in np.unique(s.samples.trial).tolist():
            part = s.samples.select(s.samples.trial == trial)
            trials.setdefault(int(trial), []).append(Series(s.case, s.metric, part, s.version))
    return trials
