"""What a rule sees: a file, its benchmark methods, and how calls and names resolve.

A benchmark method is a method annotated ``@Benchmark`` (simple or fully qualified name).
Resolution is deliberately shallow: locals and parameters by declared type, fields through
the project index (including ``state.field`` for a ``@State`` parameter), calls to the pure
JDK table of :mod:`rigorbench.lint.pure`, to ``Blackhole`` or to project methods. Anything
else is "unknown", which every rule treats as having side effects.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from tree_sitter import Node

from rigorbench.lint import helpers
from rigorbench.lint.index import ClassInfo, FieldInfo, FileInfo, Index, MethodInfo, last_name_of
from rigorbench.lint.parse import SourceFile, annotation, last_name, modifier_words, walk
from rigorbench.lint.pure import COSTLY_STRING, pure_instance, pure_static

# JMH's Blackhole, and its name before JMH 1.0 (org.openjdk.jmh.logic.BlackHole).
BLACKHOLES = frozenset({"Blackhole", "BlackHole"})


@dataclass(frozen=True)
class Call:
    """How a ``method_invocation`` resolves: kind is pure, blackhole, project or unknown."""

    kind: str
    name: str
    return_type: str | None = None
    method: MethodInfo | None = None
    cheap: bool = False


@dataclass(frozen=True, eq=False)
class Benchmark:
    """A ``@Benchmark`` method with the types of its parameters and locals."""

    file: FileInfo
    cls: ClassInfo
    node: Node
    index: Index
    locals: dict[str, str] = field(default_factory=dict)
    params: tuple[str, ...] = ()

    @property
    def source(self) -> SourceFile:
        return self.file.source

    @property
    def name(self) -> str:
        return f"{self.cls.name}.{self.source.text(self.node.child_by_field_name('name'))}"

    @property
    def body(self) -> Node | None:
        return self.node.child_by_field_name("body")

    @property
    def void(self) -> bool:
        return self.node.child_by_field_name("type").type == "void_type"

    @property
    def blackhole(self) -> str | None:
        return next((p for p in self.params if last_name_of(self.locals[p]) in BLACKHOLES), None)

    def field_of(self, node: Node) -> FieldInfo | None:
        """The project field an identifier or ``x.f`` / ``this.f`` expression reads."""
        if node.type == "identifier":
            name = self.source.text(node)
            return None if name in self.locals else self.index.field(self.cls, name)
        if node.type == "field_access":
            obj, name = node.child_by_field_name("object"), self.source.text(node.child_by_field_name("field"))
            if obj.type == "this":
                return self.index.field(self.cls, name)
            owner = self.class_of(obj)
            return self.index.field(owner, name) if owner is not None else None
        return None

    def class_of(self, node: Node) -> ClassInfo | None:
        type_name = self.type_of(node)
        if type_name is None and node.type == "identifier":
            type_name = self.source.text(node)  # a class name: static access
        return self.index.lookup(type_name, self.cls) if type_name else None

    def type_of(self, node: Node) -> str | None:
        kind = node.type
        if kind == "identifier":
            name = self.source.text(node)
            if name in self.locals:
                return self.locals[name]
            info = self.index.field(self.cls, name)
            return info.type if info else None
        if kind == "field_access":
            info = self.field_of(node)
            return info.type if info else None
        if kind == "string_literal":
            return "String"
        if kind == "method_invocation":
            return self.call(node).return_type
        if kind == "parenthesized_expression":
            return self.type_of(node.named_children[0])
        if kind == "cast_expression":
            return self.source.text(node.child_by_field_name("type"))
        if kind == "object_creation_expression" and node.child_by_field_name("type") is not None \
                and not any(c.type == "class_body" for c in node.named_children):
            return self.source.text(node.child_by_field_name("type"))   # not an anonymous subclass
        return None

    def call(self, node: Node) -> Call:
        """Resolve a ``method_invocation`` node (see the module docstring)."""
        name = self.source.text(node.child_by_field_name("name"))
        obj = node.child_by_field_name("object")
        nargs = len(node.child_by_field_name("arguments").named_children)
        if obj is None or obj.type == "this":
            return self._unqualified(name, nargs)
        if obj.type == "object_creation_expression":   # new Tuple(1, 2).hash(): a project class only
            made = self.class_of(obj)
            if made is None or not plain_construction(made, len(obj.child_by_field_name("arguments").named_children)):
                return Call("unknown", name)
            return self._instance(self.type_of(obj), name, nargs)
        if obj.type in ("identifier", "scoped_identifier", "field_access") or obj.type.endswith("literal") \
                or obj.type in ("method_invocation", "parenthesized_expression"):
            receiver = self.type_of(obj) if obj.type != "scoped_identifier" else None
            if receiver is not None:
                return self._instance(receiver, name, nargs)
            if obj.type in ("identifier", "scoped_identifier", "field_access"):
                return self._static(last_name(obj), name, nargs)
        return Call("unknown", name)

    def _unqualified(self, name: str, nargs: int) -> Call:
        methods = self.index.methods(self.cls, name)
        if methods:
            return _project(self.index, name, methods, nargs)
        for imported in self.file.static_imports:
            parts = imported.split(".")
            if parts[-1] in (name, "*") and len(parts) >= 2:
                pure, result = pure_static(parts[-2], name)
                if pure:
                    return Call("pure", name, result, cheap=True)
        return Call("unknown", name)

    def _instance(self, receiver: str, name: str, nargs: int) -> Call:
        if last_name_of(receiver) in BLACKHOLES:
            return Call("blackhole", name)
        simple = last_name_of(receiver)
        if simple == "Vector" and any(i in ("jdk.incubator.vector.Vector", "jdk.incubator.vector.*")
                                      for i in self.file.imports):
            simple = "jdk.incubator.vector.Vector"   # the Vector API's, not java.util's
        pure, result = pure_instance(simple, name)
        if pure:
            costly = last_name_of(receiver) == "String" and name in COSTLY_STRING
            return Call("pure", name, result, cheap=not costly)
        owner = self.index.lookup(receiver, self.cls)
        methods = self.index.methods(owner, name)
        return _project(self.index, name, methods, nargs) if methods else Call("unknown", name)

    def _static(self, owner: str, name: str, nargs: int) -> Call:
        pure, result = pure_static(owner, name)
        if pure:
            return Call("pure", name, result, cheap=True)
        methods = self.index.methods(self.index.lookup(owner, self.cls), name)
        return _project(self.index, name, methods, nargs) if methods else Call("unknown", name)

    def declaration(self, name: str) -> Node | None:
        """The ``local_variable_declaration`` of local ``name`` in the body, or None."""
        return next((node for node in self.own("local_variable_declaration")
                     if any(self.source.text(d.child_by_field_name("name")) == name
                            for d in node.children_by_field_name("declarator"))), None)

    @functools.cached_property
    def nested(self) -> tuple[tuple[int, int], ...]:
        """Byte ranges of lambdas, method references and class bodies inside the body."""
        kinds = ("lambda_expression", "method_reference", "class_body")
        return tuple((n.start_byte, n.end_byte) for kind in kinds
                     for n in self.source.within(kind, self.body))

    def own(self, kind: str) -> list[Node]:
        """Nodes of an indexed ``kind`` in the body, outside lambdas and nested classes."""
        nodes = self.source.within(kind, self.body)
        if not self.nested:
            return nodes
        return [n for n in nodes if not any(
            s <= n.start_byte and n.end_byte <= e and (n.start_byte, n.end_byte) != (s, e)
            for s, e in self.nested)]


# What a constructor may do and still leave nothing behind but the object: store values
# computed from its parameters and constants in its own fields.
_PLAIN_VALUES = frozenset({"identifier", "field_access", "this", "binary_expression", "unary_expression",
                           "parenthesized_expression", "ternary_expression", "cast_expression",
                           "decimal_integer_literal", "hex_integer_literal", "octal_integer_literal",
                           "binary_integer_literal", "decimal_floating_point_literal", "string_literal",
                           "character_literal", "true", "false", "null_literal", "string_fragment",
                           "escape_sequence", "type_identifier", "integral_type", "floating_point_type"})


def plain_construction(cls: ClassInfo, nargs: int) -> bool:
    """Does ``new Cls(a, b)`` only build an object from its arguments? A class or record of
    the project, with no superclass and no instance initializer, whose instance fields start
    from constants and whose constructor of that arity (the implicit one of a record or of a
    class declaring none) only stores its parameters and constants, or arithmetic on them,
    in its own fields. Then an unused ``new Tuple4(1, 2, 3, 4).hash31()`` leaves nothing the
    JIT must keep once escape analysis has replaced the object by its fields."""
    if cls.superclass or cls.node.type not in ("class_declaration", "record_declaration"):
        return False
    if "abstract" in modifier_words(cls.node):
        return False
    body = cls.node.child_by_field_name("body")
    if body is None:
        return False
    text = cls.source.text
    constructors = []
    for member in body.named_children:
        if member.type == "block":
            return False   # an instance initializer runs code on every new
        if member.type == "field_declaration" and "static" not in modifier_words(member):
            for declarator in member.children_by_field_name("declarator"):
                value = declarator.child_by_field_name("value")
                if value is not None and not _plain_value(value):
                    return False
        if member.type in ("constructor_declaration", "compact_constructor_declaration"):
            constructors.append(member)
    if cls.node.type == "record_declaration":
        components = cls.node.child_by_field_name("parameters")
        arity = len(components.named_children) if components is not None else 0
        canonical = [c for c in constructors if c.type == "compact_constructor_declaration"]
        if nargs == arity and not any(c.child_by_field_name("parameters") is not None
                                      and len(c.child_by_field_name("parameters").named_children) == nargs
                                      for c in constructors if c.type == "constructor_declaration"):
            return all(_stores_only(c, cls) for c in canonical)
    chosen = [c for c in constructors if c.type == "constructor_declaration"
              and len(c.child_by_field_name("parameters").named_children) == nargs]
    if not constructors:
        return nargs == 0
    return len(chosen) == 1 and _stores_only(chosen[0], cls)


def _plain_value(node: Node) -> bool:
    return all(n.type in _PLAIN_VALUES or not n.is_named for n in walk(node))


def _stores_only(constructor: Node, cls: ClassInfo) -> bool:
    body = constructor.child_by_field_name("body")
    if body is None:
        return False
    text = cls.source.text
    for stmt in body.named_children:
        if stmt.type == "line_comment" or stmt.type == "block_comment":
            continue
        if stmt.type != "expression_statement" or stmt.named_children[0].type != "assignment_expression":
            return False   # a call, this(...)/super(...), a check that may throw, a loop
        assign = stmt.named_children[0]
        left, right = assign.child_by_field_name("left"), assign.child_by_field_name("right")
        target = left.child_by_field_name("field") if left.type == "field_access" else left
        if left.type == "field_access" and left.child_by_field_name("object").type != "this":
            return False
        if target is None or target.type != "identifier" or text(target) not in cls.fields \
                or cls.fields[text(target)].static or not _plain_value(right):
            return False
    return True


def _project(index: Index, name: str, methods: list[MethodInfo], nargs: int) -> Call:
    """A project method; ``pure`` when every overload of that arity is a pure helper."""
    chosen = next((m for m in methods if len(m.params) == nargs), methods[0])
    verdicts = {helpers.classify(index, m) for m in methods if len(m.params) == len(chosen.params)}
    if None in verdicts:
        return Call("project", name, chosen.return_type, chosen)
    return Call("pure", name, chosen.return_type, chosen, verdicts == {helpers.CHEAP})


def _collect_locals(source: SourceFile, method: Node) -> tuple[dict[str, str], tuple[str, ...]]:
    types: dict[str, str] = {}
    params = []
    kinds = ("formal_parameter", "spread_parameter", "catch_formal_parameter",
             "local_variable_declaration", "resource", "enhanced_for_statement",
             "lambda_expression")
    found = sorted((n for kind in kinds for n in source.within(kind, method)),
                   key=lambda n: n.start_byte)
    for node in found:
        if node.type in ("formal_parameter", "spread_parameter", "catch_formal_parameter"):
            name = node.child_by_field_name("name") or next(
                (c for c in node.named_children if c.type in ("identifier", "variable_declarator")), None)
            type_node = node.child_by_field_name("type") or next(
                (c for c in node.named_children if c.type.endswith("type")), None)
            if name is not None:
                if name.type == "variable_declarator":
                    name = name.child_by_field_name("name")
                types[source.text(name)] = source.text(type_node) if type_node else ""
                if node.parent is not None and node.parent.parent == method:
                    params.append(source.text(name))
        elif node.type in ("local_variable_declaration", "resource"):
            if node.child_by_field_name("type") is None:
                continue   # try (existing) { ... }: a resource naming a variable declared earlier
            type_text = source.text(node.child_by_field_name("type"))
            for decl in node.children_by_field_name("declarator") or [node]:
                name = decl.child_by_field_name("name")
                if name is not None:
                    types[source.text(name)] = type_text
        elif node.type == "enhanced_for_statement":
            types[source.text(node.child_by_field_name("name"))] = source.text(node.child_by_field_name("type"))
        elif node.type == "lambda_expression":
            params_node = node.child_by_field_name("parameters")
            for ident in walk(params_node) if params_node is not None else ():
                if ident.type == "identifier" and ident.parent.type != "formal_parameter":
                    types.setdefault(source.text(ident), "")
    return types, tuple(params)


def method_context(file: FileInfo, cls: ClassInfo, node: Node, index: Index) -> Benchmark:
    """Any method or constructor of ``cls`` seen like a benchmark (locals typed, calls and
    fields resolvable), for rules that follow setup methods and callees; ``file`` may be a
    bare :class:`FileInfo` for a class of another file (no static imports then)."""
    local_types, params = _collect_locals(file.source, node)
    return Benchmark(file, cls, node, index, local_types, params)


def is_benchmark(method: Node) -> bool:
    """``@Benchmark``, or ``@GenerateMicroBenchmark``, its name in JMH before 1.0 (2014): old
    suites still built with that JMH are benchmarks as much as new ones."""
    return annotation(method, "Benchmark") is not None \
        or annotation(method, "GenerateMicroBenchmark") is not None


@dataclass(frozen=True, eq=False)
class FileContext:
    """One file for the rules, with the project index and the file's benchmark methods."""

    file: FileInfo
    index: Index
    benchmarks: tuple[Benchmark, ...]

    @property
    def source(self) -> SourceFile:
        return self.file.source


def file_context(file: FileInfo, index: Index) -> FileContext:
    benchmarks = []
    for cls in file.classes:
        for methods in cls.methods.values():
            for method in methods:
                if is_benchmark(method.node):
                    local_types, params = _collect_locals(file.source, method.node)
                    benchmarks.append(Benchmark(file, cls, method.node, index, local_types, params))
    benchmarks.sort(key=lambda b: b.node.start_byte)
    return FileContext(file, index, tuple(benchmarks))
