"""Tree-sitter helpers for Go test files: parsing, selectors, scopes and go.mod versions.

Go benchmarks are ``func BenchmarkXxx(b *testing.B)`` functions in ``_test.go`` files (the
``testing`` package documentation, section "Benchmarks"). Like the Java rules, the Go rules
read source only: nothing is built, and names resolve by spelling, not by type checking.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import Path

from tree_sitter import Language, Node, Parser

import tree_sitter_go

from rigorbench.lint.parse import SourceFile

_GO_LINE = re.compile(rb"^\s*go\s+(\d+)\.(\d+)", re.MULTILINE)


@functools.lru_cache(maxsize=1)
def parser() -> Parser:
    """One Go parser per process, created on first use."""
    return Parser(Language(tree_sitter_go.language()))


def parse_go(path: str, data: bytes) -> SourceFile:
    return SourceFile(path, data, parser().parse(data))


def walk_code(node: Node, skip: frozenset[int] = frozenset(), *, closures: bool = True) -> Iterator[Node]:
    """Pre-order traversal that skips nodes whose id is in ``skip``; with ``closures=False``
    it does not enter function literals (they run elsewhere)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.id in skip and current is not node:
            continue
        yield current
        if closures or current.type != "func_literal" or current is node:
            stack.extend(reversed(current.children))


def walk_no_closures(node: Node) -> Iterator[Node]:
    return walk_code(node, closures=False)


def is_selector(node: Node | None, operand: str, field: str | None = None) -> bool:
    """``node`` is ``operand.field`` (any field when ``field`` is None)."""
    if node is None or node.type != "selector_expression":
        return False
    left, right = node.child_by_field_name("operand"), node.child_by_field_name("field")
    return (left is not None and left.type == "identifier" and left.text.decode() == operand
            and (field is None or (right is not None and right.text.decode() == field)))


def method_call(node: Node | None, receiver: str, names: frozenset[str] | set[str]) -> str | None:
    """The method name when ``node`` is ``receiver.M(...)`` with M in ``names``, else None."""
    if node is None or node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    if is_selector(function, receiver):
        name = function.child_by_field_name("field").text.decode()
        return name if name in names else None
    return None


def statement_call(statement: Node, receiver: str, names: frozenset[str] | set[str]) -> str | None:
    """The method name when ``statement`` is the statement ``receiver.M(...)``."""
    if statement.type != "expression_statement" or not statement.named_children:
        return None
    return method_call(statement.named_children[0], receiver, names)


def statements(block: Node | None) -> list[Node]:
    """The statements of a ``block`` (tree-sitter-go wraps them in a ``statement_list``)."""
    if block is None:
        return []
    for child in block.named_children:
        if child.type == "statement_list":
            return [c for c in child.named_children if c.type != "comment"]
    return [c for c in block.named_children if c.type != "comment"]


def dotted(node: Node | None) -> str:
    """``f``, ``pkg.F`` or ``pkg.Var.M`` for a name or selector chain (empty for anything else)."""
    if node is None:
        return ""
    if node.type == "identifier":
        return node.text.decode()
    if node.type == "selector_expression":
        left = dotted(node.child_by_field_name("operand"))
        field = node.child_by_field_name("field")
        return f"{left}.{field.text.decode()}" if left and field is not None else ""
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return dotted(node.named_children[0])
    return ""


def go_version(mod: Path) -> tuple[int, int] | None:
    """The ``go`` line of a go.mod file as (major, minor); None when it has none or is unreadable."""
    try:
        match = _GO_LINE.search(mod.read_bytes())
    except OSError:
        return None
    return (int(match.group(1)), int(match.group(2))) if match else None
