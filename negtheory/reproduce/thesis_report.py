"""What ``negtheory reproduce thesis-tables`` writes from its runs: the tidy table, markdown, verdicts, figure."""

from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING

from .._docstrings import docstring
from ._common import t_half_width
from .thesis_plan import METRICS, _key_protocol

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import pandas as pd
    from matplotlib.figure import Figure

__all__ = [
    "summarize",
    "markdown",
    "verdicts",
    "verdicts_markdown",
    "figure",
    "sampling_quality_table",
    "write_report",
    "TOLERANCE",
]


def _reported(history, protocol):
    """(value dict at the reported epoch, the epoch, max-over-epochs dict)."""
    if protocol == "valid":
        best = max(history, key=lambda h: h.get("valid_ndcg@10", -math.inf))
    else:
        best = history[-1]
    rep = {k[5:]: v for k, v in best.items() if k.startswith("test_")}
    mx = {}
    for h in history:
        for k, v in h.items():
            if k.startswith("test_"):
                mx[k[5:]] = max(mx.get(k[5:], -math.inf), v)
    return rep, best["epoch"], mx


def sampling_quality_table(
    rows: Sequence[tuple[str, str, str, str, tuple | None]],
    histories: dict[tuple, list[dict[str, Any]]],
) -> pd.DataFrame:
    """Mean TNR and INF (eq. 4.27-4.28) over the evaluated epochs of each SGD sampler run, mean over seeds.

    Parameters
    ----------
    rows : sequence of tuple
        The plan (:func:`plan`); rows without an SGD run are skipped.
    histories : dict
        ``(run_key, seed)`` -> per-evaluation records with ``tnr`` and ``inf``
        (:func:`run_tables`).

    Returns
    -------
    pandas.DataFrame
        One row per (method, setting) run: ``table, method, setting, tnr, inf, n_seeds``.
    """
    import numpy as np
    import pandas as pd

    recs = []
    for table, method, setting, variant, key in rows:
        if key is None or key[0] != "sgd":
            continue
        hs = [h for (k, _), h in histories.items() if k == key]
        if not hs:
            continue
        tnr = [np.mean([e["tnr"] for e in h]) for h in hs]
        inf = [np.mean([e["inf"] for e in h]) for h in hs]
        recs.append(
            dict(
                table=table,
                method=method,
                setting=setting,
                variant=variant,
                tnr=float(np.mean(tnr)),
                inf=float(np.mean(inf)),
                n_seeds=len(hs),
            )
        )
    return pd.DataFrame(recs).drop_duplicates(subset=["method", "setting", "variant", "tnr", "inf"])


def summarize(
    rows: Sequence[tuple[str, str, str, str, tuple | None]],
    runs: pd.DataFrame,
    protocol: str = "fixed",
    dataset: str = "ml-100k",
) -> pd.DataFrame:
    """The tidy table: one line per (table, method, setting, variant, metric, k, convention).

    Parameters
    ----------
    rows : sequence of tuple
        The plan (:func:`plan`).
    runs : pandas.DataFrame
        The per-seed metrics of :func:`run_tables`.
    protocol : {"fixed", "valid"}
        How the reported value was chosen (names the convention: ``final epoch`` or ``best
        validation epoch``; default ``"fixed"``).
    dataset : str
        Whose printed values fill ``thesis``: one of
        :data:`negtheory.reproduce.thesis_numbers.DATASETS` (default ``"ml-100k"``).

    Returns
    -------
    pandas.DataFrame
        Columns ``table, method, setting, variant, metric, k, thesis`` (the printed value, NaN
        when none), ``mean, ci_low, ci_high`` (95 % t-interval over seeds), ``n_seeds``,
        ``convention``; a row not run has NaN values and 0 seeds.
    """
    import numpy as np
    import pandas as pd

    from .thesis_numbers import thesis_value

    lines = []
    for table, method, setting, variant, key in rows:
        own = (
            protocol if key is None else _key_protocol(key, protocol)
        )  # early-stopping rows: their own
        conv_label = {
            "reported": "final epoch" if own == "fixed" else "best validation epoch",
            "max_test_over_epochs (released code)": "max_test_over_epochs (released code)",
        }
        for conv in ("reported", "max_test_over_epochs (released code)"):
            for metric in METRICS:
                for k in (5, 10, 20):
                    th = thesis_value(
                        table,
                        "BCL" if method == "BCL-released" else method,
                        setting,
                        metric,
                        k,
                        dataset,
                    )
                    if key is None:  # a row not run: NaN mean and interval, 0 seeds
                        v = np.empty(0)
                    else:
                        sel = runs[
                            (runs.run == str(key))
                            & (runs.convention == conv)
                            & (runs.metric == metric)
                            & (runs.k == k)
                        ]
                        v = sel.value.to_numpy(dtype=float)
                    n = len(v)
                    mean = float(v.mean()) if n else np.nan
                    half = t_half_width(v)
                    lines.append(
                        dict(
                            table=table,
                            method=method,
                            setting=setting,
                            variant=variant,
                            metric=metric,
                            k=k,
                            thesis=th,
                            mean=mean,
                            ci_low=mean - half,
                            ci_high=mean + half,
                            n_seeds=n,
                            convention=conv_label[conv],
                        )
                    )
    return pd.DataFrame(lines)


#: the summary table and the metric shown or judged, documented once for :func:`markdown` and :func:`verdicts`
_table_doc = docstring(
    df_metric_k="""
    df : pandas.DataFrame
        The tidy table of :func:`summarize`.
    metric : {"precision", "recall", "ndcg"}
        The metric (default ``"ndcg"``).
    k : int
        Its list length, 5, 10 or 20 (default 10).
    """
)


@_table_doc
def markdown(df: pd.DataFrame, metric: str = "ndcg", k: int = 10) -> str:
    """A markdown table of one metric: thesis vs negtheory (mean [95 % interval]) for both conventions.

    Parameters
    ----------
    %(df_metric_k)s

    Returns
    -------
    str
        The markdown table (one line per row of the plan; ``Δ (first)`` is negtheory's mean under
        the first convention minus the thesis's value).
    """
    sub = df[(df.metric == metric) & (df.k == k)]
    convs = list(dict.fromkeys(sub.convention))
    head = (
        f"| table | method | setting | variant | thesis {metric.upper()}@{k} | "
        + " | ".join(f"negtheory ({c})" for c in convs)
        + " | Δ (first) |"
    )
    lines = [head, "|" + "---|" * (6 + len(convs))]
    for (table, method, setting, variant), g in sub.groupby(
        ["table", "method", "setting", "variant"], sort=False
    ):
        cells = []
        for c in convs:
            if not (g.convention == c).any():  # a table merged from runs of another protocol
                cells.append("—")
                continue
            r = g[g.convention == c].iloc[0]
            if r.n_seeds == 0:
                cells.append("not run")
            elif r.n_seeds == 1:
                cells.append(f"{r['mean']:.4f} (1 seed)")
            else:
                cells.append(f"{r['mean']:.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]")
        first = g.iloc[0]
        delta = (
            ""
            if first.n_seeds == 0 or math.isnan(first.thesis)
            else f"{first['mean'] - first.thesis:+.4f}"
        )
        th = "" if math.isnan(g.thesis.iloc[0]) else f"{g.thesis.iloc[0]:.4f}"
        setting = setting.replace("|", "\\|")
        lines.append(
            f"| {table} | {method} | {setting} | {variant} | {th} | "
            + " | ".join(cells)
            + f" | {delta} |"
        )
    return "\n".join(lines)


#: tolerance of a reproduced row (NDCG@10, absolute)
TOLERANCE = 0.015
#: the variant names that are the thesis's text as written (every other variant is a named reading)
AS_WRITTEN = ("-", "soft")


@_table_doc
def verdicts(
    df: pd.DataFrame, metric: str = "ndcg", k: int = 10, tol: float = TOLERANCE
) -> pd.DataFrame:
    r"""One verdict per printed row: reproduced as written, by a named variant, or not at all.

    For every (table, method, setting) with a printed value, the rows of ``df`` reported at the final
    epoch or at the best validation epoch (never the released code's max over test epochs, which
    selects on test) are compared with the thesis: :math:`\Delta = \bar m -
    m_{\text{thesis}}` for the reading as written (variant ``-``, or ``soft`` in Table 4.5, under the first
    convention in ``df``) and for every named variant (the method's other rows, e.g.
    ``BCL-released`` for BCL, or a row reported under the other convention).

    Parameters
    ----------
    %(df_metric_k)s
    tol : float
        The largest :math:`|\Delta|` of a reproduced row (default :data:`TOLERANCE`, 0.015).

    Returns
    -------
    pandas.DataFrame
        ``table, method, setting, thesis, as_written, delta, n_seeds, best_variant, best_delta,
        verdict``: ``verdict`` is ``"reproduced"`` (:math:`|\Delta| \le` ``tol`` as written),
        ``"reproduced by <variant>"`` (a named variant within ``tol``, the closest one), ``"not
        reproduced"`` (no reading within ``tol``; ``best_variant`` the closest) or ``"not run"``;
        ``" (n seeds)"`` is appended when fewer than 3 seeds back the judged row.

    Raises
    ------
    ValueError
        ``metric`` is unknown, ``tol`` is negative or not finite, or ``df`` lacks a column of
        :func:`summarize`'s table.

    Examples
    --------
    >>> import pandas as pd
    >>> from negtheory.reproduce.thesis_tables import verdicts
    >>> df = pd.DataFrame(dict(table="4.5", method="BNS-oracle", setting="|M_u|=3", variant=["soft", "hard"],
    ...                        metric="ndcg", k=10, thesis=0.4942, mean=[0.431, 0.501], n_seeds=3,
    ...                        convention="final epoch"))
    >>> verdicts(df).verdict.tolist()
    ['reproduced by hard']
    """
    import numpy as np
    import pandas as pd

    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    if not (isinstance(tol, (int, float)) and math.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")
    missing = {
        "table",
        "method",
        "setting",
        "variant",
        "metric",
        "k",
        "thesis",
        "mean",
        "n_seeds",
        "convention",
    } - set(df)
    if missing:
        raise ValueError(
            f"df must be the tidy table of summarize(); missing columns {sorted(missing)}"
        )
    sub = df[(df.metric == metric) & (df.k == k)]
    # never the released code's max over test epochs: it selects on test
    sub = sub[~sub.convention.str.startswith("max_test")]
    first = sub.convention.iloc[0] if len(sub) else ""
    out = []
    # a method's named variants include its sibling rows (BCL-released for BCL)
    sub = sub.assign(base=sub.method.str.replace("-released", "", regex=False)).reset_index(
        drop=True
    )
    for (table, base, setting), g in sub.groupby(["table", "base", "setting"], sort=False):
        th = g.thesis.iloc[0]
        if np.isnan(th):
            continue
        g = g.assign(delta=g["mean"] - th)
        is_written = (g.method == base) & g.variant.isin(AS_WRITTEN) & (g.convention == first)
        written = g[is_written]
        w = written.iloc[0] if len(written) else None
        ran = g[g.n_seeds > 0]
        others = g[~is_written & (g.n_seeds > 0)]
        best = others.loc[others.delta.abs().idxmin()] if len(others) else None

        def label(r, base=base):
            name = (
                r.variant
                if r.method == base
                else (r.method if r.variant == "-" else f"{r.method} {r.variant}")
            )
            return name if r.convention == first else f"{name} ({r.convention})"

        if w is not None and w.n_seeds > 0 and abs(w.delta) <= tol:
            verdict, judged = "reproduced", w
        elif best is not None and abs(best.delta) <= tol:
            verdict, judged = f"reproduced by {label(best)}", best
        elif len(ran):
            verdict = "not reproduced"
            judged = w if w is not None and w.n_seeds > 0 else best
        else:
            verdict, judged = "not run", None
        if judged is not None and judged.n_seeds < 3:
            verdict += f" ({int(judged.n_seeds)} seed{'s' if judged.n_seeds != 1 else ''})"
        out.append(
            dict(
                table=table,
                method=base,
                setting=setting,
                thesis=th,
                as_written=np.nan if w is None or w.n_seeds == 0 else w["mean"],
                delta=np.nan if w is None or w.n_seeds == 0 else w.delta,
                n_seeds=0 if w is None else int(w.n_seeds),
                best_variant="" if best is None else label(best),
                best_delta=np.nan if best is None else best.delta,
                verdict=verdict,
            )
        )
    return pd.DataFrame(out)


def verdicts_markdown(v: pd.DataFrame) -> str:
    """The verdicts of :func:`verdicts` as a markdown table.

    Parameters
    ----------
    v : pandas.DataFrame
        The output of :func:`verdicts`.

    Returns
    -------
    str
        One line per printed row: thesis, as written (Δ), the closest named variant (Δ), verdict.
    """
    lines = [
        "| table | method | setting | thesis | as written (Δ) | closest named variant (Δ) | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in v.itertuples():
        aw = "not run" if math.isnan(r.as_written) else f"{r.as_written:.4f} ({r.delta:+.4f})"
        bv = "—" if not r.best_variant else f"{r.best_variant} ({r.best_delta:+.4f})"
        setting = r.setting.replace("|", "\\|")
        lines.append(
            f"| {r.table} | {r.method} | {setting} | {r.thesis:.4f} | {aw} | {bv} | {r.verdict} |"
        )
    return "\n".join(lines)


def figure(
    df: pd.DataFrame,
    metric: str = "ndcg",
    k: int = 10,
    dataset: str = "ml-100k",
    note: str | None = None,
) -> Figure:
    """negtheory (mean, 95 % interval) against the thesis's printed value, one panel per table.

    The legend says when there is no interval (rows of one seed).

    Parameters
    ----------
    df, metric, k : pandas.DataFrame, str, int
        The tidy table of :func:`summarize`, the metric and its list length shown (as in :func:`markdown`).
    dataset : str
        Whose printed values are drawn (default ``"ml-100k"``).
    note : str, optional
        A second title line, e.g. "QUICK smoke run" or the settings that differ from the thesis's.

    Returns
    -------
    matplotlib.figure.Figure
        The figure, not attached to pyplot.
    """
    from matplotlib.figure import Figure

    sub = df[(df.metric == metric) & (df.k == k) & (~df.convention.str.startswith("max_test"))]
    seeds = sub["n_seeds"].dropna() if "n_seeds" in sub else sub["mean"].iloc[:0]
    if len(seeds) and (seeds < 2).all():
        interval_label = "negtheory (1 seed: no interval)"
    elif len(seeds) and (seeds < 2).any():
        interval_label = "negtheory (mean, 95 % CI; none for 1-seed rows)"
    else:
        interval_label = "negtheory (mean, 95 % CI)"
    tables = list(dict.fromkeys(sub.table))
    # at most four panels a row: seven tables side by side leave no room for the row labels
    ncols = min(4, len(tables))
    nrows = -(-len(tables) // ncols)
    # one row of panels grows with its longest table (about 0.28 in a label, at most 6 in a panel), so that the rotated
    # row labels do not overlap
    n_rows = max(
        len(sub[sub.table == t].drop_duplicates(["method", "setting", "variant"])) for t in tables
    )
    width = min(6.0, max(3.2, 0.28 * n_rows)) * ncols + 1 if nrows == 1 else 4.6 * ncols
    fig = Figure(figsize=(width, 3.8 if nrows == 1 else 4.4 * nrows), layout="constrained")
    grid = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in grid[len(tables) :]:
        ax.set_axis_off()
    axes = grid[: len(tables)]
    for ax, table in zip(axes, tables):
        g = sub[sub.table == table]
        if (
            table == "4.5"
        ):  # one x per |M_u|, one series per variant (|M_u| = 1, variant "-", in each)
            settings = list(dict.fromkeys(g.setting))
            labels = [st.replace("|M_u|=", "") for st in settings]
            pos = {st: n for n, st in enumerate(settings)}
            variants = [v for v in dict.fromkeys(g.variant) if v != "-"] or ["-"]
            for n, v in enumerate(variants):
                gv = g[(g.variant == v) | (g.variant == "-")]
                xv = [pos[st] + 0.08 * (n - (len(variants) - 1) / 2) for st in gv.setting]
                ax.errorbar(
                    xv,
                    gv["mean"],
                    yerr=[gv["mean"] - gv.ci_low, gv.ci_high - gv["mean"]],
                    fmt="o-",
                    ms=3,
                    color=f"C{n}",
                    capsize=2,
                    label=f"negtheory {v}",
                )
            th = g.drop_duplicates("setting")
            ax.plot(
                [pos[st] for st in th.setting],
                th.thesis,
                "x",
                color="k",
                ms=8,
                mew=2,
                label="thesis (printed)",
            )
            ax.set_xticks(range(len(settings)), labels)
            ax.legend(loc="upper left", fontsize=6)
        else:
            labels = [
                f"{m} (LightGCN)" if st == "LightGCN" else (f"{st} {m}" if table == "4.4" else m)
                for m, st in zip(g.method, g.setting)
            ]
            labels = [lab if v == "-" else f"{lab} [{v}]" for lab, v in zip(labels, g.variant)]
            x = range(len(g))
            ax.errorbar(
                x,
                g["mean"],
                yerr=[g["mean"] - g.ci_low, g.ci_high - g["mean"]],
                fmt="o",
                color="C0",
                capsize=3,
                label=interval_label,
            )
            ax.plot(x, g.thesis, "x", color="C3", ms=8, mew=2, label="thesis (printed)")
            ax.set_xticks(list(x), labels, rotation=45, ha="right")
        ax.set_title(f"Table {table}" + (" (|M_u|)" if table == "4.5" else ""))
        ax.set_ylabel(f"{metric.upper()}@{k} (test)")
        ax.grid(alpha=0.3)
    # one legend for all panels, below them: inside a panel it would hide markers
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="outside lower center", ncol=len(labels), fontsize=8, frameon=False
    )
    names = {
        "ml-100k": "MovieLens-100K",
        "ml-1m": "MovieLens-1M",
        "yahoo-r3": "Yahoo!-R3",
        "yelp2018": "Yelp2018",
        "gowalla": "Gowalla",
    }
    model = (
        "MF and LightGCN"
        if (sub.setting == "LightGCN").any() and (sub.setting != "LightGCN").any()
        else "MF"
    )
    model = "LightGCN" if (sub.setting == "LightGCN").all() else model
    # a long note is wrapped to the figure's width (about 11 characters an inch at the title's size), not clipped
    note = (
        textwrap.fill(
            note, max(20, int(width * 11)), break_on_hyphens=False, break_long_words=False
        )
        if note
        else None
    )
    fig.suptitle(
        f"{names.get(dataset, dataset)}, {model}: negtheory vs thesis"
        + (f"\n{note}" if note else "")
    )
    return fig


def _sampling_quality_lines(sq: pd.DataFrame) -> list[str]:
    lines = [
        "## Sampling quality of the SGD samplers (eq. 4.27-4.28, mean over evaluated epochs and seeds)",
        "",
        "| table | method | setting | variant | TNR | INF |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.table} | {r.method} | {r.setting.replace('|', chr(92) + '|')} | {r.variant} | {r.tnr:.4f} | {r.inf:.4f} |"
        for r in sq.itertuples()
    ]
    return lines + [""]


def write_report(out, result, meta: dict[str, Any]) -> list[str]:
    """Write the outputs of ``thesis-tables`` from its runs into folder ``out``; return the names written.

    Parameters
    ----------
    out : pathlib.Path
        The output folder.
    result : tuple
        ``(rows, runs, histories, tuning)``: the three results of
        :func:`~negtheory.reproduce.thesis_tables.run_tables` and its tuning records.
    meta : dict
        ``title`` (the data's label), ``dataset``, ``protocol``, ``models``, ``seeds``, ``epochs``,
        ``eval_every``, ``seconds`` (wall time), ``note`` (what differs from the thesis, or ""),
        ``valid_fraction``, ``tune_seed``.

    Returns
    -------
    list of str
        The file names written: ``thesis_tables.csv``, ``runs.csv``, ``thesis_tables.md``,
        ``thesis_tables.png`` and, where there is something to say, ``verdicts.csv``,
        ``verdicts_strict.csv``, ``tuning.csv``, ``sampling_quality.csv``.
    """
    import pandas as pd

    from .thesis_numbers import THESIS_BY_DATASET
    from .verdicts import strict_markdown, strict_verdicts

    rows, runs, histories, tuning = result
    note = meta["note"]
    df = summarize(rows, runs, meta["protocol"], meta["dataset"])
    cols = [
        "table",
        "method",
        "setting",
        "variant",
        "metric",
        "k",
        "thesis",
        "mean",
        "ci_low",
        "ci_high",
        "n_seeds",
    ]
    df[[*cols, "convention"]].to_csv(out / "thesis_tables.csv", index=False)
    runs.to_csv(out / "runs.csv", index=False)
    written = ["thesis_tables.csv", "thesis_tables.md", "thesis_tables.png", "runs.csv"]
    md = [
        f"# Thesis tables on {meta['title']} (thesis column: {meta['dataset']})",
        "",
        f"protocol: {meta['protocol']}; models: {', '.join(meta['models'])}; seeds: {meta['seeds']}; "
        f"epochs: {meta['epochs'] or 'default (100 SGD / 200 mini-batch MF / 100 LightGCN)'}; "
        f"eval every {meta['eval_every']} epochs; wall time {meta['seconds']:.0f} s",
        "",
    ]
    for metric, k in (("ndcg", 10), ("precision", 10), ("recall", 10)):
        md += [f"## {metric.upper()}@{k}", "", markdown(df, metric, k), ""]
    v = verdicts(df)
    if len(v):
        v.to_csv(out / "verdicts.csv", index=False)
        md += [
            f"## Verdicts (NDCG@10, {df.convention.iloc[0]}; reproduced = within ±{TOLERANCE} of the printed value)"
            + (f" — {note}" if note else ""),
            "",
            verdicts_markdown(v),
            "",
        ]
        sv = strict_verdicts(df, printed=THESIS_BY_DATASET[meta["dataset"]])
        sv.to_csv(out / "verdicts_strict.csv", index=False)
        md += [
            strict_markdown(
                sv, lenient=v, title="Strict verdicts (distinct rows, every printed metric)"
            ),
            "",
        ]
        written += ["verdicts.csv", "verdicts_strict.csv"]
    if tuning:
        from .thesis_tuning import tuning_markdown

        pd.DataFrame(tuning).to_csv(out / "tuning.csv", index=False)
        md += tuning_markdown(tuning, meta["valid_fraction"], meta["tune_seed"])
        written.append("tuning.csv")
    sq = sampling_quality_table(rows, histories)
    if len(sq):
        sq.to_csv(out / "sampling_quality.csv", index=False)
        md += _sampling_quality_lines(sq)
        written.append("sampling_quality.csv")
    (out / "thesis_tables.md").write_text("\n".join(md))
    figure(df, dataset=meta["dataset"], note=note).savefig(out / "thesis_tables.png", dpi=110)
    print(markdown(df, "ndcg", 10))
    if note:
        print(f"note: {note}")
    return written
