"""Renderers of ``rigorbench power --contender``: which design reaches the target (issue 33).

Text and markdown: a row per benchmark and design (trials measured, the change callable now,
the trials for the target), then the recommendation. JSON: ``designs`` (design, run,
``trial_seconds``, ``suite_trials``, ``suite_seconds``), ``benchmarks`` (``benchmark``,
``params``, ``metric``, and per design ``trials``, ``detects_pct``, ``trials_for_target``),
``recommended`` and ``target_pct``.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from rigorbench.analysis.designs import DUET, MAX_TRIALS, DesignAdvice, DesignFigure
from rigorbench.report.compare import row_label, short_names
from rigorbench.report.documents import document_head, json_number
from rigorbench.report.table import RIGHT, Column, Group, Row, Table, escape_markdown, layout_markdown, layout_text
from rigorbench.terminal import DEFAULT_WIDTH, printable_lines, wrapped
from rigorbench.units import format_duration

COLUMNS = [Column("benchmark"), Column("design"), Column("trials", RIGHT), Column("detects now", RIGHT),
           Column("trials for target", RIGHT)]


def _pct(fraction: float | None) -> str:
    if fraction is None:
        return "n/a"
    return f"{fraction * 100:.0f}%" if fraction >= 0.1 else f"{fraction * 100:.1f}%"


def _needed(f: DesignFigure) -> str:
    return f"> {MAX_TRIALS}" if f.needed is None else str(f.needed)


def headline(advice: DesignAdvice) -> str:
    s = advice.settings
    return (f"designs for {advice.contender} against {advice.baseline}: the trials each needs to call a "
            f"{_pct(advice.target)} change in 95% of experiments ({s.confidence * 100:g}% CI {s.interval_label}, "
            f"threshold {s.threshold * 100:g}%), projected from the run's own trials")


def _table(advice: DesignAdvice) -> Table:
    names = short_names([b.comparison.case.name for b in advice.benchmarks])
    group = Group()
    for b in advice.benchmarks:
        label = f"{row_label(b.comparison, names)} [{b.comparison.metric.name}]"
        for i, f in enumerate(b.figures):
            group.rows.append(Row([label if i == 0 else "", f.design, str(f.trials), _pct(f.detects), _needed(f)]))
    return Table(COLUMNS, [group])


def advice_lines(advice: DesignAdvice) -> list[str]:
    """The suite per design and the recommendation."""
    lines = []
    for d in advice.designs:
        trials, seconds = advice.suite_trials(d.design), advice.suite_seconds(d.design)
        if trials is None:
            lines.append(f"{d.design}: some benchmark needs more than {MAX_TRIALS} trials (or has no interval)")
            continue
        cost = "" if seconds is None else (f", about {format_duration(seconds)} at {format_duration(d.trial_seconds)} "
                                           f"per trial (run {d.run_id})")
        lines.append(f"{d.design}: {trials} trials for every benchmark{cost}")
    if not any(d.design == DUET for d in advice.designs):
        lines.append(f"duet: not measured (no duet run of {advice.baseline} and {advice.contender} in this store); "
                     "'rigorbench ab ... --design duet' measures it")
    best = advice.recommended
    lines.append(f"recommended: {best}" if best else
                 f"no design reaches {_pct(advice.target)} for every benchmark within {MAX_TRIALS} trials on this machine")
    lines.append("the projection assumes every trial varies as this run's did (the same machine and load)")
    return lines


def render_text(advice: DesignAdvice, width: int = DEFAULT_WIDTH) -> str:
    wrap = min(width, DEFAULT_WIDTH)
    lines = [*wrapped(headline(advice), wrap, "", "    "), "", *layout_text(_table(advice), width=width), ""]
    return printable_lines(lines + [line for text in advice_lines(advice) for line in wrapped(text, wrap, "", "    ")])


def render_markdown(advice: DesignAdvice, width: int = DEFAULT_WIDTH) -> str:
    out = [f"### {escape_markdown(headline(advice))}", "", *layout_markdown(_table(advice)), ""]
    return "\n".join(out + [f"{escape_markdown(line)}  " for line in advice_lines(advice)]) + "\n"


def render_json(advice: DesignAdvice, width: int = DEFAULT_WIDTH) -> str:
    document = {
        **document_head("power-designs", advice.settings),
        "baseline": advice.baseline, "contender": advice.contender, "target_pct": advice.target * 100,
        "designs": [{"design": d.design, "run": d.run_id, "trial_seconds": json_number(d.trial_seconds),
                     "suite_trials": advice.suite_trials(d.design),
                     "suite_seconds": json_number(advice.suite_seconds(d.design))} for d in advice.designs],
        "benchmarks": [{
            "benchmark": b.comparison.case.name, "params": b.comparison.case.params_dict,
            "metric": b.comparison.metric.name,
            "designs": {f.design: {"trials": f.trials, "detects_pct": json_number(None if f.detects is None else f.detects * 100),
                                   "trials_for_target": f.needed} for f in b.figures},
        } for b in advice.benchmarks],
        "recommended": advice.recommended,
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


DESIGN_RENDERERS: dict[str, Callable[..., str]] = {"text": render_text, "markdown": render_markdown, "json": render_json}
