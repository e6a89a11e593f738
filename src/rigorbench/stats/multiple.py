"""Adjusting p-values for multiple comparisons.

Statistical stance: a suite compares many benchmarks at once, so the chance that at least
one unchanged benchmark looks significant grows with their number (the family-wise error
rate). Holm's step-down method (Holm 1979, "A simple sequentially rejective multiple test
procedure") controls the family-wise error rate under any dependence between the tests and
is uniformly more powerful than Bonferroni, so it is the default; Bonferroni and "none" are
there to reproduce other tools.

Adjusted p-values follow the usual definition: for the sorted p-values
``p(1) <= ... <= p(m)``, Holm's adjusted value is
``max over j <= i of min(1, (m - j + 1) p(j))``, so it is monotone and capped at 1;
rejecting where the adjusted value is ``<= alpha`` is Holm's procedure at level alpha.
"""

from __future__ import annotations

import numpy as np


def _holm(p: np.ndarray) -> np.ndarray:
    m = p.size
    order = np.argsort(p, kind="stable")
    factors = np.arange(m, 0, -1, dtype=np.float64)  # m, m-1, ..., 1
    stepped = np.maximum.accumulate(np.minimum(1.0, factors * p[order]))
    adjusted = np.empty_like(p)
    adjusted[order] = stepped
    return adjusted


def _bonferroni(p: np.ndarray) -> np.ndarray:
    return np.minimum(1.0, p.size * p)


def _none(p: np.ndarray) -> np.ndarray:
    return p.copy()


_METHODS = {"holm": _holm, "bonferroni": _bonferroni, "none": _none}


def adjust_p_values(p_values, method: str = "holm") -> np.ndarray:
    """Adjusted p-values in the input order: ``"holm"``, ``"bonferroni"`` or ``"none"``."""
    adjust = _METHODS.get(method)
    if adjust is None:
        raise ValueError(
            f"unknown p-value adjustment {method!r}; valid methods are {sorted(_METHODS)}"
        )
    p = np.asarray(p_values, dtype=np.float64)
    flat = p.reshape(-1)
    if not np.all((flat >= 0) & (flat <= 1)):
        raise ValueError("p-values must lie in [0, 1] (no NaN)")
    return adjust(flat).reshape(p.shape)
