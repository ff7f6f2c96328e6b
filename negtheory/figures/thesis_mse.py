"""Figures 6.9 and 6.10 of Liu Bin's thesis (§6.6.1): MSE and mean of the estimators.

The sweeps use the thesis's defaults (alpha = 0.9, gamma = 0.1, tau+ = 0.1, t = 0.5, M = 1e3,
N = 64) and vary one parameter at a time with :func:`negtheory.studies.mse_study`. Set the
environment variable ``NEGTHEORY_FULL=1`` (or pass ``n_anchors``) for publication-size runs.
"""

from __future__ import annotations

import functools
import os

from negtheory._docstrings import docstring
from negtheory.figures import new_figure
from negtheory.studies import Execution, mse_study

# the parameter the figures share, written once (see negtheory._docstrings)
_doc = docstring(
    anchors_param="""
        Parameters
        ----------
        n_anchors : int, optional
            Anchors M per point of each sweep (default None: 1000, or 100 000 with the environment
            variable ``NEGTHEORY_FULL=1``).

        Returns
        -------
        matplotlib.figure.Figure""",
)

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
    "t": r"temperature $t$",
    "n_unlabeled": r"negatives $N$",
    "n_positives": r"extra positives $K$",
    "beta": r"hardness $\beta$",
}
# BCL (6.48) and its self-normalised form nearly coincide: BCL is a solid line with large white-filled
# (hollow) markers, the self-normalised form a thin dotted line on top with small filled markers that sit
# inside BCL's, so that both stay visible where the curves overlap
STYLE = {
    "biased": dict(color="tab:gray", marker="o", ms=4, lw=1.2, label="Biased (6.46)"),
    "dcl": dict(color="tab:blue", marker="s", ms=4, lw=1.2, label="DCL (6.47)"),
    "hcl": dict(color="tab:purple", marker="v", ms=4, lw=1.2, label="HCL"),
    "bcl": dict(
        color="tab:red",
        marker="^",
        ms=9,
        mfc="white",
        mew=1.6,
        lw=1.6,
        zorder=4,
        label="BCL (6.48)",
    ),
    "bcl_norm": dict(
        color="tab:orange",
        marker="D",
        ms=3.5,
        lw=1.1,
        ls=":",
        zorder=5,
        label="BCL, self-normalised",
    ),
}
# HCL is left out of Fig. 6.9-6.10 as in the thesis: with its weights x^beta on exp(x / t) scores its
# MSE is ~1e5 at the defaults, which would set the y-range and flatten every other curve
FIG_ESTIMATORS = ("biased", "dcl", "bcl", "bcl_norm")


def _default_anchors() -> int:
    return 100_000 if os.environ.get("NEGTHEORY_FULL") else 1000


@functools.cache
def _sweep(vary: str, n_anchors: int, seed: int = 0, alpha: float = 0.9):
    return mse_study(
        vary,
        SWEEPS[vary],
        n_anchors=n_anchors,
        rng=seed,
        alpha=alpha,
        estimators=FIG_ESTIMATORS,
        execution=Execution(progress=False),
    )


def relative_bias(df):
    r"""Add ``rel_bias`` = (mean - truth_mean) / truth_mean and its standard error to a :func:`mse_study` frame.

    The bias is the mean over anchors of the paired error theta-hat_m - theta_SUP,m, so its
    standard error is sqrt((MSE - bias^2) / M); both are divided by the mean truth:

    .. math::
        \mathrm{rel\_bias} = \frac{\overline{\hat\theta} - \overline{\theta_{SUP}}}{\overline{\theta_{SUP}}},
        \qquad
        \mathrm{rel\_bias\_se} = \frac{\sqrt{(\mathrm{MSE} - \mathrm{bias}^2) / M}}{\overline{\theta_{SUP}}}.

    Parameters
    ----------
    df : pandas.DataFrame
        A :func:`negtheory.studies.mse_study` frame (columns ``mean``, ``truth_mean``, ``mse``,
        ``n_anchors``, ...).

    Returns
    -------
    pandas.DataFrame
        A copy of ``df`` with the columns ``rel_bias`` and ``rel_bias_se`` added.
    """
    import numpy as np

    bias = df["mean"] - df["truth_mean"]
    var = np.maximum(df["mse"] - bias**2, 0.0)
    return df.assign(
        rel_bias=bias / df["truth_mean"],
        rel_bias_se=np.sqrt(var / df["n_anchors"]) / df["truth_mean"],
    )


def plot_mse(ax, df, vary: str):
    """Draw the MSE (with 2-SE bars) of every estimator in a :func:`mse_study` frame on ``ax``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes drawn on (in place: lines, labels, log scales).
    df : pandas.DataFrame
        A :func:`negtheory.studies.mse_study` frame: columns ``estimator``, ``mse``, ``mse_se``
        and the varied parameter.
    vary : str
        The varied parameter (a key of :data:`SWEEPS`, e.g. ``"alpha"``): the x axis.
    """
    for name in df.estimator.unique():
        d = df[df.estimator == name]
        style = {"ms": 4, "lw": 1.2, **STYLE.get(name, {"label": name})}
        ax.errorbar(d[vary], d["mse"], yerr=2 * d["mse_se"], capsize=2, **style)
    ax.set_yscale("log")
    ax.set_xlabel(LABELS.get(vary, vary))
    if vary == "n_unlabeled":
        ax.set_xscale("log", base=2)
    ax.set_ylabel("MSE")


def fig_study(df, vary: str):
    """One-panel MSE figure of any :func:`negtheory.studies.mse_study` result (``negtheory study mse --plot``).

    Parameters
    ----------
    df : pandas.DataFrame
        The :func:`negtheory.studies.mse_study` frame.
    vary : str
        The parameter it varies (the x axis).

    Returns
    -------
    matplotlib.figure.Figure
        One panel (:func:`plot_mse`) with a legend, not attached to pyplot.
    """
    fig, ax = new_figure(width=6.4, height=4.4)
    plot_mse(ax, df, vary)
    ax.legend(fontsize=8)
    ax.set_title(f"MSE against {vary} (n_anchors = {int(df.n_anchors.max())})")
    return fig


@_doc
def fig_mse(n_anchors: int | None = None):
    """Fig. 6.9: MSE of the estimators of the true-negative mean against each parameter (HCL left out, as in the thesis).

    %(anchors_param)s
        Six panels, one per sweep of :data:`SWEEPS`, not attached to pyplot.
    """
    n_anchors = n_anchors or _default_anchors()
    fig, axes = new_figure(2, 3, width=13, height=7.2)
    for ax, vary in zip(axes.ravel(), SWEEPS):
        plot_mse(ax, _sweep(vary, n_anchors), vary)
    # one legend for all six panels, below them
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="outside lower center", ncol=len(labels), fontsize=9, frameon=False
    )
    fig.suptitle(
        f"MSE of the true-negative-mean estimators (thesis Fig. 6.9; M = {n_anchors} anchors per point, bars = 2 SE)\n"
        "HCL is left out, as in the thesis (its MSE is about $10^5$ here)",
        fontsize=10.5,
    )
    return fig


@_doc
def fig_means(n_anchors: int | None = None):
    """Fig. 6.10: mean of each estimator against the truth (gamma, alpha), and BCL's relative bias against N.

    %(anchors_param)s
        Three panels, not attached to pyplot.
    """
    n_anchors = n_anchors or _default_anchors()
    fig, axes = new_figure(1, 3, width=15, height=4.4)
    for ax, vary in zip(axes[:2], ("gamma", "alpha")):
        df = _sweep(vary, n_anchors)
        truth = df[df.estimator == "biased"][[vary, "truth_mean"]]
        ax.plot(
            truth[vary], truth["truth_mean"], color="k", lw=2.5, label=r"truth $\bar\theta$ (6.45)"
        )
        for name in FIG_ESTIMATORS:
            d = df[df.estimator == name]
            ax.plot(d[vary], d["mean"], **STYLE[name])
        ax.set_xlabel(LABELS[vary])
        ax.set_ylabel("mean over anchors")
    axes[0].legend(fontsize=7)
    axes[0].set_title("(a) variation of the parent law", fontsize=10)
    axes[1].set_title(
        "(b) encoder quality: BCL below the truth at $\\alpha$ = 1 (N = 64)", fontsize=10
    )
    ax = axes[2]
    for alpha, ls in ((1.0, "-"), (0.9, ":")):
        df = relative_bias(_sweep("n_unlabeled", n_anchors, alpha=alpha))
        for name in ("dcl", "bcl", "bcl_norm") if alpha == 1.0 else ("bcl", "bcl_norm"):
            d = df[df.estimator == name]
            style = {
                **STYLE[name],
                "ls": ls,
                "label": f"{STYLE[name]['label']}, $\\alpha$ = {alpha:g}",
            }
            ax.errorbar(
                d["n_unlabeled"],
                100 * d["rel_bias"],
                yerr=200 * d["rel_bias_se"],
                capsize=2,
                **style,
            )
    ax.axhline(0.0, color="k", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel(LABELS["n_unlabeled"])
    ax.set_ylabel("relative bias (mean - truth) / truth  (%)")
    ax.set_title(
        "(c) BCL is biased low at small N as $\\alpha$ -> 1 (eCDF of eq. 6.30)", fontsize=10
    )
    ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(
        f"Means of the estimators (thesis Fig. 6.10; M = {n_anchors}, bars = 2 SE; HCL, far above by design, omitted). "
        "DCL is unbiased; BCL's bias is O(1/N), largest at $\\alpha$ = 1",
        fontsize=10.5,
    )
    return fig


FIGURES = {
    "thesis_fig6_9_mse": fig_mse,
    "thesis_fig6_10_means": fig_means,
}

__all__ = ["fig_mse", "fig_means", "fig_study", "plot_mse", "relative_bias", "SWEEPS"]
