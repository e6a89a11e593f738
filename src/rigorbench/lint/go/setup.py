"""GO-SETUP: expensive setup before the b.N loop is timed when b.ResetTimer() is missing.

The timer runs from the start of the benchmark function; b.ResetTimer() zeroes it (testing
docs, B.ResetTimer: "If a benchmark needs some expensive setup before running, the timer
may be reset"). Setup that runs once per call is divided by b.N, so it matters when it is
large next to -benchtime (1 s by default): a millisecond of setup is 0.1%, and every b.N
round of the calibration runs it again. b.Loop resets the timer itself.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Edit, Issue, make_issue, short
from rigorbench.lint.go.bloop import blocker
from rigorbench.lint.go.context import BenchBody, GoFileContext
from rigorbench.lint.go.parse import dotted, method_call, walk_no_closures

ID = "GO-SETUP"
TITLE = "expensive setup before the b.N loop is timed (no b.ResetTimer before the loop)"
REFERENCE = ("Go testing package docs, B.ResetTimer (https://pkg.go.dev/testing#B.ResetTimer) "
             "and the Benchmarks section; B.Loop")
EXPLANATION = """\
What goes wrong: before its b.N loop, the benchmark does work that takes a millisecond or
more, and does not call b.ResetTimer() after it (or pause the timer around it), so the
setup is part of the measured time.

Why it matters: the reported ns/op is (setup + b.N x op) / b.N. With a 1 s -benchtime,
100 ms of setup inflates ns/op by about 10%, more for slow operations (small b.N), and the
error differs between versions whose setup differs.

What is flagged (a precise, conservative definition): statements before the first b.N loop
(or b.RunParallel) of the same function, while the timer runs and with no b.ResetTimer()
between them and the loop, that
  * read files or talk to the system: os.ReadFile, os.Open, os.ReadDir, os.Create,
    os.WriteFile, io.ReadAll, ioutil.ReadFile, filepath.Walk/WalkDir/Glob, fs.ReadFile,
    exec.Command, net.Dial/Listen, http.Get/Post;
  * allocate 16 Mi elements or more with a constant size: make(T, n[, m]),
    strings.Repeat, bytes.Repeat (smaller allocations of fresh memory cost well under
    a millisecond);
  * loop 100 000 times or more, counted from constants (for i := 0; i < N; i++,
    for range N, range over make(T, N)), nested loops multiplied.
Calls to other functions are not flagged (their cost is unknown), nor is setup before
'for b.Loop()' (the first b.Loop call resets the timer), nor setup in a function that calls
b.Run (each sub-benchmark has its own timer).

How to fix: call b.ResetTimer() right before the loop ('rigorbench lint --fix' inserts it
when the loop is a statement of the function body), or use 'for b.Loop()' on Go 1.24+.

Before:
    data, _ := os.ReadFile("testdata/big.json")
    for i := 0; i < b.N; i++ {
        parse(data)
    }

After:
    data, _ := os.ReadFile("testdata/big.json")
    b.ResetTimer()
    for i := 0; i < b.N; i++ {
        parse(data)
    }
"""
IO_CALLS = {
    "os": {"ReadFile", "Open", "OpenFile", "ReadDir", "Create", "WriteFile", "CreateTemp", "MkdirTemp"},
    "io": {"ReadAll"}, "io/ioutil": {"ReadFile", "ReadAll", "ReadDir", "WriteFile", "TempFile", "TempDir"},
    "io/fs": {"ReadFile", "ReadDir", "WalkDir", "Glob"},
    "path/filepath": {"Walk", "WalkDir", "Glob"}, "os/exec": {"Command", "CommandContext"},
    "net": {"Dial", "DialTimeout", "Listen"}, "net/http": {"Get", "Post", "Head"},
}
REPEATS = {"strings": "Repeat", "bytes": "Repeat"}
BIG_ALLOCATION = 1 << 24
BIG_LOOP = 100_000


def check(ctx: GoFileContext) -> Iterator[Issue]:
    for body in ctx.bodies:
        anchor = _first_measured(body)
        if anchor is None or body.uses_b_loop():
            continue
        timed = _timed_setup(ctx, body, anchor)
        if not timed:
            continue
        node, what = timed[0]
        loop = next((loop for loop in body.loops if loop.node == anchor), None)
        edits: tuple[Edit, ...] = ()
        if loop is not None and ctx.at_least(1, 24) and not blocker(ctx, body, loop):
            hint = "use 'for b.Loop()' (see GO-BLOOP; --fix rewrites the loop), which resets the timer itself"
        else:
            hint = f"call {body.b}.ResetTimer() right before the loop"
            if anchor.parent is not None and anchor.parent.parent == body.body:
                indent = ctx.source.line_indent(anchor)
                edits = (Edit(anchor.start_byte, anchor.start_byte, f"{body.b}.ResetTimer()\n{indent}"),)
        yield make_issue(ctx.source, node, ID, "warning",
                         f"{what} before the b.N loop is timed: no {body.b}.ResetTimer() between it and the loop",
                         benchmark=body.name, hint=hint, edits=edits)


def _first_measured(body: BenchBody) -> Node | None:
    """The first b.N loop, or the statement calling b.RunParallel, of a body without b.Run."""
    if not body.b or any(method_call(n, body.b, {"Run"}) for n in body.walk()):
        return None
    found = [loop.node for loop in body.loops if loop.kind == "n"]
    for node in body.walk():
        if method_call(node, body.b, {"RunParallel"}) and node.parent is not None:
            found.append(node.parent)
    return min(found, key=lambda n: n.start_byte, default=None)


def _timed_setup(ctx: GoFileContext, body: BenchBody, anchor: Node) -> list[tuple[Node, str]]:
    """Expensive steps before ``anchor`` that the timer still counts when the loop starts."""
    before = []
    node = anchor
    while node is not None and node != body.body:
        sibling = node.prev_named_sibling
        while sibling is not None:
            before.append(sibling)
            sibling = sibling.prev_named_sibling
        node = node.parent
    running, timed = True, []
    for statement in sorted(before, key=lambda n: n.start_byte):
        for inner in walk_no_closures(statement):
            call = method_call(inner, body.b, {"ResetTimer", "StopTimer", "StartTimer"})
            if call == "ResetTimer":
                timed = []
            elif call is not None:
                running = call == "StartTimer"
            elif running and (what := _expensive(ctx, inner)):
                timed.append((inner, what))
    return timed


def _expensive(ctx: GoFileContext, node: Node) -> str:
    """Why ``node`` takes a millisecond or more ('' when it is not known to)."""
    if node.type == "call_expression":
        name = dotted(node.child_by_field_name("function"))
        head, _, rest = name.partition(".")
        path = ctx.imports.get(head, "")
        if rest in IO_CALLS.get(path, ()):
            return f"{name}(...)"
        size = None
        args = node.child_by_field_name("arguments").named_children
        if name == "make" and len(args) >= 2:
            sizes = [ctx.package.constant(a) for a in args[1:]]
            size = max((s for s in sizes if s is not None), default=None)
        elif REPEATS.get(path) == rest and len(args) == 2:
            size = ctx.package.constant(args[1])
        if size is not None and size >= BIG_ALLOCATION:
            return f"{short(ctx.source.text(node), 40)} ({size} elements)"
    if node.type == "for_statement" and not _inside_loop(node):
        count = _iterations(ctx, node)
        if count is not None and count >= BIG_LOOP:
            return f"a loop of {count} iterations"
    return ""


def _inside_loop(node: Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type not in ("function_declaration", "func_literal"):
        if parent.type == "for_statement":
            return True
        parent = parent.parent
    return False


def _iterations(ctx: GoFileContext, loop: Node) -> int | None:
    """Constant trip count of a loop times that of its largest nested loop, or None."""
    own = _trip_count(ctx, loop)
    if own is None:
        return None
    body = loop.child_by_field_name("body")
    inner = [n for n in walk_no_closures(body) if n.type == "for_statement" and n.parent is not None]
    nested = [c for c in (_trip_count(ctx, n) for n in inner) if c is not None]
    return own * max(nested, default=1)


def _trip_count(ctx: GoFileContext, loop: Node) -> int | None:
    clause = next((c for c in loop.named_children if c.type in ("for_clause", "range_clause")), None)
    if clause is None:
        return None
    if clause.type == "range_clause":
        right = clause.child_by_field_name("right")
        made = right is not None and right.type == "call_expression"
        if made and dotted(right.child_by_field_name("function")) == "make":
            args = right.child_by_field_name("arguments").named_children
            return ctx.package.constant(args[1]) if len(args) >= 2 else None
        return ctx.package.constant(right)
    condition = clause.child_by_field_name("condition")
    if condition is None or condition.type != "binary_expression":
        return None
    operator = condition.child_by_field_name("operator").type
    if operator in ("<", "<="):
        return ctx.package.constant(condition.child_by_field_name("right"))
    if operator in (">", ">="):
        return ctx.package.constant(condition.child_by_field_name("left"))
    return None
