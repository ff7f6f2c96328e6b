"""The numbers behind the thesis distribution figures (Fig. 2.3, 4.3, 6.4, 6.8) against
independent computations: scipy.stats.order_statistic, the literal formulas of eq. 4.7-4.8 /
6.14-6.15 with scipy's normal, t and gamma, and exact bin probabilities for the histograms."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as st

pytest.importorskip("matplotlib")

from negtheory.figures import registry  # noqa: E402
from negtheory.figures import thesis_distributions as td  # noqa: E402


def test_registered():
    names = set(registry())
    assert {
        "fig_2_3_order_statistic",
        "fig_4_3_tn_fn_densities",
        "fig_6_4_class_conditional",
        "fig_6_8_generated_scores",
    } <= names


def test_fig_2_3_curve_is_scipy_order_statistic():
    fig = td.fig_2_3_order_statistic(npts=50)
    ax = fig.axes[0]
    x, f = ax.lines[0].get_data()
    _, g = ax.lines[1].get_data()
    ref = st.order_statistic(st.Normal(mu=1.0, sigma=math.sqrt(5.0)), r=2, n=5)
    np.testing.assert_allclose(f, st.norm(1.0, math.sqrt(5.0)).pdf(x), rtol=1e-12)
    np.testing.assert_allclose(g, ref.pdf(x), rtol=1e-9, atol=1e-15)


def test_fig_4_3_curves_are_eq_4_7_and_4_8():
    fig = td.fig_4_3_tn_fn_densities(npts=40)
    for ax, base in zip(fig.axes[:3], (st.norm(), st.t(3), st.gamma(2.0))):
        x, tn = ax.lines[1].get_data()
        _, fn = ax.lines[2].get_data()
        np.testing.assert_allclose(tn, 2 * base.pdf(x) * base.sf(x), rtol=1e-10, atol=1e-300)
        np.testing.assert_allclose(fn, 2 * base.pdf(x) * base.cdf(x), rtol=1e-10, atol=1e-300)


def test_fig_6_4_curves_are_eq_6_14_and_6_15():
    fig = td.fig_6_4_class_conditional(alphas=(0.6, 0.8), npts=30)
    for ax, alpha in zip(fig.axes[:2], (0.6, 0.8)):
        x, tn = ax.lines[1].get_data()
        _, fn = ax.lines[2].get_data()
        f, F = st.norm.pdf(x), st.norm.cdf(x)
        np.testing.assert_allclose(
            tn, alpha * 2 * f * (1 - F) + (1 - alpha) * 2 * f * F, rtol=1e-12
        )
        np.testing.assert_allclose(
            fn, alpha * 2 * f * F + (1 - alpha) * 2 * f * (1 - F), rtol=1e-12
        )


def test_fig_6_8_histograms_match_exact_bin_probabilities():
    alpha, t, tau, n = 0.9, 2.0, 0.5, 20_000
    fig = td.fig_6_8_generated_scores(alphas=(alpha,), n=n, t=t, tau_plus=tau)
    ax = fig.axes[0]
    patches = ax.patches
    nb = len(patches) // 2
    for cls, bars in (("tn", patches[:nb]), ("fn", patches[nb:])):
        left = np.array([p.get_x() for p in bars])
        width = bars[0].get_width()
        height = np.array([p.get_height() for p in bars])
        u0, u1 = (
            st.norm.cdf(t * np.log(np.maximum(left, 1e-300))),
            st.norm.cdf(t * np.log(left + width)),
        )
        G = (
            (lambda u: 2 * alpha * u + (1 - 2 * alpha) * u**2)
            if cls == "tn"
            else (lambda u: 2 * (1 - alpha) * u + (2 * alpha - 1) * u**2)
        )
        prob = G(u1) - G(u0)
        k = (
            n * (1 - tau) if cls == "tn" else n * tau
        )  # expected class size (exact size varies ~1 %)
        expected = prob / width
        sd = np.sqrt(prob * (1 - prob) / k) / width
        big = prob > 0.01
        assert np.all(np.abs(height[big] - expected[big]) <= 5 * sd[big] + 0.02 * expected[big])
