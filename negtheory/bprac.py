r"""BPRAC: the E-step credence of ch. 3 of Liu Bin's thesis (§3.2.3-3.2.4, eq. 3.19-3.28, Algorithm 1).

BPR with autonomous credence weights every observed interaction (u, i) by a latent credence
c_ui in {0, 1} and estimates it in the E-step of an EM loop (the M-step, eq. 3.29-3.32, is an
ordinary weighted BPR update and belongs to the torch bridge). With the matrix-factorisation
score x = <w_u, h_i>:

* prior of a score: the variance-gamma law f of Lemma 3.1 (:func:`negtheory.variance_gamma.inner_product`);
* density of a *credible* interaction's score: a credible positive outranks a negative, so its
  score is the larger of two draws, g(x) = 2 F(x) f(x) (eq. 3.22, order statistic k = n = 2),
  available as a distribution through :func:`posterior`;
* prior credibility: P(c_ui = 1) = sigmoid((n_i - n_bar) / sigma_n) (eq. 3.28), with n_i the
  share of users who interacted with item i and n_bar, sigma_n the mean and (population)
  standard deviation of those shares over the items, :func:`popularity_prior`;
* E-step: c_hat_ui proportional to g(x_ui) P(c_ui = 1) (eq. 3.24-3.27), :func:`credence`.

The released BPRAC code multiplies the credence by the explicit star rating; implicit feedback
has no ratings, so this module implements the thesis prior of eq. 3.28 only (README, "Notes on the sources (errata)").
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numba
import numpy as np

from ._validation import as_float_array, flag, real_array, scalar_or_array
from .variance_gamma import _check_d_lam, _vg_log_posterior, inner_product

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatArray
    from .dists import OrderStatistic

__all__ = ["credence", "popularity_prior", "posterior"]


@numba.njit(cache=True, nogil=True)
def _log_sigmoid(u):
    """log(1 / (1 + e^{-u})) without overflow for either sign of u."""
    if u >= 0.0:
        return -math.log1p(math.exp(-u))
    return u - math.log1p(math.exp(u))


@numba.njit(cache=True, nogil=True)
def _log_popularity_prior(counts):
    """log sigmoid((n_i - mean) / std) for every item (eq. 3.28); std = 0 gives log(1/2)."""
    n = counts.size
    # the standardised value is scale-free: divide by the largest count first, so that counts
    # near the float64 limit neither overflow the sum nor the squared deviations
    top = 0.0
    for i in range(n):
        top = max(top, counts[i])
    if top == 0.0:
        top = 1.0
    mean = 0.0
    for i in range(n):
        mean += counts[i] / top
    mean /= n
    var = 0.0
    for i in range(n):
        var += (counts[i] / top - mean) ** 2
    sd = math.sqrt(var / n)
    out = np.empty(n)
    for i in range(n):
        u = (counts[i] / top - mean) / sd if sd > 0.0 else 0.0
        out[i] = _log_sigmoid(u)
    return out


@numba.njit(cache=True, parallel=True)
def _credence_kernel(scores, items, counts, d, lam, normalize, out):
    """E-step (eq. 3.27-3.28) for all interactions: log g(x_ui) + log P(c_ui = 1), then exp.

    With ``normalize`` the log values are shifted by their maximum before exponentiation, so the
    result is c / max(c) in (0, 1] and never underflows as a whole.
    """
    log_prior = _log_popularity_prior(counts)
    n = scores.size
    for k in numba.prange(n):
        out[k] = _vg_log_posterior(d, lam, scores[k]) + log_prior[items[k]]
    shift = 0.0
    if normalize:
        shift = -math.inf
        for k in range(n):
            if out[k] > shift:
                shift = out[k]
    if shift == math.inf:  # d = 1 and a score exactly 0: the density there is infinite
        for k in numba.prange(n):
            out[k] = 1.0 if out[k] == math.inf else 0.0
        return
    for k in numba.prange(n):
        out[k] = math.exp(out[k] - shift)


def _counts(item_counts) -> np.ndarray:
    counts = real_array("item_counts", item_counts, 0.0)
    if counts.ndim != 1 or counts.size == 0:
        raise ValueError(
            f"item_counts must be a non-empty 1-d array (one entry per item), got shape {counts.shape}"
        )
    return np.ascontiguousarray(counts)


def popularity_prior(item_counts: ArrayLike) -> FloatArray:
    r"""Prior credibility of an interaction with each item, P(c_ui = 1) (thesis eq. 3.28).

    .. math:: P(c_{ui} = 1) = \mathrm{sigmoid}\Big(\frac{n_i - \bar n}{\sigma_n}\Big)

    Parameters
    ----------
    item_counts : array_like, shape (n_items,)
        Number (or share) of users who interacted with each item, n_i >= 0. The prior only
        depends on the standardised value, so counts and shares (counts / n_users) give the
        same result.

    Returns
    -------
    ndarray, shape (n_items,)
        Values in (0, 1). n_bar and sigma_n are the mean and the population standard deviation
        (ddof = 0) over the items; if all items are equally popular (sigma_n = 0) every prior is
        1/2.

    Examples
    --------
    >>> from negtheory.bprac import popularity_prior
    >>> popularity_prior([1, 3]).round(6)           # standardised values -1 and +1
    array([0.268941, 0.731059])
    >>> popularity_prior([5, 5, 5])
    array([0.5, 0.5, 0.5])
    """
    counts = _counts(item_counts)
    return np.exp(_log_popularity_prior(counts))


def posterior(d: int, lam: float) -> OrderStatistic:
    r"""Law of a credible interaction's score, g = 2 F f (thesis eq. 3.22).

    .. math:: g(x) = 2\, F(x)\, f(x),

    the density of the larger of two i.i.d. draws from the variance-gamma prior f (CDF F) of
    Lemma 3.1, i.e. ``order_statistic(inner_product(d, lam), 2, 2)``.

    Parameters
    ----------
    d : int
        Embedding dimension of the matrix factorisation, d >= 1.
    lam : float
        Variance lam > 0 of each embedding coordinate (the prior's scale).

    Returns
    -------
    OrderStatistic
        The law g, with the frozen ``scipy.stats`` surface.

    Examples
    --------
    >>> from negtheory.bprac import posterior
    >>> g = posterior(d=2, lam=1.0)
    >>> round(float(g.cdf(0.0)), 15)                # F(0)^2
    0.25
    """
    from .dists import order_statistic

    return order_statistic(inner_product(d, lam), 2, 2)


def credence(
    scores: ArrayLike,
    items: ArrayLike,
    item_counts: ArrayLike,
    d: int,
    lam: float,
    normalize: bool = True,
) -> FloatArray:
    r"""E-step credence c_hat_ui of every observed interaction (thesis eq. 3.24-3.28, Algorithm 1).

    .. math:: \hat c_{ui} \propto g(\hat x_{ui}; k=2, n=2)\, P(c_{ui}=1)
              = 2 F(\hat x_{ui}) f(\hat x_{ui})\; \mathrm{sigmoid}\Big(\frac{n_i - \bar n}{\sigma_n}\Big)

    with f, F the variance-gamma prior of the scores (Lemma 3.1, eq. 3.19-3.20). Computed in
    one parallel numba pass in log space (density and CDF from the same ladder sum, see
    :mod:`negtheory.variance_gamma`), O(d) per interaction.

    Parameters
    ----------
    scores : array_like of float
        Predicted scores x_ui = <w_u, h_i> of the observed interactions.
    items : array_like of int, same shape as ``scores``
        Item index of each interaction, 0 <= items < len(item_counts).
    item_counts : array_like, shape (n_items,)
        Interaction count (or share of users) of every item, for the prior of eq. 3.28.
    d : int
        Embedding dimension (d >= 1).
    lam : float
        Variance :math:`\lambda` of the embedding coordinates in the prior :math:`N(0, \lambda)` (lam > 0).
    normalize : bool, default True
        Divide by the largest value so that the result lies in (0, 1] (the maximum is exactly 1).
        The normaliser P(x_ui, >_u) of eq. 3.25 is dropped by the thesis; dividing by a constant
        keeps c_hat proportional to E[c_ui], which is all the convergence argument of Lemma 3.2
        needs (eq. 3.40). With ``normalize=False`` the raw product g(x) P(c = 1) is returned.

    Returns
    -------
    ndarray
        Same shape as ``scores``.

    Notes
    -----
    The released BPRAC code also multiplies by the explicit star rating; implicit feedback has
    none, so it is not used here (README, "Notes on the sources (errata)"). For d = 1 the prior density is infinite at
    0; a score of exactly 0 then gets credence 1 and all others 0 under ``normalize``.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.bprac import credence
    >>> c = credence([-1.0, 0.5, 2.0, 2.0], items=[0, 0, 0, 1], item_counts=[10, 30], d=2, lam=1.0)
    >>> c.round(4)
    array([0.1601, 1.    , 0.2986, 0.8116])
    >>> raw = credence([2.0], [0], [10, 30], d=2, lam=1.0, normalize=False)
    >>> bool(np.isclose(raw[0], 2 * (1 - np.exp(-2.0) / 2) * np.exp(-2.0) / 2 / (1 + np.e)))
    True
    """
    d, lam = _check_d_lam(d, lam)
    x = as_float_array("scores", scores)
    counts = _counts(item_counts)
    it = np.asarray(items)
    if it.shape != x.shape:
        raise ValueError(f"items must have the shape of scores {x.shape}, got {it.shape}")
    if it.size and it.dtype.kind not in "iu":
        itf = as_float_array("items", it)
        if not np.all(itf == np.round(itf)):
            raise ValueError(
                f"items must be integer item indices, got non-integer values such as {itf[itf != np.round(itf)][:3].tolist()}"
            )
        it = itf.astype(np.int64)
    it = np.ascontiguousarray(it, dtype=np.int64).reshape(-1)
    if it.size and (it.min() < 0 or it.max() >= counts.size):
        bad = it[(it < 0) | (it >= counts.size)][:3].tolist()
        raise ValueError(
            f"items must lie in [0, {counts.size - 1}] (indices into item_counts), got {bad}"
        )
    flat = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
    out = np.empty_like(flat)
    if flat.size:
        _credence_kernel(flat, it, counts, d, lam, flag("normalize", normalize), out)
    return scalar_or_array(out.reshape(x.shape))
