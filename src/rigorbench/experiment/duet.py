"""Duet runs (``--design duet``): both versions of a trial at once, each on its own CPUs.

Bulej, Horký, Tůma, Farquet and Prokopec, "Duet Benchmarking: Improving Measurement Accuracy
in the Cloud" (Empirical Software Engineering 25, 2020): two versions measured side by side on
one machine share whatever disturbs it at that moment (a noisy neighbour, a frequency change,
the host's load), so the difference within a pair varies much less than either measurement;
the analysis pairs the two executions of a trial. Each version's harness runs on its own half
of the CPUs this process may use, so the two do not compete for cores, and which version gets
which half alternates from trial to trial (even trials: the baseline on set 0), so that a
difference between the halves cancels over pairs of trials. Memory bandwidth and a shared
cache are still shared: that is the disturbance duet measures under on purpose.

How a harness is pinned: each execution runs in a thread of its own that first pins itself:
where a cgroup v1 cpuset hierarchy lets us, it moves into its CPU set's cpuset group
(:mod:`rigorbench.experiment.cpuset`), and it always sets its affinity
(``os.sched_setaffinity`` on the calling thread); every process it starts (the harness, JMH's
forked JVMs, a Go test binary) is born in that group with that affinity. No shell, no
``preexec_fn`` (unsafe in a program with threads), and no harness needs to know. Each
execution's environment records how it was pinned (``pinning.method``, ``pinning.cgroup``).
The threads tell this module of the processes they start (``process.announcing_starts``), so
Ctrl-C, which only the main thread sees, stops both executions' processes.

Resuming a trial that has one of its two executions stored runs the pair again and stores
only the missing one: it is measured beside a partner, like every other execution of the run,
and the partner's measurement (under ``partners/``) is not stored.
"""

from __future__ import annotations

import os
import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from rigorbench.errors import UserError
from rigorbench.experiment.cpuset import DuetGroups, Hierarchy, Pinning, find_hierarchy
from rigorbench.experiment.executor import LocalExecutor, Sink, version_facts
from rigorbench.experiment.machine_lock import one_trial_at_a_time
from rigorbench.experiment.plan import DUET
from rigorbench.experiment.progress import Reporter
from rigorbench.experiment.trial import TrialSpec, execution_dir, execution_environment, run_execution
from rigorbench.harness.base import Harness, Progress, RunSettings, TrialOutcome
from rigorbench.harness.process import announcing_starts, stop_group
from rigorbench.store.api import Execution, RunInfo

CpuSet = frozenset[int]
_POLL_S = 0.2     # how often the main thread looks up from waiting (so Ctrl-C is seen at once)


def cpu_sets(usable: Iterable[int]) -> tuple[CpuSet, CpuSet]:
    """Two disjoint halves of equal size of ``usable`` CPUs (one of an odd number is left
    out, so neither version has more cores); one line of UserError with fewer than two."""
    cpus = sorted(usable)
    if len(cpus) < 2:
        raise UserError(f"--design duet needs at least 2 usable CPUs, one per version; this process may use {len(cpus)}")
    half = len(cpus) // 2
    return frozenset(cpus[:half]), frozenset(cpus[half:2 * half])


def usable_cpus() -> set[int]:
    """The CPUs this process may run on (its affinity mask: taskset, cgroup cpusets)."""
    if not hasattr(os, "sched_getaffinity"):
        raise UserError("--design duet pins each version to CPUs, which this system does not allow (no sched_setaffinity)")
    return os.sched_getaffinity(0)


def set_index(trial: int, version_index: int) -> int:
    """The CPU set (0 or 1) of the version at ``version_index`` (0: the baseline) in ``trial``:
    swapped every trial, so each version spends as many trials on each set."""
    return (trial + version_index) % 2


def cpu_list(cpus: Iterable[int]) -> str:
    """A CPU set as recorded and shown: ``0,1,2``."""
    return ",".join(str(cpu) for cpu in sorted(cpus))


@dataclass(frozen=True)
class _Job:
    """One execution of a duet trial: where it runs and whether its record is stored."""

    execution: Execution
    cpus: CpuSet
    work_dir: Path
    environment: Mapping[str, str]
    stored: bool        # False: the partner of a resumed trial, run only to stand beside the missing one


class SideBySide:
    """Run callables at once, each in a thread pinned to its CPUs (in its set's cpuset group
    when ``groups`` has one), and hand what they report to the caller's thread (which alone
    uses the store and the reporter). Leaving the block on an exception (Ctrl-C in the caller,
    an error in a thread) stops every harness process the threads started, waits for the
    threads and lets the exception go on."""

    def __init__(self, groups: DuetGroups | None = None) -> None:
        self._groups = groups
        self._pinning = threading.local()
        self._events: queue.Queue = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._processes: list = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    def __enter__(self) -> "SideBySide":
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if kind is not None:
            self._stopping.set()
            with self._lock:
                started = list(self._processes)
            for process in started:
                stop_group(process)
        for thread in self._threads:
            thread.join()

    def start(self, cpus: CpuSet, work: Callable[[Callable[[Progress], None]], object]) -> None:
        """Run ``work(on_progress)`` in a new thread pinned to ``cpus``."""
        index = len(self._threads)
        thread = threading.Thread(target=self._run, args=(index, cpus, work), name=f"duet-{index}", daemon=True)
        self._threads.append(thread)
        thread.start()

    def _run(self, index: int, cpus: CpuSet, work: Callable) -> None:
        pinning = Pinning(cpus)
        try:
            if self._groups is not None:
                pinning = self._groups.join(cpus)   # first: joining a cpuset resets the affinity
            self._pinning.value = pinning
            os.sched_setaffinity(0, cpus)        # this thread only; what it forks inherits it
            with announcing_starts(self._started):
                result = work(lambda event: self._events.put(("progress", index, event)))
            self._events.put(("done", index, result))
        except BaseException as error:          # KeyboardInterrupt too: the caller re-raises it
            self._events.put(("error", index, error))
        finally:
            if self._groups is not None:
                self._groups.leave(pinning)

    def pinning(self) -> Pinning:
        """How the calling thread (one this block started) is pinned, for its environment."""
        return self._pinning.value

    def _started(self, process) -> None:
        with self._lock:
            self._processes.append(process)
        if self._stopping.is_set():             # started as the block was left: stop it too
            stop_group(process)

    def events(self) -> Iterator[tuple[str, int, object]]:
        """``(kind, index, value)`` as the threads report, until every one is done: progress
        events, and each result as its thread finishes; a thread's exception is raised here."""
        running = len(self._threads)
        while running:
            try:
                kind, index, value = self._events.get(timeout=_POLL_S)
            except queue.Empty:
                continue
            if kind == "error":
                raise value
            running -= kind == "done"
            yield kind, index, value


class DuetExecutor(LocalExecutor):
    """This machine's executor for a duet run: a trial's two executions at once, one per CPU set."""

    instances = 2        # two harnesses measure at once (the overhead figure counts both)

    def __init__(self, harness: Harness, reporter: Reporter, sets: tuple[CpuSet, CpuSet],
                 cpuset: tuple[Hierarchy | None, str] = (None, "")) -> None:
        super().__init__(harness, reporter, DUET)
        self.sets = sets
        self.cpuset = cpuset            # where the sets' cpuset groups go, or why they cannot
        self._noted: set[str] = set()

    @classmethod
    def on_this_machine(cls, harness: Harness, reporter: Reporter) -> "DuetExecutor":
        """The executor on this process's CPUs, in cpuset groups where the machine allows;
        refused (UserError) with fewer than two CPUs."""
        return cls(harness, reporter, cpu_sets(usable_cpus()), find_hierarchy())

    def groups(self) -> DuetGroups:
        """The sets' cpuset groups for one block of trials (each note said once per run)."""
        hierarchy, why_not = self.cpuset
        return DuetGroups(hierarchy, self.sets, self._note_once, why_not)

    def _note_once(self, text: str) -> None:
        if text not in self._noted:
            self._noted.add(text)
            self.reporter.message(text)

    def describe(self) -> str:
        return f"design duet (CPUs {cpu_list(self.sets[0])} and {cpu_list(self.sets[1])}, swapped every trial)"

    def stored(self) -> Mapping:
        return {"kind": "local", "design": DUET, "cpu_sets": [sorted(cpus) for cpus in self.sets]}

    def pilot(self, label: str, settings: RunSettings, work_dir: Path) -> TrialOutcome:
        """A pilot fork on CPU set 0, so that it warms up on as many cores as the trials have."""
        _, build = self.builds[label]
        with (one_trial_at_a_time(self.reporter.message), self.reporter.working(f"pilot of {label}"),
              self.groups() as groups, SideBySide(groups) as side):
            side.start(self.sets[0], lambda progress: self.harness.run_trial(build, settings, work_dir, lambda event: None))
            return next(value for kind, _, value in side.events() if kind == "done")

    def run(self, run: RunInfo, pending: Sequence[Execution], spec: TrialSpec, sink: Sink) -> None:
        labels = [v.label for v in run.versions]
        trials: dict[int, dict[str, Execution]] = {}
        for execution in pending:
            trials.setdefault(execution.trial, {})[execution.label] = execution
        with self.groups() as groups:
            for trial, missing in trials.items():
                self._run_trial(self._jobs(run, labels, trial, missing), spec, sink, groups)

    def _jobs(self, run: RunInfo, labels: list[str], trial: int, missing: Mapping[str, Execution]) -> list[_Job]:
        """A trial's two executions, the baseline's first; a stored one is re-run as a partner."""
        root = self.work_dir / "runs" / str(run.run_id)
        scheduled = {e.label: e for e in run.schedule if e.trial == trial}
        jobs = []
        for index, label in enumerate(labels):
            cpus = self.sets[set_index(trial, index)]
            execution = missing.get(label, scheduled[label])
            version, build = self.builds[label]
            environment = {**execution_environment(build, version_facts(version)),
                           "design": DUET, "cpu_set": cpu_list(cpus), "cpus_usable": str(len(cpus))}
            work_dir = execution_dir(root if label in missing else root / "partners", execution)
            jobs.append(_Job(execution, cpus, work_dir, environment, label in missing))
        return jobs

    def _run_trial(self, jobs: list[_Job], spec: TrialSpec, sink: Sink, groups: DuetGroups) -> None:
        """Run ``jobs`` at once; store each stored one as it finishes."""
        lead = next(i for i, job in enumerate(jobs) if job.stored)     # whose progress is shown
        with one_trial_at_a_time(self.reporter.message) as waited, SideBySide(groups) as side:
            self.totals.waited_seconds += waited
            self.reporter.message(f"duet: trial {jobs[0].execution.trial + 1}, " + ", ".join(
                f"{job.execution.label} on CPUs {cpu_list(job.cpus)}" + ("" if job.stored else " (stored already: not kept)")
                for job in jobs))
            for job in sorted((job for job in jobs if job.stored), key=lambda job: job is jobs[lead]):
                self.reporter.execution_started(job.execution)    # the lead's last: the progress shown is its
            for job in jobs:
                _, build = self.builds[job.execution.label]
                side.start(job.cpus, lambda progress, job=job, build=build: run_execution(
                    self.harness, build, spec, job.work_dir, {**job.environment, **side.pinning().facts()},
                    progress))
            for kind, index, value in side.events():
                if kind == "progress":
                    if index == lead:
                        self.reporter.progress(value)
                    continue
                self._finished(jobs[index], *value, sink)
            groups.flush_notes()

    def _finished(self, job: _Job, record, outcome: TrialOutcome, sink: Sink) -> None:
        if not job.stored:
            self.totals.harness_seconds += outcome.harness_seconds
            return
        sink([(job.execution, record)])
        self.totals.add(outcome)
        self.reporter.execution_finished(job.execution, outcome)
