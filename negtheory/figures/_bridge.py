"""Figures of the simulation-vs-training experiments (``bridge_*.png``), drawn from their tables.

The experiments themselves (:mod:`negtheory.bridge.experiments`, ``negtheory bridge
experiments``) train torch models for minutes; these functions only read the tables they write
(``bridge_wu_k_sweep.csv``, ``bridge_downstream.csv``), so the figures can be redrawn from the
committed tables in ``notebooks/data/bridge/`` without torch: :func:`save_bridge_figures`, or
``negtheory.figures.save_figures(only=["bridge_..."])``. (The digits MSE experiment and its figure
``bridge_mse_sim_vs_train`` are retired: ``negtheory reproduce sim-vs-train`` replaces them.)

This module name starts with ``_``: it is not part of :func:`negtheory.figures.registry` (its
figures need data, not only defaults).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ._canvas import new_figure

__all__ = [
    "BRIDGE_DATA",
    "BRIDGE_FIGURES",
    "draw_bridge_figure",
    "find_bridge_data",
    "plot_downstream",
    "plot_wu",
    "save_bridge_figures",
]

# figure name -> the table it is drawn from
BRIDGE_FIGURES = {
    "bridge_wu_k_sweep": "bridge_wu_k_sweep.csv",
    "bridge_downstream": "bridge_downstream.csv",
}
BRIDGE_DATA = (
    Path("notebooks") / "data" / "bridge"
)  # where `negtheory bridge experiments` writes (relative to the cwd)


def find_bridge_data(data=None) -> Path | None:
    """The folder holding the bridge tables: ``data`` if given, else ``notebooks/data/bridge`` under
    the current directory, else the one next to the package (a source checkout); ``None`` if absent."""
    if data is not None:
        return Path(data)
    here = Path(__file__).resolve().parents[2] / BRIDGE_DATA
    for cand in (BRIDGE_DATA, here):
        if (cand / BRIDGE_FIGURES["bridge_wu_k_sweep"]).exists():
            return cand
    return None


def plot_wu(df):
    """NDCG@10 against K per label quality mu_q, with the predicted K* and ANS marked.

    Parameters
    ----------
    df : pandas.DataFrame
        The ``bridge_wu_k_sweep.csv`` table of ``negtheory bridge experiments``: columns
        ``mu_q``, ``k`` (an int, or ``"ans"``), ``ndcg``, ``k_pred``, ``train_auc_k1``,
        ``k_pred_label`` and ``label_auc``.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per mu_q, not attached to pyplot.
    """
    mus = sorted(df.mu_q.unique())
    fig, axes = new_figure(1, len(mus), width=5.0 * len(mus), height=3.8)
    axes = np.atleast_1d(axes)
    for ax, mu in zip(axes, mus):
        d = df[df.mu_q == mu]
        fixed = d[d.k != "ans"].assign(kk=lambda x: x.k.astype(int)).groupby("kk").ndcg.mean()
        ax.plot(fixed.index, fixed.values, "o-", label="InfoNCE, fixed K")
        kp = int(d.k_pred.iloc[0])
        ax.axvline(
            kp, color="C3", ls="--", label=f"K* from train AUC {d.train_auc_k1.mean():.3f}: {kp}"
        )
        kl = int(d.k_pred_label.iloc[0])
        ax.axvline(
            kl, color="C4", ls="-.", label=f"K* from label AUC {d.label_auc.iloc[0]:.3f}: {kl}"
        )
        ans = d[d.k == "ans"].ndcg.mean()
        ax.axhline(ans, color="C2", ls=":", label=f"ANS peaking at K* ({ans:.4f})")
        best = int(fixed.idxmax())
        ax.plot([best], [fixed.max()], "*", ms=14, color="C1", label=f"real best K = {best}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("negatives per positive K")
        ax.set_ylabel("best NDCG@10")
        ax.set_title(f"synthetic PU, mu_q = {mu:g} (label AUC {d.label_auc.iloc[0]:.3f})")
        ax.legend(fontsize=7)
    return fig


_DOWNSTREAM_LABELS = {"probe_acc": "linear-probe accuracy (test)", "ndcg@10": "NDCG@10 (test)"}


def plot_downstream(df):
    """Digits linear-probe accuracy and synthetic-PU NDCG@10 per loss: every seed, and mean +- sd.

    Points, not bars: the differences are a few hundredths, so the axis is zoomed on the data
    (it does not start at 0, which bars would require to be honest); every seed is shown.

    Parameters
    ----------
    df : pandas.DataFrame
        The ``bridge_downstream.csv`` table of ``negtheory bridge experiments``: columns
        ``task`` (``digits`` / ``synthetic``), ``metric`` (``probe_acc`` / ``ndcg@10``),
        ``loss``, ``seed`` and ``value``.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels (digits, synthetic), not attached to pyplot.
    """
    from matplotlib.lines import Line2D

    fig, axes = new_figure(1, 2, width=10.0, height=3.8)
    for ax, (task, metric) in zip(axes, (("digits", "probe_acc"), ("synthetic", "ndcg@10"))):
        d = df[(df.task == task) & (df.metric == metric)]
        losses = list(dict.fromkeys(d.loss))
        seeds = sorted(d.seed.unique())
        for i, loss in enumerate(losses):
            v = d[d.loss == loss].value.to_numpy()
            color = f"C{i}"
            jitter = np.linspace(-0.12, 0.12, v.size) if v.size > 1 else np.zeros(1)
            ax.plot(i + jitter, v, "o", mfc="none", color=color, ms=5)
            sd = float(v.std(ddof=1)) if v.size > 1 else 0.0
            ax.errorbar([i + 0.3], [v.mean()], yerr=[sd], fmt="D", color=color, ms=6, capsize=4)
        ax.set_xticks(range(len(losses)), losses)
        ax.set_xlim(-0.5, len(losses) - 0.3)
        ax.set_ylabel(_DOWNSTREAM_LABELS.get(metric, metric))
        ax.set_xlabel("loss")
        ax.grid(axis="y", alpha=0.3)
        ax.set_title(
            f"{task}: {metric} ({len(seeds)} seed{'s' if len(seeds) != 1 else ''}; axis not from 0)",
            fontsize=9.5,
        )
        handles = [
            Line2D([], [], ls="none", marker="o", mfc="none", color="0.3", label="each seed"),
            Line2D([], [], ls="-", marker="D", color="0.3", label="mean $\\pm$ sd over seeds"),
        ]
        ax.legend(handles=handles, fontsize=7.5, loc="best")
    return fig


_PLOTS = {"bridge_wu_k_sweep": plot_wu, "bridge_downstream": plot_downstream}


def draw_bridge_figure(name: str, data=None):
    """Draw one ``bridge_*`` figure from its table in ``data`` (see :func:`find_bridge_data`)."""
    import pandas as pd

    if name not in BRIDGE_FIGURES:
        raise ValueError(
            f"name: {name!r} is not a bridge figure; bridge figures: {', '.join(BRIDGE_FIGURES)}"
        )
    folder = find_bridge_data(data)
    path = None if folder is None else folder / BRIDGE_FIGURES[name]
    if path is None or not path.exists():
        raise ValueError(
            f"{name} is drawn from the table {BRIDGE_FIGURES[name]}, not found in "
            f"{folder if folder is not None else BRIDGE_DATA}: run `negtheory bridge experiments` (torch extra, minutes) "
            f"to train and write it, or run from the repository root where notebooks/data/bridge/ holds the committed tables"
        )
    return _PLOTS[name](pd.read_csv(path))


def save_bridge_figures(
    out="figures", data=None, *, only=None, dpi: int = 110, progress: bool = True
) -> list[Path]:
    """Redraw the ``bridge_*.png`` figures from the experiments' tables (no training, no torch)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in only or list(BRIDGE_FIGURES):
        path = out / f"{name}.png"
        draw_bridge_figure(name, data).savefig(path, dpi=dpi)
        written.append(path)
        if progress:
            print(f"{path}  (redrawn from {BRIDGE_FIGURES[name]})", flush=True)
    return written
