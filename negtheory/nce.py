r"""Learning by discrimination: noise-contrastive estimation (textbook chapter, *Learning by Discrimination*).

:mod:`negtheory.mechanics` re-exports every name of this part of the textbook chapter's mechanics.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ._validation import real_array, real_scalar, scalar_or_array

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatArray, FloatOrArray

__all__ = ["nce_objective", "nce_sample_objective", "nce_optimal_score"]


def _log_sigmoid(x):
    # ln sigma(x) = -ln(1 + e^{-x}), exact for large |x| (no log(0) for x << 0)
    return -np.logaddexp(0.0, -x)


def _prob(name, p):
    arr = real_array(name, p, 0.0)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D array of probabilities, got shape {arr.shape}"
        )
    s = arr.sum()
    if not s > 0:
        raise ValueError(f"{name} must have a positive sum")
    return arr / s


def nce_objective(g: ArrayLike, p_data: ArrayLike, q: ArrayLike, k: float) -> FloatOrArray:
    r"""NCE population objective on a finite space (textbook chapter, *From Generative Modeling to NCE*).

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

    .. math:: \sigma(g^*) = \frac{p}{p + k q}, \qquad g^* = \ln p_{data} - \ln q - \ln k

    (:func:`nce_optimal_score`). With the objective written as in the textbook chapter (no ln k
    inside the classifier) the fitted
    unnormalised model is p_theta = p_data / k, a constant factor that the learned normaliser
    absorbs. If q depended on theta, e.g. q = p_theta, g would be the constant 0 and carry no
    signal (the textbook chapter's degenerate case).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.nce import nce_objective, nce_optimal_score
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
        raise ValueError(
            f"g, p_data and q must have the same length n, got {ga.shape[-1]}, {p.size}, {qq.size}"
        )
    kk = real_scalar("k", k, 0.0, lo_open=True)
    return scalar_or_array(np.asarray(_log_sigmoid(ga) @ p + kk * (_log_sigmoid(-ga) @ qq)))


def nce_sample_objective(g_data: ArrayLike, g_noise: ArrayLike, k: float) -> float:
    r"""Sample version of the NCE objective (textbook chapter): an unbiased estimate of :func:`nce_objective`.

    .. math:: \hat J = \frac1n \sum_i \ln \sigma(g(x_i)) + k \cdot \frac1m \sum_j \ln(1 - \sigma(g(\tilde x_j))).

    Parameters
    ----------
    g_data : array_like
        Scores of the data points x_i ~ p_data (any shape, averaged).
    g_noise : array_like
        Scores of the noise points x~_j ~ q (any shape, e.g. (n, k), averaged).
    k : float
        Noise-to-data ratio in the objective, k > 0.

    Returns
    -------
    float
        J-hat (<= 0).

    Examples
    --------
    >>> from negtheory.nce import nce_sample_objective
    >>> round(float(nce_sample_objective([0.0], [0.0, 0.0], 2)), 6)   # 3 ln(1/2)
    -2.079442
    """
    gd = real_array("g_data", g_data)
    gn = real_array("g_noise", g_noise)
    if gd.size == 0 or gn.size == 0:
        raise ValueError("g_data and g_noise must be non-empty")
    kk = real_scalar("k", k, 0.0, lo_open=True)
    return float(np.mean(_log_sigmoid(gd)) + kk * np.mean(_log_sigmoid(-gn)))


def nce_optimal_score(p_data: ArrayLike, q: ArrayLike, k: float) -> FloatArray:
    r"""Maximiser g* of the NCE objective of the negative-sampling textbook chapter.

    .. math:: g^*(x) = \ln p_{data}(x) - \ln q(x) - \ln k

    Points with p_data = 0 get g* = -inf, points with q = 0 (and p_data > 0) +inf.

    Parameters
    ----------
    p_data : array_like, shape (n,)
        Data law on the n points (non-negative weights, normalised internally).
    q : array_like, shape (n,)
        Noise law on the same points (non-negative weights, normalised internally).
    k : float
        Number of noise samples per data point, k > 0.

    Returns
    -------
    ndarray, shape (n,)
        g*(x) at every point (+-inf where one of the laws vanishes).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.nce import nce_optimal_score
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
