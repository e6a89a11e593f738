"""GO-BLOOP: on Go 1.24 or later, 'for b.Loop()' instead of a loop to b.N (with --fix).

Go 1.24 added testing.B.Loop (release notes, "testing"): the benchmark function runs once
per measurement, the timer is reset at the first call (setup before the loop is never
timed), and arguments and results of calls in the loop body are kept alive so the
compiler cannot delete them. The go.mod ``go`` line of the module (found by walking up
from the file) decides whether the module may use it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Edit, Issue, make_issue
from rigorbench.lint.fix import delete_statement
from rigorbench.lint.go.context import BenchBody, GoFileContext, MeasuredLoop
from rigorbench.lint.go.parse import is_selector, method_call, statement_call, walk_code, walk_no_closures

ID = "GO-BLOOP"
_TRAILING_COMMENT = re.compile(rb"^([ \t]+)//")
TITLE = "a loop to b.N in a Go 1.24+ module: 'for b.Loop()' is simpler and keeps results alive"
REFERENCE = ("Go 1.24 release notes, testing (B.Loop), https://go.dev/doc/go1.24#testing; "
             "Go testing package docs, B.Loop, https://pkg.go.dev/testing#B.Loop")
EXPLANATION = """\
What goes wrong: a module whose go.mod says 'go 1.24' or later still writes its benchmark
loop as 'for i := 0; i < b.N; i++' or 'for range b.N'.

Why it matters: 'for b.Loop()' (Go 1.24) fixes three pitfalls of b.N loops at once: the
compiler keeps the arguments and results of calls in the loop body alive (see GO-RESULT),
the timer is reset at the first b.Loop call (see GO-SETUP), and the benchmark function runs
once per measurement, so expensive setup runs once instead of once per b.N round.

What is flagged: every loop whose header reads b.N in a module on Go 1.24 or later (found
from the nearest go.mod above the file), as info: b.N loops are not wrong, only older.
Nothing is reported for modules before Go 1.24 or without a go.mod.

When --fix rewrites it: the header is 'for i := 0; i < b.N; i++' or 'for [i :=] range b.N',
the loop variable is not used in the body, the function mentions b.N nowhere else, has no
other measured loop and no StopTimer/StartTimer (b.Loop fails when the timer is stopped),
the loop is not inside another loop, and its body has no break, return or goto (b.Loop must
run until it returns false). A b.ResetTimer() directly before the loop is removed: b.Loop
resets the timer itself.

Before:
    b.ResetTimer()
    for i := 0; i < b.N; i++ {
        parse(input)
    }

After:
    for b.Loop() {
        parse(input)
    }
"""


def check(ctx: GoFileContext) -> Iterator[Issue]:
    if not ctx.at_least(1, 24):
        return
    major, minor = ctx.version
    for body in ctx.bodies:
        for loop in body.loops:
            if loop.kind != "n":
                continue
            reason = blocker(ctx, body, loop)
            edits = () if reason else rewrite(ctx, body, loop)
            hint = ("run --fix to rewrite it" if edits else f"rewrite by hand: {reason}")
            yield make_issue(
                ctx.source, _header(loop) or loop.node, ID, "info",
                f"go.mod says go {major}.{minor}: 'for {body.b}.Loop()' can replace this b.N loop "
                "(it keeps results alive and runs the setup once, untimed)",
                benchmark=body.name, hint=hint, edits=edits)


def _header(loop: MeasuredLoop) -> Node | None:
    return next((c for c in loop.node.named_children if c.type in ("for_clause", "range_clause")), None)


def loop_variable(loop: MeasuredLoop, b: str) -> tuple[bool, str | None]:
    """(whether the header has a form --fix knows, the loop variable's name or None)."""
    header = _header(loop)
    if header is None:
        return False, None
    if header.type == "range_clause":
        left = header.child_by_field_name("left")
        names = left.named_children if left is not None else []
        ok = is_selector(header.child_by_field_name("right"), b, "N") and len(names) <= 1
        return ok, names[0].text.decode() if names else None
    init, cond, update = (header.child_by_field_name(k) for k in ("initializer", "condition", "update"))
    if init is None or cond is None or update is None or init.type != "short_var_declaration":
        return False, None
    names = init.child_by_field_name("left").named_children
    values = init.child_by_field_name("right").named_children
    if len(names) != 1 or len(values) != 1 or values[0].text != b"0":
        return False, None
    name = names[0].text
    ok = (cond.type == "binary_expression" and cond.child_by_field_name("operator").type == "<"
          and cond.child_by_field_name("left").text == name
          and is_selector(cond.child_by_field_name("right"), b, "N")
          and update.type == "inc_statement" and update.named_children[0].text == name)
    return ok, name.decode()


def blocker(ctx: GoFileContext, body: BenchBody, loop: MeasuredLoop) -> str:
    """Why --fix must leave this loop alone ('' when it may rewrite it)."""
    known, variable = loop_variable(loop, body.b)
    if not known:
        return "the loop header is not 'for i := 0; i < b.N; i++' or 'for range b.N'"
    if variable and variable != "_" and any(n.type == "identifier" and n.text.decode() == variable
                                            for n in walk_code(loop.body)):
        return f"the body mentions the loop variable '{variable}'"
    header = _header(loop)
    outside = [n for n in body.walk() if is_selector(n, body.b, "N")
               and not (header.start_byte <= n.start_byte and n.end_byte <= header.end_byte)]
    if outside:
        return f"the function reads {body.b}.N elsewhere"
    if len(body.loops) > 1:
        return "the function has more than one measured loop"
    if any(method_call(n, body.b, {"StopTimer", "StartTimer"}) for n in body.walk()):
        return "the function stops and starts the timer"
    parent = loop.node.parent
    while parent is not None and parent != body.node:
        if parent.type in ("for_statement", "func_literal"):
            return "the loop is inside another loop or function literal"
        parent = parent.parent
    if any(n.type in ("break_statement", "return_statement", "goto_statement") for n in walk_no_closures(loop.body)):
        return "the loop body has break, return or goto"
    if aligned_comment(ctx, loop):
        return "its trailing comment is aligned with its neighbours' (gofmt would move them all)"
    return ""


def rewrite(ctx: GoFileContext, body: BenchBody, loop: MeasuredLoop) -> tuple[Edit, ...]:
    """The header becomes ``b.Loop()``; a b.ResetTimer() directly before the loop goes.

    A trailing comment after the loop's ``{`` that gofmt aligned with its neighbours keeps
    its column (the padding grows by what the header lost), so the result stays gofmt-clean."""
    header = _header(loop)
    new = f"{body.b}.Loop() "
    edits = [Edit(header.start_byte, loop.body.start_byte, new)]
    data = ctx.source.data
    brace = loop.body.start_byte + 1
    line_end = data.find(b"\n", brace)
    match = _TRAILING_COMMENT.match(data[brace:line_end if line_end >= 0 else len(data)])
    if match and len(match.group(1)) > 1:
        lost = (loop.body.start_byte - header.start_byte) - len(new.encode())
        edits.append(Edit(brace, brace + len(match.group(1)), " " * (len(match.group(1)) + lost)))
    before = loop.node.prev_named_sibling
    if before is not None and statement_call(before, body.b, {"ResetTimer"}):
        edits.append(_delete_line(ctx.source.data, before) or delete_statement(ctx.source, before))
    return tuple(edits)


def _delete_line(data: bytes, statement: Node) -> Edit | None:
    """Remove a statement alone on its line between two blank lines, and one of the blank
    lines with it (gofmt keeps at most one); None in every other case."""
    start = data.rfind(b"\n", 0, statement.start_byte) + 1
    end = data.find(b"\n", statement.end_byte)
    if start < 2 or end < 0 or data[start:statement.start_byte].strip() or data[statement.end_byte:end].strip():
        return None
    previous = data[data.rfind(b"\n", 0, start - 1) + 1:start - 1]
    following_end = data.find(b"\n", end + 1)
    following = data[end + 1:following_end if following_end >= 0 else len(data)]
    if previous.strip() or following.strip():
        return None
    return Edit(start - 1, end + 1, "")


def aligned_comment(ctx: GoFileContext, loop: MeasuredLoop) -> bool:
    """The loop's line ends in a comment at the same column as a neighbour line's comment,
    with one space before it: the loop line is the longest of an aligned run, and gofmt
    would move every comment of the run once the header gets shorter."""
    data = ctx.source.data
    start = data.rfind(b"\n", 0, loop.node.start_byte) + 1
    end = data.find(b"\n", loop.body.start_byte)
    line = data[start:end if end >= 0 else len(data)]
    column = line.find(b" //", loop.body.start_byte - start)
    if column < 0 or line[column - 1:column] == b" ":
        return False
    previous = data[data.rfind(b"\n", 0, max(start - 1, 0)) + 1:max(start - 1, 0)]
    following = data[end + 1:data.find(b"\n", end + 1)] if end >= 0 else b""
    return any(other[column:column + 3] == b" //" for other in (previous, following))
