"""``rigorbench report``: the data and the verdicts as one self-contained HTML page, or the
plotted series as plain columns for gnuplot and spreadsheets."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import IO, Mapping

from rigorbench.api import DEFAULT_STORE
from rigorbench.cli.common import (
    add_mismatch_argument, add_side_arguments, add_statistics_arguments, note_printer, progress_printer,
    settings_from,
    write_output,
)
from rigorbench.cli.parser import UsageError, positive_int
from rigorbench.cli.history_options import html_arguments, selection_arguments
from rigorbench.errors import UserError


DESCRIPTION = """\
Write what compare (two versions) or analyze (one version) found as one HTML file that
needs no network to view, with the plots people judge benchmark data by:
  summary        the verdict table with CIs, coloured by verdict, sortable, linking to each
                 benchmark (regressions first); counts; settings; lint findings (--lint)
  environment    the facts recorded per trial, differences between versions marked
  per benchmark  the iteration series of every fork (warmup shaded, steady-state start,
                 GC and JIT compilation marked when recorded); both versions' distributions
                 with every fork mean; the bootstrap distribution of the change with its CI
                 and the threshold band; allocation per op; analyze's diagnostics in words
  scaling        for a benchmark run at several values of a numeric parameter: the
                 mean against it on log-log axes with CI error bars and the fitted
                 growth exponent
history        with --history: each series of the store's per-commit history over its
                 commits with per-point CI bars, the segments between change points at
                 their levels, the change points marked slower or faster, regressions
                 first, commits as links to the repository (see 'rigorbench history')
--format csv writes every plotted iteration series as one CSV table instead; --data-dir
writes whitespace-separated columns with '#' comments, one file per benchmark, for gnuplot.

Inputs are those of compare (two files, --baseline/--contender files, or --store with two
labels) or of analyze (one file, --one-version FILE..., or --store with --version). With
--store alone the newest run is used: its first two versions are compared.
"""

EPILOG = """\
examples:
  rigorbench report old.json new.json --html report.html
  rigorbench report --baseline a1.json a2.json --contender b1.json b2.json --html report.html
  rigorbench report --store .rigorbench/results.db --html report.html --lint src/jmh
  rigorbench report --store .rigorbench/results.db --version v2 --html v2.html
  rigorbench report trial1.json trial2.json --one-version --format csv -o series.csv
  rigorbench report old.json new.json --data-dir plots/    # then: gnuplot, 'using 1:2'
  rigorbench report --history --store .rigorbench/results.db --branch main --html history.html
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    inputs = parser.add_argument_group("inputs")
    inputs.add_argument("files", nargs="*", metavar="FILE", help="BASELINE and CONTENDER result files, or one version's file(s) with --one-version")
    add_side_arguments(inputs)
    inputs.add_argument("--one-version", action="store_true", help="the FILEs are trials of one version: report it as analyze does")
    inputs.add_argument("--label", metavar="NAME", help="with --one-version: name of the version (default: file name)")
    inputs.add_argument("--store", metavar="DB", help="read the versions from this results store (see 'rigorbench runs')")
    inputs.add_argument("--run", type=positive_int, metavar="RUN_ID", help="with --store: the run (default: the newest)")
    inputs.add_argument("--version", dest="version_label", metavar="LABEL", help="with --store: report this one version")
    inputs.add_argument("--lint", action="append", metavar="PATH", help="lint these benchmark sources and show the findings (repeatable)")
    add_mismatch_argument(inputs)
    add_statistics_arguments(parser, metric=False, jobs=True)
    output = parser.add_argument_group("output")
    output.add_argument("--html", metavar="FILE", help="write the HTML report to FILE")
    output.add_argument("--format", choices=("html", "csv"), default="html", help="html (default), or csv: the iteration series, one row per iteration")
    output.add_argument("-o", "--output", metavar="FILE", help="write --format's output to FILE (csv: default standard output)")
    output.add_argument("--data-dir", metavar="DIR", help="also write gnuplot-ready columns, one file per benchmark and scaling plot, to DIR")
    history = parser.add_argument_group("history")
    history.add_argument("--history", action="store_true", help=f"report the per-commit history of --store (default: {DEFAULT_STORE}) instead of one run: series, segments, change points")
    html_arguments(history, html=False)
    selection_arguments(parser, title="history selection")


_HISTORY_ONLY = ("bench", "metric", "branch", "since", "repo_url")


def _datasets(args: argparse.Namespace, stderr: IO[str]) -> tuple[list, dict[str, str]]:
    from rigorbench import api

    note = note_printer(stderr)
    if args.store:
        return _from_store(args)
    if args.version_label or args.run:
        raise UsageError("--version and --run go with --store")
    if args.baseline or args.contender:
        if args.files or args.one_version:
            raise UsageError("give --baseline/--contender, or FILEs, not both")
        if not (args.baseline and args.contender):
            raise UsageError("--baseline and --contender go together")
        return [api.load_results(args.baseline, args.baseline_label, note), api.load_results(args.contender, args.contender_label, note)], {}
    if not args.files:
        raise UsageError("give result files or --store DB (see 'rigorbench report --help')")
    if args.one_version or len(args.files) == 1:
        return [api.load_results(args.files, args.label, note)], {}
    if len(args.files) != 2:
        raise UsageError(
            f"got {len(args.files)} files: give BASELINE CONTENDER, --baseline/--contender FILE..., "
            "or --one-version for the trials of one version"
        )
    return [api.load_results([args.files[0]], args.baseline_label, note), api.load_results([args.files[1]], args.contender_label, note)], {}


def _from_store(args: argparse.Namespace) -> tuple[list, dict[str, str]]:
    from rigorbench import api

    if args.files:
        raise UsageError("give result files or --store, not both")
    wanted = [args.version_label] if args.version_label else [*(args.baseline or []), *(args.contender or [])]
    if args.version_label and (args.baseline or args.contender):
        raise UsageError("give --version LABEL (one version) or --baseline/--contender LABEL, not both")
    if bool(args.baseline) != bool(args.contender) or len(args.baseline or []) > 1 or len(args.contender or []) > 1:
        raise UsageError("with --store, give one label each: --baseline LABEL --contender LABEL")
    return api.load_run(args.store, wanted, args.run)


def lint_results(paths: list[str] | None) -> Mapping[str, object]:
    from rigorbench import api

    return {path: api.lint([Path(path)]) for path in paths or ()}   # Path: findings name "src/X.java", not "./src/X.java"


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench import api

    if args.format == "html" and not (args.html or args.output or args.data_dir):
        raise UsageError("say where to write: --html FILE, --format csv, or --data-dir DIR")
    if args.html and args.output and args.format == "html":
        raise UsageError("--html FILE and --output FILE name the same HTML file; give one")
    if args.history:
        return _history(args, stderr)
    given = [f"--{name.replace('_', '-')}" for name in _HISTORY_ONLY if getattr(args, name) is not None]
    if given:
        raise UsageError(f"{', '.join(given)} go{'es' if len(given) == 1 else ''} with --history")
    datasets, facts = _datasets(args, stderr)
    lint = lint_results(args.lint)
    page = api.report_page(datasets, settings_from(args), lint=lint, run=facts, progress=progress_printer(stderr, "report", "analysing"),
                           jobs=args.jobs)
    if not page.cases:
        raise UserError("no benchmark case with measurements " + ("on both sides" if len(datasets) == 2 else "found"))
    html_path = args.html or (args.output if args.format == "html" else None)
    if html_path:
        stderr.write(f"report: {api.write_html(page, html_path, progress_printer(stderr, 'report', 'drawing'))}\n")
    if args.format == "csv":
        write_output(api.render_series_csv(page), args.output, stdout)
    if args.data_dir:
        written = api.write_data_dir(page, args.data_dir)
        stderr.write(f"report: {len(written)} files in {args.data_dir}\n")
    return 0


def _history(args: argparse.Namespace, stderr: IO[str]) -> int:
    from rigorbench import api
    from rigorbench.cli.history_commands import write_history_html

    others = [name for name, given in (("FILE", args.files), ("--baseline/--contender", args.baseline or args.contender),
                                       ("--run", args.run), ("--version", args.version_label), ("--lint", args.lint),
                                       ("--format csv", args.format != "html"), ("--data-dir", args.data_dir)) if given]
    if others:
        raise UsageError(f"--history reports a store's history: {', '.join(others)} do{'es' if len(others) == 1 else ''} not go with it")
    selection = api.Selection(args.bench, tuple(args.metric) if args.metric else None, args.branch, args.since)
    view = api.history_view(args.store or DEFAULT_STORE, selection)
    write_history_html(view, args.html or args.output, args.repo_url, stderr)
    return 0
