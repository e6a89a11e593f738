"""PELT with R ``changepoint``'s Gaussian mean-and-variance cost, compiled with numba.

Separate from ``stats/segmentation.py`` so that numba is imported only when a long series is
segmented, and so that the compiled functions sit at module level, where numba's on-disk cache
can find them again in the next process. See ``segmentation.py`` for why every operation is
R's, in R's order.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

LOG_TWO_PI = math.log(2 * math.pi)
FLOOR = 0.00000000001  # R changepoint's variance for a segment of equal values


@njit(cache=True)
def cost(x, x2, m):
    """``m (log 2 pi + log s2 + 1)`` of a segment of ``m`` points summing to ``x`` and ``x2``."""
    s2 = (x2 - (x * x) / m) / m
    if s2 <= 0.0:
        s2 = FLOOR
    return m * (LOG_TWO_PI + math.log(s2) + 1.0)


@njit(cache=True)
def pelt(s1, s2, pen, min_seg):
    """PELT over the cumulative sums ``s1``, ``s2`` (length n + 1) at penalty ``pen``:
    (the best penalised total at n, the number of segments, each end's previous end)."""
    n = s1.size - 1
    total = np.zeros(n + 1)        # best total of [0, t), counting one penalty less than segments
    last = np.zeros(n + 1, dtype=np.int64)
    segments = np.zeros(n + 1, dtype=np.int64)
    check = np.empty(n + 2, dtype=np.int64)
    tmp = np.empty(n + 2)
    total[0] = -pen
    for t in range(min_seg, 2 * min_seg):
        total[t] = cost(s1[t], s2[t], float(t))
        segments[t] = 1
    check[0] = 0
    check[1] = min_seg
    count = 2
    for t in range(2 * min_seg, n + 1):
        best = 0.0
        which = 0
        for i in range(count):
            c = check[i]
            v = total[c] + cost(s1[t] - s1[c], s2[t] - s2[c], float(t - c)) + pen
            tmp[i] = v
            if i == 0 or v < best:  # the first minimum wins
                best = v
                which = i
        total[t] = best
        last[t] = check[which]
        segments[t] = segments[last[t]] + 1
        kept = 0
        for i in range(count):  # prune the starts that can no longer be optimal
            if tmp[i] <= best + pen:
                check[kept] = check[i]
                kept += 1
        count = kept
        check[count] = t - (min_seg - 1)
        count += 1
    return total[n], segments[n], last
