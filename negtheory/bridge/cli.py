"""``negtheory bridge ...`` subcommands (registered by :func:`add_bridge_parser`).

``negtheory bridge train --data synthetic|digits|movielens:PATH --model mf|mlp --loss NAME
[--epochs E] [--device auto|cpu|cuda] [--out DIR]`` trains one configuration with progress bars,
prints the final metrics and writes ``DIR/results.json`` (+ ``DIR/probes.csv``).
``negtheory bridge train --train FILE --test FILE --loss NAME [--optimizer sgd|adam] ...`` follows
the thesis's real-data protocol on an explicit split (:mod:`negtheory.recsys`,
:mod:`negtheory.bridge.recommend`) and writes ``DIR/results.json`` and ``DIR/history.csv``.
``negtheory bridge experiments [--out DIR] [--quick]`` reruns the simulation-vs-training
experiments and writes their CSV tables and PNG figures.

Importing this module does not import torch; the commands do (and fail with the ``torch``
extra's install hint when it is missing).
"""

from __future__ import annotations

import argparse
import json

__all__ = ["add_bridge_parser", "add_subparsers"]

LOSSES = ("infonce", "dcl", "hcl", "bcl", "bcl_norm", "bpr", "dpl", "bce", "relaxed_softmax", "bns", "bprac")


def _cmd_train_split(args: argparse.Namespace) -> int:
    """``bridge train --train F --test F`` (or ``--data-dir``): the thesis protocol on a real split."""
    from pathlib import Path

    from negtheory.recsys import fit_bpr_sgd, load_movielens_dir, load_split

    if args.out is not None and Path(args.out).exists() and not Path(args.out).is_dir():
        raise ValueError(f"--out {args.out} exists and is not a folder")
    if args.data_dir is not None:
        data = load_movielens_dir(args.data_dir, rng=args.split_seed)
    else:
        if not args.train or not args.test:
            raise ValueError("--train and --test go together (or give --data-dir)")
        data = load_split(args.train, args.test)
    if args.valid_fraction:
        data = data.with_validation(args.valid_fraction, rng=args.seed)
    sgd = args.optimizer == "sgd" and args.loss in ("bpr", "bns")
    if args.loss == "bns" and not sgd:
        raise ValueError("loss 'bns' is the BPR-MF SGD sampler of thesis ch. 4: use --optimizer sgd")
    if args.patience is not None and sgd:
        raise ValueError("--patience applies to the mini-batch losses (--optimizer adam); SGD runs its fixed epochs")
    topk = tuple(args.topk)
    if sgd:
        sampler = "bns" if args.loss == "bns" else args.sampler
        res = fit_bpr_sgd(data, sampler, dim=args.dim, lr=args.lr if args.lr is not None else 0.01,
                          reg=args.weight_decay if args.weight_decay is not None else 0.01,
                          epochs=args.epochs if args.epochs is not None else 100, candidates=args.candidates, lam=args.lam,
                          prior=args.prior, eval_every=args.eval_every, topk=topk,
                          eval_on="both" if len(data.valid) else "test", rng=args.seed, progress=not args.quiet)
    else:
        from negtheory.bridge.recommend import fit_mf

        milestones = () if args.lr_schedule == "none" else tuple(int(x) for x in args.lr_schedule.split(","))
        res = fit_mf(data, args.loss, dim=args.dim, epochs=args.epochs if args.epochs is not None else 200,
                     batch_size=args.batch_size if args.batch_size is not None else 1024, optimizer=args.optimizer,
                     lr=args.lr if args.lr is not None else 1e-3,
                     weight_decay=args.weight_decay if args.weight_decay is not None else 1e-5, lr_milestones=milestones,
                     negatives=args.negatives, extra_positives=args.extra_positives,
                     temperature=args.temperature if args.temperature is not None else 1.0, tau_plus=args.tau_plus,
                     hcl_beta=args.hcl_beta, alpha=args.alpha, beta=args.beta, eval_every=args.eval_every, topk=topk,
                     patience=args.patience, rng=args.seed, device=args.device, progress=not args.quiet)
    final = res["history"][-1]
    summary = {"data": data.summary(), "config": res["config"], "final": final, "seconds": round(res["seconds"], 2)}
    if res.get("best_epoch") is not None:
        summary["best_valid_epoch"] = res["best_epoch"]
        summary["at_best_valid_epoch"] = next(h for h in res["history"] if h["epoch"] == res["best_epoch"])
    print(json.dumps(summary, indent=2, default=float))
    if args.out:
        import pandas as pd

        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(summary, indent=2, default=float))
        pd.DataFrame(res["history"]).to_csv(out / "history.csv", index=False)
        print(f"wrote {out / 'results.json'} and {out / 'history.csv'}")
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    from negtheory.bridge.train import train

    if args.train or args.test or args.data_dir:
        return _cmd_train_split(args)
    for name, default in (("epochs", 5), ("batch_size", 256), ("lr", 0.01), ("weight_decay", 0.0)):
        if getattr(args, name) is None:
            setattr(args, name, default)
    kw = dict(
        data=args.data, model=args.model, loss=args.loss, epochs=args.epochs, device=args.device, out=args.out,
        rng=args.seed, progress=not args.quiet, k=args.k, batch_size=args.batch_size, lr=args.lr, dim=args.dim,
        tau_plus=args.tau_plus, alpha=args.alpha, beta=args.beta, ans=args.ans, probe=not args.no_probe,
        weight_decay=args.weight_decay, hcl_beta=args.hcl_beta,
    )  # fmt: skip
    if args.temperature is not None:
        kw["temperature"] = args.temperature
    if args.model is None:
        kw["model"] = "mlp" if args.data == "digits" else "mf"
    res = train(**kw)
    print(json.dumps({"final": res["final"], "probe": res.get("probe", {}), "seconds": round(res["seconds"], 2)}, indent=2, default=float))
    if args.out:
        print(f"wrote {res['results_file']}")
    return 0


def _cmd_experiments(args: argparse.Namespace) -> int:
    from negtheory.bridge.experiments import run_all

    run_all(out=args.out, figures=args.figures, quick=args.quick, progress=not args.quiet)
    return 0


def add_bridge_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``bridge`` command (with ``train`` and ``experiments``) to an argparse subparsers object."""
    p = subparsers.add_parser("bridge", help="torch bridge: real training to confirm the simulations (needs the torch extra)")
    bsub = p.add_subparsers(dest="bridge_command", required=True)
    q = bsub.add_parser(
        "train", help="train one configuration and write a results file",
        description="Train one configuration. With --train/--test (or --data-dir) it follows the thesis's real-data "
        "protocol: BPR-MF by SGD with a negative sampler (--optimizer sgd, loss bpr|bns) or mini-batch MF with a "
        "contrastive loss (--optimizer adam); otherwise --data picks a built-in data set.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    q.add_argument("--data", default="synthetic", help="synthetic | digits | movielens:PATH (u.data or user,item,rating CSV)")
    q.add_argument("--train", help="training interactions (CSV user,item[,rating] or u.data); ids matched to --test's")
    q.add_argument("--test", help="test interactions, same formats")
    q.add_argument("--data-dir", help="folder with MovieLens u.data, split 80/20 at random (seeded by --split-seed)")
    q.add_argument("--split-seed", type=int, default=0, help="seed of the 80/20 split of --data-dir")
    q.add_argument("--valid-fraction", type=float, default=0.0, help="share of train held out for validation / early stopping")
    q.add_argument("--patience", type=int, default=None, help="stop after this many evaluations without validation gain")
    q.add_argument("--model", choices=["mf", "mlp"], default=None, help="mf (recommendation) or mlp (default: mf, mlp for digits)")
    q.add_argument("--loss", required=True, choices=LOSSES + ("bcl_released",))
    q.add_argument("--optimizer", choices=["adam", "sgd"], default="adam", help="sgd with loss bpr|bns: batch-1 BPR-MF SGD (thesis ch. 4)")
    q.add_argument("--sampler", choices=["rns", "pns", "dns", "aobpr", "bns"], default="rns", help="negative sampler of the SGD path")
    q.add_argument("--candidates", type=int, default=5, help="|M_u| of BNS / DNS")
    q.add_argument("--lam", type=float, default=5.0, help="lambda of BNS's sampling risk (eq. 4.26)")
    q.add_argument("--prior", choices=["popularity", "oracle"], default="popularity", help="BNS prior: eq. 4.16 or Table 4.5's oracle")
    q.add_argument("--negatives", type=int, default=5, help="N negatives per pair (mini-batch losses)")
    q.add_argument("--extra-positives", type=int, default=5, help="M extra positives for DCL/HCL/DPL")
    q.add_argument("--epochs", type=int, default=None, help="default: 100 (SGD), 200 (mini-batch split), 5 (--data)")
    q.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    q.add_argument("--out", default=None, help="folder for results.json (and history.csv / probes.csv)")
    q.add_argument("--k", type=float, default=8.0, help="negatives per positive for --data runs (real values: seed 000 eq. 8)")
    q.add_argument("--ans", action="store_true", help="adaptive negative sampling schedule peaking at K (InfoNCE)")
    q.add_argument("--batch-size", type=int, default=None, help="default: 1024 (split), 256 (--data)")
    q.add_argument("--lr", type=float, default=None, help="default: 0.01 (SGD and --data), 1e-3 (Adam on a split)")
    q.add_argument("--weight-decay", type=float, default=None, help="L2: default 0.01 (SGD), 1e-5 (Adam on a split), 0 (--data)")
    q.add_argument("--lr-schedule", default="100", help="comma-separated epochs after which lr is divided by 10, or 'none'")
    q.add_argument("--eval-every", type=int, default=1, help="evaluate every this many epochs (split runs)")
    q.add_argument("--topk", type=int, nargs="+", default=[5, 10, 20], help="list lengths of P/R/NDCG")
    q.add_argument("--dim", type=int, default=32)
    q.add_argument("--temperature", type=float, default=None, help="score temperature t (default 1; 0.5 for digits)")
    q.add_argument("--tau-plus", type=float, default=0.1, help="class prior tau+ of DCL/HCL/BCL/DPL (thesis code: 0.06)")
    q.add_argument("--alpha", type=float, default=0.9, help="BCL alpha (thesis code for recommendation: 0.55)")
    q.add_argument("--beta", type=float, default=0.5, help="BCL beta (thesis code for recommendation: 0.6)")
    q.add_argument("--hcl-beta", type=float, default=1.0, help="HCL concentration beta (thesis code: 0.5)")
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--no-probe", action="store_true", help="do not record real scores with true labels")
    q.add_argument("--quiet", action="store_true", help="no progress bars")
    q.set_defaults(func=_cmd_train)
    q = bsub.add_parser("experiments", help="rerun the simulation-vs-training experiments (CSV + PNG)")
    q.add_argument("--out", default="notebooks/data/bridge", help="folder for the CSV tables")
    q.add_argument("--figures", default="figures", help="folder for the bridge_*.png figures")
    q.add_argument("--quick", action="store_true", help="reduced sizes (seconds; for smoke tests)")
    q.add_argument("--quiet", action="store_true")
    q.set_defaults(func=_cmd_experiments)
    return p


add_subparsers = add_bridge_parser  # alias: the hook name in the design brief
