"""``rigorbench history add|import|list|show|changes --store`` and ``record``: points in a real
SQLite store from real result files, the series they make, bad input as one line with exit 2
and nothing stored lost, and untrusted text escaped."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest
from test_history_cli import write_history

from rigorbench.cli import main
from rigorbench.store import ResultStore

JMH = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
PRIME = "dev.rigorbench.demo.PrimeCountBenchmark.countPrimes"


def rb(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in args], out, err)
    return code, out.getvalue(), err.getvalue()


def git(repo: Path, *args: str, date: str = "2026-11-01T10:00:00Z") -> str:
    env = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date, "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=repo, env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path) -> Path:
    """A git repository with two commits a day apart."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q")
    for day in (1, 2):
        (path / "file.txt").write_text(str(day))
        git(path, "add", "file.txt")
        git(path, "commit", "-qm", f"day {day}", date=f"2026-11-0{day}T10:00:00Z")
    return path


def test_add_files_at_git_commits_then_list_and_show(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    db = tmp_path / "h.db"
    for rev, trial in (("HEAD~1", "v1-trial1.json"), ("HEAD", "v2-trial1.json")):
        code, out, err = rb("history", "add", JMH / trial, "--commit", rev, "--branch", "main", "--store", db)
        assert code == 0, err
        assert "points" in out and "in " + str(db) in out
    first, last = git(repo, "rev-parse", "HEAD~1"), git(repo, "rev-parse", "HEAD")
    code, out, err = rb("history", "list", "--store", db, "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    assert (document["tool"], document["format_version"], document["command"]) == ("rigorbench", 1, "history list")
    assert document["selection"] == {"bench": None, "metric": "primary", "branch": None, "since": None}
    prime = next(s for s in document["series"] if s["benchmark"] == PRIME)
    assert (prime["points"], prime["branch"], prime["first"]["commit"], prime["last"]["commit"]) == (2, "main", first, last)
    assert prime["first"]["time"] == "2026-11-01T10:00:00+00:00" and prime["machine"] == "unknown"
    code, out, err = rb("history", "show", "--store", db, "--bench", "PrimeCount", "--format", "json")
    (series,) = json.loads(out)["series"]
    points = series["history"]
    assert [p["commit"] for p in points] == [first, last] and all(p["confidence"] == 0.95 for p in points)
    assert all(p["ci_low"] < p["mean"] < p["ci_high"] and p["n"] >= 2 for p in points)
    assert points[0]["run_id"] == 1 and points[1]["source"].endswith("v2-trial1.json")
    code, out, _ = rb("history", "show", "--store", db, "--bench", "PrimeCount", "--since", "2026-11-02")
    assert code == 0 and last[:12] in out and first[:12] not in out and "1 series, 1 of" in out
    # The samples are kept: the imported files are a run the other commands read.
    code, out, _ = rb("runs", "--store", db)
    assert code == 0 and "finished" in out
    code, out, err = rb("history", "changes", "--store", db, "--format", "json")
    assert code == 0 and all(s["changes"] == [] for s in json.loads(out)["series"]), err


def test_add_a_stored_run_version(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    db = tmp_path / "h.db"
    assert rb("history", "add", JMH / "v1-trial1.json", JMH / "v1-trial2.json", "--commit", "HEAD", "--store", db)[0] == 0
    code, out, err = rb("history", "add", "--run", "1", "--commit", "HEAD~1", "--branch", "copy", "--store", db)
    assert code == 0, err
    with ResultStore.read(db) as store:
        points = store.history_points()
    copied = [p for p in points if p.branch == "copy"]
    assert copied and all(p.run_id == 1 and p.source.startswith("run 1 (") for p in copied)
    code, _, err = rb("history", "add", "--run", "1", "--label", "nope", "--commit", "HEAD", "--store", db)
    assert code == 2 and "has no version 'nope'" in err and err.count("\n") == 1


@pytest.mark.parametrize(("args", "message"), [
    (["--commit", "HEAD", "--time", "yesterday"], "--time 'yesterday': not an ISO 8601 date or time"),
    (["--commit", "no-such-commit"], "--commit no-such-commit: not a commit of the git repository"),
    (["--commit", "bad commit"], "--commit 'bad commit': not a commit name"),
    (["--commit", "HEAD", "--repo", "/"], "--repo /: not in a git repository"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_is_lost(repo, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(repo)
    db = tmp_path / "h.db"
    assert rb("history", "add", JMH / "v1-trial1.json", "--commit", "HEAD", "--store", db)[0] == 0
    code, out, err = rb("history", "add", JMH / "v2-trial1.json", *args, "--store", db)
    assert (code, out) == (2, "") and message in err and err.count("\n") == 1 and "Traceback" not in err
    with ResultStore.read(db) as store:
        assert {p.source for p in store.history_points()} == {str(JMH / "v1-trial1.json")}
        assert len(store.run_ids()) == 1


def test_file_errors_and_a_repeated_add(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    db = tmp_path / "h.db"
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    for path, message in ((tmp_path / "missing.json", "missing.json"), (garbage, "garbage.json")):
        code, out, err = rb("history", "add", path, "--commit", "HEAD", "--store", db)
        assert code == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err
    assert rb("history", "add", JMH / "v1-trial1.json", "--commit", "HEAD", "--store", db)[0] == 0
    code, out, err = rb("history", "add", JMH / "v1-trial1.json", "--commit", "HEAD", "--store", db)
    assert code == 2 and "is already in the history; nothing was added" in err
    with ResultStore.read(db) as store:
        assert len(store.run_ids()) == 1  # the refused add stored no second run


def test_a_copy_of_added_files_from_another_folder_is_refused(repo, tmp_path, monkeypatch):
    """The source of a point is its files' path; a copy elsewhere is the same data, and its
    points would count the same trials twice (issue 35)."""
    monkeypatch.chdir(repo)
    db = tmp_path / "h.db"
    copy = tmp_path / "elsewhere" / "renamed.json"
    copy.parent.mkdir()
    copy.write_bytes((JMH / "v1-trial1.json").read_bytes())
    assert rb("history", "add", JMH / "v1-trial1.json", "--commit", "HEAD", "--store", db)[0] == 0
    code, out, err = rb("history", "add", copy, "--commit", "HEAD", "--store", db)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "the same files (by content) are in the history already" in err and "from run 1 (" in err
    with ResultStore.read(db) as store:
        points = len(store.history_points())
        assert len(store.run_ids()) == 1
    # the same content at another commit is another point, and other files at this commit too
    assert rb("history", "add", copy, "--commit", "HEAD~1", "--store", db)[0] == 0
    assert rb("history", "add", JMH / "v1-trial2.json", "--commit", "HEAD", "--store", db)[0] == 0
    with ResultStore.read(db) as store:
        assert len(store.history_points()) == 3 * points


def test_import_csv_then_changes_from_the_store_find_the_planted_change(tmp_path):
    csv = write_history(tmp_path / "nightly.csv")
    db = tmp_path / "h.db"
    code, out, err = rb("history", "import", "--csv", csv, "--higher-is-better", "throughput", "--store", db)
    assert code == 0 and "imported 100 points (2 series)" in out, err
    code, out, err = rb("history", "changes", "--store", db, "--branch", "main", "--format", "json")
    assert code == 0, err
    by_metric = {s["metric"]: s for s in json.loads(out)["series"]}
    (latency,) = by_metric["latency"]["changes"]
    assert (latency["commit"], latency["previous_commit"], latency["direction"]) == ("c030", "c029", "slower")
    assert by_metric["throughput"]["changes"][0]["commit"] == "c020"
    assert by_metric["latency"]["branch"] == "main" and by_metric["latency"]["machine"] == "unknown"
    assert rb("history", "changes", "--store", db, "--fail-on", "regression")[0] == 1
    assert ": 0 series, 0 points" in rb("history", "changes", "--store", db, "--branch", "other")[1]
    code, _, err = rb("history", "changes", "--store", db, "--csv", csv)
    assert code == 2 and "not both" in err


def test_two_machine_kinds_are_two_series_and_the_outputs_say_so(tmp_path):
    csv = write_history(tmp_path / "nightly.csv")
    db = tmp_path / "h.db"
    for machine in ("small box", "big box"):
        assert rb("history", "import", "--csv", csv, "--machine", machine, "--store", db)[0] == 0
    code, out, _ = rb("history", "list", "--store", db, "--metric", "latency")
    assert code == 0 and "2 series" in out
    assert "note: nightly latency on branch main was measured on 2 kinds of machine; each is its own series: big box; small box" in out
    code, out, _ = rb("history", "changes", "--store", db, "--metric", "latency")
    assert out.count("c029..c030") == 2 and "branch main; big box" in out


def test_untrusted_names_are_escaped_in_text_and_markdown(tmp_path):
    csv = tmp_path / "evil.csv"
    rows = ["time,commit,branch,\x1b[31mred|x\n"]
    rows += [f"2026-03-01T{i:02d}:00:00Z,c{i}\x07,main,{100 + i}\n" for i in range(5)]
    csv.write_text("".join(rows))
    db = tmp_path / "h.db"
    code, out, err = rb("history", "import", "--csv", csv, "--store", db)
    assert code == 0, err
    code, out, _ = rb("history", "show", "--store", db)
    assert code == 0 and "\x1b" not in out and "\x07" not in out and "red|x" in out
    code, out, _ = rb("history", "list", "--store", db, "--format", "markdown")
    assert "\x1b" not in out and "red\\|x" in out


def test_record_a_directory_outside_git_needs_a_commit(tmp_path, fake):
    project = tmp_path / "v1"
    project.mkdir()
    db = tmp_path / "h.db"
    code, out, err = rb("record", project, "--store", db)
    assert code == 2 and "not in a git repository; name the commit measured with --commit" in err
    code, out, err = rb("record", project, "--commit", "build-7", "--time", "2026-11-01", "--trials", "2", "--store", db)
    assert code == 0, err
    assert "run 1: 2 executions (0 failed)" in out and "build-7" in out
    with ResultStore.read(db) as store:
        (p,) = store.history_points()
        assert (p.commit, p.time, p.n, p.run_id, p.label) == ("build-7", "2026-11-01T00:00:00+00:00", 12, 1, "build-7")
        assert p.ci_low < p.mean < p.ci_high
        assert [v.label for v in store.run(1).versions] == ["build-7"]


def test_an_interrupted_record_resumes_and_adds_its_points_once(tmp_path, fake):
    fake.interrupt_at = 1
    project = tmp_path / "v1"
    project.mkdir()
    db = tmp_path / "h.db"
    code, out, err = rb("record", project, "--commit", "build-8", "--time", "2026-11-01", "--trials", "3",
                        "--branch", "main", "--store", db)
    assert code == 130 and out == ""
    assert f"1 of 3 executions are stored. Resume with: rigorbench record --resume 1 --store {db}" in err
    with ResultStore.read(db) as store:
        assert store.history_points() == [] and len(store.finished(1)) == 1
    # ab cannot take it over (it would add no points); a changed origin is refused.
    code, _, err = rb("ab", "--resume", "1", "--store", db)
    assert code == 2 and "resume it with 'rigorbench record --resume'" in err
    code, _, err = rb("record", "--resume", "1", "--store", db, "--branch", "dev")
    assert code == 2 and "--branch cannot be changed" in err
    fake.interrupt_at = 2       # the second session is interrupted too
    code, out, err = rb("record", "--resume", "1", "--store", db)
    assert code == 130 and "2 of 3 executions are stored" in err
    fake.interrupt_at = None
    code, out, err = rb("record", "--resume", "1", "--store", db)
    assert code == 0, err
    assert "resuming run 1: 2 of 3 executions already stored" in err and out.startswith("run 1: 1 executions (0 failed)")
    assert "build-8" in out and len(fake.calls) == 3           # each trial ran once
    with ResultStore.read(db) as store:
        (p,) = store.history_points()
        assert (p.commit, p.time, p.branch, p.run_id, p.label, p.n) == ("build-8", "2026-11-01T00:00:00+00:00", "main", 1, "build-8", 18)
        assert store.run(1).status == "finished"
    # Resuming a complete run again runs nothing and adds nothing.
    code, out, err = rb("record", "--resume", "1", "--store", db)
    assert code == 0 and "its points were already in the history; nothing added" in out and len(fake.calls) == 3
    with ResultStore.read(db) as store:
        assert len(store.history_points()) == 1


def test_resume_needs_a_record_run_and_a_store(tmp_path, fake):
    db = tmp_path / "h.db"
    for label in ("v1", "v2"):
        (tmp_path / label).mkdir()
    assert rb("ab", tmp_path, "--base", tmp_path / "v1", "--contender", tmp_path / "v2", "--trials", "1", "--store", db)[0] == 0
    code, _, err = rb("record", "--resume", "1", "--store", db)
    assert code == 2 and "not a run of 'rigorbench record'" in err
    code, _, err = rb("record", "--resume", "1")
    assert code == 2 and "--resume needs --store DB" in err
    code, _, err = rb("record")
    assert code == 2 and "give PATH" in err


def test_importing_a_csv_again_from_another_folder_skips_its_points(tmp_path):
    # Before issue 35 a second import of examples/history/nightly.csv from another folder
    # doubled every point: p fell from 7e-34 to 3e-69 and the intervals narrowed.
    nightly = Path(__file__).resolve().parents[2] / "examples" / "history" / "nightly.csv"
    (tmp_path / "copy").mkdir()
    copy = tmp_path / "copy" / "nightly.csv"
    copy.write_bytes(nightly.read_bytes())
    db = tmp_path / "h.db"
    code, out, err = rb("history", "import", "--csv", nightly, "--store", db)
    assert code == 0 and "imported 120 points (2 series)" in out
    assert err == "rigorbench: note: better higher: encode_ops_s; lower: parse_ns (from the column names)\n"
    before = json.loads(rb("history", "changes", "--store", db, "--format", "json")[1])
    for again in (copy, nightly):
        code, out, err = rb("history", "import", "--csv", again, "--store", db)
        assert code == 0, err
        assert out.endswith("imported 0 points (2 series) from " + str(again) + f" into {db}; "
                            "120 already in the history (same series, commit and time) skipped\n")
    after = json.loads(rb("history", "changes", "--store", db, "--format", "json")[1])
    assert after["series"] == before["series"]
    assert "2 series, 120 of 120 points" in rb("history", "list", "--store", db)[1]
