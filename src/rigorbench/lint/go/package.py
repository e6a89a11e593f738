"""What the Go rules know about a package: its package-level names, constants and imports.

A Go package is a directory. The rules read every ``.go`` file of the directory of a
``_test.go`` file (the code under test included) for three things: package-level variables
(a result assigned to one is kept: the compiler cannot drop a store other code may read),
package-level functions (whose bodies :mod:`rigorbench.lint.go.purity` inspects), and
integer constants (for loop trip counts and allocation sizes in GO-SETUP). Files are parsed
once per lint run; nothing is type-checked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Node

from rigorbench.lint.go.parse import go_version, parse_go
from rigorbench.lint.parse import SourceFile

SIZE_OPERATORS = {"*": lambda a, b: a * b, "+": lambda a, b: a + b, "-": lambda a, b: a - b,
                  "<<": lambda a, b: a << b if 0 <= b < 64 else None,
                  "/": lambda a, b: a // b if b else None}


@dataclass
class GoPackage:
    """Package-level declarations of one directory's Go files."""

    directory: str
    variables: set[str] = field(default_factory=set)
    constants: dict[str, Node] = field(default_factory=dict)
    functions: dict[str, tuple[SourceFile, Node]] = field(default_factory=dict)

    def add(self, source: SourceFile) -> None:
        for child in source.root.named_children:
            if child.type == "var_declaration":
                self.variables.update(_spec_names(child, "var_spec"))
            elif child.type == "const_declaration":
                for spec in _specs(child, "const_spec"):
                    names = spec.children_by_field_name("name")
                    value = spec.child_by_field_name("value")
                    values = value.named_children if value is not None else []
                    for name, expr in zip(names, values):
                        self.constants[name.text.decode()] = expr
            elif child.type == "function_declaration":
                name = child.child_by_field_name("name")
                if name is not None:
                    self.functions[name.text.decode()] = (source, child)

    def constant(self, node: Node | None, depth: int = 0) -> int | None:
        """The value of an integer constant expression (literals, package constants, + - * / <<)."""
        if node is None or depth > 8:
            return None
        if node.type == "int_literal":
            text = node.text.decode().replace("_", "").lower()
            for base in (0, 8):  # 0: decimal, 0x, 0b, 0o; 8: the old 0755 spelling
                try:
                    return int(text, base)
                except ValueError:
                    continue
            return None
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            return self.constant(node.named_children[0], depth + 1)
        if node.type == "identifier":
            return self.constant(self.constants.get(node.text.decode()), depth + 1)
        if node.type == "binary_expression":
            operator = node.child_by_field_name("operator").type
            left = self.constant(node.child_by_field_name("left"), depth + 1)
            right = self.constant(node.child_by_field_name("right"), depth + 1)
            if operator in SIZE_OPERATORS and left is not None and right is not None:
                return SIZE_OPERATORS[operator](left, right)
        return None


def _specs(declaration: Node, kind: str) -> list[Node]:
    found = [c for c in declaration.named_children if c.type == kind]
    for child in declaration.named_children:
        if child.type.endswith("_spec_list"):
            found.extend(c for c in child.named_children if c.type == kind)
    return found


def _spec_names(declaration: Node, kind: str) -> list[str]:
    return [n.text.decode() for spec in _specs(declaration, kind)
            for n in spec.children_by_field_name("name")]


def imports(source: SourceFile) -> dict[str, str]:
    """Import name -> import path of one file (``rand`` for "math/rand/v2", aliases kept)."""
    table = {}
    for declaration in source.root.named_children:
        if declaration.type != "import_declaration":
            continue
        for spec in _specs(declaration, "import_spec"):
            path_node = spec.child_by_field_name("path")
            if path_node is None:
                continue
            path = path_node.text.decode().strip('"`')
            alias = spec.child_by_field_name("name")
            if alias is not None:
                name = alias.text.decode()
            else:
                parts = path.split("/")
                name = parts[-2] if len(parts) > 1 and _is_major(parts[-1]) else parts[-1]
            if name not in ("_", "."):
                table[name] = path
    return table


def _is_major(part: str) -> bool:
    return len(part) > 1 and part[0] == "v" and part[1:].isdigit()


class GoProject:
    """Per lint run: the packages read so far and each directory's go.mod version."""

    def __init__(self) -> None:
        self._packages: dict[str, GoPackage] = {}
        self._versions: dict[str, tuple[int, int] | None] = {}

    def package(self, source: SourceFile) -> GoPackage:
        directory = os.path.dirname(os.path.abspath(source.path))
        if directory not in self._packages:
            package = GoPackage(directory)
            package.add(source)
            own = os.path.abspath(source.path)
            for path in _go_files(directory):
                if path == own:
                    continue
                try:
                    with open(path, "rb") as handle:
                        package.add(parse_go(path, handle.read()))
                except OSError:
                    continue  # an unreadable sibling only makes the rules know less
            self._packages[directory] = package
        return self._packages[directory]

    def go_version(self, path: str) -> tuple[int, int] | None:
        """The ``go`` version of the nearest go.mod above ``path`` (None without one)."""
        directory = Path(os.path.abspath(path)).parent
        seen = []
        version = None
        for folder in (directory, *directory.parents):
            key = str(folder)
            if key in self._versions:
                version = self._versions[key]
                break
            seen.append(key)
            if (folder / "go.mod").is_file():
                version = go_version(folder / "go.mod")
                break
        for key in seen:
            self._versions[key] = version
        return version


def _go_files(directory: str) -> list[str]:
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    return [os.path.join(directory, n) for n in names if n.endswith(".go")]
