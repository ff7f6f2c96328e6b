r"""``nn.Module`` wrappers of :mod:`negtheory.bridge.functional` on embeddings.

Conventions follow the contrastive-learning ecosystem (SimCLR / DCL / HCL code, lightly):

* ``temperature`` t divides the similarities; ``normalize=True`` (the default of the contrastive
  losses) L2-normalises the embeddings, so the similarity is the cosine in [-1, 1] and the
  logits lie in [-1/t, 1/t];
* ``forward(anchor, positive)`` with no ``negatives`` uses **in-batch negatives**: for the
  contrastive losses the symmetric SimCLR/NT-Xent arrangement of the released DCL/HCL code —
  both views of all B pairs form 2B anchors, each with its own positive and the other 2B - 2
  embeddings as negatives (N = 510 at B = 256, the thesis's image setting); for the pairwise
  recommendation losses the other B - 1 positives of the batch;
* explicit ``negatives`` are either **shared**, shape [M, D] (every anchor against the same M
  embeddings), or **paired**, shape [B, M, D] (M negatives per anchor).

* ``forward(embeddings, labels)`` (the pytorch-metric-learning call): every pair (i, j != i)
  with the same label is a positive, with anchor i's differently-labelled embeddings as its
  negatives (the NT-Xent arrangement of PML); the loss is averaged over the positive pairs.
  ``forward(torch.cat([a, p]), torch.cat([k, k]))`` with ``k = arange(B)`` equals
  ``forward(a, p)``.

The debiased loss of Chuang et al. is :class:`DebiasedContrastiveLoss` (lightly's ``DCLLoss`` is
the different *decoupled* contrastive loss). Each module's ``logits(...)`` returns the
(pos_logits [A], neg_logits [A, N]) pair it feeds to its functional, for probes.

Speed and precision: in-batch logits come from one matmul of the (normalised) embeddings; the
forward pass masks the excluded entries (self, and the partner for the debiased losses) with
-inf in place instead of gathering the negatives, and the losses count the masked entries out.
Half-precision embeddings (float16, bfloat16) are normalised and multiplied in float32 (the
loss is cast back), so their gradients are those of the float32 computation. Hyper-parameters
are validated in the constructor (``ValueError`` naming the parameter); nothing here changes
torch's or numba's thread settings, and every module works under ``torch.compile``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from .._docstrings import docstring
from .._validation import flag, real_scalar
from ..estimators import _check_abt
from ..training import specs as _S  # the losses' hyper-parameter defaults, one set shared with the specs
from . import functional as Fn

if TYPE_CHECKING:
    from collections.abc import Callable

    from torch import Tensor

__all__ = ["InfoNCELoss", "DebiasedContrastiveLoss", "HardContrastiveLoss", "BayesianContrastiveLoss"]  # contrastive
__all__ += ["BPRLoss", "DPLLoss", "BCELoss", "CosineContrastiveLoss", "RelaxedSoftmaxLoss", "pair_logits"]  # pairwise
__all__ += ["build_loss"]  # the loss module of a loss spec

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
    return flat[..., 1:].reshape(*x.shape[:-2], n - 1, n + 1)[..., :-1].reshape(*x.shape[:-2], n, n - 1)


def pair_logits(anchor, positive, negatives=None, *, temperature=1.0, normalize=False, symmetric=True):
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
    >>> from negtheory.bridge.modules import pair_logits
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
        raise ValueError(f"negatives must have shape [M, D] (shared) or [B, M, D] (paired), got {tuple(negatives.shape)}")
    return pos, neg


@_doc
class _PairLoss(nn.Module):
    """Shared machinery: constructor checks, in-batch / explicit / labelled calls, reduction.

    Subclasses implement ``_core(pos, neg, n, masked)`` -- the per-anchor loss on float32 or
    float64 logits where ``neg`` may hold -inf (masked) entries and ``n`` counts the valid ones
    (an int, or a per-row tensor in the labelled call) -- and ``loss_from_logits``.
    """

    symmetric = True
    _functional: Callable[..., Tensor]  # the loss of negtheory.bridge.functional that the module wraps
    _hyper: tuple[str, ...] = ()  # the loss's own hyper-parameters (the functional's keywords), first in repr
    _keep_positive_in_row = False  # InfoNCE: the in-batch row may keep the positive (logsumexp of all)

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
            anchor, positive, negatives, temperature=self.temperature, normalize=self.normalize, symmetric=self.symmetric
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
        if labels is None and positive is not None and positive.ndim == 1 and not positive.is_floating_point():
            positive, labels = None, positive
        if labels is not None:
            if positive is not None or negatives is not None:
                raise ValueError("labels: call loss(embeddings, labels), without positive or negatives")
            return self._forward_labels(anchor, labels)
        if positive is None:
            raise ValueError("positive is required (or call loss(embeddings, labels))")
        out_dtype = torch.promote_types(anchor.dtype, positive.dtype)
        if negatives is not None:
            pos, neg = self.logits(anchor, positive, negatives)
            return self._reduce(self._core(pos, neg, neg.shape[-1], False), out_dtype)
        b = anchor.shape[0]
        left, right = _in_batch_operands(anchor, positive, self.temperature, self.normalize, self.symmetric)
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


@_doc
class InfoNCELoss(_PairLoss):
    r"""InfoNCE / NT-Xent loss on embeddings (Wu et al. (Rethinking InfoNCE) eq. 1).

    The biased estimator of Liu Bin's thesis eq. 6.46, :func:`~negtheory.bridge.functional.infonce`
    on the logits s = sim / temperature of :func:`pair_logits`:

    .. math:: \ell = -\log\frac{e^{s^+}}{e^{s^+} + \sum_{i=1}^N e^{s_i}}.

    Parameters
    ----------
    %(contrastive_params)s

    Examples
    --------
    %(batch_example)s
    >>> from negtheory.bridge import InfoNCELoss
    >>> round(float(InfoNCELoss(temperature=0.5)(a, p)), 4)
    3.3247
    >>> tuple(InfoNCELoss(reduction="none")(a, p).shape)        # 2B anchors, in-batch negatives
    (16,)
    >>> InfoNCELoss(temperature=0.1, symmetric=False)
    InfoNCELoss(temperature=0.1, reduction='mean', normalize=True, symmetric=False)
    """

    _functional = staticmethod(Fn.infonce)
    _keep_positive_in_row = True

    def _core(self, pos, neg, n, masked):
        return Fn._infonce_core(pos, neg)


@_doc
class DebiasedContrastiveLoss(_PairLoss):
    r"""Debiased contrastive loss of Chuang et al. 2020 (Liu Bin's thesis eq. 6.47), on embeddings.

    :func:`~negtheory.bridge.functional.dcl` on the logits of :func:`pair_logits` (the anchor's
    own positive as p-bar, as in the released code):

    .. math::
        \ell = -\log\frac{e^{s^+}}{e^{s^+} + N\hat\theta_{DCL}}, \qquad
        N\hat\theta_{DCL} = \max\Big(\frac{1}{\tau^-}\Big(\sum_{i=1}^N e^{s_i} - N\tau^+ e^{s^+}\Big),\; N\,\mathrm{floor}\Big).

    Parameters
    ----------
    tau_plus : float in (0, 1), default 0.1
        Class prior tau+ (0.1 for 10 balanced classes).
    temperature, reduction, normalize, symmetric
        See :class:`InfoNCELoss`.
    floor : "auto", float > 0 or None
        Lower clamp of theta-hat (score units, the same meaning as the functional's ``floor``).
        "auto" (default): e^{-1/t} when ``normalize`` -- the released code's N e^{-1/t} clamp on
        N theta, the smallest score of a cosine similarity -- else None (no clamp beyond the
        dtype's smallest positive number, the functional's default). ``repr`` shows the value.

    Examples
    --------
    %(batch_example)s
    >>> from negtheory.bridge import DebiasedContrastiveLoss
    >>> loss = DebiasedContrastiveLoss(tau_plus=0.1, temperature=0.5)(a, p)
    >>> round(float(loss), 4)
    3.348
    >>> n = torch.randn(8, 5, 4, generator=g)                     # 5 explicit negatives per anchor
    >>> tuple(DebiasedContrastiveLoss(reduction="none")(a, p, n).shape)
    (8,)
    """

    _hyper: tuple[str, ...] = ("tau_plus", "floor")
    _functional: Callable[..., Tensor] = staticmethod(Fn.dcl)

    def _extra_positives(self, pos, extra):
        # the positive term's mean over the anchor's own positive and its M extra ones
        return {"pos_extra_logits": torch.cat([pos[:, None], extra], dim=1)}

    def __init__(
        self,
        tau_plus: float = _S.DCL.tau_plus,
        temperature: float = 0.5,
        reduction: str = "mean",
        normalize: bool = True,
        floor: float | str | None = "auto",
        *,
        symmetric: bool | None = None,
    ):
        super().__init__(temperature, reduction, normalize, symmetric=symmetric)
        self.tau_plus = real_scalar("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True)
        self.floor = _check_floor(floor, self.temperature, self.normalize)

    def _core(self, pos, neg, n, masked):
        return Fn._dcl_core(pos, neg, n, self.tau_plus, pos, self.floor)


@_doc
class HardContrastiveLoss(DebiasedContrastiveLoss):
    r"""Hard-negative contrastive loss of Robinson et al. 2021 on embeddings.

    :func:`~negtheory.bridge.functional.hcl` on the logits of :func:`pair_logits`: DCL (Liu Bin's
    thesis eq. 6.47) with the negatives reweighted by e^{beta s_i},

    .. math::
        N\hat\theta_{HCL} = \frac{N}{\tau^-}\Big(\frac{\sum_i e^{(\beta+1)s_i}}{\sum_i e^{\beta s_i}}
        - \tau^+ e^{s^+}\Big), \text{ clamped below at } N\,\mathrm{floor}.

    Parameters
    ----------
    tau_plus : float in (0, 1), default 0.1
        Class prior tau+.
    beta : float >= 0, default 1.0
        Concentration on hard negatives (0 gives DCL).
    temperature, reduction, normalize, floor, symmetric
        See :class:`DebiasedContrastiveLoss`.

    Examples
    --------
    %(batch_example)s
    >>> from negtheory.bridge import HardContrastiveLoss
    >>> round(float(HardContrastiveLoss(tau_plus=0.1, beta=1.0)(a, p)), 4)
    3.9588
    """

    _hyper = ("tau_plus", "beta", "floor")
    _functional = staticmethod(Fn.hcl)

    def __init__(
        self,
        tau_plus: float = _S.HCL.tau_plus,
        beta: float = _S.HCL.beta,
        temperature: float = 0.5,
        reduction: str = "mean",
        normalize: bool = True,
        floor: float | str | None = "auto",
        *,
        symmetric: bool | None = None,
    ):
        super().__init__(tau_plus, temperature, reduction, normalize, floor, symmetric=symmetric)
        self.beta = real_scalar("beta", beta, 0.0)

    def _core(self, pos, neg, n, masked):
        return Fn._hcl_core(pos, neg, n, self.tau_plus, self.beta, pos, self.floor)


@_doc
class BayesianContrastiveLoss(_PairLoss):
    r"""Bayesian contrastive loss (Liu Bin's thesis ch. 6, eq. 6.31 and 6.48) on embeddings.

    :func:`~negtheory.bridge.functional.bcl` on the logits of :func:`pair_logits`: eq. 6.31,

    .. math:: \ell = -\log\frac{e^{s^+}}{e^{s^+} + \sum_{i=1}^N \omega_i e^{s_i}},

    with the importance weights omega_i of eq. 6.25 computed from the ranks of the anchor's
    negative logits (:func:`~negtheory.bridge.functional.bcl_log_weights`).

    Parameters
    ----------
    alpha : float in [1/2, 1], default 0.9
        Encoder quality P(x_TN < x_FN) (eq. 6.21): 1/2 a guessing encoder, 1 a perfect one.
    beta : float in [0, 1], default 0.5
        Hardness level (eq. 6.22): share of hard true negatives in the target population;
        1/2 keeps the true-negative law (omega = P(TN | x) / tau^-). alpha = beta = 1 is rejected.
    tau_plus : float in (0, 1), default 0.1
        Class prior tau+ (0.1 for 10 balanced classes).
    temperature, reduction, normalize, symmetric
        See :class:`InfoNCELoss`.
    normalize_weights : bool, default False
        Self-normalised estimator (the functional's ``normalize_weights``).
    form : {"thesis", "released"}, keyword-only
        Eq. 6.31 (default), or the released recommendation code's
        :math:`-\ln\sigma(s^+ - \sum_i \omega_i e^{s_i})` (in :meth:`loss_from_logits`; the
        embedding call computes eq. 6.31).

    Examples
    --------
    %(batch_example)s
    >>> from negtheory.bridge import BayesianContrastiveLoss
    >>> round(float(BayesianContrastiveLoss(alpha=0.9, beta=0.5, tau_plus=0.1)(a, p)), 4)
    3.1787
    """

    _hyper = ("alpha", "beta", "tau_plus", "normalize_weights")
    _functional = staticmethod(Fn.bcl)

    def __init__(
        self,
        alpha: float = _S.BCL.alpha,
        beta: float = _S.BCL.beta,
        tau_plus: float = _S.BCL.tau_plus,
        temperature: float = 0.5,
        reduction: str = "mean",
        normalize: bool = True,
        normalize_weights: bool = False,
        *,
        symmetric: bool | None = None,
        form: str = _S.BCL.form,
    ):
        super().__init__(temperature, reduction, normalize, symmetric=symmetric)
        self.alpha, self.beta, self.tau_plus, _ = _check_abt(alpha, beta, tau_plus)
        self.normalize_weights = flag("normalize_weights", normalize_weights)
        if form not in ("thesis", "released"):
            raise ValueError(f"form must be 'thesis' or 'released', got {form!r}")
        if form == "released" and normalize_weights:
            raise ValueError("normalize_weights needs form='thesis' (the released form has no self-normalised estimator)")
        self.form = form

    def loss_from_logits(self, pos: Tensor, neg: Tensor, extra: Tensor | None = None) -> Tensor:
        r"""The loss on precomputed logits (:meth:`_PairLoss.loss_from_logits`; form "released" below).

        ``form="released"``: the released recommendation code's
        :math:`-\ln\sigma(s^+ - \sum_i \omega_i e^{s_i})` with the weights of eq. 6.25
        (:func:`~negtheory.bridge.functional.bcl_log_weights`), averaged over the anchors.

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
        if self.form == "thesis":
            return super().loss_from_logits(pos, neg, extra)
        if extra is not None:
            raise ValueError("BayesianContrastiveLoss takes no extra positives")
        logw = Fn.bcl_log_weights(neg, self.alpha, self.beta, self.tau_plus)
        per = nn.functional.softplus(torch.exp(torch.logsumexp(neg + logw, dim=-1)) - pos)
        return per if self.reduction == "none" else (per.sum() if self.reduction == "sum" else per.mean())

    def _core(self, pos, neg, n, masked):
        return Fn._bcl_core(pos, neg, n, self.alpha, self.beta, self.tau_plus, self.normalize_weights)


class _PairwiseLoss(_PairLoss):
    symmetric = False

    def __init__(self, temperature=1.0, reduction="mean", normalize=False, *, symmetric=None):
        super().__init__(temperature, reduction, normalize, symmetric=symmetric)


@_doc
class BPRLoss(_PairwiseLoss):
    r"""BPR loss on embeddings (Liu Bin's thesis eq. 4.1 / 3.29); raw dot products by default.

    :func:`~negtheory.bridge.functional.bpr` on the scores s = <u, i> / temperature of
    :func:`pair_logits`, averaged over each anchor's N negatives:

    .. math:: \ell = \frac1N\sum_{i=1}^N -\log\sigma(s^+ - s_i).

    Parameters
    ----------
    %(pairwise_params)s

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import BPRLoss
    >>> u, i, j = torch.ones(2, 3), torch.ones(2, 3), torch.zeros(2, 1, 3)
    >>> round(float(BPRLoss()(u, i, j)), 4)          # -log sigmoid(3)
    0.0486
    """

    def _core(self, pos, neg, n, masked):
        return Fn._bpr_core(pos, neg, n)

    def loss_from_logits(self, pos: Tensor, neg: Tensor, weight: Tensor | None = None) -> Tensor:
        """BPR on precomputed logits (:func:`~negtheory.bridge.functional.bpr`).

        Parameters
        ----------
        %(logits_params)s
        weight : Tensor, shape [A], optional
            Per-anchor weight, e.g. BPRAC's credence (None: 1).

        %(loss_returns)s
        """
        return Fn.bpr(pos, neg, weight=weight, reduction=self.reduction)


@_doc
class DPLLoss(_PairwiseLoss):
    r"""Debiased pairwise loss (Liu Bin's thesis eq. 5.17-5.18) on embeddings.

    :func:`~negtheory.bridge.functional.dpl` on the scores of :func:`pair_logits`, the anchor's
    own positive standing in for the M extra positives (sigma(0) = 1/2):

    .. math::
        \ell = -\log\max(\hat P_{PN}, \epsilon), \qquad
        \hat P_{PN} = \frac{1}{\tau^-}\Big(\frac1N\sum_{n=1}^N \sigma(s^+ - s_n) - \frac{\tau^+}{2}\Big).

    Parameters
    ----------
    tau_plus : float in (0, 1), default 0.1
        Class prior tau+.
    temperature, reduction, normalize, symmetric
        See :class:`BPRLoss` (defaults: 1.0, "mean", False, False).
    eps : float in (0, 1), default 1e-6
        Clamp of P-hat (it can be <= 0 for finite N).

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import DPLLoss
    >>> u, i, j = torch.ones(2, 3), torch.ones(2, 3), torch.zeros(2, 4, 3)
    >>> round(float(DPLLoss(tau_plus=0.1)(u, i, j)), 4)   # -log((sigmoid(3) - 0.1 / 2) / 0.9): P-hat > 1
    -0.0029
    """

    _hyper = ("tau_plus", "eps")
    _functional = staticmethod(Fn.dpl)

    def _extra_positives(self, pos, extra):
        return {"pos_extra_logits": extra}  # P-hat of the positives from the M extra ones (eq. 5.17)

    def __init__(
        self,
        tau_plus: float = _S.DPL.tau_plus,
        temperature: float = 1.0,
        reduction: str = "mean",
        normalize: bool = False,
        eps: float = _S.DPL.eps,
        *,
        symmetric: bool | None = None,
    ):
        super().__init__(temperature, reduction, normalize, symmetric=symmetric)
        self.tau_plus = real_scalar("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True)
        self.eps = real_scalar("eps", eps, 0.0, 1.0, lo_open=True)

    def _core(self, pos, neg, n, masked):
        return Fn._dpl_core(pos, neg, n, self.tau_plus, None, self.eps, masked)


@_doc
class BCELoss(_PairwiseLoss):
    r"""Sampled binary cross-entropy on embeddings (NCE-style, the negative-sampling textbook chapter).

    :func:`~negtheory.bridge.functional.bce` on the scores of :func:`pair_logits`, with the noise
    ratio k = N (word2vec's sum over the negatives; the chapter's NCE objective, unnumbered):

    .. math:: \ell = -\log\sigma(s^+) - \sum_{i=1}^N \log(1 - \sigma(s_i)).

    Parameters
    ----------
    %(pairwise_params)s

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import BCELoss
    >>> u, i, j = torch.zeros(2, 3), torch.zeros(2, 3), torch.zeros(2, 2, 3)
    >>> round(float(BCELoss()(u, i, j)), 4)           # 3 log 2
    2.0794
    """

    _functional = staticmethod(Fn.bce)

    def _core(self, pos, neg, n, masked):
        return Fn._bce_core(pos, neg, n, None)


@_doc
class CosineContrastiveLoss(_PairwiseLoss):
    r"""Cosine contrastive loss (Mao et al., SimpleX, CIKM 2021) on embeddings.

    :func:`~negtheory.bridge.functional.ccl` on the cosines of :func:`pair_logits`:

    .. math:: \ell = (1 - s^+) + \frac{w}{N}\sum_{i=1}^N \max(0, s_i - m),

    with :math:`\max(0, 1 - s^+)` for the positive term when ``positive_hinge`` (the released
    code's). The defaults are :class:`negtheory.training.CCL`'s.

    Parameters
    ----------
    margin : float in [-1, 1]
        m (default 0.9, the released configuration's).
    negative_weight : float > 0
        w (default 150).
    positive_hinge : bool
        The released code's max(0, 1 - s+) (default False: the paper's 1 - s+).
    temperature : float > 0, default 1.0
        Divides the cosines (CCL has none: keep 1).
    reduction : {"mean", "sum", "none"}, default "mean"
        Mean or sum over the anchors, or "none".
    normalize : bool, default True
        L2-normalise the embeddings (CCL is defined on cosines).
    symmetric : bool, optional, keyword-only
        In-batch arrangement (default False). Ignored with explicit negatives.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import CosineContrastiveLoss
    >>> u, i = torch.tensor([[1.0, 0.0]]), torch.tensor([[1.0, 0.0]])
    >>> j = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]])  # cosines 1 and 0 against the margin 0.9
    >>> round(float(CosineContrastiveLoss(negative_weight=2.0)(u, i, j)), 6)  # 0 + 2 * (0.1 + 0) / 2
    0.1
    """

    _hyper = ("margin", "negative_weight", "positive_hinge")
    _functional = staticmethod(Fn.ccl)

    def __init__(
        self,
        margin: float = _S.CCL.margin,
        negative_weight: float = _S.CCL.negative_weight,
        positive_hinge: bool = _S.CCL.positive_hinge,
        temperature: float = 1.0,
        reduction: str = "mean",
        normalize: bool = True,
        *,
        symmetric: bool | None = None,
    ):
        super().__init__(temperature, reduction, normalize, symmetric=symmetric)
        self.margin = real_scalar("margin", margin, -1.0, 1.0)
        self.negative_weight = real_scalar("negative_weight", negative_weight, 0.0, lo_open=True)
        self.positive_hinge = flag("positive_hinge", positive_hinge)

    def _core(self, pos, neg, n, masked):
        # masked (-inf) negatives add relu(-inf - m) = 0 to the sum; the mean is over the n valid ones
        hinge = torch.relu(neg - self.margin).sum(dim=-1) * (self.negative_weight / n)
        return (torch.relu(1.0 - pos) if self.positive_hinge else 1.0 - pos) + hinge


@_doc
class RelaxedSoftmaxLoss(_PairwiseLoss):
    r"""Relaxed Softmax loss on embeddings (Tanielian & Vasile (Relaxed Softmax), eq. 5).

    :func:`~negtheory.bridge.functional.relaxed_softmax` on the scores of :func:`pair_logits`:

    .. math:: \ell = -s^+ + \log\sum_{j \in V} e^{s_j},

    V the negatives. Draw them with :func:`negtheory.bridge.samplers.boltzmann_sample` (eq. 8).

    Parameters
    ----------
    %(pairwise_params)s
    include_positive : bool, default False
        Add the positive to V (the bounded form, equal to InfoNCE).

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import RelaxedSoftmaxLoss
    >>> u, i, j = torch.ones(1, 2), torch.ones(1, 2), torch.zeros(1, 3, 2)
    >>> round(float(RelaxedSoftmaxLoss()(u, i, j)), 4)     # -2 + log 3
    -0.9014
    """

    _hyper = ("include_positive",)
    _functional = staticmethod(Fn.relaxed_softmax)

    def __init__(
        self,
        temperature: float = 1.0,
        reduction: str = "mean",
        normalize: bool = False,
        include_positive: bool = False,
        *,
        symmetric: bool | None = None,
    ):
        super().__init__(temperature, reduction, normalize, symmetric=symmetric)
        self.include_positive = flag("include_positive", include_positive)

    def _core(self, pos, neg, n, masked):
        return Fn._relaxed_core(pos, neg, self.include_positive)


def build_loss(spec: _S.Spec) -> _PairLoss:
    """The loss module of a loss spec, configured for a recommender's scores (the one loss registry).

    The module's hyper-parameters are the spec's; ``normalize=False`` (the model scores: its
    similarity decides cosine or inner product) and ``temperature`` the spec's t, which divides
    the scores before :meth:`~_PairLoss.loss_from_logits` (DCL and HCL clamp theta-hat at
    exp(-1 / t), the released code's floor). ``module.negatives`` is the spec's N.

    Parameters
    ----------
    spec : BPR, BCE, InfoNCE, DCL, HCL, DPL, BCL or CCL
        The loss spec (:mod:`negtheory.training.specs`).

    Returns
    -------
    nn.Module
        The loss module.

    Examples
    --------
    >>> from negtheory.bridge import build_loss
    >>> from negtheory.training import BCL
    >>> m = build_loss(BCL(alpha=0.6))
    >>> type(m).__name__, m.alpha, m.tau_plus, m.negatives
    ('BayesianContrastiveLoss', 0.6, 0.06, 5)
    """
    t = float(getattr(spec, "temperature", 1.0))
    if isinstance(spec, _S.BPR):
        module: _PairLoss = BPRLoss(temperature=t, normalize=False)
    elif isinstance(spec, _S.BCE):
        module = BCELoss(temperature=t, normalize=False)
    elif isinstance(spec, _S.InfoNCE):
        module = InfoNCELoss(temperature=t, normalize=False)
    elif isinstance(spec, _S.HCL):
        module = HardContrastiveLoss(spec.tau_plus, spec.beta, temperature=t, normalize=False, floor=math.exp(-1.0 / t))
    elif isinstance(spec, _S.DCL):
        module = DebiasedContrastiveLoss(spec.tau_plus, temperature=t, normalize=False, floor=math.exp(-1.0 / t))
    elif isinstance(spec, _S.DPL):
        module = DPLLoss(spec.tau_plus, temperature=t, normalize=False, eps=spec.eps)
    elif isinstance(spec, _S.BCL):
        module = BayesianContrastiveLoss(spec.alpha, spec.beta, spec.tau_plus, temperature=t, normalize=False, form=spec.form)
    elif isinstance(spec, _S.CCL):
        module = CosineContrastiveLoss(spec.margin, spec.negative_weight, spec.positive_hinge, temperature=t, normalize=False)
    else:
        raise TypeError(f"spec must be a loss spec of negtheory.training, got {spec!r}")
    module.negatives = spec.negatives
    return module
