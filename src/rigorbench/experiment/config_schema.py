"""The keys ``rigorbench.toml`` may hold, the type of each, and where each is in the text.

Every value is type-checked before it is used, so that a wrong type (``trials = "abc"``,
``params = "x"``, a table where a string belongs, a negative count, ``true`` for a number)
is one line naming the file, the line and the key, never a traceback. An unknown key is an
error too, with the closest known key as a suggestion: a typo must not silently fall back
to a default. :mod:`tomllib` keeps no line numbers, so :func:`key_line` finds the line of
``key =`` in the text of the right table.
"""

from __future__ import annotations

import difflib
import math
import re
from typing import Callable

from rigorbench.errors import UserError
from rigorbench.experiment.plan import ORDERS

Check = Callable[[object], str | None]  # None when the value is fine, else what it must be


class ConfigKeyError(UserError):
    """An error about one key: ``table`` (``versions`` with its 0-based ``index``) and ``key``."""

    def __init__(self, key: str, message: str, table: str | None = None, index: int | None = None) -> None:
        super().__init__(message)
        self.key = key
        self.table = table
        self.index = index


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def integer(minimum: int, maximum: int = 2**31 - 1) -> Check:
    def check(value: object) -> str | None:
        if _is_int(value) and minimum <= value <= maximum:
            return None
        return f"an integer from {minimum} to {maximum}"
    return check


def string(value: object) -> str | None:
    return None if isinstance(value, str) else "a string"


def strings(value: object) -> str | None:
    if isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        return None
    return "a string or a list of strings"


def command(value: object) -> str | None:
    if isinstance(value, str) or (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
        return None
    return "a non-empty string or list of strings"


def boolean(value: object) -> str | None:
    return None if isinstance(value, bool) else "true or false"


def string_or_number(value: object) -> str | None:
    return None if isinstance(value, str) or _is_number(value) else "a string or a number"


def one_of(*choices: str) -> Check:
    def check(value: object) -> str | None:
        return None if value in choices else f"one of {', '.join(choices)}"
    return check


def param_values(value: object) -> str | None:
    """``{ size = "100,1000" }``: a table of strings or numbers (or lists of them)."""
    def scalar(v: object) -> bool:
        return isinstance(v, str) or _is_number(v)
    if isinstance(value, dict) and all(scalar(v) or (isinstance(v, list) and v and all(map(scalar, v)))
                                       for v in value.values()):
        return None
    return 'a table of parameter values, such as { size = "100,1000" }'


TABLES: dict[str, dict[str, Check]] = {
    "experiment": {
        "project": string, "trials": integer(1), "order": one_of(*ORDERS), "seed": integer(0, 2**63 - 1),
        "store": string, "baseline": string, "harness": string,
        "until_decided": boolean, "min_trials": integer(3), "max_trials": integer(3), "max_time": string,
        "futility": string_or_number,
        "cluster": string, "design": one_of("trial-based", "instance-based", "duet"), "instances": integer(1),
        "build_on_workers": boolean, "tls_ca_file": string, "tls_cert": string, "tls_key": string,
    },
    "build": {"command": command, "jar": string, "module": string, "java_home": string, "cache": boolean},
    "versions": {
        "label": string, "source": string, "build_command": command, "jar": string, "module": string,
        "java_home": string,
    },
    "jmh": {
        "forks": integer(1), "warmup_iterations": integer(0), "iterations": integer(1),
        "warmup_time": string, "iteration_time": string, "include": strings, "params": param_values,
        "jvm_args": strings, "profilers": strings, "timeout": string_or_number, "mode": string,
        "time_unit": string, "threads": integer(1), "warmup": one_of("auto"), "pilot_warmup": integer(1),
    },
    "compare": {
        "threshold": string_or_number, "confidence": string_or_number, "resamples": integer(1),
        "statistic": string, "interval": string, "test": string, "alpha": string_or_number, "metric": string,
        "correction": string, "fail_on": strings, "format": string,
    },
}


def suggestion(name: str, known) -> str:
    """``"; did you mean 'trials'?"`` or ``""``."""
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _shown(value: object) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_table(name: str, table: object, index: int | None = None) -> dict:
    """``table`` as a dict whose every key is known and every value of the right type."""
    label = f"[[{name}]]" if name == "versions" else f"[{name}]"
    if not isinstance(table, dict):
        raise ConfigKeyError(name, f"{label} must be a table", None, None)
    allowed = TABLES[name]
    for key, value in table.items():
        check = allowed.get(key)
        if check is None:
            raise ConfigKeyError(
                key, f"{label}: unknown key {key!r}{suggestion(key, allowed)} "
                f"(allowed keys are {', '.join(sorted(allowed))})", name, index,
            )
        expected = check(value)
        if expected is not None:
            raise ConfigKeyError(key, f"{label} {key} must be {expected}, not {_shown(value)}", name, index)
    return table


def check_top(data: dict) -> None:
    for name in data:
        home = next((t for t, keys in TABLES.items() if name in keys), None)
        if name not in TABLES and home is not None:
            raise ConfigKeyError(name, f"{name!r} is outside any table; did you mean to put it under [{home}]?")
        if name not in TABLES:
            raise ConfigKeyError(
                name, f"unknown table [{name}]{suggestion(name, TABLES)} "
                f"(allowed: experiment, versions, build, jmh, compare)",
            )


_HEADER = re.compile(r"\s*(\[\[?)\s*([A-Za-z0-9_.\"-]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(r"\s*\"?([A-Za-z0-9_-]+)\"?\s*=")


def key_line(text: str, key: str, table: str | None = None, index: int | None = None) -> int | None:
    """The line where ``key`` is set in ``table`` (the ``index``-th ``[[versions]]``), or the
    line of the table's header for ``key == table``; None if not found."""
    section, seen = "", -1
    for number, line in enumerate(text.split("\n"), 1):
        header = _HEADER.match(line)
        if header:
            section = header.group(2).strip('"')
            if section == table and header.group(1) == "[[":
                seen += 1
            if section == key and table is None:
                return number
            continue
        match = _KEY.match(line)
        if match and match.group(1) == key and (table is None or (section == table and index in (None, seen))):
            return number
    return None
