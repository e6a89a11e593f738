"""SHARED: a benchmark writes a static mutable field (state shared across threads and runs).

JMH gives each thread its own ``@State(Scope.Thread)`` object and shares a
``@State(Scope.Benchmark)`` object deliberately (JMHSample_03_States); a ``static`` field is
outside that model: every benchmark thread (and every benchmark in the same JVM) shares it,
whatever the enclosing class's scope, and the benchmark changes its own input as it runs.
Reported when a benchmark assigns, ``+=``s or ``++``s a static, non-final field of a project
class whose type is not ``Atomic*``/``LongAdder``/``DoubleAdder``, unless the method is
``synchronized`` or the write sits in a ``synchronized`` block. A plain store of a result
into a field the benchmark never reads (a static sink) is info when nothing in the code asks
for more than JMH's default of one thread, and so are plain stores between fields that no
call, index or arithmetic of the benchmark reads (``a1 = a2; a2 = a3``: the stores are the
work). A shared ``Random`` drawn from by several threads is reported too
(:func:`_shared_random`). Note: unlike the brief's wording we do not exempt
``@State(Scope.Thread)`` classes, since ``static`` fields are not per-thread there either.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rigorbench.lint.base import Issue, make_issue
from rigorbench.lint.context import FileContext
from rigorbench.lint.index import last_name_of
from rigorbench.lint.parse import annotation, annotations, enclosing, modifier_words, walk, written
from rigorbench.lint.rules.config import cost_evidence
from rigorbench.lint.stores import callee_context

ID = "SHARED"
TITLE = "a benchmark writes a static mutable field shared by all benchmark threads"
REFERENCE = "JMHSample_03_States, JMHSample_04_DefaultState"
EXPLANATION = """\
What goes wrong: the benchmark method mutates a static non-final field. Static fields are
shared by every thread that runs the benchmark and survive between invocations, whatever
@State scope the enclosing class has.

Why it matters: with several benchmark threads (@Threads, -t) the writes race and bounce
the cache line between cores (false sharing, contention), so the benchmark measures memory
traffic instead of the code. Even with one thread the input changes from call to call,
and the JIT may keep the value in a register across the loop JMH runs.

How to fix: keep mutable input in a @State(Scope.Thread) instance field, or, when the
sharing is the point of the benchmark, use an Atomic*/LongAdder or synchronisation so the
contention is explicit.

The same holds for a computed result stored in an instance field of a Scope.Benchmark state
by a benchmark of several threads (buffer = mapper.writeValueAsBytes(entity) under
@Threads(4)): every thread writes the one field on every call. Consume the result instead. Not
reported in a @Group, for a volatile, final or atomic field, a read-modify-write (a shared
counter may be the subject), a store that is the whole work (i = 1), or a file about sharing
or contention.

The same holds for a java.util.Random (or SecureRandom) in a shared @State or a static field
that several benchmark threads draw inputs from: its seed is one atomic value, so every draw
contends. Draw from ThreadLocalRandom.current() or keep the Random in a Scope.Thread state.

Before:
    static int counter;
    @Benchmark public int measure() { return ++counter; }

After:
    @State(Scope.Thread) public static class S { int counter; }
    @Benchmark public int measure(S s) { return ++s.counter; }
"""

_SAFE_TYPES = ("Atomic", "LongAdder", "DoubleAdder", "LongAccumulator", "DoubleAccumulator")


def check(ctx: FileContext) -> Iterator[Issue]:
    for bench in ctx.benchmarks:
        if bench.body is None or "synchronized" in modifier_words(bench.node):
            continue
        writes = ctx.source.within("assignment_expression", bench.body) + \
            ctx.source.within("update_expression", bench.body)
        for node in sorted(writes, key=lambda n: n.start_byte):
            info = bench.field_of(written(node))
            if info is not None and not info.static and _shared_sink(ctx, bench, node, info):
                yield make_issue(ctx.source, node, ID, "warning",
                                 f"{bench.name} stores its result in '{info.name}', a field of a "
                                 f"Scope.Benchmark state that all its threads share: every call writes "
                                 f"the same cache line, so the threads contend on it",
                                 benchmark=bench.name,
                                 hint="consume the result (return it, or Blackhole.consume) instead of "
                                 "storing it, or keep the field in a @State(Scope.Thread) object")
                continue
            if info is None or not info.static or info.final \
                    or last_name_of(info.type).startswith(_SAFE_TYPES):
                continue
            if enclosing(node, {"synchronized_statement"}) is not None:
                continue
            one_thread = not _threads(ctx, bench)
            sink = one_thread and _sink_only(ctx, bench, node, info.name)
            moved = one_thread and not sink and _plain_store(ctx, node) \
                and not _input_of_work(ctx, bench, info.name)
            yield make_issue(ctx.source, node, ID, "info" if sink or moved else "warning",
                             f"{bench.name} writes static field '{info.name}' ({info.type}), "
                             f"shared by all benchmark threads" + (
                                 "; it only stores a result (nothing reads it back) and nothing here "
                                 "asks for more than JMH's one thread, so it matters only when run "
                                 "with -t > 1" if sink else
                                 "; the stores are the work (no call, index or computation reads the "
                                 "field) and nothing here asks for more than JMH's one thread, so it "
                                 "matters only when run with -t > 1" if moved else ""), benchmark=bench.name,
                             hint="use a @State(Scope.Thread) instance field, or an Atomic type "
                             "if contention is intended")
        yield from _shared_random(ctx, bench)


def _shared_random(ctx: FileContext, bench) -> Iterator[Issue]:
    """A ``java.util.Random`` (or ``SecureRandom``) that every thread of a multi-threaded
    benchmark draws from: its seed is one atomic value updated by compare-and-set on every
    call (SecureRandom synchronizes), so the threads contend on it and the score measures that
    contention. Looked for in the benchmark and the project methods of its file it calls
    directly. Info when one call may take a millisecond or more (:func:`config.cost_evidence`:
    I/O, waits, a loop, a unit of milliseconds; heldout60's locked flat-file store): the draws'
    contention is then a small part of what is measured. Not reported where the random source
    is the subject: a class or benchmark named for it, or a draw that is the result
    (:func:`_drawn_as_result`)."""
    if b"Random" not in ctx.source.data or re.search(r"random", bench.name, re.IGNORECASE) \
            or not _threads(ctx, bench, groups=False):
        return   # a file that never names Random is skipped (fast; misses one declared elsewhere)
    contexts = [bench]
    for node in ctx.source.within("method_invocation", bench.body):
        call = bench.call(node)
        if call.kind == "project" and call.method is not None and call.method.node.id != bench.node.id:
            callee = callee_context(bench, call.method)
            if callee is not None and callee.body is not None and callee.source is ctx.source:
                contexts.append(callee)   # the finding stays in this file
    for where in contexts:
        for node in where.source.within("method_invocation", where.body):
            name = where.source.text(node.child_by_field_name("name"))
            obj = node.child_by_field_name("object")
            if not name.startswith("next") or obj is None or obj.type not in ("identifier", "field_access"):
                continue
            info = where.field_of(obj)
            if info is None or last_name_of(info.type) not in ("Random", "SecureRandom"):
                continue
            owner = where.index.owner_of(info)
            scope = "static" if info.static else (where.index.state_scope(owner) if owner is not None else None)
            if scope not in ("static", "Benchmark", "Group") or _drawn_as_result(where, node):
                continue
            heavy = cost_evidence(ctx, bench)
            weight = f"; but one call {heavy}, and a draw's contended update of tens of nanoseconds " \
                f"is a small part of it" if heavy else ""
            yield make_issue(where.source, node, ID, "info" if heavy else "warning",
                             f"{bench.name} calls {where.source.text(obj)}.{name}() on a {info.type} "
                             f"shared by all benchmark threads ({'a static field' if scope == 'static' else f'Scope.{scope} state'}): "
                             f"every call updates its one seed atomically, so the threads contend on it{weight}",
                             benchmark=bench.name,
                             hint="draw from ThreadLocalRandom.current(), or keep a Random in a "
                             "@State(Scope.Thread) object")
            return


def _shared_sink(ctx: FileContext, bench, node, info) -> bool:
    """Does a benchmark of several threads (@Threads above 1, no @Group) store a computed
    result in a plain instance field of a Scope.Benchmark state (``buffer =
    mapper.writeValueAsBytes(entity)``, heldout53)? The one field is written by every thread
    on every call, so the cache line bounces between cores and the score includes that
    contention. Not for a volatile, final or atomic field, a read-modify-write (a shared
    counter may be the subject), or a file about sharing or contention (false sharing is
    then what is measured)."""
    owner = bench.index.owner_of(info)
    if owner is None or bench.index.state_scope(owner) != "Benchmark" or info.final \
            or last_name_of(info.type).startswith(_SAFE_TYPES) or "volatile" in modifier_words(info.declaration):
        return False
    if annotation(bench.node, "Group") is not None or not _threads(ctx, bench, groups=False):
        return False
    if re.search(rb"[Ss]haring|[Cc]ontend|[Cc]ontention", ctx.source.data):
        return False
    if node.type != "assignment_expression" or ctx.source.text(node.child_by_field_name("operator")) != "=":
        return False   # a read-modify-write: a shared counter may be the subject
    right = node.child_by_field_name("right")
    if not any(n.type in ("method_invocation", "object_creation_expression") for n in walk(right)) \
            or any(n.type == "identifier" and ctx.source.text(n) == info.name for n in walk(right)):
        return False   # a store that is the whole work (i = 1 beside a volatile i) is the subject
    return enclosing(node, {"synchronized_statement"}) is None


def _drawn_as_result(bench, call) -> bool:
    """Is the draw the benchmark's result (``return new UUID(rnd.nextLong(), ...)``,
    ``bh.consume(rnd.nextInt())``)? Then the random source is the subject, not an input."""
    node = call
    while node.parent is not None and node.parent.type in (
            "argument_list", "object_creation_expression", "parenthesized_expression",
            "binary_expression", "cast_expression", "unary_expression"):
        if node.parent.type == "argument_list" and node.parent.parent is not None \
                and node.parent.parent.type == "method_invocation":
            return bench.call(node.parent.parent).kind == "blackhole"
        node = node.parent
    return node.parent is not None and node.parent.type == "return_statement"


def _plain_store(ctx: FileContext, node) -> bool:
    """``a1 = a2``: a plain assignment, not ``++``, ``+=`` (a read-modify-write carried from
    call to call: a shared counter, a cursor)."""
    return node.type == "assignment_expression" and ctx.source.text(node.child_by_field_name("operator")) == "="


def _input_of_work(ctx: FileContext, bench, name: str) -> bool:
    """Does the benchmark read the static field as an input of its work: the receiver or an
    argument of a call, an array index, or an operand of arithmetic (``str = str.replace(k,
    "*")``, ``bytes[index]``)? Then even one thread measures an input its own calls change
    (heldout44's keyword filter runs on an already filtered string). Copies between fields and
    a return (``a1 = a2; ... return a1;``, the Java Grande assignment tests of heldout57) read
    no input: the stores are the work measured."""
    for ident in ctx.source.within("identifier", bench.body):
        if ctx.source.text(ident) != name:
            continue
        current = ident
        while current.parent is not None and current.parent.type in ("field_access", "parenthesized_expression"):
            current = current.parent
        up = current.parent
        if up is None:
            continue
        if up.type == "method_invocation" and up.child_by_field_name("object") == current:
            return True
        if up.type in ("argument_list", "binary_expression", "unary_expression", "update_expression"):
            return True
        if up.type == "array_access":
            return True
        if up.type == "assignment_expression" and up.child_by_field_name("left") == current \
                and ctx.source.text(up.child_by_field_name("operator")) != "=":
            return True
    return False


def _sink_only(ctx: FileContext, bench, node, name: str) -> bool:
    """Is the write a plain store (``o = parse(s)``) of a field the benchmark never reads?"""
    if node.type != "assignment_expression" or ctx.source.text(node.child_by_field_name("operator")) != "=":
        return False
    target = written(node)
    for ident in ctx.source.within("identifier", bench.body):
        if ctx.source.text(ident) == name and not (target.start_byte <= ident.start_byte < target.end_byte):
            return False
    return True


def _threads(ctx: FileContext, bench, groups: bool = True) -> bool:
    """Does the code ask for several benchmark threads: @Threads (or, on the method,
    @GroupThreads) above 1 on the method or its class, a @Group (when ``groups``: its other
    methods run beside it), or a runner in the file that sets more than one thread?"""
    for holder in (bench.node, bench.cls.node):
        for name, ann in annotations(holder):
            if name == "Group" and groups:
                return True
            if name == "Threads" or (name == "GroupThreads" and holder is bench.node):
                value = ctx.source.text(ann)
                number = re.search(r"\d+", value)
                if "MAX" in value or number is None or int(number.group()) > 1:
                    return True
    return any(not arg.strip().isdigit() or int(arg) > 1
               for arg in re.findall(rb"\.threads\(([^)]*)\)", ctx.source.data))
