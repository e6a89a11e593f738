"""What each ``rigorbench history`` subcommand does (its options are in cli/history.py)."""

from __future__ import annotations

import argparse
import re
from typing import IO

from rigorbench import api
from rigorbench.cli.common import note_printer, write_output
from rigorbench.cli.parser import UsageError


def resolve_origin(commit: str, *, time: str | None, branch: str, repo: str | None, dirty: bool | None = None,
                   machine: str | None = None, stderr: IO[str] | None = None):
    """:func:`rigorbench.api.history_origin`, its note on ``stderr`` (``record`` uses it)."""
    return api.history_origin(commit, time=time, branch=branch, repo=repo, dirty=dirty, machine=machine,
                              note=note_printer(stderr) if stderr is not None else None)


def add(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    store_path = args.store or api.DEFAULT_STORE
    if args.run is not None:
        if args.files:
            raise UsageError("history add: give result files or --run, not both")
        points, origin, label = api.add_history_run(
            store_path, args.run, args.label, commit=args.commit, note=note_printer(stderr), time=args.time,
            branch=args.branch, repo=args.repo, machine=args.machine)
        return _added(points, origin, f"run {args.run} ({label})", store_path, stdout)
    if args.label is not None:
        raise UsageError("history add: --label goes with --run")
    if not args.files:
        raise UsageError("history add: give result files, or --run RUN_ID (see 'rigorbench history add --help')")
    if not args.commit:
        raise UsageError("history add: --commit is required with result files")
    origin = resolve_origin(args.commit, time=args.time, branch=args.branch, repo=args.repo, machine=args.machine,
                            stderr=stderr)
    points, run_id = api.add_history_files(store_path, args.files, origin)
    return _added(points, origin, f"run {run_id}", store_path, stdout)


def _added(points, origin, source: str, store_path: str, stdout: IO[str]) -> int:
    series = len({(p.case, p.metric) for p in points})
    where = f" of branch {origin.branch}" if origin.branch else ""
    stdout.write(api.printable(f"history: {_count(len(points), 'point')} ({_count(series, 'series')}) at {origin.commit}{where}, "
                               f"{origin.time}, on {points[0].machine}, from {source}, in {api.masked(store_path)}") + "\n")
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 or noun.endswith("s") else f"{n} {noun}s"


def import_csv(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    store_path = args.store or api.DEFAULT_STORE
    points, series, skipped = api.import_history(
        store_path, args.csv, ci_confidence=args.ci_confidence, machine=args.machine, time_column=args.time_column,
        commit_column=args.commit_column, metrics=args.metric, higher_is_better=_any_of(args.higher_is_better),
        lower_is_better=_any_of(args.lower_is_better), branch=args.branch, since=args.since,
    )
    already = f"; {skipped} already in the history (same series, commit and time) skipped" if skipped else ""
    stdout.write(api.printable(f"history: imported {len(points) - skipped} points ({len(series)} series) from {args.csv} "
                               f"into {api.masked(store_path)}{already}") + "\n")
    stdout.flush()
    for line in api.direction_lines(series):
        note_printer(stderr)(line)
    return 0


def _any_of(patterns: list[re.Pattern] | None) -> re.Pattern | None:
    """One pattern of a repeated option's: a name matches when any of them does."""
    if not patterns:
        return None
    return patterns[0] if len(patterns) == 1 else re.compile("|".join(f"(?:{p.pattern})" for p in patterns))


def _selection(args: argparse.Namespace):
    return api.Selection(args.bench, tuple(args.metric) if args.metric else None, args.branch, args.since)


def listing(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    view = api.history_view(args.store or api.DEFAULT_STORE, _selection(args))
    write_output(api.render_list(view, args.format), args.output, stdout)
    return 0


def show(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    view = api.history_view(args.store or api.DEFAULT_STORE, _selection(args))
    write_output(api.render_show(view, args.format), args.output, stdout)
    if args.html:
        write_history_html(view, args.html, args.repo_url, stderr)
    return 0


def write_history_html(view, path: str, repo_url: str | None, stderr: IO[str]) -> None:
    """The selected series as an HTML page at ``path`` (see :func:`rigorbench.api.write_history_html`)."""
    _, series = api.write_history_html(view, path, repo_url, note=note_printer(stderr))
    stderr.write(api.printable(f"history: {series} series in {path}") + "\n")


def changes(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    if args.window < 2 * args.min_segment:
        raise UsageError(f"history changes: --window {args.window} must hold two segments of --min-segment {args.min_segment}")
    if args.csv and args.store:
        raise UsageError("history changes: give --csv FILE or --store DB, not both")
    for given, flag in ((args.higher_is_better, "--higher-is-better"), (args.lower_is_better, "--lower-is-better")):
        if not args.csv and given:
            raise UsageError(f"history changes: {flag} goes with --csv (stored metrics know their direction)")
    result = api.history_changes(
        args.store or api.DEFAULT_STORE, csv=args.csv, selection=_selection(args), time_column=args.time_column,
        commit_column=args.commit_column, higher_is_better=_any_of(args.higher_is_better),
        lower_is_better=_any_of(args.lower_is_better), max_p=args.max_p,
        min_size=args.min_segment, window=args.window, ci_confidence=args.ci_confidence,
    )
    write_output(api.render_history(result, args.format), args.output, stdout)
    return 1 if result.fails(args.fail_on) else 0
