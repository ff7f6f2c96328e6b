"""The order-statistic family of class laws (calibration.class_conditional_cdf order=, law_from_auc):
checked against the thesis's closed forms at order 2, quadrature, order statistics drawn by Monte Carlo,
and planted score sets over the whole AUC range."""

import numpy as np
import pytest
from scipy import integrate, stats

from negtheory import calibration as cal


@pytest.mark.parametrize("kind", ["tn", "fn", "un"])
def test_order_two_is_the_thesis_family(kind):
    v = np.linspace(0, 1, 101)
    for alpha in (0.5, 0.7, 1.0):
        b, a = cal._coefficients(kind, alpha, 0.1)
        thesis = b * v + a * v * v
        # the general branch evaluated at k = 2 (not the quadratic shortcut) equals eq. 6.14-6.15
        general = cal._order_cdf(v, kind, 2 * alpha - 1, 2.0, 0.1)
        np.testing.assert_allclose(general, thesis, atol=1e-14)
        np.testing.assert_allclose(
            cal.class_conditional_cdf(v, kind, alpha, 0.1), thesis, atol=1e-14
        )


def test_pure_order_laws_are_the_smallest_and_largest_of_k_draws():
    u = np.random.default_rng(0).random((200_000, 3))
    for kind, draws in (("fn", u.max(axis=1)), ("tn", u.min(axis=1))):
        law = lambda x, kind=kind: cal.class_conditional_cdf(x, kind, 1.0, order=3)  # noqa: E731
        assert stats.kstest(draws, law).pvalue > 0.01


@pytest.mark.parametrize("alpha,k", [(1.0, 3.0), (0.8, 4.5), (0.6, 1.5), (0.9, 2.0), (1.0, 12.0)])
def test_model_auc_matches_quadrature(alpha, k):
    # A = int Phi_TN(v) dPhi_FN(v), with dPhi_FN/dv = (1 - lam) + lam k v^(k-1)
    lam = 2 * alpha - 1
    dens = lambda v: (1 - lam) + lam * k * v ** (k - 1)  # noqa: E731
    quad, _ = integrate.quad(
        lambda v: float(cal.class_conditional_cdf(v, "tn", alpha, order=k)) * dens(v), 0, 1
    )
    assert float(cal.model_auc(alpha, order=k)) == pytest.approx(quad, abs=1e-10)


@pytest.mark.parametrize("kind", ["tn", "fn", "un"])
@pytest.mark.parametrize("alpha,k", [(1.0, 3.0), (0.75, 5.0), (0.55, 1.2)])
def test_ppf_inverts_cdf(kind, alpha, k):
    v = np.linspace(0, 1, 57)
    q = cal.class_conditional_cdf(v, kind, alpha, 0.2, order=k)
    np.testing.assert_allclose(
        cal.class_conditional_ppf(q, kind, alpha, 0.2, order=k), v, atol=1e-12
    )


def test_law_from_auc_covers_the_whole_range_and_round_trips():
    auc = np.array([0.5, 0.6, 0.75, 5 / 6, 0.84, 0.9, 0.97, 0.995])
    alpha, k, bound = cal.law_from_auc(auc)
    np.testing.assert_allclose(cal.model_auc(alpha, order=k), auc, atol=1e-10)
    assert (
        not bound[1:].any()
        and np.all(k[auc <= 5 / 6] == 2.0)
        and np.all(np.diff(k[auc > 5 / 6]) > 0)
    )
    # the thesis's family stops at 5/6: beyond it alpha = 1 and the AUC is not reached
    _, kt, bt = cal.law_from_auc(auc, family="thesis")
    assert (
        np.all(kt == 2.0) and bt[auc >= 5 / 6].all() and not bt[(auc > 0.5) & (auc < 5 / 6)].any()
    )
    assert cal.law_from_auc(1.0)[2].item() and cal.law_from_auc(1.0)[1].item() == cal.MAX_ORDER


def test_law_from_auc_and_order_name_bad_parameters():
    with pytest.raises(ValueError, match="family"):
        cal.law_from_auc(0.7, family="gamma")
    with pytest.raises(ValueError, match="auc"):
        cal.law_from_auc(1.2)
    with pytest.raises(ValueError, match="order"):
        cal.class_conditional_cdf(0.5, "tn", 0.9, order=0.5)
    with pytest.raises(ValueError, match="order"):
        cal.model_auc(0.9, order=np.inf)
    q = cal.UserQuantiles(np.random.default_rng(0).normal(size=(2, 50)))
    with pytest.raises(ValueError, match="parent"):
        cal.simulate_calibrated(
            q, [0, 1], 3, alpha=1.0, tau_plus=0.1, positives="phi_fn", order=3.0, parent="normal"
        )


@pytest.mark.parametrize("auc", [0.6, 0.75, 0.88, 0.95, 0.985])
def test_planted_scores_recover_their_auc_and_order(auc):
    # planted per-user score sets drawn from the family at a known AUC with a normal parent of each user's
    # own scale: the measured P(x_TN < x_FN) over independent pairs maps back to the planted (alpha, k)
    g = np.random.default_rng(int(auc * 1000))
    alpha, k, _ = cal.law_from_auc(auc)
    n_users, n = 400, 400
    scale = g.uniform(0.5, 2.0, n_users)[:, None]
    fn = g.random((n_users, n)) < 0.1
    v = np.where(
        fn,
        cal.class_conditional_ppf(g.random((n_users, n)), "fn", float(alpha), order=float(k)),
        cal.class_conditional_ppf(g.random((n_users, n)), "tn", float(alpha), order=float(k)),
    )
    x = scale * stats.norm.ppf(np.clip(v, 1e-15, 1 - 1e-15))
    num = den = 0.0
    for u in range(n_users):
        t, f = np.sort(x[u, ~fn[u]]), x[u, fn[u]]
        num += np.searchsorted(t, f).sum()
        den += t.size * f.size
    a_hat, k_hat, bound = cal.law_from_auc(num / den)
    assert num / den == pytest.approx(auc, abs=0.006)
    assert not bound and float(cal.model_auc(a_hat, order=k_hat)) == pytest.approx(auc, abs=0.006)


def test_simulate_calibrated_draws_the_order_laws():
    # an identity parent (scores uniform on [0, 1] per user): the simulated false negatives' parent values
    # follow Phi_FN of the order-statistic family
    unl = cal.UserQuantiles(
        np.tile((np.arange(4000) + 0.5) / 4000, (4, 1))
    )  # Hazen grid: exact uniform
    neg, tn, _ = cal.simulate_calibrated(
        unl,
        np.repeat(np.arange(4), 5000),
        4,
        alpha=1.0,
        tau_plus=0.2,
        positives="phi_fn",
        order=4.0,
        rng=1,
    )
    # the simulated unlabeled law is the user's eCDF by construction: map back through Phi_UN's inverse
    w = neg.ravel()
    v = cal.class_conditional_ppf(w, "un", 1.0, 0.2, order=4.0)
    lab = tn.ravel()
    assert (
        stats.kstest(
            v[~lab], lambda z: cal.class_conditional_cdf(z, "fn", 1.0, order=4.0)
        ).statistic
        < 0.01
    )
    assert (
        stats.kstest(v[lab], lambda z: cal.class_conditional_cdf(z, "tn", 1.0, order=4.0)).statistic
        < 0.01
    )
    assert abs((~lab).mean() - 0.2) < 0.01
