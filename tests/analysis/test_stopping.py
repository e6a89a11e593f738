"""The adaptive experiment's stopping rule: its design, its looks, and its A/A error rate."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy.special import stdtr

from rigorbench.analysis.compare import compare_datasets
from rigorbench.analysis.dataset import Dataset
from rigorbench.analysis.stopping import Retirement, UntilDecided, look
from rigorbench.analysis.settings import Settings
from rigorbench.errors import UserError
from rigorbench.model import BenchmarkCase, Metric, SampleTable
from rigorbench.stats.group_sequential import looks_between, per_look_confidence

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from aa_simulation import Trial, simulate_aa  # noqa: E402

TIME = Metric("time", "ns/op", higher_is_better=False, primary=True)


def _table(rng, trials: int, scale: float, sd_trial: float = 0.02) -> SampleTable:
    rows = []
    for t in range(trials):
        level = scale * rng.lognormal(0, sd_trial)
        for f in range(2):
            rows += [(t, f, i, level * rng.lognormal(0, 0.01)) for i in range(5)]
    trial, fork, iteration, value = map(np.asarray, zip(*rows))
    return SampleTable.build(value, trial=trial, fork=fork, iteration=iteration)


def _datasets(rng, trials: int, changes: dict[str, float]) -> tuple[Dataset, Dataset]:
    base, cont = {}, {}
    for name, change in changes.items():
        case = BenchmarkCase("jmh", name)
        base[(case, TIME)] = _table(rng, trials, 100.0)
        cont[(case, TIME)] = _table(rng, trials, 100.0 * (1 + change))
    return Dataset("a", base, origin="store"), Dataset("b", cont, origin="store")


def test_a_look_retires_decided_benchmarks_and_keeps_the_rest_open():
    rng = np.random.default_rng(3)
    design = UntilDecided(3, 10, analysis=Settings(threshold=0.1, resamples=2000))
    base, cont = _datasets(rng, 6, {"p.Big.slower": 0.5, "p.Same.same": 0.0, "p.Edge.edge": 0.1})
    result = compare_datasets(base, cont, design.look_settings)
    decided = look(result, ("p.Big.slower", "p.Same.same", "p.Edge.edge"), 6)
    assert decided["p.Big.slower"] == Retirement("slower", 6)
    assert decided["p.Same.same"] == Retirement("unchanged", 6)
    assert "p.Edge.edge" not in decided      # a change at the threshold is neither
    # only benchmarks still open are decided
    assert set(look(result, ("p.Same.same",), 6)) == {"p.Same.same"}


def test_a_benchmark_that_measured_nothing_in_a_version_is_retired_as_failed():
    rng = np.random.default_rng(5)
    base, cont = _datasets(rng, 3, {"p.Big.slower": 0.5, "p.Broken.crash": 0.0})
    cont = Dataset("b", {k: v for k, v in cont.series.items() if k[0].name != "p.Broken.crash"}, origin="store")
    result = compare_datasets(base, cont, Settings(resamples=500))
    decided = look(result, ("p.Big.slower", "p.Broken.crash"), 3)
    assert decided["p.Broken.crash"] == Retirement("failed", 3)      # not run again until the budget
    assert decided["p.Big.slower"].verdict == "slower"


def test_sub_benchmarks_are_decided_for_the_benchmark_the_harness_lists():
    # Go lists BenchmarkJoin; its results are BenchmarkJoin/concat and BenchmarkJoin/builder.
    rng = np.random.default_rng(6)
    base, cont = _datasets(rng, 4, {"BenchmarkJoin/concat": 0.8, "BenchmarkJoin/builder": 0.6, "BenchmarkItoa": 0.0})
    result = compare_datasets(base, cont, Settings(threshold=0.1, resamples=1000))
    decided = look(result, ("BenchmarkJoin", "BenchmarkItoa"), 4)
    assert decided == {"BenchmarkJoin": Retirement("slower", 4), "BenchmarkItoa": Retirement("unchanged", 4)}


def test_too_few_trials_decide_nothing():
    rng = np.random.default_rng(4)
    base, cont = _datasets(rng, 2, {"p.Big.slower": 0.5})
    result = compare_datasets(base, cont, Settings(resamples=500))
    assert look(result, ("p.Big.slower",), 2) == {}


def test_design_round_trips_through_the_store_settings_and_names_its_level():
    design = UntilDecided(3, 12, 600.0, Settings(confidence=0.95, threshold=0.02), {"x": Retirement("faster", 5)}, {"x": 1, "y": 2})
    again = UntilDecided.from_dict(design.as_dict())
    assert again == design
    assert design.per_look == pytest.approx(per_look_confidence(0.95, looks_between(3, 12)))
    assert design.look_settings.confidence == design.per_look and design.look_settings.threshold == 0.02
    assert design.look_settings.interval == "t"
    assert "Pocock" in design.describe() and "3 to 12 trials" in design.describe()


@pytest.mark.parametrize("kwargs, message", [
    ({"min_trials": 2}, "--min-trials must be at least 3"),
    ({"min_trials": 5, "max_trials": 4}, "--max-trials (4) must be at least --min-trials (5)"),
    ({"max_seconds": 0}, "--max-time must be positive"),
    ({"analysis": Settings(test="wilcoxon")}, "needs the bootstrap rule"),
])
def test_bad_designs_are_refused(kwargs, message):
    with pytest.raises(UserError, match=message.replace("(", r"\(").replace(")", r"\)")):
        UntilDecided(**kwargs)


def _trial_dominated(rng, count: int, sd_trial: float) -> list[Trial]:
    trials = []
    for _ in range(count):
        level = rng.lognormal(0, sd_trial)
        values = np.concatenate([level * rng.lognormal(0, 0.01) * rng.lognormal(0, 0.005, 5) for _ in range(2)])
        trials.append(Trial(values, np.repeat([0, 1], 5)))
    return trials


@pytest.mark.slow   # an A/A simulation of many experiments (tens of seconds)
def test_aa_false_verdicts_of_the_sequential_rule_stay_within_the_fixed_designs():
    """Synthetic A/A with trial-dominated variance (the hard case for few trials), decided
    with the real bootstrap: the sequential rule's false slower/faster rate stays with the
    fixed 10-trial design's, and looking after every trial at 99% (naive) does worse."""
    rng = np.random.default_rng(11)
    result = simulate_aa(_trial_dominated(rng, 40, 0.04), experiments=200, max_trials=10, seed=7)
    fixed, sequential, naive = (result.false[d] for d in ("fixed", "sequential", "naive"))
    print(result.false, result.wilson("sequential"), result.trials_used)
    assert sequential <= fixed + 3
    assert naive >= sequential
    assert result.wilson("sequential")[0] <= 0.01


def _welch_p(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two-sided Welch p-values of trial means, row by row."""
    k = a.shape[1]
    va, vb = a.var(axis=1, ddof=1) / k, b.var(axis=1, ddof=1) / k
    se2 = va + vb
    df = se2 * se2 / ((va * va + vb * vb) / (k - 1))
    return 2 * stdtr(df, -np.abs(a.mean(axis=1) - b.mean(axis=1)) / np.sqrt(se2))


@pytest.mark.slow   # an A/A simulation of many experiments (tens of seconds)
@pytest.mark.parametrize("first, last", [(3, 10), (3, 20), (5, 12)])
def test_per_look_level_holds_the_overall_rate_for_trial_means(first, last):
    """200,000 A/A experiments of lognormal trial means (a Welch t-test at every look, which
    the ``t`` interval reproduces): any-look false rate at the per-look level is the overall
    1%, where looking at 99% every time is three to five times that."""
    rng = np.random.default_rng(first * 100 + last)
    a, b = rng.lognormal(0, 0.04, (2, 200_000, last))
    level = per_look_confidence(0.99, looks_between(first, last))
    sequential = np.zeros(len(a), dtype=bool)
    naive = np.zeros(len(a), dtype=bool)
    for k in looks_between(first, last):
        p = _welch_p(np.log(a[:, :k]), np.log(b[:, :k]))
        sequential |= p < 1 - level
        naive |= p < 0.01
    assert sequential.mean() == pytest.approx(0.01, abs=0.0015)
    assert naive.mean() > 2.5 * sequential.mean()


@pytest.mark.slow   # an A/A simulation of many experiments (tens of seconds)
def test_aa_on_the_examples_real_trials_stays_within_the_fixed_design(tmp_path):
    """40 real trials of examples/jmh-demo v1 (a shared 2-core machine, tests/testdata/stores/
    aa-demo.db.gz): A/A experiments drawn from them, for every case of the example."""
    import gzip
    import shutil
    from pathlib import Path

    from rigorbench.analysis.dataset import iteration_observations
    from aa_simulation import trials_from_levels
    from rigorbench.store import ResultStore

    db = tmp_path / "aa.db"
    with gzip.open(Path(__file__).resolve().parents[1] / "testdata" / "stores" / "aa-demo.db.gz", "rb") as source, open(db, "wb") as target:
        shutil.copyfileobj(source, target)
    pools: dict[str, list[Trial]] = {}
    with ResultStore.open(db, create=False) as store:
        for label in ("A", "B"):
            for series in store.load_series(1, label):
                if series.metric.primary:
                    obs = iteration_observations(series.samples)
                    pools.setdefault(series.case.display_name, []).extend(trials_from_levels(obs.values, obs.levels))
    assert len(pools) == 4 and all(len(trials) == 40 for trials in pools.values())
    false = {"sequential": 0, "fixed": 0, "naive": 0}
    for i, trials in enumerate(pools.values()):
        result = simulate_aa(trials, experiments=15, max_trials=10, seed=i)
        for design in false:
            false[design] += result.false[design]
    print(false)
    assert false["sequential"] <= false["fixed"] + 2      # of 60 experiments (benchmarks/stopping_aa.py runs more)
    assert false["naive"] >= false["sequential"]


@pytest.mark.slow   # an A/A simulation of many experiments (tens of seconds)
def test_futility_gives_up_what_cannot_be_decided_and_keeps_what_can():
    """Synthetic trials with trial-dominated noise (8% per trial), decided with the real
    bootstrap. A/A at a 0% threshold (no verdict but a false one is possible): futility stops
    after about the first looks instead of running to trial 20, and adds no false verdict. A
    planted +20% change at a 5% threshold: futility keeps nearly every verdict the sequential
    rule reaches (the futility level is 10%: it may give up a few of them), still sooner."""
    rng = np.random.default_rng(21)
    pool = _trial_dominated(rng, 40, 0.08)
    aa = simulate_aa(pool, experiments=60, threshold=0.0, seed=3, resamples=1000)
    print(aa.verdicts, aa.trials_used)
    assert aa.false["curtailed"] <= aa.false["sequential"]
    assert aa.trials_used["curtailed"] < 0.5 * aa.trials_used["sequential"]
    planted = simulate_aa(pool, experiments=60, threshold=0.05, change=0.20, seed=4, resamples=1000)
    print(planted.verdicts, planted.trials_used)
    found = {d: planted.verdicts[d].get("slower", 0) for d in ("sequential", "curtailed")}
    assert found["sequential"] >= 40                       # the change is there to be found
    assert found["curtailed"] >= found["sequential"] - 6   # at most a tenth of them given up
    assert planted.false["curtailed"] == planted.false["sequential"] == 0
    assert planted.trials_used["curtailed"] <= planted.trials_used["sequential"]


def test_a_look_with_futility_gives_up_a_hopeless_case_and_only_that():
    rng = np.random.default_rng(8)
    design = UntilDecided(3, 6, analysis=Settings(threshold=0.001, resamples=2000))
    base, cont = _datasets(rng, 5, {"p.Big.slower": 0.5, "p.Same.same": 0.0})
    result = compare_datasets(base, cont, design.look_settings)
    # "unchanged" within 0.1% is out of reach in one more trial, and the estimate is near 0
    decided = look(result, ("p.Big.slower", "p.Same.same"), 5, design)
    assert decided["p.Big.slower"] == Retirement("slower", 5)
    gave_up = decided["p.Same.same"]
    assert gave_up.verdict == "inconclusive" and gave_up.trials == 5 and 0 <= gave_up.chance < design.futility
    # without futility, or without the design, it stays open; at the budget it is never given up
    assert "p.Same.same" not in look(result, ("p.Same.same",), 5, replace(design, futility=0.0))
    assert "p.Same.same" not in look(result, ("p.Same.same",), 5)
    assert "p.Same.same" not in look(result, ("p.Same.same",), 6, design)
    again = UntilDecided.from_dict(replace(design, retired=decided).as_dict())
    assert again.retired["p.Same.same"] == gave_up and again.futility == design.futility
    # a run stored before futility existed resumes without it
    old = {k: v for k, v in design.as_dict().items() if k != "futility"}
    assert UntilDecided.from_dict(old).futility == 0.0


def test_the_next_look_is_estimated_from_the_time_per_trial_not_the_first_look_s_whole_time():
    """A first look of 3 trials that took 105 s: the next look adds one trial, about 35 s (the
    whole 105 s made --max-time 3m stop the demo after its first look)."""
    from rigorbench.experiment.driver import next_look_seconds
    from rigorbench.store import Execution

    first = [Execution(t, label, 2 * t + i) for t in range(3) for i, label in enumerate(("v1", "v2"))]
    assert next_look_seconds(105.0, first, 1) == pytest.approx(35.0)
    assert next_look_seconds(105.0, first, 2) == pytest.approx(70.0), "a look of two trials (a cluster's parallelism)"
    assert next_look_seconds(30.0, first[4:], 1) == pytest.approx(30.0)
    assert next_look_seconds(0.0, [], 1) == 0.0
    rule = UntilDecided(min_trials=3, max_trials=20, max_seconds=180.0)
    assert rule._stop_reason(("A",), 3, 105.0, next_look_seconds(105.0, first, rule.step)) is None
    assert "would pass --max-time" in rule._stop_reason(("A",), 3, 105.0, 105.0)
