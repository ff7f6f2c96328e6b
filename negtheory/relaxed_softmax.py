r"""Relaxed Softmax, Boltzmann negative sampling and the synthetic task of Tanielian & Vasile (numpy side).

Tanielian & Vasile, *Relaxed Softmax for learning from Positive and Unlabeled data* (RecSys
2019), §2 and §3.1-3.2:

* the Relaxed-Softmax loss (eq. 5), :func:`relaxed_softmax_loss`, and its gradient with respect
  to the scores G(i, .) (eq. 6), :func:`relaxed_softmax_grad`; the chain rule to the model
  parameters is the caller's (the torch bridge does it by autograd);
* the large-n limit of the gradient (eq. 7), :func:`relaxed_softmax_limit_grad`;
* the Boltzmann law B(G, D, T) of eq. 8 lives in :mod:`negtheory.sampling`
  (:func:`~negtheory.sampling.boltzmann`, :func:`~negtheory.sampling.sample_boltzmann`); with
  Q = B(G, D, T) the eq.-7 limit is the Boltzmann law at temperature T / (T + 1),
  :func:`effective_temperature` (README errata: the paper's bullet writes (T + 1) / T, the
  *inverse* temperature);
* the synthetic data of §2.3.2 / §3.1: a discretised 2-D mixture of Gaussians on I x J,
  :class:`MixtureOfGaussiansTask`, a generator of (i, j) pairs with known conditionals P_i;
* metrics: KL(P_i || g_i), :func:`kl_divergence`; the likelihood of eq. 9,
  :func:`expected_likelihood`; the approximate mean percentile rank of eq. 10,
  :func:`approx_mpr`; Prec@k, :func:`precision_at_k`.

Conventions. Scores G have the items j in J along the last axis and contexts i along the
first (2-D) or are a single row (1-D). Index arrays are int64 item indices.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numba
import numpy as np
from scipy.special import logsumexp

from ._deprecation import renamed_keyword
from ._docstrings import docstring
from ._validation import (
    as_float_array,
    as_generator,
    broadcast,
    check_range,
    flag,
    int_scalar,
    real_array,
    scalar_or_array,
)
from .sampling import AliasTable, boltzmann

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatArray, FloatOrArray, IntArray, RNGLike

__all__ = [
    "relaxed_softmax_loss",
    "relaxed_softmax_grad",
    "relaxed_softmax_limit_grad",
    "effective_temperature",
    "MixtureOfGaussiansTask",
    "kl_divergence",
    "expected_likelihood",
    "approx_mpr",
    "precision_at_k",
]

# the parameters the losses and the metrics share, written once (see negtheory._docstrings)
_doc = docstring(
    pairs_returns="""
        pairs : (i, j), optional
            Test pairs: two equal-length 1-D integer arrays. Give exactly one of ``joint`` and
            ``pairs``.

        Returns
        -------
        float""",
    loss_params="""
        Parameters
        ----------
        scores : array_like, shape (n_items,) or (n_contexts, n_items)
            Scores G(i, .) of every item for each context (one row: a single context).
        positive : int or array_like of int, shape (n_contexts,)
            The observed target j of each context, an item index in [0, n_items).
        negatives : array_like of int, shape (n,) or (n_contexts, n)
            Sampled negatives j_k, item indices (a 1-D array is shared by all contexts); non-empty
            unless ``include_positive=True``.
        include_positive : bool, default False
            False: V holds the sampled negatives only (eq. 5 as printed); True: the positive is
            added to V (the bounded sampled-softmax form).""",
)


# --------------------------------------------------------------------------------------------
# Relaxed Softmax loss and gradient (eq. 5-7)
# --------------------------------------------------------------------------------------------
def _rs_inputs(scores, positive, negatives, include_positive):
    include_positive = flag("include_positive", include_positive)
    g = real_array("scores", scores)
    if g.ndim not in (1, 2) or g.shape[-1] == 0:
        raise ValueError(
            f"scores must be 1-D (items) or 2-D (contexts x items), got shape {g.shape}"
        )
    one = g.ndim == 1
    g2 = np.atleast_2d(g)
    n_rows, n_items = g2.shape
    pos = np.asarray(positive)
    neg = np.asarray(negatives)
    for name, arr in (("positive", pos), ("negatives", neg)):
        if arr.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold integer item indices, got dtype {arr.dtype}")
        if arr.size and (arr.min() < 0 or arr.max() >= n_items):
            raise ValueError(f"{name} holds indices outside [0, {n_items - 1}]")
    pos = np.broadcast_to(pos, (n_rows,)) if pos.ndim == 0 else pos
    if pos.shape != (n_rows,):
        raise ValueError(f"positive must be a scalar or have shape ({n_rows},), got {pos.shape}")
    neg2 = np.atleast_2d(neg) if neg.ndim == 1 and one else neg
    if neg2.ndim == 1:
        neg2 = np.broadcast_to(neg2, (n_rows, neg2.size))
    if neg2.ndim != 2 or neg2.shape[0] != n_rows:
        raise ValueError(f"negatives must have shape (n,) or ({n_rows}, n), got {neg.shape}")
    if neg2.shape[1] == 0 and not include_positive:
        raise ValueError(
            "negatives must hold at least one item (eq. 5 needs a non-empty V) unless include_positive=True"
        )
    v = np.concatenate([pos[:, None], neg2], axis=1) if include_positive else np.asarray(neg2)
    return one, g2, pos.astype(np.int64), v.astype(np.int64)


@_doc
def relaxed_softmax_loss(
    scores: ArrayLike, positive: ArrayLike, negatives: ArrayLike, *, include_positive: bool = False
) -> FloatOrArray:
    r"""Relaxed-Softmax loss (Tanielian & Vasile, Relaxed Softmax, eq. 5).

    .. math:: L_{(i,j)} = -G(i, j) + \ln \sum_{j' \in V_{(i,j)}} \exp G(i, j'),
              \qquad V = \{j_1, \dots, j_n\},\ j_k \sim Q_i \text{ i.i.d.}

    V is a multiset: a negative drawn twice counts twice. As printed, V holds the sampled
    negatives only (L is then unbounded below in G(i, j)); ``include_positive=True`` adds the
    positive to V, the bounded sampled-softmax form (L >= 0).

    %(loss_params)s

    Returns
    -------
    float or ndarray
        L per context: a float for 1-D ``scores``, else an array of shape (n_contexts,).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.relaxed_softmax import relaxed_softmax_loss
    >>> g = np.array([2.0, 0.0, 1.0, -1.0])
    >>> round(float(relaxed_softmax_loss(g, 0, [1, 3])), 6)    # -2 + ln(e^0 + e^-1)
    -1.686738
    >>> round(float(relaxed_softmax_loss(g, 0, [1, 3], include_positive=True)), 6)
    0.169846
    """
    one, g, pos, v = _rs_inputs(scores, positive, negatives, include_positive)
    rows = np.arange(g.shape[0])[:, None]
    out = -g[rows[:, 0], pos] + logsumexp(g[rows, v], axis=1)
    return float(out[0]) if one else out


@_doc
def relaxed_softmax_grad(
    scores: ArrayLike, positive: ArrayLike, negatives: ArrayLike, *, include_positive: bool = False
) -> FloatArray:
    r"""Gradient of the Relaxed-Softmax loss with respect to the scores G(i, .) (Tanielian & Vasile, eq. 6).

    .. math:: \frac{\partial L}{\partial G(i, \cdot)} = -e_j + \sum_{j' \in V} \hat g_i(j')\, e_{j'},
              \qquad \hat g_i(j') = \frac{e^{G(i,j')}}{\sum_{j'' \in V} e^{G(i,j'')}},

    (e_j the unit vector of item j; duplicated negatives accumulate). Multiplying by the
    Jacobian dG/dtheta gives eq. 6.

    %(loss_params)s

    Returns
    -------
    ndarray
        dL/dG, with the shape of ``scores``.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.relaxed_softmax import relaxed_softmax_grad
    >>> relaxed_softmax_grad(np.zeros(4), 0, [1, 1, 2]).round(4)
    array([-1.    ,  0.6667,  0.3333,  0.    ])
    """
    one, g, pos, v = _rs_inputs(scores, positive, negatives, include_positive)
    rows = np.arange(g.shape[0])[:, None]
    gv = g[rows, v]
    w = np.exp(gv - logsumexp(gv, axis=1, keepdims=True))
    grad = np.zeros_like(g)
    np.add.at(grad, (np.broadcast_to(rows, v.shape), v), w)
    grad[rows[:, 0], pos] -= 1.0
    return grad[0] if one else grad


def relaxed_softmax_limit_grad(
    scores: ArrayLike, positive: ArrayLike, proposal: ArrayLike
) -> FloatArray:
    r"""Large-n limit of the Relaxed-Softmax gradient (Tanielian & Vasile, eq. 7).

    .. math:: \nabla L \to -e_j + \mathbb E_{j' \sim B}[e_{j'}] = -e_j + B,
              \qquad B(j') = \frac{Q_i(j') e^{G(i,j')}}{\sum Q_i e^{G}},

    the law of large numbers for the self-normalised weights of eq. 6 when the n negatives are
    i.i.d. from Q_i. With Q_i = B(G, D, T) (eq. 8) this B is the Boltzmann law at temperature
    T / (T + 1) (see :func:`effective_temperature`).

    Parameters
    ----------
    scores : array_like, shape (n_items,) or (n_contexts, n_items)
        Scores G(i, .) of every item for each context.
    positive : int or array_like of int
        The observed target j of each context (a scalar, or shape (n_contexts,)).
    proposal : array_like
        The negative-sampling law Q_i (non-negative weights, normalised internally, with a
        positive entry in every context; broadcast against ``scores``).

    Returns
    -------
    ndarray
        The limit -e_j + B, with the shape of ``scores``.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.relaxed_softmax import relaxed_softmax_limit_grad
    >>> relaxed_softmax_limit_grad(np.log([1.0, 1.0, 2.0]), 0, [0.0, 0.5, 0.5]).round(4)
    array([-1.    ,  0.3333,  0.6667])
    """
    g = real_array("scores", scores)
    one, g2, pos, _ = _rs_inputs(
        g, positive, np.zeros((np.atleast_2d(g).shape[0], 1), dtype=np.int64), False
    )
    q = real_array("proposal", proposal, 0.0)
    try:
        g2, q = broadcast(scores=g2, proposal=q)
    except ValueError:
        raise ValueError(
            f"proposal of shape {q.shape} does not broadcast against scores of shape {g.shape}"
        ) from None
    if not (q.sum(axis=-1) > 0).all():
        raise ValueError("proposal must have a positive entry for every context")
    b = np.atleast_2d(boltzmann(g2, q, 1.0))
    b[np.arange(b.shape[0]), pos] -= 1.0
    return b[0] if one else b


def effective_temperature(temperature: ArrayLike) -> FloatOrArray:
    r"""Temperature T / (T + 1) of the law that weights the eq.-7 gradient when Q = B(G, D, T).

    From Tanielian & Vasile (Relaxed Softmax), §2.3. Sampling Q proportional to D e^{G/T} and
    weighting each sample by e^{G} (eq. 6) targets

    .. math:: Q\, e^{G} \propto D\, e^{G/T} e^{G} = D \exp\!\Big(\frac{G}{T / (T + 1)}\Big),

    a Boltzmann law of inverse temperature (T + 1)/T, i.e. temperature T/(T + 1) < min(T, 1)
    (README, "Notes on the sources (errata)"). T = inf gives 1 (the softmax: D uniform,
    T = inf is the Monte-Carlo softmax gradient), T = 0 gives 0.

    Parameters
    ----------
    temperature : array_like of float
        Sampling temperature T in [0, inf] (inf allowed).

    Returns
    -------
    float or ndarray
        T / (T + 1) in [0, 1], with the shape of ``temperature``.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.relaxed_softmax import effective_temperature
    >>> effective_temperature([0.0, 0.75, 1.0, np.inf]).tolist()
    [0.0, 0.42857142857142855, 0.5, 1.0]
    """
    t = as_float_array("temperature", temperature, allow_inf=True)
    check_range("temperature", t, 0.0, math.inf)
    with np.errstate(invalid="ignore"):
        out = np.where(np.isinf(t), 1.0, t / (t + 1.0))
    return scalar_or_array(np.asarray(out))


# --------------------------------------------------------------------------------------------
# synthetic mixture-of-Gaussians task (§2.3.2, §3.1)
# --------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _mixture_log_grid(nx, ny, mx, my, sx, sy, rho, logw, out):
    """log of sum_c w_c N((x_i, y_j); mu_c, Sigma_c) at the cell centres of an nx x ny grid on [0, 1]^2.

    Log-sum-exp over components, so cells far from every component keep a finite log density
    (needed for the paper's degeneracy D_i = 1 / P_i).
    """
    nc = mx.size
    lognorm = np.empty(nc)
    coef = np.empty(nc)
    for c in range(nc):
        one_m = 1.0 - rho[c] * rho[c]
        # sum of logs: the product sx sy overflows for scales near the float64 limit
        lognorm[c] = (
            logw[c]
            - math.log(2.0 * math.pi)
            - math.log(sx[c])
            - math.log(sy[c])
            - 0.5 * math.log(one_m)
        )
        coef[c] = -0.5 / one_m
    terms = np.empty(nc)
    for i in range(nx):
        x = (i + 0.5) / nx
        for j in range(ny):
            y = (j + 0.5) / ny
            best = -np.inf
            for c in range(nc):
                u = (x - mx[c]) / sx[c]
                v = (y - my[c]) / sy[c]
                t = lognorm[c] + coef[c] * (u * u - 2.0 * rho[c] * u * v + v * v)
                terms[c] = t
                if t > best:
                    best = t
            s = 0.0
            for c in range(nc):
                d = terms[c] - best
                if d > -40.0:  # e^-40 ~ 4e-18: below double rounding of s >= 1; skip the exp
                    s += math.exp(d)
            out[i, j] = best + math.log(s)


class MixtureOfGaussiansTask:
    r"""Discretised 2-D mixture of Gaussians on I x J: the synthetic task of Tanielian & Vasile (§2.3.2, §3.1).

    The joint law of a context/target pair is P(i, j) proportional to the mixture density at
    the centre of grid cell (i, j) of the unit square, with card(I) x card(J) cells (1000 x 1000
    and 10, 50 or 90 components in the paper). The paper does not state the component
    parameters; here (a documented choice) the means are uniform on [0.1, 0.9]^2, the standard
    deviations uniform on ``scale`` per axis, the correlations uniform on (-0.7, 0.7) and the
    weights Dirichlet(1), all drawn from ``rng``.

    Parameters
    ----------
    n_components : int, default 50
        Number of Gaussian components (>= 1).
    n_context, n_target : int, default 1000
        card(I), card(J), each >= 1.
    rng : int, SeedSequence or Generator, optional
        Draws the component parameters (default 0: a fixed task; ``seed``: deprecated since 0.1,
        removed in 0.2).
    scale : (float, float), default (0.03, 0.12)
        Range (low, high), 0 < low <= high, of the per-axis standard deviations, on the unit
        square.

    Attributes
    ----------
    log_joint : ndarray, shape (n_context, n_target)
        log P(i, j) (normalised), computed on first access.
    joint, conditional, log_conditional, context_popularity, target_popularity : ndarray
        P(i, j); P_i(j) = P(j | i); its log; Pop(I) = P(i); Pop(J) = P(j).

    Examples
    --------
    >>> from negtheory.relaxed_softmax import MixtureOfGaussiansTask
    >>> task = MixtureOfGaussiansTask(10, n_context=100, n_target=80, rng=0)
    >>> task.joint.shape, round(float(task.joint.sum()), 12)
    ((100, 80), 1.0)
    >>> i, j = task.sample(5, rng=1)
    >>> i.shape, bool(i.max() < 100 and j.max() < 80)
    ((5,), True)
    """

    @renamed_keyword("seed", "rng")
    def __init__(
        self,
        n_components: int = 50,
        n_context: int = 1000,
        n_target: int = 1000,
        rng: RNGLike = 0,
        *,
        scale: tuple[float, float] = (0.03, 0.12),
    ):
        self.n_components = int_scalar("n_components", n_components, 1)
        self.n_context = int_scalar("n_context", n_context, 1)
        self.n_target = int_scalar("n_target", n_target, 1)
        # >= 1e-150: the standardised distances (<= 1 / scale) then square without overflow
        lo = real_array("scale", scale, 1e-150)
        if lo.shape != (2,) or lo[0] > lo[1]:
            raise ValueError(
                f"scale must be a pair (low, high) with 0 < low <= high, got {scale!r}"
            )
        gen = as_generator(rng, "rng")
        c = self.n_components
        self.means = gen.uniform(0.1, 0.9, size=(c, 2))
        self.stds = gen.uniform(lo[0], lo[1], size=(c, 2))
        self.rho = gen.uniform(-0.7, 0.7, size=c)
        self.weights = gen.dirichlet(np.ones(c))
        self._log_joint: np.ndarray | None = None
        self._table: AliasTable | None = None

    @property
    def log_joint(self) -> np.ndarray:
        """Normalised log P(i, j), shape (n_context, n_target), computed on first access and cached."""
        if self._log_joint is None:
            out = np.empty((self.n_context, self.n_target))
            _mixture_log_grid(
                self.n_context,
                self.n_target,
                np.ascontiguousarray(self.means[:, 0]),
                np.ascontiguousarray(self.means[:, 1]),
                np.ascontiguousarray(self.stds[:, 0]),
                np.ascontiguousarray(self.stds[:, 1]),
                self.rho,
                np.log(self.weights),
                out,
            )
            out -= logsumexp(out)
            self._log_joint = out
        return self._log_joint

    @property
    def joint(self) -> np.ndarray:
        """Joint law P(i, j), shape (n_context, n_target), summing to 1."""
        return np.exp(self.log_joint)

    @property
    def log_conditional(self) -> np.ndarray:
        """Log of the conditionals, log P_i(j) = log P(j | i), shape (n_context, n_target)."""
        lj = self.log_joint
        return lj - logsumexp(lj, axis=1, keepdims=True)

    @property
    def conditional(self) -> np.ndarray:
        """Conditionals P_i(j) = P(j | i), shape (n_context, n_target); each row sums to 1."""
        return np.exp(self.log_conditional)

    @property
    def context_popularity(self) -> np.ndarray:
        """Context marginal Pop(I) = P(i), shape (n_context,)."""
        return np.exp(logsumexp(self.log_joint, axis=1))

    @property
    def target_popularity(self) -> np.ndarray:
        """Target marginal Pop(J) = P(j), shape (n_target,)."""
        return np.exp(logsumexp(self.log_joint, axis=0))

    def sample(self, n: int, rng: RNGLike = None) -> tuple[IntArray, IntArray]:
        """Draw n i.i.d. pairs (i, j) ~ P with an alias table over the I x J cells (O(1) per pair).

        Parameters
        ----------
        n : int
            Number of pairs, >= 0.
        rng : numpy.random.Generator, int or SeedSequence, optional
            Source of randomness (``None``: fresh OS entropy).

        Returns
        -------
        (i, j) : tuple of two ndarrays of int64, shape (n,)
            Context indices i in [0, n_context) and target indices j in [0, n_target).
        """
        m = int_scalar("n", n, 0)
        if self._table is None:
            self._table = AliasTable(self.joint.ravel())
        flat = self._table.sample(m, rng)
        return flat // self.n_target, flat % self.n_target

    def __repr__(self) -> str:
        return f"MixtureOfGaussiansTask(n_components={self.n_components}, n_context={self.n_context}, n_target={self.n_target})"


# --------------------------------------------------------------------------------------------
# metrics (eq. 9-10, KL, Prec@k)
# --------------------------------------------------------------------------------------------
def kl_divergence(p: ArrayLike, q: ArrayLike, *, axis: int = -1) -> FloatOrArray:
    r"""Kullback-Leibler divergence KL(p || q) along ``axis`` (Tanielian & Vasile, §2.3.2 and Fig. 2-4).

    .. math:: \mathrm{KL}(p \,\|\, q) = \sum_j p_j \ln \frac{p_j}{q_j},

    the paper's KL(P_i || g_i). Both arguments are non-negative weights, normalised along
    ``axis``; terms with p = 0 add 0 and a q = 0 where p > 0 gives inf.

    Parameters
    ----------
    p : array_like of float
        Reference weights (>= 0, positive sum along ``axis``), e.g. the true conditional P_i.
    q : array_like of float
        Model weights (>= 0, positive sum along ``axis``), broadcast against ``p``.
    axis : int, default -1
        Axis along which the laws run.

    Returns
    -------
    float or ndarray
        KL >= 0 (possibly inf), with ``axis`` removed from the broadcast shape.

    Examples
    --------
    >>> from negtheory.relaxed_softmax import kl_divergence
    >>> round(float(kl_divergence([0.5, 0.5], [0.25, 0.75])), 6)
    0.143841
    >>> float(kl_divergence([0.5, 0.5], [1.0, 0.0]))
    inf
    """
    if axis is not None:
        axis = int_scalar("axis", axis)
    pa = real_array("p", p, 0.0)
    qa = real_array("q", q, 0.0)
    pa, qa = broadcast(p=pa, q=qa)
    if pa.ndim == 0:
        raise ValueError("p and q must have at least one dimension")
    # normalisation is scale-free: divide by the largest weight first so that sums of weights
    # near the float64 limit do not overflow (1e308 + 1e308 = inf would give 0 / inf = 0)
    pa = pa / np.where((pm := pa.max(axis=axis, keepdims=True)) > 0, pm, 1.0)
    qa = qa / np.where((qm := qa.max(axis=axis, keepdims=True)) > 0, qm, 1.0)
    ps = pa.sum(axis=axis, keepdims=True)
    qs = qa.sum(axis=axis, keepdims=True)
    if not ((ps > 0).all() and (qs > 0).all()):
        raise ValueError("p and q must have a positive sum along axis")
    pn = pa / ps
    qn = qa / qs
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(pn > 0, pn * (np.log(pn) - np.log(qn)), 0.0)
    return scalar_or_array(np.asarray(terms.sum(axis=axis)))


def _model_and_targets(model, joint, pairs, name="model"):
    g = real_array(name, model)
    if g.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (contexts x items) of scores or probabilities, got shape {g.shape}"
        )
    if (joint is None) == (pairs is None):
        raise ValueError(
            "give exactly one of joint (exact expectation under P) or pairs (empirical average)"
        )
    if joint is not None:
        p = real_array("joint", joint, 0.0)
        if p.shape != g.shape:
            raise ValueError(f"joint must have the shape of {name} {g.shape}, got {p.shape}")
        if not p.max() > 0:  # (not p.sum(): it overflows for weights near the float64 limit)
            raise ValueError("joint must have a positive sum")
        p = p / p.max()  # scale-free: a sum of weights near the float64 limit must not overflow
        return g, p / p.sum(), None
    try:
        i, j = (np.asarray(a) for a in pairs)
    except (TypeError, ValueError):
        raise TypeError(
            f"pairs must be a pair (i, j) of 1-D integer arrays, got {pairs!r}"[:300]
        ) from None
    if (
        i.dtype.kind not in "iu"
        or j.dtype.kind not in "iu"
        or i.shape != j.shape
        or i.ndim != 1
        or i.size == 0
    ):
        raise ValueError("pairs must be two non-empty 1-D integer arrays (i, j) of equal length")
    if i.min() < 0 or i.max() >= g.shape[0] or j.min() < 0 or j.max() >= g.shape[1]:
        raise ValueError(f"pairs hold indices outside the shape of {name} {g.shape}")
    return g, None, (i, j)


def _rank_counts(g, rows, values):
    """For each (row r, value v): #(g[r] < v) and #(g[r] > v)."""
    less = np.empty(values.shape, dtype=np.int64)
    greater = np.empty(values.shape, dtype=np.int64)
    srt = np.sort(g, axis=1)
    n = g.shape[1]
    order = np.argsort(rows, kind="stable")
    r_sorted = rows[order]
    bounds = np.searchsorted(r_sorted, np.arange(g.shape[0] + 1))
    for r in range(g.shape[0]):
        idx = order[bounds[r] : bounds[r + 1]]
        if idx.size:
            less[idx] = np.searchsorted(srt[r], values[idx], side="left")
            greater[idx] = n - np.searchsorted(srt[r], values[idx], side="right")
    return less, greater


def _evaluate(g, p, pairs, stat):
    if p is not None:
        rows = np.repeat(np.arange(g.shape[0]), g.shape[1])
        less, greater = _rank_counts(g, rows, g.ravel())
        return float(np.dot(p.ravel(), stat(less, greater)))
    i, j = pairs
    less, greater = _rank_counts(g, i, g[i, j])
    return float(np.mean(stat(less, greater)))


@_doc
def approx_mpr(
    model: ArrayLike,
    joint: ArrayLike | None = None,
    pairs: tuple[ArrayLike, ArrayLike] | None = None,
) -> float:
    r"""Approximate mean percentile rank (Tanielian & Vasile, eq. 10).

    .. math:: \mathrm{MPR} = \mathbb E_{(i,j) \sim P}\, \mathbb E_{j' \sim U(J)}\, \mathbf 1\{g_i(j) > g_i(j')\},

    the chance that a positive target outranks a uniformly drawn item (the strict inequality of
    eq. 10: ties, including j' = j, count 0). The inner expectation is exact (a rank count);
    the outer one is exact under ``joint`` or an average over observed ``pairs``.

    Parameters
    ----------
    model : array_like, shape (n_context, n_target)
        Model scores or probabilities g_i(j) (only their order within a row matters).
    joint : array_like, optional
        True joint law P(i, j) (non-negative, shape of ``model``; normalised internally).
    %(pairs_returns)s
        MPR in [0, 1]; 1/2 for a random ranking (minus ties).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.relaxed_softmax import approx_mpr
    >>> g = np.array([[3.0, 2.0, 1.0, 0.0]])
    >>> approx_mpr(g, joint=[[1.0, 0.0, 0.0, 0.0]])      # the best item beats 3 of 4
    0.75
    """
    g, p, pairs = _model_and_targets(model, joint, pairs)
    n = g.shape[1]
    return _evaluate(g, p, pairs, lambda less, greater: less / n)


@_doc
def precision_at_k(
    model: ArrayLike,
    k: int,
    joint: ArrayLike | None = None,
    pairs: tuple[ArrayLike, ArrayLike] | None = None,
) -> float:
    r"""Prec@k: probability that a positive target ranks in the top k of all targets (Tanielian & Vasile, §3.2.3).

    Item j of context i is in the top k when fewer than k items score strictly higher
    (optimistic ties). Exact under ``joint`` or averaged over ``pairs``, as in :func:`approx_mpr`.

    Parameters
    ----------
    model : array_like, shape (n_context, n_target)
        Model scores or probabilities g_i(j) (only their order within a row matters).
    k : int
        Cut-off, >= 1.
    joint : array_like, optional
        True joint law P(i, j) (non-negative, shape of ``model``).
    %(pairs_returns)s
        Prec@k in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.relaxed_softmax import precision_at_k
    >>> g = np.array([[3.0, 2.0, 1.0, 0.0]])
    >>> precision_at_k(g, 2, joint=[[0.25, 0.25, 0.25, 0.25]])
    0.5
    """
    g, p, pairs = _model_and_targets(model, joint, pairs)
    kk = int_scalar("k", k, 1)
    return _evaluate(g, p, pairs, lambda less, greater: (greater < kk).astype(float))


@_doc
def expected_likelihood(
    model_probs: ArrayLike,
    joint: ArrayLike | None = None,
    pairs: tuple[ArrayLike, ArrayLike] | None = None,
) -> float:
    r"""Likelihood metric E_{(i,j)~P} g_i(j) (Tanielian & Vasile, eq. 9).

    .. math:: \mathbb E_{(i,j) \sim P}\, g_i(j),

    exact under ``joint`` or averaged over ``pairs``.

    Parameters
    ----------
    model_probs : array_like, shape (n_context, n_target)
        Model probabilities g_i(j) in [0, 1] (each row a law over the targets).
    joint : array_like, optional
        True joint law P(i, j) (non-negative, shape of ``model_probs``).
    %(pairs_returns)s
        The expected model probability of the observed target, in [0, 1].

    Examples
    --------
    >>> from negtheory.relaxed_softmax import expected_likelihood
    >>> expected_likelihood([[0.5, 0.5], [0.9, 0.1]], joint=[[0.5, 0.0], [0.25, 0.25]])
    0.5
    """
    g, p, pairs = _model_and_targets(model_probs, joint, pairs, name="model_probs")
    check_range("model_probs", g, 0.0, 1.0)
    if p is not None:
        return float(np.dot(p.ravel(), g.ravel()))
    i, j = pairs
    return float(np.mean(g[i, j]))
