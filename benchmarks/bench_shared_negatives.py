"""Cost of N negatives per pair: drawn per row (RNS) against shared by the mini-batch (SharedUniform).

One epoch of 20 mini-batch steps (batch 2 048, cosine MF with d = 64, InfoNCE at t = 0.1, Adam, batch L2) on
synthetic pairs over Gowalla's catalogue (29 858 users x 40 981 items): the step's cost depends on the batch, N, d
and the table sizes, not on the data. The two samplers are timed in alternating rounds in one process, and the
ratio per-row / shared is printed for each N (median of the rounds). No data download.

Usage: ``python benchmarks/bench_shared_negatives.py [--ns 256 1024] [--rounds 3]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _epoch_seconds(data, spec, n_neg: int, steps: int) -> float:
    import torch

    from negtheory.bridge import recommend as R

    gen = torch.Generator().manual_seed(0)
    net = R.MF(data.n_users, data.n_items, 64, generator=gen, cosine=True)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[], gamma=1.0)
    run = R._MFRunner(
        net,
        opt,
        sched,
        "infonce",
        {"temperature": 0.1},
        data,
        0,
        n_neg,
        2048,
        torch.device("cpu"),
        np.random.default_rng(0),
        batch_l2=1e-4,
        spec=spec,
    )
    t0 = time.perf_counter()
    run.run_epoch(0)
    return (time.perf_counter() - t0) / steps


def main() -> None:
    from negtheory.recsys import Interactions
    from negtheory.training import RNS, SharedUniform

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ns", type=int, nargs="+", default=[256, 1024])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=20)
    a = p.parse_args()
    rng = np.random.default_rng(0)
    n_users, n_items, n = 29858, 40981, 2048 * a.steps
    pairs = np.unique(np.c_[rng.integers(0, n_users, n), rng.integers(0, n_items, n)], axis=0)
    data = Interactions(n_users, n_items, pairs, np.zeros((0, 2), dtype=np.int64))
    steps = -(-len(pairs) // 2048)
    print(
        f"{steps} steps of batch 2048 per epoch, cosine MF d=64, InfoNCE; seconds per step, median of {a.rounds} rounds"
    )
    for n_neg in a.ns:
        t = {"per-row (RNS)": [], "shared (SharedUniform)": []}
        for _ in range(a.rounds):  # interleaved: both samplers see the same machine load
            t["per-row (RNS)"].append(_epoch_seconds(data, RNS(), n_neg, steps))
            t["shared (SharedUniform)"].append(_epoch_seconds(data, SharedUniform(), n_neg, steps))
        med = {k: float(np.median(v)) for k, v in t.items()}
        print(
            f"N={n_neg:5d}: "
            + ", ".join(f"{k} {v:.3f} s" for k, v in med.items())
            + f"; ratio per-row / shared {med['per-row (RNS)'] / med['shared (SharedUniform)']:.1f}x"
        )


if __name__ == "__main__":
    main()
