"""Which design reaches a target (analysis/designs.py): the projection of trials against
simulated experiments with a known change, and ``power --contender`` on a stored run."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from rigorbench.analysis.compare import compare_datasets
from rigorbench.analysis.dataset import Dataset
from rigorbench.analysis.designs import PAIRED, UNPAIRED, DesignData, design_advice
from rigorbench.analysis.settings import Settings
from rigorbench.cli import main
from rigorbench.model import BenchmarkCase, Metric, SampleTable
from tests.analysis.stored_runs import store_run

CASE, METRIC = BenchmarkCase("jmh", "demo.Bench.sum"), Metric("time", "ns/op", False, True)
FORKS, ITERATIONS = 2, 5
SETTINGS = Settings(resamples=1000)
SHARED, OWN = 0.05, 0.02     # trial effects: shared by both versions of a trial, and each version's own


def _table(effects: np.ndarray, scale: float, rng: np.random.Generator) -> SampleTable:
    grid = np.indices((effects.size, FORKS, ITERATIONS)).reshape(3, -1)
    values = scale * effects[grid[0]] * rng.lognormal(0, 0.01, grid[0].size)
    return SampleTable.build(values, trial=grid[0], fork=grid[1], iteration=grid[2])


def _run(trials: int, change: float, seed: int) -> tuple[Dataset, Dataset]:
    """An RMIT run: each trial's machine state hits both versions (SHARED), each version also
    varies on its own (OWN); the contender is ``change`` slower."""
    rng = np.random.default_rng(seed)
    shared = rng.lognormal(0, SHARED, trials)
    base = _table(shared * rng.lognormal(0, OWN, trials), 100.0, rng)
    cont = _table(shared * rng.lognormal(0, OWN, trials), 100.0 * (1 + change), rng)
    return (Dataset("v1", {(CASE, METRIC): base}, origin="store", matched="run 1"),
            Dataset("v2", {(CASE, METRIC): cont}, origin="store", matched="run 1"))


def _detection_rate(trials: int, change: float, paired: bool, experiments: int) -> float:
    called = 0
    for seed in range(experiments):
        base, cont = _run(trials, change, 1000 + seed)
        settings = Settings(resamples=1000, paired=paired, seed=seed + 1)
        (c,) = compare_datasets(base, cont, settings).comparisons
        called += c.verdict.value == "slower"
    return called / experiments


def test_the_projected_trials_call_the_target_in_most_experiments_and_half_of_them_do_not():
    """Known truth: one trial's paired log ratio varies by sqrt(2) x 2% (each version's own
    trial effect; the 5% shared one cancels), so a 6% change needs 9 trials by power's
    criterion (t(0.995, n-1) + z(0.95)) x sd / sqrt(n) <= 6% - 1% (the threshold). A long pilot
    run (30 trials, its spread known well) projects about that; simulated experiments of the projected trials with a
    real 6% change call it slower in about 95% of cases (>= 85% of 40), half as many trials
    clearly less often; unpaired, the shared effect counts, and it needs twice as many or more."""
    target = 0.06
    pilot = _run(30, 0.0, seed=7)
    advice = design_advice([DesignData(PAIRED, *pilot, 30.0)], SETTINGS, target)
    (bench,) = advice.benchmarks
    figures = {f.design: f for f in bench.figures}
    paired = figures[PAIRED].needed
    assert paired is not None and 8 <= paired <= 12, figures
    assert figures[UNPAIRED].needed >= 2 * paired, figures
    assert _detection_rate(paired, target, True, 40) >= 0.85
    assert _detection_rate(max(3, paired // 2), target, True, 40) <= 0.75


def test_short_pilots_project_around_the_truth():
    """Six-trial pilots estimate the spread from 5 degrees of freedom: their projections
    scatter, but around the truth (9 trials, above): the median of 15 within 6 to 12."""
    needed = []
    for seed in range(15):
        advice = design_advice([DesignData(PAIRED, *_run(6, 0.0, seed=50 + seed), 30.0)], SETTINGS, 0.06)
        needed.append({f.design: f.needed for f in advice.benchmarks[0].figures}[PAIRED])
    assert None not in needed and 6 <= float(np.median(needed)) <= 12, needed


def test_the_projection_is_the_smallest_size_that_meets_the_criterion_paired_or_not():
    """units_for_target (power's extrapolation) with the pairs' expansion: n - 1 degrees of
    freedom paired, two versions of n unpaired; the target clears the threshold by the half
    width plus 1.645 standard errors at the size returned, not one below."""
    from scipy.special import ndtri

    from rigorbench.stats.bootstrap import expansion_factor
    from rigorbench.stats.power import units_for_target

    z = float(ndtri(0.995))
    for paired in (True, False):
        def factor(n: int) -> float:
            return expansion_factor(0.99, (n,) if paired else (n, n))

        se6 = 0.05 / (z * factor(6))

        def clears(n: int) -> bool:
            return (z * factor(n) + 1.6448536) * se6 * np.sqrt(6 / n) <= 0.10 - 0.01

        n = units_for_target(0.05, 6, 0.10, 0.01, 0.99, paired=paired)
        assert clears(n) and not clears(n - 1), (paired, n)
    assert units_for_target(0.05, 6, 0.005, 0.01, 0.99) is None, "a target under the threshold is never called"
    assert units_for_target(float("nan"), 6, 0.1, 0.01, 0.99) is None


def test_power_contender_on_a_stored_run_recommends_a_design(tmp_path):
    path = tmp_path / "results.db"
    store_run(path, _run(5, 0.08, seed=3), "rmit", wall_seconds=100.0)
    out, err = io.StringIO(), io.StringIO()
    code = main(["power", "--store", str(path), "--version", "v1", "--contender", "v2", "--target", "10%"], out, err)
    assert code == 0, err.getvalue()
    text = out.getvalue()
    assert "rmit paired" in text and "rmit unpaired" in text and "recommended: rmit" in text
    assert "duet: not measured" in text
    out = io.StringIO()
    assert main(["power", "--store", str(path), "--version", "v1", "--contender", "v2", "--format", "json"], out, err) == 0
    document = json.loads(out.getvalue())
    assert document["target_pct"] == 5 and document["recommended"] in ("rmit paired", "rmit unpaired")
    (bench,) = document["benchmarks"]
    assert set(bench["designs"]) == {"rmit paired", "rmit unpaired"}
    assert all(d["trials"] == 5 and d["detects_pct"] > 0 for d in bench["designs"].values())
    rmit = {d["design"]: d for d in document["designs"]}
    assert rmit["rmit paired"]["trial_seconds"] == pytest.approx(20.0), "the run's wall time over its trials"
    # a duet run of the two versions, as noisy but a trial in a tenth of the time: measured and chosen
    store_run(path, _run(5, 0.08, seed=4), "duet", wall_seconds=10.0)
    out = io.StringIO()
    assert main(["power", "--store", str(path), "--version", "v1", "--contender", "v2", "--format", "json"], out, err) == 0
    document = json.loads(out.getvalue())
    assert {d["design"] for d in document["designs"]} == {"rmit paired", "rmit unpaired", "duet"}
    assert document["recommended"] == "duet"
    (bench,) = document["benchmarks"]
    assert bench["designs"]["duet"]["trials_for_target"] is not None


def test_power_contender_needs_a_stored_pair_of_versions(tmp_path):
    err = io.StringIO()
    assert main(["power", "some.json", "--contender", "v2"], io.StringIO(), err) == 2
    assert "--contender goes with --store and --version" in err.getvalue()
