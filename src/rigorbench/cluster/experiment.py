"""An experiment on a cluster, from the runner's side: plan the instances, ship the builds,
dispatch, and finish the run (``runner.start_experiment`` and ``resume_experiment`` call in)."""

from __future__ import annotations

import contextlib
import time
from typing import Iterator, Mapping

from rigorbench.cluster.address import TLSFiles, exposure_warning, parse_cluster
from rigorbench.cluster.bundle import make_bundle
from rigorbench.cluster.design import SETTINGS_KEY, ClusterDesign, ClusterOptions
from rigorbench.cluster.dispatch import Dispatcher, tool_mismatches
from rigorbench.cluster.session import ClusterSession, open_cluster
from rigorbench.errors import UserError
from rigorbench.experiment.progress import Reporter, format_duration
from rigorbench.harness.base import BuildSpec, RunSettings
from rigorbench.store import ResultStore
from rigorbench.store.api import RunInfo

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


def plan_instances(options: ClusterOptions, session: ClusterSession, labels: list[str], trials: int,
                   reporter: Reporter) -> tuple[ClusterDesign, list[str | None]]:
    """The design and the instance that owns each slot (None: not connected at the start)."""
    wanted = options.instances or options.address.local_workers
    found = session.wait_for(wanted or 1, reporter.message)
    instances = wanted or len(found)
    design = ClusterDesign(options.design, instances, trials)
    design.check_versions(labels)
    names = sorted(found)
    slots: list[str | None] = names[:instances] + [None] * max(0, instances - len(names))
    if len(names) < instances:
        reporter.message(f"warning: {len(names)} of {instances} instances connected; the trials of the missing ones "
                         "run on the others (trial-based) or on spare workers (instance-based)")
    if options.address.local:
        reporter.message("note: " + LOCAL_NOTE.format(n=options.address.local_workers))
    return design, slots


def cluster_settings(options: ClusterOptions, design: ClusterDesign, slots: list[str | None]) -> dict:
    """What the store keeps of the cluster run (settings["cluster"]); enough to resume it."""
    return {
        **design.as_dict(), "address": options.address.text, "slots": slots, "instance_names": [],
        "build_on_workers": options.build_on_workers, "local": options.address.local,
        "tls": {"ca_file": options.tls.ca_file, "cert": options.tls.cert, "key": options.tls.key} if options.tls.on else None,
    }


def stored_options(run: RunInfo, override: ClusterOptions | None) -> ClusterOptions:
    """How to reach the cluster of a stored run: ``override`` (the resume's --cluster) or as stored."""
    stored = run.settings[SETTINGS_KEY]
    tls = TLSFiles(**stored["tls"]) if stored.get("tls") else TLSFiles()
    if override is not None:
        return ClusterOptions(override.address, override.tls if override.tls.on else tls, stored["design"],
                              int(stored["instances"]), bool(stored.get("build_on_workers")))
    return ClusterOptions(parse_cluster(stored["address"]), tls, stored["design"], int(stored["instances"]),
                          bool(stored.get("build_on_workers")))


def execute_on_cluster(session: ClusterSession, store: ResultStore, run: RunInfo, builds: Mapping,
                       reporter: Reporter, cases_per_trial: int):
    """Ship the versions, run every trial the store does not have, finish the run."""
    from rigorbench.experiment.runner import ExperimentResult, finish_run, interrupted, resume_hint, version_facts

    cluster = run.settings[SETTINGS_KEY]
    build_specs = run.settings.get("build", {})
    bundles = {}
    for label, (version, build) in builds.items():
        root = version.worktree or version.project_dir
        bundles[label] = make_bundle(label, root, version.project_dir, None if cluster.get("build_on_workers") else build,
                                     BuildSpec.from_dict(build_specs.get(label)), run.harness)
    what = "sources, built on each worker" if cluster.get("build_on_workers") else "build"
    reporter.message("shipping " + ", ".join(f"{label} ({info.size / 1e6:.1f} MB {what}, sha256 {info.sha256[:12]})"
                                              for label, (info, _) in bundles.items()))
    instances = session.instances()
    dispatcher = Dispatcher(session, store, run, run.harness, bundles, reporter, {
        label: version_facts(version) for label, (version, _) in builds.items()})
    pending = dispatcher.plan()
    settings = RunSettings.from_dict(run.settings["run"])
    reporter.message(f"{dispatcher.design.design}: {pending} trials of a version to run on "
                     f"{len(instances)} instance{'s' if len(instances) != 1 else ''} ({', '.join(sorted(instances))})")
    reporter.start(pending, dispatcher.design.trials,
                   max(1, cases_per_trial) * settings.forks * (settings.warmup_iterations + settings.iterations))
    started = time.monotonic()
    try:
        totals = dispatcher.execute()
    except KeyboardInterrupt:
        dispatcher.cancel()
        finish_run(store, run, "interrupted", time.monotonic() - started, dispatcher.totals.harness_seconds)
        reporter.close()
        raise interrupted(store, run) from None
    except UserError as error:
        dispatcher.cancel()
        finish_run(store, run, "interrupted", time.monotonic() - started, dispatcher.totals.harness_seconds)
        reporter.close()
        raise UserError(f"{error}; {len(store.finished(run.run_id))} of {len(run.schedule)} trials are stored; "
                        f"resume with: {resume_hint(store, run)}") from None
    wall = time.monotonic() - started
    finish_run(store, run, "finished", wall, totals.harness_seconds)
    reporter.close()
    used = sorted(totals.instances_used)
    reporter.message(f"trials ran on {len(used)} instance{'s' if len(used) != 1 else ''}: {', '.join(used)}"
                     f" in {format_duration(wall)}")
    for line in tool_mismatches(store, store.run(run.run_id)):
        reporter.message(line)
    # local:N's workers share one machine and take turns: its overhead is that of one machine
    return ExperimentResult(run.run_id, totals.executed, totals.failed, wall, totals.harness_seconds,
                            instances=1 if session.local else max(1, len(used)))

