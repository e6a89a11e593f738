"""Read a Maven build's POMs to find the module(s) that hold JMH benchmarks.

Real projects keep benchmarks in one module of a multi-module build (netty's
``microbench``, log4j2's ``log4j-perf``, JCTools' ``jctools-benchmarks``) that depends on
sibling SNAPSHOT modules of the same version. Such a module must be built from the reactor
root with ``mvn -pl MODULE -am package`` so that the siblings are built from the same
checkout, never taken from ``~/.m2``. A JMH module is one whose dependencies (its own, or
inherited from a parent POM in the same build) include ``org.openjdk.jmh:jmh-core``: read
from the POMs, not guessed from directory names.

Only what decides that is read: coordinates, packaging, ``<modules>`` and
``<dependencies>`` (not ``<dependencyManagement>``, which declares versions, not
dependencies). Profiles are not evaluated; ``--module`` names a module they would add.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from rigorbench.errors import InputError, UserError

JMH_CORE = ("org.openjdk.jmh", "jmh-core")
POM = "pom.xml"


@dataclass(frozen=True)
class Pom:
    """What rigorbench reads of one ``pom.xml``."""

    path: Path
    group_id: str | None
    artifact_id: str
    packaging: str
    modules: tuple[str, ...]                 # as written in <modules>
    dependencies: frozenset[tuple[str, str]]  # (groupId, artifactId), own only
    parent: tuple[str, str] | None           # (groupId, artifactId) of <parent>

    @property
    def directory(self) -> Path:
        return self.path.parent

    def module_dirs(self) -> list[Path]:
        """The modules' directories (a module may also name a POM file)."""
        paths = [(self.directory / module).resolve() for module in self.modules]
        return [path.parent if path.name.endswith(".xml") else path for path in paths]


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(element: ET.Element, name: str) -> ET.Element | None:
    for child in element:
        if _local(child.tag) == name:
            return child
    return None


def _text(element: ET.Element | None, name: str) -> str | None:
    child = _child(element, name) if element is not None else None
    return child.text.strip() if child is not None and child.text and child.text.strip() else None


def read_pom(path: Path) -> Pom:
    """Parse ``path``; InputError (file and line) when it is not a POM."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as error:
        raise InputError(str(path), error.position[0], f"not valid XML: {error}") from None
    except OSError as error:
        raise InputError(str(path), None, f"cannot read: {error.strerror or error}") from None
    if _local(root.tag) != "project":
        raise InputError(str(path), None, "not a Maven POM (the root element is not <project>)")
    artifact = _text(root, "artifactId")
    if artifact is None:
        raise InputError(str(path), None, "the POM has no <artifactId>")
    parent = _child(root, "parent")
    parent_key = None
    if parent is not None and _text(parent, "artifactId"):
        parent_key = (_text(parent, "groupId") or "", _text(parent, "artifactId") or "")
    modules = _child(root, "modules")
    dependencies = _child(root, "dependencies")
    return Pom(
        path=path.resolve(),
        group_id=_text(root, "groupId") or (parent_key[0] if parent_key else None),
        artifact_id=artifact,
        packaging=_text(root, "packaging") or "jar",
        modules=tuple(m.text.strip() for m in (modules if modules is not None else ()) if _local(m.tag) == "module" and m.text and m.text.strip()),
        dependencies=frozenset(
            (_text(d, "groupId") or "", _text(d, "artifactId") or "")
            for d in (dependencies if dependencies is not None else ()) if _local(d.tag) == "dependency"
        ),
        parent=parent_key,
    )


def reactor_root(directory: Path) -> Path:
    """The top of the multi-module build ``directory`` belongs to (itself if none aggregates it)."""
    current = directory.resolve()
    while True:
        parent_pom = current.parent / POM
        if current.parent == current or not parent_pom.is_file():
            return current
        try:
            aggregator = read_pom(parent_pom)
        except InputError:
            return current  # an unreadable POM above us is not our build's
        if current not in aggregator.module_dirs():
            return current
        current = current.parent


def reactor_poms(root: Path) -> list[Pom]:
    """The POMs of the build at ``root``: the root's and every module's, depth first."""
    poms: list[Pom] = []
    seen: set[Path] = set()

    def visit(directory: Path) -> None:
        if directory in seen:
            return
        seen.add(directory)
        pom_path = directory / POM
        if not pom_path.is_file():
            return  # a module missing at this commit: Maven itself will say so
        pom = read_pom(pom_path)
        poms.append(pom)
        for module in pom.module_dirs():
            visit(module)

    visit(root.resolve())
    return poms


def jmh_modules(poms: list[Pom]) -> list[Pom]:
    """The modules that depend on jmh-core, directly or through a parent in the same build."""
    by_key = {(pom.group_id or "", pom.artifact_id): pom for pom in poms}

    def depends(pom: Pom, depth: int = 0) -> bool:
        if JMH_CORE in pom.dependencies:
            return True
        parent = by_key.get(pom.parent) if pom.parent else None
        return parent is not None and depth < 20 and depends(parent, depth + 1)

    return [pom for pom in poms if pom.packaging != "pom" and depends(pom)]


def module_name(pom: Pom, root: Path) -> str:
    """How the module is named to the user and to ``mvn -pl``: its path from the root."""
    relative = pom.directory.relative_to(root) if pom.directory.is_relative_to(root) else pom.directory
    return str(relative) if str(relative) != "." else pom.artifact_id


def outside_hint(root: Path, poms: list[Pom]) -> str:
    """Projects below ``root`` that use JMH but are not modules of its build (a benchmark
    project kept beside the library, as HdrHistogram's): say to give one as PATH."""
    known = {pom.path for pom in poms}
    found = []
    for path in sorted(root.glob("*/pom.xml")) + sorted(root.glob("*/*/pom.xml")):
        if path.resolve() in known:
            continue
        try:
            if JMH_CORE in read_pom(path).dependencies:
                found.append(str(path.parent.relative_to(root)))
        except InputError:
            continue
    return f"; {', '.join(found)} uses JMH but is not a module of it: give that directory as PATH" if found else ""


def choose_module(project_dir: Path, wanted: str | None) -> tuple[Path, Pom | None, list[Pom]]:
    """``(root, module, all_poms)``: the benchmark module PATH stands for in its build.

    PATH may be the reactor root, an aggregator, or any module. ``wanted`` (``--module``)
    is a module's path from the root, its directory name or its artifactId. Returns module
    None when the build has no JMH module and none was named (the caller decides whether
    that is an error).
    """
    project_dir = project_dir.resolve()
    root = reactor_root(project_dir)
    poms = reactor_poms(root)
    candidates = jmh_modules(poms)
    if wanted is not None:
        name = os.path.normpath(wanted.strip()).strip("/")
        matches = [p for p in poms if name in {module_name(p, root), p.directory.name, p.artifact_id}]
        if len(matches) > 1:
            found = ", ".join(module_name(p, root) for p in matches)
            raise UserError(f"{root}: --module {wanted!r} names several modules ({found}); give its path from the root")
        if not matches:
            names = ", ".join(module_name(p, root) for p in candidates) or "none"
            raise UserError(f"{root}: no module {wanted!r} in this Maven build (JMH modules: {names}){outside_hint(root, poms)}")
        return root, matches[0], poms
    here = [p for p in candidates if p.directory == project_dir]
    if here:
        return root, here[0], poms
    inside = [p for p in candidates if p.directory.is_relative_to(project_dir)] or candidates
    if len(inside) > 1:
        names = ", ".join(module_name(p, root) for p in inside)
        raise UserError(f"{project_dir}: several JMH modules ({names}); choose one with --module NAME")
    return root, (inside[0] if inside else None), poms


# Maven's closing advice after every failure, the same for every build: it would take the
# place of the compiler's messages in the tail of a failed build.
_ADVICE = re.compile(
    r"^\[ERROR\] ?(?:$|-> \[Help 1\]|To see the full stack trace|Re-run Maven using|"
    r"For more information about the errors|\[Help 1\] http|After correcting the problems|"
    r"  mvn <args> -rf )"
)


def without_advice(lines: list[str]) -> list[str]:
    """A failed Maven build's output without Maven's generic closing advice."""
    return [line for line in lines if not _ADVICE.match(line)]
