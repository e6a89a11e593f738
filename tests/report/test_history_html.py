"""The history as HTML (``report --history``, ``history show --html``): its structure from a
real SQLite store, regressions first, commit links only to http(s) addresses, and untrusted
text (benchmark and metric names, branches, commits, URLs) escaped."""

from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path

import pytest

from rigorbench.analysis.history_report import remote_web_url, web_url
from rigorbench.cli import main

HOSTILE = "<script>alert(1)</script>"   # a metric column's name in the history (conftest.write_history_csv)


def rb(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in args], out, err)
    return code, out.getvalue(), err.getvalue()


def sections(html: str) -> list[str]:
    return re.findall(r'<section class="series" (id="series-\d+" data-regression="\w+" data-segments="\d+" data-changes="\d+")', html)


def test_report_history_orders_regressions_first_and_links_commits(history_store, tmp_path):
    db, commits = history_store
    page = tmp_path / "history.html"
    code, out, err = rb("report", "--history", "--store", db, "--html", page, "--repo-url", "https://github.com/o/r.git")
    assert code == 0 and out == "" and f"history: 3 series in {page}" in err, err
    html = page.read_text()
    found = sections(html)
    # latency (newest change slower) first; then throughput (faster), then the flat series.
    assert [re.search(r'data-regression="(\w+)"', s)[1] for s in found] == ["true", "false", "false"]
    assert [re.search(r'data-changes="(\d+)"', s)[1] for s in found] == ["1", "1", "0"]
    assert [re.search(r'data-segments="(\d+)"', s)[1] for s in found] == ["2", "2", "1"]
    start = html.index('<h2 id="series">')
    order = [html.index(text, start) for text in ('muted">latency', 'muted">throughput;', "alert(1)")]
    assert order == sorted(order)
    # The change of latency: between commits 17 and 18, linked, with its direction.
    link = f'<a href="https://github.com/o/r/commit/{commits[18]}"'
    assert link in html and f'href="https://github.com/o/r/commit/{commits[17]}"' in html
    assert html.count('<svg class="plot"') == 3 and "<script src" not in html and "http://" not in html.replace("http://www.w3.org", "")
    row = re.search(r'<table class="changes">.*?</table>', html, re.S)[0]
    assert "slower" in row and commits[18][:12] in row


def test_untrusted_text_is_escaped(history_store, tmp_path):
    db, _ = history_store
    page = tmp_path / "history.html"
    assert rb("history", "show", "--store", db, "--html", page)[0] == 0
    html = page.read_text()
    assert HOSTILE not in html and "<b>main</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;b&gt;main&lt;/b&gt;" in html
    # Only the page's own script is there.
    assert html.count("<script>") == 1
    # Without a repository address commits are text, and the settings say why.
    assert "/commit/" not in html and "none (no http(s) address" in html


@pytest.mark.parametrize("url", ["javascript:alert(1)", "JavaScript:alert(document.cookie)", "data:text/html,x", "file:///etc/passwd"])
def test_a_repository_address_that_is_not_http_is_not_a_link(history_store, tmp_path, url):
    db, _ = history_store
    page = tmp_path / "history.html"
    code, _, err = rb("history", "show", "--store", db, "--html", page, "--repo-url", url)
    assert code == 0 and "not an http(s) address; commits are not links" in err
    html = page.read_text().lower()
    assert "javascript:" not in html and "/commit/" not in html and "data:text" not in html


@pytest.mark.parametrize("remote, expected", [
    ("https://github.com/owner/repo.git", "https://github.com/owner/repo"),
    ("https://user:secret@github.com/owner/repo.git", "https://github.com/owner/repo"),
    ("git@github.com:owner/repo.git", "https://github.com/owner/repo"),
    ("ssh://git@gitlab.com/group/sub/repo.git", "https://gitlab.com/group/sub/repo"),
    ("git@gitlab.example.org:team/repo", "https://gitlab.example.org/team/repo"),
    ("https://bitbucket.org/owner/repo.git", None),           # not GitHub or GitLab: its links differ
    ("/srv/git/repo.git", None),
    ("git@github.com:owner/repo\"onmouseover=x.git", None),   # not a plain repository path
])
def test_remote_web_address(remote, expected):
    assert remote_web_url(remote) == expected


def test_repo_url_keeps_http_addresses_of_any_host_without_credentials():
    assert web_url("https://code.example.org/team/repo/") == "https://code.example.org/team/repo"
    assert web_url("http://token@example.org:8080/r") == "http://example.org:8080/r"
    assert web_url("https://example.org/r?x=<script>") == "https://example.org/r"
    assert web_url("javascript://github.com/%0aalert(1)") is None
    assert web_url('https://ex"ample.org/r') is None


def test_history_options_go_with_history_and_history_with_a_store(history_store, tmp_path):
    db, _ = history_store
    code, _, err = rb("report", "--store", db, "--branch", "main", "--html", tmp_path / "x.html")
    assert code == 2 and err.strip().endswith("--branch goes with --history") and "Traceback" not in err
    code, _, err = rb("report", "--history", "--store", db, "--html", tmp_path / "x.html", "--format", "csv")
    assert code == 2 and "--format csv does not go with it" in err
    code, _, err = rb("report", "--history", "--store", tmp_path / "none.db", "--html", tmp_path / "x.html")
    assert code == 2 and "none.db" in err and not (tmp_path / "x.html").exists()


def test_filters_select_the_series(history_store, tmp_path):
    db, _ = history_store
    page = tmp_path / "history.html"
    code, _, err = rb("report", "--history", "--store", db, "--html", page, "--metric", "throughput",
                      "--since", "2026-03-01T12:00:00Z")
    assert code == 0 and "1 series" in err
    html = page.read_text()
    assert len(sections(html)) == 1 and "throughput" in html and "latency (" not in html
    assert "18 of 90 points" in html and "--metric throughput; --since 2026-03-01T12:00:00+00:00" in html


def git(repo: Path, *args: str) -> str:
    env = {"GIT_COMMITTER_DATE": "2026-11-01T10:00:00Z", "GIT_AUTHOR_DATE": "2026-11-01T10:00:00Z",
           "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=repo, env=env,
                          capture_output=True, text=True, check=True).stdout.strip()


def test_commits_link_to_the_recorded_projects_remote(tmp_path, fake):
    repo = tmp_path / "v1"     # the fake harness's mean depends on the directory's name
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "file.txt").write_text("1")
    git(repo, "add", "file.txt")
    git(repo, "commit", "-qm", "one")
    git(repo, "remote", "add", "origin", "https://ci:s3cret@gitlab.com/team/bench.git")
    db = tmp_path / "h.db"
    code, _, err = rb("record", repo, "--trials", "2", "--branch", "main", "--store", db)
    assert code == 0, err
    page = tmp_path / "history.html"
    assert rb("history", "show", "--store", db, "--html", page)[0] == 0
    html = page.read_text()
    head = git(repo, "rev-parse", "HEAD")
    assert f'href="https://gitlab.com/team/bench/commit/{head}"' in html
    assert "s3cret" not in html and "ci:" not in html
