"""The argparse wiring of ``negtheory bridge train|experiments`` (private; imports no torch).

``negtheory bridge train --data synthetic|digits --model mf|mlp --loss NAME
[--epochs E] [--device auto|cpu|cuda] [--out DIR]`` trains one configuration with progress bars,
prints the final metrics and writes ``DIR/results.json`` (+ ``DIR/probes.csv``).
``negtheory bridge train --train FILE --test FILE [--model mf|lightgcn] --loss NAME [--sampler NAME]
[--optimizer sgd|adam] ...`` (or ``--data-dir DIR``) trains on an explicit split with
:func:`negtheory.training.fit`: it accepts every combination ``fit`` runs, with the specs' defaults
(:data:`SPLIT_LOSSES`, :data:`SPLIT_SAMPLERS`; ``fit`` picks the backend), and writes
``DIR/results.json`` and ``DIR/history.csv``.
``negtheory bridge experiments [--out DIR] [--quick]`` reruns the simulation-vs-training
experiments and writes their CSV tables and PNG figures. Output folders and input files are checked
before any training; non-finite final metrics are reported with exit status 1 (after writing the
results for inspection).

The parser lives outside :mod:`negtheory.bridge` (whose import needs torch), so that ``negtheory
--help`` and ``negtheory bridge train --help`` work, and are fast, without torch, and ``negtheory
bridge`` is always listed; the commands themselves (in :mod:`negtheory.bridge._commands`) are
imported when run, after a check that names the ``torch`` extra when it is missing. That module
never imports this one, so the import graph has no circle.
"""

from __future__ import annotations

import argparse

from ._cli_common import INSTALL_HINT, OUTPUT_ROOT, HelpFormatter, integer, real, require_torch

__all__ = ["add_bridge_parser", "LOSSES", "SPLIT_LOSSES", "SPLIT_SAMPLERS"]

#: the losses of the toy harness (``--data synthetic|digits``, :data:`negtheory.bridge.train.REC_LOSSES`)
LOSSES = (
    "infonce",
    "dcl",
    "hcl",
    "bcl",
    "bcl_norm",
    "bpr",
    "dpl",
    "bce",
    "relaxed_softmax",
    "bns",
    "bprac",
)
#: the losses of a split run: :data:`negtheory.training.names.LOSS_NAMES` (spelled out: this module imports no trainer)
SPLIT_LOSSES = ("bpr", "bce", "infonce", "dcl", "hcl", "dpl", "bcl", "bcl_released", "ccl")
#: the samplers of a split run: :data:`negtheory.training.names.SAMPLER_NAMES`
SPLIT_SAMPLERS = (
    "rns",
    "pns",
    "dns",
    "bns",
    "aobpr",
    "srns",
    "shared_uniform",
    "catalogue_uniform",
)


def _lazy(name: str):
    """A command that imports :mod:`negtheory.bridge._commands` (and torch) only when it runs."""

    def run(args: argparse.Namespace) -> int:
        require_torch(f"negtheory bridge {args.bridge_command}")
        from negtheory.bridge import _commands

        return getattr(_commands, name)(args)

    run.__name__ = name
    return run


def _milestones(text: str) -> tuple:
    if text.strip().lower() == "none":
        return ()
    try:
        out = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated epochs or 'none', got {text!r}"
        ) from None
    if any(m < 1 for m in out):
        raise argparse.ArgumentTypeError(f"epochs must be >= 1, got {text!r}")
    return out


def add_bridge_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``bridge`` command (with ``train`` and ``experiments``) to an argparse subparsers object."""
    p = subparsers.add_parser(
        "bridge",
        help="torch bridge: real training to confirm the simulations (needs the torch extra)",
        description="Real training with the torch bridge, to confirm or refute the simulations. Requires torch: "
        f"{INSTALL_HINT.format(extra='torch')}.",
        formatter_class=HelpFormatter,
    )
    bsub = p.add_subparsers(dest="bridge_command", required=True, metavar="COMMAND")
    q = bsub.add_parser(
        "train",
        help="train one configuration and write a results file",
        formatter_class=HelpFormatter,
        description="Train one configuration. With --train/--test (or --data-dir) it trains on real data with "
        "negtheory.training.fit and accepts every combination fit runs: --model mf|lightgcn, any --loss of "
        f"{', '.join(SPLIT_LOSSES)}, any --sampler of {', '.join(SPLIT_SAMPLERS)}, --optimizer sgd|adam at any "
        "--batch-size; a flag left out takes the default of its spec (negtheory.training.specs), and fit picks the "
        "backend (the numba batch-1 SGD of thesis ch. 4 where it covers the combination, torch otherwise). Only a "
        "combination that is not defined is refused (CCL needs bounded scores: --similarity cosine). Otherwise "
        "--data picks a toy data set of the bridge's harness, with the harness's own losses. Prints the final "
        "metrics and, with --out, writes results.json (and history.csv or probes.csv) there.",
    )
    _add_train_data_arguments(q)
    _add_train_method_arguments(q)
    _add_train_schedule_arguments(q)
    _add_train_loss_arguments(q)
    q.add_argument(
        "--seed",
        type=integer(0),
        default=0,
        help="seed of the model, the sampling and the validation split",
    )
    q.add_argument(
        "--no-probe", action="store_true", help="do not record real scores with true labels"
    )
    q.add_argument("--quiet", action="store_true", help="no progress bars")
    q.set_defaults(func=_lazy("_cmd_train"))
    _add_experiments_parser(bsub)
    return p


def _add_train_data_arguments(q: argparse.ArgumentParser) -> None:
    """``bridge train``: where the data comes from and how it is split."""
    q.add_argument(
        "--data",
        default="synthetic",
        help="synthetic | digits (toy data with ground truth); real data: --data-dir or --train/--test",
    )
    q.add_argument(
        "--train",
        help="training interactions (CSV user,item[,rating] or u.data); ids matched to --test's (default: none, use --data)",
    )
    q.add_argument("--test", help="test interactions, same formats (default: none)")
    q.add_argument(
        "--data-dir",
        help="folder with MovieLens u.data or ratings.dat (also .gz), Yahoo!-R3's or LightGCN's train/test files "
        "(pooled), or one interaction file; split 80/20 at random, seeded by --split-seed (default: none)",
    )
    q.add_argument(
        "--split-seed", type=integer(0), default=0, help="seed of the 80/20 split of --data-dir"
    )
    q.add_argument(
        "--format",
        choices=["auto", "csv", "movielens-1m", "yahoo-r3", "lightgcn"],
        default="auto",
        help="layout of --train/--test/--data-dir files: csv (u.data, CSV), movielens-1m (ratings.dat), yahoo-r3, "
        "lightgcn (train.txt / test.txt); auto recognises it from the content",
    )
    q.add_argument(
        "--valid-fraction",
        type=real(0.0, 1.0, hi_open=True),
        default=0.0,
        help="share of train held out for validation / early stopping",
    )
    q.add_argument(
        "--patience",
        type=integer(1),
        default=None,
        help="stop after this many evaluations without validation gain (default: no early stopping)",
    )


def _add_train_method_arguments(q: argparse.ArgumentParser) -> None:
    """``bridge train``: model, loss, optimizer and the negative sampler with its settings."""
    q.add_argument(
        "--model",
        choices=["mf", "lightgcn", "mlp"],
        default=None,
        help="real data: mf or lightgcn (default mf); --data: mf or mlp, the harness's two-tower (default mf, mlp for digits)",
    )
    q.add_argument(
        "--similarity",
        choices=["dot", "cosine"],
        default=None,
        help="MF's score on real data: dot (the inner product) or cosine (default: dot)",
    )
    q.add_argument(
        "--layers",
        type=integer(0),
        default=None,
        help="LightGCN's propagation layers K on real data (default: 1, the thesis's)",
    )
    q.add_argument(
        "--loss",
        required=True,
        choices=LOSSES + tuple(x for x in SPLIT_LOSSES if x not in LOSSES),
        help=f"the training loss. Real data: one of {', '.join(SPLIT_LOSSES)} (the specs of negtheory.training; "
        "BNS is a sampler: --loss bpr --sampler bns). --data synthetic|digits: the toy harness's losses "
        f"{', '.join(LOSSES)} (bns, bcl_norm, relaxed_softmax and bprac belong to the harness only)",
    )
    q.add_argument(
        "--optimizer",
        choices=["adam", "sgd"],
        default="adam",
        help="real data: sgd (at --batch-size 1, the thesis's batch-1 SGD of ch. 4) or adam (the released code of "
        "ch. 5-6), with any model, loss and sampler",
    )
    q.add_argument(
        "--sampler",
        choices=list(SPLIT_SAMPLERS),
        default=None,
        help="negative sampler of real data, with any model, loss and optimizer (default: rns); not read by --data",
    )
    q.add_argument(
        "--candidates",
        type=integer(1),
        default=None,
        help="candidates of DNS, BNS and SRNS (default: the sampler's, 5 for DNS and BNS, 64 for SRNS)",
    )
    q.add_argument(
        "--lam",
        type=real(0.0),
        default=None,
        help="lambda of BNS's sampling risk, eq. 4.26 (default: 5)",
    )
    q.add_argument(
        "--prior",
        choices=["popularity", "oracle"],
        default=None,
        help="BNS prior: eq. 4.16 or Table 4.5's oracle (default: popularity)",
    )
    q.add_argument(
        "--negatives",
        type=integer(1),
        default=None,
        help="N negatives per pair on real data (default: the loss's, 1 for BPR and BCE, 800 for CCL, "
        "5 for the others)",
    )
    q.add_argument(
        "--extra-positives",
        type=integer(1),
        default=None,
        help="M extra positives of DCL, HCL and DPL (default: 5)",
    )
    q.add_argument(
        "--epochs",
        type=integer(1),
        default=None,
        help="default: 100 with --optimizer sgd at batch 1 (thesis ch. 4), 200 otherwise on real data "
        "(the released code of ch. 5-6), 5 for --data",
    )


def _add_train_schedule_arguments(q: argparse.ArgumentParser) -> None:
    """``bridge train``: device, output, batches, learning rate, evaluation and size."""
    q.add_argument(
        "--device",
        default="auto",
        choices=["auto", "cpu", "cuda"],
        help="torch device (auto: CUDA when present); on real data fit's numba batch-1 SGD backend runs on the CPU "
        "and covers a combination only with --device auto or cpu",
    )
    q.add_argument(
        "--out",
        default=None,
        help="folder for results.json and history.csv / probes.csv, created if missing (default: print only)",
    )
    q.add_argument(
        "--k",
        type=real(1.0),
        default=8.0,
        help="negatives per positive for --data runs, >= 1 (real values: Wu et al. eq. 8)",
    )
    q.add_argument(
        "--ans",
        action="store_true",
        help="adaptive negative sampling schedule peaking at K (InfoNCE)",
    )
    q.add_argument(
        "--batch-size",
        type=integer(1),
        default=None,
        help="pairs per step; default: 1 with --optimizer sgd (the thesis's batch-1 SGD), 1024 with Adam "
        "on real data, 256 for --data (>= 2 there)",
    )
    q.add_argument(
        "--lr",
        type=real(0.0, lo_open=True),
        default=None,
        help="default: the optimizer's, 0.01 with --optimizer sgd and 1e-3 with Adam on real data; 0.01 "
        "for --data",
    )
    q.add_argument(
        "--weight-decay",
        type=real(0.0),
        default=None,
        help="L2: default the optimizer's, 0.01 with --optimizer sgd and 1e-5 with Adam on real data; 0 "
        "for --data",
    )
    q.add_argument(
        "--lr-schedule",
        type=_milestones,
        default=None,
        help="comma-separated epochs after which lr is divided by 10, or 'none' (default: 100, the released code's, "
        "and none with --optimizer sgd at batch 1)",
    )
    q.add_argument(
        "--eval-every",
        type=integer(1),
        default=1,
        help="evaluate every this many epochs (split runs)",
    )
    q.add_argument(
        "--topk", type=integer(1), nargs="+", default=[5, 10, 20], help="list lengths of P/R/NDCG"
    )
    q.add_argument("--dim", type=integer(1), default=32, help="embedding dimension")


def _add_train_loss_arguments(q: argparse.ArgumentParser) -> None:
    """``bridge train``: the losses' hyper-parameters; each left out takes its spec's default on real data."""
    q.add_argument(
        "--temperature",
        type=real(0.0, lo_open=True),
        default=None,
        help="score temperature t > 0 (default: 1; 0.5 for digits)",
    )
    q.add_argument(
        "--tau-plus",
        type=real(0.0, 1.0, lo_open=True, hi_open=True),
        default=None,
        help="class prior tau+ of DCL/HCL/BCL/DPL, in (0, 1) (default: 0.06 on real data, 0.1 for --data)",
    )
    q.add_argument(
        "--alpha",
        type=real(0.5, 1.0),
        default=None,
        help="BCL alpha, in [0.5, 1] (default: 0.55 on real data, 0.9 for --data)",
    )
    q.add_argument(
        "--beta",
        type=real(0.0, 1.0),
        default=None,
        help="BCL beta, in [0, 1] (default: 0.6 on real data, 0.5 for --data)",
    )
    q.add_argument(
        "--hcl-beta",
        type=real(0.0),
        default=None,
        help="HCL concentration beta (default: 0.5 on real data, 1.0 for --data)",
    )
    q.add_argument(
        "--dpl-eps",
        type=real(0.0, 1.0, lo_open=True),
        default=None,
        help="DPL's clamp eps, in (0, 1], on real data (default: 0.01)",
    )


def _add_experiments_parser(bsub) -> None:
    """Add ``bridge experiments`` (the toy simulation-vs-training experiments)."""
    q = bsub.add_parser(
        "experiments",
        help="rerun the toy simulation-vs-training experiments (CSV + PNG)",
        formatter_class=HelpFormatter,
        description="Rerun the toy simulation-vs-training experiments (Wu's K sweep, downstream quality) and write "
        "bridge_*.csv tables and bridge_*.png figures. The estimators' MSE in training against the simulations is "
        "`negtheory reproduce sim-vs-train`.",
    )
    q.add_argument(
        "--out",
        default=None,
        help=f"folder for the CSV tables, created if missing (default: "
        f"{OUTPUT_ROOT}/bridge_experiments, or bridge_experiments_quick with --quick)",
    )
    q.add_argument(
        "--figures",
        default=None,
        help="folder for the bridge_*.png figures (default: the --out folder)",
    )
    q.add_argument(
        "--update-committed",
        action="store_true",
        help="write the committed tables and figures of the source checkout (notebooks/data/bridge/, figures/)",
    )
    q.add_argument(
        "--quick",
        action="store_true",
        help="reduced sizes: a smoke test (30 s on 2 free cores, longer on busy ones; figures marked QUICK)",
    )
    q.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bars (the final 'wrote ...' line is still printed)",
    )
    q.set_defaults(func=_lazy("_cmd_experiments"))
