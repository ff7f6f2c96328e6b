"""Benchmark: the cost of ``negtheory reproduce thesis-tables`` — Table 4.5's readings per epoch, and a full run.

Three parts:

* ``--variants``: one SGD epoch of BPR-MF (batch-1, d = 32) on MovieLens-100K per Table 4.5 reading
  (``soft``, ``soft-Fcand``, ``soft-tn0.001``, ``hard``) at each ``--sizes`` |M_u|, against RNS as the
  baseline measured in the same run, interleaved over ``--repeat`` rounds (ratios are what to
  compare; absolute times depend on the load of the machine).
* ``--runs DIR [DIR ...]``: the finished runs of earlier ``thesis-tables`` outputs (``OUT/runs/*.json``
  store each run's measured seconds): the total CPU time per run kind, and the wall time of the whole
  set on ``--jobs`` workers, scheduled longest run first (LPT; what ``--jobs N`` achieves at best, and
  within 4/3 of the optimum). Runs measured on a loaded machine give an upper bound.
* ``--estimate``: the cost of a full run from scratch, without running it: every distinct run of
  ``--tables`` x ``--models`` (``plan``) is trained for ``--probe-epochs`` epochs (after a one-epoch
  warm-up that compiles the numba kernels), its seconds per epoch are multiplied by the run's
  epochs (100 SGD / LightGCN, 200 mini-batch MF) and by ``--seeds``, and the set is scheduled on
  ``--jobs`` workers longest first. Per-epoch cost is flat over a run for every sampler here, so
  the extrapolation is what a full run costs on an idle machine with one core per worker.
  ``negtheory reproduce thesis-tables ... --estimate`` gives the same kind of figure for any plan of
  the command (any data set, ``--data``; one timed epoch per run, no LPT schedule).

The split is user-supplied (``--train/--test`` or ``$NEGTHEORY_ML100K``), else a synthetic one of the
same size. Usage::

    python benchmarks/bench_thesis_tables.py --variants --sizes 20 all --repeat 3
    python benchmarks/bench_thesis_tables.py --runs thesis_tables/runs --jobs 2
    python benchmarks/bench_thesis_tables.py --estimate --tables 4.2 4.5 5.2 6.3 --models mf lightgcn --jobs 2
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
    """One epoch of the batch-1 SGD run of these run-key keywords (as ``thesis-tables`` trains it), with its evaluation."""
    from negtheory.reproduce._run_keys import sgd_fit_args
    from negtheory.training import fit

    t0 = time.perf_counter()
    fit(data, **sgd_fit_args(**kw, epochs=1), rng=0)
    return time.perf_counter() - t0


def variants(data, sizes, repeat):
    """Seconds per epoch of each (variant, |M_u|), and its ratio to RNS, measured interleaved."""
    cases = [("RNS", dict(sampler="rns"))]
    for size in sizes:
        m = 10**9 if size == "all" else int(size)
        for v, kw in BNS_VARIANTS.items():
            cases.append(
                (f"{v} |M_u|={size}", dict(sampler="bns", candidates=m, prior="oracle", **kw))
            )
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
        print(
            f"  {name:28s} {t:7.2f} s/epoch   {t / base:6.1f}x RNS   ~{t * 100 / 60:6.1f} min per 100-epoch run"
        )


def runs(dirs, jobs):
    """CPU seconds per run kind and the LPT wall time on ``jobs`` workers of the runs stored in ``dirs``."""
    recs = []
    for d in dirs:
        for f in sorted(Path(d).glob("*.json")):
            r = json.loads(f.read_text())
            recs.append(
                (
                    r["run"],
                    r["seed"],
                    float(r["seconds"]),
                    r["history"][-1]["epoch"] if r["history"] else 0,
                )
            )
    if not recs:
        raise SystemExit(f"no finished runs (*.json) in {dirs}")
    by_kind = defaultdict(list)
    for run, _, secs, ep in recs:
        kind = run.split(",")[0].strip("('\" ")
        by_kind[kind].append((secs, ep))
    print(f"\n{len(recs)} finished runs in {', '.join(map(str, dirs))}:")
    for kind, v in sorted(by_kind.items()):
        tot = sum(s for s, _ in v)
        print(
            f"  {kind:9s} {len(v):4d} runs  {tot / 60:8.1f} CPU-min  (mean {tot / len(v) / 60:5.1f} min per run)"
        )
    total = sum(s for _, _, s, _ in recs)
    wall = _lpt([s for _, _, s, _ in recs], jobs)
    print(
        f"  total {total / 3600:.2f} CPU-hours; on {jobs} workers (longest first): {wall / 3600:.2f} h wall"
    )


def _lpt(seconds, jobs):
    """Makespan of ``seconds`` on ``jobs`` identical workers, longest first (LPT)."""
    loads = [0.0] * jobs
    heapq.heapify(loads)
    for secs in sorted(seconds, reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + secs)
    return max(loads)


def estimate(train, test, tables, models, seeds, jobs, probe_epochs):
    """Seconds of a full run of ``tables`` x ``models``, extrapolated from ``probe_epochs`` per distinct run."""
    from negtheory.recsys import load_split
    from negtheory.reproduce.thesis_tables import _job, plan

    data = load_split(train, test)
    keys = list(dict.fromkeys(r[4] for r in plan(tables, models=models) if r[4] is not None))
    full = {"sgd": 100, "mf": 200, "lightgcn": 100}
    rows = []
    for key in keys:

        def timed(epochs, key=key):
            task = (key, 0, str(train), str(test), epochs, "fixed", 0.1, epochs, False, "auto")
            return _job(data, task)["seconds"]

        timed(1)  # compile / warm up
        per_epoch = timed(probe_epochs) / probe_epochs
        rows.append((key, per_epoch, per_epoch * full[key[0]]))
        print(
            f"  {str(key):62s} {per_epoch:7.3f} s/epoch  ~{per_epoch * full[key[0]] / 60:6.1f} min per run",
            flush=True,
        )
    by_kind = defaultdict(float)
    for key, _, run_s in rows:
        by_kind[key[0]] += run_s * seeds
    total = sum(by_kind.values())
    print(
        f"\nfull run of Tables {' '.join(tables)}, models {' '.join(models)}, {seeds} seeds: {len(rows) * seeds} runs"
    )
    for kind, secs in sorted(by_kind.items()):
        print(f"  {kind:9s} {secs / 60:8.1f} CPU-min")
    wall = _lpt([r[2] for r in rows for _ in range(seeds)], jobs)
    print(
        f"  total {total / 3600:.2f} CPU-hours; on {jobs} workers (longest first): {wall / 3600:.2f} h wall"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train")
    ap.add_argument("--test")
    ap.add_argument(
        "--variants", action="store_true", help="time one epoch of each Table 4.5 reading"
    )
    ap.add_argument(
        "--sizes", nargs="+", default=["20", "all"], help="|M_u| of the variant timings"
    )
    ap.add_argument(
        "--repeat", type=int, default=3, help="interleaved rounds of the variant timings"
    )
    ap.add_argument(
        "--runs", nargs="+", default=None, help="thesis-tables OUT/runs folders to total"
    )
    ap.add_argument("--jobs", type=int, default=2, help="workers of the wall-time estimate")
    ap.add_argument(
        "--estimate",
        action="store_true",
        help="extrapolate a full run from a few epochs of each run",
    )
    ap.add_argument(
        "--tables", nargs="+", default=["4.2", "4.5", "5.2", "6.3"], help="tables of --estimate"
    )
    ap.add_argument("--models", nargs="+", default=["mf", "lightgcn"], help="models of --estimate")
    ap.add_argument("--seeds", type=int, default=3, help="seeds of --estimate")
    ap.add_argument(
        "--probe-epochs", type=int, default=2, help="timed epochs per run of --estimate"
    )
    args = ap.parse_args()
    print(
        f"negtheory {negtheory.__version__}, {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}"
    )
    if args.variants:
        variants(benchmark_split(args.train, args.test), args.sizes, args.repeat)
    if args.runs:
        runs(args.runs, args.jobs)
    if args.estimate:
        if not (args.train and args.test):
            ap.error("--estimate needs --train and --test files")
        estimate(
            args.train,
            args.test,
            args.tables,
            args.models,
            args.seeds,
            args.jobs,
            args.probe_epochs,
        )
    if not (args.variants or args.runs or args.estimate):
        ap.error("give --variants, --runs DIR and/or --estimate")


if __name__ == "__main__":
    main()
