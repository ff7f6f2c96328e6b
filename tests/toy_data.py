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


def fit_with_negatives(data, **fit_kwargs):
    """``negtheory.training.fit`` on the batch-1 SGD engine, also recording the negative drawn for each pair.

    ``fit`` has no public option for the record: the engine's ``return_negatives`` hook is reached
    through the private run (``negtheory.training._run.make_run``) so that the sampler-law tests read the
    kernel's own draws. ``fit_kwargs`` are ``fit``'s (``model``, ``loss``, ``sampler``, ``optimizer``,
    ``epochs``, ``evaluation``, ``rng``, ``callbacks``) with ``fit``'s defaults; the result's
    ``negatives`` holds, per epoch, the pairs in the order visited and the (first) negative of each.
    """
    from negtheory.recsys.bpr_sgd import _fit_sgd
    from negtheory.training import BPR, MF, RNS, SGD, Evaluation, choose_engine
    from negtheory.training._run import make_run

    kw = dict(
        model=MF(),
        loss=BPR(),
        sampler=RNS(),
        optimizer=SGD(),
        epochs=100,
        evaluation=Evaluation(),
        rng=0,
        callbacks=(),
    )
    unknown = set(fit_kwargs) - set(kw)
    assert not unknown, unknown
    kw.update(fit_kwargs)
    choose_engine(kw["model"], kw["loss"], kw["sampler"], kw["optimizer"], engine="sgd")
    run = make_run(
        kw["model"],
        kw["loss"],
        kw["sampler"],
        kw["optimizer"],
        kw["epochs"],
        kw["evaluation"],
        kw["rng"],
        kw["callbacks"],
        extras=dict(return_negatives=True),
    )
    return _fit_sgd(data, run)
