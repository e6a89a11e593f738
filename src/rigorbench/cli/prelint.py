"""Lint each version's benchmark sources before ``ab`` / ``run`` build them, and grade the
findings by what the run measured once it is done.

A run takes minutes to hours; a benchmark whose result the JIT can remove wastes all of it.
The findings are printed with the progress (standard error); they stop the experiment only
with ``--strict``, and then before anything is built or stored. After the run, the findings
its times decide (:mod:`rigorbench.lint.grading`) are printed again with the measurement.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, MutableMapping

from rigorbench.cli.parser import LintFailed
from rigorbench.errors import UserError

if TYPE_CHECKING:
    from rigorbench.experiment.progress import Reporter


def _relative(path: str, root: Path) -> str:
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return path


def lint_before_build(reporter: "Reporter", strict: bool, collected: MutableMapping | None = None):
    """The ``before_build`` hook: lint one version's checked-out sources and report.

    ``collected`` receives each version's result (paths relative to its sources), for the
    HTML report."""
    from rigorbench import api

    def hook(label: str, source_dir: Path) -> None:
        result = api.lint([source_dir])
        if collected is not None:
            findings = tuple(replace(f, path=_relative(f.path, source_dir)) for f in result.findings)
            collected[label] = replace(result, findings=findings)
        for f in result.findings:
            reporter.message(f"lint {label}: {_relative(f.path, source_dir)}:{f.line}:{f.column}: {f.rule} [{f.severity}] {f.message}")
        advice = "; see 'rigorbench lint --explain RULE'" if result.findings else ""
        reporter.message(f"lint {label}: {api.summary_line(result)}{advice}")
        serious = [f for f in result.findings if f.severity >= api.Severity.WARNING]
        if strict and serious:
            raise LintFailed(
                f"version {label}: lint found {len(serious)} problem(s) in the benchmark sources; "
                "nothing was built or run (fix them, or drop --strict)"
            )

    return hook


def grade_after_run(store, run_id: int, collected: Mapping, say) -> dict:
    """Each version's lint result graded by its times in run ``run_id`` (for the HTML report);
    ``say`` gets one line per graded finding, as the lint lines before the build read. A
    version that cannot be graded keeps its findings as they were (the run and its comparison
    matter more than the grading), and ``say`` is told why."""
    from rigorbench import api

    graded = dict(collected)
    for label, result in collected.items():
        try:
            graded[label], _ = api.grade_lint(result, store, run_id, label)
        except UserError as error:
            say(f"lint {label}: findings not graded: {error}")
            continue
        for f in graded[label].findings:
            if f.measured is not None:
                say(f"lint {label}: {f.path}:{f.line}:{f.column}: {f.rule} [{f.severity}] measured {f.measured.reason}")
    return graded
