r"""Rows of LightGCN's last propagation layer for the nodes a mini-batch scores, forward and backward.

A LightGCN step scores its B users against their items, so it reads the final embeddings

.. math:: e = \frac{1}{K + 1} \sum_{k=0}^{K} e^{(k)}, \qquad e^{(k+1)} = \tilde A\, e^{(k)}

(He et al., LightGCN, eq. 7-8) of those nodes only. Propagating the whole graph at every step, as the
LightGCN release does, costs all :math:`2|R|` entries of :math:`\tilde A` forward and again backward. The
last layer's rows of a node set :math:`S` need only the entries of those rows,

.. math:: e^{(K)}_v = \sum_{w \in N(v)} \tilde A_{vw}\, e^{(K-1)}_w \quad (v \in S), \qquad
          \frac{\partial L}{\partial e^{(K-1)}_w} = \sum_{v \in S,\; w \in N(v)} \tilde A_{vw}\,
          \frac{\partial L}{\partial e^{(K)}_v},

which is what :func:`adjacency_rows` computes: a gather over the CSR rows of :math:`S` forward, the
matching scatter backward, both :math:`O(\mathrm{nnz}(S)\, d)`. With the thesis's one layer
(:math:`e^{(0)}` are the parameters) a step then never touches the rest of the graph. On Gowalla's
pooled split at batch 128 with 11 items per row, :math:`S` holds about 1 500 of the 70 839 nodes and
42 000 of the 1.64 M entries, and a whole training step (scores, loss, backward, Adam's update of every
parameter) runs 5-8x faster on one core: 40 ms against 8 on an idle core (a first version that added the self
term in torch), 95 against 14 in the median of 4 interleaved rounds on cores shared with two training runs
(``benchmarks/bench_lightgcn.py --batch-propagation``,
``benchmarks/results/2026-11-29_lightgcn_batch_propagation_gowalla.txt``). It gains nothing on a synthetic
split of MovieLens-100K's size, where a step touches 40 % of the entries (0.95x). With K >= 2 layers, layers
1 .. K-1 are still propagated over the whole graph and only the last is restricted.

The forward pass sums each row's entries in CSR order in float32, as torch's sparse CSR product does,
so the rows equal the whole-graph propagation's rows (bit for bit where torch's kernel sums in the same
order; to float32 rounding in general). The backward pass adds the terms in a different order from
torch's product with the whole matrix, so gradients agree to float32 rounding
(``tests/test_graph_rows.py``). CPU tensors use the numba kernels below (serial: a step's rows are far
too few to be worth threads); other devices the same sums with torch's ``index_add_``.
"""

from __future__ import annotations

import numba
import numpy as np
import torch

__all__ = ["adjacency_rows", "csr_parts"]


@numba.njit(cache=True)
def _rows_forward(
    indptr, indices, values, nodes, xu, xi, n_users, add_self, divisor, out
):  # pragma: no cover - numba
    d = out.shape[1]
    for r in range(nodes.shape[0]):
        v = nodes[r]
        for p in range(
            indptr[v], indptr[v + 1]
        ):  # CSR order, from 0, in float32: torch's CSR product's sum
            c = indices[p]
            w = values[p]
            if c < n_users:
                for j in range(d):
                    out[r, j] += w * xu[c, j]
            else:
                c -= n_users
                for j in range(d):
                    out[r, j] += w * xi[c, j]
        if add_self:  # LightGCN's (e0 + A e0) / 2: the same float32 operations, in the same order
            if v < n_users:
                for j in range(d):
                    out[r, j] = (xu[v, j] + out[r, j]) / divisor
            else:
                for j in range(d):
                    out[r, j] = (xi[v - n_users, j] + out[r, j]) / divisor
        elif divisor != 1.0:
            for j in range(d):
                out[r, j] = out[r, j] / divisor


@numba.njit(cache=True)
def _rows_backward(
    indptr, indices, values, nodes, g, n_users, add_self, divisor, gu, gi
):  # pragma: no cover - numba
    d = g.shape[1]
    h = np.empty(d, dtype=g.dtype)
    for r in range(nodes.shape[0]):
        v = nodes[r]
        for j in range(d):
            h[j] = g[r, j] / divisor
        if add_self:
            if v < n_users:
                for j in range(d):
                    gu[v, j] += h[j]
            else:
                for j in range(d):
                    gi[v - n_users, j] += h[j]
        for p in range(indptr[v], indptr[v + 1]):
            c = indices[p]
            w = values[p]
            if c < n_users:
                for j in range(d):
                    gu[c, j] += w * h[j]
            else:
                c -= n_users
                for j in range(d):
                    gi[c, j] += w * h[j]


def _use_kernels(t: torch.Tensor) -> bool:
    """Whether ``t``'s rows go through the numba kernels (CPU tensors) rather than torch's ops (other devices)."""
    return t.device.type == "cpu"


def _torch_segments(indptr: torch.Tensor, indices: torch.Tensor, nodes: torch.Tensor):
    """The (row position, column, entry position) of every entry of the CSR rows ``nodes``, on their device."""
    starts = indptr[nodes]
    counts = indptr[nodes + 1] - starts
    seg = torch.repeat_interleave(torch.arange(len(nodes), device=nodes.device), counts)
    first = torch.cumsum(counts, 0) - counts
    pos = torch.arange(int(counts.sum()), device=nodes.device) + torch.repeat_interleave(
        starts - first, counts
    )
    return seg, indices[pos], pos


class _AdjacencyRows(torch.autograd.Function):
    @staticmethod
    def forward(ctx, xu, xi, adj, nodes, n_users, add_self, divisor):
        ctx.adj, ctx.n_users, ctx.add_self, ctx.divisor = adj, n_users, add_self, divisor
        ctx.save_for_backward(nodes)
        indptr, indices, values = adj
        out = torch.zeros(len(nodes), xu.shape[1], dtype=xu.dtype, device=xu.device)
        if _use_kernels(xu):
            _rows_forward(
                indptr.numpy(),
                indices.numpy(),
                values.numpy(),
                nodes.numpy(),
                xu.detach().contiguous().numpy(),
                xi.detach().contiguous().numpy(),
                n_users,
                add_self,
                divisor,
                out.numpy(),
            )
            return out
        seg, col, pos = _torch_segments(indptr, indices, nodes)
        x = torch.cat([xu, xi])
        out.index_add_(0, seg, x.index_select(0, col) * values[pos, None])
        if add_self:
            out = x.index_select(0, nodes) + out
        return out / divisor if divisor != 1.0 else out

    @staticmethod
    def backward(ctx, g):
        (nodes,) = ctx.saved_tensors
        indptr, indices, values = ctx.adj
        n_users, add_self, divisor = ctx.n_users, ctx.add_self, ctx.divisor
        n_items = len(indptr) - 1 - n_users
        if _use_kernels(g):
            gu = torch.zeros(n_users, g.shape[1], dtype=g.dtype, device=g.device)
            gi = torch.zeros(n_items, g.shape[1], dtype=g.dtype, device=g.device)
            _rows_backward(
                indptr.numpy(),
                indices.numpy(),
                values.numpy(),
                nodes.numpy(),
                g.contiguous().numpy(),
                n_users,
                add_self,
                divisor,
                gu.numpy(),
                gi.numpy(),
            )
            return gu, gi, None, None, None, None, None
        h = g / divisor if divisor != 1.0 else g
        seg, col, pos = _torch_segments(indptr, indices, nodes)
        gx = torch.zeros(n_users + n_items, g.shape[1], dtype=g.dtype, device=g.device)
        if add_self:
            gx.index_add_(0, nodes, h)
        gx.index_add_(0, col, h.index_select(0, seg) * values[pos, None])
        return gx[:n_users], gx[n_users:], None, None, None, None, None


def adjacency_rows(
    xu: torch.Tensor,
    xi: torch.Tensor,
    adj: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    nodes: torch.Tensor,
    *,
    add_self: bool = False,
    divisor: float = 1.0,
) -> torch.Tensor:
    r"""Rows ``nodes`` of :math:`(\tilde A\,x)/c` or :math:`(x + \tilde A\,x)/c`, :math:`x = [x_u; x_i]`, with gradient.

    ``add_self=True, divisor=2`` is one-layer LightGCN's :math:`e = (e^{(0)} + \tilde A e^{(0)}) / 2` for
    these rows, in one pass (the self term's gradient goes into the same arrays as the neighbours').

    Parameters
    ----------
    xu : Tensor, shape [n_users, d]
        The users' rows of the layer propagated (users are nodes 0 .. n_users - 1).
    xi : Tensor, shape [n_items, d]
        The items' rows (nodes n_users .. n_users + n_items - 1).
    adj : tuple of Tensor
        ``(indptr, indices, values)`` of the symmetric [n, n] CSR matrix (int64, int64, ``xu``'s dtype),
        on ``xu``'s device; an entry (v, w) with v a user must have w an item and vice versa.
    nodes : LongTensor, shape [S]
        The rows wanted (any order, repeats allowed).
    add_self : bool, default False
        Add the node's own row: :math:`x_v + \sum_w \tilde A_{vw} x_w`.
    divisor : float > 0, default 1
        The rows are divided by it (LightGCN's K + 1).

    Returns
    -------
    Tensor, shape [S, d]
        :math:`([x_v] + \sum_w \tilde A_{vw} x_w) / c` for each v of ``nodes``; the gradient flows to ``xu``
        and ``xi`` through the same entries only (see the module notes).

    Raises
    ------
    ValueError
        If the shapes, dtypes or devices disagree, or a node is out of range.

    Examples
    --------
    >>> import numpy as np, torch
    >>> from negtheory.bridge.recommend import LightGCN
    >>> from negtheory.bridge.graph_rows import adjacency_rows, csr_parts
    >>> m = LightGCN(2, 2, np.array([[0, 0], [0, 1], [1, 1]]))  # its adjacency, users 0-1 then items 2-3
    >>> xu, xi = torch.ones(2, 3), torch.arange(6.0).reshape(2, 3)
    >>> # user 0: xi[0] / sqrt(2 * 1) + xi[1] / sqrt(2 * 2); item 1: xu[0] / sqrt(2 * 2) + xu[1] / sqrt(1 * 2)
    >>> adjacency_rows(xu, xi, csr_parts(m.adj), torch.tensor([0, 3]))
    tensor([[1.5000, 2.7071, 3.9142],
            [1.2071, 1.2071, 1.2071]])
    """
    indptr, indices, values = adj
    if xu.ndim != 2 or xi.ndim != 2 or xu.shape[1] != xi.shape[1]:
        raise ValueError(
            f"xu and xi must be [n, d] with the same d, got {tuple(xu.shape)} and {tuple(xi.shape)}"
        )
    if xu.dtype != xi.dtype or values.dtype != xu.dtype:
        raise ValueError(
            f"xu, xi and the adjacency's values must share a dtype, got {xu.dtype}, {xi.dtype}, {values.dtype}"
        )
    n = len(indptr) - 1
    if n != xu.shape[0] + xi.shape[0]:
        raise ValueError(f"adj has {n} rows, xu and xi {xu.shape[0]} + {xi.shape[0]}")
    if nodes.dtype != torch.int64 or nodes.ndim != 1:
        raise ValueError(
            f"nodes must be a 1-d int64 tensor, got {nodes.dtype} of shape {tuple(nodes.shape)}"
        )
    if len(nodes) and (int(nodes.min()) < 0 or int(nodes.max()) >= n):
        raise ValueError(f"nodes must lie in [0, {n})")
    if not (xu.device == xi.device == indptr.device == nodes.device):
        raise ValueError("xu, xi, adj and nodes must be on one device")
    if not (isinstance(divisor, (int, float)) and divisor > 0):
        raise ValueError(f"divisor must be a positive number, got {divisor!r}")
    return _rows(xu, xi, (indptr, indices, values), nodes, bool(add_self), float(divisor))


def _rows(xu, xi, adj, nodes, add_self: bool = False, divisor: float = 1.0) -> torch.Tensor:
    """:func:`adjacency_rows` without its checks, for a caller whose inputs hold by construction (a training
    step: the checks' ``nodes.min()`` / ``max()`` would wait on a GPU at every step)."""
    return _AdjacencyRows.apply(xu, xi, adj, nodes, int(xu.shape[0]), add_self, divisor)


def csr_parts(adj: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(indptr, indices, values)`` of a sparse CSR tensor, the first two as contiguous int64.

    Parameters
    ----------
    adj : Tensor
        A sparse CSR matrix (e.g. :class:`~negtheory.bridge.recommend.LightGCN`'s ``adj``).

    Returns
    -------
    tuple of Tensor
        The row pointers, column indices and values, as :func:`adjacency_rows` takes them.
    """
    return (
        adj.crow_indices().to(torch.int64).contiguous(),
        adj.col_indices().to(torch.int64).contiguous(),
        adj.values().contiguous(),
    )
