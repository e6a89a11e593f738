"""PARAMW and PARAMU on small benchmarks: @Param fields overwritten before, or never read by, the
measured code. Each case is one or more Java files; the expected findings are (rule, severity,
file, line) with lines counted in the file as written."""

from __future__ import annotations

import pytest

from rigorbench.lint import RULES, lint_paths

HEADER = "import org.openjdk.jmh.annotations.*;\nimport org.openjdk.jmh.infra.Blackhole;\n"


def state(members: str, decl: str = "@State(Scope.Thread)\npublic class T") -> str:
    return f"{HEADER}{decl} {{\n{members}\n}}\n"


def findings(tmp_path, files: dict[str, str]):
    tmp_path.mkdir(exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    result = lint_paths([tmp_path], rules=["PARAMW", "PARAMU"])
    assert result.warnings == ()
    return [(f.rule, f.severity, f.path.rsplit("/", 1)[-1], f.line) for f in result.findings], result


# PARAMW ----------------------------------------------------------------------------------------

SIZE = '    @Param({"16", "1024"}) int size;\n    int[] data;\n'
READS = "    @Benchmark public int m() { return data.length + size; }\n"

PARAMW_POSITIVE = {
    "setup_trial": (SIZE + "    @Setup public void setup() {\n        size = 1024; data = new int[size];\n    }\n"
                    + READS, 6),
    "setup_iteration_this": (SIZE + "    @Setup(Level.Iteration) public void setup() {\n"
                             "        this.size = 64;\n        data = new int[size];\n    }\n" + READS, 6),
    "setup_invocation": (SIZE + "    @Setup(Level.Invocation) public void setup() { data = new int[4];\n"
                         "        size = 3; }\n" + READS, 6),
    "in_benchmark": (SIZE + "    @Benchmark public int m() {\n        size = 8;\n        return size * 2;\n    }\n", 6),
    "inside_try": (SIZE + "    @Setup public void setup() {\n        try {\n            size = 10;\n"
                   "        } finally { data = new int[size]; }\n    }\n" + READS, 7),
    "from_other_param": ('    @Param({"1", "2"}) int other;\n' + SIZE
                         + "    @Setup public void setup() {\n        size = other * 2; data = new int[size];\n    }\n"
                         + READS, 7),
}


@pytest.mark.parametrize("case", sorted(PARAMW_POSITIVE))
def test_paramw_reports_an_unconditional_overwrite(tmp_path, case):
    members, line = PARAMW_POSITIVE[case]
    found, _ = findings(tmp_path, {"T.java": state(members)})
    assert ("PARAMW", "warning", "T.java", line + 2) in found, found


def test_paramw_message_names_the_field_the_value_and_the_fixture(tmp_path):
    _, result = findings(tmp_path, {"T.java": state(PARAMW_POSITIVE["setup_trial"][0])})
    (finding,) = [f for f in result.findings if f.rule == "PARAMW"]
    assert finding.message.startswith("'size' is assigned 1024 in setup() before every trial")
    assert "16, 1024" in finding.message and "Math.max(size, 1)" in finding.hint
    assert not finding.fixable


def test_paramw_on_a_state_parameter_and_in_an_abstract_base_class(tmp_path):
    files = {
        "S.java": state('    @Param({"2", "4"}) public int count;\n', "@State(Scope.Thread)\npublic class S"),
        "B.java": state("    @Benchmark public int m(S s) {\n        s.count = 4;\n        return s.count;\n    }\n",
                        "public class B"),
        "Base.java": state('    @Param({"10", "100"}) protected int size;\n'
                           "    @Setup public void init() {\n        size = 100;\n    }\n",
                           "@State(Scope.Benchmark)\npublic abstract class Base"),
        "Sub.java": state("    @Benchmark public int m() { return size; }\n", "public class Sub extends Base"),
    }
    found, _ = findings(tmp_path, files)
    assert ("PARAMW", "warning", "B.java", 5) in found
    assert ("PARAMW", "warning", "Base.java", 7) in found


PARAMW_NEGATIVE = {
    "normalise_max": "    @Setup public void setup() { size = Math.max(size, 1); data = new int[size]; }\n",
    "normalise_self": "    @Setup public void setup() { size = size * 2; data = new int[size]; }\n",
    "conditional": "    @Setup public void setup() { if (size > 512) size = 512; data = new int[size]; }\n",
    "in_loop": "    @Setup public void setup() { for (int i = 0; i < 1; i++) size = 4; data = new int[size]; }\n",
    "in_lambda": "    @Setup public void setup() { Runnable r = () -> size = 4; data = new int[size]; }\n",
    "constructor_default": "    public T() { size = 16; }\n    @Setup public void setup() { data = new int[size]; }\n",
    "read_before": "    @Setup public void setup() { data = new int[size]; size = 0; }\n",
    "return_before": ("    boolean warm;\n"
                      "    @Setup public void setup() { if (warm) return; size = 3; data = new int[size]; }\n"),
    "earlier_level_reads": ("    @Setup(Level.Trial) public void build() { data = new int[size]; }\n"
                            "    @Setup(Level.Iteration) public void reset() { size = 0; }\n"),
    "helper_normalises": ("    private int clamp() { return Math.min(size, 4096); }\n"
                          "    @Setup public void setup() { size = clamp(); data = new int[size]; }\n"),
    "not_a_param": "    int other;\n    @Setup public void setup() { other = 5; data = new int[size]; }\n",
    "benchmark_after_setup_read": ("    @Setup public void setup() { data = new int[size]; }\n"
                                   "    @Benchmark public int n() { size = 0; return data.length; }\n"),
}


@pytest.mark.parametrize("case", sorted(PARAMW_NEGATIVE))
def test_paramw_stays_silent_on_normalisations_defaults_and_conditions(tmp_path, case):
    found, _ = findings(tmp_path, {"T.java": state(SIZE + PARAMW_NEGATIVE[case] + READS)})
    assert [f for f in found if f[0] == "PARAMW"] == []


def test_paramw_silent_on_jmh_sample_27_params(tmp_path):
    found, _ = findings(tmp_path, {"T.java": state(SAMPLE_27)})
    assert found == []


# PARAMU ----------------------------------------------------------------------------------------

SAMPLE_27 = """\
    @Param({"1", "31", "65", "101", "103"}) public int arg;
    @Param({"0", "1", "2", "4", "8", "16", "32"}) public int certainty;
    @Benchmark public boolean bench() { return java.math.BigInteger.valueOf(arg).isProbablePrime(certainty); }
"""

MODE = '    @Param({"fast", "safe"}) String mode;\n'

PARAMU_POSITIVE = {
    "never_read": (SIZE + MODE + "    @Setup public void setup() { data = new int[size]; }\n" + READS, 5, "warning"),
    "single_value": ('    @Param("1") int one;\n' + SIZE + READS, 3, "info"),
    # heldout60: one value named by a constant is one case too (a run label), not a study
    "single_constant_value": ('    static final String ONE = "1";\n    @Param({ONE}) int one;\n' + SIZE + READS, 4, "info"),
    "two_constant_values": ('    static final String ONE = "1", TWO = "2";\n    @Param({ONE, TWO}) int one;\n'
                            + SIZE + READS, 4, "warning"),
    "only_in_teardown": (MODE + "    @TearDown public void done() { System.out.println(mode); }\n"
                         "    @Benchmark public int m() { return 1; }\n", 3, "warning"),
    "only_in_initializer": (SIZE.replace("int[] data;", "int[] data = new int[size];")
                            + "    @Benchmark public int m() { return data.length; }\n", 3, "warning"),
    "only_in_uncalled_helper": (MODE + "    String describe() { return mode; }\n"
                                "    @Benchmark public int m() { return 2; }\n", 3, "warning"),
    # heldout43: the payload a setup feeds to a JDK signature engine sizes the signing only; the
    # key generator the benchmark runs never meets it (sig.update(payload) touches sig alone)
    "only_fed_to_another_engine": (SIZE + "    java.security.Signature sig; java.security.KeyPairGenerator gen;\n"
                                   "    @Setup public void setup() throws Exception { byte[] p = new byte[size];\n"
                                   "        sig.update(p); }\n"
                                   "    @Benchmark public Object m() { return gen.generateKeyPair(); }\n", 8, "warning"),
}


@pytest.mark.parametrize("case", sorted(PARAMU_POSITIVE))
def test_paramu_reports_a_param_nothing_measured_reads(tmp_path, case):
    members, line, severity = PARAMU_POSITIVE[case]
    found, _ = findings(tmp_path, {"T.java": state(members)})
    assert ("PARAMU", severity, "T.java", line + 2) in found, found


def test_paramu_message_names_the_class_and_the_field(tmp_path):
    _, result = findings(tmp_path, {"T.java": state(PARAMU_POSITIVE["never_read"][0])})
    (finding,) = [f for f in result.findings if f.rule == "PARAMU"]
    assert finding.message.startswith("no benchmark or setup of T reads 'mode'")
    assert "every @Param case measures the same thing" in finding.message


def test_paramu_tells_a_base_setup_overload_from_the_subclass_setup(tmp_path):
    # heldout43 (OpenJCEPlus): the subclass's setup() reads the size; the base's setup(provider),
    # a different method of the same name, installs a provider globally. Tying the two by name
    # made every parameter of the class look like global configuration; by name and argument
    # count the size reaches only the data the benchmark never reads.
    files = {
        "Base.java": state('    protected void setup(String provider) { System.setProperty("p", provider); }\n',
                           "@State(Scope.Benchmark)\npublic abstract class Base"),
        "T.java": state('    @Param({"16", "1024"}) int size;\n    int[] data; Object gen = new Object();\n'
                        '    @Setup public void setup() { super.setup("x"); data = new int[size]; }\n'
                        '    @Benchmark public int m() { return gen.hashCode(); }\n',
                        "@State(Scope.Benchmark)\npublic class T extends Base"),
    }
    found, _ = findings(tmp_path, files)
    assert [f[0] for f in found] == ["PARAMU"]


def test_paramu_on_a_state_parameter_and_an_abstract_base_in_another_file(tmp_path):
    files = {
        "S.java": state('    @Param({"2", "4"}) public int count;\n    public int[] data = new int[8];\n',
                        "@State(Scope.Thread)\npublic class S"),
        "B.java": state("    @Benchmark public int m(S s) { return s.data.length; }\n", "public class B"),
        "Base.java": state('    @Param({"10", "100"}) protected int size;\n',
                           "@State(Scope.Benchmark)\npublic abstract class Base"),
        "Sub.java": state("    @Benchmark public int m() { return 3; }\n", "public class Sub extends Base"),
    }
    found, _ = findings(tmp_path, files)
    assert sorted(found) == [("PARAMU", "warning", "Base.java", 5), ("PARAMU", "warning", "S.java", 5)]


def test_paramu_silent_on_a_template_no_benchmark_runs(tmp_path):
    # heldout17 (RxJavaExtensions): an empty template class with a @Param and an empty @Setup but
    # no @Benchmark runs nothing, so no case is duplicated; a state taken by a state's @Setup that
    # a benchmark uses is still judged
    template = state('    @Param({"1", "10", "100"}) public int count;\n    @Setup public void setup() { }\n',
                     "@State(Scope.Thread)\npublic class ExamplePerf")
    assert findings(tmp_path / "t", {"ExamplePerf.java": template})[0] == []
    files = {
        "Inner.java": state('    @Param({"2", "4"}) public int width;\n', "@State(Scope.Thread)\npublic class Inner"),
        "Outer.java": state("    int w;\n    @Setup public void setup(Inner inner) { w = 1; }\n",
                            "@State(Scope.Thread)\npublic class Outer"),
        "B.java": state("    @Benchmark public int m(Outer o) { return o.w; }\n", "public class B"),
    }
    assert findings(tmp_path / "s", files)[0] == [("PARAMU", "warning", "Inner.java", 5)]


def test_paramu_silent_when_a_subclass_in_another_file_reads_the_base_param(tmp_path):
    files = {
        "Base.java": state('    @Param({"10", "100"}) protected int size;\n',
                           "@State(Scope.Benchmark)\npublic abstract class Base"),
        "Sub.java": state("    @Benchmark public int m() { return size * 2; }\n", "public class Sub extends Base"),
    }
    assert findings(tmp_path, files)[0] == []


def test_paramu_follows_an_abstract_getter_into_the_subclass_and_helper_chains(tmp_path):
    files = {
        "Base.java": state("    int[] data;\n    abstract int size();\n"
                           "    @Setup public void setup() { data = new int[size()]; }\n"
                           "    @Benchmark public int m() { return data.length; }\n",
                           "@State(Scope.Thread)\npublic abstract class Base"),
        "Sub.java": state('    @Param({"8", "64"}) int n;\n    @Param({"1", "2"}) int k;\n'
                          "    int size() { return twice(); }\n    private int twice() { return 2 * n + k; }\n",
                          "public class Sub extends Base"),
    }
    assert findings(tmp_path, files)[0] == []
    (tmp_path / "Sub.java").write_text(files["Sub.java"].replace("2 * n + k", "2 * n"), encoding="utf-8")
    assert findings(tmp_path, {})[0] == [("PARAMU", "warning", "Sub.java", 5)]


def test_paramu_reads_an_unannotated_override_of_a_setup(tmp_path):
    """JMH calls the base class's @Setup; Java runs the subclass's override, which need not
    repeat the annotation: its reads are on the measured path."""
    files = {
        "Base.java": state("    Object value;\n    @Setup public void setup() { value = 1; }\n"
                           "    @Benchmark public Object m() { return value; }\n",
                           "@State(Scope.Thread)\npublic abstract class Base"),
        "Sub.java": state('    @Param({"a", "b"}) String kind;\n'
                          "    @Override public void setup() { value = kind.length(); }\n",
                          "public class Sub extends Base"),
    }
    assert findings(tmp_path, files)[0] == []
    # The same method name with another arity is not an override: its reads are not the setup's.
    (tmp_path / "Sub.java").write_text(files["Sub.java"].replace("public void setup()", "public void setup(int n)"),
                                       encoding="utf-8")
    assert findings(tmp_path, {})[0] == [("PARAMU", "warning", "Sub.java", 4)]


def test_paramu_a_subclass_redeclaring_a_param_gives_values_to_the_base_field(tmp_path):
    """JMH sets every @Param field of the same name in the hierarchy (checked on JMH 1.37): a
    subclass that redeclares the base's placeholder @Param({}) to give it values feeds the
    base's setup. When nothing in the hierarchy reads the name, both are reported."""
    files = {
        "Base.java": state('    @Param({}) private int keyLength;\n    byte[] key;\n'
                           "    @Setup public void setup() { key = new byte[keyLength / 8]; }\n"
                           "    @Benchmark public int m() { return key.length; }\n",
                           "@State(Scope.Thread)\npublic abstract class Base"),
        "Sub.java": state('    @Param({"128", "256"}) private int keyLength;\n',
                          "public class Sub extends Base"),
    }
    assert findings(tmp_path, files)[0] == []
    (tmp_path / "Base.java").write_text(files["Base.java"].replace("keyLength / 8", "16"), encoding="utf-8")
    assert sorted(findings(tmp_path, {})[0]) == [("PARAMU", "warning", "Base.java", 5),
                                                 ("PARAMU", "warning", "Sub.java", 4)]


def test_a_try_with_an_existing_resource_does_not_break_the_rules(tmp_path):
    """``try (stream) { ... }`` names a variable declared before (Java 9): the resource has no
    type. It made PARAMU fail on every file of a project (helidon), losing its findings."""
    files = {"T.java": state('    @Param({"1", "2"}) int size;\n    @Param({"a", "b"}) String unused;\n'
                             "    @Benchmark public int m() throws Exception {\n"
                             "        java.io.StringReader in = new java.io.StringReader(\"x\");\n"
                             "        try (in) { return in.read() + size; }\n    }\n")}
    assert findings(tmp_path, files)[0] == [("PARAMU", "warning", "T.java", 6)]


def test_paramu_silent_when_the_benchmark_reads_the_state_parameter(tmp_path):
    files = {
        "S.java": state('    @Param({"2", "4"}) public int count;\n', "@State(Scope.Thread)\npublic class S"),
        "B.java": state("    @Benchmark public int m(S s) { return s.count; }\n", "public class B"),
    }
    assert findings(tmp_path, files)[0] == []


PARAMU_NEGATIVE = {
    "jmh_sample_27": SAMPLE_27,
    "setup_trial_builds": SIZE + "    @Setup(Level.Trial) public void setup() { data = new int[size]; }\n"
                          "    @Benchmark public int m() { return data.length; }\n",
    "helper_called": MODE + "    private int cost() { return mode.length(); }\n"
                     "    @Benchmark public int m() { return cost(); }\n",
    "lambda_in_setup": SIZE + "    java.util.function.IntSupplier s;\n"
                       "    @Setup public void setup() { s = () -> size; }\n"
                       "    @Benchmark public int m() { return s.getAsInt(); }\n",
    "inner_class": SIZE + "    class Worker implements java.util.function.IntSupplier {\n"
                   "        public int getAsInt() { return size; }\n    }\n"
                   "    java.util.function.IntSupplier w;\n"
                   "    @Setup public void setup() { w = new Worker(); }\n"
                   "    @Benchmark public int m() { return w.getAsInt(); }\n",
    "this_escapes": MODE + "    @Setup public void setup() { Registry.register(this); }\n"
                    "    @Benchmark public int m() { return 1; }\n",
    "name_string": MODE + "    @Setup public void setup(org.openjdk.jmh.infra.BenchmarkParams p) {\n"
                   "        data = new int[p.getParam(\"mode\").length()]; }\n    int[] data;\n"
                   "    @Benchmark public int m() { return data.length; }\n",
    "compound_read": SIZE + "    @Benchmark public int m() { size += 1; return data.length; }\n",
}


@pytest.mark.parametrize("case", sorted(PARAMU_NEGATIVE))
def test_paramu_stays_silent_when_the_measured_path_reads_it(tmp_path, case):
    found, _ = findings(tmp_path, {"T.java": state(PARAMU_NEGATIVE[case])})
    assert [f for f in found if f[0] == "PARAMU"] == []


def test_paramu_silent_where_the_reader_may_be_out_of_sight(tmp_path):
    files = {   # an abstract class without project subclasses; a state no project benchmark takes;
                # a class whose external superclass may call any of its methods
        "A.java": state('    @Param({"1", "2"}) int size;\n', "@State(Scope.Thread)\npublic abstract class A"),
        "U.java": state('    @Param({"1", "2"}) int size;\n', "@State(Scope.Thread)\npublic class U"),
        "E.java": state('    @Param({"1", "2"}) int size;\n    protected int[] create() { return new int[size]; }\n'
                        "    @Benchmark public int m() { return 1; }\n",
                        "@State(Scope.Thread)\npublic class E extends org.example.ExternalBench"),
        "Sub.java": state("    @Override public void init() { super.init(); }\n"
                          "    @Benchmark public int m() { return data.length; }\n",
                          "@State(Scope.Thread)\npublic class Sub extends Mid"),
        "Mid.java": state('    @Param({"1", "2"}) int size;\n    int[] data;\n'
                          "    @Setup public void init() { data = new int[size]; }\n",
                          "public class Mid"),
    }
    assert findings(tmp_path, files)[0] == []


def test_an_imported_type_is_not_a_project_class_of_the_same_simple_name(tmp_path):
    # heldout35 (assorted-benchmarks): the project declares its own wordcount.Blackhole, a state
    # with a @Param; benchmarks elsewhere import org.openjdk.jmh.infra.Blackhole. Their Blackhole
    # parameter is JMH's, so its @Param does not apply to them (80 wrong PARAMU before); a
    # single-type import shadows even a class of the file's own package, as in Java. A file
    # importing the project's class, or of its package without that import, still gets it.
    (tmp_path / "wc").mkdir()
    (tmp_path / "stream").mkdir()
    files = {
        "wc/Blackhole.java": "package wc;\n" + state('    @Param({"1", "2", "3"}) public int size;\n'
                                                     "    public int[] data;\n"
                                                     "    @Setup public void fill() { data = new int[size]; }\n",
                                                     "@State(Scope.Thread)\npublic class Blackhole"),
        "wc/Count.java": "package wc;\nimport org.openjdk.jmh.annotations.*;\npublic class Count {\n"
                         "    @Benchmark public int count(Blackhole b) { return b.data.length; }\n"
                         "    @Benchmark public int none(Blackhole b) { return 1; }\n}\n",
        "stream/Sum.java": "package stream;\nimport org.openjdk.jmh.annotations.*;\n"
                           "import org.openjdk.jmh.infra.Blackhole;\n"
                           "public class Sum {\n    @Benchmark public void sum(Blackhole bh) { bh.consume(1); }\n}\n",
        "stream/Mine.java": "package stream;\nimport org.openjdk.jmh.annotations.*;\nimport wc.Blackhole;\n"
                            "public class Mine {\n    @Benchmark public int mine(Blackhole b) { return 2; }\n}\n",
    }
    _, result = findings(tmp_path, files)
    assert sorted(f.benchmark for f in result.findings if f.rule == "PARAMU") == ["Count.none", "Mine.mine"]


@pytest.mark.parametrize("declared, severity", [
    ("enum Workload { ONLY }", "info"),          # JMH runs the enum's one constant: a label
    ("enum Workload { SMALL, LARGE }", "warning"),
])
def test_paramu_counts_the_cases_of_an_enum_param_without_values(tmp_path, declared, severity):
    # heldout35 (assorted-benchmarks): `@Param Workload workload` with no values runs one case per
    # constant of the enum; with one constant, an unread parameter changes nothing (info).
    files = {"T.java": state(f"    public {declared}\n    @Param Workload workload;\n"
                             "    @Benchmark public int m() { return 1; }\n")}
    _, result = findings(tmp_path, files)
    assert [f.severity for f in result.findings if f.rule == "PARAMU"] == [severity]


def test_rules_are_registered_with_explanations():
    for rule_id in ("PARAMW", "PARAMU"):
        rule = RULES[rule_id]
        assert rule.severity == "warning" and not rule.fixable
        for part in ("What goes wrong", "Why", "How to fix", "Before:", "After:"):
            assert part in rule.explanation, (rule_id, part)


# PARAMU per benchmark --------------------------------------------------------------------------
# A @Param read by some benchmark or setup of the class, but not on this benchmark's path: JMH
# still runs the benchmark once per value, so its cases measure the same thing.

TWO = ('    @Param({"16", "4096"}) int size;\n    int[] data;\n'
       "    @Setup public void setup() { data = new int[size]; }\n"
       "    @Benchmark public int reads() { return data.length; }\n")


def test_paramu_reports_a_benchmark_that_ignores_a_param_its_class_reads(tmp_path):
    found, result = findings(tmp_path, {"T.java": state(TWO + "    @Benchmark\n    public int fixed() {\n"
                                                         "        return new int[1000].length;\n    }\n")})
    assert found == [("PARAMU", "warning", "T.java", 9)]
    (finding,) = result.findings
    assert finding.benchmark == "T.fixed" and "'size'" in finding.message and "2 cases" in finding.message


def test_paramu_per_benchmark_still_reports_an_array_sized_but_read_by_no_benchmark_of_it(tmp_path):
    # the padding exception needs an array nothing reads: one other benchmarks read is data
    found, _ = findings(tmp_path, {"T.java": state(
        '    @Param({"16", "64"}) int size;\n    long[] data; long[] fixed;\n'
        "    @Setup public void setup() { data = new long[size]; fixed = new long[8]; }\n"
        "    @Benchmark public int sized() { return data.length; }\n"
        "    @Benchmark public int other() { return fixed.length; }\n")})
    assert found == [("PARAMU", "warning", "T.java", 9)]


def test_paramu_per_benchmark_on_a_state_parameter_and_a_derived_field(tmp_path):
    files = {
        "S.java": state('    @Param({"1", "8"}) int depth;\n    int[] chain; int[] other;\n'
                        "    @Setup public void setup() { chain = build(depth); other = new int[4]; }\n"
                        "    static int[] build(int n) { return new int[n]; }\n",
                        "@State(Scope.Thread)\npublic class S"),
        "B.java": state("    @Benchmark public int deep(S s) { return s.chain.length; }\n"
                        "    @Benchmark public int flat(S s) { return s.other.length; }\n", "public class B"),
    }
    assert findings(tmp_path, files)[0] == [("PARAMU", "warning", "B.java", 5)]


PER_BENCHMARK_NEGATIVE = {
    # the parameter sets global state the benchmark's library code reads
    "system_property": '    @Param({"a", "b"}) String impl;\n    java.util.Map<String, String> names;\n'
                       "    @Setup public void setup() { System.setProperty(\"impl\", names.get(impl)); }\n"
                       "    @Benchmark public int uses() { return impl.length(); }\n"
                       "    @Benchmark public String other() { return Library.current(); }\n",
    # the parameter's own method, called for its effect (an enum that configures a library)
    "param_method": '    @Param({"FAST", "SAFE"}) Mode mode;\n    String seen;\n'
                    "    @Setup public void setup() { mode.initialize(); seen = mode.name(); }\n"
                    "    @Benchmark public String uses() { return seen; }\n"
                    "    @Benchmark public String other() { return Library.current(); }\n",
    # written through an alias: the stream wraps the buffer the benchmark reads
    "alias": '    @Param({"1", "9"}) int count;\n    java.io.ByteArrayOutputStream bos; java.io.DataOutputStream out;\n'
             "    @Setup public void setup() throws Exception {\n"
             "        bos = new java.io.ByteArrayOutputStream();\n        out = new java.io.DataOutputStream(bos);\n"
             "        for (int i = 0; i < count; i++) { out.writeInt(i); }\n    }\n"
             "    @Benchmark public int uses() { return count; }\n"
             "    @Benchmark public int size() { return bos.size(); }\n",
    # a project class created in setup whose methods read the parameter
    "worker": '    @Param({"1", "9"}) int count;\n'
              "    class Worker { int run() { return count * 2; } }\n    Worker worker;\n"
              "    @Setup public void setup() { worker = new Worker(); }\n"
              "    @Benchmark public int uses() { return count; }\n"
              "    @Benchmark public int work() { return worker.run(); }\n",
    # the state handed to code outside the project
    "escapes": TWO + "    @Benchmark public int other() { return Library.size(this); }\n",
    # a group shares its states
    "group": TWO + "    @Benchmark @Group(\"g\") public int a() { return 1; }\n"
                   "    @Benchmark @Group(\"g\") public int b() { return data.length; }\n",
    # a static field set from the parameter (any state's constructor may read it)
    "static_field": '    @Param({"0", "4"}) int size;\n    static int shared;\n'
                    "    @Setup public void setup() { shared = size; }\n"
                    "    @Benchmark public int uses() { return size; }\n"
                    "    @Benchmark public String other() { return Library.current(); }\n",
    # a library call the parameter decides to run (a thread-local context)
    "context_call": '    @Param({"true", "false"}) boolean on;\n    Object context;\n'
                    "    @Setup public void setup() { if (on) { context = Context.initialize(); } }\n"
                    "    @Benchmark public boolean uses() { return on; }\n"
                    "    @Benchmark public String other() { return Library.current(); }\n",
    # a branch on the parameter that calls the helper building what the benchmark runs
    "branch_helper": '    @Param({"a", "b"}) String type;\n    java.util.function.IntSupplier f;\n'
                     "    @Setup public void setup() { if (type.equals(\"a\")) { setupA(); } else { setupB(); } }\n"
                     "    private void setupA() { f = () -> 1; }\n    private void setupB() { f = () -> 2; }\n"
                     "    @Benchmark public int uses() { return type.length(); }\n"
                     "    @Benchmark public int run() { return f.getAsInt(); }\n",
    # a local that copies the field of the same name
    "shadowing_local": TWO + "    @Benchmark public int copy() {\n        final int[] data = this.data;\n"
                       "        return data.length;\n    }\n",
    # an array nothing reads, allocated between the arrays measured: the parameter moves them
    # in memory (an alignment offset, heldout52)
    "padding": '    @Param({"0", "8", "16"}) int padding;\n    long[] source; long[] gap; long[] target;\n'
               "    @Setup public void setup() { source = new long[64]; gap = new long[padding]; target = new long[64]; }\n"
               "    @Benchmark public long sum() { return source[0] + target[0]; }\n"
               "    @Benchmark public int uses() { return padding; }\n",
    # processes the setup starts to compete with the measurement (noisy neighbours, heldout52)
    "activity": '    @Param({"0", "4"}) int neighbours;\n    java.util.List<Process> noisy;\n'
                "    @Setup public void setup() { noisy = java.util.stream.IntStream.range(0, neighbours)"
                ".mapToObj(i -> spawn()).toList(); }\n"
                "    static Process spawn() { try { return new ProcessBuilder(\"yes\").start(); } "
                "catch (java.io.IOException e) { throw new RuntimeException(e); } }\n"
                "    @Benchmark public void burn() { Blackhole.consumeCPU(10); }\n"
                "    @Benchmark public int uses() { return neighbours; }\n",
    # a parameter with one value measures one case anyway
    "one_value": '    @Param({"16"}) int size;\n    int[] data;\n'
                 "    @Setup public void setup() { data = new int[size]; }\n"
                 "    @Benchmark public int reads() { return data.length; }\n"
                 "    @Benchmark public int fixed() { return 3; }\n",
}


@pytest.mark.parametrize("case", sorted(PER_BENCHMARK_NEGATIVE))
def test_paramu_per_benchmark_silent_when_the_param_reaches_it(tmp_path, case):
    found, _ = findings(tmp_path, {"T.java": state(PER_BENCHMARK_NEGATIVE[case])})
    assert [f for f in found if f[0] == "PARAMU"] == []


def test_paramu_per_benchmark_follows_an_unannotated_override_and_an_inherited_overload(tmp_path):
    files = {   # JMH calls the base's @Setup, Java runs the subclass's override; the override's
                # helper has an overload up the lineage that reads the parameter
        "Base.java": state('    @Param({"x", "y"}) public String kind;\n    public Object built;\n'
                           "    protected Object make(int n) { return kind + n; }\n"
                           "    @Setup public void setup() { }\n",
                           "@State(Scope.Thread)\npublic abstract class Base"),
        "Sub.java": state("    protected Object make() { return make(3); }\n"
                          "    @Override public void setup() { built = make(); }\n",
                          "public class Sub extends Base"),
        "B.java": state("    @Benchmark public Object uses(Sub s) { return s.built; }\n"
                        "    @Benchmark public String kind(Sub s) { return s.kind; }\n", "public class B"),
    }
    assert [f for f in findings(tmp_path, files)[0] if f[0] == "PARAMU"] == []


@pytest.mark.parametrize("with_interface", [True, False])
def test_paramu_per_benchmark_follows_a_state_passed_as_an_interface(tmp_path, with_interface):
    # A helper takes the state as an interface (declared in the tree, or outside it) and calls
    # data() on it: at run time that is the state's own data(), which returns what the setup
    # built from 'size' (runtime-benchmarks' hashers, heldout34). A call that reaches only state
    # methods unrelated to the parameter still leaves the benchmark reported.
    files = {
        "SizedState.java": state('    @Param({"16", "1024"}) int size;\n    private int[] values;\n'
                                 "    private int cursor;\n"
                                 "    @Setup public void build() { values = new int[size]; }\n"
                                 "    public int[] data() { return values; }\n"
                                 "    public int next() { return cursor++; }\n",
                                 "@State(Scope.Benchmark)\npublic class SizedState implements Holder"),
        "B.java": state("    @Benchmark public long direct(SizedState s) { return s.data().length; }\n"
                        "    @Benchmark public long viaInterface(SizedState s) { return total(s); }\n"
                        "    @Benchmark public long viaNext(SizedState s) { return step(s); }\n"
                        "    private long total(Holder h) { long t = 0; for (int v : h.data()) t += v; return t; }\n"
                        "    private long step(Holder h) { return h.next(); }\n", "public class B"),
    }
    if with_interface:
        files["Holder.java"] = "public interface Holder {\n    int[] data();\n    int next();\n}\n"
    found, result = findings(tmp_path, files)
    assert [f for f in found if f[0] == "PARAMU"] == [("PARAMU", "warning", "B.java", 6)]
    assert [f.benchmark for f in result.findings if f.rule == "PARAMU"] == ["B.viaNext"]


def test_paramu_per_benchmark_resolves_a_nested_state_by_its_outer_class(tmp_path):
    files = {   # two nested classes named Data: the benchmark's is the one whose setup reads the param
        "FState.java": "package p;\n" + state('    @State(Scope.Thread) public static class Data {\n'
                                              '        @Param({"true", "false"}) public boolean refs;\n        public Object codec = "f";\n'
                                              "    }\n    @Benchmark public boolean f(FState.Data d) { return d.refs; }\n",
                                              "public class FState"),
        "KState.java": "package p;\n" + state('    @State(Scope.Thread) public static class Data {\n'
                             '        @Param({"true", "false"}) public boolean refs;\n        public Object codec;\n'
                             "        @Setup public void setup() { codec = new StringBuilder().append(refs); }\n    }\n",
                             "public class KState"),
        "B.java": "package p;\n" + state("    @Benchmark public Object k(KState.Data d) { return d.codec; }\n",
                                         "public class B"),
    }
    assert [f for f in findings(tmp_path, files)[0] if f[0] == "PARAMU"] == []


def test_paramu_per_benchmark_takes_the_values_a_subclass_redeclares(tmp_path):
    files = {   # the subclass gives its same-named @Param one value: one case runs, none repeats
        "Base.java": state('    @Param({"false", "true"}) public boolean refs;\n    public Object codec;\n'
                           "    @Setup public void setup() { codec = String.valueOf(refs); }\n",
                           "@State(Scope.Thread)\npublic class Base"),
        "One.java": state('    @Param({"false"}) public boolean refs;\n', "public class One extends Base"),
        "B.java": state("    @Benchmark public Object uses(Base s) { return s.codec; }\n"
                        "    @Benchmark public int fixed(One s) { return 1; }\n"
                        "    @Benchmark public int twice(Base s) { return 2; }\n", "public class B"),
    }
    assert [f[3] for f in findings(tmp_path, files)[0] if f[0] == "PARAMU"] == [6]


def test_paramu_per_benchmark_follows_a_setup_into_its_enclosing_class_and_a_library_switch(tmp_path):
    # heldout25 (in-sample): nessie's state setup writes through the outer class's static helper
    # (write(this, output)), whose bytes the benchmark reads; sirix's setup flips a static switch
    # of a class lint cannot see (Executor.COLUMNAR = columnar). Both reach what is measured.
    files = {
        "Outer.java": state('    @State(Scope.Benchmark) public static class P {\n'
                            '        @Param({"gzip", "zstd"}) public String codec;\n'
                            "        java.util.Map<String, String> props; byte[] bytes;\n"
                            "        @Setup public void init() throws Exception {\n"
                            '            props = java.util.Map.of("codec", codec);\n'
                            "            java.io.ByteArrayOutputStream output = new java.io.ByteArrayOutputStream();\n"
                            "            write(this, output);\n            bytes = output.toByteArray(); }\n    }\n"
                            "    private static Object write(P p, java.io.OutputStream out) throws Exception {\n"
                            "        return Writer.open(p.props, out).finish(); }\n"
                            "    @Benchmark public Object read(P p) throws Exception { return Reader.open(p.bytes).next(); }\n",
                            "public class Outer"),
        "Route.java": state('    @Param({"false", "true"}) public boolean columnar;\n    Object db;\n'
                            "    @Setup public void setUp() { Executor.COLUMNAR = columnar; db = Store.open(); }\n"
                            "    @Benchmark public Object query() { return Query.run(db); }\n",
                            "@State(Scope.Benchmark)\npublic class Route"),
    }
    assert [f for f in findings(tmp_path, files)[0] if f[0] == "PARAMU"] == []
    # the same setups without those routes: the benchmarks measure the same thing in every case
    files["Outer.java"] = files["Outer.java"].replace("write(this, output);", "")
    files["Route.java"] = files["Route.java"].replace("Executor.COLUMNAR = columnar; ", "")
    assert sorted(f[2] for f in findings(tmp_path, files)[0] if f[0] == "PARAMU") == ["Outer.java", "Route.java"]


# PARAMU: a String @Param compared by reference --------------------------------------------------

IDENTITY_CASES = {
    # heldout60: JMH sets the field to a new String (checked on JMH 1.37: `type == "LIST"` was
    # false in both cases), so a test by == or != takes the same path in every case
    "bare_name": ('    @Param({"LIST", "MAP"}) String type;\n'
                  '    @Benchmark public Object m() { return type == "LIST" ? new ArrayList<>() : new HashMap<>(); }\n',
                  [("PARAMU", "warning", "T.java", 6)]),
    "this_field_not_equal": ('    @Param({"LIST", "MAP"}) String type;\n'
                             '    @Benchmark public int m() { if (this.type != "MAP") { return 1; } return 2; }\n',
                             [("PARAMU", "warning", "T.java", 6)]),
    # not for equals, a local of the same name, a plain String field or an enum parameter
    "equals": ('    @Param({"LIST", "MAP"}) String type;\n'
               '    @Benchmark public int m() { return "LIST".equals(type) ? 1 : 2; }\n', []),
    "shadowed_by_a_local": ('    @Param({"LIST", "MAP"}) String type;\n'
                            '    @Benchmark public int m() { String type = "LIST"; return type == "LIST" ? 1 : this.type.length(); }\n', []),
    # a literal none of the values is: the test answers as meant for each case (info)
    "literal_not_among_the_values": ('    @Param({"D"}) String type;\n'
                                     '    @Benchmark public int m() { return type != "I" ? 1 : 2; }\n',
                                     [("PARAMU", "info", "T.java", 6)]),
    "plain_field": ('    String type = "LIST";\n'
                    '    @Benchmark public int m() { return type == "LIST" ? 1 : 2; }\n', []),
}


@pytest.mark.parametrize("case", sorted(IDENTITY_CASES))
def test_paramu_string_param_compared_by_reference(tmp_path, case):
    members, expected = IDENTITY_CASES[case]
    found, _ = findings(tmp_path, {"T.java": state(members)})
    assert found == expected


def test_paramu_string_param_of_a_state_parameter_compared_by_reference(tmp_path):
    files = {"S.java": state('    @Param({"a", "b"}) public String mode;\n', "@State(Scope.Benchmark)\npublic class S"),
             "T.java": state('    @Benchmark public int m(S s) { return s.mode == "a" ? 1 : 2; }\n')}
    found, result = findings(tmp_path, files)
    assert found == [("PARAMU", "warning", "T.java", 5)]
    assert "never the interned literal" in result.findings[0].message
