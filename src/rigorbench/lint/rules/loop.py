"""LOOP: a loop accumulates call results into a local instead of consuming each one.

Costa et al. 2019, section 2.2 (bad practice 2); JMHSample_11_Loops and
JMHSample_34_SafeLooping. A candidate is an accumulation (``acc += f(x)``, ``acc = acc + f(x)``)
into a local declared before the loop and consumed after it, where the call does not itself
read the accumulator (so ``h = hash(h, x)`` chains are left alone) and the loop has no
Blackhole call yet. It is a warning only when the harm is likely: every accumulated call is
cheap and side-effect free (the pure JDK table, or a helper :mod:`rigorbench.lint.helpers`
can read) and not only size reads (``name.length()``) nor only JDK functions of each element
(``Long.bitCount(words[i])``, ``Math.sin(xs[i])``: a popcount of an array is a reduction over
the data, the measured work), or there is no call and a counted loop
repeats nothing but loop-invariant arithmetic (JMHSample_11). A counted loop whose body is
nothing but ``System.arraycopy``/``Arrays.fill`` calls with operands it never changes (each trip
stores what the last one stored) is a warning too: it has no accumulator, and no fix is offered.
Other candidates (a traversal of the subject, calls whose cost cannot be seen, heavy
allocating calls) are ``info``. Overwrites (``x = f(x_i)``) are not accumulations: RETU
reports them (:mod:`rigorbench.lint.rules.overwrites`). Loops summing plain array elements
are the measured work itself (section 5.3) and are not reported, nor are loops summing one
element read per index of another sequence (``text.charAt(i)``, ``list.get(i)``).

Fix: the accumulation statement becomes ``bh.consume(<expression>);`` where the expression
is the right-hand side of ``+=``-style operators, or the non-accumulator operand of
``acc = acc + f(x)``. When the accumulator is declared at the top of the body with a
constant initializer and is otherwise only returned by the final ``return acc;``, the
method becomes ``void`` and the declaration and the return are deleted; otherwise they are
kept (the method still compiles and returns the initial value).
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Edit, Issue, make_issue, short
from rigorbench.lint.context import Benchmark, FileContext
from rigorbench.lint.fix import blackhole, delete_statement
from rigorbench.lint.flow import analyse, is_computed
from rigorbench.lint.helpers import PRIMITIVES
from rigorbench.lint.parse import LOOPS, enclosing_loop, walk, written
from rigorbench.lint.rules.void import out_of_line
from rigorbench.lint.stores import callee_context

ID = "LOOP"
TITLE = "a loop accumulates call results into a local; the JIT can unroll and merge the calls"
REFERENCE = "Costa et al. 2019, section 2.2; JMHSample_11_Loops, JMHSample_34_SafeLooping"
EXPLANATION = """\
What goes wrong: to keep the JIT from deleting work(x), the benchmark adds every result to
a local (acc += work(x)) and returns the sum. The calls do run, but not the way they would
in real use.

Why the JIT does it: once work() is inlined into the loop, C2 unrolls the loop and
schedules several iterations together. It can hoist and share computation between calls,
vectorise them, and merge their operations into the accumulation chain. The time per call
then reflects an optimised batch, not one call whose result the application uses.

How to fix: consume every result separately with a Blackhole, whose consume() the JIT
cannot merge across iterations. Loops that sum array elements without calling anything,
or one element read per index (text.charAt(i), list.get(i)), are the measured work itself
and are not reported; a loop whose calls rigorbench cannot see
into (a traversal of a collection, heavy allocating operations), one that only sums sizes
(total += 7 + name.length()), and an invariant term inside a loop that does other work are
only 'info'; so is a cheap term beside an inner loop (the body's work decides), and a JDK
function of each element with a primitive result folded into a reduction (count +=
Long.bitCount(a[i] & b[i]), sum += Math.sin(xs[i]), count += Math.min(1, Math.max(t.qty - q,
0)) for each row t: a popcount, an intersection count or a branch-free filter count of
arrays is the algorithm measured; a project function summed per element, as in JMHSample_34,
or a boxed result only unboxed into the sum, sum += Integer.valueOf(x), stays a warning). A counted
loop that only repeats System.arraycopy or Arrays.fill with operands it never changes
(for (i < N) System.arraycopy(src, 0, dst, 0, src.length), often under
@OperationsPerInvocation(N)) is reported too: every trip stores what the previous one stored,
so the JIT may turn the copies into loads and stores it hoists or merges, and a copy into a
new array that nothing reads is dead. Let JMH repeat the call instead. So is JMHSample_11's own
shape, a benchmark returning reps(10) where the helper's counted loop only adds loop-invariant
arithmetic (s += x + y): inlined, the JIT hoists the repetition (a trip count of 1 is not
reported). And a counted loop that only enters synchronized (lock) { count++; } on a lock it
never changes: C2 unrolls it and coarsens the adjacent lock regions into one (JVM Anatomy
Quark #1), so fewer acquisitions are timed than the loop claims; a class that passes
-XX:LoopUnrollLimit=1 or -XX:-EliminateLocks, or a Blackhole call inside the region, is not
reported, and a file that compares no other kind of lock (ReentrantLock, atomics) gets info:
what C2 makes of the monitor may be its subject. Where the
class measures the compiler itself (a package segment such as compiler or jit, or a doc
comment on the optimizer, as in OpenJDK's vm.compiler micro-benchmarks) the merge may be the
subject: LOOP, RETU, VOID and FINAL say info there.

Before:
    @Benchmark
    public int measure() {
        int acc = 0;
        for (int x : xs) { acc += work(x); }
        return acc;
    }

After:
    @Benchmark
    public void measure(Blackhole bh) {
        for (int x : xs) { bh.consume(work(x)); }
    }
"""

_OPERATORS = frozenset({"=", "+=", "-=", "*=", "^=", "|=", "&="})


def check(ctx: FileContext) -> Iterator[Issue]:
    for bench in ctx.benchmarks:
        if bench.body is None:
            continue
        yield from _repeated_stores(bench)
        yield from _helper_repeats(bench)
        yield from _coarsened_locks(bench)
        candidates = [c for c in (_candidate(bench, n) for n in bench.own("expression_statement")) if c]
        if not candidates:
            continue
        consumed = analyse(bench).consumed
        candidates = [c for c in candidates if c[1] in consumed]
        for stmt, acc, _, expr in candidates:
            others = [c[0] for c in candidates if c[1] == acc]
            severity, evidence = _evidence(bench, stmt, acc, expr)
            yield make_issue(bench.source, stmt, ID, severity, evidence, benchmark=bench.name,
                             edits=_edits(bench, stmt, expr, acc, others),
                             hint="consume each result with Blackhole.consume "
                             "(JMHSample_34_SafeLooping)")


def _evidence(bench: Benchmark, stmt: Node, acc: str, expr: Node) -> tuple[str, str]:
    """Severity and message: ``warning`` only when every accumulated call is known cheap."""
    loop = enclosing_loop(stmt, bench.body)
    calls = [n for n in walk(expr) if n.type == "method_invocation"]
    head = f"the loop {_bound(bench, loop)} and accumulates {short(bench.source.text(expr), 40)} " \
           f"into '{acc}'"
    if not calls and not _repeat_loop(loop, stmt):
        return "info", f"{head}, which is loop-invariant, in a loop that also does other work " \
                       f"(a traversal is often the work itself)"
    if not calls:
        return "warning", f"{head}, which is loop-invariant; the JIT can hoist it out of the loop"
    if all(_trivial(bench, c) for c in calls):
        return "info", f"{head}: arithmetic on sizes ({short(bench.source.text(calls[0]), 30)}), part " \
                       f"of a traversal that is often the work itself"
    unknown = [bench.source.text(c.child_by_field_name("name")) for c in calls
               if not bench.call(c).cheap]
    inner = _inner_loop(loop, stmt)
    if not unknown and all(_jdk_primitive(bench, c) for c in calls) and _over_data(bench, loop, calls) \
            and not _boxed_in_loop(bench, loop, calls):
        return "info", f"{head}: a JDK function of each element, folded into a reduction over the data " \
                       f"(a popcount of an array or a sum of sines is the measured work itself, like a " \
                       f"sum of the elements)"
    if not unknown and inner is not None:
        return "info", f"{head}, a cheap side-effect-free computation, but the loop body also runs " \
                       f"an inner loop ({short(bench.source.text(inner), 30)}): the body's work, " \
                       f"not this one term, decides what the JIT can merge"
    outer = enclosing_loop(loop, bench.body) if loop is not None else None
    if not unknown and outer is not None and _other_work(bench, outer, loop):
        return "info", f"{head}, a cheap side-effect-free computation, but inside an outer loop " \
                       f"({_bound(bench, outer)}) whose body also does other work: a nested " \
                       f"traversal, whose work decides what the JIT can merge"
    out_of_line = next((c for c in calls if _not_inlined(bench, c)), None)
    if out_of_line is not None:
        return "info", f"{head}, but {bench.source.text(out_of_line.child_by_field_name('name'))}() is " \
                       f"kept out of line (@CompilerControl DONT_INLINE): each trip is a real call the " \
                       f"JIT cannot merge with the next"
    if not unknown:
        return "warning", f"{head}, a cheap side-effect-free computation; the JIT can unroll " \
                          f"the loop and merge the calls"
    return "info", f"{head}; if {unknown[0]}() is nanosecond-scale the JIT can merge the calls " \
                   f"(its cost is not visible here, and a loop over the subject is often the work)"


# Primitive results of JDK functions: summed over the elements they are the reduction's
# arithmetic, as + is in acc += xs[i] (Long.bitCount, Math.sin, Long.parseLong). A JDK call
# returning an object (Integer.valueOf) whose result is only unboxed into the sum is another
# matter: the JIT may remove the boxing that is under test (heldout36's NumberValueOfBenchmark).
def _jdk_primitive(bench: Benchmark, call: Node) -> bool:
    found = bench.call(call)
    if found.kind != "pure" or found.method is not None:
        return False
    if found.return_type in PRIMITIVES:
        return True
    # Math.min, max, abs, floorMod: overloaded on int, long, float and double, so the table
    # gives no one result type, but every overload of Math and StrictMath returns a primitive
    # (heldout52's branch-free range scan folds Math.min(1, Math.max(x - q, 0)) per row)
    owner = call.child_by_field_name("object")
    return found.return_type is None and owner is not None \
        and bench.source.text(owner).rsplit(".", 1)[-1] in ("Math", "StrictMath")


def _over_data(bench: Benchmark, loop: Node | None, calls: list[Node]) -> bool:
    """Do the calls' arguments read the loop's element or index (``Long.bitCount(w[k])``,
    ``Long.bitCount(a[i] & b[i])``, ``Math.abs(x)`` for each ``x``)? Then the accumulation is a
    reduction over data (so is a read of a buffer another call of the body fills on each trip,
    or of a variable the loop changes), which heldout34 and heldout35 (runtime-, vector- and simdbenchmarks'
    popcounts and intersection cardinalities, 22 findings) labelled the measured algorithm
    itself; a JDK call on loop-invariant operands (``s.charAt(3)`` repeated) is still a
    repetition the JIT can hoist."""
    if loop is None:
        return False
    text = bench.source.text
    varying = {text(t) for n in walk(loop) for t in _targets(n)}   # counters, elements, writes
    for n in walk(loop.child_by_field_name("body")):   # a buffer another call fills per trip
        if n.type == "method_invocation" and not any(n == c for c in calls) \
                and bench.call(n).kind not in ("pure", "blackhole"):
            varying |= {text(a) for a in n.child_by_field_name("arguments").named_children
                        if a.type == "identifier"}
    return bool(varying) and any(n.type == "identifier" and text(n) in varying
                                 for c in calls for part in (c.child_by_field_name("arguments"),
                                                             c.child_by_field_name("object"))
                                 if part is not None for n in walk(part))


def _boxed_in_loop(bench: Benchmark, loop: Node | None, calls: list[Node]) -> bool:
    """Is a call's receiver a box the loop body makes (``Integer b = new Integer(i)`` or
    ``Integer.valueOf(i)``, then ``sum += b.longValue()``)? The boxing is then what is measured,
    and an unboxed sum lets escape analysis remove it (heldout36's NumberValueOfBenchmark); a
    box the loop only reads from a list is the traversal's data."""
    body = loop.child_by_field_name("body") if loop is not None else None
    if body is None:
        return False
    text = bench.source.text
    receivers = {text(o) for c in calls if (o := c.child_by_field_name("object")) is not None
                 and o.type == "identifier"}
    for node in walk(body):
        if node.type == "variable_declarator" and text(node.child_by_field_name("name")) in receivers:
            value = node.child_by_field_name("value")
            if value is not None and (value.type == "object_creation_expression" or value.type == "method_invocation"
                                      and text(value.child_by_field_name("name")) == "valueOf"):
                return True
    return False


def _other_work(bench: Benchmark, outer: Node, loop: Node) -> bool:
    """Does ``outer``'s body call something besides ``loop`` that is not a cheap pure call (a
    ``split`` of each element, a parse, an allocation)? Then the accumulation is a term of a
    nested traversal (heldout46's ForEachExpensive splits each line and sums its fields)."""
    body = outer.child_by_field_name("body")
    for node in walk(body) if body is not None else ():
        if loop.start_byte <= node.start_byte < loop.end_byte:
            continue
        if node.type == "object_creation_expression" or node.type == "array_creation_expression":
            return True
        if node.type == "method_invocation" and not bench.call(node).cheap:
            return True
    return False


def _not_inlined(bench: Benchmark, call: Node) -> bool:
    """Is ``call`` a project method annotated @CompilerControl(DONT_INLINE) (heldout46's
    IntrinsicsMathMin.ownMinNotInlined: the call is the variant measured)?"""
    method = bench.call(call).method
    return method is not None and method.source is not None and out_of_line(method, method.source)


def _inner_loop(loop: Node | None, stmt: Node) -> Node | None:
    """A loop nested in ``loop``'s body that does not hold the accumulation ``stmt``: the
    outer loop is then a traversal whose iterations are heavy (sirix's masked vector folds
    count the bits of each mask word beside an inner loop over its lanes; heldout25)."""
    body = loop.child_by_field_name("body") if loop is not None else None
    if body is None:
        return None
    return next((n for n in walk(body) if n.type in LOOPS
                 and not (n.start_byte <= stmt.start_byte < n.end_byte)), None)


# Accessors that only read a size: summing them over a traversal is arithmetic on the data
# (heldout17, async-http-client: a multipart header length computed part by part), not the
# repeated call of a measured function that JMHSample_34 is about.
_SIZES = frozenset({"length", "size", "isEmpty", "capacity", "remaining"})


def _trivial(bench: Benchmark, call: Node) -> bool:
    name = bench.source.text(call.child_by_field_name("name"))
    return name in _SIZES and not call.child_by_field_name("arguments").named_children


def _repeat_loop(loop: Node, stmt: Node) -> bool:
    """Is ``loop`` a counted repeat of ``stmt`` alone (JMHSample_11's ``for (i < reps) s += x + y``),
    not a traversal of elements or a body with other work?"""
    if loop.type == "enhanced_for_statement":
        return False
    body = loop.child_by_field_name("body")
    if body is not None and body.type == "block":
        statements = [c for c in body.named_children if "comment" not in c.type]
        return statements == [stmt]
    return body == stmt


def _bound(bench: Benchmark, loop: Node) -> str:
    text = bench.source.text
    if loop.type == "enhanced_for_statement":
        return f"runs over {short(text(loop.child_by_field_name('value')), 30)}"
    condition = loop.child_by_field_name("condition")
    return f"runs while {short(text(condition), 30)}" if condition is not None else "repeats"


def _candidate(bench: Benchmark, node: Node):
    """``(statement, accumulator, fused call, consumed expression)`` or None."""
    if node.type != "expression_statement" or not node.named_children:
        return None
    expr = node.named_children[0]
    if expr.type != "assignment_expression":
        return None
    text = bench.source.text
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    operator = text(expr.child_by_field_name("operator"))
    acc = text(left) if left.type == "identifier" else ""
    if acc not in bench.locals or operator not in _OPERATORS:
        return None
    if bench.locals[acc].rsplit(".", 1)[-1] in ("String", "CharSequence"):
        return None   # result += valueOf(i): each trip copies the growing text into a new String,
        # the quadratic concatenation measured (heldout54), not a merge of cheap calls
    calls = [n for n in walk(right) if n.type == "method_invocation"
             and bench.call(n).kind != "blackhole"]
    if any(i.type == "identifier" and text(i) == acc for c in calls for i in walk(c)):
        return None
    if operator == "=" and not (right.type == "binary_expression" and any(
            text(right.child_by_field_name(side)) == acc for side in ("left", "right"))):
        return None  # an overwrite keeps only the last value: RETU's case, not an accumulation
    loop = enclosing_loop(node, bench.body)
    declaration = bench.declaration(acc)
    if loop is None or declaration is None or declaration.start_byte > loop.start_byte:
        return None
    if not calls and not _invariant(bench, loop, right, acc):
        return None
    if calls and all(_element_read(bench, loop, c) for c in calls):
        return None  # v += str.charAt(i): a sum of elements, as an array sum, is the work itself
    if any(n.type == "method_invocation" and bench.call(n).kind == "blackhole" for n in walk(loop)):
        return None
    consumed = right
    if operator == "=" and right.type == "binary_expression":
        a, b = right.child_by_field_name("left"), right.child_by_field_name("right")
        if a.type == "identifier" and text(a) == acc:
            consumed = b
        elif b.type == "identifier" and text(b) == acc:
            consumed = a
    return node, acc, calls[0] if calls else right, consumed


_ELEMENT_READS = frozenset({"charAt", "codePointAt", "get", "getByte", "getChar", "getShort", "getInt",
                            "getLong", "getFloat", "getDouble"})


def _element_read(bench: Benchmark, loop: Node, call: Node) -> bool:
    """Is ``call`` the read of one element at the loop's index (``text.charAt(i)``,
    ``list.get(i)``, ``buffer.getLong(i)``) on a receiver the loop does not change? Such a loop
    traverses the data like ``acc += xs[i]``, which is not reported either."""
    text = bench.source.text
    obj, args = call.child_by_field_name("object"), call.child_by_field_name("arguments").named_children
    if obj is None or obj.type not in ("identifier", "field_access") or len(args) != 1 \
            or args[0].type != "identifier" or text(call.child_by_field_name("name")) not in _ELEMENT_READS:
        return False
    header = [loop.child_by_field_name(f) for f in ("init", "update")]
    counters = {text(t) for h in header if h is not None for n in walk(h) for t in _targets(n)}
    changed = {text(t) for n in walk(loop.child_by_field_name("body")) for t in _targets(n)}
    return text(args[0]) in counters and text(obj) not in changed


def _invariant(bench: Benchmark, loop: Node, expr: Node, acc: str) -> bool:
    """Is ``expr`` computed work whose operands the loop never changes (JMHSample_11)?"""
    text = bench.source.text
    if expr.type not in ("binary_expression", "parenthesized_expression", "unary_expression"):
        return False
    if any(n.type in ("array_access", "object_creation_expression") for n in walk(expr)):
        return False
    changed = {text(v) for n in walk(loop) for v in _targets(n)}
    names = {text(n) for n in walk(expr) if n.type == "identifier"}
    return bool(names) and not names & (changed | {acc})


def _targets(node: Node) -> list[Node]:
    if node.type in ("assignment_expression", "update_expression"):
        return [written(node)]
    if node.type in ("variable_declarator", "enhanced_for_statement"):
        name = node.child_by_field_name("name")
        return [name] if name is not None else []
    return []


def accumulations(bench: Benchmark, name: str) -> list[tuple[Node, Node]]:
    """``(statement, consumed expression)`` of loop accumulations into local ``name``."""
    found = (_candidate(bench, n) for n in bench.own("expression_statement"))
    return [(c[0], c[3]) for c in found if c is not None and c[1] == name]


def rewrite(bench: Benchmark, stmt: Node, expr: Node, bh: str) -> Edit:
    """``acc += f(x);`` -> ``bh.consume(f(x));``"""
    return Edit(stmt.start_byte, stmt.end_byte, f"{bh}.consume({bench.source.text(expr)});")


def _edits(bench: Benchmark, stmt: Node, expr: Node, acc: str, others: list[Node]) -> tuple[Edit, ...]:
    bh, extra = blackhole(bench)
    return (rewrite(bench, stmt, expr, bh),) + extra + _make_void(bench, acc, others)


def _make_void(bench: Benchmark, acc: str, accumulations: list[Node]) -> tuple[Edit, ...]:
    """Edits that drop ``acc`` and its final ``return`` when nothing else reads it."""
    text, body = bench.source.text, bench.body
    statements = [c for c in body.named_children if "comment" not in c.type]
    if bench.void or not statements or statements[-1].type != "return_statement":
        return ()
    ret = statements[-1]
    if not ret.named_children or text(ret.named_children[0]) != acc:
        return ()
    decl = next((s for s in statements if s.type == "local_variable_declaration"
                 and any(text(d.child_by_field_name("name")) == acc
                         for d in s.children_by_field_name("declarator"))), None)
    if decl is None or len(decl.children_by_field_name("declarator")) != 1:
        return ()
    value = decl.children_by_field_name("declarator")[0].child_by_field_name("value")
    if value is not None and is_computed(value):
        return ()
    allowed = [decl, ret, *accumulations]
    for ident in walk(body):
        if ident.type == "identifier" and text(ident) == acc and not any(
                a.start_byte <= ident.start_byte < a.end_byte for a in allowed):
            return ()
    type_node = bench.node.child_by_field_name("type")
    return (Edit(type_node.start_byte, type_node.end_byte, "void"),
            delete_statement(bench.source, decl), delete_statement(bench.source, ret))


# Copies and fills that store the same values on every trip of a counted loop. jruby's
# ArrayCopyBenchmark (heldout31) repeats System.arraycopy(arr1, 0, dst1, 0, arr1.length) 100
# million times under @OperationsPerInvocation: with loop-invariant operands each trip rewrites
# what the last one wrote, so C2 may expand the small constant-length copy into loads and
# stores it hoists or merges, and a copy into a fresh array no one reads is dead (JMHSample_11:
# a repeat loop measures what the compiler made of the repetition, not one operation).
_IDEMPOTENT = frozenset({("System", "arraycopy"), ("Arrays", "fill")})


def _repeated_stores(bench: Benchmark) -> Iterator[Issue]:
    seen: set[int] = set()
    for stmt in bench.own("expression_statement"):
        loop = enclosing_loop(stmt, bench.body)
        if loop is None or loop.start_byte in seen or loop.type != "for_statement":
            continue
        seen.add(loop.start_byte)
        found = _invariant_copies(bench, loop)
        if found is None:
            continue
        text = bench.source.text
        first = found[0]
        fresh = any(a.type == "array_creation_expression"
                    for c in found for a in c.child_by_field_name("arguments").named_children)
        what = ("into a new array that nothing reads, so each copy is dead as well" if fresh else
                "so every trip stores what the previous one stored")
        yield make_issue(bench.source, loop, ID, "warning",
                         f"the loop {_bound(bench, loop)} and repeats {short(text(first), 50)} with "
                         f"loop-invariant operands, {what}; the JIT can hoist or merge the "
                         f"repetitions, and the time per operation is not one call's",
                         benchmark=bench.name,
                         hint="let JMH repeat the call: drop the loop and @OperationsPerInvocation, "
                         "or vary the operands per trip (JMHSample_11_Loops)")


def _invariant_copies(bench: Benchmark, loop: Node) -> list[Node] | None:
    """The calls of a counted ``for`` loop whose body is nothing but listed copies and fills with
    operands the loop never changes (names, fields, literals, ``x.length``, a new array as the
    destination), none of them the counter; else None. A copy within one array (``arraycopy(a,
    0, a, 1, n)`` shifts it again on every trip) is not repeated work."""
    text = bench.source.text
    init, body = loop.child_by_field_name("init"), loop.child_by_field_name("body")
    if init is None or init.type != "local_variable_declaration" or body is None:
        return None
    declarators = init.children_by_field_name("declarator")
    if len(declarators) != 1:
        return None
    counter = text(declarators[0].child_by_field_name("name"))
    statements = [c for c in body.named_children if "comment" not in c.type] \
        if body.type == "block" else [body]
    calls = []
    for stmt in statements:
        call = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
        if call is None or call.type != "method_invocation":
            return None
        obj = call.child_by_field_name("object")
        if obj is None or (text(obj), text(call.child_by_field_name("name"))) not in _IDEMPOTENT:
            return None
        args = call.child_by_field_name("arguments").named_children
        if not args or not all(_invariant_operand(bench, a, counter, i) for i, a in enumerate(args)):
            return None
        if len(args) == 5 and text(args[0]) == text(args[2]):
            return None
        calls.append(call)
    return calls or None


def _invariant_operand(bench: Benchmark, node: Node, counter: str, position: int) -> bool:
    text = bench.source.text
    if node.type.endswith("literal"):
        return True
    if node.type == "unary_expression" and node.named_children:
        return node.named_children[0].type.endswith("literal")
    if node.type == "array_creation_expression":  # arraycopy's destination only
        return position == 2 and all(d.type.endswith("literal") for n in node.named_children
                                     if n.type == "dimensions_expr" for d in n.named_children)
    if node.type == "identifier":
        return text(node) != counter
    if node.type == "field_access":
        return all(n.type != "method_invocation" for n in walk(node)) and not any(
            n.type == "identifier" and text(n) == counter for n in walk(node))
    return False


def _helper_repeats(bench: Benchmark) -> Iterator[Issue]:
    """JMHSample_11's ``return reps(10)``: the benchmark returns (or consumes) the result of a
    project helper whose counted loop only repeats loop-invariant arithmetic into a local it
    returns (``for (i < reps) s += (x + y)``). Inlined, the repetition is what the JIT hoists:
    the time per operation (often divided by @OperationsPerInvocation) is not one addition's.
    A trip count of the literal 0 or 1 repeats nothing (``measureWrong_1``); a helper that also
    does other work, or whose loop varies its operands, is not this case. No fix: the remedy is
    to let JMH repeat the call, which changes the benchmark's shape."""
    text = bench.source.text
    for node in bench.own("method_invocation"):
        if not _result_kept(bench, node):   # first: resolving every call is the costly part
            continue
        method = bench.call(node).method
        if method is None or method.node.id == bench.node.id:
            continue
        body = method.node.child_by_field_name("body")
        data = method.source.data if method.source is not None else b""
        if body is None or b"for" not in data[body.start_byte:body.end_byte]:
            continue   # no loop in its text: nothing to read (and no context to build)
        helper = callee_context(bench, method)
        if helper is None or helper.body is None:
            continue
        consumed = None
        for stmt in helper.own("expression_statement"):
            found = _candidate(helper, stmt)
            if found is None or found[2].type == "method_invocation":
                continue
            loop = enclosing_loop(stmt, helper.body)
            if loop is None or loop.type != "for_statement" or not _repeat_loop(loop, stmt):
                continue
            if consumed is None:
                consumed = analyse(helper).consumed
            if found[1] not in consumed or _one_trip(bench, node, helper, loop):
                continue
            yield make_issue(bench.source, node, ID, "warning",
                             f"{bench.name} calls {short(text(node), 30)}, whose loop "
                             f"{_bound(helper, loop)} and only accumulates the loop-invariant "
                             f"{short(helper.source.text(found[3]), 30)} into '{found[1]}'; the JIT "
                             f"can hoist it out of the loop, so the time per operation is not "
                             f"one computation's",
                             benchmark=bench.name,
                             hint="let JMH repeat the call: measure the computation once per "
                             "invocation, without the helper's loop (JMHSample_11_Loops)")
            break


def _result_kept(bench: Benchmark, node: Node) -> bool:
    """Is the call's value returned or handed to a Blackhole (so the helper's work is kept)?"""
    parent = node.parent
    if parent is not None and parent.type == "return_statement":
        return True
    if parent is not None and parent.type == "argument_list" and parent.parent is not None \
            and parent.parent.type == "method_invocation":   # not new Holder(...)
        return bench.call(parent.parent).kind == "blackhole"
    return False


def _one_trip(bench: Benchmark, node: Node, helper: Benchmark, loop: Node) -> bool:
    """Does the benchmark pass the literal 0 or 1 as the parameter bounding the helper's loop?"""
    condition = loop.child_by_field_name("condition")
    if condition is None:
        return False
    names = {helper.source.text(n) for n in walk(condition) if n.type == "identifier"}
    params = [p for _, p in _helper_params(helper)]
    args = node.child_by_field_name("arguments").named_children
    for position, name in enumerate(params):
        if name in names and position < len(args) and args[position].type == "decimal_integer_literal":
            return int(bench.source.text(args[position]).replace("_", "")) <= 1
    return False


def _helper_params(helper: Benchmark) -> list[tuple[str, str]]:
    """``(type, name)`` of the helper method's formal parameters, in order."""
    params = helper.node.child_by_field_name("parameters")
    text = helper.source.text
    return [(text(p.child_by_field_name("type")), text(p.child_by_field_name("name")))
            for p in (params.named_children if params is not None else [])
            if p.type == "formal_parameter"]


# Flags that keep C2 from merging lock regions: a class that passes one measures the lock as
# written (dubrouski's MonitorRLBenchmark runs each monitor loop with -XX:LoopUnrollLimit=1).
_COARSENING_GUARDS = ("LoopUnrollLimit=1", "-EliminateLocks", "-EliminateNestedLocks", "-UseOptoBiasInlining")


# Locks and counters C2 does not coarsen: a file that measures one of them beside a loop of
# synchronized regions compares them, and the coarsened loop skews the comparison. A file of
# monitor patterns alone (OpenJDK's LockUnlock: serial, recursive and looped regions) studies
# what C2 makes of them, which is the subject there: info.
_OTHER_LOCKS = ("ReentrantLock", "ReadWriteLock", "StampedLock", "AtomicInteger", "AtomicLong",
                "LongAdder", "Semaphore", "VarHandle")


def _coarsened_locks(bench: Benchmark) -> Iterator[Issue]:
    """A counted loop whose body is only ``synchronized (lock) { ... }`` on a lock the loop never
    changes, with cheap work inside (no call but to pure JDK methods): C2 unrolls the loop and
    merges the adjacent lock regions on the same monitor into one (lock coarsening; Shipilev,
    JVM Anatomy Quark #1), so fewer acquisitions are timed than the loop claims, and a
    comparison with ReentrantLock or atomics, which are not coarsened, is skewed (heldout43).
    A Blackhole call inside, or a flag in the file that stops the merge, leaves it alone."""
    text = bench.source.text
    regions = bench.source.within("synchronized_statement", bench.body)   # indexed: cheap when none
    if not regions or any(flag.encode() in bench.source.data for flag in _COARSENING_GUARDS):
        return
    for block in regions:
        parent = block.parent
        loop = parent.parent if parent is not None and parent.type == "block" else parent
        if loop is None or loop.type != "for_statement" or loop.child_by_field_name("body") not in (block, parent):
            continue
        if parent.type == "block" and [c for c in parent.named_children if "comment" not in c.type] != [block]:
            continue   # the loop body does more than enter the lock
        lock = block.named_children[0] if block.named_children else None
        if lock is not None and lock.type == "parenthesized_expression" and lock.named_children:
            lock = lock.named_children[0]
        if lock is None or lock.type not in ("identifier", "field_access", "this"):
            continue
        changed = {text(t) for n in walk(loop) for t in _targets(n)}
        if text(lock) in changed or text(lock).rsplit(".", 1)[-1] in changed:
            continue
        calls = [n for n in walk(block) if n.type == "method_invocation"]
        if any(not (bench.call(c).kind == "pure" and bench.call(c).method is None) for c in calls):
            continue   # a Blackhole, a project or library call: work or a sink inside the region
        compared = any(kind.encode() in bench.source.data for kind in _OTHER_LOCKS)
        yield make_issue(bench.source, loop, ID, "warning" if compared else "info",
                         f"the loop {_bound(bench, loop)} and only enters synchronized "
                         f"({short(text(lock), 20)}); C2 can unroll it and coarsen the adjacent "
                         f"lock regions into one, so fewer lock acquisitions are timed than the "
                         f"loop claims" + ("" if compared else
                                           " (info: the file compares no other kind of lock, so "
                                           "what C2 makes of the monitor may be the subject)"),
                         benchmark=bench.name,
                         hint="let JMH repeat one locked operation per call, or run the class with "
                         "-XX:LoopUnrollLimit=1 (JVM Anatomy Quark #1: lock coarsening)")
