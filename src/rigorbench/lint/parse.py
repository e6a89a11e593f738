"""Tree-sitter helpers for Java source: parsing, positions, annotations, modifiers.

The linter reads Java *source* (no build needed), unlike the bytecode analysis of Costa et
al. 2019 (SpotJMH Bugs, section 4.1). Everything here is a small, generic query over the
concrete syntax tree produced by the tree-sitter Java grammar.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

import tree_sitter_java

# Node types that open a new code body: statements inside them do not run as part of the
# enclosing method's own control flow (they are captured, deferred or a different class).
NESTED_BODIES = frozenset({"lambda_expression", "class_body", "class_declaration"})
LOOPS = frozenset({"for_statement", "enhanced_for_statement", "while_statement",
                   "do_statement"})


# Node types the rules look up by type; one tree-sitter query per file collects them all,
# which is much faster than walking the tree from Python once per rule.
INDEXED_TYPES = ("class_declaration", "enum_declaration", "record_declaration",
                 "method_invocation", "assignment_expression", "update_expression",
                 "field_access", "identifier", "local_variable_declaration",
                 "expression_statement", "lambda_expression", "method_reference", "class_body",
                 "object_creation_expression", "formal_parameter", "spread_parameter",
                 "catch_formal_parameter", "resource", "enhanced_for_statement",
                 "return_statement", "throw_statement", "synchronized_statement")


@functools.lru_cache(maxsize=1)
def language() -> Language:
    return Language(tree_sitter_java.language())


@functools.lru_cache(maxsize=1)
def parser() -> Parser:
    """One Java parser per process, created on first use."""
    return Parser(language())


@functools.lru_cache(maxsize=1)
def _node_query() -> Query:
    return Query(language(), " ".join(f"({t}) @{t}" for t in INDEXED_TYPES))


@dataclass(frozen=True, eq=False)
class SourceFile:
    """A parsed Java file: ``path`` as discovered, its bytes, its text and its tree."""

    path: str
    data: bytes
    tree: Tree

    @property
    def root(self) -> Node:
        return self.tree.root_node

    @functools.cached_property
    def nodes(self) -> dict[str, tuple[list[int], list[Node]]]:
        """Nodes of each of :data:`INDEXED_TYPES` in document order, with their start bytes."""
        found = QueryCursor(_node_query()).captures(self.root)
        table = {}
        for kind in INDEXED_TYPES:
            nodes = sorted(found.get(kind, ()), key=lambda n: (n.start_byte, -n.end_byte))
            table[kind] = ([n.start_byte for n in nodes], nodes)
        return table

    def within(self, kind: str, node: Node | None) -> list[Node]:
        """Nodes of an indexed ``kind`` inside ``node`` (``node`` included), in order."""
        if node is None:
            return []
        starts, nodes = self.nodes[kind]
        start, end = node.start_byte, node.end_byte
        low = bisect.bisect_left(starts, start)
        high = bisect.bisect_left(starts, end)
        # Nodes nest, so of those starting inside ``node`` only an enclosing one that starts at
        # the same byte can end after it; sorted longest first, they lead the slice.
        while low < high and starts[low] == start and nodes[low].end_byte > end:
            low += 1
        return nodes[low:high]

    def text(self, node: Node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8")

    def position(self, node: Node) -> tuple[int, int]:
        """1-based line and column (in characters, not bytes) of ``node``'s start."""
        return self.point(node.start_byte, node.start_point)

    def end_position(self, node: Node) -> tuple[int, int]:
        return self.point(node.end_byte, node.end_point)

    def point(self, byte: int, point) -> tuple[int, int]:
        row, col = point
        line_start = byte - col
        return row + 1, len(self.data[line_start:byte].decode("utf-8", "replace")) + 1

    def line_indent(self, node: Node) -> str:
        """The whitespace that starts the line ``node`` starts on."""
        start = self.data.rfind(b"\n", 0, node.start_byte) + 1
        end = start
        while end < len(self.data) and self.data[end:end + 1] in (b" ", b"\t"):
            end += 1
        return self.data[start:end].decode("utf-8")


def parse(path: str, data: bytes) -> SourceFile:
    return SourceFile(path, data, parser().parse(data))


def first_error(node: Node) -> Node | None:
    """The first ERROR or MISSING node under ``node`` (document order), or None."""
    if not node.has_error:
        return None
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "ERROR" or current.is_missing:
            return current
        stack.extend(c for c in reversed(current.children) if c.has_error or c.is_missing)
    return None


def walk(node: Node, *, into_nested: bool = True) -> Iterator[Node]:
    """Pre-order traversal; with ``into_nested=False`` lambdas and class bodies are skipped."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is not node and not into_nested and current.type in NESTED_BODIES:
            continue
        stack.extend(reversed(current.children))


def last_name(node: Node | None) -> str:
    """The simple name of an identifier, scoped identifier or field access (``a.b.C`` -> C)."""
    if node is None:
        return ""
    if node.type in ("scoped_identifier", "scoped_type_identifier", "field_access"):
        child = node.child_by_field_name("name") or node.child_by_field_name("field")
        if child is None:
            child = node.named_children[-1]
        return last_name(child)
    if node.type == "generic_type":
        return last_name(node.named_children[0])
    return node.text.decode("utf-8") if node.text is not None else ""


def modifiers_node(declaration: Node) -> Node | None:
    return next((c for c in declaration.children if c.type == "modifiers"), None)


def modifier_words(declaration: Node) -> frozenset[str]:
    mods = modifiers_node(declaration)
    if mods is None:
        return frozenset()
    return frozenset(c.type for c in mods.children if c.type not in ("annotation",
                                                                      "marker_annotation"))


def annotations(declaration: Node) -> list[tuple[str, Node]]:
    """``(simple name, annotation node)`` for each annotation on a declaration."""
    mods = modifiers_node(declaration)
    if mods is None:
        return []
    return [(last_name(a.child_by_field_name("name")), a) for a in mods.children
            if a.type in ("annotation", "marker_annotation")]


def annotation(declaration: Node, name: str) -> Node | None:
    return _annotation_table(declaration).get(name)


def forget_annotations() -> None:
    """Drop the cached annotation tables (and the parse trees their nodes keep alive)."""
    _annotation_table.cache_clear()


@functools.lru_cache(maxsize=8192)
def _annotation_table(declaration: Node) -> dict[str, Node]:
    """Simple name -> the first annotation of that name on a declaration. The rules ask
    :func:`annotation` about every method and field many times over, so each declaration's
    modifiers are read once (a tree-sitter node hashes by identity; the cache is bounded)."""
    table: dict[str, Node] = {}
    mods = modifiers_node(declaration)
    for node in mods.children if mods is not None else ():
        if node.type in ("annotation", "marker_annotation"):
            named = node.child_by_field_name("name")
            if named is not None:
                table.setdefault(last_name(named), node)
    return table


def annotation_value(node: Node, key: str = "value") -> Node | None:
    """The expression given for ``key`` (``@A(x)`` counts as ``value = x``), or None."""
    args = node.child_by_field_name("arguments")
    if args is None:
        return None
    for child in args.named_children:
        if child.type == "element_value_pair":
            if last_name(child.child_by_field_name("key")) == key:
                return child.child_by_field_name("value")
        elif key == "value":
            return child
    return None


def int_literal(node: Node | None) -> int | None:
    """The value of a decimal/hex integer literal (``1_000``, ``0x10``, ``5L``), else None."""
    if node is None or node.type not in ("decimal_integer_literal", "hex_integer_literal"):
        return None
    text = node.text.decode("utf-8").replace("_", "").rstrip("lL")
    try:
        return int(text, 16 if node.type == "hex_integer_literal" else 10)
    except ValueError:
        return None


def written(node: Node) -> Node:
    """What an ``assignment_expression`` or ``update_expression`` writes."""
    return node.child_by_field_name("left") if node.type == "assignment_expression" else node.named_children[0]


def enclosing(node: Node, types: frozenset[str] | set[str]) -> Node | None:
    current = node.parent
    while current is not None and current.type not in types:
        current = current.parent
    return current


def enclosing_loop(node: Node, stop: Node) -> Node | None:
    """The innermost loop around ``node`` below ``stop`` (a method body); None when there is
    none, or when a lambda or a local class lies between them (their code runs elsewhere)."""
    current = node.parent
    while current is not None and current != stop:
        if current.type in LOOPS:
            return current
        if current.type in ("lambda_expression", "class_body"):
            return None
        current = current.parent
    return None
