"""Paired comparisons of matched trials and the detectable change of every comparison
(analysis/compare.py)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from rigorbench.analysis.compare import compare_datasets, detectable_change
from rigorbench.analysis.dataset import Dataset
from rigorbench.analysis.settings import Settings
from rigorbench.cli import main
from rigorbench.errors import UserError
from rigorbench.model import BenchmarkCase, Metric, SampleTable
from rigorbench.report.documents import render_json
from rigorbench.stats import ConfidenceInterval

CASE, METRIC = BenchmarkCase("jmh", "demo.Bench.sum"), Metric("time", "ns/op", False, True)
FORKS, ITERATIONS = 2, 10
SETTINGS = Settings(resamples=1000)


def _table(trial_effects: np.ndarray, scale: float, rng: np.random.Generator) -> SampleTable:
    trials = trial_effects.size
    grid = np.indices((trials, FORKS, ITERATIONS)).reshape(3, -1)
    values = scale * trial_effects[grid[0]] * rng.lognormal(0, 0.01, grid[0].size)
    return SampleTable.build(values, trial=grid[0], fork=grid[1], iteration=grid[2])


def _sides(trials: int = 6, drift: float = 0.2, seed: int = 1, matched: str = "store.db run 1",
           contender_trials: int | None = None) -> tuple[Dataset, Dataset]:
    """Two versions of one run whose trials share a large machine effect; the contender is 5% slower."""
    rng = np.random.default_rng(seed)
    effects = rng.lognormal(0, drift, trials)
    base = _table(effects, 100.0, rng)
    cont = _table(effects[: contender_trials or trials], 105.0, rng)
    return (Dataset("v1", {(CASE, METRIC): base}, origin="store", matched=matched),
            Dataset("v2", {(CASE, METRIC): cont}, origin="store", matched=matched))


def test_matched_trials_with_shared_drift_are_paired_and_decide():
    """The shared trial effect (20%) hides the 5% change unpaired; paired, it cancels."""
    base, cont = _sides()
    (paired,) = compare_datasets(base, cont, SETTINGS).comparisons
    (unpaired,) = compare_datasets(base, cont, Settings(resamples=1000, paired=False)).comparisons
    assert paired.paired and not unpaired.paired
    assert paired.verdict.value == "slower" and unpaired.verdict.value == "inconclusive"
    assert paired.mds_pct < 3 < 20 < unpaired.mds_pct
    document = json.loads(render_json(compare_datasets(base, cont, SETTINGS)))
    (obj,) = document["comparisons"]
    assert obj["paired"] is True and obj["mds_pct"] == pytest.approx(paired.mds_pct)


def test_versions_of_different_runs_or_files_are_not_paired():
    base, _ = _sides(matched="store.db run 1")
    _, cont = _sides(matched="store.db run 2")
    (c,) = compare_datasets(base, cont, SETTINGS).comparisons
    assert not c.paired
    base, cont = _sides(matched="")
    (c,) = compare_datasets(base, cont, SETTINGS).comparisons
    assert not c.paired and all(w.code != "unpaired" for w in c.warnings)


def test_a_trial_missing_on_one_side_falls_back_to_unpaired_and_says_so():
    base, cont = _sides(contender_trials=5)
    (c,) = compare_datasets(base, cont, SETTINGS).comparisons
    assert not c.paired
    (note,) = [w for w in c.warnings if w.code == "unpaired"]
    assert "the baseline has 6 trials and the contender 5" in note.message and note.severity == "info"


def test_required_pairing_of_unmatched_trials_is_refused():
    base, cont = _sides(contender_trials=5, matched="")
    with pytest.raises(UserError, match="--paired needs two or more matched trials"):
        compare_datasets(base, cont, Settings(resamples=1000, paired=True))


def test_required_pairing_pairs_even_where_unpaired_is_narrower():
    base, cont = _sides(drift=0.0, matched="")
    (c,) = compare_datasets(base, cont, Settings(resamples=1000, paired=True)).comparisons
    assert c.paired


@pytest.mark.parametrize("low, high, threshold, expected", [
    (1.0, 1.2, 0.01, 0.2),        # the upper distance is the larger: 1.2 / 1.0
    (1.0 / 1.3, 1.1, 0.01, 0.3),  # the lower one: 1.0 / (1 / 1.3)
    (0.99, 1.01, 0.05, 0.05),     # narrower than the threshold: the threshold
])
def test_detectable_change_is_the_larger_distance_or_the_threshold(low, high, threshold, expected):
    assert detectable_change(ConfidenceInterval(1.0, low, high, 0.99), threshold) == pytest.approx(expected)


def test_detectable_change_of_an_interval_reaching_zero_is_unknown():
    assert detectable_change(ConfidenceInterval(1.0, 0.0, 2.0, 0.99), 0.01) is None
    assert detectable_change(ConfidenceInterval(1.0, 0.5, float("inf"), 0.99), 0.01) is None


def test_compare_paired_on_files_in_trial_order_and_one_line_refusal(tmp_path):
    from pathlib import Path
    jmh = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
    out, err = io.StringIO(), io.StringIO()
    code = main(["compare", "--baseline", str(jmh / "v1-trial1.json"), str(jmh / "v1-trial2.json"),
                 "--contender", str(jmh / "v2-trial1.json"), str(jmh / "v2-trial2.json"),
                 "--paired", "--format", "json", "--resamples", "1000"], out, err)
    assert code == 0, err.getvalue()
    assert all(c["paired"] for c in json.loads(out.getvalue())["comparisons"])
    out, err = io.StringIO(), io.StringIO()
    code = main(["compare", "--baseline", str(jmh / "v1-trial1.json"), str(jmh / "v1-trial2.json"),
                 "--contender", str(jmh / "v2-trial1.json"), "--paired"], out, err)
    assert code == 2 and out.getvalue() == ""
    assert len(err.getvalue().splitlines()) == 1 and "--paired needs two or more matched trials" in err.getvalue()


@pytest.mark.parametrize("order, paired", [("rmit", True), ("duet", True), ("sequential", False)])
def test_stored_runs_pair_unless_sequential(tmp_path, order, paired):
    """The versions of a stored RMIT or duet run ran trial by trial together; a sequential
    run's did not."""
    from rigorbench.analysis.dataset import dataset_from_store
    from rigorbench.store import ResultStore
    from tests.analysis.stored_runs import store_run

    run_id = store_run(tmp_path / "r.db", _sides(), order)
    with ResultStore.open(tmp_path / "r.db") as store:
        sides = [dataset_from_store(store, run_id, label) for label in ("v1", "v2")]
    (c,) = compare_datasets(*sides, SETTINGS).comparisons
    assert c.paired is paired
