"""Bridge losses against peers: step time and peak memory, measured interleaved in one run.

Two parts, both "one step" = forward + backward:

* **modules** on embeddings [B, D] (D = 128, B = 256 and 1024 by default): negtheory's
  InfoNCE / DCL / HCL / BCL modules (symmetric in-batch: 2B anchors, N = 2B - 2 negatives)
  against a plain-torch NT-Xent written below (one matmul, diagonal masked, cross-entropy: the
  usual SimCLR implementation) and, when installed, lightly's ``NTXentLoss`` and
  pytorch-metric-learning's ``NTXentLoss`` (called the PML way, ``loss(embeddings, labels)``);
  BPR and DPL modules with in-batch negatives (B anchors, N = B - 1).
* **logits**: the functionals on precomputed logits (pos [2B], neg [2B, 2B - 2]).

Every round times each loss once, in turn, so that load on a shared machine hits all of them
alike; the median over rounds is reported, and each ratio is the median over rounds of the
per-round ratio (the two steps ran back to back), with the goals the issue sets:
InfoNCE / fastest peer (goal <= 1.0), DCL, HCL / InfoNCE (<= 1.2), BCL / InfoNCE (<= 1.5 on the
CPU, <= 1.2 on CUDA), DPL / BPR (<= 1.5). Peak memory of one step is read from torch's profiler (allocations made
through torch's allocator) plus numpy's share traced by ``tracemalloc``, plus the key buffer
BCL's CPU sort keeps between steps.
On CUDA the device is synchronised around each timed sample (``--inner`` steps back to back, 10
by default there, so that a sample is not a single launch-bound step) and
``torch.cuda.max_memory_allocated`` gives the peak of one step beyond what was live before it.
CUDA runs every loss in this process (the page-fault effect below is the CPU heap's; CUDA's caching
allocator keeps its blocks), and ``--dtype`` takes several dtypes (e.g. ``float32 bfloat16``).

Each module runs in its own worker process (``--same-process`` runs them all in this one):
a training run calls one loss over and over, and its step time includes the page faults of
its own steady state -- glibc returns large freed blocks to the system and faults them back
in, about 2 us per 4 KiB page. Run in one process, each loss instead inherits the heap the
previous one left (measured at B = 1024: plain-torch NT-Xent 23 000 faults per step after
the others, 3 500-4 600 on its own; InfoNCE 4 000 against 8 700), which moves ratios by up
to 2x either way. The workers are stepped one at a time, in turn, so the interleaving (and
its fairness under load) is kept; each reports its step time and its page faults.

How many faults a loss takes in its steady state is up to glibc's heuristics (its dynamic mmap
and trim thresholds), and differs from run to run for the same code: InfoNCE took 0, 1 536 and
7 936 faults per step at B = 1024 in three runs (up to 16 ms of a 55 ms step). ``--malloc keep``
starts the workers with ``MALLOC_MMAP_THRESHOLD_`` (32 MiB, glibc's largest) and
``MALLOC_TRIM_THRESHOLD_`` (4 GiB) set, so freed blocks stay mapped and reused and a step costs
its computation only (about what jemalloc / tcmalloc or a long-running process give); the
default ``--malloc default`` leaves glibc as a user's process has it.

Usage: python benchmarks/bench_bridge.py [--device cpu|cuda] [--batch 256 1024] [--rounds R]
       [--threads T] [--dim D] [--part modules logits] [--same-process] [--malloc default|keep]
       [--dtype float32 bfloat16] [--inner K] [--csv FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import multiprocessing as mp
import os
import resource
import statistics
import sys
import time
import tracemalloc

import torch
import torch.nn.functional as F

from negtheory.bridge import functional as Fn
from negtheory.bridge import losses as M

TEMPERATURE = 0.5


def plain_ntxent(temperature=TEMPERATURE):
    """NT-Xent as usually written in plain torch (SimCLR): the reference peer."""

    def loss(a, p):
        z = F.normalize(torch.cat([a, p]), dim=-1)
        b = a.shape[0]
        sim = z @ z.T / temperature
        sim = sim.masked_fill(torch.eye(2 * b, dtype=torch.bool, device=z.device), -math.inf)
        target = (torch.arange(2 * b, device=z.device) + b) % (2 * b)
        return F.cross_entropy(sim, target)

    return loss


def peers():
    out = {"plain-ntxent": plain_ntxent()}
    try:
        from lightly.loss import NTXentLoss as LightlyNTXent

        out["lightly-ntxent"] = LightlyNTXent(temperature=TEMPERATURE)
    except Exception:  # noqa: BLE001 - optional peer: absent or broken install
        pass
    try:
        from pytorch_metric_learning.losses import NTXentLoss as PMLNTXent

        pml = PMLNTXent(temperature=TEMPERATURE)

        def pml_call(a, p, _loss=pml):
            b = a.shape[0]
            labels = torch.arange(b, device=a.device).repeat(2)
            return _loss(torch.cat([a, p]), labels)

        out["pml-ntxent"] = pml_call
    except Exception:  # noqa: BLE001
        pass
    return out


def module_losses():
    return {
        "infonce": M.InfoNCELoss(TEMPERATURE),
        "dcl": M.DebiasedContrastiveLoss(0.1, TEMPERATURE),
        "hcl": M.HardContrastiveLoss(0.1, 1.0, TEMPERATURE),
        "bcl": M.BayesianContrastiveLoss(0.9, 0.5, 0.1, TEMPERATURE),
        "bpr": M.BPRLoss(),
        "dpl": M.DPLLoss(0.1),
    }


def logit_losses():
    return {
        "infonce": lambda p, q: Fn.infonce(p, q),
        "dcl": lambda p, q: Fn.dcl(p, q, 0.1, floor=math.exp(-2.0)),
        "hcl": lambda p, q: Fn.hcl(p, q, 0.1, 1.0, floor=math.exp(-2.0)),
        "bcl": lambda p, q: Fn.bcl(p, q, 0.9, 0.5, 0.1),
        "bpr": lambda p, q: Fn.bpr(p, q),
        "dpl": lambda p, q: Fn.dpl(p, q, 0.1),
    }


def _sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def _faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _timed(step, device, inner=1):
    """(seconds, page faults) per call of ``step``, over ``inner`` calls back to back with the device
    synchronised around them."""
    _sync(device)
    f0 = _faults()
    t0 = time.perf_counter()
    for _ in range(inner):
        step()
    _sync(device)
    return (time.perf_counter() - t0) / inner, (_faults() - f0) / inner


def interleaved(steps: dict, rounds: int, device, per_round=None, faults=None, inner=1) -> dict:
    """Median seconds of each step, timing every step once per round, in turn.

    ``per_round``: a dict that receives every step's list of times (one per round), for ratios
    taken round by round (paired: the two steps ran back to back, under the same load).
    ``faults``: a dict that receives every step's median page faults."""
    for f in steps.values():  # warm-up (allocator, kernels, numba-free first calls)
        for _ in range(2):
            f()
    times = {k: [] for k in steps}
    flt = {k: [] for k in steps}
    for _ in range(rounds):
        for k, f in steps.items():
            dt, nf = _timed(f, device, inner)
            times[k].append(dt)
            flt[k].append(nf)
    if per_round is not None:
        per_round.update(times)
    if faults is not None:
        faults.update({k: statistics.median(v) for k, v in flt.items()})
    return {k: statistics.median(v) for k, v in times.items()}


def peak_memory(step, device) -> float:
    """Peak bytes allocated during one step (beyond what was live before it)."""
    step()
    if device.type == "cuda":
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        step()
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - base
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True):  # warm-up of the profiler
        step()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        tracemalloc.start()
        step()
        np_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    events = sorted(
        (e.start_ns(), e.nbytes())
        for e in prof.profiler.kineto_results.events()
        if e.name() == "[memory]"
    )
    live = peak = 0
    for _, nb in events:
        live += nb
        peak = max(peak, live)
    return peak + np_peak


def _ratio(t, a, b):
    """Median over rounds of the per-round ratio a / b (t: lists of per-round times)."""
    if a not in t or b not in t:
        return float("nan")
    return statistics.median(x / y for x, y in zip(t[a], t[b]))


def _module_step(name, batch, dim, device, dtype):
    """One training step (forward + backward) of the named loss on a fixed batch."""
    g = torch.Generator(device="cpu").manual_seed(0)
    a = torch.randn(batch, dim, generator=g).to(device, dtype).requires_grad_()
    p = (a.detach() + 0.5 * torch.randn(batch, dim, generator=g).to(device, dtype)).requires_grad_()
    f = {**peers(), **module_losses()}[name]

    def step():
        a.grad = p.grad = None
        f(a, p).backward()

    return step


@contextlib.contextmanager
def _quiet_stderr():
    """Silence file descriptor 2 (torch's profiler prints its start and stop lines there)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _worker(conn, name, batch, dim, device, dtype, threads):
    """A process holding one loss: steps it on request and reports (seconds, page faults);
    "memory" measures one step's peak memory (after the timing, so the profiler cannot change
    the heap the timed steps see)."""
    torch.set_num_threads(threads)
    device = torch.device(device)
    step = _module_step(name, batch, dim, device, getattr(torch, dtype))
    for _ in range(2):  # warm-up: the allocator's steady state
        step()
    conn.send("ready")
    while (cmd := conn.recv()) != "stop":
        if cmd == "memory":
            with _quiet_stderr():
                peak = peak_memory(step, device)
            # BCL's CPU sort keeps its key and permutation buffers between steps (not allocated
            # within the measured step once warm): count them, it is memory the loss holds
            conn.send(peak + Fn._workspace_nbytes())
            continue
        conn.send(_timed(step, device))
    conn.close()


# glibc reads these at start-up: freed blocks stay mapped (32 MiB is its largest mmap threshold)
MALLOC_KEEP = {"MALLOC_MMAP_THRESHOLD_": str(32 * 2**20), "MALLOC_TRIM_THRESHOLD_": str(4 * 2**30)}


@contextlib.contextmanager
def _environ(extra):
    old = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _run_isolated(names, batch, dim, rounds, device, dtype, memory, malloc="default"):
    """Per-round times, median faults and peak memory, one worker process per loss."""
    ctx = mp.get_context("spawn")
    workers = {}
    try:
        for k in names:
            here, there = ctx.Pipe()
            args = (
                there,
                k,
                batch,
                dim,
                str(device),
                str(dtype).split(".")[-1],
                torch.get_num_threads(),
            )
            proc = ctx.Process(target=_worker, args=args)
            with _environ(MALLOC_KEEP if malloc == "keep" else {}):
                proc.start()
            workers[k] = (proc, here)
        for _, c in workers.values():
            c.recv()  # every worker warmed up before the first timed step
        times = {k: [] for k in names}
        faults = {k: [] for k in names}
        for _ in range(rounds):
            for k, (_, c) in workers.items():
                c.send("step")
                dt, nf = c.recv()
                times[k].append(dt)
                faults[k].append(nf)
        mem = {}
        if memory:
            for k, (_, c) in workers.items():
                c.send("memory")
                mem[k] = c.recv()
    finally:
        for proc, c in workers.values():
            try:
                c.send("stop")
            except (BrokenPipeError, OSError):
                pass
            proc.join(timeout=60)
    return times, {k: statistics.median(v) for k, v in faults.items()}, mem


def _drop_out_of_memory(steps, batch):
    """Try one step of each loss; drop (with a note) those that run out of device memory (PML's NT-Xent
    builds [2B, 2B, 2B] masks: 139 GiB at B = 1024)."""
    for k in list(steps):
        try:
            steps[k]()
            torch.cuda.synchronize()
        except torch.cuda.OutOfMemoryError:
            print(f"  {k}: out of device memory at B={batch}, left out")
            del steps[k]
            torch.cuda.empty_cache()


def kernel_counts(batch, dim, device, dtype, names=None):
    """Per loss: (CUDA kernels launched, aten operators called) in one forward + backward step."""
    from torch.profiler import ProfilerActivity, profile

    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    out = {}
    for k in names or list({**peers(), **module_losses()}):
        step = _module_step(k, batch, dim, device, dtype)
        step()
        _sync(device)
        with _quiet_stderr(), profile(activities=acts) as prof:
            step()
            _sync(device)
        ev = prof.events()
        kernels = sum(1 for e in ev if e.device_type == torch.autograd.DeviceType.CUDA)
        ops = sum(1 for e in ev if e.name.startswith("aten::") and e.cpu_parent is None)
        out[k] = (kernels, ops)
    return out


def bench_modules(
    batch, dim, rounds, device, dtype, memory=True, isolate=True, malloc="default", inner=1
):
    names = list({**peers(), **module_losses()})
    rt = {}
    isolate = (
        isolate and device.type == "cpu"
    )  # the workers isolate the CPU heap (see the module notes)
    if isolate:
        rt, flt, mem = _run_isolated(names, batch, dim, rounds, device, dtype, memory, malloc)
        t = {k: statistics.median(v) for k, v in rt.items()}
    else:
        flt = {}
        steps = {k: _module_step(k, batch, dim, device, dtype) for k in names}
        if device.type == "cuda":
            _drop_out_of_memory(steps, batch)
        t = interleaved(steps, rounds, device, rt, flt, inner)
        mem = {k: peak_memory(s, device) for k, s in steps.items()} if memory else {}
        if device.type == "cuda":
            flt = {}  # host page faults say nothing about a CUDA step
    peer_names = [k for k in t if k.endswith("ntxent")]
    fastest = min(peer_names, key=t.get)
    mode = "one process per loss" if isolate else "all losses in one process"
    if isolate and malloc == "keep":
        mode += ", glibc keeps freed memory (--malloc keep)"
    print(
        f"\n[modules] B={batch} D={dim} dtype={str(dtype).split('.')[-1]} anchors={2 * batch} N={2 * batch - 2} "
        f"(BPR/DPL: {batch} anchors, N={batch - 1}); {mode}"
    )
    for k in t:
        m = f"  peak {mem[k] / 2**20:7.1f} MiB" if k in mem else ""
        f = f"  {flt[k]:7.0f} page faults/step" if k in flt else ""
        print(f"  {k:16s} {1e3 * t[k]:9.3f} ms/step{m}{f}")
    ratios = {
        "infonce/fastest_peer": _ratio(rt, "infonce", fastest),
        "dcl/infonce": _ratio(rt, "dcl", "infonce"),
        "hcl/infonce": _ratio(rt, "hcl", "infonce"),
        "bcl/infonce": _ratio(rt, "bcl", "infonce"),
        "dpl/bpr": _ratio(rt, "dpl", "bpr"),
    }
    # BCL's goal is 1.5 on the CPU (its eCDF sort against InfoNCE's one pass) and 1.2 on CUDA (issue 31)
    bcl_goal = 1.2 if device.type == "cuda" else 1.5
    goals = {
        "infonce/fastest_peer": 1.0,
        "dcl/infonce": 1.2,
        "hcl/infonce": 1.2,
        "bcl/infonce": bcl_goal,
        "dpl/bpr": 1.5,
    }
    for k, v in ratios.items():
        extra = f" (fastest peer: {fastest})" if k.startswith("infonce") else ""
        print(
            f"  ratio {k:22s} {v:6.3f}  goal <= {goals[k]:.1f}  {'met' if v <= goals[k] else 'NOT met'}{extra}"
        )
    return t, ratios, mem


def bench_logits(batch, rounds, device, dtype, inner=1):
    g = torch.Generator(device="cpu").manual_seed(0)
    a, n = 2 * batch, 2 * batch - 2
    pos = (torch.rand(a, generator=g) * 2 - 1).div(TEMPERATURE).to(device, dtype)
    neg = (torch.rand(a, n, generator=g) * 2 - 1).div(TEMPERATURE).to(device, dtype)

    def make(f):
        def step():
            f(pos.detach().requires_grad_(), neg.detach().requires_grad_()).backward()

        return step

    t = interleaved({k: make(f) for k, f in logit_losses().items()}, rounds, device, inner=inner)
    print(f"\n[logits] anchors={a} N={n} dtype={str(dtype).split('.')[-1]}")
    for name, base in (
        ("infonce", None),
        ("dcl", "infonce"),
        ("hcl", "infonce"),
        ("bcl", "infonce"),
        ("bpr", None),
        ("dpl", "bpr"),
    ):
        ratio = f"  ratio vs {base}: {t[name] / t[base]:.3f}" if base else ""
        print(f"  {name:8s} {1e3 * t[name]:9.3f} ms/step{ratio}")
    return t


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument(
        "--dtype",
        nargs="+",
        default=["float32"],
        choices=["float32", "bfloat16", "float16", "float64"],
    )
    ap.add_argument(
        "--inner",
        type=int,
        default=None,
        help="steps per timed sample (default: 10 on CUDA, 1 on the CPU)",
    )
    ap.add_argument(
        "--csv", help="also write one row per (part, B, dtype, loss) and per ratio to this CSV file"
    )
    ap.add_argument(
        "--kernels",
        action="store_true",
        help="first count the kernels (CUDA) and top-level aten operators of one step",
    )
    ap.add_argument("--batch", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads for the run (the benchmark sets it, the package never does)",
    )
    ap.add_argument(
        "--part", nargs="+", default=["modules", "logits"], choices=["modules", "logits"]
    )
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument(
        "--same-process",
        action="store_true",
        help="run every module in this process (not one worker each)",
    )
    ap.add_argument(
        "--malloc",
        default="default",
        choices=["default", "keep"],
        help="keep: start the workers with glibc's mmap/trim thresholds set so freed memory stays mapped",
    )
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    inner = args.inner if args.inner is not None else (10 if device.type == "cuda" else 1)
    where = ""
    if device.type == "cuda":
        where = f" gpu={torch.cuda.get_device_name(device)} cuda={torch.version.cuda}"
    print(
        f"device={device}{where} dtype={' '.join(args.dtype)} torch={torch.__version__} threads={torch.get_num_threads()} "
        f"rounds={args.rounds} inner={inner}"
    )
    out = {}
    rows = []
    if args.kernels:
        for dtype_name in args.dtype:
            b = min(args.batch)
            kc = kernel_counts(b, args.dim, device, getattr(torch, dtype_name))
            print(
                f"\n[kernels] one forward + backward step at B={b} {dtype_name}: CUDA kernels launched, top-level aten ops"
            )
            for k, (nk, no) in kc.items():
                print(f"  {k:16s} {nk:5d} kernels  {no:5d} aten ops")
    csv = (
        open(args.csv, "w") if args.csv else None
    )  # written as the sizes finish (a cut-off run keeps what ran)
    if csv:
        csv.write("part,batch,dtype,loss,ms_per_step_or_ratio,peak_mib\n")
    for dtype_name in args.dtype:
        dtype = getattr(torch, dtype_name)
        for b in args.batch:
            if "modules" in args.part:
                t, ratios, mem = out[("modules", b, dtype_name)] = bench_modules(
                    b,
                    args.dim,
                    args.rounds,
                    device,
                    dtype,
                    memory=not args.no_memory,
                    isolate=not args.same_process,
                    malloc=args.malloc,
                    inner=inner,
                )
                rows += [
                    ("modules", b, dtype_name, k, 1e3 * v, mem.get(k, math.nan) / 2**20)
                    for k, v in t.items()
                ]
                rows += [
                    ("modules", b, dtype_name, "ratio " + k, v, math.nan) for k, v in ratios.items()
                ]
            if "logits" in args.part:
                t = out[("logits", b, dtype_name)] = bench_logits(
                    b, args.rounds, device, dtype, inner
                )
                rows += [("logits", b, dtype_name, k, 1e3 * v, math.nan) for k, v in t.items()]
            if csv:
                csv.writelines(f"{p},{b},{d},{k},{v:.6g},{m:.6g}\n" for p, b, d, k, v, m in rows)
                csv.flush()
                rows = []
    if csv:
        csv.close()
    return out


if __name__ == "__main__":
    main()
