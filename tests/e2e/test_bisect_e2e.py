"""``rigorbench bisect`` on a generated repository of 4 commits with one planted regression:
real git, real Maven, real JMH, real SQLite.

The regression is planted in commit 2, so after the premise (bad, commit 3: slower) the binary
search probes commit 1 (not slower) and commit 2 (slower): every kind of decision is made, and
only one probe has to show that a commit is *not* slower, which takes the most trials (an
unchanged commit's interval must shrink below the threshold; a slower one is called at the
first look). Each probe is a build and a run of its own, so the range is kept short: 3 commits
after good, two probes after the premise (7 commits and three took 220 s of the suite).

Settings are short; the planted regression is several times the time per call and the
threshold 90%, so that an unchanged commit is told apart from a slower one in 6-48 short
trials even on a loaded 2-CPU machine (where a fork sharing its CPU runs 2-3x slower).
"""

from __future__ import annotations

import io
import re
import shutil
import time
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.store import ResultStore
from tests.e2e import bisect_repo

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
# Five warmup iterations: with two (200 ms), a fork sharing its CPUs with the other test worker's
# builds sometimes measured before C2 had compiled sumCsv, and its trial came out several times
# slower (an unchanged commit's interval reached +113% after 24 trials in a fresh-clone run).
# Up to 48 trials: an unchanged commit that is still undecided at 24 gets one more look.
SETTINGS = ["--forks", "1", "--warmup-iterations", "5", "--iterations", "2", "--warmup-time", "100ms",
            "--iteration-time", "100ms", "--no-prof-gc", "--resamples", "1000", "--threshold", "90%",
            "--trials", "6", "--max-trials", "48"]

assert shutil.which("mvn") and shutil.which("java"), "the end-to-end tests need Maven and a JDK on PATH"
PLANTED, COMMITS = 2, 4


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def bisected(tmp_path_factory):
    """One bisection of the generated repository: (commits, store, (code, out, err))."""
    root = tmp_path_factory.mktemp("bisect") / "repo"
    commits = bisect_repo.make_repo(root, PLANTED, COMMITS)
    db = tmp_path_factory.mktemp("store") / "results.db"
    started = time.monotonic()
    result = cli("bisect", str(root), "--good", f"HEAD~{COMMITS - 1}", "--bad", "HEAD", "--bench", "CsvParseBenchmark.sumCsv",
                 *SETTINGS, "--store", str(db))
    print(f"bisect of {COMMITS} commits took {time.monotonic() - started:.0f} s")
    return root, commits, db, result


def test_bisect_finds_the_planted_commit(bisected):
    root, commits, db, (code, out, err) = bisected
    print(out, err[-3000:])
    planted, parent = commits[PLANTED], commits[PLANTED - 1]
    assert code == 0, out
    assert f"culprit: {planted[:12]}  {bisect_repo.subject(PLANTED, PLANTED)}\n" in out
    assert f"parent:  {parent[:12]}  {bisect_repo.subject(PLANTED - 1, PLANTED)}\n" in out
    rows = [line.split() for line in out.splitlines() if re.match(r"^(bad|\d+) +[0-9a-f]{12} ", line)]
    assert rows[0][:2] == ["bad", commits[-1][:12]] and "slower" in rows[0]
    # Binary search over 3 commits: the premise and 2 probes (1, 2), each decided.
    assert [row[2] for row in rows] == ["commit"] * 3
    assert [int(row[3].rstrip(":")) for row in rows] == [3, 1, 2]
    assert not any("inconclusive" in row for row in rows)
    # Good is built once for the whole bisection, every probed commit once.
    good = commits[0][:12]
    assert err.count(f"building {good} ") == 1
    assert len(re.findall(r"^built ", err, re.M)) == len(rows) + 1


def test_every_probe_is_an_ordinary_stored_run(bisected):
    root, commits, db, (code, out, err) = bisected
    good, planted = commits[0][:12], commits[PLANTED][:12]
    with ResultStore.open(db, create=False) as store:
        runs = [store.run(run_id) for run_id in store.run_ids()]
        assert all(run.status == "finished" and run.versions[0].label == good for run in runs)
        assert all(run.settings["bisect"]["good"] == commits[0] for run in runs)
        probed = [run.versions[1].label for run in runs]
        assert probed[0] == commits[-1][:12] and planted in probed
        # RMIT: every trial holds both versions
        for run in runs:
            executions = store.executions(run.run_id)
            assert len(executions) == len(run.schedule) == 2 * run.settings["trials"]
    code, out, _ = cli("runs", "--store", str(db))
    assert code == 0 and f"{good} vs {planted}" in out
    code, out, _ = cli("compare", "--store", str(db), "--baseline", good, "--contender", planted, "--resamples", "1000")
    assert code == 0 and "slower" in out


def test_a_bench_pattern_that_matches_nothing_is_bad_input(bisected):
    root, commits, db, _ = bisected
    code, out, err = cli("bisect", str(root), "--good", f"HEAD~{COMMITS - 1}", "--bad", "HEAD", "--bench", "NoSuchBenchmark",
                         *SETTINGS, "--store", str(db))
    assert code == 2 and out == ""
    assert err.splitlines()[-1] == f"rigorbench: error: no benchmark matches --bench NoSuchBenchmark at good {commits[0][:12]}"
    assert not re.findall(r"^built ", err, re.M)          # good's jar came from the build cache


def test_the_readme_shows_this_run(bisected):
    """docs/bisect.md's example (once the README's) is this test's output, hashes and numbers aside."""
    root, commits, db, (code, out, err) = bisected
    page = (ROOT / "docs" / "bisect.md").read_text(encoding="utf-8")
    block = page.split("<!-- example:bisect -->", 1)[1].split("```console\n", 1)[1].split("```", 1)[0]
    command, shown = block.split("\n", 1)
    assert command.startswith("$ rigorbench bisect ") and " ".join(SETTINGS) in command

    def shape(text: str) -> list[str]:
        text = re.sub(r"[0-9a-f]{12}", "HASH", text)
        text = re.sub(r"store \S+", "store DB", text)
        text = re.sub(r"[+-]?\d+(\.\d+)?", "N", text)
        return [re.sub(r" +", " ", line) for line in text.splitlines()]

    assert shape(shown) == shape(out)
