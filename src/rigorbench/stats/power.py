"""A/A false-positive rate and minimal detectable slowdown by simulation from real data.

Laaber et al. (``shared/reference/004``, section 5): split one version's measurements into
two disjoint groups the way an experiment would produce them (disjoint trials of the same
instances, or disjoint instances), run the decision rule of ``compare`` on the pair (an A/A
test: any verdict other than "no change" is a false positive), then multiply one group by
``1 + s`` for slowdowns ``s`` and count how often the rule says "slower". The minimal
detectable slowdown (MDS) is the smallest ``s`` detected in at least 95% of simulations
while the A/A false-positive rate stays at or below 5%.

Shared work (why it stays exact): for the bootstrap rule, each simulation resamples the two
groups once. The statistics (mean, median) are scale-equivariant, so the resampled statistic
of ``(1 + s) x`` is ``(1 + s)`` times that of ``x`` for the same resample indices, and the
percentile interval of ``k`` times a distribution is ``k`` times its interval (quantiles
commute with a positive scale). The ratio CI under slowdown ``s`` is therefore the A/A ratio
CI times ``1 + s``, and all slowdowns are decided from one bootstrap per simulation. The
Wilcoxon rule has no such shortcut for its p-value, but needs no bootstrap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import stats as sps

from scipy.special import ndtri

from rigorbench.stats.bootstrap import ConfidenceInterval, bootstrap_ratio, expansion_factor
from rigorbench.stats.decision import DecisionRule, Evidence, Verdict
from rigorbench.stats.effect import cliffs_delta
from rigorbench.stats.ranktest import mann_whitney_u

# Laaber et al.'s slowdowns (section 5.2), as fractions.
DETECTION = 0.95
MAX_FALSE_POSITIVES = 0.05


@dataclass(frozen=True)
class PowerSimulation:
    group_size: int                      # units (trials or instances) per group
    simulations: int
    slowdowns: tuple[float, ...]         # fractions: 0.05 is 5%
    false_positive_rate: float
    false_positive_interval: tuple[float, float]   # Wilson 95% interval
    detection_rate: tuple[float, ...]    # per slowdown
    ci_half_width: float                 # mean relative half width of the A/A ratio CI (bootstrap rule)

    @property
    def mds(self) -> float | None:
        """The smallest slowdown detected in >= 95% of simulations, if the A/A rate allows."""
        if self.false_positive_rate > MAX_FALSE_POSITIVES:
            return None
        for slowdown, rate in zip(self.slowdowns, self.detection_rate):
            if rate >= DETECTION:
                return slowdown
        return None


def _split(rng: np.random.Generator, unit: np.ndarray, units: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    chosen = rng.permutation(units)[: 2 * size]
    return np.isin(unit, chosen[:size]), np.isin(unit, chosen[size:])


def _wilcoxon(base: np.ndarray, cont: np.ndarray, factor: float) -> Evidence:
    scaled = cont * factor
    ratio = float(np.mean(scaled) / np.mean(base))
    point = ConfidenceInterval(ratio, ratio, ratio, 0.0)  # the rank rule looks at the estimate only
    return Evidence(point, mann_whitney_u(base, scaled).p_value, cliffs_delta(base, scaled))


def _check(values: np.ndarray, unit: np.ndarray, group_size: int, slowdowns: Sequence[float], simulations: int) -> np.ndarray:
    if len(values) != len(unit):
        raise ValueError("unit codes must be as long as values")
    units = np.unique(unit)
    if group_size < 1 or 2 * group_size > len(units):
        raise ValueError(f"two disjoint groups of {group_size} need {2 * group_size} units; the data has {len(units)}")
    if simulations < 1 or any(s < 0 for s in slowdowns):
        raise ValueError("simulations must be positive and slowdowns non-negative")
    return units


def simulate_power(
    values, levels: Sequence, unit, *, group_size: int, rule: DecisionRule, higher_is_better: bool,
    slowdowns: Sequence[float], simulations: int = 100, statistic: str = "mean",
    confidence: float = 0.99, resamples: int = 1000, seed: int = 0, interval: str = "expanded",
) -> PowerSimulation:
    """A/A false-positive rate and detection rate per slowdown for groups of ``group_size`` units.

    ``levels`` are the hierarchy codes the bootstrap resamples (outermost first); ``unit``
    says which experimental unit (trial or instance) each value belongs to.
    """
    values = np.asarray(values, dtype=np.float64)
    unit = np.asarray(unit)
    units = _check(values, unit, group_size, slowdowns, simulations)
    slowdowns = tuple(float(s) for s in slowdowns)
    # Splits and bootstraps draw from separate streams: (0,) for splits, (1, i) for simulation i.
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0,)))
    false_positives, detected, widths = 0, np.zeros(len(slowdowns)), []
    for sim in range(simulations):
        a, b = _split(rng, unit, units, group_size)
        base, cont = values[a], values[b]
        if rule.name == "bootstrap":
            ratio = bootstrap_ratio(base, [lv[a] for lv in levels], cont, [lv[b] for lv in levels],
                                    statistic=statistic, confidence=confidence, resamples=resamples,
                                    seed=np.random.SeedSequence(seed, spawn_key=(1, sim)), interval=interval)
            widths.append((ratio.high - ratio.low) / 2 / ratio.estimate)
            evidence = lambda k: Evidence(ratio.interval.scaled(k), np.nan, np.nan)  # noqa: E731
        else:
            evidence = lambda k: _wilcoxon(base, cont, k)  # noqa: E731
        false_positives += rule.decide(evidence(1.0), higher_is_better) in (Verdict.SLOWER, Verdict.FASTER)
        for i, s in enumerate(slowdowns):
            # A slowdown makes time larger and throughput smaller.
            factor = 1 / (1 + s) if higher_is_better else 1 + s
            detected[i] += rule.decide(evidence(factor), higher_is_better) == Verdict.SLOWER
    ci = sps.binomtest(false_positives, simulations).proportion_ci(0.95, method="wilson")
    return PowerSimulation(
        group_size, simulations, slowdowns, false_positives / simulations, (float(ci.low), float(ci.high)),
        tuple(float(d) for d in detected / simulations), float(np.mean(widths)) if widths else float("nan"),
    )


# Beyond this many units per group an extrapolation says nothing useful.
_MAX_EXTRAPOLATED = 1_000_000


def extrapolated_group_size(result: PowerSimulation, target: float, threshold: float, confidence: float,
                            interval: str = "expanded") -> int | None:
    """Units per group for detecting ``target`` in 95% of experiments, beyond the data: the
    :func:`units_for_target` of the simulated groups' mean interval."""
    return units_for_target(result.ci_half_width, result.group_size, target, threshold, confidence,
                            expanded=interval == "expanded")


def units_for_target(half_width: float, units: int, target: float, threshold: float, confidence: float, *,
                     expanded: bool = True, paired: bool = False) -> int | None:
    """The units per version for detecting ``target`` in 95% of experiments, from a ratio
    interval of relative half width ``half_width`` measured with ``units`` per version (None
    when no size up to a million does).

    The ratio's standard error shrinks as one over the square root of the units (the outermost
    level dominates the variance of the mean); detection in 95% needs the target to clear the
    threshold by the CI half width plus 1.645 standard errors. With the expanded interval the
    half width is ``z`` times the standard error times the expansion factor of that size
    (``stats/bootstrap.py``: two versions' units, or one set of pairs when ``paired``), which
    shrinks as the units grow: the standard error is read off the measured width with the
    factor of the measured size, and the smallest size whose own factor lets the target clear
    is found by bisection (the margin shrinks monotonically with the size).
    """
    if not np.isfinite(half_width) or half_width <= 0 or target <= threshold:
        return None
    z = float(ndtri(0.5 + confidence / 2))
    z_detect = float(ndtri(DETECTION))

    def factor(n: int) -> float:
        return expansion_factor(confidence, (n,) if paired else (n, n)) if expanded else 1.0

    se_g = half_width / (z * factor(units))

    def detects(n: int) -> bool:
        se = se_g * np.sqrt(units / n)
        return (z * factor(n) + z_detect) * se <= target - threshold

    if not detects(_MAX_EXTRAPOLATED):
        return None
    low, high = 1, _MAX_EXTRAPOLATED  # detects(high) holds; find the smallest such n > 1
    while high - low > 1:
        middle = (low + high) // 2
        if detects(middle):
            high = middle
        else:
            low = middle
    return max(2, high)
