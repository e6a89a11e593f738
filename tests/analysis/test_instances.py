"""The report's by-instance numbers against numpy on hand-made tables, and the page's rows."""

from __future__ import annotations

import numpy as np
import pytest

from rigorbench.analysis.dataset import Dataset, iteration_observations, stored_instance_names
from rigorbench.analysis.instances import instance_means, instance_name, instance_rows
from rigorbench.analysis.report import build_page
from rigorbench.analysis.settings import Settings
from rigorbench.model import BenchmarkCase, Metric, SampleTable

TIME = Metric("time", "ns/op", False, True)
CASE = BenchmarkCase.of("jmh", "p.Bench.run")


def _table(instance_level: dict[int, float], trials_per_instance: int = 2, seed: int = 0) -> SampleTable:
    """Each instance runs ``trials_per_instance`` trials (numbered over the experiment, as
    --cluster does) of 2 forks x 5 iterations around its level, with one warmup iteration."""
    rng = np.random.default_rng(seed)
    columns = {name: [] for name in ("value", "instance", "trial", "fork", "iteration", "warmup")}
    trial = 0
    for instance, level in instance_level.items():
        for _ in range(trials_per_instance):
            for fork in range(2):
                for iteration in range(6):
                    warm = iteration == 0
                    columns["value"].append(level * (3.0 if warm else rng.uniform(0.95, 1.05)))
                    columns["instance"].append(instance)
                    columns["trial"].append(trial)
                    columns["fork"].append(fork)
                    columns["iteration"].append(iteration)
                    columns["warmup"].append(warm)
            trial += 1
    value = columns.pop("value")
    return SampleTable.build(value, **{k: np.array(v) for k, v in columns.items()})


def test_instance_means_are_the_trials_and_means_of_each_instance():
    table = _table({0: 100.0, 1: 130.0})
    obs = iteration_observations(table)
    found = instance_means(obs.values, obs.levels[0], obs.levels[1])
    measured = ~table.warmup
    for code in (0, 1):
        on = measured & (table.instance == code)
        assert found[code] == (2, pytest.approx(np.mean(table.value[on]), rel=1e-12))
    assert set(found) == {0, 1}


def test_rows_give_the_difference_from_the_version_mean_and_the_ratio_per_instance():
    base = {0: (2, 100.0), 1: (2, 140.0)}
    cont = {0: (2, 110.0), 1: (3, 140.0)}
    rows = instance_rows([(base, 120.0), (cont, 128.0)], ("box-a", "box-b"))
    assert [(r.instance, r.name) for r in rows] == [(0, "box-a"), (1, "box-b")]
    assert rows[0].cells[0].difference_pct == pytest.approx(100 / 120 * 100 - 100)
    assert rows[1].cells[1].trials == 3
    assert rows[1].cells[1].difference_pct == pytest.approx(140 / 128 * 100 - 100)
    assert rows[0].ratio == pytest.approx(1.1) and rows[1].ratio == pytest.approx(1.0)


def test_instance_based_rows_have_no_ratio_and_one_instance_has_no_table():
    rows = instance_rows([({0: (2, 100.0)}, 100.0), ({1: (2, 90.0)}, 90.0)])
    assert [r.name for r in rows] == ["instance 1", "instance 2"]
    assert rows[0].cells[1] is None and rows[1].cells[0] is None
    assert all(r.ratio is None for r in rows)
    assert instance_rows([({3: (4, 100.0)}, 100.0), ({3: (4, 90.0)}, 90.0)]) == ()


def test_names_come_from_the_run_settings_and_fall_back_to_numbers():
    assert instance_name(1, ("a", "b")) == "b" and instance_name(2, ("a", "b")) == "instance 3"
    assert stored_instance_names({"cluster": {"instance_names": ["x", "y"]}}) == ("x", "y")
    assert stored_instance_names({"run": {}}) == ()
    assert stored_instance_names({"cluster": "junk"}) == ()


def test_the_page_has_the_table_and_names_every_fork_with_its_instance():
    base = _table({0: 100.0, 1: 150.0}, seed=1)
    cont = _table({0: 105.0, 1: 150.0}, seed=2)
    names = ("box-a", "box-b")
    page = build_page([Dataset("v1", {(CASE, TIME): base}, instance_names=names),
                       Dataset("v2", {(CASE, TIME): cont}, instance_names=names)], Settings(resamples=200))
    case = page.cases[0]
    assert [r.name for r in case.instances] == ["box-a", "box-b"]
    for view, table in zip(case.versions, (base, cont)):
        measured = table.value[~table.warmup]
        assert view.analysis.mean.estimate == pytest.approx(measured.mean(), rel=1e-12)
        on_a = table.value[~table.warmup & (table.instance == 0)].mean()
        assert view.by_instance[0][1] == pytest.approx(on_a, rel=1e-12)
    first = case.versions[0].forks[0]
    assert first.instance == 0 and first.label == "trial 1 fork 1 on box-a"
    assert case.versions[1].forks[-1].label == "trial 4 fork 2 on box-b"
    assert case.instances[0].ratio == pytest.approx(case.versions[1].by_instance[0][1] / case.versions[0].by_instance[0][1])


def test_one_instance_keeps_the_page_as_it_was():
    table = _table({0: 100.0})
    page = build_page([Dataset("v1", {(CASE, TIME): table}, instance_names=("only",))], Settings(resamples=200))
    case = page.cases[0]
    assert case.instances == ()
    assert case.versions[0].forks[0].label == "trial 1 fork 1"
