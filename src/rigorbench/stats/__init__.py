"""Pure statistics for performance data: numpy arrays in, frozen results out.

No I/O, no printing, no global state; see each module's docstring for the statistical
stance and its source.

Submodules load on first use (PEP 562): ``import rigorbench.stats`` costs nothing, and a
command that needs only the bootstrap does not wait for ``scipy.stats`` or ``ruptures``.
"""

from __future__ import annotations

import importlib

# Every public name, and the submodule that defines it.
_WHERE = {
    "ConfidenceInterval": "bootstrap",
    "RatioEstimate": "bootstrap",
    "bootstrap_distribution": "bootstrap",
    "bootstrap_ratio": "bootstrap",
    "hierarchical_bootstrap": "bootstrap",
    "percentile_interval": "bootstrap",
    "ChangePoint": "changepoints",
    "change_points": "changepoints",
    "BootstrapRule": "decision",
    "DecisionRule": "decision",
    "Evidence": "decision",
    "Verdict": "decision",
    "WilcoxonRule": "decision",
    "Summary": "descriptive",
    "percentiles": "descriptive",
    "summarize": "descriptive",
    "cliffs_delta": "effect",
    "effect_magnitude": "effect",
    "adjust_p_values": "multiple",
    "MannWhitneyResult": "ranktest",
    "mann_whitney_u": "ranktest",
    "Coincidence": "coincidence",
    "coincidence": "coincidence",
    "ForkClusters": "modality",
    "Modality": "modality",
    "fork_clusters": "modality",
    "modes": "modality",
    "Outliers": "outliers",
    "extreme_outliers": "outliers",
    "tukey_fences": "outliers",
    "SteadyState": "steady",
    "SteadyStateVerdict": "steady",
    "classify_forks": "steady",
    "detect_steady_state": "steady",
    "Trend": "trend",
    "trend": "trend",
    "unique_rows": "grouping",
    "Variability": "variability",
    "group_means": "variability",
    "variability_by_level": "variability",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    try:
        module = _WHERE[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})
