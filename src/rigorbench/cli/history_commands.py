"""What each ``rigorbench history`` subcommand does (its options are in cli/history.py)."""

from __future__ import annotations

import argparse
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from rigorbench.analysis import history_points as hp
from rigorbench.analysis.history import Selection, detect_changes, stored_series
from rigorbench.cli.common import write_output
from rigorbench.cli.parser import UsageError
from rigorbench.errors import UserError
from rigorbench.report.history_points import HistoryView, render_list, render_show
from rigorbench.store import DEFAULT_STORE, ResultStore
from rigorbench.store.location import masked


def resolve_origin(commit: str, *, time: str | None, branch: str, repo: str | None, dirty: bool | None = None,
                   machine: str | None = None, stderr: IO[str] | None = None) -> hp.PointOrigin:
    """Where points go: ``commit`` looked up in git (its full id and time) where it can be.

    With ``repo``, the commit must be one of that repository's. Without, the current
    directory's repository is tried; a name it does not know is refused unless ``time``
    is given (then it is taken as named). Outside git the name is taken as it is, at
    ``time`` or now.
    """
    from rigorbench.experiment.versions import commit_facts, git_repository

    hp.check_commit(commit)
    moment = hp.parse_time(time) if time else None
    repository = git_repository(Path(repo or "."))
    if repo and repository is None:
        raise UserError(f"--repo {repo}: not in a git repository")
    if repository is not None:
        try:
            facts = commit_facts(repository, commit)
        except UserError:
            if repo or moment is None:
                raise UserError(f"--commit {commit}: not a commit of the git repository {repository} "
                                "(give --time T to store it under this name anyway)") from None
        else:
            commit, moment = facts.commit, moment or hp.parse_time(facts.time, "the commit time")
    if moment is None:
        moment = datetime.now(timezone.utc).isoformat(timespec="seconds")
        if stderr is not None:
            stderr.write(f"rigorbench: note: {commit} is not looked up in git here; its points are at {moment} (now)\n")
    return hp.PointOrigin(commit, moment, branch, dirty, machine)


def add(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    store_path = args.store or DEFAULT_STORE
    if args.run is not None:
        if args.files:
            raise UsageError("history add: give result files or --run, not both")
        return _add_run(args, store_path, stdout, stderr)
    if args.label is not None:
        raise UsageError("history add: --label goes with --run")
    if not args.files:
        raise UsageError("history add: give result files, or --run RUN_ID (see 'rigorbench history add --help')")
    if not args.commit:
        raise UsageError("history add: --commit is required with result files")
    from rigorbench.formats import read_result_file
    from rigorbench.analysis.dataset import dataset_from_files

    origin = resolve_origin(args.commit, time=args.time, branch=args.branch, repo=args.repo, machine=args.machine,
                            stderr=stderr)
    files = [read_result_file(path) for path in args.files]
    data = dataset_from_files(files, origin.commit)
    points = hp.points_of(data, origin, ", ".join(args.files))
    with ResultStore.open(store_path) as store:
        store.add_points(points, dry_run=True)   # refused before anything is stored
        run_id = hp.store_files_as_run(store, files, data, origin)
        store.add_points(hp.with_run(points, run_id, data.label))
    return _added(points, origin, f"run {run_id}", store_path, stdout)


def _add_run(args: argparse.Namespace, store_path: str, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench.analysis.dataset import dataset_from_store

    with ResultStore.open(store_path, create=False) as store:
        info = store.run(args.run)
        labels = [v.label for v in info.versions]
        label = args.label or (labels[0] if len(labels) == 1 else None)
        if label not in labels:
            which = f"no version {args.label!r}" if args.label else f"{len(labels)} versions"
            raise UserError(f"run {args.run} in {masked(store_path)} has {which}; name one with --label: {', '.join(labels)}")
        version = info.versions[labels.index(label)]
        commit = args.commit or version.commit
        if not commit:
            raise UserError(f"run {args.run}: version {label!r} has no git commit; give --commit")
        origin = resolve_origin(commit, time=args.time, branch=args.branch, repo=args.repo,
                                dirty=version.dirty if not args.commit else None, machine=args.machine, stderr=stderr)
        points = hp.points_of(dataset_from_store(store, args.run, label), origin, f"run {args.run} ({label})",
                              run_id=args.run, label=label)
        store.add_points(points)
    return _added(points, origin, f"run {args.run} ({label})", store_path, stdout)


def _added(points, origin: hp.PointOrigin, source: str, store_path: str, stdout: IO[str]) -> int:
    from rigorbench.terminal import printable

    series = len({(p.case, p.metric) for p in points})
    where = f" of branch {origin.branch}" if origin.branch else ""
    stdout.write(printable(f"history: {_count(len(points), 'point')} ({_count(series, 'series')}) at {origin.commit}{where}, "
                           f"{origin.time}, on {points[0].machine}, from {source}, in {masked(store_path)}") + "\n")
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 or noun.endswith("s") else f"{n} {noun}s"


def import_csv(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench.formats.history_csv import read_history_csv
    from rigorbench.terminal import printable

    store_path = args.store or DEFAULT_STORE
    series = read_history_csv(
        args.csv, time_column=args.time_column, commit_column=args.commit_column, metrics=args.metric,
        higher_is_better=args.higher_is_better, branch=args.branch, since=args.since,
    )
    points = hp.points_of_csv(series, args.csv, args.ci_confidence, args.machine)
    if not points:
        raise UserError(f"{args.csv}: no metric column with numbers")
    with ResultStore.open(store_path) as store:
        store.add_points(points)
    stdout.write(printable(f"history: imported {len(points)} points ({len(series)} series) from {args.csv} "
                           f"into {masked(store_path)}") + "\n")
    return 0


def _selection(args: argparse.Namespace) -> Selection:
    return Selection(args.bench, tuple(args.metric) if args.metric else None, args.branch, args.since)


def history_view(store_path: str, selection: Selection) -> HistoryView:
    with ResultStore.read(store_path) as store:
        points = store.history_points()
    return HistoryView(masked(store_path), selection, tuple(stored_series(points, selection)), len(points))


def listing(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    view = history_view(args.store or DEFAULT_STORE, _selection(args))
    write_output(render_list(view, args.format), args.output, stdout)
    return 0


def show(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    view = history_view(args.store or DEFAULT_STORE, _selection(args))
    write_output(render_show(view, args.format), args.output, stdout)
    if args.html:
        write_history_html(view, args.html, args.repo_url, stderr)
    return 0


def write_history_html(view: HistoryView, path: str, repo_url: str | None, stderr: IO[str]) -> None:
    """The selected series as an HTML page at ``path``; commits link to ``repo_url`` or to
    the web page of the recorded project's GitHub or GitLab remote."""
    from rigorbench.analysis.history_report import history_page, remote_web_url, web_url
    from rigorbench.files import write_text
    from rigorbench.report.history_html import render_history_html
    from rigorbench.terminal import printable

    if repo_url is not None and web_url(repo_url) is None:
        stderr.write(printable(f"rigorbench: note: --repo-url {repo_url[:80]}: not an http(s) address; commits are not links") + "\n")
    elif repo_url is None:
        repo_url = remote_web_url(_recorded_remote(view))
    page = history_page(view.store, view.selection, list(view.series), view.total, repo_url)
    write_text(path, render_history_html(page))
    stderr.write(printable(f"history: {len(page.series)} series in {path}") + "\n")


def _recorded_remote(view: HistoryView) -> str | None:
    """The git remote of the project the newest recorded run of the shown points measured."""
    from rigorbench.experiment.versions import remote_url

    run_ids = sorted({p.run_id for s in view.series for p in s.points if p.run_id is not None}, reverse=True)
    if not run_ids:
        return None
    with ResultStore.read(view.store) as store:
        for run_id in run_ids:
            project = Path(store.run(run_id).project)
            if project.is_dir():
                return remote_url(project)
    return None


def changes(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench.formats.history_csv import read_history_csv
    from rigorbench.report.history import render_history

    if args.window < 2 * args.min_segment:
        raise UsageError(f"history changes: --window {args.window} must hold two segments of --min-segment {args.min_segment}")
    if args.csv and args.store:
        raise UsageError("history changes: give --csv FILE or --store DB, not both")
    if args.csv:
        series = read_history_csv(
            args.csv, time_column=args.time_column, commit_column=args.commit_column, metrics=args.metric,
            bench=args.bench, higher_is_better=args.higher_is_better, branch=args.branch, since=args.since,
        )
        if not series:
            raise UserError(f"{args.csv}: no metric column with numbers{' matches --bench' if args.bench else ''}")
        sources = (args.csv,)
    else:
        if args.higher_is_better is not None:
            raise UsageError("history changes: --higher-is-better goes with --csv (stored metrics know their direction)")
        view = history_view(args.store or DEFAULT_STORE, _selection(args))
        series, sources = [s.as_history() for s in view.series], (view.store,)
    result = detect_changes(series, sources, max_p=args.max_p, min_size=args.min_segment, window=args.window,
                            ci_confidence=args.ci_confidence)
    write_output(render_history(result, args.format), args.output, stdout)
    return 1 if result.fails(args.fail_on) else 0
