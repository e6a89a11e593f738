"""``rigorbench ab --until-decided`` on the real example: real Maven, real JMH, real SQLite.

Whether a real benchmark is decided after 3 trials of tiny settings depends on how loaded the
machine is, so what is asserted holds either way: a benchmark's data ends at the trial it
was decided in (or runs to ``--max-trials``), the final comparison is made at the looks'
level and reproduces the verdicts, and a benchmark that cannot be decided (StatsBenchmark,
the same code in both versions, at a 0% threshold: never "unchanged") runs on to
``--max-trials`` whatever happens to the others, through a ``kill -9`` and ``--resume``. (A
benchmark that fails in every trial is retired as ``failed`` at the first look; the unit tests
of analysis/stopping.py cover that.)
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.store import ResultStore
from tests.e2e.killing import wait_for_trials

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--forks", "1", "--warmup-iterations", "1", "--iterations", "2", "--warmup-time", "100ms",
        "--iteration-time", "100ms", "--resamples", "1000", "--no-prof-gc", "--no-lint"]


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def trials_of(store: ResultStore, label: str, benchmark: str) -> set[int]:
    return {int(t) for s in store.load_series(1, label) if benchmark in s.case.name for t in s.samples.trial}


def test_each_benchmark_runs_until_decided_and_the_verdicts_reproduce(project, db, tmp_path):
    code, out, err = cli("ab", str(project), "--base", "v1", "--contender", "v2", "--bench", "PrimeCountBenchmark",
                         "--until-decided", "--max-trials", "4", "--threshold", "99%", "--store", str(db),
                         "--format", "json", *TINY)
    assert code == 0, err
    doc = json.loads(out)
    sequential = doc["sequential"]
    assert (sequential["min_trials"], sequential["max_trials"], sequential["rule"]) == (3, 4, "pocock")
    (fate,) = sequential["benchmarks"]
    assert fate["decided_after"] in (3, 4, None)
    ran = fate["decided_after"] or 4
    assert (f"every benchmark decided after {ran} trials" if fate["decided_after"] else "stopped at --max-trials 4") in err
    # the final comparison is made at the looks' level, not at the overall 99%
    assert doc["confidence"] == pytest.approx(sequential["confidence_per_look"]) and doc["confidence"] > 0.99
    assert doc["interval"] == "t"
    (comparison,) = doc["comparisons"]
    # the verdict the run stopped on; a verdict the design cannot carry (a caveat) never stops it
    assert comparison["verdict"] == fate["verdict"] or (not comparison["verdict_supported"] and fate["verdict"] == "inconclusive")
    with ResultStore.open(db, create=False) as store:
        assert len(store.executions(1)) == 2 * ran and store.run(1).status == "finished"
        assert store.run(1).settings["trials"] == ran
    # compare of the stored run reads it at that level by itself and gives the verdict the run stopped on
    code, out, err = cli("compare", "--store", str(db), "--run", "1", "--baseline", "v1", "--contender", "v2",
                         "--threshold", "99%", "--resamples", "1000", "--format", "json")
    again = json.loads(out)
    assert (again["confidence"], again["interval"]) == (doc["confidence"], "t"), err
    assert [c["verdict"] for c in again["comparisons"]] == [fate["verdict"]]
    assert again["sequential"] == sequential


def test_open_benchmarks_run_on_alone_and_survive_kill_9_and_resume(project, db, tmp_path):
    argv = [sys.executable, "-m", "rigorbench", "ab", str(project), "--base", "v1", "--contender", "v2",
            "--bench", "StatsBenchmark|PrimeCountBenchmark", "--until-decided",
            "--max-trials", "5", "--threshold", "0%", "--futility", "0", "--store", str(db), *TINY]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
        wait_for_trials(child, db, 7, poll_s=0.3)   # into trial 4, after the first look
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()

    code, out, err = cli("ab", "--resume", "1", "--store", str(db), "--format", "json")
    assert code in (0, 1), err
    assert "stopped at --max-trials 5: " in err and "still undecided" in err
    fates = {b["benchmark"].rsplit(".", 2)[-2]: b for b in json.loads(out)["sequential"]["benchmarks"]}
    assert fates["StatsBenchmark"] == {**fates["StatsBenchmark"], "verdict": "inconclusive", "decided_after": None}
    primes = fates["PrimeCountBenchmark"]["decided_after"] or 5
    with ResultStore.open(db, create=False) as store:
        keys = [(e.trial, e.label) for e in store.executions(1)]
        assert sorted(keys) == sorted((t, v) for t in range(5) for v in ("v1", "v2"))   # none lost, none twice
        for label in ("v1", "v2"):
            assert trials_of(store, label, "PrimeCountBenchmark") == set(range(primes))   # not after it was decided
            # standardize is the same code in both versions: at a 0% threshold it can never be
            # "unchanged", so it stays open and runs in every trial (futility, which would give
            # it up, is off)
            assert trials_of(store, label, "StatsBenchmark") == set(range(5))
        assert store.run(1).status == "finished"


def test_warmup_auto_runs_each_benchmark_with_the_warmup_its_pilot_chose(project, db, tmp_path):
    at = TINY.index("--warmup-iterations")
    settings = TINY[:at] + TINY[at + 2:]
    code, out, err = cli("ab", str(project), "--base", "v1", "--contender", "v2", "--bench", "PrimeCountBenchmark|CsvParseBenchmark",
                         "--warmup", "auto", "--pilot-warmup", "12", "--trials", "1", "--store", str(db), "--format", "json",
                         *settings)
    assert code in (0, 1), err
    assert "warmup auto: pilot fork of v1 (12 warmup + 2 iterations per benchmark)" in err
    with ResultStore.open(db, create=False) as store:
        run = store.run(1)
        choices = run.setup.warmups
        assert run.setup.pilot_warmup == 12
        assert {name.rsplit(".", 2)[-2] for name in choices} == {"PrimeCountBenchmark", "CsvParseBenchmark"}
        for name, choice in choices.items():
            short = ".".join(name.rsplit(".", 2)[-2:])
            # chosen from the pilot: a steady start plus at least 2 iterations, at most the pilot's 14; or flagged
            assert 2 <= choice["warmup"] <= 14
            if choice["reached"]:
                assert f"warmup auto: {short}: {choice['warmup']} warmup iterations" in err
                assert all(choice["warmup"] >= start + 2 for start in choice["starts"].values())
            else:
                assert f"warning: {short} did not reach steady state" in err
            for label in ("v1", "v2"):   # the trial ran that many warmup iterations in every fork
                (series,) = [s for s in store.load_series(1, label) if s.case.name == name and s.metric.primary]
                assert int(series.samples.warmup.sum()) == choice["warmup"]
    assert {c["benchmark"].rsplit(".", 2)[-2] for c in json.loads(out)["comparisons"]} == {"PrimeCountBenchmark", "CsvParseBenchmark"}
