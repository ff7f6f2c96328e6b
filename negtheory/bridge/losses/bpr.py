"""BPR (Rendle et al. 2009; thesis eq. 4.1) as an ``nn.Module`` (:mod:`negtheory.bridge.losses`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import functional as Fn
from ._base import _doc, _PairwiseLoss

if TYPE_CHECKING:
    from torch import Tensor


__all__ = ["BPRLoss"]


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
