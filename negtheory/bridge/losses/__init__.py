r"""The losses as ``nn.Module`` wrappers of :mod:`negtheory.bridge.functional`, one file each.

:func:`build_loss` gives the module of a loss spec of :mod:`negtheory.training` (the one loss
registry, which the trainer uses); each module's hyper-parameter defaults are its spec's.

Conventions follow the contrastive-learning ecosystem (SimCLR / DCL / HCL code, lightly):

* ``temperature`` t divides the similarities; ``normalize=True`` (the default of the contrastive
  losses) L2-normalises the embeddings, so the similarity is the cosine in [-1, 1] and the
  logits lie in [-1/t, 1/t];
* ``forward(anchor, positive)`` with no ``negatives`` uses **in-batch negatives**: for the
  contrastive losses the symmetric SimCLR/NT-Xent arrangement of the released DCL/HCL code —
  both views of all B pairs form 2B anchors, each with its own positive and the other 2B - 2
  embeddings as negatives (N = 510 at B = 256, the thesis's image setting); for the pairwise
  recommendation losses the other B - 1 positives of the batch;
* explicit ``negatives`` are either **shared**, shape [M, D] (every anchor against the same M
  embeddings), or **paired**, shape [B, M, D] (M negatives per anchor).

* ``forward(embeddings, labels)`` (the pytorch-metric-learning call): every pair (i, j != i)
  with the same label is a positive, with anchor i's differently-labelled embeddings as its
  negatives (the NT-Xent arrangement of PML); the loss is averaged over the positive pairs.
  ``forward(torch.cat([a, p]), torch.cat([k, k]))`` with ``k = arange(B)`` equals
  ``forward(a, p)``.

The debiased loss of Chuang et al. is :class:`DebiasedContrastiveLoss` (lightly's ``DCLLoss`` is
the different *decoupled* contrastive loss). Each module's ``logits(...)`` returns the
(pos_logits [A], neg_logits [A, N]) pair it feeds to its functional, for probes.

Speed and precision: in-batch logits come from one matmul of the (normalised) embeddings; the
forward pass masks the excluded entries (self, and the partner for the debiased losses) with
-inf in place instead of gathering the negatives, and the losses count the masked entries out.
Half-precision embeddings (float16, bfloat16) are normalised and multiplied in float32 (the
loss is cast back), so their gradients are those of the float32 computation. Hyper-parameters
are validated in the constructor (``ValueError`` naming the parameter); nothing here changes
torch's or numba's thread settings, and every module works under ``torch.compile``.
"""

from __future__ import annotations

from ._base import pair_logits
from .bce import BCELoss
from .bcl import BayesianContrastiveLoss
from .bpr import BPRLoss
from .ccl import CosineContrastiveLoss
from .dcl import DebiasedContrastiveLoss
from .dpl import DPLLoss
from .hcl import HardContrastiveLoss
from .infonce import InfoNCELoss
from .registry import build_loss
from .relaxed_softmax import RelaxedSoftmaxLoss

__all__ = [
    "InfoNCELoss",
    "DebiasedContrastiveLoss",
    "HardContrastiveLoss",
    "BayesianContrastiveLoss",
]  # contrastive
__all__ += [
    "BPRLoss",
    "DPLLoss",
    "BCELoss",
    "CosineContrastiveLoss",
    "RelaxedSoftmaxLoss",
    "pair_logits",
]  # pairwise
__all__ += ["build_loss"]  # the loss module of a loss spec
