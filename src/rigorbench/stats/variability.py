"""Variability by level and variance components (Laaber et al., ``shared/reference/004``,
section 4.2: the coefficient of variation of the data, within iteration series, between
forks, between trials and between instances).

The variance components come from a nested random-effects model,
``value = mu + instance + trial + fork + iteration``, estimated by the method of moments
on unweighted means (Searle, Casella & McCulloch, *Variance Components*, section 3.6): the
within-fork variance estimates the iteration component; the variance of fork means within
a trial estimates ``var_fork + var_iteration / n_iterations``; and so on up the levels, with
harmonic mean unit counts for unbalanced data. Negative estimates are truncated to zero, and
the components are reported as fractions of their sum.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from rigorbench.stats._checks import finite_sample
from rigorbench.stats.grouping import unique_rows

LEVELS = ("instance", "trial", "fork", "iteration")


@dataclass(frozen=True)
class Variability:
    """CVs per level (None where a level has fewer than two units) and variance shares."""

    total: float
    iteration: float | None
    fork: float | None
    trial: float | None
    instance: float | None
    components: dict[str, float]
    dominant: str


def _cv(values: np.ndarray) -> float:
    mean = float(np.mean(values))
    return float(np.std(values, ddof=1) / abs(mean)) if len(values) >= 2 and mean != 0 else 0.0


def _means(values: np.ndarray, inverse: np.ndarray) -> np.ndarray:
    return np.bincount(inverse, weights=values) / np.bincount(inverse)


def group_means(values: np.ndarray, levels: Sequence[np.ndarray]) -> np.ndarray:
    """The mean of each group of ``values`` that shares all of ``levels`` (e.g. the fork
    means for instance, trial and fork labels), in the sorted order of the groups."""
    if not len(values):
        return np.array([])
    _, inverse = unique_rows(np.stack(levels, axis=1))
    return _means(np.asarray(values, dtype=float), inverse)


def _within(means: np.ndarray, parents: np.ndarray) -> tuple[list[float], list[float], list[int]]:
    """Per parent with >= 2 children: CV and variance of the child means, and child count."""
    cvs, variances, counts = [], [], []
    for parent in np.unique(parents, axis=0):
        children = means[np.all(parents == parent, axis=1)]
        if len(children) >= 2:
            cvs.append(_cv(children))
            variances.append(float(np.var(children, ddof=1)))
            counts.append(len(children))
    return cvs, variances, counts


def _harmonic(counts) -> float:
    counts = np.asarray(counts, dtype=float)
    return float(len(counts) / np.sum(1 / counts)) if len(counts) else 1.0


def _level_stats(values: np.ndarray, instance, trial, fork) -> dict[str, tuple]:
    """For each level: (CVs, variances of unit means within the parent, units per parent)."""
    fork_keys, fork_of = unique_rows(np.stack([instance, trial, fork], axis=1))
    fork_means = _means(values, fork_of)
    sizes = np.bincount(fork_of)
    within = [values[fork_of == i] for i in range(len(fork_keys)) if sizes[i] >= 2]
    stats = {"iteration": ([_cv(w) for w in within], [float(np.var(w, ddof=1)) for w in within], list(sizes))}
    stats["fork"] = _within(fork_means, fork_keys[:, :2])
    trial_keys, trial_of = unique_rows(fork_keys[:, :2])
    trial_means = _means(fork_means, trial_of)
    stats["trial"] = _within(trial_means, trial_keys[:, :1])
    instance_keys, instance_of = unique_rows(trial_keys[:, :1])
    instance_means = _means(trial_means, instance_of)
    stats["instance"] = _within(instance_means, np.zeros((len(instance_means), 1)))
    return stats


def _components(stats: dict[str, tuple]) -> dict[str, float]:
    """Method-of-moments components, innermost first, each net of the levels below it."""
    raw: dict[str, float] = {}
    below = 0.0        # variance of a unit mean at this level contributed by the levels below
    per_unit = 1.0     # values (harmonic) under one unit of the level being solved
    for level in ("iteration", "fork", "trial", "instance"):
        cvs, variances, counts = stats[level]
        if level == "iteration":
            if variances:
                raw[level] = float(np.mean(variances))
            per_unit = _harmonic(counts)
            below = raw.get("iteration", 0.0) / per_unit
            continue
        if variances:
            raw[level] = max(float(np.mean(variances)) - below, 0.0)
        n = _harmonic(counts) if counts else 1.0
        below = (raw.get(level, 0.0) + below) / n
    total = sum(raw.values())
    if total <= 0:
        return {level: 1.0 / len(raw) for level in raw} if raw else {}
    return {level: raw[level] / total for level in LEVELS if level in raw}


def variability_by_level(values, instance, trial, fork) -> Variability:
    """CV of all values, per level, and the variance components of the nested levels."""
    values = finite_sample(values, "variability")
    arrays = [np.asarray(a, dtype=np.int64).reshape(-1) for a in (instance, trial, fork)]
    if any(len(a) != len(values) for a in arrays):
        raise ValueError("level code arrays must be as long as values")
    if len(values) < 2:
        raise ValueError("variability needs at least two values")
    stats = _level_stats(values, *arrays)
    cv = {level: (float(np.mean(stats[level][0])) if stats[level][0] else None) for level in stats}
    components = _components(stats)
    dominant = max(components, key=components.get) if components else "iteration"
    return Variability(_cv(values), cv["iteration"], cv["fork"], cv["trial"], cv["instance"], components, dominant)
