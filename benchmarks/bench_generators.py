"""Benchmark: the score generators of the thesis's numerical study (seed 003, Algorithms 6-8).

Work and baselines, all measured in the same run:

* (i) Algorithm 7 as a plain-Python loop, written as the thesis prints it: draw x from phi
  (a frozen ``scipy.stats.uniform``), cdf = int phi up to x (``phi.cdf``), u = uniform, repeat
  until accepted; plus the same loop with the ``random`` module and inline arithmetic (the
  fastest plain Python can be), against negtheory's numba Algorithm 7
  (``sample_class_conditional(method="accept-reject")``);
* (ii) Algorithm 6 vectorised in numpy by inversion of the exact CDFs (the natural fast
  numpy baseline) against ``score_sets`` (inverse and accept-reject);
* (iii) ``scipy.stats.sampling.NumericalInversePolynomial`` on the same phi_TN density (setup and
  sampling reported separately) against ``sample_class_conditional(method="inverse")``;
* the practical floor: numpy drawing just the uniforms ``score_sets`` needs (two per score,
  one per positive and two per anchor) with ``Generator.random``.

Goals (issue 3): >= 1000x over (i), >= 3x over (ii) for ``score_sets``, within 3x of the
floor. The machine is shared, so each time is the best of ``--repeat`` runs. Usage::

    python benchmarks/bench_generators.py [--anchors 20000] [--unlabeled 128] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import random
import time

import numba
import numpy as np
import scipy.stats as st
from scipy.stats.sampling import NumericalInversePolynomial

from negtheory.dists import true_negative
from negtheory.generators import sample_class_conditional, score_sets

from _timing import min_time as best_of

ALPHA, TAU, GAMMA, T, K = 0.9, 0.1, 0.1, 0.5, 10


# ---- (i) plain Python Algorithm 7 ---------------------------------------------------------
def python_alg7_scipy(n, alpha=ALPHA, seed=0):
    """Algorithm 7 as printed: sample from phi, integrate phi up to x, accept-reject."""
    rng = np.random.default_rng(seed)
    phi = st.uniform(-4.0, 8.0)
    out = []
    for _ in range(n):
        x = phi.rvs(random_state=rng)
        cdf = phi.cdf(x)
        u = rng.uniform(0, 1)
        while u > (alpha + (1 - 2 * alpha) * cdf) / alpha:
            x = phi.rvs(random_state=rng)
            cdf = phi.cdf(x)
            u = rng.uniform(0, 1)
        out.append(x)
    return out


def python_alg7_fast(n, alpha=ALPHA, seed=0):
    """The same loop with the random module and inline uniform cdf (best case for Python)."""
    r = random.Random(seed)
    lo, hi = -4.0, 4.0
    out = []
    for _ in range(n):
        while True:
            x = r.uniform(lo, hi)
            cdf = (x - lo) / (hi - lo)
            if r.random() <= (alpha + (1 - 2 * alpha) * cdf) / alpha:
                break
        out.append(x)
    return out


# ---- (ii) numpy vectorised Algorithm 6 (inversion) ----------------------------------------
def numpy_alg6(m, n, k=K, alpha=ALPHA, tau=TAU, gamma=GAMMA, t=T, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = -1 / t**2, 1 / t**2
    half = gamma * (hi - lo) / 2
    a = lo + half * rng.random((m, 1))
    b = hi - half * rng.random((m, 1))
    p = rng.random((m, n))
    w = rng.random((m, n))
    fn = p <= tau
    cb = np.where(fn, 2 * (1 - alpha), 2 * alpha)
    ca = np.where(fn, 2 * alpha - 1, 1 - 2 * alpha)
    u = 2 * w / (cb + np.sqrt(cb * cb + 4 * ca * w))
    scores = np.exp((a + (b - a) * u) / t)
    wp = rng.random((m, k))
    cb, ca = 2 * (1 - alpha), 2 * alpha - 1
    up = 2 * wp / (cb + np.sqrt(cb * cb + 4 * ca * wp))
    pos = np.exp((a + (b - a) * up) / t)
    return scores, ~fn, pos


def floor_uniforms(m, n, k=K, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random(2 * m * n + m * k + 2 * m)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--anchors", type=int, default=20_000)
    ap.add_argument("--unlabeled", type=int, default=128)
    ap.add_argument(
        "--draws", type=int, default=2_000_000, help="draws for the single-law samplers"
    )
    ap.add_argument("--python-draws", type=int, default=2_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    m, n, d = args.anchors, args.unlabeled, args.draws
    rep = args.repeat

    # warm up (numba compile / cache load)
    score_sets(10, 8, ALPHA, TAU, rng=0)
    score_sets(10, 8, ALPHA, TAU, rng=0, method="accept-reject")
    sample_class_conditional(st.uniform(-4, 8), ALPHA, "tn", 10, method="accept-reject", rng=0)
    sample_class_conditional(st.uniform(-4, 8), ALPHA, "tn", 10, rng=0)

    rows = []

    def add(name, seconds, items):
        rows.append((name, seconds, seconds / items * 1e9))
        return seconds / items

    pd = args.python_draws
    py_scipy = add(
        f"(i) Python Alg. 7, scipy phi ({pd} draws)", best_of(lambda: python_alg7_scipy(pd), 1), pd
    )
    py_fast = add(
        f"(i') Python Alg. 7, random module ({50 * pd} draws)",
        best_of(lambda: python_alg7_fast(50 * pd), 1),
        50 * pd,
    )
    ours_ar1 = add(
        f"negtheory Alg. 7, numba ({d} draws)",
        best_of(
            lambda: sample_class_conditional(
                st.uniform(-4, 8), ALPHA, "tn", d, method="accept-reject", rng=1
            ),
            rep,
        ),
        d,
    )
    ours_inv1 = add(
        f"negtheory inverse TN, numba ({d} draws)",
        best_of(lambda: sample_class_conditional(st.uniform(-4, 8), ALPHA, "tn", d, rng=1), rep),
        d,
    )
    law = true_negative(st.uniform(-4, 8), ALPHA)
    t0 = time.perf_counter()
    pinv = NumericalInversePolynomial(
        law, domain=(-4.0, 4.0), random_state=np.random.default_rng(0)
    )
    pinv_setup = time.perf_counter() - t0
    add("(iii) scipy PINV setup (one law)", pinv_setup, 1)
    pinv_t = add(f"(iii) scipy PINV rvs ({d} draws)", best_of(lambda: pinv.rvs(d), rep), d)

    mn = m * n
    label = f"M={m}, N={n}, K={K}"
    np_t = add(
        f"(ii) numpy vectorised Alg. 6 ({label})", best_of(lambda: numpy_alg6(m, n), rep), mn
    )
    inv_t = add(
        f"negtheory score_sets inverse ({label})",
        best_of(lambda: score_sets(m, n, ALPHA, TAU, rng=1), rep),
        mn,
    )
    ar_t = add(
        f"negtheory score_sets accept-reject ({label})",
        best_of(lambda: score_sets(m, n, ALPHA, TAU, rng=1, method="accept-reject"), rep),
        mn,
    )
    fl_t = add(
        f"floor: numpy uniforms only ({label})", best_of(lambda: floor_uniforms(m, n), rep), mn
    )

    print(
        f"negtheory generator benchmark -- {os.cpu_count()} CPUs, numba threads = {numba.get_num_threads()}"
    )
    print(f"{'work':58s} {'time [s]':>10s} {'ns / item':>11s}")
    for name, s, per in rows:
        print(f"{name:58s} {s:10.4f} {per:11.1f}")
    print()
    print("ratios (per draw / per score; > 1 means negtheory is faster)")
    print(
        f"  (i)   Python Alg. 7 (scipy phi)  / numba Alg. 7       : {py_scipy / ours_ar1:10.0f}x   (goal >= 1000x)"
    )
    print(f"  (i')  Python Alg. 7 (random)     / numba Alg. 7       : {py_fast / ours_ar1:10.0f}x")
    print(
        f"  (ii)  numpy Alg. 6               / score_sets inverse : {np_t / inv_t:10.2f}x   (goal >= 3x)"
    )
    print(f"  (ii)  numpy Alg. 6               / score_sets AR      : {np_t / ar_t:10.2f}x")
    print(
        f"  (iii) scipy PINV rvs             / numba inverse      : {pinv_t / ours_inv1:10.2f}x   (+ {pinv_setup * 1e3:.1f} ms setup per law)"
    )
    print(f"  (iv)  score_sets AR / score_sets inverse              : {ar_t / inv_t:10.2f}")
    print(
        f"  floor: score_sets inverse / numpy uniforms            : {inv_t / fl_t:10.2f}   (goal <= 3)"
    )
    print(f"  floor: score_sets AR      / numpy uniforms            : {ar_t / fl_t:10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
