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

from ._validation import check_rng

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
    s = 1.0 + z * (
        -1.0 + z * (3.0 + z * (-15.0 + z * (105.0 + z * (-945.0 + z * (10395.0 + z * -135135.0)))))
    )
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
        x = (((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / (
            (((d1 * q + d2) * q + d3) * q + d4) * q + 1.0
        )
    elif p <= 1.0 - plow:
        q = p - 0.5
        r = q * q
        x = (
            (((((a1 * r + a2) * r + a3) * r + a4) * r + a5) * r + a6)
            * q
            / (((((b1 * r + b2) * r + b3) * r + b4) * r + b5) * r + 1.0)
        )
    else:
        q = math.sqrt(-2.0 * math.log1p(-p))
        x = -(((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / (
            (((d1 * q + d2) * q + d3) * q + d4) * q + 1.0
        )
    if p < 1e-300:
        # (near-)subnormal p: the Halley step below would form e^{x^2/2} = inf times a tiny
        # residual; Newton on log Phi(x) = log p is stable there (3 steps from Acklam's start)
        lp = math.log(p)
        for _ in range(3):
            x -= (_log_ndtr(x) - lp) / _mills_lower(x)
        return x
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


# --------------------------------------------------------------------------------------------
# Counter-based random numbers and the stable quadratic root (added for negtheory.generators).
# --------------------------------------------------------------------------------------------
# Philox4x32-10 (Salmon, Moraes, Dror & Shaw, "Parallel random numbers: as easy as 1, 2, 3",
# SC 2011). Why a counter-based generator: the parallel samplers key every random number by
# (anchor or sample index, stream, counter), so the output cannot depend on how the work is
# split across threads or chunks, and no per-chunk generator state has to be created.
_PHILOX_M0 = np.uint64(0xD2511F53)
_PHILOX_M1 = np.uint64(0xCD9E8D57)
_PHILOX_W0 = np.uint64(0x9E3779B9)
_PHILOX_W1 = np.uint64(0xBB67AE85)
_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT11, _SHIFT21, _SHIFT32 = (np.uint64(k) for k in (11, 21, 32))
_TWO_M53 = 1.0 / 9007199254740992.0  # 2^-53


@numba.njit(cache=True, nogil=True)
def _philox4x32(c0, c1, c2, c3, k0, k1):
    """One Philox4x32-10 block: four 32-bit words (as uint64 < 2^32) from counter and key."""
    c0 = numba.uint64(c0) & _MASK32
    c1 = numba.uint64(c1) & _MASK32
    c2 = numba.uint64(c2) & _MASK32
    c3 = numba.uint64(c3) & _MASK32
    k0 = numba.uint64(k0) & _MASK32
    k1 = numba.uint64(k1) & _MASK32
    for r in range(10):
        if r > 0:
            k0 = (k0 + _PHILOX_W0) & _MASK32
            k1 = (k1 + _PHILOX_W1) & _MASK32
        p0 = _PHILOX_M0 * c0
        p1 = _PHILOX_M1 * c2
        hi0 = p0 >> _SHIFT32
        lo0 = p0 & _MASK32
        hi1 = p1 >> _SHIFT32
        lo1 = p1 & _MASK32
        c0 = hi1 ^ c1 ^ k0
        c1 = lo1
        c2 = hi0 ^ c3 ^ k1
        c3 = lo0
    return c0, c1, c2, c3


@numba.njit(cache=True, nogil=True)
def _philox_uniform2(counter, stream, index, k0, k1):
    """Two independent uniforms in the open interval (0, 1), 53 random bits each.

    The Philox counter is (counter, stream, low and high 32 bits of index); ``(z + 0.5) 2^-53``
    never returns 0 or 1, so inverse CDFs stay finite.
    """
    idx = numba.uint64(index)
    r0, r1, r2, r3 = _philox4x32(counter, stream, idx & _MASK32, idx >> _SHIFT32, k0, k1)
    z0 = (r0 << _SHIFT21) | (r1 >> _SHIFT11)
    z1 = (r2 << _SHIFT21) | (r3 >> _SHIFT11)
    return (float(z0) + 0.5) * _TWO_M53, (float(z1) + 0.5) * _TWO_M53


def philox_key(seed, name: str = "rng") -> tuple[int, int]:
    """A Philox key (two 32-bit words) derived from ``seed`` through ``numpy.random.SeedSequence``.

    ``seed`` may be None, an int (or a sequence of them), a SeedSequence, a BitGenerator or a
    Generator (whose bit generator's SeedSequence is spawned, so a Generator is advanced exactly as ``Generator.spawn`` would);
    errors name the user-facing parameter ``name``.
    """
    if isinstance(seed, (np.random.Generator, np.random.BitGenerator)):
        bits = seed.bit_generator if isinstance(seed, np.random.Generator) else seed
        ss = bits.seed_seq.spawn(1)[0]  # type: ignore[attr-defined]
    elif isinstance(seed, np.random.SeedSequence):
        ss = seed
    else:
        check_rng(name, seed)
        ss = np.random.SeedSequence(seed)
    k = ss.generate_state(2, np.uint32)
    return int(k[0]), int(k[1])


@numba.njit(cache=True, nogil=True)
def _quad_root(b, a, g):
    """The root u in [0, 1] of a u^2 + b u = g, for b >= 0, b + a = 1, b + 2a >= 0, g in [0, 1].

    Written as 2 g / (b + sqrt(b^2 + 4 a g)) (an erratum to thesis eq. 6.29): no
    cancellation for either sign of a, and exact (g / b) when a = 0.
    """
    if g <= 0.0:
        return 0.0
    d = b * b + 4.0 * a * g
    if d < 0.0:  # only by rounding, at g ~ 1 with b + 2a = 0
        d = 0.0
    u = 2.0 * g / (b + math.sqrt(d))
    if u > 1.0:
        u = 1.0
    return u


# xoshiro256** (Blackman & Vigna, "Scrambled linear pseudorandom number generators", 2021):
# a fast sequential generator (period 2^256 - 1) for the inner loops. Each anchor / block of
# samples gets its own xoshiro state, seeded from 256 bits of Philox output keyed by
# (stream, index): streams stay a function of the index only, as with pure Philox, but a draw
# costs a few shifts and two multiplies instead of ten dependent Philox rounds.
_U5, _U7, _U9, _U17, _U19, _U45, _U57, _U64 = (np.uint64(k) for k in (5, 7, 9, 17, 19, 45, 57, 64))


@numba.njit(cache=True, nogil=True)
def _rotl64(x, k):
    return (x << k) | (x >> (_U64 - k))


@numba.njit(cache=True, nogil=True)
def _xoshiro_next(s0, s1, s2, s3):
    """One xoshiro256** step: returns (output, new state...)."""
    result = _rotl64(s1 * _U5, _U7) * _U9
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl64(s3, _U45)
    return result, s0, s1, s2, s3


@numba.njit(cache=True, nogil=True)
def _xoshiro_seed(stream, index, k0, k1):
    """xoshiro256** state for (stream, index) from two Philox blocks (never all zero)."""
    idx = numba.uint64(index)
    a0, a1, a2, a3 = _philox4x32(0, stream, idx & _MASK32, idx >> _SHIFT32, k0, k1)
    b0, b1, b2, b3 = _philox4x32(1, stream, idx & _MASK32, idx >> _SHIFT32, k0, k1)
    s0 = (a0 << _SHIFT32) | a1
    s1 = (a2 << _SHIFT32) | a3
    s2 = (b0 << _SHIFT32) | b1
    s3 = (b2 << _SHIFT32) | b3
    if s0 == 0 and s1 == 0 and s2 == 0 and s3 == 0:
        s0 = numba.uint64(1)
    return s0, s1, s2, s3


@numba.njit(cache=True, nogil=True)
def _u01(bits):
    """Top 53 bits of a 64-bit word as a double in the open interval (0, 1)."""
    return (float(numba.int64(bits >> _SHIFT11)) + 0.5) * _TWO_M53


@numba.njit(cache=True, inline="always")
def _in_sorted(indices, lo, hi, j):
    """j in indices[lo:hi] (sorted ascending), by binary search: the CSR membership test of the
    recommendation samplers and the SGD trainer (a user's training items, ``Interactions.train_csr``)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        v = indices[mid]
        if v < j:
            lo = mid + 1
        elif v > j:
            hi = mid
        else:
            return True
    return False
