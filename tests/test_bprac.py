"""BPRAC E-step (thesis eq. 3.22-3.28): credence against a direct evaluation with scipy/quad."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, special

from negtheory.bprac import credence, popularity_prior, posterior


def direct_credence(scores, items, counts, d, lam):
    """Eq. 3.27-3.28 evaluated directly: f from eq. 3.19 (scipy.special.kv), F from eq. 3.20
    by adaptive quadrature (0.5 +- int_0^|x| f), sigmoid prior with numpy mean / std."""
    nu = 0.5 * (d - 1)
    c = 1.0 / (lam * math.sqrt(math.pi) * math.gamma(d / 2))

    def f(x):
        z = abs(x) / lam
        return c * (z / 2) ** nu * special.kv(nu, z)

    counts = np.asarray(counts, dtype=float)
    prior = 1.0 / (1.0 + np.exp(-(counts - counts.mean()) / counts.std()))
    out = []
    for x, i in zip(scores, items):
        half = integrate.quad(f, 0.0, abs(x), epsabs=0.0, epsrel=1e-12, limit=200)[0]
        F = 0.5 + math.copysign(half, x)
        out.append(2.0 * F * f(x) * prior[i])
    return np.array(out)


@pytest.mark.parametrize("d,lam", [(1, 0.5), (2, 1.0), (5, 0.1), (16, 0.05), (33, 0.02)])
def test_credence_matches_direct_evaluation(d, lam):
    rng = np.random.default_rng(d)
    n_items = 12
    counts = rng.integers(1, 200, size=n_items)
    s = math.sqrt(d) * lam
    scores = rng.normal(0.0, 1.5 * s, size=40)
    items = rng.integers(0, n_items, size=40)
    ref = direct_credence(scores, items, counts, d, lam)
    raw = credence(scores, items, counts, d, lam, normalize=False)
    np.testing.assert_allclose(raw, ref, rtol=1e-9)
    norm = credence(scores, items, counts, d, lam)
    np.testing.assert_allclose(norm, ref / ref.max(), rtol=1e-9)
    assert norm.max() == 1.0 and norm.min() > 0.0


def test_posterior_density_is_the_credence_without_prior():
    d, lam = 8, 0.3
    x = np.linspace(-3, 3, 13)
    raw = credence(x, np.zeros(13, dtype=int), [4.0, 4.0], d, lam, normalize=False)  # prior 1/2
    np.testing.assert_allclose(raw, 0.5 * posterior(d, lam).pdf(x), rtol=1e-13)


def test_popularity_prior_eq_3_28():
    counts = np.array([3.0, 10.0, 50.0, 200.0])
    u = (counts - counts.mean()) / counts.std()
    np.testing.assert_allclose(popularity_prior(counts), 1 / (1 + np.exp(-u)), rtol=1e-15)
    # shares of users give the same prior as counts
    np.testing.assert_allclose(
        popularity_prior(counts / 943.0), popularity_prior(counts), rtol=1e-14
    )
    np.testing.assert_array_equal(popularity_prior([7, 7]), [0.5, 0.5])
    # extreme standardised values stay in [0, 1] without overflow warnings
    p = popularity_prior(np.r_[np.zeros(10**5), 1e6])
    assert 0.0 < p[0] < 0.5 and p[-1] == pytest.approx(1.0)


def test_credence_large_d_and_tail_scores_stay_finite():
    d, lam = 1024, 1e-3
    s = math.sqrt(d) * lam
    scores = np.array([-60.0, -10.0, 0.0, 1e-9, 3.0, 40.0, 400.0]) * s
    c = credence(scores, np.arange(7), np.arange(1, 8), d, lam)
    assert np.all(np.isfinite(c)) and c.max() == 1.0 and np.all(c >= 0)
    assert c[0] < 1e-300 or c[0] == 0.0  # deep in the lower tail F ~ e^-60 s-scale
    raw = credence(scores, np.arange(7), np.arange(1, 8), d, lam, normalize=False)
    np.testing.assert_allclose(c[raw > 0], raw[raw > 0] / raw.max(), rtol=1e-12)


def test_mirror_ratio_is_the_odds_of_the_cdf():
    """c(x) / c(-x) = F(x) / F(-x) (f is symmetric); for d = 2 (Laplace) this is 2 e^{x/lam} - 1:
    a positive score is more credible than its mirror image, by the closed-form odds."""
    lam = 0.7
    x = np.array([0.01, 0.3, 1.0, 5.0, 30.0])
    c = credence(np.r_[x, -x], np.zeros(10, dtype=int), [1.0], 2, lam, normalize=False)
    np.testing.assert_allclose(c[:5] / c[5:], 2 * np.exp(x / lam) - 1, rtol=1e-12)


def test_d1_zero_score_edge_case():
    c = credence([0.0, 0.1], [0, 0], [1.0], 1, 1.0)
    np.testing.assert_array_equal(c, [1.0, 0.0])


def test_shapes_and_empty():
    c = credence(np.zeros((2, 3)) + 0.1, np.zeros((2, 3), dtype=int), [1, 2], 4, 1.0)
    assert c.shape == (2, 3)
    assert credence([], [], [1, 2], 4, 1.0).shape == (0,)
    assert credence([0.5, 0.7], [0.0, 1.0], [1, 2], 4, 1.0).shape == (
        2,
    )  # integral floats accepted


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"d": 0}, "d"),
        ({"d": 2.5}, "d"),
        ({"lam": 0.0}, "lam"),
        ({"lam": -1.0}, "lam"),
        ({"scores": [np.nan, 1.0, 2.0]}, "scores"),
        ({"items": [0, 1]}, "items"),
        ({"items": [0, 1, 5]}, "items"),
        ({"items": [0, -1, 1]}, "items"),
        ({"items": [0, 0.5, 1]}, "items"),
        ({"item_counts": [1.0, -2.0]}, "item_counts"),
        ({"item_counts": []}, "item_counts"),
        ({"item_counts": [[1.0, 2.0]]}, "item_counts"),
    ],
)
def test_bad_input_raises_value_error(kwargs, match):
    args = {
        "scores": [0.1, 0.2, 0.3],
        "items": [0, 1, 1],
        "item_counts": [3.0, 4.0],
        "d": 4,
        "lam": 1.0,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        credence(**args)
