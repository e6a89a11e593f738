"""``lint --measure``: run each fixable finding's benchmark as it is and as ``--fix`` writes it.

Costa et al. 2019 (RQ2) measured what fixing bad practices changes. Here the project is
copied twice into one temporary folder, ``original/`` and ``fixed/`` (worktrees of HEAD, as
``ab`` checks out a revision, when the project's files are all committed, so a multi-module build works and the
original's clean commit can come from the build cache; a plain copy of the project folder
otherwise); every applied fix is written into ``fixed/``. Then one RMIT A/B run of the two,
with ``ab``'s builds, driver, store and comparison, restricted to the benchmarks that have a
measured finding, and each finding's impact read from its benchmark's comparison
(:mod:`rigorbench.analysis.impact`). Several findings in one benchmark are all fixed in the
one fixed variant, so they share one measured effect (``Impact.shared``).

The temporary folder (and its worktrees) is removed however the command ends: success, an
error, or Ctrl-C. Without a store the run is kept in a temporary one; with one, the run stays
there (``original`` vs ``fixed``) for ``compare --store``, but cannot be resumed: its copies
are gone.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator

from rigorbench.analysis.compare import ComparisonResult, compare_datasets
from rigorbench.analysis.dataset import dataset_from_store
from rigorbench.analysis.impact import finding_impact, not_measured, unmeasured_reason
from rigorbench.analysis.settings import Settings
from rigorbench.analysis.stopping import final_settings
from rigorbench.errors import Interrupted, UserError
from rigorbench.experiment.plan import ExperimentPlan, VersionSpec
from rigorbench.experiment.progress import Reporter, format_duration
from rigorbench.experiment.versions import _git, checkout_revision, git_repository, remove_worktree
from rigorbench.harness.base import BuildSpec, RunSettings
from rigorbench.harness.jmh_layout import plan_build
from rigorbench.lint import RULES, fix_findings
from rigorbench.lint.fix import FileFix, write_fixed
from rigorbench.lint.index import package_of
from rigorbench.lint.parse import parse
from rigorbench.model import Finding, Impact, Measurement
from rigorbench.store import ResultStore

ORIGINAL, FIXED = "original", "fixed"
# Build output and tool folders a plain copy leaves out (they are rebuilt, or not needed).
NOT_COPIED = ("target", "build", ".git", ".gradle", ".rigorbench", ".idea", ".venv")


@dataclass(frozen=True)
class MeasureRequest:
    """What to measure and how: the linted ``project`` folder, the run settings of every
    trial (``ab --quick``'s by default), trials and seed, how to build, the user's
    ``--bench`` regexes (matched against each finding's ``package.Class.method``), the
    comparison's settings and the store to keep the run in (None: a temporary one)."""

    project: str
    settings: RunSettings
    trials: int
    seed: int
    analysis: Settings
    build: BuildSpec = BuildSpec()
    bench: tuple[str, ...] = ()
    store: str | None = None


@dataclass(frozen=True)
class Target:
    """One benchmark to measure: its name as lint sees it (``package.Class.method``), the
    JMH include regex that selects it, and its findings (all fixed in the fixed variant)."""

    name: str
    pattern: str
    findings: tuple[Finding, ...]


# Runs the A/B of ``plan`` into ``store`` and compares fixed with original (tests pass a fake).
Runner = Callable[[ExperimentPlan, ResultStore, Reporter, Settings, bool], tuple[int, ComparisonResult]]


def measure_findings(result, request: MeasureRequest, reporter: Reporter, runner: Runner | None = None) -> Measurement:
    """Measure the fixable findings of ``result`` (a lint of ``request.project``)."""
    fixes = fix_findings(result)
    impacts, targets = plan_targets(result, fixes, request)
    measurement = Measurement(impacts, request.trials, request.analysis.threshold, request.analysis.confidence)
    if not targets:
        return measurement
    plan_build(Path(request.project), request.build)   # not a buildable project: one line, before copying
    shown = f"{len(targets)} benchmark{'s' if len(targets) != 1 else ''}"
    found = sum(len(t.findings) for t in targets)
    reporter.message(f"measuring {found} fixable finding{'s' if found != 1 else ''} in {shown}: {ORIGINAL} vs {FIXED} "
                     f"(the --fix rewrite), {request.trials} randomized trials")
    with measured_copies(Path(request.project), fixes) as (original, fixed, scratch):
        store_path = request.store or str(scratch / "results.db")
        settings = replace(request.settings, include=tuple(t.pattern for t in targets))
        plan = ExperimentPlan(str(scratch), "jmh", (VersionSpec(ORIGINAL, str(original), request.build),
                                                    VersionSpec(FIXED, str(fixed), request.build)),
                              request.trials, "rmit", request.seed, settings, notes={"command": "lint --measure"})
        with ResultStore.open(store_path) as store:
            try:
                run_id, comparison = (runner or run_pair)(plan, store, reporter, request.analysis, request.store is not None)
            except Interrupted:
                kept = f"; what finished is in {request.store}" if request.store else ""
                raise Interrupted(f"interrupted; the temporary copies are removed{kept} (a measurement cannot be "
                                  "resumed: run lint --measure again)") from None
    for target in targets:
        pattern = re.compile(target.pattern)
        compared = [c for c in comparison.comparisons if c.metric.primary and pattern.search(c.case.name)]
        for finding in target.findings:
            impacts[finding] = finding_impact(target.name, RULES[finding.rule].fix_effect, compared, len(target.findings))
    return replace(measurement, impacts=impacts, run_id=run_id if request.store else None, store=request.store)


def plan_targets(result, fixes: list[FileFix], request: MeasureRequest) -> tuple[dict[Finding, Impact], list[Target]]:
    """The findings that cannot be measured (with why) and the benchmarks to run for the others."""
    applied = {f for fix in fixes for f in fix.findings}
    packages = {fix.path: package_of(parse(fix.path, fix.original.encode("utf-8"))) for fix in fixes}
    bench = _patterns(request.bench)
    impacts: dict[Finding, Impact] = {}
    grouped: dict[str, list[Finding]] = {}
    for finding in result.findings:
        reason = _unmeasurable(finding, applied)
        name = ".".join(p for p in (packages.get(finding.path, ""), finding.benchmark) if p)
        if reason is None and bench and not any(p.search(name) for p in bench):
            reason = "not selected by --bench"
        if reason is not None:
            impacts[finding] = not_measured(reason)
        else:
            grouped.setdefault(name, []).append(finding)
    targets = [Target(name, include_pattern(name, found[0].benchmark), tuple(found)) for name, found in grouped.items()]
    return impacts, targets


def _unmeasurable(finding: Finding, applied: set[Finding]) -> str | None:
    rule = RULES[finding.rule]
    if not finding.fixable:
        return "not fixable by --fix"
    if rule.language != "java":
        return "lint --measure runs JMH benchmarks; Go benchmarks are not measured"
    if not rule.fix_effect:
        return unmeasured_reason(rule)
    if not finding.benchmark:
        return "not inside a benchmark method"
    if finding not in applied:
        return "its fix overlaps another finding's and was not applied (run --fix, then lint --measure again)"
    return None


def include_pattern(name: str, benchmark: str) -> str:
    """A JMH include regex (valid in Java and Python) for the benchmark lint calls ``name``
    (``package.Class.method``); outer classes may stand between the package and a nested
    class, as JMH names them."""
    package = name[:-len(benchmark)].rstrip(".")
    cls, _, method = benchmark.rpartition(".")
    prefix = re.escape(package) + r"\." if package else ""
    return f"^{prefix}(?:[\\w$]+[.$])*{re.escape(cls)}\\.{re.escape(method)}$"


def _patterns(regexes: tuple[str, ...]) -> list[re.Pattern]:
    compiled = []
    for text in regexes:
        try:
            compiled.append(re.compile(text))
        except re.error as error:
            raise UserError(f"--bench: {text!r} is not a regular expression: {error}") from None
    return compiled


@contextlib.contextmanager
def measured_copies(project: Path, fixes: list[FileFix]) -> Iterator[tuple[Path, Path, Path]]:
    """``(original project, fixed project, scratch folder)``: two copies of ``project``, the
    fixes written into the second; all removed on the way out, however it is left."""
    if not project.is_dir():
        raise UserError(f"{project}: lint --measure needs the benchmark project's folder")
    committed = is_committed(project)
    scratch = Path(tempfile.mkdtemp(prefix="rigorbench-measure-"))
    worktrees: list[Path] = []
    try:
        copies = []
        for side in (ORIGINAL, FIXED):
            if committed:
                prepared = checkout_revision(project, VersionSpec(side, "HEAD"), scratch)
                worktrees.append(prepared.worktree)
                copies.append(prepared.project_dir)
            else:
                copies.append(Path(shutil.copytree(project, scratch / side / project.resolve().name,
                                                   ignore=shutil.ignore_patterns(*NOT_COPIED))))
        for fix in fixes:
            write_fixed(str(copies[1] / os.path.relpath(fix.path, project)), fix.fixed)
        yield copies[0], copies[1], scratch
    finally:
        for worktree in worktrees:
            remove_worktree(project, worktree)
        shutil.rmtree(scratch, ignore_errors=True)


def is_committed(project: Path) -> bool:
    """Is ``project`` in a git repository with every one of its files committed (nothing
    modified or untracked)? Then its copies are worktrees of HEAD; else plain copies."""
    if git_repository(project) is None:
        return False
    status = _git(["status", "--porcelain", "--untracked-files=all", "--", "."], project)
    return status.returncode == 0 and not status.stdout.strip()


def run_pair(plan: ExperimentPlan, store: ResultStore, reporter: Reporter, settings: Settings,
             build_cache: bool) -> tuple[int, ComparisonResult]:
    """The A/B run of ``plan`` on this machine, as ``ab`` runs it, and fixed compared with original."""
    from rigorbench.experiment.driver import start_experiment
    from rigorbench.experiment.executor import LocalExecutor
    from rigorbench.harness import get_harness

    executor = LocalExecutor(get_harness(plan.harness), reporter, plan.order)
    result = start_experiment(plan, store, reporter, executor, None, build_cache)
    reporter.close()
    reporter.message(f"run {result.run_id}: {result.executed} executions in {format_duration(result.wall_seconds)} "
                     f"({result.failed} failed)")
    settings, _ = final_settings(store.run(result.run_id).setup, settings)
    original = dataset_from_store(store, result.run_id, ORIGINAL)
    return result.run_id, compare_datasets(original, dataset_from_store(store, result.run_id, FIXED), settings)
