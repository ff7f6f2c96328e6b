r"""Figures 3.2 and 3.3 of Liu Bin's thesis: variance-gamma prior and posterior of MF scores.

* Fig. 3.2 -- prior density f(x; d, lam) of an inner product <w, h> (Lemma 3.1, eq. 3.18) for
  several dimensions d (lam = 1) and several variances lam (d = 8);
* Fig. 3.3 -- posterior density g = 2 F f of a true positive's score (eq. 3.22) for the same
  parameters, the prior dashed for comparison.

.. math::
    f(x; d, \lambda) = \frac{1}{\lambda \sqrt{\pi}\, \Gamma(d/2)}
    \left(\frac{|x|}{2\lambda}\right)^{\frac{d-1}{2}} K_{\frac{d-1}{2}}\!\left(\frac{|x|}{\lambda}\right)
    \quad (3.18), \qquad
    g(x) = 2 F(x) f(x) \quad (3.22),

with :math:`K_\nu` the modified Bessel function of the second kind and F the CDF of f.

Both panels of each figure use the same x range, so the shrinking of the law with lam and its
spreading (variance d lam^2) and Gaussianisation with d are visible.
"""

from __future__ import annotations

import numpy as np

from ..bprac import posterior
from ..variance_gamma import inner_product
from . import new_figure

DIMS = (1, 2, 4, 8, 16)
# Fig. 3.3 draws a prior beside every posterior: three dimensions keep its left panel readable
DIMS_POSTERIOR = (1, 4, 16)
LAMS = (0.25, 0.5, 1.0)
D_FOR_LAMS = 8


def _draw(kind: str):
    fig, (ax_d, ax_l) = new_figure(1, 2, width=10.0, height=4.0)
    x_d = np.linspace(-10.0, 10.0, 801)
    x_l = np.linspace(-6.0, 6.0, 801)
    colors = ["C0", "C1", "C2", "C3", "C4"]
    dims = DIMS if kind == "prior" else DIMS_POSTERIOR
    for c, d in zip(colors, dims):
        prior = inner_product(d, 1.0)
        if kind == "prior":
            ax_d.plot(x_d, prior.pdf(x_d), color=c, label=f"d = {d}")
        else:
            ax_d.plot(x_d, posterior(d, 1.0).pdf(x_d), color=c, lw=1.8, label=f"d = {d}")
            ax_d.plot(x_d, prior.pdf(x_d), color=c, ls=":", lw=1.1)
    for c, lam in zip(colors, LAMS):
        prior = inner_product(D_FOR_LAMS, lam)
        if kind == "prior":
            ax_l.plot(x_l, prior.pdf(x_l), color=c, label=f"λ = {lam:g}")
        else:
            ax_l.plot(x_l, posterior(D_FOR_LAMS, lam).pdf(x_l), color=c, label=f"λ = {lam:g}")
            ax_l.plot(x_l, prior.pdf(x_l), color=c, ls=":", lw=0.9)
    name = "prior f(x) (eq. 3.18)" if kind == "prior" else "posterior g(x) = 2F(x)f(x) (eq. 3.22)"
    ax_d.set_title(f"{name}, λ = 1")
    ax_l.set_title(f"{name}, d = {D_FOR_LAMS}")
    ylim_d = 0.75 if kind == "prior" else 0.6
    ax_d.set_ylim(0, ylim_d)  # d = 1 diverges (logarithmically) at 0
    for ax in (ax_d, ax_l):
        ax.set_xlabel("score x = <w, h>")
        ax.set_ylabel("density")
        ax.grid(alpha=0.3)
        ax.legend(frameon=False)
    if kind == "posterior":
        for ax in (ax_d, ax_l):
            ax.text(
                0.02,
                0.97,
                "solid: posterior g\ndotted: prior f",
                transform=ax.transAxes,
                va="top",
                fontsize=8.5,
            )
    return fig


def fig_vg_prior():
    """Thesis Fig. 3.2: prior density of MF scores for several d (lam = 1) and lam (d = 8).

    Returns
    -------
    matplotlib.figure.Figure
        Two panels (dimensions, variances), not attached to pyplot.
    """
    return _draw("prior")


def fig_vg_posterior():
    """Thesis Fig. 3.3: posterior g = 2 F f of a true positive's score, same parameters.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels (dimensions, variances), priors dotted, not attached to pyplot.
    """
    return _draw("posterior")


FIGURES = {
    "thesis_fig3_2_vg_prior": fig_vg_prior,
    "thesis_fig3_3_vg_posterior": fig_vg_posterior,
}
