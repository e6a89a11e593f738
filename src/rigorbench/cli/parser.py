"""An argument parser that reports errors as UserError instead of exiting.

argparse prints usage and calls ``sys.exit(2)`` on bad usage; ``main`` must instead write
one line to the stderr it was given and return 2, so errors become exceptions here.
"""

from __future__ import annotations

import argparse
from typing import IO

from rigorbench.errors import UserError


class UsageError(UserError):
    """Bad command-line usage."""


class HelpRequested(Exception):
    """``--help`` or ``--version`` printed its text; the command is done."""


class Parser(argparse.ArgumentParser):
    def __init__(self, *args, stdout: IO[str] | None = None, **kwargs) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self._stdout = stdout

    def error(self, message: str):  # noqa: D401 - argparse's hook
        raise UsageError(f"{self.prog}: {message} (see '{self.prog} --help')")

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
    """A fraction given as ``0.01`` or ``1%``."""
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number or percentage: {text!r}") from None
    if not raw.endswith("%") and value >= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction; write {value / 100:g} or {text}%")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
    return value
