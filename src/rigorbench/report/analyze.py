"""Renderers of ``rigorbench analyze``: text, markdown and JSON (ARCHITECTURE.md fields).

Text: per benchmark its figures (wrapped at the terminal's width), then the diagnostics most
severe first, each with its hint. JSON has ``benchmarks`` with ``benchmark``, ``params``, ``metric``, ``n``, ``mean``,
``ci_low``, ``ci_high``, ``cv`` (per level), ``steady_state`` and ``diagnostics``.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from rigorbench.analysis.analyze import AnalysisResult, BenchmarkAnalysis
from rigorbench.model import SEVERITIES
from rigorbench.report.documents import document_head, json_number
from rigorbench.report.compare import format_number, short_names
from rigorbench.report.table import Table, escape_markdown, layout_markdown
from rigorbench.terminal import DEFAULT_WIDTH, printable, printable_lines, wrapped

_LEVELS = ("iteration", "fork", "trial", "instance")
MARKDOWN_HEADERS = ["benchmark", "metric", "mean", "CI", "RCIW", "CV", "n", "steady state", "diagnostics"]


def _cv_text(b: BenchmarkAnalysis) -> str:
    v = b.variability
    if v is None:
        return "CV n/a"
    parts = [f"{level} {getattr(v, level):.1%}" for level in _LEVELS if getattr(v, level, None) is not None]
    return f"CV {v.total:.1%}" + (f" ({', '.join(parts)})" if parts else "")


def _steady_text(b: BenchmarkAnalysis) -> str:
    return f"steady state: {b.steady.verdict}" if b.steady.assessed else "steady state: not checked"


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary_text(b: BenchmarkAnalysis) -> str:
    return "  ".join(summary_parts(b))


def summary_parts(b: BenchmarkAnalysis) -> list[str]:
    unit = b.metric.unit
    parts = [
        f"mean {format_number(b.mean.estimate)} {unit} [{format_number(b.mean.low)}, {format_number(b.mean.high)}]",
        f"median {format_number(b.median.estimate)}",
        f"RCIW {b.rciw:.1%}",
        _cv_text(b),
        f"n={b.n} ({_count(b.forks, 'fork')}, {_count(b.trials, 'trial')}"
        + (f", {b.instances} instances)" if b.instances > 1 else ")"),
    ]
    if b.alloc is not None:
        parts.append(f"alloc {format_number(b.alloc.value)} {b.alloc.unit}")
    parts.append(_steady_text(b))
    return parts


def counts_line(report: AnalysisResult) -> str:
    diagnostics = [d for b in report.benchmarks for d in b.diagnostics]
    counts = [f"{sum(d.severity == s for d in diagnostics)} {s}" for s in reversed(SEVERITIES)]
    clean = sum(not any(d.severity != "info" for d in b.diagnostics) for b in report.benchmarks)
    return f"{len(report.benchmarks)} benchmarks, {clean} without warnings; diagnostics: {', '.join(counts)}"


def analysis_settings_line(report: AnalysisResult) -> str:
    s = report.settings
    count = len(report.sources)
    files = f" ({report.sources[0]})" if count == 1 else (f" ({count} files)" if count else "")
    steady = ", steady-state iterations only" if s.steady_only else ""
    return f"analyze {report.label}{files}: {s.confidence:.0%} CIs ({s.interval_label}), {s.resamples} resamples, seed {s.seed}{steady}"


def render_text(report: AnalysisResult, width: int = DEFAULT_WIDTH) -> str:
    """Each benchmark's name, its figures and its diagnostics, wrapped at ``width`` (at most
    100 columns for prose): figures break between figures, messages between words."""
    wrap = min(width, DEFAULT_WIDTH)
    names = short_names([b.case.display_name for b in report.benchmarks])
    lines = [*wrapped(analysis_settings_line(report), wrap, "", "    "), ""]
    for b in report.benchmarks:
        lines.append(f"{names[b.case.display_name]}  [{b.metric.name}]")
        lines += _fill(summary_parts(b), "  ", width)
        for d in b.diagnostics:
            lines += wrapped(f"{d.severity:<7}  {d.code}: {d.message}", wrap, "  ", " " * 11)
            if d.hint:
                lines += wrapped(f"hint: {d.hint}", wrap, " " * 11, " " * 17)
        lines.append("")
    lines += [line for w in report.input_warnings for line in wrapped(f"warning: {w}", wrap, "", "    ")]
    lines += wrapped(counts_line(report), wrap, "", "    ")
    return printable_lines(lines)


def _fill(parts: list[str], indent: str, width: int) -> list[str]:
    """``parts`` two spaces apart in lines of at most ``width`` columns, broken between parts."""
    lines = [indent]
    for part in map(printable, parts):
        if lines[-1] != indent and len(lines[-1]) + 2 + len(part) > width:
            lines.append(indent)
        lines[-1] += ("" if lines[-1] == indent else "  ") + part
    return lines


def render_markdown(report: AnalysisResult) -> str:
    names = short_names([b.case.display_name for b in report.benchmarks])
    rows = [[names[b.case.display_name], b.metric.name, f"{format_number(b.mean.estimate)} {b.metric.unit}",
             f"[{format_number(b.mean.low)}, {format_number(b.mean.high)}]", f"{b.rciw:.1%}",
             "n/a" if b.cv is None else f"{b.cv:.1%}", str(b.n), b.steady.verdict or "not checked",
             ", ".join(d.code for d in b.diagnostics if d.severity != "info") or "none"] for b in report.benchmarks]
    table = Table.of(MARKDOWN_HEADERS, rows, right=("mean", "RCIW", "CV", "n"))
    out = [f"### {escape_markdown(analysis_settings_line(report))}", "", *layout_markdown(table), ""]
    for b in report.benchmarks:
        if not b.diagnostics:
            continue
        out.append(f"**{escape_markdown(names[b.case.display_name])}** ({escape_markdown(b.metric.name)})")
        out.append("")
        for d in b.diagnostics:
            hint = f" — {escape_markdown(d.hint)}" if d.hint else ""
            out.append(f"- {d.severity} `{d.code}`: {escape_markdown(d.message)}{hint}")
        out.append("")
    out.append(escape_markdown(counts_line(report)))
    return "\n".join(out) + "\n"


def _cv_object(b: BenchmarkAnalysis) -> dict:
    v = b.variability
    if v is None:
        return {}
    found = {"total": json_number(v.total)}
    found.update({level: json_number(getattr(v, level)) for level in _LEVELS if getattr(v, level, None) is not None})
    return found


def _steady_object(b: BenchmarkAnalysis) -> dict:
    forks = []
    for fork, state in zip(b.steady.forks, b.steady.states):
        forks.append({
            "instance": fork.instance, "trial": fork.trial, "fork": fork.fork, "warmup_iterations": fork.warmup,
            "steady_start": state.start if state.reached else None,
        })
    return {"verdict": b.steady.verdict, "forks": forks}


def benchmark_object(b: BenchmarkAnalysis) -> dict:
    v = b.variability
    return {
        "benchmark": b.case.name,
        "harness": b.case.harness,
        "params": b.case.params_dict,
        "metric": b.metric.name,
        "unit": b.metric.unit,
        "higher_is_better": b.metric.higher_is_better,
        "n": b.n, "forks": b.forks, "trials": b.trials, "instances": b.instances,
        "mean": json_number(b.mean.estimate), "ci_low": json_number(b.mean.low), "ci_high": json_number(b.mean.high),
        "median": json_number(b.median.estimate), "median_ci_low": json_number(b.median.low), "median_ci_high": json_number(b.median.high),
        "rciw": json_number(b.rciw), "min": json_number(b.minimum), "max": json_number(b.maximum),
        "percentiles": {f"p{p}": json_number(value) for p, value in b.percentiles.items()},
        "cv": _cv_object(b),
        "variance_components": {k: json_number(x) for k, x in v.components.items()} if v is not None else {},
        "alloc": None if b.alloc is None else {"mean": json_number(b.alloc.value), "unit": b.alloc.unit},
        "steady_state": _steady_object(b),
        "steady_only": b.steady_only,
        "removed_outliers": b.removed_outliers,
        "diagnostics": [{"code": d.code, "severity": d.severity, "message": d.message, "hint": d.hint} for d in b.diagnostics],
    }


def render_json(report: AnalysisResult) -> str:
    document = {
        **document_head("analyze", report.settings),
        "label": report.label,
        "files": list(report.sources),
        "benchmarks": [benchmark_object(b) for b in report.benchmarks],
        "input_warnings": list(report.input_warnings),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


ANALYSIS_RENDERERS: dict[str, Callable[[AnalysisResult, int], str]] = {
    "text": render_text,
    "markdown": lambda report, width: render_markdown(report),
    "json": lambda report, width: render_json(report),
}
