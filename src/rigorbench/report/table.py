"""A table model separate from its layout (STYLE.md rule 11, like benchstat's benchtab).

The comparison is turned into sections of string cells here, once; the text and markdown
renderers only lay the cells out. Nothing in this module computes a statistic: it formats
the numbers the analysis produced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rigorbench.analysis.compare import Comparison, ComparisonResult, SideSummary
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
    """``estimate ±h%`` where h is the CI's half width relative to the estimate."""
    estimate = side.mean if statistic == "mean" else side.median
    if estimate and math.isfinite(side.ci.low) and math.isfinite(side.ci.high):
        half = (side.ci.high - side.ci.low) / 2 / abs(estimate) * 100
        return f"{format_number(estimate)} ±{half:.1f}%"
    return format_number(estimate)


def change_cell(c: Comparison) -> str:
    low, high = (c.ratio.low - 1) * 100, (c.ratio.high - 1) * 100
    return f"{format_pct(c.change_pct)} [{format_pct(low)}, {format_pct(high)}]"


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


def comparison_table(report: ComparisonResult) -> Table:
    columns = [
        Column("benchmark", "left"),
        Column(report.baseline_label),
        Column(report.contender_label),
        Column("change [CI]"),
        Column("p"),
        Column("delta", "left"),
        Column("verdict", "left"),
    ]
    names = short_names([c.case.name for c in report.comparisons])
    sections: dict[tuple[str, str], Section] = {}
    for c in report.comparisons:
        key = (c.metric.name, c.metric.unit)
        section = sections.setdefault(key, Section(f"{c.metric.name} [{c.metric.unit}]"))
        label = row_label(c, names)
        section.rows.append([
            label,
            side_cell(c.baseline, report.settings.statistic),
            side_cell(c.contender, report.settings.statistic),
            change_cell(c),
            format_p(c.p_value),
            f"{c.cliffs_delta:+.2f} {c.effect_size}",
            verdict_cell(c),
        ])
        section.verdicts.append(c.verdict)
    return Table(columns, list(sections.values()), summary_notes(report), warning_lines(report, names), alert_lines(report))


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
        f"{s.confidence * 100:g}% CI from {s.resamples} hierarchical bootstrap resamples "
        f"(seed {s.seed}); verdict rule: {rule}{correction}"
    )


def summary_notes(report: ComparisonResult) -> list[str]:
    notes = [verdict_counts(report), comparison_settings_line(report)]
    if any(not c.verdict_supported for c in report.comparisons):
        notes.append(f"{CAVEAT_MARK} a verdict the design cannot carry as printed: see its warning")
    return notes


def warning_lines(report: ComparisonResult, names: dict[str, str]) -> list[str]:
    lines = list(report.input_warnings)
    for c in report.comparisons:
        label = row_label(c, names)
        lines.extend(f"{label} [{c.metric.name}]: {w.message}" for w in c.warnings)
    return lines
