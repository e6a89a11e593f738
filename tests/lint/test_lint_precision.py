"""Patterns from real benchmark code (issue 14), written here: what stays a warning and what not.

Each snippet is a small example of a pattern seen in public JMH suites; only findings of
severity warning or error are compared (``info`` is the "possible but unlikely" level).
"""

from __future__ import annotations

import pytest

from rigorbench.lint import lint_paths

HEADER = ("import org.openjdk.jmh.annotations.*;\nimport org.openjdk.jmh.infra.Blackhole;\n"
          "import java.util.*;\n")


def print_findings(path, source: str) -> tuple[list, dict[str, str]]:
    """The PRINT findings of ``source`` written to ``path``, and their severities by benchmark method."""
    path.write_text(source, encoding="utf-8")
    prints = [f for f in lint_paths([path.parent]).findings if f.rule == "PRINT"]
    return prints, {f.benchmark.rpartition(".")[2]: f.severity for f in prints}


def shown(tmp_path, members: str) -> list[tuple[str, int]]:
    source = f"{HEADER}@State(Scope.Thread)\npublic class P {{\n{members}\n}}\n"
    (tmp_path / "P.java").write_text(source, encoding="utf-8")
    result = lint_paths([tmp_path])
    assert result.warnings == ()
    return sorted((f.rule, f.line - 5) for f in result.findings if f.severity != "info")


CASES = [
    # FINAL (issue 34): a constant static final, string or primitive, as the only input of a
    # static call whose result is returned or consumed: the JIT sees the call's whole input
    ("static final String TEXT = \"  padded  \";\n@Benchmark public boolean m() {\nreturn Strings.isBlank(TEXT); }", [("FINAL", 3)]),
    ("static final long STAMP = 1472470996199000L;\nstatic int size(long v) { int n = 1; while ((v >>>= 7) != 0) n++; return n; }\n"
     "@Benchmark public void m(Blackhole bh) {\nbh.consume(size(STAMP)); }", [("FINAL", 4)]),
    # ... every argument constant: literals, JDK constants and constant static finals (issue 34)
    ("static final int BASE = 7;\nstatic int mix(int a, int b) { return a * 31 + (b ^ (b >>> 3)); }\n"
     "@Benchmark public int m() {\nreturn mix(BASE, 12); }", [("FINAL", 4)]),
    ("@Benchmark public double m() {\nreturn Math.pow(2.0, 10); }", [("FINAL", 2)]),
    ("@Benchmark public long m() {\nreturn StrictMath.round(StrictMath.PI); }", [("FINAL", 2)]),
    # ... but not a recursive helper (C2 inlines one level of recursion; the calls run), nor
    # one that loops or builds objects (the constant is a count or a mode of real work)
    ("static int ack(int x, int y) { return x == 0 ? y + 1 : (y == 0 ? ack(x - 1, 1) : ack(x - 1, ack(x, y - 1))); }\n"
     "@Benchmark public int m() { return ack(2, 1897); }", []),
    ("static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
     "@Benchmark public int m() { return fib(20); }", []),
    ("static Map<String, String> input(int count, boolean sorted) { Map<String, String> m = sorted ? new TreeMap<>() : new HashMap<>();\n"
     "for (int i = 0; i < count; i++) m.put(\"k\" + i, \"v\"); return m; }\n"
     "@Benchmark public int m() { return input(500000, true).size(); }", []),
    ("int seed = 3;\nstatic int mix(int a, int b) { return a * 31 + b; }\n"
     "@Benchmark public int m() { return mix(seed, 12); }", []),
    # VOID when the whole project is linted (issue 34): an optional output passed null is never
    # written (the write runs behind a null check), so dropping the value drops all the work ...
    ("static class Loc { int row; }\nstatic class Impl { static double max(double[] a, Loc loc) { double m = a[0]; int b = 0;\n"
     "for (int i = 1; i < a.length; i++) if (a[i] > m) { m = a[i]; b = i; } if (loc != null) loc.row = b; return m; } }\n"
     "static class Ops { static double elementMax(double[] a) { return Impl.max(a, null); } }\ndouble[] data = new double[64];\n"
     "@Benchmark public void m() {\nOps.elementMax(data); }", [("VOID", 7)]),
    # ... but an output the benchmark passes is written: no finding
    ("static class Loc { int row; }\nstatic class Impl { static double max(double[] a, Loc loc) { double m = a[0]; int b = 0;\n"
     "for (int i = 1; i < a.length; i++) if (a[i] > m) { m = a[i]; b = i; } if (loc != null) loc.row = b; return m; } }\n"
     "double[] data = new double[64]; Loc where = new Loc();\n@Benchmark public void m() { Impl.max(data, where); }", []),
    # ... and a static call named as a computation reads an interface it cannot see by its
    # getters' names, as VOID reads an unseen call; an action there (a write) is an effect
    ("interface Mat { double get(int i); int size(); void write(int i); }\n"
     "static class Ops { static double elementSum(Mat a) { double s = 0; for (int i = 0; i < a.size(); i++) s += a.get(i); return s; } }\n"
     "Mat mat;\n@Benchmark public void m() {\nOps.elementSum(mat); }", [("VOID", 5)]),
    ("interface Mat { double get(int i); int size(); void write(int i); }\n"
     "static class Ops { static double elementSum(Mat a) { double s = 0; for (int i = 0; i < a.size(); i++) { s += a.get(i); a.write(i); } return s; } }\n"
     "Mat mat;\n@Benchmark public void m() { Ops.elementSum(mat); }", []),
    # ... nor a final compared with a varying value: the comparison runs either way
    ("private final long last = 0; long now; String cached;\n@Benchmark public String m() {\n"
     "if (now != last) { cached = Long.toString(now); }\nreturn cached; }", []),
    # ... not when the call has a receiver whose state varies, or its result is dropped
    ("static final String KEY = \"k\"; Map<String, Integer> map = new HashMap<>();\n"
     "@Benchmark public Integer m() { return map.get(KEY); }", []),
    ("static final String MESSAGE = \"hello\";\n@Benchmark public void m() { Objects.requireNonNull(MESSAGE); }", []),
    # INVO with evidence of millisecond-scale calls (issue 34): a per-call fixture is then the
    # documented way to get fresh state, and its timestamps are a small share (info at most)
    ("int[] data;\n@Setup(Level.Invocation) public void fresh() { data = new int[64]; }\n"
     "@Benchmark public int m() { return Work.total(data); }\n"
     "static class Work { static int total(int[] xs) { int s = 0; for (int x : xs) s += x; return s; } }", []),
    ("int[] data;\n@Setup(Level.Invocation) public void fresh() { data = new int[64]; }\n"
     "@Benchmark @BenchmarkMode(Mode.AverageTime) @OutputTimeUnit(java.util.concurrent.TimeUnit.MILLISECONDS)\n"
     "public int m() { return data.length; }", []),
    # ... but not a slow unit of a throughput (JMH's default mode): operations per second or
    # per millisecond is a rate, nanosecond calls are often reported so
    ("int[] data;\n@Setup(Level.Invocation) public void fresh() { data = new int[64]; }\n"
     "@Benchmark @OutputTimeUnit(java.util.concurrent.TimeUnit.SECONDS) public int m() { return data.length; }",
     [("INVO", 2)]),
    ("@Param({\"1000\", \"1000000\"}) int size; int[] data;\n@Setup(Level.Invocation) public void fresh() { data = new int[size]; }\n"
     "@Benchmark public int m() { return Arrays.hashCode(data); }", []),
    ("java.util.concurrent.CountDownLatch done;\n@Setup(Level.Invocation) public void fresh() { done = new java.util.concurrent.CountDownLatch(1); }\n"
     "@Benchmark public void m() throws Exception { new Thread(done::countDown).start(); done.await(); }", []),
    # ... or a state holding a thread pool that the measured object hands its work to
    ("java.util.concurrent.ExecutorService pool; Searcher searcher; int key;\n"
     "@Setup(Level.Invocation) public void fresh() { searcher = new Searcher(pool); }\n"
     "@Benchmark public int m() { return searcher.search(key); }", []),
    # ... and without: a nanosecond getter with a small @Param stays a warning
    ("@Param({\"16\", \"64\"}) int size; int[] data;\n@Setup(Level.Invocation) public void fresh() { data = new int[size]; }\n"
     "@Benchmark public int m() { return String.join(\",\", \"a\").length() + data.length; }", [("INVO", 2)]),
    # JMHSample_09: the result of a private side-effect-free helper is dropped
    ("double x1 = 1, x2 = 2;\nprivate double compute(double d) { for (int c = 0; c < 10; c++) d = d * d / Math.PI; return d; }\n"
     "@Benchmark public double wrong() { compute(x1); return compute(x2); }", [("RETU", 3)]),
    # a helper that writes a field has an effect: its dropped result is not dead
    ("int calls;\nprivate int tick(int v) { calls++; return v; }\n"
     "@Benchmark public int m() { tick(calls); return calls; }", []),
    # JMHSample_11 without a call: loop-invariant arithmetic repeated under a constant bound
    ("int k = 7, divisor = 3;\n@Benchmark public int m() { int sum = 0;\n"
     "for (int i = 0; i < 100; i++) sum += k / divisor;\nreturn sum; }", [("LOOP", 3)]),
    # JMHSample_11 itself: the repeat loop sits in a helper the benchmark returns, reps(10) under
    # @OperationsPerInvocation (heldout43's teaching copy); a trip count of 1 repeats nothing, and
    # a helper whose loop varies its operand (a sum over the counter) is the work
    ("int x = 1, y = 2;\nprivate int reps(int reps) { int s = 0;\nfor (int i = 0; i < reps; i++) { s += (x + y); }\nreturn s; }\n"
     "@Benchmark @OperationsPerInvocation(10)\npublic int ten() {\nreturn reps(10); }\n"
     "@Benchmark @OperationsPerInvocation(1)\npublic int one() {\nreturn reps(1); }\n"
     "private int series(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i * x; } return s; }\n"
     "@Benchmark public int varied() {\nreturn series(10); }", [("LOOP", 7)]),
    # heldout43 (dubrouski): a loop that only enters the same monitor around an increment is
    # coarsened by C2 into fewer lock regions; a Blackhole call inside the region, or a class
    # that runs with -XX:LoopUnrollLimit=1, measures every acquisition
    ("final Object lock = new Object(); int number;\njava.util.concurrent.atomic.AtomicInteger atomic;\n"
     "@Benchmark public int m() {\n"
     "for (int i = 0; i < 100; i++) { synchronized (lock) { number += 1; } }\nreturn number; }", [("LOOP", 4)]),
    # ... where no other kind of lock is compared, the monitor patterns may be the subject: info
    ("final Object lock = new Object(); int number;\n@Benchmark public int m() {\n"
     "for (int i = 0; i < 100; i++) { synchronized (lock) { number += 1; } }\nreturn number; }", []),
    ("final Object lock = new Object();\n@Benchmark public void m(Blackhole bh) {\n"
     "for (int i = 0; i < 25; i++) { synchronized (lock) { bh.consume(0x42); } } }", []),
    ("final Object lock = new Object(); int number;\n@Benchmark @Fork(jvmArgsAppend = \"-XX:LoopUnrollLimit=1\")\n"
     "public int m() {\nfor (int i = 0; i < 100; i++) { synchronized (lock) { number += 1; } }\nreturn number; }", []),
    # heldout46 (kabutz): a cheap term summed in a nested traversal whose outer body splits each
    # line, and a helper kept out of line by DONT_INLINE, are the work measured: info
    ("String[] lines;\n@Benchmark public int m() { int r = 0;\nfor (String s : lines) { String[] a = s.split(\",\");\n"
     "for (int j = 0; j < a.length; j++) { r += Math.abs(a[j].length() - 3); } }\nreturn r; }", []),
    ("int[] a = new int[64];\n@CompilerControl(CompilerControl.Mode.DONT_INLINE) static int lo(int x, int y) { return x < y ? x : y; }\n"
     "@Benchmark public int m() { int r = 0;\nfor (int i = 0; i + 1 < a.length; i++) r += lo(a[i], a[i + 1]);\nreturn r; }", []),
    ("int[] a = new int[64];\nstatic int lo(int x, int y) { return x < y ? x : y; }\n"
     "@Benchmark public int m() { int r = 0;\nfor (int i = 0; i + 1 < a.length; i++) r += lo(a[i], a[i + 1]);\nreturn r; }",
     [("LOOP", 4)]),
    # heldout46 (LoopUnroll): a literal handed to a helper that adds it to a generator's next
    # value is not the call's only input, and the unused result of that helper is not dead work
    ("java.util.SplittableRandom r = new java.util.SplittableRandom(7);\nprivate int next(int size) { return r.nextInt(1) + size; }\n"
     "int[] data = new int[64];\n@Benchmark public int m() {\nint step = next(1);\nint s = 0; for (int i = 0; i < data.length; i++) s += data[i];\nreturn s; }", []),
    # ... a static final generator is as stateful as an instance one
    ("static final java.util.SplittableRandom R = new java.util.SplittableRandom(7);\n"
     "private static int next(int size) { return R.nextInt(1) + size; }\n"
     "@Benchmark public int m() {\nreturn next(1); }", []),
    # ... also when the helper's call sits in arithmetic (heldout41's korniienko: a new Random per
    # call, whose seed update is shared state), while a pure helper's sum stays reported
    ("int number = 5;\nint random(int max) { return new java.util.Random().nextInt(max); }\n"
     "@Benchmark public void m() {\nint result = number + random(1000); }", []),
    ("int number = 5;\nint twice(int v) { return v * 2; }\n"
     "@Benchmark public void m() {\nint result = number + twice(number); }", [("RETU", 4)]),
    # heldout48: a Vector API vector is an immutable value, so acc.add(v) with its result dropped
    # adds nothing (the loop's work is dead); acc = acc.add(v) is the accumulation
    ("int[] data = new int[64];\n@Benchmark public int m() {\njdk.incubator.vector.IntVector acc = null;\n"
     "for (int i = 0; i < 64; i += 8) {\nacc.add(jdk.incubator.vector.IntVector.fromArray(null, data, i)); }\n"
     "return acc.reduceLanes(null); }", [("RETU", 5)]),
    ("int[] data = new int[64];\n@Benchmark public int m() {\njdk.incubator.vector.IntVector acc = null;\n"
     "for (int i = 0; i < 64; i += 8) {\nacc = acc.add(jdk.incubator.vector.IntVector.fromArray(null, data, i)); }\n"
     "return acc.reduceLanes(null); }", []),
    # heldout48: an unused relative get of a buffer moves its position (the loop and the next read
    # depend on it); an unused absolute get at an index is dead
    ("byte[] data = new byte[64];\n@Benchmark public int m() {\njava.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(data); int n = 0;\n"
     "while (b.hasRemaining()) { int id = b.getInt(); int v = b.getInt(); if (v < 150) n++; }\nreturn n; }", []),
    ("java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(64);\n@Benchmark public int m() {\n"
     "int id = b.getInt(4);\nreturn b.getInt(0); }", [("RETU", 3)]),
    # ... while a helper that only reads a deque's end (LinkedList.getFirst) has no effect, so its
    # unused result is still dead (heldout41's paulmai193, labelled right)
    ("LinkedList<String> list = new LinkedList<>();\nString first(LinkedList<String> l) { return l.getFirst(); }\n"
     "@Benchmark public void m() {\nString s = first(list); }", [("RETU", 4)]),
    # JMHSample_34: a cheap pure static helper summed over an array of words
    ("long[] words = new long[64];\nstatic int pick(long w) { return Long.bitCount(w) & 7; }\n"
     "@Benchmark public int m() { int a = 0; for (long w : words) a += pick(w); return a; }", [("LOOP", 3)]),
    # traversals of the subject: an iterator or a list, summed
    ("List<Integer> list = new ArrayList<>();\n@Benchmark public long m() { long s = 0;\n"
     "for (int i = 0; i < list.size(); i++) s += list.get(i);\nreturn s; }", []),
    ("Set<Integer> set = new HashSet<>();\n@Benchmark public long m() { long s = 0; Iterator<Integer> it = set.iterator();\n"
     "while (it.hasNext()) s += it.next();\nreturn s; }", []),
    # heavy, allocating calls per iteration over a list of inputs
    ("List<BitSet> sets = new ArrayList<>();\n@Benchmark public int m() { int n = 0;\n"
     "for (int k = 0; k + 1 < sets.size(); k++) n += sets.get(k).get(0, 100).cardinality();\nreturn n; }", []),
    # overwrite-only loop over an object result: kept as info at most
    ("List<BitSet> sets = new ArrayList<>();\n@Benchmark public BitSet m() { BitSet last = null;\n"
     "for (BitSet b : sets) last = b.get(0, 10);\nreturn last; }", []),
    # overwrite-only loop over an iterator: next() advances, so the call is the measured work and
    # stays; only the unboxing of all values but the last may go (info at most, by the rubric)
    ("Set<Integer> set = new HashSet<>();\n@Benchmark public int m() { int last = 0; Iterator<Integer> it = set.iterator();\n"
     "while (it.hasNext()) last = it.next();\nreturn last; }", []),
    # overwrite-only loop over a side-effect-free call: every value but the last is dead
    ("double[] xs = new double[64];\n@Benchmark public double m() { double last = 0;\n"
     "for (int i = 0; i < xs.length; i++) last = Math.sqrt(xs[i]);\nreturn last; }", [("RETU", 3)]),
    # ... but one in an if arm may run once (the last iteration, from an accumulator every
    # iteration feeds): how many values are dropped is not visible, info (heldout42)
    ("int n = 64;\n@Benchmark public double m() { double sum = 0, result = 0;\n"
     "for (int i = 1; i < n; i++) { sum += Math.log(i);\nif (i == n - 1) result = Math.log(sum); }\n"
     "return result; }", []),
    # iteration state: the loop reads what it overwrites
    ("BitSet bits = new BitSet();\n@Benchmark public int m() { int b = 0; int n = 0;\n"
     "while (b >= 0) { b = bits.nextSetBit(b + 1); n++; }\nreturn n; }", []),
    # FINAL: a loop bound, a mask over an index, a system-property knob are not folded inputs
    ("final int n = 1000;\nint[] xs = new int[1024];\n@Benchmark public int m() { int s = 0; for (int i = 0; i < n; i++) s ^= xs[i]; return s; }", []),
    ("final int mask = 1023;\nint[] xs = new int[1024]; int i;\n@Benchmark public int m() { return xs[i++ & mask]; }", []),
    ("final int knob = Integer.getInteger(\"knob\", 4);\n\n@Benchmark public double m() { return Math.log(knob); }", []),
    # FINAL: a constant whose initializer names another constant feeds the computation
    ("final int length = 16;\nfinal int top = length - 1;\n@Benchmark public double m() { return Math.log(top); }", [("FINAL", 2)]),
    # ... but a constant multiplier over varying data (array elements) folds only its own load
    # (heldout42); constant on both sides of the operator still folds
    ("final double PI = Math.PI;\nint[] xs = new int[1024];\n@Benchmark public int m() { int s = 0;\n"
     "for (int i = 0; i < xs.length; i++) s += (int) (xs[i] * PI);\nreturn s; }", []),
    ("final double x = Math.PI;\n@Benchmark public double m() { return Math.log(x * 2.0); }", [("FINAL", 1)]),
    # PRINT (issue 34): a logging benchmark measures the logger; the log call is the subject
    ("org.apache.logging.log4j.Logger logger; int a, b;\n"
     "@Benchmark public void twoParams() { logger.info(\"p1={}, p2={}\", a, b); }", []),
    ("org.slf4j.Logger log;\n@Benchmark public void guarded() {\nif (log.isDebugEnabled()) { log.debug(\"disabled\"); } }", []),
    ("java.util.logging.Logger logger;\n@Benchmark public void record() {\n"
     "java.util.logging.LogRecord r = new java.util.logging.LogRecord(java.util.logging.Level.INFO, \"m\");\n"
     "r.getSourceClassName();\nlogger.log(r); }", []),
    ("org.slf4j.Logger log;\n@Benchmark public void nested() { for (int i = 0; i < 10; i++) { log.info(\"n {}\", i); }\n"
     "try (AutoCloseable c = Ctx.put(\"k\", \"v\")) { log.info(\"inner\"); } catch (Exception e) { } }", []),
    # ... but a log call beside other measured work is still I/O added to it
    ("org.slf4j.Logger log; double x, sink;\n@Benchmark public void work() {\nsink = Math.log(x);\nlog.info(\"done\"); }",
     [("PRINT", 4)]),
    ("org.slf4j.Logger log; double x;\n@Benchmark public double ret() {\nlog.info(\"x\");\nreturn Math.log(x); }",
     [("PRINT", 3)]),
    # TIMER (issue 34): a timestamp that is the input of the measured work is data, not hand timing
    ("java.text.SimpleDateFormat fmt;\n@Benchmark public String format() {\n"
     "final long now = System.currentTimeMillis();\nreturn fmt.format(now); }", []),
    ("double[] h = new double[8];\n@Benchmark public double gate() {\nlong now = System.currentTimeMillis();\n"
     "if (now % 199 == 0) { return h[0]; }\nreturn now; }", []),
    ("long last;\n@Benchmark public long granularity() { long cur;\ndo { cur = System.nanoTime(); } while (cur == last);\n"
     "last = cur; return cur; }", []),
    # ... an elapsed time of work between the two reads is hand timing, even when passed on
    ("Recorder r; double x;\n@Benchmark public long elapsed() {\nlong t0 = System.nanoTime();\n"
     "double y = Math.log(x);\nlong d = System.nanoTime() - t0;\nr.record(d); return d + (long) y; }",
     [("TIMER", 3), ("TIMER", 5)]),
    # ... but one reading times none of the benchmark's own work, even in a subtraction: an
    # age the API under test takes (a latency recorder fed the time since the state was made)
    ("Recorder r; long created;\n@Benchmark public void age() {\nr.record(System.nanoTime() - created); }", []),
    ("double x;\n@Benchmark public long stamp() {\ndouble y = Math.log(x);\nreturn System.nanoTime() + (long) y; }", []),
    # ... but a pair with nothing between times nothing: the reads make a duration that the API
    # under test takes (a metrics timer's record), the clocks are the measured work
    ("Recorder r;\n@Benchmark public long recorded() {\nlong t0 = System.nanoTime();\n"
     "long d = System.nanoTime() - t0;\nr.record(d); return d; }", []),
    # SLEEP: a sleep between raising and lowering a flag is a window in which other threads
    # do and count the measured work
    ("java.util.concurrent.atomic.AtomicBoolean recording = new java.util.concurrent.atomic.AtomicBoolean();\n"
     "@Benchmark public void window() throws Exception {\nrecording.set(true);\nThread.sleep(1000);\n"
     "recording.set(false); }", []),
    # ... a sleep beside only a literal return or a print of literals (in a try block or not)
    # is the op being timed when it is long (10 ms or more): a demo of the wait hides no work
    # (heldout54/55); a short park beside a literal return measures the granularity (KnownGaps)
    ("@Benchmark public int nap() {\ntry {\nThread.sleep(500);\n} catch (InterruptedException e) { }\n"
     "return 0; }", []),
    ("@Benchmark public void hello() throws Exception {\nThread.sleep(1000);\n"
     "System.out.println(\"Hello\"); }", []),
    ("@Benchmark public long spin() {\njava.util.concurrent.locks.LockSupport.parkNanos(1000);\nreturn 1; }",
     [("SLEEP", 2)]),
    ("@Benchmark public int secs() throws Exception {\njava.util.concurrent.TimeUnit.SECONDS.sleep(1);\n"
     "return 0; }", []),
    # ... Thread.sleep(millis, nanos) waits for its first argument; a finally block is work
    ("@Benchmark public int brief() throws Exception {\nThread.sleep(0, 500000);\nreturn 0; }", [("SLEEP", 2)]),
    ("double x;\n@Benchmark public double fin() {\ntry {\nThread.sleep(500);\n} catch (InterruptedException e) { }\n"
     "finally { x = Math.log(x); }\nreturn 0; }", [("SLEEP", 4)]),
    # ... but a print of data, or a try block that also computes, leaves the sleep beside work
    ("double x;\n@Benchmark public void show() throws Exception {\nThread.sleep(1000);\n"
     "System.out.println(Math.log(x)); }", [("SLEEP", 3)]),
    ("double x;\n@Benchmark public double both() {\ntry {\nThread.sleep(5);\nx = Math.log(x);\n"
     "} catch (InterruptedException e) { }\nreturn x; }", [("SLEEP", 4)]),
    # ... a sleep beside real work in the body stays reported
    ("volatile boolean on; double x;\n@Benchmark public double work() throws Exception {\non = true;\n"
     "Thread.sleep(1);\nreturn Math.log(x); }", [("SLEEP", 4)]),
    # ... but a back-off taken only when a branch runs (a full queue) is info: how often it
    # runs is not visible; a sleep in the branch's condition or beside it still warns
    ("java.util.Queue<Object> q; Object item;\n@Benchmark public void offer() throws Exception {\n"
     "if (!q.offer(item)) {\nThread.sleep(10); } }", []),
    ("java.util.Queue<Object> q; Object item;\n@Benchmark public void retry() {\n"
     "try { q.add(item); } catch (IllegalStateException e) {\njava.util.concurrent.locks.LockSupport.parkNanos(1000); } }", []),
    ("java.util.Queue<Object> q; Object item;\n@Benchmark public void both() throws Exception {\n"
     "if (!q.offer(item)) { q.clear(); }\nThread.sleep(10); }", [("SLEEP", 4)]),
    # ... and a sleep in a task handed to a pool or a parallel stream is a simulated blocking
    # job whose overlap is measured (heldout43): info; beside the task it still warns
    ("java.util.List<Integer> jobs;\n@Benchmark public long pool() {\n"
     "return jobs.parallelStream().mapToLong(j -> {\ntry { Thread.sleep(5); } catch (InterruptedException e) { }\n"
     "return j; }).sum(); }", []),
    ("java.util.concurrent.ExecutorService ex;\n@Benchmark public Object task() throws Exception {\n"
     "return ex.submit(new Runnable() { public void run() {\ntry { Thread.sleep(5); } catch (InterruptedException e) { } } }).get(); }", []),
    ("java.util.List<Integer> jobs;\n@Benchmark public long after() throws Exception {\n"
     "long n = jobs.parallelStream().mapToLong(j -> j).sum();\nThread.sleep(5);\nreturn n; }", [("SLEEP", 4)]),
    # PRINT: a print that is the whole benchmark is its subject (console output compared with
    # other targets); in SingleShotTime a report line runs once per timed call (info at most)
    ("@Benchmark public void console() {\nSystem.out.println(\"message\"); }", []),
    ("long[] data = new long[1 << 16];\n@Benchmark @BenchmarkMode(Mode.SingleShotTime) public long footprint() {\n"
     "long s = 0; for (long v : data) s += v;\nSystem.out.printf(\"%d%n\", s);\nreturn s; }", []),
    ("double x;\n@Benchmark public double both() {\nSystem.out.println(\"message\");\nreturn Math.log(x); }",
     [("PRINT", 3)]),
    # FINAL: a constant final field copied into a local is judged by the local's uses: an
    # offset handed to a project method that writes a buffer is not folded work, a value fed
    # to a pure computation is
    ("final int offset = 0; byte[] buf = new byte[64];\nstatic void encode(byte[] b, int at) { b[at] = 1; b[at + 1] = 2; }\n"
     "@Benchmark public byte m() {\nfinal int at = this.offset;\nencode(buf, at);\nreturn buf[0]; }", []),
    ("final double x = 2.0;\n@Benchmark public double m() {\nfinal double v = this.x;\nreturn Math.log(v); }", [("FINAL", 1)]),
    # heldout43: a constant-argument call whose value only sizes an array (an IV length picked
    # by algorithm name) folds no measured work; the same call returned is the computation
    ("static int ivSize(String alg, String mode) { return alg.equals(\"AES\") ? 16 : 12; }\njava.util.Random r;\n"
     "@Benchmark public byte[] m() {\nbyte[] iv = new byte[ivSize(\"ChaCha20\", \"None\")];\nr.nextBytes(iv); return iv; }", []),
    ("static int ivSize(String alg, String mode) { return alg.equals(\"AES\") ? 16 : 12; }\n"
     "@Benchmark public int m() {\nreturn ivSize(\"ChaCha20\", \"None\"); }", [("FINAL", 3)]),
    # SHARED: a static sink (stored, never read) is info with JMH's one thread, a warning under
    # @Threads(8); a read-modify-write stays a warning either way (its input drifts per call)
    ("static Object o; String s = \"1\";\n@Benchmark public void m() {\no = Integer.valueOf(s); }", []),
    ("static Object o; String s = \"1\";\n@Benchmark @Threads(8) public void m() {\no = Integer.valueOf(s); }",
     [("SHARED", 3)]),
    ("static int index;\n@Benchmark public int m() {\nreturn index++ & 7; }", [("SHARED", 3)]),
    # ... so are plain copies between static fields that nothing computes from, with one thread
    # (the Java Grande assignment test: the stores are the work, heldout57); a static the work
    # reads as its input (a receiver, an index) stays a warning, and several threads warn
    ("static int a1 = 1, a2 = 2, a3 = 3;\n@Benchmark public int m() {\nfor (int i = 0; i < 100; i++) {\n"
     "a1 = a2;\na2 = a3;\na3 = a1; }\nreturn a1; }", []),
    ("static String str = \"a b\";\n@Benchmark public String m() {\nstr = str.replace(\"a\", \"*\");\nreturn str; }",
     [("SHARED", 3)]),
    ("static int a1 = 1, a2 = 2;\n@Benchmark @Threads(4) public int m() {\na1 = a2;\na2 = a1;\nreturn a1; }",
     [("SHARED", 3), ("SHARED", 4)]),
    # FINAL: a static final whose name says it sizes the work (SUM_N, FIB_DEPTH) given to a call
    # lint cannot see is a size, not folded data; a data constant (TEST_INT) still warns
    ("static final int SUM_N = 1000;\n@Benchmark public int m() {\nreturn Helpers.sum(SUM_N); }", []),
    ("static final int TEST_INT = 1000;\n@Benchmark public int m() {\nreturn Helpers.sum(TEST_INT); }", [("FINAL", 3)]),
    # heldout60: a constant key looked up (get..., find..., lookup...) in a table of a class lint
    # cannot see reads heap state; the key does not fold the lookup
    # heldout61: a result computed from literals and static finals only folds whole, whatever
    # the static final's initializer (HotSpot trusts it once the class is initialised); one
    # varying operand, or a static final that only bounds a loop, is not that
    ("static final long D = Long.getLong(\"d\", 1000);\n@Benchmark public long m() {\nreturn 1000 / D; }", [("FINAL", 1)]),
    ("static final long D = Long.getLong(\"d\", 1000); long x = 7;\n@Benchmark public long m() {\nreturn x / D; }", []),
    ("static final String CODE = \"JUNE\";\n@Benchmark public Object m() {\nreturn Month.getByMapCode(CODE); }", []),
    ("static final String CODE = \"JUNE\";\n@Benchmark public Object m() {\nreturn Registry.find(CODE); }", []),
    ("static final String CODE = \"JUNE\";\n@Benchmark public Object m() {\nreturn Month.parseCode(CODE); }", [("FINAL", 3)]),
    # heldout54: a constant expression text a library evaluates is a program for its interpreter
    ("static final String EL = \"1+2\";\n@Benchmark public Object m() {\nreturn Expression.eval(EL); }", []),
    # heldout40: a dropped JDK constructor around a digest lint cannot see: only the copy goes
    ("java.security.MessageDigest md; byte[] data;\n@Benchmark public void sha() {\n"
     "md.update(data);\nnew String(Hex.encode(md.digest())); }", []),
    ("byte[] data;\n@Benchmark public void copy() {\nnew String(data); }", [("RETU", 3)]),
    # heldout54/41 misses: a dropped new object of a JDK value or collection class is dead; not
    # an anonymous subclass, a thread, or a project class of the same name
    ("int n = 4;\n@Benchmark public void make() {\nnew Object();\nnew ArrayList<>(n); }", [("RETU", 3), ("RETU", 4)]),
    ("@Benchmark public void make() {\nnew Object() { };\nnew Thread(); }", []),
    # heldout60: a dropped String a loop grows by concatenation: the copies of growing size
    # stay (info); a dropped int sum of the same loop is dead (error)
    ("@Benchmark public void grow() {\nString s = \"\";\nfor (int i = 0; i < 1000; i++) {\ns = s + \"core\"; } }", []),
    ("@Benchmark public void grow() {\nString s = \"\";\nfor (int i = 0; i < 1000; i++) {\ns += i; } }", []),
    ("@Benchmark public void sum() {\nint s = 0;\nfor (int i = 0; i < 1000; i++) {\ns = s + i; } }", [("RETU", 2)]),
    # heldout61: a dropped regex split, literal replace or number parse is deep work the JIT
    # keeps (info); a dropped charAt or replace of chars stays an error
    ("String s = \"a,b\";\n@Benchmark public void m() {\ns.split(\",\");\ns.replace(\"a\", \"\"); }", []),
    ("@Benchmark public void m() {\nboolean b = Double.valueOf(\"0.00\").compareTo(0.0) == 0; }", []),
    ("String s = \"a,b\";\n@Benchmark public void m() {\ns.charAt(1);\ns.replace('a', 'b'); }", [("RETU", 3), ("RETU", 4)]),
    ("List<String> items;\n@Benchmark public void copy() {\nnew ArrayList<>(items);\nnew HashSet<>(items.subList(0, 2)); }", []),
    ("static class Object { Object() { System.gc(); } }\n@Benchmark public void make() {\nnew Object(); }", []),
    # heldout57: a dropped value computed from parsed text: the parse throws on bad input and
    # stays, only the arithmetic after it is dead (info); the arithmetic alone still errs
    ("String a = \"20080520\", b = \"20240101\";\n@Benchmark public void age() {\n"
     "int d1 = Integer.parseInt(a);\nint d2 = Integer.parseInt(b);\nint age = (d2 - d1) / 10000; }", []),
    ("String s = \"2024-01-01\";\n@Benchmark public void date() {\n"
     "java.time.LocalDate d = java.time.LocalDate.parse(s); }", []),
    ("int x, y;\n@Benchmark public void diff() {\nint d1 = x * 3;\nint age = (y - d1) / 10000; }", [("RETU", 4)]),
    # heldout41: an unused copy of a collection is measured, not removed (RETU silent; a list made
    # with a capacity stays reported), and a data-binding call of code lint cannot see
    # (GsonUtils.toJson) is too deep to drop, while a small conversion (Codec.toBytes) is not
    ("static final List<String> TEMPLATE = new ArrayList<>();\n@Benchmark public int copy() {\n"
     "List<String> spare = new LinkedList<>(TEMPLATE);\nreturn TEMPLATE.size(); }", []),
    ("Object person;\n@Benchmark public void json() {\nGsonUtils.toJson(person); }", []),
    ("String text;\n@Benchmark public void bytes() {\nCodec.toBytes(text); }", [("VOID", 3)]),
    # heldout41 (ygf11): an unused element read from a generic list goes through javac's cast,
    # which may throw, so the read is kept; an unused size, or an element of a raw array, is dead
    ("List<Integer> list = new ArrayList<>();\n@Benchmark public void m() {\n"
     "for (int i = 0; i < list.size(); i++) { Integer value = list.get(i); } }", []),
    ("List<Integer> list = new ArrayList<>();\n@Benchmark public void m() {\nint n = list.size(); }", [("RETU", 3)]),
    ("Integer[] items = new Integer[8];\n@Benchmark public void m() {\nInteger value = items[3]; }", [("RETU", 3)]),
    # ... and so does a plural name that counts things (heldout39's TWO_CONCATS)
    ("static final int TWO_CONCATS = 2;\n@Benchmark public String m() {\nreturn Helpers.concat(TWO_CONCATS); }", []),
    # RETU: stores into the elements of a local that aliases a state array write that array (an
    # effect); a fresh or copied local array whose elements nothing reads is still dead
    ("Object[] from = new Object[64], to = new Object[64];\n@Benchmark public void copy() {\n"
     "Object[] src = from; Object[] dst = to;\nfor (int i = 0; i < 64; i++) { dst[i] = src[i]; } }", []),
    ("double x;\n@Benchmark public void fill() {\ndouble[] tmp = new double[8];\n"
     "for (int i = 0; i < 8; i++) { tmp[i] = Math.log(x + i); } }", [("RETU", 3)]),
    ("double[] data = new double[8];\n@Benchmark public void copied() {\ndouble[] tmp = data.clone();\n"
     "for (int i = 0; i < 8; i++) { tmp[i] = Math.log(tmp[i]); } }", [("RETU", 3)]),
    # LOOP: a sum of one element read per index (charAt(i), get(i)) traverses the data like an
    # array sum, the measured work itself; a function of the element, or a read at a fixed
    # index, is still a call the JIT can merge across iterations
    ("String s = \"abcdefgh\";\n@Benchmark public void scan(Blackhole bh) { int v = 0; int n = s.length();\n"
     "for (int i = 0; i < n; ++i) { v += s.charAt(i); }\nbh.consume(v); }", []),
    ("List<Integer> xs;\n@Benchmark public int sum() { int v = 0;\nfor (int i = 0; i < xs.size(); i++) { v += xs.get(i); }\nreturn v; }", []),
    # a JDK function of each element summed is a reduction over the data (a popcount of an
    # array; heldout34/35 labelled 22 of them the measured algorithm): info, not a warning
    ("long[] w = new long[64];\n@Benchmark public int bits() { int v = 0;\n"
     "for (int k = 0; k < w.length; ++k) v += Long.bitCount(w[k]);\nreturn v; }", []),
    ("String[] ts = {\"1\"};\n@Benchmark public long parses() { long v = 0;\n"
     "for (String t : ts) v += Long.parseLong(t);\nreturn v; }", []),   # a JDK primitive per element
    ("int[] xs = new int[8];\n@Benchmark public long boxes() { long v = 0;\n"
     "for (int x : xs) v += Integer.valueOf(x);\nreturn v; }", [("LOOP", 3)]),   # boxing under test
    # heldout36: unboxing the elements of a list is its traversal (info); a box the loop makes and
    # only unboxes is the boxing under test, which escape analysis removes (a warning)
    ("java.util.List<Integer> xs;\n@Benchmark public int unbox() { int v = 0;\n"
     "for (Integer x : xs) { v += x.intValue(); }\nreturn v; }", []),
    ("int[] xs = new int[8];\n@Benchmark public long box() { long v = 0;\n"
     "for (int x : xs) { Integer b = Integer.valueOf(x); v += b.longValue(); }\nreturn v; }", [("LOOP", 3)]),
    ("long[] w = new long[64];\nstatic int pick(long x) { return (int) (x >>> 3) & 7; }\n"
     "@Benchmark public int picks() { int v = 0;\n"
     "for (int k = 0; k < w.length; ++k) v += pick(w[k]);\nreturn v; }", [("LOOP", 4)]),
    ("String s = \"abcdefgh\";\n@Benchmark public int fixed() { int v = 0;\n"
     "for (int i = 0; i < 100; ++i) { v += s.charAt(3); }\nreturn v; }", [("LOOP", 3)]),
    # FINAL, heldout36: a boolean literal handed to a project method chooses its path (a flag,
    # not its data); Double.parseDouble builds objects per call and does not fold, while
    # Long.parseLong of a literal still can; a final String field longer than the unroll limit
    # only says info, as a static one does
    ("static int run(boolean fail) { if (fail) { throw new IllegalStateException(); } return 0; }\n"
     "@Benchmark public int flag() { return run(true); }", []),
    ("@Benchmark public double parsed() { return Double.parseDouble(\"123.123\"); }", []),
    ("@Benchmark public long parsedLong() { return Long.parseLong(\"123\"); }", [("FINAL", 1)]),
    # ... but a constant call that only prepares an input of other work is not the measured
    # work: an element added to a list in a loop, the receiver of a new, filled String (heldout25,
    # heldout41); the same call returned or consumed is
    ("java.util.List<Integer> list = new java.util.ArrayList<>();\n@Benchmark public int add() {\n"
     "Integer temp = Integer.valueOf(0);\nfor (int i = 0; i < 1000; i++) list.add(temp);\nreturn list.size(); }", []),
    ("@Benchmark public void fill(Blackhole bh) {\nbh.consume(Character.toString('t').repeat(32)); }", []),
    ("java.util.List<Double> list = new java.util.ArrayList<>();\n@Benchmark public int pows() {\n"
     "for (int i = 0; i < 1000; i++) list.add(Math.pow(2.0, 10));\nreturn list.size(); }", []),
    ("@Benchmark public void boxed(Blackhole bh) {\nbh.consume(Integer.valueOf(7)); }", [("FINAL", 2)]),
    ("private final String ip = \"2607:fb10:2:232:72f3:95ff:fe03:a6e7\";\n"
     "@Benchmark public int split() { return ip.split(\":\").length; }", []),
    ("private final String ip = \"10.0.0.1\";\n"
     "@Benchmark public int split() { return ip.split(\":\").length; }", [("FINAL", 1)]),
    # heldout38: final fields handed to a constructor of the returned object only fill it
    ("private final long id = 2L; private final String name = \"n\";\n"
     "static final class Fact { final long id; final String name; Fact(long i, String n) { id = i; name = n; } }\n"
     "@Benchmark public Fact make() { return new Fact(id, name); }", []),
    # heldout37: a comparison of a clock read is what a benchmark of now() measures, and the read
    # is kept (RETU silent); a benchmark logging each item of a list in some idiom measures the
    # logger (PRINT silent)
    ("java.time.LocalDateTime start;\n@Benchmark public void window() {\n"
     "java.time.LocalDateTime now = java.time.LocalDateTime.now();\nboolean in = start.isBefore(now); }", []),
    ("interface Items { List<int[]> all(); }\norg.slf4j.Logger logger; Items items;\n"
     "@Benchmark public void logEach() {\nfor (int[] t : items.all()) { logger.debug(\"v \" + t[0]); } }", []),
]


@pytest.mark.parametrize("members, expected", CASES, ids=[f"pattern{i}" for i in range(len(CASES))])
def test_pattern(tmp_path, members, expected):
    assert shown(tmp_path, members) == expected


FINAL_CONFIG_CASES = [
    # FINAL (issue 34): a literal the project method only files away is a configuration knob:
    # a property map for the engine under test, handed to a runner with the measured work
    ("Engine engine;\nprivate static Map<String, String> readOptions(int rowsPerBatch) {\n"
     "Map<String, String> options = new HashMap<>();\noptions.put(\"reader.vectorized\", \"true\");\n"
     "options.put(\"reader.batch-rows\", String.valueOf(rowsPerBatch));\nreturn options; }\n"
     "@Benchmark @BenchmarkMode(Mode.SingleShotTime) public void scan() {\n"
     "engine.withOptions(readOptions(4096), () -> engine.scanAll()); }", []),
    # ... a builder step that writes a field and returns the builder
    ("static class Pool { int threads; Pool threads(int n) { this.threads = n; return this; } int run() { return threads; } }\n"
     "Pool pool = new Pool();\n@Benchmark public Pool configure() {\nreturn pool.threads(8); }", []),
    # ... a setter reached through another project method, and a capacity
    ("int limit;\nint apply(int value) { store(value); return 0; }\nvoid store(int value) { limit = value; }\n"
     "@Benchmark public int m() {\nreturn apply(64); }", []),
    ("static List<String> buffer(int expected) { return new ArrayList<>(expected); }\n"
     "@Benchmark public List<String> m() {\nreturn buffer(1024); }", []),
    # ... a constant static final handed to a config object's constructor
    ("static final int PAGE = 8192;\nstatic ReaderConfig config(int page) { return new ReaderConfig(page); }\n"
     "@Benchmark public ReaderConfig m() {\nreturn config(PAGE); }", []),
    # but a parameter that also feeds arithmetic, or that is stored and read back into the
    # result, is an input the JIT can fold: still a warning
    ("int last;\nint scaled(int n) { last = n; return n * 31 + 7; }\n@Benchmark public int m() {\nreturn scaled(42); }",
     [("FINAL", 4)]),
    ("int size;\nint twice(int n) { size = n; return size * 2; }\n@Benchmark public int m() {\nreturn twice(42); }",
     [("FINAL", 4)]),
    ("static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
     "static long viaHelper(int n) { return fib(n); }\n@Benchmark public long m() {\nreturn viaHelper(20); }",
     [("FINAL", 4)]),
    ("static final long STAMP = 1472470996199000L;\nMap<String, Long> seen = new HashMap<>();\n"
     "long digits(long v) { seen.put(\"v\", v); int n = 1; while ((v /= 10) != 0) n++; return n; }\n"
     "@Benchmark public long m() {\nreturn digits(STAMP); }", [("FINAL", 5)]),
    # a literal that only sizes or selects a new object the helper builds and returns (the
    # number of parts of a composite, a layout flag): a fresh object is no constant, no warning
    ("static final class Part { final int id; Part(int id) { this.id = id; } }\n"
     "static Part[] parts(int count) { Part[] all = new Part[count]; for (int i = 0; i < count; i++) all[i] = new Part(i); return all; }\n"
     "@Benchmark public Part[] m() {\nreturn parts(16); }", []),
    ("static StringBuilder header(boolean compact) { StringBuilder out = new StringBuilder(); "
     "if (!compact) out.append(\"key = value\"); else out.append(\"k=v\"); return out; }\n"
     "@Benchmark public StringBuilder m() {\nreturn header(true); }", []),
    # but one the new object is computed from (arithmetic, a computing project call) is an
    # input the JIT can fold into what it stores
    ("static int[] squares(int n) { int[] out = new int[1]; out[0] = n * n; return out; }\n"
     "@Benchmark public int[] m() {\nreturn squares(12); }", [("FINAL", 3)]),
    ("static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
     "static long[] boxed(int n) { return new long[] { fib(n) }; }\n"
     "@Benchmark public long[] m() {\nreturn boxed(30); }", [("FINAL", 4)]),
    # a literal given to a project method that waits for other threads (an expected count
    # checked after a latch) or to a method of an object built in the benchmark: the wait and
    # the receiver's state are not folded by a constant
    ("static final class Observer { final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);\n"
     "volatile int seen; boolean finish(int expected) throws InterruptedException { done.await(); return seen == expected; } }\n"
     "@Benchmark public boolean m() throws InterruptedException {\nObserver o = new Observer();\nreturn o.finish(2); }", []),
    ("Object lock = new Object(); int total;\nint add(int n) { synchronized (lock) { total += n; return total; } }\n"
     "@Benchmark public int m() {\nreturn add(3); }", []),
    ("int factorial;\nprivate synchronized int fact(int n) { return n == 0 ? 1 : fact(n - 1) * n; }\n"
     "@Benchmark public void m() {\nfactorial = fact(10); }", []),
    ("Thread worker;\nint joined(int n) throws InterruptedException { worker.join(); return n * 2; }\n"
     "int viaJoin(int n) throws InterruptedException { return joined(n) + 1; }\n"
     "@Benchmark public int m() throws InterruptedException {\nreturn viaJoin(5); }", []),
    # a literal a helper only hands on to library code lint cannot see (a query's table name),
    # like a literal given to that call directly; a helper that also computes on it still warns
    ("Jdbi jdbi;\nprivate List<String> run(String table) {\n"
     "return jdbi.withHandle(h -> h.createQuery(\"select v from \" + table).mapTo(String.class).list()); }\n"
     "@Benchmark public List<String> m() {\nreturn run(\"sensitive\"); }", []),
    ("private int run(String table) {\n"
     "return table.length() * 31 + table.hashCode(); }\n"
     "@Benchmark public int m() {\nreturn run(\"sensitive\"); }", [("FINAL", 4)]),
    # ... but one that also queries a library object it holds (a database handle) has that
    # object's state as an input too, and the query is the work: folding the literal's length
    # removes nothing measured (heldout46's generator-fed helper is the same case)
    ("Jdbi jdbi;\nprivate int run(String table) {\n"
     "return table.length() * 31 + jdbi.withHandle(h -> h.createQuery(table).count()); }\n"
     "@Benchmark public int m() {\nreturn run(\"sensitive\"); }", []),
    # a constant given to a callee whose inlining the author controls: under DONT_INLINE it
    # cannot be folded in, under INLINE the folding is the case measured; the same callee
    # without the annotation still warns
    ("static final String KEY = \"mike\";\n@CompilerControl(CompilerControl.Mode.DONT_INLINE)\n"
     "static int index(String k) { return k.hashCode() & 7; }\n@Benchmark public int m() {\nreturn index(KEY); }", []),
    ("@CompilerControl(CompilerControl.Mode.INLINE)\nstatic int index(String k) { return k.hashCode() & 7; }\n"
     "@Benchmark public int m() {\nreturn index(\"mike\"); }", []),
    ("static final String KEY = \"mike\";\n"
     "static int index(String k) { return k.hashCode() & 7; }\n@Benchmark public int m() {\nreturn index(KEY); }", [("FINAL", 4)]),
    # a literal the project method only checks against a range and uses as an index into a
    # table on the heap, or compares with equals against heap values: nothing folds (lint on
    # a whole project reads such library lookups)
    ("static final String[] NAMES = {\"a\", \"b\"};\n"
     "static String fromId(int id) { if (id < 0 || id > 1) { return null; } return NAMES[id]; }\n"
     "@Benchmark public String m() {\nreturn fromId(1); }", []),
    ("enum Kind { A, B; String text() { return name(); } }\n"
     "static Kind fromText(String t) { for (Kind k : Kind.values()) { if (t.equals(k.text())) { return k; } } return null; }\n"
     "@Benchmark public Kind m() {\nreturn fromText(\"foo/bar\"); }", []),
    # ... and several constants through varargs: a new array on every call
    ("static int count(String... parts) { return parts.length; }\n"
     "@Benchmark public int m() {\nreturn count(\"a\", \"b\", \"c\"); }", []),
    # a document (a text block, a long string) handed to a parser: a loop over hundreds of
    # characters is not folded; a short constant still warns (above)
    ("static final String CONFIG = \"\"\"\n    name: demo\n    port: 7114\n    \"\"\";\n"
     "@Benchmark public int m() {\nreturn Yaml.parse(CONFIG); }", []),
    ("static final String LONG = \"" + "k=v;" * 40 + "\";\n"
     "@Benchmark public int m() {\nreturn Config.parse(LONG); }", []),
    ("static final String SHORT = \"k=v;k=v\";\n@Benchmark public int m() {\nreturn Config.parse(SHORT); }",
     [("FINAL", 3)]),
]


@pytest.mark.parametrize("members, expected", FINAL_CONFIG_CASES,
                         ids=[f"final_config{i}" for i in range(len(FINAL_CONFIG_CASES))])
def test_final_configuration_literal(tmp_path, members, expected):
    assert shown(tmp_path, members) == expected


INVO_CASES = [
    # a call handed an array whose constant length is a million or more (made by a helper) passes
    # over a megabyte per call: info (heldout38's lz4 compressions); a small array: warning
    ("static final int SIZE = 1_000_000; byte[] data = make(); Codec codec;\n"
     "static byte[] make() { byte[] d = new byte[SIZE]; for (int i = 0; i < SIZE; i++) d[i] = (byte) i; return d; }\n"
     "@Setup(Level.Invocation) public void s() { codec = new Codec(); }\n"
     "@Benchmark public byte[] m() { return codec.compress(data); }", [("INVO", "info")]),
    ("static final int SIZE = 1_000; byte[] data = make(); Codec codec;\n"
     "static byte[] make() { byte[] d = new byte[SIZE]; return d; }\n"
     "@Setup(Level.Invocation) public void s() { codec = new Codec(); }\n"
     "@Benchmark public byte[] m() { return codec.compress(data); }", [("INVO", "warning")]),
    # a fixture of a class no benchmark runs (heldout36: a base class nothing extends or takes)
    ("@Setup(Level.Invocation) public void s() {}\npublic int notABenchmark() { return 1; }", []),
    # a quick benchmark body: the fixture's timestamps dominate
    ("@Setup(Level.Invocation) public void s() {}\n@Benchmark public double m() { return Math.sqrt(2); }",
     [("INVO", "warning")]),
    # SingleShotTime, on the method or inherited from the class: the documented use
    ("@Setup(Level.Invocation) public void s() {}\n"
     "@Benchmark @BenchmarkMode(Mode.SingleShotTime) public int m() { return 1; }", []),
    # a body that sorts may take well over 1 ms: possible, not likely, so info
    ("int[] big = new int[1 << 20];\n@Setup(Level.Invocation) public void s() {}\n"
     "@Benchmark public int[] m() { Arrays.sort(big); return big; }", [("INVO", "info")]),
    # a body chosen in @Setup through a functional field (this::deleteAll) is followed, and a
    # forEach over a collection is a loop of unknown length: info, as for any loop
    ("List<String> rows; Set<String> set; java.util.function.Supplier<Integer> work;\n"
     "int deleteAll() { rows.forEach(r -> set.remove(r)); return set.size(); }\n"
     "@Setup(Level.Trial) public void pick() { work = this::deleteAll; }\n"
     "@Setup(Level.Invocation) public void s() { set = new HashSet<>(rows); }\n"
     "@Benchmark public int m() { return work.get(); }", [("INVO", "info")]),
    # a stream pipeline is a loop too (a think-time fixture before a stream over N elements)
    ("int n = 1000;\n@Setup(Level.Invocation) public void think() throws InterruptedException { Thread.sleep(10); }\n"
     "@Benchmark public long m() { return java.util.stream.LongStream.range(1, n).filter(k -> k % 7 == 0).sum(); }",
     [("INVO", "info")]),
    ("List<String> rows; Set<String> set; java.util.function.Supplier<Integer> work;\n"
     "int first() { return set.size(); }\n"
     "@Setup(Level.Trial) public void pick() { work = this::first; }\n"
     "@Setup(Level.Invocation) public void s() { set = new HashSet<>(rows); }\n"
     "@Benchmark public int m() { return work.get(); }", [("INVO", "warning")]),
    # get() on a future waits for the thread or the I/O that completes it (armeria's
    # whenReady().get() on a fresh endpoint group): info; get() on a map is a lookup: warning
    ("java.util.concurrent.ExecutorService pool; Object group;\n"
     "@Setup(Level.Invocation) public void s() { group = new Object(); }\n"
     "@Benchmark public Object m() throws Exception { return pool.submit(() -> group).get(); }",
     [("INVO", "info")]),
    ("java.util.concurrent.CompletableFuture<Object> ready;\n"
     "@Setup(Level.Invocation) public void s() { ready = new java.util.concurrent.CompletableFuture<>(); }\n"
     "@Benchmark public Object m() throws Exception { return ready.get(); }", [("INVO", "info")]),
    ("java.util.Map<String, Integer> map;\n@Setup(Level.Invocation) public void s() { map = new HashMap<>(); }\n"
     "@Benchmark public Integer m() { return map.get(\"a\"); }", [("INVO", "warning")]),
    # a per-call setup that rebuilds @Param n items, n at least 10,000 in every case (kafka's
    # producer ids loaded before each expiry sweep): the call works on all of them, so the
    # setup and its teardown are info even in us/op; with a case of 100 items, a warning
    ("@Param({\"10000\", \"1000000\"}) int n; java.util.ArrayDeque<Integer> q;\n"
     "@Setup(Level.Invocation) public void fill() { q = new java.util.ArrayDeque<>(); "
     "for (int i = 0; i < n; i++) q.add(i); }\n"
     "@TearDown(Level.Invocation) public void drop() { q = null; }\n"
     "@Benchmark @OutputTimeUnit(TimeUnit.MICROSECONDS) @BenchmarkMode(Mode.AverageTime) "
     "public void m() { q.clear(); }", [("INVO", "info"), ("INVO", "info")]),
    ("@Param({\"100\", \"1000000\"}) int n; java.util.ArrayDeque<Integer> q;\n"
     "@Setup(Level.Invocation) public void fill() { q = new java.util.ArrayDeque<>(); "
     "for (int i = 0; i < n; i++) q.add(i); }\n"
     "@Benchmark @OutputTimeUnit(TimeUnit.MICROSECONDS) @BenchmarkMode(Mode.AverageTime) "
     "public void m() { q.clear(); }", [("INVO", "warning")]),
]


@pytest.mark.parametrize("members, expected", INVO_CASES, ids=[f"invo{i}" for i in range(len(INVO_CASES))])
def test_invo(tmp_path, members, expected):
    (tmp_path / "P.java").write_text(f"{HEADER}@State(Scope.Thread)\npublic class P {{\n{members}\n}}\n")
    found = [(f.rule, f.severity) for f in lint_paths([tmp_path]).findings if f.rule == "INVO"]
    assert found == expected


def test_single_shot_inherited_from_a_superclass(tmp_path):
    (tmp_path / "Base.java").write_text(HEADER + "@BenchmarkMode(Mode.SingleShotTime)\n"
                                        "public abstract class Base { }\n")
    (tmp_path / "Q.java").write_text(HEADER + "@State(Scope.Thread)\npublic class Q extends Base {\n"
                                     "@Setup(Level.Invocation) public void s() {}\n"
                                     "@Benchmark public int m() { return 1; } }\n")
    assert [f.rule for f in lint_paths([tmp_path]).findings if f.rule == "INVO"] == []


def test_fixture_of_a_base_state_class_judged_by_the_benchmarks_taking_a_subclass(tmp_path):
    # the fixture is declared in an abstract @State base class, the benchmarks take a subclass
    # of it as a parameter and run SingleShotTime (declared on their class): documented use
    (tmp_path / "Base.java").write_text(HEADER + "@State(Scope.Benchmark)\npublic abstract class Base {\n"
                                        "@Setup(Level.Invocation) public void gc() { System.gc(); } }\n")
    (tmp_path / "Q.java").write_text(HEADER + "@BenchmarkMode(Mode.SingleShotTime)\npublic class Q {\n"
                                     "public static class Ctx extends Base { }\n"
                                     "@Benchmark public int m(Ctx ctx) { return 1; } }\n")
    assert [f.rule for f in lint_paths([tmp_path]).findings if f.rule == "INVO"] == []
    # the same fixture used by a quick timed benchmark stays a warning
    (tmp_path / "Q.java").write_text(HEADER + "public class Q {\npublic static class Ctx extends Base { }\n"
                                     "@Benchmark public int m(Ctx ctx) { return 1; } }\n")
    assert [(f.rule, f.severity) for f in lint_paths([tmp_path]).findings if f.rule == "INVO"] \
        == [("INVO", "warning")]


def test_a_nested_state_name_means_the_one_of_the_enclosing_class(tmp_path):
    # two benchmark classes of one file each nest a MyState: each benchmark takes its own
    # class's, so the float benchmarks vary aFloat and never saw aDouble (heldout56)
    (tmp_path / "Formats.java").write_text(
        HEADER + "public class Formats {\n"
        "public static class Doubles {\n@State(Scope.Benchmark) public static class MyState {\n"
        "@Param({\"1.0\", \"2.0\"}) public double aDouble; }\n"
        "@Benchmark public String d(MyState s) { return Double.toString(s.aDouble); } }\n"
        "public static class Floats {\n@State(Scope.Benchmark) public static class MyState {\n"
        "@Param({\"1.0\", \"2.0\"}) public float aFloat; }\n"
        "@Benchmark public String f(MyState s) { return Float.toString(s.aFloat); } } }\n")
    assert [f for f in lint_paths([tmp_path]).findings if f.rule == "PARAMU"] == []
    # ... while a benchmark that reads neither parameter of its own state is still reported
    (tmp_path / "Formats.java").write_text(
        HEADER + "public class Formats {\n"
        "public static class Doubles {\n@State(Scope.Benchmark) public static class MyState {\n"
        "@Param({\"1.0\", \"2.0\"}) public double aDouble; }\n"
        "@Benchmark public String d(MyState s) { return Double.toString(s.aDouble); } }\n"
        "public static class Floats {\n@State(Scope.Benchmark) public static class MyState {\n"
        "@Param({\"1.0\", \"2.0\"}) public float aFloat; }\n"
        "@Benchmark public String f(MyState s) { return Float.toString(1.0f); } } }\n")
    assert [(f.rule, f.line) for f in lint_paths([tmp_path]).findings if f.rule == "PARAMU"] == [("PARAMU", 11)]


def test_retu_silent_on_a_dropped_result_of_a_library_object_made_per_call(tmp_path):
    # a mapper built per call by a library constructor does its lazy set-up (metadata,
    # reflection) on first use: deep library work a dropped result does not remove (heldout41)
    body = ("@Benchmark public void map() {\nMapper mapper = new DozerBeanMapper();\nObject order = new Object();\n"
            "Object dto;\nfor (int i = 0; i < 100; i++)\ndto = mapper.map(order, String.class); } }\n")
    (tmp_path / "M.java").write_text("import org.dozer.Mapper;\nimport org.dozer.DozerBeanMapper;\n" + HEADER
                                     + "@State(Scope.Thread) public class M {\n" + body)
    assert [f for f in lint_paths([tmp_path]).findings if f.rule == "RETU"] == []
    # ... but without the import that says the class is a library's, the drop is reported
    (tmp_path / "M.java").write_text(HEADER + "@State(Scope.Thread) public class M {\n" + body)
    assert [f.rule for f in lint_paths([tmp_path]).findings if f.rule == "RETU"] == ["RETU"]


def test_constant_input_of_a_call_on_an_object_constant(tmp_path):
    # FINAL's only-input warning is for a class's static call (WriteBuffer.sizeOf(TEXT)); a call
    # on an object held in a statically imported constant runs that object's code (an encoder
    # allocating a buffer), which a constant argument does not fold away
    body = ("@State(Scope.Thread)\npublic class C {\nstatic final String TEXT = \"text\";\n"
            "@Benchmark public java.nio.ByteBuffer encode() { return UTF_8.encode(TEXT); }\n"
            "@Benchmark public int size() { return Sizes.utf8(TEXT); } }\n")
    (tmp_path / "C.java").write_text("import static java.nio.charset.StandardCharsets.UTF_8;\n" + HEADER + body)
    found = [(f.rule, f.benchmark) for f in lint_paths([tmp_path]).findings if f.severity != "info"]
    assert found == [("FINAL", "C.size")]


def _warnings(tmp_path, files: dict[str, str]) -> list[tuple[str, str]]:
    tmp_path.mkdir(exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return sorted((f.rule, f.benchmark) for f in lint_paths([tmp_path]).findings if f.severity != "info")


def test_void_silent_on_a_dropped_read_of_a_concurrent_collection(tmp_path):
    # ConcurrentHashMap.get and CopyOnWriteArrayList.get read volatile fields: acquire loads the
    # JIT keeps unread (heldout59), while a HashMap's get is a plain read and still reported
    source = ("import java.util.concurrent.ConcurrentHashMap;\nimport java.util.concurrent.CopyOnWriteArrayList;\n"
              + HEADER + "@State(Scope.Benchmark)\npublic class Shared {\n"
              "ConcurrentHashMap<String, Integer> chm; CopyOnWriteArrayList<String> cow; HashMap<String, Integer> plain; String key;\n"
              "@Benchmark public void concurrent() { chm.get(key); }\n"
              "@Benchmark public void copyOnWrite() { cow.get(0); }\n"
              "@Benchmark public void hashMap() { plain.get(key); } }\n")
    assert _warnings(tmp_path, {"Shared.java": source}) == [("VOID", "Shared.hashMap")]


def test_paramu_silent_on_states_of_empty_test_fixtures(tmp_path):
    # a runner's unit tests declare states whose benchmarks are empty and either not public
    # (JMH would reject them) or in a test source root: nothing is measured (heldout59) ...
    fixtures = tmp_path / "src" / "test" / "java"
    fixtures.mkdir(parents=True)
    (fixtures / "Fixtures.java").write_text(
        HEADER + "public class Fixtures {\n@State(Scope.Benchmark) static class Three {\n"
        "@Param({\"1\", \"2\", \"3\"}) String foo; }\n"
        "@Benchmark void nine(Three three) { }\n"
        "@Benchmark public void bar(Three three) { } }\n")
    assert [f for f in lint_paths([tmp_path]).findings if f.rule == "PARAMU"] == []
    # ... while a public empty benchmark among the sources (its work commented out) still is
    sources = tmp_path / "src" / "main" / "java"
    sources.mkdir(parents=True)
    (fixtures / "Fixtures.java").unlink()
    (sources / "Inflate.java").write_text(
        HEADER + "@State(Scope.Benchmark)\npublic class Inflate {\n"
        "@Param({\"1\", \"2\"}) public int len;\n"
        "@Benchmark public void inflate() {\n// StringLatin1.inflate(src, 0, dst, 0, len);\n} }\n")
    assert [f.rule for f in lint_paths([tmp_path]).findings if f.rule == "PARAMU"] == ["PARAMU"]


def test_void_drops_a_read_only_library_accessor(tmp_path):
    # a void benchmark whose only statement reads a byte or searches an in-memory buffer of a
    # well-known library, or reads a JDK collection or an absolute ByteBuffer index, and drops
    # the result: nothing escapes, so C2 may delete the read (JMHSample_08)
    source = ("import okio.Buffer;\nimport java.nio.ByteBuffer;\n" + HEADER +
              "@State(Scope.Benchmark)\npublic class Reads {\nBuffer buffer; ByteBuffer bytes;\n"
              "List<String> names; Map<String, Integer> counts; String key;\n"
              "@Benchmark public void last() { buffer.getByte(buffer.size() - 1); }\n"
              "@Benchmark public void find() throws java.io.IOException { buffer.indexOf((byte) 'b', 0L); }\n"
              "@Benchmark public void at() { bytes.getInt(8); }\n"
              "@Benchmark public void item() { names.get(3); }\n"
              "@Benchmark public void has() { counts.containsKey(key); }\n"
              "@Benchmark public long kept() { return buffer.indexOf((byte) 'b', 0L); } }\n")
    found = _warnings(tmp_path, {"Reads.java": source})
    assert found == [("VOID", f"Reads.{m}") for m in ("at", "find", "has", "item", "last")]
    message = next(f.message for f in lint_paths([tmp_path]).findings if f.benchmark == "Reads.last")
    assert "read-only okio.Buffer accessor" in message


def test_void_drops_a_jdk_buffer_view_or_wrap(tmp_path):
    # ByteBuffer.wrap(bytes), buffer.slice() and duplicate() only make a new view object over
    # the same memory: dropped in a void benchmark, escape analysis can remove the allocation
    # (heldout14's jooby). A project class named ByteBuffer, a wrap whose result is returned,
    # and a wrap beside a put (an effect that escapes) are not reported.
    source = ("import java.nio.ByteBuffer;\nimport java.nio.CharBuffer;\n" + HEADER +
              "@State(Scope.Benchmark)\npublic class Views {\nbyte[] bytes; ByteBuffer buffer; char[] chars;\n"
              "@Benchmark public void wrap() { ByteBuffer.wrap(bytes); }\n"
              "@Benchmark public void wrapPart() { CharBuffer.wrap(chars, 0, 4); }\n"
              "@Benchmark public void slice() { buffer.slice(); }\n"
              "@Benchmark public void copy() { buffer.duplicate(); }\n"
              "@Benchmark public ByteBuffer kept() { return ByteBuffer.wrap(bytes); }\n"
              "@Benchmark public void written() { ByteBuffer.wrap(bytes); buffer.put(0, (byte) 1); } }\n")
    mine = "public class ByteBuffer { static int made; static ByteBuffer wrap(byte[] b) { made++; return null; } }\n"
    uses = (HEADER + "public class UsesMine {\nbyte[] bytes;\n"
            "@Benchmark public void wrap() { ByteBuffer.wrap(bytes); } }\n")
    found = _warnings(tmp_path / "jdk", {"Views.java": source})
    assert found == [("VOID", f"Views.{m}") for m in ("copy", "slice", "wrap", "wrapPart")]
    assert _warnings(tmp_path / "own", {"ByteBuffer.java": mine, "UsesMine.java": uses}) == []
    messages = {f.benchmark: f.message for f in lint_paths([tmp_path / "jdk"]).findings}
    assert "java.nio.ByteBuffer factory with no effect" in messages["Views.wrap"]
    assert "read-only java.nio.ByteBuffer accessor" in messages["Views.slice"]


def test_void_reads_a_dropped_static_computation_by_its_name(tmp_path):
    # heldout15 (sofa-jraft, ejml): a void benchmark drops the result of a static call on a class
    # lint cannot see into whose name says it computes a value from its one input. Not reported:
    # a name that starts with an action (writeUtf8), an in-place word (abs), a second name
    # argument that may be an output (sumRows(a, out)), an instance call (its receiver may
    # change), a call whose result is returned, and a parse or format (a parser or Formatter is
    # too deep to remove as a whole: TableId.parse, String.format).
    source = (HEADER + "@State(Scope.Benchmark)\npublic class Codecs {\nString text; byte[] bytes; Object a, out;\n"
              "@Benchmark public void encode() { AsciiUtil.unsafeEncode(text); }\n"
              "@Benchmark public void max() { MatrixOps.elementMaxAbs(a); }\n"
              "@Benchmark public void bytesOf() { Utils.getBytes(text); }\n"
              "@Benchmark public void written() { BytesUtil.writeUtf8(text); }\n"
              "@Benchmark public void inPlace() { MatrixOps.abs(a); }\n"
              "@Benchmark public void output() { MatrixOps.sumRows(a, out); }\n"
              "@Benchmark public void instance() { codec.encode(text); }\n"
              "@Benchmark public void parsed() { TableId.parse(text); }\n"
              "@Benchmark public void formatted() { String.format(\"%s/%s\", text, text); }\n"
              "@Benchmark public byte[] kept() { return AsciiUtil.unsafeEncode(text); } }\n")
    found = _warnings(tmp_path, {"Codecs.java": source})
    assert found == [("VOID", f"Codecs.{m}") for m in ("bytesOf", "encode", "max")]
    messages = {f.benchmark: f.message for f in lint_paths([tmp_path]).findings}
    assert "a static computation by its name" in messages["Codecs.encode"]


def test_void_follows_a_chain_of_generic_collection_reads(tmp_path):
    # heldout16 (pcollections): the dropped helper takes `tables.get(a).get(b)`, a read of a
    # read; the declared type arguments say the inner value is a Map and then a Collection, so
    # the chain is read-only and the helper, which drops every contains, has no effect. A chain
    # through a type lint cannot resolve (a raw Map's value) keeps the rule silent.
    source = ("import java.util.*;\n" + HEADER + "@State(Scope.Benchmark)\npublic class Lookups {\n"
              "Map<String, Map<String, Collection<String>>> tables; Map raw; String a, b;\n"
              "static Collection<String> look(Collection<String> c, String k) { c.contains(k); return c; }\n"
              "@Benchmark public void chained() { look(tables.get(a).get(b), a); }\n"
              "@Benchmark public void untyped() { look((Collection<String>) ((Map) raw.get(a)).get(b), a); } }\n")
    assert _warnings(tmp_path, {"Lookups.java": source}) == [("VOID", "Lookups.chained")]


def test_retu_reports_a_dropped_new_string_and_get_bytes(tmp_path):
    # new String(bytes) and text.getBytes(UTF_8) change nothing but make a new object: dropped,
    # the JIT may remove the decode or encode (heldout15, sofa-jraft). A project class called
    # String is not the JDK's; a kept string is consumed.
    source = ("import java.nio.charset.StandardCharsets;\n" + HEADER +
              "@State(Scope.Benchmark)\npublic class Strings {\nbyte[] bytes; String text; String kept;\n"
              "@Benchmark public void decode() { new String(bytes, StandardCharsets.UTF_8); }\n"
              "@Benchmark public void encode() { text.getBytes(StandardCharsets.UTF_8); }\n"
              "@Benchmark public void stored() { kept = new String(bytes); } }\n")
    found = _warnings(tmp_path / "jdk", {"Strings.java": source})
    assert found == [("RETU", "Strings.decode"), ("RETU", "Strings.encode")]
    fixed = {f.benchmark: f for f in lint_paths([tmp_path / "jdk"]).findings}
    assert "new String(bytes, StandardCharsets.UTF_8)" in fixed["Strings.decode"].message
    own = "public class String { static int made; String(byte[] b) { made++; } }\n"
    uses = HEADER + "public class Mine {\nbyte[] bytes;\n@Benchmark public void make() { new String(bytes); } }\n"
    assert _warnings(tmp_path / "own", {"String.java": own, "Mine.java": uses}) == []


def test_void_stays_silent_on_reads_with_effects_or_unknown_types(tmp_path):
    # a relative ByteBuffer.get() moves the position; an access-ordered LinkedHashMap reorders
    # on get; a BufferedSource pulls from upstream; a project class that happens to be called
    # Buffer, or a receiver whose import is not a listed type, may do anything: all have (or may
    # have) effects, so nothing is reported (precision first)
    source = ("import okio.BufferedSource;\nimport java.nio.ByteBuffer;\nimport com.example.io.Buffer;\n"
              + HEADER + "@State(Scope.Benchmark)\npublic class Effects {\nByteBuffer bytes; BufferedSource source;\n"
              "LinkedHashMap<String, Integer> lru; Buffer mine;\n"
              "@Benchmark public void relative() { bytes.get(); }\n"
              "@Benchmark public void ordered() { lru.get(\"k\"); }\n"
              "@Benchmark public void upstream() throws java.io.IOException { source.indexOf((byte) 1); }\n"
              "@Benchmark public void theirs() { mine.getByte(0); }\n"
              "@Benchmark public void written() { bytes.getInt(0); bytes.putInt(0, 1); } }\n")
    local_buffer = ("public class Buffer { int reads; public byte getByte(long i) { reads++; return 0; } }\n")
    uses = (HEADER + "public class UsesLocal {\nBuffer buffer;\n"
            "@Benchmark public void read() { buffer.getByte(0); } }\n")
    found = _warnings(tmp_path, {"Effects.java": source, "Buffer.java": local_buffer, "UsesLocal.java": uses})
    assert [f for f in found if f[0] == "VOID"] == []


def test_void_reads_a_dropped_query_of_code_it_cannot_see_by_its_name(tmp_path):
    # A void benchmark whose only statement asks a class of a library (or of a part of the
    # project not given to lint) a question, by the Java naming convention (isEmpty, hasSlot,
    # startsWith), and drops the answer: the JIT may delete the call (JMHSample_08). Names that
    # wait, talk to the outside or move a cursor (hasNext, isValid, isDone) are not questions; a
    # call whose receiver or argument is itself a call may do work of its own; a benchmark that
    # also calls an unknown method with another name (addSlot) may be measuring that: all stay
    # silent (precision first).
    source = ("import org.example.text.StringUtil;\nimport org.example.cluster.Node;\n" + HEADER +
              "@State(Scope.Benchmark)\npublic class Queries {\nstatic final String LONG = \"aaaaaaaaaaaa\";\n"
              "Node node; Iterator<String> names; java.sql.Connection connection;\n"
              "@Benchmark public void empty() { StringUtil.isEmpty(LONG); }\n"
              "@Benchmark public void slot() { node.hasSlot(8193); }\n"
              "@Benchmark public void prefix() { StringUtil.startsWith(LONG, \"a\"); }\n"
              "@Benchmark public void cursor() { names.hasNext(); }\n"
              "@Benchmark public void ping() throws Exception { connection.isValid(1); }\n"
              "@Benchmark public void made() { StringUtil.isEmpty(node.name()); }\n"
              "@Benchmark public void fresh() { new Node().hasSlot(1); }\n"
              "@Benchmark public void added() { node.addSlot(3); node.hasSlot(3); }\n"
              "@Benchmark public boolean kept() { return node.hasSlot(8193); }\n"
              # a Comparator's compare is side-effect free by contract (orientdb, heldout26)
              "final org.example.Cmp cmp = null; byte[] a, b;\n"
              "@Benchmark public void compared() { cmp.compare(a, b); } }\n")
    found = _warnings(tmp_path, {"Queries.java": source})
    assert [f for f in found if f[0] == "VOID"] == [("VOID", f"Queries.{m}")
                                                    for m in ("compared", "empty", "prefix", "slot")]
    message = next(f.message for f in lint_paths([tmp_path]).findings if f.benchmark == "Queries.slot")
    assert "node.hasSlot(8193), a query by its name in code lint cannot see into" in message


def test_void_follows_a_dropped_helper_into_its_calls(tmp_path):
    # A private helper that only computes (pure JDK calls, another pure helper) and whose result
    # is dropped: dead code, still reported. A helper that hands its arguments to a library
    # object held in a field and runs it (a script engine, a template), or that reaches its
    # value through an abstract method (each subclass reads a different gauge), does work the
    # JIT must keep: dropping its result removes at most a comparison, so no warning. A
    # recursive pure helper is followed once, not taken for an unknown deep call.
    source = (HEADER + "@State(Scope.Benchmark)\npublic class Helpers {\n"
              "double[] samples; String[] words; Template template; Gauge gauge = new HeapGauge();\n"
              "private double mean(double[] xs) { double s = 0; for (double x : xs) s += x; return s / xs.length; }\n"
              "private double spread(double[] xs) { double m = mean(xs); return Math.sqrt(Math.abs(m)); }\n"
              "private String joined(String[] parts) { return String.join(\",\", parts).toUpperCase(); }\n"
              "private Object render(String name) { template.bind(\"name\", name); return template.render(); }\n"
              "abstract static class Gauge { abstract long read(); boolean low(long floor) { return read() < floor; } }\n"
              "static final class HeapGauge extends Gauge { long read() { return Runtime.getRuntime().freeMemory(); } }\n"
              "@Benchmark public void average() { mean(samples); }\n"
              "@Benchmark public void deviation() { spread(samples); }\n"
              "@Benchmark public void join() { joined(words); }\n"
              "@Benchmark public void page() { render(\"x\"); }\n"
              "@Benchmark public void heap() { gauge.low(1024L); }\n"
              "int depth = 24;\nprivate long paths(int n) { return n < 2 ? 1 : paths(n - 1) + paths(n - 2); }\n"
              "@Benchmark public void recursive() { paths(depth); } }\n")
    found = _warnings(tmp_path, {"Helpers.java": source})
    assert [f for f in found if f[0] == "VOID"] == [
        ("VOID", "Helpers.average"), ("VOID", "Helpers.deviation"), ("VOID", "Helpers.join"),
        ("VOID", "Helpers.recursive")]


def test_void_silent_on_a_dropped_synchronized_getter(tmp_path):
    # A getter declared synchronized locks its receiver on every call: the JIT keeps the monitor
    # enter and exit even when the value read under it is dropped, and the lock is what a group
    # comparing synchronized, volatile and plain reads measures (heldout43). The same getter
    # without the modifier is dead code, still reported.
    source = (HEADER + "@State(Scope.Group)\npublic class Guarded {\n"
              "static final class Pojo { private long v; synchronized long locked() { return v; }\n"
              "  long plain() { return v; } synchronized void set(long x) { v = x; } }\n"
              "final Pojo pojo = new Pojo();\n"
              "@Benchmark @Group(\"sync\") public void read() { pojo.locked(); }\n"
              "@Benchmark @Group(\"sync\") public void write() { pojo.set(1L); }\n"
              "@Benchmark @Group(\"bare\") public void peek() { pojo.plain(); }\n"
              "@Benchmark @Group(\"bare\") public void poke() { pojo.set(2L); } }\n")
    found = _warnings(tmp_path, {"Guarded.java": source})
    assert [f for f in found if f[0] == "VOID"] == [("VOID", "Guarded.peek")]


def test_a_dropped_method_of_a_value_built_in_the_call(tmp_path):
    # new Tuple(1, 2).hash() (heldout50's MapDB Tuple4Hash): a project class whose constructor
    # only stores its arguments never escapes, so a void benchmark dropping the hash measures
    # nothing (VOID), and built from constants only the hash folds even when returned (FINAL).
    # Not when the constructor does more than store (a call, a check that throws), the class
    # has a superclass whose constructor runs, or the object is an anonymous subclass.
    source = (HEADER + "@State(Scope.Thread)\npublic class Tuples {\n"
              "static final class Tuple { private final int a, b;\n"
              "  Tuple(int a, int b) { this.a = a; this.b = b; }\n"
              "  int hash() { int h = a; h = h * 31 + b; return h; } }\n"
              "record Pair(int a, int b) { int hash() { return a * 92821 + b; } }\n"
              "static final class Checked { final int a;\n"
              "  Checked(int a) { if (a < 0) throw new IllegalArgumentException(); this.a = a; }\n"
              "  int hash() { return a * 31; } }\n"
              "static final class Logged { final int a; Logged(int a) { System.out.println(a); this.a = a; }\n"
              "  int hash() { return a * 31; } }\n"
              "static class Base { Base() { REGISTRY.add(this); } }\n"
              "static final List<Object> REGISTRY = new ArrayList<>();\n"
              "static final class Sub extends Base { final int a; Sub(int a) { this.a = a; } int hash() { return a; } }\n"
              "int x = 1, y = 2;\n"
              "@Benchmark public void dropped() { new Tuple(x, y).hash(); }\n"
              "@Benchmark public void droppedConstant() { new Tuple(1, 2).hash(); }\n"
              "@Benchmark public int returnedConstant() { return new Tuple(1, 2).hash(); }\n"
              "@Benchmark public int returnedRecord() { return new Pair(3, 4).hash(); }\n"
              "@Benchmark public int returned() { return new Tuple(x, y).hash(); }\n"
              "@Benchmark public void checked() { new Checked(x).hash(); }\n"
              "@Benchmark public void logged() { new Logged(x).hash(); }\n"
              "@Benchmark public void registered() { new Sub(x).hash(); }\n"
              "@Benchmark public int checkedConstant() { return new Checked(1).hash(); } }\n")
    found = _warnings(tmp_path, {"Tuples.java": source})
    assert found == [("FINAL", "Tuples.droppedConstant"), ("FINAL", "Tuples.returnedConstant"),
                     ("FINAL", "Tuples.returnedRecord"), ("VOID", "Tuples.dropped"),
                     ("VOID", "Tuples.droppedConstant")]


def test_void_reads_a_lookup_at_a_random_key_as_dropped(tmp_path):
    # the key comes from a JDK pseudo-random generator (heldout50's fastutil map benchmark): the
    # draw changes only the generator's seed, so the dropped lookup is still dead code. A draw
    # from SecureRandom (which may block and lock) or from a project generator keeps it silent.
    source = (HEADER + "import java.util.concurrent.ThreadLocalRandom;\n@State(Scope.Thread)\npublic class Lookups {\n"
              "Map<Integer, String> map = new HashMap<>(); int size = 100;\n"
              "Random rand = new Random(1); java.security.SecureRandom secure = new java.security.SecureRandom();\n"
              "static final class Dice { int seed; int roll() { return seed++; } } Dice dice = new Dice();\n"
              "@Benchmark public void local() { int n = ThreadLocalRandom.current().nextInt(0, size); map.get(n); }\n"
              "@Benchmark public void field() { map.get(rand.nextInt(size)); }\n"
              "@Benchmark public void secure() { map.get(secure.nextInt(size)); }\n"
              "@Benchmark public void project() { map.get(dice.roll()); }\n"
              "@Benchmark public void draw() { rand.nextInt(size); } }\n")
    found = _warnings(tmp_path, {"Lookups.java": source})
    assert [f for f in found if f[0] in ("VOID", "RETU")] == [("VOID", "Lookups.field"), ("VOID", "Lookups.local")]


def test_loop_of_math_min_and_max_over_each_element_is_a_reduction(tmp_path):
    # Math.min and max are overloaded on every primitive type, so the pure table gives them no
    # one result type; folded per element into a count they are the scan measured (heldout52's
    # branch-free range scan), info like Math.sin(xs[i]); on loop-invariant operands a warning
    source = (HEADER + "@State(Scope.Thread)\npublic class Scan {\n"
              "static final class Tx { int quantity; long price; }\n"
              "List<Tx> txs = new ArrayList<>(); int qty; long price; int a = 3, b = 4;\n"
              "@Benchmark public long scan() { long count = 0;\n"
              "  for (int i = 0; i < txs.size(); i++) { Tx t = txs.get(i);\n"
              "    count += Math.min(1, Math.max(t.quantity - qty, 0)) + Math.min(1, Math.max(price - t.price, 0)); }\n"
              "  return count; }\n"
              "@Benchmark public long repeat() { long count = 0;\n"
              "  for (int i = 0; i < 100; i++) { count += Math.max(a, b); }\n"
              "  return count; } }\n")
    (tmp_path / "Scan.java").write_text(source, encoding="utf-8")
    loops = {f.benchmark: f.severity for f in lint_paths([tmp_path]).findings if f.rule == "LOOP"}
    assert loops == {"Scan.scan": "info", "Scan.repeat": "warning"}


def test_shared_result_stored_in_a_field_of_a_benchmark_scoped_state(tmp_path):
    # heldout53: with @Threads(4) and Scope.Benchmark, every call of every thread stores its
    # result in the one state's field; the cache line bounces between cores. Not when the
    # state is per thread, in a @Group, the store is the whole work (the subject), a counter's
    # read-modify-write, or a volatile field.
    def source(scope, threads, body, field="byte[] buffer;"):
        return (HEADER + f"@State(Scope.{scope})\n@Threads({threads})\npublic class Sink {{\n"
                f"{field} String text = \"abc\"; int n;\n"
                f"@Benchmark public void m(Blackhole bh) {{ {body} }} }}\n")
    store = "buffer = text.getBytes(); bh.consume(buffer);"
    cases = [
        (source("Benchmark", 4, store), ["Sink.m"]),
        (source("Thread", 4, store), []),
        (source("Benchmark", 1, store), []),
        (source("Benchmark", 4, "n = 1;", field="int buffer;"), []),
        (source("Benchmark", 4, "n = n + text.length();", field="int buffer;"), []),
        (source("Benchmark", 4, store, field="volatile byte[] buffer;"), []),
    ]
    for i, (text, expected) in enumerate(cases):
        folder = tmp_path / f"c{i}"
        folder.mkdir()
        (folder / "Sink.java").write_text(text, encoding="utf-8")
        found = [f.benchmark for f in lint_paths([folder]).findings if f.rule == "SHARED" and f.severity != "info"]
        assert found == expected, (i, found)


def test_loop_concatenating_into_a_string_is_the_work(tmp_path):
    # result += String.valueOf(i) copies the growing text on every trip (heldout54's string
    # concatenation benchmark): the loop is the measured work; an int sum of the same call warns
    source = (HEADER + "@State(Scope.Thread)\npublic class Join {\n"
              "@Benchmark public String concat() { String result = \"\";\n"
              "  for (int i = 0; i < 1000; i++) { result += String.valueOf(i); } return result; }\n"
              "@Benchmark public int lengths() { int total = 0;\n"
              "  for (int i = 0; i < 1000; i++) { total += Integer.parseInt(\"12\"); } return total; } }\n")
    (tmp_path / "Join.java").write_text(source, encoding="utf-8")
    loops = {f.benchmark: f.severity for f in lint_paths([tmp_path]).findings if f.rule == "LOOP"}
    assert "Join.concat" not in loops and loops.get("Join.lengths") == "warning"


def test_final_call_on_a_static_final_object_with_static_final_arguments(tmp_path):
    # heldout54's final-method comparison: math.add(left, right) with the receiver and both
    # arguments static finals (one from a random draw at class init, which HotSpot trusts all
    # the same) folds once inlined. Not for a stateful JDK receiver (a Random), a callee that
    # loops, a non-final receiver or argument, a size by its name, or a dropped result.
    source = (HEADER + "import java.util.concurrent.ThreadLocalRandom;\n@State(Scope.Thread)\npublic class Calls {\n"
              "static class Adder { int add(int a, int b) { return a + b; }\n"
              "  int sum(int a, int b) { int s = 0; for (int i = a; i < b; i++) s += i; return s; } }\n"
              "private static final int LEFT = ThreadLocalRandom.current().nextInt();\n"
              "private static final int RIGHT = 7; private static final int SIZE = 64; int mutable = 3;\n"
              "private static final Adder MATH = new Adder(); private static Adder plain = new Adder();\n"
              "private static final Random RND = new Random(1);\n"
              "@Benchmark public int folded() { return MATH.add(LEFT, RIGHT); }\n"
              "@Benchmark public int looping() { return MATH.sum(LEFT, RIGHT); }\n"
              "@Benchmark public int random() { return RND.nextInt(RIGHT); }\n"
              "@Benchmark public int nonFinal() { return plain.add(LEFT, RIGHT); }\n"
              "@Benchmark public int variable() { return MATH.add(LEFT, mutable); }\n"
              "@Benchmark public int sized() { return MATH.add(LEFT, SIZE); } }\n")
    found = _warnings(tmp_path, {"Calls.java": source})
    assert [f for f in found if f[0] == "FINAL"] == [("FINAL", "Calls.folded")]


def test_print_of_a_whole_collection_beside_a_loop_stays_a_warning(tmp_path):
    # heldout55: a search over a 450-element list prints the list on every call; its toString
    # formats every element, so the line is as long as the data the loop walks, not "small
    # beside such work" (a short fixed line beside the same loop stays info)
    source = (HEADER + "@State(Scope.Thread)\npublic class Search {\n"
              "List<Integer> list = new ArrayList<>(); int key = 7; int[] raw = new int[450];\n"
              "@Benchmark public int whole() { System.out.println(\"searching \" + list + \" for \" + key);\n"
              "  for (int i = 0; i < list.size(); i++) if (list.get(i) == key) return i; return -1; }\n"
              "@Benchmark public int arrays() { System.out.println(Arrays.toString(raw));\n"
              "  for (int i = 0; i < raw.length; i++) if (raw[i] == key) return i; return -1; }\n"
              "@Benchmark public int line() { System.out.println(\"searching for \" + key);\n"
              "  for (int i = 0; i < list.size(); i++) if (list.get(i) == key) return i; return -1; } }\n")
    prints, severities = print_findings(tmp_path / "Search.java", source)
    assert severities == {"whole": "warning", "arrays": "warning", "line": "info"}


def test_print_on_an_error_path_is_info(tmp_path):
    # Output in a catch block or under a failed check (a wait that timed out, a reply that is
    # not OK, a missing result) runs only when the measurement has already gone wrong; output
    # on the measured path, every call, under a positive flag or every thousandth call (a
    # progress report) still costs time in a valid run beside short work (``code``, a pure
    # project method; beside a client call lint cannot see into it would be info).
    source = (HEADER + "@State(Scope.Benchmark)\npublic class Output {\n"
              "Client client; java.util.concurrent.CountDownLatch done; boolean verbose; long calls;\n"
              "int code(String path) { return path.length() * 31 + 200; }\n"
              "@Benchmark public int fetch() {\ntry { return code(\"/\"); }\n"
              "catch (RuntimeException e) { System.err.println(\"failed: \" + e); return -1; } }\n"
              "@Benchmark public void await() throws InterruptedException {\nclient.send(done);\n"
              "if (!done.await(5, java.util.concurrent.TimeUnit.SECONDS)) System.out.println(\"timed out\"); }\n"
              "@Benchmark public int status() {\nint code = code(\"/\");\n"
              "if (code != 200) { System.err.println(\"bad status \" + code); }\nreturn code; }\n"
              "@Benchmark public Object lookup() {\nObject found = client.find(\"k\");\n"
              "if (found == null) System.out.println(\"missing\");\nreturn found; }\n"
              "@Benchmark public int always() {\nint code = code(\"/\");\n"
              "System.out.println(code);\nreturn code; }\n"
              "@Benchmark public int flagged() {\nint code = code(\"/\");\n"
              "if (verbose) System.out.println(code);\nreturn code; }\n"
              "@Benchmark public int progress() {\nint code = code(\"/\");\n"
              "if (++calls % 1000 == 0) System.out.println(calls);\nreturn code; } }\n")
    prints, severities = print_findings(tmp_path / "Output.java", source)
    assert severities == {"fetch": "info", "await": "info", "status": "info", "lookup": "info",
                          "always": "warning", "flagged": "warning", "progress": "warning"}
    catch = next(f.message for f in prints if f.benchmark == "Output.fetch")
    assert "in a catch block" in catch and "error path" in catch


def _invo(tmp_path, files: dict[str, str]) -> list[tuple[str, str]]:
    tmp_path.mkdir(exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return [(f.severity, f.message) for f in lint_paths([tmp_path]).findings if f.rule == "INVO"]


VARINTS = """import java.nio.ByteBuffer;
import java.util.*;
import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;
@BenchmarkMode(Mode.AverageTime)
public class Varints {
    private static final int SAMPLES = 16384;
    @State(Scope.Benchmark)
    public static class Buffers {
        ByteBuffer scratch;
        @Setup(Level.Invocation) public void fresh() { scratch = ByteBuffer.allocate(10); }
        ByteBuffer scratch() { return scratch; }
    }
    @State(Scope.Benchmark)
    public static class Values extends Buffers {
        @Param({"1", "3"}) int width;
        private int[] values;
        @Setup(Level.Iteration) public void fill() {
            values = new int[SAMPLES];
            for (int i = 0; i < SAMPLES; i++) values[i] = i * width;
        }
        int[] values() { return values; }
    }
    @Benchmark
    public void write(Values state, Blackhole bh) {
        for (int v : state.values()) {
            Codec.writeUnsignedVarint(v, state.scratch());
            state.scratch().flip();
            bh.consume(decode(state.scratch()));
            state.scratch().clear();
        }
    }
    private static int decode(ByteBuffer buffer) {
        byte b = buffer.get();
        if (b < 0) { throw new IllegalArgumentException(); }
        return b;
    }
}
"""


def test_invo_loop_of_known_length_over_cheap_work_stays_a_warning(tmp_path):
    # the benchmark loops, but over an array whose size a constant fixes (16,384 varints, a
    # codec call, buffer flips and a small decoder each): tens of microseconds, so the
    # per-call fixture's timestamps matter (JMH's Level.Invocation javadoc: well under 1 ms)
    found = _invo(tmp_path, {"Varints.java": VARINTS})
    assert [s for s, _ in found] == ["warning"]
    assert "loops 16,384 times (the length of 'values', new int[SAMPLES])" in found[0][1]
    assert "about 164 us" in found[0][1]


def test_invo_loop_estimate_reaching_a_millisecond_or_unknown_keeps_info(tmp_path):
    # a @Param of up to 1,000,000 values: about 10 ms at 10 ns an iteration, millisecond-scale
    big = VARINTS.replace("values = new int[SAMPLES];", "values = new int[size];").replace(
        '@Param({"1", "3"}) int width;', '@Param({"1", "3"}) int width; @Param({"1000", "1000000"}) int size;')
    found = _invo(tmp_path, {"Varints.java": big})
    assert [s for s, _ in found] == ["info"] and "loops 1,000,000 times" in found[0][1]
    # a length the source does not fix (a list filled elsewhere): today's view, a loop may be long
    unknown = VARINTS.replace("for (int v : state.values())", "for (int v : state.list)").replace(
        "private int[] values;", "private int[] values; List<Integer> list;")
    assert [s for s, _ in _invo(tmp_path, {"Varints.java": unknown})] == ["info"]
    # a known length, but an iteration calling an unknown library method (its cost is not
    # visible): no estimate either
    opaque = VARINTS.replace("state.scratch().flip();", "Store.flush(state.scratch());")
    assert [s for s, _ in _invo(tmp_path, {"Varints.java": opaque})] == ["info"]


FEW = """import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class Columns {
    private static final int OPS = 10;
    private Column[] columns = new Column[OPS];
    @Setup(Level.Invocation)
    public void fresh() { for (int i = 0; i < OPS; i++) { columns[i] = Column.parse("numeric(12,3)"); } }
    @Benchmark
    @OperationsPerInvocation(OPS)
    public void metadata(Blackhole bh) {
        for (int i = 0; i < OPS; i++) { bh.consume(columns[i].typeMetadata()); }
    }
}
"""


def test_invo_a_few_loop_trips_in_short_units_stay_a_warning(tmp_path):
    # heldout15 (debezium): ten calls of code lint cannot see, reported in microseconds per
    # operation: the author says one operation is short, so ten of them are far under 1 ms
    found = _invo(tmp_path / "us", {"Columns.java": FEW})
    assert [s for s, _ in found] == ["warning"]
    assert "loops 10 times (OPS = 10) and reports microseconds per operation" in found[0][1]
    # a batch of 500 registrations in ns/op is how an author amortises the fixture: info; so
    # are ten trips reported in a throughput rate (no time per call)
    batch = FEW.replace("OPS = 10", "OPS = 500").replace("MICROSECONDS", "NANOSECONDS")
    rate = FEW.replace("Mode.AverageTime", "Mode.Throughput")
    for name, text in (("batch", batch), ("rate", rate)):
        assert [s for s, _ in _invo(tmp_path / name, {"Columns.java": text})] == ["info"], name


def test_invo_counted_loop_bound_from_a_getter_of_a_final_field(tmp_path):
    # a decoder re-created per call reads a batch of longs: i < getBatch() resolves through
    # the getter to a final field set from a constant of another class; 4 reads an iteration
    base = (HEADER + "@State(Scope.Thread)\npublic abstract class Batch {\n"
            "public static final int SIZE = 10_000;\nprivate final int batch = SIZE;\n"
            "public int getBatch() { return batch; } }\n")
    bench = (HEADER + "public class Longs {\n@State(Scope.Thread) public static class Dec extends Batch {\n"
             "Decoder decoder; byte[] data;\n@Setup(Level.Invocation) public void fresh() { decoder = Decoder.of(data); } }\n"
             "@Benchmark @OperationsPerInvocation(Batch.SIZE) public long decode(Dec state) throws Exception {\n"
             "Decoder d = state.decoder; long total = 0;\n"
             "for (int i = 0; i < state.getBatch(); i += 4) {\n"
             "total += d.readLong(); total += d.readLong(); total += d.readLong(); total += d.readLong(); }\n"
             "return total; } }\n")
    found = _invo(tmp_path, {"Batch.java": base, "Longs.java": bench})
    assert [s for s, _ in found] == ["warning"]
    assert "loops 2,500 times (batch = 10,000, in steps of 4)" in found[0][1]


# A field or state counter bumped under a condition consumes the condition's values (a store
# is an effect, as x.f += 1 is); an update of a local alone does not.
COUNTER_CASES = [
    ("@State(Scope.Thread) @AuxCounters public static class Hits { public long hits; }\n"
     "@Benchmark public void m(Hits c) {\nfloat r = (float) Math.random();\nfloat cut = (float) Math.PI / 4;\n"
     "if (r == cut) { c.hits++; } }", []),
    ("long seen;\n@Benchmark public void m() {\ndouble r = Math.random();\nif (r < 0.5) seen++; }", []),
    ("long[] seen = new long[2];\n@Benchmark public void m() {\ndouble r = Math.random();\nif (r < 0.5) --seen[0]; }", []),
    ("@Benchmark public void m() {\ndouble r = Math.random() * 3;\nint n = 0;\nif (r < 0.5) n++; }",
     [("RETU", 3)]),
]


@pytest.mark.parametrize("members, expected", COUNTER_CASES, ids=[f"counter{i}" for i in range(len(COUNTER_CASES))])
def test_a_counter_bumped_under_a_condition_consumes_it(tmp_path, members, expected):
    assert shown(tmp_path, members) == expected


def _batch_insert(bound_decl: str, bound: str) -> str:
    # a per-call fixture resets a table; the benchmark hands it to a helper that fills a
    # batch in a loop bounded by a local or by its own parameter (the shape of a JDBC insert)
    return (HEADER + "public class Inserts {\n"
            "@State(Scope.Thread) public static class Table {\n"
            "long[] rows = new long[64];\n"
            "@Setup(Level.Invocation) public void reset() { Arrays.fill(rows, 0L); } }\n"
            "long fill(Table t, int size) {\n"
            f"{bound_decl}\nlong sum = 0;\n"
            f"for (int i = 0; i < {bound}; i++) {{ sum += t.rows[i & 63] + i; }}\n"
            "return sum; }\n"
            "@Benchmark public long insert(Table t) { return fill(t, 100); } }\n")


def test_invo_loop_bound_by_a_local_or_a_parameter_of_a_helper(tmp_path):
    # a bound that is a local with an initializer resolves to its value: 100 cheap
    # iterations, about a microsecond, so the per-call fixture is a warning (an unresolved
    # count would keep the loop as evidence of a long call: info)
    found = _invo(tmp_path, {"Inserts.java": _batch_insert("int count = 100;", "count")})
    assert [s for s, _ in found] == ["warning"]
    # the same local set to 1,000,000: about 10 ms, millisecond-scale work, info
    found = _invo(tmp_path, {"Inserts.java": _batch_insert("int count = 1_000_000;", "count")})
    assert [s for s, _ in found] == ["info"] and "calls fill, which loops 1,000,000 times" in found[0][1]
    # a bound that is the helper's parameter has no value in the helper's source: the lint
    # must not fail on it (it once raised KeyError here), and an unknown count keeps the
    # loop as cost evidence (info)
    found = _invo(tmp_path, {"Inserts.java": _batch_insert("", "size")})
    assert [s for s, _ in found] == ["info"]
    # a local assigned again is not a known count either
    found = _invo(tmp_path, {"Inserts.java": _batch_insert("int count = 100; count += size;", "count")})
    assert [s for s, _ in found] == ["info"]


def test_constant_input_of_a_call_on_a_receiver_built_in_the_call(tmp_path):
    # a constant date parsed by a formatter created in the same expression: the new object's
    # state (its pattern, a calendar the parse mutates) is an input too, so the constant is
    # not the call's only input; a static parse of the same constant stays a warning
    body = ("@State(Scope.Thread)\npublic class D {\nstatic final String DAY = \"2024-02-29\";\n"
            "static final String PATTERN = \"yyyy-MM-dd\";\n"
            "@Benchmark public java.util.Date fresh() throws Exception {\n"
            "  return new java.text.SimpleDateFormat(PATTERN).parse(DAY); }\n"
            "@Benchmark public Object chained() { return Formats.iso().parse(DAY); }\n"
            "@Benchmark public void consumed(Blackhole bh) { bh.consume(java.time.LocalDate.parse(DAY)); }\n"
            "@Benchmark public long parsed() { return Long.parseLong(DAY.substring(0, 4)); }\n"
            "@Benchmark public int length() { return Dates.daysIn(DAY); } }\n")
    (tmp_path / "D.java").write_text(HEADER + body)
    found = [(f.rule, f.benchmark) for f in lint_paths([tmp_path]).findings if f.severity != "info"]
    assert found == [("FINAL", "D.consumed"), ("FINAL", "D.length")]


def test_print_a_log_line_beside_millisecond_work_is_info(tmp_path):
    # A logger call once per call of a benchmark that sends a batch to a database (a helper
    # looping over the rows, then a JDBC round trip) or waits for worker threads: one line is
    # small beside that, and so is a System.out line. The same line in a cheap benchmark or
    # inside the loop (once per row) stays a warning.
    source = ("import java.sql.*;\nimport org.slf4j.Logger;\n" + HEADER +
              "@State(Scope.Benchmark)\npublic class Rows {\n"
              "static final Logger LOG = null; Connection conn; long[] ids; Thread worker; long hits;\n"
              "void send(long[] values) throws SQLException {\n"
              "  PreparedStatement ps = conn.prepareStatement(\"INSERT INTO t VALUES (?)\");\n"
              "  for (long v : values) { ps.setLong(1, v); ps.addBatch(); }\n"
              "  ps.executeBatch(); }\n"
              "@Benchmark public void batch() throws SQLException {\n"
              "  LOG.info(\"sending batch\"); send(ids); }\n"
              "@Benchmark public void joined() throws InterruptedException {\n"
              "  LOG.debug(\"joining\"); worker.join(); }\n"
              "@Benchmark public long cheap() {\n  LOG.info(\"hit\"); return ++hits; }\n"
              "@Benchmark public void perRow() throws SQLException {\n"
              "  for (long v : ids) { LOG.info(\"row {}\", v); }\n  send(ids); }\n"
              "@Benchmark public void console() throws SQLException {\n"
              "  System.out.println(\"sending\"); send(ids); } }\n")
    prints, severities = print_findings(tmp_path / "Rows.java", source)
    assert severities == {"batch": "info", "joined": "info", "cheap": "warning",
                          "perRow": "warning", "console": "info"}
    batch = next(f.message for f in prints if f.benchmark == "Rows.batch")
    assert "calls send, which loops" in batch and "small beside such work" in batch
    console = next(f.message for f in prints if f.benchmark == "Rows.console")
    assert "prints once per call" in console and "calls send, which loops" in console


def _severities(tmp_path, rule: str, source: str) -> dict[str, str]:
    path = tmp_path / "Out.java"
    path.write_text(source, encoding="utf-8")
    return {f.benchmark.split(".")[-1]: str(f.severity) for f in lint_paths([tmp_path]).findings
            if f.rule == rule}


def test_output_and_hand_timing_beside_work_lint_cannot_see_are_info(tmp_path):
    # Issue #34's corpus: in 40 real projects no PRINT or TIMER warning was right (0 of 168);
    # the output or clock sat beside work whose cost lint could not see (a graph build, a
    # database insert, a network call). The harm needs short work: beside a call of unknown
    # cost it is info. A benchmark whose work lint sees to be short (pure JDK, a pure project
    # method), that reports a time per call in ns or us, or that prints or reads the clock
    # once per item, keeps the warning.
    source = (HEADER + "@State(Scope.Benchmark)\npublic class Out {\n"
              "Index index; double x; double[] xs = new double[64];\n"
              "double half(double v) { return v / 2; }\n"
              "@Benchmark public void build() {\nlong t = System.nanoTime();\nindex.build();\n"
              "System.out.printf(\"built in %d%n\", System.nanoTime() - t); }\n"
              "@Benchmark public double pure() {\nlong t = System.nanoTime();\ndouble y = half(Math.log(x));\n"
              "System.out.println(System.nanoTime() - t);\nreturn y; }\n"
              "@Benchmark @BenchmarkMode(Mode.AverageTime) @OutputTimeUnit(java.util.concurrent.TimeUnit.NANOSECONDS)\n"
              "public void fast() {\nlong t = System.nanoTime();\nindex.build();\n"
              "System.out.println(System.nanoTime() - t); }\n"
              "@Benchmark public void perItem() {\nindex.build();\n"
              "for (double v : xs) { long t = System.nanoTime(); double y = Math.log(v);\n"
              "System.out.println(y + (System.nanoTime() - t)); } } }\n")
    prints = _severities(tmp_path, "PRINT", source)
    assert prints == {"build": "info", "pure": "warning", "fast": "warning", "perItem": "warning"}
    timers = _severities(tmp_path, "TIMER", source)
    assert timers == {"build": "info", "pure": "warning", "fast": "warning", "perItem": "warning"}
    message = next(f.message for f in lint_paths([tmp_path]).findings
                   if f.rule == "TIMER" and f.benchmark == "Out.build")
    assert "calls build(), whose cost lint cannot see" in message


# STALE: a benchmark that sorts its state's input in place sorts sorted data from the second call on
STALE_CASES = [
    ("int[] values = new int[1000];\n@Benchmark public int[] m() {\njava.util.Arrays.sort(values); return values; }",
     [("STALE", 3)]),
    ("java.util.List<Integer> rows = new java.util.ArrayList<>();\n@Benchmark public Object m() {\n"
     "rows.sort(null); return rows; }", [("STALE", 3)]),
    ("static final int[] TABLE = new int[1000];\n@Benchmark public int[] m() {\n"
     "java.util.Arrays.parallelSort(TABLE); return TABLE; }", [("STALE", 3)]),
    # a hand-written sort of a state array (moves the elements among themselves)
    ("byte[] arr = new byte[64];\nvoid bubble(byte[] b) { for (int c = 0; c < b.length - 1; c++) "
     "if (b[c] > b[c + 1]) { byte t = b[c]; b[c] = b[c + 1]; b[c + 1] = t; } }\n"
     "@Benchmark public byte[] m() {\nbubble(arr); return arr; }", [("STALE", 4)]),
    # a copy sorted in the benchmark, a field written first, a per-call restore: fresh input each call
    ("int[] values = new int[1000];\n@Benchmark public int[] m() {\nint[] c = values.clone(); "
     "java.util.Arrays.sort(c); return c; }", []),
    ("int[] values = new int[1000];\nint[] original = new int[1000];\n@Benchmark public int[] m() {\n"
     "values = original.clone(); java.util.Arrays.sort(values); return values; }", []),
    ("int[] values;\nint[] original = new int[1000];\n@Setup(Level.Invocation) public void s() { values = original.clone(); }\n"
     "@Benchmark public int[] m() {\njava.util.Arrays.sort(values); return values; }", []),
    ("int[] values = new int[1000];\nvoid refill(int[] v) { java.util.Arrays.fill(v, 7); }\n"
     "@Benchmark public int[] m() {\nrefill(values); java.util.Arrays.sort(values); return values; }", []),
    # a teardown after each call that copies the input back (heldout52's radix sort)
    ("int[] values = new int[1000];\nint[] copy = new int[1000];\n@TearDown(Level.Invocation) public void restore() "
     "{ System.arraycopy(copy, 0, values, 0, values.length); }\n"
     "@Benchmark public int[] m() {\njava.util.Arrays.sort(values); return values; }", []),
    # input already sorted in setup: sorting it again leaves it as it was
    ("int[] values = new int[1000];\n@Setup public void s() { java.util.Arrays.sort(values); }\n"
     "@Benchmark public int[] m() {\njava.util.Arrays.sort(values); return values; }", []),
    # an output buffer the helper fills (not moved among themselves), a shuffle: not stale
    ("byte[] out = new byte[64];\nvoid fill(byte[] b, int v) { for (int i = 0; i < b.length; i++) b[i] = (byte) (v + i); }\n"
     "@Benchmark public byte[] m() {\nfill(out, 3); return out; }", []),
    ("java.util.List<Integer> rows = new java.util.ArrayList<>();\n@Benchmark public Object m() {\n"
     "java.util.Collections.shuffle(rows); return rows; }", []),
    # a hand-written reverse or shuffle moves elements without comparing them: a new order each call
    ("int[] v = new int[64];\nvoid flip(int[] a) { for (int i = 0, j = a.length - 1; i < j; i++, j--) "
     "{ int t = a[i]; a[i] = a[j]; a[j] = t; } }\n@Benchmark public int[] m() {\nflip(v); return v; }", []),
    ("java.util.List<Integer> rows = new java.util.ArrayList<>();\n@Benchmark public Object m() {\n"
     "java.util.Collections.reverse(rows); return rows; }", []),
]


@pytest.mark.parametrize("members, expected", STALE_CASES, ids=[f"stale{i}" for i in range(len(STALE_CASES))])
def test_stale_sorts_of_state_input(tmp_path, members, expected):
    assert [f for f in shown(tmp_path, members) if f[0] == "STALE"] == expected


# STALE: a benchmark that only takes elements out of its state's collection, which a Trial or
# Iteration fixture fills, empties it (or removes its keys) in the first calls, and measures
# removing from an emptied collection afterwards (heldout50's primitive-collection suite)
_FILLED = ("ArrayDeque<Integer> queue; Set<Integer> set; int[] keys = {1, 2, 3};\n"
           "@Setup(Level.Iteration) public void fill() { queue = new ArrayDeque<>(); set = new HashSet<>();\n"
           "  for (int i = 0; i < 1000; i++) { queue.add(i); set.add(i); } }\n")
DRAIN_CASES = [
    (_FILLED + "@Benchmark public void m(Blackhole bh) {\nwhile (!queue.isEmpty()) bh.consume(queue.poll()); }",
     [("STALE", 5)]),
    (_FILLED + "@Benchmark public void m() {\nfor (int k : keys) set.remove(k); }", [("STALE", 5)]),
    (_FILLED + "@Benchmark public Integer m() {\nreturn queue.pollFirst(); }", [("STALE", 5)]),
    # what is taken out goes back, or a helper, a lambda or another call may put it back
    (_FILLED + "@Benchmark public void m() {\nfor (int k : keys) { set.remove(k); set.add(k); } }", []),
    (_FILLED + "@Benchmark public Integer m() {\nqueue.offer(7); return queue.poll(); }", []),
    (_FILLED + "void refill() { queue.add(1); }\n@Benchmark public Integer m() {\nrefill(); return queue.poll(); }", []),
    (_FILLED + "@Benchmark public Integer m() {\nshow(queue); return queue.poll(); }\nvoid show(Deque<Integer> q) { }", []),
    # a per-invocation refill, SingleShotTime, a @Group sibling, a queue other threads fill
    ("ArrayDeque<Integer> queue;\n@Setup(Level.Invocation) public void fill() { queue = new ArrayDeque<>(List.of(1, 2)); }\n"
     "@Benchmark public Integer m() {\nreturn queue.poll(); }", []),
    ("ArrayDeque<Integer> queue;\n@Setup(Level.Iteration) public void fill() { queue = new ArrayDeque<>(List.of(1, 2)); }\n"
     "@Benchmark @BenchmarkMode(Mode.SingleShotTime) public Integer m() {\nreturn queue.poll(); }", []),
    ("ArrayDeque<Integer> queue = new ArrayDeque<>();\n@Benchmark @Group(\"q\") public Integer m() {\nreturn queue.poll(); }\n"
     "@Benchmark @Group(\"q\") public boolean o() { return queue.offer(1); }", []),
    ("java.util.concurrent.ConcurrentLinkedQueue<Integer> queue = new java.util.concurrent.ConcurrentLinkedQueue<>();\n"
     "@Benchmark public Integer m() {\nreturn queue.poll(); }", []),
    # clear() as a reset before refilling, a persistent map whose remove returns a new map
    (_FILLED + "@Benchmark public Set<Integer> m() {\nset.clear(); return set; }", []),
    ("static final class PMap { PMap remove(int k) { return this; } }\nPMap map = new PMap();\n"
     "@Benchmark public PMap m() {\nreturn map.remove(3); }", []),
]


@pytest.mark.parametrize("members, expected", DRAIN_CASES, ids=[f"drain{i}" for i in range(len(DRAIN_CASES))])
def test_stale_drains_of_state_collections(tmp_path, members, expected):
    assert [f for f in shown(tmp_path, members) if f[0] == "STALE"] == expected


@pytest.mark.parametrize("producer, expected", [("new Thread(() -> queue.add(1)).start();", []),
                                                ("queue.add(1);", [("STALE", "Take.m")])])
def test_stale_drain_silent_when_the_state_in_another_file_starts_a_producer(tmp_path, producer, expected):
    # the @State class that fills the queue lives in its own file: a thread it starts may keep
    # refilling the queue, so taking from it is not draining a fixed collection
    files = {"Feed.java": HEADER + "@State(Scope.Thread)\npublic class Feed {\n"
                                   "public ArrayDeque<Integer> queue = new ArrayDeque<>();\n"
                                   f"@Setup(Level.Iteration) public void fill() {{ {producer} }} }}\n",
             "Take.java": HEADER + "public class Take {\n"
                                   "@Benchmark public Integer m(Feed feed) { return feed.queue.poll(); } }\n"}
    assert [f for f in _warnings(tmp_path, files) if f[0] == "STALE"] == expected


def test_loop_size_arithmetic_in_a_traversal_is_info_and_a_counted_repeat_is_not(tmp_path):
    # heldout17 (async-http-client): a header length summed part by part over a list, with an
    # invariant term beside element-dependent ones and name.length() reads: the traversal is the
    # measured work, so info. JMHSample_11's counted loop repeating only x + y stays a warning.
    source = ("import java.util.*;\n" + HEADER + "@State(Scope.Benchmark)\npublic class Sizes {\n"
              "List<String> parts; byte[] boundary; int x, y, reps = 100;\n"
              "@Benchmark public int header() { int total = 0;\n"
              "  for (String p : parts) { total += 2 + boundary.length; total += 7 + p.length(); }\n"
              "  return total; }\n"
              "@Benchmark public int repeated() { int s = 0; for (int i = 0; i < reps; i++) { s += x + y; } return s; } }\n")
    (tmp_path / "Sizes.java").write_text(source, encoding="utf-8")
    found = sorted((f.benchmark, f.severity) for f in lint_paths([tmp_path]).findings if f.rule == "LOOP")
    assert found == [("Sizes.header", "info"), ("Sizes.header", "info"), ("Sizes.repeated", "warning")]


def test_loop_repeating_an_invariant_array_copy_is_a_warning(tmp_path):
    # A counted loop under @OperationsPerInvocation that only repeats one copy (or fill) between
    # the same arrays stores the same values on every trip (jruby's ArrayCopyBenchmark shape):
    # a warning, and a copy into a fresh array says it is dead too. Operands that change per trip,
    # a copy within one array (a shift), a counter read in the body, or any other statement in the
    # body keep it silent.
    source = ("import java.util.Arrays;\n" + HEADER + "@State(Scope.Thread)\npublic class Copies {\n"
              "static final int N = 1_000_000;\n"
              "static final Object[] SRC = {1, 2, 3}; static final Object[] DST = new Object[3];\n"
              "int[] ints = new int[8]; Object[][] rows = new Object[4][3]; int k;\n"
              "@Benchmark @OperationsPerInvocation(N) public void same() {\n"
              "  for (int i = 0; i < N; i++) { System.arraycopy(SRC, 0, DST, 0, SRC.length); } }\n"
              "@Benchmark @OperationsPerInvocation(N) public void fresh() {\n"
              "  for (int i = 0; i < N; i++) System.arraycopy(SRC, 0, new Object[4], 1, SRC.length); }\n"
              "@Benchmark @OperationsPerInvocation(N) public void fill() {\n"
              "  for (int i = 0; i < N; i++) { Arrays.fill(ints, -1); } }\n"
              "@Benchmark public void perRow() {\n"
              "  for (int i = 0; i < 4; i++) { System.arraycopy(SRC, 0, rows[i], 0, SRC.length); } }\n"
              "@Benchmark public void shift() {\n"
              "  for (int i = 0; i < N; i++) { System.arraycopy(ints, 0, ints, 1, 7); } }\n"
              "@Benchmark public void counted() {\n"
              "  for (int i = 0; i < N; i++) { Arrays.fill(ints, i); } }\n"
              "@Benchmark public void more() {\n"
              "  for (int i = 0; i < N; i++) { System.arraycopy(SRC, 0, DST, 0, SRC.length); k++; } }\n"
              "@Benchmark public void method() {\n"
              "  for (int i = 0; i < N; i++) { System.arraycopy(SRC, 0, DST, 0, length()); } }\n"
              "int length() { return 3; } }\n")
    found = _by_rule(tmp_path, "Copies.java", source, "LOOP")
    assert sorted(found) == [("Copies.fill", "warning"), ("Copies.fresh", "warning"), ("Copies.same", "warning")]
    messages = {f.benchmark: f.message for f in lint_paths([tmp_path]).findings if f.rule == "LOOP"}
    assert "new array that nothing reads" in messages["Copies.fresh"]
    assert "every trip stores what the previous one stored" in messages["Copies.same"]


@pytest.mark.parametrize("package, doc, severity", [
    ("org.openjdk.bench.vm.compiler", "", "info"),     # OpenJDK's compiler micros (Straighten)
    ("demo", "/** How well the optimizer straightens code. */", "info"),
    ("demo", "/** Lets the JIT compiler inline the call sooner. */", "warning"),  # a mention only
    ("demo.compilers", "", "warning"),                 # a segment must be exactly the word
    ("demo.runtime.fission", "", "info"),              # an optimisation as the topic (heldout34)
    ("demo.inlining.hashers", "", "info"),
    ("demo.asm.constfold", "", "info"),                # heldout36's constant-folding demo
])
def test_loop_is_info_where_the_class_measures_the_compiler(tmp_path, package, doc, severity):
    # A cheap pure helper summed over an array is LOOP's warning (JMHSample_34), unless the class
    # says it measures the JIT's own optimisations: the merging is then the subject.
    source = (f"package {package};\n" + HEADER + f"{doc}\n@State(Scope.Thread)\npublic class Straight {{\n"
              "int[] arr;\nprivate int inner(int i) { int j = 0; if (i == 5) { j++; } if (i < 7) { j += 4; } return j; }\n"
              "@Benchmark public int m() { int acc = 0; for (int i : arr) { acc += inner(i); } return acc; } }\n")
    (tmp_path / "Straight.java").write_text(source, encoding="utf-8")
    assert [f.severity for f in lint_paths([tmp_path]).findings if f.rule == "LOOP"] == [severity]


def _by_rule(tmp_path, name: str, source: str, rule: str) -> list[tuple[str, str]]:
    """(benchmark, severity) of ``rule``'s findings on one file ``name`` holding ``source``."""
    (tmp_path / name).write_text(source, encoding="utf-8")
    return [(f.benchmark, f.severity) for f in lint_paths([tmp_path]).findings if f.rule == rule]


def test_final_string_literal_given_to_a_library_predicate(tmp_path):
    # logbook (in-sample): ContentType.isJsonMediaType("application/json") returned is a chain of
    # character checks on a constant, folded whole, as the same string in a static final would
    # be. A parse of a literal, a predicate whose result is dropped or wrapped in a new object
    # (no crash there), and an instance predicate on a variable are not reported.
    source = (HEADER + "@State(Scope.Thread)\npublic class Media {\nString type;\n"
              "@Benchmark public boolean json() { return ContentType.isJsonMediaType(\"application/json\"); }\n"
              "@Benchmark public void bh(Blackhole bh) { bh.consume(ContentType.hasCharset(\"text/plain\")); }\n"
              "@Benchmark public Object parsed() { return ContentType.parse(\"application/json\"); }\n"
              "@Benchmark public Object wrapped() { return new Holder(ContentType.isJsonMediaType(\"a/json\")); }\n"
              "@Benchmark public boolean own() { return type.startsWith(\"application\"); }\n"
              # heldout46 (marschall): a library's integer parse of a literal, as the JDK's
              "@Benchmark public int digits() { return CharSequences.parseInt(\"1\"); } }\n")
    assert _by_rule(tmp_path, "Media.java", source, "FINAL") == [
        ("Media.json", "warning"), ("Media.bh", "warning"), ("Media.digits", "warning")]


def test_loop_term_beside_an_inner_loop_is_info(tmp_path):
    # heldout25 (sirix, in-sample): count += Long.bitCount(word) per 64-row word, beside an inner
    # loop over the word's lanes that does the fold: the body is heavy, the bit count one term.
    # The same JDK count alone in the loop is a reduction over the data, info too (heldout35's
    # popcounts); a project function summed alone stays a warning (RoaringBitmap's select).
    source = (HEADER + "@State(Scope.Thread)\npublic class Fold {\nlong[] masks; long[] vals;\n"
              "static int select(long w, int j) { return Long.numberOfTrailingZeros(w >>> j); }\n"
              "@Benchmark public long selects() { long answer = 0;\n"
              "  for (int i = 0; i < masks.length; i++) { answer += select(masks[i], 3); }\n"
              "  return answer; }\n"
              "@Benchmark public long folded() { long count = 0, sum = 0; int wi = 0;\n"
              "  for (int b = 0; b < vals.length; b += 64) { final long word = masks[wi++];\n"
              "    count += Long.bitCount(word);\n"
              "    for (int k = 0; k < 64; k++) { if ((word >>> k & 1) != 0) { sum += vals[b + k]; } } }\n"
              "  return count ^ sum; }\n"
              "@Benchmark public long alone() { long count = 0;\n"
              "  for (int i = 0; i < masks.length; i++) { count += Long.bitCount(masks[i]); }\n"
              "  return count; } }\n")
    assert sorted(_by_rule(tmp_path, "Fold.java", source, "LOOP")) == [
        ("Fold.alone", "info"), ("Fold.folded", "info"), ("Fold.selects", "warning")]


def test_final_silent_on_a_constant_a_helper_hands_to_a_library_constructor(tmp_path):
    # heldout25 (sirix, in-sample): run(QUERY) builds new Query(chain, prefix + query) of a
    # library class and serializes its result: the constant selects which query runs. A helper
    # that computes on it with JDK string methods is still reported.
    source = (HEADER + "@State(Scope.Thread)\npublic class Q {\n"
              'static final String COUNT = "count($doc)";\nObject chain;\n'
              'private String run(String query) { return new Query(chain, "declare " + query).serialize(); }\n'
              "private int twice(String s) { return s.indexOf('c') + s.length(); }\n"
              "@Benchmark public String counted() { return run(COUNT); }\n"
              "@Benchmark public int reversed() { return twice(COUNT); } }\n")
    assert _by_rule(tmp_path, "Q.java", source, "FINAL") == [("Q.reversed", "warning")]


def test_retu_void_final_are_info_where_the_class_measures_the_compiler(tmp_path):
    # heldout29 (jvm-performance-benchmarks' compiler package, in-sample): a dead loop, a constant
    # operand of a vectorised loop and a dropped result are what such a class measures. The same
    # code in another package keeps its warnings.
    body = ("@State(Scope.Thread)\npublic class Jit {\nfinal int k = 3; int[] a;\n"
            "private int pure(int x) { return x * 31 + 7; }\n"
            "@Benchmark public void dead() { int dummy = Math.abs(a.length); }\n"
            "@Benchmark public void dropped() { pure(a.length); }\n"
            "@Benchmark public int folded() { return Math.abs(k); } }\n")
    (tmp_path / "Jit.java").write_text("package com.example.benchmarks.compiler;\n" + HEADER + body, encoding="utf-8")
    found = lint_paths([tmp_path]).findings
    assert sorted((f.rule, f.severity) for f in found if f.rule in ("RETU", "VOID", "FINAL")) == \
        [("FINAL", "info"), ("RETU", "info"), ("VOID", "info")]
    assert all("measures the JIT's own optimisations" in f.message for f in found if f.rule in ("RETU", "VOID"))
    (tmp_path / "Jit.java").write_text("package com.example.benchmarks.api;\n" + HEADER + body, encoding="utf-8")
    assert sorted((f.rule, f.severity) for f in lint_paths([tmp_path]).findings
                  if f.rule in ("RETU", "VOID", "FINAL")) == [("FINAL", "warning"), ("RETU", "error"), ("VOID", "warning")]


def test_a_benchmark_marked_as_the_mistake_keeps_its_warning_in_a_compiler_class(tmp_path):
    # heldout62: a teaching demo whose class doc blames "JIT compiler optimizations" names its
    # pitfalls badIgnoredConst or documents them as a "Bad example": those are what lint is for
    body = ("@State(Scope.Thread)\npublic class Demo {\ndouble pi = Math.PI;\n"
            "@Benchmark public void badIgnored() { Math.log(pi); }\n"
            "/** Bad example: the result is not used. */\n@Benchmark public void ignored() { Math.log(pi); }\n"
            "@Benchmark public void measureWrong() { Math.log(pi); }\n"
            "@Benchmark public void dropped() { Math.log(pi); }\n"
            "@Benchmark public void badge() { Math.log(pi); } }\n")
    (tmp_path / "Demo.java").write_text("package com.example.compiler;\n" + HEADER + body, encoding="utf-8")
    found = {f.benchmark: f.severity for f in lint_paths([tmp_path]).findings if f.rule == "RETU"}
    assert found == {"Demo.badIgnored": "error", "Demo.ignored": "error", "Demo.measureWrong": "error",
                     "Demo.dropped": "info", "Demo.badge": "info"}


@pytest.mark.parametrize("annotations, body, severity", [
    # heldout54: in SingleShotTime with JMH's defaults or a few iterations the method runs a few
    # times per fork, below HotSpot's first compile threshold: the interpreter drops nothing
    ("@BenchmarkMode(Mode.SingleShotTime)", "Math.log(x);", "info"),
    ("@BenchmarkMode(Mode.SingleShotTime) @Warmup(iterations = 1) @Measurement(iterations = 1)", "Math.log(x);", "info"),
    # enough calls to be compiled, a loop (compiled on stack), or another mode: the JIT's case
    ("@BenchmarkMode(Mode.SingleShotTime) @Measurement(iterations = 10, batchSize = 100)", "Math.log(x);", "error"),
    ("@BenchmarkMode(Mode.SingleShotTime)", "for (int i = 0; i < 100000; i++) { Math.log(x + i); }", "error"),
    ("@BenchmarkMode({Mode.SingleShotTime, Mode.AverageTime})", "Math.log(x);", "error"),
    ("@BenchmarkMode(Mode.AverageTime)", "Math.log(x);", "error"),
])
def test_retu_is_info_where_single_shot_runs_too_few_times_to_compile(tmp_path, annotations, body, severity):
    source = f"{HEADER}@State(Scope.Thread)\npublic class S {{\ndouble x = 2.0;\n{annotations}\n" \
             f"@Benchmark public void m() {{ {body} }} }}\n"
    (tmp_path / "S.java").write_text(source, encoding="utf-8")
    found = [f for f in lint_paths([tmp_path]).findings if f.rule == "RETU"]
    assert [f.severity for f in found] == [severity]
    assert ("HotSpot first compiles" in found[0].message) == (severity == "info")


def test_void_silent_on_a_dropped_call_kept_out_of_line_by_compiler_control(tmp_path):
    # heldout29: a @CompilerControl(DONT_INLINE) helper is compiled as a call; the JIT does not
    # see that its result is unused and cannot remove it. An inlinable twin is still reported.
    source = (HEADER + "@State(Scope.Thread)\npublic class Kept {\nint[] a;\n"
              "@CompilerControl(CompilerControl.Mode.DONT_INLINE) private int outOfLine(int x) { return x * 31; }\n"
              "private int inline(int x) { return x * 31; }\n"
              "@Benchmark public void kept() { outOfLine(a.length); }\n"
              "@Benchmark public void local() { int r = outOfLine(a.length); }\n"
              "@Benchmark public void removable() { inline(a.length); } }\n")
    assert _by_rule(tmp_path, "Kept.java", source, "VOID") == [("Kept.removable", "warning")]
    # nor does RETU take the dropped out-of-line call (or its dead local) over from VOID
    assert [f for f in lint_paths([tmp_path]).findings if f.rule == "RETU" and f.severity != "info"] == []


def test_loop_over_regex_string_calls_is_not_a_cheap_merge(tmp_path):
    # heldout29: String.matches compiles a Pattern per call; a loop counting matches over a word
    # list is heavy work, so info. String.length() summed the same way stays a size (info too),
    # a JDK bit count of each element is a reduction over the data (info), and a cheap pure
    # project helper summed the same way stays a warning (JMHSample_34).
    source = (HEADER + "@State(Scope.Thread)\npublic class Words {\nString[] words; int[] xs;\n"
              "static int low(int x) { return x & 15; }\n"
              "@Benchmark public int regex() { int n = 0; for (String w : words) { n += w.matches(\"a.*\") ? 1 : 0; } return n; }\n"
              "@Benchmark public int lows() { int n = 0; for (int x : xs) { n += low(x); } return n; }\n"
              "@Benchmark public int bits() { int n = 0; for (int x : xs) { n += Integer.bitCount(x); } return n; } }\n")
    assert sorted(_by_rule(tmp_path, "Words.java", source, "LOOP")) == [
        ("Words.bits", "info"), ("Words.lows", "warning"), ("Words.regex", "info")]


def test_retu_silent_on_a_dead_local_from_a_library_call_that_may_write_an_output(tmp_path):
    # heldout17 (rocksdb): `int res = db.get(cf, options, key, value)` reads into the value
    # buffer through JNI; the unread count does not let the JIT drop the lookup. A library
    # getter of one index whose result is unread (arrow's vector.getObject(i)) stays an error;
    # a call named as an action (heldout19's template.insertAll(rows)) is silent too, and a
    # parser or compiler (heldout23's mustache compile of a template resource).
    source = ("import java.util.*;\n" + HEADER + "@State(Scope.Benchmark)\npublic class Store {\nDb db; Object cf, options, key, value; Vec vec; Tpl template;\n"
              "@Benchmark public void lookup() { int res = db.get(cf, options, key, value); }\n"
              "@Benchmark public void inserted() { List<Object> rows = template.insertAll(key); }\n"
              "@Benchmark public void compiled() { Object m = new Factory().compile(\"page.mustache\"); }\n"
              "@Benchmark public void getter() { Object o = vec.getObject(3); } }\n")
    (tmp_path / "Store.java").write_text(source, encoding="utf-8")
    found = [(f.rule, f.benchmark) for f in lint_paths([tmp_path]).findings if f.severity != "info"]
    assert found == [("RETU", "Store.getter")]


SHARED_RANDOM_CASES = [
    # SHARED (issue 34, venice in heldout20): a java.util.Random of a shared state that every
    # thread of a multi-threaded benchmark draws from, here through a helper of the class
    ("java.util.Random random = new Random(); Map<Integer, Long> map = new HashMap<>();\n"
     "@Benchmark @Threads(8) public void m() { put(); }\n"
     "private void put() {\nint key = random.nextInt(1000); map.put(key, 1L); }", "Benchmark", [("SHARED", 4)]),
    ("static final Random RANDOM = new Random(42); int[] data = new int[8];\n"
     "@Benchmark @Group(\"g\") @GroupThreads(4) public int a() {\nreturn data[RANDOM.nextInt(8)]; }\n"
     "@Benchmark @Group(\"g\") public int b() { return 1; }", "Thread", [("SHARED", 3)]),
    # not where the draw is the result (the random source is the subject), nor with a runner
    # asking for one thread
    ("Random random = new Random();\n@Benchmark @Threads(4) public long m() { return random.nextLong(); }",
     "Benchmark", []),
    ("Random random = new Random(); int[] data = new int[8];\n@Benchmark public int m() { return data[random.nextInt(8)]; }\n"
     "void run() { new org.openjdk.jmh.runner.options.OptionsBuilder().threads(1).build(); }", "Benchmark", []),
    # not with one thread, a per-thread state, ThreadLocalRandom, or where Random is the subject
    ("Random random = new Random();\n@Benchmark public int m() { return random.nextInt(); }", "Benchmark", []),
    ("Random random = new Random();\n@Benchmark @Threads(4) public int m() { return random.nextInt(); }", "Thread", []),
    ("@Benchmark @Threads(4) public int m() { return java.util.concurrent.ThreadLocalRandom.current().nextInt(); }",
     "Benchmark", []),
    ("Random random = new Random();\n@Benchmark @Threads(4) public int sharedRandom() { return random.nextInt(); }",
     "Benchmark", []),
    # heldout60: info where one call takes milliseconds (here by its unit; a locked file store):
    # a draw's contended update is a small part of the call
    ("Random random = new Random(); Map<Long, Long> map = new HashMap<>();\n"
     "@Benchmark @Threads(2) @BenchmarkMode(Mode.AverageTime)\n"
     "@OutputTimeUnit(java.util.concurrent.TimeUnit.MILLISECONDS) public void m() {\n"
     "map.put(random.nextLong(), 1L); }", "Benchmark", []),
    ("Random random = new Random(); Map<Long, Long> map = new HashMap<>();\n"
     "@Benchmark @Threads(2) @OutputTimeUnit(java.util.concurrent.TimeUnit.NANOSECONDS) public void m() {\n"
     "map.put(random.nextLong(), 1L); }", "Benchmark", [("SHARED", 3)]),
]


@pytest.mark.parametrize("members, scope, expected", SHARED_RANDOM_CASES,
                         ids=[f"shared_random{i}" for i in range(len(SHARED_RANDOM_CASES))])
def test_shared_random_source(tmp_path, members, scope, expected):
    source = f"{HEADER}@State(Scope.{scope})\npublic class P {{\n{members}\n}}\n"
    (tmp_path / "P.java").write_text(source, encoding="utf-8")
    result = lint_paths([tmp_path])
    assert result.warnings == ()
    assert sorted((f.rule, f.line - 5) for f in result.findings if f.severity != "info") == expected


def test_final_string_longer_than_a_full_unroll_is_info(tmp_path):
    # A call folds on a constant string only where C2 unrolls the loop over its characters
    # completely, which its unroll budget does not allow much beyond 30 characters: a static
    # final of 40 characters or a literal of 43 given to a library predicate is info and says
    # its length; 32 characters (escapes count as one) and fewer stay warnings.
    long_text = "k=v;" * 10
    source = (HEADER + "@State(Scope.Thread)\npublic class S {\n"
              f'static final String LONG = "{long_text}";\n'
              'static final String EDGE = "\\tabcdefghijklmnopqrstuvwxyz\\u00e9abcd";\n'
              "@Benchmark public int longField() { return Config.parse(LONG); }\n"
              "@Benchmark public int edgeField() { return Config.parse(EDGE); }\n"
              '@Benchmark public boolean longLiteral() { return ContentType.isJsonMediaType("application/vnd.example.order-v2+json;q=0.9"); }\n'
              '@Benchmark public boolean shortLiteral() { return ContentType.isJsonMediaType("application/json"); } }\n')
    (tmp_path / "S.java").write_text(source, encoding="utf-8")
    found = sorted((f.benchmark, f.severity, f.message) for f in lint_paths([tmp_path]).findings if f.rule == "FINAL")
    assert [(b, s) for b, s, _ in found] == [("S.edgeField", "warning"), ("S.longField", "info"),
                                            ("S.longLiteral", "info"), ("S.shortLiteral", "warning")]
    assert "(String, 40 characters)" in found[1][2] and "(43 characters)" in found[2][2]
    assert "unroll" in found[1][2] and "unroll" in found[2][2]


def test_retu_reads_the_vector_api_generic_vector_by_its_import(tmp_path):
    # heldout48 (tkowalcz's memory throughput loop): Vector<Integer> from jdk.incubator.vector is
    # immutable, so accumulator.add(...) with its result dropped is dead; java.util.Vector's add
    # appends to the list, an effect, and is never reported
    api = ("import org.openjdk.jmh.annotations.*;\nimport jdk.incubator.vector.IntVector;\n"
           "import jdk.incubator.vector.Vector;\n@State(Scope.Thread)\npublic class Api {\nint[] data = new int[64];\n"
           "@Benchmark public int m() { Vector<Integer> acc = IntVector.zero(null);\n"
           "  for (int i = 0; i < 64; i += 8) { acc.add(IntVector.fromArray(null, data, i)); }\n"
           "  return acc.hashCode(); } }\n")
    legacy = ("import org.openjdk.jmh.annotations.*;\nimport java.util.Vector;\n@State(Scope.Thread)\n"
              "public class Legacy {\nVector<Integer> list = new Vector<>();\n"
              "@Benchmark public int m() { list.add(1); return list.size(); } }\n")
    (tmp_path / "api").mkdir()
    (tmp_path / "legacy").mkdir()
    assert _by_rule(tmp_path / "api", "Api.java", api, "RETU") == [("Api.m", "error")]
    assert _by_rule(tmp_path / "legacy", "Legacy.java", legacy, "RETU") == []
