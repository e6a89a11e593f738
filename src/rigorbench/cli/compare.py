"""``rigorbench compare``: two sets of results in, a verdict per benchmark and an exit code out."""

from __future__ import annotations

import argparse
from typing import IO

from rigorbench.cli.common import (
    add_output_arguments, add_side_arguments, add_statistics_arguments, finish_comparison, note_printer,
    progress_printer,
    settings_from,
)
from rigorbench.cli.parser import UsageError, positive_int


DESCRIPTION = """\
Compare the results of a baseline and a contender version, benchmark by benchmark.

Each side is one result file (one trial) or several (several trials of that version). Files
are JMH JSON (-rf json), JMH console logs, Go benchmark output, Google Benchmark JSON, pyperf
JSON or pa CSV, detected from their content; gzipped files are read as they are. A run given
twice on a side (the same file, a copy, or one run's JMH JSON and console log) counts once,
with a note; a run on both sides is refused, and so are a side's files whose names name two
versions, unless --baseline-label/--contender-label names the version.

For every benchmark and metric found on both sides, rigorbench reports the ratio
contender/baseline of the statistic with a hierarchical bootstrap confidence interval
(resampling trials, forks and iterations), the Mann-Whitney U p-value, Cliff's delta, and a
verdict:
  unchanged     the whole ratio CI lies within the threshold (default +-1%)
  slower/faster the CI excludes 1 and the estimate is at least the threshold away from 1
  inconclusive  anything else: collect more data
'slower' and 'faster' are meant in the user's sense, for time (lower is better) and
throughput (higher is better) alike.

A stored run of 'ab --until-decided' is compared at the level and with the interval its
looks decided with (docs/adaptive.md), unless --confidence or --interval is given.

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
    inputs.add_argument("--store", metavar="DB", help="read both versions from this results store, a file or a postgresql:// URL (see 'rigorbench runs')")
    inputs.add_argument("--run", type=positive_int, metavar="RUN_ID", help="with --store: the run to read (default: the newest run with both labels)")
    add_statistics_arguments(parser, jobs=True, paired=True)
    add_output_arguments(parser)


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
    from rigorbench import api

    settings, progress = settings_from(args), progress_printer(stderr, "compare", "comparing")
    if args.store:
        if args.files or not (args.baseline and args.contender) or len(args.baseline) + len(args.contender) != 2:
            raise UsageError("with --store, give one version label each: --baseline LABEL --contender LABEL")
        result = api.compare_stored(args.store, args.baseline[0], args.contender[0], args.run, settings,
                                    level_chosen=args.confidence is not None or args.interval is not None,
                                    progress=progress, jobs=args.jobs)
    else:
        baseline_files, contender_files = _sides(args)
        note = note_printer(stderr)
        baseline = api.load_results(baseline_files, args.baseline_label, note)
        contender = api.load_results(contender_files, args.contender_label, note)
        result = api.compare(baseline, contender, settings, progress=progress, jobs=args.jobs)
    return finish_comparison(result, args, stdout, lambda line: stderr.write(line + "\n"))
