"""``rigorbench lint`` from the command line: formats, exit codes, --fix/--diff, --explain,
SARIF checked by Microsoft's validator, and the lint step before ``ab`` builds."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.lint import RULES

from tests.cli.sarif_check import assert_valid_sarif


BAD = """\
package demo;

import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
@Fork(0)
public class BadBenchmark {
    // the input: folded by the JIT because it is final
    private final double x = 3.0;

    @Benchmark
    public void logOf() {
        Math.log(x);
    }
}
"""

GOOD = """\
package demo;

import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
@Fork(2)
public class GoodBenchmark {
    private double x = 3.0;

    @Benchmark
    public double logOf() {
        return Math.log(x);
    }
}
"""


def lint(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["lint", *args], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def project(tmp_path) -> Path:
    src = tmp_path / "src" / "demo"
    src.mkdir(parents=True)
    (src / "BadBenchmark.java").write_text(BAD)
    (src / "GoodBenchmark.java").write_text(GOOD)
    return tmp_path


def test_text_output_is_compiler_style_grouped_and_exits_1(project):
    code, out, err = lint(str(project))
    assert code == 1, err
    bad = str(project / "src/demo/BadBenchmark.java")
    assert "BadBenchmark.logOf:" in out
    assert f"{bad}:13:9: RETU [error]" in out
    assert f"{bad}:9:" in out and "FINAL" in out
    assert f"{bad}:6:" in out and "FORK" in out
    assert "GoodBenchmark" not in out
    assert "in 1 of 2 files, 2 benchmarks" in out.splitlines()[-2]
    assert err == ""


def test_clean_sources_exit_0_and_fail_on_never(project):
    good = str(project / "src/demo/GoodBenchmark.java")
    assert lint(good)[0] == 0
    assert "no findings in 1 file (1 benchmark)" in lint(good)[1]
    assert lint(str(project), "--fail-on", "never")[0] == 0
    # FINAL on an instance field is a warning: failing only on errors still fails (RETU, FORK).
    assert lint(str(project), "--fail-on", "error")[0] == 1
    assert lint(str(project), "--rules", "FINAL", "--fail-on", "error")[0] == 0


def test_json_has_the_contract_fields(project):
    code, out, _ = lint(str(project), "--format", "json")
    document = json.loads(out)
    assert (code, document["tool"], document["format_version"], document["command"]) == (1, "rigorbench", 1, "lint")
    assert document["files"] == 2 and document["benchmarks"] == 2
    rules = {f["rule"] for f in document["findings"]}
    assert {"RETU", "FINAL", "FORK"} <= rules
    for finding in document["findings"]:
        for key in ("rule", "severity", "path", "line", "column", "benchmark", "message", "hint", "fixable"):
            assert key in finding
    retu = next(f for f in document["findings"] if f["rule"] == "RETU")
    assert retu["benchmark"] == "BadBenchmark.logOf" and retu["fixable"] is True


def test_sarif_passes_microsofts_validator(project, tmp_path):
    code, out, _ = lint(str(project), "--format", "sarif")
    document = json.loads(out)
    run = document["runs"][0]
    assert document["version"] == "2.1.0"
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == set(RULES)
    assert {r["ruleId"] for r in run["results"]} >= {"RETU", "FINAL", "FORK"}
    assert_valid_sarif(out, tmp_path)


def test_diff_shows_the_patch_and_writes_nothing(project):
    bad = project / "src/demo/BadBenchmark.java"
    code, out, err = lint(str(project), "--diff")
    assert code == 1
    assert bad.read_text() == BAD
    assert f"--- a/{bad}" in out and f"+++ b/{bad}" in out
    assert "-@Fork(0)" in out and "+@Fork(1)" in out
    assert "-    private final double x = 3.0;" in out and "+    private double x = 3.0;" in out
    assert "fixable findings in 1 files" in err


def test_fix_rewrites_in_place_keeps_comments_and_relints(project):
    bad = project / "src/demo/BadBenchmark.java"
    code, out, err = lint(str(project), "--fix", "--format", "json")
    fixed = bad.read_text()
    assert "// the input: folded by the JIT because it is final" in fixed
    assert "@Fork(1)" in fixed and "private double x = 3.0;" in fixed
    assert "Math.log(x)" in fixed and ("return Math.log(x);" in fixed or "consume(Math.log(x))" in fixed)
    remaining = {f["rule"] for f in json.loads(out)["findings"]}
    assert not remaining & {"RETU", "FINAL", "FORK"}, remaining
    assert code == 0
    assert err.startswith("fixed 3 findings in 1 files")
    assert lint(str(project))[0] == 0


def test_explain_and_list_rules():
    code, out, _ = lint("--explain", "loop")
    assert code == 0
    assert out.startswith("LOOP [warning]") and "Reference:" in out and "Fixable: yes" in out
    code, out, _ = lint("--list-rules")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == list(RULES)
    for rule in ("RETU", "LOOP", "FINAL", "INVO", "FORK"):
        assert rule in RULES
    # what a rule leaves out is said where its findings are explained
    assert "DONT_INLINE" in lint("--explain", "RETU")[1] and "DONT_INLINE" in lint("--explain", "VOID")[1]
    assert "more than 32 characters" in lint("--explain", "FINAL")[1]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--explain", "NOPE"], "unknown rule 'NOPE'; the rules are RETU"),
        (["--rules", "RETU,XYZ", "."], "unknown rule 'XYZ'"),
        ([], "give one or more PATHs"),
        (["missing-dir"], "missing-dir: no such file or directory"),
        (["--fix", "--diff", "."], "--fix and --diff do not go together"),
        (["notes.txt"], "notes.txt: not a Java source or Go test file"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("not java")
    code, out, err = lint(*args)
    assert code == 2
    assert message in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_real_subprocess_exit_codes(project):
    done = subprocess.run([sys.executable, "-m", "rigorbench", "lint", str(project), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and json.loads(done.stdout)["findings"]
    done = subprocess.run([sys.executable, "-m", "rigorbench", "lint", str(project / "nope")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_ab_lints_sources_before_building_and_strict_stops(tmp_path, fake):
    from rigorbench.store import ResultStore

    for label, text in (("v1", GOOD), ("v2", BAD)):
        (tmp_path / "proj" / label / "src").mkdir(parents=True)
        (tmp_path / "proj" / label / "src" / "B.java").write_text(text)
    store = tmp_path / "r.db"
    argv = ["ab", str(tmp_path / "proj"), "--base", "v1", "--contender", "v2", "--trials", "2", "--store", str(store)]
    out, err = io.StringIO(), io.StringIO()
    assert main([*argv, "--strict"], out, err) == 1
    assert "lint v2: src/B.java:13:9: RETU [error]" in err.getvalue()
    assert "nothing was built or run" in err.getvalue()
    assert fake.calls == [] and "building v2" not in err.getvalue()
    with ResultStore.open(str(store), create=False) as opened:
        assert opened.list_runs() == []
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, out, err) == 0  # lint does not block without --strict
    assert "lint v2: src/B.java:13:9: RETU [error]" in err.getvalue()
    assert "lint v1: no findings in 1 file (1 benchmark)" in err.getvalue()
    assert len(fake.calls) == 4
    out, err = io.StringIO(), io.StringIO()
    main([*argv, "--no-lint"], out, err)
    assert "lint v2" not in err.getvalue()


def test_a_directory_without_java_files_says_so(tmp_path):
    code, out, err = lint(str(tmp_path))
    assert code == 0 and "no findings in 0 files" in out
    assert err == f"rigorbench: warning: no .java or _test.go files under {tmp_path}\n"
