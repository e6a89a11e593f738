"""The bisection's runner with a deterministic fake harness: real git worktrees of the
generated repository, a real SQLite store, no Maven or JMH (the end-to-end test has them)."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from rigorbench.cli import main
from rigorbench.harness.base import DONE, TrialOutcome
from rigorbench.model import BenchmarkCase, SampleTable, Series
from rigorbench.store import ResultStore
from tests.conftest import TIME, FakeHarness
from tests.e2e import bisect_repo

CASE = BenchmarkCase("jmh", "demo.Bench.a", (("size", "1"),))


@dataclass
class CommitHarness(FakeHarness):
    """Times per commit: 100 ns before the planted checksum, 300 after (``faster``: 30 after,
    the planted commit is an improvement); ``noisy`` trials of every commit add alternating
    +-40%, so only many trials decide."""

    noisy: bool = False
    faster: bool = False

    def run_trial(self, build, settings, work_dir, on_progress) -> TrialOutcome:
        planted = "checksum" in (build.project_dir / bisect_repo.NUMBERS).read_text()
        self.calls.append(build.project_dir)
        mean = (30.0 if self.faster else 300.0) if planted else 100.0
        if self.noisy:
            mean *= 1.4 if len(self.calls) % 4 < 2 else 0.6
        table = SampleTable.build(mean + np.arange(6) * 0.1, fork=[0, 0, 0, 1, 1, 1], iteration=[0, 1, 2] * 2)
        return TrialOutcome(DONE, (Series(CASE, TIME, table),), 0.01, {"jmh_version": "fake"})


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("bisect") / "repo"
    return root, bisect_repo.make_repo(root)


def bisect(harness, monkeypatch, root: Path, db: Path, *extra: str) -> tuple[int, str, str]:
    import rigorbench.harness
    from rigorbench.experiment import bisect as experiment, driver, prepare

    for module in (rigorbench.harness, driver, prepare, experiment):
        monkeypatch.setattr(module, "get_harness", lambda name: harness)
    out, err = io.StringIO(), io.StringIO()
    code = main(["bisect", str(root), "--good", "HEAD~15", "--bad", "HEAD", "--bench", "Bench",
                 "--resamples", "1000", "--store", str(db), *extra], out, err)
    return code, out.getvalue(), err.getvalue()


def test_the_runner_finds_the_planted_commit_and_stores_each_probe(repo, monkeypatch, tmp_path):
    root, commits = repo
    code, out, err = bisect(CommitHarness(), monkeypatch, root, tmp_path / "r.db")
    assert code == 0, out + err
    assert f"culprit: {commits[bisect_repo.PLANTED][:12]}" in out
    with ResultStore.open(tmp_path / "r.db", create=False) as store:
        runs = [store.run(i) for i in store.run_ids()]
    assert len(runs) == 5 and all(len(run.schedule) == 10 for run in runs)   # 5 trials of 2 versions each
    assert [run.versions[1].label for run in runs][:2] == [commits[15][:12], commits[7][:12]]


def test_an_undecided_probe_gets_more_trials_in_the_same_run_then_stops_the_bisection(repo, monkeypatch, tmp_path):
    root, commits = repo
    code, out, err = bisect(CommitHarness(noisy=True), monkeypatch, root, tmp_path / "r.db", "--max-trials", "10",
                            "--threshold", "5%")
    assert code == 4, out + err
    with ResultStore.open(tmp_path / "r.db", create=False) as store:
        runs = [store.run(i) for i in store.run_ids()]
        # Every run holds all its planned trials, both versions in each: 5, then 10.
        for run in runs:
            assert len(store.executions(run.run_id)) == len(run.schedule) == 2 * run.settings["trials"]
    # The premise decided at 5 trials; the first probe (commit 7) not even at 10: the search
    # stops and every commit of the range is still a candidate.
    assert [run.settings["trials"] for run in runs] == [5, 10]
    assert "inconclusive: the first slower commit is one of these 15 (oldest first)" in out
    assert f"  {commits[7][:12]}  commit 7: update the notes  (inconclusive after 10 trials)" in out
    assert "culprit" not in out
    assert out.splitlines()[-1] == "more --max-trials, longer iterations or a larger --threshold may decide them"


def test_bad_not_slower_than_good_is_exit_3_after_one_probe(repo, monkeypatch, tmp_path):
    root, commits = repo

    @dataclass
    class Flat(CommitHarness):
        def run_trial(self, build, settings, work_dir, on_progress):
            outcome = super().run_trial(build, settings, work_dir, on_progress)
            table = SampleTable.build(100.0 + np.arange(6) * 0.1, fork=[0, 0, 0, 1, 1, 1], iteration=[0, 1, 2] * 2)
            return TrialOutcome(DONE, (Series(CASE, TIME, table),), 0.01, {"jmh_version": "fake"})

    code, out, err = bisect(Flat(), monkeypatch, root, tmp_path / "r.db")
    assert code == 3, out + err
    assert out.splitlines()[-1].startswith(f"not slower: bad {commits[15][:12]} is not slower than good {commits[0][:12]}")
    with ResultStore.open(tmp_path / "r.db", create=False) as store:
        assert len(store.run_ids()) == 1


def test_bisect_with_warmup_auto_chooses_each_probes_warmups_from_its_pilots(repo, monkeypatch, tmp_path):
    """The engine's warmup for bisect: every probe's run stores the warmups its pilots chose."""
    root, commits = repo
    harness = CommitHarness()
    code, out, err = bisect(harness, monkeypatch, root, tmp_path / "r.db", "--warmup", "auto", "--pilot-warmup", "5")
    assert code == 0, out + err
    assert f"culprit: {commits[bisect_repo.PLANTED][:12]}" in out
    with ResultStore.open(tmp_path / "r.db", create=False) as store:
        runs = [store.run(i) for i in store.run_ids()]
    assert len(runs) == 5 and all(run.setup.warmups and run.setup.pilot_warmup == 5 for run in runs)
    assert all(run.setup.executor == {"kind": "local"} and run.setup.rule["kind"] == "probe" for run in runs)
    # each probe's run keeps its rule's last look: the premise found bad slower, and every
    # probe decided at its first look of 5 trials
    assert runs[0].setup.rule["decision"] == "slower" and runs[0].setup.rule["tracked"]
    assert {(run.setup.rule["first"], run.setup.rule["decision"]) for run in runs} == {(5, "slower"), (5, "not slower")}
    # 2 pilot forks and 10 executions per probe
    assert len(harness.calls) == 5 * (2 + 10)


def test_find_faster_names_the_planted_improvement_and_stores_the_direction(repo, monkeypatch, tmp_path):
    root, commits = repo
    code, out, err = bisect(CommitHarness(faster=True), monkeypatch, root, tmp_path / "r.db", "--find", "faster")
    assert code == 0, out + err
    planted = commits[bisect_repo.PLANTED][:12]
    assert f"culprit (faster): {planted}  commit 11: sumCsv checks its input with a checksum" in out
    assert f"parent:           {commits[bisect_repo.PLANTED - 1][:12]}  commit 10: " in out
    assert out.startswith("bisect (the first faster commit): good ")
    decisions = [re.search(r"\]  +(not faster|faster)  ", line).group(1) for line in out.splitlines()
                 if line.startswith(("bad ", "1 ", "2 ", "3 ", "4 "))]
    assert decisions == ["faster", "not faster", "faster", "not faster", "not faster"]
    assert "looking for the first faster commit" in err
    assert f"premise: bad: {commits[15][:12]} faster after 5 trials" in err
    with ResultStore.open(tmp_path / "r.db", create=False) as store:
        runs = [store.run(i) for i in store.run_ids()]
    assert len(runs) == 5 and all(run.settings["bisect"]["find"] == "faster" for run in runs)


def test_find_faster_json_says_the_direction_in_its_decisions(repo, monkeypatch, tmp_path):
    import json

    root, commits = repo
    code, out, err = bisect(CommitHarness(faster=True), monkeypatch, root, tmp_path / "r.db", "--find", "faster",
                            "--format", "json")
    assert code == 0, out + err
    doc = json.loads(out)
    assert doc["find"] == "faster" and doc["status"] == "found"
    assert doc["culprit"]["commit"] == commits[bisect_repo.PLANTED]
    assert [p["decision"] for p in doc["probes"]] == ["faster", "not_faster", "faster", "not_faster", "not_faster"]
    assert doc["probes"][0]["cases"][0]["decision"] == "faster"


def test_find_faster_when_bad_is_slower_is_exit_3_after_one_probe(repo, monkeypatch, tmp_path):
    """The regression of the default fake is no improvement: bad is not faster than good."""
    root, commits = repo
    code, out, err = bisect(CommitHarness(), monkeypatch, root, tmp_path / "r.db", "--find", "faster")
    assert code == 3, out + err
    assert out.splitlines()[-1] == (f"not faster: bad {commits[15][:12]} is not faster than good {commits[0][:12]} on the "
                                    "selected benchmarks (beyond the threshold); there is no improvement to bisect")
    with ResultStore.open(tmp_path / "r.db", create=False) as store:
        assert len(store.run_ids()) == 1
        assert store.run(store.run_ids()[0]).settings["bisect"]["find"] == "faster"


def test_the_default_finds_slower_and_stores_that_too(repo, monkeypatch, tmp_path):
    """An improvement is not a regression: the default bisection refuses it with exit 3."""
    root, commits = repo
    code, out, err = bisect(CommitHarness(faster=True), monkeypatch, root, tmp_path / "r.db")
    assert code == 3, out + err
    assert out.splitlines()[-1].startswith(f"not slower: bad {commits[15][:12]} is not slower than good")
    with ResultStore.open(tmp_path / "r.db", create=False) as store:
        assert store.run(store.run_ids()[0]).settings["bisect"]["find"] == "slower"


def test_a_bisection_interrupted_in_a_probe_takes_its_stored_probes_up_again(repo, monkeypatch, tmp_path):
    """Ctrl-C in the third probe, then the same command again: the finished probes are
    reused (no execution of theirs runs again), the interrupted one resumes from its stored
    executions, and the answer is the uninterrupted bisection's."""
    root, commits = repo

    @dataclass
    class StopsOnce(CommitHarness):
        stop_at: int = 0

        def run_trial(self, build, settings, work_dir, on_progress):
            if len(self.calls) == self.stop_at:
                self.stop_at = -1
                raise KeyboardInterrupt
            return super().run_trial(build, settings, work_dir, on_progress)

    whole = CommitHarness()
    assert bisect(whole, monkeypatch, root, tmp_path / "whole.db")[0] == 0
    first = StopsOnce(stop_at=2 * 10 + 3)   # the premise and probe 1 done (10 executions each), 3 of probe 2
    code, out, err = bisect(first, monkeypatch, root, tmp_path / "r.db")
    assert code == 130, out + err
    assert "the same rigorbench bisect command with --store" in err and "Traceback" not in err
    second = CommitHarness()
    code, out, err = bisect(second, monkeypatch, root, tmp_path / "r.db")
    assert code == 0, out + err
    assert f"culprit: {commits[bisect_repo.PLANTED][:12]}" in out
    assert err.count("taking up the stored run") == 3
    assert len(first.calls) + len(second.calls) == len(whole.calls) == 50   # nothing measured twice
    with ResultStore.open(tmp_path / "r.db", create=False) as store:
        runs = [store.run(i) for i in store.run_ids()]
        assert len(runs) == 5 and all(len(store.executions(run.run_id)) == 10 for run in runs)
        assert all(run.status == "finished" for run in runs)


class Crash(BaseException):
    """The process dying mid-trial (kill -9, power loss): nothing after it runs, the run is
    left marked running."""


def test_a_bisection_killed_in_a_probe_resumes_the_same_way(repo, monkeypatch, tmp_path):
    root, commits = repo

    @dataclass
    class Dies(CommitHarness):
        def run_trial(self, build, settings, work_dir, on_progress):
            if len(self.calls) == 10 + 4:      # the premise done, 4 executions of the first probe
                raise Crash
            return super().run_trial(build, settings, work_dir, on_progress)

    first = Dies()
    with pytest.raises(Crash):
        bisect(first, monkeypatch, root, tmp_path / "r.db")
    with ResultStore.open(tmp_path / "r.db", create=False) as store:
        assert [store.run(i).status for i in store.run_ids()] == ["finished", "running"]
    second = CommitHarness()
    code, out, err = bisect(second, monkeypatch, root, tmp_path / "r.db")
    assert code == 0, out + err
    assert f"culprit: {commits[bisect_repo.PLANTED][:12]}" in out
    assert len(first.calls) + len(second.calls) == 50 and err.count("taking up the stored run") == 2


def test_a_finished_probe_is_not_reused_by_a_bisection_with_other_settings(repo, monkeypatch, tmp_path):
    root, commits = repo
    assert bisect(CommitHarness(), monkeypatch, root, tmp_path / "r.db")[0] == 0
    again = CommitHarness()
    code, out, err = bisect(again, monkeypatch, root, tmp_path / "r.db", "--threshold", "20%")
    assert code == 0, out + err
    assert "taking up the stored run" not in err and len(again.calls) == 50
