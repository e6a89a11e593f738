"""An argument parser that reports errors as UserError instead of exiting.

argparse prints usage and calls ``sys.exit(2)`` on bad usage; ``main`` must instead write
one line to the stderr it was given and return 2, so errors become exceptions here.
"""

from __future__ import annotations

import argparse
import difflib
import re
from typing import IO

from rigorbench.errors import UserError


class UsageError(UserError):
    """Bad command-line usage."""


class LintFailed(UserError):
    """``--strict`` and the sources have findings at warning level or worse: exit 1, before
    anything is built or stored (``ab``, ``run``, ``record``)."""


class HelpRequested(Exception):
    """``--help`` or ``--version`` printed its text; the command is done."""


class Parser(argparse.ArgumentParser):
    def __init__(self, *args, stdout: IO[str] | None = None, **kwargs) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self._stdout = stdout

    def error(self, message: str):  # noqa: D401 - argparse's hook
        """One line: the command (not the program again: main prefixes ``rigorbench:``), the
        message, a guess at what was meant, and where the help is."""
        command = self.prog.removeprefix("rigorbench").strip()
        guess = _invalid_choice_guess(message)
        where = f"{command}: " if command else ""
        raise UsageError(f"{where}{message}{guess} (see '{self.prog} --help')")

    def exit(self, status: int = 0, message: str | None = None):
        if message:
            self._print_message(message)
        if status:
            raise UsageError(message or f"exit {status}")
        raise HelpRequested()

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:
        if message:
            (self._stdout or file).write(message)


def fraction(text: str) -> float:
    """A fraction given as ``0.01`` or ``1%`` (an argparse type)."""
    from rigorbench.api import parse_fraction as parse

    try:
        return parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
    return value


def count(text: str) -> int:
    """A whole number of at least 1 (processes, workers)."""
    value = positive_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")


def did_you_mean(word: str, candidates) -> str:
    """``"; did you mean 'compare'?"`` when a candidate is close to ``word``, else ``""``."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _invalid_choice_guess(message: str) -> str:
    match = _INVALID_CHOICE.search(message)
    if not match:
        return ""
    choices = re.findall(r"'([^']*)'", match.group(2))
    return did_you_mean(match.group(1), choices)


def unrecognized(extras: list[str], parser: argparse.ArgumentParser, command: str | None) -> str:
    """``unrecognized arguments: --confidnce 0.9; did you mean '--confidence'?`` for the
    command the arguments were given to."""
    target = parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            target = action.choices[command]
    options = [flag for action in target._actions for flag in action.option_strings]
    first = next((word.split("=", 1)[0] for word in extras if word.startswith("-")), None)
    guess = did_you_mean(first, options) if first else ""
    where = f"{command}: " if command else ""
    return f"{where}unrecognized arguments: {' '.join(extras)}{guess} (see '{target.prog} --help')"


def add_tls_arguments(group, role: str) -> None:
    """Dask's TLS files (``--cluster`` and ``rigorbench worker``); ``role`` names whose certificate."""
    group.add_argument("--tls-ca-file", metavar="FILE", help="TLS: the cluster's certificate authority (with --tls-cert and --tls-key)")
    group.add_argument("--tls-cert", metavar="FILE", help=f"TLS: this {role}'s certificate")
    group.add_argument("--tls-key", metavar="FILE", help=f"TLS: this {role}'s private key")
