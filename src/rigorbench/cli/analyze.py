"""``rigorbench analyze``: one version's data in, results and advice per benchmark out."""

from __future__ import annotations

import argparse
from typing import IO

from rigorbench.cli.common import (
    ANALYZE_FORMATS, add_jobs_argument, add_metric_argument, add_resampling_arguments, add_version_inputs,
    check_version_inputs, dataset_from_args, note_printer, progress_printer, settings_from, write_output,
)
from rigorbench.api import SEVERITIES
from rigorbench.errors import UserError
from rigorbench.api import DEFAULT_WIDTH, text_width


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
Google Benchmark JSON, pyperf JSON, pa CSV), or a version of a stored run (--store). JMH console logs carry the warmup
iterations; JMH JSON does not. A run given twice (the same file, a copy, or one run's JMH JSON
and console log) counts once, with a note. Files whose names name two versions (old.json
new.json, v1-trial1.json v2-trial1.json; for files of one name, their folders) are refused
rather than merged: --label NAME says they are trials of one version.

exit status: 0 no diagnostic at --fail-on or above, 1 such diagnostics, 2 bad usage or input
"""

EPILOG = """\
examples:
  rigorbench analyze results.json
  rigorbench analyze trial1.log trial2.log trial3.log --format markdown
  rigorbench analyze --store .rigorbench/results.db --version v2
  rigorbench analyze run.log --steady-only --fail-on error
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_version_inputs(parser)
    stats = parser.add_argument_group("statistics")
    add_resampling_arguments(stats)
    add_metric_argument(stats)
    stats.add_argument("--steady-only", action="store_true", help="summarize only iterations at or after each fork's steady state")
    add_jobs_argument(stats)
    output = parser.add_argument_group("output")
    output.add_argument("--format", choices=ANALYZE_FORMATS, default="text", help="output format (default: text)")
    output.add_argument("--fail-on", choices=(*reversed(SEVERITIES[1:]), "never"), default="never",
                        help="exit 1 when a diagnostic of this severity or worse exists (default: never)")
    output.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE instead of standard output")


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench import api

    progress = progress_printer(stderr, "analyze", "analysing")
    if check_version_inputs(args) == "files":    # read as a stream where it can (api.analyze_files)
        result = api.analyze_files(args.files, settings_from(args), args.label, note_printer(stderr), progress, args.jobs)
    else:
        dataset, _ = dataset_from_args(args, stderr)
        result = api.analyze(dataset, settings_from(args), progress=progress, jobs=args.jobs)
    if not result.benchmarks:
        raise UserError(f"no {result.settings.metric} metric with measurements found in the input")
    width = text_width(stdout) if args.output is None else DEFAULT_WIDTH
    write_output(api.render(result, args.format, width=width), args.output, stdout)
    return 1 if result.fails(args.fail_on) else 0
