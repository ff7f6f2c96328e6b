r"""BPRAC's EM loop (Liu Bin's thesis, ch. 3, Algorithm 1) with :func:`negtheory.bprac.credence` as the E-step.

BPR with autonomous credence alternates

* **E-step** (eq. 3.24-3.28): the credence c-hat_ui of every observed interaction from its
  current score x_ui = <w_u, h_i> — the posterior density g(x) = 2 F(x) f(x) of a credible
  interaction under the variance-gamma prior of matrix-factorisation scores (Lemma 3.1, eq.
  3.22) times the popularity prior sigmoid((n_i - n-bar) / sigma_n) (eq. 3.28), normalised to a
  maximum of 1 — computed by the numba layer, :func:`negtheory.bprac.credence`:

  .. math:: \hat c_{ui} \propto 2F(\hat x_{ui})\, f(\hat x_{ui})\;
            \mathrm{sigmoid}\Big(\frac{n_i - \bar n}{\sigma_n}\Big);

* **M-step** (eq. 3.29-3.32): a credence-weighted BPR update,
  :func:`negtheory.bridge.functional.bpr` with ``weight``, minimising

  .. math:: \sum_{(u,i,j)} \hat c_{ui}\,\big[-\ln\sigma(\hat x_{ui} - \hat x_{uj})\big],

  the negative of eq. 3.29 without its L2 term (the optimiser's weight decay, when set).

The prior's scale lambda (the variance of the embedding coordinates, N(0, lambda) in Lemma 3.1)
is re-estimated at every E-step as sqrt(var(W) var(H)), so that the inner product of two
coordinates has the variance lambda^2 of the lemma. The released code multiplies the credence by
the explicit star rating; implicit feedback has none, so it is not used (README, "Notes on the sources (errata)").
"""

from __future__ import annotations

import math

import numpy as np
import torch

__all__ = ["prior_lambda", "e_step", "CredenceWeights"]


def prior_lambda(user_emb: torch.Tensor, item_emb: torch.Tensor) -> float:
    """Scale lambda of Lemma 3.1 (Liu Bin's thesis, eq. 3.18) fitted to the current embeddings.

    lambda = sqrt(var(W) var(H)), the variances taken about 0 (mean squares of the
    coordinates), as for the N(0, lambda) coordinates of the lemma.

    Parameters
    ----------
    user_emb : Tensor, shape [n_users, d]
        User embeddings W (used without gradient).
    item_emb : Tensor, shape [n_items, d]
        Item embeddings H.

    Returns
    -------
    float
        lambda >= 0.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.bprac_em import prior_lambda
    >>> round(prior_lambda(2 * torch.ones(3, 2) * torch.tensor([1.0, -1.0]), torch.tensor([[1.0, -1.0]] * 3)), 6)
    2.0
    """
    vu = float(user_emb.detach().double().pow(2).mean())
    vi = float(item_emb.detach().double().pow(2).mean())
    return math.sqrt(vu * vi)


def e_step(scores, items, item_counts, d, lam):
    r"""Credence c-hat_ui of each interaction (thesis eq. 3.24-3.28) as a float32 tensor in (0, 1].

    Thin wrapper of :func:`negtheory.bprac.credence` (numba, float64) on torch tensors: the
    posterior density g(x) = 2 F(x) f(x) of eq. 3.22 under the variance-gamma score law of
    eq. 3.18-3.20, times the popularity prior of eq. 3.28, normalised to a maximum of 1 (eq. 3.27).

    Parameters
    ----------
    scores : Tensor, shape [n]
        Current scores x_ui = <w_u, h_i> of the interactions.
    items : LongTensor, shape [n]
        Item of each interaction (for the popularity prior).
    item_counts : Tensor or array_like, shape [n_items]
        Training interactions per item, n_i of eq. 3.28.
    d : int
        Embedding dimension (the shape parameter of the variance-gamma law).
    lam : float > 0
        Scale lambda of the law (:func:`prior_lambda`).

    Returns
    -------
    Tensor, shape of ``scores``
        Credence c-hat_ui in (0, 1], float32 on the CPU.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.bprac_em import e_step
    >>> c = e_step(torch.tensor([-1.0, 0.5, 2.0, 2.0]), torch.tensor([0, 0, 0, 1]), torch.tensor([10.0, 30.0]), 2, 1.0)
    >>> [round(v, 4) for v in c.tolist()]
    [0.1601, 1.0, 0.2986, 0.8116]
    """
    from ..bprac import credence

    s = scores.detach().double().cpu().numpy()
    it = items.detach().cpu().numpy().astype(np.int64)
    cnt = torch.as_tensor(item_counts).detach().double().cpu().numpy()
    c = credence(s, it, cnt, int(d), float(lam), normalize=True)
    return torch.as_tensor(np.asarray(c, dtype=np.float32)).reshape(scores.shape)


class CredenceWeights:
    """Per-interaction weights of the M-step, refreshed by :meth:`update` (the E-step).

    Until the first update every weight is 1 (plain BPR): credence computed from a random
    initialisation carries no information, so the loop starts with ``warmup_epochs`` of BPR.

    Parameters
    ----------
    n_interactions : int
        Number of training interactions (one weight each).
    warmup_epochs : int, default 1
        Epochs of plain BPR before the first E-step.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.bprac_em import CredenceWeights
    >>> w = CredenceWeights(n_interactions=3)
    >>> w.weights.tolist()
    [1.0, 1.0, 1.0]
    """

    def __init__(self, n_interactions: int, warmup_epochs: int = 1):
        self.weights = torch.ones(int(n_interactions))
        self.warmup_epochs = int(warmup_epochs)
        self.lam_history: list[float] = []

    def update(
        self,
        epoch: int,
        score_fn,
        train_pairs: torch.Tensor,
        item_counts,
        d: int,
        user_emb,
        item_emb,
    ):
        """E-step at the start of ``epoch`` (skipped during warm-up).

        Parameters
        ----------
        epoch : int
            0-based epoch; nothing is computed while ``epoch < warmup_epochs``.
        score_fn : callable
            ``score_fn(users [n], items [n]) -> scores [n]``, the model's scores (called without
            gradient).
        train_pairs : LongTensor, shape [n, 2]
            The (user, item) training interactions, in the order of the weights.
        item_counts : Tensor, shape [n_items]
            Training interactions per item.
        d : int
            Embedding dimension.
        user_emb, item_emb : Tensor, shapes [n_users, d] and [n_items, d]
            Current embeddings, for :func:`prior_lambda` (appended to ``lam_history``).

        Returns
        -------
        Tensor, shape [n]
            The credence weights (also kept in ``weights``).
        """
        if epoch < self.warmup_epochs:
            return self.weights
        lam = prior_lambda(user_emb, item_emb)
        self.lam_history.append(lam)
        with torch.no_grad():
            scores = score_fn(train_pairs[:, 0], train_pairs[:, 1])
        self.weights = e_step(scores.cpu(), train_pairs[:, 1].cpu(), item_counts, d, lam)
        return self.weights
