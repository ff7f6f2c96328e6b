"""The debiased pairwise loss (thesis ch. 5, eq. 5.17-5.18) as an ``nn.Module`` (:mod:`negtheory.bridge.losses`)."""

from __future__ import annotations

from ..._validation import real_scalar
from ...training import (
    specs as _S,
)  # the losses' hyper-parameter defaults, one set shared with the specs
from .. import functional as Fn
from ._base import _doc, _PairwiseLoss

__all__ = ["DPLLoss"]


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
        return {
            "pos_extra_logits": extra
        }  # P-hat of the positives from the M extra ones (eq. 5.17)

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
