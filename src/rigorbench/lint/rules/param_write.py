"""PARAMW: a ``@Param`` field overwritten before the measurement, so its values are never measured.

JMHSample_27_Params: JMH runs the benchmark once per @Param value, setting the field by
reflection after the constructor and before the ``@Setup`` methods (:mod:`.params`). An
unconditional ``size = 1024;`` in a ``@Setup`` method or at the start of the benchmark
replaces every injected value, so all cases measure 1024 under different labels.

Reported for a plain ``=`` that runs on every path of a ``@Setup`` method (any level) or of a
benchmark: not inside an ``if``, loop, ``switch``, ``catch``, lambda or nested class, and
with no ``return`` before it. Not reported when the assignment is a normalisation (the new
value reads the field: ``size = Math.max(size, 1)``, or calls a project method that does, or
passes ``this``), when the field is read before the assignment in the same method (directly
or in a project method it calls), or when another setup that may run first reads it (a
setup at the same or an earlier level; for a write in the benchmark, any setup). A write in
a constructor or field initializer is not reported: JMH injects the value after it. There
is no mechanical fix: whether to drop the assignment, the @Param, or to derive the value
from the field is the author's decision.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Issue, make_issue, short
from rigorbench.lint.context import Benchmark, FileContext, is_benchmark, method_context
from rigorbench.lint.index import ClassInfo, FieldInfo
from rigorbench.lint.parse import walk
from rigorbench.lint.rules.params import (BEFORE_EVERY, bare_file, callees, descendants,
                                          mentions, owner_class, param_values, setup_level)

ID = "PARAMW"
TITLE = "a @Param field is overwritten in @Setup or the benchmark before it is measured"
REFERENCE = "JMHSample_27_Params; JMH @Param and @Setup javadoc"
EXPLANATION = """\
What goes wrong: JMH runs the benchmark once for every value of a @Param field, setting the
field before the @Setup methods run. A @Setup method (or the benchmark itself) that then
assigns the field a fixed value, unconditionally, replaces every injected value.

Why it matters: every case of the parameter measures the same thing, while the report
labels the results with different parameter values. A scaling curve comes out flat, a
comparison of modes compares a mode with itself, and nothing in the output shows it.

How to fix: remove the assignment (or the @Param, if the fixed value is what you want to
measure). To normalise an injected value, derive the new value from the field, e.g.
size = Math.max(size, 1); to give a default, use the field's initializer, which JMH's
value replaces. rigorbench does not fix this mechanically: which of these is meant is the
author's decision.

Before:
    @Param({"16", "1024", "65536"}) int size;
    @Setup public void setup() { size = 1024; data = new int[size]; }

After:
    @Param({"16", "1024", "65536"}) int size;
    @Setup public void setup() { data = new int[size]; }
"""

# Statements an assignment may sit in and still run on every path through the method.
_STRAIGHT = frozenset({"expression_statement", "block", "constructor_body", "try_statement",
                       "try_with_resources_statement", "finally_clause", "synchronized_statement",
                       "labeled_statement"})


def check(ctx: FileContext) -> Iterator[Issue]:
    for cls in ctx.file.classes:
        for methods in cls.methods.values():
            for method in methods:
                level = setup_level(method.node, ctx.source.text)
                if level is None and not is_benchmark(method.node):
                    continue
                bench = method_context(ctx.file, cls, method.node, ctx.index)
                if bench.body is None:
                    continue
                for node in bench.own("assignment_expression"):
                    issue = _overwrite(bench, node, level)
                    if issue is not None:
                        yield issue


def _overwrite(bench: Benchmark, node: Node, level: int | None) -> Issue | None:
    text = bench.source.text
    if text(node.child_by_field_name("operator")) != "=":
        return None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    info = bench.field_of(left)
    values = param_values(info) if info is not None else None
    if values is None or not _unconditional(bench, node) or _derived(bench, right, info.name) \
            or _read_before(bench, node, info.name):
        return None
    holder = _holder(bench, left)
    if holder is None or _set_up_elsewhere(bench, holder, info, level):
        return None
    cases = f"values {', '.join(values)}" if values else "values"
    where = (f"in {bench.source.text(bench.node.child_by_field_name('name'))}() before every "
             f"{BEFORE_EVERY[level]}") if level is not None else f"in benchmark {bench.name} on every call"
    return make_issue(bench.source, node, ID, "warning",
                      f"'{info.name}' is assigned {short(text(right), 40)} {where}, so the @Param "
                      f"{cases} JMH injects are never measured", benchmark=bench.name if level is None else "",
                      hint=f"remove the assignment or the @Param; to normalise, derive the value "
                      f"from '{info.name}' (e.g. Math.max({info.name}, 1))")


def _unconditional(bench: Benchmark, node: Node) -> bool:
    """Whether ``node`` runs on every path of the method: only plain blocks around it, and no
    ``return`` earlier in the method."""
    current = node.parent
    while current is not None and current != bench.body:
        if current.type not in _STRAIGHT:
            return False
        current = current.parent
    return not any(r.start_byte < node.start_byte for r in bench.own("return_statement"))


def _derived(bench: Benchmark, right: Node, name: str) -> bool:
    """The new value reads the field (a normalisation), or may: ``this`` or a project call
    whose body names the field."""
    if mentions(bench.source, right, name) or any(n.type == "this" for n in walk(right)):
        return True
    return _calls_reading(bench, right, name, right.end_byte)


def _read_before(bench: Benchmark, node: Node, name: str) -> bool:
    """The method names the field, or calls a project method that does, before ``node``."""
    source = bench.source
    if any(i.start_byte < node.start_byte and source.text(i) == name
           for i in source.within("identifier", bench.body)):
        return True
    return _calls_reading(bench, bench.body, name, node.start_byte)


def _calls_reading(bench: Benchmark, within: Node, name: str, before: int) -> bool:
    for call in bench.source.within("method_invocation", within):
        if call.start_byte >= before:
            continue
        args = call.child_by_field_name("arguments")
        if any(a.type == "this" for a in args.named_children):
            return True
        for method in callees(bench, call) or ():
            owner = owner_class(bench.index, method)
            if owner is not None and mentions(owner.source, method.node.child_by_field_name("body"), name):
                return True
    return False


def _holder(bench: Benchmark, left: Node) -> ClassInfo | None:
    """The class of the object whose field is written (``this`` or a @State parameter)."""
    if left.type == "identifier":
        return bench.cls
    obj = left.child_by_field_name("object")
    return bench.cls if obj.type == "this" else bench.class_of(obj)


def _set_up_elsewhere(bench: Benchmark, holder: ClassInfo, info: FieldInfo, level: int | None) -> bool:
    """Another @Setup of the written object that may run before this write reads the field:
    any setup for a write in the benchmark, one at the same or an earlier level otherwise."""
    index = bench.index
    for cls in [*index.lineage(holder), *descendants(index, holder)]:
        for methods in cls.methods.values():
            for method in methods:
                other = setup_level(method.node, cls.source.text)
                if other is None or method.node == bench.node or (level is not None and other > level):
                    continue
                body = method.node.child_by_field_name("body")
                if mentions(cls.source, body, info.name):
                    return True
                setup = method_context(bare_file(cls), cls, method.node, index)
                if body is not None and _calls_reading(setup, body, info.name, body.end_byte):
                    return True
    return False
