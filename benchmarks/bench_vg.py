"""Benchmark: the variance-gamma prior of thesis ch. 3 and the BPRAC E-step.

1. ``cdf`` at 10^5 points against the released thesis code's approach: one adaptive
   ``scipy.integrate.quad`` of eq. 3.19 (with ``scipy.special.kv``) per point. The quad
   baseline is timed on a subsample (default 500 points) and **extrapolated linearly** to
   10^5 points; its values are also used to report the max |difference|.
2. The E-step (eq. 3.27-3.28) over the 80,000 training interactions of a MovieLens-100k-sized
   problem (943 users, 1682 items, synthetic: Zipf item popularity, MF scores of N(0, lam)
   embeddings), against the per-interaction quad E-step (subsample, extrapolated). With
   ``--ml100k PATH`` (a user-supplied MovieLens-100K train CSV, or ``$NEGTHEORY_ML100K``), the E-step is
   also timed on its user/item pairs (ratings ignored; the file is only read).
3. How to get K_nu inside numba -- the measurement behind the design choice: the pdf at 10^5
   points by (a) negtheory's ladder kernel (numba, no Bessel call), (b) vectorised
   ``scipy.special.kve`` outside numba, (c) ``scipy.special.cython_special.kve`` bound into a
   numba kernel through ``get_cython_function_address``; with the number of non-finite
   results at d = 1024 (where K_nu overflows).

Everything is measured in the same run. Usage::

    python benchmarks/bench_vg.py [--n 100000] [--n-quad 500] [--repeat 3]
"""

from __future__ import annotations

import argparse
import ctypes
import math
import os
import time
import warnings

import numba
import numpy as np
from numba.extending import get_cython_function_address
from scipy import integrate, special

from negtheory.bprac import credence
from negtheory.variance_gamma import inner_product

from _timing import best_of

ML100K = os.environ.get("NEGTHEORY_ML100K")  # no default: the data set is not shipped

# cython_special.kve(double nu, double z) bound for numba (the third argument is Cython's
# skip_dispatch flag)
_kve_addr = get_cython_function_address("scipy.special.cython_special", "__pyx_fuse_1kve")
_kve_c = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_double, ctypes.c_int)(
    _kve_addr
)


@numba.njit(parallel=True)
def _pdf_cython_kve(x, d, lam, out):
    nu = 0.5 * (d - 1)
    c = -math.log(lam) - 0.5 * math.log(math.pi) - math.lgamma(0.5 * d)
    for i in numba.prange(x.size):
        z = abs(x[i]) / lam
        out[i] = math.exp(c + nu * math.log(0.5 * z) + math.log(_kve_c(nu, z, 0)) - z)


def pdf_scipy_kve(x, d, lam):
    z = np.abs(x) / lam
    nu = 0.5 * (d - 1)
    log_c = (
        -math.log(lam) - 0.5 * math.log(math.pi) - special.gammaln(d / 2)
    )  # the normaliser of eq. 3.18
    with np.errstate(all="ignore"):
        return np.exp(log_c + nu * np.log(z / 2) + np.log(special.kve(nu, z)) - z)


def pdf_eq319_scalar(x, d, lam):
    """Eq. 3.19 as the released code writes it: scipy.special.kv and gamma, one point."""
    z = abs(x) / lam
    return (
        (z / 2) ** ((d - 1) / 2)
        * special.kv((d - 1) / 2, z)
        / (lam * math.sqrt(math.pi) * math.gamma(d / 2))
    )


def cdf_quad(x, d, lam):
    return integrate.quad(pdf_eq319_scalar, -np.inf, x, args=(d, lam), limit=200)[0]


def bench_cdf(d, lam, n, n_quad, repeat, rng):
    X = inner_product(d, lam)
    x = X.rvs(n, random_state=rng)
    X.cdf(x[:10])  # compile
    t_ours, ours = best_of(lambda: X.cdf(x), repeat)
    sub = x[:n_quad]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        try:
            ref = np.array([cdf_quad(v, d, lam) for v in sub])
        except OverflowError:  # Gamma(d/2) and (z/2)^nu K_nu(z) overflow for large d
            return t_ours, math.nan, math.nan
        t_quad = (time.perf_counter() - t0) * n / n_quad
    err = np.max(np.abs(ours[:n_quad] - ref))
    return t_ours, t_quad, err


def synth_ml100k(rng, n_users=943, n_items=1682, n_inter=80_000):
    pop = 1.0 / np.arange(1, n_items + 1) ** 0.9
    pop /= pop.sum()
    pairs = set()
    while len(pairs) < n_inter:
        u = rng.integers(0, n_users, n_inter)
        i = rng.choice(n_items, n_inter, p=pop)
        pairs.update(zip(u.tolist(), i.tolist()))
    pairs = np.array(sorted(pairs)[:n_inter])
    return pairs[:, 0], pairs[:, 1], n_users, n_items


def bench_estep(users, items, n_users, n_items, d, lam, n_quad, repeat, rng, label):
    w = rng.normal(0, math.sqrt(lam), (n_users, d))
    h = rng.normal(0, math.sqrt(lam), (n_items, d))
    scores = np.einsum("ij,ij->i", w[users], h[items])
    counts = np.bincount(items, minlength=n_items).astype(float)
    credence(scores[:10], items[:10], counts, d, lam)  # compile
    t_ours, c = best_of(lambda: credence(scores, items, counts, d, lam, normalize=False), repeat)
    prior = 1 / (1 + np.exp(-(counts - counts.mean()) / counts.std()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        ref = np.array(
            [
                2 * cdf_quad(s, d, lam) * pdf_eq319_scalar(s, d, lam) * prior[i]
                for s, i in zip(scores[:n_quad], items[:n_quad])
            ]
        )
        t_quad = (time.perf_counter() - t0) * scores.size / n_quad
    rel = np.max(np.abs(c[:n_quad] / ref - 1))
    print(
        f"  {label:<34} {scores.size:>7} interactions  ours {t_ours * 1e3:8.1f} ms   per-point quad {t_quad:8.1f} s (extrapolated)   ratio {t_quad / t_ours:8.0f}x   max rel diff {rel:.1e}"
    )


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--n-quad", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ml100k", default=ML100K)
    ap.add_argument(
        "--only-cost", action="store_true", help="only part 4 (cost per point against d)"
    )
    args = ap.parse_args()
    rng = np.random.default_rng(2023)
    print(f"numba threads: {numba.get_num_threads()}, cpus: {os.cpu_count()}")
    if args.only_cost:
        bench_cost_vs_d(args.n, args.repeat, rng)
        return

    print(
        f"\n1. cdf at {args.n} points vs one adaptive quad per point (quad timed on {args.n_quad} points, extrapolated linearly)"
    )
    print(
        f"  {'d':>5} {'lam':>6} {'negtheory':>12} {'quad/point':>12} {'ratio':>9} {'|ours-quad|':>11}"
    )
    for d, lam in [(1, 0.1), (2, 0.1), (5, 0.1), (64, 0.01), (65, 0.01), (1024, 0.001)]:
        t_ours, t_quad, err = bench_cdf(d, lam, args.n, args.n_quad, args.repeat, rng)
        if math.isnan(t_quad):
            print(
                f"  {d:>5} {lam:>6g} {t_ours * 1e3:10.1f} ms   quad baseline fails: OverflowError in Gamma(d/2) / K_nu"
            )
        else:
            print(
                f"  {d:>5} {lam:>6g} {t_ours * 1e3:10.1f} ms {t_quad:10.1f} s {t_quad / t_ours:8.0f}x {err:11.1e}"
            )

    print("\n2. E-step credence (eq. 3.27-3.28), MovieLens-100k-sized, normalize=False")
    users, items, n_users, n_items = synth_ml100k(rng)
    for d, lam in [(64, 0.01), (65, 0.01)]:
        bench_estep(
            users,
            items,
            n_users,
            n_items,
            d,
            lam,
            args.n_quad,
            args.repeat,
            rng,
            f"synthetic 943x1682, d={d}",
        )
    if args.ml100k and os.path.exists(args.ml100k):
        import pandas as pd

        df = pd.read_csv(args.ml100k)
        u = df["user"].to_numpy()
        i = df["item"].to_numpy()
        bench_estep(
            u,
            i,
            int(u.max()) + 1,
            int(i.max()) + 1,
            64,
            0.01,
            args.n_quad,
            args.repeat,
            rng,
            "ml-100k train pairs, d=64",
        )
    else:
        print("  (no --ml100k file given or found: real-data run skipped)")

    print(f"\n3. pdf at {args.n} points: how to evaluate K_nu (design choice)")
    print(
        f"  {'d':>5} {'ladder (numba)':>15} {'scipy kve (numpy)':>18} {'cython kve (numba)':>19} {'non-finite kve':>15} {'max rel diff':>13}"
    )
    for d, lam in [(5, 0.1), (64, 0.01), (1024, 0.001)]:
        X = inner_product(d, lam)
        x = X.rvs(args.n, random_state=rng)
        X.pdf(x[:10])
        out = np.empty_like(x)
        _pdf_cython_kve(x[:10], d, lam, out[:10])
        t_a, pa = best_of(lambda: X.pdf(x), args.repeat)
        t_b, pb = best_of(lambda: pdf_scipy_kve(x, d, lam), args.repeat)
        t_c, _ = best_of(lambda: _pdf_cython_kve(x, d, lam, out), args.repeat)
        bad = int(np.sum(~np.isfinite(pb)))
        ok = np.isfinite(pb)
        rel = np.max(np.abs(pb[ok] / pa[ok] - 1)) if ok.any() else float("nan")
        print(
            f"  {d:>5} {t_a * 1e3:12.1f} ms {t_b * 1e3:15.1f} ms {t_c * 1e3:16.1f} ms {bad:>15} {rel:13.1e}"
        )
    z = np.array([1e-3, 1.0, 100.0, 290.0])
    with np.errstate(all="ignore"):
        print(
            f"  kve(511.5, z) at z = {z.tolist()}: {special.kve(511.5, z).tolist()}  (inf = overflow)"
        )
    bench_cost_vs_d(args.n, args.repeat, rng)


def bench_cost_vs_d(n, repeat, rng):
    """Part 4: time per point of logpdf and cdf against d (goal: d = 1024 within 2x of d = 64).

    At d >= 512 logpdf switches to Debye's expansion and cdf to the Gauss-Hermite normal-mixture
    integral (both O(1) per point); below, both climb the ladders (O(d) per point).
    """
    print(f"\n4. cost per point against d ({n} points, x ~ the law itself, best of {repeat})")
    t = {}
    for d in (16, 64, 256, 511, 512, 1024, 4096):
        X = inner_product(d, 1.0)
        x = X.rvs(n, random_state=rng)
        X.logpdf(x[:10])
        X.cdf(x[:10])
        t[d] = (
            best_of(lambda: X.logpdf(x), repeat)[0] / n,
            best_of(lambda: X.cdf(x), repeat)[0] / n,
        )
        print(
            f"  d={d:>5}  logpdf {t[d][0] * 1e6:7.3f} us/point   cdf {t[d][1] * 1e6:7.3f} us/point"
        )
    for k, name in ((0, "logpdf"), (1, "cdf")):
        r = t[1024][k] / t[64][k]
        print(f"  {name}: d=1024 / d=64 = {r:.2f}  (goal <= 2: {'met' if r <= 2 else 'NOT met'})")


if __name__ == "__main__":
    main()
