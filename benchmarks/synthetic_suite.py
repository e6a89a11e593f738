"""A synthetic suite of JMH results with known truth, for the report's test and benchmark.

``write_suite`` writes JMH JSON files (one per version and trial, as JMH would) for a suite
of ``size`` benchmark cases: a third of them swept over a numeric ``size`` parameter with a
known growth exponent, some with a planted slowdown or speed-up, allocation and GC counts
recorded per iteration, and one benchmark whose name is an HTML script tag, so that every
report built from it checks escaping.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rigorbench.formats.writers import write_jmh_json
from rigorbench.model import ALLOC, BenchmarkCase, Metric, SampleTable, Series

TIME = Metric("time", "ns/op", False, True)
ALLOCATION = Metric(ALLOC, "B/op", False)
GC_COUNT = Metric("gc.count", "counts", False)
HOSTILE_NAME = "<script>alert(1)</script>"
SIZES = (10, 100, 1000)
EXPONENT = 1.5          # the planted growth exponent of the swept benchmarks
SLOWDOWN = 1.25         # the planted change of every 10th benchmark (faster: 1 / SLOWDOWN)


def suite_cases(size: int) -> list[tuple[BenchmarkCase, float, float]]:
    """(case, baseline mean in ns/op, contender / baseline) for ``size`` cases."""
    cases = [(BenchmarkCase.of("jmh", HOSTILE_NAME), 50.0, 1.0)]
    number = 0
    while len(cases) < size:
        group = number // 3
        name = f"org.example.suite.Group{group % 17}Benchmark.op{number}"
        change = SLOWDOWN if number % 10 == 1 else 1 / SLOWDOWN if number % 10 == 2 else 1.0
        if number % 3 == 0:
            for n in SIZES[: size - len(cases)]:
                cases.append((BenchmarkCase.of("jmh", name, {"size": str(n)}), 2.0 * n ** EXPONENT, change))
        else:
            cases.append((BenchmarkCase.of("jmh", name), 20.0 + number, change))
        number += 1
    return cases[:size]


def _trial_series(case: BenchmarkCase, mean: float, trial: int, rng, forks: int, iterations: int) -> list[Series]:
    n = forks * iterations
    fork = np.repeat(np.arange(forks), iterations)
    iteration = np.tile(np.arange(iterations), forks)
    trial_column = np.full(n, trial)
    fork_effect = rng.normal(1.0, 0.01, forks)[fork]
    values = mean * rng.lognormal(0.0, 0.03, n) * fork_effect * rng.normal(1.0, 0.01)
    def table(column):
        return SampleTable.build(column, fork=fork, iteration=iteration, trial=trial_column)
    alloc = np.full(n, 24.0 + mean % 7)
    gc = (rng.random(n) < 0.2).astype(float)
    return [Series(case, TIME, table(values)), Series(case, ALLOCATION, table(alloc)), Series(case, GC_COUNT, table(gc))]


def write_suite(directory: str | Path, size: int = 200, trials: int = 3, forks: int = 2, iterations: int = 10,
                seed: int = 7) -> tuple[list[Path], list[Path]]:
    """Write the suite's result files; returns (baseline files, contender files)."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    cases = suite_cases(size)
    files: tuple[list[Path], list[Path]] = ([], [])
    for position, label in enumerate(("base", "head")):
        for trial in range(trials):
            series = []
            for case, mean, change in cases:
                series += _trial_series(case, mean * (change if position else 1.0), trial, rng, forks, iterations)
            path = out / f"{label}-trial{trial + 1}.json"
            # write_jmh_json writes one trial: its rows carry trial 0 in the file.
            series = [Series(s.case, s.metric, s.samples.with_columns(trial=s.samples.trial * 0)) for s in series]
            path.write_text(write_jmh_json(series), encoding="utf-8")
            files[position].append(path)
    return files
