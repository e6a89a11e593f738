"""The Go rules on the labelled Go corpus (tests/lint/go), and --fix checked by the Go toolchain.

go122/ is a module on Go 1.22 (every rule but GO-BLOOP), go124/ one on Go 1.24 (GO-BLOOP and
how the other rules behave next to b.Loop). Both compile: a test below builds them with the
real go command, so every negative case is real Go, not text that only looks like it.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.lint import RULES, lint_paths

from tests.lint.corpus import GO, expected_labels, format_table, found_labels, score

GO_RULES = [rule for rule in RULES if RULES[rule].language == "go"]
GO_CMD = shutil.which("go")
# Go is part of the machine's set-up (README); without it these tests fail instead of skipping.
assert GO_CMD, "the Go lint tests need the go command on PATH"


def go(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([GO_CMD, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def gofmt_unformatted(directory: Path) -> str:
    gofmt = Path(GO_CMD).with_name("gofmt")
    done = subprocess.run([str(gofmt), "-l", "."], cwd=directory, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_corpus_agrees_exactly_with_labels():
    result = lint_paths([GO])
    expected, found = expected_labels(GO, "*.go"), found_labels(result.findings)
    assert result.warnings == ()
    assert sorted((found - expected).elements()) == []
    assert sorted((expected - found).elements()) == []
    table = score(expected, found, GO_RULES)
    print("\nGo corpus:", result.files, "files,", result.benchmarks, "benchmarks")
    print(format_table(table))
    assert all(table[rule][0] > 0 for rule in GO_RULES), "every Go rule has a positive case"
    flagged = {f.benchmark.split("/")[0] for f in result.findings}
    assert result.benchmarks - len(flagged) >= 25  # negative cases: benchmarks without findings


@pytest.mark.e2e   # builds with the real go toolchain
def test_corpus_is_real_go_that_compiles():
    for module in ("go122", "go124"):
        done = go("vet", ".", cwd=GO / module)
        assert done.returncode == 0, done.stderr
        assert gofmt_unformatted(GO / module) == ""


def test_go_rules_do_not_read_java_and_java_rules_do_not_read_go():
    result = lint_paths([GO], rules=["RETU", "LOOP", "FINAL", "TIMER"])
    assert result.findings == () and result.files == 4
    java = Path(__file__).parent / "java" / "corpus"
    assert not any(f.rule.startswith("GO-") for f in lint_paths([java]).findings)


def test_bloop_needs_go_1_24_in_the_nearest_go_mod(tmp_path):
    source = (GO / "go124" / "bloop_test.go").read_text()
    for line, expected in (("go 1.23", 0), ("go 1.24.0", 12), ("go 1.26rc1", 12), ("", 0)):
        module = tmp_path / line.replace(" ", "_") / "pkg"
        module.mkdir(parents=True)
        (module / "bloop_test.go").write_text(source)
        if line:
            (module.parent / "go.mod").write_text(f"module example.com/m\n\n{line}\n")
        found = [f for f in lint_paths([module]).findings if f.rule == "GO-BLOOP"]
        assert len(found) == expected, line
    nested = tmp_path / "go_1.23" / "pkg" / "inner"  # a closer go.mod wins
    nested.mkdir()
    (nested / "go.mod").write_text("module example.com/inner\n\ngo 1.25\n")
    (nested / "x_test.go").write_text(source)
    assert {f.path for f in lint_paths([nested]).findings if f.rule == "GO-BLOOP"} == {str(nested / "x_test.go")}


def test_suppression_comment_silences_only_its_rule(tmp_path):
    module = tmp_path / "m"
    shutil.copytree(GO / "go122", module)
    path = module / "results_test.go"
    text = path.read_text()
    marker = " // rigorbench:ignore GO-RESULT the loop overhead is what we measure"
    assert marker in text
    line = text[:text.index(marker)].count("\n") + 1
    assert not [f for f in lint_paths([path]).findings if f.line == line]
    path.write_text(text.replace(marker, " // rigorbench:ignore GO-SETUP other rule"))
    assert [f.rule for f in lint_paths([path]).findings if f.line == line] == ["GO-RESULT"]


def fix(directory: Path) -> str:
    out, err = io.StringIO(), io.StringIO()
    code = main(["lint", str(directory), "--fix", "--show-info", "--fail-on", "never"], out, err)
    assert code == 0, err.getvalue()
    return err.getvalue()


@pytest.mark.e2e   # builds with the real go toolchain
def test_fix_rewrites_b_n_loops_to_b_loop_and_the_result_builds_and_runs(tmp_path):
    module = tmp_path / "bloop"
    shutil.copytree(GO / "go124", module)
    assert "fixed 6 findings in 1 files" in fix(module)
    text = (module / "bloop_test.go").read_text()
    classic = text[text.index("func BenchmarkClassic"):text.index("func BenchmarkRangeN")]
    assert "b.ResetTimer()" not in classic
    assert "\tfor b.Loop() { // expect: GO-BLOOP\n\t\tsink += strings.Count" in classic
    assert text.count("for b.Loop() {") == 2 + 6
    assert "\tb.ResetTimer()" not in text and "\n\n\n" not in text  # one blank line left, as gofmt wants
    assert "for n := b.N; n > 0; n-- {" in text and "sink += i" in text  # left alone
    assert gofmt_unformatted(module) == ""
    done = go("vet", ".", cwd=module)
    assert done.returncode == 0, done.stderr
    # b.Loop fails a benchmark that leaves its loop early or stops the timer; run each once
    done = go("test", "-run", "^$", "-bench", ".", "-benchtime", "1x", ".", cwd=module)
    assert done.returncode == 0 and "PASS" in done.stdout, done.stdout + done.stderr
    left = lint_paths([module]).findings
    assert [f.rule for f in left if f.fixable] == []
    assert sum(f.rule == "GO-BLOOP" for f in left) == 6
    assert not any(f.rule == "GO-SETUP" for f in left)  # b.Loop resets the timer itself


@pytest.mark.e2e   # builds with the real go toolchain
def test_fix_inserts_reset_timer_before_the_loop_and_the_result_builds(tmp_path):
    module = tmp_path / "corpus"
    shutil.copytree(GO / "go122", module)
    before = [f for f in lint_paths([module]).findings if f.rule == "GO-SETUP"]
    fixable = [f for f in before if f.fixable]
    assert len(before) == len(fixable) == 7  # also before b.RunParallel(...)
    fix(module)
    assert gofmt_unformatted(module) == ""
    done = go("vet", ".", cwd=module)
    assert done.returncode == 0, done.stderr
    assert not [f for f in lint_paths([module]).findings if f.rule == "GO-SETUP"]
    text = (module / "setup_test.go").read_text()
    assert "\tbuf := make([]byte, big) // expect: GO-SETUP\n\tb.ResetTimer()\n\tfor i := 0; i < b.N; i++ {" in text
    assert "\t\tdata, _ := os.ReadFile(\"code.go\") // expect: GO-SETUP\n\t\tb.ResetTimer()\n" in text


@pytest.mark.parametrize("name", ["vendor", "testdata"])
def test_go_files_under_vendor_and_testdata_are_skipped_like_the_go_tool(tmp_path, name):
    source = (GO / "go122" / "timer_test.go").read_text()
    (tmp_path / name / "dep").mkdir(parents=True)
    (tmp_path / name / "dep" / "x_test.go").write_text(source)
    (tmp_path / "lib.go").write_text("package corpus\n")
    result = lint_paths([tmp_path])
    assert result.files == 0 and result.findings == ()
    assert lint_paths([tmp_path / name / "dep"]).files == 1  # named directly, it is linted
