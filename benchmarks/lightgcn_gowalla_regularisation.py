"""Ablation: how the thesis's "reg 1e-5" is applied decides whether LightGCN learns on Gowalla (2 epochs each).

The thesis's LightGCN rows (§4.5.1.2) state Adam, lr 0.01 and "reg 1e-5" without saying where the penalty goes;
``THESIS_LIGHTGCN`` reads it as Adam's weight decay on the whole embedding tables (coupled L2, ``penalty="weight_decay"``),
the reading that reproduces MovieLens-100K's LightGCN rows. On Gowalla a step at batch 128 touches about 1 500 of
the 70 839 nodes, so most rows get no data gradient at most steps, only the decay term wd * p; Adam divides every
coordinate's step by its own gradient scale, so such a row moves by about lr = 0.01 per step *towards zero* whatever
wd is (Kingma & Ba's update m / sqrt(v) is invariant to the gradient's scale). Its initial entries, N(0, 0.1²), are
gone after some tens of such steps. This script measures it: seed 0, uniform negatives, the thesis's settings for
two epochs under three readings of the penalty, for each loss named by ``--methods`` (default BPR; the thesis's
contrastive losses take their package defaults, as the ``thesis-tables`` LightGCN rows do):

* ``weight_decay`` (as written here): Adam's weight decay 1e-5 on every row at every step;
* ``none``: no penalty;
* ``batch-l2`` (the LightGCN release's, ``LIGHTGCN_VARIANTS["batch-l2"]``): 1e-5 times the squared norm of the
  batch's own layer-0 rows.

It reports the test NDCG@10 / recall@20 after each epoch, the final training loss, and the RMS of the layer-0
entries of the items split by training degree (rows a step rarely touches against frequent ones). One row per
(method, reading, epoch). With ``--append`` the rows of the methods run replace those already in ``--out`` and the
other methods' rows are kept. Usage::

    OMP_NUM_THREADS=1 python benchmarks/lightgcn_gowalla_regularisation.py --data gowalla/ \
        --out notebooks/data/thesis_tables_gowalla/lightgcn_regularisation.csv
    OMP_NUM_THREADS=1 python benchmarks/lightgcn_gowalla_regularisation.py --data gowalla/ --append \
        --methods infonce dcl --readings weight_decay none \
        --out notebooks/data/thesis_tables_gowalla/lightgcn_regularisation.csv
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

#: reading -> the fields of THESIS_LIGHTGCN's Adam it changes
READINGS = {
    "weight_decay": dict(),
    "none": dict(weight_decay=0.0),
    "batch-l2": dict(penalty="batch"),
}
METHODS = ("bpr", "infonce", "dcl", "hcl", "dpl", "bcl")


def main():
    from negtheory.recsys.datasets import thesis_split
    from negtheory.training import (
        BCL,
        BPR,
        DCL,
        DPL,
        HCL,
        RNS,
        THESIS_LIGHTGCN,
        Evaluation,
        InfoNCE,
        fit,
    )

    losses = {
        "bpr": BPR(),
        "infonce": InfoNCE(),
        "dcl": DCL(),
        "hcl": HCL(),
        "dpl": DPL(),
        "bcl": BCL(),
    }  # N = M = 5

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--data",
        required=True,
        help="folder of the LightGCN release's Gowalla train.txt / test.txt",
    )
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument(
        "--methods",
        nargs="+",
        default=["bpr"],
        choices=METHODS,
        help="losses to run (default: bpr)",
    )
    ap.add_argument(
        "--readings",
        nargs="+",
        default=list(READINGS),
        choices=list(READINGS),
        help="readings of the penalty",
    )
    ap.add_argument(
        "--append", action="store_true", help="keep the other methods' rows already in --out"
    )
    ap.add_argument("--out", required=True, help="CSV to write")
    args = ap.parse_args()
    if args.epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {args.epochs}")
    data = thesis_split("gowalla", args.data, rng=0)
    deg = np.bincount(data.train[:, 1], minlength=data.n_items)
    groups = {
        "items, degree <= 5": deg <= 5,
        "items, degree 6-50": (deg > 5) & (deg <= 50),
        "items, degree > 50": deg > 50,
    }
    rows = []
    for method in args.methods:
        for name in args.readings:
            model = THESIS_LIGHTGCN["model"].replace(propagation="batch")
            optimizer = THESIS_LIGHTGCN["optimizer"].replace(**READINGS[name])
            t0 = time.perf_counter()
            r = fit(
                data,
                model=model,
                loss=losses[method],
                sampler=RNS(),
                optimizer=optimizer,
                epochs=args.epochs,
                evaluation=Evaluation(ks=(10, 20)),
                rng=0,
            )
            item = r.model.item.weight.detach().numpy()
            rms = {g: float(np.sqrt((item[m] ** 2).mean())) for g, m in groups.items()}
            for h in r.history:
                rows.append(
                    dict(
                        method=method,
                        reading=name,
                        epoch=h["epoch"],
                        loss=h["loss"],
                        ndcg10=h["test_ndcg@10"],
                        recall20=h["test_recall@20"],
                        seconds=time.perf_counter() - t0,
                        **({f"rms {g}": v for g, v in rms.items()} if h is r.history[-1] else {}),
                    )
                )
            print(pd.DataFrame(rows).tail(len(r.history)).to_string(index=False), flush=True)
    df = pd.DataFrame(rows)
    if args.append and os.path.exists(args.out):
        old = pd.read_csv(args.out).drop(columns="note")
        df = pd.concat([old[~old.method.isin(args.methods)], df], ignore_index=True)
    df.insert(0, "note", "")
    df.loc[0, "note"] = (
        f"Gowalla pooled 80/20 (seed 0); LightGCN d=32, 1 layer, Adam lr 0.01, batch 128, uniform "
        f"negatives, seed 0, {args.epochs} epochs; initial entries N(0, 0.1^2) (rms 0.1); 'loss' is "
        "the mean training loss of the epoch"
    )
    df.to_csv(args.out, index=False)
    print(df.to_string(index=False))


if __name__ == "__main__":
    main()
