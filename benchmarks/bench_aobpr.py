"""AOBPR's exact rank draw: the kernel's selection against the one it replaced, in one run.

AOBPR (thesis §4.5.1.2; Rendle & Freudenthaler, WSDM 2014) draws the user's non-interacted item of
score rank r, r from P(r) ∝ exp(-r / λ). Per SGD step the batch-1 kernel scores every item and then
selects rank r among the negatives. Two selections on the same scores and uniforms:

* ``before``: the negatives' scores copied out, counting-sorted into buckets (``_bucketize``), rank r
  read from its bucket (``_bucket_rth_largest``), then a scan for the lowest index of that score;
* ``after``: ``_aobpr_neg`` (score range, a count per bucket, a gather of the one bucket holding
  rank r), which returns the same item (checked here on every draw, and in the tests).

The catalog is MovieLens-1M's size (3 706 items, 3.5 % of them the user's positives, λ = 0.05 |I|, the
package's default). The two run interleaved, ``--rounds`` times; the median per-draw time of each and
the median ratio are reported. Goal: after at least 1.5x faster than before.

Usage: python benchmarks/bench_aobpr.py [--items 3706] [--draws 20000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numba
import numpy as np

from negtheory.recsys._sgd_kernels import _aobpr_neg, _bucket_rth_largest, _bucketize, _collect_negs


@numba.njit(cache=True)
def _before(scores, pos_row, xs, q, out):
    n = scores.shape[0]
    negs = np.empty(n, np.int64)
    sbuf = np.empty(n, np.float32)
    buf = np.empty(n, np.float32)
    start = np.zeros(n + 1, np.int64)
    for t in range(xs.shape[0]):
        nn = _collect_negs(pos_row, negs)
        for k in range(nn):
            sbuf[k] = scores[negs[k]]
        _bucketize(sbuf, nn, buf, start)
        r = int(math.floor(math.log(1.0 - xs[t] * (1.0 - q**nn)) / math.log(q)))
        r = min(max(r, 0), nn - 1)
        val = _bucket_rth_largest(buf, start, nn, r)
        for k in range(nn):
            if sbuf[k] == val:
                out[t] = negs[k]
                break


@numba.njit(cache=True)
def _after(scores, pos_row, xs, q, out):
    n = scores.shape[0]
    cnt = np.empty(n + 1, np.int64)
    vbuf = np.empty(n, np.float32)
    ibuf = np.empty(n, np.int64)
    for t in range(xs.shape[0]):
        out[t] = _aobpr_neg(scores, pos_row, xs[t], q, cnt, vbuf, ibuf)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--items", type=int, default=3706)
    p.add_argument("--draws", type=int, default=20000)
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    g = np.random.default_rng(0)
    scores = g.normal(size=a.items).astype(np.float32)
    pos = np.zeros(a.items, dtype=np.bool_)
    pos[g.choice(a.items, max(1, int(0.035 * a.items)), replace=False)] = True
    q = math.exp(-1.0 / (0.05 * a.items))
    xs = g.random(a.draws)
    ob, oa = np.empty(a.draws, np.int64), np.empty(a.draws, np.int64)
    _before(scores, pos, xs[:10], q, ob[:10])  # compile / load the cache outside the timings
    _after(scores, pos, xs[:10], q, oa[:10])
    tb, ta = [], []
    for _ in range(a.rounds):
        t0 = time.perf_counter()
        _before(scores, pos, xs, q, ob)
        tb.append((time.perf_counter() - t0) / a.draws * 1e6)
        t0 = time.perf_counter()
        _after(scores, pos, xs, q, oa)
        ta.append((time.perf_counter() - t0) / a.draws * 1e6)
    assert np.array_equal(ob, oa), "the two selections drew different items"
    ratio = statistics.median(b / x for b, x in zip(tb, ta))
    print(
        f"AOBPR rank draw, {a.items} items, {a.draws} draws x {a.rounds} rounds (interleaved); same items: yes"
    )
    print(f"  before (copy + bucket sort + scan): {statistics.median(tb):.2f} us a draw")
    print(f"  after  (_aobpr_neg):                {statistics.median(ta):.2f} us a draw")
    print(
        f"  ratio before / after: {ratio:.2f}x  (goal >= 1.5x: {'met' if ratio >= 1.5 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
