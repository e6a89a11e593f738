"""``rigorbench history changes`` on Otava-style CSV histories: planted changes found with
their commits, the nightly gate's exit code, selection options, and bad input as one line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from rigorbench.cli import main


def history(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["history", *args], out, err)
    return code, out.getvalue(), err.getvalue()


def write_history(path: Path, latency_steps=((0, 100.0), (30, 120.0)), rows: int = 50, seed: int = 1,
                  branch=lambda i: "main", commit=lambda i: f"c{i:03d}") -> Path:
    rng = np.random.default_rng(seed)
    lines = ["time,commit,branch,latency,throughput\n"]
    for i in range(rows):
        level = [v for start, v in latency_steps if start <= i][-1]
        latency = level * rng.lognormal(0, 0.01)
        throughput = (1000.0 if i < 20 else 900.0) * rng.lognormal(0, 0.01)
        lines.append(f"2026-03-{1 + i // 24:02d}T{i % 24:02d}:00:00Z,{commit(i)},{branch(i)},{latency:.4f},{throughput:.4f}\n")
    path.write_text("".join(lines))
    return path


def test_changes_with_commits_levels_and_directions_in_json(tmp_path):
    path = write_history(tmp_path / "nightly.csv")
    code, out, err = history("changes", "--csv", str(path), "--higher-is-better", "throughput", "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    assert (document["tool"], document["command"], document["max_p"], document["min_segment"]) == ("rigorbench", "history changes", 0.001, 3)
    by_metric = {s["metric"]: s for s in document["series"]}
    assert set(by_metric) == {"latency", "throughput"}
    latency, throughput = by_metric["latency"], by_metric["throughput"]
    assert (latency["benchmark"], latency["points"], latency["higher_is_better"]) == ("nightly", 50, False)
    (change,) = latency["changes"]
    assert (change["index"], change["commit"], change["previous_commit"]) == (30, "c030", "c029")
    assert change["direction"] == "slower" and 18 < change["change_pct"] < 22
    assert change["before"]["ci_low"] < change["before"]["mean"] < change["before"]["ci_high"]
    assert change["before"]["points"] == 30 and change["after"]["points"] <= 20
    assert change["p_value"] < 0.001
    (drop,) = throughput["changes"]
    assert drop["index"] == 20 and drop["direction"] == "slower" and drop["change_pct"] < -8  # throughput fell
    code, out, _ = history("changes", "--csv", str(path), "--format", "json")
    assert json.loads(out)["series"][1]["changes"][0]["direction"] == "slower"  # 'throughput' says it: more is better
    code, out, _ = history("changes", "--csv", str(path), "--lower-is-better", "throughput", "--format", "json")
    assert json.loads(out)["series"][1]["changes"][0]["direction"] == "faster"  # read as a time, it fell: faster


def test_fail_on_regression_is_about_the_newest_change(tmp_path):
    regressed = write_history(tmp_path / "a.csv", latency_steps=((0, 100.0), (30, 120.0)))
    code, out, err = history("changes", "--csv", str(regressed), "--fail-on", "regression", "--higher-is-better", "throughput")
    assert code == 1, err
    assert "slower" in out and "the newest change is a regression in 2" in out
    recovered = write_history(tmp_path / "b.csv", latency_steps=((0, 100.0), (15, 120.0), (35, 100.0)))
    code, out, err = history("changes", "--csv", str(recovered), "--fail-on", "regression", "--bench", "latency")
    assert code == 0, out + err
    assert sum(line.split()[1:2] == ["latency"] for line in out.splitlines()) == 2
    assert "the newest change is a regression in 0" in out
    code, out, _ = history("changes", "--csv", str(recovered), "--format", "markdown", "--bench", "latency")
    assert code == 0 and "| benchmark | metric | change |" in out and "c014..c015" in out


def test_branch_since_and_row_order(tmp_path):
    path = write_history(tmp_path / "h.csv", branch=lambda i: "main" if i % 2 == 0 else "dev")
    code, out, _ = history("changes", "--csv", str(path), "--branch", "main", "--format", "json", "--bench", "^latency$")
    (series,) = json.loads(out)["series"]
    assert series["points"] == 25 and series["changes"][0]["commit"] == "c030"
    code, out, _ = history("changes", "--csv", str(path), "--since", "2026-03-02T06:00:00", "--format", "json", "--bench", "latency")
    assert json.loads(out)["series"][0]["points"] == 50 - 30
    # rows out of time order are read in time order
    lines = path.read_text().splitlines(keepends=True)
    shuffled = tmp_path / "shuffled.csv"
    shuffled.write_text(lines[0] + "".join(reversed(lines[1:])))
    code, out, _ = history("changes", "--csv", str(shuffled), "--format", "json", "--bench", "latency")
    assert json.loads(out)["series"][0]["changes"][0]["commit"] == "c030"


def test_untrusted_commit_text_is_escaped(tmp_path):
    path = write_history(tmp_path / "h.csv", commit=lambda i: f"c{i:03d}\x1b[31m")
    code, out, _ = history("changes", "--csv", str(path), "--bench", "latency")
    assert code == 0 and "\x1b" not in out and "c030\\x1b[31m" in out


@pytest.mark.parametrize(("content", "extra", "message"), [
    ("when,latency\n2026-01-01,1\n", [], "h.csv:1: no 'time' column"),
    ("time,latency\n2026-01-01,1\nyesterday,2\n", [], "h.csv:3: time 'yesterday' is not an ISO 8601"),
    ("time,latency\n2026-01-01,1\n2026-01-02,1,2\n", [], "h.csv:3: 3 cells where the header has 2"),
    ("time,latency\n2026-01-01,1\n2026-01-02,slow\n", ["--metric", "latency"], "h.csv:3: column 'latency': 'slow' is not a finite number"),
    ("time,latency,latency\n", [], "h.csv:1: column 'latency' appears twice"),
    ("", [], "h.csv:1: empty"),
    ("time,latency\n2026-01-01,1\n", ["--branch", "main"], "needs a 'branch' column"),
    ("time,note\n2026-01-01,x\n", [], "no metric column with numbers"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, content, extra, message):
    path = tmp_path / "h.csv"
    path.write_text(content)
    code, out, err = history("changes", "--csv", str(path), *extra)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err


def test_usage_errors(tmp_path):
    code, _, err = history()
    assert code == 2 and "name a subcommand" in err
    code, _, err = history("changes", "--csv", str(tmp_path / "absent.csv"))
    assert code == 2 and "absent.csv: not a regular file" in err
    path = write_history(tmp_path / "h.csv")
    code, _, err = history("changes", "--csv", str(path), "--window", "4")
    assert code == 2 and "--window 4 must hold two segments" in err
    code, _, err = history("changes", "--csv", str(path), "--bench", "(")
    assert code == 2 and "not a regular expression" in err


def test_the_examples_nightly_history(tmp_path):
    """examples/history/nightly.csv (docs/history.md): parse_ns 15% slower from night 41, encode faster
    from night 17, one slow run at night 23 that is not a change; the gate fails."""
    path = Path(__file__).resolve().parents[2] / "examples" / "history" / "nightly.csv"
    code, out, err = history("changes", "--csv", str(path), "--higher-is-better", "ops", "--format", "json",
                             "--fail-on", "regression")
    assert code == 1, err
    found = {s["metric"]: [(c["index"], c["direction"]) for c in s["changes"]] for s in json.loads(out)["series"]}
    assert found == {"parse_ns": [(41, "slower")], "encode_ops_s": [(17, "faster")]}


def test_runs_own_intervals_keep_a_shift_inside_their_noise_from_being_a_change(tmp_path):
    """A 1% step between runs that agree closely is a change; when each run's own 99% CI
    (METRIC.ci_low / .ci_high columns) is +-5% wide, it is not."""
    rng = np.random.default_rng(9)
    lines = ["time,commit,latency,latency.ci_low,latency.ci_high\n"]
    for i in range(40):
        value = (100.0 if i < 20 else 101.0) * rng.lognormal(0, 0.001)
        lines.append(f"2026-04-01T00:{i:02d}:00,c{i:02d},{value:.4f},{value * 0.95:.4f},{value * 1.05:.4f}\n")
    path = tmp_path / "h.csv"
    path.write_text("".join(lines))
    code, out, err = history("changes", "--csv", str(path), "--format", "json")
    assert code == 0, err
    (series,) = json.loads(out)["series"]  # the interval columns are not metrics of their own
    assert series["metric"] == "latency" and series["changes"] == []
    bare = tmp_path / "bare.csv"
    bare.write_text("".join(",".join(line.split(",")[:3]) + "\n" for line in (x.rstrip("\n") for x in lines)))
    code, out, _ = history("changes", "--csv", str(bare), "--format", "json")
    assert [c["index"] for c in json.loads(out)["series"][0]["changes"]] == [20]


@pytest.mark.parametrize(("content", "message"), [
    ("time,latency,latency.ci_low\n2026-01-01,1,0.9\n", "'latency.ci_low' and 'latency.ci_high' come together"),
    ("time,latency,latency.ci_low,latency.ci_high\n2026-01-01,1,1.1,1.2\n", "h.csv:2: 'latency': the interval [1.1, 1.2] must be numbers around 1"),
])
def test_bad_interval_columns(tmp_path, content, message):
    path = tmp_path / "h.csv"
    path.write_text(content)
    code, _, err = history("changes", "--csv", str(path))
    assert code == 2 and message in err, err


NIGHTLY = Path(__file__).resolve().parents[2] / "examples" / "history" / "nightly.csv"


def test_the_nightly_throughput_rising_is_faster_without_options():
    # Before issue 35 every CSV column was lower-is-better: encode_ops_s rising 18% was
    # 'slower' and the gate failed on it. Its name says it is a rate (ops per second).
    code, out, err = history("changes", "--csv", str(NIGHTLY), "--format", "json")
    assert code == 0, err
    series = {s["metric"]: s for s in json.loads(out)["series"]}
    assert {m: (s["higher_is_better"], s["direction_from"]) for m, s in series.items()} == {
        "parse_ns": (False, "name"), "encode_ops_s": (True, "name")}
    assert [c["direction"] for c in series["encode_ops_s"]["changes"]] == ["faster"]
    code, out, err = history("changes", "--csv", str(NIGHTLY))
    assert out.splitlines()[-1] == "better higher: encode_ops_s; lower: parse_ns (from the column names)"


def test_the_gate_fails_on_the_throughput_only_when_told_it_is_a_time(tmp_path):
    # Without parse_ns (which regressed), the gate passes: encode_ops_s only got faster.
    path = tmp_path / "encode.csv"
    path.write_text("".join(",".join(row.split(",")[:3] + row.split(",")[4:]) for row in NIGHTLY.read_text().splitlines(True)))
    assert history("changes", "--csv", str(path), "--fail-on", "regression")[0] == 0
    code, out, _ = history("changes", "--csv", str(path), "--fail-on", "regression", "--lower-is-better", "encode_ops_s")
    assert code == 1 and out.splitlines()[-1] == "better lower: encode_ops_s (as given)"


def test_a_column_whose_name_says_nothing_is_assumed_lower_and_the_output_says_so(tmp_path):
    path = write_history(tmp_path / "nightly.csv")
    text = path.read_text().replace("latency,throughput", "score,throughput", 1)
    path.write_text(text)
    code, out, _ = history("changes", "--csv", str(path))
    assert out.splitlines()[-2:] == [
        "better higher: throughput (from the column names)",
        "better lower: score (assumed: the names do not say; set it with --higher-is-better or --lower-is-better)"]
    code, out, _ = history("changes", "--csv", str(path), "--higher-is-better", "score", "--higher-is-better", "thr", "--format", "json")
    assert {s["metric"]: (s["higher_is_better"], s["direction_from"]) for s in json.loads(out)["series"]} == {
        "score": (True, "option"), "throughput": (True, "option")}
    code, _, err = history("changes", "--csv", str(path), "--higher-is-better", "score", "--lower-is-better", "sc")
    assert code == 2 and err == ("rigorbench: error: column 'score' matches both --higher-is-better and --lower-is-better; "
                                 "make one of them narrower\n")
