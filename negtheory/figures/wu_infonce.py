"""Figures of Wu, Wu & Huang, "Rethinking InfoNCE: how many negative samples do you need?".

Each function returns a :class:`matplotlib.figure.Figure`; ``negtheory figures`` writes them.
The numbers behind every panel come from :mod:`negtheory.infonce` and are checked in
``tests/test_infonce.py`` against independent quadratures.
"""

from __future__ import annotations

import numpy as np

from negtheory import infonce
from negtheory._deprecation import renamed_keyword
from negtheory._rng import int_seed
from negtheory._typing import RNGLike
from negtheory.figures import new_figure

LAMBDAS = (0.5, 0.7, 0.9, 0.95)
PAPER_AUCS = (0.75, 0.95)
# Fig. 2b: training AUC 0.75; Fig. 3b: "about 0.95, which approximately corresponds to mu_q = 2.4"
PAPER_MUS = (float(infonce.mu_from_auc(0.75)), 2.4)
PAPER_STEPS = 100  # the discrete trajectory average that reproduces the paper's K* = 4


def fig_effectiveness_vs_k(k_max: int = 100, lams=LAMBDAS, mus=PAPER_MUS):
    r"""Fig. 2b / 3b: trajectory-averaged effectiveness :math:`v(K)` for several :math:`\lambda`, K* marked.

    The training effectiveness of Wu et al. (Rethinking InfoNCE), eq. 6,

    .. math:: v = \frac{1}{N}\big[\lambda(|\mathcal{G}| - |\mathcal{B}|) + (1 - \lambda)|\mathcal{E}|\big],

    averaged over the trajectory :math:`\mu'(t) = \mu_q(1 - e^{-t})`, :math:`t \in [0, 3]`
    (:func:`negtheory.infonce.effectiveness_curve`), normalised by its maximum.

    Parameters
    ----------
    k_max : int
        Largest K drawn (default 100).
    lams : sequence of float
        Values of λ in [0, 1], one curve each (default 0.5, 0.7, 0.9, 0.95).
    mus : sequence of float
        Label qualities :math:`\mu_q`, one panel each (default: training AUC 0.75 and
        :math:`\mu_q = 2.4`, the paper's).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per :math:`\mu_q`, not attached to pyplot.
    """
    fig, axes = new_figure(1, len(mus), width=5.4 * len(mus), height=4.6, squeeze=False)
    ks = np.arange(1, k_max + 1)
    colors = ["tab:blue", "tab:green", "tab:red", "tab:orange"]
    for ax, mu in zip(axes[0], mus):
        auc = float(infonce.auc_from_mu(mu))
        for lam, color in zip(lams, colors):
            v = infonce.effectiveness_curve(mu, lam, k_max=k_max)
            kstar = int(np.argmax(v)) + 1
            label = (
                rf"$\lambda$={lam}: K*={kstar}"
                if kstar < k_max
                else rf"$\lambda$={lam}: K*$\geq${k_max}"
            )
            ax.plot(ks, v / v.max(), color=color, lw=1.8, label=label)
            ax.plot([kstar], [1.0], "o", color=color, ms=6)
        # the paper's discrete average at lambda = 0.9, to show how flat the optimum is
        vd = infonce.effectiveness_curve(mu, 0.9, k_max=k_max, steps=PAPER_STEPS)
        kd = int(np.argmax(vd)) + 1
        ax.plot(
            ks,
            vd / vd.max(),
            color="k",
            ls="--",
            lw=1.0,
            label=rf"$\lambda$=0.9, discrete T={PAPER_STEPS}: K*={kd}",
        )
        ax.plot([kd], [1.0], "x", color="k", ms=8)
        vc = infonce.effectiveness_curve(mu, 0.9, k_max=k_max)
        kc = int(np.argmax(vc)) + 1
        ax.text(
            0.02,
            0.03,
            f"$\\lambda$=0.9, continuous: v({kd}) / v({kc}) = {vc[kd - 1] / vc[kc - 1]:.5f}",
            transform=ax.transAxes,
            fontsize=8,
        )
        ax.axvline(kc, color="0.5", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_ylim(0.45, 1.03)
        ax.set_xlabel("negative sampling ratio K")
        ax.set_ylabel(r"$\bar v(K)\,/\,\max_K \bar v$")
        ax.set_title(f"training AUC {auc:.3f}  ($\\mu_q$ = {mu:.3f})")
        ax.legend(fontsize=7.5, loc="lower right")
    fig.suptitle(
        "Training effectiveness averaged over $\\mu'(t)=\\mu_q(1-e^{-t})$, $t\\in[0,3]$ (Wu et al., Fig. 2b/3b); "
        "solid: continuous average"
    )
    return fig


def fig_optimal_k_vs_mu(
    mu_min: float = 0.2, mu_max: float = 4.5, n: int = 200, k_max: int = 1000, lam: float = 0.9
):
    r"""Fig. 4: the optimal K* against the label quality :math:`\mu_q` (U shape).

    Parameters
    ----------
    mu_min, mu_max : float
        Range of :math:`\mu_q` (default 0.2 to 4.5).
    n : int
        Grid points over the range (default 200).
    k_max : int
        Largest K searched (default 1000; K* = k_max means "at least k_max").
    lam : float
        λ of the effectiveness, in [0, 1] (default 0.9, the paper's).

    Returns
    -------
    matplotlib.figure.Figure
        K* of the continuous and the 100-step average against :math:`\mu_q` (training AUC on the
        top axis), not attached to pyplot.
    """
    fig, ax = new_figure(width=6.4, height=4.4)
    mus = np.linspace(mu_min, mu_max, n)
    kc = infonce.optimal_k(mus, lam, k_max=k_max)
    kd = infonce.optimal_k(mus, lam, k_max=k_max, steps=PAPER_STEPS)
    ax.plot(mus, kc, color="tab:red", lw=2, label="continuous average")
    ax.plot(mus, kd, color="k", lw=1, ls="--", label=f"discrete average, T={PAPER_STEPS}")
    for auc in PAPER_AUCS:
        mu = float(infonce.mu_from_auc(auc))
        ax.axvline(mu, color="0.6", ls=":", lw=1)
        ax.text(mu, 1.15, f" AUC {auc}", fontsize=8, color="0.3", rotation=90, va="bottom")
    ax.set_yscale("log")
    ax.set_ylim(1, k_max * 1.3)
    ax.set_xlabel(r"label quality $\mu_q$")
    ax.set_ylabel("optimal K*  (capped at k_max = %d)" % k_max)
    ax.set_title(
        rf"Simulated optimal K under different $\mu_q$ ($\lambda$={lam}; Wu et al., Fig. 4)"
    )
    top = ax.secondary_xaxis(
        "top",
        functions=(
            lambda m: infonce.auc_from_mu(np.asarray(m)),
            lambda a: infonce.mu_from_auc(np.clip(a, 1e-12, 1 - 1e-12)),
        ),
    )
    top.set_xlabel("training AUC")
    ax.legend(fontsize=8)
    return fig


def fig_training_stages(
    auc: float = 0.75, stages=(0.25, 0.5, 0.75, 1.0), k_max: int = 50, lam: float = 0.9
):
    r"""Fig. 5: :math:`v` and the good / bad / easy fractions against K at several training stages :math:`\mu'`.

    The fractions of eq. 5 divided by N, :math:`|\mathcal{G}|/N = P(A)[1 - P(B)]`,
    :math:`|\mathcal{B}|/N = P(B)[1 - P(A)]`, :math:`|\mathcal{E}|/N = 1 - |\mathcal{G}|/N -
    |\mathcal{B}|/N`, with P(A) at the label quality :math:`\mu_q` and P(B) at the prediction
    quality :math:`\mu'` (:func:`negtheory.infonce.sample_fractions`).

    Parameters
    ----------
    auc : float
        Training AUC at K = 1 giving :math:`\mu_q` (eq. 7; default 0.75, the paper's).
    stages : sequence of float
        Training stages as fractions :math:`\mu' / \mu_q` in (0, 1], one panel each.
    k_max : int
        Largest K drawn (default 50).
    lam : float
        λ of the effectiveness, in [0, 1] (default 0.9).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per stage, not attached to pyplot.
    """
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

    mu = float(infonce.mu_from_auc(auc))
    fig, axes = new_figure(
        1, len(stages), width=3.7 * len(stages), height=3.9, squeeze=False, sharey=True
    )
    ks = np.arange(1, k_max + 1)
    # integer K ticks on the log axis: 1, 2, 4, 8, ... and k_max itself
    k_ticks = [2**i for i in range(int(np.log2(k_max)) + 1) if 2**i * 1.4 <= k_max] + [k_max]
    markers = {}
    for ax, frac in zip(axes[0], stages):
        mu_pred = frac * mu
        good, bad, easy = infonce.sample_fractions(ks, mu, mu_pred)
        v = infonce.effectiveness(ks, mu, mu_pred, lam)
        kstar = int(np.argmax(v)) + 1
        # "good" is a wide light band under the dashed "bad" line, so both stay visible where
        # they coincide (|G| = |B| at mu' = mu_q)
        ax.plot(ks, good, color="tab:green", lw=4.0, alpha=0.55, zorder=2)
        ax.plot(ks, bad, color="tab:red", ls="--", lw=1.5, zorder=3)
        ax.plot(ks, easy, color="tab:blue", lw=1.5, zorder=2)
        ax.plot(ks, v, color="k", lw=2, zorder=4)
        # argmax over K = 1..k_max: K* = k_max only says "at least k_max" (as in infonce.optimal_k)
        capped = kstar == k_max
        if capped:
            ax.plot([kstar], [v[kstar - 1]], ">", color="k", ms=7, zorder=5)
            markers["capped"] = True
            kstar_text = f"K*$\\geq${k_max}, capped at k_max"
        else:
            ax.plot([kstar], [v[kstar - 1]], "o", color="k", ms=6, zorder=5)
            markers["kstar"] = True
            kstar_text = f"K*={kstar}"
        if kstar > 1 and v[0] > v[1]:
            # at convergence v has a local maximum at K = 1 (the paper's "optimal one is 1")
            # and rises again for large K, where easy samples dominate
            ax.plot([1], [v[0]], "o", mfc="none", mec="k", ms=7, mew=1.3, zorder=5)
            markers["local"] = True
        ax.set_title(f"$\\mu'$={mu_pred:.2f} ({frac:.0%} of $\\mu_q$): {kstar_text}", fontsize=8.5)
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(FixedLocator(k_ticks))
        ax.xaxis.set_major_formatter(lambda x, _pos: f"{x:.0f}")
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlim(0.85, k_max * 1.15)
        ax.set_xlabel("negative sampling ratio K")
    axes[0][0].set_ylabel(r"fraction of samples;  effectiveness $v$")
    handles = [
        Line2D([], [], color="k", lw=2, label=r"$v$ (eq. 6)"),
        Line2D([], [], color="tab:green", lw=4.0, alpha=0.55, label=r"good $|\mathcal{G}|/N$"),
        Line2D([], [], color="tab:red", ls="--", lw=1.5, label=r"bad $|\mathcal{B}|/N$"),
        Line2D([], [], color="tab:blue", lw=1.5, label=r"easy $|\mathcal{E}|/N$"),
    ]
    if markers.get("kstar"):
        handles.append(
            Line2D([], [], color="k", marker="o", ls="none", ms=6, label="K*: maximum of $v$")
        )
    if markers.get("capped"):
        handles.append(
            Line2D(
                [],
                [],
                color="k",
                marker=">",
                ls="none",
                ms=7,
                label="$v$ still rising at k_max (K*$\\geq$k_max)",
            )
        )
    if markers.get("local"):
        handles.append(
            Line2D(
                [],
                [],
                color="k",
                marker="o",
                mfc="none",
                mec="k",
                ms=7,
                mew=1.3,
                ls="none",
                label="local maximum of $v$ at K=1",
            )
        )
    fig.legend(
        handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False
    )
    fig.suptitle(
        f"Training stages at AUC {auc} ($\\mu_q$={mu:.3f}, $\\lambda$={lam}); good = bad in the last panel (Wu et al., Fig. 5)"
    )
    return fig


@renamed_keyword("seed", "rng")
def fig_ans_schedule(
    total_steps: int = 1000, k_opts=(4, 20), warmup: float = 0.1, rng: RNGLike = 0
):
    r"""Fig. 6: the ANS curve K(step) and the mean of the integer counts drawn by eq. 8.

    A real-valued ratio K is turned into a count of negatives per positive by Wu et al.'s eq. 8,

    .. math:: P(|\mathcal{N}| = \lfloor K \rfloor) = 1 - \{K\}, \qquad
              P(|\mathcal{N}| = \lfloor K \rfloor + 1) = \{K\},

    with :math:`\{K\}` the fractional part, so the mean count is K.

    Parameters
    ----------
    total_steps : int
        Training steps S of the schedule (default 1000).
    k_opts : sequence of int
        Peak values K*, one curve each (default 4 and 20, the paper's two optima).
    warmup : float
        Fraction of the steps at which K peaks, in (0, 1) (default 0.1, the paper's 10 %).
    rng : None, int, SeedSequence or numpy.random.Generator
        Seed of the drawn counts (default 0; an int is used as is, otherwise one 63-bit draw;
        ``seed``: deprecated since 0.1, removed in 0.2).

    Returns
    -------
    matplotlib.figure.Figure
        One panel, not attached to pyplot.
    """
    seed = int_seed("rng", rng)  # figures draw from integer seeds (e.g. seed + k)
    fig, ax = new_figure(width=6.4, height=4.0)
    steps = np.arange(total_steps + 1)
    rng = np.random.default_rng(seed)
    for k_opt, color in zip(k_opts, ["tab:red", "tab:blue"]):
        k = infonce.ans_schedule(steps, total_steps, k_opt, warmup)
        ax.plot(steps, k, color=color, lw=2, label=f"ANS, K* = {k_opt}")
        counts = infonce.draw_negative_counts(np.repeat(k[:, None], 64, axis=1), rng=rng)
        bins = steps[: total_steps - total_steps % 25].reshape(-1, 25)
        ax.plot(
            bins.mean(axis=1),
            counts[bins].mean(axis=(1, 2)),
            ".",
            color=color,
            ms=4,
            label=f"mean drawn |N| (eq. 8), K* = {k_opt}",
        )
    ax.axvline(warmup * total_steps, color="0.6", ls=":", lw=1)
    ax.set_xlabel("training step")
    ax.set_ylabel("negative sampling ratio K")
    ax.set_title(
        f"ANS (Wu et al., Fig. 6): linear rise over {warmup:.0%} of the steps, then linear decline",
        fontsize=9,
    )
    ax.legend(fontsize=8)
    return fig


def fig_auc_vs_mu(mu_max: float = 4.0):
    r"""Fig. 9: training AUC against :math:`\mu_q`, closed form :math:`\Phi(\mu_q/\sqrt{2})` and the numeric eq. 7.

    .. math:: \mathrm{AUC} = \int_{-\infty}^{\infty} \phi(x - \mu_q)\, \Phi(x)\, dx
              = \Phi\big(\mu_q / \sqrt{2}\big) \quad \text{(eq. 7)}

    Parameters
    ----------
    mu_max : float
        Largest :math:`\mu_q` drawn, > 0 (default 4).

    Returns
    -------
    matplotlib.figure.Figure
        One panel, not attached to pyplot.
    """
    fig, ax = new_figure(width=6.0, height=4.0)
    mus = np.linspace(0, mu_max, 400)
    ax.plot(
        mus,
        infonce.auc_from_mu(mus),
        color="tab:blue",
        lw=2,
        label=r"closed form $\Phi(\mu/\sqrt{2})$",
    )
    pts = np.linspace(0, mu_max, 17)
    ax.plot(pts, infonce.reliability(pts, 1), "o", color="k", ms=4, label="eq. 7 by quadrature")
    for auc in PAPER_AUCS:
        mu = float(infonce.mu_from_auc(auc))
        ax.plot([0, mu, mu], [auc, auc, 0.5], ls=":", color="0.5", lw=1)
        ax.text(mu + 0.05, 0.52, rf"$\mu_q$={mu:.2f}", fontsize=8)
    ax.set_xlim(0, mu_max)
    ax.set_ylim(0.5, 1.0)
    ax.set_xlabel(r"$\mu_q$")
    ax.set_ylabel("training AUC (K = 1)")
    ax.set_title("AUC against the label-quality mean (Wu et al., eq. 7 / Fig. 9)")
    ax.legend()
    return fig


FIGURES = {
    "wu_fig2b3b_effectiveness_vs_k": fig_effectiveness_vs_k,
    "wu_fig4_optimal_k_vs_mu": fig_optimal_k_vs_mu,
    "wu_fig5_training_stages": fig_training_stages,
    "wu_fig6_ans_schedule": fig_ans_schedule,
    "wu_fig9_auc_vs_mu": fig_auc_vs_mu,
}
