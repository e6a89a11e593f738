"""The history report's figure: one series over its commits, drawn as the other figures are
(:mod:`rigorbench.report.plots`: matplotlib, inlined SVG, the same style and colours).

Each point is its run's mean with the run's own CI as an error bar, oldest commit on the
left; each segment between change points is a line at its level with its CI as a band; a
change point is a dashed line before its first point, in the colour of its direction
(slower: vermillion, faster: bluish green, as in the verdicts). The x axis counts commits;
tick labels are short commit ids, cut to a few safe characters (matplotlib escapes its text
as XML, and the HTML around the figure names the benchmark).
"""

from __future__ import annotations

import re

import matplotlib
import numpy as np
from matplotlib import ticker
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from rigorbench.analysis.history_report import SeriesHistory
from rigorbench.report.history import format_value
from rigorbench.report.plots import _STYLE, VERSION_COLORS, _compact, _figure, _svg  # the report's own look

POINT_COLOR = VERSION_COLORS[0]
SLOWER_COLOR, FASTER_COLOR, LEVEL_COLOR = "#D55E00", "#009E73", "#555555"


def short_commit(commit: str, width: int = 8) -> str:
    """A commit as a tick label: its first characters, anything unusual replaced."""
    return re.sub(r"[^0-9A-Za-z._-]", "?", commit[:width])


def series_figure(series: SeriesHistory, prefix: str) -> str:
    """The points with their CIs, the segments' levels and the change points."""
    points = series.stored.points
    x = np.arange(len(points))
    mean = np.array([p.mean for p in points], dtype=float)
    with matplotlib.rc_context(_STYLE):
        fig = _figure(7.4, 3.0, bottom=0.75, top=0.65)
        ax = fig.add_subplot()
        _compact(ax.yaxis)
        # Levels of thousands as 61,000, not 6.1e+04: the tables beside the figure write them so.
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: format_value(v)))
        _draw_segments(ax, series)
        with_ci = np.array([p.ci_low is not None for p in points])
        if with_ci.any():
            low = np.array([p.ci_low for p in points if p.ci_low is not None], dtype=float)
            high = np.array([p.ci_high for p in points if p.ci_low is not None], dtype=float)
            err = np.vstack([mean[with_ci] - low, high - mean[with_ci]]).clip(min=0)
            ax.errorbar(x[with_ci], mean[with_ci], yerr=err, ls="", marker="o", ms=3.5, capsize=2, lw=0.9,
                        color=POINT_COLOR, zorder=3)
        if (~with_ci).any():
            ax.plot(x[~with_ci], mean[~with_ci], ls="", marker="o", ms=3.5, color=POINT_COLOR, zorder=3)
        _commit_axis(ax, [p.commit for p in points])
        ax.set_xlim(-0.6, len(points) - 0.4)
        ax.set_ylabel(series.stored.metric.unit)
        ax.set_title(_title(series), loc="left")
        ax.legend(handles=_legend(series, with_ci.any()), loc="lower left", bbox_to_anchor=(0, 1.13),
                  ncol=4, borderaxespad=0)
    return _svg(fig, prefix, f"history over {len(points)} commits with {len(series.changes.changes)} change points")


def _draw_segments(ax, series: SeriesHistory) -> None:
    for segment in series.segments:
        left, right = segment.start - 0.45, segment.end - 0.55
        level = segment.level
        ax.fill_between([left, right], level.low, level.high, color=LEVEL_COLOR, alpha=0.15, lw=0, zorder=1)
        ax.hlines(level.mean, left, right, color=LEVEL_COLOR, lw=1.6, zorder=2)
    for change in series.changes.changes:
        slower = series.changes.direction(change) == "slower"
        color = SLOWER_COLOR if slower else FASTER_COLOR
        ax.axvline(change.index - 0.5, color=color, ls="--", lw=1.2, zorder=2)
        ax.text(change.index - 0.4, 0.97, f"{change.change_pct:+.1f}%", color=color, transform=ax.get_xaxis_transform(),
                ha="left", va="top", fontsize=7.5)


def _commit_axis(ax, commits: list[str]) -> None:
    ax.xaxis.set_major_locator(ticker.MaxNLocator(8, integer=True))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(
        lambda v, _: short_commit(commits[int(v)]) if 0 <= int(v) < len(commits) and v == int(v) else ""))
    ax.tick_params(axis="x", labelrotation=30)
    ax.set_xlabel("commit, oldest first")


def _title(series: SeriesHistory) -> str:
    changes = series.changes.changes
    if not changes:
        return "no change point"
    newest = series.changes.direction(changes[-1])
    return f"{len(changes)} change point{'s' if len(changes) != 1 else ''}; the newest is {newest}"


def _legend(series: SeriesHistory, with_ci: bool) -> list:
    handles = [Line2D([], [], ls="", marker="o", color=POINT_COLOR, label="run mean" + (" and CI" if with_ci else "")),
               Patch(color=LEVEL_COLOR, alpha=0.4, label="segment level and CI")]
    directions = {series.changes.direction(c) for c in series.changes.changes}
    if "slower" in directions:
        handles.append(Line2D([], [], ls="--", color=SLOWER_COLOR, label="change: slower"))
    if "faster" in directions:
        handles.append(Line2D([], [], ls="--", color=FASTER_COLOR, label="change: faster"))
    return handles


__all__ = ["series_figure", "short_commit"]
