"""``rigorbench compare``: two sets of results in, a verdict per benchmark and an exit code out."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import IO

from rigorbench.analysis.compare import compare_datasets
from rigorbench.analysis.dataset import dataset_from_store, load_dataset
from rigorbench.analysis.settings import CORRECTIONS, DEFAULT_SEED, STATISTICS, TESTS, Settings
from rigorbench.cli.parser import UsageError, fraction, positive_int
from rigorbench.errors import UserError
from rigorbench.report import COMPARISON_RENDERERS, render_comparison
from rigorbench.store import ResultStore

SUMMARY = "compare two versions' results and decide: slower, faster, unchanged or inconclusive"

DESCRIPTION = """\
Compare the results of a baseline and a contender version, benchmark by benchmark.

Each side is one result file (one trial) or several (several trials of that version). Files
are JMH JSON (-rf json), JMH console logs, Go benchmark output or pa CSV, detected from their
content; gzipped files are read as they are.

For every benchmark and metric found on both sides, rigorbench reports the ratio
contender/baseline of the statistic with a hierarchical bootstrap confidence interval
(resampling trials, forks and iterations), the Mann-Whitney U p-value, Cliff's delta, and a
verdict:
  unchanged     the whole ratio CI lies within the threshold (default +-1%)
  slower/faster the CI excludes 1 and the estimate is at least the threshold away from 1
  inconclusive  anything else: collect more data
'slower' and 'faster' are meant in the user's sense, for time (lower is better) and
throughput (higher is better) alike.

exit status: 0 no failure condition met, 1 --fail-on condition met, 2 bad usage or input
"""

EPILOG = """\
examples:
  rigorbench compare old.json new.json
  rigorbench compare --baseline a1.json a2.json a3.json --contender b1.json b2.json b3.json
  rigorbench compare old.json new.json --format markdown --fail-on regression
  rigorbench compare old.log new.log --test wilcoxon --alpha 0.01
  rigorbench compare --store .rigorbench/results.db --baseline v1 --contender v2
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    inputs = parser.add_argument_group("inputs")
    inputs.add_argument("files", nargs="*", metavar="FILE", help="BASELINE and CONTENDER result files (exactly two)")
    add_side_arguments(inputs)
    inputs.add_argument("--store", metavar="DB", help="read both versions from this results store (see 'rigorbench runs')")
    inputs.add_argument("--run", type=positive_int, metavar="RUN_ID", help="with --store: the run to read (default: the newest run with both labels)")
    add_statistics_arguments(parser)
    add_output_arguments(parser)


def add_side_arguments(inputs: argparse._ArgumentGroup) -> None:
    """--baseline/--contender (files, or labels with --store) and their names (compare, report)."""
    inputs.add_argument("--baseline", nargs="+", metavar="FILE", help="result files of the baseline (one per trial), or its version label with --store")
    inputs.add_argument("--contender", nargs="+", metavar="FILE", help="result files of the contender (one per trial), or its version label with --store")
    inputs.add_argument("--baseline-label", metavar="NAME", help="name of the baseline in the output (default: file name)")
    inputs.add_argument("--contender-label", metavar="NAME", help="name of the contender in the output (default: file name)")


def add_statistics_arguments(parser: argparse.ArgumentParser, *, metric: bool = True) -> None:
    stats = parser.add_argument_group("statistics")
    stats.add_argument("--statistic", choices=STATISTICS, default="mean", help="statistic compared (default: mean)")
    stats.add_argument("--confidence", type=fraction, default=0.99, metavar="C", help="confidence level (default: 0.99)")
    stats.add_argument("--resamples", type=positive_int, default=10_000, metavar="N", help="bootstrap resamples (default: 10000)")
    stats.add_argument("--seed", type=positive_int, default=DEFAULT_SEED, metavar="S", help=f"random seed; same input and seed, same output (default: {DEFAULT_SEED})")
    stats.add_argument("--threshold", type=fraction, default=0.01, metavar="T", help="smallest change that matters, as 0.01 or 1%% (default: 1%%)")
    stats.add_argument("--test", choices=TESTS, default="bootstrap", help="decision rule: bootstrap CI vs threshold (default), or wilcoxon: the papers' rule, p <= --alpha and |Cliff's delta| >= 0.33")
    stats.add_argument("--alpha", type=fraction, default=0.01, metavar="A", help="significance level of --test wilcoxon (default: 0.01)")
    stats.add_argument("--correction", choices=CORRECTIONS, default="none", help="multiple-comparison correction of p-values (default: none)")
    if metric:
        stats.add_argument("--metric", default="primary", metavar="NAME", help="primary (default), all (adds alloc, gc.count, ...), or one metric name such as alloc")
    stats.add_argument("--steady-only", action="store_true", help="use only iterations at or after each fork's detected steady state (forks of 20+ iterations; see 'rigorbench analyze')")


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    output = parser.add_argument_group("output")
    output.add_argument("--format", choices=tuple(COMPARISON_RENDERERS), default="text", help="output format (default: text)")
    output.add_argument("--fail-on", choices=("regression", "change", "never"), default="never", help="exit 1 when a benchmark got slower (regression) or changed either way (change); default: never")
    output.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE instead of standard output")


def settings_from(args: argparse.Namespace) -> Settings:
    return Settings(
        statistic=args.statistic,
        confidence=args.confidence,
        resamples=args.resamples,
        seed=args.seed,
        threshold=args.threshold,
        test=args.test,
        alpha=args.alpha,
        metric=getattr(args, "metric", "primary"),
        correction=args.correction,
        steady_only=args.steady_only,
    )


def _sides(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    if args.baseline or args.contender:
        if args.files:
            raise UsageError("give either two files or --baseline/--contender, not both")
        if not (args.baseline and args.contender):
            raise UsageError("--baseline and --contender go together")
        return args.baseline, args.contender
    if len(args.files) != 2:
        raise UsageError(f"expected BASELINE and CONTENDER files, got {len(args.files)} file(s) (see 'rigorbench compare --help')")
    return [args.files[0]], [args.files[1]]


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    settings = settings_from(args)
    if args.store:
        baseline, contender = _from_store(args)
    else:
        baseline_files, contender_files = _sides(args)
        baseline = load_dataset(baseline_files, args.baseline_label)
        contender = load_dataset(contender_files, args.contender_label)
    if baseline.label == contender.label:
        baseline = replace(baseline, label="baseline")
        contender = replace(contender, label="contender")
    return finish_comparison(compare_datasets(baseline, contender, settings), args, stdout)


def finish_comparison(report, args: argparse.Namespace, stdout: IO[str]) -> int:
    """Render the comparison where asked and turn --fail-on into the exit code."""
    if not report.comparisons:
        raise UsageError("no benchmark is present on both sides; nothing to compare")
    write_output(render_comparison(report, args.format), args.output, stdout)
    return 1 if report.fails(args.fail_on) else 0


def _from_store(args: argparse.Namespace):
    if args.files or not (args.baseline and args.contender) or len(args.baseline) + len(args.contender) != 2:
        raise UsageError("with --store, give one version label each: --baseline LABEL --contender LABEL")
    with ResultStore.open(args.store, create=False) as store:
        run_id = args.run
        if run_id is None:
            latest = store.latest_run([args.baseline[0], args.contender[0]])
            if latest is None:
                raise UserError(f"{args.store}: no run has both versions {args.baseline[0]!r} and {args.contender[0]!r}")
            run_id = latest.run_id
        return (dataset_from_store(store, run_id, args.baseline[0]), dataset_from_store(store, run_id, args.contender[0]))


def write_output(text: str, path: str | None, stdout: IO[str]) -> None:
    if path is None:
        stdout.write(text)
        return
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise UserError(f"{path}: cannot write: {error.strerror}") from None
