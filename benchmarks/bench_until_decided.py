"""Benchmark: ``ab --until-decided`` against a fixed 10-trial design on the JMH example (issue 18).

Both designs run ``examples/jmh-demo`` v1 against v2 (planted: ``sumCsv`` about 25% slower,
``countPrimes`` about a third faster, ``standardize`` unchanged) with the same harness and
statistics settings, in one session, interleaved: round 1 runs the fixed design first, round 2
the adaptive one first, and so on, so a slow drift of the machine hits both alike. The named
reference is the fixed design (``--trials 10``); the adaptive design is ``--until-decided
--max-trials 10``. Reported per round: each design's wall time (the whole ``rigorbench ab``
process: build-cache check, trials, comparison), the ratio adaptive/fixed, when each benchmark of
the adaptive design was decided or given up, and whether the two designs' verdicts agree case
by case.
Goal: the same verdicts in at most half the time (ratio <= 0.5).

Settings: 5 forks of 3 warmup and 3 measurement iterations of 200 ms per benchmark, version and
trial (``sumCsv``'s forks are bimodal: with 2 forks a trial's mean carries as much fork noise as drift), and the
default 1% threshold (``--threshold`` to change it). At 1% the planted changes are far from the
threshold, so neither design's verdict on them is a coin toss, and ``standardize`` cannot be
called unchanged within 1% on a shared machine by either design: the fixed design says
``inconclusive`` after 10 trials, and the adaptive one gives it up as soon as its chance of a
verdict by trial 10 falls below 10% (``--futility``). An earlier version of this benchmark used a
20% threshold, which put ``sumCsv`` (+21-34% measured) on the threshold: both designs' verdicts
on it were a toss-up, and without futility the adaptive design ran it to the budget.

Run: ``python benchmarks/bench_until_decided.py [--rounds N] [--keep DIR]`` (about 16 minutes per
round on a quiet machine). Needs Maven and a JDK.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_RATIO = 0.5
THRESHOLD = "1%"
# 5 forks of 3 + 3 iterations of 200 ms per benchmark and version in each trial (see above).
SETTINGS = ["--forks", "5", "--warmup-iterations", "3", "--iterations", "3", "--warmup-time", "200ms", "--iteration-time", "200ms"]
COMMON = ["--base", "v1", "--contender", "v2", "--no-lint", "--format", "json"]


def run_ab(project: Path, store: Path, extra: list[str]) -> tuple[float, dict]:
    argv = [sys.executable, "-m", "rigorbench", "ab", str(project), *COMMON, "--store", str(store), *extra]
    # A machine lock of its own: the wall time measured is this design's, not also the time spent
    # waiting for trials of other experiments on a shared machine (their load is shared by both designs).
    env = {**os.environ, "RIGORBENCH_LOCK_DIR": str(store.parent)}
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    seconds = time.monotonic() - started
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr[-3000:])
        raise SystemExit(f"rigorbench ab failed with exit code {done.returncode}")
    return seconds, json.loads(done.stdout)


def verdicts(doc: dict) -> dict[str, str]:
    return {c["benchmark"].rsplit(".", 2)[-2] + "." + c["benchmark"].rsplit(".", 1)[-1]
            + (json.dumps(c["params"]) if c["params"] else ""): c["verdict"] for c in doc["comparisons"]}


def replay(store_path: Path, threshold: float) -> None:
    """The adaptive rule replayed on each stored fixed run's own trials (the first k of them at
    look k): what ``--until-decided --max-trials 10`` would have decided on the same data, when,
    and the share of the fixed design's benchmark-trials it would have run (each case counted
    as one; the wall-time ratio above also carries JVM start-ups and the build-cache check)."""
    from collections import Counter
    from dataclasses import replace

    from rigorbench.analysis.compare import compare_datasets
    from rigorbench.analysis.dataset import dataset_from_store
    from rigorbench.analysis.stopping import UntilDecided, listed_name, look
    from rigorbench.analysis.settings import Settings
    from rigorbench.store import ResultStore

    store = ResultStore.read(store_path)
    for run_id in store.run_ids():
        run = store.run(run_id)
        if run.setup.until_decided or run.settings.get("trials") != 10 or run.status != "finished":
            continue
        base, cont = (dataset_from_store(store, run_id, v.label) for v in run.versions)
        fixed = {c.case.display_name: c.verdict.value for c in compare_datasets(base, cont, Settings(threshold=threshold)).comparisons
                 if c.metric.primary}
        cases = Counter(case.name for case, metric in base.series if metric.primary)   # benchmark -> its cases
        design = UntilDecided(3, 10, None, Settings(threshold=threshold))
        open_names, fates, verdicts_at = tuple(cases), {}, {}
        for k in design.looks:
            first = {key: t.select(t.trial < k) for key, t in base.series.items()}, {key: t.select(t.trial < k) for key, t in cont.series.items()}
            result = compare_datasets(replace(base, series=first[0]), replace(cont, series=first[1]), design.look_settings)
            for name, r in look(result, open_names, k, design).items():
                fates[name] = (r.verdict, k)
                verdicts_at.update({c.case.display_name: c.verdict.value for c in result.comparisons
                                    if c.metric.primary and listed_name(c.case.name, {name: 0})})
            open_names = tuple(n for n in open_names if n not in fates)
            if not open_names:
                break
        for name in open_names:
            fates[name] = ("open", 10)
            verdicts_at.update({c.case.display_name: c.verdict.value for c in result.comparisons if c.metric.primary
                                and listed_name(c.case.name, {name: 0})})
        share = sum(cases[n] * k for n, (_, k) in fates.items()) / (10 * sum(cases.values()))
        print(f"  replay on fixed run {run_id}: {{{', '.join(f'{n.rsplit(chr(46), 2)[-2]}: {v} {k}' for n, (v, k) in fates.items())}}}; "
              f"benchmark-trials {share:.2f} of the fixed design's; verdicts {'same' if verdicts_at == fixed else 'DIFFERENT'}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--threshold", default=THRESHOLD, help=f"the practical threshold of both designs (default: {THRESHOLD})")
    parser.add_argument("--keep", metavar="DIR", help="keep the store (every round's runs) in DIR instead of a temporary folder")
    parser.add_argument("--replay", metavar="DB", help="run nothing: replay the adaptive rule on the fixed runs of this store")
    args = parser.parse_args(argv)
    if args.replay:
        replay(Path(args.replay), _fraction(args.threshold))
        return 0
    with tempfile.TemporaryDirectory(prefix="rigorbench-until-decided-") as scratch:
        project = Path(scratch) / "jmh-demo"
        shutil.copytree(ROOT / "examples" / "jmh-demo", project, ignore=shutil.ignore_patterns("target", ".rigorbench"))
        keep = Path(args.keep) if args.keep else Path(scratch)
        keep.mkdir(parents=True, exist_ok=True)
        store = keep / "results.db"        # one store: one build cache, built once
        run_ab(project, store, ["--trials", "1", "--bench", "PrimeCount", "--forks", "1", "--iterations", "1"])  # builds
        settings = [*SETTINGS, "--threshold", args.threshold]
        ratios, agree = [], True
        for round_ in range(1, args.rounds + 1):
            designs = [("fixed", [*settings, "--trials", "10"]), ("adaptive", [*settings, "--until-decided", "--max-trials", "10"])]
            if round_ % 2 == 0:
                designs.reverse()
            results = {name: run_ab(project, store, extra) for name, extra in designs}
            (fixed_s, fixed), (adaptive_s, adaptive) = results["fixed"], results["adaptive"]
            same = verdicts(fixed) == verdicts(adaptive)
            agree &= same
            ratios.append(adaptive_s / fixed_s)
            print(f"round {round_} ({' then '.join(n for n, _ in designs)}): fixed {fixed_s:.0f} s, adaptive {adaptive_s:.0f} s, "
                  f"ratio adaptive/fixed {adaptive_s / fixed_s:.2f}")
            print(f"  fixed verdicts:    {verdicts(fixed)}")
            print(f"  adaptive verdicts: {verdicts(adaptive)} ({'same' if same else 'DIFFERENT'})")
            fates = {b["benchmark"].rsplit(".", 2)[-2]: (b["verdict"], b["decided_after"] or b["given_up_after"])
                     for b in adaptive["sequential"]["benchmarks"]}
            print(f"  adaptive: decided or given up after (trials): {fates}; each look at {adaptive['confidence'] * 100:.2f}%",
                  flush=True)
        replay(store, _fraction(args.threshold))
        worst = max(ratios)
        ok = agree and worst <= GOAL_RATIO
        print(f"largest ratio adaptive/fixed {worst:.2f} (goal <= {GOAL_RATIO}); verdicts {'agree' if agree else 'differ'}: "
              f"{'PASS' if ok else 'FAIL'}")
        return 0 if ok else 1


def _fraction(text: str) -> float:
    return float(text[:-1]) / 100 if text.endswith("%") else float(text)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
