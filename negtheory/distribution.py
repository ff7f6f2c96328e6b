r"""The base of every score law: :class:`ScoreDistribution`, the frozen ``scipy.stats`` surface.

A subclass implements ``_logpdf``, ``_cdf``, ``_sf``, ``_ppf``, ``_isf`` and ``_support`` on float64
arrays (inputs already validated) and gets validation, broadcasting, sampling by inversion and
quadrature moments. :mod:`negtheory.dists` (order statistics, class-conditional laws) and
:mod:`negtheory.variance_gamma` (the inner-product prior) both build on it; it lives here so that
neither of them imports the other for it.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numpy as np
from scipy import integrate

from ._docstrings import RVS_DOC, docstring
from ._rng import random_state_or_rng
from ._validation import (
    as_float_array,
    as_generator,
    check_frozen_continuous,
    real_array,
    scalar_or_array,
    size_arg,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from ._typing import ArrayLike, FloatArray, FloatOrArray, RNGLike, Size

__all__ = ["ScoreDistribution"]

# the documentation the pointwise methods share, written once (see negtheory._docstrings)
_X_PARAM = """
x : array_like of float
    Point(s) at which to evaluate; any real, including +-inf."""
_Q_PARAM = """
q : array_like of float
    Probability level(s) in [0, 1]; 0 and 1 give the ends of the support."""
_doc = docstring(
    rvs_params=RVS_DOC,
    x_params=f"Parameters\n----------{_X_PARAM}\n\nReturns\n-------\nfloat or ndarray",
    q_params=f"Parameters\n----------{_Q_PARAM}\n\nReturns\n-------\nfloat or ndarray",
)


# parent kinds understood by the numba kernels
KIND_GENERIC = -1
KIND_NORMAL = 0
KIND_UNIFORM = 1


# --------------------------------------------------------------------------------------------
# parent handling
# --------------------------------------------------------------------------------------------
class _Parent:
    """Uniform access to a parent law (frozen scipy continuous or ScoreDistribution)."""

    def __init__(self, base, name="base"):
        if isinstance(base, ScoreDistribution):
            self.kind, self.p0, self.p1 = KIND_GENERIC, math.nan, math.nan
            self.dist = base
            return
        check_frozen_continuous(name, base)
        dist = base.dist
        lo, hi = base.support()
        if not (np.isfinite(base.cdf(base.median()))):
            raise ValueError(f"{name} has invalid parameters: {dist.name}{base.args} {base.kwds}")
        self.dist = base
        self.kind, self.p0, self.p1 = KIND_GENERIC, math.nan, math.nan
        if dist.name == "norm":
            self.kind, self.p0, self.p1 = KIND_NORMAL, float(base.mean()), float(base.std())
        elif dist.name == "uniform":
            self.kind, self.p0, self.p1 = KIND_UNIFORM, float(lo), float(hi)

    # the parent's own (vectorised) methods; warnings from log(0) at the support ends are
    # expected and mean -inf
    def cdf(self, x):
        return np.asarray(self.dist.cdf(x), dtype=np.float64)

    def sf(self, x):
        return np.asarray(self.dist.sf(x), dtype=np.float64)

    def logpdf(self, x):
        with np.errstate(divide="ignore"):
            return np.asarray(self.dist.logpdf(x), dtype=np.float64)

    def logcdf(self, x):
        with np.errstate(divide="ignore"):
            return np.asarray(self.dist.logcdf(x), dtype=np.float64)

    def logsf(self, x):
        with np.errstate(divide="ignore"):
            return np.asarray(self.dist.logsf(x), dtype=np.float64)

    def ppf(self, u):
        return np.asarray(self.dist.ppf(u), dtype=np.float64)

    def isf(self, v):
        return np.asarray(self.dist.isf(v), dtype=np.float64)

    def support(self):
        lo, hi = self.dist.support()
        return float(lo), float(hi)

    def describe(self) -> str:
        if isinstance(self.dist, ScoreDistribution):
            return repr(self.dist)
        args = ", ".join(
            [repr(a) for a in self.dist.args] + [f"{k}={v!r}" for k, v in self.dist.kwds.items()]
        )
        return f"{self.dist.dist.name}({args})"


def _x(x):
    return as_float_array("x", x, allow_inf=True)


# --------------------------------------------------------------------------------------------
# base class
# --------------------------------------------------------------------------------------------
@_doc
class ScoreDistribution:
    """Base class with the frozen ``scipy.stats`` surface for the score laws of Liu Bin's thesis.

    Subclasses implement, on float64 arrays that are already validated, ``_logpdf(x)``,
    ``_cdf(x)``, ``_sf(x)``, ``_ppf(q)``, ``_isf(q)`` and ``_support()``; optionally
    ``_logcdf``, ``_logsf``, ``_rvs(size, rng)``, ``_mean()`` and ``_var()`` where closed forms
    beat the defaults (inversion sampling; adaptive quadrature for moments). The constructor
    takes no arguments; subclasses define their own.

    Examples
    --------
    A unit exponential law, from the six required hooks:

    >>> import math
    >>> import numpy as np
    >>> from negtheory.distribution import ScoreDistribution
    >>> class Expon(ScoreDistribution):
    ...     def _logpdf(self, x):
    ...         return np.where(x >= 0, -x, -np.inf)
    ...     def _cdf(self, x):
    ...         return -np.expm1(-np.maximum(x, 0.0))
    ...     def _sf(self, x):
    ...         return np.exp(-np.maximum(x, 0.0))
    ...     def _ppf(self, q):
    ...         return -np.log1p(-q)
    ...     def _isf(self, q):
    ...         return -np.log(q)
    ...     def _support(self):
    ...         return (0.0, math.inf)
    >>> e = Expon()
    >>> round(float(e.cdf(1.0)), 6), round(float(e.median()), 6), round(e.mean(), 8)
    (0.632121, 0.693147, 1.0)
    """

    name = "score_distribution"

    def __init__(self) -> None:
        if type(self) is ScoreDistribution:  # (subclasses with their own __init__ never get here)
            raise TypeError(
                "ScoreDistribution is an abstract base class: use a subclass (e.g. order_statistic, true_negative, "
                "false_negative, hard_negative, unlabeled or inner_product build one)"
            )

    if TYPE_CHECKING:  # the hooks every subclass implements (see above)

        def _logpdf(self, x: FloatArray) -> FloatArray: ...
        def _cdf(self, x: FloatArray) -> FloatArray: ...
        def _sf(self, x: FloatArray) -> FloatArray: ...
        def _ppf(self, q: FloatArray) -> FloatArray: ...
        def _isf(self, q: FloatArray) -> FloatArray: ...
        def _support(self) -> tuple[float, float]: ...

    # --- hooks with defaults ---------------------------------------------------------------
    def _logcdf(self, x):
        with np.errstate(divide="ignore"):
            return np.log(self._cdf(x))

    def _logsf(self, x):
        with np.errstate(divide="ignore"):
            return np.log(self._sf(x))

    def _rvs(self, size, rng):
        # open (0, 1) uniforms so that ppf stays finite; _ppf handles q > 1/2 via the
        # survival branch, where 1 - q is exact
        u = rng.random(size) + 2.0**-54
        return self._ppf(np.asarray(u, dtype=np.float64))

    def _mean(self):
        return self.expect(lambda x: x, _raw=True)

    def _var(self):
        m = self.mean()
        return self.expect(lambda x: (x - m) ** 2, _raw=True)

    # --- public surface --------------------------------------------------------------------
    def pdf(self, x: ArrayLike) -> FloatOrArray:
        """Probability density at ``x``.

        %(x_params)s
            The density (0 outside the support), with the shape of ``x`` (a float for scalar input).
        """
        x = _x(x)
        return scalar_or_array(np.exp(self._logpdf(x)))

    def logpdf(self, x: ArrayLike) -> FloatOrArray:
        """Log of the probability density at ``x``.

        %(x_params)s
            The log-density (``-inf`` outside the support), with the shape of ``x`` (a float for scalar input).
        """
        return scalar_or_array(self._logpdf(_x(x)))

    def cdf(self, x: ArrayLike) -> FloatOrArray:
        """Cumulative distribution function P(X <= x).

        %(x_params)s
            The CDF in [0, 1], with the shape of ``x`` (a float for scalar input).
        """
        return scalar_or_array(self._cdf(_x(x)))

    def sf(self, x: ArrayLike) -> FloatOrArray:
        """Survival function 1 - cdf, computed without cancellation in the upper tail.

        %(x_params)s
            P(X > x) in [0, 1], with the shape of ``x`` (a float for scalar input).
        """
        return scalar_or_array(self._sf(_x(x)))

    def logcdf(self, x: ArrayLike) -> FloatOrArray:
        """Log of the CDF, accurate in the lower tail where the CDF underflows.

        %(x_params)s
            log P(X <= x) in [-inf, 0], with the shape of ``x`` (a float for scalar input).
        """
        return scalar_or_array(self._logcdf(_x(x)))

    def logsf(self, x: ArrayLike) -> FloatOrArray:
        """Log of the survival function, accurate in the upper tail.

        %(x_params)s
            log P(X > x) in [-inf, 0], with the shape of ``x`` (a float for scalar input).
        """
        return scalar_or_array(self._logsf(_x(x)))

    def ppf(self, q: ArrayLike) -> FloatOrArray:
        """Inverse of the CDF (quantile function).

        %(q_params)s
            The x with cdf(x) = q, with the shape of ``q`` (a float for scalar input).
        """
        q = real_array("q", q, 0.0, 1.0)
        inner = (q > 0.0) & (q < 1.0)
        if q.ndim and inner.all():  # the common case: no end points to patch
            return np.asarray(self._ppf(q), dtype=np.float64)
        lo, hi = self.support()
        out = np.where(q == 0.0, lo, np.where(q == 1.0, hi, 0.0))
        if inner.any():
            out = np.array(out, dtype=np.float64)
            out[inner] = self._ppf(q[inner])
        return scalar_or_array(np.asarray(out, dtype=np.float64))

    def isf(self, q: ArrayLike) -> FloatOrArray:
        """Inverse of the survival function.

        %(q_params)s
            The x with sf(x) = q, with the shape of ``q`` (a float for scalar input).
        """
        q = real_array("q", q, 0.0, 1.0)
        lo, hi = self.support()
        out = np.where(q == 0.0, hi, np.where(q == 1.0, lo, 0.0))
        inner = (q > 0.0) & (q < 1.0)
        if inner.any():
            out = np.array(out, dtype=np.float64)
            out[inner] = self._isf(q[inner])
        return scalar_or_array(np.asarray(out, dtype=np.float64))

    def rvs(
        self, size: Size = None, random_state: RNGLike = None, *, rng: RNGLike = None
    ) -> FloatOrArray:
        """Random variates.

        %(rvs_params)s
        """
        rng = as_generator(
            random_state_or_rng(random_state, rng), "random_state" if rng is None else "rng"
        )
        size = size_arg("size", size)
        if size is None:
            return float(np.asarray(self._rvs(1, rng)).reshape(-1)[0])
        return np.asarray(self._rvs(size, rng), dtype=np.float64)

    def support(self) -> tuple[float, float]:
        """End points of the support.

        Returns
        -------
        tuple of float
            (lower, upper); infinite ends are ``-inf`` / ``inf``.
        """
        return self._support()

    def median(self) -> float:
        """The median ppf(1/2).

        Returns
        -------
        float
            The x with cdf(x) = 1/2.
        """
        return self.ppf(0.5)

    def mean(self) -> float:
        """Expected value E[X].

        Returns
        -------
        float
            The mean (closed form where the subclass has one, else quadrature; may be inf or
            nan when the parent law has no mean).
        """
        return float(self._mean())

    def var(self) -> float:
        """Variance Var[X].

        Returns
        -------
        float
            The variance (closed form where available, else quadrature).
        """
        return float(self._var())

    def std(self) -> float:
        """Standard deviation, the square root of :meth:`var`.

        Returns
        -------
        float
            sqrt(Var[X]).
        """
        return math.sqrt(self.var())

    def expect(self, func: Callable[[float], float], *, _raw: bool = False) -> float:
        """E[func(X)] by adaptive quadrature, split at the median and scaled by the quartiles.

        Scaling by the inter-quartile range keeps the quadrature on the bulk of the law even
        when it is very narrow (order statistics of large samples).

        Parameters
        ----------
        func : callable
            Maps a float x to a float; must be integrable against the law's density.
        _raw : bool, default False
            Internal, keyword-only flag passed by the default moment hooks; it does not change
            the result.

        Returns
        -------
        float
            The integral of func(x) times the density over the support.
        """
        med = float(self.ppf(0.5))
        q1, q3 = float(self.ppf(0.25)), float(self.ppf(0.75))
        s = (q3 - q1) if q3 > q1 else 1.0
        lo, hi = self.support()
        zlo = -math.inf if not math.isfinite(lo) else (lo - med) / s
        zhi = math.inf if not math.isfinite(hi) else (hi - med) / s

        def integrand(z):
            x = med + s * z
            lp = float(self._logpdf(np.array([x]))[0])
            return 0.0 if lp == -math.inf else func(x) * math.exp(lp) * s

        total = 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            for a, b in ((zlo, 0.0), (0.0, zhi)):
                if b > a:
                    total += integrate.quad(integrand, a, b, limit=200, epsabs=0.0, epsrel=1e-11)[0]
        return total

    def __repr__(self):
        return f"{type(self).__name__}()"
