"""The console-log reader on real published JMH 1.19/1.21 logs (Costa et al.; ../shared/data).

Every log must parse, and every benchmark's measurement count must equal the ``Cnt`` column
of the summary table JMH printed at the end of the same log. Skips when the folder is absent.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from rigorbench.formats import read_result_file

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "jmh-impact-dev"
LOGS = sorted(DATA.glob("*/exp-*-out/*/*.out")) if DATA.is_dir() else []

pytestmark = [
    pytest.mark.shared_data,
    pytest.mark.skipif(not LOGS, reason="../shared/data/jmh-impact-dev is absent"),
]

_SUMMARY_ROW = re.compile(r"(\S+)\s+(?:.*?\s)?(thrpt|avgt|sample|ss)\s+(\d+)\s")


def summary_counts(text: str) -> Counter:
    """(Class.method, Cnt) of the summary table after '# Run complete'."""
    table = text.split("# Run complete", 1)[1]
    counts = Counter()
    for line in table.splitlines():
        match = _SUMMARY_ROW.match(line)
        if match and match.group(1) != "Benchmark":
            counts[(match.group(1), int(match.group(3)))] += 1
    return counts


def test_all_logs_parse_and_counts_match_the_summary_table():
    checked = 0
    for log in LOGS:
        result = read_result_file(log)
        assert result.format == "jmh-text", log
        assert result.warnings == (), (log, result.warnings)
        measured = Counter(
            (".".join(s.case.name.split(".")[-2:]), len(s.samples.measurement()))
            for s in result.series
            if s.metric.primary
        )
        assert measured == summary_counts(log.read_text()), log
        checked += len(result.series)
    assert checked > 100


def test_one_benchmark_iteration_counts():
    log = DATA / "netty/exp-FINA-out/original/netty_benchmarks_original_MathOperationsBenchmark_fina_trial1.out"
    result = read_result_file(log)
    first = result.series[0]
    assert first.case.name == "io.netty.microbenchmark.common.MathOperationsBenchmark.nextIndexConditionals"
    assert (first.metric.name, first.metric.unit) == ("throughput", "ops/s")
    s = first.samples
    assert len(s) == 40 and int(s.warmup.sum()) == 20
    assert s.fork.tolist() == [0] * 20 + [1] * 20
    assert s.measurement().value[0] == pytest.approx(334864679.695)
    assert result.environment["jmh_version"] == "1.19" and result.environment["vm_version"] == "10.0.1+10"


def test_parameterized_benchmark_from_h2o():
    log = DATA / "h2o-3/exp-INVO-out/original/human-GbmMojoScoringBench_original_trial1.out"
    result = read_result_file(log)
    params = [s.case.params for s in result.series]
    assert params == [(("rows", "1000"),), (("rows", "100000"),)]
    assert [len(s.samples.measurement()) for s in result.series] == [150, 150]
