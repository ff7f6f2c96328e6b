r"""Score distributions of Liu Bin's thesis: order statistics and class-conditional laws.

Every object here has the surface of a frozen ``scipy.stats`` distribution -- ``pdf``,
``logpdf``, ``cdf``, ``sf``, ``logcdf``, ``logsf``, ``ppf``, ``isf``,
``rvs(size=None, random_state=None)``, ``mean()``, ``var()``, ``std()``, ``median()``,
``support()``, ``expect(func)`` -- scalar in, scalar out, arrays broadcast like a numpy ufunc.
They are all built over a *parent* score law ``base``: any frozen scipy continuous distribution
(``scipy.stats.norm()``, ``scipy.stats.t(4)``, ...) or another distribution of this module.

Laws
----
:func:`order_statistic`
    :math:`g(x; k, n) = \frac{n!}{(k-1)!\,(n-k)!} F(x)^{k-1} f(x) [1 - F(x)]^{n-k}`
    (thesis §2.3.2).
:func:`true_negative`, :func:`false_negative`
    :math:`\phi_{TN} = \alpha \phi_{(1)} + (1 - \alpha) \phi_{(2)}` and
    :math:`\phi_{FN} = \alpha \phi_{(2)} + (1 - \alpha) \phi_{(1)}` (eq. 6.14-6.15), with
    :math:`\phi_{(1)} = 2 \phi (1 - \Phi)` and :math:`\phi_{(2)} = 2 \phi \Phi`
    (eq. 6.12-6.13 = 2.5-2.6 = 4.7-4.8). alpha = 1 gives the two order statistics of a pair.
:func:`hard_negative`
    :math:`\phi_{THN} / Z` with
    :math:`\phi_{THN} = (1 - \beta) \alpha \phi_{(1)} + \beta (1 - \alpha) \phi_{(2)}`
    (eq. 6.22) and :math:`Z = (1 - \beta) \alpha + \beta (1 - \alpha)` (eq. 6.26).
:func:`unlabeled`
    :math:`\phi_{UN} = \tau^- \phi_{TN} + \tau^+ \phi_{FN}` (eq. 6.23) with the CDF map of
    eq. 6.28-6.29.

Why one class for the last four
-------------------------------
Each of phi_TN, phi_FN, phi_THN / Z and phi_UN is phi(x) times a polynomial of degree one in
u = Phi(x), so its CDF is a quadratic in u, :math:`G(u) = b u + a u^2`, with b + a = 1 (the law
integrates to one, Lemma 6.1) and b >= 0, b + 2a >= 0 (the density is non-negative). The
CDF, survival function and inverse CDF are therefore exact: the inverse is the root

.. math:: u = \frac{2G}{b + \sqrt{b^2 + 4 a G}}

of eq. 6.29 in its cancellation-free form (exact at a = 0), followed by the parent's ``ppf``. In the upper half the same is done
for the survival function, 1 - G(1 - v) = b' v + a' v^2 with b' = b + 2a, a' = -a, and the
parent's ``isf``, so both tails keep full relative precision. :class:`QuadraticCDFLaw`
implements this once.

Fast paths
----------
For normal and uniform parents the pdf / cdf / sf / ppf / isf / rvs of the class-conditional laws
run in one numba kernel (the normal cdf / ppf of :mod:`negtheory._numeric`); other parents go
through the parent's own vectorised scipy methods. The bulk, parallel samplers are in
:mod:`negtheory.generators`. Order statistics use ``scipy.special`` (``betainc``,
``betaincinv``, ``betaln``), except with a normal parent: the log-density is one numba pass
(log Phi and log(1 - Phi) from one erfc), and ppf / isf solve log I_{Phi(z)}(k, n-k+1) = log q
(or its mirror for the upper half) by safeguarded Halley steps in numba, with a log-space
continued fraction for the incomplete beta (relative accuracy kept down to q = 1e-300) and,
for calls with many points, per-law start tables (cubic Hermite in log(-log q)) from which
one step usually converges (``bench_dists.py``: 1.3-7x scipy's ``order_statistic``).

Extending
---------
:class:`ScoreDistribution` is the reusable base: a subclass implements ``_logpdf``, ``_cdf``,
``_sf``, ``_ppf``, ``_isf`` and ``_support`` on float64 arrays (inputs already validated) and
gets validation, broadcasting, sampling by inversion and quadrature moments for free.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numba
import numpy as np
from scipy import integrate
from scipy.special import betainc, betaincinv, betaln, ndtr, ndtri

from ._docstrings import docstring
from ._numeric import _ndtr, _ndtri, _norm_logpdf, _quad_root, gauss_legendre
from ._validation import int_scalar, real_array, real_scalar, scalar_or_array
from .distribution import KIND_GENERIC, KIND_NORMAL, KIND_UNIFORM, ScoreDistribution, _Parent
from .variance_gamma import InnerProduct, inner_product

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatOrArray, FrozenDist

__all__ = [
    "inner_product",
    "InnerProduct",
    "ScoreDistribution",
    "OrderStatistic",
    "QuadraticCDFLaw",
    "order_statistic",
    "true_negative",
    "false_negative",
    "hard_negative",
    "unlabeled",
]

# the parameter documentation several laws share, written once (see negtheory._docstrings)
_doc = docstring(
    base_k_params="""
        Parameters
        ----------
        base : frozen scipy.stats continuous distribution or negtheory distribution
            The parent law with density f and CDF F.
        k : int
            Rank, 1 <= k <= n (1 = minimum, n = maximum).""",
    base_alpha_params=r"""
        Parameters
        ----------
        base : frozen scipy.stats continuous distribution or negtheory distribution
            Anchor-specific parent score law :math:`\phi` with CDF :math:`\Phi` (eq. 6.11); any continuous law.
        alpha : float in [0.5, 1]
            Probability that the positive scores above the negative (the encoder's AUC, eq. 6.21);
            1/2 is an uninformative encoder, 1 a perfect one.""",
)


# --------------------------------------------------------------------------------------------
# numba kernels: parent laws (normal: p0 = loc, p1 = scale; uniform: p0 = lo, p1 = hi)
# --------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _parent_cdf(kind, p0, p1, x):
    if kind == KIND_NORMAL:
        return _ndtr((x - p0) / p1)
    u = (x - p0) / (p1 - p0)
    return min(max(u, 0.0), 1.0)


@numba.njit(cache=True, nogil=True)
def _parent_sf(kind, p0, p1, x):
    if kind == KIND_NORMAL:
        return _ndtr(-(x - p0) / p1)
    v = (p1 - x) / (p1 - p0)
    return min(max(v, 0.0), 1.0)


@numba.njit(cache=True, nogil=True)
def _parent_logpdf(kind, p0, p1, x):
    if kind == KIND_NORMAL:
        return _norm_logpdf((x - p0) / p1) - math.log(p1)
    if p0 <= x <= p1:
        return -math.log(p1 - p0)
    return -math.inf


@numba.njit(cache=True, nogil=True)
def _parent_ppf(kind, p0, p1, u):
    if kind == KIND_NORMAL:
        return p0 + p1 * _ndtri(u)
    return p0 + (p1 - p0) * u


@numba.njit(cache=True, nogil=True)
def _parent_isf(kind, p0, p1, v):
    if kind == KIND_NORMAL:
        return p0 - p1 * _ndtri(v)
    return p1 - (p1 - p0) * v


@numba.njit(cache=True, nogil=True)
def _qlaw_ppf(kind, p0, p1, b, a, q):
    """Inverse CDF of the law with CDF b u + a u^2 in u = parent cdf (lower half via the CDF
    root and the parent ppf, upper half via the survival root and the parent isf)."""
    if q <= 0.5:
        return _parent_ppf(kind, p0, p1, _quad_root(b, a, q))
    return _parent_isf(kind, p0, p1, _quad_root(b + 2.0 * a, -a, 1.0 - q))


@numba.njit(cache=True, nogil=True)
def _qlaw_isf(kind, p0, p1, b, a, q):
    if q <= 0.5:
        return _parent_isf(kind, p0, p1, _quad_root(b + 2.0 * a, -a, q))
    return _parent_ppf(kind, p0, p1, _quad_root(b, a, 1.0 - q))


@numba.njit(cache=True, nogil=True)
def _qlaw_logpdf(kind, p0, p1, b, a, x):
    lf = _parent_logpdf(kind, p0, p1, x)
    if lf == -math.inf:
        return lf
    u = _parent_cdf(kind, p0, p1, x)
    if u <= 0.5:
        r = b + 2.0 * a * u
    else:  # b + 2a u = b' + 2a' v with v = 1 - u, computed from the survival function
        r = (b + 2.0 * a) - 2.0 * a * _parent_sf(kind, p0, p1, x)
    if r <= 0.0:
        return -math.inf
    return lf + math.log(r)


@numba.njit(cache=True, nogil=True)
def _qlaw_kernel(op, kind, p0, p1, b, a, x, out):
    """Elementwise over x: op 0 cdf, 1 sf, 2 logpdf, 3 ppf, 4 isf.

    Serial on purpose: a few tens of ns per element, and a parallel (parfor) version costs
    several seconds of compilation for no gain at the array sizes distributions are evaluated
    on; the bulk samplers in negtheory.generators are the parallel ones.
    """
    for i in range(x.size):
        xi = x[i]
        if op == 0:
            u = _parent_cdf(kind, p0, p1, xi)
            out[i] = u * (b + a * u)
        elif op == 1:
            v = _parent_sf(kind, p0, p1, xi)
            out[i] = v * ((b + 2.0 * a) - a * v)
        elif op == 2:
            out[i] = _qlaw_logpdf(kind, p0, p1, b, a, xi)
        elif op == 3:
            out[i] = _qlaw_ppf(kind, p0, p1, b, a, xi)
        else:
            out[i] = _qlaw_isf(kind, p0, p1, b, a, xi)


def _quad_root_np(b: float, a: float, g: np.ndarray) -> np.ndarray:
    """numpy twin of :func:`negtheory._numeric._quad_root` (stable root of eq. 6.29)."""
    g = np.asarray(g, dtype=np.float64)
    d = np.maximum(b * b + 4.0 * a * g, 0.0)
    den = b + np.sqrt(d)
    with np.errstate(invalid="ignore", divide="ignore"):
        u = np.where(g > 0.0, 2.0 * g / np.where(den > 0.0, den, 1.0), 0.0)
    return np.minimum(u, 1.0)


# --------------------------------------------------------------------------------------------
# order statistics
# --------------------------------------------------------------------------------------------
_SQRT1_2 = math.sqrt(0.5)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


@numba.njit(cache=True)
def _log_ndtr_pair(z):
    """(log Phi(z), log Phi(-z)) from one erfc: the smaller tail directly, the larger by log1p.

    Beyond |z| = 37, where erfc underflows, the small tail is the asymptotic series
    log Q(a) = -a^2/2 - log a - log sqrt(2 pi) + log(1 - 1/a^2 + 3/a^4 - 15/a^6 + 105/a^8)
    (relative error below 945/a^10 < 1e-13).
    """
    a = abs(z)
    if a > 37.0:
        if a == math.inf:
            small = -math.inf
        else:
            r = 1.0 / (a * a)
            small = (
                -0.5 * a * a
                - math.log(a)
                - _LOG_SQRT_2PI
                + math.log1p(r * (-1.0 + r * (3.0 + r * (-15.0 + 105.0 * r))))
            )
        large = -math.exp(small)
    else:
        c = 0.5 * math.erfc(a * _SQRT1_2)
        small = math.log(c)
        large = math.log1p(-c)
    if z < 0.0:
        return small, large
    return large, small


@numba.njit(cache=True)
def _os_normal_logpdf(x, mu, sigma, km1, nmk, c0, out):
    """log density of the k-th of n normal draws at every x (flat arrays); NaN -> -inf."""
    for i in range(x.size):
        z = (x[i] - mu) / sigma
        lo, hi = _log_ndtr_pair(z)
        v = c0 - 0.5 * z * z
        if km1 > 0.0:
            v += km1 * lo
        if nmk > 0.0:
            v += nmk * hi
        out[i] = v if v == v else -math.inf


_TINY = 1e-300


@numba.njit(cache=True)
def _lentz_step(aa, c, d):
    """One step of the modified Lentz algorithm: the new (c, d) and the factor d c of the fraction."""
    d = 1.0 + aa * d
    if abs(d) < _TINY:
        d = _TINY
    c = 1.0 + aa / c
    if abs(c) < _TINY:
        c = _TINY
    d = 1.0 / d
    return c, d, d * c


@numba.njit(cache=True)
def _log_ibeta_cf(a, b, logx, log1mx, lbeta):
    """log I_x(a, b) by its continued fraction (modified Lentz), for x < (a + 1) / (a + b + 2).

    I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) * CF, the prefactor formed in log space from
    log x and log(1 - x), so that deep tails (x down to e^-700 and below) keep relative accuracy.
    """
    x = math.exp(logx)
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _TINY:
        d = _TINY
    d = 1.0 / d
    h = d
    for m in range(1, 10_000):
        m2 = 2.0 * m
        c, d, dl = _lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), c, d)
        h *= dl
        c, d, dl = _lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), c, d)
        h *= dl
        if abs(dl - 1.0) < 2e-16:
            break
    return a * logx + b * log1mx - lbeta - math.log(a) + math.log(h)


@numba.njit(cache=True)
def _os_normal_log_cdf(z, a, b, lbeta):
    """(log G(z), log phi-density term pieces) -- log of I_{Phi(z)}(a, b) for the standard normal."""
    lo, hi = _log_ndtr_pair(z)
    if math.exp(lo) < (a + 1.0) / (a + b + 2.0):
        return _log_ibeta_cf(a, b, lo, hi, lbeta), lo, hi
    ls = _log_ibeta_cf(b, a, hi, lo, lbeta)
    return math.log1p(-math.exp(ls)), lo, hi


_GL8_X, _GL8_W = gauss_legendre(8)


@numba.njit(cache=True)
def _os_normal_ppf_lower(lq, a, b, lbeta, z0):
    """z with log I_{Phi(z)}(a, b) = lq (standard-normal parent), by safeguarded Halley steps on
    log G(z) - lq (log G is concave: the CDF of a log-concave law), from ``z0`` (NaN: the
    approximations below).

    Converged when a Halley step starts from |log G - lq| < 1e-6 (its result is then within
    O(1e-18) in log G) or the step is below 1e-15 relative; a bracket of the root catches
    steps that leave it (bisection, or expansion while one side is unknown)."""
    z = z0
    if z == z0:  # not NaN: a start is given
        return _os_normal_halley(lq, a, b, lbeta, z0, math.nan, math.nan, math.inf, math.inf)
    # start: the larger of the beta-quantile approximation of Abramowitz & Stegun 26.5.22
    # (a, b > 1) and the lower-tail asymptote Phi(z)^a / (a B) >= G(z) (b >= 1), which lies left
    # of the root
    z = -math.inf
    if lq > -700.0:
        y = -_ndtri(math.exp(lq))  # upper normal quantile of 1 - q
        lam = (y * y - 3.0) / 6.0
        ra, rb = 1.0 / (2.0 * a - 1.0), 1.0 / (2.0 * b - 1.0)
        h = 2.0 / (ra + rb)
        w = y * math.sqrt(h + lam) / h - (rb - ra) * (lam + 5.0 / 6.0 - 2.0 / (3.0 * h))
        e = math.log(b / a) + 2.0 * w  # u = 1 / (1 + e^e)
        lu0 = -e - math.log1p(math.exp(-e)) if e > 0.0 else -math.log1p(math.exp(e))
        if lu0 > -700.0 and h + lam > 0.0:
            z = _ndtri(math.exp(lu0))
    lu = (lq + math.log(a) + lbeta) / a
    if lu > -700.0:
        zt = _ndtri(math.exp(lu))
    else:
        t = -2.0 * lu
        zt = -math.sqrt(t - math.log(t) - math.log(2.0 * math.pi))
    if not (z > zt and z < math.inf):
        z = zt
    return _os_normal_halley(lq, a, b, lbeta, z, math.nan, math.nan, math.inf, math.inf)


@numba.njit(cache=True)
def _os_normal_halley(lq, a, b, lbeta, z, zp, lgp, fpp, Lp):
    """The iteration of _os_normal_ppf_lower from the start z; (zp, lgp, fpp, Lp): a point with
    known log G, d log G / dz and d log g / dz (NaN, NaN, inf, inf: none) for the short-step
    quadrature below."""
    c0 = -_LOG_SQRT_2PI - lbeta
    zlo = -math.inf
    zhi = math.inf
    long_cf = a + b > 60.0  # the continued fraction then costs more than 8 density evaluations
    for _ in range(200):
        dz = z - zp
        if long_cf and abs(dz) * fpp <= 1.0 and abs(dz * Lp) <= 1.0:
            # a short step from a known point: G(z) = G(zp) + int_zp^z g (8-point Gauss-Legendre,
            # relative to G(zp); log g changes by about 1 at most over the step: error ~1e-17),
            # instead of a new continued fraction (tens of terms when k and n - k are large)
            lo, hi = _log_ndtr_pair(z)
            s = 0.0
            for j in range(8):
                t = z - 0.5 * dz * (1.0 - _GL8_X[j])
                l1, h1 = _log_ndtr_pair(t)
                s += _GL8_W[j] * math.exp(c0 - 0.5 * t * t + (a - 1.0) * l1 + (b - 1.0) * h1 - lgp)
            lg = lgp + math.log1p(0.5 * dz * s)
        else:
            lg, lo, hi = _os_normal_log_cdf(z, a, b, lbeta)
        lphi = -0.5 * z * z - _LOG_SQRT_2PI
        ldens = c0 - 0.5 * z * z + (a - 1.0) * lo + (b - 1.0) * hi
        f = lg - lq
        fp = math.exp(ldens - lg)  # d log G / dz
        # d log g / dz
        L = -z + (a - 1.0) * math.exp(lphi - lo) - (b - 1.0) * math.exp(lphi - hi)
        zp, lgp, fpp, Lp = z, lg, fp, L
        if f < 0.0:
            zlo = z
        elif f > 0.0:
            zhi = z
        else:
            break
        if fp > 0.0 and fp < math.inf:
            corr = 1.0 - 0.5 * f * (L - fp) / fp
            if not (corr >= 0.5):  # Halley's correction within [1/2, 2]; NaN -> Newton's
                corr = 0.5 if corr < 0.5 else 1.0
            elif corr > 2.0:
                corr = 2.0
            znew = z - f / (fp * corr)
        else:
            znew = math.nan
        if (
            znew >= zlo
            and znew <= zhi
            and (abs(f) < 1e-6 or abs(znew - z) <= 1e-15 * (1.0 + abs(z)))
        ):
            return znew  # the residual after a Halley step from |f| < 1e-6 is O(f^3)
        if not (znew > zlo and znew < zhi):  # outside the bracket (or no step): bisect / expand
            if zlo > -math.inf and zhi < math.inf:
                znew = 0.5 * (zlo + zhi)
            elif zlo > -math.inf:
                znew = zlo + 1.0 + abs(zlo)
            else:
                znew = zhi - 1.0 - abs(zhi)
        if znew == z:
            break
        z = znew
    return z


# start table of the quantile solver: z (and dz/dv) at log q = -e^v on a uniform grid in v,
# from log q = log(1/2) down to below the smallest double
_OS_V0 = math.log(math.log(2.0))
_OS_V1 = math.log(746.0)
_OS_NODES = 256
_OS_DV = (_OS_V1 - _OS_V0) / (_OS_NODES - 1)


@numba.njit(cache=True)
def _os_normal_ppf_table(a, b, lbeta):
    """[z, dz/dv] at the grid nodes (full solves), for cubic Hermite starts (see _os_normal_ppf)."""
    tab = np.empty((_OS_NODES, 5))
    c0 = -_LOG_SQRT_2PI - lbeta
    for i in range(_OS_NODES):
        lq = -math.exp(_OS_V0 + i * _OS_DV)
        z = _os_normal_ppf_lower(lq, a, b, lbeta, math.nan)
        lo, hi = _log_ndtr_pair(z)
        fp = math.exp(c0 - 0.5 * z * z + (a - 1.0) * lo + (b - 1.0) * hi - lq)  # d log G / dz
        lphi = -0.5 * z * z - _LOG_SQRT_2PI
        tab[i, 0] = z
        tab[i, 1] = lq / fp  # dz/dv = (dz/dlq)(dlq/dv), dlq/dv = lq
        tab[i, 2] = lq  # log G(z), to solver accuracy: an anchor for short steps
        tab[i, 3] = fp
        tab[i, 4] = (
            -z + (a - 1.0) * math.exp(lphi - lo) - (b - 1.0) * math.exp(lphi - hi)
        )  # d log g / dz
    return tab


@numba.njit(cache=True)
def _os_solve_tabled(lq, a, b, lbeta, tab):
    """z with log G(z) = lq, started from the cubic Hermite interpolation of the table (with its
    nearest node as the anchor of the first step) when lq lies in it."""
    s = (math.log(-lq) - _OS_V0) / _OS_DV if lq < 0.0 else -1.0
    if tab.shape[0] == 0 or not (s >= 0.0 and s <= _OS_NODES - 1):
        return _os_normal_ppf_lower(lq, a, b, lbeta, math.nan)
    i = min(int(s), _OS_NODES - 2)
    t = s - i
    t2 = t * t
    t3 = t2 * t
    z = (
        (2.0 * t3 - 3.0 * t2 + 1.0) * tab[i, 0]
        + (t3 - 2.0 * t2 + t) * _OS_DV * tab[i, 1]
        + (3.0 * t2 - 2.0 * t3) * tab[i + 1, 0]
        + (t3 - t2) * _OS_DV * tab[i + 1, 1]
    )
    j = i if t < 0.5 else i + 1
    return _os_normal_halley(lq, a, b, lbeta, z, tab[j, 0], tab[j, 2], tab[j, 3], tab[j, 4])


@numba.njit(cache=True)
def _os_normal_ppf(q, a, b, lbeta, mu, sigma, tab_a, tab_b, out):
    """Quantiles of the k-th of n normal draws (a = k, b = n - k + 1 >= 2 both); q flat.

    The isf is this ppf of the mirror law: (b, a, mu, -sigma, tab_b, tab_a).
    For q >= 1/2 (where 1 - q is exact) the mirror law is solved at 1 - q: X_(k) of N(0, 1)
    is -X_(n-k+1), so the upper tail is solved on log(1 - G) as accurately as the lower one.
    ``tab_a`` / ``tab_b``: start tables of the law and of its mirror (_os_normal_ppf_table, or
    empty): from their interpolated starts one Halley step usually converges, so a point costs
    one incomplete-beta evaluation. They change only the start, not the convergence test.
    """
    for i in range(q.size):
        p = q[i]
        if not (p >= 0.0 and p <= 1.0):
            out[i] = math.nan
        elif p == 0.0:
            out[i] = -math.inf
        elif p == 1.0:
            out[i] = math.inf
        elif p >= 0.5:
            lq = math.log1p(-p)
            out[i] = mu - sigma * _os_solve_tabled(lq, b, a, lbeta, tab_b)
        else:
            lq = math.log(p)
            out[i] = mu + sigma * _os_solve_tabled(lq, a, b, lbeta, tab_a)


@_doc
class OrderStatistic(ScoreDistribution):
    r"""k-th smallest of n i.i.d. draws from ``base`` (thesis §2.3.2).

    .. math:: g(x; k, n) = \frac{f(x)\, F(x)^{k-1} [1 - F(x)]^{n-k}}{B(k, n-k+1)},

    the Beta(k, n-k+1) density of F(x) times f(x). :func:`order_statistic` builds one.

    %(base_k_params)s
    n : int
        Sample size, n >= 1.

    Examples
    --------
    >>> import scipy.stats
    >>> from negtheory.dists import OrderStatistic
    >>> mx = OrderStatistic(scipy.stats.uniform(), k=2, n=2)   # max of two uniforms: CDF u^2
    >>> float(mx.cdf(0.5)), round(mx.mean(), 12)
    (0.25, 0.666666666667)
    """

    name = "order_statistic"

    def __init__(self, base: FrozenDist, k: int, n: int):
        self._parent = _Parent(base)
        self.base = base
        self.n = int_scalar("n", n, 1)
        self.k = int_scalar("k", k, 1, self.n)
        self._a = float(self.k)
        self._b = float(self.n - self.k + 1)
        self._lognorm = float(betaln(self._a, self._b))
        # q below which the quantile's parent CDF value u = I^{-1}_q(k, n-k+1) is <= 1/2 (and the
        # mirror for isf): one incomplete-beta inverse per point picks the accurate branch
        self._q_half = float(betainc(self._a, self._b, 0.5))
        self._q_half_sf = float(betainc(self._b, self._a, 0.5))
        self._normal = self._parent.kind == KIND_NORMAL

    def _support(self):
        return self._parent.support()

    @staticmethod
    def _beta_inv(a, b, q):
        """Inverse of the regularised incomplete beta I_u(a, b) = q; closed forms for a or b = 1.

        I_u(1, b) = 1 - (1 - u)^b and I_u(a, 1) = u^a (the minimum and the maximum of a sample).
        """
        if a == 1.0:
            return q if b == 1.0 else -np.expm1(np.log1p(-q) / b)
        if b == 1.0:
            return np.exp(np.log(q) / a)
        return betaincinv(a, b, q)

    def _logpdf(self, x):
        p = self._parent
        if self._normal:
            # fast path (normal parent): one numba pass, log Phi and log(1 - Phi) from one erfc
            xf = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
            out = np.empty_like(xf)
            c0 = -math.log(p.p1) - _LOG_SQRT_2PI - self._lognorm
            _os_normal_logpdf(xf, p.p0, p.p1, float(self.k - 1), float(self.n - self.k), c0, out)
            return out.reshape(np.shape(x))
        out = p.logpdf(x) - self._lognorm
        # skip the zero powers: 0 * log(0) would be nan at the support ends
        if self.k > 1:
            out = out + (self.k - 1) * p.logcdf(x)
        if self.n > self.k:
            out = out + (self.n - self.k) * p.logsf(x)
        return np.where(np.isnan(out), -np.inf, out)

    def _cdf(self, x):
        if self._normal:
            return betainc(self._a, self._b, ndtr((x - self._parent.p0) / self._parent.p1))
        return betainc(self._a, self._b, self._parent.cdf(x))

    def _sf(self, x):
        # 1 - I_F(k, n-k+1) = I_{1-F}(n-k+1, k): exact in the upper tail
        if self._normal:
            return betainc(self._b, self._a, ndtr((self._parent.p0 - x) / self._parent.p1))
        return betainc(self._b, self._a, self._parent.sf(x))

    def _ppf_tables(self, size):
        """Start tables of the normal-parent quantile solver for the law and its mirror.

        Built (2 x 256 full solves) at the first call with at least 2,000 points and kept;
        smaller calls before that solve from the closed-form starts (same results to the
        solver's tolerance)."""
        tabs = getattr(self, "_tabs", None)
        if tabs is None:
            if size < 2000:
                empty = np.empty((0, 5))
                return empty, empty
            tabs = self._tabs = (
                _os_normal_ppf_table(self._a, self._b, self._lognorm),
                _os_normal_ppf_table(self._b, self._a, self._lognorm),
            )
        return tabs

    def _normal_quantile(self, q, mirror: bool):
        """The numba quantile kernel at ``q`` for a normal parent: ppf, or isf through the mirror law."""
        qf = np.ascontiguousarray(q, dtype=np.float64).reshape(-1)
        out = np.empty_like(qf)
        ta, tb = self._ppf_tables(qf.size)
        mu, sigma = self._parent.p0, self._parent.p1
        if mirror:
            _os_normal_ppf(qf, self._b, self._a, self._lognorm, mu, -sigma, tb, ta, out)
        else:
            _os_normal_ppf(qf, self._a, self._b, self._lognorm, mu, sigma, ta, tb, out)
        return out.reshape(np.shape(q))

    def _ppf(self, q):
        return self._quantile(q, mirror=False)

    def _isf(self, q):
        return self._quantile(q, mirror=True)

    def _quantile(self, q, mirror: bool):
        """ppf (``mirror`` False) or isf (True) at ``q``: the isf is the ppf of the mirror law.

        sf(x; k, n) = cdf(-x; n-k+1, n) of -X, so the isf swaps the Beta parameters (a, b) and
        the parent's ppf / isf of the ppf.
        """
        a, b = (self._b, self._a) if mirror else (self._a, self._b)
        if self._normal:
            if self._a != 1.0 and self._b != 1.0:
                # one numba pass: Halley steps on log I_{Phi(z)}(k, n-k+1) (see _os_normal_ppf)
                return self._normal_quantile(q, mirror=mirror)
            # single pass: u = I^{-1}_q(a, b) > 1/2 exactly when q > I_{1/2}(a, b); there (for
            # q >= 1/2, where 1 - q is exact) go through 1 - u = I^{-1}_{1-q}(b, a)
            mu, sign_sigma = self._parent.p0, (-1.0 if mirror else 1.0) * self._parent.p1
            far = (q >= 0.5) & (q > (self._q_half_sf if mirror else self._q_half))
            x = np.empty(q.shape)
            near = ~far
            x[near] = mu + sign_sigma * ndtri(self._beta_inv(a, b, q[near]))
            x[far] = mu - sign_sigma * ndtri(self._beta_inv(b, a, 1.0 - q[far]))
            return x
        inner, outer = (
            (self._parent.isf, self._parent.ppf) if mirror else (self._parent.ppf, self._parent.isf)
        )
        u = betaincinv(a, b, q)
        x = inner(u)
        far = (u > 0.5) & (q >= 0.5)
        if far.any():
            x = np.array(x, dtype=np.float64)
            x[far] = outer(betaincinv(b, a, 1.0 - q[far]))
        return x

    def _rvs(self, size, rng):
        # F(X_(k)) ~ Beta(k, n-k+1) = G1 / (G1 + G2) with G1 ~ Gamma(k), G2 ~ Gamma(n-k+1);
        # the gamma pair gives both F and 1 - F without cancellation, so the upper tail goes
        # through the parent's isf (maxima of huge samples stay accurate).
        g1 = rng.standard_gamma(self._a, size)
        g2 = rng.standard_gamma(self._b, size)
        s = g1 + g2
        u = np.asarray(g1 / s, dtype=np.float64)
        v = np.asarray(g2 / s, dtype=np.float64)
        x = np.empty(u.shape)
        low = u <= 0.5
        x[low] = self._parent.ppf(u[low])
        x[~low] = self._parent.isf(v[~low])
        return x

    def _quantile_integral(self, func):
        """E[func(X_(k))] = int_0^1 func(Q(t)) dt, Q the quantile function of X_(k).

        The substitution t = I_F(k, n-k+1) absorbs the Beta(k, n-k+1) weight of F(X_(k)), however
        concentrated it is (k, n up to 1e6 and beyond), into Q, which :meth:`_ppf` evaluates to
        full precision at both ends; the remaining integrand is smooth inside (0, 1) with at
        most the integrable end singularities of the parent's quantile function.
        """

        def integrand(t):
            return func(float(self._ppf(np.array([t]))[0]))

        total = 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            for a, b in ((0.0, 0.5), (0.5, 1.0)):
                total += integrate.quad(integrand, a, b, limit=200, epsabs=0.0, epsrel=1e-12)[0]
        return total

    def _mean(self):
        if self._parent.kind == KIND_UNIFORM:  # U_(k) ~ Beta(k, n-k+1): mean k / (n + 1)
            lo, hi = self._parent.p0, self._parent.p1
            return lo + (hi - lo) * (self._a / (self._a + self._b))
        return self._quantile_integral(lambda x: x)

    def _var(self):
        if self._parent.kind == KIND_UNIFORM:  # Beta variance a b / ((a + b)^2 (a + b + 1))
            ab = self._a + self._b
            return (
                (self._parent.p1 - self._parent.p0) ** 2
                * (self._a / ab)
                * (self._b / ab)
                / (ab + 1.0)
            )
        m = self._mean()
        return self._quantile_integral(lambda x: (x - m) ** 2)

    def __repr__(self):
        return f"order_statistic({self._parent.describe()}, k={self.k}, n={self.n})"


@_doc
def order_statistic(base: FrozenDist, k: int, n: int) -> OrderStatistic:
    r"""Law of the k-th smallest of n i.i.d. draws from ``base`` (thesis §2.3.2).

    .. math:: g(x; k, n) = \frac{n!}{(k-1)!(n-k)!} F(x)^{k-1} f(x) [1 - F(x)]^{n-k}

    With n = 2 this is eq. 2.5 (k = 1, the smaller) and eq. 2.6 (k = 2, the larger).

    %(base_k_params)s
    n : int
        Sample size, n >= 1.

    Returns
    -------
    OrderStatistic
        cdf = I_F(k, n-k+1) (regularised incomplete beta), ppf by inverting that Beta law of
        F(x) (``betaincinv``) followed by the parent's ppf; log-space density, so n can be
        large (1e6 works).

    Examples
    --------
    >>> import scipy.stats
    >>> from negtheory.dists import order_statistic
    >>> g = order_statistic(scipy.stats.norm(1, 5 ** 0.5), k=2, n=5)   # thesis Fig. 2.3
    >>> round(float(g.cdf(1.0)), 6)   # P(X_(2) <= median) = P(Binomial(5, 1/2) >= 2)
    0.8125
    >>> round(order_statistic(scipy.stats.uniform(), 3, 4).mean(), 12)  # k / (n + 1)
    0.6
    """
    return OrderStatistic(base, k, n)


# --------------------------------------------------------------------------------------------
# class-conditional laws: CDF quadratic in the parent CDF
# --------------------------------------------------------------------------------------------
_LOG2 = math.log(2.0)


class QuadraticCDFLaw(ScoreDistribution):
    r"""Law with density phi(x) (b + 2 a Phi(x)) and CDF b Phi + a Phi^2 over a parent phi.

    .. math::
        g(x) = \phi(x)\,[b + 2a\,\Phi(x)], \qquad G(x) = b\,\Phi(x) + a\,\Phi(x)^2.

    The common form of phi_TN, phi_FN, phi_THN / Z and phi_UN (thesis eq. 6.14-6.15,
    6.22-6.23, 6.26-6.28); build one with :func:`true_negative`, :func:`false_negative`,
    :func:`hard_negative` or :func:`unlabeled`.

    Parameters
    ----------
    base : frozen scipy.stats continuous distribution or negtheory distribution
        The parent law :math:`\phi` with CDF :math:`\Phi`.
    b : float
        Linear coefficient, b >= 0 (the density at the parent's lower end is :math:`b\phi`).
    a : float
        Quadratic coefficient; b + a = 1 (the law integrates to one, to 1e-12) and
        b + 2a >= 0 (the density is non-negative). a = 0 gives the parent itself.
    name : str, optional
        Name shown by ``repr`` (default ``"quadratic_cdf_law"``).
    params : dict of str to float, optional
        Named parameters (e.g. ``alpha``, ``beta``, ``tau_plus``), kept in ``params``, set as
        attributes and shown by ``repr``.

    Attributes
    ----------
    a, b : float
        Coefficients of :math:`G(u) = a u^2 + b u` (the a, b of eq. 6.29).
    base : frozen distribution
        The parent distribution.

    Examples
    --------
    >>> import scipy.stats
    >>> from negtheory.dists import QuadraticCDFLaw
    >>> mx = QuadraticCDFLaw(scipy.stats.uniform(), b=0.0, a=1.0)   # CDF u^2: max of two
    >>> float(mx.cdf(0.5)), float(mx.ppf(0.25)), float(mx.density_ratio(0.5))
    (0.25, 0.5, 1.0)
    """

    name = "quadratic_cdf_law"
    Z: float  # set by hard_negative (eq. 6.26)
    tau_plus: float  # set by unlabeled
    tau_minus: float  # set by unlabeled

    def __init__(
        self,
        base: FrozenDist,
        b: float,
        a: float,
        *,
        name: str | None = None,
        params: dict[str, float] | None = None,
    ):
        self._parent = _Parent(base)
        self.base = base
        b = real_scalar("b", b)  # validated here: a None or NaN would otherwise surface in cdf()
        a = real_scalar("a", a)
        if not (b >= -1e-15 and b + 2.0 * a >= -1e-15 and abs(a + b - 1.0) <= 1e-12):
            raise ValueError(
                f"coefficients must satisfy b >= 0, b + 2a >= 0, a + b = 1; got b={b!r}, a={a!r}"
            )
        self.b = max(b, 0.0)
        self.a = 1.0 - self.b  # exactly normalised
        if self.b + 2.0 * self.a < 0.0:
            self.a = -0.5 * self.b
        if name is not None:
            self.name = name
        self.params = dict(params or {})
        for key, value in self.params.items():  # alpha, beta, tau_plus as attributes
            setattr(self, key, value)

    # the numba kernel for normal / uniform parents
    def _kernel(self, op, x):
        p = self._parent
        flat = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
        out = np.empty_like(flat)
        _qlaw_kernel(op, p.kind, p.p0, p.p1, self.b, self.a, flat, out)
        return out.reshape(np.shape(x))

    @property
    def fast(self) -> bool:
        """True when the parent has a numba fast path (normal or uniform)."""
        return self._parent.kind != KIND_GENERIC

    def _support(self):
        return self._parent.support()

    def cdf_from_parent_cdf(self, u: ArrayLike) -> FloatOrArray:
        r"""This law's CDF G(u) = b u + a u^2 at the point where the parent CDF is u (eq. 6.28).

        Parameters
        ----------
        u : array_like of float
            Parent CDF value(s) :math:`\Phi(x) \in [0, 1]`.

        Returns
        -------
        float or ndarray
            G(u) in [0, 1], with the shape of ``u``.
        """
        u = real_array("u", u, 0.0, 1.0)
        return scalar_or_array(u * (self.b + self.a * u))

    def parent_cdf(self, p: ArrayLike) -> FloatOrArray:
        r"""Map a CDF value p of this law back to the parent CDF (thesis eq. 6.29).

        Solves a u^2 + b u = p for u in [0, 1] as

        .. math:: u = \frac{2p}{b + \sqrt{b^2 + 4 a p}},

        the root of eq. 6.29, :math:`u = (-b + \sqrt{b^2 + 4ap}) / (2a)`, without its
        cancellation, exact also at a = 0 (alpha = 1/2 or tau+ = 1/2, where eq. 6.29 as printed
        divides by zero).

        Parameters
        ----------
        p : array_like of float
            CDF value(s) of this law, in [0, 1].

        Returns
        -------
        float or ndarray
            The parent CDF value(s) u in [0, 1], with the shape of ``p``.

        Examples
        --------
        >>> import scipy.stats
        >>> from negtheory.dists import unlabeled
        >>> un = unlabeled(scipy.stats.norm(), alpha=0.9, tau_plus=0.1)
        >>> round(float(un.parent_cdf(un.cdf(0.3))), 12) == round(float(scipy.stats.norm.cdf(0.3)), 12)
        True
        """
        p = real_array("p", p, 0.0, 1.0)
        return scalar_or_array(_quad_root_np(self.b, self.a, p))

    def density_ratio(self, u: ArrayLike) -> FloatOrArray:
        """Ratio phi_law(x) / phi(x) = b + 2 a u as a function of the parent CDF u = Phi(x).

        Parameters
        ----------
        u : array_like of float
            Parent CDF value(s) in [0, 1].

        Returns
        -------
        float or ndarray
            b + 2 a u (non-negative), with the shape of ``u``.
        """
        u = real_array("u", u, 0.0, 1.0)
        return scalar_or_array(self.b + 2.0 * self.a * u)

    def _cdf(self, x):
        if self.fast:
            return self._kernel(0, x)
        u = self._parent.cdf(x)
        return u * (self.b + self.a * u)

    def _sf(self, x):
        if self.fast:
            return self._kernel(1, x)
        v = self._parent.sf(x)
        return v * ((self.b + 2.0 * self.a) - self.a * v)

    def _logcdf(self, x):
        # log G(u) = log u + log(b + a u) from the parent's log-CDF: no underflow of u deep in
        # the lower tail (log(cdf(x)) gives -inf below x ~ -38 for a normal parent)
        # the lower tail; above the parent's median log1p(-sf) is the accurate form
        logu = self._parent.logcdf(x)
        with np.errstate(divide="ignore"):
            upper = np.log1p(-self._sf(x))
        return np.where(logu <= -_LOG2, self._log_quadratic(logu, self.b, self.a), upper)

    def _logsf(self, x):
        # 1 - G = v ((b + 2a) - a v), v = 1 - u
        logv = self._parent.logsf(x)
        with np.errstate(divide="ignore"):
            lower = np.log1p(-self._cdf(x))
        return np.where(
            logv <= -_LOG2, self._log_quadratic(logv, self.b + 2.0 * self.a, -self.a), lower
        )

    @staticmethod
    def _log_quadratic(logu, c1, c2):
        """log(u (c1 + c2 u)) from log u, for c1 >= 0, c1 + c2 >= 0."""
        logu = np.asarray(logu, dtype=np.float64)
        u = np.exp(logu)
        with np.errstate(divide="ignore", invalid="ignore"):
            if c1 > 0.0:
                out = logu + math.log(c1) + np.log1p((c2 / c1) * u)
            else:  # c1 = 0: G = c2 u^2
                out = 2.0 * logu + math.log(c2)
        return np.where(np.isnan(out), -np.inf, out)

    def _logpdf(self, x):
        if self.fast:
            return self._kernel(2, x)
        p = self._parent
        u = p.cdf(x)
        r = np.where(
            u <= 0.5, self.b + 2.0 * self.a * u, (self.b + 2.0 * self.a) - 2.0 * self.a * p.sf(x)
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            out = p.logpdf(x) + np.log(np.maximum(r, 0.0))
        return np.where(np.isnan(out), -np.inf, out)

    def _ppf(self, q):
        if self.fast:
            return self._kernel(3, q)
        low = q <= 0.5
        x = np.empty(q.shape)
        x[low] = self._parent.ppf(_quad_root_np(self.b, self.a, q[low]))
        x[~low] = self._parent.isf(_quad_root_np(self.b + 2.0 * self.a, -self.a, 1.0 - q[~low]))
        return x

    def _isf(self, q):
        if self.fast:
            return self._kernel(4, q)
        low = q <= 0.5
        x = np.empty(q.shape)
        x[low] = self._parent.isf(_quad_root_np(self.b + 2.0 * self.a, -self.a, q[low]))
        x[~low] = self._parent.ppf(_quad_root_np(self.b, self.a, 1.0 - q[~low]))
        return x

    # moments: E_G[h(X)] = E[h(X)] + a (E[h(max(X1, X2))] - E[h(X)]) because
    # G(u) = u + a (u^2 - u) mixes the parent (CDF u) and the max of two (CDF u^2)
    def _mean(self):
        p = self._parent
        if p.kind == KIND_NORMAL:
            # E max(X1, X2) - E X = sigma / sqrt(pi)
            return p.p0 + self.a * p.p1 / math.sqrt(math.pi)
        if p.kind == KIND_UNIFORM:
            # E max - E X = (hi - lo) / 6
            return 0.5 * (p.p0 + p.p1) + self.a * (p.p1 - p.p0) / 6.0
        m = float(p.dist.mean())
        if not math.isfinite(m):
            return m
        return super()._mean()

    def _var(self):
        p = self._parent
        if p.kind == KIND_NORMAL:
            mu, s = p.p0, p.p1
            # E max^2 - E X^2 = 2 mu sigma / sqrt(pi)
            m2 = mu * mu + s * s + self.a * 2.0 * mu * s / math.sqrt(math.pi)
        elif p.kind == KIND_UNIFORM:
            lo, length = p.p0, p.p1 - p.p0
            ex2 = lo * lo + lo * length + length * length / 3.0
            m2 = ex2 + self.a * (lo * length / 3.0 + length * length / 6.0)
        else:
            v = float(p.dist.var())
            if not math.isfinite(v):
                return v
            return super()._var()
        m = self._mean()
        return max(m2 - m * m, 0.0)

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.name}({self._parent.describe()}{', ' if params else ''}{params})"


def _alpha(alpha) -> float:
    return real_scalar("alpha", alpha, 0.5, 1.0)


@_doc
def true_negative(base: FrozenDist, alpha: float) -> QuadraticCDFLaw:
    r"""Class-conditional law of true-negative scores phi_TN (thesis eq. 6.14).

    .. math:: \phi_{TN} = \alpha \phi_{(1)} + (1-\alpha) \phi_{(2)}
              = \phi(x) [2\alpha + (2 - 4\alpha) \Phi(x)]

    Its CDF in u = Phi(x) is

    .. math:: G_{TN}(u) = 2\alpha u + (1 - 2\alpha) u^2;

    alpha = 1 gives the smaller of two draws (eq. 2.5 / 4.7), alpha = 1/2 the parent itself.

    %(base_alpha_params)s

    Returns
    -------
    QuadraticCDFLaw
        The law with :math:`b = 2\alpha` and :math:`a = 1 - 2\alpha` (``params = {"alpha": alpha}``).

    Examples
    --------
    >>> import scipy.stats
    >>> from negtheory.dists import true_negative
    >>> tn = true_negative(scipy.stats.uniform(), alpha=0.9)
    >>> float(tn.cdf(0.5))          # 2 (0.9)(0.5) + (1 - 1.8)(0.25)
    0.7
    >>> round(float(tn.mean()), 12)  # 1/2 + (1 - 2 alpha) / 6
    0.366666666667
    """
    alpha = _alpha(alpha)
    return QuadraticCDFLaw(
        base, 2.0 * alpha, 1.0 - 2.0 * alpha, name="true_negative", params={"alpha": alpha}
    )


@_doc
def false_negative(base: FrozenDist, alpha: float) -> QuadraticCDFLaw:
    r"""Class-conditional law of false-negative scores phi_FN (thesis eq. 6.15).

    .. math:: \phi_{FN} = \alpha \phi_{(2)} + (1-\alpha) \phi_{(1)}
              = \phi(x) [2(1-\alpha) + (4\alpha - 2) \Phi(x)]

    Its CDF in u = Phi(x) is

    .. math:: G_{FN}(u) = 2(1 - \alpha) u + (2\alpha - 1) u^2;

    alpha = 1 gives the larger of two draws (eq. 2.6 / 4.8).

    %(base_alpha_params)s

    Returns
    -------
    QuadraticCDFLaw
        The law with :math:`b = 2(1 - \alpha)` and :math:`a = 2\alpha - 1` (``params = {"alpha": alpha}``).

    Examples
    --------
    >>> import scipy.stats
    >>> from negtheory.dists import false_negative
    >>> fn = false_negative(scipy.stats.norm(), alpha=1.0)   # max of two standard normals
    >>> round(float(fn.mean()), 12) == round(1 / 3.141592653589793 ** 0.5, 12)
    True
    """
    alpha = _alpha(alpha)
    return QuadraticCDFLaw(
        base, 2.0 * (1.0 - alpha), 2.0 * alpha - 1.0, name="false_negative", params={"alpha": alpha}
    )


@_doc
def hard_negative(base: FrozenDist, alpha: float, beta: float) -> QuadraticCDFLaw:
    r"""Hard-negative target law phi_THN / Z (thesis eq. 6.22 and 6.26).

    .. math:: \phi_{THN} = (1-\beta)\alpha \phi_{(1)} + \beta(1-\alpha)\phi_{(2)},\quad
              Z = (1-\beta)\alpha + \beta(1-\alpha)

    so that

    .. math::
        \frac{\phi_{THN}(x)}{Z} = \frac{\phi(x)\,[2(1-\beta)\alpha + 2(\beta - \alpha)\Phi(x)]}{Z},
        \qquad G(u) = \frac{2(1-\beta)\alpha\, u + (\beta - \alpha)\, u^2}{Z}.

    beta = 1/2 gives phi_TN, beta = 0 the easy component phi_(1), beta = 1 the hard component
    phi_(2).

    %(base_alpha_params)s
    beta : float in [0, 1]
        Hardness level: the weight moved to the misranked (hard) component.

    Returns
    -------
    QuadraticCDFLaw
        The normalised law phi_THN / Z; its attribute ``Z`` holds the normaliser of eq. 6.26.

    Raises
    ------
    ValueError
        For :math:`\alpha = 1` and :math:`\beta = 1`: Z = 0, the hard component :math:`(1 - \alpha)\,\phi_{(2)}` is empty.

    Examples
    --------
    >>> import scipy.stats
    >>> from negtheory.dists import hard_negative
    >>> h = hard_negative(scipy.stats.uniform(), alpha=0.8, beta=0.9)
    >>> round(h.Z, 12)
    0.26
    """
    alpha = _alpha(alpha)
    beta = real_scalar("beta", beta, 0.0, 1.0)
    z = (1.0 - beta) * alpha + beta * (1.0 - alpha)
    if z <= 0.0:
        raise ValueError(
            "hard_negative: alpha = 1 with beta = 1 leaves no mass: Z = (1 - beta) alpha + beta (1 - alpha) = 0 "
            "(thesis eq. 6.26) -- a perfect encoder has no misranked hard negatives; use beta < 1 or alpha < 1"
        )
    law = QuadraticCDFLaw(
        base,
        2.0 * (1.0 - beta) * alpha / z,
        (beta - alpha) / z,
        name="hard_negative",
        params={"alpha": alpha, "beta": beta},
    )
    law.Z = z
    return law


@_doc
def unlabeled(base: FrozenDist, alpha: float, tau_plus: float) -> QuadraticCDFLaw:
    r"""Law of unlabeled scores phi_UN, the tau-mixture of phi_TN and phi_FN (thesis eq. 6.23, 6.27-6.29).

    .. math:: \phi_{UN} = \tau^- \phi_{TN} + \tau^+ \phi_{FN} \qquad (\text{eq. 6.23}).

    Its CDF is (eq. 6.28)

    .. math::
        \Phi_{UN} = a\,\Phi^2 + b\,\Phi, \qquad a = (1 - 2\alpha)(\tau^- - \tau^+), \qquad
        b = 2\,[\alpha \tau^- + (1 - \alpha) \tau^+];

    :meth:`QuadraticCDFLaw.parent_cdf` maps Phi_UN back to Phi by the stable root of eq. 6.29
    (exact at a = 0).

    %(base_alpha_params)s
    tau_plus : float in (0, 1)
        Class prior of false negatives (positives) among the unlabeled; :math:`\tau^- = 1 - \tau^+`.

    Returns
    -------
    QuadraticCDFLaw
        The mixture law, with attributes ``tau_plus`` and ``tau_minus``.

    Examples
    --------
    >>> import scipy.stats
    >>> from negtheory.dists import unlabeled
    >>> un = unlabeled(scipy.stats.uniform(), alpha=0.9, tau_plus=0.1)
    >>> round(un.a, 12), round(un.b, 12)
    (-0.64, 1.64)
    >>> round(float(un.parent_cdf(0.5)), 12) == round(float((1.64 - (1.64**2 - 4*0.64*0.5)**0.5) / (2*0.64)), 12)
    True
    """
    alpha = _alpha(alpha)
    tau_plus = real_scalar("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True)
    tau_minus = 1.0 - tau_plus
    b = 2.0 * (alpha * tau_minus + (1.0 - alpha) * tau_plus)
    a = (1.0 - 2.0 * alpha) * (tau_minus - tau_plus)
    law = QuadraticCDFLaw(
        base, b, a, name="unlabeled", params={"alpha": alpha, "tau_plus": tau_plus}
    )
    law.tau_plus = tau_plus
    law.tau_minus = tau_minus
    return law
