r"""The torch backend of :func:`negtheory.training.fit`: MF and LightGCN, the step loop and the scores.

The models own their scoring (:class:`MF`: the inner product or the cosine, with dropout of the
user vector; :class:`LightGCN`: the propagated embeddings) and their full-rank scores
(``all_scores``, the evaluation's :class:`~negtheory.recsys.loop.ScoreMatrix`). The step loop
(:class:`_MFRunner`) composes the run's components: each training pair (u, i) of a shuffled batch
gets N negatives from the sampler's ``draw`` (:mod:`negtheory.training.negatives`) and, for the
debiased losses, M extra positives from u's training items
(:func:`~negtheory.recsys.samplers.sample_extra_positives`); the scores divided by the loss's
temperature t feed the loss module (:func:`negtheory.bridge.losses.build_loss` of the loss spec,
or a user's module), and the optimizer steps.

Model selection: with a validation split (:meth:`Interactions.with_validation`) the loop records
validation metrics and the epoch of the best validation NDCG; ``Evaluation.patience`` stops early.
Test metrics are recorded each evaluation too; the released code reports their maximum over epochs
(an optimistic convention, reported by :mod:`negtheory.reproduce.thesis_tables` only with that
label).
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import nn

from .._docstrings import docstring
from .._validation import int_scalar
from ..recsys.interactions import Interactions
from ..recsys.loop import ScoreMatrix, check_callbacks, train_loop
from ..recsys.samplers import sample_extra_positives
from ..training import specs as S
from ..training._run import FitResult, Run, eval_splits
from .device import resolve_device
from .gathered_scores import gathered_scores
from .losses import build_loss

if TYPE_CHECKING:
    pass

#: the fewest items per row for which MF scores on the CPU with the fused kernels (below that torch's ops are
#: as fast: timings in negtheory.bridge.gathered_scores)
_FUSED_MIN_K = 8

__all__ = [
    "MF",
    "LightGCN",
    "StepScores",
    "normalized_adjacency",
    "batch_sq_norm",
    "shared_scores",
    "dns_negatives",
]


#: the score methods' (MF, LightGCN, the towers of bridge.train) shared parameters, written once
_SCORE_ARGS = {
    "users_items": """
        users : LongTensor, shape [B]
            User indices.
        items : LongTensor, shape [B, K]
            Item indices, K per user.
        """,
    "score_sections": """
        Parameters
        ----------
        users : LongTensor, shape [B]
            User indices.
        items : LongTensor, shape [B, K]
            Item indices, K per user.

        Returns
        -------
        Tensor, shape [B, K]
            The scores x_ui.
        """,
}
_score_doc = docstring(_SCORE_ARGS)


class MF(nn.Module):
    """Matrix factorisation x_ui = <w_u, h_i> with Xavier-normal initialisation (released code).

    Parameters
    ----------
    n_users, n_items : int
        Numbers of users and items (rows of the two embedding tables ``user`` and ``item``).
    dim : int, default 32
        Embedding dimension d.
    generator : torch.Generator, optional
        Source of the initial N(0, 2 / (d + n)) entries (None: torch's global generator).
    cosine : bool, default False
        Score by the cosine of the two embeddings instead of their inner product
        (:class:`negtheory.training.MF`'s ``similarity="cosine"``).
    init_std : float, optional
        Initial entries N(0, init_std²) instead of Xavier normal (MF-CCL's released code: 1e-4).
    dropout : float, default 0
        Dropout rate p on the scored user vector in :meth:`forward` while training with gradients
        (``self.training`` and autograd on): each coordinate kept with probability 1 - p and scaled by
        1 / (1 - p). Scores without gradient (evaluation, score-based samplers) are never dropped.
    dropout_seed : int, optional
        Seed of the dropout masks' own generator, on the scores' device (None: drawn from torch's
        global generator at the first mask), so that a run's masks depend on its seed alone.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.recommend import MF
    >>> m = MF(5, 7, dim=4, generator=torch.Generator().manual_seed(0))
    >>> tuple(m(torch.tensor([0, 1]), torch.tensor([[0, 1, 2], [3, 4, 5]])).shape), tuple(m.all_scores().shape)
    ((2, 3), (5, 7))
    """

    def __init__(
        self,
        n_users,
        n_items,
        dim=32,
        generator=None,
        cosine=False,
        init_std=None,
        dropout=0.0,
        dropout_seed=None,
    ):
        super().__init__()
        if init_std is not None and not init_std > 0:
            raise ValueError(f"init_std must be > 0 or None, got {init_std!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.cosine = bool(cosine)
        self.dropout = float(dropout)
        self._dropout_seed = dropout_seed
        self._drop_gen: torch.Generator | None = None
        self.user = nn.Embedding(n_users, dim)
        self.item = nn.Embedding(n_items, dim)
        for emb in (self.user, self.item):
            fan_in, fan_out = emb.weight.shape[1], emb.weight.shape[0]
            std = math.sqrt(2.0 / (fan_in + fan_out)) if init_std is None else float(init_std)
            with torch.no_grad():
                emb.weight.normal_(0.0, std, generator=generator)

    def _dropped(self, wu: torch.Tensor) -> torch.Tensor:
        """``wu`` with inverted dropout applied while training with gradients (else ``wu`` itself)."""
        if not (self.dropout and self.training and torch.is_grad_enabled()):
            return wu
        if self._drop_gen is None or self._drop_gen.device != wu.device:
            seed = self._dropout_seed
            if seed is None:
                seed = int(torch.randint(0, 2**62, (1,)).item())
            self._drop_gen = torch.Generator(device=wu.device).manual_seed(int(seed))
        keep = (
            torch.rand(wu.shape, generator=self._drop_gen, device=wu.device, dtype=wu.dtype)
            >= self.dropout
        )
        return wu * keep.to(wu.dtype) / (1.0 - self.dropout)

    @_score_doc
    def forward(self, users, items):
        """Scores x_ui = <w_u, h_i> (or their cosine) of K items for each of B users.

        %(score_sections)s
        """
        fusable = self.item.weight.dtype in (torch.float32, torch.float64)
        if (
            fusable
            and items.device.type == "cpu"
            and items.ndim == 2
            and items.shape[1] >= _FUSED_MIN_K
        ):
            # on the CPU the [B, K, d] gather, product and scatter of the torch ops below dominate the step;
            # the fused kernels read the rows in place (negtheory.bridge.gathered_scores)
            wu = self.user(users)
            wu = nn.functional.normalize(wu, dim=-1) if self.cosine else wu
            return gathered_scores(self._dropped(wu), self.item.weight, items, cosine=self.cosine)
        if self.cosine and items.numel() > self.item.num_embeddings:
            # many more gathered rows than items (e.g. Gowalla's 2048 x 257 against 40 981): normalising the
            # table once and gathering from it costs O(n_items d) instead of O(B K d), with the same rows
            hi = nn.functional.embedding(items, nn.functional.normalize(self.item.weight, dim=-1))
            wu = nn.functional.normalize(self.user(users), dim=-1)
        else:
            wu, hi = self._scored(self.user(users), self.item(items))
        # MF-CCL's released model drops coordinates of the (normalised) user vector, after the normalisation
        wu = self._dropped(wu)
        # a batched matrix product: no [B, K, d] product tensor in the forward pass
        return torch.bmm(hi, wu[:, :, None])[..., 0]

    def scores_with_shared(self, users, items, shared) -> tuple[torch.Tensor, torch.Tensor]:
        """The scores of each row's items and of the batch's shared items by one (dropped) user vector.

        With dropout the row's user vector must be the same in both (one mask per row), which
        :meth:`forward` and :func:`shared_scores` called apart would not give.

        Parameters
        ----------
        users : LongTensor, shape [B]
            The users.
        items : LongTensor, shape [B, K]
            Each row's items.
        shared : LongTensor, shape [N]
            The items every row is scored against.

        Returns
        -------
        (Tensor, Tensor)
            Shapes [B, K] and [B, N].
        """
        wu, hi = self._scored(self.user(users), self.item(items))
        hs = (
            nn.functional.normalize(self.item(shared), dim=-1) if self.cosine else self.item(shared)
        )
        wu = self._dropped(wu)
        return torch.bmm(hi, wu[:, :, None])[..., 0], wu @ hs.T

    def _scored(self, wu: torch.Tensor, hi: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The embeddings whose inner products are the scores: normalised rows for cosine, else as given."""
        if self.cosine:
            return nn.functional.normalize(wu, dim=-1), nn.functional.normalize(hi, dim=-1)
        return wu, hi

    @torch.no_grad()
    def scoring_embeddings(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The user and item embeddings whose inner products are the scores (normalised for cosine).

        Returns
        -------
        (Tensor, Tensor)
            Shapes [n_users, d] and [n_items, d] (the weights themselves for the inner product).
        """
        return self._scored(self.user.weight, self.item.weight)

    @torch.no_grad()
    def all_scores(self):
        """Scores of every (user, item) pair, without gradient.

        Returns
        -------
        Tensor, shape [n_users, n_items]
            The matrix W H^T (of the normalised rows for cosine).
        """
        wu, hi = self.scoring_embeddings()
        return wu @ hi.T


def batch_sq_norm(emb: nn.Embedding, idx: torch.Tensor) -> torch.Tensor:
    r"""The squared norm of the gathered rows, :math:`\sum_j \lVert e_{i_j} \rVert^2`, by the cheaper route.

    With :math:`c_r` the number of times row r occurs in ``idx``, the sum equals
    :math:`\sum_r c_r \lVert e_r \rVert^2`; when ``idx`` holds more entries than the table has rows
    (many negatives per pair) that form costs O(rows d) instead of gathering O(len(idx) d) entries.
    The value and its gradient are the same either way (up to the order of the summation).

    Parameters
    ----------
    emb : torch.nn.Embedding
        The table.
    idx : LongTensor
        Row indices, any shape.

    Returns
    -------
    Tensor
        A scalar, differentiable in ``emb.weight``.

    Raises
    ------
    ValueError
        ``idx`` is not an integer tensor.

    Examples
    --------
    >>> import torch
    >>> e = torch.nn.Embedding(3, 2)
    >>> idx = torch.tensor([[0, 2, 2, 2, 2]])
    >>> bool(torch.isclose(batch_sq_norm(e, idx), e(idx).pow(2).sum()))
    True
    """
    if idx.dtype not in (torch.int64, torch.int32):
        raise ValueError(
            f"idx must be an integer (int64 or int32) tensor of row indices, got dtype {idx.dtype}"
        )
    if idx.numel() <= emb.num_embeddings:
        return emb(idx).pow(2).sum()
    counts = torch.bincount(idx.reshape(-1), minlength=emb.num_embeddings).to(emb.weight.dtype)
    return (counts * emb.weight.pow(2).sum(-1)).sum()


def normalized_adjacency(pairs: np.ndarray, n_users: int, n_items: int) -> torch.Tensor:
    r"""The symmetric normalised bipartite adjacency of LightGCN as a sparse tensor.

    With R the [n_users, n_items] 0/1 interaction matrix of ``pairs`` (duplicates counted once),
    A = [[0, R], [R^T, 0]] and D its diagonal degree matrix,

    .. math:: \tilde A = D^{-1/2} A D^{-1/2}, \qquad
        \tilde A_{u, i} = \frac{1}{\sqrt{|N_u|\,|N_i|}}

    (He et al., LightGCN, eq. 3 and 7); a node without neighbours has an empty row. Users are
    nodes 0 .. n_users - 1, items n_users .. n_users + n_items - 1.

    Parameters
    ----------
    pairs : ndarray of int, shape (n, 2)
        Training (user, item) pairs.
    n_users, n_items : int
        Numbers of users and items (every id must be below them).

    Returns
    -------
    torch.Tensor
        Coalesced sparse COO tensor, float32, shape [n_users + n_items, n_users + n_items].

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.bridge.recommend import normalized_adjacency
    >>> a = normalized_adjacency(np.array([[0, 0], [0, 1], [1, 1]]), 2, 2).to_dense()
    >>> round(float(a[0, 3]), 4), round(float(a[3, 0]), 4), float(a[1, 2])  # 1/sqrt(2*2), 0
    (0.5, 0.5, 0.0)
    """
    n_users = int_scalar("n_users", n_users, 1)
    n_items = int_scalar("n_items", n_items, 1)
    p = np.asarray(pairs)
    if p.ndim != 2 or p.shape[1] != 2 or not np.issubdtype(p.dtype, np.integer):
        raise ValueError(
            f"pairs must be an integer array of shape (n, 2), got shape {p.shape} and dtype {p.dtype}"
        )
    if len(p) and (p.min() < 0 or p[:, 0].max() >= n_users or p[:, 1].max() >= n_items):
        raise ValueError("pairs must hold users in [0, n_users) and items in [0, n_items)")
    p = np.unique(p.astype(np.int64), axis=0)
    du = np.bincount(p[:, 0], minlength=n_users).astype(np.float64)
    di = np.bincount(p[:, 1], minlength=n_items).astype(np.float64)
    w = 1.0 / np.sqrt(du[p[:, 0]] * di[p[:, 1]])
    rows = np.concatenate([p[:, 0], n_users + p[:, 1]])
    cols = np.concatenate([n_users + p[:, 1], p[:, 0]])
    n = n_users + n_items
    idx = torch.from_numpy(np.stack([rows, cols]))
    val = torch.from_numpy(np.concatenate([w, w]).astype(np.float32))
    # checks opted into for the whole construction: torch 2.11 (the CUDA image's) otherwise warns once
    # per process that "sparse invariant checks are implicitly disabled"
    with torch.sparse.check_sparse_tensor_invariants(enable=True):
        return torch.sparse_coo_tensor(idx, val, (n, n), check_invariants=True).coalesce()


class _SymmetricSpMM(torch.autograd.Function):
    """``adj @ x`` for a symmetric sparse CSR ``adj``; the gradient ``adj^T g`` is ``adj @ g``.

    torch's own backward of a sparse product transposes the matrix at each call, which costs ten
    times the product on the MovieLens-100K graph.
    """

    @staticmethod
    def forward(ctx, adj, x):
        ctx.adj = adj
        return adj @ x

    @staticmethod
    def backward(ctx, grad):
        return None, ctx.adj @ grad


class LightGCN(nn.Module):
    r"""LightGCN (He et al., SIGIR 2020): embeddings propagated on the user-item graph, mean over layers.

    .. math::
        e^{(k+1)} = \tilde A\, e^{(k)}, \qquad e = \frac{1}{K + 1} \sum_{k=0}^{K} e^{(k)}, \qquad
        x_{ui} = \langle e_u, e_i \rangle,

    with :math:`\tilde A` the normalised bipartite adjacency of the training pairs
    (:func:`normalized_adjacency`, built once, stored as a sparse CSR buffer ``adj``) and
    :math:`e^{(0)}` the free embeddings ``user`` / ``item`` (the only parameters). The interface is
    :class:`MF`'s, so every loss of :func:`negtheory.training.fit` trains it unchanged; each call propagates the
    whole graph (K sparse products of [n_users + n_items, d]), as the LightGCN release does.

    Parameters
    ----------
    n_users, n_items : int
        Numbers of users and items.
    pairs : ndarray of int, shape (n, 2)
        The training (user, item) pairs that define the graph (never the held-out ones).
    dim : int, default 32
        Embedding dimension d.
    n_layers : int >= 0, default 1
        Number K of propagation layers (the thesis uses 1; 0 is MF with LightGCN's initialisation).
    generator : torch.Generator, optional
        Source of the initial N(0, 0.1²) entries (the LightGCN release's initialisation; None:
        torch's global generator).
    propagation : {"full", "batch"}, default "full"
        How :meth:`forward` (without ``propagated``) gets the rows it scores. ``"full"`` propagates the
        whole graph at each call, as the LightGCN release does. ``"batch"`` computes the last layer only
        for the users and items of the call (:mod:`negtheory.bridge.graph_rows`): the same scores and
        gradients to float32 rounding, at the cost of the batch's graph rows instead of all of them
        (with one layer a Gowalla step at batch 128 runs 5-8x faster on one core; nothing is gained on a
        synthetic split of MovieLens-100K's size, whose steps touch 40 % of the graph). Only :meth:`forward`
        changes; :meth:`propagate` and :meth:`all_scores` always propagate everything.

    Examples
    --------
    >>> import numpy as np, torch
    >>> from negtheory.bridge.recommend import LightGCN
    >>> pairs = np.array([[0, 0], [0, 1], [1, 1], [2, 3]])
    >>> m = LightGCN(3, 4, pairs, dim=8, n_layers=2, generator=torch.Generator().manual_seed(0))
    >>> tuple(m(torch.tensor([0, 2]), torch.tensor([[0, 1], [2, 3]])).shape), tuple(m.all_scores().shape)
    ((2, 2), (3, 4))
    """

    def __init__(
        self,
        n_users: int,
        n_items: int,
        pairs: np.ndarray,
        dim: int = 32,
        n_layers: int = 1,
        generator: torch.Generator | None = None,
        propagation: str = "full",
    ) -> None:
        super().__init__()
        if propagation not in ("full", "batch"):
            raise ValueError(f"propagation must be 'full' or 'batch', got {propagation!r}")
        self.propagation = propagation
        self.n_users = int_scalar("n_users", n_users, 1)
        self.n_items = int_scalar("n_items", n_items, 1)
        self.n_layers = int_scalar("n_layers", n_layers, 0)
        dim = int_scalar("dim", dim, 1)
        self.user = nn.Embedding(self.n_users, dim)
        self.item = nn.Embedding(self.n_items, dim)
        with torch.no_grad():
            for emb in (self.user, self.item):
                emb.weight.normal_(0.0, 0.1, generator=generator)
        with (
            warnings.catch_warnings()
        ):  # "sparse CSR support is in beta": products and .to() are what is used here
            warnings.filterwarnings("ignore", "Sparse CSR tensor support is in beta", UserWarning)
            adj = normalized_adjacency(pairs, self.n_users, self.n_items).to_sparse_csr()
        self.register_buffer("adj", adj)
        self._csr: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = (
            None  # (indptr, indices, values) of adj
        )

    def _adjacency_parts(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        from .graph_rows import csr_parts

        if (
            self._csr is None
            or self._csr[2].device != self.adj.device
            or self._csr[2].dtype != self.adj.dtype
        ):
            self._csr = csr_parts(self.adj)
        return self._csr

    def batch_embeddings(
        self, users: torch.Tensor, items: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        r"""The final embeddings of ``users`` and ``items`` only, with gradient (``propagation="batch"``).

        The rows of :math:`e = \frac{1}{K+1}\sum_k e^{(k)}` for the nodes of the call: layers
        1 .. K-1 over the whole graph (none for the thesis's K = 1), the last layer over the rows of
        these nodes only (:func:`negtheory.bridge.graph_rows.adjacency_rows`).

        Parameters
        ----------
        users : LongTensor, shape [B]
            User ids.
        items : LongTensor, any shape
            Item ids.

        Returns
        -------
        eu : Tensor, shape [B, dim]
            :math:`e_u` of each entry of ``users``.
        ei : Tensor, shape items.shape + [dim]
            :math:`e_i` of each entry of ``items``.
        """
        from .graph_rows import _rows

        nu, k = self.n_users, self.n_layers
        ids = torch.cat([users.reshape(-1), items.reshape(-1) + nu])
        nodes, inv = torch.unique(ids, sorted=True, return_inverse=True)
        if k == 0:
            cut = int(
                torch.searchsorted(nodes, torch.tensor(nu, device=nodes.device))
            )  # users come first
            rows = torch.cat(
                [
                    self.user.weight.index_select(0, nodes[:cut]),
                    self.item.weight.index_select(0, nodes[cut:] - nu),
                ]
            )
        elif (
            k == 1
        ):  # (e0 + A e0) / 2 for these rows in one pass: propagate's operations, in its order
            rows = _rows(
                self.user.weight,
                self.item.weight,
                self._adjacency_parts(),
                nodes,
                add_self=True,
                divisor=2.0,
            )
        else:
            e = torch.cat([self.user.weight, self.item.weight])
            acc = e
            for _ in range(k - 1):
                e = _SymmetricSpMM.apply(self.adj, e)
                acc = acc + e
            # the same sum, in the same order, as propagate's acc = e0 + ... + eK, then / (K + 1)
            last = _rows(e[:nu], e[nu:], self._adjacency_parts(), nodes)
            rows = (acc.index_select(0, nodes) + last) / (k + 1)
        b = users.numel()
        return rows.index_select(0, inv[:b]).reshape(*users.shape, -1), rows.index_select(
            0, inv[b:]
        ).reshape(*items.shape, -1)

    def propagate(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The final embeddings (mean over layers 0 .. K) of all users and items.

        Returns
        -------
        users : Tensor, shape [n_users, dim]
            :math:`e_u` of every user.
        items : Tensor, shape [n_items, dim]
            :math:`e_i` of every item.
        """
        e = torch.cat([self.user.weight, self.item.weight])
        acc = e
        for _ in range(self.n_layers):
            e = _SymmetricSpMM.apply(self.adj, e)
            acc = acc + e
        acc = acc / (self.n_layers + 1)
        return acc[: self.n_users], acc[self.n_users :]

    @_score_doc
    def forward(
        self,
        users: torch.Tensor,
        items: torch.Tensor,
        propagated: tuple[torch.Tensor, torch.Tensor] | None = None,
    ) -> torch.Tensor:
        """Scores x_ui of K items for each of B users.

        Parameters
        ----------
        %(users_items)s
        propagated : tuple of Tensor, optional
            The output of :meth:`propagate` for the current parameters, when the caller has it
            already (a sampler that scored the catalog with it): the graph is then not propagated
            again. Default None: propagate.

        Returns
        -------
        Tensor, shape [B, K]
            The inner products <e_u, e_i> of the propagated embeddings.
        """
        if propagated is None and self.propagation == "batch":
            eu_b, ei_b = self.batch_embeddings(users, items)
            return (eu_b[:, None, :] * ei_b).sum(-1)
        eu, ei = self.propagate() if propagated is None else propagated
        return (eu[users][:, None, :] * ei[items]).sum(-1)

    @torch.no_grad()
    def all_scores(self) -> torch.Tensor:
        """Scores of every (user, item) pair, without gradient.

        Returns
        -------
        Tensor, shape [n_users, n_items]
            The matrix of <e_u, e_i>.
        """
        eu, ei = self.propagate()
        return eu @ ei.T


def shared_scores(
    model: nn.Module,
    users: torch.Tensor,
    items: torch.Tensor,
    propagated: tuple[torch.Tensor, torch.Tensor] | None = None,
) -> torch.Tensor:
    """Scores of the same N items for each of B users, as one [B, d] x [d, N] product (with gradient).

    Equal to ``model(users, items.expand(B, N))`` (MF: inner product or cosine; LightGCN: the
    propagated embeddings) without gathering B N item rows: what makes
    :class:`~negtheory.training.SharedUniform`'s thousands of negatives per pair cheap.

    Parameters
    ----------
    model : MF or LightGCN
        The model.
    users : LongTensor, shape [B]
        The users.
    items : LongTensor, shape [N]
        The items every user is scored against.
    propagated : tuple of Tensor, optional
        LightGCN's :meth:`LightGCN.propagate` of this step, when the caller has it (else propagated here).

    Returns
    -------
    Tensor, shape [B, N]
        The scores.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.recommend import MF, shared_scores
    >>> m = MF(3, 5, dim=4, generator=torch.Generator().manual_seed(0), cosine=True)
    >>> u, i = torch.tensor([0, 2]), torch.tensor([1, 4, 4])
    >>> bool(torch.allclose(shared_scores(m, u, i), m(u, i.expand(2, 3))))
    True
    """
    if items.dim() != 1:
        raise ValueError(
            f"items must be a 1-d tensor of the N shared items, got shape {tuple(items.shape)}"
        )
    if isinstance(model, LightGCN):
        eu, ei = model.propagate() if propagated is None else propagated
        return eu[users] @ ei[items].T
    wu, hi = model._scored(model.user(users), model.item(items))
    return wu @ hi.T


@torch.no_grad()
def dns_negatives(
    model: nn.Module,
    users: np.ndarray,
    candidates: np.ndarray,
    propagated: tuple[torch.Tensor, torch.Tensor] | None = None,
) -> np.ndarray:
    r"""DNS (Zhang et al. 2013): for each user and negative slot, the highest-scored candidate.

    .. math:: j_{b,n} = \arg\max_{c = 1..C} \hat x_{u_b,\, l_{b,n,c}}

    with the scores :math:`\hat x` of the current ``model`` (no gradient flows through the choice;
    ties go to the first candidate, as :func:`numpy.argmax`).

    Parameters
    ----------
    model : MF or LightGCN
        The model being trained (its ``user`` / ``item`` embeddings; LightGCN's propagated ones).
    users : ndarray of int, shape (B,)
        The users of the batch.
    candidates : ndarray of int, shape (B, N, C)
        C candidate items for each of the N negatives of each user.
    propagated : tuple of Tensor, optional
        For a :class:`LightGCN`, its :meth:`~LightGCN.propagate` output for the current
        parameters when the caller has it (the training step reuses it for the loss); default
        None: the model propagates.

    Returns
    -------
    ndarray of int, shape (B, N)
        The chosen negatives.

    Raises
    ------
    ValueError
        ``candidates`` is not 3-d with one row per user.

    Examples
    --------
    >>> import numpy as np, torch
    >>> from negtheory.bridge.recommend import MF, dns_negatives
    >>> m = MF(1, 4, dim=1)
    >>> with torch.no_grad():
    ...     _ = m.user.weight.fill_(1.0); _ = m.item.weight.copy_(torch.tensor([[0.0], [3.0], [1.0], [2.0]]))
    >>> dns_negatives(m, np.array([0]), np.array([[[0, 2, 3], [2, 0, 0]]])).tolist()
    [[3, 2]]
    """
    cand = np.asarray(candidates)
    users = np.asarray(users)
    if cand.ndim != 3 or cand.shape[0] != users.shape[0]:
        raise ValueError(
            f"candidates must have shape (B, N, C) with B = len(users), got {cand.shape} for {users.shape[0]} users"
        )
    pick = _candidate_scores(model, users, cand, propagated).argmax(
        axis=-1
    )  # ties: the first, as torch's argmax
    return np.take_along_axis(cand, pick[..., None], axis=-1)[..., 0]


@torch.no_grad()
def _candidate_scores(
    model: nn.Module, users: np.ndarray, cand: np.ndarray, propagated=None
) -> np.ndarray:
    """The model's own scores (MF or LightGCN forward) of the (B, N, C) candidates, without a graph, as numpy."""
    dev = next(model.parameters()).device
    ut = torch.from_numpy(np.asarray(users).astype(np.int64)).to(dev)
    ct = torch.from_numpy(np.asarray(cand).astype(np.int64)).to(dev)
    kw = {} if propagated is None else {"propagated": tuple(t.detach() for t in propagated)}
    return model(ut, ct.reshape(len(ut), -1), **kw).reshape(ct.shape).cpu().numpy()


def _loss_label(loss: Any) -> str:
    """A loss's name for messages and records: a spec's ``config`` name, or a user's loss's class name."""
    if isinstance(loss, S.Spec):
        return _loss_name(loss)
    return type(loss).__name__


def _loss(loss_fn, s, m):
    """The loss of a step: s is [B, 1 + M + N] scores / t (own positive, M extra positives, N negatives).

    ``loss_fn``: a spec's module (:meth:`negtheory.training.specs.BPR.build` and the others: its
    ``loss_from_logits``), a loss module of :mod:`negtheory.bridge.losses`, or a user's module or
    callable of the positive logits [B] and the negative logits [B, N] returning a scalar.
    """
    pos, neg = s[:, 0], s[:, 1 + m :]
    f = getattr(loss_fn, "loss_from_logits", loss_fn)
    out = f(pos, neg, s[:, 1 : 1 + m]) if m else f(pos, neg)
    if out.dim() != 0:
        raise ValueError(
            f"loss: {_loss_label(loss_fn)} must return a scalar (reduction 'mean' or 'sum'), got shape "
            f"{tuple(out.shape)}"
        )
    return out


@torch.no_grad()
def _score_matrix(model: nn.Module) -> ScoreMatrix:
    """A :class:`~negtheory.recsys.loop.ScoreMatrix` snapshot of ``model``'s scores.

    The user / item embeddings (LightGCN's propagated ones, computed once here) are copied; blocks
    are ``e_u[users] @ e_i.T`` on the model's device, the whole matrix ``e_u @ e_i.T`` (the
    product of ``model.all_scores()``, bit for bit).
    """
    if isinstance(model, LightGCN):
        eu, ei = (t.detach().clone() for t in model.propagate())
    else:
        eu, ei = (t.detach().clone() for t in model.scoring_embeddings())
    dev = eu.device

    def rows(users):
        return eu[torch.from_numpy(users).to(dev)] @ ei.T

    def block(users):
        with torch.no_grad():
            return rows(users).cpu().numpy()

    def dense():
        with torch.no_grad():
            return (eu @ ei.T).cpu().numpy()

    def top(users, k, masked):
        with torch.no_grad():
            return device_top_items(rows(users), k, masked)

    dtype = torch.empty(0, dtype=eu.dtype).numpy().dtype
    return ScoreMatrix(
        (eu.shape[0], ei.shape[0]), block, dtype=dtype, dense=dense, min_rows=64, top=top
    )


def device_top_items(s: torch.Tensor, k: int, masked=()) -> np.ndarray:
    """Each row's ``k`` best items ranked where ``s`` lives, equal to the reference ranking.

    ``torch.topk`` takes the k + 1 largest scores of each row (after the ``masked`` (row, item)
    entries are set to -inf). Where these k + 1 values are all distinct, the k best items and
    their order are determined by the values alone, so they equal the reference ranking
    (:func:`negtheory.recsys.metrics.topk_metrics_csr`: score, then the lower item index) of the
    same scores; a row with a tie among them is ranked by the reference on the host.

    Parameters
    ----------
    s : Tensor, shape [B, n_items]
        Scores (modified in place: the masked entries).
    k : int
        List length, 1 .. n_items.
    masked : sequence of (ndarray, ndarray)
        (row, item) index arrays scored -inf.

    Returns
    -------
    ndarray of int64, shape (B, k)
        The items, best first.

    Raises
    ------
    ValueError
        A score is NaN.
    """
    from ..recsys.metrics import _top_items

    if bool(torch.isnan(s).any()):
        raise ValueError("scores must not be NaN (the model diverged?)")
    for r, i in masked:
        if len(r):
            s[
                torch.from_numpy(np.asarray(r)).to(s.device),
                torch.from_numpy(np.asarray(i)).to(s.device),
            ] = -math.inf
    kk = min(k + 1, s.shape[1])
    vals, idx = torch.topk(s, kk, dim=1)
    vals, top = vals.cpu().numpy(), idx.cpu().numpy().astype(np.int64)[:, :k]
    tied = (
        np.flatnonzero((vals[:, 1:] == vals[:, :-1]).any(axis=1))
        if kk > 1
        else np.empty(0, np.int64)
    )
    if tied.size:
        top[tied] = _top_items(
            s[torch.from_numpy(tied).to(s.device)].cpu().numpy().astype(np.float64), k
        )
    return np.ascontiguousarray(top)


class StepScores:
    """The current model's scores as a score-aware sampler reads them (:mod:`negtheory.training.negatives`).

    Made at each step's start (LightGCN: from the step's propagation, detached); nothing is
    computed until a sampler asks.

    Parameters
    ----------
    model : MF or LightGCN
        The model being trained.
    propagated : tuple of Tensor, optional
        LightGCN's :meth:`LightGCN.propagate` of this step (None: propagated when needed).
    """

    def __init__(
        self, model: nn.Module, propagated: tuple[torch.Tensor, torch.Tensor] | None = None
    ) -> None:
        self.model, self.propagated = model, propagated
        self._np: tuple[np.ndarray, np.ndarray] | None = None

    @torch.no_grad()
    def tensors(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The scoring embeddings on the model's device, detached.

        Returns
        -------
        (Tensor, Tensor)
            e_u [n_users, d] and e_i [n_items, d], with scores e_u @ e_i.T.
        """
        model = self.model
        if isinstance(model, LightGCN):
            if self.propagated is not None:
                eu, ei = self.propagated
                return eu.detach(), ei.detach()
            return model.propagate()
        return model.scoring_embeddings()

    def embeddings(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`tensors` as float32 numpy arrays (computed once).

        Returns
        -------
        (ndarray, ndarray)
            e_u and e_i.
        """
        if self._np is None:
            eu, ei = self.tensors()
            self._np = (eu.detach().float().cpu().numpy(), ei.detach().float().cpu().numpy())
        return self._np

    def block(self, users: np.ndarray) -> np.ndarray:
        """Rows of the score matrix (numpy).

        Parameters
        ----------
        users : ndarray of int, shape (B,)
            The rows.

        Returns
        -------
        ndarray, shape (B, n_items)
            ``e_u[users] @ e_i.T``.
        """
        eu, ei = self.embeddings()
        return eu[np.asarray(users)] @ ei.T

    def __call__(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        """The model's own scores (its forward, no graph) of each row's items.

        Parameters
        ----------
        users : ndarray of int, shape (B,)
            The user of each row.
        items : ndarray of int, shape (B, ...)
            Items per row, any trailing shape.

        Returns
        -------
        ndarray, shape of ``items``
            The scores.
        """
        items = np.asarray(items)
        flat = items.reshape(len(users), -1)
        return _candidate_scores(self.model, users, flat[:, :, None], self.propagated).reshape(
            items.shape
        )


class _MFRunner:
    """One epoch of mini-batch training per ``run_epoch`` (the :class:`~negtheory.recsys.loop.EpochRunner` of MF).

    The step: sample (the sampler's ``draw``, :mod:`negtheory.training.negatives`) -> score (the
    model) -> loss (a loss function of (positive logits, negative logits)) -> optimizer step.
    """

    def __init__(
        self,
        model,
        opt,
        sched,
        loss,
        data,
        m_extra,
        n_neg,
        batch_size,
        dev,
        rng,
        batch_l2=0.0,
        spec=None,
        max_grad_norm=None,
        shuffle="epoch",
    ):
        self.model, self.opt, self.sched = model, opt, sched
        # None, or c: the gradient of all parameters scaled to total norm <= c before each step (MF-CCL's code: 10)
        self.max_grad_norm = max_grad_norm
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.loss = loss
        self.temperature = float(
            getattr(loss, "temperature", 1.0)
        )  # the loss's t divides the scores
        self.label = _loss_label(loss)
        self.m_extra, self.n_neg, self.batch_size, self.dev = m_extra, n_neg, batch_size, dev
        self.rng = rng
        self.pairs = data.train
        self.n_items = data.n_items
        self.indptr, self.indices = data.train_csr()
        self.batch_l2 = batch_l2  # > 0: L2 of the batch's layer-0 embeddings (LightGCN release), else weight decay
        self.shuffle, self.perm = (
            shuffle,
            None,
        )  # "once": one permutation for the whole run (drawn at the first epoch)
        spec = S.RNS() if spec is None else spec
        # every sampler draws through its own bound object (negtheory.training.negatives): bind -> start -> draw
        self.spec = spec
        self.score_aware = bool(getattr(spec, "score_aware", False))
        # SharedUniform: one row of N catalogue-uniform items per step, scored by one [B, d] x [d, N] product
        self.shared = bool(getattr(spec, "shared", False))
        self.sampler = spec.bind(data)
        self.sampler.start(StepScores(model), rng, dev)

    def _permutation(self, n: int) -> np.ndarray:
        if self.shuffle == "once":
            if self.perm is None:
                self.perm = self.rng.permutation(n)
            return self.perm
        return self.rng.permutation(n)

    def run_epoch(self, epoch: int) -> dict[str, float]:
        model, rng, dev, pairs = self.model, self.rng, self.dev, self.pairs
        model.train()
        n = len(pairs)
        perm = self._permutation(n)
        parts: list[torch.Tensor] = []
        sizes: list[int] = []
        lightgcn = isinstance(model, LightGCN)
        for s in range(0, n, self.batch_size):
            b = pairs[perm[s : s + self.batch_size]]
            u = b[:, 0]
            cols = [b[:, 1:2]]
            # LightGCN with a score-aware sampler: one propagation per step serves it (detached) and the loss
            prop = model.propagate() if (self.score_aware or self.shared) and lightgcn else None
            if self.m_extra:
                cols.append(sample_extra_positives(u, self.m_extra, self.indptr, self.indices, rng))
            ut = torch.from_numpy(u).to(dev)
            shared = None
            if self.shared:
                # the same draw as SharedUniform.sample (one row, from the run's stream), kept as one row
                shared = torch.from_numpy(
                    np.asarray(self.sampler.draw(u[:1], self.n_neg, rng))[0]
                ).to(dev)
                items = torch.from_numpy(np.concatenate(cols, axis=1)).to(dev)
            else:
                neg = self.sampler.draw(
                    u,
                    self.n_neg,
                    rng,
                    scores=StepScores(model, prop),
                    positives=b[:, 1],
                    epoch=epoch,
                )
                if isinstance(
                    neg, torch.Tensor
                ):  # a device-side draw: the items stay on the device
                    items = torch.cat(
                        [torch.from_numpy(np.concatenate(cols, axis=1)).to(dev), neg.to(dev)], dim=1
                    )
                else:
                    cols.append(np.asarray(neg, dtype=np.int64).reshape(len(u), self.n_neg))
                    items = torch.from_numpy(np.concatenate(cols, axis=1)).to(dev)
            if shared is not None and bool(getattr(model, "dropout", False)):
                # one dropped user vector scores the row's items and the shared negatives
                scores, extra = model.scores_with_shared(ut, items, shared)
                scores = torch.cat([scores, extra], dim=1)
            else:
                scores = model(ut, items) if prop is None else model(ut, items, propagated=prop)
                if shared is not None:
                    scores = torch.cat([scores, shared_scores(model, ut, shared, prop)], dim=1)
            scores = scores / self.temperature
            lval = _loss(self.loss, scores, self.m_extra)
            obj = lval
            if self.batch_l2:
                sq = batch_sq_norm(model.user, ut) + batch_sq_norm(model.item, items)
                if shared is not None:  # each shared negative serves the batch's len(b) rows
                    sq = sq + len(b) * batch_sq_norm(model.item, shared)
                obj = lval + self.batch_l2 * 0.5 * sq / len(b)
            self.opt.zero_grad()
            obj.backward()
            if self.max_grad_norm is not None:
                torch.nn.utils.clip_grad_norm_(self.params, self.max_grad_norm)
            self.opt.step()
            # kept on the device and read once per epoch: no host-device synchronisation per step
            parts.append(lval.detach())
            sizes.append(len(b))
        # the same float64 sum of loss x batch size, in step order, as reading each step's loss at once
        tot = sum(v * m for v, m in zip(torch.stack(parts).cpu().tolist(), sizes)) if parts else 0.0
        if not math.isfinite(tot):
            raise FloatingPointError(
                f"{self.label} loss is {tot} in epoch {epoch + 1}: training diverged"
            )
        self.sched.step()
        # the scores this epoch ended on (SRNS replaces its window's oldest with them)
        self.sampler.end_epoch(epoch, StepScores(model))
        return dict(loss=tot / n)

    def state_dict(self) -> dict[str, Any]:
        """Everything the next epoch depends on (for a checkpoint): parameters, optimizer, schedule, streams.

        LightGCN's adjacency is a buffer fixed by the data and is left out; the schedule's milestones
        (a ``Counter``) are stored as a dict.
        """
        sched = dict(self.sched.state_dict())
        if "milestones" in sched:
            sched["milestones"] = {int(k): int(v) for k, v in sched["milestones"].items()}
        st: dict[str, Any] = dict(
            model={k: v for k, v in self.model.state_dict().items() if k != "adj"},
            optimizer=self.opt.state_dict(),
            schedule=sched,
            rng=self.rng.bit_generator.state,
        )
        st.update(self.sampler.state_dict())  # the sampler's own streams and memories
        if self.perm is not None:
            st["permutation"] = self.perm
        drop = getattr(self.model, "_drop_gen", None)
        if drop is not None:
            st["dropout_generator"] = drop.get_state()
        return st

    def load_state_dict(self, st: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`'s state (tensors onto the run's device)."""
        from collections import Counter

        missing, unexpected = self.model.load_state_dict(st["model"], strict=False)
        if unexpected or set(missing) - {"adj"}:
            raise ValueError(
                f"checkpoint: the model's parameters do not match (missing {missing}, unexpected {unexpected})"
            )
        self.opt.load_state_dict(st["optimizer"])
        sched = dict(st["schedule"])
        if "milestones" in sched:
            sched["milestones"] = Counter({int(k): int(v) for k, v in sched["milestones"].items()})
        self.sched.load_state_dict(sched)
        self.rng.bit_generator.state = st["rng"]
        self.sampler.load_state_dict(st)
        if "permutation" in st:
            self.perm = np.asarray(st["permutation"])
        if "dropout_generator" in st:
            gen = torch.Generator(device=self.dev)
            gen.set_state(st["dropout_generator"])
            self.model._drop_gen = gen

    def score_matrix(self) -> ScoreMatrix:
        """A snapshot of the current scores (the embeddings, LightGCN's propagated once, are copied)."""
        self.model.eval()
        return _score_matrix(self.model)

    def score_block(self, users: np.ndarray) -> np.ndarray:
        return self.score_matrix().block(users)

    def score_pairs(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        return self.score_matrix().pairs(users, items)

    def scores(self) -> np.ndarray:
        self.model.eval()
        return self.model.all_scores().cpu().numpy()


# ------------------------------------------------------------------------------------------
# the mini-batch engine of negtheory.training.fit
# ------------------------------------------------------------------------------------------
def _loss_name(loss: Any) -> str:
    """The name of a loss spec in the run's ``config`` (:data:`negtheory.training.names.LOSS_NAMES`)."""
    if isinstance(loss, S.BCL):
        return "bcl" if loss.form == "thesis" else "bcl_released"
    return {
        S.BPR: "bpr",
        S.BCE: "bce",
        S.InfoNCE: "infonce",
        S.DCL: "dcl",
        S.HCL: "hcl",
        S.DPL: "dpl",
        S.CCL: "ccl",
    }[type(loss)]


def _loss_cfg(loss: Any) -> dict[str, float]:
    """The loss's hyper-parameters as the run's ``config`` records them (a loss without one: its spec default)."""
    return dict(
        temperature=float(
            getattr(loss, "temperature", 1.0)
        ),  # a loss module's own t divides the scores too
        tau_plus=getattr(loss, "tau_plus", 0.06),
        hcl_beta=loss.beta if isinstance(loss, S.HCL) else 0.5,
        alpha=loss.alpha if isinstance(loss, S.BCL) else 0.55,
        beta=loss.beta if isinstance(loss, S.BCL) else 0.6,
        dpl_eps=loss.eps if isinstance(loss, S.DPL) else 1e-2,
        **(
            {"margin": loss.margin, "negative_weight": loss.negative_weight}
            if isinstance(loss, S.CCL)
            else {}
        ),
        **({"positive_hinge": True} if isinstance(loss, S.CCL) and loss.positive_hinge else {}),
    )


def _optimizer(opt: Any, params, dev: torch.device):
    """The torch optimizer of an optimizer spec, or of a user's torch optimizer class or factory."""
    if not isinstance(opt, (S.SGD, S.Adam)):
        return opt(params)  # a torch.optim class (its default lr) or a factory params -> optimizer
    decay = opt.weight_decay if opt.penalty == "weight_decay" else 0.0
    if isinstance(opt, S.Adam):
        # on the CPU torch's fused Adam is the same update in one pass over the parameters: 6 ms a step
        # against 37 ms for the default on Gowalla's 4.5 M parameters (one core); on a GPU the loop, not the
        # update, sets the pace, so the default stays there
        fused = {"fused": True} if dev.type == "cpu" else {}
        return torch.optim.Adam(params, lr=opt.lr, weight_decay=decay, **fused)
    return torch.optim.SGD(params, lr=opt.lr, weight_decay=decay)


def _build(data: Interactions, run: Run, dev: torch.device) -> tuple[nn.Module, Any, Any]:
    """The model (seeded by the run's seed), its optimizer and the learning-rate schedule."""
    spec, opt = run.model, run.optimizer
    gen = torch.Generator().manual_seed(run.seed)
    if isinstance(spec, S.LightGCN):
        net: nn.Module = LightGCN(
            data.n_users,
            data.n_items,
            data.train,
            spec.dim,
            spec.layers,
            generator=gen,
            propagation=spec.propagation,
        ).to(dev)
    else:
        drop_seed = int(np.random.SeedSequence([run.seed, 2]).generate_state(1, np.uint64)[0] >> 2)
        net = MF(
            data.n_users,
            data.n_items,
            spec.dim,
            generator=gen,
            cosine=spec.similarity == "cosine",
            init_std=spec.init_std,
            dropout=spec.dropout,
            dropout_seed=drop_seed,
        ).to(dev)
    optim = _optimizer(opt, net.parameters(), dev)
    milestones, gamma = (
        (list(opt.milestones), opt.gamma) if isinstance(opt, (S.SGD, S.Adam)) else ([], 1.0)
    )
    sched = torch.optim.lr_scheduler.MultiStepLR(optim, milestones=milestones, gamma=gamma)
    return net, optim, sched


def _fit_torch(data: Interactions, run: Run) -> FitResult:
    """The mini-batch trainer (torch): any model, loss, sampler and optimizer (specs or a user's objects)."""
    loss, s, opt, ev = run.loss, run.sampler, run.optimizer, run.evaluation
    spec_loss = isinstance(loss, S.Spec)
    name = _loss_name(loss) if spec_loss else type(loss).__name__
    loss_fn = build_loss(loss) if spec_loss else loss
    splits, monitor = eval_splits(data, ev, "both", ("valid", "test"))
    callbacks = check_callbacks(run.callbacks)
    dev = resolve_device(run.device)
    m_extra = getattr(loss, "extra_positives", 0) if spec_loss else 0
    n_neg = run.negatives
    net, optim, sched = _build(data, run, dev)
    cfg = (
        _loss_cfg(loss) if spec_loss else {"temperature": float(getattr(loss, "temperature", 1.0))}
    )
    spec_opt = isinstance(opt, (S.SGD, S.Adam))
    runner = _MFRunner(
        net,
        optim,
        sched,
        loss_fn,
        data,
        m_extra,
        n_neg,
        run.batch_size,
        dev,
        np.random.default_rng(np.random.SeedSequence([run.seed, 1])),
        batch_l2=opt.weight_decay if spec_opt and opt.penalty == "batch" else 0.0,
        spec=s,
        max_grad_norm=opt.max_grad_norm if spec_opt else None,
        shuffle=opt.shuffle if isinstance(opt, S.SGD) else "epoch",
    )
    label = "LightGCN" if isinstance(run.model, S.LightGCN) else "MF"
    ck = None
    if run.checkpoint is not None:
        from ..training.checkpoint import FitCheckpoint, pairs_digest

        key = dict(
            run.specs(),
            seed=run.seed,
            device=dev.type,
            n_users=data.n_users,
            n_items=data.n_items,
            pairs=pairs_digest(data.train, data.valid, data.test),
        )
        ck = FitCheckpoint(run.checkpoint, key)
    res = train_loop(
        runner,
        data,
        epochs=run.epochs,
        eval_every=ev.every,
        topk=ev.ks,
        eval_on=splits,
        monitor=monitor,
        patience=ev.patience,
        callbacks=callbacks,
        progress=run.progress,
        desc=f"{label} {name}",
        checkpoint=ck,
    )
    scores = _score_matrix(net)
    eu, ei = _embeddings(net)
    config = _torch_config(run, name, n_neg, m_extra, cfg, dev, data.n_items)
    return FitResult(
        history=res["history"],
        best_epoch=res["best_epoch"],
        user_emb=eu,
        item_emb=ei,
        scores=scores,
        engine="torch",
        specs=run.specs(),
        config=config,
        seconds=res["seconds"],
        model=net,
        resumed_from=res["resumed_from"],
    )


@torch.no_grad()
def _embeddings(model: nn.Module) -> tuple[np.ndarray, np.ndarray]:
    """The embeddings that score (LightGCN's propagated ones) as numpy arrays."""
    eu, ei = model.propagate() if isinstance(model, LightGCN) else model.scoring_embeddings()
    return eu.detach().cpu().numpy().copy(), ei.detach().cpu().numpy().copy()


def _torch_config(
    run: Run, name: str, n_neg: int, m_extra: int, cfg: dict[str, float], dev, n_items: int
) -> dict[str, Any]:
    """The mini-batch trainer's record of a run's settings (the specs as flat keys; a user's object by class name)."""
    spec, s, opt = run.model, run.sampler, run.optimizer
    kinds = {
        S.RNS: "rns",
        S.PNS: "pns",
        S.DNS: "dns",
        S.BNS: "bns",
        S.AOBPR: "aobpr",
        S.SRNS: "srns",
        S.SharedUniform: "shared_uniform",
        S.CatalogueUniform: "catalogue_uniform",
    }
    sampler = kinds.get(type(s), type(s).__name__)
    if not isinstance(opt, (S.SGD, S.Adam)):
        optimizer = getattr(opt, "__name__", type(opt).__name__)
        opt_cfg: dict[str, Any] = dict(batch_size=run.batch_size, optimizer=optimizer)
    else:
        opt_cfg = dict(
            batch_size=opt.batch_size,
            optimizer="adam" if isinstance(opt, S.Adam) else "sgd",
            lr=opt.lr,
            weight_decay=opt.weight_decay,
            reg=opt.penalty,
        )
    return dict(
        loss=name,
        model="lightgcn" if isinstance(spec, S.LightGCN) else "mf",
        n_layers=spec.layers if isinstance(spec, S.LightGCN) else 0,
        dim=spec.dim,
        **(
            {"similarity": spec.similarity}
            if isinstance(spec, S.MF) and spec.similarity != "dot"
            else {}
        ),
        **(
            {"init_std": spec.init_std}
            if isinstance(spec, S.MF) and spec.init_std is not None
            else {}
        ),
        **({"dropout": spec.dropout} if isinstance(spec, S.MF) and spec.dropout else {}),
        epochs=run.epochs,
        **opt_cfg,
        sampler=sampler,
        **({"candidates": s.candidates} if isinstance(s, (S.BNS, S.DNS)) else {}),
        **({"bns_f_sample": s.f_sample} if isinstance(s, S.BNS) and s.f_sample is not None else {}),
        **({"pns_power": s.power} if isinstance(s, S.PNS) else {}),
        **({"rns_on_device": True} if isinstance(s, S.RNS) and s.on_device else {}),
        **(
            {"catalogue_on_device": True}
            if isinstance(s, S.CatalogueUniform) and s.on_device
            else {}
        ),
        **(
            {"rank_scale": s.rank_scale if s.rank_scale is not None else 0.05 * n_items}
            if isinstance(s, S.AOBPR)
            else {}
        ),
        **(
            {f"srns_{f.name}": getattr(s, f.name) for f in S.fields(s)}
            if isinstance(s, S.SRNS)
            else {}
        ),
        **(
            {"lr_milestones": list(opt.milestones), "lr_gamma": opt.gamma}
            if isinstance(opt, (S.SGD, S.Adam))
            else {}
        ),
        **(
            {"max_grad_norm": opt.max_grad_norm}
            if isinstance(opt, (S.SGD, S.Adam)) and opt.max_grad_norm is not None
            else {}
        ),
        negatives=n_neg,
        extra_positives=m_extra,
        rng=run.seed,  # the run's integer seed, under the keyword's name
        device=str(dev),
        **cfg,
    )
