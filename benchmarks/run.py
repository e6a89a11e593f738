"""Run every ``benchmarks/bench_*.py`` in a fresh interpreter and print its output.

Each benchmark runs as ``python benchmarks/bench_x.py`` (a subprocess with an argument list,
no shell), one after the other so they do not compete for the CPUs, with ``src/`` on
``PYTHONPATH`` so that an uninstalled checkout works too. Exit status: 0 when every
benchmark exited 0, else 1. Extra arguments select benchmarks by substring of the name.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(SRC)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        scripts = [s for s in scripts if any(word in s.name for word in argv)]
    if not scripts:
        print("no benchmarks found", file=sys.stderr)
        return 1
    failed = []
    for script in scripts:
        print(f"=== {script.name}", flush=True)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, str(script)], env=_environment(), check=False)
        seconds = time.perf_counter() - start
        status = "ok" if done.returncode == 0 else f"exit {done.returncode}"
        print(f"=== {script.name}: {status} ({seconds:.1f} s)\n", flush=True)
        if done.returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
