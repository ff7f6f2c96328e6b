r"""Recommendation on implicit feedback: data splits, negative samplers, BPR-MF by SGD, ranking metrics.

The real-data protocol of Liu Bin's thesis (ch. 4-6) in small parts (no torch needed):

* :mod:`negtheory.recsys.interactions` — :class:`Interactions` with consistent ids and explicit
  train / validation / test splits from user-supplied files, arrays or DataFrames;
* :mod:`negtheory.recsys.samplers` — RNS, PNS, extra positives for the mini-batch losses,
  drawn from the items a user has not interacted with;
* :mod:`negtheory.recsys.adaptive_samplers` — AOBPR (:func:`sample_by_rank`) and SRNS
  (:class:`SRNSMemory`) for the mini-batch engine, the same steps as the batch-1 kernel's;
* :mod:`negtheory.recsys.bpr_sgd` — the batch-1 SGD engine of :func:`negtheory.training.fit` (BPR-MF
  with RNS, PNS, DNS, AOBPR, SRNS and BNS, eq. 4.26, in numba) and BNS's priors;
* :mod:`negtheory.recsys.metrics` — Precision / Recall / NDCG at a list of k (training items
  masked), TNR and INF (eq. 4.27-4.28);
* :mod:`negtheory.recsys.loop` — the one epoch loop of the trainers (:func:`train_loop`):
  evaluation, early stopping, progress bar and callbacks ``cb(epoch, scores)``, shared by
  both engines of :func:`negtheory.training.fit`;
* :mod:`negtheory.recsys.score_probe` — a training callback that measures alpha, tau+, the
  class-conditional score laws, the estimators' real errors and BNS's posterior with the held-out
  interactions as false-negative labels (``negtheory reproduce sim-vs-train``).

The mini-batch contrastive losses of ch. 5-6 (InfoNCE, DCL, HCL, DPL, BCL) train in
:mod:`negtheory.bridge.recommend` (torch extra); ``negtheory reproduce thesis-tables`` runs the
rows of thesis Tables 4.2-4.5, 5.2, 5.3 and 6.3 on a user-supplied split.
"""

from __future__ import annotations

from .adaptive_samplers import SRNSMemory, sample_by_rank, srns_initial_memory
from .bpr_sgd import *  # noqa: F403  (SAMPLERS, the BNS priors, pns_weights, ...)
from .bpr_sgd import __all__ as _bpr_sgd_names  # its public names, listed once there
from .datasets import THESIS_DATASETS, thesis_split, write_split
from .interactions import (
    Interactions,
    load_movielens_dir,
    load_split,
    read_interactions,
    split_interactions,
)
from .loop import check_callbacks, train_loop
from .metrics import sampling_quality, topk_metrics
from .score_probe import ProbeRecord, ScoreProbe, probe_scores

__all__ = [
    "Interactions",
    "read_interactions",
    "load_split",
    "split_interactions",
    "load_movielens_dir",
    "THESIS_DATASETS",
    "thesis_split",
    "write_split",
    *_bpr_sgd_names,
    "sample_by_rank",
    "srns_initial_memory",
    "SRNSMemory",
    "topk_metrics",
    "sampling_quality",
    "train_loop",
    "check_callbacks",
    "ScoreProbe",
    "ProbeRecord",
    "probe_scores",
]
