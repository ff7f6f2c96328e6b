r"""In-batch (per-example) against shared-pool negatives: costs and the chance of a hard negative (the negative-sampling textbook chapter).

Part of the mechanics of the negative-sampling textbook chapter; :mod:`negtheory.mechanics` re-exports every name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from scipy.special import gammaln

from ._validation import (
    _show,
    broadcast,
    int_scalar,
    real_array,
    scalar_or_array,
)
from .coverage import coverage_probability

if TYPE_CHECKING:
    from ._typing import ArrayLike, FloatOrArray

__all__ = [
    "negative_costs",
    "NegativeCosts",
    "hard_negative_probability",
]


class NegativeCosts(NamedTuple):
    """Cost model of :func:`negative_costs`: stored embeddings and dot products per batch (textbook chapter).

    Parameters
    ----------
    memory_per_example : ndarray or numpy.int64
        B K negative embeddings stored with per-example negatives.
    memory_shared : ndarray or numpy.int64
        S embeddings stored with a shared pool.
    dots_per_example : ndarray or numpy.int64
        B (K + 1) dot products with per-example negatives.
    dots_shared : ndarray or numpy.int64
        B (S + 1) dot products with a shared pool.

    Examples
    --------
    >>> from negtheory.pool_costs import NegativeCosts, negative_costs
    >>> c = negative_costs(batch_size=4, k=2, pool_size=3)
    >>> isinstance(c, NegativeCosts), int(c.memory_per_example), int(c.dots_shared)
    (True, 8, 16)
    """

    memory_per_example: np.ndarray  #: B K negative embeddings
    memory_shared: np.ndarray  #: S embeddings
    dots_per_example: np.ndarray  #: B (K + 1) dot products
    dots_shared: np.ndarray  #: B (S + 1) dot products


def negative_costs(batch_size: ArrayLike, k: ArrayLike, pool_size: ArrayLike) -> NegativeCosts:
    r"""Memory and dot-product cost of per-example vs shared-pool negatives (textbook chapter, *In-Batch vs. Global Negatives*).

    Per-example negatives (K per anchor) store B K embeddings and compute B (K + 1) dot products;
    a pool of S negatives shared by the B anchors stores S embeddings and computes B (S + 1).
    The pool saves memory when B K > S and costs throughput when S > K.

    Parameters
    ----------
    batch_size : array_like of int
        Number B >= 1 of anchors per batch.
    k : array_like of int
        Number K >= 0 of per-example negatives per anchor.
    pool_size : array_like of int
        Number S >= 0 of shared negatives; the three arguments broadcast.

    Returns
    -------
    NegativeCosts
        The four int64 costs (numpy int64 scalars for scalar inputs), broadcast over the
        arguments.

    Examples
    --------
    >>> from negtheory.pool_costs import negative_costs
    >>> c = negative_costs(batch_size=256, k=16, pool_size=1024)
    >>> int(c.memory_per_example), int(c.memory_shared), int(c.dots_per_example), int(c.dots_shared)
    (4096, 1024, 4352, 262400)
    """
    b = real_array("batch_size", batch_size, 1.0)
    kk = real_array("k", k, 0.0)
    s = real_array("pool_size", pool_size, 0.0)
    for name, arr in (("batch_size", b), ("k", kk), ("pool_size", s)):
        if (arr != np.floor(arr)).any():
            raise ValueError(
                f"{name} must be integral, got {arr[arr != np.floor(arr)].ravel()[:3].tolist()}"
            )
    b, kk, s = broadcast(batch_size=b, k=kk, pool_size=s)

    def product(x, y, plus):
        """x * (y + plus) exactly, as int64 (Python integers: float64 loses integers above 2^53)."""
        vals = [
            int(xi) * (int(yi) + plus) for xi, yi in zip(x.ravel().tolist(), y.ravel().tolist())
        ]
        if vals and max(vals) > np.iinfo(np.int64).max:
            raise ValueError(
                "batch_size * (k + 1) and batch_size * (pool_size + 1) must fit in int64 (< 2**63), "
                f"got batch_size={_show(batch_size)}, k={_show(k)}, pool_size={_show(pool_size)}"
            )
        return scalar_or_array(np.array(vals, dtype=np.int64).reshape(x.shape))

    return NegativeCosts(
        product(b, kk, 0), product(s, np.ones_like(b), 0), product(b, kk, 1), product(b, s, 1)
    )


def hard_negative_probability(
    n: ArrayLike, rho: ArrayLike, population: ArrayLike | None = None
) -> FloatOrArray:
    r"""Probability that n negatives contain at least one hard negative (textbook chapter, *In-Batch vs. Global Negatives*).

    With a fraction rho of hard negatives in the corpus:

    * i.i.d. draws (``population=None``), as :func:`coverage_probability`:
      :math:`P = 1 - (1 - \rho)^n`;
    * n distinct items drawn without replacement from a corpus of N items of which
      H = round(rho N) are hard (hypergeometric, which is larger):
      :math:`P = 1 - \binom{N - H}{n} \Big/ \binom{N}{n}`.

    Use n = K for per-example negatives and n = S for a shared pool.

    Parameters
    ----------
    n : array_like
        Number of negatives drawn, >= 0 (an integer <= ``population`` without replacement).
    rho : array_like
        Fraction of hard negatives in the corpus, in [0, 1].
    population : int, optional
        Corpus size N >= 1 for draws without replacement; ``None`` (default): i.i.d. draws.

    Returns
    -------
    float or ndarray
        The probability in [0, 1], broadcast over ``n`` and ``rho``.

    Examples
    --------
    >>> from negtheory.pool_costs import hard_negative_probability
    >>> round(float(hard_negative_probability(16, 0.01)), 4), round(float(hard_negative_probability(1024, 0.01)), 4)
    (0.1485, 1.0)
    >>> float(hard_negative_probability(91, 0.1, population=100))   # only 90 easy items exist
    1.0
    """
    if population is None:
        return coverage_probability(rho, real_array("n", n, 0.0))
    nn = real_array("n", n, 0.0)
    r = real_array("rho", rho, 0.0, 1.0)
    pop = int_scalar("population", population, 1)
    if (nn > pop).any() or (nn != np.floor(nn)).any():
        raise ValueError(
            f"n must be an integer in [0, population={pop}] when drawing without replacement, got {nn.ravel()[:3].tolist()}"
        )
    hard = np.rint(r * pop)
    easy = pop - hard
    with np.errstate(invalid="ignore"):
        log_ratio = (
            gammaln(easy + 1) - gammaln(easy - nn + 1) - gammaln(pop + 1) + gammaln(pop - nn + 1)
        )
    out = np.where(nn > easy, 1.0, -np.expm1(np.where(nn > easy, 0.0, log_ratio)))
    return scalar_or_array(np.asarray(out))
