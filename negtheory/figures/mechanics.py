"""Figures for the mechanics of the negative-sampling textbook chapter, the threshold-selection note
and Boltzmann sampling on the mixture task of Tanielian & Vasile (Relaxed Softmax).

Each function returns a :class:`matplotlib.figure.Figure`; ``negtheory figures`` writes them.
The numbers behind every panel come from :mod:`negtheory.mechanics`, :mod:`negtheory.sampling`,
:mod:`negtheory.thresholds` and :mod:`negtheory.relaxed_softmax`, which the tests check against
closed forms, finite differences and Monte Carlo.
"""

from __future__ import annotations

import math

import numpy as np

from negtheory import mechanics as mech
from negtheory import relaxed_softmax as rs
from negtheory import sampling
from negtheory import thresholds as th
from negtheory._deprecation import renamed_keyword
from negtheory._docstrings import docstring
from negtheory._rng import int_seed
from negtheory._typing import RNGLike
from negtheory.figures import new_figure

# the end of the rng parameter every seeded figure documents, written once (see negtheory._docstrings)
_RNG_TAIL = "63-bit draw; ``seed``: deprecated since 0.1, removed in 0.2): the same ``rng`` draws the same PNG."
_doc = docstring(
    rng_tail=_RNG_TAIL,
    rng_tail_two_panels=f"    {_RNG_TAIL}\n\nReturns\n-------\nmatplotlib.figure.Figure\n    Two panels, not attached to pyplot.",
)


@renamed_keyword("seed", "rng")
@_doc
def fig_entropy_temperature(k: int = 64, steps: int = 80, rng: RNGLike = 0):
    r"""Entropy of the negative softmax against tau, and the adaptive-temperature controller.

    Left: the entropy :math:`H(\tau) = -\sum_i p_i \ln p_i` of :math:`p = \mathrm{softmax}(s/\tau)`
    over K negatives for three score spreads, with tangents of slope

    .. math:: \frac{dH}{d\tau} = \frac{\mathrm{Var}_p(s)}{\tau^3}

    (the negative-sampling textbook chapter). Right: the mean entropy of a batch whose scores
    spread as training goes on, at a fixed tau and under
    :class:`~negtheory.mechanics.EntropyTemperatureController`.

    Parameters
    ----------
    k : int
        Number of negatives K per anchor (default 64).
    steps : int
        Training steps simulated for the controller (default 80).
    rng : None, int, SeedSequence or numpy.random.Generator
        Seed of the figure's random numbers (default 0; an int is used as is, otherwise one
    %(rng_tail_two_panels)s
    """
    seed = int_seed("rng", rng)  # figures draw from integer seeds (e.g. seed + k)
    fig, (ax1, ax2) = new_figure(1, 2, width=12.0, height=4.4)
    rng = np.random.default_rng(seed)
    base = rng.normal(size=k)
    taus = np.logspace(-3, 1, 300)
    for sd, color in zip((0.05, 0.2, 0.5), ("tab:blue", "tab:green", "tab:red")):
        s = sd * base
        h = mech.softmax_entropy(s, taus)
        ax1.plot(taus, h, color=color, lw=1.8, label=f"score s.d. {sd}")
        # tangent from dH/dtau = Var_p(s)/tau^3 at the point where H is halfway up
        t0 = mech.temperature_for_entropy(s, 0.5 * (h[0] + math.log(k)))
        h0 = float(mech.softmax_entropy(s, t0))
        slope = float(mech.entropy_temperature_derivative(s, t0))
        tt = t0 * np.array([0.6, 1.6])
        ax1.plot(tt, h0 + slope * (tt - t0), color="k", lw=1.0, ls="--")
        ax1.plot([t0], [h0], "o", color=color, ms=5)
    ax1.axhline(math.log(k), color="0.5", ls=":", lw=1)
    ax1.text(1.2e-3, math.log(k) - 0.25, f"ln K = {math.log(k):.2f}", fontsize=8, color="0.3")
    ax1.set_xscale("log")
    ax1.set_xlabel(r"temperature $\tau$")
    ax1.set_ylabel(r"entropy $H(\tau)$ (nats)")
    ax1.set_title(
        r"$H(\tau)$ of softmax$(s/\tau)$ over K=%d negatives; dashed: slope Var$_p(s)/\tau^3$" % k,
        fontsize=9.5,
    )
    ax1.legend(fontsize=8, loc="lower right")

    low, high = 3.0, 3.5
    batch = rng.normal(size=(16, k))
    ctl = mech.EntropyTemperatureController(low, high, tau=0.02)
    fixed = []
    for step in range(steps):
        s = 0.2 * math.exp(step / 20) * batch  # scores spread out as the model trains
        ctl.update(s)
        fixed.append(float(np.mean(mech.softmax_entropy(s, 0.2))))
    tau_hist = np.array([t for t, _ in ctl.history])
    h_hist = np.array([h for _, h in ctl.history])
    x = np.arange(steps)
    ax2.axhspan(low, high, color="tab:green", alpha=0.15, label="target band")
    ax2.plot(x, fixed, color="tab:gray", lw=1.5, label=r"fixed $\tau$ = 0.2")
    ax2.plot(x, h_hist, color="tab:green", lw=1.8, label="adaptive controller")
    ax2.set_xlabel("training step (score spread grows as $e^{t/20}$)")
    ax2.set_ylabel("mean entropy of the batch (nats)")
    ax2.set_ylim(0, math.log(k) + 0.2)
    tw = ax2.twinx()
    tw.plot(x, tau_hist, color="tab:purple", lw=1.2, ls="--", label=r"adaptive $\tau$ (right)")
    tw.set_yscale("log")
    tw.set_ylabel(r"adaptive temperature $\tau$ (log scale)", color="tab:purple", fontsize=11)
    tw.tick_params(axis="y", colors="tab:purple", labelsize=9)
    lines = ax2.get_legend_handles_labels()
    lines2 = tw.get_legend_handles_labels()
    ax2.legend(lines[0] + lines2[0], lines[1] + lines2[1], fontsize=8, loc="lower left")
    ax2.set_title(
        "Newton step in ln tau with dH/d ln tau = Var_p(s)/tau^2, at most x2 per step", fontsize=9.5
    )
    fig.suptitle("Temperature and negative hardness (the negative-sampling textbook chapter)")
    return fig


def _search_comparisons(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Number of CDF comparisons the binary search of :class:`~negtheory.sampling.InverseCDFSampler`
    makes for each uniform ``u`` (first index with cdf > u, halving [lo, hi) until it is empty)."""
    lo = np.zeros(u.size, dtype=np.int64)
    hi = np.full(u.size, cdf.size, dtype=np.int64)
    count = np.zeros(u.size, dtype=np.int64)
    active = lo < hi
    while active.any():
        mid = (lo + hi) // 2
        right = cdf[np.minimum(mid, cdf.size - 1)] <= u
        count += active
        lo = np.where(active & right, mid + 1, lo)
        hi = np.where(active & ~right, mid, hi)
        active = lo < hi
    return count


@renamed_keyword("seed", "rng")
@_doc
def fig_alias_vs_inverse_cdf(
    counts=(500, 320, 180, 120, 75, 40, 22, 9, 4, 0, 1),
    draws=100_000,
    sizes=(10, 100, 1_000, 10_000, 100_000, 1_000_000),
    rng: RNGLike = 0,
):
    r"""Alias and inverse-CDF sampling draw the same law; work per draw O(1) against O(log n).

    Deterministic (the PNG is the same on every run with the same ``rng``): the left panel
    compares the frequencies of ``draws`` draws (the largest, if a sequence) from :class:`~negtheory.sampling.AliasTable`
    and :class:`~negtheory.sampling.InverseCDFSampler` with the unigram law f^0.75 of ``counts``
    (2-SE band); the right panel counts the work per draw exactly (alias: one uniform and one
    comparison; binary search: its comparisons, counted on 20 000 uniforms per size).
    Wall-clock timings depend on the machine and belong to ``python benchmarks/bench_sampling.py --plot``.

    Parameters
    ----------
    counts : sequence of float
        Item counts f of the unigram law :math:`\propto f^{0.75}` (the negative-sampling textbook
        chapter's proposal).
    draws : int or sequence of int
        Draws per sampler for the frequency panel (default 100 000; the largest of a sequence).
    sizes : sequence of int
        Numbers of items n at which the comparisons of the binary search are counted.
    rng : None, int, SeedSequence or numpy.random.Generator
        Seed of the figure's random numbers (default 0; an int is used as is, otherwise one
        %(rng_tail)s

    Returns
    -------
    matplotlib.figure.Figure
        Two panels (frequencies, work per draw), not attached to pyplot.
    """
    seed = int_seed("rng", rng)  # figures draw from integer seeds (e.g. seed + k)
    draws = int(np.max(draws))  # a sequence (the former timing figure's m values) means its largest
    fig, (ax1, ax2) = new_figure(1, 2, width=12.0, height=4.4)
    p = sampling.unigram_proposal(np.asarray(counts, dtype=float), alpha=0.75)
    j = np.arange(p.size)
    se = np.sqrt(p * (1 - p) / draws)
    ax1.hlines(
        p[p > 0],
        j[p > 0] - 0.4,
        j[p > 0] + 0.4,
        color="k",
        lw=1.5,
        label="target $p \\propto f^{0.75}$",
    )
    ax1.fill_between(
        j,
        p - 2 * se,
        p + 2 * se,
        step="mid",
        color="0.6",
        alpha=0.35,
        lw=0,
        label="target $\\pm$ 2 SE",
    )
    for k, (name, cls, marker, color) in enumerate(
        (
            ("alias", sampling.AliasTable, "o", "tab:blue"),
            ("inverse CDF", sampling.InverseCDFSampler, "x", "tab:orange"),
        )
    ):
        x = cls(p).sample(draws, rng=seed + k)
        freq = np.bincount(x, minlength=p.size) / draws
        ax1.plot(
            j + (0.15 if k else -0.15),
            freq,
            marker,
            color=color,
            ms=6,
            ls="none",
            label=f"{name}: {draws:,} draws",
        )
    ax1.set_yscale("log")
    ax1.set_ylim(max(p[p > 0].min() / 4, 1e-6), 1)
    ax1.set_xticks(j, [str(c) for c in counts], fontsize=8)
    ax1.set_xlabel("category (its count f; f = 0 is never drawn)")
    ax1.set_ylabel("probability / frequency")
    ax1.set_title("both samplers draw the target law (seed %d)" % seed, fontsize=9.5)
    ax1.legend(fontsize=8, loc="upper right")

    rng = np.random.default_rng(seed)
    u = rng.random(20_000)
    mean_cmp, max_cmp = [], []
    for n in sizes:
        cdf = sampling.InverseCDFSampler(rng.exponential(size=n)).cdf
        c = _search_comparisons(cdf, u)
        mean_cmp.append(c.mean())
        max_cmp.append(c.max())
    sizes_arr = np.asarray(sizes, dtype=float)
    ax2.plot(
        sizes_arr,
        mean_cmp,
        "o-",
        color="tab:orange",
        label="inverse CDF: comparisons per draw (mean)",
    )
    ax2.plot(sizes_arr, max_cmp, "x:", color="tab:orange", label="inverse CDF: most comparisons")
    ax2.plot(sizes_arr, np.log2(sizes_arr), color="0.5", lw=0.8, ls="--", label=r"$\log_2 n$")
    ax2.plot(
        sizes_arr,
        np.ones_like(sizes_arr),
        "o-",
        color="tab:blue",
        label="alias: 1 comparison (+ 1 uniform)",
    )
    ax2.set_xscale("log")
    ax2.set_xlabel("table size n")
    ax2.set_ylabel("comparisons per draw")
    ax2.set_ylim(0, max(max_cmp) + 2)
    ax2.set_title("work per draw: O(1) against O(log n); setup O(n) for both", fontsize=9.5)
    ax2.legend(fontsize=8, loc="upper left")
    fig.suptitle(
        "Alias method vs inverse-CDF sampling (textbook chapter); wall-clock timings: benchmarks/bench_sampling.py --plot"
    )
    return fig


@renamed_keyword("seed", "rng")
@_doc
def fig_boltzmann_temperature(context: int = 625, n_components: int = 50, rng: RNGLike = 0):
    r"""B(G, D, T) of Tanielian & Vasile (Relaxed Softmax) eq. 8 on the mixture task, and its spread against T.

    .. math:: B_{(G, D_i, T)}(j) = \frac{D_i(j)\, \exp(G(i, j) / T)}{\sum_{j'} D_i(j')\, \exp(G(i, j') / T)}

    with the energy of a perfectly trained model, :math:`G(i, j) = \ln P_i(j)`. Left: B for
    :math:`D_i = 1/P_i` at four temperatures; right: its effective support
    :math:`\exp(\text{entropy})` against T for the uniform, popularity and :math:`1/P_i`
    degeneracies.

    Parameters
    ----------
    context : int
        The context i whose conditional law :math:`P_i` is drawn (default 625, in
        0 .. 999).
    n_components : int
        Number of Gaussian components of the mixture (default 50, the paper's Fig. 2).
    rng : None, int, SeedSequence or numpy.random.Generator
        Seed of the mixture's components (default 0; an int is used as is, otherwise one
    %(rng_tail_two_panels)s
    """
    seed = int_seed("rng", rng)  # figures draw from integer seeds (e.g. seed + k)
    task = rs.MixtureOfGaussiansTask(n_components, rng=seed)
    logp = task.log_conditional[context]
    p = np.exp(logp)
    fig, (ax1, ax2) = new_figure(1, 2, width=12.0, height=4.4)
    j = np.arange(p.size)
    ax1.plot(j, p, color="k", lw=2.0, label=r"true $P_i$ (= model $g_i$ here)")
    # G = ln P_i (a perfectly trained model) and D = 1/P_i: B is proportional to P_i^(1/T - 1)
    for t, color in zip((0.25, 0.75, 1.0, 3.0), ("tab:red", "tab:orange", "tab:green", "tab:blue")):
        b = sampling.boltzmann(logp, np.exp(-logp), t)
        ax1.plot(j, b, color=color, lw=1.3, label=f"B(G, 1/P_i, T={t})")
    ax1.set_yscale("log")
    ax1.set_ylim(1e-9, 1)
    ax1.set_xlabel("target item j")
    ax1.set_ylabel("probability")
    ax1.set_title(
        f"context i = {context}: low T samples near the positives, high T far away", fontsize=9.5
    )
    ax1.legend(fontsize=7.5, loc="lower right")

    temps = np.logspace(-2, 2, 81)
    pop = task.target_popularity
    for name, d, color in (
        ("uniform", "uniform", "tab:blue"),
        ("popularity", pop, "tab:green"),
        ("1/P_i", np.exp(-logp), "tab:red"),
    ):
        h = []
        for t in temps:
            b = sampling.boltzmann(logp, d, t)
            nz = b[b > 0]
            h.append(math.exp(-np.sum(nz * np.log(nz))))
        ax2.plot(temps, h, color=color, lw=1.8, label=f"D = {name}")
        h_inf = sampling.boltzmann(logp, d, np.inf)
        nz = h_inf[h_inf > 0]
        ax2.axhline(math.exp(-np.sum(nz * np.log(nz))), color=color, ls=":", lw=1)
    ax2.axvline(1.0, color="0.6", lw=1)
    ax2.set(
        xscale="log",
        yscale="log",
        xlabel="temperature T",
        ylabel="effective number of items exp(H(B))",
    )
    ax2.set_title("T -> 0: point mass on argmax G;  T -> inf (dotted): D", fontsize=9.5)
    ax2.legend(fontsize=8)
    fig.suptitle(
        "Boltzmann negative sampling B(G, D, T), Tanielian & Vasile eq. 8, on the 2-D mixture task (G = ln P_i)"
    )
    return fig


@renamed_keyword("seed", "rng")
@_doc
def fig_mixture_dataset(components=(10, 50, 90), rng: RNGLike = 0, context: int = 625):
    """The discretised 2-D mixture-of-Gaussians joint law P(i, j) on 1000 x 1000 (Tanielian & Vasile, §3.2.1).

    Parameters
    ----------
    components : sequence of int
        Numbers of Gaussian components, one panel each (default 10, 50 and 90, the paper's
        Fig. 5 data sets).
    rng : None, int, SeedSequence or numpy.random.Generator
        Seed of the mixtures' components (default 0; an int is used as is, otherwise one
        %(rng_tail)s
    context : int
        The context i marked by a dashed line (default 625, the Boltzmann figure's).

    Returns
    -------
    matplotlib.figure.Figure
        One heat map of log10 P(i, j) per mixture, not attached to pyplot.
    """
    seed = int_seed("rng", rng)  # figures draw from integer seeds (e.g. seed + k)
    fig, axes = new_figure(
        1, len(components), width=4.3 * len(components), height=4.4, squeeze=False
    )
    for ax, c in zip(axes[0], components):
        task = rs.MixtureOfGaussiansTask(c, rng=seed)
        lj = task.log_joint / math.log(10)
        vmax = float(lj.max())
        im = ax.imshow(lj.T, origin="lower", cmap="magma", vmin=vmax - 6, vmax=vmax, aspect="auto")
        ax.axvline(context, color="c", lw=0.8, ls="--")
        ax.set_title(f"{c} components", fontsize=10)
        ax.set_xlabel("context item i")
        ax.set_ylabel("target item j")
    fig.colorbar(im, ax=axes[0].tolist(), label=r"$\log_{10} P(i, j)$ (6 decades)", shrink=0.9)
    fig.suptitle(
        f"Synthetic task of Tanielian & Vasile: card(I) = card(J) = 1000; dashed: context i = {context} of the Boltzmann figure"
    )
    return fig


def fig_infonce_margin(beta: float = 0.2, k: int = 100, taus=(0.05, 0.2)):
    r"""Exact InfoNCE loss with K equal negatives against its hinge at m_eff = beta + tau ln K.

    With the positive at similarity :math:`\alpha` and K negatives at :math:`\beta`, the loss
    :math:`\ln(1 + K e^{(\beta - \alpha)/\tau})` approaches the hinge
    :math:`\max(0, m_{eff} - \alpha) / \tau` with the effective margin (the negative-sampling
    textbook chapter)

    .. math:: m_{eff} = \beta + \tau \ln K .

    Parameters
    ----------
    beta : float
        Similarity :math:`\beta` of the (equal) negatives (default 0.2).
    k : int
        Number of negatives K (default 100).
    taus : sequence of float
        Temperatures :math:`\tau > 0`, one curve each (default 0.05 and 0.2).

    Returns
    -------
    matplotlib.figure.Figure
        Two panels, not attached to pyplot.
    """
    fig, (ax1, ax2) = new_figure(1, 2, width=12.0, height=4.4)
    alphas = np.linspace(-0.5, 2.0, 600)
    for tau, color in zip(taus, ("tab:blue", "tab:red")):
        r = mech.hinge_comparison(alphas, beta, tau, k)
        m = float(mech.effective_margin(beta, tau, k))
        ax1.plot(alphas, tau * r.exact, color=color, lw=2, label=rf"$\tau$={tau}: exact $\tau L$")
        ax1.plot(
            alphas,
            tau * r.hinge,
            color=color,
            lw=1,
            ls="--",
            label=rf"hinge $\max(0, m_{{eff}}-\alpha)$, $m_{{eff}}$={m:.3f}",
        )
        ax1.axvline(m, color=color, ls=":", lw=1)
        ax2.plot(alphas, r.error, color=color, lw=1.8, label=rf"$\tau$={tau}")
        ax2.axvspan(
            m - tau * math.log(1 / math.expm1(0.01)),
            m + tau * math.log(1 / math.expm1(0.01)),
            color=color,
            alpha=0.1,
        )
    ax1.set_xlabel(r"positive similarity $\alpha$")
    ax1.set_ylabel(r"$\tau \times$ loss")
    ax1.set_title(rf"K={k} negatives at $\beta$={beta}", fontsize=9.5)
    ax1.legend(fontsize=7.5)
    ax2.set_xlim(alphas[0], alphas[-1])
    ax2.axhline(math.log(2), color="0.5", ls=":", lw=1)
    ax2.text(-0.45, math.log(2) + 0.01, "ln 2 (at the margin)", fontsize=8, color="0.3")
    ax2.set_xlabel(r"positive similarity $\alpha$")
    ax2.set_ylabel("exact - hinge (nats)")
    ax2.set_title(
        r"error $\ln(1+e^{-|\alpha-m_{eff}|/\tau})$; shaded: where it exceeds 0.01", fontsize=9.5
    )
    ax2.legend(fontsize=8)
    fig.suptitle(
        r"InfoNCE as a hinge at the effective margin $m_{eff}=\beta+\tau\ln K$ (textbook chapter)"
    )
    return fig


@renamed_keyword("seed", "rng")
@_doc
def fig_threshold_selection(rng: RNGLike = 0):
    """Scores rebuilt from Tables I-II of the threshold-selection note and the thresholds chosen from the table grids.

    The upper threshold is the smallest of Table I's grid leaving at most 0.1 % false negatives
    above it, the lower the largest of Table II's grid with at least 5 % hard negatives between
    the two (of all samples), as the note chooses 0.335 and 0.121.

    Parameters
    ----------
    rng : None, int, SeedSequence or numpy.random.Generator
        Seed of the rebuilt scores (default 0; an int is used as is, otherwise one
        %(rng_tail)s

    Returns
    -------
    matplotlib.figure.Figure
        A histogram of the scores with both thresholds, not attached to pyplot.
    """
    seed = int_seed("rng", rng)  # figures draw from integer seeds (e.g. seed + k)
    scores, labels = th.paper_table_scores(rng=seed)
    t1, t2 = th.PAPER_TABLES["table1"], th.PAPER_TABLES["table2"]
    up, lo = th.choose_thresholds(
        scores, 0.001, 0.05, labels, upper_grid=t1["upper"], lower_grid=t2["lower"]
    )
    c = th.category_counts(scores, up, lo, labels)
    n = scores.size
    fig, ax = new_figure(width=8.0, height=4.4)
    bins = np.linspace(-1, 1, 401)
    # np.histogram + stairs: one artist per series instead of one patch per bin (fast to draw)
    ax.stairs(
        np.histogram(scores[~labels], bins)[0],
        bins,
        fill=True,
        color="tab:gray",
        alpha=0.7,
        label="negatives (unlabelled)",
    )
    ax.stairs(
        np.histogram(scores[labels], bins)[0],
        bins,
        fill=True,
        color="tab:green",
        alpha=0.7,
        label="known positives",
    )
    ax.axvline(
        up,
        color="tab:red",
        lw=1.5,
        label=f"upper = {up}: {c['false']} false ({100 * c['false'] / n:.3f} %)",
    )
    ax.axvline(
        lo,
        color="tab:orange",
        lw=1.5,
        label=f"lower = {lo}: {c['hard']} hard ({100 * c['hard'] / n:.2f} %)",
    )
    ax.set_yscale("log")
    ax.set_xlabel("score")
    ax.set_ylabel("count per bin")
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(
        "Seed 002, Tables I-II: smallest upper with <= 0.1 % false, largest lower with >= 5 % hard (of all samples)",
        fontsize=9,
    )
    return fig


FIGURES = {
    "mechanics_entropy_temperature": fig_entropy_temperature,
    "mechanics_alias_vs_inverse_cdf": fig_alias_vs_inverse_cdf,
    "mechanics_boltzmann_temperature": fig_boltzmann_temperature,
    "mechanics_mixture_dataset": fig_mixture_dataset,
    "mechanics_infonce_margin": fig_infonce_margin,
    "mechanics_threshold_selection": fig_threshold_selection,
}
