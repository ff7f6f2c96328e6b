"""Figures 6.9 and 6.10 of the thesis (seed 003, §6.6.1): MSE and mean of the estimators.

The sweeps use the thesis's defaults (alpha = 0.9, gamma = 0.1, tau+ = 0.1, t = 0.5, M = 1e3,
N = 64) and vary one parameter at a time with :func:`negtheory.studies.mse_study`. Set the
environment variable ``NEGTHEORY_FULL=1`` (or pass ``n_anchors``) for publication-size runs.
"""

from __future__ import annotations

import functools
import os

from negtheory.figures import new_figure
from negtheory.studies import mse_study

SWEEPS = {
    "alpha": [0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
    "gamma": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5],
    "tau_plus": [0.02, 0.05, 0.1, 0.15, 0.2, 0.3],
    "t": [0.5, 0.75, 1.0, 1.25, 1.5, 2.0],
    "n_unlabeled": [16, 32, 64, 128, 256, 512],
    "n_positives": [1, 2, 5, 10, 20, 50],
}
LABELS = {
    "alpha": r"encoder quality $\alpha$",
    "gamma": r"parent spread $\gamma$",
    "tau_plus": r"class prior $\tau^+$",
    "t": "temperature t",
    "n_unlabeled": "negatives N",
    "n_positives": "extra positives K",
    "beta": r"hardness $\beta$",
}
STYLE = {
    "biased": dict(color="tab:gray", marker="o", label="Biased (6.46)"),
    "dcl": dict(color="tab:blue", marker="s", label="DCL (6.47)"),
    "hcl": dict(color="tab:purple", marker="v", label="HCL"),
    "bcl": dict(color="tab:red", marker="^", label="BCL (6.48)"),
    "bcl_norm": dict(color="tab:orange", marker="D", label="BCL, self-normalised"),
}


def _default_anchors() -> int:
    return 100_000 if os.environ.get("NEGTHEORY_FULL") else 1000


@functools.cache
def _sweep(vary: str, n_anchors: int, seed: int = 0):
    return mse_study(vary, SWEEPS[vary], n_anchors=n_anchors, rng=seed, progress=False)


def plot_mse(ax, df, vary: str):
    """Draw the MSE (with 2-SE bars) of every estimator in a :func:`mse_study` frame on ``ax``."""
    for name in df.estimator.unique():
        d = df[df.estimator == name]
        ax.errorbar(d[vary], d["mse"], yerr=2 * d["mse_se"], ms=4, lw=1.2, capsize=2, **STYLE.get(name, {"label": name}))
    ax.set_yscale("log")
    ax.set_xlabel(LABELS.get(vary, vary))
    if vary == "n_unlabeled":
        ax.set_xscale("log", base=2)
    ax.set_ylabel("MSE")


def fig_study(df, vary: str):
    """One-panel MSE figure of any :func:`negtheory.studies.mse_study` result (``negtheory study mse --plot``)."""
    fig, ax = new_figure(width=6.4, height=4.4)
    plot_mse(ax, df, vary)
    ax.legend(fontsize=8)
    ax.set_title(f"MSE against {vary} (n_anchors = {int(df.n_anchors.max())})")
    return fig


def fig_mse(n_anchors: int | None = None):
    """Fig. 6.9: MSE of the estimators of the true-negative mean against each parameter."""
    n_anchors = n_anchors or _default_anchors()
    fig, axes = new_figure(2, 3, width=13, height=7.2)
    for ax, vary in zip(axes.ravel(), SWEEPS):
        plot_mse(ax, _sweep(vary, n_anchors), vary)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(f"MSE of the true-negative-mean estimators (thesis Fig. 6.9; M = {n_anchors} anchors per point, bars = 2 SE)")
    return fig


def fig_means(n_anchors: int | None = None):
    """Fig. 6.10: mean of each estimator and of the truth theta_SUP against gamma and alpha."""
    n_anchors = n_anchors or _default_anchors()
    fig, axes = new_figure(1, 2, width=10, height=4.0)
    for ax, vary in zip(axes, ("gamma", "alpha")):
        df = _sweep(vary, n_anchors)
        truth = df[df.estimator == "biased"][[vary, "truth_mean"]]
        ax.plot(truth[vary], truth["truth_mean"], color="k", lw=2.5, label=r"truth $\bar\theta$ (6.45)")
        for name, style in STYLE.items():
            if name == "hcl":  # up-weights hard negatives by design: far above the truth (thesis §6.6.1)
                continue
            d = df[df.estimator == name]
            ax.plot(d[vary], d["mean"], ms=4, lw=1.0, **style)
        ax.set_xlabel(LABELS[vary])
        ax.set_ylabel("mean over anchors")
    axes[0].legend(fontsize=7)
    axes[0].set_title("(a) variation of the parent law")
    axes[1].set_title("(b) encoder quality")
    fig.suptitle(f"Means of the estimators (thesis Fig. 6.10; M = {n_anchors}; HCL, far above by design, omitted)")
    return fig


FIGURES = {
    "thesis_fig6_9_mse": fig_mse,
    "thesis_fig6_10_means": fig_means,
}

__all__ = ["fig_mse", "fig_means", "fig_study", "plot_mse", "SWEEPS"]
