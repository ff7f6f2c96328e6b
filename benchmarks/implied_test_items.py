"""Test items per user that the printed rows imply, against the same statistic of our runs, per data set.

With ``h_u`` hits in a user's top k and ``T_u`` test items, P@k = mean h_u / k and R@k = mean h_u / T_u, so
k · P@k / R@k is a hit-weighted mean of T_u (:func:`negtheory.reproduce.thesis_numbers.implied_test_items_per_user`).
It depends on the split and on how recall is computed far more than on the model: computed from a printed row and
from our run of the same row, it says whether the two were evaluated on test sets of the same shape. Where they
were, the ratio measured / printed is close to one whatever the model; a ratio far from one for every row of a data
set points to a different split or recall convention, not to the trainer.

Part 1 reads the committed ``thesis_tables.csv`` of each report folder (every distinct printed row run as written,
at the final epoch) and needs no data; it also compares how each metric grows from k = 5 to k = 20 (X@20 / X@5,
ours over printed), a check of the test sets' shape that precision gives whatever the recall's definition, and, on
Gowalla, how far k·P/R of our runs falls as their NDCG@10 rises, extrapolated to the printed rows' NDCG@10 (would a
better model explain the gap?). Part 2 (``--recall-cap DIR``: the Gowalla release's ``train.txt`` /
``test.txt``) trains Table 5.2's BPR row (batch-1 SGD, RNS, seed 0, 100 epochs) on the thesis's split of the pooled
files and on the release's own split, and computes recall both as hits / |T_u| (ours, the released code's) and as
hits / min(k, |T_u|) (the normalised recall of Liang et al. 2018), to test whether the printed Gowalla rows use the
latter. About 3 minutes on one core.

Usage::

    python benchmarks/implied_test_items.py --out notebooks/data/thesis_tables_gowalla/implied_test_items.md
    OMP_NUM_THREADS=1 python benchmarks/implied_test_items.py --recall-cap gowalla/ \
        --out notebooks/data/thesis_tables_gowalla/implied_test_items.md
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from negtheory.reproduce.thesis_numbers import implied_test_items_per_user, mean_test_items

ROOT = Path(__file__).resolve().parents[1] / "notebooks" / "data"
#: report folder of each data set, and a second folder for Gowalla's run on the release's own split
FOLDERS = {
    "ml-100k": ROOT / "thesis_tables",
    "ml-1m": ROOT / "thesis_tables_ml1m",
    "yahoo-r3": ROOT / "thesis_tables_yahoo",
    "gowalla": ROOT / "thesis_tables_gowalla",
    "gowalla (release split)": ROOT / "thesis_tables_gowalla" / "release_split",
}
KS = (5, 10, 20)


def _as_written(csv: Path) -> pd.DataFrame:
    """The cells of a report's printed rows run as written (no reading), at the final epoch, printed and measured."""
    df = pd.read_csv(csv)
    return df[
        (df.variant == "-")
        & (df.convention == "final epoch")
        & df.thesis.notna()
        & df["mean"].notna()
    ]


def rows_of(csv: Path) -> pd.DataFrame:
    """One line per distinct printed row run as written: printed and measured k·P/R at k = 5, 10, 20."""
    df = _as_written(csv)
    out = []
    for (table, method, setting), g in df.groupby(["table", "method", "setting"], sort=True):
        cells = {(r.metric, int(r.k)): r for r in g.itertuples()}
        if not all((m, k) in cells for m in ("precision", "recall") for k in KS):
            continue
        printed = {(m, k): cells[m, k].thesis for m in ("precision", "recall") for k in KS}
        ours = {(m, k): cells[m, k].mean for m in ("precision", "recall") for k in KS}
        out.append(
            {
                "table": str(table),
                "method": method,
                "setting": setting,
                **{f"printed@{k}": implied_test_items_per_user([printed], k) for k in KS},
                **{f"ours@{k}": implied_test_items_per_user([ours], k) for k in KS},
            }
        )
    frame = pd.DataFrame(out)
    # Table 6.3 repeats Table 5.2's InfoNCE / DCL / HCL rows (the same printed numbers and runs): count a row once
    return frame.drop_duplicates(subset=[c for c in frame.columns if c != "table"]).reset_index(
        drop=True
    )


def summary() -> pd.DataFrame:
    """Per data set: rows, the plain mean test items per user (Table 5.1), printed and measured k·P/R (mean over rows)."""
    lines = []
    for name, folder in FOLDERS.items():
        csv = folder / "thesis_tables.csv"
        if not csv.is_file():
            continue
        r = rows_of(csv)
        if r.empty:
            continue
        ds = name.split(" ")[0]
        line = {"data set": name, "rows": len(r), "mean |T_u| (Table 5.1)": mean_test_items(ds)}
        for k in KS:
            p, o = r[f"printed@{k}"].mean(), r[f"ours@{k}"].mean()
            line[f"printed k={k}"] = p
            line[f"ours k={k}"] = o
            line[f"ours/printed k={k}"] = o / p
        line["ours/printed range (all k, rows)"] = (
            f"{min((r[f'ours@{k}'] / r[f'printed@{k}']).min() for k in KS):.3f}-"
            f"{max((r[f'ours@{k}'] / r[f'printed@{k}']).max() for k in KS):.3f}"
        )
        lines.append(line)
    return pd.DataFrame(lines)


def k_profiles() -> pd.DataFrame:
    """Per data set: how each metric grows from k = 5 to k = 20 (X@20 / X@5), ours / printed, mean and range.

    A second check of the test sets' shape, one that the recall's definition cannot touch for precision: P@20 / P@5
    falls with k as fewer users have 20 test items left to hit. Where the rows were evaluated alike, the ratio of
    ours to the printed is close to one whatever the model.
    """
    lines = []
    for name, folder in FOLDERS.items():
        csv = folder / "thesis_tables.csv"
        if not csv.is_file():
            continue
        df = _as_written(csv)
        if df.empty:
            continue
        piv = {
            col: df.pivot_table(
                index=["table", "method", "setting"], columns=["metric", "k"], values=col
            )
            for col in ("thesis", "mean")
        }
        labels = {"precision": "P", "recall": "R", "ndcg": "NDCG"}
        frame = (
            pd.DataFrame(
                {
                    lab: (piv["mean"][(m, 20)] / piv["mean"][(m, 5)])
                    / (piv["thesis"][(m, 20)] / piv["thesis"][(m, 5)])
                    for m, lab in labels.items()
                }
            )
            .dropna()
            .reset_index()
        )
        # Table 6.3's repeats of Table 5.2's rows are the same printed numbers and runs: count a row once
        frame = frame.drop(columns="table").round(12).drop_duplicates()
        line = {"data set": name, "rows": len(frame)}
        for label in ("P", "R", "NDCG"):
            line[f"{label}@20/{label}@5 ours/printed"] = frame[label].mean()
            line[f"{label} range"] = f"{frame[label].min():.3f}-{frame[label].max():.3f}"
        lines.append(line)
    return pd.DataFrame(lines)


def model_trend(folder: Path = FOLDERS["gowalla"]) -> pd.DataFrame:
    """Could a better model explain a data set's gap? k·P/R of our runs against their NDCG@10, extrapolated.

    Over every final-epoch run of the folder (rows and readings), a least-squares line of k·P@k/R@k on NDCG@10; its
    value at each printed row's NDCG@10 is what a model of that quality would give on our split if the trend held.
    Better models do hit the users with few test items more often (k·P/R falls as NDCG rises); this says by how much.
    """
    df = pd.read_csv(folder / "thesis_tables.csv")
    df = df[df.convention == "final epoch"]
    cols = {}
    for col in ("mean", "thesis"):
        piv = df.pivot_table(
            index=["table", "method", "variant"], columns=["metric", "k"], values=col
        )
        cols[col] = pd.DataFrame(
            {
                "ndcg@10": piv[("ndcg", 10)],
                **{k: k * piv[("precision", k)] / piv[("recall", k)] for k in KS},
            }
        )
    ours = cols["mean"].dropna().droplevel("table")
    ours = ours[~ours.index.duplicated()]  # Table 6.3's repeats of 5.2's runs
    printed = cols["thesis"].xs("-", level="variant").dropna().droplevel("table")
    printed = printed[~printed.index.duplicated()]
    out = []
    for k in KS:
        slope, intercept = np.polyfit(ours["ndcg@10"], ours[k], 1)
        for method, row in printed.iterrows():
            out.append(
                {
                    "k": k,
                    "row": method,
                    "runs fitted": len(ours),
                    "slope": slope,
                    "printed NDCG@10": row["ndcg@10"],
                    "printed k·P/R": row[k],
                    "trend at printed NDCG@10": intercept + slope * row["ndcg@10"],
                }
            )
    return pd.DataFrame(out)


def recall_cap(data_dir: Path) -> pd.DataFrame:
    """Table 5.2's BPR row on both Gowalla splits: P, R (|T_u| and min(k, |T_u|)), NDCG and both k·P/R."""
    import negtheory.recsys as rs
    from negtheory.training import RNS, Evaluation, fit

    out = []
    for split in ("thesis split (pooled, 80/20, rng 0)", "release split"):
        if split.startswith("thesis"):
            data = rs.thesis_split("gowalla", data_dir, rng=0)
        else:
            data = rs.load_split(
                data_dir / "train.txt.gz", data_dir / "test.txt.gz", format="lightgcn"
            )
        # Table 4.2's RNS run (the thesis's BPR-MF by batch-1 SGD), evaluated once at the end
        res = fit(data, sampler=RNS(), epochs=100, evaluation=Evaluation(every=100), rng=0)
        u_emb, i_emb = res.user_emb, res.item_emb
        tr_ptr, tr_idx = data.train_csr()
        te_ptr, te_idx = data.test_csr()
        disc = 1.0 / np.log2(np.arange(2, max(KS) + 2))
        acc = {f"{m}@{k}": [] for k in KS for m in ("P", "R", "Rcap", "NDCG")}
        for a in range(0, u_emb.shape[0], 2048):
            block = u_emb[a : a + 2048] @ i_emb.T
            for j, u in enumerate(range(a, a + len(block))):
                t = te_idx[te_ptr[u] : te_ptr[u + 1]]
                if len(t) == 0:
                    continue
                s = block[j]
                s[tr_idx[tr_ptr[u] : tr_ptr[u + 1]]] = -np.inf
                top = np.argpartition(-s, max(KS))[: max(KS)]
                top = top[np.argsort(-s[top], kind="stable")]
                rel = np.isin(top, t)
                for k in KS:
                    h = rel[:k].sum()
                    acc[f"P@{k}"].append(h / k)
                    acc[f"R@{k}"].append(h / len(t))
                    acc[f"Rcap@{k}"].append(h / min(k, len(t)))
                    acc[f"NDCG@{k}"].append(
                        (rel[:k] * disc[:k]).sum() / disc[: min(k, len(t))].sum()
                    )
        line = {"split": split, **{key: float(np.mean(v)) for key, v in acc.items()}}
        # the trainer's own evaluation of the same model: our loop must agree with the loop here
        line["trainer NDCG@10"] = res["history"][-1]["test_ndcg@10"]
        for k in KS:
            line[f"kP/R@{k}"] = k * line[f"P@{k}"] / line[f"R@{k}"]
            line[f"kP/Rcap@{k}"] = k * line[f"P@{k}"] / line[f"Rcap@{k}"]
        out.append(line)
    return pd.DataFrame(out)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--out",
        type=Path,
        required=True,
        help="markdown file to write (a CSV of each part beside it)",
    )
    p.add_argument(
        "--recall-cap",
        type=Path,
        default=None,
        metavar="DIR",
        help="Gowalla's train.txt.gz / test.txt.gz: also run part 2 (about 3 minutes)",
    )
    a = p.parse_args(argv)
    s = summary()
    s.to_csv(a.out.with_suffix(".csv"), index=False)
    text = [
        "# Test items per user implied by k·P@k / R@k: printed rows against our runs",
        "",
        "Every distinct printed row run as written (final epoch; Table 6.3's repeats of 5.2 counted once); "
        "`python benchmarks/implied_test_items.py` from the committed `thesis_tables.csv` files.",
        "",
        s.to_markdown(index=False, floatfmt=".3f"),
        "",
    ]
    prof = k_profiles()
    prof.to_csv(a.out.with_name(a.out.stem + "_k_profile.csv"), index=False)
    text += [
        "## How each metric grows from k = 5 to k = 20: ours / printed",
        "",
        "X@20 / X@5 of our run over the printed row's, for every distinct printed row run as written (mean and "
        "range over the rows). Precision's profile does not depend on how recall is defined.",
        "",
        prof.to_markdown(index=False, floatfmt=".3f"),
        "",
    ]
    trend = model_trend()
    trend.to_csv(a.out.with_name(a.out.stem + "_model_trend.csv"), index=False)
    wide = trend.pivot_table(
        index="row", columns="k", values=["printed k·P/R", "trend at printed NDCG@10"]
    )
    wide.columns = [f"{name} k={k}" for name, k in wide.columns]
    text += [
        "## Gowalla: would a better model close the gap?",
        "",
        f"A line of k·P/R on NDCG@10 through our {int(trend['runs fitted'].iloc[0])} final-epoch Gowalla runs "
        "(rows and readings; slopes "
        + ", ".join(f"{g.slope.iloc[0]:.2f} at k = {k}" for k, g in trend.groupby("k"))
        + "), read at each printed row's NDCG@10, beside the printed k·P/R.",
        "",
        wide.reset_index().to_markdown(index=False, floatfmt=".2f"),
        "",
    ]
    cap_csv = a.out.with_name(a.out.stem + "_recall_cap.csv")
    if a.recall_cap is not None:
        recall_cap(a.recall_cap).to_csv(cap_csv, index=False)
    if cap_csv.is_file():
        c = pd.read_csv(cap_csv)
        cols = [
            "split",
            "trainer NDCG@10",
            "NDCG@10",
            "P@10",
            "R@20",
            "Rcap@20",
            *[f"kP/R@{k}" for k in KS],
            *[f"kP/Rcap@{k}" for k in KS],
        ]
        text += [
            "## Gowalla, Table 5.2's BPR row (seed 0): recall over |T_u| or over min(k, |T_u|)",
            "",
            "`python benchmarks/implied_test_items.py --recall-cap gowalla/` (the printed row's k·P/R at k = 5, "
            "10, 20: 4.87, 4.97, 5.10).",
            "",
            c[cols].to_markdown(index=False, floatfmt=".4f"),
            "",
        ]
    a.out.write_text("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
