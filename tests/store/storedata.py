"""Data of the store tests: a two-version, three-trial experiment with rich series."""

from __future__ import annotations

import numpy as np

from rigorbench.model import BenchmarkCase, Metric, SampleTable, Series
from rigorbench.store import Execution, ResultStore, TrialRecord, VersionInfo

ADD = BenchmarkCase.of("jmh", "org.example.Bench.add", {"size": "10", "kind": "a,b"})
SAMPLE = BenchmarkCase.of("jmh", "org.example.Bench.sample")
TIME = Metric("time", "ns/op", higher_is_better=False, primary=True)
SAMPLE_TIME = Metric("sample_time", "ns/op", higher_is_better=False, primary=True)  # JMH SampleTime
ALLOC = Metric("alloc", "B/op", higher_is_better=False, primary=False)
GC_COUNT = Metric("gc.count", "counts", higher_is_better=False, primary=False)

LABELS = ("base", "contender")
TRIALS = 3
FORKS, WARMUP, ITERATIONS = 2, 2, 3


def iteration_table(values: np.ndarray, *, with_warmup: bool = True) -> SampleTable:
    """FORKS forks of (WARMUP warmup +) ITERATIONS iterations; warmup numbered on its own, as
    JMH prints it. The trial column holds junk: the store must ignore it."""
    fork, iteration, warmup = [], [], []
    for f in range(FORKS):
        if with_warmup:
            fork += [f] * WARMUP
            iteration += list(range(WARMUP))
            warmup += [True] * WARMUP
        fork += [f] * ITERATIONS
        iteration += list(range(ITERATIONS))
        warmup += [False] * ITERATIONS
    assert len(values) == len(fork)
    return SampleTable.build(values, fork=fork, iteration=iteration, warmup=warmup, trial=np.full(len(fork), 99))


def histogram_table(rng: np.random.Generator) -> SampleTable:
    """SampleTime-like: each measurement iteration is 3 distinct times with their counts."""
    fork, iteration, values, counts = [], [], [], []
    for f in range(FORKS):
        for i in range(ITERATIONS):
            fork += [f] * 3
            iteration += [i] * 3
            values += sorted(rng.uniform(100, 200, 3).round(1).tolist())
            counts += [50.0, 7.0, 1.0]
    return SampleTable.build(values, fork=fork, iteration=iteration, count=counts)


def trial_series(label: str, trial: int) -> list[Series]:
    """What one execution (trial ``trial`` of version ``label``) measured."""
    rng = np.random.default_rng([LABELS.index(label), trial])
    rows = FORKS * (WARMUP + ITERATIONS)
    return [
        Series(ADD, TIME, iteration_table(rng.normal(100, 5, rows))),
        Series(ADD, ALLOC, iteration_table(np.full(rows, 24.0))),
        Series(SAMPLE, SAMPLE_TIME, histogram_table(rng)),
        Series(SAMPLE, GC_COUNT, iteration_table(rng.integers(0, 3, FORKS * ITERATIONS) * 1.0, with_warmup=False)),
    ]


def schedule() -> list[Execution]:
    """An interleaved order: every trial runs both versions, the order alternating."""
    order = []
    for trial in range(TRIALS):
        labels = LABELS if trial % 2 == 0 else LABELS[::-1]
        order += [(trial, label) for label in labels]
    return [Execution(trial, label, position) for position, (trial, label) in enumerate(order)]


def versions() -> list[VersionInfo]:
    return [VersionInfo("base", "HEAD~1", "a" * 40, False), VersionInfo("contender", "HEAD", "b" * 40, True)]


def new_run(store: ResultStore, *, labels=None, project: str = "demo") -> int:
    infos = versions() if labels is None else [VersionInfo(label, label, None, None) for label in labels]
    plan = schedule() if labels is None else [Execution(0, label, i) for i, label in enumerate(labels)]
    return store.create_run(
        harness="jmh", project=project, order="rmit", seed=42, settings={"run": {"forks": FORKS}, "trials": TRIALS},
        versions=infos, schedule=plan, tool_version="0.1.0",
    )


def record(store: ResultStore, run_id: int, execution: Execution, *, status: str = "done", series=None) -> None:
    store.record_execution(run_id, execution, TrialRecord(
        status=status, started="2024-05-01T10:00:00+00:00", ended="2024-05-01T10:01:00+00:00",
        harness_seconds=60.0, series=trial_series(execution.label, execution.trial) if series is None else series,
        environment={"os": "Linux", "trial": str(execution.trial)},
        failures=("org.example.Bench.broken: OutOfMemoryError",) if status != "done" else (),
        output_tail="last line\n", message="" if status == "done" else "exit code 1",
    ))


def write_store(path, runs: int = 1) -> None:
    """A sound store file of ``runs`` full runs, checkpointed so the file alone holds it all
    (tests copy it and then damage the copy)."""
    with ResultStore.open(path) as store:
        for _ in range(runs):
            run_id = new_run(store)
            for execution in schedule():
                record(store, run_id, execution)
        if runs >= 3:
            store.finish_run(3, status="finished", wall_seconds=12.5, harness_seconds=10.0)
        store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
