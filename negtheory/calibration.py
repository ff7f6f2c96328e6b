r"""Simulations calibrated to what training measures (Liu Bin's thesis, §6.6.1, against real scores).

:func:`negtheory.studies.mse_study` simulates the debiasing estimators with the thesis's
Algorithm 6: a parent law per anchor (by default uniform on an interval), the class-conditional
laws of true and false negatives (eq. 6.14-6.15) at a given alpha, and the map
:math:`\hat x = e^{x/t}`. Real training has real score laws. This module runs the *same*
estimators on scores simulated three ways from what a probe measured (the probes live in
:mod:`negtheory.recsys.score_probe`):

``calibrated``
    The theory's own model with its parent law **fitted**. For an anchor of user u the N
    unlabeled scores are false negatives with probability tau+ and true negatives otherwise, drawn
    in parent-CDF space from the exact laws of :func:`negtheory.dists.true_negative` /
    :func:`~negtheory.dists.false_negative` (CDF :math:`2\alpha v + (1-2\alpha) v^2` and
    :math:`2(1-\alpha) v + (2\alpha-1) v^2`, README errata), and mapped to scores through the
    user's fitted parent quantile

    .. math:: F_u^{-1}(v) = G_u^{-1}\big(\Phi_{UN}(v)\big), \qquad
              \Phi_{UN}(v) = \tau^-\,\Phi_{TN}(v) + \tau^+\,\Phi_{FN}(v)  \quad\text{(eq. 6.23)},

    where :math:`G_u^{-1}` is the empirical quantile function of the user's *measured unlabeled*
    scores (probe batches other than the compared ones). That is the inversion of eq. 6.29,

    .. math:: \Phi(\hat x) = \frac{-b + \sqrt{b^2 + 4a\,\Phi_{UN}(\hat x)}}{2a}, \qquad
              a = (1 - 2\alpha)(\tau^- - \tau^+), \quad b = 2[\alpha\tau^- + (1-\alpha)\tau^+]
              \quad\text{(eq. 6.29)}:

    the parent law whose unlabeled mixture is exactly the measured one. Each anchor gets its user's
    parent, as Algorithm 6 gives each anchor its own parent. ``parent="normal"`` fits a normal
    parent per user instead (an ablation of the parent family).
``resampled``
    A bootstrap, the best any i.i.d. model can do: true negatives drawn from the user's measured
    true-negative scores; false negatives drawn as a measured false negative's *within-user rank*
    (its unlabeled eCDF value, pooled over users, since a user has only a handful) placed in the
    user's unlabeled quantile function. ``pooled=True`` ignores the user: both classes from the
    pooled measured scores.

Positives (DCL and HCL subtract tau+ times the positive's score) are the user's measured training
positives from the fit batches (``positives="measured"``), or, as the thesis's numerical study
assumes, drawn from phi_FN of the user's parent (``positives="phi_fn"``).

:func:`estimator_errors` computes each estimator and the truth theta_SUP (eq. 6.45) for given
score sets; it serves the measured batches and every simulation alike, so a difference between
them is a difference of scores, never of code.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numba
import numpy as np

from . import estimators as est
from ._docstrings import docstring
from ._validation import as_float_array, as_generator, int_scalar, real_scalar

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._typing import ArrayLike, RNGLike

__all__ = [
    "ESTIMATORS",
    "estimator_errors",
    "UserQuantiles",
    "class_conditional_cdf",
    "class_conditional_ppf",
    "simulate_calibrated",
    "simulate_resampled",
    "fit_fn_order",
    "model_auc",
    "alpha_from_auc",
    "simulate_order_statistic",
    "law_from_auc",
    "FAMILIES",
    "MAX_ORDER",
    "fit_tail",
    "UserTail",
    "TAILS",
    "tail_share",
]

_USERS_PARAM = """
        Parameters
        ----------
        users : array_like of int
            Row (user) indices in ``0 .. n_users - 1``."""
# the documentation the simulators and the class laws share, written once (see negtheory._docstrings)
_doc = docstring(
    users_n="""
        users : array_like of int, shape (A,)
            The user of each simulated anchor, indices in ``0 .. n_users - 1``.
        n : int
            Unlabeled scores per anchor (N), at least 1.""",
    rng_neg_returns="""
        rng : None, int, SeedSequence or Generator
            Source of randomness (default None: a fresh, unseeded generator).

        Returns
        -------
        neg : ndarray of float64, shape (A, N)
            Raw scores of the unlabeled items, ready for :func:`estimator_errors`.
        is_true_negative : ndarray of bool, shape (A, N)""",
    users_param=_USERS_PARAM,
    users_x_params=_USERS_PARAM
    + """
        x : array_like of float
            Score values, broadcast with ``users``.""",
    pos_returns_example="""
        pos : ndarray of float64, shape (A,)
            The anchors' positive scores.

        Examples
        --------
        >>> import numpy as np""",
    tau_plus_un=r"""
        tau_plus : float in [0, 1)
            False-negative prior :math:`\tau^+` (used by ``"un"`` only; default 0).""",
)

ESTIMATORS = ("biased", "dcl", "hcl", "bcl", "bcl_norm")
#: tail models of :func:`fit_tail`
TAILS = ("auto", "exponential", "gpd")


# --------------------------------------------------------------------------------------------
# the class-conditional laws in parent-CDF space (v = Phi(x)), eq. 6.14-6.15 and 6.23
# --------------------------------------------------------------------------------------------
def _coefficients(kind, alpha, tau_plus):
    """(b, a) of the quadratic CDF b v + a v^2 of the law ``kind`` in v = Phi(x) (scalars or arrays)."""
    tn = (2.0 * alpha, 1.0 - 2.0 * alpha)
    fn = (2.0 * (1.0 - alpha), 2.0 * alpha - 1.0)
    if kind == "tn":
        return tn
    if kind == "fn":
        return fn
    if kind == "un":
        tm = 1.0 - tau_plus
        return tm * tn[0] + tau_plus * fn[0], tm * tn[1] + tau_plus * fn[1]
    raise ValueError(f"kind must be 'tn', 'fn' or 'un', got {kind!r}")


def _kind(kind):
    if not isinstance(kind, str) or kind not in ("tn", "fn", "un"):
        raise ValueError(f"kind must be 'tn', 'fn' or 'un', got {kind!r}")
    return kind


def _checked_coefficients(kind, alpha, tau_plus):
    """(b, a) of :func:`_coefficients` after validating alpha in [1/2, 1], tau+ in [0, 1) and kind."""
    alpha = real_scalar("alpha", alpha, 0.5, 1.0)
    tau_plus = real_scalar("tau_plus", tau_plus, 0.0, 1.0, hi_open=True)
    return _coefficients(_kind(kind), alpha, tau_plus)


def _quadratic_ppf(q, b, a):
    """The v in [0, 1] with b v + a v^2 = q, as 2q / (b + sqrt(b^2 + 4 a q)) (README errata, eq. 6.29)."""
    disc = np.maximum(b * b + 4.0 * a * q, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(q > 0, 2.0 * q / (b + np.sqrt(disc)), 0.0)
    return np.clip(v, 0.0, 1.0)


def _order_cdf(v, kind, lam, k, tau_plus=0.0):
    """CDF of the order-statistic family at parent-CDF value v (arrays broadcast; no validation)."""
    if kind == "un":
        return (1.0 - tau_plus) * _order_cdf(v, "tn", lam, k) + tau_plus * _order_cdf(
            v, "fn", lam, k
        )
    if kind == "tn":
        return (1.0 - lam) * v + lam * (1.0 - (1.0 - v) ** k)
    return (1.0 - lam) * v + lam * v**k


def _bisect(cdf, q):
    """The v in [0, 1] with cdf(v) = q for an increasing cdf, elementwise, by 60 halvings (2^-60 in v)."""
    lo, hi = np.zeros(np.shape(q)), np.ones(np.shape(q))
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        below = cdf(mid) < q
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def _order_ppf(q, kind, lam, k):
    """Inverse of :func:`_order_cdf` for "tn" / "fn": closed forms at k = 2 or lam = 1, else bisection."""
    q, lam, k = np.broadcast_arrays(
        np.asarray(q, dtype=np.float64),
        np.asarray(lam, dtype=np.float64),
        np.asarray(k, dtype=np.float64),
    )
    out = np.empty(q.shape)
    two = k == 2.0
    if two.any():  # the thesis's quadratic laws, alpha = (1 + lam) / 2
        a = (1.0 + lam[two]) / 2.0
        out[two] = _quadratic_ppf(q[two], *_coefficients(kind, a, 0.0))
    pure = ~two & (lam == 1.0)
    if pure.any():  # the smallest / largest of k parent draws
        kk = k[pure]
        out[pure] = 1.0 - (1.0 - q[pure]) ** (1.0 / kk) if kind == "tn" else q[pure] ** (1.0 / kk)
    rest = ~two & ~pure
    if rest.any():  # a mixture
        qq, ll, kk = q[rest], lam[rest], k[rest]
        out[rest] = _bisect(lambda v: _order_cdf(v, kind, ll, kk), qq)
    return np.clip(out, 0.0, 1.0)


def _checked_order(order):
    order = real_scalar("order", order, 1.0)
    if not np.isfinite(order):
        raise ValueError(f"order must be finite, got {order!r}")
    return order


@_doc
def class_conditional_cdf(
    v: ArrayLike, kind: str, alpha: float, tau_plus: float = 0.0, order: float = 2.0
) -> np.ndarray:
    r"""CDF of a class-conditional law at parent-CDF value v (thesis eq. 6.14-6.15, 6.23).

    With :math:`v = \Phi(\hat x)` the parent CDF, the densities of eq. 6.14-6.15,
    :math:`\phi_{TN} = \alpha\phi_{(1)} + (1-\alpha)\phi_{(2)}` and
    :math:`\phi_{FN} = \alpha\phi_{(2)} + (1-\alpha)\phi_{(1)}` with
    :math:`\phi_{(1)} = 2\phi(1-\Phi)` and :math:`\phi_{(2)} = 2\phi\Phi` (eq. 6.12-6.13), and their
    mixture of eq. 6.23 integrate to

    .. math:: \Phi_{TN}(v) = 2\alpha v + (1-2\alpha) v^2,\quad
              \Phi_{FN}(v) = 2(1-\alpha) v + (2\alpha-1) v^2,\quad
              \Phi_{UN} = \tau^-\Phi_{TN} + \tau^+\Phi_{FN},

    with :math:`\tau^- = 1 - \tau^+`. Equivalently, with :math:`\lambda = 2\alpha - 1`, a true
    negative is the smaller of two parent draws with probability :math:`\lambda` (else one draw) and
    a false negative the larger. The **order-statistic family** replaces "two" by ``order`` = k
    (:math:`k \ge 1`, real):

    .. math:: \Phi_{TN}(v) = (1-\lambda) v + \lambda\,[1 - (1-v)^k],\qquad
              \Phi_{FN}(v) = (1-\lambda) v + \lambda\, v^k,

    the thesis's laws at k = 2. Its independent-draw AUC (:func:`model_auc`) reaches 1 as k grows,
    where the thesis's family stops at 5/6 (:func:`law_from_auc`).

    Parameters
    ----------
    v : array_like in [0, 1]
        Parent CDF values Phi(x).
    kind : {"tn", "fn", "un"}
        True negative, false negative or unlabeled.
    alpha : float in [0.5, 1]
        Encoder quality: the probability that a (true negative, false negative) pair is ordered
        correctly (eq. 6.21); 1/2 is a blind encoder, 1 a perfect one.
    %(tau_plus_un)s
    order : float >= 1
        The order k of the order-statistic family (default 2: the thesis's laws).

    Returns
    -------
    ndarray of float64
        The CDF at each ``v`` (shape of ``v``), in [0, 1].

    Examples
    --------
    >>> from negtheory.calibration import class_conditional_cdf
    >>> float(class_conditional_cdf(0.5, "tn", 0.9))   # 0.9 - 0.8 / 4
    0.7
    >>> float(class_conditional_cdf(0.5, "fn", 1.0, order=3))   # the largest of three draws: 0.5^3
    0.125
    """
    b, a = _checked_coefficients(kind, alpha, tau_plus)
    order = _checked_order(order)
    v = as_float_array("v", v)
    if np.any((v < 0) | (v > 1)):
        raise ValueError(f"v must lie in [0, 1], got values in [{v.min()}, {v.max()}]")
    if order == 2.0:
        return b * v + a * v * v
    return _order_cdf(v, kind, 2.0 * alpha - 1.0, order, tau_plus)


@_doc
def class_conditional_ppf(
    q: ArrayLike, kind: str, alpha: float, tau_plus: float = 0.0, order: float = 2.0
) -> np.ndarray:
    r"""Inverse of :func:`class_conditional_cdf`: the v in [0, 1] with CDF(v) = q.

    For ``kind="un"`` and the thesis's laws (order 2) this is eq. 6.29 of the thesis, the parent CDF
    value of an unlabeled score whose unlabeled CDF is :math:`q = \Phi_{UN}(\hat x)`, with
    :math:`a = (1 - 2\alpha)(\tau^- - \tau^+)` and :math:`b = 2[\alpha\tau^- + (1-\alpha)\tau^+]`:

    .. math:: v = \frac{-b + \sqrt{b^2 + 4 a q}}{2a} = \frac{2q}{b + \sqrt{b^2 + 4 a q}}.

    The root is taken in the second form (README errata for eq. 6.29), exact at alpha = 1/2
    (a = 0) where the printed root divides by zero; ``"tn"`` and ``"fn"`` use the coefficients of
    their own CDFs. For another order, :math:`1 - (1-q)^{1/k}` and :math:`q^{1/k}` at alpha = 1,
    and bisection to :math:`2^{-60}` otherwise.

    Parameters
    ----------
    q : array_like in [0, 1]
        CDF values of the class-conditional law.
    kind : {"tn", "fn", "un"}
        True negative, false negative or unlabeled.
    alpha : float in [0.5, 1]
        Encoder quality (eq. 6.21).
    %(tau_plus_un)s
    order : float >= 1
        The order k of the order-statistic family (default 2: the thesis's laws).

    Returns
    -------
    ndarray of float64
        The parent CDF values v in [0, 1] (shape of ``q``).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.calibration import class_conditional_cdf, class_conditional_ppf
    >>> v = np.array([0.1, 0.5, 0.9])
    >>> bool(np.allclose(class_conditional_ppf(class_conditional_cdf(v, "fn", 0.8), "fn", 0.8), v))
    True
    """
    b, a = _checked_coefficients(kind, alpha, tau_plus)
    order = _checked_order(order)
    q = as_float_array("q", q)
    if np.any((q < 0) | (q > 1)):
        raise ValueError(f"q must lie in [0, 1], got values in [{q.min()}, {q.max()}]")
    if order == 2.0:
        return _quadratic_ppf(q, b, a)
    lam = 2.0 * alpha - 1.0
    if kind != "un":
        return _order_ppf(q, kind, lam, order)
    return _bisect(lambda v: _order_cdf(v, "un", lam, order, tau_plus), q)


def _order_auc(lam, k):
    """Independent-draw P(x_TN < x_FN) of the order-statistic family (closed form)."""
    from scipy.special import gammaln

    top = 1.0 - np.exp(
        2.0 * gammaln(k + 1.0) - gammaln(2.0 * k + 1.0)
    )  # P(min of k < max of k others)
    return 0.5 * (1.0 - lam) ** 2 + 2.0 * lam * (1.0 - lam) * k / (k + 1.0) + lam * lam * top


def model_auc(alpha: ArrayLike, order: ArrayLike = 2.0) -> np.ndarray:
    r"""P(x_TN < x_FN) for *independent* draws from the class laws at (alpha, order).

    For the thesis's laws (order 2),

    .. math:: A(\alpha) = \int_0^1 \Phi_{TN}(v)\, d\Phi_{FN}(v) = \frac12 + \frac{2\alpha - 1}{3};

    for the order-statistic family (:func:`class_conditional_cdf`), with :math:`\lambda = 2\alpha-1`,

    .. math:: A(\alpha, k) = \frac{(1-\lambda)^2}{2} + 2\lambda(1-\lambda)\frac{k}{k+1}
              + \lambda^2\Big[1 - \frac{\Gamma(k+1)^2}{\Gamma(2k+1)}\Big],

    the last bracket being P(smallest of k draws < largest of k others).

    The thesis reads alpha as an AUC (eq. 6.21): the probability that an anchor's positive
    (a false negative, for an unlabeled pair) scores above its negative, estimated by the AUC
    averaged over the anchors :math:`\mathcal{D}`,

    .. math:: \alpha = \int \mathbb{I}(\hat x^+ \ge \hat x^-)\, p(\hat x^+, \hat x^-)\, p(x)\,
              d\hat x^+\, d\hat x^-\, dx \simeq \frac{1}{|\mathcal{D}|} \sum_{x \in \mathcal{D}}
              \frac{1}{|\mathcal{D}^+| |\mathcal{D}^-|} \sum_{\mathcal{D}^+} \sum_{\mathcal{D}^-}
              \mathbb{I}(\hat x^+ \ge \hat x^-).

    The laws of eq. 6.14-6.15 come from a *pair* construction: alpha is the probability that a
    pair's true negative is its smaller member. Two independent draws are ordered correctly less
    often: A(1) = 5/6 (the smaller of two draws against the larger of two others). So the measured
    P(x_TN < x_FN) among a user's unlabeled items (eq. 6.21 estimated on independent items) is
    A(alpha), not alpha, and can exceed what the thesis's family can express; the
    order-statistic family reaches it with k > 2 (:func:`law_from_auc`).

    Parameters
    ----------
    alpha : array_like in [0.5, 1]
        The laws' alpha (eq. 6.14-6.15).
    order : array_like >= 1
        The family's order k (default 2), broadcast with ``alpha``.

    Returns
    -------
    ndarray of float64
        A(alpha, k) (broadcast shape), in [1/2, 1).

    Examples
    --------
    >>> from negtheory.calibration import model_auc
    >>> model_auc([0.5, 1.0]).round(12).tolist()
    [0.5, 0.833333333333]
    >>> round(float(model_auc(1.0, order=3)), 12)   # 1 - 36 / 720
    0.95
    """
    a = as_float_array("alpha", alpha)
    k = as_float_array("order", order)
    if np.any((a < 0.5) | (a > 1)):
        raise ValueError(f"alpha must lie in [0.5, 1], got {alpha!r}")
    if np.any(~(k >= 1)) or not np.all(np.isfinite(k)):
        raise ValueError(f"order must be finite and >= 1, got {order!r}")
    if np.all(k == 2.0):
        return np.broadcast_to(
            0.5 + (2.0 * a - 1.0) / 3.0, np.broadcast_shapes(a.shape, k.shape)
        ).copy()
    return _order_auc(2.0 * a - 1.0, k)


def alpha_from_auc(auc: ArrayLike) -> np.ndarray:
    r"""The model's alpha whose independent-draw AUC equals ``auc`` (inverse of :func:`model_auc`; thesis eq. 6.14-6.15, 6.21).

    :math:`\alpha = \tfrac32 A - \tfrac14`, clipped to [1/2, 1]: a measured P(x_TN < x_FN) above
    5/6 lies beyond the family, whose closest member is then alpha = 1 (and one below 1/2 maps
    to alpha = 1/2). :func:`law_from_auc` reaches beyond 5/6 with the order-statistic family.

    Parameters
    ----------
    auc : array_like in [0, 1]
        Measured P(x_TN < x_FN) of independent (true negative, false negative) pairs, e.g. the
        probe's ``alpha`` (:mod:`negtheory.recsys.score_probe`).

    Returns
    -------
    ndarray of float64
        The alpha in [1/2, 1] (shape of ``auc``).

    Examples
    --------
    >>> from negtheory.calibration import alpha_from_auc
    >>> alpha_from_auc([0.5, 0.7, 0.9]).round(12).tolist()
    [0.5, 0.8, 1.0]
    """
    a = as_float_array("auc", auc)
    if np.any((a < 0) | (a > 1)):
        raise ValueError(f"auc must lie in [0, 1], got {auc!r}")
    return np.clip(1.5 * a - 0.25, 0.5, 1.0)


#: the class-law families of :func:`law_from_auc`
FAMILIES = ("order", "thesis")
#: the largest order :func:`law_from_auc` returns (its AUC is 1 - 1e-12 or more)
MAX_ORDER = 1e4


def law_from_auc(
    auc: ArrayLike, family: str = "order"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The class laws (alpha, order) whose independent-draw AUC is ``auc``, and whether it is at a bound.

    ``family="thesis"``: the thesis's laws (order 2), :math:`\alpha = \tfrac32 A - \tfrac14`
    (:func:`alpha_from_auc`), at a bound when A lies outside (1/2, 5/6). ``family="order"``: the
    order-statistic family (:func:`class_conditional_cdf`), which contains the thesis's: for
    A <= 5/6 the same alpha at order 2; above it alpha = 1 and the order k > 2 that solves

    .. math:: 1 - \frac{\Gamma(k+1)^2}{\Gamma(2k+1)} = A

    (a false negative is the largest of k parent draws, a true negative the smallest), increasing
    in k and reaching 1 as k grows, so only A <= 1/2 or A = 1 is at a bound.

    Parameters
    ----------
    auc : array_like in [0, 1]
        Measured P(x_TN < x_FN) of independent pairs.
    family : {"order", "thesis"}
        The family (default ``"order"``).

    Returns
    -------
    alpha, order : ndarray of float64
        The laws' parameters (shape of ``auc``); order at most :data:`MAX_ORDER`.
    at_bound : ndarray of bool
        True where ``auc`` lies beyond what the family can express (clipped).

    Examples
    --------
    >>> from negtheory.calibration import law_from_auc, model_auc
    >>> a, k, bound = law_from_auc([0.7, 0.95])
    >>> a.round(6).tolist(), k.round(6).tolist(), bound.tolist()
    ([0.8, 1.0], [2.0, 3.0], [False, False])
    >>> law_from_auc(0.95, family="thesis")[2].tolist()
    True
    """
    from scipy.optimize import brentq

    if not isinstance(family, str) or family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    a = as_float_array("auc", auc)
    if np.any(~((a >= 0) & (a <= 1))):
        raise ValueError(f"auc must lie in [0, 1], got {auc!r}")
    alpha = alpha_from_auc(a)
    order = np.full(a.shape, 2.0)
    if family == "thesis":
        return alpha, order, (a <= 0.5) | (a >= 5.0 / 6.0)
    top = _order_auc(1.0, MAX_ORDER)
    flat_a, flat_k = a.reshape(-1), order.reshape(-1)
    for j in np.flatnonzero(flat_a > 5.0 / 6.0):
        target = float(flat_a[j])
        if target >= top:
            flat_k[j] = MAX_ORDER
        else:  # AUC(k) is increasing: bracket in log k
            f = lambda lk, t=target: float(_order_auc(1.0, math.exp(lk))) - t  # noqa: E731
            flat_k[j] = math.exp(brentq(f, math.log(2.0), math.log(MAX_ORDER), xtol=1e-13))
    return alpha, order, (a <= 0.5) | (a >= top)


# --------------------------------------------------------------------------------------------
# per-user empirical quantile functions
# --------------------------------------------------------------------------------------------
@_doc
class UserQuantiles:
    r"""Empirical quantile functions of each user's measured scores (Hazen positions, linear).

    :math:`G_u^{-1}` of the calibrated parent :math:`F_u^{-1} = G_u^{-1} \circ \Phi_{UN}` (thesis
    eq. 6.23 and 6.29 inverted; module notes): quantile q of a row of n sorted scores interpolates
    linearly between the order statistics at positions (k + 1/2) / n (Hyndman and Fan's type 5,
    numpy's ``method="hazen"``).

    Without a tail the quantile function stops at the sample's maximum: a level above
    1 - 1/(2n) returns the largest score. With ``tail`` (:func:`fit_tail`) the upper
    ``tail_fraction`` of each user's law is a generalised Pareto tail above the threshold
    order statistic, so that draws reach beyond the fit sample's range, as draws from the
    population it came from do.

    Parameters
    ----------
    scores : array_like, shape (n_users, F)
        Each row a user's measured scores; NaN pads rows with fewer than F scores.
    tail : {None, "auto", "exponential", "gpd"}
        None (default): no tail (the empirical quantile function). Otherwise the tail model of
        :func:`fit_tail`.
    tail_fraction : float in (0, 0.5]
        Share of each user's sample above the tail threshold (default 0.1).
    tail_min : int >= 2
        At least this many exceedances per user (default 5); users with fewer than
        ``2 * tail_min`` scores keep the empirical quantile function.
    upper : (top, n_total), optional
        An exact upper tail from a larger sample of the same law: ``top`` (n_users, K), each
        user's K largest scores of ``n_total`` (n_users,) (NaN-padded). Levels at or above the
        Hazen level of the smallest of them, (n_total - K + 1/2) / n_total, are interpolated among
        them; the quantile function then reaches that sample's maximum (the probe's fit half:
        :mod:`negtheory.recsys.score_probe`).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.calibration import UserQuantiles
    >>> q = UserQuantiles(np.array([[0.0, 1.0, 2.0, 3.0], [5.0, 7.0, np.nan, np.nan]]))
    >>> q.ppf(np.array([0, 0, 1]), np.array([0.5, 1.0, 0.5])).tolist()
    [1.5, 3.0, 6.0]
    """

    def __init__(
        self,
        scores: ArrayLike,
        tail: str | None = None,
        *,
        tail_fraction: float = 0.1,
        tail_min: int = 5,
        upper: tuple[ArrayLike, ArrayLike] | None = None,
    ):
        s = np.asarray(scores, dtype=np.float64)
        if s.ndim != 2 or s.shape[1] == 0:
            raise ValueError(f"scores must be a 2-d array (users x scores), got shape {s.shape}")
        if tail is not None and (not isinstance(tail, str) or tail not in TAILS):
            raise ValueError(f"tail must be None or one of {TAILS}, got {tail!r}")
        tail_fraction = real_scalar("tail_fraction", tail_fraction, 0.0, 0.5, lo_open=True)
        tail_min = int_scalar("tail_min", tail_min, 2)
        self.sorted = np.sort(s, axis=1)  # NaN last
        self.count = np.isfinite(self.sorted).sum(axis=1)
        self.tail = None
        if tail is not None:
            self.tail = fit_tail(
                self.sorted, self.count, kind=tail, fraction=tail_fraction, k_min=tail_min
            )
        self.upper = None
        if upper is not None:
            top = np.sort(np.asarray(upper[0], dtype=np.float64), axis=1)
            n_total = np.asarray(upper[1], dtype=np.int64)
            if top.ndim != 2 or top.shape[0] != s.shape[0] or n_total.shape != (s.shape[0],):
                raise ValueError(
                    f"upper must be (top (n_users, K), n_total (n_users,)) with n_users = {s.shape[0]}, "
                    f"got shapes {top.shape} and {n_total.shape}"
                )
            k = np.isfinite(top).sum(axis=1)
            if np.any(n_total < k):
                raise ValueError(
                    "upper: n_total must be at least the number of top scores of each user"
                )
            self.upper = (top, k, n_total)

    def ppf(self, users: ArrayLike, q: ArrayLike) -> np.ndarray:
        """Quantile ``q`` of user ``users``' scores (broadcast together); NaN for a user without scores.

        %(users_param)s
        q : array_like of float in [0, 1]
            Quantile levels, broadcast with ``users``; levels below 1/(2n) or above 1 - 1/(2n)
            give the smallest or largest score.

        Returns
        -------
        ndarray of float64
            The quantiles (broadcast shape of ``users`` and ``q``).
        """
        users = np.asarray(users, dtype=np.int64)
        q = np.asarray(q, dtype=np.float64)
        users, q = np.broadcast_arrays(users, q)
        n = self.count[users]
        pos = np.clip(q * n - 0.5, 0.0, np.maximum(n - 1, 0).astype(np.float64))
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, np.maximum(n - 1, 0))
        frac = pos - lo
        a = self.sorted[users, lo]
        b = self.sorted[users, hi]
        out = a + frac * (b - a)
        if self.tail is not None:
            out = self.tail.apply(users, q, out)
        if self.upper is not None:
            top, k, n_total = self.upper
            ku, nt = k[users], n_total[users]
            # the j-th of the K largest of n_total scores sits at Hazen level (n_total - K + j + 1/2) / n_total
            upos = q * nt - 0.5 - (nt - ku)
            hit = (ku > 0) & (upos >= 0)
            if hit.any():
                uu, pp, kk = (
                    users[hit],
                    np.minimum(upos[hit], (ku[hit] - 1).astype(np.float64)),
                    ku[hit],
                )
                lo_u = np.floor(pp).astype(np.int64)
                hi_u = np.minimum(lo_u + 1, kk - 1)
                a_u, b_u = top[uu, lo_u], top[uu, hi_u]
                out = np.array(out, dtype=np.float64, copy=True)
                out[hit] = a_u + (pp - lo_u) * (b_u - a_u)
        return np.where(n > 0, out, np.nan)

    def cdf(self, users: ArrayLike, x: ArrayLike) -> np.ndarray:
        """Mid-rank eCDF of ``x`` among user ``users``' scores: (#{< x} + #{<= x}) / (2 n).

        %(users_x_params)s

        Returns
        -------
        ndarray of float64
            The eCDF values in [0, 1] (broadcast shape); 0 for a user without scores.

        Examples
        --------
        >>> import numpy as np
        >>> from negtheory.calibration import UserQuantiles
        >>> UserQuantiles(np.array([[0.0, 1.0, 2.0, 3.0]])).cdf(0, [1.0, 1.5]).tolist()
        [0.375, 0.5]
        """
        lo, hi = self.counts(users, x)
        n = np.maximum(self.count[np.broadcast_to(np.asarray(users, dtype=np.int64), lo.shape)], 1)
        return 0.5 * (lo + hi) / n

    def counts(self, users: ArrayLike, x: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """(# scores < x, # scores <= x) among user ``users``' scores (broadcast together).

        %(users_x_params)s

        Returns
        -------
        lo : ndarray of int64
            Number of the user's scores strictly below ``x`` (broadcast shape).
        hi : ndarray of int64
            Number of the user's scores at or below ``x``.
        """
        users = np.asarray(users, dtype=np.int64)
        x = np.asarray(x, dtype=np.float64)
        users, x = np.broadcast_arrays(users, x)
        lo = np.empty(x.shape, dtype=np.int64)
        hi = np.empty(x.shape, dtype=np.int64)
        _row_counts(
            self.sorted,
            self.count,
            np.ascontiguousarray(users).ravel(),
            np.ascontiguousarray(x).ravel(),
            lo.reshape(-1),
            hi.reshape(-1),
        )
        return lo, hi


class UserTail:
    r"""Per-user generalised Pareto tails above a threshold order statistic (made by :func:`fit_tail`).

    For user u with threshold :math:`u_0` at Hazen level :math:`p_0` and scale :math:`\sigma_u`, a
    level :math:`q \ge p_0` maps to

    .. math:: x = u_0 + \sigma_u\, \frac{(1 - r)^{-\xi} - 1}{\xi}, \qquad r = \frac{q - p_0}{1 - p_0}

    (:math:`-\sigma_u \log(1 - r)` at :math:`\xi = 0`), the generalised Pareto quantile of the
    peaks-over-threshold model (Pickands 1975; Balkema and de Haan 1974); r is capped at
    :math:`1 - 10^{-9}` so that the exp map of the estimators stays finite.

    Parameters
    ----------
    u0, p0, sigma : ndarray of float64, shape (n_users,)
        Threshold, its level and the scale per user (NaN where the user has too few scores).
    xi : float
        The shape, shared by all users.
    kind : str
        The chosen model: ``"exponential"`` (xi = 0) or ``"gpd"``.
    lr_statistic : float
        The squared z statistic of the test of xi = 0 (the ``"auto"`` criterion of
        :func:`fit_tail`).
    """

    def __init__(
        self,
        u0: np.ndarray,
        p0: np.ndarray,
        sigma: np.ndarray,
        xi: float,
        kind: str,
        lr_statistic: float,
    ):
        self.u0, self.p0, self.sigma = u0, p0, sigma
        self.xi, self.kind, self.lr_statistic = float(xi), kind, float(lr_statistic)

    def apply(self, users: np.ndarray, q: np.ndarray, body: np.ndarray) -> np.ndarray:
        """The quantiles ``body`` with the levels inside each user's tail replaced by the tail's.

        Parameters
        ----------
        users : ndarray of int64
            Row indices.
        q : ndarray of float64
            Levels (shape of ``users``).
        body : ndarray of float64
            The empirical quantiles at those levels.

        Returns
        -------
        ndarray of float64
            ``body`` with the tail's quantiles where ``q >= p0`` of the user.
        """
        p0 = self.p0[users]
        in_tail = np.isfinite(p0) & (q >= p0)
        if not in_tail.any():
            return body
        uu, qq = users[in_tail], q[in_tail]
        r = np.minimum((qq - self.p0[uu]) / (1.0 - self.p0[uu]), 1.0 - 1e-9)
        if self.xi == 0.0:
            y = -np.log1p(-r)
        else:
            y = np.expm1(-self.xi * np.log1p(-r)) / self.xi
        out = np.array(body, dtype=np.float64, copy=True)
        out[in_tail] = self.u0[uu] + self.sigma[uu] * y
        return out


def _gpd_max_ratio(xi, k, reps=4000, seed=20261126):
    """Monte-Carlo mean of max(y) / mean(y) over ``reps`` samples of k GPD(xi, 1) exceedances (scale-free)."""
    r = np.random.default_rng(seed).random((reps, k))
    y = -np.log1p(-r) if xi == 0.0 else np.expm1(-xi * np.log1p(-r)) / xi
    return float((y.max(axis=1) / y.mean(axis=1)).mean())


def fit_tail(
    sorted_rows: ArrayLike,
    counts: ArrayLike,
    *,
    kind: str = "auto",
    fraction: float = 0.1,
    k_min: int = 5,
) -> UserTail:
    r"""Fit a peaks-over-threshold tail to each user's sorted scores (the calibrated parent's range).

    Per user with n scores, the threshold :math:`u_0` is the order statistic below the top
    :math:`k = \max(k_{min}, \lceil \mathrm{fraction} \cdot n \rceil)` and the k exceedances
    :math:`y_j = x_{(n-k+j)} - u_0` are modelled as generalised Pareto, GPD(xi, sigma_u). One user has
    too few exceedances for a shape of its own, so the shape is shared. It comes from the scale-free
    statistic :math:`R_u = \max_j y_j / \bar y_u`, whose law under a GPD depends on xi and k only:
    xi on [-1/2, 0.1] is the value at which the Monte-Carlo mean of R (fixed seed, 4 000 samples per
    grid point) equals the mean over users (the method of simulated moments; a joint likelihood
    with one scale per user would carry the incidental-parameter bias of k ~ 10 exceedances). Then
    :math:`\sigma_u = (1 - \xi)\, \bar y_u` (the GPD mean is :math:`\sigma / (1 - \xi)`). The cap
    0.1 keeps the tail light enough that e^s stays finite.

    Criterion (``kind="auto"``, fit data only): the z-test of xi = 0 on the mean of R over users
    (its standard error from their spread); the GPD is chosen when :math:`z^2 > 3.84` (5 %), the
    exponential tail otherwise.

    Parameters
    ----------
    sorted_rows : array_like, shape (n_users, F)
        Each user's scores sorted ascending, NaN padding last (:attr:`UserQuantiles.sorted`).
    counts : array_like of int, shape (n_users,)
        Finite scores per row.
    kind : {"auto", "exponential", "gpd"}
        The model: chosen by the criterion above, xi = 0, or the fitted xi.
    fraction : float in (0, 0.5]
        Share of each user's scores in the tail.
    k_min : int >= 2
        Fewest exceedances; users with fewer than ``2 * k_min`` scores get no tail.

    Returns
    -------
    UserTail
        The fitted tails.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.calibration import UserQuantiles
    >>> g = np.random.default_rng(0)
    >>> q = UserQuantiles(g.exponential(size=(200, 300)), tail="auto")
    >>> q.tail.kind, bool(q.ppf(0, 1 - 1e-6) > q.sorted[0, -1])
    ('exponential', True)
    """
    if not isinstance(kind, str) or kind not in TAILS:
        raise ValueError(f"kind must be one of {TAILS}, got {kind!r}")
    fraction = real_scalar("fraction", fraction, 0.0, 0.5, lo_open=True)
    k_min = int_scalar("k_min", k_min, 2)
    rows = np.asarray(sorted_rows, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    if rows.ndim != 2 or counts.shape != (rows.shape[0],):
        raise ValueError(
            f"sorted_rows must be (n_users, F) and counts (n_users,), got {rows.shape} and {counts.shape}"
        )
    n_users = rows.shape[0]
    u0 = np.full(n_users, np.nan)
    p0 = np.full(n_users, np.nan)
    ybar = np.full(n_users, np.nan)
    pooled = []
    for u in range(n_users):
        n = int(counts[u])
        if n < 2 * k_min:
            continue
        k = min(max(k_min, math.ceil(fraction * n)), n - 1)
        thr = rows[u, n - k - 1]
        y = rows[u, n - k : n] - thr
        m = float(y.mean())
        u0[u], p0[u], ybar[u] = thr, (n - k - 0.5) / n, m
        if m > 0:
            pooled.append((y.max() / m, k))
    # the shape from a scale-free statistic, R_u = max(y) / mean(y), whose law under GPD(xi) depends
    # on xi and k only: matching its mean over users to its Monte-Carlo mean (method of simulated
    # moments) avoids the incidental-parameter bias of a joint likelihood with one scale per user
    ok = np.isfinite(ybar) & (ybar > 0)
    xi, lr = 0.0, 0.0
    if ok.sum() >= 10 and kind != "exponential":
        ratios = np.array([r for r, _ in pooled])
        ks = np.array([k for _, k in pooled])
        obs = ratios.mean()
        grid = np.linspace(-0.5, 0.1, 13)
        kk, cnt = np.unique(ks, return_counts=True)
        w = cnt / cnt.sum()
        expect = np.array(
            [sum(wi * _gpd_max_ratio(float(x), int(k)) for k, wi in zip(kk, w)) for x in grid]
        )
        null = float(sum(wi * _gpd_max_ratio(0.0, int(k)) for k, wi in zip(kk, w)))
        se = float(ratios.std(ddof=1) / math.sqrt(ratios.size))
        lr = ((obs - null) / se) ** 2 if se > 0 else 0.0  # squared z, chi-square(1) under xi = 0
        xi_hat = float(np.interp(obs, expect, grid))  # E[R](xi) increases with xi
        if kind == "gpd" or lr > 3.841458820694124:
            xi = xi_hat
    chosen = "exponential" if xi == 0.0 else "gpd"
    return UserTail(u0, p0, (1.0 - xi) * ybar, xi, chosen, lr)


def tail_share(sq_errors: ArrayLike, top: float = 0.001) -> float:
    """Share of the summed squared error carried by the top ``top`` fraction of anchors (at least one).

    Parameters
    ----------
    sq_errors : array_like
        Per-anchor squared errors.
    top : float in (0, 1]
        Fraction of anchors (default 0.001, the top 0.1 %).

    Returns
    -------
    float
        In [0, 1]; NaN for an empty input or a zero total.

    Examples
    --------
    >>> from negtheory.calibration import tail_share
    >>> tail_share([1.0] * 999 + [1001.0])
    0.5005
    """
    e = np.asarray(sq_errors, dtype=np.float64).ravel()
    top = real_scalar("top", top, 0.0, 1.0, lo_open=True)
    total = float(e.sum())
    if e.size == 0 or total <= 0:
        return math.nan
    m = max(1, math.ceil(top * e.size))
    return float(np.sort(e)[-m:].sum() / total)


@numba.njit(cache=True)
def _row_counts(sorted_rows, counts, rows, x, lo, hi):
    """Binary search of x[j] in the first counts[rows[j]] entries of sorted_rows[rows[j]]:
    lo[j] = # entries < x[j], hi[j] = # entries <= x[j] (numpy's searchsorted left / right)."""
    for j in range(x.size):
        r = rows[j]
        n = counts[r]
        a, b = 0, n
        while a < b:  # first index with value >= x
            m = (a + b) // 2
            if sorted_rows[r, m] < x[j]:
                a = m + 1
            else:
                b = m
        lo[j] = a
        b = n
        while a < b:  # first index with value > x
            m = (a + b) // 2
            if sorted_rows[r, m] <= x[j]:
                a = m + 1
            else:
                b = m
        hi[j] = a


# --------------------------------------------------------------------------------------------
# the estimators on given score sets
# --------------------------------------------------------------------------------------------
def estimator_errors(
    neg: ArrayLike,
    is_true_negative: ArrayLike,
    pos: ArrayLike,
    *,
    t: float = 1.0,
    alpha: float,
    tau_plus: float,
    beta: float = 0.5,
    hcl_beta: float = 0.5,
    estimators: Sequence[str] = ESTIMATORS,
) -> dict[str, dict[str, float]]:
    r"""Squared errors of the true-negative-mean estimators against theta_SUP (thesis eq. 6.45-6.48).

    Per anchor, with :math:`\mathbb{I}(\hat x_i) = 1` for a true negative, the truth (eq. 6.45)
    and the biased, DCL and BCL estimators (eq. 6.46-6.48, one positive :math:`\hat x^+` per
    anchor) are

    .. math::
        \theta_{SUP} = \frac{\sum_i \mathbb{I}(\hat x_i)\, \hat x_i}{\sum_i \mathbb{I}(\hat x_i)}, \quad
        \hat\theta_{BIASED} = \frac1N \sum_i \hat x_i, \quad
        \hat\theta_{DCL} = \frac{1}{N\tau^-}\Big(\sum_i \hat x_i - N\tau^+ \hat x^+\Big), \quad
        \hat\theta_{BCL} = \frac1N \sum_i \omega_i\, \hat x_i,

    with :math:`\omega_i` BCL's importance weights (eq. 6.25).

    Scores are mapped by :math:`\hat x = e^{s/t}` (the InfoNCE term); for each anchor with at least
    one true negative, :math:`\theta_{SUP}` is the mean of its true negatives' :math:`\hat x` and
    each estimator is computed from the N unlabeled :math:`\hat x` (and the anchor's positive for
    DCL / HCL) with :func:`negtheory.estimators.theta_biased`, ``theta_dcl``, ``theta_hcl``,
    ``theta_bcl`` (normalised or not) at the given (alpha, tau+). No floor is applied to DCL/HCL.

    Parameters
    ----------
    neg : array_like, shape (A, N)
        Raw scores s (before the exp map) of the N unlabeled items of each anchor.
    is_true_negative : array_like of bool, shape (A, N)
        True where the unlabeled item is a true negative (the labels of theta_SUP only; the
        estimators never see them).
    pos : array_like, shape (A,)
        The anchor's positive score.
    t : float > 0
        Temperature of the exp map.
    alpha, tau_plus, beta, hcl_beta : float
        Estimator parameters (BCL's alpha, beta of eq. 6.25; tau+ of DCL / HCL / BCL; HCL's
        concentration).
    estimators : sequence of str
        Any of :data:`ESTIMATORS`.

    Returns
    -------
    dict
        ``{estimator: {"mse", "mse_se", "mean", "truth_mean", "n_anchors", "median_se",
        "trimmed_mse", "top_share"}}``; ``mse_se`` is the standard error of the mean of the squared
        errors, ``median_se`` their median, ``trimmed_mse`` their mean without the top 0.1 % of
        anchors and ``top_share`` the share of their sum those anchors carry (:func:`tail_share`). Anchors without a true negative have no
        truth and are left out; at least two must remain (``ValueError`` otherwise).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.calibration import estimator_errors
    >>> tn = np.array([[True, True, False], [True, True, True]])
    >>> r = estimator_errors(np.log([[1.0, 3.0, 8.0], [2.0, 2.0, 2.0]]), tn, np.log([8.0, 8.0]), alpha=0.9, tau_plus=0.1)
    >>> round(r["biased"]["mse"], 6)   # ((4 - 2)^2 + 0) / 2
    2.0
    """
    neg = as_float_array("neg", neg)
    tn = np.asarray(is_true_negative)
    if tn.dtype != bool:
        raise TypeError(f"is_true_negative must be a boolean array, got dtype {tn.dtype}")
    pos = as_float_array("pos", pos)
    if neg.ndim != 2 or tn.shape != neg.shape or pos.shape != neg.shape[:1]:
        raise ValueError(
            f"neg must be (A, N), is_true_negative (A, N) and pos (A,), got {neg.shape}, {tn.shape}, {pos.shape}"
        )
    if isinstance(estimators, str) or not hasattr(estimators, "__iter__"):
        raise TypeError(f"estimators must be a sequence of estimator names, got {estimators!r}")
    estimators = list(estimators)
    t = real_scalar("t", t, 0.0, lo_open=True)
    alpha = real_scalar("alpha", alpha, 0.5, 1.0)
    tau_plus = real_scalar("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True)
    beta = real_scalar("beta", beta, 0.0, 1.0)
    hcl_beta = real_scalar("hcl_beta", hcl_beta, 0.0)
    bad = [e for e in estimators if not isinstance(e, str) or e not in ESTIMATORS]
    if bad:
        raise ValueError(f"estimators must be among {ESTIMATORS}, got {bad}")
    ok = tn.any(axis=1)
    if ok.sum() < 2:
        raise ValueError(
            f"neg must hold at least two anchors with a true negative (is_true_negative), got {int(ok.sum())}: "
            "theta_SUP needs a true negative and the MSE's standard error two anchors"
        )
    with np.errstate(over="ignore", under="ignore"):
        x = np.exp(neg[ok] / t)
        xp = np.exp(pos[ok] / t)
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(xp))):
        raise ValueError(
            f"exp(neg / t) or exp(pos / t) overflows float64: lower the scores or raise t (t={t!r})"
        )
    if x.size and x.min() == 0.0 and "hcl" in estimators:
        raise ValueError(
            f"exp(neg / t) underflows to 0, where HCL's weights x^beta are undefined: raise t (t={t!r})"
        )
    truth = np.asarray(est.theta_sup(x, tn[ok]))
    b = 0.99 if (alpha == 1.0 and beta == 1.0) else beta  # eq. 6.25 is 0/0 at alpha = beta = 1
    out = {}
    for name in estimators:
        if name == "biased":
            v = est.theta_biased(x)
        elif name == "dcl":
            v = est.theta_dcl(x, xp, tau_plus)
        elif name == "hcl":
            v = est.theta_hcl(x, xp, tau_plus, hcl_beta)
        else:
            v = est.theta_bcl(x, alpha, b, tau_plus, normalize=name == "bcl_norm")
        err2 = (np.asarray(v) - truth) ** 2
        m = err2.size
        # robust companions: the top 0.1 % of anchors can carry most of the sum (a few huge e^s)
        srt = np.sort(err2)
        cut = max(1, math.ceil(0.001 * m))
        out[name] = dict(
            mse=float(err2.mean()),
            mse_se=float(err2.std(ddof=1) / math.sqrt(m)),
            mean=float(np.mean(v)),
            truth_mean=float(truth.mean()),
            n_anchors=int(m),
            median_se=float(np.median(srt)),
            trimmed_mse=float(srt[: m - cut].mean()),  # m >= 2 anchors and cut < m
            # no error at all: the top anchors carry none of it
            top_share=float(srt[m - cut :].sum() / srt.sum()) if srt.sum() > 0 else 0.0,
        )
    return out


# --------------------------------------------------------------------------------------------
# simulations
# --------------------------------------------------------------------------------------------
def _check_users(users, n_users):
    users = np.asarray(users, dtype=np.int64)
    if users.ndim != 1 or users.size == 0:
        raise ValueError("users must be a non-empty 1-d array of user indices")
    if users.min() < 0 or users.max() >= n_users:
        raise ValueError(
            f"users must lie in [0, {n_users}), got values in [{users.min()}, {users.max()}]"
        )
    return users


def _check_anchors(unlabeled, users, n, rng):
    """The simulators' common arguments validated: (n_users, users, n, rng as a Generator)."""
    n_users = unlabeled.sorted.shape[0]
    return n_users, _check_users(users, n_users), int_scalar("n", n, 1), as_generator(rng)


def _labels(rng, shape, tau_plus, users):
    """True-negative labels: each unlabeled item is a false negative with prob tau+ (scalar or per user)."""
    tp = np.asarray(tau_plus, dtype=np.float64)
    p = tp[users][:, None] if tp.ndim else tp
    return rng.random(shape) >= p


def _draw_positives(rng, users, positives, pos_quantiles, parent_ppf):
    if positives == "measured":
        pos = pos_quantiles.ppf(users, rng.random(users.size))
        missing = ~np.isfinite(pos)
        if missing.any():  # a user without fit positives: any user's positive (pooled)
            allpos = pos_quantiles.sorted[np.isfinite(pos_quantiles.sorted)]
            pos[missing] = rng.choice(allpos, size=int(missing.sum()))
        return pos
    if positives == "phi_fn":
        return parent_ppf(users, rng.random(users.size), "fn")
    raise ValueError(f"positives must be 'measured' or 'phi_fn', got {positives!r}")


@_doc
def simulate_calibrated(
    unlabeled: UserQuantiles,
    users: ArrayLike,
    n: int,
    *,
    alpha: float | ArrayLike,
    tau_plus: float | ArrayLike,
    positives: str = "measured",
    positive_scores: UserQuantiles | None = None,
    parent: str = "empirical",
    order: float = 2.0,
    rng: RNGLike = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Score sets of the theory's class-conditional model with each user's parent fitted (module notes).

    Parameters
    ----------
    unlabeled : UserQuantiles
        The measured unlabeled scores of each user (the fit batches).
    %(users_n)s
    alpha, tau_plus : float, or array_like of shape (n_users,)
        Encoder quality (eq. 6.21) in [1/2, 1] and false-negative prior in [0, 1); per-user
        arrays model their heterogeneity (an ablation).
    positives : {"measured", "phi_fn"}
        The anchor's positive: a draw from the user's measured positives (``positive_scores``),
        or from phi_FN of the user's fitted parent (thesis §6.6.1).
    positive_scores : UserQuantiles, optional
        Needed with ``positives="measured"``.
    parent : {"empirical", "normal"}
        The fitted parent: exactly the one whose unlabeled mixture is the measured eCDF (eq. 6.29
        inverted), or a normal law per user fitted by least squares of the probit of eq. 6.29's
        parent CDF on the scores (ablation of the parent family).
    order : float >= 1
        The order k of the class laws' order-statistic family (:func:`class_conditional_cdf`;
        default 2, the thesis's laws; :func:`law_from_auc` gives it from an AUC). With an order
        other than 2, ``parent`` must be ``"empirical"``.
    %(rng_neg_returns)s
        Their labels (each a false negative with probability tau+).
    %(pos_returns_example)s
    >>> from negtheory.calibration import UserQuantiles, simulate_calibrated
    >>> g = np.random.default_rng(0)
    >>> un = UserQuantiles(g.normal(size=(3, 200)))
    >>> neg, tn, pos = simulate_calibrated(un, [0, 1, 2, 2], 5, alpha=0.8, tau_plus=0.1, positives="phi_fn", rng=1)
    >>> neg.shape, tn.shape, pos.shape
    ((4, 5), (4, 5), (4,))
    """
    n_users, users, n, rng = _check_anchors(unlabeled, users, n, rng)
    alpha_u = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_users,))
    tau_u = np.broadcast_to(np.asarray(tau_plus, dtype=np.float64), (n_users,))
    if np.any((alpha_u < 0.5) | (alpha_u > 1)) or not np.all(np.isfinite(alpha_u)):
        raise ValueError("alpha must lie in [0.5, 1]")
    if np.any((tau_u < 0) | (tau_u >= 1)) or not np.all(np.isfinite(tau_u)):
        raise ValueError("tau_plus must lie in [0, 1)")
    if not isinstance(parent, str) or parent not in ("empirical", "normal"):
        raise ValueError(f"parent must be 'empirical' or 'normal', got {parent!r}")
    if positives == "measured" and positive_scores is None:
        raise ValueError("positives='measured' needs positive_scores")
    order = _checked_order(order)
    if order != 2.0 and parent != "empirical":
        raise ValueError(
            f"order {order!r} needs parent='empirical' (the normal parent fits eq. 6.29 at order 2)"
        )
    normal = _normal_parents(unlabeled, alpha_u, tau_u) if parent == "normal" else None

    def parent_ppf(uu, q, kind):
        # v = Phi(x) from the class law's exact inverse CDF, then x = F_u^{-1}(v)
        a = alpha_u[uu]
        tp = tau_u[uu]
        if order != 2.0:
            lam = 2.0 * a - 1.0
            v = _order_ppf(q, kind, lam, order)
            return unlabeled.ppf(uu, np.clip(_order_cdf(v, "un", lam, order, tp), 0.0, 1.0))
        v = _quadratic_ppf(q, *_coefficients(kind, a, tp))
        if normal is not None:
            from scipy.special import ndtri

            loc, scale = normal
            return loc[uu] + scale[uu] * ndtri(np.clip(v, 1e-12, 1 - 1e-12))
        b_u, a_u = _coefficients("un", a, tp)
        return unlabeled.ppf(uu, b_u * v + a_u * v * v)

    tn = _labels(rng, (users.size, n), tau_u, users)
    q = rng.random((users.size, n))
    uu = np.broadcast_to(users[:, None], (users.size, n))
    neg = np.where(tn, parent_ppf(uu, q, "tn"), parent_ppf(uu, q, "fn"))
    pos = _draw_positives(rng, users, positives, positive_scores, parent_ppf)
    return neg, tn, pos


def _normal_parents(unlabeled: UserQuantiles, alpha_u, tau_u):
    """Per user (loc, scale) of a normal parent: probit of eq. 6.29's parent CDF regressed on the scores."""
    from scipy.special import ndtri

    n_users = unlabeled.sorted.shape[0]
    loc = np.zeros(n_users)
    scale = np.ones(n_users)
    for u in range(n_users):
        m = int(unlabeled.count[u])
        if m < 2:
            continue
        x = unlabeled.sorted[u, :m]
        g = (np.arange(m) + 0.5) / m
        v = np.clip(_quadratic_ppf(g, *_coefficients("un", alpha_u[u], tau_u[u])), 1e-9, 1 - 1e-9)
        z = ndtri(v)
        slope, icept = np.polyfit(z, x, 1)
        loc[u], scale[u] = icept, max(slope, 1e-12)
    return loc, scale


@_doc
def simulate_resampled(
    tn_scores: UserQuantiles,
    fn_ranks: ArrayLike,
    unlabeled: UserQuantiles,
    users: ArrayLike,
    n: int,
    *,
    tau_plus: float | ArrayLike,
    positive_scores: UserQuantiles,
    pooled: bool = False,
    fn_scores: ArrayLike | None = None,
    fn_user: UserQuantiles | None = None,
    rng: RNGLike = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Score sets drawn i.i.d. from the measured class-conditional laws (a bootstrap; module notes).

    The reference against which the thesis's laws (eq. 6.14-6.15) are judged: the same anchors and
    estimators, with the laws replaced by the measured ones.

    Parameters
    ----------
    tn_scores : UserQuantiles
        Each user's measured true-negative scores.
    fn_ranks : array_like
        Measured false negatives' eCDF values among their user's unlabeled scores (pooled).
    unlabeled : UserQuantiles
        Each user's measured unlabeled scores (to place a false-negative rank in the user's scale).
    %(users_n)s
    tau_plus : float or array_like of shape (n_users,)
        False-negative prior in [0, 1) (per user for an array): each unlabeled score is a false
        negative with this probability.
    positive_scores : UserQuantiles
        Each user's measured positives.
    pooled : bool
        Ignore the user: true and false negatives from the pooled measured scores (``fn_scores``
        needed), positives from the pooled positives.
    fn_scores : array_like, optional
        Pooled measured false-negative scores (for ``pooled=True``).
    fn_user : UserQuantiles, optional
        Each user's own measured false-negative scores: a false negative of a user who has some is
        drawn from them, and placed by a pooled rank (``fn_ranks``) only for a user without any.
        Real users differ in where their false negatives sit, and the few users with many false
        negatives carry most of the error, so the pooled rank law alone underweights them.
    %(rng_neg_returns)s
        Their labels (each a false negative with probability tau+).
    pos : ndarray of float64, shape (A,)
        The anchors' positive scores, drawn from the user's (or the pooled) measured positives.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.calibration import UserQuantiles, simulate_resampled
    >>> g = np.random.default_rng(0)
    >>> q = UserQuantiles(g.normal(size=(2, 50)))
    >>> neg, tn, pos = simulate_resampled(q, [0.9, 0.7], q, [0, 1], 4, tau_plus=0.2, positive_scores=q, rng=0)
    >>> neg.shape
    (2, 4)
    """
    n_users, users, n, rng = _check_anchors(unlabeled, users, n, rng)
    ranks = np.asarray(fn_ranks, dtype=np.float64).ravel()
    if ranks.size == 0 or np.any((ranks < 0) | (ranks > 1)):
        raise ValueError("fn_ranks must be a non-empty array of values in [0, 1]")
    tau_u = np.broadcast_to(np.asarray(tau_plus, dtype=np.float64), (n_users,))
    tn = _labels(rng, (users.size, n), tau_u, users)
    uu = np.broadcast_to(users[:, None], (users.size, n))
    if pooled:
        if fn_scores is None:
            raise ValueError("pooled=True needs fn_scores")
        fpool = np.asarray(fn_scores, dtype=np.float64).ravel()
        tpool = tn_scores.sorted[np.isfinite(tn_scores.sorted)]
        ppool = positive_scores.sorted[np.isfinite(positive_scores.sorted)]
        neg = np.where(tn, rng.choice(tpool, size=tn.shape), rng.choice(fpool, size=tn.shape))
        return neg, tn, rng.choice(ppool, size=users.size)
    t_val = tn_scores.ppf(uu, rng.random(tn.shape))
    # a missing pool (no true negative measured for this user) falls back on the unlabeled scores
    t_val = np.where(np.isfinite(t_val), t_val, unlabeled.ppf(uu, rng.random(tn.shape)))
    f_val = unlabeled.ppf(uu, rng.choice(ranks, size=tn.shape))
    if fn_user is not None:
        own = fn_user.ppf(uu, rng.random(tn.shape))
        f_val = np.where(np.isfinite(own), own, f_val)
    neg = np.where(tn, t_val, f_val)
    pos = _draw_positives(rng, users, "measured", positive_scores, None)
    return neg, tn, pos


# --------------------------------------------------------------------------------------------
# the order-statistic generalisation: false negatives as the largest of k unlabeled draws
# --------------------------------------------------------------------------------------------
def fit_fn_order(fn_ranks: ArrayLike) -> float:
    r"""Maximum-likelihood order k of the false negatives' within-user rank law w ~ k w^{k-1}.

    A false negative of the thesis's pair construction at alpha = 1 is the larger of two draws
    (phi_(2) = 2 Phi phi, eq. 6.13); its generalisation in the order statistics of §2.3 is the
    largest of k draws, whose CDF in the unlabeled eCDF w = G(x) is :math:`w^k`. Given the
    measured ranks :math:`w_1..w_m`,

    .. math:: \hat k = -m \Big/ \sum_j \ln w_j .

    Parameters
    ----------
    fn_ranks : array_like of float in (0, 1]
        The measured ranks :math:`w_j` (e.g. :attr:`~negtheory.recsys.ProbeRecord.fit_fn_ranks`),
        any shape (flattened), at least one.

    Returns
    -------
    float
        :math:`\hat k > 0` (``inf`` when every rank is 1).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.calibration import fit_fn_order
    >>> w = np.random.default_rng(0).random(200_000) ** (1 / 6)   # w^6 is the CDF
    >>> round(fit_fn_order(w), 1)
    6.0
    """
    w = as_float_array("fn_ranks", fn_ranks).ravel()
    if w.size == 0 or np.any((w <= 0) | (w > 1)):
        raise ValueError(
            f"fn_ranks must be a non-empty array of values in (0, 1], got {fn_ranks!r}"
        )
    s = -np.log(w).sum()
    return math.inf if s == 0 else float(w.size / s)


@_doc
def simulate_order_statistic(
    unlabeled: UserQuantiles,
    users: ArrayLike,
    n: int,
    *,
    k: float,
    tau_plus: float,
    positive_scores: UserQuantiles,
    rng: RNGLike = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Score sets with false negatives as the largest of k draws from the user's unlabeled law.

    In the unlabeled eCDF w = G_u(x) of user u the mixture :math:`\tau^- F_{TN} + \tau^+ F_{FN}` is
    uniform by definition, so with :math:`F_{FN}(w) = w^k`

    .. math:: F_{TN}(w) = \frac{w - \tau^+ w^k}{\tau^-},

    a CDF when :math:`k\,\tau^+ \le 1`. Scores are :math:`x = G_u^{-1}(w)`; the anchor's positive is
    a draw from the user's measured positives. At k = 2 and in parent-CDF space this is the
    thesis's model at alpha = 1 up to the difference between the parent and the unlabeled law.

    Parameters
    ----------
    unlabeled : UserQuantiles
        Each user's measured unlabeled scores (their quantile function is :math:`G_u^{-1}`).
    %(users_n)s
    k : float >= 1
        Order of the false negatives (:func:`fit_fn_order`), with k tau+ <= 1.
    tau_plus : float in (0, 1)
        False-negative prior: each unlabeled score is a false negative with this probability.
    positive_scores : UserQuantiles
        Each user's measured positives.
    %(rng_neg_returns)s
        Their labels.
    %(pos_returns_example)s
    >>> from negtheory.calibration import UserQuantiles, simulate_order_statistic
    >>> q = UserQuantiles(np.random.default_rng(0).normal(size=(2, 100)))
    >>> neg, tn, pos = simulate_order_statistic(q, [0, 1, 1], 4, k=5.0, tau_plus=0.1, positive_scores=q, rng=0)
    >>> neg.shape, pos.shape
    ((3, 4), (3,))
    """
    users = _check_users(users, unlabeled.sorted.shape[0])
    n = int_scalar("n", n, 1)
    k = real_scalar("k", k, 1.0)
    tau_plus = real_scalar("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True)
    if k * tau_plus > 1.0:
        raise ValueError(
            f"k * tau_plus must be <= 1 for F_TN to be a CDF, got k={k!r}, tau_plus={tau_plus!r}"
        )
    rng = as_generator(rng)
    tn = _labels(rng, (users.size, n), tau_plus, users)
    q = rng.random((users.size, n))
    grid = np.linspace(0.0, 1.0, 8193)
    f_tn = (grid - tau_plus * grid**k) / (1.0 - tau_plus)  # increasing when k tau+ <= 1
    w = np.where(tn, np.interp(q, f_tn, grid), q ** (1.0 / k))
    uu = np.broadcast_to(users[:, None], (users.size, n))
    neg = unlabeled.ppf(uu, w)
    pos = _draw_positives(rng, users, "measured", positive_scores, None)
    return neg, tn, pos
