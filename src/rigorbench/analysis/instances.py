"""The report's "by instance" table: a benchmark case measured on several machines.

With ``--cluster`` (issue 20) the instance is the outermost level below the version. Laaber
et al. (``shared/reference/004``, section 5) found that cloud instances of one type differ
systematically; a mean per instance next to the version's mean shows one slow machine at
once. In the trial-based design both versions ran on every instance, so the contender's mean
over the baseline's on one instance is a comparison paired by machine.

The means here are plain means of the iterations the summary used, the same estimator as
the version's mean (``BenchmarkAnalysis.mean.estimate``), so that the differences in % add up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

InstanceMeans = Mapping[int, tuple[int, float]]   # instance code -> (trials, mean)


@dataclass(frozen=True)
class InstanceCell:
    """One version on one instance."""

    trials: int
    mean: float
    difference_pct: float           # from the version's mean over all its instances


@dataclass(frozen=True)
class InstanceRow:
    """One instance of a case: a cell per version (None: the version did not run there) and,
    when two versions both ran there, contender mean / baseline mean on it."""

    instance: int                   # the code in the samples' ``instance`` column
    name: str
    cells: tuple[InstanceCell | None, ...]
    ratio: float | None


def instance_name(code: int, names: Sequence[str]) -> str:
    """The name a run gave instance ``code`` (its place in ``instance_names``), else a number."""
    return names[code] if 0 <= code < len(names) else f"instance {code + 1}"


def instance_means(values: np.ndarray, instance: np.ndarray, trial: np.ndarray) -> dict[int, tuple[int, float]]:
    """Per instance code: how many trials ran on it and the mean of its ``values``."""
    values = np.asarray(values, dtype=float)
    instance = np.asarray(instance)
    trial = np.asarray(trial)
    found = {}
    for code in np.unique(instance):
        on = instance == code
        found[int(code)] = (len(np.unique(trial[on])), float(values[on].mean()))
    return found


def instance_rows(versions: Sequence[tuple[InstanceMeans, float]], names: Sequence[str] = ()) -> tuple[InstanceRow, ...]:
    """The table for one case from each version's ``(instance_means, overall mean)``: one row
    per instance, in code order; empty when every version ran on one and the same instance."""
    codes = sorted({code for means, _ in versions for code in means})
    if len(codes) < 2:
        return ()
    rows = []
    for code in codes:
        cells = tuple(_cell(means.get(code), overall) for means, overall in versions)
        ratio = None
        if len(cells) == 2 and cells[0] is not None and cells[1] is not None:
            ratio = cells[1].mean / cells[0].mean if cells[0].mean else math.nan
        rows.append(InstanceRow(code, instance_name(code, names), cells, ratio))
    return tuple(rows)


def _cell(found: tuple[int, float] | None, overall: float) -> InstanceCell | None:
    if found is None:
        return None
    trials, mean = found
    difference = (mean / overall - 1) * 100 if overall else math.nan
    return InstanceCell(trials, mean, difference)
