"""The loss module of a loss spec (the one loss registry) as an ``nn.Module`` (:mod:`negtheory.bridge.losses`)."""

from __future__ import annotations

import math

from ...training import (
    specs as _S,
)  # the losses' hyper-parameter defaults, one set shared with the specs
from ._base import _PairLoss
from .bce import BCELoss
from .bcl import BayesianContrastiveLoss
from .bpr import BPRLoss
from .ccl import CosineContrastiveLoss
from .dcl import DebiasedContrastiveLoss
from .dpl import DPLLoss
from .hcl import HardContrastiveLoss
from .infonce import InfoNCELoss

__all__ = ["build_loss"]


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
        module = HardContrastiveLoss(
            spec.tau_plus, spec.beta, temperature=t, normalize=False, floor=math.exp(-1.0 / t)
        )
    elif isinstance(spec, _S.DCL):
        module = DebiasedContrastiveLoss(
            spec.tau_plus, temperature=t, normalize=False, floor=math.exp(-1.0 / t)
        )
    elif isinstance(spec, _S.DPL):
        module = DPLLoss(spec.tau_plus, temperature=t, normalize=False, eps=spec.eps)
    elif isinstance(spec, _S.BCL):
        module = BayesianContrastiveLoss(
            spec.alpha, spec.beta, spec.tau_plus, temperature=t, normalize=False, form=spec.form
        )
    elif isinstance(spec, _S.CCL):
        module = CosineContrastiveLoss(
            spec.margin, spec.negative_weight, spec.positive_hinge, temperature=t, normalize=False
        )
    else:
        raise TypeError(f"spec must be a loss spec of negtheory.training, got {spec!r}")
    module.negatives = spec.negatives
    return module
