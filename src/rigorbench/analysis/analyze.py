"""Turn one version's data into results: a summary and diagnostics per benchmark and metric.

Shipilev (``shared/reference/002``): "what you have in your tables is data, not results;
data becomes results when you analyze why the data is the way it is." For each benchmark
case this module computes the summary (mean and median with hierarchical bootstrap CIs, the
relative CI width that Laaber et al. use as their stability measure), the variability by
level, the steady state of every fork against the configured warmup, modes, outliers, the
coincidence of slow iterations with GC or JIT compilation, drift, and plausibility checks;
``analysis.diagnostics`` turns those figures into ``{code, severity, message, hint}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from rigorbench import parallel
from rigorbench.analysis import diagnostics as diag
from rigorbench.analysis.comparability import unify_units
from rigorbench.analysis.compare import series_seed
from rigorbench.analysis.dataset import Dataset, Observations, iteration_observations
from rigorbench.analysis.forks import SteadyResult, select_steady, steady_report
from rigorbench.analysis.settings import Settings
from rigorbench.cpus import usable_cpus
from rigorbench.model import ALLOC, BenchmarkCase, Diagnostic, Metric, Quantity, SampleTable
from rigorbench.stats import ConfidenceInterval, hierarchical_bootstrap, percentiles
from rigorbench.stats.grouping import unique_rows
from rigorbench.stats.variability import Variability, variability_by_level

PERCENTILES = (1, 5, 25, 50, 75, 95, 99)
# Per-iteration event metrics that slow iterations are checked against (JMH -prof gc/comp).
EVENT_METRICS = ("gc.count", "gc.time", "compiler.time.total", "compiler.time.profiled")


@dataclass(frozen=True, eq=False)
class BenchmarkAnalysis:
    case: BenchmarkCase
    metric: Metric
    n: int
    forks: int
    trials: int
    instances: int
    mean: ConfidenceInterval
    median: ConfidenceInterval
    minimum: float
    maximum: float
    percentiles: dict[int, float]
    variability: Variability | None
    steady: SteadyResult
    alloc: Quantity | None                   # mean allocation per op
    removed_outliers: int
    steady_only: bool
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def rciw(self) -> float:
        """Relative CI width of the mean (Laaber et al.'s stability measure)."""
        return (self.mean.high - self.mean.low) / abs(self.mean.estimate) if self.mean.estimate else float("inf")

    @property
    def cv(self) -> float | None:
        return None if self.variability is None else self.variability.total


@dataclass(frozen=True, eq=False)
class AnalysisResult:
    label: str
    settings: Settings
    benchmarks: tuple[BenchmarkAnalysis, ...]
    sources: tuple[str, ...] = ()
    input_warnings: tuple[str, ...] = ()
    environments: tuple = field(default_factory=tuple)

    def fails(self, fail_on: str) -> bool:
        if fail_on == "never":
            return False
        return any(d.severity >= fail_on for b in self.benchmarks for d in b.diagnostics)


def analyze_dataset(
    dataset: Dataset, settings: Settings, progress: Callable[[int, int], None] | None = None,
    jobs: int | None = None,
) -> AnalysisResult:
    """Analyze every (case, metric) the settings ask for, in the dataset's order.

    One series at a time: what a series needs besides its own table is looked up in an
    index made once, and only its summary is kept (each fork's identity, warmup count and
    steady state, not a copy of its values: those stay in ``dataset``), so that the results
    of a large suite add little to the data. ``progress(done, total)`` is called after each
    series analysed. ``jobs``: processes to analyse series on (default: every CPU for many
    series, see ``rigorbench.parallel``); the results are the same for any number.
    """
    wanted = [(case, metric) for case, metric in dataset.series
              if settings.wants_metric(metric) and metric.name not in EVENT_METRICS]
    inputs = CaseInputs.of(dataset)
    cycle_ns = diag.clock_cycle_ns(dataset.environments)
    work = [_SeriesWork(case, metric, dataset.series[(case, metric)], settings, *inputs.of_case(case), cycle_ns)
            for case, metric in wanted]
    workers = parallel.workers_for(len(work), jobs)
    # Small inputs: series side by side on threads (numpy, scipy and the bootstrap's own threads
    # release the GIL part of the time); large ones: on processes. Results come back in the
    # dataset's order.
    threads = jobs is None and workers == 1
    results = []
    outcomes = parallel.ordered_map(_analyze_work, work, usable_cpus() if threads else workers, threads=threads)
    for done, analysis in enumerate(outcomes, 1):
        if analysis is not None:
            results.append(analysis)
        if progress is not None:
            progress(done, len(work))
    return AnalysisResult(
        dataset.label, settings, tuple(results), dataset.sources, dataset.warnings, tuple(dataset.environments),
    )


def analyze_stream(stream, label: str, settings: Settings, progress: Callable[[int, int], None] | None = None,
                   jobs: int | None = None, expected: int = 0) -> AnalysisResult:
    """What :func:`analyze_dataset` gives for the file of a :class:`~rigorbench.formats.jmh_json.JmhJsonStream`
    (the same results, in the same order), analysing each benchmark's series while the file
    is read on: at most a few series' values are held at once (a worker's, and those read
    ahead for the next), so that memory does not grow with the suite.

    ``expected``: the number of series to analyse as counted before reading (one per
    benchmark, a cheap count of the file's entries); it chooses the workers as
    :func:`analyze_dataset` does and is the total ``progress`` shows until the true total is
    known, at the end."""
    workers = parallel.workers_for(max(expected, 1), jobs)
    threads = jobs is None and workers == 1
    work = (item for group in stream.groups() for item in _group_work(group.series, settings))
    results, done = [], 0
    for done, analysis in enumerate(parallel.ordered_stream(
            _analyze_work, work, usable_cpus() if threads else workers, window=4 * workers, threads=threads), 1):
        if analysis is not None:
            results.append(analysis)
        if progress is not None and done < expected:  # the count reached: the end is known only at the end
            progress(done, expected)
    source = stream.summary()
    if progress is not None and done:
        progress(done, done)
    return AnalysisResult(label, settings, tuple(results), (source.path,),
                          tuple(f"{source.path}: {w}" for w in source.warnings), (dict(source.environment),))


def _group_work(series, settings: Settings) -> list["_SeriesWork"]:
    """The work of one benchmark's series (as :func:`analyze_dataset` makes it for all);
    JMH JSON records no CPU clock (``cpu_max_mhz``), so the clock cycle is not known."""
    tables = unify_units({(s.case, s.metric): s.samples for s in series})
    inputs = CaseInputs.of_series(tables)
    return [_SeriesWork(case, metric, table, settings, *inputs.of_case(case), None)
            for (case, metric), table in tables.items()
            if settings.wants_metric(metric) and metric.name not in EVENT_METRICS]


@dataclass(frozen=True, eq=False)
class _SeriesWork:
    """What analysing one series takes (sent whole to a worker process)."""

    case: BenchmarkCase
    metric: Metric
    table: SampleTable
    settings: Settings
    events: dict[str, SampleTable]
    alloc: tuple[Metric, SampleTable] | None
    cycle_ns: float | None


def _analyze_work(w: _SeriesWork) -> BenchmarkAnalysis | None:
    analysis = analyze_series(w.case, w.metric, w.table, w.settings, events=w.events, alloc=w.alloc, cycle_ns=w.cycle_ns)
    return None if analysis is None else _without_fork_values(analysis)


def _without_fork_values(analysis: BenchmarkAnalysis) -> BenchmarkAnalysis:
    """The analysis without its copy of every fork's values and row numbers (16 bytes per
    iteration: 160 MB for a suite of 10 M iterations); the renderers of a dataset's analysis
    need only each fork's identity, warmup count and steady state."""
    empty = np.empty(0)
    forks = tuple(replace(f, values=empty, rows=empty.astype(np.intp)) for f in analysis.steady.forks)
    return replace(analysis, steady=replace(analysis.steady, forks=forks))


@dataclass(frozen=True, eq=False)
class CaseInputs:
    """What each case recorded besides its scores: the GC and JIT event series by name, and
    the allocation per op series (JMH -prof gc) if any; indexed once per dataset, so that a
    suite of many cases is not searched once per case."""

    events: Mapping[BenchmarkCase, dict[str, SampleTable]]
    alloc: Mapping[BenchmarkCase, tuple[Metric, SampleTable]]

    @classmethod
    def of(cls, dataset: Dataset) -> "CaseInputs":
        return cls.of_series(dataset.series)

    @classmethod
    def of_series(cls, series: Mapping[tuple[BenchmarkCase, Metric], SampleTable]) -> "CaseInputs":
        events: dict[BenchmarkCase, dict[str, SampleTable]] = {}
        alloc: dict[BenchmarkCase, tuple[Metric, SampleTable]] = {}
        for (case, metric), table in series.items():
            if metric.name in EVENT_METRICS:
                events.setdefault(case, {})[metric.name] = table
            elif metric.name == ALLOC:
                alloc.setdefault(case, (metric, table))
        return cls(events, alloc)

    def of_case(self, case: BenchmarkCase) -> tuple[dict[str, SampleTable], tuple[Metric, SampleTable] | None]:
        return self.events.get(case, {}), self.alloc.get(case)


def observations(table: SampleTable, report: SteadyResult, settings: Settings) -> tuple[Observations, bool, tuple[Diagnostic, ...]]:
    """The iterations the summary is computed from (with ``--steady-only``, the steady ones
    when there are any), whether only steady ones were kept, and what ``--steady-only`` did."""
    if not settings.steady_only:
        return iteration_observations(table, outlier_factor=settings.outlier_factor), False, ()
    selected, notes = select_steady(table, report)
    return iteration_observations(selected, outlier_factor=settings.outlier_factor), selected is not table, notes


def analyze_series(
    case: BenchmarkCase, metric: Metric, table: SampleTable, settings: Settings, *,
    events: dict[str, SampleTable | None] | None = None, alloc: tuple[Metric, SampleTable] | None = None,
    cycle_ns: float | None = None,
) -> BenchmarkAnalysis | None:
    """Summary and diagnostics of one benchmark case and metric (None without measurements);
    ``cycle_ns`` is the measuring CPU's clock cycle when known (``diagnostics.clock_cycle_ns``)."""
    report = steady_report(table, metric.unit)
    obs, steady_only, steady_notes = observations(table, report, settings)
    if len(obs.values) == 0:
        return None
    seed = series_seed(settings.seed, case, metric)
    boot = dict(confidence=settings.confidence, resamples=settings.resamples, seed=seed, interval=settings.interval)
    values = obs.values
    instance, trial, fork = obs.levels
    variability = variability_by_level(values, instance, trial, fork) if len(values) >= 2 else None
    analysis = BenchmarkAnalysis(
        case=case, metric=metric, n=len(values), forks=_distinct(instance, trial, fork),
        trials=_distinct(instance, trial), instances=_distinct(instance),
        mean=hierarchical_bootstrap(values, obs.levels, statistic="mean", **boot),
        median=hierarchical_bootstrap(values, obs.levels, statistic="median", **boot),
        minimum=float(values.min()), maximum=float(values.max()),
        percentiles=dict(zip(PERCENTILES, map(float, percentiles(values, PERCENTILES)))),
        variability=variability, steady=report, alloc=_mean_alloc(alloc),
        removed_outliers=obs.removed_outliers, steady_only=steady_only)
    found = [*diag.diagnose(analysis, table, obs, events or {}, settings, cycle_ns), *steady_notes]
    # Most severe first; within a severity, in the order the checks run (most important first).
    order = sorted(found, key=lambda d: -d.severity.rank)
    return replace(analysis, diagnostics=tuple(order))


def _distinct(*codes: np.ndarray) -> int:
    """The number of distinct rows of level codes: one sort of integers (a set of tuples of
    numpy scalars took twice as long, 16 ms for a benchmark of 20,000 iterations)."""
    return len(unique_rows(np.stack(codes, axis=1))[0])


def _mean_alloc(alloc: tuple[Metric, SampleTable] | None) -> Quantity | None:
    """Mean allocation per operation over the measurement iterations (JMH -prof gc)."""
    if alloc is None:
        return None
    metric, table = alloc
    measured = table.measurement()
    if not len(measured):
        return None
    return Quantity(float(np.mean(measured.value)), metric.unit)
