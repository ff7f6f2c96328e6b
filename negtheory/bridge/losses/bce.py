"""Sampled binary cross-entropy (the negative-sampling textbook chapter) as an ``nn.Module`` (:mod:`negtheory.bridge.losses`)."""

from __future__ import annotations

from .. import functional as Fn
from ._base import _doc, _PairwiseLoss

__all__ = ["BCELoss"]


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
