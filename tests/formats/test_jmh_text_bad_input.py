"""JMH console logs with values that cannot be: out of range, negative, one case run twice."""

from __future__ import annotations

import pytest

from rigorbench.errors import InputError
from rigorbench.formats import read_result_file

from tests.formats.test_jmh_text import SUMMARY, fork, header


def _line_of(text, start):
    return next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith(start))


@pytest.mark.parametrize("score, shown", [("1e999", "1e999"), ("9" * 5000, "999999999999...999999 (5000 characters)")])
def test_a_score_beyond_float_range_is_an_input_error(write, score, shown):
    text = header() + fork(1, 1, ["1.000"], ["2.000", score]) + SUMMARY
    with pytest.raises(InputError) as info:
        read_result_file(write(text))
    assert info.value.line == _line_of(text, "Iteration   2:")
    assert info.value.message == f"dev.rigorbench.demo.Foo.bar: number out of range: {shown}"


def test_a_huge_iteration_number_is_an_input_error(write):
    text = header() + "# Fork: 1 of 1\nIteration " + "9" * 5000 + ": 1.000 ns/op\n"
    with pytest.raises(InputError, match="iteration number out of range: 999999999999..."):
        read_result_file(write(text))


def test_a_negative_throughput_is_an_input_error(write):
    text = header(mode="Throughput, ops/time") + fork(1, 1, [], ["3.000", "-5.000"], unit="ops/ms") + SUMMARY
    with pytest.raises(InputError) as info:
        read_result_file(write(text))
    assert info.value.line == _line_of(text, "Iteration   2:")
    assert "negative throughput -5 ops/ms" in info.value.message


def test_the_same_case_run_twice_in_one_log_is_an_input_error(write):
    run = header(params="size = 10") + fork(1, 2, [], ["1.000"]) + fork(2, 2, [], ["2.000"])
    text = run + run + SUMMARY
    with pytest.raises(InputError) as info:
        read_result_file(write(text))
    forks = [i for i, line in enumerate(text.split("\n"), 1) if line.startswith("# Fork: 1 of 2")]
    assert info.value.line == forks[1]
    assert info.value.message == (
        f"dev.rigorbench.demo.Foo.bar{{size=10}} (mode avgt): run again (first at line {forks[0]}); "
        "one log holds each benchmark case once"
    )


def test_other_params_or_modes_of_one_benchmark_are_other_cases(write):
    text = (
        header(params="size = 10") + fork(1, 1, [], ["1.000"])
        + header(params="size = 20") + fork(1, 1, [], ["1.000"])
        + header(mode="Throughput, ops/time") + fork(1, 1, [], ["1.000"], unit="ops/ms") + SUMMARY
    )
    assert len(read_result_file(write(text)).series) == 3
