r"""Contrastive and pairwise losses on logits, in log space (torch side of :mod:`negtheory.estimators`).

Every function takes **logits** — similarity / temperature — ``pos_logits`` of shape ``[...]``
(one positive per anchor) and ``neg_logits`` of shape ``[..., N]`` (the anchor's N unlabeled,
"negative" samples), and returns the per-anchor loss reduced by ``reduction`` ("mean", "sum",
"none").

The softmax family (:func:`infonce`, :func:`dcl`, :func:`hcl`, :func:`bcl`) is one formula with
different estimators of the true-negative score mean theta (Liu Bin's thesis, §6.6.1):

.. math:: \ell = -\log \frac{e^{s^+}}{e^{s^+} + N\,\hat\theta(\hat x_1,\dots,\hat x_N)},
          \qquad \hat x_i = e^{s_i},

(the thesis's eq. 6.31 for BCL), with theta-hat the numpy estimator of the same name applied to
x-hat = exp(neg_logits):
:func:`~negtheory.estimators.theta_biased` (eq. 6.46, plain InfoNCE),
:func:`~negtheory.estimators.theta_dcl` (eq. 6.47), :func:`~negtheory.estimators.theta_hcl`,
:func:`~negtheory.estimators.theta_bcl` (eq. 6.48). The tests check each loss against
``-log(e^pos / (e^pos + N * theta_numpy(exp(neg))))`` to 1e-9 in float64.

Numerics
--------
* Nothing exponentiates a raw logit: N theta-hat is formed as a log (logsumexp, and
  ``log(A - B) = log A + log(-expm1(log B - log A))`` for the debiasing subtraction), and the
  loss is ``softplus(log N theta - s+)`` (= ``logaddexp(s+, log N theta) - s+`` without its
  cancellation when the positive dominates).
* Half precision (float16 / bfloat16) inputs are computed in float32 and the loss is cast back
  (the same policy as ``torch.autocast`` for ``logsumexp``/``log_softmax``); gradients flow
  through the casts, so values and gradients stay finite at logits of +-20 (temperature 0.05).
* BCL's eCDF (eq. 6.30: the N unlabeled scores <= x, itself included, over N; ties share the
  largest rank) comes from one sort per row, in torch on the input's device (``torch.sort``):
  O(N log N) time, O(N) extra memory per anchor, never an N x N comparison tensor, no numba, no
  host round-trip on accelerators. On the CPU in eager mode, float32 rows are argsorted by
  numpy's vectorised integer sort instead, several times faster than ``torch.sort`` there:
  rows of up to 4096 scores as 32-bit keys (the score quantised within its row's range, the
  column in the low bits), with the rare neighbours that share a quantum re-sorted by value
  afterwards, so the permutation is exactly that of a stable sort; longer rows as 64-bit keys
  (an order-preserving integer image of the float and the column). omega is tabulated for the
  N eCDF values and multiplied in by rank. The CPU keys and permutation (9 bytes per score
  from 2^20 scores on, 13 below) live in buffers each thread keeps between calls (up to
  256 MiB; larger ones are freed after the call): fresh arrays of that size would be mapped and
  page-faulted in by the C library at every step.
* Eager mode fuses the logsumexps of InfoNCE / DCL / BCL and HCL's ratio of power sums into
  autograd functions with one [.., N] temporary per pass; under ``torch.compile`` the plain
  torch forms are traced instead (the compiler fuses them itself), with no graph break. The
  fused functions are once-differentiable: double backward (``create_graph=True``) needs the
  compiled module.
* The private ``_*_core`` functions take logits where excluded entries are -inf and a count
  ``n`` of the valid ones (an int or a per-row tensor): the modules' in-batch and labelled
  calls use them on the masked similarity matrix instead of gathering the negatives.
* DPL's two averages of sigmoids lie in (0, 1) and are formed directly (no overflow is
  possible); P-hat is clamped at eps before the log.
* Nothing here changes torch's or numba's thread settings.

Debiased estimates can be <= 0 for finite N (eq. 6.47 subtracts). ``floor`` clamps theta-hat
below as in :func:`~negtheory.estimators.theta_dcl` (the released DCL/HCL code clamps N theta at
N e^{-1/t}, i.e. ``floor=math.exp(-1/t)`` for cosine similarity); with ``floor=None`` the only
clamp is at the smallest positive normal number of the working dtype, so the log stays finite
(where the numpy estimate is <= 0 its loss is undefined anyway).
"""

from __future__ import annotations

import functools
import math
import sys
import threading
from typing import TYPE_CHECKING

import numpy as np
import torch
import torch.nn.functional as F

from .._docstrings import docstring
from .._validation import flag, real_scalar
from ..estimators import _check_abt

if TYPE_CHECKING:
    from torch import Tensor

__all__ = [
    "infonce",
    "dcl",
    "hcl",
    "bcl",
    "bcl_log_weights",
    "ecdf_counts",
    "bpr",
    "dpl",
    "ccl",
    "bce",
    "relaxed_softmax",
]

# the documentation the losses share, written once (see negtheory._docstrings)
_REDUCTION = """
reduction : {"mean", "sum", "none"}, default "mean"
    Mean or sum over the anchors, or "none" for the per-anchor losses."""
_LOSS_RETURNS = """
Returns
-------
Tensor
    The loss: a scalar for "mean" / "sum", shape [...] for "none"."""
_doc = docstring(
    reduction=_REDUCTION,
    loss_returns=_LOSS_RETURNS,
    reduction_returns=_REDUCTION + "\n\n" + _LOSS_RETURNS.strip("\n"),
)

_REDUCTIONS = ("mean", "sum", "none")


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _work(t: torch.Tensor) -> torch.Tensor:
    """Half precision -> float32 (computing dtype); other floating dtypes unchanged."""
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.float()
    return t


def _tensor(name, x):
    """``x`` if it is a torch tensor, else a ``TypeError`` naming ``name`` (not an AttributeError later)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch tensor, got {type(x).__name__}")
    return x


def _prepare(pos_logits, neg_logits, name_neg="neg_logits"):
    if not isinstance(pos_logits, torch.Tensor) or not isinstance(neg_logits, torch.Tensor):
        raise TypeError("pos_logits and neg_logits must be torch tensors")
    if not (pos_logits.is_floating_point() and neg_logits.is_floating_point()):
        raise TypeError(
            f"logits must be floating point, got {pos_logits.dtype} and {neg_logits.dtype}"
        )
    if neg_logits.ndim < 1 or neg_logits.shape[-1] == 0:
        raise ValueError(
            f"{name_neg} must have shape [..., N] with N >= 1, got {tuple(neg_logits.shape)}"
        )
    if pos_logits.shape != neg_logits.shape[:-1]:
        raise ValueError(
            f"pos_logits must have the leading shape of {name_neg}: {tuple(neg_logits.shape[:-1])}, got {tuple(pos_logits.shape)}"
        )
    out_dtype = torch.promote_types(pos_logits.dtype, neg_logits.dtype)
    return _work(pos_logits.to(out_dtype)), _work(neg_logits.to(out_dtype)), out_dtype


def _nonfinite_to_nan(loss: torch.Tensor, *inputs) -> torch.Tensor:
    """``loss`` plus 0 x the row maximum of each input: NaN in every anchor whose inputs hold a NaN
    or +inf, unchanged elsewhere (no gradient flows through the check).

    Keeps the masking inside the losses (``where``, clamps) from turning poisoned input into a
    finite loss: NaN/+inf in, NaN out. -inf stays legal (a logit whose exponential is 0: the
    masked entries of fractional-K batches). One max pass per input, no [.., N] temporary.
    """
    for t in inputs:
        if t is None:
            continue
        t = t.detach()
        if t.ndim > loss.ndim:
            t = t.amax(dim=-1)
        loss = loss + t.clamp(min=0.0) * 0.0  # clamp keeps NaN and +inf, maps -inf to 0
    return loss


def _finish(loss: torch.Tensor, out_dtype, reduction: str) -> torch.Tensor:
    if reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    elif reduction != "none":
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return loss.to(out_dtype)


def _check_reduction(reduction):
    if (
        not isinstance(reduction, str) or reduction not in _REDUCTIONS
    ):  # (an array: `in` is ambiguous)
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def _tau_plus(tau_plus) -> float:
    return real_scalar("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True)


def _log_mean_exp(x: torch.Tensor) -> torch.Tensor:
    return torch.logsumexp(x, dim=-1) - math.log(x.shape[-1])


def _log_pos_mean(pos, pos_extra_logits):
    """log of the mean positive score p-bar: the anchor's own positive, or K extra positives."""
    if pos_extra_logits is None:
        return pos
    if (
        not isinstance(pos_extra_logits, torch.Tensor)
        or pos_extra_logits.ndim < 1
        or pos_extra_logits.shape[-1] == 0
    ):
        raise ValueError("pos_extra_logits must be a tensor of shape [..., K] with K >= 1")
    if pos_extra_logits.shape[:-1] != pos.shape:
        raise ValueError(
            f"pos_extra_logits must have leading shape {tuple(pos.shape)}, got {tuple(pos_extra_logits.shape)}"
        )
    return _log_mean_exp(_work(pos_extra_logits.to(pos.dtype)))


def _log_sub(
    log_a: torch.Tensor, log_b: torch.Tensor, log_floor: torch.Tensor | float
) -> torch.Tensor:
    """max(log(A - B), log_floor) without leaving log space.

    log(A - B) = log A + log(-expm1(log B - log A)) for B < A. Where B >= A the difference is
    <= 0 and the floor is returned; the ratio is replaced by a dummy there first, so that the
    unused branch of ``torch.where`` has a finite gradient (a NaN would poison the backward pass).
    """
    d = log_b - log_a
    d_safe = torch.where(d < 0, d, torch.full_like(d, -1.0))
    val = log_a + torch.log(-torch.expm1(d_safe))  # exact for every d < 0
    val = torch.where(d < 0, val, torch.full_like(val, -math.inf))
    return torch.maximum(val, torch.as_tensor(log_floor, dtype=val.dtype, device=val.device))


def _logn(n, like: torch.Tensor):
    """log n for a count given as an int or as a tensor of per-row counts."""
    if isinstance(n, int):
        return math.log(n)
    return torch.log(n.to(like.dtype))


def _check_floor(floor):
    return None if floor is None else real_scalar("floor", floor, 0.0, lo_open=True)


def _log_floor(floor, dtype, n):
    """log(N * floor); floor=None -> the dtype's smallest positive normal number (validated floor)."""
    if floor is None:
        return math.log(torch.finfo(dtype).tiny)
    if isinstance(n, int):
        return math.log(n) + math.log(floor)
    return torch.log(n.to(dtype)) + math.log(floor)


def _softmax_family_loss(pos, log_n_theta):
    # -log(e^s / (e^s + N theta)) = log(1 + e^{log N theta - s}): softplus, no cancellation when
    # the positive dominates (logaddexp(s, c) - s loses every digit there in float32)
    return F.softplus(log_n_theta - pos)


# --------------------------------------------------------------------------------------------
# softmax family: InfoNCE, DCL, HCL, BCL
# --------------------------------------------------------------------------------------------
@_doc
def infonce(pos_logits: Tensor, neg_logits: Tensor, reduction: str = "mean") -> Tensor:
    r"""InfoNCE loss, the biased estimator (Wu et al. (Rethinking InfoNCE) eq. 1; Liu Bin's thesis eq. 6.46).

    Eq. 1 of Wu et al. (Rethinking InfoNCE), with the relevance f(x, c) as the logit s:

    .. math:: \ell = -\log\frac{e^{s^+}}{e^{s^+} + \sum_{i=1}^N e^{s_i}}
              = \mathrm{logsumexp}(s^+, s_1, \dots, s_N) - s^+,

    i.e. the sum in the denominator is N theta-hat with theta-hat the biased estimator of the
    thesis's eq. 6.46, :func:`~negtheory.estimators.theta_biased` of exp(s).

    Parameters
    ----------
    pos_logits : Tensor, shape [...]
        Logit of each anchor's positive, s+ = sim(anchor, positive) / temperature; any
        floating dtype (half precision is computed in float32).
    neg_logits : Tensor, shape [..., N]
        Logits s_1, ..., s_N of each anchor's N >= 1 negative (unlabeled) samples; the leading
        shape must equal that of ``pos_logits``. A -inf entry is a masked-out negative.
    %(reduction)s

    Returns
    -------
    Tensor
        The loss: a scalar for "mean" / "sum", shape [...] for "none"; in the promoted dtype of
        the inputs. NaN for an anchor whose logits hold a NaN or +inf.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.functional import infonce
    >>> round(float(infonce(torch.tensor([0.0]), torch.tensor([[0.0, 0.0, 0.0]]))), 6)   # log 4
    1.386294
    """
    _check_reduction(reduction)
    pos, neg, dt = _prepare(pos_logits, neg_logits)
    return _finish(_nonfinite_to_nan(_infonce_core(pos, neg), pos, neg), dt, reduction)


def _infonce_core(pos, neg):
    """InfoNCE on logits; ``neg`` may hold -inf entries (masked out)."""
    return _softmax_family_loss(pos, _lse(neg))


@_doc
def dcl(
    pos_logits: Tensor,
    neg_logits: Tensor,
    tau_plus: float,
    pos_extra_logits: Tensor | None = None,
    floor: float | None = None,
    reduction: str = "mean",
) -> Tensor:
    r"""Debiased contrastive loss (Chuang et al. 2020; Liu Bin's thesis eq. 6.47).

    The InfoNCE form :math:`\ell = -\log\big(e^{s^+} / (e^{s^+} + N\hat\theta_{DCL})\big)` with
    the debiased estimator of the true-negative mean of the thesis's eq. 6.47, clamped below:

    .. math::
        N\hat\theta_{DCL} = \max\Big(\frac{1}{\tau^-}\Big(\sum_{i=1}^N e^{s_i} - N\tau^+ \bar p\Big),\; N\,\mathrm{floor}\Big),
        \qquad \bar p = \frac1K\sum_{j=1}^K e^{s^+_j}, \qquad \tau^- = 1 - \tau^+,

    the matching numpy estimator being :func:`~negtheory.estimators.theta_dcl`.

    Parameters
    ----------
    pos_logits : Tensor, shape [...]
        Logit s+ of each anchor's positive (similarity / temperature).
    neg_logits : Tensor, shape [..., N]
        Logits s_i of each anchor's N >= 1 unlabeled samples (leading shape that of
        ``pos_logits``).
    tau_plus : float in (0, 1)
        Class prior tau+ (probability that an unlabeled sample shares the anchor's class).
    pos_extra_logits : Tensor, shape [..., K], optional
        Logits of K >= 1 extra positives for p-bar (the thesis's numerical study). Default
        (None): the anchor's own positive, as in the released DCL/HCL code.
    floor : float > 0, optional
        Lower clamp of theta-hat (score units); the released code's ``math.exp(-1 / t)``.
        Default (None): clamp only at the dtype's smallest positive number (see the module notes).
    %(reduction_returns)s

    Examples
    --------
    >>> import math, torch
    >>> from negtheory.bridge.functional import dcl, infonce
    >>> pos, neg = torch.tensor([2.0]), torch.tensor([[0.0, 1.0, -1.0, 0.5]])
    >>> bool(dcl(pos, neg, tau_plus=0.1) < infonce(pos, neg))   # the positive's share is removed
    True
    """
    _check_reduction(reduction)
    tp = _tau_plus(tau_plus)
    floor = _check_floor(floor)
    pos, neg, dt = _prepare(pos_logits, neg_logits)
    log_pbar = _log_pos_mean(pos, pos_extra_logits)
    loss = _dcl_core(pos, neg, neg.shape[-1], tp, log_pbar, floor)
    return _finish(_nonfinite_to_nan(loss, pos, neg, pos_extra_logits), dt, reduction)


def _dcl_core(pos, neg, n, tp, log_pbar, floor):
    """DCL on logits; ``neg`` may hold -inf entries, ``n`` valid ones (int or per-row tensor)."""
    log_a = _lse(neg)  # log sum_i x_i
    log_b = math.log(tp) + _logn(n, neg) + log_pbar  # log N tau+ p-bar
    log_n_theta = _log_sub(
        log_a, log_b, _log_floor(floor, neg.dtype, n) + math.log(1.0 - tp)
    ) - math.log(1.0 - tp)
    return _softmax_family_loss(pos, log_n_theta)


@_doc
def hcl(
    pos_logits: Tensor,
    neg_logits: Tensor,
    tau_plus: float,
    beta: float,
    pos_extra_logits: Tensor | None = None,
    floor: float | None = None,
    reduction: str = "mean",
) -> Tensor:
    r"""Hard-negative contrastive loss (Robinson et al. 2021) with the DCL correction.

    Importance weights w_i proportional to x-hat_i^beta = e^{beta s_i}, normalised by their
    mean, replace the plain mean of eq. 6.47 (Liu Bin's thesis) inside the InfoNCE form:

    .. math:: N\hat\theta_{HCL} = \frac{N}{\tau^-}\Big(\frac{\sum_i e^{(\beta+1)s_i}}{\sum_i e^{\beta s_i}} - \tau^+\bar p\Big),

    clamped below at N floor — :func:`~negtheory.estimators.theta_hcl` (the thesis's §6.6.1
    notes it overestimates the true-negative mean by design; the estimator has no equation
    number there). The ratio is a difference of two logsumexps.

    Parameters
    ----------
    pos_logits, neg_logits, tau_plus, pos_extra_logits, floor, reduction
        As in :func:`dcl` (shapes [...], [..., N], [..., K]).
    beta : float >= 0
        Concentration of the weights on hard (high-score) negatives; beta = 0 gives :func:`dcl`.

    %(loss_returns)s

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.functional import dcl, hcl
    >>> pos, neg = torch.tensor([2.0]), torch.tensor([[0.0, 1.0, -1.0, 0.5]])
    >>> bool(torch.isclose(hcl(pos, neg, 0.1, beta=0.0), dcl(pos, neg, 0.1)))
    True
    """
    _check_reduction(reduction)
    tp = _tau_plus(tau_plus)
    beta = real_scalar("beta", beta, 0.0)
    floor = _check_floor(floor)
    pos, neg, dt = _prepare(pos_logits, neg_logits)
    log_pbar = _log_pos_mean(pos, pos_extra_logits)
    loss = _hcl_core(pos, neg, neg.shape[-1], tp, beta, log_pbar, floor)
    return _finish(_nonfinite_to_nan(loss, pos, neg, pos_extra_logits), dt, reduction)


def _hcl_core(pos, neg, n, tp, beta, log_pbar, floor):
    """HCL on logits; ``neg`` may hold -inf entries, ``n`` valid ones (int or per-row tensor)."""
    if beta == 0.0:  # sum_i e^{0 s_i} = n (0 * -inf would be NaN on masked entries)
        log_rw = torch.logsumexp(neg, dim=-1) - _logn(n, neg)
    else:
        if torch.compiler.is_compiling():  # the compiler fuses the plain form itself
            log_rw = torch.logsumexp((beta + 1.0) * neg, dim=-1) - torch.logsumexp(
                beta * neg, dim=-1
            )
        else:
            log_rw = _LogPowerRatio.apply(neg, beta)
    log_b = math.log(tp) + log_pbar
    if floor is None:
        floor_log = math.log(torch.finfo(neg.dtype).tiny) - _logn(n, neg) + math.log(1.0 - tp)
    else:
        floor_log = math.log(floor) + math.log(1.0 - tp)
    log_theta_tm = _log_sub(log_rw, log_b, floor_log)  # log(tau^- * theta)
    log_n_theta = _logn(n, neg) + log_theta_tm - math.log(1.0 - tp)
    return _softmax_family_loss(pos, log_n_theta)


def _run_end_counts(srt: torch.Tensor) -> torch.Tensor:
    """eCDF count at each position of rows sorted ascending: ties share the end of their run.

    In sorted order a run of equal values ends where the next value differs; every member of the
    run gets (index of the run's end) + 1, by a reversed running minimum -- O(N) after the sort.
    """
    n = srt.shape[-1]
    pos = torch.arange(1, n + 1, device=srt.device).expand(srt.shape)
    is_end = torch.cat(
        [srt[..., 1:] != srt[..., :-1], torch.ones_like(srt[..., :1], dtype=torch.bool)], dim=-1
    )
    ends = torch.where(is_end, pos, torch.full_like(pos, n))
    return torch.flip(torch.cummin(torch.flip(ends, dims=[-1]), dim=-1).values, dims=[-1])


# The CPU sorts keep their key and permutation arrays in per-thread buffers kept between calls:
# at B = 1024 they take 32 MB (keys and permutation sharing one buffer) + 4 MB (collision flags),
# above glibc's largest mmap threshold, so fresh arrays would be mapped and page-faulted in
# (~2 us per 4 KiB page, 15 ms a step) at every call. Buffers above _WORKSPACE_MAX elements are
# not kept.
_WORKSPACE = threading.local()
_WORKSPACE_MAX = 1 << 25  # elements (256 MiB of int64)


def _workspace(name: str, need: int, dtype) -> np.ndarray:
    """A flat array of ``need`` elements of ``dtype`` from this thread's kept buffer ``name``."""
    buf = getattr(_WORKSPACE, name, None)
    if buf is None or buf.size < need:
        buf = np.empty(need, dtype=dtype)
        if need <= _WORKSPACE_MAX:
            setattr(_WORKSPACE, name, buf)
    return buf[:need]


def _workspace_nbytes() -> int:
    """Bytes this thread's sort buffers hold (the benchmark counts them as the loss's memory)."""
    return sum(
        getattr(_WORKSPACE, k).nbytes
        for k in ("perm64", "key32", "flags", "keys")
        if hasattr(_WORKSPACE, k)
    )


# Bits of the column index in the 32-bit keys: rows up to 2^12 scores keep >= 19 bits of value
_Q32_MAX_COLUMN_BITS = 12
# More colliding pairs than (rows * n) / _Q32_MAX_COLLISIONS: the packed 64-bit sort is cheaper
_Q32_MAX_COLLISIONS = 8
# From this many scores the 32-bit keys share the permutation's buffer (4 bytes per score less)
_Q32_SHARED_MIN = 1 << 20


def _sort_ranks_q32(s: torch.Tensor, skip: int):
    """CPU float32 rows, n <= 2^12: argsort by numpy's 32-bit sort of quantised value/column keys.

    Each row is mapped to q = floor((x - lo) * sc) with lo, hi the row's finite extremes and
    sc = (2^v - 8) / (hi - lo) (v = min(31 - c, 23) value bits, c column bits; masked -inf and
    NaN entries to q = -8), and the key q * 2^c + column is sorted. q is non-decreasing in x
    (every step rounds monotonically), so keys of different q are in value order, and exact
    ties share q. Only scores closer than a quantum (~(hi - lo) 2^-v) can share q with
    different values: the few sorted pairs with equal q are found (xor of neighbours < 2^c),
    and each run of them is re-sorted by (value, column) -- the permutation of a stable sort
    by value, exactly. The 32-bit sort takes half the time of the 64-bit one, and no pass
    writes 8-byte strided words. Returns None (caller falls back to _sort_ranks_packed64) when
    collisions are many (constant rows, a far outlier).
    """
    rows, n = s.shape
    cb = max(1, (n - 1).bit_length())
    mask = (1 << cb) - 1
    size = rows * n
    # the permutation's int64 buffer holds the float scratch (then the neighbours' xor) in its
    # first half; large inputs keep their keys in its second half (the permutation is then
    # written over them in chunks), small ones in a buffer of their own (one call fewer per chunk)
    pbuf = _workspace("perm64", size, np.int64)
    perm = pbuf.reshape(rows, n)
    scratch = torch.from_numpy(pbuf.view(np.float32)[:size].reshape(rows, n))
    shared = size >= _Q32_SHARED_MIN
    key_np = (
        pbuf.view(np.int32)[size:] if shared else _workspace("key32", size, np.int32)
    ).reshape(rows, n)
    key = torch.from_numpy(key_np)
    hi = s.amax(dim=1, keepdim=True).numpy()
    lo = torch.nan_to_num(s, neginf=math.inf, out=scratch).amin(dim=1, keepdim=True).numpy()
    qtop = float(2 ** min(31 - cb, 23) - 8)  # q * 2^c < 2^31 and exact in float32
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        span = hi.astype(np.float64) - lo
        # sc = 0 (every finite score to q = 0, a run the repair sorts): a constant or non-finite
        # row, or a span too small for sc to be a float32 (< 1e-32)
        sc = np.where(np.isfinite(span) & (span > qtop / 1e38), qtop / span, 0.0).astype(np.float32)
    torch.sub(s, torch.from_numpy(lo), out=scratch).mul_(torch.from_numpy(sc))
    scratch.nan_to_num_(nan=-8.0, posinf=qtop, neginf=-8.0)  # masked (-inf) and NaN first
    key.copy_(scratch)
    torch.add(torch.arange(n, dtype=torch.int32), key, alpha=1 << cb, out=key)
    key_np.sort(axis=1)
    f = np.empty(0, dtype=np.int64)
    if n - skip >= 2:
        w = n - skip - 1
        # neighbours' xor (torch: vectorised) into the dead scratch, compared as unsigned
        # (numpy): equal q <=> xor < 2^c
        nb = pbuf.view(np.int32)[: rows * w].reshape(rows, w)
        torch.bitwise_xor(key[:, skip + 1 :], key[:, skip:-1], out=torch.from_numpy(nb))
        flags = _workspace("flags", rows * w, np.bool_).reshape(rows, w)
        np.less_equal(nb.view(np.uint32), np.uint32(mask), out=flags)
        f = np.flatnonzero(flags)
        if f.size > size // _Q32_MAX_COLLISIONS:
            return None
    if shared:
        _low_bits_in_place(key_np, perm, mask)
    else:
        np.bitwise_and(key_np, mask, out=perm, casting="unsafe")
    if f.size == 0:
        return torch.from_numpy(perm), None, None
    return _q32_fix_collisions(s.numpy(), perm, f, skip)


def _low_bits_in_place(key: np.ndarray, out: np.ndarray, mask: int) -> None:
    """``out = key & mask`` (int32 -> int64) where ``key`` is the second half of ``out``'s own buffer.

    Rows are written in chunks [a, b) with b <= (rows + a) / 2, so a chunk's int64 output ends
    where the keys not yet read begin: about log2(rows) calls, no copy (the last row overlaps
    itself, and numpy buffers that one).
    """
    rows = key.shape[0]
    a = 0
    while a < rows:
        b = max(a + 1, (rows + a) // 2)
        np.bitwise_and(key[a:b], mask, out=out[a:b], casting="unsafe")
        a = b


def _q32_fix_collisions(x: np.ndarray, perm: np.ndarray, f: np.ndarray, skip: int):
    """Re-sort the runs of equal-q keys of _sort_ranks_q32 by (value, column); eCDF counts of ties.

    ``f``: flat indices into [rows, n - skip - 1] of sorted neighbour pairs (p, p + 1), p >= skip,
    with equal q. Works on the O(#pairs) affected entries only.
    """
    rows, n = perm.shape
    w = n - skip - 1
    row = f // w
    p = f - row * w + skip  # each pair's left sorted position in its row
    left = row * n + p  # flat, ascending
    brk = np.flatnonzero(np.diff(left) != 1)  # consecutive pairs chain into one run
    if brk.size == left.size - 1:
        return _q32_fix_pairs(x, perm, row, p, left)
    last = np.append(brk, left.size - 1)  # each run's last pair
    run = np.zeros(left.size, dtype=np.int64)
    run[brk + 1] = 1
    run = np.cumsum(run)
    # a run's entries: its pairs' left positions and one past its last pair (ascending)
    at = last + 1
    row = np.insert(row, at, row[last])
    p = np.insert(p, at, p[last] + 1)
    run = np.insert(run, at, run[last])
    flat = row * n + p
    pf = perm.reshape(-1)
    cols = pf[flat]
    v = x.reshape(-1)[row * n + cols] + np.float32(0.0)  # + 0.0: -0.0 ties with +0.0
    b = v.view(np.int32)
    image = (b ^ ((b >> 31) & np.int32(0x7FFFFFFF))).astype(np.int64) + (
        1 << 31
    )  # order-preserving
    key = (run << 32) | image
    idx = np.argsort(key, kind="stable")  # by run, then value; columns stay ascending in ties
    pf[flat] = cols[idx]
    key = key[idx]
    tie = key[1:] == key[:-1]
    if not tie.any():
        return torch.from_numpy(perm), None, None
    # ties share the count one past their group's last sorted position (the eCDF convention)
    start = np.concatenate([[True], ~tie])
    group = np.cumsum(start) - 1
    ends = np.flatnonzero(np.concatenate([start[1:], [True]]))
    return _with_tied_counts(perm, np.unique(row[:-1][tie]), row, p, (p[ends] + 1)[group])


def _with_tied_counts(perm, tied, row, p, count):
    """``(order, counts, rows)`` of _sort_ranks: rows ``tied`` count k + 1 at sorted position k
    except the listed entries (``row``, position ``p``) of the repaired runs, which take ``count``
    (entries of rows without ties are skipped)."""
    cnt = np.tile(np.arange(1, perm.shape[1] + 1, dtype=np.int64), (tied.size, 1))
    at = np.searchsorted(tied, row)
    hit = tied[np.minimum(at, tied.size - 1)] == row
    cnt[at[hit], p[hit]] = count[hit]
    return torch.from_numpy(perm), torch.from_numpy(cnt), torch.from_numpy(tied)


def _q32_fix_pairs(x, perm, row, p, left):
    """_q32_fix_collisions when every run is a single pair (the usual case): swap by value."""
    n = perm.shape[1]
    pf = perm.reshape(-1)
    c0, c1 = pf[left], pf[left + 1]  # c0 < c1: equal q sorts by column
    xf = x.reshape(-1)
    v0, v1 = xf[row * n + c0], xf[row * n + c1]
    swap = v1 < v0
    pf[left[swap]], pf[left[swap] + 1] = c1[swap], c0[swap]
    tie = v0 == v1  # -0.0 == +0.0; NaN never ties
    if not tie.any():
        return torch.from_numpy(perm), None, None
    # the first member takes the second's count, one past the second's position
    return _with_tied_counts(perm, np.unique(row[tie]), row[tie], p[tie], p[tie] + 2)


def _sort_ranks_packed64(s: torch.Tensor, skip: int):
    """CPU float32 rows: argsort by one integer sort of packed 64-bit keys (see _sort_ranks).

    The returned permutation is a view of the per-thread key buffer: valid until the next call
    on the same thread (callers scatter with it at once).
    """
    rows, n = s.shape
    key = _workspace("keys", rows * n, np.int64).reshape(rows, n)
    kv = key.view(np.int32).reshape(rows, n, 2)
    hi_idx, lo_idx = (1, 0) if sys.byteorder == "little" else (0, 1)
    bits = kv[..., hi_idx]  # high word: the value's image; low word: the column (a tie-breaker)
    # + 0.0 maps -0.0 to +0.0 (they compare equal); written straight into the high words
    np.add(s.numpy(), np.float32(0.0), out=bits.view(np.float32))
    col = kv[..., lo_idx]  # scratch for the sign mask (no temporary), then the column index
    np.right_shift(bits, 31, out=col)
    np.bitwise_and(col, np.int32(0x7FFFFFFF), out=col)
    np.bitwise_xor(
        bits, col, out=bits
    )  # order-preserving image: negatives flip their magnitude bits
    col[...] = np.arange(n, dtype=np.int32)
    key.sort(axis=-1)
    hi = kv[..., hi_idx]
    tied = (
        np.flatnonzero((hi[:, skip + 1 :] == hi[:, skip:-1]).any(axis=1))
        if n - skip > 1
        else np.empty(0, np.int64)
    )
    h = hi[tied]  # (a copy) rows with ties: a few at float32 resolution
    key &= np.int64(
        0xFFFFFFFF
    )  # in place: the key array becomes the permutation (int64, torch's index type)
    order = torch.from_numpy(key)
    if tied.size == 0:
        return order, None, None
    # every member of a run of equal values gets the index one past the run's end (reversed
    # running minimum)
    ends = np.where(
        np.concatenate([h[:, 1:] != h[:, :-1], np.ones((tied.size, 1), dtype=bool)], axis=1),
        np.arange(1, n + 1),
        n,
    )
    cnt = np.ascontiguousarray(np.minimum.accumulate(ends[:, ::-1], axis=1)[:, ::-1])
    return order, torch.from_numpy(cnt), torch.from_numpy(tied)


def _sort_ranks(s: torch.Tensor, skip: int = 0):
    """Sorting permutation of each row of ``s`` (2-D) and the eCDF count at each sorted position.

    Returns ``(order, counts, rows)``. ``counts`` None: no ties need resolving, the count at
    sorted position k is k + 1 (except for the first ``skip`` positions: known masked -inf
    entries, which tie among themselves; callers give them zero weight). ``rows`` None:
    ``counts`` covers every row; else ``counts`` holds only the listed rows (those with ties),
    the others following k + 1. On the CPU in eager mode, float32 rows are argsorted by numpy's
    vectorised integer sort: rows of up to 2^12 scores as 32-bit quantised value/column keys
    with an exact repair of the rare equal-quantum neighbours (_sort_ranks_q32), longer rows
    (or rows with many collisions) as packed 64-bit keys (an order-preserving integer image of
    the float in the high word, the column index in the low word). Either gives the permutation
    of a stable ``torch.sort``, several times faster than ``torch.sort`` on the CPU. Elsewhere
    (CUDA, float64, under ``torch.compile``) ``torch.sort`` runs on the input's device.
    """
    s = s.detach()
    n = s.shape[-1]
    if (
        s.device.type == "cpu"
        and s.dtype == torch.float32
        and n < 2**31
        and not torch.compiler.is_compiling()
    ):
        s = s.contiguous()
        if 0 < s.numel() and n <= 1 << _Q32_MAX_COLUMN_BITS:
            out = _sort_ranks_q32(s, skip)
            if out is not None:
                return out
        return _sort_ranks_packed64(s, skip)
    srt, order = torch.sort(s, dim=-1, stable=True)
    return order, _run_end_counts(srt), None


def _full_counts(order, cnt, rows):
    """eCDF counts at every sorted position of every row (see _sort_ranks)."""
    full = torch.arange(1, order.shape[-1] + 1, device=order.device).expand(order.shape)
    if cnt is None:
        return full
    if rows is None:
        return cnt
    full = full.clone()
    full[rows] = cnt
    return full


def _flat2(t: torch.Tensor) -> torch.Tensor:
    return t.reshape(-1, t.shape[-1])


def ecdf_counts(neg_logits: Tensor) -> Tensor:
    r"""#{j : s_j <= s_i} for every score of each anchor (thesis eq. 6.30's numerator).

    One sort per row, then one O(N) pass over the sorted row (the end of every run of ties, by a
    reversed running minimum) and a scatter back: O(N log N) time, O(N) extra memory per anchor,
    all in torch on the input's device (on the CPU, float32 rows are sorted by numpy as packed
    integer keys, see the module notes). Tied scores share the largest rank -- the convention
    of :func:`negtheory.estimators.ecdf`.

    Parameters
    ----------
    neg_logits : Tensor, shape [..., N]
        Scores of each anchor's N unlabeled samples (last axis); no NaN. -inf entries are
        counted like any other value.

    Returns
    -------
    LongTensor, shape of ``neg_logits``
        The count in 1..N of each score; divided by N it is the eCDF of eq. 6.30.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.functional import ecdf_counts
    >>> ecdf_counts(torch.tensor([3.0, 1.0, 2.0, 2.0])).tolist()
    [4, 1, 3, 3]
    """
    s = _work(_tensor("neg_logits", neg_logits))
    if s.numel() == 0:
        return torch.zeros(s.shape, dtype=torch.int64, device=s.device)
    if bool(torch.isnan(s).any()):  # integer counts cannot carry a NaN
        raise ValueError("neg_logits must not contain NaN")
    flat = _flat2(s)
    order, cnt, rows = _sort_ranks(flat)
    return (
        torch.empty_like(order).scatter_(-1, order, _full_counts(order, cnt, rows)).reshape(s.shape)
    )


def _omega(u: torch.Tensor, alpha: float, beta: float, tau_plus: float) -> torch.Tensor:
    """omega at unlabeled-CDF values u (eq. 6.25 with the stable root of eq. 6.29), >= 0.

    The torch twin of :func:`negtheory.estimators._omega_of_ecdf` (validated parameters).
    """
    tau_minus = 1.0 - tau_plus
    qa = (1.0 - 2.0 * alpha) * (tau_minus - tau_plus)
    qb = 2.0 * (alpha * tau_minus + (1.0 - alpha) * tau_plus)
    phi = torch.clamp(2.0 * u / (qb + torch.sqrt(qb * qb + 4.0 * qa * u)), 0.0, 1.0)
    z = (1.0 - beta) * alpha + beta * (1.0 - alpha)
    # sums of non-negative terms, as estimators._omega_of_ecdf (no cancellation at alpha = 1)
    num = (1.0 - beta) * alpha * (1.0 - phi) + beta * (1.0 - alpha) * phi
    den = alpha * (tau_minus * (1.0 - phi) + tau_plus * phi) + (1.0 - alpha) * (
        tau_plus * (1.0 - phi) + tau_minus * phi
    )
    return num / (z * den)


def _omega_table(n: int, m: int, alpha, beta, tau_plus, dtype, device) -> torch.Tensor:
    """omega at the eCDF values k / n, k = 1..n, after m zeros (the masked entries sort first)."""
    table = _omega(torch.arange(1, n + 1, device=device, dtype=dtype) / n, alpha, beta, tau_plus)
    if m:
        table = torch.cat([torch.zeros(m, device=device, dtype=dtype), table])
    return table


# read-only tables (callers expand, index and scatter from them, never write)
_omega_table_cached = functools.lru_cache(maxsize=16)(_omega_table)


def _bcl_rank_plan(neg: torch.Tensor, n: int, alpha, beta, tau_plus):
    """``(order, src, tied, tied_src)``: omega of ``neg`` (2-D, N - n masked -inf entries per row)
    is ``src`` scattered by ``order`` along the last axis, except on the rows ``tied`` (None:
    none), whose omega is ``tied_src`` scattered by ``order[tied]``.

    omega depends on a score only through its eCDF value k / n: with a common n the weights are
    tabulated once for k = 1..n and placed by rank (no elementwise formula over [R, N]); only
    the few rows with tied scores need their own [N] row of weights. ``order`` may be a view of
    the CPU sort's buffer: use it before the next sort on this thread.
    """
    rows, width = neg.shape
    order, cnt, tied = _sort_ranks(neg, skip=width - n)
    if torch.compiler.is_compiling():
        table = _omega_table(n, width - n, alpha, beta, tau_plus, neg.dtype, neg.device)
    else:  # a training loop asks for the same table at every step
        table = _omega_table_cached(n, width - n, alpha, beta, tau_plus, neg.dtype, neg.device)
    if cnt is None:
        return order, table.expand(rows, width), None, None
    if tied is None:  # counts for every row (torch.sort path)
        return order, table[cnt - 1], None, None
    return order, table.expand(rows, width), tied, table[cnt - 1]


def _bcl_weights_masked(neg: torch.Tensor, n, alpha, beta, tau_plus) -> torch.Tensor:
    """omega of every entry of ``neg`` (2-D); entries equal to -inf are masked out (omega = 0).

    ``n``: the number of valid (finite) entries per row, an int (the same for every row: the
    first N - n sorted entries are the masked ones, see _bcl_rank_plan) or a tensor [R]
    (labelled call).
    """
    if isinstance(n, int):
        order, src, tied, tied_src = _bcl_rank_plan(neg, n, alpha, beta, tau_plus)
        w = torch.empty_like(neg).scatter_(-1, order, src)
        if tied is not None:
            w[tied] = torch.empty_like(tied_src).scatter_(-1, order[tied], tied_src)
        return w
    rows, width = neg.shape
    order, cnt, tied = _sort_ranks(neg)
    cnt = _full_counts(order, cnt, tied)
    nn_ = n.to(neg.dtype)[:, None]
    k = cnt.to(neg.dtype) - (width - nn_)
    vals = torch.where(k > 0, _omega(torch.clamp(k, min=1.0) / nn_, alpha, beta, tau_plus), 0.0)
    return torch.empty_like(neg).scatter_(-1, order, vals)


def _lse(x: torch.Tensor) -> torch.Tensor:
    """logsumexp along the last axis: fused autograd function in eager mode, torch's under compile."""
    if torch.compiler.is_compiling() or not x.requires_grad:
        return torch.logsumexp(x, dim=-1)
    return _WeightedLogSumExp.apply(x, None)


def _row_max(x: torch.Tensor) -> torch.Tensor:
    """Finite row maximum (0 where a row has no finite entry), a shift for exp."""
    m = x.amax(dim=-1, keepdim=True)
    return torch.where(torch.isfinite(m), m, torch.zeros_like(m))


class _WeightedLogSumExp(torch.autograd.Function):
    """log sum_i w_i e^{x_i} along the last axis, w >= 0 without gradient (BCL's omega; None: 1).

    Fused: one [.., N] temporary in the forward, one in the backward (d/dx_i = w_i e^{x_i} / S),
    where ``logsumexp(x + log w)`` allocates several (page faults dominate on the CPU).
    """

    @staticmethod
    def forward(ctx, x, w):
        m = _row_max(x)
        e = (x - m).exp_()
        if w is not None:
            e.mul_(w)
        return _log_of_sum(ctx, e, m)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        return _log_of_sum_grad(ctx, g), None


def _log_of_sum(ctx, e, m):
    """Forward tail of the weighted logsumexps: log(sum e) + m, saving e and the sums."""
    s = e.sum(dim=-1)
    ctx.save_for_backward(e, s)
    return torch.log(s) + m.squeeze(-1)


def _log_of_sum_grad(ctx, g):
    """d/dx_i = e_i / S (e holds the weights already). A row of zero weights (BCL with beta = 0
    and every score tied at the top) is the constant log 0: zero gradient, not 0 / 0."""
    e, s = ctx.saved_tensors
    return e * (g / torch.where(s > 0, s, 1.0)).unsqueeze(-1)


class _RankWeightedLogSumExp(torch.autograd.Function):
    """log sum_i omega_i e^{x_i} along the last axis with omega given by rank (the plan of
    _bcl_rank_plan: weights scattered by the sort permutation); no gradient to omega.

    The weights are multiplied into e^{x - m} in place by ``scatter_reduce_(..., "prod")``, so
    no [.., N] weight tensor is materialised (one temporary fewer than _WeightedLogSumExp).
    """

    @staticmethod
    def forward(ctx, x, order, src, tied, tied_src):
        m = _row_max(x)
        e = (x - m).exp_()
        e.scatter_reduce_(-1, order, src, reduce="prod")
        if tied is not None:  # the rows with ties take their own weights
            et = (x[tied] - m[tied]).exp_()
            e[tied] = et.scatter_reduce_(-1, order[tied], tied_src, reduce="prod")
        return _log_of_sum(ctx, e, m)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        return _log_of_sum_grad(ctx, g), None, None, None, None


class _LogPowerRatio(torch.autograd.Function):
    """log(sum_i e^{(beta+1) x_i} / sum_i e^{beta x_i}) along the last axis (HCL), beta > 0.

    Fused: with w = e^{beta(x-m)} and e = w e^{x-m}, d/dx_i = (beta+1) e_i / S_e - beta w_i / S_w.
    beta = 1 (HCL's usual setting) keeps a single [.., N] temporary: e = w^2, so S_e is the
    squared row norm of w (one reduction, no temporary; w <= 1, so nothing overflows) and the gradient is
    w_i (2 w_i / S_e - 1 / S_w); other beta keep w and e.
    """

    @staticmethod
    def forward(ctx, x, beta):
        m = _row_max(x)
        t = x - m
        ctx.beta = beta
        if beta == 1.0:  # e = w^2: one exp, one temporary
            w = t.exp_()
            sw = w.sum(dim=-1)
            se = torch.linalg.vector_norm(w, dim=-1).square()  # one fused pass, no temporary
            ctx.save_for_backward(w, se, sw)
        else:
            w = (t * beta).exp_()
            e = t.exp_().mul_(w)
            se, sw = e.sum(dim=-1), w.sum(dim=-1)
            ctx.save_for_backward(w, se, sw, e)
        return torch.log(se) - torch.log(sw) + m.squeeze(-1)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        if ctx.beta == 1.0:
            w, se, sw = ctx.saved_tensors
            out = torch.addcmul((-g / sw).unsqueeze(-1), w, (2.0 * g / se).unsqueeze(-1))
            return out.mul_(w), None
        w, se, sw, e = ctx.saved_tensors
        out = e * ((ctx.beta + 1.0) * g / se).unsqueeze(-1)
        out.addcmul_(w, (-ctx.beta * g / sw).unsqueeze(-1))
        return out, None


def bcl_log_weights(neg_logits: Tensor, alpha: float, beta: float, tau_plus: float) -> Tensor:
    r"""Log of BCL's importance weights omega (Liu Bin's thesis eq. 6.24-6.26, 6.29-6.30).

    Eq. 6.25 with the normaliser Z of eq. 6.26, and Phi recovered from the eCDF through eq. 6.29:

    .. math::
        \omega = \frac{1}{Z}\,\frac{(1-\beta)\alpha + (\beta-\alpha)\Phi}
                 {\alpha\tau^- + (1-\alpha)\tau^+ + (1-2\alpha)\Phi(\tau^- - \tau^+)},
        \qquad Z = (1-\beta)\alpha + \beta(1-\alpha),

    .. math::
        \Phi = \frac{-b + \sqrt{b^2 + 4a\hat F}}{2a} = \frac{2\hat F}{b + \sqrt{b^2 + 4a\hat F}},
        \qquad a = (1-2\alpha)(\tau^- - \tau^+), \quad b = 2[\alpha\tau^- + (1-\alpha)\tau^+],

    with F-hat the eCDF (eq. 6.30, :func:`ecdf_counts` / N) and the right-hand, stable form of
    the root of eq. 6.29 (finite at a = 0).
    omega depends on the scores only through their ranks, so it carries no gradient (the ranks
    are piecewise constant); it is tabulated for the N possible eCDF values and placed by rank,
    in torch on the input's device. Matches :func:`negtheory.estimators.bcl_weights`.

    Parameters
    ----------
    neg_logits : Tensor, shape [..., N]
        Logits of each anchor's N >= 1 unlabeled samples (last axis); only their ranks matter.
    alpha : float in [1/2, 1]
        Encoder quality P(x_TN < x_FN) (eq. 6.21): 1/2 a guessing encoder, 1 a perfect one.
    beta : float in [0, 1]
        Hardness level of eq. 6.22 (share of hard true negatives in the target population);
        1/2 gives omega = P(TN | x) / tau^- (Theorem 6.1). alpha = beta = 1 is rejected (Z = 0).
    tau_plus : float in (0, 1)
        Class prior tau+ (tau^- = 1 - tau+).

    Returns
    -------
    Tensor, shape of ``neg_logits``
        log omega (``-inf`` where omega = 0, e.g. the top score when beta = 0 and alpha = 1);
        NaN in every row that holds a NaN or +inf.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.functional import bcl_log_weights
    >>> w = bcl_log_weights(torch.tensor([0.1, 0.5, 0.2, 0.9]), 0.9, 0.5, 0.1).exp()
    >>> bool(w[0] > w[3])
    True
    """
    alpha, beta, tau_plus, _ = _check_abt(alpha, beta, tau_plus)
    s = _work(_tensor("neg_logits", neg_logits))
    if s.ndim < 1 or s.shape[-1] == 0:
        raise ValueError(f"neg_logits must have shape [..., N] with N >= 1, got {tuple(s.shape)}")
    flat = _flat2(s)
    out = torch.log(_bcl_weights_masked(flat, flat.shape[-1], alpha, beta, tau_plus))
    # NaN/+inf in a row: the row's ranks mean nothing
    return (out + (flat.detach().amax(dim=-1).clamp(min=0.0) * 0.0)[:, None]).reshape(s.shape)


def _bcl_core(pos, neg, n, alpha, beta, tau_plus, normalize_weights):
    """BCL on (possibly -inf-masked) 2-D logits; validated parameters."""
    if isinstance(n, int) and not normalize_weights and not torch.compiler.is_compiling():
        plan = _bcl_rank_plan(neg.detach(), n, alpha, beta, tau_plus)
        return _softmax_family_loss(pos, _RankWeightedLogSumExp.apply(neg, *plan))
    w = _bcl_weights_masked(neg, n, alpha, beta, tau_plus)
    if normalize_weights:
        # all weights vanish only when every score ties at the top of the eCDF (beta = 0): the
        # self-normalised mean of equal scores is their common value (as theta_bcl)
        empty = w.sum(dim=-1, keepdim=True) == 0
        w = torch.where(empty & (neg > -math.inf), torch.ones_like(w), w)
    if torch.compiler.is_compiling():  # the compiler fuses the plain form itself
        log_n_theta = torch.logsumexp(neg + torch.log(w), dim=-1)
    else:
        log_n_theta = _WeightedLogSumExp.apply(neg, w)
    if normalize_weights:
        log_n_theta = log_n_theta + _logn(n, log_n_theta) - torch.log(w.sum(dim=-1))
    return _softmax_family_loss(pos, log_n_theta)


@_doc
def bcl(
    pos_logits: Tensor,
    neg_logits: Tensor,
    alpha: float,
    beta: float,
    tau_plus: float,
    normalize: bool = False,
    reduction: str = "mean",
    *,
    normalize_weights: bool | None = None,
) -> Tensor:
    r"""Bayesian contrastive loss (Liu Bin's thesis ch. 6, eq. 6.31 with the estimator of eq. 6.48).

    The loss of eq. 6.31 on logits,

    .. math:: \ell = -\log\frac{e^{s^+}}{e^{s^+} + \sum_{i=1}^N \omega_i e^{s_i}},

    i.e. the InfoNCE form with N theta-hat_BCL (eq. 6.48) in the denominator,

    .. math:: N\hat\theta_{BCL} = \sum_i \omega_i e^{s_i}
              \quad\text{or, self-normalised,}\quad N\,\frac{\sum_i\omega_i e^{s_i}}{\sum_i \omega_i},

    omega from :func:`bcl_log_weights` — :func:`~negtheory.estimators.theta_bcl`. Both are a
    logsumexp of s_i + log omega_i. Everything runs in torch on the input's device (no numba).

    Parameters
    ----------
    pos_logits : Tensor, shape [...]
        Logit s+ of each anchor's positive (similarity / temperature).
    neg_logits : Tensor, shape [..., N]
        Logits s_i of each anchor's N >= 1 unlabeled samples (leading shape that of
        ``pos_logits``).
    alpha : float in [1/2, 1]
        Encoder quality P(x_TN < x_FN) (eq. 6.21).
    beta : float in [0, 1]
        Hardness level (eq. 6.22); 1/2 gives omega = P(TN | x) / tau^- (Theorem 6.1).
    tau_plus : float in (0, 1)
        Class prior tau+.
    normalize : bool, default False
        Kept for compatibility: the same as ``normalize_weights`` (the modules' ``normalize``
        is the L2 normalisation of embeddings; prefer ``normalize_weights`` here).
    %(reduction)s
    normalize_weights : bool, optional
        Self-normalised estimator of the released numerical code. Overrides ``normalize``
        when given (None: use ``normalize``).

    %(loss_returns)s

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.functional import bcl, infonce
    >>> pos, neg = torch.tensor([2.0]), torch.tensor([[0.0, 1.0, -1.0, 0.5]])
    >>> bool(bcl(pos, neg, alpha=0.5, beta=0.5, tau_plus=0.1) == infonce(pos, neg))   # alpha = 1/2: omega = 1
    True
    """
    _check_reduction(reduction)
    alpha, beta, tau_plus, _ = _check_abt(alpha, beta, tau_plus)
    nw = (
        flag("normalize", normalize)
        if normalize_weights is None
        else flag("normalize_weights", normalize_weights)
    )
    pos, neg, dt = _prepare(pos_logits, neg_logits)
    loss = _bcl_core(
        pos.reshape(-1), _flat2(neg), neg.shape[-1], alpha, beta, tau_plus, nw
    ).reshape(pos.shape)
    return _finish(_nonfinite_to_nan(loss, pos, neg), dt, reduction)


# --------------------------------------------------------------------------------------------
# pairwise / pointwise losses
# --------------------------------------------------------------------------------------------
@_doc
def bpr(
    pos_logits: Tensor, neg_logits: Tensor, weight: Tensor | None = None, reduction: str = "mean"
) -> Tensor:
    r"""Bayesian personalised ranking loss (Rendle et al. 2009; Liu Bin's thesis eq. 4.1, 3.29).

    The negative of the thesis's log-likelihood eq. 4.1 (per triple), averaged over the
    anchor's N negatives:

    .. math:: \ell = \frac1N\sum_{i=1}^N -\log\sigma(s^+ - s_i) = \frac1N\sum_i \mathrm{softplus}(s_i - s^+)

    (N = 1 is the classic BPR triple and equals :func:`infonce` with one negative). ``weight``
    multiplies each anchor's loss: the credence c-hat_ui of BPRAC's M-step (eq. 3.29-3.32).

    Parameters
    ----------
    pos_logits : Tensor, shape [...]
        Score s+ = x_ui of each (user, positive item) pair.
    neg_logits : Tensor, shape [..., N]
        Scores s_i = x_uj of its N >= 1 sampled negatives.
    weight : Tensor, shape [...], optional
        Non-negative per-anchor weight (None: 1).
    %(reduction_returns)s

    Examples
    --------
    >>> import math, torch
    >>> from negtheory.bridge.functional import bpr
    >>> round(float(bpr(torch.tensor([1.0]), torch.tensor([[1.0]]))), 6) == round(math.log(2), 6)
    True
    """
    _check_reduction(reduction)
    pos, neg, dt = _prepare(pos_logits, neg_logits)
    loss = _bpr_core(pos, neg, neg.shape[-1])
    if weight is not None:
        loss = loss * _work(_tensor("weight", weight).to(dt))
    return _finish(_nonfinite_to_nan(loss, pos, neg), dt, reduction)


def _bpr_core(pos, neg, n):
    """BPR on logits; -inf entries of ``neg`` contribute softplus(-inf) = 0 (masked)."""
    if isinstance(n, int) and n == neg.shape[-1]:
        return F.softplus(neg - pos[..., None]).mean(dim=-1)
    return F.softplus(neg - pos[..., None]).sum(dim=-1) / n


@_doc
def ccl(
    pos_scores: Tensor,
    neg_scores: Tensor,
    margin: float = 0.9,
    negative_weight: float | None = 150.0,
    positive_hinge: bool = False,
    reduction: str = "mean",
) -> Tensor:
    r"""Cosine contrastive loss, CCL (Mao et al., SimpleX, CIKM 2021): the MF-CCL reference of the Gowalla ladder.

    On cosine scores :math:`\hat y \in [-1, 1]` (not logits: no temperature), per anchor

    .. math:: \ell = (1 - \hat y_{ui}) + \frac{w}{N} \sum_{j=1}^{N} \max(0, \hat y_{uj} - m),

    a margin m below which a negative costs nothing, and a weight w on the negatives' mean
    (``negative_weight=None``: their sum, w/N = 1). Not a loss of the thesis: the package carries it
    so that the published MF-CCL number can be set beside the thesis's losses on one pipeline.

    ``positive_hinge=True`` takes :math:`\max(0, 1 - \hat y_{ui})` for the positive term, as MF-CCL's
    released code does (``relu(1 - pos_logits)``). On a cosine the two agree; they differ only where a
    score exceeds 1, which the released model's dropout of the user vector (inverted, scaled by
    1 / (1 - p)) allows: there the hinge stops pulling the positive, the paper's formula does not.

    Parameters
    ----------
    pos_scores : Tensor, shape [...]
        Cosine of each (user, positive item) pair.
    neg_scores : Tensor, shape [..., N]
        Cosines of its N >= 1 sampled negatives.
    margin : float in [-1, 1], default 0.9
        m (SimpleX's released configuration).
    negative_weight : float > 0 or None, default 150
        w (SimpleX's released configuration); None sums the negatives' terms.
    positive_hinge : bool, default False
        The positive term as :math:`\max(0, 1 - \hat y_{ui})` (the released code) instead of
        :math:`1 - \hat y_{ui}` (the paper's eq.).
    %(reduction_returns)s

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.functional import ccl
    >>> # (1 - 0.5) + 2 * mean(max(0, [0.95, 0.1] - 0.9)) = 0.5 + 2 * 0.025
    >>> round(float(ccl(torch.tensor([0.5]), torch.tensor([[0.95, 0.1]]), 0.9, 2.0)), 6)
    0.55
    """
    _check_reduction(reduction)
    m = real_scalar("margin", margin, -1.0, 1.0)
    w = (
        None
        if negative_weight is None
        else real_scalar("negative_weight", negative_weight, 0.0, lo_open=True)
    )
    pos, neg, dt = _prepare(pos_scores, neg_scores, name_neg="neg_scores")
    hinge = torch.relu(neg - m)
    neg_term = hinge.sum(dim=-1) if w is None else hinge.mean(dim=-1) * w
    pos_term = torch.relu(1.0 - pos) if positive_hinge else 1.0 - pos
    return _finish(_nonfinite_to_nan(pos_term + neg_term, pos, neg), dt, reduction)


@_doc
def dpl(
    pos_logits: Tensor,
    neg_logits: Tensor,
    tau_plus: float,
    pos_extra_logits: Tensor | None = None,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    r"""Debiased pairwise loss (Liu Bin's thesis ch. 5, eq. 5.17-5.18).

    The per-anchor term of eq. 5.18 with the estimate of eq. 5.17 (h = sigma of the score
    difference), clamped at eps:

    .. math::
        \ell = -\log\max(\hat P_{PN}, \epsilon), \qquad
        \hat P_{PN} = \frac{1}{\tau^-}\Big(\frac1N\sum_{n=1}^N \sigma(s^+ - s_n) - \frac{\tau^+}{M}\sum_{m=1}^M \sigma(s^+ - s'_m)\Big),

    :func:`~negtheory.estimators.dpl_loss`. The two averages of sigmoids lie in (0, 1), so they
    are formed directly (one elementwise pass, no overflow possible) and P-hat is clamped at eps
    before the log.

    Parameters
    ----------
    pos_logits : Tensor, shape [...]
        Score s+ of each anchor's positive.
    neg_logits : Tensor, shape [..., N]
        Scores s_n of the anchor's N >= 1 unlabeled samples.
    tau_plus : float in (0, 1)
        Class prior tau+ (tau^- = 1 - tau+).
    pos_extra_logits : Tensor, shape [..., M], optional
        Scores s'_m of M >= 1 extra positives of the anchor (e.g. the user's other observed
        items). Default (None): the anchor's own positive, for which sigma(0) = 1/2.
    eps : float in (0, 1), default 1e-6
        Clamp of P-hat (it can be <= 0 for finite N, M).
    %(reduction_returns)s

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.functional import dpl
    >>> round(float(dpl(torch.tensor([0.0]), torch.tensor([[0.0, 1.0]]), 0.1, torch.tensor([[0.0]]))), 4)
    0.9898
    >>> # P-hat is unbiased, not bounded: an easy anchor can get P-hat > 1 and a loss < 0
    >>> round(float(dpl(torch.tensor([5.0]), torch.tensor([[-5.0, -5.0]]), 0.1, torch.tensor([[5.0]]))), 4)
    -0.054
    """
    _check_reduction(reduction)
    tp = _tau_plus(tau_plus)
    eps = real_scalar("eps", eps, 0.0, 1.0, lo_open=True)
    pos, neg, dt = _prepare(pos_logits, neg_logits)
    extra = (
        None
        if pos_extra_logits is None
        else _work(_tensor("pos_extra_logits", pos_extra_logits).to(pos.dtype))
    )
    if extra is not None and (extra.shape[:-1] != pos.shape or extra.shape[-1] == 0):
        raise ValueError(
            f"pos_extra_logits must have shape [{', '.join(map(str, pos.shape))}, M], got {tuple(extra.shape)}"
        )
    loss = _dpl_core(pos, neg, neg.shape[-1], tp, extra, eps, masked=False)
    return _finish(_nonfinite_to_nan(loss, pos, neg, extra), dt, reduction)


def _dpl_core(pos, neg, n, tp, extra, eps, masked):
    """DPL on logits (validated parameters); with ``masked`` the -inf entries of ``neg`` are left out.

    sigma lies in (0, 1), so the two averages are formed directly (no overflow is possible); the
    clamp at eps bounds the loss where the difference cancels.
    """
    sig = torch.sigmoid(pos[..., None] - neg)
    if masked:
        sig = torch.where(torch.isneginf(neg), torch.zeros_like(sig), sig)
    a = sig.sum(dim=-1) / n
    b = (
        0.5 if extra is None else torch.sigmoid(pos[..., None] - extra).mean(dim=-1)
    )  # sigma(0) = 1/2
    p_hat = (a - tp * b) / (1.0 - tp)
    return -torch.log(torch.clamp(p_hat, min=eps))


@_doc
def bce(
    pos_logits: Tensor, neg_logits: Tensor, k: float | None = None, reduction: str = "mean"
) -> Tensor:
    r"""Binary cross-entropy / negative-sampling (NCE-style) loss (the negative-sampling textbook chapter).

    The negative of the chapter's NCE objective J(theta) (an unnumbered display), with the
    logits as the log-density ratios g and its expectation over the noise replaced by the mean
    over the N sampled negatives:

    .. math:: \ell = -\log\sigma(s^+) - k\,\frac1N\sum_{i=1}^N \log(1 - \sigma(s_i)),

    the negative of :func:`negtheory.mechanics.nce_sample_objective` for one anchor; ``k``
    defaults to N (word2vec's sum over the negatives).

    Parameters
    ----------
    pos_logits : Tensor, shape [...]
        Logit s+ of each anchor's positive.
    neg_logits : Tensor, shape [..., N]
        Logits s_i of its N >= 1 noise (negative) samples.
    k : float > 0, optional
        Noise ratio k of the objective. Default (None): N.
    %(reduction_returns)s

    Examples
    --------
    >>> import math, torch
    >>> from negtheory.bridge.functional import bce
    >>> round(float(bce(torch.tensor([0.0]), torch.tensor([[0.0, 0.0]]))), 6) == round(3 * math.log(2), 6)
    True
    """
    _check_reduction(reduction)
    pos, neg, dt = _prepare(pos_logits, neg_logits)
    kk = None if k is None else real_scalar("k", k, 0.0, lo_open=True)
    return _finish(
        _nonfinite_to_nan(_bce_core(pos, neg, neg.shape[-1], kk), pos, neg), dt, reduction
    )


def _bce_core(pos, neg, n, k):
    """BCE on logits; -inf entries of ``neg`` contribute softplus(-inf) = 0 (masked); k None -> n."""
    s = F.softplus(neg).sum(dim=-1)
    return F.softplus(-pos) + (s if k is None else (k / n) * s)


@_doc
def relaxed_softmax(
    pos_logits: Tensor, neg_logits: Tensor, include_positive: bool = False, reduction: str = "mean"
) -> Tensor:
    r"""Relaxed-Softmax loss (Tanielian & Vasile (Relaxed Softmax), eq. 5).

    Eq. 5, :math:`L_{(i,j)} = -G(i, j) + \ln\sum_{j' \in V_{(i,j)}} e^{G(i, j')}`, on logits:

    .. math:: \ell = -s^+ + \log\sum_{j \in V} e^{s_j},

    with V the sampled negatives (a multiset; draw them from the Boltzmann law of eq. 8 with
    :func:`negtheory.bridge.samplers.boltzmann_sample`). As printed the loss is unbounded below;
    ``include_positive=True`` adds the positive to V (then it equals :func:`infonce`).
    Matches :func:`negtheory.relaxed_softmax.relaxed_softmax_loss`.

    Parameters
    ----------
    pos_logits : Tensor, shape [...]
        Score s+ = G(i, j) of each observed (context, target) pair.
    neg_logits : Tensor, shape [..., N]
        Scores s_j of the N >= 1 sampled negatives V of the pair.
    include_positive : bool, default False
        Add the positive to V (the bounded form, equal to :func:`infonce`).
    reduction : {"mean", "sum", "none"}, default "mean"
        Mean or sum over the pairs, or "none" for the per-pair losses.

    %(loss_returns)s

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.functional import relaxed_softmax
    >>> round(float(relaxed_softmax(torch.tensor([2.0]), torch.tensor([[0.0, -1.0]]))), 6)
    -1.686738
    """
    _check_reduction(reduction)
    pos, neg, dt = _prepare(pos_logits, neg_logits)
    return _finish(
        _nonfinite_to_nan(
            _relaxed_core(pos, neg, flag("include_positive", include_positive)), pos, neg
        ),
        dt,
        reduction,
    )


def _relaxed_core(pos, neg, include_positive):
    """Relaxed Softmax on logits; -inf entries of ``neg`` are masked out."""
    if include_positive:
        return _softmax_family_loss(pos, _lse(neg))
    return torch.logsumexp(neg, dim=-1) - pos
