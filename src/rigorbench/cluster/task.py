"""What a worker runs: one trial, that is every execution the dispatcher gave it, back to back
on this machine, returned as records for the submitting machine to store.

Nothing is stored here: the task returns its records only when the whole trial has run, so a
worker that dies mid-trial leaves nothing half-done behind, and the dispatcher runs that
trial again (``dispatch``). The trial holds this machine's trial lock
(:mod:`rigorbench.experiment.machine_lock`), so a local ``rigorbench ab`` never overlaps it,
and the workers of ``local:N``, which share one machine, take turns.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from rigorbench.cluster.bundle import BundleInfo, shipped_build, source_dir, unpack
from rigorbench.experiment.machine_lock import one_trial_at_a_time
from rigorbench.experiment.trial import TrialSpec, execution_dir, execution_environment, run_execution
from rigorbench.files import safe_name
from rigorbench.harness import get_harness
from rigorbench.harness.base import Build, BuildSpec, RunSettings
from rigorbench.store.api import Execution, TrialRecord

# Where a worker unpacks bundles and keeps trial output (default: ~/.cache/rigorbench/worker).
WORK_DIR_ENV = "RIGORBENCH_WORKER_DIR"

# Builds made on this worker process (--build-on-workers), by bundle hash.
_BUILT: dict[str, Build] = {}


@dataclass(frozen=True)
class TrialTask:
    run_id: int
    trial: int
    executions: tuple[Execution, ...]     # in the order to run them (random within a trial-based trial)
    harness: str
    spec: TrialSpec                       # what each execution runs (the same on every executor)
    bundles: Mapping[str, BundleInfo]     # by version label
    instance: str                         # the instance the dispatcher sent it to


@dataclass(frozen=True)
class TaskResult:
    trial: int
    instance: str
    host: str
    records: tuple[tuple[Execution, TrialRecord], ...]
    notes: tuple[str, ...] = ()           # what the worker did besides running (builds)


def worker_root() -> Path:
    configured = os.environ.get(WORK_DIR_ENV)
    return Path(configured) if configured else Path.home() / ".cache" / "rigorbench" / "worker"


def run_trial_task(task: TrialTask, payloads: Mapping[str, bytes]) -> TaskResult:
    """Run one trial on this worker (called by Dask; ``payloads`` are the bundles' bytes)."""
    harness = get_harness(task.harness)
    root = worker_root()
    notes: list[str] = []
    labels = list(dict.fromkeys(e.label for e in task.executions))
    builds = {label: _build(harness, task.bundles[label], payloads[label], root, task.instance, notes) for label in labels}
    records = []
    with one_trial_at_a_time(lambda _: None):
        for execution in task.executions:
            build = builds[execution.label]
            work_dir = execution_dir(root / "runs" / (f"run{task.run_id}" if task.run_id else "pilot"), execution)
            environment = execution_environment(build, {
                "build.on_worker": str(task.bundles[execution.label].build_on_worker).lower(),
                "instance": task.instance, "instance.host": socket.gethostname()})
            record, _ = run_execution(harness, build, task.spec, work_dir, environment, lambda event: None)
            records.append((execution, record))
    return TaskResult(task.trial, task.instance, socket.gethostname(), tuple(records), tuple(notes))


def _build(harness, info: BundleInfo, data: bytes, root: Path, instance: str, notes: list[str]) -> Build:
    """The version's build on this worker: the shipped artifact, or (--build-on-workers) built
    here once per bundle and worker process."""
    if not info.build_on_worker:
        return shipped_build(info, unpack(info, data, root / "bundles"))
    if info.sha256 in _BUILT:
        return _BUILT[info.sha256]
    unpacked = unpack(info, data, root / "bundles", private=safe_name(instance, 40, "worker"))
    build = harness.build(source_dir(info, unpacked), BuildSpec.from_dict(info.build), lambda line: None, None)
    notes.append(f"built {info.label} on {instance} in {build.seconds:.0f} s")
    _BUILT[info.sha256] = build
    return build


def fitness_report(settings: Mapping) -> list[tuple[str, str]]:
    """This worker's environment warnings (run on each instance before trials are sent)."""
    from rigorbench.harness.environment import capture_environment, fitness_warnings

    found = fitness_warnings(capture_environment(), RunSettings.from_dict(settings))
    return [(w.severity, w.message + (f" ({w.hint})" if w.hint else "")) for w in found]
