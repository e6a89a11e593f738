"""Execute an experiment plan: build each version once, run the trials in the planned order,
commit every finished trial to the store at once, and resume an interrupted experiment.

Guarantees (issue "run versions as a designed experiment"): a finished trial is committed
before the next one starts, so a crash or ``kill -9`` loses at most the trial that was
running; Ctrl-C stops after killing the harness process and says how to resume; resuming
runs only the (trial, version) pairs the store does not have, so no trial is stored twice.
"""

from __future__ import annotations

import contextlib
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator, Sequence

from rigorbench import __version__
from rigorbench.files import safe_name
from rigorbench.errors import Interrupted, UserError
from rigorbench.experiment.machine_lock import one_trial_at_a_time
from rigorbench.experiment.plan import ExperimentPlan, VersionSpec
from rigorbench.experiment.progress import Reporter, format_duration
from rigorbench.experiment.selection import Selection, cases, cases_in, estimated_seconds, select_benchmarks
from rigorbench.experiment.sequential import KEY as SEQUENTIAL_KEY, execute_until_decided
from rigorbench.experiment.warmup import KEY as WARMUP_KEY, describe, invocations, merged, run_pilots
from rigorbench.experiment.versions import PreparedVersion, cache_scope, checkout_root, prepare_version, remove_worktree
from rigorbench.harness import get_harness
from rigorbench.harness.base import DONE, FAILED, Build, BuildSpec, Harness, HarnessError, RunSettings, TrialOutcome
from rigorbench.harness.cache import BuildCache
from rigorbench.harness.environment import capture_environment, fitness_warnings
from rigorbench.store import ResultStore
from rigorbench.store.api import RunInfo, TrialRecord


@dataclass(frozen=True)
class ExperimentResult:
    run_id: int
    executed: int                 # executions run by this call
    failed: int                   # of which did not finish cleanly (failed or timeout)
    wall_seconds: float           # of the executions run by this call
    harness_seconds: float        # inside harness processes during those executions
    waited_seconds: float = 0.0   # waiting for other experiments' trials on this machine (machine_lock)
    instances: int = 1            # machines that ran trials at the same time (--cluster)

    @property
    def overhead(self) -> float:
        """Share of wall time spent outside harness processes (orchestration overhead), not
        counting the time spent waiting for other experiments' trials; on a cluster, of the
        instances' wall time together."""
        own = (self.wall_seconds - self.waited_seconds) * self.instances
        return max(0.0, 1 - self.harness_seconds / own) if own > 0 else 0.0


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# Called with a version's label and checked-out source directory before it is built.
BeforeBuild = Callable[[str, Path], None]


@contextlib.contextmanager
def built_versions(
    project: Path, specs: tuple[VersionSpec, ...], harness: Harness, reporter: Reporter,
    before_build: BeforeBuild | None = None, cache_dir: Path | None = None,
) -> Iterator[dict[str, tuple[PreparedVersion, Build]]]:
    """Check out and build every version; remove temporary worktrees afterwards.

    ``before_build(label, source_dir)`` runs on each checked-out version before it is built
    (``ab`` and ``run`` lint the benchmark sources there); an exception from it stops the
    experiment before anything is built or stored. With ``cache_dir``, the jars of clean
    commits are kept there and reused (see :mod:`rigorbench.harness.cache`).
    """
    scratch = Path(tempfile.mkdtemp(prefix="rigorbench-"))
    prepared: list[PreparedVersion] = []
    try:
        builds = {}
        for spec in specs:
            version = prepare_version(project, spec, scratch)
            prepared.append(version)
            if before_build is not None:
                before_build(spec.label, version.project_dir)
            builds[spec.label] = (version, _build(version, spec, harness, reporter, cache_dir))
        yield builds
    finally:
        for version in prepared:
            if version.worktree is not None:
                remove_worktree(project, version.worktree)
        shutil.rmtree(scratch, ignore_errors=True)


def _build(version: PreparedVersion, spec: VersionSpec, harness: Harness, reporter: Reporter, cache_dir: Path | None) -> Build:
    where = version.info.commit[:12] if version.worktree and version.info.commit else str(version.project_dir)
    reporter.message(f"building {spec.label} ({where}) ...")
    cache = BuildCache(cache_dir, cache_scope(version), checkout_root(version)) if cache_dir is not None else None
    try:
        with reporter.working(f"building {spec.label}"):
            build = harness.build(version.project_dir, spec.build, reporter.message, cache)
    except HarnessError as error:
        raise UserError(f"version {spec.label}: {_outside_worktree(str(error), version)}") from None
    if not build.cached:  # a cache hit was reported by the harness, with the jar's path
        kept = "; kept in the build cache" if cache is not None and Path(build.artifact).is_relative_to(cache_dir) else ""
        reporter.message(f"built {spec.label} in {format_duration(build.seconds)}{kept}")
    return build


def _outside_worktree(message: str, version: PreparedVersion) -> str:
    """The temporary worktree is gone when the user reads the message: say how to get it back."""
    if version.worktree is None or str(version.worktree) not in message:
        return message
    checkout = "CHECKOUT"
    how = f"\nwhere CHECKOUT is a checkout of {version.info.commit}: git worktree add --detach CHECKOUT {version.info.commit}"
    return message.replace(str(version.worktree), checkout) + how


def list_selection(builds: dict, harness: Harness, settings: RunSettings) -> Selection:
    """Each built version's benchmarks under ``settings``, and which all versions share."""
    listings = {}
    for label, (_, build) in builds.items():
        try:
            listings[label] = harness.list_benchmarks(build, settings)
        except HarnessError as error:
            raise UserError(f"version {label}: {error}") from None
    return select_benchmarks(listings)


def _select(builds: dict, harness: Harness, settings: RunSettings, reporter: Reporter) -> tuple[RunSettings, Selection]:
    """Narrow ``settings`` to the benchmarks every version has; report the others."""
    selection = list_selection(builds, harness, settings)
    counts = ", ".join(f"{label} {len(found)}" for label, found in selection.listings.items())
    if not selection.common:
        selected = f" matching {' '.join(settings.include)}" if settings.include else ""
        raise UserError(f"no benchmark{selected} is in every version (benchmarks per version: {counts})")
    for name, labels in selection.partial.items():
        reporter.message(f"not run: {name} is only in {', '.join(labels)}")
    for name, difference in selection.param_differences.items():
        reporter.message(f"warning: {name} has other @Param values per version ({difference}); unmatched cases are not compared")
    if selection.partial:
        settings = replace(settings, include=harness.exact_includes(selection.common))
    return settings, selection


def start_experiment(
    plan: ExperimentPlan, store: ResultStore, reporter: Reporter, before_build: BeforeBuild | None = None,
    build_cache: bool = True,
) -> ExperimentResult:
    """Plan, build, create the run in the store, and execute it (on a cluster with ``plan.cluster``)."""
    harness = get_harness(plan.harness)
    project = Path(plan.project)
    if not project.is_dir():
        raise UserError(f"{plan.project}: no such project directory")
    if plan.until_decided is not None or plan.pilot_warmup is not None:
        if plan.cluster is not None:
            raise UserError("--until-decided and --warmup auto run on one machine for now; leave out --cluster (or them)")
        # Both run a subset of the benchmarks in a harness run: refused before anything is
        # built when the harness cannot select one (pyperf scripts run all theirs).
        harness.exact_includes(())
    if plan.cluster is None:   # on a cluster, each instance's own before its first trial
        for warning in fitness_warnings(capture_environment(), plan.settings):
            reporter.message(f"{warning.severity}: {warning.message}" + (f" ({warning.hint})" if warning.hint else ""))
    cache_dir = build_cache_dir(store) if build_cache else None
    with contextlib.ExitStack() as stack:
        session = cluster_design = None
        if plan.cluster is not None:
            from rigorbench.cluster.experiment import connected, plan_instances

            session = stack.enter_context(connected(plan.cluster, reporter))
            cluster_design, slots = plan_instances(plan.cluster, session, [v.label for v in plan.versions], plan.trials, reporter)
        builds = stack.enter_context(built_versions(project, plan.versions, harness, reporter, before_build, cache_dir))
        run_settings, selection = _select(builds, harness, plan.settings, reporter)
        settings = {
            "run": run_settings.as_dict(), "trials": plan.trials,
            "build": {v.label: v.build.as_dict() for v in plan.versions},
            "not_run": {name: list(labels) for name, labels in selection.partial.items()},
            "build_cache": build_cache,
            **(plan.notes or {}),
        }
        if plan.pilot_warmup is not None:
            work_root = store.work_dir / "runs" / f"pilot-{now_iso().replace(':', '')}"
            choices = run_pilots(harness, builds, run_settings, selection.common, work_root, reporter, plan.pilot_warmup)
            for line in describe(choices, plan.pilot_warmup):
                reporter.message(line)
            settings[WARMUP_KEY] = choices
            settings["pilot_warmup"] = plan.pilot_warmup
        design = plan.until_decided
        if design is not None:
            design = replace(design, benchmarks={n: cases(selection.params[n], run_settings) for n in selection.common})
            settings[SEQUENTIAL_KEY] = design.as_dict()
        schedule = plan.schedule()
        if cluster_design is not None:
            from rigorbench.cluster.experiment import SETTINGS_KEY as CLUSTER_KEY, cluster_settings

            schedule = cluster_design.schedule([v.label for v in plan.versions], plan.seed)
            settings[CLUSTER_KEY] = cluster_settings(plan.cluster, cluster_design, slots)
            settings["trials"] = cluster_design.trials
        run_id = store.create_run(
            harness=plan.harness, project=str(project), order=plan.order, seed=plan.seed, settings=settings,
            versions=[builds[v.label][0].info for v in plan.versions], schedule=schedule,
            tool_version=__version__,
        )
        benchmarks = f"{len(plan.versions)} versions x {len(selection.common)} benchmark{'s' if len(selection.common) != 1 else ''}"
        if design is not None:
            reporter.message(
                f"run {run_id}: {benchmarks}, order {plan.order}, seed {plan.seed}; {design.describe()}; "
                f"about {format_duration(estimated_seconds(selection, run_settings, 1))} per trial of every benchmark"
            )
            return execute_until_decided(store, run_id, harness, builds, reporter)
        if cluster_design is not None:
            from rigorbench.cluster.experiment import execute_on_cluster

            reporter.message(
                f"run {run_id}: {cluster_design.instances} instances x {plan.trials} trials x {benchmarks} "
                f"({cluster_design.design}), seed {plan.seed}; about "
                f"{format_duration(estimated_seconds(selection, run_settings, 1))} per trial of a version"
            )
            return execute_on_cluster(session, store, store.run(run_id), builds, reporter, cases_in(selection, run_settings))
        reporter.message(
            f"run {run_id}: {plan.trials} trials x {benchmarks},"
            f" order {plan.order}, seed {plan.seed}; about {format_duration(estimated_seconds(selection, run_settings, plan.trials))}"
        )
        return execute_run(store, store.run(run_id), harness, builds, reporter, cases_in(selection, run_settings))


BUILDS_DIR = "builds"


def build_cache_dir(store: ResultStore) -> Path:
    """The build cache sits next to the store (``.rigorbench/builds``)."""
    return store.work_dir / BUILDS_DIR


def list_experiment(
    project: str, harness_name: str, versions: tuple[VersionSpec, ...], settings: RunSettings,
    reporter: Reporter, cache_dir: Path | None,
) -> Selection:
    """Build (or take from the cache) every version and list what each has; runs nothing."""
    harness = get_harness(harness_name)
    if not Path(project).is_dir():
        raise UserError(f"{project}: no such project directory")
    with built_versions(Path(project), versions, harness, reporter, cache_dir=cache_dir) as builds:
        return list_selection(builds, harness, settings)


def resume_experiment(run_id: int, store: ResultStore, reporter: Reporter, cluster=None) -> ExperimentResult:
    """Rebuild the run's versions and execute only what the store does not have yet (a
    cluster run on its cluster again, or on ``cluster``'s: ClusterOptions)."""
    run = store.run(run_id)
    if "cluster" in run.settings:
        return _resume_on_cluster(run, store, reporter, cluster)
    if cluster is not None:
        raise UserError(f"run {run_id} ran on this machine; resume it without --cluster")
    harness = get_harness(run.harness)
    with _rebuilt(run, store, harness, reporter) as builds:
        done = len(store.finished(run_id))
        reporter.message(f"resuming run {run_id}: {done} of {len(run.schedule)} trials already stored")
        if SEQUENTIAL_KEY in run.settings:
            return execute_until_decided(store, run_id, harness, builds, reporter)
        return execute_run(store, run, harness, builds, reporter)


@contextlib.contextmanager
def _rebuilt(run: RunInfo, store: ResultStore, harness: Harness, reporter: Reporter) -> Iterator[dict]:
    """A stored run's versions built again, refused when a revision now names other code."""
    build_settings = run.settings.get("build", {})
    specs = tuple(VersionSpec(v.label, v.source, BuildSpec.from_dict(build_settings.get(v.label))) for v in run.versions)
    cache_dir = build_cache_dir(store) if run.settings.get("build_cache", True) else None
    with built_versions(Path(run.project), specs, harness, reporter, cache_dir=cache_dir) as builds:
        for stored in run.versions:
            now = builds[stored.label][0].info
            if stored.commit and now.commit and stored.commit != now.commit and not stored.dirty:
                raise UserError(
                    f"run {run.run_id}: version {stored.label} was {stored.commit[:12]}, now {now.commit[:12]}; "
                    "resuming would mix two versions' results"
                )
        yield builds


def _resume_on_cluster(run: RunInfo, store: ResultStore, reporter: Reporter, override) -> ExperimentResult:
    from rigorbench.cluster.experiment import connected, execute_on_cluster, stored_options

    options = stored_options(run, override)
    harness = get_harness(run.harness)
    with connected(options, reporter) as session:
        session.wait_for(1, reporter.message)
        with _rebuilt(run, store, harness, reporter) as builds:
            done = len(store.finished(run.run_id))
            reporter.message(f"resuming run {run.run_id} on {options.address.text}: {done} of {len(run.schedule)} trials already stored")
            first = builds[run.versions[0].label][1]
            return execute_on_cluster(session, store, run, builds, reporter,
                                      _listed_cases(harness, first, RunSettings.from_dict(run.settings["run"])))


def _listed_cases(harness: Harness, build: Build, settings: RunSettings) -> int:
    """Benchmark cases one trial runs, for a resumed run's progress bar."""
    try:
        return sum(cases(b.params, settings) for b in harness.list_benchmarks(build, settings))
    except Exception:  # only an estimate for the progress bar; the run itself reports errors
        return 1


def execute_run(
    store: ResultStore, run: RunInfo, harness: Harness, builds: dict, reporter: Reporter, cases_per_trial: int | None = None,
    *, settings: RunSettings | None = None, trials_shown: int | None = None, names: Sequence[str] | None = None,
) -> ExperimentResult:
    """Run the executions the store does not have yet; ``cases_per_trial`` (listed again
    when not given) sizes the progress bar. ``settings`` replaces the run's own harness
    settings and ``names`` (exact benchmark names) its benchmarks (``--until-decided`` runs
    only the benchmarks still open); ``trials_shown`` is the trial count progress shows
    (default: the run's). With ``--warmup auto`` a trial is one harness run per chosen warmup."""
    settings = settings or RunSettings.from_dict(run.settings["run"])
    choices = run.settings.get(WARMUP_KEY)
    runs = invocations(settings, choices, names if names is not None else list(choices or ()), harness)
    finished = store.finished(run.run_id)
    pending = [e for e in run.schedule if (e.trial, e.label) not in finished]
    first_build = builds[run.versions[0].label][1]
    if cases_per_trial is None:
        cases_per_trial = _listed_cases(harness, first_build, settings)
    iterations = max(1, cases_per_trial) * settings.forks * (settings.warmup_iterations + settings.iterations)
    reporter.start(len(pending), trials_shown or int(run.settings.get("trials", 1)), iterations)
    work_root = store.work_dir / "runs" / str(run.run_id)
    wall_start, harness_total, waited_total, failed, executed = time.monotonic(), 0.0, 0.0, 0, 0
    try:
        for execution in pending:
            reporter.execution_started(execution)
            version, build = builds[execution.label]
            work_dir = work_root / f"{execution.position:03d}-trial{execution.trial + 1}-{safe_name(execution.label, 40, 'version')}"
            work_dir.mkdir(parents=True, exist_ok=True)
            environment = _environment(version, build)
            with one_trial_at_a_time(reporter.message) as waited:
                waited_total += waited
                started = now_iso()
                outcome = failed_without_samples(merged([
                    harness.run_trial(build, one, _part(work_dir, one, len(runs)), reporter.progress) for one in runs
                ]))
            store.record_execution(run.run_id, execution, TrialRecord(
                outcome.status, started, now_iso(), outcome.harness_seconds, outcome.series,
                {**environment, **outcome.environment}, outcome.failures, outcome.output_tail, outcome.message,
            ))
            executed += 1
            failed += outcome.status != "done"
            harness_total += outcome.harness_seconds
            reporter.execution_finished(execution, outcome)
    except KeyboardInterrupt:
        finish_run(store, run, "interrupted", time.monotonic() - wall_start, harness_total)
        reporter.close()
        raise interrupted(store, run) from None
    wall = time.monotonic() - wall_start
    finish_run(store, run, "finished", wall, harness_total)
    reporter.close()
    return ExperimentResult(run.run_id, executed, failed, wall, harness_total, waited_total)


def _part(work_dir: Path, settings: RunSettings, parts: int) -> Path:
    """Where one of a trial's harness runs keeps its files (the trial's own directory when it is the only one)."""
    if parts == 1:
        return work_dir
    part = work_dir / f"warmup{settings.warmup_iterations}"
    part.mkdir(exist_ok=True)
    return part


def interrupted(store: ResultStore, run: RunInfo) -> Interrupted:
    """The error of a run stopped by Ctrl-C: what is stored, and the command that resumes it."""
    return Interrupted(f"interrupted; {len(store.finished(run.run_id))} of {len(run.schedule)} trials are stored. "
                       f"Resume with: {resume_hint(store, run)}")


def resume_hint(store: ResultStore, run: RunInfo) -> str:
    return f"rigorbench {resume_command(run)} --resume {run.run_id} --store {shlex.quote(str(store.path))}"


def resume_command(run: RunInfo) -> str:
    """The command that resumes ``run``: the one that started it, when it noted itself
    (``record``), else ``ab``."""
    command = run.settings.get("command")
    return command if command in ("record",) else "ab"


def failed_without_samples(outcome: TrialOutcome) -> TrialOutcome:
    """A trial that measured nothing (every fork crashed, say on a bad --jvm-args) failed,
    whatever the harness's exit code: it is stored as ``failed`` with the harness's output
    and counted as failed, never as a ``done`` trial with 0 samples."""
    measured = any(len(one.samples) and not one.samples.warmup.all() for one in outcome.series)
    if outcome.status != DONE or measured:
        return outcome
    reason = outcome.failures[0] if outcome.failures else "see the harness output stored with the trial"
    message = f"the trial produced no samples ({reason})"
    return replace(outcome, status=FAILED, message=outcome.message or message)


def finish_run(store: ResultStore, run: RunInfo, status: str, wall: float, harness_seconds: float) -> None:
    """Record the run's status; times add up over resumed sessions."""
    store.finish_run(
        run.run_id, status=status,
        wall_seconds=(run.wall_seconds or 0.0) + wall,
        harness_seconds=(run.harness_seconds or 0.0) + harness_seconds,
    )


def _environment(version: PreparedVersion, build: Build) -> dict[str, str]:
    environment = capture_environment()
    environment.update({f"tool.{k}": str(v) for k, v in build.tool_versions.items()})
    environment["rigorbench_version"] = __version__
    environment["build.cached"] = str(build.cached).lower()
    environment.update(version_facts(version))
    return environment


def version_facts(version: PreparedVersion) -> dict[str, str]:
    """What a trial's environment records of its version (on a cluster the worker adds its machine's)."""
    facts = {"version.source": version.info.source}
    if version.info.commit:
        facts["version.commit"] = version.info.commit
    if version.info.dirty is not None:
        facts["version.dirty"] = str(version.info.dirty).lower()
    return facts
