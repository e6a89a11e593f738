"""The CLI reference (docs/cli.md), generated from the parser so it is never written twice.

Regenerate with ``python -m rigorbench.cli.reference > docs/cli.md``; a test checks the
file is current.
"""

from __future__ import annotations

import io
import os

from rigorbench.cli import COMMANDS, build_parser


def _help(argv: list[str]) -> str:
    # A fixed width so the file does not depend on the terminal it was generated in.
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        out = io.StringIO()
        parser = build_parser(out)
        target = parser
        for name in argv:  # the command, then its subcommand (history changes) if any
            target = _subcommands(target)[name]
        target.print_help(out)
        return out.getvalue()
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def _subcommands(parser) -> dict:
    """The parsers of ``parser``'s subcommands by name (none for a command without them)."""
    if parser._subparsers is None:
        return {}
    return next(a for a in parser._subparsers._group_actions if hasattr(a, "choices") and isinstance(a.choices, dict)).choices


def render_reference() -> str:
    parts = ["# rigorbench command-line reference", "",
             "Generated from the argument parser by `python -m rigorbench.cli.reference`; do not edit.", "",
             "```text", _help([]).rstrip(), "```", ""]
    for name in COMMANDS:
        parts += [f"## rigorbench {name}", "", "```text", _help([name]).rstrip(), "```", ""]
        for sub in _subcommands(_subcommands(build_parser(io.StringIO()))[name]):
            parts += [f"### rigorbench {name} {sub}", "", "```text", _help([name, sub]).rstrip(), "```", ""]
    return "\n".join(parts)


if __name__ == "__main__":
    print(render_reference(), end="")
