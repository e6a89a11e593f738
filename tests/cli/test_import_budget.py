"""Start-up budgets: a command loads only what it uses (checked in sys.modules, not timed).

Each case runs in a fresh interpreter, as a user's shell does; a module imported by an
earlier test in this process must not hide one that the command would load.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JSON_V1, JSON_V2 = "tests/testdata/jmh/v1-trial1.json", "tests/testdata/jmh/v2-trial1.json"
HEAVY = ("scipy", "scipy.stats", "matplotlib", "ruptures", "rigorbench.stats.steady")

PROBE = """
import io, json, sys
from rigorbench.cli import main
code = main(sys.argv[1:], io.StringIO(), io.StringIO())
print(json.dumps({"code": code, "loaded": [m for m in %r if m in sys.modules]}))
""" % (HEAVY,)


def loaded(*argv: str, tmp_path: Path | None = None) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=ROOT, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["code"], set(result["loaded"])


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["ab", "--help"], ["compare", "--help"],
                                  ["runs", "--store", "nowhere.db"], ["lint", "examples/jmh-lint"],
                                  ["report", "--help"], ["record", "--help"]])
def test_help_version_runs_and_lint_load_no_scipy_matplotlib_or_ruptures(argv):
    code, modules = loaded(*argv)
    assert code in (0, 1, 2) and modules == set(), f"{argv} loaded {sorted(modules)}"


def test_compare_loads_no_matplotlib_ruptures_or_scipy_stats():
    for fmt in ("text", "json", "markdown", "csv"):
        code, modules = loaded("compare", JSON_V1, JSON_V2, "--format", fmt)
        assert code == 0 and not modules & {"matplotlib", "ruptures", "rigorbench.stats.steady", "scipy.stats"}, (fmt, modules)


def test_a_flag_that_needs_more_loads_it():
    # --steady-only needs change-point detection; analyze needs scipy.stats.
    assert "rigorbench.stats.steady" in loaded("compare", JSON_V1, JSON_V2, "--steady-only")[1]
    assert "scipy.stats" in loaded("analyze", JSON_V1)[1]


def test_the_format_choices_named_without_importing_the_renderers_are_theirs():
    from rigorbench.cli.common import ANALYZE_FORMATS, COMPARE_FORMATS
    from rigorbench.report.analyze import ANALYSIS_RENDERERS
    from rigorbench.report.compare import COMPARISON_RENDERERS
    from rigorbench.report.power import POWER_RENDERERS

    assert COMPARE_FORMATS == tuple(COMPARISON_RENDERERS)
    assert ANALYZE_FORMATS == tuple(ANALYSIS_RENDERERS) == tuple(POWER_RENDERERS)


NUMPY_PROBE = """
import io, json, sys
from rigorbench.cli import main
code = main(sys.argv[1:], io.StringIO(), io.StringIO())
print(json.dumps({"code": code, "loaded": sorted(m for m in sys.modules if m == "numpy" or m.startswith("rigorbench.")
                                                  and m.split(".")[1] not in ("api", "cli", "errors", "lazy", "terminal"))
                  + sorted(m for m in sys.modules if m.startswith("rigorbench.cli.") and m != "rigorbench.cli.parser")}))
"""


@pytest.mark.parametrize("argv", [["--help"], ["--version"], [], ["comapre"]])
def test_the_program_help_and_version_load_no_command_and_no_numpy(argv):
    done = subprocess.run([sys.executable, "-c", NUMPY_PROBE, *argv], cwd=ROOT, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["code"] in (0, 2) and result["loaded"] == [], f"{argv} loaded {result['loaded']}"


def test_a_command_loads_no_other_command():
    done = subprocess.run([sys.executable, "-c", NUMPY_PROBE, "compare", JSON_V1, JSON_V2], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    commands = {m for m in json.loads(done.stdout.strip().splitlines()[-1])["loaded"] if m.startswith("rigorbench.cli.")}
    assert commands <= {"rigorbench.cli.compare", "rigorbench.cli.common"}, commands


def test_the_runs_table_loads_no_scipy():
    """``runs`` with runs in the store lays its table out without the comparison's statistics."""
    probe = "import sys, rigorbench.report.runs; print(sorted(m for m in %r if m in sys.modules))" % (HEAVY,)
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
