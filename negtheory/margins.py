r"""InfoNCE with temperature and its effective margin (textbook chapter, *Modern Formulations: The InfoNCE Loss*).

:mod:`negtheory.mechanics` re-exports every name of this part of the textbook chapter's mechanics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from scipy.special import logsumexp

from ._validation import broadcast, real_array, real_scalar, scalar_or_array
from ._validation import temperature_array as _tau

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatOrArray

__all__ = ["infonce_loss", "effective_margin", "hinge_comparison", "HingeComparison"]


def infonce_loss(pos: ArrayLike, neg: ArrayLike, tau: ArrayLike = 1.0) -> FloatOrArray:
    r"""InfoNCE loss with temperature (textbook chapter, *Modern Formulations: The InfoNCE Loss*).

    .. math::
        L = -\ln \frac{e^{s^+/\tau}}{e^{s^+/\tau} + \sum_{j=1}^K e^{s^-_j/\tau}}
          = \ln\Big(1 + \sum_j e^{(s^-_j - s^+)/\tau}\Big).

    Evaluated as a log-sum-exp of the differences, so it is exact for any score scale.

    Parameters
    ----------
    pos : array_like, shape (...)
        Positive similarities s(x, x+).
    neg : array_like, shape (..., K)
        Negative similarities; K = 0 gives L = 0.
    tau : float or array_like, default 1.0
        Temperature in (0, inf] (broadcast against ``pos``); :math:`\tau = \infty` gives :math:`\ln(K + 1)`.

    Returns
    -------
    float or ndarray
        L >= 0, shape ``broadcast(pos, neg[..., 0], tau)`` (inf when the differences overflow
        at a tiny :math:`\tau`).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.margins import infonce_loss
    >>> round(float(infonce_loss(0.9, [0.1, 0.2, 0.3], tau=0.1)), 6)
    0.003719
    >>> round(float(infonce_loss(0.9, [0.1, 0.2, 0.3], tau=np.inf)), 6)   # ln 4
    1.386294
    """
    p = real_array("pos", pos)
    n = real_array("neg", neg)
    if n.ndim == 0:
        raise ValueError("neg must have a last axis holding the K negatives")
    t = _tau("tau", tau)
    try:
        np.broadcast_shapes(p.shape, n.shape[:-1], t.shape)
    except ValueError:
        raise ValueError(
            "pos, neg (leading axes) and tau must broadcast against each other, got shapes "
            f"pos {p.shape}, neg {n.shape}, tau {t.shape}"
        ) from None
    with np.errstate(over="ignore"):
        z = (n - p[..., None]) / t[..., None]  # tau = inf: exactly 0
    zz = np.concatenate([np.zeros(z.shape[:-1] + (1,)), z], axis=-1)  # the positive's own term, e^0
    big = np.isinf(zz).any(axis=-1)  # tau so small that (s- - s+)/tau overflows: the loss does too
    zz = np.where(big[..., None], 0.0, zz)
    out = np.where(big, np.inf, logsumexp(zz, axis=-1))
    return scalar_or_array(np.asarray(out))


def effective_margin(beta: ArrayLike, tau: ArrayLike, k: ArrayLike) -> FloatOrArray:
    r"""Effective margin of InfoNCE, m_eff = beta + tau ln K (textbook chapter, *Connection to Margin-Based Losses*).

    .. math:: m_{\text{eff}} = \beta + \tau \ln K

    With a positive similarity alpha and K easy negatives of similarity beta (beta < alpha),
    L ~ (m_eff - alpha) / tau once K e^{(beta - alpha)/tau} >> 1: a hinge at m_eff that grows
    with tau and logarithmically with K. See :func:`hinge_comparison` for where the
    approximation holds.

    Parameters
    ----------
    beta : array_like
        Similarity :math:`\beta` of the (easy) negatives, any real.
    tau : array_like
        Temperature :math:`\tau > 0`.
    k : array_like
        Number of negatives K >= 1 (real allowed); the three arguments broadcast.

    Returns
    -------
    float or ndarray
        m_eff, broadcast over the arguments.

    Examples
    --------
    >>> from negtheory.margins import effective_margin
    >>> round(float(effective_margin(0.2, 0.1, 100)), 6)
    0.660517
    """
    b = real_array("beta", beta)
    t = real_array("tau", tau, 0.0, lo_open=True)
    kk = real_array("k", k, 1.0)
    b, t, kk = broadcast(beta=b, tau=t, k=kk)
    return scalar_or_array(np.asarray(b + t * np.log(kk)))


class HingeComparison(NamedTuple):
    r"""Result of :func:`hinge_comparison`: exact InfoNCE loss, its hinge approximation, their gap (textbook chapter).

    Parameters
    ----------
    exact : ndarray or float
        The exact loss :math:`\ln(1 + K e^{(\beta - \alpha)/\tau})`.
    hinge : ndarray or float
        Its hinge approximation :math:`\max(0, (m_{eff} - \alpha) / \tau)`.
    error : ndarray or float
        exact - hinge = :math:`\ln(1 + e^{-|m_{eff} - \alpha| / \tau}) \in (0, \ln 2]`.
    holds : ndarray or bool
        Whether error <= tol.

    Examples
    --------
    >>> from negtheory.margins import HingeComparison, hinge_comparison
    >>> r = hinge_comparison(alpha=1.5, beta=0.2, tau=0.1, k=100)
    >>> isinstance(r, HingeComparison), bool(r.holds), round(float(r.exact - r.hinge - r.error), 12)
    (True, True, 0.0)
    """

    exact: np.ndarray  #: ln(1 + K e^{(beta - alpha)/tau})
    hinge: np.ndarray  #: max(0, (m_eff - alpha) / tau)
    error: np.ndarray  #: exact - hinge = ln(1 + e^{-|m_eff - alpha| / tau}) in (0, ln 2]
    holds: np.ndarray  #: error <= tol


def hinge_comparison(
    alpha: ArrayLike, beta: ArrayLike, tau: ArrayLike, k: ArrayLike, tol: float = 0.01
) -> HingeComparison:
    r"""Exact InfoNCE loss with K equal negatives against its hinge approximation (textbook chapter).

    With the positive at similarity alpha and all K negatives at beta the loss is exactly

    .. math:: \tilde L = \ln(1 + K e^{(\beta - \alpha)/\tau}) = \mathrm{softplus}(u),\quad
              u = (m_{\text{eff}} - \alpha)/\tau,\ m_{\text{eff}} = \beta + \tau\ln K,

    and the textbook chapter's approximation ln(1 + z) ~ ln z (valid when z = e^u >> 1), extended by 0 when
    alpha passes the margin, is the hinge max(0, u). Their difference is exactly

    .. math::
        \tilde L - \max(0, u) = \mathrm{softplus}(-\lvert u \rvert)
        = \ln\big(1 + e^{-\lvert \alpha - m_{\text{eff}} \rvert / \tau}\big):

    at most ln 2, reached at alpha = m_eff, and below ``tol`` iff
    :math:`\lvert \alpha - m_{\text{eff}} \rvert \ge \tau \ln\big(1 / (e^{tol} - 1)\big)`. The approximation
    therefore *holds* away from the margin (in units of tau) and *breaks* in a band of width
    ~ 2 tau ln(1/tol) around it; small tau sharpens the hinge.

    Parameters
    ----------
    alpha, beta : array_like
        Positive and negative similarities.
    tau : array_like
        Temperature > 0.
    k : array_like
        Number of negatives K >= 1.
    tol : float, default 0.01
        Absolute error (nats, > 0) under which the approximation is said to hold.

    Returns
    -------
    HingeComparison
        Named tuple (exact, hinge, error, holds), broadcast over the inputs.

    Examples
    --------
    >>> from negtheory.margins import hinge_comparison
    >>> r = hinge_comparison(alpha=[0.0, 0.66, 1.5], beta=0.2, tau=0.1, k=100)
    >>> [round(float(e), 4) for e in r.error]
    [0.0014, 0.6906, 0.0002]
    >>> r.holds.tolist()
    [True, False, True]
    """
    a = real_array("alpha", alpha)
    b = real_array("beta", beta)
    t = real_array("tau", tau, 0.0, lo_open=True)
    kk = real_array("k", k, 1.0)
    tl = real_scalar("tol", tol, 0.0, lo_open=True)
    a, b, t, kk = broadcast(alpha=a, beta=b, tau=t, k=kk)
    # u = (m_eff - alpha) / tau = (beta - alpha) / tau + ln K, never forming m_eff (which
    # overflows for huge tau although u does not)
    u = (b - a) / t + np.log(kk)
    exact = np.logaddexp(0.0, u)
    hinge = np.maximum(u, 0.0)
    error = np.logaddexp(0.0, -np.abs(u))  # = exact - hinge, without cancellation
    return HingeComparison(
        scalar_or_array(np.asarray(exact)),
        scalar_or_array(np.asarray(hinge)),
        scalar_or_array(np.asarray(error)),
        scalar_or_array(np.asarray(error <= tl)),
    )
