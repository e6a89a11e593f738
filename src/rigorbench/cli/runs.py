"""``rigorbench runs``: the runs in a results store, newest first."""

from __future__ import annotations

import argparse
import json
from typing import IO

from rigorbench.store import DEFAULT_STORE, ResultStore

DESCRIPTION = ("List the runs in a results store, newest first: versions, status, trials done of planned, failures. "
               "With --run, one run in detail: its versions, harness settings, and what an adaptive run chose.")
EPILOG = ("examples:\n  rigorbench runs --store examples/jmh-demo/.rigorbench/results.db\n"
          "  rigorbench runs --store examples/jmh-demo/.rigorbench/results.db --run 3\n")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", default=DEFAULT_STORE, metavar="DB", help=f"results store: a SQLite file or a postgresql:// URL (default: {DEFAULT_STORE})")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--run", type=int, metavar="RUN_ID",
                        help="show this run in detail: versions, trials, harness settings, and what an adaptive run chose "
                             "(each benchmark's warmup under --warmup auto, when each benchmark of --until-decided was "
                             "decided); JSON adds the run's stored settings")


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    with ResultStore.read(args.store) as store:
        runs = store.list_runs()
    if args.run is not None:
        return _one_run(args, runs, stdout)
    if args.format == "json":
        document = {"tool": "rigorbench", "format_version": 1, "runs": [_run_object(info, counts) for info, counts in runs]}
        stdout.write(json.dumps(document, indent=2) + "\n")
        return 0
    if not runs:
        stdout.write("no runs\n")
        return 0
    from rigorbench.report.runs import render_runs

    stdout.write(render_runs(runs))
    return 0


def _run_object(info, counts) -> dict:
    return {
        "run_id": info.run_id, "created": info.created, "status": info.status, "harness": info.harness,
        "project": info.project, "order": info.order, "seed": info.seed,
        "versions": [{"label": v.label, "source": v.source, "commit": v.commit, "dirty": v.dirty} for v in info.versions],
        "wall_seconds": info.wall_seconds, "harness_seconds": info.harness_seconds, **counts,
    }


def _one_run(args: argparse.Namespace, runs, stdout: IO[str]) -> int:
    from rigorbench.errors import UserError
    from rigorbench.report.runs import render_run

    found = [(info, counts) for info, counts in runs if info.run_id == args.run]
    if not found:
        known = ", ".join(str(info.run_id) for info, _ in reversed(runs)) or "none"
        raise UserError(f"{args.store}: no run {args.run} (runs: {known})")
    info, counts = found[0]
    if args.format == "json":
        document = {"tool": "rigorbench", "format_version": 1, "run": {**_run_object(info, counts), "settings": info.settings}}
        stdout.write(json.dumps(document, indent=2) + "\n")
    else:
        stdout.write(render_run(info, counts))
    return 0
