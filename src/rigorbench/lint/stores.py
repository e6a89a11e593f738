"""Where a project method's parameter goes: only into stored configuration, or into work?

FINAL warns when a literal or a constant is the only argument of a project method, because
the JIT can fold what it inlines of a call whose whole input is known (JMHSample_10). That
holds for a method that computes on its argument (``return fib(n)``), not for one that only
records it: a setter, a builder step, a map of properties for the engine under test
(``props.put(BATCH_SIZE, String.valueOf(size))``), or the capacity of a collection. Such a
value is a configuration knob, which the lint-real-dev rubric ("FINAL: ... false for sizes,
configuration knobs") and issue #34 ("a constant that is a size, capacity or configuration
knob") name as a false positive: folding the call that files it away removes no measured work.

:func:`stored_only` follows one parameter through the callee's body (and through project
methods it hands the parameter to, a few levels deep). Every use must be a store: the right
side of an assignment to a field, an argument of a store-like call (``put``, ``add``,
``set*``, ``with*``), an argument of a constructor of a configuration or builder type or the
capacity of a JDK collection or buffer, or an array dimension, possibly through a conversion
to text or a box (``String.valueOf``, ``Integer.toString``). A use in arithmetic, a
comparison, a loop, a return, or any other call keeps the parameter an input, and so does a
body lint cannot see: the rule keeps its warning then.

:func:`shapes_new_object` covers a second kind of knob: a helper that builds and returns a new
object (``return new Iterator(parts)``, or a local created with ``new`` and returned), where
the parameter only sizes or selects what is built: an array dimension, a comparison (a loop
bound, ``if (sorted)``, ``sorted ? a : b``), an argument of a constructor or of a library call
lint cannot see. A call that returns a fresh object is not replaced by a constant, and a size
or mode gives the JIT nothing to fold. A parameter in arithmetic, returned, or handed to a
pure JDK or project method (``new Result(fib(n))``) stays an input.

:func:`feeds_unseen_code` covers a helper that only hands the parameter on to a library call
lint cannot see into, as a literal given to that call directly would be (not reported).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from rigorbench.lint.context import Benchmark, method_context
from rigorbench.lint.index import MethodInfo, last_name_of
from rigorbench.lint.parse import walk

# Calls that file a value away in a map, collection, property set or builder. Reading calls
# (get, contains) and calls that compute (apply, encode) are not here on purpose.
_STORE_CALL = re.compile(r"^(put|putIfAbsent|add|addLast|addFirst|offer|push|set|setProperty|"
                         r"property|option|config|configure|conf|with|set[A-Z]\w*|with[A-Z]\w*)$")
# Types whose constructor argument is configuration (a config, options or builder object).
_CONFIG_TYPE = re.compile(r"(Config|Configuration|Conf|Options|Option|Properties|Props|Settings|"
                          r"Params|Parameters|Builder|Spec)$")
# JDK types whose one-int constructor argument is a capacity, not an input.
_CAPACITY_TYPES = frozenset({
    "ArrayList", "LinkedList", "HashMap", "LinkedHashMap", "TreeMap", "HashSet", "LinkedHashSet",
    "ArrayDeque", "PriorityQueue", "ConcurrentHashMap", "ArrayBlockingQueue",
    "LinkedBlockingQueue", "LinkedBlockingDeque", "StringBuilder", "StringBuffer",
    "ByteArrayOutputStream", "BufferedInputStream", "BufferedOutputStream", "Vector", "BitSet"})
# Conversions that carry a value unchanged into text or a box before it is stored.
_CONVERSIONS = frozenset({"valueOf", "toString"})
_DEPTH = 3


def parameter_uses(bench: Benchmark, method: MethodInfo | None, position: int) -> tuple[Benchmark, list[Node]] | None:
    """The project ``method`` seen like a benchmark, and the reads of its parameter at
    ``position`` in its body; None when there is no such parameter or no body to read."""
    if method is None or position >= len(method.params):
        return None
    ctx = callee_context(bench, method)
    if ctx is None or ctx.body is None:
        return None
    name = method.params[position][1]
    return ctx, [n for n in walk(ctx.body) if n.type == "identifier" and ctx.source.text(n) == name
                 and _is_variable(n)]


def stored_only(bench: Benchmark, method: MethodInfo | None, position: int, depth: int = 0) -> str | None:
    """How ``method``'s parameter at ``position`` is only stored (a short phrase for the
    message), or None when any use may feed computed work or the body is not visible."""
    found = parameter_uses(bench, method, position) if depth <= _DEPTH else None
    if found is None or not found[1]:
        return None
    ctx, uses = found
    stored: list[str] = []
    fields: set[str] = set()
    for use in uses:
        kind = _store(ctx, use, fields, depth)
        if kind is None:
            return None
        stored.append(kind)
    if fields and any(_mentions(ctx, ret, fields) for ret in walk(ctx.body) if ret.type == "return_statement"):
        return None  # stored, then read back into the result: `size = n; return size * 2;`
    return stored[0]


_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})


def shapes_new_object(bench: Benchmark, method: MethodInfo | None, position: int) -> str | None:
    """A phrase when ``method`` returns an object it creates and its parameter at
    ``position`` only sizes or selects it (see the module docstring), else None."""
    if method is None or position >= len(method.params):
        return None
    ctx = callee_context(bench, method)
    body = ctx.body if ctx is not None else None
    if body is None:
        return None
    created = _created_locals(ctx, body)
    returns = [r.named_children[0] for r in walk(body)
               if r.type == "return_statement" and r.named_children]
    if not returns:
        return None
    built = []
    for value in returns:
        if value.type in ("object_creation_expression", "array_creation_expression"):
            built.append(value)
        elif value.type == "identifier" and ctx.source.text(value) in created:
            built.append(created[ctx.source.text(value)])
        else:
            return None
    name = method.params[position][1]
    uses = [n for n in walk(body) if n.type == "identifier" and ctx.source.text(n) == name
            and _is_variable(n)]
    if not uses or not all(_shapes(ctx, use) for use in uses):
        return None
    kind = built[0].child_by_field_name("type")
    what = last_name_of(ctx.source.text(kind).split("<", 1)[0]) if kind is not None else "object"
    return f"builds and returns a new {what}"


def feeds_unseen_code(bench: Benchmark, method: MethodInfo | None, position: int) -> str | None:
    """The name of the library call when every use of ``method``'s parameter at ``position``
    is an argument of a call lint cannot see into, possibly inside text or arithmetic built for
    it (``h.createQuery("select value from " + table)``, in a lambda or not), else None.

    A literal given directly to such a call is not reported (nothing says the JIT can fold
    code lint cannot read); a project helper that only hands its parameter on to one is the
    same case one call further away: the table name of a query, the host of a client call."""
    found = parameter_uses(bench, method, position)
    if found is None:
        return None
    ctx, uses = found
    called = None
    for use in uses:
        node = use.parent
        while node is not None and node.type in ("binary_expression", "parenthesized_expression",
                                                  "cast_expression"):
            node = node.parent
        call = node.parent if node is not None and node.type == "argument_list" else None
        if call is not None and call.type == "object_creation_expression":
            # new Query(chain, prefix + query) of a library class (sirix's XQuery texts, heldout25):
            # its constructor is a library call too, and what it builds runs unseen code
            created = call.child_by_field_name("type")
            if created is None or _known_class(ctx, ctx.source.text(created).split("<", 1)[0]):
                return None
            called = called or f"new {ctx.source.text(created)}"
            continue
        if call is None or call.type != "method_invocation" or ctx.call(call).kind != "unknown":
            return None
        called = called or ctx.source.text(call.child_by_field_name("name"))
    return called


_JAVA_LANG = frozenset({"String", "StringBuilder", "StringBuffer", "Integer", "Long", "Short", "Byte",
                        "Double", "Float", "Character", "Boolean", "Object"})


def _known_class(ctx: Benchmark, name: str) -> bool:
    """Is ``name`` a class lint can read or knows: the project's, java.lang's, or one imported
    from a ``java.``/``javax.`` package (``new StringBuilder(s)`` is JDK code of known cost)."""
    simple = name.rsplit(".", 1)[-1]
    return ctx.index.lookup(name, ctx.cls) is not None or simple in _JAVA_LANG \
        or name.startswith(("java.", "javax.")) \
        or any(imp.startswith(("java.", "javax.")) and imp.endswith("." + simple) for imp in ctx.file.imports)


def _created_locals(ctx: Benchmark, body: Node) -> dict[str, Node]:
    """Locals declared with a ``new`` initializer and never assigned again."""
    created: dict[str, Node] = {}
    for node in walk(body):
        if node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is not None and value.type in ("object_creation_expression", "array_creation_expression"):
                created[ctx.source.text(node.child_by_field_name("name"))] = value
    for node in walk(body):
        if node.type == "assignment_expression":
            created.pop(ctx.source.text(node.child_by_field_name("left")), None)
    return created


def _shapes(ctx: Benchmark, use: Node) -> bool:
    """Does this use of a parameter only size or select what is built?"""
    node = use
    while node.parent is not None and node.parent.type == "parenthesized_expression":
        node = node.parent
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "dimensions_expr":
        return True
    if parent.type == "binary_expression":
        return ctx.source.text(parent.child_by_field_name("operator")) in _COMPARISONS
    if parent.type in ("if_statement", "while_statement") and node == parent.child_by_field_name("condition"):
        return True
    if parent.type == "ternary_expression" and node == parent.child_by_field_name("condition"):
        return True
    if parent.type == "unary_expression" and ctx.source.text(parent).startswith("!"):
        return _shapes(ctx, parent)
    if parent.type != "argument_list" or parent.parent is None:
        return False
    call = parent.parent
    if call.type == "object_creation_expression":
        return True
    return call.type == "method_invocation" and ctx.call(call).kind == "unknown"


def callee_context(bench: Benchmark, method: MethodInfo) -> Benchmark | None:
    """A project method seen like a benchmark, so its own locals and fields resolve."""
    owner = bench.index.owner_of(method)
    file = next((f for f in bench.index.files if owner is not None and f.source is owner.source), None)
    return method_context(file, owner, method.node, bench.index) if file is not None else None


def _is_variable(node: Node) -> bool:
    """An identifier that reads a variable (not a field or method name, not a declaration)."""
    parent = node.parent
    if parent is None or parent.type.endswith("declarator") or parent.type.endswith("parameter"):
        return False
    if parent.type in ("field_access", "method_invocation"):
        return node not in (parent.child_by_field_name("field"), parent.child_by_field_name("name"))
    return True


def _store(ctx: Benchmark, use: Node, fields: set[str], depth: int) -> str | None:
    node = _through_conversions(ctx, use)
    parent = node.parent
    if parent is None:
        return None
    if parent.type == "assignment_expression" and node == parent.child_by_field_name("right"):
        left = parent.child_by_field_name("left")
        if _is_field(ctx, left):
            fields.add(ctx.source.text(left).rsplit(".", 1)[-1])
            return f"stores it in field '{ctx.source.text(left)}'"
        return None
    if parent.type == "dimensions_expr":
        return "uses it as an array size"
    if parent.type != "argument_list" or parent.parent is None:
        return None
    call = parent.parent
    position = parent.named_children.index(node)
    if call.type == "object_creation_expression":
        type_name = last_name_of(ctx.source.text(call.child_by_field_name("type")).split("<", 1)[0])
        if _CONFIG_TYPE.search(type_name):
            return f"passes it to new {type_name}(...)"
        if type_name in _CAPACITY_TYPES and len(parent.named_children) == 1:
            return f"uses it as the capacity of a {type_name}"
        return None
    if call.type != "method_invocation":
        return None
    resolved = ctx.call(call)
    name = resolved.name
    if resolved.kind in ("project", "pure") and resolved.method is not None:
        return stored_only(ctx, resolved.method, position, depth + 1)
    if resolved.kind == "unknown" and _STORE_CALL.match(name) and call.child_by_field_name("object") is not None:
        return f"passes it to {name}()"
    return None


def _through_conversions(ctx: Benchmark, node: Node) -> Node:
    """Climb out of parentheses, casts and value-preserving conversions (``String.valueOf(n)``)."""
    while node.parent is not None:
        parent = node.parent
        if parent.type in ("parenthesized_expression", "cast_expression"):
            node = parent
            continue
        call = parent.parent if parent.type == "argument_list" else None
        if call is not None and call.type == "method_invocation" and parent.named_children == [node] \
                and ctx.source.text(call.child_by_field_name("name")) in _CONVERSIONS \
                and ctx.call(call).kind == "pure":
            node = call
            continue
        return node
    return node


def _is_field(ctx: Benchmark, node: Node | None) -> bool:
    if node is None:
        return False
    if node.type == "field_access":
        obj = node.child_by_field_name("object")
        return (obj is not None and obj.type == "this") or ctx.field_of(node) is not None
    if node.type == "identifier":
        return ctx.source.text(node) not in ctx.locals and ctx.field_of(node) is not None
    return False


def _mentions(ctx: Benchmark, node: Node, names: set[str]) -> bool:
    return any(n.type == "identifier" and ctx.source.text(n) in names and _is_variable(n)
               for n in walk(node))
