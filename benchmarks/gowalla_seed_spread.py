"""The seed spread of one Gowalla rung: test recall@20 per evaluated epoch over seeds, beside the released MF-CCL run.

Reads ``curves.csv`` of ``notebooks/data/gowalla_benchmark`` (one row per (run, rung, seed, evaluated epoch)) and the
released run's curve (``released_mfccl_curve.csv``), takes the rows of the given (run, rung) pairs, and writes a
markdown table: each seed's test recall@20 at each epoch that every seed evaluated, their mean with a 95 %
t-interval (Student's t with n - 1 degrees of freedom: mean ± t_{0.975, n-1} · s / √n), and the released run's value
at that epoch with the mean's gap to it. With ``--png`` it also draws the seeds' curves and the released one.

Usage::

    python benchmarks/gowalla_seed_spread.py --rung ccl-n800-simplex-adam-cut19-30-released-model-clip10 \
        --runs cpu_clip:0 cpu_seeds:1 cpu_seeds:2 --out notebooks/data/gowalla_benchmark/cpu_seeds/seed_spread.md \
        --png notebooks/data/gowalla_benchmark/cpu_seeds/seed_spread.png

``--runs RUN:SEED`` names where each seed's curve is stored (the ``run`` column of ``curves.csv``).
``--column train_loss`` tabulates each evaluated epoch's mean training loss per pair instead of test recall@20 (the
released log's ``train_loss`` beside it); the figure always draws test recall@20.
``--beside RUN:RUNG:SEED`` sets single runs of other rungs beside the spread (a column each, and the released value's
gap to it), e.g. an ablation of one seed against the interval of the rung it changes::

    python benchmarks/gowalla_seed_spread.py --rung ccl-n800-simplex-adam-cut19-30-released-model-clip10 \
        --runs cpu_clip:0 cpu_seeds:1 cpu_seeds:2 \
        --beside cpu_released_sampler:ccl-n800-simplex-adam-cut19-30-released-model-clip10-released-sampler:0 \
        --out spread.md
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd

COLUMNS = {
    "test_recall20": "Test recall@20",
    "train_loss": "Mean training loss per pair (the loss alone)",
}


def _curve(curves: pd.DataFrame, run: str, rung: str, seed: int) -> pd.DataFrame:
    """The rows of one stored curve, by epoch."""
    return curves[(curves.run == run) & (curves.rung == rung) & (curves.seed == seed)].sort_values(
        "epoch"
    )


def spread(
    curves: pd.DataFrame,
    released: pd.DataFrame,
    rung: str,
    runs: list[tuple[str, int]],
    beside: list[tuple[str, str, int]] = (),
    column: str = "test_recall20",
) -> pd.DataFrame:
    """One row per epoch evaluated by every seed: the seeds' values, mean, 95 % t half-width, released value.

    Parameters
    ----------
    curves : pandas.DataFrame
        ``curves.csv`` (columns ``run, rung, seed, epoch, test_recall20``).
    released : pandas.DataFrame
        The released run's curve (``epoch, test_recall20``).
    rung : str
        The rung whose seeds are compared.
    runs : list of (str, int)
        (run, seed) of each curve.
    beside : list of (str, str, int)
        (run, rung, seed) of single curves set beside the spread (a column ``<rung> (seed s)`` each).
    column : {"test_recall20", "train_loss"}
        What is compared: test recall@20 (default) or the mean training loss per pair of the evaluated epoch.

    Returns
    -------
    pandas.DataFrame
        Columns ``epoch``, ``seed <s>`` per seed, ``mean``, ``half_width``, the ``beside`` columns,
        ``released``, ``gap``; one row per epoch that every curve evaluated.

    Raises
    ------
    ValueError
        A (run, seed) has no curve for ``rung``, a ``beside`` curve is missing, fewer than two
        seeds are given, or ``column`` is not one of the two.
    """
    from scipy import stats

    if column not in COLUMNS:
        raise ValueError(f"column: expected one of {sorted(COLUMNS)}, got {column!r}")
    if len(runs) < 2:
        raise ValueError(f"runs: need at least two seeds for a spread, got {runs}")
    cols = {}
    for run, seed in runs:
        c = _curve(curves, run, rung, seed)
        if c.empty:
            raise ValueError(f"runs: no curve of rung {rung!r} for run {run!r}, seed {seed}")
        cols[f"seed {seed}"] = c.set_index("epoch")[column]
    extra = {}
    for run, other, seed in beside:
        c = _curve(curves, run, other, seed)
        if c.empty:
            raise ValueError(f"beside: no curve of rung {other!r} for run {run!r}, seed {seed}")
        extra[f"{other} (seed {seed})"] = c.set_index("epoch")[column]
    df = pd.DataFrame({**cols, **extra}).dropna().sort_index()
    vals = df[list(cols)].to_numpy()
    n = vals.shape[1]
    t = stats.t.ppf(0.975, n - 1)
    df["mean"] = vals.mean(axis=1)
    df["half_width"] = t * vals.std(axis=1, ddof=1) / math.sqrt(n)
    rel = released.set_index("epoch")[column]
    df["released"] = [rel.get(e, np.nan) for e in df.index]
    df["gap"] = df["mean"] - df["released"]
    return df.reset_index().rename(columns={"index": "epoch"})


def _short(column: str, rung: str) -> str:
    """A ``beside`` column's label: what its rung adds to ``rung`` (or its whole name), and its seed."""
    other, _, seed = column.rpartition(" (seed ")
    return f"`{other.removeprefix(rung) or other}` seed {seed.rstrip(')')}"


def _cell(x: float, fmt: str) -> str:
    """``x`` formatted, or a dash where the released run has no value (it stopped at epoch 39: no epoch 40)."""
    return "—" if np.isnan(x) else format(x, fmt)


def markdown(df: pd.DataFrame, rung: str, column: str = "test_recall20") -> str:
    """The table of :func:`spread` as markdown."""
    seeds = [c for c in df.columns if c.startswith("seed ")]
    extra = [c for c in df.columns if c.endswith(")") and " (seed " in c]
    short = [_short(c, rung) for c in extra]
    head = [
        "epoch",
        *seeds,
        "mean [95 % t-interval]",
        *short,
        "released MF-CCL run",
        "mean − released",
        *(f"{c} − released" for c in short),
    ]
    lines = [
        f"{COLUMNS[column]} of `{rung}` by evaluated epoch, {len(seeds)} seeds"
        + (", and single runs beside it." if extra else "."),
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for _, r in df.iterrows():
        cells = [
            f"{int(r.epoch)}",
            *(f"{r[s]:.4f}" for s in seeds),
            f"{r['mean']:.4f} [{r['mean'] - r.half_width:.4f}, {r['mean'] + r.half_width:.4f}]",
            *(f"{r[c]:.4f}" for c in extra),
            _cell(r.released, ".4f"),
            _cell(r.gap, "+.4f"),
            *(_cell(r[c] - r.released, "+.4f") for c in extra),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=Path("notebooks/data/gowalla_benchmark"))
    p.add_argument("--rung", required=True)
    p.add_argument(
        "--runs", nargs="+", required=True, help="RUN:SEED per seed (the run column of curves.csv)"
    )
    p.add_argument(
        "--beside", nargs="*", default=[], help="RUN:RUNG:SEED of single runs set beside the spread"
    )
    p.add_argument(
        "--column", choices=sorted(COLUMNS), default="test_recall20", help="what the table compares"
    )
    p.add_argument("--out", type=Path, required=True, help="markdown file to write")
    p.add_argument("--png", type=Path, default=None, help="also draw the curves here")
    a = p.parse_args(argv)
    runs = []
    for spec in a.runs:
        run, sep, seed = spec.rpartition(":")
        if not sep or not run or not seed.isdigit():
            p.error(f"--runs: expected RUN:SEED, got {spec!r}")
        runs.append((run, int(seed)))
    beside = []
    for spec in a.beside:
        parts = spec.split(":")
        if len(parts) != 3 or not all(parts) or not parts[2].isdigit():
            p.error(f"--beside: expected RUN:RUNG:SEED, got {spec!r}")
        beside.append((parts[0], parts[1], int(parts[2])))
    curves = pd.read_csv(a.data / "curves.csv")
    released = pd.read_csv(a.data / "released_mfccl_curve.csv")
    df = spread(curves, released, a.rung, runs, beside, a.column)
    a.out.write_text(markdown(df, a.rung, a.column))
    print(f"wrote {a.out}")
    if a.png is not None:
        df = spread(
            curves, released, a.rung, runs, beside
        )  # the figure is of test recall@20 whatever --column
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4.2))
        ax.plot(
            released.epoch,
            released.test_recall20,
            "k-",
            lw=1.5,
            label="MF-CCL's released run (BARS log)",
        )
        from negtheory.reproduce.gowalla_benchmark import PUBLISHED

        mfccl = PUBLISHED["MF-CCL"][0]
        ax.axhline(mfccl, color="k", ls=":", lw=1, label=f"published MF-CCL {mfccl}")
        for run, seed in runs:
            c = _curve(curves, run, a.rung, seed)
            ax.plot(c.epoch, c.test_recall20, "o-", ms=3.5, lw=1, label=f"seed {seed}")
        ax.errorbar(
            df.epoch,
            df["mean"],
            yerr=df.half_width,
            fmt="none",
            ecolor="C3",
            capsize=3,
            label="mean, 95 % t-interval",
        )
        for k, (run, other, seed) in enumerate(beside):
            c = _curve(curves, run, other, seed)
            ax.plot(
                c.epoch,
                c.test_recall20,
                "s--",
                ms=4,
                lw=1.3,
                color=f"C{4 + k}",
                label=f"{other.removeprefix(a.rung) or other}, seed {seed}",
            )
        ax.set(
            xlabel="epoch",
            ylabel="test recall@20",
            ylim=(0.13, 0.19),
            xlim=(0, 41),
            title="CCL with MF-CCL's released protocol on Gowalla, refit: seeds",
        )
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7.5, loc="lower right")
        fig.tight_layout()
        fig.savefig(a.png, dpi=120)
        print(f"wrote {a.png}")


if __name__ == "__main__":
    main()
