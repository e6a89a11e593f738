"""Cross-validated agreement of steady-state detection with Traini et al. (EMSE 2022).

The detector's settings -- the CROPS penalty range (multiples of log n) and the late-burst
window (``rigorbench.stats.steady``) -- were chosen on ``../shared/data/steady-state-dev``,
so agreement measured on that same data flatters it. This script estimates agreement on
benchmarks the settings were not chosen on: group 5-fold cross-validation, grouping the 50
benchmarks by project (the part of the name before '#') so one project's benchmarks never
sit on both sides; in every fold the setting with the best benchmark agreement on the
training folds (fork agreement breaks ties) is applied to the held-out fold. It reports
per fold and pooled over the held-out folds: fork agreement, benchmark agreement (the study
calls a benchmark "steady state" when all its forks are) and the median |start difference|
over forks both call steady. The same for the fixed-penalty detector used before (PELT at
c log n, no CROPS, no late-burst check), for comparison.

Every fork's CROPS path is computed once over the widest range of the grid; a narrower
range's segmentation is the elbow of the path's part optimal for penalties inside it.

Run: ``python benchmarks/steady_cv.py`` (about 2 minutes). Needs ``../shared/data``.
``tests/analysis/test_shared_steady_state.py`` runs it with a smaller grid.
"""

from __future__ import annotations

import gzip
import json
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from rigorbench.stats import steady

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "steady-state-dev"
FOLDS = 5
SEED = 20261124
LOWS, HIGHS, WINDOWS = (10.0, 20.0, 30.0), (200.0, 400.0), (100, 150, 250)
FIXED = (20.0, 30.0, 45.0, 60.0, 80.0, 120.0)


def names() -> list[str]:
    return sorted(p.name[: -len(".json")] for p in (DATA / "classification").glob("*.json"))


def load(name: str) -> tuple[list[np.ndarray], dict]:
    with gzip.open(DATA / "timeseries" / f"{name}.json.gz", "rt") as handle:
        forks = [np.asarray(f, dtype=np.float64) for f in json.load(handle)]
    with open(DATA / "classification" / f"{name}.json") as handle:
        return forks, json.load(handle)


def _optimal(path, penalty: float):
    return min(path, key=lambda s: s.cost + penalty * len(s.change_points))


def _fork_results(args) -> dict:
    """Every candidate setting's (start, reached) for one fork."""
    x, seed, lows, highs, windows, fixed = args
    kept = steady.kept_points(x)
    y = x[kept]
    size = min(5, max(2, y.size // 4))
    jump = max(1, math.ceil(y.size / steady.MAX_CANDIDATES))
    log_n = math.log(y.size)
    path = steady.crops(y, min(lows + fixed) * log_n, max(highs + fixed) * log_n, min_size=size, jump=jump)
    out = {}

    def state(cps, window):
        s = steady.fork_state(x, kept, cps, tolerance=0.05, last_fraction=5 / 6,
                              rng=np.random.default_rng(seed), window=window)
        return s.start, s.reached

    for low in lows:
        for high in highs:
            most = len(_optimal(path, low * log_n).change_points)
            fewest = len(_optimal(path, high * log_n).change_points)
            cps = steady.elbow([s for s in path if fewest <= len(s.change_points) <= most]).change_points
            for window in windows:
                out[("crops", low, high, window)] = state(cps, window)
    for c in fixed:
        cps = _optimal(path, c * log_n).change_points
        out[("fixed", c)] = state(cps, 10**9)  # a window longer than any tail: no late-burst check
    return out


def candidate_results(lows=LOWS, highs=HIGHS, windows=WINDOWS, fixed=FIXED, workers: int = 2):
    """{benchmark: (study, [per fork {setting: (start, reached)}])}."""
    jobs, owners, studies = [], [], {}
    for name in names():
        forks, study = load(name)
        studies[name] = study
        seeds = np.random.SeedSequence(0).spawn(len(forks))  # as classify_forks
        for fork, seed in zip(forks, seeds):
            jobs.append((fork, seed, tuple(lows), tuple(highs), tuple(windows), tuple(fixed)))
            owners.append(name)
    with ProcessPoolExecutor(workers) as pool:
        results = list(pool.map(_fork_results, jobs, chunksize=4))
    per_name: dict = {name: (studies[name], []) for name in studies}
    for name, result in zip(owners, results):
        per_name[name][1].append(result)
    return per_name


def agreement(per_name, chosen: dict) -> dict:
    """Fork and benchmark agreement and start gaps with setting ``chosen[name]`` per benchmark."""
    fork_hits = forks = bench_hits = 0
    gaps = []
    for name, setting in chosen.items():
        study, results = per_name[name]
        ours = [r[setting] for r in results]
        truth = study["steady_state_starts"]
        fork_hits += sum((s >= 0) == reached for s, (_, reached) in zip(truth, ours))
        forks += len(ours)
        bench_hits += ("steady state" if all(r for _, r in ours) else "inconsistent") == study["run"]
        gaps += [abs(s - start) for s, (start, reached) in zip(truth, ours) if s >= 0 and reached]
    return {"fork": fork_hits / forks, "benchmark": bench_hits / len(chosen),
            "gap": float(np.median(gaps)) if gaps else float("nan"), "forks": forks, "benchmarks": len(chosen)}


def folds(all_names: list[str]) -> list[set[str]]:
    projects = sorted({n.split("#")[0] for n in all_names})
    order = np.random.default_rng(SEED).permutation(projects)
    return [set(order[i::FOLDS]) for i in range(FOLDS)]


def cross_validate(per_name, family: str) -> tuple[dict, list]:
    """Pooled held-out agreement and, per fold, (setting chosen, held-out agreement)."""
    all_names = sorted(per_name)
    settings = sorted({k for r in per_name[all_names[0]][1] for k in r if k[0] == family})
    chosen, rows = {}, []
    for fold in folds(all_names):
        train = [n for n in all_names if n.split("#")[0] not in fold]
        test = [n for n in all_names if n.split("#")[0] in fold]

        def score(setting):
            a = agreement(per_name, {n: setting for n in train})
            return a["benchmark"], a["fork"]

        best = max(settings, key=score)
        chosen.update({n: best for n in test})
        rows.append((best, agreement(per_name, {n: best for n in test})))
    return agreement(per_name, chosen), rows


def main() -> int:
    if not DATA.is_dir():
        print(f"no data at {DATA}", file=sys.stderr)
        return 1
    per_name = candidate_results()
    default = ("crops", *steady.PENALTY_RANGE, steady.TAIL_WINDOW)
    for family, label in (("crops", "CROPS + elbow + late-burst check"), ("fixed", "fixed penalty (before)")):
        pooled, rows = cross_validate(per_name, family)
        print(f"{label}: group {FOLDS}-fold cross-validation by project")
        for k, (best, a) in enumerate(rows, 1):
            print(f"  fold {k}: {a['benchmarks']:2d} benchmarks, chose {best[1:]}: fork {a['fork']:.3f}  "
                  f"benchmark {a['benchmark']:.3f}")
        print(f"  held-out, pooled: fork {pooled['fork']:.3f}  benchmark {pooled['benchmark']:.3f}  "
              f"median |start difference| {pooled['gap']:.1f}")
    settings = sorted({k for r in per_name[names()[0]][1] for k in r if k[0] == "crops"})
    best = max(settings, key=lambda s: (lambda a: (a["benchmark"], a["fork"]))(
        agreement(per_name, {n: s for n in per_name})))
    chosen = agreement(per_name, {n: best for n in per_name})
    print(f"setting the same rule chooses on all 50 (what the default should be): {best[1:]}: "
          f"fork {chosen['fork']:.3f}  benchmark {chosen['benchmark']:.3f}")
    whole = agreement(per_name, {n: default for n in per_name})
    print(f"default {default[1:]} on all 50 (the data it was chosen on): fork {whole['fork']:.3f}  "
          f"benchmark {whole['benchmark']:.3f}  median |start difference| {whole['gap']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
