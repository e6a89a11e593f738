"""Benchmark: ``analyze`` of one benchmark with 10 forks x 3000 iterations (issue #5).

This is the shape of the Traini et al. steady-state data (``shared/data/steady-state-dev``):
the whole analysis of one benchmark case (steady state per fork, bootstrap CIs of mean and
median with 10,000 resamples, variability by level, modes, outliers, trend) against, as the
named reference measured in the same run, the hierarchical bootstrap of the mean alone with
the same resamples, so the ratio says what the diagnostics cost on top of one CI.

Synthetic data (a JIT-like warmup curve, then noise) with a fixed seed, so it runs without
``shared/``; when the shared data is beside the checkout, one real benchmark is timed too.
Prints the best of 3 and a PASS/FAIL line for the goal "< 30 s per benchmark".
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from rigorbench.analysis.analyze import analyze_series
from rigorbench.analysis.settings import Settings
from rigorbench.model import BenchmarkCase, Metric, SampleTable
from rigorbench.stats import hierarchical_bootstrap

GOAL_SECONDS = 30.0
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "steady-state-dev" / "timeseries"
TIME = Metric("time", "s/op", False, True)


def synthetic(forks: int = 10, n: int = 3000, seed: int = 20240601) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    i = np.arange(n)
    return [1e-4 * (1 + 0.5 * np.clip(1 - i / rng.integers(50, 800), 0, None) ** 2) * rng.lognormal(0, 0.03, n)
            for _ in range(forks)]


def as_table(forks: list[np.ndarray]) -> SampleTable:
    return SampleTable.build(
        np.concatenate(forks),
        fork=np.repeat(np.arange(len(forks)), [len(f) for f in forks]),
        iteration=np.concatenate([np.arange(len(f)) for f in forks]),
    )


def best_of(function, repeats: int = 3) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def run_case(name: str, forks: list[np.ndarray]) -> bool:
    table = as_table(forks)
    case = BenchmarkCase("jmh", name)
    settings = Settings()
    seconds, analysis = best_of(lambda: analyze_series(case, TIME, table, settings))
    levels = [table.instance, table.trial, table.fork]
    ref, _ = best_of(lambda: hierarchical_bootstrap(table.value, levels, resamples=settings.resamples))
    print(f"{name}: {len(forks)} forks x {len(forks[0])} iterations")
    print(f"  analyze            {seconds:.2f} s   steady state: {analysis.steady.verdict}, "
          f"{len(analysis.diagnostics)} diagnostics ({', '.join(d.code for d in analysis.diagnostics)})")
    print(f"  reference (one bootstrap CI of the mean) {ref:.2f} s   ratio analyze/reference {seconds / ref:.1f}x")
    passed = seconds < GOAL_SECONDS
    print(f"  {'PASS' if passed else 'FAIL'}: {seconds:.2f} s < {GOAL_SECONDS:.0f} s goal")
    return passed


def main() -> int:
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, cpus {os.cpu_count()}")
    ok = run_case("synthetic warmup curve", synthetic())
    if SHARED.is_dir():
        path = sorted(SHARED.glob("*.json.gz"))[0]
        with gzip.open(path, "rt") as handle:
            forks = [np.asarray(f, dtype=float) for f in json.load(handle)]
        ok &= run_case(path.name.split("#")[1], forks)
    else:
        print(f"(no shared data at {SHARED}: the real-data case is skipped)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
