"""The two backends of the one trainer agree: the numba batch-1 SGD and the torch trainer at batch 1 (issue 67).

The numba backend is an implementation of a subset of the combinations, not another method:
for a combination both run, the torch trainer (``engine="torch"``) must give the same law of
outcomes. The two use different random streams (numba's generator for the shuffle and the draws,
numpy's for the torch trainer), so the runs are compared as distributions over seeds:

* the sampler's law: the negatives each backend draws for the same split are uniform over each
  user's non-interacted items (a chi-square test per backend, pooled over users);
* the training's law: the final loss and test NDCG of MF + BPR + RNS by SGD at batch 1 (the same
  initial law N(0, 0.1^2), the same lr, the L2 of the touched rows) over 24 seeds per backend,
  two-sample Kolmogorov-Smirnov and Welch tests at level 1e-3 (the tolerance of this file).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from toy_data import fit_with_negatives

pytest.importorskip("torch")

from negtheory.recsys import load_split  # noqa: E402
from negtheory.training import BPR, MF, RNS, SGD, Evaluation, fit  # noqa: E402


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    pairs = np.unique(rng.integers(0, [15, 25], size=(260, 2)), axis=0)
    rng.shuffle(pairs)
    return load_split(pairs[:180], pairs[180:])


def _final(r):
    h = r.history[-1]
    return h["loss"], h["test_ndcg@5"]


def test_both_backends_train_bpr_mf_with_the_same_law(data):
    kw = dict(
        model=MF(dim=4, init_std=0.1),
        loss=BPR(),
        sampler=RNS(),
        optimizer=SGD(lr=0.05, weight_decay=0.01),
        epochs=3,
        evaluation=Evaluation(every=3, ks=(5,)),
    )
    numba = np.array([_final(fit(data, **kw, rng=s)) for s in range(24)])
    torch_ = np.array([_final(fit(data, **kw, rng=s, engine="torch")) for s in range(24)])
    assert fit(data, **kw).engine == "sgd"
    for col in range(2):
        a, b = numba[:, col], torch_[:, col]
        assert stats.ks_2samp(a, b).pvalue > 1e-3, (col, a.mean(), b.mean())
        assert stats.ttest_ind(a, b, equal_var=False).pvalue > 1e-3, (col, a.mean(), b.mean())
    # and the runs learn: the loss falls well below ln 2 (an untrained BPR's) on both
    assert numba[:, 0].mean() < 0.69 and torch_[:, 0].mean() < 0.69


def test_both_backends_draw_uniform_non_interacted_negatives(data):
    # the numba kernel's own draws (recorded) and the host draws of the torch trainer's RNS
    rec = fit_with_negatives(
        data, model=MF(dim=4), loss=BPR(), sampler=RNS(), optimizer=SGD(), epochs=40, rng=0
    )
    # per epoch (the pairs in the order visited, the negative of each)
    users = np.concatenate([visit[:, 0] for visit, _ in rec.negatives])
    negs = np.concatenate([neg for _, neg in rec.negatives])
    host = RNS().bind(data).draw(users, 1, rng=0)[:, 0]
    train = data.train_mask()
    assert len(users) == 40 * len(data.train)
    for drawn in (negs, host):
        assert not train[users, drawn].any()
        # per user: the counts over its non-interacted items against uniform, pooled into one statistic
        chi2, dof = 0.0, 0
        for u in np.unique(users):
            free = np.flatnonzero(~train[u])
            counts = np.bincount(drawn[users == u], minlength=data.n_items)[free]
            expected = counts.sum() / len(free)
            chi2 += ((counts - expected) ** 2 / expected).sum()
            dof += len(free) - 1
        assert stats.chi2.sf(chi2, dof) > 1e-3
