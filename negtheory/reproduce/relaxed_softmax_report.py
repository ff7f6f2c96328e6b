r"""What ``negtheory reproduce relaxed-softmax`` writes from its runs: the summary beside the paper's statements and the figures.

Means and 95 % t-intervals over seeds (:func:`mean_ci`), paired differences (:func:`paired`), the
optimal temperature of Fig. 2 (:func:`temperature_summary`) and of the T* ablation
(:func:`t_star_ablation_summary`); one figure per experiment. The experiments themselves are
:mod:`negtheory.reproduce.relaxed_softmax`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import pandas as pd
    from matplotlib.figure import Figure

    from .._typing import ArrayLike

__all__ = [
    "mean_ci",
    "temperature_summary",
    "paired",
    "t_star_ablation_summary",
    "t_star_ablation_markdown",
    "plot_t_star_ablation",
    "plot_temperature",
    "plot_regularisation",
    "plot_methods",
    "summarize",
]

#: factors of :func:`~negtheory.reproduce.relaxed_softmax.run_t_star_ablation`: catalogue size card(I) = card(J),
#: embedding size, RS negatives per pair
ABLATION_FACTORS = ("n_items", "dim", "n_negatives")
DEGENERACIES = ("inverse", "uniform", "popularity")
DEG_LABEL = {"inverse": "D = 1/P_i", "uniform": "D = U(J)", "popularity": "D = Pop(J)"}
METHOD_ORDER = ("mle", "ss", "us", "ps", "ubs", "pbs", "ubs@T=5", "pbs@T=7.5")
COMPONENTS = (10, 50, 90)
RS_TEMPERATURE = 0.75  # Fig. 3/4: B(G, 1/P_i, T = 0.75), the paper's T*
FACTOR_LABEL = {
    "n_items": "card(I) = card(J)",
    "dim": "embedding size d",
    "n_negatives": "RS negatives n",
}


# --------------------------------------------------------------------------------------------
# statistics over seeds (numpy / scipy only)
# --------------------------------------------------------------------------------------------
def mean_ci(values: ArrayLike, level: float = 0.95) -> tuple[float, float]:
    r"""(mean, half-width of the two-sided t interval) of a sample; half-width nan for one value.

    Parameters
    ----------
    values : array_like of float
        The sample (e.g. one value per seed), at least one value.
    level : float
        Coverage of the interval, in (0, 1) (default 0.95).

    Returns
    -------
    mean : float
        The sample mean.
    half_width : float
        :math:`t_{(1+\mathrm{level})/2,\, n-1}\; s / \sqrt{n}` with s the sample standard deviation
        (NaN when n = 1).

    Examples
    --------
    >>> from negtheory.reproduce.relaxed_softmax import mean_ci
    >>> m, h = mean_ci([1.0, 2.0, 3.0])
    >>> m, round(h, 4)
    (2.0, 2.4841)
    """
    import numpy as np
    from scipy import stats

    x = np.asarray(values, dtype=float)
    m = float(x.mean())
    if x.size < 2:
        return m, math.nan
    return m, float(stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))


def _fmt(m, h, digits=3):
    return f"{m:.{digits}f} ± {h:.{digits}f}" if math.isfinite(h) else f"{m:.{digits}f}"


def temperature_summary(df: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per degeneracy: T* (argmin of the mean KL), per-seed argmins, and paired gaps to both grid ends.

    The optimum is called *interior* when T* is not at either end of the grid and, paired over
    seeds, KL(T_min) - KL(T*) and KL(T_max) - KL(T*) both have 95 % intervals above 0.

    Parameters
    ----------
    df : pandas.DataFrame
        The Fig. 2 table of :func:`run_temperature`: columns ``degeneracy``, ``temperature``,
        ``seed``, ``kl_joint``, every (seed, temperature) present for each degeneracy.

    Returns
    -------
    dict
        Per degeneracy: ``t_star``, ``kl_star`` (mean, half-width), ``per_seed`` (each seed's
        argmin), ``t_lo`` / ``t_hi`` (the grid ends), ``gap_lo`` / ``gap_hi`` (paired gaps as
        (mean, half-width)), ``interior`` (bool) and ``curve`` (temperature -> (mean, half-width)).
    """
    import numpy as np

    out = {}
    for deg, d in df.groupby("degeneracy"):
        piv = d.pivot(index="seed", columns="temperature", values="kl_joint").sort_index(axis=1)
        temps = piv.columns.to_numpy()
        means = piv.mean(axis=0).to_numpy()
        k = int(np.argmin(means))
        t_star = float(temps[k])
        per_seed = temps[np.argmin(piv.to_numpy(), axis=1)]
        lo_gap = mean_ci(piv.iloc[:, 0] - piv.iloc[:, k])
        hi_gap = mean_ci(piv.iloc[:, -1] - piv.iloc[:, k])
        interior = (
            0 < k < len(temps) - 1 and lo_gap[0] - lo_gap[1] > 0 and hi_gap[0] - hi_gap[1] > 0
        )
        out[deg] = dict(
            t_star=t_star,
            kl_star=mean_ci(piv.iloc[:, k]),
            per_seed=[float(t) for t in per_seed],
            t_lo=float(temps[0]),
            t_hi=float(temps[-1]),
            gap_lo=lo_gap,
            gap_hi=hi_gap,
            interior=bool(interior),
            curve={float(t): mean_ci(piv[t]) for t in temps},
        )
    return out


def paired(
    df: pd.DataFrame, key_cols: str | list[str], method_a: str, method_b: str, value: str
) -> dict[Any, tuple[float, float]]:
    """Mean and 95 % interval of value(a) - value(b), paired by seed, for each value of key_cols.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy table with columns ``seed``, ``method``, ``value`` and ``key_cols``.
    key_cols : str or list of str
        The grouping column(s) (e.g. ``"n_components"``).
    method_a, method_b : str
        The two methods compared (values of the ``method`` column).
    value : str
        The column differenced (e.g. ``"kl"``).

    Returns
    -------
    dict
        Group key -> (mean, half-width) of :func:`mean_ci` over the seeds; groups missing one of
        the methods are left out.
    """
    out = {}
    for key, d in df.groupby(key_cols):
        piv = d.pivot(index="seed", columns="method", values=value)
        if method_a in piv and method_b in piv:
            out[key] = mean_ci(piv[method_a] - piv[method_b])
    return out


def t_star_ablation_summary(df: pd.DataFrame, reference: float = 0.75) -> pd.DataFrame:
    r"""The optimal temperature of every (factor, value, degeneracy) of :func:`run_t_star_ablation`.

    With :math:`\overline{KL}(T)` the mean over seeds of the joint KL at grid point T,
    :math:`T^* = \arg\min_T \overline{KL}(T)`; each seed's own argmin
    :math:`T^*_s = \arg\min_T KL_s(T)` gives the spread (mean, 95 % t-interval, min, max).

    Parameters
    ----------
    df : pandas.DataFrame
        Columns ``factor, value, degeneracy, temperature, seed, kl_joint``; every (seed,
        temperature) present in each group.
    reference : float
        A temperature compared with T* (default 0.75, the paper's T* for D = 1/P): its mean KL
        and the paired gap KL(reference) - KL(T*) (NaN when it is not on the grid).

    Returns
    -------
    pandas.DataFrame
        One row per (factor, value, degeneracy), in the order of ``df``: ``t_star``,
        ``t_star_seed_mean``, ``t_star_seed_ci`` (half-width), ``t_star_seed_min``,
        ``t_star_seed_max``, ``per_seed`` (the seeds' argmins, comma-separated), ``kl_star``,
        ``kl_star_ci``, ``kl_ref``, ``kl_ref_ci``, ``gap_ref``, ``gap_ref_ci``, ``n_seeds``.
    """
    import numpy as np
    import pandas as pd

    from .._validation import real_scalar

    need = {"factor", "value", "degeneracy", "temperature", "seed", "kl_joint"}
    if not need <= set(df.columns):
        raise ValueError(
            f"df must have the columns {sorted(need)}, missing {sorted(need - set(df.columns))}"
        )
    reference = real_scalar("reference", reference, 0.0, math.inf, lo_open=True, hi_open=True)
    out = []
    for (factor, value, deg), d in df.groupby(["factor", "value", "degeneracy"], sort=False):
        piv = d.pivot(index="seed", columns="temperature", values="kl_joint").sort_index(axis=1)
        if piv.isna().any().any():
            raise ValueError(f"df: ({factor}, {value}, {deg}) lacks some (seed, temperature) pairs")
        temps = piv.columns.to_numpy(dtype=float)
        kl = piv.to_numpy()
        k = int(np.argmin(kl.mean(axis=0)))
        per_seed = temps[np.argmin(kl, axis=1)]
        ts_m, ts_h = mean_ci(per_seed)
        ks_m, ks_h = mean_ci(kl[:, k])
        if reference in temps:
            r = int(np.flatnonzero(temps == reference)[0])
            kr_m, kr_h = mean_ci(kl[:, r])
            g_m, g_h = mean_ci(kl[:, r] - kl[:, k])
        else:
            kr_m = kr_h = g_m = g_h = math.nan
        out.append(
            dict(
                factor=factor,
                value=value,
                degeneracy=deg,
                t_star=float(temps[k]),
                t_star_seed_mean=ts_m,
                t_star_seed_ci=ts_h,
                t_star_seed_min=float(per_seed.min()),
                t_star_seed_max=float(per_seed.max()),
                per_seed=", ".join(f"{t:g}" for t in per_seed),
                kl_star=ks_m,
                kl_star_ci=ks_h,
                kl_ref=kr_m,
                kl_ref_ci=kr_h,
                gap_ref=g_m,
                gap_ref_ci=g_h,
                n_seeds=int(kl.shape[0]),
            )
        )
    return pd.DataFrame(out)


def t_star_ablation_markdown(
    summary: pd.DataFrame,
    base: dict[str, int],
    temperatures: Sequence[float],
    reference: float = 0.75,
) -> str:
    """Markdown table of :func:`t_star_ablation_summary`, with the protocol of the run.

    Parameters
    ----------
    summary : pandas.DataFrame
        The table of :func:`t_star_ablation_summary`.
    base : dict
        The default point (:func:`ablation_base`), reported in the protocol line.
    temperatures : sequence of float
        The temperature grid, reported.
    reference : float
        The reference temperature of the summary (default 0.75).

    Returns
    -------
    str
        The markdown text, ending with a newline.
    """
    lines = [
        "# Relaxed Softmax (Tanielian & Vasile): does T* move with the catalogue, the embedding or n?",
        "",
        f"Default point: card(I) = card(J) = {base['n_items']}, {base['n_pairs']} training pairs (the catalogue "
        f"factor keeps {base['n_pairs'] / base['n_items'] ** 2:g} pairs per cell), batch {base['batch_size']}, "
        f"{base['steps']} Adam steps (lr 0.01), embedding size {base['dim']}, {base['n_negatives']} RS negatives, "
        "N(0, 0.1^2) init, 50-component mixture. One factor changed at a time. Temperature grid: "
        + ", ".join(f"{t:g}" for t in temperatures)
        + ". T* = argmin of the seed-mean KL(P || Pop(I) x g); per-seed T*: each seed's argmin, mean ± 95 % t-interval "
        "half-width [min, max]. KL columns: mean ± 95 % half-width over seeds; the gap is paired by seed.",
        "",
        f"| factor | value | degeneracy | T* | per-seed T* | KL at T* | KL at T = {reference:g} | KL({reference:g}) - KL(T*) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in summary.itertuples():
        lines.append(
            f"| {FACTOR_LABEL.get(r.factor, r.factor)} | {r.value} | {DEG_LABEL.get(r.degeneracy, r.degeneracy)} | {r.t_star:g} | "
            f"{_fmt(r.t_star_seed_mean, r.t_star_seed_ci, 2)} [{r.t_star_seed_min:g}, {r.t_star_seed_max:g}] | "
            f"{_fmt(r.kl_star, r.kl_star_ci)} | {_fmt(r.kl_ref, r.kl_ref_ci)} | {_fmt(r.gap_ref, r.gap_ref_ci)} |"
        )
    return "\n".join(lines) + "\n"


def plot_t_star_ablation(df: pd.DataFrame, reference: float = 0.75) -> Figure:
    """KL(P ‖ Pop(I) × g) against T for each factor (one panel per factor and degeneracy, one line per level).

    Parameters
    ----------
    df : pandas.DataFrame
        The table of :func:`run_t_star_ablation`.
    reference : float
        Drawn as a dashed vertical line (default 0.75, the paper's T* for D = 1/P).

    Returns
    -------
    matplotlib.figure.Figure
        The figure, not attached to pyplot; each line's argmin (mean over seeds) is marked by a star.
    """
    import numpy as np
    from matplotlib.figure import Figure

    factors = [f for f in ABLATION_FACTORS if f in set(df.factor)]
    degs = [d for d in DEGENERACIES if d in set(df.degeneracy)]
    fig = Figure(figsize=(4.2 * len(factors), 3.4 * len(degs)))
    axes = np.atleast_2d(fig.subplots(len(degs), len(factors), squeeze=False))
    for a, deg in enumerate(degs):
        for b, factor in enumerate(factors):
            ax = axes[a, b]
            d = df[(df.factor == factor) & (df.degeneracy == deg)]
            for value, g in d.groupby("value"):
                curve = g.groupby("temperature").kl_joint.mean().sort_index()
                (ln,) = ax.plot(curve.index, curve.to_numpy(), marker="o", ms=3, label=f"{value}")
                k = int(np.argmin(curve.to_numpy()))
                ax.plot(
                    curve.index[k],
                    curve.iloc[k],
                    marker="*",
                    ms=12,
                    color=ln.get_color(),
                    mec="k",
                    mew=0.5,
                )
            ax.axvline(reference, color="k", ls="--", lw=0.8)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("Boltzmann temperature T (eq. 8)")
            ax.set_ylabel("KL(P || Pop(I) x g)")
            ax.set_title(f"{FACTOR_LABEL[factor]}, {DEG_LABEL[deg]}", fontsize=9)
            ax.legend(title=FACTOR_LABEL[factor], fontsize=7, title_fontsize=7)
    fig.suptitle(
        f"T* ablation (mean over seeds; stars: argmin; dashed: T = {reference:g})", fontsize=10
    )
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------
# figures
# --------------------------------------------------------------------------------------------
def plot_temperature(df: pd.DataFrame, methods: pd.DataFrame | None = None) -> Figure:
    """Fig. 2 as a :class:`matplotlib.figure.Figure` (no pyplot state).

    Mean KL(P ‖ Pop(I) × g) against T (log-log) with 95 % bands, one curve per degeneracy; MLE
    (50 components) dashed.

    Parameters
    ----------
    df : pandas.DataFrame
        The table of :func:`run_temperature`.
    methods : pandas.DataFrame, optional
        The methods table of :func:`run_methods`; its 50-component MLE mean is drawn as a
        reference line (default None: no line).

    Returns
    -------
    matplotlib.figure.Figure
        The figure, not attached to pyplot.
    """
    import numpy as np
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.2))
    ax = fig.subplots()
    for deg in DEGENERACIES:
        d = df[df.degeneracy == deg]
        if d.empty:
            continue
        stats = [mean_ci(g.kl_joint) for _, g in d.groupby("temperature")]
        t = np.array(sorted(d.temperature.unique()))
        m = np.array([s[0] for s in stats])
        h = np.nan_to_num(np.array([s[1] for s in stats]))
        (ln,) = ax.plot(t, m, marker="o", ms=3, label=DEG_LABEL[deg])
        ax.fill_between(t, np.maximum(m - h, 1e-6), m + h, color=ln.get_color(), alpha=0.2)
    if methods is not None:
        ref = methods[(methods.n_components == 50) & (methods.method == "mle")]
        if not ref.empty:
            ax.axhline(ref.kl.mean(), color="k", ls="--", lw=1, label="MLE (same data)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("Boltzmann temperature T (eq. 8)")
    ax.set_ylabel("KL(P || Pop(I) x g)")
    ax.set_title("Fig. 2: RS loss, 5 Boltzmann negatives, 50-component mixture")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_regularisation(df: pd.DataFrame, experiment: str) -> Figure:
    """Fig. 3 (``batch_size``) or Fig. 4 (``train_size``): train and test KL of MLE and RS with 95 % bars.

    Parameters
    ----------
    df : pandas.DataFrame
        The table of :func:`run_regularisation`.
    experiment : {"batch_size", "train_size"}
        Which experiment to draw (Fig. 3 or Fig. 4).

    Returns
    -------
    matplotlib.figure.Figure
        Two panels (train KL, test KL), not attached to pyplot.
    """
    from matplotlib.figure import Figure

    d = df[df.experiment == experiment]
    xcol = "batch_size" if experiment == "batch_size" else "n_pairs"
    fig = Figure(figsize=(9, 3.8))
    axes = fig.subplots(1, 2)
    for ax, col, title in (
        (axes[0], "kl_train", "train: KL(P^_i || g_i)"),
        (axes[1], "kl_test", "test: KL(P_i || g_i)"),
    ):
        for method, label in (("mle", "MLE"), ("rs", f"RS, B(G, 1/P_i, T={RS_TEMPERATURE})")):
            g = d[d.method == method].groupby(xcol)[col]
            xs = sorted(d[xcol].unique())
            st = [mean_ci(g.get_group(x)) for x in xs]
            ax.errorbar(
                xs,
                [s[0] for s in st],
                yerr=[0 if not math.isfinite(s[1]) else s[1] for s in st],
                marker="o",
                ms=3,
                capsize=3,
                label=label,
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("batch size" if experiment == "batch_size" else "training-set size |D*|")
        ax.set_ylabel("KL, mean over training contexts i")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)
    fig.suptitle(
        "Fig. 3: influence of the batch size"
        if experiment == "batch_size"
        else "Fig. 4: influence of the training-set size"
    )
    fig.tight_layout()
    return fig


def _method_label(m):
    if "@" in m:
        return m.upper().replace("@T", " T")  # the paper's T*
    return f"{m.upper()} (T by val. NLL)" if m in ("ubs", "pbs") else m.upper()


def plot_methods(df: pd.DataFrame) -> Figure:
    """Fig. 5: mean KL of the six methods on the three mixtures, 95 % error bars over seeds.

    Parameters
    ----------
    df : pandas.DataFrame
        The methods table of :func:`run_methods`.

    Returns
    -------
    matplotlib.figure.Figure
        A grouped bar chart, not attached to pyplot.
    """
    import numpy as np
    from matplotlib.figure import Figure

    methods = [m for m in METHOD_ORDER if m in set(df.method)]
    fig = Figure(figsize=(8, 4))
    ax = fig.subplots()
    width = 0.8 / len(methods)
    for k, m in enumerate(methods):
        st = [mean_ci(df[(df.n_components == c) & (df.method == m)].kl) for c in COMPONENTS]
        x = np.arange(len(COMPONENTS)) + (k - (len(methods) - 1) / 2) * width
        ax.bar(
            x,
            [s[0] for s in st],
            width,
            yerr=[0 if not math.isfinite(s[1]) else s[1] for s in st],
            capsize=2,
            label=_method_label(m),
            ecolor="k",
            hatch="//" if "@" in m else None,
        )
    ax.set_xticks(np.arange(len(COMPONENTS)), [f"{c} components" for c in COMPONENTS])
    ax.set_yscale("log")
    ax.set_ylabel("KL(P || Pop(I) x g)  (lower is better)")
    ax.set_title("Fig. 5: six training methods (5 RS negatives, 50 SS negatives)")
    ax.legend(fontsize=7, ncol=4, loc="upper center")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------
# summary
# --------------------------------------------------------------------------------------------
def _fig2_lines(temp: pd.DataFrame, p: dict[str, Any]) -> list[str]:
    """The Fig. 2 section of :func:`summarize`."""
    lines: list[str] = []
    lines += [
        "",
        f"## Fig. 2: optimal temperature ({p['fig2_pairs']} pairs, batch {p['fig2_batch']}, 50 components)",
        "",
        "Paper: an optimal temperature exists for each degeneracy; lower T* for D concentrating on unlikely data; "
        "T* = 0.75 for D = 1/P.",
        "",
        "| degeneracy | T* (mean curve) | per-seed argmin | KL at T* | KL(T_min) - KL(T*) | KL(T_max) - KL(T*) | interior optimum |",
        "|---|---|---|---|---|---|---|",
    ]
    ts = temperature_summary(temp)
    for deg in DEGENERACIES:
        if deg not in ts:
            continue
        s = ts[deg]
        lines.append(
            f"| {DEG_LABEL[deg]} | {s['t_star']:g} | {', '.join(f'{t:g}' for t in s['per_seed'])} | {_fmt(*s['kl_star'])} | "
            f"{_fmt(*s['gap_lo'])} (T={s['t_lo']:g}) | {_fmt(*s['gap_hi'])} (T={s['t_hi']:g}) | {'yes' if s['interior'] else 'no'} |"
        )
    if ts.get("inverse"):
        curve = ts["inverse"]["curve"]
        if 0.75 in curve:
            lines += ["", f"D = 1/P at the paper's T* = 0.75: KL = {_fmt(*curve[0.75])}."]
    return lines


def _fig34_lines(reg: pd.DataFrame) -> list[str]:
    """The Fig. 3 / 4 section of :func:`summarize`."""
    lines: list[str] = []
    lines += [
        "",
        "## Fig. 3 / 4: RS as a regulariser (MLE vs RS with B(G, 1/P_i, T = 0.75))",
        "",
        "Paper (Fig. 4b): MLE fits the true conditionals poorly at small training sets; the gap closes as |D*| grows. "
        "Fig. 3a: MLE fits the empirical conditionals better with large batches.",
        "",
        "| experiment | batch | pairs | steps | MLE train KL | RS train KL | MLE test KL | RS test KL | test KL MLE - RS |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (exp, b, npairs, steps), d in reg.groupby(
        ["experiment", "batch_size", "n_pairs", "steps"], sort=False
    ):
        cell = {}
        for m in ("mle", "rs"):
            x = d[d.method == m]
            cell[m] = (mean_ci(x.kl_train), mean_ci(x.kl_test))
        piv = d.pivot(index="seed", columns="method", values="kl_test")
        diff = mean_ci(piv["mle"] - piv["rs"])
        lines.append(
            f"| {exp} | {b} | {npairs} | {steps} | {_fmt(*cell['mle'][0])} | {_fmt(*cell['rs'][0])} | "
            f"{_fmt(*cell['mle'][1])} | {_fmt(*cell['rs'][1])} | {_fmt(*diff)} |"
        )
    return lines


def _fig5_lines(
    methods: pd.DataFrame, selection: pd.DataFrame | None, p: dict[str, Any]
) -> list[str]:
    """The Fig. 5 section of :func:`summarize`."""
    lines: list[str] = []
    lines += [
        "",
        f"## Fig. 5: six methods ({p['fig5_pairs']} pairs, batch {p['fig5_batch']}; kl = KL(P || Pop(I) x g))",
        "",
        "Paper: UBS (T* = 5) and PBS (T* = 7.5) beat MLE, SS, US and PS on all three datasets.",
        "",
    ]
    if selection is not None and not selection.empty:
        chosen = selection[selection.selected]
        lines += [
            "Temperatures chosen on validation NLL (grid "
            + ", ".join(f"{t:g}" for t in p["fig5_temperatures"])
            + "): "
            + "; ".join(
                f"{r.method.upper()} {r.n_components} comp.: T = {r.temperature:g}"
                for r in chosen.itertuples()
            )
            + ".",
            "",
        ]
    lines += ["| components | method | KL | MPR | Prec@k |", "|---|---|---|---|---|"]
    for c in COMPONENTS:
        for m in METHOD_ORDER:
            x = methods[(methods.n_components == c) & (methods.method == m)]
            if x.empty:
                continue
            lines.append(
                f"| {c} | {m.upper()} | {_fmt(*mean_ci(x.kl))} | {_fmt(*mean_ci(x.mpr), 4)} | {_fmt(*mean_ci(x.prec_at_k), 4)} |"
            )
    lines += [
        "",
        "Paired KL differences (baseline - Boltzmann; > 0 means the Boltzmann method is better):",
        "",
        "| components | comparison | KL difference |",
        "|---|---|---|",
    ]
    for c in COMPONENTS:
        d = methods[methods.n_components == c]
        for bm in ("ubs", "pbs"):
            for base in ("mle", "ss", "us", "ps"):
                res = paired(d, "n_components", base, bm, "kl")
                for _, v in res.items():
                    lines.append(f"| {c} | {base.upper()} - {bm.upper()} | {_fmt(*v)} |")
    return lines


def summarize(
    temp: pd.DataFrame | None,
    reg: pd.DataFrame | None,
    methods: pd.DataFrame | None,
    selection: pd.DataFrame | None,
    p: dict[str, Any],
    seeds: Sequence[int],
    runtime_s: float | None = None,
) -> str:
    """Markdown: the protocol, and each claim of the paper beside the reproduced numbers.

    Parameters
    ----------
    temp : pandas.DataFrame or None
        The Fig. 2 table (:func:`run_temperature`); None: no Fig. 2 section.
    reg : pandas.DataFrame or None
        The Fig. 3 / 4 table (:func:`run_regularisation`); None: no Fig. 3 / 4 section.
    methods : pandas.DataFrame or None
        The Fig. 5 table (:func:`run_methods`); None: no Fig. 5 section.
    selection : pandas.DataFrame
        The UBS / PBS temperature selection (:func:`run_methods`); may be None or empty.
    p : dict
        The preset's sizes (an entry of :data:`PRESETS`).
    seeds : sequence of int
        The seeds used (their number is reported).
    runtime_s : float, optional
        Wall time of the run in seconds, reported when given (default None).

    Returns
    -------
    str
        The markdown text, ending with a newline.
    """
    n = len(seeds)
    lines = ["# Relaxed Softmax (Tanielian & Vasile): reproduced synthetic experiments", ""]
    lines += [
        f"Protocol: card(I) = card(J) = {p['n_items']} (paper: 1000), {n} seeds, embedding size 32, Adam lr 0.01, "
        f"N(0, 0.1^2) init, {p['steps']} steps unless stated, 5 RS negatives, 50 SS negatives. "
        "Means ± 95 % t-interval half-widths over seeds; differences are paired by seed."
    ]
    if runtime_s is not None:
        lines += ["", f"Runtime: {runtime_s:.0f} s."]
    if temp is not None:
        lines += _fig2_lines(temp, p)
    if reg is not None:
        lines += _fig34_lines(reg)
    if methods is not None:
        lines += _fig5_lines(methods, selection, p)
    return "\n".join(lines) + "\n"
