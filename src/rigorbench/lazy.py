"""Names a module re-exports, each imported on first use (PEP 562), so that importing the
module costs nothing and a caller loads only what it uses."""

from __future__ import annotations

import importlib
import sys
from typing import Callable, Mapping


def lazy_exports(module: str, table: Mapping[str, str]) -> tuple[dict[str, tuple[str, str]], Callable, Callable]:
    """The names ``table`` gives (``{"package.module": "name name:alias ..."}``), each mapped to
    where it is, and ``module``'s ``__getattr__`` and ``__dir__`` that import them on first use."""
    where: dict[str, tuple[str, str]] = {}
    for source, names in table.items():
        for entry in names.split():
            name, _, alias = entry.partition(":")
            where[alias or name] = (source, name)
    namespace = vars(sys.modules[module])

    def __getattr__(name: str):
        try:
            source, attribute = where[name]
        except KeyError:
            raise AttributeError(f"module {module!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(source), attribute)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return where, __getattr__, __dir__
