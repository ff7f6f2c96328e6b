"""Table 6.8 in a full training step: time per step with each loss, on the CPU or on CUDA.

Two parts, each a whole training step as the mini-batch engine of :func:`negtheory.training.fit` runs it (numpy
sampling of the batch's negatives and extra positives, host-to-device copy, scores, loss,
backward, optimiser step, the loss read back for the epoch's mean):

* ``mf``: the mini-batch MF of Table 6.3 (:data:`~negtheory.training.RELEASED_MINIBATCH_MF`: d = 32, batch 1024, N = 5
  negatives, M = 5 extra positives for DCL / HCL / DPL, Adam lr 1e-3, weight decay 1e-5) on a
  synthetic MovieLens-100K-sized split (943 users, 1 682 items, 80 000 training pairs: 79 steps an
  epoch; ``bench_training.synthetic_split``);
* ``lightgcn``: one epoch of LightGCN with the LightGCN release's Gowalla settings (d = 64, 3
  layers, batch 2048, Adam lr 1e-3, L2 1e-4 on the batch's layer-0 embeddings) on a synthetic
  Gowalla-sized split (29 858 users, 40 981 items, 810 128 training pairs: 396 steps an epoch;
  every step propagates the whole graph). ``--gowalla-scale`` shrinks it for a quick check.

No evaluation is timed: the steps run through the trainer's own epoch runner. Every loss has its
own model, optimiser and sampler stream; after a warm-up epoch each (kernel, allocator and numba
warm-up) the losses run one epoch each in turn, ``--reps`` times, and the median epoch time is
reported with the median over reps of the per-rep ratio to InfoNCE (the two epochs ran back to
back). On CUDA, "peak" is the device memory an epoch allocates beyond what was live before it (the
models and optimiser states of all losses, kept between epochs). "BCL overhead" is (BCL step - InfoNCE step) / InfoNCE step; the goal is <= 5 %.

Usage: python benchmarks/bench_steps.py [--device cpu|cuda] [--part mf lightgcn] [--reps 3]
       [--losses bpr infonce dcl hcl dpl bcl] [--gowalla-scale 1.0] [--csv FILE]
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import time

import numpy as np
import torch
from bench_training import synthetic_split

import negtheory
from negtheory.bridge.recommend import MF, LightGCN, _MFRunner
from negtheory.recsys import Interactions

LOSSES = ("bpr", "infonce", "dcl", "hcl", "dpl", "bcl")

# the released code of thesis ch. 5-6, Table 6.3 (negtheory.training.RELEASED_MINIBATCH_MF, N = M = 5)
MF_CFG = dict(
    dim=32,
    batch_size=1024,
    lr=1e-3,
    weight_decay=1e-5,
    reg="weight_decay",
    negatives=5,
    extra_positives=5,
)
# the LightGCN release's Gowalla run (dim 64, 3 layers, bpr_batch 2048, lr 1e-3, decay 1e-4 on the batch's embeddings)
LIGHTGCN_CFG = dict(
    dim=64,
    n_layers=3,
    batch_size=2048,
    lr=1e-3,
    weight_decay=1e-4,
    reg="batch",
    negatives=5,
    extra_positives=5,
)
LOSS_CFG = dict(temperature=1.0, tau_plus=0.06, hcl_beta=0.5, alpha=0.55, beta=0.6, dpl_eps=1e-2)

GOWALLA = dict(n_users=29_858, n_items=40_981, n_train=810_128, n_test=217_242)


def gowalla_like(scale=1.0, seed=0) -> Interactions:
    """A synthetic split of Gowalla's size (LightGCN release): activity-skewed users with >= 10 items
    (the 10-core filter), popularity-skewed items; exactly ``n_train`` unique training pairs."""
    rng = np.random.default_rng(seed)
    nu, ni = (max(20, round(GOWALLA[k] * scale)) for k in ("n_users", "n_items"))
    n_train, n_test = (max(200, round(GOWALLA[k] * scale)) for k in ("n_train", "n_test"))
    total = n_train + n_test
    act = rng.lognormal(0.0, 1.0, nu)
    k = np.maximum(10, np.round(act / act.sum() * total * 1.08)).astype(np.int64)
    pop = rng.pareto(1.0, ni) + 1.0
    pop /= pop.sum()
    users = np.repeat(np.arange(nu, dtype=np.int64), k)
    code = np.empty(0, dtype=np.int64)
    for _ in range(20):  # popular items repeat within a user: draw again until enough unique pairs
        code = np.unique(
            np.concatenate([code, users * ni + rng.choice(ni, size=users.size, p=pop)])
        )
        if code.size >= total:
            break
    else:
        raise RuntimeError(f"only {code.size} unique pairs drawn for {total}")
    code = code[rng.permutation(code.size)]
    pairs = np.stack([code // ni, code % ni], axis=1)[:total]
    return Interactions(
        nu,
        ni,
        pairs[:n_train],
        pairs[n_train:],
        name=f"synthetic Gowalla-sized split (scale {scale})",
    )


def make_runner(data, loss, model, cfg, dev, seed=0):
    """The mini-batch engine's epoch runner of ``fit(data, ...)`` with these settings (same construction, no evaluation)."""
    gen = torch.Generator().manual_seed(seed)
    if model == "lightgcn":
        net = LightGCN(
            data.n_users, data.n_items, data.train, cfg["dim"], cfg["n_layers"], generator=gen
        ).to(dev)
    else:
        net = MF(data.n_users, data.n_items, cfg["dim"], generator=gen).to(dev)
    decay = cfg["weight_decay"] if cfg["reg"] == "weight_decay" else 0.0
    opt = torch.optim.Adam(net.parameters(), lr=cfg["lr"], weight_decay=decay)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[10_000], gamma=0.1)
    m_extra = cfg["extra_positives"] if loss in ("dcl", "hcl", "dpl") else 0
    n_neg = 1 if loss == "bpr" else cfg["negatives"]
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    batch_l2 = cfg["weight_decay"] if cfg["reg"] == "batch" else 0.0
    return _MFRunner(
        net,
        opt,
        sched,
        loss,
        dict(LOSS_CFG),
        data,
        m_extra,
        n_neg,
        cfg["batch_size"],
        dev,
        rng,
        batch_l2=batch_l2,
    )


def _sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def time_epochs(data, model, cfg, losses, reps, dev, label):
    """Median seconds per epoch of each loss (interleaved), the per-rep ratios to InfoNCE, peak memory."""
    runners = {}
    for loss in losses:
        runners[loss] = make_runner(data, loss, model, cfg, dev)
    steps = math.ceil(len(data.train) / cfg["batch_size"])
    peak = {}
    for loss, r in runners.items():  # warm-up epoch (and the peak device memory of an epoch)
        if dev.type == "cuda":
            _sync(dev)
            base = (
                torch.cuda.memory_allocated()
            )  # every runner's model and optimiser state (the others' too)
            torch.cuda.reset_peak_memory_stats()
        r.run_epoch(0)
        _sync(dev)
        if dev.type == "cuda":
            peak[loss] = (torch.cuda.max_memory_allocated() - base) / 2**20
    times = {loss: [] for loss in losses}
    for rep in range(reps):
        for loss, r in runners.items():
            _sync(dev)
            t0 = time.perf_counter()
            r.run_epoch(rep + 1)
            _sync(dev)
            times[loss].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = (
        {k: statistics.median(a / b for a, b in zip(v, times["infonce"])) for k, v in times.items()}
        if "infonce" in times
        else {}
    )
    print(
        f"\n[{label}] {data.name}: {data.n_users} users, {data.n_items} items, {len(data.train)} training pairs; "
        f"batch {cfg['batch_size']}, {steps} steps an epoch; median of {reps} epochs per loss"
    )
    for k in losses:
        r = f"  x{ratio[k]:.3f} InfoNCE" if k in ratio else ""
        m = f"  peak {peak[k]:8.1f} MiB" if k in peak else ""
        print(f"  {k:8s} {med[k]:8.3f} s/epoch  {1e3 * med[k] / steps:8.3f} ms/step{r}{m}")
    if "bcl" in ratio:
        over = ratio["bcl"] - 1.0
        print(
            f"  BCL overhead over InfoNCE: {100 * over:+.1f} % of a step  goal <= 5 %  {'met' if over <= 0.05 else 'NOT met'}"
        )
    return med, ratio, peak, steps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--part", nargs="+", default=["mf", "lightgcn"], choices=["mf", "lightgcn"])
    ap.add_argument("--losses", nargs="+", default=list(LOSSES), choices=list(LOSSES))
    ap.add_argument(
        "--reps", type=int, default=3, help="timed epochs per loss (after one warm-up epoch)"
    )
    ap.add_argument(
        "--lightgcn-reps",
        type=int,
        default=None,
        help="timed LightGCN epochs per loss (default: --reps)",
    )
    ap.add_argument(
        "--gowalla-scale",
        type=float,
        default=1.0,
        help="size of the Gowalla-like split relative to Gowalla",
    )
    ap.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch threads (default: torch's; the package never sets it)",
    )
    ap.add_argument("--csv", help="also write one row per (part, loss) to this CSV file")
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    where = (
        f"gpu {torch.cuda.get_device_name(dev)}, CUDA {torch.version.cuda}"
        if dev.type == "cuda"
        else platform.machine()
    )
    print(
        f"negtheory {negtheory.__version__}, torch {torch.__version__}, {where}, torch threads {torch.get_num_threads()}"
    )
    rows = []
    if "mf" in args.part:
        data = synthetic_split()
        med, ratio, peak, steps = time_epochs(
            data, "mf", MF_CFG, args.losses, args.reps, dev, "mini-batch MF, Table 6.3"
        )
        rows += [
            ("mf", k, med[k], 1e3 * med[k] / steps, ratio.get(k, math.nan), peak.get(k, math.nan))
            for k in args.losses
        ]
    if "lightgcn" in args.part:
        t0 = time.perf_counter()
        data = gowalla_like(args.gowalla_scale)
        print(f"\n(synthetic Gowalla-sized split generated in {time.perf_counter() - t0:.1f} s)")
        reps = args.lightgcn_reps or args.reps
        med, ratio, peak, steps = time_epochs(
            data, "lightgcn", LIGHTGCN_CFG, args.losses, reps, dev, "LightGCN epoch, Gowalla size"
        )
        rows += [
            (
                "lightgcn",
                k,
                med[k],
                1e3 * med[k] / steps,
                ratio.get(k, math.nan),
                peak.get(k, math.nan),
            )
            for k in args.losses
        ]
    if args.csv:
        with open(args.csv, "w") as fh:
            fh.write("part,loss,s_per_epoch,ms_per_step,ratio_to_infonce,peak_mib\n")
            fh.writelines(
                f"{p},{k},{s:.6g},{ms:.6g},{r:.6g},{m:.6g}\n" for p, k, s, ms, r, m in rows
            )


if __name__ == "__main__":
    main()
