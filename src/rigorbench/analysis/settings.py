"""The tunables of an analysis in one settings object (STYLE.md rule 10).

Defaults are ARCHITECTURE.md's: mean, 99% confidence, 10 000 resamples, a fixed seed that
is printed, a 1% practical threshold, the bootstrap decision rule; and the expanded interval
(the percentile interval corrected for few top-level units, stats/bootstrap.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from rigorbench.errors import UserError
from rigorbench.model import Metric
from rigorbench.stats import BootstrapRule, DecisionRule, WilcoxonRule

DEFAULT_SEED = 20_240_601

# --until-decided (analysis/stopping.py): the first look after 3 trials (the fewest a
# trustworthy interval needs, stats/bootstrap.py MIN_EXPANDED_UNITS), at most 20 (where issue
# 18's design stops); --futility: give a benchmark up when its chance of any verdict by
# --max-trials is below 10% (0 runs every open benchmark to the budget).
DEFAULT_MIN_TRIALS = 3
DEFAULT_MAX_TRIALS = 20
DEFAULT_FUTILITY = 0.10
STATISTICS = ("mean", "median")
TESTS = ("bootstrap", "wilcoxon")
INTERVALS = ("expanded", "percentile", "t")   # stats/bootstrap.py: the small-sample correction, none, or SE x t
CORRECTIONS = ("none", "holm", "bonferroni")


@dataclass(frozen=True)
class Settings:
    statistic: str = "mean"
    confidence: float = 0.99
    resamples: int = 10_000
    seed: int = DEFAULT_SEED
    threshold: float = 0.01
    test: str = "bootstrap"
    interval: str = "expanded"
    alpha: float = 0.01
    min_delta: float = 0.33
    metric: str = "primary"
    correction: str = "none"
    outlier_factor: float | None = 10.0
    steady_only: bool = False       # use only iterations at or after each fork's steady state
    allow_mismatch: bool = False    # compare sides that do not measure the same thing, loudly
    # Resample matched trials as blocks of both versions (stats/bootstrap.py,
    # bootstrap_paired_ratio): None pairs the versions of one stored RMIT run, True requires
    # matched trials (compare --paired), False never pairs.
    paired: bool | None = None

    def __post_init__(self) -> None:
        one_of("--statistic", self.statistic, STATISTICS)
        one_of("--test", self.test, TESTS)
        one_of("--interval", self.interval, INTERVALS)
        one_of("--correction", self.correction, CORRECTIONS)
        if not 0.5 <= self.confidence < 1:
            raise UserError(f"--confidence must be in [0.5, 1), got {self.confidence}")
        if self.resamples < 100:
            raise UserError(f"--resamples must be at least 100, got {self.resamples}")
        if not 0 <= self.threshold < 1:
            raise UserError(f"--threshold must be in [0, 1), got {self.threshold}")
        if not 0 < self.alpha < 1:
            raise UserError(f"--alpha must be in (0, 1), got {self.alpha}")
        if self.seed < 0:
            raise UserError(f"--seed must be a non-negative integer, got {self.seed}")

    def wants_metric(self, metric: Metric) -> bool:
        """``primary`` (default), ``all``, or one metric name such as ``alloc``."""
        if self.metric == "all":
            return True
        if self.metric == "primary":
            return metric.primary
        return metric.name == self.metric

    @property
    def interval_label(self) -> str:
        """How the CIs were made, as every output's settings line names it."""
        return {"expanded": "expanded for few trials", "percentile": "plain percentile",
                "t": "bootstrap standard error x t quantile"}[self.interval]

    def decision_rule(self) -> DecisionRule:
        if self.test == "wilcoxon":
            return WilcoxonRule(alpha=self.alpha, min_delta=self.min_delta)
        return BootstrapRule(threshold=self.threshold)

    def as_dict(self) -> dict:
        """The settings every JSON document echoes (ARCHITECTURE.md, "JSON output")."""
        return {
            "confidence": self.confidence,
            "resamples": self.resamples,
            "seed": self.seed,
            "statistic": self.statistic,
            "interval": self.interval,
            "threshold": self.threshold,
            "test": self.test,
            "alpha": self.alpha,
            "metric": self.metric,
            "correction": self.correction,
            "steady_only": self.steady_only,
        }


def one_of(option: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise UserError(f"{option}: unknown value {value!r}; allowed values are {', '.join(allowed)}")


# Laaber et al.'s slowdowns (shared/reference/004, section 5.3), as fractions.
DEFAULT_SLOWDOWNS = (0.001, 0.002, 0.005, 0.01, 0.015, 0.02, 0.05, 0.1, 0.5, 1.0)
# A simulated test needs fewer resamples than a reported CI: a 99% CI bound then moves by
# about 3% of the CI width between seeds, small next to the spread between experiments.
POWER_RESAMPLES = 1000
# Without --target, power's summary asks which benchmarks can detect a 5% slowdown.
DEFAULT_POWER_TARGET = 0.05


STRATEGIES = ("auto", "trial", "instance")


@dataclass(frozen=True)
class PowerOptions:
    simulations: int = 100
    slowdowns: tuple[float, ...] = DEFAULT_SLOWDOWNS
    strategy: str = "auto"
    group_size: int | None = None       # default: half the units
    target: float | None = None         # slowdown to plan for, as a fraction

    def __post_init__(self) -> None:
        one_of("--strategy", self.strategy, STRATEGIES)
        if self.simulations < 10:
            raise UserError(f"--simulations must be at least 10, got {self.simulations}")
        if not self.slowdowns or any(s <= 0 for s in self.slowdowns):
            raise UserError("--slowdowns must be positive percentages")
