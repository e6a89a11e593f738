"""Errors that the CLI turns into one stderr line and exit code 2."""

from __future__ import annotations


class UserError(Exception):
    """Bad usage or bad input: reported as one line, never as a traceback."""


class InputError(UserError):
    """A problem located in an input file, reported as ``path:line: message``."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {message}")


class Interrupted(UserError):
    """Ctrl-C (or SIGTERM) during a run; the message says how to resume."""
