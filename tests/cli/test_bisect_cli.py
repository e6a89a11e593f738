"""``rigorbench bisect`` on bad input: one line on stderr, exit 2, no store made.

The repository is the end-to-end test's (git only: nothing is built here)."""

from __future__ import annotations

import io

import pytest

from rigorbench.cli import main
from tests.e2e import bisect_repo


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("bisect") / "repo"
    return root, bisect_repo.make_repo(root)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(["bisect", *argv], out, err), out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv, message", [
    (["--good", "nosuchrev", "--bad", "HEAD"], "--good 'nosuchrev': not a git revision of"),
    (["--good", "HEAD~15", "--bad=-x"], "--bad '-x': not a git revision of"),
    (["--good", "HEAD", "--bad", "HEAD"], "are the same commit; nothing to bisect"),
    (["--good", "HEAD", "--bad", "HEAD~15"], "--good 'HEAD' is not an ancestor of --bad 'HEAD~15'"),
    (["--good", "HEAD~15", "--bad", "HEAD", "--bench", "Csv(", "--trials", "3"], "--bench 'Csv(': not a regular expression"),
    (["--good", "HEAD~15", "--bad", "HEAD", "--trials", "2"], "--trials must be at least 3"),
    (["--good", "HEAD~15", "--bad", "HEAD", "--trials", "6", "--max-trials", "4"], "--max-trials (4) must be at least --trials (6)"),
])
def test_bad_input_is_one_line_exit_2_and_stores_nothing(repo, argv, message):
    root, _ = repo
    if "--bench" not in argv:
        argv = [*argv, "--bench", "CsvParseBenchmark"]
    code, out, err = run(str(root), *argv)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and err.startswith("rigorbench: error: ") and message in err, err
    assert not (root / ".rigorbench").exists()


def test_bench_is_required_and_path_must_be_in_a_git_repository(repo, tmp_path):
    root, _ = repo
    code, _, err = run(str(root), "--good", "HEAD~1", "--bad", "HEAD")
    assert code == 2 and "--bench" in err and err.count("\n") == 1
    code, _, err = run(str(tmp_path), "--good", "HEAD~1", "--bad", "HEAD", "--bench", "x")
    assert code == 2 and "not in a git repository" in err and err.count("\n") == 1
    code, _, err = run(str(tmp_path / "missing"), "--good", "HEAD~1", "--bad", "HEAD", "--bench", "x")
    assert code == 2 and "no such project directory" in err


def test_good_off_the_first_parent_history_is_refused(tmp_path):
    from tests.e2e.projects import commit_all, git

    root = tmp_path / "merged"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    base = commit_all(root, "base")
    git(root, "checkout", "-q", "-b", "side")
    (root / "b.txt").write_text("b\n")
    side = commit_all(root, "side work")
    git(root, "checkout", "-q", "-")
    (root / "c.txt").write_text("c\n")
    commit_all(root, "main work")
    git(root, "merge", "-q", "--no-edit", "side")
    code, _, err = run(str(root), "--good", side, "--bad", "HEAD", "--bench", "x")
    assert code == 2 and "not on the first-parent history" in err and err.count("\n") == 1
    assert base  # the base is an ancestor on both paths


@pytest.mark.parametrize("decisions, code, last", [
    ({14: "slower", 7: "not slower", 11: "slower", 9: "not slower", 10: "slower"}, 0, "parent:  "),
    ({14: "not slower"}, 3, "not slower: bad "),
    ({14: "inconclusive"}, 4, "inconclusive: could not decide whether bad "),
    ({14: "slower", 7: "inconclusive"}, 4, "more --max-trials, longer iterations or a larger --threshold may decide them"),
])
def test_exit_status_says_whether_a_culprit_was_found(repo, monkeypatch, tmp_path, decisions, code, last):
    """The bisection itself is stubbed (the end-to-end test runs a real one): the exit code
    and the conclusion for each way a bisection can end."""
    from rigorbench.analysis.bisect import Bisection, Decision, Probe
    from rigorbench.experiment import bisect as experiment

    def fake(plan, settings, store, reporters, build_cache=True, commits=None, executor=None):
        good, range_ = commits
        assert len(range_) == 15 and plan.first_trials == 5 and plan.max_trials == 20
        probes = tuple(Probe(i, Decision(d), (), 5) for i, d in decisions.items())
        return Bisection(good, range_, probes, settings, (5, 10, 20), store.path)

    monkeypatch.setattr(experiment, "run_bisection", fake)
    root, commits = repo
    got, out, err = run(str(root), "--good", "HEAD~15", "--bad", "HEAD", "--bench", "Csv", "--store", str(tmp_path / "r.db"))
    assert got == code, err
    assert out.splitlines()[-1].startswith(last)
    if code == 0:
        assert f"culprit: {commits[11][:12]}  commit 11: sumCsv checks its input with a checksum" in out


def test_an_unknown_find_is_refused_with_exit_2(repo):
    root, _ = repo
    code, out, err = run(str(root), "--good", "HEAD~15", "--bad", "HEAD", "--bench", "Csv", "--find", "sideways")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "--find" in err and "sideways" in err
    assert not (root / ".rigorbench").exists()


@pytest.mark.parametrize("decisions, code, last", [
    ({14: "faster", 7: "not faster", 11: "faster", 9: "not faster", 10: "faster"}, 0, "parent:           "),
    ({14: "not faster"}, 3, "not faster: bad "),
    ({14: "inconclusive"}, 4, "inconclusive: could not decide whether bad "),
    ({14: "faster", 7: "inconclusive"}, 4, "more --max-trials, longer iterations or a larger --threshold may decide them"),
])
def test_find_faster_exit_status_and_conclusion_say_faster(repo, monkeypatch, tmp_path, decisions, code, last):
    from rigorbench.analysis.bisect import Bisection, Decision, Direction, Probe
    from rigorbench.experiment import bisect as experiment

    def fake(plan, settings, store, reporters, build_cache=True, commits=None, executor=None):
        assert plan.find is Direction.FASTER
        good, range_ = commits
        probes = tuple(Probe(i, Decision(d), (), 5) for i, d in decisions.items())
        return Bisection(good, range_, probes, settings, (5, 10, 20), store.path, plan.find)

    monkeypatch.setattr(experiment, "run_bisection", fake)
    root, commits = repo
    got, out, err = run(str(root), "--good", "HEAD~15", "--bad", "HEAD", "--bench", "Csv", "--find", "faster",
                        "--store", str(tmp_path / "r.db"))
    assert got == code, err
    assert out.startswith("bisect (the first faster commit): ")
    assert out.splitlines()[-1].startswith(last)
    if code == 0:
        assert f"culprit (faster): {commits[11][:12]}  commit 11: sumCsv checks its input with a checksum" in out
    if decisions == {14: "inconclusive"}:
        assert f"is faster than good {commits[0][:12]} within 20 trials" in out
    if 7 in decisions and decisions[7] == "inconclusive":
        assert "inconclusive: the first faster commit is one of these 15 (oldest first)" in out
