"""Benchmark: categorical sampling for negative proposals (seed 001, *Efficient Sampling Algorithms*).

Work: draw m indices from a fixed law p over n categories (p ~ Exponential(1) weights),
*including* the setup (table or CDF construction), for a grid of table sizes n x draws m.

* anchors, measured in the same run:
  - ``numpy.random.Generator.choice(n, m, p=p)`` (re-validates p and rebuilds its CDF on every
    call, then binary search);
  - ``scipy.stats.sampling.DiscreteAliasUrn(p, random_state=rng).rvs(m)`` (UNU.RAN's alias-urn,
    C code);
* negtheory: ``AliasTable(p).sample(m)`` (Vose alias, numba, O(1) per draw) and
  ``InverseCDFSampler(p).sample(m)`` (numba binary search, O(log n) per draw).

The script prints best-of-``repeat`` wall times and, for each negtheory sampler, its speed-up
relative to each anchor (>1 means negtheory is faster) so one can see where each method wins.
A second table separates setup from per-draw cost. Usage::

    python benchmarks/bench_sampling.py [--repeat 3] [--sizes 10 1000 100000 1000000] [--draws 100 10000 1000000]
    python benchmarks/bench_sampling.py --plot            # also writes benchmarks/bench_sampling.png

``--plot`` draws the setup and per-draw times of the second table (the timing figure that used
to be ``figures/mechanics_alias_vs_inverse_cdf.png``; that figure now shows deterministic
quantities, so ``negtheory figures`` writes the same PNG on every run). The timings, and so
this PNG, change from run to run and machine to machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import warnings
from pathlib import Path

import numpy as np
from scipy.stats.sampling import DiscreteAliasUrn

import negtheory
from negtheory.sampling import AliasTable, InverseCDFSampler

from _timing import min_time as best_of


def fmt(t):
    if t < 1e-3:
        return f"{t * 1e6:8.1f} us"
    if t < 1.0:
        return f"{t * 1e3:8.2f} ms"
    return f"{t:8.3f} s "


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 1_000, 100_000, 1_000_000])
    ap.add_argument("--draws", type=int, nargs="+", default=[100, 10_000, 1_000_000])
    ap.add_argument(
        "--plot",
        nargs="?",
        const=str(Path(__file__).with_name("bench_sampling.png")),
        default=None,
        metavar="PNG",
        help="write the setup / per-draw timing figure (default path: benchmarks/bench_sampling.png)",
    )
    args = ap.parse_args()

    print(
        f"negtheory {negtheory.__version__}, numpy {np.__version__}, {platform.processor() or platform.machine()}, {os.cpu_count()} cpu"
    )
    # compile / load the numba kernels outside the timings
    AliasTable([1.0, 2.0]).sample(10, rng=0)
    InverseCDFSampler([1.0, 2.0]).sample(10, rng=0)

    rng = np.random.default_rng(0)
    print("\nsetup + m draws (best of %d); speed-up = anchor time / negtheory time" % args.repeat)
    head = f"{'n':>9} {'m':>9} | {'Gen.choice':>11} {'DiscreteAliasUrn':>16} | {'AliasTable':>11} {'InvCDF':>11} | {'alias/choice':>12} {'alias/urn':>9} {'icdf/choice':>11} {'icdf/urn':>8} | winner"
    print(head)
    print("-" * len(head))
    for n in args.sizes:
        p = rng.exponential(size=n)
        pn = p / p.sum()
        for m in args.draws:
            g = np.random.default_rng(1)
            t_choice = best_of(lambda: g.choice(n, size=m, p=pn), args.repeat)
            t_urn = best_of(
                lambda: DiscreteAliasUrn(p, random_state=np.random.default_rng(1)).rvs(m),
                args.repeat,
            )
            t_alias = best_of(lambda: AliasTable(p).sample(m, rng=1), args.repeat)
            t_icdf = best_of(lambda: InverseCDFSampler(p).sample(m, rng=1), args.repeat)
            times = {
                "Gen.choice": t_choice,
                "DiscreteAliasUrn": t_urn,
                "AliasTable": t_alias,
                "InverseCDF": t_icdf,
            }
            winner = min(times, key=times.get)
            print(
                f"{n:>9,} {m:>9,} | {fmt(t_choice):>11} {fmt(t_urn):>16} | {fmt(t_alias):>11} {fmt(t_icdf):>11} |"
                f" {t_choice / t_alias:12.2f} {t_urn / t_alias:9.2f} {t_choice / t_icdf:11.2f} {t_urn / t_icdf:8.2f} | {winner}"
            )

    print(
        "\nsetup and per-draw cost separately (per-draw from 200,000 draws on a prebuilt sampler)"
    )
    head = f"{'n':>9} | {'setup alias':>11} {'setup icdf':>11} {'setup urn':>11} | {'ns/draw alias':>13} {'ns/draw icdf':>12} {'ns/draw urn':>11}"
    print(head)
    print("-" * len(head))
    m = 200_000
    timing = {
        "setup": {"alias": [], "inverse CDF": [], "DiscreteAliasUrn": []},
        "draw": {"alias": [], "inverse CDF": [], "DiscreteAliasUrn": []},
    }
    for n in args.sizes:
        p = rng.exponential(size=n)
        s_alias = best_of(lambda: AliasTable(p), args.repeat)
        s_icdf = best_of(lambda: InverseCDFSampler(p), args.repeat)
        s_urn = best_of(
            lambda: DiscreteAliasUrn(p, random_state=np.random.default_rng(1)), args.repeat
        )
        a, c = AliasTable(p), InverseCDFSampler(p)
        urn = DiscreteAliasUrn(p, random_state=np.random.default_rng(1))
        d_alias = best_of(lambda: a.sample(m, rng=1), args.repeat) / m
        d_icdf = best_of(lambda: c.sample(m, rng=1), args.repeat) / m
        d_urn = best_of(lambda: urn.rvs(m), args.repeat) / m
        print(
            f"{n:>9,} | {fmt(s_alias):>11} {fmt(s_icdf):>11} {fmt(s_urn):>11} | {d_alias * 1e9:13.1f} {d_icdf * 1e9:12.1f} {d_urn * 1e9:11.1f}"
        )
        for key, s_t, d_t in (
            ("alias", s_alias, d_alias),
            ("inverse CDF", s_icdf, d_icdf),
            ("DiscreteAliasUrn", s_urn, d_urn),
        ):
            timing["setup"][key].append(s_t)
            timing["draw"][key].append(d_t)
    if args.plot:
        plot_timings(args.sizes, args.draws, timing, args.plot)
        print(f"\nwrote {args.plot}")


def plot_timings(sizes, draws, timing, path):
    """Setup + m x per-draw time (left) and per-draw / per-entry setup cost (right), as measured."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12.0, 4.4), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    styles = {
        "alias": ("tab:blue", "-"),
        "inverse CDF": ("tab:orange", "--"),
        "DiscreteAliasUrn": ("tab:green", "-."),
    }
    sizes = np.asarray(sizes, dtype=float)
    for m, marker in zip(draws, ("o", "s", "^", "v", "D")):
        for name in ("alias", "inverse CDF"):
            color, ls = styles[name]
            total = np.array(timing["setup"][name]) + m * np.array(timing["draw"][name])
            ax1.plot(
                sizes,
                total * 1e3,
                color=color,
                ls=ls,
                marker=marker,
                ms=4,
                label=f"{name}, {m:,} draws",
            )
    for name, (color, ls) in styles.items():
        ax2.plot(
            sizes,
            np.array(timing["draw"][name]) * 1e9,
            color=color,
            ls=ls,
            marker="o",
            label=f"{name}: per draw",
        )
        ax2.plot(
            sizes,
            np.array(timing["setup"][name]) / sizes * 1e9,
            color=color,
            ls=":",
            marker="x",
            label=f"{name}: setup per entry",
        )
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("table size n")
    ax1.set_ylabel("setup + m x per-draw time (ms)")
    ax1.set_title("total cost for m draws (both parts measured)", fontsize=9.5)
    ax1.legend(fontsize=7)
    ax2.set_ylabel("ns")
    ax2.set_title(
        "alias: O(1) per draw, costlier setup; binary search: O(log n) per draw", fontsize=9.5
    )
    ax2.legend(fontsize=7)
    fig.suptitle(
        f"Alias vs inverse-CDF sampling, timed on {platform.machine()} ({os.cpu_count()} cpu), best of the runs: "
        "benchmarks/bench_sampling.py --plot"
    )
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        main()
    unuran = sorted({str(w.message).split("] ", 1)[-1] for w in caught if "DAU" in str(w.message)})
    if unuran:
        # UNU.RAN's alias-urn setup reports lost precision on large tables; AliasTable builds its
        # table over the support and is checked to reproduce p to 1e-12 in tests/test_sampling.py
        print(f"\nnote: scipy DiscreteAliasUrn warned during setup: {'; '.join(unuran)}")
