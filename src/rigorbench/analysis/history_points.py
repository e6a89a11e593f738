"""History points: what a run or a result file adds to the per-commit history (issue 17).

A point is one benchmark case and metric at one commit of one branch on one kind of machine.
Its summary is computed once, when it is added: the mean of the measurement iterations and
its hierarchical bootstrap CI at 95% (Kalibera & Jones; the project's bootstrap, over
instances, trials and forks), so that change-point detection reads stored numbers and never
resamples. A point from an Otava CSV keeps the file's number and, when the file has them, its
``METRIC.ci_low``/``METRIC.ci_high`` interval.

The kind of machine comes from the recorded environment: CPU model and count, OS and
architecture, memory (to the GiB, which a kernel's reservations do not change). Points of
different kinds are different series: a history never mixes them without saying so.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping, Sequence

from rigorbench import __version__
from rigorbench.analysis.dataset import Dataset, dataset_from_store, iteration_observations
from rigorbench.analysis.history import CI_CONFIDENCE
from rigorbench.analysis.settings import DEFAULT_SEED
from rigorbench.errors import UserError
from rigorbench.formats.history_csv import HistorySeries
from rigorbench.model import BenchmarkCase, Metric, ResultFile, Series
from rigorbench.stats import hierarchical_bootstrap
from rigorbench.store import ResultStore
from rigorbench.store.location import masked
from rigorbench.store.api import Execution, HistoryPoint, TrialRecord, VersionInfo

CONFIDENCE = 0.95            # of each point's CI
RESAMPLES = 10_000
UNKNOWN_MACHINE = "unknown"
CSV_HARNESS = "otava-csv"    # the harness of benchmark cases imported from a CSV history
_COMMIT = re.compile(r"[0-9A-Za-z][0-9A-Za-z._/+@:~^-]{0,199}")


@dataclass(frozen=True)
class PointOrigin:
    """Where points sit in the history: the commit, its time (ISO 8601, UTC), the branch
    ('' when none), whether the tree was dirty, and a machine kind given by the user."""

    commit: str
    time: str
    branch: str = ""
    dirty: bool | None = None
    machine: str | None = None


def check_commit(text: str) -> str:
    """A commit name as the history stores it; UserError for one that cannot be (blank,
    spaces, control characters, overlong)."""
    if not _COMMIT.fullmatch(text or ""):
        raise UserError(f"--commit {text[:60]!r}: not a commit name (letters, digits and ._/+@:~^-, up to 200)")
    return text


def parse_time(text: str, option: str = "--time") -> str:
    """An ISO 8601 date or time as UTC ISO 8601 (a time without zone is UTC)."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UserError(f"{option} {text[:60]!r}: not an ISO 8601 date or time (e.g. 2026-11-24T21:00:00Z)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds")


def machine_kind(environment: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """The kind of machine an environment describes, and the facts it was made of."""
    facts = {}
    for key in ("cpu_model", "cpu_count", "os", "arch"):
        value = str(environment.get(key) or "").strip()
        if value and value != "None":
            facts[key] = value
    mib = str(environment.get("memory_total_mib") or "")
    if mib.isdigit():
        facts["memory_gib"] = str(round(int(mib) / 1024))
    if not facts:
        return UNKNOWN_MACHINE, {}
    parts = [facts.get("cpu_model", ""), f"{facts['cpu_count']} CPUs" if "cpu_count" in facts else "",
             " ".join(facts[k] for k in ("os", "arch") if k in facts),
             f"{facts['memory_gib']} GiB" if "memory_gib" in facts else ""]
    return ", ".join(p for p in parts if p), facts


def points_of(data: Dataset, origin: PointOrigin, source: str, *, run_id: int | None = None,
              label: str | None = None, seed: int = DEFAULT_SEED) -> list[HistoryPoint]:
    """One point per benchmark case and metric of one version's data, summarised once."""
    environment = data.environments[0] if data.environments else {}
    kind, facts = (origin.machine, {}) if origin.machine else machine_kind(environment)
    points = []
    for (case, metric), table in data.series.items():
        observations = iteration_observations(table)
        values = observations.values
        if not len(values):
            continue
        if len(values) > 1:
            ci = hierarchical_bootstrap(values, observations.levels, statistic="mean", confidence=CONFIDENCE,
                                        resamples=RESAMPLES, seed=seed)
            mean, low, high = ci.estimate, ci.low, ci.high
        else:
            mean, low, high = float(values[0]), None, None
        points.append(HistoryPoint(
            case=case, metric=metric, branch=origin.branch, machine=kind, commit=origin.commit, time=origin.time,
            source=source, n=len(values), mean=float(mean), ci_low=low, ci_high=high,
            confidence=None if low is None else CONFIDENCE, dirty=origin.dirty, run_id=run_id, label=label,
            machine_facts=facts,
        ))
    if not points:
        raise UserError(f"{source}: no measured values to add to the history")
    return points


def points_of_csv(series: list[HistorySeries], source: str, confidence: float,
                  machine: str | None) -> list[HistoryPoint]:
    """The rows of an Otava CSV history as points: one per row and metric column, on the
    row's branch ('' when the file has no branch column)."""
    points = []
    for s in series:
        case = BenchmarkCase(CSV_HARNESS, s.benchmark)
        metric = Metric(s.metric, s.unit, s.higher_is_better, primary=True)
        for i, value in enumerate(s.values):
            low = s.ci_low[i] if s.ci_low is not None else None
            high = s.ci_high[i] if s.ci_high is not None else None
            points.append(HistoryPoint(
                case=case, metric=metric, branch=s.branches[i] if s.branches else "",
                machine=machine or UNKNOWN_MACHINE,
                commit=s.commits[i], time=parse_time(s.times[i]), source=source, n=1, mean=value,
                ci_low=low, ci_high=high, confidence=None if low is None else confidence,
            ))
    return points


def with_run(points: list[HistoryPoint], run_id: int, label: str) -> list[HistoryPoint]:
    """The points, now that the run holding their samples is stored."""
    return [replace(p, run_id=run_id, label=label) for p in points]


def _trials_per_file(files: list[ResultFile]) -> list[int]:
    """How many trials each file holds (as dataset_from_files numbers them, one after another)."""
    counts = []
    for result in files:
        highest = max((int(s.samples.trial.max()) for s in result.series if len(s.samples)), default=-1)
        counts.append(highest + 1)
    return counts


def store_files_as_run(store: ResultStore, files: list[ResultFile], data: Dataset, origin: PointOrigin,
                       digests: list[str] | None = None) -> int:
    """Keep imported result files' samples in the store: one finished run of one version
    (labelled with the commit), one execution per trial, each with its file's environment;
    ``digests``, the files' SHA-256 (sorted), let a copy of them be told apart later."""
    file_of_trial = [index for index, count in enumerate(_trials_per_file(files)) for _ in range(count)]
    label = data.label
    schedule = [Execution(trial, label, trial) for trial in range(len(file_of_trial))]
    harness = next((s.case.harness for f in files for s in f.series), files[0].format)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    run_id = store.create_run(
        harness=harness, project="(imported files)", order="sequential", seed=0,
        settings={"imported": [f.path for f in files], "imported_sha256": digests or [],
                  "history": {"commit": origin.commit, "branch": origin.branch, "time": origin.time}},
        versions=[VersionInfo(label, ", ".join(f.path for f in files), origin.commit, origin.dirty)],
        schedule=schedule, tool_version=__version__,
    )
    for execution in schedule:
        result = files[file_of_trial[execution.trial]]
        series = [Series(case, metric, table.select(table.trial == execution.trial))
                  for (case, metric), table in data.series.items()]
        store.record_execution(run_id, execution, TrialRecord(
            "done", now, now, 0.0, series, dict(result.environment), tuple(result.failures),
        ))
    store.finish_run(run_id, status="finished", wall_seconds=None, harness_seconds=None)
    return run_id


RECORD = "record"   # the command noted in a run's settings by 'rigorbench record'


def record_notes(origin: PointOrigin, label: str) -> dict:
    """What a 'record' run keeps in its settings, so that a resumed run adds its points
    where the first session would have: the command, and the points' origin and label."""
    return {"command": RECORD, "history": {"commit": origin.commit, "time": origin.time, "branch": origin.branch,
                                           "dirty": origin.dirty, "machine": origin.machine, "label": label}}


def recorded_origin(settings: Mapping, where: str) -> tuple[PointOrigin, str]:
    """The origin and version label a 'record' run noted (see :func:`record_notes`);
    UserError when the run is not one of record's."""
    noted = settings.get("history") if settings.get("command") == RECORD else None
    if not isinstance(noted, Mapping) or not all(isinstance(noted.get(k), str) for k in ("commit", "time", "label")):
        raise UserError(f"{where}: not a run of 'rigorbench record' (resume it with 'rigorbench ab --resume')")
    origin = PointOrigin(noted["commit"], noted["time"], str(noted.get("branch") or ""),
                         noted.get("dirty") if isinstance(noted.get("dirty"), bool) else None,
                         noted.get("machine") if isinstance(noted.get("machine"), str) else None)
    return origin, noted["label"]


def add_run_points(store: ResultStore, run_id: int, label: str, origin: PointOrigin,
                   seed: int = DEFAULT_SEED) -> tuple[list[HistoryPoint], bool]:
    """The points of version ``label`` of a finished run, added to the history unless the
    history has that run's points already (a resumed run adds them once); the points and
    whether they were added now."""
    points = points_of(dataset_from_store(store, run_id, label), origin, f"run {run_id} ({label})",
                       run_id=run_id, label=label, seed=seed)
    return points, store.add_points(points, once_for=(run_id, label)) > 0


def resolve_origin(commit: str, *, time: str | None, branch: str, repo: str | None, dirty: bool | None = None,
                   machine: str | None = None, git_repository: Callable[[Path], Path | None],
                   commit_facts: Callable[[Path, str], object], note: Callable[[str], None] | None = None) -> PointOrigin:
    """Where points go: ``commit`` looked up in git (its full id and time) where it can be.

    With ``repo``, the commit must be one of that repository's. Without, the current
    directory's repository is tried; a name it does not know is refused unless ``time``
    is given (then it is taken as named). Outside git the name is taken as it is, at
    ``time`` or now, and ``note`` is told so. ``git_repository`` and ``commit_facts`` read
    git (those of :mod:`rigorbench.experiment.versions`).
    """
    check_commit(commit)
    moment = parse_time(time) if time else None
    repository = git_repository(Path(repo or "."))
    if repo and repository is None:
        raise UserError(f"--repo {repo}: not in a git repository")
    if repository is not None:
        try:
            facts = commit_facts(repository, commit)
        except UserError:
            if repo or moment is None:
                raise UserError(f"--commit {commit}: not a commit of the git repository {repository} "
                                "(give --time T to store it under this name anyway)") from None
        else:
            commit, moment = facts.commit, moment or parse_time(facts.time, "the commit time")
    if moment is None:
        moment = datetime.now(timezone.utc).isoformat(timespec="seconds")
        if note is not None:
            note(f"{commit} is not looked up in git here; its points are at {moment} (now)")
    return PointOrigin(commit, moment, branch, dirty, machine)


def add_file_points(store_path: str, paths: Sequence[str], origin: PointOrigin) -> tuple[list[HistoryPoint], int]:
    """Result files (the trials of one version) as points at ``origin``, stored with their
    samples as a finished run: the points and that run's id. Points already in the history
    are refused before anything is stored (the store is opened once the files are read)."""
    from rigorbench.analysis.dataset import dataset_from_files
    from rigorbench.formats import read_result_file

    files = [read_result_file(path) for path in paths]
    data = dataset_from_files(files, origin.commit)
    points = points_of(data, origin, ", ".join(paths))
    digests = sorted(_sha256(path) for path in paths)
    with ResultStore.open(store_path) as store:
        store.add_points(points, dry_run=True)
        _refuse_same_content(store, digests, origin, paths)
        run_id = store_files_as_run(store, files, data, origin, digests)
        store.add_points(with_run(points, run_id, data.label))
    return points, run_id


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _refuse_same_content(store: ResultStore, digests: list[str], origin: PointOrigin, paths: Sequence[str]) -> None:
    """The same files, by content, already added at this commit and time (a copy in another
    folder, or the same file under another name): their points would count twice."""
    for run_id in store.run_ids():
        settings = store.run(run_id).settings
        noted = settings.get("history") if isinstance(settings.get("history"), Mapping) else {}
        if settings.get("imported_sha256") == digests and noted.get("commit") == origin.commit \
                and noted.get("time", origin.time) == origin.time:
            before = ", ".join(map(str, settings.get("imported") or ()))
            raise UserError(f"{', '.join(paths)}: the same files (by content) are in the history already, at commit "
                            f"{origin.commit} from run {run_id} ({before}); nothing was added")


def add_version_points(store_path: str, run_id: int, label: str | None, commit: str | None,
                       origin_of: Callable[[str, bool | None], PointOrigin]) -> tuple[list[HistoryPoint], PointOrigin, str]:
    """Version ``label`` (default: the run's only version) of a stored run as points at
    ``commit`` (default: the version's own, then dirty as it was), placed by
    ``origin_of(commit, dirty)``: the points, their origin and the version's label."""
    with ResultStore.open(store_path, create=False) as store:
        info = store.run(run_id)
        labels = [v.label for v in info.versions]
        chosen = label or (labels[0] if len(labels) == 1 else None)
        if chosen not in labels:
            which = f"no version {label!r}" if label else f"{len(labels)} versions"
            raise UserError(f"run {run_id} in {masked(store_path)} has {which}; name one with --label: {', '.join(labels)}")
        version = info.versions[labels.index(chosen)]
        if not (commit or version.commit):
            raise UserError(f"run {run_id}: version {chosen!r} has no git commit; give --commit")
        origin = origin_of(commit or version.commit, None if commit else version.dirty)
        points = points_of(dataset_from_store(store, run_id, chosen), origin, f"run {run_id} ({chosen})",
                           run_id=run_id, label=chosen)
        store.add_points(points)
    return points, origin, chosen


def import_csv_points(store_path: str, path: str, *, ci_confidence: float = CI_CONFIDENCE, machine: str | None = None,
                      **columns) -> tuple[list[HistoryPoint], list[HistorySeries], int]:
    """An Otava-style CSV history added to the store's history: the file's points, its series
    and how many of the points were in the history already (the same series, commit and time,
    imported before from this file or a copy of it: left out, not doubled); ``ci_confidence``
    is that of its METRIC.ci_low/ci_high columns;
    ``columns``: ``time_column``, ``commit_column``, ``metrics``, ``higher_is_better``, ``lower_is_better``,
    ``branch``, ``since`` (:func:`rigorbench.formats.history_csv.read_history_csv`)."""
    from rigorbench.formats.history_csv import read_history_csv

    series = read_history_csv(path, **columns)
    points = points_of_csv(series, path, ci_confidence, machine)
    if not points:
        raise UserError(f"{path}: no metric column with numbers")
    with ResultStore.open(store_path) as store:
        added = store.add_points(points, skip_stored=True)
    return points, series, len(points) - added
