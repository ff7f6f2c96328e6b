"""Benchmark: one point of the thesis's MSE study (§6.6.1) at the defaults.

alpha = 0.9, gamma = 0.1, tau+ = 0.1, t = 0.5, N = 64, K = 10 extra positives, beta = 0.5,
n_anchors = 2e4, estimators biased / dcl / hcl / bcl / bcl_norm and the truth theta_SUP.

* (i) plain Python, the thesis's algorithm as written: loops over anchors and scores,
  accept-reject (Algorithms 7-8) per score with the ``random`` module, estimators in loops (eCDF
  by ``sorted`` + ``bisect``). Timed on a subsample of anchors and scaled linearly (stated).
  (i') the same loops drawing every number by a scalar call to a numpy Generator.
* (ii) vectorised numpy: inverse-CDF generation for all anchors at once, estimators by array
  operations (eCDF ranks by ``argsort``).
* negtheory: ``mse_study("alpha", [0.9], n_anchors=20000)``.

Also the peak resident memory of an n_anchors = 10^6 study (chunked, in a subprocess) against
the memory the score matrix alone would need. Goals: >= 300x (i), >= 3x (ii) at 1 and 2
threads: for each thread count (``numba.set_num_threads``; numpy's baseline is single-threaded
either way) negtheory and numpy are timed in turn, ``--rounds`` times (interleaved, so load on a
shared machine hits both alike), and the median ratio is reported with the goal.

Usage::

    python benchmarks/bench_studies.py [--n-anchors 20000] [--python-anchors 400] [--skip-memory]
                                       [--threads 1 2] [--rounds 9] [--skip-python]
"""

from __future__ import annotations

import argparse
import bisect
import math
import random
import statistics
import subprocess
import sys
import time

import numba
import numpy as np

from negtheory.studies import Execution, mse_study

ALPHA, GAMMA, TAU, T, N, K, BETA = 0.9, 0.1, 0.1, 0.5, 64, 10, 0.5
LO, HI = -1 / T**2, 1 / T**2  # the released code's base interval


# ------------------------------------------------------------------------------ (i) plain Python
def python_point(n_anchors, seed=0, numpy_scalars=False):
    """The thesis's algorithm in loops. ``numpy_scalars``: draw each number with a scalar call to
    a numpy Generator (as research code usually does) instead of the faster ``random`` module."""
    if numpy_scalars:
        g = np.random.default_rng(seed)

        class _R:  # the two calls the loop uses, one numpy scalar draw each
            random = staticmethod(lambda: float(g.random()))
            uniform = staticmethod(lambda a, b: float(g.uniform(a, b)))

        rng = _R()
    else:
        rng = random.Random(seed)
    sq = []

    def draw(a, b, false_negative):
        while True:  # Algorithms 7-8: proposal U(a, b), envelope 2 alpha
            x = rng.uniform(a, b)
            u = (x - a) / (b - a)
            p = (
                (1 - ALPHA + (2 * ALPHA - 1) * u) / ALPHA
                if false_negative
                else (ALPHA + (1 - 2 * ALPHA) * u) / ALPHA
            )
            if rng.random() < p:
                return x

    tm = 1 - TAU
    qa = (1 - 2 * ALPHA) * (tm - TAU)
    qb = 2 * (ALPHA * tm + (1 - ALPHA) * TAU)
    z = (1 - BETA) * ALPHA + BETA * (1 - ALPHA)
    for _ in range(n_anchors):
        a = rng.uniform(LO, LO + GAMMA * (HI - LO) / 2)
        b = rng.uniform(HI - GAMMA * (HI - LO) / 2, HI)
        scores, tn = [], []
        for _ in range(N):
            fn = rng.random() < TAU
            scores.append(math.exp(draw(a, b, fn) / T))
            tn.append(not fn)
        pos = [math.exp(draw(a, b, True) / T) for _ in range(K)]
        n_tn = sum(tn)
        truth = sum(s for s, f in zip(scores, tn) if f) / n_tn
        mean = sum(scores) / N
        pmean = sum(pos) / K
        biased = mean
        dcl = (mean - TAU * pmean) / tm
        w = [s**BETA for s in scores]
        hcl = (sum(wi * s for wi, s in zip(w, scores)) / sum(w) - TAU * pmean) / tm
        srt = sorted(scores)
        sw = swx = 0.0
        for s in scores:
            u = bisect.bisect_right(srt, s) / N
            phi = 2 * u / (qb + math.sqrt(max(qb * qb + 4 * qa * u, 0.0)))
            wgt = ((1 - BETA) * ALPHA + (BETA - ALPHA) * phi) / (
                z * (ALPHA * tm + (1 - ALPHA) * TAU + (1 - 2 * ALPHA) * phi * (tm - TAU))
            )
            sw += wgt
            swx += wgt * s
        sq.append([(e - truth) ** 2 for e in (biased, dcl, hcl, swx / N, swx / sw)])
    return [sum(col) / len(sq) for col in zip(*sq)]


# ------------------------------------------------------------------------------ (ii) numpy
def numpy_point(n_anchors, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(LO, LO + GAMMA * (HI - LO) / 2, (n_anchors, 1))
    b = rng.uniform(HI - GAMMA * (HI - LO) / 2, HI, (n_anchors, 1))

    def inverse(v, false_negative):  # exact inverse CDF in u = Phi(x)
        A, B = (2 * ALPHA - 1, 2 * (1 - ALPHA)) if false_negative else (1 - 2 * ALPHA, 2 * ALPHA)
        return 2 * v / (B + np.sqrt(np.maximum(B * B + 4 * A * v, 0)))

    fn = rng.random((n_anchors, N)) < TAU
    v = rng.random((n_anchors, N))
    u = np.where(fn, inverse(v, True), inverse(v, False))
    scores = np.exp((a + (b - a) * u) / T)
    pos = np.exp((a + (b - a) * inverse(rng.random((n_anchors, K)), True)) / T)
    tn = ~fn
    truth = (scores * tn).sum(1) / tn.sum(1)
    tm = 1 - TAU
    pmean = pos.mean(1)
    mean = scores.mean(1)
    w = scores**BETA
    est = [mean, (mean - TAU * pmean) / tm, ((w * scores).sum(1) / w.sum(1) - TAU * pmean) / tm]
    order = np.argsort(scores, axis=1)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, N + 1)[None, :], axis=1)
    uu = ranks / N
    qa = (1 - 2 * ALPHA) * (tm - TAU)
    qb = 2 * (ALPHA * tm + (1 - ALPHA) * TAU)
    phi = 2 * uu / (qb + np.sqrt(np.maximum(qb * qb + 4 * qa * uu, 0)))
    z = (1 - BETA) * ALPHA + BETA * (1 - ALPHA)
    wgt = ((1 - BETA) * ALPHA + (BETA - ALPHA) * phi) / (
        z * (ALPHA * tm + (1 - ALPHA) * TAU + (1 - 2 * ALPHA) * phi * (tm - TAU))
    )
    est += [(wgt * scores).mean(1), (wgt * scores).sum(1) / wgt.sum(1)]
    return [float(((e - truth) ** 2).mean()) for e in est]


MEMORY_SNIPPET = """
import resource, sys
from negtheory.studies import Execution, mse_study
mse_study("alpha", [0.9], n_anchors=int(sys.argv[1]), execution=Execution(progress=False, chunk_size=65536))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n-anchors", type=int, default=20_000)
    ap.add_argument(
        "--python-anchors",
        type=int,
        default=400,
        help="anchors timed for the plain-Python baseline",
    )
    ap.add_argument("--memory-anchors", type=int, default=1_000_000)
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument(
        "--skip-python", action="store_true", help="skip the plain-Python baselines (i), (i')"
    )
    ap.add_argument(
        "--threads", type=int, nargs="+", default=[1, 2], help="numba thread counts to time (ii) at"
    )
    ap.add_argument(
        "--rounds", type=int, default=9, help="interleaved rounds per thread count (medians)"
    )
    args = ap.parse_args()
    m = args.n_anchors
    old_threads = numba.get_num_threads()

    def study():
        return mse_study("alpha", [0.9], n_anchors=m, execution=Execution(progress=False))

    mse_study(
        "alpha", [0.9], n_anchors=2000, execution=Execution(progress=False)
    )  # compile / load the cache
    numpy_point(1000)
    print(f"one study point at the thesis defaults, n_anchors = {m}, N = {N}, K = {K}")
    ratios = {}
    for nt in args.threads:
        numba.set_num_threads(min(nt, numba.config.NUMBA_NUM_THREADS))
        study()
        tn, tp = [], []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            df = study()
            tn.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            mse_np = numpy_point(m)
            tp.append(time.perf_counter() - t0)
        r = statistics.median(a / b for a, b in zip(tp, tn))
        ratios[nt] = (statistics.median(tn), statistics.median(tp), r)
        print(
            f"  threads={numba.get_num_threads()}: negtheory mse_study {1e3 * ratios[nt][0]:8.1f} ms, (ii) vectorised numpy "
            f"{1e3 * ratios[nt][1]:8.1f} ms  ratio (ii)/negtheory {r:5.2f}x  goal >= 3: {'met' if r >= 3 else 'NOT met'}"
        )
    numba.set_num_threads(old_threads)
    t_nt = min(v[0] for v in ratios.values())
    if not args.skip_python:
        t0 = time.perf_counter()
        mse_py = python_point(args.python_anchors)
        t_py = (time.perf_counter() - t0) * m / args.python_anchors
        t0 = time.perf_counter()
        python_point(args.python_anchors // 4, numpy_scalars=True)
        t_pyn = (time.perf_counter() - t0) * m / (args.python_anchors // 4)
        print(
            f"  (i)  plain Python, random module (timed on {args.python_anchors} anchors, scaled)   {t_py:9.2f} s   ratio {t_py / t_nt:8.0f}x  goal >= 300: {'met' if t_py / t_nt >= 300 else 'NOT met'}"
        )
        print(
            f"  (i') plain Python, numpy scalar draws (timed on {args.python_anchors // 4} anchors, scaled) {t_pyn:9.2f} s   ratio {t_pyn / t_nt:8.0f}x"
        )
    names = list(df.estimator)
    print("  MSE by estimator (same law, different random numbers):")
    print("    " + "  ".join(f"{n:>9s}" for n in names))
    print("    negtheory " + "  ".join(f"{v:9.1f}" for v in df.mse))
    print("    numpy     " + "  ".join(f"{v:9.1f}" for v in mse_np))
    if not args.skip_python:
        print(
            "    python    "
            + "  ".join(f"{v:9.1f}" for v in mse_py)
            + f"   ({args.python_anchors} anchors)"
        )

    if not args.skip_memory:
        # peak RSS at two sizes: flat in n_anchors = memory bounded by the chunk, not by M
        for n_mem in (args.memory_anchors // 10, args.memory_anchors):
            t0 = time.perf_counter()
            res = subprocess.run(
                [sys.executable, "-c", MEMORY_SNIPPET, str(n_mem)],
                capture_output=True,
                text=True,
                check=True,
            )
            peak_mib = int(res.stdout.strip().splitlines()[-1]) / 1024
            full_mib = n_mem * N * (8 + 1) / 2**20
            print(
                f"  n_anchors = {n_mem:.0e}: {time.perf_counter() - t0:5.1f} s, peak RSS {peak_mib:4.0f} MiB "
                f"(the scores and labels alone, held at once, would need {full_mib:.0f} MiB)"
            )


if __name__ == "__main__":
    main()
