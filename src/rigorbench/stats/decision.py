"""Decision rules: from the evidence of one comparison to a verdict.

Statistical stance: a verdict must separate "no change that matters" from "not enough data
to tell". The default rule reads the bootstrap confidence interval of the ratio
contender/baseline against a practical threshold ``t`` (ARCHITECTURE.md, "Statistics";
Kalibera & Jones 2012, "Quantifying performance changes with effect size confidence
intervals"): the change is negligible when the whole interval lies inside ``[1-t, 1+t]``,
real when the interval excludes 1 and the point estimate is at least ``t`` away from 1, and
inconclusive otherwise. The alternative rule reproduces the papers' test (Costa et al.,
``shared/reference/000`` section 3.3; Laaber et al., ``shared/reference/004`` section 5.1.1):
Wilcoxon rank-sum ``p <= alpha`` together with a Cliff's delta of at least medium size.

Rules are strategy objects behind one small Protocol (``shared/STYLE.md`` rule 3); the
analysis settings choose one by the name of ``--test``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the settings load this module; the bootstrap (scipy.sparse) loads when used
    from rigorbench.stats.bootstrap import ConfidenceInterval


class Verdict(str, enum.Enum):
    """The outcome of one comparison, in the user's sense of slower / faster."""

    UNCHANGED = "unchanged"
    SLOWER = "slower"
    FASTER = "faster"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class Evidence:
    """What a rule may look at: the ratio contender/baseline with its CI, the Mann-Whitney
    p-value and Cliff's delta (positive = contender values larger)."""

    ratio: ConfidenceInterval
    p_value: float
    cliffs_delta: float


class DecisionRule(Protocol):
    """A strategy that turns :class:`Evidence` into a :class:`Verdict`."""

    name: str

    def decide(self, evidence: Evidence, higher_is_better: bool) -> Verdict: ...


def _direction(contender_larger: bool, higher_is_better: bool) -> Verdict:
    """Larger values are slower for time-like metrics and faster for throughput."""
    if contender_larger:
        return Verdict.FASTER if higher_is_better else Verdict.SLOWER
    return Verdict.SLOWER if higher_is_better else Verdict.FASTER


@dataclass(frozen=True)
class BootstrapRule:
    """Ratio-CI rule with practical threshold ``threshold`` (0.01 = 1%)."""

    threshold: float = 0.01
    name = "bootstrap"

    def __post_init__(self) -> None:
        if not 0 <= self.threshold < 1:
            raise ValueError(f"threshold must lie in [0, 1), got {self.threshold!r}")

    def decide(self, evidence: Evidence, higher_is_better: bool) -> Verdict:
        t = self.threshold
        low, high, ratio = evidence.ratio.low, evidence.ratio.high, evidence.ratio.estimate
        if 1 - t <= low and high <= 1 + t:
            return Verdict.UNCHANGED
        if (low > 1 or high < 1) and abs(ratio - 1) >= t:
            return _direction(ratio > 1, higher_is_better)
        return Verdict.INCONCLUSIVE  # also when any figure is NaN


@dataclass(frozen=True)
class WilcoxonRule:
    """The papers' rule: ``p <= alpha`` and ``|delta| >= min_delta`` (0.33 = medium)."""

    alpha: float = 0.01
    min_delta: float = 0.33
    name = "wilcoxon"

    def __post_init__(self) -> None:
        if not 0 < self.alpha <= 1:
            raise ValueError(f"alpha must lie in (0, 1], got {self.alpha!r}")
        if not 0 <= self.min_delta <= 1:
            raise ValueError(f"min_delta must lie in [0, 1], got {self.min_delta!r}")

    def decide(self, evidence: Evidence, higher_is_better: bool) -> Verdict:
        delta = evidence.cliffs_delta
        if evidence.p_value <= self.alpha and abs(delta) >= self.min_delta and delta != 0:
            return _direction(delta > 0, higher_is_better)
        return Verdict.UNCHANGED
