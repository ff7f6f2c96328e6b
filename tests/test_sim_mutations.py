"""The sim-vs-train comparison keeps its teeth: on planted score sets (drawn from the order-statistic
family at a known AUC, with each user's own scale and activity) the committed rule confirms the intact
calibrated simulation and refutes each deliberately broken one, judged against the same oracle and
blind control."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from negtheory import calibration as cal
from negtheory.recsys import split_interactions
from negtheory.recsys.score_probe import probe_scores
from negtheory.reproduce.sim_mutations import MUTATIONS, mutate
from negtheory.reproduce.sim_rule import judge_cell
from negtheory.reproduce.sim_vs_train import ESTIMATORS, simulate_point

SEEDS = 6


def _planted_scores(data, auc, g, scale):
    """Scores whose held-out items follow phi_FN and the other unlabeled items phi_TN of the family."""
    alpha, k, _ = cal.law_from_auc(auc)
    held = data.test_mask() | data.valid_mask()
    q = g.random(held.shape)
    v = np.where(
        held,
        cal.class_conditional_ppf(q, "fn", float(alpha), order=float(k)),
        cal.class_conditional_ppf(q, "tn", float(alpha), order=float(k)),
    )
    s = scale * stats.norm.ppf(np.clip(v, 1e-12, 1 - 1e-12))
    return np.where(data.train_mask(), scale * (1.5 + 0.5 * g.normal(size=s.shape)), s)


@pytest.fixture(scope="module")
def planted():
    g = np.random.default_rng(20261207)
    n_users, n_items = 1200, 300
    activity = g.gamma(2.0, 1.0, n_users)
    pairs = np.argwhere(g.random((n_users, n_items)) < 0.1 * activity[:, None] / activity.mean())
    data = split_interactions(pairs, 0.2, rng=0).with_validation(0.2, rng=0)
    scale = g.uniform(0.3, 0.6, data.n_users)[:, None]
    now = _planted_scores(data, 0.92, g, scale)
    earlier = _planted_scores(data, 0.7, g, scale)  # a less trained model of the same users
    kw = dict(n_anchors=12000, fit_size=100, redraws=2, n_negatives=5)
    recs = [probe_scores(now, data, rng=s, **kw) for s in range(SEEDS)]
    stale = [probe_scores(earlier, data, rng=s, **kw) for s in range(SEEDS)]
    return recs, stale


def _log_ratios(recs, source, broken=None, stale=None):
    rows = []
    for s, rec in enumerate(recs):
        r, tf = (rec, 1.0) if broken is None else mutate(rec, broken, stale=stale[s])
        main, _ = simulate_point(r, reps=2, rng=s, t=tf, sources=(source,), ablations=False)
        m = rec.measured
        rows.append(
            {
                e: np.mean([np.log(x[e]["mse"] / m[f"mse_{e}"]) for x in main[source]])
                for e in ESTIMATORS
            }
        )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def controls(planted):
    recs, _ = planted
    return _log_ratios(recs, "oracle"), _log_ratios(recs, "blind")


def test_the_intact_simulation_is_confirmed(planted, controls):
    recs, _ = planted
    assert all(r.measured["train_auc"] > 0.8 for r in recs)
    verdict, reason, iv = judge_cell(_log_ratios(recs, "calibrated"), *controls)
    assert verdict == "confirmed", reason
    # the oracle, told the planted truth, is unbiased within the goal band
    assert all(1 / 1.1 <= np.exp(v["oracle"][0]) <= 1.1 for v in iv.values())


@pytest.mark.parametrize("name", MUTATIONS)
def test_each_broken_simulation_is_refuted(planted, controls, name):
    recs, stale = planted
    verdict, reason, _ = judge_cell(
        _log_ratios(recs, "calibrated", broken=name, stale=stale), *controls
    )
    assert verdict == "refuted", (name, reason)


def test_mutate_validates_and_leaves_the_record_unchanged(planted):
    recs, stale = planted
    before = recs[0].fit_top.copy()
    broken, _ = mutate(recs[0], "scale_1.25")
    np.testing.assert_array_equal(recs[0].fit_top, before)
    np.testing.assert_allclose(broken.fit_top, 1.25 * before)
    with pytest.raises(ValueError, match="name"):
        mutate(recs[0], "tau_x4")
    with pytest.raises(ValueError, match="stale"):
        mutate(recs[0], "stale_parent")
