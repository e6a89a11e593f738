"""``rigorbench list``: the benchmarks (and @Param values) that versions of a project have."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import IO

from rigorbench.cli.common import add_build_arguments, build_spec_from
from rigorbench.experiment.options import DEFAULT_SETTINGS, DEFAULT_TRIALS, parse_params, settings_with
from rigorbench.experiment.plan import VersionSpec
from rigorbench.store import DEFAULT_STORE
from rigorbench.store.location import work_dir


DESCRIPTION = """\
Build each version of a JMH project (as 'rigorbench ab' would, with the same build options
and the same build cache) and list its benchmarks with their @Param values. With several
versions it shows which benchmarks only some versions have: 'ab' and 'run' report those
and do not run them. The last lines estimate how long 'ab' would take with its default
settings for what --bench and --param select.
"""

EPILOG = """\
examples:
  rigorbench list examples/jmh-demo/v1
  rigorbench list . --version HEAD~5 --version HEAD --bench 'Queue.*'
  rigorbench list jctools-benchmarks --module jctools-benchmarks
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="the benchmark project (a Maven or Gradle project, the repository root or any module)")
    parser.add_argument("--version", action="append", metavar="REV|DIR", help="a version to list: a directory (inside PATH first) or a git revision (repeatable; default: PATH as it is)")
    parser.add_argument("--bench", action="append", metavar="REGEX", help="only benchmarks matching REGEX (repeatable)")
    parser.add_argument("--param", action="append", metavar="NAME=V1,V2", help="a @Param override, counted in the estimate (repeatable)")
    parser.add_argument("--store", metavar="DB", help=f"the results store whose build cache to use (default: PATH/{DEFAULT_STORE})")
    add_build_arguments(parser, listing=False)


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench.experiment.progress import make_reporter
    from rigorbench.experiment.prepare import BUILDS_DIR, list_experiment
    from rigorbench.report.list import render_selection

    build = build_spec_from(args)
    sources = args.version or ["."]
    versions = tuple(VersionSpec(source if source != "." else "working tree", source, build) for source in sources)
    settings = settings_with(
        DEFAULT_SETTINGS, include=tuple(args.bench) if args.bench else None,
        params=parse_params(args.param) if args.param else None,
    )
    store_dir = work_dir(args.store) if args.store else Path(args.path) / Path(DEFAULT_STORE).parent
    reporter = make_reporter(stderr)
    cache = None if args.no_build_cache else store_dir / BUILDS_DIR
    selection = list_experiment(args.path, "jmh", versions, settings, reporter, cache)
    reporter.close()
    stdout.write(render_selection(selection, settings, DEFAULT_TRIALS))
    return 0
