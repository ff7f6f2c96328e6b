r"""Top-k ranking metrics and sampling-quality metrics (Liu Bin's thesis, §4.5.1.3).

Ranking convention (the thesis's and its released code's): for every user u with at least one
held-out item, all items the user has *not* interacted with in training are ranked by score
(training items are masked out). With :math:`T_u` the user's held-out items,
:math:`\mathrm{rel}_r = 1` when the item at rank r is in :math:`T_u` (0 otherwise) and
:math:`\mathrm{hits@k} = \sum_{r=1}^{k} \mathrm{rel}_r`,

.. math::
    P@k = \frac{\mathrm{hits@k}}{k}, \qquad R@k = \frac{\mathrm{hits@k}}{|T_u|}, \qquad
    \mathrm{NDCG@k} = \frac{\sum_{r=1}^{k} \mathrm{rel}_r / \log_2(r+1)}{\sum_{r=1}^{\min(|T_u|, k)} 1/\log_2(r+1)},

averaged over the users with held-out items (the thesis uses Precision, Recall and NDCG without
stating them: these are the usual binary-relevance definitions). Ties in score are broken by the
lower item index.

Sampling quality (thesis eq. 4.27-4.28): flipping the test labels, a sampled negative that is a
test item of its user is a false negative (FN), any other a true negative (TN); over the #TN + #FN
negatives sampled in an epoch,

.. math::
    \mathrm{TNR} = \frac{\#TN}{\#TN + \#FN} \quad (4.27), \qquad
    \mathrm{INF} = \frac{\sum_j \mathrm{info}(j)\, \mathbb{I}(j)}{\#TN + \#FN} \quad (4.28),

with :math:`\mathrm{info}(j) = 1 - \sigma(x_{ui} - x_{uj}) = \sigma(x_{uj} - x_{ui})` (eq. 4.4),
the gradient magnitude of the BPR loss, and :math:`\mathbb{I}(j) = +1` for a TN, :math:`-1` for
an FN.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._validation import int_scalar

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._typing import ArrayLike

__all__ = ["topk_metrics", "topk_metrics_csr", "sampling_quality"]


def _ks(k):
    ks = [k] if np.isscalar(k) else list(k)
    if not ks:
        raise ValueError("k must name at least one list length")
    return sorted({int_scalar("k", v, 1) for v in ks})


def topk_metrics(
    scores: ArrayLike,
    relevant: ArrayLike,
    exclude: ArrayLike | None = None,
    k: int | Sequence[int] = (5, 10, 20),
) -> dict:
    r"""Precision, Recall and NDCG at each k (training items masked; see the module notes).

    For each user u with held-out items :math:`T_u` and :math:`\mathrm{rel}_r = 1` when the item
    ranked r is in :math:`T_u`,

    .. math::
        \mathrm{NDCG@k}(u) = \frac{\sum_{r=1}^{k} \mathrm{rel}_r / \log_2(r+1)}
                                  {\sum_{r=1}^{\min(|T_u|, k)} 1/\log_2(r+1)},

    and P@k, R@k are the hits among the top k over k and over :math:`|T_u|`; each metric is the
    mean over the users with at least one held-out item.

    Parameters
    ----------
    scores : array_like, shape (n_users, n_items)
        Predicted scores x_ui (finite or -inf; NaN is rejected).
    relevant : array_like of bool, shape (n_users, n_items)
        Held-out (test or validation) items of each user; users without one are left out.
    exclude : array_like of bool, shape (n_users, n_items), optional
        Items never recommended (the user's training items), scored -inf before ranking.
        Default None: every item is ranked.
    k : int or sequence of int
        List length(s), each in 1 .. n_items (default 5, 10 and 20, the thesis's).

    Returns
    -------
    dict
        ``{"precision@5": ..., "recall@5": ..., "ndcg@5": ..., ...}`` (floats, one triple per k;
        NaN when no user has a held-out item) plus ``n_users_evaluated`` (int).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import topk_metrics
    >>> s = np.array([[0.9, 0.8, 0.1, 0.5]])
    >>> rel = np.array([[False, False, True, True]])
    >>> m = topk_metrics(s, rel, exclude=np.array([[True, False, False, False]]), k=2)
    >>> m["precision@2"], m["recall@2"], round(m["ndcg@2"], 4)
    (0.5, 0.5, 0.3869)
    """
    s = np.asarray(scores, dtype=np.float64)
    rel = np.asarray(relevant, dtype=bool)
    if s.ndim != 2:
        raise ValueError(f"scores must be a 2-d array (users x items), got shape {s.shape}")
    if rel.shape != s.shape:
        raise ValueError(f"relevant must have the shape of scores {s.shape}, got {rel.shape}")
    if np.isnan(s).any():
        raise ValueError("scores must not be NaN (the model diverged?)")
    ks = _ks(k)
    kmax = ks[-1]
    if kmax > s.shape[1]:
        raise ValueError(f"k must be at most the number of items {s.shape[1]}, got {kmax}")
    if exclude is not None:
        ex = np.asarray(exclude, dtype=bool)
        if ex.shape != s.shape:
            raise ValueError(f"exclude must have the shape of scores {s.shape}, got {ex.shape}")
        s = np.where(ex, -np.inf, s)
    n_rel = rel.sum(axis=1)
    users = np.flatnonzero(n_rel > 0)
    if len(users) == 0:
        return _empty(ks)
    hits = _top_hits(s[users], rel[users], ks[-1])
    return _summarise(hits, n_rel[users], ks)


def _empty(ks):
    out: dict[str, float] = {"n_users_evaluated": 0}
    for kk in ks:
        out.update(
            {
                f"precision@{kk}": float("nan"),
                f"recall@{kk}": float("nan"),
                f"ndcg@{kk}": float("nan"),
            }
        )
    return out


def _top_items(su, kmax):
    """The ``kmax`` best items of each row of ``su`` (excluded items at -inf), best first.

    Ties in score go to the lower item index; every row is ranked on its own, so the result of a
    row does not depend on the other rows of the block. This is the reference ranking: a score
    matrix's own :meth:`~negtheory.recsys.loop.ScoreMatrix.top_items` (e.g. on a GPU) must equal it.
    """
    # stable order: sort by (-score, item index) among the top candidates
    part = (
        np.argpartition(-su, kmax - 1, axis=1)[:, :kmax]
        if kmax < su.shape[1]
        else np.tile(np.arange(su.shape[1]), (su.shape[0], 1))
    )
    # argpartition may cut a tie at the boundary arbitrarily: widen to every item tied with the k-th
    kth = np.take_along_axis(su, part, 1).min(axis=1)
    cand_mask = su >= kth[:, None]
    top = np.empty((su.shape[0], kmax), dtype=np.int64)
    for r in range(su.shape[0]):
        c = np.flatnonzero(cand_mask[r])
        order = np.lexsort((c, -su[r, c]))
        top[r] = c[order[:kmax]]
    return top


def _top_hits(su, rel_u, kmax):
    """Relevance (0/1, float64) of the top ``kmax`` items of each row of ``su`` (:func:`_top_items`)."""
    return np.take_along_axis(rel_u, _top_items(su, kmax), 1).astype(np.float64)


def _summarise(hits, n_rel, ks):
    """The means over users of P@k, R@k and NDCG@k from the relevance of each user's top items."""
    kmax = ks[-1]
    out: dict[str, float] = {"n_users_evaluated": int(hits.shape[0])}
    nr = n_rel.astype(np.float64)
    disc = 1.0 / np.log2(np.arange(2, kmax + 2))
    cum_disc = np.cumsum(disc)
    for kk in ks:
        h = hits[:, :kk]
        nh = h.sum(axis=1)
        dcg = (h * disc[:kk]).sum(axis=1)
        idcg = cum_disc[np.minimum(nr, kk).astype(np.int64) - 1]
        out[f"precision@{kk}"] = float((nh / kk).mean())
        out[f"recall@{kk}"] = float((nh / nr).mean())
        out[f"ndcg@{kk}"] = float((dcg / idcg).mean())
    return out


def _check_csr(name, csr, n_users, n_items):
    try:
        indptr, indices = (np.asarray(a) for a in csr)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a CSR pair (indptr, indices), got {type(csr).__name__}"
        ) from None
    if indptr.shape != (n_users + 1,) or indices.ndim != 1 or indptr[-1] != indices.size:
        raise ValueError(
            f"{name} must be a CSR pair (indptr of length n_users + 1 = {n_users + 1}, indices), "
            f"got shapes {indptr.shape} and {indices.shape}"
        )
    if indices.size and (indices.min() < 0 or indices.max() >= n_items):
        raise ValueError(f"{name} holds item ids outside [0, {n_items})")
    return indptr.astype(np.int64, copy=False), indices.astype(np.int64, copy=False)


def _csr_entries(indptr, indices, users):
    """(row in the block, item) of the CSR entries of ``users``."""
    start = indptr[users]
    count = indptr[users + 1] - start
    rows = np.repeat(np.arange(users.size), count)
    first = np.repeat(np.cumsum(count) - count, count)
    return rows, indices[np.arange(rows.size) - first + np.repeat(start, count)]


def topk_metrics_csr(
    scores,
    relevant,
    exclude=(),
    k: int | Sequence[int] = (5, 10, 20),
    *,
    block_users: int | None = None,
) -> dict:
    r""":func:`topk_metrics` from sparse held-out / excluded sets, ranking blocks of users at a time.

    The same metrics, bit for bit, as ``topk_metrics(np.asarray(scores), R, E, k)`` with R and E
    the dense masks of ``relevant`` and of the union of ``exclude``: each user's row is ranked on
    its own and the per-user values are averaged once over all users. Memory is that of one block
    (``block_users`` x n_items scores and their ranking), never n_users x n_items.

    Parameters
    ----------
    scores : ScoreMatrix or array_like, shape (n_users, n_items)
        Anything with ``block(users)`` (:class:`negtheory.recsys.loop.ScoreMatrix`) or a dense
        array (finite or -inf; NaN is rejected).
    relevant : (indptr, indices)
        Held-out items of each user in CSR form (:meth:`Interactions.test_csr`,
        :meth:`~Interactions.valid_csr`); users without one are left out.
    exclude : sequence of (indptr, indices)
        Item sets never recommended (e.g. ``(data.train_csr(),)``), scored -inf before ranking.
    k : int or sequence of int
        List length(s), each in 1 .. n_items (default 5, 10 and 20).
    block_users : int, optional
        Users ranked per block (default: about 2**22 scores a block, at least 64 users).

    Returns
    -------
    dict
        As :func:`topk_metrics`.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys.metrics import topk_metrics_csr
    >>> s = np.array([[0.9, 0.8, 0.1, 0.5]])
    >>> rel = (np.array([0, 2]), np.array([2, 3]))
    >>> m = topk_metrics_csr(s, rel, [(np.array([0, 1]), np.array([0]))], k=2)
    >>> m["precision@2"], m["recall@2"], round(m["ndcg@2"], 4)
    (0.5, 0.5, 0.3869)
    """
    if hasattr(scores, "block"):
        sm = scores
        shape = tuple(int(x) for x in scores.shape)
    else:
        arr = np.asarray(scores)
        if arr.ndim != 2:
            raise ValueError(f"scores must be a 2-d array (users x items), got shape {arr.shape}")
        shape = arr.shape
        sm = None
    if len(shape) != 2:
        raise ValueError(f"scores must be 2-d (users x items), got shape {shape}")
    n_users, n_items = shape
    ks = _ks(k)
    kmax = ks[-1]
    if kmax > n_items:
        raise ValueError(f"k must be at most the number of items {n_items}, got {kmax}")
    r_ptr, r_idx = _check_csr("relevant", relevant, n_users, n_items)
    if (
        isinstance(exclude, tuple)
        and len(exclude) == 2
        and all(isinstance(a, np.ndarray) for a in exclude)
    ):
        exclude = (exclude,)  # one CSR pair given bare
    ex = [_check_csr("exclude", e, n_users, n_items) for e in exclude]
    users = np.flatnonzero(np.diff(r_ptr) > 0)
    if len(users) == 0:
        return _empty(ks)
    if block_users is None:
        block_users = max(64, (1 << 22) // n_items)
    block_users = int_scalar("block_users", block_users, 1)
    hits, n_rel = [], []
    for s0 in range(0, users.size, block_users):
        ub = users[s0 : s0 + block_users]
        masked = [_csr_entries(e_ptr, e_idx, ub) for e_ptr, e_idx in ex]
        # a score matrix that ranks on its own device (ScoreMatrix.top_items) returns the same
        # items as the reference ranking below; None: rank here
        top = (
            sm.top_items(ub, kmax, masked) if sm is not None and hasattr(sm, "top_items") else None
        )
        if top is None:
            rows = sm.block(ub) if sm is not None else arr[ub]
            s = np.asarray(rows, dtype=np.float64)
            if s is rows:
                s = s.copy()
            if np.isnan(s).any():
                raise ValueError("scores must not be NaN (the model diverged?)")
            for entries in masked:
                s[entries] = -np.inf
            top = _top_items(s, kmax)
        rel = np.zeros((ub.size, n_items), dtype=bool)
        rel[_csr_entries(r_ptr, r_idx, ub)] = True
        hits.append(np.take_along_axis(rel, top, 1).astype(np.float64))
        n_rel.append(rel.sum(axis=1))
    return _summarise(np.concatenate(hits), np.concatenate(n_rel), ks)


def sampling_quality(is_false_negative: ArrayLike, info: ArrayLike) -> dict:
    r"""TNR and INF of sampled negatives (thesis eq. 4.27-4.28).

    Over the n = #TN + #FN sampled negatives, with :math:`\mathbb{I}(j) = +1` for a true and
    :math:`-1` for a false negative,

    .. math::
        \mathrm{TNR} = \frac{\#TN}{\#TN + \#FN} \quad (4.27), \qquad
        \mathrm{INF} = \frac{\sum_j \mathrm{info}(j)\, \mathbb{I}(j)}{\#TN + \#FN} \quad (4.28).

    Parameters
    ----------
    is_false_negative : array_like of bool, shape (n,)
        For each sampled negative j: True when j is a held-out (test) item of its user (any shape;
        flattened).
    info : array_like of float, shape (n,)
        :math:`\mathrm{info}(j) = \sigma(x_{uj} - x_{ui})` of each sample (eq. 4.4), at the time it
        was drawn; finite, in [0, 1] for a sigmoid. Same number of entries as
        ``is_false_negative``.

    Returns
    -------
    dict
        ``tnr`` (float, eq. 4.27), ``inf`` (float, eq. 4.28) and ``n`` (int, the number of sampled
        negatives).

    Examples
    --------
    >>> from negtheory.recsys import sampling_quality
    >>> sampling_quality([False, False, True, False], [0.5, 0.25, 0.75, 0.5])
    {'tnr': 0.75, 'inf': 0.125, 'n': 4}
    """
    fn = np.asarray(is_false_negative, dtype=bool).ravel()
    inf = np.asarray(info, dtype=np.float64).ravel()
    if fn.shape != inf.shape:
        raise ValueError(
            f"is_false_negative and info must have the same length, got {fn.size} and {inf.size}"
        )
    if fn.size == 0:
        raise ValueError("no sampled negative given")
    if not np.all(np.isfinite(inf)):
        raise ValueError("info must be finite")
    sign = np.where(fn, -1.0, 1.0)
    return {"tnr": float(1.0 - fn.mean()), "inf": float((inf * sign).mean()), "n": int(fn.size)}
