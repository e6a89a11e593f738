"""Benchmark: ``analyze`` and ``compare`` of a large suite (issues #21 "Large suites", #35 "Scale").

``analyze``: one JMH JSON file of 500 benchmarks x 20 forks x 1000 iterations (10 M values,
about 200 MB, ``large_suite.py``, seeded) written to a temporary directory, then
``rigorbench analyze FILE --format json`` in-process, as a user runs it: the file is read as
a stream and analysed benchmark by benchmark on worker processes, with the default
statistics (10,000 resamples, 99%, hierarchical bootstrap of mean and median, steady state,
diagnostics). Reading alone (the same stream, nothing analysed) is timed first. The named
reference, measured in the same run on the same data, is one plain hierarchical bootstrap
of the mean (10,000 resamples) per benchmark; it is timed on the first ``REFERENCE_CASES``
benchmarks and scaled to all of them (every benchmark has the same shape, so the time per
benchmark is the same). It draws every value, as the bootstrap did before its shortcuts for
large forks (the median's bisection is exact; the mean's normal law for large leaves is an
approximation checked in tests/stats/test_bootstrap.py). The ratio says what the whole
command costs against one exact CI per benchmark, whatever the machine's load.

Memory: the peak RSS of this process (``getrusage``: its high-water mark) and of the largest
worker process (``RUSAGE_CHILDREN``); the goal is judged on this process plus one largest
worker per worker, an upper bound of the peak of all of them together (forked workers share
pages with this process, counted here twice).

``compare``: 500 benchmarks x 10 trials per side (``synthetic_suite.py``: 2 forks x 10
iterations per trial, allocation and GC recorded), in-process through the CLI; no goal.

Prints PASS/FAIL for the goals "analyze in under 2 minutes" (on a quiet machine: the load
average is printed before and after) and "under 1 GiB". ``--benchmarks N`` writes a smaller
suite for a quick look (the goals are for 500).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from large_suite import write_large_suite  # noqa: E402
from synthetic_suite import write_suite  # noqa: E402

from rigorbench.cpus import usable_cpus  # noqa: E402
from rigorbench.formats import stream_result_file  # noqa: E402
from rigorbench.analysis.dataset import iteration_observations  # noqa: E402
from rigorbench.analysis.settings import Settings  # noqa: E402
from rigorbench.cli import main as cli  # noqa: E402
from rigorbench.stats import _resample, hierarchical_bootstrap  # noqa: E402

GOAL_SECONDS = 120.0
GOAL_MB = 1024
GOAL_BENCHMARKS = 500
REFERENCE_CASES = 25


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def reference_seconds(tables: list, benchmarks: int, settings: Settings) -> float:
    """One plain hierarchical bootstrap of the mean per benchmark, drawing every value (the
    normal shortcut for large leaves, ``stats/_resample.py``, is off), timed on ``tables``
    and scaled to ``benchmarks``."""
    shortcut = _resample.NORMAL_LEAF_SIZE
    _resample.NORMAL_LEAF_SIZE = 1 << 62
    try:
        start = time.perf_counter()
        for table in tables:
            obs = iteration_observations(table)
            hierarchical_bootstrap(obs.values, obs.levels, resamples=settings.resamples)
        seconds = time.perf_counter() - start
    finally:
        _resample.NORMAL_LEAF_SIZE = shortcut
    return seconds * benchmarks / len(tables)


def first_tables(path: Path, count: int) -> list:
    """The first ``count`` benchmarks' tables, read as a stream."""
    tables = []
    for group in stream_result_file(path).groups():
        tables.extend(s.samples for s in group.series)
        if len(tables) >= count:
            return tables[:count]
    return tables


def read_alone(path: Path) -> tuple[float, int]:
    """Seconds to read the file as ``analyze`` does (streamed), without analysing; benchmarks."""
    start = time.perf_counter()
    count = sum(group.entries for group in stream_result_file(path).groups())
    return time.perf_counter() - start, count


def cpu_seconds() -> float:
    """User and system CPU time of this process and its finished children (the workers): what
    the load of other processes does not change, unlike the wall time."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def load() -> str:
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def bench_analyze(tmp: Path, benchmarks: int) -> bool:
    path = write_large_suite(tmp / "large.json", benchmarks=benchmarks)
    print(f"analyze of {benchmarks} benchmarks x 20 forks x 1000 iterations ({path.stat().st_size / 1e6:.0f} MB JMH JSON)")
    print(f"  before: {load()}")
    settings = Settings()
    reading, count = read_alone(path)
    assert count == benchmarks, count
    rss_read = peak_rss_mb()
    out, err = io.StringIO(), io.StringIO()
    cpu_before = cpu_seconds()
    start = time.perf_counter()
    code = cli(["analyze", str(path), "--format", "json"], out, err)
    total = time.perf_counter() - start
    cpu = cpu_seconds() - cpu_before
    assert code == 0, err.getvalue()
    analysed = len(json.loads(out.getvalue())["benchmarks"])
    assert analysed == benchmarks, analysed
    peak_main = peak_rss_mb()
    peak_worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest worker's
    workers = min(usable_cpus(), benchmarks)
    together = peak_main + workers * peak_worker
    print(f"  after:  {load()}")
    print(f"  read alone (streamed, not analysed) {reading:.1f} s (peak RSS {rss_read:.0f} MB)")
    print(f"  analyze through the CLI (read and analysed as a stream, {workers} worker processes) {total:.1f} s; "
          f"CPU time {cpu:.1f} s (this process and its workers: {cpu / workers:.1f} s on {workers} idle CPUs)")
    print(f"  peak RSS: this process {peak_main:.0f} MB, the largest worker {peak_worker:.0f} MB; "
          f"together at most {together:.0f} MB (this process + {workers} x the largest worker)")
    reference = reference_seconds(first_tables(path, REFERENCE_CASES), benchmarks, settings)
    print(f"  reference: one hierarchical bootstrap of the mean per benchmark ({settings.resamples} resamples; "
          f"{min(benchmarks, REFERENCE_CASES)} timed, scaled to {benchmarks}) {reference:.1f} s   "
          f"ratio analyze/reference {total / reference:.2f}x")
    if benchmarks != GOAL_BENCHMARKS:
        print(f"  (the goals are for {GOAL_BENCHMARKS} benchmarks: not judged)")
        return True
    fast, small = total < GOAL_SECONDS, together < GOAL_MB
    print(f"  {'PASS' if fast else 'FAIL'}: analyze (read + analyse) {total:.1f} s < {GOAL_SECONDS:.0f} s goal "
          "(on a quiet machine: see the load average)")
    print(f"  {'PASS' if small else 'FAIL'}: peak memory {together:.0f} MB < {GOAL_MB} MB goal")
    return fast and small


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
