"""InfoNCE (Wu et al., eq. 1; thesis eq. 6.46) as an ``nn.Module`` (:mod:`negtheory.bridge.losses`)."""

from __future__ import annotations

from .. import functional as Fn
from ._base import _doc, _PairLoss

__all__ = ["InfoNCELoss"]


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
