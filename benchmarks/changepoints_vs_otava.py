"""Change-point detection: rigorbench against Apache Otava on the same synthetic series.

For every kind of noise in ``changepoint_series.py`` (lognormal, outliers, bimodal runs, slow
drift), ``--series`` seeded series of 120 commits with 1-3 planted changes of 5-20%; both
detectors at Otava's defaults (window 50, p <= 0.001): Otava's ``compute_change_points`` on
the points alone, rigorbench's ``change_points`` on the points and their standard errors
(minimum segment 3). A detection within +-1 commit of a planted change finds it (each planted
change once); any other is a false alarm. Prints, per kind and overall, recall (planted changes
found) and false alarms per 100 series, for both.

Needs ``apache-otava`` (``make test`` installs it; not a dependency of rigorbench).
Run: ``python benchmarks/changepoints_vs_otava.py [--series N]`` (default 200 per kind).
``tests/stats/test_changepoints.py`` runs it on fewer series and asserts the goal: at least
as many planted changes found, fewer false alarms.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from changepoint_series import KINDS, score, synthetic_series  # noqa: E402

from rigorbench.stats.changepoints import change_points  # noqa: E402

SEED = 20261124
# rigorbench with the runs' standard errors, and on the points alone (as Otava sees them)
DETECTORS = ("otava", "rigorbench", "points only")


def otava_indices(values: np.ndarray) -> list[int]:
    from otava.analysis import compute_change_points

    found, _ = compute_change_points([float(v) for v in values], window_len=50, max_pvalue=0.001)
    return [int(c.index) for c in found]


def ours_indices(values: np.ndarray, errors: np.ndarray | None) -> list[int]:
    return [c.index for c in change_points(values, errors)]


def compare(series_per_kind: int, seed: int = SEED) -> dict[str, dict[str, tuple[int, int, int]]]:
    """{kind: {detector: (planted, found, false alarms)}} over ``series_per_kind`` series."""
    table: dict[str, dict[str, tuple[int, int, int]]] = {}
    for k, kind in enumerate(KINDS):
        rng = np.random.default_rng([seed, k])
        totals = {name: [0, 0, 0] for name in DETECTORS}
        for _ in range(series_per_kind):
            s = synthetic_series(rng, kind)
            found_by = {"otava": otava_indices(s.values), "rigorbench": ours_indices(s.values, s.errors),
                        "points only": ours_indices(s.values, None)}
            for name, detected in found_by.items():
                found, false = score(detected, s.changes)
                totals[name][0] += len(s.changes)
                totals[name][1] += found
                totals[name][2] += false
        table[kind] = {name: tuple(v) for name, v in totals.items()}
    return table


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=200, help="series per kind of noise")
    args = parser.parse_args(argv)
    table = compare(args.series)
    print(f"{args.series} series of 120 commits per kind; recall within +-1 commit; false alarms per 100 series")
    print(f"{'noise':10}" + "".join(f"  {name + ' recall':>18}  {'false/100':>9}" for name in DETECTORS))
    overall = {name: np.zeros(3) for name in DETECTORS}
    for kind, row in table.items():
        line = f"{kind:10}"
        for name in DETECTORS:
            planted, found, false = row[name]
            overall[name] += (planted, found, false)
            line += f"  {found / planted:18.1%}  {100 * false / args.series:9.1f}"
        print(line)
    n = args.series * len(table)
    print(f"{'all':10}" + "".join(f"  {o[1] / o[0]:18.1%}  {100 * o[2] / n:9.1f}" for o in overall.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
