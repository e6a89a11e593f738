"""Errors that the CLI turns into one stderr line and exit code 2."""

from __future__ import annotations


class UserError(Exception):
    """Bad usage or bad input: reported as one line, never as a traceback.

    ``details`` are lines the CLI prints indented below that line, each escaped on its own
    (a failed build's command to reproduce it and the last lines of its output): the
    message itself stays one line, and untrusted text in a detail cannot forge another."""

    def __init__(self, *args: object, details: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(*args)
        self.details = tuple(details)


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


# What each optional extra of pyproject.toml installs (tests/cli/test_optional_dependencies.py
# checks that they agree). Messages name the requirement itself: rigorbench has no release on
# PyPI, so `pip install 'rigorbench[cluster]'` would not find it.
EXTRAS = {"cluster": "distributed>=2024.8", "postgres": "psycopg[binary]>=3.1"}


class MissingDependency(UserError):
    """An optional package that a feature needs is not installed: one line naming what to
    install (``pip install 'distributed>=2024.8'``, rigorbench's ``cluster`` extra), exit 2."""

    def __init__(self, feature: str, package: str, extra: str) -> None:
        self.package = package
        self.extra = extra
        super().__init__(f"{feature} needs the '{package}' package (rigorbench's {extra} extra): "
                         f"pip install '{EXTRAS[extra]}'")


def import_optional(module: str, feature: str, extra: str):
    """``module`` imported, or :class:`MissingDependency` for ``feature`` (the package named
    is the module's top level)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependency(feature, module.partition(".")[0], extra) from None
