"""``rigorbench store check|recover|copy``: how sound a results store is, saving what can be
read, and moving a store between SQLite and PostgreSQL."""

from __future__ import annotations

import argparse
from typing import IO

from rigorbench import api
from rigorbench.cli.parser import UsageError

DESCRIPTION = (
    "A store is a SQLite file or a PostgreSQL database (postgresql://user@host:port/db; its\n"
    "password is never shown: better kept in PGPASSWORD or ~/.pgpass than in the URL).\n"
    "\n"
    "check DB: SQLite's quick_check (integrity_check with --full) plus rigorbench's own checks: the\n"
    "schema version, every run's JSON columns parse, every sample belongs to a stored run, values\n"
    "are numbers. On PostgreSQL, whose server keeps its own pages and column types, only\n"
    "rigorbench's checks run: schema, tables, JSON columns, rows that refer to nothing.\n"
    "Exit 0 when the store is sound, 1 when it is damaged, 2 when it is not a store.\n"
    "\n"
    "recover DB NEW: copy every run that reads completely (versions, schedule, trials with their\n"
    "environment and output, samples) into the new store NEW, keeping run ids, then the history\n"
    "points; say which runs were lost and why. NEW must not exist. Exit 0 when every run and the\n"
    "history were recovered, 1 when some were lost.\n"
    "\n"
    "copy SRC DST: copy every run (versions, schedule, trials, environments, samples) and every\n"
    "history point with its machine kind from SRC into DST, between SQLite files and PostgreSQL\n"
    "in any direction. Runs get new ids in DST (printed as they are copied). DST is created\n"
    "when absent; one that already holds runs or history is refused unless --append."
)
EPILOG = (
    "examples:\n"
    "  rigorbench store check .rigorbench/results.db\n"
    "  rigorbench store check .rigorbench/results.db --full\n"
    "  rigorbench store recover .rigorbench/results.db recovered.db\n"
    "  rigorbench store copy .rigorbench/results.db postgresql://ci@db.example.org/benchmarks\n"
)
ACTIONS = ("check", "recover", "copy")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=ACTIONS, help="check the store, recover it into NEW, or copy it into DST")
    parser.add_argument("db", metavar="DB", help="the results store (a file, or a postgresql:// URL); copy: SRC")
    parser.add_argument("new", nargs="?", metavar="NEW",
                        help="recover: the new store to write (must not exist); copy: DST, the store to copy into")
    parser.add_argument("--full", action="store_true", help="check: run SQLite's integrity_check (slower, more thorough) instead of quick_check")
    parser.add_argument("--append", action="store_true", help="copy: add to a DST that already holds runs or history")


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    if args.append and args.action != "copy":
        raise UsageError("--append goes with store copy")
    if args.action == "copy":
        return _copy(args, stdout, stderr)
    if args.action == "check":
        if args.new is not None:
            raise UsageError(f"store check takes one store, not {args.new!r} too (recover takes DB NEW)")
        if args.full and api.is_postgres(args.db):
            raise UsageError("--full runs SQLite's integrity_check; a PostgreSQL server checks its own pages")
        result = api.check_store(args.db, full=args.full)
        stdout.write(api.render_check(result))
        return 0 if result.sound else 1
    if args.new is None:
        raise UsageError("store recover needs DB NEW: the damaged store and the new store to write")
    if args.full:
        raise UsageError("--full goes with store check")
    recovery = api.recover_store(args.db, args.new)
    stdout.write(api.render_recovery(args.new, recovery))
    return 0 if recovery.complete else 1


def _copy(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    if args.new is None:
        raise UsageError("store copy needs SRC DST: the store to copy and the store to copy into")
    if args.full:
        raise UsageError("--full goes with store check")

    def progress(done: int, total: int, run_id: int, new_id: int, samples: int) -> None:
        stderr.write(f"store copy: run {run_id} -> {new_id} ({done} of {total} runs, {samples} samples)\n")
        stderr.flush()

    copied = api.copy_store(args.db, args.new, append=args.append, progress=progress)
    stdout.write(api.render_copy(args.db, args.new, copied))
    return 0
