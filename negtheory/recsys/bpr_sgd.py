r"""BPR matrix factorisation by batch-1 SGD with the negative samplers of thesis ch. 4 (numba kernels).

Liu Bin's thesis trains MF (d = 32) with BPR by stochastic gradient descent, batch size 1, learning rate
0.01, L2 regularisation 0.01 and 100 epochs (§4.5.1.2). For each training pair (u, i) a sampler
draws one negative j from the items u has *not* interacted with in training (never a training
positive), and the BPR step on ln σ(x_ui − x_uj) updates w_u, h_i, h_j:

.. math::
    g = 1 - \sigma(x_{ui} - x_{uj}), \quad
    w_u \mathrel{+}= \eta\,(g\,(h_i - h_j) - r\,w_u), \quad
    h_i \mathrel{+}= \eta\,(g\,w_u - r\,h_i), \quad
    h_j \mathrel{+}= \eta\,(-g\,w_u - r\,h_j)

(simultaneous update from the old values). This is the batch-1 SGD engine of
:func:`negtheory.training.fit` (``model=MF(...)``, ``optimizer=SGD(...)`` with batch 1, ``loss`` one of
``BPR()``, ``BCE(negatives)``, ``InfoNCE(negatives)``); the sampler spec picks the sampler (:data:`SAMPLERS`
are their kernel names):

``rns``
    uniform over the user's non-interacted items (RNS).
``pns``
    ∝ pop_j^0.75 over the non-interacted items (PNS; pop = training interactions of j).
``dns``
    the highest-scored of ``candidates`` uniform non-interacted items (DNS, Zhang et al. 2013).
``aobpr``
    the non-interacted item at rank r (0-based, by descending score among the user's
    non-interacted items), r drawn with P(r) ∝ exp(−r / λ_rank) (AOBPR, Rendle & Freudenthaler
    2014, with exact ranks instead of their factor-wise approximation).
``bns``
    Bayesian negative sampling: among a candidate set :math:`\mathcal{M}_u` of ``candidates``
    non-interacted items drawn uniformly without replacement (all of them when ``candidates`` >=
    their number), the one of least risk (eq. 4.26),

    .. math::
        j = \arg\min_{l \in \mathcal{M}_u} \mathrm{info}(l)\,\big[1 - (1 + \lambda)\,
        \mathrm{unbias}(l)\big], \qquad \mathrm{info}(l) = \sigma(\hat x_{ul} - \hat x_{ui})
        \quad \text{(eq. 4.4)},

    where the posterior probability that l is a true negative is (eq. 4.14)

    .. math::
        \mathrm{unbias}(l) = \frac{[1 - F(\hat x_l)]\,[1 - P_{fn}(l)]}
        {1 - F(\hat x_l) - P_{fn}(l) + 2 F(\hat x_l)\, P_{fn}(l)},

    with :math:`F(\hat x_l)` the eCDF of :math:`\hat x_l` among the scores of the n non-interacted
    items of the user (eq. 4.15, :math:`F(\hat x_l) = \#\{j : \hat x_j \le \hat x_l\} / (n + 1)`:
    the thesis divides by n, the released code by n + 1, which keeps F below 1) and the prior
    (eq. 4.16)

    .. math:: P_{fn}(l) = \frac{\mathrm{pop}_l}{N},

    N the number of training interactions — or, with ``prior="oracle"``,
    :math:`P_{fn}(l) = (\mathrm{label}(l) - 0.2)^2`, i.e. 0.64 for the user's test items and
    0.04 otherwise (§4.5.2.5, Table 4.5).
    Readings of Table 4.5 as options of :class:`~negtheory.training.BNS`: ``oracle_levels`` (P_fn of
    the test items and of the others; ``(1, 0)`` is the hard label, with which eq. 4.14 returns the label itself whatever F,
    so eq. 4.26 picks the highest-scored candidate that is not a test item — the optimal sampler
    h* of eq. 4.19 restricted to :math:`\mathcal{M}_u`) and ``ecdf="candidates"`` (F over the
    candidate set, over :math:`|\mathcal{M}_u| + 1`, instead of over all non-interacted items).
``srns``
    SRNS (Ding et al., NeurIPS 2020; thesis §4.5.1.2: "over-samples high-variance negatives"; the
    thesis states no hyper-parameter, so the released code's run script is followed). Each user
    keeps a memory M_u of ``SRNS.memory`` (S1 = 8) non-interacted items. For a pair (u, i) the
    negative is the memory item of largest

    .. math::
        \sigma(x_{uk} - x_{ui}) + \alpha_t\,\mathrm{std}_e\,\sigma(x^{(e)}_{uk} - x^{(e)}_{ui}),
        \qquad \alpha_t = \alpha \min(1, t / T_0),

    the std (population, over n) taken over the scores x^(e) recorded after each of the last
    ``SRNS.window`` (5) epochs (the initial scores during epoch 0), α = ``SRNS.alpha`` (5),
    T_0 = ``SRNS.warmup`` (50 epochs) and t the 0-based epoch. Then the memory is refreshed:
    ``SRNS.candidates`` (S2 = 8 S1 = 64) distinct uniform non-interacted items not in M_u are
    added and S1 of the S1 + S2 are kept by successive sampling without replacement with
    P ∝ exp(x_uk / τ), τ = ``SRNS.tau`` (10). Released-code differences: it refreshes the variance
    candidate pool every epoch (so memory slots change item), and draws from a fixed pool of 3000
    items per user; here the memory holds items and the history covers every item.

AOBPR and BNS (its F over all non-interacted items) score all items for the current user with
the current parameters, as the released code does (O(|I| d) per step); DNS, SRNS and BNS with
``ecdf="candidates"`` or hard oracle labels score only the items they read. ``BNS(f_sample=S)``
estimates BNS's F from S uniform non-interacted items (unbiased; O((S + |M_u|) d) per step), the
option for large catalogues.

Table 4.3's ablations of BNS are options of :class:`~negtheory.training.BNS`: ``lam_schedule`` (a λ per epoch, BNS-1:
:func:`bns_lam_warm_start`), ``warm_rns_epochs`` (RNS before BNS, BNS-2), ``prior="uniform"``
(P_fn = 1 / |I|, BNS-3) and a per-user prior array (BNS-4, :func:`bns_occupation_prior`).
Table 4.4's losses are ``loss=BCE(negatives)`` and ``loss=InfoNCE(negatives)`` with N negatives per
pair, each drawn by the sampler on its own (a gradient step of the loss plus the L2 term,
:func:`_contrastive_step`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from .._validation import int_scalar, real_scalar
from ..training._run import FitResult, Run, eval_splits
from ..training.specs import AOBPR, BCE, BNS, BPR, DNS, PNS, RNS, SRNS, InfoNCE
from . import loop as _loop
from ._sgd_kernels import _bpr_epoch
from .adaptive_samplers import srns_initial_memory
from .interactions import Interactions
from .loop import ScoreMatrix, check_callbacks, train_loop
from .samplers import pns_weights

if TYPE_CHECKING:
    from typing import Any

    import numpy.typing as npt

    from .._typing import ArrayLike, FloatArray

__all__ = [
    "SAMPLERS",
    "bns_prior",
    "pns_weights",
    "bns_lam_warm_start",
    "bns_occupation_prior",
    "read_user_occupations",
]

SAMPLERS = ("rns", "pns", "dns", "aobpr", "bns", "srns")
_CODE = {name: k for k, name in enumerate(SAMPLERS)}
#: per-pair losses of the batch-1 engine (Table 4.4) -> kernel code
_LOSSES = {"bpr": 0, "bce": 1, "infonce": 2}
#: sampler spec -> the kernel's sampler name, loss spec -> the kernel's loss name
_SPEC_SAMPLER = {RNS: "rns", PNS: "pns", DNS: "dns", AOBPR: "aobpr", BNS: "bns", SRNS: "srns"}
_SPEC_LOSS = {BPR: "bpr", BCE: "bce", InfoNCE: "infonce"}


def bns_prior(item_counts: ArrayLike, n_interactions: int) -> FloatArray:
    r"""Prior false-negative probability of BNS (thesis eq. 4.16).

    .. math:: P_{fn}(l) = \frac{\mathrm{pop}_l}{N}

    N is the number of *training interactions* (the thesis models
    :math:`\mathrm{pop}_l \sim \mathrm{Binomial}(N, P_{fn}(l))`), not the number of users.

    Parameters
    ----------
    item_counts : array_like of float, shape (n_items,)
        Training popularity :math:`\mathrm{pop}_l` of each item (:meth:`Interactions.item_counts`),
        finite and non-negative.
    n_interactions : int
        N, the number of training interactions: positive and at least ``sum(item_counts)``.

    Returns
    -------
    ndarray of float64, shape (n_items,)
        :math:`P_{fn}(l)` of each item, in [0, 1].

    Examples
    --------
    >>> from negtheory.recsys import bns_prior
    >>> bns_prior([3, 1, 0], 8).tolist()
    [0.375, 0.125, 0.0]
    """
    c = np.asarray(item_counts, dtype=np.float64)
    if c.ndim != 1 or np.any(~np.isfinite(c)) or np.any(c < 0):
        raise ValueError("item_counts must be a 1-d array of non-negative counts")
    n = real_scalar("n_interactions", n_interactions, 0.0, lo_open=True)
    if c.sum() > n * (1 + 1e-12):
        raise ValueError(f"n_interactions ({n:g}) must be at least the total count {c.sum():g}")
    return c / n


def bns_lam_warm_start(
    epoch: int, start: float = 10.0, alpha: float = 0.1, floor: float = 2.0
) -> float:
    r"""λ of BNS-1, the warm start of λ of Table 4.3 (thesis §4.5.2.3).

    .. math:: \lambda_t = \max(\text{start} - \alpha\, t, \text{floor}) = \max(10 - 0.1\, t, 2)

    with t the 0-based epoch (chosen here: the thesis writes "epoch" without a base), so λ is 10
    during the first epoch, falls by α per epoch and stays at 2 from epoch 80 on. Pass it as
    ``BNS(lam_schedule=[bns_lam_warm_start(t) for t in range(epochs)])`` (:class:`negtheory.training.BNS`).

    Parameters
    ----------
    epoch : int
        The 0-based epoch t, at least 0.
    start : float
        λ at t = 0 (default 10, the thesis's), finite and >= 0.
    alpha : float
        The decrease per epoch α (default 0.1, the thesis's), finite and >= 0.
    floor : float
        The lowest λ (default 2, the thesis's), finite and >= 0.

    Returns
    -------
    float
        λ_t.

    Examples
    --------
    >>> from negtheory.recsys.bpr_sgd import bns_lam_warm_start
    >>> [round(bns_lam_warm_start(t), 6) for t in (0, 1, 50, 80, 99)]
    [10.0, 9.9, 5.0, 2.0, 2.0]
    """
    t = int_scalar("epoch", epoch, 0)
    start = real_scalar("start", start, 0.0)
    alpha = real_scalar("alpha", alpha, 0.0)
    floor = real_scalar("floor", floor, 0.0)
    return max(start - alpha * t, floor)


def bns_occupation_prior(data: Interactions, occupations: ArrayLike) -> FloatArray:
    r"""Occupation-adjusted prior of BNS-4 (Table 4.3, thesis §4.5.2.3), one row per user.

    .. math::
        P_{fn}(u, l) = \frac{\mathrm{pop}_l}{N}\,(1 + \Delta o_{ul}), \qquad
        \Delta o_{ul} = \frac{o_{ul} - \bar o_l}{\max_o o_l},

    with :math:`o_{ul}` the training interactions with item l of the users who share u's
    occupation, :math:`\bar o_l` the mean of these counts over the occupations (those held by at
    least one user) and :math:`\max_o o_l` their largest value; Δo = 0 for an item no one has
    interacted with. pop_l / N is eq. 4.16 (:func:`bns_prior`). Since
    :math:`-1 < \Delta o_{ul} \le 1`, the prior lies in [0, 2 pop_l / N]; it is clipped at 1 (an item
    in more than half of the interactions).
    E.g. three training pairs (0, 0), (1, 0), (2, 1), users 0 and 1 of occupation a, user 2 of b:
    item 0 has pop / N = 2/3, o = (2, 0) over (a, b), mean 1, max 2, so Δo = ±1/2 and
    P_fn = 2/3 · 3/2 = 1 for a, 2/3 · 1/2 = 1/3 for b.

    Parameters
    ----------
    data : Interactions
        The split; the counts are taken over ``data.train``.
    occupations : array_like, shape (n_users,)
        The occupation of each user index (any hashable labels, e.g. the strings of MovieLens'
        ``u.user``; :func:`read_user_occupations`).

    Returns
    -------
    ndarray of float64, shape (n_users, n_items)
        :math:`P_{fn}(u, l)`, to pass as ``BNS(prior=...)`` (:class:`negtheory.training.BNS`).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.recsys.bpr_sgd import bns_occupation_prior
    >>> d = load_split(np.array([[0, 0], [1, 0], [2, 1]]), np.array([[0, 1]]))
    >>> bns_occupation_prior(d, ["a", "a", "b"]).round(4).tolist()
    [[1.0, 0.1667], [1.0, 0.1667], [0.3333, 0.5]]
    """
    occ = np.asarray(occupations)
    if occ.shape != (data.n_users,):
        raise ValueError(
            f"occupations must hold one label per user ({data.n_users}), got shape {occ.shape}"
        )
    labels, code = np.unique(occ, return_inverse=True)
    o = np.zeros((len(labels), data.n_items))
    np.add.at(o, (code[data.train[:, 0]], data.train[:, 1]), 1.0)
    mean, top = o.mean(axis=0), o.max(axis=0)
    delta = np.divide(o - mean, top, out=np.zeros_like(o), where=top > 0)
    return np.minimum(
        bns_prior(data.item_counts(), len(data.train))[None, :] * (1.0 + delta[code]), 1.0
    )


def read_user_occupations(
    path: str | os.PathLike[str], user_ids: ArrayLike | None = None, id_offset: int = 0
) -> npt.NDArray[np.str_]:
    """The occupation of each user from a MovieLens ``u.user`` file (``user id|age|gender|occupation|zip``).

    Parameters
    ----------
    path : str or os.PathLike
        The file: one user per line, ``|``-separated, the occupation in the fourth field.
    user_ids : array_like of str, optional
        The raw user id of each user index (``Interactions.user_ids``); default None: the file's
        users in the order of their (numeric) ids.
    id_offset : int
        Raw id in the interaction files = id in ``path`` + ``id_offset`` (default 0; -1 for
        0-based interaction files beside MovieLens' 1-based ``u.user``).

    Returns
    -------
    ndarray of str, shape (n_users,)
        The occupation of each user index.

    Raises
    ------
    ValueError
        A line has fewer than four fields, or a user of ``user_ids`` has no line (``id_offset``
        is named in the message).
    """
    occ: dict[str, str] = {}
    with open(path, encoding="latin-1") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            parts = line.rstrip("\n").split("|")
            if len(parts) < 4:
                raise ValueError(
                    f"{path}:{n}: expected 'user id|age|gender|occupation|zip', got {line.strip()!r}"
                )
            uid = parts[0].strip()
            if id_offset:
                uid = str(int(uid) + int(id_offset))
            occ[uid] = parts[3].strip()
    if user_ids is None:
        keys = sorted(
            occ,
            key=lambda x: (
                not x.lstrip("-").isdigit(),
                int(x) if x.lstrip("-").isdigit() else 0,
                x,
            ),
        )
        return np.array([occ[k] for k in keys])
    ids = [str(x) for x in np.asarray(user_ids).tolist()]
    missing = [x for x in ids if x not in occ]
    if missing:
        raise ValueError(
            f"{len(missing)} users (e.g. {missing[:3]}) have no line in {path} with id_offset={id_offset}; "
            "MovieLens' u.user is 1-based (id_offset=-1 for 0-based interaction files)"
        )
    return np.array([occ[x] for x in ids])


class _SGDRunner:
    """One epoch of :func:`_bpr_epoch` per ``run_epoch`` (the :class:`~negtheory.recsys.loop.EpochRunner` of SGD)."""

    def __init__(
        self,
        *,
        data,
        U,
        V,
        kernel_args,
        shuffle_rng,
        order,
        reshuffle,
        epoch_ss,
        callback,
        return_negatives,
        srns=None,
        lams=None,
        warm_rns_epochs=0,
        loss_code=0,
        n_negatives=1,
    ):
        self.data, self.U, self.V = data, U, V
        self.kernel_args = kernel_args
        # per-epoch lambda of BNS (None: the constant of kernel_args), RNS epochs before the sampler, loss, N
        self.lams, self.warm_rns_epochs = lams, warm_rns_epochs
        self.loss_code, self.n_negatives = loss_code, n_negatives
        # SRNS state: memory [n_users, S1], score history [window, n_users, n_items], alpha, warm-up, pool, tau
        self.srns = srns
        self.hist_u = np.zeros((0, 1, 1), dtype=np.float32)
        self.hist_v = np.zeros((0, 1, 1), dtype=np.float32)
        if srns is None:
            self.mem = np.zeros((1, 0), dtype=np.int64)
            self.hist = np.zeros((1, 1, 1), dtype=np.float32)
            self.n_hist = 0
        else:
            self.mem, self.hist = srns["memory"], srns["history"]
            if (
                self.hist is None
            ):  # above the dense limit: the window's embeddings, scores recomputed
                w = srns["window"]
                self.hist = np.zeros((1, 1, 1), dtype=np.float32)
                self.hist_u = np.zeros((w,) + U.shape, dtype=np.float32)
                self.hist_v = np.zeros((w,) + V.shape, dtype=np.float32)
            self._record_history(0)  # epoch 0 sees the initial scores (released code)
            self.n_hist = 1
        self.shuffle_rng, self.order, self.reshuffle = shuffle_rng, order, reshuffle
        self.epoch_ss = epoch_ss
        self.callback = callback
        self.return_negatives = return_negatives
        self.negatives: list[tuple[np.ndarray, np.ndarray]] = []

    def run_epoch(self, epoch: int) -> dict[str, float]:
        n = len(self.data.train)
        if self.reshuffle and epoch > 0:
            self.order = self.shuffle_rng.permutation(n)
        stats = np.zeros(4)
        record = np.full(n if self.return_negatives else 0, -1, dtype=np.int64)
        kseed = int(self.epoch_ss[epoch].generate_state(1)[0] & 0x7FFFFFFF)
        visit = np.ascontiguousarray(self.data.train[self.order])
        (
            indptr,
            indices,
            t_indptr,
            t_indices,
            code,
            n_cand,
            lam,
            prior,
            oracle,
            fn_level,
            tn_level,
            f_cand,
            pns_cdf,
            rank_scale,
            lr,
            reg,
            f_sample,
        ) = self.kernel_args
        if self.lams is not None:
            lam = float(self.lams[epoch])
        if epoch < self.warm_rns_epochs:
            code = _CODE["rns"]
        sr = self.srns
        alpha_t = 0.0 if sr is None else sr["alpha"] * min(1.0, epoch / sr["warmup"])
        pool = 0 if sr is None else sr["pool"]
        tau = 1.0 if sr is None else sr["tau"]
        _bpr_epoch(
            self.U,
            self.V,
            visit,
            indptr,
            indices,
            t_indptr,
            t_indices,
            code,
            n_cand,
            lam,
            prior,
            oracle,
            fn_level,
            tn_level,
            f_cand,
            pns_cdf,
            rank_scale,
            lr,
            reg,
            kseed,
            stats,
            record,
            self.mem,
            self.hist,
            self.hist_u,
            self.hist_v,
            self.n_hist,
            alpha_t,
            pool,
            tau,
            self.loss_code,
            self.n_negatives,
            f_sample,
        )
        if (
            sr is not None
        ):  # the scores after this epoch replace the oldest of the window (epoch 0: the initial ones)
            self._record_history(epoch)
            self.n_hist = min(epoch + 1, self.srns["window"])
        if self.return_negatives:
            self.negatives.append((visit, record))
        if not (np.all(np.isfinite(self.U)) and np.all(np.isfinite(self.V))):
            raise FloatingPointError(
                f"BPR-MF diverged at epoch {epoch} (non-finite embeddings); lower lr"
            )
        if self.callback is not None:
            self.callback(epoch, self.U, self.V)
        return dict(loss=stats[3] / n, tnr=1.0 - stats[1] / stats[0], inf=stats[2] / stats[0])

    def _record_history(self, epoch):
        """SRNS: the current scores (or embeddings, above the dense limit) replace the window's oldest."""
        slot = epoch % self.srns["window"]
        if self.hist_u.shape[0]:
            self.hist_u[slot] = self.U
            self.hist_v[slot] = self.V
        else:
            self.hist[slot] = self.U @ self.V.T

    def score_matrix(self) -> ScoreMatrix:
        """A snapshot of the current scores U V^T (the embeddings are copied)."""
        return ScoreMatrix.from_embeddings(self.U, self.V)

    def score_block(self, users: np.ndarray) -> np.ndarray:
        return self.U[users] @ self.V.T

    def score_pairs(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        return self.score_matrix().pairs(users, items)

    def scores(self) -> np.ndarray:
        return self.U @ self.V.T


def _check_prior_array(prior: ArrayLike, n_users: int, n_items: int) -> np.ndarray:
    """A prior array of shape (1 or n_users, n_items) with values in [0, 1], else a ValueError naming ``prior``."""
    prior_arr = np.asarray(prior, dtype=np.float64)
    if prior_arr.ndim == 1:
        prior_arr = prior_arr[None, :]
    if (
        prior_arr.ndim != 2
        or prior_arr.shape[1] != n_items
        or prior_arr.shape[0] not in (1, n_users)
    ):
        raise ValueError(
            f"prior must have shape ({n_items},) or ({n_users}, {n_items}), got {np.shape(prior)}"
        )
    if not np.all((prior_arr >= 0) & (prior_arr <= 1)):
        raise ValueError("prior must hold probabilities in [0, 1]")
    return np.ascontiguousarray(prior_arr)


# ------------------------------------------------------------------------------------------
# the batch-1 SGD engine of negtheory.training.fit
# ------------------------------------------------------------------------------------------
def _sgd_prior(data: Interactions, bns: BNS) -> tuple[np.ndarray, bool]:
    """BNS's P_fn as a (1 or n_users, n_items) array, and whether it is the oracle (read per user in the kernel)."""
    if isinstance(bns.prior, str):
        n_items = data.n_items
        p1 = (
            np.full(n_items, 1.0 / n_items)
            if bns.prior == "uniform"
            else bns_prior(data.item_counts(), len(data.train))
        )
        return p1[None, :], bns.prior == "oracle"
    try:
        return _check_prior_array(bns.prior, data.n_users, data.n_items), False
    except ValueError as exc:
        raise ValueError(f"BNS.{exc}") from None


def _srns_state(
    srns: SRNS, ss: np.random.SeedSequence, data: Interactions, indptr, indices
) -> dict[str, Any]:
    """SRNS's initial memory (min(S1, n_neg) distinct uniform non-interacted items per user, own seed child) and history."""
    n_users, n_items = data.n_users, data.n_items
    mem = srns_initial_memory(
        indptr, indices, n_items, srns.memory, np.random.default_rng(ss.spawn(1)[0])
    )
    # the scores of the last srns_window epochs: kept whole on small data, else recomputed from the
    # recorded embeddings (O((n_users + n_items) d) per epoch instead of O(n_users n_items))
    small = srns.window * n_users * n_items <= _loop.DENSE_LIMIT
    hist = np.zeros((srns.window, n_users, n_items), dtype=np.float32) if small else None
    return dict(
        memory=mem,
        history=hist,
        alpha=srns.alpha,
        warmup=srns.warmup,
        pool=srns.candidates,
        tau=srns.tau,
        window=srns.window,
    )


def _fit_sgd(data: Interactions, run: Run) -> FitResult:
    """The batch-1 SGD engine (numba): MF with BPR / BCE / InfoNCE and the samplers of thesis ch. 4."""
    s, opt, model = run.sampler, run.optimizer, run.model
    sampler = _SPEC_SAMPLER[type(s)]
    bns = (
        s if isinstance(s, BNS) else BNS()
    )  # the kernel's BNS arguments (read only when sampler is BNS)
    callbacks = check_callbacks(run.callbacks)
    n_users, n_items = data.n_users, data.n_items
    indptr, indices = data.train_csr()
    if np.any(np.diff(indptr) >= n_items):
        raise ValueError(
            "a user has interacted with every item in training: no negative can be sampled"
        )
    rank_scale = (
        s.rank_scale if isinstance(s, AOBPR) and s.rank_scale is not None else 0.05 * n_items
    )
    tpairs = data.test if len(data.test) else np.zeros((0, 2), dtype=np.int64)
    t_indptr, t_indices = Interactions(n_users, n_items, tpairs, tpairs).train_csr()
    prior_arr, is_oracle = _sgd_prior(data, bns)
    lams = np.array(bns.lam_schedule) if bns.lam_schedule is not None else run.extras.get("lams")
    warm_rns_epochs = bns.warm_rns_epochs or run.extras.get("warm_rns_epochs", 0)
    pns_power = s.power if isinstance(s, PNS) else 0.75
    pns_cdf = np.cumsum(pns_weights(data.item_counts(), pns_power))
    ss = np.random.SeedSequence(run.seed)
    init_ss, shuffle_ss, *epoch_ss = ss.spawn(2 + run.epochs)
    rng = np.random.default_rng(init_ss)
    init_std = 0.1 if model.init_std is None else model.init_std
    U = rng.normal(0.0, init_std, size=(n_users, model.dim)).astype(np.float32)
    V = rng.normal(0.0, init_std, size=(n_items, model.dim)).astype(np.float32)
    shuffle_rng = np.random.default_rng(shuffle_ss)
    candidates = s.candidates if isinstance(s, DNS) else bns.candidates
    fn_level, tn_level = bns.oracle_levels
    kernel_args = (
        indptr,
        indices,
        t_indptr,
        t_indices,
        _CODE[sampler],
        candidates,
        bns.lam,
        prior_arr,
        is_oracle,
        fn_level,
        tn_level,
        bns.ecdf == "candidates",
        pns_cdf,
        rank_scale,
        np.float32(opt.lr),
        np.float32(opt.weight_decay),
        bns.f_sample or 0,
    )
    runner = _SGDRunner(
        data=data,
        U=U,
        V=V,
        kernel_args=kernel_args,
        shuffle_rng=shuffle_rng,
        order=shuffle_rng.permutation(len(data.train)),
        reshuffle=opt.shuffle == "epoch",
        epoch_ss=epoch_ss,
        callback=run.extras.get("callback"),
        return_negatives=bool(run.extras.get("return_negatives")),
        srns=_srns_state(s, ss, data, indptr, indices) if isinstance(s, SRNS) else None,
        lams=lams,
        warm_rns_epochs=warm_rns_epochs,
        loss_code=_LOSSES[_SPEC_LOSS[type(run.loss)]],
        n_negatives=run.loss.negatives,
    )
    ev = run.evaluation
    splits, monitor = eval_splits(data, ev, "test", ("test", "valid"))
    res = train_loop(
        runner,
        data,
        epochs=run.epochs,
        eval_every=ev.every,
        topk=ev.ks,
        eval_on=splits,
        monitor=monitor,
        patience=ev.patience,
        callbacks=callbacks,
        progress=run.progress,
        desc=f"BPR-MF SGD {sampler}",
    )
    config = _sgd_config(
        run, sampler, candidates, prior_arr, rank_scale, init_std, lams, warm_rns_epochs
    )
    return FitResult(
        history=res["history"],
        best_epoch=res["best_epoch"],
        user_emb=U,
        item_emb=V,
        scores=ScoreMatrix.from_embeddings(U, V),
        engine="sgd",
        specs=run.specs(),
        config=config,
        seconds=res["seconds"],
        negatives=runner.negatives if runner.return_negatives else None,
    )


def _sgd_config(
    run: Run, sampler: str, candidates, prior_arr, rank_scale, init_std, lams, warm_rns_epochs
) -> dict[str, Any]:
    """The batch-1 engine's record of a run's settings (:attr:`FitResult.config <negtheory.training.FitResult>`)."""
    s, loss, opt = run.sampler, run.loss, run.optimizer
    bns = s if isinstance(s, BNS) else BNS()
    config = dict(
        sampler=sampler,
        dim=run.model.dim,
        lr=opt.lr,
        reg=opt.weight_decay,
        epochs=run.epochs,
        candidates=candidates,
        lam=bns.lam,
        prior=bns.prior if isinstance(bns.prior, str) else f"array{prior_arr.shape}",
        oracle_levels=bns.oracle_levels,
        ecdf=bns.ecdf,
        rank_scale=rank_scale,
        init_std=init_std,
        shuffle=opt.shuffle,
        rng=run.seed,  # the run's integer seed, under the keyword's name
    )
    if lams is not None:
        config["lam_schedule"] = np.asarray(lams).tolist()
    if warm_rns_epochs:
        config["warm_rns_epochs"] = warm_rns_epochs
    if bns.f_sample is not None:
        config["bns_f_sample"] = bns.f_sample
    loss_name = _SPEC_LOSS[type(loss)]
    if loss_name != "bpr" or loss.negatives != 1:
        config.update(loss=loss_name, n_negatives=loss.negatives)
    if isinstance(s, PNS):
        config.update(pns_power=s.power)
    if isinstance(s, SRNS):
        config.update(
            srns_memory=s.memory,
            srns_candidates=s.candidates,
            srns_alpha=s.alpha,
            srns_warmup=s.warmup,
            srns_tau=s.tau,
            srns_window=s.window,
        )
    return config
