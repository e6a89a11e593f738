"""``rigorbench ab``: run two versions of a benchmark project as a designed experiment, then compare."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import IO

from rigorbench import api
from rigorbench.cli.common import (
    add_build_arguments, add_html_argument, add_lint_arguments, add_output_arguments,
    add_statistics_arguments, before_build, build_spec_from, conclude,
)
from rigorbench.cli.parser import UsageError, add_tls_arguments, fraction, positive_int

# The harnesses ab runs (rigorbench.harness.HARNESSES; named here so that --help does not load them).
HARNESS_NAMES = ("jmh", "go", "gbench", "pyperf")


DESCRIPTION = """\
Run two versions of a JMH benchmark project as a designed experiment and compare them.

Each version is a directory (looked up inside PATH first, then as given) or a git revision
of the repository holding PATH (checked out into a temporary worktree; your working tree is
not touched). Both are built once: a Maven project with 'mvn package' (in a multi-module
build, 'mvn -pl MODULE -am package' from the root, where MODULE is the module that depends
on jmh-core), a Gradle project with its wrapper's 'jmhJar' task, or --build-command (Go
modules, Google Benchmark and pyperf projects: see --harness and docs/harnesses.md). Builds
are cached next to the store, so a second run of the same revisions does not rebuild. Benchmarks that only one version has are reported and not run (--list shows
them before anything runs). Then every trial runs every version once, in
a fresh random order (randomized multiple interleaved trials), so slow drifts of a noisy
machine hit both alike (--design duet runs a trial's two versions at the same time instead,
each on its own half of the CPUs: docs/duet.md). Every finished trial is committed to the results store at once:
Ctrl-C or a crash loses at most the running trial, and --resume continues where it stopped.
At the end the two versions are compared as by 'rigorbench compare'.

Progress goes to standard error, the comparison to standard output.
"""

EPILOG = """\
examples:
  rigorbench ab examples/jmh-demo --base v1 --contender v2 --quick
  rigorbench ab . --base main --contender HEAD --trials 5 --bench 'Parse.*' --fail-on regression
  rigorbench ab . --module benchmarks --base v1.2 --contender HEAD --bench 'Queue.*' --list
  rigorbench ab . --base HEAD~1 --contender HEAD --java /usr/lib/jvm/temurin-21 --build-command "./build.sh bench"
  rigorbench ab . --base main --contender HEAD --until-decided --max-trials 15 --max-time 1h
  rigorbench ab --resume 3 --store .rigorbench/results.db
  rigorbench ab . --base main --contender HEAD --cluster tcp://10.0.0.5:8786 --instances 5 --trials 3
  rigorbench ab examples/jmh-demo --base v1 --contender v2 --quick --cluster local:2
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    versions = parser.add_argument_group("versions")
    versions.add_argument("path", nargs="?", metavar="PATH", help="the benchmark project: a Maven or Gradle project with JMH benchmarks (the repository root or any module)")
    versions.add_argument("--base", metavar="REV|DIR", help="the baseline version")
    versions.add_argument("--contender", metavar="REV|DIR", help="the contender version")
    versions.add_argument("--base-label", metavar="NAME", help="label of the baseline (default: as given to --base)")
    versions.add_argument("--contender-label", metavar="NAME", help="label of the contender (default: as given to --contender)")
    add_build_arguments(parser)
    add_experiment_arguments(parser)
    add_statistics_arguments(parser)
    add_output_arguments(parser)
    add_html_argument(parser)
def add_experiment_arguments(parser: argparse.ArgumentParser, *, single: bool = False) -> None:
    """The experiment's options; ``single`` for one version (record): no --order, --resume."""
    exp = parser.add_argument_group("experiment")
    each = "trials (harness invocations)" if single else "trials; each runs every version once"
    exp.add_argument("--trials", type=positive_int, metavar="N", help=f"{each} (default: {api.DEFAULT_TRIALS}; --quick: {api.QUICK_TRIALS})")
    exp.add_argument("--bench", action="append", metavar="REGEX", help="run only benchmarks matching REGEX (repeatable)")
    add_harness_argument(exp)
    add_jmh_arguments(exp)
    if not single:
        exp.add_argument("--order", choices=api.ORDERS, default="rmit", help="rmit: a fresh random version order in every trial (default); sequential: all trials of one version, then the other")
    exp.add_argument("--quick", action="store_true", help="seconds per trial instead of minutes: for demos and smoke tests, not for decisions")
    exp.add_argument("--store", metavar="DB", help=f"results store: a SQLite file or a postgresql://user@host/db URL (default: PATH/{api.DEFAULT_STORE})")
    if not single:
        exp.add_argument("--resume", type=positive_int, metavar="RUN_ID", help="continue an interrupted run from --store")
    add_warmup_arguments(exp)
    if not single:
        add_sequential_arguments(parser)
    add_cluster_arguments(parser, duet=not single)
    add_lint_arguments(exp)


def add_warmup_arguments(exp: argparse._ArgumentGroup) -> None:
    """``--warmup auto`` and its pilot (ab, record, bisect)."""
    exp.add_argument("--warmup", choices=("auto",), help="auto: choose each benchmark's warmup from a pilot fork per version "
                     "(analyze's steady-state detector plus a margin), instead of --warmup-iterations for all; "
                     "a benchmark whose pilot never settles is flagged (docs/adaptive.md)")
    exp.add_argument("--pilot-warmup", type=positive_int, metavar="N", help=f"warmup iterations of the pilot fork of --warmup auto (default: {api.PILOT_WARMUP})")


def add_cluster_arguments(parser: argparse.ArgumentParser, *, duet: bool = False) -> None:
    """``--cluster`` and its options (ab, run, record and bisect); ``duet``: --design offers
    duet too (ab and run: two versions on this machine)."""
    group = parser.add_argument_group(
        "cluster",
        "Run the trials on a Dask cluster, one trial per machine at a time: start 'rigorbench worker "
        "tcp://SCHEDULER:8786' on each machine and give the scheduler here. The versions are built here once and "
        "shipped to the workers; every finished trial is stored here as it arrives. See docs/cluster.md.",
    )
    group.add_argument("--cluster", metavar="ADDRESS", help="the Dask scheduler (tcp://HOST:8786, tls://HOST:8786), or local:N "
                       "for N workers on this machine (to try it out: they take turns, one trial at a time); on --resume, another address "
                       "of the run's cluster")
    group.add_argument("--design", choices=("trial-based", "instance-based", *(("duet",) if duet else ())),
                       help="trial-based: every instance runs every "
                       "version in a random order in each of its trials (default; Laaber et al.'s recommendation); "
                       "instance-based: the instances are split between the versions" + (
                           "; duet (without --cluster): both versions of a trial at once on this machine, each pinned "
                           "to its own half of the CPUs, swapped every trial (Bulej et al. 2020; needs 2 usable CPUs; "
                           "docs/duet.md)" if duet else ""))
    group.add_argument("--instances", type=positive_int, metavar="N", help="instances to use (default: every benchmarking "
                       "worker connected at the start; N of local:N); --trials is then per instance")
    group.add_argument("--build-on-workers", action="store_true", help="ship the sources and build them on every worker "
                       "(for instances whose CPUs or toolchains differ) instead of shipping the build")
    add_tls_arguments(group, "client")


def cluster_options_from(args: argparse.Namespace, *, resume: bool = False):
    """The ClusterOptions of --cluster, or None; its options alone are refused."""
    address = getattr(args, "cluster", None)
    if getattr(args, "design", None) == api.DUET:
        if resume:
            raise UsageError("--resume keeps the run's --design; leave out --design duet")
        if address is not None:
            raise UsageError("--design duet runs both versions at once on this machine's CPUs; it does not go with --cluster")
    given = [f"--{name.replace('_', '-')}" for name in ("design", "instances", "build_on_workers", "tls_ca_file", "tls_cert", "tls_key")
             if getattr(args, name, None) not in (None, False, api.DUET)]
    if address is None:
        if given:
            raise UsageError(f"{given[0]} goes with --cluster")
        return None
    if resume and any(g in given for g in ("--design", "--instances", "--build-on-workers")):
        raise UsageError("--resume keeps the run's --design, --instances and --build-on-workers; give only --cluster and --tls-*")
    tls = api.TLSFiles(args.tls_ca_file, args.tls_cert, args.tls_key)
    parsed = api.parse_cluster(address)
    tls.check(parsed)
    return api.ClusterOptions(parsed, tls, args.design or "trial-based", args.instances, bool(args.build_on_workers))


def order_from(args: argparse.Namespace) -> str:
    """The run's order: --order's, or duet for --design duet (which has no order to choose)."""
    if getattr(args, "design", None) != api.DUET:
        return args.order
    if args.order == "sequential":
        raise UsageError("--design duet runs both versions of a trial at once; it does not go with --order sequential")
    return api.DUET


def add_sequential_arguments(parser: argparse.ArgumentParser) -> None:
    """``--until-decided`` and its budget (ab and run)."""
    group = parser.add_argument_group(
        "adaptive experiment",
        "With --until-decided, every benchmark is compared again after each trial from --min-trials on; one whose "
        "verdict is slower, faster or unchanged is not run in later trials. Every look decides at the same stricter "
        "level (Pocock's boundary), so the chance of a false slower/faster over all looks stays 1 - --confidence. "
        "One that is unlikely to be decided by --max-trials is given up (--futility). See docs/adaptive.md.",
    )
    group.add_argument("--until-decided", action="store_true", help="add trials one at a time until every benchmark is decided or a budget is spent")
    group.add_argument("--min-trials", type=positive_int, metavar="N", help=f"trials before the first look (default: {api.DEFAULT_MIN_TRIALS}, the fewest a trustworthy interval needs)")
    group.add_argument("--max-trials", type=positive_int, metavar="N", help=f"trials at most (default: {api.DEFAULT_MAX_TRIALS})")
    group.add_argument("--max-time", metavar="DURATION", help="no new trial once it would end after DURATION of running (e.g. 30m, 2h); default: no limit")
    group.add_argument("--futility", type=fraction, metavar="P",
                       help=f"give a benchmark up (inconclusive, not run again) once its chance of any verdict by --max-trials, "
                       f"if the change is what it looks like now, is below P; 0 runs every open benchmark to the budget "
                       f"(default: {api.DEFAULT_FUTILITY:.0%})".replace("%", "%%"))


def sequential_design_from(args: argparse.Namespace):
    """The stopping rule of --until-decided, or None; its options alone are refused."""
    from rigorbench.cli.common import settings_from

    given = [f"--{name.replace('_', '-')}" for name in ("min_trials", "max_trials", "max_time", "futility") if getattr(args, name, None) is not None]
    if not getattr(args, "until_decided", False):
        if given:
            raise UsageError(f"{given[0]} goes with --until-decided")
        return None
    if args.trials is not None:
        raise UsageError("--trials fixes the number of trials; with --until-decided give --min-trials and --max-trials")
    return api.UntilDecided(
        min_trials=args.min_trials or api.DEFAULT_MIN_TRIALS,
        max_trials=args.max_trials or max(api.DEFAULT_MAX_TRIALS, args.min_trials or 0),
        max_seconds=api.parse_seconds(args.max_time, "--max-time") if args.max_time else None,
        analysis=settings_from(args),
        futility=api.DEFAULT_FUTILITY if getattr(args, "futility", None) is None else args.futility,
    )


def add_harness_argument(exp: argparse._ArgumentGroup) -> None:
    """``--harness``, the same for ab, record and bisect."""
    exp.add_argument("--harness", choices=("auto", *HARNESS_NAMES), default="auto",
                     help="the benchmark harness: jmh (Maven or Gradle JMH project), go (a Go module's "
                     "func Benchmark...; forks are test-binary processes, iterations -test.count lines, "
                     "--iteration-time is -test.benchtime) or gbench (a CMake project linking Google "
                     "Benchmark; forks are processes, iterations repetitions, --iteration-time is "
                     "--benchmark_min_time: a duration, or a count such as 100x with Google Benchmark 1.8 or "
                     "later) or pyperf (a bench.py run with pyperf in a virtual environment per "
                     "version; forks are its worker processes, --iteration-time is --min-time); default "
                     "auto: detected from go.mod, CMakeLists.txt or bench.py")


def harness_from(args: argparse.Namespace, version: str | None = None) -> str:
    """The harness ``--harness`` names, or the one detected in PATH (or its ``version`` folder)."""
    return api.detect_harness(Path(args.path), version) if args.harness == "auto" else args.harness


def add_jmh_arguments(exp: argparse._ArgumentGroup) -> None:
    """The JMH settings of every trial, the same for ab, record and bisect."""
    exp.add_argument("--forks", type=positive_int, metavar="N", help=f"JMH forks per trial (default: {api.DEFAULT_SETTINGS.forks})")
    exp.add_argument("--warmup-iterations", type=positive_int, metavar="N", help=f"JMH warmup iterations per fork (default: {api.DEFAULT_SETTINGS.warmup_iterations})")
    exp.add_argument("--iterations", type=positive_int, metavar="N", help=f"JMH measurement iterations per fork (default: {api.DEFAULT_SETTINGS.iterations})")
    exp.add_argument("--warmup-time", metavar="T", help=f"time per warmup iteration (default: {api.DEFAULT_SETTINGS.warmup_time})")
    exp.add_argument("--iteration-time", metavar="T", help=f"time per measurement iteration (default: {api.DEFAULT_SETTINGS.iteration_time}); "
                     "go and gbench (Google Benchmark 1.8 or later) also take a fixed count of the benchmark's own "
                     "iterations, such as 100x")
    exp.add_argument("--param", action="append", metavar="NAME=V1,V2", help="override a @Param (repeatable)")
    exp.add_argument("--mode", metavar="MODE", help="JMH benchmark mode (thrpt, avgt, sample, ss); default: as declared")
    exp.add_argument("--time-unit", metavar="UNIT", help="JMH output time unit (ns, us, ms, s)")
    exp.add_argument("--jvm-args", metavar="ARGS", help="extra JVM arguments for the forks, as one string")
    exp.add_argument("--prof-comp", action="store_true", help="also record JIT compilation time (-prof comp)")
    exp.add_argument("--no-prof-gc", action="store_true", help="do not record allocation and GC (-prof gc is on by default)")
    exp.add_argument("--timeout", metavar="DURATION", help="per-trial time limit, e.g. 10m; a trial over it is killed and recorded as timeout")


def run_settings_from(args: argparse.Namespace):
    base = api.QUICK_SETTINGS if args.quick else api.DEFAULT_SETTINGS
    profilers = tuple(p for p, on in (("gc", not args.no_prof_gc), ("comp", args.prof_comp)) if on)
    return api.settings_with(
        base,
        forks=args.forks,
        warmup_iterations=args.warmup_iterations,
        iterations=args.iterations,
        warmup_time=api.parse_jmh_time(args.warmup_time, "--warmup-time") if args.warmup_time else None,
        iteration_time=api.parse_iteration_time(args.iteration_time, "--iteration-time") if args.iteration_time else None,
        include=tuple(args.bench) if args.bench else None,
        params=api.parse_params(args.param) if args.param else None,
        mode=args.mode,
        time_unit=args.time_unit,
        jvm_args=tuple(args.jvm_args.split()) if args.jvm_args else None,
        profilers=profilers,
        timeout_s=api.parse_seconds(args.timeout, "--timeout") if args.timeout else None,
    )


def _plan(args: argparse.Namespace) -> api.ExperimentPlan:
    if not (args.path and args.base and args.contender):
        raise UsageError("give PATH --base REV|DIR --contender REV|DIR, or --resume RUN_ID --store DB")
    build = build_spec_from(args)
    versions = (
        api.VersionSpec(args.base_label or args.base, args.base, build),
        api.VersionSpec(args.contender_label or args.contender, args.contender, build),
    )
    trials = args.trials or (api.QUICK_TRIALS if args.quick else api.DEFAULT_TRIALS)
    seed = args.seed if args.seed is not None else api.DEFAULT_SEED
    harness = harness_from(args, args.base)
    design = sequential_design_from(args)
    if design is not None:
        trials = design.min_trials
    return api.ExperimentPlan(args.path, harness, versions, trials, order_from(args), seed, run_settings_from(args), until_decided=design,
                          pilot_warmup=pilot_warmup_from(args), cluster=cluster_options_from(args))


def pilot_warmup_from(args: argparse.Namespace) -> int | None:
    """The pilot fork's warmup under --warmup auto, else None."""
    if getattr(args, "warmup", None) != "auto":
        if getattr(args, "pilot_warmup", None) is not None:
            raise UsageError("--pilot-warmup goes with --warmup auto")
        return None
    if args.warmup_iterations is not None:
        raise UsageError("--warmup auto chooses each benchmark's warmup iterations; leave out --warmup-iterations")
    return args.pilot_warmup or api.PILOT_WARMUP


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    reporter = api.make_reporter(stderr)
    if args.resume is not None:
        if not args.store:
            raise UsageError("--resume needs --store DB (the store that holds the run)")
        with api.open_store(args.store, create=False) as store:
            if store.run(args.resume).settings.get("command") == "record":
                raise UsageError(f"run {args.resume} in {args.store} was started by 'rigorbench record': resume it with "
                                 "'rigorbench record --resume', which adds its history points")
            result = api.resume_experiment(args.resume, store, reporter, cluster=cluster_options_from(args, resume=True))
            labels = [v.label for v in store.run(result.run_id).versions]
            # No lint results when a run is resumed: nothing is linted again.
            return conclude(store, result, labels[0], labels[1:], args, stdout, reporter, {})
    plan = _plan(args)
    store_path = args.store or str(Path(args.path) / api.DEFAULT_STORE)
    if args.list:
        return print_listing(plan, store_path, not args.no_build_cache, stdout, reporter)
    hook, lint_results = before_build(args, reporter, plan.harness)
    with api.open_store(store_path) as store:
        result = api.run_experiment(plan, store, reporter, before_build=hook, build_cache=not args.no_build_cache)
        labels = [v.label for v in plan.versions]
        return conclude(store, result, labels[0], labels[1:], args, stdout, reporter, lint_results)


def print_listing(plan: api.ExperimentPlan, store: str, build_cache: bool, stdout: IO[str], reporter) -> int:
    """``--list`` (ab and run): build (or take from the cache), list, estimate, and stop."""
    selection = api.list_experiment(plan, reporter, store, build_cache=build_cache)
    reporter.close()
    stdout.write(api.render_selection(selection, plan.settings, plan.trials))
    return 0


