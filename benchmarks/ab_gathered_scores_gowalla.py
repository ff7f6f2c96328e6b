"""The fused CPU kernels' parallel compilation against their serial one, on real Gowalla training epochs.

``bench_gathered_scores.py`` times one step on a synthetic Gowalla-sized table; this script times whole epochs of
``negtheory.training.fit`` on the real data, with the rung of MF-CCL's released protocol
(``infonce-n800-simplex-adam-cut19-30-released-model-clip10-released-sampler``: cosine MF with the released model,
800 catalogue-uniform negatives a row, batch 256, Adam with clipping). Every step has the real run's shape (the whole
40 981-item table, 256 x 800 scores), but an epoch covers a random ``--fraction`` of the training pairs (the rest is
held out with ``with_validation``), so that one epoch takes seconds instead of minutes.

Two variants, interleaved in one process (so torch's and numba's thread settings are the same for both):

* ``parallel``: the package as it runs (the kernels' ``parallel=True`` compilation when the step is large and the
  process has several threads);
* ``serial``: the kernels' serial compilation, forced by replacing ``gathered_scores._threads`` for the round.

Each round runs ``--epochs`` epochs of each variant (the order alternates between rounds) and times each epoch's
``run_epoch`` alone (the ranking after the last epoch is not timed). Reported: the median seconds per epoch of each
variant and the median over rounds of the ratio serial / parallel (above 1: the parallel kernels are faster).

Usage: python benchmarks/ab_gathered_scores_gowalla.py GOWALLA_DIR [--fraction 0.1] [--epochs 2] [--rounds 3]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numba
import torch

import negtheory
import negtheory.bridge.gathered_scores as gs
import negtheory.bridge.recommend as rec
from negtheory.recsys.datasets import thesis_split
from negtheory.reproduce.gowalla_benchmark import rung_specs
from negtheory.training import Evaluation, fit

RUNG = "infonce-n800-simplex-adam-cut19-30-released-model-clip10-released-sampler"
TIMES: list[float] = []


def _timed(run_epoch):
    def wrapper(self, epoch):
        t0 = time.perf_counter()
        out = run_epoch(self, epoch)
        TIMES.append(time.perf_counter() - t0)
        return out

    return wrapper


def _epochs(data, variant: str, epochs: int, seed: int) -> list[float]:
    """``epochs`` epochs of the rung under ``variant``: the seconds of each."""
    threads = gs._threads
    if variant == "serial":
        gs._threads = lambda work: 1
    TIMES.clear()
    try:
        fit(
            data,
            **rung_specs(RUNG),
            epochs=epochs,
            evaluation=Evaluation(every=epochs, ks=(20,), on="test"),
            rng=seed,
        )
    finally:
        gs._threads = threads
    return list(TIMES)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "data",
        help="folder with Gowalla's train.txt and test.txt (or .gz), the LightGCN release's files",
    )
    p.add_argument(
        "--fraction", type=float, default=0.1, help="share of the training pairs an epoch covers"
    )
    p.add_argument("--epochs", type=int, default=2, help="epochs per variant and round")
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args(argv)
    if not 0 < a.fraction <= 1:
        raise ValueError(f"--fraction must be in (0, 1], got {a.fraction}")
    rec._MFRunner.run_epoch = _timed(rec._MFRunner.run_epoch)
    data = thesis_split("gowalla-lightgcn", a.data)
    if a.fraction < 1:
        data = data.with_validation(1 - a.fraction, rng=0)
    print(
        f"negtheory {negtheory.__version__}, torch {torch.__version__} ({torch.get_num_threads()} threads), numba "
        f"{numba.__version__} ({numba.get_num_threads()} threads), {platform.processor() or platform.machine()}"
    )
    print(f"{RUNG}: {len(data.train)} training pairs an epoch, {data.n_items} items")
    _epochs(data, "parallel", 1, 0)  # compile both paths and warm the caches; not timed
    _epochs(data, "serial", 1, 0)
    per = {"parallel": [], "serial": []}
    ratios = []
    for r in range(a.rounds):
        order = ("parallel", "serial") if r % 2 == 0 else ("serial", "parallel")
        got = {v: _epochs(data, v, a.epochs, r) for v in order}
        for v, t in got.items():
            per[v] += t
        ratios.append(statistics.median(got["serial"]) / statistics.median(got["parallel"]))
        print(
            f"round {r}: "
            + ", ".join(f"{v} {' '.join(f'{x:.2f}' for x in got[v])} s" for v in order)
            + f"; serial / parallel {ratios[-1]:.3f}"
        )
    print(
        f"median s/epoch: parallel {statistics.median(per['parallel']):.2f}, serial {statistics.median(per['serial']):.2f}; "
        f"serial / parallel, median over rounds {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})"
    )


if __name__ == "__main__":
    main()
