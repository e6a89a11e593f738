"""``rigorbench compare`` end to end on real JMH output of the example project. The whole
normal output (text, JSON, markdown, CSV) is checked against golden files in
test_golden_output.py; these tests check the contract, verdicts, exit codes and errors."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rigorbench.cli import main

TESTDATA = Path(__file__).resolve().parents[1] / "testdata"
JMH = TESTDATA / "jmh"
V1, V2 = str(JMH / "v1-trial1.json"), str(JMH / "v2-trial1.json")
FAST = ["--resamples", "2000"]


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_json_document_follows_the_contract():
    code, out, err = run_cli("compare", V1, V2, "--format", "json", *FAST)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["tool"] == "rigorbench" and doc["format_version"] == 1
    for key in ("confidence", "resamples", "seed", "statistic", "threshold"):
        assert key in doc
    assert doc["resamples"] == 2000 and doc["confidence"] == 0.99
    first = doc["comparisons"][0]
    for key in ("benchmark", "params", "metric", "unit", "higher_is_better", "baseline", "contender",
                "ratio", "change_pct", "p_value", "cliffs_delta", "effect_size", "verdict", "warnings"):
        assert key in first, key
    for side in ("baseline", "contender"):
        assert set(first[side]) >= {"n", "mean", "median", "ci_low", "ci_high", "cv"}
    assert set(first["ratio"]) == {"estimate", "ci_low", "ci_high"}
    assert first["ratio"]["ci_low"] <= first["ratio"]["estimate"] <= first["ratio"]["ci_high"]


def test_planted_changes_in_real_jmh_output_never_get_the_wrong_direction():
    """Two trials per side of the example: the big planted improvement is found, nothing is
    reported in the wrong direction, and the unchanged benchmark is not called changed."""
    base = [str(JMH / "v1-trial1.json"), str(JMH / "v1-trial2.json")]
    cont = [str(JMH / "v2-trial1.json"), str(JMH / "v2-trial2.json")]
    code, out, err = run_cli("compare", "--baseline", *base, "--contender", *cont, "--format", "json", *FAST)
    assert code == 0, err
    doc = json.loads(out)
    verdict = {c["benchmark"].rsplit(".", 2)[-2] + ("" if not c["params"] else str(c["params"])): c["verdict"]
               for c in doc["comparisons"]}
    assert all(c["baseline"]["trials"] == 2 and c["contender"]["trials"] == 2 for c in doc["comparisons"])
    assert verdict["PrimeCountBenchmark"] == "faster"
    assert verdict["CsvParseBenchmark"] in {"slower", "inconclusive"}
    assert {v for k, v in verdict.items() if k.startswith("StatsBenchmark")} <= {"unchanged", "inconclusive"}


def test_fail_on_regression_change_and_never():
    # v2 -> v1 undoes the planted improvement of countPrimes: a regression.
    assert run_cli("compare", V2, V1, "--fail-on", "regression", *FAST)[0] == 1
    assert run_cli("compare", V2, V1, "--fail-on", "never", *FAST)[0] == 0
    # v1 -> v2 improves it: a change, not a regression of that benchmark.
    assert run_cli("compare", V1, V2, "--fail-on", "change", *FAST)[0] == 1


def test_same_run_on_both_sides_is_refused_naming_the_file():
    # A run compared with itself decides nothing: the same file, or the same run in another
    # format (its JMH console log), on both sides is bad input, not a comparison (issue 35).
    code, out, err = run_cli("compare", V1, V1, "--fail-on", "change", *FAST)
    assert (code, out) == (2, "")
    assert err == f"rigorbench: error: {V1} is given as both baseline and contender; give each version its own files\n"
    log = str(JMH / "v1-trial1.log")
    code, _, err = run_cli("compare", "--baseline", V1, str(JMH / "v1-trial2.json"), "--contender", V2, log,
                             "--contender-label", "v2", *FAST)
    assert code == 2 and err.count("\n") == 1
    assert f"{log} (contender) holds the same samples as {V1} (baseline)" in err


def _comparisons(out: str) -> list[dict]:
    return json.loads(out)["comparisons"]


def test_a_file_given_three_times_counts_as_one_trial():
    # Before issue 35 the same file three times was three trials: the 'guess' warning went and
    # the intervals narrowed to a confident verdict built on one run.
    v1, v2 = str(JMH / "v1-trial2.json"), str(JMH / "v2-trial2.json")
    once = run_cli("compare", v1, v2, "--format", "json", *FAST)
    code, out, err = run_cli("compare", "--baseline", v1, v1, v1, "--contender", v2, v2, v2, "--format", "json", *FAST)
    assert code == 0
    assert err.splitlines() == [f"rigorbench: note: {v1} is given 3 times; counted once",
                                f"rigorbench: note: {v2} is given 3 times; counted once"]
    assert _comparisons(out) == _comparisons(once[1])
    assert all(c["baseline"]["n"] == 8 for c in _comparisons(out) if c["metric"] in ("time", "throughput"))


def test_json_and_console_log_of_one_run_count_once():
    # The JMH JSON and the console log of one run hold the same iterations (the log to three
    # decimals): one trial, whichever order they come in.
    log1, log2 = str(JMH / "v1-trial1.log"), str(JMH / "v2-trial1.log")
    once = run_cli("compare", V1, V2, "--format", "json", *FAST)
    code, out, err = run_cli("compare", "--baseline", V1, log1, "--contender", V2, log2, "--format", "json", *FAST)
    assert code == 0
    assert err.splitlines() == [f"rigorbench: note: {log1} holds the same samples as {V1}; counted once",
                                f"rigorbench: note: {log2} holds the same samples as {V2}; counted once"]
    assert _comparisons(out) == _comparisons(once[1])
    code, _, err = run_cli("compare", "--baseline", log1, V1, "--contender", V2, *FAST)
    assert code == 0 and err == f"rigorbench: note: {V1} holds the same samples as {log1}; counted once\n"


def test_two_trials_of_one_version_are_both_counted():
    v1b = str(JMH / "v1-trial2.json")
    code, out, err = run_cli("compare", "--baseline", V1, v1b, "--contender", V2, str(JMH / "v2-trial2.json"), "--format", "json", *FAST)
    assert (code, err) == (0, "")
    assert all(c["baseline"]["n"] == 16 for c in _comparisons(out) if c["metric"] in ("time", "throughput"))


def test_files_named_as_two_versions_on_one_side_are_refused():
    code, out, err = run_cli("compare", "--baseline", V1, V2, "--contender", str(JMH / "v2-trial2.json"), *FAST)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert f"{V1} and {V2} look like two versions ('v1' and 'v2' by their names)" in err


def test_console_log_and_gzip_inputs_are_read():
    code, out, err = run_cli("compare", str(JMH / "v1-trial1.log"), str(JMH / "v2-trial1.log"), "--format", "json", *FAST)
    assert code == 0, err
    assert len(json.loads(out)["comparisons"]) >= 3
    code, _, err = run_cli("compare", str(JMH / "v1-trial1.json.gz"), V2, *FAST)
    assert code == 0, err


def test_output_to_a_file(tmp_path):
    target = tmp_path / "result.json"
    code, out, _ = run_cli("compare", V1, V2, "--format", "json", "-o", str(target), *FAST)
    assert code == 0 and out == ""
    assert json.loads(target.read_text())["tool"] == "rigorbench"


BAD_INPUTS = {
    "empty": b"",
    "truncated": None,  # filled from a real file below
    "binary": bytes(range(256)) * 4,
    "unknown": b"hello\nthis is not a benchmark result\n",
}


@pytest.mark.parametrize("kind", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_on_stderr_and_exit_2(tmp_path, kind):
    data = BAD_INPUTS[kind]
    if data is None:
        data = Path(V1).read_bytes()[: len(Path(V1).read_bytes()) // 2]
    bad = tmp_path / f"{kind}.json"
    bad.write_bytes(data)
    code, out, err = run_cli("compare", str(bad), V2)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert str(bad) in err and "Traceback" not in err


def test_missing_file_and_bad_usage_exit_2():
    code, _, err = run_cli("compare", "no/such/file.json", V2)
    assert code == 2 and "no/such/file.json" in err
    code, _, err = run_cli("compare", V1)
    assert code == 2 and "expected BASELINE and CONTENDER" in err
    code, _, err = run_cli("compare", V1, V2, "--threshold", "5")
    assert code == 2 and "5%" in err
    code, _, err = run_cli("compare", V1, V2, "--format", "yaml")
    assert code == 2 and "invalid choice" in err


def test_help_documents_every_option():
    code, out, _ = run_cli("compare", "--help")
    assert code == 0
    for option in ("--baseline", "--contender", "--statistic", "--confidence", "--resamples", "--seed",
                   "--threshold", "--test", "--alpha", "--metric", "--format", "--fail-on", "--store"):
        assert option in out


def test_real_subprocess_exit_codes_and_stderr(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    ok = subprocess.run([sys.executable, "-m", "rigorbench", "compare", V2, V1, "--fail-on", "regression", *FAST],
                        capture_output=True, text=True, env=env)
    assert ok.returncode == 1 and "comparison" in ok.stdout
    gz = tmp_path / "x.json"
    gz.write_bytes(gzip.compress(b"\x00\x01 binary"))
    bad = subprocess.run([sys.executable, "-m", "rigorbench", "compare", str(gz), V2],
                         capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("rigorbench: error: ") and "Traceback" not in bad.stderr


def test_a_benchmark_renamed_in_the_contender_is_named_by_the_regression_gate(tmp_path):
    # --fail-on regression gates slower benchmarks (the exit-code contract); a baseline
    # benchmark without a counterpart is not one, but it must not slip past unsaid.
    runs = json.loads(Path(V2).read_text())
    for run in runs:
        run["benchmark"] = run["benchmark"].replace("sumCsv", "sumCsvRenamed")
    renamed = tmp_path / "v2-renamed.json"
    renamed.write_text(json.dumps(runs))
    code, out, err = run_cli("compare", V1, str(renamed), "--fail-on", "regression", *FAST)
    line = ("warning: dev.rigorbench.demo.CsvParseBenchmark.sumCsv is in the baseline only; --fail-on regression does not gate it: "
            "use --fail-on regression,missing")
    assert [l for l in err.splitlines() if "baseline only" in l] == [line]
    code_missing, _, err_missing = run_cli("compare", V1, str(renamed), "--fail-on", "regression,missing", *FAST)
    assert code_missing == 1 and "baseline only" not in err_missing
    _, _, err_never = run_cli("compare", V1, str(renamed), *FAST)
    assert "baseline only" not in err_never
