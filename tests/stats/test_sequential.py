"""Pocock's group-sequential boundary against published constants and scipy's multivariate normal."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtri
from scipy.stats import multivariate_normal

from rigorbench.stats.sequential import looks_between, per_look_confidence, pocock_boundary

# Jennison & Turnbull (2000), table 2.1: Pocock's constants C_P(K, alpha) for K equally
# spaced looks, two-sided alpha = 0.05.
JENNISON_TURNBULL_05 = {2: 2.178, 3: 2.289, 4: 2.361, 5: 2.413, 10: 2.555}


@pytest.mark.parametrize("looks, constant", sorted(JENNISON_TURNBULL_05.items()))
def test_pocock_constant_matches_the_published_table(looks, constant):
    assert pocock_boundary(0.95, range(1, looks + 1)) == pytest.approx(constant, abs=0.01)


def _crossing_probability(c: float, counts: tuple[int, ...]) -> float:
    """P(max_k |S_{n_k}| / sqrt(n_k) >= c) from scipy's multivariate normal CDF."""
    n = np.asarray(counts, dtype=float)
    cov = np.sqrt(np.minimum.outer(n, n) / np.maximum.outer(n, n))
    inside = multivariate_normal(mean=np.zeros(len(n)), cov=cov).cdf(np.full(len(n), c), lower_limit=np.full(len(n), -c))
    return 1 - float(inside)


@pytest.mark.parametrize("counts", [(3, 4, 5), (3, 5, 8, 12), (5, 10)])
def test_boundary_holds_the_overall_level_for_unequal_looks(counts):
    c = pocock_boundary(0.99, counts)
    assert _crossing_probability(c, counts) == pytest.approx(0.01, abs=0.0006)
    # a single look at the overall level would cross far more often over the same looks
    assert _crossing_probability(float(ndtri(0.995)), counts) > 0.015


def test_one_look_is_the_ordinary_interval():
    assert pocock_boundary(0.99, [5]) == pytest.approx(float(ndtri(0.995)))
    assert per_look_confidence(0.99, [5]) == pytest.approx(0.99)


def test_more_looks_need_a_stricter_level_and_it_is_reproducible():
    few, many = per_look_confidence(0.99, looks_between(3, 10)), per_look_confidence(0.99, looks_between(3, 20))
    assert 0.99 < few < many < 1 - 0.01 / 18      # stricter than one look, looser than Bonferroni
    assert per_look_confidence(0.99, looks_between(3, 20)) == many


@pytest.mark.parametrize("looks", [(), (0, 1), (3, 3), (5, 4)])
def test_bad_looks_are_refused(looks):
    with pytest.raises(ValueError):
        pocock_boundary(0.99, looks)
