"""Group-sequential error control: one confidence level for every look at a growing experiment.

An adaptive experiment (``ab --until-decided``) decides every benchmark again after each
trial and stops running the ones that are decided. Each look is one more chance of a false
``slower`` or ``faster``: deciding at 99% after every one of trials 3..20 would make a false
verdict several times as likely as one look at 99% does (Armitage, McPherson & Rowe, JRSS A
132(2), 1969). The classical remedy is a *group-sequential* design: the looks are planned,
and each uses a stricter nominal level chosen so that the chance of crossing at any of them
is the overall level.

rigorbench uses Pocock's boundary (Pocock, "Group sequential methods in the design and
analysis of clinical trials", Biometrika 64(2), 1977): the same nominal level at every look.
That keeps the analysis simple to reproduce (``compare`` of the stored run at that one level
gives exactly the verdicts the experiment stopped on) and lets a large change stop the
experiment at its first look, which is what saves time; O'Brien-Fleming's boundary would
spend almost nothing early and decide large changes later.

The constant is found for looks after ``n_1 < ... < n_K`` trials, under the usual
approximation that the estimate after ``n`` trials is a sum of ``n`` independent trial
effects: ``Z_k = S_{n_k} / sqrt(n_k)``, with ``corr(Z_i, Z_j) = sqrt(n_i / n_j)``. The boundary
``c`` solves ``P(max_k |Z_k| >= c) = 1 - confidence`` and is computed by simulating that
Gaussian random walk (no library offers Pocock boundaries for arbitrary look sizes in
Python; the group-sequential packages are R's gsDesign and rpact). The simulation is seeded,
so the level is the same on every machine, and accurate to about 2% of ``1 - confidence``.
``tests/stats/test_group_sequential.py`` checks it against Jennison & Turnbull's table of Pocock
constants (*Group Sequential Methods with Applications to Clinical Trials*, 2000, table
2.1) and against scipy's multivariate normal CDF.

The per-look level ``2 Phi(c) - 1`` is then used as the confidence of the ordinary
bootstrap interval (with its small-sample expansion), i.e. Pocock's "nominal significance
level" applied to each look's own test.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np
from scipy.special import ndtr, ndtri, stdtr, stdtrit
from scipy.stats import chi2

PATHS = 400_000          # simulated random walks; about 2% relative error at 1 - confidence = 0.01
SEED = 19770817          # fixed: the level must not depend on the run


def looks_between(first: int, last: int, step: int = 1) -> tuple[int, ...]:
    """Trial counts of the looks of an experiment decided after every ``step`` trials from
    ``first`` on, up to ``last`` (a look that adds ``step`` trials at once is one look)."""
    if first < 1 or last < first or step < 1:
        raise ValueError(f"looks need 1 <= first <= last and step >= 1, got {first}, {last} and {step}")
    return tuple(range(first, last + 1, step))


def pocock_boundary(confidence: float, looks: Sequence[int]) -> float:
    """Pocock's constant ``c``: ``P(max_k |Z_k| >= c) = 1 - confidence`` over the looks after
    ``looks`` (increasing trial counts) of a Gaussian random walk of independent trials."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    counts = tuple(int(n) for n in looks)
    if not counts or counts[0] < 1 or any(b <= a for a, b in zip(counts, counts[1:])):
        raise ValueError(f"looks must be increasing positive trial counts, got {looks!r}")
    if len(counts) == 1:
        return float(ndtri(1 - (1 - confidence) / 2))
    return _boundary(round(confidence, 12), counts)


@functools.lru_cache(maxsize=64)
def _boundary(confidence: float, counts: tuple[int, ...]) -> float:
    rng = np.random.default_rng(SEED)
    increments = np.diff((0, *counts))
    maximum = np.zeros(PATHS)
    walk = np.zeros(PATHS)
    for n, step in zip(counts, increments):   # the walk's value after n trials: a sum of n N(0,1)
        walk += rng.standard_normal(PATHS) * np.sqrt(step)
        np.maximum(maximum, np.abs(walk) / np.sqrt(n), out=maximum)
    return float(np.quantile(maximum, confidence))


def per_look_confidence(confidence: float, looks: Sequence[int]) -> float:
    """The nominal two-sided confidence of each look when each look is a t interval of two
    versions with ``looks[k]`` trials each (Pocock's design with estimated variances).

    Each look of an adaptive experiment estimates the trial-to-trial variance afresh from
    few trials and uses the t quantile of its Welch degrees of freedom; the looks' statistics
    are then heavier-tailed and less correlated than the Gaussian walk's, and a level
    calibrated on that walk lets through about twice the false verdicts at 3-10 trials
    (measured by ``tests/analysis/test_stopping.py``). So the level is calibrated on the
    statistic actually used: two independent versions' normal trial effects, Welch's t at every
    look, and the nominal level such that the smallest of the looks' p-values falls below
    ``1 - level`` in a share ``1 - confidence`` of the simulated experiments (the approach of
    Jennison & Turnbull 2000, chapter 11, to group-sequential t-tests, computed by
    simulation). With many trials per look it tends to :func:`pocock_boundary`'s level.
    """
    _check(confidence, looks)
    counts = tuple(int(n) for n in looks)
    if len(counts) == 1:
        return float(confidence)
    return _t_level(round(confidence, 12), counts)


def _check(confidence: float, looks: Sequence[int]) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    counts = tuple(int(n) for n in looks)
    if not counts or counts[0] < 2 or any(b <= a for a, b in zip(counts, counts[1:])):
        raise ValueError(f"looks must be increasing trial counts of at least 2, got {looks!r}")


T_PATHS = 200_000
WIDTH_POINTS = 32


@functools.lru_cache(maxsize=64)
def _t_level(confidence: float, counts: tuple[int, ...]) -> float:
    rng = np.random.default_rng(SEED)
    smallest = np.ones(T_PATHS)
    sums = np.zeros((2, T_PATHS))
    squares = np.zeros((2, T_PATHS))
    done = 0
    for n in counts:
        draws = rng.standard_normal((2, n - done, T_PATHS))
        sums += draws.sum(axis=1)
        squares += (draws * draws).sum(axis=1)
        done = n
        means = sums / n
        variances = (squares - n * means * means) / (n - 1) / n      # of each version's mean
        se2 = variances.sum(axis=0)
        t = np.abs(means[1] - means[0]) / np.sqrt(se2)
        df = se2 * se2 / ((variances * variances).sum(axis=0) / (n - 1))
        np.minimum(smallest, 2 * stdtr(df, -t), out=smallest)
    return float(1 - np.quantile(smallest, 1 - confidence))


def chance_of_verdict(estimate: float, low: float, high: float, *, confidence: float, trials: int, max_trials: int,
                      threshold: float) -> float:
    """The chance that a comparison still open after ``trials`` trials per version is decided
    (slower, faster or unchanged by the bootstrap rule at ``threshold``) at the last planned
    look, after ``max_trials``, if the true ratio is the one estimated now: the *conditional
    power under the current trend* of stochastic curtailment (Lan, Simon & Halperin,
    "Stochastically curtailed tests in long-term clinical trials", Sequential Analysis 1(3),
    1982; Jennison & Turnbull 2000, chapter 10).

    ``(low, high)`` is this look's ``t`` interval at ``confidence`` (symmetric about
    ``estimate`` on the log scale, :func:`rigorbench.stats.bootstrap.t_interval`). On the log
    scale, with ``n`` trials now and ``N`` at the end, the model is the one the per-look level
    is calibrated on: each trial adds an independent effect, so the standard error shrinks as
    ``sqrt(n / N)``; the t quantile has the ``2 (n - 1)`` degrees of freedom of two versions
    of equal variance; and given the data so far, the final estimate is normal about the
    current one with variance ``se_n^2 n (N - n) / N^2``, and the final interval's width varies
    with its variance estimate (below). The verdict regions are the rule's: at least
    ``log(1 + t)`` and clear of 0, at most ``log(1 - t)`` and clear of 0, or the whole interval
    inside ``[log(1 - t), log(1 + t)]``.

    Stopping a comparison whose chance is small only ever removes verdicts, so it cannot add a
    false slower or faster (a *non-binding* futility rule): the overall level of
    :func:`per_look_confidence` stands. NaN when the interval says nothing (not finite, not
    positive, or of no width).
    """
    n, big_n = int(trials), int(max_trials)
    if n < 2 or big_n < n:
        raise ValueError(f"need 2 <= trials <= max_trials, got {trials} and {max_trials}")
    if not 0 < confidence < 1 or not 0 <= threshold < 1:
        raise ValueError(f"need 0 < confidence < 1 and 0 <= threshold < 1, got {confidence!r} and {threshold!r}")
    if not all(np.isfinite((estimate, low, high))) or min(estimate, low, high) <= 0 or high <= low:
        return float("nan")
    theta = float(np.log(estimate))
    tail = 1 - (1 - confidence) / 2
    se_now = (float(np.log(high)) - float(np.log(low))) / 2 / float(stdtrit(2 * (n - 1), tail))
    spread = se_now * np.sqrt(n * (big_n - n)) / big_n
    up, down = float(np.log1p(threshold)), float(np.log1p(-threshold))
    # The final interval's width is random too. Each version's variance at N pools the n
    # trials' sum of squares (known) with the new trials' own and the shift between the old
    # and the new mean (whose expectations are N - n - 1 and n / N variances, the old mean
    # being the truth under the current trend); the new part is taken as a scaled chi-square
    # with 2 (N - n) degrees of freedom, averaged over WIDTH_POINTS equal-probability quantiles.
    if big_n > n:
        k = 2 * (big_n - n)
        new = chi2.ppf((np.arange(WIDTH_POINTS) + 0.5) / WIDTH_POINTS, k) / k
        variance_ratio = ((n - 1) + (big_n - n - 1 + n / big_n) * new) / (big_n - 1)
    else:
        variance_ratio = np.ones(1)
    half_end = float(stdtrit(2 * (big_n - 1), tail)) * se_now * np.sqrt(n / big_n) * np.sqrt(variance_ratio)

    def below(x: np.ndarray) -> np.ndarray:          # P(final estimate < x)
        if spread == 0:
            return (theta < x).astype(float)
        return ndtr((x - theta) / spread)

    chance = (1 - below(np.maximum(half_end, up))) + below(np.minimum(-half_end, down))
    chance += np.where(down + half_end < up - half_end, below(up - half_end) - below(down + half_end), 0.0)
    return float(min(1.0, np.mean(chance)))
