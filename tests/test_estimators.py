"""Tests of negtheory.estimators (thesis ch. 4-6) against independent computations.

References: brute-force O(N^2) counting for the eCDF, the forward quadratic of eq. 6.28 for its
root, explicit class-conditional densities (scipy.stats.norm, eq. 6.12-6.15, 6.22-6.23) for the
weights and Theorem 6.1, quadrature of the target means, and Monte-Carlo unbiasedness checks
with stated tolerances (5 standard errors).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, special, stats

from negtheory import estimators as E

# ---------------------------------------------------------------- exact class-conditional laws
# standard-normal parent; u = Phi(x):  CDF_TN(u) = 2 a u + (1 - 2a) u^2,  CDF_FN(u) = 2(1-a) u + (2a-1) u^2


def phi1(x):
    return 2 * stats.norm.pdf(x) * stats.norm.sf(x)  # eq. 6.12


def phi2(x):
    return 2 * stats.norm.pdf(x) * stats.norm.cdf(x)  # eq. 6.13


def phi_tn(x, a):
    return a * phi1(x) + (1 - a) * phi2(x)  # eq. 6.14


def phi_fn(x, a):
    return a * phi2(x) + (1 - a) * phi1(x)  # eq. 6.15


def sample_class(rng, n, a, false_negative):
    """Exact inverse-CDF draws of phi_TN / phi_FN with a standard-normal parent."""
    v = rng.random(n)
    if false_negative:  # (2a-1) u^2 + 2(1-a) u - v = 0
        A, B = 2 * a - 1, 2 * (1 - a)
    else:  # (1-2a) u^2 + 2a u - v = 0
        A, B = 1 - 2 * a, 2 * a
    u = 2 * v / (B + np.sqrt(np.maximum(B * B + 4 * A * v, 0)))
    return special.ndtri(u)


# ---------------------------------------------------------------- eCDF and eq. 6.29


def test_ecdf_matches_brute_force_with_ties():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 7, size=(50, 33)).astype(float)  # many ties
    brute = (x[:, None, :] <= x[:, :, None]).sum(axis=-1) / x.shape[-1]
    np.testing.assert_array_equal(E.ecdf(x), brute)
    np.testing.assert_allclose(E.ecdf(x, denominator="n+1"), brute * 33 / 34)


@pytest.mark.parametrize(
    "alpha,tau_plus", [(0.9, 0.1), (0.5, 0.1), (0.7, 0.5), (1.0, 0.3), (0.5, 0.5), (0.999, 0.999)]
)
def test_cdf_from_unlabeled_inverts_eq_628(alpha, tau_plus):
    phi = np.linspace(0, 1, 101)
    tm = 1 - tau_plus
    phi_un = (
        2 * (alpha * tm + (1 - alpha) * tau_plus) * phi + (1 - 2 * alpha) * (tm - tau_plus) * phi**2
    )
    np.testing.assert_allclose(E.cdf_from_unlabeled(phi_un, alpha, tau_plus), phi, atol=1e-14)


# ---------------------------------------------------------------- BCL weights


@pytest.mark.parametrize(
    "alpha,beta,tau_plus",
    [(0.9, 0.5, 0.1), (0.75, 0.9, 0.2), (0.6, 0.0, 0.4), (0.5, 0.3, 0.1), (0.8, 1.0, 0.5)],
)
def test_bcl_weights_equal_density_ratio_eq_624(alpha, beta, tau_plus):
    """omega = (phi_THN / Z) / phi_UN from explicit densities, at scores whose eCDF is known."""
    n = 40
    x = stats.norm.ppf(np.linspace(0.01, 0.99, n))  # distinct, increasing: eCDF = (i+1)/n
    phi_un_hat = np.arange(1, n + 1) / n
    # parent CDF behind each eCDF value (forward quadratic solved independently with numpy.roots)
    tm = 1 - tau_plus
    a = (1 - 2 * alpha) * (tm - tau_plus)
    b = 2 * (alpha * tm + (1 - alpha) * tau_plus)
    par = []
    for u in phi_un_hat:
        if abs(a) < 1e-15:
            par.append(u / b)
        else:
            r = np.roots([a, b, -u]).real
            par.append(r[(r >= -1e-12) & (r <= 1 + 1e-12)][0])
    z = stats.norm.ppf(np.clip(par, 1e-300, 1 - 1e-16))  # a point with that parent CDF
    thn = (1 - beta) * alpha * phi1(z) + beta * (1 - alpha) * phi2(z)  # eq. 6.22
    Z = (1 - beta) * alpha + beta * (1 - alpha)  # eq. 6.26
    un = tm * phi_tn(z, alpha) + tau_plus * phi_fn(z, alpha)  # eq. 6.23
    want = thn / Z / un
    got = E.bcl_weights(x, alpha, beta, tau_plus)
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-9, atol=1e-12)


def test_theorem_6_1_weight_is_posterior_over_tau_minus():
    """beta = 1/2: omega = P(TN | x) / tau^- with P(TN | x) by Bayes from the exact densities."""
    alpha, tau_plus = 0.85, 0.2
    n = 25
    u_un = np.arange(1, n + 1) / n
    x = np.linspace(-2, 2, n)  # increasing: eCDF = u_un
    phi = E.cdf_from_unlabeled(u_un, alpha, tau_plus)
    z = stats.norm.ppf(np.clip(phi, 0, 1 - 1e-16))
    post = (
        (1 - tau_plus)
        * phi_tn(z, alpha)
        / ((1 - tau_plus) * phi_tn(z, alpha) + tau_plus * phi_fn(z, alpha))
    )
    got = E.bcl_weights(x, alpha, 0.5, tau_plus)
    ok = np.isfinite(post)
    np.testing.assert_allclose(got[ok], post[ok] / (1 - tau_plus), rtol=1e-10)


def test_bcl_weights_exact_at_alpha_half_and_tau_half():
    x = np.array([[0.3, 0.1, 0.9, 0.5]])
    u = E.ecdf(x)
    for beta in (0.0, 0.3, 1.0):
        # alpha = 1/2: a = 0, b = 1, Z = 1/2, denominator 1/2 -> omega = 2[(1 - beta) + (2 beta - 1) Phi_UN]
        np.testing.assert_allclose(
            E.bcl_weights(x, 0.5, beta, 0.1), 2 * ((1 - beta) + (2 * beta - 1) * u), rtol=1e-14
        )
    w = E.bcl_weights(x, 0.8, 0.5, 0.5)  # tau+ = 1/2 is also a = 0
    assert np.all(np.isfinite(w))
    # tau+ = 1/2: phi_UN = (phi_TN + phi_FN)/2 = phi (the parent), so with beta = 1/2, omega = phi_TN/phi = 2[a(1-F) + (1-a)F]
    np.testing.assert_allclose(w, 2 * (0.8 * (1 - u) + 0.2 * u), rtol=1e-14)


def test_bcl_weights_z_zero_raises():
    with pytest.raises(ValueError, match="Z = 0"):
        E.bcl_weights([1.0, 2.0], 1.0, 1.0, 0.1)


def test_theorem_6_2_bcl_consistent_for_true_negative_mean():
    """Large N: (1/N) sum omega x-hat -> E_TN[x-hat] (importance sampling, eq. 6.39-6.42)."""
    rng = np.random.default_rng(5)
    alpha, tau_plus, t, n = 0.9, 0.1, 0.5, 200_000
    is_fn = rng.random(n) < tau_plus
    x = np.where(is_fn, sample_class(rng, n, alpha, True), sample_class(rng, n, alpha, False))
    xhat = np.exp(x / t)
    truth = integrate.quad(lambda s: math.exp(s / t) * phi_tn(s, alpha), -12, 12, limit=200)[0]
    for normalize in (False, True):
        est = E.theta_bcl(xhat, alpha, 0.5, tau_plus, normalize=normalize)
        assert est == pytest.approx(truth, rel=0.03)
    assert E.theta_biased(xhat) > truth * 1.05  # the biased estimator is far off


# ---------------------------------------------------------------- the other estimators


def test_theta_sup_and_biased():
    x = np.array([[1.0, 2.0, 3.0, 10.0], [4.0, 4.0, 4.0, 4.0]])
    tn = np.array([[True, True, True, False], [False, False, False, False]])
    out = E.theta_sup(x, tn)
    assert out[0] == 2.0 and np.isnan(out[1])
    np.testing.assert_allclose(E.theta_biased(x), [4.0, 4.0])


def test_theta_dcl_unbiased_monte_carlo():
    rng = np.random.default_rng(9)
    alpha, tau_plus, t, m, n, k = 0.8, 0.15, 0.5, 20_000, 32, 8
    is_fn = rng.random((m, n)) < tau_plus
    raw = np.where(
        is_fn,
        sample_class(rng, m * n, alpha, True).reshape(m, n),
        sample_class(rng, m * n, alpha, False).reshape(m, n),
    )
    pos = np.exp(sample_class(rng, m * k, alpha, True).reshape(m, k) / t)
    xhat = np.exp(raw / t)
    est = E.theta_dcl(xhat, pos, tau_plus)
    truth = integrate.quad(lambda s: math.exp(s / t) * phi_tn(s, alpha), -12, 12, limit=200)[0]
    se = est.std() / math.sqrt(m)
    assert abs(est.mean() - truth) < 5 * se


def test_theta_dcl_formula_floor_and_own_positive():
    x = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    own = np.array([3.0, 30.0])  # the anchor's own positive (released code)
    got = E.theta_dcl(x, own, 0.1)
    np.testing.assert_allclose(got, [(2.0 - 0.3) / 0.9, (1.0 - 3.0) / 0.9])
    floored = E.theta_dcl(x, own, 0.1, floor=math.exp(-1 / 0.5))
    assert floored[1] == pytest.approx(math.exp(-2)) and floored[0] == got[0]


def test_theta_hcl_against_explicit_loop():
    rng = np.random.default_rng(2)
    x = np.exp(rng.normal(size=(4, 16)) / 0.5)
    p = np.exp(rng.normal(size=(4, 3)) / 0.5)
    beta, tp = 1.0, 0.1
    want = []
    for row, prow in zip(x, p):
        w = row**beta / np.mean(row**beta)
        want.append((np.mean(w * row) - tp * prow.mean()) / (1 - tp))
    np.testing.assert_allclose(E.theta_hcl(x, p, tp, beta), want, rtol=1e-12)
    np.testing.assert_allclose(E.theta_hcl(x, p, tp, 0.0), E.theta_dcl(x, p, tp), rtol=1e-12)
    assert np.all(E.theta_hcl(x, p, tp, 2.0) > E.theta_dcl(x, p, tp))  # up-weights hard negatives
    with pytest.raises(ValueError, match="scores"):
        E.theta_hcl([-1.0, 2.0], [1.0], 0.1, 1.0)


# ---------------------------------------------------------------- DPL


def test_dpl_probability_unbiased_lemma_5_1():
    rng = np.random.default_rng(4)
    m, n, k, tau_plus = 40_000, 16, 4, 0.2
    mu_pos = 1.0  # positives ~ N(1, 1), true negatives ~ N(0, 1)
    pos = rng.normal(mu_pos, 1, m)
    unl = np.where(
        rng.random((m, n)) < tau_plus, rng.normal(mu_pos, 1, (m, n)), rng.normal(0, 1, (m, n))
    )
    extra = rng.normal(mu_pos, 1, (m, k))
    p = E.dpl_probability(pos, unl, extra, tau_plus)
    # R_AUC = E sigma(X+ - X-), X+ - X- ~ N(1, 2)
    truth = integrate.quad(
        lambda d: special.expit(d) * stats.norm.pdf(d, mu_pos, math.sqrt(2)), -20, 20
    )[0]
    assert abs(p.mean() - truth) < 5 * p.std() / math.sqrt(m)
    # the biased estimate without correction is off
    assert abs(special.expit(pos[:, None] - unl).mean() - truth) > 0.01


def test_dpl_loss_and_bound():
    loss = E.dpl_loss([3.0, 1.0], [[0.0, 0.5], [0.0, 2.0]], [[2.5], [1.0]], 0.1, reduction="none")
    p = E.dpl_probability([3.0, 1.0], [[0.0, 0.5], [0.0, 2.0]], [[2.5], [1.0]], 0.1)
    np.testing.assert_allclose(loss, -np.log(p))
    e2 = math.e**2
    assert E.dpl_error_bound(100, 25, 0.5) == pytest.approx(
        e2 * math.sqrt(2 * math.pi / 100) + 0.5 * e2 * math.sqrt(2 * math.pi / 25)
    )
    assert "cosine" in E.dpl_error_bound.__doc__


# ---------------------------------------------------------------- BNS


def test_bns_unbias_is_bayes_posterior():
    x = np.linspace(-2, 2, 9)
    F = stats.norm.cdf(x)
    p_fn = 0.3
    like_tn = 2 * stats.norm.pdf(x) * (1 - F)  # eq. 4.7
    like_fn = 2 * F * stats.norm.pdf(x)  # eq. 4.8
    post = like_tn * (1 - p_fn) / (like_tn * (1 - p_fn) + like_fn * p_fn)  # eq. 4.9-4.13
    np.testing.assert_allclose(E.bns_unbias(F, p_fn), post, rtol=1e-12)
    with pytest.raises(ValueError, match="contradict"):
        E.bns_unbias(1.0, 0.0)


def test_bns_select_matches_brute_force():
    rng = np.random.default_rng(1)
    users, c, lam = 200, 10, 5.0
    xp = rng.normal(1, 1, users)
    cand = rng.normal(0, 1, (users, c))
    pfn = rng.uniform(0, 0.5, (users, c))
    got = E.bns_select(xp, cand, pfn, lam=lam)
    for u in range(users):
        risks = []
        for j in range(c):
            F = np.sum(cand[u] <= cand[u, j]) / (c + 1)
            info = 1 - special.expit(xp[u] - cand[u, j])
            unb = (1 - F) * (1 - pfn[u, j]) / (1 - F - pfn[u, j] + 2 * F * pfn[u, j])
            risks.append(info * (1 - (1 + lam) * unb))
        assert got[u] == int(np.argmin(risks))


def test_bns_risk_info_and_metrics():
    assert E.bns_info(0.0, 0.0) == 0.5
    np.testing.assert_allclose(E.bns_risk([0.2, 0.4], [0.5, 1.0], 1.0), [0.0, -0.4])
    assert E.tnr(np.array([True, False, True, True])) == 0.75
    assert E.informativeness([0.2, 0.4, 0.6], np.array([True, False, True])) == pytest.approx(
        (0.2 - 0.4 + 0.6) / 3
    )


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: E.bcl_weights([1.0, 2.0], 0.4, 0.5, 0.1), "alpha"),
        (lambda: E.bcl_weights([1.0, 2.0], 0.9, 1.5, 0.1), "beta"),
        (lambda: E.bcl_weights([1.0, 2.0], 0.9, 0.5, 0.0), "tau_plus"),
        (lambda: E.bcl_weights([1.0, 2.0], 0.9, 0.5, 1.0), "tau_plus"),
        (lambda: E.bcl_weights([1.0, np.nan], 0.9, 0.5, 0.1), "scores"),
        (lambda: E.bcl_weights(1.0, 0.9, 0.5, 0.1), "scores"),
        (lambda: E.theta_dcl([1.0, 2.0], [1.0], 1.2), "tau_plus"),
        (lambda: E.theta_dcl([1.0, 2.0], [], 0.1), "positives"),
        (lambda: E.theta_sup([1.0, 2.0], [True]), "is_true_negative"),
        (lambda: E.dpl_probability(1.0, [1.0], [1.0], -0.1), "tau_plus"),
        (lambda: E.bns_unbias(1.2, 0.1), "F"),
        (lambda: E.bns_risk(0.5, 0.5, -1.0), "lam"),
        (lambda: E.ecdf([1.0, 2.0], denominator="n-1"), "denominator"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("parent", [stats.norm(), stats.t(4), stats.gamma(2.0)])
def test_theorem_6_1_with_negtheory_dists(parent):
    """beta = 1/2: omega(x) = P(TN | x) / tau^-, the posterior from negtheory.dists' exact laws.

    Scores whose eCDF is k/N are placed where the exact unlabeled CDF equals k/N, so the
    weight computed from the eCDF must equal the Bayes posterior computed from the densities.
    """
    from negtheory import dists

    alpha, tau_plus, n = 0.8, 0.25, 20
    un = dists.unlabeled(parent, alpha, tau_plus)
    tn = dists.true_negative(parent, alpha)
    fn = dists.false_negative(parent, alpha)
    u = np.arange(1, n) / n  # leave out u = 1 (x = +inf)
    x = un.ppf(u)
    post = (1 - tau_plus) * tn.pdf(x) / ((1 - tau_plus) * tn.pdf(x) + tau_plus * fn.pdf(x))
    w = E.bcl_weights(np.append(x, x[-1] + 1.0), alpha, 0.5, tau_plus)[:-1]
    np.testing.assert_allclose(w, post / (1 - tau_plus), rtol=1e-9)


@pytest.mark.parametrize("tau_plus", [9.687594746238711e-22, 1e-17, 1e-9, 0.1])
@pytest.mark.parametrize("alpha", [1.0, 0.999999999, 0.75, 0.5])
def test_bcl_weights_no_cancellation(alpha, tau_plus):
    # eq. 6.25 as printed cancels catastrophically at alpha = 1, Phi = 1 (denominator
    # tau- - (tau- - tau+) = 1 - 1 = 0 in double once tau+ < 1e-16: NaN, found by the fuzz
    # suite); the regrouped form must match the printed one evaluated in exact rational
    # arithmetic at the same Phi, and the torch twin must match the numpy one
    from fractions import Fraction

    beta = 0.554701471579191
    n = 6
    u = np.arange(1, n + 1) / n
    got = E._omega_of_ecdf(u, alpha, beta, tau_plus)
    assert np.isfinite(got).all() and (got >= 0).all()
    phi = np.clip(E._phi_from_un(u, alpha, tau_plus), 0.0, 1.0)
    a, b, tp = Fraction(alpha), Fraction(beta), Fraction(tau_plus)
    tm = 1 - tp
    z = (1 - b) * a + b * (1 - a)
    for g, p in zip(got, phi):
        p = Fraction(float(p))
        exact = ((1 - b) * a + (b - a) * p) / (
            z * (a * tm + (1 - a) * tp + (1 - 2 * a) * p * (tm - tp))
        )
        assert g == pytest.approx(float(exact), rel=1e-12, abs=1e-15)
    torch = pytest.importorskip("torch")
    from negtheory.bridge.functional import _omega

    tw = _omega(torch.tensor(u, dtype=torch.float64), alpha, beta, tau_plus).numpy()
    np.testing.assert_allclose(tw, got, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("theta", ["theta_dcl", "theta_hcl"])
def test_negative_floor_is_rejected(theta):
    # the clamp is a lower bound of a mean of positive scores: floor >= 0 (the fuzz suite found
    # -5e-324 accepted)
    args = {"beta": 0.0} if theta == "theta_hcl" else {}
    fn = getattr(E, theta)
    with pytest.raises(ValueError, match="floor"):
        fn(np.array([[1.0, 148.4]]), np.array([[7.26]]), tau_plus=0.1, floor=-5e-324, **args)
    assert np.isfinite(
        fn(np.array([[1.0, 148.4]]), np.array([[7.26]]), tau_plus=0.1, floor=0.0, **args)
    ).all()
