"""``rigorbench analyze`` from the command line: real JMH output, pa CSV made to show a
problem, the store, JSON contract fields, escaping, exit codes and errors."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import numpy as np
import pytest

from rigorbench.cli import main

JMH = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
HEADER = "project;commit;benchmark;params;instance;trial;fork;iteration;mode;unit;value_count;value\n"


def analyze(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["analyze", *args, "--resamples", "1000"], out, err)
    return code, out.getvalue(), err.getvalue()


def pa_file(path: Path, name: str, forks: list[np.ndarray]) -> Path:
    lines = [HEADER]
    for fork, values in enumerate(forks):
        lines += [f"p;c;{name};;i;1;{fork + 1};{i + 1};avgt;ns/op;1;{v:.6f}\n" for i, v in enumerate(values)]
    path.write_text("".join(lines))
    return path


def test_real_jmh_log_and_json_of_one_version():
    code, out, err = analyze(str(JMH / "v1-trial1.log"), str(JMH / "v1-trial2.json"))
    assert code == 0, err
    assert out.startswith("analyze v1 (2 files): 99% CIs (expanded for few trials), 1000 resamples, seed 20240601")
    assert "CsvParseBenchmark.sumCsv" in out and "PrimeCountBenchmark.countPrimes" in out
    assert "steady state: not checked" in out
    assert "alloc" in out  # -prof gc was on: allocation per op is shown next to time
    assert out.rstrip().splitlines()[-1].startswith("4 benchmarks")


def test_json_contract_fields():
    code, out, _ = analyze(str(JMH / "v1-trial1.json"), "--format", "json")
    document = json.loads(out)
    assert (document["tool"], document["format_version"], document["command"]) == ("rigorbench", 1, "analyze")
    for key in ("confidence", "resamples", "seed", "statistic", "threshold", "interval"):
        assert key in document
    first = document["benchmarks"][0]
    for key in ("benchmark", "params", "metric", "n", "mean", "ci_low", "ci_high", "cv", "steady_state", "diagnostics"):
        assert key in first
    assert first["ci_low"] <= first["mean"] <= first["ci_high"]
    assert set(first["cv"]) <= {"total", "iteration", "fork", "trial", "instance"} and "total" in first["cv"]
    assert first["steady_state"]["verdict"] is None  # 6 iterations per fork: too short to tell
    stats = next(b for b in document["benchmarks"] if b["params"] == {"size": "100"})
    assert stats["benchmark"].endswith("StatsBenchmark.standardize")


def test_a_benchmark_that_never_settles_fails_with_fail_on(tmp_path):
    rng = np.random.default_rng(1)
    ramp = [100 + np.arange(200) * 0.5 + rng.normal(0, 1, 200) for _ in range(3)]
    path = pa_file(tmp_path / "ramp.csv", "demo.Ramp.run", ramp)
    code, out, _ = analyze(str(path), "--fail-on", "error")
    assert code == 1
    assert "error    not_steady: no fork reaches steady state (3 of 3 forks keep changing)" in out
    assert analyze(str(path))[0] == 0  # --fail-on never is the default


def test_steady_only_summarizes_fewer_iterations(tmp_path):
    rng = np.random.default_rng(2)
    i = np.arange(120)
    warm = [100 * (1 + 0.8 * np.clip(1 - i / 40, 0, None) ** 2) + rng.normal(0, 1, 120) for _ in range(4)]
    path = pa_file(tmp_path / "warm.csv", "demo.Warm.run", warm)
    everything = json.loads(analyze(str(path), "--format", "json")[1])["benchmarks"][0]
    steady = json.loads(analyze(str(path), "--format", "json", "--steady-only")[1])["benchmarks"][0]
    assert steady["steady_only"] and steady["n"] < everything["n"]
    assert steady["mean"] < everything["mean"]
    assert "warmup_too_short" in {d["code"] for d in everything["diagnostics"]}


def test_untrusted_names_are_escaped_in_markdown(tmp_path):
    rng = np.random.default_rng(3)
    path = pa_file(tmp_path / "x.csv", "demo.X.<script>alert(1)</script>|", [100 + rng.normal(0, 1, 10) for _ in range(2)])
    code, out, _ = analyze(str(path), "--format", "markdown")
    assert code == 0
    assert "<script>" not in out and "\\<script\\>" in out
    assert "alert(1)\\</script\\>\\|" in out


def test_store_versions(tmp_path, fake):
    store = str(tmp_path / "r.db")
    main(["ab", str(_project(tmp_path)), "--base", "v1", "--contender", "v2", "--trials", "3", "--store", store, "--no-lint"],
         io.StringIO(), io.StringIO())
    code, out, err = analyze("--store", store, "--version", "v2")
    assert code == 0, err
    assert out.startswith("analyze v2") and "Bench.a" in out and "3 trials" in out
    code, _, err = analyze("--store", store)
    assert code == 2 and "run 1 has versions v1, v2; choose one with --version" in err
    code, _, err = analyze("--store", store, "--version", "v9")
    assert code == 2 and "no run with version 'v9'" in err


def _project(tmp_path: Path) -> Path:
    for label in ("v1", "v2"):
        (tmp_path / "proj" / label).mkdir(parents=True)
    return tmp_path / "proj"


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "give result files of one version, or --store DB"),
        (["missing.json"], "missing.json"),
        (["x.json", "--version", "v1"], "--version and --run go with --store"),
        (["--store", "nope.db"], "nope.db"),
    ],
)
def test_bad_usage_is_one_line_exit_2(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = analyze(*args)
    assert code == 2 and message in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_files_named_as_two_versions_are_not_merged():
    # Before issue 35, 'analyze v1... v2...' advised on the mixture of two versions.
    v1, v2 = str(JMH / "v1-trial1.json"), str(JMH / "v2-trial1.json")
    code, out, err = analyze(v1, v2)
    assert (code, out) == (2, "")
    assert err == (f"rigorbench: error: {v1} and {v2} look like two versions ('v1' and 'v2' by their names); "
                   "compare them with 'rigorbench compare', or name the version (--label NAME; "
                   "--baseline-label/--contender-label in compare) if they are its trials\n")
    code, out, err = analyze(v1, v2, "--label", "both")
    assert code == 0 and out.startswith("analyze both (2 files)")


def test_trials_of_one_version_in_folders_and_by_number_are_merged(tmp_path):
    data = (JMH / "v1-trial1.json").read_bytes(), (JMH / "v1-trial2.json").read_bytes()
    for folders, merged in ((("run1", "run2"), True), (("1", "2"), True), (("v1", "v2"), False)):
        paths = []
        for folder, content in zip(folders, data):
            (tmp_path / folder).mkdir(exist_ok=True)
            (tmp_path / folder / "jmh-result.json").write_bytes(content)
            paths.append(str(tmp_path / folder / "jmh-result.json"))
        code, out, err = analyze(*paths)
        assert (code == 0) == merged, (folders, err)
        assert merged or "look like two versions ('v1' and 'v2' by their folders)" in err


def test_a_run_given_twice_counts_once_with_a_note():
    # v1-trial1.json.gz is v1-trial1.json compressed; the log is the same run's console output.
    single = analyze(str(JMH / "v1-trial1.json"), "--format", "json")
    files = [str(JMH / name) for name in ("v1-trial1.json", "v1-trial1.json.gz", "v1-trial1.log")]
    code, out, err = analyze(*files, "--format", "json")
    assert code == 0
    assert err == f"rigorbench: note: {files[1]}, {files[2]} hold the same samples as {files[0]}; counted once\n"
    assert [b["n"] for b in json.loads(out)["benchmarks"]] == [b["n"] for b in json.loads(single[1])["benchmarks"]]


@pytest.mark.parametrize("gzipped", (False, True))
def test_json_broken_part_way_through_a_streamed_file_is_one_line_exit_2(tmp_path, gzipped):
    entries = json.loads((JMH / "v1-trial1.json").read_text())
    text = json.dumps(entries + [dict(e, benchmark=e["benchmark"] + "2") for e in entries], indent=2)
    cut = text[: text.rindex('"rawData"') + 30]              # the file ends inside its last benchmark
    path = tmp_path / ("cut.json.gz" if gzipped else "cut.json")
    path.write_bytes(gzip.compress(cut.encode()) if gzipped else cut.encode())
    code, out, err = analyze(str(path))
    start = text[: text.rindex('"benchmark"')].rfind("{")
    assert (code, out) == (2, "")
    assert err == (f"rigorbench: error: {path}:{cut.count(chr(10)) + 1}: truncated JSON: the file ends inside "
                   f"the benchmark that starts at line {text.count(chr(10), 0, start) + 1}\n")
