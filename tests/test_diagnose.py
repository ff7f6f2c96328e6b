"""negtheory.diagnose: the label-free estimates of a training run, checked on planted data whose
false negatives, alpha and tau+ are known (Monte-Carlo tolerances stated per assertion)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st

from negtheory import calibration as cal
from negtheory import diagnose


def _planted(alpha=0.85, tau=0.06, n_anchors=4000, n_cand=100, label_fraction=0.4, seed=0):
    """Candidates from the thesis's model: a N(0,1) parent, false negatives (prob tau) from phi_FN and
    true negatives from phi_TN at alpha; a share ``label_fraction`` of the false negatives is labelled."""
    g = np.random.default_rng(seed)
    fn = g.random((n_anchors, n_cand)) < tau
    v = np.where(
        fn,
        cal.class_conditional_ppf(g.random(fn.shape), "fn", alpha),
        cal.class_conditional_ppf(g.random(fn.shape), "tn", alpha),
    )
    cand = st.norm.ppf(np.clip(v, 1e-12, 1 - 1e-12))
    lab = fn & (g.random(fn.shape) < label_fraction)
    pos = (
        st.norm.ppf(
            np.clip(cal.class_conditional_ppf(g.random(n_anchors), "fn", alpha), 1e-12, 1 - 1e-12)
        )
        + 1.0
    )
    return cand, fn, lab, pos


def _samplers(cand, g):
    """Column indices of the negatives drawn by RNS (uniform), PNS-like (a fixed item preference) and DNS
    (the highest-scored of 5 uniform candidates), 5 per anchor."""
    a, c = cand.shape
    rns = np.stack([g.choice(c, 5, replace=False) for _ in range(a)])
    w = np.linspace(1.0, 3.0, c)
    pns = np.stack([g.choice(c, 5, replace=False, p=w / w.sum()) for _ in range(a)])
    pools = np.stack([g.choice(c, 25, replace=False) for _ in range(a)]).reshape(a, 5, 5)
    dns = np.take_along_axis(
        pools,
        np.argmax(np.take_along_axis(cand[:, None, :].repeat(5, 1), pools, 2), axis=2)[..., None],
        2,
    )[..., 0]
    return {"rns": rns, "pns": pns, "dns": dns}


@pytest.mark.parametrize("law", ["empirical", "theory"])
def test_diagnose_recovers_the_planted_false_negative_rate(law):
    cand, fn, lab, pos = _planted()
    g = np.random.default_rng(1)
    for name, idx in _samplers(cand, g).items():
        neg = np.take_along_axis(cand, idx, 1)
        truth = np.take_along_axis(fn, idx, 1).mean()
        d = diagnose(pos, cand, neg, labels=lab, label_fraction=0.4, law=law)
        # 20 000 sampled negatives: the labelled rate's own sd is <= 0.004 (rns) to 0.006 (dns); the
        # estimate (tau+ from ~9 600 labels, the rank law from a 50-bin histogram) within 20 % relative
        assert d.fn_rate == pytest.approx(truth, rel=0.2), (name, law, d.fn_rate, truth)
    assert d.tau_plus == pytest.approx(0.06, rel=0.05)
    # the label-free alpha: A(0.85) = 1/2 + 0.7/3; 9 600 labelled x 94 000 unlabelled pairs per anchor set
    assert (
        d.alpha == pytest.approx(0.85, abs=0.03)
        and d.alpha_source == "labels"
        and not d.alpha_at_bound
    )
    assert set(d.predicted_mse) == set(cal.ESTIMATORS)


def test_diagnose_hard_negatives_carry_more_false_negatives_than_uniform_ones():
    cand, fn, lab, pos = _planted(alpha=0.95)
    s = _samplers(cand, np.random.default_rng(2))
    r = {
        k: diagnose(
            pos, cand, np.take_along_axis(cand, v, 1), labels=lab, label_fraction=0.4
        ).fn_rate
        for k, v in s.items()
    }
    assert r["dns"] > 2 * r["rns"]


def test_diagnose_without_labels_uses_eq_6_21_and_needs_tau():
    cand, fn, lab, pos = _planted(n_anchors=500)
    d = diagnose(pos, cand, tau_plus=0.06, law="theory")
    assert d.alpha_source == "positives (eq. 6.21)" and d.tau_plus == 0.06
    assert d.train_auc == pytest.approx(np.mean(cand < pos[:, None]), abs=1e-12)
    with pytest.raises(ValueError, match="tau_plus"):
        diagnose(pos, cand, law="theory")
    with pytest.raises(ValueError, match="law='empirical' needs labels"):
        diagnose(pos, cand, tau_plus=0.06)
    with pytest.raises(ValueError, match="labels"):
        diagnose(pos, cand, labels=np.zeros(cand.shape, dtype=bool))
    with pytest.raises(ValueError, match="candidates"):
        diagnose(pos, cand[:, :1], tau_plus=0.1, law="theory")
    with pytest.raises(ValueError, match="label_fraction"):
        diagnose(pos, cand, labels=lab, label_fraction=0.0)
    assert list(d.frame().columns)[:3] == ["alpha", "auc", "alpha_at_bound"]


def test_diagnose_widened_family_reaches_a_trained_model_and_says_so():
    # candidates planted from the order-statistic family at A = 0.95 (order 3): the thesis's laws stop at
    # A = 5/6 (alpha at its bound 1), the order-statistic family recovers the order and the true FN rate
    from scipy import stats

    from negtheory import calibration as cal

    g = np.random.default_rng(11)
    n_anchors, c, tau = 3000, 60, 0.1
    fn = g.random((n_anchors, c)) < tau
    q = g.random((n_anchors, c))
    v = np.where(
        fn,
        cal.class_conditional_ppf(q, "fn", 1.0, order=3.0),
        cal.class_conditional_ppf(q, "tn", 1.0, order=3.0),
    )
    cand = stats.norm.ppf(np.clip(v, 1e-12, 1 - 1e-12))
    lab = fn & (g.random(fn.shape) < 0.5)  # half the false negatives known (a validation split)
    # a hard sampler: the top 5 candidates of each anchor
    neg = np.sort(cand, axis=1)[:, -5:]
    truth = float(np.take_along_axis(fn, np.argsort(cand, axis=1)[:, -5:], axis=1).mean())
    wide = diagnose(cand.max(axis=1) + 1.0, cand, neg, labels=lab, label_fraction=0.5, law="theory")
    thesis = diagnose(
        cand.max(axis=1) + 1.0,
        cand,
        neg,
        labels=lab,
        label_fraction=0.5,
        law="theory",
        family="thesis",
    )
    assert not wide.alpha_at_bound and abs(wide.order - 3.0) < 0.3 and abs(wide.auc - 0.95) < 0.01
    assert thesis.alpha_at_bound and thesis.order == 2.0 and "bound" in thesis.summary()
    assert (
        abs(wide.fn_rate_theory - truth) < 0.2 * truth
    )  # the widened laws predict the hard sampler's FN rate
    assert abs(thesis.fn_rate_theory - truth) > abs(wide.fn_rate_theory - truth)
    assert wide.theta_scale > 0 and "per anchor" in wide.summary()
    with pytest.raises(ValueError, match="family"):
        diagnose(cand[:, 0], cand, family="gamma", tau_plus=0.1, law="theory")
