"""``rigorbench lint``: find (and fix) benchmark code that measures the wrong thing."""

from __future__ import annotations

import argparse
import os
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

--measure confirms findings by measurement (Costa et al.'s impact study): in temporary copies
of the project PATH (a Maven or Gradle JMH project), one as it is and one with the --fix
rewrite, it builds both and runs the benchmarks that have fixable findings as an A/B
experiment of randomized interleaved trials with 'ab --quick''s settings, then says of each
finding whether fixing it changed the score the way its rule predicts (confirmed), not at
all (no effect), or could not be told (inconclusive); findings it cannot measure say why.
The copies are removed however the command ends; --store DB keeps the run (original vs
fixed) for 'rigorbench compare --store DB --baseline original --contender fixed'.

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
  rigorbench lint examples/jmh-measure --measure
  rigorbench lint . --measure --bench 'Parse.*' --trials 10 --store measure.db
"""

# The options that shape a measurement: given without --measure, they are refused.
MEASURE_OPTIONS = ("bench", "trials", "forks", "warmup_iterations", "iterations", "warmup_time",
                   "iteration_time", "threshold", "confidence", "seed", "module", "build_command", "jar", "java",
                   "no_build_cache")


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
                          "postgresql:// URL), opened for reading only; with --measure: keep the measurement's run "
                          "there instead (labels original and fixed; default: a temporary store, removed with the copies)")
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
    add_measure_arguments(parser)


def add_measure_arguments(parser: argparse.ArgumentParser) -> None:
    """``--measure`` and what shapes its A/B run (ab's options of the same names)."""
    from rigorbench.cli.common import add_build_arguments
    from rigorbench.cli.parser import fraction, positive_int

    group = parser.add_argument_group(
        "measure", "Confirm fixable findings by running each one's benchmark as it is and fixed (docs/lint.md). "
        f"Defaults are ab --quick's: {api.QUICK_TRIALS} trials of {api.QUICK_SETTINGS.forks} forks x "
        f"({api.QUICK_SETTINGS.warmup_iterations} warmup + {api.QUICK_SETTINGS.iterations} measurement iterations of "
        f"{api.QUICK_SETTINGS.iteration_time}).")
    group.add_argument("--measure", action="store_true", help="build the project PATH as it is and with every fix "
                       "applied, run the benchmarks that have fixable findings as an A/B of randomized interleaved "
                       "trials, and give each finding an impact: confirmed, no effect, inconclusive or not measured")
    group.add_argument("--bench", action="append", metavar="REGEX", help="measure only findings whose benchmark "
                       "(package.Class.method) matches REGEX (repeatable)")
    group.add_argument("--trials", type=positive_int, metavar="N", help=f"trials (default: {api.QUICK_TRIALS})")
    group.add_argument("--forks", type=positive_int, metavar="N", help="JMH forks per trial")
    group.add_argument("--warmup-iterations", type=positive_int, metavar="N", help="JMH warmup iterations per fork")
    group.add_argument("--iterations", type=positive_int, metavar="N", help="JMH measurement iterations per fork")
    group.add_argument("--warmup-time", metavar="T", help="time per warmup iteration")
    group.add_argument("--iteration-time", metavar="T", help="time per measurement iteration")
    group.add_argument("--threshold", type=fraction, metavar="T", help="smallest change that matters, as 0.01 or 1%% "
                       "(default: 1%%): within it a fix has no effect")
    group.add_argument("--confidence", type=fraction, metavar="C", help="confidence level of the ratio's interval (default: 0.99)")
    group.add_argument("--seed", type=positive_int, metavar="S", help="random seed of the trial order and the bootstrap")
    add_build_arguments(parser, listing=False)


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
    request = _measure_request(args)
    if request is not None and (args.run or args.version_label):
        raise UsageError("--run and --version choose a stored run to grade by; --measure judges findings by the run it makes")
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
    if args.store and request is None:
        result = _graded(result, args, stderr)
    if args.baseline is not None:
        found = len(result.findings)
        result, recorded = api.against_baseline(result, args.baseline)
        if recorded:
            stderr.write(f"rigorbench: note: recorded {found} findings in {args.baseline}; "
                         f"runs with --baseline {args.baseline} report only new ones\n")
    if request is not None:
        result = _measured(result, request, stderr)
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


def _measure_request(args: argparse.Namespace):
    """The measurement --measure asks for, or None; its options alone, or with --fix or
    --diff, are refused."""
    given = [f"--{name.replace('_', '-')}" for name in MEASURE_OPTIONS if getattr(args, name, None) not in (None, False)]
    if not args.measure:
        if given:
            raise UsageError(f"{given[0]} goes with --measure")
        return None
    if args.fix or args.diff:
        raise UsageError(f"--measure does not go with {'--fix' if args.fix else '--diff'}: it measures the fixes in "
                         "temporary copies and changes nothing")
    if len(args.paths) != 1 or not os.path.isdir(args.paths[0]):
        raise UsageError("lint --measure takes one PATH: the folder of the benchmark project to build and run")
    from rigorbench.cli.common import build_spec_from, settings_from

    base = api.QUICK_SETTINGS
    settings = api.settings_with(
        base, forks=args.forks, warmup_iterations=args.warmup_iterations, iterations=args.iterations,
        warmup_time=api.parse_jmh_time(args.warmup_time, "--warmup-time") if args.warmup_time else None,
        iteration_time=api.parse_jmh_time(args.iteration_time, "--iteration-time") if args.iteration_time else None,
    )
    seed = args.seed if args.seed is not None else api.DEFAULT_SEED
    return api.MeasureRequest(args.paths[0], settings, args.trials or api.QUICK_TRIALS, seed, settings_from(args),
                              build_spec_from(args), tuple(args.bench or ()), args.store)


def _measured(result, request, stderr: IO[str]):
    """``result`` with each finding's impact; progress on ``stderr`` as ab prints it."""
    if not any(f.fixable for f in result.findings):
        stderr.write("rigorbench: note: no fixable finding; nothing to measure\n")
    reporter = api.make_reporter(stderr)
    try:
        return api.measure_findings(result, request, reporter)
    finally:
        reporter.close()


def _without_info(result, stderr: IO[str]):
    """The result without ``info`` findings; says on stderr how many were left out."""
    kept = result.without_info()
    hidden = len(result.findings) - len(kept.findings)
    if hidden:
        stderr.write(f"rigorbench: note: {hidden} info finding{'s' if hidden != 1 else ''} "
                     f"not shown (possible but unlikely harm); add --show-info to list them\n")
    return kept
