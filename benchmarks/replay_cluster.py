"""A ``--cluster`` run without JVMs: the real dispatcher, Dask and results store, a fake harness.

``ReplayHarness`` stands in for JMH: each trial sleeps a fixed time (``time.sleep`` releases
the GIL, so trials on threads run at the same time like trials on machines) and returns a
trial JMH really measured (``tests/testdata/jmh/<version>-trial*.json``, read once up front,
replayed in turn). It is registered as ``replay`` in rigorbench's harness registry only while
``registered`` is open; the workers of ``threads_cluster`` are threads of this process, so the
task's ``get_harness("replay")`` finds it.

``replay_run`` then does what ``experiment.driver.start_experiment`` does for ``--cluster
local:N`` after the build: plan the instances (``ClusterExecutor``), ship the versions as
bundles, store the run with its setup and schedule, and drive it (the ``Dispatcher`` runs the
trials). Used by ``bench_cluster_scaling.py`` and
``tests/cluster/test_dispatch_threads.py``.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping

from rigorbench import __version__
from rigorbench.experiment.address import SLOT, ClusterAddress, TLSFiles
from rigorbench.analysis.stopping import FixedTrials
from rigorbench.cluster.executor import ClusterExecutor
from rigorbench.experiment.address import ClusterOptions
from rigorbench.experiment.driver import drive
from rigorbench.cluster.session import ClusterSession
from rigorbench.experiment.progress import Reporter
from rigorbench.experiment.versions import PreparedVersion
from rigorbench.formats import read_result_file
from rigorbench.experiment import machine_lock
from rigorbench.harness import HARNESSES
from rigorbench.harness.base import DONE, Build, BuildSpec, ListedBenchmark, RunSettings, TrialOutcome
from rigorbench.model import Series
from rigorbench.store import ResultStore
from rigorbench.store.api import SETUP_KEY, RunSetup, VersionInfo

NAME = "replay"
JMH_TESTDATA = Path(__file__).resolve().parents[1] / "tests" / "testdata" / "jmh"
LABELS = ("v1", "v2")


def recorded_trials(label: str) -> list[tuple[Series, ...]]:
    """The JMH trials recorded for ``label`` in the test data, as the JMH JSON reader reads them."""
    paths = sorted(JMH_TESTDATA.glob(f"{label}-trial*.json"))
    if not paths:
        raise FileNotFoundError(f"{JMH_TESTDATA}: no {label}-trial*.json")
    return [read_result_file(path).series for path in paths]


@dataclass
class ReplayHarness:
    """Sleeps ``sleep_s`` per trial and returns the version's next recorded trial; the version is
    the name of the project folder the bundle ships (see ``versions``)."""

    sleep_s: float
    recorded: Mapping[str, list[tuple[Series, ...]]]
    name: str = NAME
    fail_at: tuple[str, int] | None = None      # (version, turn): that trial raises, as a crashing harness would
    _turns: dict = field(default_factory=lambda: {label: itertools.count() for label in LABELS})
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def build(self, project_dir: Path, spec, log, cache=None) -> Build:
        return Build(project_dir, project_dir / "replay.jar", {NAME: "1"})

    def list_benchmarks(self, build: Build, settings: RunSettings) -> list[ListedBenchmark]:
        params: dict[str, dict[str, set[str]]] = {}
        for one in self.recorded[self.label(build)][0]:
            for name, value in one.case.params:
                params.setdefault(one.case.name, {}).setdefault(name, set()).add(value)
            params.setdefault(one.case.name, {})
        return [ListedBenchmark(name, tuple((p, tuple(sorted(v))) for p, v in sorted(found.items())))
                for name, found in params.items()]

    def exact_includes(self, names, within=()) -> tuple[str, ...]:
        return tuple(names)

    def label(self, build: Build) -> str:
        """The version a build is: its project folder's name, or (a plain folder shipped as
        ``source``) what its artifact holds, the label repeated (see ``versions``)."""
        name = build.project_dir.name
        return name if name in self.recorded else Path(build.artifact).read_bytes()[:2].decode()

    def run_trial(self, build: Build, settings: RunSettings, work_dir: Path, on_progress) -> TrialOutcome:
        label = self.label(build)
        with self._lock:
            turn = next(self._turns[label])
        if self.fail_at == (label, turn):
            raise RuntimeError(f"replay of {label} failed at turn {turn}")
        started = time.monotonic()
        time.sleep(self.sleep_s)
        series = self.recorded[label][turn % len(self.recorded[label])]
        return TrialOutcome(DONE, series, time.monotonic() - started, {"jmh_version": "replayed"})


@contextlib.contextmanager
def registered(harness: ReplayHarness) -> Iterator[None]:
    """``harness`` is rigorbench's harness ``replay`` inside the block (every get_harness call
    gets this one object: the workers share its turn counters)."""
    HARNESSES[NAME] = lambda: harness
    try:
        yield
    finally:
        HARNESSES.pop(NAME, None)


@contextlib.contextmanager
def threads_cluster(workers: int) -> Iterator[ClusterSession]:
    """A LocalCluster of ``workers`` single-threaded workers in this process, each with one
    benchmark slot, seen by rigorbench as ``--cluster local:N`` (instances local-0 ..)."""
    import dask
    from distributed import Client, LocalCluster

    # Each worker samples its thread's stack every 10 ms and its machine's load every 0.5 s:
    # work a real instance does on its own CPUs, which here 50 workers would do on the CPUs of
    # the dispatcher.
    quiet = {"distributed.worker.profile.enabled": False, "distributed.admin.system-monitor.interval": "10s"}
    with dask.config.set(quiet), warnings.catch_warnings():
        # without a dashboard the scheduler still serves HTTP, and says so when 8787 is taken
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        cluster = LocalCluster(n_workers=workers, processes=False, threads_per_worker=1, resources={SLOT: 1},
                               dashboard_address=None, silence_logs=logging.ERROR)
    # Each thread worker stands for a machine of its own, so trials do not take turns at this
    # machine's trial lock, as the workers of a real local:N (one machine) do.
    original = machine_lock.one_trial_at_a_time
    machine_lock.one_trial_at_a_time = lambda say: contextlib.nullcontext(0.0)
    try:
        with dask.config.set(quiet), cluster, Client(cluster) as client:
            yield ClusterSession(client, ClusterAddress(f"local:{workers}", workers))
    finally:
        machine_lock.one_trial_at_a_time = original


def versions(scratch: Path) -> dict[str, tuple[PreparedVersion, Build]]:
    """Each version as the runner has it after the build: a checkout whose project folder is
    named after the version (what ReplayHarness reads), and a small artifact to ship."""
    builds = {}
    for label in LABELS:
        checkout = scratch / f"checkout-{label}"
        project = checkout / label
        project.mkdir(parents=True)
        (project / "README").write_text(f"replayed version {label}\n")
        artifact = scratch / "artifacts" / label / "replay.jar"
        artifact.parent.mkdir(parents=True)
        artifact.write_bytes(label.encode() * 512)
        builds[label] = (PreparedVersion(VersionInfo(label, label, None, None), project, worktree=checkout),
                         Build(project, artifact, {NAME: "1"}, cached=True))
    return builds


def replay_run(session: ClusterSession, store: ResultStore, scratch: Path, trials_per_instance: int,
               reporter: Reporter, *, design: str = "trial-based", seed: int = 1):
    """One A/B experiment of LABELS on every instance of ``session``; the ExperimentResult."""
    options = ClusterOptions(session.address, TLSFiles(), design)
    labels = list(LABELS)
    executor = ClusterExecutor.on_session(session, options, store, reporter, labels)
    builds = versions(scratch)
    executor.attach(builds, store.work_dir, {label: BuildSpec() for label in labels}, NAME)
    trials = executor.first_trials(trials_per_instance, per_instance=True)
    settings = {"run": RunSettings().as_dict(), "trials": trials,
                SETUP_KEY: RunSetup(executor.stored(), FixedTrials(trials).as_dict()).as_dict()}
    run_id = store.create_run(
        harness=NAME, project=str(scratch), order="rmit", seed=seed, settings=settings,
        versions=[builds[label][0].info for label in labels], schedule=executor.schedule(labels, 0, trials, seed, 0),
        tool_version=__version__,
    )
    return drive(store, run_id, HARNESSES[NAME](), executor, reporter, 1)
