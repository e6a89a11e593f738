"""Renderers of ``compare``'s result: an explicit registry (STYLE.md rule 6)."""

from __future__ import annotations

from typing import Callable

from rigorbench.analysis.compare import ComparisonResult
from rigorbench.errors import UserError
from rigorbench.report.documents import render_csv, render_json
from rigorbench.report.markdown import layout_markdown
from rigorbench.report.table import comparison_table
from rigorbench.report.text import layout_text

Renderer = Callable[[ComparisonResult], str]

COMPARISON_RENDERERS: dict[str, Renderer] = {
    "text": lambda report: layout_text(comparison_table(report)),
    "markdown": lambda report: layout_markdown(comparison_table(report)),
    "json": render_json,
    "csv": render_csv,
}


def render_comparison(report: ComparisonResult, format: str) -> str:
    try:
        renderer = COMPARISON_RENDERERS[format]
    except KeyError:
        allowed = ", ".join(COMPARISON_RENDERERS)
        raise UserError(f"unknown format {format!r}; allowed values are {allowed}") from None
    return renderer(report)


__all__ = ["COMPARISON_RENDERERS", "render_comparison"]
