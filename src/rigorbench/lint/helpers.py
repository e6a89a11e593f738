"""Project helper methods whose bodies show they only compute a value from their arguments.

JMHSample_09_Blackholes drops the result of ``compute(x)``, a private method of the same
class: the JIT inlines it and, the value being unused, removes it. We can only say that of a
method whose body we can read and that cannot be overridden (``private``, ``static`` or
``final``, or declared in a ``final`` class). It must take and return primitives (so it
reaches no heap state through its arguments), write only its own locals, allocate nothing
except the exception it throws, and call only pure JDK methods (:mod:`rigorbench.lint.pure`)
or other such helpers of its class.

Such a helper is *pure*; it is also *cheap* when every loop in it runs a number of times
fixed by a literal bound (``for (c = 0; c < 8; c++)``): a nanosecond-scale operation, the
kind whose per-call cost JMHSample_11/34 loops misreport.
"""

from __future__ import annotations

import weakref

from tree_sitter import Node

from rigorbench.lint.index import ClassInfo, Index, MethodInfo
from rigorbench.lint.parse import LOOPS, modifier_words, walk, written
from rigorbench.lint.pure import pure_static

PRIMITIVES = frozenset({"int", "long", "short", "byte", "char", "boolean", "float", "double"})
PURE, CHEAP = "pure", "cheap"
_MAX_DEPTH = 4


_VERDICTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def classify(index: Index, method: MethodInfo) -> str | None:
    """``"cheap"``, ``"pure"`` (side-effect free but with data-dependent loops) or None.

    Remembered per method (a :class:`MethodInfo` belongs to one index build)."""
    if method not in _VERDICTS:
        _VERDICTS[method] = _classify(index, method, 0, frozenset())
    return _VERDICTS[method]


def _classify(index: Index, method: MethodInfo, depth: int, seen: frozenset) -> str | None:
    cls = index.lookup(method.owner)
    body = method.node.child_by_field_name("body")
    if cls is None or body is None or depth > _MAX_DEPTH or not _closed(cls, method):
        return None
    if method.return_type not in PRIMITIVES or any(t not in PRIMITIVES for t, _ in method.params):
        return None
    text = cls.source.text
    names = {n for _, n in method.params} | _declared(body, text)
    verdict = CHEAP
    for node in walk(body):
        kind = node.type
        if kind in ("object_creation_expression", "array_creation_expression") \
                and not _in_throw(node, body):
            return None
        if kind in ("assignment_expression", "update_expression"):
            target = written(node)
            if target.type != "identifier" or text(target) not in names:
                return None
        elif kind in ("lambda_expression", "method_reference", "class_body",
                      "synchronized_statement"):
            return None
        elif kind == "method_invocation":
            callee = _callee(index, cls, node, depth, seen | {method.node.start_byte})
            if callee is None:
                return None
            verdict = PURE if callee == PURE else verdict
        elif kind in LOOPS and not _literal_bound(node):
            verdict = PURE
    return verdict


def _closed(cls: ClassInfo, method: MethodInfo) -> bool:
    """Can the call be resolved to this body (no override can replace it)?"""
    words = modifier_words(method.node)
    return bool(words & {"private", "static", "final"}) or "final" in modifier_words(cls.node)


def _declared(body: Node, text) -> set[str]:
    names = set()
    for node in walk(body):
        if node.type == "variable_declarator" or node.type in ("formal_parameter",
                                                                 "catch_formal_parameter"):
            name = node.child_by_field_name("name")
            if name is not None:
                names.add(text(name))
    return names


def _in_throw(node: Node, stop: Node) -> bool:
    current = node.parent
    while current is not None and current != stop:
        if current.type == "throw_statement":
            return True
        current = current.parent
    return False


def _callee(index: Index, cls: ClassInfo, node: Node, depth: int, seen: frozenset) -> str | None:
    text = cls.source.text
    name = text(node.child_by_field_name("name"))
    obj = node.child_by_field_name("object")
    if obj is not None and obj.type == "identifier" and text(obj) != cls.name:
        return CHEAP if pure_static(text(obj), name)[0] else None
    if obj is not None and obj.type not in ("identifier", "this"):
        return None
    methods = index.methods(cls, name)
    if not methods:
        return None
    verdicts = [CHEAP if m.node.start_byte in seen and m.owner == cls.qualified
                else _classify(index, m, depth + 1, seen) for m in methods]
    if any(v is None for v in verdicts):
        return None
    return CHEAP if all(v == CHEAP for v in verdicts) else PURE


def _literal_bound(loop: Node) -> bool:
    condition = loop.child_by_field_name("condition")
    if condition is None or loop.type == "enhanced_for_statement":
        return False
    return any(n.type in ("decimal_integer_literal", "hex_integer_literal") for n in walk(condition))
