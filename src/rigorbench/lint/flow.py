"""Data flow of local values inside one benchmark method (the RETU analysis).

Costa et al. 2019, section 4.1: a local is *consumed* when it is stored to a field,
returned, consumed by a Blackhole, or another consumed value depends on it (a data
dependency graph). We build that graph from source, flow-insensitively, and avoid the false
positives of section 5.3: a value that decides an ``if``/loop/``switch`` whose body has an
effect (a ``throw``, a call, a field store, a ``return``) is consumed (control dependence),
so are values in ``assert`` statements, values passed to any method not known to be pure
(its receiver included), values captured by lambdas, array indexes that feed a
consumed element, and values stored into the elements of a local that aliases memory made
outside the method (``int[] to = this.out; to[i] = x;``). Calls to pure JDK methods (:mod:`rigorbench.lint.pure`) pass their
arguments' dependencies on to their result instead of consuming them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from rigorbench.lint.context import Benchmark
from rigorbench.lint.parse import walk

_OPAQUE = frozenset({"lambda_expression", "method_reference", "switch_expression",
                     "class_body", "object_creation_expression"})
_LEAF = frozenset({"identifier", "this", "super", "class_literal", "type_identifier"})
_WORK = frozenset({"method_invocation", "object_creation_expression"})
_ARITH = frozenset({"binary_expression", "unary_expression", "array_access",
                    "ternary_expression"})


@dataclass
class _Local:
    deps: set[str] = field(default_factory=set)
    computed: bool = False
    first: Node | None = None
    expression: str = ""


@dataclass(frozen=True)
class Flow:
    """Result: unconsumed computed locals (chain ends only) and discarded pure calls."""

    unconsumed: tuple[tuple[str, Node, str], ...]   # (name, declaring node, defining expr)
    discarded: tuple[Node, ...]                     # expression statements of pure calls
    consumed: frozenset[str]


class _Builder:
    """Walks a method body once; its state lives only for one ``analyse`` call."""

    def __init__(self, bench: Benchmark) -> None:
        self.bench = bench
        self.text = bench.source.text
        self.locals: dict[str, _Local] = {}
        self.sinks: set[str] = set()
        self.controls: list[set[str]] = []
        self.discarded: list[Node] = []
        self.covered: set[str] = set()  # locals feeding a discarded pure call (reported there)
        self._aliases: set[str] | None = None   # computed at the first element store

    # -- expressions -----------------------------------------------------------------
    def sink(self, names: set[str]) -> None:
        self.sinks.update(names)
        for control in self.controls:
            self.sinks.update(control)

    def value(self, node: Node | None) -> set[str]:
        """Locals whose value flows into ``node``'s value; records sinks on the way."""
        if node is None:
            return set()
        kind = node.type
        if kind == "identifier":
            name = self.text(node)
            return {name} if name in self.bench.locals else set()
        if kind in _LEAF or kind.endswith("literal") or kind.endswith("type"):
            return set()
        if kind == "method_invocation":
            return self.invocation(node)
        if kind == "assignment_expression":
            return self.assign(node)
        if kind == "update_expression":
            operand = node.named_children[0]
            target = self.value(operand)
            base = operand
            while base.type in ("array_access", "parenthesized_expression"):
                base = base.child_by_field_name("array") or base.named_children[0]
            if base.type != "identifier" or self.text(base) not in self.bench.locals:
                # counters.hits++, count++ on a field: a store, like x.f += 1 (and the
                # conditions it sits under are consumed with it)
                self.sink(target)
                return set()
            for name in target:
                self.define(name, {name}, node, computed=False)
            return target
        if kind in _OPAQUE:
            self.sink(self.captured(node))
            return set()
        deps: set[str] = set()
        for child in node.named_children:
            deps |= self.value(child)
        return deps

    def captured(self, node: Node) -> set[str]:
        return {self.text(n) for n in _identifiers(node) if self.text(n) in self.bench.locals}

    def invocation(self, node: Node) -> set[str]:
        call = self.bench.call(node)
        obj = node.child_by_field_name("object")
        deps = self.value(obj) if obj is not None else set()
        for arg in node.child_by_field_name("arguments").named_children:
            deps |= self.value(arg)
        if call.kind == "pure":
            return deps
        self.sink(deps)
        return set()

    def assign(self, node: Node) -> set[str]:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        compound = self.text(node.child_by_field_name("operator")) != "="
        deps = self.value(right)
        base, index_deps = left, set()
        while base.type in ("array_access", "parenthesized_expression"):
            index_deps |= self.value(base.child_by_field_name("index"))
            base = base.child_by_field_name("array") or base.named_children[0]
        name = self.text(base) if base.type == "identifier" else ""
        if base != left and name in self.bench.locals and name in self.aliases():
            # to[i] = from[i] where to = this.field: the element store writes shared memory
            self.sink(deps | index_deps)
            return set()
        if name in self.bench.locals:
            own = {name} if compound or base != left else set()
            self.define(name, deps | index_deps | own, node, computed=is_computed(right))
            return {name}
        obj = base.child_by_field_name("object") if base.type == "field_access" else None
        self.sink(deps | index_deps | self.value(obj))
        return set()

    def aliases(self) -> set[str]:
        if self._aliases is None:
            self._aliases = _aliases(self.bench)
        return self._aliases

    def define(self, name: str, deps: set[str], node: Node, *, computed: bool) -> None:
        local = self.locals.setdefault(name, _Local())
        local.deps |= deps
        for control in self.controls:
            local.deps |= control
        local.computed |= computed
        if local.first is None:
            local.first = node
        if computed and not local.expression:
            value = node.child_by_field_name("value")
            local.expression = f"= {self.text(value)}" if value is not None else \
                f"from {self.text(node)}"

    # -- statements ------------------------------------------------------------------
    def statement(self, node: Node | None) -> None:
        if node is None:
            return
        handler = getattr(self, "stmt_" + node.type, None)
        if handler is not None:
            handler(node)
        elif node.type in ("block", "labeled_statement", "switch_block",
                           "switch_block_statement_group", "finally_clause"):
            for child in node.named_children:
                self.statement(child)
        elif node.type.endswith("declaration") or node.type in ("line_comment", "block_comment"):
            return
        else:
            self.value(node)

    def stmt_local_variable_declaration(self, node: Node) -> None:
        for decl in node.children_by_field_name("declarator"):
            value = decl.child_by_field_name("value")
            if value is not None:
                self.define(self.text(decl.child_by_field_name("name")), self.value(value), decl,
                            computed=is_computed(value))

    def stmt_expression_statement(self, node: Node) -> None:
        expr = node.named_children[0] if node.named_children else None
        deps = self.value(expr)
        if expr is not None and (expr.type == "method_invocation" and self.bench.call(expr).kind == "pure"
                                 or self.new_string(expr)):
            self.discarded.append(node)
            self.covered |= deps

    def new_string(self, expr: Node) -> bool:
        """Is ``expr`` a new object of a JDK value or empty-collection class
        (:data:`DROPPABLE_NEW`: ``new String(bytes)``, ``new Object()``, ``new ArrayList<>()``),
        not of a project class of that name, nor an anonymous subclass? Its constructor changes
        nothing outside the new object, so a dropped one is dead: escape analysis removes the
        allocation (JMHSample_08's point, for an object)."""
        if expr.type != "object_creation_expression" or expr.child_by_field_name("type") is None:
            return False
        if any(c.type == "class_body" for c in expr.named_children):
            return False
        name = created_class(self.text(expr.child_by_field_name("type")))
        if "." in name:
            return name in DROPPABLE_NEW
        if name not in DROPPABLE_NEW or self.bench.index.lookup(name, self.bench.cls) is not None:
            return False
        imports = self.bench.file.imports
        if any(i.endswith("." + name) and i not in DROPPABLE_NEW for i in imports):
            return False  # a library's own ArrayList or String
        return name in _DROPPABLE_LANG or f"java.util.{name}" in imports or "java.util.*" in imports

    def controlled(self, condition: set[str], *bodies: Node | None) -> None:
        self.controls.append(condition)
        for body in bodies:
            self.statement(body)
        self.controls.pop()

    def stmt_if_statement(self, node: Node) -> None:
        self.controlled(self.value(node.child_by_field_name("condition")),
                        node.child_by_field_name("consequence"),
                        node.child_by_field_name("alternative"))

    def stmt_while_statement(self, node: Node) -> None:
        self.controlled(self.value(node.child_by_field_name("condition")),
                        node.child_by_field_name("body"))

    stmt_do_statement = stmt_while_statement

    def stmt_for_statement(self, node: Node) -> None:
        for init in node.children_by_field_name("init"):
            self.statement(init)
        condition = self.value(node.child_by_field_name("condition"))
        self.controls.append(condition)
        for update in node.children_by_field_name("update"):
            self.value(update)
        self.statement(node.child_by_field_name("body"))
        self.controls.pop()

    def stmt_enhanced_for_statement(self, node: Node) -> None:
        source = self.value(node.child_by_field_name("value"))
        self.define(self.text(node.child_by_field_name("name")), source, node, computed=False)
        self.controlled(source, node.child_by_field_name("body"))

    def stmt_switch_expression(self, node: Node) -> None:
        self.controlled(self.value(node.child_by_field_name("condition")),
                        node.child_by_field_name("body"))

    stmt_switch_statement = stmt_switch_expression

    def stmt_return_statement(self, node: Node) -> None:
        self.sink(self.value(node.named_children[0]) if node.named_children else set())

    stmt_throw_statement = stmt_break_statement = stmt_continue_statement = stmt_yield_statement = stmt_return_statement

    def stmt_assert_statement(self, node: Node) -> None:
        self.sink(set().union(*(self.value(c) for c in node.named_children)))

    def stmt_synchronized_statement(self, node: Node) -> None:
        for child in node.named_children:
            if child.type == "block":
                self.statement(child)
            else:
                self.sink(self.value(child))

    def stmt_try_statement(self, node: Node) -> None:
        for child in node.named_children:
            if child.type == "catch_clause":
                self.statement(child.child_by_field_name("body"))
            else:
                self.statement(child)

    stmt_try_with_resources_statement = stmt_try_statement

    def stmt_resource_specification(self, node: Node) -> None:
        for resource in node.named_children:
            self.sink(self.value(resource.child_by_field_name("value") or resource))
            name = resource.child_by_field_name("name")
            if name is not None:
                self.sinks.add(self.text(name))


def _identifiers(node: Node):
    return (n for n in walk(node) if n.type == "identifier")


def is_computed(node: Node) -> bool:
    """Does evaluating ``node`` do work the JIT could drop (a call, an allocation, maths)?"""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _WORK:
            return True
        if current.type in _ARITH and any(True for _ in _identifiers(current)):
            return True
        if current.type not in ("lambda_expression", "method_reference"):
            stack.extend(current.named_children)
    return False


def analyse(bench: Benchmark) -> Flow:
    builder = _Builder(bench)
    builder.statement(bench.body)
    consumed = _close(builder.sinks, builder.locals)
    covered = _close(builder.covered, builder.locals)
    unconsumed = {n for n in builder.locals
                  if n not in consumed and n not in covered and n not in bench.params}
    tainted = {n for n in unconsumed if builder.locals[n].computed}
    changed = True
    while changed:
        changed = False
        for name in unconsumed - tainted:
            if builder.locals[name].deps & tainted:
                tainted.add(name)
                changed = True
    feeds = {d for n in tainted for d in builder.locals[n].deps - {n}}
    ends = sorted((n for n in tainted if n not in feeds),
                  key=lambda n: builder.locals[n].first.start_byte)
    return Flow(tuple((n, builder.locals[n].first, builder.locals[n].expression) for n in ends),
                tuple(builder.discarded), frozenset(consumed))


_FRESH = frozenset({"array_creation_expression", "object_creation_expression", "array_initializer"})
# JDK classes whose constructors change nothing but the new object (no registration, no
# I/O, no lock another thread sees), by simple and java.lang / java.util qualified name.
_DROPPABLE_LANG = ("Object", "String", "StringBuilder", "Integer", "Long", "Short", "Byte",
                   "Character", "Boolean", "Double", "Float")
_DROPPABLE_UTIL = ("ArrayList", "LinkedList", "ArrayDeque", "HashMap", "LinkedHashMap", "TreeMap",
                   "HashSet", "LinkedHashSet", "TreeSet")
DROPPABLE_NEW = frozenset((*_DROPPABLE_LANG, *_DROPPABLE_UTIL,
                           *(f"java.lang.{n}" for n in _DROPPABLE_LANG),
                           *(f"java.util.{n}" for n in _DROPPABLE_UTIL)))


def created_class(type_text: str) -> str:
    """The class a ``new`` creates, without type arguments (``ArrayList<>`` -> ``ArrayList``)."""
    return type_text.split("<", 1)[0].strip()


_COPIES = frozenset({"clone", "copyOf", "copyOfRange", "toArray"})   # calls that return a new array


def _aliases(bench: Benchmark) -> set[str]:
    """Locals that may hold an array or object made outside the method: initialised or
    assigned from anything but a fresh ``new`` or copy (a field, a parameter, another local, a
    call other than ``clone``/``copyOf``/``toArray``),
    or the variable of an enhanced for. A store into one of their elements writes memory
    others can read, an effect the JIT keeps, not a dead local."""
    def fresh(value: Node) -> bool:
        return value.type in _FRESH or value.type == "method_invocation" and bench.source.text(
            value.child_by_field_name("name")) in _COPIES

    found: set[str] = set()
    for node in walk(bench.body):
        if node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is not None and not fresh(value):
                found.add(bench.source.text(node.child_by_field_name("name")))
        elif node.type == "assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left.type == "identifier" and not fresh(right):
                found.add(bench.source.text(left))
        elif node.type == "enhanced_for_statement":
            found.add(bench.source.text(node.child_by_field_name("name")))
    return found & set(bench.locals)


def _close(sinks: set[str], locals_: dict[str, _Local]) -> set[str]:
    consumed, todo = set(sinks), list(sinks)
    while todo:
        name = todo.pop()
        local = locals_.get(name)
        for dep in local.deps if local else ():
            if dep not in consumed:
                consumed.add(dep)
                todo.append(dep)
    return consumed
