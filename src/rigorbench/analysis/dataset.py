"""One version's measurements, gathered from result files into the repetition hierarchy.

A result file of JMH or Go holds one trial (one harness invocation); several files given
for one side are several trials of that version (ARCHITECTURE.md, "Input formats"). Files
that carry their own trials and instances (``pa`` CSV) keep them, shifted so that codes
from different files never collide.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

import numpy as np

from rigorbench.analysis.comparability import check_side, unify_units
from rigorbench.analysis.duplicates import RunFingerprint, once_each
from rigorbench.errors import UserError
from rigorbench.formats import read_result_file
from rigorbench.model import BenchmarkCase, Diagnostic, Metric, ResultFile, SampleTable
from rigorbench.stats.outliers import extreme_outliers
from rigorbench.store.api import RunSetup

SeriesKey = tuple[BenchmarkCase, Metric]


@dataclass(frozen=True, eq=False)
class Dataset:
    """All series of one version, keyed by (benchmark case, metric), in first-seen order."""

    label: str
    series: Mapping[SeriesKey, SampleTable]
    sources: tuple[str, ...] = ()
    environments: tuple[Mapping[str, str], ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)
    # Benchmarks (or whole trials) the harness reported as failed, "what: why".
    failures: tuple[str, ...] = ()
    # "files" or "store": the run settings of result files are checked against the other
    # side's; a stored run's versions ran in one experiment (see analysis/comparability.py).
    origin: str = "files"
    # Names of the samples' instance codes (code i: instance_names[i]) when the run has them
    # (``--cluster``); otherwise instances are numbered.
    instance_names: tuple[str, ...] = ()
    # Per result file counted, what tells its run from others' (see analysis/duplicates.py).
    fingerprints: tuple[RunFingerprint, ...] = ()
    # The experiment whose trials ran every version together (an RMIT run in a store): two
    # datasets with the same non-empty value are compared paired, trial k with trial k.
    matched: str = ""

    @property
    def cases(self) -> list[BenchmarkCase]:
        return list(dict.fromkeys(case for case, _ in self.series))

    def metrics(self) -> list[Metric]:
        return list(dict.fromkeys(metric for _, metric in self.series))


def dataset_from_files(files: Iterable[ResultFile], label: str, note: Callable[[str], None] | None = None) -> Dataset:
    """Merge result files of one version: each file's trials follow the previous file's.

    A run given twice (the same file, a copy, its JSON and its log) counts once, and ``note``
    is told so (see :mod:`rigorbench.analysis.duplicates`). The files must be trials of one
    configuration (an input error names two that are not); units of one dimension are
    unified; a file missing benchmarks the others have is a warning (its trials are fewer for
    those benchmarks)."""
    files, fingerprints = once_each(list(files), note)
    check_side(files)
    tables: dict[SeriesKey, list[SampleTable]] = {}
    sources, environments, warnings, failures = [], [], list(_unbalanced(files)), []
    trial_offset = 0
    for result in files:
        versions = sorted({s.version for s in result.series if s.version is not None})
        if len(versions) > 1:
            raise UserError(
                f"{result.path}: holds results of {len(versions)} versions ({', '.join(versions)}); "
                "give one file per version"
            )
        highest = -1
        for series in result.series:
            samples = series.samples
            if len(samples):
                highest = max(highest, int(samples.trial.max()))
            shifted = samples.with_columns(trial=samples.trial + trial_offset)
            tables.setdefault((series.case, series.metric), []).append(shifted)
        trial_offset += highest + 1
        sources.append(result.path)
        environments.append(dict(result.environment))
        warnings.extend(f"{result.path}: {w}" for w in result.warnings)
        failures.extend(result.failures)
    merged = unify_units({key: SampleTable.concat(parts) for key, parts in tables.items()})
    return Dataset(label, merged, tuple(sources), tuple(environments), tuple(warnings), tuple(dict.fromkeys(failures)),
                   fingerprints=tuple(fingerprints))


def _unbalanced(files: list[ResultFile]) -> Iterable[str]:
    """A file of one side that lacks benchmarks its other files have."""
    cases = [{s.case for s in result.series} for result in files]
    every = set().union(*cases) if cases else set()
    for result, have in zip(files, cases):
        if len(files) > 1 and len(have) < len(every):
            yield (
                f"{result.path}: has {len(have)} of the {len(every)} benchmarks of this side's files; "
                "the others have fewer trials than the design"
            )


def load_dataset(paths: Iterable[str | os.PathLike], label: str | None = None,
                 note: Callable[[str], None] | None = None) -> Dataset:
    """Read result files (any supported format) as the trials of one version; ``note`` is
    told of a run given twice, which counts once."""
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise UserError("no result files given")
    files = [read_result_file(p) for p in paths]
    if label is None:
        check_side(files)                 # a file of another configuration: the more specific error
        refuse_named_versions(paths)
    return dataset_from_files(files, label or default_label(paths), note)


_TRIAL_COUNTER = re.compile(r"[-_. ]*(trial|run|rep|repeat|repetition|attempt|iteration|iter)[-_. ]*\d+$", re.I)
_COUNTER = re.compile(r"[-_. ]*\d+$")
_SUFFIXES = (".gz", ".json", ".log", ".txt", ".csv", ".out")


def _stem(name: str) -> str:
    for suffix in _SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


def version_name(path: str) -> str:
    """What a result file's name says of its version: the name without suffixes and without
    a trailing trial counter (``v1-trial2.json`` -> ``v1``, ``results-3.log`` -> ``results``,
    ``a2.json`` -> ``a``); a name shared by files of several folders (JMH's
    ``jmh-result.json``) is named by its folder, whose trial counter goes only when it is
    one (``run2/`` -> ``run``, ``7/`` -> ``''``, ``v2/`` stays)."""
    stem = _stem(os.path.basename(path))
    trial = _TRIAL_COUNTER.search(stem)
    return stem[: trial.start()] if trial else _COUNTER.sub("", stem)


def _folder_name(path: str) -> str:
    folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
    trial = _TRIAL_COUNTER.search(folder)
    if trial:
        return folder[: trial.start()]
    return "" if folder.isdigit() else folder


def refuse_named_versions(paths: list[str]) -> None:
    """Result files of JMH, Go and the others carry no version: files given for one version
    whose names (or, for files of one name, folders) name different versions (``old.json
    new.json``, ``v1-trial1.json v2-trial1.json``, ``v1/jmh-result.json v2/jmh-result.json``)
    are not merged into one; a name given with ``--label`` says they are trials of one."""
    names = {os.path.basename(p) for p in paths}
    name_of = _folder_name if len(names) == 1 else version_name
    versions = {name_of(p): p for p in paths}
    if len(versions) > 1:
        (first, a), (second, b) = list(versions.items())[:2]
        raise UserError(
            f"{a} and {b} look like two versions ('{first}' and '{second}' by their "
            f"{'folders' if len(names) == 1 else 'names'}); compare them with 'rigorbench compare', "
            "or name the version (--label NAME; --baseline-label/--contender-label in compare) if they are its trials"
        )


def default_label(paths: list[str]) -> str:
    """A short label for a side: the file name without suffixes, or what several names share
    (``v1-trial1.json v1-trial2.json`` -> ``v1``)."""
    stems = [_stem(os.path.basename(p)) for p in paths]
    if len(stems) == 1:
        return stems[0]
    shared = os.path.commonprefix(stems)
    shared = re.sub(r"[-_. ]*(trial|run)?[-_. ]*$", "", shared, flags=re.I)
    return shared or stems[0]


@dataclass(frozen=True, eq=False)
class Observations:
    """Measurement values at the iteration level with their outer level codes, ready for stats.

    Invocation histograms are collapsed to one value per iteration (the weighted mean, the
    iteration score JMH reports), so that the bootstrap's innermost unit is always the
    iteration.
    """

    values: np.ndarray
    levels: list[np.ndarray]
    removed_outliers: int
    total: int


def iteration_observations(samples: SampleTable, *, outlier_factor: float | None = 10.0) -> Observations:
    """Measurement iterations as (values, [instance, trial, fork] codes).

    Laaber et al.'s conservative rule (section 3.3 of ``004``): a value at least
    ``outlier_factor`` times the median is an error, not a measurement, and is removed;
    the count removed is reported, never silent.
    """
    table = samples.measurement()
    if table.has_histogram:
        table = table.iteration_means()
    values = table.value
    keep = np.ones(len(values), dtype=bool)
    if outlier_factor is not None and len(values):
        keep = ~extreme_outliers(values, outlier_factor)
    levels = [table.instance[keep], table.trial[keep], table.fork[keep]]
    return Observations(values[keep], levels, int((~keep).sum()), len(values))


def dataset_from_store(store, run_id: int, label: str) -> Dataset:
    """One version of a stored run; its trials are the run's trials."""
    series = store.load_series(run_id, label)
    tables = {(s.case, s.metric): s.samples for s in series}
    where = f"{store.path} run {run_id}"
    environments = tuple(store.environments(run_id, label))
    failures = []
    for execution in store.executions(run_id):
        if execution.label != label:
            continue
        if execution.status != "done":
            failures.append(f"trial {execution.trial + 1}: {execution.status}" + (f" ({execution.message})" if execution.message else ""))
        failures.extend(execution.failures)
    info = store.run(run_id)
    return Dataset(label, tables, (where,), environments, (), tuple(dict.fromkeys(failures)), origin="store",
                   instance_names=stored_instance_names(info.settings),
                   matched=where if info.order != "sequential" else "")


def stored_instance_names(settings: Mapping) -> tuple[str, ...]:
    """The instance names a ``--cluster`` run recorded in its settings, in code order."""
    cluster = RunSetup.of(settings).cluster
    names = cluster.get("instance_names") if isinstance(cluster, Mapping) else None
    return tuple(str(name) for name in names) if isinstance(names, list) else ()


def outliers_removed(obs: Observations, side: str = "") -> Diagnostic | None:
    """The one diagnostic for values dropped by the 10x-median rule (compare and analyze)."""
    if not obs.removed_outliers:
        return None
    where = f"{side}: " if side else ""
    return Diagnostic(
        "outliers_removed", f"{where}{obs.removed_outliers} of {obs.total} values at least 10x the median removed",
        "warning", "values this far off are measurement errors (Laaber et al.); check the raw data",
    )
