"""The pyperf harness with real pyperf: a virtual environment per version, pyperf's worker
processes as forks, warmups kept, and ``ab`` on the demo's two versions."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from rigorbench import api
from rigorbench.cli import main
from rigorbench.errors import UserError
from rigorbench.harness import detect_harness
from rigorbench.harness.base import RunSettings
from rigorbench.harness.pyperf import trial_arguments
from rigorbench.store import ResultStore

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "pyperf-demo"


def test_trial_arguments_map_the_experiment_onto_pyperf_options():
    settings = RunSettings(forks=3, warmup_iterations=2, iterations=5, iteration_time="20ms")
    assert trial_arguments(settings) == ["--processes", "3", "--values", "5", "--warmups", "2", "--min-time", "0.02", "--quiet"]
    with pytest.raises(UserError, match="--bench is not passed to pyperf scripts"):
        trial_arguments(RunSettings(include=("join",)))
    with pytest.raises(UserError, match="bad iteration time '5x' for pyperf"):
        trial_arguments(RunSettings(iteration_time="5x"))


def test_the_harness_is_detected_from_a_pyperf_script(tmp_path):
    assert detect_harness(DEMO, "v1") == "pyperf"
    (tmp_path / "bench.py").write_text("print('not a benchmark')\n")
    assert detect_harness(tmp_path) == "jmh"


def test_ab_of_the_demo_runs_pyperf_per_version_and_finds_the_planted_changes(tmp_path):
    shutil.copytree(DEMO, tmp_path / "pyperf-demo", ignore=shutil.ignore_patterns(".rigorbench-pyperf"))
    db = tmp_path / "r.db"
    out, err = io.StringIO(), io.StringIO()
    code = main(["ab", str(tmp_path / "pyperf-demo"), "--base", "v1", "--contender", "v2", "--trials", "3",
                 "--forks", "2", "--warmup-iterations", "1", "--iterations", "3", "--iteration-time", "10ms",
                 "--store", str(db), "--format", "json", "--resamples", "2000"], out, err)
    print(err.getvalue()[-2000:])
    assert code == 0
    found = {c["benchmark"]: c for c in json.loads(out.getvalue())["comparisons"]}
    assert found["join_words"]["verdict"] == "faster"                      # str.join: about 10x
    assert found["sum_squares"]["verdict"] in ("slower", "inconclusive")   # math.pow: 2-4x
    assert found["sum_squares"]["ratio"]["estimate"] > 1.5
    with ResultStore.open(str(db), create=False) as store:
        run = store.list_runs()[0][0]
        assert run.harness == "pyperf"
        [v2] = api.load_stored(store, ["v2"], run.run_id)
    table = next(t for (case, metric), t in v2.series.items() if case.name == "join_words" and metric.primary)
    assert sorted(set(zip(table.trial.tolist(), table.fork.tolist()))) == [(t, f) for t in range(3) for f in range(2)]
    assert int(table.warmup.sum()) == 6 and int((~table.warmup).sum()) == 18
    assert any(e.get("perf_version") for e in v2.environments)
    # Each version's environment is made in the build cache next to the store, not in its folder.
    assert len(list(tmp_path.glob("**/builds/*/venv/bin/python"))) == 2
    assert not (tmp_path / "pyperf-demo" / "v2" / ".rigorbench-pyperf").exists()


@pytest.mark.parametrize("adaptive", [["--until-decided"], ["--warmup", "auto"]])
def test_adaptive_options_are_refused_before_building_since_pyperf_runs_every_benchmark(tmp_path, adaptive):
    shutil.copytree(DEMO, tmp_path / "pyperf-demo", ignore=shutil.ignore_patterns(".rigorbench-pyperf"))
    out, err = io.StringIO(), io.StringIO()
    code = main(["ab", str(tmp_path / "pyperf-demo"), "--base", "v1", "--contender", "v2", *adaptive,
                 "--store", str(tmp_path / "r.db")], out, err)
    assert code == 2 and "pyperf has no filter of its own" in err.getvalue() and "Traceback" not in err.getvalue()
    assert not list(tmp_path.rglob("venv")) and not list(tmp_path.rglob(".rigorbench-pyperf"))   # nothing was built
