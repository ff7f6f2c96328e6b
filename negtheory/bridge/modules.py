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

The debiased loss of Chuang et al. is :class:`DebiasedContrastiveLoss` (lightly's ``DCLLoss`` is
the different *decoupled* contrastive loss). Each module's ``logits(...)`` returns the
(pos_logits [A], neg_logits [A, N]) pair it feeds to its functional, for probes.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from . import functional as Fn

__all__ = [
    "InfoNCELoss",
    "DebiasedContrastiveLoss",
    "HardContrastiveLoss",
    "BayesianContrastiveLoss",
    "BPRLoss",
    "DPLLoss",
    "BCELoss",
    "RelaxedSoftmaxLoss",
    "pair_logits",
]


def pair_logits(anchor, positive, negatives=None, *, temperature=1.0, normalize=False, symmetric=True):
    r"""Logits s+ (shape [A]) and s_i (shape [A, N]) of a batch of embeddings.

    Parameters
    ----------
    anchor, positive : Tensor, shape [B, D]
    negatives : Tensor, shape [M, D] (shared) or [B, M, D] (paired), optional
        None: in-batch negatives, symmetric (A = 2B anchors, N = 2B - 2) or not (A = B,
        N = B - 1: the other anchors' positives).
    temperature : float > 0
    normalize : bool
        L2-normalise the embeddings first (cosine similarity).
    symmetric : bool
        Only for in-batch negatives.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.modules import pair_logits
    >>> a, p = torch.eye(3), torch.eye(3)
    >>> pos, neg = pair_logits(a, p)
    >>> tuple(pos.shape), tuple(neg.shape)
    ((6,), (6, 4))
    """
    if temperature <= 0 or not math.isfinite(temperature):
        raise ValueError(f"temperature must be a positive finite number, got {temperature!r}")
    if anchor.ndim != 2 or positive.shape != anchor.shape:
        raise ValueError(f"anchor and positive must both have shape [B, D], got {tuple(anchor.shape)} and {tuple(positive.shape)}")
    if normalize:
        anchor = F.normalize(anchor, dim=-1)
        positive = F.normalize(positive, dim=-1)
        if negatives is not None:
            negatives = F.normalize(negatives, dim=-1)
    b = anchor.shape[0]
    if negatives is None:
        if symmetric:
            z = torch.cat([anchor, positive], dim=0)
            sim = z @ z.T / temperature
            idx = torch.arange(2 * b, device=z.device)
            partner = (idx + b) % (2 * b)
            pos = sim[idx, partner]
            mask = torch.ones_like(sim, dtype=torch.bool)
            mask[idx, idx] = False
            mask[idx, partner] = False
            return pos, sim[mask].view(2 * b, 2 * b - 2)
        if b < 2:
            raise ValueError("in-batch negatives need a batch of at least 2 pairs")
        sim = anchor @ positive.T / temperature
        pos = sim.diagonal()
        mask = ~torch.eye(b, dtype=torch.bool, device=sim.device)
        return pos, sim[mask].view(b, b - 1)
    pos = (anchor * positive).sum(-1) / temperature
    if negatives.ndim == 2:
        neg = anchor @ negatives.T / temperature
    elif negatives.ndim == 3 and negatives.shape[0] == b:
        neg = torch.einsum("bd,bmd->bm", anchor, negatives) / temperature
    else:
        raise ValueError(f"negatives must have shape [M, D] (shared) or [B, M, D] (paired), got {tuple(negatives.shape)}")
    return pos, neg


class _PairLoss(nn.Module):
    symmetric = True

    def __init__(self, temperature=0.5, reduction="mean", normalize=True):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        if not (temperature > 0 and math.isfinite(temperature)):
            raise ValueError(f"temperature must be a positive finite number, got {temperature!r}")
        self.temperature = float(temperature)
        self.reduction = reduction
        self.normalize = bool(normalize)

    def logits(self, anchor, positive, negatives=None):
        """(pos_logits, neg_logits) as fed to the functional loss (see :func:`pair_logits`)."""
        return pair_logits(
            anchor, positive, negatives, temperature=self.temperature, normalize=self.normalize, symmetric=self.symmetric
        )

    def forward(self, anchor, positive, negatives=None):
        pos, neg = self.logits(anchor, positive, negatives)
        return self.loss_from_logits(pos, neg)

    def loss_from_logits(self, pos, neg):  # pragma: no cover - abstract
        raise NotImplementedError

    def extra_repr(self):
        return f"temperature={self.temperature}, reduction={self.reduction!r}, normalize={self.normalize}"


class InfoNCELoss(_PairLoss):
    r"""InfoNCE / NT-Xent (seed 000 eq. 1; the biased estimator of thesis eq. 6.46).

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import InfoNCELoss
    >>> g = torch.Generator().manual_seed(0)
    >>> a, p = torch.randn(8, 4, generator=g), torch.randn(8, 4, generator=g)
    >>> float(InfoNCELoss(temperature=0.5)(a, p)) > 0
    True
    """

    def loss_from_logits(self, pos, neg):
        return Fn.infonce(pos, neg, reduction=self.reduction)


class DebiasedContrastiveLoss(_PairLoss):
    r"""Debiased contrastive loss of Chuang et al. 2020 (thesis eq. 6.47), :func:`~negtheory.bridge.functional.dcl`.

    Parameters
    ----------
    tau_plus : float in (0, 1)
        Class prior (0.1 for 10 balanced classes).
    temperature, reduction, normalize
        See the module notes.
    floor : "auto", float or None
        Lower clamp of theta-hat. "auto": e^{-1/t} when ``normalize`` (the released code's
        N e^{-1/t} on N theta: the smallest score of a cosine similarity), else None.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import DebiasedContrastiveLoss
    >>> g = torch.Generator().manual_seed(0)
    >>> a, p = torch.randn(8, 4, generator=g), torch.randn(8, 4, generator=g)
    >>> loss = DebiasedContrastiveLoss(tau_plus=0.1, temperature=0.5)(a, p)
    >>> bool(torch.isfinite(loss))
    True
    """

    def __init__(self, tau_plus=0.1, temperature=0.5, reduction="mean", normalize=True, floor="auto"):
        super().__init__(temperature, reduction, normalize)
        self.tau_plus = float(tau_plus)
        if floor == "auto":
            floor = math.exp(-1.0 / self.temperature) if self.normalize else None
        self.floor = floor

    def loss_from_logits(self, pos, neg):
        return Fn.dcl(pos, neg, self.tau_plus, floor=self.floor, reduction=self.reduction)


class HardContrastiveLoss(DebiasedContrastiveLoss):
    r"""Hard-negative contrastive loss of Robinson et al. 2021, :func:`~negtheory.bridge.functional.hcl`.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import HardContrastiveLoss
    >>> g = torch.Generator().manual_seed(0)
    >>> a, p = torch.randn(8, 4, generator=g), torch.randn(8, 4, generator=g)
    >>> bool(torch.isfinite(HardContrastiveLoss(tau_plus=0.1, beta=1.0)(a, p)))
    True
    """

    def __init__(self, tau_plus=0.1, beta=1.0, temperature=0.5, reduction="mean", normalize=True, floor="auto"):
        super().__init__(tau_plus, temperature, reduction, normalize, floor)
        self.beta = float(beta)

    def loss_from_logits(self, pos, neg):
        return Fn.hcl(pos, neg, self.tau_plus, self.beta, floor=self.floor, reduction=self.reduction)


class BayesianContrastiveLoss(_PairLoss):
    r"""Bayesian contrastive loss (thesis ch. 6, eq. 6.48), :func:`~negtheory.bridge.functional.bcl`.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import BayesianContrastiveLoss
    >>> g = torch.Generator().manual_seed(0)
    >>> a, p = torch.randn(8, 4, generator=g), torch.randn(8, 4, generator=g)
    >>> bool(torch.isfinite(BayesianContrastiveLoss(alpha=0.9, beta=0.5, tau_plus=0.1)(a, p)))
    True
    """

    def __init__(self, alpha=0.9, beta=0.5, tau_plus=0.1, temperature=0.5, reduction="mean", normalize=True, normalize_weights=False):
        super().__init__(temperature, reduction, normalize)
        self.alpha, self.beta, self.tau_plus = float(alpha), float(beta), float(tau_plus)
        self.normalize_weights = bool(normalize_weights)

    def loss_from_logits(self, pos, neg):
        return Fn.bcl(pos, neg, self.alpha, self.beta, self.tau_plus, normalize=self.normalize_weights, reduction=self.reduction)


class _PairwiseLoss(_PairLoss):
    symmetric = False

    def __init__(self, temperature=1.0, reduction="mean", normalize=False):
        super().__init__(temperature, reduction, normalize)


class BPRLoss(_PairwiseLoss):
    r"""BPR (thesis eq. 3.29 / 4.1), :func:`~negtheory.bridge.functional.bpr`; raw dot products by default.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import BPRLoss
    >>> u, i, j = torch.ones(2, 3), torch.ones(2, 3), torch.zeros(2, 1, 3)
    >>> round(float(BPRLoss()(u, i, j)), 4)          # -log sigmoid(3)
    0.0486
    """

    def loss_from_logits(self, pos, neg, weight=None):
        return Fn.bpr(pos, neg, weight=weight, reduction=self.reduction)


class DPLLoss(_PairwiseLoss):
    r"""Debiased pairwise loss (thesis eq. 5.17-5.18), :func:`~negtheory.bridge.functional.dpl`.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import DPLLoss
    >>> u, i, j = torch.ones(2, 3), torch.ones(2, 3), torch.zeros(2, 4, 3)
    >>> bool(torch.isfinite(DPLLoss(tau_plus=0.1)(u, i, j)))
    True
    """

    def __init__(self, tau_plus=0.1, temperature=1.0, reduction="mean", normalize=False, eps=1e-6):
        super().__init__(temperature, reduction, normalize)
        self.tau_plus = float(tau_plus)
        self.eps = float(eps)

    def loss_from_logits(self, pos, neg):
        return Fn.dpl(pos, neg, self.tau_plus, eps=self.eps, reduction=self.reduction)


class BCELoss(_PairwiseLoss):
    r"""Sampled binary cross-entropy (NCE-style, seed 001), :func:`~negtheory.bridge.functional.bce`.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import BCELoss
    >>> u, i, j = torch.zeros(2, 3), torch.zeros(2, 3), torch.zeros(2, 2, 3)
    >>> round(float(BCELoss()(u, i, j)), 4)           # 3 log 2
    2.0794
    """

    def loss_from_logits(self, pos, neg):
        return Fn.bce(pos, neg, reduction=self.reduction)


class RelaxedSoftmaxLoss(_PairwiseLoss):
    r"""Relaxed Softmax (seed 004, eq. 5), :func:`~negtheory.bridge.functional.relaxed_softmax`.

    Draw the negatives with :func:`negtheory.bridge.samplers.boltzmann_sample` (eq. 8).

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge import RelaxedSoftmaxLoss
    >>> u, i, j = torch.ones(1, 2), torch.ones(1, 2), torch.zeros(1, 3, 2)
    >>> round(float(RelaxedSoftmaxLoss()(u, i, j)), 4)     # -2 + log 3
    -0.9014
    """

    def __init__(self, temperature=1.0, reduction="mean", normalize=False, include_positive=False):
        super().__init__(temperature, reduction, normalize)
        self.include_positive = bool(include_positive)

    def loss_from_logits(self, pos, neg):
        return Fn.relaxed_softmax(pos, neg, include_positive=self.include_positive, reduction=self.reduction)
