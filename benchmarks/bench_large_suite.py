"""Benchmark: ``analyze`` and ``compare`` of a large suite (issue #21, "Large suites").

``analyze``: one JMH JSON file of 500 benchmarks x 20 forks x 1000 iterations (10 M values,
about 200 MB, ``large_suite.py``, seeded) written to a temporary directory, read and
analysed through the library API with the default statistics (10,000 resamples, 99%,
hierarchical bootstrap of mean and median, steady state, diagnostics). The named reference,
measured in the same run on the same data, is one plain hierarchical bootstrap of the mean
(10,000 resamples) per benchmark; it is timed on the first ``REFERENCE_CASES`` benchmarks
and scaled to all of them (every benchmark has the same shape, so the time per benchmark is
the same). It draws every value, as the bootstrap did before its shortcuts for large forks
(the median's bisection is exact; the mean's normal law for large leaves is an approximation
checked in tests/stats/test_bootstrap.py). The ratio says what the whole analysis costs
against one exact CI per benchmark.

``compare``: 500 benchmarks x 10 trials per side (``synthetic_suite.py``: 2 forks x 10
iterations per trial, allocation and GC recorded), in-process through the CLI; no goal.

Prints reading and analysing times separately, peak RSS (the process's high-water mark,
after reading and after analysing), and PASS/FAIL for the goal "analyze in under 2 minutes".
``--benchmarks N`` writes a smaller suite for a quick look (the goal is for 500).
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from large_suite import write_large_suite  # noqa: E402
from synthetic_suite import write_suite  # noqa: E402

from rigorbench import api  # noqa: E402
from rigorbench.analysis.dataset import iteration_observations  # noqa: E402
from rigorbench.analysis.settings import Settings  # noqa: E402
from rigorbench.cli import main as cli  # noqa: E402
from rigorbench.stats import _resample, hierarchical_bootstrap  # noqa: E402

GOAL_SECONDS = 120.0
GOAL_BENCHMARKS = 500
REFERENCE_CASES = 25


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def rss_mb() -> float:
    """The resident set now (Linux /proc; 0 elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def reference_seconds(dataset, settings: Settings) -> float:
    """One plain hierarchical bootstrap of the mean per benchmark, drawing every value (the
    normal shortcut for large leaves, ``stats/_resample.py``, is off), scaled to all of them."""
    tables = list(dataset.series.values())
    shortcut = _resample.NORMAL_LEAF_SIZE
    _resample.NORMAL_LEAF_SIZE = 1 << 62
    try:
        start = time.perf_counter()
        for table in tables[:REFERENCE_CASES]:
            obs = iteration_observations(table)
            hierarchical_bootstrap(obs.values, obs.levels, resamples=settings.resamples)
        seconds = time.perf_counter() - start
    finally:
        _resample.NORMAL_LEAF_SIZE = shortcut
    return seconds * len(tables) / min(len(tables), REFERENCE_CASES)


def bench_analyze(tmp: Path, benchmarks: int) -> bool:
    path = write_large_suite(tmp / "large.json", benchmarks=benchmarks)
    print(f"analyze of {benchmarks} benchmarks x 20 forks x 1000 iterations ({path.stat().st_size / 1e6:.0f} MB JMH JSON)")
    settings = Settings()
    start = time.perf_counter()
    dataset = api.load_results([path])
    reading = time.perf_counter() - start
    rss_read, held_read = peak_rss_mb(), rss_mb()
    start = time.perf_counter()
    result = api.analyze(dataset, settings)
    analysing = time.perf_counter() - start
    held_analysed = rss_mb()
    assert len(result.benchmarks) == benchmarks, len(result.benchmarks)
    total = reading + analysing
    reference = reference_seconds(dataset, settings)
    print(f"  read {reading:.1f} s (peak RSS {rss_read:.0f} MB)   analyse {analysing:.1f} s "
          f"(peak RSS {peak_rss_mb():.0f} MB)   total {total:.1f} s")
    print(f"  resident: {held_read:.0f} MB with the data read, {held_analysed:.0f} MB with the results too")
    print(f"  reference: one hierarchical bootstrap of the mean per benchmark ({settings.resamples} resamples; "
          f"{min(benchmarks, REFERENCE_CASES)} timed, scaled to {benchmarks}) {reference:.1f} s   "
          f"ratio analyse/reference {analysing / reference:.2f}x")
    if benchmarks != GOAL_BENCHMARKS:
        print(f"  (the {GOAL_SECONDS:.0f} s goal is for {GOAL_BENCHMARKS} benchmarks: not judged)")
        return True
    passed = total < GOAL_SECONDS
    print(f"  {'PASS' if passed else 'FAIL'}: analyze (read + analyse) {total:.1f} s < {GOAL_SECONDS:.0f} s goal")
    return passed


def bench_compare(tmp: Path, benchmarks: int) -> None:
    base, head = write_suite(tmp / "trials", size=benchmarks, trials=10)
    inputs = ["--baseline", *map(str, base), "--contender", *map(str, head)]
    start = time.perf_counter()
    code = cli(["compare", *inputs], io.StringIO(), io.StringIO())
    seconds = time.perf_counter() - start
    assert code == 0, code
    print(f"compare of {benchmarks} benchmarks x 10 trials per side (2 forks x 10 iterations each): {seconds:.1f} s")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", type=int, default=GOAL_BENCHMARKS)
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, cpus {os.cpu_count()}")
    with tempfile.TemporaryDirectory() as tmp:
        passed = bench_analyze(Path(tmp), args.benchmarks)
        bench_compare(Path(tmp), args.benchmarks)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
