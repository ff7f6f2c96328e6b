"""The numba kernels of the batch-1 SGD engine (BPR / BCE / InfoNCE steps and the samplers of thesis ch. 4).

Private: :mod:`negtheory.recsys.bpr_sgd` documents the samplers and the step (module notes) and
:class:`negtheory.recsys.bpr_sgd._SGDRunner` drives :func:`_bpr_epoch` one epoch at a time. Kept in
a module of their own so that the trainer's Python side stays short and readable.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._numeric import _in_sorted  # the CSR membership test, shared with the samplers


@numba.njit(cache=True, inline="always")
def _sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@numba.njit(cache=True)
def _mark(row, indptr, indices, u, value):
    for k in range(indptr[u], indptr[u + 1]):
        row[indices[k]] = value


@numba.njit(cache=True)
def _uniform_neg_csr(indices, lo, hi, n_items):
    while True:
        j = np.random.randint(0, n_items)
        if not _in_sorted(indices, lo, hi, j):
            return j


@numba.njit(cache=True)
def _uniform_neg(pos_row, n_items):
    while True:
        j = np.random.randint(0, n_items)
        if not pos_row[j]:
            return j


@numba.njit(cache=True, fastmath=True)
def _score_all(U, V, u, scores):
    d = U.shape[1]
    for l in range(V.shape[0]):
        s = np.float32(0.0)
        for f in range(d):
            s += V[l, f] * U[u, f]
        scores[l] = s


#: the most candidates whose eCDF over all negatives is counted directly (one vectorised pass over the
#: catalog each, ~0.2 us on MovieLens-100K) rather than through _bucketize (~10 us per step whatever m):
#: the two cross near m = 50 (measured); both give the same exact counts
_DIRECT_COUNT_MAX = 32


@numba.njit(cache=True, fastmath={"reassoc", "nsz", "contract"})
def _count_le(vals, x):
    """#{v in vals : v <= x}, exact (vals may hold +inf, which never counts below a finite x).

    The 0/1 terms are summed in float32 over blocks of 2**20 (exact: below 2**24) and the blocks
    as integers: a float32 sum vectorises where an integer one does not (2.3x faster measured on
    1682 items). ``reassoc`` only: full fastmath would let LLVM assume no infinities.
    """
    n = vals.shape[0]
    total = 0
    for s in range(0, n, 1 << 20):
        e = min(n, s + (1 << 20))
        c = np.float32(0.0)
        for l in range(s, e):
            c += np.float32(1.0) if vals[l] <= x else np.float32(0.0)
        total += int(c)
    return total


@numba.njit(cache=True)
def _bucketize(vals, n, order, start):
    """Counting sort of vals[:n] into n buckets of equal width: order[...] holds the values by bucket.

    Returns (lo, scale). Bucket index b(v) = floor((v - lo) * scale) is monotone in v, so every
    value of a lower bucket is smaller than every value of a higher one: an exact eCDF / rank
    query then scans a single bucket (O(1) expected), and the whole structure costs O(n).
    """
    lo = np.float64(vals[0])
    hi = np.float64(vals[0])
    for k in range(1, n):
        if vals[k] < lo:
            lo = np.float64(vals[k])
        if vals[k] > hi:
            hi = np.float64(vals[k])
    scale = (n - 1) / (hi - lo) if hi > lo else 0.0
    for b in range(n + 1):
        start[b] = 0
    for k in range(n):
        b = int((np.float64(vals[k]) - lo) * scale)
        start[b + 1] += 1
    for b in range(n):
        start[b + 1] += start[b]
    fill = start.copy()
    for k in range(n):
        b = int((np.float64(vals[k]) - lo) * scale)
        order[fill[b]] = vals[k]
        fill[b] += 1
    return lo, scale


@numba.njit(cache=True)
def _bucket_count_le(order, start, n, lo, scale, x):
    """#{v <= x} among the n bucketed values (exact)."""
    if x < lo:
        return 0
    b = int((np.float64(x) - lo) * scale)
    if b >= n:
        return n
    c = start[b]
    for k in range(start[b], start[b + 1]):
        if order[k] <= x:
            c += 1
    return c


@numba.njit(cache=True)
def _bucket_rth_largest(order, start, n, r):
    """The value of rank r (0-based, descending) among the n bucketed values (exact)."""
    target = n - 1 - r  # ascending rank
    lo_b, hi_b = 0, n - 1
    while lo_b < hi_b:  # the bucket b with start[b] <= target < start[b + 1]
        mid = (lo_b + hi_b + 1) // 2
        if start[mid] <= target:
            lo_b = mid
        else:
            hi_b = mid - 1
    seg = np.sort(order[start[lo_b] : start[lo_b + 1]])
    return seg[target - start[lo_b]]


@numba.njit(cache=True)
def _aobpr_neg(scores, pos_row, x, q, cnt, vbuf, ibuf):
    """AOBPR's negative: the non-interacted item of score rank r (0-based, descending; ties: the
    lowest index), r = F^-1(x) of the geometric law P(r) ∝ q^r truncated to the nn negatives.

    Exact, in three passes over the catalog and no sort of it: the score range of the nn
    non-interacted items, a count of them in nn equal-width buckets (monotone in the score), and a
    gather of the one bucket that holds rank r (O(1) expected), sorted. It returns the item that
    _bucketize + _bucket_rth_largest over the negatives + a scan for the lowest index of that score
    return (tested draw for draw), without copying the negatives' scores or placing every one of
    them: 1.8x faster on MovieLens-1M's 3 706 items (measured; an AOBPR epoch 35 s -> 30 s).
    """
    n = scores.shape[0]
    nn = 0
    lo = np.inf
    hi = -np.inf
    for l in range(n):
        if not pos_row[l]:
            nn += 1
            v = np.float64(scores[l])
            if v < lo:
                lo = v
            if v > hi:
                hi = v
    scale = (nn - 1) / (hi - lo) if hi > lo else 0.0
    for b in range(nn):
        cnt[b] = 0
    for l in range(n):
        if not pos_row[l]:
            cnt[int((np.float64(scores[l]) - lo) * scale)] += 1
    if q > 0.0:
        # inverse CDF of the geometric law P(r) ∝ q^r truncated to 0..nn-1
        r = int(math.floor(math.log(1.0 - x * (1.0 - q**nn)) / math.log(q)))
    else:
        r = 0
    if r >= nn:
        r = nn - 1
    if r < 0:
        r = 0
    above = 0  # negatives in the buckets above b
    b = nn - 1
    while above + cnt[b] <= r:
        above += cnt[b]
        b -= 1
    m = 0
    for l in range(n):  # ascending l: the first of equal scores in vbuf is the lowest index
        if not pos_row[l] and int((np.float64(scores[l]) - lo) * scale) == b:
            vbuf[m] = scores[l]
            ibuf[m] = l
            m += 1
    val = np.sort(vbuf[:m])[m - 1 - (r - above)]
    for k in range(m):
        if vbuf[k] == val:
            return ibuf[k]
    return ibuf[0]  # unreachable: val is one of vbuf[:m]


@numba.njit(cache=True, inline="always")
def _record_quality(stats, t_indptr, t_indices, u, j, info):
    """Sampling quality of one draw (thesis eq. 4.27-4.28): stats[0] draws, stats[1] false
    negatives (j a test item of u), stats[2] INF, + info(j) for a true negative, - for a false one."""
    stats[0] += 1.0
    if _in_sorted(t_indices, t_indptr[u], t_indptr[u + 1], j):
        stats[1] += 1.0
        stats[2] -= info
    else:
        stats[2] += info


@numba.njit(cache=True)
def _collect_negs(pos_row, negs):
    """Write the user's non-interacted items into negs[:nn] (ascending) and return nn."""
    nn = 0
    for l in range(pos_row.shape[0]):
        if not pos_row[l]:
            negs[nn] = l
            nn += 1
    return nn


@numba.njit(cache=True, fastmath=True)
def _dot(U, V, u, l):
    """x_ul = <w_u, h_l> in float32 (the arithmetic of :func:`_score_all`)."""
    s = np.float32(0.0)
    for f in range(U.shape[1]):
        s += V[l, f] * U[u, f]
    return s


@numba.njit(cache=True)
def _f_hat(sample, x, n_neg):
    r"""BNS's eCDF (eq. 4.15) estimated from the S scores ``sample`` of uniform non-interacted items.

    .. math:: \hat F(x) = \frac{\#\{s : \hat x_{j_s} \le x\}}{S}\,\frac{n}{n + 1},

    unbiased for :math:`F(x) = \#\{j : \hat x_j \le x\} / (n + 1)` over the n non-interacted items
    when the :math:`j_s` are uniform among them (with replacement). Counted directly (O(S) per
    candidate: cheaper than sorting the sample for BNS's few candidates).
    """
    return _count_le(sample, x) / sample.shape[0] * (n_neg / (n_neg + 1.0))


@numba.njit(cache=True, fastmath=True)
def _dot2(Us, Vs, e, u, l):
    """<w_u, h_l> of the embeddings recorded at slot e (SRNS's score history, float32 as :func:`_dot`)."""
    s = np.float32(0.0)
    for f in range(Us.shape[2]):
        s += Vs[e, l, f] * Us[e, u, f]
    return s


@numba.njit(cache=True)
def _srns_pick(mem_scores, pos_score, hist_mem, hist_pos, n_hist, alpha_t):
    """SRNS's choice: the memory slot k of largest σ(x_uk − x_ui) + α_t std_e σ(x^e_uk − x^e_ui).

    ``mem_scores[k]`` and ``pos_score`` are the current scores, ``hist_mem[e, k]`` and
    ``hist_pos[e]`` the scores recorded after the last ``n_hist`` epochs; the std is the population
    std (over n_hist). Ties: the first slot.
    """
    best = -np.inf
    kbest = 0
    for k in range(mem_scores.shape[0]):
        sd = 0.0
        if n_hist > 1:
            mu = 0.0
            for e in range(n_hist):
                mu += _sigmoid(hist_mem[e, k] - hist_pos[e])
            mu /= n_hist
            v = 0.0
            for e in range(n_hist):
                dev = _sigmoid(hist_mem[e, k] - hist_pos[e]) - mu
                v += dev * dev
            sd = math.sqrt(v / n_hist)
        c = _sigmoid(mem_scores[k] - pos_score) + alpha_t * sd
        if c > best:
            best = c
            kbest = k
    return kbest


@numba.njit(cache=True)
def _srns_refresh(pool, pool_scores, n_pool, m1, tau, out, w):
    """SRNS's memory update: m1 of pool[:n_pool] by successive sampling ∝ exp(score / τ), into out[:m1].

    Each draw picks among the items not drawn yet with probability ∝ exp(x / τ) (the law of
    numpy's ``choice(replace=False, p=...)``); the weights are taken relative to the largest
    remaining score, so they never all underflow. ``w`` is scratch of length >= n_pool.
    """
    avail = np.ones(n_pool, dtype=np.bool_)
    for r in range(m1):
        mx = -np.inf
        for k in range(n_pool):
            if avail[k] and pool_scores[k] > mx:
                mx = pool_scores[k]
        total = 0.0
        for k in range(n_pool):
            w[k] = math.exp((pool_scores[k] - mx) / tau) if avail[k] else 0.0
            total += w[k]
        x = np.random.random() * total
        acc = 0.0
        pick = -1
        for k in range(n_pool):
            if avail[k]:
                pick = k
                acc += w[k]
                if acc > x:
                    break
        out[r] = pool[pick]
        avail[pick] = False


@numba.njit(cache=True)
def _srns_choose(
    U,
    V,
    u,
    i,
    mem_u,
    hist,
    hist_u,
    hist_v,
    dense_hist,
    n_hist,
    alpha_t,
    srns_pool,
    srns_tau,
    indices,
    p_lo,
    p_hi,
    n_items,
    n_neg,
    mscore,
    hmem,
    hpos,
    pool,
    pscore,
    chosen,
    wbuf,
):
    """SRNS for the pair (u, i): the memory item of :func:`_srns_pick`, then the memory ``mem_u`` refreshed.

    The step both engines take (the batch-1 kernel per pair, :func:`_srns_batch` per row of a
    mini-batch): the current scores of the memory and the positive, their recorded history (scores
    ``hist[e, u, l]``, or the recorded embeddings when ``dense_hist`` is False), the pick, and the
    refresh with ``srns_pool`` distinct uniform non-interacted items not in the memory
    (:func:`_srns_refresh`). ``chosen`` (all False on entry and on return), ``mscore``, ``hmem``,
    ``hpos``, ``pool``, ``pscore`` and ``wbuf`` are scratch.
    """
    s1 = mem_u.shape[0]
    m1 = s1 if s1 < n_neg else n_neg
    m2 = srns_pool if srns_pool < n_neg - m1 else n_neg - m1
    x_ui = _dot(U, V, u, i)
    for k in range(m1):
        c = mem_u[k]
        mscore[k] = _dot(U, V, u, c)
        for e in range(n_hist):
            hmem[e, k] = hist[e, u, c] if dense_hist else _dot2(hist_u, hist_v, e, u, c)
    for e in range(n_hist):
        hpos[e] = hist[e, u, i] if dense_hist else _dot2(hist_u, hist_v, e, u, i)
    kb = _srns_pick(mscore[:m1], x_ui, hmem[:, :m1], hpos, n_hist, alpha_t)
    j = mem_u[kb]
    for k in range(m1):
        pool[k] = mem_u[k]
        pscore[k] = mscore[k]
        chosen[pool[k]] = True
    k = m1
    while k < m1 + m2:
        c = _uniform_neg_csr(indices, p_lo, p_hi, n_items)
        if not chosen[c]:
            chosen[c] = True
            pool[k] = c
            pscore[k] = _dot(U, V, u, c)
            k += 1
    for k in range(m1 + m2):
        chosen[pool[k]] = False
    _srns_refresh(pool, pscore, m1 + m2, m1, srns_tau, mem_u, wbuf)
    return j


@numba.njit(cache=True)
def _srns_batch(
    users,
    positives,
    mem,
    U,
    V,
    hist_u,
    hist_v,
    n_hist,
    alpha_t,
    srns_pool,
    srns_tau,
    indptr,
    indices,
    seed,
    out,
):
    """SRNS's negatives for the rows of a mini-batch, in row order (the memory refreshed after each row).

    ``U``, ``V``: the scoring embeddings at the start of the step (LightGCN's propagated ones);
    ``hist_u``, ``hist_v``: those recorded after each of the last epochs (slots 0..n_hist-1). A user
    seen twice in a batch draws its second negative from the memory its first row refreshed, as in
    the batch-1 kernel; only the scores are those of the step's start.
    """
    np.random.seed(seed)
    n_items = V.shape[0]
    s1 = mem.shape[1]
    chosen = np.zeros(n_items, dtype=np.bool_)
    mscore = np.empty(s1, dtype=np.float64)
    hmem = np.empty((max(hist_u.shape[0], 1), s1), dtype=np.float64)
    hpos = np.empty(max(hist_u.shape[0], 1), dtype=np.float64)
    pool = np.empty(s1 + srns_pool, dtype=np.int64)
    pscore = np.empty(s1 + srns_pool, dtype=np.float64)
    wbuf = np.empty(s1 + srns_pool, dtype=np.float64)
    hist = np.zeros((1, 1, 1), dtype=np.float32)
    for t in range(users.shape[0]):
        u = users[t]
        p_lo, p_hi = indptr[u], indptr[u + 1]
        n_neg = n_items - (p_hi - p_lo)
        out[t] = _srns_choose(
            U,
            V,
            u,
            positives[t],
            mem[u],
            hist,
            hist_u,
            hist_v,
            False,
            n_hist,
            alpha_t,
            srns_pool,
            srns_tau,
            indices,
            p_lo,
            p_hi,
            n_items,
            n_neg,
            mscore,
            hmem,
            hpos,
            pool,
            pscore,
            chosen,
            wbuf,
        )


@numba.njit(cache=True)
def _contrastive_step(
    U, V, u, i, jn, loss_code, lr, reg, uu, xneg, coef, oldneg, stats, t_indptr, t_indices
):
    r"""One SGD step of BCE (``loss_code`` 1) or InfoNCE (2) on (u, i) and the negatives ``jn`` (simultaneous update).

    With :math:`x_{ui} = \langle w_u, h_i\rangle` and :math:`x_k = \langle w_u, h_{j_k}\rangle` from
    the old values, the step is :math:`\theta \mathrel{-}= \eta\,\nabla_\theta [L + \tfrac r2
    (\|w_u\|^2 + \|h_i\|^2 + \sum_k \|h_{j_k}\|^2)]` with :math:`a = -\partial L/\partial x_{ui}` and
    :math:`c_k = \partial L / \partial x_k`:

    * BCE, :math:`L = -\ln\sigma(x_{ui}) - \sum_k \ln(1 - \sigma(x_k))`: :math:`a = 1 -
      \sigma(x_{ui})`, :math:`c_k = \sigma(x_k)`;
    * InfoNCE, :math:`L = -\ln \frac{e^{x_{ui}}}{e^{x_{ui}} + \sum_k e^{x_k}}`: with :math:`p` the
      softmax over :math:`(x_{ui}, x_1, \dots, x_N)`, :math:`a = 1 - p_0`, :math:`c_k = p_k`;

    so :math:`w_u \mathrel{+}= \eta(a h_i - \sum_k c_k h_{j_k} - r w_u)`, :math:`h_i
    \mathrel{+}= \eta(a w_u - r h_i)`, :math:`h_{j_k} \mathrel{+}= \eta(-c_k w_u - r h_{j_k})` (a
    negative drawn twice gets both terms). Adds the loss to ``stats[3]`` and, per negative, the
    TNR / INF counts of eq. 4.27-4.28 (info = σ(x_k − x_ui)).
    """
    d = U.shape[1]
    n = jn.shape[0]
    xi = 0.0
    for f in range(d):
        uu[f] = U[u, f]
        xi += uu[f] * V[i, f]
    for k in range(n):
        s = 0.0
        for f in range(d):
            oldneg[k, f] = V[jn[k], f]
            s += uu[f] * oldneg[k, f]
        xneg[k] = s
    if loss_code == 1:  # BCE
        a = 1.0 - _sigmoid(xi)
        lval = -math.log(max(_sigmoid(xi), 1e-300))
        for k in range(n):
            coef[k] = _sigmoid(xneg[k])
            lval -= math.log(max(_sigmoid(-xneg[k]), 1e-300))
    else:  # InfoNCE, the softmax taken relative to the largest logit
        mx = xi
        for k in range(n):
            if xneg[k] > mx:
                mx = xneg[k]
        z = math.exp(xi - mx)
        for k in range(n):
            z += math.exp(xneg[k] - mx)
        a = 1.0 - math.exp(xi - mx) / z
        for k in range(n):
            coef[k] = math.exp(xneg[k] - mx) / z
        lval = -(xi - mx - math.log(z))
    stats[3] += lval
    for k in range(n):
        _record_quality(stats, t_indptr, t_indices, u, jn[k], _sigmoid(xneg[k] - xi))
    for f in range(d):
        vi = V[i, f]
        gu = a * vi
        for k in range(n):
            gu -= coef[k] * oldneg[k, f]
        U[u, f] += lr * (gu - reg * uu[f])
        V[i, f] += lr * (a * uu[f] - reg * vi)
    for k in range(n):
        j = jn[k]
        for f in range(d):
            V[j, f] += lr * (-coef[k] * uu[f] - reg * oldneg[k, f])


@numba.njit(cache=True)
def _bpr_epoch(
    U,
    V,
    pairs,
    indptr,
    indices,
    t_indptr,
    t_indices,
    sampler,
    n_cand,
    lam,
    prior,
    oracle,
    fn_level,
    tn_level,
    f_cand,
    pns_cdf,
    rank_scale,
    lr,
    reg,
    seed,
    stats,
    record,
    mem,
    hist,
    hist_u,
    hist_v,
    n_hist,
    alpha_t,
    srns_pool,
    srns_tau,
    loss_code,
    n_negs,
    f_sample,
):
    np.random.seed(seed)
    n_items = V.shape[0]
    d = U.shape[1]
    pos_row = np.zeros(n_items, dtype=np.bool_)
    test_row = np.zeros(n_items, dtype=np.bool_)
    scores = np.empty(n_items, dtype=np.float32)
    cand = np.empty(n_items, dtype=np.int64)
    negs = np.empty(n_items, dtype=np.int64)
    buf_v = np.empty(n_items, dtype=np.float32)
    sbuf = np.empty(n_items, dtype=np.float32)
    start = np.zeros(n_items + 1, dtype=np.int64)
    chosen = np.zeros(n_items, dtype=np.bool_)
    uu = np.empty(d, dtype=np.float32)
    # SRNS scratch: memory scores and history, the refresh pool
    s1 = mem.shape[1]
    mscore = np.empty(s1, dtype=np.float64)
    n_win = max(hist.shape[0], hist_u.shape[0])
    hmem = np.empty((n_win, s1), dtype=np.float64)
    hpos = np.empty(n_win, dtype=np.float64)
    dense_hist = (
        hist.shape[1] > 1 or hist_u.shape[0] == 0
    )  # recorded scores, or recorded embeddings
    # BNS's eCDF from a uniform subsample of the non-interacted items (f_sample > 0)
    fsamp = np.empty(max(f_sample, 1), dtype=np.float32)
    pool = np.empty(s1 + srns_pool, dtype=np.int64)
    pscore = np.empty(s1 + srns_pool, dtype=np.float64)
    wbuf = np.empty(s1 + srns_pool, dtype=np.float64)
    # the step's negatives, their old scores / embeddings and loss derivatives (BCE / InfoNCE)
    jn = np.empty(n_negs, dtype=np.int64)
    xneg = np.empty(n_negs, dtype=np.float64)
    coef = np.empty(n_negs, dtype=np.float64)
    oldneg = np.empty((n_negs, d), dtype=np.float32)
    per_user_prior = prior.shape[0] > 1
    # hard labels (P_fn in {0, 1}): eq. 4.14 is the label whatever F, so F is not computed
    need_f = not (
        oracle and (fn_level == 0.0 or fn_level == 1.0) and (tn_level == 0.0 or tn_level == 1.0)
    )
    # geometric rank law of AOBPR, truncated to n_items: P(r) ∝ exp(-r / rank_scale)
    q = math.exp(-1.0 / rank_scale) if rank_scale > 0 else 0.0
    for t in range(pairs.shape[0]):
        u = pairs[t, 0]
        i = pairs[t, 1]
        # dense rows only where many lookups are made (score-based samplers); binary search otherwise
        dense = 2 <= sampler <= 4
        if dense:
            _mark(pos_row, indptr, indices, u, True)
            if oracle:
                _mark(test_row, t_indptr, t_indices, u, True)
        p_lo, p_hi = indptr[u], indptr[u + 1]
        pu = u if per_user_prior else 0  # the row of P_fn (one per user for an occupation prior)
        n_pos = indptr[u + 1] - indptr[u]
        n_neg = n_items - n_pos
        scored = False
        fsampled = False
        for qn in range(n_negs):  # each negative from its own draw (its own M_u for DNS / BNS)
            if sampler == 0:  # RNS
                j = _uniform_neg_csr(indices, p_lo, p_hi, n_items)
            elif (
                sampler == 1
            ):  # PNS: inverse CDF of pop^0.75, rejecting positives (uniform fallback)
                j = -1
                for _ in range(1000):
                    x = np.random.random()
                    c = np.searchsorted(pns_cdf, x, side="right")
                    if c >= n_items:
                        c = n_items - 1
                    if not _in_sorted(indices, p_lo, p_hi, c):
                        j = c
                        break
                if j < 0:
                    j = _uniform_neg_csr(indices, p_lo, p_hi, n_items)
            elif (
                sampler == 5
            ):  # SRNS: variance-based choice from the memory, then the memory update
                j = _srns_choose(
                    U,
                    V,
                    u,
                    i,
                    mem[u],
                    hist,
                    hist_u,
                    hist_v,
                    dense_hist,
                    n_hist,
                    alpha_t,
                    srns_pool,
                    srns_tau,
                    indices,
                    p_lo,
                    p_hi,
                    n_items,
                    n_neg,
                    mscore,
                    hmem,
                    hpos,
                    pool,
                    pscore,
                    chosen,
                    wbuf,
                )
            else:
                m = n_cand if n_cand < n_neg else n_neg
                # every item's score only where a rank or an eCDF over all negatives is taken (AOBPR,
                # BNS's F over all negatives); DNS, hard labels and F over M_u read the positive and
                # the m candidates, scored below by _dot (the arithmetic of _score_all, bit for bit)
                # BNS's F estimated from f_sample uniform non-interacted items (fewer than all of them)
                f_est = (
                    sampler == 4 and need_f and not (f_cand and m < n_neg) and 0 < f_sample < n_neg
                )
                full = sampler == 3 or (
                    sampler == 4 and need_f and not (f_cand and m < n_neg) and not f_est
                )
                if not scored:  # the scores do not change between the draws of one step
                    if full:
                        _score_all(U, V, u, scores)
                    else:
                        scores[i] = _dot(U, V, u, i)
                    scored = True
                if (
                    sampler == 3
                ):  # AOBPR: the negative of rank r among the user's non-interacted items
                    j = _aobpr_neg(scores, pos_row, np.random.random(), q, start, sbuf, negs)
                else:
                    # candidate set M_u: uniform without replacement among the non-interacted items
                    if 4 * m < n_neg:
                        k = 0
                        while k < m:
                            c = _uniform_neg(pos_row, n_items)
                            if not chosen[c]:
                                chosen[c] = True
                                cand[k] = c
                                k += 1
                        for k in range(m):
                            chosen[cand[k]] = False
                    else:
                        nn = _collect_negs(pos_row, negs)
                        for k in range(m):  # partial Fisher-Yates
                            r = k + np.random.randint(0, nn - k)
                            negs[k], negs[r] = negs[r], negs[k]
                            cand[k] = negs[k]
                    if not full:
                        for k in range(m):
                            scores[cand[k]] = _dot(U, V, u, cand[k])
                    if sampler == 2:  # DNS: the highest-scored candidate
                        j = cand[0]
                        for k in range(1, m):
                            if scores[cand[k]] > scores[j]:
                                j = cand[k]
                    else:  # BNS, eq. 4.26
                        x_ui = scores[i]
                        cand_f = (
                            f_cand and m < n_neg
                        )  # F over M_u (over all negatives when M_u is all of them)
                        srt = np.empty(0, dtype=np.float32)
                        if not need_f:
                            lo, scale = 0.0, 0.0
                        elif f_est:
                            if (
                                not fsampled
                            ):  # one subsample per step (the scores do not change within it)
                                for k2 in range(f_sample):
                                    fsamp[k2] = _dot(
                                        U, V, u, _uniform_neg(pos_row, n_items)
                                    )  # pos_row: O(1) test
                                fsampled = True
                            lo, scale = 0.0, 0.0
                        elif cand_f:
                            for k in range(m):
                                sbuf[k] = scores[cand[k]]
                            srt = np.sort(sbuf[:m])
                            lo, scale = 0.0, 0.0
                        elif m <= _DIRECT_COUNT_MAX:
                            # positives at +inf never count as <= a candidate: a branch-free count loop
                            for l in range(n_items):
                                buf_v[l] = np.inf if pos_row[l] else scores[l]
                            lo, scale = 0.0, 0.0
                        else:
                            nn = _collect_negs(pos_row, negs)
                            for k2 in range(nn):
                                sbuf[k2] = scores[negs[k2]]
                            lo, scale = _bucketize(sbuf, nn, buf_v, start)
                        best = 0.0
                        j = cand[0]
                        for k in range(m):
                            c = cand[k]
                            sc = scores[c]
                            if not need_f:
                                F = 0.0
                            elif f_est:  # unbiased for eq. 4.15: E[#{sample <= x} / S] = #{negatives <= x} / n
                                F = _f_hat(fsamp, sc, n_neg)
                            elif cand_f:
                                F = np.searchsorted(srt, sc, side="right") / (m + 1.0)
                            else:
                                if m <= _DIRECT_COUNT_MAX:
                                    cnt = _count_le(buf_v, sc)
                                else:
                                    cnt = _bucket_count_le(buf_v, start, n_neg, lo, scale, sc)
                                F = cnt / (n_neg + 1.0)  # eq. 4.15 over n + 1 (released code)
                            if oracle:
                                p_fn = fn_level if test_row[c] else tn_level
                            else:
                                p_fn = prior[pu, c]
                            num = (1.0 - F) * (1.0 - p_fn)
                            den = 1.0 - F - p_fn + 2.0 * F * p_fn
                            unbias = num / den if den > 0.0 else 0.0
                            info = _sigmoid(sc - x_ui)
                            risk = info * (1.0 - (1.0 + lam) * unbias)
                            if k == 0 or risk < best:
                                best = risk
                                j = c
            jn[qn] = j
        if record.shape[0] > 0:
            record[t] = jn[0]
        if loss_code != 0:
            _contrastive_step(
                U,
                V,
                u,
                i,
                jn,
                loss_code,
                lr,
                reg,
                uu,
                xneg,
                coef,
                oldneg,
                stats,
                t_indptr,
                t_indices,
            )
            if dense:
                _mark(pos_row, indptr, indices, u, False)
                if oracle:
                    _mark(test_row, t_indptr, t_indices, u, False)
            continue
        j = jn[0]
        # BPR step (simultaneous update): x = x_ui - x_uj
        x = 0.0
        for f in range(d):
            uu[f] = U[u, f]
            x += uu[f] * (V[i, f] - V[j, f])
        sig = _sigmoid(x)
        g = 1.0 - sig
        stats[3] += -math.log(max(sig, 1e-300))
        # sampling quality (eq. 4.27-4.28): info(j) = sigma(x_uj - x_ui) when drawn, FN = a test item of u
        _record_quality(
            stats, t_indptr, t_indices, u, j, _sigmoid(scores[j] - scores[i]) if scored else g
        )
        for f in range(d):
            vi = V[i, f]
            vj = V[j, f]
            U[u, f] += lr * (g * (vi - vj) - reg * uu[f])
            V[i, f] += lr * (g * uu[f] - reg * vi)
            V[j, f] += lr * (-g * uu[f] - reg * vj)
        if dense:
            _mark(pos_row, indptr, indices, u, False)
            if oracle:
                _mark(test_row, t_indptr, t_indices, u, False)
