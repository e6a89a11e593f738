"""The CLI is a thin layer: its modules reach library code through ``rigorbench.api`` only
(STYLE.md rule 9; ARCHITECTURE.md "Every command is a function of rigorbench.api first").

A plain walk over each ``src/rigorbench/cli/*.py``: every import of a ``rigorbench`` module,
at module level or inside a function (``if TYPE_CHECKING:`` blocks aside), must be of
``rigorbench.api``, ``rigorbench.cli.*`` or ``rigorbench.errors``.
"""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "src" / "rigorbench" / "cli"
ALLOWED = ("rigorbench.api", "rigorbench.cli", "rigorbench.errors")


def _type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(node: ast.AST) -> list[str]:
    """The rigorbench modules an import statement names (``from rigorbench import api`` is
    ``rigorbench.api``; ``from rigorbench import __version__`` is ``rigorbench``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] == "rigorbench"]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "rigorbench":
        if node.module == "rigorbench":
            return [f"rigorbench.{alias.name}" if alias.name in ("api", "errors", "cli") else "rigorbench"
                    for alias in node.names]
        return [node.module]
    if isinstance(node, ast.ImportFrom) and node.level > 0:
        return [f"(relative import, level {node.level}) {node.module}"]
    return []


def _imports(tree: ast.AST, function: str | None = None):
    """(module imported, line, enclosing module-level function) for every import below ``tree``."""
    for node in ast.iter_child_nodes(tree):
        if _type_checking(node):
            continue
        top = isinstance(tree, ast.Module) and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for module in _imported(node):
            yield module, node.lineno, function
        yield from _imports(node, node.name if top else function)


def violations(path: Path) -> list[str]:
    found = []
    for module, line, function in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        if not any(module == name or module.startswith(name + ".") for name in ALLOWED):
            found.append(f"{path.name}:{line}: imports {module}" + (f" (in {function})" if function else ""))
    return found


def test_cli_modules_reach_the_library_through_the_api_only():
    found = [v for path in sorted(CLI.glob("*.py")) for v in violations(path)]
    assert found == [], "import it through rigorbench.api instead:\n" + "\n".join(found)


def test_the_walk_sees_imports_in_functions_and_skips_type_checking(tmp_path):
    module = tmp_path / "probe.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "from rigorbench import api, __version__\n"
        "import rigorbench.cli.parser\n"
        "if TYPE_CHECKING:\n    from rigorbench.store import ResultStore\n"
        "def run():\n    if True:\n        from rigorbench.analysis.settings import Settings\n"
        "class C:\n    def m(self):\n        import rigorbench.store.location\n"
    )
    assert violations(module) == ["probe.py:2: imports rigorbench", "probe.py:8: imports rigorbench.analysis.settings (in run)",
                                  "probe.py:11: imports rigorbench.store.location"]
