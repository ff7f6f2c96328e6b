r"""Scores of B users against K gathered items each, fused on the CPU: no [B, K, d] tensor, forward or backward.

MF's step scores every row b of a mini-batch against its own K items :math:`i_{b1}, \dots, i_{bK}`
(the positive, M extra positives and N negatives drawn per row):

.. math:: s_{bk} = \langle w_b, h_{i_{bk}} \rangle \quad\text{or, for the cosine,}\quad
          s_{bk} = \Big\langle \hat w_b, \frac{h_{i_{bk}}}{\lVert h_{i_{bk}} \rVert} \Big\rangle .

Done with torch ops this gathers a [B, K, d] tensor of item rows, multiplies it by the user rows in a
batched matrix-vector product, and in the backward pass builds the [B, K, d] gradient of the gathered rows
and scatters it into the item table (``embedding_dense_backward``). With MF-CCL's setting on Gowalla
(B = 256, K = 801, d = 64) that is 13 million floats moved three times per step, and on one CPU core the
step took 226 ms, two thirds of it in those three ops (``torch.profiler``; with these kernels, torch's fused
Adam and the sampler's per-row search it takes 44 ms: ``benchmarks/bench_gathered_scores.py``).

Here one loop computes each score as a dot product of rows read in place, and the backward pass adds
:math:`g_{bk}` times the user row straight into the row of item :math:`i_{bk}`. For the cosine it uses
the gradient of the normalisation in closed form: with :math:`r_i = 1 / \max(\lVert h_i \rVert,
\epsilon)` (``torch.nn.functional.normalize``'s clamp, :math:`\epsilon = 10^{-12}`) and
:math:`s_{bk} = r_i \langle \hat w_b, h_i \rangle`,

.. math:: \frac{\partial s_{bk}}{\partial h_i} = r_i\,\hat w_b - r_i^2\, s_{bk}\, h_i ,

so the gradient of row i is :math:`r_i A_i - r_i^2 c_i h_i` with :math:`A_i = \sum_{(b,k): i_{bk} = i}
g_{bk} \hat w_b` and :math:`c_i = \sum g_{bk} s_{bk}` (the second term is absent where the clamp binds,
as in torch). Only the user side (B rows) stays in torch's autograd. Dot products are accumulated in float64 and
the item-row gradients in the table's dtype (as torch's embedding backward), so the results equal torch's to
float32 rounding, not bit for bit.

**Threads.** A large step (``B * K * d`` at least :data:`PARALLEL_MIN_WORK`) runs the kernels compiled with
``parallel=True`` when the process may use several cores: torch's and numba's thread counts both above one (they are
read, never set; ``OMP_NUM_THREADS=1`` keeps every step serial). The forward pass splits the rows b; the backward pass
first sums the user rows (split by b), then the item rows, each thread owning a range of items and adding its terms
in (b, k) order. Every entry is therefore summed in one fixed order, and the serial and parallel kernels return the
same bits for any thread count (``tests/test_gathered_scores.py``). What it buys depends on where the item table
lives (2-core machine, 2 threads): on MF-CCL's Gowalla-sized step the kernels alone, called back to back with the table
in cache, go from 22 to 6-14 ms (scores) and from 60 to 19-22 ms (backward), but a whole training step (sampling,
scores, loss, backward, Adam's update of the whole table) measured between 0.83x and 1.11x of the serial step
across runs (``benchmarks/bench_gathered_scores.py`` and
``benchmarks/results/2026-11-28_gathered_scores_parallel.txt``); whole epochs of the real Gowalla run, interleaved in
one process on an idle machine, ran 1.10x faster in the median of 4 rounds (0.96x-1.21x;
``benchmarks/ab_gathered_scores_gowalla.py``, ``benchmarks/results/2026-11-28_gathered_scores_gowalla_ab.txt``); on a
small catalogue (4 000 items) an epoch of the
Gowalla InfoNCE rung runs 1.4-1.5x faster. ``OMP_NUM_THREADS=1`` (or ``NUMBA_NUM_THREADS=1``) selects the serial
kernels, with the same results.

:func:`gathered_scores` is used by :class:`negtheory.bridge.recommend.MF` for CPU tensors; other devices keep
the torch ops (a GPU does them at memory speed).
"""

from __future__ import annotations

import numba
import numpy as np
import torch

__all__ = ["gathered_scores"]

_EPS = 1e-12  # torch.nn.functional.normalize's default clamp of the norm


@numba.njit(cache=True, fastmath=True)
def _inv_norms(h):
    """1 / max(||h_i||, eps) per row, in float64."""
    n, d = h.shape
    r = np.empty(n)
    for i in range(n):
        acc = 0.0
        for j in range(d):
            acc += float(h[i, j]) * float(h[i, j])
        r[i] = 1.0 / max(np.sqrt(acc), _EPS)
    return r


def _forward_body(w, h, items, r):
    """s[b, k] = <w_b, h_{items[b, k]}> * r[items[b, k]] (r = ones for the inner product)."""
    b_n, k_n = items.shape
    d = w.shape[1]
    out = np.empty((b_n, k_n), dtype=w.dtype)
    for b in numba.prange(b_n):  # rows are independent: any split gives the same numbers
        for k in range(k_n):
            i = items[b, k]
            acc = 0.0
            for j in range(d):
                acc += float(w[b, j]) * float(h[i, j])
            out[b, k] = acc * r[i]
    return out


def _backward_body(g, s, w, h, items, r, cosine, n_items, n_parts):
    """The gradients of sum(g * s) with respect to the user rows w [B, d] and the item table h [n, d].

    Two passes, each over the (b, k) pairs in their order: the user rows (row b sums its k terms in order; the rows
    are split between threads), then the item rows (part t owns the items [t n / P, (t + 1) n / P) and adds the
    terms of its items in (b, k) order). Every entry of the result is thus summed in one fixed order whatever the
    number of parts or threads, so the serial and the parallel compilation give the same bits.
    """
    b_n, k_n = items.shape
    d = w.shape[1]
    gw = np.zeros((b_n, d))
    for b in numba.prange(b_n):
        for k in range(k_n):
            i = items[b, k]
            gb = float(g[b, k])
            if gb == 0.0:
                continue
            gr = gb * r[i]
            for j in range(d):
                gw[b, j] += gr * float(h[i, j])
    # A_i, then the gradient of row i, in h's dtype: each row gets a few terms per step (torch's
    # embedding backward sums them in that dtype too), and half the memory traffic of float64
    gh = np.zeros(h.shape, dtype=h.dtype)
    c = np.zeros(n_items)
    width = (n_items + n_parts - 1) // n_parts
    for t in numba.prange(n_parts):
        lo = t * width
        hi = min(n_items, lo + width)
        for b in range(b_n):
            for k in range(k_n):
                i = items[b, k]
                if i < lo or i >= hi:
                    continue
                gb = float(g[b, k])
                if gb == 0.0:
                    continue
                for j in range(d):
                    gh[i, j] += gb * float(w[b, j])
                if cosine:
                    c[i] += gb * float(s[b, k])
        if cosine:
            for i in range(lo, hi):
                ri = r[i]
                # the second term only where the norm is above the clamp (below it r is a constant)
                ci = c[i] * ri * ri if ri < 1.0 / _EPS else 0.0
                for j in range(d):
                    gh[i, j] = gh[i, j] * ri - ci * float(h[i, j])
    return gw.astype(w.dtype), gh


# One source, two compilations: serial (prange runs as range) for small steps and single-threaded runs, parallel for
# a large step when the process may use several cores. They return the same bits (each entry summed in one order).
_forward = numba.njit(cache=True, fastmath=True)(_forward_body)
_forward_parallel = numba.njit(cache=True, fastmath=True, parallel=True)(_forward_body)
_backward = numba.njit(cache=True, fastmath=True)(_backward_body)
_backward_parallel = numba.njit(cache=True, fastmath=True, parallel=True)(_backward_body)

#: B * K * d from which a step takes the parallel kernels (MF-CCL's Gowalla step is 13 million; a small step
#: would spend more on waking threads than on the work)
PARALLEL_MIN_WORK = 1_000_000


def _threads(work: int) -> int:
    """Threads for a step of ``work`` multiply-adds: 1 (serial kernels) for a small step, or when torch or numba is
    limited to one thread (``OMP_NUM_THREADS=1``, ``NUMBA_NUM_THREADS=1``: the process was given one core); numba's
    thread count otherwise. Read, never set."""
    if work < PARALLEL_MIN_WORK:
        return 1
    return min(torch.get_num_threads(), numba.get_num_threads())


class _GatheredScores(torch.autograd.Function):
    @staticmethod
    def forward(ctx, w, h, items, cosine):
        wn, hn, it = w.detach().numpy(), h.detach().numpy(), items.numpy()
        r = _inv_norms(hn) if cosine else np.ones(hn.shape[0])
        threads = _threads(it.size * wn.shape[1])
        out = torch.from_numpy((_forward_parallel if threads > 1 else _forward)(wn, hn, it, r))
        # the scores are saved as a tensor, so autograd refuses a backward pass after an in-place change to them
        ctx.save_for_backward(w, h, items, out)
        ctx.extra = (r, cosine, threads)
        return out

    @staticmethod
    def backward(ctx, grad):
        w, h, items, out = ctx.saved_tensors
        r, cosine, threads = ctx.extra
        g = np.ascontiguousarray(grad.detach().numpy())
        s = out.detach().numpy()
        kernel = _backward_parallel if threads > 1 else _backward
        gw, gh = kernel(
            g,
            s,
            w.detach().numpy(),
            h.detach().numpy(),
            items.numpy(),
            r,
            cosine,
            h.shape[0],
            threads,
        )
        return torch.from_numpy(gw), torch.from_numpy(gh), None, None


def gathered_scores(
    w: torch.Tensor, h: torch.Tensor, items: torch.Tensor, cosine: bool = False
) -> torch.Tensor:
    r"""The scores :math:`s_{bk} = \langle w_b, h_{i_{bk}} \rangle` (or with :math:`h` rows normalised), fused.

    Parameters
    ----------
    w : Tensor, shape [B, d]
        The rows' user embeddings (already normalised for the cosine: that part stays in torch's autograd).
    h : Tensor, shape [n_items, d]
        The item table (raw: for ``cosine`` its rows are normalised inside, see the module notes).
    items : LongTensor, shape [B, K]
        The items of each row, in ``[0, n_items)``.
    cosine : bool
        Normalise the item rows.

    Returns
    -------
    Tensor, shape [B, K]
        The scores, differentiable with respect to ``w`` and ``h``; the same as
        ``torch.bmm(h[items], w[:, :, None])[..., 0]`` to float32 rounding.

    Raises
    ------
    ValueError
        Tensors not on the CPU, not float32/float64 of one dtype, or of mismatched shapes.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.gathered_scores import gathered_scores
    >>> w, h = torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0, 4.0], [0.0, 1.0]])
    >>> gathered_scores(w, h, torch.tensor([[0, 1]])).tolist()
    [[11.0, 2.0]]
    >>> [round(v, 6) for v in gathered_scores(w, h, torch.tensor([[0, 1]]), cosine=True)[0].tolist()]
    [2.2, 2.0]
    """
    for name, t in (("w", w), ("h", h), ("items", items)):
        if t.device.type != "cpu":
            raise ValueError(
                f"{name} must be a CPU tensor (other devices use torch's ops), got {t.device}"
            )
    if w.ndim != 2 or h.ndim != 2 or w.shape[1] != h.shape[1]:
        raise ValueError(
            f"w and h must be [B, d] and [n_items, d], got {tuple(w.shape)} and {tuple(h.shape)}"
        )
    if w.dtype != h.dtype or w.dtype not in (torch.float32, torch.float64):
        raise ValueError(
            f"w and h must share a float32 or float64 dtype, got {w.dtype} and {h.dtype}"
        )
    if items.ndim != 2 or items.shape[0] != w.shape[0] or items.dtype != torch.int64:
        raise ValueError(
            f"items must be an int64 [B, K] tensor with B = {w.shape[0]}, got {items.dtype} {tuple(items.shape)}"
        )
    if items.numel() and (int(items.min()) < 0 or int(items.max()) >= h.shape[0]):
        raise ValueError(f"items must lie in [0, n_items = {h.shape[0]})")
    return _GatheredScores.apply(w.contiguous(), h.contiguous(), items.contiguous(), bool(cosine))
