"""Run an adaptive experiment: one trial at a time, each benchmark until it is decided.

The run starts with ``min_trials`` trials (RMIT, as a fixed design). After every complete
trial from then on, the benchmarks still open are compared at the sequential level
(:mod:`rigorbench.analysis.sequential`); the decided ones are retired and the next trial runs
only the open ones (exact ``--bench`` includes). Every trial is planned in the store just
before it runs, together with the retirements so far (one transaction), so an interrupted
run resumes with the same open benchmarks, and ``rigorbench runs`` never shows planned trials
that will not run.
"""

from __future__ import annotations

import time
from dataclasses import replace

from rigorbench.analysis.compare import compare_datasets
from rigorbench.analysis.dataset import Dataset, dataset_from_store
from rigorbench.analysis.sequential import Retirement, SequentialDesign, listed_name, look
from rigorbench.experiment.plan import make_schedule
from rigorbench.experiment.progress import Reporter, format_duration
from rigorbench.harness.base import Harness, RunSettings
from rigorbench.model import short_name
from rigorbench.store import ResultStore
from rigorbench.store.api import Execution, RunInfo

KEY = "until_decided"    # the design's place in the run's settings


def design_of(run: RunInfo) -> SequentialDesign | None:
    data = run.settings.get(KEY)
    return SequentialDesign.from_dict(data) if data else None


def complete_trials(store: ResultStore, run: RunInfo) -> int:
    """Trials every version of the run has stored (whatever their status)."""
    finished = store.finished(run.run_id)
    labels = [v.label for v in run.versions]
    return len({e.trial for e in run.schedule if all((e.trial, label) in finished for label in labels)})


def _only(dataset: Dataset, names: set[str]) -> Dataset:
    return replace(dataset, series={k: v for k, v in dataset.series.items() if listed_name(k[0].name, names) is not None})


def decide(store: ResultStore, run: RunInfo, design: SequentialDesign, open_names: tuple[str, ...], trials: int) -> dict[str, Retirement]:
    """The open benchmarks every contender's comparison with the baseline decides."""
    labels = [v.label for v in run.versions]
    wanted = set(open_names)
    base = _only(dataset_from_store(store, run.run_id, labels[0]), wanted)
    decided: dict[str, Retirement] | None = None
    for label in labels[1:]:
        contender = _only(dataset_from_store(store, run.run_id, label), wanted)
        found = look(compare_datasets(base, contender, design.look_settings), open_names, trials, design)
        if decided is None:
            decided = found
        else:   # decided only when decided against every contender; verdicts may differ between them
            decided = {name: _both(decided[name], r) for name, r in found.items() if name in decided}
    return decided or {}


def _both(first: Retirement, second: Retirement) -> Retirement:
    chances = [r.chance for r in (first, second) if r.chance is not None]
    return Retirement(first.verdict if first.verdict == second.verdict else "mixed", first.trials,
                      max(chances) if chances else None)


def _summary(design: SequentialDesign, names: tuple[str, ...], newly: dict[str, Retirement], trials: int) -> str:
    open_count = sum(name not in design.retired for name in names)
    line = f"after trial {trials}: {open_count} of {len(names)} benchmark{'s' if len(names) != 1 else ''} still open"
    decided = {name: r for name, r in newly.items() if r.verdict != "inconclusive"}
    given_up = {name: r for name, r in newly.items() if r.verdict == "inconclusive"}
    if decided:
        line += "; decided now: " + ", ".join(f"{short_name(name)} {r.verdict}" for name, r in sorted(decided.items()))
    if given_up:
        line += (f"; given up (a verdict by trial {design.max_trials} is unlikely): "
                 + ", ".join(f"{short_name(name)} ({r.chance:.0%} chance)" for name, r in sorted(given_up.items())))
    return line


def execute_until_decided(store: ResultStore, run_id: int, harness: Harness, builds: dict, reporter: Reporter):
    """Run trials of ``run_id`` until every benchmark of its design is decided or a budget
    is spent; returns the totals of this call as an :class:`ExperimentResult`."""
    from rigorbench.experiment.runner import ExperimentResult, execute_run

    executed = failed = 0
    wall = harness_seconds = waited = 0.0
    while True:
        run = store.run(run_id)
        design = design_of(run)
        names = tuple(design.benchmarks)
        open_names = tuple(n for n in names if n not in design.retired)
        settings = replace(RunSettings.from_dict(run.settings["run"]), include=harness.exact_includes(open_names))
        cases = sum(design.benchmarks[n] for n in open_names)
        started = time.monotonic()
        result = execute_run(store, run, harness, builds, reporter, cases, settings=settings, trials_shown=design.max_trials,
                             names=open_names)
        executed, failed = executed + result.executed, failed + result.failed
        wall, harness_seconds = wall + result.wall_seconds, harness_seconds + result.harness_seconds
        waited += result.waited_seconds
        trial_seconds = time.monotonic() - started
        run = store.run(run_id)
        trials = complete_trials(store, run)
        newly = decide(store, run, design, open_names, trials) if trials >= design.min_trials and open_names else {}
        design = replace(design, retired={**design.retired, **newly})
        reporter.message(_summary(design, names, newly, trials))
        # The next trial runs only the open benchmarks: about their share of this one's time.
        next_seconds = trial_seconds * sum(design.benchmarks[n] for n in names if n not in design.retired) / max(1, cases)
        reason = _stop_reason(design, names, trials, (run.wall_seconds or 0.0), next_seconds)
        if reason:
            store.extend_run(run_id, [], {KEY: design.as_dict()})
            store.finish_run(run_id, status="finished", wall_seconds=run.wall_seconds, harness_seconds=run.harness_seconds)
            reporter.message(reason)
            reporter.close()
            return ExperimentResult(run_id, executed, failed, wall, harness_seconds, waited)
        labels = [v.label for v in run.versions]
        extra = make_schedule(labels, 1, run.order, run.seed + 1000 * trials)
        offset = len(run.schedule)
        store.extend_run(run_id, [Execution(e.trial + trials, e.label, e.position + offset) for e in extra], {KEY: design.as_dict()})


def _stop_reason(design: SequentialDesign, names: tuple[str, ...], trials: int, wall_seconds: float, trial_seconds: float) -> str | None:
    """Why the experiment stops after ``trials`` trials, or None to run another."""
    open_count = sum(name not in design.retired for name in names)
    if not open_count:
        if any(r.verdict == "inconclusive" for r in design.retired.values()):
            return f"every benchmark decided or given up after {trials} trials"
        return f"every benchmark decided after {trials} trials"
    undecided = f"{open_count} benchmark{'s' if open_count != 1 else ''} still undecided"
    if trials >= design.max_trials:
        return f"stopped at --max-trials {design.max_trials}: {undecided}"
    if design.max_seconds is not None and wall_seconds + trial_seconds > design.max_seconds:
        return (f"stopped after {format_duration(wall_seconds)}: another trial (about {format_duration(trial_seconds)}) "
                f"would pass --max-time {format_duration(design.max_seconds)}; {undecided}")
    return None
