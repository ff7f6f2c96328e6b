r"""How many negatives does InfoNCE need? The negative-ratio theory of Wu et al. (Rethinking InfoNCE).

Gaussian score model of §3: real negative and positive click-probability scores follow
p = N(0, 1) and q = N(mu_q, 1); the model's predicted scores follow p' = N(0, 1) and
q' = N(mu', 1). A training sample is one positive with K negatives.

* label reliability P(A) (eq. 3) and prediction reliability P(B) (eq. 4), both
  :func:`reliability`;
* good / bad / easy sample fractions (eq. 5 divided by N), :func:`sample_fractions`;
* training effectiveness v (eq. 6), :func:`effectiveness`;
* AUC <-> mu_q (eq. 7, closed form :math:`\mathrm{AUC} = \Phi(\mu / \sqrt 2)`), :func:`auc_from_mu`,
  :func:`mu_from_auc`;
* v averaged over the simulated training curve :math:`\mu'(t) = \mu_q (1 - e^{-t})` (§4.3),
  :func:`overall_effectiveness`, :func:`effectiveness_curve`, and the optimal ratio
  :func:`optimal_k`, :func:`optimal_k_from_auc`;
* adaptive negative sampling (§5): real-valued K (eq. 8), :func:`draw_negative_counts`, and
  the warm-up / decay schedule of Fig. 6, :func:`ans_schedule`;
* the same reliability and effectiveness for arbitrary score laws given as frozen
  ``scipy.stats`` distributions, :func:`reliability_dist`, :func:`effectiveness_dist`.

Numerics
--------
:math:`P(A) = \int \phi(x - \mu)\, \Phi(x)^K \, dx` has a log-concave integrand (log phi and log Phi are both
concave), so :func:`reliability` finds its mode by safeguarded Newton, brackets the region
where the log-integrand is within 46 nats (e^-46 ~ 1e-20) of its maximum, and integrates there
with composite 16-point Gauss-Legendre panels sized by the local curvature. The integrand is
carried in log space, so the result keeps *relative* accuracy even when it is tiny
(mu = -10, K = 1e6 gives ~1e-40).

Because v is linear in P(B) (README, "Notes on the sources (errata)"), the trajectory average needs only the average
of P(B) over t, one quadrature in t (Gauss-Legendre panels of at most 0.5 in t + mu'(t)).
For whole curves K = 1..k_max (:func:`effectiveness_curve`, :func:`optimal_k`) all K share one
x-grid and Phi(x)^K is built by repeated multiplication, one multiply per node and K.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numba
import numpy as np
from scipy.special import ndtr, ndtri

from ._docstrings import docstring
from ._numeric import _log_ndtr, _mills_lower, _ndtri, _norm_pdf, gauss_legendre
from ._validation import (
    _show,
    as_generator,
    broadcast,
    check_frozen_continuous,
    int_scalar,
    real_array,
    real_scalar,
    scalar_or_array,
    size_arg,
)

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatArray, FloatOrArray, FrozenDist, IntOrArray, RNGLike, Size

__all__ = [
    "reliability",
    "auc_from_mu",
    "mu_from_auc",
    "sample_fractions",
    "effectiveness",
    "overall_effectiveness",
    "effectiveness_curve",
    "optimal_k",
    "optimal_k_from_auc",
    "ans_schedule",
    "draw_negative_counts",
    "reliability_dist",
    "effectiveness_dist",
]

# the head of the Returns most functions share, written once (see negtheory._docstrings)
_doc = docstring(
    float_returns="""
        Returns
        -------
        float or ndarray""",
)

# Largest label-quality mean accepted by the trajectory functions. AUC(20) = 1 - 1e-45: the
# labels are perfect in double precision, and the t-quadrature cost grows with mu_q.
MU_LABEL_MAX = 20.0

_GL16_X, _GL16_W = gauss_legendre(16)
_GL8_X, _GL8_W = gauss_legendre(8)
_GL10_X, _GL10_W = gauss_legendre(10)

# log-integrand drop (nats) at which the integration range is cut: e^-46 ~ 1e-20 relative.
_DROP = 46.0


# --------------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _logf(x, mu, k):
    # log of phi(x - mu) Phi(x)^k without the constant -log sqrt(2 pi)
    d = x - mu
    return -0.5 * d * d + k * _log_ndtr(x)


@numba.njit(cache=True, nogil=True)
def _dlogf(x, mu, k):
    return -(x - mu) + k * _mills_lower(x)


@numba.njit(cache=True, nogil=True)
def _d2logf(x, mu, k):
    # d/dx [phi/Phi] = -(phi/Phi) (x + phi/Phi)
    h = _mills_lower(x)
    return -1.0 - k * h * (x + h)


@numba.njit(cache=True, nogil=True)
def _integration_end(x0, f0, sigma, direction, mu, k):
    """Point on one side of the mode where the log-integrand has dropped by at least _DROP."""
    s = sigma
    while f0 - _logf(x0 + direction * s, mu, k) < _DROP:
        s *= 2.0
    lo = 0.5 * s
    hi = s
    for _ in range(12):  # bisection to ~s/4096: avoids integrating empty tails
        mid = 0.5 * (lo + hi)
        if f0 - _logf(x0 + direction * mid, mu, k) < _DROP:
            lo = mid
        else:
            hi = mid
    return x0 + direction * hi


@numba.njit(cache=True, nogil=True)
def _panel_sum(a, b, mu, k, f0, gx, gw):
    half = 0.5 * (b - a)
    mid = 0.5 * (b + a)
    s = 0.0
    for j in range(gx.size):
        x = mid + half * gx[j]
        s += gw[j] * math.exp(_logf(x, mu, k) - f0)
    return s * half


_MU_FAR = 60.0


@numba.njit(cache=True, nogil=True)
def _log_reliability(mu, k, gx, gw):
    """log P(A) = log int phi(x - mu) Phi(x)^k dx (eq. 3 of Wu et al., Rethinking InfoNCE) for real k >= 1."""
    # Far tails, where the result is exact in double precision (and the panels below would make
    # no progress once ulp(x) > 1): 1 - P(A) <= K Phi(-mu / sqrt 2) < 1e-80 for mu >= 60 and any
    # finite K, and P(A) <= P(A | K = 1) = Phi(mu / sqrt 2) < 1e-390 for mu <= -60.
    if mu >= _MU_FAR:
        return 0.0
    if mu <= -_MU_FAR:
        return -math.inf
    # 1. mode of the (log-concave) integrand: dlogf is decreasing, dlogf(mu) > 0.
    lo = mu
    step = 1.0
    hi = mu + step
    while _dlogf(hi, mu, k) > 0.0:
        lo = hi
        step *= 2.0
        hi = mu + step
    x = 0.5 * (lo + hi)
    for it in range(200):
        g = _dlogf(x, mu, k)
        if g > 0.0:
            lo = x
        else:
            hi = x
        xn = x - g / _d2logf(x, mu, k)
        # safeguard: bisect when Newton leaves the bracket, and every 4th step (for huge K the
        # log-integrand is so steep that Newton creeps in steps of ~1/x from one side)
        if not (lo < xn < hi) or it % 4 == 3:
            xn = 0.5 * (lo + hi)
        if abs(xn - x) <= 1e-14 * (1.0 + abs(x)) or hi - lo <= 1e-15 * (1.0 + abs(x)):
            x = xn
            break
        x = xn
    f0 = _logf(x, mu, k)
    sigma = 1.0 / math.sqrt(-_d2logf(x, mu, k))
    left = _integration_end(x, f0, sigma, -1.0, mu, k)
    right = _integration_end(x, f0, sigma, 1.0, mu, k)
    # 2. composite Gauss-Legendre, panel width = local curvature scale at the panel's inner end
    total = 0.0
    for direction in (-1.0, 1.0):
        end = left if direction < 0 else right
        a = x
        while (end - a) * direction > 0.0:
            w = 1.0 / math.sqrt(-_d2logf(a, mu, k))
            if w > 1.0:
                w = 1.0
            b = a + direction * w
            if (b - end) * direction > 0.0:
                b = end
            if direction > 0:
                total += _panel_sum(a, b, mu, k, f0, gx, gw)
            else:
                total += _panel_sum(b, a, mu, k, f0, gx, gw)
            a = b
    return f0 + math.log(total) - 0.5 * math.log(2.0 * math.pi)


@numba.njit(cache=True, parallel=True)
def _reliability_vec(mu, k, gx, gw, out):
    for i in numba.prange(mu.size):
        out[i] = math.exp(_log_reliability(mu[i], k[i], gx, gw))


#: above this many steps, the discrete average's nodes are compressed (see :func:`_compressed_discrete_nodes`)
_COMPRESS_STEPS = 4096
#: Chebyshev points per panel of the compressed rule, and the panels' width in mu'
_CHEB_N = 16
_CHEB_WIDTH = 0.5


@numba.njit(cache=True, nogil=True)
def _compressed_discrete_nodes(mu_q, t_max, steps):
    """The discrete average over ``steps`` equally spaced t, as a rule on at most 16 points per 0.5 of mu'.

    The average (1/T) sum_i f(mu'(t_i)) of a smooth f equals sum_m W_m f(c_m), where the c_m are
    Chebyshev points on panels of width <= 0.5 covering the range of mu' and W_m = (1/T) sum_i L_m(mu'(t_i))
    accumulates each node's Lagrange weights (barycentric form). Exact for piecewise polynomials of
    degree 15; for f(mu) = P(B; mu), a convolution with the unit normal density, the interpolation error
    is below 1e-15. Costs O(T) arithmetic and O(range / 0.5 * 16) evaluations of f, instead of T.
    """
    end = mu_q * (1.0 - math.exp(-t_max))
    lo = min(0.0, end)
    span = abs(end)
    if span == 0.0:
        return np.zeros(1), np.ones(1)
    n = _CHEB_N
    n_pan = max(1, int(math.ceil(span / _CHEB_WIDTH)))
    width = span / n_pan
    c = np.empty(n)
    lam = np.empty(n)
    for m in range(n):
        ang = (2 * m + 1) * math.pi / (2 * n)
        c[m] = math.cos(ang)
        lam[m] = (-1.0) ** m * math.sin(ang)
    nodes = np.empty(n_pan * n)
    weights = np.zeros(n_pan * n)
    for p in range(n_pan):
        for m in range(n):
            nodes[p * n + m] = lo + width * (p + 0.5 * (1.0 + c[m]))
    share = 1.0 / steps
    tmp = np.empty(n)
    for i in range(steps):
        t = t_max * i / (steps - 1)
        x = mu_q * (1.0 - math.exp(-t))
        p = min(max(int((x - lo) / width), 0), n_pan - 1)
        s = 2.0 * (x - lo - p * width) / width - 1.0
        hit = -1
        denom = 0.0
        for m in range(n):
            d = s - c[m]
            if d == 0.0:
                hit = m
                break
            tmp[m] = lam[m] / d
            denom += tmp[m]
        if hit >= 0:
            weights[p * n + hit] += share
        else:
            for m in range(n):
                weights[p * n + m] += share * tmp[m] / denom
    return nodes, weights


@numba.njit(cache=True, nogil=True)
def _trajectory_nodes(mu_q, t_max, steps, gx, gw):
    """Nodes mu'_j and weights w_j with sum_j w_j f(mu'_j) ~ (1/t_max) int_0^t_max f(mu'(t)) dt.

    steps > 0: the paper's discrete average over ``steps`` equally spaced t in [0, t_max]
    (both ends included, as ``numpy.linspace``); above ``_COMPRESS_STEPS`` steps the nodes are
    compressed onto Chebyshev panels (:func:`_compressed_discrete_nodes`), so the cost stays bounded
    in ``steps``. steps == 0: the continuous average by Gauss-Legendre panels of equal length in
    u(t) = t + |mu_q| (1 - e^{-t}), so each panel spans at most 0.5 in t and in mu'.
    """
    if steps > _COMPRESS_STEPS:
        return _compressed_discrete_nodes(mu_q, t_max, steps)
    if steps > 0:
        nodes = np.empty(steps)
        weights = np.full(steps, 1.0 / steps)
        for i in range(steps):
            t = t_max * i / (steps - 1) if steps > 1 else 0.0
            nodes[i] = mu_q * (1.0 - math.exp(-t))
        return nodes, weights
    m = abs(mu_q)
    u_end = t_max + m * (1.0 - math.exp(-t_max))
    n_pan = max(1, int(math.ceil(u_end / 0.5)))
    nodes = np.empty(n_pan * gx.size)
    weights = np.empty(n_pan * gx.size)
    t_a = 0.0
    for p in range(n_pan):
        u_b = u_end * (p + 1) / n_pan
        # invert the increasing concave u(t) by Newton from the left (monotone convergence)
        t_b = t_a
        if p == n_pan - 1:
            t_b = t_max
        else:
            for _ in range(100):
                r = t_b + m * (1.0 - math.exp(-t_b)) - u_b
                dt = r / (1.0 + m * math.exp(-t_b))
                t_b -= dt
                if abs(dt) <= 1e-15 * (1.0 + t_b):
                    break
        half = 0.5 * (t_b - t_a)
        mid = 0.5 * (t_b + t_a)
        for j in range(gx.size):
            t = mid + half * gx[j]
            nodes[p * gx.size + j] = mu_q * (1.0 - math.exp(-t))
            weights[p * gx.size + j] = gw[j] * half / t_max
        t_a = t_b
    return nodes, weights


@numba.njit(cache=True, parallel=True)
def _overall_vec(k, mu_q, lam, t_max, steps, gx, gw, tx, tw, out_v):
    for i in numba.prange(k.size):
        a = math.exp(_log_reliability(mu_q[i], k[i], gx, gw))
        nodes, weights = _trajectory_nodes(mu_q[i], t_max[i], steps, tx, tw)
        b = 0.0
        for j in range(nodes.size):
            b += weights[j] * math.exp(_log_reliability(nodes[j], k[i], gx, gw))
        out_v[i] = _v_from_ab(a, b, lam[i])


@numba.njit(cache=True, nogil=True)
def _v_from_ab(a, b, lam):
    # eq. 5-6: good = a(1-b), bad = b(1-a), easy = 1 - good - bad;
    # v = lam (good - bad) + (1 - lam) easy = lam a + (1-lam)(1-a) + b (2 a (1-lam) - 1)
    good = a * (1.0 - b)
    bad = b * (1.0 - a)
    return lam * (good - bad) + (1.0 - lam) * (1.0 - good - bad)


@numba.njit(cache=True, parallel=True)
def _curves_kernel(mus, k_max, t_max, steps, gx, gw, tx, tw, out_a, out_b):
    """P(A)(K) and trajectory-averaged P(B)(K) for K = 1..k_max on one shared x-grid per mu_q.

    The x-grid is composite Gauss-Legendre (panels of 0.2) on [min(mu,0) - 9.5,
    max(mu, x_K) + 9.5], x_K = Phi^{-1}(1 - 1/(k_max+1)) the location of the largest-K
    integrand; Phi(x)^K is updated by one multiplication per node and K.
    """
    x_k = _ndtri(1.0 - 1.0 / (k_max + 1.0))
    for m in numba.prange(mus.size):
        mu = mus[m]
        lo = min(mu, 0.0) - 9.5
        hi = max(mu, x_k) + 9.5
        n_pan = int(math.ceil((hi - lo) / 0.2))
        width = (hi - lo) / n_pan
        n = n_pan * gx.size
        xs = np.empty(n)
        wa = np.empty(n)
        wb = np.zeros(n)
        phi_x = np.empty(n)
        nodes, weights = _trajectory_nodes(mu, t_max, steps, tx, tw)
        for p in range(n_pan):
            mid = lo + (p + 0.5) * width
            for j in range(gx.size):
                i = p * gx.size + j
                x = mid + 0.5 * width * gx[j]
                xs[i] = x
                w = 0.5 * width * gw[j]
                wa[i] = w * _norm_pdf(x - mu)
                s = 0.0
                for q in range(nodes.size):
                    s += weights[q] * _norm_pdf(x - nodes[q])
                wb[i] = w * s
                phi_x[i] = 0.5 * math.erfc(-x / math.sqrt(2.0))
        power = np.ones(n)
        first = 0  # nodes left of `first` have Phi(x)^K < 1e-30 and stay so as K grows
        for kk in range(k_max):
            sa = 0.0
            sb = 0.0
            for i in range(first, n):
                power[i] *= phi_x[i]
                sa += wa[i] * power[i]
                sb += wb[i] * power[i]
            while first < n - 1 and power[first] < 1e-30:
                first += 1
            out_a[m, kk] = sa
            out_b[m, kk] = sb


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------
def _k_array(k):
    return real_array("k", k, 1.0)


@_doc
def reliability(mu: ArrayLike, k: ArrayLike) -> FloatOrArray:
    r"""Reliability of a training sample with K negatives (Wu et al., Rethinking InfoNCE, eq. 3-4).

    .. math:: P(A) = \int_{-\infty}^{\infty} \phi(x - \mu)\, \Phi(x)^K \, dx,

    the probability that a positive score drawn from N(mu, 1) exceeds the largest of K
    independent N(0, 1) negative scores. With ``mu = mu_q`` this is the label reliability P(A)
    (eq. 3); with ``mu = mu'`` the prediction reliability P(B) (eq. 4).

    Parameters
    ----------
    mu : array_like of float
        Mean of the positive score law (any finite real).
    k : array_like of float
        Number of negatives K >= 1; real values allowed (the integral is defined for real K).

    %(float_returns)s
        P(A), broadcast over ``mu`` and ``k``. Accurate to 1e-10 absolute, and relative where
        the value is tiny, for :math:`1 \le K \le 10^6` and :math:`|\mu| \le 10` (checked against
        ``scipy.integrate.quad`` in the tests).

    Notes
    -----
    K = 1 gives the AUC, :math:`\Phi(\mu / \sqrt 2)` (eq. 7); mu = 0 gives 1 / (K + 1) by symmetry.

    Examples
    --------
    >>> from negtheory.infonce import reliability, auc_from_mu
    >>> round(float(reliability(0.0, 4)), 12)
    0.2
    >>> reliability([0.0, 1.0, 2.4], 20).round(4)
    array([0.0476, 0.2218, 0.684 ])
    >>> float(reliability(1.0, 1)) == float(auc_from_mu(1.0))   # K = 1: Phi(mu / sqrt 2)
    True
    """
    mu_a = real_array("mu", mu)
    k_a = _k_array(k)
    mu_b, k_b = broadcast(mu=mu_a, k=k_a)
    out = np.empty(mu_b.shape)
    _reliability_vec(
        np.ascontiguousarray(mu_b).ravel(),
        np.ascontiguousarray(k_b).ravel(),
        _GL16_X,
        _GL16_W,
        out.reshape(-1),
    )
    return scalar_or_array(out)


@_doc
def auc_from_mu(mu: ArrayLike) -> FloatOrArray:
    r"""Training AUC at K = 1 for q = N(mu, 1), p = N(0, 1) (Wu et al., Rethinking InfoNCE, eq. 7).

    Eq. 7 of the paper,

    .. math::
        \mathrm{AUC} = \int_{-\infty}^{\infty} \phi(x - \mu)\, \Phi(x) \, dx
        = \Phi\!\left(\frac{\mu}{\sqrt 2}\right),

    is P(X > Y) for X ~ N(mu, 1), Y ~ N(0, 1); X - Y ~ N(mu, 2), hence the closed form on the
    right (the paper's footnote 5 says there is none). ``reliability(mu, 1)`` evaluates the
    integral numerically and agrees to 1e-12.

    Parameters
    ----------
    mu : array_like of float
        Mean :math:`\mu_q` of the positive score law :math:`N(\mu_q, 1)` (any real; 0 gives AUC 0.5).

    %(float_returns)s
        The AUC in [0, 1], with the shape of ``mu``.

    Examples
    --------
    >>> from negtheory.infonce import auc_from_mu
    >>> round(float(auc_from_mu(2.4)), 4)
    0.9552
    """
    mu_a = real_array("mu", mu)
    return scalar_or_array(np.asarray(ndtr(mu_a / math.sqrt(2.0))))


@_doc
def mu_from_auc(auc: ArrayLike) -> FloatOrArray:
    r"""Invert eq. 7 of Wu et al. (Rethinking InfoNCE): the label-quality mean mu_q from an AUC.

    .. math:: \mu_q = \sqrt{2}\, \Phi^{-1}(\mathrm{AUC}).

    Parameters
    ----------
    auc : array_like of float
        Training AUC at K = 1, in the open interval (0, 1) (0.5 gives :math:`\mu_q = 0`).

    %(float_returns)s
        :math:`\mu_q`, with the shape of ``auc``; the inverse of :func:`auc_from_mu`.

    Examples
    --------
    >>> from negtheory.infonce import mu_from_auc
    >>> round(float(mu_from_auc(0.75)), 4)
    0.9539
    """
    auc_a = real_array("auc", auc, 0.0, 1.0, lo_open=True, hi_open=True)
    return scalar_or_array(np.asarray(math.sqrt(2.0) * ndtri(auc_a)))


def _lam_array(lam):
    return real_array("lam", lam, 0.0, 1.0)


def sample_fractions(
    k: ArrayLike, mu_label: ArrayLike, mu_pred: ArrayLike
) -> tuple[FloatOrArray, FloatOrArray, FloatOrArray]:
    r"""Fractions of good, bad and easy training samples (Wu et al., Rethinking InfoNCE, eq. 5 divided by N).

    .. math::
        \frac{\lvert\mathcal{G}\rvert}{N} = P(A)\,[1 - P(B)], \quad
        \frac{\lvert\mathcal{B}\rvert}{N} = P(B)\,[1 - P(A)], \quad
        \frac{\lvert\mathcal{E}\rvert}{N}
        = 1 - \frac{\lvert\mathcal{G}\rvert}{N} - \frac{\lvert\mathcal{B}\rvert}{N},

    with P(A) = ``reliability(mu_label, k)`` and P(B) = ``reliability(mu_pred, k)`` (events A and
    B independent, as the paper assumes).

    Parameters
    ----------
    k : array_like
        Negative sampling ratio K >= 1.
    mu_label : array_like
        Mean :math:`\mu_q` of the real positive score law :math:`q = N(\mu_q, 1)`.
    mu_pred : array_like
        Mean :math:`\mu'` of the predicted positive score law :math:`q' = N(\mu', 1)`.

    Returns
    -------
    (good, bad, easy) : tuple of float or ndarray
        Broadcast over the arguments; they sum to 1.

    Examples
    --------
    >>> from negtheory.infonce import sample_fractions
    >>> good, bad, easy = sample_fractions(4, 1.0, 0.5)
    >>> round(float(good + bad + easy), 12)
    1.0
    """
    k_a = _k_array(k)
    k_a, mu_l, mu_p = broadcast(
        k=k_a, mu_label=real_array("mu_label", mu_label), mu_pred=real_array("mu_pred", mu_pred)
    )
    a = np.asarray(reliability(mu_l, k_a))
    b = np.asarray(reliability(mu_p, k_a))
    good = a * (1.0 - b)
    bad = b * (1.0 - a)
    easy = 1.0 - good - bad
    return scalar_or_array(good), scalar_or_array(bad), scalar_or_array(easy)


@_doc
def effectiveness(
    k: ArrayLike, mu_label: ArrayLike, mu_pred: ArrayLike, lam: ArrayLike = 0.9
) -> FloatOrArray:
    r"""Training effectiveness v at one training stage (Wu et al., Rethinking InfoNCE, eq. 6).

    .. math::
        v = \frac{1}{N}\left[\lambda\,(\lvert\mathcal{G}\rvert - \lvert\mathcal{B}\rvert)
        + (1 - \lambda)\,\lvert\mathcal{E}\rvert\right],

    with the sample counts of eq. 5 (:func:`sample_fractions`).

    Parameters
    ----------
    k, mu_label, mu_pred : array_like
        As in :func:`sample_fractions`.
    lam : array_like, default 0.9
        Relative weight :math:`\lambda \in [0, 1]` of good/bad against easy samples (the paper's 0.9).

    %(float_returns)s
        :math:`v \in [-\lambda, \max(\lambda, 1 - \lambda)]`, broadcast over ``k``, ``mu_label``, ``mu_pred`` and ``lam``.

    Examples
    --------
    >>> from negtheory.infonce import effectiveness
    >>> v = effectiveness([1, 2, 4, 20], 1.0, 0.5)     # early in training (mu' = mu_q / 2)
    >>> v.round(4)
    array([0.1671, 0.1855, 0.1935, 0.1704])
    """
    lam_a = _lam_array(lam)
    good, bad, easy = (np.asarray(f) for f in sample_fractions(k, mu_label, mu_pred))
    lam_a, good, bad, easy = broadcast(lam=lam_a, **{"k, mu_label, mu_pred": good}, _b=bad, _e=easy)
    return scalar_or_array(np.asarray(lam_a * (good - bad) + (1.0 - lam_a) * easy))


#: largest ``steps`` of the discrete average: its cost is O(steps) arithmetic (about 1 s at 10^8), and beyond,
#: the discrete average differs from the continuous one (``steps=None``) by O(1 / steps) only
STEPS_MAX = 10**8


def _steps_arg(steps) -> int:
    if steps is None:
        return 0
    return int_scalar("steps", steps, 1, STEPS_MAX)


@_doc
def overall_effectiveness(
    k: ArrayLike,
    mu_label: ArrayLike,
    lam: ArrayLike = 0.9,
    t_max: ArrayLike = 3.0,
    steps: int | None = None,
) -> FloatOrArray:
    r"""Training effectiveness averaged over the simulated training curve (Wu et al., Rethinking InfoNCE, §3 end, §4.3).

    The model's positive mean follows :math:`\mu'(t) = \mu_q (1 - e^{-t})`, t in [0, t_max];
    v(t) is eq. 6 with P(B) = P(B; mu'(t)). Since v is linear in P(B),

    .. math:: \bar v = \lambda a + (1-\lambda)(1-a) + \bar b\,(2a(1-\lambda) - 1),
        \quad a = P(A), \quad \bar b = \frac{1}{t_{max}}\int_0^{t_{max}} P(B; \mu'(t))\,dt.

    Parameters
    ----------
    k : array_like
        Negative ratio K >= 1 (real allowed).
    mu_label : array_like
        :math:`\mu_q \in [0, 20]` (:math:`\mu_q < 0` would mean labels anti-correlated with the truth).
    lam : array_like, default 0.9
        :math:`\lambda \in [0, 1]`.
    t_max : array_like, default 3.0
        Length of the training curve, > 0 (the paper uses 3).
    steps : int, optional
        ``None`` (default): the continuous average, by Gauss-Legendre quadrature in t
        (accurate to ~1e-12). An integer T: the paper's discrete average (1/T) sum_i v_i over T
        equally spaced t_i = linspace(0, t_max, T), ends included, :math:`1 \le T \le 10^8` (above 4096 steps
        the nodes are compressed onto Chebyshev panels, so the cost grows by a few arithmetic
        operations per step, not by one integral per step). This averaging reproduces
        the paper's reported K* = 4 at training AUC 0.75; the continuous average gives 5 there
        (v is flat between K = 4 and 5, see :func:`optimal_k`).

    %(float_returns)s
        v-bar, broadcast over ``k``, ``mu_label``, ``lam`` and ``t_max``.

    Examples
    --------
    >>> from negtheory.infonce import overall_effectiveness
    >>> v = overall_effectiveness([1, 2, 4, 5, 8], 0.954)
    >>> int([1, 2, 4, 5, 8][v.argmax()])
    5
    """
    k_a = _k_array(k)
    mu_a = real_array("mu_label", mu_label, 0.0, MU_LABEL_MAX)
    lam_a = _lam_array(lam)
    t_a = real_array("t_max", t_max, 0.0, lo_open=True)
    n_steps = _steps_arg(steps)
    arrs = broadcast(k=k_a, mu_label=mu_a, lam=lam_a, t_max=t_a)
    shape = arrs[0].shape
    flat = [np.ascontiguousarray(x, dtype=np.float64).ravel() for x in arrs]
    v = np.empty(flat[0].size)
    _overall_vec(*flat, n_steps, _GL16_X, _GL16_W, _GL8_X, _GL8_W, v)
    return scalar_or_array(v.reshape(shape))


def _curves(mus: np.ndarray, k_max: int, t_max: float, steps: int):
    mus = np.ascontiguousarray(mus, dtype=np.float64).ravel()
    a = np.empty((mus.size, k_max))
    b = np.empty((mus.size, k_max))
    _curves_kernel(mus, k_max, t_max, steps, _GL10_X, _GL10_W, _GL8_X, _GL8_W, a, b)
    return a, b


def effectiveness_curve(
    mu_label: ArrayLike,
    lam: ArrayLike = 0.9,
    k_max: int = 1000,
    t_max: float = 3.0,
    steps: int | None = None,
) -> FloatArray:
    r"""Trajectory-averaged effectiveness v-bar(K) for every integer K = 1..k_max at once.

    Same quantity as :func:`overall_effectiveness` (Wu et al., Rethinking InfoNCE, eq. 6 averaged over §4.3's
    training curve), computed on one shared x-grid for all K (Phi(x)^K by repeated
    multiplication), which makes whole curves ~100x cheaper than K separate integrals.

    Parameters
    ----------
    mu_label : array_like
        :math:`\mu_q \in [0, 20]`.
    lam : array_like, default 0.9
        :math:`\lambda \in [0, 1]`; broadcast against ``mu_label``.
    k_max : int, default 1000
        Largest K, 1 <= k_max <= :math:`10^6`.
    t_max : float, default 3.0
        Length of the training curve, > 0.
    steps : int, optional
        ``None`` for the continuous average, an integer T in [1, :math:`10^8`] for the paper's discrete average.

    Returns
    -------
    ndarray
        Shape ``broadcast(mu_label, lam).shape + (k_max,)``; entry [..., K-1] is v-bar(K).

    Examples
    --------
    >>> from negtheory.infonce import effectiveness_curve
    >>> v = effectiveness_curve(2.4, k_max=100)
    >>> int(v.argmax()) + 1
    21
    """
    mu_a = real_array("mu_label", mu_label, 0.0, MU_LABEL_MAX)
    lam_a = _lam_array(lam)
    k_max = int_scalar("k_max", k_max, 1, 10**6)
    t_max = real_scalar("t_max", t_max, 0.0, lo_open=True)
    n_steps = _steps_arg(steps)
    mu_b, lam_b = broadcast(mu_label=mu_a, lam=lam_a)
    uniq, inverse = np.unique(mu_b, return_inverse=True)
    a, b = _curves(uniq, k_max, t_max, n_steps)
    a = a[inverse.reshape(mu_b.shape)]
    b = b[inverse.reshape(mu_b.shape)]
    lam_e = lam_b[..., None]
    return lam_e * a + (1.0 - lam_e) * (1.0 - a) + b * (2.0 * a * (1.0 - lam_e) - 1.0)


def optimal_k(
    mu_label: ArrayLike,
    lam: ArrayLike = 0.9,
    k_max: int = 1000,
    t_max: float = 3.0,
    steps: int | None = None,
) -> IntOrArray:
    r"""Optimal negative sampling ratio K* (Wu et al., Rethinking InfoNCE, §3, §4.3).

    .. math:: K^* = \arg\max_{K = 1, \dots, k_{max}} \bar v(K),

    with v-bar the trajectory-averaged effectiveness of :func:`effectiveness_curve`.

    Parameters
    ----------
    mu_label : array_like
        Label quality :math:`\mu_q \in [0, 20]` (see :func:`mu_from_auc`).
    lam : array_like, default 0.9
        :math:`\lambda \in [0, 1]`.
    k_max : int, default 1000
        Largest K searched; K* = k_max means "at least k_max".
    t_max : float, default 3.0
        Length of the simulated training curve.
    steps : int, optional
        ``None``: continuous average; T in [1, :math:`10^8`]: the paper's discrete average over T steps.

    Returns
    -------
    int or ndarray of int
        K*, broadcast over ``mu_label`` and ``lam``.

    Notes
    -----
    Around training AUC 0.75 (mu_q ~ 0.95-1.0) v-bar is almost flat between K = 4 and K = 5
    (they differ by ~1e-5 of v), so the argmax depends on how the trajectory is averaged: the
    paper's discrete average over 100 steps gives 4 (the value the paper reports), the
    continuous average gives 5. At AUC 0.95 (mu_q = 2.4) the discrete average gives 20 and the
    continuous one 21 (the paper: "about 20"). K* grows without bound as mu_q -> 0 (Fig. 4's
    left branch: at mu_q = 0, v-bar increases with K) and again for large mu_q.

    Examples
    --------
    >>> from negtheory.infonce import optimal_k, mu_from_auc
    >>> int(optimal_k(mu_from_auc(0.75), steps=100)), int(optimal_k(mu_from_auc(0.75)))
    (4, 5)
    """
    v = effectiveness_curve(mu_label, lam, k_max, t_max, steps)
    kstar = np.argmax(v, axis=-1) + 1
    return scalar_or_array(np.asarray(kstar, dtype=np.int64))


def optimal_k_from_auc(
    train_auc: ArrayLike,
    lam: ArrayLike = 0.9,
    k_max: int = 1000,
    t_max: float = 3.0,
    steps: int | None = None,
) -> IntOrArray:
    r"""Optimal K* from the training AUC at K = 1 (Wu et al., Rethinking InfoNCE, eq. 7 then §4.3).

    :func:`optimal_k` at mu_q = :func:`mu_from_auc` (train_auc) (the paper reads the AUC off the
    training curve under K = 1 before overfitting, footnote 4).

    Parameters
    ----------
    train_auc : array_like
        Training AUC at K = 1, in [0.5, 1); an AUC so close to 1 that :math:`\mu_q > 20` is rejected.
    lam : array_like, default 0.9
        :math:`\lambda \in [0, 1]`, the weight of good/bad against easy samples (eq. 6).
    k_max : int, default 1000
        Largest K searched, 1 <= k_max <= :math:`10^6`; K* = k_max means "at least k_max".
    t_max : float, default 3.0
        Length of the simulated training curve, > 0 (the paper uses 3).
    steps : int, optional
        ``None`` (default): continuous average over the training curve; an integer T: the
        paper's discrete average over T equally spaced steps, :math:`1 \le T \le 10^8`.

    Returns
    -------
    int or ndarray of int
        K*, broadcast over ``train_auc`` and ``lam``.

    Examples
    --------
    >>> from negtheory.infonce import optimal_k_from_auc
    >>> int(optimal_k_from_auc(0.75, steps=100))
    4
    """
    auc_a = real_array("train_auc", train_auc, 0.5, 1.0, hi_open=True)
    mu = np.asarray(mu_from_auc(auc_a))
    if np.any(mu > MU_LABEL_MAX):
        raise ValueError(
            f"train_auc is too close to 1 (mu_q > {MU_LABEL_MAX}): labels are perfect in double precision"
        )
    return optimal_k(mu, lam, k_max, t_max, steps)


@_doc
def ans_schedule(
    step: ArrayLike, total_steps: int, k_opt: ArrayLike, warmup: ArrayLike = 0.1
) -> FloatOrArray:
    r"""Negative ratio K of adaptive negative sampling (ANS; Wu et al., Rethinking InfoNCE, §5, Fig. 6).

    K rises quickly from 1 to K* during the first ``warmup`` fraction of training, then declines
    slowly back to 1 at the last step. The shape chosen here is piecewise linear, like the
    learning-rate warm-up the paper cites (Goyal et al. 2017), with the turning point at
    ``warmup * total_steps`` (the paper's 10 %):

    .. math::
        K(s) = 1 + (K^* - 1)\,\frac{s}{w S} \quad (s \le wS), \qquad
        K(s) = K^* - (K^* - 1)\,\frac{s - wS}{S - wS} \quad (s > wS).

    The real-valued K is turned into an integer count per positive by
    :func:`draw_negative_counts` (eq. 8).

    Parameters
    ----------
    step : array_like
        Training step(s) s in [0, total_steps].
    total_steps : int
        Total number of steps S >= 1.
    k_opt : array_like
        Peak ratio K* >= 1 (e.g. from :func:`optimal_k`).
    warmup : array_like, default 0.1
        Fraction w in [0, 1] of the steps spent rising (0: start at K*; 1: rise only; the
        default 0.1 is the paper's turning point at 10 % of the steps).
        ``step``, ``k_opt`` and ``warmup`` broadcast against each other.

    %(float_returns)s
        The real-valued ratio K(s) in [1, K*], broadcast over ``step``, ``k_opt`` and ``warmup``.

    Examples
    --------
    >>> from negtheory.infonce import ans_schedule
    >>> ans_schedule([0, 100, 550, 1000], 1000, 5).tolist()
    [1.0, 5.0, 3.0, 1.0]
    """
    total = int_scalar("total_steps", total_steps, 1)
    s = real_array("step", step, 0.0, float(total))
    k_opt = real_array("k_opt", k_opt, 1.0)
    w = real_array("warmup", warmup, 0.0, 1.0)
    s, k_opt, w = broadcast(step=s, k_opt=k_opt, warmup=w)
    turn = w * total
    with np.errstate(divide="ignore", invalid="ignore"):
        rise = 1.0 + (k_opt - 1.0) * np.where(turn > 0, s / turn, 1.0)
        fall = k_opt - (k_opt - 1.0) * np.where(total > turn, (s - turn) / (total - turn), 0.0)
    out = np.where(s <= turn, rise, fall)
    return scalar_or_array(np.asarray(out, dtype=np.float64))


def draw_negative_counts(k: ArrayLike, size: Size = None, rng: RNGLike = None) -> IntOrArray:
    r"""Integer negative counts |N| for a real-valued ratio K (Wu et al., Rethinking InfoNCE, eq. 8).

    .. math::
        P(\lvert\mathcal{N}\rvert = \lfloor K \rfloor) = 1 - \{K\}, \qquad
        P(\lvert\mathcal{N}\rvert = \lfloor K \rfloor + 1) = \{K\},

    where :math:`\{K\} = K - \lfloor K \rfloor` is the fractional part,
    so that E|N| = K exactly.

    Parameters
    ----------
    k : array_like
        Real ratio(s) K >= 1.
    size : int or tuple of int, optional
        Output shape; must be broadcast-compatible with ``k`` (default: ``k``'s shape).
    rng : numpy.random.Generator, int or SeedSequence, optional
        Source of randomness (``None``: fresh OS entropy; an int or SeedSequence: reproducible).

    Returns
    -------
    int or ndarray of int64
        The counts, each floor(K) or floor(K) + 1, of shape ``size`` (or ``k``'s shape).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.infonce import draw_negative_counts
    >>> counts = draw_negative_counts(4.3, size=100_000, rng=0)
    >>> sorted(set(counts.tolist())), round(float(counts.mean()), 2)
    ([4, 5], 4.3)
    """
    k_a = _k_array(k)
    if (k_a >= _INT64_LIMIT).any():
        raise ValueError(f"k must be below 2**63 (counts are int64), got {_show(k)}")
    gen = as_generator(rng)
    size = size_arg("size", size)
    shape = k_a.shape if size is None else ((size,) if isinstance(size, int) else size)
    try:
        k_b = np.broadcast_to(k_a, shape)
    except ValueError as exc:
        raise ValueError(
            f"size {shape} is not broadcast-compatible with k of shape {k_a.shape}"
        ) from exc
    base = np.floor(k_b)
    frac = k_b - base
    out = base.astype(np.int64) + (gen.random(shape) < frac)
    return scalar_or_array(np.asarray(out, dtype=np.int64))


# --------------------------------------------------------------------------------------------
# arbitrary score laws (quadrature)
# --------------------------------------------------------------------------------------------
_INT64_LIMIT = 2.0**63


def _check_frozen(name, dist):
    from .distribution import ScoreDistribution

    if not isinstance(dist, ScoreDistribution):
        check_frozen_continuous(name, dist)


@_doc
def reliability_dist(
    k: ArrayLike, pos: FrozenDist, neg: FrozenDist, *, epsrel: float = 1e-10
) -> FloatOrArray:
    r"""P(positive score > max of K negative scores) for arbitrary score laws (Wu et al., Rethinking InfoNCE, eq. 3).

    .. math:: P = \int q(x)\, F_p(x)^K \, dx = \int_0^1 S_q\big(F_p^{-1}(w^{1/K})\big)\, dw,

    the second form (the max of K negatives is F_p^{-1}(U^{1/K})) has a bounded monotone
    integrand, which adaptive quadrature handles for any K; F_p^{-1}(w^{1/K}) is evaluated as
    ``ppf`` below the median and as ``isf(-expm1(log w / K))`` above it, keeping precision at
    both ends.

    Parameters
    ----------
    k : array_like
        K >= 1 (real allowed).
    pos, neg : frozen scipy.stats continuous distributions
        Positive-score law q and negative-score law p.
    epsrel : float, default 1e-10
        Relative tolerance (> 0) passed to ``scipy.integrate.quad``.

    %(float_returns)s
        The probability in [0, 1], with the shape of ``k``.

    Examples
    --------
    >>> from scipy import stats
    >>> from negtheory.infonce import reliability_dist
    >>> round(float(reliability_dist(4, stats.expon(), stats.expon())), 10)   # = 1/(K+1)
    0.2
    """
    from scipy import integrate

    _check_frozen("pos", pos)
    _check_frozen("neg", neg)
    k_a = _k_array(k)
    epsrel = real_scalar("epsrel", epsrel, 0.0, lo_open=True)

    def one(kk):
        def integrand(w):
            if w <= 0.0:  # never evaluated by QUADPACK (interior nodes only); the limit value
                return float(pos.sf(neg.ppf(0.0)))
            u = math.exp(math.log(w) / kk)  # w^{1/K}: the CDF value of the largest negative
            # ppf keeps precision for small u, isf of -expm1(.) = 1 - u for u near 1
            x = neg.ppf(u) if u < 0.5 else neg.isf(-math.expm1(math.log(w) / kk))
            return float(pos.sf(x))

        val, _ = integrate.quad(integrand, 0.0, 1.0, epsabs=0.0, epsrel=epsrel, limit=400)
        return val

    out = np.vectorize(one, otypes=[float])(k_a)
    return scalar_or_array(np.asarray(out))


@_doc
def effectiveness_dist(
    k: ArrayLike,
    pos: FrozenDist,
    neg: FrozenDist,
    pos_pred: FrozenDist,
    neg_pred: FrozenDist,
    lam: float = 0.9,
) -> FloatOrArray:
    r"""Training effectiveness v (Wu et al., Rethinking InfoNCE, eq. 5-6) for arbitrary score laws.

    P(A) = :func:`reliability_dist` (k, pos, neg) for the real laws q, p and P(B) likewise for
    the predicted laws q', p'; then (eq. 6)

    .. math::
        v = \lambda\,\big(P(A)[1 - P(B)] - P(B)[1 - P(A)]\big)
        + (1 - \lambda)\,\big(1 - P(A)[1 - P(B)] - P(B)[1 - P(A)]\big).

    Parameters
    ----------
    k : array_like
        Negative sampling ratio K >= 1 (real allowed).
    pos, neg : frozen scipy.stats continuous distributions
        Real (label) score laws of the positives, q, and of the negatives, p.
    pos_pred, neg_pred : frozen scipy.stats continuous distributions
        Predicted (model) score laws of the positives, q', and of the negatives, p'.
    lam : float, default 0.9
        Weight :math:`\lambda \in [0, 1]` of good/bad against easy samples (the paper's 0.9).

    %(float_returns)s
        v, with the shape of ``k``.

    Examples
    --------
    >>> from scipy import stats
    >>> from negtheory.infonce import effectiveness_dist, effectiveness
    >>> v1 = effectiveness_dist(4, stats.norm(1), stats.norm(), stats.norm(0.5), stats.norm())
    >>> abs(float(v1) - float(effectiveness(4, 1.0, 0.5))) < 1e-9
    True
    """
    for name, dist in (("pos", pos), ("neg", neg), ("pos_pred", pos_pred), ("neg_pred", neg_pred)):
        _check_frozen(
            name, dist
        )  # here, so that errors name the parameter as the caller spelled it
    lam_a = _lam_array(lam)
    a = np.asarray(reliability_dist(k, pos, neg))
    b = np.asarray(reliability_dist(k, pos_pred, neg_pred))
    out = lam_a * (a * (1 - b) - b * (1 - a)) + (1 - lam_a) * (1 - a * (1 - b) - b * (1 - a))
    return scalar_or_array(np.asarray(out))
