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
"""

from __future__ import annotations

import time

import torch
from bench_training import benchmark_split, print_header, split_parser

from negtheory.bridge.recommend import LIGHTGCN_THESIS, LightGCN, _SymmetricSpMM
from negtheory.training import AOBPR, BNS, BPR, RNS, SRNS, Evaluation, fit
from negtheory.training.presets import THESIS_LIGHTGCN


def _ms(fn, repeat):
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat * 1e3


def main():
    ap = split_parser(__doc__)
    ap.add_argument("--epochs", type=int, default=2, help="epochs timed per sampler (then extrapolated to 100)")
    ap.add_argument("--repeat", type=int, default=20, help="repetitions of the propagation step")
    args = ap.parse_args()
    data = benchmark_split(args.train, args.test)
    print_header(data, f"torch {torch.__version__} ({torch.get_num_threads()} torch threads)")
    m = LightGCN(data.n_users, data.n_items, data.train, 32, 1)
    x = torch.cat([m.user.weight, m.item.weight]).detach().requires_grad_()
    coo = m.adj.to_sparse_coo()
    t_coo = _ms(lambda: torch.sparse.mm(coo, x).sum().backward(), args.repeat)
    t_sym = _ms(lambda: _SymmetricSpMM.apply(m.adj, x).sum().backward(), args.repeat)
    print(f"\none propagation layer, forward + backward (mean of {args.repeat}):")
    print(f"  torch.sparse.mm on COO     : {t_coo:7.2f} ms")
    print(f"  symmetric CSR (LightGCN)   : {t_sym:7.2f} ms   ratio {t_coo / t_sym:.1f}x")
    print(f"\nLightGCN, thesis settings (batch {LIGHTGCN_THESIS['batch_size']}), {args.epochs} epochs each:")
    base = None
    for sampler in (RNS(), BNS(), AOBPR(), SRNS()):
        cfg = dict(THESIS_LIGHTGCN, epochs=args.epochs)
        r = fit(data, **cfg, loss=BPR(), sampler=sampler, evaluation=Evaluation(every=args.epochs), rng=0)
        per = r.seconds / args.epochs
        base = base or per
        name = type(sampler).__name__
        print(
            f"  BPR {name:5s}: {per:6.2f} s/epoch (one evaluation included), {per / base:4.2f}x RNS  "
            f"~{per * 100 / 60:5.1f} min per 100 epochs  NDCG@10 after {args.epochs}: {r.history[-1]['test_ndcg@10']:.4f}"
        )


if __name__ == "__main__":
    main()
