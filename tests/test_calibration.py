"""Simulations calibrated to measured scores (negtheory.calibration) and the real-data probe
(negtheory.recsys.score_probe): closed forms, quadrature, Monte Carlo with stated tolerances."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as st
from scipy import integrate

import negtheory as nt
from negtheory import calibration as cal
from negtheory import estimators as est
from negtheory.recsys import load_split
from negtheory.recsys.score_probe import ScoreProbe, probe_scores


@pytest.mark.parametrize("kind", ["tn", "fn"])
@pytest.mark.parametrize("alpha", [0.5, 0.8, 1.0])
def test_class_conditional_cdf_matches_dists_laws(kind, alpha):
    # the dists laws over a U(0, 1) parent are the same CDFs in v = Phi(x), by another code path
    law = (nt.true_negative if kind == "tn" else nt.false_negative)(st.uniform(), alpha)
    v = np.linspace(0.0, 1.0, 41)
    np.testing.assert_allclose(cal.class_conditional_cdf(v, kind, alpha), law.cdf(v), atol=1e-14)
    q = np.linspace(0.0, 1.0, 41)
    np.testing.assert_allclose(cal.class_conditional_ppf(q, kind, alpha), law.ppf(q), atol=1e-12)


def test_unlabeled_ppf_inverts_the_mixture_at_the_degenerate_points():
    for alpha, tau in [(0.5, 0.3), (0.9, 0.5), (1.0, 0.0), (0.7, 0.05)]:
        v = np.linspace(0, 1, 101)
        back = cal.class_conditional_ppf(
            cal.class_conditional_cdf(v, "un", alpha, tau), "un", alpha, tau
        )
        np.testing.assert_allclose(back, v, atol=1e-12)


@pytest.mark.parametrize("alpha", [0.5, 0.75, 0.9, 1.0])
def test_model_auc_by_quadrature_and_monte_carlo(alpha):
    tn, fn = nt.true_negative(st.uniform(), alpha), nt.false_negative(st.uniform(), alpha)
    by_quad, _ = integrate.quad(lambda v: tn.cdf(v) * fn.pdf(v), 0.0, 1.0)
    assert abs(float(cal.model_auc(alpha)) - by_quad) < 1e-10
    g = np.random.default_rng(3)
    m = 400_000
    a = tn.ppf(g.random(m))
    b = fn.ppf(g.random(m))
    p = float((a < b).mean())
    se = math.sqrt(p * (1 - p) / m)
    assert abs(p - float(cal.model_auc(alpha))) < 5 * se


def test_alpha_from_auc_inverts_model_auc_and_clips():
    a = np.linspace(0.5, 1.0, 11)
    np.testing.assert_allclose(cal.alpha_from_auc(cal.model_auc(a)), a, atol=1e-15)
    assert cal.alpha_from_auc(0.95) == 1.0 and cal.alpha_from_auc(0.3) == 0.5
    with pytest.raises(ValueError, match="alpha"):
        cal.model_auc(0.4)
    with pytest.raises(ValueError, match="auc"):
        cal.alpha_from_auc(1.5)


def test_user_quantiles_against_numpy_hazen():
    g = np.random.default_rng(0)
    x = g.normal(size=(3, 57))
    x[2, 40:] = np.nan
    q = cal.UserQuantiles(x)
    levels = np.linspace(0.0, 1.0, 23)
    for u in range(3):
        row = x[u][np.isfinite(x[u])]
        np.testing.assert_allclose(
            q.ppf(np.full(levels.size, u), levels),
            np.quantile(row, levels, method="hazen"),
            atol=1e-12,
        )
    # mid-rank eCDF of the row's own values: (rank + 1/2) / n
    np.testing.assert_allclose(np.sort(q.cdf(np.zeros(57, int), x[0])), (np.arange(57) + 0.5) / 57)
    with pytest.raises(ValueError, match="scores"):
        cal.UserQuantiles(np.zeros(4))


def test_estimator_errors_by_hand():
    g = np.random.default_rng(1)
    s = g.normal(size=(200, 8))
    tn = g.random((200, 8)) > 0.2
    pos = g.normal(1.0, 1.0, 200)
    r = cal.estimator_errors(s, tn, pos, t=0.5, alpha=0.8, tau_plus=0.2, beta=0.5, hcl_beta=0.5)
    x, xp = np.exp(s / 0.5), np.exp(pos / 0.5)
    ok = tn.any(1)
    truth = np.array([x[i][tn[i]].mean() for i in np.flatnonzero(ok)])
    biased = x[ok].mean(1)
    dcl = (x[ok].mean(1) - 0.2 * xp[ok]) / 0.8
    w = np.sqrt(x[ok])
    hcl = ((w * x[ok]).sum(1) / w.sum(1) - 0.2 * xp[ok]) / 0.8
    for name, v in (("biased", biased), ("dcl", dcl), ("hcl", hcl)):
        assert r[name]["mse"] == pytest.approx(np.mean((v - truth) ** 2), rel=1e-12)
    bcl = est.theta_bcl(x[ok], 0.8, 0.5, 0.2)
    assert r["bcl"]["mse"] == pytest.approx(np.mean((bcl - truth) ** 2), rel=1e-12)
    assert r["biased"]["n_anchors"] == ok.sum()
    with pytest.raises(ValueError, match="estimators"):
        cal.estimator_errors(s, tn, pos, alpha=0.8, tau_plus=0.2, estimators=["nope"])
    with pytest.raises(ValueError, match="tau_plus"):
        cal.estimator_errors(s, tn, pos, alpha=0.8, tau_plus=0.0)


def test_calibrated_simulation_fed_with_a_known_law_agrees_with_the_parametric_study():
    # "measured" unlabeled scores of 40 users drawn from the thesis's own model (uniform parent
    # U(-1, 1), gamma = 0 so every anchor has that parent); the calibrated simulation fitted to
    # them must reproduce mse_study's MSE for the same law (positives from phi_FN in both).
    alpha, tau, n = 0.8, 0.2, 16
    users = 40
    fit = nt.score_sets(
        users, 4000, alpha, tau, gamma=0.0, t=1.0, n_positives=0, base_interval=(-1.0, 1.0), rng=7
    )
    unl = cal.UserQuantiles(np.log(fit.scores))
    anchors = np.repeat(np.arange(users), 500)
    neg, tn, pos = cal.simulate_calibrated(
        unl, anchors, n, alpha=alpha, tau_plus=tau, positives="phi_fn", rng=8
    )
    got = cal.estimator_errors(
        neg, tn, pos, t=1.0, alpha=alpha, tau_plus=tau, beta=0.5, hcl_beta=0.5
    )
    ref = nt.mse_study(
        "alpha",
        [alpha],
        n_anchors=20_000,
        n_unlabeled=n,
        tau_plus=tau,
        t=1.0,
        gamma=0.0,
        beta=0.5,
        hcl_beta=0.5,
        n_positives=1,
        generation=nt.Generation(base_interval=(-1.0, 1.0)),
        rng=9,
        execution=nt.Execution(progress=False),
    )
    for name in cal.ESTIMATORS:
        r = ref[ref.estimator == name].iloc[0]
        se = math.hypot(got[name]["mse_se"], float(r.mse_se))
        # 5 standard errors, plus 3 % for the fitted quantile function (4000 scores per user)
        assert abs(got[name]["mse"] - float(r.mse)) < 5 * se + 0.03 * float(r.mse), name


def test_simulated_classes_follow_the_laws():
    g = np.random.default_rng(2)
    base = g.normal(size=(1, 20_000))
    unl = cal.UserQuantiles(base)
    anchors = np.zeros(20_000, dtype=int)
    neg, tn, pos = cal.simulate_calibrated(
        unl, anchors, 4, alpha=0.9, tau_plus=0.3, positives="phi_fn", rng=0
    )
    assert abs((~tn).mean() - 0.3) < 5 * math.sqrt(0.21 / tn.size)
    # the simulated unlabeled scores reproduce the fitted unlabeled law (eq. 6.29 inverted)
    assert st.ks_2samp(neg.ravel()[:20_000], base[0]).pvalue > 1e-3
    # order statistic: false-negative ranks in the unlabeled law follow w^k
    neg, tn, _ = cal.simulate_order_statistic(
        unl, anchors, 4, k=3.0, tau_plus=0.2, positive_scores=unl, rng=1
    )
    w = unl.cdf(np.zeros((~tn).sum(), int), neg[~tn])
    assert st.kstest(w, lambda x: np.clip(x, 0, 1) ** 3).pvalue > 1e-3
    assert cal.fit_fn_order(np.clip(w, 1e-12, 1)) == pytest.approx(3.0, rel=0.05)
    with pytest.raises(ValueError, match="k \\* tau_plus"):
        cal.simulate_order_statistic(unl, anchors, 4, k=6.0, tau_plus=0.2, positive_scores=unl)
    with pytest.raises(ValueError, match="users"):
        cal.simulate_calibrated(unl, [5], 4, alpha=0.9, tau_plus=0.1, positives="phi_fn")
    with pytest.raises(ValueError, match="positive_scores"):
        cal.simulate_calibrated(unl, [0], 4, alpha=0.9, tau_plus=0.1)


def test_resampled_draws_from_the_user_pools():
    tn_pool = np.array([[1.0, 2.0, 3.0, 4.0], [10.0, 11.0, np.nan, np.nan]])
    q = cal.UserQuantiles(tn_pool)
    neg, tn, pos = cal.simulate_resampled(
        q, [0.5], q, np.array([0, 1] * 500), 3, tau_plus=0.25, positive_scores=q, rng=0
    )
    u1 = np.arange(1000) % 2 == 1
    assert neg[u1].min() >= 10.0 and neg[~u1].max() <= 4.0  # each anchor stays in its user's range
    pooled = cal.simulate_resampled(
        q,
        [0.5],
        q,
        np.zeros(200, int),
        3,
        tau_plus=0.25,
        positive_scores=q,
        pooled=True,
        fn_scores=[100.0],
        rng=0,
    )
    assert set(np.unique(pooled[0][~pooled[1]])) == {100.0}


# --------------------------------------------------------------------------------------------
# the probe on a split with planted false-negative labels
# --------------------------------------------------------------------------------------------
def _planted(mu=1.0, n_users=60, n_items=400, n_train=20, n_test=30, seed=0):
    g = np.random.default_rng(seed)
    train, test = [], []
    for u in range(n_users):
        items = g.permutation(n_items)
        train += [(u, i) for i in items[:n_train]]
        test += [(u, i) for i in items[n_train : n_train + n_test]]
    d = load_split(np.array(train), np.array(test))
    scores = g.normal(size=(d.n_users, d.n_items))
    tm = d.test_mask()
    scores[tm] += mu  # false negatives ~ N(mu, 1), true negatives ~ N(0, 1)
    scores[d.train_mask()] += 2.0
    return d, scores


def test_probe_recovers_planted_alpha_and_tau():
    mu = 1.0
    d, scores = _planted(mu)
    rec = probe_scores(scores, d, n_anchors=600, fit_size=380, n_negatives=5, rng=0)
    alpha_true = st.norm.cdf(mu / math.sqrt(2))  # P(N(0,1) < N(mu,1))
    # 60 users x 30 FN x 350 TN pairs, strongly dependent within a user: the standard error of a
    # pooled AUC over 1800 FN and 21000 TN scores is below 0.01; 0.03 is > 3 of them
    assert abs(rec.measured["alpha"] - alpha_true) < 0.03
    # the fit half holds about half of each user's 380 unlabeled items, all of them in the fit batch:
    # the share of false negatives is hypergeometric around 30 / 380 (sd ~ 0.0045 pooled over 60 users)
    assert rec.measured["tau_plus"] == pytest.approx(30 / 380, abs=0.01)
    tau_eval = 1 - rec.eval_tn.mean()
    assert abs(tau_eval - 30 / 380) < 5 * math.sqrt((30 / 380) * (350 / 380) / rec.eval_tn.size)
    assert rec.measured["alpha_model"] == pytest.approx(
        float(cal.alpha_from_auc(rec.measured["alpha"]))
    )
    assert rec.eval_neg.shape == (600, 5)


def test_probe_posterior_is_eq_4_14_with_the_ecdf_over_n_plus_1():
    d, scores = _planted(1.0, n_users=5, n_items=50, n_train=5, n_test=5)
    rec = probe_scores(scores, d, n_anchors=8, fit_size=1000, rng=1)
    u = 0
    unl = np.flatnonzero(~d.train_mask()[u])
    row = scores[u, unl]
    counts = d.item_counts()
    preds = []
    for j in unl:
        F = (row <= scores[u, j]).sum() / (unl.size + 1)
        preds.append(1 - float(est.bns_unbias(F, counts[j] / len(d.train))))
    # user 0's fit batch is its whole fit half (fit_size exceeds it): its items' predictions, in order
    items0 = rec.fit_items[0][rec.fit_items[0] >= 0]
    pred_of = dict(zip(unl.tolist(), preds))
    mine = rec.posterior[: items0.size, 0]
    np.testing.assert_allclose(mine, [pred_of[j] for j in items0.tolist()], atol=1e-12)


def test_probe_measures_errors_with_the_shared_estimator_code():
    d, scores = _planted(0.5, seed=3)
    rec = probe_scores(scores, d, n_anchors=300, fit_size=100, t=2.0, rng=4)
    m = rec.measured
    again = cal.estimator_errors(
        rec.eval_neg,
        rec.eval_tn,
        rec.eval_pos,
        t=2.0,
        alpha=min(max(m["alpha"], 0.5), 1.0),
        tau_plus=m["tau_plus"],
    )
    for name in cal.ESTIMATORS:
        assert m[f"mse_{name}"] == again[name]["mse"]


def test_probe_validation_and_prior_ks():
    d, scores = _planted(0.5, n_users=10, n_items=60, n_train=5, n_test=5)
    with pytest.raises(ValueError, match="scores must have shape"):
        probe_scores(scores[:, :5], d)
    bad = scores.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        probe_scores(bad, d)
    with pytest.raises(ValueError, match="n_negatives"):
        probe_scores(scores, d, n_negatives=0)
    # scores that *are* variance-gamma inner products: a small KS distance to the prior
    g = np.random.default_rng(0)
    w, h = g.normal(0, 0.1, (d.n_users, 32)), g.normal(0, 0.1, (d.n_items, 32))
    rec = probe_scores(w @ h.T, d, fit_size=55, prior=(32, 0.01))
    assert rec.measured["ks_prior"] < 0.1
    rec = probe_scores(3.0 * (w @ h.T), d, fit_size=55, prior=(32, 0.01))
    assert rec.measured["ks_prior"] > 0.2


def test_score_probe_is_reproducible_and_independent_of_its_call_order():
    d, scores = _planted(0.5, n_users=10, n_items=60, n_train=5, n_test=5)
    p1, p2 = (
        ScoreProbe(d, rng=5, n_anchors=20, fit_size=30),
        ScoreProbe(d, rng=5, n_anchors=20, fit_size=30),
    )
    p1(0, scores)
    p1(3, scores)
    p2(3, scores)
    np.testing.assert_array_equal(p1.records[1].eval_neg, p2.records[0].eval_neg)
    cal_df = p1.calibration(bins=4)
    assert set(cal_df.epoch) == {0, 3} and (cal_df.n > 0).all()
    assert list(p1.frame().epoch) == [0, 3]


def test_deferred_measurements_equal_the_immediate_ones():
    from negtheory.recsys.score_probe import finish

    d, scores = _planted(0.8, n_users=20, n_items=120, n_train=10, n_test=10, seed=6)
    now = probe_scores(scores, d, n_anchors=100, fit_size=60, rng=3)
    later = probe_scores(scores, d, n_anchors=100, fit_size=60, rng=3, defer=True)
    assert "mse_biased" not in later.measured and "k_star" not in later.measured
    strip = lambda m: {k: v for k, v in m.items() if k != "probe_seconds"}  # noqa: E731  (its own cost varies)
    assert strip(finish(later).measured) == strip(now.measured)


# --------------------------------------------------------------------------------------------
# issue 28: disjoint halves, the tail, the label-free alpha, the robust errors
# --------------------------------------------------------------------------------------------
def test_probe_fit_and_eval_sides_never_share_an_item():
    d, scores = _planted(0.8, n_users=40, n_items=200, n_train=15, n_test=20, seed=2)
    d = d.with_validation(0.2, rng=1)
    for epoch in (0, 3):  # the halves are fixed for the run: the same at every probe point
        rec = probe_scores(scores, d, epoch=epoch, n_anchors=300, fit_size=150, redraws=3, rng=7)
        fit_sets = {u: set() for u in range(d.n_users)}
        for fb in rec.fits:
            for u in range(d.n_users):
                fit_sets[u] |= set(fb.items[u][fb.items[u] >= 0].tolist())
        overlap = sum(
            len(fit_sets[u] & set(row.tolist())) for u, row in zip(rec.eval_users, rec.eval_items)
        )
        assert overlap == 0
        # each side is about half of a user's unlabeled items (a fair coin per item), and the eval items
        # are distinct within an anchor and never training items
        n_unl = d.n_items - np.bincount(d.train[:, 0], minlength=d.n_users)
        sizes = np.array([len(fit_sets[u]) for u in range(d.n_users)])
        assert abs(sizes.sum() / n_unl.sum() - 0.5) < 0.03
        assert all(len(set(r.tolist())) == r.size for r in rec.eval_items)
        tm = d.train_mask()
        assert not tm[rec.eval_users[:, None], rec.eval_items].any()
        assert np.array_equal(rec.eval_neg, scores[rec.eval_users[:, None], rec.eval_items])
        # the fit half's largest scores (the parent's upper tail) are scores of fit-side items only: with
        # continuous scores each value names its item
        for u in range(d.n_users):
            top = rec.fit_top[u][np.isfinite(rec.fit_top[u])]
            items = {int(np.flatnonzero(scores[u] == v)[0]) for v in top}
            assert not items & set(rec.eval_items[rec.eval_users == u].ravel().tolist())
            assert not tm[u, list(items)].any()
            assert len(top) == min(rec.fit_top.shape[1], rec.n_fit_half[u])
            assert (
                top.min()
                >= np.sort(rec.fits[0].unlabeled[u][np.isfinite(rec.fits[0].unlabeled[u])])[
                    -len(top) :
                ].min()
                - 1e-12
            )


def test_probe_blocks_of_rows_give_the_dense_result():
    d, scores = _planted(0.8, n_users=30, n_items=100, n_train=10, n_test=10, seed=4)

    class Blocks:
        shape = scores.shape

        def block(self, users):
            return scores[users]

    a = probe_scores(scores, d, n_anchors=100, fit_size=40, redraws=2, rng=1)
    b = probe_scores(Blocks(), d, n_anchors=100, fit_size=40, redraws=2, rng=1)
    np.testing.assert_array_equal(a.eval_neg, b.eval_neg)
    np.testing.assert_array_equal(a.fits[1].unlabeled, b.fits[1].unlabeled)
    assert {k: v for k, v in a.measured.items() if k != "probe_seconds"} == {
        k: v for k, v in b.measured.items() if k != "probe_seconds"
    }


@pytest.mark.parametrize("alpha", [0.6, 0.8, 0.95])
def test_label_free_alpha_recovers_a_planted_alpha(alpha):
    # scores from the thesis's own model: a N(0,1) parent per user, true negatives from phi_TN and
    # held-out items (test and validation) from phi_FN at alpha (exact inverse CDFs in v = Phi(x))
    g = np.random.default_rng(11)
    n_users, n_items, n_train, n_held = 300, 300, 20, 30
    train, test = [], []
    scores = np.empty((n_users, n_items))
    for u in range(n_users):
        items = g.permutation(n_items)
        train += [(u, i) for i in items[:n_train]]
        test += [(u, i) for i in items[n_train : n_train + n_held]]
        v_tn = cal.class_conditional_ppf(g.random(n_items), "tn", alpha)
        v_fn = cal.class_conditional_ppf(g.random(n_held), "fn", alpha)
        scores[u] = st.norm.ppf(np.clip(v_tn, 1e-12, 1 - 1e-12))
        scores[u, items[n_train : n_train + n_held]] = st.norm.ppf(np.clip(v_fn, 1e-12, 1 - 1e-12))
        scores[u, items[:n_train]] = 5.0
    # the validation split takes a third of the held-out pairs: move them from test to valid
    test = np.array(test)
    pick = g.random(len(test)) < 1 / 3
    from negtheory.recsys import Interactions

    d = Interactions(n_users, n_items, np.array(train), test[~pick], test[pick])
    rec = probe_scores(scores, d, n_anchors=500, fit_size=140, rng=0)
    m = rec.measured
    # 300 users x ~10 validation items x ~125 pool items: the pooled AUC's sd is about 0.004, that of
    # alpha_hat = 3/2 A - 1/4 about 0.006; 0.03 is 5 of them
    assert m["alpha_source"] == "validation labels"
    assert m["alpha_hat"] == pytest.approx(alpha, abs=0.03)
    assert m["alpha_valid_auc"] == pytest.approx(float(cal.model_auc(alpha)), abs=0.02)
    assert m["alpha_at_bound"] == 0.0
    assert m["tau_plus_hat"] == pytest.approx(n_held / (n_items - n_train), rel=0.1)


def test_tail_extends_beyond_the_fit_maximum_and_recovers_planted_quantiles():
    g = np.random.default_rng(3)
    # exponential: a GPD tail with xi = 0 exactly; GPD(-0.3): a bounded tail; 128 draws per user
    for sample, dist, xi in (
        (g.exponential(size=(400, 128)), st.expon(), 0.0),
        (st.genpareto(-0.3).rvs(size=(400, 128), random_state=4), st.genpareto(-0.3), -0.3),
    ):
        q = cal.UserQuantiles(sample, tail="auto")
        # the shared shape (0 when the z-test keeps the exponential tail; a 5 % test may reject it)
        assert q.tail.xi == pytest.approx(xi, abs=0.08)
        kind = q.tail.kind
        users = np.arange(400)
        for level in (0.99, 0.999, 0.9999):
            got = np.mean(q.ppf(users, np.full(400, level)))
            # the mean over users of each user's extrapolated quantile: within 7 % of the truth (the
            # plain quantile function, stuck at the maximum of 128 draws, is 20-40 % low at 0.999-0.9999)
            assert got == pytest.approx(dist.ppf(level), rel=0.07), (kind, level)
        # beyond the sample's maximum, where the plain quantile function stops (for the unbounded
        # law; the bounded one's fitted tail may end below a user's largest draw)
        top = q.ppf(users, np.full(400, 1 - 1e-6))
        if xi == 0.0:
            assert np.all(top > q.sorted[:, -1])
        else:
            assert np.mean(top > q.sorted[:, -1]) > 0.5
        plain = cal.UserQuantiles(sample)
        assert np.all(plain.ppf(users, np.full(400, 1 - 1e-6)) == plain.sorted[:, -1])
        # below the threshold the tail leaves the empirical quantile function untouched
        np.testing.assert_array_equal(
            q.ppf(users, np.full(400, 0.5)), plain.ppf(users, np.full(400, 0.5))
        )
    with pytest.raises(ValueError, match="tail"):
        cal.UserQuantiles(sample, tail="pareto")


def test_estimator_errors_robust_companions():
    g = np.random.default_rng(0)
    neg = g.normal(size=(2000, 5))
    tn = g.random((2000, 5)) > 0.05
    tn[:, 0] = True
    r = cal.estimator_errors(neg, tn, g.normal(size=2000), alpha=0.8, tau_plus=0.05)["biased"]
    x = np.exp(neg)
    truth = (x * tn).sum(1) / tn.sum(1)
    e2 = np.sort((x.mean(1) - truth) ** 2)
    assert r["median_se"] == pytest.approx(np.median(e2))
    assert r["trimmed_mse"] == pytest.approx(e2[:-2].mean())  # the top 0.1 % of 2000 anchors: 2
    assert r["top_share"] == pytest.approx(e2[-2:].sum() / e2.sum())
    assert cal.tail_share([1.0] * 999 + [1001.0]) == pytest.approx(0.5005)


def test_user_quantiles_upper_tail_from_a_larger_sample():
    g = np.random.default_rng(8)
    full = np.sort(g.normal(size=(50, 2000)), axis=1)
    batch = np.stack([row[g.permutation(2000)[:128]] for row in full])
    q = cal.UserQuantiles(batch, upper=(full[:, -64:], np.full(50, 2000)))
    users = np.arange(50)
    # above the top-64's first level the quantile function is the larger sample's own (Hazen, linear)
    for level in (0.975, 0.99, 0.999):
        np.testing.assert_allclose(
            q.ppf(users, np.full(50, level)),
            [np.quantile(r, level, method="hazen") for r in full],
            atol=1e-12,
        )
    assert np.all(q.ppf(users, np.ones(50)) == full[:, -1])  # reaches the larger sample's maximum
    np.testing.assert_array_equal(
        q.ppf(users, np.full(50, 0.5)), cal.UserQuantiles(batch).ppf(users, np.full(50, 0.5))
    )
    with pytest.raises(ValueError, match="upper"):
        cal.UserQuantiles(batch, upper=(full[:3, -64:], np.full(3, 2000)))
    with pytest.raises(ValueError, match="n_total"):
        cal.UserQuantiles(batch, upper=(full[:, -64:], np.full(50, 10)))
