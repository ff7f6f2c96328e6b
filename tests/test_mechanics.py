"""Tests of negtheory.mechanics (seed 001, "Principles and Mechanisms").

Independent references: closed forms (binary entropy, the NCE pointwise maximiser, the
geometric sum and integral of the exclusion window, the hypergeometric law from scipy.stats),
mpmath at 50 digits for the InfoNCE/hinge numbers, central finite differences for
dH/dtau, scipy.optimize for the NCE maximiser, brute-force loops for k_min and mining, and
Monte-Carlo simulations with fixed seeds (tolerance: 4 standard errors).
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, stats

from negtheory import mechanics as mech

mpmath.mp.dps = 50


# ------------------------------------------------------------------ NCE


def test_nce_optimum_is_log_ratio_minus_log_k():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(6))
    q = rng.dirichlet(np.ones(6))
    k = 3.0
    res = optimize.minimize(
        lambda g: -mech.nce_objective(g, p, q, k),
        np.zeros(6),
        method="BFGS",
        options={"gtol": 1e-12},
    )
    np.testing.assert_allclose(res.x, np.log(p / (k * q)), atol=1e-5)
    np.testing.assert_allclose(
        mech.nce_optimal_score(p, q, k), np.log(p) - np.log(q) - math.log(k), rtol=1e-14
    )


def test_nce_objective_explicit_sum_and_batch():
    p = np.array([0.5, 0.3, 0.2])
    q = np.array([0.2, 0.2, 0.6])
    g = np.array([[0.1, -2.0, 30.0], [0.0, 0.0, 0.0]])
    sig = lambda x: 1 / (1 + mpmath.exp(-mpmath.mpf(x)))  # noqa: E731  (50 digits: 1 - sigma(30) is exact)
    want = [
        float(
            sum(
                p[i] * mpmath.log(sig(gg[i])) + 2 * q[i] * mpmath.log(1 - sig(gg[i]))
                for i in range(3)
            )
        )
        for gg in g
    ]
    np.testing.assert_allclose(mech.nce_objective(g, p, q, 2), want, rtol=1e-12)
    # huge scores: log sigma computed without log(0)
    assert np.isfinite(mech.nce_objective([800.0, -800.0, 0.0], p, q, 1))


def test_nce_sample_objective_converges_to_population():
    rng = np.random.default_rng(1)
    p = np.array([0.6, 0.3, 0.1])
    q = np.array([1 / 3, 1 / 3, 1 / 3])
    g = np.array([0.5, -0.2, -1.0])
    n, k = 200_000, 4
    xd = rng.choice(3, size=n, p=p)
    xn = rng.choice(3, size=(n, k), p=q)
    est = mech.nce_sample_objective(g[xd], g[xn], k)
    ls = -np.logaddexp(0, -g[xd])
    ln1 = -np.logaddexp(0, g[xn]).mean(axis=1) * k
    se = np.std(ls + ln1) / math.sqrt(n)
    assert abs(est - mech.nce_objective(g, p, q, k)) < 4 * se


def test_nce_rejects_bad_input():
    with pytest.raises(ValueError, match="k"):
        mech.nce_objective([0.0, 0.0], [0.5, 0.5], [0.5, 0.5], 0)
    with pytest.raises(ValueError, match="same length"):
        mech.nce_objective([0.0, 0.0], [0.5, 0.5], [1.0], 1)
    with pytest.raises(ValueError, match="p_data"):
        mech.nce_objective([0.0], [-1.0], [1.0], 1)
    with pytest.raises(ValueError, match="non-empty"):
        mech.nce_sample_objective([], [0.0], 1)


# ------------------------------------------------------------------ InfoNCE, margin, hinge


def mp_infonce(pos, neg, tau):
    pos, tau = mpmath.mpf(pos), mpmath.mpf(tau)
    num = mpmath.exp(pos / tau)
    return float(-mpmath.log(num / (num + sum(mpmath.exp(mpmath.mpf(n) / tau) for n in neg))))


@pytest.mark.parametrize(
    "pos, neg, tau",
    [
        (0.9, [0.1, 0.2, 0.3], 0.1),
        (0.2, [0.8, -0.5], 0.05),
        (0.5, [0.5] * 10, 1.0),
        (1.0, [30.0, 0.0], 0.01),
        (0.0, [1.0], 1e-3),
    ],
)
def test_infonce_matches_mpmath(pos, neg, tau):
    assert mech.infonce_loss(pos, neg, tau) == pytest.approx(
        mp_infonce(pos, neg, tau), rel=1e-13, abs=1e-300
    )


def test_infonce_limits_and_batch():
    neg = np.array([[0.1, 0.9, 0.4], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(mech.infonce_loss([0.5, 0.0], neg, np.inf), math.log(4))
    np.testing.assert_array_equal(mech.infonce_loss([0.5, 1.0], np.zeros((2, 0))), [0.0, 0.0])
    # tau -> 0: 0 when the positive wins, (max neg - pos)/tau when it loses
    assert mech.infonce_loss(1.0, [0.2, 0.5], 1e-4) == pytest.approx(0.0, abs=1e-300)
    assert mech.infonce_loss(0.0, [0.2], 1e-4) == pytest.approx(0.2 / 1e-4, rel=1e-12)
    assert mech.infonce_loss(0.0, [1.0], 1e-310) == np.inf  # the true value exceeds 1e308


def test_effective_margin_and_hinge_against_mpmath():
    beta, tau, k = 0.2, 0.1, 100
    m = beta + tau * math.log(k)
    assert mech.effective_margin(beta, tau, k) == pytest.approx(m, rel=1e-15)
    alphas = np.linspace(-1, 2, 61)
    r = mech.hinge_comparison(alphas, beta, tau, k)
    for a, ex, hi, er in zip(alphas, r.exact, r.hinge, r.error):
        exact = mpmath.log(1 + k * mpmath.exp((mpmath.mpf(beta) - mpmath.mpf(a)) / tau))
        # the exact loss is InfoNCE with K equal negatives, computed independently
        assert ex == pytest.approx(float(exact), rel=1e-13)
        assert ex == pytest.approx(float(mech.infonce_loss(a, [beta] * k, tau)), rel=1e-12)
        assert hi == pytest.approx(max(0.0, (m - a) / tau), rel=1e-13, abs=1e-13)
        u = (mpmath.mpf(beta) + mpmath.mpf(tau) * mpmath.log(k) - mpmath.mpf(a)) / mpmath.mpf(tau)
        assert er == pytest.approx(float(exact - max(0, u)), rel=1e-12, abs=1e-300)
    # error is at most ln 2, reached at the margin; holds iff |alpha - m| >= tau ln(1/(e^tol - 1))
    assert mech.hinge_comparison(m, beta, tau, k).error == pytest.approx(math.log(2), rel=1e-14)
    tol = 0.01
    width = tau * math.log(1 / math.expm1(tol))
    r = mech.hinge_comparison(alphas, beta, tau, k, tol=tol)
    far = np.abs(alphas - m) > width + 1e-9
    near = np.abs(alphas - m) < width - 1e-9
    assert r.holds[far].all() and not r.holds[near].any()


def test_infonce_rejects_bad_input():
    with pytest.raises(ValueError, match="tau"):
        mech.infonce_loss(0.0, [1.0], 0.0)
    with pytest.raises(ValueError, match="neg"):
        mech.infonce_loss(0.0, 1.0)
    with pytest.raises(ValueError, match="k"):
        mech.effective_margin(0.0, 1.0, 0.5)


# ------------------------------------------------------------------ coverage and k_min


def brute_k_min(rho, q):
    k = 0
    while 1 - (1 - rho) ** k < q - 1e-15:
        k += 1
    return k


def test_k_min_seed_example_and_brute_force():
    assert mech.k_min(0.1, 0.95) == 29  # the seed's worked example
    rng = np.random.default_rng(2)
    rhos = rng.uniform(0.01, 0.9, 200)
    qs = rng.uniform(0.0, 0.999, 200)
    got = mech.k_min(rhos, qs)
    want = [brute_k_min(r, q) for r, q in zip(rhos, qs)]
    np.testing.assert_array_equal(got, want)


def test_k_min_exact_cases_and_limits():
    assert mech.k_min(0.5, 0.75) == 2  # ln 0.25 / ln 0.5 = 2 exactly
    assert mech.k_min(0.5, 0.875) == 3
    assert mech.k_min(1.0, 0.99) == 1
    assert mech.k_min(0.3, 0.0) == 0
    assert mech.k_min(1e-12, 0.5) == math.ceil(math.log(0.5) / math.log1p(-1e-12))
    with pytest.raises(ValueError, match="rho"):
        mech.k_min(0.0, 0.5)
    with pytest.raises(ValueError, match="q"):
        mech.k_min(0.1, 1.0)
    with pytest.raises(ValueError, match="2\\*\\*62"):
        mech.k_min(1e-300, 0.5)


def test_coverage_probability_monte_carlo_and_precision():
    rng = np.random.default_rng(3)
    rho, k, n = 0.07, 20, 100_000
    hits = (rng.random((n, k)) < rho).any(axis=1).mean()
    p = mech.coverage_probability(rho, k)
    assert abs(hits - p) < 4 * math.sqrt(p * (1 - p) / n)
    # tiny rho: 1 - (1 - rho)^K ~ K rho, which the naive formula loses entirely
    want = float(1 - (1 - mpmath.mpf("1e-18")) ** 1000)
    assert mech.coverage_probability(1e-18, 1000) == pytest.approx(want, rel=1e-12)
    assert mech.coverage_probability(1.0, 3) == 1.0 and mech.coverage_probability(0.5, 0) == 0.0


# ------------------------------------------------------------------ entropy and temperature


def binary_entropy(x):
    return -(x * math.log(x) + (1 - x) * math.log(1 - x)) if 0 < x < 1 else 0.0


def mp_binary_entropy_of_logit(z):
    with mpmath.workdps(150):  # x = 1/(1 + e^-z) must resolve e^-z ~ 1e-44 next to 1
        e = mpmath.exp(-mpmath.mpf(z))
        x, y = 1 / (1 + e), e / (1 + e)
        return float(-(x * mpmath.log(x) + y * mpmath.log(y)))


def test_entropy_two_scores_closed_form():
    for d, tau in [(1.0, 0.3), (0.2, 1.0), (5.0, 0.05), (0.0, 2.0)]:
        want = mp_binary_entropy_of_logit(mpmath.mpf(d) / mpmath.mpf(tau))
        assert mech.softmax_entropy([d, 0.0], tau) == pytest.approx(want, rel=1e-12, abs=1e-300)


def test_entropy_limits():
    s = np.array([0.9, 0.2, 0.9, 0.9, -0.3])
    assert mech.softmax_entropy(s, 0.0) == pytest.approx(math.log(3), rel=1e-15)
    assert mech.softmax_entropy(s, 1e-6) == pytest.approx(math.log(3), rel=1e-12)
    assert mech.softmax_entropy(s, np.inf) == pytest.approx(math.log(5), rel=1e-15)
    assert mech.softmax_entropy(s, 1e9) == pytest.approx(math.log(5), rel=1e-9)
    assert mech.softmax_entropy([1.0], 0.1) == 0.0  # K = 1
    assert mech.entropy_temperature_derivative(s, 0.0) == 0.0
    assert mech.entropy_temperature_derivative(s, np.inf) == 0.0
    assert (
        mech.entropy_temperature_derivative([0.4, 0.4, 0.4], 0.7) == 0.0
    )  # equal scores: no effect
    np.testing.assert_allclose(mech.softmax_entropy(s, [0.0, np.inf]), [math.log(3), math.log(5)])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-3, 3, allow_nan=False), min_size=2, max_size=12),
    st.floats(0.05, 5.0),
)
def test_entropy_derivative_matches_finite_differences(scores, tau):
    h = 1e-5 * tau
    fd = (mech.softmax_entropy(scores, tau + h) - mech.softmax_entropy(scores, tau - h)) / (2 * h)
    got = mech.entropy_temperature_derivative(scores, tau)
    assert got >= 0.0
    assert got == pytest.approx(fd, rel=1e-5, abs=1e-7 / tau)


def test_entropy_batch_broadcasting():
    s = np.array([[0.1, 0.5, 0.9], [0.0, 0.0, 1.0]])
    taus = np.array([[0.2], [1.0]])  # broadcast against the rows -> (2, 2)
    got = mech.softmax_entropy(s, taus)
    assert got.shape == (2, 2)
    assert got[1, 1] == pytest.approx(float(mech.softmax_entropy(s[1], 1.0)))


def test_temperature_for_entropy_inverts_binary_entropy():
    d = 1.0
    for target in (0.05, 0.3, 0.6):
        # solve h_b(sigma(d / tau)) = target independently, on x = sigma(d/tau) in (1/2, 1)
        x = optimize.brentq(
            lambda x: binary_entropy(x) - target, 0.5 + 1e-15, 1 - 1e-15, xtol=1e-15
        )
        want = d / math.log(x / (1 - x))
        assert mech.temperature_for_entropy([d, 0.0], target) == pytest.approx(want, rel=1e-9)
    with pytest.raises(ValueError, match="target entropy"):
        mech.temperature_for_entropy([1.0, 0.0], math.log(2))
    with pytest.raises(ValueError, match="target entropy"):
        mech.temperature_for_entropy([1.0, 1.0, 0.0], 0.5)  # below ln 2 (two maxima)


def test_controller_reaches_band_and_tracks_drifting_scores():
    rng = np.random.default_rng(4)
    base = rng.normal(size=(16, 128))
    low, high = 3.0, 3.5
    ctl = mech.EntropyTemperatureController(low, high, tau=0.01)
    fixed, after = [], []
    for step in range(80):
        scale = 0.2 * math.exp(step / 20)  # scores spread out as "training" proceeds
        s = scale * base
        tau = ctl.update(s)
        after.append(float(np.mean(mech.softmax_entropy(s, tau))))  # effect of the correction
        fixed.append(float(np.mean(mech.softmax_entropy(s, 1.0))))
    h = np.array([e for _, e in ctl.history])
    after = np.array(after)
    # after warm-up every corrected temperature puts the batch back in the band ...
    assert np.all((after[10:] >= low - 1e-9) & (after[10:] <= high + 1e-9))
    # ... and the next batch, whose scores have spread further, leaves it by at most one step of drift
    drift = float(np.max(np.abs(np.diff(fixed))))
    assert np.all((h[10:] >= low - drift) & (h[10:] <= high + drift))
    assert not (low - 1 <= fixed[-1] <= high + 1)  # a fixed temperature drifts far out of the band
    taus = np.array([t for t, _ in ctl.history])
    assert np.all(np.diff(taus[:10]) >= 0) and taus[3] == pytest.approx(
        8 * taus[0]
    )  # too cold: tau doubles
    assert np.all(taus[1:] / taus[:-1] <= 2.0 + 1e-12)


def test_controller_inside_band_and_flat_scores_keep_tau():
    ctl = mech.EntropyTemperatureController(0.5, 2.0, tau=0.7)
    assert ctl.update(np.zeros(10)) == 0.7  # Var = 0: entropy ln 10 whatever tau
    s = np.array([1.0, 0.0, 0.0])
    tau = mech.temperature_for_entropy(s, 1.0)
    ctl = mech.EntropyTemperatureController(0.9, 1.1, tau=tau)
    assert ctl.update(s) == tau
    with pytest.raises(ValueError, match="low must be smaller"):
        mech.EntropyTemperatureController(2.0, 1.0)
    with pytest.raises(ValueError, match="tau"):
        mech.EntropyTemperatureController(0.0, 1.0, tau=0.0)


# ------------------------------------------------------------------ mining


def brute_mining(d_ap, d_an, margin):
    hard, semi = [], []
    for a in range(len(d_ap)):
        hard.append(min(range(d_an.shape[1]), key=lambda j: (d_an[a, j], j)))
        cands = [j for j in range(d_an.shape[1]) if d_ap[a] < d_an[a, j] < d_ap[a] + margin]
        semi.append(min(cands, key=lambda j: (d_an[a, j], j)) if cands else -1)
    return hard, semi


def test_mining_matches_brute_force_and_triplet_loss_bands():
    rng = np.random.default_rng(5)
    d_ap = rng.uniform(0.2, 1.0, 300)
    d_an = rng.uniform(0.0, 2.0, (300, 12))
    margin = 0.2
    hard, semi = brute_mining(d_ap, d_an, margin)
    np.testing.assert_array_equal(mech.mine_negatives(d_ap, d_an, "hard"), hard)
    got = mech.mine_negatives(d_ap, d_an, "semi-hard", margin)
    np.testing.assert_array_equal(got, semi)
    ok = got >= 0
    assert 0 < ok.sum() < 300
    loss = mech.triplet_loss(d_ap[ok], d_an[ok, got[ok]], margin)
    assert np.all((loss > 0) & (loss < margin))  # semi-hard: violates the margin, not the order
    hard_loss = mech.triplet_loss(d_ap, d_an[np.arange(300), hard], margin)
    assert np.all(hard_loss >= loss.max() - 1) and hard_loss.mean() > margin


def test_random_mining_is_uniform():
    d_an = np.ones((60_000, 7))
    picks = mech.mine_negatives(np.zeros(60_000), d_an, "random", rng=1)
    assert stats.chisquare(np.bincount(picks, minlength=7)).pvalue > 1e-3


def test_semi_hard_random_pick_is_uniform_over_the_band():
    d_ap = np.full(40_000, 1.0)
    row = np.array([0.5, 1.05, 1.1, 1.15, 3.0])  # candidates 1, 2, 3 are semi-hard for m = 0.2
    picks = mech.mine_negatives(
        d_ap, np.tile(row, (40_000, 1)), "semi-hard", 0.2, pick="random", rng=2
    )
    counts = np.bincount(picks, minlength=5)
    assert counts[0] == counts[4] == 0
    assert stats.chisquare(counts[1:4]).pvalue > 1e-3


def test_mining_rejects_bad_input():
    with pytest.raises(ValueError, match="strategy"):
        mech.mine_negatives([1.0], [[1.0]], "hardest")
    with pytest.raises(ValueError, match="d_an must have shape"):
        mech.mine_negatives([1.0, 2.0], [[1.0]], "hard")
    with pytest.raises(ValueError, match="d_ap"):
        mech.mine_negatives([-1.0], [[1.0]], "hard")
    with pytest.raises(ValueError, match="margin"):
        mech.mine_negatives([1.0], [[1.0]], "semi-hard", margin=0.0)


# ------------------------------------------------------------------ temporal exclusion window


def test_exclusion_window_discrete_direct_sum_and_continuous_quad():
    k, lam, horizon = 8, 12.5, 300
    for dt in (0, 1, 17, 150, 299):
        d = np.arange(dt + 1, horizon + 1)
        want = k * np.mean(np.exp(-d / lam))
        assert mech.expected_false_negatives(dt, k, lam, horizon) == pytest.approx(want, rel=1e-12)
    for dt in (0.0, 3.3, 120.0, 299.9):
        val = integrate.quad(lambda x: math.exp(-x / lam), dt, horizon, epsabs=0, epsrel=1e-13)[0]
        want = k * val / (horizon - dt)
        assert mech.expected_false_negatives(dt, k, lam, horizon, discrete=False) == pytest.approx(
            want, rel=1e-10
        )
    limit = mech.expected_false_negatives(horizon, k, lam, horizon, discrete=False)
    assert limit == pytest.approx(k * math.exp(-horizon / lam), rel=1e-14)


def test_exclusion_window_monte_carlo():
    rng = np.random.default_rng(6)
    k, lam, horizon, dt, n = 10, 5.0, 100, 3, 100_000
    offsets = rng.integers(dt + 1, horizon + 1, size=(n, k))
    fn = (rng.random((n, k)) < np.exp(-offsets / lam)).sum(axis=1)
    e = mech.expected_false_negatives(dt, k, lam, horizon)
    assert abs(fn.mean() - e) < 4 * fn.std() / math.sqrt(n)


def test_min_exclusion_window_brute_force_and_continuous():
    k, lam, horizon = 16, 20.0, 1000
    for beta in (0.3, 0.1, 0.01):  # all below the no-window value 0.32
        dt = mech.min_exclusion_window(beta, k, lam, horizon)
        e = [k * np.mean(np.exp(-np.arange(d + 1, horizon + 1) / lam)) for d in range(horizon)]
        assert dt == next(d for d in range(horizon) if e[d] <= beta)
        x = mech.min_exclusion_window(beta, k, lam, horizon, discrete=False)
        assert mech.expected_false_negatives(x, k, lam, horizon, discrete=False) == pytest.approx(
            beta, rel=1e-9
        )
    assert mech.min_exclusion_window(100.0, k, lam, horizon) == 0
    assert mech.min_exclusion_window(0.5, k, lam, horizon, discrete=False) == 0.0
    with pytest.raises(ValueError, match="no window"):
        mech.min_exclusion_window(1e-30, k, lam, 100)
    with pytest.raises(ValueError, match="integer"):
        mech.expected_false_negatives(2.5, k, lam, horizon)
    with pytest.raises(ValueError, match="lam"):
        mech.expected_false_negatives(2, k, 0.0, horizon)


# ------------------------------------------------------------------ in-batch vs pool


def test_negative_costs_by_enumeration():
    b, k, s = 3, 4, 10
    per_example = [(a, j) for a in range(b) for j in range(k)]
    dots_pe = [(a, c) for a in range(b) for c in itertools.chain(["pos"], range(k))]
    dots_sh = [(a, c) for a in range(b) for c in itertools.chain(["pos"], range(s))]
    c = mech.negative_costs(b, k, s)
    assert (c.memory_per_example, c.memory_shared, c.dots_per_example, c.dots_shared) == (
        len(per_example),
        s,
        len(dots_pe),
        len(dots_sh),
    )
    with pytest.raises(ValueError, match="integral"):
        mech.negative_costs(2.5, 1, 1)


def test_hard_negative_probability_hypergeometric_and_monte_carlo():
    pop, rho = 500, 0.02
    for n in (1, 10, 100, 490, 491):
        want = stats.hypergeom(pop, round(rho * pop), n).sf(0)
        assert mech.hard_negative_probability(n, rho, population=pop) == pytest.approx(
            want, rel=1e-10, abs=1e-15
        )
    rng = np.random.default_rng(7)
    n, reps = 30, 60_000
    hits = (rng.random((reps, n)) < rho).any(axis=1).mean()
    p = mech.hard_negative_probability(n, rho)
    assert abs(hits - p) < 4 * math.sqrt(p * (1 - p) / reps)
    # a pool larger than K is more likely to hold a hard negative (the seed's trade-off)
    assert mech.hard_negative_probability(1024, rho) > mech.hard_negative_probability(16, rho)
    with pytest.raises(ValueError, match="population"):
        mech.hard_negative_probability(600, rho, population=pop)
