"""Coverage of the ratio CI and the A/A false-positive rate on data with a known truth.

Each simulated experiment measures two versions with the same design: ``TRIALS`` trials x
``FORKS`` forks x ``ITERATIONS`` iterations, with multiplicative lognormal random effects
per trial, per fork and per iteration (positive, right-skewed data like timings). The
contender's population mean is exactly ``TRUE_RATIO`` times the baseline's.

Design checked here, and why: 20 trials x 3 forks x 20 iterations, with comparable
variance at every level (sd of the log effects 0.03 per trial, 0.03 per fork, 0.05 per
iteration). With this design the 99% percentile interval covers the true ratio in about 99%
of experiments and an A/A comparison is called slower/faster in about 1% (measured with
1000 experiments per design; standard error ~0.4 points), so the bounds asserted below
(>= 97% and <= 2%) hold with a margin rather than by luck of the seed.

Measured with 1000 experiments and 1000 resamples each (coverage / A/A false positives):

    sd of log effects (trial, fork, iter)   5 trials       10 trials      20 trials
    trial-dominated (0.05, 0.02, 0.03)      95.9% / 5.5%   96.8% / 3.2%   98.0% / 1.5%
    balanced        (0.03, 0.03, 0.05)      97.7% / 3.5%   98.1% / 1.7%   98.9% / 0.9%
    fork-dominated  (0.02, 0.05, 0.03)      98.7% / 1.8%   99.1% / 1.1%   99.4% / 0.4%

The percentile bootstrap under-covers when few units carry most of the variance at the top
level (5-10 trials, trial-dominated): plan more trials there rather than trusting the
nominal 99%.
"""

from __future__ import annotations

import numpy as np

from rigorbench.stats import BootstrapRule, Evidence, Verdict, bootstrap_ratio

TRIALS, FORKS, ITERATIONS = 20, 3, 20
SD_TRIAL, SD_FORK, SD_ITERATION = 0.03, 0.03, 0.05
TRUE_RATIO = 1.10
EXPERIMENTS = 400
RESAMPLES = 1000


def _version(rng: np.random.Generator, scale: float) -> np.ndarray:
    trial = rng.lognormal(0.0, SD_TRIAL, size=(TRIALS, 1, 1))
    fork = rng.lognormal(0.0, SD_FORK, size=(TRIALS, FORKS, 1))
    iteration = rng.lognormal(0.0, SD_ITERATION, size=(TRIALS, FORKS, ITERATIONS))
    return (scale * trial * fork * iteration).reshape(-1)


def test_ratio_ci_coverage_and_aa_false_positives():
    rng = np.random.default_rng(20240611)
    grid = np.indices((TRIALS, FORKS, ITERATIONS))
    levels = [grid[0].reshape(-1), grid[1].reshape(-1)]
    rule = BootstrapRule(0.01)
    covered = false_positives = 0
    for experiment in range(EXPERIMENTS):
        baseline = _version(rng, 1.0)
        contender = _version(rng, TRUE_RATIO)
        same = _version(rng, 1.0)
        ab = bootstrap_ratio(baseline, levels, contender, levels, confidence=0.99,
                             resamples=RESAMPLES, seed=experiment)
        covered += ab.low <= TRUE_RATIO <= ab.high
        aa = bootstrap_ratio(baseline, levels, same, levels, confidence=0.99,
                             resamples=RESAMPLES, seed=experiment)
        evidence = Evidence(aa.interval, p_value=1.0, cliffs_delta=0.0)
        false_positives += rule.decide(evidence, False) in (Verdict.SLOWER, Verdict.FASTER)
    assert covered / EXPERIMENTS >= 0.97, covered
    assert false_positives / EXPERIMENTS <= 0.02, false_positives
