"""The ``negtheory`` command line.

Subcommands
-----------
``negtheory figures [--out DIR] [--only NAME ...] [--list] [--full]``
    Reproduce every available paper figure (embedded defaults, no download; ``--full`` for
    publication-size Monte-Carlo runs).
``negtheory optimal-k (--auc A | --mu M) [--lam L] [--k-max N] [--t-max T] [--steps S]``
    Print the label-quality mean mu_q and the optimal negative ratio K* of Wu et al. (seed 000).
``negtheory study mse --vary NAME --values SPEC [--n-anchors M] [--out CSV] [--plot PNG] [--checkpoint FILE] [--dask ADDRESS]``
    Monte-Carlo MSE study of the debiasing estimators (thesis §6.6.1); SPEC is ``start:stop:count``
    (inclusive, like numpy.linspace) or a comma-separated list.
``negtheory reproduce NAME [...]``
    Rerun a paper's experiment (see :mod:`negtheory.reproduce`; needs the ``torch`` extra).
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
    if args.full:
        import os

        # publication-size Monte Carlo (e.g. 1e5 anchors per point in Fig. 6.9/6.10): minutes, not seconds
        os.environ["NEGTHEORY_FULL"] = "1"
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


def parse_values(spec: str, integer: bool = False) -> list:
    """``"0.5:1.0:11"`` -> 11 values from 0.5 to 1.0 inclusive; ``"16,32,64"`` -> a list."""
    import numpy as np

    try:
        if ":" in spec:
            start, stop, count = spec.split(":")
            values = np.linspace(float(start), float(stop), int(count)).tolist()
        else:
            values = [float(v) for v in spec.split(",") if v.strip()]
    except ValueError as exc:
        raise ValueError(f"--values must be start:stop:count or a comma-separated list, got {spec!r}") from exc
    if not values:
        raise ValueError(f"--values gave no value: {spec!r}")
    if integer:
        if any(abs(v - round(v)) > 1e-9 for v in values):
            raise ValueError(f"--values must be integers for this parameter, got {values}")
        values = [int(round(v)) for v in values]
    return values


def _cmd_study_mse(args: argparse.Namespace) -> int:
    from negtheory.studies import mse_study

    values = parse_values(args.values, integer=args.vary in ("n_unlabeled", "n_positives"))
    executor = None
    client = None
    if args.dask:
        if args.dask == "local":
            executor = "dask"
        else:
            from distributed import Client

            client = Client(args.dask)
            executor = client
    fixed = {
        k: getattr(args, k)
        for k in ("n_unlabeled", "alpha", "gamma", "tau_plus", "t", "beta", "n_positives")
        if k != args.vary
    }
    try:
        df = mse_study(
            args.vary,
            values,
            n_anchors=args.n_anchors,
            estimators=tuple(args.estimators.split(",")),
            rng=args.seed,
            executor=executor,
            checkpoint=args.checkpoint,
            progress=not args.quiet,
            chunk_size=args.chunk_size,
            **fixed,
        )
    finally:
        if client is not None:
            client.close()
    if args.out:
        df.to_csv(args.out, index=False)
        print(f"wrote {args.out}")
    if args.plot:
        from negtheory.figures.thesis_mse import fig_study

        fig_study(df, args.vary).savefig(args.plot, dpi=110)
        print(f"wrote {args.plot}")
    import pandas as pd

    with pd.option_context("display.width", 120, "display.max_rows", 200):
        print(df.to_string(index=False))
    return 0


def build_parser(include_bridge: bool = True) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="negtheory", description="Theory of negative sampling in contrastive learning.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("figures", help="reproduce the paper figures into a folder")
    p.add_argument("--out", default="figures", help="output folder (default: figures)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="draw only these figures (see --list)")
    p.add_argument("--list", action="store_true", help="list the available figures and exit")
    p.add_argument("--quiet", action="store_true", help="no per-figure progress lines")
    p.add_argument("--full", action="store_true", help="publication-size Monte-Carlo runs (much slower)")
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

    p = sub.add_parser("study", help="Monte-Carlo studies (thesis §6.6.1)")
    study_sub = p.add_subparsers(dest="study", required=True)
    q = study_sub.add_parser("mse", help="MSE of the true-negative-mean estimators over a parameter sweep")
    q.add_argument("--vary", required=True, choices=["alpha", "gamma", "tau_plus", "t", "n_unlabeled", "n_positives", "beta"])
    q.add_argument("--values", required=True, help="start:stop:count (inclusive) or a comma-separated list")
    q.add_argument("--n-anchors", type=int, default=1000, help="anchors M per point (default 1000)")
    q.add_argument("--n-unlabeled", type=int, default=64, help="N (default 64)")
    q.add_argument("--alpha", type=float, default=0.9)
    q.add_argument("--gamma", type=float, default=0.1)
    q.add_argument("--tau-plus", type=float, default=0.1)
    q.add_argument("--t", type=float, default=0.5)
    q.add_argument("--beta", type=float, default=0.5)
    q.add_argument("--n-positives", type=int, default=10)
    q.add_argument("--estimators", default="biased,dcl,hcl,bcl,bcl_norm", help="comma-separated subset")
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--chunk-size", type=int, default=65_536, help="anchors per task (bounds memory)")
    q.add_argument("--out", help="write the table as CSV")
    q.add_argument("--plot", help="write an MSE figure (PNG)")
    q.add_argument("--checkpoint", help="JSON-lines checkpoint; rerun to resume")
    q.add_argument("--dask", metavar="ADDRESS", help="run on a Dask scheduler at ADDRESS ('local' starts a local cluster)")
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    q.set_defaults(func=_cmd_study_mse)

    from negtheory.reproduce.cli import add_reproduce_parser

    add_reproduce_parser(sub)

    if include_bridge:
        try:  # optional torch extra: `negtheory bridge train|experiments` (importing it imports torch)
            from negtheory.bridge.cli import add_bridge_parser
        except ImportError:
            add_bridge_parser = None
        if add_bridge_parser is not None:
            add_bridge_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    tokens = sys.argv[1:] if argv is None else list(argv)
    # only `negtheory bridge ...` and the top-level help need the bridge's parser: building it
    # imports torch (~1 s), which the other subcommands should not pay
    parser = build_parser(include_bridge=not tokens or tokens[0] in ("bridge", "-h", "--help"))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:
        print(f"negtheory {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
