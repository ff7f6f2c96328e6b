"""Benchmark: what probing costs a training epoch (goal: a probed epoch <= 1.5x an unprobed one).

Work: one epoch of BPR-MF by batch-1 SGD with RNS (:func:`negtheory.training.fit`'s defaults) and one
of mini-batch MF with InfoNCE (``fit(model=MF(), loss=InfoNCE(), optimizer=Adam(...))``, torch on the
CPU, when torch is installed), each evaluated after the epoch (P/R/NDCG@10 over all items), on a
MovieLens-100K-sized split; the probed run adds a :class:`negtheory.recsys.score_probe.ScoreProbe`
callback with the defaults of ``negtheory reproduce sim-vs-train`` (8192 eval anchors with N = 5,
256 fit items per user). The probe's ``epoch=0`` call on the initial scores is timed apart (it
also measures the variance-gamma prior's KS distance, once per run).

Two ways of probing are timed: ``live`` (the probe measures inside the training loop, the
default of :class:`~negtheory.recsys.score_probe.ScoreProbe`) and ``snapshot`` (the loop only
copies the score matrix; the same measurements run after training — how ``negtheory reproduce
sim-vs-train`` probes), with the time the snapshot's deferred measurements take after training.
The baseline (unprobed) and the probed runs are interleaved; the median of the per-pair ratios is
reported. The split is user-supplied (``--train/--test``, or ``$NEGTHEORY_ML100K`` holding
``100k_train.csv``/``100k_test.csv``); without one a synthetic split of the same size is used.
Usage::

    python benchmarks/bench_probe.py [--train F --test F] [--repeat 5] [--epochs 3]
"""

from __future__ import annotations

import os
import platform
import statistics
import time

import numpy as np
from bench_training import benchmark_split, split_parser

import negtheory
from negtheory.recsys.score_probe import ScoreProbe
from negtheory.training import MF, Adam, Evaluation, InfoNCE, fit


class _Skip0:
    """A probe whose epoch-0 call is skipped (timed separately): only evaluated epochs are probed."""

    def __init__(self, probe):
        self.probe = probe

    def __call__(self, epoch, scores):
        if epoch:
            return self.probe(epoch, scores)
        return None


def main():
    p = split_parser(__doc__)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--epochs", type=int, default=3)
    a = p.parse_args()
    data = benchmark_split(a.train if a.test else None, a.test)
    print(
        f"negtheory {negtheory.__version__}, python {platform.python_version()}, {os.cpu_count()} cpus; {data.summary()}"
    )
    ev = Evaluation(ks=(10,))
    trainers = {"sgd rns": lambda cbs: fit(data, epochs=a.epochs, evaluation=ev, callbacks=cbs)}
    try:
        import torch  # noqa: F401  (the mini-batch engine's)

        # the released code's mini-batch MF (Adam lr 1e-3, weight decay 1e-5, batch 1024), N = 5 uniform negatives
        trainers["mf infonce"] = lambda cbs: fit(
            data,
            model=MF(),
            loss=InfoNCE(),
            optimizer=Adam(milestones=(100,)),
            epochs=a.epochs,
            evaluation=ev,
            callbacks=cbs,
        )
    except ImportError:
        print("torch not installed: mini-batch MF skipped")
    for name, train in trainers.items():
        train([])  # compile / warm up
        plain_t, live_t, snap_t, after_t, live_r, snap_r = [], [], [], [], [], []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            train([])
            t1 = time.perf_counter()
            train([_Skip0(ScoreProbe(data, rng=0))])
            t2 = time.perf_counter()
            snap = ScoreProbe(data, rng=0, snapshot=True)
            train([_Skip0(snap)])
            t3 = time.perf_counter()
            snap.frame()  # the deferred measurements, after training
            t4 = time.perf_counter()
            plain_t.append((t1 - t0) / a.epochs)
            live_t.append((t2 - t1) / a.epochs)
            snap_t.append((t3 - t2) / a.epochs)
            after_t.append((t4 - t3) / a.epochs)
            live_r.append((t2 - t1) / (t1 - t0))
            snap_r.append((t3 - t2) / (t1 - t0))
        t0 = time.perf_counter()
        ScoreProbe(data, rng=0, prior=(32, 0.01))(
            0, np.zeros((data.n_users, data.n_items)) + np.arange(data.n_items) * 1e-3
        )
        init = time.perf_counter() - t0
        med = statistics.median
        print(
            f"{name}: epoch {med(plain_t) * 1e3:.0f} ms unprobed; live probe {med(live_t) * 1e3:.0f} ms, median ratio "
            f"{med(live_r):.2f}; snapshot probe {med(snap_t) * 1e3:.0f} ms, median ratio {med(snap_r):.2f} (goal <= 1.5), "
            f"then {med(after_t) * 1e3:.0f} ms per probe point after training; the epoch-0 probe with the "
            f"variance-gamma KS: {init * 1e3:.0f} ms once per run"
        )


if __name__ == "__main__":
    main()
