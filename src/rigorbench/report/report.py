"""The self-contained HTML report: one file, no network access needed to view it.

Layout: a summary (verdict counts and the sortable table that links to every benchmark,
regressions first), the scaling plots, lint findings, one section per benchmark case with its
figures (``report.plots``) and diagnostics in words, then the settings and the environment:
the recorded facts that differ between versions or trials first, the rest collapsed.

Every piece of text that comes from the data (benchmark names, parameters, labels,
environment values, file names, lint messages) goes through :func:`html.escape`; the only
markup not written here is the SVG matplotlib produces, which escapes its own text. The CSS
and the script (table sorting, a name filter, opening a collapsed section when its link is
followed) are inline and small.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from html import escape
from typing import Callable

from rigorbench import __version__
from rigorbench.analysis.report import GC_EVENT, JIT_EVENT, CasePage, ReportPage
from rigorbench.model import SEVERITIES, Severity
from rigorbench.report import plots
from rigorbench.report.analyze import summary_text
from rigorbench.report.lint import summary_line
from rigorbench.report.compare import (
    alert_lines, change_cell, comparison_settings_line, format_number, format_p, format_pct, row_label, short_names,
    detects_cell, side_cell, verdict_cell,
)

# Above this many cases, only the first ones (regressions first) start expanded.
OPEN_SECTIONS = 25

_CSS = """
:root{--fg:#1d1d1f;--muted:#666;--line:#ddd;--slower:#fbe3e0;--slower-fg:#a4260f;--faster:#e0f3e5;
--faster-fg:#17692f;--unchanged:#eeeeee;--inconclusive:#fff1cc;--inconclusive-fg:#7a5a00}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);margin:0 auto;max-width:1180px;padding:0 20px 60px}
header{border-bottom:1px solid var(--line);padding:14px 0 8px}
h1{font-size:21px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:0;display:inline;overflow-wrap:anywhere} h4{font-size:13px;margin:12px 0 4px}
nav{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid var(--line);z-index:2}
nav a{margin-right:14px} .muted{color:var(--muted)} code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
table{border-collapse:collapse;margin:6px 0;font-size:13px} th,td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.sortable th{cursor:pointer;user-select:none;background:#fafafa}
.scroll{overflow-x:auto} table.sortable th:after{content:"\\a0\\2195";color:#bbb}
td.name,td.mono,table.facts td{overflow-wrap:anywhere} td.name{min-width:10em}
@media (max-width:900px){body{padding:0 10px 40px} th,td{padding:3px 5px} .minor{display:none} #overview td.num{white-space:normal}}
.verdict{display:inline-block;padding:0 7px;border-radius:9px;font-weight:600;font-size:12px}
.v-slower{background:var(--slower);color:var(--slower-fg)} .v-faster{background:var(--faster);color:var(--faster-fg)}
.v-unchanged{background:var(--unchanged)} .v-inconclusive{background:var(--inconclusive);color:var(--inconclusive-fg)}
tr.v-slower td,tr.v-faster td,tr.v-inconclusive td,tr.v-unchanged td{background:none} tr.v-slower td.verdict-cell{background:var(--slower)}
tr.v-faster td.verdict-cell{background:var(--faster)} tr.v-inconclusive td.verdict-cell{background:var(--inconclusive)} tr.v-unchanged td.verdict-cell{background:var(--unchanged)}
.sev-error{color:#a4260f;font-weight:600} .sev-warning{color:#8a5a00;font-weight:600} .sev-info{color:var(--muted)}
.counts span{margin-right:10px}
section.case{border-top:1px solid var(--line);padding:8px 0} section.case summary{cursor:pointer;padding:4px 0}
.figs{display:flex;flex-wrap:wrap;gap:10px 18px;align-items:flex-start;margin-top:6px}
.figs figure{margin:0} .figs figure.wide{flex-basis:100%}
svg.plot{max-width:100%;height:auto;display:block}
ul.diag{margin:4px 0;padding-left:18px} ul.diag li{margin:2px 0}
#filter{padding:3px 6px;width:260px;margin:4px 0}
details.env summary{cursor:pointer}
"""

# Sorting by a column (numbers by their data-sort value), a name filter, and opening a
# collapsed section when a link to it is followed. Kept small: the page must work without it.
_SCRIPT = """
(function(){
function key(td){var v=td.getAttribute('data-sort');return v===null?td.textContent.trim():v;}
document.querySelectorAll('table.sortable').forEach(function(table){
  table.querySelectorAll('th').forEach(function(th,col){
    th.addEventListener('click',function(){
      var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);
      var asc=th.getAttribute('data-dir')!=='asc';th.setAttribute('data-dir',asc?'asc':'desc');
      var numeric=th.hasAttribute('data-num');
      rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);
        var c=numeric?(parseFloat(x)-parseFloat(y)):x.localeCompare(y);return asc?c:-c;});
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
});
var filter=document.getElementById('filter');
if(filter){filter.addEventListener('input',function(){var q=filter.value.toLowerCase();
  document.querySelectorAll('#overview tbody tr').forEach(function(r){
    r.style.display=r.cells[0].textContent.toLowerCase().indexOf(q)<0?'none':'';});});}
function openTarget(){var id=decodeURIComponent(location.hash.slice(1));if(!id)return;
  var el=document.getElementById(id);if(el){var d=el.querySelector('details');if(d&&!d.open){d.open=true;el.scrollIntoView();}}}
window.addEventListener('hashchange',openTarget);openTarget();
})();
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


# Where a long name may break: after a dot or a comma, before a brace. (Elsewhere, and in
# paths, the CSS's overflow-wrap:anywhere breaks what still does not fit.)
_BREAKS = re.compile(r"(?<=[.,])|(?=\{)")


def wrappable(value: object) -> str:
    """``value`` escaped, with ``<wbr>`` where a long name may break: narrow windows wrap
    ``org.example.Bench.method{size=10}`` at its dots rather than grow the table."""
    return "<wbr>".join(_e(part) for part in _BREAKS.split(str(value)) if part)


def render_html(report: ReportPage, *, progress: Callable[[int, int], None] | None = None, now: datetime | None = None) -> str:
    """The whole report as one HTML document."""
    now = now or datetime.now(timezone.utc)
    title = " vs ".join(report.labels[::-1]) if report.compares else report.labels[0]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>rigorbench report: {_e(title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        "<header>",
        f"<h1>rigorbench report: {_e(title)}</h1>",
        f'<div class="muted">{_e(_subtitle(report))}; generated {now:%Y-%m-%d %H:%M} UTC by rigorbench {_e(__version__)}</div>',
        "</header>",
        _navigation(report),
        _summary(report),
        _scaling(report),
        _lint(report),
        '<h2 id="benchmarks">Benchmarks</h2>',
    ]
    figures = plots.all_case_figures(report.cases, report.settings)
    for number, (case, svgs) in enumerate(zip(report.cases, figures)):
        parts.append(_case_section(case, svgs, open_=number < OPEN_SECTIONS))
        if progress is not None:
            progress(number + 1, len(report.cases))
    parts.append(_environment(report))   # after the benchmarks: context, not the news
    parts.append(f"<script>{_SCRIPT}</script></body></html>\n")
    return "\n".join(p for p in parts if p)


def _subtitle(report: ReportPage) -> str:
    n = len(report.cases)
    what = f"{report.labels[0]} (baseline) against {report.labels[1]} (contender)" if report.compares else f"one version, {report.labels[0]}"
    return f"{what}; {n} benchmark case{'s' if n != 1 else ''}"


def _navigation(report: ReportPage) -> str:
    links = [("summary", "Summary")]
    if report.scaling:
        links.append(("scaling", "Scaling"))
    if report.lint:
        links.append(("lint", "Lint"))
    links += [("benchmarks", "Benchmarks"), ("environment", "Environment and settings")]
    return "<nav>" + "".join(f'<a href="#{a}">{_e(t)}</a>' for a, t in links) + "</nav>"


# --- summary -------------------------------------------------------------------------------


def _summary(report: ReportPage) -> str:
    out = ['<h2 id="summary">Summary</h2>']
    if report.comparison is not None:
        # Before anything else: what was compared although it does not match, what failed,
        # and what only one side has (the same lines the text output starts with).
        out.extend(f'<p class="sev-error alert">{_e(line)}</p>' for line in alert_lines(report.comparison))
    if report.compares:
        out.append(f'<p class="counts">{_counts(report)}</p>')
        out.append(f'<p class="muted">{_e(comparison_settings_line(report.comparison))}</p>')
    else:
        out.append(f'<p class="counts">{_severity_counts(report)}</p>')
    for warning in report.warnings:
        out.append(f'<p class="sev-warning">{_e(warning)}</p>')
    if not report.cases:
        out.append("<p>No benchmark case has measurements on every side.</p>")
        return "\n".join(out)
    out.append('<input id="filter" type="search" placeholder="filter by name" aria-label="filter benchmarks by name">')
    out.append(_overview_compare(report) if report.compares else _overview_single(report))
    return "\n".join(out)


def _counts(report: ReportPage) -> str:
    n = len(report.cases)
    spans = [f'<span class="verdict v-{v}">{sum(case.comparison.verdict.value == v for case in report.cases)} {v}</span>'
             for v in ("slower", "faster", "inconclusive", "unchanged")]
    return f"{n} comparison{'s' if n != 1 else ''}: " + " ".join(spans)


def _severity_counts(report: ReportPage) -> str:
    found = [d.severity for case in report.cases for v in case.versions for d in v.analysis.diagnostics]
    spans = [f'<span class="sev-{s}">{sum(x == s for x in found)} {s}</span>' for s in reversed(SEVERITIES)]
    return f"{len(report.cases)} benchmark cases; diagnostics: " + " ".join(spans)


def _names(report: ReportPage) -> dict[str, str]:
    return short_names(sorted({case.case.name for case in report.cases}))


def _sort_value(value: float) -> str:
    return repr(float(value)) if value is not None and math.isfinite(value) else "0"


def _worst(case: CasePage) -> str:
    worst = case.worst_severity
    if worst is None:
        return '<td data-sort="0">none</td>'
    count = sum(d.severity == worst for v in case.versions for d in v.analysis.diagnostics)
    count += sum(d.severity == worst for d in (case.comparison.warnings if case.comparison else ()))
    return f'<td data-sort="{Severity(worst).rank + 1}" class="sev-{worst}">{count} {worst}</td>'


def _overview_compare(report: ReportPage) -> str:
    """The answer beside the name (the verdict, then the change), the evidence after it. In a
    narrow window the columns a terminal's table also leaves out (``compare._columns``: p and
    Cliff's d unless the Wilcoxon rule decides, detects) are hidden, and names wrap."""
    names = _names(report)
    base, cont = report.labels
    stat = report.settings.statistic
    minor = report.settings.test != "wilcoxon"   # p and Cliff's d are the Wilcoxon rule's evidence
    evidence, evidence_head = (" minor", ' class="minor"') if minor else ("", "")
    rows = []
    for rank, case in enumerate(report.cases):
        c = case.comparison
        rows.append(
            f'<tr class="v-{c.verdict.value}">'
            f'<td class="name" data-sort="{rank:06d}"><a href="#{case.anchor}">{wrappable(row_label(case, names))}</a></td>'
            f'<td class="verdict-cell" data-sort="{rank:06d}"><span class="verdict v-{c.verdict.value}">{_e(verdict_cell(c))}</span></td>'
            # Wrapped in a narrow window, the change's CI stays on one line below the change.
            f'<td class="num" data-sort="{_sort_value(c.change_pct)}">{_e(change_cell(c)).replace(", ", ",&nbsp;")}</td>'
            f'<td class="num" data-sort="{_sort_value(c.baseline.mean)}">{_e(side_cell(c.baseline, stat))}</td>'
            f'<td class="num" data-sort="{_sort_value(c.contender.mean)}">{_e(side_cell(c.contender, stat))}</td>'
            f"<td>{_e(case.metric.unit)}</td>"
            f'<td class="num{evidence}" data-sort="{_sort_value(c.p_value)}">{_e(format_p(c.p_value))}</td>'
            f'<td class="num{evidence}" data-sort="{_sort_value(c.cliffs_delta)}">{c.cliffs_delta:+.2f} {_e(c.effect_size)}</td>'
            f'<td class="num minor" data-sort="{_sort_value(c.mds_pct)}">{_e(detects_cell(c))}</td>'
            f"{_worst(case)}</tr>"
        )
    head = (
        f"<tr><th>benchmark</th><th>verdict</th><th data-num>change [{report.settings.confidence:.0%} CI]</th>"
        f"<th data-num>{_e(base)}</th><th data-num>{_e(cont)}</th><th>unit</th>"
        f"<th data-num{evidence_head}>p</th><th data-num{evidence_head}>Cliff's delta</th>"
        '<th data-num class="minor" title="the smallest change the interval could have called">detects</th>'
        "<th data-num>diagnostics</th></tr>"
    )
    return _overview_table(head, rows)


def _overview_table(head: str, rows: list[str]) -> str:
    return f'<div class="scroll"><table id="overview" class="sortable"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table></div>'


def _overview_single(report: ReportPage) -> str:
    names = _names(report)
    rows = []
    for rank, case in enumerate(report.cases):
        b = case.versions[0].analysis
        steady = b.steady.verdict or "not checked"
        cv = b.cv
        rows.append(
            f'<tr><td class="name" data-sort="{rank:06d}"><a href="#{case.anchor}">{wrappable(row_label(case, names))}</a></td>'
            f"<td>{_e(case.metric.unit)}</td>"
            f'<td class="num" data-sort="{_sort_value(b.mean.estimate)}">{_e(format_number(b.mean.estimate))}</td>'
            f'<td class="num">[{_e(format_number(b.mean.low))}, {_e(format_number(b.mean.high))}]</td>'
            f'<td class="num" data-sort="{_sort_value(b.rciw)}">{b.rciw:.1%}</td>'
            f'<td class="num" data-sort="{_sort_value(cv) if cv is not None else 0}">{"n/a" if cv is None else f"{cv:.1%}"}</td>'
            f'<td class="num" data-sort="{b.n}">{b.n}</td>'
            f"<td>{_e(steady)}</td>{_worst(case)}</tr>"
        )
    head = (
        f"<tr><th>benchmark</th><th>unit</th><th data-num>mean</th><th>{report.settings.confidence:.0%} CI</th>"
        "<th data-num>RCIW</th><th data-num>CV</th><th data-num>n</th><th>steady state</th><th data-num>diagnostics</th></tr>"
    )
    return _overview_table(head, rows)


# --- scaling, lint, environment -------------------------------------------------------------


def _scaling(report: ReportPage) -> str:
    if not report.scaling:
        return ""
    out = ['<section id="scaling"><h2>Scaling</h2>',
           '<p class="muted">Benchmarks run at several values of a numeric parameter: the mean against the '
           "parameter on log-log axes, with CI error bars; the growth exponent is the slope of a least-squares "
           "line through the log means (Sestoft, section 6). An exponent of 1 is linear growth, 2 quadratic.</p>",
           '<div class="figs">']
    for group in report.scaling:
        if all(line.exponent is not None for line in group.lines):
            exponents = "exponent " + "; ".join(f"{line.label}: {line.exponent:.2f}" for line in group.lines)
        else:
            exponents = f"{len(group.lines[0].x)} values: too few for a growth exponent (3 or more)"
        out.append(
            f'<figure id="{group.anchor}"><figcaption><b>{_e(group.title)}</b> over <code>{_e(group.parameter)}</code> '
            f'<span class="muted">({_e(exponents)})</span></figcaption>{plots.scaling(group, group.anchor)}</figure>'
        )
    out.append("</div></section>")
    return "\n".join(out)


def _lint(report: ReportPage) -> str:
    if not report.lint:
        return ""
    out = ['<h2 id="lint">Lint findings</h2>']
    for label, result in report.lint.items():
        out.append(f"<h4>{_e(label)}: {_e(summary_line(result))}</h4>")
        if result.findings:
            rows = "".join(
                f'<tr><td class="mono">{_e(f.path)}:{f.line}:{f.column}</td><td>{_e(f.rule)}</td>'
                f'<td class="sev-{_e(f.severity)}">{_e(f.severity)}</td><td class="name">{wrappable(f.benchmark or "")}</td>'
                f"<td>{_e(f.message)}{_measured(f)}</td></tr>"
                for f in result.findings
            )
            out.append('<div class="scroll"><table class="lint"><thead><tr><th>where</th><th>rule</th><th>severity</th>'
                       f"<th>benchmark</th><th>finding</th></tr></thead><tbody>{rows}</tbody></table></div>")
    out.append("<p class=\"muted\">'rigorbench lint --explain RULE' explains a rule and its fix.</p>")
    return "\n".join(out)


def _measured(f) -> str:
    """What the run measured about a lint finding (graded by ``ab``/``run``), or nothing."""
    return f'<br><span class="muted">measured: {_e(f.measured.reason)}</span>' if f.measured is not None else ""


def _environment(report: ReportPage) -> str:
    out = ['<h2 id="environment">Environment and settings</h2>']
    rows = [("statistics", comparison_settings_line(report.comparison) if report.comparison else _analysis_settings(report))]
    rows += [(k, v) for k, v in report.run.items()]
    for label, sources in report.sources.items():
        rows.append((f"inputs of {label}", ", ".join(sources)))
    out.append('<table class="facts">' + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows) + "</table>")
    out.append(_environment_tables(report))
    return "\n".join(out)


def _analysis_settings(report: ReportPage) -> str:
    s = report.settings
    return f"{s.confidence:.0%} CIs ({s.interval_label}) from {s.resamples} hierarchical bootstrap resamples (seed {s.seed})"


def _environment_tables(report: ReportPage) -> str:
    """The facts recorded per trial (the installation protocol): those that differ between
    the versions or between trials in a table, the others collapsed below it."""
    rows = report.environment_rows
    if not rows:
        return ""
    head = "<tr><th>fact</th>" + "".join(f"<th>{_e(label)}</th>" for label in report.environments) + "</tr>"

    def table(selected) -> str:
        body = "".join(f"<tr><th>{_e(r.fact)}</th>" + "".join(f'<td class="mono">{_e(v)}</td>' for v in r.values) + "</tr>"
                       for r in selected)
        return f'<div class="scroll"><table>{head}{body}</table></div>'

    differing = [r for r in rows if r.differs]
    same = [r for r in rows if not r.differs]
    where = "between the versions or between trials" if report.compares else "between trials"
    out = [f'<h4 id="environment-differences">Recorded per trial: {len(differing)} of {len(rows)} facts differ {where}</h4>']
    out.append(table(differing) if differing else '<p class="muted">None: the machine and JVM were the same throughout.</p>')
    if same:
        out.append(f'<details class="env"><summary>{len(same)} facts the same throughout</summary>{table(same)}</details>')
    return "\n".join(out)


# --- one benchmark case ---------------------------------------------------------------------


def _case_section(case: CasePage, svgs: list[tuple[str, str]], *, open_: bool) -> str:
    c = case.comparison
    head = f"<h3>{wrappable(case.case.display_name)}</h3> <span class=\"muted\">{_e(case.metric.name)} [{_e(case.metric.unit)}]</span>"
    if c is not None:
        head += f' <span class="verdict v-{c.verdict.value}">{_e(verdict_cell(c))}</span> <span class="mono">{_e(change_cell(c))}</span>'
    figures = "".join(
        f'<figure class="{"wide" if kind == "iterations" else ""}" data-kind="{kind}">{svg}</figure>'
        for kind, svg in svgs
    )
    body = [f'<div class="figs">{figures}</div>', _facts(case), _by_instance(case), _diagnostics(case)]
    return (
        f'<section class="case" id="{case.anchor}"><details{" open" if open_ else ""}>'
        f"<summary>{head}</summary>{''.join(body)}</details></section>"
    )


def _facts(case: CasePage) -> str:
    rows = "".join(f"<li><b>{_e(v.label)}</b>: {_e(summary_text(v.analysis))}{_events(v)}</li>" for v in case.versions)
    return f'<h4>Summary</h4><ul class="diag">{rows}</ul>'


def _by_instance(case: CasePage) -> str:
    """Trials, mean and its difference from the version's mean per instance; with two
    versions on one instance, contender / baseline there. Empty for one instance."""
    if not case.instances:
        return ""
    ratio = any(row.ratio is not None for row in case.instances)   # both versions ran on an instance
    unit = _e(case.metric.unit)
    head = ("<tr><th rowspan=\"2\">instance</th>" + "".join(f'<th colspan="3">{_e(v.label)}</th>' for v in case.versions)
            + ('<th rowspan="2">contender / baseline</th>' if ratio else "") + "</tr><tr>"
            + "<th>trials</th><th>mean</th><th>vs its mean</th>" * len(case.versions) + "</tr>")
    rows = []
    for row in case.instances:
        cells = "".join(
            '<td class="num muted" colspan="3">did not run here</td>' if cell is None else
            f'<td class="num">{cell.trials}</td><td class="num">{_e(format_number(cell.mean))} {unit}</td>'
            f'<td class="num">{_e(format_pct(cell.difference_pct))}</td>'
            for cell in row.cells
        )
        if ratio:
            cells += '<td class="num">' + ("n/a" if row.ratio is None or not math.isfinite(row.ratio) else f"{row.ratio:.3f} ({_e(format_pct((row.ratio - 1) * 100))})") + "</td>"
        rows.append(f"<tr><th>{_e(row.name)}</th>{cells}</tr>")
    return (f'<h4>By instance</h4><div class="scroll"><table class="instances"><thead>{head}</thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div><p class="muted">Means of the iterations summarized above, per '
            "instance the trials ran on; % from the version's mean over all its instances.</p>")


def _events(view) -> str:
    if not view.events_recorded:
        return ""
    total = sum(len(f.values) for f in view.forks)
    counts = []
    if GC_EVENT in view.events_recorded:
        counts.append(f"GC in {sum(len(f.gc) for f in view.forks)} of {total} iterations")
    if JIT_EVENT in view.events_recorded:
        counts.append(f"JIT compilation in {sum(len(f.jit) for f in view.forks)} of {total} iterations")
    warmup = " (warmup included)" if any(f.warmup for f in view.forks) else ""
    return _e("; " + ", ".join(counts) + warmup)


def _diagnostics(case: CasePage) -> str:
    items = []
    for view in case.versions:
        items += [_diagnostic_item(view.label, d) for d in view.analysis.diagnostics]
    if case.comparison is not None:
        items += [_diagnostic_item("comparison", d) for d in case.comparison.warnings]
    if not items:
        return '<h4>Diagnostics</h4><p class="muted">None: nothing in the data calls for attention.</p>'
    return f'<h4>Diagnostics</h4><ul class="diag">{"".join(items)}</ul>'


def _diagnostic_item(where: str, d) -> str:
    hint = f' <span class="muted">{_e(d.hint)}</span>' if d.hint else ""
    return (f'<li><span class="sev-{_e(d.severity)}">{_e(d.severity)}</span> <b>{_e(where)}</b>: '
            f'{_e(d.message)} <code class="muted">{_e(d.code)}</code>.{hint}</li>')


__all__ = ["render_html"]
