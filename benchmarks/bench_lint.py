"""Benchmark: ``rigorbench lint`` speed on a generated tree of 1,000 JMH benchmark files.

Each generated file is a realistic JMH class (~100 lines): a ``@State`` class with a few
fields and a ``@Setup``, a helper method, and 3-6 ``@Benchmark`` methods with loops, calls,
Blackhole use and, in some of them, planted bad practices (RETU, LOOP, FINAL, INVO, FORK,
TIMER, PRINT). Times ``lint_paths`` over the tree (best of 3) and, as a named reference
measured in the same run, tree-sitter parsing alone of the same files (read + parse, best of
3), and prints the files per second of both and their ratio. Goal: lint >= 200 files/s.

Then the same on real code: the largest project of the labelled lint corpus (issue #34's goal,
lint >= 300 files/s there): by default ../shared/data/lint-real-dev/trees/RoaringBitmap (81
JMH files), or the largest project folder under ``--corpus DIR`` (a tree made by
benchmarks/lint_corpus/extract.py). Skipped, and said so, when neither is there.
Run directly or through ``benchmarks/run.py``; exit 0 when the goals are met.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from pathlib import Path

from rigorbench.lint import lint_paths
from rigorbench.lint.engine import discover
from rigorbench.lint.parse import parser

FILES = 1_000
REPEATS = 3
GOAL_FILES_PER_SECOND = 200.0
CORPUS_GOAL_FILES_PER_SECOND = 300.0
SHARED_TREES = Path(__file__).resolve().parents[2] / "shared" / "data" / "lint-real-dev" / "trees"

METHODS = [
    """    @Benchmark
    public double logOf{i}() {{
        return Math.log(state.x{f}) + helper(state.n);
    }}
""",
    """    @Benchmark
    public void consumeEach{i}(Blackhole bh) {{
        for (int k = 0; k < state.data.length; k++) {{
            bh.consume(helper(state.data[k]));
        }}
    }}
""",
    """    @Benchmark
    public int accumulate{i}() {{
        int acc = 0;
        for (int v : state.data) {{
            acc += helper(v);
        }}
        return acc;
    }}
""",
    """    @Benchmark
    public void dropped{i}() {{
        double unused = Math.sqrt(state.x{f});
        Math.abs(state.n);
    }}
""",
    """    @Benchmark
    public long timed{i}() {{
        long start = System.nanoTime();
        String s = state.name + state.n;
        if (s.length() > 100) {{
            throw new IllegalStateException(s);
        }}
        return System.nanoTime() - start;
    }}
""",
    """    @Benchmark
    @Fork(0)
    public int sorted{i}() {{
        int[] copy = java.util.Arrays.copyOf(state.data, state.data.length);
        java.util.Arrays.sort(copy);
        System.out.println(copy[0]);
        return copy[copy.length - 1];
    }}
""",
]

TEMPLATE = """package gen.p{pkg};

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Generated benchmark {n} for the rigorbench lint speed benchmark.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class Bench{n} {{

    @State(Scope.Thread)
    public static class Input {{
        double x0 = Math.PI;
        {final_kw}double x1 = 2.5;
        int n = 42;
        String name = "bench{n}";
        int[] data = new int[256];

        @Setup({level})
        public void setup() {{
            for (int i = 0; i < data.length; i++) {{
                data[i] = (i * 31 + {n}) % 97;
            }}
        }}
    }}

    private Input state = new Input();

    private static int helper(int v) {{
        int r = v;
        for (int k = 0; k < 4; k++) {{
            r = r * 17 + k;
        }}
        return r;
    }}

{methods}}}
"""


def generate(root: Path, rng: random.Random) -> None:
    for n in range(FILES):
        count = rng.randint(3, 6)
        chosen = rng.sample(range(len(METHODS)), count)
        methods = "\n".join(METHODS[m].format(i=j, f=rng.randint(0, 1)) for j, m in enumerate(chosen))
        text = TEMPLATE.format(pkg=n % 20, n=n, methods=methods,
                               final_kw="final " if n % 7 == 0 else "",
                               level="Level.Invocation" if n % 11 == 0 else "Level.Trial")
        directory = root / f"p{n % 20}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"Bench{n}.java").write_text(text, encoding="utf-8")


def best_of(function, repeats: int = REPEATS):
    wall, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        wall = min(wall, time.perf_counter() - start)
    return wall, result


def parse_only(files: list[str]) -> int:
    p = parser()
    for path in files:
        p.parse(Path(path).read_bytes())
    return len(files)


def measure(root: Path, title: str, goal: float) -> bool:
    """Lint ``root`` and parse its files alone (best of 3 each); print both rates, their
    ratio and whether lint reached ``goal`` files per second."""
    files = discover([root])
    lint_wall, result = best_of(lambda: lint_paths([root]))
    parse_wall, _ = best_of(lambda: parse_only(files))
    rate, parse_rate = result.files / lint_wall, len(files) / parse_wall
    print(f"{title}: {result.files} files, {result.benchmarks} benchmarks, {len(result.findings)} findings")
    print(f"  lint_paths            {lint_wall:.3f} s  {rate:8.0f} files/s")
    print(f"  tree-sitter parse only {parse_wall:.3f} s  {parse_rate:8.0f} files/s (reference)")
    print(f"  lint / parse-only time ratio: {lint_wall / parse_wall:.1f}x")
    passed = rate >= goal
    print(f"  {'PASS' if passed else 'FAIL'}: {rate:.0f} files/s >= {goal:.0f} files/s goal")
    return passed


def main() -> int:
    print(f"python {sys.version.split()[0]}, cpus {os.cpu_count()}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        generate(root, random.Random(20240601))
        lines = sum(Path(f).read_text(encoding="utf-8").count("\n") for f in discover([root]))
        passed = measure(root, f"generated tree ({lines} lines)", GOAL_FILES_PER_SECOND)
    return 0 if corpus_project(sys.argv[1:]) and passed else 1


def corpus_project(argv: list[str]) -> bool:
    """Lint and parse-only speed on the largest labelled corpus project; True when the goal is
    met or there is no corpus here."""
    roots = [Path(argv[argv.index("--corpus") + 1])] if "--corpus" in argv else [SHARED_TREES]
    projects = [d for root in roots if root.is_dir() for d in root.iterdir() if d.is_dir()]
    if not projects:
        print(f"corpus: none at {', '.join(map(str, roots))}; the real-code measurement is skipped")
        return True
    largest = max(projects, key=lambda d: len(discover([d])))
    return measure(largest, f"corpus project {largest.name}", CORPUS_GOAL_FILES_PER_SECOND)


if __name__ == "__main__":
    sys.exit(main())
