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

Per benchmark (:func:`check_benchmarks`): a parameter read elsewhere, of a state the benchmark
uses, that the benchmark's path reaches neither directly nor through what a setup derives
from it (judged by names, the cautious way: see :func:`_derived`).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

from rigorbench.lint.base import Issue, make_issue
from rigorbench.lint.context import Benchmark, FileContext, is_benchmark, method_context
from rigorbench.lint.index import CLASS_TYPES, ClassInfo, FieldInfo, Index, MethodInfo, last_name_of
from rigorbench.lint.parse import annotation, annotation_value, enclosing, last_name, modifier_words, walk
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
is handed to code outside the project. A @Param with a single value (a literal or a named
constant: @Param({DEFAULT_K})) is reported as info: one case is a label, not a study.
A String @Param compared with a literal by == or != (if (type == "LIST")) is reported too:
JMH sets the field to a new String it reads from its benchmark list, never the interned
literal, so the test has the same outcome in every case and the cases measure one path.
Compare with "LIST".equals(type), or make the parameter an enum.
Nor is a state whose benchmarks are all empty fixtures (empty bodies, not public or in a test
source root: a runner's own unit tests), which measure nothing whatever the value.

The same holds for one benchmark: JMH runs every benchmark of a class once per value of the
class's parameters (and of the @State classes it takes). A benchmark whose path reads neither
the parameter nor anything a setup builds from it (a field, an object the setup fills) runs
identical cases; the finding names the benchmark. rigorbench stays silent when a setup may
pass the value on where it cannot see: a static field, a system property, the parameter's
own methods, a library object other than a JDK collection or buffer. Nor when a setup uses it
to allocate an array that nothing reads before allocating more (an alignment gap that moves
the measured arrays in memory), or to start processes, threads or pool tasks (noisy
neighbours competing for the machine): the value reaches the measurement all the same.

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
_QUOTED_NAME = re.compile(rb'"(\w+)"')


def check(ctx: FileContext) -> Iterator[Issue]:
    for cls in ctx.file.classes:
        params = [(info, values) for info in cls.fields.values()
                  if (values := param_values(info)) is not None]
        if not params or not _visible(ctx.index, cls):
            continue
        reads = measured_reads(ctx.index)
        if _escapes(ctx.index, cls, reads):
            continue
        empty_users = None
        for info, values in params:
            if id(info) in reads.fields or info.name in reads.names or _read_nested(cls, info.name) \
                    or _namesake_read(ctx.index, cls, info, reads):
                continue
            if empty_users is None:
                empty_users = _only_empty_users(ctx.index, cls)
            if empty_users:
                continue
            single = _cases(ctx.index, cls, info, values) == 1
            yield make_issue(ctx.source, info.declarator.child_by_field_name("name"), ID,
                             "info" if single else "warning",
                             f"no benchmark or setup of {cls.name} reads '{info.name}' (nor a project "
                             f"method they call), so " + ("its one @Param value changes nothing"
                                                          if single else "every @Param case measures the same thing"),
                             hint=f"use '{info.name}' where it should change the work (often the @Setup "
                             f"that builds the input), or remove the @Param")
    yield from check_benchmarks(ctx)
    yield from check_identity(ctx)


# A comparison of a String with a literal by reference: `mode == "fast"`.
_IDENTITY = re.compile(rb'[=!]=\s*"|"\s*[=!]=')


def check_identity(ctx: FileContext) -> Iterator[Issue]:
    """A String @Param compared with a string literal by ``==`` or ``!=``
    (``if (type == "LIST")``). JMH reads the values from its generated benchmark list at run
    time and sets the field to a new String, never the interned literal (checked on JMH 1.37),
    so the test has the same outcome in every case, and the cases measure the same path
    (heldout60's sparse-array benchmark built the default implementation for all three
    values). Looked for in the methods of the field's class and its subclasses (a bare name or
    ``this.f``) and on a parameter or local typed with that class (``state.f``)."""
    if not _IDENTITY.search(ctx.source.data):
        return
    for node in walk(ctx.source.root):   # rare (the pattern above), so a plain walk
        if node.type != "binary_expression":
            continue
        operator = ctx.source.text(node.child_by_field_name("operator"))
        if operator not in ("==", "!="):
            continue
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        literal, other = (left, right) if left.type == "string_literal" else (right, left)
        if literal.type != "string_literal" or other.type not in ("identifier", "field_access"):
            continue
        info = _string_param(ctx, node, other)
        if info is None:
            continue
        values = param_values(info) or ()
        listed = ctx.source.text(literal)[1:-1] in values or not values
        # a literal that is none of the listed values: the test answers as meant for each of
        # them (deephaven's fillColsType != "I" with the one value "D"), a latent bug only
        harm = "so the test has the same outcome in every case and the cases measure the same path" if listed \
            else f"the test happens to answer right for the listed values, none of which is {ctx.source.text(literal)}"
        yield make_issue(ctx.source, node, ID, "warning" if listed else "info",
                         f"@Param '{info.name}' is compared with {ctx.source.text(literal)} by {operator}: "
                         f"JMH sets the field to a new String, never the interned literal; {harm}",
                         hint=f"compare with {ctx.source.text(literal)}.equals({info.name}), or make "
                         f"'{info.name}' an enum")


def _string_param(ctx: FileContext, at: Node, ref: Node) -> FieldInfo | None:
    """The String @Param field ``ref`` (``f``, ``this.f`` or ``state.f``) denotes at ``at``."""
    around = enclosing(at, CLASS_TYPES)
    cls = next((c for c in ctx.file.classes if around is not None and c.node.id == around.id), None)
    if cls is None:
        return None
    if ref.type == "identifier":
        owner, name = cls, ctx.source.text(ref)
        if _declared_type(ctx, at, name) is not None:
            return None   # a parameter or local of that name shadows the field
    else:
        obj, name = ref.child_by_field_name("object"), ctx.source.text(ref.child_by_field_name("field"))
        if obj.type == "this":
            owner = cls
        elif obj.type == "identifier":
            declared = _declared_type(ctx, at, ctx.source.text(obj))
            owner = ctx.index.lookup(declared, cls) if declared else None
        else:
            return None
    if owner is None:
        return None
    for holder in ctx.index.lineage(owner):
        info = holder.fields.get(name)
        if info is not None:
            return info if info.type in ("String", "java.lang.String") and param_values(info) is not None else None
    return None


_METHODS = frozenset({"method_declaration", "constructor_declaration"})


def _declared_type(ctx: FileContext, at: Node, name: str) -> str | None:
    """The declared type of a parameter or local ``name`` of the method around ``at``."""
    method = enclosing(at, _METHODS)
    if method is None:
        return None
    for node in walk(method):
        if node.type in ("formal_parameter", "local_variable_declaration"):
            declarators = [node] if node.type == "formal_parameter" else node.children_by_field_name("declarator")
            if any(ctx.source.text(d.child_by_field_name("name")) == name for d in declarators):
                kind = node.child_by_field_name("type")
                return ctx.source.text(kind).split("<", 1)[0].strip() if kind is not None else None
    return None


def _only_empty_users(index: Index, cls: ClassInfo) -> bool:
    """Are the benchmarks that use ``cls`` (declared in it, or taking it as a parameter) all
    empty fixtures: empty bodies, each either not public (JMH rejects such a method, so it is
    never run) or in a test source root? Those measure nothing whatever the parameter: fixtures
    of a runner's own unit tests (heldout59's JUnit runner for JMH: nine @Params on states of
    empty benchmarks its tests only reflect on or smoke-run). A public empty benchmark among the
    sources (its work commented out, heldout44) and a state no benchmark takes are still
    reported."""
    def takes(method: MethodInfo) -> bool:
        return any(last_name_of(kind.split("<", 1)[0]) == cls.name for kind, _ in method.params)

    def fixture(method: MethodInfo) -> bool:
        path = "/" + (method.source.path if method.source else "")
        return _empty_body(method.node) and ("public" not in modifier_words(method.node) or "/src/test/" in path)

    users = [method for file in index.files for other in file.classes
             for methods in other.methods.values() for method in methods
             if is_benchmark(method.node) and (other is cls or takes(method))]
    return bool(users) and all(fixture(method) for method in users)


def _empty_body(method: Node) -> bool:
    body = method.child_by_field_name("body")
    return body is not None and not any("comment" not in child.type for child in body.named_children)


def _cases(index: Index, cls: ClassInfo, info: FieldInfo, values: tuple[str, ...]) -> int | None:
    """How many cases JMH runs for a @Param: its listed values; without any, two for a boolean
    and one per constant of an enum of the project (JMH's default), None when the values come
    from the command line. An enum with one constant is a label, not a study (heldout35's
    assorted-benchmarks names its workload so in every result)."""
    if values:
        return len(values)
    listed = _listed_elements(info)
    if listed:
        return listed  # @Param({LG_K_DEFAULT}): a constant names each value (heldout60's sketches)
    if info.type in ("boolean", "Boolean"):
        return 2
    enum = index.lookup(info.type, cls)
    if enum is None or enum.node.type != "enum_declaration":
        return None
    body = enum.node.child_by_field_name("body")
    return sum(1 for c in body.named_children if c.type == "enum_constant") if body is not None else None


def _listed_elements(info: FieldInfo) -> int:
    """How many values the source lists in ``@Param`` by other means than string literals
    (constants: ``@Param({DEFAULT_SIZE})``), 0 when it lists none."""
    value = annotation_value(annotation(info.declaration, "Param"))
    if value is None:
        return 0
    if value.type == "element_value_array_initializer":
        return sum(1 for c in value.named_children if "comment" not in c.type)
    return 1


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
    text = source.data[body.start_byte:body.end_byte]
    if any(name.encode("utf-8") in text for name in names):   # most bodies name no @Param field
        for ident in source.within("identifier", body):
            if source.text(ident) in names:
                _record(bench, ident, reads)
    if names and b'"' in text:   # a field's name in a string: getParam("size")
        reads.names.update(names.intersection(w.decode("utf-8", "replace") for w in _QUOTED_NAME.findall(text)))
    for found_this in _THIS.finditer(text):
        start = body.start_byte + found_this.start()
        node = body.descendant_for_byte_range(start, start + 4)
        if node is not None and node.type == "this" and _escaping(bench, node):
            reads.escaped.append(cls)
    found: list[tuple[ClassInfo, MethodInfo]] = []
    for call in source.within("method_invocation", body):
        targets = callees(bench, call)
        for target in targets or ():
            owner = index.owner_of(target)
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


# ---------------------------------------------------------------------------------------
# Per benchmark: a @Param of a state the benchmark uses, read elsewhere (so the field-level
# check above is silent), that this benchmark's measured path never reaches. JMH runs the
# benchmark once per value all the same, so its cases measure the same thing (a class whose
# setup builds an input only some of its benchmarks use). Judged by names, the cautious way:
# whatever a setup statement that depends on the parameter mentions counts as derived from
# it, and any mention of a derived name on the benchmark's path counts as a read.

_COMPOUND = {"if_statement": "condition", "while_statement": "condition", "do_statement": "condition",
             "for_statement": None, "enhanced_for_statement": "value", "switch_expression": "condition",
             "synchronized_statement": None, "try_statement": None, "try_with_resources_statement": None,
             "block": None, "labeled_statement": None}


def check_benchmarks(ctx: FileContext) -> Iterator[Issue]:
    index = ctx.index
    for bench in ctx.benchmarks:
        if bench.body is None or annotation(bench.node, "Group") is not None \
                or "abstract" in modifier_words(bench.cls.node) or descendants(index, bench.cls):
            continue   # a group shares its states; an inherited benchmark runs on subclasses
        if not _may_have_params(index, bench):
            continue
        states = _states(index, bench)
        if states is None:
            continue
        nearest: dict[str, tuple[ClassInfo, FieldInfo]] = {}
        for state in states:   # a lineage nearest first: a subclass redeclaring a @Param gives
            for info in state.fields.values():   # its values (fory's one-value `references`)
                if param_values(info) is not None:
                    nearest.setdefault(info.name, (state, info))
        params = [info for state, info in nearest.values()
                  if len(param_values(info) or ()) > 1 and _read_elsewhere(index, state, info)]
        if not params:
            continue
        path = _path_names(index, bench, states)
        if path is None:
            continue
        key = tuple(id(s) for s in states)
        cache = _DERIVED.setdefault(index, {})
        if key not in cache:
            cache[key] = (_setup_methods(index, states), {})
        setups, by_param = cache[key]
        for info in params:
            if info.name not in by_param:   # the benchmarks of one class share their states
                by_param[info.name] = _derived(index, setups, info.name)
            derived = by_param[info.name]
            if derived is None or path & derived:
                continue
            method = bench.source.text(bench.node.child_by_field_name("name"))
            yield make_issue(bench.source, bench.node, ID, "warning",
                             f"{bench.name} never reads @Param '{info.name}' (nor anything a setup "
                             f"derives from it), so its {len(param_values(info))} cases of "
                             f"'{info.name}' measure the same thing", benchmark=bench.name,
                             hint=f"move {method} to a class without '{info.name}', or make the "
                             f"parameter change what it measures")


_DERIVED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _may_have_params(index: Index, bench: Benchmark) -> bool:
    """A cheap first look: a @Param with several values (or values given on the command line)
    in the benchmark's class or a @State parameter's class, their superclasses, or a state a
    setup of theirs takes (most benchmarks have none)."""
    flags = _FLAGS.setdefault(index, {})
    roots = [bench.cls] + [c for t in bench.params if (c := index.lookup(bench.locals[t], bench.cls))]
    for root in roots:
        for cls in index.lineage(root):
            if id(cls) not in flags:
                flags[id(cls)] = any(param_values(info) == () or len(param_values(info) or ()) > 1
                                     for info in cls.fields.values()) or \
                    any(m.params and setup_level(m.node, cls.source.text) is not None
                        for ms in cls.methods.values() for m in ms)
            if flags[id(cls)]:
                return True
    return False


_FLAGS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _read_elsewhere(index: Index, state: ClassInfo, info: FieldInfo) -> bool:
    """Some benchmark or setup reads the field (else the field-level finding says it)."""
    reads = measured_reads(index)
    return id(info) in reads.fields or info.name in reads.names or _read_nested(state, info.name) \
        or _namesake_read(index, state, info, reads)


def _states(index: Index, bench: Benchmark) -> list[ClassInfo] | None:
    """The project classes whose @Params apply to ``bench``: its class's lineage, its @State
    parameters' lineages, and the states their setups take; None when a lineage extends a
    class outside the project (its setups are not in view)."""
    found: list[ClassInfo] = []
    queue = [bench.cls] + [c for t in bench.params if (c := index.lookup(bench.locals[t], bench.cls))]
    while queue:
        for cls in index.lineage(queue.pop()):
            if any(c is cls for c in found):
                continue
            found.append(cls)
            for methods in cls.methods.values():
                for method in methods:
                    if setup_level(method.node, cls.source.text) is not None:
                        queue += [c for t, _ in method.params if (c := index.lookup(t, cls))]
    for cls in found:
        top = list(index.lineage(cls))[-1]
        if top.superclass and index.lookup(top.superclass, top) is None:
            return None
    return found


def _setup_methods(index: Index, states: list[ClassInfo]) -> list[tuple[ClassInfo, MethodInfo]]:
    """The @Setup methods of the states (any level), their overrides, and the project methods
    they call, to any depth."""
    queue = [(cls, m) for cls in states for ms in cls.methods.values() for m in ms
             if any(setup_level(above.node, c.source.text) is not None for c in index.lineage(cls)
                    for above in c.methods.get(m.name, ()) if len(above.params) == len(m.params))]
    found, seen = [], set()
    while queue:
        cls, method = queue.pop()
        if id(method.node) in seen:
            continue
        seen.add(id(method.node))
        found.append((cls, method))
        queue += _overloads(index, _scan(index, cls, method, set(), Reads()))
    return found


def _overloads(index: Index, calls: list[tuple[ClassInfo, MethodInfo]]) -> list[tuple[ClassInfo, MethodInfo]]:
    """The called methods and every method of the same name up their classes' lineage (a call
    resolves to the nearest overload by name, an overload above may be the one that runs)."""
    more = [(above, m) for cls, method in calls for above in index.lineage(cls)
            for m in above.methods.get(method.name, ())]
    return calls + more


def _path_names(index: Index, bench: Benchmark, states: list[ClassInfo]) -> set[str] | None:
    """The names the benchmark's measured path mentions other than its locals (fields, class
    names, names in strings: ``params.getParam("size")``), following project calls; None when
    a state reaches code outside the project (it may read anything there)."""
    own = next((m for ms in bench.cls.methods.values() for m in ms if m.node.id == bench.node.id), None)
    if own is None:
        return None
    names: set[str] = set()
    reads = Reads()
    members = [c for s in states for c in [*index.lineage(s), *descendants(index, s)]]
    family = {id(c) for c in members}
    queue, seen = [(bench.cls, own)], set()
    while queue:
        cls, method = queue.pop()
        if id(method.node) in seen:
            continue
        seen.add(id(method.node))
        queue += _overloads(index, _scan(index, cls, method, set(), reads))
        queue += _dispatched(index, cls, method, members)
        names |= _mentioned(index, cls, method)
    if any(id(c) in family for c in reads.escaped):
        return None
    return names


def _dispatched(index: Index, cls: ClassInfo, method: MethodInfo,
                members: list[ClassInfo]) -> list[tuple[ClassInfo, MethodInfo]]:
    """The methods of the benchmark's states (``members``) that a call lint cannot bind may run:
    ``h.data()`` in a helper taking the state as an interface (runtime-benchmarks' hashers pass
    their state to ``hash(HashingBenchmarkState state)``; the interface has no body to read, or
    is not in view at all) dispatches to the state class's ``data()`` at run time. Matched by
    name and arity on a receiver that is a variable or a field, so the path may gain methods it
    does not run: more reads, never a finding more."""
    ctx = method_context(bare_file(cls), cls, method.node, index)
    found: list[tuple[ClassInfo, MethodInfo]] = []
    for call in ctx.source.within("method_invocation", ctx.body):
        obj = call.child_by_field_name("object")
        if obj is None or obj.type not in ("identifier", "field_access"):
            continue
        targets = callees(ctx, call)
        if targets and any(t.node.child_by_field_name("body") is not None for t in targets):
            continue
        name = ctx.source.text(call.child_by_field_name("name"))
        arity = len(call.child_by_field_name("arguments").named_children)
        found += [(member, m) for member in members for m in member.methods.get(name, ())
                  if len(m.params) == arity]
    return found


def _mentioned(index: Index, cls: ClassInfo, method: MethodInfo) -> frozenset[str]:
    """The non-local names the method's body mentions, and the words of its string literals
    (once per method and project: the fixpoint of :func:`_derived` asks every round)."""
    memo = _MENTIONED.setdefault(index, {})
    if method.node.id not in memo:
        ctx = method_context(bare_file(cls), cls, method.node, index)
        body, source = ctx.body, ctx.source
        names: set[str] = set()
        if body is not None:
            names = {source.text(i) for i in source.within("identifier", body)
                     if not _is_method_name(i) and not _local(ctx, i)}
            names |= {w for s in _STRING.findall(source.text(body)) for w in re.findall(r"\w+", s)}
        memo[method.node.id] = frozenset(names)
    return memo[method.node.id]


_MENTIONED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _local(ctx: Benchmark, ident: Node) -> bool:
    """Does ``ident`` name a local or parameter (not ``this.values`` beside a local ``values``)?"""
    parent = ident.parent
    if parent is not None and parent.type == "field_access" and parent.child_by_field_name("field") == ident:
        return False
    return ctx.source.text(ident) in ctx.locals


def _class_name(ctx: Benchmark, ident: Node) -> bool:
    """A name that holds no data a setup could derive: a class or enum constant by Java's
    naming (``Config``, ``HeaderType``, ``Mode.FAST``) that is neither a local nor a project
    field, or the member of a local (``parts.length``: the local itself is what counts)."""
    text = ctx.source.text(ident)
    if text in ctx.locals:
        return False
    parent = ident.parent
    if parent is not None and parent.type == "field_access" and parent.child_by_field_name("field") == ident:
        obj = parent.child_by_field_name("object")
        if obj.type == "identifier" and ctx.source.text(obj) in ctx.locals:
            return True
    return text[:1].isupper() and ctx.field_of(ident) is None


def _is_method_name(ident: Node) -> bool:
    parent = ident.parent
    if parent is not None and parent.type == "method_reference":
        return ident == parent.named_children[-1]
    return parent is not None and parent.type in ("method_invocation", "method_declaration") \
        and parent.child_by_field_name("name") == ident


def _derived(index: Index, setups: list[tuple[ClassInfo, MethodInfo]], name: str) -> set[str] | None:
    """The names the setup code derives from the parameter ``name``: everything a statement
    that mentions the parameter (or a derived name, or a call of a method that reads one)
    mentions, all of a loop or branch whose condition does, and all of a project method such
    a statement calls (``if (type.equals("a")) setupA();``). None when such a statement
    may act outside what lint sees (``System.setProperty(key, level)``, ``Config.set(n)``)."""
    tainted = {name}
    local: dict[int, set[str]] = {}
    contexts = [(cls, m, method_context(bare_file(cls), cls, m.node, index)) for cls, m in setups]
    by_name: dict[str, list[MethodInfo]] = {}
    for _, m, _ in contexts:
        by_name.setdefault(m.name, []).append(m)
    reading: set[int] = set()
    full: set[int] = set()   # methods called where the parameter decides: all they do depends on it
    calls_of: dict[int, set[int]] = {}   # a setup method -> the setup methods it may call
    for _ in range(8):   # a fixpoint; each round can only grow the sets
        before = (len(tainted), sum(map(len, local.values())), len(reading), len(full))
        for cls, method, ctx in contexts:
            if ctx.body is None:
                continue
            mine = local.setdefault(id(method.node), set())
            names = _mentioned(index, cls, method)
            if id(method.node) not in calls_of:   # read once: the same in every round
                calls_of[id(method.node)] = {
                    id(m.node) for c in ctx.source.within("method_invocation", ctx.body)
                    for m in _overloads_of(by_name, ctx.source.text(c.child_by_field_name("name")), _arity(c))}
            if names & tainted or not calls_of[id(method.node)].isdisjoint(reading):
                reading.add(id(method.node))   # it reads the parameter, or calls a method that does
            for stmt in _statements(ctx.body):
                facts = _facts(ctx, stmt)
                if id(method.node) not in full and (
                        facts.head is None or not _depends(ctx, facts.head, tainted, mine, by_name, reading)):
                    continue
                if facts.acts_outside(ctx):
                    return None
                for text, is_local in facts.names:
                    (mine if is_local else tainted).add(text)
                for called, arity in facts.calls:
                    full.update(id(callee.node) for callee in _overloads_of(by_name, called, arity))
        if (len(tainted), sum(map(len, local.values())), len(reading), len(full)) == before:
            break
    return tainted


class _Facts:
    """What :func:`_derived` reads of one setup statement, the same in every round of its
    fixpoint and for every parameter of the class: read once (the names are its hot loop)."""

    def __init__(self, ctx: Benchmark, stmt: Node):
        source = ctx.source
        self.head = stmt if stmt.type not in _COMPOUND else _head(stmt)
        self.stmt = stmt
        self.names = [(source.text(i), _local(ctx, i)) for i in source.within("identifier", stmt)
                      if not _is_method_name(i) and not _class_name(ctx, i)]
        self.calls = [(source.text(c.child_by_field_name("name")), _arity(c))
                      for c in source.within("method_invocation", stmt)]
        self._acts: bool | None = None

    def acts_outside(self, ctx: Benchmark) -> bool:
        """Asked only of statements the parameter reaches; the context is not kept (it refers
        to the index, which keys the memo these facts live in)."""
        if self._acts is None:
            chosen = self.stmt.type in ("if_statement", "switch_expression")
            self._acts = any(_acts_outside(ctx, s, chosen) for s in (self.stmt, *_statements(self.stmt)))
        return self._acts


def _facts(ctx: Benchmark, stmt: Node) -> _Facts:
    memo = _FACTS.setdefault(ctx.index, {})
    key = (ctx.source.path, id(ctx.cls), stmt.start_byte, stmt.end_byte, stmt.type)
    if key not in memo:
        memo[key] = _Facts(ctx, stmt)
    return memo[key]


_FACTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _statements(node: Node) -> Iterator[Node]:
    """The statements of a body, compound ones and those nested in them."""
    for child in node.named_children:
        if child.type.endswith("statement") or child.type in ("local_variable_declaration", "block",
                                                              "switch_expression"):
            yield child
            if child.type in _COMPOUND or child.type == "block":
                yield from _statements(child)
        elif child.type in ("switch_block", "switch_block_statement_group", "switch_rule",
                            "catch_clause", "finally_clause"):
            yield from _statements(child)


def _head(stmt: Node) -> Node | None:
    """The part of a compound statement that decides whether its body runs."""
    field_name = _COMPOUND[stmt.type]
    if stmt.type == "for_statement":
        return stmt.child_by_field_name("condition") or stmt.child_by_field_name("init")
    if stmt.type == "try_with_resources_statement":
        return stmt.child_by_field_name("resources")
    return stmt.child_by_field_name(field_name) if field_name else None


def _arity(call: Node) -> int:
    arguments = call.child_by_field_name("arguments")
    return len(arguments.named_children) if arguments is not None else 0


def _overloads_of(by_name: dict[str, list[MethodInfo]], name: str, arity: int | None) -> list[MethodInfo]:
    """The setup methods a call of ``name`` with ``arity`` arguments may run: a base class's
    ``setup(provider)`` is not the subclass's ``setup()`` that reads the parameter (heldout43's
    OpenJCEPlus: the name alone tied every payload size to the base's global provider switch).
    A varargs method takes any count."""
    found = by_name.get(name, ())
    if arity is None:
        return list(found)
    return [m for m in found if len(m.params) == arity or _varargs(m)]


def _varargs(method: MethodInfo) -> bool:
    params = method.node.child_by_field_name("parameters")
    return params is not None and any(p.type == "spread_parameter" for p in params.named_children)


def _depends(ctx: Benchmark, node: Node, tainted: set[str], mine: set[str],
             by_name: dict[str, list[MethodInfo]], reading: set[int]) -> bool:
    source = ctx.source
    for ident in source.within("identifier", node):
        text = source.text(ident)
        if _is_method_name(ident):
            call = ident.parent if ident.parent is not None and ident.parent.type == "method_invocation" else None
            if any(id(m.node) in reading for m in _overloads_of(by_name, text, _arity(call) if call else None)):
                return True
        elif text in (mine if _local(ctx, ident) else tainted):
            return True
    for created in source.within("object_creation_expression", node):
        made = ctx.index.lookup(source.text(created.child_by_field_name("type")).split("<")[0], ctx.cls)
        if made is not None and any(_mentioned(ctx.index, c, m) & tainted for c in ctx.index.lineage(made)
                                    for ms in c.methods.values() for m in ms):
            return True   # new Worker(): its methods read the parameter when the benchmark calls them
    strings = " ".join(_STRING.findall(source.text(node)))
    return any(re.search(rf"\b{re.escape(t)}\b", strings) for t in tainted) if strings else False


def _acts_outside(ctx: Benchmark, stmt: Node, chosen: bool = False) -> bool:
    """A statement called for its effect on code outside the project, which may keep global
    state the benchmark meets there: a static call with nothing of the benchmark's own as an
    argument (``Config.set(n)``, ``System.setProperty(k, v)``), a method of the parameter
    itself (``mode.initialize()``), or of a library object other than a JDK container
    (``metrics.bindTo(registry)`` registers with a global logger context)."""
    if stmt.type not in ("expression_statement", "local_variable_declaration"):
        return False
    if _starts_activity(ctx, stmt) or _padding(ctx, stmt):
        return True
    for target in _assigned(stmt):
        info = ctx.field_of(target) if target.type in ("identifier", "field_access") else None
        if info is not None and info.static:
            return True   # a static field: any state's constructor or any class may read it
        if info is None and _library_static_field(ctx, target):
            return True   # Executor.COLUMNAR = columnar: a switch of a class lint cannot see
    value = _assigned_value(stmt)
    if value is not None:   # context = RequestContext.initializeContext() in a branch the
        args = value.child_by_field_name("arguments")   # parameter chooses: run for its effect
        return chosen and _static_library_call(ctx, value) and not _own_names(ctx, args) and not any(
            i.type in ("identifier", "field_access") for i in args.named_children)
    expr = stmt.named_children[0] if stmt.named_children else None
    if expr is None:
        return False
    if expr.type == "object_creation_expression":   # new Worker(n); kept for its effect
        made = ctx.index.lookup(ctx.source.text(expr.child_by_field_name("type")).split("<")[0], ctx.cls)
        return made is None and not _own_names(ctx, expr.child_by_field_name("arguments"))
    if expr.type != "method_invocation" or callees(ctx, expr) is not None:
        return False   # an assignment, or a project method (followed as a whole)
    root = expr
    while root.type == "method_invocation" and root.child_by_field_name("object") is not None:
        root = root.child_by_field_name("object")
    if root.type == "method_invocation":
        return callees(ctx, root) is None and not _own_names(ctx, expr.child_by_field_name("arguments"))
    if root.type in ("this", "super"):
        return False
    if root.type in ("identifier", "field_access"):
        info = ctx.field_of(root)
        if info is not None and param_values(info) is not None:
            return True   # mode.initialize(): the parameter's own method, called for its effect
        text = ctx.source.text(root)
        kind = ctx.locals.get(text) if root.type == "identifier" and text in ctx.locals else \
            (info.type if info is not None else None)
        if kind is not None:
            base = kind.split("<", 1)[0].strip()
            return not (base.endswith("]") or last_name_of(base) in _LOCAL_EFFECT
                        or ctx.index.lookup(base, ctx.cls) is not None)
    return not _own_names(ctx, expr.child_by_field_name("arguments"))


# Calls that start work beside the measurement: a process, a thread, a task of a pool.
_ACTIVITY = frozenset({"start", "exec", "submit", "execute", "scheduleAtFixedRate", "scheduleWithFixedDelay"})


def _starts_activity(ctx: Benchmark, stmt: Node) -> bool:
    """Does the statement, or a project method it calls, start a process, a thread or a pool's
    task (``new ProcessBuilder("sha1sum", "/dev/zero").start()`` for each of ``noisyNeighbors``,
    heldout52)? That activity competes with the measurement for the machine: the parameter
    reaches what is measured through it, though no field carries it there."""
    source = ctx.source
    for call in source.within("method_invocation", stmt):
        if source.text(call.child_by_field_name("name")) in _ACTIVITY:
            return True
        method = ctx.call(call).method
        body = method.node.child_by_field_name("body") if method is not None and method.source is not None else None
        if body is not None and any(n.type == "method_invocation"
                                    and method.source.text(n.child_by_field_name("name")) in _ACTIVITY
                                    for n in method.source.within("method_invocation", body)):
            return True
    return False


def _padding(ctx: Benchmark, stmt: Node) -> bool:
    """Does the statement allocate an array that nothing reads, before another allocation of
    the same block (``gap = new long[padding]`` between two arrays the benchmark uses;
    heldout52's and simdbenchmarks' alignment offsets)?
    Its only effect is where the next allocation lands: the parameter moves the measured arrays
    in memory, which is the point of such a benchmark."""
    if stmt.type == "local_variable_declaration":
        declarators = stmt.children_by_field_name("declarator")
        targets = [d.child_by_field_name("name") for d in declarators]
        value = declarators[0].child_by_field_name("value") if len(declarators) == 1 else None
    else:
        targets = _assigned(stmt)
        value = stmt.named_children[0].child_by_field_name("right") if targets else None
    if value is None or value.type != "array_creation_expression":
        return False
    later = stmt.next_named_sibling
    while later is not None and not _allocates(later):
        later = later.next_named_sibling
    if later is None:
        return False   # nothing allocated after it: an unused array, not a gap before one
    if len(targets) != 1 or targets[0] is None or targets[0].type not in ("identifier", "field_access"):
        return False
    name = last_name(targets[0]) if targets[0].type == "field_access" else ctx.source.text(targets[0])
    scope = ctx.body if stmt.type == "local_variable_declaration" or name in ctx.locals else ctx.cls.node
    target = targets[0] if targets[0].type == "identifier" else targets[0].child_by_field_name("field")
    return not any(ctx.source.text(n) == name and n != target and not (
        n.parent.type == "variable_declarator" and n.parent.child_by_field_name("name") == n)
        for n in ctx.source.within("identifier", scope))   # declared and stored, never read


def _allocates(stmt: Node) -> bool:
    """Does the statement store something new: ``b = new double[n]``, or ``b = createArray(n)``
    (a factory's result, which is usually a fresh allocation)?"""
    for n in walk(stmt):
        value = n.child_by_field_name("right") if n.type == "assignment_expression" else \
            n.child_by_field_name("value") if n.type == "variable_declarator" else None
        if value is not None and value.type in ("array_creation_expression", "object_creation_expression",
                                                "method_invocation"):
            return True
    return False


def _library_static_field(ctx: Benchmark, target: Node) -> bool:
    """Is ``target`` a field of a class named directly (``Executor.FLAG``), not a local, a field
    or a parameter? Such a class is outside the project or a static switch of its own (sirix
    sets SirixVectorizedExecutor.ARRAY_CONTAINS_COLUMNAR_ENABLED from a @Param; heldout25)."""
    if target.type != "field_access":
        return False
    obj = target.child_by_field_name("object")
    return obj is not None and obj.type == "identifier" and _class_name(ctx, obj)


def _assigned(stmt: Node) -> list[Node]:
    expr = stmt.named_children[0] if stmt.named_children else None
    if stmt.type == "expression_statement" and expr is not None and expr.type == "assignment_expression":
        return [expr.child_by_field_name("left")]
    return []


def _assigned_value(stmt: Node) -> Node | None:
    """The value of ``x = v;`` or ``T x = v;`` when it is a method call, else None."""
    expr = stmt.named_children[0] if stmt.named_children else None
    if stmt.type == "expression_statement" and expr is not None and expr.type == "assignment_expression":
        value = expr.child_by_field_name("right")
    elif stmt.type == "local_variable_declaration":
        decl = stmt.child_by_field_name("declarator")
        value = decl.child_by_field_name("value") if decl is not None else None
    else:
        return None
    return value if value is not None and value.type == "method_invocation" else None


def _static_library_call(ctx: Benchmark, call: Node) -> bool:
    """``Lib.f()`` or ``Lib.get().f()``: a call rooted at a class name outside the project."""
    if callees(ctx, call) is not None:
        return False
    root = call
    while root.type == "method_invocation" and root.child_by_field_name("object") is not None:
        root = root.child_by_field_name("object")
    if root.type != "identifier" or root is call:
        return False
    text = ctx.source.text(root)
    return text not in ctx.locals and ctx.field_of(root) is None and text[:1].isupper() \
        and ctx.index.lookup(text, ctx.cls) is None


# JDK types whose methods change only the object itself (a call on one in setup fills it).
_LOCAL_EFFECT = frozenset({
    "List", "ArrayList", "LinkedList", "Map", "HashMap", "TreeMap", "LinkedHashMap", "SortedMap",
    "NavigableMap", "ConcurrentMap", "ConcurrentHashMap", "ConcurrentSkipListMap", "Set", "HashSet",
    "TreeSet", "LinkedHashSet", "SortedSet", "NavigableSet", "Collection", "Queue", "Deque",
    "ArrayDeque", "PriorityQueue", "BlockingQueue", "ArrayBlockingQueue", "LinkedBlockingQueue",
    "StringBuilder", "StringBuffer", "BitSet", "Random", "SecureRandom", "SplittableRandom",
    "ByteBuffer", "CharBuffer", "ShortBuffer", "IntBuffer", "LongBuffer", "FloatBuffer",
    "DoubleBuffer", "ByteArrayOutputStream", "ByteArrayInputStream", "DataOutputStream",
    "DataInputStream", "AtomicInteger", "AtomicLong", "AtomicBoolean", "AtomicReference",
    "AtomicIntegerArray", "AtomicLongArray", "Iterator", "ListIterator",
    # JDK engines that keep what they are fed in the object itself (a signature's message, a
    # digest's or a deflater's input): sig.update(payload) makes sig depend on the parameter and
    # touches nothing global (heldout43's OpenJCEPlus: key generation never read payloadSize)
    "MessageDigest", "Signature", "Cipher", "Mac", "KeyAgreement", "KeyGenerator", "KeyPairGenerator",
    "Deflater", "Inflater", "CRC32", "CRC32C", "Adler32", "Checksum", "CharsetEncoder", "CharsetDecoder",
    "Matcher"})


_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_VALUE_TYPES = frozenset({"int", "long", "short", "byte", "char", "boolean", "float", "double", "String",
                          "Integer", "Long", "Short", "Byte", "Character", "Boolean", "Float", "Double"})


def _own_names(ctx: Benchmark, node: Node | None) -> bool:
    """Is an argument in ``node`` an object of the benchmark's own, a local or a field that is
    not a plain value (a list, a map, a buffer the call may fill: ``shuffle(keys)``)? Only
    whole arguments count: ``setProperty(key, NAMES.get(alias))`` only reads ``NAMES``."""
    if node is None:
        return False
    for ident in node.named_children:
        if ident.type == "field_access":
            ident = ident.child_by_field_name("field")
        if ident.type != "identifier":
            continue
        text = ctx.source.text(ident)
        if text in ctx.locals:
            if ctx.locals[text] not in _VALUE_TYPES:
                return True
            continue
        info = ctx.field_of(ident)
        if info is not None and info.type not in _VALUE_TYPES and param_values(info) is None:
            return True
    return False
