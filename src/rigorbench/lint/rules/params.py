"""What PARAMW and PARAMU share: ``@Param`` fields, fixture levels, subclasses, name uses.

JMH creates a ``@State`` object with its no-argument constructor, then sets every ``@Param``
field by reflection, then runs the ``@Setup`` methods (Level.Trial, then Level.Iteration,
then Level.Invocation) and the benchmark (JMHSample_27_Params; the generated
``_jmh_tryInit_`` code). So a constructor or a field initializer only gives the default
that the injected value replaces; a ``@Setup`` method or the benchmark runs after it.
"""

from __future__ import annotations

import re
import weakref

from tree_sitter import Node

from rigorbench.lint.context import Benchmark
from rigorbench.lint.index import ClassInfo, FieldInfo, FileInfo, Index, MethodInfo
from rigorbench.lint.parse import annotation, annotation_value

# Fixture levels in the order JMH runs them; a @Setup without a level is Level.Trial.
LEVELS = {"Trial": 0, "Iteration": 1, "Invocation": 2}
BEFORE_EVERY = {0: "trial", 1: "iteration", 2: "benchmark call"}


def param_values(info: FieldInfo) -> tuple[str, ...] | None:
    """The values of ``@Param`` on ``info``: () when it has none in the source (an enum or a
    boolean, or values given with ``-p``), None when the field is not a @Param."""
    param = annotation(info.declaration, "Param")
    if param is None:
        return None
    value = annotation_value(param)
    if value is None:
        return ()
    return tuple(re.findall(r'"((?:[^"\\]|\\.)*)"', info.source.text(value)))


def setup_level(method: Node, text) -> int | None:
    """The :data:`LEVELS` rank of a ``@Setup`` method, None when ``method`` is not one."""
    setup = annotation(method, "Setup")
    if setup is None:
        return None
    value = annotation_value(setup)
    word = text(value).rsplit(".", 1)[-1].strip() if value is not None else "Trial"
    return LEVELS.get(word, 0)


_CHILDREN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def descendants(index: Index, cls: ClassInfo) -> list[ClassInfo]:
    """The project classes that extend ``cls``, directly or not."""
    if index not in _CHILDREN:
        children: dict[int, list[ClassInfo]] = {}
        for found in index.classes.values():
            for child in found:
                parent = index.lookup(child.superclass, child) if child.superclass else None
                if parent is not None and parent is not child:
                    children.setdefault(id(parent), []).append(child)
        _CHILDREN[index] = children
    children = _CHILDREN[index]
    result, stack, seen = [], list(children.get(id(cls), ())), {id(cls)}
    while stack:
        current = stack.pop()
        if id(current) not in seen:
            seen.add(id(current))
            result.append(current)
            stack.extend(children.get(id(current), ()))
    return result


_METHOD_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def method_names(index: Index) -> frozenset[str]:
    """The names of all methods declared in the project (a call by another name is not one)."""
    if index not in _METHOD_NAMES:
        _METHOD_NAMES[index] = frozenset(name for found in index.classes.values()
                                         for cls in found for name in cls.methods)
    return _METHOD_NAMES[index]


def bare_file(cls: ClassInfo) -> FileInfo:
    """A :class:`FileInfo` for a class of another file (enough to resolve its methods)."""
    return FileInfo(cls.source, cls.package, (), (), ())


def owner_class(index: Index, method: MethodInfo) -> ClassInfo | None:
    return index.owner_of(method)


def mentions(source, node: Node | None, name: str) -> bool:
    """Whether ``name`` occurs in ``node`` as a variable or field, not as a method name."""
    if node is None:
        return False
    for ident in source.within("identifier", node):
        if source.text(ident) != name:
            continue
        parent = ident.parent
        if parent is not None and parent.type == "method_invocation" \
                and parent.child_by_field_name("name") == ident:
            continue
        return True
    return False


def callees(bench: Benchmark, call: Node) -> list[MethodInfo] | None:
    """The project methods a call may run (overloads, and overrides in project subclasses),
    or None when it is not a project method."""
    index, name = bench.index, bench.source.text(call.child_by_field_name("name"))
    if name not in method_names(index):
        return None
    obj = call.child_by_field_name("object")
    if obj is not None and obj.type == "super":
        parent = index.lookup(bench.cls.superclass, bench.cls) if bench.cls.superclass else None
        return list(index.methods(parent, name)) or None
    if obj is None or obj.type == "this":
        receiver: ClassInfo | None = bench.cls
    else:
        resolved = bench.call(call)
        receiver = owner_class(index, resolved.method) if resolved.method is not None else None
    found = list(index.methods(receiver, name)) if receiver is not None else []
    outer = bench.cls.qualified
    while not found and obj is None and "." in outer:
        # an unqualified call from a nested class may run an enclosing class's method (a state
        # class's setup calling the outer benchmark's static writer; nessie's AvroSerializeBench);
        # the walk ends at the package, where the prefix names no class
        outer = outer.rsplit(".", 1)[0]
        receiver = index.qualified.get(outer)
        if receiver is None:
            break
        found = list(index.methods(receiver, name))
    if not found:
        return None
    for sub in descendants(index, receiver):
        found += sub.methods.get(name, [])
    return found
