r"""Temperature and hardness: softmax entropy, its derivative and an entropy controller (the negative-sampling textbook chapter).

:mod:`negtheory.mechanics` re-exports every name of this part of the textbook chapter's mechanics.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp

from ._validation import real_array, real_scalar, scalar_or_array
from ._validation import temperature_array as _tau

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatOrArray

__all__ = [
    "softmax_entropy",
    "entropy_temperature_derivative",
    "temperature_for_entropy",
    "EntropyTemperatureController",
]


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


def softmax_entropy(scores: ArrayLike, tau: ArrayLike = 1.0) -> FloatOrArray:
    r"""Entropy H(tau) of the softmax over negative similarities (textbook chapter, *The Temperature and Negative Hardness*).

    .. math:: p_i = \frac{e^{s_i/\tau}}{\sum_j e^{s_j/\tau}}, \qquad H(\tau) = -\sum_i p_i \ln p_i .

    Parameters
    ----------
    scores : array_like, shape (..., K)
        Negative similarities along the last axis.
    tau : array_like, default 1.0
        Temperature(s) in [0, inf], broadcast against ``scores[..., 0]`` (so a vector of
        temperatures with a 1-D ``scores`` gives the curve :math:`H(\tau)`). :math:`\tau = 0` gives ln(number
        of maximal scores) and :math:`\tau = \infty` gives :math:`\ln K`, the two limits.

    Returns
    -------
    float or ndarray
        :math:`H(\tau) \in [0, \ln K]` nats, shape ``broadcast(scores[..., 0], tau)``.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.temperature import softmax_entropy
    >>> s = np.array([0.9, 0.5, 0.5, 0.1])
    >>> softmax_entropy(s, [0.0, 0.2, np.inf]).round(4)
    array([0.    , 0.7307, 1.3863])
    """
    _, _, logp, p = _softmax_parts(scores, tau)
    with np.errstate(invalid="ignore"):  # 0 * (-inf) for items of zero weight: they add 0
        h = -np.sum(np.where(p > 0, p * logp, 0.0), axis=-1)
    return scalar_or_array(np.asarray(np.maximum(h, 0.0)))


def _log_var_p(scores, tau):
    """log Var_p(s) under the softmax law p(tau) (-inf where it is 0), and tau broadcast to its shape.

    The variance is formed on the scores scaled by c = max |s| (so s - mean cannot overflow for
    scores near the float64 limit) and items of zero weight add exactly 0 (not 0 * inf = NaN);
    log Var = log Var_p(s / c) + 2 log c.
    """
    s, t, _, p = _softmax_parts(scores, tau)
    c = np.max(np.abs(s), axis=-1, keepdims=True)
    c = np.where(c > 0.0, c, 1.0)
    xs = s / c
    mean = np.sum(p * xs, axis=-1, keepdims=True)
    var = np.sum(np.where(p > 0.0, p * (xs - mean) ** 2, 0.0), axis=-1)
    with np.errstate(divide="ignore"):
        logvar = np.log(var) + 2.0 * np.log(c[..., 0])
    return logvar, np.broadcast_to(t, logvar.shape)


def entropy_temperature_derivative(scores: ArrayLike, tau: ArrayLike = 1.0) -> FloatOrArray:
    r"""Derivative dH/dtau of the softmax entropy (textbook chapter, *The Temperature and Negative Hardness*).

    .. math:: \frac{dH}{d\tau} = \frac{\mathrm{Var}_{p}(s)}{\tau^3}

    The variance is taken under the softmax law p(tau). It vanishes when all scores are equal
    (temperature then has no effect on the entropy) and at the limits tau = 0 and tau = inf,
    where 0 is returned.

    Parameters
    ----------
    scores : array_like, shape (..., K)
        Negative similarities along the last axis.
    tau : array_like, default 1.0
        Temperature(s) in [0, inf], broadcast as in :func:`softmax_entropy`.

    Returns
    -------
    float or ndarray
        dH/dtau >= 0, shape ``broadcast(scores[..., 0], tau)``.

    Examples
    --------
    >>> from negtheory.temperature import entropy_temperature_derivative, softmax_entropy
    >>> s, t, h = [0.9, 0.5, 0.1], 0.3, 1e-6
    >>> fd = (softmax_entropy(s, t + h) - softmax_entropy(s, t - h)) / (2 * h)
    >>> bool(abs(entropy_temperature_derivative(s, t) - fd) < 1e-7)
    True
    """
    logvar, t = _log_var_p(scores, tau)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # in logs: t**3 underflows for t < 1e-103 and Var_p overflows for scores near 1e308
        out = np.exp(logvar - 3.0 * np.log(t))
    out = np.where((t == 0) | np.isinf(t) | np.isneginf(logvar), 0.0, out)
    return scalar_or_array(np.asarray(out))


def _entropy_range(s):
    m = int(np.sum(s == s.max()))
    return math.log(m), math.log(s.size)


def temperature_for_entropy(scores: ArrayLike, target: float) -> float:
    r"""Temperature tau at which the softmax entropy H(tau) equals ``target`` (textbook chapter).

    H is increasing in tau (dH/dtau = Var_p(s) / tau^3 >= 0, see
    :func:`entropy_temperature_derivative`); the root is found by Brent's method in log tau. The reachable entropies are (ln m, ln K), m the number
    of maximal scores (tau -> 0) and K the number of scores (tau -> inf).

    Parameters
    ----------
    scores : array_like, shape (K,)
        Negative similarities, K >= 2, not all equal.
    target : float
        Entropy in nats, strictly between ln m and ln K.

    Returns
    -------
    float
        The temperature :math:`\tau > 0` with :math:`H(\tau)` = target.

    Examples
    --------
    >>> import math
    >>> from negtheory.temperature import temperature_for_entropy, softmax_entropy
    >>> s = [1.0, 0.0]
    >>> t = temperature_for_entropy(s, 0.5 * math.log(2))
    >>> round(float(softmax_entropy(s, t)), 12) == round(0.5 * math.log(2), 12)
    True
    """
    s = real_array("scores", scores)
    if s.ndim != 1 or s.size < 2:
        raise ValueError(
            f"scores must be a 1-D array of at least 2 similarities, got shape {s.shape}"
        )
    lo_h, hi_h = _entropy_range(s)
    h = real_scalar("target", target)
    if not lo_h < h < hi_h:
        raise ValueError(
            f"target entropy must lie in ({lo_h:.6g}, {hi_h:.6g}) = (ln m, ln K) for these scores, got {h!r}"
        )
    # H(s, tau) = H(s / c, tau / c): solve on scores scaled into [-1, 1] (no overflow of the
    # spread, nor of exp in the bracket search, for scores near the float64 limit)
    c = float(np.max(np.abs(s)))
    s = s / c
    spread = float(s.max() - s.min())

    def f(x):
        return float(softmax_entropy(s, spread * math.exp(x))) - h

    lo, hi = -1.0, 1.0
    while f(lo) > 0 and lo > -700.0:
        lo = max(2.0 * lo, -700.0)
    while f(hi) < 0 and hi < 700.0:
        hi = min(2.0 * hi, 700.0)
    root = brentq(f, lo, hi, xtol=1e-13, rtol=1e-14)
    with np.errstate(over="ignore"):
        return float(np.float64(c) * (spread * math.exp(root)))


class EntropyTemperatureController:
    r"""Adaptive temperature that keeps the softmax entropy in a band (textbook chapter, *The Temperature and Negative Hardness*).

    At each :meth:`update` the entropy H of the current negative scores (mean over the rows of
    a batch) is compared with the band [low, high]. Inside the band tau is left alone; outside,
    one Newton step in log tau towards the band centre uses the identity

    .. math:: \frac{dH}{d\ln\tau} = \tau \frac{dH}{d\tau} = \frac{\mathrm{Var}_p(s)}{\tau^2},

    with the step limited to a factor
    ``max_factor`` per update (robust when the scores jump) and tau clipped to
    [tau_min, tau_max]. When Var_p(s) = 0 the entropy does not depend on tau and tau is kept.

    Parameters
    ----------
    low, high : float
        Entropy band in nats, 0 <= low < high.
    tau : float, default 1.0
        Initial temperature > 0.
    max_factor : float, default 2.0
        Largest multiplicative change of :math:`\tau` per update (> 1).
    tau_min, tau_max : float, default 1e-6 and 1e6
        Hard limits for :math:`\tau`, 0 < ``tau_min`` <= ``tau_max``.

    Attributes
    ----------
    tau : float
        Current temperature.
    history : list of (tau_used, entropy)
        One entry per update: the temperature used for that batch and the entropy it gave.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.temperature import EntropyTemperatureController, softmax_entropy
    >>> s = np.random.default_rng(0).normal(0.0, 1.0, size=(8, 64))
    >>> ctl = EntropyTemperatureController(2.0, 2.5, tau=0.05)
    >>> for _ in range(10):
    ...     tau = ctl.update(s)
    >>> bool(2.0 <= softmax_entropy(s, tau).mean() <= 2.5)
    True
    """

    def __init__(
        self,
        low: float,
        high: float,
        tau: float = 1.0,
        *,
        max_factor: float = 2.0,
        tau_min: float = 1e-6,
        tau_max: float = 1e6,
    ):
        self.low = real_scalar("low", low, 0.0)
        self.high = real_scalar("high", high, 0.0)
        if not self.low < self.high:
            raise ValueError(
                f"low must be smaller than high, got low={self.low!r}, high={self.high!r}"
            )
        self.tau = real_scalar("tau", tau, 0.0, lo_open=True)
        self.max_factor = real_scalar("max_factor", max_factor, 1.0, lo_open=True)
        self.tau_min = real_scalar("tau_min", tau_min, 0.0, lo_open=True)
        self.tau_max = real_scalar("tau_max", tau_max, self.tau_min)
        self.history: list[tuple[float, float]] = []

    def update(self, scores: ArrayLike) -> float:
        """Record the entropy of ``scores`` at the current tau and return the next tau.

        Parameters
        ----------
        scores : array_like, shape (K,) or (B, K)
            Negative similarities of one anchor or of a batch of B anchors; the entropy is
            averaged over the rows.

        Returns
        -------
        float
            The temperature to use for the next batch (unchanged inside the band).
        """
        s = np.atleast_2d(real_array("scores", scores))
        tau = self.tau
        h = float(np.mean(softmax_entropy(s, tau)))
        logvar, _ = _log_var_p(s, tau)
        with np.errstate(
            over="ignore"
        ):  # dH / d ln(tau) = Var_p / tau^2, in logs (tau**2 underflows)
            slope = float(np.mean(np.exp(logvar - 2.0 * math.log(tau))))
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
