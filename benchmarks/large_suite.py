"""A large JMH JSON result file, written benchmark by benchmark (issue #21, "Large suites").

``write_large_suite`` writes one JMH ``-rf json`` file of ``benchmarks`` cases x ``forks``
forks x ``iterations`` measurement iterations (by default 500 x 20 x 1000: 10 M values,
about 200 MB), the shape that ``analyze`` once needed more than 10 minutes and 1.6 GB for.
Every fork has its own level and a short JIT-like decay at its start, so the steady-state
and variability checks do real work. The same seed writes the same file, byte for byte;
the file goes to a temporary directory at benchmark time and is never committed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def _fork_values(rng: np.random.Generator, mean: float, forks: int, iterations: int) -> np.ndarray:
    """(forks, iterations) of ns/op: a fork level, a decaying warmup tail and noise."""
    i = np.arange(iterations)
    fork_level = rng.normal(1.0, 0.02, (forks, 1))
    decay = 1 + 0.3 * np.exp(-i / rng.uniform(5, 50, (forks, 1)))
    return mean * fork_level * decay * rng.lognormal(0.0, 0.03, (forks, iterations))


def _benchmark_object(number: int, values: np.ndarray) -> dict:
    forks, iterations = values.shape
    return {
        "jmhVersion": "1.37", "benchmark": f"org.example.large.Group{number % 25}Benchmark.op{number}",
        "mode": "avgt", "threads": 1, "forks": forks, "jdkVersion": "17.0.15",
        "warmupIterations": 0, "measurementIterations": iterations,
        "measurementTime": "10 ms",
        "primaryMetric": {
            "score": float(values.mean()), "scoreError": "NaN", "scoreUnit": "ns/op",
            "rawData": values.tolist(),
        },
        "secondaryMetrics": {},
    }


def write_large_suite(path: str | Path, benchmarks: int = 500, forks: int = 20, iterations: int = 1000,
                      seed: int = 21) -> Path:
    """Write the suite to ``path`` one benchmark at a time (memory of one benchmark)."""
    target = Path(path)
    rng = np.random.default_rng(seed)
    with target.open("w", encoding="utf-8") as out:
        out.write("[\n")
        for number in range(benchmarks):
            values = _fork_values(rng, 20.0 + 10.0 * (number % 50), forks, iterations)
            out.write(",\n" if number else "")
            json.dump(_benchmark_object(number, values), out)
        out.write("\n]\n")
    return target
