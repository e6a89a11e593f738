"""Pure statistics for performance data: numpy arrays in, frozen results out.

No I/O, no printing, no global state; see each module's docstring for the statistical
stance and its source.

Submodules load on first use (PEP 562): ``import rigorbench.stats`` costs nothing, and a
command that needs only the bootstrap does not wait for ``scipy.stats`` or ``ruptures``.
"""

from __future__ import annotations

from rigorbench.lazy import lazy_exports

# Every public name, by the submodule that defines it.
_WHERE, __getattr__, __dir__ = lazy_exports(__name__, {
    "rigorbench.stats.bootstrap": "ConfidenceInterval RatioEstimate bootstrap_distribution bootstrap_paired_ratio bootstrap_ratio hierarchical_bootstrap narrower_of_paired_and_unpaired "
                                  "percentile_interval",
    "rigorbench.stats.changepoints": "ChangePoint change_points",
    "rigorbench.stats.decision": "BootstrapRule DecisionRule Evidence Verdict WilcoxonRule",
    "rigorbench.stats.descriptive": "Summary percentiles summarize",
    "rigorbench.stats.effect": "cliffs_delta effect_magnitude",
    "rigorbench.stats.multiple": "adjust_p_values",
    "rigorbench.stats.ranktest": "MannWhitneyResult mann_whitney_u",
    "rigorbench.stats.coincidence": "Coincidence coincidence",
    "rigorbench.stats.modality": "ForkClusters Modality fork_clusters modes",
    "rigorbench.stats.outliers": "Outliers extreme_outliers tukey_fences",
    "rigorbench.stats.steady": "SteadyState SteadyStateVerdict classify_forks detect_steady_state",
    "rigorbench.stats.trend": "Trend trend",
    "rigorbench.stats.grouping": "unique_rows",
    "rigorbench.stats.variability": "Variability group_means variability_by_level",
})

__all__ = sorted(_WHERE)
