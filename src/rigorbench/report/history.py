"""Renderers of ``rigorbench history changes``: a text table, markdown and JSON.

JSON (issue 17): ``{"series": [{"benchmark", "params", "metric", "unit", "branch", "machine",
"higher_is_better", "direction_from", "points", "changes": [{"index", "commit", "previous_commit", "time", "before": {"mean",
"ci_low", "ci_high", "points"}, "after": {...}, "change_pct", "p_value", "direction"}]}]}``
after the common head, with the detector's settings; ``direction_from`` says how a series'
direction was decided: ``metric`` (a stored metric's own), or for a CSV column ``option``,
``name`` or ``assumed`` (lower is better; the text output says so too). ``history list`` and ``show`` are in
:mod:`rigorbench.report.history_points`.
"""

from __future__ import annotations

import json

from rigorbench.analysis.history import HistoryChanges, SeriesChanges
from rigorbench.formats.history_csv import DIRECTION_ASSUMED, DIRECTION_FROM_NAME, DIRECTION_GIVEN
from rigorbench.report.documents import document_head, json_number
from rigorbench.report.table import Table, escape_markdown, layout_markdown, layout_text
from rigorbench.stats.changepoints import ChangePoint, Level
from rigorbench.terminal import printable_lines

HEADERS = ["benchmark", "metric", "change", "commits", "before [95% CI]", "after [95% CI]", "p", "verdict"]


def format_value(x: float | None) -> str:
    """A value as every history output writes it: thousands grouped (61,000, not 6.1e+04),
    four significant digits below; ``-`` for none."""
    if x is None:
        return "-"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def format_level(level: Level) -> str:
    return f"{format_value(level.mean)} [{format_value(level.low)}, {format_value(level.high)}]"


def settings_line(result: HistoryChanges) -> str:
    sources = ", ".join(result.sources)
    points = sum(len(s.series.values) for s in result.series)
    return (f"history changes: {sources}: {len(result.series)} series, {points} points "
            f"(E-divisive means, p <= {result.max_p:g}, segments of {result.min_size}+ points, window {result.window})")


def benchmark_name(series) -> str:
    """``name`` or ``name{k=v,...}`` of a series."""
    if not series.params:
        return series.benchmark
    return series.benchmark + "{" + ",".join(f"{k}={v}" for k, v in series.params) + "}"


def _where(series) -> str:
    """The branch and machine kind of a stored series, when it has them."""
    parts = [f"branch {series.branch}" if series.branch else "", series.machine]
    return "; ".join(p for p in parts if p)


def _headers(result: HistoryChanges) -> list[str]:
    return HEADERS + (["branch; machine"] if any(_where(s.series) for s in result.series) else [])


def _rows(result: HistoryChanges) -> list[list[str]]:
    rows = []
    extra = len(_headers(result)) > len(HEADERS)
    for s in _regressions_first(result):
        for c in s.changes:
            previous = s.series.commits[c.index - 1]
            rows.append([benchmark_name(s.series), s.series.metric, f"{c.change_pct:+.1f}%",
                         f"{previous}..{s.series.commits[c.index]}", format_level(c.before), format_level(c.after),
                         f"{c.p_value:.2g}", s.direction(c)] + ([_where(s.series)] if extra else []))
    return rows


def _regressions_first(result: HistoryChanges) -> list[SeriesChanges]:
    """Series whose newest change is a regression first, then the other series with changes."""
    changed = [s for s in result.series if s.changes]
    return sorted(changed, key=lambda s: not s.newest_is_regression)


def _summary(result: HistoryChanges) -> str:
    changed = sum(bool(s.changes) for s in result.series)
    regressed = sum(s.newest_is_regression for s in result.series)
    return (f"{sum(len(s.changes) for s in result.series)} change points in {changed} of {len(result.series)} series; "
            f"the newest change is a regression in {regressed}")


_DECIDED_BY = {DIRECTION_GIVEN: "as given", DIRECTION_FROM_NAME: "from the column names",
               DIRECTION_ASSUMED: "assumed: the names do not say; set it with --higher-is-better or --lower-is-better"}


def direction_lines(series) -> list[str]:
    """How a CSV history's columns were read, one line per way it was decided ("better higher:
    encode_ops_s; lower: parse_ns (from the column names)"); none for stored series, whose
    metrics know their direction."""
    lines = []
    for decided, why in _DECIDED_BY.items():
        chosen = [s for s in series if s.direction_from == decided]
        if not chosen:
            continue
        ways = [f"{way}: {', '.join(dict.fromkeys(s.metric for s in chosen if s.higher_is_better == up))}"
                for way, up in (("higher", True), ("lower", False)) if any(s.higher_is_better == up for s in chosen)]
        lines.append(f"better {'; '.join(ways)} ({why})")
    return lines


def render_text(result: HistoryChanges) -> str:
    rows, headers = _rows(result), _headers(result)
    table = layout_text(Table.of(headers, rows)) + [""] if rows else []
    directions = direction_lines([s.series for s in result.series])
    return printable_lines([settings_line(result), "", *table, _summary(result), *directions])


def render_markdown(result: HistoryChanges) -> str:
    out = [f"### {escape_markdown(settings_line(result))}", ""]
    rows, headers = _rows(result), _headers(result)
    if rows:
        out += layout_markdown(Table.of(headers, rows)) + [""]
    tail = [escape_markdown(_summary(result))]
    directions = direction_lines([s.series for s in result.series])
    if directions:
        tail += ["", "  \n".join(escape_markdown(line) for line in directions)]
    return "\n".join(out + tail) + "\n"


def _level_object(level: Level) -> dict:
    return {"mean": json_number(level.mean), "ci_low": json_number(level.low), "ci_high": json_number(level.high),
            "points": level.points}


def _change_object(s: SeriesChanges, c: ChangePoint) -> dict:
    return {
        "index": c.index,
        "commit": s.series.commits[c.index],
        "previous_commit": s.series.commits[c.index - 1],
        "time": s.series.times[c.index],
        "before": _level_object(c.before),
        "after": _level_object(c.after),
        "change_pct": json_number(c.change_pct),
        "p_value": json_number(c.p_value),
        "direction": s.direction(c),
    }


def render_json(result: HistoryChanges) -> str:
    document = {
        **document_head("history changes"),
        "sources": list(result.sources),
        "method": "e-divisive means",
        "max_p": result.max_p,
        "min_segment": result.min_size,
        "window": result.window,
        "series": [
            {"benchmark": s.series.benchmark, "params": dict(s.series.params), "metric": s.series.metric,
             "unit": s.series.unit, "branch": s.series.branch, "machine": s.series.machine,
             "higher_is_better": s.series.higher_is_better, "direction_from": s.series.direction_from or "metric",
             "points": len(s.series.values),
             "changes": [_change_object(s, c) for c in s.changes]}
            for s in result.series
        ],
    }
    return json.dumps(document, indent=2) + "\n"


def render_history(result: HistoryChanges, format: str = "text") -> str:
    """The change points of ``history changes`` as text, markdown or a JSON document."""
    return {"text": render_text, "markdown": render_markdown, "json": render_json}[format](result)
