"""Pure statistics for performance data: numpy arrays in, frozen results out.

No I/O, no printing, no global state; see each module's docstring for the statistical
stance and its source.
"""

from rigorbench.stats.bootstrap import (
    ConfidenceInterval,
    RatioEstimate,
    bootstrap_distribution,
    bootstrap_ratio,
    hierarchical_bootstrap,
    percentile_interval,
)
from rigorbench.stats.decision import (
    RULES,
    BootstrapRule,
    DecisionRule,
    Evidence,
    Verdict,
    WilcoxonRule,
)
from rigorbench.stats.descriptive import Summary, percentiles, summarize
from rigorbench.stats.effect import cliffs_delta, effect_magnitude
from rigorbench.stats.multiple import adjust_p_values
from rigorbench.stats.ranktest import MannWhitneyResult, mann_whitney_u
from rigorbench.stats.coincidence import Coincidence, coincidence
from rigorbench.stats.modality import ForkClusters, Modality, fork_clusters, modes
from rigorbench.stats.outliers import Outliers, extreme_outliers, tukey_fences
from rigorbench.stats.steady import SteadyState, SteadyStateVerdict, classify_forks, detect_steady_state
from rigorbench.stats.trend import Trend, trend
from rigorbench.stats.variability import Variability, group_means, variability_by_level

__all__ = [
    "RULES",
    "Coincidence",
    "ForkClusters",
    "Modality",
    "Outliers",
    "SteadyState",
    "SteadyStateVerdict",
    "Trend",
    "Variability",
    "classify_forks",
    "coincidence",
    "detect_steady_state",
    "extreme_outliers",
    "fork_clusters",
    "group_means",
    "modes",
    "trend",
    "tukey_fences",
    "variability_by_level",
    "BootstrapRule",
    "ConfidenceInterval",
    "DecisionRule",
    "Evidence",
    "MannWhitneyResult",
    "RatioEstimate",
    "Summary",
    "Verdict",
    "WilcoxonRule",
    "adjust_p_values",
    "bootstrap_distribution",
    "bootstrap_ratio",
    "cliffs_delta",
    "effect_magnitude",
    "hierarchical_bootstrap",
    "mann_whitney_u",
    "percentile_interval",
    "percentiles",
    "summarize",
]
