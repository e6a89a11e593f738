"""Benchmark: steady-state detection of one benchmark (rigorbench.stats.steady).

Times ``classify_forks`` on 10 forks x 3000 iterations -- the size of the Traini et al.
(EMSE 2022) runs -- generated here with a fixed seed (warmup decays of different lengths,
one fork with a late level shift), and, when ``../shared/data/steady-state-dev`` exists,
on one real benchmark of that study too.  The named reference, measured in the same run
on the same forks, is one plain ``ruptures.Pelt(model="l2", jump=10)`` pass per fork (the
same candidate grid as ours) with a BIC-like penalty (``2 log n`` times the fork's
variance) and nothing else: no outlier filter, no mean-and-variance cost, no walk-back.
Goal: < 10 s per 10 x 3000 benchmark.

Prints the best of 3 (wall clock and CPU time) and one PASS/FAIL line per case.
Run directly or through ``benchmarks/run.py``.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import ruptures as rpt

from rigorbench.stats.steady import classify_forks

REPEATS = 3
GOAL = 10.0
FORKS, N = 10, 3000
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "steady-state-dev"
REAL = "apache__kafka#org.apache.kafka.jmh.record.RecordBatchIterationBenchmark"


def synthetic(seed: int = 20240601) -> list[np.ndarray]:
    """Ten forks of seconds/op: exponential warmups, noise, spikes, one late shift."""
    rng = np.random.default_rng(seed)
    i = np.arange(N)
    forks = []
    for fork in range(FORKS):
        level = 1 + 0.8 * np.exp(-i / rng.uniform(20, 400))
        if fork == FORKS - 1:
            level = level * np.where(i < 2700, 1.0, 1.15)
        x = 2e-5 * level * (1 + 0.03 * rng.standard_normal(N))
        x[rng.integers(0, N, 5)] *= 10
        forks.append(x)
    return forks


def real_forks() -> tuple[str, list[np.ndarray]] | None:
    paths = sorted((SHARED / "timeseries").glob(f"{REAL}*.json.gz")) if SHARED.is_dir() else []
    if not paths:
        return None
    with gzip.open(paths[0], "rt") as handle:
        return paths[0].name, [np.asarray(f, dtype=np.float64) for f in json.load(handle)]


def plain_pelt(forks: list[np.ndarray]) -> list[list[int]]:
    return [rpt.Pelt(model="l2", jump=10).fit(x).predict(pen=2 * math.log(x.size) * x.var())
            for x in forks]


def best_of(function) -> tuple[float, float, object]:
    wall = cpu = float("inf")
    result = None
    for _ in range(REPEATS):
        w0, c0 = time.perf_counter(), time.process_time()
        result = function()
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu, result


def run_case(name: str, forks: list[np.ndarray]) -> bool:
    wall, cpu, verdict = best_of(lambda: classify_forks(forks))
    ref_wall, ref_cpu, bkps = best_of(lambda: plain_pelt(forks))
    print(f"{name}: {len(forks)} forks x {forks[0].size} iterations")
    print(f"  rigorbench  wall {wall:.3f} s  cpu {cpu:.3f} s   verdict {verdict.verdict}, "
          f"starts {[f.start for f in verdict.forks]}")
    print(f"  plain PELT  wall {ref_wall:.3f} s  cpu {ref_cpu:.3f} s   "
          f"change points per fork {[len(b) - 1 for b in bkps]}")
    print(f"  ratio ours/plain PELT: wall {wall / ref_wall:.2f}x  cpu {cpu / ref_cpu:.2f}x")
    passed = wall < GOAL
    verdict_line = f"wall {wall:.3f} s < {GOAL} s per 10 x 3000 benchmark"
    print(f"  {'PASS' if passed else 'FAIL'}: {verdict_line}")
    return passed


def main() -> int:
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, "
          f"ruptures {rpt.__version__}, cpus {os.cpu_count()}")
    ok = run_case("synthetic (seed 20240601)", synthetic())
    real = real_forks()
    if real is None:
        print("real benchmark: skipped (../shared/data/steady-state-dev is absent)")
    else:
        ok &= run_case(f"real: {real[0][:70]}", real[1])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
