"""Benchmark: ``ab --until-decided`` against a fixed 10-trial design on the JMH example (issue 18).

Both designs run ``examples/jmh-demo`` v1 against v2 (planted: ``sumCsv`` about 25% slower,
``countPrimes`` about a third faster, ``standardize`` unchanged) with the same harness and
statistics settings, in one session, interleaved: round 1 runs the fixed design first, round 2
the adaptive one first, and so on, so a slow drift of the machine hits both alike. The named
reference is the fixed design (``--trials 10``); the adaptive design is ``--until-decided
--max-trials 10``. Reported per round: each design's wall time (the whole ``rigorbench ab``
process: build-cache check, trials, comparison), the ratio adaptive/fixed, the trials each
benchmark of the adaptive design ran, and whether the two designs' verdicts agree case by case.
Goal: the same verdicts in at most half the time (ratio <= 0.5).

Settings: ``--quick`` harness settings (2 forks x (3 + 5) iterations of 200 ms) and a 20%
threshold (``--threshold 20%``): on a shared 2-core machine the trial-to-trial noise of the
example is several percent, and with the default 1% neither design can call ``standardize``
unchanged in 10 trials. Both designs use the same threshold, so the comparison is fair.

Run: ``python benchmarks/bench_until_decided.py [--rounds N]`` (about 10 minutes per round on a
quiet machine). Needs Maven and a JDK.
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
THRESHOLD = "15%"
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--threshold", default=THRESHOLD, help=f"the practical threshold of both designs (default: {THRESHOLD})")
    parser.add_argument("--keep", metavar="DIR", help="keep the store (every round's runs) in DIR instead of a temporary folder")
    args = parser.parse_args(argv)
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
        worst = max(ratios)
        ok = agree and worst <= GOAL_RATIO
        print(f"largest ratio adaptive/fixed {worst:.2f} (goal <= {GOAL_RATIO}); verdicts {'agree' if agree else 'differ'}: "
              f"{'PASS' if ok else 'FAIL'}")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
