"""Which design lets ``make demo`` find what the demo plants, in about the same time (issue 33).

The demo (examples/jmh-demo) plants two changes in v2: countPrimes faster (about +40%
throughput) and sumCsv slower (about +25% time per op). With ``ab --quick`` (5 fixed RMIT
trials, about 3.5 minutes on this 2-CPU machine) sumCsv came out ``inconclusive`` in most
demo runs seen: its variance is between forks and trials, and 5 trials of 2 forks do not
narrow its interval below the planted change.

For each design and load this script runs the demo's A/B into a fresh store and prints a
row: the verdicts of countPrimes and sumCsv, sumCsv's change and interval, the trials sumCsv
got, and the wall time as a ratio to the first design under the same load (the named
reference, ``fixed``: the ``--quick`` default). Designs:

* ``fixed``: ``--quick`` (5 trials of every benchmark);
* ``until-decided``: ``--quick --until-decided --max-trials 20 --max-time 3m``: every benchmark
  retires once decided (or given up as hopeless), so the trials left go to the undecided ones
  (sumCsv), at the cost of a stricter per-look level (Pocock's boundary);
* ``10x1``: ``--quick --trials 10 --forks 1``: the same forks as ``fixed`` in twice the
  trials, so twice the pairs of a paired reading and more degrees of freedom (what ``make
  demo`` runs since these measurements);
* ``10x1-warm``: the same with 5 warmup and 3 measurement iterations per fork.

``busy`` runs a process spinning on one CPU beside the demo (as ``benchmarks/sensitivity.py``).
Each row is one run: repeat (``--repeat``) to see the spread. Nothing else should run on the
machine meanwhile. Takes about 3.5 minutes per run.

Run: ``python benchmarks/demo_designs.py [--designs fixed,until-decided] [--loads quiet,busy]
[--repeat 1]`` with ``src/`` importable (``make bench`` does not run it: it is not a timing).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "jmh-demo"
SPIN = "while True:\n    pass\n"
DESIGNS = {
    "fixed": ["--quick"],
    "until-decided": ["--quick", "--until-decided", "--max-trials", "20", "--max-time", "3m"],
    "10x1": ["--quick", "--trials", "10", "--forks", "1"],
    "10x1-warm": ["--quick", "--trials", "10", "--forks", "1", "--warmup-iterations", "5", "--iterations", "3"],
}


def rigorbench(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "rigorbench", *args], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"rigorbench {' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    return done


def one_run(design: str, load: str, store: Path) -> dict:
    """The demo's A/B under ``design`` and ``load``: verdicts, sumCsv's figures, wall time."""
    spinner = subprocess.Popen([sys.executable, "-c", SPIN]) if load == "busy" else None
    try:
        start = time.perf_counter()
        done = rigorbench("ab", str(DEMO), "--base", "v1", "--contender", "v2", *DESIGNS[design],
                          "--store", str(store), "--no-lint", "--format", "json")
        seconds = time.perf_counter() - start
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()
    report = json.loads(done.stdout)   # the run's own answer (an adaptive run's level included)
    by_name = {c["benchmark"].rsplit(".", 1)[-1]: c for c in report["comparisons"] if not c["params"]}
    csv = by_name["sumCsv"]
    return {"design": design, "load": load, "seconds": seconds, "countPrimes": by_name["countPrimes"]["verdict"],
            "sumCsv": csv["verdict"], "change": csv["change_pct"], "low": (csv["ratio"]["ci_low"] - 1) * 100,
            "high": (csv["ratio"]["ci_high"] - 1) * 100, "trials": csv["contender"]["trials"], "paired": csv["paired"]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--designs", default="fixed,until-decided", help=f"of {', '.join(DESIGNS)} (first: the reference)")
    parser.add_argument("--loads", default="quiet,busy", help="quiet, busy or both (default)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each design under each load")
    args = parser.parse_args(argv)
    designs = args.designs.split(",")
    rows = []
    with tempfile.TemporaryDirectory(prefix="rigorbench-demo-designs-") as tmp:
        for repeat in range(args.repeat):
            for load in args.loads.split(","):
                for design in designs:
                    row = one_run(design, load, Path(tmp) / f"{design}-{load}-{repeat}.db")
                    print(json.dumps(row), file=sys.stderr, flush=True)
                    rows.append(row)
    reference = {(r["load"], i): r["seconds"] for i, r in enumerate(rows) if r["design"] == designs[0]}
    print("| load | design | countPrimes | sumCsv | sumCsv change [99% CI] | sumCsv trials | wall time (x reference) |")
    print("|---|---|---|---|---|---|---|")
    for i, r in enumerate(rows):
        ref = max((v for (load, j), v in reference.items() if load == r["load"] and j <= i), default=None, key=lambda v: v)
        ratio = f"{r['seconds'] / ref:.2f}" if ref else "n/a"
        print(f"| {r['load']} | {r['design']} | {r['countPrimes']} | {r['sumCsv']} | {r['change']:+.1f}% "
              f"[{r['low']:+.1f}, {r['high']:+.1f}] | {r['trials']} | {ratio} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
