"""The history as one self-contained HTML page (``rigorbench report --history`` and
``rigorbench history show --html``), in the look and with the script of the report
(:mod:`rigorbench.report.report`).

Layout: a summary table of the series, regressions first (the newest change slower), linking
to one section per series with its figure (:mod:`rigorbench.report.history_plots`), its
change points (the commit range, the levels before and after with their CIs, the change, a
p-value, slower or faster) and, collapsed, its points; then the settings. Every piece of text
from the store (benchmark names, params, branches, machine kinds, commits, sources) goes
through :func:`html.escape`; a commit is a link only when the page has an http(s) address
for the repository (``HistoryPage.commit_link``).
"""

from __future__ import annotations

from datetime import datetime, timezone

from rigorbench import __version__
from rigorbench.analysis.history_report import HistoryPage, SeriesHistory
from rigorbench.report.history import benchmark_name, format_level, format_value
from rigorbench.report.history_plots import series_figure
from rigorbench.report.report import _CSS, _SCRIPT, OPEN_SECTIONS, _e, _sort_value, wrappable
from rigorbench.stats.changepoints import ChangePoint

_HISTORY_CSS = """
section.series{border-top:1px solid var(--line);padding:8px 0} section.series summary{cursor:pointer;padding:4px 0}
td.commit a,td.commit{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
td.commit a,td.commit span{white-space:nowrap} td.source{overflow-wrap:anywhere}
details.points summary{cursor:pointer;margin-top:8px}
"""


def commit_cell(page: HistoryPage, commit: str, dirty: bool | None = None) -> str:
    """A commit, short, as a link to the repository's page of it when there is one."""
    shown = (commit[:12] if len(commit) == 40 else commit) + ("+dirty" if dirty else "")
    link = page.commit_link(commit)
    if link is None:
        return f'<span title="{_e(commit)}">{_e(shown)}</span>'
    return f'<a href="{_e(link)}" title="{_e(commit)}" rel="noopener noreferrer">{_e(shown)}</a>'


def _badge(direction: str) -> str:
    return f'<span class="verdict v-{_e(direction)}">{_e(direction)}</span>'


def render_history_html(page: HistoryPage, *, now: datetime | None = None) -> str:
    """The whole history page as one HTML document."""
    now = now or datetime.now(timezone.utc)
    points = sum(len(s.stored.points) for s in page.series)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>rigorbench history: {_e(page.store)}</title>",
        f"<style>{_CSS}{_HISTORY_CSS}</style></head><body>",
        f"<header><h1>rigorbench history: {_e(page.store)}</h1>",
        f'<div class="muted">{len(page.series)} series, {points} of {page.total} points; generated '
        f"{now:%Y-%m-%d %H:%M} UTC by rigorbench {_e(__version__)}</div></header>",
        '<nav><a href="#summary">Summary</a><a href="#series">Series</a><a href="#settings">Settings</a></nav>',
        _summary(page),
        '<h2 id="series">Series</h2>',
    ]
    for number, series in enumerate(page.series):
        parts.append(_series_section(page, series, open_=number < OPEN_SECTIONS))
    parts.append(_settings(page))
    parts.append(f"<script>{_SCRIPT}</script></body></html>\n")
    return "\n".join(parts)


def _summary(page: HistoryPage) -> str:
    changed = sum(bool(s.changes.changes) for s in page.series)
    regressed = sum(s.regression for s in page.series)
    out = ['<h2 id="summary">Summary</h2>',
           f'<p class="counts">{len(page.series)} series: <span class="verdict v-slower">{regressed} regressed</span> '
           f"(the newest change is slower); {changed} with change points</p>"]
    for (case, metric, branch), machines in page.mixed_machines.items():
        where = f" on branch {branch}" if branch else ""
        out.append(f'<p class="sev-warning">{_e(case.display_name)} {_e(metric)}{_e(where)} was measured on '
                   f"{len(machines)} kinds of machine; each is its own series: {_e('; '.join(machines))}</p>")
    if not page.series:
        out.append("<p>No history point matches the selection.</p>")
        return "\n".join(out)
    out.append('<input id="filter" type="search" placeholder="filter by name" aria-label="filter series by name">')
    rows = [_summary_row(page, rank, s) for rank, s in enumerate(page.series)]
    head = ("<tr><th>benchmark</th><th>direction</th><th data-num>newest change</th><th>metric</th><th>branch</th>"
            "<th>machine</th><th data-num class=\"minor\">points</th><th>last commit</th></tr>")
    out.append(f'<div class="scroll"><table id="overview" class="sortable"><thead>{head}</thead>'
               f'<tbody>{"".join(rows)}</tbody></table></div>')
    return "\n".join(out)


def _summary_row(page: HistoryPage, rank: int, s: SeriesHistory) -> str:
    stored, changes = s.stored, s.changes.changes
    newest = changes[-1] if changes else None
    direction = s.changes.direction(newest) if newest else "unchanged"
    change = f"{newest.change_pct:+.1f}%" if newest else "none"
    last = stored.points[-1]
    return (
        f'<tr class="v-{direction}"><td class="name" data-sort="{rank:06d}"><a href="#{s.anchor}">'
        f"{wrappable(benchmark_name(s.changes.series))}</a></td>"
        f'<td class="verdict-cell" data-sort="{rank:06d}">{_badge(direction)}</td>'
        f'<td class="num" data-sort="{_sort_value(newest.change_pct) if newest else 0}">{_e(change)}</td>'
        f"<td>{_e(_metric(s))}</td><td>{_e(stored.branch)}</td><td>{_e(stored.machine)}</td>"
        f'<td class="num minor" data-sort="{len(stored.points)}">{len(stored.points)}</td>'
        f'<td class="commit">{commit_cell(page, last.commit, last.dirty)}</td></tr>'
    )


def _metric(s: SeriesHistory) -> str:
    metric = s.stored.metric
    return f"{metric.name} ({metric.unit})" if metric.unit else metric.name


def _series_section(page: HistoryPage, s: SeriesHistory, *, open_: bool) -> str:
    stored = s.stored
    where = "; ".join(p for p in (f"branch {stored.branch}" if stored.branch else "", stored.machine) if p)
    head = (f"<h3>{_e(benchmark_name(s.changes.series))}</h3> <span class=\"muted\">{_e(_metric(s))}; {_e(where)}; "
            f"{len(stored.points)} points</span>")
    if s.changes.changes:
        head += " " + _badge("slower" if s.regression else "faster")
    body = [f'<div class="figs"><figure class="wide">{series_figure(s, s.anchor)}</figure></div>',
            _changes_table(page, s), _points_table(page, s)]
    return (f'<section class="series" id="{s.anchor}" data-regression="{str(s.regression).lower()}" '
            f'data-segments="{len(s.segments)}" data-changes="{len(s.changes.changes)}">'
            f'<details{" open" if open_ else ""}><summary>{head}</summary>{"".join(body)}</details></section>')


def _changes_table(page: HistoryPage, s: SeriesHistory) -> str:
    if not s.changes.changes:
        return '<h4>Change points</h4><p class="muted">None: one level over all the commits shown.</p>'
    rows = "".join(_change_row(page, s, c) for c in s.changes.changes)
    return ('<h4>Change points</h4><div class="scroll"><table class="changes"><thead><tr><th>commits</th>'
            "<th>direction</th><th>change</th><th>before [95% CI]</th><th>after [95% CI]</th><th>p</th><th>time</th>"
            f"</tr></thead><tbody>{rows}</tbody></table></div>")


def _change_row(page: HistoryPage, s: SeriesHistory, c: ChangePoint) -> str:
    before, after = s.stored.points[c.index - 1], s.stored.points[c.index]
    return (f'<tr><td class="commit">{commit_cell(page, before.commit, before.dirty)}..<wbr>'
            f"{commit_cell(page, after.commit, after.dirty)}</td><td>{_badge(s.changes.direction(c))}</td>"
            f'<td class="num">{c.change_pct:+.1f}%</td>'
            f'<td class="num">{_e(format_level(c.before))}</td><td class="num">{_e(format_level(c.after))}</td>'
            f'<td class="num">{c.p_value:.2g}</td><td>{_e(after.time)}</td></tr>')


def _points_table(page: HistoryPage, s: SeriesHistory) -> str:
    rows = "".join(
        f'<tr><td class="commit">{commit_cell(page, p.commit, p.dirty)}</td><td>{_e(p.time)}</td>'
        f'<td class="num">{p.n}</td><td class="num">{_e(format_value(p.mean))}</td>'
        f'<td class="num">{_e(_ci(p))}</td><td class="source">{_e(p.source)}</td></tr>'
        for p in reversed(s.stored.points)
    )
    return (f'<details class="points"><summary>{len(s.stored.points)} points, newest first</summary>'
            '<div class="scroll"><table><thead><tr><th>commit</th><th>time</th><th>n</th><th>mean</th><th>CI</th>'
            f"<th>source</th></tr></thead><tbody>{rows}</tbody></table></div></details>")


def _ci(point) -> str:
    if point.ci_low is None:
        return "-"
    return f"[{format_value(point.ci_low)}, {format_value(point.ci_high)}] ({point.confidence:.0%})"


def _settings(page: HistoryPage) -> str:
    sel = page.selection
    selection = "; ".join(f"{name} {value}" for name, value in (
        ("--bench", sel.bench.pattern if sel.bench else None), ("--metric", ", ".join(sel.metrics) if sel.metrics else None),
        ("--branch", sel.branch), ("--since", sel.since.isoformat() if sel.since else None)) if value is not None)
    rows = [
        ("store", page.store),
        ("selection", selection or "every series, primary metrics"),
        ("change points", f"E-divisive means, p <= {page.max_p:g}, segments of {page.min_size}+ points, "
                          f"window {page.window}; each point's own CI counts (docs/statistics.md)"),
        ("commit links", page.repo_url or "none (no http(s) address of the repository; see --repo-url)"),
    ]
    table = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    return f'<h2 id="settings">Settings</h2><table class="facts">{table}</table>'


__all__ = ["render_history_html", "commit_cell"]
