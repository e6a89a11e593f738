"""What one execution is, wherever it runs: a :class:`TrialSpec` turned into one stored record.

Every executor (this machine, a cluster's worker) runs an execution (one version in one trial)
through :func:`run_execution`: one harness invocation per warmup that ``--warmup auto`` chose
(JMH's ``-wi`` is per invocation), the invocations merged into one record, and a record that
measured nothing stored as ``failed``. The spec is picklable, so it travels to workers as is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping

from rigorbench import __version__
from rigorbench.experiment.warmup import invocations, merged
from rigorbench.files import safe_name
from rigorbench.harness.base import DONE, FAILED, Build, Harness, Progress, RunSettings, TrialOutcome
from rigorbench.harness.environment import capture_environment
from rigorbench.store.api import Execution, TrialRecord


@dataclass(frozen=True)
class TrialSpec:
    """What every execution of the next trials runs: the run's harness settings
    (``RunSettings.as_dict()``), the benchmarks still open (None: all the run's) and the
    warmups ``--warmup auto`` chose (None: the configured warmup for all)."""

    settings: Mapping
    open: tuple[str, ...] | None = None
    warmups: Mapping[str, Mapping] | None = None

    def invocations(self, harness: Harness) -> list[RunSettings]:
        """The harness runs of one execution, each selecting its benchmarks in ``harness``'s syntax."""
        settings = RunSettings.from_dict(self.settings)
        if self.open is not None:
            settings = replace(settings, include=harness.exact_includes(self.open, settings.include))
        names = self.open if self.open is not None else list(self.warmups or ())
        return invocations(settings, self.warmups, names, harness)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def execution_dir(root: Path, execution: Execution) -> Path:
    """Where an execution keeps its harness's files (made on first use)."""
    where = root / f"{execution.position:03d}-trial{execution.trial + 1}-{safe_name(execution.label, 40, 'version')}"
    where.mkdir(parents=True, exist_ok=True)
    return where


def execution_environment(build: Build, facts: Mapping[str, str]) -> dict[str, str]:
    """What an execution records of the machine, the tools and the version (``facts``)."""
    environment = capture_environment(java=build.java_command[0] if build.java_command else "java")
    environment.update({f"tool.{k}": str(v) for k, v in build.tool_versions.items()})
    environment.update({"rigorbench_version": __version__, "build.cached": str(build.cached).lower()})
    environment.update(facts)
    return environment


def run_execution(harness: Harness, build: Build, spec: TrialSpec, work_dir: Path, environment: Mapping[str, str],
                  on_progress: Callable[[Progress], None]) -> tuple[TrialRecord, TrialOutcome]:
    """Run one version's execution of ``spec``: the record to store and the merged outcome."""
    runs = spec.invocations(harness)
    started = now_iso()
    outcome = failed_without_samples(merged([
        harness.run_trial(build, one, _part(work_dir, one, len(runs)), on_progress) for one in runs
    ]))
    record = TrialRecord(outcome.status, started, now_iso(), outcome.harness_seconds, outcome.series,
                         {**environment, **outcome.environment}, outcome.failures, outcome.output_tail, outcome.message)
    return record, outcome


def outcome_of(record: TrialRecord) -> TrialOutcome:
    """A stored record as the outcome progress reports (a cluster's records arrive stored)."""
    return TrialOutcome(status=record.status, series=tuple(record.series), harness_seconds=record.harness_seconds,
                        failures=tuple(record.failures), message=record.message)


def _part(work_dir: Path, settings: RunSettings, parts: int) -> Path:
    """Where one of an execution's harness runs keeps its files (the execution's own
    directory when it is the only one)."""
    if parts == 1:
        return work_dir
    part = work_dir / f"warmup{settings.warmup_iterations}"
    part.mkdir(exist_ok=True)
    return part


def failed_without_samples(outcome: TrialOutcome) -> TrialOutcome:
    """An execution that measured nothing (every fork crashed, say on a bad --jvm-args)
    failed, whatever the harness's exit code: it is stored as ``failed`` with the harness's
    output and counted as failed, never as a ``done`` execution with 0 samples."""
    measured = any(len(one.samples) and not one.samples.warmup.all() for one in outcome.series)
    if outcome.status != DONE or measured:
        return outcome
    reason = outcome.failures[0] if outcome.failures else "see the harness output stored with the trial"
    message = f"the trial produced no samples ({reason})"
    return replace(outcome, status=FAILED, message=outcome.message or message)

