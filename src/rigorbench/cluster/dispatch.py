"""Hand trials to instances and store each as it arrives (the submitting side of ``--cluster``).

Dask places tasks itself, but it cannot keep the designs' promises alone: a task pinned to a
worker that died waits forever, and one allowed anywhere could run an instance-based
version on the other version's instance. So the dispatcher keeps them, and Dask carries the
work:

* every instance has at most one trial in flight (and its worker's single ``benchmark``
  slot makes that true whoever else uses the cluster); an instance takes the trials of its
  own slot, in order;
* a trial whose worker died or restarted is *orphaned*: any idle instance may run it (under
  instance-based sampling only one of the same version's instances, or a spare worker,
  which then belongs to that version), the same instance too when it is back; an instance
  gone for ``ORPHAN_AFTER_S`` leaves all its trials to the others;
* a trial is stored when its result arrives, all its versions in one transaction, with the
  instance that ran it; a lost trial's partial work never reaches the store, and a trial is
  never stored twice (the store refuses it), so resuming runs exactly what is missing.
"""

from __future__ import annotations

import collections
import time
import uuid
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import numpy as np

from rigorbench.experiment.address import SLOT
from rigorbench.cluster.bundle import BundleInfo
from rigorbench.cluster.design import Placement
from rigorbench.cluster.session import ClusterSession
from rigorbench.cluster.task import TaskResult, TrialTask, fitness_report, run_trial_task
from rigorbench.errors import UserError
from rigorbench.experiment.executor import Sink, Totals
from rigorbench.experiment.progress import Reporter
from rigorbench.experiment.trial import TrialSpec, outcome_of
from rigorbench.store import ResultStore
from rigorbench.store.api import SETUP_KEY, Execution, RunInfo

ORPHAN_AFTER_S = 30.0     # an instance gone this long leaves its trials to the others
POLL_S = 0.5              # how often the dispatcher looks at the cluster while trials run
MAX_ATTEMPTS = 3          # a trial that lost its worker this often stops the run (it may be what kills them)


@dataclass
class Job:
    trial: int
    executions: tuple[Execution, ...]
    slot: int
    version: str | None       # instance-based: the one version it runs
    attempts: int = 0


class Dispatcher:
    def __init__(self, session: ClusterSession, store: ResultStore, run: RunInfo,
                 bundles: Mapping[str, tuple[BundleInfo, bytes]], reporter: Reporter,
                 version_environment: Mapping[str, Mapping[str, str]], spec: TrialSpec, sink: Sink,
                 totals: Totals | None = None) -> None:
        self.session, self.store, self.run, self.harness = session, store, run, run.harness
        self.spec, self.sink = spec, sink
        self.bundles = {label: info for label, (info, _) in bundles.items()}
        self.data = {label: data for label, (_, data) in bundles.items()}
        self.payloads: dict[str, object] = {}      # the bundles' bytes on the cluster (Dask futures)
        self.checked: set[str] = set()             # instances whose environment was checked
        self.reporter = reporter
        self.version_environment = version_environment
        self.cluster = dict(run.setup.cluster)
        self.design = Placement.from_dict(self.cluster)
        self.labels = [v.label for v in run.versions]
        self.slots: list[str | None] = list(self.cluster.get("slots", []))
        self.names: list[str] = list(self.cluster.get("instance_names", []))   # instance codes of the samples
        self.assigned: dict[str, str] = {}
        if self.design.design == "instance-based":
            self.assigned = {name: self.design.version_of_slot(i, self.labels) for i, name in enumerate(self.slots) if name}
        self.queues: dict[int, collections.deque[Job]] = collections.defaultdict(collections.deque)
        self.orphans: collections.deque[Job] = collections.deque()
        self.inflight: dict[str, tuple[object, Job, str]] = {}
        self.absent_since: dict[int, float] = {}
        self.totals = totals if totals is not None else Totals()
        self.trials = len({e.trial for e in run.schedule})

    # -- planning ---------------------------------------------------------------------

    def plan(self, pending: Sequence[Execution]) -> int:
        """Queue the pending executions by trial; the number of executions queued."""
        by_trial: dict[int, list[Execution]] = collections.defaultdict(list)
        for execution in pending:
            by_trial[execution.trial].append(execution)
        for trial, executions in sorted(by_trial.items()):
            slot = self.design.slot_of(trial)
            self.queues[slot].append(Job(trial, tuple(executions), slot, self.design.version_of_slot(slot, self.labels)))
        return sum(len(v) for v in by_trial.values())

    # -- the loop ---------------------------------------------------------------------

    def execute(self) -> Totals:
        from distributed import wait

        started = time.monotonic()
        nobody_since: float | None = None
        waiting_said = False
        while self.inflight or self.orphans or any(self.queues.values()):
            live = self.session.instances()
            now = time.monotonic()
            self._find_lost(live)
            self._orphan_absent(live, now, started)
            for name, address in sorted(live.items()):
                if name not in self.inflight and (job := self._take(name)) is not None:
                    self._submit(name, address, job)
            if not live:
                if nobody_since is None:
                    nobody_since = now
                    self.reporter.message("no benchmarking worker is connected; waiting for one (Ctrl-C stops; --resume continues later)")
            else:
                nobody_since = None
                if self.orphans and not self.inflight and not waiting_said:
                    waiting_said = True   # instance-based: an orphan needs its version's instance or a spare
                    self.reporter.message("waiting: no connected instance may run the trials left (an instance-based "
                                          "trial runs on an instance of its version or a spare worker); Ctrl-C stops")
            futures = [future for future, _, _ in self.inflight.values()]
            if not futures:
                time.sleep(POLL_S)
                continue
            try:
                done, _ = wait(futures, timeout=POLL_S, return_when="FIRST_COMPLETED")
            except TimeoutError:     # none finished within POLL_S: look at the cluster again
                continue
            for name, (future, job, address) in list(self.inflight.items()):
                if future in done:
                    self._collect(name, future, job)
        return self.totals

    def _take(self, name: str) -> Job | None:
        """The next trial for instance ``name``: an orphan it may run, else its own slot's."""
        for job in list(self.orphans):
            if job.version is None or self.assigned.get(name, job.version) == job.version:
                self.orphans.remove(job)
                if job.version is not None:
                    self.assigned.setdefault(name, job.version)
                return job
        if name in self.slots:
            queue = self.queues.get(self.slots.index(name))
            if queue:
                return queue.popleft()
        return None

    def _submit(self, name: str, address: str, job: Job) -> None:
        if name not in self.checked:      # an instance's environment is reported before its first trial
            report_fitness(self.session, {name: address}, self.run.settings["run"], self.reporter)
            self.checked.add(name)
        order = job.executions
        task = TrialTask(self.run.run_id, job.trial, order, self.harness, self.spec,
                         {label: self.bundles[label] for label in {e.label for e in order}}, name)
        payloads = {label: self._payload(label) for label in task.bundles}
        future = self.session.client.submit(
            run_trial_task, task, payloads, workers=[address], allow_other_workers=False, resources={SLOT: 1},
            pure=False, retries=0, key=f"rigorbench-run{self.run.run_id}-trial{job.trial + 1}-{uuid.uuid4().hex[:8]}",
        )
        self.inflight[name] = (future, job, address)

    def _payload(self, label: str):
        """The version's bundle on the cluster: scattered to every worker (so a dead one takes
        none of it along), and again if every copy was lost."""
        future = self.payloads.get(label)
        if future is None or future.status != "finished":
            future = self.payloads[label] = self.session.client.scatter(self.data[label], broadcast=True, hash=False)
        return future

    def _find_lost(self, live: Mapping[str, str]) -> None:
        """Trials whose worker is gone, restarted or killed: orphaned, to run again."""
        from distributed import KilledWorker

        for name, (future, job, address) in list(self.inflight.items()):
            if future.status == "finished" and address:
                continue          # done before its worker went: collected, not run again
            gone = live.get(name) != address
            killed = future.status == "error" and isinstance(future.exception(), KilledWorker)
            if gone or killed or future.status == "cancelled":
                future.cancel()
                del self.inflight[name]
                job.attempts += 1
                if job.attempts >= MAX_ATTEMPTS:
                    raise UserError(f"trial {job.trial + 1} lost its worker {job.attempts} times (last on instance {name}); "
                                    "it may be what kills them: look at the worker's log")
                self.reporter.message(f"instance {name} was lost during trial {job.trial + 1}; it runs again "
                                      "on the next free instance (nothing of it was stored)")
                self.orphans.appendleft(job)

    def _orphan_absent(self, live: Mapping[str, str], now: float, started: float) -> None:
        for slot, queue in self.queues.items():
            name = self.slots[slot] if slot < len(self.slots) else None
            if not queue or (name is not None and name in live):
                self.absent_since.pop(slot, None)
                continue
            since = self.absent_since.setdefault(slot, now if name is not None else started)
            if now - since >= ORPHAN_AFTER_S or name is None:
                who = f"instance {name} has been gone for {now - since:.0f} s" if name else f"instance slot {slot + 1} has no worker"
                self.reporter.message(f"{who}: its {len(queue)} remaining trial{'s' if len(queue) != 1 else ''} go to the other instances")
                self.orphans.extend(queue)
                queue.clear()

    def _collect(self, name: str, future, job: Job) -> None:
        """A finished task: store its trial, or orphan it when its worker was lost."""
        from distributed import KilledWorker
        from distributed.comm.core import CommClosedError

        del self.inflight[name]
        if future.status != "finished":
            error = future.exception()
            if isinstance(error, (KilledWorker, CommClosedError)):
                self.inflight[name] = (future, job, "")   # _find_lost orphans it on the next pass
                return
            raise UserError(f"trial {job.trial + 1} on instance {name} failed: {type(error).__name__}: {error}")
        try:
            result: TaskResult = future.result()
        except Exception:         # the result was held by a worker that is gone since
            self.inflight[name] = (future, job, "")
            return
        self._store(result)

    def _store(self, result: TaskResult) -> None:
        code = self._instance_code(result.instance)
        items = []
        for execution, record in result.records:
            series = tuple(replace(one, samples=replace(one.samples, instance=np.full(len(one.samples), code)))
                           for one in record.series)
            environment = {**self.version_environment.get(execution.label, {}), **record.environment}
            items.append((execution, replace(record, series=series, environment=environment)))
        self.sink(items)
        self.totals.instances_used.add(result.instance)
        self.reporter.message(f"trial {result.trial + 1}/{self.trials} ran on instance {result.instance}"
                              + "".join(f"; {note}" for note in result.notes))
        for execution, record in items:
            outcome = outcome_of(record)
            self.reporter.execution_started(execution)
            self.reporter.execution_finished(execution, outcome)
            self.totals.add(outcome)

    def _instance_code(self, name: str) -> int:
        """The instance's integer code in the samples (its place in the run's instance list)."""
        if name not in self.names:
            self.names.append(name)
            self.cluster["instance_names"] = list(self.names)
            setup = self.store.run(self.run.run_id).setup
            self.store.extend_run(self.run.run_id, [], {SETUP_KEY: replace(setup, executor=self.cluster).as_dict()})
        return self.names.index(name)

    def cancel(self) -> None:
        for future, _, _ in self.inflight.values():
            future.cancel()
        self.inflight.clear()


def report_fitness(session: ClusterSession, instances: Mapping[str, str], settings: Mapping, reporter: Reporter) -> None:
    """Each instance's environment warnings (load, governor, ...), before a trial is sent to it."""
    addresses = {address: name for name, address in instances.items()}
    try:
        found = session.client.run(fitness_report, dict(settings), workers=list(addresses))
    except Exception as error:   # a check that cannot run is reported, not fatal
        reporter.message(f"warning: could not check the instances' environment ({error})")
        return
    for address, warnings in sorted(found.items(), key=lambda item: addresses.get(item[0], item[0])):
        for severity, message in warnings:
            reporter.message(f"{severity}: instance {addresses.get(address, address)}: {message}")


def tool_mismatches(store: ResultStore, run: RunInfo) -> list[str]:
    """Tool versions (JDK, Go, compilers) that differ between the instances of a run."""
    seen: dict[str, dict[str, set[str]]] = collections.defaultdict(lambda: collections.defaultdict(set))
    for version in run.versions:
        for environment in store.environments(run.run_id, version.label):
            instance = environment.get("instance")
            if instance is None:
                continue
            for key, value in environment.items():
                if key in ("java_version", "java_runtime", "java_vendor") or (key.startswith("tool.") and key != "tool.venv"):
                    seen[key][value].add(instance)
    lines = []
    for key, values in sorted(seen.items()):
        if len(values) > 1:
            where = "; ".join(f"{value} on {', '.join(sorted(names))}" for value, names in sorted(values.items()))
            lines.append(f"warning: the instances differ in {key}: {where}")
    return lines
