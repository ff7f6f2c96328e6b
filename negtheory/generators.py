r"""Score generators of the numerical study of Liu Bin's thesis (§6.6.1, Algorithms 6-8).

* :func:`sample_class_conditional` -- draws from phi_TN / phi_FN (eq. 6.14-6.15) either by the
  accept-reject Algorithms 7-8 (proposal phi, envelope c = 2 alpha, acceptance rate 1 / (2 alpha))
  or by exact inversion of the CDF :math:`2\alpha u + (1 - 2\alpha) u^2` (TN) /
  :math:`2(1 - \alpha) u + (2\alpha - 1) u^2` (FN) in u = Phi(x): the same laws by different
  algorithms.
* :class:`AcceptRejectSampler` -- a generic accept-reject sampler for any density with an
  envelope c g >= f (iteration cap, clear error, recorded acceptance rate).
* :func:`score_sets`, :func:`iter_score_sets` -- Algorithm 6: M anchors with N unlabeled scores
  each (false negatives with probability tau+, else true negatives), mapped by exp(x / t), plus
  extra positive scores for DCL-type estimators; parallel (numba ``prange``) and chunked.

Errata handled (see the README, "Notes on the sources (errata)")
----------------------------------------------------------------
* The thesis calls c = 2 alpha the *minimum* of 2 alpha + (2 - 4 alpha) Phi over Phi in [0, 1];
  it is the maximum (2 - 4 alpha <= 0), which is what an envelope needs. The acceptance
  probabilities printed for Algorithms 7 and 8, [alpha + (1 - 2 alpha) Phi] / alpha and
  [1 - alpha + (2 alpha - 1) Phi] / alpha, are phi_TN / (2 alpha phi) and phi_FN / (2 alpha phi),
  so they are correct with c = 2 alpha and the overall acceptance rate is 1 / (2 alpha).
* Algorithm 6 as printed applies exp(x / t) only in the true-negative branch (indentation); the
  text (step 3, Fig. 6.7) maps every score, as done here.
* Base interval: the text says [-0.5, 0.5], the released code draws inside (-1/t^2, 1/t^2); the
  default here is the released code's, ``base_interval=(-0.5, 0.5)`` gives the text's.

Reproducibility
---------------
Random numbers are keyed, never carried over: the key is derived from ``rng`` through a
``numpy.random.SeedSequence``; each anchor of :func:`score_sets` (and each fixed block of 4096
samples of :func:`sample_class_conditional`) gets its own xoshiro256** streams (labels, values,
positives) whose 256-bit states come from the counter-based Philox4x32-10 generator at counter
(stream, anchor index). Every number is therefore a function of (seed, anchor, stream, position)
only: the same seed gives bit-identical arrays whatever ``numba.set_num_threads`` and whatever
``chunk_size`` is used, chunks of :func:`iter_score_sets` are exactly the rows of
:func:`score_sets`, and the labels ``is_true_negative`` are the same for both methods.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numba
import numpy as np

from ._deprecation import renamed_keyword
from ._docstrings import RVS_DOC, docstring
from ._numeric import _philox_uniform2, _quad_root, _u01, _xoshiro_next, _xoshiro_seed, philox_key
from ._rng import random_state_or_rng
from ._validation import (
    as_float_array,
    as_generator,
    check_frozen_continuous,
    flag,
    int_scalar,
    real_scalar,
    size_arg,
)
from .dists import KIND_GENERIC, KIND_NORMAL, KIND_UNIFORM, _Parent, _parent_ppf, _qlaw_ppf

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatOrArray, FrozenDist, RNGLike, Size

__all__ = [
    "AcceptRejectSampler",
    "ScoreSets",
    "sample_class_conditional",
    "score_sets",
    "iter_score_sets",
]

# Stream ids (second Philox counter word): independent random sequences per anchor / block
_S_SAMPLE = 0  # sample_class_conditional: one xoshiro stream per block of _BLOCK samples
_S_INTERVAL = 2  # score_sets: the anchor's parent interval (one Philox block)
_S_CLASS = 3  # score_sets: class choices of the unlabeled items
_S_VALUE = 4  # score_sets: values of the unlabeled items (inverse uniform or AR trials)
_S_POSITIVE = 5  # score_sets: values of the positives
_BLOCK = 4096  # samples per stream in sample_class_conditional (fixed: results must not depend on threads)

METHODS = ("inverse", "accept-reject")
MAX_TRIALS = 100_000  # per draw; the acceptance probability of Algorithms 7-8 is >= 1/2 on average


def _method(method) -> int:
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return METHODS.index(method)


def _label(label) -> int:
    if isinstance(label, str):  # (an array would make `in` ambiguous)
        if label in ("tn", "true_negative"):
            return 0
        if label in ("fn", "false_negative"):
            return 1
    raise ValueError(
        f"label must be 'tn' (true negative, eq. 6.14) or 'fn' (false negative, eq. 6.15), got {label!r}"
    )


# --------------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------------
# exp for |x| < 700 in a form the compiler vectorises (libm's exp is a call per element, and
# numpy's float64 exp is SIMD only with AVX-512): x = k ln 2 + r (Cody-Waite, |r| <= ln(2)/2),
# e^r by its Taylor polynomial to r^13 (truncation < 4e-18), times 2^k from a table. Measured
# within 1 ulp of libm's exp (tests).
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 with trailing zero bits: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_EXP_C = tuple(1.0 / math.factorial(i) for i in range(14))
_POW2 = np.ldexp(1.0, np.arange(-1024, 1024)).astype(
    np.float64
)  # 2^k at index k + 1024 (|k| <= 1010 used)


@numba.njit(cache=True, nogil=True)
def _exp_row(row):
    """row <- exp(row) in place; the polynomial path when every entry lies in (-700, 700)."""
    n = row.size
    for j in range(n):
        v = row[j]
        if not (v > -700.0 and v < 700.0):
            for i in range(n):
                row[i] = math.exp(row[i])
            return
    c = _EXP_C
    for j in range(n):
        x = row[j]
        kf = math.floor(x * _LOG2E + 0.5)
        r = (x - kf * _LN2_HI) - kf * _LN2_LO
        p = c[13] * r + c[12]
        p = p * r + c[11]
        p = p * r + c[10]
        p = p * r + c[9]
        p = p * r + c[8]
        p = p * r + c[7]
        p = p * r + c[6]
        p = p * r + c[5]
        p = p * r + c[4]
        p = p * r + c[3]
        p = p * r + c[2]
        p = p * r + 1.0
        p = p * r + 1.0
        row[j] = p * _POW2[numba.int64(kf) + 1024]


@numba.njit(cache=True, nogil=True)
def _accept_prob(is_fn, alpha, cdf):
    """Acceptance probability of Algorithm 7 (TN) / Algorithm 8 (FN) with envelope c = 2 alpha."""
    if is_fn:
        return (1.0 - alpha + (2.0 * alpha - 1.0) * cdf) / alpha
    return (alpha + (1.0 - 2.0 * alpha) * cdf) / alpha


@numba.njit(cache=True, nogil=True)
def _ar_cdf(is_fn, alpha, s0, s1, s2, s3, max_trials):
    """One accept-reject draw (Algorithm 7 / 8) returned as its parent CDF value w.

    The proposal is x = Phi^{-1}(w) for a uniform w, so the CDF that the algorithm computes,
    int_{-inf}^x phi, is w itself: no CDF evaluation and no rounding between x and its CDF,
    and the caller maps w to x with the parent's ppf. Returns (w, trials, state); trials = -1
    when max_trials proposals were all rejected.
    """
    for trial in range(max_trials):
        r, s0, s1, s2, s3 = _xoshiro_next(s0, s1, s2, s3)
        w = _u01(r)
        r, s0, s1, s2, s3 = _xoshiro_next(s0, s1, s2, s3)
        if _u01(r) <= _accept_prob(is_fn, alpha, w):
            return w, trial + 1, s0, s1, s2, s3
    return 0.5, -1, s0, s1, s2, s3


@numba.njit(cache=True, parallel=True)
def _class_kernel(kind, p0, p1, alpha, is_fn, method, k0, k1, max_trials, out, out_v, trials):
    """phi_TN / phi_FN draws in blocks of _BLOCK samples, one xoshiro stream per block.

    trials[block] receives the number of proposals used by the block (-1: cap exceeded).

    For kind == KIND_GENERIC the kernel stores the parent-CDF value u in ``out`` and its
    complement v = 1 - u (computed without cancellation on the inverse path) in ``out_v``; the
    caller applies the parent's ppf / isf.
    """
    if is_fn:
        b, a = 2.0 * (1.0 - alpha), 2.0 * alpha - 1.0
    else:
        b, a = 2.0 * alpha, 1.0 - 2.0 * alpha
    n = out.size
    nblocks = (n + _BLOCK - 1) // _BLOCK
    for blk in numba.prange(nblocks):
        s0, s1, s2, s3 = _xoshiro_seed(_S_SAMPLE, blk, k0, k1)
        used = 0
        for i in range(blk * _BLOCK, min(n, (blk + 1) * _BLOCK)):
            if method == 0:
                r, s0, s1, s2, s3 = _xoshiro_next(s0, s1, s2, s3)
                q = _u01(r)
                if kind == KIND_GENERIC:
                    if q <= 0.5:
                        u = _quad_root(b, a, q)
                        v = 1.0 - u
                    else:
                        v = _quad_root(b + 2.0 * a, -a, 1.0 - q)
                        u = 1.0 - v
                    out[i] = u
                    out_v[i] = v
                else:
                    out[i] = _qlaw_ppf(kind, p0, p1, b, a, q)
                used += 1
            else:
                w, nt, s0, s1, s2, s3 = _ar_cdf(is_fn, alpha, s0, s1, s2, s3, max_trials)
                if nt < 0 or used < 0:
                    used = -1  # max_trials exceeded somewhere in this block
                else:
                    used += nt
                if kind == KIND_GENERIC:
                    out[i] = w
                    out_v[i] = 1.0 - w
                else:
                    out[i] = _parent_ppf(kind, p0, p1, w)
        trials[blk] = used


@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _uniform_qlaw_map(q, b, a, shift, scale):
    """shift + scale * u, u the root in [0, 1] of a u^2 + b u = q (the law's CDF of a uniform
    parent, eq. 6.29, in the stable form of _quad_root without its branches), for the
    vectorised pass 2 of _score_sets_kernel (inlined, numpy error model: no zero check)."""
    d2 = b * b + 4.0 * a * q
    return shift + scale * (2.0 * q / (b + math.sqrt(d2 if d2 > 0.0 else 0.0)))


# error_model="numpy": a float division by zero gives inf/nan instead of raising, so the
# compiler drops the zero check that keeps the branch-free pass 2 from vectorising (2.5x on that
# loop, the same numbers: no division here can meet a zero denominator)
@numba.njit(cache=True, parallel=True, error_model="numpy")
def _score_sets_kernel(
    start,
    n_unl,
    n_pos,
    alpha,
    tau_plus,
    t,
    gamma,
    lo,
    hi,
    kind,
    random_interval,
    method,
    k0,
    k1,
    max_trials,
    scores,
    is_tn,
    pos,
    params,
    flag,
):
    b_tn, a_tn = 2.0 * alpha, 1.0 - 2.0 * alpha
    b_fn, a_fn = 2.0 * (1.0 - alpha), 2.0 * alpha - 1.0
    half = 0.5 * gamma * (hi - lo)
    inv_t = 1.0 / t
    for r in numba.prange(scores.shape[0]):
        m = start + r
        if random_interval:
            # Algorithm 6: a ~ U(lo, lo + gamma (hi - lo) / 2), b ~ U(hi - gamma (hi - lo) / 2, hi)
            w1, w2 = _philox_uniform2(0, _S_INTERVAL, m, k0, k1)
            pa = lo + half * w1
            pb = hi - half * w2
        else:
            pa = lo
            pb = hi
        params[r, 0] = pa
        params[r, 1] = pb
        # separate streams for labels and values: the labels are the same for both methods.
        # Pass 1 (sequential random numbers): labels and, per item, the inverse-transform
        # uniform q or the accepted parent-CDF value w of Algorithms 7-8, kept in the output row.
        c0, c1, c2, c3 = _xoshiro_seed(_S_CLASS, m, k0, k1)
        s0, s1, s2, s3 = _xoshiro_seed(_S_VALUE, m, k0, k1)
        row = scores[r]
        tn_row = is_tn[r]
        if method == 0:  # the two streams in one loop without a branch (independent chains)
            for j in range(n_unl):
                bits, c0, c1, c2, c3 = _xoshiro_next(c0, c1, c2, c3)
                tn_row[j] = not (
                    _u01(bits) <= tau_plus
                )  # step 1: p <= tau+ picks the false-negative population
                bits, s0, s1, s2, s3 = _xoshiro_next(s0, s1, s2, s3)
                row[j] = _u01(bits)
        else:
            for j in range(n_unl):
                bits, c0, c1, c2, c3 = _xoshiro_next(c0, c1, c2, c3)
                fn = _u01(bits) <= tau_plus
                tn_row[j] = not fn
                w, nt, s0, s1, s2, s3 = _ar_cdf(fn, alpha, s0, s1, s2, s3, max_trials)
                if nt < 0:
                    flag[r] = 1
                row[j] = w
        # Pass 2 (no random numbers): parent CDF value -> score x -> x / t, then the exp of
        # step 3 by _exp_row (elementwise, so chunking cannot change it). For a
        # uniform parent this is branch-free and vectorises (sqrt, division); the upper-tail
        # survival branch of _qlaw_ppf is not needed there because x = a + (b - a) u has
        # absolute error ~1e-16 (b - a) whatever u.
        if kind == KIND_UNIFORM:
            scale = (pb - pa) * inv_t
            shift = pa * inv_t
            if method == 0:
                tn_row = is_tn[r]
                for j in range(n_unl):
                    q = row[j]
                    bq = b_tn if tn_row[j] else b_fn
                    row[j] = _uniform_qlaw_map(q, bq, 1.0 - bq, shift, scale)
            else:
                for j in range(n_unl):
                    row[j] = shift + scale * row[j]
        else:
            for j in range(n_unl):
                if method == 0:
                    if is_tn[r, j]:
                        x = _qlaw_ppf(kind, pa, pb, b_tn, a_tn, row[j])
                    else:
                        x = _qlaw_ppf(kind, pa, pb, b_fn, a_fn, row[j])
                else:
                    x = _parent_ppf(kind, pa, pb, row[j])
                row[j] = x * inv_t
        _exp_row(row)  # step 3 of Algorithm 6: x -> exp(x / t)
        if n_pos > 0:
            s0, s1, s2, s3 = _xoshiro_seed(_S_POSITIVE, m, k0, k1)
            prow = pos[r]
            if kind == KIND_UNIFORM and method == 0:
                # as the unlabeled scores: the uniforms first, then the branch-free map (same
                # random numbers as the general path; the map rounds differently, ~1e-16 (b - a))
                for k in range(n_pos):
                    bits, s0, s1, s2, s3 = _xoshiro_next(s0, s1, s2, s3)
                    prow[k] = _u01(bits)
                scale = (pb - pa) * inv_t
                shift = pa * inv_t
                for k in range(n_pos):
                    prow[k] = _uniform_qlaw_map(prow[k], b_fn, a_fn, shift, scale)
            else:
                for k in range(n_pos):
                    if method == 0:
                        bits, s0, s1, s2, s3 = _xoshiro_next(s0, s1, s2, s3)
                        x = _qlaw_ppf(kind, pa, pb, b_fn, a_fn, _u01(bits))
                    else:
                        w, nt, s0, s1, s2, s3 = _ar_cdf(True, alpha, s0, s1, s2, s3, max_trials)
                        if nt < 0:
                            flag[r] = 1
                        x = _parent_ppf(kind, pa, pb, w)
                    pos[r, k] = x * inv_t
            _exp_row(prow)


# the same kernel without the thread pool (and without the GIL): small calls, and callers that
# run blocks on their own threads (negtheory.studies); same code, same numbers
_score_sets_kernel_serial = numba.njit(cache=True, nogil=True, error_model="numpy")(
    _score_sets_kernel.py_func
)
_PARALLEL_MIN_SIZE = 1 << 17  # scores + positives per call below which the serial twin runs


@numba.njit(cache=True, nogil=True)
def _parent_cdf_rows(kind, params, x, out):
    """Parent CDF of each entry of row r under the anchor's parent law params[r]."""
    for r in range(x.shape[0]):
        p0 = params[r, 0]
        p1 = params[r, 1]
        for j in range(x.shape[1]):
            if kind == KIND_NORMAL:
                out[r, j] = 0.5 * math.erfc(-(x[r, j] - p0) / (p1 * math.sqrt(2.0)))
            else:
                out[r, j] = min(max((x[r, j] - p0) / (p1 - p0), 0.0), 1.0)


# --------------------------------------------------------------------------------------------
# class-conditional samplers (Algorithms 7-8 and inversion)
# --------------------------------------------------------------------------------------------
def _size_shape(size) -> tuple[tuple[int, ...], int]:
    size = size_arg("size", size)
    if size is None:
        return (), 1
    shape = (size,) if isinstance(size, int) else size
    return shape, int(np.prod(shape, dtype=np.int64))


@renamed_keyword("seed", "rng")
def sample_class_conditional(
    base: FrozenDist,
    alpha: float,
    label: str = "tn",
    size: Size = None,
    *,
    method: str = "inverse",
    rng: RNGLike = None,
    return_acceptance: bool = False,
    max_trials: int = MAX_TRIALS,
) -> FloatOrArray | tuple[FloatOrArray, float]:
    r"""Draw true-negative or false-negative scores (thesis eq. 6.14-6.15, Algorithms 7-8).

    Parameters
    ----------
    base : frozen scipy.stats continuous distribution or negtheory distribution
        Proposal / parent law :math:`\phi`. Normal and uniform parents run in a parallel numba kernel;
        others draw the same Philox uniforms and use the parent's vectorised ppf.
    alpha : float in [0.5, 1]
        Encoder quality :math:`P(x^- < x^+)` (the AUC of eq. 6.21).
    label : {"tn", "fn"}
        phi_TN (Algorithm 7) or phi_FN (Algorithm 8).
    size : int or tuple, optional
        Output shape (``None``: one float).
    method : {"inverse", "accept-reject"}
        Exact inversion of the CDF quadratic in :math:`\Phi` (README, "Notes on the sources (errata)") or the accept-reject
        Algorithms 7-8 with proposal :math:`\phi` and envelope :math:`c = 2\alpha`.
    rng : None, int, SeedSequence or Generator
        Key of the counter-based generator; results do not depend on the thread count
        (``seed``: deprecated since 0.1, removed in 0.2).
    return_acceptance : bool
        Also return the measured acceptance rate (draws / proposals; 1.0 for "inverse").
        Its expectation for accept-reject is :math:`1 / (2\alpha)`.
    max_trials : int
        Cap on proposals per draw; exceeding it raises ``RuntimeError``.

    Returns
    -------
    samples : float or ndarray
        The scores, of shape ``size`` (a float for ``size=None``).
    acceptance_rate : float
        Only with ``return_acceptance=True``: draws / proposals (1.0 for "inverse").

    Examples
    --------
    >>> import scipy.stats
    >>> from negtheory.generators import sample_class_conditional
    >>> x, rate = sample_class_conditional(scipy.stats.norm(), 0.8, "tn", 100_000,
    ...                                    method="accept-reject", rng=1, return_acceptance=True)
    >>> abs(rate - 1 / 1.6) < 0.01
    True
    """
    alpha = real_scalar("alpha", alpha, 0.5, 1.0)
    is_fn = _label(label)
    meth = _method(method)
    return_acceptance = flag("return_acceptance", return_acceptance)
    max_trials = int_scalar("max_trials", max_trials, 1)
    parent = _Parent(base)
    shape, n = _size_shape(size)
    k0, k1 = philox_key(rng)
    out = np.empty(n)
    out_v = np.empty(n if parent.kind == KIND_GENERIC else 0)
    trials = np.empty((n + _BLOCK - 1) // _BLOCK, dtype=np.int64)  # proposals per block
    _class_kernel(
        parent.kind,
        parent.p0,
        parent.p1,
        alpha,
        bool(is_fn),
        meth,
        k0,
        k1,
        max_trials,
        out,
        out_v,
        trials,
    )
    if (trials < 0).any():
        raise RuntimeError(
            f"accept-reject: a draw needed more than max_trials={max_trials} proposals"
        )
    if parent.kind == KIND_GENERIC:  # parent CDF values -> scores with the parent's own ppf / isf
        low = out <= 0.5
        x = np.empty(n)
        x[low] = parent.ppf(out[low])
        x[~low] = parent.isf(out_v[~low])
        out = x
    total = int(trials.sum())
    out = out.reshape(shape) if shape else float(out[0])
    if return_acceptance:
        return out, (n / total if total else math.nan)
    return out


@docstring(rvs_params=RVS_DOC)
class AcceptRejectSampler:
    r"""Generic accept-reject sampler: draws from density ``pdf`` with proposal ``proposal``.

    The general form of the Algorithms 7-8 of Liu Bin's thesis (§6.6.1).

    Requires the envelope condition pdf(x) <= c proposal.pdf(x) (checked on every proposal; a
    violation raises ``ValueError``). Each round proposes a batch, accepts x with probability
    pdf(x) / (c g(x)); after ``max_rounds`` rounds without enough acceptances it raises
    ``RuntimeError``. The numbers of proposals and acceptances are recorded
    (:attr:`acceptance_rate`, expected 1 / c for a normalised ``pdf``).

    Parameters
    ----------
    pdf : callable
        Vectorised target density f (need not be normalised; then the rate is Z / c).
    proposal : frozen scipy.stats distribution or negtheory distribution
        Proposal g with ``rvs(size, random_state)`` and ``pdf``.
    c : float > 0
        Envelope constant.
    max_rounds : int, default 1000
        Iteration cap (rounds of batched proposals), >= 1.

    Examples
    --------
    >>> import scipy.stats
    >>> from negtheory.dists import true_negative
    >>> from negtheory.generators import AcceptRejectSampler
    >>> base = scipy.stats.norm()
    >>> s = AcceptRejectSampler(true_negative(base, 0.75).pdf, base, c=1.5)   # c = 2 alpha
    >>> x = s.rvs(50_000, random_state=0)
    >>> abs(s.acceptance_rate - 1 / 1.5) < 0.01
    True
    """

    def __init__(self, pdf: Callable, proposal: FrozenDist, c: float, *, max_rounds: int = 1000):
        if not callable(pdf):
            raise TypeError(f"pdf must be callable, got {type(pdf).__name__}")
        if not (hasattr(proposal, "rvs") and hasattr(proposal, "pdf")):
            raise TypeError(
                "proposal must be a distribution with rvs and pdf (e.g. a frozen scipy.stats distribution)"
            )
        import scipy.stats

        if isinstance(getattr(proposal, "dist", None), scipy.stats.rv_continuous):
            check_frozen_continuous("proposal", proposal)  # norm(nan) would propose NaN forever
        self.pdf = pdf
        self.proposal = proposal
        self.c = real_scalar("c", c, 0.0, None, lo_open=True)
        self.max_rounds = int_scalar("max_rounds", max_rounds, 1)
        self.n_proposed = 0
        self.n_accepted = 0

    @property
    def acceptance_rate(self) -> float:
        """Accepted / proposed over every call so far (nan before the first call)."""
        return self.n_accepted / self.n_proposed if self.n_proposed else math.nan

    def rvs(
        self, size: Size = None, random_state: RNGLike = None, *, rng: RNGLike = None
    ) -> FloatOrArray:
        """Draw ``size`` samples from the target density.

        %(rvs_params)s
        """
        rng = as_generator(
            random_state_or_rng(random_state, rng), "random_state" if rng is None else "rng"
        )
        shape, n = _size_shape(size)
        out = np.empty(n)
        filled = 0
        for _ in range(self.max_rounds):
            if filled >= n:
                break
            need = n - filled
            # propose enough for the remaining draws at the current rate estimate
            rate = self.acceptance_rate if self.n_accepted > 0 else 1.0 / self.c
            batch = int(min(max(1.2 * need / max(rate, 1e-6) + 16, 64), 1 << 22))
            x = np.asarray(self.proposal.rvs(size=batch, random_state=rng), dtype=np.float64)
            f = np.asarray(self.pdf(x), dtype=np.float64)
            g = np.asarray(self.proposal.pdf(x), dtype=np.float64)
            if np.any(f > self.c * g * (1.0 + 1e-9) + 1e-300):
                bad = int(np.argmax(f - self.c * g))
                raise ValueError(
                    f"envelope violated: pdf({x[bad]!r}) = {f[bad]!r} > c * proposal.pdf = {self.c * g[bad]!r}; increase c"
                )
            u = rng.random(batch)
            acc = u * self.c * g < f
            xs = x[acc]
            # record only the proposals up to the last one used, so the rate is unbiased
            take = min(xs.size, need)
            if take < xs.size:
                last = np.flatnonzero(acc)[take - 1]
                used = last + 1
            else:
                used = batch
            self.n_proposed += int(used)
            self.n_accepted += int(take)
            out[filled : filled + take] = xs[:take]
            filled += take
        if filled < n:
            raise RuntimeError(
                f"accept-reject: only {filled} of {n} samples after max_rounds={self.max_rounds} rounds "
                f"(acceptance rate {self.acceptance_rate:.3g}); the envelope constant c={self.c!r} may be far too large "
                "or the target density zero on the proposal's support"
            )
        return out.reshape(shape) if shape else float(out[0])


# --------------------------------------------------------------------------------------------
# Algorithm 6
# --------------------------------------------------------------------------------------------
@dataclass
class ScoreSets:
    """Scores of Algorithm 6 (Liu Bin's thesis, §6.6.1) for a block of anchors.

    Made by :func:`score_sets` and :func:`iter_score_sets`; every parameter is kept as an
    attribute of the same name.

    Parameters
    ----------
    scores : ndarray [M, N]
        Unlabeled scores exp(x / t).
    is_true_negative : ndarray [M, N] of bool
        True where the score was drawn from phi_TN (label of Algorithm 6), False for phi_FN.
    positives : ndarray [M, n_positives]
        Extra positive scores exp(x / t), x ~ phi_FN (for DCL-type estimators, eq. 6.47).
    parent_params : ndarray [M, 2]
        The anchor's parent law: (a, b) of U(a, b), or (loc, scale) of a normal parent.
    parent : str
        "uniform" or "normal".
    alpha, tau_plus, t : float
        The generating parameters: encoder AUC in [0.5, 1], class prior in (0, 1) and
        temperature > 0.
    anchor_offset : int, default 0
        Index of the first anchor of this block in the full study.
    method : str, default "inverse"
        "inverse" or "accept-reject", the algorithm that drew the scores.
    _kind : int
        Internal code of the parent law for the numba kernels (uniform by default).

    Examples
    --------
    >>> from negtheory.generators import score_sets
    >>> s = score_sets(3, 8, alpha=0.9, tau_plus=0.1, rng=0)
    >>> len(s), s.scores.shape, s.parent
    (3, (3, 8), 'uniform')
    >>> u = s.parent_cdf()
    >>> bool(((u >= 0) & (u <= 1)).all())
    True
    """

    scores: np.ndarray
    is_true_negative: np.ndarray
    positives: np.ndarray
    parent_params: np.ndarray
    parent: str
    alpha: float
    tau_plus: float
    t: float
    anchor_offset: int = 0
    method: str = "inverse"
    _kind: int = field(default=KIND_UNIFORM, repr=False)

    def __len__(self) -> int:
        return self.scores.shape[0]

    @property
    def raw_scores(self) -> np.ndarray:
        """x = t log(score): the scores before the exp(x / t) map."""
        return self.t * np.log(self.scores)

    def parent_cdf(self, scores: ArrayLike | None = None) -> np.ndarray:
        """Exact parent CDF Phi_m(x) of each score (default: ``scores``) under its anchor's law.

        This is the oracle value that the eCDF of eq. 6.30 estimates (after the map of
        eq. 6.29); useful for checking estimators.

        Parameters
        ----------
        scores : array_like, shape (M, n), optional
            Mapped scores exp(x / t), one row per anchor of this block (default ``None``: the
            block's own ``scores``).

        Returns
        -------
        ndarray
            Phi_m(t log(score)) in [0, 1], with the shape of ``scores``.
        """
        s = self.scores if scores is None else np.asarray(scores, dtype=np.float64)
        if s.ndim != 2 or s.shape[0] != len(self):
            raise ValueError(f"scores must have shape [{len(self)}, n], got {s.shape}")
        out = np.empty(s.shape)
        _parent_cdf_rows(
            self._kind, self.parent_params, np.ascontiguousarray(self.t * np.log(s)), out
        )
        return out


def _parse_parent(parent, base_interval, t):
    """-> (kind, random_interval, lo, hi, name)."""
    if isinstance(parent, str):
        if parent != "uniform":
            raise ValueError(
                f"parent must be 'uniform' (Algorithm 6) or a frozen scipy.stats norm / uniform, got {parent!r}"
            )
        if base_interval is None:
            hi = 1.0 / t / t  # t**2 overflows for t > 1e154
            if not hi > 0.0:
                raise ValueError(
                    f"t={t!r} is too large for the default base_interval (-1/t^2, 1/t^2), which underflows to a point; pass base_interval"
                )
            lo = -hi
        else:
            arr = as_float_array("base_interval", base_interval)
            if arr.shape != (2,) or not arr[0] < arr[1]:
                raise ValueError(
                    f"base_interval must be (lo, hi) with lo < hi, got {base_interval!r}"
                )
            lo, hi = float(arr[0]), float(arr[1])
        return KIND_UNIFORM, True, lo, hi, "uniform"
    p = _Parent(parent, "parent")
    if p.kind == KIND_GENERIC:
        raise ValueError(f"score_sets supports normal and uniform parents, got {p.describe()}")
    if base_interval is not None:
        raise ValueError(
            "base_interval applies to parent='uniform' only; a frozen parent is used as given for every anchor"
        )
    return p.kind, False, p.p0, p.p1, "normal" if p.kind == KIND_NORMAL else "uniform"


@renamed_keyword("seed", "rng")
def iter_score_sets(
    n_anchors: int,
    n_unlabeled: int,
    alpha: float,
    tau_plus: float,
    gamma: float = 0.1,
    t: float = 0.5,
    n_positives: int = 10,
    base_interval: tuple[float, float] | None = None,
    method: str = "inverse",
    rng: RNGLike = None,
    *,
    parent: str | FrozenDist = "uniform",
    chunk_size: int = 65_536,
    anchor_offset: int = 0,
) -> Iterator[ScoreSets]:
    r"""Algorithm 6 in chunks of anchors; see :func:`score_sets` for the parameters.

    Yields :class:`ScoreSets` blocks of at most ``chunk_size`` anchors (``anchor_offset`` gives
    their position). Because every random number is keyed by the anchor index, the blocks are
    exactly the corresponding rows of ``score_sets(...)`` with the same seed, so a study can
    run M = 10^7 anchors in bounded memory. ``anchor_offset`` starts at anchor
    ``anchor_offset`` of the study (anchors ``anchor_offset .. anchor_offset + n_anchors - 1``),
    so independent workers can generate disjoint slices of one study.

    Parameters
    ----------
    n_anchors : int
        M, the number of anchors, >= 1.
    n_unlabeled : int
        N, unlabeled scores per anchor, >= 1.
    alpha : float in [0.5, 1]
        Encoder AUC (eq. 6.21).
    tau_plus : float in (0, 1)
        False-negative class prior.
    gamma : float in [0, 1], default 0.1
        Spread of the anchors' parent intervals (0: every anchor gets (lo, hi)).
    t : float > 0, default 0.5
        Temperature of exp(x / t).
    n_positives : int >= 0, default 10
        Extra positive scores per anchor (K of the DCL estimator, eq. 6.47).
    base_interval : (lo, hi), optional
        Default :math:`(-1/t^2, 1/t^2)`, the released code's range of a similarity on a sphere of
        radius 1/t; the thesis text's is (-0.5, 0.5).
    method : {"inverse", "accept-reject"}, default "inverse"
        Exact inversion (README, "Notes on the sources (errata)") or Algorithms 7-8; same laws.
    rng : None, int, SeedSequence or Generator
        Key of the counter-based generator (same rng seed => same arrays for any thread count;
        ``seed``: deprecated since 0.1, removed in 0.2).
    parent : "uniform" or a frozen ``scipy.stats.norm`` / ``scipy.stats.uniform``
        "uniform" (default) is Algorithm 6; a frozen law is used for every anchor
        (``scipy.stats.norm()`` with t = 2 reproduces Fig. 6.8), and then ``gamma`` is unused.
    chunk_size : int, default 65536
        Largest number of anchors per yielded block, >= 1.
    anchor_offset : int >= 0, default 0
        Index of the first anchor in the full study.

    Returns
    -------
    iterator of ScoreSets
        Blocks of consecutive anchors, ``anchor_offset`` increasing by ``chunk_size``.

    Examples
    --------
    >>> from negtheory.generators import iter_score_sets
    >>> blocks = list(iter_score_sets(10, 64, 0.9, 0.1, rng=3, chunk_size=4))
    >>> [len(b) for b in blocks], blocks[1].anchor_offset
    ([4, 4, 2], 4)
    """
    n_anchors = int_scalar("n_anchors", n_anchors, 1)
    chunk_size = int_scalar("chunk_size", chunk_size, 1)
    anchor_offset = int_scalar("anchor_offset", anchor_offset, 0, 2**63 - 1 - n_anchors)
    args = _checked_block_args(
        n_unlabeled, alpha, tau_plus, gamma, t, n_positives, base_interval, method, rng, parent
    )
    return _iter_blocks(n_anchors, chunk_size, anchor_offset, *args)


def _checked_block_args(
    n_unlabeled, alpha, tau_plus, gamma, t, n_positives, base_interval, method, rng, parent
):
    """The validated arguments of Algorithm 6 in _iter_blocks' order (its last 14), with the
    parent parsed and one Philox key for the whole study."""
    n_unlabeled = int_scalar("n_unlabeled", n_unlabeled, 1)
    n_positives = int_scalar("n_positives", n_positives, 0)
    alpha = real_scalar("alpha", alpha, 0.5, 1.0)
    tau_plus = real_scalar("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True)
    gamma = real_scalar("gamma", gamma, 0.0, 1.0)
    t = real_scalar("t", t, 0.0, None, lo_open=True)
    meth = _method(method)
    kind, random_interval, lo, hi, name = _parse_parent(parent, base_interval, t)
    k0, k1 = philox_key(rng)
    return (
        n_unlabeled,
        n_positives,
        alpha,
        tau_plus,
        gamma,
        t,
        kind,
        random_interval,
        lo,
        hi,
        name,
        meth,
        k0,
        k1,
    )


def _block_maker(
    n_unlabeled,
    alpha,
    tau_plus,
    gamma,
    t,
    n_positives,
    base_interval,
    method,
    seed,
    parent="uniform",
):
    """``make(first, count)`` -> the ScoreSets of anchors [first, first + count), i.e. rows of
    ``score_sets(...)`` with these arguments: the checks and the key derivation done once, for
    callers generating many small blocks (negtheory.studies)."""
    args = _checked_block_args(
        n_unlabeled, alpha, tau_plus, gamma, t, n_positives, base_interval, method, seed, parent
    )

    def make(first, count):
        (s,) = _iter_blocks(count, count, first, *args)
        return s

    return make


def _iter_blocks(
    n_anchors,
    chunk_size,
    offset,
    n_unl,
    n_pos,
    alpha,
    tau_plus,
    gamma,
    t,
    kind,
    random_interval,
    lo,
    hi,
    name,
    meth,
    k0,
    k1,
):
    for first in range(0, n_anchors, chunk_size):
        count = min(chunk_size, n_anchors - first)
        start = offset + first
        scores = np.empty((count, n_unl))
        is_tn = np.empty((count, n_unl), dtype=np.bool_)
        pos = np.empty((count, n_pos))
        params = np.empty((count, 2))
        flag = np.zeros(count, dtype=np.int8)
        kernel = (
            _score_sets_kernel
            if count * (n_unl + n_pos) >= _PARALLEL_MIN_SIZE
            else _score_sets_kernel_serial
        )
        kernel(
            start,
            n_unl,
            n_pos,
            alpha,
            tau_plus,
            t,
            gamma,
            lo,
            hi,
            kind,
            random_interval,
            meth,
            k0,
            k1,
            MAX_TRIALS,
            scores,
            is_tn,
            pos,
            params,
            flag,
        )
        if flag.any():
            raise RuntimeError(f"accept-reject: a draw needed more than {MAX_TRIALS} proposals")
        # exp(.) >= 0: the maximum is finite exactly when every entry is (NaN propagates)
        if not (np.isfinite(scores.max()) and (pos.size == 0 or np.isfinite(pos.max()))):
            raise ValueError(f"exp(x / t) overflowed: reduce the score range or raise t (t={t!r})")
        yield ScoreSets(
            scores, is_tn, pos, params, name, alpha, tau_plus, t, start, METHODS[meth], kind
        )


@renamed_keyword("seed", "rng")
def score_sets(
    n_anchors: int,
    n_unlabeled: int,
    alpha: float,
    tau_plus: float,
    gamma: float = 0.1,
    t: float = 0.5,
    n_positives: int = 10,
    base_interval: tuple[float, float] | None = None,
    method: str = "inverse",
    rng: RNGLike = None,
    *,
    parent: str | FrozenDist = "uniform",
    anchor_offset: int = 0,
) -> ScoreSets:
    r"""Unlabeled score sets of the numerical study of Liu Bin's thesis (§6.6.1, Algorithm 6).

    For each anchor m: a parent phi_m = U(a_m, b_m) with a_m ~ U(lo, lo + gamma (hi - lo) / 2)
    and b_m ~ U(hi - gamma (hi - lo) / 2, hi); then N unlabeled scores, each from phi_FN (false
    negative) with probability tau+ else from phi_TN (eq. 6.14-6.15), mapped by exp(x / t)
    (step 3, Fig. 6.7); plus ``n_positives`` positive scores from phi_FN.

    Parameters
    ----------
    n_anchors : int
        M.
    n_unlabeled : int
        N, unlabeled scores per anchor.
    alpha : float in [0.5, 1]
        Encoder AUC (eq. 6.21).
    tau_plus : float in (0, 1)
        False-negative class prior.
    gamma : float in [0, 1]
        Spread of the anchors' parent intervals (0: every anchor gets (lo, hi)).
    t : float > 0
        Temperature of exp(x / t).
    n_positives : int >= 0
        Extra positive scores per anchor (K of the DCL estimator, eq. 6.47).
    base_interval : (lo, hi), optional
        Default :math:`(-1/t^2, 1/t^2)`, the released code's range of a similarity on a sphere of
        radius 1/t; the thesis text's is (-0.5, 0.5).
    method : {"inverse", "accept-reject"}
        Exact inversion (README, "Notes on the sources (errata)") or Algorithms 7-8; same laws.
    rng : None, int, SeedSequence or Generator
        Key of the counter-based generator (same rng seed => same arrays for any thread count;
        ``seed``: deprecated since 0.1, removed in 0.2).
    parent : "uniform" or a frozen ``scipy.stats.norm`` / ``scipy.stats.uniform``
        "uniform" is Algorithm 6; a frozen law is used for every anchor (``scipy.stats.norm()``
        with t = 2 reproduces Fig. 6.8), and then ``gamma`` is unused.
    anchor_offset : int >= 0
        Index of the first anchor: ``score_sets(m, ..., anchor_offset=s)`` equals rows
        ``s .. s + m - 1`` of a run with more anchors and the same seed.

    Returns
    -------
    ScoreSets
        ``scores`` [M, N], ``is_true_negative`` [M, N], ``positives`` [M, n_positives], and
        each anchor's ``parent_params``. For more anchors than fit in memory use
        :func:`iter_score_sets`.

    Examples
    --------
    >>> from negtheory.generators import score_sets
    >>> s = score_sets(1000, 64, alpha=0.9, tau_plus=0.1, rng=0)
    >>> s.scores.shape, s.positives.shape
    ((1000, 64), (1000, 10))
    >>> bool(0.08 < 1 - s.is_true_negative.mean() < 0.12)
    True
    """
    blocks = list(
        iter_score_sets(
            n_anchors,
            n_unlabeled,
            alpha,
            tau_plus,
            gamma,
            t,
            n_positives,
            base_interval,
            method,
            rng,
            parent=parent,
            chunk_size=max(int_scalar("n_anchors", n_anchors, 1), 1),
            anchor_offset=anchor_offset,
        )
    )
    return blocks[0]
