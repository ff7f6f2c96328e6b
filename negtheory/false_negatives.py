r"""False negatives: the temporal exclusion window under p_same(D) = exp(-D / lambda) (the negative-sampling textbook chapter).

Part of the mechanics of the negative-sampling textbook chapter; :mod:`negtheory.mechanics` re-exports every name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import brentq

from ._validation import (
    flag,
    real_array,
    real_scalar,
    scalar_or_array,
)

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatOrArray

__all__ = [
    "expected_false_negatives",
    "min_exclusion_window",
]


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


def expected_false_negatives(
    delta_t: ArrayLike, k: ArrayLike, lam: ArrayLike, horizon: float, *, discrete: bool = True
) -> FloatOrArray:
    r"""Expected number of false negatives with a temporal exclusion window (textbook chapter, *The Challenge of False Negatives*).

    K negatives are drawn uniformly from the frames whose offset D from the anchor exceeds the
    window Delta t, up to ``horizon``; a frame at offset D shows the same content with
    probability p_same(D) = exp(-D / lambda). Then

    .. math:: \mathbb E[\#\text{false negatives}] = K\, \mathbb E[e^{-D/\lambda}],

    with D uniform on the integers {Delta t + 1, ..., H} (``discrete=True``; a geometric sum) or
    on the interval (Delta t, H] (``discrete=False``), where

    .. math::
        \mathbb E[\#\text{false negatives}]
        = \frac{K \lambda\,\big(e^{-\Delta t/\lambda} - e^{-H/\lambda}\big)}{H - \Delta t}.

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
        Largest offset H > 0 (e.g. the video length in frames; an integer when ``discrete``).
    discrete : bool, default True
        True: integer frame offsets {Delta t + 1, ..., H}; False: continuous offsets in
        (Delta t, H].

    Returns
    -------
    float or ndarray
        The expected number of false negatives among the K, broadcast over ``delta_t``, ``k``
        and ``lam``.

    Examples
    --------
    >>> from negtheory.false_negatives import expected_false_negatives
    >>> round(float(expected_false_negatives(0, 1, 1.0, 2)), 6)   # (e^-1 + e^-2) / 2
    0.251607
    """
    h = real_scalar("horizon", horizon, 0.0, lo_open=True)
    dt = real_array("delta_t", delta_t, 0.0, h)
    kk = real_array("k", k, 0.0)
    lm = real_array("lam", lam, 0.0, lo_open=True)
    if flag("discrete", discrete):
        if not h.is_integer():
            raise ValueError(
                f"horizon must be an integer number of frames when discrete=True, got {h!r}"
            )
        if (dt != np.floor(dt)).any() or (dt > h - 1).any():
            raise ValueError(
                f"delta_t must be an integer in [0, {int(h) - 1}] when discrete=True, got {_first_bad(dt, h)}"
            )
        mean = _mean_exp_discrete(dt + 1.0, h - dt, lm)
    else:
        mean = _mean_exp_continuous(dt, h, lm)
    return scalar_or_array(np.asarray(kk * mean))


def _first_bad(dt, h):
    bad = dt[(dt != np.floor(dt)) | (dt > h - 1)]
    return bad.ravel()[:3].tolist()


def min_exclusion_window(
    beta: float, k: float, lam: float, horizon: float, *, discrete: bool = True
) -> float:
    r"""Smallest window Delta t keeping the expected false negatives <= beta (the negative-sampling textbook chapter).

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
        Largest offset H (an integer >= 1 when ``discrete``, else > 0).
    discrete : bool, default True
        True: integer windows and frame offsets (bisection); False: a real window (Brent's
        method), as in :func:`expected_false_negatives`.

    Returns
    -------
    int (discrete) or float
        The smallest window Delta t with expected false negatives <= beta. Raises ``ValueError`` when even the largest window (only offset H left) gives
        K e^{-H/lambda} > beta.

    Examples
    --------
    >>> from negtheory.false_negatives import min_exclusion_window, expected_false_negatives
    >>> dt = min_exclusion_window(0.1, k=16, lam=20.0, horizon=1000)
    >>> dt, bool(expected_false_negatives(dt, 16, 20.0, 1000) <= 0.1 < expected_false_negatives(dt - 1, 16, 20.0, 1000))
    (24, True)
    """
    b = real_scalar("beta", beta, 0.0, lo_open=True)
    kk = real_scalar("k", k, 0.0)
    lm = real_scalar("lam", lam, 0.0, lo_open=True)
    h = real_scalar("horizon", horizon, 0.0, lo_open=True)
    discrete = flag("discrete", discrete)

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
        raise ValueError(
            f"no window reaches beta={b!r}: the limit Delta t -> H gives K e^(-H/lambda) = {e(h):.6g}"
        )
    if e(0.0) <= b:
        return 0.0
    return float(brentq(lambda x: e(x) - b, 0.0, h, xtol=1e-12 * max(h, 1.0), rtol=1e-14))
