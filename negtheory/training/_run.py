"""The run a training engine reads, and which engine runs it (private to :mod:`negtheory.training`).

Kept apart from :mod:`negtheory.training.fit` so that the engines (``negtheory.recsys.bpr_sgd``,
``negtheory.bridge.recommend``) read it without importing :func:`~negtheory.training.fit`, which
imports them.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._deprecation import warn_deprecated
from .._rng import int_seed
from .specs import (
    AOBPR,
    BCE,
    BNS,
    BPR,
    CCL,
    DNS,
    DPL,
    MF,
    RNS,
    ROLES,
    SGD,
    SRNS,
    CatalogueUniform,
    Evaluation,
    InfoNCE,
    SharedUniform,
    Spec,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

    from ..recsys.loop import Callback, ScoreMatrix

# the engines' own helpers (Run, make_run, eval_splits, warn_if_external) stay off the API pages
__all__ = ["FitResult", "choose_engine"]

#: the engines: "sgd" (numba, batch 1) and "torch" (mini-batch)
ENGINES = ("sgd", "torch")

_SGD_LOSSES = (BPR, BCE, InfoNCE)


@dataclass(frozen=True)
class Run:
    """Everything an engine reads (private): the specs, the run's length, seed and hooks.

    ``extras`` carries the old trainers' engine-specific hooks (``fit_bpr_sgd``'s ``callback`` and
    ``return_negatives``), which the composable API leaves to ``callbacks``.
    """

    model: Any
    loss: Any
    sampler: Any
    optimizer: Any
    epochs: int
    evaluation: Evaluation
    seed: int
    callbacks: Sequence[Callback] = ()
    device: str = "cpu"
    progress: bool = False
    extras: dict[str, Any] = field(default_factory=dict)
    checkpoint: str | os.PathLike[str] | None = None

    def specs(self) -> dict[str, dict[str, Any]]:
        """The run's specs as JSON-ready dicts (its provenance)."""
        return {r: getattr(self, r).to_dict() for r in ("model", "loss", "sampler", "optimizer", "evaluation")}


def _sgd_problems(m: Any, loss: Any, s: Any, opt: Any, device: str) -> list[str]:
    """What keeps the batch-1 SGD engine from running a combination (each names its parameters)."""
    out = []
    if not isinstance(m, MF):
        out.append(f"model={type(m).__name__}: the batch-1 SGD engine trains MF only")
    else:
        if m.similarity != "dot":
            out.append(f"model.similarity={m.similarity!r}: the batch-1 SGD engine scores by the inner product")
        if m.dropout:
            out.append(f"model.dropout={m.dropout}: the batch-1 SGD engine has no dropout (mini-batch engine only)")
    if isinstance(loss, BPR) and loss.negatives != 1:
        out.append(f"loss=BPR with negatives={loss.negatives}: the batch-1 SGD engine's BPR reads one negative")
    if isinstance(s, RNS) and s.on_device:
        out.append("sampler.on_device=True: the batch-1 SGD engine draws on the host (numba)")
    if isinstance(s, SharedUniform):
        out.append("sampler=SharedUniform: negatives shared by a mini-batch's rows need the mini-batch engine "
                   "(optimizer=Adam(...) or SGD(batch_size > 1))")  # fmt: skip
    if isinstance(s, CatalogueUniform):
        out.append("sampler=CatalogueUniform: catalogue-uniform negatives per row need the mini-batch engine "
                   "(optimizer=Adam(...) or SGD(batch_size > 1))")  # fmt: skip
    if not isinstance(loss, _SGD_LOSSES):
        out.append(f"loss={type(loss).__name__}: the batch-1 SGD engine trains BPR, BCE and InfoNCE only")
    if getattr(loss, "temperature", 1.0) != 1.0:
        out.append(f"loss.temperature={loss.temperature}: the batch-1 SGD engine has no temperature (t = 1)")
    if isinstance(s, SRNS) and loss.negatives > 1:
        out.append(f"sampler=SRNS with loss.negatives={loss.negatives}: SRNS draws one negative per pair")
    if not isinstance(opt, SGD):
        out.append(f"optimizer={type(opt).__name__}: the batch-1 engine is plain SGD")
    else:
        if opt.batch_size != 1:
            out.append(f"optimizer.batch_size={opt.batch_size}: the numba engine steps on one pair at a time")
        if opt.milestones:
            out.append(f"optimizer.milestones={opt.milestones}: the batch-1 SGD engine keeps lr fixed")
        if opt.max_grad_norm is not None:
            out.append(f"optimizer.max_grad_norm={opt.max_grad_norm}: the batch-1 SGD engine does not clip")
        if opt.penalty != "weight_decay":
            out.append(f"optimizer.penalty={opt.penalty!r}: the batch-1 SGD engine's L2 is in the update (weight_decay)")
    if device not in ("cpu", "auto"):
        out.append(f"device={device!r}: the batch-1 SGD engine runs on the CPU (numba)")
    return out


def _torch_problems(m: Any, loss: Any, s: Any, opt: Any) -> list[str]:
    """What keeps the mini-batch engine from running a combination (each names its parameters)."""
    out = []
    if isinstance(m, MF) and m.dropout and isinstance(s, SharedUniform):
        out.append(f"model.dropout={m.dropout} with sampler=SharedUniform: the user-vector dropout is applied to "
                   "negatives drawn per row (sampler=RNS)")  # fmt: skip
    if isinstance(loss, BCE):
        out.append("loss=BCE: runs on the batch-1 SGD engine only (optimizer=SGD(batch_size=1), model=MF)")
    if isinstance(s, (AOBPR, SRNS)) and not isinstance(loss, BPR):
        out.append(f"sampler={type(s).__name__} with loss={type(loss).__name__}: the mini-batch engine draws "
                   f"{type(s).__name__} negatives for BPR only (the batch-1 SGD engine also takes BCE and InfoNCE)")  # fmt: skip
    if isinstance(s, SRNS) and isinstance(loss, BPR) and loss.negatives != 1:
        out.append(f"sampler=SRNS with loss.negatives={loss.negatives}: SRNS picks one negative per pair")
    if isinstance(s, (AOBPR, SRNS)) and isinstance(m, MF) and m.similarity != "dot":
        out.append(f"sampler={type(s).__name__} with model.similarity={m.similarity!r}: the mini-batch "
                   f"{type(s).__name__} scores by the inner product")  # fmt: skip
    if isinstance(s, BNS) and isinstance(m, MF) and m.similarity != "dot":
        out.append(f"sampler=BNS with model.similarity={m.similarity!r}: the mini-batch BNS scores by the inner product")
    if isinstance(s, BNS) and isinstance(loss, BPR) and loss.negatives != 1:
        out.append(f"sampler=BNS with loss.negatives={loss.negatives}: BNS picks one negative per pair")
    if isinstance(s, BNS):
        if not isinstance(loss, BPR):
            out.append(f"sampler=BNS with loss={type(loss).__name__}: the mini-batch engine draws BNS negatives for BPR only")
        default = BNS()
        for name in ("prior", "oracle_levels", "ecdf", "lam_schedule", "warm_rns_epochs"):
            if BNS(**{name: getattr(s, name)}) != default:
                out.append(f"sampler.{name}: a BNS option of the batch-1 SGD engine (the mini-batch engine uses the "
                           "popularity prior, F over the non-interacted items, a constant lam)")  # fmt: skip
    if isinstance(s, DNS) and not isinstance(loss, (BPR, DPL)):
        out.append(f"sampler=DNS with loss={type(loss).__name__}: the mini-batch engine draws DNS negatives for BPR or DPL")
    if isinstance(loss, CCL) and not (isinstance(m, MF) and m.similarity == "cosine"):
        out.append(f"loss=CCL with model={m!r}: CCL's margin is on the cosine (model=MF(similarity='cosine'))")
    if isinstance(opt, SGD) and opt.shuffle != "epoch":
        out.append("optimizer.shuffle='once': the mini-batch engine reshuffles every epoch")
    return out


def choose_engine(
    model: Spec, loss: Spec, sampler: Spec, optimizer: Spec, device: str = "cpu", engine: str = "auto"
) -> str:  # fmt: skip
    """The engine that runs a combination: ``"sgd"`` or ``"torch"``, or a ``ValueError`` naming what it cannot take.

    ``"auto"``: batch-1 SGD (numba, thesis ch. 4) when the optimizer is :class:`SGD` with
    ``batch_size=1``, the model :class:`MF` and the loss BPR, BCE or InfoNCE; otherwise mini-batch
    (torch, thesis ch. 5-6). :func:`~negtheory.training.fit` calls it with its arguments.

    Parameters
    ----------
    model, loss, sampler, optimizer : Spec
        The specs of the run.
    device : str
        Where the run trains (the batch-1 engine runs on the CPU).
    engine : {"auto", "sgd", "torch"}
        The engine asked for.

    Returns
    -------
    str
        ``"sgd"`` or ``"torch"``.

    Raises
    ------
    ValueError
        The chosen engine cannot run the combination; the message names each parameter at fault.

    Examples
    --------
    >>> from negtheory.training import AOBPR, BNS, BPR, MF, SGD, Adam, InfoNCE, LightGCN, choose_engine
    >>> choose_engine(MF(), BPR(), AOBPR(), SGD()), choose_engine(LightGCN(), BPR(), BNS(), Adam())
    ('sgd', 'torch')
    >>> choose_engine(LightGCN(), InfoNCE(), AOBPR(), Adam())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: no engine runs this combination: ... sampler=AOBPR with loss=InfoNCE: the mini-batch engine draws...
    """
    if engine not in ("auto",) + ENGINES:
        raise ValueError(f"engine must be 'auto', 'sgd' or 'torch', got {engine!r}")
    if engine == "auto":
        batch1 = isinstance(optimizer, SGD) and optimizer.batch_size == 1 and isinstance(model, MF)
        engine = "sgd" if batch1 and isinstance(loss, _SGD_LOSSES) else "torch"
    if engine == "sgd":
        problems = _sgd_problems(model, loss, sampler, optimizer, device)
    else:
        problems = _torch_problems(model, loss, sampler, optimizer)
    if problems:
        where = "the batch-1 SGD engine" if engine == "sgd" else "the mini-batch (torch) engine"
        raise ValueError(f"no engine runs this combination: it goes to {where}, which cannot take " + "; ".join(problems))
    return engine


@dataclass
class FitResult:
    """What :func:`~negtheory.training.fit` returns (one trained run of thesis ch. 4-6).

    Parameters
    ----------
    history : list of dict
        One row per evaluation: ``epoch`` (1-based), ``loss``, the engine's statistics (batch-1
        SGD: ``tnr``, ``inf`` of thesis eq. 4.27-4.28) and the ranking metrics ``valid_*`` /
        ``test_*``.
    best_epoch : int or None
        The epoch of best validation ``Evaluation.monitor`` (None without a validation split).
    user_emb, item_emb : ndarray
        The final embeddings that score (LightGCN's propagated ones): scores = user_emb @ item_emb.T.
    scores : ScoreMatrix
        The final scores.
    engine : str
        ``"sgd"`` or ``"torch"``.
    specs : dict
        The specs of the run as dicts (``spec_from_dict`` reads each back).
    config : dict
        The engine's record of the settings (the old trainers' ``config``).
    seconds : float
        Training time.
    model : torch.nn.Module, optional
        The trained torch model (mini-batch engine).
    negatives : list, optional
        Batch-1 SGD with the old trainer's ``return_negatives``.
    resumed_from : int
        The epoch a ``checkpoint`` held when the call started (0: trained from the start).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.training import fit, MF, Evaluation
    >>> pairs = np.unique(np.random.default_rng(0).integers(0, [20, 30], size=(300, 2)), axis=0)
    >>> r = fit(load_split(pairs[:200], pairs[200:]), model=MF(dim=4), epochs=1, evaluation=Evaluation(ks=(5,)))
    >>> r.engine, list(r.history_frame()["epoch"]), r.specs["model"]["kind"]
    ('sgd', [1], 'MF')
    """

    history: list[dict[str, Any]]
    best_epoch: int | None
    user_emb: np.ndarray
    item_emb: np.ndarray
    scores: ScoreMatrix
    engine: str
    specs: dict[str, Any]
    config: dict[str, Any]
    seconds: float
    model: Any = None
    negatives: list[Any] | None = None
    resumed_from: int = 0

    def history_frame(self) -> Any:
        """The history as a table.

        Returns
        -------
        pandas.DataFrame
            One row per evaluation.
        """
        import pandas as pd

        return pd.DataFrame(self.history)


def _check_role(role: str, value: Any) -> None:
    classes = ROLES[role]
    if not isinstance(value, classes):
        names = ", ".join(c.__name__ for c in classes)
        raise TypeError(f"{role} must be a spec, one of {names} (negtheory.training), got {value!r}")


def make_run(model, loss, sampler, optimizer, epochs, evaluation, rng, callbacks=(), device="cpu", progress=False,
             extras=None, checkpoint=None) -> Run:  # fmt: skip
    """A validated :class:`Run` (private; shared by :func:`fit` and the old trainers)."""
    from .._validation import int_scalar
    from ..recsys.loop import check_callbacks  # here, not at the top: negtheory.recsys imports this module

    for role, value in (("model", model), ("loss", loss), ("sampler", sampler), ("optimizer", optimizer),
                        ("evaluation", evaluation)):  # fmt: skip
        _check_role(role, value)
    epochs = int_scalar("epochs", epochs, 1)
    if isinstance(sampler, BNS) and sampler.lam_schedule is not None and len(sampler.lam_schedule) != epochs:
        raise ValueError(f"sampler.lam_schedule must hold one lambda per epoch ({epochs}), got {len(sampler.lam_schedule)}")
    if checkpoint is not None and not isinstance(checkpoint, (str, os.PathLike)):
        raise TypeError(f"checkpoint must be a path (str or os.PathLike) or None, got {checkpoint!r}")
    return Run(model, loss, sampler, optimizer, epochs, evaluation, int_seed("rng", rng), check_callbacks(callbacks), device,
               bool(progress), dict(extras or {}), checkpoint)  # fmt: skip


def warn_if_external(name: str, replacement: str) -> None:
    """The ``DeprecationWarning`` of an old trainer ``name``, for callers outside negtheory only.

    The package's own callers (the reproductions, the CLI) keep calling the old trainers for this
    release without a warning; a user's script, notebook or test gets one, pointing at its call.
    The frames walked up are the trainer's and any ``negtheory._deprecation`` wrapper around it.
    """
    frame = sys._getframe(2)  # 0: here, 1: the trainer, 2: its caller (or a decorator's wrapper)
    level = 4
    while frame is not None and frame.f_globals.get("__name__") == "negtheory._deprecation":
        frame, level = frame.f_back, level + 1
    caller = "" if frame is None else str(frame.f_globals.get("__name__", ""))
    if caller == "negtheory" or caller.startswith("negtheory."):
        return
    warn_deprecated(f"{name}()", replacement, since="0.1", stacklevel=level)


def eval_splits(data, ev: Evaluation, default: str, both: tuple[str, str]) -> tuple[tuple[str, ...], str | None]:
    """The splits an engine ranks (in history-key order) and the monitor of model selection.

    ``default`` is the engine's ``Evaluation.on`` when None ("test" for batch-1 SGD, "both" for
    mini-batches) and ``both`` the engine's order of the two splits (each old trainer's own).
    """
    on = ev.on or default
    splits = {"test": ("test",), "valid": ("valid",), "both": both}[on]
    if ev.patience is not None and ("valid" not in splits or len(data.valid) == 0):
        raise ValueError("Evaluation.patience needs a validation split: use data.with_validation(fraction)")
    return splits, (ev.resolved_monitor if "valid" in splits else None)
