"""Cliff's delta: a rank-based effect size for two independent samples.

Statistical stance: report how often one version beats the other, not by how much, so that
the effect size is as robust to outliers and long tails as the Mann-Whitney test it goes
with. Costa et al. (``shared/reference/000``, section 3.3) and Laaber et al.
(``shared/reference/004``, section 5.1.1) pair Wilcoxon rank-sum with Cliff's delta and read
its magnitude with the thresholds of Romano et al. (2006): negligible ``|d| <= 0.147``,
small ``<= 0.33``, medium ``<= 0.474``, large otherwise.

``delta = P(contender > baseline) - P(contender < baseline)`` over all pairs. It equals
``2 U / (n1 n2) - 1`` for the contender's Mann-Whitney ``U``; we count the pairs with binary
search in a sorted copy of the baseline, in ``O((n1 + n2) log n1)``.
"""

from __future__ import annotations

import numpy as np

from rigorbench.stats._checks import finite_sample

# Romano, Kromrey, Coraggio & Skowronek (2006), as used by Costa et al. and Laaber et al.
_MAGNITUDES = ((0.147, "negligible"), (0.33, "small"), (0.474, "medium"))


def cliffs_delta(baseline, contender) -> float:
    """``P(contender > baseline) - P(contender < baseline)``, in [-1, 1].

    Positive when the contender's values tend to be larger (slower, for a time metric).
    """
    b = np.sort(finite_sample(baseline, "baseline"))
    c = finite_sample(contender, "contender")
    below = np.searchsorted(b, c, side="left")  # baseline values < each contender value
    above = b.size - np.searchsorted(b, c, side="right")  # baseline values > it
    # Integer pair counts are exact; one division at the end.
    wins = int(below.sum(dtype=np.int64))
    losses = int(above.sum(dtype=np.int64))
    return (wins - losses) / (b.size * c.size)


def effect_magnitude(delta: float) -> str:
    """Romano et al.'s label for ``|delta|``: negligible, small, medium or large."""
    size = abs(float(delta))
    if not size <= 1.0:
        raise ValueError(f"Cliff's delta must lie in [-1, 1], got {delta!r}")
    for bound, label in _MAGNITUDES:
        if size <= bound:
            return label
    return "large"
