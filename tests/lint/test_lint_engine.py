"""``lint_paths``: discovery, errors, warnings, ordering, rule selection, rule metadata."""

from __future__ import annotations

import dataclasses
import os

import pytest

from rigorbench.errors import InputError, UserError
from rigorbench.lint import RULES, LintResult, Rule, fix_findings, lint_paths
from rigorbench.model import SEVERITIES

from tests.lint.corpus import CORPUS

BENCH = """import org.openjdk.jmh.annotations.Benchmark;
class {name} {{
    double x = 1;
    @Benchmark public void m() {{ Math.log(x); }}
}}
"""


def write(path, text, encoding="utf-8"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))
    return path


def test_rules_registry_metadata():
    assert list(RULES) == ["RETU", "LOOP", "FINAL", "INVO", "FORK", "TIMER", "SLEEP", "PRINT",
                           "VOID", "OPINV", "SHARED", "PARAMW", "PARAMU", "STALE", "GO-RESULT", "GO-SETUP",
                           "GO-TIMER", "GO-BN", "GO-NOLOOP", "GO-BLOOP"]
    assert {r.language for r in RULES.values()} == {"java", "go"}
    assert all(RULES[r].language == "go" for r in RULES if r.startswith("GO-"))
    for rule_id, rule in RULES.items():
        assert isinstance(rule, Rule) and rule.id == rule_id
        assert rule.severity in SEVERITIES and "\n" not in rule.title
        assert rule.explanation.count("\n\n") >= 3, rule_id
        assert "Before:" in rule.explanation and "After:" in rule.explanation
        assert rule.reference and callable(rule.check)
    assert [r for r in RULES if RULES[r].fixable] == ["RETU", "LOOP", "FINAL", "FORK", "VOID",
                                                      "GO-SETUP", "GO-BLOOP"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        RULES["RETU"].id = "X"


def test_directory_discovery_paths_as_given_and_sorted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "proj/src/b/B.java", BENCH.format(name="B"))
    write(tmp_path / "proj/src/a/A.java", BENCH.format(name="A"))
    write(tmp_path / "proj/target/gen/T.java", BENCH.format(name="T"))
    write(tmp_path / "proj/build.gradle", "plugins { id 'java' }\n")
    write(tmp_path / "proj/build/gen/U.java", BENCH.format(name="U"))
    write(tmp_path / "proj/lib/build/classes/V.java", BENCH.format(name="V"))
    write(tmp_path / "proj/.hidden/H.java", BENCH.format(name="H"))
    write(tmp_path / "proj/src/notes.txt", "Math.log(x);")
    result = lint_paths(["proj"])
    assert isinstance(result, LintResult)
    assert result.files == 2 and result.benchmarks == 2
    assert [f.path for f in result.findings] == [os.path.join("proj", "src", "a", "A.java"),
                                                 os.path.join("proj", "src", "b", "B.java")]
    assert [f.benchmark for f in result.findings] == ["A.m", "B.m"]
    single = lint_paths([os.path.join("proj", "src", "a", "A.java")])
    assert single.files == 1 and single.findings[0].path == os.path.join("proj", "src", "a", "A.java")


def test_a_build_folder_of_sources_is_linted(tmp_path):
    """A repository's `build/` folder of modules (no Gradle file beside it, no output inside)
    is source: its benchmarks are linted."""
    write(tmp_path / "proj/build/plugin/src/test/java/W.java", BENCH.format(name="W"))
    write(tmp_path / "proj/build/plugin/pom.xml", "<project/>\n")
    result = lint_paths([tmp_path / "proj"])
    assert result.files == 1 and [f.benchmark for f in result.findings] == ["W.m"]


def test_findings_sorted_and_located():
    result = lint_paths([CORPUS])
    keys = [(f.path, f.line, f.column, f.rule) for f in result.findings]
    assert keys == sorted(keys)
    assert all(f.line >= 1 and f.column >= 1 and f.end_line >= f.line for f in result.findings)
    assert all("\n" not in f.message and f.hint for f in result.findings)


def test_missing_path_raises_input_error(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(InputError) as info:
        lint_paths([missing])
    assert info.value.path == str(missing) and info.value.line is None
    assert "no such file or directory" in str(info.value)


def test_unknown_rule_lists_valid_ids(tmp_path):
    with pytest.raises(UserError) as info:
        lint_paths([tmp_path], rules=["RETU", "BOGUS"])
    assert "BOGUS" in str(info.value) and "RETU, LOOP, FINAL" in str(info.value)


def test_rule_selection(tmp_path):
    write(tmp_path / "A.java", BENCH.format(name="A").replace("class A", "@Fork(0) class A"))
    assert {f.rule for f in lint_paths([tmp_path]).findings} == {"FORK", "RETU"}
    assert {f.rule for f in lint_paths([tmp_path], rules=["fork"]).findings} == {"FORK"}
    assert lint_paths([tmp_path], rules=[]).findings == ()


def test_empty_directory(tmp_path):
    assert lint_paths([tmp_path]) == LintResult((), 0, 0, ())


def test_syntax_error_is_a_warning_not_a_crash(tmp_path):
    write(tmp_path / "Broken.java", BENCH.format(name="Broken").replace("Math.log(x); }", "Math.log(x); ") +
          "\nclass Other { @Benchmark void n() { int y = ; } }\n")
    result = lint_paths([tmp_path])
    assert result.files == 1
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith(str(tmp_path / "Broken.java") + ":")
    assert result.warnings[0].endswith("syntax error; findings in this file may be incomplete")


def test_non_utf8_file_is_skipped_with_warning(tmp_path):
    write(tmp_path / "Latin.java", "// caf\u00e9\n" + BENCH.format(name="Latin"), encoding="latin-1")
    write(tmp_path / "Ok.java", BENCH.format(name="Ok"))
    result = lint_paths([tmp_path])
    assert result.files == 1
    assert result.warnings == (f"{tmp_path / 'Latin.java'}: not UTF-8, skipped",)
    assert {f.benchmark for f in result.findings} == {"Ok.m"}


def test_utf8_names_and_columns(tmp_path):
    write(tmp_path / "U.java", "class Ünï { double x; @Benchmark void m\u00e9() { /* é */ Math.log(x); } }\n")
    (finding,) = lint_paths([tmp_path]).findings
    assert finding.benchmark == "Ünï.mé"
    assert finding.column == "class Ünï { double x; @Benchmark void mé() { /* é */ ".__len__() + 1


def test_untrusted_names_only_flow_into_strings(tmp_path):
    marker = tmp_path / "pwned"
    write(tmp_path / "Evil.java", f"""class Evil {{
    String x = "__import__('os').system('touch {marker}')";
    @Benchmark void m() {{ x.length(); }}
    @Benchmark int n() {{ System.out.println("{{0}} %s $(touch {marker})"); return x.length(); }}
}}
""")
    result = lint_paths([tmp_path])
    assert not marker.exists()
    assert {f.rule for f in result.findings} == {"RETU", "PRINT"}


def test_project_index_spans_files(tmp_path):
    write(tmp_path / "S.java", """@org.openjdk.jmh.annotations.State(org.openjdk.jmh.annotations.Scope.Benchmark)
public class S { public final int n = 4; public static int counter; }
""")
    write(tmp_path / "Calc.java", "public class Calc { public static int sq(int v) { return v * v; } }\n")
    write(tmp_path / "B.java", """class B {
    @Benchmark public void m(S s) { Calc.sq(s.n); S.counter++; }
}
""")
    rules = {(f.rule, os.path.basename(f.path)) for f in lint_paths([tmp_path]).findings}
    # Calc.sq, read from another file, is a pure static helper: its dropped result is RETU
    assert rules == {("FINAL", "S.java"), ("SHARED", "B.java"), ("RETU", "B.java")}


def test_same_simple_class_name_in_many_files_resolves_to_nearest(tmp_path):
    for n, final in ((1, ""), (2, "final "), (3, "")):
        write(tmp_path / f"p{n}" / f"B{n}.java", f"""package p{n};
public class B{n} {{
    @org.openjdk.jmh.annotations.State(org.openjdk.jmh.annotations.Scope.Thread)
    public static class Input {{ {final}double x = 2.5; }}
    @org.openjdk.jmh.annotations.Benchmark public double m(Input in) {{ return Math.log(in.x); }}
}}
""")
    (finding,) = lint_paths([tmp_path]).findings
    assert (finding.rule, finding.benchmark) == ("FINAL", "B2.m")
    assert finding.path.endswith("B2.java")


def test_damaged_sources_never_crash(tmp_path):
    path = tmp_path / "X.java"
    for source in sorted(CORPUS.glob("*.java")):
        text = source.read_text(encoding="utf-8")
        for cut in range(len(text) // 7, len(text), len(text) // 7):
            for damaged in (text[:cut], text[:cut] + "{(;" + text[cut:], text[:cut] + text[cut + 40:]):
                path.write_text(damaged, encoding="utf-8")
                result = lint_paths([path])
                fix_findings(result)
                assert result.files == 1


def test_same_package_class_wins_over_other_packages(tmp_path):
    write(tmp_path / "a" / "S.java", "package a;\npublic class S { public static int hits; }\n")
    write(tmp_path / "b" / "S.java", "package b;\npublic class S { public static final int hits = 0; }\n")
    write(tmp_path / "b" / "B.java", "package b;\nclass B { @Benchmark public int m() { return S.hits + 1; } }\n")
    write(tmp_path / "c" / "C.java", "package a;\nclass C { @Benchmark public void m() { S.hits++; } }\n")
    findings = lint_paths([tmp_path]).findings
    assert [(f.rule, f.benchmark) for f in findings] == [("SHARED", "C.m")]


def test_a_rule_that_fails_on_one_file_loses_only_its_findings_there(tmp_path, monkeypatch):
    """A bug in one rule on code nobody foresaw (a KeyError deep in a rule, say) costs that
    rule's findings in that file, said in a warning line naming both, not the whole project
    to an internal error; RIGORBENCH_DEBUG=1 raises it for the traceback."""
    write(tmp_path / "A.java", BENCH.format(name="A"))
    write(tmp_path / "B.java", BENCH.format(name="B"))
    rule = RULES["RETU"]

    def fails_on_a(ctx):
        if ctx.source.path.endswith("A.java"):
            raise KeyError("variable_declarator")
        yield from rule.check(ctx)

    monkeypatch.setitem(RULES, "RETU", dataclasses.replace(rule, check=fails_on_a))
    monkeypatch.delenv("RIGORBENCH_DEBUG", raising=False)
    result = lint_paths([tmp_path])
    assert {(os.path.basename(f.path), f.rule) for f in result.findings if f.rule == "RETU"} == {("B.java", "RETU")}
    [line] = [w for w in result.warnings if "RETU" in w]
    assert line.startswith(str(tmp_path / "A.java")) and "rule RETU failed (KeyError" in line
    monkeypatch.setenv("RIGORBENCH_DEBUG", "1")
    with pytest.raises(KeyError):
        lint_paths([tmp_path])


def test_every_node_kind_the_rules_look_up_is_indexed():
    # The parse index holds only parse.INDEXED_TYPES; asking it for another kind raises
    # KeyError, which stops the lint of a whole project (it did on a loop bounded by a
    # local, a path no sample reached). Every kind named literally in a lookup must be held.
    import pathlib
    import re

    import rigorbench.lint
    from rigorbench.lint.parse import INDEXED_TYPES

    root = pathlib.Path(rigorbench.lint.__file__).parent
    lookup = re.compile(r"\.(?:own|within)\(\s*\"(\w+)\"")
    # kinds looked up in a loop: `for kind in ("a", "b")` and `kinds = ("a", "b")`
    loop = re.compile(r"(?:for kind in|kinds =) \(([^)]*)\)")
    asked = set()
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        asked.update(lookup.findall(text))
        for group in loop.findall(text):
            asked.update(re.findall(r"\"(\w+)\"", group))
    assert "method_invocation" in asked and "local_variable_declaration" in asked
    assert sorted(asked - set(INDEXED_TYPES)) == []


def test_lint_keeps_no_parse_tree_alive_after_it_returns(tmp_path):
    # annotations are cached per declaration during a run; the cache holds nodes, and each node
    # its whole tree, so it is emptied when lint_paths returns (and when a rule raises)
    from rigorbench.lint import parse as lint_parse
    (tmp_path / "A.java").write_text("import org.openjdk.jmh.annotations.*;\n@State(Scope.Thread)\n"
                                     "public class A {\n@org.openjdk.jmh.annotations.Benchmark @Fork(0)\n"
                                     "public int m() { return 1; } }\n", encoding="utf-8")
    result = lint_paths([tmp_path])
    assert [f.rule for f in result.findings] == ["FORK"]   # the qualified @Benchmark is found
    assert lint_parse._annotation_table.cache_info().currsize == 0


def test_the_project_memos_go_with_the_lint_run(tmp_path):
    # PARAMU's per-statement facts and reads are kept per project index, weakly: nothing in them
    # may refer back to the index, or every linted project would stay in memory
    import gc
    from rigorbench.lint.rules import config, param_read
    (tmp_path / "P.java").write_text(
        "import org.openjdk.jmh.annotations.*;\n@State(Scope.Thread) @Fork(1)\npublic class P {\n"
        "@Param({\"1\", \"2\"}) int n; int[] data;\n"
        "@Setup public void s() { if (n > 1) { data = new int[n]; } else { data = new int[2]; } }\n"
        "@Benchmark public int m() { return data.length; } }\n", encoding="utf-8")
    (tmp_path / "Q.java").write_text(   # a per-call fixture: INVO memoizes each class's users
        "import org.openjdk.jmh.annotations.*;\n@State(Scope.Thread)\npublic class Q {\nint[] d;\n"
        "@Setup(Level.Invocation) public void s() { d = new int[4]; }\n"
        "@Benchmark public int m() { return d.length; } }\n", encoding="utf-8")
    lint_paths([tmp_path])
    gc.collect()
    assert config._users_by_class.cache_info().currsize == 0
    assert len(param_read._FACTS) == 0 and len(param_read._READS) == 0


_COPY = """package p;
import org.openjdk.jmh.annotations.*;
@State(Scope.Benchmark)
public class DVBench {{
  @Param({{"1", "2"}})
  private int {param};
  private int[] data;
  @Setup
  public void setup() {{ fill(); }}
  private void fill() {{ data = new int[{param} * 10]; }}
  @Benchmark
  public int read() {{ return data.length; }}
}}
"""


def test_copies_of_a_class_per_module_version_are_read_as_their_own(tmp_path):
    # a whole repository may declare one qualified name in each supported version's module
    # (iceberg's spark/v3.5 and v4.0): each copy's helpers are read from its own file, so the
    # @Param the second copy's helper reads is not reported unread
    for version, param in (("v1", "count"), ("v2", "fileCount")):
        folder = tmp_path / version / "src" / "jmh" / "java" / "p"
        folder.mkdir(parents=True)
        (folder / "DVBench.java").write_text(_COPY.format(param=param), encoding="utf-8")
    result = lint_paths([tmp_path])
    assert [f for f in result.findings if f.rule == "PARAMU"] == []
    assert result.warnings == ()
    # and a copy that really leaves its @Param unread is still reported, in its own file
    (tmp_path / "v2" / "src" / "jmh" / "java" / "p" / "DVBench.java").write_text(
        _COPY.format(param="fileCount").replace("new int[fileCount * 10]", "new int[10]"), encoding="utf-8")
    found = [f for f in lint_paths([tmp_path]).findings if f.rule == "PARAMU"]
    assert [os.path.relpath(f.path, tmp_path).split(os.sep)[0] for f in found] == ["v2"]


def _repository(tmp_path, library: str, benchmark: str, helper: str = "") -> None:
    """A whole repository: library code under lib/src/main/java, benchmarks (and their
    helpers) under lib/src/jmh/java, as lint sees it when given the repository's root."""
    main = tmp_path / "lib" / "src" / "main" / "java" / "lib"
    jmh = tmp_path / "lib" / "src" / "jmh" / "java" / "bench"
    main.mkdir(parents=True)
    jmh.mkdir(parents=True)
    (main / "Lib.java").write_text("package lib;\nimport java.nio.ByteBuffer;\n" + library, encoding="utf-8")
    (jmh / "B.java").write_text("package bench;\nimport org.openjdk.jmh.annotations.*;\nimport lib.*;\n"
                                + benchmark, encoding="utf-8")
    if helper:
        (jmh / "Helpers.java").write_text("package bench;\n" + helper, encoding="utf-8")


def _rules(tmp_path) -> list[tuple[str, str, int]]:
    return sorted((f.rule, f.severity, f.line) for f in lint_paths([tmp_path]).findings)


def test_library_code_of_a_repository_is_judged_as_library_calls(tmp_path):
    # FINAL: a literal given to the library's own method is judged as a library call (a
    # parser, a lookup: not shown foldable), one given to a benchmark helper as before
    _repository(tmp_path, "public class Lib { public static int square(int v) { return v * v; } }\n",
                "@State(Scope.Thread)\npublic class B {\n"
                "  @Benchmark public int lib() { return Lib.square(12); }\n"
                "  @Benchmark public int helper() { return Helpers.square(12); }\n}\n",
                "public class Helpers { public static int square(int v) { return v * v; } }\n")
    assert _rules(tmp_path) == [("FINAL", "warning", 7)]


def test_library_loops_are_no_evidence_of_a_long_call(tmp_path):
    # INVO: a loop inside the library's method says nothing about the call's length (a few
    # fields, a short buffer); a loop in the benchmark's own helper still does (info)
    library = "public class Lib { public static int sum(int[] a) { int s = 0; for (int x : a) s += x; return s; } }\n"
    benchmark = ("@State(Scope.Thread)\npublic class B {\n  int[] data;\n"
                 "  @Setup(Level.Invocation) public void fresh() { data = new int[8]; }\n"
                 "  @Benchmark public int m() { return {owner}.sum(data); }\n}}\n")
    _repository(tmp_path, library, benchmark.replace("{owner}", "Lib").replace("}}", "}"))
    assert [r[:2] for r in _rules(tmp_path) if r[0] == "INVO"] == [("INVO", "warning")]
    helper = library.replace("Lib", "Helpers")
    (tmp_path / "lib" / "src" / "jmh" / "java" / "bench" / "B.java").unlink()
    _repository(tmp_path / "second", library, benchmark.replace("{owner}", "Helpers").replace("}}", "}"), helper)
    assert [r[:2] for r in _rules(tmp_path / "second") if r[0] == "INVO"] == [("INVO", "info")]


@pytest.mark.parametrize("field, expected", [("private Object value;", ["VOID"]),
                                             ("private volatile Object value;", [])])
def test_void_keeps_a_dropped_volatile_read(tmp_path, field, expected):
    # a volatile read is an acquire the JIT keeps: dropping its result removes nothing
    _repository(tmp_path, "public class Lib { }\n",
                "@State(Scope.Thread)\npublic class B {\n  Helpers lib = null;\n"
                "  @Benchmark public void m() { lib.get(); }\n}\n",
                f"public class Helpers {{ {field} public Object get() {{ return value; }} }}\n")
    assert [r[0] for r in _rules(tmp_path)] == expected


def test_void_follows_every_overload_of_the_arity_called(tmp_path):
    # write(byte[]) delegates to write(ByteBuffer.wrap(b)), which lint resolves by arity to
    # itself: the other overload of one argument, which writes a field, is read too
    _repository(tmp_path, "public class Lib { }\n",
                "@State(Scope.Thread)\npublic class B {\n  Helpers lib = null; byte[] bytes = null;\n"
                "  @Benchmark public void m() { lib.write(bytes); }\n}\n",
                "import java.nio.ByteBuffer;\npublic class Helpers { private long position;\n"
                "  public long write(byte[] b) { return write(ByteBuffer.wrap(b)); }\n"
                "  public long write(ByteBuffer b) { position += b.remaining(); return position; } }\n")
    assert _rules(tmp_path) == []


def test_the_library_of_a_repository_is_read_as_a_library(tmp_path):
    # the library's own getter, pure by its body, is a library call lint cannot see into (as
    # on the benchmarks alone): a dropped instance call of it is not reported; a superclass the
    # benchmarks inherit from the library is still read (its pure helper's dropped result is)
    _repository(tmp_path, "public class Lib { private Object value; public Object get() { return value; } }\n",
                "@State(Scope.Thread)\npublic class B extends lib.Base {\n  Lib lib = null;\n"
                "  @Benchmark public void m() { lib.get(); }\n  @Benchmark public void n() { compute(); }\n}\n")
    (tmp_path / "lib" / "src" / "main" / "java" / "lib" / "Base.java").write_text(
        "package lib;\npublic abstract class Base { protected int compute() { return 42; } }\n", encoding="utf-8")
    assert [(r[0], r[2]) for r in _rules(tmp_path)] == [("VOID", 8)]


def test_a_nested_state_of_the_superclass_is_found_before_a_namesake_elsewhere(tmp_path):
    # heldout37 (opentracing benchmarks): each module nests StateVariables and its subclasses in
    # its own base class; a benchmark subclass names them by their simple names, which Java
    # resolves to its base's member types. Lint took the first module's copy, found no benchmark
    # using the others' per-call fixtures, and raised nothing there.
    for module, base in (("billing", "BillingBase"), ("courses", "CoursesBase")):
        write(tmp_path / module / "src/main/java/demo" / f"{base}.java",
              "package demo;\nimport org.openjdk.jmh.annotations.*;\n"
              f"public class {base} {{\n"
              "    @State(Scope.Thread) public static class StateVariables {\n"
              "        int next;\n"
              "        @Setup(Level.Invocation) public void load() { next++; }\n    }\n"
              "    public static class StateVariablesNoop extends StateVariables { }\n}\n")
        write(tmp_path / module / "src/main/java/demo" / f"{base}Bench.java",
              "package demo;\nimport org.openjdk.jmh.annotations.*;\n"
              f"public class {base}Bench extends {base} {{\n"
              "    @Benchmark public int noop(StateVariablesNoop state) { return state.next; }\n}\n")
    invo = [f for f in lint_paths([tmp_path]).findings if f.rule == "INVO"]
    assert sorted((f.path.rsplit("/", 1)[-1], f.severity) for f in invo) == [
        ("BillingBase.java", "warning"), ("CoursesBase.java", "warning")]
    messages = {f.path.rsplit("/", 1)[-1]: f.message for f in invo}
    assert "BillingBaseBench.noop" in messages["BillingBase.java"]
    assert "CoursesBaseBench.noop" in messages["CoursesBase.java"]
