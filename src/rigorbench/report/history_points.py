"""Renderers of ``rigorbench history list`` and ``history show``: text, markdown and JSON.

``list``: one row per series (benchmark with params, metric, unit, branch, machine kind,
points, first and last commit). ``show``: the points of each series (commit, time, n, mean
and its CI). Both say when one benchmark's series are on several kinds of machine: they
are separate series, never mixed. JSON: ``{"store", "selection", "series": [{"benchmark",
"params", "metric", "unit", "higher_is_better", "branch", "machine", "points", "first",
"last"}], "mixed_machines"}`` after the common head; ``show`` adds ``"history"`` to each
series, one object per point ``{"commit", "time", "dirty", "n", "mean", "ci_low",
"ci_high", "confidence", "source", "run_id", "label"}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from rigorbench.analysis.history import Selection, StoredSeries, machine_kinds
from rigorbench.report.documents import document_head, json_number
from rigorbench.report.history import format_value
from rigorbench.report.table import Table, escape_markdown, layout_markdown, layout_text
from rigorbench.store.api import HistoryPoint
from rigorbench.terminal import printable_lines

LIST_HEADERS = ["benchmark", "metric", "branch", "machine", "points", "first commit", "last commit"]
SHOW_HEADERS = ["commit", "time", "n", "mean", "95% CI", "source"]


@dataclass(frozen=True)
class HistoryView:
    """What ``list`` and ``show`` render: the selected series of a store."""

    store: str
    selection: Selection
    series: tuple[StoredSeries, ...]
    total: int                      # points in the store, before the selection


def _metric(s: StoredSeries) -> str:
    return f"{s.metric.name} ({s.metric.unit})" if s.metric.unit else s.metric.name


def _commit(point: HistoryPoint) -> str:
    short = point.commit[:12] if len(point.commit) == 40 else point.commit
    return short + ("+dirty" if point.dirty else "")


def _ci(point: HistoryPoint) -> str:
    if point.ci_low is None:
        return "-"
    level = "" if point.confidence in (None, 0.95) else f" ({point.confidence:.0%})"
    return f"[{format_value(point.ci_low)}, {format_value(point.ci_high)}]{level}"


def _list_rows(view: HistoryView) -> list[list[str]]:
    return [[s.case.display_name, _metric(s), s.branch or "-", s.machine, str(len(s.points)),
             _commit(s.points[0]), _commit(s.points[-1])] for s in view.series]


def _show_rows(s: StoredSeries) -> list[list[str]]:
    return [[_commit(p), p.time, str(p.n), format_value(p.mean), _ci(p), p.source] for p in s.points]


def _head(view: HistoryView, command: str) -> str:
    shown = sum(len(s.points) for s in view.series)
    return f"history {command}: {view.store}: {len(view.series)} series, {shown} of {view.total} points"


def _notes(view: HistoryView) -> list[str]:
    notes = [f"note: {case.display_name} {metric}{f' on branch {branch}' if branch else ''} was measured on "
             f"{len(kinds)} kinds of machine; each is its own series: {'; '.join(kinds)}"
             for (case, metric, branch), kinds in machine_kinds(list(view.series)).items()]
    if not view.series:
        notes.append("no series" + (" matches the selection" if view.total else "; add points with rigorbench "
                                    "record, history add or history import"))
    return notes


def render_list(view: HistoryView, format: str = "text") -> str:
    """One line per series of ``view`` (``history list``) as text, markdown or JSON."""
    if format == "json":
        return _json(view, "list", detail=False)
    rows = _list_rows(view)
    if format == "markdown":
        out = [f"### {escape_markdown(_head(view, 'list'))}", ""] + (layout_markdown(Table.of(LIST_HEADERS, rows)) + [""] if rows else [])
        return "\n".join(out + [escape_markdown(n) for n in _notes(view)]) + "\n"
    lines = [_head(view, "list"), ""] + (layout_text(Table.of(LIST_HEADERS, rows)) if rows else [])
    return printable_lines(lines + _notes(view))


def _title(s: StoredSeries) -> str:
    where = "; ".join(p for p in (f"branch {s.branch}" if s.branch else "", f"machine {s.machine}") if p)
    return f"{s.case.display_name} {_metric(s)} ({where})"


def render_show(view: HistoryView, format: str = "text") -> str:
    """The points of each series of ``view`` (``history show``) as text, markdown or JSON."""
    if format == "json":
        return _json(view, "show", detail=True)
    if format == "markdown":
        out = [f"### {escape_markdown(_head(view, 'show'))}", ""]
        for s in view.series:
            out += [f"#### {escape_markdown(_title(s))}", ""] + layout_markdown(Table.of(SHOW_HEADERS, _show_rows(s))) + [""]
        return "\n".join(out + [escape_markdown(n) for n in _notes(view)]) + "\n"
    lines = [_head(view, "show")]
    for s in view.series:
        lines += ["", _title(s)] + ["  " + line for line in layout_text(Table.of(SHOW_HEADERS, _show_rows(s)))]
    notes = _notes(view)
    return printable_lines(lines + ([""] + notes if notes else []))


def _point_object(p: HistoryPoint) -> dict:
    return {"commit": p.commit, "time": p.time, "dirty": p.dirty, "n": p.n, "mean": json_number(p.mean),
            "ci_low": json_number(p.ci_low), "ci_high": json_number(p.ci_high), "confidence": p.confidence,
            "source": p.source, "run_id": p.run_id, "label": p.label}


def _series_object(s: StoredSeries, detail: bool) -> dict:
    first, last = s.points[0], s.points[-1]
    out = {"benchmark": s.case.name, "params": s.case.params_dict, "metric": s.metric.name, "unit": s.metric.unit,
           "higher_is_better": s.metric.higher_is_better, "branch": s.branch, "machine": s.machine,
           "points": len(s.points), "first": {"commit": first.commit, "time": first.time},
           "last": {"commit": last.commit, "time": last.time}}
    if detail:
        out["history"] = [_point_object(p) for p in s.points]
    return out


def selection_object(selection: Selection) -> dict:
    return {"bench": selection.bench.pattern if selection.bench else None,
            "metric": list(selection.metrics) if selection.metrics else "primary",
            "branch": selection.branch,
            "since": selection.since.isoformat() if isinstance(selection.since, datetime) else None}


def _json(view: HistoryView, command: str, detail: bool) -> str:
    document = {
        **document_head(f"history {command}"),
        "store": view.store,
        "selection": selection_object(view.selection),
        "series": [_series_object(s, detail) for s in view.series],
        "mixed_machines": [{"benchmark": case.name, "params": case.params_dict, "metric": metric, "branch": branch,
                            "machines": kinds} for (case, metric, branch), kinds in machine_kinds(list(view.series)).items()],
    }
    return json.dumps(document, indent=2) + "\n"
