"""The ``rigorbench`` command: a thin layer over the library API.

``main(argv, stdout, stderr) -> int`` is the one place where a ``UserError`` becomes a
single stderr line and exit code 2 (STYLE.md rule 9); nothing else prints errors.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from typing import IO, Collection, Sequence

from rigorbench.api import __version__, printable
from rigorbench.cli.parser import HelpRequested, LintFailed, Parser, UsageError, unrecognized
from rigorbench.errors import Interrupted, UserError

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143

# Every command: its module (DESCRIPTION, EPILOG, add_arguments, run), imported only when the
# command runs or its help is asked for, and the summary the top-level help lists, so that
# `rigorbench --help` and `--version` load no command (and no numpy).
COMMANDS = {
    "lint": ("rigorbench.cli.lint", "find benchmark code that measures the wrong thing (JMH), explain it, and fix what is mechanical"),
    "compare": ("rigorbench.cli.compare", "compare two versions' results and decide: slower, faster, unchanged or inconclusive"),
    "analyze": ("rigorbench.cli.analyze", "diagnose one version's results: steady state, warmup, variability by level, modes, GC/JIT, plausibility"),
    "power": ("rigorbench.cli.power", "A/A false-positive rate, minimal detectable slowdown and trials needed, from one version's data"),
    "report": ("rigorbench.cli.report", "write a self-contained HTML report with plots (or the plotted series as CSV / gnuplot columns)"),
    "list": ("rigorbench.cli.list", "build a project and list its benchmarks, per version, before running anything"),
    "ab": ("rigorbench.cli.ab", "build and run a baseline and a contender as randomized interleaved trials, then compare"),
    "run": ("rigorbench.cli.run", "run the experiment described in a rigorbench.toml file (two or more versions)"),
    "runs": ("rigorbench.cli.runs", "list the runs in a results store with their versions, status and trial counts"),
    "export": ("rigorbench.cli.export", "export a stored run as pa CSV (one file per version) or JMH JSON (one file per trial)"),
    "store": ("rigorbench.cli.store", "check a results store for damage, recover its readable runs, or copy it (SQLite <-> PostgreSQL)"),
    "record": ("rigorbench.cli.record", "run one version of a project, store it, and add its results to the per-commit history"),
    "history": ("rigorbench.cli.history", "the per-commit history: add, import, list, show, and the commits where a benchmark changed"),
    "worker": ("rigorbench.cli.worker", "start this machine's benchmarking worker for a Dask cluster (ab --cluster): one trial at a time"),
    "bisect": ("rigorbench.cli.bisect", "find the first commit where a benchmark got slower (or faster): an A/B against --good per probed commit"),
}


def command_module(name: str):
    """The module of command ``name`` (imported on first use)."""
    return importlib.import_module(COMMANDS[name][0])


EXIT_INTERNAL = 70   # EX_SOFTWARE (sysexits.h): a bug in rigorbench, not in the input
DEBUG_ENV = "RIGORBENCH_DEBUG"


def build_parser(stdout: IO[str] | None = None, only: Collection[str] | None = None) -> Parser:
    """The whole command line; with ``only``, just those commands get their options (the
    others are listed by name and summary), so a command loads no other command's code."""
    parser = Parser(
        prog="rigorbench",
        description="Trustworthy microbenchmark results: lint benchmark code, run versions as designed experiments, analyze the data, and decide with statistics that hold for performance data.",
        epilog=(
            "exit status: 0 success, 1 a --fail-on condition was met, 2 bad usage or input, "
            "70 an internal error (a bug: run with --debug and report it), 130 interrupted"
        ),
        stdout=stdout,
    )
    parser.add_argument("--version", action="version", version=f"rigorbench {__version__}")
    parser.add_argument("--debug", action="store_true", help=f"show the traceback of an internal error (also {DEBUG_ENV}=1)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, (_, summary) in COMMANDS.items():
        if only is not None and name not in only:
            commands.add_parser(name, help=summary, stdout=stdout)   # listed; its options load with it
            continue
        module = command_module(name)
        sub = commands.add_parser(name, help=summary, description=module.DESCRIPTION, epilog=module.EPILOG, stdout=stdout)
        module.add_arguments(sub)
    return parser


def main(argv: Sequence[str] | None = None, stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    """Run one command; every failure becomes one line on ``stderr`` and an exit code."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    # [*...] and not list(...): importing the submodule rigorbench.cli.list binds the name
    # ``list`` in this package's namespace.
    argv = [*(sys.argv[1:] if argv is None else argv)]
    debug = "--debug" in argv or os.environ.get(DEBUG_ENV, "") not in ("", "0")
    try:
        return _run(argv, stdout, stderr)
    except HelpRequested:
        return EXIT_OK
    except LintFailed as error:
        stderr.write(f"rigorbench: {error}\n")
        return EXIT_FAIL
    except Interrupted as error:
        # Ctrl-C during a run: every finished trial is stored; say how to go on.
        stderr.write(f"rigorbench: {printable(_without_passwords(str(error), argv))}\n")
        return EXIT_INTERRUPTED
    except UserError as error:
        stderr.write(f"rigorbench: error: {printable(_without_passwords(str(error), argv))}\n")
        for line in error.details:   # each escaped on its own: the tool's lines, not flattened
            stderr.write(f"  {printable(_without_passwords(line, argv))}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        stderr.write("rigorbench: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        raise
    except Exception as error:  # the one place where any other failure becomes one line
        if debug:
            raise
        code, line = _unexpected(error)
        stderr.write(f"rigorbench: {printable(_without_passwords(line, argv, foreign=True))}\n")
        return code


def _without_passwords(text: str, argv: list[str], foreign: bool = False) -> str:
    """A message with the password of every store URL on the command line masked (the store
    masks its own; this catches a URL echoed by anything else). Only the URL's password
    field is masked, not every word equal to it; ``foreign`` (an unexpected exception's
    text, perhaps the driver's) masks the password as a word too (see ``scrubbed``)."""
    if not any("://" in arg for arg in argv):
        return text   # and the store package, with numpy, stays unloaded
    from rigorbench.api import is_postgres, scrubbed

    for arg in argv:
        url = arg.partition("=")[2] if arg.startswith("--") else arg
        if is_postgres(url):
            text = scrubbed(text, url, foreign=foreign)
    return text


def _run(argv: list[str], stdout: IO[str], stderr: IO[str]) -> int:
    # The command is the first word that is not an option (the program's own options,
    # --version, --debug and --help, take no value).
    named = next((word for word in argv if not word.startswith("-")), None)
    parser = build_parser(stdout, only=[named] if named in COMMANDS else [])
    args, extras = parser.parse_known_args(argv)
    if extras:
        raise UsageError(unrecognized(extras, parser, args.command))
    if args.command is None:
        parser.print_help(stdout)
        return EXIT_USAGE
    return command_module(args.command).run(args, stdout, stderr)


def _unexpected(error: Exception) -> tuple[int, str]:
    """An exception that is not the tool's own: the system's refusals (a file that cannot be
    read or written, no memory, no space) are the environment's, exit 2; the rest is a bug."""
    if isinstance(error, OSError):
        where = f"{error.filename}: " if error.filename else ""
        return EXIT_USAGE, f"error: {where}{error.strerror or error}"
    if isinstance(error, MemoryError):
        return EXIT_USAGE, "error: out of memory (is an input far larger than intended?)"
    kind = type(error).__name__
    return EXIT_INTERNAL, (
        f"internal error: {kind}: {error}; run with --debug for the traceback and please report it"
    )


def _on_sigterm(signum, frame) -> None:
    """SIGTERM (a CI job cancelled, ``timeout``, ``kill``) stops like Ctrl-C: the running
    build or trial's process group is stopped, temporary worktrees are removed, finished
    trials stay stored and the message says how to resume."""
    global _terminated
    _terminated = True
    raise KeyboardInterrupt


_terminated = False


def entry_point() -> None:
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader of our output went away (``| head``): not an error worth a traceback.
        code = EXIT_OK
    sys.exit(EXIT_TERMINATED if _terminated and code == EXIT_INTERRUPTED else code)
