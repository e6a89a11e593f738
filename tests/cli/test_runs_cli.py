"""``rigorbench runs --run N``: one run in detail, with what an adaptive run chose."""

from __future__ import annotations

import io
import json

from rigorbench.cli import main
from rigorbench.store import ResultStore
from rigorbench.store.api import Execution, VersionInfo

SETTINGS = {
    "run": {"forks": 2, "warmup_iterations": 3, "iterations": 5, "warmup_time": "200ms", "iteration_time": "200ms",
            "include": [], "params": [], "jvm_args": [], "profilers": ["gc"]},
    "trials": 3,
    "warmup_auto": {"p.A.fast": {"warmup": 12, "reached": True, "starts": {"v1": 8, "v2": 10}},
                    "p.B.\x1b[31mslow": {"warmup": 35, "reached": False, "starts": {"v1": 4, "v2": None}}},
    "pilot_warmup": 30,
    "until_decided": {"min_trials": 3, "max_trials": 10, "max_seconds": None, "confidence_per_look": 0.9972,
                      "analysis": {"confidence": 0.99}, "retired": {"p.A.fast": {"verdict": "faster", "trials": 3}},
                      "benchmarks": {"p.A.fast": 1, "p.B.\x1b[31mslow": 2}},
}


def _store(path, status: str):
    with ResultStore.open(path) as store:
        run_id = store.create_run(harness="jmh", project="demo", order="rmit", seed=7, settings=SETTINGS,
                                  versions=[VersionInfo("v1", "main", "0123456789abcdef0123", True), VersionInfo("v2", "v2", None, None)],
                                  schedule=[Execution(0, "v1", 0), Execution(0, "v2", 1)], tool_version="test")
        if status == "finished":
            store.finish_run(run_id, status="finished", wall_seconds=70.0, harness_seconds=60.0)
    return run_id


def test_one_run_shows_its_settings_warmup_choices_and_decisions(tmp_path):
    run_id = _store(tmp_path / "r.db", "finished")
    out, err = io.StringIO(), io.StringIO()
    assert main(["runs", "--store", str(tmp_path / "r.db"), "--run", str(run_id)], out, err) == 0, err.getvalue()
    text = out.getvalue()
    assert f"run {run_id}: finished" in text and "harness jmh, project demo" in text
    assert "versions: v1 (main, commit 0123456789ab, dirty), v2" in text
    assert "settings: forks 2, warmup 3 x 200ms, iterations 5 x 200ms, profilers gc" in text
    assert "p.A.fast: 12 warmup iterations (steady from iteration v1 8, v2 10)" in text
    assert "35 warmup iterations (NOT steady in the pilot; steady from v1 4, v2 never)" in text
    assert "decided after 3 trials: A.fast faster; undecided at the budget:" in text
    assert "\x1b" not in text                       # a benchmark name cannot drive the terminal


def test_a_run_in_progress_says_open_not_undecided_at_the_budget(tmp_path):
    run_id = _store(tmp_path / "r.db", "running")
    out = io.StringIO()
    assert main(["runs", "--store", str(tmp_path / "r.db"), "--run", str(run_id)], out, io.StringIO()) == 0
    assert "still open:" in out.getvalue() and "at the budget" not in out.getvalue()


def test_json_carries_the_stored_settings_and_an_unknown_run_is_one_line_exit_2(tmp_path):
    run_id = _store(tmp_path / "r.db", "finished")
    out = io.StringIO()
    assert main(["runs", "--store", str(tmp_path / "r.db"), "--run", str(run_id), "--format", "json"], out, io.StringIO()) == 0
    run = json.loads(out.getvalue())["run"]
    assert run["run_id"] == run_id and run["settings"]["warmup_auto"]["p.A.fast"]["warmup"] == 12
    err = io.StringIO()
    assert main(["runs", "--store", str(tmp_path / "r.db"), "--run", "99"], io.StringIO(), err) == 2
    assert err.getvalue().strip().splitlines() == [f"rigorbench: error: {tmp_path / 'r.db'}: no run 99 (runs: {run_id})"]


def test_a_given_up_benchmark_is_named_as_such_in_text_and_json():
    from rigorbench.report.documents import sequential_object
    from rigorbench.report.compare import sequential_note

    design = {**SETTINGS["until_decided"], "futility": 0.1,
              "retired": {"p.A.fast": {"verdict": "faster", "trials": 3},
                          "p.C.noisy": {"verdict": "inconclusive", "trials": 4, "chance": 0.03}},
              "benchmarks": {"p.A.fast": 1, "p.B.slow": 2, "p.C.noisy": 1}}
    note = sequential_note(design)
    assert "decided after 3 trials: A.fast faster; given up after 4 trials (a verdict by trial 10 unlikely): C.noisy; " \
           "undecided at the budget: B.slow" in note
    fates = {b["benchmark"]: b for b in sequential_object(design)["benchmarks"]}
    assert fates["p.C.noisy"] == {"benchmark": "p.C.noisy", "verdict": "inconclusive", "decided_after": None,
                                  "given_up_after": 4, "chance": 0.03}
    assert fates["p.A.fast"]["decided_after"] == 3 and fates["p.A.fast"]["given_up_after"] is None
    assert fates["p.B.slow"]["decided_after"] is None and fates["p.B.slow"]["given_up_after"] is None
    assert sequential_object(design)["futility"] == 0.1
