"""``rigorbench history``: when did a benchmark change, over the commits of a branch?"""

from __future__ import annotations

import argparse
import re
from datetime import datetime, timezone
from typing import IO

from rigorbench.analysis.history import CI_CONFIDENCE
from rigorbench.cli.common import write_output
from rigorbench.cli.parser import Parser, UsageError, fraction, positive_int
from rigorbench.stats.changepoints import MAX_P, MIN_SIZE, WINDOW

DESCRIPTION = f"""\
Find the commits where a benchmark's level changed, in a per-commit history.

  changes   change points of every series: the commit range, the levels before and after
            with their 95% CIs, the relative change, a p-value, slower or faster

The input is a CSV file in Apache Otava's layout (--csv): a time column, attribute columns
such as commit and branch, and one column per metric, a row per run. A metric M may have
M.ci_low and M.ci_high columns, each run's own confidence interval: a change must then be
larger than the runs' noise. The detection is
E-divisive means as in Otava (windows of {WINDOW} points, p <= {MAX_P:g}) with a minimum
segment of {MIN_SIZE} points (one slow run is not a change), the p-value corrected for the
choice of the split, and outlying runs left out (docs/statistics.md, "Change points over
commits").

exit status: 0 success, 1 --fail-on regression and the newest change of a series is a
regression, 2 bad usage or input
"""

EPILOG = """\
examples:
  rigorbench history changes --csv results.csv
  rigorbench history changes --csv results.csv --bench 'throughput|latency' --higher-is-better throughput
  rigorbench history changes --csv nightly.csv --branch main --since 2026-01-01 --fail-on regression --format markdown
"""


def _regex(text: str) -> re.Pattern:
    try:
        return re.compile(text)
    except re.error as error:
        raise argparse.ArgumentTypeError(f"not a regular expression: {text!r} ({error})") from None


def _since(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 date or time: {text!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _p_value(text: str) -> float:
    value = fraction(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="history_command", metavar="SUBCOMMAND", parser_class=Parser)
    changes = commands.add_parser(
        "changes", help="change points of every series", description=DESCRIPTION, epilog=EPILOG,
        stdout=parser._stdout if isinstance(parser, Parser) else None,
    )
    source = changes.add_argument_group("input")
    source.add_argument("--csv", required=True, metavar="FILE", help="a history in Otava's CSV layout: a time column, attributes, one column per metric")
    source.add_argument("--time-column", default="time", metavar="NAME", help="the time column (default: time)")
    source.add_argument("--commit-column", default="commit", metavar="NAME", help="the column naming each run's commit (default: commit)")
    source.add_argument("--metric", action="append", metavar="COLUMN", help="a metric column (repeatable; default: every column of numbers besides time, commit and branch)")
    source.add_argument("--ci-confidence", type=_p_value, default=CI_CONFIDENCE, metavar="C", help=f"confidence of the runs' intervals in METRIC.ci_low and METRIC.ci_high columns (default: {CI_CONFIDENCE})")
    select = changes.add_argument_group("selection")
    select.add_argument("--bench", type=_regex, metavar="REGEX", help="only metric columns matching REGEX")
    select.add_argument("--branch", metavar="NAME", help="only rows whose branch column is NAME")
    select.add_argument("--since", type=_since, metavar="TIME", help="only rows at or after TIME (ISO 8601)")
    select.add_argument("--higher-is-better", type=_regex, metavar="REGEX", help="metric columns where more is better (throughput); the others are times")
    detect = changes.add_argument_group("detection")
    detect.add_argument("--max-p", type=_p_value, default=MAX_P, metavar="P", help=f"significance of a change after correcting for the choice of the split (default: {MAX_P:g})")
    detect.add_argument("--min-segment", type=positive_int, default=MIN_SIZE, metavar="N", help=f"fewest points on each side of a change (default: {MIN_SIZE})")
    detect.add_argument("--window", type=positive_int, default=WINDOW, metavar="N", help=f"points per window of the split step (default: {WINDOW})")
    output = changes.add_argument_group("output")
    output.add_argument("--format", choices=("text", "markdown", "json"), default="text", help="output format (default: text)")
    output.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE instead of standard output")
    output.add_argument("--fail-on", choices=("regression",), help="exit 1 when the newest change point of any series is a regression (the nightly CI gate)")


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench.analysis.history import detect_changes
    from rigorbench.formats.history_csv import read_history_csv
    from rigorbench.errors import UserError
    from rigorbench.report.history import render_history

    if args.history_command is None:
        raise UsageError("history: name a subcommand: changes (see 'rigorbench history --help')")
    if args.window < 2 * args.min_segment:
        raise UsageError(f"history changes: --window {args.window} must hold two segments of --min-segment {args.min_segment}")
    series = read_history_csv(
        args.csv, time_column=args.time_column, commit_column=args.commit_column, metrics=args.metric,
        bench=args.bench, higher_is_better=args.higher_is_better, branch=args.branch, since=args.since,
    )
    if not series:
        raise UserError(f"{args.csv}: no metric column with numbers{' matches --bench' if args.bench else ''}")
    result = detect_changes(series, (args.csv,), max_p=args.max_p, min_size=args.min_segment, window=args.window,
                            ci_confidence=args.ci_confidence)
    write_output(render_history(result, args.format), args.output, stdout)
    return 1 if result.fails(args.fail_on) else 0
