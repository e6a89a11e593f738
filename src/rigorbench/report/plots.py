"""The report's figures, drawn with matplotlib and inlined as SVG.

Why matplotlib: it is the plotting library the scientific Python stack is built on, it
renders SVG without a browser or a JavaScript runtime, and the SVG it writes escapes text as
XML. Interactive libraries (Bokeh, Plotly) would put a megabyte of JavaScript into every
report; a static SVG per figure keeps the file self-contained and viewable offline.

Each figure function returns an ``<svg>`` element as a string, ready to be placed in an HTML
page: the XML prologue is dropped and every ``id`` (and reference to one) is prefixed, so
that many figures can share one document without their clip paths and markers colliding.
Benchmark names are never drawn inside figures; the HTML around them names the benchmark.
"""

from __future__ import annotations

import io
import re
from html import escape
from typing import Iterator, Sequence

import matplotlib

matplotlib.use("svg")  # no display, no GUI toolkit: only SVG is ever written

import numpy as np  # noqa: E402
from matplotlib import ticker  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.legend import Legend  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from rigorbench.analysis.report import GC_EVENT, JIT_EVENT, CasePage, ScalingGroup, VersionView  # noqa: E402
from rigorbench.analysis.settings import Settings  # noqa: E402
from rigorbench import parallel  # noqa: E402
from rigorbench.cpus import usable_cpus  # noqa: E402

_STYLE = {
    "svg.fonttype": "none",         # text stays text: smaller files, selectable, crisp
    "svg.hashsalt": "rigorbench",   # same data, same SVG
    "text.parse_math": False,       # "$" in a label is a dollar sign, not TeX
    "path.simplify": True,
    "path.simplify_threshold": 0.3,
    "font.size": 8.5,
    "axes.titlesize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e6e6e6",
    "grid.linewidth": 0.6,
    "legend.frameon": False,
    "legend.fontsize": 7.5,
}
# Baseline and contender colours (Okabe-Ito blue and vermillion: colour-blind safe).
VERSION_COLORS = ("#0072B2", "#D55E00")
GC_COLOR, JIT_COLOR, WARMUP_COLOR, STEADY_COLOR = "#CC79A7", "#009E73", "#ececec", "#222222"
_MAX_LINES = 40  # forks drawn one line each; beyond that, a sample of them and a note
# Line styles that tell a case's instances apart (the colour tells the versions apart).
_INSTANCE_DASHES = ("-", "--", ":", "-.", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))
_MAX_INSTANCE_NAMES = 8  # named in a panel's legend; the by-instance table lists them all


def _svg(fig: Figure, prefix: str, description: str) -> str:
    buffer = io.StringIO()
    with matplotlib.rc_context(_STYLE):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    return inline_svg(buffer.getvalue(), prefix, description)


def _round_path(match: re.Match) -> str:
    """Path data at 0.01 pt: invisible on screen, a third of the file size."""
    return 'd="' + re.sub(r"(\d+\.\d\d)\d+", r"\1", match.group(1)) + '"'


def inline_svg(svg: str, prefix: str, description: str) -> str:
    """An SVG document as an element of an HTML page: prologue and metadata dropped, ids
    made unique with ``prefix``, and an accessible name."""
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r'\bd="([^"]*)"', _round_path, svg)
    svg = re.sub(r">\s+<", "><", svg)   # indentation only; text never sits between tags
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", svg)
    svg = re.sub(r'href="#([^"]+)"', rf'href="#{prefix}-\1"', svg)
    return svg.replace("<svg ", f'<svg class="plot" role="img" aria-label="{escape(description)}" ', 1)


def _figure(width: float, height: float, *, left: float = 0.75, right: float = 0.15, bottom: float = 0.5,
            top: float = 0.3, hspace: float = 0.0) -> Figure:
    """A figure with fixed margins in inches. Fixed, not constrained layout: laying out the
    text of every figure again halved the speed of a 200-benchmark report, and the tick
    labels here are short numbers of known width."""
    with matplotlib.rc_context(_STYLE):
        fig = Figure(figsize=(width, height))
        fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height,
                            hspace=hspace)
        return fig


def _compact(axis) -> None:
    """At most five ticks with four significant digits: labels that fit the margin."""
    axis.set_major_locator(ticker.MaxNLocator(5))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:.4g}"))


def _color(position: int) -> str:
    return VERSION_COLORS[position % len(VERSION_COLORS)]


def iteration_series(case: CasePage, prefix: str) -> str:
    """Each version's scores iteration by iteration, one line per fork, on one y scale."""
    views = case.versions
    with matplotlib.rc_context(_STYLE):
        fig = _figure(7.4, 0.85 + 1.75 * len(views), bottom=0.45, top=0.55, hspace=0.35)
        axes = fig.subplots(len(views), 1, sharex=True, sharey=True, squeeze=False)[:, 0]
        _compact(axes[0].yaxis)
        limits = case.iteration_range
        styles = {row.instance: _INSTANCE_DASHES[i % len(_INSTANCE_DASHES)] for i, row in enumerate(case.instances)}
        for position, (ax, view) in enumerate(zip(axes, views)):
            _draw_forks(ax, view, _color(position), styles)
            if styles:
                _instance_legend(ax, view, styles, _color(position))
            ax.set_ylabel(case.metric.unit)
            title = f"{view.label}: {len(view.forks)} fork(s)"
            if limits is not None:
                _mark_clipped(ax, view, limits.low, limits.high, _color(position))
                if limits.clipped[position]:
                    title += f"; {limits.clipped[position]} warmup iteration(s) beyond the scale, clipped at the axis (\u25b2\u25bc)"
            ax.set_title(title, loc="left")
        if limits is not None:
            axes[0].set_ylim(limits.low, limits.high)   # the measurement phase sets the scale
        # JMH's JSON keeps no warmup iterations: say "included" only when there are some
        warmup = any(f.warmup for v in views for f in v.forks)
        axes[-1].set_xlabel("iteration within fork" + (" (warmup included)" if warmup else " (measurement only)"))
        axes[-1].xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
        handles = [Line2D([], [], color=_color(0), lw=1, label="one line per fork")]
        if warmup:
            handles.append(Patch(color=WARMUP_COLOR, label="warmup"))
        if any(f.steady_start is not None for v in views for f in v.forks):
            handles.append(Line2D([], [], ls="", marker="v", color=STEADY_COLOR, label="steady state starts"))
        if any(GC_EVENT in v.events_recorded for v in views):
            handles.append(Line2D([], [], ls="", marker="|", color=GC_COLOR, label="GC in iteration"))
        if any(JIT_EVENT in v.events_recorded for v in views):
            handles.append(Line2D([], [], ls="", marker="|", color=JIT_COLOR, label="JIT compilation in iteration"))
        axes[0].legend(handles=handles, loc="lower left", bbox_to_anchor=(0, 1.1), ncol=len(handles), borderaxespad=0)
    return _svg(fig, prefix, f"iteration series per fork of {', '.join(v.label for v in views)}")


def _instance_legend(ax, view: VersionView, styles: dict, color: str) -> None:
    """Which line style is which instance, for the instances this version ran on."""
    shown = sorted({f.instance: f.instance_name for f in view.forks}.items())
    handles = [Line2D([], [], color=color, lw=1, ls=styles.get(code, "-"), label=_short(name, 24))
               for code, name in shown[:_MAX_INSTANCE_NAMES]]
    if len(shown) > _MAX_INSTANCE_NAMES:
        handles.append(Line2D([], [], ls="", label=f"and {len(shown) - _MAX_INSTANCE_NAMES} more"))
    # An artist of its own: the panel's ax.legend() (the key above the first panel) stays free.
    ax.add_artist(Legend(ax, handles, [h.get_label() for h in handles], loc="upper right", title="instance", frameon=True,
                         framealpha=0.85, edgecolor="none", fontsize=7, title_fontsize=7, handlelength=2.6))


def _draw_forks(ax, view: VersionView, color: str, styles: dict | None = None) -> None:
    forks = view.forks
    if len(forks) > _MAX_LINES:
        chosen = np.linspace(0, len(forks) - 1, _MAX_LINES).round().astype(int)
        forks = tuple(forks[i] for i in chosen)
        ax.text(0.99, 0.97, f"{_MAX_LINES} of {len(view.forks)} forks shown", transform=ax.transAxes, ha="right", va="top")
    warmup = max((f.warmup for f in forks), default=0)
    if warmup:
        ax.axvspan(-0.5, warmup - 0.5, color=WARMUP_COLOR, lw=0, zorder=0)
    alpha = max(0.25, 0.9 / np.sqrt(max(len(forks), 1)))
    for fork in forks:
        x = np.arange(len(fork.values))
        # Lines only (markers for lone points): hundreds of markers per figure made up half
        # of a large report's size.
        ax.plot(x, fork.values, color=color, lw=0.9, alpha=alpha, marker="." if len(x) <= 2 else None, ms=3,
                ls=(styles or {}).get(fork.instance, "-"))
    starts = [(f.steady_start, f.values[f.steady_start]) for f in forks if f.steady_start is not None]
    if starts:
        ax.plot(*zip(*starts), ls="", marker="v", ms=5, color=STEADY_COLOR, zorder=4)
    # Events as rugs along the bottom (GC) and the top (JIT) of the panel: one tick per
    # iteration index, longer the more forks had the event in that iteration.
    for events, where, sign, color in (("gc", 0.0, 1, GC_COLOR), ("jit", 1.0, -1, JIT_COLOR)):
        hits = np.concatenate([getattr(f, events) for f in forks]) if forks else np.array([], dtype=int)
        if not len(hits):
            continue
        index, count = np.unique(hits, return_counts=True)
        length = 0.03 + 0.09 * count / len(forks)
        x = np.repeat(index, 3).astype(float)
        y = np.column_stack([np.full(len(index), where), where + sign * length, np.full(len(index), np.nan)]).ravel()
        ax.plot(x, y, color=color, lw=1.1, alpha=0.8, transform=ax.get_xaxis_transform(), clip_on=False)


def _mark_clipped(ax, view: VersionView, low: float, high: float, color: str) -> None:
    """A triangle on the axis edge at each warmup iteration whose value is beyond it."""
    for edge, marker, beyond in ((high, "^", np.greater), (low, "v", np.less)):
        index = [np.flatnonzero(beyond(f.values[:f.warmup], edge)) for f in view.forks]
        index = np.unique(np.concatenate(index)) if index else np.array([], dtype=int)
        if len(index):
            ax.plot(index, np.full(len(index), edge), ls="", marker=marker, ms=5, color=color, clip_on=False, zorder=5)


def distributions(case: CasePage, prefix: str) -> str:
    """A bean plot per version: the density of the measurement iterations, every fork mean
    as a dot, and the mean as a bar."""
    views = case.versions
    with matplotlib.rc_context(_STYLE):
        fig = _figure(3.5, 2.9, bottom=0.35)
        ax = fig.add_subplot()
        _compact(ax.yaxis)
        positions = np.arange(len(views))
        for position, view in zip(positions, views):
            color = _color(int(position))
            values = view.values[np.isfinite(view.values)]
            if len(values) > 1 and np.ptp(values) > 0:
                parts = ax.violinplot([values], [position], widths=0.8, showextrema=False)
                for body in parts["bodies"]:
                    body.set_facecolor(color)
                    body.set_alpha(0.3)
                    body.set_edgecolor(color)
            jitter = np.random.default_rng(int(position)).uniform(-0.12, 0.12, len(view.fork_means))
            ax.plot(position + jitter, view.fork_means, ls="", marker="o", ms=3.5, color=color, mec="white", mew=0.4)
            ax.hlines(view.analysis.mean.estimate, position - 0.3, position + 0.3, color=STEADY_COLOR, lw=1.4)
        ax.set_xticks(positions, [_short(v.label) for v in views])
        ax.set_xlim(-0.6, len(views) - 0.4)
        ax.set_ylabel(case.metric.unit)
        ax.set_title("distribution; dots: fork means, bar: mean", loc="left")
    return _svg(fig, prefix, f"distribution of {', '.join(v.label for v in views)} with fork means")


def ratio_distribution(case: CasePage, settings: Settings, prefix: str) -> str | None:
    """The bootstrap distribution of contender/baseline as a % change, its CI and the band
    of changes too small to matter."""
    c = case.comparison
    if c is None or c.distribution is None or not np.isfinite(c.ratio.estimate):
        return None
    change = (np.asarray(c.distribution) - 1.0) * 100.0
    change = change[np.isfinite(change)]
    with matplotlib.rc_context(_STYLE):
        fig = _figure(3.5, 3.0, left=0.15, bottom=1.05)
        ax = fig.add_subplot()
        band = settings.threshold * 100.0
        ax.axvspan(-band, band, color="#dddddd", lw=0, label=f"within +-{band:g}%")
        ax.hist(change, bins=60, histtype="stepfilled", color=_color(1), alpha=0.55, label="bootstrap ratios")
        low, high = (c.ratio.low - 1) * 100, (c.ratio.high - 1) * 100
        ax.axvline(low, color=STEADY_COLOR, ls="--", lw=1, label=f"{settings.confidence:.0%} CI ({settings.interval})")
        ax.axvline(high, color=STEADY_COLOR, ls="--", lw=1)
        ax.axvline(c.change_pct, color=STEADY_COLOR, lw=1.4, label=f"estimate {c.change_pct:+.1f}%")
        ax.axvline(0, color="#888888", lw=0.6)
        better = "higher is better" if c.metric.higher_is_better else "lower is better"
        ax.set_xlabel(f"% change of the {settings.statistic} ({better})")
        ax.set_yticks([])
        ax.set_title(f"{case.versions[1].label} vs {case.versions[0].label}: {c.verdict.value}", loc="left")
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.3), ncol=2, borderaxespad=0)
    return _svg(fig, prefix, f"bootstrap distribution of the change, {c.verdict.value}")


def allocation(case: CasePage, prefix: str) -> str | None:
    """Allocation per operation (JMH -prof gc) per version: fork means and their mean."""
    views = [v for v in case.versions if v.alloc_fork_means is not None]
    if not views:
        return None
    unit = case.versions[0].analysis.alloc.unit if case.versions[0].analysis.alloc else "B/op"
    with matplotlib.rc_context(_STYLE):
        widest = max(len(_short(v.label)) for v in case.versions)
        fig = _figure(3.5, 1.2 + 0.35 * len(case.versions), left=0.2 + 0.075 * widest)
        ax = fig.add_subplot()
        _compact(ax.xaxis)
        for position, view in enumerate(case.versions):
            if view.alloc_fork_means is None:
                continue
            y = np.full(len(view.alloc_fork_means), position) + np.random.default_rng(position).uniform(-0.15, 0.15, len(view.alloc_fork_means))
            ax.plot(view.alloc_fork_means, y, ls="", marker="o", ms=3.5, color=_color(position), mec="white", mew=0.4)
            ax.vlines(float(np.mean(view.alloc_fork_means)), position - 0.3, position + 0.3, color=STEADY_COLOR, lw=1.4)
        ax.set_yticks(range(len(case.versions)), [_short(v.label) for v in case.versions])
        ax.set_ylim(-0.6, len(case.versions) - 0.4)
        ax.set_xlabel(f"allocation per operation ({unit})")
        ax.set_title("allocation; dots: fork means, bar: mean", loc="left")
        low = min(float(np.min(v.alloc_fork_means)) for v in views)
        high = max(float(np.max(v.alloc_fork_means)) for v in views)
        if low >= 0:
            # From zero so that sizes compare at a glance, with room for the dots at the top end.
            ax.set_xlim(0, high * 1.08 if high > 0 else 1)
    return _svg(fig, prefix, "allocation per operation by version")


def scaling(group: ScalingGroup, prefix: str) -> str:
    """Mean against the parameter on log-log axes with CI error bars and the fitted power law."""
    with matplotlib.rc_context(_STYLE):
        fig = _figure(4.6, 3.2, left=0.8, bottom=0.5)
        ax = fig.add_subplot()
        for position, line in enumerate(group.lines):
            x, y = np.array(line.x), np.array(line.mean)
            err = np.vstack([y - np.array(line.low), np.array(line.high) - y]).clip(min=0)
            color = _color(position)
            fitted = line.exponent is not None
            ax.errorbar(x, y, yerr=err, ls="" if fitted else ":", marker="o", ms=4, capsize=3, color=color,
                        label=f"{_short(line.label)}: exponent {line.exponent:.2f}" if fitted else _short(line.label))
            if fitted:
                grid = np.geomspace(x.min(), x.max(), 50)
                ax.plot(grid, np.exp(line.intercept) * grid ** line.exponent, color=color, ls="--", lw=0.9)
        for axis, values in ((ax.xaxis, [x for line in group.lines for x in line.x]),
                             (ax.yaxis, [v for line in group.lines for v in line.low + line.high])):
            _log_axis(ax, axis, values)
        ax.set_xlabel(group.parameter)
        ax.set_ylabel(group.metric.unit)
        ax.set_title("log-log; dashed: least-squares power law", loc="left")
        ax.legend(loc="best")
    return _svg(fig, prefix, f"{group.metric.unit} against {group.parameter} on log-log axes")


def _log_axis(ax, axis, values) -> None:
    """A log scale labelled with plain numbers (1000, not TeX's 10^3: math text is off so
    that labels from the data are never parsed), minor labels only within one decade."""
    (ax.set_xscale if axis is ax.xaxis else ax.set_yscale)("log")
    plain = ticker.FuncFormatter(lambda v, _: f"{v:g}")
    axis.set_major_formatter(plain)
    positive = [v for v in values if v > 0]
    narrow = positive and max(positive) / min(positive) < 10
    axis.set_minor_formatter(plain if narrow else ticker.NullFormatter())


def _short(label: str, limit: int = 18) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def case_figures(case: CasePage, settings: Settings) -> list[tuple[str, str]]:
    """All figures of one case as (kind, svg), in reading order."""
    figures = [("iterations", iteration_series(case, f"{case.anchor}i")), ("distribution", distributions(case, f"{case.anchor}d"))]
    ratio = ratio_distribution(case, settings, f"{case.anchor}r")
    if ratio is not None:
        figures.append(("ratio", ratio))
    alloc = allocation(case, f"{case.anchor}a")
    if alloc is not None:
        figures.append(("allocation", alloc))
    return figures


# Below this many cases, starting worker processes costs more than drawing in this one.
_MIN_PARALLEL_CASES = 16


def _workers() -> int:
    return usable_cpus()


def all_case_figures(cases: Sequence[CasePage], settings: Settings) -> Iterator[list[tuple[str, str]]]:
    """The figures of every case, in order. matplotlib draws in one thread per process, so
    large suites are drawn by a pool of processes, one per CPU (1.8x faster on 2 CPUs)."""
    workers = min(_workers(), len(cases) // (_MIN_PARALLEL_CASES // 2) or 1)
    if len(cases) < _MIN_PARALLEL_CASES or workers < 2:
        return (case_figures(case, settings) for case in cases)
    return parallel.ordered_map(_drawn, [(case, settings) for case in cases], workers, thread_fallback=False)


def _drawn(work: tuple[CasePage, Settings]) -> list[tuple[str, str]]:
    return case_figures(*work)
