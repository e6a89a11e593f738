"""``rigorbench lint --measure`` for real on examples/jmh-measure: Maven builds of the original and
the fixed variant in git worktrees, JMH trials, the comparison, and nothing left behind.

The dead-code benchmark (JMHSample_08's shape) takes well under a nanosecond when its result
is dropped and tens of nanoseconds once the fix returns it: a ratio so large that five short
trials of one fork decide it on a loaded 2-CPU machine. The warmup is longer than the
iterations because C2 must have compiled (and removed) the dead code before the first
measured iteration; under load the compiler threads are slow to get a CPU. The heavy loop's
LOOP fix changes nothing measurable, so it must not come out confirmed.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from rigorbench import api
from rigorbench.cli import main

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SHORT = ["--trials", "5", "--forks", "1", "--warmup-iterations", "2", "--warmup-time", "200ms",
         "--iterations", "2", "--iteration-time", "100ms"]


def committed_example(root: Path) -> Path:
    """examples/jmh-measure as the one commit of a new repository (measured in worktrees)."""
    project = Path(shutil.copytree(ROOT / "examples" / "jmh-measure", root / "jmh-measure",
                                   ignore=shutil.ignore_patterns("target", ".rigorbench*")))
    (project / ".gitignore").write_text("target/\n")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "the example"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=project,
                       check=True, capture_output=True)
    return project


def test_measure_confirms_dead_code_and_not_the_heavy_loop(tmp_path, monkeypatch):
    project = committed_example(tmp_path)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    # The copies go to a folder of this test's own; trials still wait for other experiments' ones.
    monkeypatch.setenv("RIGORBENCH_LOCK_DIR", os.environ.get("RIGORBENCH_LOCK_DIR") or tempfile.gettempdir())
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    store = tmp_path / "measure.db"
    out, err = io.StringIO(), io.StringIO()
    code = main(["lint", str(project), "--measure", *SHORT, "--store", str(store), "--format", "json"], out, err)
    assert code == 1, err.getvalue()   # the findings are warnings
    impacts = {f["benchmark"]: f["impact"] for f in json.loads(out.getvalue())["findings"]}

    dead = impacts["DeadCodeBenchmark.measureWrong"]
    assert dead["verdict"] == "confirmed", (dead, err.getvalue())
    assert dead["ratio"]["estimate"] > 5 and dead["ratio"]["ci_low"] > 1   # many times slower per op once fixed
    assert dead["unit"] == "ns/op" and dead["predicted"] == "slower"
    assert impacts["ScrambleBenchmark.scrambleAll"]["verdict"] in ("no_effect", "inconclusive")

    assert "building fixed" in err.getvalue() and "trial 5/5" in err.getvalue()   # ab's progress lines
    assert list(scratch.iterdir()) == []
    worktrees = subprocess.run(["git", "worktree", "list"], cwd=project, capture_output=True, text=True, check=True)
    assert len(worktrees.stdout.splitlines()) == 1
    (run, counts), = api.list_runs(str(store))
    assert [v.label for v in run.versions] == ["original", "fixed"] and counts["executions_done"] == 10
