"""order_statistic with a normal parent against scipy.stats.order_statistic: pdf, cdf, ppf.

Both laws are built once; every round times each method of each library once, in turn
(interleaved, so that load on a shared machine hits both alike), on 10^4 points
(x in [mu - 4.5 sigma, mu + 4.5 sigma], q in (1e-6, 1 - 1e-6)); the median over rounds is
reported as speed = scipy time / negtheory time (goal >= 1) with the largest relative
difference of the values. (k, n) cover a small sample, the median of a large one and the
extremes (minimum / maximum, where ppf has a closed form).

Usage: python benchmarks/bench_dists.py [--points 10000] [--rounds 15]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import scipy
import scipy.stats as st

from negtheory.dists import order_statistic

CASES = [(3, 10), (2, 5), (500, 1000), (1, 1000), (1000, 1000)]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args(argv)
    if not hasattr(st, "order_statistic"):
        print(
            f"scipy {scipy.__version__} has no scipy.stats.order_statistic (needs >= 1.15): nothing to compare"
        )
        return {}
    mu, sigma = 1.0, 2.0
    x = np.linspace(mu - 4.5 * sigma, mu + 4.5 * sigma, args.points)
    q = np.linspace(1e-6, 1 - 1e-6, args.points)
    print(
        f"scipy {scipy.__version__}, numpy {np.__version__}, {args.points} points, {args.rounds} rounds (medians)"
    )
    out = {}
    for k, n in CASES:
        ref = st.order_statistic(st.Normal(mu=mu, sigma=sigma), r=k, n=n)
        ours = order_statistic(st.norm(mu, sigma), k, n)
        fns = {
            "pdf": (lambda: ref.pdf(x), lambda: ours.pdf(x)),
            "cdf": (lambda: ref.cdf(x), lambda: ours.cdf(x)),
            "ppf": (lambda: ref.icdf(q), lambda: ours.ppf(q)),
        }
        times = {(m, who): [] for m in fns for who in (0, 1)}
        for pair in fns.values():
            for f in pair:
                f()  # warm-up (numba compilation from cache)
        for _ in range(args.rounds):
            for m, pair in fns.items():
                for who, f in enumerate(pair):
                    t0 = time.perf_counter()
                    f()
                    times[(m, who)].append(time.perf_counter() - t0)
        row = []
        for m, (fa, fb) in fns.items():
            ta, tb = statistics.median(times[(m, 0)]), statistics.median(times[(m, 1)])
            a, b = fa(), fb()
            big = (
                np.abs(a) > 1e-250
            )  # relative difference where scipy's value is not (nearly) underflowed
            rel = float(np.max(np.abs(a[big] - b[big]) / np.abs(a[big]))) if big.any() else 0.0
            out[(k, n, m)] = ta / tb
            row.append(f"{m} {ta / tb:5.2f}x ({1e3 * tb:6.3f} ms, max rel diff {rel:.1e})")
        print(f"k={k:5d} n={n:5d}  " + "  ".join(row))
    for m in ("pdf", "cdf", "ppf"):
        v = [out[(k, n, m)] for k, n in CASES]
        print(
            f"{m}: speed vs scipy min {min(v):.2f}x median {statistics.median(v):.2f}x  goal >= 1: {'met' if min(v) >= 1 else 'NOT met'}"
        )
    return out


if __name__ == "__main__":
    main()
