"""Untrusted text on a terminal or in a CI log: control characters shown, never obeyed.

Benchmark names, parameters, file names and file content can hold ESC, CR or LF; printed
raw they recolour a terminal, rewrite a line, or forge a second ``rigorbench: error:`` line
or a table row in a CI log. Every line rigorbench prints for people passes such text
through :func:`printable` (JSON output is escaped by the JSON encoder instead).
"""

from __future__ import annotations

import os
import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str, limit: int | None = None) -> str:
    """``text`` with control characters escaped (``\\n``, ``\\x1b``), cut to ``limit``
    characters (with ``...``) when one is given."""
    text = _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(text))
    return text if limit is None or len(text) <= limit else text[:limit] + "..."


def printable_lines(lines) -> str:
    """Lines of a text output joined, each with :func:`printable` applied, ending in a newline."""
    return "\n".join(printable(line) for line in lines) + "\n"


# Text is laid out within this many columns where no terminal says otherwise (a pipe, a
# file, a CI log), and prose wraps here on a wider one (longer lines are harder to read).
DEFAULT_WIDTH = 100
_NARROWEST = 40


def text_width(stream) -> int:
    """The columns text for ``stream`` is laid out in: ``COLUMNS`` when set (the shell's
    convention, as :func:`shutil.get_terminal_size`), else the terminal's width when
    ``stream`` is one, else :data:`DEFAULT_WIDTH`; never under 40."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0 and getattr(stream, "isatty", lambda: False)():
        try:
            columns = os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            columns = 0
    return max(_NARROWEST, columns) if columns > 0 else DEFAULT_WIDTH


# A short parenthesised group ("(-i, -r)", "(4 forks, 2 trials)") is not broken across lines.
_GROUP = re.compile(r"\([^()\s][^()]{0,22}\)")
_KEEP = "\x00"   # a space not to break at: printable() leaves no control character to mistake it for


def wrapped(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    """``text`` escaped (:func:`printable`) in lines of at most ``width`` columns, broken
    between words, never inside a short parenthesised group; ``first`` and ``rest`` indent the
    first and the following lines."""
    import textwrap

    kept = _GROUP.sub(lambda m: m.group().replace(" ", _KEEP), printable(text))
    lines = textwrap.wrap(kept, width, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                          break_on_hyphens=False)
    return [line.replace(_KEEP, " ") for line in lines] or [first.rstrip()]
