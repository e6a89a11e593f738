"""Coverage of the ratio CI and the A/A false-positive rate on data with a known truth.

Each simulated experiment measures two versions with the same design: ``trials`` trials x
3 forks x 20 iterations, with multiplicative lognormal random effects per trial, per fork and
per iteration (positive, right-skewed data like timings). The contender's population mean is
exactly ``TRUE_RATIO`` times the baseline's. ``benchmarks/coverage_table.py`` prints the
whole table of ``docs/statistics.md`` (four variance regimes x 3, 5, 10, 20 trials, 1000
experiments per cell); these tests check its goals (issue 16) on the hardest regime with
fewer experiments, seeded, so they fail if the correction is lost or weakened:

* the 99% expanded interval covers the true ratio in >= 98% of experiments from 5 trials on
  (measured with 1000 experiments: 99.2% at 5 trials, trial-dominated; the plain percentile
  interval: 95.6%);
* A/A comparisons are called slower or faster in <= 1.5% (measured: 0.2% at 5 trials);
* at 20 trials the expanded interval is at most 25% wider than the plain one (measured: 8%).
"""

from __future__ import annotations

import numpy as np
import pytest

from rigorbench.stats import BootstrapRule, Evidence, Verdict, bootstrap_ratio
from rigorbench.stats.power import simulate_power

FORKS, ITERATIONS = 3, 20
TRIAL_DOMINATED = (0.05, 0.02, 0.03)  # sd of the log effects per trial, fork, iteration
TRUE_RATIO = 1.10
RESAMPLES = 1000


def _version(rng: np.random.Generator, trials: int, scale: float, sds=TRIAL_DOMINATED) -> np.ndarray:
    sd_trial, sd_fork, sd_iteration = sds
    trial = rng.lognormal(0.0, sd_trial, size=(trials, 1, 1))
    fork = rng.lognormal(0.0, sd_fork, size=(trials, FORKS, 1))
    iteration = rng.lognormal(0.0, sd_iteration, size=(trials, FORKS, ITERATIONS))
    return (scale * trial * fork * iteration).reshape(-1)


def _levels(trials: int) -> list[np.ndarray]:
    grid = np.indices((trials, FORKS, ITERATIONS))
    return [grid[0].reshape(-1), grid[1].reshape(-1)]


def _experiments(trials: int, count: int, seed: int) -> dict:
    """Coverage, A/A changes and mean widths of both intervals over ``count`` experiments."""
    rng = np.random.default_rng(seed)
    levels = _levels(trials)
    rule = BootstrapRule(0.01)
    out = {m: {"covered": 0, "changes": 0, "width": 0.0} for m in ("expanded", "percentile")}
    for experiment in range(count):
        baseline, contender, same = (_version(rng, trials, s) for s in (1.0, TRUE_RATIO, 1.0))
        for method, tally in out.items():
            ab = bootstrap_ratio(baseline, levels, contender, levels, resamples=RESAMPLES, seed=experiment,
                                 interval=method)
            aa = bootstrap_ratio(baseline, levels, same, levels, resamples=RESAMPLES, seed=experiment,
                                 interval=method)
            tally["covered"] += ab.low <= TRUE_RATIO <= ab.high
            tally["changes"] += rule.decide(Evidence(aa.interval, 1.0, 0.0), False) in (Verdict.SLOWER, Verdict.FASTER)
            tally["width"] += (ab.high - ab.low) / count
    return out


def _meets_the_goals(trials: int, count: int, seed: int) -> tuple[dict, dict]:
    """The expanded interval's coverage and A/A rate against issue 16's goals; both tallies."""
    result = _experiments(trials, count, seed)
    expanded, plain = result["expanded"], result["percentile"]
    assert expanded["covered"] / count >= 0.98, expanded
    assert expanded["changes"] / count <= 0.015, expanded
    return expanded, plain


@pytest.mark.slow   # a coverage experiment of many simulated intervals
def test_five_trials_keep_the_nominal_coverage_where_the_percentile_interval_does_not():
    count = 400
    expanded, plain = _meets_the_goals(5, count, seed=20261124)
    # What the correction is for: the plain interval falls well short at 5 trials.
    assert plain["covered"] / count <= 0.975, plain
    assert plain["changes"] > expanded["changes"]


@pytest.mark.slow   # a coverage experiment of many simulated intervals
def test_twenty_trials_cost_little_width_and_keep_the_coverage():
    expanded, plain = _meets_the_goals(20, 150, seed=20261125)
    assert 1.0 < expanded["width"] / plain["width"] <= 1.25


@pytest.mark.parametrize("interval, at_most", [("expanded", 0.015), ("percentile", None)])
def test_power_a_a_rate_at_five_trials_per_group_is_nominal_with_the_expanded_interval(interval, at_most):
    """``power`` splits one version's 10 trials into two groups of 5 and counts A/A changes:
    with the expanded interval the rate is at the 1% the 99% CI promises."""
    rng = np.random.default_rng(20261126)
    levels = _levels(10)
    unit = levels[0]
    false_positives = simulations = 0
    for dataset in range(12):
        values = _version(rng, 10, 1.0)
        result = simulate_power(values, levels, unit, group_size=5, rule=BootstrapRule(0.01),
                                higher_is_better=False, slowdowns=(0.1,), simulations=40,
                                resamples=500, seed=dataset, interval=interval)
        false_positives += round(result.false_positive_rate * result.simulations)
        simulations += result.simulations
    rate = false_positives / simulations
    if at_most is not None:
        assert rate <= at_most, rate
    else:  # the uncorrected interval: the over-confidence the correction removes
        assert rate >= 0.025, rate
