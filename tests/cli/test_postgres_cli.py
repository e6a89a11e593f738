"""The store-using commands end to end on a real PostgreSQL server (tests/pgserver.py): ab
stores a run (fake harness), runs lists it, compare --store decides, export writes it,
history import/list/changes work on the server's history, and store copy moves it all to a
SQLite file; the URL's password shows nowhere, in any output."""

from __future__ import annotations

import io
import json

from test_history_cli import write_history

from rigorbench.cli import main
from rigorbench.store import ResultStore

SECRET = "s3cr3t-pw"   # tests/pgserver.PASSWORD


def rb(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in args], out, err)
    assert SECRET not in out.getvalue() + err.getvalue()
    return code, out.getvalue(), err.getvalue()


def test_ab_runs_compare_export_history_and_copy_on_postgresql(pg_url, tmp_path, fake, monkeypatch):
    monkeypatch.chdir(tmp_path)   # the build cache and trial output of a server store: ./.rigorbench
    for label in ("v1", "v2"):
        (tmp_path / "proj" / label).mkdir(parents=True)
    code, out, err = rb("ab", tmp_path / "proj", "--base", "v1", "--contender", "v2", "--trials", "2",
                        "--store", pg_url, "--no-lint", "--resamples", "200", "--format", "json", "--fail-on", "regression")
    assert code == 1, err   # v2 is 20% slower: a regression
    assert "stored in postgresql://rigorbench:***@127.0.0.1:" in err
    assert json.loads(out)["comparisons"][0]["verdict"] == "slower"
    assert (tmp_path / ".rigorbench" / "runs" / "1").is_dir()

    code, out, err = rb("runs", "--store", pg_url, "--format", "json")
    assert code == 0, err
    (run,) = json.loads(out)["runs"]
    assert (run["run_id"], [v["label"] for v in run["versions"]], run["samples"]) == (1, ["v1", "v2"], 24)
    code, out, _ = rb("runs", "--store", pg_url)
    assert code == 0 and "v1" in out

    code, out, err = rb("compare", "--store", pg_url, "--baseline", "v1", "--contender", "v2", "--format", "json",
                        "--resamples", "200")
    assert code == 0, err
    (comparison,) = json.loads(out)["comparisons"]
    assert comparison["verdict"] == "slower" and comparison["baseline"]["n"] > 0

    code, _, err = rb("report", "--store", pg_url, "--html", tmp_path / "report.html", "--resamples", "200")
    assert code == 0, err
    assert "v2" in (tmp_path / "report.html").read_text() and SECRET not in (tmp_path / "report.html").read_text()

    code, _, err = rb("export", "--store", pg_url, "--format", "pa-csv", "--output-dir", tmp_path / "export")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "export").iterdir()) == ["run-1-v1.csv", "run-1-v2.csv"]

    code, out, err = rb("history", "import", "--csv", write_history(tmp_path / "nightly.csv"),
                        "--higher-is-better", "throughput", "--store", pg_url)
    assert code == 0 and "imported 100 points (2 series)" in out and "rigorbench:***@" in out, err
    code, out, err = rb("history", "list", "--store", pg_url, "--format", "json")
    assert code == 0 and len(json.loads(out)["series"]) == 2, err
    assert json.loads(out)["store"].startswith("postgresql://rigorbench:***@127.0.0.1:")
    code, out, err = rb("history", "changes", "--store", pg_url, "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    by_metric = {s["metric"]: s for s in document["series"]}
    assert by_metric["latency"]["changes"][0]["commit"] == "c030"

    copy = tmp_path / "copy.db"
    code, out, err = rb("store", "copy", pg_url, copy)
    assert code == 0 and "copied 1 runs (24 samples) and 100 history points" in out, err
    assert "store copy: run 1 -> 1 (1 of 1 runs, 24 samples)" in err
    with ResultStore.read(copy) as store:
        assert store.run(1).versions[1].label == "v2" and len(store.history_points()) == 100
    code, _, err = rb("store", "copy", copy, pg_url)
    assert code == 2 and "already holds 1 runs and 100 history points" in err and "rigorbench:***@" in err
    assert rb("store", "check", pg_url)[0] == 0
