"""The ``negtheory`` command line.

Subcommands
-----------
``negtheory figures [--out DIR] [--only NAME ...] [--list]``
    Reproduce every available paper figure (embedded defaults, no download).
``negtheory optimal-k (--auc A | --mu M) [--lam L] [--k-max N] [--t-max T] [--steps S]``
    Print the label-quality mean mu_q and the optimal negative ratio K* of Wu et al. (seed 000).
"""

from __future__ import annotations

import argparse
import sys


def _cmd_figures(args: argparse.Namespace) -> int:
    from negtheory.figures import registry, save_figures

    if args.list:
        for name, func in registry().items():
            doc = (func.__doc__ or "").strip().splitlines()
            print(f"{name:32s} {doc[0] if doc else ''}")
        return 0
    save_figures(args.out, args.only, progress=not args.quiet)
    return 0


def _cmd_optimal_k(args: argparse.Namespace) -> int:
    from negtheory import infonce

    if args.auc is not None:
        mu = float(infonce.mu_from_auc(args.auc))
        auc = args.auc
    else:
        mu = args.mu
        auc = float(infonce.auc_from_mu(mu))
    k = infonce.optimal_k(mu, lam=args.lam, k_max=args.k_max, t_max=args.t_max, steps=args.steps)
    avg = "continuous average" if args.steps is None else f"discrete average over {args.steps} steps"
    print(f"training AUC = {auc:.6g}")
    print(f"mu_q         = {mu:.6g}")
    print(f"lambda       = {args.lam:g}")
    print(f"K*           = {int(k)}   ({avg} of v over t in [0, {args.t_max:g}], K in 1..{args.k_max})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="negtheory", description="Theory of negative sampling in contrastive learning.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("figures", help="reproduce the paper figures into a folder")
    p.add_argument("--out", default="figures", help="output folder (default: figures)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="draw only these figures (see --list)")
    p.add_argument("--list", action="store_true", help="list the available figures and exit")
    p.add_argument("--quiet", action="store_true", help="no per-figure progress lines")
    p.set_defaults(func=_cmd_figures)

    p = sub.add_parser("optimal-k", help="optimal negative sampling ratio K* (Wu et al., seed 000)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--auc", type=float, help="training AUC at K = 1 (label quality), in [0.5, 1)")
    g.add_argument("--mu", type=float, help="mean mu_q of the positive score law q = N(mu_q, 1)")
    p.add_argument("--lam", type=float, default=0.9, help="weight lambda of good/bad samples (default 0.9)")
    p.add_argument("--k-max", type=int, default=1000, help="largest K searched (default 1000)")
    p.add_argument("--t-max", type=float, default=3.0, help="length of the simulated training curve (default 3)")
    p.add_argument("--steps", type=int, default=None, help="discrete average over this many steps (default: continuous)")
    p.set_defaults(func=_cmd_optimal_k)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:
        print(f"negtheory {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
