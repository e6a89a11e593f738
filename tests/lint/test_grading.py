"""Lint findings graded by measured time per operation (rigorbench.lint.grading): the bounds,
the matching of ``Class.method`` to stored names, and what a measurement cannot decide."""

from __future__ import annotations

import pytest

from rigorbench.lint.grading import CaseTime, Measurements, graded, matching_cases, wanted_names
from rigorbench.model import Finding

MS = 1e6


def finding(rule: str, severity: str = "warning", *, benchmark: str = "", concerns=(), path="src/demo/Bench.java"):
    return Finding(path, 3, 5, rule, severity, "message", benchmark, concerns=tuple(concerns))


def times(*cases, source="run 1 (version v1)", cycle_ns=None) -> Measurements:
    return Measurements(tuple(CaseTime(name, tuple(params), ns) for name, params, ns in cases), source, cycle_ns)


def invo(severity="warning"):
    return finding("INVO", severity, concerns=("demo.Bench.sort",))


@pytest.mark.parametrize("ns, decision, severity", [
    (0.2 * MS, "confirmed", "warning"),
    (0.999 * MS, "confirmed", "warning"),
    (1.0 * MS, "kept", "warning"),
    (9.9 * MS, "kept", "warning"),
    (10 * MS, "cleared", "info"),
    (250 * MS, "cleared", "info"),
])
def test_invo_is_confirmed_under_a_millisecond_and_cleared_at_ten(ns, decision, severity):
    (graded_invo,) = graded([invo()], times(("demo.Bench.sort", (), ns)))
    assert graded_invo.measured.decision == decision
    assert graded_invo.severity == severity
    assert graded_invo.measured.value_ns == ns and graded_invo.measured.benchmarks == ("demo.Bench.sort",)


def test_a_confirmed_invo_is_at_least_a_warning_even_when_static_evidence_made_it_info():
    (f,) = graded([invo("info")], times(("demo.Bench.sort", (), 2_000.0)))
    assert f.severity == "warning" and f.measured.decision == "confirmed"
    assert f.measured.reason == ("2 us/op in run 1 (version v1): under 1 ms per call, where JMH's timestamps "
                                 "around every call matter; confirmed, raised to warning")


def test_the_whole_range_of_parameter_sets_must_agree():
    cases = times(("demo.Bench.sort", (("size", "10"),), 0.05 * MS), ("demo.Bench.sort", (("size", "100000"),), 40 * MS))
    (f,) = graded([invo()], cases)
    assert f.measured.decision == "kept" and f.severity == "warning"
    assert (f.measured.low_ns, f.measured.high_ns, f.measured.cases) == (0.05 * MS, 40 * MS, 2)
    assert f.measured.params == (("size", ("10", "100000")),)
    assert "2 cases: size=10,100000" in f.measured.reason and "in some cases" in f.measured.reason
    (f,) = graded([invo()], times(("demo.Bench.sort", (("size", "1"),), 12 * MS), ("demo.Bench.sort", (("size", "2"),), 40 * MS)))
    assert f.measured.decision == "cleared" and f.measured.value_ns == 26 * MS


@pytest.mark.parametrize("rule, before, after", [("RETU", "error", "error"), ("VOID", "warning", "error"),
                                                 ("FINAL", "warning", "error"), ("GO-RESULT", "warning", "error")])
def test_removed_work_is_confirmed_and_raised_under_a_nanosecond(rule, before, after):
    name = "BenchmarkSum" if rule.startswith("GO") else "Bench.dropped"
    stored = "BenchmarkSum/n=10" if rule.startswith("GO") else "demo.Bench.dropped"
    (f,) = graded([finding(rule, before, benchmark=name)], times((stored, (), 0.4)))
    assert f.severity == after and f.measured.decision == "confirmed"
    assert "0.4 ns/op" in f.measured.reason and "the work was likely removed" in f.measured.reason


def test_removed_work_bound_is_three_cycles_of_a_recorded_clock():
    retu = finding("VOID", benchmark="Bench.dropped")
    (slow_clock,) = graded([retu], times(("demo.Bench.dropped", (), 1.5), cycle_ns=1.0))       # 1 GHz: 3 ns
    (fast_clock,) = graded([retu], times(("demo.Bench.dropped", (), 1.5), cycle_ns=0.25))      # 4 GHz: 0.75 ns
    (no_clock,) = graded([retu], times(("demo.Bench.dropped", (), 1.5)))                       # 1 ns
    assert slow_clock.measured.decision == "confirmed" and slow_clock.severity == "error"
    assert fast_clock.measured.decision == "kept" and fast_clock.severity == "warning"
    assert no_clock.measured.decision == "kept"
    assert "3 clock cycles of the measuring CPU (3 ns/op)" in slow_clock.measured.reason


def test_a_plausible_time_keeps_a_removed_work_finding_as_it_was():
    (f,) = graded([finding("VOID", benchmark="Bench.dropped")], times(("demo.Bench.dropped", (), 20.0)))
    assert f.severity == "warning" and f.measured.decision == "kept"
    assert "does not show that none was removed" in f.measured.reason


def test_unmatched_and_ungraded_findings_stay_as_they_were():
    loop = finding("LOOP", benchmark="Bench.sum")
    other = finding("VOID", benchmark="Other.dropped")
    outside = finding("INVO")            # a fixture no benchmark of its file uses
    measured = times(("demo.Bench.sum", (), 0.1), ("demo.Bench.dropped", (), 0.1))
    assert graded([loop, other, outside], measured) == (loop, other, outside)
    assert all(f.measured is None for f in graded([loop, other, outside], measured))


def test_matching_is_exact_on_class_and_method():
    cases = times(("demo.Bench.sort", (), 1.0), ("demo.MyBench.sort", (), 2.0), ("demo.Bench.sorted", (), 3.0),
                  ("demo.Outer.Bench.sort", (), 4.0)).cases
    # Class.method matches every package's and outer class's Bench.sort (here one package, demo.Outer
    # being a class: told apart by the file's folder), never MyBench.sort or Bench.sorted
    assert [c.ns_per_op for c in matching_cases(finding("RETU", benchmark="Bench.sort"), cases)] == [1.0]
    # a qualified name (INVO's concerns) matches itself only
    assert [c.ns_per_op for c in matching_cases(finding("INVO", concerns=("demo.Outer.Bench.sort",)), cases)] == [4.0]


def test_a_class_name_in_two_packages_is_told_apart_by_the_findings_folder_or_not_at_all():
    cases = times(("org.a.Bench.run", (), 1.0), ("org.b.Bench.run", (), 2.0)).cases
    assert [c.ns_per_op for c in matching_cases(finding("RETU", benchmark="Bench.run", path="src/org/b/Bench.java"),
                                                cases)] == [2.0]
    assert matching_cases(finding("RETU", benchmark="Bench.run", path="elsewhere/Bench.java"), cases) == []


def test_wanted_names_are_the_short_names_of_graded_rules():
    found = [finding("INVO", concerns=("demo.Bench.sort", "demo.Other.run")), finding("RETU", benchmark="B.x"),
             finding("LOOP", benchmark="B.loop"), finding("GO-RESULT", benchmark="BenchmarkSum")]
    assert wanted_names(found) == {"Bench.sort", "Other.run", "B.x", "BenchmarkSum"}
