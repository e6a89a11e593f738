"""Calls that do not belong inside a measured benchmark method: TIMER, SLEEP, PRINT.

Sestoft, "Microbenchmarks in Java and C#": timers have limited resolution and a cost of
their own, and console output or logging inside the timed region can dominate the measured
time. JMH already times every invocation, so hand timing, sleeping and printing inside a
``@Benchmark`` method measure the wrong thing. Lambdas inside the benchmark count (they
usually run inside it, e.g. ``forEach``); fixtures and helper methods do not.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Issue, make_issue, short
from rigorbench.lint.context import Benchmark, FileContext
from rigorbench.lint.index import last_name_of

TIMER_TITLE = "the benchmark reads the clock itself inside a harness that already times it"
TIMER_REFERENCE = "Sestoft, Microbenchmarks in Java and C#, section on timer resolution; JMH Mode docs"
TIMER_EXPLANATION = """\
What goes wrong: System.nanoTime(), System.currentTimeMillis() or Instant.now() is called
inside a @Benchmark method, usually to time part of it by hand.

Why it matters: JMH already measures each invocation. A clock read costs tens of
nanoseconds, has a resolution from tens of nanoseconds (nanoTime) to milliseconds
(currentTimeMillis), and is not ordered with the surrounding code, so hand-made timings of
short code are mostly timer noise, and the calls themselves add to what JMH measures.

How to fix: let JMH do the timing. Split the code you want to time into its own
benchmark, use @Setup for work that must not be timed, and choose Mode.AverageTime or
Mode.SampleTime for per-call timings.

Before:
    @Benchmark public long measure() { long t = System.nanoTime(); work(); return System.nanoTime() - t; }

After:
    @Benchmark public int measure() { return work(); }
"""

SLEEP_TITLE = "the benchmark sleeps (or parks) inside the measured method"
SLEEP_REFERENCE = "Sestoft, Microbenchmarks in Java and C#; JMH Blackhole.consumeCPU javadoc"
SLEEP_EXPLANATION = """\
What goes wrong: Thread.sleep, TimeUnit.X.sleep or LockSupport.parkNanos is called inside
a @Benchmark method.

Why it matters: the measured time is then dominated by the scheduler's sleep granularity
(often 50 microseconds to several milliseconds, depending on the OS) rather than by the
code under test, and the thread's caches and CPU frequency change while it sleeps.

How to fix: move waiting out of the measured method. To simulate work of a given size use
Blackhole.consumeCPU(tokens); to space out calls use a fixture at Level.Iteration.

Before:
    @Benchmark public int measure() throws Exception { Thread.sleep(1); return work(); }

After:
    @Benchmark public int measure() { return work(); }
"""

PRINT_TITLE = "the benchmark prints or logs inside the measured method"
PRINT_REFERENCE = "Sestoft, Microbenchmarks in Java and C# (printing inside the timed loop)"
PRINT_EXPLANATION = """\
What goes wrong: System.out/System.err printing or a logger call runs inside a @Benchmark
method.

Why it matters: formatting text and writing to a stream or a log appender takes locks and
does I/O; it can easily be most of the measured time, and its cost depends on the
terminal, the log configuration and the disk rather than on the code under test.

How to fix: remove the output, or print results once in a @TearDown(Level.Trial) method.
Return the value you wanted to see, so JMH consumes it.

Before:
    @Benchmark public void measure() { System.out.println(work()); }

After:
    @Benchmark public int measure() { return work(); }
"""

_CLOCKS = {("System", "nanoTime"), ("System", "currentTimeMillis"), ("Instant", "now")}
_UNITS = frozenset({"NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS", "MINUTES",
                    "HOURS", "DAYS"})
_PRINTS = frozenset({"print", "println", "printf", "format", "write"})
_LOG_LEVELS = frozenset({"trace", "debug", "info", "warn", "warning", "error", "fatal",
                         "severe", "fine", "finer", "finest", "config", "log"})
_LOGGER_NAMES = frozenset({"log", "logger"})


def _calls(ctx: FileContext) -> Iterator[tuple[Benchmark, Node, str, str]]:
    """``(benchmark, call, receiver text without java.lang./java.time., method name)``."""
    for bench in ctx.benchmarks:
        for node in ctx.source.within("method_invocation", bench.body):
            obj = node.child_by_field_name("object")
            receiver = ctx.source.text(obj) if obj is not None else ""
            receiver = receiver.removeprefix("java.lang.").removeprefix("java.time.")
            yield bench, node, receiver, ctx.source.text(node.child_by_field_name("name"))


def check_timer(ctx: FileContext) -> Iterator[Issue]:
    for bench, node, receiver, name in _calls(ctx):
        if (receiver, name) in _CLOCKS and not is_subject(bench, node):
            yield make_issue(ctx.source, node, "TIMER", "warning",
                             f"{receiver}.{name}() inside {bench.name}: hand timing inside JMH "
                             f"measures timer cost and noise", benchmark=bench.name,
                             hint="let JMH time the method; split timed parts into benchmarks")


def is_subject(bench: Benchmark, node: Node) -> bool:
    """Is the call the whole benchmark (``return System.nanoTime();``, ``bh.consume(...)``,
    or the only statement)? Then its cost is what is measured, not a hand-timing error."""
    statements = [c for c in bench.body.named_children if "comment" not in c.type]
    if len(statements) != 1 or not statements[0].named_children:
        return False
    inner = statements[0].named_children[0]
    if inner.type == "method_invocation" and bench.call(inner).kind == "blackhole":
        args = inner.child_by_field_name("arguments").named_children
        inner = args[0] if len(args) == 1 else inner
    return inner == node


def check_sleep(ctx: FileContext) -> Iterator[Issue]:
    for bench, node, receiver, name in _calls(ctx):
        unit = receiver.rsplit(".", 1)[-1]
        parks = receiver.endswith("LockSupport") and name in ("parkNanos", "parkUntil")
        if (parks or (name == "sleep" and (receiver == "Thread" or unit in _UNITS))) \
                and not is_subject(bench, node):
            yield make_issue(ctx.source, node, "SLEEP", "warning",
                             f"{short(ctx.source.text(node), 40)} inside {bench.name}: the "
                             f"measurement is dominated by sleep granularity", benchmark=bench.name,
                             hint="use Blackhole.consumeCPU to simulate work, or sleep in a fixture")


def _is_logger(bench: Benchmark, receiver: Node | None) -> bool:
    if receiver is None or receiver.type not in ("identifier", "field_access"):
        return False
    text = bench.source.text(receiver).rsplit(".", 1)[-1]
    declared = last_name_of(bench.type_of(receiver) or "")
    return text.lower() in _LOGGER_NAMES or declared in ("Logger", "Log")


def check_print(ctx: FileContext) -> Iterator[Issue]:
    for bench, node, receiver, name in _calls(ctx):
        printing = receiver in ("System.out", "System.err") and name in _PRINTS
        logging = name in _LOG_LEVELS and _is_logger(bench, node.child_by_field_name("object"))
        if printing or logging:
            what = "prints" if printing else "logs"
            yield make_issue(ctx.source, node, "PRINT", "warning",
                             f"{receiver}.{name}(...) {what} inside {bench.name}; I/O can "
                             f"dominate the measured time", benchmark=bench.name,
                             hint="remove it, or report once in @TearDown(Level.Trial)")
