"""Mechanical repairs: byte-range edits on the original text (formatting and comments stay).

Costa et al. 2019 (section 7.1) ask for automatic repair of bad JMH practices. Every rule
that can repair a finding attaches :class:`~rigorbench.lint.base.Edit` objects to it; this
module holds the edit builders rules share (add a ``Blackhole`` parameter and its import,
insert a statement next to another) and :func:`fix_findings`, which merges the edits of the
findings in a :class:`~rigorbench.lint.engine.LintResult` file by file. Identical edits
(the same parameter or import wanted by two findings) are applied once; a finding whose
edits overlap an already accepted edit is skipped rather than producing broken code.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tree_sitter import Node

from rigorbench.errors import UserError
from rigorbench.lint.base import Edit
from rigorbench.lint.context import Benchmark
from rigorbench.lint.parse import SourceFile
from rigorbench.model import Finding

BLACKHOLE_IMPORT = "org.openjdk.jmh.infra.Blackhole"
# JMH before 1.0 (2014) named the class org.openjdk.jmh.logic.BlackHole; a file written for it
# gets a parameter of that type, or the fix would not compile against the JMH it builds with.
LEGACY_BLACKHOLE_IMPORT = "org.openjdk.jmh.logic.BlackHole"
JUMPS = frozenset({"return_statement", "throw_statement", "break_statement",
                   "continue_statement", "yield_statement"})


@dataclass(frozen=True)
class FileFix:
    """The fixed text of one file, the rule ids whose findings were repaired and those
    findings (a finding whose edits overlap another's is left out: its fix was not applied)."""

    path: str
    original: str
    fixed: str
    rules: tuple[str, ...]
    findings: tuple[Finding, ...] = ()


def blackhole(bench: Benchmark) -> tuple[str, tuple[Edit, ...]]:
    """The name of the benchmark's Blackhole, adding a parameter and import when missing."""
    if bench.blackhole is not None:
        return bench.blackhole, ()
    name = "bh" if "bh" not in bench.locals else "blackhole"
    kind = "BlackHole" if legacy_jmh(bench.source) else "Blackhole"
    params = bench.node.child_by_field_name("parameters")
    listed = [p for p in params.named_children if p.type in ("formal_parameter", "spread_parameter",
                                                             "receiver_parameter")]
    if not listed:
        edit = Edit(params.start_byte + 1, params.start_byte + 1, f"{kind} {name}")
    elif listed[-1].type == "spread_parameter":
        edit = Edit(listed[0].start_byte, listed[0].start_byte, f"{kind} {name}, ")
    else:
        edit = Edit(listed[-1].end_byte, listed[-1].end_byte, f", {kind} {name}")
    extra = import_edit(bench.source)
    return name, (edit,) + ((extra,) if extra else ())


def legacy_jmh(source: SourceFile) -> bool:
    """Is the file written for JMH before 1.0 (``@GenerateMicroBenchmark``, ``BlackHole``)?"""
    return b"GenerateMicroBenchmark" in source.data or b"org.openjdk.jmh.logic" in source.data


def import_edit(source: SourceFile) -> Edit | None:
    """``import org.openjdk.jmh.infra.Blackhole;`` (``...logic.BlackHole`` in a file for JMH
    before 1.0) after the last import, unless present."""
    wanted = LEGACY_BLACKHOLE_IMPORT if legacy_jmh(source) else BLACKHOLE_IMPORT
    package_star = "import" + wanted.rsplit(".", 1)[0] + ".*;"
    last_import = package = None
    for child in source.root.named_children:
        if child.type == "import_declaration":
            text = source.text(child).replace(" ", "")
            if wanted in text or package_star in text:
                return None
            last_import = child
        elif child.type == "package_declaration":
            package = child
    line = f"import {wanted};"
    if last_import is not None:
        return Edit(last_import.end_byte, last_import.end_byte, "\n" + line)
    if package is not None:
        return Edit(package.end_byte, package.end_byte, "\n\n" + line)
    return Edit(0, 0, line + "\n\n")


def insert_after(source: SourceFile, statement: Node, text: str) -> Edit:
    """Insert ``text`` as a statement after ``statement`` (before it if it is a jump)."""
    indent = source.line_indent(statement)
    if statement.type in JUMPS:
        return Edit(statement.start_byte, statement.start_byte, f"{text}\n{indent}")
    at = statement.end_byte
    line_end = source.data.find(b"\n", at)
    rest = source.data[at:line_end if line_end >= 0 else len(source.data)]
    if rest.strip().startswith(b"//"):  # keep a trailing comment on its statement's line
        at = line_end if line_end >= 0 else len(source.data)
        at -= 1 if rest.endswith(b"\r") else 0
    return Edit(at, at, f"\n{indent}{text}")


def wrap(node: Node, before: str, after: str) -> tuple[Edit, Edit]:
    return Edit(node.start_byte, node.start_byte, before), Edit(node.end_byte, node.end_byte, after)


def delete_statement(source: SourceFile, statement: Node) -> Edit:
    """Remove a statement and, when it is alone on its line, the whole line."""
    data = source.data
    start = data.rfind(b"\n", 0, statement.start_byte) + 1
    end = data.find(b"\n", statement.end_byte)
    end = len(data) if end < 0 else end
    if data[start:statement.start_byte].strip() or data[statement.end_byte:end].strip():
        return Edit(statement.start_byte, statement.end_byte, "")
    return Edit(start - 1 if start > 0 else start, end, "")


def _conflict(a: Edit, b: Edit) -> bool:
    if a == b or (a.start == a.end and b.start == b.end):
        return False
    if a.start == a.end:
        return b.start < a.start < b.end
    if b.start == b.end:
        return a.start < b.start < a.end
    return a.start < b.end and b.start < a.end


def merge(groups: list[tuple[Edit, ...]]) -> tuple[list[Edit], list[bool]]:
    """Accept edit groups in order, dropping a group that conflicts with accepted edits."""
    accepted: list[Edit] = []
    taken: list[bool] = []
    for group in groups:
        ok = bool(group) and not any(_conflict(e, a) for e in group for a in accepted)
        taken.append(ok)
        if ok:
            accepted.extend(e for e in group if e not in accepted)
    return accepted, taken


def apply(data: bytes, edits: list[Edit]) -> bytes:
    """Apply edits (given in acceptance order) from the end of the file backwards."""
    order = sorted(range(len(edits)), key=lambda i: (edits[i].start, edits[i].end, i), reverse=True)
    for i in order:
        edit = edits[i]
        data = data[:edit.start] + edit.text.encode("utf-8") + data[edit.end:]
    return data


def fix_findings(result) -> list[FileFix]:
    """Fixed text for each file of ``result`` with fixable findings; writes nothing."""
    # By place and rule, not by equality: lint settings may have changed a finding's severity.
    wanted = {_place(f): f for f in result.findings if f.fixable}
    fixes = []
    for plan in result.plans:
        issues = [i for i in plan.issues if _place(i.finding) in wanted and i.edits]
        if not issues:
            continue
        edits, taken = merge([i.edits for i in issues])
        if not edits:
            continue
        fixed = apply(plan.data, edits).decode("utf-8")
        applied = tuple(wanted[_place(i.finding)] for i, ok in zip(issues, taken) if ok)
        rules = tuple(sorted({f.rule for f in applied}))
        fixes.append(FileFix(plan.path, plan.data.decode("utf-8"), fixed, rules, applied))
    return fixes


def _place(finding: Finding) -> tuple:
    """What tells findings apart in a lint (the engine keeps one per place and rule)."""
    return finding.path, finding.line, finding.column, finding.rule


def unified_diff(fixes: list[FileFix]) -> str:
    """The fixes as one unified diff (``a/PATH`` -> ``b/PATH``), as ``lint --diff`` prints it."""
    chunks = []
    for fix in fixes:
        chunks.extend(difflib.unified_diff(
            fix.original.splitlines(keepends=True), fix.fixed.splitlines(keepends=True),
            fromfile=f"a/{fix.path}", tofile=f"b/{fix.path}",
        ))
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in chunks)


def write_fixed(path: str, text: str) -> None:
    """Replace the file atomically (a crash leaves the old or the new file, never half of one)."""
    target = Path(path)
    try:
        mode = target.stat().st_mode
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.chmod(temp, mode & 0o7777)
        os.replace(temp, target)
    except OSError as error:
        raise UserError(f"{path}: cannot write the fix: {error.strerror}") from None
