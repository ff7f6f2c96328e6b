"""Tests of negtheory.infonce (seed 000) against independent computations.

References used here never call the numba kernels under test:
* P(A) by ``scipy.integrate.quad`` of a *different* formula, P(A) = P(X > max of K negatives)
  = E Phi(mu - Phi^{-1}(U^{1/K})) (the max of K normals is Phi^{-1}(U^{1/K})), and of the
  printed eq. 3 itself where quad handles it;
* closed forms: K = 1 gives Phi(mu / sqrt 2), mu = 0 gives 1 / (K + 1);
* trajectory averages by ``quad`` in t.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from negtheory import infonce


def ref_reliability(mu: float, k: float) -> float:
    """P(A) via the order-statistic form, adaptive quad with relative tolerance 1e-11.

    The max of K standard normals is Phi^{-1}(W^{1/K}), W ~ U(0, 1); with W = e^{-s},
    P(A) = int_0^inf e^{-s} Phi(mu - Phi^{-1}(e^{-s/K})) ds; Phi^{-1}(u) is evaluated as
    ndtri(u) for u < 1/2 and as -ndtri(-expm1(-s/K)) near 1, keeping precision at both ends.
    """

    def integrand(s):
        u = math.exp(-s / k)
        m = special.ndtri(u) if u < 0.5 else -special.ndtri(-math.expm1(-s / k))
        return math.exp(-s) * special.ndtr(mu - m)

    val, err, *_ = integrate.quad(
        integrand, 0.0, np.inf, epsabs=0.0, epsrel=1e-11, limit=500, full_output=1
    )
    assert err <= 1e-9 * val + 1e-300, (mu, k, val, err)
    return val


def ref_reliability_eq3(mu: float, k: float) -> float:
    """The printed eq. 3, int phi(x - mu) Phi(x)^K dx, by quad with break points."""
    f = lambda x: stats.norm.pdf(x - mu) * special.ndtr(x) ** k  # noqa: E731
    lo, hi = min(mu, 0.0) - 12.0, max(mu, 0.0) + 12.0
    pts = np.linspace(lo, hi, 25)
    return integrate.quad(f, lo, hi, points=pts[1:-1], epsabs=1e-15, epsrel=1e-12, limit=500)[0]


# ------------------------------------------------------------------ reliability


def test_reliability_matches_quadrature_at_random_points():
    rng = np.random.default_rng(20261122)
    mus = rng.uniform(-10, 10, 60)
    ks = np.exp(rng.uniform(0.0, math.log(1e6), 60))
    # always include the corners of the stated accuracy range
    mus = np.concatenate([mus, [-10, -10, 10, 10, 0.0, 3.7]])
    ks = np.concatenate([ks, [1.0, 1e6, 1.0, 1e6, 1e6, 1.0]])
    got = infonce.reliability(mus, ks)
    for mu, k, g in zip(mus, ks, got):
        ref = ref_reliability(mu, k)
        # 1e-10 absolute everywhere, and relative accuracy where the value is tiny
        assert abs(g - ref) <= 1e-10, (mu, k, g, ref)
        assert abs(g - ref) <= 1e-9 * ref + 1e-300, (mu, k, g, ref)


@pytest.mark.parametrize(
    "mu,k", [(0.3, 1), (1.0, 4), (2.4, 20), (-1.5, 7.5), (0.954, 5), (4.0, 1000)]
)
def test_reliability_matches_printed_eq3(mu, k):
    assert infonce.reliability(mu, k) == pytest.approx(
        ref_reliability_eq3(mu, k), rel=1e-10, abs=1e-13
    )


def test_k_equal_one_is_closed_form_auc():
    mus = np.linspace(-10, 10, 81)
    got = infonce.reliability(mus, 1)
    want = special.ndtr(mus / math.sqrt(2))
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-14)


def test_mu_zero_gives_uniform_rank():
    # with mu = 0 all K + 1 scores are exchangeable: P = 1 / (K + 1), also for real K
    ks = np.array([1, 2, 3.5, 10, 123.25, 1e4, 1e6])
    np.testing.assert_allclose(infonce.reliability(0.0, ks), 1.0 / (ks + 1.0), rtol=1e-11)


def test_reliability_monotone_in_k_and_mu():
    ks = np.unique(np.round(np.geomspace(1, 1e6, 120), 3))
    for mu in (-5.0, 0.0, 1.0, 6.0):
        p = infonce.reliability(mu, ks)
        assert np.all(np.diff(p) < 0), mu
    mus = np.linspace(-10, 10, 201)
    for k in (1, 37.5, 1e5):
        p = infonce.reliability(mus, k)
        assert np.all(np.diff(p) > 0), k


def test_reliability_extreme_values_finite():
    p = infonce.reliability([-40.0, 40.0, 0.0], [1e6, 1e6, 1e9])
    assert np.all(np.isfinite(p))
    assert p[1] == pytest.approx(1.0)
    assert p[2] == pytest.approx(1 / (1e9 + 1), rel=1e-9)


def test_reliability_broadcasts_and_returns_scalar():
    assert np.ndim(infonce.reliability(1.0, 3)) == 0
    out = infonce.reliability(np.zeros((3, 1)), np.array([1.0, 2.0]))
    assert out.shape == (3, 2)


# ------------------------------------------------------------------ AUC (eq. 7)


def test_auc_closed_form_against_numeric_eq7():
    # eq. 7 exactly as printed: (1/2pi) int e^{-(x-mu)^2/2} [int_{-inf}^x e^{-y^2/2} dy] dx
    for mu in (0.0, 0.5, 0.954, 2.4, 4.0):
        inner = lambda x: math.sqrt(2 * math.pi) * special.ndtr(x)  # noqa: E731
        f = lambda x: math.exp(-((x - mu) ** 2) / 2) * inner(x) / (2 * math.pi)  # noqa: E731
        numeric = integrate.quad(f, -np.inf, np.inf, epsabs=1e-14)[0]
        assert infonce.auc_from_mu(mu) == pytest.approx(numeric, abs=1e-10)
        # and the numeric route through the package's own quadrature
        assert infonce.reliability(mu, 1) == pytest.approx(numeric, abs=1e-12)


def test_auc_closed_form_monte_carlo():
    rng = np.random.default_rng(7)
    n = 400_000
    mu = 0.954
    x = rng.normal(mu, 1, n) > rng.normal(0, 1, n)
    se = math.sqrt(0.25 / n)
    assert abs(x.mean() - infonce.auc_from_mu(mu)) < 5 * se


def test_mu_auc_roundtrip_and_paper_values():
    aucs = np.linspace(0.01, 0.999999, 50)
    np.testing.assert_allclose(infonce.auc_from_mu(infonce.mu_from_auc(aucs)), aucs, rtol=1e-13)
    # the paper: AUC 0.75 -> mu_q "about 1"; AUC ~0.95 <-> mu_q = 2.4
    assert 0.9 < infonce.mu_from_auc(0.75) < 1.0
    assert infonce.auc_from_mu(2.4) == pytest.approx(0.95, abs=0.01)


# ------------------------------------------------------------------ eq. 5-6


def test_fractions_sum_to_one_and_match_definitions():
    k = np.array([1, 2, 4, 16, 100])
    good, bad, easy = infonce.sample_fractions(k, 1.2, 0.6)
    np.testing.assert_allclose(good + bad + easy, 1.0, atol=1e-15)
    a = np.array([ref_reliability(1.2, kk) for kk in k])
    b = np.array([ref_reliability(0.6, kk) for kk in k])
    np.testing.assert_allclose(good, a * (1 - b), rtol=1e-9)
    np.testing.assert_allclose(bad, b * (1 - a), rtol=1e-9)
    assert np.all((good >= 0) & (bad >= 0) & (easy >= 0))


def test_good_equals_bad_when_prediction_matches_labels():
    good, bad, _ = infonce.sample_fractions(np.arange(1, 30), 0.954, 0.954)
    np.testing.assert_allclose(good, bad, rtol=1e-14)


def test_effectiveness_monte_carlo_counts():
    """Simulate eq. 5 literally: N samples, each with K+1 real and K+1 predicted scores."""
    rng = np.random.default_rng(11)
    n, k, mu_q, mu_p, lam = 200_000, 4, 1.0, 0.5, 0.9
    real_a = rng.normal(mu_q, 1, n) > rng.normal(size=(n, k)).max(axis=1)
    pred_b = rng.normal(mu_p, 1, n) > rng.normal(size=(n, k)).max(axis=1)
    good = np.mean(real_a & ~pred_b)
    bad = np.mean(pred_b & ~real_a)
    v_mc = lam * (good - bad) + (1 - lam) * (1 - good - bad)
    g, b, e = infonce.sample_fractions(k, mu_q, mu_p)
    se = math.sqrt(0.25 / n)
    assert abs(good - g) < 5 * se and abs(bad - b) < 5 * se
    assert abs(v_mc - infonce.effectiveness(k, mu_q, mu_p, lam)) < 10 * se


def test_effectiveness_lambda_limits():
    k = np.arange(1, 20)
    a = infonce.reliability(1.5, k)
    b = infonce.reliability(0.7, k)
    np.testing.assert_allclose(infonce.effectiveness(k, 1.5, 0.7, 1.0), a - b, atol=1e-15)
    easy = 1 - a * (1 - b) - b * (1 - a)
    np.testing.assert_allclose(infonce.effectiveness(k, 1.5, 0.7, 0.0), easy, atol=1e-15)


# ------------------------------------------------------------------ trajectory average


def ref_overall(k, mu_q, lam=0.9, t_max=3.0):
    bbar = (
        integrate.quad(
            lambda t: ref_reliability(mu_q * (1 - math.exp(-t)), k), 0, t_max, epsrel=1e-12
        )[0]
        / t_max
    )
    a = ref_reliability(mu_q, k)
    good, bad = a * (1 - bbar), bbar * (1 - a)  # v is linear in P(B): average b, not v
    return lam * (good - bad) + (1 - lam) * (1 - good - bad)


@pytest.mark.parametrize(
    "mu_q,k,lam,t_max",
    [(0.954, 4, 0.9, 3.0), (2.4, 20, 0.9, 3.0), (0.3, 200, 0.7, 2.0), (6.0, 3.5, 0.95, 3.0)],
)
def test_overall_effectiveness_continuous_matches_quad_in_t(mu_q, k, lam, t_max):
    got = infonce.overall_effectiveness(k, mu_q, lam, t_max)
    assert got == pytest.approx(ref_overall(k, mu_q, lam, t_max), abs=1e-10)


def test_overall_effectiveness_discrete_is_mean_of_v_over_linspace():
    mu_q, T = 0.954, 100
    ts = np.linspace(0, 3, T)
    for k in (1, 4, 5, 30):
        v_i = infonce.effectiveness(k, mu_q, mu_q * (1 - np.exp(-ts)), 0.9)
        assert infonce.overall_effectiveness(k, mu_q, steps=T) == pytest.approx(
            v_i.mean(), abs=1e-13
        )


def test_effectiveness_curve_matches_pointwise_algorithm():
    """Shared-grid curve (one x-grid, repeated multiplication) vs per-K adaptive quadrature."""
    ks = np.array([1, 2, 5, 17, 100, 333, 1000])
    for mu_q in (0.0, 0.5, 2.4, 7.0):
        for steps in (None, 100):
            curve = infonce.effectiveness_curve(mu_q, [0.5, 0.9], k_max=1000, steps=steps)
            pointwise = infonce.overall_effectiveness(
                ks, mu_q, np.array([[0.5], [0.9]]), steps=steps
            )
            np.testing.assert_allclose(curve[:, ks - 1], pointwise, atol=1e-12)


def test_paper_optimum_auc_075():
    # the paper reports K* = 4 at training AUC ~0.75; its discrete average (T = 100 steps over
    # t in [0, 3]) reproduces that; the continuous average lands on 5 because v is flat there
    mu = infonce.mu_from_auc(0.75)
    assert infonce.optimal_k(mu, 0.9, steps=100) == 4
    assert infonce.optimal_k_from_auc(0.75, steps=100) == 4
    assert infonce.optimal_k(mu, 0.9) == 5
    v = infonce.effectiveness_curve(mu, 0.9, k_max=10)
    assert abs(v[3] - v[4]) < 1e-4 * v[4]  # documented flatness between K = 4 and 5
    # lambda = 0.95 (orange curve of Fig. 2b) also peaks at 4
    assert infonce.optimal_k(mu, 0.95) == 4


def test_paper_optimum_mu_24():
    # Fig. 3: training AUC about 0.95, mu_q = 2.4, K* "about 20" at lambda = 0.9
    assert infonce.optimal_k(2.4, 0.9, steps=100) == 20
    assert 18 <= infonce.optimal_k(2.4, 0.9) <= 22


def test_fig4_u_shape():
    mus = np.linspace(0.3, 4.0, 38)
    k = infonce.optimal_k(mus)
    i_min = int(np.argmin(k))
    assert 0.6 < mus[i_min] < 1.6  # the minimum sits near mu_q ~ 1
    assert np.all(np.diff(k[: i_min + 1]) <= 0)  # K* grows as mu_q -> 0 ...
    assert np.all(np.diff(k[i_min:]) >= 0)  # ... and as mu_q grows
    assert k[0] > 50 and k[-1] > 50 and k[i_min] <= 5
    assert infonce.optimal_k(0.0) == 1000  # at mu_q = 0 v increases with K


def test_optimal_k_broadcasts():
    out = infonce.optimal_k(np.array([[0.954], [2.4]]), np.array([0.9, 0.95]))
    assert out.shape == (2, 2)
    assert out[0, 0] == 5 and out[1, 0] == infonce.optimal_k(2.4, 0.9)


# ------------------------------------------------------------------ ANS (eq. 8, Fig. 6)


def test_draw_negative_counts_mean_and_support():
    rng = np.random.default_rng(3)
    for k in (1.0, 2.3, 4.75, 19.01):
        c = infonce.draw_negative_counts(k, size=200_000, rng=rng)
        assert set(np.unique(c)) <= {math.floor(k), math.floor(k) + 1}
        frac = k - math.floor(k)
        se = math.sqrt(frac * (1 - frac) / c.size) if frac > 0 else 0.0
        assert abs(c.mean() - k) <= 5 * se + 1e-12


def test_draw_negative_counts_reproducible_and_broadcast():
    a = infonce.draw_negative_counts([1.5, 3.5], size=(1000, 2), rng=42)
    b = infonce.draw_negative_counts([1.5, 3.5], size=(1000, 2), rng=np.random.default_rng(42))
    np.testing.assert_array_equal(a, b)
    assert a.dtype == np.int64 and a.shape == (1000, 2)
    assert set(np.unique(a[:, 0])) == {1, 2} and set(np.unique(a[:, 1])) == {3, 4}
    with pytest.raises(ValueError, match="size"):
        infonce.draw_negative_counts([1.5, 2.5], size=3)


def test_ans_schedule_shape():
    total, k_opt = 1000, 20
    s = np.arange(total + 1)
    k = infonce.ans_schedule(s, total, k_opt)
    assert k[0] == 1 and k[-1] == pytest.approx(1) and k[100] == pytest.approx(k_opt)
    assert np.all(np.diff(k[:101]) > 0) and np.all(np.diff(k[100:]) < 0)
    # rises quickly, declines slowly: slopes differ by (1 - w) / w = 9
    assert (k[1] - k[0]) / (k[100] - k[101]) == pytest.approx(9.0)
    assert np.all(infonce.ans_schedule(s, total, 4, warmup=0.0) <= 4)
    assert infonce.ans_schedule(0, total, 4, warmup=0.0) == 4


# ------------------------------------------------------------------ arbitrary laws


def test_reliability_dist_matches_gaussian_kernel_and_exchangeable_case():
    for mu, k in ((1.0, 4), (2.4, 20), (-1.0, 2.5)):
        assert infonce.reliability_dist(k, stats.norm(mu), stats.norm()) == pytest.approx(
            infonce.reliability(mu, k), rel=1e-8
        )
    for law in (stats.t(4), stats.gamma(2.0), stats.uniform(-1, 2)):
        np.testing.assert_allclose(
            infonce.reliability_dist([1, 3, 99.5], law, law),
            1 / (np.array([1, 3, 99.5]) + 1),
            rtol=1e-8,
        )


def test_reliability_dist_exponential_closed_form():
    # q = c + Exp(1), p = Exp(1): P(X > max) = E[(1 - e^{-X})^K]; for K = 1: 1 - e^{-c}/2
    c = 0.7
    assert infonce.reliability_dist(1, stats.expon(loc=c), stats.expon()) == pytest.approx(
        1 - math.exp(-c) / 2, rel=1e-9
    )


def test_effectiveness_dist_matches_gaussian():
    v = infonce.effectiveness_dist(
        5, stats.norm(1.2), stats.norm(), stats.norm(0.4), stats.norm(), lam=0.8
    )
    assert v == pytest.approx(infonce.effectiveness(5, 1.2, 0.4, 0.8), abs=1e-9)


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: infonce.reliability(np.nan, 3), "mu"),
        (lambda: infonce.reliability(1.0, 0.5), "k"),
        (lambda: infonce.reliability(1.0, np.inf), "k"),
        (lambda: infonce.reliability(1.0, [2, np.nan]), "k"),
        (lambda: infonce.mu_from_auc(1.0), "auc"),
        (lambda: infonce.mu_from_auc(-0.1), "auc"),
        (lambda: infonce.auc_from_mu(np.nan), "mu"),
        (lambda: infonce.effectiveness(3, 1.0, 0.5, lam=1.5), "lam"),
        (lambda: infonce.effectiveness(3, 1.0, 0.5, lam=-0.1), "lam"),
        (lambda: infonce.sample_fractions(3, np.nan, 0.5), "mu_label"),
        (lambda: infonce.sample_fractions(3, 1.0, np.nan), "mu_pred"),
        (lambda: infonce.overall_effectiveness(3, -0.5), "mu_label"),
        (lambda: infonce.overall_effectiveness(3, 1.0, t_max=0.0), "t_max"),
        (lambda: infonce.overall_effectiveness(3, 1.0, steps=0), "steps"),
        (lambda: infonce.optimal_k(1.0, k_max=0), "k_max"),
        (lambda: infonce.optimal_k(25.0), "mu_label"),
        (lambda: infonce.optimal_k_from_auc(0.4), "train_auc"),
        (lambda: infonce.ans_schedule(5, 10, 0.5), "k_opt"),
        (lambda: infonce.ans_schedule(11, 10, 4), "step"),
        (lambda: infonce.ans_schedule(1, 10, 4, warmup=1.5), "warmup"),
        (lambda: infonce.ans_schedule(1, 0, 4), "total_steps"),
        (lambda: infonce.draw_negative_counts(0.5), "k"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()


def test_non_numeric_and_non_distribution_inputs():
    with pytest.raises(TypeError, match="mu"):
        infonce.reliability("one", 3)
    with pytest.raises(TypeError, match="pos"):
        infonce.reliability_dist(3, object(), stats.norm())


@settings(max_examples=40, deadline=None)
@given(
    mu=st.floats(-10, 10, allow_nan=False),
    k=st.floats(1, 1e6, allow_nan=False),
)
def test_property_reliability_in_unit_interval_and_bounded_by_k1(mu, k):
    p = infonce.reliability(mu, k)
    assert 0.0 <= p <= 1.0
    # more negatives can only make the positive less likely to win
    assert p <= infonce.reliability(mu, 1.0) * (1 + 1e-12)


def test_fig5_training_stage_claims():
    """§4.3: early in training the best K is below the global K*; at convergence good = bad and
    v has a local maximum at K = 1 (then rises again once easy samples dominate)."""
    mu = infonce.mu_from_auc(0.75)
    ks = np.arange(1, 51)
    v_early = infonce.effectiveness(ks, mu, 0.25 * mu)
    assert np.argmax(v_early) + 1 < infonce.optimal_k(mu)
    v_end = infonce.effectiveness(ks, mu, mu)
    assert v_end[0] > v_end[1] and v_end[-1] > v_end[0]
    # at mu' = mu_q: v = (1 - lam) (1 - 2 a (1 - a)), a = P(A), by eq. 5-6
    a = np.array([ref_reliability(mu, k) for k in (1, 7, 50)])
    np.testing.assert_allclose(v_end[[0, 6, 49]], 0.1 * (1 - 2 * a * (1 - a)), rtol=1e-9)


def test_ans_schedule_broadcasts_over_k_opt_and_warmup():
    k = infonce.ans_schedule(np.array([[0], [50], [100]]), 100, np.array([2.0, 8.0]), warmup=0.5)
    assert k.shape == (3, 2)
    np.testing.assert_allclose(k[1], [2.0, 8.0])
    np.testing.assert_allclose(k[0], 1.0)
    np.testing.assert_allclose(k[2], 1.0)


def test_reliability_dist_tiny_values_keep_relative_accuracy():
    # a very poor positive law: P(A) ~ 1e-13 at K = 1, known in closed form
    got = infonce.reliability_dist(1, stats.norm(-10.0), stats.norm())
    assert got == pytest.approx(special.ndtr(-10 / math.sqrt(2)), rel=1e-7)
