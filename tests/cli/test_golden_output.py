"""Golden outputs of ``compare``, ``analyze`` and ``power``: the whole stdout, byte for byte.

Each case runs the CLI in-process from the repository root with relative paths, so the
outputs name no machine-specific path; the seed is fixed by default, so they are
deterministic. The expected output is ``golden/<case>.<ext>``. Regenerate them all with
``make golden`` (``RIGORBENCH_REGEN=1 pytest tests/cli/test_golden_output.py``, the switch of
tests/formats/test_golden.py) and review the diff; a mismatch leaves ``<golden>.got`` next to
the golden file.

Inputs: real JMH output of the example project in tests/testdata/jmh, and for ``power``
(which needs at least 4 trials of one version) ``golden/inputs/v1.csv``: 10 synthetic trials
in pa CSV, written once by ``test_power_cli.write_trials(path, np.random.default_rng(1),
trials=10)``, the input of ``test_power_cli.test_json_fields_and_the_summary``.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest

from rigorbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
REGENERATE = "RIGORBENCH_REGEN=1 pytest tests/cli/test_golden_output.py (or: make golden)"

JMH = "tests/testdata/jmh"
V1, V2 = f"{JMH}/v1-trial1.json", f"{JMH}/v2-trial1.json"
TRIALS = ["--baseline", V1, f"{JMH}/v1-trial2.json", "--contender", V2, f"{JMH}/v2-trial2.json"]
V1_TRIALS = [V1, f"{JMH}/v1-trial2.json"]
POWER_INPUT = "tests/cli/golden/inputs/v1.csv"
FAST = ["--resamples", "2000"]
EXTENSION = {"text": "txt", "json": "json", "markdown": "md", "csv": "csv"}

# name -> (argv without --format, formats). Every case exits 0 with nothing on stderr.
CASES = {
    "compare-v1-v2": (["compare", V1, V2, *FAST], ["text", "json", "markdown", "csv"]),
    "compare-trials": (["compare", *TRIALS, *FAST], ["text", "json", "markdown", "csv"]),
    "compare-trials-wilcoxon": (["compare", *TRIALS, "--test", "wilcoxon", *FAST], ["text"]),
    "compare-v1-v2-metric-all": (["compare", V1, V2, "--metric", "all", *FAST], ["json"]),
    "analyze-v1-trials": (["analyze", *V1_TRIALS, *FAST], ["text", "json"]),
    # a console log with warmup iterations: only the measurement iterations count (n=8)
    "analyze-v1-log": (["analyze", f"{JMH}/v1-trial1.log", *FAST], ["text", "json"]),
    # two real trials are too few to simulate: every benchmark says so
    "power-v1-too-few-trials": (["power", *V1_TRIALS, "--simulations", "20"], ["text"]),
    "power-v1": (["power", POWER_INPUT, "--simulations", "20", "--target", "5%"], ["text", "json"]),
}
RUNS = [(name, fmt) for name, (_, formats) in CASES.items() for fmt in formats]


def golden_name(name: str, fmt: str) -> str:
    return f"{name}.{EXTENSION[fmt]}"


def normalize_tool_version(output: str) -> str:
    """The JSON documents carry ``tool_version``; it changes with every release, not with the
    output, so the golden files hold ``<version>`` instead."""
    return re.sub(r'^(  "tool_version": )"[^"]*"', r'\1"<version>"', output, flags=re.MULTILINE)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def check_golden(name: str, got: str) -> None:
    """Compare with golden/<name>; RIGORBENCH_REGEN=1 rewrites it; a mismatch leaves <name>.got."""
    expected_path = GOLDEN / name
    got_path = GOLDEN / f"{name}.got"
    if os.environ.get("RIGORBENCH_REGEN") == "1":
        expected_path.write_text(got, encoding="utf-8", newline="")
        got_path.unlink(missing_ok=True)
        return
    if not expected_path.exists():
        got_path.write_text(got, encoding="utf-8", newline="")
        pytest.fail(f"no golden file {expected_path}; wrote {got_path} (to accept: {REGENERATE})")
    if got != expected_path.read_bytes().decode("utf-8"):
        got_path.write_text(got, encoding="utf-8", newline="")
        pytest.fail(f"{name}: output differs from {expected_path}; wrote {got_path} "
                    f"(diff them; to accept: {REGENERATE})")
    got_path.unlink(missing_ok=True)


@pytest.mark.parametrize("name, fmt", RUNS, ids=[golden_name(n, f) for n, f in RUNS])
def test_golden_output(name, fmt, monkeypatch):
    monkeypatch.chdir(ROOT)
    argv, _ = CASES[name]
    code, out, err = run_cli([*argv, "--format", fmt])
    assert (code, err) == (0, ""), err
    check_golden(golden_name(name, fmt), normalize_tool_version(out))


def test_every_golden_file_has_its_case():
    names = {golden_name(n, f) for n, f in RUNS}
    stale = sorted(p.name for p in GOLDEN.iterdir() if p.is_file() and p.suffix != ".got" and p.name not in names)
    assert not stale, f"golden files without a case in {Path(__file__).name}: {stale}"
