"""The critical values of ``rigorbench.stats.modality.fork_clusters``, by Monte Carlo.

For every fork count n from 4 to 50: 200,000 draws of n independent standard normal fork
means, sorted; the statistic is the largest ratio of a gap between neighbours to the pooled
within-side standard deviation over the splits with at least two forks a side
(``modality.gap_ratios``); the critical value is its 99.9th percentile, so a benchmark
whose forks all measure the same thing is called clustered in 0.1% of cases. The statistic
does not depend on the mean or the scale of the fork means, so standard normals suffice.

Prints the table as the Python literal in ``modality.py``. Not a ``bench_*`` script (it
makes data, not timings); run ``python benchmarks/fork_cluster_table.py`` (about a minute).
"""

from __future__ import annotations

import sys

import numpy as np

from rigorbench.stats.modality import gap_ratios

DRAWS = 200_000
SEED = 20261124
QUANTILE = 0.999
COUNTS = range(4, 51)
CHUNK = 20_000


def critical_value(n: int, rng: np.random.Generator) -> float:
    best = np.empty(DRAWS)
    for start in range(0, DRAWS, CHUNK):
        draws = np.sort(rng.standard_normal((min(CHUNK, DRAWS - start), n)), axis=1)
        best[start:start + len(draws)] = gap_ratios(draws).max(axis=1)
    return float(np.quantile(best, QUANTILE))


def main() -> int:
    rng = np.random.default_rng(SEED)
    values = {n: critical_value(n, rng) for n in COUNTS}
    print("_CRITICAL = {")
    items = [f"{n}: {v:.4g}" for n, v in values.items()]
    for row in range(0, len(items), 6):
        print("    " + ", ".join(items[row:row + 6]) + ",")
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
