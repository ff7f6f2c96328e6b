"""Scale (issue 29): score matrices by blocks, evaluation from CSR sets, CSR samplers, scalable BNS.

The blocked evaluation must equal the dense one bit for bit, the CSR samplers must draw exactly
what the dense-mask ones draw, and nothing on the training / evaluation path may build an
n_users x n_items matrix on data above the dense limit.
"""

from __future__ import annotations

import numpy as np
import pytest
from toy_data import fit_with_negatives

from negtheory.recsys import load_split, topk_metrics
from negtheory.recsys.loop import DENSE_LIMIT, ScoreMatrix, train_loop
from negtheory.recsys.metrics import topk_metrics_csr
from negtheory.recsys.samplers import sample_popular, sample_uninteracted
from negtheory.training import (
    BCL,
    BNS,
    BPR,
    DCL,
    DNS,
    MF,
    PNS,
    RNS,
    SGD,
    SRNS,
    Adam,
    Evaluation,
    InfoNCE,
    fit,
)

#: the mini-batch engine with the released code's Adam (lr 1e-3, weight decay 1e-5, lr / 10 after epoch 100)
_ADAM = Adam(milestones=(100,))


def _split(seed=0, n_users=60, n_items=90, n=1500, valid=0.0):
    rng = np.random.default_rng(seed)
    pairs = np.unique(rng.integers(0, [n_users, n_items], size=(n, 2)), axis=0)
    pairs = pairs[rng.permutation(len(pairs))]
    cut = int(0.8 * len(pairs))
    d = load_split(pairs[:cut], pairs[cut:])
    return d.with_validation(valid, rng=seed) if valid else d


# ------------------------------------------------------------------------------------------
# ScoreMatrix
# ------------------------------------------------------------------------------------------
def test_score_matrix_reads_agree():
    rng = np.random.default_rng(0)
    W = rng.normal(size=(50, 8)).astype(np.float32)
    H = rng.normal(size=(70, 8)).astype(np.float32)
    # the float64 product rounded once to float32: what a fixed-order float64 sum gives (the float32
    # products are exact in float64; a different summation order moves the float64 sum by ~1e-16, far
    # below float32's last place)
    dense = (W.astype(np.float64) @ H.T.astype(np.float64)).astype(np.float32)
    for limit in (DENSE_LIMIT, 0):  # whole-once and blocked
        s = ScoreMatrix.from_embeddings(W, H, dense_limit=limit)
        assert s.shape == (50, 70) and s.dtype == np.float32 and s.ndim == 2
        np.testing.assert_array_equal(np.asarray(s), dense)
        np.testing.assert_allclose(
            np.asarray(s), W @ H.T, rtol=1e-5, atol=1e-6
        )  # numpy's float32 BLAS product
        users = rng.integers(0, 50, 300)
        items = rng.integers(0, 70, 300)
        rows = s.block(users)
        assert rows.shape == (300, 70)
        # pairs are the blocks' entries and the blocks the whole matrix's rows, bit for bit
        np.testing.assert_array_equal(s.pairs(users, items), rows[np.arange(300), items])
        np.testing.assert_array_equal(rows, dense[users])
        assert s.block(np.array([], dtype=np.int64)).shape == (0, 70)
        assert np.asarray(s, dtype=np.float64).dtype == np.float64
    # a snapshot: later changes of the embeddings do not reach it
    s = ScoreMatrix.from_embeddings(W, H)
    W[:] = 0
    np.testing.assert_array_equal(np.asarray(s), dense)
    with pytest.raises(ValueError, match="users"):
        s.block(np.array([50]))
    with pytest.raises(ValueError, match="items"):
        s.pairs(np.array([0]), np.array([70]))
    a = np.arange(6.0).reshape(2, 3)
    f = ScoreMatrix.from_array(a)
    assert np.asarray(f) is a and f.block(np.array([1])).tolist() == [[3.0, 4.0, 5.0]]


def test_blocked_rows_equal_the_whole_product():
    # blocks of any size and order reproduce the rows of the whole matrix bit for bit (a BLAS product's rows
    # need not: their rounding depends on the block's shape and a row's place in it), and the whole matrix is
    # the float64 product rounded once to float32
    rng = np.random.default_rng(3)
    W = rng.normal(0, 0.1, size=(700, 32)).astype(np.float32)
    H = rng.normal(0, 0.1, size=(1682, 32)).astype(np.float32)
    s = ScoreMatrix.from_embeddings(W, H, dense_limit=0)
    whole = np.asarray(s)
    np.testing.assert_array_equal(
        whole, (W.astype(np.float64) @ H.T.astype(np.float64)).astype(np.float32)
    )
    for users in (
        np.array([5]),
        np.array([3, 9]),
        rng.integers(0, 700, 17),
        rng.permutation(700),
        np.arange(700),
    ):
        np.testing.assert_array_equal(s.block(users), whole[users])
    # float64 tables: the sum is the float64 one
    s64 = ScoreMatrix.from_embeddings(W.astype(np.float64), H.astype(np.float64), dense_limit=0)
    assert s64.dtype == np.float64
    np.testing.assert_allclose(
        s64.block(np.arange(3)), W[:3].astype(np.float64) @ H.T.astype(np.float64), rtol=1e-12
    )


# ------------------------------------------------------------------------------------------
# blocked evaluation
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("block", [1, 2, 7, 64, None])
def test_blocked_topk_equals_dense(block):
    d = _split(seed=2, valid=0.15)
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(d.n_users, d.n_items))
    scores[:, ::7] = np.round(scores[:, ::7])  # ties, broken by the lower item index
    tr, va, te = d.train_mask(), d.valid_mask(), d.test_mask()
    for rel, ex, rel_c, ex_c in [
        (va, tr, d.valid_csr(), (d.train_csr(),)),
        (te, tr | va, d.test_csr(), (d.train_csr(), d.valid_csr())),
    ]:
        want = topk_metrics(scores, rel, ex, (1, 5, 20))
        for sm in (
            scores,
            ScoreMatrix.from_array(scores),
            ScoreMatrix.from_array(scores.astype(np.float32)),
        ):
            got = topk_metrics_csr(sm, rel_c, ex_c, (1, 5, 20), block_users=block)
            if sm is scores or sm.dtype == np.float64:
                assert got == want  # bit for bit
            else:
                assert got == topk_metrics(scores.astype(np.float32), rel, ex, (1, 5, 20))
    with pytest.raises(ValueError, match="NaN"):
        bad = scores.copy()
        bad[d.test[0, 0], 3] = np.nan
        topk_metrics_csr(bad, d.test_csr(), (), 5, block_users=block)


def test_train_loop_blocked_equals_dense_evaluation():
    # the same runner ranked whole (dense limit) and by blocks of 3 users: identical histories
    d = _split(seed=4, valid=0.1)
    rng = np.random.default_rng(0)
    W = rng.normal(size=(d.n_users, 6)).astype(np.float32)
    H = rng.normal(size=(d.n_items, 6)).astype(np.float32)

    class Runner:
        def __init__(self, limit):
            self.limit = limit

        def run_epoch(self, epoch):
            W[:] *= 1.01
            return {"loss": 0.0}

        def score_matrix(self):
            return ScoreMatrix.from_embeddings(W, H, dense_limit=self.limit)

    W0 = W.copy()
    dense = train_loop(Runner(DENSE_LIMIT), d, epochs=2, topk=(3, 10))["history"]
    W[:] = W0
    blocked = train_loop(Runner(0), d, epochs=2, topk=(3, 10), block_users=3)["history"]
    assert dense == blocked
    # with it the dense masks of the old evaluation
    sc = W0 * 1.01 @ H.T
    want = topk_metrics(sc, d.test_mask(), d.train_mask() | d.valid_mask(), (3, 10))
    assert dense[0]["test_ndcg@10"] == want["ndcg@10"]


def test_runner_with_dense_scores_only_still_works():
    d = _split(seed=5)

    class Old:
        def run_epoch(self, epoch):
            return {}

        def scores(self):
            return np.tile(np.arange(d.n_items, dtype=float), (d.n_users, 1))

    seen = []
    r = train_loop(
        Old(),
        d,
        epochs=1,
        topk=(5,),
        eval_on=("test",),
        callbacks=[lambda e, s: seen.append(type(s))],
    )
    assert seen == [ScoreMatrix, ScoreMatrix] and "test_ndcg@5" in r["history"][0]


# ------------------------------------------------------------------------------------------
# CSR samplers: the same draws as the dense masks
# ------------------------------------------------------------------------------------------
def test_csr_samplers_draw_as_dense():
    d = _split(seed=6, n_users=40, n_items=30, n=700)
    mask, csr = d.train_mask(), d.train_csr()
    users = np.random.default_rng(0).integers(0, d.n_users, 500)
    free = (~mask).sum(1)
    users = users[free[users] >= 3]
    a = sample_uninteracted(users, 3, mask, rng=7)
    b = sample_uninteracted(users, 3, csr, rng=7, n_items=d.n_items)
    np.testing.assert_array_equal(a, b)
    c = d.item_counts() + 1.0
    np.testing.assert_array_equal(
        sample_popular(users, 2, mask, c, rng=3),
        sample_popular(users, 2, csr, c, rng=3, n_items=d.n_items),
    )
    with pytest.raises(ValueError, match="n_items"):
        sample_uninteracted(users, 3, csr, rng=7)
    full = np.flatnonzero(free == free.min())[0]
    with pytest.raises(ValueError, match="fewer admissible"):
        sample_uninteracted(np.array([full]), int(free.min()) + 1, csr, rng=0, n_items=d.n_items)


# ------------------------------------------------------------------------------------------
# no dense n_users x n_items matrix above the limit
# ------------------------------------------------------------------------------------------
def test_trainers_build_no_dense_matrix(monkeypatch):
    import negtheory.recsys.interactions as inter
    import negtheory.recsys.loop as loop

    def boom(*a, **k):
        raise AssertionError("a dense n_users x n_items mask was built")

    monkeypatch.setattr(inter, "_mask", boom)
    monkeypatch.setattr(loop, "DENSE_LIMIT", 0)
    monkeypatch.setattr(ScoreMatrix, "_whole", boom)  # nothing materialises the dense scores
    d = _split(seed=8, valid=0.1)
    seen = []

    def cb(e, s):
        seen.append(s.block(np.array([0, 1])).shape)

    for samp in (RNS(), DNS(), BNS(), SRNS(), PNS()):
        r = fit(
            d,
            model=MF(dim=4),
            sampler=samp,
            epochs=1,
            evaluation=Evaluation(ks=(5,), on="both"),
            callbacks=[cb],
        )
        assert r.engine == "sgd" and np.isfinite(r.history[-1]["test_ndcg@5"])
    pytest.importorskip("torch")
    for loss, samp in (
        (InfoNCE(), RNS()),
        (BCL(), RNS()),
        (BPR(), BNS()),
        (BPR(), DNS()),
        (DCL(), PNS()),
    ):
        r = fit(
            d,
            model=MF(dim=4),
            loss=loss,
            sampler=samp,
            optimizer=_ADAM,
            epochs=1,
            evaluation=Evaluation(ks=(5,)),
            callbacks=[cb],
        )
        assert r.engine == "torch" and isinstance(r.scores, ScoreMatrix)
    assert set(seen) == {(2, d.n_items)}


# ------------------------------------------------------------------------------------------
# scalable BNS: F from a subsample of the non-interacted items
# ------------------------------------------------------------------------------------------
def test_bns_f_hat_is_unbiased():
    from negtheory.recsys._sgd_kernels import _f_hat

    rng = np.random.default_rng(0)
    neg = rng.normal(size=300).astype(np.float32)
    neg[:40] = np.round(neg[:40])  # ties
    n, S, reps = neg.size, 16, 20000
    for x in (neg[3], neg[100], np.float32(0.0), np.float32(-5.0), np.float32(5.0)):
        exact = np.sum(neg <= x) / (n + 1.0)
        est = np.array([_f_hat(neg[rng.integers(0, n, S)], x, n) for _ in range(reps)])
        se = est.std() / np.sqrt(reps) + 1e-12
        assert abs(est.mean() - exact) < 5 * se + 1e-12  # Monte-Carlo tolerance: 5 standard errors


def _wide_split(seed=0, n_users=30, n_items=400, per_user=25):
    rng = np.random.default_rng(seed)
    items = [rng.choice(n_items, per_user + 2, replace=False) for _ in range(n_users)]
    train = np.array([[u, i] for u in range(n_users) for i in items[u][:per_user]])
    test = np.array([[u, i] for u in range(n_users) for i in items[u][per_user:]])
    return load_split(train, test)


def test_bns_f_sample_whole_set_is_exact_and_subsample_close():
    d = _wide_split()
    kw = dict(model=MF(dim=8), epochs=2, evaluation=Evaluation(ks=(5,)), rng=3)
    exact = fit(d, sampler=BNS(), **kw)
    whole = fit(d, sampler=BNS(f_sample=d.n_items), **kw)  # S >= n: the exact F, the same draws
    np.testing.assert_array_equal(exact.user_emb, whole.user_emb)
    assert exact.history == whole.history and whole.config["bns_f_sample"] == d.n_items
    # a frozen model (lr so small that float32 updates vanish): the law of the chosen negative, binned by
    # its exact F, of F from 64 sampled items against the exact one; tolerance 0.04 in total variation
    # (Monte-Carlo noise of the 5 bins over 2 x 1500 draws: ~0.02)
    frozen = dict(
        model=MF(dim=8, init_std=1.0),
        optimizer=SGD(lr=1e-30),
        epochs=2,
        evaluation=Evaluation(ks=(5,)),
        rng=1,
    )
    a = fit_with_negatives(d, sampler=BNS(), **frozen)
    b = fit_with_negatives(d, sampler=BNS(f_sample=64), **frozen)
    U, V = a.user_emb, a.item_emb
    np.testing.assert_allclose(
        b.user_emb, U, rtol=1e-6
    )  # frozen: both score with the same initial tables
    tr = d.train_mask()

    def exact_f(pairs, negs):
        out = []
        for (u, _), j in zip(pairs, negs):
            s = U[u] @ V.T
            free = ~tr[u]
            out.append(np.sum(s[free] <= s[j]) / (free.sum() + 1.0))
        return np.array(out)

    fa = np.concatenate([exact_f(p, n) for p, n in a.negatives])
    fb = np.concatenate([exact_f(p, n) for p, n in b.negatives])
    bins = np.linspace(0, 1, 6)
    ha = np.histogram(fa, bins)[0] / fa.size
    hb = np.histogram(fb, bins)[0] / fb.size
    assert 0.5 * np.abs(ha - hb).sum() < 0.04
    with pytest.raises(ValueError, match=r"BNS\.f_sample"):
        BNS(f_sample=10, ecdf="candidates")
    with pytest.raises(ValueError, match=r"BNS\.f_sample"):
        BNS(f_sample=0)


def test_minibatch_bns_f_sample(monkeypatch):
    torch = pytest.importorskip("torch")
    from negtheory.training import negatives

    d = _wide_split(seed=1)
    kw = dict(
        model=MF(dim=8),
        loss=BPR(),
        optimizer=Adam(batch_size=64, milestones=(100,)),
        epochs=1,
        evaluation=Evaluation(ks=(5,)),
        rng=2,
    )
    exact = fit(d, sampler=BNS(), **kw)
    whole = fit(d, sampler=BNS(f_sample=d.n_items), **kw)  # S >= n: the exact F, the same draws
    assert exact.history == whole.history and whole.config["bns_f_sample"] == d.n_items
    for a, b in zip(exact.model.parameters(), whole.model.parameters()):
        assert torch.equal(a, b)
    # frozen model (lr 1e-30): the chosen negatives' exact F, F from 64 sampled items against the exact one
    seen = {}
    real = negatives._BoundBNS.choose

    def spy(self, users, positives, cand, scores, lam, rng):
        pick = real(self, users, positives, cand, scores, lam, rng)
        seen.setdefault(self.spec.f_sample or 0, []).append(
            (np.asarray(users).copy(), cand[np.arange(len(pick)), pick])
        )
        return pick

    monkeypatch.setattr(negatives._BoundBNS, "choose", spy)
    frozen = dict(
        kw,
        optimizer=kw["optimizer"].replace(lr=1e-30),
        epochs=4,
        evaluation=Evaluation(every=4, ks=(5,)),
    )
    r = fit(d, sampler=BNS(), **frozen)
    fit(d, sampler=BNS(f_sample=64), **frozen)
    S = np.asarray(r.scores).astype(np.float64)
    tr = d.train_mask()

    def law(key):
        f = np.concatenate(
            [
                [
                    np.sum(S[uu][~tr[uu]] <= S[uu, j]) / ((~tr[uu]).sum() + 1.0)
                    for uu, j in zip(u, c)
                ]
                for u, c in seen[key]
            ]
        )
        return np.histogram(f, np.linspace(0, 1, 6))[0] / f.size

    assert (
        0.5 * np.abs(law(0) - law(64)).sum() < 0.04
    )  # 2 x 3000 draws, 5 bins: Monte-Carlo noise ~0.02
