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
called, so ``import rigorbench.api`` is cheap and a command loads only what it uses; the
types, constants and library functions named in ``_LAZY`` (``api.Settings``,
``api.check_store``, ``api.history_changes``, ...) are imported on first use too.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

from rigorbench import __version__
from rigorbench.errors import UserError
from rigorbench.lazy import lazy_exports

if TYPE_CHECKING:
    from rigorbench.analysis.analyze import AnalysisResult
    from rigorbench.analysis.compare import ComparisonResult
    from rigorbench.analysis.dataset import Dataset
    from rigorbench.analysis.history import Selection
    from rigorbench.analysis.history_points import PointOrigin
    from rigorbench.analysis.power import PowerResult
    from rigorbench.analysis.report import ReportPage
    from rigorbench.analysis.settings import PowerOptions, Settings
    from rigorbench.experiment.address import ClusterOptions
    from rigorbench.experiment.plan import ExperimentPlan
    from rigorbench.experiment.progress import Reporter
    from rigorbench.analysis.bisect import Bisection
    from rigorbench.experiment.bisect import BisectPlan
    from rigorbench.experiment.config import ExperimentConfig
    from rigorbench.experiment.driver import ExperimentResult
    from rigorbench.experiment.measure import MeasureRequest
    from rigorbench.experiment.prepare import BeforeBuild
    from rigorbench.experiment.selection import Selection as BenchmarkSelection
    from rigorbench.harness.base import BuildSpec, RunSettings
    from rigorbench.lint.base import LintResult
    from rigorbench.report.history_points import HistoryView
    from rigorbench.store import ResultStore
    from rigorbench.store.api import HistoryPoint, RunInfo

# Names re-exported from the library, each imported when first used (module: "name" or
# "name:alias" ...), so that ``from rigorbench.api import Settings`` costs what the settings
# module costs and no more.
_LAZY_MODULES = {
    "rigorbench.analysis.bisect": "Status",
    "rigorbench.analysis.gate": "parse_fail_on",
    "rigorbench.analysis.history": "CI_CONFIDENCE Selection history_changes stored_series",
    "rigorbench.analysis.history_points": "add_file_points:add_history_files import_csv_points:import_history",
    "rigorbench.analysis.report": "run_facts",
    "rigorbench.analysis.settings": "CORRECTIONS DEFAULT_SEED DEFAULT_SLOWDOWNS INTERVALS POWER_RESAMPLES STATISTICS "
                                    "STRATEGIES TESTS PowerOptions Settings",
    "rigorbench.analysis.stopping": "UntilDecided",
    "rigorbench.experiment.address": "ClusterOptions TLSFiles parse_cluster",
    "rigorbench.experiment.bisect": "BisectPlan commit_range",
    "rigorbench.experiment.options": "DEFAULT_FUTILITY DEFAULT_MAX_TRIALS DEFAULT_MIN_TRIALS DEFAULT_SETTINGS DEFAULT_TRIALS "
                                     "PILOT_WARMUP QUICK_SETTINGS QUICK_TRIALS fraction:parse_fraction "
                                     "iteration_time:parse_iteration_time jmh_time:parse_jmh_time parse_params "
                                     "seconds:parse_seconds settings_with",
    "rigorbench.experiment.measure": "MeasureRequest",
    "rigorbench.experiment.plan": "DUET ORDERS ExperimentPlan VersionSpec",
    "rigorbench.experiment.progress": "make_reporter",
    "rigorbench.files": "safe_name",
    "rigorbench.harness": "detect_harness",
    "rigorbench.harness.base": "BuildSpec",
    "rigorbench.lint": "RULES LintResult fix_findings",
    "rigorbench.lint.fix": "unified_diff write_fixed",
    "rigorbench.lint.settings": "against_baseline rule_named rules_named settings_for:lint_settings",
    "rigorbench.model": "SEVERITIES Severity",
    "rigorbench.parallel": "MIN_SERIES:MIN_PARALLEL_SERIES",
    "rigorbench.report.bisect": "render_bisect",
    "rigorbench.report.history": "direction_lines render_history",
    "rigorbench.report.history_points": "HistoryView render_list render_show",
    "rigorbench.report.lint": "LINT_RENDERERS render_rule render_rules summary_line",
    "rigorbench.report.list": "render_selection",
    "rigorbench.report.runs": "render_run render_runs",
    "rigorbench.report.series": "render_series_csv write_data_dir",
    "rigorbench.report.store": "render_check render_copy render_recovery",
    "rigorbench.stats.changepoints": "MAX_P MIN_SIZE WINDOW",
    "rigorbench.store": "DEFAULT_STORE",
    "rigorbench.store.check": "check_store recover_store",
    "rigorbench.store.copy": "copy_store",
    "rigorbench.store.location": "is_postgres masked scrubbed work_dir",
    "rigorbench.terminal": "DEFAULT_WIDTH printable text_width",
    "rigorbench.units": "format_duration",
}
_LAZY, __getattr__, __dir__ = lazy_exports(__name__, _LAZY_MODULES)


__all__ = [
    "add_history_run", "analyze", "bisect", "compare", "compare_stored", "export_run",
    "finish_experiment", "grade_lint", "history_origin", "history_view", "lint", "list_benchmarks", "list_experiment",
    "power_designs",
    "list_runs", "load_experiment", "measure_findings", "load_results", "load_run", "load_stored", "load_version", "open_store", "power", "read_store",
    "record", "render", "report_page", "resume_experiment", "resume_record", "run_experiment", "run_worker", "stored_run",
    "version_commit", "write_history_html", "write_html", *_LAZY,
]


def _settings(settings: Settings | None) -> Settings:
    from rigorbench.analysis.settings import Settings

    return settings if settings is not None else Settings()


# -- data in ----------------------------------------------------------------------------------


def load_results(paths: Sequence[str | Path], label: str | None = None,
                 note: Callable[[str], None] | None = None) -> Dataset:
    """One version's results from files (one per trial; every format rigorbench reads); a
    run given twice counts once, and ``note`` is told so in one line."""
    from rigorbench.analysis.dataset import load_dataset

    return load_dataset([str(p) for p in paths], label, note)


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


def load_run(store_path: str, labels: Sequence[str] = (), run_id: int | None = None) -> tuple[list[Dataset], dict[str, str]]:
    """The versions ``labels`` of a stored run (default: its first two) and what a report
    says about the run (:func:`run_facts`)."""
    from rigorbench.analysis.dataset import dataset_from_store
    from rigorbench.analysis.report import run_facts

    with read_store(store_path) as store:
        info = stored_run(store, labels, run_id)
        chosen = list(labels) or [v.label for v in info.versions][:2]
        return [dataset_from_store(store, info.run_id, label) for label in chosen], run_facts(info)


def load_version(store_path: str, label: str | None = None, run_id: int | None = None) -> tuple[Dataset, float | None]:
    """One version of a stored run (``label``, or the run's only version) and the mean
    seconds one of its trials took (harness time; None when not recorded)."""
    from rigorbench.analysis.dataset import dataset_from_store

    with read_store(store_path) as store:
        run = stored_run(store, [label] if label else [], run_id)
        labels = [v.label for v in run.versions]
        label = label or (labels[0] if len(labels) == 1 else None)
        if label is None:
            raise UserError(f"{store.path}: run {run.run_id} has versions {', '.join(labels)}; choose one with --version")
        seconds = [e.harness_seconds for e in store.executions(run.run_id) if e.label == label and e.harness_seconds]
        return dataset_from_store(store, run.run_id, label), (sum(seconds) / len(seconds) if seconds else None)


# -- stores -----------------------------------------------------------------------------------


def open_store(path: str | Path, *, create: bool = True) -> ResultStore:
    """The results store at ``path`` (a SQLite file or a postgresql:// URL) open for writing,
    made when absent unless ``create`` is false; use it as a context manager."""
    from rigorbench.store import ResultStore

    return ResultStore.open(path, create=create)


def read_store(path: str | Path) -> ResultStore:
    """The existing results store at ``path`` open for reading only (a context manager)."""
    from rigorbench.store import ResultStore

    return ResultStore.read(path)


def list_runs(store_path: str, run_id: int | None = None) -> list[tuple[RunInfo, dict]]:
    """The store's runs, newest first, each with its execution and sample counts; with
    ``run_id`` that run's alone (UserError naming the runs there when it is not)."""
    with read_store(store_path) as store:
        runs = store.list_runs()
    if run_id is None:
        return runs
    found = [(info, counts) for info, counts in runs if info.run_id == run_id]
    if not found:
        known = ", ".join(str(info.run_id) for info, _ in reversed(runs)) or "none"
        raise UserError(f"{store_path}: no run {run_id} (runs: {known})")
    return found


def export_run(store_path: str, format: str, out_dir: str | Path, run_id: int | None = None) -> list[Path]:
    """Write a stored run (default: the newest) as ``pa-csv`` (one file per version) or
    ``jmh-json`` (one per version and trial) into ``out_dir``: the files written."""
    from rigorbench.files import write_files
    from rigorbench.formats.writers import export_files

    with read_store(store_path) as store:
        files = export_files(store, stored_run(store, (), run_id), format, Path(out_dir))
    write_files(Path(out_dir), files)
    return list(files)


# -- decide -----------------------------------------------------------------------------------


def compare(
    baseline: Dataset, contender: Dataset, settings: Settings | None = None,
    progress: Callable[[int, int], None] | None = None, jobs: int | None = None,
) -> ComparisonResult:
    """Every benchmark case and metric both sides have: ratio with CI, p, Cliff's delta, verdict.

    Sides with the same label are named ``baseline`` and ``contender``.
    ``progress(done, total)`` is called after each benchmark case and metric compared;
    ``jobs``: processes to compare on (default: one per CPU for many benchmarks)."""
    from dataclasses import replace

    from rigorbench.analysis.compare import compare_datasets

    if baseline.label == contender.label:
        baseline, contender = replace(baseline, label="baseline"), replace(contender, label="contender")
    return compare_datasets(baseline, contender, _settings(settings), progress=progress, jobs=jobs)


def compare_stored(
    store_path: str, baseline: str, contender: str, run_id: int | None = None, settings: Settings | None = None, *,
    level_chosen: bool = False, progress: Callable[[int, int], None] | None = None, jobs: int | None = None,
) -> ComparisonResult:
    """:func:`compare` of two versions of a stored run (see :func:`stored_run`); a run of
    ``--until-decided`` is decided at its looks' level unless ``level_chosen`` (then
    ``settings`` hold, without the run's sequential verdicts)."""
    from dataclasses import replace

    from rigorbench.analysis.stopping import final_settings

    with read_store(store_path) as store:
        base, cont = load_stored(store, [baseline, contender], run_id)
        setup = stored_run(store, [baseline, contender], run_id).setup
    settings, sequential = final_settings(setup, _settings(settings), level_chosen)
    return replace(compare(base, cont, settings, progress=progress, jobs=jobs), sequential=sequential)


def analyze_files(
    paths: Sequence[str | Path], settings: Settings | None = None, label: str | None = None,
    note: Callable[[str], None] | None = None, progress: Callable[[int, int], None] | None = None,
    jobs: int | None = None,
) -> AnalysisResult:
    """:func:`analyze` of :func:`load_results`, the same result, with memory that does not
    grow with the suite where it can: one JMH JSON file (gzipped or not) is analysed while it
    is read, benchmark by benchmark. Several files (trials, whose runs are told apart first)
    and other formats are read whole, as are JMH JSON files whose benchmarks' entries are not
    next to each other (not as JMH writes them)."""
    from rigorbench.analysis.analyze import analyze_stream
    from rigorbench.analysis.dataset import default_label
    from rigorbench.formats import count_benchmarks, stream_result_file
    from rigorbench.formats.jmh_json import InterleavedBenchmarks

    paths = [str(p) for p in paths]
    stream = stream_result_file(paths[0]) if len(paths) == 1 else None
    if stream is not None:
        try:
            return analyze_stream(stream, label or default_label(paths), _settings(settings), progress, jobs,
                                  expected=count_benchmarks(paths[0]))
        except InterleavedBenchmarks:
            pass
    return analyze(load_results(paths, label, note), settings, progress, jobs)


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


def power_designs(store_path: str, baseline: str, contender: str, run_id: int | None = None,
                  settings: Settings | None = None, target: float | None = None):
    """Which design (RMIT read unpaired or paired, duet) reaches ``target`` (default 5%) in the
    fewest machine seconds, projected from a stored run of ``baseline`` and ``contender`` and,
    when the store has one, the newest duet run of the two (analysis/designs.py)."""
    from rigorbench.analysis.dataset import dataset_from_store
    from rigorbench.analysis.designs import DUET, PAIRED, DesignData, design_advice
    from rigorbench.analysis.settings import DEFAULT_POWER_TARGET

    def data(store, run: RunInfo, design: str) -> DesignData:
        trials = len({e.trial for e in run.schedule})
        seconds = run.wall_seconds / trials if run.wall_seconds and trials else None
        return DesignData(design, dataset_from_store(store, run.run_id, baseline),
                          dataset_from_store(store, run.run_id, contender), seconds, run.run_id)

    with read_store(store_path) as store:
        both = [info for info, _ in store.list_runs() if {baseline, contender} <= {v.label for v in info.versions}]
        rmit = [info for info in both if info.order == "rmit" and (run_id is None or info.run_id == run_id)]
        if not rmit:
            which = f"run {run_id} is not" if run_id else "no run is"
            raise UserError(f"{store.path}: {which} an RMIT run of {baseline} and {contender}; the designs are "
                            "projected from one (rigorbench ab)")
        designs = [data(store, rmit[0], PAIRED)]
        duets = [info for info in both if info.order == DUET and info.status == "finished"]
        if duets:
            designs.append(data(store, duets[0], DUET))
    return design_advice(designs, _settings(settings), target if target is not None else DEFAULT_POWER_TARGET)


def lint(paths: Iterable[str | Path], rules: Iterable[str] | None = None) -> LintResult:
    """Findings of ``rules`` (default: all) in JMH and Go benchmark sources (``.java`` and
    ``_test.go`` files or directories; another file named is an ``InputError``)."""
    from rigorbench.lint import lint_paths

    return lint_paths(list(paths), rules=rules)


def grade_lint(result: LintResult, store: ResultStore, run_id: int | None = None,
               label: str | None = None) -> tuple[LintResult, str]:
    """``result`` with its INVO, RETU, VOID, FINAL and GO-RESULT findings graded by the time
    per operation version ``label`` (default: the run's last, the contender of an A/B) of
    stored run ``run_id`` (default: the newest) measured (see :mod:`rigorbench.lint.grading`),
    and which run and version that was; UserError when the store has no such run or version."""
    from dataclasses import replace

    from rigorbench.analysis.measured import stored_times
    from rigorbench.lint.grading import graded, wanted_names

    run = stored_run(store, [label] if label else [], run_id)
    chosen = label or run.versions[-1].label
    wanted = wanted_names(result.findings)
    if not wanted:      # nothing to grade: the run's series are not read
        return result, f"run {run.run_id} (version {chosen})"
    measured = stored_times(store, run.run_id, chosen, wanted)
    return replace(result, findings=graded(result.findings, measured)), measured.source


def measure_findings(result: LintResult, request: MeasureRequest, reporter: Reporter) -> LintResult:
    """``result`` (a lint of ``request.project``) with every finding's impact: each fixable
    finding's benchmark run as it is and as ``fix_findings`` rewrites it, as one A/B run
    (RMIT trials, ``ab``'s build and statistics) in temporary copies of the project that are
    removed however this ends (:mod:`rigorbench.experiment.measure`)."""
    from dataclasses import replace

    from rigorbench.experiment.measure import measure_findings as measure

    return replace(result, measurement=measure(result, request, reporter))


# -- render -----------------------------------------------------------------------------------


# Which renderer draws which result (by class name: importing the result classes to test
# them would load every analysis, scipy.stats included).
_RENDERERS = {
    "ComparisonResult": ("rigorbench.report.compare", "COMPARISON_RENDERERS"),
    "AnalysisResult": ("rigorbench.report.analyze", "ANALYSIS_RENDERERS"),
    "PowerResult": ("rigorbench.report.power", "POWER_RENDERERS"),
    "LintResult": ("rigorbench.report.lint", "LINT_RENDERERS"),
    "DesignAdvice": ("rigorbench.report.designs", "DESIGN_RENDERERS"),
}


def render(
    result: ComparisonResult | AnalysisResult | PowerResult | LintResult, format: str = "text", **layout
) -> str:
    """A result as text, markdown, json, csv (compare) or sarif (lint), as the commands print it;
    ``layout`` (``wide``, ``only_changed``, ``color``, ``width``) shapes a comparison's text and
    markdown table; ``width`` an analysis's text too (100 columns unless given)."""
    import importlib

    try:
        module, registry = _RENDERERS[type(result).__name__]
    except KeyError:
        raise TypeError(f"no renderer for {type(result).__name__}; renderable: {', '.join(_RENDERERS)}") from None
    renderers = getattr(importlib.import_module(module), registry)
    from rigorbench.report.documents import render_as

    if registry == "LINT_RENDERERS":  # lint's documents describe the rules too
        from rigorbench.lint import RULES

        return render_as(renderers, format, result, RULES)
    if registry == "COMPARISON_RENDERERS":
        from rigorbench.report.table import TableOptions

        return render_as(renderers, format, result, TableOptions(**layout))
    if registry in ("ANALYSIS_RENDERERS", "DESIGN_RENDERERS"):
        from rigorbench.terminal import DEFAULT_WIDTH

        return render_as(renderers, format, result, layout.get("width", DEFAULT_WIDTH))
    return render_as(renderers, format, result)


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


def list_experiment(plan: ExperimentPlan, reporter: Reporter, store: str | Path, *, build_cache: bool = True) -> BenchmarkSelection:
    """Build each version of ``plan`` (or take it from the build cache next to ``store``) and
    list what each has, as ``ab --list`` and ``run --list`` do; runs nothing."""
    from rigorbench.experiment.prepare import BUILDS_DIR, list_experiment as list_versions
    from rigorbench.store.location import work_dir

    cache = work_dir(store) / BUILDS_DIR if build_cache else None
    return list_versions(plan.project, plan.harness, plan.versions, plan.settings, reporter, cache)


def load_experiment(path: str | Path) -> ExperimentConfig:
    """The experiment a ``rigorbench.toml`` file describes: its plan, store, baseline and the
    [compare] and [until_decided] tables (docs/configuration.md)."""
    from rigorbench.experiment.config import load_config

    return load_config(path)


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
    """This machine's executor of a run in ``order`` (a duet run's, refused on one CPU)."""
    from rigorbench.experiment.executor import LocalExecutor
    from rigorbench.experiment.plan import DUET
    from rigorbench.harness import get_harness

    if order == DUET:
        from rigorbench.experiment.duet import DuetExecutor

        return DuetExecutor.on_this_machine(get_harness(harness), reporter)
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


def version_commit(project: str, source: str = ".", commit: str | None = None) -> tuple[str, bool]:
    """The commit a version of ``project`` is and whether it has uncommitted changes, found
    before anything is built: ``source`` is a directory (inside ``project`` first; "." is the
    project as it is) or a git revision; ``commit`` names it instead (a directory outside git needs it)."""
    from rigorbench.experiment.versions import commit_facts, git_repository, resolve_directory
    from rigorbench.harness.environment import git_info

    if not Path(project).is_dir():
        raise UserError(f"{project}: no such project directory")
    directory = resolve_directory(Path(project), source)
    if directory is not None:
        found, dirty = git_info(directory)
    elif (repository := git_repository(Path(project))) is None:
        raise UserError(f"--rev {source}: not a directory, and {project} is not in a git repository")
    else:
        found, dirty = commit_facts(repository, source).commit, False
    if not (commit or found):
        raise UserError(f"record: {directory} is not in a git repository; name the commit measured with --commit")
    return commit or found, dirty


def record(plan: ExperimentPlan, origin: PointOrigin, store: ResultStore, reporter: Reporter, *,
           before_build: BeforeBuild | None = None, build_cache: bool = True) -> tuple[ExperimentResult, list[HistoryPoint], bool]:
    """Run ``plan``'s one version (closing ``reporter`` when its trials are done) and add its
    results to the history at ``origin``: the run, its points and whether they were added.
    The run notes where its points go, so that :func:`resume_record` adds them once."""
    from dataclasses import replace

    from rigorbench.analysis.history_points import add_run_points, record_notes

    label = plan.versions[0].label
    result = run_experiment(replace(plan, notes=record_notes(origin, label)), store, reporter,
                            before_build=before_build, build_cache=build_cache)
    reporter.close()
    return (result, *add_run_points(store, result.run_id, label, origin))


def resume_record(run_id: int, store: ResultStore, start: Callable[[], tuple[Reporter, ClusterOptions | None]],
                  ) -> tuple[ExperimentResult, list[HistoryPoint], bool]:
    """Run the trials an interrupted :func:`record` run is missing (``start()`` gives their
    reporter and the address of the run's cluster, if any, only when there are trials to run:
    nothing is built when every one is stored), then add its points where the first session
    would have, once: as :func:`record` returns."""
    from rigorbench.analysis.history_points import add_run_points, recorded_origin
    from rigorbench.experiment.driver import ExperimentResult

    info = store.run(run_id)
    origin, label = recorded_origin(info.settings, f"run {run_id} in {store.path}")
    if len(info.schedule) != len(store.finished(run_id)):
        reporter, cluster = start()
        result = resume_experiment(run_id, store, reporter, cluster=cluster)
        reporter.close()
    else:   # every trial is stored: nothing to build or run again
        if info.status != "finished":
            store.finish_run(run_id, status="finished", wall_seconds=info.wall_seconds, harness_seconds=info.harness_seconds)
        result = ExperimentResult(run_id, 0, 0, 0.0, 0.0)
    return (result, *add_run_points(store, run_id, label, origin))


# -- history ----------------------------------------------------------------------------------


def history_origin(commit: str, *, time: str | None = None, branch: str = "", repo: str | None = None,
                   dirty: bool | None = None, machine: str | None = None,
                   note: Callable[[str], None] | None = None) -> PointOrigin:
    """Where history points go: ``commit`` looked up in git (in ``repo``, else the current
    directory's repository) for its full id and time, else taken as named at ``time`` or
    now (``note`` is told which)."""
    from rigorbench.analysis.history_points import resolve_origin
    from rigorbench.experiment.versions import commit_facts, git_repository

    return resolve_origin(commit, time=time, branch=branch, repo=repo, dirty=dirty, machine=machine,
                          git_repository=git_repository, commit_facts=commit_facts, note=note)


def add_history_run(store_path: str, run_id: int, label: str | None = None, *, commit: str | None = None,
                    note: Callable[[str], None] | None = None, **where) -> tuple[list[HistoryPoint], PointOrigin, str]:
    """A stored run's version (``label``, or its only one) as history points at ``commit``
    (default: the version's own); ``where``: :func:`history_origin`'s ``time``, ``branch``,
    ``repo``, ``machine``. The points, their origin and the version's label."""
    from rigorbench.analysis.history_points import add_version_points

    def origin_of(named: str, dirty: bool | None) -> PointOrigin:
        return history_origin(named, dirty=dirty, note=note, **where)

    return add_version_points(store_path, run_id, label, commit, origin_of)


def history_view(store_path: str, selection: Selection | None = None) -> HistoryView:
    """The selected series of a store's history, as ``history list`` and ``show`` render them."""
    from rigorbench.analysis.history import Selection, stored_history
    from rigorbench.report.history_points import HistoryView

    selection = selection if selection is not None else Selection()
    store, series, total = stored_history(store_path, selection)
    return HistoryView(store, selection, tuple(series), total)


def write_history_html(view: HistoryView, path: str | Path, repo_url: str | None = None,
                       note: Callable[[str], None] | None = None) -> tuple[Path, int]:
    """``view``'s series as one self-contained HTML page at ``path``, commits linked to
    ``repo_url`` (else to the recorded project's GitHub or GitLab remote): the path written
    and how many series it shows."""
    from rigorbench.analysis.history_report import history_page, recorded_project, remote_web_url, web_url
    from rigorbench.experiment.versions import remote_url
    from rigorbench.files import write_text
    from rigorbench.report.history_html import render_history_html

    if repo_url is not None and web_url(repo_url) is None and note is not None:
        note(f"--repo-url {repo_url[:80]}: not an http(s) address; commits are not links")
    elif repo_url is None:
        project = recorded_project(view.store, view.series)
        repo_url = remote_web_url(remote_url(project) if project is not None else None)
    page = history_page(view.store, view.selection, list(view.series), view.total, repo_url)
    return write_text(path, render_history_html(page)), len(page.series)


# -- projects and workers ---------------------------------------------------------------------


def list_benchmarks(
    project: str, sources: Sequence[str], build: BuildSpec, reporter: Reporter, *, bench: Sequence[str] = (),
    params: Sequence[str] = (), store: str | None = None, build_cache: bool = True,
) -> tuple[BenchmarkSelection, RunSettings]:
    """Build each version of a JMH project (``sources``: directories or git revisions; "."
    is the working tree) as ``ab`` would, with its build cache (next to ``store``, default:
    the project's), and list its benchmarks: what each version has, and the run settings
    that ``bench`` (regexes) and ``params`` (``NAME=V1,V2``) give."""
    from rigorbench.experiment.options import DEFAULT_SETTINGS, parse_params, settings_with
    from rigorbench.experiment.plan import VersionSpec
    from rigorbench.experiment.prepare import BUILDS_DIR, list_experiment
    from rigorbench.store import DEFAULT_STORE
    from rigorbench.store.location import work_dir

    versions = tuple(VersionSpec(source if source != "." else "working tree", source, build) for source in sources)
    settings = settings_with(DEFAULT_SETTINGS, include=tuple(bench) or None, params=parse_params(params) if params else None)
    store_dir = work_dir(store) if store else Path(project) / Path(DEFAULT_STORE).parent
    cache = store_dir / BUILDS_DIR if build_cache else None
    return list_experiment(project, "jmh", versions, settings, reporter, cache), settings


def run_worker(scheduler: str, say: Callable[[str], None], *, tls: tuple[str | None, str | None, str | None] = (None, None, None),
               name: str | None = None, work_dir: str | None = None, force: bool = False) -> int:
    """Run this machine's benchmarking worker for the Dask scheduler at ``scheduler``
    (tcp:// or tls://, with ``tls``'s CA, certificate and key files) until it stops;
    ``say`` gets its messages. The worker's exit code."""
    from rigorbench.experiment.address import TLSFiles, parse_cluster
    from rigorbench.cluster.worker import WorkerOptions, run_worker as run

    address = parse_cluster(scheduler, "ADDRESS")
    if address.local:
        raise UserError("rigorbench worker connects to a scheduler (tcp://HOST:8786); local:N is for --cluster")
    return run(WorkerOptions(address, TLSFiles(*tls), name, work_dir, force), say)
