"""A real duet run of the Go demo: ``ab --design duet`` builds both versions with the Go
toolchain and runs each trial's two test binaries at once, each on its own CPU set. What is
asserted is where the processes ran and what the store records, not timings."""

from __future__ import annotations

import io
import os
import shutil

import pytest

from rigorbench.cli import main
from rigorbench.experiment import duet
from rigorbench.store import ResultStore
from tests.e2e.conftest import committed_demo

pytestmark = pytest.mark.e2e

assert shutil.which("go"), "the Go end-to-end tests need the go command on PATH"


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="a duet run needs 2 usable CPUs")
def test_a_duet_run_of_the_go_demo_pins_each_versions_test_binary_to_its_own_cpus(tmp_path, db, monkeypatch):
    project = committed_demo("go", tmp_path)
    pinned: list[tuple[str, frozenset]] = []         # (program, the CPUs it may use) of every harness process
    started = duet.SideBySide._started

    def noting(self, process):
        try:
            pinned.append((os.path.basename(process.args[0]), frozenset(os.sched_getaffinity(process.pid))))
        except ProcessLookupError:                    # already gone: nothing to read
            pass
        started(self, process)

    monkeypatch.setattr(duet.SideBySide, "_started", noting)
    out, err = io.StringIO(), io.StringIO()
    code = main(["ab", str(project), "--base", "v1", "--contender", "v2", "--harness", "go", "--design", "duet",
                 "--trials", "2", "--bench", "BenchmarkAdler32", "--forks", "1", "--warmup-iterations", "0",
                 "--iterations", "2", "--iteration-time", "5ms", "--resamples", "1000", "--no-lint",
                 "--store", str(db)], out, err)
    assert code in (0, 1), err.getvalue()
    sets = duet.cpu_sets(os.sched_getaffinity(0))
    assert "design duet" in err.getvalue() and "duet: trial 2, v1 on CPUs " + duet.cpu_list(sets[1]) in err.getvalue()
    with ResultStore.open(db, create=False) as store:
        run = store.run(1)
        executions = {(e.trial, e.label): e for e in store.executions(1)}
    assert run.order == "duet" and run.setup.executor["design"] == "duet" and len(executions) == 4
    for trial in (0, 1):
        base, contender = executions[trial, "v1"].environment, executions[trial, "v2"].environment
        assert base["cpu_set"] == duet.cpu_list(sets[trial % 2]) and contender["cpu_set"] == duet.cpu_list(sets[1 - trial % 2])
        assert base["design"] == contender["design"] == "duet"
    binaries = [cpus for program, cpus in pinned if program != "go"]
    assert len(binaries) >= 4 and all(cpus in sets for cpus in binaries), pinned
    assert set(binaries) == set(sets), "both sets ran a version's test binary"
