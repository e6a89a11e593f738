"""Renderers of ``compare``'s result: an explicit registry (STYLE.md rule 6)."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from rigorbench.analysis.compare import ComparisonResult
from rigorbench.errors import UserError
from rigorbench.report.documents import render_csv, render_json
from rigorbench.report.markdown import layout_markdown
from rigorbench.report.table import TableOptions, comparison_table
from rigorbench.report.text import layout_text

Renderer = Callable[..., str]

COMPARISON_RENDERERS: dict[str, Renderer] = {
    "text": lambda report, options: layout_text(comparison_table(report, options), color=options.color),
    "markdown": lambda report, options: layout_markdown(comparison_table(report, replace(options, width=None))),
    "json": lambda report, options: render_json(report),
    "csv": lambda report, options: render_csv(report),
}


def render_comparison(report: ComparisonResult, format: str, options: TableOptions = TableOptions()) -> str:
    """``report`` in ``format``; ``options`` lay out the text and markdown tables."""
    try:
        renderer = COMPARISON_RENDERERS[format]
    except KeyError:
        allowed = ", ".join(COMPARISON_RENDERERS)
        raise UserError(f"unknown format {format!r}; allowed values are {allowed}") from None
    return renderer(report, options)


__all__ = ["COMPARISON_RENDERERS", "render_comparison"]
