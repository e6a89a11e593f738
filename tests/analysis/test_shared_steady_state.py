"""Compare steady-state detection with Traini et al.'s verdicts (EMSE 2022, shared data).

The study classified 50 JMH benchmarks (10 forks x 3000 iterations each) per fork
(steady-state start, -1 = never) and per benchmark ("steady state" when every fork is,
"inconsistent" otherwise -- which covers our "inconsistent" and "none"). rigorbench's
detector does what the study's replication package does (``stats/steady.py``), so it should
agree with nearly every verdict; the held-out figure on the study's other 536 benchmarks is
``benchmarks/steady_full.py``'s (docs/statistics.md). The detector takes about 6 s of CPU per
benchmark, so this test reads every fifth benchmark (10 of 50). Run with ``-s`` to see the
agreement and the confusion matrix. Skips when ``../shared/data`` is absent.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from rigorbench.stats.steady import classify_forks

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "steady-state-dev"
NAMES = (sorted(p.name[: -len(".json")] for p in (DATA / "classification").glob("*.json"))
         if DATA.is_dir() else [])

# Measured on these 10: every fork (100 of 100) and every benchmark. The guards leave room for
# one benchmark whose verdict hangs on the walk-back's bootstrap (the study's has 10,000
# resamples, ours 1,000).
FORK_GOAL = 0.98
BENCHMARK_GOAL = 0.90

pytestmark = [
    pytest.mark.shared_data,
    pytest.mark.skipif(not NAMES, reason="../shared/data/steady-state-dev is absent"),
]


def load(name: str) -> tuple[list[np.ndarray], dict]:
    with gzip.open(DATA / "timeseries" / f"{name}.json.gz", "rt") as handle:
        forks = [np.asarray(f, dtype=np.float64) for f in json.load(handle)]
    with open(DATA / "classification" / f"{name}.json") as handle:
        return forks, json.load(handle)


def compare_all(names: list[str]) -> dict:
    forks_agree = forks_total = bench_agree = 0
    confusion: Counter = Counter()
    start_gaps = []
    for name in names:
        forks, study = load(name)
        ours = classify_forks(forks)
        study_reached = [s >= 0 for s in study["steady_state_starts"]]
        assert len(study_reached) == len(ours.forks)
        forks_agree += sum(a == f.reached for a, f in zip(study_reached, ours.forks))
        forks_total += len(ours.forks)
        ours_run = "steady state" if ours.verdict == "steady" else "inconsistent"
        bench_agree += ours_run == study["run"]
        confusion[(study["run"], ours.verdict)] += 1
        # the study gives the last iteration of the last differing segment, we the next one
        start_gaps += [abs(s + (s > 0) - f.start) for s, f in zip(study["steady_state_starts"], ours.forks)
                       if s >= 0 and f.reached]
    return {
        "fork": forks_agree / forks_total,
        "benchmark": bench_agree / len(names),
        "confusion": confusion,
        "median_start_gap": float(np.median(start_gaps)),
        "both_steady": len(start_gaps),
    }


def test_agreement_with_the_study():
    names = NAMES[::5]
    result = compare_all(names)
    print(f"\n{len(names)} benchmarks: fork agreement {result['fork']:.3f}, "
          f"benchmark agreement {result['benchmark']:.3f}")
    print("confusion (rows: study, columns: ours)")
    print(f"  {'':14}{'steady':>8}{'inconsistent':>14}{'none':>6}")
    for run in ("steady state", "inconsistent"):
        cells = "".join(f"{result['confusion'][(run, v)]:>{w}}"
                        for v, w in (("steady", 8), ("inconsistent", 14), ("none", 6)))
        print(f"  {run:14}{cells}")
    print(f"median |start difference| over {result['both_steady']} forks both call steady: "
          f"{result['median_start_gap']:.1f} iterations")
    assert result["fork"] >= FORK_GOAL and result["benchmark"] >= BENCHMARK_GOAL
    assert result["median_start_gap"] == 0
