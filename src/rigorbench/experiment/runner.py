"""Execute an experiment plan: build each version once, run the trials in the planned order,
commit every finished trial to the store at once, and resume an interrupted experiment.

Guarantees (issue "run versions as a designed experiment"): a finished trial is committed
before the next one starts, so a crash or ``kill -9`` loses at most the trial that was
running; Ctrl-C stops after killing the harness process and says how to resume; resuming
runs only the (trial, version) pairs the store does not have, so no trial is stored twice.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from rigorbench import __version__
from rigorbench.errors import UserError
from rigorbench.experiment.plan import ExperimentPlan, VersionSpec
from rigorbench.experiment.progress import Reporter
from rigorbench.experiment.versions import PreparedVersion, prepare_version, remove_worktree
from rigorbench.harness import get_harness
from rigorbench.harness.base import Build, Harness, HarnessError, RunSettings
from rigorbench.harness.environment import capture_environment, fitness_warnings
from rigorbench.store import ResultStore
from rigorbench.store.api import RunInfo


class Interrupted(UserError):
    """Ctrl-C during a run; the message says how to resume."""


@dataclass(frozen=True)
class ExperimentResult:
    run_id: int
    executed: int                 # executions run by this call
    failed: int                   # of which did not finish cleanly (failed or timeout)
    wall_seconds: float           # of the executions run by this call
    harness_seconds: float        # inside harness processes during those executions

    @property
    def overhead(self) -> float:
        """Share of wall time spent outside harness processes (orchestration overhead)."""
        return 1 - self.harness_seconds / self.wall_seconds if self.wall_seconds > 0 else 0.0


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _safe(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", label)[:40] or "version"


# Called with a version's label and checked-out source directory before it is built.
BeforeBuild = Callable[[str, Path], None]


@contextlib.contextmanager
def built_versions(
    project: Path, specs: tuple[VersionSpec, ...], harness: Harness, reporter: Reporter,
    before_build: BeforeBuild | None = None,
) -> Iterator[dict[str, tuple[PreparedVersion, Build]]]:
    """Check out and build every version; remove temporary worktrees afterwards.

    ``before_build(label, source_dir)`` runs on each checked-out version before it is built
    (``ab`` and ``run`` lint the benchmark sources there); an exception from it stops the
    experiment before anything is built or stored.
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
            where = version.info.commit[:12] if version.worktree and version.info.commit else str(version.project_dir)
            reporter.message(f"building {spec.label} ({where}) ...")
            try:
                build = harness.build(version.project_dir, reporter.message)
            except HarnessError as error:
                raise UserError(f"version {spec.label}: {error}") from None
            reporter.message(f"built {spec.label} in {build.seconds:.0f} s")
            builds[spec.label] = (version, build)
        yield builds
    finally:
        for version in prepared:
            if version.worktree is not None:
                remove_worktree(project, version.worktree)
        shutil.rmtree(scratch, ignore_errors=True)


def start_experiment(
    plan: ExperimentPlan, store: ResultStore, reporter: Reporter, before_build: BeforeBuild | None = None
) -> ExperimentResult:
    """Plan, build, create the run in the store, and execute it."""
    harness = get_harness(plan.harness)
    project = Path(plan.project)
    if not project.is_dir():
        raise UserError(f"{plan.project}: no such project directory")
    for warning in fitness_warnings(capture_environment(), plan.settings):
        reporter.message(f"{warning.severity}: {warning.message}" + (f" ({warning.hint})" if warning.hint else ""))
    with built_versions(project, plan.versions, harness, reporter, before_build) as builds:
        settings = {"run": plan.settings.as_dict(), "trials": plan.trials}
        run_id = store.create_run(
            harness=plan.harness, project=str(project), order=plan.order, seed=plan.seed, settings=settings,
            versions=[builds[v.label][0].info for v in plan.versions], schedule=plan.schedule(),
            tool_version=__version__,
        )
        reporter.message(f"run {run_id}: {plan.trials} trials x {len(plan.versions)} versions, order {plan.order}, seed {plan.seed}")
        return execute_run(store, store.run(run_id), harness, builds, reporter)


def resume_experiment(run_id: int, store: ResultStore, reporter: Reporter) -> ExperimentResult:
    """Rebuild the run's versions and execute only what the store does not have yet."""
    run = store.run(run_id)
    harness = get_harness(run.harness)
    specs = tuple(VersionSpec(v.label, v.source) for v in run.versions)
    with built_versions(Path(run.project), specs, harness, reporter) as builds:
        for stored in run.versions:
            now = builds[stored.label][0].info
            if stored.commit and now.commit and stored.commit != now.commit and not stored.dirty:
                raise UserError(
                    f"run {run_id}: version {stored.label} was {stored.commit[:12]}, now {now.commit[:12]}; "
                    "resuming would mix two versions' results"
                )
        done = len(store.finished(run_id))
        reporter.message(f"resuming run {run_id}: {done} of {len(run.schedule)} trials already stored")
        return execute_run(store, run, harness, builds, reporter)


def _expected_iterations(harness: Harness, build: Build, settings: RunSettings) -> int:
    try:
        benchmarks = len(harness.list_benchmarks(build, settings))
    except Exception:  # only an estimate for the progress bar; the run itself reports errors
        benchmarks = 1
    return max(1, benchmarks) * settings.forks * (settings.warmup_iterations + settings.iterations)


def execute_run(store: ResultStore, run: RunInfo, harness: Harness, builds: dict, reporter: Reporter) -> ExperimentResult:
    settings = RunSettings.from_dict(run.settings["run"])
    finished = store.finished(run.run_id)
    pending = [e for e in run.schedule if (e.trial, e.label) not in finished]
    first_build = builds[run.versions[0].label][1]
    reporter.start(len(pending), int(run.settings.get("trials", 1)), _expected_iterations(harness, first_build, settings))
    work_root = Path(store.path).parent / "runs" / str(run.run_id)
    wall_start, harness_total, failed, executed = time.monotonic(), 0.0, 0, 0
    try:
        for execution in pending:
            reporter.execution_started(execution)
            version, build = builds[execution.label]
            work_dir = work_root / f"{execution.position:03d}-trial{execution.trial + 1}-{_safe(execution.label)}"
            work_dir.mkdir(parents=True, exist_ok=True)
            environment = _environment(version, build)
            started = now_iso()
            outcome = harness.run_trial(build, settings, work_dir, reporter.progress)
            store.record_execution(
                run.run_id, execution, status=outcome.status, started=started, ended=now_iso(),
                harness_seconds=outcome.harness_seconds, series=outcome.series,
                environment={**environment, **outcome.environment}, failures=outcome.failures,
                output_tail=outcome.output_tail, message=outcome.message,
            )
            executed += 1
            failed += outcome.status != "done"
            harness_total += outcome.harness_seconds
            reporter.execution_finished(execution, outcome)
    except KeyboardInterrupt:
        _finish(store, run, "interrupted", time.monotonic() - wall_start, harness_total)
        reporter.close()
        raise Interrupted(
            f"interrupted; {len(store.finished(run.run_id))} of {len(run.schedule)} trials are stored. "
            f"Resume with: rigorbench ab --resume {run.run_id} --store {store.path}"
        ) from None
    wall = time.monotonic() - wall_start
    _finish(store, run, "finished", wall, harness_total)
    reporter.close()
    return ExperimentResult(run.run_id, executed, failed, wall, harness_total)


def _finish(store: ResultStore, run: RunInfo, status: str, wall: float, harness_seconds: float) -> None:
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
    environment["version.source"] = version.info.source
    if version.info.commit:
        environment["version.commit"] = version.info.commit
    if version.info.dirty is not None:
        environment["version.dirty"] = str(version.info.dirty).lower()
    return environment
