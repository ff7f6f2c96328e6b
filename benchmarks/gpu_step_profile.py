"""Where one mini-batch step of the Gowalla ladder spends its device time (issue 29).

Trains each named rung of ``negtheory reproduce gowalla-benchmark`` for a few steps on a slice
of Gowalla's training pairs (the step's cost depends on the batch size and the number of
negatives, not on the number of pairs) under ``torch.profiler``, and prints the wall time per
step and the operators that take the most device (or, without a GPU, host) time.

Usage: ``python benchmarks/gpu_step_profile.py DATA_DIR [--rungs bpr-300 infonce] [--pairs 40960]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    import torch
    from torch.profiler import ProfilerActivity, profile

    from negtheory.recsys import Interactions
    from negtheory.recsys.datasets import thesis_split
    from negtheory.reproduce.gowalla_benchmark import RUNGS, rung_specs
    from negtheory.training import fit

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data")
    p.add_argument("--rungs", nargs="+", default=["bpr-300", "infonce"], choices=list(RUNGS))
    p.add_argument(
        "--pairs", type=int, default=40960, help="training pairs per epoch (20 steps of 2048)"
    )
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--rows", type=int, default=18)
    a = p.parse_args()
    full = thesis_split("gowalla-lightgcn", a.data)
    rng = np.random.default_rng(0)
    sub = full.train[rng.choice(len(full.train), size=min(a.pairs, len(full.train)), replace=False)]
    small = Interactions(full.n_users, full.n_items, sub, full.test[:0])
    cuda = a.device.startswith("cuda")
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    for rung in a.rungs:
        specs = rung_specs(rung)
        fit(small, **specs, epochs=1, rng=0, device=a.device)  # warm-up: kernels, allocator
        if cuda:
            torch.cuda.synchronize()
        steps = -(-len(sub) // specs["optimizer"].batch_size)
        t0 = time.perf_counter()
        with profile(activities=acts) as prof:
            fit(small, **specs, epochs=2, rng=1, device=a.device)
            if cuda:
                torch.cuda.synchronize()
        wall = time.perf_counter() - t0
        print(
            f"== {rung}: {2 * steps} steps in {wall:.2f} s ({1e3 * wall / (2 * steps):.2f} ms/step wall, "
            f"incl. the end-of-run evaluation), device {a.device}"
        )
        key = "cuda_time_total" if cuda else "cpu_time_total"
        try:
            print(
                prof.key_averages().table(sort_by=key, row_limit=a.rows, max_name_column_width=60)
            )
        except Exception as exc:  # an older profiler names the column differently
            print(f"(profiler table by {key} failed: {exc}); by self CPU time:")
            print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=a.rows))


if __name__ == "__main__":
    main()
