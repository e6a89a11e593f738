"""A table model separate from its layout (STYLE.md rule 11, like benchstat's benchtab).

The comparison is turned into sections of string cells here, once; the text and markdown
renderers only lay the cells out. Nothing in this module computes a statistic: it formats
the numbers the analysis produced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

from rigorbench.analysis.compare import Comparison, ComparisonResult, SideSummary, ordered
from rigorbench.model import short_name
from rigorbench.stats import Verdict

VERDICT_ORDER = (Verdict.SLOWER, Verdict.FASTER, Verdict.UNCHANGED, Verdict.INCONCLUSIVE)


@dataclass(frozen=True)
class Column:
    header: str
    align: str = "right"  # "left" | "right"


@dataclass
class Section:
    title: str
    rows: list[list[str]] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    summary: list[str] | None = None    # the geometric-mean row, when the section has 2+ rows


@dataclass
class Table:
    columns: list[Column]
    sections: list[Section]
    notes: list[str]
    warnings: list[str]
    # What must be read before the table: sides that do not match, failed and missing benchmarks.
    alerts: list[str] = field(default_factory=list)


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


def side_cell(side: SideSummary, statistic: str) -> str:
    """``estimate ±h%`` where h is the CI's half width relative to the estimate (whole
    percent from 10% up: the digits beyond say nothing)."""
    estimate = side.mean if statistic == "mean" else side.median
    if estimate and math.isfinite(side.ci.low) and math.isfinite(side.ci.high):
        half = (side.ci.high - side.ci.low) / 2 / abs(estimate) * 100
        return f"{format_number(estimate)} ±{half:.0f}%" if half >= 10 else f"{format_number(estimate)} ±{half:.1f}%"
    return format_number(estimate)


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


def row_label(c: Comparison, names: dict[str, str]) -> str:
    """The shortened benchmark name with its parameters, as in ``name{k=v}``."""
    return names.get(c.case.name, c.case.name) + c.case.display_name[len(c.case.name):]


def elide(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: its start and its end (the method and the
    parameters, which tell rows apart) around an ellipsis."""
    if len(text) <= width:
        return text
    head = max(1, (width - 1) // 3)
    return text[:head] + "\u2026" + text[len(text) - (width - 1 - head):]


@dataclass(frozen=True)
class TableOptions:
    """How the text and markdown tables are laid out (``--wide``, ``--only-changed``)."""

    wide: bool = False            # every column, names in full
    only_changed: bool = False    # rows of slower and faster benchmarks only
    width: int | None = 100       # the text width the table is kept within, unless wide (None: any)
    color: bool = False           # ANSI colours in the text layout (a terminal that wants them)


def _columns(report: ComparisonResult, options: TableOptions) -> list[Column]:
    """The bootstrap rule decides from the change's CI; the p-value and Cliff's d (the
    Wilcoxon rule's evidence) take the width of a terminal only when that rule decides,
    with --wide, or where width does not matter (markdown)."""
    columns = [Column("benchmark", "left"), Column(report.baseline_label), Column(report.contender_label), Column("change [CI]")]
    wilcoxon = report.settings.test == "wilcoxon"
    if options.wide or wilcoxon:
        columns.append(Column("p"))
    if options.wide or wilcoxon or options.width is None:
        columns.append(Column("Cliff's d", "left"))
    return columns + [Column("verdict", "left")]


def _row(c: Comparison, label: str, statistic: str, headers: list[str]) -> list[str]:
    row = [label, side_cell(c.baseline, statistic), side_cell(c.contender, statistic), change_cell(c)]
    if "p" in headers:
        row.append(format_p(c.p_value))
    if "Cliff's d" in headers:
        row.append(f"{c.cliffs_delta:+.2f} {c.effect_size}")
    return row + [verdict_cell(c)]


def comparison_table(report: ComparisonResult, options: TableOptions = TableOptions()) -> Table:
    """Sections per metric, regressions first, a geometric-mean row per section; names cut to
    keep the table within ``options.width`` unless ``options.wide``."""
    columns = _columns(report, options)
    headers = [c.header for c in columns]
    names = short_names([c.case.name for c in report.comparisons])
    shown = [c for c in ordered(report.comparisons)
             if not options.only_changed or c.verdict in (Verdict.SLOWER, Verdict.FASTER)]
    sections: dict[tuple[str, str], Section] = {}
    for c in shown:
        key = (c.metric.name, c.metric.unit)
        section = sections.setdefault(key, Section(f"{c.metric.name} [{c.metric.unit}]"))
        section.rows.append(_row(c, row_label(c, names), report.settings.statistic, headers))
        section.verdicts.append(c.verdict)
    means = report.geometric_means()
    for key, section in sections.items():
        ratio, n = means.get(key, (float("nan"), 0))
        if n > 1:
            section.summary = [f"geometric mean of {n}", "", "", format_pct((ratio - 1) * 100)] + [""] * (len(columns) - 4)
    if not options.wide and options.width is not None:
        _fit_names(columns, list(sections.values()), options.width)
    return Table(columns, list(sections.values()), summary_notes(report, options), warning_lines(report, names), alert_lines(report))


def _fit_names(columns: list[Column], sections: list[Section], width: int) -> None:
    """Cut the names (first column) so that every line fits ``width``, down to 24 characters."""
    rows = [row for s in sections for row in s.rows + ([s.summary] if s.summary else [])]
    if not rows:
        return
    others = sum(max(len(columns[i].header), *(len(r[i]) for r in rows)) for i in range(1, len(columns)))
    budget = max(24, width - others - 2 * (len(columns) - 1))
    for section in sections:
        for row in section.rows:
            row[0] = elide(row[0], budget)


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
    return (
        f"{s.statistic} ratio {report.contender_label}/{report.baseline_label}, "
        f"{round(s.confidence * 100, 2):g}% CI ({s.interval_label}) from {s.resamples} hierarchical bootstrap resamples "
        f"(seed {s.seed}); verdict rule: {rule}{correction}"
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
    if options.only_changed:
        notes.append("only slower and faster benchmarks are shown (--only-changed)")
    if any(not c.verdict_supported for c in report.comparisons):
        notes.append(f"{CAVEAT_MARK} a verdict the design cannot carry as printed: see its warning")
    return notes


def warning_lines(report: ComparisonResult, names: dict[str, str]) -> list[str]:
    """Input warnings, then each comparison warning once: a message several benchmarks share
    is one line with their count and names ("baseline: all values come from one fork: 9
    benchmarks (A, B, C, ...)")."""
    lines = list(report.input_warnings)
    groups: dict[str, list[str]] = {}
    for c in ordered(report.comparisons):
        for w in c.warnings:
            groups.setdefault(w.message, []).append(f"{row_label(c, names)} [{c.metric.name}]")
    for message, where in groups.items():
        if len(where) == 1:
            lines.append(f"{where[0]}: {message}")
        else:
            listed = ", ".join(where[:3]) + (", ..." if len(where) > 3 else "")
            lines.append(f"{message}: {len(where)} benchmarks ({listed})")
    return lines


CAVEAT_MARK = "*"


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
