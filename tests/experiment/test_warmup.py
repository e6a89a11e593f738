"""--warmup auto's pieces that need no JVM: the pilot's order, the invocations per warmup, merging them."""

from __future__ import annotations

import numpy as np

from rigorbench.experiment.warmup import describe, invocations, merged, pilot_series
from rigorbench.harness import get_harness
from rigorbench.harness.base import DONE, FAILED, TIMEOUT, RunSettings, TrialOutcome
from rigorbench.model import BenchmarkCase, Metric, SampleTable, Series

JMH = get_harness("jmh")
TIME = Metric("time", "ns/op", higher_is_better=False, primary=True)


def test_the_pilot_series_is_warmup_then_measurement_in_iteration_order():
    # rows stored out of order: measurement 1, warmup 2, measurement 0, warmup 1, warmup 0
    table = SampleTable.build([11.0, 3.0, 10.0, 2.0, 1.0], iteration=[1, 2, 0, 1, 0],
                              warmup=[False, True, False, True, True])
    assert pilot_series(Series(BenchmarkCase("jmh", "a.B.c"), TIME, table)).tolist() == [1.0, 2.0, 3.0, 10.0, 11.0]


def test_one_invocation_per_distinct_warmup_with_exact_includes():
    settings = RunSettings(warmup_iterations=5)
    choices = {"p.A.x": {"warmup": 8}, "p.B.y": {"warmup": 3}, "p.C.z": {"warmup": 8}}
    runs = invocations(settings, choices, ["p.A.x", "p.B.y", "p.C.z"], JMH)
    assert [(r.warmup_iterations, r.include) for r in runs] == [
        (3, (r"^p\.B\.y$",)), (8, (r"^p\.A\.x$", r"^p\.C\.z$"))]
    # only the benchmarks asked for (say, those an adaptive run still has open)
    assert [(r.warmup_iterations, len(r.include)) for r in invocations(settings, choices, ["p.C.z"], JMH)] == [(8, 1)]
    # no choices: the run's own settings, untouched
    assert invocations(settings, None, ["p.A.x"], JMH) == [settings]


def test_merged_runs_keep_every_series_and_the_worst_status():
    a = Series(BenchmarkCase("jmh", "p.A.x"), TIME, SampleTable.build([1.0]))
    b = Series(BenchmarkCase("jmh", "p.B.y"), TIME, SampleTable.build([2.0]))
    one = TrialOutcome(DONE, (a,), 1.5, {"jmh": "1.37"}, ("p.Z: boom",), "out a")
    two = TrialOutcome(FAILED, (b,), 2.0, {"jvm": "17"}, (), "out b", "JMH exited with code 1")
    both = merged([one, two])
    assert both.status == FAILED and both.harness_seconds == 3.5
    assert [s.case.name for s in both.series] == ["p.A.x", "p.B.y"]
    assert both.failures == ("p.Z: boom",) and both.environment == {"jmh": "1.37", "jvm": "17"}
    assert both.message == "JMH exited with code 1" and "out a" in both.output_tail and "out b" in both.output_tail
    assert merged([one]) is one


def test_unsettled_pilots_are_flagged_not_silently_given_the_maximum():
    lines = describe({"p.A.x": {"warmup": 9, "reached": True, "starts": {"v1": 7, "v2": 6}},
                      "p.B.y": {"warmup": 35, "reached": False, "starts": {"v1": None}}}, 30)
    assert lines[0] == "warmup auto: A.x: 9 warmup iterations (steady from iteration v1 7, v2 6)"
    assert lines[1].startswith("warning: B.y did not reach steady state in its pilot fork") and "35 iterations" in lines[1]


def test_a_run_of_only_failing_benchmarks_does_not_fail_a_trial_that_measured_the_others():
    a = Series(BenchmarkCase("gbench", "BM_Ok"), TIME, SampleTable.build([1.0]))
    ok = TrialOutcome(DONE, (a,), 1.0, {}, (), "")
    broken = TrialOutcome(FAILED, (), 0.5, {}, ("BM_Broken: the input file is missing",), "", "no benchmark result")
    assert merged([broken, ok]).status == DONE                          # in either order
    both = merged([ok, broken])
    assert both.status == DONE and both.failures == ("BM_Broken: the input file is missing",) and both.message == ""
    assert merged([broken, broken]).status == FAILED                    # nothing measured: failed
    timed_out = TrialOutcome(TIMEOUT, (), 9.0, {}, (), "", "stopped at the trial timeout")
    assert merged([ok, timed_out]).status == TIMEOUT                    # a timeout always counts


def test_a_benchmark_its_pilot_never_measured_keeps_the_configured_warmup_and_says_why():
    (line,) = describe({"BM_Broken": {"warmup": 5, "reached": False, "starts": {}}}, 30)
    assert line == ("warning: BM_Broken measured nothing in its pilot forks (it failed or was not run): "
                    "it keeps the configured 5 warmup iterations")
