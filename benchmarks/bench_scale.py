"""Benchmark: training and evaluation at Gowalla's scale in memory proportional to the interactions (issue 29).

Work, one subprocess per case (so each peak resident memory, ``resource.getrusage`` max RSS, is the
case's own, data loading included):

* Gowalla, the LightGCN release's split (29 858 users x 40 981 items, 810 128 train / 217 242 test
  pairs; files given by ``--gowalla DIR`` holding ``train.txt[.gz]`` / ``test.txt[.gz]``; skipped
  when absent): one epoch and its evaluation (Precision / Recall / NDCG at 5, 10, 20 on all test
  items, training items masked, ranked in blocks of users) of

  - BPR-MF by batch-1 SGD (:func:`negtheory.training.fit` with ``optimizer=SGD()``), d = 64, with RNS,
    DNS (5 candidates) and BNS with the scalable eCDF (``BNS(f_sample=256)``);
  - mini-batch MF (:func:`negtheory.training.fit` with ``optimizer=Adam(batch_size=2048)``, torch, CPU),
    d = 64, N = 5 uniform negatives, InfoNCE and BCL;
  - the K sweep's validation AUC (:func:`negtheory.reproduce.wu_k_sweep.validation_auc_blocks`, 10 % of
    train held out, every held-out pair against every other item of its user) of an MF with random
    d = 32 embeddings: the AUC's own time and memory, no training (``epoch_with_eval_s`` is the AUC's);

* MovieLens-1M, a random 80/20 split (``--ml1m FILE``, ``user,item`` lines, gzipped or not): one
  epoch with its evaluation of BPR-MF by batch-1 SGD (d = 32) with RNS, DNS, exact BNS and BNS with
  ``f_sample`` 32 and 256, and the BNS / RNS ratio of the epoch times.

Goal (issue 29): peak memory under 8 GB for every Gowalla run; a BNS epoch within 3x an RNS epoch
on MovieLens-1M. Times are wall-clock on whatever CPU runs them (shared machines are noisy: the
results file states the load). Usage::

    python benchmarks/bench_scale.py --gowalla DIR --ml1m FILE [--out benchmarks/results/2026-11-26_scale.txt]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

GOWALLA_CASES = {
    "gowalla sgd rns": dict(trainer="sgd", sampler="rns"),
    "gowalla sgd dns": dict(trainer="sgd", sampler="dns"),
    "gowalla sgd bns f256": dict(trainer="sgd", sampler="bns", bns_f_sample=256),
    "gowalla mf infonce": dict(trainer="mf", loss="infonce"),
    "gowalla mf bcl": dict(trainer="mf", loss="bcl"),
    "gowalla k-sweep auc": dict(trainer="auc"),
}
ML1M_CASES = {
    "ml1m sgd rns": dict(trainer="sgd", sampler="rns"),
    "ml1m sgd dns": dict(trainer="sgd", sampler="dns"),
    "ml1m sgd bns exact": dict(trainer="sgd", sampler="bns"),
    "ml1m sgd bns f32": dict(trainer="sgd", sampler="bns", bns_f_sample=32),
    "ml1m sgd bns f256": dict(trainer="sgd", sampler="bns", bns_f_sample=256),
}


def _files(folder: Path):
    out = []
    for name in ("train.txt", "test.txt"):
        for cand in (folder / name, folder / f"{name}.gz"):
            if cand.is_file():
                out.append(cand)
                break
    return out if len(out) == 2 else None


def _run_case(args) -> dict:
    """The body of one subprocess: load, warm the kernels on a small split, train one epoch, measure."""
    import numpy as np

    from negtheory.recsys import load_split, split_interactions
    from negtheory.recsys.metrics import topk_metrics_csr
    from negtheory.training import BCL, BNS, DNS, MF, RNS, Adam, InfoNCE, fit

    case = {**GOWALLA_CASES, **ML1M_CASES}[args.case]
    t0 = time.perf_counter()
    if args.case.startswith("gowalla"):
        tr, te = _files(Path(args.gowalla))
        data = load_split(str(tr), str(te), format="lightgcn")
        dim = 64
    else:
        data = split_interactions(args.ml1m, 0.2, rng=0)
        dim = 32
    load_s = time.perf_counter() - t0
    # compile / warm up on a tiny split so the timed epoch measures the work, not numba's compilation
    rng = np.random.default_rng(0)
    small = np.unique(rng.integers(0, [50, 80], size=(1500, 2)), axis=0)
    small = load_split(small[:1200], small[1200:])
    if (
        case["trainer"] == "auc"
    ):  # the K sweep's validation AUC on its own: random embeddings, no training
        from negtheory.recsys.loop import ScoreMatrix
        from negtheory.reproduce.wu_k_sweep import validation_auc_blocks

        vdata = data.with_validation(0.1, rng=0)
        emb = np.random.default_rng(1)
        scores = ScoreMatrix.from_embeddings(
            emb.normal(size=(data.n_users, 32)).astype(np.float32),
            emb.normal(size=(data.n_items, 32)).astype(np.float32),
        )
        t1 = time.perf_counter()
        auc = validation_auc_blocks(scores, vdata)
        return dict(
            case=args.case,
            n_users=data.n_users,
            n_items=data.n_items,
            n_valid=len(vdata.valid),
            epoch_with_eval_s=round(time.perf_counter() - t1, 2),
            auc=round(auc, 4),
            peak_rss_gb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2, 3),
        )
    if (
        case["trainer"] == "sgd"
    ):  # BPR-MF by batch-1 SGD (the defaults of fit: BPR, SGD lr 0.01, reg 0.01)
        sampler = {
            "rns": RNS(),
            "dns": DNS(candidates=5),
            "bns": BNS(f_sample=case.get("bns_f_sample")),
        }[case["sampler"]]
        kw = dict(model=MF(dim=dim), sampler=sampler)
    else:  # mini-batch MF: Adam lr 1e-3, weight decay 1e-5 (lr / 10 after epoch 100), N = 5 uniform negatives
        loss = {"infonce": InfoNCE(negatives=5), "bcl": BCL(negatives=5)}[case["loss"]]
        kw = dict(model=MF(dim=dim), loss=loss, optimizer=Adam(batch_size=2048, milestones=(100,)))
    fit(small, **kw, epochs=1)
    t1 = time.perf_counter()
    r = fit(data, **kw, epochs=args.epochs)
    scores = r.scores
    total = time.perf_counter() - t1
    t2 = time.perf_counter()
    topk_metrics_csr(scores, data.test_csr(), (data.train_csr(),), (5, 10, 20))
    eval_s = time.perf_counter() - t2
    h = r.history[-1]
    return dict(
        case=args.case,
        n_users=data.n_users,
        n_items=data.n_items,
        n_train=len(data.train),
        epochs=args.epochs,
        load_s=round(load_s, 2),
        epoch_with_eval_s=round(total / args.epochs, 2),
        eval_s=round(eval_s, 2),
        recall20=h.get("test_recall@20"),
        ndcg20=h.get("test_ndcg@20"),
        peak_rss_gb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2, 3),
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--gowalla", help="folder with Gowalla's train.txt[.gz] / test.txt[.gz] (LightGCN release)"
    )
    ap.add_argument("--ml1m", help="MovieLens-1M interactions: user,item lines (gzipped or not)")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--out", default=None, help="results file (default: print only)")
    ap.add_argument("--only", default=None, help="run the cases whose name contains this")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(_run_case(args)))
        return
    cases = []
    if args.gowalla and _files(Path(args.gowalla)):
        cases += list(GOWALLA_CASES)
    else:
        print("Gowalla: no --gowalla folder with train.txt[.gz] / test.txt[.gz]: skipped")
    if args.ml1m and Path(args.ml1m).is_file():
        cases += list(ML1M_CASES)
    else:
        print("MovieLens-1M: no --ml1m file: skipped")
    if args.only:
        cases = [c for c in cases if args.only in c]
    rows = []
    for c in cases:
        cmd = [sys.executable, __file__, "--case", c, "--epochs", str(args.epochs)]
        cmd += ["--gowalla", args.gowalla] if args.gowalla else []
        cmd += ["--ml1m", args.ml1m] if args.ml1m else []
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            row = dict(case=c, error=(p.stderr.strip().splitlines() or ["?"])[-1])
        else:
            row = json.loads(p.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(json.dumps(row), flush=True)
    lines = [
        "# bench_scale (issue 29): one epoch + evaluation per case, peak RSS per subprocess (data loading included)",
        f"# {platform.platform()}, python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load average at the end {os.getloadavg()[0]:.1f}",
    ]
    lines += [json.dumps(r) for r in rows]
    t = {r["case"]: r.get("epoch_with_eval_s") for r in rows}
    for b in ("ml1m sgd bns exact", "ml1m sgd bns f32", "ml1m sgd bns f256", "ml1m sgd dns"):
        if t.get(b) and t.get("ml1m sgd rns"):
            lines.append(f"ratio {b} / rns epoch (with evaluation): {t[b] / t['ml1m sgd rns']:.2f}")
    peaks = [
        r["peak_rss_gb"] for r in rows if r["case"].startswith("gowalla") and "peak_rss_gb" in r
    ]
    if peaks:
        lines.append(f"largest Gowalla peak RSS: {max(peaks):.2f} GB (goal < 8 GB)")
    print("\n".join(lines[-3:]))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
