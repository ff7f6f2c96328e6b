"""One MF training step with many negatives per row on the CPU: torch's ops against the fused path.

The step is the one ``negtheory.training.fit`` takes for MF with ``RNS(on_device=True)`` on a Gowalla-sized table
(29 858 users, 40 981 items, d = 64), in two settings:

* ``mfccl``: MF-CCL's released setting, batch 256, N = 800 negatives per row, cosine scores, InfoNCE (t = 0.1),
  Adam lr 1e-4;
* ``bpr300``: the BARS BPR setting, batch 2 048, N = 300 negatives per row, inner product, BPR, Adam lr 1e-3.

Each step draws the negatives, scores the rows, back-propagates and updates. Three variants run interleaved,
``--reps`` rounds of ``--steps`` steps each, and the median time per step is reported with the median over rounds
of the ratio to the baseline measured in the same round:

* ``torch``: the scores by torch's gather / ``bmm`` / scatter, the default (foreach) Adam, the sampler's single
  ``searchsorted`` over every user's keys (the path before the fused kernels);
* ``fused-scores``: the fused gather-score kernels (:mod:`negtheory.bridge.gathered_scores`), the rest as ``torch``;
* ``fused-1thread``: the package's CPU path (fused scores, torch's fused Adam, per-row search in the sampler) with
  the kernels' serial compilation, as under ``OMP_NUM_THREADS=1``;
* ``fused``: what the package runs now on the CPU: the same, with the kernels' ``parallel=True`` compilation when
  the process has several threads (the same bits; :mod:`negtheory.bridge.gathered_scores`, "Threads").

Usage: python benchmarks/bench_gathered_scores.py [--setting mfccl bpr300] [--steps 20] [--reps 5]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numba
import numpy as np
import torch

import negtheory
import negtheory.bridge.gathered_scores as gs
import negtheory.bridge.recommend as rec
from negtheory.bridge import functional as Fn
from negtheory.bridge.device_sampling import UniformFreeSampler

SETTINGS = {
    "mfccl": dict(batch=256, negatives=800, cosine=True, loss="infonce", lr=1e-4),
    "bpr300": dict(batch=2048, negatives=300, cosine=False, loss="bpr", lr=1e-3),
}
N_USERS, N_ITEMS, DIM, DEG = (
    29_858,
    40_981,
    64,
    27,
)  # Gowalla's size; 27 training items a user (its mean)


def _csr(rng):
    indptr = np.arange(N_USERS + 1, dtype=np.int64) * DEG
    indices = np.concatenate(
        [rng.choice(N_ITEMS, DEG, replace=False) for _ in range(N_USERS)]
    ).astype(np.int64)
    return indptr, indices


class _Variant:
    def __init__(self, name, cfg, csr, seed):
        self.name, self.cfg = name, cfg
        self.model = rec.MF(
            N_USERS,
            N_ITEMS,
            DIM,
            generator=torch.Generator().manual_seed(seed),
            cosine=cfg["cosine"],
        )
        fused_adam = {"fused": True} if name.startswith("fused") and name != "fused-scores" else {}
        self.opt = torch.optim.Adam(self.model.parameters(), lr=cfg["lr"], **fused_adam)
        self.sampler = UniformFreeSampler(csr, N_ITEMS)
        if name in ("torch", "fused-scores"):
            self.sampler._host = None  # the global searchsorted of free_item
        self.gen = torch.Generator().manual_seed(seed)
        self.rng = np.random.default_rng(seed)
        self.csr = csr

    def step(self):
        cfg = self.cfg
        u = self.rng.integers(0, N_USERS, cfg["batch"])
        indptr, indices = self.csr
        pos = indices[indptr[u] + self.rng.integers(0, DEG, cfg["batch"])]
        ut = torch.from_numpy(u)
        items = torch.cat(
            [torch.from_numpy(pos)[:, None], self.sampler.draw(ut, cfg["negatives"], self.gen)],
            dim=1,
        )
        old, threads = rec._FUSED_MIN_K, gs._threads
        rec._FUSED_MIN_K = 10**9 if self.name == "torch" else old
        if self.name != "fused":  # the serial kernels (the path before the parallel compilation)
            gs._threads = lambda work: 1
        try:
            s = self.model(ut, items)
            if cfg["loss"] == "infonce":
                s = s / 0.1
                loss = Fn.infonce(s[:, 0], s[:, 1:])
            else:
                loss = Fn.bpr(s[:, 0], s[:, 1:])
            self.opt.zero_grad()
            loss.backward()  # the backward pass reads the thread count saved by the forward
        finally:
            rec._FUSED_MIN_K, gs._threads = old, threads
        self.opt.step()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--setting", nargs="+", choices=list(SETTINGS), default=list(SETTINGS))
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--reps", type=int, default=5)
    args = p.parse_args(argv)
    print(
        f"negtheory {negtheory.__version__}, torch {torch.__version__}, {platform.processor() or platform.machine()}, "
        f"torch threads {torch.get_num_threads()}"
    )
    csr = _csr(np.random.default_rng(0))
    names = ("torch", "fused-scores", "fused-1thread", "fused")
    for setting in args.setting:
        cfg = SETTINGS[setting]
        variants = [_Variant(n, cfg, csr, seed=1) for n in names]
        for v in variants:  # warm-up: numba compilation / cache load, allocator
            v.step()
        times = {n: [] for n in names}
        for _ in range(args.reps):
            for v in variants:
                t0 = time.perf_counter()
                for _ in range(args.steps):
                    v.step()
                times[v.name].append((time.perf_counter() - t0) / args.steps)
        print(
            f"\n{setting}: batch {cfg['batch']}, N = {cfg['negatives']}, cosine {cfg['cosine']}, {cfg['loss']}"
        )
        for n in names:
            ratio = statistics.median(b / a for a, b in zip(times[n], times["torch"]))
            print(
                f"  {n:13s} {statistics.median(times[n]) * 1e3:8.1f} ms/step   speed-up over torch {ratio:5.2f}x"
            )
        par = statistics.median(a / b for a, b in zip(times["fused-1thread"], times["fused"]))
        print(
            f"  fused over fused-1thread: {par:5.2f}x (torch threads {torch.get_num_threads()}, numba threads "
            f"{numba.get_num_threads()})"
        )


if __name__ == "__main__":
    main()
