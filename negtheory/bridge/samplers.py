r"""Negative samplers for real training, on any device, seeded by a ``torch.Generator``.

* :func:`bns_select` / :class:`BNSSampler` — Bayesian negative sampling (Liu Bin's thesis, ch. 4,
  eq. 4.4, 4.14-4.16, 4.25-4.26), batched over users and candidate sets;
* :func:`boltzmann_log_probs` / :func:`boltzmann_sample` — the Boltzmann law B(G, D, T) of
  Relaxed Softmax (Tanielian & Vasile (Relaxed Softmax), eq. 8);
* :func:`draw_negative_counts` — integer counts for a real-valued ratio K (Wu et al. (Rethinking
  InfoNCE), eq. 8), and :class:`ANSCallback` — the adaptive negative sampling schedule (Wu et al.,
  §5, Fig. 6) as a training callback.

Each mirrors a numpy function of the simulation layer (:func:`negtheory.estimators.bns_select`,
:func:`negtheory.sampling.boltzmann`, :func:`negtheory.infonce.draw_negative_counts`,
:func:`negtheory.infonce.ans_schedule`); the tests check them against it.
"""

from __future__ import annotations

import math

import torch

from .._validation import int_scalar, real_scalar
from ..infonce import ans_schedule

__all__ = [
    "bns_select",
    "BNSSampler",
    "boltzmann_log_probs",
    "boltzmann_sample",
    "draw_negative_counts",
    "ANSCallback",
    "uniform_items",
]


def uniform_items(n_items, shape, generator=None, device=None):
    """Item indices drawn uniformly from [0, n_items) with replacement (the unlabeled set of PU learning).

    Parameters
    ----------
    n_items : int >= 1
        Catalog size.
    shape : tuple of int
        Shape of the output, e.g. (B, K) for K negatives of each of B pairs.
    generator : torch.Generator, optional
        Source of the random numbers (None: torch's global generator); the numbers are drawn on
        its device and moved to ``device``, so a seeded CPU generator gives the same items anywhere.
    device : torch.device or str, optional
        Device of the output (None: the generator's device, else the CPU).

    Returns
    -------
    LongTensor, shape ``shape``
        Item indices in [0, n_items).

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.samplers import uniform_items
    >>> tuple(uniform_items(10, (2, 3), torch.Generator().manual_seed(0)).shape)
    (2, 3)
    """
    n_items = int_scalar("n_items", n_items, 1)
    # drawn on the generator's device (torch refuses a CPU generator for CUDA output), then moved:
    # a seeded CPU generator gives the same items on every device
    out = torch.randint(
        0, n_items, tuple(shape), generator=generator, device=_draw_device(generator, device)
    )
    return out if device is None else out.to(device)


def _draw_device(generator, device):
    """Where random numbers are drawn: the generator's device when one is given, else ``device``."""
    return generator.device if generator is not None else device


# --------------------------------------------------------------------------------------------
# BNS (thesis ch. 4)
# --------------------------------------------------------------------------------------------
def _count_le(ref, cand):
    """#{r in ref[b] : r <= cand[b, c]} for every b, c (integer counts, exact).

    A few candidates against a long reference row (BNS's C = 5 against the catalog) are counted
    by direct comparison, O(B C R) without a sort; many candidates by one sort of each row and a
    binary search, O(B R log R + B C log R). Both give the same integers; the direct count costs
    a tenth of the sort for C = 5 and R = 1682 (MovieLens-100K) on a CPU.
    """
    r = ref.shape[-1]
    if cand.shape[-1] <= max(8, int(math.log2(r + 1))):
        return (ref[..., None, :] <= cand[..., :, None]).sum(-1)
    srt, _ = torch.sort(ref, dim=-1)
    return torch.searchsorted(srt.contiguous(), cand.contiguous(), right=True)


def bns_select(
    pos_scores, cand_scores, cand_p_fn, reference_scores=None, lam=5.0, n_reference=None
):
    r"""Bayesian negative sampling: index of the candidate of least sampling risk (Liu Bin's thesis eq. 4.26).

    The sampling criterion of eq. 4.26 with the informativeness of eq. 4.4 and the unbiasedness
    (posterior true-negative probability) of eq. 4.14:

    .. math::
        j = \arg\min_{l} \mathrm{info}(l)\,[1 - (1+\lambda)\,\mathrm{unbias}(l)], \qquad
        \mathrm{info}(l) = \sigma(x_{ul} - x_{ui}), \qquad
        \mathrm{unbias}(l) = \frac{[1-F][1-P_{fn}]}{1 - F - P_{fn} + 2FP_{fn}},

    (eq. 4.4, 4.14, 4.25) with F the eCDF of the candidate's score among ``reference_scores``
    (default: the candidates themselves) over n + 1, the released code's eq. 4.15 convention, by
    direct count for a few candidates, else sort + binary search. Matches :func:`negtheory.estimators.bns_select`.

    Parameters
    ----------
    pos_scores : Tensor, shape [B]
        Score x_ui of each user's positive item.
    cand_scores : Tensor, shape [B, C]
        Scores x_ul of the C >= 1 candidates of each user (the candidate set M_u).
    cand_p_fn : Tensor, shape [B, C] or [C]
        Prior false-negative probability P_fn(l) in [0, 1] of each candidate (eq. 4.16:
        popularity / n_users).
    reference_scores : Tensor, shape [B, R], optional
        Scores against which the eCDF F of a candidate is taken (e.g. the user's scores of the
        whole catalog). Default (None): the candidates themselves.
    lam : float >= 0, default 5.0
        Weight lambda of true-negative informativeness (the thesis's lambda = 5).
    n_reference : Tensor, shape [B], optional
        The n of F's denominator n + 1 per user, when some reference entries are masked out
        (set to +inf, e.g. a user's training items among the catalog's scores). Default (None):
        the number of reference scores R.

    Returns
    -------
    LongTensor, shape [B]
        Index in [0, C) of the chosen candidate of each user (no gradient).

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.samplers import bns_select
    >>> int(bns_select(torch.tensor([2.0]), torch.tensor([[0.0, 1.5, 1.9]]), torch.tensor([0.0, 0.0, 0.9]))[0])
    1
    """
    lam = real_scalar("lam", lam, 0.0)
    with torch.no_grad():
        cand = cand_scores.detach()
        ref = cand if reference_scores is None else reference_scores.detach()
        n = (
            ref.shape[-1]
            if n_reference is None
            else n_reference.to(cand.device, cand.dtype)[..., None]
        )
        f = _count_le(ref, cand).to(cand.dtype) / (n + 1.0)
        p = torch.as_tensor(cand_p_fn, dtype=cand.dtype, device=cand.device).expand_as(cand)
        num = (1.0 - f) * (1.0 - p)
        unbias = num / torch.clamp(num + f * p, min=torch.finfo(cand.dtype).tiny)
        info = torch.sigmoid(cand - pos_scores.detach()[..., None])
        risk = info * (1.0 - (1.0 + lam) * unbias)
        return torch.argmin(risk, dim=-1)


class BNSSampler:
    r"""Draws one BNS negative per (user, positive) pair (thesis ch. 4, Algorithm 4).

    For each pair, ``n_candidates`` items are drawn uniformly; the model scores them; the one of
    least risk (:func:`bns_select`) is returned. The prior P_fn(l) = n_l / n_users is the item's
    popularity (eq. 4.16).

    Parameters
    ----------
    item_counts : Tensor, shape [n_items]
        Number of users who interacted with each item (training set).
    n_users : int >= 1
        Number of users (the denominator of the popularity prior).
    n_candidates : int >= 1, default 10
        Size of the candidate set M_u (1: uniform random negative sampling).
    lam : float >= 0, default 5.0
        Weight lambda of the sampling criterion (eq. 4.26), as in :func:`bns_select`.
    generator : torch.Generator, optional
        Source of the uniform candidates (None: torch's global generator).

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.samplers import BNSSampler
    >>> s = BNSSampler(torch.tensor([5.0, 1.0, 0.0, 2.0]), n_users=5, n_candidates=3, generator=torch.Generator().manual_seed(0))
    >>> score = lambda users, items: torch.zeros(items.shape)
    >>> tuple(s.sample(score, torch.tensor([0, 1]), torch.tensor([0.0, 0.0])).shape)
    (2,)
    """

    def __init__(self, item_counts, n_users, n_candidates=10, lam=5.0, generator=None):
        counts = torch.as_tensor(item_counts, dtype=torch.float32)
        n_users = int_scalar("n_users", n_users, 1)
        self.p_fn = torch.clamp(counts / n_users, 0.0, 1.0)
        self.n_items = counts.numel()
        self.n_candidates = int_scalar("n_candidates", n_candidates, 1)
        self.lam = real_scalar("lam", lam, 0.0)
        self.generator = generator

    def sample(self, score_fn, users, pos_scores):
        """Draw one BNS negative item for each (user, positive) pair.

        Parameters
        ----------
        score_fn : callable
            ``score_fn(users [B], items [B, C]) -> scores [B, C]``, the model's scores (called
            without gradient).
        users : LongTensor, shape [B]
            User of each pair.
        pos_scores : Tensor, shape [B]
            Score of each pair's positive item.

        Returns
        -------
        LongTensor, shape [B]
            The chosen negative item of each pair.
        """
        b = users.shape[0]
        cand = uniform_items(self.n_items, (b, self.n_candidates), self.generator).to(users.device)
        with torch.no_grad():
            cs = score_fn(users, cand)
        idx = bns_select(pos_scores, cs, self.p_fn.to(cs.device, cs.dtype)[cand], lam=self.lam)
        return cand.gather(1, idx[:, None])[:, 0]


# --------------------------------------------------------------------------------------------
# Boltzmann sampling (Tanielian & Vasile (Relaxed Softmax), eq. 8)
# --------------------------------------------------------------------------------------------
def boltzmann_log_probs(scores, temperature=1.0, degeneracy=None):
    r"""Log-probabilities of the Boltzmann law B(G, D, T) (Tanielian & Vasile (Relaxed Softmax), eq. 8).

    .. math::
        \log B_{(G, D, T)}(j) = \log D(j) + G(j)/T - \log\sum_{j'} D(j')\, e^{G(j')/T}.

    In log space after subtracting the row maximum, so every temperature is exact: T = 0 puts
    all mass on the best-scored items (ties shared in proportion to D), T = inf gives D. Matches
    :func:`negtheory.sampling.boltzmann` (``log=True``).

    Parameters
    ----------
    scores : Tensor, shape [..., I]
        Energies G(j) of the I items of each row (used without gradient).
    temperature : float in [0, inf], default 1.0
        Temperature T (0: the best-scored items only; inf: D itself).
    degeneracy : Tensor broadcastable to ``scores``, optional
        Non-negative weights D (uniform if None); items with D = 0 get probability 0.

    Returns
    -------
    Tensor, shape of ``scores``
        log B(G, D, T)(j), normalised along the last axis (-inf where the probability is 0).

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.samplers import boltzmann_log_probs
    >>> boltzmann_log_probs(torch.tensor([0.0, 1.0, 2.0]), 0.0).exp().tolist()
    [0.0, 0.0, 1.0]
    """
    t = real_scalar("temperature", temperature, 0.0) if temperature != math.inf else math.inf
    g = scores.detach()
    if degeneracy is None:
        logd = torch.zeros_like(g)
    else:
        d = torch.as_tensor(degeneracy, dtype=g.dtype, device=g.device).expand_as(g)
        if (d < 0).any():
            raise ValueError("degeneracy must be non-negative")
        logd = torch.where(
            d > 0,
            torch.log(torch.where(d > 0, d, torch.ones_like(d))),
            torch.full_like(d, -math.inf),
        )
    valid = torch.isfinite(logd)
    gm = torch.where(valid, g, torch.full_like(g, -math.inf)).amax(dim=-1, keepdim=True)
    if t == math.inf:
        logw = logd
    elif t == 0.0:
        logw = torch.where(valid & (g == gm), logd, torch.full_like(g, -math.inf))
    else:
        logw = torch.where(valid, logd + (g - gm) / t, torch.full_like(g, -math.inf))
    return logw - torch.logsumexp(logw, dim=-1, keepdim=True)


def boltzmann_sample(scores, num_samples, temperature=1.0, degeneracy=None, generator=None):
    r"""Draw ``num_samples`` negatives per row i.i.d. from B(G, D, T) (Tanielian & Vasile (Relaxed Softmax), eq. 8).

    .. math:: Q(j) = B_{(G, D, T)}(j) = \frac{D(j)\, e^{G(j)/T}}{\sum_{j'} D(j')\, e^{G(j')/T}}.

    Sampling Q = B(G, D, T) and weighting by e^G (the Relaxed-Softmax gradient, eq. 6-7) targets
    a Boltzmann law of temperature T / (T + 1) (:func:`negtheory.relaxed_softmax.effective_temperature`).

    Parameters
    ----------
    scores : Tensor, shape [..., I]
        Energies G(j) of the I items of each row (used without gradient).
    num_samples : int >= 1
        Negatives drawn per row, with replacement (V is a multiset).
    temperature : float in [0, inf], default 1.0
        Temperature T, as in :func:`boltzmann_log_probs`.
    degeneracy : Tensor broadcastable to ``scores``, optional
        Non-negative weights D (uniform if None).
    generator : torch.Generator, optional
        Source of the random numbers (None: torch's global generator); on another device than
        ``scores`` (a CPU generator for CUDA scores) the draw runs on the generator's device.

    Returns
    -------
    LongTensor, shape [..., num_samples]
        Item indices in [0, I) of each row's draws.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.samplers import boltzmann_sample
    >>> boltzmann_sample(torch.tensor([[0.0, 5.0, 0.0]]), 4, temperature=0.0).tolist()
    [[1, 1, 1, 1]]
    """
    num_samples = int_scalar("num_samples", num_samples, 1)
    lp = boltzmann_log_probs(scores, temperature, degeneracy)
    probs = lp.exp().reshape(-1, lp.shape[-1])
    # torch draws with a generator of the input's device only: a CPU generator draws on the CPU
    dev = probs.device
    out = torch.multinomial(
        probs.to(_draw_device(generator, dev)), num_samples, replacement=True, generator=generator
    )
    return out.to(dev).reshape(*lp.shape[:-1], num_samples)


# --------------------------------------------------------------------------------------------
# fractional K and ANS (Wu et al. (Rethinking InfoNCE), eq. 8 and §5)
# --------------------------------------------------------------------------------------------
def draw_negative_counts(k, size, generator=None, device=None):
    r"""Integer negative counts of mean K for a real-valued ratio K (Wu et al. (Rethinking InfoNCE), eq. 8).

    .. math::
        P(|\mathcal N| = [K]) = 1 - \{K\}, \qquad P(|\mathcal N| = [K] + 1) = \{K\},

    with [K] and {K} the integral and fractional parts of K, so that E|N| = K.

    Parameters
    ----------
    k : float >= 1
        The real-valued negative sampling ratio K.
    size : tuple of int
        Shape of the output (e.g. (B,): one count per positive of a batch).
    generator : torch.Generator, optional
        Source of the random numbers (None: torch's global generator); the numbers are drawn on
        its device and moved to ``device``, so a seeded CPU generator gives the same counts anywhere.
    device : torch.device or str, optional
        Device of the output (None: the generator's device, else the default device).

    Returns
    -------
    LongTensor, shape ``size``
        Counts, each floor(K) or floor(K) + 1.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.samplers import draw_negative_counts
    >>> c = draw_negative_counts(4.3, (100_000,), torch.Generator().manual_seed(0))
    >>> sorted(set(c.tolist())), round(float(c.float().mean()), 2)
    ([4, 5], 4.3)
    """
    k = real_scalar("k", k, 1.0)
    base = math.floor(k)
    u = torch.rand(tuple(size), generator=generator, device=_draw_device(generator, device))
    out = base + (u < (k - base)).long()
    return out if device is None else out.to(device)


class ANSCallback:
    r"""Adaptive negative sampling as a training callback (Wu et al. (Rethinking InfoNCE), §5, Fig. 6).

    ``k(step)`` is :func:`negtheory.infonce.ans_schedule` — K rises from 1 to K* in the first
    ``warmup`` fraction of the steps, then falls back to 1 — and ``counts(step, batch)`` turns it
    into per-positive integer counts with :func:`draw_negative_counts`. Call ``on_step(step)``
    once per optimiser step; it records the schedule in ``history``.

    Parameters
    ----------
    total_steps : int >= 1
        Total number of optimiser steps S of the run.
    k_opt : float >= 1
        Peak K* (e.g. :func:`negtheory.infonce.optimal_k_from_auc` of the training AUC).
    warmup : float in [0, 1], default 0.1
        Fraction of the steps in which K rises from 1 to K* (the paper's turning point at 10 %).
    generator : torch.Generator, optional
        Source of the random numbers of :meth:`counts` (None: torch's global generator).

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.samplers import ANSCallback
    >>> cb = ANSCallback(total_steps=1000, k_opt=5, generator=torch.Generator().manual_seed(0))
    >>> [cb.k(s) for s in (0, 100, 550, 1000)]
    [1.0, 5.0, 3.0, 1.0]
    >>> tuple(cb.counts(100, 8).shape)
    (8,)
    """

    def __init__(self, total_steps, k_opt, warmup=0.1, generator=None):
        self.total_steps = int_scalar("total_steps", total_steps, 1)
        self.k_opt = real_scalar("k_opt", k_opt, 1.0)
        self.warmup = real_scalar("warmup", warmup, 0.0, 1.0)
        self.generator = generator
        self.history: list[tuple[int, float]] = []

    def k(self, step) -> float:
        """The real-valued ratio K at a step (:func:`negtheory.infonce.ans_schedule`).

        Parameters
        ----------
        step : int
            Optimiser step; clipped to [0, total_steps].

        Returns
        -------
        float
            K(step), in [1, k_opt].
        """
        s = min(max(int(step), 0), self.total_steps)
        return float(ans_schedule(s, self.total_steps, self.k_opt, self.warmup))

    def counts(self, step, batch_size, device=None):
        """Integer negative counts of the positives of one batch at ``step`` (eq. 8, mean K(step)).

        Parameters
        ----------
        step : int
            Optimiser step.
        batch_size : int
            Number of positives in the batch.
        device : torch.device or str, optional
            Device of the output (None: the default device).

        Returns
        -------
        LongTensor, shape [batch_size]
            Counts floor(K) or floor(K) + 1, K = :meth:`k` (step).
        """
        return draw_negative_counts(self.k(step), (int(batch_size),), self.generator, device)

    def on_step(self, step) -> float:
        """Record the schedule at ``step`` in ``history``; call once per optimiser step.

        Parameters
        ----------
        step : int
            Optimiser step.

        Returns
        -------
        float
            K(step), also appended to ``history`` as ``(step, K)``.
        """
        k = self.k(step)
        self.history.append((int(step), k))
        return k
