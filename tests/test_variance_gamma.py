"""The variance-gamma prior of inner products (thesis ch. 3, Lemma 3.1, eq. 3.6-3.22).

Every check is against something independent of negtheory.variance_gamma: the Bessel-function
formula of eq. 3.18 evaluated with scipy.special or mpmath, scipy.integrate.quad, Monte-Carlo
inner products of real Gaussian vectors, closed forms (d = 1, d = 2, the characteristic
function, moments) and the Edgeworth expansion of the normal limit.
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
import scipy.stats
from scipy import integrate, special

from negtheory.variance_gamma import InnerProduct, inner_product

KS_ALPHA = 1e-3  # significance level of the Kolmogorov-Smirnov tests (fixed seeds)


def pdf_eq318(x, d, lam):
    """Eq. 3.18 with scipy's exponentially scaled K_nu (valid where kve does not overflow)."""
    z = np.abs(np.asarray(x, dtype=float)) / lam
    nu = 0.5 * (d - 1)
    with np.errstate(divide="ignore"):
        logf = (
            -math.log(lam)
            - 0.5 * math.log(math.pi)
            - special.gammaln(d / 2)
            + nu * np.log(z / 2)
            + np.log(special.kve(nu, z))
            - z
        )
    return np.exp(logf)


def mp_logpdf(x, d, lam, dps=50):
    """Eq. 3.18 in mpmath at ``dps`` digits."""
    with mpmath.workdps(dps):
        z = mpmath.mpf(abs(x)) / lam
        nu = mpmath.mpf(d - 1) / 2
        return float(
            -mpmath.log(lam)
            - mpmath.log(mpmath.sqrt(mpmath.pi))
            - mpmath.loggamma(mpmath.mpf(d) / 2)
            + nu * mpmath.log(z / 2)
            + mpmath.log(mpmath.besselk(nu, z))
        )


def quad(f, a, b, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", integrate.IntegrationWarning)
        return integrate.quad(f, a, b, epsabs=0.0, epsrel=1e-12, limit=200, **kw)[0]


# --------------------------------------------------------------------------------------------
# density
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("d", [1, 2, 3, 5, 27, 128, 1024])
def test_pdf_integrates_to_one(d):
    X = inner_product(d, 0.2)
    s = math.sqrt(d) * 0.2
    pts = [0.0, 0.5 * s, 2 * s, 8 * s, 30 * s]
    half = sum(quad(X.pdf, a, b) for a, b in zip(pts[:-1], pts[1:])) + quad(X.pdf, pts[-1], np.inf)
    assert abs(2 * half - 1.0) < 1e-10


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5, 10, 27, 64, 128])
def test_pdf_matches_eq_3_18_with_scipy_bessel(d):
    lam = 0.37
    x = np.concatenate([-np.logspace(-2, 1.5, 30), np.logspace(-2, 1.5, 30)]) * math.sqrt(d) * lam
    np.testing.assert_allclose(inner_product(d, lam).pdf(x), pdf_eq318(x, d, lam), rtol=1e-12)


def test_d1_is_k0_over_pi_lam():
    lam = 1.7
    x = np.concatenate([np.logspace(-12, 2.5, 80), -np.logspace(-5, 1, 7)])
    np.testing.assert_allclose(
        inner_product(1, lam).pdf(x), special.k0(np.abs(x) / lam) / (math.pi * lam), rtol=1e-13
    )
    assert inner_product(1, lam).pdf(0.0) == np.inf


def test_d2_is_laplace():
    lam = 0.8
    X, L = inner_product(2, lam), scipy.stats.laplace(scale=lam)
    x = np.linspace(-30, 30, 121)
    np.testing.assert_allclose(X.pdf(x), L.pdf(x), rtol=1e-14)
    np.testing.assert_allclose(X.cdf(x), L.cdf(x), rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(X.sf(x), L.sf(x), rtol=1e-14, atol=1e-300)
    q = np.array([1e-200, 1e-10, 0.1, 0.3, 0.5, 0.77, 0.999])
    np.testing.assert_allclose(X.ppf(q), L.ppf(q), rtol=1e-13)


@pytest.mark.parametrize("d", [1, 2, 5, 27, 128])
def test_ks_against_inner_products_of_gaussian_vectors(d):
    """X = <w, h>, w, h with i.i.d. N(0, lam) entries (Lemma 3.1), KS at level 1e-3."""
    lam = 0.05
    rng = np.random.default_rng(1000 + d)
    n = 20_000
    w = rng.normal(0.0, math.sqrt(lam), size=(n, d))
    h = rng.normal(0.0, math.sqrt(lam), size=(n, d))
    sample = np.einsum("ij,ij->i", w, h)
    X = inner_product(d, lam)
    assert scipy.stats.kstest(sample, X.cdf).pvalue > KS_ALPHA
    # the test has power: the normal law with the same variance is rejected for small d
    if d <= 5:
        assert scipy.stats.kstest(sample, scipy.stats.norm(0, X.std()).cdf).pvalue < KS_ALPHA


@pytest.mark.parametrize("d", [1, 5, 128])
def test_rvs_exact_sampler_matches_cdf(d):
    X = inner_product(d, 2.0)
    sample = X.rvs(20_000, random_state=7)
    assert scipy.stats.kstest(sample, X.cdf).pvalue > KS_ALPHA
    np.testing.assert_array_equal(sample, X.rvs(20_000, random_state=7))
    assert isinstance(X.rvs(random_state=1), float)
    assert X.rvs(size=(2, 3), random_state=1).shape == (2, 3)


@pytest.mark.parametrize("d", [1, 3, 8])
@pytest.mark.parametrize("t", [0.3, 1.0, 2.5])
def test_characteristic_function(d, t):
    """2 int_0^inf cos(t x) f(x) dx = (1 + lam^2 t^2)^(-d/2) (eq. 3.11 rescaled by X = lam Y / 2)."""
    lam = 0.7
    X = inner_product(d, lam)
    inner = quad(lambda x: math.cos(t * x) * X.pdf(x), 0.0, 1.0)
    outer = integrate.quad(X.pdf, 1.0, np.inf, weight="cos", wvar=t, epsabs=1e-13, limlst=100)[0]
    expected = (1.0 + lam**2 * t**2) ** (-d / 2)
    assert abs(2 * (inner + outer) - expected) < 1e-10
    assert X.cf(t) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("d", [1, 2, 3, 511, 512, 1023, 1024])
def test_logpdf_against_mpmath_tiny_and_huge_x(d):
    lam = 0.01
    X = inner_product(d, lam)
    xs = [
        1e-300,
        1e-30,
        1e-8 * lam,
        1e-3 * lam,
        0.7 * lam,
        2.0 * lam,
        25 * lam,
        300 * lam,
        1e4 * lam,
        1e6 * lam,
    ]
    got = X.logpdf(np.array(xs))
    assert np.all(np.isfinite(got))
    for x, g in zip(xs, got):
        ref = mp_logpdf(x, d, lam)
        assert abs(g - ref) <= 2e-14 * max(1.0, abs(ref)), (x, g, ref)
    # x -> 0 limit: Gamma(nu) / (2 sqrt(pi) Gamma(d/2)) / lam for d >= 2
    if d >= 2:
        nu = (d - 1) / 2
        ref0 = special.gammaln(nu) - math.log(2 * math.sqrt(math.pi) * lam) - special.gammaln(d / 2)
        assert X.logpdf(0.0) == pytest.approx(ref0, rel=1e-14)
        assert X.logpdf(-1e-300) == pytest.approx(ref0, rel=1e-14)


# --------------------------------------------------------------------------------------------
# distribution function and quantiles
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("d", [1, 2, 3, 5, 27, 128])
def test_cdf_against_quad(d):
    lam = 0.3
    s = math.sqrt(d) * lam
    X = inner_product(d, lam)
    xs = np.array([0.05, 0.3, 1.0, 2.5, 6.0, 12.0]) * s
    for x in xs:
        ref_sf = quad(lambda t: pdf_eq318(t, d, lam), x, x + s) + quad(
            lambda t: pdf_eq318(t, d, lam), x + s, np.inf
        )
        assert abs(X.sf(x) - ref_sf) < 1e-13
        assert abs(X.cdf(-x) - ref_sf) < 1e-13
        assert abs(X.cdf(x) - (1.0 - ref_sf)) < 1e-13
        assert X.sf(x) == pytest.approx(ref_sf, rel=1e-10)  # relative accuracy in the tail too


@pytest.mark.parametrize(
    "d,z", [(1, 40.0), (3, 60.0), (4, 150.0), (27, 900.0), (1023, 2500.0), (1024, 40.0)]
)
def test_far_tail_logsf_against_gamma_difference(d, z):
    """log S(z) deep in the tail against eq. 3.8 read as X = G1 - G2, G ~ Gamma(d/2) (lam = 1):
    S(z) = E[Q(d/2, G2 + z)], Q the regularised upper incomplete gamma; mpmath at 30 digits
    with the factor e^-z taken out."""
    X = inner_product(d, 1.0)
    with mpmath.workdps(30):
        a = mpmath.mpf(d) / 2
        zz = mpmath.mpf(z)

        def integrand(y):
            if y <= 0:
                return mpmath.mpf(0)
            return mpmath.exp(
                (a - 1) * mpmath.log(y) - y - mpmath.loggamma(a) + zz
            ) * mpmath.gammainc(a, y + zz, mpmath.inf, regularized=True)

        ref = float(
            mpmath.log(
                mpmath.quad(integrand, [0, 1, a, 3 * a + 10, 10 * a + 50, 30 * a + 150, mpmath.inf])
            )
            - zz
        )
    assert X.logsf(z) == pytest.approx(ref, rel=1e-13)
    assert X.logcdf(-z) == pytest.approx(ref, rel=1e-13)


def test_cdf_symmetry_and_complement():
    X = inner_product(7, 0.4)
    x = np.linspace(-20, 20, 401)
    np.testing.assert_array_equal(X.cdf(-x), X.sf(x))
    np.testing.assert_allclose(X.cdf(x) + X.sf(x), 1.0, rtol=0, atol=2e-16)
    assert X.cdf(0.0) == 0.5 and X.sf(0.0) == 0.5
    assert X.cdf(-np.inf) == 0.0 and X.cdf(np.inf) == 1.0
    assert np.all(np.diff(X.cdf(x)) >= 0)
    assert np.all(np.diff(X.cdf(x[x <= 0])) > 0) and np.all(np.diff(X.sf(x[x >= 0])) < 0)


@pytest.mark.parametrize("d", [1, 2, 3, 6, 27, 1024])
def test_ppf_inverts_cdf(d):
    X = inner_product(d, 0.6)
    q = np.concatenate([np.logspace(-300, -1, 40), np.linspace(0.02, 0.98, 25)])
    x = X.ppf(q)
    np.testing.assert_allclose(X.cdf(x), q, rtol=1e-12)
    np.testing.assert_allclose(X.sf(X.isf(q)), q, rtol=1e-12)
    np.testing.assert_array_equal(X.isf(q), -x)
    assert X.ppf(0.0) == -np.inf and X.ppf(1.0) == np.inf and X.ppf(0.5) == 0.0
    lo, hi = X.interval(0.9)
    assert X.cdf(hi) - X.cdf(lo) == pytest.approx(0.9, rel=1e-13)


def test_normal_limit_with_edgeworth_rate():
    """sup |F_d(x sqrt(d) lam) - Phi(x)| ~ max|phi He_3| / (4 d): Edgeworth with kappa_4 = 6/d."""
    x = np.linspace(-6, 6, 2401)
    const = np.max(np.abs(scipy.stats.norm.pdf(x) * (x**3 - 3 * x))) / 4
    devs = []
    for d in (16, 64, 256, 1024):
        X = inner_product(d, 0.3)
        dev = np.max(np.abs(X.cdf(x * math.sqrt(d) * 0.3) - scipy.stats.norm.cdf(x)))
        devs.append(dev)
        assert d * dev == pytest.approx(const, rel=5.0 / d)
    assert devs[-1] < 2e-4
    assert all(a > b for a, b in zip(devs[:-1], devs[1:]))


def test_moments_against_quadrature():
    d, lam = 5, 0.45
    X = inner_product(d, lam)
    s = math.sqrt(d) * lam
    m2 = 2 * (
        quad(lambda x: x * x * X.pdf(x), 0, 3 * s) + quad(lambda x: x * x * X.pdf(x), 3 * s, np.inf)
    )
    m4 = 2 * (
        quad(lambda x: x**4 * X.pdf(x), 0, 3 * s) + quad(lambda x: x**4 * X.pdf(x), 3 * s, np.inf)
    )
    assert X.var() == pytest.approx(m2, rel=1e-10) and X.var() == pytest.approx(
        d * lam**2, rel=1e-15
    )
    assert m4 / m2**2 - 3 == pytest.approx(X.kurtosis(), rel=1e-9)
    assert X.mean() == 0.0 and X.median() == 0.0 and X.std() == pytest.approx(math.sqrt(d) * lam)
    assert X.support() == (-np.inf, np.inf)


def test_scalar_in_scalar_out_and_broadcasting():
    X = inner_product(3, 1.0)
    assert (
        isinstance(X.pdf(0.5), float)
        and isinstance(X.cdf(0.5), float)
        and isinstance(X.ppf(0.5), float)
    )
    assert X.pdf(np.zeros((2, 3))).shape == (2, 3)
    assert X.logpdf([[1.0], [2.0]]).shape == (2, 1)
    assert X.ppf([]).shape == (0,)
    assert isinstance(X, InnerProduct) and "d=3" in repr(X)


@pytest.mark.parametrize(
    "d,lam",
    [
        (0, 1.0),
        (-3, 1.0),
        (2.5, 1.0),
        (3, 0.0),
        (3, -1.0),
        (3, np.nan),
        (3, np.inf),
        (3, [1.0, 2.0]),
    ],
)
def test_bad_parameters_raise_value_error(d, lam):
    with pytest.raises(ValueError, match="d|lam"):
        inner_product(d, lam)


@pytest.mark.parametrize("d,lam", [("3", 1.0), (True, 1.0), (3, "1"), (3, True), (3, None)])
def test_parameters_of_the_wrong_type_raise_type_error(d, lam):
    with pytest.raises(TypeError, match="d|lam"):
        inner_product(d, lam)


def test_bad_arguments():
    X = inner_product(3, 1.0)
    with pytest.raises(ValueError, match="x"):
        X.pdf(np.nan)
    with pytest.raises(ValueError, match="q"):
        X.ppf(1.5)
    assert inner_product(4.0, 1).d == 4  # an integral float is accepted


# --------------------------------------------------------------------------------------------
# the posterior g = 2 F f of eq. 3.22
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("d", [1, 2, 27])
def test_posterior_is_two_F_f(d):
    from negtheory.dists import order_statistic

    lam = 0.5
    g = order_statistic(inner_product(d, lam), 2, 2)
    s = math.sqrt(d) * lam
    for x in np.array([-3.0, -0.4, 0.1, 1.0, 4.0]) * s:
        F = 0.5 + math.copysign(quad(lambda t: pdf_eq318(t, d, lam), 0.0, abs(x)), x)
        assert g.pdf(x) == pytest.approx(2 * F * pdf_eq318(x, d, lam), rel=1e-10)
        assert g.cdf(x) == pytest.approx(F * F, rel=1e-10)
    if d == 1:  # the log singularity at 0 makes the quadratures below slow; d >= 2 covers them
        return
    # normalised, and E[max(X1, X2)] = E|X1 - X2| / 2 = lam Gamma(d + 1/2) / (sqrt(pi) Gamma(d))
    total = quad(g.pdf, -np.inf, 0.0) + quad(g.pdf, 0.0, np.inf)
    assert total == pytest.approx(1.0, abs=1e-10)
    mean = lam * math.exp(special.gammaln(d + 0.5) - special.gammaln(d)) / math.sqrt(math.pi)
    assert g.mean() == pytest.approx(mean, rel=1e-9)


def test_posterior_matches_max_of_two_gaussian_inner_products():
    from negtheory.bprac import posterior

    d, lam = 5, 0.1
    rng = np.random.default_rng(55)
    n = 20_000
    scores = np.einsum(
        "kij,kij->ki",
        rng.normal(0, math.sqrt(lam), (2, n, d)),
        rng.normal(0, math.sqrt(lam), (2, n, d)),
    )
    assert scipy.stats.kstest(scores.max(axis=0), posterior(d, lam).cdf).pvalue > KS_ALPHA


def test_figures_3_2_and_3_3_plot_eq_3_18_and_2F_f():
    pytest.importorskip("matplotlib")
    from negtheory.figures import registry, thesis_vg

    assert {"thesis_fig3_2_vg_prior", "thesis_fig3_3_vg_posterior"} <= set(registry())
    prior_ax = thesis_vg.fig_vg_prior().axes[0]
    post_ax = thesis_vg.fig_vg_posterior().axes[0]
    solid = [ln for ln in post_ax.lines if ln.get_linestyle() == "-"]
    assert len(prior_ax.lines) == len(thesis_vg.DIMS)
    assert len(solid) == len(thesis_vg.DIMS_POSTERIOR) and set(thesis_vg.DIMS_POSTERIOR) <= set(
        thesis_vg.DIMS
    )
    prior_of = dict(zip(thesis_vg.DIMS, prior_ax.lines))
    for d, gl in zip(thesis_vg.DIMS_POSTERIOR, solid):
        x, y = prior_of[d].get_data()
        xg, g = gl.get_data()
        np.testing.assert_array_equal(x, xg)
        for k in range(7, len(x), 97):  # a sample of the plotted points (x != 0)
            f = pdf_eq318(x[k], d, 1.0)
            F = 0.5 + math.copysign(quad(lambda t: pdf_eq318(t, d, 1.0), 0.0, abs(x[k])), x[k])
            assert y[k] == pytest.approx(f, rel=1e-11)
            assert g[k] == pytest.approx(2 * F * f, rel=1e-9)


@pytest.mark.parametrize("d", [512, 777, 2048, 4096])
def test_large_d_logpdf_debye_expansion_agrees_with_the_exact_ladder(d):
    """d >= 512: logpdf by Debye's expansion of K_nu (O(1) per point); the ladder (O(d), exact
    recurrences, a different algorithm) is the reference."""
    from negtheory.variance_gamma import _DEBYE_MIN_D, _vg_log_pdf_debye, _vg_log_pdf_sf

    assert d >= _DEBYE_MIN_D
    sd = math.sqrt(d)
    with mpmath.workdps(
        40
    ):  # z = 0: Gamma(nu) / (2 sqrt(pi) Gamma(d/2)) (the ladder's lgamma difference loses digits)
        nu = mpmath.mpf(d - 1) / 2
        ref0 = float(
            mpmath.loggamma(nu)
            - mpmath.log(2 * mpmath.sqrt(mpmath.pi))
            - mpmath.loggamma(nu + mpmath.mpf(1) / 2)
        )
    assert abs(_vg_log_pdf_debye(d, 0.0) - ref0) <= 1e-14 * abs(ref0)
    for z in [1e-300, 1e-6, 0.3 * sd, sd, 3 * sd, 10 * sd, 1e3, 1e4, 1e6]:
        ref = _vg_log_pdf_sf(d, z)[0]
        got = _vg_log_pdf_debye(d, z)
        assert abs(got - ref) <= 1e-13 * max(1.0, abs(ref)), (z, got, ref)
    assert _vg_log_pdf_debye(d, math.inf) == -math.inf
    X = inner_product(d, 0.3)
    x = np.array([-2.0 * sd, 0.0, 0.1, 5.0 * sd])
    np.testing.assert_allclose(
        X.pdf(x), [math.exp(_vg_log_pdf_sf(d, abs(v) / 0.3)[0]) / 0.3 for v in x], rtol=1e-12
    )


@pytest.mark.parametrize("d", [512, 513, 1024, 1025, 4096])
def test_large_d_logsf_mixture_quadrature_agrees_with_the_exact_ladder(d):
    """d >= 512: log S by the normal-mixture integral (12-point Gauss-Hermite, O(1) per point)
    against the survival ladder (O(d), exact recurrences): within 2e-12 relative in S (1e-12 of
    |log S| far out), from z = 0 to 1e7 and through log S ~ -1e7."""
    from negtheory.variance_gamma import _MIX_MIN_D, _vg_log_pdf_sf, _vg_log_sf_mixture

    assert d >= _MIX_MIN_D
    sd = math.sqrt(d)
    for z in [
        1e-300,
        1e-3,
        1.0,
        0.1 * sd,
        0.5 * sd,
        sd,
        2 * sd,
        3 * sd,
        5 * sd,
        8 * sd,
        12 * sd,
        20 * sd,
        40 * sd,
        1e4,
        1e5,
        1e7,
    ]:
        ref = _vg_log_pdf_sf(d, z)[1]
        got = _vg_log_sf_mixture(d, z)
        assert abs(got - ref) <= 2e-12 * max(1.0, abs(ref)), (z, got, ref)
    assert _vg_log_sf_mixture(d, math.inf) == -math.inf


@pytest.mark.parametrize("d", [1024, 4096])
def test_large_d_cdf_sf_ppf_against_quad(d):
    """The O(1) cdf / sf at d >= 512 against adaptive quadrature of the density, and ppf / isf
    round trips down to 1e-300 (the Newton iteration uses the O(1) log-pdf and log-sf)."""
    X = inner_product(d, 0.3)
    sd = 0.3 * math.sqrt(d)
    x = np.array([-8.0, -3.0, -1.0, -0.2, 0.5, 2.0, 5.0, 9.0]) * sd
    pdf = lambda t: float(X.pdf(t))  # noqa: E731
    ref = np.array([quad_tail(pdf, v) for v in x])
    np.testing.assert_allclose(np.where(x < 0, X.cdf(x), X.sf(x)), ref, rtol=1e-11)
    assert X.cdf(0.0) == pytest.approx(0.5, rel=1e-14)
    q = np.array([1e-300, 1e-40, 1e-10, 0.01, 0.3, 0.7, 0.99, 1 - 1e-12])
    xq = X.ppf(q)
    lo = q < 0.5
    np.testing.assert_allclose(X.cdf(xq[lo]), q[lo], rtol=1e-11)
    np.testing.assert_allclose(X.sf(xq[~lo]), 1 - q[~lo], rtol=1e-11)
    np.testing.assert_allclose(X.isf(q), -xq, rtol=1e-14)


def quad_tail(pdf, x):
    """P(X < x) for x < 0, P(X > x) for x > 0, by adaptive quadrature of the density."""
    if x < 0:
        return integrate.quad(pdf, -np.inf, x, epsabs=0, epsrel=1e-13, limit=200)[0]
    return integrate.quad(pdf, x, np.inf, epsabs=0, epsrel=1e-13, limit=200)[0]


@pytest.mark.parametrize(
    "lam, x",
    [
        (3.3104572061576994e207, 3.21760548249124e-221),  # fuzz: z = |x| / lam underflows to 0
        (7.45e299, 5.83e-100),
        (7.45e299, -1.9e-145),
        (7.45e299, 3.04e162),  # z = 4e-138: representable, the log form is used below 1e-100
        (1.0, 1e-120),
    ],
)
def test_d1_density_where_z_underflows(lam, x):
    # d = 1: f = K0(|x| / lam) / (pi lam) diverges only at x = 0; for x != 0 it is finite even
    # where |x| / lam underflows -- against mpmath's K0 at 50 digits
    mpmath.mp.dps = 50
    want = mpmath.besselk(0, abs(mpmath.mpf(x)) / mpmath.mpf(lam)) / (mpmath.pi * mpmath.mpf(lam))
    X = inner_product(1, lam)
    assert float(X.logpdf(x)) == pytest.approx(float(mpmath.log(want)), rel=1e-14, abs=1e-13)
    assert np.isfinite(X.pdf(x))
    # the density of the larger of two draws (eq. 3.22), 2 F(x) f(x): F(x) = 1/2 + O(z log z)
    # with z < 1e-100 here, so g = f to double precision
    from negtheory.variance_gamma import _vg_log_posterior

    assert _vg_log_posterior(1, lam, x) == pytest.approx(
        float(mpmath.log(want)), rel=1e-13, abs=1e-12
    )
