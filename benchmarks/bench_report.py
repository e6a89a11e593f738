"""Benchmark: the HTML report of a 200-benchmark suite (issue #7).

The synthetic suite of ``synthetic_suite.py`` (200 benchmark cases, 3 trials x 2 forks x 10
iterations per version, allocation and GC recorded) is written as JMH JSON files, then
``rigorbench report --html`` turns them into one page with every figure. The named reference,
measured in the same run on the same files, is ``rigorbench compare`` (text output): the
ratio says what the report's analysis and figures cost on top of the verdicts themselves.
Both run in-process with default settings (10,000 resamples), best of 2.

Prints the times split into analysis and rendering, the page size, and PASS/FAIL for the
goal "a 200-benchmark report in under 2 minutes".
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_analyze import best_of  # noqa: E402
from synthetic_suite import write_suite  # noqa: E402

from rigorbench.analysis.dataset import load_dataset  # noqa: E402
from rigorbench.analysis.report import build_page  # noqa: E402
from rigorbench.analysis.settings import Settings  # noqa: E402
from rigorbench.cli import main as cli  # noqa: E402
from rigorbench.report.report import render_html  # noqa: E402

GOAL_SECONDS = 120.0
SIZE = 200


def main() -> int:
    print(f"python {sys.version.split()[0]}, cpus {os.cpu_count()}")
    with tempfile.TemporaryDirectory() as tmp:
        base, head = write_suite(tmp, size=SIZE)
        inputs = ["--baseline", *map(str, base), "--contender", *map(str, head)]
        out = Path(tmp) / "report.html"

        def report() -> int:
            return cli(["report", *inputs, "--html", str(out)], io.StringIO(), io.StringIO())

        def compare() -> int:
            return cli(["compare", *inputs], io.StringIO(), io.StringIO())

        seconds, code = best_of(report, repeats=2)
        reference, ref_code = best_of(compare, repeats=2)
        assert code == 0 and ref_code == 0, (code, ref_code)
        size = out.stat().st_size

        # Where the time goes: the analysis (compare + analyze of both versions) vs drawing.
        datasets = [load_dataset(base, "base"), load_dataset(head, "head")]
        start = time.perf_counter()
        built = build_page(datasets, Settings())
        analysis = time.perf_counter() - start
        start = time.perf_counter()
        render_html(built)
        drawing = time.perf_counter() - start

    print(f"report of {SIZE} benchmarks (3 trials x 2 forks x 10 iterations per version)")
    print(f"  rigorbench report --html   {seconds:.1f} s   page {size / 1e6:.1f} MB ({size / SIZE / 1e3:.0f} kB per benchmark)")
    print(f"    of which analysis {analysis:.1f} s, figures and page {drawing:.1f} s")
    print(f"  reference: rigorbench compare (text) {reference:.1f} s   ratio report/compare {seconds / reference:.1f}x")
    passed = seconds < GOAL_SECONDS
    print(f"  {'PASS' if passed else 'FAIL'}: {seconds:.1f} s < {GOAL_SECONDS:.0f} s goal")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
