r"""Training path for the density-estimation experiments of Tanielian & Vasile (Relaxed Softmax), §2.3.2, §3.1-3.2.1.

The model is the Word2Vec-like bilinear scorer of §2.1.1, G^θ(i, j) = ⟨u_i, v_j⟩, with the
conditional g_i^θ = softmax_j G^θ(i, ·) (eq. 1). It is trained on pairs (i, j) drawn from the
discretised mixture of Gaussians :class:`negtheory.relaxed_softmax.MixtureOfGaussiansTask` with
one of three losses:

* ``"mle"`` — full softmax cross-entropy, eq. 2 (gradient eq. 3);
* ``"ss"`` — sampled softmax (Bengio & Senécal; the TensorFlow ``sampled_softmax_loss`` the
  paper cites): n negatives i.i.d. from a proposal Q, logits corrected by -log(n Q(j)), the
  positive kept in the normaliser and accidental hits (a negative equal to the positive) removed;
* ``"rs"`` — the Relaxed Softmax of eq. 5, :math:`-G(i, j) + \ln\sum_{j' \in V} e^{G(i, j')}`, V a multiset of
  n negatives i.i.d. from the Boltzmann law Q_i = B(G^θ, D_i, T) of eq. 8, drawn without gradient
  (the sampled V is a constant of eq. 6). As printed, V holds the negatives only.

Degeneracies D_i: ``"uniform"`` (U(J)), ``"popularity"`` (Pop(J), estimated from the training
pairs with add-one smoothing, so no knowledge of P is used) and ``"inverse"`` (D_i(j) = 1/P_i(j),
the oracle choice of §2.3.2, in log space: -ln P_i(j) reaches several hundred). T = inf samples D
itself (US / PS); the six methods of §3.2 are :data:`METHODS`.

What the theory predicts (used by the tests and the write-up): with n → ∞ the RS gradient is
-e_j + B with B ∝ Q_i e^{G} (eq. 7), so with Q_i = B(G, D_i, T) its fixed point in expectation
over j ~ P_i is P_i ∝ D_i e^{G (T+1)/T}, i.e. g_i ∝ (P_i / D_i)^{T/(T+1)} (effective temperature
T/(T+1), :func:`negtheory.relaxed_softmax.effective_temperature`). For D = U(J) and T = inf the
RS gradient is a Monte-Carlo estimate of the softmax (MLE) gradient.

A consequence of eq. 5 as printed (the positive is not in V, so the loss is unbounded below):
with a *fixed* proposal Q_i (US, PS: T = inf) an item is pushed down at most n Q_i(j) times per
occurrence of context i (each sampled copy has self-normalised weight at most 1) and pushed up
P_i(j) times, so every item with P_i(j) > n Q_i(j) has its score grow without bound and g_i
degenerates towards those items; the KL then grows with the number of steps. A finite-T
Boltzmann proposal puts more mass on high-scoring items and stops that growth.

Several runs (seeds x temperatures) are trained at once as a stack of independent models: the
scores are batched matrix products over the run axis, each run has its own training pairs,
initialisation, batches and negatives, and Adam is element-wise, so the runs do not interact
(the loss is the sum over runs of each run's mean loss). Seeds: the training pairs come from a
numpy Generator seeded by (seed, n_pairs); the initialisation from a torch Generator seeded by
the seed (so runs that differ only in T share data and initial point); the batches and negatives
from one torch Generator per call.

Why this path is not :func:`negtheory.training.fit`: the trainer's unit is one model on one split,
with a sampler bound to that split's users and items and an evaluation by ranking. Here a run is a
stack of S independent bilinear models trained in one batched product (the seeds x temperatures of
one figure cost one model's steps), the full-softmax "mle" loss reads every item's score at every
step, the Boltzmann proposal of eq. 8 depends on each run's current scores and temperature, and the
evaluation is a KL divergence to the known mixture, not a ranking. Run one at a time through ``fit``,
a figure's runs would cost S times as many steps. The three losses are written here on the stacked
scores (eq. 2, the corrected sampled softmax, eq. 5); eq. 5 is
:func:`negtheory.bridge.functional.relaxed_softmax`'s formula, computed over the run axis.

Chosen hyper-parameters (the paper states none of them): embedding size 32, initial entries
N(0, 0.1²), Adam with learning rate 0.01, a fixed number of steps (see :class:`DensityConfig`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import torch

from .._deprecation import renamed_keyword
from .._docstrings import docstring
from .._rng import int_seed
from .._validation import int_scalar, real_scalar
from ..relaxed_softmax import MixtureOfGaussiansTask, approx_mpr, precision_at_k

if TYPE_CHECKING:
    from .._typing import IntArray, RNGLike

__all__ = [
    "METHODS",
    "PAPER_TEMPERATURES",
    "DensityConfig",
    "method_spec",
    "log_degeneracy",
    "boltzmann_log_q",
    "sample_negatives",
    "rs_loss",
    "mle_loss",
    "sampled_softmax_loss",
    "BilinearStack",
    "draw_negatives",
    "pair_losses",
    "training_pairs",
    "validation_pairs",
    "evaluate_log_g",
    "train_density",
]

# the documentation several functions share, written once (see negtheory._docstrings)
_doc = docstring(
    pair_loss_returns="""
        Returns
        -------
        Tensor, shape [...]
            The per-pair loss (>= 0).

        Examples
        --------""",
    context_param="""
        Parameters
        ----------
        i : LongTensor, shape [R, B]
            Context indices, one row per run.""",
    task_param="""
        Parameters
        ----------
        task : MixtureOfGaussiansTask
            The task whose joint law P the pairs are drawn from.""",
    pairs_example="""
            Context and target of each pair.

        Examples
        --------
        >>> from negtheory.relaxed_softmax import MixtureOfGaussiansTask
        >>> task = MixtureOfGaussiansTask(5, n_context=20, n_target=20, rng=0)""",
    stack_example="""
        >>> m = BilinearStack(2, 20, 20, 8, generators=[torch.Generator().manual_seed(s) for s in (0, 1)])
        >>> g = torch.Generator().manual_seed(0)""",
)

#: the six training methods of §3.2: name -> (loss, degeneracy, temperature); None: the UBS/PBS
#: temperature is a parameter (the paper's T* for Fig. 5 is in :data:`PAPER_TEMPERATURES`)
METHODS = {
    "mle": ("mle", None, None),
    "ss": ("ss", "popularity", math.inf),
    "us": ("rs", "uniform", math.inf),
    "ps": ("rs", "popularity", math.inf),
    "ubs": ("rs", "uniform", None),
    "pbs": ("rs", "popularity", None),
}

#: temperatures the paper reports for Fig. 5 (UBS T* = 5.0, PBS T* = 7.5) and for Fig. 1/3/4 (D = 1/P, T = 0.75)
PAPER_TEMPERATURES = {"ubs": 5.0, "pbs": 7.5, "inverse": 0.75}

_LOSSES = ("mle", "ss", "rs")
_DEGENERACIES = ("uniform", "popularity", "inverse")


@dataclass(frozen=True)
class DensityConfig:
    """Hyper-parameters of one training call (the paper states none of those marked 'ours').

    The fields are the constructor's parameters and are kept as (frozen) attributes; each is
    validated on construction.

    Parameters
    ----------
    dim : int
        Embedding size of u_i, v_j (ours: 32).
    lr : float
        Adam learning rate (ours: 0.01).
    init_std : float
        Standard deviation of the N(0, σ²) initial embedding entries (ours: 0.1).
    batch_size : int
        Pairs per step (paper: 512 in §3.2.1, 2 000 in Fig. 4).
    steps : int
        Number of optimiser steps (ours; fixed, whatever the training-set size).
    n_negatives : int
        Negatives per pair for the RS loss (paper: 5).
    ss_negatives : int
        Negatives per pair for sampled softmax (paper: 50).
    prec_k : int
        k of Prec@k (default 10).
    device : str
        ``"auto"`` (CUDA when present, else CPU), ``"cpu"`` or ``"cuda"``.

    Examples
    --------
    >>> from negtheory.bridge.relaxed_softmax_training import DensityConfig
    >>> DensityConfig(steps=100).steps, DensityConfig().n_negatives
    (100, 5)
    """

    dim: int = 32
    lr: float = 0.01
    init_std: float = 0.1
    batch_size: int = 512
    steps: int = 800
    n_negatives: int = 5
    ss_negatives: int = 50
    prec_k: int = 10
    device: str = "auto"

    def __post_init__(self):
        for name in ("dim", "batch_size", "steps", "n_negatives", "ss_negatives", "prec_k"):
            int_scalar(name, getattr(self, name), 1)
        real_scalar("lr", self.lr, 0.0, lo_open=True)
        real_scalar("init_std", self.init_std, 0.0, lo_open=True)
        if self.device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', got {self.device!r}")


def _device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device='cuda' but torch sees no CUDA device")
    return torch.device(name)


def method_spec(method, temperature=None):
    """The (loss, degeneracy, temperature) of one of the six methods of §3.2 (:data:`METHODS`).

    Parameters
    ----------
    method : str
        ``mle, ss, us, ps, ubs, pbs``.
    temperature : float, optional
        Boltzmann temperature for ``ubs`` / ``pbs`` (default: the paper's T* of Fig. 5);
        ignored by the other methods.

    Returns
    -------
    tuple
        ``(loss, degeneracy, temperature)``: loss in {'mle', 'ss', 'rs'}, degeneracy in
        {'uniform', 'popularity'} or None (``mle``), temperature a float (inf: sample D itself)
        or None (``mle``).

    Examples
    --------
    >>> from negtheory.bridge.relaxed_softmax_training import method_spec
    >>> method_spec("pbs")
    ('rs', 'popularity', 7.5)
    >>> method_spec("us")
    ('rs', 'uniform', inf)
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    loss, deg, t = METHODS[method]
    if loss == "rs" and t is None:
        t = PAPER_TEMPERATURES[method] if temperature is None else _temperature(temperature)
    return loss, deg, t


def _temperature(t) -> float:
    if t == math.inf:
        return math.inf
    return real_scalar("temperature", t, 0.0, lo_open=True)


# --------------------------------------------------------------------------------------------
# degeneracy, Boltzmann law (eq. 8) and losses (eq. 2, 5; sampled softmax)
# --------------------------------------------------------------------------------------------
def log_degeneracy(kind, task=None, train_j=None, n_target=None):
    r"""ln D_i(j) for a degeneracy of §2.3.2, up to an additive constant per row.

    Parameters
    ----------
    kind : {'uniform', 'popularity', 'inverse'}
        U(J); Pop(J) from the training targets ``train_j`` with add-one smoothing,
        ln (count(j) + 1); or D_i(j) = 1 / P_i(j), i.e. -ln P_i(j) from ``task``.
    task : MixtureOfGaussiansTask, optional
        Needed for ``'inverse'`` (and gives ``n_target``).
    train_j : array_like of int, optional
        Training targets, needed for ``'popularity'``.
    n_target : int, optional
        card(J) when no task is given.

    Returns
    -------
    ndarray
        Shape (n_target,) for ``uniform`` / ``popularity``, (n_context, n_target) for ``inverse``.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.bridge.relaxed_softmax_training import log_degeneracy
    >>> np.exp(log_degeneracy("popularity", train_j=[0, 0, 2], n_target=4)).round(12).tolist()
    [3.0, 1.0, 2.0, 1.0]
    """
    if kind not in _DEGENERACIES:
        raise ValueError(f"degeneracy must be one of {_DEGENERACIES}, got {kind!r}")
    if task is not None:
        n_target = task.n_target
    if kind == "inverse":
        if task is None:
            raise ValueError(
                "degeneracy 'inverse' (D_i = 1/P_i) needs the task (its true conditionals)"
            )
        return -task.log_conditional
    n_target = int_scalar("n_target", n_target, 1)
    if kind == "uniform":
        return np.zeros(n_target)
    if train_j is None:
        raise ValueError("degeneracy 'popularity' needs the training targets train_j")
    counts = np.bincount(np.asarray(train_j, dtype=np.int64), minlength=n_target)
    if counts.size != n_target:
        raise ValueError("train_j holds indices >= n_target")
    return np.log(counts + 1.0)


def boltzmann_log_q(scores, log_d, temperature):
    r"""Log-probabilities of the Boltzmann law B(G, D, T) (Tanielian & Vasile (Relaxed Softmax), eq. 8), per run.

    .. math::
        \ln B_{(G, D, T)}(j) = \ln D(j) + G(j)/T - \ln\sum_{j'} D(j')\, e^{G(j')/T}.

    Log-space throughout, so D = 1/P_i (ln D up to several hundred) stays finite; T = inf gives
    ln D normalised (§2.3.1: B → D).

    Parameters
    ----------
    scores : Tensor, shape [..., J]
        Energies G.
    log_d : Tensor, broadcastable to ``scores``
        ln D (up to a constant per row).
    temperature : float or Tensor broadcastable to ``scores`` (e.g. [R, 1, 1] for a stack of runs)
        T > 0, inf allowed.

    Returns
    -------
    Tensor, shape of ``scores``
        ln B(G, D, T)(j), normalised along the last axis (no gradient to the scores).

    Examples
    --------
    >>> import math, torch
    >>> from negtheory.bridge.relaxed_softmax_training import boltzmann_log_q
    >>> [round(p, 4) for p in boltzmann_log_q(torch.tensor([0.0, math.log(2.0)]), torch.zeros(2), 1.0).exp().tolist()]
    [0.3333, 0.6667]
    >>> boltzmann_log_q(torch.tensor([0.0, 5.0]), torch.zeros(2), math.inf).exp().tolist()        # T = inf: D
    [0.5, 0.5]
    """
    t = torch.as_tensor(temperature, dtype=scores.dtype, device=scores.device)
    if (t <= 0).any() or torch.isnan(t).any():
        raise ValueError("temperature must be > 0 (inf allowed)")
    # 1/T = 0 at T = inf: the energy no longer matters
    logits = log_d + scores.detach() * (1.0 / t)
    return torch.log_softmax(logits, dim=-1)


def sample_negatives(log_q, n, generator=None):
    """Draw ``n`` items per row i.i.d. from exp(``log_q``) (rows along the last axis).

    Parameters
    ----------
    log_q : Tensor, shape [..., J]
        Log-probabilities of the J items of each row (renormalised by a softmax).
    n : int >= 1
        Draws per row, with replacement.
    generator : torch.Generator, optional
        Source of the random numbers (None: torch's global generator).

    Returns
    -------
    LongTensor, shape [..., n]
        Item indices in [0, J).

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.relaxed_softmax_training import sample_negatives
    >>> sample_negatives(torch.log(torch.tensor([[0.0, 1.0, 0.0]])), 4, torch.Generator().manual_seed(0)).tolist()
    [[1, 1, 1, 1]]
    """
    n = int_scalar("n", n, 1)
    probs = torch.softmax(log_q.reshape(-1, log_q.shape[-1]), dim=-1)
    out = torch.multinomial(probs, n, replacement=True, generator=generator)
    return out.reshape(*log_q.shape[:-1], n)


def rs_loss(pos_scores, neg_scores):
    r"""Relaxed-Softmax loss per pair (Tanielian & Vasile (Relaxed Softmax), eq. 5), V the negatives only.

    .. math:: L_{(i,j)} = -G(i, j) + \ln\sum_{j' \in V_{(i,j)}} e^{G(i, j')}.

    Parameters
    ----------
    pos_scores : Tensor, shape [...]
        Score G(i, j) of each observed pair.
    neg_scores : Tensor, shape [..., n]
        Scores G(i, j') of the n sampled negatives V of each pair.

    Returns
    -------
    Tensor, shape [...]
        The per-pair loss (unbounded below: the positive is not in V).

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.relaxed_softmax_training import rs_loss
    >>> round(float(rs_loss(torch.tensor([2.0]), torch.tensor([[0.0, 0.0]]))[0]), 4)   # -2 + ln 2
    -1.3069
    """
    return torch.logsumexp(neg_scores, dim=-1) - pos_scores


@_doc
def mle_loss(all_scores, positive):
    r"""Full-softmax negative log-likelihood per pair (Tanielian & Vasile (Relaxed Softmax), eq. 2).

    .. math:: L_{(i,j)} = -\ln g_i(j) = -G(i, j) + \ln\sum_{j' \in J} e^{G(i, j')}.

    Parameters
    ----------
    all_scores : Tensor, shape [..., J]
        Scores G(i, j') of every target j' for each pair's context.
    positive : LongTensor, shape [...]
        Index in [0, J) of each pair's observed target j.

    %(pair_loss_returns)s
    >>> import torch
    >>> from negtheory.bridge.relaxed_softmax_training import mle_loss
    >>> round(float(mle_loss(torch.zeros(1, 4), torch.tensor([1]))[0]), 4)   # ln 4
    1.3863
    """
    pos = all_scores.gather(-1, positive[..., None])[..., 0]
    return torch.logsumexp(all_scores, dim=-1) - pos


@_doc
def sampled_softmax_loss(pos_scores, neg_scores, log_q_pos, log_q_neg, accidental_hit):
    r"""Sampled softmax with proposal Q (n negatives): cross-entropy over {j} ∪ V of G - ln(n Q).

    .. math::
        L_{(i,j)} = -\tilde G(j) + \ln\Big(e^{\tilde G(j)} + \sum_{j' \in V,\ j' \ne j} e^{\tilde G(j')}\Big),
        \qquad \tilde G(j) = G(i, j) - \ln(n\, Q(j)).

    The log(n Q) correction is the importance-sampling bias correction of sampled softmax (the
    TensorFlow ``sampled_softmax_loss`` cited by the paper, ``subtract_log_q=True``; the paper
    gives no equation for it); negatives equal to the positive (accidental hits) are removed.

    Parameters
    ----------
    pos_scores : Tensor, shape [...]
        Score G(i, j) of each observed pair.
    neg_scores : Tensor, shape [..., n]
        Scores of the n sampled negatives of each pair.
    log_q_pos, log_q_neg : Tensor, shapes as above
        ln Q of the positive and of each negative.
    accidental_hit : BoolTensor, shape [..., n]
        True where a negative equals the pair's positive (left out of the sum).

    %(pair_loss_returns)s
    >>> import math, torch
    >>> from negtheory.bridge.relaxed_softmax_training import sampled_softmax_loss
    >>> lq = math.log(0.5)   # Q = 1/2 for every item, n = 2: no correction (ln(n Q) = 0)
    >>> loss = sampled_softmax_loss(torch.tensor([0.0]), torch.tensor([[0.0, 0.0]]), torch.tensor([lq]),
    ...                             torch.tensor([[lq, lq]]), torch.tensor([[False, True]]))   # 2nd is a hit
    >>> round(float(loss[0]), 4)   # ln 2: the positive against one negative
    0.6931
    """
    n = neg_scores.shape[-1]
    lp = pos_scores - (math.log(n) + log_q_pos)
    ln = neg_scores - (math.log(n) + log_q_neg)
    ln = ln.masked_fill(accidental_hit, -math.inf)
    return torch.logsumexp(torch.cat([lp[..., None], ln], dim=-1), dim=-1) - lp


# --------------------------------------------------------------------------------------------
# the model: a stack of R independent bilinear scorers
# --------------------------------------------------------------------------------------------
@_doc
class BilinearStack(torch.nn.Module):
    r"""R independent models G_r(i, j) = ⟨u_{r,i}, v_{r,j}⟩ (§2.1.1: embedding W and output layer O).

    Parameters
    ----------
    n_runs : int
        Number R of independent models in the stack.
    n_context, n_target : int
        Numbers of context items I and target items J.
    dim : int
        Embedding dimension of u_{r,i} and v_{r,j}.
    init_std : float > 0, default 0.1
        Standard deviation of the N(0, init_std^2) initial entries.
    generators : list of torch.Generator, length n_runs, optional
        One per run (its initialisation); None: torch's global generator.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.relaxed_softmax_training import BilinearStack
    >>> m = BilinearStack(2, 5, 7, 4, generators=[torch.Generator().manual_seed(s) for s in (0, 1)])
    >>> tuple(m.log_g().shape), tuple(m.all_scores(torch.zeros(2, 3, dtype=torch.long)).shape)
    ((2, 5, 7), (2, 3, 7))
    >>> tuple(m.scores(torch.zeros(2, 3, dtype=torch.long), torch.ones(2, 3, 4, dtype=torch.long)).shape)
    (2, 3, 4)
    """

    def __init__(self, n_runs, n_context, n_target, dim, init_std=0.1, generators=None):
        super().__init__()
        us, vs = [], []
        for r in range(n_runs):
            g = None if generators is None else generators[r]
            us.append(torch.randn(n_context, dim, generator=g) * init_std)
            vs.append(torch.randn(n_target, dim, generator=g) * init_std)
        self.u = torch.nn.Parameter(torch.stack(us))
        self.v = torch.nn.Parameter(torch.stack(vs))

    def context_vectors(self, i):
        """Context embeddings u_{r, i[r, b]} of a batch of each run.

        %(context_param)s

        Returns
        -------
        Tensor, shape [R, B, d]
            The context vectors.
        """
        return self.u.gather(1, i[..., None].expand(-1, -1, self.u.shape[-1]))

    def all_scores(self, i):
        """Scores G_r(i[r, b], j) of every target j.

        %(context_param)s

        Returns
        -------
        Tensor, shape [R, B, J]
            The scores against the whole target set.
        """
        return torch.bmm(self.context_vectors(i), self.v.transpose(1, 2))

    def scores(self, i, j):
        """Scores G_r(i[r, b], j[r, b, k]) of given targets.

        %(context_param)s
        j : LongTensor, shape [R, B, K] or [R, B]
            K targets (or one) per context.

        Returns
        -------
        Tensor
            Scores of the shape of ``j``.
        """
        squeeze = j.dim() == 2
        jj = j[..., None] if squeeze else j
        r, b, k = jj.shape
        uv = self.context_vectors(i)  # [R, B, d]
        vv = self.v.gather(1, jj.reshape(r, b * k, 1).expand(-1, -1, self.v.shape[-1])).reshape(
            r, b, k, -1
        )
        out = (vv * uv[:, :, None, :]).sum(-1)
        return out[..., 0] if squeeze else out

    @torch.no_grad()
    def log_g(self):
        """Log-conditionals ln g_r,i(j) of every run (Tanielian & Vasile (Relaxed Softmax), eq. 1).

        Returns
        -------
        Tensor, shape [R, I, J]
            The log-softmax over j of G_r(i, ·), without gradient.
        """
        return torch.log_softmax(torch.bmm(self.u, self.v.transpose(1, 2)), dim=-1)


# --------------------------------------------------------------------------------------------
# data and evaluation
# --------------------------------------------------------------------------------------------
@renamed_keyword("seed", "rng")
@_doc
def training_pairs(
    task: MixtureOfGaussiansTask, n_pairs: int, rng: RNGLike
) -> tuple[IntArray, IntArray]:
    """The training set D* of one run: ``n_pairs`` i.i.d. pairs from P, from a numpy Generator seeded by (seed, n_pairs).

    %(task_param)s
    n_pairs : int >= 1
        Training-set size |D*|.
    rng : int, SeedSequence or Generator
        The run's seed: an int is used as is, a Generator or SeedSequence gives one 63-bit
        seed (``seed=``: deprecated since 0.1, removed in 0.2).

    Returns
    -------
    i, j : ndarray of int, shape (n_pairs,)
    %(pairs_example)s
    >>> from negtheory.bridge.relaxed_softmax_training import training_pairs
    >>> i, j = training_pairs(task, 100, rng=3)
    >>> i.shape, bool((i == training_pairs(task, 100, rng=3)[0]).all())
    ((100,), True)
    """
    n_pairs = int_scalar("n_pairs", n_pairs, 1)
    seed = int_seed("rng", rng)
    return task.sample(n_pairs, rng=np.random.default_rng([seed, n_pairs]))


@renamed_keyword("seed", "rng")
@_doc
def validation_pairs(
    task: MixtureOfGaussiansTask, n_val: int, rng: RNGLike, n_pairs: int
) -> tuple[IntArray, IntArray]:
    """Held-out pairs from P for run ``rng`` (a numpy stream (seed, n_pairs, 1) disjoint from the training one).

    %(task_param)s
    n_val : int >= 1
        Number of validation pairs.
    rng : int, SeedSequence or Generator
        The run's seed, turned into an int as in :func:`training_pairs` (``seed=``:
        deprecated since 0.1, removed in 0.2).
    n_pairs : int
        The run's training-set size (part of the stream's seed).

    Returns
    -------
    i, j : ndarray of int, shape (n_val,)
    %(pairs_example)s
    >>> from negtheory.bridge.relaxed_softmax_training import validation_pairs
    >>> vi, vj = validation_pairs(task, 50, rng=0, n_pairs=100)
    >>> vi.shape, vj.shape
    ((50,), (50,))
    """
    n_val = int_scalar("n_val", n_val, 1)
    return task.sample(n_val, rng=np.random.default_rng([int_seed("rng", rng), int(n_pairs), 1]))


def evaluate_log_g(log_g, task, train_i, train_j, prec_k=10, ranking=True):
    r"""Density-estimation and ranking metrics of one model (Tanielian & Vasile (Relaxed Softmax), §2.3.2, §3.1, §3.2.3).

    Parameters
    ----------
    log_g : ndarray, shape (I, J)
        ln g_i(j) of the model (rows normalised).
    task : MixtureOfGaussiansTask
        The task (its true conditionals P_i and joint law).
    train_i, train_j : ndarray of int
        The training pairs D*.
    prec_k : int, default 10
        k of Prec@k.
    ranking : bool
        Also compute MPR and Prec@k (a row sort of the I x J scores).

    Returns
    -------
    dict
        ``kl_true``: KL(P_i ‖ g_i) averaged (uniformly) over the distinct contexts i of D*;
        ``kl_emp``: KL(P̂_i ‖ g_i), same average, P̂_i the empirical conditional of D*;
        ``kl_joint``: KL(P ‖ Pop(I) × g) = Σ_i Pop(i) KL(P_i ‖ g_i) over all contexts (Fig. 2);
        ``mpr``: approximate MPR (eq. 10) and ``prec_at_k``: Prec@k, both exact expectations
        under P.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.relaxed_softmax import MixtureOfGaussiansTask
    >>> from negtheory.bridge.relaxed_softmax_training import evaluate_log_g, training_pairs
    >>> task = MixtureOfGaussiansTask(5, n_context=20, n_target=20, rng=0)
    >>> i, j = training_pairs(task, 100, rng=0)
    >>> m = evaluate_log_g(np.full((20, 20), -np.log(20)), task, i, j, ranking=False)   # uniform g
    >>> sorted(m), m["kl_true"] > 0
    (['kl_emp', 'kl_joint', 'kl_true'], True)
    """
    log_g = np.asarray(log_g, dtype=np.float64)
    lp = task.log_conditional
    if log_g.shape != lp.shape:
        raise ValueError(f"log_g must have shape {lp.shape}, got {log_g.shape}")
    p = np.exp(lp)
    # Σ_j P_i(j) (ln P_i(j) - ln g_i(j)) in log space: g_i(j) may underflow where P_i(j) does not
    kl_rows = np.sum(p * (lp - log_g), axis=1)
    pop_i = task.context_popularity
    counts = np.zeros(lp.shape)
    np.add.at(counts, (np.asarray(train_i), np.asarray(train_j)), 1.0)
    n_i = counts.sum(axis=1)
    seen = n_i > 0
    p_hat = counts[seen] / n_i[seen, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        emp_terms = np.where(
            p_hat > 0, p_hat * (np.log(np.where(p_hat > 0, p_hat, 1.0)) - log_g[seen]), 0.0
        )
    out = {
        "kl_true": float(kl_rows[seen].mean()),
        "kl_emp": float(emp_terms.sum(axis=1).mean()),
        "kl_joint": float(np.dot(pop_i, kl_rows)),
    }
    if ranking:
        joint = task.joint
        out["mpr"] = approx_mpr(log_g, joint=joint)
        out["prec_at_k"] = precision_at_k(log_g, prec_k, joint=joint)
    return out


# --------------------------------------------------------------------------------------------
# training
# --------------------------------------------------------------------------------------------
@_doc
def draw_negatives(model, i, log_d, temperature, n, generator=None, need_log_q=False):
    r"""Negatives for a batch of a stack of runs from Q_i = B(G, D_i, T) (eq. 8), drawn without gradient.

    Parameters
    ----------
    model : BilinearStack
        The stack of runs (its scores are the energies G at finite T).
    i : LongTensor, shape [R, B]
        Contexts of the batch.
    log_d : Tensor, shape [R, B, J] (context-dependent D) or [R, 1, J]
        ln D_i (up to a constant per row).
    temperature : Tensor, shape [R, 1, 1] (or broadcastable)
        T per run; inf where the run samples D itself.
    n : int
        Negatives per pair.
    generator : torch.Generator, optional
        Source of the random numbers (None: torch's global generator).
    need_log_q : bool
        Also return ln Q of every item for each pair (sampled softmax's correction).

    Returns
    -------
    (neg, log_q)
        neg: LongTensor [R, B, n]; log_q: Tensor [R, B, J] or [R, 1, J] (None unless asked).

    Examples
    --------
    >>> import math, torch
    >>> from negtheory.bridge.relaxed_softmax_training import BilinearStack, draw_negatives
    %(stack_example)s
    >>> i = torch.randint(0, 20, (2, 16), generator=g)
    >>> neg, log_q = draw_negatives(m, i, torch.zeros(2, 1, 20), torch.tensor([1.0, math.inf]), 5, g, need_log_q=True)
    >>> tuple(neg.shape), tuple(log_q.shape)
    ((2, 16, 5), (2, 16, 20))
    """
    r, b = i.shape
    t = (
        torch.as_tensor(temperature, dtype=torch.float32, device=i.device)
        .reshape(-1, 1, 1)
        .expand(r, 1, 1)
    )
    if bool(torch.isinf(t).all()) and log_d.shape[1] == 1:
        # T = inf and D not context-dependent: Q = D for every pair of a run, one law per run
        log_q = torch.log_softmax(log_d[:, 0, :], dim=-1)
        neg = torch.multinomial(log_q.exp(), b * n, replacement=True, generator=generator).reshape(
            r, b, n
        )
        return neg, (log_q[:, None, :] if need_log_q else None)
    with torch.no_grad():
        # the energies only matter at finite T; the sampled V is a constant of eq. 6
        g = (
            model.all_scores(i)
            if bool(torch.isfinite(t).any())
            else torch.zeros(r, b, model.v.shape[1], device=i.device)
        )
        log_q = boltzmann_log_q(g, log_d, t)
    return sample_negatives(log_q, n, generator), (log_q if need_log_q else None)


@_doc
def pair_losses(model, loss, i, j, neg=None, log_q=None):
    r"""Per-pair training loss of a batch, shape [R, B]: eq. 2 (``mle``), eq. 5 (``rs``) or sampled softmax (``ss``).

    Its gradient with respect to the scores G_r(i, ·) is eq. 3 (``mle``) and eq. 6 (``rs``):
    -e_j + Σ_{j'∈V} ĝ_i(j') e_{j'}; autograd applies the chain rule to (u_i, v_j).

    Parameters
    ----------
    model : BilinearStack
        The stack of runs being trained.
    loss : {'mle', 'rs', 'ss'}
    i, j : LongTensor, shape [R, B]
        Contexts and observed targets.
    neg : LongTensor, shape [R, B, n], optional
        Sampled negatives (``rs``, ``ss``).
    log_q : Tensor, shape [R, B or 1, J], optional
        ln Q (``ss`` only).

    Returns
    -------
    Tensor, shape [R, B]
        The loss of every pair of every run (with gradient).

    Examples
    --------
    >>> import math, torch
    >>> from negtheory.bridge.relaxed_softmax_training import BilinearStack, draw_negatives, pair_losses
    %(stack_example)s
    >>> i, j = torch.randint(0, 20, (2, 16), generator=g), torch.randint(0, 20, (2, 16), generator=g)
    >>> neg, _ = draw_negatives(m, i, torch.zeros(2, 1, 20), torch.tensor([1.0, 2.0]), 5, g)
    >>> tuple(pair_losses(m, "rs", i, j, neg).shape), tuple(pair_losses(m, "mle", i, j).shape)
    ((2, 16), (2, 16))
    """
    if loss == "mle":
        return mle_loss(model.all_scores(i), j)
    if loss not in ("rs", "ss") or neg is None:
        raise ValueError("loss must be 'mle', or 'rs' / 'ss' with negatives")
    pos_s = model.scores(i, j)
    neg_s = model.scores(i, neg)
    if loss == "rs":
        return rs_loss(pos_s, neg_s)
    if log_q is None:
        raise ValueError("sampled softmax needs log_q (the proposal's log-probabilities)")
    lq = log_q.expand(-1, i.shape[1], -1)
    return sampled_softmax_loss(
        pos_s, neg_s, lq.gather(-1, j[..., None])[..., 0], lq.gather(-1, neg), neg == j[..., None]
    )


def train_density(
    task,
    loss,
    *,
    degeneracy=None,
    temperatures=(math.inf,),
    seeds=(0,),
    n_pairs=10_000,
    n_val=0,
    config=None,
    ranking=True,
    progress=False,
    desc=None,
    return_log_g=False,
    **overrides,
):
    r"""Train one stack of runs (seeds x temperatures) of one loss on the task and evaluate each.

    Parameters
    ----------
    task : MixtureOfGaussiansTask
        The discretised mixture of Gaussians to learn.
    loss : {'mle', 'ss', 'rs'}
        Full softmax (eq. 2), sampled softmax with proposal D at T = inf, or Relaxed Softmax
        (eq. 5) with negatives from B(G, D, T) (eq. 8).
    degeneracy : {'uniform', 'popularity', 'inverse'}, optional
        D (ignored by ``mle``; ``ss`` needs a T = inf proposal).
    temperatures : sequence of float
        T of eq. 8 (> 0, inf allowed); one run per (seed, T).
    seeds : sequence of int
        One run per seed and temperature; the seed fixes the run's training pairs and
        initialisation (:func:`training_pairs`).
    n_pairs : int
        Training-set size |D*|.
    n_val : int
        Held-out validation pairs per seed (:func:`validation_pairs`); when > 0 each row gets
        ``val_nll``, the validation negative log-likelihood -mean ln g_i(j) (for choosing T
        without looking at the metrics computed from P).
    config : DensityConfig, optional
        Hyper-parameters; keyword ``overrides`` replace its fields.
    ranking : bool
        Also compute MPR / Prec@k.
    progress : bool
        tqdm bar over the steps.
    desc : str, optional
        Label of the progress bar (default: the loss name).
    return_log_g : bool
        Also return the final ln g of every run, ndarray [R, I, J].
    **overrides
        Fields of :class:`DensityConfig` replacing those of ``config`` (e.g. ``steps=200``).

    Returns
    -------
    list of dict
        One per run (seed-major, then temperature): ``seed, temperature`` and the metrics of
        :func:`evaluate_log_g`. With ``return_log_g``, ``(rows, log_g)``.

    Examples
    --------
    >>> import math
    >>> from negtheory.relaxed_softmax import MixtureOfGaussiansTask
    >>> from negtheory.bridge.relaxed_softmax_training import train_density
    >>> task = MixtureOfGaussiansTask(5, n_context=20, n_target=20, rng=0)
    >>> rows = train_density(task, "rs", degeneracy="uniform", temperatures=(1.0, math.inf), n_pairs=500,
    ...                      ranking=False, steps=20, batch_size=64, device="cpu")
    >>> [r["temperature"] for r in rows], rows[0]["kl_true"] > 0
    ([1.0, inf], True)
    """
    if not isinstance(task, MixtureOfGaussiansTask):
        raise TypeError("task must be a MixtureOfGaussiansTask")
    if loss not in _LOSSES:
        raise ValueError(f"loss must be one of {_LOSSES}, got {loss!r}")
    cfg = replace(config or DensityConfig(), **overrides)
    if loss != "mle" and degeneracy not in _DEGENERACIES:
        raise ValueError(
            f"degeneracy must be one of {_DEGENERACIES} for loss {loss!r}, got {degeneracy!r}"
        )
    temps = [_temperature(t) for t in temperatures]
    if not temps:
        raise ValueError("temperatures must not be empty")
    if loss == "ss" and any(t != math.inf for t in temps):
        raise ValueError(
            "sampled softmax ('ss') uses a fixed proposal: temperatures must be (inf,)"
        )
    seeds = [int_scalar("seed", s, 0) for s in seeds]
    if not seeds:
        raise ValueError("seeds must not be empty")
    n_pairs = int_scalar("n_pairs", n_pairs, 1)
    n_val = int_scalar("n_val", n_val, 0)
    dev = _device(cfg.device)
    n_i, n_j = task.n_context, task.n_target

    runs = [(s, t) for s in seeds for t in temps]
    r_count = len(runs)
    data = {s: training_pairs(task, n_pairs, s) for s in seeds}
    pi = torch.as_tensor(np.stack([data[s][0] for s, _ in runs]), device=dev)
    pj = torch.as_tensor(np.stack([data[s][1] for s, _ in runs]), device=dev)
    gens = [torch.Generator().manual_seed(int(s)) for s, _ in runs]
    model = BilinearStack(r_count, n_i, n_j, cfg.dim, cfg.init_std, gens).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    gen = torch.Generator(device=dev).manual_seed(
        int(np.random.SeedSequence([*seeds, n_pairs]).generate_state(1)[0])
    )

    log_d = None
    context_dependent = degeneracy == "inverse"
    if loss != "mle":
        if degeneracy == "popularity":
            ld = np.stack(
                [log_degeneracy("popularity", train_j=data[s][1], n_target=n_j) for s, _ in runs]
            )
        else:
            ld = log_degeneracy(degeneracy, task=task)
        log_d = torch.as_tensor(ld, dtype=torch.float32, device=dev)
        if degeneracy == "uniform":
            log_d = log_d.expand(r_count, n_j).contiguous()
    t_inv = torch.tensor(
        [0.0 if t == math.inf else 1.0 / t for _, t in runs], dtype=torch.float32, device=dev
    )
    n_neg = cfg.ss_negatives if loss == "ss" else cfg.n_negatives
    bsz = min(cfg.batch_size, n_pairs)

    t_run = torch.where(
        t_inv > 0,
        1.0 / torch.where(t_inv > 0, t_inv, torch.ones_like(t_inv)),
        torch.full_like(t_inv, math.inf),
    )[:, None, None]
    steps = range(cfg.steps)
    if progress:
        from tqdm.auto import tqdm

        steps = tqdm(steps, desc=desc or loss, leave=False)
    perm = None
    pos_in_epoch = n_pairs
    for _ in steps:
        if pos_in_epoch + bsz > n_pairs:  # new epoch: a fresh permutation per run
            perm = torch.argsort(torch.rand(r_count, n_pairs, generator=gen, device=dev), dim=1)
            pos_in_epoch = 0
        idx = perm[:, pos_in_epoch : pos_in_epoch + bsz]
        pos_in_epoch += bsz
        bi, bj = pi.gather(1, idx), pj.gather(1, idx)
        neg = log_q_b = None
        if loss != "mle":
            # index_select: the same rows as log_d[bi], about 4x faster on CPU for 1000 x 1000 items
            ld_b = (
                log_d.index_select(0, bi.reshape(-1)).reshape(*bi.shape, -1)
                if context_dependent
                else log_d[:, None, :]
            )
            neg, log_q_b = draw_negatives(
                model, bi, ld_b, t_run, n_neg, gen, need_log_q=loss == "ss"
            )
        per_pair = pair_losses(model, loss, bi, bj, neg, log_q_b)
        # sum over runs of each run's mean: the runs' gradients do not mix
        total = per_pair.mean(dim=1).sum()
        opt.zero_grad(set_to_none=True)
        total.backward()
        opt.step()

    log_g = model.log_g().double().cpu().numpy()
    rows = []
    for r, (s, t) in enumerate(runs):
        m = evaluate_log_g(log_g[r], task, data[s][0], data[s][1], cfg.prec_k, ranking=ranking)
        row = {"seed": s, "temperature": t, **m}
        if n_val:
            vi, vj = validation_pairs(task, n_val, s, n_pairs)
            row["val_nll"] = float(-log_g[r][vi, vj].mean())
        rows.append(row)
    return (rows, log_g) if return_log_g else rows
