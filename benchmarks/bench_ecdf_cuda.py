"""BCL's eCDF counts on CUDA: where the time of a large in-batch BCL step goes, and exact alternatives.

BCL needs, for every score of a row, #{j : s_j <= s_i} (ties share the largest count). The bridge
gets it from ``torch.sort(stable=True)`` of each row, a reversed running minimum over the sorted
row and a scatter back. torch sorts rows of up to 4096 entries in one block each; longer rows
go through a segmented radix sort, which made BCL 5-6x InfoNCE at B = 4096-8192 (N = 8190-16382)
on an H200. Variants timed here, every one exact (checked against the first on every size):

* ``sort_stable`` -- the bridge's path (sort + run ends + scatter);
* ``sort``        -- the same without stability (ties get equal counts whatever their order);
* ``search``      -- sorted values, then ``searchsorted(sorted, s, right=True)``: the count directly,
  no indices, no scatter;
* ``chunks``      -- the row cut into chunks of <= 4096 columns (padded with +inf), each sorted in
  the one-block path, the count the sum of one ``searchsorted`` per chunk.

Also one BCL and one InfoNCE forward + backward on the same logits for scale. Medians of CUDA-event
timings (3 warm-ups, 10 runs). Usage: python benchmarks/bench_ecdf_cuda.py [--device cuda] [--rows ...]
"""

from __future__ import annotations

import argparse
import math
import statistics

import torch

from negtheory.bridge import functional as Fn


def sort_stable(s):
    srt, order = torch.sort(s, dim=-1, stable=True)
    return torch.empty_like(order).scatter_(-1, order, Fn._run_end_counts(srt))


def sort_unstable(s):
    srt, order = torch.sort(s, dim=-1)
    return torch.empty_like(order).scatter_(-1, order, Fn._run_end_counts(srt))


def search(s):
    return torch.searchsorted(torch.sort(s, dim=-1).values, s, right=True)


def chunks(s, width=4096):
    r, n = s.shape
    k = math.ceil(n / width)
    c = math.ceil(n / k)
    pad = torch.full((r, k * c - n), math.inf, dtype=s.dtype, device=s.device)
    srt = torch.sort(torch.cat([s, pad], dim=1).view(r, k, c), dim=-1).values
    cnt = torch.searchsorted(srt[:, 0].contiguous(), s, right=True)
    for j in range(1, k):
        cnt += torch.searchsorted(srt[:, j].contiguous(), s, right=True)
    return cnt


VARIANTS = {"sort_stable": sort_stable, "sort": sort_unstable, "search": search, "chunks": chunks}


def timed(fn, device, reps=10, warm=3):
    for _ in range(warm):
        fn()
    if device.type != "cuda":
        import time

        out = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
        return 1e3 * statistics.median(out)
    out = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b))
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument(
        "--rows",
        type=int,
        nargs="+",
        default=[2048, 4096, 8192, 16384],
        help="anchors 2B (N = 2B - 2)",
    )
    args = ap.parse_args()
    dev = torch.device(args.device)
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    print(
        f"device {name}, torch {torch.__version__}, CUDA {torch.version.cuda}; ms per call (median of 10)"
    )
    print(
        f"{'rows x N':>14s} "
        + " ".join(f"{k:>12s}" for k in VARIANTS)
        + f" {'bcl f+b':>9s} {'infonce f+b':>11s}"
    )
    g = torch.Generator(device="cpu").manual_seed(0)
    for r in args.rows:
        n = r - 2
        s = ((torch.rand(r, n, generator=g) * 2 - 1) / 0.5).to(
            dev
        )  # cosine / t = 0.5, as the benchmark
        s[0, : n // 3] = s[0, 0]  # a long run of ties
        ref = sort_stable(s)
        row = []
        for f in VARIANTS.values():
            ok = torch.equal(f(s), ref)
            row.append(f"{timed(lambda: f(s), dev):9.3f}{'   ' if ok else ' !!'}")
        pos = s[:, 0].clone()

        def step(loss):
            p, q = pos.detach().requires_grad_(), s.detach().requires_grad_()
            loss(p, q).backward()

        tb = timed(lambda: step(lambda p, q: Fn.bcl(p, q, 0.9, 0.5, 0.1)), dev)
        ti = timed(lambda: step(Fn.infonce), dev)
        print(f"{r:>6d} x {n:<6d} " + " ".join(row) + f" {tb:9.3f} {ti:11.3f}")
        s = ref = None  # free the device memory before the next size
        if dev.type == "cuda":
            torch.cuda.empty_cache()
    print("(!! marks a variant whose counts differ from sort_stable's)")


if __name__ == "__main__":
    main()
