"""Compare steady-state detection with Traini et al.'s verdicts (EMSE 2022, shared data).

The study classified 50 JMH benchmarks (10 forks x 3000 iterations each) per fork
(steady-state start, -1 = never) and per benchmark ("steady state" when every fork is,
"inconsistent" otherwise -- which covers our "inconsistent" and "none").  Run with ``-s`` to
see the agreement, the confusion matrix and how far the starts are apart.  Skips when
``../shared/data`` is absent.

Two measurements: on all 50 benchmarks (the data the settings were chosen on: 0.950 of forks,
0.84 of benchmarks), and cross-validated by project (``benchmarks/steady_cv.py``): the
settings chosen on four folds, agreement measured on the fifth. Issue 16's goals for the
held-out folds are >= 0.92 of forks (met: 0.946) and >= 0.80 of benchmarks (met, with no
margin: 0.80, against 0.78 for the fixed penalty used before); the test guards the figures
reached.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from rigorbench.stats.steady import classify_forks

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "steady-state-dev"
NAMES = (sorted(p.name[: -len(".json")] for p in (DATA / "classification").glob("*.json"))
         if DATA.is_dir() else [])

pytestmark = [
    pytest.mark.shared_data,
    pytest.mark.skipif(not NAMES, reason="../shared/data/steady-state-dev is absent"),
]


def load(name: str) -> tuple[list[np.ndarray], dict]:
    with gzip.open(DATA / "timeseries" / f"{name}.json.gz", "rt") as handle:
        forks = [np.asarray(f, dtype=np.float64) for f in json.load(handle)]
    with open(DATA / "classification" / f"{name}.json") as handle:
        return forks, json.load(handle)


def compare_all() -> dict:
    forks_agree = forks_total = bench_agree = 0
    confusion: Counter = Counter()
    start_gaps = []
    for name in NAMES:
        forks, study = load(name)
        ours = classify_forks(forks)
        study_reached = [s >= 0 for s in study["steady_state_starts"]]
        assert len(study_reached) == len(ours.forks)
        forks_agree += sum(a == f.reached for a, f in zip(study_reached, ours.forks))
        forks_total += len(ours.forks)
        ours_run = "steady state" if ours.verdict == "steady" else "inconsistent"
        bench_agree += ours_run == study["run"]
        confusion[(study["run"], ours.verdict)] += 1
        start_gaps += [abs(s - f.start) for s, f in zip(study["steady_state_starts"], ours.forks)
                       if s >= 0 and f.reached]
    return {
        "fork": forks_agree / forks_total,
        "benchmark": bench_agree / len(NAMES),
        "confusion": confusion,
        "median_start_gap": float(np.median(start_gaps)),
        "both_steady": len(start_gaps),
    }


def test_agreement_with_the_study_meets_the_goals():
    result = compare_all()
    print(f"\n{len(NAMES)} benchmarks: fork agreement {result['fork']:.3f}, "
          f"benchmark agreement {result['benchmark']:.3f}")
    print("confusion (rows: study, columns: ours)")
    print(f"  {'':14}{'steady':>8}{'inconsistent':>14}{'none':>6}")
    for run in ("steady state", "inconsistent"):
        cells = "".join(f"{result['confusion'][(run, v)]:>{w}}"
                        for v, w in (("steady", 8), ("inconsistent", 14), ("none", 6)))
        print(f"  {run:14}{cells}")
    print(f"median |start difference| over {result['both_steady']} forks both call steady: "
          f"{result['median_start_gap']:.1f} iterations")
    assert result["fork"] >= 0.94
    assert result["benchmark"] >= 0.82


def test_cross_validated_agreement_on_benchmarks_the_settings_were_not_chosen_on():
    import importlib.util

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "steady_cv.py"
    spec = importlib.util.spec_from_file_location("steady_cv", script)
    cv = importlib.util.module_from_spec(spec)
    sys.modules["steady_cv"] = cv  # its worker processes find their function by module name
    spec.loader.exec_module(cv)
    per_name = cv.candidate_results()
    crops, rows = cv.cross_validate(per_name, "crops")
    fixed, _ = cv.cross_validate(per_name, "fixed")
    print(f"\nheld-out folds: CROPS fork {crops['fork']:.3f} benchmark {crops['benchmark']:.3f} "
          f"(median |start difference| {crops['gap']:.1f}); fixed penalty fork {fixed['fork']:.3f} "
          f"benchmark {fixed['benchmark']:.3f}")
    assert len(rows) == cv.FOLDS and crops["benchmarks"] == len(NAMES)
    assert crops["fork"] >= 0.92                 # issue 16's goal
    assert crops["benchmark"] >= 0.80            # issue 16's goal (reached with no margin)
    assert crops["benchmark"] > fixed["benchmark"] and crops["fork"] > fixed["fork"]
