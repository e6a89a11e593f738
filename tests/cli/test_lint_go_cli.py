"""``rigorbench lint`` on Go benchmarks from the command line: text, JSON and SARIF (checked
by Microsoft's validator), --explain and --list-rules, the [lint] table, baselines, bad
input, and the lint step before ``ab`` runs a Go module."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from rigorbench.cli import main

from tests.cli.sarif_check import assert_valid_sarif

CORPUS = Path(__file__).resolve().parents[1] / "lint" / "go"

BAD = """\
package demo

import (
\t"strings"
\t"testing"
)

func BenchmarkUpper(b *testing.B) {
\tfor i := 0; i < b.N; i++ {
\t\t_ = strings.ToUpper("abc")
\t}
}

func BenchmarkOnce(b *testing.B) {
\tstrings.Repeat("a", 10)
}
"""

GOOD = """\
package demo

import (
\t"strings"
\t"testing"
)

var sink string

func BenchmarkUpper(b *testing.B) {
\tfor i := 0; i < b.N; i++ {
\t\tsink = strings.ToUpper("abc")
\t}
}
"""


def lint(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["lint", *args], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def module(tmp_path):
    root = tmp_path / "mod"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/demo\n\ngo 1.24\n")
    (root / "demo.go").write_text("package demo\n")
    (root / "bad_test.go").write_text(BAD)
    (root / "good_test.go").write_text(GOOD)
    return root


def test_text_output_names_rule_benchmark_and_hint(module):
    code, out, err = lint(str(module))
    assert code == 1
    assert f"{module / 'bad_test.go'}:10:7: GO-RESULT [warning] result of strings.ToUpper(\"abc\") is discarded" in out
    assert "BenchmarkOnce:\n" in out and "GO-NOLOOP [error] BenchmarkOnce never runs its code b.N times" in out
    assert "hint: write 'for b.Loop()'" in out
    assert "2 info findings not shown" in err  # GO-BLOOP suggestions, one per b.N loop
    code, out, _ = lint(str(module), "--show-info")
    assert out.count("GO-BLOOP [info]") == 2 and "3 benchmarks" in out


def test_json_findings_carry_the_contract_fields(module):
    code, out, _ = lint(str(module), "--format", "json")
    document = json.loads(out)
    assert (code, document["files"], document["benchmarks"]) == (1, 2, 3)
    rules = sorted(f["rule"] for f in document["findings"])
    assert rules == ["GO-BLOOP", "GO-BLOOP", "GO-NOLOOP", "GO-RESULT"]
    for finding in document["findings"]:
        assert finding["fingerprint"] and finding["path"].endswith("_test.go")
    bloop = [f for f in document["findings"] if f["rule"] == "GO-BLOOP"]
    assert all(f["fixable"] and f["severity"] == "info" for f in bloop)


def test_sarif_with_go_findings_passes_microsofts_validator(module, tmp_path):
    code, out, _ = lint(str(module), "--format", "sarif")
    run = json.loads(out)["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert rules["GO-RESULT"]["properties"]["tags"] == ["benchmark", "go"]
    assert rules["GO-RESULT"]["name"] == "GoUnusedResultInLoop"
    assert {r["ruleId"] for r in run["results"]} == {"GO-RESULT", "GO-NOLOOP", "GO-BLOOP"}
    assert_valid_sarif(out, tmp_path)


def test_explain_and_list_rules_include_the_go_rules():
    code, out, _ = lint("--explain", "go-result")
    assert code == 0 and out.startswith("GO-RESULT [warning]")
    assert "What is flagged:" in out and "Not flagged: method calls" in " ".join(out.split())
    assert "Reference: Go testing package docs, B.Loop" in out
    code, out, _ = lint("--explain", "GO-TIMER")
    assert "golang/go#27217" in out
    code, out, _ = lint("--list-rules")
    listed = [line.split()[0] for line in out.splitlines()]
    assert listed[-6:] == ["GO-RESULT", "GO-SETUP", "GO-TIMER", "GO-BN", "GO-NOLOOP", "GO-BLOOP"]


def test_lint_table_selects_ignores_and_raises_go_rules(module, tmp_path):
    config = tmp_path / "rigorbench.toml"
    config.write_text('[lint]\nignore = ["GO-NOLOOP"]\nseverity = { GO-RESULT = "error", "GO-BLOOP" = "warning" }\n')
    code, out, _ = lint(str(module), "--config", str(config), "--format", "json")
    found = sorted((f["rule"], f["severity"]) for f in json.loads(out)["findings"])
    assert found == [("GO-BLOOP", "warning"), ("GO-BLOOP", "warning"), ("GO-RESULT", "error")]
    code, out, _ = lint(str(module), "--rules", "GO-NOLOOP", "--format", "json")
    assert [f["rule"] for f in json.loads(out)["findings"]] == ["GO-NOLOOP"]
    config.write_text('[lint]\nselect = ["GO-NOSUCH"]\n')
    code, _, err = lint(str(module), "--config", str(config))
    assert code == 2 and "unknown rule 'GO-NOSUCH'" in err and "GO-BLOOP" in err


def test_baseline_hides_known_go_findings_only(module, tmp_path):
    baseline = tmp_path / "baseline.json"
    code, _, err = lint(str(module), "--baseline", str(baseline))
    assert code == 0 and "recorded 4 findings" in err
    (module / "more_test.go").write_text(BAD.replace("BenchmarkUpper", "BenchmarkLower").replace("BenchmarkOnce", "BenchmarkTwice"))
    code, out, _ = lint(str(module), "--baseline", str(baseline), "--format", "json")
    assert code == 1
    assert {f["benchmark"] for f in json.loads(out)["findings"]} == {"BenchmarkLower", "BenchmarkTwice"}


def test_a_go_file_that_is_not_a_test_file_is_bad_input(module):
    code, out, err = lint(str(module / "demo.go"))
    assert code == 2 and out == ""
    assert err.strip().endswith("demo.go: not a Java source or Go test file (lint reads .java and _test.go files and directories)")


def test_ab_lints_go_sources_before_building_and_strict_stops(tmp_path, fake):
    for label, text in (("v1", GOOD), ("v2", BAD)):
        version = tmp_path / "proj" / label
        version.mkdir(parents=True)
        (version / "go.mod").write_text("module example.com/demo\n\ngo 1.22\n")
        (version / "bench_test.go").write_text(text)
    argv = ["ab", str(tmp_path / "proj"), "--harness", "go", "--base", "v1", "--contender", "v2",
            "--trials", "2", "--store", str(tmp_path / "r.db")]
    out, err = io.StringIO(), io.StringIO()
    assert main([*argv, "--strict"], out, err) == 1
    assert "lint v2: bench_test.go:10:7: GO-RESULT [warning]" in err.getvalue()
    assert "lint v2: bench_test.go:14:6: GO-NOLOOP [error]" in err.getvalue()
    assert "nothing was built or run" in err.getvalue() and fake.calls == []
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, out, err) == 0
    assert "lint v1: no findings in 1 file (1 benchmark)" in err.getvalue()
    assert len(fake.calls) == 4


def test_real_go_corpus_through_the_command(tmp_path):
    module = tmp_path / "go124"
    shutil.copytree(CORPUS / "go124", module)
    code, out, err = lint(str(module), "--diff")
    assert code == 1 and out.count("+\tfor b.Loop() {") == 5 and "6 fixable findings in 1 files" in err
