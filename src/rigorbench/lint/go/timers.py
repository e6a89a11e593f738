"""GO-TIMER, GO-BN and GO-NOLOOP: misuse of the benchmark's timer, of b.N, and of b itself.

The testing package calls a benchmark function with growing b.N and divides the time
measured while the timer runs by b.N (testing docs, "Benchmarks"; B.StopTimer,
B.StartTimer). StopTimer and StartTimer each read the clock and call
runtime.ReadMemStats, which stops the world; golang/go#20875 measured almost half of the
sort package's benchmark time in ReadMemStats, and golang/go#27217 shows a tiny benchmark
with StopTimer in its loop running for minutes instead of one second.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Issue, make_issue, short
from rigorbench.lint.go.context import GoFileContext
from rigorbench.lint.go.parse import dotted, is_selector, statement_call, statements, walk_code
from rigorbench.lint.go.purity import CONVERSIONS
from rigorbench.lint.go.setup import IO_CALLS

TIMER_TITLE = "b.StopTimer/b.StartTimer inside the benchmark loop around cheap work"
TIMER_REFERENCE = ("Go testing package docs, B.StopTimer and B.StartTimer (https://pkg.go.dev/testing#B.StopTimer); "
                   "golang/go#20875 (ReadMemStats cost in benchmarks); golang/go#27217 (tiny benchmarks "
                   "with StopTimer run forever, https://github.com/golang/go/issues/27217)")
TIMER_EXPLANATION = """\
What goes wrong: b.StopTimer() and b.StartTimer() are called in every iteration of the
measured loop to leave out work that is itself cheap (an assignment, a reset of a local,
or nothing at all).

Why it matters: each StopTimer/StartTimer pair reads the clock twice and calls
runtime.ReadMemStats twice, which stops the world; that costs far more than the work it
leaves out. The time the testing package measures still includes clock-read overhead
around short code, and the wall time per iteration is much longer than the measured time,
so the testing package, which sizes b.N from the measured time, can run the benchmark for
minutes instead of -benchtime (golang/go#27217).

What is flagged: a StopTimer statement directly in the body of a b.N or b.Loop loop whose
paused statements (up to the next StartTimer, wrapping around the loop) contain no loop and
no call other than len, cap, min, max, new, complex, real, imag or a conversion. Paused
work that calls functions or loops is not flagged: it may well be worth pausing for; nor
is a loop whose timed part calls runtime.GC, time.Sleep or file or network I/O (the timed
work then dwarfs the pair's cost).

How to fix: prepare the inputs of all iterations before the loop and call b.ResetTimer(),
or leave the cheap work timed.

Before:
    for i := 0; i < b.N; i++ {
        b.StopTimer()
        n = 0
        b.StartTimer()
        n += work()
    }

After:
    for i := 0; i < b.N; i++ {
        n = work()
    }
"""

BN_TITLE = "the benchmark writes b.N"
BN_REFERENCE = ("Go testing package docs, Benchmarks (b.N is set by the testing package), "
                "https://pkg.go.dev/testing#hdr-Benchmarks")
BN_EXPLANATION = """\
What goes wrong: the benchmark assigns, increments, decrements or takes the address of b.N.

Why it matters: the testing package chooses b.N, runs the function, and then divides the
measured time by b.N to report ns/op. A benchmark that counts b.N down to 0, or sets it,
makes the report divide by the wrong number (ns/op of 0 or of a different work size) and
breaks the choice of the next b.N.

How to fix: count with a local.

Before:
    for ; b.N > 0; b.N-- { work() }

After:
    for n := b.N; n > 0; n-- { work() }
"""

NOLOOP_TITLE = "the benchmark function never uses b.N, b.Loop, b.Run or b.RunParallel"
NOLOOP_REFERENCE = ("Go testing package docs, Benchmarks (the benchmark function must run the target code "
                    "b.N times), https://pkg.go.dev/testing#hdr-Benchmarks")
NOLOOP_EXPLANATION = """\
What goes wrong: a func BenchmarkXxx(b *testing.B) has no b.N loop, no 'for b.Loop()', no
sub-benchmarks (b.Run) or b.RunParallel, and does not pass b to a helper.

Why it matters: the testing package calls the function with b.N = 1, 100, 10000, ...
and divides the elapsed time by b.N. When the body runs the code once whatever b.N is,
the reported ns/op shrinks as b.N grows: the number says nothing about the code.

What is not flagged: a benchmark that passes b on (to a helper or as a value), that
calls b.Skip, b.SkipNow or b.Skipf, or that reports a metric of its own with b.ReportMetric
(a size or a count rather than a time: its ns/op is not what it measures).

How to fix: run the code under test in 'for b.Loop() { ... }' (Go 1.24+) or
'for i := 0; i < b.N; i++ { ... }'.

Before:
    func BenchmarkParse(b *testing.B) { parse(input) }

After:
    func BenchmarkParse(b *testing.B) {
        for b.Loop() {
            parse(input)
        }
    }
"""

CHEAP_CALLS = frozenset({"len", "cap", "min", "max", "new", "complex", "real", "imag"}) | CONVERSIONS
# b.ReportMetric: a benchmark that reports a metric of its own (a size, a count) and no loop
# measures that metric, not time; suites do this on purpose (RoaringBitmap/roaring's
# BenchmarkSizeRoaring reports the serialized size with the timer stopped).
USES_B = frozenset({"N", "Loop", "Run", "RunParallel", "Skip", "SkipNow", "Skipf", "ReportMetric"})
TIMER_CALLS = frozenset({"StopTimer", "StartTimer"})


def check_timer(ctx: GoFileContext) -> Iterator[Issue]:
    for body in ctx.bodies:
        for loop in body.loops:
            if loop.kind == "parallel" or not body.b:
                continue
            listed = statements(loop.body)
            calls = [statement_call(s, body.b, TIMER_CALLS) for s in listed]
            for index, call in enumerate(calls):
                paused = _paused(listed, calls, index) if call == "StopTimer" else None
                if paused is None or not all(_cheap(s) for s in paused):
                    continue
                paused_ids = {s.id for s in paused}
                timed = [s for s in listed if s.id not in paused_ids]
                if any(_slow(ctx, n) for s in timed for n in walk_code(s)):
                    continue  # the timed work dwarfs the pair's cost
                what = ("no work at all" if not paused
                        else f"only '{short('; '.join(ctx.source.text(s) for s in paused), 40)}'")
                yield make_issue(
                    ctx.source, listed[index], "GO-TIMER", "warning",
                    f"b.StopTimer/b.StartTimer in every loop iteration pause {what}; "
                    "each pair costs two clock reads and two stop-the-world ReadMemStats calls",
                    benchmark=body.name,
                    hint="prepare inputs before the loop and call b.ResetTimer(), or leave the cheap work timed")


def _paused(listed: list[Node], calls: list[str | None], stop: int) -> list[Node] | None:
    """The statements from ``stop`` to the next StartTimer, wrapping around the loop body."""
    paused = []
    for step in range(1, len(listed) + 1):
        index = (stop + step) % len(listed)
        if calls[index] == "StartTimer":
            return paused
        if calls[index] == "StopTimer":
            return None
        paused.append(listed[index])
    return None


def _slow(ctx: GoFileContext, node: Node) -> bool:
    """A call known to take a millisecond or more (runtime.GC, time.Sleep, file or network I/O)."""
    if node.type != "call_expression":
        return False
    head, _, rest = dotted(node.child_by_field_name("function")).partition(".")
    path = ctx.imports.get(head, "")
    return (path, rest) in (("runtime", "GC"), ("time", "Sleep")) or rest in IO_CALLS.get(path, ())


def _cheap(statement: Node) -> bool:
    for node in walk_code(statement):
        if node.type in ("for_statement", "go_statement", "defer_statement", "send_statement",
                         "select_statement", "func_literal"):
            return False
        if node.type == "unary_expression" and node.child_by_field_name("operator").type == "<-":
            return False
        if node.type == "call_expression":
            function = node.child_by_field_name("function")
            if not (function.type == "identifier" and function.text.decode() in CHEAP_CALLS):
                return False
    return True


def check_bn(ctx: GoFileContext) -> Iterator[Issue]:
    for body in ctx.bodies:
        if not body.b:
            continue
        for node in body.walk():
            target, verb = None, "writes"
            if node.type == "assignment_statement":
                target = next((t for t in node.child_by_field_name("left").named_children
                               if is_selector(t, body.b, "N")), None)
            elif node.type in ("inc_statement", "dec_statement") and is_selector(node.named_children[0], body.b, "N"):
                target = node.named_children[0]
            elif (node.type == "unary_expression" and node.child_by_field_name("operator").type == "&"
                  and is_selector(node.child_by_field_name("operand"), body.b, "N")):
                target, verb = node, "takes the address of"
            if target is not None:
                yield make_issue(
                    ctx.source, target, "GO-BN", "error",
                    f"'{short(ctx.source.text(node))}' {verb} {body.b}.N, which the testing package "
                    "sets and then divides the measured time by",
                    benchmark=body.name, hint=f"count with a local: for n := {body.b}.N; n > 0; n-- {{ ... }}")


def check_noloop(ctx: GoFileContext) -> Iterator[Issue]:
    for body in ctx.benchmarks:
        if body.b and any(_uses_b(n, body.b) for n in body.walk()):
            continue
        name = body.node.child_by_field_name("name")
        yield make_issue(
            ctx.source, name, "GO-NOLOOP", "error",
            f"{body.name} never runs its code b.N times: no b.N loop, no b.Loop, no b.Run or "
            "b.RunParallel, and b is not passed on; its ns/op shrinks as b.N grows",
            benchmark=body.name, hint="put the code under test in 'for b.Loop() { ... }' (Go 1.24+) "
            "or 'for i := 0; i < b.N; i++ { ... }'")


def _uses_b(node: Node, b: str) -> bool:
    if node.type != "identifier" or node.text.decode() != b:
        return False
    parent = node.parent
    if parent is not None and parent.type == "selector_expression" and parent.child_by_field_name("operand") == node:
        return parent.child_by_field_name("field").text.decode() in USES_B
    return parent is None or parent.type != "parameter_declaration"

