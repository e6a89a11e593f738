"""A stored run of two versions made from in-memory datasets, trial by trial (tests only)."""

from __future__ import annotations

from rigorbench.analysis.dataset import Dataset
from rigorbench.model import SampleTable, Series
from rigorbench.store import Execution, ResultStore, TrialRecord, VersionInfo


def store_run(path, sides: tuple[Dataset, Dataset], order: str, wall_seconds: float = 1.0) -> int:
    """``sides`` (one series each, labels v1 and v2) as one finished run of ``order``; its id."""
    (key,) = sides[0].series
    tables = {d.label: d.series[key] for d in sides}
    trials = int(tables["v1"].trial.max()) + 1
    plan = [Execution(t, label, 2 * t + i) for t in range(trials) for i, label in enumerate(("v1", "v2"))]
    with ResultStore.open(path) as store:
        run_id = store.create_run(harness="jmh", project="p", order=order, seed=1, settings={"trials": trials},
                                  versions=[VersionInfo("v1", "v1", None, None), VersionInfo("v2", "v2", None, None)],
                                  schedule=plan, tool_version="test")
        for e in plan:
            table = tables[e.label]
            rows = table.trial == e.trial
            one = SampleTable.build(table.value[rows], trial=table.trial[rows], fork=table.fork[rows],
                                    iteration=table.iteration[rows])
            store.record_execution(run_id, e, TrialRecord("done", "s", "e", 0.1, [Series(*key, one)], {}))
        store.finish_run(run_id, status="finished", wall_seconds=wall_seconds, harness_seconds=wall_seconds)
    return run_id
