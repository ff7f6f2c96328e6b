r"""Proposal distributions and fast categorical samplers (textbook chapter; Boltzmann law of Tanielian & Vasile).

The negative-sampling textbook chapter ("Principles and Mechanisms"), section *The Proposal
Distribution*:

* the smoothed unigram proposal q(c) proportional to f_c^alpha (alpha = 0.75 in Word2Vec),
  :func:`unigram_proposal`, the probability mass it puts on a set of minority classes,
  :func:`proposal_mass`, and the alpha that hits a target mass, :func:`solve_alpha`;
* *Efficient Sampling Algorithms*: the alias method (O(n) setup, O(1) per draw),
  :class:`AliasTable`, and inverse-transform sampling by binary search on the CDF (O(n) setup,
  O(log n) per draw), :class:`InverseCDFSampler`. ``benchmarks/bench_sampling.py`` shows where
  each wins against ``numpy.random.Generator.choice`` and
  ``scipy.stats.sampling.DiscreteAliasUrn``.

Tanielian & Vasile (*Relaxed Softmax*, §2.3):

* the Boltzmann negative-sampling law B(G, D, T) of eq. 8, :func:`boltzmann`, exact in log space
  for every temperature 0 <= T <= inf (T = 0 and T = inf are the limits the paper states), and
  row-wise sampling from it, :func:`sample_boltzmann`.

Exactness for zero-probability entries
--------------------------------------
Both samplers are built over the *support* (the entries with p > 0) only and map the drawn
position back to the original index. An entry with p = 0 is therefore never returned, whatever
the rounding in the table construction; the alias "leftover" step (entries whose scaled mass
is within rounding of 1) can only touch entries of positive probability.

Randomness
----------
All draws take ``rng`` (``numpy.random.Generator``, int seed, ``SeedSequence`` or ``None``).
The numba kernels consume uniforms drawn by that Generator, so the same seed gives the same
draws on every machine and thread count.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numba
import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp

from ._validation import (
    as_float_array,
    as_generator,
    broadcast,
    check_range,
    flag,
    int_scalar,
    real_array,
    real_scalar,
    size_arg,
)

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatArray, FloatOrArray, IntArray, IntOrArray, RNGLike, Size

__all__ = [
    "unigram_proposal",
    "proposal_mass",
    "solve_alpha",
    "AliasTable",
    "InverseCDFSampler",
    "boltzmann",
    "sample_boltzmann",
]


# --------------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _push_column(i, below, small, ns, large, nl):
    """Put column i on the small (scaled mass below 1) or the large stack; the new stack sizes."""
    if below:
        small[ns] = i
        return ns + 1, nl
    large[nl] = i
    return ns, nl + 1


@numba.njit(cache=True, nogil=True)
def _alias_build(p):
    """Vose's alias construction for a strictly positive probability vector ``p`` (sums to 1).

    Returns (prob, alias): column c is kept with probability prob[c], otherwise it yields
    alias[c]. Stable variant: the large entry's remaining mass is updated as
    (scaled[l] + scaled[s]) - 1, which loses less than scaled[l] - (1 - scaled[s]).
    """
    n = p.size
    scaled = p * n
    prob = np.empty(n)
    alias = np.empty(n, dtype=np.int64)
    small = np.empty(n, dtype=np.int64)
    large = np.empty(n, dtype=np.int64)
    ns = 0
    nl = 0
    for i in range(n):
        ns, nl = _push_column(i, scaled[i] < 1.0, small, ns, large, nl)
    while ns > 0 and nl > 0:
        ns -= 1
        s = small[ns]
        nl -= 1
        l = large[nl]  # noqa: E741
        prob[s] = scaled[s]
        alias[s] = l
        scaled[l] = (scaled[l] + scaled[s]) - 1.0
        ns, nl = _push_column(l, scaled[l] < 1.0, small, ns, large, nl)
    # what is left has scaled mass 1 up to rounding: keep the column for itself
    while nl > 0:
        nl -= 1
        prob[large[nl]] = 1.0
        alias[large[nl]] = large[nl]
    while ns > 0:
        ns -= 1
        prob[small[ns]] = 1.0
        alias[small[ns]] = small[ns]
    return prob, alias


@numba.njit(cache=True, nogil=True)
def _alias_draw(u, prob, alias, support, out):
    """One uniform per draw: its integer part (times n) picks the column, the fraction the coin.

    With n columns the fraction keeps 53 - log2(n) bits (33 bits for n = 1e6), i.e. the coin is
    quantised at ~1e-10, far below anything a Monte-Carlo study can detect.
    """
    n = prob.size
    for t in range(u.size):
        x = u[t] * n
        c = int(x)
        if c >= n:  # u * n rounded up to n
            c = n - 1
        if x - c < prob[c]:
            out[t] = support[c]
        else:
            out[t] = support[alias[c]]


@numba.njit(cache=True, nogil=True)
def _search_right(cdf, u):
    """Smallest i with cdf[i] > u (cdf non-decreasing, cdf[-1] = 1 > u): binary search."""
    lo = 0
    hi = cdf.size - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if cdf[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


@numba.njit(cache=True, nogil=True)
def _cdf_draw(u, cdf, support, out):
    for t in range(u.size):
        out[t] = support[_search_right(cdf, u[t])]


@numba.njit(cache=True, nogil=True)
def _cdf_draw_rows(u, cdf, out):
    """Row-wise inverse-CDF draws: u (m, s), cdf (m, n) with cdf[r, -1] = 1."""
    for r in range(u.shape[0]):
        row = cdf[r]
        for t in range(u.shape[1]):
            out[r, t] = _search_right(row, u[r, t])


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _probability_vector(name: str, p) -> np.ndarray:
    """Non-negative finite 1-D weights with a positive sum, returned normalised."""
    arr = real_array(name, p, 0.0)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D array of non-negative weights, got shape {arr.shape}"
        )
    peak = float(arr.max())
    if not peak > 0.0:
        raise ValueError(f"{name} must have a positive sum, got all zeros")
    scaled = arr / peak  # weights near the float64 limit must not overflow the sum
    total = math.fsum(scaled.tolist()) if scaled.size < 4096 else float(np.sum(scaled))
    return scaled / total


def _size_shape(size):
    size = size_arg("size", size)
    if size is None:
        return None
    return (size,) if isinstance(size, int) else size


# --------------------------------------------------------------------------------------------
# unigram proposals
# --------------------------------------------------------------------------------------------
def _shifted_log_counts(counts, alpha):
    """ln f - ref with ref the largest (alpha >= 0) or smallest (alpha < 0) ln f of a positive count.

    alpha (ln f - ref) <= 0, so a huge |alpha| gives finite or -inf log weights (never +inf, whose
    normalisation inf - inf is NaN); the shift cancels in the normalisation. ``alpha`` broadcasts
    against the leading axes; zero counts give 0 here and are masked by the callers.
    """
    pos = counts > 0
    logf = np.log(np.where(pos, counts, 1.0))  # zero counts masked below (no 0 * -inf)
    hi = np.max(np.where(pos, logf, -np.inf))
    lo = np.min(np.where(pos, logf, np.inf))
    ref = np.where(np.asarray(alpha)[..., None] >= 0.0, hi, lo)
    return np.where(pos, logf - ref, 0.0)


def _log_unigram(counts, alpha):
    with np.errstate(over="ignore"):  # alpha (ln f - ref) -> -inf: a weight of exactly 0
        logw = np.where(counts > 0, alpha * _shifted_log_counts(counts, alpha), -np.inf)
    return logw - logsumexp(logw)


def _counts(counts):
    c = real_array("counts", counts, 0.0)
    if c.ndim != 1 or c.size == 0:
        raise ValueError(f"counts must be a non-empty 1-D array, got shape {c.shape}")
    if not (c > 0).any():
        raise ValueError("counts must contain at least one positive count")
    return c


def unigram_proposal(counts: ArrayLike, alpha: float = 0.75) -> FloatArray:
    r"""Smoothed unigram proposal q(c) proportional to f_c^alpha (textbook chapter, *Designing the Proposal Distribution*).

    .. math:: q(c) = \frac{f_c^{\alpha}}{\sum_{c'} f_{c'}^{\alpha}}

    alpha < 1 flattens the frequency law (rare classes gain mass, frequent ones lose it);
    alpha = 0 is uniform over the observed classes, alpha = 1 the raw frequencies. Computed in
    log space, so huge counts or large |alpha| neither overflow nor underflow.

    Parameters
    ----------
    counts : array_like, shape (n,)
        Non-negative frequencies f_c (need not be integers or normalised); at least one > 0.
    alpha : float, default 0.75
        Exponent (any finite real; the textbook chapter's typical value 0.75, read :math:`\alpha < 1`
        for the flattening regime).

    Returns
    -------
    ndarray, shape (n,)
        q, summing to 1. Classes with zero count get probability 0 for every :math:`\alpha` (the limit
        :math:`\alpha \to 0^+` of :math:`0^\alpha`), so :math:`\alpha = 0` is uniform over the *observed* classes.

    Examples
    --------
    >>> from negtheory.sampling import unigram_proposal
    >>> unigram_proposal([81, 16, 1], alpha=0.5).round(4)
    array([0.6429, 0.2857, 0.0714])
    >>> unigram_proposal([10, 0, 10], alpha=0.0)
    array([0.5, 0. , 0.5])
    """
    c = _counts(counts)
    a = real_scalar("alpha", alpha)
    return np.exp(_log_unigram(c, a))


def _subset_mask(name, subset, n):
    s = np.asarray(subset)
    if s.dtype == bool:
        if s.shape != (n,):
            raise ValueError(f"{name} as a boolean mask must have shape ({n},), got {s.shape}")
        return s
    if s.dtype.kind not in "iu":
        raise TypeError(
            f"{name} must be a boolean mask or an array of integer class indices, got dtype {s.dtype}"
        )
    s = s.ravel()
    if s.size and (s.min() < 0 or s.max() >= n):
        raise ValueError(
            f"{name} holds indices outside [0, {n - 1}]: {s[(s < 0) | (s >= n)][:3].tolist()}"
        )
    mask = np.zeros(n, dtype=bool)
    mask[s] = True
    return mask


def proposal_mass(counts: ArrayLike, minority: ArrayLike, alpha: ArrayLike = 0.75) -> FloatOrArray:
    r"""Probability mass that q proportional to f^alpha puts on a set of (minority) classes (textbook chapter).

    .. math:: M(\alpha) = \frac{\sum_{c \in \mathcal M} f_c^\alpha}{\sum_c f_c^\alpha}.

    Parameters
    ----------
    counts : array_like, shape (n,)
        Non-negative class frequencies.
    minority : array_like
        Boolean mask of shape (n,) or integer class indices.
    alpha : float or array_like, default 0.75
        Exponent(s); the result broadcasts over ``alpha``.

    Returns
    -------
    float or ndarray
        :math:`M(\alpha) \in [0, 1]`, with the shape of ``alpha``.

    Examples
    --------
    >>> from negtheory.sampling import proposal_mass
    >>> round(float(proposal_mass([90, 9, 1], [1, 2], alpha=1.0)), 12)
    0.1
    >>> round(float(proposal_mass([90, 9, 1], [1, 2], alpha=0.0)), 4)
    0.6667
    """
    c = _counts(counts)
    mask = _subset_mask("minority", minority, c.size)
    a = real_array("alpha", alpha)
    pos = c > 0
    with np.errstate(over="ignore"):  # see _shifted_log_counts
        lw = np.where(pos, a[..., None] * _shifted_log_counts(c, a), -np.inf)
    num = (
        logsumexp(np.where(mask & pos, lw, -np.inf), axis=-1)
        if (mask & pos).any()
        else np.full(a.shape, -np.inf)
    )
    out = np.exp(num - logsumexp(lw, axis=-1))
    return out[()] if out.ndim == 0 else out


def solve_alpha(
    counts: ArrayLike,
    minority: ArrayLike,
    target: float,
    bracket: tuple[float, float] = (0.0, 1.0),
    *,
    xtol: float = 1e-12,
) -> float:
    r"""Exponent alpha at which q proportional to f^alpha gives the minority classes a target mass (textbook chapter).

    Solves M(alpha) = target (see :func:`proposal_mass`) by Brent's method on ``bracket``.
    M is monotone whenever every minority class is rarer than every other class (then
    dM/dalpha = M (E_minority[ln f] - E_q[ln f]) < 0, so *lowering* alpha raises the minority
    mass); in general the solver returns a root inside the bracket.

    Parameters
    ----------
    counts : array_like, shape (n,)
        Non-negative class frequencies.
    minority : array_like
        Boolean mask or integer indices of the minority classes (non-empty, with positive counts,
        and not all observed classes).
    target : float
        Desired mass in (0, 1).
    bracket : (float, float), default (0.0, 1.0)
        Search interval for :math:`\alpha`; the target must lie between M at its two ends, otherwise a
        ``ValueError`` reports the reachable range.
    xtol : float, default 1e-12
        Absolute tolerance (> 0) on :math:`\alpha` passed to ``scipy.optimize.brentq``.

    Returns
    -------
    float
        :math:`\alpha` in ``bracket`` with :math:`M(\alpha)` = target (to ``xtol``).

    Examples
    --------
    >>> from negtheory.sampling import solve_alpha, proposal_mass
    >>> counts = [1000, 1000, 10, 10]
    >>> a = solve_alpha(counts, [2, 3], 0.2)
    >>> round(a, 6), round(float(proposal_mass(counts, [2, 3], a)), 9)
    (0.30103, 0.2)
    """
    c = _counts(counts)
    mask = _subset_mask("minority", minority, c.size)
    t = real_scalar("target", target, 0.0, 1.0, lo_open=True, hi_open=True)
    if not (mask & (c > 0)).any():
        raise ValueError("minority must contain at least one class with a positive count")
    if not (~mask & (c > 0)).any():
        raise ValueError("minority covers every observed class: its mass is 1 for every alpha")
    if isinstance(bracket, (str, bytes)) or not hasattr(bracket, "__len__") or len(bracket) != 2:
        raise TypeError(f"bracket must be a pair (lo, hi) of reals, got {bracket!r}")
    lo = real_scalar("bracket[0]", bracket[0])
    hi = real_scalar("bracket[1]", bracket[1])
    xtol = real_scalar("xtol", xtol, 0.0, lo_open=True)
    if not lo < hi:
        raise ValueError(
            f"bracket must be an interval (lo, hi) with lo < hi, got {tuple(bracket)!r}"
        )

    def f(a):
        return float(proposal_mass(c, mask, a)) - t

    flo, fhi = f(lo), f(hi)
    if flo == 0.0:
        return lo
    if fhi == 0.0:
        return hi
    if (flo > 0) == (fhi > 0):
        m1, m2 = sorted((flo + t, fhi + t))
        raise ValueError(
            f"target {t!r} is not reachable on bracket ({lo!r}, {hi!r}): the minority mass there runs from {m1:.6g} to {m2:.6g}; widen the bracket"
        )
    return float(brentq(f, lo, hi, xtol=xtol, rtol=4 * np.finfo(float).eps))


# --------------------------------------------------------------------------------------------
# samplers
# --------------------------------------------------------------------------------------------
class _FixedLawSampler:
    """The shared surface of the fixed-law samplers: ``p``, ``support``, ``n``, ``sample``.

    A subclass builds its table from ``self.p`` / ``self.support`` in ``__init__`` (after
    calling this one) and implements ``_draw(u, out)``: the category of each uniform in ``u``.
    """

    def __init__(self, p: ArrayLike):
        self.p = _probability_vector("p", p)
        self.support = np.flatnonzero(self.p > 0).astype(np.int64)

    @property
    def n(self) -> int:
        """Number of categories (including zero-probability ones)."""
        return int(self.p.size)

    def _draw(self, u, out):  # pragma: no cover - abstract
        raise NotImplementedError

    def sample(self, size: Size = None, rng: RNGLike = None) -> IntOrArray:
        """Draw indices in [0, n) with probabilities ``p``.

        Parameters
        ----------
        size : int or tuple of int, optional
            Output shape; ``None`` returns a single Python int.
        rng : numpy.random.Generator, int or SeedSequence, optional
            Source of randomness (one uniform per draw).

        Returns
        -------
        int or ndarray of int64
            Category indices in [0, n), never one of zero probability; a Python int for
            ``size=None``, else an array of shape ``size``.
        """
        shape = _size_shape(size)
        gen = as_generator(rng)
        m = 1 if shape is None else int(np.prod(shape))
        u = gen.random(m)
        out = np.empty(m, dtype=np.int64)
        self._draw(u, out)
        return int(out[0]) if shape is None else out.reshape(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n={self.n}, support={self.support.size})"


class AliasTable(_FixedLawSampler):
    r"""Walker's alias method (Vose's construction) for a fixed categorical law (textbook chapter, *Efficient Sampling Algorithms*).

    Setup O(n), then O(1) per draw: a uniform column c and a biased coin: keep c with
    probability ``prob[c]``, otherwise return ``alias[c]``. The table is built over the support
    (entries with p > 0) only, so a zero-probability entry is never drawn.

    Parameters
    ----------
    p : array_like, shape (n,)
        Non-negative weights (normalised internally).

    Attributes
    ----------
    p : ndarray, shape (n,)
        The normalised probabilities.
    support : ndarray of int64
        Indices with p > 0, in increasing order (the table's columns).
    prob, alias : ndarray
        Column acceptance probabilities and alias positions (positions within ``support``).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.sampling import AliasTable
    >>> table = AliasTable([0.5, 0.0, 0.3, 0.2])
    >>> draws = table.sample(100_000, rng=1)
    >>> np.bincount(draws, minlength=4) / draws.size          # doctest: +SKIP
    array([0.50..., 0.     , 0.30..., 0.19...])
    >>> int((draws == 1).sum())
    0
    """

    def __init__(self, p: ArrayLike):
        super().__init__(p)
        q = self.p[self.support]
        self.prob, self.alias = _alias_build(np.ascontiguousarray(q / q.sum()))

    def _draw(self, u, out):
        _alias_draw(u, self.prob, self.alias, self.support, out)


class InverseCDFSampler(_FixedLawSampler):
    r"""Inverse-transform sampling by binary search on the CDF (textbook chapter, *Efficient Sampling Algorithms*).

    Setup O(n) (a cumulative sum), O(log n) per draw: return the first index i with
    CDF_i > U, U ~ U[0, 1). The CDF is taken over the support (entries with p > 0) and its last
    value is set to exactly 1, so every U in [0, 1) maps to a positive-probability entry.

    Parameters
    ----------
    p : array_like, shape (n,)
        Non-negative weights (normalised internally).

    Examples
    --------
    >>> from negtheory.sampling import InverseCDFSampler
    >>> s = InverseCDFSampler([0.0, 1.0, 3.0])
    >>> s.cdf
    array([0.25, 1.  ])
    >>> sorted(set(s.sample(1000, rng=0).tolist()))
    [1, 2]
    """

    def __init__(self, p: ArrayLike):
        super().__init__(p)
        cdf = np.cumsum(self.p[self.support])
        cdf /= cdf[-1]
        cdf[-1] = 1.0
        self.cdf = cdf

    def _draw(self, u, out):
        _cdf_draw(u, self.cdf, self.support, out)


# --------------------------------------------------------------------------------------------
# Boltzmann negative sampling (Tanielian & Vasile, eq. 8)
# --------------------------------------------------------------------------------------------
def _temperature(temperature) -> float:
    t = as_float_array("temperature", temperature, allow_inf=True)
    check_range("temperature", t, 0.0, math.inf)
    if t.ndim != 0:
        raise ValueError(f"temperature must be a scalar, got an array of shape {t.shape}")
    return float(t)


def _log_boltzmann(scores, degeneracy, temperature, axis):
    g = real_array("scores", scores)
    if g.ndim == 0:
        raise ValueError("scores must have at least one dimension (one score per item)")
    if isinstance(degeneracy, str):
        if degeneracy != "uniform":
            raise ValueError(
                f"degeneracy must be 'uniform' or an array of non-negative weights (e.g. item counts for popularity, 1/P_i), got {degeneracy!r}"
            )
        d = np.ones(1)
    else:
        d = real_array("degeneracy", degeneracy, 0.0)
    g, d = broadcast(scores=g, degeneracy=d)
    g = np.moveaxis(g, axis, -1)
    d = np.moveaxis(d, axis, -1)
    mask = d > 0
    if not mask.any(axis=-1).all():
        raise ValueError("degeneracy must have a positive entry in every row (along axis)")
    t = _temperature(temperature)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        logd = np.where(mask, np.log(np.where(mask, d, 1.0)), -np.inf)
        gm = np.max(np.where(mask, g, -np.inf), axis=-1, keepdims=True)
        if t == math.inf:
            # T -> inf: the energy no longer matters, B -> D (Tanielian & Vasile, §2.3.1)
            logw = logd
        elif t == 0.0:
            # T -> 0: all mass on the best-scored items (ties shared in proportion to D)
            logw = np.where(mask & (g == gm), logd, -np.inf)
        else:
            # shifting by the max keeps (G - Gmax) / T <= 0: no overflow even for T ~ 1e-300
            logw = np.where(mask, logd + (g - gm) / t, -np.inf)
        out = logw - logsumexp(logw, axis=-1, keepdims=True)
    return out


def boltzmann(
    scores: ArrayLike,
    degeneracy: str | ArrayLike = "uniform",
    temperature: float = 1.0,
    *,
    axis: int = -1,
    log: bool = False,
) -> FloatArray:
    r"""Boltzmann negative-sampling law B(G, D, T) (Tanielian & Vasile, Relaxed Softmax, eq. 8).

    .. math:: B_{(G, D, T)}(j) = \frac{D(j) \exp(G(j) / T)}{\sum_{j'} D(j') \exp(G(j') / T)}.

    Computed in log space after subtracting the largest score, so it is exact for every
    temperature: T = 0 gives the point mass on argmax G (ties shared in proportion to D) and
    T = inf gives D itself, the two limits stated in §2.3.1. D = uniform, T = 1 is the softmax.

    Parameters
    ----------
    scores : array_like
        Energies G(i, j) (model scores); items along ``axis``, any leading context dimensions.
    degeneracy : 'uniform' or array_like, default 'uniform'
        D: ``'uniform'``, or non-negative weights broadcastable against ``scores`` (only ratios
        matter): item counts for the popularity law Pop(J), 1 / P_i(j) for the paper's
        context-dependent choice, or any user law. Items with D = 0 get probability 0.
    temperature : float, default 1.0
        T in [0, inf].
    axis : int, default -1
        Item axis.
    log : bool, default False
        Return log B (with -inf for impossible items) instead of B.

    Returns
    -------
    ndarray
        Same shape as the broadcast of ``scores`` and ``degeneracy``, summing to 1 along ``axis``.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.sampling import boltzmann
    >>> g = np.array([0.0, 1.0, 2.0])
    >>> np.allclose(boltzmann(g), np.exp(g) / np.exp(g).sum())       # D uniform, T = 1: softmax
    True
    >>> boltzmann(g, [1.0, 2.0, 1.0], temperature=np.inf)
    array([0.25, 0.5 , 0.25])
    >>> boltzmann(g, temperature=0.0)
    array([0., 0., 1.])
    """
    g_arr = np.asarray(scores)
    ax = int_scalar("axis", axis)
    log = flag("log", log)
    if g_arr.ndim and not -g_arr.ndim <= ax < max(g_arr.ndim, 1):
        raise ValueError(f"axis {axis} is out of range for scores with {g_arr.ndim} dimensions")
    lb = _log_boltzmann(scores, degeneracy, temperature, ax)
    out = lb if log else np.exp(lb)
    return np.moveaxis(out, -1, ax)


def sample_boltzmann(
    scores: ArrayLike,
    degeneracy: str | ArrayLike = "uniform",
    temperature: float = 1.0,
    size: int = 1,
    rng: RNGLike = None,
) -> IntArray:
    r"""Draw negatives from B(G, D, T) (Tanielian & Vasile, eq. 8), independently for every context row.

    Parameters
    ----------
    scores : array_like, shape (n_items,) or (n_contexts, n_items)
        Energies G; one Boltzmann law per row.
    degeneracy, temperature
        As in :func:`boltzmann` (defaults ``'uniform'`` and 1.0).
    size : int, default 1
        Number of i.i.d. draws per row, >= 0.
    rng : numpy.random.Generator, int or SeedSequence, optional
        Source of randomness (``None``: fresh OS entropy).

    Returns
    -------
    ndarray of int64, shape (size,) or (n_contexts, size)
        Item indices; items of zero probability are never returned (row-wise inverse CDF by
        binary search over each row's CDF; for many draws from one fixed law build an
        :class:`AliasTable` from :func:`boltzmann` instead).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.sampling import sample_boltzmann
    >>> j = sample_boltzmann([[0.0, 5.0, 0.0], [3.0, 0.0, 0.0]], temperature=0.0, size=4, rng=0)
    >>> j.tolist()
    [[1, 1, 1, 1], [0, 0, 0, 0]]
    """
    g = real_array("scores", scores)
    if g.ndim not in (1, 2) or g.shape[-1] == 0:
        raise ValueError(
            f"scores must be 1-D (items) or 2-D (contexts x items) with at least one item, got shape {g.shape}"
        )
    s = int_scalar("size", size, 0)
    gen = as_generator(rng)
    b = np.atleast_2d(boltzmann(g, degeneracy, temperature, axis=-1))
    cdf = np.cumsum(b, axis=-1)
    # zero-probability items share their left neighbour's CDF value: the search ("first
    # cdf > u") skips them; the last *positive* item's CDF is forced to 1 exactly
    last = b.shape[1] - 1 - np.argmax(b[:, ::-1] > 0, axis=1)
    cdf /= cdf[np.arange(cdf.shape[0]), last][:, None]
    np.minimum(cdf, 1.0, out=cdf)
    for r, lr in enumerate(last):
        cdf[r, lr:] = 1.0
    u = gen.random((b.shape[0], s))
    out = np.empty((b.shape[0], s), dtype=np.int64)
    _cdf_draw_rows(u, np.ascontiguousarray(cdf), out)
    return out[0] if g.ndim == 1 else out
