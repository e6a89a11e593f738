"""Renderers of ``compare``'s result: the comparison as a table (text, markdown), JSON and
CSV, behind an explicit registry (STYLE.md rule 6).

The comparison is turned into groups of string cells here, once (:func:`comparison_table`);
:mod:`rigorbench.report.table` lays the cells out. Nothing in this module computes a
statistic: it formats the numbers the analysis produced.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable, Mapping

from rigorbench.analysis.compare import Comparison, ComparisonResult, SideSummary, ordered
from rigorbench.model import short_name
from rigorbench.report.documents import render_csv, render_json
from rigorbench.report.table import (
    RIGHT, Column, Group, Row, Table, TableOptions, coloured, escape_markdown, layout_markdown, layout_text,
)
from rigorbench.stats import Verdict
from rigorbench.terminal import DEFAULT_WIDTH, wrapped
from rigorbench.units import dimension, readable_unit

VERDICT_ORDER = (Verdict.SLOWER, Verdict.FASTER, Verdict.UNCHANGED, Verdict.INCONCLUSIVE)
_TONES = {Verdict.SLOWER: "worse", Verdict.FASTER: "better", Verdict.INCONCLUSIVE: "undecided", Verdict.UNCHANGED: "quiet"}
CAVEAT_MARK = "*"   # after a verdict the design cannot carry as printed (see its warning)
WIDTH = DEFAULT_WIDTH   # notes and warnings wrap here or narrower (TableOptions.width)


def format_number(value: float) -> str:
    """Four significant digits, with k/M/G above 10 000 so wide scores stay readable."""
    if value is None or not math.isfinite(value):
        return "n/a"
    magnitude = abs(value)
    for limit, suffix in ((1e10, "G"), (1e7, "M"), (1e4, "k")):
        if magnitude >= limit:
            return f"{value / (limit / 10):.4g}{suffix}"
    return f"{value:.4g}"


def format_pct(value: float, signed: bool = True) -> str:
    if not math.isfinite(value):
        return "n/a"
    return f"{value:+.1f}%" if signed else f"{value:.1f}%"


def format_p(p: float) -> str:
    if not math.isfinite(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def side_cell(side: SideSummary, statistic: str, factor: float = 1.0) -> str:
    """``estimate ±h%`` where h is the CI's half width relative to the estimate (whole
    percent from 10% up: the digits beyond say nothing); ``factor`` converts the estimate
    to the unit its column shows."""
    estimate = side.mean if statistic == "mean" else side.median
    if estimate and math.isfinite(side.ci.low) and math.isfinite(side.ci.high):
        half = (side.ci.high - side.ci.low) / 2 / abs(estimate) * 100
        shown = format_number(estimate * factor)
        return f"{shown} ±{half:.0f}%" if half >= 10 else f"{shown} ±{half:.1f}%"
    return format_number(estimate * factor)


def change_cell(c: Comparison) -> str:
    """``+50.6% [+38.6, +64.3]``: the change and its CI, both in percent."""
    low, high = (c.ratio.low - 1) * 100, (c.ratio.high - 1) * 100
    bounds = f"[{format_pct(low)[:-1]}, {format_pct(high)[:-1]}]" if math.isfinite(low) and math.isfinite(high) else "[n/a]"
    return f"{format_pct(c.change_pct)} {bounds}"


def short_names(names: list[str]) -> dict[str, str]:
    """Drop the dotted package prefix all names share, keeping at least ``Class.method``."""
    parts = [n.split(".") for n in names]
    if not parts:
        return {}
    shared = 0
    while all(len(p) > shared + 2 for p in parts) and len({p[shared] for p in parts}) == 1:
        shared += 1
    return {n: ".".join(p[shared:]) for n, p in zip(names, parts)}


def row_label(c, names: Mapping[str, str]) -> str:
    """The shortened benchmark name of a comparison (or a report's case) with its
    parameters, as in ``name{k=v}``."""
    return names.get(c.case.name, c.case.name) + c.case.display_name[len(c.case.name):]


def _columns(report: ComparisonResult, options: TableOptions) -> list[Column]:
    """The bootstrap rule decides from the change's CI; the p-value and Cliff's d (the
    Wilcoxon rule's evidence) take the width of a terminal only when that rule decides,
    with --wide, or where width does not matter (markdown)."""
    columns = [Column("benchmark"), Column(report.baseline_label, RIGHT), Column(report.contender_label, RIGHT),
               Column("change [CI]", RIGHT)]
    wilcoxon = report.settings.test == "wilcoxon"
    if options.wide or wilcoxon:
        columns.append(Column("p", RIGHT))
    if options.wide or wilcoxon or options.width is None:
        columns.append(Column("Cliff's d"))
    if options.wide or options.width is None:   # in a terminal: a note for the inconclusive ones
        columns.append(Column(DETECTS, RIGHT))
    return columns + [Column("verdict")]


# The smallest change each comparison could have called (analysis/compare.detectable_change).
DETECTS = "detects"


def detects_cell(c: Comparison) -> str:
    """``≥4.2%``: the smallest change this comparison's interval could have called."""
    if c.mds_pct is None:
        return "n/a"
    return f"≥{c.mds_pct:.0f}%" if c.mds_pct >= 10 else f"≥{c.mds_pct:.1f}%"


def _row(c: Comparison, label: str, statistic: str, headers: list[str], factor: float) -> list[str]:
    row = [label, side_cell(c.baseline, statistic, factor), side_cell(c.contender, statistic, factor), change_cell(c)]
    if "p" in headers:
        row.append(format_p(c.p_value))
    if "Cliff's d" in headers:
        row.append(f"{c.cliffs_delta:+.2f} {c.effect_size}")
    if DETECTS in headers:
        row.append(detects_cell(c))
    return row + [c.verdict.value]


def comparison_table(report: ComparisonResult, options: TableOptions = TableOptions()) -> Table:
    """A group per metric, regressions first, a geometric-mean row per group; names cut to
    keep the table within ``options.width`` unless ``options.wide``."""
    columns = _columns(report, options)
    headers = [c.header for c in columns]
    names = short_names([c.case.name for c in report.comparisons])
    shown = [c for c in ordered(report.comparisons)
             if not options.only_changed or c.verdict in (Verdict.SLOWER, Verdict.FASTER)]
    statistic = report.settings.statistic
    sections: dict[tuple[str, str], list[Comparison]] = {}
    for c in shown:   # one section per metric: ns/op and us/op of one metric share it
        sections.setdefault((c.metric.name, dimension(c.metric.unit)), []).append(c)
    means = report.geometric_means()
    groups = []
    for key, section in sections.items():
        unit, factors = readable_unit(
            [c.metric.unit for c in section for _ in (0, 1)],
            [getattr(side, statistic) for c in section for side in (c.baseline, c.contender)])
        group = Group(title=f"{key[0]} [{unit}]")
        for c in section:
            row = _row(c, row_label(c, names), statistic, headers, factors[c.metric.unit])
            group.rows.append(Row(row, _TONES[c.verdict], "" if c.verdict_supported else CAVEAT_MARK))
        ratio, n = means.get(key, (float("nan"), 0))
        if n > 1:
            group.summary = [f"geometric mean of {n}", "", "", format_pct((ratio - 1) * 100)] + [""] * (len(columns) - 4)
        groups.append(group)
    return Table(columns, groups)


def verdict_counts(report: ComparisonResult) -> str:
    n = len(report.comparisons)
    parts = ", ".join(f"{report.count(v)} {v.value}" for v in VERDICT_ORDER)
    return f"{n} comparison{'s' if n != 1 else ''}: {parts}"


def comparison_settings_line(report: ComparisonResult) -> str:
    s = report.settings
    rule = (
        f"Mann-Whitney U p <= {s.alpha:g} and |Cliff's delta| >= {s.min_delta:g}"
        if s.test == "wilcoxon"
        else f"bootstrap CI vs threshold {s.threshold * 100:g}%"
    )
    correction = "" if s.correction == "none" else f", p adjusted by {s.correction}"
    paired = sum(c.paired for c in report.comparisons)
    pairing = ("" if not paired else ", paired by trial" if paired == len(report.comparisons)
               else f", paired by trial for {paired} of {len(report.comparisons)}")
    return (
        f"{s.statistic} ratio {report.contender_label}/{report.baseline_label}, "
        f"{round(s.confidence * 100, 2):g}% CI ({s.interval_label}) from {s.resamples} hierarchical bootstrap resamples"
        f"{pairing} (seed {s.seed}); verdict rule: {rule}{correction}"
    )


def sequential_note(design: Mapping) -> str:
    """When an adaptive run decided each benchmark, grouped by trials: "decided after 3
    trials: A faster, B slower; after 6: C unchanged; given up after 4 trials: E; undecided
    at the budget: D"."""
    retired = design.get("retired", {})
    by_trials: dict[int, list[str]] = {}
    given_up: dict[int, list[str]] = {}
    for name in design.get("benchmarks", {}):
        if name in retired and retired[name]["verdict"] == "inconclusive":
            given_up.setdefault(int(retired[name]["trials"]), []).append(short_name(name))
        elif name in retired:
            by_trials.setdefault(int(retired[name]["trials"]), []).append(f"{short_name(name)} {retired[name]['verdict']}")
    groups = [f"decided after {k} trials: {', '.join(v)}" for k, v in sorted(by_trials.items())]
    groups += [f"given up after {k} trials (a verdict by trial {design['max_trials']} unlikely): {', '.join(v)}"
               for k, v in sorted(given_up.items())]
    undecided = [short_name(name) for name in design.get("benchmarks", {}) if name not in retired]
    if undecided:
        groups.append(f"undecided at the budget: {', '.join(undecided)}")
    return (f"until decided ({design['min_trials']} to {design['max_trials']} trials; every look at "
            f"{design['confidence_per_look'] * 100:.2f}%, Pocock's boundary for "
            f"{design.get('analysis', {}).get('confidence', 0.99) * 100:g}% over the looks): " + "; ".join(groups))


def summary_notes(report: ComparisonResult, options: TableOptions = TableOptions()) -> list[str]:
    notes = [verdict_counts(report), comparison_settings_line(report)]
    if report.sequential is not None:
        notes.append(sequential_note(report.sequential))
    if not (options.wide or options.width is None):
        notes += [note] if (note := _detects_note(report)) else []
    if options.only_changed:
        notes.append("only slower and faster benchmarks are shown (--only-changed)")
    if any(not c.verdict_supported for c in report.comparisons):
        notes.append(f"{CAVEAT_MARK} a verdict the design cannot carry as printed: see its warning")
    return notes


def _detects_note(report: ComparisonResult) -> str | None:
    """What each inconclusive comparison could have seen, where the table has no room for
    the column: "inconclusive, as these runs could only call changes of at least: sumCsv
    40%, ..." (every comparison's figure: --wide, markdown, JSON)."""
    names = short_names([c.case.name for c in report.comparisons])
    seen = [f"{row_label(c, names)} {detects_cell(c)[1:]}" for c in ordered(report.comparisons)
            if c.verdict == Verdict.INCONCLUSIVE and c.mds_pct is not None]
    if not seen:
        return None
    listed = ", ".join(seen[:6]) + (f" and {len(seen) - 6} more" if len(seen) > 6 else "")
    return f"inconclusive, as these runs could only call changes of at least: {listed} (--wide: every benchmark's)"


_SIDES = ("baseline", "contender")
HINT = "hint: "


def warning_lines(report: ComparisonResult, names: dict[str, str]) -> list[str]:
    """Input warnings, then each comparison warning once: a message several benchmarks share
    is one line with their count and names ("baseline and contender: all values come from one
    fork: 9 benchmarks (A, B, C, ...)"), the same message of both sides one line, and each kind's
    hint once, after it."""
    lines = list(report.input_warnings)
    groups: dict[tuple[str, str], tuple[dict[str, list[str]], str]] = {}
    for c in ordered(report.comparisons):
        for w in c.warnings:
            side, rest = _side_of(w.message)
            sides_of, _ = groups.setdefault((rest, w.code), ({}, w.hint))
            sides = sides_of.setdefault(f"{row_label(c, names)} [{c.metric.name}]", [])
            if side not in sides:
                sides.append(side)
    hinted: set[str] = set()
    for (message, _), (sides_of, hint) in groups.items():
        by_sides: dict[tuple[str, ...], list[str]] = {}
        for where, sides in sides_of.items():
            by_sides.setdefault(tuple(sides), []).append(where)
        for sides, where in by_sides.items():
            said = " and ".join(sides) + ": " if all(sides) else ""
            if len(where) == 1:
                lines.append(f"{where[0]}: {said}{message}")
            else:
                listed = ", ".join(where[:3]) + (", ..." if len(where) > 3 else "")
                lines.append(f"{said}{message}: {len(where)} benchmarks ({listed})")
        if hint and hint not in hinted:
            hinted.add(hint)
            lines.append(f"{HINT}{hint}")
    return lines



def _side_of(message: str) -> tuple[str, str]:
    """``("baseline", rest)`` for a message of one side ("baseline: ..."), else ``("", message)``."""
    for side in _SIDES:
        if message.startswith(side + ": "):
            return side, message[len(side) + 2:]
    return "", message


def verdict_cell(c: Comparison) -> str:
    """The verdict, marked when a warning says the design cannot carry it as printed."""
    return c.verdict.value + ("" if c.verdict_supported else CAVEAT_MARK)


def alert_lines(report: ComparisonResult) -> list[str]:
    """Listed before the table: what was compared although it does not match, what failed,
    and what only one side has."""
    lines = [
        f"NOT COMPARABLE, compared anyway (--allow-mismatch): {m.message}" for m in report.mismatches
    ]
    lines += [f"FAILED in the contender: {failure}" for failure in report.failed_in_contender]
    lines += [f"failed in the baseline: {failure}" for failure in report.failed_in_baseline]
    for title, keys in (("only in baseline", report.only_in_baseline), ("only in contender", report.only_in_contender)):
        if keys:
            listed = ", ".join(f"{case.display_name} ({metric.name})" for case, metric in keys)
            lines.append(f"{title} (not compared): {listed}")
    return lines


def render_text(report: ComparisonResult, options: TableOptions = TableOptions()) -> str:
    """Alerts, the table, the notes and the warnings; ``options.color`` adds ANSI colours to
    the verdicts and the alerts."""
    wrap = min(WIDTH, options.width or WIDTH)
    alerts = [line for text in alert_lines(report) for line in _wrapped(text, "", wrap)]
    out = [coloured(line, "worse") if options.color else line for line in alerts] + ([""] if alerts else [])
    table = layout_text(comparison_table(report, options), color=options.color,
                        width=None if options.wide else options.width)
    out += table + ([""] if table else [])
    out += [line for note in summary_notes(report, options) for line in _wrapped(note, "", wrap)]
    warnings = warning_lines(report, short_names([c.case.name for c in report.comparisons]))
    if warnings:
        out += ["warnings:"] + [line for w in warnings for line in _wrapped(w, "    " if w.startswith(HINT) else "  ", wrap)]
    return "\n".join(out) + "\n"


def _wrapped(text: str, indent: str, width: int = WIDTH) -> list[str]:
    """A note or warning, escaped, in lines of at most ``width`` characters (continuations indented)."""
    return wrapped(text, width, indent, indent + "    ") or [""]


def render_markdown(report: ComparisonResult, options: TableOptions = TableOptions()) -> str:
    """The same in markdown, ready to paste into a pull request: the table at any width."""
    alerts = alert_lines(report)
    out = [f"**{escape_markdown(alert)}**  " for alert in alerts] + ([""] if alerts else [])
    table = layout_markdown(comparison_table(report, replace(options, width=None)))
    out += table + ([""] if table else [])
    out += [f"{escape_markdown(note)}  " for note in summary_notes(report, options)]
    warnings = warning_lines(report, short_names([c.case.name for c in report.comparisons]))
    if warnings:
        out += ["", "<details><summary>warnings</summary>", ""] + [f"{'  ' if w.startswith(HINT) else ''}- {escape_markdown(w)}" for w in warnings]
        out += ["", "</details>"]
    return "\n".join(out).rstrip() + "\n"


Renderer = Callable[..., str]

COMPARISON_RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "markdown": render_markdown,
    "json": lambda report, options: render_json(report),
    "csv": lambda report, options: render_csv(report),
}
