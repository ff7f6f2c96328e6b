r"""The one epoch loop of the recommendation trainers (numpy only; no torch import).

Both :func:`negtheory.recsys.fit_bpr_sgd` (numba, batch-1 SGD) and
:func:`negtheory.bridge.recommend.fit_mf` (torch, mini-batches) train through
:func:`train_loop`. A trainer supplies an :class:`EpochRunner`, an object with

``run_epoch(epoch) -> dict``
    train one epoch (``epoch`` is the 0-based index) and return that epoch's statistics
    (e.g. ``loss``, ``tnr``, ``inf``), which open the epoch's history row after ``epoch``;
``scores() -> ndarray``
    the score matrix [n_users, n_items] of the current model (float).

:func:`train_loop` owns everything else: the progress bar, evaluation every ``eval_every``
epochs and after the last one with :func:`~negtheory.recsys.metrics.topk_metrics` (validation
items ranked with the training items masked, test items with training *and* validation items
masked), early stopping on a validation metric, and the callbacks.

**Callbacks.** Each callback is called as ``cb(epoch, scores)`` with ``scores`` the score matrix
of the current model: once with ``epoch=0`` before the first training epoch (the initial
parameters), then after every *evaluated* epoch with its 1-based number and the very matrix that
epoch was ranked with (computed once; callbacks run after the ranking, so one that modifies the
array cannot change the recorded metrics). A callback returning a dict has its items merged into
that epoch's history row (the return value of the epoch-0 call, and any value that is not a dict,
is ignored). The loop hands callbacks no random generator: training draws only from its own
generators, so a callback cannot shift them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .metrics import topk_metrics

if TYPE_CHECKING:
    from .interactions import Interactions

__all__ = ["EpochRunner", "Callback", "check_callbacks", "train_loop", "EVAL_SPLITS"]

#: the held-out splits :func:`train_loop` can rank
EVAL_SPLITS = ("valid", "test")


class Callback(Protocol):
    """The type of a training callback: ``cb(epoch, scores) -> dict | None`` (module notes).

    Any callable of two positional arguments conforms (a function, a lambda, an object with
    ``__call__`` such as :class:`~negtheory.recsys.score_probe.ScoreProbe`); nothing derives from
    this protocol, which only names the type. It is called once with ``epoch=0`` and the initial
    scores, then after every evaluated epoch with its 1-based number and the score matrix
    [n_users, n_items] that epoch was ranked with; a returned dict is merged into that epoch's
    history row.

    Parameters
    ----------
    *args, **kwargs
        Not used: a protocol is a type and is never instantiated.
    """

    def __call__(self, epoch: int, scores: np.ndarray, /) -> Any: ...  # pragma: no cover


class EpochRunner(Protocol):
    """What :func:`train_loop` needs from a trainer: one epoch of training, and the current scores.

    A structural type: any object with these two methods is a runner (e.g. the runners of
    :func:`~negtheory.recsys.fit_bpr_sgd` and :func:`negtheory.bridge.recommend.fit_mf`).

    Parameters
    ----------
    *args, **kwargs
        Not used: a protocol is a type and is never instantiated.
    """

    def run_epoch(self, epoch: int) -> dict[str, float]:
        """Train one epoch and return its statistics.

        Parameters
        ----------
        epoch : int
            The epoch's 0-based index (0 .. epochs - 1), e.g. to pick the epoch's random stream.

        Returns
        -------
        dict of str to float
            The epoch's statistics (e.g. ``{"loss": ..., "tnr": ..., "inf": ...}``), which open
            the epoch's history row after ``epoch``.
        """
        ...  # pragma: no cover

    def scores(self) -> np.ndarray:
        """The score matrix of the current model.

        Returns
        -------
        ndarray, shape (n_users, n_items)
            The scores x_ui of the current parameters (a numpy float array).
        """
        ...  # pragma: no cover


def check_callbacks(callbacks: Iterable[Callback] | None) -> tuple[Callback, ...]:
    """Validate ``callbacks`` (a sequence of callables) and return them as a tuple.

    Parameters
    ----------
    callbacks : sequence of callable, or None
        ``None`` and ``()`` mean no callback. A bare callable, a string or anything holding a
        non-callable is rejected.

    Returns
    -------
    tuple of callable
        The callbacks in the given order (empty for ``None``).

    Raises
    ------
    ValueError
        ``callbacks`` is not a sequence of callables (the message names ``callbacks``).

    Examples
    --------
    >>> from negtheory.recsys.loop import check_callbacks
    >>> check_callbacks(None), len(check_callbacks([print]))
    ((), 1)
    >>> check_callbacks(print)
    Traceback (most recent call last):
    ...
    ValueError: callbacks must be a sequence of callables cb(epoch, scores), e.g. [f]; got a single callable
    """
    if callbacks is None:
        return ()
    if callable(callbacks):
        raise ValueError("callbacks must be a sequence of callables cb(epoch, scores), e.g. [f]; got a single callable")
    if isinstance(callbacks, (str, bytes)) or not isinstance(callbacks, Iterable):
        raise ValueError(f"callbacks must be a sequence of callables cb(epoch, scores), got {type(callbacks).__name__}")
    out = tuple(callbacks)
    bad = [type(cb).__name__ for cb in out if not callable(cb)]
    if bad:
        raise ValueError(f"callbacks must be a sequence of callables cb(epoch, scores); got non-callable {', '.join(bad)}")
    return out


def _merge(row: dict[str, Any], ret: object) -> None:
    """Merge a callback's returned dict into the history row (any other return value is ignored)."""
    if isinstance(ret, dict):
        row.update(ret)


def train_loop(
    runner: EpochRunner,
    data: Interactions | None,
    *,
    epochs: int,
    eval_every: int = 1,
    topk: int | Sequence[int] = (5, 10, 20),
    eval_on: Sequence[str] = EVAL_SPLITS,
    monitor: str | None = None,
    patience: int | None = None,
    callbacks: Sequence[Callback] = (),
    progress: bool = False,
    desc: str = "train",
) -> dict[str, Any]:
    """Run ``epochs`` epochs of ``runner`` with evaluation, early stopping and callbacks.

    Parameters
    ----------
    runner : EpochRunner
        Has ``run_epoch(epoch) -> dict`` (0-based ``epoch``; the epoch's statistics) and
        ``scores() -> ndarray`` (the current [n_users, n_items] scores).
    data : Interactions or None
        The split whose held-out items are ranked. None for a task that is not ranking (the
        contrastive digits of :mod:`negtheory.bridge.train`): then ``eval_on`` must be empty, the
        runner's statistics are the whole history row, and ``scores()`` is called only for the
        callbacks.
    epochs : int
        Number of epochs (at most; early stopping may end sooner).
    eval_every : int
        Evaluate every this many epochs, and after the last one.
    topk : int or sequence of int
        List lengths of Precision / Recall / NDCG.
    eval_on : sequence of {"valid", "test"}
        The splits ranked at each evaluation, in this order (it is the order of the history
        keys): ``valid_*`` with training items masked, ``test_*`` with training and validation
        items masked. A split without pairs is skipped.
    monitor : str, optional
        Validation metric for model selection, e.g. ``"ndcg@10"`` (read as ``valid_<monitor>``).
        Used when ``"valid"`` is in ``eval_on`` and the split has validation pairs; None: no
        model selection.
    patience : int, optional
        Stop when the monitored metric has not improved for this many evaluations (needs
        ``monitor``).
    callbacks : sequence of callable
        ``cb(epoch, scores)``, see the module notes.
    progress : bool
        Show a tqdm progress bar.
    desc : str
        The progress bar's label.

    Returns
    -------
    dict
        ``history`` (one dict per evaluation: ``epoch`` (1-based), the runner's statistics, the
        ranking metrics prefixed ``valid_`` / ``test_``, the callbacks' items), ``best_epoch``
        (by the monitored metric; None without it), ``epochs_run`` and ``seconds``.

    Raises
    ------
    ValueError
        ``monitor`` is not a recorded validation metric, ``eval_on`` names an unknown split, or
        ``eval_on`` is not empty while ``data`` is None.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.recsys.loop import train_loop
    >>> d = load_split(np.array([[0, 0], [1, 1], [2, 2]]), np.array([[0, 1], [1, 2], [2, 0]]))
    >>> class Shift:  # a "model" whose scores move one item to the right each epoch
    ...     def __init__(self):
    ...         self.s = np.eye(3)
    ...     def run_epoch(self, epoch):
    ...         self.s = np.roll(self.s, 1, axis=1)
    ...         return {"loss": 1.0 / (epoch + 1)}
    ...     def scores(self):
    ...         return self.s
    >>> seen = []  # epoch 3: ties among the unmasked items go to the lowest index, 2 of 3 users hit
    >>> r = train_loop(Shift(), d, epochs=3, eval_every=2, topk=(1,), eval_on=("test",),
    ...                callbacks=[lambda e, s: seen.append(e) or {"top": int(s[0].argmax())}])
    >>> seen, [(h["epoch"], h["loss"], h["test_precision@1"], h["top"]) for h in r["history"]]
    ([0, 2, 3], [(2, 0.5, 0.0, 2), (3, 0.3333333333333333, 0.6666666666666666, 0)])
    """
    unknown = [s for s in eval_on if s not in EVAL_SPLITS]
    if unknown:
        raise ValueError(f"eval_on must name splits among {EVAL_SPLITS}, got {unknown}")
    callbacks = check_callbacks(callbacks)
    ranked: dict[str, tuple[np.ndarray, np.ndarray, int]] = {}
    if data is None:
        if eval_on:
            raise ValueError("eval_on must be empty when data is None (nothing to rank)")
    else:
        train_mask = data.train_mask()
        valid_mask = data.valid_mask()
        ranked = {
            "valid": (valid_mask, train_mask, len(data.valid)),
            "test": (data.test_mask(), train_mask | valid_mask, len(data.test)),
        }
    select = monitor is not None and "valid" in eval_on and data is not None and len(data.valid) > 0
    key = f"valid_{monitor}"
    history: list[dict[str, Any]] = []
    best, best_epoch, since, epochs_run = -math.inf, None, 0, 0
    bar: Iterable[int] = range(epochs)
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(bar, desc=desc, unit="epoch", leave=False)
    t0 = time.perf_counter()
    if callbacks:
        scores0 = runner.scores()
        for cb in callbacks:
            cb(0, scores0)
        del scores0
    for epoch in bar:
        stats = runner.run_epoch(epoch)
        epochs_run = epoch + 1
        if not ((epoch + 1) % eval_every == 0 or epoch == epochs - 1):
            continue
        row: dict[str, Any] = dict(epoch=epoch + 1, **stats)
        if not (eval_on or callbacks):  # nothing reads the scores (e.g. the digits task): skip them
            history.append(row)
            continue
        scores = runner.scores()
        for split in eval_on:
            relevant, exclude, n_pairs = ranked[split]
            if n_pairs:
                m = topk_metrics(scores, relevant, exclude, topk)
                row.update({f"{split}_{k}": v for k, v in m.items() if k != "n_users_evaluated"})
        val = None
        if select:
            val = row.get(key)
            if val is None:
                topks = tuple(topk) if not isinstance(topk, int) else (topk,)
                raise ValueError(f"monitor {monitor!r} is not a recorded metric (topk={topks})")
        for cb in callbacks:
            _merge(row, cb(epoch + 1, scores))
        history.append(row)
        if val is not None:
            if val > best:
                best, best_epoch, since = val, epoch + 1, 0
            else:
                since += 1
                if patience is not None and since >= patience:
                    break
    return dict(history=history, best_epoch=best_epoch, epochs_run=epochs_run, seconds=time.perf_counter() - t0)
