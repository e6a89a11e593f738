"""Plain-text layout of a table model: aligned columns, one block per metric."""

from __future__ import annotations

import textwrap

from rigorbench.report.table import Table
from rigorbench.terminal import printable


WIDTH = 100  # notes and warnings wrap here; the table keeps within it (report/table.py)


def layout_text(table: Table) -> str:
    headers = [c.header for c in table.columns]
    widths = [len(h) for h in headers]
    for section in table.sections:
        for row in section.rows + ([section.summary] if section.summary else []):
            widths = [max(w, len(cell)) for w, cell in zip(widths, row)]

    def line(cells: list[str]) -> str:
        padded = [
            cell.ljust(width) if column.align == "left" else cell.rjust(width)
            for cell, width, column in zip(cells, widths, table.columns)
        ]
        return "  ".join(padded).rstrip()

    out: list[str] = [line for alert in table.alerts for line in _wrapped(alert, "")] + ([""] if table.alerts else [])
    for section in table.sections:
        out.append(line([section.title, *headers[1:]]))
        out.extend(line(row) for row in section.rows)
        if section.summary:
            out.append(line(section.summary))
        out.append("")
    out.extend(line for note in table.notes for line in _wrapped(note, ""))
    if table.warnings:
        out.append("warnings:")
        out.extend(line for w in table.warnings for line in _wrapped(w, "  "))
    return "\n".join(printable(line) for line in out) + "\n"


def _wrapped(text: str, indent: str) -> list[str]:
    """A note or warning in lines of at most :data:`WIDTH` characters (continuations indented)."""
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "    ",
                         break_long_words=False, break_on_hyphens=False) or [""]
