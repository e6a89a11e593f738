"""The one units module: time per op, throughput and durations (STYLE.md rule 12)."""

from __future__ import annotations

import math

import pytest

from rigorbench.units import (
    format_duration,
    higher_is_better_from_name,
    is_time_metric,
    nanoseconds_per_op,
    parse_duration,
    unit_factor,
)


def test_unit_factors_of_one_dimension():
    assert unit_factor("ns/op", "us/op") == pytest.approx(1e-3)
    assert unit_factor("ms/op", "ns/op") == pytest.approx(1e6)
    assert unit_factor("s/op", "ns/op") == pytest.approx(1e9)
    assert unit_factor("ops/ms", "ops/s") == pytest.approx(1e3)
    assert unit_factor("ops/s", "ops/us") == pytest.approx(1e-6)
    assert unit_factor("B/op", "B/op") == 1.0
    assert unit_factor("ns/op", "ops/s") is None and unit_factor("B/op", "ns/op") is None


def test_time_per_op_of_times_and_rates():
    assert nanoseconds_per_op(2.0, "us/op") == pytest.approx(2000.0)
    assert nanoseconds_per_op(1.5, "µs/op") == pytest.approx(1500.0)
    assert nanoseconds_per_op(4.0, "ops/us") == pytest.approx(250.0)
    assert nanoseconds_per_op(0.0, "ops/s") is None          # no rate, no time
    assert nanoseconds_per_op(24.0, "B/op") is None and nanoseconds_per_op(3.0, "ns") is None
    assert is_time_metric("ops/ms") and is_time_metric("min/op") and not is_time_metric("allocs/op")


@pytest.mark.parametrize("text, seconds", [("200ms", 0.2), ("1s", 1.0), ("1.5 s", 1.5), ("10m", 600.0),
                                           ("10min", 600.0), ("1h", 3600.0), ("2hr", 7200.0), ("1d", 86400.0),
                                           ("100us", 1e-4), ("5ns", 5e-9)])
def test_durations_are_parsed(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


def test_a_bare_number_needs_a_default_unit_and_other_text_is_no_duration():
    assert parse_duration("90") is None and parse_duration("90", default="s") == 90.0
    assert parse_duration("100x") is None and parse_duration("1 week") is None
    assert parse_duration("s") is None and parse_duration("-1s") is None


def test_format_duration():
    assert format_duration(5) == "0:05" and format_duration(59.6) == "1:00" and format_duration(3725) == "1:02:05"
    assert format_duration(-3) == "0:00"


@pytest.mark.parametrize("name, higher", [
    ("encode_ops_s", True), ("ops/ms", True), ("requests_per_second", True), ("throughput", True), ("encodeOpsPerSec", True),
    ("qps", True), ("mb_s", True),
    ("parse_ns", False), ("ns/op", False), ("latency_p99_ms", False), ("allocs_per_op", False), ("renderTimeMs", False),
    ("parse_s", False), ("B/op", False),
    ("score", None), ("gc.count", None),
])
def test_direction_from_a_metric_name(name, higher):
    assert higher_is_better_from_name(name) is higher


def test_a_column_reads_in_one_unit_its_values_read_best_in():
    from rigorbench.units import dimension, readable_unit

    assert dimension("us/op") == dimension("s/op") == "time/op" and dimension("ops/ms") == "ops/time"
    assert dimension("B/op") == "B/op"
    # the author's unit stays while every value reads 1 to 9999 in it
    assert readable_unit(["us/op", "us/op"], [1.5, 9000.0]) == ("us/op", {"us/op": 1.0})
    assert readable_unit(["ops/s"], [250.0]) == ("ops/s", {"ops/s": 1.0})
    unit, factors = readable_unit(["ns/op"], [1_041_000.0])
    assert unit == "ms/op" and math.isclose(1_041_000.0 * factors["ns/op"], 1.041)
    unit, factors = readable_unit(["ops/s"], [5e7])
    assert unit == "ops/us" and math.isclose(5e7 * factors["ops/s"], 50.0)
    # two units of one metric: the one most values read 1 to 999 in; on a tie the unit most are given in
    unit, factors = readable_unit(["ns/op", "ns/op", "us/op"], [285.0, 3765.0, 1.324])
    assert unit == "ns/op" and math.isclose(factors["us/op"], 1000.0)
    assert readable_unit(["us/op", "ns/op"], [2.0, 900.0])[0] in ("ns/op", "us/op")
    assert readable_unit(["ms/op", "ns/op"], [5.0, 4e6])[0] == "ms/op"
    # nothing to scale: bytes, or units of two dimensions
    assert readable_unit(["B/op"], [1e6]) == ("B/op", {"B/op": 1.0})
    assert readable_unit(["ns/op", "B/op"], [5.0, 6.0]) == ("ns/op", {"ns/op": 1.0, "B/op": 1.0})
    assert readable_unit([], []) == ("", {})


def test_time_unit_for_one_time_is_the_largest_in_which_it_reads_one_or_more():
    from rigorbench.units import time_unit_for

    assert [time_unit_for(ns) for ns in (0.4, 1.0, 999.0, 1000.0, 23.1e6, 2e9)] == [
        "ns/op", "ns/op", "ns/op", "us/op", "ms/op", "s/op"]
