"""PARAMU: a ``@Param`` field that the measured path never reads, so every case measures the same.

JMHSample_27_Params: the parameter exists to change what is measured; when neither a
benchmark nor a ``@Setup`` method reads it, the runs for each value differ only in their label.

The measured path is every ``@Benchmark`` and ``@Setup`` method of the project (any level)
and the project methods they may call, followed to any depth: overloads, overrides in
project subclasses, ``super.m()``, ``this::m``, and every method of a project class they
create. A read anywhere in that code counts, in lambdas and anonymous classes too; a read
in a class nested in the field's class counts wherever it is. ``@TearDown`` methods, field
initializers and constructors do not: they run after the measurement or before JMH sets the
value. Names resolve through the project index; ``x.f`` on an object of unknown type and the
field's name in a string (``params.getParam("f")``) count as reads of every ``f``. A read
of a @Param of the same name elsewhere in the class hierarchy counts too: JMH sets all of them
to the case's value (a subclass redeclaring a parameter to give it values).

Not reported, because a read may happen where lint cannot see: when no project benchmark
sees the field (its class, a subclass or a ``@State`` parameter of a benchmark), when the
class is abstract without project subclasses, when its instance is passed to code outside
the project (``this`` or a @State parameter as an argument of an unknown call or a
constructor, ``return this``), or when its lineage extends a class outside the project
(every method of such a class counts as measured). A @Param with one value measures one case
anyway: reported as info.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

from rigorbench.lint.base import Issue, make_issue
from rigorbench.lint.context import Benchmark, FileContext, is_benchmark, method_context
from rigorbench.lint.index import ClassInfo, FieldInfo, Index, MethodInfo
from rigorbench.lint.parse import modifier_words
from rigorbench.lint.rules.params import (bare_file, callees, descendants, mentions,
                                          param_values, setup_level)

ID = "PARAMU"
TITLE = "a @Param field is read by no benchmark or setup, so every case measures the same"
REFERENCE = "JMHSample_27_Params; JMH @Param javadoc"
EXPLANATION = """\
What goes wrong: JMH runs the benchmark once for every value of a @Param field. When no
benchmark method, no @Setup method and no project method they call reads the field, the
value changes nothing in the measured code.

Why it matters: every case of the parameter measures the same thing, and the results look
like a parameter study: differences between the cases are noise presented as an effect,
and the runs for the extra values only cost time. It usually means the value was meant to
size the data built in @Setup, or was left behind when the benchmark changed.

How to fix: use the field where it should matter (often the @Setup that builds the input),
or remove the @Param. rigorbench counts reads in lambdas, anonymous and inner classes and
project methods called from the benchmark or setup, and stays silent when the state object
is handed to code outside the project. A @Param with a single value is reported as info.

Before:
    @Param({"10", "1000"}) int size;
    @Setup public void setup() { data = new int[100]; }

After:
    @Param({"10", "1000"}) int size;
    @Setup public void setup() { data = new int[size]; }
"""


@dataclass
class Reads:
    """What the measured path of a project reads: fields (by identity), field names read on
    objects of unknown type, and classes whose instances reach code outside the project."""

    fields: set[int] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    escaped: list[ClassInfo] = field(default_factory=list)


_READS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_THIS = re.compile(rb"\bthis\b")


def check(ctx: FileContext) -> Iterator[Issue]:
    for cls in ctx.file.classes:
        params = [(info, values) for info in cls.fields.values()
                  if (values := param_values(info)) is not None]
        if not params or not _visible(ctx.index, cls):
            continue
        reads = measured_reads(ctx.index)
        if _escapes(ctx.index, cls, reads):
            continue
        for info, values in params:
            if id(info) in reads.fields or info.name in reads.names or _read_nested(cls, info.name) \
                    or _namesake_read(ctx.index, cls, info, reads):
                continue
            single = len(values) == 1
            yield make_issue(ctx.source, info.declarator.child_by_field_name("name"), ID,
                             "info" if single else "warning",
                             f"no benchmark or setup of {cls.name} reads '{info.name}' (nor a project "
                             f"method they call), so " + ("its one @Param value changes nothing"
                                                          if single else "every @Param case measures the same thing"),
                             hint=f"use '{info.name}' where it should change the work (often the @Setup "
                             f"that builds the input), or remove the @Param")


def _namesake_read(index: Index, cls: ClassInfo, info: FieldInfo, reads: Reads) -> bool:
    """Is a @Param of the same name in a superclass or subclass read? JMH sets every @Param
    field of that name in the state's hierarchy to the case's value (checked on JMH 1.37: a
    subclass's ``@Param({"7", "9"}) int n`` reached the superclass's ``@Param({}) int n`` that
    its @Setup reads), so a subclass redeclaring a parameter only to give it values feeds the
    superclass's reads."""
    family = [*index.lineage(cls), *descendants(index, cls)]
    return any(c is not cls and (other := c.fields.get(info.name)) is not None
               and param_values(other) is not None and id(other) in reads.fields for c in family)


def _visible(index: Index, cls: ClassInfo) -> bool:
    """A project benchmark sees the fields of ``cls``: its class or a @State parameter of a
    benchmark or setup is ``cls``, a subclass, or a superclass (JMH runs an inherited
    benchmark on the subclass); abstract classes need a project subclass."""
    below = descendants(index, cls)
    if "abstract" in modifier_words(cls.node) and not below:
        return False
    family = {id(c) for c in [*index.lineage(cls), *below]}
    return bool(family & _seen(index))


_SEEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _seen(index: Index) -> set[int]:
    """Classes whose fields some project benchmark sees (its class, its parameters), and the
    parameters of the setups of those (a state a state's @Setup takes). A class whose only
    roots are setups no benchmark reaches (an empty template with a @Setup and a @Param,
    heldout17's RxJavaExtensions) runs nothing, so no case is duplicated."""
    if index not in _SEEN:
        seen: set[int] = set()
        roots = list(_roots(index, opaque=False))
        for benchmarks_only in (True, False):
            for cls, method in roots:
                if is_benchmark(method.node) != benchmarks_only:
                    continue
                if not benchmarks_only and not {id(c) for c in [*index.lineage(cls), *descendants(index, cls)]} & seen:
                    continue
                seen.add(id(cls))
                for type_name, _ in method.params:
                    found = index.lookup(type_name, cls)
                    if found is not None:
                        seen.add(id(found))
        _SEEN[index] = seen
    return _SEEN[index]


def _escapes(index: Index, cls: ClassInfo, reads: Reads) -> bool:
    related = {id(c) for c in index.lineage(cls)} | {id(c) for c in descendants(index, cls)}
    return any(id(c) in related for c in reads.escaped)


def _read_nested(cls: ClassInfo, name: str) -> bool:
    """The name occurs in a class declared inside ``cls`` (an inner class reads the field)."""
    source = cls.source
    inner = [n for kind in ("class_declaration", "enum_declaration", "record_declaration")
             for n in source.within(kind, cls.node) if n != cls.node]
    return any(mentions(source, n, name) for n in inner)


def _roots(index: Index, opaque: bool = True) -> Iterator[tuple[ClassInfo, MethodInfo]]:
    """Benchmark and setup methods, and the overrides of those (JMH calls the annotated method,
    Java runs the subclass's override, annotated or not); with ``opaque``, every method of a
    class whose lineage extends a class outside the project (its setup may call any of them)."""
    for found in index.classes.values():
        for cls in found:
            lineage = list(index.lineage(cls))
            external = opaque and bool(lineage[-1].superclass) and index.lookup(lineage[-1].superclass, lineage[-1]) is None
            for methods in cls.methods.values():
                for method in methods:
                    if external or _fixture_or_benchmark(cls, method) or any(
                            _fixture_or_benchmark(above, m) for above in lineage[1:]
                            for m in above.methods.get(method.name, ()) if len(m.params) == len(method.params)):
                        yield cls, method


def _fixture_or_benchmark(cls: ClassInfo, method: MethodInfo) -> bool:
    return is_benchmark(method.node) or setup_level(method.node, cls.source.text) is not None


def measured_reads(index: Index) -> Reads:
    """The reads of the measured path, computed once per project index."""
    if index in _READS:
        return _READS[index]
    names = {info.name for found in index.classes.values() for cls in found
             for info in cls.fields.values() if param_values(info) is not None}
    reads = Reads()
    if names:
        queue = list(_roots(index))
        visited: set[int] = set()
        while queue:
            cls, method = queue.pop()
            if id(method.node) in visited:
                continue
            visited.add(id(method.node))
            queue += _scan(index, cls, method, names, reads)
    _READS[index] = reads
    return reads


def _scan(index: Index, cls: ClassInfo, method: MethodInfo, names: set[str],
          reads: Reads) -> list[tuple[ClassInfo, MethodInfo]]:
    """Record the reads of one method; return the project methods it may call."""
    bench = method_context(bare_file(cls), cls, method.node, index)
    body = bench.body
    if body is None:
        return []
    source = bench.source
    for ident in source.within("identifier", body):
        if source.text(ident) in names:
            _record(bench, ident, reads)
    text = source.data[body.start_byte:body.end_byte]
    reads.names.update(n for n in names if b'"%s"' % n.encode() in text)
    for found_this in _THIS.finditer(text):
        start = body.start_byte + found_this.start()
        node = body.descendant_for_byte_range(start, start + 4)
        if node is not None and node.type == "this" and _escaping(bench, node):
            reads.escaped.append(cls)
    found: list[tuple[ClassInfo, MethodInfo]] = []
    for call in source.within("method_invocation", body):
        targets = callees(bench, call)
        for target in targets or ():
            owner = index.qualified.get(target.owner)
            if owner is not None:
                found.append((owner, target))
        if targets is None:
            _escape_arguments(bench, call, reads)
    for created in source.within("object_creation_expression", body):
        _escape_arguments(bench, created, reads)
        made = index.lookup(source.text(created.child_by_field_name("type")).split("<")[0], cls)
        if made is not None:
            found += [(made, m) for ms in made.methods.values() for m in ms]
    for ref in source.within("method_reference", body):
        name = source.text(ref).rsplit("::", 1)[-1].strip()
        found += [(cls, m) for m in index.methods(cls, name)]
    return found


# (parent type, field) of an identifier that declares a name rather than reading one.
_DECLARING = frozenset({("variable_declarator", "name"), ("formal_parameter", "name"),
                        ("catch_formal_parameter", "name"), ("lambda_expression", "parameters"),
                        ("enhanced_for_statement", "name")})


def _declares(ident: Node) -> bool:
    parent = ident.parent
    if parent.type in ("inferred_parameters", "method_reference"):
        return True
    return any(parent.type == kind and parent.child_by_field_name(name) == ident
               for kind, name in _DECLARING)


def _record(bench: Benchmark, ident: Node, reads: Reads) -> None:
    """Count ``ident`` as a read of the field it names, when it is one (not a method name, a
    declaration, a local, or the target of a plain ``=``)."""
    parent = ident.parent
    if parent is None or _declares(ident) \
            or (parent.type == "method_invocation" and parent.child_by_field_name("name") == ident):
        return
    node = parent if parent.type == "field_access" and parent.child_by_field_name("field") == ident else ident
    outer = node.parent
    if outer is not None and outer.type == "assignment_expression" and outer.child_by_field_name("left") == node \
            and bench.source.text(outer.child_by_field_name("operator")) == "=":
        return
    name = bench.source.text(ident)
    if node is ident and name in bench.locals:
        return
    info = _resolve(bench, node)
    if info is None:
        reads.names.add(name)
    else:
        reads.fields.add(id(info))


def _resolve(bench: Benchmark, node: Node) -> FieldInfo | None:
    """The field ``node`` reads: ``x.f`` through the type of ``x``; a bare name through the
    classes around it, innermost first (an inner class reads its outer class's field)."""
    if node.type == "field_access":
        return bench.field_of(node)
    name, index = bench.source.text(node), bench.index
    current = node.parent
    while current is not None:
        if current.type in ("class_declaration", "enum_declaration", "record_declaration"):
            name_node = current.child_by_field_name("name")
            cls = index.by_file.get((bench.source.text(name_node), id(bench.source))) if name_node else None
            info = index.field(cls, name) if cls is not None else None
            if info is not None:
                return info
        current = current.parent
    return index.field(bench.cls, name)


def _escaping(bench: Benchmark, this: Node) -> bool:
    """``this`` handed on: an argument of a call outside the project (a project callee is
    followed), a value assigned or returned (not ``this.f``)."""
    parent = this.parent
    if parent is not None and parent.type == "argument_list":
        call = parent.parent
        return call.type != "method_invocation" or callees(bench, call) is None
    return parent is not None and parent.type in ("return_statement", "variable_declarator",
                                                  "assignment_expression", "array_initializer")


def _escape_arguments(bench: Benchmark, call: Node, reads: Reads) -> None:
    """Project objects passed to code outside the project may be read there."""
    args = call.child_by_field_name("arguments")
    for arg in args.named_children if args is not None else ():
        if arg.type in ("identifier", "field_access"):
            type_name = bench.type_of(arg)
            found = bench.index.lookup(type_name, bench.cls) if type_name else None
            if found is not None and not (call.type == "method_invocation"
                                          and bench.call(call).kind == "blackhole"):
                reads.escaped.append(found)
