"""negtheory.dists against independent computations.

References used: the literal thesis formulas written out with the parent's scipy pdf/cdf
(eq. 2.5-2.6, 6.12-6.15, 6.22-6.23), scipy.integrate.quad, scipy.stats.order_statistic
(scipy >= 1.15), the Beta law of uniform order statistics, mpmath roots, finite differences
and Kolmogorov-Smirnov tests at significance 1e-3 with fixed seeds.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import scipy.stats as st
from hypothesis import example, given, settings
from hypothesis import strategies as hst
from scipy import integrate

from negtheory import dists
from negtheory.dists import false_negative, hard_negative, order_statistic, true_negative, unlabeled

PARENTS = {
    "norm": st.norm(0.3, 2.0),
    "uniform": st.uniform(-1.0, 3.0),
    "t4": st.t(4),
    "gamma": st.gamma(2.5, scale=0.7),
}
KS_LEVEL = 1e-3


def literal_pdf(kind, base, x, alpha=None, beta=None, tau_plus=None):
    """The thesis's formulas written out term by term with the parent's scipy pdf / cdf."""
    f, F = base.pdf(x), base.cdf(x)
    phi1 = 2 * f * (1 - F)  # eq. 6.12 (= 2.5, 4.7)
    phi2 = 2 * f * F  # eq. 6.13 (= 2.6, 4.8)
    tn = alpha * phi1 + (1 - alpha) * phi2  # eq. 6.14
    fn = alpha * phi2 + (1 - alpha) * phi1  # eq. 6.15
    if kind == "tn":
        return tn
    if kind == "fn":
        return fn
    if kind == "un":
        return (1 - tau_plus) * tn + tau_plus * fn  # eq. 6.23
    if kind == "thn":  # eq. 6.22, unnormalised
        return (1 - beta) * alpha * phi1 + beta * (1 - alpha) * phi2
    raise AssertionError(kind)


def make(kind, base, alpha, beta=0.7, tau_plus=0.2):
    if kind == "tn":
        return true_negative(base, alpha)
    if kind == "fn":
        return false_negative(base, alpha)
    if kind == "un":
        return unlabeled(base, alpha, tau_plus)
    return hard_negative(base, alpha, beta)


def integrate_over(func, base):
    lo, hi = base.support()
    med = float(base.median())
    return (
        integrate.quad(func, lo, med, limit=200, epsabs=1e-13)[0]
        + integrate.quad(func, med, hi, limit=200, epsabs=1e-13)[0]
    )


# ---------------------------------------------------------------------------------------------
# class-conditional laws
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pname", PARENTS)
@pytest.mark.parametrize("kind", ["tn", "fn", "un", "thn"])
def test_density_matches_thesis_formula_and_integrates_to_one(pname, kind):
    base = PARENTS[pname]
    alpha, beta, tau = 0.8, 0.7, 0.2
    law = make(kind, base, alpha, beta, tau)
    lo, hi = base.ppf(1e-6), base.ppf(1 - 1e-6)
    x = np.linspace(lo, hi, 101)
    ref = literal_pdf(kind, base, x, alpha, beta, tau)
    if kind == "thn":
        z = integrate_over(
            lambda s: literal_pdf("thn", base, s, alpha, beta), base
        )  # Z by quadrature
        assert z == pytest.approx((1 - beta) * alpha + beta * (1 - alpha), rel=1e-9)  # eq. 6.26
        ref = ref / z
    np.testing.assert_allclose(law.pdf(x), ref, rtol=1e-10, atol=1e-300)
    assert (law.pdf(x) >= 0).all()
    # Lemma 6.1: integrates to one
    assert integrate_over(lambda s: float(law.pdf(s)), base) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("pname", PARENTS)
@pytest.mark.parametrize("kind", ["tn", "fn", "un", "thn"])
def test_cdf_is_integral_of_pdf_and_pdf_is_derivative(pname, kind):
    base = PARENTS[pname]
    law = make(kind, base, 0.9)
    lo = base.support()[0]
    start = lo if np.isfinite(lo) else float(base.ppf(1e-14))
    for q in (0.05, 0.3, 0.5, 0.8, 0.99):
        x = float(base.ppf(q))
        area = integrate.quad(lambda s: float(law.pdf(s)), start, x, limit=200, epsabs=1e-14)[0]
        assert float(law.cdf(x)) == pytest.approx(area, abs=2e-10)
        h = 1e-5 * max(1.0, abs(x))
        deriv = (float(law.cdf(x + h)) - float(law.cdf(x - h))) / (2 * h)
        assert float(law.pdf(x)) == pytest.approx(deriv, rel=1e-6, abs=1e-10)


@pytest.mark.parametrize("pname", PARENTS)
@pytest.mark.parametrize("kind", ["tn", "fn", "un", "thn"])
def test_ppf_inverts_cdf_in_both_tails(pname, kind):
    law = make(kind, PARENTS[pname], 0.85)
    q = np.array([1e-13, 1e-6, 0.01, 0.3, 0.5, 0.7, 0.99])
    x = law.ppf(q)
    # tolerance: relative 1e-9 plus what rounding x to a double can move the CDF by
    slack = 4 * law.pdf(x) * np.spacing(np.abs(x))
    assert np.all(np.abs(law.cdf(x) - q) <= 1e-9 * q + slack)
    # upper tail through sf / isf, relative accuracy on the small survival probabilities
    xu = law.isf(q)
    assert np.all(np.abs(law.sf(xu) - q) <= 1e-9 * q + 4 * law.pdf(xu) * np.spacing(np.abs(xu)))
    np.testing.assert_allclose(law.cdf(x) + law.sf(x), 1.0, atol=1e-15)
    assert np.all(np.diff(x) > 0)


def test_alpha_one_gives_the_order_statistics_of_a_pair():
    base = st.norm(0.5, 1.5)
    x = np.linspace(-4, 5, 37)
    f, F = base.pdf(x), base.cdf(x)
    np.testing.assert_allclose(
        true_negative(base, 1.0).pdf(x), 2 * f * (1 - F), rtol=1e-12
    )  # eq. 2.5 / 4.7
    np.testing.assert_allclose(
        false_negative(base, 1.0).pdf(x), 2 * f * F, rtol=1e-12
    )  # eq. 2.6 / 4.8
    np.testing.assert_allclose(
        true_negative(base, 1.0).cdf(x), order_statistic(base, 1, 2).cdf(x), rtol=1e-12
    )
    np.testing.assert_allclose(
        false_negative(base, 1.0).cdf(x), order_statistic(base, 2, 2).cdf(x), rtol=1e-12
    )


def test_alpha_half_gives_the_parent_and_beta_limits():
    base = st.t(5)
    x = np.linspace(-6, 6, 25)
    for law in (
        true_negative(base, 0.5),
        false_negative(base, 0.5),
        unlabeled(base, 0.5, 0.3),
        unlabeled(base, 0.9, 0.5),
    ):
        if law.name == "unlabeled" and law.alpha == 0.9:
            continue
        np.testing.assert_allclose(law.cdf(x), base.cdf(x), rtol=1e-13)
        np.testing.assert_allclose(law.pdf(x), base.pdf(x), rtol=1e-13)
    # beta = 1/2 is phi_TN, beta = 0 the easy component phi_(1), beta = 1 the hard one phi_(2)
    np.testing.assert_allclose(
        hard_negative(base, 0.8, 0.5).pdf(x), true_negative(base, 0.8).pdf(x), rtol=1e-13
    )
    f, F = base.pdf(x), base.cdf(x)
    np.testing.assert_allclose(hard_negative(base, 0.8, 0.0).pdf(x), 2 * f * (1 - F), rtol=1e-12)
    np.testing.assert_allclose(hard_negative(base, 0.8, 1.0).pdf(x), 2 * f * F, rtol=1e-12)
    np.testing.assert_allclose(hard_negative(base, 0.5, 0.0).pdf(x), 2 * f * (1 - F), rtol=1e-12)


def test_unlabeled_is_the_mixture_and_parent_cdf_inverts_eq_6_28():
    base = st.norm()
    x = np.linspace(-5, 5, 41)
    for alpha, tau in [(0.9, 0.1), (0.6, 0.7), (1.0, 0.05)]:
        un = unlabeled(base, alpha, tau)
        mix = (1 - tau) * true_negative(base, alpha).pdf(x) + tau * false_negative(base, alpha).pdf(
            x
        )
        np.testing.assert_allclose(un.pdf(x), mix, rtol=1e-13)
        a = (1 - 2 * alpha) * ((1 - tau) - tau)
        b = 2 * (alpha * (1 - tau) + (1 - alpha) * tau)
        assert (un.a, un.b) == pytest.approx((a, b), rel=1e-14)
        phi = base.cdf(x)
        np.testing.assert_allclose(un.cdf(x), a * phi**2 + b * phi, rtol=1e-13)  # eq. 6.28
        np.testing.assert_allclose(un.parent_cdf(un.cdf(x)), phi, rtol=1e-12, atol=1e-300)
        # the printed root of eq. 6.29 (fine away from a = 0)
        p = un.cdf(x)
        printed = (-b + np.sqrt(b * b + 4 * a * p)) / (2 * a)
        np.testing.assert_allclose(un.parent_cdf(p), printed, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize(
    "alpha, tau", [(0.5, 0.3), (0.8, 0.5), (0.5 + 1e-13, 0.3), (0.8, 0.5 - 1e-12)]
)
def test_parent_cdf_is_exact_at_and_near_a_zero(alpha, tau):
    un = unlabeled(st.norm(), alpha, tau)
    mpmath.mp.dps = 50
    a = (1 - 2 * mpmath.mpf(alpha)) * (1 - 2 * mpmath.mpf(tau))
    b = 2 * (mpmath.mpf(alpha) * (1 - mpmath.mpf(tau)) + (1 - mpmath.mpf(alpha)) * mpmath.mpf(tau))
    for p in (1e-12, 0.2, 0.5, 0.999):
        if a == 0:
            exact = mpmath.mpf(p) / b
        else:
            exact = (-b + mpmath.sqrt(b * b + 4 * a * p)) / (2 * a)
        got = float(un.parent_cdf(p))
        assert got == pytest.approx(float(exact), rel=1e-14)
    assert float(un.parent_cdf(0.0)) == 0.0 and float(un.parent_cdf(1.0)) == pytest.approx(
        1.0, rel=1e-15
    )


def test_tail_accuracy_against_mpmath():
    mpmath.mp.dps = 40
    # max of two standard normals far in the upper tail: sf = 1 - Phi^2 = S (2 - S)
    fn = false_negative(st.norm(), 1.0)
    for x in (5.0, 10.0, 30.0):
        s = mpmath.erfc(x / mpmath.sqrt(2)) / 2
        assert float(fn.sf(x)) == pytest.approx(float(s * (2 - s)), rel=1e-12)
        assert float(fn.isf(float(s * (2 - s)))) == pytest.approx(x, rel=1e-12)
    # lower tail of phi_TN: cdf = 2 alpha u + (1 - 2 alpha) u^2
    tn = true_negative(st.norm(), 0.7)
    for x in (-8.0, -20.0):
        u = mpmath.erfc(-x / mpmath.sqrt(2)) / 2
        assert float(tn.cdf(x)) == pytest.approx(float(1.4 * u - 0.4 * u * u), rel=1e-12)
        assert float(tn.ppf(float(1.4 * u - 0.4 * u * u))) == pytest.approx(x, rel=1e-12)


@pytest.mark.parametrize("pname", PARENTS)
@pytest.mark.parametrize("kind", ["tn", "fn", "un", "thn"])
def test_moments_against_quadrature(pname, kind):
    base = PARENTS[pname]
    law = make(kind, base, 0.75)
    m = integrate_over(lambda s: s * float(law.pdf(s)), base)
    m2 = integrate_over(lambda s: s * s * float(law.pdf(s)), base)
    assert law.mean() == pytest.approx(m, rel=1e-8, abs=1e-10)
    assert law.var() == pytest.approx(m2 - m * m, rel=1e-8)
    assert law.std() == pytest.approx(math.sqrt(m2 - m * m), rel=1e-8)


def test_moment_closed_forms():
    # E max(Z1, Z2) = 1 / sqrt(pi), Var max = 1 - 1/pi for standard normals
    fn = false_negative(st.norm(), 1.0)
    assert fn.mean() == pytest.approx(1 / math.sqrt(math.pi), rel=1e-14)
    assert fn.var() == pytest.approx(1 - 1 / math.pi, rel=1e-13)
    # uniform: phi_TN(alpha=1) = min of two U(0,1) = Beta(1, 2)
    tn = true_negative(st.uniform(), 1.0)
    assert tn.mean() == pytest.approx(1 / 3, rel=1e-14)
    assert tn.var() == pytest.approx(st.beta(1, 2).var(), rel=1e-13)


def test_fast_path_matches_scipy_path():
    for base in (st.norm(-0.4, 1.7), st.uniform(-2.0, 5.0)):
        for law in (
            true_negative(base, 0.83),
            unlabeled(base, 0.7, 0.35),
            hard_negative(base, 0.9, 0.95),
        ):
            slow = dists.QuadraticCDFLaw(base, law.b, law.a)
            slow._parent.kind = dists.KIND_GENERIC  # force the scipy-based numpy path
            assert law.fast and not slow.fast
            x = np.concatenate(
                [base.ppf([1e-12, 1e-5, 0.2, 0.5, 0.9, 1 - 1e-9]), [-np.inf, np.inf]]
            )
            for fn in ("cdf", "sf", "pdf", "logpdf"):
                # atol: scipy's uniform sf is 1 - cdf, ours (hi - x) / (hi - lo), exact near hi
                np.testing.assert_allclose(
                    getattr(law, fn)(x), getattr(slow, fn)(x), rtol=1e-12, atol=1e-16, err_msg=fn
                )
            q = np.array([1e-15, 1e-7, 0.1, 0.5, 0.6, 0.999999])
            np.testing.assert_allclose(law.ppf(q), slow.ppf(q), rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(law.isf(q), slow.isf(q), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("pname", ["norm", "uniform", "t4"])
@pytest.mark.parametrize("kind", ["tn", "fn", "un", "thn"])
def test_rvs_ks(pname, kind):
    law = make(kind, PARENTS[pname], 0.9)
    x = law.rvs(3000, random_state=np.random.default_rng(11))
    assert st.kstest(x, law.cdf).pvalue > KS_LEVEL
    np.testing.assert_array_equal(x, law.rvs(3000, random_state=11))  # int seed == default_rng(int)


def test_scalar_in_scalar_out_and_broadcasting():
    law = true_negative(st.norm(), 0.8)
    for meth in ("pdf", "logpdf", "cdf", "sf", "logcdf", "logsf"):
        v = getattr(law, meth)(0.3)
        assert np.ndim(v) == 0 and isinstance(float(v), float)
        assert getattr(law, meth)(np.zeros((2, 3))).shape == (2, 3)
    assert np.ndim(law.ppf(0.3)) == 0 and law.ppf([[0.1], [0.2]]).shape == (2, 1)
    assert isinstance(law.rvs(random_state=0), float)
    assert law.rvs((4, 5), random_state=0).shape == (4, 5)
    assert law.support() == (-np.inf, np.inf)
    assert float(law.ppf(0.0)) == -np.inf and float(law.ppf(1.0)) == np.inf
    assert float(law.cdf(-np.inf)) == 0.0 and float(law.cdf(np.inf)) == 1.0
    u = true_negative(st.uniform(2, 3), 0.7)
    assert (
        u.support() == (2.0, 5.0) and float(u.pdf(1.0)) == 0.0 and float(u.logpdf(6.0)) == -np.inf
    )
    assert float(u.median()) == pytest.approx(float(u.ppf(0.5)))


# ---------------------------------------------------------------------------------------------
# order statistics
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make_new, base, k, n",
    [
        (
            lambda: st.Normal(mu=1.0, sigma=math.sqrt(5.0)),
            st.norm(1.0, math.sqrt(5.0)),
            2,
            5,
        ),  # thesis Fig. 2.3
        (lambda: st.Normal(), st.norm(), 1, 7),
        (lambda: st.Normal(), st.norm(), 7, 7),
        (lambda: st.make_distribution(st.t)(df=4), st.t(4), 3, 9),
        (lambda: st.make_distribution(st.gamma)(a=2.0), st.gamma(2.0), 10, 40),
    ],
)
def test_order_statistic_matches_scipy(make_new, base, k, n):
    ref = st.order_statistic(make_new(), r=k, n=n)
    g = order_statistic(base, k, n)
    x = np.asarray(ref.icdf(np.array([0.01, 0.2, 0.5, 0.8, 0.99])))
    np.testing.assert_allclose(g.pdf(x), ref.pdf(x), rtol=1e-9)
    np.testing.assert_allclose(g.cdf(x), ref.cdf(x), rtol=1e-9)
    q = np.array([0.001, 0.3, 0.5, 0.9, 0.999])
    np.testing.assert_allclose(g.ppf(q), ref.icdf(q), rtol=1e-8, atol=1e-10)
    assert g.mean() == pytest.approx(float(ref.mean()), rel=1e-7, abs=1e-9)
    assert g.var() == pytest.approx(float(ref.variance()), rel=1e-7)


@pytest.mark.parametrize(
    "k, n",
    [
        (1, 1),
        (1, 2),
        (3, 4),
        (1, 1000),
        (500, 1000),
        (1000, 1000),
        (7, 100_000),
        (100_000, 100_000),
    ],
)
def test_uniform_order_statistic_is_beta(k, n):
    g = order_statistic(st.uniform(), k, n)
    ref = st.beta(k, n - k + 1)
    q = np.array([1e-10, 0.01, 0.5, 0.99, 1 - 1e-10])
    x = ref.ppf(q)
    np.testing.assert_allclose(g.cdf(x), ref.cdf(x), rtol=1e-9)
    np.testing.assert_allclose(g.sf(x), ref.sf(x), rtol=1e-9)
    np.testing.assert_allclose(g.logpdf(x), ref.logpdf(x), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(g.ppf(q), x, rtol=1e-9)
    assert g.mean() == pytest.approx(k / (n + 1), rel=1e-8)
    assert g.var() == pytest.approx(ref.var(), rel=1e-6)


def test_order_statistic_density_is_the_beta_form_and_integrates_to_one():
    base = st.t(3)
    g = order_statistic(base, 4, 6)
    x = np.linspace(-5, 5, 21)
    f, F = base.pdf(x), base.cdf(x)
    literal = (
        math.factorial(6) / (math.factorial(3) * math.factorial(2)) * F**3 * f * (1 - F) ** 2
    )  # §2.3.2
    np.testing.assert_allclose(g.pdf(x), literal, rtol=1e-11)
    assert integrate.quad(lambda s: float(g.pdf(s)), -np.inf, np.inf, limit=200)[
        0
    ] == pytest.approx(1.0, abs=1e-9)


def test_order_statistic_rvs_ks_and_large_n_tail():
    g = order_statistic(st.norm(), 3, 10)
    assert st.kstest(g.rvs(3000, random_state=5), g.cdf).pvalue > KS_LEVEL
    big = order_statistic(st.norm(), 1_000_000, 1_000_000)  # max of a million normals
    x = big.rvs(3000, random_state=6)
    assert st.kstest(x, big.cdf).pvalue > KS_LEVEL
    # the max of n normals: P(max <= x) = Phi(x)^n
    assert float(big.cdf(5.0)) == pytest.approx(math.exp(1e6 * st.norm.logcdf(5.0)), rel=1e-9)


def test_order_statistic_of_a_negtheory_distribution():
    # the larger of two draws of phi_FN(alpha=1) (itself the max of 2) is the max of 4
    inner = false_negative(st.norm(), 1.0)
    g = order_statistic(inner, 2, 2)
    x = np.linspace(-2, 3, 11)
    np.testing.assert_allclose(g.cdf(x), st.norm.cdf(x) ** 4, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", [0.49, 1.01, -1.0, np.nan])
def test_bad_alpha(alpha):
    for ctor in (true_negative, false_negative):
        with pytest.raises(ValueError, match="alpha"):
            ctor(st.norm(), alpha)
    with pytest.raises(ValueError, match="alpha"):
        unlabeled(st.norm(), alpha, 0.1)
    with pytest.raises(ValueError, match="alpha"):
        hard_negative(st.norm(), alpha, 0.5)


@pytest.mark.parametrize("tau", [0.0, 1.0, -0.1, 1.5])
def test_bad_tau_plus(tau):
    with pytest.raises(ValueError, match=r"tau_plus must lie in \(0.0, 1.0\)"):
        unlabeled(st.norm(), 0.8, tau)


@pytest.mark.parametrize("beta", [-0.01, 1.01])
def test_bad_beta(beta):
    with pytest.raises(ValueError, match="beta"):
        hard_negative(st.norm(), 0.8, beta)


def test_hard_negative_without_mass():
    with pytest.raises(ValueError, match="no mass"):
        hard_negative(st.norm(), 1.0, 1.0)
    hard_negative(st.norm(), 1.0, 0.99)  # legal and non-degenerate


@pytest.mark.parametrize("k, n", [(0, 5), (6, 5), (1, 0), (2.5, 5)])
def test_bad_rank(k, n):
    with pytest.raises(ValueError, match="k|n"):
        order_statistic(st.norm(), k, n)


def test_bad_base():
    with pytest.raises(TypeError, match="frozen"):
        true_negative(st.norm, 0.8)
    with pytest.raises(TypeError, match="discrete"):
        true_negative(st.poisson(3), 0.8)
    with pytest.raises(TypeError, match="frozen scipy.stats continuous"):
        order_statistic("norm", 1, 2)
    with pytest.raises(TypeError):
        true_negative(np.random.default_rng(0), 0.8)
    with pytest.raises(ValueError, match="scalar parameters"):
        true_negative(st.norm([0.0, 1.0]), 0.8)


def test_bad_arguments_to_methods():
    law = false_negative(st.norm(), 0.8)
    with pytest.raises(ValueError, match="q must lie in"):
        law.ppf(1.5)
    with pytest.raises(ValueError, match="x must not be NaN"):
        law.pdf(np.nan)
    un = unlabeled(st.norm(), 0.8, 0.2)
    with pytest.raises(ValueError, match="p must lie in"):
        un.parent_cdf(-0.1)


# ---------------------------------------------------------------------------------------------
# generic property suite
# ---------------------------------------------------------------------------------------------
_HYP_PARENTS = [st.norm(), st.uniform(-0.5, 1.0), st.t(3), st.logistic(0.2, 0.5), st.gamma(1.5)]


@settings(max_examples=40, deadline=None)
@given(
    alpha=hst.floats(0.5, 1.0),
    beta=hst.floats(0.0, 1.0),
    tau=hst.floats(1e-6, 1 - 1e-6),
    parent=hst.sampled_from(range(len(_HYP_PARENTS))),
    kind=hst.sampled_from(["tn", "fn", "un", "thn"]),
    qs=hst.lists(hst.floats(1e-9, 1 - 1e-9), min_size=1, max_size=8),
)
@example(
    alpha=0.9921875, beta=0.5382, tau=0.5, parent=0, kind="thn", qs=[1.0000000000000003e-09, 1e-09]
)
def test_property_suite(alpha, beta, tau, parent, kind, qs):
    base = _HYP_PARENTS[parent]
    if kind == "thn" and (1 - beta) * alpha + beta * (1 - alpha) < 1e-6:
        beta = 0.5  # Z ~ 0 is a separate, tested error
    law = make(kind, base, alpha, beta, tau)
    q = np.sort(np.asarray(qs))
    x = law.ppf(q)
    # cdf o ppf = id, monotone quantiles, sf complement
    np.testing.assert_allclose(law.cdf(x), q, rtol=1e-8, atol=1e-12)
    # monotone up to rounding: a root-found quantile may land an ulp or two either side of the
    # exact one, so two q a few ulps apart can swap (CI found q = 1e-9 and 1e-9 + 3e-25)
    assert np.all(np.diff(x) >= -4 * np.spacing(np.abs(x[1:])))
    np.testing.assert_allclose(law.sf(x), 1 - q, rtol=1e-8, atol=1e-12)
    # density: non-negative and equal to the literal formula
    ref = literal_pdf(kind, base, x, alpha, beta, tau)
    if kind == "thn":
        ref = ref / ((1 - beta) * alpha + beta * (1 - alpha))
    pdf = law.pdf(x)
    assert np.all(pdf >= 0)
    np.testing.assert_allclose(pdf, ref, rtol=1e-9, atol=1e-300)
    # the CDF value maps back to the parent CDF (eq. 6.29)
    np.testing.assert_allclose(law.parent_cdf(q), base.cdf(x), rtol=1e-8, atol=1e-13)
    # unlabeled = mixture (eq. 6.23)
    if kind == "un":
        mix = (1 - tau) * true_negative(base, alpha).pdf(x) + tau * false_negative(base, alpha).pdf(
            x
        )
        np.testing.assert_allclose(pdf, mix, rtol=1e-10, atol=1e-300)


@settings(max_examples=15, deadline=None)
@given(
    alpha=hst.floats(0.5, 1.0),
    parent=hst.sampled_from(range(len(_HYP_PARENTS))),
    kind=hst.sampled_from(["tn", "fn", "un", "thn"]),
)
def test_property_normalisation(alpha, parent, kind):
    base = _HYP_PARENTS[parent]
    law = make(kind, base, alpha, 0.3, 0.4)
    assert integrate_over(lambda s: float(law.pdf(s)), base) == pytest.approx(1.0, abs=1e-8)


# --------------------------------------------------------------------------------------------
# order_statistic: normal-parent fast paths
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("k,n", [(1, 1), (2, 5), (1, 1000), (1000, 1000), (300, 1000)])
def test_order_statistic_normal_fast_paths_match_independent_formulas(k, n):
    from scipy.special import betainc, betaincinv, betaln, log_ndtr, ndtri

    mu, sigma = 0.5, 1.7
    g = dists.order_statistic(st.norm(mu, sigma), k, n)
    x = np.concatenate([np.linspace(-80, 80, 401), [-np.inf, np.inf]])
    z = (x - mu) / sigma
    with np.errstate(invalid="ignore"):
        ref = -0.5 * z * z - np.log(sigma) - 0.5 * np.log(2 * np.pi) - betaln(k, n - k + 1)
        if k > 1:
            ref = ref + (k - 1) * log_ndtr(z)
        if n > k:
            ref = ref + (n - k) * log_ndtr(-z)
    ref = np.where(np.isnan(ref), -np.inf, ref)
    got = g.logpdf(x)
    fin = np.isfinite(ref)
    np.testing.assert_allclose(got[fin], ref[fin], rtol=1e-12)
    assert np.all(got[~fin] == -np.inf)
    xs = np.linspace(-6, 8, 57)
    np.testing.assert_allclose(
        g.cdf(xs), betainc(k, n - k + 1, st.norm.cdf(xs, mu, sigma)), rtol=1e-13, atol=1e-300
    )
    np.testing.assert_allclose(
        g.sf(xs), betainc(n - k + 1, k, st.norm.sf(xs, mu, sigma)), rtol=1e-13, atol=1e-300
    )
    # quantiles: the two-call form (betaincinv, then the parent's ppf / isf) and a round trip
    q = np.concatenate([np.geomspace(1e-12, 0.5, 40), 1 - np.geomspace(1e-12, 0.5, 40)])
    x_q = g.ppf(q)
    lower = q < 0.5
    np.testing.assert_allclose(
        x_q[lower], mu + sigma * ndtri(betaincinv(k, n - k + 1, q[lower])), rtol=1e-10, atol=1e-12
    )
    np.testing.assert_allclose(g.cdf(x_q[lower]), q[lower], rtol=1e-9)
    np.testing.assert_allclose(g.sf(x_q[~lower]), 1 - q[~lower], rtol=1e-9)
    x_i = g.isf(q)
    np.testing.assert_allclose(g.sf(x_i[lower]), q[lower], rtol=1e-9)
    np.testing.assert_allclose(g.cdf(x_i[~lower]), 1 - q[~lower], rtol=1e-9)


@pytest.mark.parametrize(
    "k,n", [(2, 2), (3, 10), (50, 60), (300, 1000), (999, 1000), (5000, 10000)]
)
@pytest.mark.parametrize("points", [200, 3000])  # 3000: the start tables are built and used
def test_order_statistic_normal_ppf_kernel_against_scipy(k, n, points):
    """numba quantile solver (Halley on log I_{Phi(z)}) against scipy's betaincinv + ndtri where
    that composition is accurate (q < 1/2), and round trips through scipy's betainc in both
    tails down to q = 1e-300."""
    from scipy.special import betainc, betaincinv, ndtr, ndtri

    mu, sigma = 0.5, 1.7
    g = dists.order_statistic(st.norm(mu, sigma), k, n)
    m = points // 2
    q_lo = np.geomspace(1e-300, 0.5, m, endpoint=False)
    q_hi = 1.0 - np.geomspace(1e-16, 0.5, points - m)
    q = np.concatenate([q_lo, q_hi])
    x = g.ppf(q)
    ref = mu + sigma * ndtri(betaincinv(k, n - k + 1, q_lo))
    ok = np.isfinite(ref) & (q_lo > 1e-250)
    np.testing.assert_allclose(x[:m][ok], ref[ok], rtol=1e-12, atol=1e-12)
    z = (x - mu) / sigma
    # round trips through scipy's betainc (itself off by up to ~1e-6 relative below ~1e-290:
    # the deepest points are checked with mpmath below)
    d = q_lo > 1e-280
    np.testing.assert_allclose(betainc(k, n - k + 1, ndtr(z[:m]))[d], q_lo[d], rtol=1e-11)
    np.testing.assert_allclose(betainc(n - k + 1, k, ndtr(-z[m:])), 1.0 - q_hi, rtol=1e-11)
    xi = g.isf(q)
    zi = (xi - mu) / sigma
    np.testing.assert_allclose(betainc(n - k + 1, k, ndtr(-zi[:m]))[d], q_lo[d], rtol=1e-11)
    np.testing.assert_allclose(betainc(k, n - k + 1, ndtr(zi[m:])), 1.0 - q_hi, rtol=1e-11)
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(40):
        for zz, qq, kk in ((z[0], q_lo[0], k), (zi[0], q_lo[0], n - k + 1)):
            sgn = 1 if kk == k else -1
            got = mpmath.betainc(kk, n - kk + 1, 0, mpmath.ncdf(sgn * zz), regularized=True)
            assert abs(float(got) / qq - 1) < 1e-11
    o = np.argsort(q, kind="stable")
    assert np.all(np.diff(x[o]) >= 0)
