"""``rigorbench lint``: find (and fix) benchmark code that measures the wrong thing."""

from __future__ import annotations

import argparse
from typing import IO

from rigorbench import api
from rigorbench.cli.common import write_output
from rigorbench.cli.parser import UsageError, positive_int

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
  rigorbench lint . --store results.db --format json
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
    measured = parser.add_argument_group(
        "measured data", "With --store, findings whose harm depends on how long a call takes are graded by what "
        "a stored run measured: INVO is confirmed under 1 ms per call and cleared to info at 10 ms or more; "
        "RETU, VOID, FINAL and GO-RESULT are confirmed (raised to error) under 3 clock cycles per operation "
        "(1 ns when the run did not record the CPU's clock), where the work was likely removed. Findings are "
        "matched to stored benchmarks by class and method; each graded finding says what was measured "
        "(json: 'measured'). See docs/lint.md.")
    measured.add_argument("--store", metavar="DB", help="grade findings by a results store (a SQLite file or a "
                          "postgresql:// URL), opened for reading only")
    measured.add_argument("--run", type=positive_int, metavar="RUN_ID", help="with --store: the run (default: the newest)")
    measured.add_argument("--version", dest="version_label", metavar="LABEL",
                          help="with --store: the version of the run (default: its last, the contender of an A/B)")
    output = parser.add_argument_group("output")
    output.add_argument("--format", choices=tuple(api.LINT_RENDERERS), default="text", help="output format (default: text)")
    output.add_argument(
        "--fail-on", choices=(*reversed(api.SEVERITIES), "never"), default="warning",
        help="exit 1 when a finding of this severity or worse exists (default: warning)",
    )
    output.add_argument("--baseline", metavar="FILE",
                        help="report only findings not recorded in FILE; when FILE does not exist, "
                        "record today's findings in it (to adopt lint on an existing suite)")
    output.add_argument("--show-info", action="store_true",
                        help="also list 'info' findings (possible but unlikely harm) in text output; "
                        "json and sarif always carry them")
    output.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE instead of standard output")


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    if args.explain:
        stdout.write(api.render_rule(api.rule_named(args.explain)))
        return 0
    if args.list_rules:
        stdout.write(api.render_rules(api.RULES))
        return 0
    if not args.paths:
        raise UsageError("give one or more PATHs to lint (see 'rigorbench lint --help')")
    if args.fix and args.diff:
        raise UsageError("--fix and --diff do not go together: --diff shows what --fix would write")
    if (args.run or args.version_label) and not args.store:
        raise UsageError("--run and --version go with --store")
    settings = api.lint_settings(args.config)
    selected = settings.rules(api.rules_named(args.rules))
    result = api.lint(args.paths, rules=selected)
    for line in result.skipped:
        stderr.write(f"rigorbench: warning: {line}\n")
    if result.files == 0:
        stderr.write(f"rigorbench: warning: no .java or _test.go files under {', '.join(args.paths)}\n")
    if args.diff:
        fixes = api.fix_findings(result)
        write_output(api.unified_diff(fixes), args.output, stdout)
        stderr.write(f"{sum(f.fixable for f in result.findings)} fixable findings in {len(fixes)} files; run with --fix to apply\n")
        return 1 if result.fails(args.fail_on) else 0
    if args.fix:
        fixes = api.fix_findings(result)
        for fix in fixes:
            api.write_fixed(fix.path, fix.fixed)
        before = sum(f.fixable for f in result.findings)
        result = api.lint(args.paths, rules=selected)
        fixed = before - sum(f.fixable for f in result.findings)
        stderr.write(f"fixed {fixed} findings in {len(fixes)} files\n")
    result = settings.apply(result)
    if args.store:
        result = _graded(result, args, stderr)
    if args.baseline is not None:
        found = len(result.findings)
        result, recorded = api.against_baseline(result, args.baseline)
        if recorded:
            stderr.write(f"rigorbench: note: recorded {found} findings in {args.baseline}; "
                         f"runs with --baseline {args.baseline} report only new ones\n")
    shown = result if args.show_info or args.format != "text" else _without_info(result, stderr)
    write_output(api.render(shown, args.format), args.output, stdout)
    return 1 if result.fails(args.fail_on) else 0


def _graded(result, args: argparse.Namespace, stderr: IO[str]):
    """The result graded by the stored run (``--store``), with one note on what was read."""
    with api.read_store(args.store) as store:
        result, source = api.grade_lint(result, store, args.run, args.version_label)
    graded = sum(f.measured is not None for f in result.findings)
    stderr.write(f"rigorbench: note: {graded} finding{'s' if graded != 1 else ''} graded by the times "
                 f"measured in {source} of {api.printable(api.masked(args.store))}\n")
    return result


def _without_info(result, stderr: IO[str]):
    """The result without ``info`` findings; says on stderr how many were left out."""
    kept = result.without_info()
    hidden = len(result.findings) - len(kept.findings)
    if hidden:
        stderr.write(f"rigorbench: note: {hidden} info finding{'s' if hidden != 1 else ''} "
                     f"not shown (possible but unlikely harm); add --show-info to list them\n")
    return kept
