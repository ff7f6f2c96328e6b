"""The ``negtheory`` command line.

Subcommands
-----------
``negtheory figures [--out DIR] [--only NAME ...] [--list] [--full] [--bridge]``
    Reproduce every available paper figure (embedded defaults, no download; ``--full`` for
    publication-size Monte-Carlo runs) into ``negtheory_output/figures`` (``--out figures`` in a
    source checkout replaces the committed ones).
``negtheory optimal-k (--auc A | --mu M) [--lam L] [--k-max N] [--t-max T] [--steps S]``
    Print the label-quality mean mu_q and the optimal negative ratio K* of Wu et al. (Rethinking InfoNCE).
``negtheory study mse --vary NAME --values SPEC [--n-anchors M] [--out CSV] [--plot PNG] [--checkpoint FILE] [--dask ADDRESS]``
    Monte-Carlo MSE study of the debiasing estimators (thesis §6.6.1); SPEC is ``start:stop:count``
    (inclusive, like numpy.linspace) or a comma-separated list.
``negtheory bridge train|experiments ...``
    Real training with the torch bridge (``negtheory bridge train --help``; needs the ``torch`` extra).
``negtheory reproduce NAME [...]``
    Rerun a paper's experiment (see :mod:`negtheory.reproduce`; needs the ``torch`` extra).

Behaviour common to every command
---------------------------------
* ``negtheory --version`` prints the version; ``--help`` of every command lists each option with
  its default and imports neither torch nor matplotlib.
* Numeric options are checked when parsed (``argument --k: must be >= 1, got -2``). An option's
  value may start with ``-`` (``--values -1,0.5`` is read as ``--values=-1,0.5``).
* No command writes into the committed ``figures/`` or ``notebooks/data/`` by default: default
  outputs go to ``negtheory_output/NAME`` (``NAME_quick`` for ``--quick``) under the current folder;
  committed results change only with an explicit ``--out`` or ``--update-committed``.
* Output paths are checked before any computation: output folders, and the folders of output
  files, are created if missing; a path of the wrong kind or not writable is an error naming
  the option (see :mod:`negtheory._cli_common`).
* Exit status: 0 on success; 2 for bad input (one line ``negtheory CMD: error: ...``); 1 for a
  failure at run time (an ``OSError``, a missing extra, an unreachable Dask scheduler, or results
  that are not finite, which are never reported with status 0); 130 on Ctrl-C (one line
  ``negtheory CMD: interrupted``, no traceback).
"""

from __future__ import annotations

import argparse
import math
import re
import sys

from ._cli_common import (
    INSTALL_HINT,
    CommandError,
    HelpFormatter,
    default_output,
    integer,
    output_dir,
    output_file,
    real,
)

#: caps of ``optimal-k`` (those of :func:`negtheory.optimal_k`: memory of 16 bytes per K, and the discrete average's cost)
K_MAX_LIMIT = 10**6
STEPS_LIMIT = 10**8

#: option types of ``study mse``, shared by the fixed options and the values of ``--values``
STUDY_TYPES = {
    "n_unlabeled": integer(1),
    "n_positives": integer(0),
    "alpha": real(0.5, 1.0),
    "gamma": real(0.0, 1.0),
    "tau_plus": real(0.0, 1.0, lo_open=True, hi_open=True),
    "t": real(0.0, lo_open=True),
    "beta": real(0.0, 1.0),
}


def _cmd_figures(args: argparse.Namespace) -> int:
    from negtheory.figures import registry, save_figures

    if args.list:
        from negtheory.figures import EXTERNAL_FIGURES, bridge_names

        for name, func in registry().items():
            doc = (func.__doc__ or "").strip().splitlines()
            print(f"{name:32s} {doc[0] if doc else ''}")
        for name in bridge_names():
            print(
                f"{name:32s} redrawn from the bridge experiments' tables (needs --bridge or --only)"
            )
        for name, command in EXTERNAL_FIGURES.items():
            print(f"{name:32s} not drawn here; written by {command}")
        return 0
    out = output_dir(args.out, "--out")
    if args.full:
        import os

        # publication-size Monte Carlo (e.g. 1e5 anchors per point in Fig. 6.9/6.10): minutes, not seconds
        os.environ["NEGTHEORY_FULL"] = "1"
    save_figures(
        out, args.only, progress=not args.quiet, bridge=args.bridge, bridge_data=args.bridge_data
    )
    return 0


def _cmd_optimal_k(args: argparse.Namespace) -> int:
    from negtheory import infonce

    if args.auc is not None:
        mu = float(infonce.mu_from_auc(args.auc))
        if mu > infonce.MU_LABEL_MAX:
            raise CommandError(
                f"--auc {args.auc:g} is too close to 1 (mu_q = {mu:.4g} > {infonce.MU_LABEL_MAX:g}): "
                "labels are perfect in double precision"
            )
        auc = args.auc
    else:
        mu = args.mu
        auc = float(infonce.auc_from_mu(mu))
    k = int(
        infonce.optimal_k(mu, lam=args.lam, k_max=args.k_max, t_max=args.t_max, steps=args.steps)
    )
    avg = (
        "continuous average" if args.steps is None else f"discrete average over {args.steps} steps"
    )
    print(f"training AUC = {auc:.6g}")
    print(f"mu_q         = {mu:.6g}")
    print(f"lambda       = {args.lam:g}")
    if k == args.k_max:
        print(
            f"K*           >= {k}   (the --k-max cap {args.k_max}: the effectiveness still rises at the largest K "
            f"searched ({avg} of v over t in [0, {args.t_max:g}]); raise --k-max to search further)"
        )
    else:
        print(
            f"K*           = {k}   ({avg} of v over t in [0, {args.t_max:g}], K in 1..{args.k_max})"
        )
    return 0


def parse_values(spec: str, integer: bool = False) -> list:
    """``"0.5:1.0:11"`` -> 11 values from 0.5 to 1.0 inclusive; ``"16,32,64"`` -> a list."""
    import numpy as np

    try:
        if ":" in spec:
            start, stop, count = spec.split(":")
            if int(count) < 1:
                raise ValueError
            values = np.linspace(float(start), float(stop), int(count)).tolist()
        else:
            values = [float(v) for v in spec.split(",") if v.strip()]
    except ValueError as exc:
        raise ValueError(
            f"--values must be start:stop:count or a comma-separated list, got {spec!r}"
        ) from exc
    if not values:
        raise ValueError(f"--values gave no value: {spec!r}")
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"--values must be finite numbers, got {spec!r}")
    if integer:
        if any(abs(v - round(v)) > 1e-9 for v in values):
            raise ValueError(f"--values must be integers for this parameter, got {values}")
        values = [int(round(v)) for v in values]
    return values


def _estimator_list(text: str) -> tuple:
    from negtheory.studies import ESTIMATORS

    names = tuple(e.strip() for e in text.split(",") if e.strip())
    unknown = [e for e in names if e not in ESTIMATORS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"must be a comma-separated subset of {','.join(ESTIMATORS)}, got {text!r}"
        )
    return names


def _connect_dask(address: str, timeout: float):
    """-> (executor, client or None) for ``--dask``; fails quickly and clearly."""
    try:
        import distributed
    except ImportError:
        raise CommandError(
            f"--dask requires dask ({INSTALL_HINT.format(extra='dask')})", exit_code=1
        ) from None
    if address == "local":
        return "dask", None
    try:
        client = distributed.Client(address, timeout=timeout)
    except (
        OSError,
        ValueError,
        TypeError,
    ) as exc:  # refused, timed out (TimeoutError is an OSError), bad address
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise CommandError(
            f"--dask {address}: no Dask scheduler answered within {timeout:g} s ({reason})",
            exit_code=1,
        ) from None
    return client, client


#: file name extensions matplotlib writes (checked before computing, so a typo does not cost the run)
_PLOT_FORMATS = (
    ".png",
    ".pdf",
    ".svg",
    ".svgz",
    ".eps",
    ".ps",
    ".jpg",
    ".jpeg",
    ".tif",
    ".tiff",
    ".webp",
    ".pgf",
)


def _cmd_study_mse(args: argparse.Namespace) -> int:
    import numpy as np

    from negtheory.studies import Execution, mse_study

    values = parse_values(args.values, integer=args.vary in ("n_unlabeled", "n_positives"))
    for v in values:
        try:
            STUDY_TYPES[args.vary](str(v))
        except argparse.ArgumentTypeError as exc:
            raise CommandError(f"--values: {args.vary} {exc}") from None
    paths = {
        opt: output_file(path, opt)
        for opt, path in (
            ("--out", args.out),
            ("--plot", args.plot),
            ("--checkpoint", args.checkpoint),
        )
        if path
    }
    if "--plot" in paths and paths["--plot"].suffix.lower() not in _PLOT_FORMATS:
        raise CommandError(
            f"--plot {paths['--plot']}: the file name must end with one of {', '.join(sorted(_PLOT_FORMATS))}"
        )
    resolved = [p.resolve() for p in paths.values()]
    if len(set(resolved)) < len(resolved):
        raise CommandError(f"{', '.join(paths)} must name different files")
    executor, client = _connect_dask(args.dask, args.dask_timeout) if args.dask else (None, None)
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
            estimators=args.estimators,
            rng=args.seed,
            execution=Execution(
                executor=executor,
                checkpoint=paths.get("--checkpoint"),
                progress=not args.quiet,
                chunk_size=args.chunk_size,
                max_memory=None if args.max_memory is None else args.max_memory * 1e9,
            ),
            **fixed,
        )
    except ValueError as exc:
        text = str(exc)
        if "max_memory" not in text:
            raise
        raise CommandError(
            text.replace("max_memory =", "--max-memory").replace(
                "lower n_unlabeled, or raise max_memory",
                "lower --n-unlabeled (or its --values), or raise --max-memory",
            )
        ) from None
    finally:
        if client is not None:
            client.close()
    import pandas as pd

    # the table first: if writing a file fails, the numbers are still on the screen
    with pd.option_context("display.width", 120, "display.max_rows", 200):
        print(df.to_string(index=False))
    if "--out" in paths:
        df.to_csv(paths["--out"], index=False)
        print(f"wrote {paths['--out']}")
    if "--plot" in paths:
        from negtheory.figures.thesis_mse import fig_study

        fig_study(df, args.vary).savefig(paths["--plot"], dpi=110)
        print(f"wrote {paths['--plot']}")
    bad = ~np.isfinite(df[["mse", "mse_se", "mean", "truth_mean"]].to_numpy(dtype=float)).all(
        axis=1
    )
    if bad.any():
        first = df[bad].iloc[0]
        raise CommandError(
            f"{int(bad.sum())} result row(s) are not finite (first: {args.vary} = {first[args.vary]}, estimator "
            f"{first['estimator']}, {int(first['n_anchors'])} anchors with a defined truth): too few anchors for "
            "these parameters; raise --n-anchors or --n-unlabeled",
            exit_code=1,
        )
    return 0


def _command(sub, name: str, help: str, description: str) -> argparse.ArgumentParser:
    """A sub-command's parser, with the package's help formatter."""
    return sub.add_parser(name, help=help, formatter_class=HelpFormatter, description=description)


def _add_figures_parser(sub) -> None:
    """``negtheory figures``: draw the paper figures."""
    p = _command(
        sub,
        "figures",
        "reproduce the paper figures into a folder",
        "Draw the paper figures (embedded defaults, no download) and write them as PNG files.",
    )
    p.add_argument(
        "--out",
        default=str(default_output("figures")),
        help="output folder, created if missing; --out figures in a source checkout replaces the committed figures",
    )
    p.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        help="draw only these figures (see --list; default: all)",
    )
    p.add_argument("--list", action="store_true", help="list the available figures and exit")
    p.add_argument("--quiet", action="store_true", help="no per-figure progress lines")
    p.add_argument(
        "--full", action="store_true", help="publication-size Monte-Carlo runs (much slower)"
    )
    p.add_argument(
        "--bridge",
        action="store_true",
        help="also redraw the bridge_*.png figures from the bridge experiments' tables (no training)",
    )
    p.add_argument(
        "--bridge-data",
        metavar="DIR",
        default=None,
        help="folder of the bridge experiments' tables (default: the tables shipped in notebooks/data/bridge)",
    )
    p.set_defaults(func=_cmd_figures)


def _add_optimal_k_parser(sub) -> None:
    """``negtheory optimal-k``: Wu et al.'s K* from the training AUC or mu_q."""
    p = sub.add_parser(
        "optimal-k",
        help="optimal negative sampling ratio K* (Wu et al., Rethinking InfoNCE)",
        formatter_class=HelpFormatter,
        description="The label-quality mean mu_q and the optimal negative sampling ratio K* of Wu et al. "
        "(Rethinking InfoNCE, §3-4), from the training AUC at K = 1 or from mu_q.",
    )
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument(
        "--auc",
        type=real(0.5, 1.0, hi_open=True),
        help="training AUC at K = 1 (label quality), in [0.5, 1); one of --auc / --mu is required",
    )
    g.add_argument(
        "--mu",
        type=real(0.0, 20.0),
        help="mean mu_q of the positive score law q = N(mu_q, 1), in [0, 20]",
    )
    p.add_argument(
        "--lam",
        type=real(0.0, 1.0),
        default=0.9,
        help="weight lambda of good/bad samples, in [0, 1]",
    )
    p.add_argument(
        "--k-max",
        type=integer(1, K_MAX_LIMIT),
        default=1000,
        help=f"largest K searched, at most {K_MAX_LIMIT} (a K* at this cap is reported as such)",
    )
    p.add_argument(
        "--t-max",
        type=real(0.0, lo_open=True),
        default=3.0,
        help="length of the simulated training curve",
    )
    p.add_argument(
        "--steps",
        type=integer(1, STEPS_LIMIT),
        default=None,
        help=f"discrete average over this many steps, at most {STEPS_LIMIT} (default: the continuous average)",
    )
    p.set_defaults(func=_cmd_optimal_k)


def _add_study_parser(sub) -> None:
    """``negtheory study mse``: the Monte-Carlo MSE sweep."""
    p = _command(
        sub,
        "study",
        "Monte-Carlo studies (thesis §6.6.1)",
        "Monte-Carlo studies of the debiasing estimators (thesis §6.6.1).",
    )
    study_sub = p.add_subparsers(dest="study", required=True, metavar="STUDY")
    q = study_sub.add_parser(
        "mse",
        help="MSE of the true-negative-mean estimators over a parameter sweep",
        formatter_class=HelpFormatter,
        description="MSE of the estimators of the true-negative score mean (biased, DCL, HCL, BCL, self-normalised "
        "BCL) against the truth theta_SUP over a sweep of one generator parameter (thesis §6.6.1, Fig. 6.9-6.10). "
        "Deterministic for a seed whatever the chunking or executor; --checkpoint resumes an interrupted run.",
        epilog="Example: negtheory study mse --vary alpha --values 0.5:1.0:6 --out mse.csv --plot mse.png\n"
        "A value starting with '-' may follow --values directly (--values -1,0.5 is read as --values=-1,0.5).",
    )
    q.add_argument(
        "--vary",
        required=True,
        choices=["alpha", "gamma", "tau_plus", "t", "n_unlabeled", "n_positives", "beta"],
        help="the swept parameter",
    )
    q.add_argument(
        "--values",
        required=True,
        help="start:stop:count (inclusive, like numpy.linspace) or a comma-separated list",
    )
    q.add_argument("--n-anchors", type=integer(2), default=1000, help="anchors M per point")
    q.add_argument(
        "--n-unlabeled",
        type=STUDY_TYPES["n_unlabeled"],
        default=64,
        help="unlabeled scores N per anchor",
    )
    q.add_argument(
        "--alpha",
        type=STUDY_TYPES["alpha"],
        default=0.9,
        help="BCL's alpha (score quality), in [0.5, 1]",
    )
    q.add_argument(
        "--gamma",
        type=STUDY_TYPES["gamma"],
        default=0.1,
        help="generator's gamma (hardness), in [0, 1]",
    )
    q.add_argument(
        "--tau-plus", type=STUDY_TYPES["tau_plus"], default=0.1, help="class prior tau+, in (0, 1)"
    )
    q.add_argument("--t", type=STUDY_TYPES["t"], default=0.5, help="temperature t > 0")
    q.add_argument(
        "--beta",
        type=STUDY_TYPES["beta"],
        default=0.5,
        help="BCL's beta (and HCL's concentration), in [0, 1]",
    )
    q.add_argument(
        "--n-positives",
        type=STUDY_TYPES["n_positives"],
        default=10,
        help="extra positives K for DCL/HCL",
    )
    q.add_argument(
        "--estimators",
        type=_estimator_list,
        default=("biased", "dcl", "hcl", "bcl", "bcl_norm"),
        help="comma-separated subset of biased,dcl,hcl,bcl,bcl_norm (default: all)",
    )
    q.add_argument(
        "--seed",
        type=integer(0),
        default=0,
        help="root seed (point i uses SeedSequence(seed, spawn_key=(i,)))",
    )
    q.add_argument(
        "--chunk-size",
        type=integer(1),
        default=65_536,
        help="anchors per task, rounded up to a multiple of 1024 (no effect on results); scores are generated 1024 "
        "anchors at a time, so memory grows with --n-unlabeled, about 48 bytes x N per anchor and thread",
    )
    q.add_argument(
        "--max-memory",
        type=real(0.0, lo_open=True),
        default=None,
        metavar="GB",
        help="refuse a study whose working memory would exceed this many GB (default: half the physical memory)",
    )
    q.add_argument("--out", help="write the table as CSV to this file (default: print only)")
    q.add_argument("--plot", help="write an MSE figure (PNG) to this file (default: none)")
    q.add_argument(
        "--checkpoint",
        help="JSON-lines checkpoint file; rerun the same command to resume (default: none)",
    )
    q.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on the Dask scheduler at ADDRESS, 'local' starts a local cluster (default: in process)",
    )
    q.add_argument(
        "--dask-timeout",
        type=real(0.0, lo_open=True),
        default=10.0,
        help="seconds to wait for the --dask scheduler",
    )
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    q.set_defaults(func=_cmd_study_mse)


def build_parser(include_bridge: bool = True) -> argparse.ArgumentParser:
    """The ``negtheory`` argument parser (imports neither torch nor matplotlib).

    ``include_bridge`` is kept for compatibility: ``bridge`` is always registered (its commands
    report a missing torch when run).
    """
    from negtheory import __version__

    parser = argparse.ArgumentParser(
        prog="negtheory",
        formatter_class=HelpFormatter,
        description="Theory of negative sampling in contrastive learning: paper figures, optimal K, "
        "Monte-Carlo studies of the debiasing estimators, and (with the torch extra) real training.",
        epilog="Exit status: 0 success, 1 failure at run time, 2 bad input, 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    _add_figures_parser(sub)
    _add_optimal_k_parser(sub)
    _add_study_parser(sub)

    from negtheory.reproduce.cli import add_reproduce_parser

    add_reproduce_parser(sub)

    from negtheory._cli_bridge import add_bridge_parser

    add_bridge_parser(sub)
    return parser


_NEGATIVE_VALUE = re.compile(r"^-[\d.]")


def _attach_negative_values(tokens: list[str]) -> list[str]:
    """``--values -1,0.5`` -> ``--values=-1,0.5``: argparse would take ``-1,0.5`` for an option."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if (
            tok.startswith("--")
            and "=" not in tok
            and i + 1 < len(tokens)
            and _NEGATIVE_VALUE.match(tokens[i + 1])
        ):
            out.append(f"{tok}={tokens[i + 1]}")
            i += 2
        else:
            out.append(tok)
            i += 1
    return out


def _command_name(args) -> str:
    parts = ["negtheory"] + [
        getattr(args, a, None) for a in ("command", "study", "bridge_command", "reproduction")
    ]
    return " ".join(p for p in parts if p)


class _PipeSafeStdout:
    """``sys.stdout`` that goes quiet once its reader has gone (``negtheory ... | head -2``).

    A closed pipe makes a write raise ``BrokenPipeError``; from then on the output is dropped (the
    descriptor is pointed at ``os.devnull``, so Python's final flush cannot fail either) and the
    command carries on: files it was asked to write are still written, and it exits as it would have.
    """

    def __init__(self, stream):
        self._stream = stream
        self._gone = False

    def _drop(self) -> None:
        import os

        self._gone = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):  # not a real descriptor (a test's capture)
            pass

    def write(self, text):
        if self._gone:
            return len(text)
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._drop()
            return len(text)

    def flush(self):
        if self._gone:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._drop()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    """Run the ``negtheory`` command line with ``argv`` (default: ``sys.argv[1:]``); return the exit status.

    Never raises for bad input, I/O errors or Ctrl-C: each becomes one line on stderr and a
    status (2 bad input, 1 failure at run time, 130 interrupted; 0 for ``--help``/``--version``).
    Output into a pipe whose reader has stopped (``| head``) is dropped silently.
    """
    stdout = sys.stdout
    sys.stdout = _PipeSafeStdout(stdout)
    try:
        return _main(argv)
    finally:
        sys.stdout.flush()
        sys.stdout = stdout


def _main(argv: list[str] | None) -> int:
    tokens = _attach_negative_values(list(sys.argv[1:] if argv is None else argv))
    name = "negtheory"
    try:
        try:
            args = build_parser().parse_args(tokens)
        except SystemExit as exc:  # argparse: --help, --version or a usage error (already printed)
            return exc.code if isinstance(exc.code, int) else 2
        name = _command_name(args)
        import warnings

        def show(
            message, category, filename, lineno, file=None, line=None
        ):  # one line, no source path
            print(f"{name}: warning: {message}", file=sys.stderr)

        with warnings.catch_warnings():
            warnings.showwarning = show
            # negtheory's own notes (e.g. the memory a study will take) are shown, never raised
            warnings.filterwarnings("default", category=RuntimeWarning, module="negtheory")
            return args.func(args)
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except CommandError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except (
        ValueError,
        ArithmeticError,
    ) as exc:  # bad input, or parameters the numerics cannot handle
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, ImportError) as exc:
        print(f"{name}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
