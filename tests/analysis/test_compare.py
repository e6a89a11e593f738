"""Comparison of two datasets built from synthetic hierarchical data with a known truth."""

from __future__ import annotations

import numpy as np
import pytest

from rigorbench.analysis.compare import compare_datasets
from rigorbench.analysis.dataset import dataset_from_files, iteration_observations
from rigorbench.analysis.settings import Settings
from rigorbench.errors import UserError
from rigorbench.model import BenchmarkCase, Metric, ResultFile, SampleTable, Series
from rigorbench.stats import Verdict

TIME = Metric("time", "ns/op", higher_is_better=False, primary=True)
THRPT = Metric("throughput", "ops/ms", higher_is_better=True, primary=True)
ALLOC = Metric("alloc", "B/op", higher_is_better=False)
FAST = Settings(resamples=2000)


def trial_table(rng, mean, *, forks=3, iterations=10, noise=0.01, fork_noise=0.005) -> SampleTable:
    """One trial: forks with their own offset, iterations with noise around it."""
    values, fork_codes = [], []
    for fork in range(forks):
        offset = mean * (1 + rng.normal(0, fork_noise))
        values.extend(offset * (1 + rng.normal(0, noise, iterations)))
        fork_codes.extend([fork] * iterations)
    return SampleTable.build(values, fork=fork_codes, iteration=np.tile(np.arange(iterations), forks))


def result_files(rng, cases: dict, trials=3, **kw) -> list[ResultFile]:
    """``cases`` maps (name, metric) to a mean; one ResultFile per trial."""
    files = []
    for t in range(trials):
        series = tuple(
            Series(BenchmarkCase("jmh", name), metric, trial_table(rng, mean, **kw))
            for (name, metric), mean in cases.items()
        )
        files.append(ResultFile(f"trial{t}.json", "jmh-json", series))
    return files


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def test_planted_changes_get_the_right_verdicts_in_both_directions(rng):
    base = dataset_from_files(result_files(rng, {
        ("b.Slow", TIME): 100.0, ("b.Fast", TIME): 100.0, ("b.Same", TIME): 100.0,
        ("b.ThrptDown", THRPT): 1000.0, ("b.ThrptUp", THRPT): 1000.0,
    }, trials=10), "v1")
    cont = dataset_from_files(result_files(rng, {
        ("b.Slow", TIME): 120.0, ("b.Fast", TIME): 75.0, ("b.Same", TIME): 100.0,
        ("b.ThrptDown", THRPT): 800.0, ("b.ThrptUp", THRPT): 1300.0,
    }, trials=10), "v2")
    report = compare_datasets(base, cont, FAST)
    verdicts = {c.case.name: c.verdict for c in report.comparisons}
    assert verdicts == {
        "b.Slow": Verdict.SLOWER,
        "b.Fast": Verdict.FASTER,
        "b.Same": Verdict.UNCHANGED,
        "b.ThrptDown": Verdict.SLOWER,
        "b.ThrptUp": Verdict.FASTER,
    }
    slow = next(c for c in report.comparisons if c.case.name == "b.Slow")
    assert slow.ratio.low < 1.2 < slow.ratio.high or abs(slow.ratio.estimate - 1.2) < 0.02
    assert slow.cliffs_delta == pytest.approx(1.0)
    assert slow.baseline.trials == 10 and slow.baseline.forks == 30
    assert report.fails("regression") and report.fails("change") and not report.fails("never")


def test_only_improvements_fail_on_change_but_not_on_regression(rng):
    base = dataset_from_files(result_files(rng, {("b.Fast", TIME): 100.0}), "v1")
    cont = dataset_from_files(result_files(rng, {("b.Fast", TIME): 70.0}), "v2")
    report = compare_datasets(base, cont, FAST)
    assert [c.verdict for c in report.comparisons] == [Verdict.FASTER]
    assert not report.fails("regression")
    assert report.fails("change")


def test_noisy_small_samples_are_inconclusive_not_a_verdict(rng):
    base = dataset_from_files(result_files(rng, {("b.X", TIME): 100.0}, trials=1, forks=2, iterations=3, noise=0.2), "v1")
    cont = dataset_from_files(result_files(rng, {("b.X", TIME): 103.0}, trials=1, forks=2, iterations=3, noise=0.2), "v2")
    report = compare_datasets(base, cont, FAST)
    assert report.comparisons[0].verdict == Verdict.INCONCLUSIVE
    codes = {w.code for w in report.comparisons[0].warnings}
    assert "few_samples" not in codes  # 6 values per side is the limit, not below it


def test_benchmarks_on_one_side_only_are_listed(rng):
    base = dataset_from_files(result_files(rng, {("b.A", TIME): 10.0, ("b.Gone", TIME): 5.0}), "v1")
    cont = dataset_from_files(result_files(rng, {("b.A", TIME): 10.0, ("b.New", TIME): 5.0}), "v2")
    report = compare_datasets(base, cont, FAST)
    assert [c.case.name for c in report.comparisons] == ["b.A"]
    assert [case.name for case, _ in report.only_in_baseline] == ["b.Gone"]
    assert [case.name for case, _ in report.only_in_contender] == ["b.New"]


def test_metric_selection_primary_all_and_by_name(rng):
    cases = {("b.A", TIME): 10.0, ("b.A", ALLOC): 24.0}
    base = dataset_from_files(result_files(rng, cases), "v1")
    cont = dataset_from_files(result_files(rng, cases), "v2")
    names = lambda s: sorted(c.metric.name for c in compare_datasets(base, cont, s).comparisons)  # noqa: E731
    assert names(FAST) == ["time"]
    assert names(Settings(resamples=2000, metric="all")) == ["alloc", "time"]
    assert names(Settings(resamples=2000, metric="alloc")) == ["alloc"]


def test_wilcoxon_rule_reproduces_the_papers_decision(rng):
    base = dataset_from_files(result_files(rng, {("b.S", TIME): 100.0, ("b.Same", TIME): 100.0}), "v1")
    cont = dataset_from_files(result_files(rng, {("b.S", TIME): 110.0, ("b.Same", TIME): 100.0}), "v2")
    report = compare_datasets(base, cont, Settings(resamples=2000, test="wilcoxon", alpha=0.01))
    verdicts = {c.case.name: c.verdict for c in report.comparisons}
    assert verdicts == {"b.S": Verdict.SLOWER, "b.Same": Verdict.UNCHANGED}


def test_same_input_and_seed_give_identical_results(rng):
    files_a = result_files(rng, {("b.A", TIME): 10.0})
    files_b = result_files(rng, {("b.A", TIME): 10.3})
    first = compare_datasets(dataset_from_files(files_a, "a"), dataset_from_files(files_b, "b"), FAST)
    again = compare_datasets(dataset_from_files(files_a, "a"), dataset_from_files(files_b, "b"), FAST)
    other = compare_datasets(dataset_from_files(files_a, "a"), dataset_from_files(files_b, "b"), Settings(resamples=2000, seed=1))
    assert first.comparisons == again.comparisons
    assert first.comparisons[0].ratio.low != other.comparisons[0].ratio.low


def test_files_become_consecutive_trials():
    table = SampleTable.build([1.0, 2.0], fork=[0, 1])
    files = [ResultFile(f"t{i}", "jmh-json", (Series(BenchmarkCase("jmh", "b.A"), TIME, table),)) for i in range(3)]
    merged = dataset_from_files(files, "v").series[(BenchmarkCase("jmh", "b.A"), TIME)]
    assert merged.trial.tolist() == [0, 0, 1, 1, 2, 2]
    assert merged.fork.tolist() == [0, 1] * 3


def test_a_file_holding_several_versions_is_refused():
    table = SampleTable.build([1.0])
    series = tuple(Series(BenchmarkCase("jmh", "b.A"), TIME, table, version=v) for v in ("abc", "def"))
    with pytest.raises(UserError, match="2 versions"):
        dataset_from_files([ResultFile("runs.csv", "pa-csv", series)], "x")


def test_histogram_rows_collapse_to_iteration_means_and_warmup_is_left_out():
    table = SampleTable.build(
        [10.0, 20.0, 30.0, 99.0],
        iteration=[0, 0, 1, 2],
        count=[3, 1, 2, 1],
        warmup=[False, False, False, True],
    )
    obs = iteration_observations(table)
    assert sorted(obs.values.tolist()) == [12.5, 30.0]


def test_values_ten_times_the_median_are_removed_and_reported(rng):
    values = np.concatenate([rng.normal(100, 1, 30), [5000.0]])
    obs = iteration_observations(SampleTable.build(values))
    assert obs.removed_outliers == 1 and len(obs.values) == 30
    base = dataset_from_files([ResultFile("a", "jmh-json", (Series(BenchmarkCase("jmh", "b.A"), TIME, SampleTable.build(values)),))], "a")
    others = rng.normal(100, 1, 31)
    contender = dataset_from_files([ResultFile("b", "jmh-json", (Series(BenchmarkCase("jmh", "b.A"), TIME, SampleTable.build(others)),))], "b")
    report = compare_datasets(base, contender, FAST)
    assert any(w.code == "outliers_removed" and "1 of 31" in w.message for w in report.comparisons[0].warnings)


def _small_shift(shift: float):
    rng = np.random.default_rng(7)
    base = dataset_from_files(result_files(rng, {("b.X", TIME): 100.0}, trials=10, noise=0.01, fork_noise=0.001), "v1")
    cont = dataset_from_files(result_files(rng, {("b.X", TIME): 100.0 * shift}, trials=10, noise=0.01, fork_noise=0.001), "v2")
    return base, cont


@pytest.mark.parametrize("shift, test, verdict, says", [
    (1.003, "bootstrap", Verdict.UNCHANGED, "p <= 0.01 but unchanged: the verdict follows the 99% interval of the ratio, "
                                            "which lies within +-1%"),
    (1.008, "bootstrap", Verdict.INCONCLUSIVE, "p <= 0.01 but inconclusive: the verdict follows the 99% interval of the ratio"),
    (1.003, "wilcoxon", Verdict.UNCHANGED, "p <= 0.01 but unchanged: --test wilcoxon also needs |Cliff's delta| >= 0.33"),
])
def test_a_p_that_seems_to_contradict_the_verdict_is_explained(shift, test, verdict, says):
    # 300 values a side: the rank test sees a 0.3-0.8% shift the interval rule calls too small
    # (or not yet decided), and the papers' rule a shift below a medium effect.
    c = compare_datasets(*_small_shift(shift), Settings(resamples=2000, test=test)).comparisons[0]
    assert c.verdict == verdict and c.p_value <= 0.01
    notes = [w for w in c.warnings if w.code == "p_disagrees"]
    assert len(notes) == 1 and notes[0].message.startswith(says) and notes[0].severity == "info"


def test_p_and_verdict_that_agree_have_no_note(rng):
    base = dataset_from_files(result_files(rng, {("b.Slow", TIME): 100.0, ("b.Same", TIME): 100.0}, trials=10), "v1")
    cont = dataset_from_files(result_files(rng, {("b.Slow", TIME): 120.0, ("b.Same", TIME): 100.0}, trials=10), "v2")
    report = compare_datasets(base, cont, FAST)
    slow = next(c for c in report.comparisons if c.case.name == "b.Slow")
    assert slow.verdict == Verdict.SLOWER and not any(w.code == "p_disagrees" for w in slow.warnings)


def test_a_decided_verdict_beside_a_p_above_alpha_is_explained():
    from rigorbench.analysis.agreement import p_disagreement

    note = p_disagreement(0.2, Verdict.SLOWER, Settings())
    assert note.message.startswith("p > 0.01 but slower: the verdict follows the 99% interval of the ratio, which excludes 1")
    assert p_disagreement(0.2, Verdict.INCONCLUSIVE, Settings()) is None
    assert p_disagreement(float("nan"), Verdict.UNCHANGED, Settings()) is None


def test_a_verdict_set_by_the_absolute_floor_says_so_beside_a_small_p():
    # 0.75 -> 0.50 B/op: p < 0.001, but below 1 B/op is not a change (JMH's accounting noise);
    # the note must not claim the interval lies within the threshold.
    from pathlib import Path

    from rigorbench.formats import read_result_file

    jmh = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
    sides = [dataset_from_files([read_result_file(jmh / f"{v}-trial1.json")], v) for v in ("v1", "v2")]
    report = compare_datasets(*sides, Settings(resamples=2000, metric="all"))
    alloc = next(c for c in report.comparisons if c.metric.name == "alloc" and c.case.name.endswith("countPrimes"))
    [note] = [w for w in alloc.warnings if w.code == "p_disagrees"]
    assert alloc.verdict == Verdict.UNCHANGED and alloc.p_value < 0.01
    assert note.message.startswith("p <= 0.01 but unchanged: a difference below 1 B/op is not a change of this metric")
