"""Plain-text layout of a table model: aligned columns, one block per metric."""

from __future__ import annotations

from rigorbench.report.table import Table
from rigorbench.terminal import printable


def layout_text(table: Table) -> str:
    headers = [c.header for c in table.columns]
    widths = [len(h) for h in headers]
    for section in table.sections:
        for row in section.rows:
            widths = [max(w, len(cell)) for w, cell in zip(widths, row)]

    def line(cells: list[str]) -> str:
        padded = [
            cell.ljust(width) if column.align == "left" else cell.rjust(width)
            for cell, width, column in zip(cells, widths, table.columns)
        ]
        return "  ".join(padded).rstrip()

    out: list[str] = [*table.alerts, ""] if table.alerts else []
    for section in table.sections:
        out.append(line([section.title, *headers[1:]]))
        out.extend(line(row) for row in section.rows)
        out.append("")
    out.extend(table.notes)
    if table.warnings:
        out.append("warnings:")
        out.extend(f"  {w}" for w in table.warnings)
    return "\n".join(printable(line) for line in out) + "\n"
