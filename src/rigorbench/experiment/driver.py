"""The experiment driver: one loop for every command that runs trials, started or resumed.

Prepare the versions (build, select, cache; :mod:`rigorbench.experiment.prepare`), store the
run with its one typed setup (``settings["setup"]``: executor, stopping rule, warmups), then
look by look: the executor runs the pending executions and hands each finished one to the
store at once; the stopping rule (:mod:`rigorbench.analysis.stopping`) reads the look and
says which benchmarks stay open and how many trials to add; the driver plans them in the
store (with the rule's state, one transaction) or finishes. Any executor works with any rule.

Guarantees (issue "run versions as a designed experiment"): a finished execution is committed
before the next one starts, so a crash or ``kill -9`` loses at most the executions running;
Ctrl-C stops after killing the harness processes and says how to resume; resuming runs only
the (trial, version) pairs the store does not have, so nothing is stored twice.
"""

from __future__ import annotations

import copy
import shlex
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from rigorbench import __version__
from rigorbench.analysis.compare import compare_datasets
from rigorbench.analysis.dataset import Dataset, dataset_from_store
from rigorbench.analysis.stopping import FixedTrials, StoppingRule, listed_name, rule_from_dict
from rigorbench.errors import Interrupted, UserError
from rigorbench.experiment.executor import Executor, Totals
from rigorbench.experiment.plan import ExperimentPlan
from rigorbench.experiment.prepare import BeforeBuild, build_cache_dir, built_versions, listed_cases, rebuilt, select
from rigorbench.experiment.progress import Reporter, format_duration
from rigorbench.experiment.selection import cases, cases_in, estimated_seconds
from rigorbench.experiment.trial import TrialSpec, now_iso
from rigorbench.experiment.warmup import describe, run_pilots
from rigorbench.harness import get_harness
from rigorbench.harness.base import Harness, RunSettings
from rigorbench.store import ResultStore
from rigorbench.store.location import without_password
from rigorbench.store.api import SETUP_KEY, Execution, RunInfo, RunSetup


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


def start_experiment(plan: ExperimentPlan, store: ResultStore, reporter: Reporter, executor: Executor,
                     before_build: BeforeBuild | None = None, build_cache: bool = True) -> ExperimentResult:
    """Build, choose warmups (``--warmup auto``), store the run with its setup, and drive it."""
    harness = get_harness(plan.harness)
    project = Path(plan.project)
    if not project.is_dir():
        raise UserError(f"{plan.project}: no such project directory")
    if plan.until_decided is not None or plan.pilot_warmup is not None:
        # Both run a subset of the benchmarks in a harness run: refused before anything is
        # built when the harness cannot select one (pyperf scripts run all theirs).
        harness.exact_includes(())
    executor.check(plan.settings)
    cache_dir = build_cache_dir(store) if build_cache else None
    with built_versions(project, plan.versions, harness, reporter, before_build, cache_dir) as builds:
        run_settings, selection = select(builds, harness, plan.settings, reporter)
        executor.attach(builds, store.work_dir, {v.label: v.build for v in plan.versions}, plan.harness)
        warmups = None
        if plan.pilot_warmup is not None:
            work_root = store.work_dir / "runs" / f"pilot-{now_iso().replace(':', '')}"
            warmups = run_pilots(executor.pilot, list(builds), run_settings, selection.common, work_root, reporter,
                                 harness, plan.pilot_warmup)
            for line in describe(warmups, plan.pilot_warmup):
                reporter.message(line)
        rule = _first_rule(plan, executor, {n: cases(selection.params[n], run_settings) for n in selection.common})
        labels = [v.label for v in plan.versions]
        first = rule.min_trials if not isinstance(rule, FixedTrials) else rule.trials
        setup = RunSetup(executor.stored(), rule.as_dict(), warmups, plan.pilot_warmup)
        settings = {
            "run": run_settings.as_dict(), "trials": first, "build": {v.label: v.build.as_dict() for v in plan.versions},
            "not_run": {name: list(labels) for name, labels in selection.partial.items()},
            "build_cache": build_cache, **(plan.notes or {}), SETUP_KEY: setup.as_dict(),
        }
        run_id = store.create_run(
            harness=plan.harness, project=str(project), order=plan.order, seed=plan.seed, settings=settings,
            versions=[builds[label][0].info for label in labels], schedule=executor.schedule(labels, 0, first, plan.seed, 0),
            tool_version=__version__,
        )
        count = len(selection.common)
        what = f"{len(labels)} version{'s' if len(labels) != 1 else ''} x {count} benchmark{'s' if count != 1 else ''}"
        trials = f"{first} trials x " if isinstance(rule, FixedTrials) else ""
        adaptive = f"; {rule.describe()}" if not isinstance(rule, FixedTrials) else ""
        execution = estimated_seconds(selection, run_settings, 1, warmups) / len(labels)
        reporter.message(f"run {run_id}: {trials}{what}, {executor.describe()}, seed {plan.seed}{adaptive}; about "
                         f"{format_duration(execution)} per execution (one version in one trial)")
        return drive(store, run_id, harness, executor, reporter, cases_in(selection, run_settings))


def _first_rule(plan: ExperimentPlan, executor: Executor, benchmarks: dict[str, int]) -> StoppingRule:
    """The plan's stopping rule on ``executor``: a cluster's ``--trials`` are per instance, and
    an adaptive look there adds one trial per instance (the looks' level counts it)."""
    if plan.until_decided is None:
        return FixedTrials(executor.first_trials(plan.trials, per_instance=True))
    first = executor.first_trials(plan.until_decided.min_trials, per_instance=False)
    if first > plan.until_decided.max_trials:
        raise UserError(f"--max-trials {plan.until_decided.max_trials} is less than the first look's {first} trials "
                        f"(--min-trials {plan.until_decided.min_trials} on {executor.parallelism} instances)")
    return replace(plan.until_decided, min_trials=first, step=executor.parallelism, benchmarks=benchmarks)


def resume_experiment(run_id: int, store: ResultStore, reporter: Reporter, executor: Executor) -> ExperimentResult:
    """Rebuild the run's versions and drive it on from what the store has."""
    run = store.run(run_id)
    harness = get_harness(run.harness)
    with rebuilt(run, store, harness, reporter) as (builds, specs):
        executor.attach(builds, store.work_dir, specs, run.harness)
        done = len(store.finished(run_id))
        reporter.message(f"resuming run {run_id}{executor.where()}: {done} of {len(run.schedule)} executions already stored")
        return drive(store, run_id, harness, executor, reporter)


def next_look_seconds(seconds: float, executed: Sequence[Execution], step: int) -> float:
    """What the next look's ``step`` trials would take, from the ``seconds`` this look's
    executions took: the first look runs --min-trials trials, later ones ``step``, so the time
    per trial is what scales (with the first look's whole time, a 3-trial first look made
    --max-time stop a run whose next trial fitted easily)."""
    trials = len({e.trial for e in executed})
    return seconds / max(1, trials) * step


def drive(store: ResultStore, run_id: int, harness: Harness, executor: Executor, reporter: Reporter,
          cases_per_trial: int | None = None) -> ExperimentResult:
    """Run the run's pending executions, look, and go on until its rule stops it."""
    started, before = time.monotonic(), store.run(run_id)
    earlier = copy.deepcopy(executor.totals)   # an executor may drive several runs (bisect's probes)
    try:
        while True:
            run = store.run(run_id)
            setup = run.setup
            rule = rule_from_dict(setup.rule)
            spec = TrialSpec(run.settings["run"], rule.open_benchmarks(), setup.warmups)
            finished = store.finished(run_id)
            pending = [e for e in run.schedule if (e.trial, e.label) not in finished]
            _start_progress(reporter, run, rule, spec, harness, executor, len(pending), cases_per_trial)
            look_started = time.monotonic()
            executor.run(run, pending, spec, lambda items: store.record_executions(run_id, items))
            reporter.close()
            run = store.run(run_id)
            trials = complete_trials(store, run)
            results = _look_results(store, run, rule, trials)
            look = rule.look(results, trials, (before.wall_seconds or 0.0) + time.monotonic() - started,
                             next_look_seconds(time.monotonic() - look_started, pending, getattr(rule, "step", 1)))
            if look.message:
                reporter.message(look.message)
            changed = {SETUP_KEY: replace(run.setup, rule=look.rule.as_dict()).as_dict()}
            if look.more_trials:
                labels = [v.label for v in run.versions]
                extra = executor.schedule(labels, trials, look.more_trials, run.seed + 1000 * trials, len(run.schedule))
                store.extend_run(run_id, extra, changed)
                continue
            if look.rule != rule:
                store.extend_run(run_id, [], changed)
            wall = time.monotonic() - started
            totals = executor.totals.since(earlier)
            finish_run(store, before, "finished", wall, totals.harness_seconds)
            for line in ([look.stop_reason] if look.stop_reason else []) + executor.finished(store.run(run_id), wall):
                reporter.message(line)
            return ExperimentResult(run_id, totals.executed, totals.failed, wall, totals.harness_seconds,
                                    totals.waited_seconds, executor.instances)
    except KeyboardInterrupt:
        _stopped(store, before, executor, reporter, time.monotonic() - started, earlier)
        raise interrupted(store, before) from None
    except UserError as error:   # a cluster that lost a trial too often, say: what is stored stays
        _stopped(store, before, executor, reporter, time.monotonic() - started, earlier)
        raise UserError(f"{error}; {len(store.finished(run_id))} of {len(store.run(run_id).schedule)} executions are stored; "
                        f"resume with: {resume_hint(store, before)}") from None


def _stopped(store: ResultStore, run: RunInfo, executor: Executor, reporter: Reporter, wall: float, earlier: Totals) -> None:
    executor.cancel()
    finish_run(store, run, "interrupted", wall, executor.totals.since(earlier).harness_seconds)
    reporter.close()


def _start_progress(reporter: Reporter, run: RunInfo, rule: StoppingRule, spec: TrialSpec, harness: Harness,
                    executor: Executor, pending: int, cases_per_trial: int | None) -> None:
    """The progress bar of one look: its executions and their iterations."""
    settings = RunSettings.from_dict(run.settings["run"])
    if spec.open is not None:
        cases_per_trial = sum(rule.benchmarks[n] for n in spec.open)
    elif cases_per_trial is None:
        cases_per_trial = listed_cases(harness, executor.builds[run.versions[0].label][1], settings)
    iterations = max(1, cases_per_trial) * settings.forks * (settings.warmup_iterations + settings.iterations)
    shown = rule.last if not isinstance(rule, FixedTrials) else int(run.settings.get("trials", 1))
    reporter.start(pending, shown, iterations)


def complete_trials(store: ResultStore, run: RunInfo) -> int:
    """Trials every version of the run has stored (whatever their status)."""
    finished = store.finished(run.run_id)
    labels = [v.label for v in run.versions]
    return len({e.trial for e in run.schedule if all((e.trial, label) in finished for label in labels)})


def _look_results(store: ResultStore, run: RunInfo, rule: StoppingRule, trials: int) -> list:
    """Each contender's comparison with the baseline on the open benchmarks, at the looks'
    level (none when the rule does not read comparisons, or before its first look)."""
    open_names = rule.open_benchmarks()
    if not rule.needs_comparisons or open_names == () or trials < rule.min_trials:
        return []
    labels = [v.label for v in run.versions]
    base = _only(dataset_from_store(store, run.run_id, labels[0]), open_names)
    return [compare_datasets(base, _only(dataset_from_store(store, run.run_id, label), open_names), rule.look_settings)
            for label in labels[1:]]


def _only(dataset: Dataset, names: Sequence[str] | None) -> Dataset:
    """``dataset`` restricted to the benchmarks ``names`` (None: all of them)."""
    if names is None:
        return dataset
    listed = set(names)
    return replace(dataset, series={k: v for k, v in dataset.series.items() if listed_name(k[0].name, listed) is not None})


def interrupted(store: ResultStore, run: RunInfo) -> Interrupted:
    """The error of a run stopped by Ctrl-C: what is stored, and the command that resumes it."""
    return Interrupted(f"interrupted; {len(store.finished(run.run_id))} of {len(store.run(run.run_id).schedule)} "
                       f"executions are stored. Resume with: {resume_hint(store, run)}")


def resume_hint(store: ResultStore, run: RunInfo) -> str:
    """The command that resumes ``run``. A store URL is shown without its password, which
    the hint never holds (not even masked: ``***`` would be taken as the password)."""
    shown = without_password(store.path)
    password = (" (the password in PGPASSWORD or ~/.pgpass, or give --store the URL with its password again)"
                if shown != str(store.path) else "")
    if "bisect" in run.settings:   # a probe: the bisection takes its stored probes up again
        return (f"the same rigorbench bisect command with --store {shlex.quote(shown)}{password} (its finished probes "
                f"are reused and this one goes on)")
    return f"rigorbench {resume_command(run)} --resume {run.run_id} --store {shlex.quote(shown)}{password}"


def resume_command(run: RunInfo) -> str:
    """The command that resumes ``run``: the one that started it, when it noted itself
    (``record``), else ``ab``."""
    command = run.settings.get("command")
    return command if command in ("record",) else "ab"


def finish_run(store: ResultStore, run: RunInfo, status: str, wall: float, harness_seconds: float) -> None:
    """Record the run's status; times add up over resumed sessions (``run`` as it was before this one)."""
    store.finish_run(
        run.run_id, status=status,
        wall_seconds=(run.wall_seconds or 0.0) + wall,
        harness_seconds=(run.harness_seconds or 0.0) + harness_seconds,
    )
