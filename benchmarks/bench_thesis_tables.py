"""Benchmark: the cost of ``negtheory reproduce thesis-tables`` — Table 4.5's readings per epoch, and a full run.

Two parts:

* ``--variants``: one SGD epoch of BPR-MF (batch-1, d = 32) on MovieLens-100K per Table 4.5 reading
  (``soft``, ``soft-Fcand``, ``soft-tn0.001``, ``hard``) at each ``--sizes`` |M_u|, against RNS as the
  baseline measured in the same run, interleaved over ``--repeat`` rounds (ratios are what to
  compare; absolute times depend on the load of the machine).
* ``--runs DIR [DIR ...]``: the finished runs of earlier ``thesis-tables`` outputs (``OUT/runs/*.json``
  store each run's measured seconds): the total CPU time per run kind, and the wall time of the whole
  set on ``--jobs`` workers, scheduled longest run first (LPT; what ``--jobs N`` achieves at best, and
  within 4/3 of the optimum). Runs measured on a loaded machine give an upper bound.

The split is user-supplied (``--train/--test`` or ``$NEGTHEORY_ML100K``), else a synthetic one of the
same size. Usage::

    python benchmarks/bench_thesis_tables.py --variants --sizes 20 all --repeat 3
    python benchmarks/bench_thesis_tables.py --runs thesis_tables/runs --jobs 2
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import platform
import time
from collections import defaultdict
from pathlib import Path

from bench_training import benchmark_split

import negtheory
from negtheory.reproduce.thesis_tables import BNS_VARIANTS


def _epoch_seconds(data, **kw):
    from negtheory.recsys import fit_bpr_sgd

    t0 = time.perf_counter()
    fit_bpr_sgd(data, epochs=1, eval_every=10**6, progress=False, rng=0, **kw)
    return time.perf_counter() - t0


def variants(data, sizes, repeat):
    """Seconds per epoch of each (variant, |M_u|), and its ratio to RNS, measured interleaved."""
    cases = [("RNS", dict(sampler="rns"))]
    for size in sizes:
        m = 10**9 if size == "all" else int(size)
        for v, kw in BNS_VARIANTS.items():
            cases.append((f"{v} |M_u|={size}", dict(sampler="bns", candidates=m, prior="oracle", **kw)))
    import numpy as np

    from negtheory.recsys import load_split

    g = np.random.default_rng(0)
    pairs = np.unique(g.integers(0, [40, 60], size=(900, 2)), axis=0)
    tiny = load_split(pairs[:700], pairs[700:])
    for _, kw in cases:  # numba compilation outside the timings
        _epoch_seconds(tiny, **kw)
    times = defaultdict(list)
    for _ in range(repeat):
        for name, kw in cases:
            times[name].append(_epoch_seconds(data, **kw))
    base = min(times["RNS"])
    print(f"\none SGD epoch ({len(data.train)} steps), best of {repeat} interleaved rounds:")
    for name, _ in cases:
        t = min(times[name])
        print(f"  {name:28s} {t:7.2f} s/epoch   {t / base:6.1f}x RNS   ~{t * 100 / 60:6.1f} min per 100-epoch run")


def runs(dirs, jobs):
    """CPU seconds per run kind and the LPT wall time on ``jobs`` workers of the runs stored in ``dirs``."""
    recs = []
    for d in dirs:
        for f in sorted(Path(d).glob("*.json")):
            r = json.loads(f.read_text())
            recs.append((r["run"], r["seed"], float(r["seconds"]), r["history"][-1]["epoch"] if r["history"] else 0))
    if not recs:
        raise SystemExit(f"no finished runs (*.json) in {dirs}")
    by_kind = defaultdict(list)
    for run, _, secs, ep in recs:
        kind = run.split(",")[0].strip("('\" ")
        by_kind[kind].append((secs, ep))
    print(f"\n{len(recs)} finished runs in {', '.join(map(str, dirs))}:")
    for kind, v in sorted(by_kind.items()):
        tot = sum(s for s, _ in v)
        print(f"  {kind:9s} {len(v):4d} runs  {tot / 60:8.1f} CPU-min  (mean {tot / len(v) / 60:5.1f} min per run)")
    loads = [0.0] * jobs
    heapq.heapify(loads)
    for secs in sorted((s for _, _, s, _ in recs), reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + secs)
    total = sum(s for _, _, s, _ in recs)
    print(f"  total {total / 3600:.2f} CPU-hours; on {jobs} workers (longest first): {max(loads) / 3600:.2f} h wall")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train")
    ap.add_argument("--test")
    ap.add_argument("--variants", action="store_true", help="time one epoch of each Table 4.5 reading")
    ap.add_argument("--sizes", nargs="+", default=["20", "all"], help="|M_u| of the variant timings")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds of the variant timings")
    ap.add_argument("--runs", nargs="+", default=None, help="thesis-tables OUT/runs folders to total")
    ap.add_argument("--jobs", type=int, default=2, help="workers of the wall-time estimate")
    args = ap.parse_args()
    print(
        f"negtheory {negtheory.__version__}, {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}"
    )
    if args.variants:
        variants(benchmark_split(args.train, args.test), args.sizes, args.repeat)
    if args.runs:
        runs(args.runs, args.jobs)
    if not (args.variants or args.runs):
        ap.error("give --variants and/or --runs DIR")


if __name__ == "__main__":
    main()
