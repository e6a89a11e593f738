"""Harness adapters: build and run benchmarks of one version, one trial at a time.

Each adapter implements :class:`rigorbench.harness.base.Harness` and is listed in the
explicit registry :data:`HARNESSES` (STYLE.md rule 6); :func:`get_harness` makes one by
name and lists the valid names when the name is unknown.
"""

from __future__ import annotations

from rigorbench.errors import UserError
from rigorbench.harness.base import Harness
from rigorbench.harness.jmh import JmhHarness

__all__ = ["HARNESSES", "get_harness"]

HARNESSES: dict[str, type] = {"jmh": JmhHarness}


def get_harness(name: str) -> Harness:
    """A harness adapter with its default settings; UserError for an unknown name."""
    try:
        factory = HARNESSES[name]
    except KeyError:
        raise UserError(f"unknown harness {name!r}; valid harnesses: {', '.join(sorted(HARNESSES))}") from None
    return factory()
