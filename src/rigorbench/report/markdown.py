"""Markdown layout of a table model, ready to paste into a pull request."""

from __future__ import annotations

from rigorbench.report.table import CAVEAT_MARK, Table
from rigorbench.stats import Verdict
from rigorbench.terminal import printable

_MARK = {Verdict.SLOWER: "**slower**", Verdict.FASTER: "**faster**"}


def escape_cell(text: str) -> str:
    """Benchmark names and parameters are untrusted: keep them from breaking the table (and
    their control characters from reaching a terminal)."""
    text = printable(text)
    for char in "\\|`*_<>[]":
        text = text.replace(char, "\\" + char)
    return text.replace("\n", " ")


def layout_markdown(table: Table) -> str:
    headers = [escape_cell(c.header) for c in table.columns]
    rule = ["---" if c.align == "left" else "---:" for c in table.columns]
    out: list[str] = [f"**{escape_cell(alert)}**  " for alert in table.alerts] + ([""] if table.alerts else [])
    for section in table.sections:
        out.append(f"### {escape_cell(section.title)}")
        out.append("")
        out.append("| " + " | ".join(headers) + " |")
        out.append("| " + " | ".join(rule) + " |")
        for row, verdict in zip(section.rows, section.verdicts):
            mark = CAVEAT_MARK if row[-1].endswith(CAVEAT_MARK) else ""
            cells = [escape_cell(cell) for cell in row[:-1]] + [_MARK.get(verdict, verdict.value) + mark]
            out.append("| " + " | ".join(cells) + " |")
        if section.summary:
            out.append("| " + " | ".join(f"*{escape_cell(cell)}*" if cell else "" for cell in section.summary) + " |")
        out.append("")
    out.extend(f"{escape_cell(note)}  " for note in table.notes)
    if table.warnings:
        out.append("")
        out.append("<details><summary>warnings</summary>")
        out.append("")
        out.extend(f"- {escape_cell(w)}" for w in table.warnings)
        out.append("")
        out.append("</details>")
    return "\n".join(out).rstrip() + "\n"
