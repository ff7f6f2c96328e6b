r"""Variance-gamma law of matrix-factorisation inner products (Liu Bin's thesis, ch. 3, Lemma 3.1).

X = <w, h> with w, h in R^d of i.i.d. N(0, lam) entries (lam is the *variance*) has density
(eq. 3.6 = 3.18)

.. math:: f(x; d, \lambda) = \frac{1}{\lambda\sqrt{\pi}\,\Gamma(d/2)}
          \Big(\frac{\lvert x \rvert}{2\lambda}\Big)^{\nu} K_{\nu}\Big(\frac{\lvert x \rvert}{\lambda}\Big),
          \qquad \nu = \frac{d-1}{2},

characteristic function (1 + lam^2 t^2)^{-d/2} (eq. 3.11 rescaled), variance d lam^2, and the
exact sampler X = (lam / 2)(Z1 - Z2) with Z1, Z2 ~ chi^2_d (eq. 3.8). d = 1 gives
K0(|x|/lam) / (pi lam), d = 2 the Laplace law with scale lam. :func:`inner_product` returns it
as a frozen-scipy-like distribution (:class:`InnerProduct`).

Numerics (no adaptive quadrature, no scipy Bessel call, everything in numba)
------------------------------------------------------------------------------
Write z = |x| / lam, f_d(z) for the density with lam = 1 and S_d(z) = P(X > z) for its
survival function. Two exact identities reduce every d to d = 1 or d = 2:

* **density ladder** -- with q_nu = (z/2) K_{nu+1}(z) / K_nu(z), the three-term recurrence
  K_{nu+1} = K_{nu-1} + (2 nu / z) K_nu becomes q_nu = nu + (z/2)^2 / q_{nu-1}, and
  f_{d+2}(z) = f_d(z) * 2 q_nu / d with nu = (d-1)/2. Every quantity is positive, so the
  forward recurrence (stable for K, the dominant solution) loses nothing to cancellation, and
  the product form never forms (z/2)^nu or K_nu(z) separately -- those overflow for d = 1024
  at small z (e.g. K_511.5(1e-3)), the products do not.
* **survival ladder** -- integrating t^nu K_nu(t) by parts (d/dt [t^-mu K_mu] =
  -t^-mu K_{mu+1}) gives S_{d+2}(z) = S_d(z) + z f_d(z) / d, again a sum of positive terms.

The ladders start from d = 2 (f_2 = S_2 = e^{-z}/2, q_{1/2} = (1 + z)/2) or from d = 1
(f_1 = K0/pi, S_1 = Ki1/pi with the Bickley function Ki1(z) = int_z^inf K0, q_0 = (z/2)K1/K0).
K0, K1 and Ki1 are computed here: for z < 2 by their power series (Ki1 = pi/2 - int_0^z K0,
integrated term by term), for z >= 2 from K_nu(z) = int_0^inf e^{-z cosh t} cosh(nu t) dt,
which the substitution u = 2 sqrt(z) sinh(t/2) turns into a Gaussian-weighted integral of a
function analytic in |Im u| < sqrt(2 z),

    e^z K0 = z^{-1/2} int_0^inf e^{-u^2/2} c^{-1} du,  e^z K1 = ... (1 + u^2/(2z)) / c,
    e^z Ki1 = ... 1 / ((1 + u^2/(2z)) c),  c = sqrt(1 + u^2/(4z)),

evaluated by the trapezoidal rule (step 0.25, 36 nodes), which converges geometrically for
such integrands. All values carry the factor e^z separately (log scale), so logpdf and logsf
keep relative accuracy far beyond the underflow of the density itself.

For d >= 512 the log-density is evaluated by Debye's uniform
expansion of K_nu(nu t) (DLMF 10.41.10, terms to u_4; truncation error below max|u_5| / nu^5 <
1e-16 uniformly in z) with the Stirling series of Gamma(d/2) folded in so that nothing cancels:
O(1) per point, agreeing with the ladder to 1e-13 and with mpmath to 1e-15 (tests). The survival
function (cdf, sf, their logs, ppf, isf, the E-step's posterior) is then the normal-mixture
integral S(z) = E[Qbar(z / sqrt(V))], V ~ chi^2_d, by a 12-point Gauss-Hermite rule around the
integrand's maximum (see ``_vg_log_sf_mixture``): O(1) per point, within 2e-12 of the ladder
and 3e-13 of adaptive quadrature of the density (tests).

Cost below d = 512: O(d) flops per point (d/2 ladder steps), no special-function calls besides exp/log/sqrt;
one pass gives the density *and* the survival function. Measured accuracy (tests): logpdf within
2e-14 of mpmath (50 digits) for d in {1, 2, 3, 1023, 1024} and |x|/lam from 1e-300 to 1e6; the
CDF within 1e-13 of adaptive quadrature; log S deep in the tail (S ~ e^-2500) to 1e-13 relative.
Measured speed (``benchmarks/bench_vg.py``, 2 cores, 10^5 points): cdf 3-35 ms for d <= 65,
1000-20000x one adaptive quad per point; 0.2 s at d = 1024, where the per-point quad of the
printed formula fails outright (Gamma(d/2) and K_nu overflow). Alternatives measured there:
vectorised ``scipy.special.kve`` (numpy, outside numba) and ``cython_special.kve`` bound into
numba are 1.5-3x slower than the ladder for d <= 64 and ~10x faster at d = 1024, but return
inf/NaN for 99.98 % of the points at d = 1024 (kve(511.5, z) overflows up to z ~ 100s), give no
CDF (scipy has no integral of K_nu) and, for the numpy route, cannot be used inside the E-step
kernel. The ladders have no truncation error (rounding only), so they
were chosen below d = 512; above, the O(1) expansions make the cost independent of d
(bench_vg part 4: cdf at d = 1024 below the cost at d = 64).

The inverse CDF uses the symmetry and a safeguarded Newton iteration on log S(z) - log p
(derivative -f/S from the same pass) inside a bisection bracket, vectorised in numba.
"""

from __future__ import annotations

import math
from functools import partialmethod
from typing import TYPE_CHECKING

import numba
import numpy as np

from ._numeric import _ndtri
from ._validation import as_float_array, int_scalar, real_array, real_scalar, scalar_or_array
from .distribution import ScoreDistribution

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatOrArray

__all__ = ["InnerProduct", "inner_product"]

_EULER = 0.57721566490153286061
_LOG_PI = math.log(math.pi)
_LOG2 = math.log(2.0)
# trapezoidal rule for the Gaussian-weighted integrals (z >= 2): nodes u_k = k h, k = 0..N-1
_TRAP_H = 0.25
_TRAP_N = 36
_SERIES_Z = 2.0
# ladder rescaling: keep the running density / survival values below 2^900
_BIG = 2.0**900
_LOG_BIG = 900.0 * _LOG2


# --------------------------------------------------------------------------------------------
# numba kernels
# --------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _k01_ki1_scaled(z):
    """(e^z K0(z), e^z K1(z), e^z Ki1(z)) for z > 0 (Ki1 = int_z^inf K0, the Bickley function).

    z < 2: power series (Abramowitz & Stegun 9.6.13 and 9.6.11 with n = 1; Ki1 = pi/2 minus the
    term-by-term integral of the K0 series). z >= 2: trapezoidal rule on the Gaussian-weighted
    integrals in the module docstring.
    """
    if z < _SERIES_Z:
        t2 = 0.25 * z * z
        lz = math.log(0.5 * z) + _EULER
        k0 = 0.0
        i0k = 0.0
        k1s = 0.0
        i1k = 0.0
        ik0 = 0.0
        term = 1.0  # (z^2/4)^k / (k!)^2
        hk = 0.0  # harmonic number H_k
        for k in range(40):
            hk1 = hk + 1.0 / (k + 1.0)
            term1 = term / (k + 1.0)  # (z^2/4)^k / (k! (k+1)!)
            k0 += term * (hk - lz)
            inv = 1.0 / (2.0 * k + 1.0)
            ik0 += term * inv * (hk - lz + inv)
            i1k += term1
            k1s += term1 * (hk + hk1 - 2.0 * _EULER)
            i0k += term
            if term < 1e-18 * i0k and k > 2:
                break
            term = term * t2 / ((k + 1.0) * (k + 1.0))
            hk = hk1
        k1 = 1.0 / z + (lz - _EULER) * 0.5 * z * i1k - 0.25 * z * k1s
        ki1 = 0.5 * math.pi - z * ik0
        ez = math.exp(z)
        return k0 * ez, k1 * ez, ki1 * ez
    a = 0.0
    b = 0.0
    c = 0.0
    inv2z = 0.5 / z
    for k in range(_TRAP_N):
        u = k * _TRAP_H
        u2 = u * u
        w = math.exp(-0.5 * u2)
        if k == 0:
            w = 0.5
        ch = 1.0 + u2 * inv2z  # cosh t
        r = w / math.sqrt(1.0 + 0.5 * u2 * inv2z)  # / cosh(t/2)
        a += r
        b += r * ch
        c += r / ch
    s = _TRAP_H / math.sqrt(z)
    return a * s, b * s, c * s


# Beyond z = _Z_ASYM d^2 the ladder's products could overflow (its rescaling acts once per step,
# and one step multiplies by ~z / d); there the large-z expansion
# K_nu(z) = sqrt(pi / (2 z)) e^{-z} (1 + (4 nu^2 - 1) / (8 z) + O(nu^4 / z^2)) and
# S(z) = f(z) (1 + (nu - 1/2) / z + O(nu^2 / z^2)) are exact to rounding in log scale.
# Below _Z_TINY (d >= 2) the density and survival function equal their values there in double.
_Z_ASYM = 1e8
_Z_TINY = 1e-290


@numba.njit(cache=True, nogil=True)
def _vg_log_pdf_sf_asym(d, z):
    """(log f_d(z), log S_d(z)) for z > _Z_ASYM d^2 by the large-z expansion of K_nu."""
    nu = 0.5 * (d - 1.0)
    log_k = (
        0.5 * (_LOG_PI - _LOG2 - math.log(z)) - z + math.log1p((4.0 * nu * nu - 1.0) / (8.0 * z))
    )
    lf = nu * (math.log(z) - _LOG2) + log_k - 0.5 * _LOG_PI - math.lgamma(0.5 * d)
    return lf, lf + math.log1p((nu - 0.5) / z)


@numba.njit(cache=True, nogil=True)
def _vg_log_pdf_sf(d, z):
    """(log f_d(z), log S_d(z)) for the lam = 1 law, z >= 0 (ladders of the module docstring)."""
    if z == 0.0:
        if d == 1:
            return math.inf, -_LOG2
        nu = 0.5 * (d - 1.0)
        return math.lgamma(nu) - _LOG2 - 0.5 * _LOG_PI - math.lgamma(nu + 0.5), -_LOG2
    if z == math.inf:
        return -math.inf, -math.inf
    if d >= 2 and z < _Z_TINY:  # S = 1/2 - O(z) and f(z) = f(_Z_TINY) (1 + O(_Z_TINY)) in double;
        lf, _ = _vg_log_pdf_sf(d, _Z_TINY)  # below it the odd ladder's K1(z) ~ 1/z would overflow
        return lf, -_LOG2
    if z > _Z_ASYM * d * d:
        return _vg_log_pdf_sf_asym(d, z)
    half = 0.5 * z
    if d % 2 == 0:
        t = 0.5
        s = 0.5
        m = 2
        q = 0.5 + half  # q_{1/2}
    else:
        k0, k1, ki1 = _k01_ki1_scaled(z)
        t = k0 / math.pi
        s = ki1 / math.pi
        m = 1
        q = half * (k1 / k0)  # q_0
    scale = 0.0
    while m < d:
        im = 1.0 / m
        s += z * t * im
        t *= 2.0 * q * im
        m += 2
        # q_nu = nu + (z/2)^2 / q_{nu-1}, nu = (m - 1) / 2; written to avoid overflow of z^2
        q = 0.5 * (m - 1) + half * (half / q)
        if s > _BIG or t > _BIG:
            s /= _BIG
            t /= _BIG
            scale += _LOG_BIG
    return math.log(t) + scale - z, math.log(s) + scale - z


# Debye's uniform expansion (DLMF 10.41.4, 10.41.10): K_nu(nu t) = sqrt(pi / (2 nu)) e^{-nu eta}
# (1 + t^2)^{-1/4} sum_k (-1)^k u_k(p) / nu^k, p = (1 + t^2)^{-1/2}; truncated after u_4 the
# relative error is below max_p |u_5(p)| / nu^5 (Olver's bound, up to a factor 1 + O(1/nu)):
# < 1e-16 for d >= _DEBYE_MIN_D (nu >= 255.5), uniformly in z. The log-density then costs O(1).
_DEBYE_MIN_D = 512


@numba.njit(cache=True, nogil=True)
def _vg_log_pdf_debye(d, z):
    """log f_d(z) for the lam = 1 law, z >= 0, by Debye's expansion of K_nu (large d, O(1) cost).

    With nu = (d - 1)/2, t = z / nu, s = sqrt(1 + t^2), p = 1 / s and
    lgamma(nu + 1/2) = nu log nu - nu + log sqrt(2 pi) + R(nu) (Stirling; R from the Bernoulli
    polynomials at 1/2), the large terms of z^nu K_nu(z) / (sqrt(pi) Gamma(d/2) 2^nu) cancel
    analytically:

        log f = -nu (s - 1) + nu log((1 + s) / 2) - log sqrt(4 pi nu) - R(nu)
                - log(1 + t^2) / 4 + log sum_{k <= 4} (-1)^k u_k(p) / nu^k,

    with s - 1 = t^2 / (1 + s): no cancellation anywhere, for z from 0 to the largest double.
    """
    if z == math.inf:
        return -math.inf
    nu = 0.5 * (d - 1.0)
    t = z / nu
    s = math.hypot(1.0, t)
    sm1 = t * (t / (1.0 + s))
    p = 1.0 / s
    p2 = p * p
    u1 = p * (3.0 - 5.0 * p2) / 24.0
    u2 = p2 * (81.0 + p2 * (-462.0 + 385.0 * p2)) / 1152.0
    u3 = p * p2 * (30375.0 + p2 * (-369603.0 + p2 * (765765.0 - 425425.0 * p2))) / 414720.0
    u4 = (
        p2
        * p2
        * (
            4465125.0
            + p2 * (-94121676.0 + p2 * (349922430.0 + p2 * (-446185740.0 + 185910725.0 * p2)))
        )
        / 39813120.0
    )
    r = 1.0 / nu
    corr = r * (-u1 + r * (u2 + r * (-u3 + r * u4)))
    r2 = r * r
    stirling = r * (
        -1.0 / 24.0 + r2 * (7.0 / 2880.0 + r2 * (-31.0 / 40320.0 + r2 * (127.0 / 215040.0)))
    )
    log_t2 = 2.0 * math.log(s)  # log(1 + t^2)
    return (
        -nu * sm1
        + nu * math.log1p(0.5 * sm1)
        - 0.5 * math.log(4.0 * math.pi * nu)
        - stirling
        - 0.25 * log_t2
        + math.log1p(corr)
    )


# Survival function for large d in O(1): X | V ~ N(0, V) with V = lam^2 chi^2_d (condition on h
# in <w, h>), so with y = d e^s, k = d/2 and Stirling's series for Gamma(k),
#
#     S_d(z) = sqrt(k / (2 pi)) e^{-R(k)} int exp(H(s)) ds,
#     H(s) = log Qbar(z e^{-s/2} / sqrt(d)) - k (e^s - 1 - s),
#
# (Qbar the normal upper tail), nothing large left to cancel. H is smooth and, for k >= 256,
# nearly quadratic around its maximum (the log-gamma part has curvature k, its cubic term is
# O(k^-1/2) on that scale): a 12-point Gauss-Hermite rule centred at the approximate maximum s0
# (dH/ds = 0 with log Qbar(a) replaced by -a^2/2, a closed form) and scaled by the exact
# curvature there integrates it to ~1e-14 relative for every z >= 0 (tests: against the exact
# ladder for d in {512, 513, 1024, 1025, 4096} and z from 0 to 1e5, and against quad of the
# density; 8 nodes leave 2e-9). 13 exp/erfc/log evaluations per point, whatever d.
_MIX_MIN_D = 512
_GH_X, _GH_W = np.polynomial.hermite.hermgauss(12)  # even: nodes in +- pairs
_GH_LW = np.ascontiguousarray(np.log(_GH_W) + _GH_X * _GH_X)
_GH_X = np.ascontiguousarray(_GH_X)
_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


@numba.njit(cache=True, nogil=True)
def _log_qbar(a):
    """log of the normal upper tail Q(a) = P(N(0, 1) > a), a >= 0 (the asymptotic series beyond
    a = 37, where erfc underflows; relative error below 1e-13)."""
    if a > 37.0:
        if a == math.inf:
            return -math.inf
        r = 1.0 / (a * a)
        return (
            -0.5 * a * a
            - math.log(a)
            - _LOG_SQRT_2PI
            + math.log1p(r * (-1.0 + r * (3.0 + r * (-15.0 + 105.0 * r))))
        )
    return math.log(0.5 * math.erfc(a / _SQRT2))


@numba.njit(cache=True, nogil=True)
def _vg_log_sf_mixture(d, z):
    """log S_d(z) for the lam = 1 law, z >= 0, d >= 512: the normal-mixture integral above by a
    12-point Gauss-Hermite rule (O(1) per point)."""
    if z == math.inf:
        return -math.inf
    k = 0.5 * d
    rd = math.sqrt(1.0 * d)
    # maximum of H with log Qbar(a) ~ -a^2/2 (a = z e^{-s/2} / sqrt(d)):
    # z^2 e^{-s} / (2 d) + k (1 - e^s) = 0  ->  e^s = (1 + sqrt(1 + 4 c)) / 2, c = z^2 / (2 d k)
    c = z * z / (2.0 * d * k)
    s0 = math.log(0.5 * (1.0 + math.sqrt(1.0 + 4.0 * c)))
    # curvature there: d^2/ds^2 of log Qbar(a(s)) = -(a/4)(M + a M (M - a)), M = phi(a) / Qbar(a)
    a = z * math.exp(-0.5 * s0) / rd
    lq0 = _log_qbar(a)
    ez0 = math.erfc(a / _SQRT2) if a < 30.0 else 1.0
    if a > 30.0:
        # M = 1 / R with R = Qbar / phi = (1/a)(1 - 1/a^2 + 3/a^4 - ...): M - a = (1 - a R) / R from
        # the series, since exp(-a^2/2 - lq0) loses every digit of M - a to cancellation here
        r2 = 1.0 / (a * a)
        one_m_ar = r2 * (1.0 + r2 * (-3.0 + r2 * (15.0 + r2 * (-105.0 + 945.0 * r2))))
        rr = (1.0 - one_m_ar) / a
        m = 1.0 / rr
        m_minus_a = one_m_ar / rr
    else:
        m = math.exp(-0.5 * a * a - _LOG_SQRT_2PI - lq0)
        m_minus_a = m - a
    h2 = -0.25 * a * (m + a * m * m_minus_a) - k * math.exp(s0)
    sig = _SQRT2 / math.sqrt(-h2)
    g0 = math.expm1(s0) - s0
    h0 = lq0 - k * g0
    es0 = math.exp(s0)
    acc = 0.0
    # nodes in symmetric pairs s0 +- sig x: e^{-sig x / 2} from one exp per pair; e^s - 1 - s
    # from e^s directly (absolute error ~1e-16 e^s, i.e. ~k 1e-16 in the exponent)
    for i in range(_GH_X.size // 2):
        x = _GH_X[i]  # hermgauss: ascending, x < 0 first
        ep = math.exp(-0.5 * sig * x)
        for e in (ep, 1.0 / ep):  # the nodes x and -x
            es = es0 / (e * e)
            ai = a * e
            dg = (es - es0) - sig * x  # (e^s - 1 - s) - (e^s0 - 1 - s0) at s = s0 + sig x
            x = -x
            if a < 30.0:  # Qbar from erfc directly (a_i < 1.19 a < 36: no underflow), as a ratio
                acc += math.exp(_GH_LW[i] - k * dg) * (math.erfc(ai / _SQRT2) / ez0)
            else:
                acc += math.exp(_GH_LW[i] - k * dg + _log_qbar(ai) - lq0)
    r = 1.0 / k
    r2 = r * r
    stirling = r * (1.0 / 12.0 + r2 * (-1.0 / 360.0 + r2 * (1.0 / 1260.0)))
    return h0 + math.log(sig * acc) + 0.5 * math.log(k / (2.0 * math.pi)) - stirling


@numba.njit(cache=True, nogil=True)
def _vg_log_pdf_sf_any(d, z):
    """(log f_d(z), log S_d(z)): the ladder for d < 512, O(1) expansions (Debye, mixture) above."""
    if d >= _MIX_MIN_D:
        if z == 0.0:
            return _vg_log_pdf_sf(d, z)
        return _vg_log_pdf_debye(d, z), _vg_log_sf_mixture(d, z)
    return _vg_log_pdf_sf(d, z)


@numba.njit(cache=True, nogil=True)
def _vg_sf_isf(d, p):
    """z >= 0 with S_d(z) = p, for 0 < p <= 1/2 (lam = 1).

    Safeguarded Newton on h(z) = log S(z) - log p (h' = -f/S, from the same ladder pass) inside
    a bracket [lo, hi] with h(lo) >= 0 >= h(hi); a step that leaves the bracket is replaced by
    bisection.
    """
    if p >= 0.5:
        return 0.0
    lp = math.log(p)
    # start: the larger of the normal (var d) and the exponential-tail guesses
    g = math.sqrt(1.0 * d) * (-_ndtri(p))
    g2 = -lp - math.log(2.0)
    if not math.isfinite(g):  # _ndtri of a subnormal p
        g = g2
    z = max(g, g2, 1e-3)
    lo = 0.0
    hi = math.inf
    for _ in range(400):
        lf, ls = _vg_log_pdf_sf_any(d, z)
        h = ls - lp
        if h > 0.0:
            lo = z
        elif h < 0.0:
            hi = z
        else:
            return z
        step = h * math.exp(ls - lf)  # h / (f / S)
        znew = z + step
        if not (znew > lo and znew < hi):
            if hi == math.inf:
                znew = 2.0 * z if h > 0.0 else 0.5 * (lo + z)
            else:
                znew = 0.5 * (lo + hi)
        if abs(znew - z) <= 4e-16 * z or (hi < math.inf and hi - lo <= 4e-16 * hi):
            return znew
        z = znew
    return z


# op codes of the elementwise kernel
_OP_LOGPDF = 0
_OP_CDF = 1
_OP_SF = 2
_OP_LOGCDF = 3
_OP_LOGSF = 4
_OP_PPF = 5


# below this z = |x| / lam the d = 1 density is taken from K0(z) = -log(z/2) - gamma + O(z^2 log z)
# with log z = log|x| - log lam: z itself may underflow to 0 while x != 0 (lam ~ 1e300)
_Z_K0_LOG = 1e-100


@numba.njit(cache=True, nogil=True)
def _log_f_at(d, lam, x, z, lf):
    """log f_d(z) of the lam = 1 law, given as ``lf`` from the ladders, except for d = 1 near 0.

    There log f_1 = log(K0(z) / pi) with K0(z) = -log(z/2) - gamma (A&S 9.6.13, first term) and
    log z = log|x| - log lam, finite for every x != 0 although z itself may underflow.
    """
    if d == 1 and z < _Z_K0_LOG and x != 0.0:
        return math.log(_LOG2 - _EULER - (math.log(abs(x)) - math.log(lam))) - _LOG_PI
    return lf


@numba.njit(cache=True, nogil=True)
def _vg_point(op, d, lam, x):
    if op == _OP_PPF:  # x is a probability in (0, 1)
        if x < 0.5:
            return -lam * _vg_sf_isf(d, x)
        return lam * _vg_sf_isf(d, 1.0 - x)
    z = abs(x) / lam
    if op == _OP_LOGPDF and d >= _DEBYE_MIN_D and z <= _Z_ASYM * d * d:
        return _vg_log_pdf_debye(d, z) - math.log(lam)
    if op == _OP_LOGPDF:  # outside the Debye range (small d, or the far tail z > _Z_ASYM d^2)
        return _log_f_at(d, lam, x, z, _vg_log_pdf_sf(d, z)[0]) - math.log(lam)
    if d >= _MIX_MIN_D and z <= _Z_ASYM * d * d:  # beyond, the far-tail expansion of _vg_log_pdf_sf
        ls = _vg_log_sf_mixture(d, z) if z > 0.0 else -_LOG2
    else:
        ls = _vg_log_pdf_sf(d, z)[1]
    upper = x > 0.0  # S(z) is the tail on the side of x
    if op == _OP_CDF:
        return -math.expm1(ls) if upper else math.exp(ls)
    if op == _OP_SF:
        return math.exp(ls) if upper else -math.expm1(ls)
    if op == _OP_LOGCDF:
        return math.log(-math.expm1(ls)) if upper else ls
    return ls if upper else math.log(-math.expm1(ls))


@numba.njit(cache=True, parallel=True)
def _vg_kernel(op, d, lam, x, out):
    """Elementwise over the flat array x: 0 logpdf, 1 cdf, 2 sf, 3 logcdf, 4 logsf, 5 ppf."""
    for i in numba.prange(x.size):
        out[i] = _vg_point(op, d, lam, x[i])


_vg_kernel_serial = numba.njit(cache=True)(_vg_kernel.py_func)

# below this much work (points x ladder steps) the parallel kernel cannot pay for waking the
# thread pool: the serial twin runs instead
_PARALLEL_MIN_WORK = 1 << 16


@numba.njit(cache=True, nogil=True)
def _vg_log_posterior(d, lam, x):
    """log g(x) = log 2 + log F(x) + log f(x), the density of the larger of two draws (eq. 3.22)."""
    z = abs(x) / lam
    lf, ls = _vg_log_pdf_sf_any(d, z)
    lf = _log_f_at(d, lam, x, z, lf)
    lcdf = math.log(-math.expm1(ls)) if x > 0.0 else ls
    return _LOG2 + lcdf + lf - math.log(lam)


# --------------------------------------------------------------------------------------------
# public distribution
# --------------------------------------------------------------------------------------------
def _check_d_lam(d, lam):
    d = int_scalar("d", d, 1)
    lam = real_scalar("lam", lam, 0.0, lo_open=True)
    return d, lam


class InnerProduct(ScoreDistribution):
    r"""Law of <w, h>, w, h in R^d with i.i.d. N(0, lam) entries (thesis Lemma 3.1, eq. 3.18).

    A symmetric variance-gamma law with the frozen ``scipy.stats`` surface (``pdf``, ``logpdf``,
    ``cdf``, ``sf``, ``logcdf``, ``logsf``, ``ppf``, ``isf``, ``rvs``, ``mean``, ``var``,
    ``std``, ``median``, ``support``, ``interval``, ``expect``) plus :meth:`cf`. Build one with
    :func:`inner_product`; see the module docstring for the numerics.

    Parameters
    ----------
    d : int
        Embedding dimension (d >= 1); kept as the attribute ``d``.
    lam : float
        Variance of each embedding coordinate (lam > 0); the scale of the law, kept as the
        attribute ``lam``.

    Examples
    --------
    >>> from negtheory.variance_gamma import InnerProduct
    >>> x = InnerProduct(d=2, lam=1.0)   # d = 2: the Laplace law with scale lam
    >>> round(float(x.cdf(1.0)), 12) == round(1 - 0.5 * 2.718281828459045 ** -1, 12)
    True
    >>> x.var(), x.kurtosis()
    (2.0, 3.0)
    """

    name = "inner_product"

    def __init__(self, d: int, lam: float):
        self.d, self.lam = _check_d_lam(d, lam)

    def _kernel(self, op, x):
        flat = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
        out = np.empty_like(flat)
        steps = 16 if self.d >= _MIX_MIN_D else max(self.d // 2, 1)
        kernel = _vg_kernel if flat.size * steps >= _PARALLEL_MIN_WORK else _vg_kernel_serial
        kernel(op, self.d, self.lam, flat, out)
        return out.reshape(np.shape(x))

    def _support(self):
        return (-math.inf, math.inf)

    # the hooks of ScoreDistribution, each one operation of the kernel
    _logpdf = partialmethod(_kernel, _OP_LOGPDF)
    _cdf = partialmethod(_kernel, _OP_CDF)
    _sf = partialmethod(_kernel, _OP_SF)
    _logcdf = partialmethod(_kernel, _OP_LOGCDF)
    _logsf = partialmethod(_kernel, _OP_LOGSF)
    _ppf = partialmethod(_kernel, _OP_PPF)

    def _isf(self, q):
        return -self._kernel(_OP_PPF, q)

    def _rvs(self, size, rng):
        # eq. 3.8: 2X / lam = Z1 - Z2 with Z1, Z2 independent chi^2_d
        z1 = rng.chisquare(self.d, size)
        z2 = rng.chisquare(self.d, size)
        return 0.5 * self.lam * (z1 - z2)

    def _mean(self):
        return 0.0

    def _var(self):
        return self.d * self.lam * self.lam

    def std(self) -> float:
        """Standard deviation lam sqrt(d) (finite even where the variance overflows).

        Returns
        -------
        float
            lam * sqrt(d).
        """
        return self.lam * math.sqrt(self.d)

    def median(self) -> float:
        """The median, 0 (the law is symmetric).

        Returns
        -------
        float
            0.0.
        """
        return 0.0

    def interval(self, confidence: ArrayLike) -> tuple[FloatOrArray, FloatOrArray]:
        """Equal-tailed interval (ppf((1 - c)/2), ppf((1 + c)/2)) holding probability ``confidence``.

        Parameters
        ----------
        confidence : array_like of float
            Probability c in [0, 1] that the interval holds.

        Returns
        -------
        (lower, upper) : tuple of float or ndarray
            The end points, symmetric about 0 (upper = -lower), with the shape of ``confidence``.
        """
        c = real_array("confidence", confidence, 0.0, 1.0)
        lo = self.ppf((1.0 - c) / 2.0)
        return lo, -lo

    def cf(self, t: ArrayLike) -> FloatOrArray:
        r"""Characteristic function E[e^{itX}] (eq. 3.11 with X = lam Y / 2).

        .. math:: \varphi(t) = \mathbb E\big[e^{itX}\big] = (1 + \lambda^2 t^2)^{-d/2}

        Parameters
        ----------
        t : array_like of float
            Argument(s) of the characteristic function (+-inf allowed, giving 0).

        Returns
        -------
        float or ndarray
            The (real, since the law is symmetric) value in (0, 1], with the shape of ``t``.
        """
        t = as_float_array("t", t, allow_inf=True)
        return scalar_or_array((1.0 + (self.lam * t) ** 2) ** (-0.5 * self.d))

    def kurtosis(self) -> float:
        """Excess kurtosis 6 / d (the fourth cumulant of Z1 - Z2 over its squared variance).

        Returns
        -------
        float
            6 / d.
        """
        return 6.0 / self.d

    def __repr__(self):
        return f"inner_product(d={self.d}, lam={self.lam!r})"


def inner_product(d: int, lam: float) -> InnerProduct:
    r"""Prior law of a matrix-factorisation score <w_u, h_i> (thesis Lemma 3.1, eq. 3.6/3.18/3.19).

    .. math:: f(x; d, \lambda) = \frac{1}{\lambda\sqrt{\pi}\,\Gamma(d/2)}
              \Big(\frac{\lvert x \rvert}{2\lambda}\Big)^{\frac{d-1}{2}} K_{\frac{d-1}{2}}\Big(\frac{\lvert x \rvert}{\lambda}\Big)

    the law of the inner product of two independent d-dimensional vectors with i.i.d. N(0, lam)
    entries -- a symmetric variance-gamma law (eq. 3.13-3.17), characteristic function
    (1 + lam^2 t^2)^{-d/2}, mean 0, variance d lam^2.

    Parameters
    ----------
    d : int
        Embedding dimension, d >= 1.
    lam : float
        Variance of each coordinate (the :math:`\lambda` of :math:`N(0, \lambda)` in the thesis), lam > 0.

    Returns
    -------
    InnerProduct
        Frozen distribution. ``logpdf`` is finite and accurate for d up to 1024 and beyond, for
        x -> 0 and for |x| far in the tails; ``cdf`` / ``sf`` are exact ladder sums (module
        docstring), accurate to ~1e-14 without any quadrature; ``rvs`` uses the exact
        :math:`(\lambda/2)(Z_1 - Z_2)`, :math:`Z_1, Z_2 \sim \chi^2_d` of eq. 3.8.

    Raises
    ------
    ValueError
        If d is not an integer >= 1 or lam is not a finite number > 0.

    Examples
    --------
    >>> import math
    >>> from negtheory.variance_gamma import inner_product
    >>> X = inner_product(d=2, lam=0.5)          # d = 2: Laplace with scale lam
    >>> bool(abs(X.pdf(0.3) - math.exp(-0.3 / 0.5) / (2 * 0.5)) < 1e-15)
    True
    >>> X.var()                                  # d lam^2
    0.5
    >>> round(float(inner_product(27, 1.0).cdf(0.0)), 15)
    0.5
    >>> bool(abs(inner_product(1, 1.0).cdf(inner_product(1, 1.0).ppf(0.9)) - 0.9) < 1e-14)
    True
    """
    return InnerProduct(d, lam)
