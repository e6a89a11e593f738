"""One table model, separate from its layout (STYLE.md rule 11, as benchstat's ``benchtab``
and ``texttab``): every command that prints a table builds a :class:`Table` of string cells
and lays it out with :func:`layout_text` or :func:`layout_markdown`.

Cells are untrusted (benchmark names and parameters, version labels, commit subjects, file
content): both layouts escape every cell first (control characters shown, never obeyed, by
:func:`rigorbench.terminal.printable`; markdown's own characters too) and measure the widths
of the escaped text, so a name holding ESC or TAB keeps its columns aligned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Collection, Sequence

from rigorbench.terminal import printable

LEFT, RIGHT = "left", "right"

# ANSI SGR colours of a row's tone on a terminal: regressions red, improvements green,
# undecided yellow, unchanged dim. Markdown has no colours: it puts the first two in bold.
_COLOURS = {"worse": "\x1b[1;31m", "better": "\x1b[1;32m", "undecided": "\x1b[33m", "quiet": "\x1b[2m"}
_STRONG = ("worse", "better")
_RESET = "\x1b[0m"


@dataclass(frozen=True)
class Column:
    header: str
    align: str = LEFT  # LEFT | RIGHT


@dataclass(frozen=True)
class Row:
    cells: Sequence[str]
    tone: str | None = None   # "worse" | "better" | "undecided" | "quiet": how the last cell stands out
    mark: str = ""            # a footnote mark after the last cell (explained in a note below the table)


@dataclass
class Group:
    """Rows under one title (a metric); the groups of a table share its columns' widths. The
    text layout writes ``title`` in place of the first header, markdown as a heading above the
    group's own header row; ``summary`` closes the group (a geometric mean), italic in markdown."""

    rows: list[Row] = field(default_factory=list)
    title: str | None = None
    summary: Sequence[str] | None = None


@dataclass
class Table:
    columns: Sequence[Column]
    groups: list[Group]

    @classmethod
    def of(cls, headers: Sequence[str], rows: Sequence[Sequence[str]], right: Collection[str] = ()) -> "Table":
        """One group of plain rows under ``headers``, left-aligned but those in ``right``."""
        return cls([Column(h, RIGHT if h in right else LEFT) for h in headers], [Group([Row(r) for r in rows])])


@dataclass(frozen=True)
class TableOptions:
    """How the text and markdown tables are laid out (``--wide``, ``--only-changed``)."""

    wide: bool = False            # every column, names in full
    only_changed: bool = False    # rows of slower and faster benchmarks only
    width: int | None = 100       # the text width the table is kept within, unless wide (None: any)
    color: bool = False           # ANSI colours in the text layout (a terminal that wants them)


def coloured(text: str, tone: str) -> str:
    """``text`` in the ANSI colour of ``tone`` (see :class:`Row`)."""
    return f"{_COLOURS[tone]}{text}{_RESET}"


def _cells(row: Row) -> list[str]:
    return [printable(cell) for cell in row.cells[:-1]] + [printable(row.cells[-1]) + row.mark]


def layout_text(table: Table, color: bool = False, header: bool = True, width: int | None = None) -> list[str]:
    """The lines of ``table`` in columns two spaces apart, a blank line between groups;
    ``color`` adds the rows' tones in ANSI colours, ``header`` False leaves the headers out.

    When the first column (the names) would take a line past ``width``, each name too long for
    what the other columns leave gets a line of its own, whole, with the row's other cells on
    the next line: a name is never cut (cut in the middle, two names can read alike; hyperfine
    gives each benchmark its own line for the same reason)."""
    headers = [printable(c.header) for c in table.columns]
    blocks = []
    for group in table.groups:
        title = headers[0] if group.title is None else printable(group.title)
        block = [([title, *headers[1:]], None)] if header else []
        block += [(_cells(row), row.tone) for row in group.rows]
        blocks.append(block + ([([printable(cell) for cell in group.summary], None)] if group.summary else []))
    widths = [max((len(cells[i]) for block in blocks for cells, _ in block), default=0) for i in range(len(headers))]
    stacked = width is not None and sum(widths) + 2 * (len(widths) - 1) > width
    if stacked:   # what the other columns leave the names (at least an indent)
        widths[0] = max(2, width - sum(widths[1:]) - 2 * (len(widths) - 1))

    def line(cells: list[str], tone: str | None) -> str:
        padded = [cell.ljust(width) if column.align == LEFT else cell.rjust(width)
                  for cell, width, column in zip(cells, widths, table.columns)]
        if color and tone is not None:
            padded[-1] = coloured(padded[-1].rstrip(), tone)
        return "  ".join(padded).rstrip()

    def lines_of(cells: list[str], tone: str | None) -> list[str]:
        if not stacked or len(cells[0]) <= widths[0]:
            return [line(cells, tone)]
        return [cells[0], line(["", *cells[1:]], tone)]

    out: list[str] = []
    for block in blocks:
        out += [""] if out else []
        for cells, tone in block:
            out += lines_of(cells, tone)
    return out


def escape_markdown(text: str) -> str:
    """Untrusted text kept from breaking a markdown table (and its control characters from
    reaching a terminal)."""
    text = printable(text)
    for char in "\\|`*_<>[]":
        text = text.replace(char, "\\" + char)
    return text.replace("\n", " ")


def layout_markdown(table: Table) -> list[str]:
    """The lines of ``table`` as GitHub markdown, a blank line between groups; a titled group
    has a ``###`` heading above it."""
    header = "| " + " | ".join(escape_markdown(c.header) for c in table.columns) + " |"
    rule = "| " + " | ".join("---" if c.align == LEFT else "---:" for c in table.columns) + " |"
    out: list[str] = []
    for group in table.groups:
        out += [""] if out else []
        out += [f"### {escape_markdown(group.title)}", ""] if group.title is not None else []
        out += [header, rule] + ["| " + " | ".join(_markdown_cells(row)) + " |" for row in group.rows]
        if group.summary:
            out.append("| " + " | ".join(f"*{escape_markdown(cell)}*" if cell else "" for cell in group.summary) + " |")
    return out


def _markdown_cells(row: Row) -> list[str]:
    cells = [escape_markdown(cell) for cell in row.cells]
    if row.tone in _STRONG:
        cells[-1] = f"**{cells[-1]}**"
    return cells[:-1] + [cells[-1] + row.mark]
