"""Series analysed side by side in worker processes, for inputs of many series.

Most of a series' analysis (steady state, diagnostics, the median's bisection) is numpy calls
on short arrays with Python between them, which holds the GIL: threads gave a suite of 500
benchmarks no speed-up on 2 CPUs. Worker processes do. They cost a fork each (milliseconds)
and the pickling of each series' table, so they are used only for inputs of enough series to
repay it (:func:`workers_for`).

Results do not depend on how the work is split: every series has its own seed, and a
bootstrap's chunks have their own seeds whatever the number of threads.

Workers are forked, and only from a process that has no other thread: a fork copies the
threads' held locks but not the threads, and ``forkserver`` or ``spawn`` would import the
user's main script again in every worker (a library user's script without a ``__main__``
guard would run itself). With other threads alive, or off Linux, the series run on threads
in this process instead. Workers ignore SIGINT so that Ctrl-C reaches only this process,
which stops the series not yet started and lets the running ones finish (a fraction of a
second), instead of every worker printing a traceback.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

from rigorbench.cpus import cap_cpus, usable_cpus

if TYPE_CHECKING:
    from concurrent.futures import Executor

T = TypeVar("T")
R = TypeVar("R")

# Worker processes pay off from about this many series: each takes tens of milliseconds at the
# least (10,000 resamples), a worker's fork a few.
MIN_SERIES = 16


def workers_for(series: int, jobs: int | None = None, min_series: int = MIN_SERIES) -> int:
    """How many processes analyse ``series`` series: ``jobs`` when the user chose (at most one
    per series), else every usable CPU from ``min_series`` series on and 1 (this process) for
    fewer (``power``, whose every series takes seconds, uses processes from 2)."""
    if jobs is not None:
        return max(1, min(jobs, series))
    if series < min_series:
        return 1
    return max(1, min(usable_cpus(), series))


def _start_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    cap_cpus(1)


def _process_pool(workers: int) -> Executor | None:
    """A pool of forked workers, or None where forking is not safe or not possible."""
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return None
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        context = multiprocessing.get_context("fork")
        return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker)
    except (OSError, ValueError, NotImplementedError):   # no semaphores (some sandboxes)
        return None


def ordered_map(function: Callable[[T], R], items: Sequence[T], workers: int, *, threads: bool = False,
                thread_fallback: bool = True) -> Iterator[R]:
    """``function`` of every item, in order, on ``workers`` processes (threads when
    ``threads``; this process alone when ``workers`` is 1). Where forking is not safe the items
    run on threads, or one after another without ``thread_fallback`` (matplotlib draws in one
    thread per process). ``function`` must be a module's top-level function for processes. An
    error stops the items not yet started."""
    if workers <= 1 or len(items) <= 1:
        yield from map(function, items)
        return
    # Imported here, as multiprocessing above: the command line reads MIN_SERIES at start-up.
    from concurrent.futures import ThreadPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    pool = None if threads else _process_pool(workers)
    if pool is None and not (threads or thread_fallback):
        yield from map(function, items)
        return
    if pool is None:
        pool = ThreadPoolExecutor(max_workers=workers)
    try:
        yield from pool.map(function, items)
    except BrokenProcessPool:
        raise RuntimeError(f"a worker process of {workers} died (killed, or out of memory?); "
                           "try again with fewer --jobs") from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def ordered_stream(function: Callable[[T], R], items: Iterable[T], workers: int, *, window: int,
                   threads: bool = False) -> Iterator[R]:
    """``function`` of every item, in order, on ``workers`` processes (threads when ``threads``
    or where forking is not safe; this process alone when ``workers`` is 1), taking the next item from ``items``
    only while fewer than ``window`` are in flight: items made as they are consumed (read from
    a file) are never all held at once, which ``Executor.map`` would do (it submits every item
    first). An error stops the items not yet started."""
    if workers <= 1:
        yield from map(function, items)
        return
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    pool = (None if threads else _process_pool(workers)) or ThreadPoolExecutor(max_workers=workers)
    pending: deque = deque()
    try:
        for item in items:
            pending.append(pool.submit(function, item))
            del item
            while len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except BrokenProcessPool:
        raise RuntimeError(f"a worker process of {workers} died (killed, or out of memory?); "
                           "try again with fewer --jobs") from None
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
