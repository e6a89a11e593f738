"""The library API: what every ``rigorbench`` command calls, for Python users too.

    from rigorbench import api

    old = api.load_results(["v1-trial1.json", "v1-trial2.json"], label="v1")
    new = api.load_results(["v2-trial1.json", "v2-trial2.json"], label="v2")
    result = api.compare(old, new)                      # ComparisonResult
    print(api.render(result, "text"))
    for c in result.comparisons:
        print(c.case.display_name, c.verdict.value, c.ratio.estimate, c.ratio.low, c.ratio.high)

Every function takes and returns the project's own values (``Dataset``, ``Settings``,
``ComparisonResult``, ...); none prints or exits. Errors in the input raise ``UserError``
(``InputError`` with the file and line). Each function imports what it needs when it is
called, so ``import rigorbench.api`` is cheap and a command loads only what it uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

from rigorbench.errors import UserError

if TYPE_CHECKING:
    from rigorbench.analysis.analyze import AnalysisResult
    from rigorbench.analysis.compare import ComparisonResult
    from rigorbench.analysis.dataset import Dataset
    from rigorbench.analysis.power import PowerResult
    from rigorbench.analysis.settings import PowerOptions
    from rigorbench.analysis.report import ReportPage
    from rigorbench.analysis.settings import Settings
    from rigorbench.experiment.address import ClusterOptions
    from rigorbench.experiment.plan import ExperimentPlan
    from rigorbench.experiment.progress import Reporter
    from rigorbench.analysis.bisect import Bisection
    from rigorbench.experiment.bisect import BisectPlan
    from rigorbench.experiment.driver import ExperimentResult
    from rigorbench.experiment.prepare import BeforeBuild
    from rigorbench.lint.base import LintResult
    from rigorbench.store import ResultStore
    from rigorbench.store.api import RunInfo

__all__ = [
    "analyze", "bisect", "compare", "finish_experiment", "lint", "load_results", "load_stored", "power",
    "render", "report_page", "resume_experiment", "run_experiment", "stored_run", "write_html",
]


def _settings(settings: Settings | None) -> Settings:
    from rigorbench.analysis.settings import Settings

    return settings if settings is not None else Settings()


# -- data in ----------------------------------------------------------------------------------


def load_results(paths: Sequence[str | Path], label: str | None = None) -> Dataset:
    """One version's results from files (one per trial; every format rigorbench reads)."""
    from rigorbench.analysis.dataset import load_dataset

    return load_dataset([str(p) for p in paths], label)


def stored_run(store: ResultStore, labels: Sequence[str] = (), run_id: int | None = None) -> RunInfo:
    """The run a command reads, by one rule: ``run_id`` when given, else the newest run that
    has every label in ``labels`` (else the newest run); an error names what is missing."""
    info = store.run(run_id) if run_id else store.latest_run(list(labels) or None)
    if info is None:
        named = f" with version{'s' if len(labels) > 1 else ''} {' and '.join(map(repr, labels))}" if labels else ""
        raise UserError(f"{store.path}: no run{named}")
    present = [v.label for v in info.versions]
    missing = [label for label in labels if label not in present]
    if missing:
        raise UserError(f"{store.path}: run {info.run_id} has versions {', '.join(present)}; not {', '.join(missing)}")
    return info


def load_stored(store: ResultStore, labels: Sequence[str], run_id: int | None = None) -> list[Dataset]:
    """The named versions of one stored run (see :func:`stored_run` for which run)."""
    from rigorbench.analysis.dataset import dataset_from_store

    info = stored_run(store, labels, run_id)
    return [dataset_from_store(store, info.run_id, label) for label in labels]


# -- decide -----------------------------------------------------------------------------------


def compare(
    baseline: Dataset, contender: Dataset, settings: Settings | None = None,
    progress: Callable[[int, int], None] | None = None, jobs: int | None = None,
) -> ComparisonResult:
    """Every benchmark case and metric both sides have: ratio with CI, p, Cliff's delta, verdict.

    ``progress(done, total)`` is called after each benchmark case and metric compared;
    ``jobs``: processes to compare on (default: one per CPU for many benchmarks)."""
    from rigorbench.analysis.compare import compare_datasets

    return compare_datasets(baseline, contender, _settings(settings), progress=progress, jobs=jobs)


def analyze(
    dataset: Dataset, settings: Settings | None = None, progress: Callable[[int, int], None] | None = None,
    jobs: int | None = None,
) -> AnalysisResult:
    """One version: summaries with CIs, variability by level, steady state and diagnostics.

    ``progress(done, total)`` is called after each benchmark case and metric analysed;
    ``jobs``: processes to analyse on (default: one per CPU for many benchmarks)."""
    from rigorbench.analysis.analyze import analyze_dataset

    return analyze_dataset(dataset, _settings(settings), progress=progress, jobs=jobs)


def power(
    dataset: Dataset, settings: Settings | None = None, options: PowerOptions | None = None,
    trial_seconds: float | None = None, progress: Callable[[int, int], None] | None = None,
    jobs: int | None = None,
) -> PowerResult:
    """A/A false positives, detection per injected slowdown and the minimal detectable slowdown;
    ``trial_seconds`` (what one trial took) lets it say what ``--target``'s trials cost;
    ``progress(done, total)`` is called after each benchmark case and metric; ``jobs``:
    processes to simulate on (default: one per CPU from two benchmarks on)."""
    from rigorbench.analysis.power import power_dataset
    from rigorbench.analysis.settings import POWER_RESAMPLES, PowerOptions, Settings

    settings = settings if settings is not None else Settings(resamples=POWER_RESAMPLES)
    return power_dataset(dataset, settings, options if options is not None else PowerOptions(), trial_seconds,
                         progress=progress, jobs=jobs)


def lint(paths: Iterable[str | Path]) -> LintResult:
    """Findings in JMH and Go benchmark sources (``.java`` and ``_test.go`` files or directories)."""
    from rigorbench.lint import lint_paths

    return lint_paths([Path(p) for p in paths])


# -- render -----------------------------------------------------------------------------------


# Which renderer draws which result (by class name: importing the result classes to test
# them would load every analysis, scipy.stats included).
_RENDERERS = {
    "ComparisonResult": ("rigorbench.report.compare", "render_comparison"),
    "AnalysisResult": ("rigorbench.report.analyze", "render_analysis"),
    "PowerResult": ("rigorbench.report.power", "render_power"),
    "LintResult": ("rigorbench.report.lint", "render_lint"),
}


def render(
    result: ComparisonResult | AnalysisResult | PowerResult | LintResult, format: str = "text", **layout
) -> str:
    """A result as text, markdown, json, csv (compare) or sarif (lint), as the commands print it;
    ``layout`` (``wide``, ``only_changed``) shapes a comparison's text and markdown table."""
    import importlib

    try:
        module, function = _RENDERERS[type(result).__name__]
    except KeyError:
        raise TypeError(f"no renderer for {type(result).__name__}; renderable: {', '.join(_RENDERERS)}") from None
    renderer = getattr(importlib.import_module(module), function)
    if function == "render_lint":  # lint's documents describe the rules too
        from rigorbench.lint import RULES

        return renderer(result, RULES, format)
    if function == "render_comparison":
        from rigorbench.report.table import TableOptions

        return renderer(result, format, TableOptions(**layout))
    return renderer(result, format)


def report_page(
    datasets: Sequence[Dataset], settings: Settings | None = None, *, lint: Mapping | None = None,
    run: Mapping[str, str] | None = None, comparison: ComparisonResult | None = None,
    progress: Callable[[int, int], None] | None = None, jobs: int | None = None,
) -> ReportPage:
    """What the HTML report shows for one version or a comparison of two; ``jobs``: processes
    to analyse on (default: one per CPU for many benchmarks)."""
    from rigorbench.analysis.report import build_page

    return build_page(list(datasets), _settings(settings), lint=lint or {}, run=run or {},
                      comparison=comparison, progress=progress, jobs=jobs)


def write_html(page: ReportPage, path: str | Path, progress: Callable[[int, int], None] | None = None) -> Path:
    """Render ``page`` as one self-contained HTML file; the written path, absolute."""
    from rigorbench.report.report import render_html

    from rigorbench.files import write_text

    return write_text(path, render_html(page, progress=progress))


# -- experiments ------------------------------------------------------------------------------


def run_experiment(
    plan: ExperimentPlan, store: ResultStore, reporter: Reporter, *, before_build: BeforeBuild | None = None,
    build_cache: bool = True,
) -> ExperimentResult:
    """Build every version, run the planned trials (RMIT) on this machine or on ``plan.cluster``
    under the plan's stopping rule, and store each execution as it finishes."""
    from rigorbench.experiment.driver import start_experiment

    with _executor_for(plan, store, reporter) as executor:
        return start_experiment(plan, store, reporter, executor, before_build, build_cache)


def resume_experiment(run_id: int, store: ResultStore, reporter: Reporter, cluster: ClusterOptions | None = None) -> ExperimentResult:
    """Run what an interrupted experiment has not stored yet, under its stored rule (a cluster
    run on its cluster, or on ``cluster``'s address)."""
    import contextlib

    from rigorbench.experiment.driver import resume_experiment as resume

    run = store.run(run_id)
    with contextlib.ExitStack() as stack:
        if run.setup.cluster is not None:
            from rigorbench.cluster.executor import ClusterExecutor

            executor = stack.enter_context(ClusterExecutor.resume(run, cluster, store, reporter))
        elif cluster is not None:
            raise UserError(f"run {run_id} ran on this machine; resume it without --cluster")
        else:
            executor = _local(run.harness, reporter, run.order)
        return resume(run_id, store, reporter, executor)


def bisect(plan: BisectPlan, settings: Settings, store: ResultStore, reporters: Callable[[], Reporter], *,
           build_cache: bool = True, commits=None) -> Bisection:
    """Find the commit between ``plan.good`` and ``plan.bad`` that made the benchmark slower:
    one stored A/B run per probe, on this machine or on ``plan.cluster``; ``commits`` (good and
    the range, from ``experiment.bisect.commit_range``) when already read."""
    import contextlib

    from rigorbench.experiment.bisect import run_bisection

    with contextlib.ExitStack() as stack:
        executor = None
        if plan.cluster is not None:
            from rigorbench.cluster.executor import ClusterExecutor

            executor = stack.enter_context(ClusterExecutor.start(plan.cluster, store, reporters(), ["good", "probe"], False))
        return run_bisection(plan, settings, store, reporters, build_cache, commits, executor)


def _executor_for(plan: ExperimentPlan, store: ResultStore, reporter: Reporter):
    """Where ``plan``'s trials run: a cluster's executor (connected) or this machine's."""
    import contextlib

    if plan.cluster is None:
        return contextlib.nullcontext(_local(plan.harness, reporter, plan.order))
    from rigorbench.cluster.executor import ClusterExecutor

    return ClusterExecutor.start(plan.cluster, store, reporter, [v.label for v in plan.versions], plan.until_decided is not None)


def _local(harness: str, reporter: Reporter, order: str):
    from rigorbench.experiment.executor import LocalExecutor
    from rigorbench.harness import get_harness

    return LocalExecutor(get_harness(harness), reporter, order)


def verdict_settings(run: RunInfo, settings: Settings | None = None) -> Settings:
    """The analysis settings a stored run's verdicts are read at: ``settings``, or an adaptive
    run's looks' level (as the experiment stopped on)."""
    from rigorbench.analysis.stopping import final_settings

    return final_settings(run.setup, _settings(settings))[0]


def finish_experiment(
    store: ResultStore, run_id: int, baseline: str, contenders: Sequence[str], settings: Settings | None = None,
) -> list[tuple[str, ComparisonResult, Dataset, Dataset]]:
    """Compare every contender of a stored run with the baseline, at the level the run's
    verdicts are read at (an adaptive run's looks' level, with its design in the result):
    ``(contender label, comparison, baseline data, contender data)`` each."""
    from dataclasses import replace

    from rigorbench.analysis.dataset import dataset_from_store
    from rigorbench.analysis.stopping import final_settings

    settings, design = final_settings(store.run(run_id).setup, _settings(settings))
    settings = replace(settings, allow_mismatch=_settings(settings).allow_mismatch)
    base = dataset_from_store(store, run_id, baseline)
    finished = []
    for label in contenders:
        contender = dataset_from_store(store, run_id, label)
        finished.append((label, replace(compare(base, contender, settings), sequential=design), base, contender))
    return finished
