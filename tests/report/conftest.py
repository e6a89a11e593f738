"""Reports built once per session: the example project's data and a 200-benchmark suite."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from rigorbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
JMH = ROOT / "tests" / "testdata" / "jmh"
# The synthetic suite lives with the benchmarks (benchmarks/bench_report.py times it).
sys.path.insert(0, str(ROOT / "benchmarks"))

from synthetic_suite import write_suite  # noqa: E402


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


@pytest.fixture(scope="session")
def example_html(tmp_path_factory) -> Path:
    """v1 against v2 of examples/jmh-demo: console logs (warmup included) and JSON trials."""
    path = tmp_path_factory.mktemp("example") / "example.html"
    code, _, err = run_cli(
        "report", "--baseline", str(JMH / "v1-trial1.log"), str(JMH / "v1-trial2.json"),
        "--contender", str(JMH / "v2-trial1.log"), str(JMH / "v2-trial2.json"),
        "--html", str(path), "--lint", str(ROOT / "examples" / "jmh-lint"),
    )
    assert code == 0, err
    return path


@pytest.fixture(scope="session")
def long_html(tmp_path_factory) -> Path:
    """One version, 60-iteration forks with -prof gc and -prof comp: steady state and events."""
    path = tmp_path_factory.mktemp("long") / "long.html"
    code, _, err = run_cli("report", str(JMH / "long-v2-trial1.json.gz"), str(JMH / "long-v2-trial2.json.gz"),
                           "--one-version", "--html", str(path))
    assert code == 0, err
    return path


@pytest.fixture(scope="session")
def suite_files(tmp_path_factory) -> tuple[list[Path], list[Path]]:
    return write_suite(tmp_path_factory.mktemp("suite"), size=200)


@pytest.fixture(scope="session")
def suite_html(tmp_path_factory, suite_files) -> Path:
    base, head = suite_files
    path = tmp_path_factory.mktemp("suite-report") / "suite.html"
    code, _, err = run_cli("report", "--baseline", *map(str, base), "--contender", *map(str, head),
                           "--html", str(path), "--resamples", "2000")
    assert code == 0, err
    return path
