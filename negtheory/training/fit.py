r"""One entry point for training a recommender: ``fit(data, model=..., loss=..., sampler=..., optimizer=...)``.

One trainer runs every combination that is defined: sample (the sampler's ``draw``,
:mod:`negtheory.training.negatives`) -> score (the model) -> loss -> optimizer step, with the
evaluation, callbacks, checkpoints and early stopping of :func:`negtheory.recsys.loop.train_loop`.
Two backends implement it (:func:`choose_engine`):

* **torch** (thesis ch. 5-6): every combination — MF or LightGCN, any loss, any sampler, SGD or
  Adam at any batch size, and a user's own loss module, :class:`Sampler` or torch optimizer;
* **numba batch-1 SGD** (thesis ch. 4), picked automatically for the combinations it covers, for
  speed: MF with the inner product, BPR / BCE / InfoNCE at temperature 1, the host samplers RNS,
  PNS, DNS, BNS (all its options), AOBPR and SRNS, plain SGD with batch 1.

A combination that is not defined mathematically (:func:`undefined`: CCL needs cosine scores)
raises a ``ValueError`` saying what needs what.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

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
    loss: Any = _LOSS,
    sampler: Any = _SAMPLER,
    optimizer: Any = _OPTIMIZER,
    epochs: int = 100,
    evaluation: Evaluation = _EVALUATION,
    rng: RNGLike = 0,
    callbacks: Sequence[Callback] = (),
    device: str = "cpu",
    progress: bool = False,
    engine: str = "auto",
    checkpoint: str | os.PathLike[str] | None = None,
    batch_size: int | None = None,
) -> FitResult:
    r"""Train a recommender from specs: model × loss × sampler × optimizer (thesis ch. 4-6).

    The defaults are the thesis's BPR-MF of ch. 4 (§4.5.1.2): MF with d = 32, BPR, uniform
    negatives, SGD with batch 1, lr 0.01 and reg 0.01, 100 epochs. The engine follows from the
    combination (module notes; :func:`choose_engine`). Each of loss, sampler and optimizer is a
    spec or a user's object.

    Parameters
    ----------
    data : Interactions
        The split (:func:`negtheory.recsys.load_split`); negatives never come from the user's
        training items (except :class:`SharedUniform`'s catalogue-uniform draws); validation pairs (``data.with_validation``) drive model selection.
    model : MF or LightGCN
        The model spec.
    loss : BPR, BCE, InfoNCE, DCL, HCL, DPL, BCL, CCL, or a loss object
        The loss spec (its ``negatives`` is N per pair), or a user's ``nn.Module`` / callable
        ``loss(pos_logits, neg_logits)`` of the positive logits [B] and the negative logits [B, N]
        returning a scalar (N: its ``negatives`` attribute, default 1).
    sampler : RNS, PNS, DNS, BNS, AOBPR, SRNS, SharedUniform, CatalogueUniform, or a Sampler
        The negative sampler spec, or an instance of a user's :class:`Sampler` subclass.
    optimizer : SGD, Adam, or a torch optimizer class or factory
        The optimizer spec (its ``batch_size`` is the mini-batch size), or a ``torch.optim`` class
        (built with its default hyper-parameters) or a callable ``params -> torch.optim.Optimizer``.
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
        Force a backend (default "auto": numba where it covers the combination, else torch).
    checkpoint : str or os.PathLike, optional
        A file that keeps the run's state, saved after every evaluation (mini-batch engine). A call
        that finds it continues after the saved epoch and returns what the uninterrupted call
        returns; a call with more ``epochs`` continues a shorter run
        (:mod:`negtheory.training.checkpoint`); the numba backend keeps no state, so a
        checkpointed run always trains on the torch backend. Default None: nothing saved.
    batch_size : int, optional
        The mini-batch size with a torch optimizer class or factory (default 1024); a spec carries
        its own.

    Returns
    -------
    FitResult
        History, best epoch, final embeddings and scores, the engine, the specs and timings.

    Raises
    ------
    ValueError
        A combination that is not defined (the message says what needs what), a bad value, a
        ``checkpoint`` with the numba backend, or a checkpoint saved by another run.
    TypeError
        An argument that is neither a spec of its role nor an object of that role.

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
    run = make_run(
        model,
        loss,
        sampler,
        optimizer,
        epochs,
        evaluation,
        rng,
        callbacks,
        device,
        progress,
        checkpoint=checkpoint,
        batch_size=batch_size,
    )
    chosen = choose_engine(run.model, run.loss, run.sampler, run.optimizer, device, engine)
    if checkpoint is not None and chosen == "sgd":
        if engine == "sgd":
            raise ValueError(
                "checkpoint: the numba batch-1 SGD backend does not save its state; run without a "
                "checkpoint, or with engine='torch'"
            )
        chosen = "torch"  # the torch trainer saves its state; the same law, another implementation
    return run_engine(data, run, chosen)
