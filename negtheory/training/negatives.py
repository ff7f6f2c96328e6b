r"""The sampler protocol: a sampler bound to a split draws the negatives of a batch.

Every negative sampler of :func:`negtheory.training.fit` — the package's specs (:class:`RNS`,
:class:`PNS`, :class:`DNS`, :class:`BNS`, :class:`AOBPR`, :class:`SRNS`, :class:`SharedUniform`,
:class:`CatalogueUniform`) and a user's own — is a :class:`Sampler`. The trainer, and a user's own
loop, use it in four calls:

1. ``bound = sampler.bind(data)``: the split's training sets computed once;
2. ``bound.start(scores, rng, device)``: state that needs the initial model (SRNS's memories, a
   device generator), once before the first step;
3. ``bound.draw(users, n, rng, scores=..., positives=..., epoch=...)``: ``n`` negatives per row of
   a batch, an int array (or a tensor on ``device``) of shape (B, n);
4. ``bound.end_epoch(epoch, scores)``: after each epoch (SRNS records the epoch's scores).

``scores`` is what a score-aware sampler reads of the current model: an object with
``block(users)`` (the rows of the score matrix, numpy), a call ``scores(users, items)`` (the scores
of a (B, ...) item array) and, in the trainer, ``tensors()`` (the scoring embeddings on the
model's device) and ``embeddings()`` (the same as float32 numpy). A
:class:`~negtheory.recsys.loop.ScoreMatrix` or a dense (n_users, n_items) array serves a user's own
loop. A subclass implements :meth:`Sampler.negatives` (and sets ``score_aware = True`` when it reads
``scores``); stateful samplers also return their own :class:`BoundSampler` subclass from ``bind``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:
    from .._typing import ArrayLike, RNGLike
    from ..recsys.interactions import Interactions

__all__ = ["Sampler", "BoundSampler"]


class Sampler:
    """Base of the negative samplers: ``bind`` to a split, then ``draw`` per batch (module notes).

    A user's sampler subclasses it and implements :meth:`negatives`; :func:`~negtheory.training.fit`
    takes an instance wherever it takes a sampler spec.

    Attributes
    ----------
    score_aware : bool
        Whether :meth:`negatives` reads the model's current ``scores`` (the trainer then prepares
        them at each step; default False).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.training import Sampler
    >>> class LastItem(Sampler):
    ...     def negatives(self, bound, users, n, rng, *, scores=None, positives=None, epoch=0):
    ...         return np.full((len(users), n), bound.n_items - 1)
    >>> d = load_split(np.array([[0, 0], [1, 1]]), np.array([[0, 1]]))
    >>> LastItem().sample(d, [0, 1], 2).tolist()
    [[1, 1], [1, 1]]
    """

    score_aware: ClassVar[bool] = False
    #: one row of negatives per batch, shared by its rows (SharedUniform): the trainer scores it once
    shared: ClassVar[bool] = False

    def bind(self, data: Interactions) -> BoundSampler:
        """The sampler bound to a split: its training sets computed once, for many draws.

        Parameters
        ----------
        data : Interactions
            The split whose training items are never drawn.

        Returns
        -------
        BoundSampler
            ``bound.draw(users, n, rng, scores=..., positives=..., epoch=...)``.
        """
        return BoundSampler(self, data)

    def sample(
        self,
        data: Interactions,
        users: ArrayLike,
        n: int,
        rng: RNGLike = None,
        *,
        scores: Any = None,
        positives: ArrayLike | None = None,
        epoch: int = 0,
    ) -> np.ndarray:
        """``n`` negatives per user of ``users`` (a one-off :meth:`bind` and ``draw``).

        Parameters
        ----------
        data : Interactions
            The split (its training pairs are never drawn, except by the catalogue-uniform samplers).
        users : array_like of int, shape (B,)
            The user of each row.
        n : int
            Negatives per row.
        rng : None, int, SeedSequence or Generator
            Source of randomness.
        scores : ScoreMatrix, ndarray or callable, optional
            The current scores (score-aware samplers: DNS, BNS, AOBPR).
        positives : array_like of int, shape (B,), optional
            The positive item of each row (BNS's informativeness, eq. 4.4).
        epoch : int
            The 0-based epoch (BNS's ``lam_schedule`` and ``warm_rns_epochs``).

        Returns
        -------
        ndarray of int64, shape (B, n)
            The negatives.
        """
        bound = self.bind(data)
        bound.start(scores, rng)
        return np.asarray(
            bound.draw(users, n, rng, scores=scores, positives=positives, epoch=epoch)
        )

    def negatives(
        self,
        bound: BoundSampler,
        users: np.ndarray,
        n: int,
        rng: RNGLike,
        *,
        scores: Any = None,
        positives: np.ndarray | None = None,
        epoch: int = 0,
    ) -> Any:
        """The hook a sampler implements: ``n`` negatives per row of ``users``.

        Parameters
        ----------
        bound : BoundSampler
            The bound sampler (``n_items``, ``csr`` = (indptr, indices) of the training items,
            ``counts`` = item popularity, ``n_train``, ``data``).
        users : ndarray of int, shape (B,)
            The user of each row.
        n : int
            Negatives per row, at least 1.
        rng : numpy.random.Generator or seed
            The run's stream.
        scores : object, optional
            The current scores (module notes).
        positives : ndarray of int, shape (B,), optional
            Each row's positive item.
        epoch : int
            The 0-based epoch.

        Returns
        -------
        ndarray of int, shape (B, n)
            The negatives (or a tensor on the model's device).
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement negatives(bound, users, n, rng, ...)"
        )


class BoundSampler:
    """A sampler bound to a split (:meth:`Sampler.bind`): training sets computed once.

    Parameters
    ----------
    spec : Sampler
        The sampler.
    data : Interactions
        The split.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.training import RNS
    >>> b = RNS().bind(load_split(np.array([[0, 0], [0, 1], [1, 2]]), np.array([[0, 2]])))
    >>> b.draw([0, 0], 1, rng=0).tolist()
    [[2], [2]]
    """

    def __init__(self, spec: Sampler, data: Interactions) -> None:
        self.spec = spec
        self.data = data
        self.n_items = data.n_items
        self.csr = data.train_csr()
        self.counts = data.item_counts()
        self.n_train = len(data.train)

    def start(self, scores: Any, rng: RNGLike, device: Any = "cpu") -> None:
        """Prepare the state that needs the initial model (default: nothing).

        Parameters
        ----------
        scores : object or None
            The initial model's scores (module notes).
        rng : numpy.random.Generator
            The run's stream (a stateful sampler may draw its seed from it).
        device : str or torch.device
            Where the model lives.
        """

    def draw(
        self,
        users: ArrayLike,
        n: int,
        rng: RNGLike = None,
        *,
        scores: Any = None,
        positives: ArrayLike | None = None,
        epoch: int = 0,
    ) -> Any:
        """``n`` negatives per user (:meth:`Sampler.sample`'s parameters and result, without ``data``).

        Parameters
        ----------
        users : array_like of int, shape (B,)
            The user of each row.
        n : int
            Negatives per row.
        rng : None, int, SeedSequence or Generator
            Source of randomness.
        scores : object, optional
            The current scores (score-aware samplers).
        positives : array_like of int, shape (B,), optional
            The positive item of each row.
        epoch : int
            The 0-based epoch.

        Returns
        -------
        ndarray of int64, shape (B, n)
            The negatives (a tensor on the device for the device-side samplers).
        """
        pos = None if positives is None else np.asarray(positives)
        return self.spec.negatives(
            self, np.asarray(users), int(n), rng, scores=scores, positives=pos, epoch=int(epoch)
        )

    def end_epoch(self, epoch: int, scores: Any) -> None:
        """Called after each epoch with the scores it ended on (default: nothing).

        Parameters
        ----------
        epoch : int
            The 0-based epoch just finished.
        scores : object
            The model's scores after it.
        """

    def state_dict(self) -> dict[str, Any]:
        """The sampler's state for a checkpoint (default: none).

        Returns
        -------
        dict
            Plain values and arrays.
        """
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`'s state.

        Parameters
        ----------
        state : dict
            What :meth:`state_dict` returned.
        """

    def free_mask(self, users: np.ndarray) -> np.ndarray:
        """Where each row's user has not interacted with the item in training.

        Parameters
        ----------
        users : ndarray of int, shape (B,)
            The user of each row.

        Returns
        -------
        ndarray of bool, shape (B, n_items)
            True at the items the row's user has not interacted with in training.
        """
        from ..recsys.adaptive_samplers import _free_rows

        return _free_rows(np.asarray(users), *self.csr, self.n_items)


class _BoundSRNS(BoundSampler):
    """SRNS bound to a split: the per-user memories (:class:`negtheory.recsys.SRNSMemory`) live here."""

    def start(self, scores: Any, rng: RNGLike, device: Any = "cpu") -> None:
        from ..recsys.adaptive_samplers import SRNSMemory

        if scores is None or not hasattr(scores, "embeddings"):
            raise ValueError(
                "SRNS needs the model's scoring embeddings: scores with an embeddings() method"
            )
        eu, ei = scores.embeddings()
        self.memory = SRNSMemory(self.spec, self.data, eu, ei, rng=rng)

    def draw(self, users, n, rng=None, *, scores=None, positives=None, epoch=0):
        # n SRNS draws per pair: the rows repeated n times, the memories refreshed in row order
        if positives is None or scores is None:
            raise ValueError(
                "SRNS draws per (user, positive) pair from the current scores: positives and scores are required"
            )
        u, pos = np.asarray(users), np.asarray(positives)
        if n > 1:
            u, pos = np.repeat(u, n), np.repeat(pos, n)
        eu, ei = scores.embeddings()
        return self.memory.draw(u, pos, eu, ei, epoch=int(epoch), rng=rng).reshape(-1, n)

    def end_epoch(self, epoch: int, scores: Any) -> None:
        self.memory.record(epoch, *scores.embeddings())  # the window's oldest scores replaced

    def state_dict(self) -> dict[str, Any]:
        return {"srns": self.memory.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.memory.load_state_dict(state["srns"])  # the trainer's checkpoint: the key among others


class _BoundOnDevice(BoundSampler):
    """A uniform sampler drawing on the model's device with torch's generator (``on_device=True``).

    RNS: an exact inverse CDF over each user's non-interacted items
    (:class:`negtheory.bridge.device_sampling.UniformFreeSampler`); CatalogueUniform: ``torch.randint``
    over the catalogue. The same law as the host draw, another random stream.
    """

    def start(self, scores: Any, rng: RNGLike, device: Any = "cpu") -> None:
        import torch

        from .._validation import as_generator

        self.device = torch.device(device)
        if self.spec.catalogue:  # type: ignore[attr-defined]
            self.sampler = None
        else:
            from ..bridge.device_sampling import UniformFreeSampler

            self.sampler = UniformFreeSampler(self.csr, self.n_items, self.device)
        self.gen = torch.Generator(device=self.device).manual_seed(
            int(as_generator(rng).integers(2**63 - 1))
        )

    def draw(self, users, n, rng=None, *, scores=None, positives=None, epoch=0):
        import torch

        if not hasattr(self, "gen"):
            self.start(scores, rng)
        ut = (
            users
            if isinstance(users, torch.Tensor)
            else torch.from_numpy(np.asarray(users, dtype=np.int64))
        )
        ut = ut.to(self.device)
        if self.sampler is None:
            return torch.randint(
                self.n_items, (ut.shape[0], int(n)), generator=self.gen, device=self.device
            )
        return self.sampler.draw(ut, int(n), self.gen)

    def state_dict(self) -> dict[str, Any]:
        return {"device_generator": self.gen.get_state()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.gen.set_state(state["device_generator"])


class _BoundBNS(BoundSampler):
    """BNS bound to a split: its prior P_fn and each user's count of non-interacted items.

    The choice of eq. 4.26 runs where the scores live: on the model's device with
    :func:`negtheory.bridge.samplers.bns_select` in the trainer (scores with ``tensors()``), else in
    numpy with :func:`negtheory.estimators.bns_info` / :func:`~negtheory.estimators.bns_risk` (a
    score matrix or array in a user's loop); both are eq. 4.4, 4.14, 4.15 (over n + 1) and 4.26.
    """

    def __init__(self, spec: Any, data: Interactions) -> None:
        super().__init__(spec, data)
        prior = spec.prior
        self.n_free = data.n_items - np.diff(self.csr[0])
        self.prior_rows: np.ndarray | None = None
        self.prior_vec: np.ndarray | None = None
        self.test_csr = None
        if isinstance(prior, str):
            if prior == "uniform":  # BNS-3
                self.prior_vec = np.full(data.n_items, 1.0 / data.n_items)
            else:  # eq. 4.16, pop_l / N (the oracle's levels are read per user below)
                self.prior_vec = self.counts / self.n_train
            if prior == "oracle":
                self.test_csr = data.test_csr()
        else:
            arr = np.asarray(prior, dtype=np.float64)
            shape_ok = arr.shape == (data.n_items,) or arr.shape == (data.n_users, data.n_items)
            if not shape_ok:
                raise ValueError(
                    f"BNS.prior must have shape ({data.n_items},) or ({data.n_users}, {data.n_items}) for this split, "
                    f"got {arr.shape}"
                )
            self.prior_vec = arr if arr.ndim == 1 else None
            self.prior_rows = arr if arr.ndim == 2 else None

    def p_fn(self, users: np.ndarray, cand: np.ndarray) -> np.ndarray:
        """P_fn of each candidate, shape (B, C), float64."""
        if (
            self.test_csr is not None
        ):  # the oracle of Table 4.5: the user's test items against the rest
            from ..recsys.adaptive_samplers import _free_rows

            fn_level, tn_level = self.spec.oracle_levels  # type: ignore[attr-defined]
            in_test = ~np.take_along_axis(
                _free_rows(users, *self.test_csr, self.n_items), cand, axis=1
            )
            return np.where(in_test, fn_level, tn_level)
        if self.prior_rows is not None:
            return self.prior_rows[users[:, None], cand]
        assert self.prior_vec is not None  # one of the two is set in __init__
        return self.prior_vec[cand]

    def choose(self, users, positives, cand, scores, lam, rng) -> np.ndarray:
        """The index in [0, C) of each row's least-risk candidate (eq. 4.26; ties: the first)."""
        if hasattr(scores, "tensors"):
            return self._choose_on_device(users, positives, cand, scores, lam, rng)
        from ..estimators import _unbias_terms, bns_info, bns_risk

        full = np.asarray(
            scores.block(users) if hasattr(scores, "block") else np.asarray(scores)[users],
            dtype=np.float64,
        )
        x_c = np.take_along_axis(full, cand, axis=1)
        if self.spec.ecdf == "candidates":  # type: ignore[attr-defined]
            f = (x_c[:, None, :] <= x_c[:, :, None]).sum(-1) / (cand.shape[1] + 1.0)
        else:  # eq. 4.15 over the user's non-interacted items, over n + 1
            free = self.free_mask(users)
            f = ((full[:, None, :] <= x_c[:, :, None]) & free[:, None, :]).sum(-1) / (
                free.sum(1)[:, None] + 1.0
            )
        p = self.p_fn(users, cand)
        num, den = _unbias_terms(f, p)  # eq. 4.14
        unbias = np.divide(num, den, out=np.zeros_like(f), where=den > 0)
        info = bns_info(full[np.arange(len(users)), positives][:, None], x_c)  # eq. 4.4
        return np.argmin(bns_risk(info, unbias, lam), axis=1)

    def _choose_on_device(self, users, positives, cand, scores, lam, rng) -> np.ndarray:
        import math

        import torch

        from ..bridge.samplers import bns_select
        from ..recsys.samplers import sample_uninteracted

        eu, ei = scores.tensors()
        dev = eu.device
        ut = torch.from_numpy(np.asarray(users)).to(dev)
        ct = torch.from_numpy(cand).to(dev)
        p = torch.from_numpy(self.p_fn(users, cand))
        spec = self.spec
        n_free = self.n_free[users]
        if spec.ecdf == "candidates":  # type: ignore[attr-defined]
            sc = (
                eu[ut][:, None, :]
                * ei[torch.from_numpy(np.concatenate([positives[:, None], cand], 1)).to(dev)]
            ).sum(-1)
            choice = bns_select(sc[:, 0], sc[:, 1:], p.to(dev, sc.dtype), lam=lam)
            return choice.cpu().numpy()
        f_sample = spec.f_sample or 0  # type: ignore[attr-defined]
        if f_sample and f_sample < n_free.min():
            # F from f_sample distinct uniform non-interacted items per user (unbiased): eq. 4.15's
            # #{j <= x} / (n + 1) estimated by #{sampled <= x} / S * n / (n + 1), i.e. bns_select's
            # count over n_reference + 1 = S (n + 1) / n; only the B (1 + C + S) pairs are scored
            refs = sample_uninteracted(users, f_sample, self.csr, rng, n_items=self.n_items)
            items = torch.from_numpy(np.concatenate([positives[:, None], cand, refs], axis=1)).to(
                dev
            )
            sc = (eu[ut][:, None, :] * ei[items]).sum(-1)
            c = cand.shape[1]
            n_ref = torch.from_numpy(f_sample * (n_free + 1.0) / n_free - 1.0)
            choice = bns_select(
                sc[:, 0],
                sc[:, 1 : 1 + c],
                p.to(dev, sc.dtype),
                reference_scores=sc[:, 1 + c :],
                lam=lam,
                n_reference=n_ref,
            )
            return choice.cpu().numpy()
        sc = eu[ut] @ ei.T
        mask = torch.from_numpy(~self.free_mask(users)).to(
            dev
        )  # the batch's training items, [B, n_items]
        ref = sc.masked_fill(mask, math.inf)  # positives never count as <= a candidate
        x_ui = sc.gather(1, torch.from_numpy(np.asarray(positives)).to(dev)[:, None])[:, 0]
        # eq. 4.15 over n + 1 with n the user's non-interacted items
        choice = bns_select(
            x_ui,
            sc.gather(1, ct),
            p.to(dev, sc.dtype),
            reference_scores=ref,
            lam=lam,
            n_reference=torch.from_numpy(n_free),
        )
        return choice.cpu().numpy()
