"""Benchmark: hierarchical bootstrap of the ratio of means (rigorbench.stats.bootstrap).

Times ``bootstrap_ratio(..., resamples=10_000)`` against a plain numpy "index-gather"
implementation written here (for every level draw random indices, gather, then take the
mean over the resampled axes), on

* two versions of 20 trials x 5 forks x 50 iterations (levels [trial, fork]); goal < 1 s;
* two versions of 500 values in one level (the Laaber et al. ``pa`` comparison: ``pa``
  needs ~0.6 s for 10,000 resamples of 500 values per version; goal >= 10x faster,
  i.e. < 0.06 s).

Prints the best of a few repeats (wall clock and CPU time) and one PASS/FAIL line per goal.
Run directly or through ``benchmarks/run.py``.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from rigorbench.stats import bootstrap_ratio, percentile_interval

RESAMPLES = 10_000
REPEATS = 5


def reference_distribution(data: np.ndarray, resamples: int, rng: np.random.Generator,
                           chunk: int = 200) -> np.ndarray:
    """Means of hierarchical resamples of a balanced array (levels = leading axes)."""
    out = np.empty(resamples)
    for start in range(0, resamples, chunk):
        b = min(chunk, resamples - start)
        index: tuple = ()
        for axis, size in enumerate(data.shape):
            # one draw per unit of this level inside every unit chosen so far
            draws = rng.integers(0, size, size=(b, *data.shape[: axis + 1]))
            index = tuple(i[..., None] for i in index) + (draws,)
        out[start:start + b] = data[index].reshape(b, -1).mean(axis=1)
    return out


def reference_ratio(baseline: np.ndarray, contender: np.ndarray, seed: int = 0):
    rng_b, rng_c = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    ratios = (reference_distribution(contender, RESAMPLES, rng_c)
              / reference_distribution(baseline, RESAMPLES, rng_b))
    return np.quantile(ratios, [0.005, 0.995])


def make_version(shape: tuple[int, ...], scale: float, rng: np.random.Generator) -> np.ndarray:
    """Lognormal-ish positive data with a random effect at every level."""
    data = np.full(shape, scale)
    for axis in range(len(shape)):
        effect_shape = shape[: axis + 1] + (1,) * (len(shape) - axis - 1)
        data = data * rng.lognormal(0.0, 0.05, size=effect_shape)
    return data


def codes(shape: tuple[int, ...]) -> list[np.ndarray]:
    """Level code arrays (all but the innermost axis) of a C-ordered array."""
    grids = np.indices(shape)
    return [grids[axis].reshape(-1) for axis in range(len(shape) - 1)]


def best_of(function, repeats: int = REPEATS) -> tuple[float, float, object]:
    wall = cpu = float("inf")
    result = None
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        result = function()
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu, result


def run_case(name: str, shape: tuple[int, ...], goal: float, rng: np.random.Generator) -> bool:
    base, cont = make_version(shape, 1.0, rng), make_version(shape, 1.1, rng)
    levels = codes(shape)

    def ours():
        return bootstrap_ratio(base.reshape(-1), levels, cont.reshape(-1), levels,
                               resamples=RESAMPLES)

    wall, cpu, result = best_of(ours)
    ref_wall, ref_cpu, ref_ci = best_of(lambda: reference_ratio(base, cont))
    print(f"{name}: {shape} per version, {RESAMPLES} resamples")
    plain = percentile_interval(result.distribution, result.confidence)
    print(f"  rigorbench  wall {wall:.4f} s  cpu {cpu:.4f} s   "
          f"ratio {result.estimate:.4f} CI [{result.low:.4f}, {result.high:.4f}] ({result.method}; "
          f"percentile [{plain[0]:.4f}, {plain[1]:.4f}])")
    print(f"  reference   wall {ref_wall:.4f} s  cpu {ref_cpu:.4f} s   "
          f"CI [{ref_ci[0]:.4f}, {ref_ci[1]:.4f}]")
    print(f"  speed-up reference/ours: wall {ref_wall / wall:.1f}x  cpu {ref_cpu / cpu:.1f}x")
    passed = wall < goal
    print(f"  {'PASS' if passed else 'FAIL'}: wall {wall:.4f} s < {goal} s goal")
    return passed


def main() -> int:
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, cpus {os.cpu_count()}")
    rng = np.random.default_rng(20240601)
    ok = run_case("hierarchical 20 trials x 5 forks x 50 iterations", (20, 5, 50), 1.0, rng)
    ok &= run_case("one level, 500 values (pa comparison)", (500,), 0.06, rng)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
