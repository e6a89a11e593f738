"""A light project index over every parsed Java file: classes, fields, methods, imports.

Rules need facts that span files: whether a parameter's type is a ``@State`` class declared
elsewhere (``@State`` is inherited from a project superclass), whether a called project
method returns a value, whether a field is ``final``. Costa et al. 2019 (section 4.1) skip
calls outside benchmark classes; we index the whole given tree, but only its source: a
type that is not declared in the given files is "unknown" and rules stay conservative.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

from rigorbench.lint.parse import (SourceFile, annotation, annotation_value, last_name,
                                   modifier_words)

CLASS_TYPES = frozenset({"class_declaration", "enum_declaration", "record_declaration"})


@dataclass(frozen=True, eq=False)
class FieldInfo:
    name: str
    type: str
    static: bool
    final: bool
    declarator: Node
    declaration: Node
    owner: str
    source: SourceFile


@dataclass(frozen=True, eq=False)
class MethodInfo:
    name: str
    params: tuple[tuple[str, str], ...]
    return_type: str
    node: Node
    owner: str
    source: SourceFile | None = None   # the declaring file (a qualified name may be declared twice)

    @property
    def void(self) -> bool:
        return self.return_type == "void"


@dataclass(frozen=True, eq=False)
class ClassInfo:
    name: str
    qualified: str
    superclass: str
    node: Node
    source: SourceFile
    state_scope: str | None
    fields: dict[str, FieldInfo] = field(default_factory=dict)
    methods: dict[str, list[MethodInfo]] = field(default_factory=dict)
    package: str = ""


@dataclass(frozen=True, eq=False)
class FileInfo:
    source: SourceFile
    package: str
    imports: tuple[str, ...]
    static_imports: tuple[str, ...]
    classes: tuple[ClassInfo, ...]


@dataclass(frozen=True, eq=False)
class Index:
    """All classes by simple name (a name may be declared more than once), plus the same
    classes keyed by qualified name, by (simple name, file) and by (simple name, package)
    so that :meth:`lookup` stays O(1) when a name is declared in every file."""

    classes: dict[str, list[ClassInfo]]
    qualified: dict[str, ClassInfo] = field(default_factory=dict)
    by_file: dict[tuple[str, int], ClassInfo] = field(default_factory=dict)
    by_package: dict[tuple[str, str], ClassInfo] = field(default_factory=dict)
    files: tuple[FileInfo, ...] = ()    # every indexed file, for rules that look project-wide
    # Qualified names declared more than once, with every declaration: a whole repository often
    # holds copies of one module per supported version (iceberg's spark/v3.5, v4.0 and v4.1
    # each declare org.apache.iceberg.spark.source.DVReaderBenchmark).
    duplicates: dict[str, list[ClassInfo]] = field(default_factory=dict)
    roots: dict[int, str] = field(default_factory=dict)   # id(source) -> its source root
    jmh_roots: set[str] = field(default_factory=set)       # source roots of files that use JMH
    imports: dict[int, tuple[str, ...]] = field(default_factory=dict)   # id(source) -> its imports
    # (simple name, id(source)) of names a file declares more than once (a ``MyState`` nested
    # in each of two benchmark classes): only there must the enclosing classes decide
    repeated: set[tuple[str, int]] = field(default_factory=set)

    def lookup(self, name: str, near: ClassInfo | None = None, members: bool = True) -> ClassInfo | None:
        """The class ``name`` (simple or qualified) names, seen from class ``near``.

        Simple names are declared many times in real projects (every benchmark may nest a
        ``State`` class), so the nearest declaration wins, as in Java: the same file (a class
        nested in ``near``'s enclosing classes first when the file declares the name more than
        once), a class nested in ``near``'s superclasses or enclosing classes, a single-type import (nothing
        when it imports a class outside the project), then the candidates of ``near``'s package
        or of a package it imports with ``*``; among those an exact qualified name, the same
        package, then the first one indexed. ``members=False`` skips the nested-class step (it
        resolves superclasses itself).
        """
        simple = last_name_of(name)
        found = self.classes.get(simple)
        if not found:
            return None
        base = name.split("<", 1)[0].strip()
        if near is not None and "." not in base and members and (
                (simple, id(near.source)) not in self.by_file or (simple, id(near.source)) in self.repeated):
            # also when near's file declares the name more than once: a file may nest a
            # ``MyState`` in each of two benchmark classes, and each means its own (heldout56)
            member = self._member_type(simple, found, near)
            if member is not None:
                return member
        if near is not None and "." not in base and (simple, id(near.source)) not in self.by_file:
            visible = self._imported(simple, found, near)
            if visible is None:
                return None
            found = visible or found   # none visible: a file outside the view may import it
        if len(found) == 1:
            return found[0]
        if base in self.qualified:
            return self._nearest(base, near) or self.qualified[base]
        if "." in base:   # Outer.Inner: the nested class of that outer class
            suffix = "." + base
            nested = [c for c in found if c.qualified.endswith(suffix) or c.qualified == base]
            if len(nested) == 1:
                return nested[0]
            found = nested or found
        if near is not None:
            nearest = self.by_file.get((simple, id(near.source)))
            if nearest is None and (simple, near.package) in self.by_package:
                same = self.by_package[(simple, near.package)]
                nearest = self._nearest(same.qualified, near) or same
            if nearest is not None and any(c is nearest for c in found):
                return nearest
        return found[0]

    def _member_type(self, simple: str, found: list[ClassInfo], near: ClassInfo) -> ClassInfo | None:
        """A class nested in ``near``'s superclasses or in the classes around ``near`` (and
        theirs), which Java finds by its simple name before any import: opentracing's benchmark
        modules each nest a ``StateVariablesNoopTracer`` in their own base class, and a subclass
        means its base's (heldout37). Of copies of one qualified name, the one in the file that
        declares the enclosing class."""
        start = [near]
        qualified = near.qualified
        while "." in qualified:
            qualified = qualified.rsplit(".", 1)[0]
            outer = self.qualified.get(qualified)
            if outer is None:
                break
            start.append(self._nearest(qualified, near) or outer)
        seen: set[int] = set()
        for cls in start:
            current, depth = cls, 0
            while current is not None and id(current) not in seen and depth < 8:
                seen.add(id(current))
                target = f"{current.qualified}.{simple}"
                copies = [c for c in found if c.qualified == target]
                if copies:
                    return next((c for c in copies if c.source is current.source), copies[0])
                current = self.lookup(current.superclass, current, members=False) if current.superclass else None
                depth += 1
        return None

    def _imported(self, simple: str, found: list[ClassInfo], near: ClassInfo) -> list[ClassInfo] | None:
        """Java's reading of a simple name that ``near``'s file does not declare: a single-type
        import names the class (None when it names one outside the project: ``import
        org.openjdk.jmh.infra.Blackhole`` in a project that also declares a ``Blackhole``,
        heldout35's assorted-benchmarks); else the candidates the file can see, those of its
        own package or of a package it imports with ``*``, and nested classes (visible through
        an outer class or a superclass). An empty list when no candidate is visible (the
        caller then keeps them all: the extracted tree may lack the file that makes one visible)."""
        imports = self.imports.get(id(near.source), ())
        for imported in imports:
            if imported.endswith("." + simple):
                named = self.qualified.get(imported)
                return [self._nearest(imported, near) or named] if named is not None else None
        wildcards = {i[:-2] for i in imports if i.endswith(".*")}
        return [c for c in found if c.package == near.package or c.package in wildcards
                or c.qualified != (f"{c.package}.{c.name}" if c.package else c.name)]

    def _nearest(self, qualified: str, near: ClassInfo | None) -> ClassInfo | None:
        """Of the declarations of a qualified name declared more than once, the one whose file
        shares the longest folder path with ``near``'s (the copy in the same module)."""
        copies = self.duplicates.get(qualified)
        if not copies or near is None:
            return None
        here = near.source.path.split("/")
        return max(copies, key=lambda c: _shared(c.source.path.split("/"), here))

    def owner_of(self, info: MethodInfo | FieldInfo) -> ClassInfo | None:
        """The class that declares a method or a field: by its qualified name, and among
        copies of that name, the one in the member's own file."""
        cls = self.qualified.get(info.owner)
        copies = self.duplicates.get(info.owner)
        if copies and info.source is not None:
            return next((c for c in copies if c.source is info.source), cls)
        return cls

    def lineage(self, cls: ClassInfo) -> Iterator[ClassInfo]:
        """``cls`` and its project superclasses, nearest first (cycle-safe)."""
        seen: set[int] = set()
        current: ClassInfo | None = cls
        while current is not None and id(current) not in seen:
            seen.add(id(current))
            yield current
            current = self.lookup(current.superclass, current) if current.superclass else None

    def state_scope(self, cls: ClassInfo) -> str | None:
        """``Benchmark``/``Thread``/``Group`` when ``cls`` or a project superclass is @State."""
        return next((c.state_scope for c in self.lineage(cls) if c.state_scope), None)

    def field(self, cls: ClassInfo, name: str) -> FieldInfo | None:
        return next((c.fields[name] for c in self.lineage(cls) if name in c.fields), None)

    def methods(self, cls: ClassInfo | None, name: str) -> list[MethodInfo]:
        if cls is None:
            return []
        return next((c.methods[name] for c in self.lineage(cls) if name in c.methods), [])


def last_name_of(type_name: str) -> str:
    base = type_name.split("<", 1)[0].strip()
    return base.rsplit(".", 1)[-1]


def package_of(source: SourceFile) -> str:
    """The file's ``package`` name (empty in the default package)."""
    for child in source.root.named_children:
        if child.type == "package_declaration":
            name = next((c for c in child.named_children if "identifier" in c.type), None)
            return source.text(name) if name is not None else ""
    return ""


def _imports(source: SourceFile) -> tuple[tuple[str, ...], tuple[str, ...]]:
    plain, static = [], []
    for child in source.root.named_children:
        if child.type != "import_declaration":
            continue
        text = source.text(child)[len("import"):].strip().rstrip(";").strip()
        if text.startswith("static "):
            static.append(text[len("static "):].strip())
        else:
            plain.append(text)
    return tuple(plain), tuple(static)


def _state_scope(source: SourceFile, node: Node) -> str | None:
    state = annotation(node, "State")
    if state is None:
        return None
    value = annotation_value(state)
    return last_name(value) if value is not None else "Thread"


def _fields_and_methods(cls: ClassInfo) -> None:
    body = cls.node.child_by_field_name("body")
    if body is None:
        return
    members = list(body.named_children)
    members += [m for c in members if c.type == "enum_body_declarations" for m in c.named_children]
    text = cls.source.text
    for member in members:
        if member.type == "field_declaration":
            words = modifier_words(member)
            type_text = text(member.child_by_field_name("type"))
            for declarator in member.children_by_field_name("declarator"):
                name = text(declarator.child_by_field_name("name"))
                cls.fields[name] = FieldInfo(name, type_text, "static" in words, "final" in words,
                                             declarator, member, cls.qualified, cls.source)
        elif member.type == "method_declaration":
            params = tuple((text(p.child_by_field_name("type")) if p.child_by_field_name("type") else "",
                            text(p.child_by_field_name("name")) if p.child_by_field_name("name") else "")
                           for p in member.child_by_field_name("parameters").named_children
                           if p.type in ("formal_parameter", "spread_parameter"))
            name = text(member.child_by_field_name("name"))
            info = MethodInfo(name, params, text(member.child_by_field_name("type")), member,
                              cls.qualified, cls.source)
            cls.methods.setdefault(name, []).append(info)


def index_file(source: SourceFile) -> FileInfo:
    package = package_of(source)
    plain, static = _imports(source)
    classes = []
    declared = sorted((n for kind in CLASS_TYPES for n in source.within(kind, source.root)),
                      key=lambda n: n.start_byte)
    for node in declared:
        if node.child_by_field_name("name") is None:
            continue
        outer, parent = [], node.parent
        while parent is not None:
            if parent.type in CLASS_TYPES and parent.child_by_field_name("name") is not None:
                outer.append(source.text(parent.child_by_field_name("name")))
            parent = parent.parent
        name = source.text(node.child_by_field_name("name"))
        qualified = ".".join(p for p in [package, *reversed(outer), name] if p)
        superclass = node.child_by_field_name("superclass")
        super_name = last_name(superclass.named_children[0]) if superclass is not None else ""
        info = ClassInfo(name, qualified, super_name, node, source, _state_scope(source, node),
                         package=package)
        _fields_and_methods(info)
        classes.append(info)
    return FileInfo(source, package, plain, static, tuple(classes))


def _source_root(info: FileInfo) -> str:
    """The folder a file's package path starts from (``a/src/jmh/java`` for
    ``a/src/jmh/java/org/x/B.java`` in package ``org.x``), or its own folder."""
    folders = info.source.path.replace("\\", "/").split("/")[:-1]
    package = [p for p in info.package.split(".") if p]
    if package and folders[-len(package):] == package:
        folders = folders[:-len(package)]
    return "/".join(folders)


def _shared(a: list[str], b: list[str]) -> int:
    """How many leading folders two split paths share."""
    count = 0
    for x, y in zip(a, b):
        if x != y:
            break
        count += 1
    return count


def build_index(files: list[FileInfo]) -> Index:
    index = Index({}, files=tuple(files))
    for info in files:
        root = _source_root(info)
        index.roots[id(info.source)] = root
        index.imports[id(info.source)] = info.imports
        if b"org.openjdk.jmh" in info.source.data or b"@Benchmark" in info.source.data:
            index.jmh_roots.add(root)
        for cls in info.classes:
            index.classes.setdefault(cls.name, []).append(cls)
            if cls.qualified in index.qualified:
                index.duplicates.setdefault(cls.qualified, [index.qualified[cls.qualified]]).append(cls)
            index.qualified.setdefault(cls.qualified, cls)
            if (cls.name, id(cls.source)) in index.by_file:
                index.repeated.add((cls.name, id(cls.source)))
            index.by_file.setdefault((cls.name, id(cls.source)), cls)
            index.by_package.setdefault((cls.name, info.package), cls)
    return index


def benchmark_view(files: list[FileInfo]) -> list[FileInfo]:
    """The files lint reads as the project: those under a source root that uses JMH (the
    benchmarks, their states and helpers) and the files declaring their superclasses, followed
    up the hierarchy. Given a whole repository, the rest is the library under test, read as
    a library lint cannot see into, as on a tree of benchmarks alone: its bodies would make
    the library's JNI calls, parsers and table lookups look like pure, foldable or long work,
    and its classes like project state (the labelled corpus was judged on such trees; linting
    178 of its repositories whole showed each of these as wrong findings). Without any JMH
    file (a tree of plain sources) every file is read."""
    full = build_index(files)
    by_source = {id(f.source): f for f in files}
    keep = {key for key, root in full.roots.items() if root in full.jmh_roots}
    if not keep:
        return files
    stack = [c for key in keep for c in by_source[key].classes]
    while stack:
        cls = stack.pop()
        parent = full.lookup(cls.superclass, cls) if cls.superclass else None
        if parent is not None and id(parent.source) not in keep:
            keep.add(id(parent.source))
            stack.extend(by_source[id(parent.source)].classes)
    return [f for f in files if id(f.source) in keep]
