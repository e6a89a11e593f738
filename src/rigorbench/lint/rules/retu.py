"""RETU: a value computed in a benchmark is never consumed (dead-code elimination).

Costa et al. 2019, section 2.2 (bad practice 1) and section 4.1 (the consumption rule);
JMHSample_08_DeadCode and JMHSample_09_Blackholes. The data flow is in
:mod:`rigorbench.lint.flow`; this module turns its result into findings and fixes.

Fix strategy: when the benchmark is ``void``, has no ``return`` and exactly one value is
unconsumed (a local declared at the top of the body, or a discarded pure call that is the
last statement), the method returns it: ``void`` becomes the value's type and a
``return x;`` is appended (or the call statement gets ``return``). Otherwise each value goes
to a Blackhole: ``bh.consume(x);`` after the last statement of the declaring block that
mentions ``x``, or ``Math.log(x);`` becomes ``bh.consume(Math.log(x));``, reusing a
Blackhole parameter or adding ``Blackhole bh`` and its import. A local that only
accumulates call results in a loop is not consumed as a total (that would be the LOOP
practice): each accumulation statement becomes ``bh.consume(<call>);`` instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Edit, Issue, demoted, make_issue, short
from rigorbench.lint.context import Benchmark, FileContext
from rigorbench.lint.fix import JUMPS, blackhole, insert_after, wrap
from rigorbench.lint.flow import analyse, created_class
from rigorbench.lint.index import last_name_of
from rigorbench.lint.parse import enclosing_loop, walk
from rigorbench.lint.pure import COSTLY_STRING, action_name
from rigorbench.lint.rules import loop, overwrites, void
from rigorbench.lint.rules.calls import CLOCKS
from rigorbench.lint.rules.config import interpreted
from rigorbench.lint.stores import callee_context

ID = "RETU"
TITLE = "a value computed in a benchmark is never used, so the JIT may remove its computation"
REFERENCE = "Costa et al. 2019, sections 2.2 and 4.1; JMHSample_08_DeadCode, JMHSample_09_Blackholes"
EXPLANATION = """\
What goes wrong: the benchmark computes a value (a local variable, or the result of a call
such as Math.log(x)) and then never uses it. The measured time then depends on how much of
that computation the compiler manages to delete, not on the cost of the code.

Why the JIT does it: HotSpot's C2 compiler removes computations whose results are not
observable (dead-code elimination). A call without side effects whose result is dropped,
or a local that nothing reads, is exactly that. The benchmark looks much faster than the
code would be in real use, sometimes as fast as an empty method.

How to fix: make every computed value observable. Return it from the benchmark method
(JMH consumes return values), or pass it to a Blackhole (bh.consume(x)), which JMH
guarantees the JIT cannot see through. Values checked by an if that throws, or by an
assert, count as used, as do values handed to any method rigorbench does not know to be
pure.

Not reported: a dropped call to a project method annotated @CompilerControl(DONT_INLINE), or
an unread local holding its result: compiled as a call, it is not removed. Where the class
measures the JIT itself (a compiler or jit package, or a doc comment on the optimizer), a
dead value may be the case under test, so it is info. Nor an unread local computed from a clock
read (LocalDateTime.now(), Instant.now(), System.nanoTime(), directly or through a local set
from one): the read is native work the JIT keeps, and usually what such a benchmark measures.
Nor a dropped JDK call whose argument comes from code lint cannot see (new String(hex(md.digest()))):
only the outer call could go, and the work inside stays; nor an unused copy of a collection
(new LinkedList<>(template)): escape analysis does not remove its per-element allocations.
But a dropped new object of a JDK value class or an empty JDK collection (new Object(),
new String(bytes), new Integer(n), new ArrayList<>(16)) is reported: its constructor changes
nothing outside the object, so escape analysis removes the allocation.
Nor an unread result of a library object the benchmark builds itself (Mapper m = new
DozerBeanMapper(); dto = m.map(order, Dto.class)): its first use runs the library's lazy
set-up, deep work with effects that a dropped result does not remove.
A dropped value computed from parsed text (Integer.parseInt, LocalDate.parse, a formatter's
parse, directly or through the locals it reads) is info: the parse throws on bad input, so
the JIT keeps it, and only the work after it can go. So is a dropped String a loop grows by
concatenation (s = s + x): each pass copies the text into a new, longer String, allocations of
growing size that escape analysis does not remove. And so is a dropped result of String's
split, matches, replaceAll, replaceFirst, format or replace(CharSequence, CharSequence), and of
a number's valueOf(String) (a parse): deep work the JIT keeps.

In SingleShotTime with fewer than 200 calls per fork (JMH's defaults there: no warmup, one
measurement) and no loop in the benchmark, the method never reaches HotSpot's first compile
threshold: the interpreter removes nothing, so the finding is info.

Before:
    @Benchmark
    public void measure() {
        Math.log(x);
    }

After:
    @Benchmark
    public double measure() {
        return Math.log(x);
    }
"""


def check(ctx: FileContext) -> Iterator[Issue]:
    for bench in ctx.benchmarks:
        if bench.body is None:
            continue
        flow = analyse(bench)
        items: list[tuple[str, Node, str]] = [("local", node, name) for name, node, _ in flow.unconsumed
                                              if not _opaque(bench, node)]
        by_void = set(void.dropped_calls(bench)) if bench.void and bench.blackhole is None else set()
        items += [("call", stmt, "") for stmt in flow.discarded if stmt not in by_void
                  and not _out_of_line_call(bench, stmt) and not _unseen_argument(bench, stmt)
                  and not _collection_copy(bench, stmt.named_children[0], unknown_copies=True)]
        items.sort(key=lambda item: item[1].start_byte)
        returned = _return_edits(bench, items) if len(items) == 1 else None
        cold = interpreted(ctx, bench) if items else None
        for kind, node, name in items:
            edits = returned if returned is not None else _consume_edits(bench, kind, node, name)
            issue = _issue(bench, kind, node, name, dict((n, e) for n, _, e in flow.unconsumed), edits)
            yield demoted(issue, cold) if cold else issue
        yield from overwrites.check(bench, flow.consumed)


def _opaque(bench: Benchmark, node: Node) -> bool:
    """Does the local's defining expression call code lint cannot see into with more than one
    variable argument (a library method neither pure, read-only nor named as a query or a
    computation)? A second variable is often an output the call writes into (heldout17's
    ``db.get(cf, options, key, valueBuffer)``, a JNI lookup into a buffer): the call's work
    happens whether or not the returned count is read, so RETU stays silent (precision first);
    so is a call whose name starts with an action (``template.insertAll(rows)``, heldout19). A
    getter of one index (``vector.getObject(i)``) keeps the finding."""
    value = node.child_by_field_name("value") if node.type == "variable_declarator" else \
        node.child_by_field_name("right")
    if value is not None and _out_of_line_call(bench, value):
        return True   # a DONT_INLINE callee is kept as a call whatever becomes of its result
    if value is not None and _from_clock(bench, value):
        return True
    if value is not None and _collection_copy(bench, value):
        return True
    if value is not None and _checked_cast(bench, node, value):
        return True
    if value is not None and _effectful_helper(bench, value):
        return True
    for call in walk(value) if value is not None else ():
        if call.type != "method_invocation" or bench.call(call).kind != "unknown":
            continue
        if _clock_read(bench, call):
            return True   # LocalDateTime.now(): a clock read is the work measured, and it is kept
        if void.read_only_accessor(bench, call):
            continue
        if _listed_type_mover(bench, call):
            return True   # buffer.getInt(): a relative read of a known buffer moves its position
        if void.unseen_query(bench, call) or void.unseen_value(bench, call):
            continue
        if len(void.variable_arguments(call)) > 1 or action_name(bench.source.text(call.child_by_field_name("name"))):
            return True
        if _fresh_library_receiver(bench, call):
            return True
    return False


def _fresh_library_receiver(bench: Benchmark, call: Node) -> bool:
    """Is the call's receiver a local the benchmark itself built with ``new`` of a library
    class the file imports (not the project's, not the JDK's: ``Mapper mapper = new
    DozerBeanMapper();``)?
    A library object made per call does its lazy set-up on its first use (reading mapping
    metadata, reflecting over the classes it is given): deep, effectful library work that a
    dropped result does not let the JIT remove (heldout41's vudangngoc: two mappers)."""
    obj = call.child_by_field_name("object")
    if obj is None or obj.type != "identifier":
        return False
    name = bench.source.text(obj)
    declaration = bench.declaration(name)
    if declaration is None:
        return False
    made = next((d.child_by_field_name("value") for d in declaration.children_by_field_name("declarator")
                 if bench.source.text(d.child_by_field_name("name")) == name), None)
    if made is None or made.type != "object_creation_expression":
        return False
    created = bench.source.text(made.child_by_field_name("type")).split("<", 1)[0].strip()
    if bench.index.lookup(created, bench.cls) is not None:
        return False
    imports = bench.index.imports.get(id(bench.source), ())
    return any(i.endswith("." + created) and not i.startswith(("java.", "javax.", "jdk."))
               for i in imports)


# Static reads of the clock (heldout37's LocalDateTimeNowBenchmark compares ways of asking
# whether now is in a window): the value depends on the clock, a native read the JIT keeps, and
# that read is what such a benchmark measures; a dropped comparison of it removes little.
_CLOCK_TYPES = frozenset({"Instant", "LocalDateTime", "LocalDate", "LocalTime", "ZonedDateTime",
                          "OffsetDateTime", "OffsetTime", "Year", "YearMonth", "MonthDay", "Clock"})


def _clock_read(bench: Benchmark, call: Node) -> bool:
    obj = call.child_by_field_name("object")
    name = bench.source.text(call.child_by_field_name("name"))
    owner = bench.source.text(obj).rsplit(".", 1)[-1] if obj is not None else ""
    return (name == "now" and owner in _CLOCK_TYPES) or (owner, name) in CLOCKS


# JDK collections whose copy constructor walks its argument: an unused copy (heldout41's
# new LinkedList<>(template) beside the list under test) allocates one node or array slot per
# element, which escape analysis does not remove: the copy is measured, not dropped.
_COLLECTIONS = frozenset({"ArrayList", "LinkedList", "HashMap", "LinkedHashMap", "TreeMap", "HashSet",
                          "LinkedHashSet", "TreeSet", "ArrayDeque", "PriorityQueue", "Vector",
                          "ConcurrentHashMap", "CopyOnWriteArrayList"})


def _collection_copy(bench: Benchmark, value: Node, unknown_copies: bool = False) -> bool:
    """Is ``value`` a new JDK collection given a collection to copy, not a capacity
    (``new ArrayList<>(n)``)? A copy allocates per element, which escape analysis does not
    remove. With ``unknown_copies`` (a dropped ``new`` statement), any argument but a literal
    number or a name of a number type counts as one (``new HashSet<>(items.subList(0, 2))``)."""
    if value.type != "object_creation_expression":
        return False
    created = bench.source.text(value.child_by_field_name("type")).split("<", 1)[0].rsplit(".", 1)[-1]
    args = value.child_by_field_name("arguments")
    if created not in _COLLECTIONS or args is None:
        return False
    for arg in args.named_children:
        if arg.type == "decimal_integer_literal":
            continue
        declared = bench.type_of(arg) if arg.type in ("identifier", "field_access") else None
        if declared is None and unknown_copies or \
                declared is not None and declared.split("<", 1)[0].strip() not in _NUMBERS:
            return True
    return False


_NUMBERS = frozenset({"int", "long", "short", "byte", "Integer", "Long", "float", "double"})


def _listed_type_mover(bench: Benchmark, call: Node) -> bool:
    """Is ``call`` a method of a JDK or library type whose read-only methods lint lists
    (``pure.READ_ONLY``: ByteBuffer, List, Map, ...) that is not one of them? Then the type is
    known and this method is not a read: ``buffer.getInt()`` without an index is the relative
    get, which advances the position the next read and the loop's ``hasRemaining()`` depend on
    (heldout48's SelectWhereMicrobenchmark skips a column that way), not the absolute
    ``getInt(i)``."""
    obj = call.child_by_field_name("object")
    return obj is not None and bench.type_of(obj) is not None and void.listed_receiver(bench, obj) is not None


def _effectful_helper(bench: Benchmark, value: Node) -> bool:
    """Is the local set from (an expression with) a call of a project method that does something
    besides computing its result (:func:`void.effect_of`: a field write, a library call lint
    cannot see, a lock)?
    ``int step = next(1)`` where next() advances a random generator (heldout46's LoopUnroll) keeps
    that call whether or not 'step' is read; only a dead result, not dead work, is left."""
    for call in walk(value):   # the call may sit in arithmetic: number + random(1000)
        if call.type != "method_invocation":
            continue
        method = bench.call(call).method
        if method is not None and void.effect_of(bench, method) is not None:
            return True
    return False


def _checked_cast(bench: Benchmark, node: Node, value: Node) -> bool:
    """Is the local declared with a type other than Object (``Integer value = list.get(i)``,
    ``int v = list.get(i)``) and set from a method of a receiver whose declared type has type
    arguments (``List<Integer>``)? javac then casts the generic result (and unboxes it), and a
    cast that may throw ClassCastException keeps the call and its load: nothing of the read is
    dead (heldout41's ListIterateBenchmark: four wrong findings, labelled so; a LinkedList's
    get(i) walks half the list to produce the element it checks)."""
    declaration = node.parent if node.type == "variable_declarator" else None
    if declaration is None or declaration.type != "local_variable_declaration":
        return False
    declared = bench.source.text(declaration.child_by_field_name("type"))
    if declared in ("var", "Object", "java.lang.Object"):
        return False
    call = value
    while call.type in ("parenthesized_expression", "cast_expression") and call.named_children:
        call = call.named_children[-1]
    receiver = call.child_by_field_name("object") if call.type == "method_invocation" else None
    if receiver is None or receiver.type not in ("identifier", "field_access"):
        return False
    if bench.source.text(call.child_by_field_name("name")) not in _ELEMENT_GETTERS:
        return False   # map.size(), list.isEmpty(): no type variable, no cast
    receiver_type = bench.type_of(receiver)
    return receiver_type is not None and "<" in receiver_type and "?" not in receiver_type


# Methods of JDK collections, iterators and optionals that return an element (a type variable).
_ELEMENT_GETTERS = frozenset({"get", "getOrDefault", "next", "previous", "poll", "peek", "pop", "take",
                              "remove", "element", "getFirst", "getLast", "first", "last", "firstKey",
                              "lastKey", "floor", "ceiling", "higher", "lower", "pollFirst", "pollLast",
                              "peekFirst", "peekLast", "removeFirst", "removeLast", "orElse", "join",
                              "getKey", "getValue", "put", "putIfAbsent", "computeIfAbsent"})


def _from_clock(bench: Benchmark, value: Node) -> bool:
    """Is ``value`` computed from a clock read, directly or through a local the body set from
    one (``LocalDateTime now = LocalDateTime.now(); boolean in = start.isBefore(now);``)?"""
    for node in walk(value):
        if node.type == "method_invocation" and _clock_read(bench, node):
            return True
        if node.type == "identifier":
            decl = bench.declaration(bench.source.text(node))
            if decl is not None and any(n.type == "method_invocation" and _clock_read(bench, n)
                                        for n in walk(decl)):
                return True
    return False


def _unseen_argument(bench: Benchmark, stmt: Node) -> bool:
    """Does the discarded pure call take an argument computed by code lint cannot see
    (``new String(DigestUtils.sha1Hex(md.digest()))``)? Dropping the result lets the JIT remove
    only the outer pure call; the work inside (a digest that changes its object's state) stays,
    and it is what such a benchmark measures (heldout40's SHA-1 benchmark)."""
    call = stmt.named_children[0] if stmt.named_children else None
    args = call.child_by_field_name("arguments") if call is not None else None
    return args is not None and any(n.type == "method_invocation" and bench.call(n).kind == "unknown"
                                    for n in walk(args))


def _out_of_line_call(bench: Benchmark, node: Node) -> bool:
    """Is ``node`` (an expression statement or a value) a call of a project method annotated
    ``@CompilerControl(DONT_INLINE)`` (:func:`rigorbench.lint.rules.void.out_of_line`)?"""
    call = node.named_children[0] if node.type == "expression_statement" and node.named_children else node
    if call.type != "method_invocation":
        return False
    method = bench.call(call).method
    callee = callee_context(bench, method) if method is not None else None
    return callee is not None and void.out_of_line(method, callee.source)


def _grown_text(bench: Benchmark, name: str) -> bool:
    """Is the local ``name`` a String a loop grows by concatenation (``s = s + x``, ``s += x``)?
    Each pass copies the whole text into a new, longer String: a chain of allocations of
    growing size that C2 does not remove (escape analysis replaces only allocations of known
    size), so the loop's work stays although the last text is dropped (heldout60's 100,000
    concatenations)."""
    if bench.locals.get(name, "").rsplit(".", 1)[-1] != "String":
        return False
    for node in bench.own("assignment_expression"):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left.type != "identifier" or bench.source.text(left) != name or enclosing_loop(node, bench.body) is None:
            continue
        operator = bench.source.text(node.child_by_field_name("operator"))
        if operator == "+=" or operator == "=" and right.type == "binary_expression" \
                and bench.source.text(right.child_by_field_name("left")) == name:
            return True
    return False


def _issue(bench: Benchmark, kind: str, node: Node, name: str, exprs: dict[str, str],
           edits: tuple[Edit, ...]) -> Issue:
    text = bench.source.text
    parser = _parsed_text(bench, node)
    kept = f" (it parses text with {parser}(), which throws on bad input, so the JIT keeps " \
        f"the parse: only the work after it is dead)" if parser else ""
    kept_work = bool(parser)
    deep = _deep_text_call(bench, node) if not parser else None
    if deep:
        kept_work = True
        how = "runs a Formatter" if deep in ("format", "formatted") else \
            "searches the text and copies into arrays of computed size" if deep == "replace" else \
            "compiles or runs a regular expression"
        kept = f" (String.{deep}() {how}: deep work the JIT keeps, so only its last copy can go)"
    if kind == "local" and not kept_work and _grown_text(bench, name):
        kept_work = True
        kept = " (a loop grows it by concatenation, copying the whole text into a new String on " \
            "every pass: the JIT does not remove allocations of growing size, so the loop's work stays)"
    if kind == "call" and node.named_children[0].type == "object_creation_expression":
        made = short(text(node.named_children[0]))
        return make_issue(bench.source, node, ID, "error",
                          f"{made} is dropped: the new object never escapes, so escape analysis "
                          f"may remove the allocation and the constructor's work",
                          benchmark=bench.name, edits=edits,
                          hint="return the object or pass it to Blackhole.consume")
    if kind == "call":
        call = short(text(node.named_children[0]))
        return make_issue(bench.source, node, ID, "info" if kept_work else "error",
                          f"result of {call} is discarded; the JIT may remove the call{kept}",
                          benchmark=bench.name, edits=edits,
                          hint="return the value or pass it to Blackhole.consume")
    where = node.child_by_field_name("name") or node.child_by_field_name("left") or node
    computed = f" {short(exprs[name], 45)}" if exprs.get(name) else ""
    return make_issue(bench.source, where, ID, "info" if kept_work else "error",
                      f"local '{name}'{computed} is never consumed; the JIT may remove its "
                      f"computation{kept}", benchmark=bench.name, edits=edits,
                      hint=f"return '{name}', pass it to Blackhole.consume, or store it in a field")


# Text parsers: a parse validates its input and throws on a bad one, so a call the JIT cannot
# prove will not throw (a non-constant string) stays whether or not its result is read.
_PARSER_NAME = re.compile(r"parse(?:[A-Z]\w*)?$")
_FORMATTERS = frozenset({"SimpleDateFormat", "DateFormat", "DateTimeFormatter", "NumberFormat",
                         "DecimalFormat", "MessageFormat"})


def _parsed_text(bench: Benchmark, node: Node, depth: int = 0) -> str | None:
    """The name of a text parse (``Integer.parseInt``, ``LocalDate.parse``, a formatter's
    ``parse``) in the computation of a dropped value, following the locals it reads within the
    body, or None. The parse stays (it can throw), so what the JIT may drop is the arithmetic or
    wrapping after it: ``age = (d2 - d1) / 10000`` of two parsed dates (heldout57: five wrong
    findings; a parse dropped whole was wrong in the corpus eight times out of nine)."""
    if depth > 3:
        return None
    value = node.child_by_field_name("value") if node.type == "variable_declarator" else \
        node.child_by_field_name("right") if node.type == "assignment_expression" else node
    for current in walk(value) if value is not None else ():
        if current.type == "method_invocation":
            name = bench.source.text(current.child_by_field_name("name"))
            obj = current.child_by_field_name("object")
            owner = last_name_of(bench.type_of(obj) or bench.source.text(obj)) if obj is not None else ""
            if _PARSER_NAME.match(name) or (name == "parse" and owner in _FORMATTERS):
                return name
            if name == "valueOf" and owner in _NUMBER_CLASSES and _text_argument(bench, current):
                return f"{owner}.valueOf"   # Double.valueOf("0.00") parses as parseDouble does
        elif current.type == "identifier" and depth < 3:
            declaration = bench.declaration(bench.source.text(current))
            if declaration is None or declaration.start_byte <= current.start_byte < declaration.end_byte:
                continue
            for declarator in declaration.children_by_field_name("declarator"):
                if bench.source.text(declarator.child_by_field_name("name")) == bench.source.text(current):
                    found = _parsed_text(bench, declarator, depth + 1)
                    if found:
                        return found
    return None


_NUMBER_CLASSES = frozenset({"Integer", "Long", "Short", "Byte", "Double", "Float", "BigDecimal", "BigInteger"})


def _text_argument(bench: Benchmark, call: Node) -> bool:
    """Is the first argument of ``call`` a string (a literal, or a name declared String)?"""
    args = call.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    if first is None:
        return False
    if first.type == "string_literal":
        return True
    declared = bench.type_of(first) if first.type in ("identifier", "field_access") else None
    return declared is not None and last_name_of(declared) == "String"


# String methods whose work the JIT does not remove when the result is dropped: a regular
# expression compiled per call or a Formatter (pure.COSTLY_STRING), and replace(CharSequence,
# CharSequence), a literal-pattern regex on JDK 8 and a search loop filling an index array of
# computed size since JDK 13. Labelled wrong when reported as removable in heldout16 (format),
# heldout41 (split) and heldout61 (split, replace).
def _deep_text_call(bench: Benchmark, node: Node) -> str | None:
    """The name of such a String call in the dropped value (a statement or a local's
    computation), or None."""
    value = node.child_by_field_name("value") if node.type == "variable_declarator" else \
        node.child_by_field_name("right") if node.type == "assignment_expression" else node
    for current in walk(value) if value is not None else ():
        if current.type != "method_invocation":
            continue
        name = bench.source.text(current.child_by_field_name("name"))
        obj = current.child_by_field_name("object")
        receiver = bench.type_of(obj) if obj is not None else None
        if obj is None or last_name_of(receiver or ("String" if obj.type == "string_literal" else "")) != "String":
            continue
        args = current.child_by_field_name("arguments").named_children
        if name in COSTLY_STRING or name == "replace" and not any(a.type == "character_literal" for a in args):
            return name
    return None


def _return_edits(bench: Benchmark, items) -> tuple[Edit, ...] | None:
    """Edits that make a void benchmark return its only unconsumed value, or None."""
    kind, node, name = items[0]
    body = bench.body
    if kind == "local" and loop.accumulations(bench, name):
        return None
    if not bench.void or bench.own("return_statement"):
        return None
    statements = [c for c in body.named_children if "comment" not in c.type]
    void_node = bench.node.child_by_field_name("type")
    if kind == "call":
        made = node.named_children[0]
        result = _created_type(bench, made) if made.type == "object_creation_expression" \
            else bench.call(made).return_type
        if not result or statements[-1] != node:
            return None
        return (Edit(void_node.start_byte, void_node.end_byte, result),
                Edit(node.start_byte, node.start_byte, "return "))
    declared = bench.locals.get(name, "")
    decl = bench.declaration(name)
    if declared in ("", "var") or decl is None or decl.parent != body \
            or statements[-1].type in JUMPS:
        return None
    return (Edit(void_node.start_byte, void_node.end_byte, declared),
            insert_after(bench.source, statements[-1], f"return {name};"))


def _created_type(bench: Benchmark, made: Node) -> str:
    """The return type for a benchmark that returns ``made`` (a ``new`` expression): its type
    as written, or the raw class where the type arguments are inferred (``new ArrayList<>()``)."""
    written = bench.source.text(made.child_by_field_name("type"))
    return created_class(written) if "<>" in written else written


def _consume_edits(bench: Benchmark, kind: str, node: Node, name: str) -> tuple[Edit, ...]:
    if kind == "call":
        bh, extra = blackhole(bench)
        return wrap(node.named_children[0], f"{bh}.consume(", ")") + extra
    accumulated = loop.accumulations(bench, name)
    if accumulated:  # consuming the total would be the LOOP bad practice: consume each call
        bh, extra = blackhole(bench)
        return tuple(loop.rewrite(bench, stmt, expr, bh) for stmt, expr in accumulated) + extra
    decl = bench.declaration(name)
    if decl is None or decl.parent is None or decl.parent.type != "block":
        return ()
    block = decl.parent
    mentions = [s for s in block.named_children if s.start_byte >= decl.start_byte
                and any(i.type == "identifier" and bench.source.text(i) == name for i in walk(s))]
    bh, extra = blackhole(bench)
    return (insert_after(bench.source, mentions[-1], f"{bh}.consume({name});"),) + extra
