"""Optimal segmentation of iteration series: PELT over a range of penalties (CROPS), for many
series at once.

PELT (Killick, Fearnhead & Eckley 2012) finds the segmentation minimising the summed segment
costs plus a penalty per segment; CROPS (Haynes, Eckley & Fearnhead 2017, "Computationally
efficient changepoint detection for a range of penalties", JCGS 26(1)) finds every optimal
segmentation for penalties in an interval with few PELT runs. The steady-state detection
(``stats/steady.py``) runs CROPS on every fork of a benchmark.

PELT's recursion is a loop over segment ends that no array operation replaces, and for one
series of 1000 points each step touches only a few candidate starts, so the time goes into
the interpreter, not the arithmetic (about 12 us a step, 0.26 s per benchmark of 20 forks).
Here one loop serves many series (rows): the forks of a benchmark, each at its own penalty,
step through the same grid of segment ends together, each row with its own candidate set
(a boolean matrix), and CROPS advances every series by one PELT run per round. The answers
are those of running each series alone, to the bit: the same costs, the same first-minimum
ties and the same pruning as ``ruptures.Pelt`` 1.1 (``tests/stats/test_pelt.py`` checks
against ``ruptures`` itself and against one series at a time).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


class MeanVarCost:
    """Gaussian mean-and-variance segment cost ``m * log(var)`` from cumulative sums."""

    def __init__(self, signal) -> None:
        x = np.asarray(signal, dtype=np.float64).reshape(-1)
        centred = x - np.median(x)  # centring keeps the sums of squares accurate
        self.size = x.size
        self.s1 = np.concatenate(([0.0], np.cumsum(centred)))
        self.s2 = np.concatenate(([0.0], np.cumsum(centred * centred)))
        scale = max(float(np.mean(np.abs(x))), np.finfo(float).tiny)
        self.floor = (1e-9 * scale) ** 2  # constant segments: tiny variance, no log(0)

    def errors(self, starts: np.ndarray, end: int) -> np.ndarray:
        """The cost of every segment ``[start, end)``, one per entry of ``starts``.

        The formula of the cost ``ruptures`` was given before PELT was written here;
        numpy's ``log`` and square may differ from ``math.log`` and ``x ** 2`` in the last
        bit, which moves a change point only on an exact tie of two segmentations (the tests
        compare with ``ruptures`` itself).
        """
        return _cost(self.s1[end] - self.s1[starts], self.s2[end] - self.s2[starts], end - starts, self.floor)


def _cost(s1: np.ndarray, s2: np.ndarray, m: np.ndarray, floor) -> np.ndarray:
    """``m * log(var)`` of segments from their sums, shared by one row and many rows so that
    both compute the same floating-point operations in the same order."""
    mean = s1 / m
    var = np.maximum(s2 / m - mean * mean, floor)
    return m * np.log(var)


@dataclass(frozen=True)
class Segmentation:
    """One optimal segmentation on the CROPS path: its change points (segment starts,
    excluding 0 and n), its unpenalised cost, and the penalty PELT found it at."""

    change_points: tuple[int, ...]
    cost: float
    penalty: float


def pelt(costs: Sequence[MeanVarCost], penalties: Sequence[float], min_size: int, jump: int) -> list[list[int]]:
    """Segment ends (the last is the series' length) of the PELT segmentation of every row.

    Row ``r`` segments series ``costs[r]`` at penalty ``penalties[r]``. As in ``ruptures``
    1.1 (``Pelt._seg``): segment ends on the grid of multiples of ``jump`` (and the series'
    end), a start admissible once it lies ``min_size`` before the end, on the grid; an
    admissible start without a partition of the points before it (a grid point below the
    first end) is never used; the first minimum wins a tie; a start is pruned once its total
    exceeds the best by more than the penalty.
    """
    rows = len(costs)
    sizes = np.array([c.size for c in costs])
    pen = np.asarray(penalties, dtype=np.float64)
    longest = int(sizes.max())
    width = longest + 1
    s1 = np.zeros((rows, width))
    s2 = np.zeros((rows, width))
    for r, cost in enumerate(costs):
        s1[r, :cost.size + 1], s2[r, :cost.size + 1] = cost.s1, cost.s2
    floor = np.array([c.floor for c in costs])[:, None]
    total = np.zeros((rows, width))       # best total cost of a partition of [0, end)
    back = np.zeros((rows, width), dtype=np.intp)
    grid = longest // jump + 1            # candidate starts: multiples of jump
    solved = np.zeros(grid, dtype=bool)   # grid ends already reached (the same for all rows)
    solved[0] = True
    alive = np.zeros((rows, grid), dtype=bool)
    first_end = -(-min_size // jump) * jump
    shortest = int(sizes.min())
    for end in range(first_end, longest, jump):
        active = slice(None) if end < shortest else np.flatnonzero(sizes > end)
        g = (end - min_size) // jump
        alive[active, g] = solved[g]
        _step(active, end, alive, s1, s2, floor, pen, total, back, jump)
        solved[end // jump] = True
    for r in range(rows):  # each row's last segment ends at its own length
        n = int(sizes[r])
        g = (n - min_size) // jump
        alive[r, g] = solved[g]  # as ruptures, which appends it again even when pruned before
        _step(np.array([r]), n, alive, s1, s2, floor, pen, total, back, jump)
    return [_ends(back[r], int(sizes[r])) for r in range(rows)]


def _step(active, end: int, alive, s1, s2, floor, pen, total, back, jump: int) -> None:
    """One PELT step at segment end ``end`` for the rows ``active`` (indices, or a slice for
    all rows: the common case, where no row needs gathering)."""
    candidate = alive[active]
    columns = np.flatnonzero(candidate.any(axis=0))
    candidate = candidate[:, columns]
    starts = columns * jump
    # Columns first, then rows: only the candidate starts are copied.
    s1_at, s2_at, total_at = s1[:, starts][active], s2[:, starts][active], total[:, starts][active]
    errors = _cost(s1[active, end, None] - s1_at, s2[active, end, None] - s2_at, end - starts, floor[active])
    totals = total_at + (errors + pen[active, None])
    totals[~candidate] = np.inf
    best = np.argmin(totals, axis=1)
    reached = totals[np.arange(totals.shape[0]), best]
    total[active, end] = reached
    back[active, end] = starts[best]
    kept = candidate & (totals <= (reached + pen[active])[:, None])
    if isinstance(active, slice):
        alive[:, columns] = kept
    else:
        alive[np.ix_(active, columns)] = kept


def _ends(back: np.ndarray, n: int) -> list[int]:
    bkps, end = [], n
    while end > 0:
        bkps.append(end)
        end = int(back[end])
    return sorted(bkps)


def _segmentation(cost: MeanVarCost, ends: list[int], pen: float) -> Segmentation:
    starts = np.array([0, *ends[:-1]], dtype=np.intp)
    total = float(sum(cost.errors(starts[i:i + 1], end)[0] for i, end in enumerate(ends)))
    return Segmentation(tuple(int(e) for e in ends[:-1]), total, pen)


def _run(costs: Sequence[MeanVarCost], jobs: Sequence[tuple[int, float]], min_size: int,
         jump: int) -> list[Segmentation]:
    """PELT for every (series index, penalty) job, in one loop."""
    ends = pelt([costs[i] for i, _ in jobs], [p for _, p in jobs], min_size, jump)
    return [_segmentation(costs[i], e, p) for (i, p), e in zip(jobs, ends)]


def crops_many(series: Sequence[np.ndarray], low: Sequence[float], high: Sequence[float], *,
               min_size: int = 5, jump: int = 1) -> list[list[Segmentation]]:
    """:func:`crops` of every series (each with its own penalty range), all advanced one
    PELT run per round so that every round is one :func:`pelt` loop over all of them."""
    costs = [MeanVarCost(y) for y in series]
    ends = _run(costs, [(i, p) for i in range(len(costs)) for p in (low[i], high[i])], min_size, jump)
    paths = [_Crops(low[i], high[i], ends[2 * i], ends[2 * i + 1]) for i in range(len(costs))]
    while True:
        jobs = [(i, penalty) for i, path in enumerate(paths) if (penalty := path.next_penalty()) is not None]
        if not jobs:
            return [path.result() for path in paths]
        for (i, _), solution in zip(jobs, _run(costs, jobs, min_size, jump)):
            paths[i].add(solution)


def crops(y: np.ndarray, low: float, high: float, *, min_size: int = 5, jump: int = 1) -> list[Segmentation]:
    """Every optimal PELT segmentation for penalties in ``[low, high]``, fewest change points
    first (CROPS).

    PELT runs at both ends; between two solutions with ``m0 > m1 + 1`` change points, the
    penalty where their penalised costs are equal, ``(Q1 - Q0) / (m0 - m1)``, either returns
    one of them (nothing lies between) or a new solution that splits the interval. At most
    ``m(low) - m(high) + 2`` PELT runs.
    """
    return crops_many([np.asarray(y, dtype=np.float64)], [low], [high], min_size=min_size, jump=jump)[0]


class _Crops:
    """The CROPS search of one series, one PELT run at a time (``next_penalty``, then
    ``add`` its solution): intervals are taken last in, first out."""

    def __init__(self, low: float, high: float, at_low: Segmentation, at_high: Segmentation) -> None:
        self.found = {len(s.change_points): s for s in (at_low, at_high)}
        self.pending = [(low, high)] if len(self.found) > 1 else []
        self.by_penalty = {low: self.found[max(self.found)], high: self.found[min(self.found)]}
        self.interval: tuple[float, float] | None = None

    def next_penalty(self) -> float | None:
        while self.pending:
            a, b = self.pending.pop()
            more, fewer = self.by_penalty[a], self.by_penalty[b]
            m0, m1 = len(more.change_points), len(fewer.change_points)
            if m0 <= m1 + 1:
                continue
            middle = (fewer.cost - more.cost) / (m0 - m1)
            if a < middle < b:
                self.interval = (a, b)
                return middle
        return None

    def add(self, solution: Segmentation) -> None:
        a, b = self.interval
        more, fewer = self.by_penalty[a], self.by_penalty[b]
        m = len(solution.change_points)
        if m in (len(more.change_points), len(fewer.change_points)) or m in self.found:
            return
        self.found[m] = solution
        self.by_penalty[solution.penalty] = solution
        self.pending += [(a, solution.penalty), (solution.penalty, b)]

    def result(self) -> list[Segmentation]:
        return [self.found[m] for m in sorted(self.found)]
