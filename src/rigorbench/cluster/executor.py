"""The cluster's executor: trials on a Dask cluster's instances, for the experiment driver.

It connects and plans the instances (``--design``: which instance runs which trial), ships
the versions' builds (or sources, ``--build-on-workers``), runs pilots on an instance, and
hands pending executions to the :class:`~rigorbench.cluster.dispatch.Dispatcher`, which
stores each trial as it arrives. An adaptive look adds one trial per instance (trial-based
sampling), so every instance has work, and the looks' level counts the step.
"""

from __future__ import annotations

import contextlib
import math
from pathlib import Path
from typing import Iterator, Mapping, Sequence

import numpy as np

from rigorbench.cluster.bundle import make_bundle
from rigorbench.cluster.design import Placement
from rigorbench.cluster.dispatch import MAX_ATTEMPTS, POLL_S, Dispatcher, tool_mismatches
from rigorbench.cluster.session import ClusterSession, open_cluster
from rigorbench.cluster.task import TrialTask, run_trial_task
from rigorbench.errors import UserError
from rigorbench.experiment.address import SLOT, ClusterOptions, TLSFiles, exposure_warning, parse_cluster
from rigorbench.experiment.executor import Sink, Totals, version_facts
from rigorbench.experiment.progress import Reporter, format_duration
from rigorbench.experiment.trial import TrialSpec, outcome_of
from rigorbench.harness.base import RunSettings, TrialOutcome
from rigorbench.store import ResultStore
from rigorbench.store.api import Execution, RunInfo

LOCAL_NOTE = ("{n} workers on this machine (--cluster local:{n}): they take turns at its trial lock, so they are not "
              "independent instances and run no faster than one; use it to try the cluster mode, and measure on separate machines")


@contextlib.contextmanager
def connected(options: ClusterOptions, reporter: Reporter) -> Iterator[ClusterSession]:
    """The session for ``options``, after the checks a user should hear about first."""
    options.tls.check(options.address)
    warning = exposure_warning(options.address, options.tls)
    if warning:
        reporter.message(f"warning: {warning}")
    with open_cluster(options.address, options.tls) as session:
        yield session


def stored_options(run: RunInfo, override: ClusterOptions | None) -> ClusterOptions:
    """How to reach the cluster of a stored run: ``override`` (the resume's --cluster) or as stored."""
    stored = run.setup.cluster
    tls = TLSFiles(**stored["tls"]) if stored.get("tls") else TLSFiles()
    address = override.address if override is not None else parse_cluster(stored["address"])
    if override is not None and override.tls.on:
        tls = override.tls
    return ClusterOptions(address, tls, stored["design"], int(stored["instances"]), bool(stored.get("build_on_workers")))


class ClusterExecutor:
    """The :class:`~rigorbench.experiment.executor.Executor` of ``--cluster``."""

    def __init__(self, session: ClusterSession, store: ResultStore, reporter: Reporter, stored: Mapping,
                 address: str) -> None:
        self.session, self.store, self.reporter, self.address = session, store, reporter, address
        self.stored_settings = dict(stored)
        self.totals = Totals()
        self.builds: Mapping = {}
        self.bundles: dict = {}
        self.dispatcher: Dispatcher | None = None
        self.harness = ""

    @classmethod
    @contextlib.contextmanager
    def start(cls, options: ClusterOptions, store: ResultStore, reporter: Reporter, labels: Sequence[str],
              adaptive: bool) -> Iterator["ClusterExecutor"]:
        """Connect, wait for the instances and plan them (``first_trials`` sets their trials)."""
        if adaptive and options.design != "trial-based":
            raise UserError("--until-decided needs --design trial-based: its looks compare the versions trial by "
                            "trial, and an instance-based trial holds one version")
        with connected(options, reporter) as session:
            yield cls.on_session(session, options, store, reporter, labels)

    @classmethod
    def on_session(cls, session: ClusterSession, options: ClusterOptions, store: ResultStore, reporter: Reporter,
                   labels: Sequence[str]) -> "ClusterExecutor":
        """Wait for ``options``' instances on ``session`` and plan them."""
        wanted = options.instances or options.address.local_workers
        found = session.wait_for(wanted or 1, reporter.message)
        instances = wanted or len(found)
        placement = Placement(options.design, instances, 1)
        placement.check_versions(list(labels))
        names = sorted(found)
        slots: list[str | None] = names[:instances] + [None] * max(0, instances - len(names))
        if len(names) < instances:
            reporter.message(f"warning: {len(names)} of {instances} instances connected; the trials of the missing "
                             "ones run on the others (trial-based) or on spare workers (instance-based)")
        if options.address.local:
            reporter.message("note: " + LOCAL_NOTE.format(n=options.address.local_workers))
        tls = options.tls
        return cls(session, store, reporter, {
            "kind": "cluster", **placement.as_dict(), "address": options.address.text, "slots": slots,
            "instance_names": [], "build_on_workers": options.build_on_workers, "local": options.address.local,
            "tls": {"ca_file": tls.ca_file, "cert": tls.cert, "key": tls.key} if tls.on else None,
        }, options.address.text)

    @classmethod
    @contextlib.contextmanager
    def resume(cls, run: RunInfo, override: ClusterOptions | None, store: ResultStore,
               reporter: Reporter) -> Iterator["ClusterExecutor"]:
        """The executor of a stored cluster run, on its cluster (or ``override``'s address)."""
        options = stored_options(run, override)
        with connected(options, reporter) as session:
            session.wait_for(1, reporter.message)
            yield cls(session, store, reporter, run.setup.cluster, options.address.text)

    @property
    def placement(self) -> Placement:
        return Placement.from_dict(self.stored_settings)

    @property
    def parallelism(self) -> int:
        return self.placement.instances

    @property
    def instances(self) -> int:
        # local:N's workers share one machine and take turns: its overhead is that of one machine
        return 1 if self.session.local else max(1, len(self.totals.instances_used))

    def check(self, settings: RunSettings) -> None:
        """Each instance's environment is checked before its first trial (by the dispatcher)."""

    def where(self) -> str:
        return f" on {self.address}"

    def describe(self) -> str:
        return f"on {self.placement.instances} instances ({self.placement.design})"

    def stored(self) -> Mapping:
        return dict(self.stored_settings)

    def first_trials(self, trials: int, per_instance: bool) -> int:
        """``--trials`` is per instance; an adaptive experiment's first look is the fewest
        trials, at least ``--min-trials``, that give every instance as many."""
        placement = self.placement
        each = trials if per_instance else math.ceil(trials / placement.instances)
        self.stored_settings.update(Placement(placement.design, placement.instances, each).as_dict())
        return placement.instances * each

    def schedule(self, labels: Sequence[str], first_trial: int, count: int, seed: int, first_position: int) -> list[Execution]:
        """Trials ``first_trial ..`` of ``count``: the placement's own (each instance its
        ``--trials``), then (a look's, a bisect probe's) in turn over the instances."""
        placement = self.placement
        found = [e for e in placement.schedule(list(labels), seed) if first_trial <= e.trial < first_trial + count]
        rng = np.random.default_rng(seed)
        for trial in range(max(first_trial, placement.trials), first_trial + count):
            only = placement.version_of_slot(placement.slot_of(trial), list(labels))
            found.extend(Execution(trial, label, 0) for label in ([only] if only else [labels[i] for i in rng.permutation(len(labels))]))
        return [Execution(e.trial, e.label, first_position + n) for n, e in enumerate(found)]

    def attach(self, builds: Mapping, work_dir: Path, build_specs: Mapping, harness: str) -> None:
        """Bundle every version to ship to the workers."""
        self.builds, self.harness = builds, harness
        on_workers = bool(self.stored_settings.get("build_on_workers"))
        for label, (version, build) in builds.items():
            root = version.worktree or version.project_dir
            self.bundles[label] = make_bundle(label, root, version.project_dir, None if on_workers else build,
                                              build_specs[label], harness)
        what = "sources, built on each worker" if on_workers else "build"
        self.reporter.message("shipping " + ", ".join(f"{label} ({info.size / 1e6:.1f} MB {what}, sha256 {info.sha256[:12]})"
                                                       for label, (info, _) in self.bundles.items()))

    def pilot(self, label: str, settings: RunSettings, work_dir: Path) -> TrialOutcome:
        """The pilot fork on a connected instance, as a trial of one execution; run again on
        the next one when its worker is lost (as a lost trial is)."""
        from distributed import KilledWorker, wait
        from distributed.comm.core import CommClosedError

        info, data = self.bundles[label]
        for attempt in range(1, MAX_ATTEMPTS + 1):
            name, address = sorted(self.session.wait_for(1, self.reporter.message).items())[0]
            task = TrialTask(0, -1, (Execution(-1, label, 0),), self.harness, TrialSpec(settings.as_dict()), {label: info}, name)
            with self.reporter.working(f"pilot of {label} on instance {name}"):
                future = self.session.client.submit(run_trial_task, task, {label: data}, workers=[address],
                                                    allow_other_workers=False, resources={SLOT: 1}, pure=False)
                # a task pinned to a worker that died waits forever: watch the worker meanwhile
                while future.status == "pending" and self.session.instances().get(name) == address:
                    with contextlib.suppress(TimeoutError):
                        wait([future], timeout=POLL_S)
                try:
                    if future.status == "pending":
                        raise CommClosedError(f"instance {name} is gone")
                    return outcome_of(future.result().records[0][1])
                except (KilledWorker, CommClosedError, OSError) as error:
                    future.cancel()
                    if attempt == MAX_ATTEMPTS:
                        raise UserError(f"the pilot of {label} lost its worker {attempt} times (last: {error})") from None
                    self.reporter.message(f"instance {name} was lost during the pilot of {label}; it runs again")
        raise AssertionError("unreachable")

    def run(self, run: RunInfo, pending: Sequence[Execution], spec: TrialSpec, sink: Sink) -> None:
        self.dispatcher = Dispatcher(self.session, self.store, run, self.bundles, self.reporter,
                                     {label: version_facts(version) for label, (version, _) in self.builds.items()},
                                     spec, sink, self.totals)
        planned = self.dispatcher.plan(pending)
        live = self.session.instances()
        self.reporter.message(f"{self.dispatcher.design.design}: {planned} executions to run on {len(live)} "
                              f"instance{'s' if len(live) != 1 else ''} ({', '.join(sorted(live))})")
        self.dispatcher.execute()

    def cancel(self) -> None:
        if self.dispatcher is not None:
            self.dispatcher.cancel()

    def finished(self, run: RunInfo, wall_seconds: float) -> list[str]:
        used = sorted(self.totals.instances_used)
        return [f"trials ran on {len(used)} instance{'s' if len(used) != 1 else ''}: {', '.join(used)} in "
                f"{format_duration(wall_seconds)}", *tool_mismatches(self.store, run)]
