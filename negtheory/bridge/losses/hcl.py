"""The hard contrastive loss (Robinson et al. 2021) as an ``nn.Module`` (:mod:`negtheory.bridge.losses`)."""

from __future__ import annotations

from ..._validation import real_scalar
from ...training import (
    specs as _S,
)  # the losses' hyper-parameter defaults, one set shared with the specs
from .. import functional as Fn
from ._base import _doc
from .dcl import DebiasedContrastiveLoss

__all__ = ["HardContrastiveLoss"]


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
