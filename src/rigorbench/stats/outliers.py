"""Outliers: Tukey's fences (mild beyond 1.5 IQR, severe beyond 3 IQR; Tukey, *Exploratory
Data Analysis*, 1977) to report, and Laaber et al.'s conservative rule to remove
(``shared/reference/004``, section 3.3: a value at least 10x the median is a measurement
error, not a measurement). Quartiles use numpy's default linear interpolation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rigorbench.stats._checks import finite_sample


@dataclass(frozen=True, eq=False)
class Outliers:
    q1: float
    q3: float
    iqr: float
    low_mild: float
    high_mild: float
    low_severe: float
    high_severe: float
    mild_index: np.ndarray      # beyond 1.5 IQR but within 3 IQR
    severe_index: np.ndarray    # beyond 3 IQR

    @property
    def mild(self) -> int:
        return len(self.mild_index)

    @property
    def severe(self) -> int:
        return len(self.severe_index)


def _frozen(index: np.ndarray) -> np.ndarray:
    index = index.astype(np.int64)
    index.setflags(write=False)
    return index


def tukey_fences(values) -> Outliers:
    x = finite_sample(values, "tukey_fences")
    q1, q3 = (float(q) for q in np.percentile(x, [25, 75]))
    iqr = q3 - q1
    fences = (q1 - 1.5 * iqr, q3 + 1.5 * iqr, q1 - 3 * iqr, q3 + 3 * iqr)
    severe = (x < fences[2]) | (x > fences[3])
    mild = ((x < fences[0]) | (x > fences[1])) & ~severe
    return Outliers(q1, q3, iqr, *fences, _frozen(np.flatnonzero(mild)), _frozen(np.flatnonzero(severe)))


def extreme_outliers(values, factor: float = 10.0) -> np.ndarray:
    """Mask of values at least ``factor`` times the median (only when the median is positive)."""
    x = finite_sample(values, "extreme_outliers")
    if factor <= 1:
        raise ValueError("factor must be above 1")
    median = float(np.median(x))
    return x >= factor * median if median > 0 else np.zeros(len(x), dtype=bool)
