"""Core types of the linter: a rule, a byte-range edit, and an issue (finding + its fix).

A rule's ``check`` takes a :class:`rigorbench.lint.context.FileContext` and yields
:class:`Issue` objects; the engine keeps the findings and the fixes apart so that
``fix_findings`` can rewrite files without linting again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from rigorbench.model import Finding


@dataclass(frozen=True)
class Rule:
    """One lint rule: its id, severity, one-line title, long explanation and reference.

    ``check(ctx: rigorbench.lint.context.FileContext) -> Iterable[Issue]`` runs the rule on
    one parsed file (with the project index); ``severity`` is the rule's usual severity
    (FINAL reports static finals as ``info``); ``language`` is the source it reads
    (``java`` or ``go``: the engine runs a rule only on files of its language).
    ``fix_effect`` is how the fix should move the benchmark's primary score when the finding
    does harm (``slower``: the fixed variant takes longer per operation, because work the JIT
    removed or merged is done again; ``faster``; empty when the fix predicts no direction):
    ``lint --measure`` confirms a finding when its measurement goes that way.
    """

    id: str
    severity: str
    title: str
    explanation: str
    reference: str
    fixable: bool
    check: Callable
    language: str = "java"
    fix_effect: str = ""


@dataclass(frozen=True, order=True)
class Edit:
    """Replace bytes ``start:end`` of the original file with ``text`` (UTF-8)."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Issue:
    """A finding and the edits that fix it (empty when the finding is not fixable)."""

    finding: Finding
    edits: tuple[Edit, ...] = ()


def make_issue(source, node, rule: str, severity: str, message: str, *, benchmark: str = "",
               hint: str = "", edits: tuple[Edit, ...] = (), concerns: tuple[str, ...] = ()) -> Issue:
    """An :class:`Issue` located at ``node`` of ``source`` (fixable when edits are given);
    ``concerns`` names the benchmarks a finding outside them is about (``Finding.concerns``)."""
    line, column = source.position(node)
    end_line, end_column = source.end_position(node)
    finding = Finding(source.path, line, column, rule, severity, message, benchmark, hint,
                      bool(edits), end_line, end_column, concerns=concerns)
    return Issue(finding, tuple(edits))


def demoted(issue: Issue, reason: str) -> Issue:
    """``issue`` as info, its message ending with why the harm it names cannot occur."""
    if issue.finding.severity == "info":
        return issue
    finding = dataclasses.replace(issue.finding, severity="info", message=f"{issue.finding.message}; but {reason}")
    return Issue(finding, issue.edits)


def short(text: str, limit: int = 60) -> str:
    """One line of source for a message: whitespace collapsed, long text cut with '...'."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 3] + "..."
