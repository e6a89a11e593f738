"""``rigorbench ab`` on the Go demo (examples/go-demo, two versions) with the real Go toolchain:
test binaries built once per version, every fork a process of its own, warmup lines kept as
warmup iterations, and the planted changes found."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from rigorbench import api
from rigorbench.cli import main
from rigorbench.store import ResultStore

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]

# Go is part of the machine's set-up (README): without it this test fails loudly instead of
# skipping, so a machine missing it cannot pass for green.
assert shutil.which("go"), "the Go end-to-end test needs the go command on PATH"


def test_ab_of_a_go_module_finds_the_planted_changes(tmp_path):
    project = tmp_path / "go-demo"
    shutil.copytree(ROOT / "examples" / "go-demo", project, ignore=shutil.ignore_patterns(".rigorbench-go"))
    db = tmp_path / "results.db"
    out, err = io.StringIO(), io.StringIO()
    code = main(["ab", str(project), "--base", "v1", "--contender", "v2", "--trials", "3", "--forks", "2",
                 "--warmup-iterations", "1", "--iterations", "3", "--iteration-time", "20ms",
                 "--bench", "Adler32|Join", "--store", str(db), "--format", "json", "--resamples", "2000"], out, err)
    print(err.getvalue()[-3000:])
    assert code == 0, err.getvalue()[-2000:]
    # each version's _test.go files are linted with the Go rules before it is built
    assert "lint v1: no findings in 1 file (3 benchmarks)" in err.getvalue()
    assert "lint v2: no findings in 1 file (3 benchmarks)" in err.getvalue()
    found = {(c["benchmark"], c["params"].get("size")): c for c in json.loads(out.getvalue())["comparisons"]}
    assert found[("BenchmarkJoin/concat", "1000")]["verdict"] == "faster"     # strings.Join in v2: over 100x
    # About 2x slower in v2 (an indirect call and a 64-bit division per byte): on a loaded 2-core
    # machine 3 short trials may leave it inconclusive, but never faster, and the estimate shows it.
    adler = found[("BenchmarkAdler32", "4096")]
    assert adler["verdict"] in ("slower", "inconclusive") and adler["ratio"]["estimate"] > 1.2
    with ResultStore.open(str(db), create=False) as store:
        run = store.list_runs()[0][0]
        assert run.harness == "go"
        [v1] = api.load_stored(store, ["v1"], run.run_id)
    table = next(t for (case, metric), t in v1.series.items()
                 if case.name == "BenchmarkAdler32" and case.params_dict == {"size": "4096"} and metric.primary)
    assert sorted(set(zip(table.trial.tolist(), table.fork.tolist()))) == [(t, f) for t in range(3) for f in range(2)]
    assert int(table.warmup.sum()) == 3 * 2 * 1 and int((~table.warmup).sum()) == 3 * 2 * 3
    assert any("go1." in str(e.get("go", "")) for e in v1.environments)
    assert not (ROOT / "examples" / "go-demo" / "v1" / ".rigorbench-go").exists()
