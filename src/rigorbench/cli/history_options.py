"""The options the history commands share with ``rigorbench report --history``: which
series (``--bench``, ``--metric``, ``--branch``, ``--since``) and the HTML page's ``--html``
and ``--repo-url``. Light on imports: ``report --help`` loads no statistics."""

from __future__ import annotations

import argparse
import re
from datetime import datetime, timezone


def regex(text: str) -> re.Pattern:
    try:
        return re.compile(text)
    except re.error as error:
        raise argparse.ArgumentTypeError(f"not a regular expression: {text!r} ({error})") from None


def since(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 date or time: {text!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def selection_arguments(parser: argparse.ArgumentParser, *, csv: bool = False, title: str = "selection") -> None:
    select = parser.add_argument_group(title)
    bench = "only metric columns matching REGEX (with --csv); " if csv else ""
    select.add_argument("--bench", type=regex, metavar="REGEX", help=f"{bench}only benchmarks whose name (with its params) matches REGEX")
    column = "; with --csv, a metric column (default: every column of numbers besides time, commit and branch)" if csv else ""
    select.add_argument("--metric", action="append", metavar="NAME", help=f"a metric name (repeatable), or all; default: the primary metrics{column}")
    select.add_argument("--branch", metavar="NAME", help="only points of branch NAME")
    select.add_argument("--since", type=since, metavar="TIME", help="only points at or after TIME (ISO 8601)")


def html_arguments(group, *, html: bool = True) -> None:
    """``--html FILE`` (unless the command has its own) and ``--repo-url URL``, in ``group``."""
    if html:
        group.add_argument("--html", metavar="FILE", help="also write the series as a self-contained HTML page to FILE: each series over its commits with CI bars, segments and change points, regressions first")
    group.add_argument("--repo-url", metavar="URL", help="the repository's web address: commits become links URL/commit/SHA (default: from the https or ssh GitHub/GitLab remote of the recorded project; only http(s) addresses are linked)")
