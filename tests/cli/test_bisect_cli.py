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
