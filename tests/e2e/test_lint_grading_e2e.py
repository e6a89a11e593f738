"""Lint findings graded by real measurements: a tiny JMH project with two ``Level.Invocation``
benchmarks -- one that sorts a fresh array of 400,000 ints per call (tens of milliseconds),
one that adds two fields (nanoseconds plus JMH's timestamps) -- run for real by ``ab`` (one
Maven build: both sides are the same commit, the second taken from the build cache), then
``lint --store``: the millisecond one is cleared to info, the nanosecond one confirmed.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from rigorbench.cli import main
from tests.e2e import projects

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--forks", "1", "--warmup-iterations", "1", "--iterations", "2", "--warmup-time", "100ms",
        "--iteration-time", "100ms", "--resamples", "1000"]
PACKAGE = "src/main/java/dev/rigorbench/grading"

# Statically INVO already calls the sort's fixture info ('sorts') and the add's a warning; what is
# asserted is what the measurement decides and says about each.
SORT_JAVA = """package dev.rigorbench.grading;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
public class FreshSort {
    private int[] original;
    private int[] data;

    @Setup(Level.Trial)
    public void make() {
        original = new SplittableRandom(7).ints(400_000).toArray();
    }

    @Setup(Level.Invocation)
    public void copy() {
        data = original.clone();
    }

    @Benchmark
    public int sort() {
        Arrays.sort(data);
        return data[data.length / 2];
    }
}
"""

ADD_JAVA = """package dev.rigorbench.grading;

import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
public class TinyAdd {
    private int x = 7;
    private int y;

    @Setup(Level.Invocation)
    public void bump() {
        y++;
    }

    @Benchmark
    public int add() {
        return x + y;
    }
}
"""


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "grading"
    (root / PACKAGE).mkdir(parents=True)
    shutil.copy(ROOT / "examples/jmh-demo/v1/pom.xml", root / "pom.xml")
    (root / PACKAGE / "FreshSort.java").write_text(SORT_JAVA)
    (root / PACKAGE / "TinyAdd.java").write_text(ADD_JAVA)
    projects.commit_all(root, "two Level.Invocation benchmarks")
    projects.git(root, "branch", "same")
    return root


def test_lint_store_clears_the_millisecond_fixture_and_confirms_the_nanosecond_one(repo, db):
    code, out, err = cli("ab", str(repo), "--base", "HEAD", "--contender", "same", "--trials", "1", *TINY,
                         "--store", str(db))
    print(err[-3000:])
    assert code == 0
    assert err.count("$ mvn") == 1                      # the second side came from the build cache
    # ab prints the grading of the run it just measured, for each side
    assert "lint same: src/main/java/dev/rigorbench/grading/TinyAdd.java:10:5: INVO [warning] measured" in err
    code, out, err = cli("lint", str(repo), "--store", str(db), "--format", "json")
    assert code == 1, err
    found = {Path(f["path"]).stem: f for f in json.loads(out)["findings"] if f["rule"] == "INVO"}
    sort, add = found["FreshSort"], found["TinyAdd"]
    print(sort["measured"], add["measured"])
    assert sort["measured"]["benchmarks"] == ["dev.rigorbench.grading.FreshSort.sort"]
    assert sort["measured"]["unit"] in ("ms/op", "s/op") and sort["measured"]["decision"] == "cleared"
    assert sort["severity"] == "info"
    assert add["measured"]["benchmarks"] == ["dev.rigorbench.grading.TinyAdd.add"]
    assert add["measured"]["unit"] in ("ns/op", "us/op") and add["measured"]["decision"] == "confirmed"
    assert add["severity"] == "warning"
    assert add["measured"]["source"] == "run 1 (version same)"
