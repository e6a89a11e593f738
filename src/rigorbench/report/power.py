"""Renderers of ``rigorbench power``: a text table, markdown and JSON.

JSON has a list ``benchmarks``, one object per benchmark case, metric and strategy, with
``benchmark``, ``params``, ``metric``, ``strategy``, ``group_size``, ``simulations``,
``false_positive_rate``, ``detection_rate`` (slowdown in percent -> rate), ``mds_pct`` and
``recommended_trials`` (issue #6).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from rigorbench.analysis.power import BenchmarkPower, PowerResult
from rigorbench.report.documents import document_head, json_number
from rigorbench.report.compare import short_names
from rigorbench.report.table import Table, escape_markdown, layout_markdown, layout_text
from rigorbench.stats.power import MAX_FALSE_POSITIVES
from rigorbench.terminal import printable_lines
from rigorbench.units import format_duration


def _pct(fraction: float | None) -> str:
    return "none" if fraction is None else f"{fraction * 100:g}%"


def power_settings_line(report: PowerResult) -> str:
    s, o = report.settings, report.options
    rule = f"bootstrap rule ({s.confidence:.0%} CI {s.interval_label}, threshold {s.threshold:.0%})" if s.test == "bootstrap" else \
        f"wilcoxon rule (alpha {s.alpha:g}, |delta| >= {s.min_delta:g})"
    return (f"power {report.label}: {rule}, {o.simulations} simulations per slowdown, "
            f"{s.resamples} resamples, seed {s.seed}")


def summary_sentence(report: PowerResult) -> str:
    """'with this setup, 14 of 20 benchmarks can detect a 5% slowdown; 3 cannot detect even 50%'."""
    summary = report.summary
    if not summary.judged:
        return "no benchmark has enough trials to simulate (at least 4 are needed)"
    text = f"with this setup, {summary.able} of {summary.judged} benchmarks can detect a {_pct(summary.target)} slowdown"
    if summary.unable:
        text += f"; {summary.unable} cannot detect even {_pct(summary.largest)} (too noisy: see 'rigorbench analyze')"
    if summary.false_alarms:
        text += f"; {summary.false_alarms} report identical code as changed in more than {_pct(MAX_FALSE_POSITIVES)} of A/A tests (add trials)"
    return text + (f"; {summary.skipped} have too few trials to tell" if summary.skipped else "")


def _row(b: BenchmarkPower, name: str) -> list[str]:
    if b.result is None:
        return [name, b.strategy, f"{b.units}", "-", "-", "-", "-", b.note]
    r = b.result
    low, high = r.false_positive_interval
    rec = "-" if b.recommended is None else f"{b.recommended}{' (extrapolated)' if b.extrapolated else ''}"
    return [name, b.strategy, f"{b.units}", f"{r.group_size}", f"{r.false_positive_rate:.0%} [{low:.0%}, {high:.0%}]",
            _pct(r.mds), rec, b.note]


HEADERS = ["benchmark", "strategy", "units", "group", "A/A false positives [95% CI]", "MDS", "trials for target", "note"]


def render_text(report: PowerResult) -> str:
    names = short_names([b.case.display_name for b in report.benchmarks])
    rows = [_row(b, names[b.case.display_name]) for b in report.benchmarks]
    lines = [power_settings_line(report), "", *layout_text(Table.of(HEADERS, rows))]
    detected = []
    for b in report.benchmarks:
        if b.result is not None:
            rates = ", ".join(f"{_pct(s)}: {rate:.0%}" for s, rate in zip(b.result.slowdowns, b.result.detection_rate))
            detected.append(f"{names[b.case.display_name]}: detected {rates}")
    lines += ([""] + detected if detected else []) + ["", summary_sentence(report)]
    if report.options.target is not None:
        lines.append(f"trials for target: units per version to detect a {_pct(report.options.target)} slowdown in 95% of experiments")
        lines.append(cost_sentence(report))
    return printable_lines(lines)


def cost_sentence(report: PowerResult) -> str:
    trials = report.suite_trials
    if trials is None:
        return "no benchmark's data tells how many trials the target needs"
    if report.suite_seconds is None:
        return (f"the suite needs {trials} trials per version for every benchmark that can reach the target; "
                "its time per trial is known only for stored runs (--store)")
    return (f"the suite needs {trials} trials per version; at {format_duration(report.trial_seconds)} per trial "
            f"and version, an A/B run takes about {format_duration(report.suite_seconds)}")


def render_markdown(report: PowerResult) -> str:
    names = short_names([b.case.display_name for b in report.benchmarks])
    table = Table.of(HEADERS, [_row(b, names[b.case.display_name]) for b in report.benchmarks])
    out = [f"### {escape_markdown(power_settings_line(report))}", "", *layout_markdown(table)]
    return "\n".join(out + ["", escape_markdown(summary_sentence(report))]) + "\n"


def benchmark_object(b: BenchmarkPower) -> dict:
    r = b.result
    return {
        "benchmark": b.case.name,
        "params": b.case.params_dict,
        "metric": b.metric.name,
        "strategy": b.strategy,
        "units": b.units,
        "group_size": None if r is None else r.group_size,
        "simulations": None if r is None else r.simulations,
        "false_positive_rate": None if r is None else json_number(r.false_positive_rate),
        "false_positive_interval": None if r is None else [json_number(x) for x in r.false_positive_interval],
        "detection_rate": {} if r is None else {f"{s * 100:g}": json_number(x) for s, x in zip(r.slowdowns, r.detection_rate)},
        "mds_pct": None if r is None or r.mds is None else json_number(r.mds * 100),
        "recommended_trials": b.recommended,
        "recommendation_extrapolated": b.extrapolated,
        "note": b.note,
    }


def _summary_object(report: PowerResult) -> dict:
    """The summary as numbers (the sentence is for people; JSON readers count)."""
    summary = report.summary
    return {
        "target_pct": json_number(summary.target * 100), "benchmarks_judged": summary.judged,
        "able_to_detect_target": summary.able, "unable_to_detect_largest": summary.unable,
        "too_many_false_positives": summary.false_alarms, "too_few_trials": summary.skipped,
        "max_false_positive_rate": MAX_FALSE_POSITIVES,
    }


def render_json(report: PowerResult) -> str:
    o = report.options
    document = {
        **document_head("power", report.settings),
        "simulations": o.simulations, "slowdowns_pct": [s * 100 for s in o.slowdowns],
        "target_pct": None if o.target is None else o.target * 100, "label": report.label,
        "files": list(report.sources),
        "benchmarks": [benchmark_object(b) for b in report.benchmarks],
        "summary": _summary_object(report),
        "trial_seconds": json_number(report.trial_seconds),
        "suite_trials": report.suite_trials,
        "suite_seconds": json_number(report.suite_seconds),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


POWER_RENDERERS: dict[str, Callable[[PowerResult], str]] = {"text": render_text, "markdown": render_markdown, "json": render_json}
