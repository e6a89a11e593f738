"""The ``--list`` / ``rigorbench list`` text: what each version has, what runs, and how long."""

from __future__ import annotations

from rigorbench.experiment.selection import FORK_OVERHEAD_S, Selection, cases_in, estimated_seconds
from rigorbench.harness.base import RunSettings
from rigorbench.report.table import Table, layout_text
from rigorbench.terminal import printable_lines
from rigorbench.units import format_duration


def _params(params, settings: RunSettings) -> str:
    """The values that will run: ``--param`` overrides marked with ``*``."""
    overrides = dict(settings.params)
    return " ".join(
        f"{name}={{{overrides[name].replace(',', ', ')}}}*" if name in overrides else f"{name}={{{', '.join(values)}}}"
        for name, values in params
    )


def render_selection(selection: Selection, settings: RunSettings, trials: int) -> str:
    """The benchmarks and @Param values per version (``list``), those only some versions
    have, and how long ``trials`` trials of ``settings`` would take."""
    labels = selection.labels
    names = sorted({*selection.common, *selection.partial})
    rows = []
    for name in names:
        having = selection.partial.get(name, labels)
        note = ""
        if name in selection.partial:
            note = f"only in {', '.join(having)}: not run" if len(labels) > 1 else ""
        elif name in selection.param_differences:
            note = f"params differ: {selection.param_differences[name]}"
        rows.append((name, _params(selection.params[name], settings), *("yes" if l in having else "-" for l in labels), note))
    lines = layout_text(Table.of(["benchmark", "@Param values", *labels, ""], rows))
    total_cases = cases_in(selection, settings)
    selected = f" matching {' '.join(settings.include)}" if settings.include else ""
    n = len(selection.common)
    summary = f"{n} benchmark{'s' if n != 1 else ''}{selected} ({total_cases} case{'s' if total_cases != 1 else ''})"
    if len(labels) > 1:
        summary += f" in every version; {len(selection.partial)} only in some (not run)"
    lines += [""] + (["* set by --param"] if settings.params else []) + [summary]
    if selection.common:
        lines.append(
            f"a run with these settings: {trials} trial{'s' if trials != 1 else ''} x {len(labels)} version{'s' if len(labels) != 1 else ''} x {total_cases} case{'s' if total_cases != 1 else ''} x "
            f"{settings.forks} forks x ({settings.warmup_iterations} x {settings.warmup_time} warmup + "
            f"{settings.iterations} x {settings.iteration_time} + ~{FORK_OVERHEAD_S:.0f} s JVM) = about "
            f"{format_duration(estimated_seconds(selection, settings, trials))}"
        )
        lines.append("shorten it with --bench REGEX, --param NAME=VALUE, fewer --trials, --forks or --iterations, or a shorter --iteration-time")
    return printable_lines(lines)
