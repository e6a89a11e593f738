"""Synthetic per-commit benchmark series with planted changes of level (issue 17).

Each point is one stored run: ``ITERATIONS`` iteration values whose mean is the point and
whose standard error is the point's own uncertainty (what rigorbench's bootstrap measures),
on top of a run-to-run offset that no run can see in its own data (a new JVM, another
machine of the same kind). Kinds of noise:

- ``lognormal``: the run offset (sd ``RUN_SD``) and the iterations (sd ``ITERATION_SD``).
- ``outliers``: as lognormal, and 5% of runs are slower by 15-40% as a whole (a noisy
  neighbour): their own data look clean.
- ``bimodal``: every run's iterations fall in two states 10% apart, in a share that varies from
  run to run (a JIT decision per fork), so the points scatter more, and say so.
- ``drift``: as lognormal, under a slow drift of +5% over the series (an aging machine image).

Planted changes: 1 to 3 steps of 5-20% (either way), at least ``SPACING`` points apart and
from the ends. Everything is drawn from the generator passed in, so a seed gives one series.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KINDS = ("lognormal", "outliers", "bimodal", "drift")
ITERATIONS = 50
RUN_SD = 0.015
ITERATION_SD = 0.03
SPACING = 12


@dataclass(frozen=True)
class SyntheticSeries:
    kind: str
    values: np.ndarray        # per point: the run's mean
    errors: np.ndarray        # per point: the standard error of that mean, from its iterations
    changes: tuple[int, ...]  # the first point of each new level


def planted_positions(rng: np.random.Generator, n: int, count: int) -> list[int]:
    while True:
        positions = sorted(rng.choice(np.arange(SPACING, n - SPACING + 1), size=count, replace=False).tolist())
        if all(b - a >= SPACING for a, b in zip(positions, positions[1:])):
            return positions


def synthetic_series(rng: np.random.Generator, kind: str, n: int = 120) -> SyntheticSeries:
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    changes = planted_positions(rng, n, int(rng.integers(1, 4)))
    level = np.ones(n)
    for c in changes:
        level[c:] *= 1 + rng.choice([-1, 1]) * rng.uniform(0.05, 0.20)
    if kind == "drift":
        level *= np.exp(np.log(1.05) * np.arange(n) / n)
    run = rng.lognormal(0.0, RUN_SD, n)
    if kind == "outliers":
        slow = rng.random(n) < 0.05
        run[slow] *= rng.uniform(1.15, 1.40, slow.sum())
    iterations = rng.lognormal(0.0, ITERATION_SD, (n, ITERATIONS))
    if kind == "bimodal":
        share = rng.beta(2, 2, (n, 1))
        iterations *= np.where(rng.random((n, ITERATIONS)) < share, 1.10, 1.0)
    data = 100.0 * (level * run)[:, None] * iterations
    values = data.mean(axis=1)
    errors = data.std(axis=1, ddof=1) / np.sqrt(ITERATIONS)
    return SyntheticSeries(kind, values, errors, tuple(changes))


def score(detected: list[int], planted: tuple[int, ...], tolerance: int = 1) -> tuple[int, int]:
    """(planted changes found within ``tolerance`` points, detections that match none); each
    planted change is matched by at most one detection, nearest first."""
    unmatched = set(planted)
    false_alarms = 0
    for d in sorted(detected):
        near = [p for p in unmatched if abs(p - d) <= tolerance]
        if near:
            unmatched.remove(min(near, key=lambda p: abs(p - d)))
        else:
            false_alarms += 1
    return len(planted) - len(unmatched), false_alarms
