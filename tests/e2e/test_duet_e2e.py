"""A real duet run of the Go demo: ``ab --design duet`` builds both versions with the Go
toolchain and runs each trial's two test binaries at once, each on its own CPU set. What is
asserted is where the processes ran and what the store records, not timings: how each was
pinned (in a cpuset group where this machine's cgroup v1 hierarchy is writable, by affinity
alone elsewhere) and that no group is left after the run."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.experiment import cpuset, duet
from rigorbench.store import ResultStore
from tests.e2e.conftest import committed_demo

pytestmark = pytest.mark.e2e

assert shutil.which("go"), "the Go end-to-end tests need the go command on PATH"


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="a duet run needs 2 usable CPUs")
def test_a_duet_run_of_the_go_demo_pins_each_versions_test_binary_to_its_own_cpus(tmp_path, db, monkeypatch):
    project = committed_demo("go", tmp_path)
    pinned: list[tuple[str, frozenset, str | None]] = []   # (program, its CPUs, its cpuset group) of each
    started = duet.SideBySide._started

    def noting(self, process):
        try:
            cpus = frozenset(os.sched_getaffinity(process.pid))
            groups = Path(f"/proc/{process.pid}/cgroup").read_text().splitlines()
            group = next((line.split(":", 2)[2] for line in groups if ":cpuset:" in line), "")
            if Path(f"/proc/{process.pid}/stat").read_text().rpartition(") ")[2].startswith("Z"):
                group = None        # it has exited already: v1 shows a dead task in the root group
            pinned.append((os.path.basename(process.args[0]), cpus, group))
        except (ProcessLookupError, FileNotFoundError):   # already gone: nothing to read
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
    hierarchy, _ = cpuset.find_hierarchy()          # /sys/fs/cgroup/cpuset where cgroup v1 is mounted
    method = "cgroup-v1" if hierarchy is not None and os.access(hierarchy.folder, os.W_OK) else "affinity"
    assert "design duet" in err.getvalue() and "duet: trial 2, v1 on CPUs " + duet.cpu_list(sets[1]) in err.getvalue()
    with ResultStore.open(db, create=False) as store:
        run = store.run(1)
        executions = {(e.trial, e.label): e for e in store.executions(1)}
    assert run.order == "duet" and run.setup.executor["design"] == "duet" and len(executions) == 4
    for trial in (0, 1):
        base, contender = executions[trial, "v1"].environment, executions[trial, "v2"].environment
        assert base["cpu_set"] == duet.cpu_list(sets[trial % 2]) and contender["cpu_set"] == duet.cpu_list(sets[1 - trial % 2])
        assert base["design"] == contender["design"] == "duet"
        for environment, cpus in ((base, sets[trial % 2]), (contender, sets[1 - trial % 2])):
            assert environment["pinning.method"] == method, environment
            if method == "cgroup-v1":     # the group of the set it ran on, made by this process
                assert environment["pinning.cgroup"].endswith(f"/rigorbench-duet-{os.getpid()}-{sets.index(cpus)}")
    if hierarchy is not None:
        # (this process's groups: another test worker's duet run may have its own at this moment)
        mine = f"rigorbench-duet-{os.getpid()}-"
        assert not [name for name in os.listdir(hierarchy.folder) if name.startswith(mine)], "the run removed its groups"
    binaries = [cpus for program, cpus, _ in pinned if program != "go"]
    assert len(binaries) >= 4 and all(cpus in sets for cpus in binaries), pinned
    assert set(binaries) == set(sets), "both sets ran a version's test binary"
    if method == "cgroup-v1":                       # and each that was still running was in its set's group
        groups = [(cpus, group) for program, cpus, group in pinned if program != "go" and group is not None]
        assert groups and all(group.endswith(f"/rigorbench-duet-{os.getpid()}-{sets.index(cpus)}")
                              for cpus, group in groups), pinned
