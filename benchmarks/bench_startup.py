"""Benchmark: start-up and whole-process times of the command line, and ``compare`` against ``pa``.

Everything is the wall time of a whole process (a subprocess with an argument list, no
shell, output captured), best of several runs, the runs of the commands compared with each
other interleaved so that a noisy moment hits all of them alike.

1. Start-up, best of 5: ``python -m rigorbench --help``, ``--version``,
   ``lint examples/jmh-lint`` and ``compare`` of the two one-trial JMH files in
   ``tests/testdata/jmh``, each as a ratio to two references measured in the same run: the
   interpreter's own start (``python -c pass``) and ``python -c "import numpy"`` (rigorbench
   needs numpy for every command, so that import is the floor of its start-up). Goals:
   ``--help``, ``--version`` and ``lint`` within 4x of importing numpy, the small
   ``compare`` within 6x (it also runs 10,000-resample bootstraps of its 4 benchmarks). On
   the 2-core machine they measure ~2.2-3.1x and ~4.1-4.8x: numpy's import itself swings
   between 0.10 and 0.15 s from run to run; loading scipy.stats for ``--help`` would fail it.
2. ``compare`` of 20 pa-sized benchmark pairs against Laaber's ``pa``
   (github.com/chrstphlbr/pa, Go), on the same files in the same run, best of 3 (``pa``
   takes some 20 s here). A synthetic pa CSV input is written deterministically to a
   temporary directory: 20 benchmark cases x 2 versions (4 with a planted 10% slowdown), each
   1 instance x 5 trials x 2 forks x 50 iterations = 500 values per case and version (the
   size of the ``pa`` comparison in ``bench_bootstrap.py``), sorted by benchmark and params as
   ``pa`` requires. Timed: ``python -m rigorbench compare BASE.csv CONT.csv --resamples 10000
   --confidence 0.99`` vs ``pa -bs 10000 -sl 0.01 BASE.csv CONT.csv`` (10,000 bootstrap
   resamples, 99% CIs; ``pa`` also gives each version's CI, on all its CPUs). Goal: rigorbench
   at least 10x faster. The speed-up depends on the size: ``pa``'s time grows with the values
   per case while rigorbench's is mostly start-up, so with 50 values per case it is only ~3x.

``pa`` is not part of the project: the benchmark runs the binary named by the environment
variable ``RIGORBENCH_PA``, else ``pa`` on ``PATH``; without one it says so in one line and
reports the start-up part only. Prints one line per command with its ratios and a PASS/FAIL
per goal; exit 0 when every goal is met. Run directly or through ``benchmarks/run.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
STARTUP_REPEATS = 5
PA_REPEATS = 3
RESAMPLES = 10_000

# (label, arguments after ``python -m rigorbench``, accepted exit codes, goal: at most N x import numpy)
STARTUP = [
    ("rigorbench --help", ["--help"], {0}, 4.0),
    ("rigorbench --version", ["--version"], {0}, 4.0),
    ("rigorbench lint examples/jmh-lint", ["lint", "examples/jmh-lint"], {1}, 4.0),  # 1: findings
    ("rigorbench compare (2 JMH files)",
     ["compare", "tests/testdata/jmh/v1-trial1.json", "tests/testdata/jmh/v2-trial1.json"], {0}, 6.0),
]

PA_GOAL = 10.0
PA_CASES = 20
TRIALS, FORKS, ITERATIONS = 5, 2, 50
PA_HEADER = "project;commit;benchmark;params;instance;trial;fork;iteration;mode;unit;value_count;value\n"


def _environment() -> dict[str, str]:
    """src/ first on PYTHONPATH, so that an uninstalled checkout runs too (as run.py does)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


ENV = _environment()


def run_once(argv: list[str], accepted: set[int]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=ENV, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode not in accepted:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return seconds, done.stdout


def best_of_interleaved(commands: dict[str, tuple[list[str], set[int]]], repeats: int) -> tuple[dict[str, float], dict[str, str]]:
    """Best wall time of every command over ``repeats`` rounds, one run of each per round."""
    best = {name: float("inf") for name in commands}
    output = {}
    for _ in range(repeats):
        for name, (argv, accepted) in commands.items():
            seconds, output[name] = run_once(argv, accepted)
            best[name] = min(best[name], seconds)
    return best, output


def startup() -> bool:
    commands = {
        "pass": ([PYTHON, "-c", "pass"], {0}),
        "numpy": ([PYTHON, "-c", "import numpy"], {0}),
    }
    for label, args, accepted, _ in STARTUP:
        commands[label] = ([PYTHON, "-m", "rigorbench", *args], accepted)
    best, _ = best_of_interleaved(commands, STARTUP_REPEATS)
    bare, numpy_ = best["pass"], best["numpy"]
    print(f"start-up, best of {STARTUP_REPEATS} whole processes; references: python -c pass {bare:.3f} s, "
          f"python -c \"import numpy\" {numpy_:.3f} s ({numpy_ / bare:.1f}x python -c pass)")
    ok = True
    for label, _, _, goal in STARTUP:
        seconds = best[label]
        ratio = seconds / numpy_
        passed = ratio <= goal
        ok &= passed
        print(f"  {label}: {seconds / bare:.1f}x python -c pass, {ratio:.1f}x import numpy ({seconds:.2f} s) "
              f"(goal <= {goal:g}x import numpy): {'PASS' if passed else 'FAIL'}")
    return ok


def find_pa() -> str | None:
    given = os.environ.get("RIGORBENCH_PA")
    if given:
        if os.path.isfile(given) and os.access(given, os.X_OK):
            return given
        print(f"RIGORBENCH_PA={given} is not an executable file; skipping the comparison with pa")
        return None
    found = shutil.which("pa")
    if found is None:
        print("pa not found (set RIGORBENCH_PA to the path of a pa binary built from "
              "github.com/chrstphlbr/pa, or put pa on PATH); skipping the comparison with pa")
    return found


def write_pa_inputs(directory: Path) -> tuple[Path, Path]:
    """Two pa CSV files (baseline, contender) of PA_CASES cases, sorted by benchmark and params."""
    rng = np.random.default_rng(20240601)
    cases = [(f"org.example.pa.Bench{number:02d}.run", "size=1000" if number % 4 == 3 else "", 50.0 * (number + 1))
             for number in range(PA_CASES)]
    paths = []
    for commit, name in (("v1", "base.csv"), ("v2", "cont.csv")):
        lines = [PA_HEADER]
        for number, (benchmark, params, mean) in enumerate(cases):
            if commit == "v2" and number % 5 == 0:
                mean *= 1.1
            for trial in range(1, TRIALS + 1):
                trial_effect = rng.lognormal(0.0, 0.02)
                for fork in range(1, FORKS + 1):
                    fork_effect = rng.lognormal(0.0, 0.02)
                    values = mean * trial_effect * fork_effect * rng.lognormal(0.0, 0.03, ITERATIONS)
                    lines.extend(f"demo;{commit};{benchmark};{params};i1;{trial};{fork};{iteration};avgt;ns/op;1;{value:e}\n"
                                 for iteration, value in enumerate(values, 1))
        path = directory / name
        path.write_text("".join(lines))
        paths.append(path)
    return paths[0], paths[1]


def against_pa(pa: str) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        base, cont = write_pa_inputs(Path(tmp))
        commands = {
            "rigorbench": ([PYTHON, "-m", "rigorbench", "compare", str(base), str(cont),
                            "--resamples", str(RESAMPLES), "--confidence", "0.99"], {0, 1}),
            "pa": ([pa, "-bs", str(RESAMPLES), "-sl", "0.01", str(base), str(cont)], {0}),
        }
        best, output = best_of_interleaved(commands, PA_REPEATS)
    pa_rows = [line for line in output["pa"].splitlines() if line.startswith("org.example.pa.")]
    ours_rows = [line for line in output["rigorbench"].splitlines() if line.startswith("Bench")]
    size = f"{TRIALS} trials x {FORKS} forks x {ITERATIONS} iterations per case and version"
    print(f"compare vs pa ({pa}), best of {PA_REPEATS} whole processes, {RESAMPLES} resamples, 99% CI, {size}")
    if not output["pa"].startswith("#Execute CIs") or len(pa_rows) != PA_CASES or len(ours_rows) != PA_CASES:
        print(f"  FAIL: expected {PA_CASES} result rows from both (pa {len(pa_rows)}, rigorbench {len(ours_rows)}); "
              "is this Laaber's pa?")
        return False
    ours, theirs = best["rigorbench"], best["pa"]
    speedup = theirs / ours
    passed = speedup >= PA_GOAL
    print(f"  compare {PA_CASES} pa-sized pairs: rigorbench {ours:.1f} s vs pa {theirs:.1f} s in the same run: "
          f"{speedup:.1f}x faster (goal >= {PA_GOAL:g}x): {'PASS' if passed else 'FAIL'}")
    return passed


def main() -> int:
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, cpus {os.cpu_count()}")
    ok = startup()
    pa = find_pa()
    if pa is not None:
        ok &= against_pa(pa)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
