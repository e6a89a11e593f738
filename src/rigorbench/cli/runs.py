"""``rigorbench runs``: the runs in a results store, newest first."""

from __future__ import annotations

import argparse
from typing import IO

from rigorbench.api import DEFAULT_STORE

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
    from rigorbench import api

    runs = api.list_runs(args.store, args.run)
    if args.run is not None:
        stdout.write(api.render_run(*runs[0], args.format))
    else:
        stdout.write(api.render_runs(runs, args.format))
    return 0
