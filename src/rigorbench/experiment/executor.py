"""Where trials run: the :class:`Executor` protocol and the executor of this machine.

The driver (:mod:`rigorbench.experiment.driver`) decides *what* runs and *when to stop*; an
executor only runs what it is given. It plans the executions of new trials (RMIT order, or
its instances' slots on a cluster), runs a version's pilot fork, runs pending executions and
hands each finished one to a *sink* that commits it at once, and cancels what is in flight.
``parallelism`` is how many trials one look of an adaptive experiment adds (one per instance
on a cluster, so every instance has work). The cluster's executor is
``rigorbench.cluster.executor.ClusterExecutor``; this package never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence

from rigorbench.experiment.machine_lock import one_trial_at_a_time
from rigorbench.experiment.plan import make_schedule
from rigorbench.experiment.progress import Reporter
from rigorbench.experiment.trial import TrialSpec, execution_dir, execution_environment, run_execution
from rigorbench.harness.base import Harness, RunSettings, TrialOutcome
from rigorbench.harness.environment import capture_environment, fitness_warnings
from rigorbench.store.api import Execution, RunInfo, TrialRecord

# Commits finished executions (one trial's on a cluster, all at once) to the store.
Sink = Callable[[Sequence[tuple[Execution, TrialRecord]]], None]


@dataclass
class Totals:
    """What an executor ran in this session."""

    executed: int = 0
    failed: int = 0
    harness_seconds: float = 0.0
    waited_seconds: float = 0.0          # waiting for other experiments' trials on this machine
    instances_used: set[str] = field(default_factory=set)

    def since(self, before: "Totals") -> "Totals":
        """What was run after ``before`` (a copy of these totals taken earlier)."""
        return Totals(self.executed - before.executed, self.failed - before.failed,
                      self.harness_seconds - before.harness_seconds, self.waited_seconds - before.waited_seconds,
                      set(self.instances_used))

    def add(self, outcome: TrialOutcome) -> None:
        self.executed += 1
        self.failed += outcome.status != "done"
        self.harness_seconds += outcome.harness_seconds


class Executor(Protocol):
    parallelism: int                     # trials one look adds
    instances: int                       # machines that measure at once (for the overhead figure)
    totals: Totals

    builds: Mapping                      # {label: (PreparedVersion, Build)} once attached

    def check(self, settings: RunSettings) -> None: ...
    def where(self) -> str: ...
    def describe(self) -> str: ...
    def stored(self) -> Mapping: ...     # RunSetup.executor
    def first_trials(self, trials: int, per_instance: bool) -> int: ...
    def schedule(self, labels: Sequence[str], first_trial: int, count: int, seed: int, first_position: int) -> list[Execution]: ...
    def attach(self, builds: Mapping, work_dir: Path, build_specs: Mapping, harness: str) -> None: ...
    def pilot(self, label: str, settings: RunSettings, work_dir: Path) -> TrialOutcome: ...
    def run(self, run: RunInfo, pending: Sequence[Execution], spec: TrialSpec, sink: Sink) -> None: ...
    def cancel(self) -> None: ...
    def finished(self, run: RunInfo, wall_seconds: float) -> list[str]: ...


class LocalExecutor:
    """Trials on this machine, one execution at a time, each under the machine's trial lock
    (:mod:`rigorbench.experiment.machine_lock`), so two experiments never measure at once."""

    parallelism = 1
    instances = 1

    def __init__(self, harness: Harness, reporter: Reporter, order: str = "rmit") -> None:
        self.harness, self.reporter, self.order = harness, reporter, order
        self.builds: Mapping = {}
        self.work_dir = Path(".")
        self.totals = Totals()

    def check(self, settings: RunSettings) -> None:
        """This machine's fitness to measure (load, governor ...), said before anything is built."""
        for warning in fitness_warnings(capture_environment(), settings):
            self.reporter.message(f"{warning.severity}: {warning.message}" + (f" ({warning.hint})" if warning.hint else ""))

    def where(self) -> str:
        return ""

    def describe(self) -> str:
        return f"order {self.order}"

    def stored(self) -> Mapping:
        return {"kind": "local"}

    def first_trials(self, trials: int, per_instance: bool) -> int:
        return trials

    def schedule(self, labels: Sequence[str], first_trial: int, count: int, seed: int, first_position: int) -> list[Execution]:
        return [Execution(e.trial + first_trial, e.label, e.position + first_position)
                for e in make_schedule(list(labels), count, self.order, seed)]

    def attach(self, builds: Mapping, work_dir: Path, build_specs: Mapping, harness: str) -> None:
        """The versions' builds (``{label: (PreparedVersion, Build)}``) and the store's work folder."""
        self.builds, self.work_dir = builds, work_dir

    def pilot(self, label: str, settings: RunSettings, work_dir: Path) -> TrialOutcome:
        _, build = self.builds[label]
        with one_trial_at_a_time(self.reporter.message), self.reporter.working(f"pilot of {label}"):
            return self.harness.run_trial(build, settings, work_dir, lambda event: None)

    def run(self, run: RunInfo, pending: Sequence[Execution], spec: TrialSpec, sink: Sink) -> None:
        root = self.work_dir / "runs" / str(run.run_id)
        for execution in pending:
            self.reporter.execution_started(execution)
            version, build = self.builds[execution.label]
            work_dir = execution_dir(root, execution)
            environment = execution_environment(build, version_facts(version))
            with one_trial_at_a_time(self.reporter.message) as waited:
                self.totals.waited_seconds += waited
                record, outcome = run_execution(self.harness, build, spec, work_dir, environment, self.reporter.progress)
            sink([(execution, record)])
            self.totals.add(outcome)
            self.reporter.execution_finished(execution, outcome)

    def cancel(self) -> None:
        """Nothing runs beside the caller: a Ctrl-C has already stopped the harness process."""

    def finished(self, run: RunInfo, wall_seconds: float) -> list[str]:
        return []


def version_facts(version) -> dict[str, str]:
    """What an execution's environment records of its version (a PreparedVersion); on a
    cluster the worker adds its machine's."""
    facts = {"version.source": version.info.source}
    if version.info.commit:
        facts["version.commit"] = version.info.commit
    if version.info.dirty is not None:
        facts["version.dirty"] = str(version.info.dirty).lower()
    return facts
