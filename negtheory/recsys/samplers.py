r"""Vectorised samplers for mini-batch training on implicit feedback (numpy, seeded by a Generator).

* :func:`sample_uninteracted` — RNS: for each user of a batch, ``n`` items drawn uniformly from
  the items the user has *not* interacted with in training (without replacement within a row,
  as the released code of thesis ch. 5-6 does); a training positive is never returned;
* :func:`sample_popular` — PNS: the same support, drawn ∝ pop_j^0.75 (:func:`pns_weights`, the
  proposal, shared with the batch-1 SGD engine);
* :func:`sample_extra_positives` — the M extra positives of DCL / HCL / DPL (thesis eq. 5.17,
  6.47): the user's training items, drawn with replacement.

The score-based samplers of ch. 4 (DNS, AOBPR, BNS) live in the SGD kernel of
:mod:`negtheory.recsys.bpr_sgd`, where the model's scores are at hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

from .._numeric import _in_sorted
from .._validation import as_generator, int_scalar

if TYPE_CHECKING:
    from .._typing import ArrayLike, FloatArray

__all__ = ["sample_uninteracted", "sample_popular", "sample_extra_positives", "pns_weights"]


def _check(users, n, train_mask, name="n", n_items=None):
    """Validate; returns (users, n, mask) with mask a dense bool array or a CSR (indptr, indices, n_items)."""
    users = np.asarray(users)
    if users.ndim != 1 or users.dtype.kind not in "iu":
        raise ValueError("users must be a 1-d array of user indices")
    if isinstance(train_mask, tuple) and len(train_mask) == 2:
        indptr = np.ascontiguousarray(train_mask[0], dtype=np.int64)
        indices = np.ascontiguousarray(train_mask[1], dtype=np.int64)
        if n_items is None:
            raise ValueError("n_items must be given with a CSR train_mask (indptr, indices)")
        n_items = int_scalar("n_items", n_items, 1)
        if indptr.ndim != 1 or indptr.size < 1 or indices.ndim != 1 or indptr[-1] != indices.size:
            raise ValueError(
                f"train_mask as CSR must be (indptr, indices) with indptr[-1] = len(indices), got shapes "
                f"{indptr.shape} and {indices.shape}"
            )
        n_users = indptr.size - 1
        mask = (indptr, indices, n_items)
    else:
        dense = np.asarray(train_mask, dtype=bool)
        if dense.ndim != 2:
            raise ValueError(
                f"train_mask must be a 2-d boolean array (users x items) or a CSR pair, got shape {dense.shape}"
            )
        n_users, n_items = dense.shape
        mask = np.ascontiguousarray(dense)
    if users.size and (users.min() < 0 or users.max() >= n_users):
        raise ValueError(f"users must lie in [0, {n_users}), got {users.min()}..{users.max()}")
    n = int_scalar(name, n, 1)
    if n > n_items:
        raise ValueError(
            f"{name}={n} negatives without replacement, but there are only {n_items} items"
        )
    return users.astype(np.int64, copy=False), n, mask


@numba.njit(cache=True)
def _fill_rows(mask, users, n, cdf, seed, out):
    """Rejection sampling of n distinct items per row, never one with mask[u, j]; -1 or a failing row.

    Uniform over the items when ``cdf`` is empty, else by inverse CDF. A row whose user has fewer
    than n admissible items is detected exactly (after many rejections) and reported.
    """
    np.random.seed(seed)
    n_items = mask.shape[1]
    for r in range(users.shape[0]):
        u = users[r]
        k = 0
        tries = 0
        while k < n:
            if cdf.shape[0] == 0:
                j = np.random.randint(0, n_items)
            else:
                j = np.searchsorted(cdf, np.random.random(), side="right")
                if j >= n_items:
                    j = n_items - 1
            ok = not mask[u, j]
            if ok:
                for q in range(k):
                    if out[r, q] == j:
                        ok = False
                        break
            if ok:
                out[r, k] = j
                k += 1
            else:
                tries += 1
                if tries == 100 * n_items:  # count the admissible items once: enough of them?
                    free = 0
                    for l in range(n_items):
                        if not mask[u, l] and (
                            cdf.shape[0] == 0 or cdf[l] > (cdf[l - 1] if l > 0 else 0.0)
                        ):
                            free += 1
                    if free < n:
                        return r
    return -1


@numba.njit(cache=True)
def _fill_rows_csr(indptr, indices, n_items, users, n, cdf, seed, out):
    """:func:`_fill_rows` with the training items in CSR form (sorted rows, binary search): the same draws."""
    np.random.seed(seed)
    for r in range(users.shape[0]):
        u = users[r]
        lo, hi = indptr[u], indptr[u + 1]
        k = 0
        tries = 0
        while k < n:
            if cdf.shape[0] == 0:
                j = np.random.randint(0, n_items)
            else:
                j = np.searchsorted(cdf, np.random.random(), side="right")
                if j >= n_items:
                    j = n_items - 1
            ok = not _in_sorted(indices, lo, hi, j)
            if ok:
                for q in range(k):
                    if out[r, q] == j:
                        ok = False
                        break
            if ok:
                out[r, k] = j
                k += 1
            else:
                tries += 1
                if tries == 100 * n_items:  # count the admissible items once: enough of them?
                    free = 0
                    for l in range(n_items):
                        if not _in_sorted(indices, lo, hi, l) and (
                            cdf.shape[0] == 0 or cdf[l] > (cdf[l - 1] if l > 0 else 0.0)
                        ):
                            free += 1
                    if free < n:
                        return r
    return -1


def _fill(users, n, mask, rng, cdf):
    out = np.empty((users.size, n), dtype=np.int64)
    seed = int(rng.integers(0, 2**31 - 1))
    if isinstance(mask, tuple):
        bad = _fill_rows_csr(mask[0], mask[1], mask[2], users, n, cdf, seed, out)
    else:
        bad = _fill_rows(mask, users, n, cdf, seed, out)
    if bad >= 0:
        raise ValueError(
            f"n={n} negatives without replacement, but user {users[bad]} has fewer admissible (non-interacted) items"
        )
    return out


def sample_uninteracted(users, n, train_mask, rng=None, *, n_items=None):
    """RNS: ``n`` distinct non-interacted items per user, uniformly (thesis ch. 4-6, released code).

    Parameters
    ----------
    users : array_like of int, shape (B,)
        The user of each row of the batch, indices in ``0 .. n_users - 1`` (repeats allowed).
    n : int
        Negatives per user (N), at least 1 and at most the number of items; every user of the
        batch needs at least ``n`` non-interacted items.
    train_mask : array_like of bool, shape (n_users, n_items), or (indptr, indices)
        True at training interactions (:meth:`Interactions.train_mask`): these items are never
        drawn. Or the same sets in CSR form, items ascending within each user
        (:meth:`Interactions.train_csr`), with ``n_items``: memory proportional to the
        interactions, and the very same draws.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (default None: a fresh, unseeded generator).
    n_items : int, optional
        The number of items, needed with a CSR ``train_mask`` (ignored with a dense one).

    Returns
    -------
    ndarray of int64, shape (B, n)
        Row r holds ``n`` distinct item indices, none a training item of ``users[r]``.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys.samplers import sample_uninteracted
    >>> mask = np.array([[True, True, False, False, True]])
    >>> sorted(sample_uninteracted([0], 2, mask, rng=0)[0].tolist())
    [2, 3]
    """
    users, n, mask = _check(users, n, train_mask, n_items=n_items)
    return _fill(users, n, mask, as_generator(rng), np.empty(0))


def pns_weights(item_counts: ArrayLike, power: float = 0.75) -> FloatArray:
    r"""Popularity-biased proposal of PNS (power 0.75 as in word2vec and the thesis, §4.5.1.2).

    .. math:: w_j = \frac{\mathrm{pop}_j^{\,p}}{\sum_l \mathrm{pop}_l^{\,p}}

    Parameters
    ----------
    item_counts : array_like of float, shape (n_items,)
        Training popularity :math:`\mathrm{pop}_j` of each item, finite and non-negative with a
        positive sum.
    power : float
        The exponent p (default 0.75): p = 0 gives every item the same weight (``0 ** 0 = 1``),
        p = 1 the popularity itself.

    Returns
    -------
    ndarray of float64, shape (n_items,)
        The weights :math:`w_j`, non-negative and summing to 1.

    Examples
    --------
    >>> from negtheory.recsys import pns_weights
    >>> pns_weights([1.0, 3.0], power=1.0).tolist()
    [0.25, 0.75]
    """
    c = np.asarray(item_counts, dtype=np.float64)
    if c.ndim != 1 or np.any(~np.isfinite(c)) or np.any(c < 0) or c.sum() <= 0:
        raise ValueError(
            "item_counts must be a 1-d array of non-negative counts with a positive sum"
        )
    w = c**power
    return w / w.sum()


def sample_popular(users, n, train_mask, item_counts, rng=None, power=0.75, *, n_items=None):
    """PNS: ``n`` distinct non-interacted items per user, drawn ∝ pop_j^power (thesis §4.5.1.2).

    Items are proposed from :func:`~negtheory.recsys.pns_weights` and rejected when the user has
    interacted with them or they are already in the row (so the row law is that of sampling
    without replacement from the renormalised weights); with ``power > 0`` an item of zero count
    is never drawn.

    Parameters
    ----------
    users : array_like of int, shape (B,)
        The user of each row of the batch, indices in ``0 .. n_users - 1``.
    n : int
        Negatives per user, at least 1; every user of the batch needs at least ``n``
        non-interacted items of positive count.
    train_mask : array_like of bool, shape (n_users, n_items), or (indptr, indices)
        True at training interactions (never drawn), or these sets in CSR form (items ascending
        within each user, :meth:`Interactions.train_csr`) with ``n_items``; the same draws.
    item_counts : array_like of float, shape (n_items,)
        Training popularity pop_j (:meth:`Interactions.item_counts`), non-negative with a positive
        sum.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (default None: a fresh, unseeded generator).
    power : float
        Exponent of the popularity (default 0.75, the thesis's and word2vec's).
    n_items : int, optional
        The number of items, needed with a CSR ``train_mask``.

    Returns
    -------
    ndarray of int64, shape (B, n)
        Row r holds ``n`` distinct item indices, none a training item of ``users[r]``.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys.samplers import sample_popular
    >>> mask = np.array([[True, False, False, False]])
    >>> sorted(sample_popular([0], 2, mask, [5.0, 1.0, 0.0, 3.0], rng=0)[0].tolist())
    [1, 3]
    """
    users, n, mask = _check(users, n, train_mask, n_items=n_items)
    gen = as_generator(rng)
    w = pns_weights(item_counts, power)
    n_all = mask[2] if isinstance(mask, tuple) else mask.shape[1]
    if w.shape[0] != n_all:
        raise ValueError(f"item_counts must have one entry per item ({n_all}), got {w.shape[0]}")
    cdf = np.cumsum(w)
    cdf[-1] = 1.0
    return _fill(users, n, mask, gen, cdf)


def sample_extra_positives(users, m, indptr, indices, rng=None):
    """M extra positives per user: the user's training items drawn with replacement (released code).

    Parameters
    ----------
    users : array_like of int, shape (B,)
        The user of each row of the batch; each needs at least one training item.
    m : int
        Extra positives per user (M of thesis eq. 5.17 and 6.47), at least 1.
    indptr : array_like of int, shape (n_users + 1,)
        Row pointers of the training CSR (:meth:`Interactions.train_csr`): user u's items are
        ``indices[indptr[u]:indptr[u + 1]]``.
    indices : array_like of int, shape (n_train,)
        Item indices of the training CSR.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (default None: a fresh, unseeded generator).

    Returns
    -------
    ndarray of int, shape (B, m)
        Row r holds ``m`` training items of ``users[r]``, drawn uniformly with replacement.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys.samplers import sample_extra_positives
    >>> indptr, indices = np.array([0, 2, 3]), np.array([4, 7, 1])
    >>> sample_extra_positives([1, 1], 3, indptr, indices, rng=0).tolist()
    [[1, 1, 1], [1, 1, 1]]
    """
    users = np.asarray(users)
    m = int_scalar("m", m, 1)
    indptr = np.asarray(indptr)
    indices = np.asarray(indices)
    if users.ndim != 1 or users.dtype.kind not in "iu":
        raise ValueError("users must be a 1-d array of user indices")
    start = indptr[users]
    count = indptr[users + 1] - start
    if users.size and count.min() < 1:
        raise ValueError("a user of the batch has no training item to draw extra positives from")
    gen = as_generator(rng)
    off = np.floor(gen.random(size=(users.size, m)) * count[:, None]).astype(np.int64)
    return indices[start[:, None] + off]
