"""negtheory.recsys: loaders, samplers, the batch-1 SGD engine's samplers (through negtheory.training.fit) and ranking metrics.

Every check is against something computed independently in the test: brute-force metrics, a
direct evaluation of thesis eq. 4.14-4.16 / 4.26, chi-square tests of the samplers' laws.
"""

from __future__ import annotations

import itertools
import math
import os
from collections import Counter

import numba
import numpy as np
import pytest
from scipy import stats
from toy_data import fit_with_negatives

from negtheory.recsys import (
    Interactions,
    bns_prior,
    load_split,
    pns_weights,
    read_interactions,
    sampling_quality,
    split_interactions,
    topk_metrics,
)
from negtheory.recsys.samplers import sample_extra_positives, sample_popular, sample_uninteracted
from negtheory.training import AOBPR, BNS, DNS, PNS, RNS, SGD, SRNS, Evaluation, fit


# the negative-sampling tests freeze the model (a vanishing lr, no regularisation) and record the drawn negatives
def _frozen(lr):
    return SGD(lr=lr, weight_decay=0.0)


TOP1 = Evaluation(ks=(1,))


# ------------------------------------------------------------------------------------------
# data
# ------------------------------------------------------------------------------------------
def test_load_split_keeps_ids_consistent_across_files(tmp_path):
    # train as a headed CSV, test as MovieLens u.data (tab separated, no header); ids not contiguous
    (tmp_path / "train.csv").write_text("user,item,rating\n10,7,5\n10,3,4\n42,7,1\n")
    (tmp_path / "u.test").write_text("42\t99\t3\t0\n10\t99\t2\t0\n77\t3\t5\t0\n")
    d = load_split(tmp_path / "train.csv", tmp_path / "u.test")
    assert d.user_ids.tolist() == ["10", "42", "77"]
    assert d.item_ids.tolist() == ["3", "7", "99"]
    raw_train = {(d.user_ids[u], d.item_ids[i]) for u, i in d.train}
    raw_test = {(d.user_ids[u], d.item_ids[i]) for u, i in d.test}
    assert raw_train == {("10", "7"), ("10", "3"), ("42", "7")}
    assert raw_test == {("42", "99"), ("10", "99"), ("77", "3")}


def test_load_split_numeric_order_and_overlap():
    tr = np.array([[0, 5], [2, 1], [1, 0], [10, 2]])
    te = np.array([[0, 5], [1, 4]])
    d = load_split(tr, te)
    assert d.user_ids.tolist() == ["0", "1", "2", "10"]  # numeric, not lexicographic, order
    assert d.item_ids.tolist() == ["0", "1", "2", "4", "5"]
    assert d.test.tolist() == [[1, 3]]  # (0, 5) stays a training pair only


def test_dataframe_and_array_inputs_agree(tmp_path):
    import pandas as pd

    tr = pd.DataFrame({"user": [1, 1, 2], "item": [3, 4, 3], "rating": [5, 3, 4]})
    te = pd.DataFrame({"user": [2], "item": [4]})
    a = load_split(tr, te)
    b = load_split(tr[["user", "item"]].to_numpy(), te.to_numpy())
    assert np.array_equal(a.train, b.train) and np.array_equal(a.test, b.test)


def test_reader_rejects_bad_input(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("user,item,rating\n1,2,nan\n")
    with pytest.raises(ValueError, match="rating must be a finite number"):
        read_interactions(p)
    p.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="no user and item column"):
        read_interactions(p)
    with pytest.raises(FileNotFoundError):
        read_interactions(tmp_path / "missing.csv")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):  # would block forever if opened
        read_interactions(fifo)
    with pytest.raises(ValueError, match="shape"):
        load_split(np.zeros((3, 4)), np.zeros((1, 2)))


def test_split_rule_and_validation_are_seeded_partitions():
    pairs = np.array([[u, i] for u in range(20) for i in range(15) if (u + i) % 3])
    d = split_interactions(pairs, 0.2, rng=3)
    n = len(pairs)
    assert len(d.test) == round(0.2 * n) and len(d.train) == n - round(0.2 * n)
    both = {tuple(p) for p in d.train} | {tuple(p) for p in d.test}
    assert len(both) == n  # a partition
    # the documented rule, recomputed here
    perm = np.random.default_rng(3).permutation(n)
    srt = np.unique(pairs, axis=0)
    assert {tuple(p) for p in srt[perm[: round(0.2 * n)]]} == {tuple(p) for p in d.test}
    v = d.with_validation(0.25, rng=1)
    assert len(v.valid) == round(0.25 * len(d.train))
    assert {tuple(p) for p in v.valid}.isdisjoint({tuple(p) for p in v.train})
    assert {tuple(p) for p in v.valid} | {tuple(p) for p in v.train} == {tuple(p) for p in d.train}
    assert np.array_equal(v.test, d.test)


# ------------------------------------------------------------------------------------------
# mini-batch samplers
# ------------------------------------------------------------------------------------------
def test_rns_never_returns_a_training_positive_and_is_uniform():
    rng = np.random.default_rng(0)
    mask = rng.random((6, 12)) < 0.4
    mask[:, 0] = False  # every user has negatives
    users = np.repeat(np.arange(6), 4000)
    neg = sample_uninteracted(users, 3, mask, rng=1)
    assert not mask[users[:, None], neg].any()
    assert np.all(np.sort(neg, 1)[:, 1:] != np.sort(neg, 1)[:, :-1])  # without replacement
    for u in range(6):  # each non-interacted item equally likely (chi-square, alpha = 1e-3)
        free = np.flatnonzero(~mask[u])
        counts = np.bincount(neg[users == u].ravel(), minlength=12)[free]
        assert stats.chisquare(counts).pvalue > 1e-3


def test_pns_law_is_popularity_to_the_075_on_the_free_items():
    mask = np.zeros((1, 5), dtype=bool)
    mask[0, 1] = True
    counts = np.array([10.0, 50.0, 5.0, 1.0, 20.0])
    neg = sample_popular(np.zeros(40000, dtype=np.int64), 1, mask, counts, rng=2)[:, 0]
    assert not (neg == 1).any()
    w = counts**0.75
    w[1] = 0
    obs = np.bincount(neg, minlength=5)[[0, 2, 3, 4]]
    exp = w[[0, 2, 3, 4]] / w.sum() * len(neg)
    assert stats.chisquare(obs, exp).pvalue > 1e-3
    assert np.allclose(pns_weights(counts), counts**0.75 / (counts**0.75).sum())


def test_extra_positives_are_training_items_of_the_user():
    d = split_interactions(np.array([[u, i] for u in range(5) for i in range(u + 2)]), 0.0)
    indptr, indices = d.train_csr()
    users = np.array([0, 1, 4, 4])
    ex = sample_extra_positives(users, 6, indptr, indices, rng=0)
    mask = d.train_mask()
    assert mask[users[:, None], ex].all()


# ------------------------------------------------------------------------------------------
# BPR-MF SGD samplers
# ------------------------------------------------------------------------------------------
def _toy(n_users=12, n_items=30, density=0.3, seed=0):
    rng = np.random.default_rng(seed)
    pairs = np.array(
        [[u, i] for u in range(n_users) for i in range(n_items) if rng.random() < density]
    )
    return split_interactions(pairs, 0.25, rng=seed)


@pytest.mark.parametrize(
    "sampler", [RNS(), PNS(), DNS(candidates=4), AOBPR(), BNS(candidates=4), SRNS()], ids=repr
)
def test_sgd_samplers_never_return_a_training_positive(sampler):
    d = _toy()
    r = fit_with_negatives(d, sampler=sampler, epochs=2, evaluation=Evaluation(ks=(5,)))
    mask = d.train_mask()
    for visit, neg in r.negatives:
        assert (neg >= 0).all() and not mask[visit[:, 0], neg].any()


def _bns_direct(scores, pos_mask_u, i, prior_u, lam):
    """Eq. 4.4, 4.14-4.15 (over n + 1), 4.25-4.26 evaluated for every non-interacted item."""
    neg = np.flatnonzero(~pos_mask_u)
    x = scores[neg]
    F = np.array([(x <= v).sum() for v in x]) / (len(neg) + 1.0)
    p = prior_u[neg]
    unbias = (1 - F) * (1 - p) / (1 - F - p + 2 * F * p)
    info = 1.0 / (1.0 + np.exp(-(x - scores[i])))
    return neg[np.argmin(info * (1 - (1 + lam) * unbias))]


@pytest.mark.parametrize("n_items", [10, 60])  # 7 negatives: direct count; ~55: bucketed eCDF
@pytest.mark.parametrize("prior", ["popularity", "oracle"])
def test_bns_choice_matches_eq_4_26_with_the_whole_candidate_pool(n_items, prior):
    train = np.array([[0, 0], [0, 1], [0, 2], [1, 1], [1, 3], [2, 2], [2, 4], [2, 5]])
    test = np.array([[0, 3], [0, 4], [0, n_items - 1]])
    d = Interactions(3, n_items, train, test)
    # one epoch; the first visited pair's negative is chosen with the initial parameters
    r = fit_with_negatives(
        d,
        sampler=BNS(candidates=10**6, lam=5.0, prior=prior),
        epochs=1,
        optimizer=_frozen(1e-9),
        rng=4,
        evaluation=TOP1,
    )
    visit, neg = r.negatives[0]
    # rerun with the embeddings we know: same seed -> same init; recover it from the kernel's init rule
    ss = np.random.SeedSequence(4)
    init = np.random.default_rng(ss.spawn(3)[0])
    U = init.normal(0.0, 0.1, size=(3, 32)).astype(np.float32)
    V = init.normal(0.0, 0.1, size=(n_items, 32)).astype(np.float32)
    u, i = visit[0]
    scores = (U[u].astype(np.float64) * V.astype(np.float64)).sum(1)
    counts = np.bincount(train[:, 1], minlength=n_items)
    if prior == "popularity":
        p = counts / len(train)  # eq. 4.16: popularity / number of training interactions
        assert np.allclose(bns_prior(counts, len(train)), p)
    else:
        p = np.where(d.test_mask()[u], 0.64, 0.04)  # (label - 0.2)^2
    expect = _bns_direct(scores, d.train_mask()[u], i, p, 5.0)
    assert neg[0] == expect


def test_bns_with_one_candidate_is_uniform_and_dns_picks_the_top_scored_negative():
    d = _toy(n_users=4, n_items=12, density=0.4)
    r = fit_with_negatives(d, sampler=BNS(candidates=1), epochs=30, evaluation=TOP1)
    mask = d.train_mask()
    visit = np.concatenate([v for v, _ in r.negatives])
    neg = np.concatenate([n for _, n in r.negatives])
    u0 = visit[:, 0] == 0
    free = np.flatnonzero(~mask[0])
    assert stats.chisquare(np.bincount(neg[u0], minlength=12)[free]).pvalue > 1e-3
    # DNS with every negative as candidate: the highest-scored one under the initial parameters
    r = fit_with_negatives(
        d, sampler=DNS(candidates=10**6), epochs=1, optimizer=_frozen(1e-12), rng=2, evaluation=TOP1
    )
    visit, neg = r.negatives[0]
    init = np.random.default_rng(np.random.SeedSequence(2).spawn(3)[0])
    U = init.normal(0.0, 0.1, size=(d.n_users, 32)).astype(np.float32)
    V = init.normal(0.0, 0.1, size=(d.n_items, 32)).astype(np.float32)
    u = visit[0, 0]
    s = V @ U[u]
    s[mask[u]] = -np.inf
    assert neg[0] == np.argmax(s)
    # AOBPR with a vanishing rank scale: rank 0, the same item
    r = fit_with_negatives(
        d,
        sampler=AOBPR(rank_scale=1e-6),
        epochs=1,
        optimizer=_frozen(1e-12),
        rng=2,
        evaluation=TOP1,
    )
    assert r.negatives[0][1][0] == np.argmax(s)


def test_aobpr_rank_law_is_truncated_geometric():
    # frozen model (lr -> 0): the rank of each drawn negative among the user's negatives follows
    # P(r) ∝ exp(-r / rank_scale), r = 0 .. n_neg - 1 (chi-square)
    d = Interactions(1, 40, np.array([[0, 0], [0, 1]]), np.zeros((0, 2), dtype=np.int64))
    r = fit_with_negatives(
        d,
        sampler=AOBPR(rank_scale=5.0),
        epochs=4000,
        optimizer=_frozen(1e-12),
        rng=0,
        evaluation=Evaluation(every=4000, ks=(1,)),
    )
    neg = np.concatenate([n for _, n in r.negatives])
    init = np.random.default_rng(np.random.SeedSequence(0).spawn(2 + 4000)[0])
    U = init.normal(0.0, 0.1, size=(1, 32)).astype(np.float32)
    V = init.normal(0.0, 0.1, size=(40, 32)).astype(np.float32)
    s = V @ U[0]
    free = np.arange(2, 40)
    order = free[np.argsort(-s[free], kind="stable")]
    rank = np.empty(40, dtype=np.int64)
    rank[order] = np.arange(38)
    obs = np.bincount(rank[neg], minlength=38)
    p = np.exp(-np.arange(38) / 5.0)
    exp = p / p.sum() * len(neg)
    keep = exp > 5
    obs2 = np.r_[obs[keep], obs[~keep].sum()]
    exp2 = np.r_[exp[keep], exp[~keep].sum()]
    assert stats.chisquare(obs2, exp2).pvalue > 1e-3


def _aobpr_reference(scores, pos, x, q):
    """AOBPR's draw written with numpy: rank r = F^-1(x) of the truncated geometric law, then the
    lowest-index negative holding the r-th largest negative score."""
    free = np.flatnonzero(~pos)
    nn = len(free)
    r = 0 if q == 0.0 else int(math.floor(math.log(1.0 - x * (1.0 - q**nn)) / math.log(q)))
    r = min(max(r, 0), nn - 1)
    val = np.sort(scores[free])[::-1][r]
    return free[scores[free] == val].min()


@pytest.mark.parametrize("size", ["small", "large"])
@pytest.mark.parametrize("ties", ["none", "rounded", "all-equal"])
def test_aobpr_draw_matches_a_sort_of_the_negatives(ties, size):
    # the kernel's bucketed selection against a full sort, draw for draw, ties and edge cases included, on
    # small catalogs and on catalogs of MovieLens-1M's order
    from negtheory.recsys._sgd_kernels import _aobpr_neg

    g = np.random.default_rng(7)
    for trial in range(60 if size == "small" else 25):
        n = int(g.integers(1, 300)) if size == "small" else int(g.integers(300, 5000))
        s = g.normal(size=n).astype(np.float32)
        if ties == "rounded":
            s = np.round(2 * s).astype(np.float32)
        elif ties == "all-equal":
            s[:] = 0.5
        pos = g.random(n) < g.random() * 0.9
        pos[g.integers(n)] = False  # at least one negative (nn = 1 included)
        # rank scales from 0 (rank 0) to 0.3 n: shallow ranks and deep ones
        q = 0.0 if trial % 10 == 0 else math.exp(-1.0 / (0.5 + g.random() * 0.3 * n))
        cnt, vbuf, ibuf = np.empty(n + 1, np.int64), np.empty(n, np.float32), np.empty(n, np.int64)
        for x in np.r_[g.random(20), 0.0, 1.0 - 1e-12]:
            assert _aobpr_neg(s, pos, x, q, cnt, vbuf, ibuf) == _aobpr_reference(s, pos, x, q)


def _risk_eq_4_26(x, x_i, F, p_fn, lam=5.0):
    """info(l) [1 - (1 + λ) unbias(l)] with unbias of eq. 4.14 (0 where its denominator vanishes)."""
    num = (1 - F) * (1 - p_fn)
    den = 1 - F - p_fn + 2 * F * p_fn
    unbias = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    return 1.0 / (1.0 + np.exp(-(x - x_i))) * (1 - (1 + lam) * unbias)


@pytest.mark.parametrize(
    "levels, ecdf",
    [
        ((0.64, 0.04), "candidates"),
        ((0.64, 0.04), "negatives"),
        ((0.64, 0.001), "negatives"),
        ((1.0, 0.0), "negatives"),
    ],
)
def test_bns_oracle_readings_follow_eq_4_26_over_uniform_candidate_pairs(levels, ecdf):
    # frozen model (lr -> 0), one user: positives {0, 1}, test items {2, 3}, negatives 2..7, |M_u| = 2.
    # The law of the chosen negative is the average over the 15 equally likely candidate pairs of
    # eq. 4.26's argmin, F over the pair (over 3) or over all 6 negatives (over 7) (chi-square).
    n_items, epochs = 8, 3000
    d = Interactions(1, n_items, np.array([[0, 0], [0, 1]]), np.array([[0, 2], [0, 3]]))
    r = fit_with_negatives(
        d,
        sampler=BNS(candidates=2, prior="oracle", oracle_levels=levels, ecdf=ecdf),
        optimizer=_frozen(1e-12),
        epochs=epochs,
        evaluation=Evaluation(every=epochs, ks=(1,)),
        rng=3,
    )
    init = np.random.default_rng(np.random.SeedSequence(3).spawn(2 + epochs)[0])
    U = init.normal(0.0, 0.1, size=(1, 32)).astype(np.float32)
    V = init.normal(0.0, 0.1, size=(n_items, 32)).astype(np.float32)
    x = V.astype(np.float64) @ U[0].astype(np.float64)
    negs = np.arange(2, 8)
    p_fn = np.where(np.isin(negs, [2, 3]), levels[0], levels[1])
    visit = np.concatenate([v for v, _ in r.negatives])
    chosen = np.concatenate([n for _, n in r.negatives])
    for i in (0, 1):
        law = np.zeros(n_items)
        for a, b in itertools.combinations(range(6), 2):
            pair = np.array([a, b])
            if ecdf == "candidates":
                F = np.array([(x[negs[pair]] <= x[negs[k]]).sum() for k in pair]) / 3.0
            else:
                F = np.array([(x[negs] <= x[negs[k]]).sum() for k in pair]) / 7.0
            risk = _risk_eq_4_26(x[negs[pair]], x[i], F, p_fn[pair])
            law[negs[pair[np.argmin(risk)]]] += 1 / 15
        obs = np.bincount(chosen[visit[:, 1] == i], minlength=n_items)
        keep = law > 0
        assert obs[~keep].sum() == 0
        assert stats.chisquare(obs[keep], law[keep] * obs.sum()).pvalue > 1e-3
        if levels == (
            1.0,
            0.0,
        ):  # the hard label: a test item only when both candidates are test items
            assert law[[2, 3]].sum() == pytest.approx(1 / 15)


@numba.njit
def _seed_numba(seed):
    np.random.seed(seed)  # noqa: NPY002  (numba nopython: the legacy seeding of the kernels' generator)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.mark.parametrize("n_hist", [1, 2, 5])
def test_srns_choice_is_the_argmax_of_probability_plus_alpha_std(n_hist):
    from negtheory.recsys._sgd_kernels import _srns_pick

    rng = np.random.default_rng(n_hist)
    for _ in range(300):
        cur = rng.normal(0.0, 2.0, 8)
        pos = rng.normal()
        hist_mem = rng.normal(0.0, 2.0, (5, 8))
        hist_pos = rng.normal(0.0, 1.0, 5)
        alpha = float(rng.choice([0.0, 0.5, 5.0]))
        k = _srns_pick(cur, pos, hist_mem, hist_pos, n_hist, alpha)
        # sigma(x_uk - x_ui) now, plus alpha times the population std over the recorded epochs
        like = _sigmoid(hist_mem[:n_hist] - hist_pos[:n_hist, None])
        assert k == np.argmax(_sigmoid(cur - pos) + alpha * like.std(axis=0))


def test_srns_memory_update_is_successive_sampling_proportional_to_exp_score_over_tau():
    from negtheory.recsys._sgd_kernels import _srns_refresh

    pool = np.array([10, 11, 12, 13, 14])
    sc = np.array([0.3, -1.0, 2.0, 0.0, 1.2])
    tau, n = 0.8, 40000
    w = np.exp(sc / tau)
    # exact law of the ordered pair kept: w_a / W * w_b / (W - w_a)
    exact = {
        (a, b): w[a] / w.sum() * w[b] / (w.sum() - w[a])
        for a, b in itertools.permutations(range(5), 2)
    }
    _seed_numba(2024)
    out, scratch, counts = np.empty(2, dtype=np.int64), np.empty(5), Counter()
    for _ in range(n):
        _srns_refresh(pool, sc, 5, 2, tau, out, scratch)
        counts[(out[0] - 10, out[1] - 10)] += 1
    assert sum(counts.values()) == n and set(counts) <= set(exact)
    obs = np.array([counts[c] for c in exact])
    assert stats.chisquare(obs, np.array(list(exact.values())) * n).pvalue > 1e-3
    # a vanishing temperature keeps the top scores, in order, without underflow
    _srns_refresh(pool, sc, 5, 3, 1e-9, out := np.empty(3, dtype=np.int64), scratch)
    assert out.tolist() == [12, 14, 10]


def test_srns_with_a_frozen_model_and_cold_memory_update_picks_the_top_scored_negative():
    # lr -> 0 and tau -> 0: after a user's first visit its memory holds its S1 top-scored
    # negatives (the pool is every negative), the std term is 0, so every later negative is the
    # user's highest-scored non-interacted item
    d = _toy(n_users=5, n_items=20, density=0.3, seed=3)
    r = fit_with_negatives(
        d,
        sampler=SRNS(memory=3, candidates=100, tau=1e-9, alpha=0.0),
        optimizer=_frozen(1e-12),
        epochs=2,
        rng=5,
        evaluation=TOP1,
    )
    init = np.random.default_rng(np.random.SeedSequence(5).spawn(4)[0])
    U = init.normal(0.0, 0.1, size=(d.n_users, 32)).astype(np.float32)
    V = init.normal(0.0, 0.1, size=(d.n_items, 32)).astype(np.float32)
    s = U @ V.T
    s[d.train_mask()] = -np.inf
    visit, neg = r.negatives[1]
    assert (neg == s.argmax(1)[visit[:, 0]]).all()


def test_bpr_sgd_learns_and_is_reproducible():
    d = _toy(n_users=30, n_items=40, density=0.3, seed=5)
    a = fit(d, epochs=30, evaluation=Evaluation(every=30, ks=(5,)))
    b = fit(d, epochs=30, evaluation=Evaluation(every=30, ks=(5,)))
    assert a.engine == "sgd" and np.array_equal(a.user_emb, b.user_emb)
    # better than random ranking: random precision@5 equals the test density among free items
    free = ~d.train_mask()
    base = d.test_mask().sum() / free.sum()
    assert a.history[-1]["test_precision@5"] > base
    with pytest.raises(TypeError, match="sampler"):
        fit(d, sampler="xns")
    for make, name in (
        (lambda: SRNS(tau=0.0), "SRNS.tau"),
        (lambda: SRNS(memory=0), "SRNS.memory"),
        (lambda: BNS(oracle_levels=(1.2, 0.0)), "BNS.oracle_levels"),
        (lambda: BNS(oracle_levels=(0.5,)), "BNS.oracle_levels"),
        (lambda: BNS(ecdf="all"), "BNS.ecdf"),
        (lambda: SGD(lr=0), "SGD.lr"),
    ):
        with pytest.raises(ValueError, match=name.replace(".", r"\.")):
            make()


# ------------------------------------------------------------------------------------------
# metrics
# ------------------------------------------------------------------------------------------
def _brute(scores, rel, exclude, k):
    out = {"precision": [], "recall": [], "ndcg": []}
    for u in range(scores.shape[0]):
        if rel[u].sum() == 0:
            continue
        cand = [j for j in range(scores.shape[1]) if not exclude[u, j]]
        ranked = sorted(cand, key=lambda j: (-scores[u, j], j))[:k]
        hits = [1.0 if rel[u, j] else 0.0 for j in ranked]
        n = rel[u].sum()
        dcg = sum(h / math.log2(r + 2) for r, h in enumerate(hits))
        idcg = sum(1 / math.log2(r + 2) for r in range(min(n, k)))
        out["precision"].append(sum(hits) / k)
        out["recall"].append(sum(hits) / n)
        out["ndcg"].append(dcg / idcg)
    return {m: float(np.mean(v)) for m, v in out.items()}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_topk_metrics_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=(25, 40)), 1)  # rounded: ties are frequent
    rel = rng.random((25, 40)) < 0.1
    ex = (rng.random((25, 40)) < 0.3) & ~rel
    got = topk_metrics(s, rel, ex, k=(1, 5, 10))
    for k in (1, 5, 10):
        ref = _brute(s, rel, ex, k)
        for m in ("precision", "recall", "ndcg"):
            assert got[f"{m}@{k}"] == pytest.approx(ref[m], abs=1e-12)


def test_topk_metrics_validation_and_sampling_quality():
    with pytest.raises(ValueError, match="relevant"):
        topk_metrics(np.zeros((2, 3)), np.zeros((3, 2), dtype=bool))
    with pytest.raises(ValueError, match="NaN"):
        topk_metrics(np.full((1, 3), np.nan), np.ones((1, 3), dtype=bool))
    fn = np.array([True, False, False, True, False])
    info = np.array([0.9, 0.1, 0.4, 0.6, 0.2])
    q = sampling_quality(fn, info)
    assert q["tnr"] == pytest.approx(3 / 5)
    assert q["inf"] == pytest.approx((0.1 + 0.4 + 0.2 - 0.9 - 0.6) / 5)


def test_sgd_count_le_exact_with_infinities_ties_and_blocks():
    # the SGD kernel's eCDF count (float32 block sums) against numpy's integer count: +inf entries
    # (masked positives), ties on a coarse grid, and a length spanning several 2**20 blocks
    from negtheory.recsys._sgd_kernels import _count_le

    rng = np.random.default_rng(3)
    for n in (1, 17, 1682, 2_500_001):
        vals = (np.round(rng.normal(size=n) * 8) / 8).astype(np.float32)
        vals[rng.random(n) < 0.1] = np.inf
        for x in (np.float32(-10.0), np.float32(0.0), np.float32(0.125), np.float32(10.0)):
            assert _count_le(vals, x) == int((vals <= x).sum())
