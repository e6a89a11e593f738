"""``rigorbench history``: when did a benchmark change, over the commits of a branch?"""

from __future__ import annotations

import argparse
from typing import IO

from rigorbench.api import CI_CONFIDENCE, DEFAULT_STORE, MAX_P, MIN_SIZE, WINDOW
from rigorbench.cli.history_options import html_arguments, regex, selection_arguments, since
from rigorbench.cli.parser import Parser, UsageError, fraction, positive_int

DESCRIPTION = f"""\
The history of benchmark results over commits, and the commits where a benchmark changed.

  add       add result files (JMH JSON or text, Go bench, Google Benchmark JSON, pyperf JSON, pa CSV) as points at --commit, or
            the version of a stored run (--run ID --label L); the samples are stored too
  import    import a CSV history in Apache Otava's layout (--csv)
  list      one line per series: benchmark, metric, branch, machine kind, points, commits
  show      the points of the selected series: commit, time, n, mean and its 95% CI;
            --html FILE also draws them, with their segments and change points
  changes   change points of every series: the commit range, the levels before and after
            with their 95% CIs, the relative change, a p-value, slower or faster

A series is one benchmark case and metric over the commits of one branch on one kind of
machine (CPU model and count, OS and architecture, memory, from the recorded environment):
series of different machine kinds are never mixed, and list and show say when a benchmark
has several. 'rigorbench record' runs one version of a project and adds its points. A point
from samples keeps their mean and its hierarchical bootstrap CI at 95%, computed once when
it is added. Every subcommand takes --store (default: {DEFAULT_STORE}); changes also reads
a CSV file in Otava's layout directly (--csv): a time column, attribute columns such as
commit and branch, one column per metric, a row per run, and optional METRIC.ci_low and
METRIC.ci_high columns, each run's own interval: a change must then be larger than the runs'
noise. The detection is E-divisive means as in Otava (windows of {WINDOW} points,
p <= {MAX_P:g}) with a minimum segment of {MIN_SIZE} points (one slow run is not a change),
the p-value corrected for the choice of the split, and outlying runs left out
(docs/statistics.md, "Change points over commits").

exit status: 0 success, 1 --fail-on regression and the newest change of a series is a
regression, 2 bad usage or input
"""

EPILOG = """\
examples:
  rigorbench history add results.json --commit 3f2c1e0 --branch main
  rigorbench history import --csv otava/latency.csv --store history.db
  rigorbench history list --bench 'Parse.*'
  rigorbench history show --bench 'Parse.*' --since 2026-01-01 --format markdown
  rigorbench history show --branch main --html history.html --repo-url https://github.com/owner/repo
  rigorbench history changes --branch main --fail-on regression
  rigorbench history changes --csv results.csv --bench 'throughput|latency' --higher-is-better throughput
"""
SUBCOMMANDS = ("add", "import", "list", "show", "changes")
_SERIES = """\
A series is one benchmark case and metric over the commits of one branch on one kind of
machine (CPU model and count, OS and architecture, memory, from the recorded environment);
series of different machine kinds are never mixed, and the outputs say when a benchmark has
several."""
DETAILS = {
    "add": """\
Each benchmark case and metric of the files (the trials of one version) becomes one point at
--commit: the mean of its measurement iterations and the mean's hierarchical bootstrap CI at
95%, computed once now. The files' samples are stored too, as a finished run (see
'rigorbench runs'). --commit is looked up in git (the repository of --repo, else of the
current directory) for its full id and its time; outside git it is taken as named, at
--time or now. A point already in the history (same series, commit, time and source) is
refused, and so are files whose content was added at that commit and time before (a copy in
another folder); then nothing is added.""",
    "import": """\
The CSV file is Apache Otava's layout: a time column, attribute columns such as commit and
branch, and one column per metric, a row per run. Each row and metric becomes one point on
the row's branch; a metric M may have M.ci_low and M.ci_high columns, each run's own
confidence interval (at --ci-confidence). Which way is better comes from --higher-is-better
and --lower-is-better, else from the column's name where it says, else lower is better is
assumed; a note says which columns were read how. A point whose series already has one at
its commit and time (the same file imported again, from any folder) is skipped, and the
output says how many were.""",
    "list": _SERIES,
    "show": _SERIES + """

With --html FILE, the series are also written as one self-contained HTML page (the look of
'rigorbench report'): each series over its commits with each point's CI, the segments
between change points drawn at their levels with their CIs, the change points marked
slower or faster, regressions first (the series whose newest change is slower). Commits are
links to --repo-url/commit/SHA, or to the web page of the recorded project's GitHub or
GitLab remote; 'rigorbench report --history' writes the same page.""",
    "changes": f"""\
The series are the store's (--store), or the columns of a CSV file in Otava's layout
(--csv): a time column, attribute columns such as commit and branch, one column per metric,
a row per run, and optional METRIC.ci_low and METRIC.ci_high columns. Where the points have
their own intervals, a change must be larger than the runs' noise. The detection is
E-divisive means as in Otava (windows of {WINDOW} points, p <= {MAX_P:g}) with a minimum
segment of {MIN_SIZE} points (one slow run is not a change), the p-value corrected for the
choice of the split, and outlying runs left out (docs/statistics.md, "Change points over
commits").""",
}
FORMATS = ("text", "markdown", "json")


def _p_value(text: str) -> float:
    value = fraction(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text!r}")
    return value


def _store_argument(parser, help_text: str = "the results store") -> None:
    parser.add_argument("--store", metavar="DB", help=f"{help_text} (default: {DEFAULT_STORE})")


def _output_arguments(parser: argparse.ArgumentParser, fail_on: bool = False) -> None:
    output = parser.add_argument_group("output")
    output.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    output.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE instead of standard output")
    if fail_on:
        output.add_argument("--fail-on", choices=("regression",), help="exit 1 when the newest change point of any series is a regression (the nightly CI gate)")


def _csv_arguments(group, *, required: bool) -> None:
    group.add_argument("--csv", required=required, metavar="FILE", help="a history in Otava's CSV layout: a time column, attributes, one column per metric")
    group.add_argument("--time-column", default="time", metavar="NAME", help="with --csv: the time column (default: time)")
    group.add_argument("--commit-column", default="commit", metavar="NAME", help="with --csv: the column naming each run's commit (default: commit)")
    group.add_argument("--ci-confidence", type=_p_value, default=CI_CONFIDENCE, metavar="C", help=f"with --csv: confidence of the runs' intervals in METRIC.ci_low and METRIC.ci_high columns (default: {CI_CONFIDENCE})")
    group.add_argument("--higher-is-better", type=regex, action="append", metavar="REGEX",
                       help="with --csv: metric columns where more is better (throughput), a column name or a regular "
                       "expression searched in the names; repeatable. Columns no option names take their direction "
                       "from their names where those say (ops, _per_s, _ops_s, throughput, qps: higher; ns, ms, time, "
                       "latency, _per_op: lower); the others are taken as lower is better, and the output says so")
    group.add_argument("--lower-is-better", type=regex, action="append", metavar="REGEX",
                       help="with --csv: metric columns where less is better (times), where their names say otherwise or nothing; repeatable")


def _add_parser(commands, name: str, summary: str, parent):
    examples = [line for line in EPILOG.splitlines()[1:] if line.startswith(f"  rigorbench history {name} ")]
    exits = "exit status: 0 success, 1 --fail-on regression and the newest change of a series is a regression, 2 bad usage or input"
    return commands.add_parser(
        name, help=summary, description=f"{summary[0].upper()}{summary[1:]}.\n\n{DETAILS[name]}",
        epilog="examples:\n" + "\n".join(examples) + "\n\n" + (exits if name == "changes" else "exit status: 0 success, 2 bad usage or input"),
        stdout=parent._stdout if isinstance(parent, Parser) else None)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="history_command", metavar="SUBCOMMAND", parser_class=Parser)
    add = _add_parser(commands, "add", "add result files, or a stored run's version, as history points at a commit", parser)
    add.add_argument("files", nargs="*", metavar="FILE", help="result files of one version (one per trial): JMH JSON or text, Go bench, pa CSV")
    where = add.add_argument_group("where the points go")
    where.add_argument("--commit", metavar="C", help="the commit measured (looked up in the git repository of --repo, or of the current directory, for its full id and time)")
    where.add_argument("--time", metavar="T", help="the commit's time, ISO 8601 (default: the commit's time in git; outside git, now)")
    where.add_argument("--branch", default="", metavar="NAME", help="the branch (default: none)")
    where.add_argument("--repo", metavar="DIR", help="the git repository where --commit is looked up (default: the current directory's, if any)")
    where.add_argument("--machine", metavar="NAME", help="the kind of machine (default: from the recorded environment; 'unknown' without one)")
    where.add_argument("--run", type=positive_int, metavar="RUN_ID", help="instead of files: a run stored in --store (from ab, run or record)")
    where.add_argument("--label", metavar="LABEL", help="with --run: the version to add (default: the run's only version); its commit unless --commit")
    _store_argument(add, "the results store the points and samples go to")
    imp = _add_parser(commands, "import", "import a CSV history in Apache Otava's layout as history points", parser)
    source = imp.add_argument_group("input")
    _csv_arguments(source, required=True)
    source.add_argument("--metric", action="append", metavar="COLUMN", help="a metric column (repeatable; default: every column of numbers besides time, commit and branch)")
    source.add_argument("--branch", metavar="NAME", help="only rows whose branch column is NAME")
    source.add_argument("--since", type=since, metavar="TIME", help="only rows at or after TIME (ISO 8601)")
    source.add_argument("--machine", metavar="NAME", help="the kind of machine the file's runs were on (default: unknown)")
    _store_argument(imp, "the results store the points go to")
    for name, summary in (("list", "one line per history series"), ("show", "the points of the selected history series")):
        sub = _add_parser(commands, name, summary, parser)
        _store_argument(sub)
        selection_arguments(sub)
        _output_arguments(sub)
        if name == "show":
            html_arguments(sub.add_argument_group("html"))
    changes = _add_parser(commands, "changes", "change points of every history series", parser)
    source = changes.add_argument_group("input")
    _store_argument(source, "the results store whose history is read (unless --csv)")
    _csv_arguments(source, required=False)
    selection_arguments(changes, csv=True)
    detect = changes.add_argument_group("detection")
    detect.add_argument("--max-p", type=_p_value, default=MAX_P, metavar="P", help=f"significance of a change after correcting for the choice of the split (default: {MAX_P:g})")
    detect.add_argument("--min-segment", type=positive_int, default=MIN_SIZE, metavar="N", help=f"fewest points on each side of a change (default: {MIN_SIZE})")
    detect.add_argument("--window", type=positive_int, default=WINDOW, metavar="N", help=f"points per window of the split step (default: {WINDOW})")
    _output_arguments(changes, fail_on=True)


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    if args.history_command is None:
        raise UsageError(f"history: name a subcommand: {', '.join(SUBCOMMANDS)} (see 'rigorbench history --help')")
    from rigorbench.cli import history_commands

    handler = {"add": history_commands.add, "import": history_commands.import_csv, "list": history_commands.listing,
               "show": history_commands.show, "changes": history_commands.changes}[args.history_command]
    return handler(args, stdout, stderr)
