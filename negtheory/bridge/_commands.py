"""The ``negtheory bridge train|experiments`` commands (private; they import torch when they run).

:mod:`negtheory._cli_bridge` (the torch-free parser) dispatches here. Keeping the commands in a
module of their own keeps the import graph free of circles: the parser imports the commands
(lazily), the commands never import the parser.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from .._cli_common import CommandError, committed_dir, default_output, input_file, output_dir

__all__ = ["_cmd_train", "_cmd_train_split", "_cmd_experiments", "_check_finite"]


def _cmd_train_split(args: argparse.Namespace) -> int:
    """``bridge train --train F --test F`` (or ``--data-dir``): :func:`negtheory.training.fit` on a real split.

    The flags are ``fit``'s arguments: every combination ``fit`` runs is accepted, a flag left out takes its spec's
    default, and ``fit`` picks the backend (``engine="auto"``). The data flags choose the data only.
    """
    from negtheory.recsys import load_movielens_dir, load_split
    from negtheory.training import Evaluation, fit

    if args.data_dir is not None:
        if args.train or args.test:
            raise CommandError("give --data-dir or --train/--test, not both")
        from pathlib import Path

        if not Path(args.data_dir).exists():
            raise CommandError(f"--data-dir {args.data_dir}: no such directory")
        input_file(
            args.data_dir, "--data-dir", folder_ok=True
        )  # a folder holding u.data, or u.data itself
    elif not args.train or not args.test:
        raise CommandError("--train and --test go together (or give --data-dir)")
    else:
        input_file(args.train, "--train")
        input_file(args.test, "--test")
    specs = _split_specs(args)  # every flag is checked before any data is read
    if args.patience is not None and not args.valid_fraction:
        raise CommandError(
            "--patience stops on the validation metric: add --valid-fraction (e.g. 0.1)"
        )
    _check_device(args)
    out = output_dir(args.out, "--out") if args.out is not None else None
    if args.data_dir is not None:
        data = load_movielens_dir(
            args.data_dir, rng=args.split_seed, format=getattr(args, "format", "auto")
        )
    else:
        data = load_split(args.train, args.test, format=getattr(args, "format", "auto"))
    if len(data.test) == 0:
        if args.data_dir is not None:
            raise CommandError(
                f"--data-dir {args.data_dir}: the 80/20 split leaves no test interaction ({len(data.train)} "
                "interactions in all): nothing to evaluate; give a larger data set"
            )
        raise CommandError(
            f"--test {args.test}: no test interaction remains (each test pair is also a training pair): "
            "nothing to evaluate"
        )
    too_long = [k for k in args.topk if k > data.n_items]
    if too_long:
        raise CommandError(
            f"--topk {too_long[0]}: a list cannot be longer than the {data.n_items} items of the data"
        )
    if args.valid_fraction:
        data = data.with_validation(args.valid_fraction, rng=args.seed)
    # a validation split is ranked whichever backend runs (None: each backend ranks its own default, the test split)
    on = "both" if len(data.valid) > 0 else None
    evaluation = Evaluation(
        every=args.eval_every, ks=tuple(args.topk), on=on, patience=args.patience
    )
    res = fit(
        data,
        **specs,
        evaluation=evaluation,
        rng=args.seed,
        device=args.device,
        progress=not args.quiet,
        engine="auto",
    )
    final = res.history[-1]
    summary = {
        "data": data.summary(),
        "config": res.config,
        "specs": res.specs,
        "final": final,
        "seconds": round(res.seconds, 2),
    }
    if res.best_epoch is not None:
        summary["best_valid_epoch"] = res.best_epoch
        summary["at_best_valid_epoch"] = next(
            h for h in res.history if h["epoch"] == res.best_epoch
        )
    print(json.dumps(summary, indent=2, default=float))
    if out is not None:
        (out / "results.json").write_text(json.dumps(summary, indent=2, default=float))
        res.history_frame().to_csv(out / "history.csv", index=False)
        print(f"wrote {out / 'results.json'} and {out / 'history.csv'}")
    _check_finite(final, out)
    return 0


#: the loss flags (argparse dest -> the spec field it sets, the loss specs that read it; None: every loss with the field)
_LOSS_FLAGS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "negatives": ("negatives", None),
    "extra_positives": ("extra_positives", None),
    "temperature": ("temperature", None),
    "tau_plus": ("tau_plus", None),
    "alpha": ("alpha", ("BCL",)),
    "beta": ("beta", ("BCL",)),
    "hcl_beta": ("beta", ("HCL",)),
    "dpl_eps": ("eps", ("DPL",)),
}
#: the sampler flags, in the same form
_SAMPLER_FLAGS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "candidates": ("candidates", None),
    "lam": ("lam", ("BNS",)),
    "prior": ("prior", ("BNS",)),
}
#: the toy harness's losses that are no loss spec of negtheory.training (``bns`` is a sampler there)
_HARNESS_ONLY_LOSSES = ("bcl_norm", "relaxed_softmax", "bprac")


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _spec_from_flags(
    args: argparse.Namespace, role: str, name: str, cls: type, flags: dict, fixed: dict
) -> Any:
    """``cls(**fixed, **given)`` with the fields of the flags given; a flag the spec does not read is an error."""
    from negtheory.training.specs import fields

    names = {f.name for f in fields(cls)}
    reads = [
        d
        for d, (fld, kinds) in flags.items()
        if fld in names and (kinds is None or cls.__name__ in kinds)
    ]
    kw = dict(fixed)
    for dest, (fld, _) in flags.items():
        value = getattr(args, dest)
        if value is None:
            continue
        if dest not in reads:
            its = ", ".join(_flag(d) for d in reads) or "none of these flags"
            raise CommandError(
                f"{_flag(dest)} does not apply to --{role} {name} ({cls.__name__} reads {its}): drop it"
            )
        kw[fld] = value
    return cls(**kw)


def _split_specs(args: argparse.Namespace) -> dict[str, Any]:
    """The model, loss, sampler, optimizer and epochs of :func:`negtheory.training.fit` from a split run's flags.

    A flag left out (None) takes its spec's default; the thesis's run lengths and schedules follow the optimizer:
    batch-1 SGD (thesis ch. 4) 100 epochs at a fixed lr, otherwise 200 epochs with lr / 10 after epoch 100 (the
    released code of ch. 5-6). A combination ``fit`` refuses (:func:`negtheory.training.undefined`) is an error here,
    before any data is read.
    """
    from negtheory.training import specs as S
    from negtheory.training import undefined
    from negtheory.training.names import LOSS_NAMES, loss_spec, sampler_spec

    if args.loss == "bns":
        raise CommandError(
            "--loss bns: BNS is a negative sampler, not a loss: use --loss bpr --sampler bns (with "
            "--optimizer sgd for the thesis's batch-1 BPR-MF of ch. 4)"
        )
    if args.loss in _HARNESS_ONLY_LOSSES:
        raise CommandError(
            f"--loss {args.loss} belongs to the toy harness (--data synthetic|digits); on real data "
            f"--loss is one of {', '.join(LOSS_NAMES)}"
        )
    try:
        if args.model == "mlp":
            raise CommandError(
                "--model mlp is the toy harness's two-tower (--data synthetic|digits); on real data "
                "--model is mf or lightgcn"
            )
        if args.model == "lightgcn":
            if args.similarity is not None:
                raise CommandError(
                    "--similarity applies to --model mf (LightGCN scores by the inner product): drop it"
                )
            model: Any = S.LightGCN(
                dim=args.dim, **({} if args.layers is None else {"layers": args.layers})
            )
        else:
            if args.layers is not None:
                raise CommandError(
                    "--layers applies to --model lightgcn: drop it, or add --model lightgcn"
                )
            model = S.MF(
                dim=args.dim, **({} if args.similarity is None else {"similarity": args.similarity})
            )
        named = loss_spec(
            args.loss
        )  # the spec class of the name (and BCL's form); the flags set its fields
        fixed = {"form": named.form} if isinstance(named, S.BCL) else {}
        loss = _spec_from_flags(args, "loss", args.loss, type(named), _LOSS_FLAGS, fixed)
        sampler_name = args.sampler or "rns"
        sampler = _spec_from_flags(
            args, "sampler", sampler_name, type(sampler_spec(sampler_name)), _SAMPLER_FLAGS, {}
        )
        opt_cls = S.SGD if args.optimizer == "sgd" else S.Adam
        given = {
            k: getattr(args, k)
            for k in ("lr", "weight_decay", "batch_size")
            if getattr(args, k) is not None
        }
        batch1 = opt_cls is S.SGD and given.get("batch_size", 1) == 1
        milestones = (
            args.lr_schedule if args.lr_schedule is not None else (() if batch1 else (100,))
        )
        optimizer = opt_cls(**given, milestones=milestones)
    except (
        ValueError,
        TypeError,
    ) as exc:  # a spec's own check of a value (it names the spec and the field)
        raise CommandError(str(exc)) from None
    reasons = undefined(model, loss, sampler, optimizer)
    if reasons:  # fit's own refusal, with its message, before any data is read
        hint = " (on the command line: --similarity cosine)" if isinstance(loss, S.CCL) else ""
        raise CommandError("this combination is not defined: " + "; ".join(reasons) + hint)
    epochs = args.epochs if args.epochs is not None else (100 if batch1 else 200)
    return dict(model=model, loss=loss, sampler=sampler, optimizer=optimizer, epochs=epochs)


def _check_device(args: argparse.Namespace) -> None:
    """``--device cuda`` on a machine where torch finds no CUDA device is an error naming the flag."""
    if args.device != "cuda":
        return
    import torch

    if not torch.cuda.is_available():
        raise CommandError(
            "--device cuda: torch finds no CUDA device here (torch.cuda.is_available() is False); "
            "use --device auto or --device cpu"
        )


def _check_finite(final: dict, out) -> None:
    """Exit status 1 (never 0) when a final metric is NaN or infinite, e.g. a diverged loss."""
    bad = sorted(k for k, v in final.items() if isinstance(v, float) and not math.isfinite(v))
    if bad:
        where = f" (results written to {out} for inspection)" if out is not None else ""
        raise CommandError(
            f"training gave non-finite final metrics {', '.join(bad)}{where}: lower --lr or check the data",
            exit_code=1,
        )


def _cmd_train(args: argparse.Namespace) -> int:
    from negtheory.bridge.train import train

    if args.train or args.test or args.data_dir:
        return _cmd_train_split(args)
    for dest in ("sampler", "similarity", "layers", "dpl_eps"):
        if getattr(args, dest) is not None:
            raise CommandError(
                f"{_flag(dest)} {getattr(args, dest)} applies to real data (--train/--test or --data-dir), "
                f"not to --data {args.data}"
            )
    if args.model == "lightgcn":
        raise CommandError(
            f"--model lightgcn trains on real data (--train/--test or --data-dir), not on --data {args.data}"
        )
    _check_device(args)
    if args.data not in ("synthetic", "digits"):
        raise CommandError(
            f"--data must be synthetic or digits (real data: --data-dir DIR or --train/--test), got {args.data!r}"
        )
    out = output_dir(args.out, "--out") if args.out is not None else None
    for name, default in (("epochs", 5), ("batch_size", 256), ("lr", 0.01), ("weight_decay", 0.0)):
        if getattr(args, name) is None:
            setattr(args, name, default)
    kw = dict(
        data=args.data,
        model=args.model,
        loss=args.loss,
        epochs=args.epochs,
        device=args.device,
        out=args.out,
        rng=args.seed,
        progress=not args.quiet,
        k=args.k,
        batch_size=args.batch_size,
        lr=args.lr,
        dim=args.dim,
        ans=args.ans,
        probe=not args.no_probe,
        weight_decay=args.weight_decay,
    )
    for name in (
        "tau_plus",
        "alpha",
        "beta",
        "hcl_beta",
    ):  # left out: the harness's own defaults (TrainConfig's)
        if getattr(args, name) is not None:
            kw[name] = getattr(args, name)
    if args.temperature is not None:
        kw["temperature"] = args.temperature
    if args.model is None:
        kw["model"] = "mlp" if args.data == "digits" else "mf"
    res = train(**kw)
    print(
        json.dumps(
            {
                "final": res["final"],
                "probe": res.get("probe", {}),
                "seconds": round(res["seconds"], 2),
            },
            indent=2,
            default=float,
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
            raise CommandError(
                "--update-committed cannot be combined with --quick: smoke runs never replace committed results"
            )
        if args.out is not None or args.figures is not None:
            raise CommandError(
                "--update-committed chooses the output folders: drop --out and --figures"
            )
        out_path, fig_path = committed_dir("notebooks/data/bridge"), committed_dir("figures")
    else:
        out_path = (
            args.out if args.out is not None else default_output("bridge_experiments", args.quick)
        )
        fig_path = args.figures if args.figures is not None else out_path
    out, figures = output_dir(out_path, "--out"), output_dir(fig_path, "--figures")
    run_all(out=out, figures=figures, quick=args.quick, progress=not args.quiet)
    names = ("wu_k_sweep", "downstream")
    tables = ", ".join(str(out / f"bridge_{n}.csv") for n in names)
    pngs = ", ".join(str(figures / f"bridge_{n}.png") for n in names)
    print(f"wrote {tables} and {pngs}" + (" (QUICK smoke run: not a result)" if args.quick else ""))
    return 0
