"""The Bayesian contrastive loss (thesis ch. 6, eq. 6.31 and 6.48) as an ``nn.Module`` (:mod:`negtheory.bridge.losses`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch import nn

from ..._validation import flag
from ...estimators import _check_abt
from ...training import (
    specs as _S,
)  # the losses' hyper-parameter defaults, one set shared with the specs
from .. import functional as Fn
from ._base import _doc, _PairLoss

if TYPE_CHECKING:
    from torch import Tensor


__all__ = ["BayesianContrastiveLoss"]


@_doc
class BayesianContrastiveLoss(_PairLoss):
    r"""Bayesian contrastive loss (Liu Bin's thesis ch. 6, eq. 6.31 and 6.48) on embeddings.

    :func:`~negtheory.bridge.functional.bcl` on the logits of :func:`pair_logits`: eq. 6.31,

    .. math:: \ell = -\log\frac{e^{s^+}}{e^{s^+} + \sum_{i=1}^N \omega_i e^{s_i}},

    with the importance weights omega_i of eq. 6.25 computed from the ranks of the anchor's
    negative logits (:func:`~negtheory.bridge.functional.bcl_log_weights`).

    Parameters
    ----------
    alpha : float in [1/2, 1], default 0.9
        Encoder quality P(x_TN < x_FN) (eq. 6.21): 1/2 a guessing encoder, 1 a perfect one.
    beta : float in [0, 1], default 0.5
        Hardness level (eq. 6.22): share of hard true negatives in the target population;
        1/2 keeps the true-negative law (omega = P(TN | x) / tau^-). alpha = beta = 1 is rejected.
    tau_plus : float in (0, 1), default 0.1
        Class prior tau+ (0.1 for 10 balanced classes).
    temperature, reduction, normalize, symmetric
        See :class:`InfoNCELoss`.
    normalize_weights : bool, default False
        Self-normalised estimator (the functional's ``normalize_weights``).
    form : {"thesis", "released"}, keyword-only
        Eq. 6.31 (default), or the released recommendation code's
        :math:`-\ln\sigma(s^+ - \sum_i \omega_i e^{s_i})` (in :meth:`loss_from_logits`; the
        embedding call computes eq. 6.31).

    Examples
    --------
    %(batch_example)s
    >>> from negtheory.bridge import BayesianContrastiveLoss
    >>> round(float(BayesianContrastiveLoss(alpha=0.9, beta=0.5, tau_plus=0.1)(a, p)), 4)
    3.1787
    """

    _hyper = ("alpha", "beta", "tau_plus", "normalize_weights")
    _functional = staticmethod(Fn.bcl)

    def __init__(
        self,
        alpha: float = _S.BCL.alpha,
        beta: float = _S.BCL.beta,
        tau_plus: float = _S.BCL.tau_plus,
        temperature: float = 0.5,
        reduction: str = "mean",
        normalize: bool = True,
        normalize_weights: bool = False,
        *,
        symmetric: bool | None = None,
        form: str = _S.BCL.form,
    ):
        super().__init__(temperature, reduction, normalize, symmetric=symmetric)
        self.alpha, self.beta, self.tau_plus, _ = _check_abt(alpha, beta, tau_plus)
        self.normalize_weights = flag("normalize_weights", normalize_weights)
        if form not in ("thesis", "released"):
            raise ValueError(f"form must be 'thesis' or 'released', got {form!r}")
        if form == "released" and normalize_weights:
            raise ValueError(
                "normalize_weights needs form='thesis' (the released form has no self-normalised estimator)"
            )
        self.form = form

    def loss_from_logits(self, pos: Tensor, neg: Tensor, extra: Tensor | None = None) -> Tensor:
        r"""The loss on precomputed logits (:meth:`_PairLoss.loss_from_logits`; form "released" below).

        ``form="released"``: the released recommendation code's
        :math:`-\ln\sigma(s^+ - \sum_i \omega_i e^{s_i})` with the weights of eq. 6.25
        (:func:`~negtheory.bridge.functional.bcl_log_weights`), averaged over the anchors.

        Parameters
        ----------
        pos : Tensor, shape [A]
            Positive logits (e.g. from :meth:`logits`).
        neg : Tensor, shape [A, N]
            Negative logits.
        extra : Tensor, shape [A, M], optional
            The logits of M extra positives per anchor (the debiased losses' estimate of the
            positive term, thesis eq. 5.17 and 6.47; the other losses take none).

        Returns
        -------
        Tensor
            A scalar for ``reduction`` "mean" / "sum", shape [A] for "none".
        """
        if self.form == "thesis":
            return super().loss_from_logits(pos, neg, extra)
        if extra is not None:
            raise ValueError("BayesianContrastiveLoss takes no extra positives")
        logw = Fn.bcl_log_weights(neg, self.alpha, self.beta, self.tau_plus)
        per = nn.functional.softplus(torch.exp(torch.logsumexp(neg + logw, dim=-1)) - pos)
        return (
            per
            if self.reduction == "none"
            else (per.sum() if self.reduction == "sum" else per.mean())
        )

    def _core(self, pos, neg, n, masked):
        return Fn._bcl_core(
            pos, neg, n, self.alpha, self.beta, self.tau_plus, self.normalize_weights
        )
