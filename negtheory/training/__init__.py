"""Composable training: ``fit(data, model=..., loss=..., sampler=..., optimizer=...)`` (thesis ch. 4-6).

Small frozen specs (:mod:`negtheory.training.specs`) say what a run is; :func:`fit` picks the
engine that runs it — the numba batch-1 SGD engine of thesis ch. 4 or the torch mini-batch engine
of ch. 5-6 — and raises a ``ValueError`` naming the parameters of a combination neither runs.
Importing this package loads neither numba kernels nor torch: the engines are imported when
:func:`fit` runs.
"""

from __future__ import annotations

from . import specs as _specs
from ._run import ENGINES, FitResult, choose_engine, undefined
from .fit import fit
from .presets import RELEASED_MINIBATCH_MF, THESIS_BPR_MF, THESIS_LIGHTGCN
from .specs import *  # noqa: F403  (the spec classes, spec_from_dict, spec_from_json)

# documented (and pickled) under this package, not the private module that defines them
FitResult.__module__ = choose_engine.__module__ = undefined.__module__ = __name__

__all__ = [
    "fit",
    "FitResult",
    "choose_engine",
    "undefined",
    "ENGINES",
    *_specs.__all__,
    "THESIS_BPR_MF",
    "THESIS_LIGHTGCN",
    "RELEASED_MINIBATCH_MF",
]
