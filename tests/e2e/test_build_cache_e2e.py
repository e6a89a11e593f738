"""The build cache of the Go, Google Benchmark and pyperf harnesses: a second ``rigorbench ab`` of
the same clean commit on the same store builds nothing and runs what the first one kept. Each
demo (examples/*-demo, two versions as folders) is committed to a fresh git repository, so
that its versions are clean; settings are tiny, and what is asserted is the log and the
stored runs, never timings."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.store import ResultStore

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--trials", "2", "--forks", "1", "--warmup-iterations", "0", "--iterations", "2", "--resamples", "500"]
BUILD_STEP = {"go": "$ go test -c", "gbench": "$ cmake --build", "pyperf": "-m pip install"}
SETTINGS = {"go": ["--iteration-time", "10ms", "--bench", "Adler32"], "gbench": ["--iteration-time", "10ms", "--bench", "BM_JoinWords"],
            "pyperf": ["--iteration-time", "10ms"]}

needs_gbench = pytest.mark.skipif(
    not (Path("/usr/include/benchmark/benchmark.h").is_file() and shutil.which("cmake") and shutil.which("g++")),
    reason="Google Benchmark, CMake and g++ are not installed (Debian: libbenchmark-dev cmake g++, "
           "which 'make test' installs where it can)",
)
assert shutil.which("go"), "the Go end-to-end tests need the go command on PATH"


def committed_demo(name: str, root: Path) -> Path:
    """examples/NAME-demo (v1 and v2) as one commit of a new repository."""
    project = root / f"{name}-demo"
    shutil.copytree(ROOT / "examples" / f"{name}-demo", project, ignore=shutil.ignore_patterns(".rigorbench*"))
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "the demo"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=project,
                       check=True, capture_output=True)
    return project


def ab(project: Path, db: Path, harness: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["ab", str(project), "--base", "v1", "--contender", "v2", "--harness", harness, *TINY,
                 *SETTINGS[harness], "--store", str(db)], out, err)
    return code, err.getvalue()


@pytest.mark.parametrize("harness", ["go", pytest.param("gbench", marks=needs_gbench), "pyperf"])
def test_a_second_ab_of_the_same_commit_takes_both_builds_from_the_cache(harness, tmp_path):
    project = committed_demo(harness, tmp_path)
    db = tmp_path / "results.db"
    code, first = ab(project, db, harness)
    print(first[-2000:])
    assert code == 0, first
    assert first.count(BUILD_STEP[harness]) == 2 and "build cache hit" not in first
    code, second = ab(project, db, harness)
    print(second[-2000:])
    assert code == 0, second
    assert second.count("build cache hit: ") == 2 and BUILD_STEP[harness] not in second
    entries = {line.split("build cache hit: ")[1].split(" ")[0] for line in second.splitlines() if "build cache hit: " in line}
    assert len(entries) == 2 and all(Path(entry).exists() and (tmp_path in Path(entry).parents) for entry in entries)
    with ResultStore.read(db) as store:
        runs = [info for info, _ in store.list_runs()]
        assert len(runs) == 2 and {run.harness for run in runs} == {harness}
        assert all(len(store.finished(run.run_id)) == 4 for run in runs)     # 2 trials x 2 versions, all done
    if harness == "pyperf":
        return   # a third virtual environment would take as long as the rest; Go's keys work alike
    # v2's sources change in a new commit: v2 is built again. Go's and pyperf's builds are keyed
    # by their sources, so v1's is still taken from the cache; a CMake build may read anything
    # in the checkout, so Google Benchmark's are kept per commit and both are built again.
    changed = {"go": "v2/godemo.go", "gbench": "v2/bench.cpp", "pyperf": "v2/bench.py"}[harness]
    with open(project / changed, "a") as source:
        source.write("\n// changed\n" if harness != "pyperf" else "\n# changed\n")
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qam", "change v2"],
                   cwd=project, check=True, capture_output=True)
    code, third = ab(project, db, harness)
    assert code == 0, third
    hits = 0 if harness == "gbench" else 1
    assert third.count("build cache hit: ") == hits and third.count(BUILD_STEP[harness]) == 2 - hits
