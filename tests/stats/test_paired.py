"""The paired ratio (stats/bootstrap.py, ``bootstrap_paired_ratio``) against known truths.

Synthetic experiments as in ``test_coverage.py`` (trials x forks x iterations, multiplicative
lognormal effects), with a trial effect that both versions of a trial *share* -- the machine
changing between trials, which RMIT exposes both versions to -- and one of their own. The
contender's population mean is exactly ``TRUE_RATIO`` times the baseline's. Issue 33's goals:
the paired 99% interval covers the truth in >= 98% of experiments, A/A comparisons are called
slower or faster in <= 1%, and where the drift is shared the paired interval is narrower.
"""

from __future__ import annotations

import numpy as np
import pytest

from rigorbench.stats import (
    BootstrapRule, Evidence, Verdict, bootstrap_paired_ratio, bootstrap_ratio, narrower_of_paired_and_unpaired,
)

FORKS, ITERATIONS = 3, 20
TRUE_RATIO = 1.05
RESAMPLES = 1000


def _levels(trials: int) -> list[np.ndarray]:
    grid = np.indices((trials, FORKS, ITERATIONS))
    return [np.zeros(grid[0].size, dtype=int), grid[0].reshape(-1), grid[1].reshape(-1)]


def _pair(rng: np.random.Generator, trials: int, ratio: float, shared_sd: float, own_sd: float = 0.01):
    """Baseline and contender of one experiment: a shared trial effect, then each version's own
    trial, fork and iteration effects."""
    shared = rng.lognormal(0.0, shared_sd, size=(trials, 1, 1))

    def version(scale: float) -> np.ndarray:
        own = rng.lognormal(0.0, own_sd, size=(trials, 1, 1))
        fork = rng.lognormal(0.0, 0.01, size=(trials, FORKS, 1))
        iteration = rng.lognormal(0.0, 0.02, size=(trials, FORKS, ITERATIONS))
        return (scale * shared * own * fork * iteration).reshape(-1)

    return version(1.0), version(ratio)


def test_a_trial_effect_both_versions_share_cancels_exactly():
    """Each trial's values are one constant per version and the contender's is 1.1 times the
    baseline's: every paired resample draws the same trials for both, so every ratio is 1.1,
    where the unpaired ratio spreads with the trial effects."""
    trials = 6
    levels = _levels(trials)
    trial_value = np.array([1.0, 3.0, 0.5, 2.0, 7.0, 1.5])
    baseline = np.repeat(trial_value, FORKS * ITERATIONS)
    paired = bootstrap_paired_ratio(baseline, levels, 1.1 * baseline, levels, matched=2, resamples=2000, seed=3)
    np.testing.assert_allclose(paired.distribution, 1.1, rtol=1e-12)
    assert paired.low == pytest.approx(1.1) and paired.high == pytest.approx(1.1) and paired.paired
    unpaired = bootstrap_ratio(baseline, levels, 1.1 * baseline, levels, resamples=2000, seed=3)
    assert unpaired.high / unpaired.low > 2


def test_each_version_keeps_its_own_hierarchical_distribution():
    """Pairing changes which resamples go together, not each version's law: its distribution's
    spread matches the unpaired bootstrap's within simulation error."""
    rng = np.random.default_rng(5)
    baseline, contender = _pair(rng, 8, TRUE_RATIO, shared_sd=0.05)
    levels = _levels(8)
    paired = bootstrap_paired_ratio(baseline, levels, contender, levels, matched=2, resamples=4000, seed=1)
    unpaired = bootstrap_ratio(baseline, levels, contender, levels, resamples=4000, seed=1)
    for mine, theirs in ((paired.baseline_distribution, unpaired.baseline_distribution),
                         (paired.contender_distribution, unpaired.contender_distribution)):
        assert np.std(mine) == pytest.approx(np.std(theirs), rel=0.08)
        assert np.mean(mine) == pytest.approx(np.mean(theirs), rel=1e-3)


def test_the_same_seed_gives_the_same_interval_and_another_seed_another():
    rng = np.random.default_rng(2)
    baseline, contender = _pair(rng, 5, TRUE_RATIO, shared_sd=0.05)
    levels = _levels(5)
    first, again, other = (bootstrap_paired_ratio(baseline, levels, contender, levels, matched=2, seed=s)
                           for s in (7, 7, 8))
    assert (first.low, first.high) == (again.low, again.high)
    assert (first.low, first.high) != (other.low, other.high)


def test_units_that_do_not_match_are_refused():
    levels = _levels(4)
    values = np.ones(levels[0].size)
    fewer = [lv[levels[1] < 3] for lv in levels]
    with pytest.raises(ValueError, match="same units"):
        bootstrap_paired_ratio(values, levels, values[: fewer[0].size], fewer, matched=2)
    one = [lv[levels[1] == 0] for lv in levels]
    with pytest.raises(ValueError, match="two matched units"):
        bootstrap_paired_ratio(values[: one[0].size], one, values[: one[0].size], one, matched=2)
    with pytest.raises(ValueError, match="matched must lie"):
        bootstrap_paired_ratio(values, levels, values, levels, matched=0)


def _experiments(trials: int, count: int, shared_sd: float, seed: int, narrower: bool = False) -> dict:
    """Coverage, A/A changes and mean log widths; ``narrower``: the rule a stored run's
    comparison uses (paired, or unpaired where that is narrower)."""
    rng = np.random.default_rng(seed)
    levels = _levels(trials)
    rule = BootstrapRule(0.01)
    tally = {"covered": 0, "aa_changes": 0, "paired_width": 0.0, "unpaired_width": 0.0, "paired": 0}

    def ratio(b, c, experiment):
        found = bootstrap_paired_ratio(b, levels, c, levels, matched=2, resamples=RESAMPLES, seed=experiment)
        return narrower_of_paired_and_unpaired(found, experiment) if narrower else found

    for experiment in range(count):
        baseline, contender = _pair(rng, trials, TRUE_RATIO, shared_sd)
        same_b, same_c = _pair(rng, trials, 1.0, shared_sd)
        ab, aa = ratio(baseline, contender, experiment), ratio(same_b, same_c, experiment)
        tally["paired"] += ab.paired
        plain = bootstrap_ratio(baseline, levels, contender, levels, resamples=RESAMPLES, seed=experiment)
        tally["covered"] += ab.low <= TRUE_RATIO <= ab.high
        tally["aa_changes"] += rule.decide(Evidence(aa.interval, 1.0, 0.0), False) in (Verdict.SLOWER, Verdict.FASTER)
        tally["paired_width"] += np.log(ab.high / ab.low) / count
        tally["unpaired_width"] += np.log(plain.high / plain.low) / count
    return tally


@pytest.mark.slow   # a coverage experiment of many simulated intervals
@pytest.mark.parametrize("trials", [5, 10])
def test_shared_drift_paired_covers_the_truth_and_is_narrower(trials):
    count = 300
    tally = _experiments(trials, count, shared_sd=0.05, seed=20261127 + trials)
    assert tally["covered"] / count >= 0.98, tally
    assert tally["aa_changes"] / count <= 0.01, tally
    # The shared trial effect (sd 5%) dominates the unpaired interval and cancels in the paired one.
    assert tally["paired_width"] < 0.5 * tally["unpaired_width"], tally


@pytest.mark.slow
def test_no_shared_drift_paired_still_covers_the_truth():
    """Pairing trials whose effects are independent costs nothing in validity."""
    count = 300
    tally = _experiments(5, count, shared_sd=0.0, seed=20261128)
    assert tally["covered"] / count >= 0.98, tally
    assert tally["aa_changes"] / count <= 0.01, tally


@pytest.mark.slow
@pytest.mark.parametrize("shared_sd", [0.0, 0.02])
def test_keeping_the_narrower_interval_keeps_the_goals(shared_sd):
    """A stored run's comparison keeps the narrower of the paired and the unpaired interval of
    the same resamples; choosing among two intervals could cost coverage, so it is measured
    where pairing rarely wins (no shared effect) and where it wins about as often as not
    (measured with 300 experiments at 3, 5 and 10 trials: coverage >= 99.7%, A/A <= 0.7%)."""
    count = 300
    tally = _experiments(5, count, shared_sd=shared_sd, seed=20261129, narrower=True)
    assert tally["covered"] / count >= 0.98, tally
    assert tally["aa_changes"] / count <= 0.01, tally
    assert 0 < tally["paired"] < count, tally   # both kinds were chosen
