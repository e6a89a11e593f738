"""Sensitivity of each experiment design on this machine: the median detectable change.

Issue 33: for the demo's benchmarks (examples/jmh-demo, v1 against v2), with and without a
busy process beside the run, the median over benchmarks of the smallest change each design's
data could have called (``mds_pct``, analysis/compare.py ``detectable_change``), for

* ``rmit unpaired``: an RMIT run, its versions' trials resampled independently
  (``compare --no-paired``);
* ``rmit paired``: the same run, trial k of one version with trial k of the other
  (``compare --paired``);
* ``duet``: a ``--design duet`` run, both versions at once on their own CPUs, paired.

The two RMIT rows are one run analysed two ways. A duet trial runs both versions at once, so
for equal machine time the duet run gets twice the trials (``--duet-trials``; the table
gives every run's wall time as a ratio to the RMIT run under the same load). Each figure is
one run: rerun to see the spread. Not a timed test: it takes about 4 x 3.5 minutes.

Run: ``python benchmarks/sensitivity.py [--trials 5] [--duet-trials 10] [--loads quiet,busy]``
(with ``src/`` importable, e.g. from the project's environment). Nothing else should run on the
machine meanwhile; the busy process is this script's own (one CPU spinning).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "jmh-demo"
SPIN = "while True:\n    pass\n"


def rigorbench(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "rigorbench", *args], capture_output=True, text=True, check=False)
    if check and done.returncode not in (0, 1):
        raise SystemExit(f"rigorbench {' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    return done


def run(store: Path, trials: int, design: list[str]) -> float:
    """One quick A/B of the demo into ``store``; its wall time in seconds."""
    start = time.perf_counter()
    rigorbench("ab", str(DEMO), "--base", "v1", "--contender", "v2", "--quick", "--trials", str(trials),
               "--store", str(store), *design)
    return time.perf_counter() - start


def detectable(store: Path, pairing: str) -> dict[str, float | None]:
    """Per benchmark: mds_pct of the stored run compared with ``pairing``."""
    done = rigorbench("compare", "--store", str(store), "--baseline", "v1", "--contender", "v2", pairing,
                      "--format", "json")
    return {c["benchmark"].split(".")[-1] + "".join(f"{{{k}={v}}}" for k, v in c["params"].items()): c["mds_pct"]
            for c in json.loads(done.stdout)["comparisons"]}


def median(values) -> float:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else float("nan")


def measure(load: str, trials: int, duet_trials: int, work: Path) -> list[tuple]:
    spinner = subprocess.Popen([sys.executable, "-c", SPIN]) if load == "busy" else None
    try:
        rmit, duet = work / f"rmit-{load}.db", work / f"duet-{load}.db"
        rmit_time = run(rmit, trials, [])
        duet_time = run(duet, duet_trials, ["--design", "duet"])
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()
    rows = []
    for design, store, pairing, seconds, count in (
            ("rmit unpaired", rmit, "--no-paired", rmit_time, trials),
            ("rmit paired", rmit, "--paired", rmit_time, trials),
            ("duet", duet, "--paired", duet_time, duet_trials)):
        per_benchmark = detectable(store, pairing)
        rows.append((load, design, count, seconds / rmit_time, median(per_benchmark.values()), per_benchmark))
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=5, help="trials of the RMIT run (default 5, as --quick)")
    parser.add_argument("--duet-trials", type=int, default=10, help="trials of the duet run (default 10)")
    parser.add_argument("--loads", default="quiet,busy", help="quiet, busy or both (default)")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="rigorbench-sensitivity-") as tmp:
        for load in args.loads.split(","):
            rows += measure(load, args.trials, args.duet_trials, Path(tmp))
    print("| load | design | trials | wall time (x RMIT) | median detectable change | per benchmark |")
    print("|---|---|---|---|---|---|")
    for load, design, count, time_ratio, mds, per_benchmark in rows:
        listed = ", ".join(f"{name} {v:.1f}%" if v is not None else f"{name} n/a" for name, v in per_benchmark.items())
        print(f"| {load} | {design} | {count} | {time_ratio:.2f} | {mds:.1f}% | {listed} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
