r"""Estimators of the true-negative score mean and the debiasing weights (thesis ch. 4-6).

All functions take numpy arrays whose **last axis holds the N unlabeled scores of one anchor**
(x-hat = exp(similarity / t) in the thesis) and are vectorised over the leading axes.

* BCL (ch. 6): :func:`bcl_weights` (eq. 6.25 with Phi from the eCDF, eq. 6.29-6.30),
  :func:`theta_bcl` (eq. 6.48, or the self-normalised form of the released code);
* the reference and baseline estimators of the numerical study (§6.6.1): :func:`theta_sup`
  (6.45), :func:`theta_biased` (6.46), :func:`theta_dcl` (6.47), :func:`theta_hcl`;
* DPL (ch. 5): :func:`dpl_probability` (P-hat_PN, eq. 5.17), :func:`dpl_loss` (5.18),
  :func:`dpl_error_bound` (Lemma 5.3);
* BNS (ch. 4): :func:`bns_info` (4.4), :func:`bns_unbias` (4.14), :func:`bns_risk` (4.25),
  :func:`bns_select` (4.26), and the sampling-quality metrics :func:`tnr` (4.27) and
  :func:`informativeness` (4.28).

eCDF conventions: BCL's eq. 6.30 counts the N unlabeled scores <= x-hat,
itself included, over N (so the largest score gets 1 and tied scores share the largest rank);
BNS's eq. 4.15 as released divides by n + 1 (so F < 1). Each function states which it uses.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numba
import numpy as np
from scipy.special import expit

from ._docstrings import docstring
from ._validation import (
    as_float_array,
    broadcast,
    check_range,
    flag,
    real_array,
    real_scalar,
    scalar_or_array,
)
from .dists import _quad_root_np

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatArray, FloatOrArray, IntOrArray

__all__ = [
    "bcl_weights",
    "cdf_from_unlabeled",
    "theta_sup",
    "theta_biased",
    "theta_dcl",
    "theta_hcl",
    "theta_bcl",
    "dpl_probability",
    "dpl_loss",
    "dpl_error_bound",
    "bns_info",
    "bns_unbias",
    "bns_risk",
    "bns_select",
    "ecdf",
    "tnr",
    "informativeness",
]

# the documentation the estimators share, written once (see negtheory._docstrings)
_doc = docstring(
    scores_alpha_params=r"""
        Parameters
        ----------
        scores : array_like, shape (..., N)
            Unlabeled scores :math:`\hat x` of each anchor (last axis).
        alpha : float
            Encoder quality :math:`P(x^- < x^+)` in [1/2, 1].""",
    scores_param=r"""
        Parameters
        ----------
        scores : array_like, shape (..., N)
            Unlabeled scores :math:`\hat x` of each anchor (last axis).""",
    estimate_returns="""
        Returns
        -------
        float or ndarray
            The estimate per anchor, shape (...) (a float for one anchor).""",
)


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _scores(name, value, *, min_ndim=1):
    arr = as_float_array(name, value)
    if arr.ndim < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} dimension(s) (last axis: the scores of one anchor), got a scalar"
        )
    if arr.shape[-1] == 0:
        raise ValueError(f"{name} must hold at least one score along its last axis")
    return arr


def _scaled(x):
    """``(x / c, c)`` with c = max |x| along the last axis (1 where it is 0): sums of scores near the
    float64 limit overflow (1e308 + 1e308 = inf) where the sums of ``x / c`` (each in [-1, 1]) do not."""
    c = np.abs(x).max(axis=-1, keepdims=True)
    c = np.where(c > 0.0, c, 1.0)
    return x / c, c[..., 0]


def _mean_last(x):
    """Mean along the last axis, finite for every finite ``x`` (scaled by max |x| first)."""
    xs, c = _scaled(x)
    return xs.mean(axis=-1) * c


def _tau(tau_plus):
    return real_array("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True)


def _leading(param: np.ndarray, lead_shape: tuple, name: str) -> np.ndarray:
    """Broadcast a per-anchor parameter to the leading shape of the score array."""
    try:
        return np.broadcast_to(param, lead_shape)
    except ValueError as exc:
        raise ValueError(
            f"{name} of shape {param.shape} does not broadcast to the anchors' shape {lead_shape}"
        ) from exc


@numba.njit(cache=True, parallel=True)
def _count_le_sorted(x, order, out):
    """out[r, i] = #{j : x[r, j] <= x[r, i]} given ``order[r] = argsort(x[r])``.

    One O(N) pass per row after the sort: walking the scores in sorted order, every member of
    a run of ties gets the index one past the run's end (ties share the largest count). The
    sort is numpy's (faster than sorting inside numba or torch on the CPU), and the walk beats
    a binary search per score, whose branches mispredict on random data.
    """
    n_rows, n = x.shape
    for r in numba.prange(n_rows):
        i = 0
        while i < n:
            j = i + 1
            v = x[r, order[r, i]]
            while j < n and x[r, order[r, j]] == v:
                j += 1
            for q in range(i, j):
                out[r, order[r, q]] = j
            i = j


_count_le_sorted_serial = numba.njit(cache=True)(_count_le_sorted.py_func)

# below this many scores the parallel kernel cannot pay for waking the thread pool (and its
# first call starts numba's threading layer): the serial twin runs instead
_PARALLEL_MIN_SIZE = 1 << 18


def ecdf_counts(scores) -> np.ndarray:
    """#{j : x_j <= x_i} along the last axis (int64), for a float64 array of any leading shape."""
    x = np.ascontiguousarray(scores, dtype=np.float64)
    flat = x.reshape(-1, x.shape[-1])
    out = np.empty(flat.shape, dtype=np.int64)
    kernel = (
        _count_le_sorted
        if flat.size >= _PARALLEL_MIN_SIZE and flat.shape[0] > 1
        else _count_le_sorted_serial
    )
    kernel(flat, np.argsort(flat, axis=1), out)
    return out.reshape(x.shape)


def ecdf(scores: ArrayLike, *, denominator: str = "n") -> FloatArray:
    r"""Empirical CDF of each anchor's scores at its own scores.

    ``denominator="n"`` (thesis eq. 6.30, BCL) counts the scores <= x_i, itself included, over
    N, so values lie in [1/N, 1]. ``denominator="n+1"`` (eq. 4.15 as in the released BNS code)
    divides the same count by N + 1, so F-hat < 1. Tied scores share the largest rank.

    .. math::
        \hat F(x_i) = \frac{1}{N}\,\#\{j : x_j \le x_i\} \quad (\text{eq. 6.30}), \qquad
        \hat F(x_i) = \frac{1}{N + 1}\,\#\{j : x_j \le x_i\} \quad (\text{eq. 4.15, released BNS code}).

    Parameters
    ----------
    scores : array_like, shape (..., N)
        Scores of each anchor along the last axis (N >= 1), any leading shape.
    denominator : {"n", "n+1"}, default "n"
        ``"n"``: divide the counts by N (eq. 6.30, values in [1/N, 1]); ``"n+1"``: by N + 1
        (eq. 4.15 as released, values below 1).

    Returns
    -------
    ndarray of float
        :math:`\hat F` at every score, with the shape of ``scores``.

    Examples
    --------
    >>> from negtheory.estimators import ecdf
    >>> ecdf([3.0, 1.0, 2.0, 2.0]).tolist()
    [1.0, 0.25, 0.75, 0.75]
    """
    x = _scores("scores", scores)
    if not isinstance(denominator, str) or denominator not in ("n", "n+1"):
        raise ValueError(f"denominator must be 'n' or 'n+1', got {denominator!r}")
    return ecdf_counts(x) / (x.shape[-1] + (0 if denominator == "n" else 1))


def _check_abt(alpha, beta, tau_plus):
    alpha = real_scalar("alpha", alpha, 0.5, 1.0)
    beta = real_scalar("beta", beta, 0.0, 1.0)
    tau_plus = real_scalar("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True)
    z = (1.0 - beta) * alpha + beta * (1.0 - alpha)
    if z <= 0.0:
        raise ValueError(
            "alpha = 1 with beta = 1 leaves the hard-negative target phi_THN with no mass (Z = 0 in eq. 6.26): "
            "a perfect encoder has no misranked true negatives to up-weight; use beta < 1 or alpha < 1"
        )
    return alpha, beta, tau_plus, z


def cdf_from_unlabeled(phi_un: ArrayLike, alpha: ArrayLike, tau_plus: ArrayLike) -> FloatOrArray:
    r"""Map the unlabeled-score CDF value Phi_UN to the parent CDF value Phi (thesis eq. 6.28-6.29).

    Eq. 6.28 gives

    .. math::
        \Phi_{UN} = b\,\Phi + a\,\Phi^2, \qquad a = (1 - 2\alpha)(\tau^- - \tau^+), \qquad
        b = 2\,[\alpha \tau^- + (1 - \alpha) \tau^+].

    The root is computed in the stable form

    .. math:: \Phi = \frac{2\,\Phi_{UN}}{b + \sqrt{b^2 + 4 a \Phi_{UN}}},

    which is exact at a = 0 (alpha = 1/2 or tau^+ = 1/2), where the printed eq. 6.29,
    :math:`\Phi = (-b + \sqrt{b^2 + 4 a \Phi_{UN}}) / (2a)`, divides by zero.

    Parameters
    ----------
    phi_un : array_like of float
        Value(s) of the unlabeled-score CDF Phi_UN, in [0, 1] (e.g. from :func:`ecdf`).
    alpha : float
        Encoder quality :math:`P(x^- < x^+)`, in [1/2, 1].
    tau_plus : float
        Class prior :math:`\tau^+` of false negatives among the unlabeled, in (0, 1); :math:`\tau^- = 1 - \tau^+`.

    Returns
    -------
    float or ndarray
        The parent CDF value(s) :math:`\Phi \in [0, 1]`, with the shape of ``phi_un``.

    Examples
    --------
    >>> from negtheory.estimators import cdf_from_unlabeled
    >>> float(cdf_from_unlabeled(0.3, 0.5, 0.1))       # a = 0: Phi = Phi_UN / b, b = 1
    0.3
    """
    u = real_array("phi_un", phi_un, 0.0, 1.0)
    alpha = real_scalar("alpha", alpha, 0.5, 1.0)
    tau_plus = real_scalar("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True)
    return scalar_or_array(_phi_from_un(u, alpha, tau_plus))


def _phi_from_un(u, alpha, tau_plus):
    tau_minus = 1.0 - tau_plus
    a = (1.0 - 2.0 * alpha) * (tau_minus - tau_plus)
    b = 2.0 * (alpha * tau_minus + (1.0 - alpha) * tau_plus)
    return _quad_root_np(b, a, u)  # b^2 + 4 a u >= (b - 2)^2 >= 0 on [0, 1] since a + b = 1


@_doc
def bcl_weights(
    scores: ArrayLike, alpha: ArrayLike, beta: ArrayLike, tau_plus: ArrayLike
) -> FloatArray:
    r"""BCL importance weights omega of each unlabeled score (thesis eq. 6.24-6.26, 6.29-6.30).

    .. math::
        \omega = \frac{1}{Z}\,\frac{(1-\beta)\alpha + (\beta-\alpha)\Phi}
                 {\alpha\tau^- + (1-\alpha)\tau^+ + (1-2\alpha)\Phi(\tau^- - \tau^+)},
        \qquad Z = (1-\beta)\alpha + \beta(1-\alpha),

    where Phi is the parent CDF at the score, recovered from the anchor's eCDF of its N
    unlabeled scores (eq. 6.30, itself included, over N) through the stable root of eq. 6.29
    (:func:`cdf_from_unlabeled`). The parent density cancels, so no parametric form is assumed.

    %(scores_alpha_params)s
    beta : float
        Hardness level in [0, 1]; 1/2 gives :math:`\omega = P(TN \mid \hat x) / \tau^-` (Theorem 6.1).
    tau_plus : float
        Class prior :math:`\tau^+` in (0, 1).

    Returns
    -------
    ndarray
        The weights :math:`\omega \ge 0`, with the shape of ``scores``.

    Raises
    ------
    ValueError
        :math:`\alpha = \beta = 1` (Z = 0: no hard-negative mass) or any parameter out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.estimators import bcl_weights
    >>> w = bcl_weights(np.array([0.1, 0.5, 0.2, 0.9]), alpha=0.9, beta=0.5, tau_plus=0.1)
    >>> bool(w[0] > w[3])     # low scores are likely true negatives: larger weight
    True
    """
    alpha, beta, tau_plus, _ = _check_abt(alpha, beta, tau_plus)
    x = _scores("scores", scores)
    return _omega_of_ecdf(ecdf(x), alpha, beta, tau_plus)


def _omega_of_ecdf(u, alpha, beta, tau_plus):
    """omega of eq. 6.25 at unlabeled-CDF values u (eq. 6.29 maps u to Phi); validated inputs.

    The one implementation of the weight formula: :func:`bcl_weights`, the study kernel and the
    torch bridge all evaluate it (the latter two on the table u = k / N, k = 1..N).
    """
    phi = np.clip(_phi_from_un(np.asarray(u, dtype=np.float64), alpha, tau_plus), 0.0, 1.0)
    tau_minus = 1.0 - tau_plus
    z = (1.0 - beta) * alpha + beta * (1.0 - alpha)
    # eq. 6.25 regrouped into sums of non-negative terms: the printed numerator
    # (1-b)a + (b-a)Phi and denominator a tau- + (1-a) tau+ + (1-2a) Phi (tau- - tau+) cancel
    # catastrophically (at alpha = 1, Phi = 1 and tau+ below 1e-16 the denominator is 1 - 1 = 0)
    num = (1.0 - beta) * alpha * (1.0 - phi) + beta * (1.0 - alpha) * phi
    den = alpha * (tau_minus * (1.0 - phi) + tau_plus * phi) + (1.0 - alpha) * (
        tau_plus * (1.0 - phi) + tau_minus * phi
    )
    return num / (z * den)


# --------------------------------------------------------------------------------------------
# estimators of the true-negative mean (§6.6.1)
# --------------------------------------------------------------------------------------------
@_doc
def theta_sup(scores: ArrayLike, is_true_negative: ArrayLike) -> FloatOrArray:
    r"""Supervised reference: the mean of the true-negative scores of each anchor (thesis eq. 6.45).

    .. math:: \theta_{SUP} = \frac{\sum_i I(\hat x_i)\,\hat x_i}{\sum_i I(\hat x_i)}

    An anchor whose N scores hold no true negative has no defined truth: NaN is returned for it
    (with N = 64 and tau^+ = 0.1 this happens with probability 1e-64).

    %(scores_param)s
    is_true_negative : array_like of bool, shape (..., N)
        The indicator :math:`I(\hat x_i)`: True for a true negative, False for a false negative.

    Returns
    -------
    float or ndarray
        theta_SUP per anchor, shape (...) (a float for one anchor); NaN where an anchor has no
        true negative.

    Examples
    --------
    >>> from negtheory.estimators import theta_sup
    >>> float(theta_sup([1.0, 2.0, 6.0], [True, True, False]))
    1.5
    """
    x = _scores("scores", scores)
    tn = np.asarray(is_true_negative)
    if tn.dtype != bool:
        raise TypeError(f"is_true_negative must be a boolean array, got dtype {tn.dtype}")
    if tn.shape != x.shape:
        raise ValueError(
            f"is_true_negative must have the shape of scores {x.shape}, got {tn.shape}"
        )
    count = tn.sum(axis=-1)
    total = np.where(tn, x, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return scalar_or_array(np.asarray(out))


@_doc
def theta_biased(scores: ArrayLike) -> FloatOrArray:
    r"""Biased InfoNCE estimator: the mean of all N unlabeled scores (thesis eq. 6.46).

    .. math:: \hat\theta_{BIASED} = \frac{1}{N}\sum_{i=1}^N \hat x_i

    %(scores_param)s

    Returns
    -------
    float or ndarray
        The mean per anchor, shape (...) (a float for one anchor).

    Examples
    --------
    >>> from negtheory.estimators import theta_biased
    >>> float(theta_biased([1.0, 2.0, 6.0]))
    3.0
    """
    x = _scores("scores", scores)
    return scalar_or_array(np.asarray(_mean_last(x)))


def _positives(positives, lead_shape):
    p = as_float_array("positives", positives)
    if p.ndim == len(lead_shape):  # one positive per anchor (the released DCL/HCL code)
        p = p[..., None]
    if p.ndim == 0 or p.shape[-1] == 0:
        raise ValueError("positives must hold at least one positive score per anchor (last axis)")
    try:
        np.broadcast_shapes(p.shape[:-1], lead_shape)
    except ValueError as exc:
        raise ValueError(
            f"positives of shape {p.shape} do not match the anchors' shape {lead_shape}"
        ) from exc
    return p


def _apply_floor(theta, floor):
    if floor is None:
        return theta
    f = real_array("floor", floor, 0.0)
    try:
        np.broadcast_shapes(f.shape, np.shape(theta))
    except ValueError:
        raise ValueError(
            f"floor of shape {f.shape} does not broadcast to the anchors' shape {np.shape(theta)}"
        ) from None
    return np.maximum(theta, f)


@_doc
def theta_dcl(
    scores: ArrayLike, positives: ArrayLike, tau_plus: ArrayLike, floor: float | None = None
) -> FloatOrArray:
    r"""Debiased contrastive (DCL) estimator of the true-negative mean (thesis eq. 6.47).

    .. math:: \hat\theta_{DCL} = \frac{1}{N\tau^-}\Big(\sum_i \hat x_i - N\tau^+ \frac{1}{K}\sum_j \hat x_j^+\Big)

    %(scores_param)s
    positives : array_like, shape (..., K) or (...)
        K extra positive scores per anchor (the thesis's numerical study), or the anchor's own
        positive score (the released DCL code; shape of the leading axes).
    tau_plus : float or array_like
        Class prior in (0, 1), broadcast over the anchors.
    floor : float >= 0, optional
        Lower clamp of the estimate (default ``None``: no clamp); the released code clamps
        :math:`N\theta` at :math:`N e^{-1/t}`, i.e. ``floor=np.exp(-1/t)`` (the smallest possible score
        exp(-1/t) for cosine similarity).

    Returns
    -------
    float or ndarray
        The estimate per anchor, shape (...) (a float for one anchor); unclamped, it can be
        negative for finite N.

    Examples
    --------
    >>> from negtheory.estimators import theta_dcl
    >>> float(theta_dcl([1.0, 1.0, 10.0, 1.0], [10.0, 10.0], tau_plus=0.25))   # (13/4 - 2.5)/0.75
    1.0
    """
    x = _scores("scores", scores)
    p = _positives(positives, x.shape[:-1])
    tp = _leading(_tau(tau_plus), x.shape[:-1], "tau_plus")
    theta = (_mean_last(x) - tp * _mean_last(p)) / (1.0 - tp)
    return scalar_or_array(np.asarray(_apply_floor(theta, floor)))


@_doc
def theta_hcl(
    scores: ArrayLike,
    positives: ArrayLike,
    tau_plus: ArrayLike,
    beta: float,
    floor: float | None = None,
) -> FloatOrArray:
    r"""Hard-negative (HCL, Robinson et al.) estimator with the DCL correction.

    Importance weights :math:`w_i = \hat x_i^{\beta} \big/ \tfrac{1}{N}\sum_j \hat x_j^{\beta}`
    up-weight hard (high-score) negatives; then

    .. math:: \hat\theta_{HCL} = \frac{1}{\tau^-}\Big(\frac1N\sum_i w_i \hat x_i - \tau^+ \frac1K \sum_j \hat x_j^+\Big),

    as in the released HCL code (``reweight_neg``; thesis §6.6.1 notes it overestimates the
    true-negative mean by design). Scores must be positive (x-hat = exp(similarity / t)); the
    powers are formed in log space.

    Parameters
    ----------
    scores : array_like, shape (..., N)
        Unlabeled scores :math:`\hat x > 0` of each anchor (last axis).
    positives : array_like, shape (..., K) or (...)
        K extra positive scores per anchor, or the anchor's own positive score (as in
        :func:`theta_dcl`).
    tau_plus : float or array_like
        Class prior in (0, 1), broadcast over the anchors.
    beta : float >= 0
        Concentration; :math:`\beta = 0` gives :func:`theta_dcl`.
    floor : float, optional
        Lower clamp of the estimate, as in :func:`theta_dcl` (default ``None``: no clamp).

    %(estimate_returns)s

    Examples
    --------
    >>> from negtheory.estimators import theta_hcl, theta_dcl
    >>> s, p = [1.0, 2.0, 3.0], [3.0]
    >>> bool(abs(theta_hcl(s, p, 0.1, beta=0.0) - theta_dcl(s, p, 0.1)) < 1e-12)
    True
    """
    x = _scores("scores", scores)
    check_range("scores", x, 0.0, lo_open=True)
    beta = real_scalar("beta", beta, 0.0)
    p = _positives(positives, x.shape[:-1])
    tp = _leading(_tau(tau_plus), x.shape[:-1], "tau_plus")
    logx = np.log(x)
    # beta (log x - max log x) <= 0: exp cannot overflow and the ratio is unchanged; subtracting
    # before multiplying keeps a huge beta finite (beta log x would be +-inf, and inf - inf NaN)
    with np.errstate(over="ignore"):  # beta * (a negative gap) -> -inf: a weight of exactly 0
        w = np.exp(beta * (logx - logx.max(axis=-1, keepdims=True)))
    xs, c = _scaled(x)  # sums of w x near the float64 limit must not overflow
    reweighted = (
        (w * xs).sum(axis=-1) / w.sum(axis=-1) * c
    )  # = (1/N) sum_i w_i x_i with w normalised by its mean
    theta = (reweighted - tp * _mean_last(p)) / (1.0 - tp)
    return scalar_or_array(np.asarray(_apply_floor(theta, floor)))


@_doc
def theta_bcl(
    scores: ArrayLike,
    alpha: ArrayLike,
    beta: ArrayLike,
    tau_plus: ArrayLike,
    normalize: bool = False,
) -> FloatOrArray:
    r"""Bayesian contrastive (BCL) estimator of the true-negative mean (thesis eq. 6.48).

    .. math:: \hat\theta_{BCL} = \frac{1}{N}\sum_i \omega_i \hat x_i
        \quad\text{or, with normalize=True,}\quad \frac{\sum_i \omega_i \hat x_i}{\sum_i \omega_i},

    the self-normalised form used by the released numerical code. omega from
    :func:`bcl_weights`.

    %(scores_alpha_params)s
    beta : float
        Hardness level in [0, 1] (the thesis's study uses 1/2).
    tau_plus : float
        Class prior :math:`\tau^+` in (0, 1).
    normalize : bool, default False
        False: eq. 6.48, (1/N) sum omega_i x_i; True: the self-normalised mean
        sum omega_i x_i / sum omega_i.

    %(estimate_returns)s

    Notes
    -----
    With the eCDF of eq. 6.30 in place of the parent CDF, BCL is biased low by O(1/N), most as
    alpha -> 1, where omega vanishes at the top of the eCDF (omega is proportional to 1 - Phi
    there) and the largest scores are under-weighted: in the thesis's study (t = 0.5,
    tau+ = 0.1, beta = 0.5) -16 % at alpha = 1 and -1.7 % at alpha = 0.9 for N = 64, -4.2 %
    and -0.4 % for N = 256 (README, Fig. 6.10). With the exact parent CDF the bias vanishes.

    Examples
    --------
    >>> from negtheory.estimators import theta_bcl
    >>> float(theta_bcl([2.0, 2.0, 2.0], 0.9, 0.5, 0.1, normalize=True))   # constant scores
    2.0
    """
    w = bcl_weights(scores, alpha, beta, tau_plus)
    x = np.asarray(scores, dtype=np.float64)
    xs, c = _scaled(x)  # sums of w x near the float64 limit must not overflow
    if flag("normalize", normalize):
        # all weights vanish only when every score ties at the top of the ECDF (Phi = 1 with
        # beta = 0): the self-normalised mean of equal scores is that common score
        den = w.sum(axis=-1)
        ok = den > 0.0
        out = np.where(ok, (w * xs).sum(axis=-1) / np.where(ok, den, 1.0), xs.mean(axis=-1)) * c
    else:
        out = (w * xs).mean(axis=-1) * c
    return scalar_or_array(np.asarray(out))


# --------------------------------------------------------------------------------------------
# DPL (ch. 5)
# --------------------------------------------------------------------------------------------
def dpl_probability(
    pos_score: ArrayLike,
    unlabeled_scores: ArrayLike,
    extra_pos_scores: ArrayLike,
    tau_plus: ArrayLike,
) -> FloatOrArray:
    r"""Debiased estimate of P(positive preferred to a true negative) (thesis eq. 5.17).

    .. math::
        \hat P_{PN} = \frac{1}{N\tau^-}\sum_{n=1}^N h(x^+, x_n) - \frac{\tau^+}{M\tau^-}\sum_{m=1}^M h(x^+, x'_m),
        \qquad h(x^+, x) = \sigma(x^+ - x),

    with N unlabeled and M extra positive scores per anchor; unbiased for the AUC risk
    E h(x^+, x^-) (Lemma 5.1). For finite N, M the estimate can leave [0, 1].

    Parameters
    ----------
    pos_score : array_like, shape (...)
        Score :math:`g(x^+)` of the anchor's positive.
    unlabeled_scores : array_like, shape (..., N)
        Scores of the N unlabeled items of each anchor (last axis).
    extra_pos_scores : array_like, shape (..., M)
        Scores of the M extra positives x'_m of each anchor (last axis).
    tau_plus : float or array_like
        Class prior :math:`\tau^+` in (0, 1), broadcast over the anchors.

    Returns
    -------
    float or ndarray
        :math:`\hat P_{PN}` per anchor, broadcast over the leading axes (a float for one anchor).

    Examples
    --------
    >>> from negtheory.estimators import dpl_probability
    >>> p = dpl_probability(2.0, [0.0, 0.0, 2.0], [2.0], tau_plus=1/3)
    >>> round(float(p), 12)   # the unlabeled tie at 2.0 is the positive: removed exactly
    0.880797077978
    """
    xp = as_float_array("pos_score", pos_score)
    xu = _scores("unlabeled_scores", unlabeled_scores)
    xm = _scores("extra_pos_scores", extra_pos_scores)
    tp = _tau(tau_plus)
    try:
        lead = np.broadcast_shapes(xp.shape, xu.shape[:-1], xm.shape[:-1], tp.shape)
    except ValueError:
        raise ValueError(
            "pos_score, unlabeled_scores (leading axes), extra_pos_scores (leading axes) and tau_plus must broadcast "
            f"against each other, got shapes pos_score {xp.shape}, unlabeled_scores {xu.shape}, "
            f"extra_pos_scores {xm.shape}, tau_plus {tp.shape}"
        ) from None
    hu = expit(xp[..., None] - xu).mean(axis=-1)
    hm = expit(xp[..., None] - xm).mean(axis=-1)
    out = np.broadcast_to((hu - tp * hm) / (1.0 - tp), lead)
    return scalar_or_array(np.asarray(out))


def dpl_loss(
    pos_score: ArrayLike,
    unlabeled_scores: ArrayLike,
    extra_pos_scores: ArrayLike,
    tau_plus: ArrayLike,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> FloatOrArray:
    r"""Debiased pairwise loss -log P-hat_PN (thesis eq. 5.18).

    .. math:: \mathcal{L}_{DPL} = -\frac{1}{\lvert\mathcal{D}^+\rvert\,\lvert\mathcal{D}^u\rvert}
        \sum_{x^+ \in \mathcal{D}^+} \sum_{x \in \mathcal{D}^u} \ln \hat P_{PN}

    P-hat_PN of :func:`dpl_probability` is clamped below at ``eps`` (it can be <= 0 for finite N,
    M, where the log is undefined).

    Parameters
    ----------
    pos_score : array_like, shape (...)
        Score of each anchor's positive.
    unlabeled_scores : array_like, shape (..., N)
        Scores of the N unlabeled items of each anchor (last axis).
    extra_pos_scores : array_like, shape (..., M)
        Scores of the M extra positives of each anchor (last axis).
    tau_plus : float or array_like
        Class prior :math:`\tau^+` in (0, 1).
    eps : float, default 1e-6
        Lower clamp of :math:`\hat P_{PN}` before the log, in (0, 1].
    reduction : {"mean", "sum", "none"}, default "mean"
        How the per-anchor losses are combined.

    Returns
    -------
    float or ndarray
        The mean or sum of :math:`-\log \max(\hat P_{PN}, \epsilon)` over the anchors (a float), or the
        per-anchor losses for ``reduction="none"``.

    Examples
    --------
    >>> from negtheory.estimators import dpl_loss
    >>> float(dpl_loss([3.0, 1.0], [[0.0, 0.5], [0.0, 2.0]], [[2.5], [1.0]], 0.1)) > 0
    True
    """
    eps = real_scalar("eps", eps, 0.0, 1.0, lo_open=True)
    p = np.asarray(dpl_probability(pos_score, unlabeled_scores, extra_pos_scores, tau_plus))
    loss = -np.log(np.maximum(p, eps))
    return scalar_or_array(np.asarray(_reduce(loss, reduction)))


def _reduce(x, reduction):
    if not isinstance(reduction, str):  # an array would compare elementwise
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if reduction == "mean":
        return x.mean()
    if reduction == "sum":
        return x.sum()
    if reduction == "none":
        return x
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def dpl_error_bound(n: ArrayLike, m: ArrayLike, tau_plus: ArrayLike) -> FloatOrArray:
    r"""Lemma 5.3's bound on |L-hat_DPL - L_SUP| (thesis §5.4).

    .. math:: e^2\sqrt{2\pi/N} + e^2\,\tau^+\sqrt{2\pi/M}

    **Assumption** (stated in the lemma's proof): cosine scores g in [0, 1], so that
    h = sigma(g(x^+) - g(x)) lies in [1/(1+e^2), 1/(1+e^{-2})]; the bound says nothing for
    unbounded scores.

    Parameters
    ----------
    n : array_like
        Number N >= 1 of unlabeled samples per anchor (an integer value).
    m : array_like
        Number M >= 1 of extra positive samples per anchor (an integer value).
    tau_plus : array_like
        Class prior :math:`\tau^+` in (0, 1).

    Returns
    -------
    float or ndarray
        The bound, broadcast over ``n``, ``m`` and ``tau_plus``.

    Examples
    --------
    >>> from negtheory.estimators import dpl_error_bound
    >>> round(float(dpl_error_bound(256, 16, 0.1)), 4)
    1.6206
    """

    def sample_size(name, value):
        arr = real_array(name, value, 1.0)
        if (arr != np.floor(arr)).any():
            raise ValueError(
                f"{name} must be an integer sample size, got {arr[arr != np.floor(arr)].ravel()[:3].tolist()}"
            )
        return arr

    # every parameter is checked and every invalid one named (not only the first)
    checked, errors = {}, []
    for name, check, value in (
        ("n", sample_size, n),
        ("m", sample_size, m),
        ("tau_plus", lambda _, v: _tau(v), tau_plus),
    ):
        try:
            checked[name] = check(name, value)
        except (ValueError, TypeError) as exc:
            errors.append(exc)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        kind = TypeError if all(isinstance(e, TypeError) for e in errors) else ValueError
        raise kind("; ".join(str(e) for e in errors))
    n_a, m_a, tp = checked["n"], checked["m"], checked["tau_plus"]
    try:
        np.broadcast_shapes(n_a.shape, m_a.shape, tp.shape)
    except ValueError:
        broadcast(n=n_a, m=m_a, tau_plus=tp)  # raises, naming the shapes
    e2 = math.exp(2.0)
    return scalar_or_array(
        np.asarray(e2 * np.sqrt(2 * np.pi / n_a) + e2 * tp * np.sqrt(2 * np.pi / m_a))
    )


# --------------------------------------------------------------------------------------------
# BNS (ch. 4)
# --------------------------------------------------------------------------------------------
def bns_info(x_pos: ArrayLike, x_neg: ArrayLike) -> FloatOrArray:
    r"""Informativeness of a sampled negative, info(j) = 1 - sigma(x_ui - x_uj) (thesis eq. 4.4).

    .. math:: \mathrm{info}(j) = 1 - \sigma(\hat x_{ui} - \hat x_{uj})

    The magnitude of the BPR gradient with respect to the negative's score (eq. 4.2-4.3).

    Parameters
    ----------
    x_pos : array_like of float
        Score x_ui of the user's positive item.
    x_neg : array_like of float
        Score x_uj of the sampled negative; broadcast against ``x_pos``.

    Returns
    -------
    float or ndarray
        info in (0, 1), broadcast over the two inputs.

    Examples
    --------
    >>> from negtheory.estimators import bns_info
    >>> float(bns_info(1.0, 1.0))
    0.5
    """
    xp = as_float_array("x_pos", x_pos)
    xn = as_float_array("x_neg", x_neg)
    xp, xn = broadcast(x_pos=xp, x_neg=xn)
    return scalar_or_array(np.asarray(expit(xn - xp)))


def bns_unbias(F: ArrayLike, p_fn: ArrayLike) -> FloatOrArray:
    r"""Unbiasedness: posterior probability that an unlabeled item is a true negative (thesis eq. 4.14).

    .. math:: \mathrm{unbias} = P(tn \mid \hat x) = \frac{[1 - F][1 - P_{fn}]}{1 - F - P_{fn} + 2 F P_{fn}},

    with F the (empirical) CDF of the item's score among the user's unlabeled items (the
    likelihood: orders TN below FN, eq. 4.7-4.8) and P_fn its prior probability of being a false
    negative, e.g. popularity / number of users (eq. 4.16).

    Parameters
    ----------
    F : array_like of float
        CDF value(s) of the item's score among the user's unlabeled items, in [0, 1]
        (eq. 4.15, e.g. :func:`ecdf` with ``denominator="n+1"``).
    p_fn : array_like of float
        Prior probability P_fn in [0, 1] that the item is a false negative; broadcast against
        ``F``.

    Returns
    -------
    float or ndarray
        :math:`P(tn \mid \hat x)` in [0, 1], broadcast over ``F`` and ``p_fn``.

    Raises
    ------
    ValueError
        F and P_fn contradict each other (F = 1 with P_fn = 0, or F = 0 with P_fn = 1): the
        posterior is 0/0. The released eCDF divides by n + 1, so F < 1 (:func:`ecdf`).

    Examples
    --------
    >>> from negtheory.estimators import bns_unbias
    >>> float(bns_unbias(0.5, 0.2))    # F = 1/2 carries no evidence: the prior 1 - P_fn
    0.8
    """
    f = real_array("F", F, 0.0, 1.0)
    p = real_array("p_fn", p_fn, 0.0, 1.0)
    f, p = broadcast(F=f, p_fn=p)
    num, den = _unbias_terms(f, p)
    if np.any(den == 0.0):
        raise ValueError(
            "F and p_fn contradict each other (F = 1 with p_fn = 0, or F = 0 with p_fn = 1): the posterior of eq. 4.14 is 0/0"
        )
    return scalar_or_array(np.asarray(num / den))


def _unbias_terms(f, p):
    """Numerator and denominator of eq. 4.14 for validated float arrays F and P_fn (no checks: the
    real-data probe calls it on ~10^5 items per probe point)."""
    num = (1.0 - f) * (1.0 - p)
    return num, num + f * p  # den = 1 - F - P_fn + 2 F P_fn


def bns_risk(info: ArrayLike, unbias: ArrayLike, lam: ArrayLike) -> FloatOrArray:
    r"""Conditional sampling risk of a candidate negative (thesis eq. 4.25-4.26).

    .. math:: R(l \mid i) = [1 - \mathrm{unbias}(l)]\,\mathrm{info}(l) - \lambda\,\mathrm{unbias}(l)\,\mathrm{info}(l)
        = \mathrm{info}(l)\,[1 - (1+\lambda)\,\mathrm{unbias}(l)].

    Eq. 4.25 writes it with the posteriors P(fn | l) = 1 - unbias(l) and P(tn | l) = unbias(l).

    Parameters
    ----------
    info : array_like of float
        Informativeness info(l) in [0, 1] (:func:`bns_info`).
    unbias : array_like of float
        Posterior probability unbias(l) in [0, 1] that the candidate is a true negative
        (:func:`bns_unbias`).
    lam : array_like of float
        Weight :math:`\lambda \ge 0` of true-negative informativeness (the thesis tunes :math:`\lambda = 5`).

    Returns
    -------
    float or ndarray
        R(l | i), broadcast over the three inputs; smaller is better.

    Examples
    --------
    >>> from negtheory.estimators import bns_risk
    >>> float(bns_risk(0.5, 1.0, 5.0))
    -2.5
    """
    i = real_array("info", info, 0.0, 1.0)
    u = real_array("unbias", unbias, 0.0, 1.0)
    lam_a = real_array("lam", lam, 0.0)
    i, u, lam_a = broadcast(info=i, unbias=u, lam=lam_a)
    return scalar_or_array(np.asarray(i * (1.0 - (1.0 + lam_a) * u)))


def bns_select(
    x_pos: ArrayLike,
    candidate_scores: ArrayLike,
    candidate_p_fn: ArrayLike,
    reference_scores: ArrayLike | None = None,
    lam: float = 5.0,
) -> IntOrArray:
    r"""Bayesian negative sampling: the candidate minimising the sampling risk (thesis eq. 4.26).

    For each user (leading axes) and candidate set M_u (last axis):
    info from :func:`bns_info`, F from the eCDF of eq. 4.15 over ``reference_scores`` (the
    user's scores of her unlabeled items; default: the candidates themselves) with the released
    code's n + 1 denominator, unbias from :func:`bns_unbias`, and

    .. math:: j = \arg\min_{l \in M_u} \mathrm{info}(l)\,[1 - (1+\lambda)\,\mathrm{unbias}(l)].

    Parameters
    ----------
    x_pos : array_like, shape (...)
        Score x_ui of the user's positive item.
    candidate_scores : array_like, shape (..., C)
        Scores of the C candidates of the set M_u (last axis).
    candidate_p_fn : array_like, shape (..., C) or (C,)
        Prior false-negative probabilities P_fn in [0, 1] (eq. 4.16: popularity / number of users).
    reference_scores : array_like, shape (..., R), optional
        Scores of the user's unlabeled items from which F is estimated (eCDF over R + 1);
        default ``None``: the candidates themselves.
    lam : float, default 5.0
        Weight of true-negative informativeness (the thesis tunes :math:`\lambda = 5`).

    Returns
    -------
    ndarray of int
        Index of the selected candidate along the last axis, shape (...).

    Examples
    --------
    >>> from negtheory.estimators import bns_select
    >>> int(bns_select(2.0, [0.0, 1.5, 1.9], [0.0, 0.0, 0.9]))   # hard but likely a false negative: skip it
    1
    """
    xp = as_float_array("x_pos", x_pos)
    cand = _scores("candidate_scores", candidate_scores)
    p_fn = real_array("candidate_p_fn", candidate_p_fn, 0.0, 1.0)
    lam = real_scalar("lam", lam, 0.0)
    try:
        np.broadcast_shapes(xp.shape, cand.shape[:-1])
    except ValueError:
        raise ValueError(
            f"x_pos of shape {xp.shape} does not broadcast to the leading axes of candidate_scores {cand.shape}"
        ) from None
    try:
        np.broadcast_shapes(p_fn.shape, cand.shape)
        if np.broadcast_shapes(p_fn.shape, cand.shape) != cand.shape:
            raise ValueError
    except ValueError:
        raise ValueError(
            f"candidate_p_fn of shape {p_fn.shape} does not broadcast to the shape of candidate_scores {cand.shape}"
        ) from None
    if reference_scores is None:
        f = ecdf(cand, denominator="n+1")
    else:
        ref = _scores("reference_scores", reference_scores)
        try:
            np.broadcast_shapes(ref.shape[:-1], cand.shape[:-1])
        except ValueError:
            raise ValueError(
                f"reference_scores of shape {ref.shape} and candidate_scores of shape {cand.shape} must have "
                "leading axes (one row per user) that broadcast against each other"
            ) from None
        f = _ecdf_against(ref, cand)
    info = expit(cand - xp[..., None])
    unbias = np.asarray(bns_unbias(f, np.broadcast_to(p_fn, cand.shape)))
    risk = info * (1.0 - (1.0 + lam) * unbias)
    return scalar_or_array(np.asarray(np.argmin(risk, axis=-1)))


def _ecdf_against(ref, x):
    """#{ref <= x} / (n_ref + 1) per row (eq. 4.15, released-code denominator)."""
    lead = np.broadcast_shapes(ref.shape[:-1], x.shape[:-1])
    ref_b = np.broadcast_to(ref, lead + ref.shape[-1:]).reshape(-1, ref.shape[-1])
    x_b = np.broadcast_to(x, lead + x.shape[-1:]).reshape(-1, x.shape[-1])
    ref_sorted = np.sort(ref_b, axis=-1)
    counts = np.stack([np.searchsorted(r, row, side="right") for r, row in zip(ref_sorted, x_b)])
    return (counts / (ref.shape[-1] + 1.0)).reshape(lead + x.shape[-1:])


def tnr(is_true_negative: ArrayLike) -> float:
    r"""True-negative rate of sampled negatives, #TN / (#TN + #FN) (thesis eq. 4.27).

    .. math:: TNR = \frac{\#TN}{\#TN + \#FN}

    Parameters
    ----------
    is_true_negative : array_like of bool
        One entry per sampled negative: True for a true negative, False for a false negative;
        non-empty.

    Returns
    -------
    float
        The fraction of true negatives, in [0, 1].

    Examples
    --------
    >>> from negtheory.estimators import tnr
    >>> float(tnr([True, True, False, True]))
    0.75
    """
    tn = np.asarray(is_true_negative)
    if tn.dtype != bool or tn.size == 0:
        raise ValueError("is_true_negative must be a non-empty boolean array")
    return float(tn.mean())


def informativeness(info: ArrayLike, is_true_negative: ArrayLike) -> float:
    r"""Average signed informativeness of sampled negatives (thesis eq. 4.28).

    .. math:: INF = \frac{\sum_j \mathrm{info}(j)\,I(j)}{\#TN + \#FN}, \quad I(j) = +1 \text{ (TN)}, -1 \text{ (FN)}.

    Parameters
    ----------
    info : array_like of float
        Informativeness info(j) in [0, 1] of each sampled negative (:func:`bns_info`).
    is_true_negative : array_like of bool
        Same shape as ``info``: True for a true negative, False for a false negative.

    Returns
    -------
    float
        INF, in [-1, 1].

    Examples
    --------
    >>> from negtheory.estimators import informativeness
    >>> float(informativeness([0.5, 0.25], [True, False]))
    0.125
    """
    i = real_array("info", info, 0.0, 1.0)
    tn = np.asarray(is_true_negative)
    if tn.dtype != bool or tn.shape != i.shape or tn.size == 0:
        raise ValueError(
            "is_true_negative must be a non-empty boolean array with the shape of info"
        )
    return float(np.where(tn, i, -i).mean())
