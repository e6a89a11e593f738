"""How often the best split of pure noise passes the change-point t-test (issue 17).

``rigorbench.stats.changepoints`` chooses the split of a stretch with the largest energy
statistic and then tests it; choosing first makes the test's p-value too small. For stretches
of ``L`` points of standard normal noise (no per-point errors, minimum segment 3, as the
default), this script draws ``--runs`` stretches per length, and prints per ``L`` the factor
``alpha / q_alpha`` (``q_alpha``: the alpha-quantile of the chosen split's p-value) for alpha
5%, 1% and 0.1%: how much more often than its p-value says a pure-noise stretch passes.
Next to it, the number of candidate splits (Bonferroni's factor). ``SELECTION_FACTOR`` and
``SELECTION_FROM`` in the module come from this table (40,000 runs per length: the factor at
0.1% is about 30-60 from 12 points on, noisy, 4-6 at 10 points, and at most the number of
candidates below that).

Run: ``python benchmarks/changepoint_null.py [--runs N]`` (about 2 minutes at 40,000).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from rigorbench.stats import changepoints as cp

LENGTHS = (6, 8, 10, 12, 16, 20, 25, 30, 40, 50, 70, 100, 150, 200)


def chosen_p_values(rng: np.random.Generator, length: int, runs: int, min_size: int = cp.MIN_SIZE) -> np.ndarray:
    out = np.empty(runs)
    for r in range(runs):
        x = rng.normal(0.0, 1.0, length)
        series = cp._Series(x, np.zeros(length), False)
        out[r] = cp._t_test(series, 0, cp._best_split(x, min_size), length)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40_000)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(20261124)
    print(f"{'points':>6}  {'candidates':>10}  {'factor 5%':>9}  {'1%':>6}  {'0.1%':>6}  {'module':>6}")
    for length in LENGTHS:
        p = chosen_p_values(rng, length, args.runs)
        factors = [a / np.quantile(p, a) for a in (0.05, 0.01, 0.001)]
        print(f"{length:6d}  {length - 2 * cp.MIN_SIZE + 1:10d}  {factors[0]:9.1f}  {factors[1]:6.1f}  {factors[2]:6.1f}  "
              f"{cp.selection_factor(length, cp.MIN_SIZE):6.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
