"""``rigorbench analyze``: one version's data in, results and advice per benchmark out."""

from __future__ import annotations

import argparse
from typing import IO

from rigorbench.analysis.analyze import analyze_dataset
from rigorbench.analysis.dataset import Dataset, dataset_from_store, load_dataset
from rigorbench.analysis.settings import DEFAULT_SEED, Settings
from rigorbench.cli.compare import write_output
from rigorbench.cli.parser import UsageError, fraction, positive_int
from rigorbench.errors import UserError
from rigorbench.model import SEVERITIES
from rigorbench.report.analysis import ANALYSIS_RENDERERS, render_analysis
from rigorbench.store import ResultStore

SUMMARY = "diagnose one version's results: steady state, warmup, variability by level, modes, GC/JIT, plausibility"

DESCRIPTION = """\
Analyze the results of one version, benchmark by benchmark, and say what the data means.

For each benchmark and metric: mean and median with hierarchical bootstrap CIs, the relative
CI width (RCIW), the coefficient of variation in total and per level (iteration, fork, trial,
instance) with variance components, and diagnostics, most severe first, each with a hint:
  steady state     per fork (change points, Traini et al.), against the configured warmup:
                   warmup too short / longer than needed, forks that never settle
  variability      which level dominates and what to add (iterations, forks, trials)
  modes            bimodal iterations within a fork; fork means that form groups
  outliers         Tukey fences per fork; values >= 10x the median removed (Laaber et al.)
  GC and JIT       slow iterations that coincide with GC (-prof gc) or compilation (-prof comp)
  plausibility     < 1 ns per operation (dead code), forks 10x apart, quantized scores
  trend            scores drifting during measurement
Steady-state detection needs forks of 20 or more iterations (warmup included).

Inputs are result files of one version (one per trial: JMH JSON or console logs, Go output,
pa CSV), or a version of a stored run (--store). JMH console logs carry the warmup
iterations; JMH JSON does not.

exit status: 0 no diagnostic at --fail-on or above, 1 such diagnostics, 2 bad usage or input
"""

EPILOG = """\
examples:
  rigorbench analyze results.json
  rigorbench analyze trial1.log trial2.log trial3.log --format markdown
  rigorbench analyze --store .rigorbench/results.db --version v2
  rigorbench analyze run.log --steady-only --fail-on error
"""


def add_version_inputs(parser: argparse.ArgumentParser) -> None:
    """One version's data: result files, or --store with --version (analyze, power)."""
    inputs = parser.add_argument_group("inputs")
    inputs.add_argument("files", nargs="*", metavar="FILE", help="result files of one version (one per trial)")
    inputs.add_argument("--label", metavar="NAME", help="name of the version in the output (default: file name)")
    inputs.add_argument("--store", metavar="DB", help="read the version from this results store (see 'rigorbench runs')")
    inputs.add_argument("--version", dest="version_label", metavar="LABEL", help="with --store: the version (label) to read")
    inputs.add_argument("--run", type=positive_int, metavar="RUN_ID", help="with --store: the run (default: the newest)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_version_inputs(parser)
    stats = parser.add_argument_group("statistics")
    stats.add_argument("--confidence", type=fraction, default=0.99, metavar="C", help="confidence level of the CIs (default: 0.99)")
    stats.add_argument("--resamples", type=positive_int, default=10_000, metavar="N", help="bootstrap resamples (default: 10000)")
    stats.add_argument("--seed", type=positive_int, default=DEFAULT_SEED, metavar="S", help=f"random seed (default: {DEFAULT_SEED})")
    stats.add_argument("--metric", default="primary", metavar="NAME", help="primary (default), all, or one metric name such as alloc")
    stats.add_argument("--steady-only", action="store_true", help="summarize only iterations at or after each fork's steady state")
    output = parser.add_argument_group("output")
    output.add_argument("--format", choices=tuple(ANALYSIS_RENDERERS), default="text", help="output format (default: text)")
    output.add_argument("--fail-on", choices=(*reversed(SEVERITIES[1:]), "never"), default="never",
                        help="exit 1 when a diagnostic of this severity or worse exists (default: never)")
    output.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE instead of standard output")


def _from_store(args: argparse.Namespace) -> tuple[Dataset, float | None]:
    """The version's data and the mean seconds one of its trials took (harness time)."""
    if args.files:
        raise UsageError("give result files or --store, not both")
    with ResultStore.open(args.store, create=False) as store:
        run = store.run(args.run) if args.run else store.latest_run([args.version_label] if args.version_label else None)
        if run is None:
            wanted = f" with version {args.version_label!r}" if args.version_label else ""
            raise UserError(f"{args.store}: no run{wanted}")
        labels = [v.label for v in run.versions]
        label = args.version_label
        if label is None and len(labels) == 1:
            label = labels[0]
        if label not in labels:
            choice = "choose one with --version" if label is None else f"{label!r} is not one of them"
            raise UsageError(f"{args.store}: run {run.run_id} has versions {', '.join(labels)}; {choice}")
        seconds = [e.harness_seconds for e in store.executions(run.run_id) if e.label == label and e.harness_seconds]
        return dataset_from_store(store, run.run_id, label), (sum(seconds) / len(seconds) if seconds else None)


def dataset_from_args(args: argparse.Namespace) -> tuple[Dataset, float | None]:
    """One version's data (result files, or a version of a stored run) and, for a stored
    run, the mean seconds of one trial of that version (analyze, power)."""
    if args.store:
        return _from_store(args)
    if args.files:
        if args.version_label or args.run:
            raise UsageError("--version and --run go with --store")
        return load_dataset(args.files, args.label), None
    raise UsageError(f"give result files of one version, or --store DB (see 'rigorbench {args.command} --help')")


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    dataset, _ = dataset_from_args(args)
    settings = Settings(
        confidence=args.confidence, resamples=args.resamples, seed=args.seed, metric=args.metric,
        steady_only=args.steady_only,
    )
    report = analyze_dataset(dataset, settings)
    if not report.benchmarks:
        raise UserError(f"no {args.metric} metric with measurements found in the input")
    write_output(render_analysis(report, args.format), args.output, stdout)
    return 1 if report.fails(args.fail_on) else 0
