"""What several commands share: argument groups, settings from arguments, writing output.

Loaded by every command when the parser is built, so it imports nothing heavy: formats are
named here (their renderers load when a command runs; a test checks the names agree), and
defaults come from the settings objects themselves. An option left out is ``None``, so a
value given on the command line, even one equal to the default, always wins over a
``rigorbench.toml``.
"""

from __future__ import annotations

import argparse
import os
import shlex
from typing import IO, TYPE_CHECKING, Callable

from rigorbench.api import CORRECTIONS, INTERVALS, MIN_PARALLEL_SERIES, STATISTICS, TESTS, Settings, parse_fail_on, safe_name
from rigorbench.cli.parser import UsageError, count, fraction, positive_int
from rigorbench.errors import UserError
from rigorbench.api import DEFAULT_WIDTH, text_width

if TYPE_CHECKING:
    from rigorbench.harness.base import BuildSpec

COMPARE_FORMATS = ("text", "markdown", "json", "csv")
ANALYZE_FORMATS = ("text", "markdown", "json")
DEFAULTS = Settings()

# Options of the statistics group: (flag, Settings field, type, metavar, help before the default).
_STATISTICS = (
    ("--confidence", "confidence", fraction, "C", "confidence level"),
    ("--resamples", "resamples", positive_int, "N", "bootstrap resamples"),
    ("--seed", "seed", positive_int, "S", "random seed; same input and seed, same output"),
)


def add_side_arguments(inputs: argparse._ArgumentGroup) -> None:
    """--baseline/--contender (files, or labels with --store) and their names (compare, report)."""
    inputs.add_argument("--baseline", nargs="+", metavar="FILE", help="result files of the baseline (one per trial), or its version label with --store")
    inputs.add_argument("--contender", nargs="+", metavar="FILE", help="result files of the contender (one per trial), or its version label with --store")
    inputs.add_argument("--baseline-label", metavar="NAME", help="name of the baseline in the output (default: file name)")
    inputs.add_argument("--contender-label", metavar="NAME", help="name of the contender in the output (default: file name)")


def add_version_inputs(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """One version's data: result files, or --store with --version (analyze, power); the group,
    for a command's own inputs."""
    inputs = parser.add_argument_group("inputs")
    inputs.add_argument("files", nargs="*", metavar="FILE", help="result files of one version (one per trial)")
    inputs.add_argument("--label", metavar="NAME", help="name of the version in the output (default: file name)")
    inputs.add_argument("--store", metavar="DB", help="read the version from this results store (see 'rigorbench runs')")
    inputs.add_argument("--version", dest="version_label", metavar="LABEL", help="with --store: the version (label) to read")
    inputs.add_argument("--run", type=positive_int, metavar="RUN_ID", help="with --store: the run (default: the newest)")
    return inputs


def add_resampling_arguments(group: argparse._ArgumentGroup) -> None:
    """--confidence, --resamples, --seed and --interval, with the defaults of :class:`Settings`."""
    for flag, field, kind, metavar, text in _STATISTICS:
        default = getattr(DEFAULTS, field)
        group.add_argument(flag, type=kind, default=None, metavar=metavar, help=f"{text} (default: {default})")
    group.add_argument(
        "--interval", choices=INTERVALS, default=None,
        help="bootstrap CI method: expanded (default) widens the percentile interval for few trials "
        "(Student t with the trials' degrees of freedom, Hesterberg 2015), so 5 trials keep the "
        "nominal coverage; percentile is the uncorrected interval (too narrow below about 10 trials); "
        "t is the bootstrap standard error times the same t quantile, for levels above 99%% (--until-decided's)",
    )


def add_jobs_argument(group: argparse._ArgumentGroup) -> None:
    """--jobs: processes the series are analysed on (the results do not depend on it)."""
    group.add_argument(
        "--jobs", "-j", type=count, default=None, metavar="N",
        help="analyse benchmarks on N processes; the results are the same for any N "
        f"(default: one per CPU from {MIN_PARALLEL_SERIES} benchmarks on, else this process)",
    )


def add_statistics_arguments(parser: argparse.ArgumentParser, *, metric: bool = True, jobs: bool = False,
                             paired: bool = False) -> None:
    stats = parser.add_argument_group("statistics")
    stats.add_argument("--statistic", choices=STATISTICS, default=None, help=f"statistic compared (default: {DEFAULTS.statistic})")
    add_resampling_arguments(stats)
    stats.add_argument("--threshold", type=fraction, default=None, metavar="T", help=f"smallest change that matters, as 0.01 or 1% (default: {DEFAULTS.threshold:.0%})".replace("%", "%%"))
    stats.add_argument("--test", choices=TESTS, default=None, help="decision rule: bootstrap CI vs threshold (default), or wilcoxon: the papers' rule, p <= --alpha and |Cliff's delta| >= 0.33")
    stats.add_argument("--alpha", type=fraction, default=None, metavar="A", help=f"significance level of --test wilcoxon (default: {DEFAULTS.alpha})")
    stats.add_argument("--correction", choices=CORRECTIONS, default=None, help=f"multiple-comparison correction of p-values (default: {DEFAULTS.correction})")
    if metric:
        add_metric_argument(stats)
    stats.add_argument("--steady-only", action="store_true", help="use only iterations at or after each fork's detected steady state (forks of 20+ iterations; see 'rigorbench analyze')")
    if paired:
        stats.add_argument(
            "--paired", action=argparse.BooleanOptionalAction, default=None,
            help="pair trial k of the baseline with trial k of the contender (files in the order given, or the "
            "trial and instance columns of pa CSV) and resample them as blocks, so that what a trial did to the "
            "machine cancels in the ratio; refused when the trials do not match. Default: paired for the "
            "versions of one stored RMIT run, unpaired for files; --no-paired: never")
    if jobs:
        add_jobs_argument(stats)


def add_metric_argument(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--metric", default=None, metavar="NAME", help="primary (default), all (adds alloc, gc.count, ...), or one metric name such as alloc")


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    output = parser.add_argument_group("output")
    output.add_argument("--format", choices=COMPARE_FORMATS, default=None, help="output format (default: text)")
    output.add_argument(
        "--fail-on", type=fail_on_conditions, default=None, metavar="WHEN",
        help="exit 1 when a benchmark got slower or failed in the contender (regression), changed either way "
        "or failed (change), or is on one side only (missing: a benchmark renamed or removed in the contender "
        "fails only this one, and regression or change without it says so on stderr); several separated by "
        "commas (regression,missing); default: never",
    )
    add_mismatch_argument(output)
    output.add_argument("--wide", action="store_true", help="text and markdown: every column (also p, Cliff's d, detects), however wide; by default the text fits the terminal (COLUMNS, else 100 columns), a name too long for it on a line of its own")
    output.add_argument("--only-changed", action="store_true", help="text and markdown: show only slower and faster benchmarks (the counts still cover all)")
    output.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="colour the text output's verdicts: auto (default) when standard output is a terminal and NO_COLOR is not set")
    output.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE instead of standard output")


def add_mismatch_argument(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--allow-mismatch", action="store_true", help="compare sides that do not measure the same thing (another benchmark mode, parameters or run settings), with a warning in every output; by default that is refused")


def settings_from(args: argparse.Namespace) -> Settings:
    """The settings the arguments give; an option not given keeps the default."""
    given = {
        field: getattr(args, field, None)
        for field in ("statistic", "confidence", "resamples", "seed", "interval", "threshold", "test", "alpha", "metric", "correction")
    }
    given["steady_only"] = bool(getattr(args, "steady_only", False))
    given["allow_mismatch"] = bool(getattr(args, "allow_mismatch", False))
    given["paired"] = getattr(args, "paired", None)
    return Settings(**{field: value for field, value in given.items() if value is not None})


def fail_on_conditions(text: str) -> str:
    """--fail-on's value, checked while the command line is parsed."""
    try:
        parse_fail_on(text)
    except UserError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("--fail-on: ")) from None
    return text


def fail_on(args: argparse.Namespace) -> str:
    return args.fail_on or "never"


def use_color(choice: str, stream: IO[str]) -> bool:
    """``--color``: always, never, or auto: on a terminal, unless NO_COLOR is set (no-color.org)
    or TERM is dumb."""
    if choice != "auto":
        return choice == "always"
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def write_output(text: str, path: str | None, stdout: IO[str]) -> None:
    if path is None:
        stdout.write(text)
        return
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise UserError(f"{path}: cannot write: {error.strerror}") from None


def add_html_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--html", metavar="FILE", help="also write the HTML report of the comparison to FILE (see 'rigorbench report')")


def add_lint_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--strict", action="store_true", help="stop before building when lint finds a warning or an error in a version's sources")
    group.add_argument("--no-lint", action="store_true", help="do not lint the benchmark sources before building")


def add_build_arguments(parser: argparse.ArgumentParser, listing: bool = True) -> None:
    build = parser.add_argument_group("build", "How each version is built (inferred from pom.xml or build.gradle unless given).")
    build.add_argument("--module", metavar="NAME", help="the benchmark module of a multi-module build (path from the root, directory name or artifactId); needed when several modules use JMH")
    build.add_argument("--build-command", metavar="CMD", help="build with CMD instead, run in each version's PATH; split like a shell command line but run without a shell (write 'sh -c \"...\"' to have one)")
    build.add_argument("--jar", metavar="PATH-OR-GLOB", help="the benchmark jar the build makes, relative to PATH (default: found in the module's target/ or build/libs/)")
    build.add_argument("--java", metavar="JDK", help="build and run with this JDK (its home directory or its java executable); recorded with the run")
    build.add_argument("--no-build-cache", action="store_true", help="always build; by default builds are kept next to the store and reused: the jars and Google "
                       "Benchmark executables of clean commits, Go test binaries and pyperf environments by a hash of their "
                       "sources (docs/harnesses.md)")
    if listing:
        build.add_argument("--list", action="store_true", help="build, list the benchmarks and @Param values of each version (and those only one has), estimate the run's duration, and stop")


def build_spec_from(args: argparse.Namespace) -> "BuildSpec":
    command = None
    if args.build_command is not None:
        try:
            command = tuple(shlex.split(args.build_command))
        except ValueError as error:
            raise UsageError(f"--build-command: {error}") from None
        if not command:
            raise UsageError("--build-command must not be empty")
    from rigorbench import api

    return api.BuildSpec(command=command, jar=args.jar, module=args.module, java_home=args.java)


# -- what commands share when they run (imports inside: this module loads with the parser) --


def note_printer(stderr: IO[str]):
    """``rigorbench: note: ...`` lines on ``stderr``, for the API's ``note`` callbacks."""
    from rigorbench import api

    return lambda text: stderr.write(api.printable(f"rigorbench: note: {text}") + "\n")


def dataset_from_args(args: argparse.Namespace, stderr: IO[str]):
    """One version's data (result files, or a version of a stored run) and, for a stored
    run, the mean seconds of one trial of that version (analyze, power); notes on ``stderr``."""
    from rigorbench import api

    if check_version_inputs(args) == "store":
        return api.load_version(args.store, args.version_label, args.run)
    return api.load_results(args.files, args.label, note_printer(stderr)), None


def check_version_inputs(args: argparse.Namespace) -> str:
    """``"files"`` or ``"store"``: where one version's data comes from (analyze, power); a
    UsageError for inputs that do not go together."""
    if args.store:
        if args.files:
            raise UsageError("give result files or --store, not both")
        return "store"
    if args.files:
        if args.version_label or args.run:
            raise UsageError("--version and --run go with --store")
        return "files"
    raise UsageError(f"give result files of one version, or --store DB (see 'rigorbench {args.command} --help')")


def finish_comparison(result, args: argparse.Namespace, stdout: IO[str], say: Callable[[str], None]) -> int:
    """Render the comparison where asked and turn --fail-on into the exit code; ``say`` (a
    line on stderr) what the gate does not see (a benchmark renamed in the contender)."""
    from rigorbench import api

    if not result.comparisons:
        raise UsageError("no benchmark is present on both sides; nothing to compare")
    layout = {"wide": bool(getattr(args, "wide", False)), "only_changed": bool(getattr(args, "only_changed", False)),
              "color": args.output is None and use_color(getattr(args, "color", "never"), stdout),
              "width": text_width(stdout) if args.output is None else DEFAULT_WIDTH}
    write_output(api.render(result, args.format or "text", **layout), args.output, stdout)
    ungated = result.ungated(fail_on(args))
    if ungated:
        say(f"warning: {api.printable(ungated)}")
    return 1 if result.fails(fail_on(args)) else 0


# Harnesses whose benchmark sources the lint rules read (Java for JMH, _test.go for Go).
LINTED_HARNESSES = frozenset({"jmh", "go"})


def before_build(args: argparse.Namespace, reporter, harness: str) -> tuple[object, dict]:
    """The pre-build hook of ``ab``, ``run`` and ``record`` (lint the sources, unless --no-lint
    or ``harness``'s sources are not ones the rules read) and the mapping it fills with each
    version's lint result, for the HTML report (--html)."""
    from rigorbench.cli.prelint import lint_before_build

    results: dict = {}
    linted = not args.no_lint and harness in LINTED_HARNESSES
    return (lint_before_build(reporter, args.strict, results) if linted else None), results


def conclude(store, result, baseline: str, contenders: list[str], args, stdout, reporter, lint_results: dict) -> int:
    """Say what the experiment cost, then compare each contender with the baseline."""
    from rigorbench import api

    reporter.message(
        f"run {result.run_id}: {result.executed} executions in {api.format_duration(result.wall_seconds)}"
        f" ({result.failed} failed); orchestration overhead {result.overhead * 100:.1f}% of wall time"
        + (f" (after waiting {api.format_duration(result.waited_seconds)} for other experiments' trials on this machine)"
           if result.waited_seconds >= 1 else "")
        + f"; stored in {store.path}"
    )
    run = store.run(result.run_id)
    if lint_results:
        from rigorbench.cli.prelint import grade_after_run

        lint_results = grade_after_run(store, result.run_id, lint_results, reporter.message)
    settings = api.verdict_settings(run, settings_from(args))
    code = 0
    for label, comparison, base, contender in api.finish_experiment(store, result.run_id, baseline, contenders, settings_from(args)):
        code = max(code, finish_comparison(comparison, args, stdout, reporter.message))
        if args.html:
            path = html_path(args.html, label, len(contenders))
            lint = {v: r for v, r in lint_results.items() if v in (baseline, label)}
            page = api.report_page([base, contender], settings, lint=lint, run=api.run_facts(store.run(result.run_id)), comparison=comparison)
            reporter.message(f"HTML report: {api.write_html(page, path)}")
    return code


def html_path(path: str, label: str, contenders: int) -> str:
    """``--html`` names one file; with several contenders each gets its own, named after it."""
    if contenders == 1:
        return path
    stem, dot, suffix = path.rpartition(".")
    return f"{stem}-{safe_name(label)}.{suffix}" if dot else f"{path}-{safe_name(label)}"


def progress_printer(stderr: IO[str], command: str, stage: str):
    """``report: analysing 120/200 benchmarks`` on a terminal, overwritten in place.

    ``None`` (no progress at all) when ``stderr`` is not a terminal: a CI log or a pipe gets
    the result and the errors, not hundreds of counter lines. Never writes to stdout.
    """
    if not getattr(stderr, "isatty", lambda: False)():
        return None

    def show(done: int, total: int) -> None:
        stderr.write(f"\r{command}: {stage} {done}/{total} benchmarks" + ("\n" if done == total else ""))
        stderr.flush()

    return show
