"""How a benchmark's time grows with its problem size.

Sestoft (``shared/reference/003``, section 6) reads an algorithm's complexity off the slope
of time against problem size on log-log axes: the slope is the growth exponent (1 for
linear, 2 for quadratic work).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def growth_exponent(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Least-squares slope and intercept of log(y) against log(x): ``y ~ e^a * x^b``."""
    lx, ly = np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float))
    slope, intercept = np.polyfit(lx, ly, 1)
    return float(slope), float(intercept)
