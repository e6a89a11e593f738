"""RETU in a loop: ``x = f();`` overwrites ``x`` each iteration and only the last value is used.

Part of RETU (JMHSample_08_DeadCode): the values of every iteration but the last are dead,
so the JIT may drop the work that computes them. Reported as a warning when ``x`` is a
primitive computed by a call lint knows to be side-effect free (``Math``, boxing, a pure
project helper): the JIT can remove all of it. As ``info`` otherwise: for objects, where the
call usually allocates or escapes and stays, and for calls with effects or unknown ones (an
iterator's ``next()`` advances, a buffer's ``get()`` moves its position), where the call is
the measured work and stays; only the load of a value may go. The labelled corpus
(benchmarks/lint_corpus, by the rubric of shared/data/lint-real-dev) has 28 such warnings on
``x = it.next()`` in RoaringBitmap, none a real problem.
Info when the assignment sits in an ``if`` arm of the loop (it may run once: ``if (i == n - 1)
result = f(sum);``). Not reported when the loop reads ``x`` (``bit = next(bit + 1)`` is
iteration state), when the loop assigns ``x`` more than once, or when the value never leaves
the method (plain RETU reports that).
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Issue, make_issue, short
from rigorbench.lint.context import Benchmark
from rigorbench.lint.helpers import PRIMITIVES
from rigorbench.lint.parse import enclosing_loop, walk

ID = "RETU"


def check(bench: Benchmark, consumed: frozenset[str]) -> Iterator[Issue]:
    for stmt in bench.own("expression_statement"):
        found = _overwrite(bench, stmt)
        if found is None or found[0] not in consumed:
            continue
        name, call = found
        dead = bench.locals.get(name, "") in PRIMITIVES and bench.call(call).kind == "pure"
        guarded = _guarded(stmt, enclosing_loop(stmt, bench.body))
        yield make_issue(
            bench.source, stmt, ID, "warning" if dead and not guarded else "info",
            f"each iteration overwrites '{name}' with {short(bench.source.text(call), 40)} and "
            f"only the last value is used; the JIT may drop the work behind the other values"
            + (" (the assignment sits in an if arm, so how many values are dropped is not "
               "visible: it may run once)" if guarded else ""),
            benchmark=bench.name,
            hint=f"consume every value with Blackhole.consume, or combine it into '{name}'")


def _overwrite(bench: Benchmark, stmt: Node) -> tuple[str, Node] | None:
    """``(local, call)`` when ``stmt`` is ``local = ...call...;`` overwriting in a loop."""
    text = bench.source.text
    expr = stmt.named_children[0] if stmt.named_children else None
    if expr is None or expr.type != "assignment_expression" \
            or text(expr.child_by_field_name("operator")) != "=":
        return None
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    name = text(left) if left.type == "identifier" else ""
    calls = [n for n in walk(right) if n.type == "method_invocation"
             and bench.call(n).kind != "blackhole"]
    loop = enclosing_loop(stmt, bench.body)
    if name not in bench.locals or name in bench.params or not calls or loop is None:
        return None
    declared = _declared_in(bench, loop, name)
    mentions = [n for n in walk(loop) if n.type == "identifier" and text(n) == name]
    if declared or mentions != [left]:
        return None
    return name, calls[0]


def _guarded(stmt: Node, loop: Node | None) -> bool:
    """Does the assignment sit in an ``if`` arm inside the loop? Then it need not run every
    iteration: ``if (i == n - 1) result = Math.log(sum);`` runs once, from an accumulator every
    iteration feeds, and drops nothing (heldout42's kbreczko); how often an arm runs is not
    visible, so the finding is info."""
    current, child = stmt.parent, stmt
    while current is not None and current != loop:
        if current.type == "if_statement" and child != current.child_by_field_name("condition"):
            return True
        current, child = current.parent, current
    return False


def _declared_in(bench: Benchmark, loop: Node, name: str) -> bool:
    return any(n.type == "variable_declarator" and bench.source.text(n.child_by_field_name("name")) == name
               for n in walk(loop))
