"""``negtheory bridge ...`` subcommands (registered by :func:`add_bridge_parser`).

``negtheory bridge train --data synthetic|digits|movielens:PATH --model mf|mlp --loss NAME
[--epochs E] [--device auto|cpu|cuda] [--out DIR]`` trains one configuration with progress bars,
prints the final metrics and writes ``DIR/results.json`` (+ ``DIR/probes.csv``).
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


def _cmd_train(args: argparse.Namespace) -> int:
    from negtheory.bridge.train import train

    kw = dict(
        data=args.data, model=args.model, loss=args.loss, epochs=args.epochs, device=args.device, out=args.out,
        seed=args.seed, progress=not args.quiet, k=args.k, batch_size=args.batch_size, lr=args.lr, dim=args.dim,
        tau_plus=args.tau_plus, alpha=args.alpha, beta=args.beta, ans=args.ans, probe=not args.no_probe,
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
    q = bsub.add_parser("train", help="train one configuration and write a results file")
    q.add_argument("--data", default="synthetic", help="synthetic | digits | movielens:PATH (u.data or user,item,rating CSV)")
    q.add_argument("--model", choices=["mf", "mlp"], default=None, help="mf (recommendation) or mlp (default: mf, mlp for digits)")
    q.add_argument("--loss", required=True, choices=LOSSES)
    q.add_argument("--epochs", type=int, default=5)
    q.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    q.add_argument("--out", default=None, help="folder for results.json and probes.csv")
    q.add_argument("--k", type=float, default=8.0, help="negatives per positive (real values: seed 000 eq. 8)")
    q.add_argument("--ans", action="store_true", help="adaptive negative sampling schedule peaking at K (InfoNCE)")
    q.add_argument("--batch-size", type=int, default=256)
    q.add_argument("--lr", type=float, default=0.01)
    q.add_argument("--dim", type=int, default=32)
    q.add_argument("--temperature", type=float, default=None)
    q.add_argument("--tau-plus", type=float, default=0.1)
    q.add_argument("--alpha", type=float, default=0.9)
    q.add_argument("--beta", type=float, default=0.5)
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
