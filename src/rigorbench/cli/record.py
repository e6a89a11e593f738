"""``rigorbench record``: run one version of a benchmark project and add it to the history."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import IO

from rigorbench import api
from rigorbench.cli.ab import (
    add_experiment_arguments, cluster_options_from, harness_from, pilot_warmup_from, run_settings_from,
)
from rigorbench.cli.common import add_build_arguments, before_build, build_spec_from
from rigorbench.cli.parser import UsageError, positive_int

DESCRIPTION = f"""\
Run one version of a benchmark project (JMH, Go, Google Benchmark or pyperf: see
--harness), store the run, and add its results to the per-commit history (see
'rigorbench history').

The version is --rev: a git revision of the repository holding PATH (checked out into a
temporary worktree; your working tree is not touched) or a directory; without --rev, PATH
itself as it is. It is built and run as one version of 'rigorbench ab' would be (the same
build cache, trials, harness options and results store), every finished trial committed at once.
Then each benchmark case and metric becomes one history point at the version's commit: the
mean of its measurement iterations and the mean's hierarchical bootstrap CI at 95%. The
point's time is the commit's time; a directory's commit is its git HEAD, marked dirty when
it has uncommitted changes, and a directory outside git needs --commit. The kind of machine
comes from the recorded environment.

Ctrl-C or a crash loses at most the running trial: 'rigorbench record --resume RUN_ID --store
DB' runs only the trials still missing, and the points are added when the run is complete,
once (resuming a run whose points are in the history adds nothing).

Progress goes to standard error, the points added to standard output.
exit status: 0 success, 1 lint findings stopped the run (--strict), 2 bad usage or input
"""

EPILOG = f"""\
examples:
  rigorbench record . --branch main --trials 5
  rigorbench record examples/jmh-demo --rev v2 --quick --bench 'Prime.*'
  rigorbench record examples/go-demo --rev v1 --quick --bench Adler32
  rigorbench record . --branch main --warmup auto --cluster tcp://10.0.0.5:8786
  rigorbench record /tmp/build/bench --commit 3f2c1e0 --time 2026-11-24T21:00:00Z --store {api.DEFAULT_STORE}
  rigorbench record --resume 4 --store .rigorbench/results.db
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    version = parser.add_argument_group("version")
    version.add_argument("path", nargs="?", metavar="PATH", help="the benchmark project: a Maven or Gradle project with JMH benchmarks (the repository root or any module), "
                         "a Go module, a CMake project linking Google Benchmark, or a pyperf bench.py (see --harness)")
    version.add_argument("--resume", type=positive_int, metavar="RUN_ID", help="continue an interrupted record run from --store, then add its points (once)")
    version.add_argument("--rev", metavar="REV|DIR", help="the version to run: a git revision or a directory (default: PATH as it is)")
    version.add_argument("--label", metavar="NAME", help="the version's label in the stored run (default: the short commit)")
    history = parser.add_argument_group("history")
    history.add_argument("--branch", default="", metavar="NAME", help="the branch the points belong to (default: none)")
    history.add_argument("--commit", metavar="C", help="the commit measured, for a directory outside git (or to name it otherwise)")
    history.add_argument("--time", metavar="T", help="the commit's time, ISO 8601 (default: the commit's time in git; outside git, now)")
    history.add_argument("--machine", metavar="NAME", help="the kind of machine (default: from the recorded environment)")
    add_build_arguments(parser, listing=False)
    add_experiment_arguments(parser, single=True)


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench.cli.history_commands import resolve_origin

    if args.resume is not None:
        return _resume(args, stdout, stderr)
    if not args.path:
        raise UsageError("record: give PATH (the benchmark project), or --resume RUN_ID --store DB")
    source = args.rev or "."
    commit, dirty = api.version_commit(args.path, source, args.commit)
    repo = None if args.commit else str(Path(args.path))
    origin = resolve_origin(commit, time=args.time, branch=args.branch, repo=repo, dirty=dirty,
                            machine=args.machine, stderr=stderr)
    label = args.label or (origin.commit[:12] if len(origin.commit) == 40 else origin.commit)
    trials = args.trials or (api.QUICK_TRIALS if args.quick else api.DEFAULT_TRIALS)
    harness = harness_from(args, args.rev)
    plan = api.ExperimentPlan(args.path, harness, (api.VersionSpec(label, source, build_spec_from(args)),), trials, "rmit",
                              api.DEFAULT_SEED, run_settings_from(args), min_versions=1,
                              pilot_warmup=pilot_warmup_from(args), cluster=cluster_options_from(args))
    store_path = args.store or str(Path(args.path) / api.DEFAULT_STORE)
    reporter = api.make_reporter(stderr)
    hook, _ = before_build(args, reporter, harness)
    with api.open_store(store_path) as store:
        result, points, added = api.record(plan, origin, store, reporter, before_build=hook,
                                           build_cache=not args.no_build_cache)
    return _report(points, added, result, store_path, stdout)


_NOT_WITH_RESUME = ("path", "rev", "label", "commit", "time", "machine")


def _resume(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    """Run the trials an interrupted record run is missing, then add its points once,
    where the first session would have added them."""
    given = [("PATH" if name == "path" else f"--{name}") for name in _NOT_WITH_RESUME if getattr(args, name)]
    if args.branch:
        given.append("--branch")
    if given:
        raise UsageError(f"record --resume continues the run as it was started: {', '.join(given)} cannot be changed")
    if not args.store:
        raise UsageError("--resume needs --store DB (the store that holds the run)")
    with api.open_store(args.store, create=False) as store:
        result, points, added = api.resume_record(
            args.resume, store, lambda: (api.make_reporter(stderr), cluster_options_from(args, resume=True)))
    return _report(points, added, result, args.store, stdout)


def _report(points, added: bool, result, store_path: str, stdout: IO[str]) -> int:
    stdout.write(f"run {result.run_id}: {result.executed} executions ({result.failed} failed), stored in {store_path}\n")
    if not added:
        stdout.write(f"run {result.run_id}: its points were already in the history; nothing added\n")
        return 0
    series = api.stored_series(points, api.Selection())
    stdout.write(api.render_show(api.HistoryView(api.masked(store_path), api.Selection(), tuple(series), len(points))))
    return 0
