"""Lint driver: find Java and Go test files, parse them, index the project, run the rules.

The static rules are those of Costa et al. 2019 (Table 3) plus ours (see
:mod:`rigorbench.lint.rules`), applied to Java source code, and the Go rules of
:mod:`rigorbench.lint.go`, applied to ``_test.go`` files (each rule reads one language). Output is deterministic: files are
visited in sorted order and findings sorted by (path, line, column, rule). Each finding
is kept together with its fix edits in :class:`FilePlan` objects (not part of equality or
repr of :class:`LintResult`) so that :func:`rigorbench.lint.fix.fix_findings` does not
need to lint again.

Files that cannot be read are skipped, each with one line in ``LintResult.skipped``, and
the rest is linted: a dangling symbolic link, a symbolic link loop, a file without read
permission, a FIFO or device named ``*.java``, a directory that cannot be listed. As the go
tool does, Go files under ``testdata`` and ``vendor`` directories are not linted. Only a
PATH argument that does not exist at all is an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from rigorbench.errors import InputError, UserError
from rigorbench.files import read_input
from rigorbench.lint import subject, suppress
from rigorbench.lint.base import Issue
from rigorbench.lint.context import file_context
from rigorbench.lint.go.context import go_file_context
from rigorbench.lint.go.package import GoProject
from rigorbench.lint.go.parse import parse_go
from rigorbench.lint.index import FileInfo, benchmark_view, build_index, index_file
from rigorbench.lint.parse import SourceFile, first_error, forget_annotations, parse
from rigorbench.lint.rules import RULES
from rigorbench.lint.rules.config import forget_users
from rigorbench.model import Finding, Measurement

SKIPPED_DIRS = frozenset({"target", ".git"})
# A `build` folder is Gradle's (or Ant's) output only beside a Gradle build file or when it
# holds output folders; otherwise it is a source folder (a repository's `build/` modules:
# zilla keeps its Maven plugins there, heldout21).
GRADLE_FILES = ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts")
BUILD_OUTPUTS = frozenset({"classes", "tmp", "generated", "libs", "reports", "intermediates",
                           "resources", "distributions", "test-results", "jmh-generated-sources",
                           "jmh-generated-resources", "kotlin"})
DEBUG_ENV = "RIGORBENCH_DEBUG"   # the CLI's variable for tracebacks (cli/__init__.py)
GO_SKIPPED_DIRS = frozenset({"testdata", "vendor"})
GO_SUFFIX = "_test.go"


@dataclass(frozen=True)
class FilePlan:
    """One file's original bytes and the issues (finding + edits) located in it."""

    path: str
    data: bytes
    issues: tuple[Issue, ...]


@dataclass(frozen=True)
class LintResult:
    """Findings sorted by (path, line, column, rule); ``files`` Java and Go test files
    parsed; ``benchmarks`` ``@Benchmark`` methods and ``func BenchmarkXxx`` functions seen; ``warnings`` one line each (syntax errors,
    undecodable files). ``skipped`` one line per file or directory that could not be read.
    ``plans`` carries the fix edits for ``fix_findings``; ``measurement`` what ``lint
    --measure`` found when it ran each fix (None otherwise)."""

    findings: tuple[Finding, ...]
    files: int
    benchmarks: int
    warnings: tuple[str, ...] = ()
    plans: tuple[FilePlan, ...] = field(default=(), repr=False, compare=False)
    skipped: tuple[str, ...] = ()
    measurement: Measurement | None = field(default=None, compare=False)

    def fails(self, fail_on: str) -> bool:
        """Whether a finding has severity ``fail_on`` or worse (never for ``never``)."""
        return fail_on != "never" and any(f.severity >= fail_on for f in self.findings)

    def without_info(self) -> "LintResult":
        """The result without its ``info`` findings (possible but unlikely harm)."""
        return replace(self, findings=tuple(f for f in self.findings if f.severity != "info"))


def discover(paths: Sequence[str | os.PathLike], skipped: list[str] | None = None) -> list[str]:
    """Java and Go test files under ``paths``, sorted, each spelled as reached from the argument.

    A directory that cannot be listed is added to ``skipped``; symbolic links to
    directories are not followed (no loops)."""
    found: set[str] = set()

    def unlisted(error: OSError) -> None:
        if skipped is not None:
            skipped.append(f"{error.filename}: cannot list directory: {error.strerror}; skipped")

    for given in paths:   # a file named on its own must be a source: not linted as Java
        if os.path.isfile(given) and not os.fspath(given).endswith((".java", GO_SUFFIX)):
            raise InputError(os.fspath(given), None, "not a Java source or Go test file (lint reads .java and "
                             "_test.go files and directories)")
    for given in paths:
        text = os.fspath(given)
        if not os.path.lexists(text):
            raise InputError(text, None, "no such file or directory")
        if not os.path.isdir(text):
            found.add(text)  # read_input says what is wrong with it, if anything
            continue
        for root, dirs, files in os.walk(text, onerror=unlisted):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS
                             and not (d == "build" and _build_output(root, files)))
            below = os.path.relpath(root, text).split(os.sep)
            go = not GO_SKIPPED_DIRS.intersection(below)
            found.update(os.path.join(root, f) for f in files
                         if f.endswith(".java") or (go and f.endswith(GO_SUFFIX)))
    return sorted(found)


def _build_output(parent: str, parent_files: list[str]) -> bool:
    if any(name in parent_files for name in GRADLE_FILES):
        return True
    try:
        return any(entry in BUILD_OUTPUTS for entry in os.listdir(os.path.join(parent, "build")))
    except OSError:
        return True


def _selected(rules: Iterable[str] | None) -> list[str]:
    if rules is None:
        return list(RULES)
    chosen = [r.strip().upper() for r in rules]
    unknown = [r for r in chosen if r not in RULES]
    if unknown:
        raise UserError(f"unknown lint rule {', '.join(unknown)}; valid rules: {', '.join(RULES)}")
    return [r for r in RULES if r in chosen]


def is_go(path: str) -> bool:
    return path.endswith(".go")


def _parse_all(files: list[str], skipped: list[str]) -> tuple[list[FileInfo], list[SourceFile], list[str]]:
    infos, go_files, warnings = [], [], []
    for path in files:
        try:
            data = read_input(path, what="Go source file" if is_go(path) else "Java source file", gunzip=False)
        except InputError as error:
            skipped.append(f"{error}; skipped")
            continue
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            warnings.append(f"{path}: not UTF-8, skipped")
            continue
        source = parse_go(path, data) if is_go(path) else parse(path, data)
        error = first_error(source.root)
        if error is not None:
            warnings.append(f"{path}:{error.start_point[0] + 1}: syntax error; findings in this "
                            f"file may be incomplete")
        if is_go(path):
            go_files.append(source)
        else:
            infos.append(index_file(source))
    return infos, go_files, warnings


def _checked(rule_id: str, ctx, warnings: list[str]) -> list[Issue]:
    """One rule's issues in one file. A rule that fails on code it was not written for (a bug:
    a syntax shape nobody foresaw) loses its findings in that file only, said in one warning
    line, rather than every finding of the project to an internal error; with
    RIGORBENCH_DEBUG=1 the error is raised as it is (and ``--debug`` shows its traceback)."""
    try:
        return list(RULES[rule_id].check(ctx))
    except Exception as error:   # noqa: BLE001 - any bug in a rule; kept to its rule and file
        if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
            raise
        warnings.append(f"{ctx.source.path}: rule {rule_id} failed ({type(error).__name__}: {error}); its findings "
                        f"in this file are missing (a bug: please report it; RIGORBENCH_DEBUG=1 raises it with its traceback)")
        return []


def lint_paths(paths: Sequence[str | os.PathLike], *,
               rules: Iterable[str] | None = None) -> LintResult:
    """Lint every Java and Go test file under ``paths`` with the selected rules (default: all)."""
    try:
        return _lint(paths, _selected(rules))
    finally:
        forget_annotations()   # the per-declaration cache holds nodes, and so their trees
        forget_users()         # INVO's memo of each class's benchmarks holds the whole index


def _lint(paths: Sequence[str | os.PathLike], selected: list[str]) -> LintResult:
    skipped: list[str] = []
    infos, go_files, warnings = _parse_all(discover(paths, skipped), skipped)
    read = benchmark_view(infos)   # a whole repository: its library is read as a library
    index = build_index(read)
    sources = [i.source for i in infos] + go_files
    ignores = {source.path: suppress.suppressions(source) for source in sources}
    project = GoProject()
    contexts = [file_context(info, index) for info in read] + [go_file_context(s, project) for s in go_files]
    issues: dict[tuple, Issue] = {}
    benchmarks = 0
    for ctx in contexts:
        benchmarks += len(ctx.benchmarks)
        language = "go" if is_go(ctx.source.path) else "java"
        for rule_id in selected:
            if RULES[rule_id].language != language:
                continue
            for issue in _checked(rule_id, ctx, warnings):
                if language == "java":
                    issue = subject.as_subject(issue, ctx.benchmarks)
                f = issue.finding
                if suppress.is_suppressed(issue, ignores):
                    continue
                issues.setdefault((f.path, f.line, f.column, f.rule), issue)
    ordered = sorted(issues.values(), key=lambda i: (i.finding.path, i.finding.line,
                                                     i.finding.column, i.finding.rule))
    data = {source.path: source.data for source in sources}
    ordered = suppress.stamp(ordered, data)
    by_path: dict[str, list[Issue]] = {}
    for issue in ordered:
        by_path.setdefault(issue.finding.path, []).append(issue)
    plans = [FilePlan(path, data[path], tuple(found)) for path, found in by_path.items()]
    return LintResult(tuple(i.finding for i in ordered), len(sources), benchmarks,
                      tuple(warnings), tuple(plans), tuple(skipped))
