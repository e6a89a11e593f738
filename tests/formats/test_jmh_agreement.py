"""The JSON file and the console log of the same JMH run must tell the same story.

Same benchmarks and parameters, same metrics, and the same measurement values: the log
prints 3 decimals, so values agree to half a unit of the last printed digit. In SampleTime
mode the JSON holds the invocation histogram and the log the iteration mean, so the
histogram's count-weighted mean per iteration is compared.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rigorbench.formats import read_result_file

TESTDATA = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
PAIRS = sorted(p for p in TESTDATA.glob("*.json") if p.with_suffix(".log").is_file()) if TESTDATA.is_dir() else []


def iteration_values(samples) -> dict[tuple[int, int], float]:
    """(fork, iteration) -> value of the measurement iterations (histogram rows averaged)."""
    table = samples.measurement()
    keys = list(zip(table.fork.tolist(), table.iteration.tolist()))
    totals: dict[tuple[int, int], list[float]] = {}
    for key, value, count in zip(keys, table.value.tolist(), table.count.tolist()):
        total = totals.setdefault(key, [0.0, 0.0])
        total[0] += value * count
        total[1] += count
    return {key: s / n for key, (s, n) in totals.items()}


def log_tolerance(values: np.ndarray) -> np.ndarray:
    """Half a unit of the third decimal, plus float noise."""
    return 0.0005 + 1e-9 * np.abs(values)


@pytest.mark.parametrize("json_path", PAIRS, ids=[p.stem for p in PAIRS])
def test_json_and_log_of_one_run_agree(json_path):
    from_json = read_result_file(json_path)
    from_log = read_result_file(json_path.with_suffix(".log"))
    json_series = {(s.case, s.metric): s for s in from_json.series}
    log_series = {(s.case, s.metric): s for s in from_log.series}
    json_primary = {key for key in json_series if key[1].primary}
    log_primary = {key for key in log_series if key[1].primary}
    assert json_primary == log_primary
    assert set(json_series) <= set(log_series), "every JSON series must be in the log"
    for key in sorted(json_series, key=lambda k: (k[0], k[1].name)):
        from_json_values = iteration_values(json_series[key].samples)
        from_log_values = iteration_values(log_series[key].samples)
        assert from_log_values.keys() <= from_json_values.keys(), key
        # The log prints values below 0.001 as "≈ 10⁻ⁿ", which the reader skips.
        assert all(abs(from_json_values[k]) < 0.001 for k in from_json_values.keys() - from_log_values.keys()), key
        order = sorted(from_log_values)
        a = np.array([from_json_values[k] for k in order])
        b = np.array([from_log_values[k] for k in order])
        assert np.all(np.abs(a - b) <= log_tolerance(a)), (key, np.max(np.abs(a - b)))
    compared = ["jmh_version", "jdk_version", "vm_name", "vm_version", "jvm", "threads", "forks"]
    if not from_log.failures:  # a failed benchmark is in the log only, with its mode and options
        compared += ["mode", "jvm_args"]
    for env_key in compared:
        if env_key in from_json.environment:
            assert from_json.environment[env_key] == from_log.environment.get(env_key), env_key


def test_log_keeps_warmup_that_json_lacks():
    assert PAIRS, "tests/testdata/jmh must hold JSON/log pairs of the same run (make testdata)"
    from_json = read_result_file(PAIRS[0])
    from_log = read_result_file(PAIRS[0].with_suffix(".log"))
    assert not any(s.samples.warmup.any() for s in from_json.series)
    assert any(s.samples.warmup.any() for s in from_log.series)
