"""The package's import graph: no cycle and no upward import (ARCHITECTURE.md, "Dependency direction").

A plain AST walk over src/rigorbench: every ``import`` and ``from ... import`` of a rigorbench
module counts, also inside functions (a lazy import is still a dependency); only imports under
``if TYPE_CHECKING:`` are left out, as they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "rigorbench"
# Top first; a module may import its own layer and the ones below it. Top-level modules not
# named here (errors, files, terminal, units, parallel ...) are the base every layer may use.
LAYERS = ("cli", "api", "report", "cluster", "experiment", "analysis", "harness", "lint", "formats", "stats", "store", "model")


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    package = _name(path) if path.name == "__init__.py" else _name(path).rpartition(".")[0]
    found: set[str] = set()

    def resolve(name: str) -> None:
        while name not in modules and "." in name:
            name = name.rpartition(".")[0]
        if name in modules:
            found.add(name)

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                for alias in child.names:
                    resolve(alias.name)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join(parts + ([child.module] if child.module else []))
                for alias in child.names:
                    resolve(f"{base}.{alias.name}")
            visit(child)

    visit(ast.parse(path.read_text(), str(path)))
    found.discard(_name(path))
    return found


def _graph() -> dict[str, set[str]]:
    paths = {_name(p): p for p in ROOT.rglob("*.py")}
    return {name: {m for m in _imports(path, set(paths)) if m.startswith("rigorbench")} for name, path in paths.items()}


def _layer(module: str) -> int | None:
    part = module.split(".")[1] if "." in module else None
    return LAYERS.index(part) if part in LAYERS else None


def test_no_module_imports_a_layer_above_its_own():
    upward = [(a, b) for a, targets in _graph().items() for b in targets
              if _layer(b) is not None and (_layer(a) is None and a != "rigorbench.__main__" or
                                            _layer(a) is not None and _layer(b) < _layer(a))]
    assert upward == []


def test_the_import_graph_has_no_cycle():
    graph = _graph()
    done: set[str] = set()

    def cycle_from(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return path[path.index(node):] + [node]
        if node in done:
            return None
        for target in sorted(graph.get(node, ())):
            found = cycle_from(target, path + [node])
            if found:
                return found
        done.add(node)
        return None

    cycles = [c for c in (cycle_from(n, []) for n in sorted(graph)) if c]
    assert cycles == []


def test_the_walk_sees_lazy_and_relative_imports(tmp_path):
    """The checker itself: an import inside a function counts, a TYPE_CHECKING one does not."""
    source = tmp_path / "mod.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import rigorbench.cli\n"
                      "def f():\n    from rigorbench.api import compare\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = _imports(source, {"rigorbench.api", "rigorbench.cli"})
    finally:
        ROOT = saved
    assert found == {"rigorbench.api"}
