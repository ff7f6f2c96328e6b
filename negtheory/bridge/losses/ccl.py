"""The cosine contrastive loss (Mao et al. 2021, SimpleX) as an ``nn.Module`` (:mod:`negtheory.bridge.losses`)."""

from __future__ import annotations

import torch

from ..._validation import flag, real_scalar
from ...training import (
    specs as _S,
)  # the losses' hyper-parameter defaults, one set shared with the specs
from .. import functional as Fn
from ._base import _doc, _PairwiseLoss

__all__ = ["CosineContrastiveLoss"]


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
