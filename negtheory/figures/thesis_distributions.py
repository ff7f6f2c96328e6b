"""Figures of score distributions from Liu Bin's thesis: Fig. 2.3, 4.3, 6.4 and 6.8.

Each function takes keyword arguments with the thesis's settings as defaults and returns a
:class:`matplotlib.figure.Figure`. The plotted curves come from :mod:`negtheory.dists` and the
samples of Fig. 6.8 from :func:`negtheory.generators.score_sets`.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.stats as st

from negtheory._deprecation import renamed_keyword
from negtheory._rng import int_seed
from negtheory._typing import RNGLike
from negtheory.dists import false_negative, order_statistic, true_negative
from negtheory.figures import new_figure
from negtheory.generators import score_sets

TN_COLOR = "tab:blue"
FN_COLOR = "tab:red"
PARENT_COLOR = "0.35"


def fig_2_3_order_statistic(
    loc: float = 1.0, var: float = 5.0, k: int = 2, n: int = 5, *, npts: int = 400
):
    r"""Fig. 2.3: a parent density f = N(1, 5) and its order statistic g(x; k=2, n=5) (§2.3.2).

    The density of the k-th smallest of n i.i.d. draws from f (CDF F) is

    .. math:: g(x; k, n) = \frac{n!}{(k-1)!\,(n-k)!}\, F(x)^{k-1} f(x)\, [1 - F(x)]^{n-k}.

    Parameters
    ----------
    loc : float
        Mean of the normal parent (default 1).
    var : float
        Variance of the normal parent, > 0 (default 5).
    k : int
        Rank of the order statistic, in 1 .. n (default 2).
    n : int
        Number of draws (default 5).
    npts : int
        Points of the x grid (mean ± 4 standard deviations; default 400).

    Returns
    -------
    matplotlib.figure.Figure
        One panel with f and g, not attached to pyplot.
    """
    base = st.norm(loc, math.sqrt(var))
    g = order_statistic(base, k, n)
    x = np.linspace(loc - 4.0 * math.sqrt(var), loc + 4.0 * math.sqrt(var), npts)
    fig, ax = new_figure(width=6.0, height=3.8)
    ax.plot(x, base.pdf(x), color=PARENT_COLOR, lw=2, label=f"f(x) = N({loc:g}, {var:g})")
    ax.plot(x, g.pdf(x), color=TN_COLOR, lw=2, label=f"g(x; k={k}, n={n})")
    ax.fill_between(x, g.pdf(x), color=TN_COLOR, alpha=0.15)
    ax.axvline(
        float(g.mean()), color=TN_COLOR, ls=":", lw=1, label=f"mean of g: {float(g.mean()):.2f}"
    )
    ax.set_xlabel("x")
    ax.set_ylabel("density")
    ax.set_title("Order statistic of a normal parent (thesis Fig. 2.3)")
    ax.legend(frameon=False)
    return fig


def fig_4_3_tn_fn_densities(*, npts: int = 400):
    r"""Fig. 4.3: TN / FN score densities 2f(1-F), 2fF (eq. 4.7-4.8) for normal, Student-t, gamma parents.

    .. math:: g(\hat x_{tn}) = 2 f(\hat x_{tn})\,[1 - F(\hat x_{tn})] \quad (4.7), \qquad
              h(\hat x_{fn}) = 2 F(\hat x_{fn})\, f(\hat x_{fn}) \quad (4.8),

    for the parents N(0, 1), t(3) and Ga(2, 1).

    Parameters
    ----------
    npts : int
        Points of each x grid (default 400).

    Returns
    -------
    matplotlib.figure.Figure
        Three panels, one per parent, not attached to pyplot.
    """
    parents = [
        ("Gaussian N(0, 1)", st.norm(0.0, 1.0), (-4.0, 4.0)),
        ("Student t(3)", st.t(3), (-5.0, 5.0)),
        ("Gamma Ga(2, 1)", st.gamma(2.0, scale=1.0), (0.0, 9.0)),
    ]
    fig, axes = new_figure(1, 3, width=11.0, height=3.4)
    for ax, (title, base, (lo, hi)) in zip(axes, parents):
        x = np.linspace(lo, hi, npts)
        ax.plot(x, base.pdf(x), color=PARENT_COLOR, lw=1.2, ls="--", label="f (unlabeled)")
        ax.plot(x, true_negative(base, 1.0).pdf(x), color=TN_COLOR, lw=2, label="TN: 2f(1-F)")
        ax.plot(x, false_negative(base, 1.0).pdf(x), color=FN_COLOR, lw=2, label="FN: 2fF")
        ax.set_title(title)
        ax.set_xlabel("score x")
    axes[0].set_ylabel("density")
    axes[0].legend(frameon=False, fontsize=8)
    fig.suptitle("Theoretical score distributions of true and false negatives (thesis Fig. 4.3)")
    return fig


def fig_6_4_class_conditional(alphas=(0.5, 0.7, 0.9, 1.0), *, npts: int = 400):
    r"""Fig. 6.4: class-conditional densities :math:`\phi_{TN}`, :math:`\phi_{FN}` (eq. 6.14-6.15) over :math:`\phi = N(0, 1)` for several :math:`\alpha`.

    .. math:: \phi_{TN} = \alpha\, \phi_{(1)} + (1 - \alpha)\, \phi_{(2)} \quad (6.14), \qquad
              \phi_{FN} = \alpha\, \phi_{(2)} + (1 - \alpha)\, \phi_{(1)} \quad (6.15),

    with :math:`\phi_{(1)} = 2\phi(1 - \Phi)` and :math:`\phi_{(2)} = 2\phi\Phi` (eq. 6.12-6.13).

    Parameters
    ----------
    alphas : sequence of float
        Values of :math:`\alpha` in [1/2, 1], one panel each (default 0.5, 0.7, 0.9 and 1).
    npts : int
        Points of the x grid on [-4, 4] (default 400).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per :math:`\alpha`, not attached to pyplot.
    """
    base = st.norm()
    x = np.linspace(-4.0, 4.0, npts)
    fig, axes = new_figure(1, len(alphas), width=3.0 * len(alphas), height=3.2, sharey=True)
    axes = np.atleast_1d(axes)
    for ax, alpha in zip(axes, alphas):
        ax.plot(x, base.pdf(x), color=PARENT_COLOR, lw=1.2, ls="--", label=r"$\phi$ (unlabeled)")
        ax.plot(x, true_negative(base, alpha).pdf(x), color=TN_COLOR, lw=2, label=r"$\phi_{TN}$")
        ax.plot(x, false_negative(base, alpha).pdf(x), color=FN_COLOR, lw=2, label=r"$\phi_{FN}$")
        ax.set_title(rf"$\alpha$ = {alpha:g}")
        ax.set_xlabel("score $x$")
    axes[0].set_ylabel("density")
    axes[0].legend(frameon=False, fontsize=8)
    fig.suptitle("Class-conditional score densities (thesis Fig. 6.4)")
    return fig


@renamed_keyword("seed", "rng")
def fig_6_8_generated_scores(
    alphas=(0.5, 0.7, 0.9, 1.0),
    *,
    n: int = 20_000,
    t: float = 2.0,
    tau_plus: float = 0.5,
    rng: RNGLike = 0,
    method: str = "accept-reject",
):
    r"""Fig. 6.8: empirical densities of generated :math:`e^{x/t}`, :math:`\phi = N(0, 1)`, t = 2, M = 1, N = 20000 (Algorithms 6-8).

    :math:`\tau^+ = 1/2` so that both classes get enough samples for a histogram (the thesis
    does not state its :math:`\tau^+`). The thin lines are the exact densities of :math:`e^{x/t}`.

    Parameters
    ----------
    alphas : sequence of float
        Values of :math:`\alpha` in [1/2, 1], one panel each (default 0.5, 0.7, 0.9 and 1).
    n : int
        Unlabeled scores N generated per panel (default 20 000).
    t : float
        Temperature of the map :math:`e^{x/t}`, > 0 (default 2).
    tau_plus : float
        False-negative prior :math:`\tau^+` in (0, 1) (default 1/2).
    rng : None, int, SeedSequence or numpy.random.Generator
        Seed of the generated scores (default 0; an int is used as is, otherwise one 63-bit
        draw; ``seed``: deprecated since 0.1, removed in 0.2).
    method : {"accept-reject", "inverse"}
        Generator of :func:`negtheory.generators.score_sets`: the thesis's Algorithms 7-8, or
        the exact inversion of the CDF (default ``"accept-reject"``).

    Returns
    -------
    matplotlib.figure.Figure
        One histogram panel per :math:`\alpha`, not attached to pyplot.
    """
    seed = int_seed("rng", rng)  # figures draw from integer seeds (e.g. seed + k)
    fig, axes = new_figure(1, len(alphas), width=3.0 * len(alphas), height=3.2, sharey=True)
    axes = np.atleast_1d(axes)
    base = st.norm()
    for i, (ax, alpha) in enumerate(zip(axes, alphas)):
        res = score_sets(
            1, n, alpha, tau_plus, t=t, n_positives=0, method=method, rng=[seed, i], parent=base
        )
        s = res.scores[0]
        tn = res.is_true_negative[0]
        bins = np.linspace(0.0, float(np.quantile(s, 0.995)), 50)
        width = bins[1] - bins[0]
        # weights instead of density=True: normalise by all samples of the class, including
        # the 0.5 % beyond the last bin, so the bars estimate the density itself
        for mask, color, label in (
            (tn, TN_COLOR, "TN, generated"),
            (~tn, FN_COLOR, "FN, generated"),
        ):
            k = int(mask.sum())
            ax.hist(
                s[mask],
                bins=bins,
                weights=np.full(k, 1.0 / (k * width)),
                color=color,
                alpha=0.45,
                label=label,
            )
        grid = np.linspace(bins[1] * 0.5, bins[-1], 300)
        xg = t * np.log(grid)
        # density of S = exp(X / t): f_X(t log s) t / s
        ax.plot(
            grid,
            true_negative(base, alpha).pdf(xg) * t / grid,
            color=TN_COLOR,
            lw=1.2,
            label="TN, exact density",
        )
        ax.plot(
            grid,
            false_negative(base, alpha).pdf(xg) * t / grid,
            color=FN_COLOR,
            lw=1.2,
            label="FN, exact density",
        )
        ax.set_title(rf"$\alpha$ = {alpha:g}")
        ax.set_xlabel(r"score $e^{x/t}$")
    axes[0].set_ylabel("density")
    axes[0].legend(frameon=False, fontsize=8)
    fig.suptitle(
        rf"Generated similarity scores $e^{{x/t}}$, $\phi = N(0, 1)$, $t$ = {t:g}, $\tau^+$ = {tau_plus:g}, "
        f"N = {n} (thesis Fig. 6.8)"
    )
    return fig


FIGURES = {
    "fig_2_3_order_statistic": fig_2_3_order_statistic,
    "fig_4_3_tn_fn_densities": fig_4_3_tn_fn_densities,
    "fig_6_4_class_conditional": fig_6_4_class_conditional,
    "fig_6_8_generated_scores": fig_6_8_generated_scores,
}
