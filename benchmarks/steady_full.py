"""Agreement of steady-state detection with Traini et al. (EMSE 2022), on their published data.

The study published all of its data: 586 JMH benchmarks from 30 Java systems, 10 forks x
3000 iterations each, with its verdicts and change points (``SEALABQualityGroup/steady-state``,
``data/timeseries/all``, ``data/classification``, ``data/changepoints``). ``--convert`` writes
them in the layout of ``../shared/data/steady-state-dev`` (``timeseries/<name>.json.gz``,
``classification/<name>.json``, ``changepoints/<name>.json``).

rigorbench's detector (``rigorbench.stats.steady``) has no setting of its own: it does what
the study's replication package does. So every benchmark is one no setting was chosen on;
the 50 of ``steady-state-dev`` (the benchmarks earlier detectors were tuned on) are still
left out unless ``--include-dev`` is given.

Reported per project, per fold of whole projects (5 folds of 6, seed 20261124) and pooled:
fork agreement, benchmark agreement (the study calls a benchmark "steady state" when all its
forks are), the median |start difference| over forks both call steady, and, where the
study's change points are in DATA, for how many forks ours are the same, point for point.

Results are cached per benchmark (``--cache``, keyed by a hash of the detector's source), so
an interrupted run resumes. ``--sample K`` evaluates at most K benchmarks per project.

Run: ``python benchmarks/steady_full.py DATA [--workers 2]`` or with
``RIGORBENCH_STEADY_DATA=DATA``; about 6 s of CPU per benchmark.
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
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from rigorbench.stats import segmentation, steady

DEV = Path(os.environ.get("RIGORBENCH_STEADY_DEV",
                          Path(__file__).resolve().parents[1].parent / "shared" / "data" / "steady-state-dev"))
FOLDS = 5
SEED = 20261124


def names(data: Path) -> list[str]:
    return sorted(p.name[: -len(".json")] for p in (data / "classification").glob("*.json"))


def load(data: Path, name: str) -> tuple[list[np.ndarray], dict]:
    with gzip.open(data / "timeseries" / f"{name}.json.gz", "rt") as handle:
        forks = [np.asarray(f, dtype=np.float64) for f in json.load(handle)]
    with open(data / "classification" / f"{name}.json") as handle:
        return forks, json.load(handle)


def folds(all_names: list[str]) -> list[set[str]]:
    projects = sorted({n.split("#")[0] for n in all_names})
    order = np.random.default_rng(SEED).permutation(projects)
    return [set(order[i::FOLDS]) for i in range(FOLDS)]


def _code_hash() -> str:
    digest = hashlib.sha256()
    for module in (steady, segmentation):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:12]


def chosen_names(data: Path, dev: Path | None, sample: int | None = None, seed: int = 0) -> list[str]:
    """The benchmarks of ``data`` minus those of ``dev`` (unless None), optionally at most
    ``sample`` per project drawn with ``seed``."""
    excluded = set(names(dev)) if dev is not None else set()
    if dev is not None and not excluded:
        raise SystemExit(f"no development benchmarks at {dev}: cannot tell which to leave out")
    picked = [n for n in names(data) if n not in excluded]
    if sample is None:
        return picked
    by_project = defaultdict(list)
    for n in picked:
        by_project[n.split("#")[0]].append(n)
    rng = np.random.default_rng(seed)
    out = []
    for project in sorted(by_project):
        members = by_project[project]
        out += [members[i] for i in sorted(rng.choice(len(members), min(sample, len(members)), replace=False))]
    return sorted(out)


def convert(study_data: Path, out: Path) -> int:
    """Write a checkout's ``data/`` folder in the layout of ``steady-state-dev``."""
    for kind in ("timeseries", "classification", "changepoints"):
        (out / kind).mkdir(parents=True, exist_ok=True)
    count = 0
    for path in sorted((study_data / "classification").glob("*.json")):
        series = json.loads((study_data / "timeseries" / "all" / path.name).read_text())
        with gzip.open(out / "timeseries" / f"{path.stem}.json.gz", "wt") as handle:
            json.dump(series, handle)
        (out / "classification" / path.name).write_text(path.read_text())
        points = study_data / "changepoints" / path.name
        if points.exists():
            (out / "changepoints" / path.name).write_text(points.read_text())
        count += 1
    return count


def detector_result(job: tuple[Path, str, Path]) -> dict:
    """The study's verdict and ours for one benchmark (cached): per fork our start, whether
    it is reached, and whether our change points are the study's."""
    data, name, cache = job
    folder = cache / f"detector-{_code_hash()}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (hashlib.sha256(name.encode()).hexdigest()[:24] + ".json")
    if path.exists():
        return json.loads(path.read_text())
    forks, study = load(data, name)
    ours = steady.classify_forks(forks)
    points = data / "changepoints" / f"{name}.json"
    same = None
    if points.exists():
        # The study lists the last index of every segment (its input's indices), the last
        # one being the last kept point; ours start the segments after the first.
        theirs = json.loads(points.read_text())
        same = [[c - 1 for c in f.change_points] == t[:-1] for f, t in zip(ours.forks, theirs)]
    value = {"name": name, "study": study, "starts": [f.start for f in ours.forks],
             "reached": [bool(f.reached) for f in ours.forks], "verdict": ours.verdict, "same_points": same}
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(value))
    tmp.replace(path)
    return value


def summarise(results: list[dict]) -> dict:
    """Fork and benchmark agreement, start gaps, the kinds of disagreement and the forks
    whose change points are the study's."""
    fork_hits = forks = bench_hits = same = compared = 0
    gaps, kinds, fork_kinds = [], Counter(), Counter()
    for r in results:
        truth = r["study"]["steady_state_starts"]
        for s, start, reached in zip(truth, r["starts"], r["reached"]):
            forks += 1
            fork_hits += (s >= 0) == reached
            if (s >= 0) != reached:
                fork_kinds["study steady, ours not" if s >= 0 else "study not, ours steady"] += 1
            if s >= 0 and reached:  # the study gives the last iteration before the steady part
                gaps.append(abs(s + (s > 0) - start))
        bench_hits += all(r["reached"]) == (r["study"]["run"] == "steady state")
        kinds[(r["study"]["run"], r["verdict"])] += 1
        if r.get("same_points") is not None:
            same += sum(r["same_points"])
            compared += len(r["same_points"])
    return {"fork": fork_hits / forks if forks else float("nan"),
            "benchmark": bench_hits / len(results) if results else float("nan"),
            "forks": forks, "benchmarks": len(results), "fork_hits": fork_hits, "bench_hits": bench_hits,
            "gap": float(np.median(gaps)) if gaps else float("nan"), "confusion": kinds,
            "fork_disagreements": fork_kinds, "same_points": same, "compared_points": compared}


def evaluate(data: Path, chosen: list[str], cache: Path, workers: int) -> dict:
    results, started = [], time.monotonic()
    jobs = [(data, n, cache) for n in chosen]
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        for i, result in enumerate((pool.map if pool else map)(detector_result, jobs), 1):
            results.append(result)
            if i % 25 == 0:
                print(f"  {i}/{len(chosen)} benchmarks, {time.monotonic() - started:.0f} s", flush=True)
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    by_name = {r["name"]: r for r in results}
    projects = sorted({n.split("#")[0] for n in chosen})
    return {"pooled": summarise(results),
            "per_project": {p: summarise([r for r in results if r["name"].split("#")[0] == p]) for p in projects},
            "per_fold": [(sorted(f), summarise([by_name[n] for n in chosen if n.split("#")[0] in f]))
                         for f in folds(chosen)],
            "results": results}


def _line(label: str, a: dict) -> str:
    points = (f"  same change points {a['same_points']}/{a['compared_points']}" if a["compared_points"] else "")
    return (f"{label}: {a['benchmarks']:3d} benchmarks, {a['forks']:4d} forks: "
            f"fork {a['fork']:.3f} ({a['fork_hits']}/{a['forks']})  "
            f"benchmark {a['benchmark']:.3f} ({a['bench_hits']}/{a['benchmarks']})  "
            f"median |start difference| {a['gap']:.0f}{points}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", default=os.environ.get("RIGORBENCH_STEADY_DATA"),
                        help="the data set (or RIGORBENCH_STEADY_DATA)")
    parser.add_argument("--dev", type=Path, default=DEV, help="the development subset to leave out")
    parser.add_argument("--include-dev", action="store_true", help="leave nothing out")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/steady/cache"))
    parser.add_argument("--sample", type=int, default=None, help="at most K benchmarks per project")
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--convert", type=Path, metavar="STUDY_DATA",
                        help="first write the study's data/ folder (a checkout) into DATA")
    args = parser.parse_args(argv)
    if args.convert and args.data:
        print(f"converted {convert(args.convert, Path(args.data))} benchmarks into {args.data}")
    if not args.data or not Path(args.data).is_dir():
        print("give the data folder (or set RIGORBENCH_STEADY_DATA)", file=sys.stderr)
        return 1
    data = Path(args.data)
    chosen = chosen_names(data, None if args.include_dev else args.dev, args.sample, args.seed)
    projects = sorted({n.split("#")[0] for n in chosen})
    left_out = "nothing left out" if args.include_dev else "the development benchmarks left out"
    print(f"{len(chosen)} benchmarks from {len(projects)} projects ({left_out}"
          f"{'' if args.sample is None else f'; at most {args.sample} per project, seed {args.seed}'})")
    a = evaluate(data, chosen, args.cache, args.workers)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
