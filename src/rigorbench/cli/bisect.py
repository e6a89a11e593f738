"""``rigorbench bisect``: find the first commit where a benchmark got slower (or, with
``--find faster``, faster)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import IO

from rigorbench import api
from rigorbench.cli.ab import add_cluster_arguments, add_harness_argument, add_jmh_arguments, add_warmup_arguments, harness_from
from rigorbench.cli.common import add_build_arguments, add_statistics_arguments, build_spec_from, settings_from, write_output
from rigorbench.cli.parser import UsageError, positive_int

EXIT_FOUND, EXIT_NOT_SLOWER, EXIT_INCONCLUSIVE = 0, 3, 4
FIRST_TRIALS, MAX_TRIALS = 5, 20

DESCRIPTION = f"""\
Find the first commit between --good and --bad where a benchmark got slower (or, with
--find faster, faster).

The commits are those of 'git rev-list --first-parent --ancestry-path GOOD..BAD' (oldest
first). First the premise is checked: bad against good, as an A/B experiment like 'rigorbench
ab' (randomized interleaved trials). Then each probed commit, halfway between the newest commit
known not slower and the oldest known slower, is run against good the same way. A probe
starts with --trials trials and, while it cannot decide, doubles them up to --max-trials; the
looks share the confidence level (Bonferroni), so looking more often does not make false
verdicts likelier. A probe decides 'slower' (compare's verdict), 'not slower' (unchanged or
faster, or its interval rules out a slowdown of --threshold or more), or nothing. Nothing
is guessed: a commit that does not build (or lacks the benchmark) is skipped, and a probe
still inconclusive at --max-trials stops the bisection; the commits that may still be the
culprit are then listed instead of a culprit. Set --threshold to about half the slowdown
you are chasing: unchanged commits then decide in a few trials.

--find faster bisects an improvement instead, the mirror image: the premise is that bad is
faster than good, a probe decides 'faster' (compare's verdict), 'not faster' (unchanged or
slower, or its interval rules out an improvement of --threshold or more) or nothing, and the
first faster commit is the culprit.

Good is built once and each probed commit once (builds are cached next to the store). Every
probe is stored as an ordinary run (see 'rigorbench runs'; 'rigorbench compare --store DB
--baseline GOOD --contender COMMIT' with the short hashes shown). Stopped (Ctrl-C, a crash,
kill -9)? Run the same command with the same --store: decided probes are taken from the store
and the interrupted one runs only what it lacks. Progress goes to standard error, the probes
and the culprit to standard output.

exit status: {EXIT_FOUND} the culprit was found; {EXIT_NOT_SLOWER} bad is not slower (--find faster: not faster) than good (nothing to bisect);
{EXIT_INCONCLUSIVE} inconclusive (the premise or a range of candidates could not be decided); 2 bad usage or input.
"""

EPILOG = """\
examples:
  rigorbench bisect . --good v1.4.0 --bad main --bench 'ParseBenchmark.parseLine' --threshold 10%
  rigorbench bisect bench --module bench --good HEAD~30 --bad HEAD --bench Queue.offer --max-trials 20 --format json
  rigorbench bisect . --harness go --good v0.9.0 --bad HEAD --bench BenchmarkParse --iteration-time 100ms
  rigorbench bisect . --good v1.4.0 --bad v1.5.0 --bench 'ParseBenchmark.parseLine' --find faster --threshold 10%
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    versions = parser.add_argument_group("commits")
    versions.add_argument("path", metavar="PATH", help="the benchmark project inside a git repository: a Maven or Gradle project with JMH "
                          "benchmarks, a Go module, a CMake project linking Google Benchmark, or a pyperf bench.py (see --harness)")
    versions.add_argument("--good", required=True, metavar="REV", help="a commit where the benchmark was fast (an ancestor of --bad on its first-parent history)")
    versions.add_argument("--bad", required=True, metavar="REV", help="a commit where it is slower (--find faster: faster)")
    versions.add_argument("--find", choices=("slower", "faster"), default="slower",
                          help="the change to bisect: the first commit where the benchmark got slower (default), "
                               "or the first where it got faster (an improvement)")
    add_build_arguments(parser, listing=False)
    exp = parser.add_argument_group("experiment")
    exp.add_argument("--bench", required=True, action="append", metavar="REGEX", help="the benchmark(s) to bisect: an include regex as 'ab --bench' takes it (repeatable); must match at least one benchmark at --good")
    exp.add_argument("--trials", type=positive_int, metavar="N", help=f"trials of the first look at each probe (default: {FIRST_TRIALS}; at least 3: fewer give no trustworthy interval)")
    exp.add_argument("--max-trials", type=positive_int, metavar="N", help=f"trials a probe may take while it is undecided (default: {MAX_TRIALS})")
    add_harness_argument(exp)
    add_jmh_arguments(exp)
    exp.add_argument("--quick", action="store_true", help="the short JMH settings of 'ab --quick' (seconds per trial): for large regressions and demos")
    exp.add_argument("--store", metavar="DB", help=f"results store the probes are stored in (default: PATH/{api.DEFAULT_STORE})")
    add_warmup_arguments(exp)
    add_cluster_arguments(parser)
    add_statistics_arguments(parser)
    output = parser.add_argument_group("output")
    output.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    output.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE instead of standard output")


def _plan(args: argparse.Namespace):
    from rigorbench.cli.ab import cluster_options_from, pilot_warmup_from, run_settings_from

    for pattern in args.bench:
        try:
            re.compile(pattern)
        except re.error as error:
            raise UsageError(f"--bench {pattern!r}: not a regular expression: {error}") from None
    first = args.trials if args.trials is not None else FIRST_TRIALS
    most = args.max_trials if args.max_trials is not None else max(MAX_TRIALS, first)
    if first < 3:
        raise UsageError(f"--trials must be at least 3 (no interval from fewer trials is trustworthy), got {first}")
    if most < first:
        raise UsageError(f"--max-trials ({most}) must be at least --trials ({first})")
    seed = args.seed if args.seed is not None else api.DEFAULT_SEED
    return api.BisectPlan(args.path, args.good, args.bad, build_spec_from(args), run_settings_from(args), first, most, seed,
                      harness=harness_from(args), pilot_warmup=pilot_warmup_from(args), cluster=cluster_options_from(args),
                      find=args.find)


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    plan = _plan(args)
    settings = settings_from(args)
    if not Path(args.path).is_dir():
        raise UsageError(f"{args.path}: no such project directory")
    commits = api.commit_range(Path(args.path), args.good, args.bad)   # bad input fails before the store is made
    store_path = args.store or str(Path(args.path) / api.DEFAULT_STORE)
    with api.open_store(store_path) as store:
        bisection = api.bisect(plan, settings, store, lambda: api.make_reporter(stderr),
                               build_cache=not args.no_build_cache, commits=commits)
    write_output(api.render_bisect(bisection, args.format), args.output, stdout)
    status = bisection.search.status
    return {api.Status.FOUND: EXIT_FOUND, api.Status.NOT_SLOWER: EXIT_NOT_SLOWER,
            api.Status.NOT_FASTER: EXIT_NOT_SLOWER}.get(status, EXIT_INCONCLUSIVE)
