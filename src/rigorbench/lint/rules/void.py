"""VOID: a ``void`` benchmark that only drops the values of the methods it calls.

JMHSample_08_DeadCode and JMHSample_09_Blackholes: nothing a ``void`` benchmark without a
Blackhole computes can be observed, so when it only calls methods for their results the
JIT may remove the calls. Division of labour with RETU (documented choice): RETU reports
discarded calls of *pure JDK* methods and unconsumed locals; VOID reports only expression
statements that drop the result of a *project* method or of a *read-only library accessor*,
and only when

* the benchmark is ``void`` and has no ``Blackhole`` parameter,
* the called project method returns a value and writes no field in its own body
  (assignments to ``this.x``/``x`` where ``x`` is not one of its locals), and, for the call
  whose result is dropped, has no effect followed into its own calls (:func:`effect_of`: no
  unknown library call such as ``binding.setVariable``, no abstract method, no lock), or the call is a
  listed read-only accessor (``pure.READ_ONLY``: ``buffer.getByte(i)``, ``list.get(i)``,
  ``map.containsKey(k)``, a buffer's ``slice()``) on a receiver whose declared type resolves,
  through the file's imports, to the listed JDK or library type and not to a project class, or
  a listed static factory that only wraps its arguments (``ByteBuffer.wrap(bytes)``), or a call lint
  cannot resolve whose name says it only answers a question (``pure.query_name``:
  ``StringUtil.isEmpty(s)``, ``node.hasSlot(i)``; not ``hasNext``, ``isValid``, ``isDone``)
  on a receiver and with arguments that are names, fields or literals,
* nothing else in the benchmark body escapes: no field writes, no ``throw``, no calls other
  than pure JDK calls, draws from a JDK pseudo-random generator (:func:`random_draw`: a key
  drawn with ``ThreadLocalRandom.current().nextInt(n)``) and such calls, no object built but one
  that is only the receiver of
  such a call and whose project class only stores its arguments in its own fields
  (``new Tuple4(1, 2, 3, 4).hash31()``: :func:`context.plain_construction`). Any other unknown call (a library method neither
  listed nor named as a question) is taken to have effects, so it silences the rule:
  precision first.

So RETU and VOID never report the same statement. Fix: ``compute(x);`` becomes
``bh.consume(compute(x));`` with a Blackhole parameter added when missing.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Issue, demoted, make_issue, short
from rigorbench.lint.context import Benchmark, FileContext, plain_construction
from rigorbench.lint.fix import blackhole, wrap
from rigorbench.lint.index import MethodInfo
from rigorbench.lint.parse import SourceFile, annotation, modifier_words, walk, written
from rigorbench.lint.pure import NOT_QUERIES, query_name, read_only_call, read_only_type, value_name
from rigorbench.lint.rules.config import interpreted
from rigorbench.lint.stores import callee_context

ID = "VOID"
TITLE = "a void benchmark drops the results of the methods it measures; nothing escapes"
REFERENCE = "JMHSample_08_DeadCode, JMHSample_09_Blackholes"
EXPLANATION = """\
What goes wrong: the benchmark is void, takes no Blackhole, and only calls project methods
that return a value, read-only accessors of JDK or library types (ByteBuffer.get(i),
List.get(i), buffer.slice(), ByteBuffer.wrap(bytes), okio Buffer.indexOf), methods of code
lint cannot see whose names ask a question (StringUtil.isEmpty(s), node.hasSlot(i)), or static
methods of code lint cannot see whose names say they compute a value from one input
(AsciiUtil.encode(s), MatrixOps.elementMax(a), Utils.getBytes(s)), dropping each result.
Nothing the method computes is observable. A key drawn from ThreadLocalRandom or a
java.util.Random changes nothing but the generator's seed, so a lookup at it is still
dropped work. The same holds for a method called on an object
built in the statement (new Tuple(a, b).hash()) when the project class's constructor only
stores its arguments in its own fields: the object never escapes, and escape analysis leaves
nothing of it.

Why the JIT does it: after inlining compute(x), C2 sees that its result goes nowhere and
that it changes no state, so it can delete the computation (dead-code elimination). The
benchmark then measures an empty method. (A deep library call, a whole protobuf parse, is
rarely removed as a whole; its dropped result still lets the JIT cut part of it, so return it.)

How to fix: return the result, or take a Blackhole parameter and consume each result.
(Dropped results of pure JDK calls such as Math.log are reported by RETU instead.) A call
of a library method rigorbench does not know, by a name that neither asks a question nor says
it computes (or one that waits or talks to the outside: hasNext, isValid, isDone; one that
starts with an action: writeUtf8, putLong; an instance call, which may change its receiver; a
static call given a second variable, which may be an output), is taken to have effects, and
then nothing is reported; so is a project method that, followed into the methods it calls, writes a field,
calls such a library method (a script engine's bind and run), takes a lock (a synchronized
block, or is itself declared synchronized), reads a volatile
field or reaches an abstract method: it does work besides its result, which the JIT must keep.
(An optional output the call passes null is not written; every overload of the arity called
is read.) Nor a project
method annotated @CompilerControl(DONT_INLINE): compiled as a call, it is not removed. Where
the class measures the JIT itself (a compiler or jit package), a dropped result may be the
experiment: info.

In SingleShotTime with fewer than 200 calls per fork (JMH's defaults there: no warmup, one
measurement) and no loop in the benchmark, the method never reaches HotSpot's first compile
threshold: the interpreter removes nothing, so the finding is info.

Before:
    @Benchmark public void measure() { compute(x); }

After:
    @Benchmark public void measure(Blackhole bh) { bh.consume(compute(x)); }
"""

_WRITES = frozenset({"assignment_expression", "update_expression"})
_DEPTH = 3   # project calls followed inside a dropped call before lint gives up (an effect)


def check(ctx: FileContext) -> Iterator[Issue]:
    for bench in ctx.benchmarks:
        if not bench.void or bench.blackhole is not None or bench.body is None:
            continue
        dropped = dropped_calls(bench)
        if not dropped:
            continue
        cold = interpreted(ctx, bench)
        for stmt in dropped:
            bh, extra = blackhole(bench)
            call = stmt.named_children[0]
            library = read_only_accessor(bench, call)
            what = f", a read-only {library} accessor," if library else ""
            receiver = call.child_by_field_name("object")
            if library and library.endswith("." + bench.source.text(receiver)):
                what = f", a {library} factory with no effect,"
            unseen = bench.call(call).method is None   # a whole project shows some of these bodies
            if not library and unseen and unseen_query(bench, call):
                what = ", a query by its name in code lint cannot see into,"
            elif not library and unseen and unseen_value(bench, call):
                what = ", a static computation by its name in code lint cannot see into,"
            issue = make_issue(bench.source, stmt, ID, "warning",
                               f"void {bench.name} drops the result of {short(bench.source.text(call), 40)}"
                               f"{what} and nothing escapes; the JIT may remove the call",
                               benchmark=bench.name, edits=wrap(call, f"{bh}.consume(", ")") + extra,
                               hint="return the result or pass it to Blackhole.consume")
            yield demoted(issue, cold) if cold else issue


def dropped_calls(bench: Benchmark) -> list[Node]:
    """Expression statements dropping project results, or [] when anything escapes."""
    dropped = []
    if any(bench.own(kind) for kind in ("throw_statement", "lambda_expression", "method_reference",
                                        "synchronized_statement")):
        return []
    if not all(_value_receiver(bench, n) for n in bench.own("object_creation_expression")):
        return []
    if any(_writes_field(bench, n) for kind in _WRITES for n in bench.own(kind)):
        return []
    for node in bench.own("method_invocation"):
        if node.parent.type != "expression_statement" and random_draw(bench, node):
            continue   # ThreadLocalRandom.current().nextInt(n): an input; its seed keeps no dropped call alive
        call = bench.call(node)
        if call.kind == "pure" and call.method is None:
            continue
        if call.kind == "unknown" and read_only_accessor(bench, node):
            pass
        elif call.kind == "unknown" and node.parent.type == "expression_statement" and \
                (unseen_query(bench, node) or unseen_value(bench, node)):
            pass
        elif call.method is None or call.method.void or not _no_field_writes(bench, call.method):
            return []
        if node.parent.type == "expression_statement":
            receiver = node.child_by_field_name("object")
            named = (value_name(call.name) or query_name(call.name)) and receiver is not None \
                and bench.source.text(receiver).rsplit(".", 1)[-1][:1].isupper() and bench.type_of(receiver) is None
            if call.method is not None and effect_of(bench, call.method, nulls=null_parameters(bench, call.method, node),
                                                     named=named):
                return []   # the dropped call does something besides computing its result
            dropped.append(node.parent)
    return dropped


_GENERATORS = frozenset({"Random", "ThreadLocalRandom", "SplittableRandom"})


def random_draw(bench: Benchmark, node: Node) -> bool:
    """Is ``node`` a draw from a JDK pseudo-random generator (``ThreadLocalRandom.current()``,
    its ``nextInt(0, n)``, a ``Random`` field's ``nextLong()``)? Its only effect is on the
    generator's own seed, which makes nothing else the benchmark drops observable (a lookup at
    a random key: heldout50's fastutil map benchmark). SecureRandom is not one: it may block
    and lock."""
    name = bench.source.text(node.child_by_field_name("name"))
    obj = node.child_by_field_name("object")
    if obj is None:
        return False
    if name == "current":
        return bench.source.text(obj).rsplit(".", 1)[-1] == "ThreadLocalRandom"
    if not name.startswith("next"):
        return False
    if obj.type == "method_invocation":
        return random_draw(bench, obj)
    declared = bench.type_of(obj) if obj.type in ("identifier", "field_access") else None
    return declared is not None and declared.split("<", 1)[0].strip().rsplit(".", 1)[-1] in _GENERATORS


def _value_receiver(bench: Benchmark, made: Node) -> bool:
    """Is ``new Tuple4(1, 2, 3, 4)`` only the receiver of a call (``.hash31()``), of a project
    class whose constructor only stores values (:func:`context.plain_construction`)? The object
    then never escapes, and escape analysis leaves nothing of it but its fields."""
    parent = made.parent
    if parent is None or parent.type != "method_invocation" or parent.child_by_field_name("object") != made:
        return False
    cls = bench.class_of(made)
    return cls is not None and plain_construction(cls, len(made.child_by_field_name("arguments").named_children))


def null_parameters(bench: Benchmark, method: MethodInfo, call: Node,
                    nulls: frozenset[str] = frozenset()) -> frozenset[str]:
    """The names of ``method``'s parameters that ``call`` passes ``null`` (a literal, or a
    parameter of the caller that is itself null here): ``elementMax(a)`` delegating to
    ``elementMax(a, null)``, whose optional output ``loc`` is then never written."""
    args = call.child_by_field_name("arguments").named_children
    if len(args) != len(method.params):
        return frozenset()
    return frozenset(name for (_, name), arg in zip(method.params, args)
                     if arg.type == "null_literal" or arg.type == "identifier" and bench.source.text(arg) in nulls)


def effect_of(bench: Benchmark, method: MethodInfo, depth: int = 0,
              seen: frozenset[int] = frozenset(), nulls: frozenset[str] = frozenset(),
              named: bool = False) -> str | None:
    """What the project ``method`` does besides computing its result, or None when its body,
    followed into the project methods it calls, shows nothing else.

    A field write is an effect, and so is a call of a library method lint does not know
    (``binding.setVariable(k, v)``, ``script.run()``: the rule's own premise, an unknown call
    has effects), an abstract or interface method (its code is not visible), a lock (a
    ``synchronized`` block or method), or a project call deeper than a few levels. Pure JDK
    calls and listed read-only accessors are not effects,
    nor is a recursive call (``fib(n - 1)``): its body is the one being read.
    Dropping the result of a call with an effect removes only the dead part of its work, so
    the benchmark is not measuring nothing; VOID stays silent on it (precision first).
    ``nulls`` are the parameters the call passes ``null``: a write or a call through one of
    them (``loc.row = i``, an optional output) can only run behind a null check, so it is none.
    ``named``: the dropped call is static, on a class name, and its own name says it computes or
    asks (``CommonOps.elementMax(a)``, as :func:`unseen_value` reads one it cannot see); then a call
    inside it that lint cannot resolve (an interface's ``a.get(i)``, ``a.getNumElements()``) is
    read by its name as VOID reads such a call at the top (:func:`pure.value_name`,
    :func:`pure.query_name`): a getter or a question is no effect, an action still is. Lint run
    on a whole project sees these bodies, where a tree of benchmarks alone sees none."""
    ctx = callee_context(bench, method)
    if ctx is None or ctx.body is None:
        return f"{method.name}() has no body lint can see"
    if out_of_line(method, ctx.source):
        return f"{method.name}() is not inlined (@CompilerControl DONT_INLINE)"
    if not _no_field_writes(bench, method, nulls):
        return f"{method.name}() writes a field"
    if "synchronized" in modifier_words(method.node):
        # a synchronized method locks its receiver (or class) on every call, as a
        # synchronized block does below: the JIT keeps the monitor enter and exit
        return f"{method.name}() is synchronized"
    for node in walk(ctx.body):
        if node.type == "synchronized_statement":
            return f"{method.name}() takes a lock"
        if node.type in ("identifier", "field_access") and _volatile(ctx, node):
            return f"{method.name}() reads a volatile field"   # an acquire the JIT keeps
        if node.type != "method_invocation":
            continue
        call = ctx.call(node)
        if call.kind == "pure" and call.method is None or \
                call.kind == "unknown" and read_only_accessor(ctx, node) or _through(ctx, node, nulls):
            continue
        if call.method is None and named and (value_name(call.name) or query_name(call.name)) \
                and call.name not in NOT_QUERIES:
            continue
        if call.method is None or depth >= _DEPTH:
            return f"{method.name}() calls {call.name}()"
        for overload in _overloads(ctx, call.method):   # lint picks an overload by arity only
            if overload.node.id in seen | {method.node.id}:
                continue
            inner = effect_of(ctx, overload, depth + 1, seen | {method.node.id},
                              null_parameters(ctx, overload, node, nulls), named)
            if inner:
                return inner
    return None


def _volatile(ctx: Benchmark, node: Node) -> bool:
    """Does ``node`` read (or write) a ``volatile`` field of the project?"""
    parent = node.parent
    if node.type == "identifier" and parent is not None and node in (
            parent.child_by_field_name("field"), parent.child_by_field_name("name")):
        return False   # judged as the whole field access; a method's name is no field
    info = ctx.field_of(node)
    return info is not None and "volatile" in modifier_words(info.declaration)


def _overloads(ctx: Benchmark, method: MethodInfo) -> list[MethodInfo]:
    """``method`` and the other methods of its class with its name and arity: lint resolves a
    call by name and argument count, so any of them may be the one called (``write(bytes)``
    delegating to ``write(ByteBuffer.wrap(bytes))``, which writes)."""
    owner = ctx.index.owner_of(method)
    found = [m for m in (owner.methods.get(method.name, []) if owner is not None else [])
             if len(m.params) == len(method.params)]
    return found or [method]


def out_of_line(method: MethodInfo | None, source: SourceFile) -> bool:
    """Is the project ``method`` annotated ``@CompilerControl(DONT_INLINE)``? JMH then has the
    JIT compile each call as a call, which does not see that the result is unused, so it
    cannot remove the call (jvm-performance-benchmarks, heldout29): neither VOID nor RETU
    reports a dropped result of it."""
    control = annotation(method.node, "CompilerControl") if method is not None else None
    return control is not None and "DONT_INLINE" in source.text(control)


def read_only_accessor(bench: Benchmark, node: Node) -> str | None:
    """The qualified receiver type when ``node`` calls a listed read-only accessor on it
    (``pure.READ_ONLY``), else None. The receiver's declared type must resolve through the
    file's imports and name no project class (a project ``Buffer`` is not okio's)."""
    obj = node.child_by_field_name("object")
    if obj is None or obj.type not in ("identifier", "field_access", "method_invocation"):
        return None
    name = bench.source.text(node.child_by_field_name("name"))
    nargs = len(node.child_by_field_name("arguments").named_children)
    if obj.type == "method_invocation":   # lists.get(a).get(b): the element type of a read
        declared = _element_type(bench, obj)
        if declared is None:
            return None
        qualified = read_only_type(declared, bench.file.imports)
        return qualified if qualified and read_only_call(qualified, name, nargs) else None
    static = bench.type_of(obj) is None and obj.type == "identifier"   # ByteBuffer.wrap(bytes): a type name
    qualified = listed_receiver(bench, obj)
    return qualified if qualified and read_only_call(qualified, name, nargs, static) else None


def listed_receiver(bench: Benchmark, obj: Node) -> str | None:
    """The qualified ``pure.READ_ONLY`` type a receiver (a variable, a field, or a class name for
    a static call) is declared as, through the imports of the file that declares it; None when
    it is not listed or names a project class (a project ``Buffer`` is not okio's)."""
    if obj.type not in ("identifier", "field_access"):
        return None
    declared = bench.type_of(obj)
    static = declared is None and obj.type == "identifier"
    if static:
        declared = bench.source.text(obj)
    if not declared or bench.index.lookup(declared.split("<", 1)[0], bench.cls) is not None:
        return None
    field = None if static else bench.field_of(obj)
    return read_only_type(declared, _imports_of(bench, field.source if field else bench.source))


def unseen_query(bench: Benchmark, node: Node) -> bool:
    """Is ``node`` a call lint cannot resolve whose name says it only answers a question
    (:func:`pure.query_name`) and whose receiver, if any, is a name or a field, not a call
    or a new object (whose making may be the work)? Its arguments must be names, fields or
    literals: a nested call may have effects of its own."""
    obj = node.child_by_field_name("object")
    if obj is not None and obj.type not in ("identifier", "field_access", "scoped_identifier"):
        return False
    arguments = node.child_by_field_name("arguments").named_children
    if any(a.type not in ("identifier", "field_access") and not a.type.endswith("literal") for a in arguments):
        return False
    return query_name(bench.source.text(node.child_by_field_name("name")))


_ELEMENT_READS = {"get": -1, "getOrDefault": -1, "peek": -1, "first": -1, "last": -1}


def _element_type(bench: Benchmark, node: Node) -> str | None:
    """The declared element type a read-only ``get`` returns, when ``node`` is such a read on a
    receiver declared with type arguments in this file (``Map<K, Map<K2, List<V>>> m``:
    ``m.get(k)`` is ``Map<K2, List<V>>``), followed through chains; None otherwise. Only the
    last type argument is taken (a map's value, a list's element)."""
    if read_only_accessor(bench, node) is None:
        return None
    method = bench.source.text(node.child_by_field_name("name"))
    obj = node.child_by_field_name("object")
    if method not in _ELEMENT_READS or obj is None:
        return None
    declared = _element_type(bench, obj) if obj.type == "method_invocation" else bench.type_of(obj)
    arguments = _type_arguments(declared or "")
    return arguments[_ELEMENT_READS[method]] if arguments else None


def _type_arguments(text: str) -> list[str]:
    """The top-level type arguments of ``Map<K, Map<A, B>>``: ``["K", "Map<A, B>"]``."""
    start, end = text.find("<"), text.rfind(">")
    if start < 0 or end < start:
        return []
    found, depth, current = [], 0, ""
    for ch in text[start + 1:end]:
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "," and depth == 0:
            found.append(current.strip())
            current = ""
        else:
            current += ch
    return [*found, current.strip()] if current.strip() else found


def unseen_value(bench: Benchmark, node: Node) -> bool:
    """Is ``node`` a static call, on a class lint cannot see into, whose name says it computes
    and returns a value (:func:`pure.value_name`: ``AsciiStringUtil.unsafeEncode(s)``,
    ``CommonOps_DDRM.elementMaxAbs(a)``)? The receiver must be a type name (capitalised, not a
    local or field): an instance call may change its receiver. Its arguments must be literals
    and at most one name or field: a second one may be an output the call writes into
    (``CommonOps.sumRows(a, out)``)."""
    obj = node.child_by_field_name("object")
    if obj is None or obj.type not in ("identifier", "scoped_identifier", "field_access"):
        return False
    last = bench.source.text(obj).rsplit(".", 1)[-1]
    if not last[:1].isupper() or last.isupper() or bench.type_of(obj) is not None \
            or (obj.type == "identifier" and last in bench.locals):
        return False
    names = variable_arguments(node)
    if len(names) > 1 or any(a.type not in ("identifier", "field_access") for a in names):
        return False
    return value_name(bench.source.text(node.child_by_field_name("name")))


def variable_arguments(call: Node) -> list[Node]:
    """The arguments of ``call`` that are not literals (names, fields, expressions)."""
    return [a for a in call.child_by_field_name("arguments").named_children if not a.type.endswith("literal")]


def _imports_of(bench: Benchmark, source: SourceFile) -> tuple[str, ...]:
    """The imports of the file that declares the receiver (a state class in another file)."""
    if source is bench.source:
        return bench.file.imports
    return next((f.imports for f in bench.index.files if f.source is source), ())


def _target(node: Node) -> Node:
    target = written(node)
    while target.type in ("array_access", "parenthesized_expression"):
        target = target.child_by_field_name("array") or target.named_children[0]
    return target


def _writes_field(bench: Benchmark, node: Node) -> bool:
    target = _target(node)
    return not (target.type == "identifier" and bench.source.text(target) in bench.locals)


def _through(ctx: Benchmark, node: Node, nulls: frozenset[str]) -> bool:
    """Is ``node`` (a call, a write's target) reached through a parameter passed null?"""
    obj = node.child_by_field_name("object")
    return obj is not None and obj.type == "identifier" and ctx.source.text(obj) in nulls


def _no_field_writes(bench: Benchmark, method: MethodInfo, nulls: frozenset[str] = frozenset()) -> bool:
    owner = bench.index.lookup(method.owner, bench.cls)
    text = owner.source.text if owner is not None else None
    if text is None:
        return False
    declared = {name for _, name in method.params}
    writes = []
    for node in walk(method.node):
        if node.type == "variable_declarator":
            declared.add(text(node.child_by_field_name("name")))
        elif node.type in _WRITES:
            writes.append(_target(node))
    return all(t.type == "identifier" and text(t) in declared
               or t.type == "field_access" and t.child_by_field_name("object").type == "identifier"
               and text(t.child_by_field_name("object")) in nulls for t in writes)
