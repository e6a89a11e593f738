"""The pyperf harness: its options, its detection, and the adaptive options it refuses before
building. ``ab`` of the demo with real pyperf (a virtual environment per version, pyperf's
worker processes as forks, warmups kept) is in tests/e2e/test_build_cache_e2e.py."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.errors import UserError
from rigorbench.harness import detect_harness
from rigorbench.harness.base import RunSettings
from rigorbench.harness.pyperf import trial_arguments

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


@pytest.mark.parametrize("adaptive", [["--until-decided"], ["--warmup", "auto"]])
def test_adaptive_options_are_refused_before_building_since_pyperf_runs_every_benchmark(tmp_path, adaptive):
    shutil.copytree(DEMO, tmp_path / "pyperf-demo", ignore=shutil.ignore_patterns(".rigorbench-pyperf"))
    out, err = io.StringIO(), io.StringIO()
    code = main(["ab", str(tmp_path / "pyperf-demo"), "--base", "v1", "--contender", "v2", *adaptive,
                 "--store", str(tmp_path / "r.db")], out, err)
    assert code == 2 and "pyperf has no filter of its own" in err.getvalue() and "Traceback" not in err.getvalue()
    assert not list(tmp_path.rglob("venv")) and not list(tmp_path.rglob(".rigorbench-pyperf"))   # nothing was built
