"""The canonical text dump used by the golden tests."""

from __future__ import annotations

import pytest

from tests.formats.dump import dump_result_file
from rigorbench.model import BenchmarkCase, Metric, ResultFile, SampleTable, Series


def test_dump_is_canonical():
    samples = SampleTable.build(
        [1.0, 2.0, 3.0, 10.0],
        fork=[0, 0, 1, 1],
        iteration=[0, 1, 0, 1],
        warmup=[True, False, True, False],
        count=[1, 1, 1, 3],
    )
    result = ResultFile(
        path="/somewhere/else/x.json",
        format="jmh-json",
        series=(
            Series(BenchmarkCase.of("jmh", "a.B.c", {"z": "1", "a": "2"}), Metric("time", "ns/op", False, True), samples),
            Series(BenchmarkCase("go", "BenchmarkX"), Metric("MB/s", "MB/s", True), SampleTable.build([1 / 3]), "v2"),
        ),
        environment={"zeta": "last", "alpha": "first"},
        warnings=("something odd",),
    )
    assert dump_result_file(result) == (
        "format: jmh-json\n"
        "series: 2\n"
        "  jmh:a.B.c{a=2,z=1} | time [ns/op, lower is better, primary] | "
        "rows=4 instances=1 trials=1 forks=2 warmup=2 count=6 sum=36\n"
        "  go:BenchmarkX @v2 | MB/s [MB/s, higher is better, secondary] | "
        "rows=1 instances=1 trials=1 forks=1 warmup=0 count=1 sum=0.333333\n"
        "environment: 2\n"
        "  alpha: first\n"
        "  zeta: last\n"
        "failures: 0\n"
        "warnings: 1\n"
        "  something odd\n"
    )


def test_golden_mismatch_writes_a_got_file_and_regen_accepts(golden, tmp_path, monkeypatch):
    monkeypatch.setitem(golden.__globals__, "GOLDEN", tmp_path)
    monkeypatch.delenv("RIGORBENCH_REGEN", raising=False)
    (tmp_path / "x.txt").write_text("old\n")
    with pytest.raises(pytest.fail.Exception, match=r"x: output differs .*x\.got.*RIGORBENCH_REGEN=1"):
        golden("x", "new\n")
    assert (tmp_path / "x.got").read_text() == "new\n"
    monkeypatch.setenv("RIGORBENCH_REGEN", "1")
    golden("x", "new\n")
    assert (tmp_path / "x.txt").read_text() == "new\n" and not (tmp_path / "x.got").exists()
    monkeypatch.delenv("RIGORBENCH_REGEN")
    golden("x", "new\n")
