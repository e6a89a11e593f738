"""Change points of one iteration series, found the way Traini et al. found them.

The steady-state detection (``stats/steady.py``) follows Traini et al., *Towards effective
assessment of steady state performance in Java software: are we there yet?* (EMSE 2022).
Their replication package (``SEALABQualityGroup/steady-state``, ``changepoint.py``) segments
each fork with R's ``changepoint`` package and Python's ``kneed`` 0.7:

1. CROPS (Haynes, Eckley & Fearnhead 2017, JCGS 26(1)): every optimal PELT segmentation
   (Killick, Fearnhead & Eckley 2012) for penalties from 4 to 100,000 times ``log n``, with a
   Gaussian mean-and-variance cost and segments of at least 2 points
   (``cpt.meanvar(method="PELT", penalty="CROPS")``);
2. the penalty at the elbow of the number of change points against the penalty
   (``KneeLocator(S=1, curve="convex", direction="decreasing")`` on the penalties in
   decreasing order), or ``15 log n`` when there is none;
3. PELT at that penalty.

Why by hand, to the bit: the elbow is always a penalty at which two segmentations cost the
same (an end of CROPS's intervals), so which of the two PELT returns there is decided by
rounding. Matching the study's change points therefore means doing R's arithmetic in R's
order: cumulative sums in extended precision (R's ``cumsum``), the segment cost
``m (log 2 pi + log s2 + 1)`` with ``s2 = (x2 - x^2 / m) / m`` set to 1e-11 when not positive,
totals added left to right, the first minimum winning, R's CROPS rounds (every new penalty
run in one round, intervals of adjacent results split where their change-point counts differ
by more than one, a penalty within a relative 1e-8 of one already run dropped) and its
interval ends ``(Q_k - Q_k+1) / (n_k+1 - n_k)``. No maintained Python package does this
(``ruptures``' PELT does not do R's arithmetic and has no CROPS). Run on the study's
filtered series, this reproduces its published change points (``benchmarks/steady_full.py``
counts them; ``docs/statistics.md`` gives the figure).

PELT's recursion is a loop over segment ends with a shrinking set of candidate starts, which
no array operation replaces; it is compiled with numba (``stats/pelt_kernel.py``, cached on
disk). At a high penalty it prunes nothing (splitting a segment always lowers this cost), so a
run costs O(n^2): the whole CROPS search takes about 0.5-1 s of CPU per fork of 3000 iterations
(``benchmarks/bench_steady.py``: 7.5 s per benchmark of 10 forks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MIN_SEGMENT = 2                  # R changepoint's minseglen for cpt.meanvar
PENALTY_RANGE = (4.0, 100_000.0)  # CROPS searches penalties of these multiples of log(n)
FALLBACK_PENALTY = 15.0          # times log(n), when the elbow finder finds no elbow
_RELATIVE_SAME = 1e-8            # R's all.equal tolerance: a penalty already run


@dataclass(frozen=True)
class CropsPath:
    """The optimal segmentations CROPS found, most change points first: ``penalties[k]`` is
    where segmentation ``k`` starts to be optimal (the first is the range's low end),
    ``counts[k]`` its number of change points and ``ends[k]`` its segment ends (the last is
    the series' length)."""

    penalties: tuple[float, ...]
    counts: tuple[int, ...]
    ends: tuple[tuple[int, ...], ...]


def _compiled():
    """The compiled PELT (``stats/pelt_kernel.py``), imported on first use: numba costs about
    half a second to import, and only long series are segmented."""
    from rigorbench.stats.pelt_kernel import pelt

    return pelt


def sums(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``c(0, cumsum(y))`` and ``c(0, cumsum(y^2))`` as R computes them (in long double)."""
    y = np.asarray(y, dtype=np.float64)
    s1 = np.cumsum(y.astype(np.longdouble)).astype(np.float64)
    s2 = np.cumsum((y * y).astype(np.longdouble)).astype(np.float64)
    return np.concatenate(([0.0], s1)), np.concatenate(([0.0], s2))


def pelt(y: np.ndarray, penalty: float, *, min_segment: int = MIN_SEGMENT) -> list[int]:
    """Segment ends (the last is ``len(y)``) of the optimal segmentation at ``penalty``."""
    s1, s2 = sums(y)
    return _run(s1, s2, penalty, min_segment)[2]


def _run(s1, s2, penalty: float, min_segment: int) -> tuple[int, float, list[int]]:
    """PELT: the number of segments, the unpenalised cost (as R derives it from the
    penalised one) and the segment ends."""
    total, segments, last = _compiled()(s1, s2, float(penalty), int(min_segment))
    ends, end = [], s1.size - 1
    while end != 0:
        ends.append(end)
        end = int(last[end])
    return int(segments), float(total - (segments - 1) * penalty), ends[::-1]


def crops(y: np.ndarray, low: float, high: float, *, min_segment: int = MIN_SEGMENT) -> CropsPath:
    """Every optimal segmentation for penalties in ``[low, high]``, by R's CROPS rounds."""
    return _crops(*sums(y), low, high, min_segment)


def _crops(s1, s2, low: float, high: float, min_segment: int) -> CropsPath:
    first = _run(s1, s2, low, min_segment)
    if first[0] == 1:
        # No change point at the lowest penalty: none at any higher one either (the count
        # never rises with the penalty), so R's run at ``high`` adds nothing to the path.
        return CropsPath((float(low),), (0,), (tuple(first[2]),))
    runs: list[tuple[float, int, float, list[int]]] = [(float(low), *first)]  # penalty, segments, cost, ends
    pending = [float(high)]
    while pending:
        runs += [(p, *_run(s1, s2, p, min_segment)) for p in pending]
        # R sorts penalties, counts and costs each on its own (they are monotone together).
        penalties = sorted({r[0] for r in runs})
        counts = sorted((r[1] for r in runs), reverse=True)
        costs = sorted(r[2] for r in runs)
        pending = []
        for i in range(len(penalties) - 1):
            if abs(counts[i] - counts[i + 1]) > 1:
                new = (costs[i + 1] - costs[i]) * (1.0 / (counts[i] - counts[i + 1]))
                near = min(penalties, key=lambda p: abs(new - p))
                gap = abs(new - near) / abs(new) if abs(new) > _RELATIVE_SAME else abs(new - near)
                if gap > _RELATIVE_SAME:
                    pending.append(new)
    penalties = sorted({r[0] for r in runs})
    counts = sorted((r[1] for r in runs), reverse=True)
    costs = sorted(r[2] for r in runs)
    ends: dict[int, list[int]] = {}
    for r in sorted(runs, key=lambda r: r[0]):
        ends.setdefault(r[1], r[3])
    keep = [0] + [j for j in range(1, len(penalties)) if counts[j] != counts[j - 1]]
    counts = [counts[j] for j in keep]
    costs = [costs[j] for j in keep]
    starts = [penalties[0]] + [(costs[k] - costs[k + 1]) / (counts[k + 1] - counts[k])
                               for k in range(len(keep) - 1)]
    return CropsPath(tuple(starts), tuple(c - 1 for c in counts), tuple(tuple(ends[c]) for c in counts))


def elbow(penalties, counts) -> float | None:
    """The elbow penalty as ``kneed`` 0.7's ``KneeLocator(penalties, counts, S=1,
    curve="convex", direction="decreasing").elbow`` finds it (None when it finds none).

    By hand because the study's result depends on that version's exact steps, including
    its reading of penalties given in decreasing order (its last step stops at the
    largest x), which later versions of ``kneed`` changed; ``tests/stats/test_pelt.py``
    checks it against ``kneed`` 0.7.0 itself. Kneedle: Satopaa et al., 2011.
    """
    x = np.asarray(penalties, dtype=float)
    y = np.asarray(counts, dtype=float)
    xn = (x - x.min()) / (x.max() - x.min())
    yn = (y - y.min()) / (y.max() - y.min())
    difference = (yn.max() - yn) - xn
    before = np.concatenate((difference[:1], difference[:-1]))
    after = np.concatenate((difference[1:], difference[-1:]))
    maxima = np.flatnonzero((difference >= before) & (difference >= after))
    minima = np.flatnonzero((difference <= before) & (difference <= after))
    if maxima.size == 0:
        return None
    thresholds = difference[maxima] - abs(np.diff(xn).mean())
    seen = 0
    threshold = at = None
    for i in range(int(maxima[0]), x.size):
        if xn[i] == 1.0:
            break
        if i in maxima:
            threshold, at = thresholds[seen], i
            seen += 1
        if i in minima:
            threshold = 0.0
        if i + 1 >= x.size:  # kneed 0.7 reads past the end here: an IndexError, caught by the study
            return None
        if difference[i + 1] < threshold:
            return float(x[at])
    return None


def study_penalty(y: np.ndarray) -> float:
    """The penalty the study's ``find_penalty`` chooses for series ``y``."""
    return _study(y)[0]


def _study(y: np.ndarray) -> tuple[float, CropsPath, tuple]:
    s1, s2 = sums(y)
    log_n = math.log(y.size)
    path = _crops(s1, s2, PENALTY_RANGE[0] * log_n, PENALTY_RANGE[1] * log_n, MIN_SEGMENT)
    if len(path.penalties) < 2:
        return path.penalties[0], path, (s1, s2)
    chosen = elbow(path.penalties[::-1], path.counts[::-1])
    return (chosen if chosen is not None else FALLBACK_PENALTY * log_n), path, (s1, s2)


def change_points(y: np.ndarray) -> list[int]:
    """Segment ends of ``y`` (the last is ``len(y)``) as the study's ``pelt`` finds them."""
    penalty, path, (s1, s2) = _study(y)
    if penalty == path.penalties[0]:
        return list(path.ends[0])  # PELT at the range's low end: run already
    return _run(s1, s2, penalty, MIN_SEGMENT)[2]
