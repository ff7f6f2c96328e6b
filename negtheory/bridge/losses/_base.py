"""What the loss modules share: in-batch logits, the call forms, reduction, the docstring templates (private).

Each loss of :mod:`negtheory.bridge.losses` is a subclass of :class:`_PairLoss` (contrastive
defaults: cosine / t) or :class:`_PairwiseLoss` (raw scores) in a file of its own.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from ..._docstrings import docstring
from ..._validation import flag, real_scalar
from .. import functional as Fn

if TYPE_CHECKING:
    from collections.abc import Callable

    from torch import Tensor

__all__ = ["pair_logits"]

_HALF = (torch.float16, torch.bfloat16)

# the documentation the loss classes share, written once (see negtheory._docstrings)
_LOGITS_PARAMS = """
pos : Tensor, shape [A]
    Positive logits (e.g. from :meth:`logits`).
neg : Tensor, shape [A, N]
    Negative logits."""
_LOSS_RETURNS = """
Returns
-------
Tensor
    A scalar for ``reduction`` "mean" / "sum", shape [A] for "none"."""
_doc = docstring(
    logits_params=_LOGITS_PARAMS,
    loss_returns=_LOSS_RETURNS,
    from_logits="Parameters\n----------" + _LOGITS_PARAMS + "\n" + _LOSS_RETURNS,
    contrastive_params="""
        temperature : float > 0, default 0.5
            Divides the similarities (logit = similarity / temperature).
        reduction : {"mean", "sum", "none"}, default "mean"
            Mean or sum over the anchors (or positive pairs), or "none" for the per-anchor losses.
        normalize : bool, default True
            L2-normalise the embeddings (cosine similarity, logits in [-1/t, 1/t]).
        symmetric : bool, optional, keyword-only
            In-batch arrangement: both views as anchors (2B anchors, the default) or only ``anchor``
            (B anchors). Ignored with explicit negatives or labels.""",
    pairwise_params="""
        temperature : float > 0, default 1.0
            Divides the scores (1.0: raw dot products).
        reduction : {"mean", "sum", "none"}, default "mean"
            Mean or sum over the anchors, or "none" for the per-anchor losses.
        normalize : bool, default False
            L2-normalise the embeddings (cosine similarity) first.
        symmetric : bool, optional, keyword-only
            In-batch arrangement (default False: the other B - 1 positives of the batch are each
            anchor's negatives; True: the SimCLR arrangement). Ignored with explicit negatives.""",
    batch_example="""
        >>> import torch
        >>> g = torch.Generator().manual_seed(0)
        >>> a, p = torch.randn(8, 4, generator=g), torch.randn(8, 4, generator=g)""",
)


def _work(t):
    """Half precision -> float32 (normalise and multiply in float32); other dtypes unchanged."""
    return t.float() if t.dtype in _HALF else t


def _check_temperature(temperature) -> float:
    return real_scalar("temperature", temperature, 0.0, lo_open=True)


def _check_reduction(reduction) -> str:
    if not isinstance(reduction, str) or reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction


def _in_batch_operands(anchor, positive, temperature, normalize, symmetric):
    """(left, right) with sim = left @ right.T the in-batch logits (float32 for half inputs).

    left carries the 1 / temperature; symmetric: both are cat([anchor, positive]).
    """
    if anchor.ndim != 2 or positive.shape != anchor.shape:
        raise ValueError(
            f"anchor and positive must both have shape [B, D], got {tuple(anchor.shape)} and {tuple(positive.shape)}"
        )
    a, p = _work(anchor), _work(positive)
    inv_t = 1.0 / temperature
    if symmetric:
        z = torch.cat([a, p], dim=0)
        if normalize:
            z = F.normalize(z, dim=-1)
        return z * inv_t, z
    if anchor.shape[0] < 2:
        raise ValueError("in-batch negatives need a batch of at least 2 pairs")
    if normalize:
        a, p = F.normalize(a, dim=-1), F.normalize(p, dim=-1)
    return a * inv_t, p


def _in_batch_pos(left, right, symmetric):
    """The positive logits (the partner entries of sim = left @ right.T) as row-wise dot products.

    Taking them as views of sim instead (``sim.diagonal(b)``) makes autograd build a full
    [A, A] zero gradient for every diagonal in the backward pass (two or three A x A fills and
    allocations per step, about a tenth of an InfoNCE step at B = 1024 on the CPU).
    """
    if symmetric:
        b = left.shape[0] // 2
        return torch.cat([(left[:b] * right[b:]).sum(-1), (left[b:] * right[:b]).sum(-1)])
    return (left * right).sum(-1)


def _exact_partner(pos, entries):
    """``pos`` with the value of the matmul's own partner ``entries`` and the gradient of ``pos``.

    When the positive stays in the row (InfoNCE), the loss is logsumexp(row) - pos, which is >= 0
    only if pos is the row's entry to the last bit; the dot product can differ from the matmul's
    entry by an ulp. The correction is detached, so no gradient goes through the diagonals.
    """
    return pos + (entries.detach() - pos.detach())


def _mask_view(sim):
    """The view of the similarity matrix to write the -inf masks into.

    In eager mode the detached alias: every loss gives a masked (-inf) entry a zero gradient
    by itself (exp(-inf) = 0, softplus'(-inf) = 0, or an explicit ``where``), and the matmul's
    backward does not read its output, so autograd need not record the writes (recording them
    clones the full [A, A] gradient once per write in the backward pass). Under
    ``torch.compile`` the writes are recorded as usual.
    """
    return sim if torch.compiler.is_compiling() else sim.detach()


def _off_diagonal(x):
    """[..., n, n] -> [..., n, n - 1] without the diagonal, row order kept (views and one copy)."""
    n = x.shape[-1]
    flat = x.reshape(*x.shape[:-2], n * n)
    return (
        flat[..., 1:]
        .reshape(*x.shape[:-2], n - 1, n + 1)[..., :-1]
        .reshape(*x.shape[:-2], n, n - 1)
    )


def pair_logits(
    anchor, positive, negatives=None, *, temperature=1.0, normalize=False, symmetric=True
):
    r"""Logits s+ (shape [A]) and s_i (shape [A, N]) of a batch of embeddings.

    Parameters
    ----------
    anchor, positive : Tensor, shape [B, D]
        Embeddings of the B anchors and of their positives (row b of ``positive`` is the
        positive of row b of ``anchor``); any floating dtype.
    negatives : Tensor, shape [M, D] (shared) or [B, M, D] (paired), optional
        None: in-batch negatives, symmetric (A = 2B anchors, N = 2B - 2: row i holds every
        embedding of ``cat([anchor, positive])`` but i and its partner, in order) or not (A = B,
        N = B - 1: the other anchors' positives). Otherwise A = B and N = M.
    temperature : float > 0, default 1.0
        Divides every similarity (logit = similarity / temperature).
    normalize : bool, default False
        L2-normalise the embeddings first (cosine similarity).
    symmetric : bool, default True
        Only for in-batch negatives: both views as anchors (True) or only ``anchor`` (False).

    Returns
    -------
    pos : Tensor, shape [A]
        The positive logits s+.
    neg : Tensor, shape [A, N]
        The negative logits s_i (float32 for half-precision inputs).

    Notes
    -----
    One matmul, then the in-batch negatives are cut out by index arithmetic (the off-diagonal
    part of each B x B block, as strided views and one copy; no boolean-mask gather); the
    positives are row-wise dot products of the same operands (no gradient through diagonals). Half
    precision inputs are normalised and multiplied in float32; the logits are float32.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.losses import pair_logits
    >>> a, p = torch.eye(3), torch.eye(3)
    >>> pos, neg = pair_logits(a, p)
    >>> tuple(pos.shape), tuple(neg.shape)
    ((6,), (6, 4))
    """
    temperature = _check_temperature(temperature)
    if negatives is None:
        left, right = _in_batch_operands(anchor, positive, temperature, normalize, symmetric)
        sim = left @ right.T
        pos = _in_batch_pos(left, right, symmetric)
        b = anchor.shape[0]
        if symmetric:
            # blocks [row half, column half, i, j]; drop j == i in each block (self and partner)
            blocks = sim.view(2, b, 2, b).permute(0, 2, 1, 3)
            neg = _off_diagonal(blocks).permute(0, 2, 1, 3).reshape(2 * b, 2 * b - 2)
            return pos, neg
        return pos, _off_diagonal(sim)
    if anchor.ndim != 2 or positive.shape != anchor.shape:
        raise ValueError(
            f"anchor and positive must both have shape [B, D], got {tuple(anchor.shape)} and {tuple(positive.shape)}"
        )
    anchor, positive, negatives = _work(anchor), _work(positive), _work(negatives)
    if normalize:
        anchor = F.normalize(anchor, dim=-1)
        positive = F.normalize(positive, dim=-1)
        negatives = F.normalize(negatives, dim=-1)
    b = anchor.shape[0]
    pos = (anchor * positive).sum(-1) / temperature
    if negatives.ndim == 2:
        neg = anchor @ negatives.T / temperature
    elif negatives.ndim == 3 and negatives.shape[0] == b:
        neg = torch.einsum("bd,bmd->bm", anchor, negatives) / temperature
    else:
        raise ValueError(
            f"negatives must have shape [M, D] (shared) or [B, M, D] (paired), got {tuple(negatives.shape)}"
        )
    return pos, neg


@_doc
class _PairLoss(nn.Module):
    """Shared machinery: constructor checks, in-batch / explicit / labelled calls, reduction.

    Subclasses implement ``_core(pos, neg, n, masked)`` -- the per-anchor loss on float32 or
    float64 logits where ``neg`` may hold -inf (masked) entries and ``n`` counts the valid ones
    (an int, or a per-row tensor in the labelled call) -- and ``loss_from_logits``.
    """

    symmetric = True
    _functional: Callable[
        ..., Tensor
    ]  # the loss of negtheory.bridge.functional that the module wraps
    _hyper: tuple[
        str, ...
    ] = ()  # the loss's own hyper-parameters (the functional's keywords), first in repr
    _keep_positive_in_row = (
        False  # InfoNCE: the in-batch row may keep the positive (logsumexp of all)
    )

    def __init__(self, temperature=0.5, reduction="mean", normalize=True, *, symmetric=None):
        super().__init__()
        self.temperature = _check_temperature(temperature)
        self.reduction = _check_reduction(reduction)
        self.normalize = flag("normalize", normalize)
        self.symmetric = type(self).symmetric if symmetric is None else flag("symmetric", symmetric)

    # -- logits ---------------------------------------------------------------------------------
    def logits(self, anchor, positive, negatives=None):
        """Logits ``(pos_logits, neg_logits)`` as fed to the functional loss (for probes).

        Calls :func:`pair_logits` with this module's ``temperature``, ``normalize`` and
        ``symmetric``.

        Parameters
        ----------
        anchor, positive : Tensor, shape [B, D]
            Embeddings of the anchors and of their positives.
        negatives : Tensor, shape [M, D] (shared) or [B, M, D] (paired), optional
            Explicit negatives; None: in-batch negatives.

        Returns
        -------
        pos : Tensor, shape [A]
            Positive logits (A = 2B for symmetric in-batch negatives, else B).
        neg : Tensor, shape [A, N]
            Negative logits (N = 2B - 2 or B - 1 in-batch, else M).
        """
        return pair_logits(
            anchor,
            positive,
            negatives,
            temperature=self.temperature,
            normalize=self.normalize,
            symmetric=self.symmetric,
        )

    # -- forward --------------------------------------------------------------------------------
    def forward(self, anchor, positive=None, negatives=None, *, labels=None):
        """Loss of a batch: ``(anchor, positive[, negatives])`` or ``(embeddings, labels)``.

        The second argument is read as labels when it is a 1-D integer (or bool) tensor, or
        when ``labels=`` is given (then ``positive`` must be None). A NaN or +-inf anywhere in
        the embeddings makes the loss NaN (never a finite number hiding it).

        Parameters
        ----------
        anchor : Tensor, shape [B, D]
            Anchor embeddings; with labels, the M embeddings of shape [M, D].
        positive : Tensor, shape [B, D], optional
            Positive of each anchor (row b of ``anchor``); or, as a 1-D integer tensor, the labels.
        negatives : Tensor, shape [M, D] (shared) or [B, M, D] (paired), optional
            Explicit negatives; None: in-batch negatives (see the module notes).
        labels : Tensor, shape [M], optional, keyword-only
            Integer class labels of ``anchor``: every pair (i, j != i) of equal labels is a
            positive pair, the differently-labelled embeddings its negatives.

        Returns
        -------
        Tensor
            The loss reduced by ``reduction``: a scalar for "mean" / "sum"; for "none" one value
            per anchor (2B symmetric in-batch, else B) or per positive pair (labels).
        """
        loss = self._forward(anchor, positive, negatives, labels=labels)
        guard = None
        for t in (anchor, positive, negatives):
            if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel():
                lo, hi = torch.aminmax(t.detach())
                g = lo * 0.0 + hi * 0.0
                guard = g if guard is None else guard + g
        return loss if guard is None else loss + guard.to(loss.dtype)

    def _forward(self, anchor, positive=None, negatives=None, *, labels=None):
        if (
            labels is None
            and positive is not None
            and positive.ndim == 1
            and not positive.is_floating_point()
        ):
            positive, labels = None, positive
        if labels is not None:
            if positive is not None or negatives is not None:
                raise ValueError(
                    "labels: call loss(embeddings, labels), without positive or negatives"
                )
            return self._forward_labels(anchor, labels)
        if positive is None:
            raise ValueError("positive is required (or call loss(embeddings, labels))")
        out_dtype = torch.promote_types(anchor.dtype, positive.dtype)
        if negatives is not None:
            pos, neg = self.logits(anchor, positive, negatives)
            return self._reduce(self._core(pos, neg, neg.shape[-1], False), out_dtype)
        b = anchor.shape[0]
        left, right = _in_batch_operands(
            anchor, positive, self.temperature, self.normalize, self.symmetric
        )
        sim = left @ right.T
        pos = _in_batch_pos(left, right, self.symmetric)
        if self.symmetric:
            if b < 1:
                raise ValueError("in-batch negatives need at least one pair")
            masked = _mask_view(sim)
            masked.diagonal().fill_(-math.inf)  # in place on the matmul output: no gather, no copy
            n = 2 * b - 2
            if self._keep_positive_in_row:
                pos = _exact_partner(pos, torch.cat([masked.diagonal(b), masked.diagonal(-b)]))
                return self._reduce(Fn._lse(sim) - pos, out_dtype)
            masked.diagonal(b).fill_(-math.inf)
            masked.diagonal(-b).fill_(-math.inf)
        else:
            n = b - 1
            if self._keep_positive_in_row:
                pos = _exact_partner(pos, _mask_view(sim).diagonal())
                return self._reduce(Fn._lse(sim) - pos, out_dtype)
            _mask_view(sim).diagonal().fill_(-math.inf)
        return self._reduce(self._core(pos, sim, n, True), out_dtype)

    def _forward_labels(self, embeddings, labels):
        if embeddings.ndim != 2:
            raise ValueError(f"embeddings must have shape [M, D], got {tuple(embeddings.shape)}")
        if labels.ndim != 1 or labels.shape[0] != embeddings.shape[0] or labels.is_floating_point():
            raise ValueError(
                f"labels must be an integer tensor of shape [{embeddings.shape[0]}], got {labels.dtype} {tuple(labels.shape)}"
            )
        out_dtype = embeddings.dtype
        z = _work(embeddings)
        if self.normalize:
            z = F.normalize(z, dim=-1)
        sim = (z * (1.0 / self.temperature)) @ z.T
        labels = labels.to(sim.device)
        same = labels[:, None] == labels[None, :]
        not_neg = same
        pos_mask = same.clone()
        pos_mask.fill_diagonal_(False)
        n_row = (~not_neg).sum(dim=1)
        ai, pj = torch.nonzero(pos_mask & (n_row > 0)[:, None], as_tuple=True)
        if ai.numel() == 0:  # no positive pair with a negative: zero loss, still in the graph
            zero = (embeddings * 0).sum()
            return zero if self.reduction != "none" else zero.reshape(1)[:0]
        pos = sim[ai, pj]
        neg = sim.masked_fill(not_neg, -math.inf)[ai]
        n = n_row[ai]
        if bool((n == n[0]).all()):
            n = int(n[0])
        return self._reduce(self._core(pos, neg, n, True), out_dtype)

    def _reduce(self, loss, out_dtype):
        if self.reduction == "mean":
            loss = loss.mean()
        elif self.reduction == "sum":
            loss = loss.sum()
        return loss.to(out_dtype) if out_dtype in _HALF else loss

    def _core(self, pos, neg, n, masked):  # pragma: no cover - abstract
        raise NotImplementedError

    def loss_from_logits(self, pos: Tensor, neg: Tensor, extra: Tensor | None = None) -> Tensor:
        """The loss on precomputed logits, with this module's hyper-parameters and reduction.

        The functional loss the class wraps (``_functional``, named in the class notes: e.g.
        :func:`~negtheory.bridge.functional.dcl` for :class:`DebiasedContrastiveLoss`), called
        with the module's own hyper-parameters (``_hyper``) and ``reduction``. This is the call
        :func:`negtheory.training.fit` makes on the model's scores divided by ``temperature``.

        Parameters
        ----------
        pos : Tensor, shape [A]
            Positive logits (e.g. from :meth:`logits`).
        neg : Tensor, shape [A, N]
            Negative logits.
        extra : Tensor, shape [A, M], optional
            The logits of M extra positives per anchor (the debiased losses' estimate of the
            positive term, thesis eq. 5.17 and 6.47; the other losses take none).

        Returns
        -------
        Tensor
            A scalar for ``reduction`` "mean" / "sum", shape [A] for "none".
        """
        own = {name: getattr(self, name) for name in self._hyper}
        if extra is not None:
            own.update(self._extra_positives(pos, extra))
        return self._functional(pos, neg, reduction=self.reduction, **own)

    def _extra_positives(self, pos: Tensor, extra: Tensor) -> dict:
        raise ValueError(f"{type(self).__name__} takes no extra positives")

    def extra_repr(self):
        """The hyper-parameters shown by ``repr(module)``.

        Returns
        -------
        str
            Comma-separated ``name=value`` pairs (the loss's own, then temperature, reduction,
            normalize and symmetric).
        """
        parts = [
            f"temperature={self.temperature}",
            f"reduction={self.reduction!r}",
            f"normalize={self.normalize}",
            f"symmetric={self.symmetric}",
        ]
        return ", ".join([f"{name}={getattr(self, name)}" for name in self._hyper] + parts)


def _check_floor(floor, temperature, normalize):
    if floor == "auto":
        return math.exp(-1.0 / temperature) if normalize else None
    if floor is None:
        return None
    return real_scalar("floor", floor, 0.0, lo_open=True)


class _PairwiseLoss(_PairLoss):
    symmetric = False

    def __init__(self, temperature=1.0, reduction="mean", normalize=False, *, symmetric=None):
        super().__init__(temperature, reduction, normalize, symmetric=symmetric)
