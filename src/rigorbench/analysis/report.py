"""Everything the HTML report and the series export show, computed once.

The report puts the figures people look at next to the numbers (issue #7): per benchmark
case, each version's iteration series per fork with warmup, steady-state start, GC and JIT
marks (Shipilev reads iteration series, ``shared/reference/002``; Eichelberger et al. found
their answer by plotting time and GC side by side, ``001``), the distribution of both
versions with their fork means, the bootstrap distribution of the ratio that ``compare``
decided on, allocation per op, and ``analyze``'s diagnostics. Benchmarks swept over a
numeric parameter get time against the parameter on log-log axes with the fitted growth
exponent (Sestoft section 6, ``003``). Data from several instances (``--cluster``) gets a
row per instance (``analysis.instances``) and forks named by the instance they ran on.

Nothing here draws: ``report.plots`` and ``report.report`` (the HTML page) lay these values out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Sequence

import numpy as np

from rigorbench.analysis.comparability import in_baseline_terms
from rigorbench import parallel
from rigorbench.analysis.analyze import BenchmarkAnalysis, CaseInputs, analyze_series, observations
from rigorbench.analysis.compare import VERDICT_RANK, Comparison, ComparisonResult, compare_datasets
from rigorbench.analysis.dataset import Dataset
from rigorbench.analysis.diagnostics import clock_cycle_ns
from rigorbench.analysis.instances import InstanceMeans, InstanceRow, instance_means, instance_rows
from rigorbench.analysis.settings import Settings
from rigorbench.model import BenchmarkCase, Metric, SampleTable, Severity
from rigorbench.stats.scaling import growth_exponent
from rigorbench.stats import group_means

# Iteration-level events marked on the iteration series when they were recorded.
GC_EVENT, JIT_EVENT = "gc.count", "compiler.time.profiled"


@dataclass(frozen=True, eq=False)
class ForkTrace:
    """One fork's scores in the order taken (warmup first) and where things happened."""

    instance: int
    trial: int
    fork: int
    warmup: int                     # warmup iterations at the start of ``values``
    values: np.ndarray
    steady_start: int | None        # index into ``values``; None: not reached or not checked
    gc: np.ndarray                  # indices into ``values`` of iterations with a GC
    jit: np.ndarray                 # indices of iterations with JIT compilation
    instance_name: str = ""         # set when the case ran on several instances

    @property
    def label(self) -> str:
        where = f" on {self.instance_name}" if self.instance_name else f" instance {self.instance + 1}" if self.instance else ""
        return f"trial {self.trial + 1} fork {self.fork + 1}{where}"


@dataclass(frozen=True, eq=False)
class VersionView:
    """One version's data for one benchmark case."""

    label: str
    analysis: BenchmarkAnalysis
    forks: tuple[ForkTrace, ...]
    values: np.ndarray              # measurement values used by the statistics
    fork_means: np.ndarray          # one mean per fork of ``values``
    alloc_fork_means: np.ndarray | None
    events_recorded: tuple[str, ...]  # which of GC_EVENT / JIT_EVENT the data has
    by_instance: InstanceMeans = field(default_factory=dict)   # of ``values``: code -> (trials, mean)


@dataclass(frozen=True)
class AxisRange:
    """The value axis of a case's iteration series: the measurement phase, padded.

    Warmup spikes (the first iterations of a JVM can be 10x slower) would otherwise set the
    scale and flatten the steady state into a line; warmup stays drawn, but the iterations
    beyond this range are clipped at the axis and counted per version (``clipped``)."""

    low: float
    high: float
    clipped: tuple[int, ...]        # warmup iterations beyond [low, high], one count per version


@dataclass(frozen=True, eq=False)
class CasePage:
    case: BenchmarkCase
    metric: Metric
    anchor: str                     # the HTML id of the case's section
    versions: tuple[VersionView, ...]
    comparison: Comparison | None
    iteration_range: AxisRange | None = None   # None: no finite measurement value to scale to
    instances: tuple[InstanceRow, ...] = ()    # the by-instance table; empty: one instance

    @property
    def worst_severity(self) -> str | None:
        found = [d.severity for v in self.versions for d in v.analysis.diagnostics]
        if self.comparison is not None:
            found += [d.severity for d in self.comparison.warnings]
        return max(found, key=Severity) if found else None


@dataclass(frozen=True)
class ScalingLine:
    """One version's means over a numeric parameter, with their CIs and the fitted exponent."""

    label: str
    x: tuple[float, ...]
    mean: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    exponent: float | None          # slope of log(mean) against log(x), least squares; None
    intercept: float | None         # below MIN_EXPONENT_POINTS values; log(mean) at log(x) = 0


@dataclass(frozen=True)
class ScalingGroup:
    """Cases of one benchmark that differ only in one numeric parameter."""

    name: str
    parameter: str
    fixed: tuple[tuple[str, str], ...]
    metric: Metric
    lines: tuple[ScalingLine, ...]
    anchor: str

    @property
    def title(self) -> str:
        fixed = ",".join(f"{k}={v}" for k, v in self.fixed)
        return f"{self.name}{{{fixed}}}" if fixed else self.name


@dataclass(frozen=True, eq=False)
class ReportPage:
    """A comparison of two versions, or one version's analysis, ready to lay out."""

    labels: tuple[str, ...]         # one label (analysis) or baseline, contender
    settings: Settings
    cases: tuple[CasePage, ...]
    scaling: tuple[ScalingGroup, ...]
    comparison: ComparisonResult | None
    environments: Mapping[str, tuple[Mapping[str, str], ...]]
    sources: Mapping[str, tuple[str, ...]]
    warnings: tuple[str, ...] = ()
    lint: Mapping[str, object] = field(default_factory=dict)   # label -> lint.LintResult
    run: Mapping[str, str] = field(default_factory=dict)        # facts of a stored run

    @property
    def compares(self) -> bool:
        return self.comparison is not None

    @property
    def environment_rows(self) -> tuple[EnvironmentRow, ...]:
        return environment_rows(self.environments)


Progress = Callable[[int, int], None]


def build_page(
    datasets: Sequence[Dataset], settings: Settings, *, lint: Mapping[str, object] | None = None,
    run: Mapping[str, str] | None = None, progress: Progress | None = None, comparison: ComparisonResult | None = None,
    jobs: int | None = None,
) -> ReportPage:
    """Analyze one version, or compare two (baseline first), for the report.

    Only the primary metric of each case gets a section; allocation per op and the GC and
    JIT events are shown inside it when they were recorded. ``comparison``: the comparison
    of the two datasets already made (``ab`` and ``run`` print it first), so that it is not
    made twice and the page shows what was printed. ``progress(done, total)`` is called after
    each case. ``jobs``: processes to analyse on (see ``rigorbench.parallel``).
    """
    if len(datasets) not in (1, 2):
        raise ValueError("a report covers one or two versions")
    if comparison is not None and len(datasets) != 2:
        raise ValueError("a comparison goes with two datasets")
    settings = replace(settings, metric="primary")
    if comparison is not None and comparison.settings.metric not in ("primary", "all"):
        comparison = None   # made for one other metric (--metric alloc): the report needs the primary one
    if comparison is None and len(datasets) == 2:
        comparison = compare_datasets(datasets[0], datasets[1], settings, jobs=jobs)
    if len(datasets) == 2:
        datasets = [datasets[0], in_baseline_terms(*datasets)]   # units (and, if allowed, modes) as compared
    by_key = {(c.case, c.metric): c for c in comparison.comparisons if settings.wants_metric(c.metric)} if comparison else {}
    keys = list(by_key) if comparison else [k for k in datasets[0].series if settings.wants_metric(k[1])]
    cases = []
    # Every version's analysis of a case, on worker processes for many cases (rigorbench.parallel).
    inputs = [(CaseInputs.of(d), clock_cycle_ns(d.environments)) for d in datasets]
    work = [(d.label, case, metric, d.series.get((case, metric)), *index.of_case(case), cycle_ns, settings)
            for case, metric in keys for d, (index, cycle_ns) in zip(datasets, inputs)]
    done = parallel.ordered_map(_version_view, work, parallel.workers_for(len(keys), jobs))
    for number, (case, metric) in enumerate(keys):
        views = [view for view in (next(done) for _ in datasets) if view is not None]
        if len(views) == len(datasets):
            rows = instance_rows([(v.by_instance, v.analysis.mean.estimate) for v in views], datasets[0].instance_names)
            views = _named_traces(views, rows)
            cases.append(CasePage(case, metric, f"b{number + 1}", tuple(views), by_key.get((case, metric)),
                                  iteration_range(views), rows))
        if progress is not None:
            progress(number + 1, len(keys))
    scaling = scaling_groups(cases)     # in the data's order, before regressions go first
    cases.sort(key=_case_order)
    return ReportPage(labels=tuple(d.label for d in datasets), settings=settings, cases=tuple(cases),
                      scaling=scaling, comparison=comparison,
                      environments={d.label: tuple(d.environments) for d in datasets},
                      sources={d.label: tuple(d.sources) for d in datasets},
                      warnings=tuple(w for d in datasets for w in d.warnings), lint=dict(lint or {}),
                      run=dict(run or {}))


def _case_order(case: CasePage):
    """Regressions first, then by size of the change; one version: most severe first."""
    if case.comparison is not None:
        c = case.comparison
        change = abs(c.change_pct) if math.isfinite(c.change_pct) else math.inf
        return (VERDICT_RANK[c.verdict], -change, case.case.display_name)
    worst = case.worst_severity
    return (-(Severity(worst).rank + 1 if worst else 0), case.case.display_name)


def _version_view(work: tuple) -> VersionView | None:
    """One version's analysis of one case, from ``(label, case, metric, table, events, alloc,
    cycle_ns, settings)``."""
    label, case, metric, table, events, alloc, cycle_ns, settings = work
    if table is None:
        return None
    analysis = analyze_series(case, metric, table, settings, events=events, alloc=alloc, cycle_ns=cycle_ns)
    if analysis is None:
        return None
    obs, _, _ = observations(table, analysis.steady, settings)   # the iterations the analysis summarized
    instance, trial, _ = obs.levels
    return VersionView(label=label, analysis=analysis, forks=_traces(table, analysis, events),
                       values=obs.values, fork_means=group_means(obs.values, obs.levels),
                       alloc_fork_means=_alloc_fork_means(alloc[1]) if alloc else None,
                       events_recorded=tuple(name for name in (GC_EVENT, JIT_EVENT) if name in events),
                       by_instance=instance_means(obs.values, instance, trial))


def _named_traces(views: list[VersionView], rows: Sequence[InstanceRow]) -> list[VersionView]:
    """With several instances, each fork says which one it ran on (instance 0 too)."""
    if not rows:
        return views
    names = {row.instance: row.name for row in rows}
    return [replace(v, forks=tuple(replace(f, instance_name=names.get(f.instance, f"instance {f.instance + 1}")) for f in v.forks))
            for v in views]


def _traces(table: SampleTable, analysis: BenchmarkAnalysis, events: Mapping[str, SampleTable]) -> tuple[ForkTrace, ...]:
    """Each fork's series with the iterations where GC or compilation happened."""
    iteration_table = table.iteration_means() if table.has_histogram else table
    marks = {name: _event_keys(events[name]) for name in (GC_EVENT, JIT_EVENT) if name in events}
    states = analysis.steady.states or (None,) * len(analysis.steady.forks)
    traces = []
    for fork, state in zip(analysis.steady.forks, states):
        keys = [
            (fork.instance, fork.trial, fork.fork, bool(iteration_table.warmup[row]), int(iteration_table.iteration[row]))
            for row in fork.rows
        ]
        found = {name: np.array([i for i, key in enumerate(keys) if key in hits], dtype=int) for name, hits in marks.items()}
        start = state.start if state is not None and state.reached else None
        traces.append(ForkTrace(
            fork.instance, fork.trial, fork.fork, fork.warmup, fork.values, start,
            found.get(GC_EVENT, np.array([], dtype=int)), found.get(JIT_EVENT, np.array([], dtype=int)),
        ))
    return tuple(traces)


# Room above and below the measured values, as a share of their spread.
_AXIS_PADDING = 0.08


def iteration_range(views: Sequence[VersionView]) -> AxisRange | None:
    """The measurement phase's range over every fork of every version (the panels share
    one scale), padded, and how many warmup iterations of each version fall outside it."""
    measured = np.concatenate([f.values[f.warmup:] for v in views for f in v.forks] or [np.array([])])
    measured = measured[np.isfinite(measured)]
    if not len(measured):
        return None
    low, high = float(measured.min()), float(measured.max())
    pad = (high - low) * _AXIS_PADDING or abs(high) * _AXIS_PADDING or 1.0
    bottom = low - pad if low - pad >= 0 or low < 0 else 0.0   # scores >= 0 keep a floor of 0
    top = high + pad
    clipped = []
    for view in views:
        warmup = np.concatenate([f.values[:f.warmup] for f in view.forks] or [np.array([])])
        warmup = warmup[np.isfinite(warmup)]
        clipped.append(int(np.count_nonzero((warmup < bottom) | (warmup > top))))
    return AxisRange(bottom, top, tuple(clipped))


@dataclass(frozen=True)
class EnvironmentRow:
    """One recorded fact (JVM version, governor, ...) and its values per version."""

    fact: str
    values: tuple[str, ...]         # per version: its distinct values over the trials, joined
    differs: bool                   # between the versions, or between one version's trials


def environment_rows(environments: Mapping[str, Sequence[Mapping[str, str]]]) -> tuple[EnvironmentRow, ...]:
    """The environment table: facts that differ first, then the rest, each group by name."""
    seen: dict[str, dict[str, list[str]]] = {}
    for label, envs in environments.items():
        for env in envs:
            for key, value in env.items():
                values = seen.setdefault(key, {}).setdefault(label, [])
                if value not in values:
                    values.append(value)
    rows = []
    for key, by_label in seen.items():
        cells = tuple(", ".join(by_label.get(label, [])) for label in environments)
        differs = len(set(cells)) > 1 or any(len(v) > 1 for v in by_label.values())
        rows.append(EnvironmentRow(key, cells, differs))
    return tuple(sorted(rows, key=lambda r: (not r.differs, r.fact)))


def _event_keys(table: SampleTable) -> set[tuple]:
    """The iterations in which the event happened at least once (value > 0)."""
    hit = np.nan_to_num(table.value) > 0
    return {
        (int(i), int(t), int(f), bool(w), int(n))
        for i, t, f, w, n in zip(table.instance[hit], table.trial[hit], table.fork[hit], table.warmup[hit], table.iteration[hit])
    }


def _alloc_fork_means(table: SampleTable) -> np.ndarray | None:
    measured = table.measurement()
    finite = np.isfinite(measured.value)
    if not finite.any():
        return None
    levels = [measured.instance[finite], measured.trial[finite], measured.fork[finite]]
    return group_means(measured.value[finite], levels)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


# A line through two points fits them exactly whatever the growth: two sizes are plotted, but
# no exponent is claimed from them.
MIN_EXPONENT_POINTS = 3


def scaling_groups(cases: Sequence[CasePage]) -> tuple[ScalingGroup, ...]:
    """Every (benchmark, other parameters) with two or more positive numeric values of one
    parameter, in the order of ``cases``."""
    groups: dict[tuple, list[tuple[float, CasePage]]] = {}
    for case in cases:
        params = case.case.params
        for name, value in params:
            x = _number(value)
            if x is None:
                continue
            fixed = tuple((k, v) for k, v in params if k != name)
            groups.setdefault((case.case.harness, case.case.name, name, fixed, case.metric), []).append((x, case))
    found = []
    for (_, bench, parameter, fixed, metric), members in groups.items():
        members.sort(key=lambda m: m[0])
        xs = [x for x, _ in members]
        if len(set(xs)) < 2 or len(set(xs)) != len(xs):
            continue
        lines = []
        for position in range(len(members[0][1].versions)):
            means = [c.versions[position].analysis.mean for _, c in members]
            if any(not (m.estimate > 0) for m in means):
                break
            slope, intercept = (growth_exponent(xs, [m.estimate for m in means]) if len(xs) >= MIN_EXPONENT_POINTS
                                else (None, None))
            lines.append(ScalingLine(
                members[0][1].versions[position].label, tuple(xs),
                tuple(m.estimate for m in means), tuple(m.low for m in means), tuple(m.high for m in means),
                slope, intercept,
            ))
        else:
            found.append(ScalingGroup(bench, parameter, fixed, metric, tuple(lines), f"s{len(found) + 1}"))
    return tuple(found)


def run_facts(info) -> dict[str, str]:
    """What the report says about a stored run (a ``RunInfo``): what ran, where from, with
    which settings, as name -> text."""
    facts = {
        "run": f"{info.run_id} ({info.status}), created {info.created}",
        "project": f"{info.project} ({info.harness})",
        "design": f"{len({e.trial for e in info.schedule})} trials, {info.order} order, seed {info.seed}",
    }
    for version in info.versions:
        commit = f" at {version.commit[:12]}{' (dirty)' if version.dirty else ''}" if version.commit else ""
        facts[f"version {version.label}"] = f"{version.source}{commit}"
    for key, value in info.settings.items():
        text = _setting_text(value)
        if text:
            facts[f"setting {key}"] = text
    return facts


def _setting_text(value) -> str:
    """``forks=2, profilers=gc`` rather than a Python dict: unset (None or empty) entries left out."""
    if value is None:
        return ""
    if isinstance(value, dict):
        texts = ((k, _setting_text(v)) for k, v in value.items())
        return ", ".join(f"{k}={text}" for k, text in texts if text)
    if isinstance(value, (list, tuple)):
        return " ".join(map(_setting_text, value))
    return str(value)
