"""The Relaxed Softmax (Tanielian & Vasile, eq. 5) as an ``nn.Module`` (:mod:`negtheory.bridge.losses`)."""

from __future__ import annotations

from ..._validation import flag
from .. import functional as Fn
from ._base import _doc, _PairwiseLoss

__all__ = ["RelaxedSoftmaxLoss"]


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
