"""Input checks shared by the statistics (private)."""

from __future__ import annotations

import numpy as np


def finite_sample(values, name: str) -> np.ndarray:
    """``values`` as a 1-d float64 array of at least one finite value, else ValueError."""
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if x.size == 0:
        raise ValueError(f"{name} needs at least one value")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} values must be finite (no NaN or infinity)")
    return x
