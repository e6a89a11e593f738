"""``rigorbench export``: a stored run as files other tools read (pa CSV, JMH JSON)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import IO

import numpy as np

from rigorbench.cli.parser import positive_int
from rigorbench.files import safe_name, write_files
from rigorbench.model import Series
from rigorbench.store import DEFAULT_STORE

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


def _file_name(*parts: object) -> str:
    return "-".join(safe_name(p) for p in parts)


def _by_trial(series: list[Series]) -> dict[int, list[Series]]:
    trials: dict[int, list[Series]] = {}
    for s in series:
        for trial in np.unique(s.samples.trial).tolist():
            part = s.samples.select(s.samples.trial == trial)
            trials.setdefault(int(trial), []).append(Series(s.case, s.metric, part, s.version))
    return trials


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench.api import stored_run
    from rigorbench.formats.writers import write_jmh_json, write_pa_csv
    from rigorbench.store import ResultStore

    out_dir = Path(args.output_dir)
    with ResultStore.read(args.store) as store:
        info = stored_run(store, (), args.run)
        files: dict[Path, str] = {}
        for version in info.versions:
            series = store.load_series(info.run_id, version.label)
            if args.format == "pa-csv":
                rows = [(version.commit or version.label, "instance-1", s) for s in series if s.metric.primary]
                files[out_dir / f"{_file_name('run', info.run_id, version.label)}.csv"] = write_pa_csv(rows, project=info.project)
            else:
                for trial, part in sorted(_by_trial(series).items()):
                    name = _file_name("run", info.run_id, version.label, f"trial{trial + 1}")
                    files[out_dir / f"{name}.json"] = write_jmh_json(part)
    write_files(out_dir, files)
    for path in files:
        stdout.write(f"{path}\n")
    return 0
