"""**Laaber et al.'s stoppage criteria** (Laaber, Wuersten, Gall & Leitner, *Dynamically
reconfiguring software microbenchmarks: reducing execution time without sacrificing result
quality*, ESEC/FSE 2020, Section 3).  Dynamic reconfiguration stops a fork's warmup once the
measurements are stable (iteration level) and stops starting forks once the results over
forks are stable (fork level).  The paper's text beyond its abstract was not available to us;
the definitions below are those of the authors' prototype, the JMH 1.21 fork
``sealuzh/jmh`` (``statistics/evaluation/{Cov,CiPercentage,Divergence}Evaluation.java``,
``statistics/divergence/Divergence.java``, ``ReconfigureConstants.java``,
``runner/Defaults.java``), read but not copied:

- every criterion computes one value per step over **everything measured so far** (all
  warmup iterations of the fork up to this one; all measurement iterations of the forks so
  far), not over the window alone;
- **CoV** (threshold 0.01): the coefficient of variation of all values so far, far outliers
  (outside ``[median / 10, 10 * median]`` of their own iteration) removed.  Stable when the
  newest value differs by less than the threshold from each of the previous ``history - 1``
  values (``max |v_i - v_j| < 0.01``): the *variability has stopped changing*, not "the
  variability is below 1%";
- **RCIW** (threshold 0.03): ``(high - low) / mean`` of the 99% percentile-bootstrap interval
  of the mean of all values so far (1,000 simulations, resampling at every level as Laaber's
  ``pa`` tool does; far outliers of the whole sample removed); the same window rule;
- **KLD** (threshold 0.99): the values so far are resampled (1,000 draws with replacement),
  and the draw after this step is compared with the draw after the previous step by
  ``2^-KL(p||q) * 2^-KL(q||p)`` of their Gaussian kernel densities (:func:`kld_similarity`);
  stable when every similarity in the window exceeds 0.99;
- window ("history"): 5 steps at the iteration level (the newest value against the 4 before;
  for KLD 5 similarities, i.e. 6 cumulative draws) and 2 at the fork level (this fork's
  cumulative value against the previous fork's);
- the prototype's defaults around them: at least 5 and at most 50 warmup iterations of 1 s,
  then a fixed 50 measurement iterations of 1 s; at least 2 and at most 5 forks; no warmup
  forks.

Where we had to choose: the prototype computes on each iteration's *invocation* samples
(JMH histograms, subsampled to 1,000 per iteration for CoV and 10,000 overall for RCIW).
Callers here pass rectangular arrays of the values they have (the offline replay groups ten
recorded 100 ms values into one 1 s iteration) and every value is used -- the subsampling
bounds the prototype's cost, it is not part of the criterion.  The kernel bandwidth is
Silverman's rule of thumb; the prototype uses ``smile``'s ``KernelDensity`` default, which we
did not check against it.

Only ``benchmarks/replay_stopping.py`` uses them (tests/stats/test_stopping.py tests them):
they are an evaluation's baseline, not part of rigorbench, so they live here, not in the package.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

COV_THRESHOLD = 0.01
RCIW_THRESHOLD = 0.03
KLD_THRESHOLD = 0.99
RESAMPLES = 1000        # bootstrap simulations of the RCIW criterion
CONFIDENCE = 0.99       # the RCIW criterion's confidence level (significance 0.01)
KLD_SAMPLE = 1000       # values drawn (with replacement) from the measurements so far, for the KDE
KLD_POINTS = 1000       # grid points on which the two densities are compared
OUTLIER_FACTOR = 10.0   # values outside [median / 10, 10 * median] are errors, not measurements
IQR_FENCE = 1.5         # the KLD grid spans both samples' [q1 - 1.5 IQR, q3 + 1.5 IQR]


def far_outliers(values) -> np.ndarray:
    """Mask of values outside ``[median / OUTLIER_FACTOR, OUTLIER_FACTOR * median]`` (NaN-aware)."""
    x = np.asarray(values, dtype=np.float64)
    median = np.nanmedian(x)
    return (x > OUTLIER_FACTOR * median) | (x < median / OUTLIER_FACTOR)


def coefficient_of_variation(values) -> float:
    """Sample standard deviation (n - 1) over mean of the finite values."""
    x = np.asarray(values, dtype=np.float64).ravel()
    x = x[np.isfinite(x)]
    if x.size < 2:
        return float("nan")
    return float(np.std(x, ddof=1) / np.mean(x))


def relative_ci_width(sample, *, resamples: int = RESAMPLES, confidence: float = CONFIDENCE,
                      seed: int | np.random.Generator | None = 0) -> float:
    """Width of the percentile-bootstrap interval of the mean over the mean: ``(high - low) / mean``.

    ``sample`` is rectangular: 1-d (values), 2-d (iterations x values) or 3-d (forks x
    iterations x values).  Resampling is hierarchical, with replacement at every axis in
    turn (Kalibera & Jones; as Laaber's ``pa`` does with fork and iteration columns); NaN
    marks a removed value and is left out of each resample's pooled mean.
    """
    x = np.asarray(sample, dtype=np.float64)
    if x.ndim < 1 or x.size == 0 or not np.isfinite(x).any():
        raise ValueError("sample must be a non-empty array with finite values")
    if not 0 < confidence < 1 or resamples < 1:
        raise ValueError("need 0 < confidence < 1 and resamples >= 1")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    chosen = x[rng.integers(0, x.shape[0], size=(resamples, x.shape[0]))]
    for axis in range(1, x.ndim):
        shape = chosen.shape[:axis + 1] + (x.shape[axis],) + (1,) * (x.ndim - axis - 1)
        index = rng.integers(0, x.shape[axis], size=shape)
        chosen = np.take_along_axis(chosen, index, axis=axis + 1)
    means = np.nanmean(chosen.reshape(resamples, -1), axis=1)
    alpha = (1 - confidence) / 2
    low, high = np.nanquantile(means, [alpha, 1 - alpha])
    return float((high - low) / np.nanmean(x))


def _silverman_bandwidth(x: np.ndarray) -> float:
    q1, q3 = np.percentile(x, [25, 75])
    spread = min(np.std(x, ddof=1), (q3 - q1) / 1.34) if x.size > 1 else 0.0
    if spread <= 0:
        spread = max(np.std(x), abs(float(np.mean(x))) * 1e-9, 1e-300)
    return 1.06 * spread * x.size ** -0.2


def gaussian_kde_on(x: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Gaussian kernel density of ``x`` at ``grid``, bandwidth by Silverman's rule of thumb
    (``1.06 min(sd, IQR / 1.34) n^(-1/5)``)."""
    h = _silverman_bandwidth(x)
    values, counts = np.unique(x, return_counts=True)
    z = (grid[:, None] - values[None, :]) / h
    return (np.exp(-0.5 * z * z) @ counts) / (x.size * h * math.sqrt(2 * math.pi))


def kld_similarity(before, after, *, points: int = KLD_POINTS) -> float:
    """``2^-KL(p||q) * 2^-KL(q||p)`` of the two samples' kernel densities: 1 for identical
    distributions, towards 0 as they part.

    Both densities are evaluated on ``points`` equally spaced points spanning the union of
    the samples' ``[q1 - 1.5 IQR, q3 + 1.5 IQR]`` (clipped at 0: timings are positive), and
    ``KL(p||q) = sum p log(p / q) * step`` over the points where both are positive
    (infinite when there is none).  As Laaber et al.'s prototype computes it
    (``Divergence.java``, natural logarithm inside, powers of 2 outside).
    """
    p_sample = np.asarray(before, dtype=np.float64).ravel()
    q_sample = np.asarray(after, dtype=np.float64).ravel()

    def fences(x):
        q1, q3 = np.percentile(x, [25, 75])
        return max(0.0, q1 - IQR_FENCE * (q3 - q1)), q3 + IQR_FENCE * (q3 - q1)

    (lo1, hi1), (lo2, hi2) = fences(p_sample), fences(q_sample)
    low, high = min(lo1, lo2), max(hi1, hi2)
    if low == high:
        return 1.0
    grid = np.linspace(low, high, points)
    step = grid[1] - grid[0]
    p, q = gaussian_kde_on(p_sample, grid), gaussian_kde_on(q_sample, grid)

    def kl(a, b):
        both = (a > 0) & (b > 0)
        return float(np.sum(a[both] * (np.log(a[both]) - np.log(b[both]))) * step) if both.any() else math.inf

    return float(2.0 ** -kl(p, q) * 2.0 ** -kl(q, p))


@dataclass(frozen=True)
class StabilityCriterion:
    """A stoppage criterion: one value per step (iteration or fork) computed over everything
    measured up to that step, and a rule that says when the last ``history`` steps are stable.

    ``iteration_history`` and ``fork_history`` are the prototype's: 5 steps within a fork
    (6 for KLD: five similarities, each of a step with the one before) and 2 across forks.
    """

    name: str
    threshold: float
    iteration_history: int = 5
    fork_history: int = 2

    def step_values(self, units: np.ndarray, rng: np.random.Generator):
        """Yield the value after 1, 2, ... units (``units[:i]``)."""
        raise NotImplementedError

    def stable(self, window: list[float]) -> bool:
        """Whether the last steps' values are stable: every one of the earlier values within
        ``threshold`` of the newest (``max |v_i - v_j| < threshold``)."""
        newest = window[-1]
        return all(abs(v - newest) < self.threshold for v in window[:-1])


@dataclass(frozen=True)
class CovCriterion(StabilityCriterion):
    """CoV of all values so far (each unit's far outliers removed, by the unit's own median)."""

    name: str = "cov"
    threshold: float = COV_THRESHOLD

    def step_values(self, units, rng):
        total = total_sq = 0.0
        count = 0
        for unit in np.asarray(units, dtype=np.float64):
            x = unit[~far_outliers(unit)].ravel()
            total, total_sq, count = total + x.sum(), total_sq + (x * x).sum(), count + x.size
            mean = total / count if count else float("nan")
            var = (total_sq - count * mean * mean) / (count - 1) if count > 1 else float("nan")
            yield math.sqrt(max(var, 0.0)) / mean if count > 1 else float("nan")


@dataclass(frozen=True)
class RciwCriterion(StabilityCriterion):
    """Relative width of the 99% bootstrap interval of the mean of all values so far (1,000
    hierarchical resamples; far outliers of the whole sample removed)."""

    name: str = "rciw"
    threshold: float = RCIW_THRESHOLD
    resamples: int = RESAMPLES
    confidence: float = CONFIDENCE

    def step_values(self, units, rng):
        x = np.asarray(units, dtype=np.float64)
        for i in range(1, x.shape[0] + 1):
            sample = np.where(far_outliers(x[:i]), np.nan, x[:i])
            yield relative_ci_width(sample, resamples=self.resamples, confidence=self.confidence, seed=rng)


@dataclass(frozen=True)
class KldCriterion(StabilityCriterion):
    """Similarity ``2^-KL`` (both ways) of the distribution of all values so far with the one
    a step earlier, each a fresh draw of 1,000 values with replacement; stable when every
    similarity of the window exceeds the threshold (0.99)."""

    name: str = "kld"
    threshold: float = KLD_THRESHOLD
    iteration_history: int = 6
    sample: int = KLD_SAMPLE

    def step_values(self, units, rng):
        x = np.asarray(units, dtype=np.float64)
        previous = None
        for i in range(1, x.shape[0] + 1):
            pooled = x[:i].ravel()
            drawn = np.sort(pooled[rng.integers(0, pooled.size, size=self.sample)])
            yield float("nan") if previous is None else kld_similarity(previous, drawn)
            previous = drawn

    def stable(self, window):
        return all(v > self.threshold for v in window[1:])  # history h: h - 1 similarities


CRITERIA = {c.name: c for c in (CovCriterion(), RciwCriterion(), KldCriterion())}


def first_stable(units, criterion: StabilityCriterion, *, history: int, minimum: int = 1,
                 seed: int | np.random.Generator | None = 0) -> int | None:
    """The number of units after which ``criterion`` first calls the last ``history`` steps
    stable, at least ``max(minimum, history)``; None when it never does within ``units``.

    ``units`` is rectangular: iterations x values per iteration (the iteration level: when
    to stop a fork's warmup) or forks x iterations x values (the fork level: when to stop
    running forks).
    """
    if history < 2:
        raise ValueError(f"history must be at least 2, got {history}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    values: list[float] = []
    for i, value in enumerate(criterion.step_values(units, rng), start=1):
        values.append(value)
        if i >= max(minimum, history) and criterion.stable(values[-history:]):
            return i
    return None
