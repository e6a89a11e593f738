"""The coverage table of docs/statistics.md: ratio CIs on data with a known truth.

Each simulated experiment measures two versions with the same design: ``trials`` trials x
3 forks x 20 iterations, with multiplicative lognormal random effects per trial, per fork
and per iteration (positive, right-skewed data like timings). The contender's population
mean is exactly 1.10 times the baseline's; an A/A pair has equal population means. For each
variance regime and trial count it prints, for the percentile interval and the expanded one
(``rigorbench.stats.bootstrap``; both from the same resamples):

* coverage: the share of 99% CIs of the ratio that hold the true ratio, with its Wilson 95%
  interval;
* A/A: the share of A/A comparisons the bootstrap rule (1% threshold) calls slower or faster;
* width: the mean width of the expanded CI relative to the percentile CI's.

Not a ``bench_*`` script (it measures statistics, not speed); run it as
``python benchmarks/coverage_table.py [EXPERIMENTS]`` (default 1000 experiments per cell,
about 10 minutes on two cores). ``tests/stats/test_coverage.py`` asserts the goals on
fewer experiments.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy import stats as sps

from rigorbench.stats import BootstrapRule, ConfidenceInterval, Evidence, Verdict, bootstrap_ratio
from rigorbench.stats.bootstrap import _relative_variance, expanded, expansion_factor

FORKS, ITERATIONS = 3, 20
TRUE_RATIO = 1.10
RESAMPLES = 1000
CONFIDENCE = 0.99
REGIMES = {  # sd of the log effects: trial, fork, iteration
    "trial-dominated": (0.05, 0.02, 0.03),
    "balanced": (0.03, 0.03, 0.05),
    "fork-dominated": (0.02, 0.05, 0.03),
    "iteration-dominated": (0.01, 0.01, 0.10),
}
TRIALS = (3, 5, 10, 20)


def version(rng: np.random.Generator, trials: int, sds: tuple[float, float, float], scale: float) -> np.ndarray:
    sd_trial, sd_fork, sd_iteration = sds
    trial = rng.lognormal(0.0, sd_trial, size=(trials, 1, 1))
    fork = rng.lognormal(0.0, sd_fork, size=(trials, FORKS, 1))
    iteration = rng.lognormal(0.0, sd_iteration, size=(trials, FORKS, ITERATIONS))
    return (scale * trial * fork * iteration).reshape(-1)


def both_intervals(baseline, contender, levels, seed: int) -> tuple[ConfidenceInterval, ConfidenceInterval]:
    """(percentile, expanded) 99% CIs of the ratio from one set of resamples."""
    r = bootstrap_ratio(baseline, levels, contender, levels, confidence=CONFIDENCE, resamples=RESAMPLES,
                        seed=seed, interval="percentile")
    factor = expansion_factor(CONFIDENCE, (r.baseline_units, r.contender_units),
                              (_relative_variance(r.baseline_distribution), _relative_variance(r.contender_distribution)))
    low, high = expanded(r.estimate, r.low, r.high, factor)
    return r.interval, ConfidenceInterval(r.estimate, low, high, CONFIDENCE)


def cell(trials: int, sds, experiments: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    grid = np.indices((trials, FORKS, ITERATIONS))
    levels = [grid[0].reshape(-1), grid[1].reshape(-1)]
    rule = BootstrapRule(0.01)
    covered = np.zeros(2, dtype=int)
    false = np.zeros(2, dtype=int)
    widths = []
    for experiment in range(experiments):
        baseline = version(rng, trials, sds, 1.0)
        contender = version(rng, trials, sds, TRUE_RATIO)
        same = version(rng, trials, sds, 1.0)
        ab = both_intervals(baseline, contender, levels, experiment)
        aa = both_intervals(baseline, same, levels, experiment)
        for m in range(2):
            covered[m] += ab[m].low <= TRUE_RATIO <= ab[m].high
            verdict = rule.decide(Evidence(aa[m], 1.0, 0.0), False)
            false[m] += verdict in (Verdict.SLOWER, Verdict.FASTER)
        widths.append((ab[1].high - ab[1].low) / (ab[0].high - ab[0].low))
    return {"coverage": covered / experiments, "aa": false / experiments, "width": float(np.mean(widths)),
            "n": experiments, "covered": covered, "false": false}


def wilson(k: int, n: int) -> str:
    ci = sps.binomtest(int(k), n).proportion_ci(0.95, method="wilson")
    return f"[{ci.low * 100:.1f}, {ci.high * 100:.1f}]"


def main(argv: list[str]) -> int:
    experiments = int(argv[0]) if argv else 1000
    start = time.perf_counter()
    print(f"99% CIs of the ratio, {experiments} experiments per cell, {RESAMPLES} resamples, "
          f"{FORKS} forks x {ITERATIONS} iterations per trial")
    print("| variance (sd of log: trial, fork, iteration) | trials | coverage percentile | coverage expanded "
          "| A/A slower/faster percentile | A/A expanded | width expanded / percentile |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r, (name, sds) in enumerate(REGIMES.items()):
        for trials in TRIALS:
            c = cell(trials, sds, experiments, seed=1000 * r + trials)
            n = c["n"]
            print(f"| {name} {sds} | {trials} "
                  f"| {c['coverage'][0]:.1%} {wilson(c['covered'][0], n)} "
                  f"| {c['coverage'][1]:.1%} {wilson(c['covered'][1], n)} "
                  f"| {c['aa'][0]:.1%} | {c['aa'][1]:.1%} {wilson(c['false'][1], n)} "
                  f"| {c['width']:.2f} |", flush=True)
    print(f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
