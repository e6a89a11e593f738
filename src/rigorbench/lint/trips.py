"""How long a loop in a benchmark runs, from what the source shows: trips times a cost class.

INVO asks whether one benchmark call takes well under 1 ms (JMH's ``Level.Invocation``
javadoc: below that, the fixture's two timestamps per call matter). "The body has a loop" is
weak evidence of a long call: a decoder reading 10,000 primitives or a loop over 16,384 varints
takes tens of microseconds. So a loop is judged by

* its trip count, when the source fixes it: a literal or constant bound, a ``@Param`` (its
  largest value), a ``final`` field, a getter returning such a field, or the length of an array
  whose every creation in its class (``new int[N]``, an initializer list) has a known size;
  ``for (i = a; i < b; i += k)`` and ``for (x : array)`` are read, other loops are unknown;
* the cost class of one iteration: *cheap* (nanoseconds) when the iteration creates no object,
  runs no nested loop, no lambda and no lock, and calls only pure JDK methods, ``Blackhole``,
  read-only accessors (:data:`rigorbench.lint.pure.READ_ONLY`), ``java.nio`` buffer
  operations, calls that read or write one primitive value (``readFloat``, ``writeLong``,
  ``writeUnsignedVarint``: a codec step), or project methods that are cheap by the same test;
  anything else (an unknown library call, an allocation) is not classed.

A cheap iteration is taken as :data:`CHEAP_ITERATION_NS` nanoseconds, a generous figure for a
few inlined reads and writes, so ``trips * CHEAP_ITERATION_NS`` over-estimates the call. An
unknown trip count or an unclassed iteration gives no estimate: the caller keeps its old view
(a loop may be long). Nothing here is measured; the estimate is said in the finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from rigorbench.lint.context import Benchmark, method_context
from rigorbench.lint.index import ClassInfo, FieldInfo, MethodInfo
from rigorbench.lint.parse import LOOPS, annotation, int_literal, walk, written
from rigorbench.lint.pure import read_only_call, read_only_type

CHEAP_ITERATION_NS = 10
MILLISECOND_NS = 1_000_000
_DEPTH = 3
# One primitive value read or written: a codec step (Avro's Decoder.readFloat, a varint writer,
# DataInput.readLong, ByteBuffer.getInt).
_CODEC = re.compile(r"^(read|write|get|put)(Unsigned)?(Boolean|Byte|Short|Char|Int|Integer|Long|Float"
                    r"|Double|Varint|Varlong|VarInt|VarLong)(LE|BE)?$")
_NIO_BUFFERS = frozenset({"java.nio.ByteBuffer", "java.nio.CharBuffer", "java.nio.ShortBuffer",
                          "java.nio.IntBuffer", "java.nio.LongBuffer", "java.nio.FloatBuffer",
                          "java.nio.DoubleBuffer"})
_NIO_OPS = frozenset({"get", "put", "flip", "clear", "rewind", "mark", "reset", "position",
                      "limit", "remaining", "hasRemaining", "compact", "order"})
_NOT_CHEAP = frozenset({"object_creation_expression", "array_creation_expression",
                        "lambda_expression", "method_reference", "synchronized_statement",
                        "class_body", *LOOPS})
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "/": lambda a, b: a // b if b else None, "<<": lambda a, b: a << b if 0 <= b < 63 else None}


@dataclass(frozen=True)
class LoopEstimate:
    """A loop's known trip count, where it comes from, and whether one iteration is cheap."""

    trips: int
    origin: str
    cheap: bool

    @property
    def nanos(self) -> int | None:
        return self.trips * CHEAP_ITERATION_NS if self.cheap else None

    def describe(self) -> str:
        """``loops 16,384 times (the length of 'randomInts', new int[DATA_SET_SAMPLE_SIZE])``
        with the time a cheap iteration gives."""
        text = f"loops {self.trips:,} times ({self.origin})"
        if self.nanos is None:
            return text
        return f"{text} over nanosecond-scale work: about {_duration(self.nanos)} at ~{CHEAP_ITERATION_NS} ns an iteration"


def _duration(nanos: int) -> str:
    if nanos >= MILLISECOND_NS:
        return f"{nanos / MILLISECOND_NS:.3g} ms"
    if nanos >= 1000:
        return f"{nanos / 1000:.3g} us"
    return f"{nanos} ns"


def estimate(bench: Benchmark, loop: Node) -> LoopEstimate | None:
    """The estimate for ``loop`` (a node of ``bench``'s body), or None when its trip count is
    not visible."""
    found = _trips(bench, loop)
    if found is None:
        return None
    trips, origin = found
    body = loop.child_by_field_name("body")
    cheap = body is not None and _cheap(bench, body, 0) and _header_cheap(bench, loop)
    return LoopEstimate(max(trips, 0), origin, cheap)


# ---- trip counts ---------------------------------------------------------------------------

def _trips(bench: Benchmark, loop: Node) -> tuple[int, str] | None:
    if loop.type == "enhanced_for_statement":
        return _array_length(bench, loop.child_by_field_name("value"), 0)
    if loop.type != "for_statement":
        return None
    condition = loop.child_by_field_name("condition")
    if condition is None or condition.type != "binary_expression":
        return None
    op = bench.source.text(condition.child_by_field_name("operator"))
    left, right = condition.child_by_field_name("left"), condition.child_by_field_name("right")
    if left.type != "identifier":    # ``n > i`` reads as ``i < n``
        left, right = right, left
        op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
    if left.type != "identifier":
        return None
    var = bench.source.text(left)
    start = _loop_start(bench, loop, var)
    step = _loop_step(bench, loop, var)
    bound = _value(bench, right, 0)
    if start is None or step is None or bound is None:
        return None
    (first, _), (last, origin) = start, bound
    if op in ("<", "!=") and step > 0:
        trips = -(-(last - first) // step)
    elif op == "<=" and step > 0:
        trips = (last - first) // step + 1
    elif op == ">" and step < 0:
        trips = -(-(first - last) // -step)
    elif op == ">=" and step < 0:
        trips = (first - last) // -step + 1
    else:
        return None
    return trips, origin if abs(step) == 1 else f"{origin}, in steps of {abs(step)}"


def _loop_start(bench: Benchmark, loop: Node, var: str) -> tuple[int, str] | None:
    for init in loop.children_by_field_name("init"):
        for decl in init.children_by_field_name("declarator") if init.type == "local_variable_declaration" else ():
            if bench.source.text(decl.child_by_field_name("name")) == var:
                return _value(bench, decl.child_by_field_name("value"), 0)
        if init.type == "assignment_expression" and bench.source.text(written(init)) == var:
            return _value(bench, init.child_by_field_name("right"), 0)
    return None


def _loop_step(bench: Benchmark, loop: Node, var: str) -> int | None:
    updates = loop.children_by_field_name("update")
    if len(updates) != 1:
        return None
    update, text = updates[0], bench.source.text(updates[0]).replace(" ", "")
    if text in (f"{var}++", f"++{var}"):
        return 1
    if text in (f"{var}--", f"--{var}"):
        return -1
    if update.type == "assignment_expression" and bench.source.text(written(update)) == var:
        op = bench.source.text(update.child_by_field_name("operator"))
        amount = _value(bench, update.child_by_field_name("right"), 0)
        if amount is not None and amount[0] > 0 and op in ("+=", "-="):
            return amount[0] if op == "+=" else -amount[0]
    return None


def _value(ctx: Benchmark, node: Node | None, depth: int) -> tuple[int, str] | None:
    """An int expression's value where the source fixes it, with a word on where from."""
    if node is None or depth > _DEPTH:
        return None
    literal = int_literal(node)
    if literal is not None:
        return literal, f"the bound {literal:,}"
    kind, text = node.type, ctx.source.text(node)
    if kind == "parenthesized_expression":
        return _value(ctx, node.named_children[0], depth)
    if kind == "binary_expression":
        op = ctx.source.text(node.child_by_field_name("operator"))
        a = _value(ctx, node.child_by_field_name("left"), depth + 1)
        b = _value(ctx, node.child_by_field_name("right"), depth + 1)
        result = _ARITH[op](a[0], b[0]) if a and b and op in _ARITH else None
        return (result, f"{text} = {result:,}") if result is not None else None
    if kind == "field_access" and ctx.source.text(node.child_by_field_name("field")) == "length":
        return _array_length(ctx, node.child_by_field_name("object"), depth + 1)
    if kind == "identifier" and text in ctx.locals:
        return _local_value(ctx, text, depth)
    if kind in ("identifier", "field_access"):
        info = ctx.field_of(node) or _static_field(ctx, node)
        return _field_value(ctx, info, depth) if info is not None else None
    if kind == "method_invocation":
        returned = _getter_return(ctx, node)
        return _value(returned[0], returned[1], depth + 1) if returned else None
    return None


def _local_value(ctx: Benchmark, name: str, depth: int) -> tuple[int, str] | None:
    """A local's value when it is declared once with an initializer and never assigned."""
    if any(ctx.source.text(written(n)) == name for kind in ("assignment_expression", "update_expression")
           for n in ctx.own(kind)):
        return None
    # Declarators are not indexed on their own (parse.INDEXED_TYPES): reach them through
    # their declarations. A name with no declarator here is a parameter: no value.
    for declaration in ctx.own("local_variable_declaration"):
        for decl in declaration.children_by_field_name("declarator"):
            if ctx.source.text(decl.child_by_field_name("name")) == name:
                value = decl.child_by_field_name("value")
                return _value(ctx, value, depth + 1) if value is not None else None
    return None


def _static_field(ctx: Benchmark, node: Node) -> FieldInfo | None:
    """``Outer.SIZE``, or ``SIZE`` declared in a class enclosing ``ctx``'s class."""
    if node.type == "field_access":
        obj = node.child_by_field_name("object")
        owner = ctx.index.lookup(ctx.source.text(obj), ctx.cls) if obj.type == "identifier" else None
        return ctx.index.field(owner, ctx.source.text(node.child_by_field_name("field"))) if owner else None
    name = ctx.source.text(node)
    for outer in _enclosing(ctx):
        info = ctx.index.field(outer, name)
        if info is not None:
            return info
    return None


def _enclosing(ctx: Benchmark) -> list[ClassInfo]:
    parts = ctx.cls.qualified.split(".")
    found = []
    for end in range(len(parts) - 1, 0, -1):
        outer = ctx.index.qualified.get(".".join(parts[:end]))
        if outer is not None:
            found.append(outer)
    return found


def _owner_context(ctx: Benchmark, owner: str, node: Node) -> Benchmark | None:
    """A context for code of class ``owner`` (``node`` is one of its methods or fields)."""
    cls = ctx.index.qualified.get(owner)
    if cls is None:
        return None
    file = next((f for f in ctx.index.files if f.source is cls.source), None)
    return method_context(file, cls, node, ctx.index) if file is not None else None


def _field_value(ctx: Benchmark, info: FieldInfo, depth: int) -> tuple[int, str] | None:
    """A ``@Param`` field's largest whole-number value, or a final field's initializer."""
    param = annotation(info.declaration, "Param")
    if param is not None:
        values = re.findall(r'"\s*([0-9][0-9_]*)\s*"', info.source.text(param))
        if not values:
            return None
        largest = max(int(v.replace("_", "")) for v in values)
        return largest, f"@Param {info.name} up to {largest:,}"
    if not info.final:
        return None
    owner = _owner_context(ctx, info.owner, info.declaration)
    found = _value(owner, info.declarator.child_by_field_name("value"), depth + 1) if owner else None
    return (found[0], f"{info.name} = {found[0]:,}") if found else None


def _getter_return(ctx: Benchmark, node: Node) -> tuple[Benchmark, Node] | None:
    """For a call of a project method whose body is ``return expr;``: (its context, expr)."""
    call = ctx.call(node)
    method: MethodInfo | None = call.method
    if call.kind not in ("project", "pure") or method is None:
        return None
    body = method.node.child_by_field_name("body")
    statements = body.named_children if body is not None else []
    if len(statements) != 1 or statements[0].type != "return_statement" or not statements[0].named_children:
        return None
    owner = _owner_context(ctx, method.owner, method.node)
    return (owner, statements[0].named_children[0]) if owner is not None else None


def _array_length(ctx: Benchmark, node: Node | None, depth: int) -> tuple[int, str] | None:
    """The length of the array an expression reads: a field whose every creation in its class
    has a known size (the largest is taken), or a getter returning such a field."""
    if node is None or depth > _DEPTH:
        return None
    if node.type == "method_invocation":
        returned = _getter_return(ctx, node)
        return _array_length(returned[0], returned[1], depth + 1) if returned else None
    if node.type not in ("identifier", "field_access"):
        return None
    info = ctx.field_of(node)
    owner = _owner_context(ctx, info.owner, info.declaration) if info is not None else None
    if info is None or owner is None:
        return None
    initial = info.declarator.child_by_field_name("value")
    values = [initial] if initial is not None else []
    for method in (m for ms in owner.cls.methods.values() for m in ms):
        for assign in walk(method.node):
            if assign.type == "assignment_expression" and _names_field(owner, written(assign), info.name):
                values.append(assign.child_by_field_name("right"))
    found = _largest(_created_size(_owner_context(ctx, info.owner, _method_of(value) or info.declaration) or owner,
                                   value, depth) for value in values)
    return (found[0], f"the length of '{info.name}', {found[1]}") if found else None


def _method_of(node: Node) -> Node | None:
    current = node.parent
    while current is not None and current.type not in ("method_declaration", "constructor_declaration"):
        current = current.parent
    return current


def _names_field(ctx: Benchmark, target: Node, name: str) -> bool:
    if target.type == "identifier":
        return ctx.source.text(target) == name and name not in ctx.locals
    return target.type == "field_access" and target.child_by_field_name("object").type == "this" \
        and ctx.source.text(target.child_by_field_name("field")) == name


def _created_size(ctx: Benchmark, node: Node, depth: int) -> tuple[int, str] | None:
    if node.type == "array_initializer":
        return len(node.named_children), "an initializer list"
    if node.type == "method_invocation" and depth <= _DEPTH:
        return _factory_size(ctx, node, depth)
    if node.type != "array_creation_expression":
        return None
    dims = [c for c in node.named_children if c.type == "dimensions_expr"]
    if dims:
        found = _value(ctx, dims[0].named_children[0], depth + 1)
        return (found[0], f"new {ctx.source.text(node.child_by_field_name('type'))}"
                f"[{ctx.source.text(dims[0].named_children[0])}]") if found else None
    init = next((c for c in node.named_children if c.type == "array_initializer"), None)
    return _created_size(ctx, init, depth) if init is not None else None


def _factory_size(ctx: Benchmark, node: Node, depth: int) -> tuple[int, str] | None:
    """The size of the array a project method creates and returns (``createRangeArray()``:
    ``byte[] data = new byte[DATA_SIZE]; ... return data;``), when every return says so."""
    call = ctx.call(node)
    method: MethodInfo | None = call.method
    if method is None and node.child_by_field_name("object") is None:
        # a nested state class calling its enclosing class's static helper by its simple name
        name = ctx.source.text(node.child_by_field_name("name"))
        arity = len(node.child_by_field_name("arguments").named_children)
        method = next((m for cls in _enclosing(ctx) for m in cls.methods.get(name, ())
                       if len(m.params) == arity), None)
    elif call.kind != "project":
        return None
    if method is None:
        return None
    owner = _owner_context(ctx, method.owner, method.node)
    body = method.node.child_by_field_name("body")
    if owner is None or body is None:
        return None
    def returned(value: Node) -> Node | None:   # return data; -> the local's initializer
        if value.type != "identifier":
            return value
        name = owner.source.text(value)
        return next((d.child_by_field_name("value") for d in walk(body) if d.type == "variable_declarator"
                     and owner.source.text(d.child_by_field_name("name")) == name), None)

    values = [returned(n.named_children[0]) for n in walk(body) if n.type == "return_statement" and n.named_children]
    found = _largest(_created_size(owner, v, depth + 1) if v is not None else None for v in values)
    return (found[0], f"{found[1]} made by {method.name}()") if found else None


def _largest(sizes) -> tuple[int, str] | None:
    """The largest of the sizes, or None when there is none or one of them is unknown."""
    known = []
    for size in sizes:
        if size is None:
            return None
        known.append(size)
    return max(known) if known else None


# A call handed an array of at least this many elements makes a pass over them that takes about a
# millisecond (a nanosecond an element): lz4's compress(data) of 1,000,000 bytes (heldout38).
LARGE_ARRAY = 1_000_000


def large_array_argument(bench: Benchmark, call: Node) -> str | None:
    """``compress(data.data)`` where that array's length is fixed by the source (a constant, not
    a @Param) at LARGE_ARRAY or more: evidence that one call is millisecond-scale."""
    arguments = call.child_by_field_name("arguments")
    for arg in arguments.named_children if arguments is not None else ():
        if arg.type not in ("identifier", "field_access"):
            continue
        found = _array_length(bench, arg, 0)
        if found is not None and found[0] >= LARGE_ARRAY and "@Param" not in found[1]:
            return f"hands {bench.source.text(arg)} ({found[0]:,} elements: {found[1]}) to " \
                   f"{bench.source.text(call.child_by_field_name('name'))}()"
    return None


# ---- cost class of one iteration -----------------------------------------------------------

def _header_cheap(ctx: Benchmark, loop: Node) -> bool:
    """The condition, update and iterable run every iteration too."""
    parts = [loop.child_by_field_name(f) for f in ("condition", "value")]
    parts += loop.children_by_field_name("update")
    return all(_cheap(ctx, p, 0) for p in parts if p is not None)


def _cheap(ctx: Benchmark, body: Node, depth: int) -> bool:
    for node in walk(body):
        if node is not body and node.type in _NOT_CHEAP and not _thrown(node, body):
            return False
        if node.type == "method_invocation" and not _cheap_call(ctx, node, depth):
            return False
    return True


def _thrown(node: Node, stop: Node) -> bool:
    """An exception created to be thrown: the failure path, not the iteration's cost."""
    current = node.parent
    while current is not None and current != stop:
        if current.type == "throw_statement":
            return node.type == "object_creation_expression"
        current = current.parent
    return False


def _cheap_call(ctx: Benchmark, node: Node, depth: int) -> bool:
    call = ctx.call(node)
    if call.kind in ("blackhole",) or (call.kind == "pure" and call.method is None):
        return True
    name = call.name
    if _CODEC.match(name):
        return True
    if call.method is not None and call.kind in ("project", "pure"):
        if depth >= _DEPTH:
            return False
        owner = _owner_context(ctx, call.method.owner, call.method.node)
        body = call.method.node.child_by_field_name("body")
        return owner is not None and body is not None and _cheap(owner, body, depth + 1)
    obj = node.child_by_field_name("object")
    declared = ctx.type_of(obj) if obj is not None else None
    if not declared:
        return False
    imports = ctx.file.imports
    qualified = read_only_type(declared, imports) or _nio_type(declared, imports)
    nargs = len(node.child_by_field_name("arguments").named_children)
    return qualified is not None and (read_only_call(qualified, name, nargs)
                                      or (qualified in _NIO_BUFFERS and name in _NIO_OPS))


def _nio_type(declared: str, imports: tuple[str, ...]) -> str | None:
    name = declared.split("<", 1)[0].strip()
    if name in _NIO_BUFFERS:
        return name
    for imported in imports:
        if imported in _NIO_BUFFERS and imported.endswith("." + name):
            return imported
        if imported == "java.nio.*" and f"java.nio.{name}" in _NIO_BUFFERS:
            return f"java.nio.{name}"
    return None
