"""Step time of BCL / DPL against InfoNCE / BPR at batch 256, N = 510 (the thesis's image setting).

One "step" = forward of the loss on precomputed logits (pos [A], neg [A, N]) with A = 2B = 512
anchors (the in-batch SimCLR arrangement of B = 256 pairs gives N = 2B - 2 = 510), plus backward.
Prints the median time per step and the ratio to the baseline measured in the same run:
BCL (and DCL, HCL) vs InfoNCE, DPL vs BPR. On CUDA the device is synchronised around each step.

Usage: python benchmarks/bench_bridge.py [--device cpu|cuda] [--repeats R] [--dtype float32|bfloat16]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from negtheory.bridge import functional as Fn


def bench(fn, pos, neg, repeats, device):
    def step():
        p = pos.detach().requires_grad_()
        n = neg.detach().requires_grad_()
        fn(p, n).backward()

    for _ in range(5):  # warm-up (allocator, kernels)
        step()
    times = []
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16", "float64"])
    ap.add_argument("--batch", type=int, default=256)
    args = ap.parse_args(argv)
    device = torch.device(args.device)
    dtype = getattr(torch, args.dtype)
    g = torch.Generator(device="cpu").manual_seed(0)
    a = 2 * args.batch
    n = 2 * args.batch - 2
    pos = (torch.rand(a, generator=g) * 2 - 1).div(0.5).to(device, dtype)
    neg = (torch.rand(a, n, generator=g) * 2 - 1).div(0.5).to(device, dtype)
    losses = {
        "infonce": lambda p, q: Fn.infonce(p, q),
        "dcl": lambda p, q: Fn.dcl(p, q, 0.1, floor=2.718281828 ** -2),
        "hcl": lambda p, q: Fn.hcl(p, q, 0.1, 1.0, floor=2.718281828 ** -2),
        "bcl": lambda p, q: Fn.bcl(p, q, 0.9, 0.5, 0.1),
        "bpr": lambda p, q: Fn.bpr(p, q),
        "dpl": lambda p, q: Fn.dpl(p, q, 0.1),
    }
    t = {k: bench(f, pos, neg, args.repeats, device) for k, f in losses.items()}
    print(f"device={device} dtype={args.dtype} anchors={a} N={n} torch={torch.__version__} threads={torch.get_num_threads()}")
    for name, base in (("infonce", None), ("dcl", "infonce"), ("hcl", "infonce"), ("bcl", "infonce"), ("bpr", None), ("dpl", "bpr")):
        ratio = f"  ratio vs {base}: {t[name] / t[base]:.3f}  (overhead {100 * (t[name] / t[base] - 1):+.1f} %)" if base else ""
        print(f"{name:8s} {1e3 * t[name]:8.3f} ms/step{ratio}")
    return t


if __name__ == "__main__":
    main()
