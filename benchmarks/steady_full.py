"""Held-out agreement of steady-state detection with Traini et al. (EMSE 2022), full data set.

``benchmarks/steady_cv.py`` measures agreement on the 50 development benchmarks the
detector's settings were chosen on. This script measures it on the rest of the study's
published data (586 JMH benchmarks from 30 Java systems, 10 forks x 3000 iterations each,
``SEALABQualityGroup/steady-state``, ``data/timeseries/all`` and ``data/classification``,
converted to the layout of ``steady-state-dev``: ``timeseries/<name>.json.gz`` and
``classification/<name>.json``). The 50 development benchmarks are left out of every
figure (their names are read from ``../shared/data/steady-state-dev``, or ``--dev`` or
``RIGORBENCH_STEADY_DEV``), so every
benchmark counted here is one no setting was chosen on.

Two evaluations, both grouped by project (the system, the part of the name before '#'):

(a) the detector as it is (``classify_forks`` with its defaults): per project, per
    held-out fold of ``steady_cv.folds`` (5 folds of whole projects) and pooled;
(b) with ``--grid``: ``steady_cv``'s settings grid, the best setting chosen in every fold
    on the training projects' benchmarks (``steady_cv.cross_validate``) and applied to the
    held-out projects; pooled over the held-out folds.

A benchmark is "steady state" when every fork is, "inconsistent" otherwise, as in
``tests/analysis/test_shared_steady_state.py``. Classification takes seconds per
benchmark, so every benchmark's result is cached (JSON, one file per benchmark, keyed by a
hash of the detector's source) under ``--cache`` (default ``/tmp/steady/cache``): an
interrupted run resumes where it stopped. ``--sample K`` evaluates at most K benchmarks per
project, drawn with ``--seed`` (stratified by project).

Run: ``python benchmarks/steady_full.py DATA [--grid] [--sample K]`` or with
``RIGORBENCH_STEADY_DATA=DATA``. About 0.4 s of CPU per benchmark for (a), 3 s more for (b).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
import time
from collections import Counter, defaultdict
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import steady_cv as cv  # noqa: E402  (the grid, folds, agreement and cross-validation)

from rigorbench.stats import segmentation, steady  # noqa: E402

# ../shared/data/steady-state-dev: the benchmarks the settings were chosen on
DEV = Path(os.environ.get("RIGORBENCH_STEADY_DEV", cv.DATA))


def _code_hash() -> str:
    digest = hashlib.sha256()
    for module in (steady, segmentation, cv):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:12]


def dev_names(dev: Path = DEV) -> set[str]:
    return {p.name[: -len(".json")] for p in (dev / "classification").glob("*.json")}


def held_out_names(data: Path, dev: Path = DEV, sample: int | None = None, seed: int = 0) -> list[str]:
    """The benchmarks of ``data`` that are not development benchmarks, optionally at most
    ``sample`` per project drawn with ``seed``."""
    cv.DATA = data
    excluded = dev_names(dev)
    if not excluded:
        raise SystemExit(f"no development benchmarks at {dev}: cannot tell which to leave out")
    names = [n for n in cv.names() if n not in excluded]
    if sample is None:
        return names
    by_project = defaultdict(list)
    for n in names:
        by_project[n.split("#")[0]].append(n)
    rng = np.random.default_rng(seed)
    picked = []
    for project in sorted(by_project):
        members = by_project[project]
        picked += [members[i] for i in sorted(rng.choice(len(members), min(sample, len(members)), replace=False))]
    return sorted(picked)


def convert(study_data: Path, out: Path) -> int:
    """Write the study's ``data/timeseries/all/<name>.json`` and ``data/classification/<name>.json``
    (a checkout of SEALABQualityGroup/steady-state) in the layout of ``steady-state-dev``."""
    (out / "timeseries").mkdir(parents=True, exist_ok=True)
    (out / "classification").mkdir(parents=True, exist_ok=True)
    count = 0
    for path in sorted((study_data / "classification").glob("*.json")):
        series = json.loads((study_data / "timeseries" / "all" / path.name).read_text())
        with gzip.open(out / "timeseries" / f"{path.stem}.json.gz", "wt") as handle:
            json.dump(series, handle)
        (out / "classification" / path.name).write_text(path.read_text())
        count += 1
    return count


def _cached(cache: Path, kind: str, name: str, compute):
    folder = cache / f"{kind}-{_code_hash()}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (hashlib.sha256(name.encode()).hexdigest()[:24] + ".json")
    if path.exists():
        return json.loads(path.read_text())
    value = compute()
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"name": name, **value}))
    tmp.replace(path)
    return {"name": name, **value}


def detector_result(name: str, cache: Path) -> dict:
    """The study's verdict and ours (defaults) for one benchmark: starts and reached per fork."""

    def compute():
        forks, study = cv.load(name)
        ours = steady.classify_forks(forks)
        return {"study": study, "starts": [f.start for f in ours.forks],
                "reached": [bool(f.reached) for f in ours.forks], "verdict": ours.verdict}

    return _cached(cache, "detector", name, compute)


def _key(setting: tuple) -> str:
    return "|".join(map(str, setting))


def grid_result(name: str, cache: Path) -> tuple[dict, list[dict]]:
    """(study, per fork {setting: (start, reached)}) over steady_cv's grid."""

    def compute():
        forks, study = cv.load(name)
        seeds = np.random.SeedSequence(0).spawn(len(forks))  # as classify_forks
        out = []
        for fork, seed in zip(forks, seeds):
            r = cv._fork_results((fork, seed, cv.LOWS, cv.HIGHS, cv.WINDOWS, cv.FIXED))
            out.append({_key(k): [v[0], bool(v[1])] for k, v in r.items()})
        return {"study": study, "forks": out}

    raw = _cached(cache, "grid", name, compute)
    settings = {}
    per_fork = []
    for fork in raw["forks"]:
        entry = {}
        for key, (start, reached) in fork.items():
            if key not in settings:
                parts = key.split("|")
                settings[key] = (parts[0], *(float(p) if "." in p else int(p) for p in parts[1:]))
            entry[settings[key]] = (start, reached)
        per_fork.append(entry)
    return raw["study"], per_fork


def study_steady(study: dict) -> bool:
    return study["run"] == "steady state"


def summarise(results: list[dict]) -> dict:
    """Fork and benchmark agreement of detector results, with the kinds of disagreement."""
    fork_hits = forks = bench_hits = 0
    gaps, kinds, fork_kinds = [], Counter(), Counter()
    for r in results:
        truth = r["study"]["steady_state_starts"]
        for s, start, reached in zip(truth, r["starts"], r["reached"]):
            forks += 1
            fork_hits += (s >= 0) == reached
            if (s >= 0) != reached:
                fork_kinds["study steady, ours not" if s >= 0 else "study not, ours steady"] += 1
            if s >= 0 and reached:
                gaps.append(abs(s - start))
        ours_steady = all(r["reached"])
        bench_hits += ours_steady == study_steady(r["study"])
        kinds[(r["study"]["run"], r["verdict"])] += 1
    return {"fork": fork_hits / forks if forks else float("nan"),
            "benchmark": bench_hits / len(results) if results else float("nan"),
            "forks": forks, "benchmarks": len(results), "fork_hits": fork_hits, "bench_hits": bench_hits,
            "gap": float(np.median(gaps)) if gaps else float("nan"), "confusion": kinds,
            "fork_disagreements": fork_kinds}


def evaluate_detector(names: list[str], cache: Path, log=partial(print, flush=True)) -> dict:
    """(a): the detector as it is, per project, per project fold and pooled."""
    results, started = [], time.monotonic()
    for i, name in enumerate(names, 1):
        results.append(detector_result(name, cache))
        if i % 50 == 0:
            log(f"  [detector] {i}/{len(names)} benchmarks, {time.monotonic() - started:.0f} s")
    by_name = {r["name"]: r for r in results}
    projects = sorted({n.split("#")[0] for n in names})
    per_project = {p: summarise([r for r in results if r["name"].split("#")[0] == p]) for p in projects}
    per_fold = [(sorted(fold), summarise([by_name[n] for n in names if n.split("#")[0] in fold]))
                for fold in cv.folds(names)]
    return {"pooled": summarise(results), "per_project": per_project, "per_fold": per_fold,
            "results": results}


def evaluate_grid(names: list[str], cache: Path, log=partial(print, flush=True)) -> tuple[dict, list]:
    """(b): steady_cv's grid, the setting chosen on the training projects of every fold."""
    per_name, started = {}, time.monotonic()
    for i, name in enumerate(names, 1):
        per_name[name] = grid_result(name, cache)
        if i % 25 == 0:
            log(f"  [grid] {i}/{len(names)} benchmarks, {time.monotonic() - started:.0f} s")
    return cv.cross_validate(per_name, "crops")


def _line(label: str, a: dict) -> str:
    return (f"{label}: {a['benchmarks']:3d} benchmarks, {a['forks']:4d} forks: "
            f"fork {a['fork']:.3f} ({a['fork_hits']}/{a['forks']})  "
            f"benchmark {a['benchmark']:.3f} ({a['bench_hits']}/{a['benchmarks']})  "
            f"median |start difference| {a['gap']:.0f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", default=os.environ.get("RIGORBENCH_STEADY_DATA"),
                        help="the full data set (or RIGORBENCH_STEADY_DATA)")
    parser.add_argument("--dev", type=Path, default=DEV, help="the development subset to leave out")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/steady/cache"))
    parser.add_argument("--sample", type=int, default=None, help="at most K benchmarks per project")
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--grid", action="store_true", help="also (b): the grid chosen per fold")
    parser.add_argument("--convert", type=Path, metavar="STUDY_DATA",
                        help="first write the study's data/ folder (a checkout) into DATA")
    args = parser.parse_args(argv)
    if args.convert and args.data:
        print(f"converted {convert(args.convert, Path(args.data))} benchmarks into {args.data}")
    if not args.data or not Path(args.data).is_dir():
        print("give the data folder (or set RIGORBENCH_STEADY_DATA)", file=sys.stderr)
        return 1
    names = held_out_names(Path(args.data), args.dev, args.sample, args.seed)
    projects = sorted({n.split("#")[0] for n in names})
    print(f"{len(names)} benchmarks from {len(projects)} projects, none of them a development "
          f"benchmark{'' if args.sample is None else f' (at most {args.sample} per project, seed {args.seed})'}")

    a = evaluate_detector(names, args.cache)
    print(f"(a) the detector as it is (range {steady.PENALTY_RANGE}, window {steady.TAIL_WINDOW}), "
          f"benchmarks no setting was chosen on")
    for p, s in a["per_project"].items():
        print("  " + _line(f"{p:32}", s))
    for k, (fold, s) in enumerate(a["per_fold"], 1):
        print("  " + _line(f"fold {k} ({len(fold)} projects)", s))
    pooled = a["pooled"]
    print("  " + _line("pooled", pooled))
    print(f"  fold range: fork {min(s['fork'] for _, s in a['per_fold']):.3f}-"
          f"{max(s['fork'] for _, s in a['per_fold']):.3f}, benchmark "
          f"{min(s['benchmark'] for _, s in a['per_fold']):.3f}-{max(s['benchmark'] for _, s in a['per_fold']):.3f}")
    print("  confusion (study, ours): " + ", ".join(f"{k[0]} / {k[1]}: {v}" for k, v in sorted(pooled["confusion"].items())))
    print("  fork disagreements: " + ", ".join(f"{k}: {v}" for k, v in sorted(pooled["fork_disagreements"].items())))

    if args.grid:
        crops, rows = evaluate_grid(names, args.cache)
        print(f"(b) steady_cv's grid, chosen per fold on the training projects ({cv.FOLDS} folds)")
        for k, (best, s) in enumerate(rows, 1):
            print(f"  fold {k}: {s['benchmarks']:3d} benchmarks, chose {best[1:]}: fork {s['fork']:.3f}  "
                  f"benchmark {s['benchmark']:.3f}")
        print(f"  held-out, pooled: fork {crops['fork']:.3f}  benchmark {crops['benchmark']:.3f}  "
              f"median |start difference| {crops['gap']:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
