"""The report's series as plain text for other plotting tools.

Sestoft (``shared/reference/003``, sections 8-9) prints results as whitespace-separated
columns with ``#`` comment lines identifying the platform, so that gnuplot can plot them
directly (``plot 'f.dat' using 1:2:3:4 with yerrorbars``). ``--data-dir`` writes that form,
one file per benchmark case and per scaling group; ``--format csv`` writes every iteration
series as one CSV table for spreadsheets and data frames.

Text from the data (benchmark names, labels, environment values) only ever appears in
comment lines, with line breaks and control characters replaced, so it cannot add rows or
columns; file names are built from a counter and a sanitized name.
"""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

from rigorbench.analysis.report import GC_EVENT, JIT_EVENT, CasePage, ReportPage, ScalingGroup
from rigorbench.files import safe_name, write_files
from rigorbench.report.documents import csv_safe

SERIES_COLUMNS = (
    "version", "benchmark", "params", "metric", "unit", "instance", "trial", "fork", "index", "warmup", "value", "gc", "jit",
)


def _comment(text: object) -> str:
    return re.sub(r"[\x00-\x1f\x7f]", "?", str(text))


def _g(value: float) -> str:
    return repr(float(value)) if value == value else "NaN"


def render_series_csv(report: ReportPage) -> str:
    """Every fork's iteration series (warmup included, in the order taken), one row per
    iteration: the data the iteration plots show."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(SERIES_COLUMNS)
    for case in report.cases:
        params = ";".join(f"{k}={v}" for k, v in case.case.params)
        for view in case.versions:
            for fork in view.forks:
                gc, jit = set(fork.gc.tolist()), set(fork.jit.tolist())
                for index, value in enumerate(fork.values):
                    writer.writerow([
                        csv_safe(view.label), csv_safe(case.case.name), csv_safe(params), case.metric.name,
                        case.metric.unit, fork.instance, fork.trial, fork.fork, index, int(index < fork.warmup),
                        _g(value), _flag(index, gc, GC_EVENT in view.events_recorded),
                        _flag(index, jit, JIT_EVENT in view.events_recorded),
                    ])
    return buffer.getvalue()


def _flag(index: int, hits: set[int], recorded: bool) -> str:
    return str(int(index in hits)) if recorded else ""


def _slug(number: int, name: str) -> str:
    return f"{number:03d}-" + safe_name(name, fallback="")


def _header(report: ReportPage, title: str) -> list[str]:
    """The title and, as Sestoft asks, the platform: the first trial's recorded environment."""
    lines = [f"# {_comment(title)}"]
    for label, environments in report.environments.items():
        first = environments[0] if environments else {}
        lines += [f"# {_comment(label)} {_comment(key)}: {_comment(value)}" for key, value in sorted(first.items())]
    return lines


def case_data(report: ReportPage, case: CasePage) -> str:
    """Blocks per fork (one blank line apart) and per version (two blank lines: gnuplot's
    ``index 0`` is the first version)."""
    lines = _header(report, case.case.display_name)
    lines.append(f"# metric {_comment(case.metric.name)} in {_comment(case.metric.unit)}")
    if case.comparison is not None:
        c = case.comparison
        lines.append(f"# change {c.change_pct:+.3f}% CI [{(c.ratio.low - 1) * 100:+.3f}%, {(c.ratio.high - 1) * 100:+.3f}%] {c.verdict.value}")
    lines.append("# columns: iteration value warmup(0/1) gc(0/1) jit(0/1); one block per fork")
    blocks = []
    for position, view in enumerate(case.versions):
        b = view.analysis
        version = [f"# index {position}: version {_comment(view.label)}: mean {_g(b.mean.estimate)} CI [{_g(b.mean.low)}, {_g(b.mean.high)}]"]
        forks = []
        for fork in view.forks:
            gc, jit = set(fork.gc.tolist()), set(fork.jit.tolist())
            rows = [f"# {fork.label}"] + [
                f"{i} {_g(v)} {int(i < fork.warmup)} {int(i in gc)} {int(i in jit)}" for i, v in enumerate(fork.values)
            ]
            forks.append("\n".join(rows))
        blocks.append("\n".join(version) + "\n" + "\n\n".join(forks))
    return "\n".join(lines) + "\n" + "\n\n\n".join(blocks) + "\n"


def scaling_data(report: ReportPage, group: ScalingGroup) -> str:
    """``x mean ci_low ci_high`` per version, for ``using 1:2:3:4 with yerrorbars``."""
    lines = _header(report, f"{group.title} over {group.parameter}")
    lines.append(f"# metric {_comment(group.metric.name)} in {_comment(group.metric.unit)}")
    lines.append(f"# columns: {_comment(group.parameter)} mean ci_low ci_high; one block per version")
    blocks = []
    for position, line in enumerate(group.lines):
        growth = f"growth exponent {line.exponent:.4f}" if line.exponent is not None else f"no growth exponent ({len(line.x)} values)"
        rows = [f"# index {position}: version {_comment(line.label)}: {growth}"]
        rows += [f"{_g(x)} {_g(m)} {_g(lo)} {_g(hi)}" for x, m, lo, hi in zip(line.x, line.mean, line.low, line.high)]
        blocks.append("\n".join(rows))
    return "\n".join(lines) + "\n" + "\n\n\n".join(blocks) + "\n"


def write_data_dir(report: ReportPage, directory: str | os.PathLike) -> list[Path]:
    """Write one ``.dat`` file per case and per scaling group, and an index; returns the paths."""
    out = Path(directory)
    files: dict[Path, str] = {}
    index = ["# file benchmark"]
    for number, case in enumerate(report.cases, 1):
        path = out / f"{_slug(number, case.case.display_name)}.dat"
        files[path] = case_data(report, case)
        index.append(f"{path.name} {_comment(case.case.display_name)}")
    for number, group in enumerate(report.scaling, 1):
        path = out / f"scaling-{_slug(number, group.title + '-' + group.parameter)}.dat"
        files[path] = scaling_data(report, group)
        index.append(f"{path.name} {_comment(group.title)} over {_comment(group.parameter)}")
    files[out / "index.txt"] = "\n".join(index) + "\n"
    write_files(out, files)
    return list(files)
