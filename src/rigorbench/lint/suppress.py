"""Inline suppression (``// rigorbench:ignore RULE reason``) and stable finding fingerprints.

The same comments work in Java and Go files (``// rigorbench:ignore GO-RESULT reason``).

Suppression: a comment ``// rigorbench:ignore LOOP,FINAL the loop is the workload`` (or the
same in a ``/* */`` comment) silences the named rules

* on its own line, when it trails code (``x += f(v); // rigorbench:ignore LOOP ...``);
* in the declaration or statement that follows it otherwise: the next statement, the next
  method (all of it, when the comment stands above the method or its annotations) or the
  next class.

``ALL`` names every rule. The text after the rule list is the reason; it is kept in the
source for reviewers and not checked.

Fingerprint: 16 hex digits of SHA-256 over the rule, the path (as given, with ``/``), the
benchmark, the flagged source line with its whitespace collapsed, and the number of earlier
findings with the same four values. Line numbers are left out, so a finding keeps its
fingerprint when code above it moves (SARIF ``partialFingerprints``, ``--baseline``).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import replace

from rigorbench.lint.base import Issue
from rigorbench.lint.parse import SourceFile, walk

MARKER = b"rigorbench:ignore"
_RULE = r"[A-Za-z]+(?:-[A-Za-z]+)*"
_DIRECTIVE = re.compile(rf"rigorbench:ignore\s+({_RULE}(?:\s*,\s*{_RULE})*)")
COMMENTS = ("line_comment", "block_comment", "comment")  # Java's two kinds; Go's one


def suppressions(source: SourceFile) -> list[tuple[frozenset[str], int, int]]:
    """``(rules, first line, last line)`` for every ignore comment of ``source``."""
    if MARKER not in source.data:
        return []
    found = []
    for node in walk(source.root):
        if node.type not in COMMENTS:
            continue
        match = _DIRECTIVE.search(source.text(node))
        if match is None:
            continue
        rules = frozenset(r.strip().upper() for r in match.group(1).split(","))
        line = node.start_point[0] + 1
        before = node.prev_sibling
        if before is not None and before.end_point[0] == node.start_point[0]:
            found.append((rules, line, line))  # trails code on its own line
            continue
        after = node.next_named_sibling
        while after is not None and after.type in COMMENTS:
            after = after.next_named_sibling
        last = after.end_point[0] + 1 if after is not None else line
        found.append((rules, line, last))
    return found


def is_suppressed(issue: Issue, table: dict[str, list]) -> bool:
    f = issue.finding
    return any((f.rule in rules or "ALL" in rules) and first <= f.line <= last
               for rules, first, last in table.get(f.path, ()))


def stamp(issues: list[Issue], data: dict[str, bytes]) -> list[Issue]:
    """The issues, in order, each with its finding's fingerprint set."""
    seen: Counter = Counter()
    lines: dict[str, list[bytes]] = {}
    stamped = []
    for issue in issues:
        f = issue.finding
        if f.path not in lines:
            lines[f.path] = data.get(f.path, b"").split(b"\n")
        key = (f.rule, f.path.replace("\\", "/"), f.benchmark, _line(lines[f.path], f.line))
        digest = hashlib.sha256("\0".join((*key, str(seen[key]))).encode("utf-8")).hexdigest()
        seen[key] += 1
        stamped.append(replace(issue, finding=replace(f, fingerprint=digest[:16])))
    return stamped


def _line(lines: list[bytes], number: int) -> str:
    text = lines[number - 1] if 0 < number <= len(lines) else b""
    return " ".join(text.decode("utf-8", "replace").split())
