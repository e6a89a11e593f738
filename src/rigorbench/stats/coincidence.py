"""Do slow iterations coincide with GC or JIT compilation?

Eichelberger et al. found every latency spike of their benchmark right after a garbage
collection; Sestoft's HotSpot rule 2 asks to make sure no compilation happens while timing.
Given per-iteration scores and a per-iteration event measure (JMH ``-prof gc``'s
``gc.count``/``gc.time`` or ``-prof comp``'s ``compiler.time``), this module tests whether
the slowest iterations are the ones with events: Fisher's exact test on the 2x2 table
slow/other x event/none (one-sided, for a positive association), and the ratio of the mean
score of iterations with events to those without.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from rigorbench.stats._checks import finite_sample


@dataclass(frozen=True)
class Coincidence:
    iterations_with_events: int
    slow_iterations: int
    slow_with_events: int
    share_slow_with_events: float
    share_other_with_events: float
    mean_with: float | None
    mean_without: float | None
    slowdown: float | None      # mean_with / mean_without in the slow direction (> 1: slower)
    p_value: float
    rho: float                  # Spearman correlation of scores and events
    associated: bool


def coincidence(values, events, *, higher_is_slower: bool = True, slow_quantile: float = 0.9,
                alpha: float = 0.01) -> Coincidence:
    x = finite_sample(values, "coincidence values")
    e = finite_sample(events, "coincidence events")
    if len(x) != len(e):
        raise ValueError("values and events must have the same length")
    score = x if higher_is_slower else -x
    slow = score > np.quantile(score, slow_quantile)
    has = e > 0
    table = [[int(np.sum(slow & has)), int(np.sum(slow & ~has))], [int(np.sum(~slow & has)), int(np.sum(~slow & ~has))]]
    p_value = float(sps.fisher_exact(table, alternative="greater").pvalue) if has.any() and (~has).any() else 1.0
    mean_with = float(x[has].mean()) if has.any() else None
    mean_without = float(x[~has].mean()) if (~has).any() else None
    slowdown = None
    if mean_with is not None and mean_without:
        slowdown = mean_with / mean_without if higher_is_slower else mean_without / mean_with
    rho = float(sps.spearmanr(x, e).statistic) if np.ptp(e) > 0 and np.ptp(x) > 0 else 0.0
    return Coincidence(
        int(has.sum()), int(slow.sum()), table[0][0],
        table[0][0] / max(int(slow.sum()), 1), table[1][0] / max(int((~slow).sum()), 1),
        mean_with, mean_without, slowdown, p_value, rho,
        bool(p_value < alpha and slowdown is not None and slowdown > 1),
    )
