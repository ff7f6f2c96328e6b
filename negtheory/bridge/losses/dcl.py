"""The debiased contrastive loss (Chuang et al. 2020; thesis eq. 6.47) as an ``nn.Module`` (:mod:`negtheory.bridge.losses`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..._validation import real_scalar
from ...training import (
    specs as _S,
)  # the losses' hyper-parameter defaults, one set shared with the specs
from .. import functional as Fn
from ._base import _check_floor, _doc, _PairLoss

if TYPE_CHECKING:
    from collections.abc import Callable

    from torch import Tensor


__all__ = ["DebiasedContrastiveLoss"]


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
