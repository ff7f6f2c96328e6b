r"""AOBPR and SRNS as objects both training engines share (thesis §4.5.1.2).

The batch-1 SGD kernel (:mod:`negtheory.recsys.bpr_sgd`) draws these negatives one pair at a time;
the mini-batch engine (:func:`negtheory.training.fit` with MF or LightGCN on mini-batches) draws them here,
for all the rows of a step at once, with the scores of the step's start:

* :func:`sample_by_rank` — AOBPR (Rendle & Freudenthaler, WSDM 2014) with exact ranks: for each
  row, the user's non-interacted item of rank r by descending score, r drawn from the truncated
  geometric law :math:`P(r) = q^r (1 - q) / (1 - q^{n})`, :math:`q = e^{-1/\lambda}`, over the
  n non-interacted items (r = 0 is the highest-scored); among tied scores the lowest item index,
  as in the batch-1 kernel;
* :class:`SRNSMemory` — SRNS (Ding et al., NeurIPS 2020): each user's memory of S1 items, the
  choice of largest :math:`\sigma(x_{uk} - x_{ui}) + \alpha_t\,\mathrm{std}_e\,
  \sigma(x^{(e)}_{uk} - x^{(e)}_{ui})` and the memory refresh, by the very numba step the batch-1
  kernel takes (:func:`negtheory.recsys._sgd_kernels._srns_choose`), row after row.

Cost per step of B rows: AOBPR selects in each of the B score rows, O(B |I|) (as the batch-1
kernel's exact rank, O(|I|) per pair); SRNS reads O(S1 + S2) scores per row, O((S1 + S2) d).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numba
import numpy as np

from .._validation import as_generator, int_scalar, real_scalar
from ._sgd_kernels import _srns_batch
from .samplers import _check

if TYPE_CHECKING:
    from .._typing import ArrayLike, IntArray, RNGLike
    from .interactions import Interactions

__all__ = ["sample_by_rank", "srns_initial_memory", "SRNSMemory"]


def _free_rows(
    users: np.ndarray, indptr: np.ndarray, indices: np.ndarray, n_items: int
) -> np.ndarray:
    """True where the row's user has not interacted with the item in training, shape (B, n_items)."""
    out = np.ones((len(users), n_items), dtype=bool)
    count = np.diff(indptr)[users]
    rows = np.repeat(np.arange(len(users)), count)
    first = np.repeat(indptr[users], count)
    offset = np.arange(rows.size) - np.repeat(np.cumsum(count) - count, count)
    out[rows, indices[first + offset]] = False
    return out


def sample_by_rank(
    users: ArrayLike,
    n: int,
    scores: ArrayLike,
    train_mask: Any,
    rng: RNGLike = None,
    *,
    rank_scale: float,
    n_items: int | None = None,
) -> IntArray:
    r"""AOBPR: ``n`` negatives per row, each the non-interacted item of a geometric rank (exact ranks).

    For row b (user :math:`u = \mathrm{users}[b]` with n_u non-interacted items) each negative is
    the item of rank r among them by descending ``scores[b]``, r drawn independently from

    .. math:: P(r) = \frac{q^r (1 - q)}{1 - q^{n_u}}, \qquad r = 0, \dots, n_u - 1,
              \qquad q = e^{-1/\lambda}

    (the geometric rank law of Rendle & Freudenthaler 2014, with exact ranks instead of their factor-wise
    approximation), by the inverse CDF :math:`r = \lfloor \ln(1 - x (1 - q^{n_u})) / \ln q
    \rfloor`, x uniform. Among equal scores the lowest item index is taken, as in the batch-1 SGD
    kernel.

    Parameters
    ----------
    users : array_like of int, shape (B,)
        The user of each row.
    n : int
        Negatives per row (each from its own rank; repeats possible).
    scores : array_like, shape (B, n_items)
        The current scores of row b's user for every item.
    train_mask : (indptr, indices) or ndarray of bool, shape (n_users, n_items)
        The training items (CSR with sorted rows, or dense); they are never drawn.
    rng : None, int, SeedSequence or Generator
        Source of randomness.
    rank_scale : float
        λ > 0 of the rank law, in items (the thesis's runs: 0.05 |I|).
    n_items : int, optional
        Number of items (required with a CSR ``train_mask``).

    Returns
    -------
    ndarray of int64, shape (B, n)
        The negatives.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import sample_by_rank
    >>> indptr, indices = np.array([0, 1]), np.array([0])  # user 0 interacted with item 0
    >>> sc = np.array([[9.0, 1.0, 3.0, 2.0]])
    >>> sample_by_rank([0], 1, sc, (indptr, indices), rng=0, rank_scale=1e-3, n_items=4).tolist()
    [[2]]
    """
    users, n, mask = _check(users, n, train_mask, n_items=n_items)
    lam = real_scalar("rank_scale", rank_scale, 0.0, lo_open=True)
    rng = as_generator(rng)
    if isinstance(mask, tuple):
        indptr, indices, n_it = mask
        free = _free_rows(users, indptr, indices, n_it)
    else:
        n_it = mask.shape[1]
        free = ~mask[users]
    sc = np.asarray(scores)
    if sc.shape != (len(users), n_it):
        raise ValueError(
            f"scores must have shape (len(users), n_items) = {(len(users), n_it)}, got {sc.shape}"
        )
    if np.isnan(sc).any():
        raise ValueError("scores contain NaN")
    n_free = free.sum(axis=1)
    if (n_free == 0).any():
        raise ValueError(f"user {users[np.argmin(n_free)]} has no non-interacted item to draw")
    q = np.exp(-1.0 / lam)
    x = rng.random((len(users), n))
    with np.errstate(divide="ignore"):
        r = (
            np.floor(np.log1p(-x * -np.expm1(n_free[:, None] * np.log(q))) / np.log(q))
            if q > 0
            else np.zeros_like(x)
        )
    r = np.clip(np.nan_to_num(r, nan=0.0, posinf=0.0), 0, (n_free - 1)[:, None]).astype(np.int64)
    out = np.empty_like(r)
    _rank_pick(np.ascontiguousarray(sc), free, r, out)
    return out


@numba.njit(cache=True)
def _rank_pick(scores, free, ranks, out):
    """out[b, k]: the free item of rank ranks[b, k] by descending scores[b] (ties: the lowest index).

    One selection per rank (``np.partition``, O(|I|)) instead of a sort: the r-th largest value,
    then the first free item holding it, the batch-1 kernel's rule.
    """
    n_items = scores.shape[1]
    many = ranks.shape[1] > 4  # many ranks per row: one sort serves them all
    buf = np.empty(n_items, dtype=np.float64)
    for b in range(scores.shape[0]):
        nf = 0
        for j in range(n_items):
            if free[b, j]:
                buf[nf] = scores[b, j]
                nf += 1
        srt = np.sort(buf[:nf]) if many else buf[:0]
        for k in range(ranks.shape[1]):
            pos = nf - 1 - ranks[b, k]  # the r-th largest is the (nf - 1 - r)-th smallest
            val = srt[pos] if many else np.partition(buf[:nf], pos)[pos]
            for j in range(n_items):
                if free[b, j] and scores[b, j] == val:
                    out[b, k] = j
                    break


def srns_initial_memory(
    indptr: np.ndarray, indices: np.ndarray, n_items: int, memory: int, rng: RNGLike = None
) -> IntArray:
    """SRNS's initial memory: min(S1, n_u) distinct uniform non-interacted items per user.

    Parameters
    ----------
    indptr, indices : ndarray of int
        The training items, CSR with sorted rows.
    n_items : int
        Number of items.
    memory : int
        S1, the memory size (slots beyond n_u stay 0 and are never read).
    rng : None, int, SeedSequence or Generator
        Source of randomness.

    Returns
    -------
    ndarray of int64, shape (n_users, memory)
        The memory.
    """
    rng = as_generator(rng)
    memory = int_scalar("memory", memory, 1)
    n_users = len(indptr) - 1
    mem = np.zeros((n_users, memory), dtype=np.int64)
    for u in range(n_users):
        pos = indices[indptr[u] : indptr[u + 1]]
        n_free = n_items - len(pos)
        m1 = min(memory, n_free)
        # the k-th non-interacted item is k + #{positives p_j (j-th, 0-based) with p_j - j <= k}:
        # the draws of choice(free items, m1) without the O(n_items) list of the free items
        k = rng.choice(n_free, m1, replace=False)
        mem[u, :m1] = k + np.searchsorted(pos - np.arange(len(pos)), k, side="right")
    return mem


class SRNSMemory:
    r"""SRNS's state for the mini-batch engine: the users' memories and the recorded embeddings.

    The law of the batch-1 kernel (:func:`negtheory.training.fit` with ``sampler=SRNS()``, batch 1) with
    the scores of each step's start: for a row (u, i) the memory item of largest

    .. math:: \sigma(x_{uk} - x_{ui}) + \alpha_t\,\mathrm{std}_e\,\sigma(x^{(e)}_{uk} - x^{(e)}_{ui}),
              \qquad \alpha_t = \alpha \min(1, t / T_0),

    the std over the embeddings recorded after each of the last ``window`` epochs (the initial ones
    during epoch 0), then the memory refreshed by S2 uniform non-interacted items and successive
    sampling ∝ exp(x / τ). Rows are taken in order: a user met twice in one step draws its second
    negative from the memory its first row refreshed.

    Parameters
    ----------
    spec : negtheory.training.SRNS
        The settings (memory S1, candidates S2, alpha, warmup T_0, tau, window).
    data : Interactions
        The split (training items are never drawn).
    user_emb, item_emb : ndarray of float32
        The initial scoring embeddings (recorded as the history of epoch 0).
    rng : None, int, SeedSequence or Generator
        Seeds the initial memory; each :meth:`draw` takes its own generator.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import SRNSMemory, load_split
    >>> from negtheory.training import SRNS
    >>> d = load_split(np.array([[0, 0], [1, 1]]), np.array([[0, 1]]))
    >>> U, V = np.ones((2, 2), np.float32), np.ones((3, 2), np.float32)
    >>> m = SRNSMemory(SRNS(memory=1, candidates=1), d, U, V, rng=0)
    >>> int(m.draw(np.array([0]), np.array([0]), U, V, epoch=0, rng=1)[0]) in (1, 2)
    True
    """

    def __init__(
        self,
        spec: Any,
        data: Interactions,
        user_emb: np.ndarray,
        item_emb: np.ndarray,
        rng: RNGLike = None,
    ):
        self.spec = spec
        self.indptr, self.indices = data.train_csr()
        self.memory = srns_initial_memory(self.indptr, self.indices, data.n_items, spec.memory, rng)
        w = spec.window
        self.hist_u = np.zeros((w,) + np.shape(user_emb), dtype=np.float32)
        self.hist_v = np.zeros((w,) + np.shape(item_emb), dtype=np.float32)
        self.record(0, user_emb, item_emb)  # epoch 0 sees the initial scores (released code)

    def state_dict(self) -> dict[str, Any]:
        """What changes while training (a checkpoint's part): the memories, the window of embeddings and its fill.

        Returns
        -------
        dict
            ``memory``, ``hist_u``, ``hist_v`` (the arrays themselves, not copies) and ``n_hist``.
        """
        return dict(
            memory=self.memory, hist_u=self.hist_u, hist_v=self.hist_v, n_hist=int(self.n_hist)
        )

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`'s arrays in place.

        Parameters
        ----------
        state : dict
            As :meth:`state_dict` returns it; the arrays may be any array-likes of the same shapes.
        """
        for k in ("memory", "hist_u", "hist_v"):
            getattr(self, k)[...] = np.asarray(state[k])
        self.n_hist = int(state["n_hist"])

    def record(self, epoch: int, user_emb: np.ndarray, item_emb: np.ndarray) -> None:
        """The embeddings after ``epoch`` (0-based) replace the window's oldest.

        Parameters
        ----------
        epoch : int
            The 0-based epoch just trained (0 also for the initial embeddings).
        user_emb, item_emb : ndarray of float32
            The scoring embeddings after it.
        """
        slot = epoch % self.spec.window
        self.hist_u[slot] = user_emb
        self.hist_v[slot] = item_emb
        self.n_hist = min(epoch + 1, self.spec.window)

    def draw(
        self,
        users: np.ndarray,
        positives: np.ndarray,
        user_emb: np.ndarray,
        item_emb: np.ndarray,
        *,
        epoch: int,
        rng: RNGLike = None,
    ) -> IntArray:
        """One negative per row (u, i) from the memories, which are refreshed in row order.

        Parameters
        ----------
        users, positives : ndarray of int, shape (B,)
            The rows' users and positive items.
        user_emb, item_emb : ndarray of float32
            The current scoring embeddings.
        epoch : int
            The 0-based epoch (sets α_t).
        rng : None, int, SeedSequence or Generator
            Source of randomness: one integer drawn from it seeds the refresh's draws (numba's
            generator).

        Returns
        -------
        ndarray of int64, shape (B,)
            The negatives.
        """
        s = self.spec
        alpha_t = s.alpha * min(1.0, epoch / s.warmup)
        out = np.empty(len(users), dtype=np.int64)
        U = np.ascontiguousarray(user_emb, dtype=np.float32)
        V = np.ascontiguousarray(item_emb, dtype=np.float32)
        _srns_batch(
            np.ascontiguousarray(users, dtype=np.int64),
            np.ascontiguousarray(positives, dtype=np.int64),
            self.memory,
            U,
            V,
            self.hist_u,
            self.hist_v,
            self.n_hist,
            alpha_t,
            s.candidates,
            s.tau,
            self.indptr,
            self.indices,
            int(as_generator(rng).integers(0, 2**31 - 1)),
            out,
        )
        return out
