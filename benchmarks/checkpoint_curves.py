"""The evaluations a checkpointed run has made so far, read from its checkpoint files, as one CSV.

A run started with ``--checkpoints`` (``thesis-tables``, ``gowalla-benchmark``) or ``fit(..., checkpoint=path)``
stores its history in ``OUT/checkpoints/*.pt`` after every evaluation (:mod:`negtheory.training.checkpoint`). This
script lists each file's evaluated epochs without resuming the run, so a run stopped part-way, or one still going,
can be reported as far as it got. The file is read with ``torch.load(weights_only=True)``: no pickled code runs.
One row per (file, evaluated epoch): ``run`` (the file name without ``.pt``), ``epoch``, ``last_epoch`` (the epoch
the file was saved at; the file does not hold the run's epoch count), ``stopped_on_patience`` (early stopping ended
the run), the training loss of that epoch, and every ``test_*`` / ``valid_*`` metric of the history. Usage::

    python benchmarks/checkpoint_curves.py OUT/checkpoints/*.pt --out curves.csv
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
                rows.append(dict(run=p.stem, epoch=h["epoch"], last_epoch=state["epoch"],
                                 stopped_on_patience=bool(state.get("finished", False)), loss=h.get("loss"), **metrics))  # fmt: skip
    return pd.DataFrame(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", help="checkpoint files (OUT/checkpoints/*.pt)")
    ap.add_argument("--out", help="CSV to write (default: print the table)")
    args = ap.parse_args(argv)
    df = curves(args.paths)
    if args.out:
        df.to_csv(args.out, index=False)
    print(df.to_string(index=False))


if __name__ == "__main__":
    main()
