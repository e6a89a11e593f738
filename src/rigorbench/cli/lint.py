"""``rigorbench lint``: find (and fix) benchmark code that measures the wrong thing."""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import tempfile
from pathlib import Path
from typing import IO

from rigorbench.cli.common import write_output
from rigorbench.cli.parser import UsageError
from rigorbench.errors import InputError, UserError
from rigorbench.lint import RULES, LintResult, fix_findings, lint_paths
from rigorbench.lint.engine import GO_SUFFIX
from rigorbench.lint.settings import (LintSettings, load_settings, read_baseline, write_baseline,
                                      without_baseline)
from rigorbench.model import SEVERITIES
from rigorbench.report.lint import LINT_RENDERERS, render_lint

DEFAULT_CONFIG = "rigorbench.toml"

DESCRIPTION = """\
Lint JMH benchmark sources for the bad practices that make results wrong: values the JIT can
remove because nothing consumes them (RETU), loops the JIT can fuse (LOOP), inputs it can fold
as constants (FINAL), per-invocation fixtures (INVO), runs without forking (FORK), and more.
Go benchmarks (func BenchmarkXxx(b *testing.B) in _test.go files) get the GO-* rules: unused
results in the b.N loop (GO-RESULT), timed setup (GO-SETUP), StopTimer/StartTimer around cheap
work (GO-TIMER), writes to b.N (GO-BN), benchmarks that ignore b.N (GO-NOLOOP), and 'for
b.Loop()' for modules on Go 1.24+ (GO-BLOOP). The source is parsed with tree-sitter; nothing
is built or run, so lint works on code that does not compile yet.

Every finding names its rule; 'rigorbench lint --explain RULE' says what goes wrong, why, and
how to fix it, and 'rigorbench lint --list-rules' lists the rules. --fix rewrites the
mechanical cases in place (keeping formatting and comments); --diff shows the patch instead.

Controls: '// rigorbench:ignore RULE,... reason' silences rules on its line (trailing) or in
the statement, method or class after it; the [lint] table of rigorbench.toml (select, ignore,
severity) chooses rules and severities; --baseline FILE records today's findings and then
reports only new ones (matched by each finding's fingerprint, which survives moved lines).
'info' findings (possible but unlikely harm) are listed only with --show-info.

Files that cannot be read (a dangling symbolic link, a symbolic link loop, no read
permission, a FIFO or device, a directory that cannot be listed) are skipped with one
'rigorbench: warning:' line each on stderr, and the rest is linted; symbolic links to
directories are not followed. A PATH that does not exist is an error (exit 2).

exit status: 0 no finding at or above --fail-on, 1 such findings, 2 bad usage or input
"""

EPILOG = """\
examples:
  rigorbench lint src/jmh/java
  rigorbench lint . --format sarif -o rigorbench.sarif
  rigorbench lint . --diff
  rigorbench lint . --fix
  rigorbench lint --explain LOOP
  rigorbench lint examples/go-demo/v1 --show-info
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="Java or Go test files, or directories (searched for *.java and *_test.go; "
                        "Go files under testdata and vendor are skipped)")
    rules = parser.add_argument_group("rules")
    rules.add_argument("--rules", metavar="ID,...", help="check only these rules (default: all)")
    rules.add_argument("--config", metavar="FILE",
                       help="read rule selection and severities from the [lint] table of FILE "
                       "(default: ./rigorbench.toml when it exists)")
    rules.add_argument("--explain", metavar="RULE", help="explain one rule: what goes wrong, why, and the fix")
    rules.add_argument("--list-rules", action="store_true", help="list every rule with its severity and title")
    fixes = parser.add_argument_group("fixes")
    fixes.add_argument("--fix", action="store_true", help="rewrite fixable findings in place, then report what is left")
    fixes.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; change nothing")
    output = parser.add_argument_group("output")
    output.add_argument("--format", choices=tuple(LINT_RENDERERS), default="text", help="output format (default: text)")
    output.add_argument(
        "--fail-on", choices=(*reversed(SEVERITIES), "never"), default="warning",
        help="exit 1 when a finding of this severity or worse exists (default: warning)",
    )
    output.add_argument("--baseline", metavar="FILE",
                        help="report only findings not recorded in FILE; when FILE does not exist, "
                        "record today's findings in it (to adopt lint on an existing suite)")
    output.add_argument("--show-info", action="store_true",
                        help="also list 'info' findings (possible but unlikely harm) in text output; "
                        "json and sarif always carry them")
    output.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE instead of standard output")


def explain(rule_id: str) -> str:
    rule = _rule(rule_id)
    fix = "yes: 'rigorbench lint --fix' rewrites it" if rule.fixable else "no: needs a person"
    return (
        f"{rule.id} [{rule.severity}] {rule.title}\n\n{rule.explanation.strip()}\n\n"
        f"Fixable: {fix}\nReference: {rule.reference}\n"
    )


def list_rules() -> str:
    from rigorbench.report.table import Table, layout_text

    rows = [[r.id, r.severity, "fix" if r.fixable else "", r.title] for r in RULES.values()]
    return "\n".join(layout_text(Table.of(["rule", "severity", "fix", "title"], rows), header=False)) + "\n"


def _rule(rule_id: str):
    try:
        return RULES[rule_id.strip().upper()]
    except KeyError:
        raise UsageError(f"unknown rule {rule_id!r}; the rules are {', '.join(RULES)}") from None


def _selected(text: str | None) -> list[str] | None:
    if not text:
        return None
    return [_rule(part).id for part in text.split(",") if part.strip()]


def fails(result: LintResult, fail_on: str) -> bool:
    if fail_on == "never":
        return False
    return any(f.severity >= fail_on for f in result.findings)


def unified_diff(fixes) -> str:
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


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    if args.explain:
        stdout.write(explain(args.explain))
        return 0
    if args.list_rules:
        stdout.write(list_rules())
        return 0
    if not args.paths:
        raise UsageError("give one or more PATHs to lint (see 'rigorbench lint --help')")
    if args.fix and args.diff:
        raise UsageError("--fix and --diff do not go together: --diff shows what --fix would write")
    settings = _settings(args.config)
    selected = settings.rules(_selected(args.rules))
    for path in args.paths:
        if Path(path).is_file() and not path.endswith((".java", GO_SUFFIX)):
            raise InputError(path, None, "not a Java source or Go test file (lint reads .java and "
                             "_test.go files and directories)")
    result = lint_paths(args.paths, rules=selected)
    for line in result.skipped:
        stderr.write(f"rigorbench: warning: {line}\n")
    if result.files == 0:
        stderr.write(f"rigorbench: warning: no .java or _test.go files under {', '.join(args.paths)}\n")
    if args.diff:
        fixes = fix_findings(result)
        write_output(unified_diff(fixes), args.output, stdout)
        stderr.write(f"{sum(f.fixable for f in result.findings)} fixable findings in {len(fixes)} files; run with --fix to apply\n")
        return 1 if fails(result, args.fail_on) else 0
    if args.fix:
        fixes = fix_findings(result)
        for fix in fixes:
            write_fixed(fix.path, fix.fixed)
        before = sum(f.fixable for f in result.findings)
        result = lint_paths(args.paths, rules=selected)
        fixed = before - sum(f.fixable for f in result.findings)
        stderr.write(f"fixed {fixed} findings in {len(fixes)} files\n")
    result = _against_baseline(settings.apply(result), args.baseline, stderr)
    shown = result if args.show_info or args.format != "text" else _without_info(result, stderr)
    write_output(render_lint(shown, RULES, args.format), args.output, stdout)
    return 1 if fails(result, args.fail_on) else 0


def _settings(config: str | None) -> LintSettings:
    if config is None:
        return load_settings(DEFAULT_CONFIG) if Path(DEFAULT_CONFIG).is_file() else LintSettings()
    return load_settings(config)


def _against_baseline(result: LintResult, baseline: str | None, stderr: IO[str]) -> LintResult:
    if baseline is None:
        return result
    if not Path(baseline).exists():
        write_baseline(baseline, result)
        stderr.write(f"rigorbench: note: recorded {len(result.findings)} findings in {baseline}; "
                     f"runs with --baseline {baseline} report only new ones\n")
        return without_baseline(result, frozenset(f.fingerprint for f in result.findings))
    return without_baseline(result, read_baseline(baseline))


def _without_info(result: LintResult, stderr: IO[str]) -> LintResult:
    """The result without ``info`` findings; says on stderr how many were left out."""
    kept = tuple(f for f in result.findings if f.severity != "info")
    hidden = len(result.findings) - len(kept)
    if hidden:
        stderr.write(f"rigorbench: note: {hidden} info finding{'s' if hidden != 1 else ''} "
                     f"not shown (possible but unlikely harm); add --show-info to list them\n")
    return dataclasses.replace(result, findings=kept)
