"""Mann-Whitney U (Wilcoxon rank-sum) test for two independent samples, two-sided.

Statistical stance: performance data is long-tailed and often multimodal, so the papers test
for a change with a rank test that assumes no distribution (Laaber et al.,
``shared/reference/004`` section 5.1.1; Costa et al., ``shared/reference/000`` section 3.3).
``u`` is the contender's statistic: the number of pairs (c, b) with c > b plus half the
number of tied pairs (Mann & Whitney 1947).

Two ways to get the p-value:

* ``"exact"``: the permutation distribution of U *conditional on the observed ties*. Under
  the null hypothesis every split of the pooled values into groups of the observed sizes is
  equally likely; with midranks, U is a function of the summed midranks of one group, so we
  count splits by summed *doubled* midrank (an integer) with a dynamic program over the
  tie groups: taking ``k`` of the ``t`` values of a tie group can be done in ``C(t, k)``
  ways and adds ``k`` times that group's doubled midrank. Without ties this is the classical
  exact distribution; with ties it is what a complete permutation test gives (scipy's
  ``PermutationMethod(n_resamples=inf)`` is the oracle in the tests).
* ``"asymptotic"``: the normal approximation with the tie-corrected variance
  ``n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1)))`` and a continuity correction of 1/2
  (the textbook formula; it matches ``scipy.stats.mannwhitneyu(method="asymptotic")``).

The two-sided p-value is ``min(1, 2 min(P(U <= u), P(U >= u)))``, scipy's convention (the
null distribution is not symmetric when there are ties, so both tails are computed).

``"auto"`` uses the exact distribution when ``n1 * n2 <= 2500``. That covers two samples of
50 (benchstat's limit for its exact test, golang.org/x/perf) and the lopsided small samples
(1 vs 2500, 3 vs 800) where the normal approximation is worst, while bounding the dynamic
program to a few hundred thousand cells (milliseconds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rigorbench.stats._checks import finite_sample
from scipy import special

EXACT_LIMIT = 2500  # "auto" uses the exact distribution when n1 * n2 <= EXACT_LIMIT
_MAX_EXACT_CELLS = 20_000_000  # refuse an explicit "exact" that would need more (~160 MB)
_METHODS = ("auto", "exact", "asymptotic")


@dataclass(frozen=True)
class MannWhitneyResult:
    """``u`` of the contender, the two-sided p-value and how it was computed."""

    u: float
    p_value: float
    method: str  # "exact" | "asymptotic"


@dataclass(frozen=True)
class _Ranked:
    """The pooled sample as tie groups in increasing order of value."""

    sizes: np.ndarray  # int64, values per tie group
    doubled_ranks: np.ndarray  # int64, twice the midrank of each group
    contender_sum: int  # summed doubled midranks of the contender's values
    n_contender: int
    n_baseline: int


def _rank(baseline: np.ndarray, contender: np.ndarray) -> _Ranked:
    pooled = np.concatenate([contender, baseline])
    distinct, sizes = np.unique(pooled, return_counts=True)
    sizes = sizes.astype(np.int64)
    before = np.cumsum(sizes) - sizes
    # Midrank of a group occupying ranks before+1 .. before+t is before + (t + 1) / 2.
    doubled = 2 * before + sizes + 1
    group_of = np.searchsorted(distinct, contender)
    return _Ranked(sizes, doubled, int(doubled[group_of].sum()), contender.size, baseline.size)


def _ways_up_to(sizes, scores, m: int, limit: int) -> np.ndarray:
    """``ways[s]`` = number of m-subsets of the pooled values whose scores sum to ``s``,
    for ``s = 0..limit`` (group ``g`` has ``sizes[g]`` members scoring ``scores[g]``).

    Scores are positive, so partial sums above ``limit`` can never come back below it and
    truncating the table at ``limit`` is exact.
    """
    ways = np.zeros((m + 1, limit + 1))  # ways[c, s]: c members chosen so far, sum s
    ways[0, 0] = 1.0
    for size, score in zip(sizes.tolist(), scores.tolist()):
        if score > limit:
            break  # scores increase with the group index: nothing further fits
        if size == 1:
            # numpy buffers overlapping operands, so the right side is the old table.
            ways[1:, score:] += ways[:-1, : limit + 1 - score]
            continue
        old = ways.copy()
        for k in range(1, min(size, m) + 1):
            shift = k * score
            if shift > limit:
                break
            ways[k:, shift:] += math.comb(size, k) * old[: m + 1 - k, : limit + 1 - shift]
    return ways[m]


def _tail_at_most(sizes, scores, m: int, observed: int) -> tuple[float, float]:
    """``(P(S <= observed), P(S == observed))`` for the score sum S of a random m-subset."""
    n = int(sizes.sum())
    if (m + 1) * (observed + 1) > _MAX_EXACT_CELLS:
        raise ValueError(
            "samples too large for the exact Mann-Whitney distribution; "
            "use method='asymptotic'"
        )
    total = float(math.comb(n, m))
    ways = _ways_up_to(sizes, scores, m, observed)
    return float(ways.sum()) / total, float(ways[observed]) / total


def _exact_p(r: _Ranked) -> float:
    """Two-sided exact p-value, conditional on the ties."""
    n = r.n_contender + r.n_baseline
    # Count subsets of the smaller sample. If that is the baseline, S_b = n(n+1) - S_c, so
    # the contender's lower tail is the baseline's upper tail.
    m, s_obs, flip = r.n_contender, r.contender_sum, False
    if r.n_baseline < r.n_contender:
        m, s_obs, flip = r.n_baseline, n * (n + 1) - r.contender_sum, True
    lowest = m * (m + 1)  # the m smallest doubled midranks sum to at least this
    highest = m * (2 * n - m + 1)
    # Run the dynamic program towards the nearer end of the support; mirroring the
    # ranks (doubled rank 2(n+1) - d) turns an upper tail into a lower tail.
    if s_obs - lowest <= highest - s_obs:
        below, at = _tail_at_most(r.sizes, r.doubled_ranks, m, s_obs)
        above = 1.0 - below + at
    else:
        mirrored = (2 * (n + 1) - r.doubled_ranks)[::-1]
        above, at = _tail_at_most(r.sizes[::-1], mirrored, m, 2 * (n + 1) * m - s_obs)
        below = 1.0 - above + at
    if flip:
        below, above = above, below
    return min(1.0, 2.0 * min(below, above))


def _asymptotic_p(r: _Ranked, u: float) -> float:
    """Normal approximation with tie and continuity correction (two-sided)."""
    n1, n2 = r.n_contender, r.n_baseline
    n = n1 + n2
    t = r.sizes.astype(np.float64)
    tie_term = float(np.sum(t**3 - t))
    variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)))
    if variance <= 0:
        return 1.0  # every value is equal: no evidence of any difference
    z = (max(u, n1 * n2 - u) - n1 * n2 / 2 - 0.5) / math.sqrt(variance)
    return float(min(1.0, max(0.0, 2.0 * special.ndtr(-z))))


def mann_whitney_u(baseline, contender, *, method: str = "auto") -> MannWhitneyResult:
    """Two-sided Mann-Whitney U test; ``u`` counts contender wins (+0.5 per tie)."""
    if method not in _METHODS:
        raise ValueError(f"unknown method {method!r}; valid methods are {list(_METHODS)}")
    b = finite_sample(baseline, "baseline")
    c = finite_sample(contender, "contender")
    ranked = _rank(b, c)
    # U_c = R_c - n_c (n_c + 1) / 2 with R_c the summed midranks; doubled, this is integral.
    u = (ranked.contender_sum - c.size * (c.size + 1)) / 2
    if method == "auto":
        method = "exact" if b.size * c.size <= EXACT_LIMIT else "asymptotic"
    if method == "exact":
        p = _exact_p(ranked)
    else:
        p = _asymptotic_p(ranked, u)
    return MannWhitneyResult(u=float(u), p_value=p, method=method)
