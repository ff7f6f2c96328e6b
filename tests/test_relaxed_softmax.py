"""Tests of negtheory.relaxed_softmax (seed 004 §2-3).

Independent references: the printed loss (eq. 5) evaluated term by term, central finite
differences of it for the gradient (eq. 6), through the scores and through the parameters of a
linear model; Monte Carlo with fixed seeds for the large-n limit (eq. 7) and the
effective-temperature remark (README errata); scipy.stats.multivariate_normal for the mixture grid;
chi-square for the pair generator; brute-force double loops for MPR (eq. 10) and Prec@k;
scipy.stats.entropy for KL.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from negtheory import relaxed_softmax as rs
from negtheory.sampling import boltzmann, sample_boltzmann

# ------------------------------------------------------------------ loss and gradient (eq. 5-6)


def test_loss_matches_printed_formula_with_duplicates():
    g = np.array([0.3, -1.2, 2.0, 0.7, 0.0])
    neg = [1, 3, 3, 4]
    want = -g[2] + math.log(sum(math.exp(g[j]) for j in neg))
    assert rs.relaxed_softmax_loss(g, 2, neg) == pytest.approx(want, rel=1e-14)
    want_inc = -g[2] + math.log(math.exp(g[2]) + sum(math.exp(g[j]) for j in neg))
    assert rs.relaxed_softmax_loss(g, 2, neg, include_positive=True) == pytest.approx(
        want_inc, rel=1e-14
    )
    assert rs.relaxed_softmax_loss(g, 2, neg, include_positive=True) >= 0


def test_loss_batched_rows_and_shared_negatives():
    rng = np.random.default_rng(0)
    g = rng.normal(size=(4, 9))
    pos = np.array([0, 3, 8, 2])
    neg = rng.integers(0, 9, size=(4, 5))
    got = rs.relaxed_softmax_loss(g, pos, neg)
    for r in range(4):
        assert got[r] == pytest.approx(rs.relaxed_softmax_loss(g[r], pos[r], neg[r]), rel=1e-14)
    shared = rs.relaxed_softmax_loss(g, pos, neg[0])
    assert shared[1] == pytest.approx(rs.relaxed_softmax_loss(g[1], pos[1], neg[0]), rel=1e-14)


@pytest.mark.parametrize("include_positive", [False, True])
def test_gradient_matches_finite_differences(include_positive):
    rng = np.random.default_rng(1)
    g = rng.normal(size=(3, 12))
    pos = np.array([4, 0, 11])
    neg = rng.integers(0, 12, size=(3, 7))
    neg[0, :3] = 4  # the positive drawn as a negative, and duplicates
    grad = rs.relaxed_softmax_grad(g, pos, neg, include_positive=include_positive)
    h = 1e-6
    fd = np.zeros_like(g)
    for idx in np.ndindex(*g.shape):
        gp, gm = g.copy(), g.copy()
        gp[idx] += h
        gm[idx] -= h
        lp = rs.relaxed_softmax_loss(gp, pos, neg, include_positive=include_positive)[idx[0]]
        lm = rs.relaxed_softmax_loss(gm, pos, neg, include_positive=include_positive)[idx[0]]
        fd[idx] = (lp - lm) / (2 * h)
    np.testing.assert_allclose(grad, fd, atol=1e-8)
    # each row: -1 on the positive plus a probability vector over V
    np.testing.assert_allclose(grad.sum(axis=1), 0.0, atol=1e-14)


def test_gradient_through_a_linear_model_is_eq6():
    # G(i, j) = <u_i, v_j>: grad_theta L = sum_j dL/dG_j * dG_j/dtheta (eq. 6 with nabla_theta G)
    rng = np.random.default_rng(2)
    u = rng.normal(size=4)
    v = rng.normal(size=(10, 4))
    pos, neg = 3, np.array([0, 5, 5, 9])

    def loss(uu):
        return rs.relaxed_softmax_loss(v @ uu, pos, neg)

    grad_u = v.T @ rs.relaxed_softmax_grad(v @ u, pos, neg)
    h = 1e-6
    fd = np.array([(loss(u + h * e) - loss(u - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(grad_u, fd, atol=1e-8)


def test_loss_and_gradient_reject_bad_input():
    g = np.zeros(5)
    with pytest.raises(ValueError, match="negatives holds indices"):
        rs.relaxed_softmax_loss(g, 0, [5])
    with pytest.raises(ValueError, match="positive holds indices"):
        rs.relaxed_softmax_grad(g, -1, [1])
    with pytest.raises(TypeError, match="integer"):
        rs.relaxed_softmax_loss(g, 0, [1.5])
    with pytest.raises(ValueError, match="at least one"):
        rs.relaxed_softmax_loss(g, 0, np.array([], dtype=int))
    assert rs.relaxed_softmax_loss(g, 0, np.array([], dtype=int), include_positive=True) == 0.0
    with pytest.raises(ValueError, match="positive must be"):
        rs.relaxed_softmax_loss(np.zeros((2, 5)), [0, 1, 2], [1])


# ------------------------------------------------------------------ large-n limit (eq. 7)


def test_large_n_limit_by_monte_carlo():
    rng = np.random.default_rng(3)
    n_items = 15
    g = rng.normal(size=n_items)
    q = rng.dirichlet(np.ones(n_items))
    pos = 2
    limit = rs.relaxed_softmax_limit_grad(g, pos, q)
    want = q * np.exp(g) / np.sum(q * np.exp(g))
    want[pos] -= 1
    np.testing.assert_allclose(limit, want, rtol=1e-13, atol=1e-16)
    # the sampled gradient (eq. 6) with n i.i.d. negatives from Q approaches the limit:
    # self-normalised weights converge at rate n^{-1/2} (bias O(1/n))
    errs = []
    for n in (50, 50_000):
        neg = rng.choice(n_items, size=(20, n), p=q)
        grads = rs.relaxed_softmax_grad(np.tile(g, (20, 1)), np.full(20, pos), neg)
        errs.append(np.abs(grads.mean(axis=0) - limit).max())
    assert errs[1] < 2e-3 < errs[0]


@pytest.mark.parametrize("t", [0.0, 0.25, 0.75, 1.0, 5.0, np.inf])
def test_effective_temperature_identity(t):
    # Q = B(G, D, T) weighted by e^G is B(G, D, T / (T + 1)) (README, "Notes on the sources (errata)")
    rng = np.random.default_rng(4)
    g = rng.normal(size=(3, 20))
    d = rng.integers(1, 20, size=20).astype(float)
    q = boltzmann(g, d, t)
    got = rs.relaxed_softmax_limit_grad(g, np.zeros(3, dtype=int), q)
    got[:, 0] += 1.0
    np.testing.assert_allclose(
        got, boltzmann(g, d, rs.effective_temperature(t)), rtol=1e-10, atol=1e-300
    )


def test_effective_temperature_by_monte_carlo_with_boltzmann_sampling():
    rng = np.random.default_rng(5)
    g = rng.normal(0, 1.5, size=25)
    d = rng.integers(1, 5, size=25).astype(float)
    t = 0.75
    neg = sample_boltzmann(np.tile(g, (10, 1)), d, t, size=40_000, rng=6)
    grads = rs.relaxed_softmax_grad(np.tile(g, (10, 1)), np.zeros(10, dtype=int), neg)
    grads[:, 0] += 1.0
    est = grads.mean(axis=0)
    eff = boltzmann(g, d, t / (t + 1))
    assert np.abs(est - eff).max() < 3e-3
    # and clearly not the sampling law itself: the weighting sharpens it
    assert np.abs(est - boltzmann(g, d, t)).max() > 0.05


def test_effective_temperature_values_and_errors():
    np.testing.assert_allclose(
        rs.effective_temperature([0.0, 1.0, 3.0, np.inf]), [0.0, 0.5, 0.75, 1.0]
    )
    with pytest.raises(ValueError, match="temperature"):
        rs.effective_temperature(-1.0)


# ------------------------------------------------------------------ mixture task (§2.3.2, §3.1)


def test_mixture_grid_matches_scipy_density():
    task = rs.MixtureOfGaussiansTask(4, n_context=30, n_target=25, rng=7)
    x = (np.arange(30) + 0.5) / 30
    y = (np.arange(25) + 0.5) / 25
    xx, yy = np.meshgrid(x, y, indexing="ij")
    pts = np.stack([xx.ravel(), yy.ravel()], axis=1)
    dens = np.zeros(len(pts))
    for w, mu, sd, r in zip(task.weights, task.means, task.stds, task.rho):
        cov = [[sd[0] ** 2, r * sd[0] * sd[1]], [r * sd[0] * sd[1], sd[1] ** 2]]
        dens += w * stats.multivariate_normal(mu, cov).pdf(pts)
    want = (dens / dens.sum()).reshape(30, 25)
    np.testing.assert_allclose(task.joint, want, rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(task.conditional.sum(axis=1), 1.0, rtol=1e-13)
    np.testing.assert_allclose(task.context_popularity, want.sum(axis=1), rtol=1e-10)
    np.testing.assert_allclose(task.target_popularity, want.sum(axis=0), rtol=1e-10)
    np.testing.assert_allclose(task.conditional, want / want.sum(axis=1, keepdims=True), rtol=1e-10)


def test_mixture_far_cells_keep_finite_logs_and_seeds_reproduce():
    task = rs.MixtureOfGaussiansTask(2, n_context=50, n_target=50, rng=1, scale=(0.01, 0.01))
    assert np.isfinite(task.log_joint).all()  # log-sum-exp: 1/P_i stays finite everywhere
    again = rs.MixtureOfGaussiansTask(2, n_context=50, n_target=50, rng=1, scale=(0.01, 0.01))
    np.testing.assert_array_equal(task.log_joint, again.log_joint)


def test_mixture_sampler_chi_square():
    task = rs.MixtureOfGaussiansTask(3, n_context=12, n_target=10, rng=8)
    i, j = task.sample(200_000, rng=9)
    obs = np.bincount(i * 10 + j, minlength=120)
    exp = task.joint.ravel() * i.size
    keep = exp >= 5
    o = np.append(obs[keep], obs[~keep].sum())
    e = np.append(exp[keep], exp[~keep].sum())
    assert stats.chisquare(o, e * o.sum() / e.sum()).pvalue > 1e-3


def test_mixture_rejects_bad_input():
    with pytest.raises(ValueError, match="n_components"):
        rs.MixtureOfGaussiansTask(0)
    with pytest.raises(ValueError, match="scale"):
        rs.MixtureOfGaussiansTask(3, scale=(0.2, 0.1))


# ------------------------------------------------------------------ metrics (eq. 9-10, Prec@k, KL)


def brute_metrics(g, p, k):
    ni, nj = g.shape
    mpr = prec = 0.0
    for i in range(ni):
        for j in range(nj):
            less = sum(1 for jj in range(nj) if g[i, j] > g[i, jj])
            greater = sum(1 for jj in range(nj) if g[i, jj] > g[i, j])
            mpr += p[i, j] * less / nj
            prec += p[i, j] * (greater < k)
    return mpr, prec


def test_mpr_and_precision_match_brute_force_with_ties():
    rng = np.random.default_rng(10)
    g = np.round(rng.normal(size=(6, 9)), 1)  # ties
    p = rng.dirichlet(np.ones(54)).reshape(6, 9)
    p[0, :4] = 0.0
    p /= p.sum()
    for k in (1, 3, 9):
        mpr, prec = brute_metrics(g, p, k)
        assert rs.approx_mpr(g, joint=p) == pytest.approx(mpr, rel=1e-13)
        assert rs.precision_at_k(g, k, joint=p) == pytest.approx(prec, rel=1e-13)


def test_mpr_on_pairs_agrees_with_monte_carlo_over_uniform_negatives():
    task = rs.MixtureOfGaussiansTask(5, n_context=40, n_target=60, rng=11)
    model = task.log_conditional + np.random.default_rng(12).normal(0, 0.5, size=(40, 60))
    i, j = task.sample(50_000, rng=13)
    jp = np.random.default_rng(14).integers(0, 60, size=i.size)  # j' ~ U(J), eq. 10
    mc = np.mean(model[i, j] > model[i, jp])
    got = rs.approx_mpr(model, pairs=(i, j))
    assert abs(got - mc) < 4 * math.sqrt(mc * (1 - mc) / i.size)
    # the exact expectation and the pair average agree within sampling error
    assert abs(rs.approx_mpr(model, joint=task.joint) - got) < 0.01
    # the true conditionals rank better than the noisy model
    assert rs.approx_mpr(task.log_conditional, joint=task.joint) > rs.approx_mpr(
        model, joint=task.joint
    )


def test_kl_likelihood_and_the_joint_kl_identity():
    rng = np.random.default_rng(15)
    p = rng.dirichlet(np.ones(8), size=5)
    q = rng.dirichlet(np.ones(8), size=5)
    np.testing.assert_allclose(
        rs.kl_divergence(p, q), [stats.entropy(a, b) for a, b in zip(p, q)], rtol=1e-12
    )
    # KL(P || Pop(I) x g) = sum_i Pop(i) KL(P_i || g_i)  (the joint KL of the seed's Fig. 2)
    pop = rng.dirichlet(np.ones(5))
    joint = pop[:, None] * p
    lhs = stats.entropy(joint.ravel(), (pop[:, None] * q).ravel())
    assert lhs == pytest.approx(float(np.dot(pop, rs.kl_divergence(p, q))), rel=1e-12)
    assert rs.expected_likelihood(q, joint=joint) == pytest.approx(
        float(np.sum(joint * q)), rel=1e-14
    )
    assert rs.kl_divergence([0.0, 1.0], [0.5, 0.5]) == pytest.approx(math.log(2))
    assert rs.kl_divergence([0.5, 0.5], [1.0, 0.0]) == np.inf


def test_metrics_reject_bad_input():
    g = np.zeros((2, 3))
    with pytest.raises(ValueError, match="exactly one"):
        rs.approx_mpr(g)
    with pytest.raises(ValueError, match="exactly one"):
        rs.approx_mpr(g, joint=np.ones((2, 3)), pairs=([0], [0]))
    with pytest.raises(ValueError, match="shape"):
        rs.precision_at_k(g, 1, joint=np.ones((3, 2)))
    with pytest.raises(ValueError, match="outside"):
        rs.approx_mpr(g, pairs=(np.array([0]), np.array([3])))
    with pytest.raises(ValueError, match="k must be"):
        rs.precision_at_k(g, 0, joint=np.ones((2, 3)))
    with pytest.raises(ValueError, match="model_probs"):
        rs.expected_likelihood(g + 2.0, joint=np.ones((2, 3)))
    with pytest.raises(ValueError, match="positive sum"):
        rs.kl_divergence([0.0, 0.0], [0.5, 0.5])
