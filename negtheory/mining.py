r"""Negative mining from anchor distances: random, hard and semi-hard (textbook chapter, *Mining*).

Part of the mechanics of the negative-sampling textbook chapter; :mod:`negtheory.mechanics` re-exports every name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._validation import (
    as_generator,
    broadcast,
    real_array,
    real_scalar,
    scalar_or_array,
)

if TYPE_CHECKING:
    from ._typing import ArrayLike, BoolArray, FloatArray, IntArray, RNGLike

__all__ = [
    "semi_hard_mask",
    "triplet_loss",
    "mine_negatives",
]


def _distances(d_ap, d_an):
    ap = real_array("d_ap", d_ap, 0.0)
    an = real_array("d_an", d_an, 0.0)
    if ap.ndim != 1:
        raise ValueError(
            f"d_ap must be 1-D (one anchor-positive distance per anchor), got shape {ap.shape}"
        )
    if an.ndim != 2 or an.shape[0] != ap.shape[0] or an.shape[1] == 0:
        raise ValueError(
            f"d_an must have shape (n_anchors, n_candidates) = ({ap.shape[0]}, m >= 1), got {an.shape}"
        )
    return ap, an


def semi_hard_mask(d_ap: ArrayLike, d_an: ArrayLike, margin: float) -> BoolArray:
    r"""Semi-hard candidates d(a,p) < d(a,n) < d(a,p) + m (textbook chapter, *Mining Strategies*).

    .. math:: d(a, p) < d(a, n) < d(a, p) + m

    Parameters
    ----------
    d_ap : array_like, shape (n,)
        Anchor-positive distances.
    d_an : array_like, shape (n, m)
        Anchor-to-candidate-negative distances.
    margin : float
        Triplet margin m > 0.

    Returns
    -------
    ndarray of bool, shape (n, m)
        True where the candidate is semi-hard for its anchor.

    Examples
    --------
    >>> from negtheory.mining import semi_hard_mask
    >>> semi_hard_mask([1.0], [[0.5, 1.1, 1.3, 2.0]], margin=0.5).tolist()
    [[False, True, True, False]]
    """
    ap, an = _distances(d_ap, d_an)
    m = real_scalar("margin", margin, 0.0, lo_open=True)
    return (an > ap[:, None]) & (an < ap[:, None] + m)


def triplet_loss(d_ap: ArrayLike, d_an: ArrayLike, margin: float) -> FloatArray:
    r"""Triplet hinge loss max(0, d(a,p) - d(a,n) + m) (textbook chapter, *Mining Strategies*).

    It is 0 for easy negatives (d(a,n) >= d(a,p) + m), in (0, m) for semi-hard ones and > m
    for hard ones that are closer than the positive. Broadcasts like numpy.

    .. math:: \ell = \max\big(0,\ d(a, p) - d(a, n) + m\big)

    Parameters
    ----------
    d_ap : array_like
        Anchor-positive distances d(a, p) >= 0.
    d_an : array_like
        Anchor-negative distances d(a, n) >= 0, broadcast against ``d_ap``.
    margin : float
        Triplet margin m >= 0.

    Returns
    -------
    float or ndarray
        The loss >= 0, with the broadcast shape of ``d_ap`` and ``d_an``.

    Examples
    --------
    >>> from negtheory.mining import triplet_loss
    >>> triplet_loss(1.0, [0.5, 1.2, 2.0], margin=0.5).round(6)
    array([1. , 0.3, 0. ])
    """
    ap = real_array("d_ap", d_ap, 0.0)
    an = real_array("d_an", d_an, 0.0)
    m = real_scalar("margin", margin, 0.0)
    ap, an = broadcast(d_ap=ap, d_an=an)
    return scalar_or_array(np.asarray(np.maximum(0.0, ap - an + m)))


_STRATEGIES = ("random", "hard", "semi-hard")


def mine_negatives(
    d_ap: ArrayLike,
    d_an: ArrayLike,
    strategy: str = "semi-hard",
    margin: float = 0.2,
    *,
    pick: str = "hardest",
    rng: RNGLike = None,
) -> IntArray:
    r"""Choose one negative per anchor: random, hard or semi-hard mining (textbook chapter, *Mining Strategies*).

    * ``'random'``: uniform over the candidates (cheap; often easy, zero-loss negatives);
    * ``'hard'``: the candidate closest to the anchor (smallest d(a,n); ties: lowest index);
    * ``'semi-hard'``: among candidates with d(a,p) < d(a,n) < d(a,p) + m, the closest one
      (``pick='hardest'``, the FaceNet choice) or a uniformly random one (``pick='random'``);
      anchors without a semi-hard candidate get -1.

    Parameters
    ----------
    d_ap : array_like, shape (n,)
        Anchor-positive distances.
    d_an : array_like, shape (n, m)
        Anchor-to-candidate distances.
    strategy : {'random', 'hard', 'semi-hard'}, default 'semi-hard'
        Mining strategy, as listed above.
    margin : float, default 0.2
        Margin m > 0 (semi-hard only).
    pick : {'hardest', 'random'}, default 'hardest'
        Choice inside the semi-hard band.
    rng : numpy.random.Generator, int or SeedSequence, optional
        Used by ``'random'`` and ``pick='random'``.

    Returns
    -------
    ndarray of int64, shape (n,)
        Column index of the chosen negative, -1 where none qualifies.

    Examples
    --------
    >>> from negtheory.mining import mine_negatives
    >>> d_ap = [1.0, 1.0]
    >>> d_an = [[0.5, 1.1, 1.3, 2.0], [2.0, 3.0, 0.9, 4.0]]
    >>> mine_negatives(d_ap, d_an, "hard").tolist()
    [0, 2]
    >>> mine_negatives(d_ap, d_an, "semi-hard", margin=0.5).tolist()
    [1, -1]
    """
    ap, an = _distances(d_ap, d_an)
    if not isinstance(strategy, str) or strategy not in _STRATEGIES:
        raise ValueError(f"strategy must be one of {_STRATEGIES}, got {strategy!r}")
    if not isinstance(pick, str) or pick not in ("hardest", "random"):
        raise ValueError(f"pick must be 'hardest' or 'random', got {pick!r}")
    n, m = an.shape
    if strategy != "semi-hard":  # unused there, but a bad value is still a caller's mistake
        real_scalar("margin", margin, 0.0, lo_open=True)
    if rng is not None:  # likewise validated even where no randomness is used
        rng = as_generator(rng)
    if strategy == "random":
        return as_generator(rng).integers(0, m, size=n).astype(np.int64)
    if strategy == "hard":
        return np.argmin(an, axis=1).astype(np.int64)
    mask = semi_hard_mask(ap, an, margin)
    if pick == "hardest":
        idx = np.argmin(np.where(mask, an, np.inf), axis=1)
    else:
        keys = as_generator(rng).random(an.shape)
        idx = np.argmax(np.where(mask, keys, -1.0), axis=1)
    return np.where(mask.any(axis=1), idx, -1).astype(np.int64)
