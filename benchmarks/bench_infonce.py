"""Benchmark: the Fig. 4 curve (optimal K against mu_q) of seed 000.

Work: n_mu values of mu_q (default 100), K = 1..1000, lambda = 0.9, training curve
mu'(t) = mu_q (1 - e^{-t}) on [0, 3].

* baseline -- a straightforward vectorised numpy implementation: Gauss-Hermite quadrature in x
  (64 nodes) for P(A) and for P(B) at each of T = 100 trajectory steps (one evaluation per
  step), all K at once by broadcasting Phi(mu + z)^K;
* negtheory -- ``effectiveness_curve`` / ``optimal_k``: continuous average (Gauss-Legendre in t)
  and the same T = 100 discrete average as the baseline, on one shared x-grid.

Everything is measured in the same run; the script prints times and ratios (goal: >= 50x the
baseline, the whole curve well under a second on 2 cores). Usage::

    python benchmarks/bench_infonce.py [--n-mu 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from scipy.special import ndtr

import negtheory
from negtheory import infonce

from _timing import best_of


def baseline_curve(mus, k_max=1000, lam=0.9, t_max=3.0, steps=100, n_gh=64):
    z, w = np.polynomial.hermite_e.hermegauss(n_gh)
    w = w / w.sum()  # E[f(Z)], Z ~ N(0, 1)
    ks = np.arange(1, k_max + 1)
    ts = np.linspace(0.0, t_max, steps)
    out = np.empty((len(mus), k_max))
    for i, mu in enumerate(mus):
        a = w @ (ndtr(mu + z)[:, None] ** ks[None, :])
        b = np.zeros(k_max)
        for t in ts:  # one evaluation per trajectory step
            b += w @ (ndtr(mu * (1 - np.exp(-t)) + z)[:, None] ** ks[None, :])
        b /= steps
        good, bad = a * (1 - b), b * (1 - a)
        out[i] = lam * (good - bad) + (1 - lam) * (1 - good - bad)
    return out


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n-mu", type=int, default=100)
    ap.add_argument("--k-max", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    mus = np.linspace(0.2, 4.5, args.n_mu)

    t0 = time.perf_counter()
    infonce.effectiveness_curve(mus[:2], k_max=5)
    infonce.effectiveness_curve(mus[:2], k_max=5, steps=100)
    compile_s = time.perf_counter() - t0

    t_cont, v_cont = best_of(
        lambda: infonce.effectiveness_curve(mus, k_max=args.k_max), args.repeat
    )
    t_disc, v_disc = best_of(
        lambda: infonce.effectiveness_curve(mus, k_max=args.k_max, steps=100), args.repeat
    )
    t_base, v_base = best_of(lambda: baseline_curve(mus, args.k_max), 1)

    k_base = v_base.argmax(axis=1) + 1
    k_disc = v_disc.argmax(axis=1) + 1
    print(f"negtheory {negtheory.__version__}, numba threads: {os.cpu_count()} cpus")
    print(f"Fig. 4 curve: {args.n_mu} values of mu_q x K = 1..{args.k_max}")
    print(f"  first-call compilation / cache load      {compile_s:8.3f} s")
    print(f"  baseline numpy (Gauss-Hermite, T=100)     {t_base:8.3f} s")
    print(
        f"  negtheory, discrete average T=100         {t_disc:8.4f} s   ratio {t_base / t_disc:7.1f}x"
    )
    print(
        f"  negtheory, continuous average             {t_cont:8.4f} s   ratio {t_base / t_cont:7.1f}x"
    )
    print(
        f"  max |v_baseline - v_negtheory| (T=100)    {np.abs(v_base - v_disc).max():.2e}  (Gauss-Hermite error of the baseline)"
    )
    print(
        f"  K* agreement baseline vs negtheory T=100  {np.mean(k_base == k_disc):.0%} of mu_q values"
    )


if __name__ == "__main__":
    main()
