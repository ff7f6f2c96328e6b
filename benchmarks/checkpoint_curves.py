"""The evaluations a checkpointed run has made so far, read from its checkpoint files, as one CSV.

A run started with ``--checkpoints`` (``thesis-tables``, ``gowalla-benchmark``) or ``fit(..., checkpoint=path)``
stores its history in ``OUT/checkpoints/*.pt`` after every evaluation (:mod:`negtheory.training.checkpoint`). This
script lists each file's evaluated epochs without resuming the run, so a run stopped part-way, or one still going,
can be reported as far as it got. The file is read with ``torch.load(weights_only=True)``: no pickled code runs.
One row per (file, evaluated epoch): ``run`` (the file name without ``.pt``), ``epoch``, ``last_epoch`` (the epoch
the file was saved at; the file does not hold the run's epoch count), ``stopped_on_patience`` (early stopping ended
the run), the training loss of that epoch, and every ``test_*`` / ``valid_*`` metric of the history. Usage::

    python benchmarks/checkpoint_curves.py OUT/checkpoints/*.pt --out curves.csv
    python benchmarks/checkpoint_curves.py OTHER/checkpoints/*.pt --out curves.csv --append

``--append`` keeps the rows already in ``--out`` of every run not read this time and replaces those of the runs read
(so the curves of runs whose checkpoints are gone stay, and a run read again is not counted twice).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd


def curves(paths) -> pd.DataFrame:
    """The evaluated rows of the histories in ``paths`` (checkpoint files), one frame."""
    import torch

    rows = []
    for p in map(Path, paths):
        if not p.is_file():
            raise ValueError(f"paths: {p} is not a file")
        state = torch.load(p, weights_only=True, map_location="cpu")
        if not isinstance(state, dict) or not str(state.get("format", "")).startswith("negtheory."):
            raise ValueError(f"paths: {p} is not a negtheory checkpoint")
        for h in state["history"]:
            metrics = {k: v for k, v in h.items() if k.startswith(("test_", "valid_"))}
            if metrics:  # an epoch the run evaluated
                rows.append(
                    dict(
                        run=p.stem,
                        epoch=h["epoch"],
                        last_epoch=state["epoch"],
                        stopped_on_patience=bool(state.get("finished", False)),
                        loss=h.get("loss"),
                        **metrics,
                    )
                )
    return pd.DataFrame(rows)


def merged(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """``old``'s rows of the runs not in ``new``, then ``new``'s rows (the columns of both, in ``old``'s order first)."""
    if "run" not in old.columns:
        raise ValueError(
            "out: the file to append to has no 'run' column (not written by this script)"
        )
    keep = old[~old.run.isin(set(new.run))]
    return pd.concat([keep, new], ignore_index=True)[
        list(dict.fromkeys([*old.columns, *new.columns]))
    ]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", help="checkpoint files (OUT/checkpoints/*.pt)")
    ap.add_argument("--out", help="CSV to write (default: print the table)")
    ap.add_argument(
        "--append",
        action="store_true",
        help="keep --out's rows of the runs not read here; replace those of the runs read",
    )
    args = ap.parse_args(argv)
    if args.append and not args.out:
        raise ValueError("append: --append needs --out")
    df = curves(args.paths)
    if args.append and Path(args.out).is_file():
        df = merged(pd.read_csv(args.out), df)
    if args.out:
        df.to_csv(args.out, index=False)
    print(df.to_string(index=False))


if __name__ == "__main__":
    main()
