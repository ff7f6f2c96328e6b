r"""How many negatives: the chance that K draws cover a hard region (textbook chapter, *Number of Negatives*).

:mod:`negtheory.mechanics` re-exports every name of this part of the textbook chapter's mechanics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._validation import broadcast, real_array, scalar_or_array

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatOrArray, IntOrArray

__all__ = ["coverage_probability", "k_min"]


def coverage_probability(rho: ArrayLike, k: ArrayLike) -> FloatOrArray:
    r"""Probability of at least one informative negative among K draws (textbook chapter, *The Number of Negatives*).

    .. math:: P = 1 - (1 - \rho)^K

    Computed as -expm1(K log1p(-rho)), accurate for tiny rho and huge K.

    Parameters
    ----------
    rho : array_like
        Probability that one negative is informative (hard), in [0, 1].
    k : array_like
        Number of independent negatives K >= 0 (real allowed); broadcast against ``rho``.

    Returns
    -------
    float or ndarray
        P in [0, 1], broadcast over ``rho`` and ``k``.

    Examples
    --------
    >>> from negtheory.coverage import coverage_probability
    >>> round(float(coverage_probability(0.1, 29)), 4)
    0.9529
    """
    r = real_array("rho", rho, 0.0, 1.0)
    kk = real_array("k", k, 0.0)
    r, kk = broadcast(rho=r, k=kk)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -np.expm1(kk * np.log1p(-r))
    out = np.where((r == 1.0) & (kk > 0), 1.0, np.where(kk == 0, 0.0, out))
    return scalar_or_array(np.asarray(out))


_KMIN_MAX = 2**62


def k_min(rho: ArrayLike, q: ArrayLike) -> IntOrArray:
    r"""Smallest K with P(>= 1 informative negative among K) >= q (textbook chapter, coverage formula).

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
        k_min >= 0, broadcast over ``rho`` and ``q``.

    Examples
    --------
    >>> from negtheory.coverage import k_min
    >>> int(k_min(0.1, 0.95))          # the textbook chapter's example
    29
    >>> k_min([0.5, 0.01, 1.0], 0.75).tolist()
    [2, 138, 1]
    """
    r = real_array("rho", rho, 0.0, 1.0, lo_open=True)
    qq = real_array("q", q, 0.0, 1.0, hi_open=True)
    r, qq = broadcast(rho=r, q=qq)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.log1p(-qq) / np.log1p(-r)
    x = np.where(qq == 0.0, 0.0, np.where(r == 1.0, 1.0, x))
    near = np.rint(x)
    x = np.where(np.abs(x - near) <= 1e-12 * np.maximum(near, 1.0), near, x)
    kk = np.ceil(x)
    if (kk > _KMIN_MAX).any():
        raise ValueError(
            f"k_min exceeds 2**62 (rho too small for this q): rho={np.asarray(r)[kk > _KMIN_MAX].ravel()[:3].tolist()}"
        )
    out = kk.astype(np.int64)
    return out[()] if out.ndim == 0 else out
