"""Descriptive statistics of one sample, optionally given as a histogram.

Statistical stance: describe, do not infer. The summary reports location (mean, median),
spread (sample standard deviation with ddof=1, coefficient of variation, unscaled median
absolute deviation) and range (min, max), as Eichelberger et al. recommend reporting min,
max and median-style figures next to the mean (``shared/reference/001``), and as Laaber et
al. use the CV as their variability measure (``shared/reference/004``, section 4).

Weights are *frequency* weights: positive integer counts, as in a JMH ``rawDataHistogram``
row ``[value, count]``. Every weighted result equals the unweighted result on the sample
expanded with ``np.repeat(values, weights)`` -- that is the definition, and the tests check
it -- but it is computed without expanding. Percentiles use the same linear interpolation
between order statistics as ``numpy.percentile`` (Hyndman & Fan type 7).
"""

from __future__ import annotations

import math

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Summary:
    """Location, spread and range of one sample (``n`` counts histogram weights)."""

    n: int
    mean: float
    median: float
    sd: float
    cv: float
    min: float
    max: float
    mad: float


def _sample(values, weights) -> tuple[np.ndarray, np.ndarray | None]:
    """Validate and return ``(values, weights)`` as float64 / int64 arrays."""
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if x.size == 0:
        raise ValueError("need at least one value")
    if not np.all(np.isfinite(x)):
        raise ValueError("values must be finite (no NaN or infinity)")
    if weights is None:
        return x, None
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.shape != x.shape:
        raise ValueError(f"weights has {w.size} entries, values has {x.size}")
    if not np.all(np.isfinite(w)) or np.any(w <= 0) or np.any(w != np.round(w)):
        raise ValueError("weights must be positive integer counts")
    return x, w.astype(np.int64)


def _order_statistics(x: np.ndarray, w: np.ndarray | None, ranks: np.ndarray) -> np.ndarray:
    """Values at the given 0-based positions of the sorted (expanded) sample."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    if w is None:
        return xs[ranks]
    # Position k of the expanded sample lies in the first run whose cumulative count
    # exceeds k.
    ends = np.cumsum(w[order])
    return xs[np.searchsorted(ends, ranks, side="right")]


def _weighted_median(x: np.ndarray, w: np.ndarray | None, n: int) -> float:
    middle = _order_statistics(x, w, np.array([(n - 1) // 2, n // 2]))
    return float(middle.mean())


def summarize(values, weights=None) -> Summary:
    """Summarize a sample; ``weights`` are positive counts (histogram rows).

    ``n`` is the number of observations (the sum of the weights). ``sd`` is the sample
    standard deviation (ddof=1); ``cv = sd / |mean|`` is NaN when ``n < 2`` or the mean is
    0; ``mad`` is the median of ``|x - median|`` without the 1.4826 normal-consistency
    factor.
    """
    x, w = _sample(values, weights)
    counts = np.ones_like(x) if w is None else w.astype(np.float64)
    n = int(x.size if w is None else w.sum())
    mean = float(np.dot(counts, x) / n)
    if n >= 2:
        sd = float(np.sqrt(np.dot(counts, (x - mean) ** 2) / (n - 1)))
    else:
        sd = float("nan")
    cv = sd / abs(mean) if n >= 2 and mean != 0 else float("nan")
    median = _weighted_median(x, w, n)
    mad = _weighted_median(np.abs(x - median), w, n)
    return Summary(
        n=n, mean=mean, median=median, sd=sd, cv=cv,
        min=float(x.min()), max=float(x.max()), mad=mad,
    )


def percentiles(values, qs, weights=None) -> np.ndarray:
    """Percentiles ``qs`` (each in [0, 100]) with numpy's default linear interpolation.

    With weights the result equals ``np.percentile(np.repeat(values, weights), qs)``.
    """
    x, w = _sample(values, weights)
    q = np.asarray(qs, dtype=np.float64)
    if not np.all((q >= 0) & (q <= 100)):
        raise ValueError("percentiles must lie in [0, 100]")
    if w is None:
        return np.asarray(np.percentile(x, q))
    n = int(w.sum())
    position = (n - 1) * (q.reshape(-1) / 100.0)
    below = np.floor(position).astype(np.int64)
    above = np.minimum(below + 1, n - 1)
    lo = _order_statistics(x, w, below)
    hi = _order_statistics(x, w, above)
    frac = position - below
    # numpy's "linear" interpolation, including its choice of the nearer end point as the
    # anchor, so that the weighted and the expanded results agree to the last bit.
    step = hi - lo
    result = np.where(frac >= 0.5, hi - step * (1 - frac), lo + step * frac)
    return result.reshape(q.shape)


def t_half_width(values: np.ndarray, counts: np.ndarray, confidence: float) -> float:
    """Half width of the Student-t interval of the mean of ``values`` (each ``counts``
    times): ``t(1 - (1 - c)/2, n - 1) * sd / sqrt(n)``; NaN below 3 values. This is the
    "Error" JMH prints (at c = 0.999), kept for writing JMH's own files, not for verdicts."""
    from scipy import special

    n = float(np.sum(counts))
    if n <= 2:
        return math.nan
    mean = float(np.sum(values * counts) / n)
    variance = float(np.sum(counts * (values - mean) ** 2) / (n - 1))
    return float(special.stdtrit(n - 1, 1 - (1 - confidence) / 2)) * math.sqrt(variance / n)
