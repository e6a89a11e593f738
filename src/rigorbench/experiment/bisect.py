"""Run a bisection: the commits between good and bad, and one A/B experiment per probe.

Each probe is an ordinary stored run of two versions, good and the probed commit, run as
randomized interleaved trials (RMIT), so ``rigorbench runs`` lists it and ``compare --store``
compares it again. Good is built once for the whole bisection and each probed commit once
(their builds also go to the build cache next to the store, so a second bisection of the same
range builds nothing). A probe starts with the first look's trials; while its verdict is
undecided, trials are added to the same run up to the budget (analysis/bisect.py says how
the looks share the confidence). Git is called with argument lists only.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from rigorbench import __version__
from rigorbench.analysis.bisect import Bisection, Commit, Decision, Direction, Probe, decide_probe, looks, search
from rigorbench.analysis.compare import compare_datasets
from rigorbench.analysis.dataset import dataset_from_store
from rigorbench.analysis.settings import Settings
from rigorbench.errors import Interrupted, UserError
from rigorbench.analysis.stopping import ProbeLooks, rule_from_dict
from rigorbench.experiment.driver import complete_trials, drive
from rigorbench.experiment.executor import Executor, LocalExecutor
from rigorbench.experiment.plan import VersionSpec
from rigorbench.experiment.prepare import build_cache_dir, built_versions, list_selection
from rigorbench.experiment.progress import Reporter
from rigorbench.experiment.selection import cases, cases_in
from rigorbench.experiment.trial import now_iso
from rigorbench.experiment.warmup import describe, run_pilots
from rigorbench.experiment.versions import _git
from rigorbench.harness import get_harness
from rigorbench.harness.base import BuildSpec, RunSettings
from rigorbench.store import ResultStore
from rigorbench.store.api import SETUP_KEY, RunSetup
from rigorbench.terminal import printable
from rigorbench.units import format_duration

if TYPE_CHECKING:
    from rigorbench.experiment.address import ClusterOptions


@dataclass(frozen=True)
class BisectPlan:
    project: str
    good: str                       # as the user named them
    bad: str
    build: BuildSpec
    settings: RunSettings           # the harness settings; include holds --bench
    first_trials: int
    max_trials: int
    seed: int
    order: str = "rmit"
    harness: str = "jmh"            # a name of rigorbench.harness.HARNESSES
    pilot_warmup: int | None = None  # --warmup auto: each probe's pilot forks' warmup
    cluster: "ClusterOptions | None" = None   # --cluster: where the probes' trials run (the API's executor)
    find: Direction = Direction.SLOWER   # --find: the first slower commit, or the first faster

    def __post_init__(self) -> None:
        object.__setattr__(self, "find", Direction(self.find))   # the API may pass "faster"
        if self.first_trials < 1 or self.max_trials < self.first_trials:
            raise UserError(f"--max-trials ({self.max_trials}) must be at least --trials ({self.first_trials})")
        if self.settings.forks < 1:
            raise UserError("--forks must be at least 1")


# -- the commits ------------------------------------------------------------------------


def _revision(root: Path, name: str, option: str) -> str:
    found = None if name.startswith("-") else _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}"], root)
    if found is None or found.returncode != 0:
        raise UserError(f"{option} {name!r}: not a git revision of {root}")
    return found.stdout.strip()


def _log(root: Path, *args: str) -> list[Commit]:
    done = _git(["log", "--format=%H%x1f%P%x1f%s", *args], root)
    if done.returncode != 0:
        raise UserError(f"git log failed: {done.stderr.strip()}")
    commits = []
    for line in done.stdout.splitlines():
        sha, parents, subject = (line.split("\x1f", 2) + ["", ""])[:3]
        commits.append(Commit(sha, subject, parents.split()[0] if parents.split() else None))
    return commits


def commit_range(project: Path, good: str, bad: str) -> tuple[Commit, tuple[Commit, ...]]:
    """Good, and the commits good..bad on bad's first-parent chain, oldest first (the last
    is bad); a clear error when the range is empty or good is not on that chain."""
    top = _git(["rev-parse", "--show-toplevel"], project)
    if top.returncode != 0:
        raise UserError(f"{project}: not in a git repository; bisect needs the project's history")
    root = Path(top.stdout.strip())
    good_sha, bad_sha = _revision(root, good, "--good"), _revision(root, bad, "--bad")
    if good_sha == bad_sha:
        raise UserError(f"--good {good!r} and --bad {bad!r} are the same commit; nothing to bisect")
    if _git(["merge-base", "--is-ancestor", good_sha, bad_sha], root).returncode != 0:
        raise UserError(f"--good {good!r} is not an ancestor of --bad {bad!r}")
    commits = tuple(_log(root, "--first-parent", "--ancestry-path", "--reverse", f"{good_sha}..{bad_sha}"))
    chain = [good_sha, *(c.sha for c in commits)]
    if not commits or any(c.parent != before for c, before in zip(commits, chain)):
        raise UserError(
            f"--good {good!r} is not on the first-parent history of --bad {bad!r} (it was merged from a side branch); "
            "give a commit of that history, such as the merge that brought it in or its first parent"
        )
    return _log(root, "-1", good_sha)[0], commits


# -- the probes -------------------------------------------------------------------------


class _Prober:
    """Runs the probes of one bisection against good's build."""

    def __init__(self, plan: BisectPlan, settings: Settings, store: ResultStore, reporters: Callable[[], Reporter],
                 good: Commit, commits: tuple[Commit, ...], good_builds: dict, cache_dir: Path | None,
                 executor: Executor) -> None:
        self.plan, self.settings, self.store, self.reporters = plan, settings, store, reporters
        self.executor = executor
        self.good, self.commits, self.good_builds, self.cache_dir = good, commits, good_builds, cache_dir
        self.harness = get_harness(plan.harness)
        self.say = reporters().message
        self.looks = looks(plan.first_trials, plan.max_trials)
        self.find = plan.find
        self.tracked: frozenset | None = None    # the cases the premise found slower (faster): bisect.TrackedKey
        self.probes: list[Probe] = []
        self._earlier: list | None = None        # the store's runs of bisections made before this one

    def __call__(self, index: int) -> Decision:
        commit = self.commits[index]
        role = "premise: bad" if index == len(self.commits) - 1 else f"probe {len(self.probes)}"
        self.say(f"{role}: {commit.short} {printable(commit.subject, 60)} against good {self.good.short}")
        started = time.monotonic()
        spec = VersionSpec(commit.short, commit.sha, self.plan.build)
        with contextlib.ExitStack() as stack:
            try:   # a commit that does not build, or lacks the benchmark, is skipped (bad must not)
                built = stack.enter_context(built_versions(Path(self.plan.project), (spec,), self.harness,
                                                           self.reporters(), cache_dir=self.cache_dir))
                builds = {**self.good_builds, **built}
                selection = list_selection(builds, self.harness, self.plan.settings)
                if not selection.common:
                    raise UserError(f"no benchmark matching --bench is in both good and {commit.short}")
            except Interrupted:
                raise
            except UserError as error:
                if index == len(self.commits) - 1:
                    raise
                probe = Probe(index, Decision.UNTESTABLE, reason=str(error))
            else:
                probe = self._run(index, builds, selection)
        probe = replace(probe, seconds=time.monotonic() - started)
        self.probes.append(probe)
        self.say(f"{role}: {commit.short} {probe.decision.value} after {probe.trials} trials"
                 f" ({format_duration(probe.seconds)}){': ' + printable(probe.reason) if probe.reason else ''}")
        return probe.decision

    def _run(self, index: int, builds: dict, selection) -> Probe:
        """Trials of good and the commit, look by look (the run's :class:`ProbeLooks` rule),
        until the probe decides. A probe of this bisection already in the store (an earlier
        call that was interrupted, or finished) is taken up where it stopped."""
        labels = [self.good.short, self.commits[index].short]
        run_settings = self.plan.settings
        if selection.partial:
            run_settings = replace(run_settings, include=self.harness.exact_includes(selection.common, run_settings.include))
        seed = self.plan.seed + len(self.probes)
        self.executor.attach(builds, self.store.work_dir, {label: self.plan.build for label in labels}, self.plan.harness)
        rule = ProbeLooks(self.plan.first_trials, self.plan.max_trials, self.settings, self.find.value,
                          {n: cases(selection.params[n], run_settings) for n in selection.common},
                          None if self.tracked is None else tuple(sorted(self.tracked)))
        run_id = self._stored_probe(index, run_settings, rule)
        if run_id is None:
            run_id = self._create_run(index, labels, builds, run_settings, rule, seed)
        else:
            self.say(f"taking up the stored run {run_id} of this probe")
        self.executor.reporter = self.reporters()
        if self.store.run(run_id).status != "finished":
            drive(self.store, run_id, self.harness, self.executor, self.executor.reporter, cases_in(selection, run_settings))
        return self._decide(index, run_id, labels)

    def _bisect_facts(self, index: int) -> dict:
        return {"good": self.good.sha, "bad": self.commits[-1].sha, "commit": self.commits[index].sha, "find": self.find.value}

    def _stored_probe(self, index: int, run_settings: RunSettings, rule: ProbeLooks) -> int | None:
        """The newest stored run of this probe with the same settings, looks and tracked cases."""
        wanted, facts, settings = (_stored_form(x) for x in (rule.as_dict(), self._bisect_facts(index), run_settings.as_dict()))
        if self._earlier is None:   # the store's runs are read once per bisection, not once per probe
            self._earlier = [run for run in map(self.store.run, sorted(self.store.run_ids(), reverse=True))
                             if isinstance(run.settings.get("bisect"), dict)]
        for run in self._earlier:
            run_id, stored = run.run_id, run.setup.rule
            if (run.settings.get("bisect") == facts and run.settings.get("run") == settings
                    and stored.get("kind") == "probe"
                    and all(stored.get(key) == wanted[key] for key in ("first", "most", "analysis", "find", "benchmarks"))
                    and (self.tracked is None or stored.get("tracked") == wanted["tracked"])):
                return run_id
        return None

    def _create_run(self, index: int, labels: list[str], builds: dict, run_settings: RunSettings, rule: ProbeLooks,
                    seed: int) -> int:
        """The probe's run, planned for its first look (``--warmup auto``'s pilots first)."""
        warmups = None
        if self.plan.pilot_warmup is not None:
            work_root = self.store.work_dir / "runs" / f"pilot-{now_iso().replace(':', '')}"
            warmups = run_pilots(self.executor.pilot, labels, run_settings, list(rule.benchmarks), work_root, self.reporters(),
                                 self.harness, self.plan.pilot_warmup)
            for line in describe(warmups, self.plan.pilot_warmup):
                self.say(line)
        setup = RunSetup(self.executor.stored(), rule.as_dict(), warmups, self.plan.pilot_warmup)
        settings = {
            "run": run_settings.as_dict(), "trials": rule.first, "build": {label: self.plan.build.as_dict() for label in labels},
            "not_run": {}, "build_cache": self.cache_dir is not None, SETUP_KEY: setup.as_dict(),
            "bisect": self._bisect_facts(index),
        }
        return self.store.create_run(
            harness=self.plan.harness, project=str(self.plan.project), order=self.plan.order, seed=seed, settings=settings,
            versions=[builds[label][0].info for label in labels], schedule=self.executor.schedule(labels, 0, rule.first, seed, 0),
            tool_version=__version__,
        )

    def _decide(self, index: int, run_id: int, labels: list[str]) -> Probe:
        """The probe's decision from its stored run, as its last look made it (the premise
        sets the cases every later probe is decided on)."""
        run = self.store.run(run_id)
        rule = rule_from_dict(run.setup.rule)
        assert isinstance(rule, ProbeLooks), rule
        base, contender = (dataset_from_store(self.store, run_id, label) for label in labels)
        result = compare_datasets(base, contender, rule.look_settings)
        keys = None if rule.tracked is None else frozenset(rule.tracked)
        decision, found, keys = decide_probe(result, self.settings.threshold, self.find, keys)
        if self.tracked is None:
            self.tracked = keys
        reason = "the benchmark measured nothing in one of the versions (see 'rigorbench runs')" if not found else ""
        return Probe(index, decision, found, complete_trials(self.store, run), run_id, rule.per_look, reason=reason)


def _stored_form(value):
    """``value`` as the store gives it back (JSON: tuples become lists)."""
    return json.loads(json.dumps(value))


def run_bisection(
    plan: BisectPlan, settings: Settings, store: ResultStore, reporters: Callable[[], Reporter], build_cache: bool = True,
    commits: tuple[Commit, tuple[Commit, ...]] | None = None, executor: Executor | None = None,
) -> Bisection:
    """Bisect ``plan``'s range (``commits``: good and the range, when already read with
    :func:`commit_range`); every probe is stored in ``store`` as a run."""
    project = Path(plan.project)
    if not project.is_dir():
        raise UserError(f"{plan.project}: no such project directory")
    good, commits = commits or commit_range(project, plan.good, plan.bad)
    reporter = reporters()
    harness = get_harness(plan.harness)
    if plan.pilot_warmup is not None:
        harness.exact_includes(())   # refused where a harness cannot run a subset (pyperf)
    executor = executor or LocalExecutor(harness, reporter, plan.order)
    executor.check(plan.settings)
    looking = "" if plan.find is Direction.SLOWER else f"; looking for the first {plan.find.value} commit"
    reporter.message(f"bisect: {len(commits)} commits after good {good.short}, up to bad {commits[-1].short}{looking}")
    cache_dir = build_cache_dir(store) if build_cache else None
    spec = VersionSpec(good.short, good.sha, plan.build)
    with built_versions(project, (spec,), harness, reporter, cache_dir=cache_dir) as good_builds:
        listed = list_selection(good_builds, harness, plan.settings)
        if not listed.common:
            raise UserError(f"no benchmark matches --bench {' '.join(plan.settings.include)} at good {good.short}")
        prober = _Prober(plan, settings, store, reporters, good, commits, good_builds, cache_dir, executor)
        search(len(commits), prober)
    return Bisection(good, commits, tuple(prober.probes), settings, prober.looks, store.path, plan.find)
