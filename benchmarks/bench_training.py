"""Benchmark: 100-epoch BPR-MF (batch-1 SGD, uniform negatives) — negtheory against cornac's BPR.

Work: MF with d = 32, lr 0.01, L2 0.01, 100 epochs over the training pairs of a MovieLens-100K
split (thesis §4.5.1.2), one uniform non-interacted negative per pair.

* anchor, measured in the same run when installed (``pip install cornac``; skipped otherwise):
  ``cornac.models.BPR(k=32, max_iter=100, learning_rate=0.01, lambda_reg=0.01)`` (Cython SGD);
* negtheory: :func:`negtheory.training.fit`'s defaults (BPR-MF by batch-1 SGD, ``sampler=RNS()``,
  numba), evaluated once at the end;
* also the score-based samplers (DNS, BNS, AOBPR) per epoch, to show what scoring every item per
  step costs.

Runs are interleaved (cornac, negtheory, cornac, negtheory, ...) and the median of the per-pair
ratios is reported; NDCG@10 of both models is computed by the same evaluator
(:func:`negtheory.recsys.topk_metrics`). The split is user-supplied (``--train/--test``, or the
folder in ``$NEGTHEORY_ML100K`` holding ``100k_train.csv``/``100k_test.csv``); without one a
synthetic split of the same size (943 users, 1682 items, 80 000 / 20 000 pairs) is generated so
the timing still runs. Usage::

    python benchmarks/bench_training.py [--train F --test F] [--repeat 3] [--epochs 100]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np

import negtheory
from negtheory.recsys import load_split, topk_metrics
from negtheory.training import AOBPR, BNS, DNS, Evaluation, fit


def synthetic_split(seed=0):
    rng = np.random.default_rng(seed)
    # popularity-skewed items, activity-skewed users, as in MovieLens
    pu = rng.pareto(1.5, 943) + 1
    pi = rng.pareto(1.2, 1682) + 1
    pairs = set()
    while len(pairs) < 100_000:
        u = rng.choice(943, 50_000, p=pu / pu.sum())
        i = rng.choice(1682, 50_000, p=pi / pi.sum())
        pairs.update(zip(u.tolist(), i.tolist()))
    pairs = np.array(sorted(pairs))[:100_000]
    pairs = pairs[rng.permutation(len(pairs))]
    return load_split(pairs[:80_000], pairs[80_000:], name="synthetic ML-100K-sized split")


def run_cornac(data, epochs, seed, num_threads=0):
    import cornac
    from cornac.data import Dataset

    uid = [str(u) for u in data.train[:, 0]]
    iid = [str(i) for i in data.train[:, 1]]
    ds = Dataset.from_uir(list(zip(uid, iid, [1.0] * len(uid))), seed=seed)
    model = cornac.models.BPR(
        k=32,
        max_iter=epochs,
        learning_rate=0.01,
        lambda_reg=0.01,
        seed=seed,
        verbose=False,
        num_threads=num_threads,
    )
    t0 = time.perf_counter()
    model.fit(ds)
    secs = time.perf_counter() - t0
    # scores in negtheory's index space
    umap = np.array(
        [ds.uid_map[str(u)] if str(u) in ds.uid_map else -1 for u in range(data.n_users)]
    )
    imap = np.array(
        [ds.iid_map[str(i)] if str(i) in ds.iid_map else -1 for i in range(data.n_items)]
    )
    U = model.u_factors[np.maximum(umap, 0)]
    V = model.i_factors[np.maximum(imap, 0)]
    b = model.i_biases[np.maximum(imap, 0)]
    scores = U @ V.T + b[None, :]
    scores[:, imap < 0] = -np.inf
    return secs, scores


def benchmark_split(train=None, test=None):
    """The split a benchmark times: ``train``/``test`` files, else ``$NEGTHEORY_ML100K`` (holding
    ``100k_train.csv`` / ``100k_test.csv``), else :func:`synthetic_split` (MovieLens-100K's size)."""
    env = os.environ.get("NEGTHEORY_ML100K")
    if train is None and env and Path(env, "100k_train.csv").exists():
        train, test = str(Path(env) / "100k_train.csv"), str(Path(env) / "100k_test.csv")
    return load_split(train, test) if train else synthetic_split()


def split_parser(doc: str) -> argparse.ArgumentParser:
    """The parser of a benchmark on a split: its docstring's first line, ``--train`` and ``--test`` (see benchmark_split)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--train")
    parser.add_argument("--test")
    return parser


def print_header(data, libraries: str) -> None:
    """Print the versions, the machine and the data set a benchmark ran on."""
    print(
        f"negtheory {negtheory.__version__}, {libraries}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cpus; data: {data.name} ({len(data.train)} train / {len(data.test)} test pairs)"
    )


def main():
    ap = split_parser(__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument(
        "--samplers-epochs", type=int, default=2, help="epochs timed for each score-based sampler"
    )
    args = ap.parse_args()
    data = benchmark_split(args.train, args.test)
    print_header(data, f"numpy {np.__version__}")
    try:
        import cornac  # noqa: F401

        have_cornac = True
    except ImportError:
        have_cornac = False
        print("cornac is not installed: the anchor is skipped (pip install cornac)")
    fit(data, epochs=1)  # numba compilation outside the timing
    test_mask, train_mask = data.test_mask(), data.train_mask()
    ours, theirs, theirs1, ratios, ratios1 = [], [], [], [], []
    for r in range(args.repeat):
        if have_cornac:
            t_c, sc = run_cornac(
                data, args.epochs, seed=r
            )  # default: all cores (Hogwild, not reproducible)
            theirs.append((t_c, topk_metrics(sc, test_mask, train_mask, 10)["ndcg@10"]))
            t_c1, sc = run_cornac(data, args.epochs, seed=r, num_threads=1)
            theirs1.append((t_c1, topk_metrics(sc, test_mask, train_mask, 10)["ndcg@10"]))
        t0 = time.perf_counter()
        res = fit(data, epochs=args.epochs, evaluation=Evaluation(every=args.epochs), rng=r)
        t_n = time.perf_counter() - t0
        ours.append((t_n, res.history[-1]["test_ndcg@10"]))
        if have_cornac:
            ratios.append(t_n / t_c)
            ratios1.append(t_n / t_c1)
    print(f"\nBPR-MF, {args.epochs} epochs, d = 32 (median of {args.repeat} interleaved runs)")
    print(
        f"  negtheory fit(RNS())     : {statistics.median(t for t, _ in ours):7.2f} s   "
        f"NDCG@10 {statistics.mean(n for _, n in ours):.4f}  (includes one evaluation)"
    )
    if have_cornac:
        print(
            f"  cornac BPR (all cores)   : {statistics.median(t for t, _ in theirs):7.2f} s   "
            f"NDCG@10 {statistics.mean(n for _, n in theirs):.4f}"
        )
        print(
            f"  cornac BPR (1 thread)    : {statistics.median(t for t, _ in theirs1):7.2f} s   "
            f"NDCG@10 {statistics.mean(n for _, n in theirs1):.4f}"
        )
        med, med1 = statistics.median(ratios), statistics.median(ratios1)
        print(
            f"  time ratio negtheory / cornac (all cores): {med:.2f}x  (goal <= 2x: {'met' if med <= 2 else 'NOT met'})"
        )
        print(
            f"  time ratio negtheory / cornac (1 thread) : {med1:.2f}x  (negtheory is single-threaded and reproducible)"
        )
    print(
        f"\nscore-based samplers (score every item for each step), {args.samplers_epochs} epochs each:"
    )
    for sampler in (DNS(), BNS(), AOBPR(), BNS(candidates=20, prior="oracle")):
        fit(data, sampler=sampler, epochs=1)
        t0 = time.perf_counter()
        fit(
            data,
            sampler=sampler,
            epochs=args.samplers_epochs,
            evaluation=Evaluation(every=args.samplers_epochs),
        )
        per = (time.perf_counter() - t0) / args.samplers_epochs
        print(f"  {sampler!r:47s} {per:6.2f} s/epoch  (~{per * 100 / 60:.1f} min per 100 epochs)")


if __name__ == "__main__":
    main()
