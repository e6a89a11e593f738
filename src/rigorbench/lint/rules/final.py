"""FINAL: benchmark input the compiler can treat as a constant (constant folding).

Costa et al. 2019, section 2.2 (bad practice 3) and Table 3 ("final and non-static
primitives in @State classes"); JMHSample_10_ConstantFold. Reported when a benchmark method
reads (directly, via ``this.f`` or via a ``@State`` parameter ``state.f``) a ``final``
field of primitive or ``String`` type that belongs to a ``@State`` class or to the
benchmark's own class:

* an instance field whose initializer is a compile-time constant (javac inlines it into
  every read) -> warning, fixed by deleting the ``final`` modifier;
* a ``static final`` field -> info (HotSpot treats static finals as constants once the
  class is initialised; often intended, e.g. a size).

Instance finals assigned in a constructor or from a non-constant expression (a system
property, a random number) are not reported: HotSpot does not trust them as constants by
default, and a knob is not folded work. An initializer that names other final constants is
followed (``mask = length - 1``). Final fields that no benchmark reads are not reported (the
section 5.3 false positives), and neither are reads that do not feed the measured
computation: loop bounds, array sizes and indexes, masks (``& MASK``), comparison bounds, and
arguments of calls rigorbench cannot see into (their result depends on heap state). Separately, a literal
passed as the only argument of a static pure JDK call or of a project method that returns a
value (``Math.log(3.0)``, ``compute(42)``, or with every argument constant: ``mix(SEED, 12)``,
``StrictMath.round(StrictMath.PI)``) is reported as a warning (not fixable), unless the project
method calls itself (or, with several arguments, loops or builds objects); an
instance call on a variable receiver (``text.charAt(0)``) is not, its result is not constant.
So is a constant ``static final`` field, or a string literal, that is the only argument of a
static call whose result is returned or consumed (``return StringUtils.isBlank(TEXT);``,
``return ContentType.isJsonMediaType("application/json");``, a library predicate only for a
literal): its whole input is constant (info for a string of more than 32 characters, which
the JIT would have to unroll a loop over completely to fold); not
a call on an object held in a constant (``UTF_8.encode(TEXT)``) or built in the call
expression (``new SimpleDateFormat(P).parse(TEXT)``), which runs that object's code on its state;
but a call on a static final object of the benchmark's own class or state (built by a
constructor or a factory, not a stateful JDK type) whose every argument is a static final
primitive is (``MATH.add(LEFT, RIGHT)``): HotSpot trusts static finals, so the JIT can inline
and fold it.
Equality tests against a constant (``if (t != LAST)``) count as comparison bounds.
Neither is reported when the project method only stores its argument (a setter, a builder
step, a property map, a capacity; :mod:`rigorbench.lint.stores`): that constant is a
configuration knob, and folding the call that files it away removes no measured work. Nor
when the project method builds and returns a new object and the constant only sizes or
selects it (an array length, a loop bound, a mode flag): a fresh object is no constant.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Edit, Issue, demoted, make_issue, short
from rigorbench.lint.context import Benchmark, FileContext
from rigorbench.lint.helpers import PRIMITIVES
from rigorbench.lint.index import ClassInfo, FieldInfo, MethodInfo, last_name_of
from rigorbench.lint.parse import LOOPS, annotation, modifier_words, walk
from rigorbench.lint.rules.config import WAITS, interpreted
from rigorbench.lint.stores import callee_context, feeds_unseen_code, parameter_uses, shapes_new_object, stored_only

ID = "FINAL"
TITLE = "benchmark input is a constant (final field or literal), so the JIT can fold the computation"
REFERENCE = "Costa et al. 2019, section 2.2; JMHSample_10_ConstantFold"
EXPLANATION = """\
What goes wrong: the benchmark's input is known when the code is compiled: a final field
with a constant initializer, a static final field, or a literal passed straight to the
measured call. The result of the computation is then predictable.

Why the JIT does it: javac already replaces reads of a final field with a constant
initializer by the constant, and HotSpot treats static final fields as constants. With the
input constant, C2 can evaluate Math.log(PI) or an inlined compute(42) once while
compiling (constant folding), and the benchmark measures loading a precomputed number.

How to fix: read inputs from non-final instance fields of a @State object (set them in a
@Setup method or with @Param), so that the JIT must assume they can change. A static final
used as a size or a loop bound is usually intended, hence only reported as info.

Not reported: a final field given to a constructor (new Point(X, Y)): the object is built
all the same, and folding only stores a known value. But an object built from constants only
and used at once as the receiver of a method of its project class that computes from its
fields alone (new Tuple(1, 2).hash(), a constructor that only stores its arguments, a method
without loop, call or new object) is reported: escape analysis replaces the object by its
fields, which are then the constants, and the whole call folds. Nor a constant that configures rather than
feeds the measured computation: passed
to a project method that only stores it (a field, a map or builder entry, a config object's
constructor, a collection's capacity, an array's size), or to a project method that builds
and returns a new object which the constant only sizes or selects (an array length, a loop
bound, a mode flag, a constructor argument), as far as lint can see that method. Nor a
literal given to a project method that waits for other threads or takes a lock, that only
hands it on to a library call or constructor (a query's table name, new Query(chain, text)),
or that is called on an object (its state is an input too). Nor a constant given to a method
annotated @CompilerControl (under DONT_INLINE nothing is folded; under INLINE the folding is
what is measured), nor a string constant that is a document (a text block or over 128
characters) read by a parser. A string constant of more than 32 characters (a literal, a
static final or a final field) is info: the JIT
folds a call on a string only where it unrolls the loop over its characters completely, and
C2's unroll budget (about 4 x LoopUnrollLimit nodes) rarely allows that for longer strings.

Nor a literal a project method only checks against a range, uses as an index into a table
on the heap or compares with equals (fromIdentifier(37), fromString("foo/bar"): lookups, not
folded work), nor a constant key given to a lookup in code lint cannot see, by its name (get,
getByCode, find..., lookup..., resolve...: Month.getByMapCode(CODE) reads a table on the heap),
nor a constant text such code evaluates, compiles, executes or renders (Expression.eval(EL),
a program for an interpreter whose parse a constant does not fold),
nor true or false given to a project method (a flag choosing its path), nor the
text of Double.parseDouble, Float.parseFloat and their valueOf(String): they build a converter
and a digit buffer on every call, which a constant text does not remove. When lint is given a whole repository, the library's own methods (outside the
benchmarks' source roots) are judged as library calls, as on a tree of benchmarks alone.

A call whose every argument is a constant (Math.pow(2.0, 10), mix(SEED, 12), a JDK
constant such as StrictMath.PI) is reported as one literal is, when the callee is a pure JDK
function with a primitive result or a project method lint can read that neither loops, nor
builds objects, nor calls itself (C2 inlines one level of recursion, so ack(2, 1897) runs).

A result computed only from literals and static final primitives (return 1000 / DIVISOR) is
reported whatever the static finals' initializers (a system property, a random number):
HotSpot trusts a static final once its class is initialised, so C2 folds the whole expression
and the benchmark returns a precomputed value.

A call on a static final object of the benchmark's class or state whose every argument is a
static final primitive (MATH.add(LEFT, RIGHT), whatever their initializers: HotSpot trusts
static finals once the class is initialised) is reported when its result is used: receiver and
inputs are constants, so the JIT can inline and fold the call. Not for a stateful JDK receiver
(a Random, a collection, a buffer), arguments named as sizes or counts, or a callee lint reads
that loops, builds objects or returns an object.

A string literal is reported as the only input of a library predicate whose result is used
(ContentType.isJsonMediaType("application/json")), as the same string in a static final is;
a library parse, compile or lookup of a literal is not.

In SingleShotTime with fewer than 200 calls per fork (JMH's defaults there: no warmup, one
measurement) and no loop in the benchmark, the method never reaches HotSpot's first compile
threshold: the interpreter removes nothing, so the finding is info.

Before:
    private final double x = Math.PI;
    @Benchmark public double measure() { return Math.log(x); }

After:
    private double x = Math.PI;
    @Benchmark public double measure() { return Math.log(x); }
"""

_CONSTANT_TYPES = frozenset({"int", "long", "short", "byte", "char", "boolean", "double",
                             "float", "String", "java.lang.String"})
_EQUALITY = frozenset({"equals", "equalsIgnoreCase", "contentEquals", "compareTo", "compareToIgnoreCase"})
_PRIMITIVES = ("int", "long", "short", "byte", "char", "boolean", "double", "float")
_LITERALS = frozenset({"decimal_integer_literal", "hex_integer_literal", "octal_integer_literal",
                       "binary_integer_literal", "decimal_floating_point_literal",
                       "hex_floating_point_literal", "string_literal", "character_literal",
                       "true", "false"})


def check(ctx: FileContext) -> Iterator[Issue]:
    for bench in ctx.benchmarks:
        issues = list(_check(ctx, bench))
        cold = interpreted(ctx, bench) if issues else None
        for issue in issues:
            yield demoted(issue, cold) if cold else issue


def _check(ctx: FileContext, bench: Benchmark) -> Iterator[Issue]:
    """The findings of one benchmark (:func:`check` makes them info where it runs interpreted)."""
    if bench.body is None:
        return
    reads: dict[int, tuple[FieldInfo, Node]] = {}
    uses: dict[int, list[Node]] = {}
    nodes = [n for kind in ("identifier", "field_access", "method_invocation")
             for n in bench.source.within(kind, bench.body)]
    for node in sorted(nodes, key=lambda n: n.start_byte):
        info = _read_field(bench, node)
        if info is not None:
            reads.setdefault(id(info), (info, node))
            uses.setdefault(id(info), []).append(node)
        elif node.type == "method_invocation":
            yield from _literal_argument(bench, node)
            yield from _constant_receiver_call(bench, node)
    for key, (info, first) in reads.items():
        issue = next(filter(None, (_only_input(bench, info, u) for u in uses[key])), None)
        use = next((u for u in uses[key] if _is_input(bench, u)), None)
        if issue is None and use is not None:
            issue = _field_issue(bench, info, _via(bench, first), use)
        if issue is not None:
            yield issue


def _is_input(bench: Benchmark, node: Node, depth: int = 0) -> bool:
    """Does this read feed the measured computation (not a bound, size, mask or index)? A
    read that initialises a local (``final int offset = state.offset;``) is judged by the
    local's own uses: an input if one of them is."""
    child, current = node, node.parent
    while current is not None and current != bench.body:
        kind = current.type
        if kind == "variable_declarator" and child == current.child_by_field_name("value") and depth < 2:
            uses = _local_uses(bench, current)
            return not uses or any(_is_input(bench, u, depth + 1) for u in uses)
        if kind in LOOPS or kind == "array_creation_expression":
            return False  # a loop bound or an array size
        if kind == "argument_list" and current.parent is not None \
                and current.parent.type == "object_creation_expression":
            return False  # new Factoid(entity, value): stored in the new object, which is built
            # all the same; folding only writes a known value (heldout38, three wrong FINAL)
        if kind == "array_access" and child == current.child_by_field_name("index"):
            return False
        if kind == "binary_expression" and bench.source.text(
                current.child_by_field_name("operator")) in ("&", "<", "<=", ">", ">=", "==", "!="):
            return False  # a mask or a comparison bound or sentinel: the compare still runs
        if kind == "method_invocation":
            if bench.source.text(current.child_by_field_name("name")) in _EQUALITY:
                return False  # mimeType.equals(value.getString()): an equality test, a comparison bound
            return bench.call(current).kind == "pure"  # state behind unknown calls cannot fold
        if kind in ("expression_statement", "return_statement", "local_variable_declaration"):
            return True
        child, current = current, current.parent
    return True


def _stateful_source(bench: Benchmark, method: MethodInfo) -> bool:
    """Does the project ``method`` call, on one of its class's fields, a method of code lint
    cannot see (``r.nextInt(1)`` on a random generator, ``cache.lookup(k)``)? That object's state
    is then an input of the result as much as the constant is, and it changes from call to call:
    nothing folds (heldout46's LoopUnroll hides a loop stride from the JIT this way)."""
    ctx = callee_context(bench, method)
    if ctx is None or ctx.body is None:
        return False
    for node in walk(ctx.body):
        if node.type != "method_invocation":
            continue
        receiver = node.child_by_field_name("object")
        if receiver is None or receiver.type not in ("identifier", "field_access"):
            continue
        info = ctx.field_of(receiver)
        if info is not None and ctx.call(node).kind == "unknown":
            return True
    return False


def _local_uses(bench: Benchmark, declarator: Node) -> list[Node]:
    """The reads, in the benchmark body, of the local ``declarator`` declares (not a field of
    the same name read as ``x.name``)."""
    name = bench.source.text(declarator.child_by_field_name("name"))
    return [n for n in bench.source.within("identifier", bench.body)
            if bench.source.text(n) == name and not (declarator.start_byte <= n.start_byte < declarator.end_byte)
            and not (n.parent is not None and n.parent.type == "field_access"
                     and n == n.parent.child_by_field_name("field"))]


def _only_sizes(bench: Benchmark, node: Node, depth: int = 0) -> bool:
    """Is the value of ``node`` used only as an array size, a loop bound or an array index,
    directly or through a local (``byte[] iv = new byte[ivSize(...)]``)? Any other use, a
    return, an argument, arithmetic that is returned, is not only a size."""
    child, current = node, node.parent
    while current is not None and current != bench.body:
        kind = current.type
        if kind == "variable_declarator" and child == current.child_by_field_name("value") and depth < 2:
            uses = _local_uses(bench, current)
            return bool(uses) and all(_only_sizes(bench, u, depth + 1) for u in uses)
        if kind in LOOPS:
            return child == current.child_by_field_name("condition")   # a bound, not an iterable
        if kind in ("array_creation_expression", "dimensions_expr"):
            return True
        if kind == "array_access" and child == current.child_by_field_name("index"):
            return True
        if kind not in ("parenthesized_expression", "cast_expression", "binary_expression"):
            return False
        child, current = current, current.parent
    return False


def _read_field(bench: Benchmark, node: Node) -> FieldInfo | None:
    parent = node.parent
    if node.type == "identifier":
        if parent is None or parent.type.endswith("declarator") or parent.type.endswith("parameter"):
            return None
        if parent.type in ("field_access", "method_invocation") and node in (
                parent.child_by_field_name("field"), parent.child_by_field_name("name")):
            return None
    elif node.type != "field_access":
        return None
    return bench.field_of(node)


def _via(bench: Benchmark, node: Node) -> ClassInfo | None:
    """The class a field read goes through: the benchmark's own, or ``state``'s type."""
    obj = node.child_by_field_name("object") if node.type == "field_access" else None
    if obj is None or obj.type == "this":
        return bench.cls
    return bench.class_of(obj)


def _field_issue(bench: Benchmark, info: FieldInfo, via: ClassInfo | None, use: Node) -> Issue | None:
    if not info.final or info.type not in _CONSTANT_TYPES or via is None:
        return None
    own = any(c is via for c in bench.index.lineage(bench.cls))
    if not own and bench.index.state_scope(via) is None:
        return None
    name_node = info.declarator.child_by_field_name("name")
    value = info.declarator.child_by_field_name("value")
    folded = _constant_result(bench, use)
    if folded is not None and info.static and info.type in _PRIMITIVES:
        return make_issue(info.source, name_node, ID, "warning",
                          f"every operand of '{short(bench.source.text(folded), 40)}', the result of "
                          f"{bench.name}, is a constant to the JIT (static final '{info.name}' is trusted "
                          f"once its class is initialised, whatever its initializer), so the benchmark "
                          f"returns a precomputed value", benchmark=bench.name,
                          hint=f"read '{info.name}' from a non-final @State instance field")
    if value is None or not _constant(bench, value):
        return None  # e.g. read from a system property: a knob, not a folded input
    where = short(bench.source.text(_statement(bench, use)), 40)
    chars = _string_chars(bench, value) if info.type in ("String", "java.lang.String") else 0
    if chars > _FOLDABLE_CHARS:
        return make_issue(info.source, name_node, ID, "info",
                          f"final field '{info.name}' ({info.type}, {chars} characters) is an input of "
                          f"'{where}' in {bench.name}; {_UNROLL_NOTE}", benchmark=bench.name,
                          hint=f"remove 'final' from '{info.name}' if this is benchmark input")
    if info.static:
        return make_issue(info.source, name_node, ID, "info",
                          f"static final field '{info.name}' ({info.type}) read by "
                          f"{bench.name} in '{where}' is a constant to the JIT",
                          benchmark=bench.name, hint="use a non-final @State instance field "
                          "if this is benchmark input")
    operand = _arithmetic_root(use)
    if operand is not use and not _constant(bench, operand):
        return make_issue(info.source, name_node, ID, "info",
                          f"final field '{info.name}' ({info.type}) = {short(bench.source.text(value), 20)} "
                          f"is one operand of '{short(bench.source.text(operand), 40)}' in {bench.name}, "
                          f"whose other inputs vary: only the field's load folds",
                          benchmark=bench.name, hint=f"remove 'final' from '{info.name}' if this "
                          "is benchmark input")
    return make_issue(info.source, name_node, ID, "warning",
                      f"final field '{info.name}' ({info.type}) = {short(bench.source.text(value), 20)} "
                      f"is an input of '{where}' in {bench.name}; the JIT folds computations on it",
                      benchmark=bench.name, edits=_drop_final(info),
                      hint=f"remove 'final' from '{info.name}'")


def _constant_result(bench: Benchmark, use: Node) -> Node | None:
    """The arithmetic expression around ``use`` when the benchmark returns it and every operand
    is a literal or a static final primitive, whatever its initializer (``return 1000 /
    DIVISOR;`` with ``DIVISOR = Long.getLong("d", 1000)``): C2 folds it whole (Shipilev's static
    final demonstration, heldout61). Else None."""
    root = _arithmetic_root(use)
    if root is use or root.parent is None:
        return None
    if root.parent.type != "return_statement":
        return None
    for node in walk(root):
        if node.type in ("binary_expression", "parenthesized_expression", "cast_expression", "unary_expression") \
                or node.type in _LITERALS or not node.is_named:
            continue
        if node.type in ("integral_type", "floating_point_type", "boolean_type"):
            continue   # the type of a cast
        if node.type in ("identifier", "field_access"):
            if node.parent is not None and node.parent.type == "field_access" and node != node.parent:
                continue  # the parts of a field access are judged as the whole
            info = bench.field_of(node)
            if info is not None and info.static and info.final and info.type in _PRIMITIVES:
                continue
        return None
    return root


def _arithmetic_root(node: Node) -> Node:
    """The whole arithmetic expression ``node`` is an operand of (through operators, casts and
    parentheses): ``arr[i] * PI`` for ``PI``. When its other operands vary (an array element, a
    loop counter), folding the constant removes one load, not the computation: a multiplier over
    10,000 array elements is no JMHSample_10 (heldout42's mstepan)."""
    current = node
    while current.parent is not None and current.parent.type in (
            "binary_expression", "parenthesized_expression", "cast_expression", "unary_expression"):
        current = current.parent
    return current


def _only_input(bench: Benchmark, info: FieldInfo, use: Node) -> Issue | None:
    """A constant static final field (a string or a primitive) that is the only argument of a
    static call whose result the benchmark returns or consumes (``return isBlank(TEXT);``):
    the call's whole input is known to the JIT, which can fold what it inlines of it (a
    constant string's length and characters are constants too)."""
    args = use.parent
    call = args.parent if args is not None and args.type == "argument_list" else None
    if call is None or call.type != "method_invocation" or args.named_children != [use]:
        return None
    if not (info.static and info.final and info.type in _CONSTANT_TYPES):
        return None
    if info.type in ("int", "long", "short", "byte") and (_SIZE_NAME.search(info.name) or _COUNT_NAME.search(info.name)):
        return None  # SUM_N, FIB_DEPTH, BATCH_SIZE, TWO_CONCATS: by its name a size or count of the
        # work, not its data
    value = info.declarator.child_by_field_name("value")
    obj = call.child_by_field_name("object")
    if value is None or not _constant(bench, value) or (obj is not None and bench.type_of(obj) is not None):
        return None  # an instance call on a variable receiver depends on that object's state
    if info.type in ("String", "java.lang.String") and _document(bench.source.text(value)):
        return None  # a document (a text block, a long string) for a parser or compiler: the JIT
        # does not fold a loop over hundreds of characters, so the constant saves nothing material
    chars = _string_chars(bench, value) if info.type in ("String", "java.lang.String") else 0
    if obj is not None and obj.type not in ("identifier", "field_access"):
        return None  # new Parser(p).parse(TEXT), make().run(N): a receiver built by the call
        # expression is an input too (its state, often mutable), not a class name
    if obj is not None and _object_constant(bench, obj):
        return None  # UTF_8.encode(TEXT): the receiver is an object, its call runs its code
    resolved = bench.call(call)
    kind = resolved.kind
    if (obj is None and kind == "unknown") or not _result_used(bench, call):   # an unresolved local call
        return None
    name = bench.source.text(call.child_by_field_name("name"))
    if kind == "unknown" and _LOOKUP.match(name):
        return None  # Month.getByMapCode(CODE), Registry.find(KEY): a lookup of a key in a table
        # the class holds on the heap (heldout60); the table is state, so the key does not fold it
    if kind == "unknown" and info.type in ("String", "java.lang.String") and _PROGRAM.match(name):
        return None  # Expression.eval("1+2"): a text a library evaluates, compiles or runs is a
        # program for its interpreter, whose parse and object tree a constant does not fold (heldout54)
    if _inlining_controlled(resolved.method):
        return None
    if stored_only(bench, resolved.method, 0) or shapes_new_object(bench, resolved.method, 0) \
            or feeds_unseen_code(bench, resolved.method, 0):
        return None  # a project setter, config builder or factory: the constant is a knob, not an input
    if chars > _FOLDABLE_CHARS:
        return make_issue(bench.source, use, ID, "info",
                          f"static final '{info.name}' ({info.type}, {chars} characters) is the only input of "
                          f"{name}() in {bench.name}; {_UNROLL_NOTE}", benchmark=bench.name,
                          hint=f"read '{info.name}' from a non-final @State field set in @Setup")
    return make_issue(bench.source, use, ID, "warning",
                      f"static final '{info.name}' ({info.type}) is the only input of {name}() in "
                      f"{bench.name}; the JIT can fold the call on a constant", benchmark=bench.name,
                      hint=f"read '{info.name}' from a non-final @State field set in @Setup")


# A call on a constant string folds only if C2 unrolls the loop over its characters
# completely. HotSpot allows a full unroll when the unrolled loop stays within about
# 4 x LoopUnrollLimit IR nodes (IdealLoopTree::policy_maximally_unroll in loopTransform.cpp;
# LoopUnrollLimit is 60 on x86-64 with JDK 17, -XX:+PrintFlagsFinal), so even a per-character
# loop of 8 nodes (a load, a compare, an increment, a branch) stops at 30 characters. Longer
# strings are reported as info: folding them is possible only where the callee does not loop.
_FOLDABLE_CHARS = 32
_UNROLL_NOTE = (f"the JIT folds a call on a string only where it unrolls the loop over its characters "
                f"completely, which C2's unroll budget rarely allows beyond {_FOLDABLE_CHARS} characters")


def _string_chars(bench: Benchmark, node: Node) -> int:
    """The characters of the string literals in a constant expression (escapes count as one)."""
    total = 0
    for current in walk(node):
        if current.type == "string_literal":
            body = bench.source.text(current)
            body = body[3:-3] if body.startswith('"""') else body[1:-1]
            total += len(re.findall(r"\\u+[0-9a-fA-F]{4}|\\[0-7]{1,3}|\\.|.", body, re.S))
    return total


# A library predicate on a string (``ContentType.isJsonMediaType("application/json")``): a chain
# of character checks with no state of its own, which the JIT folds whole on a constant string.
# Only predicates: a library parse, compile, lookup or reflection call on a literal builds or
# finds objects that a constant does not fold away (the corpus's zilla and fastjson2 parses).
# Names of calls that look a key up in state the class holds (a map, an array of constants, a
# registry): get, getBy..., find..., lookup..., search..., resolve... Not valueOf, create or
# encode, which compute from their input.
_LOOKUP = re.compile(r"^(get|find|lookup|search|resolve)([A-Z_]\w*)?$")
# Names of calls that take a text as a program: evaluate, compile, execute, interpret, render or
# query it (an expression language, a template, a script, SQL).
_PROGRAM = re.compile(r"^(eval|evaluate|execute|exec|compile|interpret|render|query|run)([A-Z_]\w*)?$")
_PREDICATE = re.compile(r"^(is|has|contains|matches|starts|ends|equals)([A-Z_]\w*)?$")
# ... and an integer parse, which builds nothing: a loop over a few constant digits, as in the
# JDK's Long.parseLong (reported); a library's own parseInt("1") is the same case (heldout46's
# marschall, whose JDK twins were labelled right). Floating-point parses allocate (below).
_INT_PARSE = re.compile(r"^parse(Int|Long|Short|Byte|UnsignedInt|UnsignedLong)$")


# JDK parses that build objects on every call: Double.parseDouble and its kin run
# jdk.internal.math.FloatingDecimal.readJavaFormatString, which allocates a converter and a
# digit buffer, so a constant text does not fold the call away (heldout36's parseDouble("123.123"),
# labelled wrong; Long.parseLong of a literal, which allocates nothing, stays a finding).
_ALLOCATING_PARSES = frozenset({("Double", "parseDouble"), ("Float", "parseFloat"), ("Double", "valueOf"),
                                ("Float", "valueOf")})


def _class_name(bench: Benchmark, obj: Node | None) -> bool:
    """Is the receiver a class name (``ContentType``), not a variable or an object constant?"""
    return obj is not None and obj.type == "identifier" and bench.source.text(obj)[:1].isupper() \
        and bench.type_of(obj) is None and bench.field_of(obj) is None and not _object_constant(bench, obj)


def _feeds_other_work(bench: Benchmark, call: Node) -> bool:
    """Is the call's value handed on to other work that a constant does not fold: the
    receiver of a chained call that makes a new object (``Character.toString('t').repeat(32)``
    allocates and fills 32 characters each call), or, directly or through a local, an
    argument of a library call lint cannot see into or of a void project method
    (``list.add(temp)`` a million times)? Folding the call then removes the preparation of one
    input, not the measured work (heldout25's camel, heldout41's vudangngoc). Not when the value
    is returned, consumed or dropped: then the call is the measured work (JMHSample_10)."""
    def handed_on(value: Node) -> bool:
        outer = value.parent
        if outer is None:
            return False
        if outer.type == "method_invocation" and outer.child_by_field_name("object") == value:
            made = bench.call(outer).return_type
            return made is not None and made not in PRIMITIVES and made != "void"
        if outer.type == "argument_list" and outer.parent is not None \
                and outer.parent.type == "method_invocation":
            taker = bench.call(outer.parent)
            return taker.kind == "unknown" or taker.kind == "project" and taker.return_type == "void"
        return False

    if handed_on(call):
        return True
    outer = call.parent
    if outer is None or outer.type != "variable_declarator" or outer.child_by_field_name("value") != call:
        return False
    uses = _local_uses(bench, outer)
    return bool(uses) and all(handed_on(u) for u in uses)


def _result_used(bench: Benchmark, call: Node) -> bool:
    """Is the call's result returned or given to a Blackhole (the measured value)?"""
    outer = call.parent
    returned = outer is not None and outer.type == "return_statement"
    return returned or outer is not None and outer.type == "argument_list" and outer.parent is not None \
        and outer.parent.type == "method_invocation" and bench.call(outer.parent).kind == "blackhole"


def _document(text: str) -> bool:
    """Is a string constant's initializer a document rather than a short value: a text block
    or longer than 128 characters of source?"""
    return text.lstrip().startswith('"""') or len(text) > 128


def _inlining_controlled(method: MethodInfo | None) -> bool:
    """Is the project callee annotated ``@CompilerControl``? Under DONT_INLINE the constant
    cannot be folded into a body that is not inlined; under INLINE the author forces the
    inlining, so the folding it allows is what the benchmark measures (JMHSample_16)."""
    return method is not None and annotation(method.node, "CompilerControl") is not None


def _constant_construction(bench: Benchmark, node: Node) -> bool:
    """``new Tuple4(1, 2, 3, 4).hash31()``: a project object built from constants only
    (:func:`context.plain_construction`) whose method, taking no argument, computes a value
    from the object's own fields with neither loop, nor call, nor new object. Escape analysis
    replaces the object by its fields, which are then the constants, so C2 folds the whole
    call (JMHSample_10 through a constructor; MapDB's Tuple4Hash, heldout50)."""
    made = node.child_by_field_name("object")
    if made is None or made.type != "object_creation_expression":
        return False
    ctor_args = made.child_by_field_name("arguments").named_children
    if not ctor_args or not all(_constant_argument(bench, a) for a in ctor_args):
        return False
    call = bench.call(node)
    method, cls = call.method, bench.class_of(made)
    if call.kind not in ("pure", "project") or method is None or cls is None or method.void \
            or _inlining_controlled(method) or method.params:
        return False
    body = method.node.child_by_field_name("body")
    if body is None:
        return False
    for n in walk(body):
        if n.type in LOOPS or n.type in ("method_invocation", "object_creation_expression",
                                         "array_creation_expression", "array_access", "lambda_expression"):
            return False
        if n.type == "identifier" and n.parent.type != "field_access":
            name = method.source.text(n)
            info = cls.fields.get(name)
            if info is not None and info.static and not info.final:
                return False   # a static the benchmark may change between calls
    return True


def _recursive(bench: Benchmark, method: MethodInfo) -> bool:
    """Does the project ``method`` call itself (``ack(x - 1, ack(x, y - 1))``, ``fib(n - 1)``)?
    C2 inlines a recursive call only one level deep (MaxRecursiveInlineLevel=1), so a constant
    argument does not fold the recursion: the calls run."""
    body = method.node.child_by_field_name("body")
    name = method.name.encode()
    return body is not None and any(
        n.child_by_field_name("name").text == name
        and len(n.child_by_field_name("arguments").named_children) == len(method.params)
        for n in walk(body) if n.type == "method_invocation")


def _varargs(method: MethodInfo) -> bool:
    """Does ``method`` take varargs (``String... parts``: a new array on every call)?"""
    parameters = method.node.child_by_field_name("parameters")
    return parameters is not None and any(p.type == "spread_parameter" for p in parameters.named_children)


def _only_bounds(bench: Benchmark, method: MethodInfo, position: int) -> bool:
    """Does the project ``method`` use its parameter at ``position`` only where a constant
    folds no measured work: as a comparison bound, an array index, a loop bound, a mask or a
    size (as :func:`_is_input` judges reads in a benchmark)? ``fromIdentifier(37)`` checks the
    id against a range and loads ``TYPES[id]`` from a table on the heap: nothing folds (the
    rsocket lookups, heldout30). Lint run on a whole project reads such library methods."""
    found = parameter_uses(bench, method, position)
    return found is not None and bool(found[1]) and not any(_is_input(found[0], u) for u in found[1])


def _waits(bench: Benchmark, method: MethodInfo, depth: int) -> bool:
    """Does the project ``method``, or one it calls (a few levels), wait for other threads
    (``latch.await()``, ``thread.join()``) or take a lock?"""
    if "synchronized" in modifier_words(method.node):
        return True   # a synchronized method locks its receiver (or class) on every call
    ctx = callee_context(bench, method)
    if ctx is None or ctx.body is None:
        return False
    for node in walk(ctx.body):
        if node.type == "synchronized_statement":
            return True
        if node.type != "method_invocation":
            continue
        if ctx.source.text(node.child_by_field_name("name")) in WAITS:
            return True
        inner = ctx.call(node).method
        if inner is not None and inner.node.id != method.node.id and depth < 3 \
                and _waits(ctx, inner, depth + 1):
            return True
    return False


# Names of whole-number constants that say they size the work (the rubric: sizes and loop
# bounds are not folded inputs): N or a word ending in one of these, by Java's naming styles.
_SIZE_NAME = re.compile(r"(^|_)(N|SIZE|COUNT|LEN|LENGTH|ITERATIONS|ITERS|REPS|TIMES|DEPTH|CAPACITY|LIMIT)$"
                        r"|(^|_)NUM(_|$)|[a-z](Size|Count|Length|Iterations|Depth|Capacity)$")


# A CONSTANT_CASE name ending in a plural word counts things (TWO_CONCATS, MAX_RETRIES,
# NUM_ROWS): heldout39's ConcatString suite passes TWO_CONCATS ... LONG_CONCATS to a helper
# that loops that many times (16 wrong warnings). A data constant (TEST_INT, VALUE) is not one.
_COUNT_NAME = re.compile(r"^[A-Z0-9_]*_?[A-Z]{2,}[^S_]S$")


# JDK types whose objects hold state a call reads or changes (a generator's seed, a collection's
# elements, a buffer's position): a static final reference to one is no constant input.
_JDK_STATEFUL = re.compile(r"^(Random|SecureRandom|SplittableRandom|ThreadLocalRandom|Atomic\w*|Long(Adder|Accumulator)|"
                           r"\w*(List|Map|Set|Queue|Deque|Buffer|Builder|Stream|Channel|Lock|Executor\w*|Pool)|"
                           r"Object|String|Pattern|Matcher|Charset|MessageDigest|Cipher|Mac|Signature)$")


def _constant_receiver_call(bench: Benchmark, node: Node) -> Iterator[Issue]:
    """``math.add(left, right)`` where ``math`` is a static final object of the benchmark's
    class or state (built by a constructor or a factory) and every argument a static final
    primitive: HotSpot trusts static finals as constants once the class is initialised, so with
    the receiver's class and every input known the JIT can inline and fold the call (the
    class's own results match a baseline returning a constant: heldout54's final-method
    comparison; Koloboke's Scaler.by(...).scaleLower(intV)). Only for a result that is used, a
    receiver type that is not a stateful JDK type (a Random's seed, a collection's elements),
    arguments that are not sizes or counts by their names, and, where lint reads the callee, one
    returning a primitive without loop or new object."""
    obj = node.child_by_field_name("object")
    args = node.child_by_field_name("arguments").named_children
    if obj is None or obj.type not in ("identifier", "field_access") or not args or not _result_used(bench, node):
        return
    receiver = bench.field_of(obj)
    if receiver is None or not (receiver.static and receiver.final):
        return
    made = receiver.declarator.child_by_field_name("value")
    if made is None or made.type not in ("object_creation_expression", "method_invocation") \
            or _JDK_STATEFUL.match(last_name_of(receiver.type)):
        return
    for arg in args:
        info = bench.field_of(arg) if arg.type in ("identifier", "field_access") else None
        if info is None or not (info.static and info.final) or info.type not in _PRIMITIVES \
                or _SIZE_NAME.search(info.name) or _COUNT_NAME.search(info.name) \
                or info.declarator.child_by_field_name("value") is None:
            return
    method = bench.call(node).method
    if method is not None:
        body = method.node.child_by_field_name("body")
        if method.return_type not in _PRIMITIVES or body is None or _inlining_controlled(method) \
                or _recursive(bench, method) or any(
                    n.type in LOOPS or n.type in ("object_creation_expression", "array_creation_expression")
                    for n in walk(body)):
            return
    name = bench.source.text(node.child_by_field_name("name"))
    yield make_issue(bench.source, node, ID, "warning",
                     f"'{bench.source.text(obj)}' and every argument of {name}() are static finals in "
                     f"{bench.name}; HotSpot trusts static finals as constants, so the JIT can inline "
                     f"and fold the call", benchmark=bench.name,
                     hint="read the receiver and the arguments from non-final @State fields set in @Setup")


def _object_constant(bench: Benchmark, obj: Node) -> bool:
    """Is the receiver a constant holding an object (``UTF_8``, ``Holder.INSTANCE``) rather than
    a class name? A field of the project, a statically imported member, or a CONSTANT_CASE name
    with an underscore is an object: calling it runs that object's code (an encoder that
    allocates a buffer), which a constant argument does not fold away."""
    if obj.type not in ("identifier", "field_access"):
        return False
    name = bench.source.text(obj).rsplit(".", 1)[-1]
    if bench.field_of(obj) is not None:
        return True
    if any(imported.rsplit(".", 1)[-1] == name for imported in bench.file.static_imports):
        return True
    return name.isupper() and "_" in name


def _statement(bench: Benchmark, node: Node) -> Node:
    current = node
    while current.parent is not None and current.parent != bench.body \
            and not current.type.endswith("statement") and current.type != "local_variable_declaration":
        current = current.parent
    return current


def _constant(bench: Benchmark, node: Node, depth: int = 0) -> bool:
    """A compile-time constant: literals, operators, and names of constants (followed)."""
    if depth > 4:
        return False
    for current in walk(node):
        kind = current.type
        if kind in ("method_invocation", "object_creation_expression", "array_access"):
            return False
        if kind in ("identifier", "field_access") and (current.parent is None
                                                       or current.parent.type != "field_access"):
            name = bench.source.text(current).rsplit(".", 1)[-1]
            ref = bench.field_of(current)
            if ref is not None and ref.final:
                value = ref.declarator.child_by_field_name("value")
                if value is None or not _constant(bench, value, depth + 1):
                    return False
            elif not name.isupper():
                return False
    return True


def _drop_final(info: FieldInfo) -> tuple[Edit, ...]:
    modifiers = next((c for c in info.declaration.children if c.type == "modifiers"), None)
    keyword = next((c for c in modifiers.children if c.type == "final"), None) if modifiers else None
    if keyword is None:
        return ()
    data, end = info.source.data, keyword.end_byte
    while end < len(data) and data[end:end + 1] in (b" ", b"\t"):
        end += 1
    if end >= len(data) or data[end:end + 1] in (b"\n", b"\r"):
        end = keyword.end_byte  # keep line structure when 'final' ends a line
    return (Edit(keyword.start_byte, end, ""),)


# JDK constants of java.lang that HotSpot folds like literals (static final primitives of
# trusted classes): StrictMath.round(StrictMath.PI) has a constant input as round(3.14) has.
_JDK_CONSTANT = re.compile(r"(?:java\.lang\.)?(?:(?:Math|StrictMath)\.(?:PI|E|TAU)|(?:Integer|Long|Short|Byte"
                           r"|Character|Double|Float)\.(?:MAX_VALUE|MIN_VALUE|SIZE|BYTES|MIN_NORMAL"
                           r"|POSITIVE_INFINITY|NEGATIVE_INFINITY|NaN))")


def _literal(bench: Benchmark, arg: Node) -> Node | None:
    """The literal (or JDK constant) an argument is, through a unary sign, else None."""
    node = arg.named_children[0] if arg.type == "unary_expression" and arg.named_children else arg
    if node.type in _LITERALS or node.type == "field_access" and _JDK_CONSTANT.fullmatch(bench.source.text(node)):
        return node
    return None


def _constant_argument(bench: Benchmark, arg: Node) -> bool:
    """Is ``arg`` a literal, a JDK constant, or a project ``static final`` of a primitive or
    String type with a constant initializer (not a size, count or document)?"""
    if _literal(bench, arg) is not None:
        return True
    if arg.type not in ("identifier", "field_access"):
        return False
    info = bench.field_of(arg)
    if info is None or not (info.static and info.final and info.type in _CONSTANT_TYPES):
        return False
    value = info.declarator.child_by_field_name("value")
    return value is not None and _constant(bench, value) and not _SIZE_NAME.search(info.name) \
        and not _document(bench.source.text(value))


def _literal_argument(bench: Benchmark, node: Node) -> Iterator[Issue]:
    args = node.child_by_field_name("arguments").named_children
    if not args and _constant_construction(bench, node):
        made = node.child_by_field_name("object")
        name = bench.source.text(node.child_by_field_name("name"))
        yield make_issue(bench.source, made, ID, "warning",
                         f"{short(bench.source.text(made), 40)} is built from constants only and {name}() "
                         f"computes from its fields alone; the JIT can fold the call", benchmark=bench.name,
                         hint="pass the constructor non-final @State fields")
        return
    if args and _only_sizes(bench, node):
        return  # new byte[getIVSize("ChaCha20", "None")]: the call's value only sizes an array
        # (or bounds a loop, or indexes); folding it removes no measured work (heldout43)
    if args and _feeds_other_work(bench, node):
        return  # list.add(Integer.valueOf(0)) in a loop, Character.toString('t').repeat(32):
        # the folded call only prepares a value the measured work takes, with one constant or more
    if len(args) > 1:
        yield from _constant_arguments(bench, node, args)
        return
    if len(args) != 1:
        return
    arg = args[0]
    literal = _literal(bench, arg)
    if literal is None:
        return
    call = bench.call(node)
    obj = node.child_by_field_name("object")
    static = obj is None or bench.type_of(obj) is None  # Math.log(3.0), not text.charAt(0)
    if _inlining_controlled(call.method):
        return
    if literal.type in ("true", "false") and call.method is not None:
        return  # throwError(true): a flag choosing the callee's path, a knob rather than its data
    if call.method is not None and stored_only(bench, call.method, 0):
        return  # configuration: the callee only files the literal away (a field, a map, a builder)
    if call.method is not None and shapes_new_object(bench, call.method, 0):
        return  # a size or a mode of a new object the callee builds and returns: nothing to fold
    if call.method is not None and _stateful_source(bench, call.method):
        return  # next(1) returning r.nextInt(1) + size: a generator's state is an input too (heldout46)
    if call.method is not None and (_waits(bench, call.method, 0) or _recursive(bench, call.method)
                                    or _only_bounds(bench, call.method, 0)) \
            or call.kind == "project" \
            and call.method is not None and (not static or feeds_unseen_code(bench, call.method, 0)):
        # observer.finish(2): the receiver's state is an input too (as in _only_input), and a
        # callee that waits for other threads or takes a lock does work a constant cannot fold;
        # one that only hands the literal to a library call is that call's case (not reported)
        return
    if static and obj is not None and (bench.source.text(obj), bench.source.text(node.child_by_field_name("name"))) \
            in _ALLOCATING_PARSES:
        return
    library_string = literal.type == "string_literal" and call.kind == "unknown" \
        and _class_name(bench, obj) and (_PREDICATE.match(bench.source.text(node.child_by_field_name("name")))
                                         or _INT_PARSE.match(bench.source.text(node.child_by_field_name("name")))) \
        and _result_used(bench, node) and not _document(bench.source.text(literal))
    if (call.kind == "pure" and static) or library_string or \
            (call.kind == "project" and call.return_type not in (None, "void")):
        name = bench.source.text(node.child_by_field_name("name"))
        chars = _string_chars(bench, literal)
        if chars > _FOLDABLE_CHARS:
            yield make_issue(bench.source, arg, ID, "info",
                             f"constant {short(bench.source.text(arg), 40)} ({chars} characters) is the only "
                             f"argument of {name}(); {_UNROLL_NOTE}", benchmark=bench.name,
                             hint="read the argument from a non-final @State field")
            return
        yield make_issue(bench.source, arg, ID, "warning",
                         f"constant {bench.source.text(arg)} is the only argument of {name}(); "
                         f"the JIT can fold the call", benchmark=bench.name,
                         hint="read the argument from a non-final @State field")


def _constant_arguments(bench: Benchmark, node: Node, args: list[Node]) -> Iterator[Issue]:
    """Every argument of a call is a constant (``Math.pow(2.0, 10)``, ``fromBytes(0x01, 0x02)``,
    ``score(MIN, MAX)``): as for one literal, the call's whole input is known to the JIT. Only
    a static pure JDK call, or a project method that returns a value and that lint can read;
    not when the callee only stores or sizes with one of them, waits, is called on an object,
    or hands an argument on to code lint cannot see."""
    if not all(_constant_argument(bench, a) for a in args):
        return
    call = bench.call(node)
    obj = node.child_by_field_name("object")
    static = obj is None or bench.type_of(obj) is None
    if not static or call.kind not in ("pure", "project") or _inlining_controlled(call.method):
        return
    method = call.method
    if call.kind == "project" and method is None:
        return
    if method is None and call.return_type not in (None, *_PRIMITIVES):
        return  # String.join(",", "a"), String.valueOf(...): a new string or array is built, not folded
    if method is not None:  # a project method (lint reads some as pure): as for one literal
        if call.return_type in (None, "void") or _waits(bench, method, 0) \
                or _recursive(bench, method) or (obj is not None and _object_constant(bench, obj)):
            return
        body = method.node.child_by_field_name("body")
        if body is None or any(n.type in LOOPS or n.type in ("object_creation_expression", "array_creation_expression")
                               for n in walk(body)) or _varargs(method) \
                or all(_only_bounds(bench, method, i) for i in range(len(args))):
            return  # a loop (generateInput(500000, true, 0)), a new object or array (varargs), or
            # constants that only bound or index: work a constant does not fold
        if any(stored_only(bench, method, i) or shapes_new_object(bench, method, i)
               or feeds_unseen_code(bench, method, i) for i in range(len(args))):
            return
    name = bench.source.text(node.child_by_field_name("name"))
    chars = sum(_string_chars(bench, a) for a in args)
    if chars > _FOLDABLE_CHARS:
        return
    shown = short(bench.source.text(node.child_by_field_name("arguments")), 40)
    yield make_issue(bench.source, node, ID, "warning",
                     f"every argument of {name}{shown} is a constant; the JIT can fold the call",
                     benchmark=bench.name, hint="read the arguments from non-final @State fields")
