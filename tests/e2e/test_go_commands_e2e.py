"""``rigorbench record`` and ``bisect`` with the Go harness on a generated repository of the Go
demo (tests/e2e/go_repo.py): real git, the real Go toolchain, real SQLite. Settings are short;
the planted regression is about 4x and the threshold 90%, so that unchanged commits decide in a
few trials even on a loaded 2-CPU machine. What is asserted is what the output and the store
hold, not timings."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.store import ResultStore
from tests.e2e import go_repo

pytestmark = pytest.mark.e2e

SHORT = ["--forks", "1", "--warmup-iterations", "1", "--iterations", "3", "--iteration-time", "50ms"]
BISECT = [*SHORT, "--resamples", "1000", "--threshold", "90%", "--trials", "3", "--max-trials", "12"]

# Go is part of the machine's set-up (README): without it these tests fail loudly instead of skipping.
assert shutil.which("go"), "the Go end-to-end tests need the go command on PATH"


def rb(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in args], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("go-commands") / "repo"
    return root, go_repo.make_repo(root)


def test_record_of_a_go_commit_adds_history_points_detected_as_go(repo, tmp_path):
    root, commits = repo
    db = tmp_path / "results.db"
    code, out, err = rb("record", root, "--rev", "HEAD~7", "--branch", "main", "--trials", "2", *SHORT,
                        "--bench", "Adler32", "--store", db)
    print(err[-2000:])
    assert code == 0, err
    assert "run 1: 2 executions (0 failed)" in out and "BenchmarkAdler32{size=4096} time (ns/op) (branch main; machine " in out
    assert re.search(r"lint \w+: no findings in \d+ files? \(\d+ benchmarks?\)", err)   # the Go rules read its _test.go files
    with ResultStore.read(db) as store:
        run = store.run(1)
        assert run.harness == "go" and run.versions[0].commit == commits[0]
        points = store.history_points()
    primary = sorted((p.case.params_dict["size"], p.n, p.commit) for p in points if p.metric.primary)
    assert primary == [("4096", 6, commits[0]), ("64", 6, commits[0])]          # 2 trials x 3 iterations
    code, out, err = rb("history", "list", "--store", db, "--format", "json")
    assert code == 0 and {s["benchmark"] for s in json.loads(out)["series"]} == {"BenchmarkAdler32"}


def test_record_with_an_explicit_harness_that_does_not_fit_says_so(repo, tmp_path):
    root, _ = repo
    code, out, err = rb("record", root, "--rev", "HEAD", "--harness", "gbench", "--trials", "2", *SHORT,
                        "--store", tmp_path / "r.db")
    assert code == 2 and "no CMakeLists.txt here" in err and "Traceback" not in err


def test_bisect_with_the_go_harness_finds_the_planted_commit(repo, tmp_path):
    root, commits = repo
    db = tmp_path / "bisect.db"
    code, out, err = rb("bisect", root, "--good", "HEAD~7", "--bad", "HEAD", "--bench", "Adler32/size=4096",
                        *BISECT, "--store", db)
    print(out, err[-2000:])
    planted = commits[go_repo.PLANTED]
    assert code == 0, out
    assert f"culprit: {planted[:12]}  {go_repo.subject(go_repo.PLANTED)}\n" in out
    with ResultStore.read(db) as store:
        runs = [info for info, _ in store.list_runs()]
    assert len(runs) >= 3 and {run.harness for run in runs} == {"go"}
    assert all(run.settings["bisect"]["good"] == commits[0] for run in runs)
