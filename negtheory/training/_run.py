"""The run a training engine reads, and which engine runs it (private to :mod:`negtheory.training`).

Kept apart from :mod:`negtheory.training.fit` so that the engines (``negtheory.recsys.bpr_sgd``,
``negtheory.bridge.recommend``) read it without importing :func:`~negtheory.training.fit`, which
imports them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._rng import int_seed
from .negatives import Sampler
from .specs import (
    BCE,
    BNS,
    BPR,
    CCL,
    MF,
    RNS,
    ROLES,
    SGD,
    SRNS,
    Adam,
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

# the engines' own helpers (Run, make_run, eval_splits) stay off the API pages
__all__ = ["FitResult", "choose_engine", "undefined"]

#: the engines: "sgd" (numba, batch 1) and "torch" (mini-batch)
ENGINES = ("sgd", "torch")

_SGD_LOSSES = (BPR, BCE, InfoNCE)


@dataclass(frozen=True)
class Run:
    """Everything an engine reads (private): the specs, the run's length, seed and hooks.

    ``extras`` carries a backend's own hooks: the numba backend's ``return_negatives`` (every
    negative drawn, for the tests of the samplers' laws) and ``callback(epoch, U, V)``.
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
    #: negatives per pair (the loss spec's ``negatives``; a user's loss: its ``negatives`` attribute, else 1)
    negatives: int = 1
    #: the mini-batch size (the optimizer spec's; a torch optimizer class or factory: fit's ``batch_size``)
    batch_size: int = 1

    def specs(self) -> dict[str, dict[str, Any]]:
        """The run's specs as JSON-ready dicts (its provenance); a user's object by its class."""
        return {
            r: _as_dict(getattr(self, r))
            for r in ("model", "loss", "sampler", "optimizer", "evaluation")
        }


def _as_dict(value: Any) -> dict[str, Any]:
    """A spec's ``to_dict()``; a user's object (not serialisable) as its class's qualified name."""
    if isinstance(value, Spec):
        return value.to_dict()
    cls = value if isinstance(value, type) else type(value)
    return {"kind": "object", "class": f"{cls.__module__}.{cls.__qualname__}"}


def _sgd_problems(m: Any, loss: Any, s: Any, opt: Any, device: str) -> list[str]:
    """What the numba batch-1 SGD backend does not cover of a combination (each names its parameters).

    The backend is an implementation of a subset of the combinations, picked automatically for
    speed; whatever it does not cover runs on the torch trainer, so these are never refusals of
    ``engine="auto"``.
    """
    out = []
    if not all(isinstance(x, Spec) for x in (m, loss, s, opt)):
        out.append(
            "a user's loss, sampler or optimizer object: the numba backend runs the package's specs only"
        )
        return out
    if not isinstance(m, MF):
        out.append(f"model={type(m).__name__}: the numba backend trains MF only")
    else:
        if m.similarity != "dot":
            out.append(
                f"model.similarity={m.similarity!r}: the numba backend scores by the inner product"
            )
        if m.dropout:
            out.append(f"model.dropout={m.dropout}: the numba backend has no dropout")
    if isinstance(loss, BPR) and loss.negatives != 1:
        out.append(
            f"loss=BPR with negatives={loss.negatives}: the numba backend's BPR reads one negative"
        )
    if isinstance(s, (RNS, CatalogueUniform)) and s.on_device:
        out.append("sampler.on_device=True: the numba backend draws on the host")
    if isinstance(s, (SharedUniform, CatalogueUniform)):
        out.append(
            f"sampler={type(s).__name__}: the numba backend draws among the non-interacted items"
        )
    if not isinstance(loss, _SGD_LOSSES):
        out.append(f"loss={type(loss).__name__}: the numba backend trains BPR, BCE and InfoNCE")
    if getattr(loss, "temperature", 1.0) != 1.0:
        out.append(
            f"loss.temperature={loss.temperature}: the numba backend has no temperature (t = 1)"
        )
    if isinstance(s, SRNS) and loss.negatives > 1:
        out.append(
            f"sampler=SRNS with loss.negatives={loss.negatives}: the numba backend draws one SRNS negative per pair"
        )
    if not isinstance(opt, SGD):
        out.append(f"optimizer={type(opt).__name__}: the numba backend is plain SGD")
    else:
        if opt.batch_size != 1:
            out.append(
                f"optimizer.batch_size={opt.batch_size}: the numba backend steps on one pair at a time"
            )
        if opt.milestones:
            out.append(f"optimizer.milestones={opt.milestones}: the numba backend keeps lr fixed")
        if opt.max_grad_norm is not None:
            out.append(
                f"optimizer.max_grad_norm={opt.max_grad_norm}: the numba backend does not clip"
            )
        if opt.penalty != "batch":
            out.append(
                f"optimizer.penalty={opt.penalty!r}: the numba backend's L2 is that of the rows each update touches "
                "(penalty='batch')"
            )
    if device not in ("cpu", "auto"):
        out.append(f"device={device!r}: the numba backend runs on the CPU")
    return out


def undefined(model: Any, loss: Any, sampler: Any, optimizer: Any) -> list[str]:
    """Why a combination is not defined mathematically (empty when it is): each reason says what needs what.

    Parameters
    ----------
    model, loss, sampler, optimizer : Spec or object
        The components of a run.

    Returns
    -------
    list of str
        The reasons ("X needs Y"); a combination with none runs.

    Examples
    --------
    >>> from negtheory.training import CCL, MF, RNS, Adam, undefined
    >>> undefined(MF(), CCL(), RNS(), Adam())[0][:30]
    'loss=CCL needs bounded scores:'
    >>> undefined(MF(similarity="cosine"), CCL(), RNS(), Adam())
    []
    """
    out = []
    cosine = isinstance(model, MF) and model.similarity == "cosine"
    if isinstance(loss, CCL) and not cosine and not loss.positive_hinge:
        out.append(
            "loss=CCL needs bounded scores: its positive term 1 - x is unbounded below on inner products (its margin "
            f"m = {loss.margin} is a cosine's); model=MF(similarity='cosine'), or CCL(positive_hinge=True), the "
            "released code's max(0, 1 - x)"
        )
    return out


def choose_engine(
    model: Any, loss: Any, sampler: Any, optimizer: Any, device: str = "cpu", engine: str = "auto"
) -> str:
    """The backend that runs a combination: ``"sgd"`` (numba) or ``"torch"``, or a ``ValueError``.

    ``"auto"``: the numba batch-1 SGD backend (thesis ch. 4) for the combinations it covers (MF
    with the inner product, BPR / BCE / InfoNCE at t = 1, the host samplers RNS, PNS, DNS, BNS,
    AOBPR, SRNS, plain SGD with batch 1), the torch trainer for every other one. A combination
    that is not defined mathematically (:func:`undefined`) raises whatever the backend.
    :func:`~negtheory.training.fit` calls it with its arguments.

    Parameters
    ----------
    model, loss, sampler, optimizer : Spec or object
        The components of the run.
    device : str
        Where the run trains (the numba backend runs on the CPU).
    engine : {"auto", "sgd", "torch"}
        The backend asked for.

    Returns
    -------
    str
        ``"sgd"`` or ``"torch"``.

    Raises
    ------
    ValueError
        The combination is not defined (the message says what needs what), or ``engine="sgd"``
        was asked for a combination the numba backend does not cover (the message names each
        parameter).

    Examples
    --------
    >>> from negtheory.training import AOBPR, BNS, BPR, DCL, MF, SGD, Adam, InfoNCE, LightGCN, choose_engine
    >>> choose_engine(MF(), BPR(), AOBPR(), SGD()), choose_engine(LightGCN(), BPR(), BNS(), Adam())
    ('sgd', 'torch')
    >>> choose_engine(MF(), DCL(), BNS(), SGD())  # batch 1, a loss the numba backend lacks: torch
    'torch'
    """
    if engine not in ("auto",) + ENGINES:
        raise ValueError(f"engine must be 'auto', 'sgd' or 'torch', got {engine!r}")
    reasons = undefined(model, loss, sampler, optimizer)
    if reasons:
        raise ValueError("this combination is not defined: " + "; ".join(reasons))
    problems = _sgd_problems(model, loss, sampler, optimizer, device)
    if engine == "auto":
        return "torch" if problems else "sgd"
    if engine == "sgd" and problems:
        raise ValueError(
            "engine='sgd': the numba backend does not cover this combination (engine='auto' runs it on the "
            "torch trainer): " + "; ".join(problems)
        )
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
    """A spec of its role, or (loss, sampler, optimizer) a user's object of that role."""
    classes = ROLES[role]
    if isinstance(value, classes):
        return
    names = ", ".join(c.__name__ for c in classes)
    if role == "sampler" and isinstance(value, Sampler) and not isinstance(value, Spec):
        return
    if role in ("loss", "optimizer") and callable(value) and not isinstance(value, Spec):
        return
    objects = {
        "loss": " or a loss object (an nn.Module or callable of the positive logits [B] and negative logits [B, N])",
        "sampler": " or a negtheory.training.Sampler subclass instance",
        "optimizer": " or a torch.optim optimizer class or a factory params -> optimizer",
    }.get(role, "")
    raise TypeError(
        f"{role} must be a spec, one of {names} (negtheory.training){objects}, got {value!r}"
    )


def make_run(
    model,
    loss,
    sampler,
    optimizer,
    epochs,
    evaluation,
    rng,
    callbacks=(),
    device="cpu",
    progress=False,
    extras=None,
    checkpoint=None,
    batch_size=None,
) -> Run:
    """A validated :class:`Run` (private; used by :func:`fit`)."""
    from .._validation import int_scalar
    from ..recsys.loop import (
        check_callbacks,
    )  # here, not at the top: negtheory.recsys imports this module

    for role, value in (
        ("model", model),
        ("loss", loss),
        ("sampler", sampler),
        ("optimizer", optimizer),
        ("evaluation", evaluation),
    ):
        _check_role(role, value)
    epochs = int_scalar("epochs", epochs, 1)
    if (
        isinstance(sampler, BNS)
        and sampler.lam_schedule is not None
        and len(sampler.lam_schedule) != epochs
    ):
        raise ValueError(
            f"sampler.lam_schedule must hold one lambda per epoch ({epochs}), got {len(sampler.lam_schedule)}"
        )
    if checkpoint is not None and not isinstance(checkpoint, (str, os.PathLike)):
        raise TypeError(
            f"checkpoint must be a path (str or os.PathLike) or None, got {checkpoint!r}"
        )
    negatives = int_scalar("loss.negatives", getattr(loss, "negatives", 1), 1)
    if isinstance(optimizer, (SGD, Adam)):
        if batch_size is not None:
            raise ValueError(
                "batch_size: set it in the optimizer spec (SGD(batch_size=...), Adam(batch_size=...))"
            )
        size = optimizer.batch_size
    else:
        size = int_scalar("batch_size", 1024 if batch_size is None else batch_size, 1)
    return Run(
        model,
        loss,
        sampler,
        optimizer,
        epochs,
        evaluation,
        int_seed("rng", rng),
        check_callbacks(callbacks),
        device,
        bool(progress),
        dict(extras or {}),
        checkpoint,
        negatives,
        size,
    )


def eval_splits(
    data, ev: Evaluation, default: str, both: tuple[str, str]
) -> tuple[tuple[str, ...], str | None]:
    """The splits an engine ranks (in history-key order) and the monitor of model selection.

    ``default`` is the engine's ``Evaluation.on`` when None ("test" for batch-1 SGD, "both" for
    mini-batches) and ``both`` the engine's order of the two splits (each old trainer's own).
    """
    on = ev.on or default
    splits = {"test": ("test",), "valid": ("valid",), "both": both}[on]
    if ev.patience is not None and ("valid" not in splits or len(data.valid) == 0):
        raise ValueError(
            "Evaluation.patience needs a validation split: use data.with_validation(fraction)"
        )
    return splits, (ev.resolved_monitor if "valid" in splits else None)
