r"""Torch bridge: the estimators of :mod:`negtheory.estimators` as losses and samplers for real training.

The numba/numpy layer of negtheory *predicts* (optimal K of Wu et al. (Rethinking InfoNCE),
estimator MSE of Liu Bin's thesis §6.6, sampling quality); this optional subpackage lets real
training *confirm or refute* it:

* :mod:`negtheory.bridge.functional` — InfoNCE, DCL, HCL, BCL (Liu Bin's thesis ch. 6), BPR, DPL
  (ch. 5), BCE (the negative-sampling textbook chapter) and Relaxed Softmax (Tanielian & Vasile
  (Relaxed Softmax)) on logits, in log space, any device and dtype;
* :mod:`negtheory.bridge.losses` — one ``nn.Module`` per loss, on embeddings (in-batch or explicit
  negatives), e.g. :class:`~negtheory.bridge.losses.DebiasedContrastiveLoss`;
* :mod:`negtheory.bridge.samplers` — BNS (thesis ch. 4), Boltzmann sampling (Tanielian & Vasile
  eq. 8), fractional-K counts and the ANS schedule (Wu et al. eq. 8, §5), seeded by
  ``torch.Generator``;
* :mod:`negtheory.bridge.data` — a synthetic positive-unlabeled recommender with ground truth,
  contrastive views of scikit-learn's digits;
* :mod:`negtheory.bridge.train`, :mod:`negtheory.bridge.probes`, :mod:`negtheory.bridge.bprac_em`,
  :mod:`negtheory.bridge.experiments` — harness, real-score probes, BPRAC's EM loop, and the
  simulation-vs-training experiments.

Requires the ``torch`` extra: ``python -m pip install -e ".[torch]"`` in a source checkout
(negtheory is not on PyPI yet). ``import negtheory`` never
imports this subpackage.
"""

from __future__ import annotations

try:
    import torch as _torch  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "negtheory.bridge needs PyTorch, which is not installed: install the negtheory[torch] extra with "
        '`python -m pip install -e ".[torch]"` in a source checkout (negtheory is not on PyPI yet), '
        "or install torch>=2.2 yourself"
    ) from exc

from . import functional  # noqa: E402

from .losses import (  # noqa: E402  # isort: skip
    BayesianContrastiveLoss,
    BCELoss,
    CosineContrastiveLoss,
    BPRLoss,
    DebiasedContrastiveLoss,
    DPLLoss,
    HardContrastiveLoss,
    InfoNCELoss,
    RelaxedSoftmaxLoss,
    build_loss,
)

__all__ = [
    "functional",
    "InfoNCELoss",
    "DebiasedContrastiveLoss",
    "HardContrastiveLoss",
    "BayesianContrastiveLoss",
    "BPRLoss",
    "DPLLoss",
    "BCELoss",
    "CosineContrastiveLoss",
    "RelaxedSoftmaxLoss",
    "build_loss",
]
