"""The progress-line matcher on real JMH 1.37 console output.

``data/trial-with-failure.log`` (and ``.json``) come from the example project::

    java -jar examples/jmh-demo/v1/target/benchmarks.jar Prime Stats -p size=0,100 \
        -f 2 -wi 2 -i 2 -w 100ms -r 100ms -prof gc -rf json -rff trial-with-failure.json

(``size=0`` makes StatsBenchmark throw); ``data/forked-vm-failed.log`` from ``Prime -f 1
-wi 1 -i 1 -jvmArgs -Xbogus`` (the forked JVM does not start).
"""

from __future__ import annotations

from pathlib import Path

from rigorbench.harness.jmh_console import ConsoleTracker

DATA = Path(__file__).parent / "data"
PRIME = "dev.rigorbench.demo.PrimeCountBenchmark.countPrimes"
STATS = "dev.rigorbench.demo.StatsBenchmark.meanAndVariance"


def feed_file(name: str):
    tracker = ConsoleTracker()
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return tracker, [tracker.feed(line) for line in lines]


def test_one_event_per_line_with_the_raw_line():
    tracker, events = feed_file("trial-with-failure.log")
    assert [e.line for e in events] == (DATA / "trial-with-failure.log").read_text().splitlines()


def test_iteration_events_name_benchmark_fork_and_iteration():
    tracker, events = feed_file("trial-with-failure.log")
    iterations = [(e.benchmark, e.fork, e.forks, e.iteration, e.warmup) for e in events if e.iteration is not None]
    per_fork = [(1, True), (2, True), (1, False), (2, False)]
    expected = [(PRIME, f, 2, i, w) for f in (1, 2) for i, w in per_fork]
    expected += [(f"{STATS}{{size=100}}", f, 2, i, w) for f in (1, 2) for i, w in per_fork]
    assert iterations == expected  # the failed iterations of size=0 measured nothing


def test_benchmark_is_named_only_once_its_parameters_are_known():
    tracker, events = feed_file("trial-with-failure.log")
    names = [e.benchmark for e in events]
    assert f"{STATS}{{size=0}}" in names and f"{STATS}{{size=100}}" in names
    assert STATS not in names  # never the bare name of a parameterized benchmark
    fork_line = next(e for e in events if e.line == "# Fork: 1 of 2" and e.benchmark and "size=0" in e.benchmark)
    assert (fork_line.fork, fork_line.forks) == (1, 2)


def test_failed_benchmark_is_listed_once_with_its_exception():
    tracker, _ = feed_file("trial-with-failure.log")
    assert tracker.failures == [
        f"{STATS}{{size=0}}: java.lang.IllegalArgumentException: mean of an empty array"
    ]


def test_failed_forked_vm_is_listed_with_its_stderr():
    tracker, events = feed_file("forked-vm-failed.log")
    assert tracker.failures == [f"{PRIME}: forked VM failed with exit code 1: Unrecognized option: -Xbogus"]
    assert not any(e.iteration for e in events)


def test_where_describes_the_position_for_timeout_messages():
    tracker = ConsoleTracker()
    assert tracker.where() == "before the first benchmark started"
    lines = ["# Benchmark: a.B.c", "# Parameters: (n = 1, s = x,y)", "",
             "# Fork: 2 of 3", "# Warmup Iteration   1: 5 ns/op"]
    for line in lines:
        event = tracker.feed(line)
    assert tracker.where() == "in a.B.c{n=1,s=x,y}, fork 2"
    assert (event.benchmark, event.iteration, event.warmup) == ("a.B.c{n=1,s=x,y}", 1, True)


def test_measurement_failure_and_warmup_forks():
    tracker = ConsoleTracker()
    lines = [
        "# Benchmark: a.B.c", "", "# Warmup Fork: 1 of 1", "# Warmup Iteration   1: 1.0 ops/s",
        "# Fork: 1 of 2", "Iteration   1: 2.0 ops/s", "Iteration   2: <failure>", "",
        "java.lang.IllegalStateException: boom", "\tat a.B.c(B.java:1)",
    ]
    events = [tracker.feed(line) for line in lines]
    assert [(e.fork, e.iteration, e.warmup) for e in events if e.iteration] == [(None, 1, True), (1, 1, False)]
    assert tracker.failures == ["a.B.c: java.lang.IllegalStateException: boom"]


def test_fork_that_exits_during_an_iteration_is_a_failure_with_the_reason():
    tracker = ConsoleTracker()
    for line in ["# Benchmark: a.B.c", "# Fork: 1 of 1", "Iteration   1: 2.0 ops/s",
                 "Iteration   2: <failure: VM prematurely exited before JMH had finished with it, "
                 "explicit System.exit was called?>", "", "# Benchmark: a.B.d", "Iteration   1: 1.0 ops/s"]:
        tracker.feed(line)
    assert tracker.failures == [
        "a.B.c: VM prematurely exited before JMH had finished with it, explicit System.exit was called?"
    ]
