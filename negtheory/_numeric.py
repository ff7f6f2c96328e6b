"""Shared numeric helpers for the numba kernels (private).

Normal cdf / log-cdf / ppf usable inside ``@numba.njit`` code, and Gauss-Legendre nodes.
Everything here is float64 and scalar; vectorisation happens in the calling kernels.

Why our own normal functions: numba cannot call ``scipy.special`` from nopython code, and
``math.erfc`` alone loses the log of the lower tail once it underflows (x < -37.5).
"""

from __future__ import annotations

import math

import numba
import numpy as np

SQRT2 = math.sqrt(2.0)
LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
SQRT_2PI = math.sqrt(2.0 * math.pi)


@numba.njit(cache=True, nogil=True)
def _norm_logpdf(x):
    """log phi(x) for the standard normal."""
    return -0.5 * x * x - LOG_SQRT_2PI


@numba.njit(cache=True, nogil=True)
def _norm_pdf(x):
    """phi(x) for the standard normal."""
    return math.exp(-0.5 * x * x - LOG_SQRT_2PI)


@numba.njit(cache=True, nogil=True)
def _ndtr(x):
    """Phi(x), relative accuracy ~1e-16 in the lower tail (erfc is accurate there)."""
    return 0.5 * math.erfc(-x / SQRT2)


@numba.njit(cache=True, nogil=True)
def _log_ndtr(x):
    """log Phi(x), accurate for every finite x.

    * x > 6: log1p(-Phi(-x)), since Phi(x) is within 1e-9 of 1;
    * -25 < x <= 6: log of erfc, which keeps relative accuracy in the lower tail;
    * x <= -25: the asymptotic (Mills-ratio) series
      log Phi(x) = -x^2/2 - log(-x) - log sqrt(2 pi) + log(1 - 1/x^2 + 3/x^4 - ...),
      truncated after the 1/x^14 term (error < 1e-17 at x = -25).
    """
    if x > 6.0:
        return math.log1p(-0.5 * math.erfc(x / SQRT2))
    if x > -25.0:
        return math.log(0.5 * math.erfc(-x / SQRT2))
    z = 1.0 / (x * x)
    # coefficients (-1)^n (2n-1)!!
    s = 1.0 + z * (-1.0 + z * (3.0 + z * (-15.0 + z * (105.0 + z * (-945.0 + z * (10395.0 + z * -135135.0))))))
    return -0.5 * x * x - math.log(-x) - LOG_SQRT_2PI + math.log(s)


@numba.njit(cache=True, nogil=True)
def _mills_lower(x):
    """phi(x) / Phi(x) (the hazard of the reversed normal), stable for all finite x."""
    return math.exp(_norm_logpdf(x) - _log_ndtr(x))


@numba.njit(cache=True, nogil=True)
def _ndtri(p):
    """Phi^{-1}(p) for 0 < p < 1 (returns -inf/inf at 0/1, nan outside).

    Acklam's rational approximation (relative error 1.2e-9) followed by one Halley step on
    Phi(x) - p, which brings it to full double precision.
    """
    if not (p >= 0.0 and p <= 1.0):
        return math.nan
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    a1 = -3.969683028665376e01
    a2 = 2.209460984245205e02
    a3 = -2.759285104469687e02
    a4 = 1.383577518672690e02
    a5 = -3.066479806614716e01
    a6 = 2.506628277459239e00
    b1 = -5.447609879822406e01
    b2 = 1.615858368580409e02
    b3 = -1.556989798598866e02
    b4 = 6.680131188771972e01
    b5 = -1.328068155288572e01
    c1 = -7.784894002430293e-03
    c2 = -3.223964580411365e-01
    c3 = -2.400758277161838e00
    c4 = -2.549732539343734e00
    c5 = 4.374664141464968e00
    c6 = 2.938163982698783e00
    d1 = 7.784695709041462e-03
    d2 = 3.224671290700398e-01
    d3 = 2.445134137142996e00
    d4 = 3.754408661907416e00
    plow = 0.02425
    if p < plow:
        q = math.sqrt(-2.0 * math.log(p))
        x = (((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / ((((d1 * q + d2) * q + d3) * q + d4) * q + 1.0)
    elif p <= 1.0 - plow:
        q = p - 0.5
        r = q * q
        x = (((((a1 * r + a2) * r + a3) * r + a4) * r + a5) * r + a6) * q / (
            ((((b1 * r + b2) * r + b3) * r + b4) * r + b5) * r + 1.0
        )
    else:
        q = math.sqrt(-2.0 * math.log1p(-p))
        x = -(((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / ((((d1 * q + d2) * q + d3) * q + d4) * q + 1.0)
    # Halley refinement; in the upper half work with the survival function for accuracy.
    if p < 0.5:
        e = _ndtr(x) - p
    else:
        e = (1.0 - p) - 0.5 * math.erfc(x / SQRT2)
    u = e * SQRT_2PI * math.exp(0.5 * x * x)
    x = x - u / (1.0 + 0.5 * x * u)
    return x


def gauss_legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [-1, 1] (float64, C-contiguous)."""
    x, w = np.polynomial.legendre.leggauss(int(n))
    return np.ascontiguousarray(x), np.ascontiguousarray(w)
