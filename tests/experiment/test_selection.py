"""Which benchmarks run when versions differ, and how long a run is estimated to take."""

from __future__ import annotations

import re

import pytest

from rigorbench.experiment.selection import cases, estimated_seconds, select_benchmarks
from rigorbench.harness.jmh import jmh_exact_includes
from rigorbench.harness.base import ListedBenchmark as B
from rigorbench.harness.base import RunSettings
from rigorbench.report.list import render_selection

SIZE = (("size", ("10", "100")),)
LISTINGS = {
    "old": [B("a.Q.offer", SIZE), B("a.Q.poll"), B("a.Gone.x")],
    "new": [B("a.Q.offer", (("size", ("10", "100", "1000")),)), B("a.Q.poll"), B("a.New$Inner.y")],
}


def test_common_partial_and_parameter_differences():
    selection = select_benchmarks(LISTINGS)
    assert selection.common == ("a.Q.offer", "a.Q.poll")
    assert selection.partial == {"a.Gone.x": ("old",), "a.New$Inner.y": ("new",)}
    assert selection.param_differences == {"a.Q.offer": "size: {10, 100} in old, {10, 100, 1000} in new"}


def test_exact_includes_match_only_their_own_names():
    names = ["a.Q.poll", "a.New$Inner.y"]
    patterns = jmh_exact_includes(names)
    # Java and Python agree on this subset of regex syntax (anchors, escaped '.' and '$').
    for name in ["a.Q.poll", "a.New$Inner.y", "a.Q.pollAll", "xa.Q.poll", "aXQ.poll", "a.NewXInner.y"]:
        assert any(re.search(p, name) for p in patterns) == (name in names)


def test_cases_and_estimate_follow_the_settings():
    settings = RunSettings(forks=2, warmup_iterations=3, iterations=5, warmup_time="200ms", iteration_time="1s")
    assert cases(SIZE, settings) == 2 and cases((), settings) == 1
    assert cases(SIZE + (("mode", ("a", "b", "c")),), settings) == 6
    assert cases(SIZE, RunSettings(params=(("size", "7"),))) == 1
    selection = select_benchmarks(LISTINGS)
    # offer: 2 cases (the first version's defaults), poll: 1; per fork 3 x 0.2 + 5 x 1 + 1 s JVM.
    assert estimated_seconds(selection, settings, trials=4) == pytest.approx(3 * 2 * (0.6 + 5 + 1) * 4 * 2)
    # --warmup auto's choices replace the configured warmup of each benchmark they name
    chosen = {"a.Q.offer": {"warmup": 10, "reached": True, "starts": {}}}
    assert estimated_seconds(selection, settings, trials=1, warmups=chosen) == \
        pytest.approx((2 * (10 * 0.2 + 5 + 1) + (0.6 + 5 + 1)) * 2 * 2)


def test_the_estimate_reads_every_duration_and_counts_a_fixed_count_as_one_second():
    selection = select_benchmarks({"v": [B("a.Q.poll")]})
    one_day = RunSettings(forks=1, warmup_iterations=0, iterations=1, iteration_time="1d")
    assert estimated_seconds(selection, one_day, trials=1) == pytest.approx(86400 + 1)
    counted = RunSettings(forks=1, warmup_iterations=0, iterations=2, iteration_time="100x")
    assert estimated_seconds(selection, counted, trials=1) == pytest.approx(2 * 1.0 + 1)


def test_listing_marks_what_is_not_run():
    settings = RunSettings(forks=1, warmup_iterations=1, iterations=1, warmup_time="1s", iteration_time="1s")
    text = render_selection(select_benchmarks(LISTINGS), settings, trials=2)
    lines = text.splitlines()
    assert lines[0].split() == ["benchmark", "@Param", "values", "old", "new"]
    rows = {line.split()[0]: line for line in lines[1:] if line.startswith("a.")}
    assert rows["a.Gone.x"].split()[1:] == ["yes", "-", "only", "in", "old:", "not", "run"]
    assert "params differ: size: {10, 100} in old, {10, 100, 1000} in new" in rows["a.Q.offer"]
    assert "2 benchmarks (3 cases) in every version; 2 only in some (not run)" in text
    assert "2 trials x 2 versions x 3 cases x 1 forks" in text


def test_listing_shows_the_parameter_values_that_will_run():
    settings = RunSettings(params=(("size", "7,8"),))
    text = render_selection(select_benchmarks({"v": [B("a.Q.offer", SIZE + (("k", ("x",)),))]}), settings, trials=1)
    assert "size={7, 8}* k={x}" in text and "* set by --param" in text and "1 benchmark (2 cases)" in text
