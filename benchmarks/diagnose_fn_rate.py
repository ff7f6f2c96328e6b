"""Validate ``negtheory.diagnose``'s false-negative rate on real data, from a plain PyTorch loop.

A plain PyTorch BPR-MF loop (not the package's trainer: ``torch.nn.Embedding``, Adam, uniform
negatives) trains on a split with a validation split carved from train (10 %, never trained on).
Then, for a sample of training pairs as anchors, it scores 100 uniformly drawn unlabeled candidates
per anchor and the negatives three samplers draw — RNS (uniform), PNS (popularity^0.75) and DNS (the
highest-scored of 5 uniform items) — and calls :func:`negtheory.diagnose` with the *validation*
items among the candidates as the only labels. The estimate is compared with the labelled rate: the
share of the sampled negatives that are held-out items (validation or test) of the anchor's user.
Memory grows with the interactions only: no users x items matrix is formed.

    python benchmarks/diagnose_fn_rate.py --train 100k_train.csv --test 100k_test.csv
    python benchmarks/diagnose_fn_rate.py --data interactions.csv --test-fraction 0.2     # e.g. MovieLens-1M
    python benchmarks/diagnose_fn_rate.py --train train.txt --test test.txt --format lightgcn --epochs 3  # Gowalla
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np


def _member(keys, users, items, n_items):
    """Whether each (user, item) pair is in the sorted int64 key array (u * n_items + i)."""
    k = users.astype(np.int64) * n_items + items
    pos = np.minimum(np.searchsorted(keys, k), len(keys) - 1)
    return keys[pos] == k


def _keys(pairs, n_items):
    return np.sort(pairs[:, 0].astype(np.int64) * n_items + pairs[:, 1])


def plain_loop(data, epochs=10, dim=32, batch=2048, lr=5e-3, seed=0):
    """BPR-MF with uniform negatives in plain PyTorch; returns the (user, item) embedding tables."""
    import torch

    torch.manual_seed(seed)
    g = np.random.default_rng(seed)
    U = torch.nn.Embedding(data.n_users, dim)
    V = torch.nn.Embedding(data.n_items, dim)
    torch.nn.init.normal_(U.weight, std=0.1)
    torch.nn.init.normal_(V.weight, std=0.1)
    opt = torch.optim.Adam(list(U.parameters()) + list(V.parameters()), lr=lr)
    train = data.train
    keys = _keys(train, data.n_items)
    for _ in range(epochs):
        order = g.permutation(len(train))
        for s in range(0, len(order), batch):
            b = train[order[s : s + batch]]
            neg = g.integers(0, data.n_items, len(b))
            bad = _member(keys, b[:, 0], neg, data.n_items)
            while bad.any():  # uniform over the user's non-interacted items (rejection)
                neg[bad] = g.integers(0, data.n_items, int(bad.sum()))
                bad = _member(keys, b[:, 0], neg, data.n_items)
            u, i, j = (torch.as_tensor(x) for x in (b[:, 0], b[:, 1], neg))
            eu = U(u)
            loss = -torch.nn.functional.logsigmoid((eu * V(i)).sum(1) - (eu * V(j)).sum(1)).mean()
            loss = loss + 1e-5 * (eu.pow(2).sum() + V(i).pow(2).sum() + V(j).pow(2).sum()) / len(b)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return U.weight.detach().numpy().astype(np.float64), V.weight.detach().numpy().astype(
        np.float64
    )


def draw_unlabeled(users, k, keys, n_items, g, p=None):
    """k distinct items per user, none a training item, uniformly (or with probabilities p, by rejection)."""
    cdf = None if p is None else np.cumsum(p) / np.sum(p)

    def draw(n):
        return (
            g.integers(0, n_items, n)
            if cdf is None
            else np.minimum(np.searchsorted(cdf, g.random(n)), n_items - 1)
        )

    out = draw(len(users) * k).reshape(len(users), k)
    uu = np.repeat(users[:, None], k, axis=1)
    while True:
        dup = np.triu(out[:, :, None] == out[:, None, :], 1).any(
            axis=1
        )  # a repeat of an earlier column
        bad = dup | _member(keys, uu, out, n_items)
        if not bad.any():
            return out
        out[bad] = draw(int(bad.sum()))


def main(argv=None):
    from negtheory import diagnose
    from negtheory.recsys import load_split, read_interactions, split_interactions
    from negtheory.recsys.score_probe import label_fraction

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--train")
    p.add_argument("--test")
    p.add_argument("--data")
    p.add_argument("--test-fraction", type=float, default=0.2)
    p.add_argument("--format", default="auto")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--anchors", type=int, default=5000)
    p.add_argument("--candidates", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    if a.data:
        data = split_interactions(
            read_interactions(a.data, format=a.format), a.test_fraction, rng=a.seed
        )
    else:
        data = load_split(a.train, a.test, format=a.format)
    data = data.with_validation(0.1, rng=a.seed)
    W, H = plain_loop(data, epochs=a.epochs, seed=a.seed)
    g = np.random.default_rng(a.seed + 1)
    seen = _keys(data.train, data.n_items)
    vkeys = _keys(data.valid, data.n_items)
    hkeys = _keys(np.vstack([data.valid, data.test]), data.n_items)
    anchors = data.train[g.choice(len(data.train), min(a.anchors, len(data.train)), replace=False)]
    users = anchors[:, 0]
    score = lambda items: np.einsum("ad,akd->ak", W[users], H[items])  # noqa: E731
    cand_items = draw_unlabeled(users, a.candidates, seen, data.n_items, g)
    cand = score(cand_items)
    uu = np.repeat(users[:, None], a.candidates, axis=1)
    labels = _member(vkeys, uu, cand_items, data.n_items)
    pos = np.einsum("ad,ad->a", W[users], H[anchors[:, 1]])
    pop = np.bincount(data.train[:, 1], minlength=data.n_items) ** 0.75 + 1e-12
    neg_items = {
        "rns": draw_unlabeled(users, 5, seen, data.n_items, g),
        "pns": draw_unlabeled(users, 5, seen, data.n_items, g, p=pop / pop.sum()),
    }
    pool = draw_unlabeled(users, 25, seen, data.n_items, g).reshape(len(users), 5, 5)
    ps = np.einsum("ad,abcd->abc", W[users], H[pool])
    neg_items["dns"] = np.take_along_axis(pool, ps.argmax(axis=2)[..., None], 2)[..., 0]
    L = label_fraction(data)
    print(
        f"{data.n_users} users, {data.n_items} items, {len(data.train)} train / {len(data.valid)} valid / {len(data.test)} test;"
        f" label fraction {L:.3f}; {a.epochs} epochs of plain-PyTorch BPR-MF"
    )
    print(
        "sampler | labelled FN rate | diagnose (empirical law) | rel. error | theory law (order-statistic family) | rel. error"
        " | order k | theory law (thesis's family) | rel. error | thesis alpha at bound"
    )
    for name, items in neg_items.items():
        truth = float(
            _member(
                hkeys, np.repeat(users[:, None], items.shape[1], axis=1), items, data.n_items
            ).mean()
        )
        neg = score(items)
        d = diagnose(pos, cand, neg, labels=labels, label_fraction=L)
        dt = diagnose(pos, cand, neg, labels=labels, label_fraction=L, family="thesis")
        print(
            f"{name} | {truth:.4f} | {d.fn_rate:.4f} | {d.fn_rate / truth - 1:+.1%} | {d.fn_rate_theory:.4f} | "
            f"{d.fn_rate_theory / truth - 1:+.1%} | {d.order:.2f} | {dt.fn_rate_theory:.4f} | "
            f"{dt.fn_rate_theory / truth - 1:+.1%} | {dt.alpha_at_bound}"
        )
    print(
        f"tau+ (label-free) {d.tau_plus:.4f}; train AUC {d.train_auc:.3f}; K* {d.k_star}; "
        f"{time.perf_counter() - t0:.0f} s; peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GB"
    )


if __name__ == "__main__":
    main()
