r"""The one epoch loop of the recommendation trainers (numpy only; no torch import).

Both engines of :func:`negtheory.training.fit` — batch-1 SGD (numba, :mod:`negtheory.recsys.bpr_sgd`)
and mini-batches (torch, :mod:`negtheory.bridge.recommend`) — train through
:func:`train_loop`. A trainer supplies an :class:`EpochRunner`, an object with

``run_epoch(epoch) -> dict``
    train one epoch (``epoch`` is the 0-based index) and return that epoch's statistics
    (e.g. ``loss``, ``tnr``, ``inf``), which open the epoch's history row after ``epoch``;
``score_block(users) -> ndarray``
    the rows [len(users), n_items] of the current model's score matrix for an int64 array of
    user ids (float); optionally ``score_pairs(users, items) -> ndarray`` (the scores of the
    pairs (users[k], items[k])), ``scores() -> ndarray`` (the whole [n_users, n_items] matrix,
    the older protocol, still accepted alone for small data) and ``score_matrix() ->
    ScoreMatrix`` (a snapshot of the current scores; preferred when present: the package's
    runners copy their embeddings, O((n_users + n_items) d), so the object stays valid after
    training goes on).

:func:`train_loop` owns everything else: the progress bar, evaluation every ``eval_every``
epochs and after the last one with :func:`~negtheory.recsys.metrics.topk_metrics_csr` (validation
items ranked with the training items masked, test items with training *and* validation items
masked; blocks of users at a time, so no [n_users, n_items] matrix is built), early stopping on a
validation metric, and the callbacks.

**Score matrices.** The scores reach the evaluation and the callbacks as a :class:`ScoreMatrix`:
``.shape`` (n_users, n_items), ``.dtype``, ``.block(users)`` (rows for an int64 array of user ids),
``.pairs(users, items)`` (1-d scores of the pairs) and ``np.asarray(scores)`` (the dense matrix,
for small data and for callbacks written for the older dense argument). A matrix of at most
:data:`DENSE_LIMIT` entries is computed whole once, on first use, exactly as before (so small data
ranks and calls back with the same bits as the dense code did); a larger one is computed in
blocks of rows on demand (blocks from embeddings are padded to at least 64 rows, for which the
BLAS products give every row the bits of the whole product).

**Callbacks.** Each callback is called as ``cb(epoch, scores)`` with ``scores`` the
:class:`ScoreMatrix` of the current model: once with ``epoch=0`` before the first training epoch
(the initial parameters), then after every *evaluated* epoch with its 1-based number and the very
object that epoch was ranked with (built once; callbacks run after the ranking, so one that
modifies an array it took from it cannot change the recorded metrics). On large data a callback
reads ``scores.block(users)`` / ``scores.pairs(users, items)``; ``np.asarray(scores)`` builds
the dense [n_users, n_items] matrix (float32: 4.9 GB on Gowalla). A callback returning a dict has
its items merged into that epoch's history row (the return value of the epoch-0 call, and any
value that is not a dict, is ignored); the item ``"stop": True`` is not recorded but ends the run
after that epoch (e.g. :class:`TimeBudget`). The loop hands callbacks no random generator: training
draws only from its own generators, so a callback cannot shift them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numba
import numpy as np

from .metrics import topk_metrics_csr

if TYPE_CHECKING:
    from .interactions import Interactions

__all__ = [
    "EpochRunner",
    "Callback",
    "ScoreMatrix",
    "runner_scores",
    "check_callbacks",
    "train_loop",
    "EVAL_SPLITS",
    "DENSE_LIMIT",
    "TimeBudget",
]

#: the held-out splits :func:`train_loop` can rank
EVAL_SPLITS = ("valid", "test")

#: a :class:`ScoreMatrix` of at most this many entries (64 MiB in float32) is computed whole, once
DENSE_LIMIT = 1 << 24

#: blocks computed by a BLAS product have at least this many rows (the BLAS products of fewer rows,
#: e.g. numpy's matrix-vector product for one row, may round differently from the whole product)
_MIN_BLOCK_ROWS = 64


@numba.njit(cache=True)
def _embedding_rows(W, HT, users, out):  # pragma: no cover - compiled
    """``out[b, j] = sum_k W[users[b], k] HT[k, j]`` accumulated in float64, k = 0, 1, ... in order.

    A BLAS product's rounding depends on the shape of the block and on a row's place in it (seen with
    OpenBLAS 0.3.31: the rows of ``W[users] @ H.T`` differ in the last bit with the number of rows and
    their order), so blocks and the whole matrix of one :class:`ScoreMatrix` would not agree bit for
    bit. Here each entry is one sum in a fixed order, whatever the block: the float32 products are
    exact in float64 and the sum rounds once to ``out``'s dtype. The inner loop runs over items (no
    reduction to reorder), so it vectorises.
    """
    d, n = HT.shape
    acc = np.empty(n, dtype=np.float64)
    for b in range(users.size):
        w = W[users[b]]
        acc[:] = 0.0
        for k in range(d):
            wk = np.float64(w[k])
            row = HT[k]
            for j in range(n):
                acc[j] += wk * row[j]
        for j in range(n):
            out[b, j] = acc[j]
    return out


def _user_ids(users, n_users, name="users"):
    u = np.asarray(users)
    if u.ndim != 1 or (u.size and u.dtype.kind not in "iu"):
        raise ValueError(
            f"{name} must be a 1-d array of user ids, got shape {u.shape} and dtype {u.dtype}"
        )
    u = u.astype(np.int64, copy=False)
    if u.size and (u.min() < 0 or u.max() >= n_users):
        raise ValueError(f"{name} must lie in [0, {n_users}), got {u.min()}..{u.max()}")
    return u


class ScoreMatrix:
    r"""The score matrix :math:`x_{ui}` of a model, read by blocks of users (module notes).

    What :func:`train_loop` ranks and hands to the callbacks. ``block(users)`` computes (or
    slices) the rows of the given users; ``pairs(users, items)`` the scores of single pairs;
    ``np.asarray(scores)`` the whole matrix. A matrix of at most ``dense_limit`` entries is
    computed whole on its first use and kept (so every read returns entries of that one array);
    above, nothing of size n_users x n_items is built unless ``np.asarray`` asks for it.

    Parameters
    ----------
    shape : (int, int)
        (n_users, n_items).
    block : callable
        ``block(users) -> ndarray`` of shape (len(users), n_items) for an int64 array of user ids
        (of at least ``min_rows`` rows: shorter requests are padded by repeating their first id).
    dtype : numpy dtype
        The dtype of the returned scores (default float32).
    pairs : callable, optional
        ``pairs(users, items) -> ndarray`` of shape (len(users),). Default None: the entries are
        read from ``block`` rows of the distinct users (so they equal the rows' entries bit for bit).
    dense : callable, optional
        ``dense() -> ndarray`` of shape ``shape``, the whole matrix (default None: the blocks of all
        users, stacked).
    dense_limit : int, optional
        Matrices of at most this many entries are computed whole, once, with ``dense`` (default
        None: :data:`DENSE_LIMIT`, read when the object is made).
    min_rows : int
        The fewest rows ``block`` is asked for (default 1).
    top : callable, optional
        ``top(users, k, masked) -> ndarray`` of shape (len(users), k): each row's k best items
        ranked where the scores live (e.g. on the GPU), with the items of ``masked`` (a list of
        (row, item) index arrays) at -inf, ties to the lower item index, so that it equals the
        reference ranking of :func:`~negtheory.recsys.metrics.topk_metrics_csr` on ``block(users)``
        bit for bit; it must raise ``ValueError`` on NaN scores. Used by :meth:`top_items` (above
        ``dense_limit`` only: a small matrix is ranked from its one dense array). Default None.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys.loop import ScoreMatrix
    >>> s = ScoreMatrix.from_embeddings(np.eye(2, 3, dtype=np.float32), np.arange(12, dtype=np.float32).reshape(4, 3))
    >>> s.shape, s.block(np.array([1])).tolist(), s.pairs(np.array([0, 1]), np.array([3, 3])).tolist()
    ((2, 4), [[1.0, 4.0, 7.0, 10.0]], [9.0, 10.0])
    >>> np.asarray(s).shape
    (2, 4)
    """

    def __init__(
        self,
        shape,
        block,
        *,
        dtype=np.float32,
        pairs=None,
        dense=None,
        dense_limit=None,
        min_rows=1,
        top=None,
    ):
        n_users, n_items = (int(x) for x in shape)
        if n_users < 0 or n_items < 1:
            raise ValueError(f"shape must be (n_users >= 0, n_items >= 1), got {tuple(shape)}")
        if not callable(block):
            raise ValueError(
                f"block must be a callable block(users) -> rows, got {type(block).__name__}"
            )
        self._shape = (n_users, n_items)
        self._dtype = np.dtype(dtype)
        self._block, self._pairs, self._dense_fn = block, pairs, dense
        if top is not None and not callable(top):
            raise ValueError(
                f"top must be a callable top(users, k, masked) -> items, got {type(top).__name__}"
            )
        self._top = top
        self._small = n_users * n_items <= int(DENSE_LIMIT if dense_limit is None else dense_limit)
        self._min_rows = max(1, int(min_rows))
        self._cache: np.ndarray | None = None

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_array(cls, scores) -> ScoreMatrix:
        """A dense array seen as a :class:`ScoreMatrix` (not copied: blocks are its rows).

        Parameters
        ----------
        scores : array_like, shape (n_users, n_items)
            The scores.

        Returns
        -------
        ScoreMatrix
            Its ``np.asarray`` is ``scores`` itself (for an ndarray).
        """
        a = np.asarray(scores)
        if a.ndim != 2:
            raise ValueError(f"scores must be a 2-d array (users x items), got shape {a.shape}")
        out = cls(
            a.shape,
            lambda users: a[users],
            dtype=a.dtype,
            pairs=lambda u, i: a[u, i],
            dense=lambda: a,
            dense_limit=-1,
        )
        out._cache = a
        return out

    @classmethod
    def from_embeddings(cls, user_emb, item_emb, *, dense_limit=None) -> ScoreMatrix:
        r"""The scores :math:`x_{ui} = \langle w_u, h_i\rangle` of two embedding tables (copied: a snapshot).

        Parameters
        ----------
        user_emb : array_like of float, shape (n_users, d)
            :math:`w_u`.
        item_emb : array_like of float, shape (n_items, d)
            :math:`h_i`.
        dense_limit : int, optional
            See the class (default None: :data:`DENSE_LIMIT`).

        Returns
        -------
        ScoreMatrix
            Rows ``user_emb[users] @ item_emb.T``, each entry summed over the d coordinates in a
            fixed order in float64 and rounded once to the tables' dtype, so that every block, every
            pair and the whole matrix agree bit for bit whatever the blocks (a BLAS product's rounding
            depends on the block's shape and a row's place in it). The entries are within one unit in
            the last place of the BLAS product's.
        """
        W = np.array(user_emb, copy=True)
        H = np.array(item_emb, copy=True)
        if W.ndim != 2 or H.ndim != 2 or W.shape[1] != H.shape[1]:
            raise ValueError(
                f"user_emb and item_emb must be 2-d with the same width, got {W.shape} and {H.shape}"
            )
        dtype = np.result_type(W, H)
        if dtype.kind != "f":
            dtype = np.dtype(np.float64)
        HT = np.ascontiguousarray(H.T, dtype=np.float64)

        def rows(users):
            u = np.ascontiguousarray(users, dtype=np.int64)
            return _embedding_rows(W, HT, u, np.empty((u.size, HT.shape[1]), dtype=dtype))

        return cls(
            (W.shape[0], H.shape[0]),
            rows,
            dtype=dtype,
            dense=lambda: rows(np.arange(W.shape[0])),
            dense_limit=dense_limit,
            min_rows=1,
        )

    # ------------------------------------------------------------------ reads
    @property
    def shape(self) -> tuple[int, int]:
        """(n_users, n_items)."""
        return self._shape

    @property
    def dtype(self) -> np.dtype:
        """The dtype of the scores (float)."""
        return self._dtype

    @property
    def ndim(self) -> int:
        """2, as for the dense matrix."""
        return 2

    def __repr__(self) -> str:
        return f"ScoreMatrix(shape={self._shape}, dtype={self._dtype})"

    def _whole(self) -> np.ndarray:
        if self._cache is not None:
            return self._cache
        if self._dense_fn is not None:
            a = np.asarray(self._dense_fn())
        else:
            n = self._shape[0]
            step = max(_MIN_BLOCK_ROWS, (1 << 22) // self._shape[1])
            a = np.concatenate(
                [self._rows(np.arange(s, min(n, s + step))) for s in range(0, n, step)]
                or [np.empty((0, self._shape[1]), self._dtype)]
            )
        if a.shape != self._shape:
            raise ValueError(f"the dense score matrix has shape {a.shape}, expected {self._shape}")
        if self._small:
            self._cache = a
        return a

    def block(self, users) -> np.ndarray:
        """The rows of ``users``: ``scores[users]`` without building the whole matrix (above the limit).

        Parameters
        ----------
        users : array_like of int, shape (B,)
            User ids in [0, n_users) (repeats allowed).

        Returns
        -------
        ndarray, shape (B, n_items)
            Their scores (a new array).
        """
        u = _user_ids(users, self._shape[0])
        if self._small or self._cache is not None:
            return self._whole()[u]
        return self._rows(u)

    def _rows(self, u):
        """Rows computed by the block function (padded to ``min_rows``)."""
        if u.size == 0:
            return np.empty((0, self._shape[1]), dtype=self._dtype)
        return np.asarray(self._block(self._padded(u)))[: u.size]

    def top_items(self, users, k: int, masked=()) -> np.ndarray | None:
        """Each user's ``k`` best items ranked by the matrix's own ``top`` function, or None.

        Parameters
        ----------
        users : array_like of int, shape (B,)
            User ids in [0, n_users).
        k : int
            List length, in 1 .. n_items.
        masked : sequence of (ndarray, ndarray)
            (row in ``users``, item) index pairs scored -inf before ranking.

        Returns
        -------
        ndarray of int64, shape (B, k), or None
            The items, best first (ties to the lower index), equal to the reference ranking of
            ``block(users)``; None when the matrix has no ``top`` function or is small (computed
            whole): the caller ranks ``block(users)`` itself.
        """
        if self._top is None or self._small or self._cache is not None:
            return None
        u = _user_ids(users, self._shape[0])
        if u.size == 0:
            return np.empty((0, int(k)), dtype=np.int64)
        # the padded rows of _rows, so that the scores are those block() returns
        return np.asarray(self._top(self._padded(u), int(k), list(masked)), dtype=np.int64)[
            : u.size
        ]

    def _padded(self, u: np.ndarray) -> np.ndarray:
        """``u`` padded to ``min_rows`` ids by repeating its first (blocks of fewer rows may round differently)."""
        pad = self._min_rows - u.size
        return np.concatenate([u, np.full(pad, u[0])]) if pad > 0 else u

    def pairs(self, users, items) -> np.ndarray:
        """The scores of the pairs (users[k], items[k]), equal to the entries of :meth:`block` rows.

        Parameters
        ----------
        users, items : array_like of int, shape (n,)
            User ids in [0, n_users) and item ids in [0, n_items).

        Returns
        -------
        ndarray, shape (n,)
            ``scores[users[k], items[k]]``.
        """
        u = _user_ids(users, self._shape[0])
        i = np.asarray(items)
        if i.shape != u.shape or (i.size and i.dtype.kind not in "iu"):
            raise ValueError(
                f"items must be a 1-d array of item ids of the length of users ({u.size}), got shape {i.shape}"
            )
        i = i.astype(np.int64, copy=False)
        if i.size and (i.min() < 0 or i.max() >= self._shape[1]):
            raise ValueError(f"items must lie in [0, {self._shape[1]}), got {i.min()}..{i.max()}")
        if self._small or self._cache is not None:
            return self._whole()[u, i]
        if self._pairs is not None:
            return np.asarray(self._pairs(u, i))
        out = np.empty(u.size, dtype=self._dtype)
        uniq, inv = np.unique(u, return_inverse=True)
        step = max(_MIN_BLOCK_ROWS, (1 << 22) // self._shape[1])
        for s in range(0, uniq.size, step):
            sel = (inv >= s) & (inv < s + step)
            rows = self.block(uniq[s : s + step])
            out[sel] = rows[inv[sel] - s, i[sel]]
        return out

    def __array__(self, dtype=None, copy=None):
        a = self._whole()
        if dtype is not None and np.dtype(dtype) != a.dtype:
            return a.astype(dtype)
        return a.copy() if copy else a


class Callback(Protocol):
    """The type of a training callback: ``cb(epoch, scores) -> dict | None`` (module notes).

    Any callable of two positional arguments conforms (a function, a lambda, an object with
    ``__call__`` such as :class:`~negtheory.recsys.score_probe.ScoreProbe`); nothing derives from
    this protocol, which only names the type. It is called once with ``epoch=0`` and the initial
    scores, then after every evaluated epoch with its 1-based number and the :class:`ScoreMatrix`
    that epoch was ranked with (``scores.block(users)``, ``scores.pairs(users, items)``, or
    ``np.asarray(scores)`` for the dense [n_users, n_items] matrix on small data); a returned
    dict is merged into that epoch's history row.

    Parameters
    ----------
    *args, **kwargs
        Not used: a protocol is a type and is never instantiated.
    """

    def __call__(self, epoch: int, scores: ScoreMatrix, /) -> Any: ...  # pragma: no cover


class EpochRunner(Protocol):
    """What :func:`train_loop` needs from a trainer: one epoch of training, and the current scores.

    A structural type: any object with ``run_epoch`` and ``score_block`` is a runner (e.g. the
    runners of the two engines of :func:`negtheory.training.fit`).
    Optional methods, used when present: ``score_pairs(users, items)``, ``scores()`` (the whole
    matrix; a runner with ``scores()`` alone is still accepted, its matrix wrapped by
    :meth:`ScoreMatrix.from_array`) and ``score_matrix()`` (a :class:`ScoreMatrix` snapshot of the
    current scores, preferred over the others).

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

    def score_block(self, users: np.ndarray) -> np.ndarray:
        """Rows of the score matrix of the current model.

        Parameters
        ----------
        users : ndarray of int64, shape (B,)
            User ids.

        Returns
        -------
        ndarray, shape (B, n_items)
            The scores x_ui of the current parameters for these users (a numpy float array).
        """
        ...  # pragma: no cover


def runner_scores(runner: Any, shape: tuple[int, int] | None = None) -> ScoreMatrix:
    """The :class:`ScoreMatrix` of a runner's current model (``score_matrix``, ``score_block`` or ``scores``).

    Parameters
    ----------
    runner : EpochRunner
        The runner.
    shape : (int, int), optional
        (n_users, n_items), needed for a runner that has ``score_block`` but neither
        ``score_matrix`` nor ``scores``.

    Returns
    -------
    ScoreMatrix
        A snapshot for ``score_matrix`` / ``scores``; for ``score_block`` alone, a view that reads
        the runner when asked (valid until training goes on).

    Raises
    ------
    ValueError
        The runner has none of the three methods, or ``score_block`` alone without ``shape``.
    """
    sm = getattr(runner, "score_matrix", None)
    if callable(sm):
        out = sm()
        if not isinstance(out, ScoreMatrix):
            raise ValueError(
                f"runner.score_matrix() must return a ScoreMatrix, got {type(out).__name__}"
            )
        return out
    blk = getattr(runner, "score_block", None)
    dense = getattr(runner, "scores", None)
    if callable(blk) and shape is not None:
        pr = getattr(runner, "score_pairs", None)
        return ScoreMatrix(
            shape, blk, pairs=pr if callable(pr) else None, dense=dense if callable(dense) else None
        )
    if callable(dense):
        return ScoreMatrix.from_array(dense())
    raise ValueError("runner must have score_matrix(), score_block(users) (with data) or scores()")


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
        raise ValueError(
            "callbacks must be a sequence of callables cb(epoch, scores), e.g. [f]; got a single callable"
        )
    if isinstance(callbacks, (str, bytes)) or not isinstance(callbacks, Iterable):
        raise ValueError(
            f"callbacks must be a sequence of callables cb(epoch, scores), got {type(callbacks).__name__}"
        )
    out = tuple(callbacks)
    bad = [type(cb).__name__ for cb in out if not callable(cb)]
    if bad:
        raise ValueError(
            f"callbacks must be a sequence of callables cb(epoch, scores); got non-callable {', '.join(bad)}"
        )
    return out


def _merge(row: dict[str, Any], ret: object) -> bool:
    """Merge a callback's returned dict into the history row (any other return value is ignored).

    Returns True when the dict asks to stop (``{"stop": True}``; the key is not recorded).
    """
    if isinstance(ret, dict):
        ret = dict(ret)
        stop = bool(ret.pop("stop", False))
        row.update(ret)
        return stop
    return False


class TimeBudget:
    """A callback that ends a run at the first evaluation after ``seconds`` of wall time.

    The clock starts at the epoch-0 call (before the first epoch). The history row of the last
    evaluation gets ``time_budget_hit: True``.

    Parameters
    ----------
    seconds : float
        The budget, > 0.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys.loop import TimeBudget, train_loop
    >>> class Idle:
    ...     def run_epoch(self, epoch):
    ...         return {}
    ...     def scores(self):
    ...         return np.zeros((3, 2))
    >>> r = train_loop(Idle(), None, epochs=5, eval_on=(), callbacks=[TimeBudget(1e-9)])
    >>> r["epochs_run"], r["history"][-1]["time_budget_hit"]
    (1, True)
    """

    def __init__(self, seconds: float) -> None:
        seconds = float(seconds)
        if not seconds > 0 or not math.isfinite(seconds):
            raise ValueError(f"seconds must be a finite number > 0, got {seconds!r}")
        self.seconds = seconds
        self._t0: float | None = None

    def __call__(self, epoch: int, scores: Any) -> dict[str, Any] | None:
        if epoch == 0 or self._t0 is None:
            self._t0 = time.perf_counter()
            return None
        if time.perf_counter() - self._t0 >= self.seconds:
            return {"time_budget_hit": True, "stop": True}
        return None


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
    block_users: int | None = None,
    checkpoint: Any = None,
) -> dict[str, Any]:
    """Run ``epochs`` epochs of ``runner`` with evaluation, early stopping and callbacks.

    Parameters
    ----------
    runner : EpochRunner
        Has ``run_epoch(epoch) -> dict`` (0-based ``epoch``; the epoch's statistics) and
        ``score_block(users) -> ndarray`` (rows of the current scores), or ``score_matrix()`` /
        ``scores()`` (module notes).
    data : Interactions or None
        The split whose held-out items are ranked. None for a task that is not ranking (the
        contrastive digits of :mod:`negtheory.bridge.train`): then ``eval_on`` must be empty, the
        runner's statistics are the whole history row, and the scores are read only for the
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
        ``cb(epoch, scores)`` with ``scores`` a :class:`ScoreMatrix`, see the module notes.
    progress : bool
        Show a tqdm progress bar.
    desc : str
        The progress bar's label.
    block_users : int, optional
        Users ranked per block (default: as many as make about 2**22 scores, at least 64).
    checkpoint : object, optional
        Where the loop's state is kept between calls: ``load() -> dict or None`` and ``save(dict)``
        (:class:`negtheory.training.checkpoint.FitCheckpoint`; the runner then needs
        ``state_dict()`` / ``load_state_dict(state)``). After every evaluation the loop saves the
        runner's state, the history, the selection state and the seconds so far. A call that finds
        a saved state continues after its epoch, without the epoch-0 callbacks, and gives the
        history the uninterrupted call would. A call whose saved epoch is ``epochs``, or that
        stopped on ``patience``, returns the saved history without training; a callback's stop
        (e.g. :class:`TimeBudget`) is an interruption, which the next call resumes. The
        callbacks' own state is not saved.

    Returns
    -------
    dict
        ``history`` (one dict per evaluation: ``epoch`` (1-based), the runner's statistics, the
        ranking metrics prefixed ``valid_`` / ``test_``, the callbacks' items), ``best_epoch``
        (by the monitored metric; None without it), ``epochs_run``, ``seconds`` (those of the
        earlier calls of a resumed run included) and ``resumed_from`` (the epoch a checkpoint
        held at the start; 0 without one).

    Raises
    ------
    ValueError
        ``monitor`` is not a recorded validation metric, ``eval_on`` names an unknown split,
        ``eval_on`` is not empty while ``data`` is None, the runner cannot save its state for a
        ``checkpoint``, or the checkpoint holds more epochs than ``epochs``.

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
    ...     def score_block(self, users):
    ...         return self.s[users]
    >>> seen = []  # epoch 3: ties among the unmasked items go to the lowest index, 2 of 3 users hit
    >>> r = train_loop(Shift(), d, epochs=3, eval_every=2, topk=(1,), eval_on=("test",),
    ...                callbacks=[lambda e, s: seen.append(e) or {"top": int(s.block([0])[0].argmax())}])
    >>> seen, [(h["epoch"], h["loss"], h["test_precision@1"], h["top"]) for h in r["history"]]
    ([0, 2, 3], [(2, 0.5, 0.0, 2), (3, 0.3333333333333333, 0.6666666666666666, 0)])
    """
    unknown = [s for s in eval_on if s not in EVAL_SPLITS]
    if unknown:
        raise ValueError(f"eval_on must name splits among {EVAL_SPLITS}, got {unknown}")
    callbacks = check_callbacks(callbacks)
    ranked: dict[str, tuple[Any, tuple[Any, ...], int]] = {}
    shape = None
    if data is None:
        if eval_on:
            raise ValueError("eval_on must be empty when data is None (nothing to rank)")
    else:
        shape = (data.n_users, data.n_items)
        train_csr, valid_csr = data.train_csr(), data.valid_csr()
        ranked = {
            "valid": (valid_csr, (train_csr,), len(data.valid)),
            "test": (data.test_csr(), (train_csr, valid_csr), len(data.test)),
        }
    select = monitor is not None and "valid" in eval_on and data is not None and len(data.valid) > 0
    key = f"valid_{monitor}"
    history: list[dict[str, Any]] = []
    best, best_epoch, since, epochs_run = -math.inf, None, 0, 0
    start = resumed = 0
    before = 0.0  # a resumed run: the epoch its checkpoint held, and the seconds spent up to it
    t0 = time.perf_counter()
    if checkpoint is not None:
        if not (
            callable(getattr(runner, "state_dict", None))
            and callable(getattr(runner, "load_state_dict", None))
        ):
            raise ValueError(
                f"checkpoint: the runner {type(runner).__name__} has no state_dict() / load_state_dict()"
            )
        stateful: Any = runner  # checked above; not part of the EpochRunner protocol, which a runner need not save
        state = checkpoint.load()
        if state is not None:
            if state["epoch"] > epochs:
                raise ValueError(
                    f"checkpoint: it holds {state['epoch']} epochs, more than epochs={epochs}; "
                    "a shorter run is not the prefix of a saved longer one's results"
                )
            stateful.load_state_dict(state["runner"])
            history = list(state["history"])
            best, best_epoch, since = state["best"], state["best_epoch"], state["since"]
            start = resumed = epochs_run = state["epoch"]
            before = state["seconds"]
            if state["finished"]:  # stopped on patience: the run is over, whatever epochs says
                start = epochs

    def _save(finished: bool) -> None:
        checkpoint.save(
            dict(
                epoch=epochs_run,
                history=history,
                best=best,
                best_epoch=best_epoch,
                since=since,
                seconds=before + time.perf_counter() - t0,
                finished=finished,
                runner=stateful.state_dict(),
            )
        )

    bar: Iterable[int] = range(start, epochs)
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(bar, desc=desc, unit="epoch", leave=False, initial=start, total=epochs)
    if callbacks and not start:
        scores0 = runner_scores(runner, shape)
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
            if checkpoint is not None:
                _save(False)
            continue
        scores = runner_scores(runner, shape)
        for split in eval_on:
            relevant, exclude, n_pairs = ranked[split]
            if n_pairs:
                m = topk_metrics_csr(scores, relevant, exclude, topk, block_users=block_users)
                row.update({f"{split}_{k}": v for k, v in m.items() if k != "n_users_evaluated"})
        val = None
        if select:
            val = row.get(key)
            if val is None:
                topks = tuple(topk) if not isinstance(topk, int) else (topk,)
                raise ValueError(f"monitor {monitor!r} is not a recorded metric (topk={topks})")
        stop = False
        for cb in callbacks:
            stop = _merge(row, cb(epoch + 1, scores)) or stop
        history.append(row)
        done = False
        if val is not None:
            if val > best:
                best, best_epoch, since = val, epoch + 1, 0
            else:
                since += 1
                done = patience is not None and since >= patience
        if checkpoint is not None:
            _save(done)
        if done or stop:
            break
    return dict(
        history=history,
        best_epoch=best_epoch,
        epochs_run=epochs_run,
        seconds=before + time.perf_counter() - t0,
        resumed_from=resumed,
    )
