"""``rigorbench ab`` on the Go, Google Benchmark and pyperf demos (examples/*-demo, two
versions as folders) with the real toolchains, and their build cache.

One real path per harness, in one test each: the first ``ab`` builds both versions, runs every
fork as a process of its own, keeps warmups as warmup iterations and finds the planted
changes; a second ``ab`` of the same clean commit on the same store builds nothing and runs
what the first one kept; after a commit that changes v2, what is built again depends on how
the harness keys its builds. Each demo is committed to a fresh git repository (so that its
versions are clean) with a store of its own (the first run must build). Settings are short;
what is asserted is what short runs on a loaded machine show reliably, the log and the stored
runs, never timings.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rigorbench import api
from rigorbench.cli import main
from rigorbench.store import ResultStore
from tests.e2e.conftest import committed_demo

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--trials", "2", "--forks", "1", "--warmup-iterations", "0", "--iterations", "2", "--resamples", "500"]
BUILD_STEP = {"go": "$ go test -c", "gbench": "$ cmake --build", "pyperf": "-m pip install"}
SETTINGS = {"go": ["--iteration-time", "10ms", "--bench", "Adler32"], "gbench": ["--iteration-time", "10ms", "--bench", "BM_JoinWords"],
            "pyperf": ["--iteration-time", "10ms"]}
# The first run: enough trials and forks to find the planted changes and to check the levels.
PLANTED = {
    "go": ["--trials", "3", "--forks", "2", "--warmup-iterations", "1", "--iterations", "3", "--iteration-time", "20ms",
           "--bench", "Adler32|Join", "--resamples", "2000"],
    "gbench": ["--trials", "3", "--forks", "2", "--warmup-iterations", "1", "--iterations", "3", "--iteration-time", "10ms",
               "--resamples", "2000"],
    "pyperf": ["--trials", "3", "--forks", "2", "--warmup-iterations", "1", "--iterations", "3", "--iteration-time", "10ms",
               "--resamples", "2000"],
}

needs_gbench = pytest.mark.skipif(
    not (Path("/usr/include/benchmark/benchmark.h").is_file() and shutil.which("cmake") and shutil.which("g++")),
    reason="Google Benchmark, CMake and g++ are not installed (Debian: libbenchmark-dev cmake g++, "
           "which 'make test' installs where it can)",
)
# Go is part of the machine's set-up (README): without it these tests fail loudly instead of skipping.
assert shutil.which("go"), "the Go end-to-end tests need the go command on PATH"


def ab(project: Path, db: Path, harness: str, settings: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["ab", str(project), "--base", "v1", "--contender", "v2", "--harness", harness, *settings,
                 "--store", str(db), "--format", "json"], out, err)
    return code, out.getvalue(), err.getvalue()


def primary_table(store: ResultStore, run_id: int, label: str, name: str, params: dict | None = None):
    [version] = api.load_stored(store, [label], run_id)
    return version, next(t for (case, metric), t in version.series.items()
                         if case.name == name and metric.primary and (params is None or case.params_dict == params))


def check_go(found: dict, err: str, store: ResultStore, run_id: int, project: Path) -> None:
    # each version's _test.go files are linted with the Go rules before it is built
    assert "lint v1: no findings in 1 file (3 benchmarks)" in err and "lint v2: no findings in 1 file (3 benchmarks)" in err
    assert found[("BenchmarkJoin/concat", "1000")]["verdict"] == "faster"     # strings.Join in v2: over 100x
    # About 2x slower in v2 (an indirect call and a 64-bit division per byte): on a loaded 2-core
    # machine 3 short trials may leave it inconclusive, but never faster, and the estimate shows it.
    adler = found[("BenchmarkAdler32", "4096")]
    assert adler["verdict"] in ("slower", "inconclusive") and adler["ratio"]["estimate"] > 1.2
    v1, table = primary_table(store, run_id, "v1", "BenchmarkAdler32", {"size": "4096"})
    assert sorted(set(zip(table.trial.tolist(), table.fork.tolist()))) == [(t, f) for t in range(3) for f in range(2)]
    assert int(table.warmup.sum()) == 3 * 2 * 1 and int((~table.warmup).sum()) == 3 * 2 * 3
    assert any("go1." in str(e.get("go", "")) for e in v1.environments)
    assert not (ROOT / "examples" / "go-demo" / "v1" / ".rigorbench-go").exists()   # examples/ is never written to


def check_gbench(found: dict, err: str, store: ResultStore, run_id: int, project: Path) -> None:
    assert found[("BM_JoinWords", None)]["verdict"] == "faster"          # about 10x in v2
    # v2 sorts a copy of the vector on every call (several times slower): never faster, and the
    # estimate shows it even when 3 short trials on a loaded machine leave it inconclusive.
    assert found[("BM_SumVector", "10000")]["verdict"] in ("slower", "inconclusive")
    assert found[("BM_SumVector", "10000")]["ratio"]["estimate"] > 1.5
    _, table = primary_table(store, run_id, "v2", "BM_JoinWords")
    assert sorted(set(zip(table.trial.tolist(), table.fork.tolist()))) == [(t, f) for t in range(3) for f in range(2)]


def check_pyperf(found: dict, err: str, store: ResultStore, run_id: int, project: Path) -> None:
    assert found[("join_words", None)]["verdict"] == "faster"                      # str.join: about 10x
    assert found[("sum_squares", None)]["verdict"] in ("slower", "inconclusive")   # math.pow: 2-4x
    assert found[("sum_squares", None)]["ratio"]["estimate"] > 1.5
    v2, table = primary_table(store, run_id, "v2", "join_words")
    assert sorted(set(zip(table.trial.tolist(), table.fork.tolist()))) == [(t, f) for t in range(3) for f in range(2)]
    assert int(table.warmup.sum()) == 6 and int((~table.warmup).sum()) == 18
    assert any(e.get("perf_version") for e in v2.environments)
    assert not (project / "v2" / ".rigorbench-pyperf").exists()


CHECKS = {"go": check_go, "gbench": check_gbench, "pyperf": check_pyperf}


@pytest.mark.parametrize("harness", ["go", pytest.param("gbench", marks=needs_gbench), "pyperf"])
def test_ab_finds_the_planted_changes_then_takes_both_builds_from_the_cache(harness, tmp_path):
    project = committed_demo(harness, tmp_path)
    db = tmp_path / "results.db"
    code, out, first = ab(project, db, harness, PLANTED[harness])
    print(first[-3000:])
    assert code == 0, first[-2000:]
    assert first.count(BUILD_STEP[harness]) == 2 and "build cache hit" not in first
    found = {(c["benchmark"], c["params"].get("size")): c for c in json.loads(out)["comparisons"]}
    with ResultStore.read(db) as store:
        run = store.list_runs()[0][0]
        assert run.harness == harness
        CHECKS[harness](found, first, store, run.run_id, project)
    if harness == "pyperf":   # each version's environment is made in the build cache next to the store
        assert len(list(tmp_path.glob("builds/*/venv/bin/python"))) == 2

    code, _, second = ab(project, db, harness, [*TINY, *SETTINGS[harness]])
    print(second[-2000:])
    assert code == 0, second
    assert second.count("build cache hit: ") == 2 and BUILD_STEP[harness] not in second
    entries = {line.split("build cache hit: ")[1].split(" ")[0] for line in second.splitlines() if "build cache hit: " in line}
    assert len(entries) == 2 and all(Path(entry).exists() and (tmp_path in Path(entry).parents) for entry in entries)
    with ResultStore.read(db) as store:
        runs = [info for info, _ in store.list_runs()]
        assert len(runs) == 2 and {run.harness for run in runs} == {harness}
        assert {run.run_id: len(store.finished(run.run_id)) for run in runs} == {1: 6, 2: 4}   # trials x 2 versions, all done
    if harness == "pyperf":
        return   # a third virtual environment would take as long as the rest; Go's keys work alike
    # v2's sources change in a new commit: v2 is built again. Go's and pyperf's builds are keyed
    # by their sources, so v1's is still taken from the cache; a CMake build may read anything
    # in the checkout, so Google Benchmark's are kept per commit and both are built again.
    changed = {"go": "v2/godemo.go", "gbench": "v2/bench.cpp"}[harness]
    with open(project / changed, "a") as source:
        source.write("\n// changed\n")
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qam", "change v2"],
                   cwd=project, check=True, capture_output=True)
    code, _, third = ab(project, db, harness, [*TINY, *SETTINGS[harness]])
    assert code == 0, third
    hits = 0 if harness == "gbench" else 1
    assert third.count("build cache hit: ") == hits and third.count(BUILD_STEP[harness]) == 2 - hits
    assert not re.search(r"^rigorbench: error", third, re.M)
