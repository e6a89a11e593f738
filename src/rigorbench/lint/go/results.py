"""GO-RESULT: a result computed in the b.N loop that nothing uses.

The Go analogue of the JMH dead-code pitfall (JMHSample_08_DeadCode): the gc compiler
inlines small functions and then deletes computations whose results are unused, so the
loop times less than the author wrote. Go 1.24's ``for b.Loop()`` keeps the arguments and
results of calls in its body alive; a ``b.N`` loop does not (testing package docs, B.Loop).
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Issue, make_issue, short
from rigorbench.lint.go.context import BenchBody, GoFileContext
from rigorbench.lint.go.parse import walk_code, walk_no_closures
from rigorbench.lint.go.purity import BUILTINS, CONVERSIONS, Purity, declared_names

ID = "GO-RESULT"
TITLE = "a result computed in the b.N loop is never used, so the compiler may delete it"
REFERENCE = ("Go testing package docs, B.Loop (results kept alive in 'for b.Loop()' only), "
             "https://pkg.go.dev/testing#B.Loop; Go 1.24 release notes, testing, https://go.dev/doc/go1.24#testing")
EXPLANATION = """\
What goes wrong: inside a 'for i := 0; i < b.N; i++' (or 'for range b.N', or a
RunParallel 'for pb.Next()') loop, a value is computed and then dropped: assigned to '_',
called as a bare statement, or stored in a local that is never read except by other
dropped values.

Why it matters: the gc compiler inlines small functions and then removes code whose result
nobody uses. Once 'strings.HasPrefix(s, p)' or 'bits.OnesCount(x)' is inlined and its
result is dead, the loop measures nothing, and a faster or slower implementation reports
the same time. Inlining changes between Go releases (and with PGO), so a benchmark that is
right today can silently go wrong later.

What is flagged: only computations that are side-effect free for sure: literals,
arithmetic, conversions, the builtins len/cap/min/max/make/new/complex/real/imag, a table
of standard library functions without side effects (math, math/bits, strings, bytes,
strconv, unicode/utf8, slices.Index/Contains/Equal, crypto checksums, hex and base64
encoding to strings, binary.BigEndian.Uint32, fmt.Sprintf, ...), and functions of the
package itself whose bodies only compute on their own locals (unless marked
//go:noinline or recursive: gc never inlines those). Not flagged: method calls
(a method on a pointer may mutate), calls of function values, anything writing to package
state, fields, slices or maps, I/O, channel operations, index expressions (they may panic,
so they are kept), results stored in package-level variables or read after the loop, and
every loop of a benchmark that uses 'for b.Loop()'.

How to fix: on Go 1.24 or later write 'for b.Loop() { ... }' (see GO-BLOOP); its body's
call results are kept alive. Before Go 1.24, fold the results into a local and store it
in a package-level variable after the loop.

Before:
    for i := 0; i < b.N; i++ {
        _ = strings.ToUpper(s)
    }

After:
    for b.Loop() { // Go 1.24 or later
        strings.ToUpper(s)
    }

Or, before Go 1.24:
    var n int
    for i := 0; i < b.N; i++ {
        n += len(strings.ToUpper(s))
    }
    sink = n // a package-level var sink int
"""
COMPUTATIONS = frozenset({"call_expression", "binary_expression", "unary_expression",
                          "type_conversion_expression"})
ASSIGNMENTS = frozenset({"assignment_statement", "short_var_declaration", "var_spec"})
STOPS = frozenset({"block", "func_literal", "range_clause", "for_clause", "expression_switch_statement",
                   "type_switch_statement", "expression_case", "communication_case"})


def check(ctx: GoFileContext) -> Iterator[Issue]:
    for body in ctx.bodies:
        loops = [loop for loop in body.loops if loop.kind in ("n", "parallel")]
        if not loops or body.uses_b_loop():
            continue
        purity = ctx.purity(body)
        dead = dead_locals(body.node, purity, ctx.package.variables | {body.b})
        for loop in loops:
            for node in walk_no_closures(loop.body):
                yield from _dropped(ctx, body, loop.kind, node, purity, dead)


def _dropped(ctx, body: BenchBody, kind: str, node: Node, purity: Purity, dead: set[str]):
    if node.type == "expression_statement" and node.named_children:
        call = node.named_children[0]
        if call.type == "call_expression" and purity.removable(call):
            yield _issue(ctx, body, kind, call, f"result of {short(ctx.source.text(call))} is discarded")
        return
    if node.type not in ASSIGNMENTS:
        return
    for targets, value in _pairs(node):
        if not all(_is_dead(t, dead) for t in targets):
            continue
        if _computes(value) and purity.removable(value):
            names = [t.text.decode() for t in targets if t.text != b"_"]
            what = (f"'{names[0]}' = {short(ctx.source.text(value))} is never read" if names
                    else f"result of {short(ctx.source.text(value))} is discarded")
            yield _issue(ctx, body, kind, value, what)


def _issue(ctx: GoFileContext, body: BenchBody, kind: str, node: Node, what: str) -> Issue:
    loop = "the pb.Next loop" if kind == "parallel" else "the b.N loop"
    # Builtins and conversions are not calls the compiler has to inline before deleting them.
    calls = any(n.type == "call_expression" and _callee(n) not in BUILTINS | CONVERSIONS for n in walk_code(node))
    message = f"{what} in {loop}; the compiler may delete it{' once the call is inlined' if calls else ''}"
    if kind == "n" and ctx.at_least(1, 24):
        hint = "write 'for b.Loop()' (Go 1.24+ keeps results alive) or store the result in a package-level variable"
    else:
        hint = "fold the results into a local and assign it to a package-level variable after the loop"
    return make_issue(ctx.source, node, ID, "warning", message, benchmark=body.name, hint=hint)


def _pairs(node: Node) -> list[tuple[list[Node], Node]]:
    """``(targets, value)`` pairs of an assignment, declaration or var spec."""
    if node.type == "var_spec":
        targets = node.children_by_field_name("name")
        value = node.child_by_field_name("value")
    else:
        left, value = node.child_by_field_name("left"), node.child_by_field_name("right")
        targets = left.named_children if left is not None else []
    values = value.named_children if value is not None else []
    if len(values) == len(targets):
        return [([t], v) for t, v in zip(targets, values)]
    return [(list(targets), values[0])] if len(values) == 1 else []


def _is_dead(target: Node, dead: set[str]) -> bool:
    return target.type == "identifier" and (target.text == b"_" or target.text.decode() in dead)


def _computes(value: Node) -> bool:
    """``value`` calls something or computes on a name (``-1`` or ``"a" + "b"`` do not)."""
    return any(n.type == "call_expression" or (n.type in COMPUTATIONS and _has_name(n))
               for n in walk_code(value))


def _has_name(node: Node) -> bool:
    return any(n.type == "identifier" for n in walk_code(node))


def dead_locals(function: Node, purity: Purity, keep: set[str]) -> set[str]:
    """Locals whose every read feeds only '_' or other dead locals through removable code.

    Starts from all locals (minus ``keep``) and marks a local live when one of its reads is
    anywhere else: a condition, a call with effects, a return, a package-level variable,
    a field or element, a closure body, code after the loop. Repeats until nothing changes."""
    candidates = declared_names(function) - keep
    reads = [n for n in walk_code(function)
             if n.type == "identifier" and n.text.decode() in candidates and not _written(n)]
    live: set[str] = set()
    changed = True
    while changed:
        changed = False
        for ident in reads:
            name = ident.text.decode()
            if name not in live and not _feeds_dead(ident, purity, candidates - live):
                live.add(name)
                changed = True
    return candidates - live


def _written(ident: Node) -> bool:
    """``ident`` is a target (assigned, declared, incremented), not a read."""
    parent = ident.parent
    if parent is None:
        return False
    if parent.type in ("inc_statement", "dec_statement", "parameter_declaration"):
        return True
    if parent.type == "var_spec":
        return any(n.id == ident.id for n in parent.children_by_field_name("name"))
    if parent.type == "expression_list":
        holder = parent.parent
        if holder is not None and holder.type in ("assignment_statement", "short_var_declaration", "range_clause"):
            return holder.child_by_field_name("left") == parent
    return False


def _feeds_dead(ident: Node, purity: Purity, dead: set[str]) -> bool:
    """The read of ``ident`` only flows into dead targets through removable expressions."""
    child, node = ident, ident.parent
    while node is not None and node.type not in ASSIGNMENTS and node.type != "expression_statement":
        if node.type.endswith("_statement") or node.type in STOPS:
            return False  # a condition, a return, a closure, a loop header: the value is used
        child, node = node, node.parent
    if node is None:
        return False
    if node.type == "expression_statement":
        return child.type == "call_expression" and purity.removable(child)
    for targets, value in _pairs(node):
        if value.start_byte <= ident.start_byte and ident.end_byte <= value.end_byte:
            return all(_is_dead(t, dead) for t in targets) and purity.removable(value)
    return False


def _callee(call: Node) -> str:
    function = call.child_by_field_name("function")
    return function.text.decode() if function is not None and function.type == "identifier" else ""
