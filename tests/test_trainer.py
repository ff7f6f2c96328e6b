"""The one recommendation epoch loop (negtheory.recsys.loop) behind both engines of negtheory.training.fit.

The engines must reproduce, bit for bit, what the two hand-written loops gave before the refactor. The references here are plain re-statements of those loops (same seeding, same
order of random draws, same masks), written independently of :mod:`negtheory.recsys.loop`:

* SGD: the numba kernel ``_bpr_epoch`` called in a plain loop, with the SeedSequence spawned into
  (init, shuffle, one child per epoch) as the batch-1 engine does;
* MF: a plain torch loop over shuffled mini-batches with the same sampling calls.

Then the callback contract: ``cb(0, scores)`` once before training, ``cb(epoch, scores)`` after
each evaluated epoch with the matrix that epoch was ranked with, a returned dict merged into the
history row, and training unchanged bit for bit with or without callbacks.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from negtheory.recsys import Interactions, load_split, topk_metrics
from negtheory.recsys import bpr_sgd as sgd_mod
from negtheory.recsys.loop import ScoreMatrix
from negtheory.training import BNS, DCL, DNS, MF, RNS, SGD, Adam, Evaluation, InfoNCE, fit


def _split(seed=0, n_users=30, n_items=40, n=700, n_test=200, valid=None):
    rng = np.random.default_rng(seed)
    pairs = np.unique(rng.integers(0, [n_users, n_items], size=(n, 2)), axis=0)
    pairs = pairs[rng.permutation(len(pairs))]
    d = load_split(pairs[n_test:], pairs[:n_test])
    return d.with_validation(valid, rng=seed) if valid else d


def _metrics(prefix, scores, relevant, exclude, topk):
    m = topk_metrics(scores, relevant, exclude, topk)
    return {f"{prefix}_{k}": v for k, v in m.items() if k != "n_users_evaluated"}


# ------------------------------------------------------------------------------------------
# reference loops (today's code, restated plainly)
# ------------------------------------------------------------------------------------------
def _reference_sgd(
    data: Interactions,
    sampler,
    *,
    dim=8,
    lr=0.05,
    reg=0.01,
    epochs=5,
    candidates=5,
    lam=5.0,
    init_std=0.1,
    eval_every=2,
    topk=(5,),
    eval_on="both",
    seed=3,
):
    n_users, n_items = data.n_users, data.n_items
    indptr, indices = data.train_csr()
    t_indptr, t_indices = Interactions(n_users, n_items, data.test, data.test).train_csr()
    counts = data.item_counts()
    prior = sgd_mod.bns_prior(counts, len(data.train))[
        None, :
    ]  # one row: the same prior for every user
    pns_cdf = np.cumsum(sgd_mod.pns_weights(counts))
    children = np.random.SeedSequence(seed).spawn(2 + epochs)
    init = np.random.default_rng(children[0])
    U = init.normal(0.0, init_std, size=(n_users, dim)).astype(np.float32)
    V = init.normal(0.0, init_std, size=(n_items, dim)).astype(np.float32)
    shuffler = np.random.default_rng(children[1])
    order = shuffler.permutation(len(data.train))
    tr, va, te = data.train_mask(), data.valid_mask(), data.test_mask()
    history = []
    for epoch in range(epochs):
        if epoch > 0:
            order = shuffler.permutation(len(data.train))
        stats = np.zeros(4)
        kseed = int(children[2 + epoch].generate_state(1)[0] & 0x7FFFFFFF)
        # the kernel's oracle levels / candidate-eCDF switch and SRNS state at their defaults (unused by rns / bns);
        # loss code 0 (BPR) with one negative per pair
        sgd_mod._bpr_epoch(
            U,
            V,
            np.ascontiguousarray(data.train[order]),
            indptr,
            indices,
            t_indptr,
            t_indices,
            sgd_mod.SAMPLERS.index(sampler),
            candidates,
            lam,
            prior,
            False,
            1.0,
            0.04,
            False,
            pns_cdf,
            0.05 * n_items,
            np.float32(lr),
            np.float32(reg),
            kseed,
            stats,
            np.zeros(0, dtype=np.int64),
            np.zeros((1, 0), dtype=np.int64),
            np.zeros((1, 1, 1), dtype=np.float32),
            np.zeros((0, 1, 1), dtype=np.float32),
            np.zeros((0, 1, 1), dtype=np.float32),
            0,
            0.0,
            0,
            1.0,
            0,
            1,
            0,
        )
        if (epoch + 1) % eval_every == 0 or epoch == epochs - 1:
            row = dict(
                epoch=epoch + 1,
                loss=stats[3] / stats[0],
                tnr=1.0 - stats[1] / stats[0],
                inf=stats[2] / stats[0],
            )
            s = U @ V.T
            if eval_on in ("test", "both"):
                row.update(_metrics("test", s, te, tr | va, topk))
            if eval_on in ("valid", "both") and len(data.valid):
                row.update(_metrics("valid", s, va, tr, topk))
            history.append(row)
    return history, U, V


def _reference_mf(
    data: Interactions,
    loss,
    *,
    dim=8,
    epochs=30,
    batch_size=64,
    lr=0.05,
    weight_decay=1e-5,
    milestones=(10,),
    negatives=4,
    extra=3,
    temperature=1.0,
    topk=(5,),
    patience=2,
    seed=2,
):
    import torch

    from negtheory.bridge import build_loss
    from negtheory.bridge.recommend import MF, _loss
    from negtheory.recsys.samplers import sample_extra_positives, sample_uninteracted
    from negtheory.training.names import loss_spec

    m_extra = extra if loss in ("dcl", "hcl", "dpl") else 0
    # the loss module of the spec, as the trainer builds it (the loop around it is this test's own)
    module = build_loss(loss_spec(loss, negatives, max(m_extra, 1), temperature))
    model = MF(data.n_users, data.n_items, dim, generator=torch.Generator().manual_seed(seed))
    # the package trains on the CPU with torch's fused Adam (the same update in one pass)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay, fused=True)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=list(milestones), gamma=0.1)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    tr, va, te = data.train_mask(), data.valid_mask(), data.test_mask()
    indptr, indices = data.train_csr()
    n = len(data.train)
    history, best, best_epoch, since = [], -math.inf, None, 0
    for epoch in range(epochs):
        perm = rng.permutation(n)
        tot = 0.0
        for s in range(0, n, batch_size):
            b = data.train[perm[s : s + batch_size]]
            u = b[:, 0]
            cols = [b[:, 1:2]]
            if m_extra:
                cols.append(sample_extra_positives(u, m_extra, indptr, indices, rng))
            cols.append(sample_uninteracted(u, negatives, tr, rng))
            logits = (
                model(torch.from_numpy(u), torch.from_numpy(np.concatenate(cols, axis=1)))
                / temperature
            )
            lval = _loss(module, logits, m_extra)
            opt.zero_grad()
            lval.backward()
            opt.step()
            tot += float(lval.detach()) * len(b)
        sched.step()
        sc = model.all_scores().numpy()
        row = dict(epoch=epoch + 1, loss=tot / n)
        row.update(_metrics("valid", sc, va, tr, topk))
        row.update(_metrics("test", sc, te, tr | va, topk))
        history.append(row)
        val = row[f"valid_ndcg@{topk[0]}"]
        if val > best:
            best, best_epoch, since = val, epoch + 1, 0
        else:
            since += 1
            if since >= patience:
                break
    return history, best_epoch, model.all_scores().numpy()


def _same_history(a, b):
    assert len(a) == len(b)
    for ra, rb in zip(a, b):
        assert list(ra) == list(rb)  # same keys in the same order (history.csv columns)
        for k in ra:
            assert ra[k] == rb[k] or (math.isnan(ra[k]) and math.isnan(rb[k])), (k, ra[k], rb[k])


# ------------------------------------------------------------------------------------------
# bit for bit
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sampler", ["rns", "bns"])
def test_sgd_engine_matches_the_plain_loop(sampler):
    d = _split(valid=0.1)
    ref_hist, ref_U, ref_V = _reference_sgd(d, sampler)
    r = fit(
        d,
        model=MF(dim=8),
        sampler={"rns": RNS(), "bns": BNS()}[sampler],
        optimizer=SGD(lr=0.05),
        epochs=5,
        evaluation=Evaluation(every=2, ks=(5,), on="both"),
        rng=3,
    )
    assert r.engine == "sgd" and [h["epoch"] for h in r.history] == [2, 4, 5]
    _same_history(r.history, ref_hist)
    np.testing.assert_array_equal(r.user_emb, ref_U)
    np.testing.assert_array_equal(r.item_emb, ref_V)
    assert r.config == dict(
        sampler=sampler,
        dim=8,
        lr=0.05,
        reg=0.01,
        epochs=5,
        candidates=5,
        lam=5.0,
        prior="popularity",
        oracle_levels=(0.64, 0.04),
        ecdf="negatives",
        rank_scale=0.05 * d.n_items,
        init_std=0.1,
        shuffle="epoch",
        rng=3,
    )


@pytest.mark.parametrize("loss", ["infonce", "dcl"])
def test_minibatch_engine_matches_the_plain_loop_and_stops_early(loss):
    torch = pytest.importorskip("torch")

    d = _split(seed=1, valid=0.15)
    ref_hist, ref_best, ref_scores = _reference_mf(d, loss)
    spec = InfoNCE(negatives=4) if loss == "infonce" else DCL(negatives=4, extra_positives=3)
    with torch.random.fork_rng():
        torch.manual_seed(123)  # the global torch RNG is not used by training
        r = fit(
            d,
            model=MF(dim=8),
            loss=spec,
            optimizer=Adam(lr=0.05, batch_size=64, milestones=(10,)),
            epochs=30,
            evaluation=Evaluation(ks=(5,), patience=2),
            rng=2,
        )
    assert r.engine == "torch" and len(r.history) < 30  # early stopping was reached
    _same_history(r.history, ref_hist)
    assert r.best_epoch == ref_best
    np.testing.assert_array_equal(r.scores, ref_scores)
    assert r.config["negatives"] == 4 and r.config["extra_positives"] == (3 if loss == "dcl" else 0)
    assert r.config["lr_milestones"] == [10] and r.config["rng"] == 2


# ------------------------------------------------------------------------------------------
# callbacks
# ------------------------------------------------------------------------------------------
class _Recorder:
    def __init__(self, ret=True):
        self.calls = []
        self.ret = ret

    def __call__(self, epoch, scores):
        assert isinstance(scores, ScoreMatrix) and scores.shape == np.asarray(scores).shape
        scores = np.asarray(
            scores
        )  # the dense matrix of small data (the callback contract's ScoreMatrix)
        self.calls.append((epoch, np.array(scores, copy=True)))
        # a callback using numpy's global RNG must not change training
        np.random.random(3)  # noqa: NPY002
        return {"score_mean": float(scores.mean()), "epoch_seen": epoch} if self.ret else None


def _product(U, V):
    """U V^T in float64, rounded once to U's dtype."""
    return (U.astype(np.float64) @ V.T.astype(np.float64)).astype(U.dtype)


def test_sgd_callbacks_contract():
    d = _split(valid=0.1)
    kw = dict(
        model=MF(dim=8),
        sampler=DNS(),
        optimizer=SGD(lr=0.05),
        epochs=5,
        evaluation=Evaluation(every=2, ks=(5,), on="both"),
        rng=4,
    )
    plain = fit(d, **kw)
    rec, silent = _Recorder(), _Recorder(ret=False)
    r = fit(d, callbacks=[rec, silent], **kw)
    assert r.engine == "sgd" and [e for e, _ in rec.calls] == [0, 2, 4, 5] == [
        e for e, _ in silent.calls
    ]
    # epoch 0: the initial parameters (the same init as the reference loop)
    init = np.random.default_rng(np.random.SeedSequence(4).spawn(7)[0])
    U0 = init.normal(0.0, 0.1, size=(d.n_users, 8)).astype(np.float32)
    V0 = init.normal(0.0, 0.1, size=(d.n_items, 8)).astype(np.float32)
    # the scores are the embeddings' float64 product rounded once to float32 (ScoreMatrix.from_embeddings)
    np.testing.assert_array_equal(rec.calls[0][1], _product(U0, V0))
    np.testing.assert_array_equal(rec.calls[-1][1], _product(r.user_emb, r.item_emb))
    # dicts merged into the evaluated rows; training unchanged bit for bit
    for h, hp, (e, s) in zip(r.history, plain.history, rec.calls[1:]):
        assert h["epoch"] == e and h["epoch_seen"] == e and h["score_mean"] == float(s.mean())
        assert {k: v for k, v in h.items() if k not in ("score_mean", "epoch_seen")} == hp
    np.testing.assert_array_equal(r.user_emb, plain.user_emb)
    np.testing.assert_array_equal(r.item_emb, plain.item_emb)


def test_mf_callbacks_contract():
    torch = pytest.importorskip("torch")

    d = _split(seed=1, valid=0.15)
    kw = dict(
        model=MF(dim=8),
        loss=InfoNCE(),
        optimizer=Adam(lr=0.05, batch_size=64, milestones=(100,)),
        epochs=4,
        evaluation=Evaluation(every=3, ks=(5,)),
        rng=5,
    )
    plain = fit(d, **kw)
    rec = _Recorder()

    def uses_torch_rng(epoch, scores):
        torch.rand(5)  # the global torch RNG is not training's

    r = fit(d, callbacks=(rec, uses_torch_rng), **kw)
    assert [e for e, _ in rec.calls] == [0, 3, 4]
    from negtheory.bridge.recommend import MF as TorchMF

    init = TorchMF(d.n_users, d.n_items, 8, generator=torch.Generator().manual_seed(5))
    np.testing.assert_array_equal(rec.calls[0][1], init.all_scores().numpy())
    np.testing.assert_array_equal(rec.calls[-1][1], r.scores)
    for h, hp, (e, s) in zip(r.history, plain.history, rec.calls[1:]):
        assert h["epoch"] == e and h["score_mean"] == float(s.mean())
        assert {k: v for k, v in h.items() if k not in ("score_mean", "epoch_seen")} == hp
    np.testing.assert_array_equal(r.scores, plain.scores)
    assert r.best_epoch == plain.best_epoch


@pytest.mark.parametrize("bad", [5, "abc", [len, 3], print])
def test_bad_callbacks_raise(bad):
    d = _split()
    with pytest.raises(ValueError, match="callbacks"):
        fit(d, model=MF(dim=4), epochs=1, evaluation=Evaluation(ks=(5,)), callbacks=bad)
    torch = pytest.importorskip("torch")  # noqa: F841

    with pytest.raises(ValueError, match="callbacks"):
        fit(
            d,
            model=MF(dim=4),
            optimizer=Adam(),
            epochs=1,
            evaluation=Evaluation(ks=(5,)),
            callbacks=bad,
        )
