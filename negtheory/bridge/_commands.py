"""The ``negtheory bridge train|experiments`` commands (private; they import torch when they run).

:mod:`negtheory._cli_bridge` (the torch-free parser) dispatches here. Keeping the commands in a
module of their own keeps the import graph free of circles: the parser imports the commands
(lazily), the commands never import the parser.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING, Any

from .._cli_common import CommandError, committed_dir, default_output, input_file, output_dir

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["_cmd_train", "_cmd_train_split", "_cmd_experiments", "_check_finite"]


def _cmd_train_split(args: argparse.Namespace) -> int:
    """``bridge train --train F --test F`` (or ``--data-dir``): the thesis protocol on a real split."""
    from negtheory.recsys import load_movielens_dir, load_split
    from negtheory.training import fit

    if args.data_dir is not None:
        if args.train or args.test:
            raise CommandError("give --data-dir or --train/--test, not both")
        from pathlib import Path

        if not Path(args.data_dir).exists():
            raise CommandError(f"--data-dir {args.data_dir}: no such directory")
        input_file(args.data_dir, "--data-dir", folder_ok=True)  # a folder holding u.data, or u.data itself
    elif not args.train or not args.test:
        raise CommandError("--train and --test go together (or give --data-dir)")
    else:
        input_file(args.train, "--train")
        input_file(args.test, "--test")
    sgd = args.optimizer == "sgd" and args.loss in ("bpr", "bns")
    sampler = _split_sampler(args, sgd)
    if args.patience is not None and sgd:
        raise CommandError("--patience applies to the mini-batch losses (--optimizer adam); SGD runs its fixed epochs")
    out = output_dir(args.out, "--out") if args.out is not None else None
    if args.data_dir is not None:
        data = load_movielens_dir(args.data_dir, rng=args.split_seed, format=getattr(args, "format", "auto"))
    else:
        data = load_split(args.train, args.test, format=getattr(args, "format", "auto"))
    if len(data.test) == 0:
        if args.data_dir is not None:
            raise CommandError(f"--data-dir {args.data_dir}: the 80/20 split leaves no test interaction ({len(data.train)} "
                               "interactions in all): nothing to evaluate; give a larger data set")  # fmt: skip
        raise CommandError(f"--test {args.test}: no test interaction remains (each test pair is also a training pair): "
                           "nothing to evaluate")  # fmt: skip
    too_long = [k for k in args.topk if k > data.n_items]
    if too_long:
        raise CommandError(f"--topk {too_long[0]}: a list cannot be longer than the {data.n_items} items of the data")
    if args.valid_fraction:
        data = data.with_validation(args.valid_fraction, rng=args.seed)
    engine, specs = _split_specs(args, sgd, sampler, has_valid=len(data.valid) > 0)
    # one composable trainer for both paths (negtheory.training.fit): the combination picks nothing silently
    res = fit(data, **specs, rng=args.seed, device="cpu" if sgd else args.device, progress=not args.quiet, engine=engine)
    final = res.history[-1]
    summary = {"data": data.summary(), "config": res.config, "specs": res.specs, "final": final, "seconds": round(res.seconds, 2)}
    if res.best_epoch is not None:
        summary["best_valid_epoch"] = res.best_epoch
        summary["at_best_valid_epoch"] = next(h for h in res.history if h["epoch"] == res.best_epoch)
    print(json.dumps(summary, indent=2, default=float))
    if out is not None:
        (out / "results.json").write_text(json.dumps(summary, indent=2, default=float))
        res.history_frame().to_csv(out / "history.csv", index=False)
        print(f"wrote {out / 'results.json'} and {out / 'history.csv'}")
    _check_finite(final, out)
    return 0


def _split_specs(args: argparse.Namespace, sgd: bool, sampler: str, has_valid: bool) -> tuple[str, dict]:
    """The engine and the :func:`negtheory.training.fit` specs of a split run's flags (defaults per path)."""
    from negtheory.training import specs as S
    from negtheory.training.names import loss_spec, sampler_spec

    ks = tuple(args.topk)
    if sgd:  # thesis ch. 4: BPR-MF by batch-1 SGD, lr 0.01, reg 0.01, 100 epochs
        samplers: dict[str, Callable[[], Any]] = {"rns": S.RNS, "pns": S.PNS, "dns": lambda: S.DNS(candidates=args.candidates), "aobpr": S.AOBPR,
                    "srns": S.SRNS, "bns": lambda: S.BNS(candidates=args.candidates, lam=args.lam, prior=args.prior)}  # fmt: skip
        return "sgd", dict(
            model=S.MF(dim=args.dim), loss=S.BPR(), sampler=samplers[sampler](),
            optimizer=S.SGD(lr=_given(args.lr, 0.01), weight_decay=_given(args.weight_decay, 0.01)),
            epochs=_given(args.epochs, 100), evaluation=S.Evaluation(every=args.eval_every, ks=ks, on="both" if has_valid else "test"),
        )  # fmt: skip
    # the loss reads its own flags only (e.g. --alpha for BCL); DPL keeps its clamp's default
    loss = loss_spec(args.loss, args.negatives, args.extra_positives, _given(args.temperature, 1.0), args.tau_plus,
                     args.hcl_beta, args.alpha, args.beta)  # fmt: skip
    opt_cls = S.Adam if args.optimizer == "adam" else S.SGD
    optimizer = opt_cls(lr=_given(args.lr, 0.01 if args.optimizer == "sgd" else 1e-3), weight_decay=_given(args.weight_decay, 1e-5),
                        batch_size=_given(args.batch_size, 1024), milestones=args.lr_schedule)  # fmt: skip
    return "torch", dict(
        model=S.MF(dim=args.dim), loss=loss, sampler=sampler_spec(sampler, args.candidates, args.lam),
        optimizer=optimizer, epochs=_given(args.epochs, 200),
        evaluation=S.Evaluation(every=args.eval_every, ks=ks, patience=args.patience),
    )  # fmt: skip


def _given(value, default):
    """A flag's value, or the path's default when the flag was not given (None)."""
    return default if value is None else value


#: samplers of the batch-1 SGD path and of the mini-batch losses (both negtheory.training.fit), with the losses they need
_SGD_SAMPLERS = ("rns", "pns", "dns", "aobpr", "srns", "bns")
_MINIBATCH_SAMPLERS = {"rns": None, "pns": None, "bns": ("bpr",), "dns": ("bpr", "dpl")}


def _split_sampler(args: argparse.Namespace, sgd: bool) -> str:
    """The sampler a ``--train/--test`` or ``--data-dir`` run uses; a combination that would be ignored is an error."""
    given = args.sampler
    if args.loss == "bns":
        if not sgd:
            raise CommandError("--loss bns is the BPR-MF SGD sampler of thesis ch. 4: add --optimizer sgd "
                               "(or use --loss bpr --sampler bns for mini-batch BPR with BNS negatives)")  # fmt: skip
        if given not in (None, "bns"):
            raise CommandError(f"--loss bns samples by BNS: drop --sampler {given} (or use --loss bpr --sampler {given})")
        return "bns"
    if sgd:
        if args.device == "cuda":
            raise CommandError("--device cuda: the batch-1 SGD path (--optimizer sgd with --loss bpr or bns) runs on the "
                               "CPU (numba); drop --device, or use a mini-batch run (--optimizer adam) on CUDA")  # fmt: skip
        return given or "rns"
    sampler = given or "rns"
    if sampler not in _MINIBATCH_SAMPLERS:
        raise CommandError(f"--sampler {sampler} runs on the batch-1 SGD path only: use --optimizer sgd --loss bpr, or one "
                           f"of --sampler {', '.join(_MINIBATCH_SAMPLERS)} with --optimizer {args.optimizer}")  # fmt: skip
    needs = _MINIBATCH_SAMPLERS[sampler]
    if needs is not None and args.loss not in needs:
        raise CommandError(f"--sampler {sampler} with the mini-batch losses needs --loss {' or '.join(needs)}, "
                           f"got --loss {args.loss}")  # fmt: skip
    if args.prior != "popularity":
        raise CommandError("--prior oracle is the BNS prior of the batch-1 SGD path: use --optimizer sgd --loss bns")
    return sampler


def _check_device(args: argparse.Namespace) -> None:
    """``--device cuda`` on a machine where torch finds no CUDA device is an error naming the flag."""
    if args.device != "cuda":
        return
    import torch

    if not torch.cuda.is_available():
        raise CommandError("--device cuda: torch finds no CUDA device here (torch.cuda.is_available() is False); "
                           "use --device auto or --device cpu")  # fmt: skip


def _check_finite(final: dict, out) -> None:
    """Exit status 1 (never 0) when a final metric is NaN or infinite, e.g. a diverged loss."""
    bad = sorted(k for k, v in final.items() if isinstance(v, float) and not math.isfinite(v))
    if bad:
        where = f" (results written to {out} for inspection)" if out is not None else ""
        raise CommandError(f"training gave non-finite final metrics {', '.join(bad)}{where}: lower --lr or check the data",
                           exit_code=1)  # fmt: skip


def _cmd_train(args: argparse.Namespace) -> int:
    from negtheory.bridge.train import train

    if args.train or args.test or args.data_dir:
        sgd = args.optimizer == "sgd" and args.loss in ("bpr", "bns")
        if not sgd:
            _check_device(args)
        return _cmd_train_split(args)
    if args.sampler is not None:
        raise CommandError(
            f"--sampler {args.sampler} applies to real data (--train/--test or --data-dir), not to --data {args.data}"
        )
    _check_device(args)
    if args.data not in ("synthetic", "digits"):
        raise CommandError(f"--data must be synthetic or digits (real data: --data-dir DIR or --train/--test), got {args.data!r}")
    out = output_dir(args.out, "--out") if args.out is not None else None
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
    print(
        json.dumps(
            {"final": res["final"], "probe": res.get("probe", {}), "seconds": round(res["seconds"], 2)}, indent=2, default=float
        )
    )
    if out is not None:
        print(f"wrote {res['results_file']}")
    _check_finite(res["final"], out)
    return 0


def _cmd_experiments(args: argparse.Namespace) -> int:
    from negtheory.bridge.experiments import run_all

    if args.update_committed:
        if args.quick:
            raise CommandError("--update-committed cannot be combined with --quick: smoke runs never replace committed results")
        if args.out is not None or args.figures is not None:
            raise CommandError("--update-committed chooses the output folders: drop --out and --figures")
        out_path, fig_path = committed_dir("notebooks/data/bridge"), committed_dir("figures")
    else:
        out_path = args.out if args.out is not None else default_output("bridge_experiments", args.quick)
        fig_path = args.figures if args.figures is not None else out_path
    out, figures = output_dir(out_path, "--out"), output_dir(fig_path, "--figures")
    run_all(out=out, figures=figures, quick=args.quick, progress=not args.quiet)
    names = ("wu_k_sweep", "downstream")
    tables = ", ".join(str(out / f"bridge_{n}.csv") for n in names)
    pngs = ", ".join(str(figures / f"bridge_{n}.png") for n in names)
    print(f"wrote {tables} and {pngs}" + (" (QUICK smoke run: not a result)" if args.quick else ""))
    return 0
