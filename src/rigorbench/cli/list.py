"""``rigorbench list``: the benchmarks (and @Param values) that versions of a project have."""

from __future__ import annotations

import argparse
from typing import IO

from rigorbench.api import DEFAULT_STORE
from rigorbench.cli.common import add_build_arguments, build_spec_from


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
    from rigorbench import api

    build = build_spec_from(args)
    reporter = api.make_reporter(stderr)
    selection, settings = api.list_benchmarks(args.path, args.version or ["."], build, reporter, bench=args.bench or (),
                                              params=args.param or (), store=args.store, build_cache=not args.no_build_cache)
    reporter.close()
    stdout.write(api.render_selection(selection, settings, api.DEFAULT_TRIALS))
    return 0
