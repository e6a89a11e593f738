"""What a Go rule sees: a ``_test.go`` file, its benchmark bodies and their measured loops.

A *benchmark body* is a function or function literal with a ``*testing.B`` parameter: the
``func BenchmarkXxx(b *testing.B)`` functions the testing package runs, the literals given
to ``b.Run``, and helpers such as ``func benchmarkSize(b *testing.B, n int)``. A literal
with its own ``*testing.B`` is a body of its own and not part of the body around it (its
timer, b.N and loop are its own). A *measured loop* is ``for ...; i < b.N; ...``,
``for range b.N`` (any loop whose header reads b.N), ``for b.Loop()``, or the
``for pb.Next()`` loop of a ``b.RunParallel`` function.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from tree_sitter import Node

from rigorbench.lint.go.package import GoPackage, GoProject, imports
from rigorbench.lint.go.parse import is_selector, method_call, walk_code
from rigorbench.lint.go.purity import Purity, declared_names
from rigorbench.lint.parse import SourceFile

BENCHMARK_NAME = re.compile(r"^Benchmark(?![a-z])")
HEADERS = frozenset({"for_clause", "range_clause", "block"})


@dataclass(frozen=True)
class MeasuredLoop:
    """A ``for`` statement that runs the measured code; ``kind`` is n, loop or parallel."""

    node: Node
    kind: str

    @property
    def body(self) -> Node:
        return self.node.child_by_field_name("body")


@dataclass(frozen=True, eq=False)
class BenchBody:
    """A function or literal with a ``*testing.B`` parameter named ``b`` (empty if unnamed)."""

    source: SourceFile
    node: Node
    b: str
    name: str
    top_level: bool
    nested: frozenset[int] = frozenset()
    pb_names: frozenset[str] = frozenset()
    loops: tuple[MeasuredLoop, ...] = ()

    @property
    def body(self) -> Node | None:
        return self.node.child_by_field_name("body")

    def walk(self) -> Iterator[Node]:
        """The nodes of this body, without nested benchmark literals."""
        return walk_code(self.body, self.nested) if self.body is not None else iter(())

    def uses_b_loop(self) -> bool:
        return any(loop.kind == "loop" for loop in self.loops)


@dataclass(frozen=True, eq=False)
class GoFileContext:
    """One ``_test.go`` file with its package, imports, go.mod version and benchmark bodies."""

    source: SourceFile
    package: GoPackage
    imports: dict[str, str]
    version: tuple[int, int] | None
    bodies: tuple[BenchBody, ...] = field(default=())

    @property
    def benchmarks(self) -> list[BenchBody]:
        """The benchmark functions the testing package runs (``func BenchmarkXxx``)."""
        return [body for body in self.bodies if body.top_level]

    def purity(self, body: BenchBody) -> Purity:
        return Purity(self.package, self.imports, declared_names(body.node))

    def at_least(self, major: int, minor: int) -> bool:
        return self.version is not None and self.version >= (major, minor)


def go_file_context(source: SourceFile, project: GoProject) -> GoFileContext:
    table = imports(source)
    testing = {name for name, path in table.items() if path == "testing"}
    functions = [n for n in walk_code(source.root) if n.type in ("function_declaration", "func_literal")]
    params = {f.id: _testing_param(f, testing, "B") for f in functions}
    with_b = [f for f in functions if params[f.id] is not None]
    bodies = []
    for function in with_b:
        nested = frozenset(g.id for g in with_b if g.id != function.id and _inside(g, function))
        pb = frozenset(name for g in functions if _inside(g, function)
                       for name in [_testing_param(g, testing, "PB")] if name)
        body = BenchBody(source, function, params[function.id], _display_name(function),
                         _is_benchmark(function), nested, pb)
        bodies.append(replace(body, loops=tuple(_measured_loops(body))))
    return GoFileContext(source, project.package(source), table, project.go_version(source.path),
                         tuple(bodies))


def _inside(inner: Node, outer: Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _testing_param(function: Node, testing: set[str], type_name: str) -> str | None:
    """The name of the ``*testing.<type_name>`` parameter ("" when unnamed or _), else None."""
    plist = function.child_by_field_name("parameters")
    if plist is None:
        return None
    for declaration in plist.named_children:
        kind = declaration.child_by_field_name("type")
        if kind is None or kind.type != "pointer_type" or not kind.named_children:
            continue
        target = kind.named_children[0]
        if (target.type == "qualified_type" and target.child_by_field_name("package").text.decode() in testing
                and target.child_by_field_name("name").text.decode() == type_name):
            names = [n.text.decode() for n in declaration.children_by_field_name("name")]
            return names[0] if names and names[0] != "_" else ""
    return None


def _is_benchmark(function: Node) -> bool:
    if function.type != "function_declaration":
        return False
    name = function.child_by_field_name("name").text.decode()
    plist = function.child_by_field_name("parameters")
    return bool(BENCHMARK_NAME.match(name)) and len(plist.named_children) == 1


def _display_name(function: Node) -> str:
    """``BenchmarkX`` for a function; ``BenchmarkX/name`` for a literal given to b.Run."""
    if function.type == "function_declaration":
        return function.child_by_field_name("name").text.decode()
    outer = function.parent
    while outer is not None and outer.type != "function_declaration":
        outer = outer.parent
    prefix = outer.child_by_field_name("name").text.decode() if outer is not None else "func"
    args = function.parent
    call = args.parent if args is not None and args.type == "argument_list" else None
    first = args.named_children[0] if call is not None and args.named_children else None
    if first is not None and first.type == "interpreted_string_literal":
        return f"{prefix}/{first.text.decode()[1:-1]}"
    return f"{prefix}/*"


def _measured_loops(body: BenchBody) -> Iterator[MeasuredLoop]:
    for node in body.walk():
        if node.type != "for_statement":
            continue
        header = [c for c in node.named_children if c.type not in HEADERS and c.type != "comment"]
        clause = next((c for c in node.named_children if c.type in ("for_clause", "range_clause")), None)
        if header and body.b and method_call(header[0], body.b, {"Loop"}):
            yield MeasuredLoop(node, "loop")
        elif header and any(method_call(header[0], pb, {"Next"}) for pb in body.pb_names):
            yield MeasuredLoop(node, "parallel")
        elif body.b and any(reads_b_n(part, body.b) for part in ([clause] if clause else header)):
            yield MeasuredLoop(node, "n")


def reads_b_n(node: Node, b: str) -> bool:
    """``node`` mentions ``b.N``."""
    return any(is_selector(n, b, "N") for n in walk_code(node))
