"""Each rule on small snippets: what it must report and what it must not."""

from __future__ import annotations

import pytest

from rigorbench.lint import lint_paths

HEADER = "import org.openjdk.jmh.annotations.*;\nimport org.openjdk.jmh.infra.Blackhole;\n"


def rules_for(tmp_path, body: str, members: str = "", annotations: str = "@State(Scope.Thread)") -> list[str]:
    source = (f"{HEADER}{annotations}\npublic class T {{\n    double x = 2; int[] xs = new int[4];\n"
              f"    int work(int v) {{ return v + 1; }}\n{members}\n{body}\n}}\n")
    (tmp_path / "T.java").write_text(source, encoding="utf-8")
    result = lint_paths([tmp_path])
    assert result.warnings == (), source
    return sorted(f.rule for f in result.findings)


CASES = [
    # RETU
    ("@Benchmark public void m() { Math.log(x); }", ["RETU"]),
    ("@Benchmark public double m() { return Math.log(x); }", []),
    ("@Benchmark public void m(Blackhole bh) { bh.consume(Math.log(x)); }", []),
    ("@Benchmark public void m() { double y = Math.exp(x); }", ["RETU"]),
    ("@Benchmark public void m() { double y = Math.exp(x); if (y < 0) throw new Error(); }", []),
    ("@Benchmark public void m() { double y = Math.exp(x); assert y > 0; }", []),
    ("@Benchmark public void m() { double y = Math.exp(x); org.junit.Assert.assertTrue(y > 0); }", []),
    ("@Benchmark public void m() { double y = Math.exp(x); x = y; }", []),
    ("@Benchmark public void m() { int i = work(xs[0]) & 3; xs[i] = 1; }", []),
    ("@Benchmark public void m() { int i = work(xs[0]) & 3; int[] local = new int[4]; local[i] = 1; }", ["RETU"]),
    ("@Benchmark public void m() { String s = \"a\" + x; s.length(); }", ["RETU"]),
    ("@Benchmark public void m(StringBuilder sb) { sb.append(x).length(); }", []),
    ("@Benchmark public int m() { int n = work(xs[1]); int s = 0; for (int i = 0; i < n; i++) s += xs[i & 3]; return s; }", []),
    ("@Benchmark public void m() { for (int i = 0; i < 4; i++) { } }", []),
    ("@Benchmark public void m() { work(xs[2]); }", ["VOID"]),
    # LOOP
    ("@Benchmark public int m() { int a = 0; for (int v : xs) a += work(v); return a; }", ["LOOP"]),
    ("@Benchmark public int m() { int a = 0; for (int v : xs) a += v * v; return a; }", []),
    ("@Benchmark public int m() { int a = 0; for (int v : xs) a = work(a + v); return a; }", []),
    ("@Benchmark public void m(Blackhole bh) { for (int v : xs) bh.consume(work(v)); }", []),
    ("@Benchmark public int m() { int a = 0; for (int v : xs) { Runnable r = () -> work(v); } return a; }", []),
    # FINAL
    ("final int k = 3;\n@Benchmark public int m() { return k; }", ["FINAL"]),
    ("final int k = 3;\nint helper() { return k; }\n@Benchmark public int m() { return xs.length; }", []),
    ("final int k;\nT() { k = work(2); }\n@Benchmark public int m() { return k; }", []),
    ("final int[] arr = {1};\n@Benchmark public int m() { return arr[0]; }", []),
    ("@Benchmark public double m() { return Math.sqrt(16.0); }", ["FINAL"]),
    ("@Benchmark public double m() { return Math.pow(x, 2.0); }", []),
    ("String s = \"abc\";\n@Benchmark public char m() { return s.charAt(0); }", []),
    ("@Benchmark public String m() { return String.valueOf(7); }", ["FINAL"]),
    # INVO
    ("@Setup(Level.Invocation) public void s() {}\n@Benchmark public double m() { return x; }", ["INVO"]),
    ("@Setup(Level.Trial) public void s() {}\n@Benchmark public double m() { return x; }", []),
    # FORK
    ("@Benchmark @Fork(0) public double m() { return x; }", ["FORK"]),
    ("@Benchmark @Fork(2) public double m() { return x; }", []),
    # TIMER / SLEEP / PRINT
    ("@Benchmark public long m() { long t = System.nanoTime(); double y = Math.log(x);\n"
     "return System.nanoTime() - t + (long) y; }", ["TIMER", "TIMER"]),
    # the clock or the park is what the benchmark measures (a clock pair timing nothing too)
    ("@Benchmark public long m() { long t = System.nanoTime(); return System.nanoTime() - t; }", []),
    ("@Benchmark public long m() { return System.nanoTime(); }", []),
    ("@Benchmark public void m() { java.util.concurrent.locks.LockSupport.parkNanos(1000); }", []),
    ("@Benchmark public void m(Blackhole bh) { bh.consume(System.currentTimeMillis()); }", []),
    ("@Benchmark public long m() throws Exception { Thread.sleep(5); return 1; }", ["SLEEP"]),
    ("@Benchmark public double m() { System.out.print(x); return x; }", ["PRINT"]),
    ("@TearDown public void t() { System.out.println(System.nanoTime()); }\n@Benchmark public double m() { return x; }", []),
    # OPINV
    ("@Benchmark @OperationsPerInvocation(4) public int m() { int s = 0; for (int v : xs) s ^= v; return s; }", []),
    ("@Benchmark @OperationsPerInvocation(4) public double m() { return Math.sqrt(x); }", ["OPINV"]),
    # the N operations are a loop in a pure project helper (JMHSample_11's reps(n)); a helper without one is one operation
    ("int count = 4;\nprivate int reps(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\n"
     "@Benchmark @OperationsPerInvocation(4) public int m() { return reps(count); }", []),
    ("private double twice(double v) { return v * 2; }\n"
     "@Benchmark @OperationsPerInvocation(4) public double m() { return twice(x); }", ["OPINV"]),
    # SHARED
    ("static int hits;\n@Benchmark public int m() { return hits++; }", ["SHARED"]),
    ("static final java.util.concurrent.atomic.AtomicInteger hits = new java.util.concurrent.atomic.AtomicInteger();\n"
     "@Benchmark public int m() { return hits.incrementAndGet(); }", []),
]


@pytest.mark.parametrize("body, expected", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_snippet(tmp_path, body, expected):
    members, _, method = body.rpartition("\n")
    assert rules_for(tmp_path, method, members) == expected


def test_class_level_annotations(tmp_path):
    body = "@Benchmark public double m() { return Math.sqrt(x); }"
    assert rules_for(tmp_path, body, annotations="@State(Scope.Thread) @Fork(value = 0) "
                     "@OperationsPerInvocation(10)") == ["FORK", "OPINV"]


def test_static_final_is_info(tmp_path):
    (tmp_path / "S.java").write_text(HEADER + "@State(Scope.Benchmark) class S { static final int N = 8;\n"
                                     "@Benchmark public int m() { return N; } }\n")
    (finding,) = lint_paths([tmp_path]).findings
    assert (finding.rule, finding.severity, finding.fixable) == ("FINAL", "info", False)


def test_messages_name_the_subject(tmp_path):
    (tmp_path / "M.java").write_text(HEADER + "class M { int[] xs; private int work(int v) { return v; }\n"
                                     "@Benchmark public int sum() { int total = 0;\n"
                                     "for (int v : xs) total += work(v); return total; }\n"
                                     "@Benchmark public void d() { Math.log(2.5 + xs[0]); } }\n")
    messages = {f.rule: f.message for f in lint_paths([tmp_path]).findings}
    assert messages == {
        "LOOP": "the loop runs over xs and accumulates work(v) into 'total', a cheap side-effect-free "
                "computation; the JIT can unroll the loop and merge the calls",
        "RETU": "result of Math.log(2.5 + xs[0]) is discarded; the JIT may remove the call",
    }
