"""Benchmark: one epoch, and 100 epochs (extrapolated), of LightGCN on MovieLens-100K with the thesis's settings.

Work: :func:`negtheory.training.fit` with ``**THESIS_LIGHTGCN`` (d = 32, one layer, batch
128, so 625 steps per epoch on 80 000 training pairs; Adam lr 0.01), BPR with RNS, BNS, AOBPR and
SRNS negatives (the last two: :mod:`negtheory.recsys.adaptive_samplers`), evaluated once at the
end, each epoch's time as a ratio to RNS's in the same run. Also the sparse propagation step alone
(forward and backward of one layer on the [n_users + n_items, 32] embeddings): torch's backward of a sparse COO
product against the symmetric CSR product of :class:`~negtheory.bridge.recommend.LightGCN`, whose
gradient is the same product (the matrix is symmetric). The split is user-supplied
(``--train/--test``, or the folder in ``$NEGTHEORY_ML100K`` holding ``100k_train.csv`` /
``100k_test.csv``); without one a synthetic split of the same size is used. Usage::

    python benchmarks/bench_lightgcn.py [--train F --test F] [--epochs 2] [--repeat 20]

``--batch-propagation STEPS`` times only a training step (batch 128, the positive and 10 uniform
negatives per row, InfoNCE, torch's fused Adam with weight decay 1e-5) with the whole-graph propagation
(``LightGCN(propagation="full")``) against the step's rows only (``"batch"``,
:mod:`negtheory.bridge.graph_rows`): STEPS steps of each, interleaved over ``--rounds`` rounds, in one
process, with the scores' and gradients' largest difference on the first batch. ``--data DIR --dataset NAME``
takes a data set of the thesis split as :func:`negtheory.recsys.datasets.thesis_split` does (e.g. Gowalla's
pooled 80/20)::

    python benchmarks/bench_lightgcn.py --data gowalla/ --dataset gowalla --batch-propagation 100
"""

from __future__ import annotations

import time

import torch
from bench_training import benchmark_split, print_header, split_parser

from negtheory.bridge.recommend import LightGCN, _SymmetricSpMM
from negtheory.training import AOBPR, BNS, BPR, RNS, SRNS, Evaluation, fit
from negtheory.training.presets import THESIS_LIGHTGCN


def _ms(fn, repeat):
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat * 1e3


def batch_propagation(data, steps: int, rounds: int) -> None:
    """Training steps with the whole-graph propagation against the step's rows only, interleaved (see the docstring)."""
    import numpy as np

    rng = np.random.default_rng(0)
    models, opts = {}, {}
    for p in ("full", "batch"):
        models[p] = LightGCN(
            data.n_users,
            data.n_items,
            data.train,
            32,
            1,
            generator=torch.Generator().manual_seed(0),
            propagation=p,
        )
        opts[p] = torch.optim.Adam(models[p].parameters(), lr=0.01, weight_decay=1e-5, fused=True)
    batches = []
    for _ in range(steps):
        b = data.train[rng.integers(len(data.train), size=128)]
        items = np.concatenate([b[:, 1:2], rng.integers(data.n_items, size=(128, 10))], axis=1)
        batches.append((torch.from_numpy(b[:, 0]), torch.from_numpy(items)))

    def step(p, u, it):
        s = models[p](u, it)
        loss = torch.logsumexp(s, 1).mean() - s[:, 0].mean()
        opts[p].zero_grad()
        loss.backward()
        return s

    u, it = batches[0]
    s = {p: step(p, u, it) for p in models}  # also compiles / loads the kernels
    diff_s = float((s["full"] - s["batch"]).detach().abs().max())
    diff_g = max(
        float((a.grad - b.grad).abs().max())
        for a, b in zip(models["full"].parameters(), models["batch"].parameters())
    )
    nodes = torch.unique(torch.cat([u, it.reshape(-1) + data.n_users]))
    crow = models["full"].adj.crow_indices()
    nnz = int((crow[nodes + 1] - crow[nodes]).sum())
    print(
        f"\nLightGCN training step (batch 128, 11 items a row, one layer, d = 32): {len(nodes)} of "
        f"{data.n_users + data.n_items} nodes, {nnz} of {models['full'].adj.values().numel()} adjacency entries; "
        f"largest difference full - batch: scores {diff_s:.2e}, gradients {diff_g:.2e}"
    )
    times = {p: [] for p in models}
    for r in range(rounds):
        for p in ("full", "batch") if r % 2 == 0 else ("batch", "full"):
            t0 = time.perf_counter()
            for u, it in batches:
                step(p, u, it)
                opts[p].step()
            times[p].append((time.perf_counter() - t0) / steps * 1e3)
    for p in models:
        print(
            f"  {p:5s}: median {sorted(times[p])[len(times[p]) // 2]:7.2f} ms a step  (rounds: "
            + ", ".join(f"{t:.1f}" for t in times[p])
            + ")"
        )
    ratio = sorted(f / b for f, b in zip(times["full"], times["batch"]))
    print(
        f"  full / batch per round: median {ratio[len(ratio) // 2]:.2f}x (min {ratio[0]:.2f}x, max {ratio[-1]:.2f}x)"
    )


def main():
    ap = split_parser(__doc__)
    ap.add_argument(
        "--epochs", type=int, default=2, help="epochs timed per sampler (then extrapolated to 100)"
    )
    ap.add_argument("--repeat", type=int, default=20, help="repetitions of the propagation step")
    ap.add_argument(
        "--data", help="a thesis data set's folder (with --dataset), instead of --train/--test"
    )
    ap.add_argument(
        "--dataset", default="gowalla", help="its name for thesis_split (default gowalla)"
    )
    ap.add_argument(
        "--batch-propagation",
        type=int,
        metavar="STEPS",
        help="time only STEPS training steps, full vs batch",
    )
    ap.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="interleaved rounds of --batch-propagation (default 5)",
    )
    args = ap.parse_args()
    if args.data:
        from negtheory.recsys.datasets import thesis_split

        data = thesis_split(args.dataset, args.data, rng=0)
    else:
        data = benchmark_split(args.train, args.test)
    print_header(data, f"torch {torch.__version__} ({torch.get_num_threads()} torch threads)")
    if args.batch_propagation:
        batch_propagation(data, args.batch_propagation, args.rounds)
        return
    m = LightGCN(data.n_users, data.n_items, data.train, 32, 1)
    x = torch.cat([m.user.weight, m.item.weight]).detach().requires_grad_()
    coo = m.adj.to_sparse_coo()
    t_coo = _ms(lambda: torch.sparse.mm(coo, x).sum().backward(), args.repeat)
    t_sym = _ms(lambda: _SymmetricSpMM.apply(m.adj, x).sum().backward(), args.repeat)
    print(f"\none propagation layer, forward + backward (mean of {args.repeat}):")
    print(f"  torch.sparse.mm on COO     : {t_coo:7.2f} ms")
    print(f"  symmetric CSR (LightGCN)   : {t_sym:7.2f} ms   ratio {t_coo / t_sym:.1f}x")
    print(
        f"\nLightGCN, thesis settings (batch {THESIS_LIGHTGCN['optimizer'].batch_size}), {args.epochs} epochs each:"
    )
    base = None
    for sampler in (RNS(), BNS(), AOBPR(), SRNS()):
        cfg = dict(THESIS_LIGHTGCN, epochs=args.epochs)
        r = fit(
            data,
            **cfg,
            loss=BPR(),
            sampler=sampler,
            evaluation=Evaluation(every=args.epochs),
            rng=0,
        )
        per = r.seconds / args.epochs
        base = base or per
        name = type(sampler).__name__
        print(
            f"  BPR {name:5s}: {per:6.2f} s/epoch (one evaluation included), {per / base:4.2f}x RNS  "
            f"~{per * 100 / 60:5.1f} min per 100 epochs  NDCG@10 after {args.epochs}: {r.history[-1]['test_ndcg@10']:.4f}"
        )


if __name__ == "__main__":
    main()
