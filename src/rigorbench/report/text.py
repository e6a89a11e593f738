"""Plain-text layout of a table model: aligned columns, one block per metric."""

from __future__ import annotations

import textwrap

from rigorbench.report.table import Table
from rigorbench.stats import Verdict
from rigorbench.terminal import printable


WIDTH = 100  # notes and warnings wrap here; the table keeps within it (report/table.py)


# ANSI SGR colours for a terminal: regressions red, improvements green, undecided yellow,
# unchanged dim; what must be read first (alerts) bold red.
_COLOURS = {Verdict.SLOWER: "\x1b[1;31m", Verdict.FASTER: "\x1b[1;32m", Verdict.INCONCLUSIVE: "\x1b[33m", Verdict.UNCHANGED: "\x1b[2m"}
_ALERT, _RESET = "\x1b[1;31m", "\x1b[0m"


def layout_text(table: Table, color: bool = False) -> str:
    """The table in aligned columns. Untrusted text is escaped cell by cell (see
    rigorbench.terminal); ``color`` adds ANSI colours afterwards, to the verdicts and alerts."""
    headers = [c.header for c in table.columns]
    widths = [len(h) for h in headers]
    for section in table.sections:
        for row in section.rows + ([section.summary] if section.summary else []):
            widths = [max(w, len(cell)) for w, cell in zip(widths, row)]

    def line(cells: list[str], verdict: Verdict | None = None) -> str:
        padded = [
            printable(cell.ljust(width) if column.align == "left" else cell.rjust(width))
            for cell, width, column in zip(cells, widths, table.columns)
        ]
        if color and verdict is not None:
            padded[-1] = f"{_COLOURS[verdict]}{padded[-1].rstrip()}{_RESET}"
        return "  ".join(padded).rstrip()

    def alert(text: str) -> str:
        return f"{_ALERT}{text}{_RESET}" if color else text

    out = [alert(printable(line)) for text in table.alerts for line in _wrapped(text, "")] + ([""] if table.alerts else [])
    for section in table.sections:
        out.append(line([section.title, *headers[1:]]))
        out.extend(line(row, verdict) for row, verdict in zip(section.rows, section.verdicts))
        if section.summary:
            out.append(line(section.summary))
        out.append("")
    out.extend(printable(line) for note in table.notes for line in _wrapped(note, ""))
    if table.warnings:
        out.append("warnings:")
        out.extend(printable(line) for w in table.warnings for line in _wrapped(w, "  "))
    return "\n".join(out) + "\n"


def _wrapped(text: str, indent: str) -> list[str]:
    """A note or warning in lines of at most :data:`WIDTH` characters (continuations indented)."""
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "    ",
                         break_long_words=False, break_on_hyphens=False) or [""]
