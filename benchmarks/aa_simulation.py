"""A/A check of the sequential rule on real trials: how often it says slower or faster when nothing changed.

Every simulated experiment draws two versions' trials (with replacement) from the real trials
of one version of one benchmark, so both sides come from the same distribution and any
``slower`` or ``faster`` is false. Three designs see the same draws:

- ``sequential``: looks after ``min_trials..max_trials`` trials at Pocock's per-look level with
  the ``t`` interval (``ab --until-decided``); the experiment stops at its first decided look,
  and is false when that verdict is slower or faster;
- ``fixed``: one look after ``fixed_trials`` trials at the overall level with the default
  expanded interval (``ab --trials N``);
- ``naive``: looks after every trial at the overall level (expanded), stopping at the first
  decided one (what peeking at an ordinary comparison does; shown for contrast);
- ``curtailed``: the sequential design with futility (``--futility``, default 10%): it also
  stops, without a verdict, at a look where the chance of a verdict by the last look is below
  the futility level. It sees the same draws as ``sequential`` and can only stop earlier
  without a verdict, so it never has more false verdicts; what it costs is the verdicts it
  gives up, which :func:`simulate_aa` with a planted ``change`` counts.

The decision is compare's: the hierarchical bootstrap ratio (trials, then forks, then
iterations; expanded for few trials) and the bootstrap rule against the threshold.
``benchmarks/stopping_aa.py`` runs it on the example's stored trials and on
``shared/data``; ``tests/analysis/test_stopping.py`` runs a small one. It validates the rule and
no command runs it, so it lives beside its script, not in the package.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from scipy.stats import binomtest

from rigorbench.stats.bootstrap import bootstrap_ratio
from rigorbench.stats.decision import BootstrapRule, Evidence, Verdict
from rigorbench.analysis.settings import DEFAULT_FUTILITY
from rigorbench.analysis.stopping import given_up
from rigorbench.stats.group_sequential import looks_between, per_look_confidence

DESIGNS = ("sequential", "fixed", "naive", "curtailed")


@dataclass(frozen=True)
class Trial:
    """One trial's measurement iterations and the fork (0, 1, ...) of each."""

    values: np.ndarray
    forks: np.ndarray


@dataclass(frozen=True)
class AAResult:
    experiments: int
    false: dict[str, int]            # design -> experiments with a false slower/faster (A/A: every one)
    trials_used: dict[str, float]    # design -> mean trials per version it ran
    verdicts: dict[str, dict[str, int]] = field(default_factory=dict)    # design -> verdict value -> experiments

    def rate(self, design: str) -> float:
        return self.false[design] / self.experiments

    def wilson(self, design: str, confidence: float = 0.95) -> tuple[float, float]:
        ci = binomtest(self.false[design], self.experiments).proportion_ci(confidence, method="wilson")
        return float(ci.low), float(ci.high)


def trials_from_levels(values: np.ndarray, levels: Sequence[np.ndarray]) -> list[Trial]:
    """Split observations (``[instance, trial, fork]`` codes, as compare's) into trials."""
    trial, fork = levels[-2], levels[-1]
    found = []
    for t in np.unique(trial):
        mine = trial == t
        _, codes = np.unique(fork[mine], return_inverse=True)
        found.append(Trial(values[mine], codes))
    return found


def _side(trials: Sequence[Trial]) -> tuple[np.ndarray, list[np.ndarray]]:
    values = np.concatenate([t.values for t in trials])
    trial = np.concatenate([np.full(len(t.values), i) for i, t in enumerate(trials)])
    fork = np.concatenate([t.forks + 1000 * i for i, t in enumerate(trials)])
    return values, [trial, fork]


def _ratio(a: Sequence[Trial], b: Sequence[Trial], resamples: int, seed: int, interval: str = "expanded"):
    va, la = _side(a)
    vb, lb = _side(b)
    return bootstrap_ratio(va, la, vb, lb, resamples=resamples, seed=seed, interval=interval)


def _decide(ratio, confidence: float, rule: BootstrapRule, method: str) -> Verdict:
    return rule.decide(Evidence(ratio.at(confidence, method), float("nan"), 0.0), higher_is_better=False)


def _experiment(a, b, looks, fixed_trials, levels, rule, resamples, seed, futility) -> dict[str, tuple[Verdict, int]]:
    """Each design's verdict and trials on one pair of draws; one bootstrap per look serves
    every design (their intervals are different levels of the same resamples)."""
    per_look, overall = levels
    outcomes: dict[str, tuple[Verdict, int]] = {}
    for k in sorted({*looks, fixed_trials}):
        if len(outcomes) == len(DESIGNS):
            break
        ratio = _ratio(a[:k], b[:k], resamples, seed + k)
        if k == fixed_trials:
            outcomes["fixed"] = (_decide(ratio, overall, rule, "expanded"), k)
        if k in looks:
            for design, level, method in (("sequential", per_look, "t"), ("naive", overall, "expanded")):
                if design not in outcomes:
                    verdict = _decide(ratio, level, rule, method)
                    if verdict != Verdict.INCONCLUSIVE or k == looks[-1]:
                        outcomes[design] = (verdict, k)
            if "curtailed" not in outcomes:
                # the sequential design's verdict at this look, unless futility gives it up first
                if "sequential" in outcomes and outcomes["sequential"][1] == k:
                    outcomes["curtailed"] = outcomes["sequential"]
                elif given_up(ratio.at(per_look, "t"), trials=k, max_trials=looks[-1], threshold=rule.threshold,
                              futility=futility) is not None:
                    outcomes["curtailed"] = (Verdict.INCONCLUSIVE, k)
    return outcomes


def simulate_aa(
    trials: Sequence[Trial], *, experiments: int, min_trials: int = 3, max_trials: int = 20, fixed_trials: int = 10,
    confidence: float = 0.99, threshold: float = 0.01, resamples: int = 2000, seed: int = 0,
    futility: float = DEFAULT_FUTILITY, change: float = 0.0,
) -> AAResult:
    """``experiments`` A/A experiments drawn from ``trials`` (see the module docstring); with
    a ``change``, the second version's values are ``1 + change`` times the drawn ones (a planted
    change of known size: ``false`` then counts verdicts of the wrong direction, and
    ``verdicts`` shows how often each design found it)."""
    if len(trials) < 2:
        raise ValueError("an A/A simulation needs at least 2 real trials to draw from")
    rng = np.random.default_rng(seed)
    rule = BootstrapRule(threshold)
    looks = looks_between(min_trials, max_trials)
    per_look = per_look_confidence(confidence, looks)
    wrong = (Verdict.SLOWER, Verdict.FASTER) if change == 0 else (Verdict.FASTER,) if change > 0 else (Verdict.SLOWER,)
    false = {d: 0 for d in DESIGNS}
    used = {d: 0 for d in DESIGNS}
    verdicts: dict[str, dict[str, int]] = {d: {} for d in DESIGNS}
    longest = max(max_trials, fixed_trials)
    for e in range(experiments):
        a = [trials[i] for i in rng.integers(len(trials), size=longest)]
        b = [trials[i] for i in rng.integers(len(trials), size=longest)]
        if change:
            b = [Trial(t.values * (1 + change), t.forks) for t in b]
        found = _experiment(a, b, looks, fixed_trials, (per_look, confidence), rule, resamples, 1000 * e, futility)
        for design, (verdict, k) in found.items():
            false[design] += verdict in wrong
            used[design] += k
            verdicts[design][verdict.value] = verdicts[design].get(verdict.value, 0) + 1
    return AAResult(experiments, false, {d: used[d] / experiments for d in DESIGNS}, verdicts)
