"""The small learnable split that the training and reproduction tests share (imported as ``toy_data``)."""

from __future__ import annotations

import numpy as np

from negtheory.recsys import Interactions, split_interactions


def planted_split(n_users, n_items, seed, clusters=5, inside=0.5, outside=0.03):
    """Users and items in ``clusters`` clusters; users interact mostly within their cluster (learnable).

    A pair is an interaction with probability ``inside`` within a cluster and ``outside`` across;
    the interactions are split 80/20 at random, everything seeded by ``seed``.
    """
    rng = np.random.default_rng(seed)
    cu, ci = rng.integers(0, clusters, n_users), rng.integers(0, clusters, n_items)
    p = np.where(cu[:, None] == ci[None, :], inside, outside)
    return split_interactions(np.argwhere(rng.random((n_users, n_items)) < p), 0.2, rng=seed)


def random_train(n_users=20, n_items=30, n=200, seed=0):
    """``n`` random (user, item) draws, deduplicated, as training pairs with an empty test split."""
    rng = np.random.default_rng(seed)
    pairs = np.unique(np.c_[rng.integers(0, n_users, n), rng.integers(0, n_items, n)], axis=0)
    return Interactions(n_users, n_items, pairs, np.zeros((0, 2), dtype=np.int64))
