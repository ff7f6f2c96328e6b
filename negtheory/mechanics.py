r"""Textbook mechanics of negative sampling (seed 001, "Principles and Mechanisms").

Seed 001 lost its "<" signs in extraction (README, "Notes on the sources (errata)"): read "beta < alpha",
"alpha < 1" and "d(a,p) < d(a,n) < d(a,p) + m".

* Learning by discrimination: the NCE population objective, its sample version and its
  maximiser, :func:`nce_objective`, :func:`nce_sample_objective`, :func:`nce_optimal_score`.
* InfoNCE with temperature, :func:`infonce_loss`; the effective margin
  m_eff = beta + tau ln K, :func:`effective_margin`, and the exact loss against its hinge
  approximation, :func:`hinge_comparison`.
* Number of negatives: coverage 1 - (1 - rho)^K, :func:`coverage_probability`, and
  k_min = ceil(ln(1 - q) / ln(1 - rho)), :func:`k_min`.
* Temperature and hardness: :func:`softmax_entropy`, dH/dtau = Var_p(s) / tau^3,
  :func:`entropy_temperature_derivative`, the temperature that gives a target entropy,
  :func:`temperature_for_entropy`, and an adaptive controller that keeps the entropy in a band,
  :class:`EntropyTemperatureController`.
* Mining: random, hard and semi-hard selection from anchor-positive and anchor-negative
  distances, :func:`mine_negatives`, :func:`semi_hard_mask`, :func:`triplet_loss`.
* False negatives: temporal exclusion window under p_same(D) = exp(-D / lambda),
  :func:`expected_false_negatives`, :func:`min_exclusion_window`.
* In-batch (per-example) vs shared-pool negatives: memory and dot-product costs,
  :func:`negative_costs`, and the chance that a set of negatives holds a hard one,
  :func:`hard_negative_probability`.

The proposal distributions and samplers of the same chapter are in :mod:`negtheory.sampling`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln, logsumexp

from ._validation import (
    as_float_array,
    as_generator,
    check_range,
    int_scalar,
    real_array,
    real_scalar,
    scalar_or_array,
)

__all__ = [
    "nce_objective",
    "nce_sample_objective",
    "nce_optimal_score",
    "infonce_loss",
    "effective_margin",
    "hinge_comparison",
    "HingeComparison",
    "coverage_probability",
    "k_min",
    "softmax_entropy",
    "entropy_temperature_derivative",
    "temperature_for_entropy",
    "EntropyTemperatureController",
    "semi_hard_mask",
    "triplet_loss",
    "mine_negatives",
    "expected_false_negatives",
    "min_exclusion_window",
    "negative_costs",
    "NegativeCosts",
    "hard_negative_probability",
]


def _log_sigmoid(x):
    # ln sigma(x) = -ln(1 + e^{-x}), exact for large |x| (no log(0) for x << 0)
    return -np.logaddexp(0.0, -x)


# --------------------------------------------------------------------------------------------
# NCE
# --------------------------------------------------------------------------------------------
def _prob(name, p):
    arr = real_array(name, p, 0.0)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of probabilities, got shape {arr.shape}")
    s = arr.sum()
    if not s > 0:
        raise ValueError(f"{name} must have a positive sum")
    return arr / s


def nce_objective(g, p_data, q, k):
    r"""NCE population objective on a finite space (seed 001, *From Generative Modeling to NCE*).

    .. math::
        J(\theta) = \mathbb E_{x \sim p_{data}} \ln \sigma(g(x))
                    + k\, \mathbb E_{\tilde x \sim q} \ln(1 - \sigma(g(\tilde x))),

    with g(x) = ln p_theta(x) - ln q(x) the log-density ratio (the score function).

    Parameters
    ----------
    g : array_like, shape (n,) or (..., n)
        Scores g(x) on the n points of the space (leading dimensions: several score functions).
    p_data, q : array_like, shape (n,)
        Data and noise laws (non-negative weights, normalised internally).
    k : float
        Number of noise samples per data point, k > 0.

    Returns
    -------
    float or ndarray
        J (<= 0), one value per score function.

    Notes
    -----
    Pointwise maximisation of p ln sigma(g) + k q ln(1 - sigma(g)) gives
    sigma(g*) = p / (p + k q), i.e. g* = ln p_data - ln q - ln k (:func:`nce_optimal_score`):
    with the objective written as in the seed (no ln k inside the classifier) the fitted
    unnormalised model is p_theta = p_data / k, a constant factor that the learned normaliser
    absorbs. If q depended on theta, e.g. q = p_theta, g would be the constant 0 and carry no
    signal (the seed's degenerate case).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.mechanics import nce_objective, nce_optimal_score
    >>> p, q = np.array([0.7, 0.2, 0.1]), np.full(3, 1 / 3)
    >>> best = nce_objective(nce_optimal_score(p, q, 2), p, q, 2)
    >>> bool(best > nce_objective(np.zeros(3), p, q, 2))
    True
    """
    ga = real_array("g", g)
    if ga.ndim == 0:
        raise ValueError("g must have one score per point of the space (at least 1-D)")
    p = _prob("p_data", p_data)
    qq = _prob("q", q)
    if not (p.size == qq.size == ga.shape[-1]):
        raise ValueError(f"g, p_data and q must have the same length n, got {ga.shape[-1]}, {p.size}, {qq.size}")
    kk = real_scalar("k", k, 0.0, lo_open=True)
    return scalar_or_array(np.asarray(_log_sigmoid(ga) @ p + kk * (_log_sigmoid(-ga) @ qq)))


def nce_sample_objective(g_data, g_noise, k):
    r"""Sample version of the NCE objective (seed 001): an unbiased estimate of :func:`nce_objective`.

    .. math:: \hat J = \frac1n \sum_i \ln \sigma(g(x_i)) + k \cdot \frac1m \sum_j \ln(1 - \sigma(g(\tilde x_j))).

    Parameters
    ----------
    g_data : array_like
        Scores of the data points x_i ~ p_data (any shape, averaged).
    g_noise : array_like
        Scores of the noise points x~_j ~ q (any shape, e.g. (n, k), averaged).
    k : float
        Noise-to-data ratio in the objective, k > 0.

    Examples
    --------
    >>> from negtheory.mechanics import nce_sample_objective
    >>> round(float(nce_sample_objective([0.0], [0.0, 0.0], 2)), 6)   # 3 ln(1/2)
    -2.079442
    """
    gd = real_array("g_data", g_data)
    gn = real_array("g_noise", g_noise)
    if gd.size == 0 or gn.size == 0:
        raise ValueError("g_data and g_noise must be non-empty")
    kk = real_scalar("k", k, 0.0, lo_open=True)
    return float(np.mean(_log_sigmoid(gd)) + kk * np.mean(_log_sigmoid(-gn)))


def nce_optimal_score(p_data, q, k):
    r"""Maximiser of the NCE objective of seed 001: g*(x) = ln p_data(x) - ln q(x) - ln k.

    Points with p_data = 0 get g* = -inf, points with q = 0 (and p_data > 0) +inf.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.mechanics import nce_optimal_score
    >>> nce_optimal_score([0.5, 0.5], [0.25, 0.75], 1).round(4)
    array([ 0.6931, -0.4055])
    """
    p = _prob("p_data", p_data)
    qq = _prob("q", q)
    if p.size != qq.size:
        raise ValueError(f"p_data and q must have the same length, got {p.size} and {qq.size}")
    kk = real_scalar("k", k, 0.0, lo_open=True)
    with np.errstate(divide="ignore"):
        return np.log(p) - np.log(qq) - math.log(kk)


# --------------------------------------------------------------------------------------------
# InfoNCE and the effective margin
# --------------------------------------------------------------------------------------------
def _tau(name, tau, allow_zero=False):
    t = as_float_array(name, tau, allow_inf=True)
    return check_range(name, t, 0.0, math.inf, lo_open=not allow_zero)


def infonce_loss(pos, neg, tau=1.0):
    r"""InfoNCE loss with temperature (seed 001, *Modern Formulations: The InfoNCE Loss*).

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
    tau : float or array_like
        Temperature in (0, inf] (broadcast against ``pos``); tau = inf gives ln(K + 1).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.mechanics import infonce_loss
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
    with np.errstate(over="ignore"):
        z = (n - p[..., None]) / t[..., None]  # tau = inf: exactly 0
    zz = np.concatenate([np.zeros(z.shape[:-1] + (1,)), z], axis=-1)  # the positive's own term, e^0
    big = np.isinf(zz).any(axis=-1)  # tau so small that (s- - s+)/tau overflows: the loss does too
    zz = np.where(big[..., None], 0.0, zz)
    out = np.where(big, np.inf, logsumexp(zz, axis=-1))
    return scalar_or_array(np.asarray(out))


def effective_margin(beta, tau, k):
    r"""Effective margin of InfoNCE, m_eff = beta + tau ln K (seed 001, *Connection to Margin-Based Losses*).

    With a positive similarity alpha and K easy negatives of similarity beta (beta < alpha),
    L ~ (m_eff - alpha) / tau once K e^{(beta - alpha)/tau} >> 1: a hinge at m_eff that grows
    with tau and logarithmically with K. See :func:`hinge_comparison` for where the
    approximation holds.

    Examples
    --------
    >>> from negtheory.mechanics import effective_margin
    >>> round(float(effective_margin(0.2, 0.1, 100)), 6)
    0.660517
    """
    b = real_array("beta", beta)
    t = real_array("tau", tau, 0.0, lo_open=True)
    kk = real_array("k", k, 1.0)
    return scalar_or_array(np.asarray(b + t * np.log(kk)))


class HingeComparison(NamedTuple):
    """Result of :func:`hinge_comparison`: exact InfoNCE loss, its hinge approximation, their gap (seed 001)."""

    exact: np.ndarray  #: ln(1 + K e^{(beta - alpha)/tau})
    hinge: np.ndarray  #: max(0, (m_eff - alpha) / tau)
    error: np.ndarray  #: exact - hinge = ln(1 + e^{-|m_eff - alpha| / tau}) in (0, ln 2]
    holds: np.ndarray  #: error <= tol


def hinge_comparison(alpha, beta, tau, k, tol=0.01):
    r"""Exact InfoNCE loss with K equal negatives against its hinge approximation (seed 001).

    With the positive at similarity alpha and all K negatives at beta the loss is exactly

    .. math:: \tilde L = \ln(1 + K e^{(\beta - \alpha)/\tau}) = \mathrm{softplus}(u),\quad
              u = (m_{\text{eff}} - \alpha)/\tau,\ m_{\text{eff}} = \beta + \tau\ln K,

    and the seed's approximation ln(1 + z) ~ ln z (valid when z = e^u >> 1), extended by 0 when
    alpha passes the margin, is the hinge max(0, u). Their difference is exactly
    softplus(-|u|) = ln(1 + e^{-|alpha - m_eff|/tau}): at most ln 2, reached at alpha = m_eff,
    and below ``tol`` iff |alpha - m_eff| >= tau ln(1 / (e^tol - 1)). The approximation
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
    tol : float
        Absolute error (nats) under which the approximation is said to hold.

    Returns
    -------
    HingeComparison
        Named tuple (exact, hinge, error, holds), broadcast over the inputs.

    Examples
    --------
    >>> from negtheory.mechanics import hinge_comparison
    >>> r = hinge_comparison(alpha=[0.0, 0.66, 1.5], beta=0.2, tau=0.1, k=100)
    >>> [round(float(e), 4) for e in r.error]
    [0.0014, 0.6906, 0.0002]
    >>> r.holds.tolist()
    [True, False, True]
    """
    a = real_array("alpha", alpha)
    m = effective_margin(beta, tau, k)
    t = real_array("tau", tau, 0.0, lo_open=True)
    tl = real_scalar("tol", tol, 0.0, lo_open=True)
    u = (np.asarray(m) - a) / t
    exact = np.logaddexp(0.0, u)
    hinge = np.maximum(u, 0.0)
    error = np.logaddexp(0.0, -np.abs(u))  # = exact - hinge, without cancellation
    return HingeComparison(
        scalar_or_array(np.asarray(exact)),
        scalar_or_array(np.asarray(hinge)),
        scalar_or_array(np.asarray(error)),
        scalar_or_array(np.asarray(error <= tl)),
    )


# --------------------------------------------------------------------------------------------
# number of negatives: coverage
# --------------------------------------------------------------------------------------------
def coverage_probability(rho, k):
    r"""P(at least one informative negative among K) = 1 - (1 - rho)^K (seed 001, *The Number of Negatives*).

    Computed as -expm1(K log1p(-rho)), accurate for tiny rho and huge K.

    Examples
    --------
    >>> from negtheory.mechanics import coverage_probability
    >>> round(float(coverage_probability(0.1, 29)), 4)
    0.9529
    """
    r = real_array("rho", rho, 0.0, 1.0)
    kk = real_array("k", k, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -np.expm1(kk * np.log1p(-r))
    out = np.where((r == 1.0) & (kk > 0), 1.0, np.where(kk == 0, 0.0, out))
    return scalar_or_array(np.asarray(out))


_KMIN_MAX = 2**62


def k_min(rho, q):
    r"""Smallest K with P(>= 1 informative negative among K) >= q (seed 001, coverage formula).

    .. math:: k_{\min} = \left\lceil \frac{\ln(1 - q)}{\ln(1 - \rho)} \right\rceil .

    The ratio is formed with log1p; a ratio within 1e-12 (relative) of an integer is taken as
    that integer, so that exact cases such as rho = 1/2, q = 3/4 (K = 2) are not pushed up by
    rounding.

    Parameters
    ----------
    rho : array_like
        Probability that one negative is informative, in (0, 1].
    q : array_like
        Target probability in [0, 1); q = 0 gives 0.

    Returns
    -------
    int or ndarray of int64

    Examples
    --------
    >>> from negtheory.mechanics import k_min
    >>> int(k_min(0.1, 0.95))          # the seed's example
    29
    >>> k_min([0.5, 0.01, 1.0], 0.75).tolist()
    [2, 138, 1]
    """
    r = real_array("rho", rho, 0.0, 1.0, lo_open=True)
    qq = real_array("q", q, 0.0, 1.0, hi_open=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.log1p(-qq) / np.log1p(-r)
    x = np.where(qq == 0.0, 0.0, np.where(r == 1.0, 1.0, x))
    near = np.rint(x)
    x = np.where(np.abs(x - near) <= 1e-12 * np.maximum(near, 1.0), near, x)
    kk = np.ceil(x)
    if (kk > _KMIN_MAX).any():
        raise ValueError(f"k_min exceeds 2**62 (rho too small for this q): rho={np.asarray(r)[kk > _KMIN_MAX].ravel()[:3].tolist()}")
    out = kk.astype(np.int64)
    return out[()] if out.ndim == 0 else out


# --------------------------------------------------------------------------------------------
# temperature and entropy
# --------------------------------------------------------------------------------------------
def _softmax_parts(scores, tau):
    """log p and p of softmax(s / tau) along the last axis, for tau in [0, inf]."""
    s = real_array("scores", scores)
    if s.ndim == 0 or s.shape[-1] == 0:
        raise ValueError("scores must have a non-empty last axis (the K negatives)")
    t = _tau("tau", tau, allow_zero=True)
    tb = t[..., None]
    smax = np.max(s, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = (s - smax) / tb  # <= 0; tau = 0: 0/0 at the max (fixed below), -inf elsewhere
        z = np.where(s == smax, 0.0, z)
        logp = z - logsumexp(z, axis=-1, keepdims=True)
    p = np.exp(logp)
    s_b = np.broadcast_to(s, p.shape)
    return s_b, t, logp, p


def softmax_entropy(scores, tau=1.0):
    r"""Entropy H(tau) of the softmax over negative similarities (seed 001, *The Temperature and Negative Hardness*).

    .. math:: p_i = \frac{e^{s_i/\tau}}{\sum_j e^{s_j/\tau}}, \qquad H(\tau) = -\sum_i p_i \ln p_i .

    Parameters
    ----------
    scores : array_like, shape (..., K)
        Negative similarities along the last axis.
    tau : array_like
        Temperature(s) in [0, inf], broadcast against ``scores[..., 0]`` (so a vector of
        temperatures with a 1-D ``scores`` gives the curve H(tau)). tau = 0 gives ln(number
        of maximal scores) and tau = inf gives ln K, the two limits.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.mechanics import softmax_entropy
    >>> s = np.array([0.9, 0.5, 0.5, 0.1])
    >>> softmax_entropy(s, [0.0, 0.2, np.inf]).round(4)
    array([0.    , 0.7307, 1.3863])
    """
    _, _, logp, p = _softmax_parts(scores, tau)
    with np.errstate(invalid="ignore"):  # 0 * (-inf) for items of zero weight: they add 0
        h = -np.sum(np.where(p > 0, p * logp, 0.0), axis=-1)
    return scalar_or_array(np.asarray(np.maximum(h, 0.0)))


def _var_p(scores, tau):
    s, t, _, p = _softmax_parts(scores, tau)
    mean = np.sum(p * s, axis=-1, keepdims=True)
    var = np.sum(p * (s - mean) ** 2, axis=-1)
    return var, np.broadcast_to(t, var.shape)


def entropy_temperature_derivative(scores, tau=1.0):
    r"""dH/dtau = Var_p(s) / tau^3 (seed 001, *The Temperature and Negative Hardness*).

    The variance is taken under the softmax law p(tau). It vanishes when all scores are equal
    (temperature then has no effect on the entropy) and at the limits tau = 0 and tau = inf,
    where 0 is returned.

    Parameters
    ----------
    scores : array_like, shape (..., K)
    tau : array_like
        Temperature(s) in [0, inf], broadcast as in :func:`softmax_entropy`.

    Examples
    --------
    >>> from negtheory.mechanics import entropy_temperature_derivative, softmax_entropy
    >>> s, t, h = [0.9, 0.5, 0.1], 0.3, 1e-6
    >>> fd = (softmax_entropy(s, t + h) - softmax_entropy(s, t - h)) / (2 * h)
    >>> bool(abs(entropy_temperature_derivative(s, t) - fd) < 1e-7)
    True
    """
    var, t = _var_p(scores, tau)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = var / t**3
    out = np.where((t == 0) | np.isinf(t), 0.0, out)
    return scalar_or_array(np.asarray(out))


def _entropy_range(s):
    m = int(np.sum(s == s.max()))
    return math.log(m), math.log(s.size)


def temperature_for_entropy(scores, target):
    r"""Temperature tau at which H(tau) equals ``target`` (seed 001; H is increasing in tau, dH/dtau = Var_p/tau^3 >= 0).

    Solved by Brent's method in log tau. The reachable entropies are (ln m, ln K), m the number
    of maximal scores (tau -> 0) and K the number of scores (tau -> inf).

    Parameters
    ----------
    scores : array_like, shape (K,)
        Not all equal.
    target : float
        Entropy in nats, strictly between ln m and ln K.

    Examples
    --------
    >>> import math
    >>> from negtheory.mechanics import temperature_for_entropy, softmax_entropy
    >>> s = [1.0, 0.0]
    >>> t = temperature_for_entropy(s, 0.5 * math.log(2))
    >>> round(float(softmax_entropy(s, t)), 12) == round(0.5 * math.log(2), 12)
    True
    """
    s = real_array("scores", scores)
    if s.ndim != 1 or s.size < 2:
        raise ValueError(f"scores must be a 1-D array of at least 2 similarities, got shape {s.shape}")
    lo_h, hi_h = _entropy_range(s)
    h = real_scalar("target", target)
    if not lo_h < h < hi_h:
        raise ValueError(f"target entropy must lie in ({lo_h:.6g}, {hi_h:.6g}) = (ln m, ln K) for these scores, got {h!r}")
    spread = float(s.max() - s.min())

    def f(x):
        return float(softmax_entropy(s, spread * math.exp(x))) - h

    lo, hi = -1.0, 1.0
    while f(lo) > 0:
        lo *= 2.0
    while f(hi) < 0:
        hi *= 2.0
    return spread * math.exp(brentq(f, lo, hi, xtol=1e-13, rtol=1e-14))


class EntropyTemperatureController:
    r"""Adaptive temperature that keeps the softmax entropy in a band (seed 001, *The Temperature and Negative Hardness*).

    At each :meth:`update` the entropy H of the current negative scores (mean over the rows of
    a batch) is compared with the band [low, high]. Inside the band tau is left alone; outside,
    one Newton step in log tau towards the band centre uses the identity
    dH/d(ln tau) = tau dH/dtau = Var_p(s) / tau^2, with the step limited to a factor
    ``max_factor`` per update (robust when the scores jump) and tau clipped to
    [tau_min, tau_max]. When Var_p(s) = 0 the entropy does not depend on tau and tau is kept.

    Parameters
    ----------
    low, high : float
        Entropy band in nats, 0 <= low < high.
    tau : float
        Initial temperature > 0.
    max_factor : float
        Largest multiplicative change of tau per update (> 1).
    tau_min, tau_max : float
        Hard limits for tau.

    Attributes
    ----------
    tau : float
        Current temperature.
    history : list of (tau_used, entropy)
        One entry per update: the temperature used for that batch and the entropy it gave.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.mechanics import EntropyTemperatureController, softmax_entropy
    >>> s = np.random.default_rng(0).normal(0.0, 1.0, size=(8, 64))
    >>> ctl = EntropyTemperatureController(2.0, 2.5, tau=0.05)
    >>> for _ in range(10):
    ...     tau = ctl.update(s)
    >>> bool(2.0 <= softmax_entropy(s, tau).mean() <= 2.5)
    True
    """

    def __init__(self, low, high, tau=1.0, *, max_factor=2.0, tau_min=1e-6, tau_max=1e6):
        self.low = real_scalar("low", low, 0.0)
        self.high = real_scalar("high", high, 0.0)
        if not self.low < self.high:
            raise ValueError(f"low must be smaller than high, got low={self.low!r}, high={self.high!r}")
        self.tau = real_scalar("tau", tau, 0.0, lo_open=True)
        self.max_factor = real_scalar("max_factor", max_factor, 1.0, lo_open=True)
        self.tau_min = real_scalar("tau_min", tau_min, 0.0, lo_open=True)
        self.tau_max = real_scalar("tau_max", tau_max, self.tau_min)
        self.history: list[tuple[float, float]] = []

    def update(self, scores) -> float:
        """Record the entropy of ``scores`` (shape (K,) or (B, K)) at the current tau; return the next tau."""
        s = np.atleast_2d(real_array("scores", scores))
        tau = self.tau
        h = float(np.mean(softmax_entropy(s, tau)))
        var, _ = _var_p(s, tau)
        slope = float(np.mean(var)) / tau**2  # dH / d ln(tau)
        self.history.append((tau, h))
        if self.low <= h <= self.high or slope <= 0.0:
            return tau
        step = (0.5 * (self.low + self.high) - h) / slope
        lim = math.log(self.max_factor)
        step = min(max(step, -lim), lim)
        self.tau = min(max(tau * math.exp(step), self.tau_min), self.tau_max)
        return self.tau

    def __repr__(self) -> str:
        return f"EntropyTemperatureController(low={self.low}, high={self.high}, tau={self.tau:.6g})"


# --------------------------------------------------------------------------------------------
# mining
# --------------------------------------------------------------------------------------------
def _distances(d_ap, d_an):
    ap = real_array("d_ap", d_ap, 0.0)
    an = real_array("d_an", d_an, 0.0)
    if ap.ndim != 1:
        raise ValueError(f"d_ap must be 1-D (one anchor-positive distance per anchor), got shape {ap.shape}")
    if an.ndim != 2 or an.shape[0] != ap.shape[0] or an.shape[1] == 0:
        raise ValueError(f"d_an must have shape (n_anchors, n_candidates) = ({ap.shape[0]}, m >= 1), got {an.shape}")
    return ap, an


def semi_hard_mask(d_ap, d_an, margin):
    r"""Semi-hard candidates d(a,p) < d(a,n) < d(a,p) + m (seed 001, *Mining Strategies*).

    Parameters
    ----------
    d_ap : array_like, shape (n,)
        Anchor-positive distances.
    d_an : array_like, shape (n, m)
        Anchor-to-candidate-negative distances.
    margin : float
        Triplet margin m > 0.

    Examples
    --------
    >>> from negtheory.mechanics import semi_hard_mask
    >>> semi_hard_mask([1.0], [[0.5, 1.1, 1.3, 2.0]], margin=0.5).tolist()
    [[False, True, True, False]]
    """
    ap, an = _distances(d_ap, d_an)
    m = real_scalar("margin", margin, 0.0, lo_open=True)
    return (an > ap[:, None]) & (an < ap[:, None] + m)


def triplet_loss(d_ap, d_an, margin):
    r"""Triplet hinge loss max(0, d(a,p) - d(a,n) + m) (seed 001, *Mining Strategies*).

    It is 0 for easy negatives (d(a,n) >= d(a,p) + m), in (0, m) for semi-hard ones and > m
    for hard ones that are closer than the positive. Broadcasts like numpy.

    Examples
    --------
    >>> from negtheory.mechanics import triplet_loss
    >>> triplet_loss(1.0, [0.5, 1.2, 2.0], margin=0.5).round(6)
    array([1. , 0.3, 0. ])
    """
    ap = real_array("d_ap", d_ap, 0.0)
    an = real_array("d_an", d_an, 0.0)
    m = real_scalar("margin", margin, 0.0)
    return scalar_or_array(np.asarray(np.maximum(0.0, ap - an + m)))


_STRATEGIES = ("random", "hard", "semi-hard")


def mine_negatives(d_ap, d_an, strategy="semi-hard", margin=0.2, *, pick="hardest", rng=None):
    r"""Choose one negative per anchor: random, hard or semi-hard mining (seed 001, *Mining Strategies*).

    * ``'random'``: uniform over the candidates (cheap; often easy, zero-loss negatives);
    * ``'hard'``: the candidate closest to the anchor (smallest d(a,n); ties: lowest index);
    * ``'semi-hard'``: among candidates with d(a,p) < d(a,n) < d(a,p) + m, the closest one
      (``pick='hardest'``, the FaceNet choice) or a uniformly random one (``pick='random'``);
      anchors without a semi-hard candidate get -1.

    Parameters
    ----------
    d_ap : array_like, shape (n,)
        Anchor-positive distances.
    d_an : array_like, shape (n, m)
        Anchor-to-candidate distances.
    strategy : {'random', 'hard', 'semi-hard'}
    margin : float
        Margin m > 0 (semi-hard only).
    pick : {'hardest', 'random'}
        Choice inside the semi-hard band.
    rng : numpy.random.Generator, int or SeedSequence, optional
        Used by ``'random'`` and ``pick='random'``.

    Returns
    -------
    ndarray of int64, shape (n,)
        Column index of the chosen negative, -1 where none qualifies.

    Examples
    --------
    >>> from negtheory.mechanics import mine_negatives
    >>> d_ap = [1.0, 1.0]
    >>> d_an = [[0.5, 1.1, 1.3, 2.0], [2.0, 3.0, 0.9, 4.0]]
    >>> mine_negatives(d_ap, d_an, "hard").tolist()
    [0, 2]
    >>> mine_negatives(d_ap, d_an, "semi-hard", margin=0.5).tolist()
    [1, -1]
    """
    ap, an = _distances(d_ap, d_an)
    if strategy not in _STRATEGIES:
        raise ValueError(f"strategy must be one of {_STRATEGIES}, got {strategy!r}")
    if pick not in ("hardest", "random"):
        raise ValueError(f"pick must be 'hardest' or 'random', got {pick!r}")
    n, m = an.shape
    if strategy == "random":
        return as_generator(rng).integers(0, m, size=n).astype(np.int64)
    if strategy == "hard":
        return np.argmin(an, axis=1).astype(np.int64)
    mask = semi_hard_mask(ap, an, margin)
    if pick == "hardest":
        idx = np.argmin(np.where(mask, an, np.inf), axis=1)
    else:
        keys = as_generator(rng).random(an.shape)
        idx = np.argmax(np.where(mask, keys, -1.0), axis=1)
    return np.where(mask.any(axis=1), idx, -1).astype(np.int64)


# --------------------------------------------------------------------------------------------
# false negatives: temporal exclusion window
# --------------------------------------------------------------------------------------------
def _mean_exp_discrete(a, n, lam):
    # mean of e^{-d/lam} over d = a, ..., a + n - 1 (geometric series, expm1 for precision)
    return np.exp(-a / lam) * np.expm1(-n / lam) / (n * np.expm1(-1.0 / lam))


def _mean_exp_continuous(dt, horizon, lam):
    # mean of e^{-D/lam} for D ~ U(dt, horizon] = e^{-dt/lam} * lam (1 - e^{-w/lam}) / w,
    # w = horizon - dt; the ratio -> 1 as w -> 0 (the limit e^{-horizon/lam})
    w = np.asarray(horizon - dt, dtype=float)
    safe = np.where(w > 0, w, 1.0)
    ratio = np.where(w > 0, -lam * np.expm1(-safe / lam) / safe, 1.0)
    return np.exp(-dt / lam) * ratio


def expected_false_negatives(delta_t, k, lam, horizon, *, discrete=True):
    r"""Expected number of false negatives with a temporal exclusion window (seed 001, *The Challenge of False Negatives*).

    K negatives are drawn uniformly from the frames whose offset D from the anchor exceeds the
    window Delta t, up to ``horizon``; a frame at offset D shows the same content with
    probability p_same(D) = exp(-D / lambda). Then

    .. math:: \mathbb E[\#\text{false negatives}] = K\, \mathbb E[e^{-D/\lambda}],

    with D uniform on the integers {Delta t + 1, ..., H} (``discrete=True``; a geometric sum) or
    on the interval (Delta t, H] (``discrete=False``; K lambda (e^{-Delta t/lambda} - e^{-H/lambda}) / (H - Delta t)).
    Offsets on both sides of the anchor give the same mean, so one side is modelled.

    Parameters
    ----------
    delta_t : array_like
        Window: integer in [0, H - 1] (discrete) or real in [0, H] (continuous).
    k : array_like
        Number of negatives K >= 0.
    lam : array_like
        Correlation length lambda > 0 (frames).
    horizon : float
        Largest offset H > 0 (e.g. the video length in frames).

    Examples
    --------
    >>> from negtheory.mechanics import expected_false_negatives
    >>> round(float(expected_false_negatives(0, 1, 1.0, 2)), 6)   # (e^-1 + e^-2) / 2
    0.251607
    """
    h = real_scalar("horizon", horizon, 0.0, lo_open=True)
    dt = real_array("delta_t", delta_t, 0.0, h)
    kk = real_array("k", k, 0.0)
    lm = real_array("lam", lam, 0.0, lo_open=True)
    if discrete:
        if not h.is_integer():
            raise ValueError(f"horizon must be an integer number of frames when discrete=True, got {h!r}")
        if (dt != np.floor(dt)).any() or (dt > h - 1).any():
            raise ValueError(f"delta_t must be an integer in [0, {int(h) - 1}] when discrete=True, got {_first_bad(dt, h)}")
        mean = _mean_exp_discrete(dt + 1.0, h - dt, lm)
    else:
        mean = _mean_exp_continuous(dt, h, lm)
    return scalar_or_array(np.asarray(kk * mean))


def _first_bad(dt, h):
    bad = dt[(dt != np.floor(dt)) | (dt > h - 1)]
    return bad.ravel()[:3].tolist()


def min_exclusion_window(beta, k, lam, horizon, *, discrete=True):
    r"""Smallest window Delta t keeping the expected false negatives <= beta (seed 001).

    :func:`expected_false_negatives` decreases in Delta t (removing the nearest, most similar
    frames lowers the mean of e^{-D/lambda}), so the answer is found by bisection over the
    integers (``discrete=True``) or by Brent's method (``discrete=False``).

    Parameters
    ----------
    beta : float
        Tolerated expected number of false negatives, > 0.
    k : float
        Number of negatives K >= 0.
    lam : float
        Correlation length lambda > 0.
    horizon : float
        Largest offset H.

    Returns
    -------
    int (discrete) or float
        Raises ``ValueError`` when even the largest window (only offset H left) gives
        K e^{-H/lambda} > beta.

    Examples
    --------
    >>> from negtheory.mechanics import min_exclusion_window, expected_false_negatives
    >>> dt = min_exclusion_window(0.1, k=16, lam=20.0, horizon=1000)
    >>> dt, bool(expected_false_negatives(dt, 16, 20.0, 1000) <= 0.1 < expected_false_negatives(dt - 1, 16, 20.0, 1000))
    (24, True)
    """
    b = real_scalar("beta", beta, 0.0, lo_open=True)
    kk = real_scalar("k", k, 0.0)
    lm = real_scalar("lam", lam, 0.0, lo_open=True)
    h = real_scalar("horizon", horizon, 0.0, lo_open=True)

    def e(dt):
        return float(expected_false_negatives(dt, kk, lm, h, discrete=discrete))

    if discrete:
        hi = int(h) - 1
        if hi < 0:
            raise ValueError(f"horizon must be at least 1 frame, got {h!r}")
        if e(hi) > b:
            raise ValueError(
                f"no window reaches beta={b!r}: even Delta t = H - 1 gives {e(hi):.6g} expected false negatives; raise horizon or lower k"
            )
        lo = 0
        if e(lo) <= b:
            return 0
        while hi - lo > 1:  # invariant: e(lo) > b >= e(hi)
            mid = (lo + hi) // 2
            if e(mid) <= b:
                hi = mid
            else:
                lo = mid
        return hi
    if e(h) > b:
        raise ValueError(f"no window reaches beta={b!r}: the limit Delta t -> H gives K e^(-H/lambda) = {e(h):.6g}")
    if e(0.0) <= b:
        return 0.0
    return float(brentq(lambda x: e(x) - b, 0.0, h, xtol=1e-12 * max(h, 1.0), rtol=1e-14))


# --------------------------------------------------------------------------------------------
# in-batch vs shared pool
# --------------------------------------------------------------------------------------------
class NegativeCosts(NamedTuple):
    """Cost model of :func:`negative_costs`: stored embeddings and dot products per batch (seed 001)."""

    memory_per_example: np.ndarray  #: B K negative embeddings
    memory_shared: np.ndarray  #: S embeddings
    dots_per_example: np.ndarray  #: B (K + 1) dot products
    dots_shared: np.ndarray  #: B (S + 1) dot products


def negative_costs(batch_size, k, pool_size):
    r"""Memory and dot-product cost of per-example vs shared-pool negatives (seed 001, *In-Batch vs. Global Negatives*).

    Per-example negatives (K per anchor) store B K embeddings and compute B (K + 1) dot products;
    a pool of S negatives shared by the B anchors stores S embeddings and computes B (S + 1).
    The pool saves memory when B K > S and costs throughput when S > K.

    Examples
    --------
    >>> from negtheory.mechanics import negative_costs
    >>> c = negative_costs(batch_size=256, k=16, pool_size=1024)
    >>> int(c.memory_per_example), int(c.memory_shared), int(c.dots_per_example), int(c.dots_shared)
    (4096, 1024, 4352, 262400)
    """
    b = real_array("batch_size", batch_size, 1.0)
    kk = real_array("k", k, 0.0)
    s = real_array("pool_size", pool_size, 0.0)
    for name, arr in (("batch_size", b), ("k", kk), ("pool_size", s)):
        if (arr != np.floor(arr)).any():
            raise ValueError(f"{name} must be integral, got {arr[arr != np.floor(arr)].ravel()[:3].tolist()}")
    def as_int(x):
        return scalar_or_array(np.asarray(x).astype(np.int64))

    return NegativeCosts(as_int(b * kk), as_int(s * np.ones_like(b)), as_int(b * (kk + 1)), as_int(b * (s + 1)))


def hard_negative_probability(n, rho, population=None):
    r"""Probability that n negatives contain at least one hard negative (seed 001, *In-Batch vs. Global Negatives*).

    With a fraction rho of hard negatives in the corpus:

    * i.i.d. draws (``population=None``): 1 - (1 - rho)^n, as :func:`coverage_probability`;
    * n distinct items drawn without replacement from a corpus of N items of which
      H = round(rho N) are hard: 1 - C(N - H, n) / C(N, n) (hypergeometric), which is larger.

    Use n = K for per-example negatives and n = S for a shared pool.

    Examples
    --------
    >>> from negtheory.mechanics import hard_negative_probability
    >>> round(float(hard_negative_probability(16, 0.01)), 4), round(float(hard_negative_probability(1024, 0.01)), 4)
    (0.1485, 1.0)
    >>> float(hard_negative_probability(91, 0.1, population=100))   # only 90 easy items exist
    1.0
    """
    if population is None:
        return coverage_probability(rho, n)
    nn = real_array("n", n, 0.0)
    r = real_array("rho", rho, 0.0, 1.0)
    pop = int_scalar("population", population, 1)
    if (nn > pop).any() or (nn != np.floor(nn)).any():
        raise ValueError(f"n must be an integer in [0, population={pop}] when drawing without replacement, got {nn.ravel()[:3].tolist()}")
    hard = np.rint(r * pop)
    easy = pop - hard
    with np.errstate(invalid="ignore"):
        log_ratio = gammaln(easy + 1) - gammaln(easy - nn + 1) - gammaln(pop + 1) + gammaln(pop - nn + 1)
    out = np.where(nn > easy, 1.0, -np.expm1(np.where(nn > easy, 0.0, log_ratio)))
    return scalar_or_array(np.asarray(out))
