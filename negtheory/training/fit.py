r"""One entry point for training a recommender: ``fit(data, model=..., loss=..., sampler=..., optimizer=...)``.

The engine follows from the combination (:func:`choose_engine`):

* **batch-1 SGD** (numba; thesis ch. 4, :func:`negtheory.recsys.fit_bpr_sgd`'s kernels):
  ``optimizer=SGD(batch_size=1)`` with ``model=MF`` and ``loss`` one of :class:`BPR`,
  :class:`BCE`, :class:`InfoNCE`, any sampler (RNS, PNS, DNS, BNS with all its options, AOBPR,
  SRNS);
* **mini-batch** (torch; thesis ch. 5-6, :func:`negtheory.bridge.recommend.fit_mf`'s loop): every
  other combination — MF or LightGCN, :class:`SGD` or :class:`Adam`, the losses BPR, InfoNCE, DCL,
  HCL, DPL, BCL, samplers RNS, PNS, DNS (with BPR or DPL), BNS (with BPR).

A combination neither engine runs raises a ``ValueError`` naming its parameters (never a silent
fallback to another sampler). The old flat-keyword trainers build these specs and call the same
engines, so equal settings give equal numbers bit for bit.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ._run import FitResult, Run, choose_engine, make_run
from .specs import BPR, MF, RNS, SGD, Evaluation, Spec

# the defaults of fit: the thesis's BPR-MF of ch. 4 (frozen specs, so one shared instance each is safe)
_MODEL, _LOSS, _SAMPLER, _OPTIMIZER, _EVALUATION = MF(), BPR(), RNS(), SGD(), Evaluation()

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._typing import RNGLike
    from ..recsys.interactions import Interactions
    from ..recsys.loop import Callback

__all__ = ["fit"]


def run_engine(data: Interactions, run: Run, engine: str) -> FitResult:
    """Run ``run`` on ``engine`` (private: the engines are imported here, torch only for the mini-batch one)."""
    if engine == "sgd":
        from ..recsys.bpr_sgd import _fit_sgd

        return _fit_sgd(data, run)
    from ..bridge.recommend import _fit_torch

    return _fit_torch(data, run)


def fit(
    data: Interactions,
    *,
    model: Spec = _MODEL,
    loss: Spec = _LOSS,
    sampler: Spec = _SAMPLER,
    optimizer: Spec = _OPTIMIZER,
    epochs: int = 100,
    evaluation: Evaluation = _EVALUATION,
    rng: RNGLike = 0,
    callbacks: Sequence[Callback] = (),
    device: str = "cpu",
    progress: bool = False,
    engine: str = "auto",
    checkpoint: str | os.PathLike[str] | None = None,
) -> FitResult:
    r"""Train a recommender from specs: model × loss × sampler × optimizer (thesis ch. 4-6).

    The defaults are the thesis's BPR-MF of ch. 4 (§4.5.1.2): MF with d = 32, BPR, uniform
    negatives, SGD with batch 1, lr 0.01 and reg 0.01, 100 epochs. The engine follows from the
    combination (module notes; :func:`choose_engine`).

    Parameters
    ----------
    data : Interactions
        The split (:func:`negtheory.recsys.load_split`); negatives never come from the user's
        training items (except :class:`SharedUniform`'s catalogue-uniform draws); validation pairs (``data.with_validation``) drive model selection.
    model : MF or LightGCN
        The model spec.
    loss : BPR, BCE, InfoNCE, DCL, HCL, DPL or BCL
        The loss spec (its ``negatives`` is N per pair).
    sampler : RNS, PNS, DNS, BNS, AOBPR, SRNS or SharedUniform
        The negative sampler spec.
    optimizer : SGD or Adam
        The optimizer spec (its ``batch_size`` picks the engine with the model and the loss).
    epochs : int
        Epochs, at least 1 (early stopping may end sooner: ``Evaluation.patience``).
    evaluation : Evaluation
        When and what is ranked.
    rng : int, SeedSequence, Generator or None
        Seeds the initialisation, the shuffles and the samplers (an int is the seed).
    callbacks : sequence of callable
        ``cb(epoch, scores)`` with ``scores`` a :class:`~negtheory.recsys.loop.ScoreMatrix`:
        at epoch 0 and after each evaluation (:mod:`negtheory.recsys.loop`).
    device : {"cpu", "cuda", "auto"}
        Where the mini-batch engine trains (the batch-1 engine runs on the CPU).
    progress : bool
        Show a progress bar over the epochs (default False).
    engine : {"auto", "sgd", "torch"}
        Force an engine (default "auto").
    checkpoint : str or os.PathLike, optional
        A file that keeps the run's state, saved after every evaluation (mini-batch engine). A call
        that finds it continues after the saved epoch and returns what the uninterrupted call
        returns; a call with more ``epochs`` continues a shorter run
        (:mod:`negtheory.training.checkpoint`). Default None: nothing saved.

    Returns
    -------
    FitResult
        History, best epoch, final embeddings and scores, the engine, the specs and timings.

    Raises
    ------
    ValueError
        A combination no engine runs (the message names the parameters), a bad value, a
        ``checkpoint`` with the batch-1 engine, or a checkpoint saved by another run.
    TypeError
        An argument that is not a spec of its role.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.training import fit, MF, BPR, BNS, SGD, Evaluation
    >>> rng = np.random.default_rng(0)
    >>> pairs = np.unique(rng.integers(0, [30, 40], size=(600, 2)), axis=0)
    >>> d = load_split(pairs[:400], pairs[400:])
    >>> r = fit(d, model=MF(dim=8), loss=BPR(), sampler=BNS(candidates=5), optimizer=SGD(), epochs=2,
    ...         evaluation=Evaluation(ks=(5,)))
    >>> r.engine, r.history[-1]["epoch"], r.user_emb.shape
    ('sgd', 2, (30, 8))
    """
    run = make_run(model, loss, sampler, optimizer, epochs, evaluation, rng, callbacks, device, progress,
                   checkpoint=checkpoint)  # fmt: skip
    chosen = choose_engine(run.model, run.loss, run.sampler, run.optimizer, device, engine)
    if checkpoint is not None and chosen == "sgd":
        raise ValueError("checkpoint: the batch-1 SGD engine (numba) does not save its state; run without a checkpoint, "
                         "or on the mini-batch engine (engine='torch' or an optimizer with batch_size > 1)")  # fmt: skip
    return run_engine(data, run, chosen)
