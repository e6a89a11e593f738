"""A/A check of ``--until-decided``'s stopping rule on real trials (issue 18).

For every benchmark case of each data set, A/A experiments are drawn from that case's real
trials (``benchmarks/aa_simulation.py``): both versions' trials come from the same
recorded ones, so every slower/faster is false. Three designs decide the same draws: the
sequential rule (looks after trials 3..20 at Pocock's per-look level, ``t`` interval), the
same with futility (``curtailed``: ``--futility 10%``, the default), the fixed design (one look
at 10 trials, 99%, expanded interval) and naive peeking (every look at 99%). Prints, per data set and pooled, the false-verdict counts with Wilson 95% intervals and
the mean trials per version each design ran.

Data sets:
- ``example``: ``tests/testdata/stores/aa-demo.db.gz``, 40 real trials of ``examples/jmh-demo`` v1
  (``rigorbench ab --base v1 --contender v1 --trials 20 --quick``; 4 cases);
- ``impact``: ``../shared/data/jmh-impact-dev``, the original benchmarks' 5 JMH runs each
  (Costa et al.), one trial per console log;
- ``steady``: ``../shared/data/steady-state-dev``, each of the 10 forks of a benchmark as a
  trial of one fork, its iterations 1000-2999 thinned to every 20th (100 values), after the
  warmup of nearly every fork.

Run: ``python benchmarks/stopping_aa.py [--experiments N]`` (N per case; about 10 minutes
with the default on 2 cores). Data sets whose files are absent are skipped with a note.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from rigorbench import api, parallel
from rigorbench.analysis.dataset import iteration_observations
from rigorbench.store import ResultStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from aa_simulation import DESIGNS, AAResult, Trial, simulate_aa, trials_from_levels  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "tests" / "testdata" / "stores" / "aa-demo.db.gz"
SHARED = ROOT.parent / "shared" / "data"


def example_cases() -> list[tuple[str, list[Trial]]]:
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "aa.db"
        with gzip.open(EXAMPLE, "rb") as source, open(db, "wb") as target:
            shutil.copyfileobj(source, target)
        with ResultStore.open(db, create=False) as store:
            cases: dict[str, list[Trial]] = {}
            for label in ("A", "B"):   # both are v1: one pool of 40 trials per case
                for series in store.load_series(1, label):
                    if series.metric.primary:
                        obs = iteration_observations(series.samples)
                        cases.setdefault(series.case.display_name, []).extend(trials_from_levels(obs.values, obs.levels))
    return sorted(cases.items())


def impact_cases() -> list[tuple[str, list[Trial]]]:
    cases: dict[str, list[Trial]] = {}
    for log in sorted((SHARED / "jmh-impact-dev").glob("*/*/original/*.out")):
        dataset = api.load_results([log])
        for (case, metric), table in dataset.series.items():
            if metric.primary:
                obs = iteration_observations(table)
                cases.setdefault(f"{log.parts[-4]}:{case.display_name}", []).extend(trials_from_levels(obs.values, obs.levels))
    return sorted((name, trials) for name, trials in cases.items() if len(trials) >= 3)


def steady_cases() -> list[tuple[str, list[Trial]]]:
    cases = []
    for path in sorted((SHARED / "steady-state-dev" / "timeseries").glob("*.json.gz")):
        with gzip.open(path, "rt") as handle:
            forks = json.load(handle)
        trials = [Trial(np.asarray(fork[1000:3000:20], dtype=float), np.zeros(100, dtype=int)) for fork in forks]
        cases.append((path.name.removesuffix(".json.gz"), trials))
    return cases


def _one(work: tuple) -> AAResult:
    trials, experiments, seed, change, threshold = work
    return simulate_aa(trials, experiments=experiments, seed=seed, change=change, threshold=threshold)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", type=int, default=100, help="A/A experiments per benchmark case")
    parser.add_argument("--change", type=float, default=0.0,
                        help="plant a change: the second version's values are 1 + CHANGE times the drawn ones (default 0: A/A); "
                        "'false' then counts verdicts of the wrong direction, and the verdicts of each design are printed")
    parser.add_argument("--threshold", type=float, default=0.01, help="the practical threshold (default 0.01)")
    args = parser.parse_args(argv)
    sources = {"example": (EXAMPLE.exists(), example_cases), "impact": ((SHARED / "jmh-impact-dev").is_dir(), impact_cases),
               "steady": ((SHARED / "steady-state-dev").is_dir(), steady_cases)}
    total = {d: 0 for d in DESIGNS}
    count = 0
    print("| data | cases | experiments | " + " | ".join(f"{d} false (Wilson 95%)" for d in DESIGNS) + " | trials per version (seq / curtailed / fixed) |")
    print("|---" * (4 + len(DESIGNS)) + "|")
    for name, (present, load) in sources.items():
        if not present:
            print(f"(skipped {name}: its data is absent)", file=sys.stderr)
            continue
        cases = load()
        experiments = args.experiments if name != "steady" else max(1, args.experiments // 5)
        work = [(trials, experiments, 7919 * i, args.change, args.threshold) for i, (_, trials) in enumerate(cases)]
        results = list(parallel.ordered_map(_one, work, parallel.workers_for(len(work), None, min_series=2)))
        pooled = AAResult(sum(r.experiments for r in results), {d: sum(r.false[d] for r in results) for d in DESIGNS},
                          {d: float(np.mean([r.trials_used[d] for r in results])) for d in DESIGNS})
        for d in DESIGNS:
            total[d] += pooled.false[d]
        if args.change:
            found = {d: {v: sum(r.verdicts[d].get(v, 0) for r in results) for v in ("slower", "faster", "unchanged", "inconclusive")}
                     for d in DESIGNS}
            print(f"({name}: verdicts per design: {found})", file=sys.stderr)
        count += pooled.experiments
        print(f"| {name} | {len(cases)} | {pooled.experiments} | " + " | ".join(_rate(pooled, d) for d in DESIGNS)
              + f" | {pooled.trials_used['sequential']:.1f} / {pooled.trials_used['curtailed']:.1f} / {pooled.trials_used['fixed']:.0f} |",
              flush=True)
    if count:
        every = AAResult(count, total, {d: float("nan") for d in DESIGNS})
        print(f"| all | | {count} | " + " | ".join(_rate(every, d) for d in DESIGNS) + " | |")
    return 0


def _rate(result: AAResult, design: str) -> str:
    low, high = result.wilson(design)
    return f"{result.false[design]} = {100 * result.rate(design):.2f}% [{100 * low:.2f}, {100 * high:.2f}]"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
