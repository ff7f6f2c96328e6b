"""AOBPR and SRNS as samplers both engines share (issue 29: LightGCN's AOBPR and SRNS rows).

* ``sample_by_rank`` (AOBPR, exact ranks) against the closed-form truncated geometric law of the
  rank, P(r) = q^r (1 - q) / (1 - q^n), by a chi-square test; ties and bounds;
* ``SRNSMemory`` against the batch-1 SGD kernel: with a zero learning rate the kernel's scores do
  not move, so one epoch of it and one mini-batch of the whole epoch must draw the same negatives
  and leave the same memories (identical draws, same seed);
* the mini-batch engine trains MF and LightGCN with both samplers and learns planted structure.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from negtheory.recsys import (
    Interactions,
    SRNSMemory,
    load_split,
    sample_by_rank,
    srns_initial_memory,
)
from negtheory.recsys._sgd_kernels import _bpr_epoch

torch = pytest.importorskip("torch")

from negtheory.training import AOBPR, BPR, MF, SRNS, Adam, Evaluation, InfoNCE, LightGCN, fit  # noqa: E402


def _csr(rows, n_users):
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    for u, items in rows.items():
        indptr[u + 1] = len(items)
    indptr = np.cumsum(indptr)
    indices = np.concatenate(
        [np.sort(np.asarray(rows.get(u, []), dtype=np.int64)) for u in range(n_users)]
    )
    return indptr, indices


# ----------------------------------------------------------------------------------------- AOBPR
@pytest.mark.parametrize("lam", [3.0, 40.0])
def test_rank_law_matches_truncated_geometric(lam):
    rng = np.random.default_rng(5)
    n_items = 30
    train = {0: [2, 7, 11]}  # never drawn
    indptr, indices = _csr(train, 1)
    score = rng.normal(size=n_items)  # distinct scores: ranks are well defined
    reps = 40_000
    draws = sample_by_rank(
        np.zeros(reps, dtype=np.int64),
        1,
        np.tile(score, (reps, 1)),
        (indptr, indices),
        rng=1,
        rank_scale=lam,
        n_items=n_items,
    )[:, 0]
    assert not np.isin(draws, train[0]).any()
    free = np.setdiff1d(np.arange(n_items), train[0])
    by_rank = free[np.argsort(-score[free])]  # rank 0 = highest score
    rank_of = {int(j): r for r, j in enumerate(by_rank)}
    ranks = np.array([rank_of[int(j)] for j in draws])
    n = len(free)
    q = np.exp(-1.0 / lam)
    p = q ** np.arange(n) * (1 - q) / (1 - q**n)  # the closed form of the truncated geometric law
    obs = np.bincount(ranks, minlength=n)
    # pool the tail so that every expected count is >= 5 (chi-square validity)
    exp = p * reps
    keep = exp >= 5
    o = np.append(obs[keep], obs[~keep].sum())
    e = np.append(exp[keep], exp[~keep].sum())
    o, e = (o, e) if e[-1] > 0 else (o[:-1], e[:-1])
    assert stats.chisquare(o, e).pvalue > 1e-3


def test_rank_extremes_and_ties():
    indptr, indices = _csr({0: [0], 1: []}, 2)
    sc = np.array([[9.0, 1.0, 3.0, 3.0, 2.0], [0.0, 0.0, 0.0, 0.0, 0.0]])
    # a tiny scale: always rank 0 — the highest-scored free item, the lowest index among ties
    out = sample_by_rank([0, 1], 3, sc, (indptr, indices), rng=0, rank_scale=1e-4, n_items=5)
    assert out.tolist() == [[2, 2, 2], [0, 0, 0]]
    # a huge scale: near-uniform over the free items, never a training item
    out = sample_by_rank(
        np.zeros(20_000, dtype=np.int64),
        1,
        np.tile(sc[0], (20_000, 1)),
        (indptr, indices),
        rng=0,
        rank_scale=1e9,
        n_items=5,
    )[:, 0]
    assert not (out == 0).any()
    # ties map every rank of the tie group to its lowest index (the batch-1 kernel's rule): items 2 and 3
    # tie, so 3 is never drawn and 2 takes both ranks' mass (about 1/2 with the other two at 1/4 each)
    counts = np.bincount(out, minlength=5) / out.size
    assert counts[3] == 0 and abs(counts[2] - 0.5) < 0.02 and abs(counts[1] - 0.25) < 0.02


def test_rank_dense_mask_equals_csr():
    rng = np.random.default_rng(0)
    mask = rng.random((6, 12)) < 0.3
    indptr = np.concatenate([[0], np.cumsum(mask.sum(1))])
    indices = np.concatenate([np.flatnonzero(r) for r in mask])
    users = rng.integers(0, 6, 50)
    sc = rng.normal(size=(50, 12))
    a = sample_by_rank(users, 2, sc, mask, rng=3, rank_scale=2.0)
    b = sample_by_rank(users, 2, sc, (indptr, indices), rng=3, rank_scale=2.0, n_items=12)
    assert np.array_equal(a, b) and not mask[users[:, None], a].any()


def test_rank_validation():
    indptr, indices = _csr({0: [0]}, 1)
    with pytest.raises(ValueError, match="rank_scale"):
        sample_by_rank([0], 1, np.zeros((1, 3)), (indptr, indices), rank_scale=0.0, n_items=3)
    with pytest.raises(ValueError, match="scores"):
        sample_by_rank([0], 1, np.zeros((2, 3)), (indptr, indices), rank_scale=1.0, n_items=3)
    with pytest.raises(ValueError, match="NaN"):
        sample_by_rank(
            [0], 1, np.full((1, 3), np.nan), (indptr, indices), rank_scale=1.0, n_items=3
        )
    with pytest.raises(ValueError, match="no non-interacted"):
        sample_by_rank(
            [0], 1, np.zeros((1, 1)), (np.array([0, 1]), np.array([0])), rank_scale=1.0, n_items=1
        )


def test_aobpr_spec_draw_uses_scores():
    d = load_split(np.array([[0, 0], [1, 1]]), np.array([[0, 2]]))
    sc = np.array([[5.0, 1.0, 4.0], [0.0, 9.0, 2.0]])
    assert AOBPR(rank_scale=1e-4).sample(d, [0, 1], 1, rng=0, scores=sc).tolist() == [[2], [2]]
    with pytest.raises(ValueError, match="AOBPR needs scores"):
        AOBPR().sample(d, [0], 1, rng=0)


# ------------------------------------------------------------------------------------------ SRNS
def _kernel_epoch(
    U, V, pairs, indptr, indices, mem, hist_u, hist_v, n_hist, alpha_t, pool, tau, seed
):
    """One batch-1 kernel epoch of SRNS with lr = reg = 0 (the scores never move); its negatives."""
    n_items = V.shape[0]
    t_indptr = np.zeros(U.shape[0] + 1, dtype=np.int64)
    record = np.full(len(pairs), -1, dtype=np.int64)
    _bpr_epoch(
        U,
        V,
        pairs,
        indptr,
        indices,
        t_indptr,
        np.zeros(0, np.int64),
        5,
        5,
        5.0,
        np.zeros((1, n_items)),
        False,
        0.64,
        0.04,
        False,
        np.linspace(0, 1, n_items),
        1.0,
        np.float32(0.0),
        np.float32(0.0),
        seed,
        np.zeros(4),
        record,
        mem,
        np.zeros((1, 1, 1), np.float32),
        hist_u,
        hist_v,
        n_hist,
        alpha_t,
        pool,
        tau,
        0,
        1,
        0,
    )
    return record


@pytest.mark.parametrize("n_hist, alpha_t", [(1, 0.0), (3, 2.5)])
def test_srns_memory_draws_as_the_batch1_kernel(n_hist, alpha_t):
    rng = np.random.default_rng(11)
    n_users, n_items, d = 7, 40, 4
    train = np.unique(np.c_[rng.integers(0, n_users, 90), rng.integers(0, n_items, 90)], axis=0)
    data = Interactions(n_users, n_items, train, train[:3])
    indptr, indices = data.train_csr()
    U = rng.normal(size=(n_users, d)).astype(np.float32)
    V = rng.normal(size=(n_items, d)).astype(np.float32)
    spec = SRNS(memory=4, candidates=6, alpha=alpha_t * 2, warmup=2.0, tau=0.7, window=3)
    mem = SRNSMemory(spec, data, U, V, rng=0)
    for e in range(1, n_hist):  # history slots of epochs 1.. (other embeddings)
        mem.record(
            e,
            rng.normal(size=U.shape).astype(np.float32),
            rng.normal(size=V.shape).astype(np.float32),
        )
    pairs = data.train[rng.permutation(len(data.train))]
    mem0 = mem.memory.copy()
    expected = _kernel_epoch(
        U,
        V,
        np.ascontiguousarray(pairs),
        indptr,
        indices,
        mem0,
        mem.hist_u,
        mem.hist_v,
        mem.n_hist,
        alpha_t,
        spec.candidates,
        spec.tau,
        int(np.random.default_rng(7).integers(0, 2**31 - 1)),
    )
    got = mem.draw(
        pairs[:, 0], pairs[:, 1], U, V, epoch=1, rng=7
    )  # alpha_t = alpha * min(1, 1 / 2); same kernel seed
    assert np.array_equal(got, expected)
    assert np.array_equal(mem.memory, mem0)  # the same refreshed memories
    free = np.ones((n_users, n_items), bool)
    free[data.train[:, 0], data.train[:, 1]] = False
    assert free[pairs[:, 0], got].all()  # never a training item
    for u in range(n_users):  # memories hold distinct non-interacted items
        m = mem.memory[u, : min(4, free[u].sum())]
        assert len(set(m.tolist())) == len(m) and free[u, m].all()


def test_srns_initial_memory_is_uniform_over_free_items():
    indptr, indices = _csr({0: [1, 3]}, 1)
    draws = np.concatenate(
        [srns_initial_memory(indptr, indices, 6, 1, rng=s)[0] for s in range(3000)]
    )
    counts = np.bincount(draws, minlength=6)
    assert counts[1] == counts[3] == 0
    assert stats.chisquare(counts[[0, 2, 4, 5]]).pvalue > 1e-3


# ------------------------------------------------------------------------------- the engine
def _planted(seed=0):
    rng = np.random.default_rng(seed)
    nu, ni = 80, 60
    g_u, g_i = rng.integers(0, 4, nu), np.arange(ni) % 4
    pairs = np.array(
        [(u, i) for u in range(nu) for i in range(ni) if g_u[u] == g_i[i] and rng.random() < 0.6]
    )
    pairs = pairs[rng.permutation(len(pairs))]
    return Interactions(nu, ni, pairs[200:], pairs[:200])


@pytest.mark.parametrize("sampler", [AOBPR(), SRNS(warmup=2.0)], ids=["aobpr", "srns"])
@pytest.mark.parametrize("model", [MF(dim=8), LightGCN(dim=8, layers=1)], ids=["mf", "lightgcn"])
def test_minibatch_engine_learns_with_aobpr_and_srns(sampler, model):
    d = _planted()
    kw = dict(
        model=model,
        loss=BPR(),
        sampler=sampler,
        optimizer=Adam(lr=0.01, batch_size=64),
        epochs=6,
        evaluation=Evaluation(every=6),
        rng=0,
    )
    r = fit(d, **kw)
    assert r.engine == "torch"
    # random ranking gives NDCG@10 about 0.05 here (2.5 test items among ~48 free ones per user)
    assert r.history[-1]["test_ndcg@10"] > 0.25
    assert r.config["sampler"] == type(sampler).__name__.lower()
    if isinstance(sampler, AOBPR):  # the default lambda recorded as used: 0.05 |I|
        assert r.config["rank_scale"] == pytest.approx(0.05 * d.n_items)
    else:
        assert (r.config["srns_memory"], r.config["srns_warmup"]) == (8, 2.0)
    again = fit(d, **kw)
    assert again.history == r.history  # same seed, same numbers


def test_score_aware_samplers_pair_with_any_loss_and_model():
    # AOBPR with InfoNCE, SRNS with N = 2 negatives per pair (N draws from the memories), AOBPR on cosine
    d = _planted()
    for model, loss, sampler in [
        (LightGCN(dim=4), InfoNCE(), AOBPR()),
        (LightGCN(dim=4), BPR(negatives=2), SRNS()),
        (MF(dim=4, similarity="cosine"), BPR(), AOBPR()),
    ]:
        r = fit(d, model=model, loss=loss, sampler=sampler, optimizer=Adam(batch_size=64), epochs=1)
        assert r.engine == "torch" and np.isfinite(r.history[-1]["loss"])
