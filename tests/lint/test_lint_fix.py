"""``fix_findings``: fixed files parse, re-lint clean for the fixed rules, keep formatting."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from rigorbench.lint import FileFix, fix_findings, lint_paths
from rigorbench.lint.parse import first_error, parse

from tests.lint.corpus import CORPUS, GAPS


@pytest.fixture(scope="module")
def fixed_corpus(tmp_path_factory):
    """The corpus copied, linted, fixed (files rewritten) and linted again."""
    root = tmp_path_factory.mktemp("fixed") / "corpus"
    shutil.copytree(CORPUS, root)
    shutil.copytree(GAPS, root / "gaps")
    before = lint_paths([root])
    fixes = fix_findings(before)
    for fix in fixes:
        Path(fix.path).write_text(fix.fixed, encoding="utf-8")
    return before, fixes, lint_paths([root])


def test_every_fixable_file_is_fixed(fixed_corpus):
    before, fixes, _ = fixed_corpus
    assert {Path(f.path).name for f in before.findings if f.fixable} == \
        {Path(f.path).name for f in fixes}
    assert all(isinstance(f, FileFix) and f.original != f.fixed for f in fixes)


def test_fixed_files_parse_without_errors(fixed_corpus):
    _, fixes, _ = fixed_corpus
    for fix in fixes:
        tree = parse(fix.path, fix.fixed.encode("utf-8"))
        assert first_error(tree.root) is None, fix.path


def test_fixed_findings_are_gone_and_no_new_ones(fixed_corpus):
    before, fixes, after = fixed_corpus
    for fix in fixes:
        for rule in fix.rules:
            old = Counter(f.message for f in before.findings
                          if f.path == fix.path and f.rule == rule and not f.fixable)
            new = Counter(f.message for f in after.findings if f.path == fix.path and f.rule == rule)
            assert new == old, (fix.path, rule)
    assert not [f for f in after.findings if f.fixable]


def test_fix_does_not_write_files(tmp_path):
    path = tmp_path / "A.java"
    text = "class A { @Benchmark void m() { Math.log(x); } double x; }\n"
    path.write_text(text)
    fixes = fix_findings(lint_paths([path]))
    assert len(fixes) == 1 and path.read_text() == text


def _fix_one(tmp_path, text: str, name: str = "B.java") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    fixes = fix_findings(lint_paths([path]))
    assert len(fixes) == 1
    return fixes[0].fixed


def test_blackhole_parameter_and_import_added_once(tmp_path):
    source = """package p;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.State;

@State(org.openjdk.jmh.annotations.Scope.Thread)
public class B {
    double x = 1, y = 2; // inputs

    @Benchmark
    public double two() {
        Math.log(x);   /* first */
        Math.log(y);   // second
        return x;
    }
}
"""
    expected = source.replace(
        "import org.openjdk.jmh.annotations.State;",
        "import org.openjdk.jmh.annotations.State;\nimport org.openjdk.jmh.infra.Blackhole;",
    ).replace("two()", "two(Blackhole bh)").replace(
        "Math.log(x);   /* first */", "bh.consume(Math.log(x));   /* first */").replace(
        "Math.log(y);   // second", "bh.consume(Math.log(y));   // second")
    assert _fix_one(tmp_path, source) == expected


def test_void_single_local_becomes_return(tmp_path):
    source = """class C {
    int n = 3;
    @org.openjdk.jmh.annotations.Benchmark
    public void m() {
        // compute the square
        long sq = (long) n * n;
    }
}
"""
    expected = source.replace("public void m()", "public long m()").replace(
        "long sq = (long) n * n;", "long sq = (long) n * n;\n        return sq;")
    assert _fix_one(tmp_path, source, "C.java") == expected


def test_loop_fix_makes_method_void_and_keeps_comments(tmp_path):
    source = """import org.openjdk.jmh.annotations.Benchmark;

class D {
    int[] xs = new int[8];
    int work(int v) { return v + 1; }

    @Benchmark
    public int sum() {
        int acc = 0;
        for (int v : xs) {
            acc += work(v); // the measured call
        }
        return acc;
    }
}
"""
    expected = """import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.infra.Blackhole;

class D {
    int[] xs = new int[8];
    int work(int v) { return v + 1; }

    @Benchmark
    public void sum(Blackhole bh) {
        for (int v : xs) {
            bh.consume(work(v)); // the measured call
        }
    }
}
"""
    assert _fix_one(tmp_path, source, "D.java") == expected


def test_loop_fix_keeps_return_when_accumulator_is_used_elsewhere(tmp_path):
    source = """class E {
    int[] xs = new int[8];
    int work(int v) { return v + 1; }
    @org.openjdk.jmh.annotations.Benchmark
    public int sum(org.openjdk.jmh.infra.Blackhole hole) {
        int acc = 1;
        for (int v : xs) { acc *= work(v); }
        return acc + xs.length;
    }
}
"""
    fixed = _fix_one(tmp_path, source, "E.java")
    assert "hole.consume(work(v));" in fixed and "return acc + xs.length;" in fixed
    assert "import org.openjdk.jmh.infra.Blackhole" not in fixed


def test_final_fix_keeps_comments_and_other_modifiers(tmp_path):
    source = """@org.openjdk.jmh.annotations.State(org.openjdk.jmh.annotations.Scope.Thread)
class F {
    /** the input */ private final /* why */ double x = 2.0; // folded
    @org.openjdk.jmh.annotations.Benchmark public double m() { return Math.log(x); }
}
"""
    fixed = _fix_one(tmp_path, source, "F.java")
    assert "/** the input */ private /* why */ double x = 2.0; // folded" in fixed


def test_fork_fix_and_spread_parameter(tmp_path):
    source = """@org.openjdk.jmh.annotations.Fork(value = 0)
class G {
    @org.openjdk.jmh.annotations.Benchmark public void m(int... xs) { Math.abs(xs[0]); Math.abs(xs[1]); }
}
"""
    fixed = _fix_one(tmp_path, source, "G.java")
    assert fixed.startswith("import org.openjdk.jmh.infra.Blackhole;\n\n@org.openjdk.jmh.annotations.Fork(value = 1)")
    assert "m(Blackhole bh, int... xs) { bh.consume(Math.abs(xs[0])); bh.consume(Math.abs(xs[1])); }" in fixed


def test_only_findings_left_in_result_are_fixed(tmp_path):
    path = tmp_path / "H.java"
    path.write_text("@Fork(0) class H { @Benchmark void m() { Math.log(x); } double x; }\n")
    result = lint_paths([path])
    import dataclasses
    only_fork = dataclasses.replace(result, findings=tuple(f for f in result.findings if f.rule == "FORK"))
    (fix,) = fix_findings(only_fork)
    assert fix.rules == ("FORK",) and "Math.log(x);" in fix.fixed and "@Fork(1)" in fix.fixed


def test_pre_1_0_jmh_benchmarks_are_linted_and_fixed_with_their_own_blackhole(tmp_path):
    """JMH before 1.0 marked benchmarks @GenerateMicroBenchmark and named the sink
    org.openjdk.jmh.logic.BlackHole: such a suite is linted like a new one, its BlackHole
    counts as consuming, and a fix adds the parameter type that JMH has."""
    source = """package old;

import org.openjdk.jmh.annotations.GenerateMicroBenchmark;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.logic.BlackHole;

@State(Scope.Thread)
public class Old {
    double x = 3.0;
    @GenerateMicroBenchmark public void dropped() { Math.log(x); Math.sqrt(x); }
    @GenerateMicroBenchmark public void sunk(BlackHole bh) { bh.consume(Math.log(x)); }
}
"""
    path = tmp_path / "Old.java"
    path.write_text(source, encoding="utf-8")
    result = lint_paths([path])
    assert result.benchmarks == 2
    assert [(f.rule, f.line) for f in result.findings if f.severity != "info"] == [("RETU", 11), ("RETU", 11)]
    fixed = _fix_one(tmp_path, source, "Old.java")
    assert "dropped(BlackHole bh) { bh.consume(Math.log(x)); bh.consume(Math.sqrt(x)); }" in fixed
    assert "import org.openjdk.jmh.infra.Blackhole" not in fixed and fixed.count("import org.openjdk.jmh.logic.BlackHole;") == 1
