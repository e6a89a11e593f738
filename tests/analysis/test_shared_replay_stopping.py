"""The offline replay of stopping rules (benchmarks/replay_stopping.py) on a few of Traini et
al.'s recorded benchmarks: what each rule ran and measured is consistent with its definition.
Skips when ``../shared/data`` is absent."""

from __future__ import annotations

import importlib.util
import io
import sys
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest

from rigorbench.stats.stopping import auto_warmup

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "replay_stopping.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("replay_stopping", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["replay_stopping"] = module  # worker processes find their function by module name
    spec.loader.exec_module(module)
    return module


replay = _load_script()
# a steady benchmark, one whose forks settle at different points, one our pilot flags
PICKS = ("case3&numberOfSignificantValueDigits=3", "SyncedPositionablesBenchmark.benchmark6",
         "testDijkstraComplete")
NAMES = [n for n in replay.names() if any(p in n for p in PICKS)] if replay.DATA.is_dir() else []

pytestmark = [
    pytest.mark.shared_data,
    pytest.mark.skipif(len(NAMES) != len(PICKS), reason="../shared/data/steady-state-dev is absent"),
]


@pytest.fixture(scope="module")
def results():
    return [replay.replay_benchmark((name, i)) for i, name in enumerate(NAMES)]


def test_time_saved_and_errors_are_proportions_and_jmh_matches_its_arithmetic(results):
    full = replay.FULL_FORKS * replay.FULL_ITERATIONS
    for r in results:
        assert set(r["rules"]) == set(replay.RULES)
        for rule, x in r["rules"].items():
            assert 0 <= x["saved"] <= 1, rule
            assert 0 <= x["error"] < 1 and 0 <= x["in_warmup"] <= 1, rule
        jmh = r["rules"]["jmh-defaults"]
        assert jmh["saved"] == pytest.approx(1 - 5 * (500 + 500) / full)
        series, starts = replay.load(r["name"])
        steady = np.concatenate([series[f, s:] for f, s in enumerate(starts) if s >= 0])
        assert r["reference"] == pytest.approx(steady.mean())
        estimate = series[:5, 500:1000].mean()
        assert jmh["error"] == pytest.approx(abs(estimate - steady.mean()) / steady.mean())
        oracle = r["rules"]["oracle-warmup"]["forks"]
        assert [f[2] for f in oracle] == [min(s, 2500) if s >= 0 else 2500 for s in starts[:5]]
        assert r["rules"]["oracle-warmup"]["in_warmup"] == pytest.approx(sum(s < 0 for s in starts[:5]) / 5)


def test_ours_never_measures_before_its_chosen_warmup(results):
    for r in results:
        series, _ = replay.load(r["name"])
        pilot = replay.PILOT_WARMUP + replay.MEASUREMENT
        seed = np.random.SeedSequence([replay.SEED, NAMES.index(r["name"])]).spawn(len(replay.RULES))[4]
        choice = auto_warmup(series[0, :pilot], seed=seed)
        ours = r["rules"]["ours"]
        assert ours["flagged"] == (not choice.reached)
        (fork0, run0, from0, to0), *later = ours["forks"]
        assert (fork0, run0, to0) == (0, pilot, pilot) and from0 >= max(replay.PILOT_WARMUP, choice.iterations)
        assert [f[0] for f in later] == [1, 2, 3, 4]
        for _, run, start, stop in later:
            assert start == choice.iterations and stop - start == replay.MEASUREMENT and run == stop
    assert any(r["rules"]["ours"]["flagged"] for r in results)  # jgrapht's Dijkstra pilot settles only at 1428 of 1500


def test_laaber_rules_stay_inside_the_prototypes_bounds(results):
    for r in results:
        for rule in ("laaber-cov", "laaber-rciw", "laaber-kld"):
            forks = r["rules"][rule]["forks"]
            assert 2 <= len(forks) <= 5 and [f[0] for f in forks] == list(range(len(forks)))
            for _, run, start, stop in forks:
                assert start % 10 == 0 and 50 <= start <= 500
                assert stop - start == 500 and run == stop


def test_main_prints_one_row_per_rule_and_names_the_wrong_answers():
    out = io.StringIO()
    with redirect_stdout(out):
        assert replay.main(["--jobs", "1", "benchmark6"]) == 0
    text = out.getvalue()
    for rule in replay.RULES:
        assert f"| {rule} |" in text
    # the benchmark slows down by a quarter at iteration ~640: JMH's defaults measure before it
    assert "jmh-defaults: wrong answers: imglib2#SyncedPositionablesBenchmark.benchmark6" in text
