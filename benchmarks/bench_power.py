"""Benchmark: ``power`` simulations for one benchmark (issue #6's design).

20 trials available (x 2 forks x 10 iterations, synthetic hierarchical noise), groups of 5
trials, 100 simulations, 11 slowdowns (0% for A/A plus Laaber et al.'s 10), 1,000 bootstrap
resamples per test; goal < 30 s on this 2-core machine. The named reference, measured in the
same run, is the brute-force design that recomputes the bootstrap for every slowdown instead
of scaling one A/A bootstrap per simulation (``stats.power`` says why that is exact): a few
brute-force simulations are timed and scaled to the full design.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from rigorbench.stats.bootstrap import bootstrap_ratio
from rigorbench.stats.decision import BootstrapRule
from rigorbench.analysis.settings import DEFAULT_SLOWDOWNS
from rigorbench.stats.power import simulate_power

GOAL_SECONDS = 30.0
SIMULATIONS, GROUP, RESAMPLES = 100, 5, 1000


def data(rng: np.random.Generator, trials: int = 20, forks: int = 2, iterations: int = 10):
    values, trial, fork = [], [], []
    for t in range(trials):
        shift = rng.normal(0, 1.0)
        for f in range(forks):
            values.extend(100 + shift + rng.normal(0, 0.5) + rng.normal(0, 1.0, iterations))
            trial += [t] * iterations
            fork += [f] * iterations
    trial = np.array(trial)
    return np.array(values), [np.zeros_like(trial), trial, np.array(fork)], trial


def brute_force_seconds(values, levels, unit, simulations: int = 5) -> float:
    """Time ``simulations`` simulations that bootstrap every slowdown anew; scale up."""
    rng = np.random.default_rng(1)
    units = np.unique(unit)
    start = time.perf_counter()
    for _ in range(simulations):
        chosen = rng.permutation(units)[: 2 * GROUP]
        a, b = np.isin(unit, chosen[:GROUP]), np.isin(unit, chosen[GROUP:])
        for s in (0.0, *DEFAULT_SLOWDOWNS):
            bootstrap_ratio(values[a], [lv[a] for lv in levels], values[b] * (1 + s), [lv[b] for lv in levels],
                            resamples=RESAMPLES)
    return (time.perf_counter() - start) * SIMULATIONS / simulations


def main() -> int:
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, cpus {os.cpu_count()}")
    values, levels, unit = data(np.random.default_rng(20240601))
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        result = simulate_power(values, levels, unit, group_size=GROUP, rule=BootstrapRule(0.01),
                                higher_is_better=False, slowdowns=DEFAULT_SLOWDOWNS, simulations=SIMULATIONS, resamples=RESAMPLES)
        best = min(best, time.perf_counter() - start)
    brute = brute_force_seconds(values, levels, unit)
    print(f"20 trials x 2 forks x 10 iterations, groups of {GROUP}, {SIMULATIONS} simulations, "
          f"{len(DEFAULT_SLOWDOWNS) + 1} slowdowns (incl. A/A), {RESAMPLES} resamples")
    print(f"  rigorbench power         {best:.2f} s   A/A false positives {result.false_positive_rate:.0%}, "
          f"MDS {'none' if result.mds is None else f'{result.mds:.1%}'}")
    print(f"  reference (brute force)  {brute:.2f} s (5 simulations timed, scaled to {SIMULATIONS})   "
          f"ratio brute/ours {brute / best:.1f}x")
    passed = best < GOAL_SECONDS
    print(f"  {'PASS' if passed else 'FAIL'}: {best:.2f} s < {GOAL_SECONDS:.0f} s goal")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
