"""Replay stopping rules offline on recorded series, so that they are compared on the same data.

Data: Traini et al.'s 50 development benchmarks (``../shared/data/steady-state-dev``): 10
forks x 3000 iterations of about 100 ms each, recorded with no warmup, and the study's
per-fork steady-state starts.  Every rule below decides, from the recorded values alone,
which iterations it would have run and which it would have measured; nothing is re-run.

Time unit: one recorded value is about 100 ms, so 10 s of JMH iteration time is 100 values
and a 1 s iteration is 10.  Rules:

- ``jmh-defaults``: JMH >= 1.21 defaults, 5 forks x (5 warmup + 5 measurement iterations of
  10 s) = forks 0-4, values [0, 500) warmup and [500, 1000) measured.
- ``laaber-cov``, ``laaber-rciw``, ``laaber-kld``: dynamic reconfiguration with one of
  Laaber et al.'s criteria (``benchmarks/laaber_criteria.py``), with their prototype's settings:
  1 s iterations (10 values; the criteria see the 10 values as the iteration's samples), at
  least 5 and at most 50 warmup iterations, then 50 measurement iterations, at least 2 and
  at most 5 forks (forks 0-4 in order).
- ``ours``: ``auto_warmup`` on a pilot fork (fork 0) that runs :data:`PILOT_WARMUP` (1000
  values, 100 s) of warmup then :data:`MEASUREMENT` (500) measurement values; the detector
  reads all 1500.  The later forks 1-4 get the chosen warmup and 500 measured values each; the
  pilot's own measurement counts from ``max(1000, chosen warmup)``.  Five forks in all, as
  JMH's defaults.  A pilot that never settles is flagged; the later forks then warm up for the
  pilot's whole length (1500 values), and the pilot contributes no measurement.
- ``oracle-warmup`` (not a rule, a floor): forks 0-4, 500 values each from the study's own
  steady start of that fork (from 2500 for a fork the study calls never steady).  Its error
  is what remains with a perfect warmup: 5 forks of 10 and 500 values each.

Pilot length: the study's steady-state starts have median 34, 75th percentile 422 and 90th
percentile 1551 (of 460 steady forks); a pilot of 1500 values sees starts up to 1250 (the
detector counts a start in the last sixth as not reached), 88% of the steady forks'
starts, at 5% of the full series' time.

Measures, per benchmark and rule:

- **time saved**: ``1 - values run / 30000`` (all 10 x 3000 values are the full series);
- **error**: ``|estimate - reference| / reference``, where the estimate is the mean of all
  values the rule measured and the reference is the full series' steady-state mean as Traini
  et al. (EMSE 2022) define it: the mean of all values from the study's ``steady_state_starts``
  on, pooled over the forks the study calls steady.  Forks that never reach steady state
  (start -1) are left out of the reference; every one of the 50 benchmarks has at least one
  steady fork, so the reference is always defined (when none has, the benchmark is skipped
  and reported);
- **wrong answer**: error above 5% (the tolerance that defines steady state);
- **measured in warmup**: the share of measured values that lie before the study's steady
  start of their fork, or in a fork the study calls never steady.

Run: ``python benchmarks/replay_stopping.py [--verbose] [--jobs N] [--first-fork K]
[NAME_SUBSTRING ...]`` (under a minute on 2 CPUs).  ``--first-fork 5`` replays on forks 5-9
(then 0-4): a replicate on other forks of the same benchmarks.  Needs ``../shared/data``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rigorbench.parallel import ordered_map, workers_for
from rigorbench.stats.stopping import auto_warmup
from rigorbench.terminal import printable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from laaber_criteria import CRITERIA, first_stable  # noqa: E402



def _data_dir() -> Path:
    """``shared/data/steady-state-dev`` next to the repository or next to any folder above it
    (a git worktree may sit deeper than the main checkout)."""
    here = Path(__file__).resolve().parents[1]
    for folder in here.parents:
        candidate = folder / "shared" / "data" / "steady-state-dev"
        if candidate.is_dir():
            return candidate
    return here.parent / "shared" / "data" / "steady-state-dev"


DATA = _data_dir()
SEED = 20261125
FULL_FORKS, FULL_ITERATIONS = 10, 3000
PER_SECOND = 10                    # recorded values (~100 ms) per second of iteration time
JMH_FORKS, JMH_WARMUP, JMH_MEASUREMENT = 5, 5 * 10 * PER_SECOND, 5 * 10 * PER_SECOND
LAABER_MIN_WARMUP, LAABER_MAX_WARMUP, LAABER_MEASUREMENT = 5, 50, 50   # 1 s iterations
LAABER_MIN_FORKS, LAABER_MAX_FORKS = 2, 5
PILOT_WARMUP, MEASUREMENT, FORKS = 1000, 500, 5
WRONG = 0.05
RULES = ("jmh-defaults", "laaber-cov", "laaber-rciw", "laaber-kld", "ours", "oracle-warmup")


@dataclass(frozen=True)
class ForkRun:
    """What a rule ran of one fork: values [0, run), of which [measured_from, measured_to) measured."""

    fork: int
    run: int
    measured_from: int
    measured_to: int


@dataclass(frozen=True)
class Replay:
    """One rule on one benchmark."""

    rule: str
    forks: tuple[ForkRun, ...]
    flagged: bool = False   # ours: the pilot never reached steady state

    @property
    def values_run(self) -> int:
        return sum(f.run for f in self.forks)

    def measured(self, series: np.ndarray) -> np.ndarray:
        return np.concatenate([series[f.fork, f.measured_from:f.measured_to] for f in self.forks])


def names() -> list[str]:
    return sorted(p.name[: -len(".json")] for p in (DATA / "classification").glob("*.json"))


def load(name: str) -> tuple[np.ndarray, list[int]]:
    with gzip.open(DATA / "timeseries" / f"{name}.json.gz", "rt") as handle:
        series = np.asarray(json.load(handle), dtype=np.float64)
    with open(DATA / "classification" / f"{name}.json") as handle:
        starts = json.load(handle)["steady_state_starts"]
    if series.shape != (FULL_FORKS, FULL_ITERATIONS) or len(starts) != FULL_FORKS:
        raise ValueError(f"{name}: expected {FULL_FORKS} forks x {FULL_ITERATIONS} iterations")
    return series, starts


def reference_mean(series: np.ndarray, starts: list[int]) -> float | None:
    """Traini et al.'s steady-state mean: values from each steady fork's start on, pooled."""
    parts = [series[f, s:] for f, s in enumerate(starts) if s >= 0]
    return float(np.concatenate(parts).mean()) if parts else None


def replay_jmh(series: np.ndarray) -> Replay:
    end = JMH_WARMUP + JMH_MEASUREMENT
    return Replay("jmh-defaults", tuple(ForkRun(f, end, JMH_WARMUP, end) for f in range(JMH_FORKS)))


def replay_laaber(series: np.ndarray, name: str, seed: np.random.SeedSequence) -> Replay:
    """Dynamic reconfiguration: each fork's warmup stops when the iteration-level criterion
    is stable (or after 50 iterations), then 50 iterations are measured; forks stop when the
    fork-level criterion is stable over the forks' measurements (at least 2, at most 5)."""
    criterion = CRITERIA[name]
    rng = np.random.default_rng(seed)
    runs, measured = [], []
    for f in range(LAABER_MAX_FORKS):
        warmup_units = series[f, :LAABER_MAX_WARMUP * PER_SECOND].reshape(LAABER_MAX_WARMUP, PER_SECOND)
        warmup = first_stable(warmup_units, criterion, history=criterion.iteration_history,
                              minimum=LAABER_MIN_WARMUP, seed=rng) or LAABER_MAX_WARMUP
        start, stop = warmup * PER_SECOND, (warmup + LAABER_MEASUREMENT) * PER_SECOND
        runs.append(ForkRun(f, stop, start, stop))
        measured.append(series[f, start:stop].reshape(LAABER_MEASUREMENT, PER_SECOND))
    forks = first_stable(np.stack(measured), criterion, history=criterion.fork_history,
                         minimum=LAABER_MIN_FORKS, seed=rng) or LAABER_MAX_FORKS
    return Replay(f"laaber-{name}", tuple(runs[:forks]))


def replay_ours(series: np.ndarray, seed: np.random.SeedSequence) -> Replay:
    pilot_length = PILOT_WARMUP + MEASUREMENT
    choice = auto_warmup(series[0, :pilot_length], seed=seed)
    warmup = choice.iterations
    runs = [ForkRun(0, pilot_length, min(max(PILOT_WARMUP, warmup), pilot_length), pilot_length)]
    runs += [ForkRun(f, warmup + MEASUREMENT, warmup, warmup + MEASUREMENT) for f in range(1, FORKS)]
    return Replay("ours", tuple(runs), flagged=not choice.reached)


def replay_oracle(starts: list[int]) -> Replay:
    """Not a rule: forks 0-4 measured for 500 values from the study's own steady start (from
    the last sixth, 2500, for a fork the study calls never steady).  Its error is what is left
    when the warmup is known exactly: five forks of ten, and 500 values of each."""
    runs = []
    for f in range(JMH_FORKS):
        start = min(starts[f], FULL_ITERATIONS - MEASUREMENT) if starts[f] >= 0 else FULL_ITERATIONS - MEASUREMENT
        runs.append(ForkRun(f, start + MEASUREMENT, start, start + MEASUREMENT))
    return Replay("oracle-warmup", tuple(runs))


def measured_in_warmup(replay: Replay, starts: list[int]) -> float:
    """Share of measured values before the study's steady start of their fork (or in a fork
    the study calls never steady)."""
    early = total = 0
    for f in replay.forks:
        start = starts[f.fork] if starts[f.fork] >= 0 else FULL_ITERATIONS
        early += max(0, min(f.measured_to, start) - f.measured_from)
        total += f.measured_to - f.measured_from
    return early / total if total else 0.0


def replay_benchmark(job: tuple[str, int] | tuple[str, int, int]) -> dict:
    """Every rule on one benchmark: {rule: {saved, error, in_warmup, flagged, forks}}.

    ``job`` is (name, index[, first_fork]): the forks are taken in the order first_fork,
    first_fork + 1, ... (modulo 10), so that a second replay on forks 5-9 is a replicate;
    fork numbers in the result are positions in that order.
    """
    name, index, first = (*job, 0) if len(job) == 2 else job
    series, starts = load(name)
    series, starts = np.roll(series, -first, axis=0), list(np.roll(starts, -first))
    reference = reference_mean(series, starts)
    seeds = np.random.SeedSequence([SEED, index]).spawn(len(RULES))
    replays = [replay_jmh(series)]
    replays += [replay_laaber(series, c, s) for c, s in zip(("cov", "rciw", "kld"), seeds[1:4])]
    replays += [replay_ours(series, seeds[4]), replay_oracle(starts)]
    out = {"name": name, "reference": reference, "rules": {}}
    for r in replays:
        measured = r.measured(series)
        estimate = float(measured.mean()) if measured.size else float("nan")
        out["rules"][r.rule] = {
            "saved": 1 - r.values_run / (FULL_FORKS * FULL_ITERATIONS),
            "error": abs(estimate - reference) / reference if reference else float("nan"),
            "in_warmup": measured_in_warmup(r, starts),
            "flagged": r.flagged,
            "forks": [(f.fork, f.run, f.measured_from, f.measured_to) for f in r.forks],
        }
    return out


def summarize(results: list[dict]) -> list[dict]:
    """Per rule: mean time saved, error quantiles, wrong answers (error > 5%), flagged."""
    rows = []
    for rule in RULES:
        per = [(r["name"], r["rules"][rule]) for r in results if r["reference"] is not None]
        errors = np.array([x["error"] for _, x in per])
        rows.append({
            "rule": rule,
            "saved": float(np.mean([x["saved"] for _, x in per])),
            "median": float(np.median(errors)),
            "p90": float(np.percentile(errors, 90)),
            "max": float(errors.max()),
            "in_warmup": float(np.mean([x["in_warmup"] for _, x in per])),
            "forks": float(np.mean([len(x["forks"]) for _, x in per])),
            "wrong": sorted((n, x["error"]) for n, x in per if x["error"] > WRONG),
            "flagged": sorted(n for n, x in per if x["flagged"]),
            "benchmarks": len(per),
        })
    return rows


def markdown_table(rows: list[dict]) -> str:
    lines = ["| rule | time saved | median error | p90 error | max error | wrong (> 5%) "
             "| measured in warmup | forks | flagged |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['rule']} | {r['saved']:.1%} | {r['median']:.2%} | {r['p90']:.2%} | "
                     f"{r['max']:.1%} | {len(r['wrong'])} of {r['benchmarks']} | {r['in_warmup']:.1%} | "
                     f"{r['forks']:.1f} | {len(r['flagged'])} |")
    return "\n".join(lines)


def short(name: str) -> str:
    """``project#Class.method#params`` without the package path, escaped for the terminal."""
    project, _, rest = name.partition("#")
    method, _, params = rest.partition("#")
    method = ".".join(method.split(".")[-2:])
    return printable(f"{project.split('__')[-1]}#{method}" + (f"#{params}" if params else ""))


def details(results: list[dict]) -> str:
    lines = ["", "| benchmark | " + " | ".join(RULES) + " |", "|---|" + "---:|" * len(RULES)]
    for r in results:
        cells = []
        for rule in RULES:
            x = r["rules"][rule]
            warm = "/".join(str(f[2]) for f in x["forks"])
            cells.append(f"{x['error']:.1%} (saved {x['saved']:.0%}; from {warm}){' FLAG' if x['flagged'] else ''}")
        lines.append(f"| {short(r['name'])} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="replay only benchmarks whose name contains one of these")
    parser.add_argument("--verbose", action="store_true", help="per-benchmark errors and measured ranges")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: every usable CPU)")
    parser.add_argument("--first-fork", type=int, default=0, choices=range(FULL_FORKS),
                        help="take the forks from this one on, in a circle (5: a replicate on forks 5-9)")
    args = parser.parse_args(argv)
    if not DATA.is_dir():
        print(f"no data at {DATA}", file=sys.stderr)
        return 2
    chosen = [(n, i, args.first_fork) for i, n in enumerate(names())
              if not args.names or any(s in n for s in args.names)]
    if not chosen:
        print("no benchmark matches", file=sys.stderr)
        return 2
    results = list(ordered_map(replay_benchmark, chosen, workers_for(len(chosen), args.jobs, min_series=2)))
    rows = summarize(results)
    print(f"{len(results)} benchmarks of {DATA.name}, {FULL_FORKS} forks x {FULL_ITERATIONS} iterations each; "
          f"forks taken from fork {args.first_fork} on\n")
    print(markdown_table(rows))
    skipped = [r["name"] for r in results if r["reference"] is None]
    if skipped:
        print(f"\nno steady fork, left out: {', '.join(short(n) for n in skipped)}")
    for r in rows:
        wrong = ", ".join(f"{short(n)} ({e:.1%})" for n, e in r["wrong"]) or "none"
        print(f"\n{r['rule']}: wrong answers: {wrong}")
        if r["flagged"]:
            print(f"{r['rule']}: pilot never reached steady state: {', '.join(short(n) for n in r['flagged'])}")
    if args.verbose:
        print(details(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
