"""How many CPUs this process may run on (bootstrap threads, report drawing processes)."""

from __future__ import annotations

import os


# A cap set in worker processes (rigorbench.parallel): each of them analyses one series on one
# CPU, so their bootstraps do not start threads of their own on CPUs the others use.
_cap: int | None = None


def cap_cpus(count: int | None) -> None:
    """Use at most ``count`` CPUs in this process from now on (``None``: all usable ones)."""
    global _cap
    _cap = count


def usable_cpus() -> int:
    """The CPUs this process may use: its affinity mask (a container's cpuset), not the
    machine's count, and no more than :func:`cap_cpus` allows."""
    if hasattr(os, "process_cpu_count"):  # Python >= 3.13
        found = os.process_cpu_count() or 1
    elif hasattr(os, "sched_getaffinity"):
        found = len(os.sched_getaffinity(0)) or 1
    else:
        found = os.cpu_count() or 1
    return found if _cap is None else max(1, min(found, _cap))
