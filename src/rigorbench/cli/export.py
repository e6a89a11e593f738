"""``rigorbench export``: a stored run as files other tools read (pa CSV, JMH JSON)."""

from __future__ import annotations

import argparse
from typing import IO

from rigorbench.api import DEFAULT_STORE
from rigorbench.cli.parser import positive_int

DESCRIPTION = """\
Write a stored run as files other tools read: Laaber's pa CSV (one file per version, the
format of github.com/chrstphlbr/pa) or JMH JSON (one file per version and trial, readable by
JMH visualizers and by 'rigorbench compare'). Only measurement iterations are exported.
"""
EPILOG = """\
examples:
  rigorbench export --store .rigorbench/results.db --format pa-csv --output-dir export/
  rigorbench export --store .rigorbench/results.db --run 3 --format jmh-json --output-dir export/
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", default=DEFAULT_STORE, metavar="DB", help=f"results store: a SQLite file or a postgresql:// URL (default: {DEFAULT_STORE})")
    parser.add_argument("--run", type=positive_int, metavar="RUN_ID", help="the run to export (default: the newest)")
    parser.add_argument("--format", choices=("pa-csv", "jmh-json"), required=True, help="file format")
    parser.add_argument("--output-dir", required=True, metavar="DIR", help="directory to write the files to (created if needed)")


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench import api

    for path in api.export_run(args.store, args.format, args.output_dir, args.run):
        stdout.write(f"{path}\n")
    return 0
