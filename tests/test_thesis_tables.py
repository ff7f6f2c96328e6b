"""Mini-batch MF training (negtheory.training.fit's mini-batch engine) and `negtheory reproduce thesis-tables` end to end."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from toy_data import planted_split

torch = pytest.importorskip("torch")

from negtheory import training  # noqa: E402
from negtheory.bridge import functional as Fn  # noqa: E402
from negtheory.bridge.recommend import _loss  # noqa: E402
from negtheory.cli import main  # noqa: E402
from negtheory.reproduce.thesis_numbers import THESIS  # noqa: E402
from negtheory.training import BCL, BPR, DCL, DPL, HCL, Adam, Evaluation, InfoNCE, fit  # noqa: E402

#: the losses of the mini-batch MF rows (Tables 5.2 and 6.3), with the released code's hyper-parameters
LOSSES = (BPR(), InfoNCE(), DCL(), HCL(), DPL(), BCL(), BCL(form="released"))


def _thesis_tables(tmp_path, out, *options):
    """``negtheory reproduce thesis-tables`` on the split written to tmp_path: 2 seeds of 2 epochs, each evaluated."""
    split = ["--train", str(tmp_path / "train.csv"), "--test", str(tmp_path / "test.csv")]
    common = ["--seeds", "2", "--epochs", "2", "--eval-every", "1", "--out", str(out), "--quiet"]
    return main(["reproduce", "thesis-tables", *split, *options, *common])


def _bridge_train(tmp_path, *options):
    """``negtheory bridge train`` on the split written to tmp_path as tr.csv / te.data."""
    return main(
        [
            "bridge",
            "train",
            "--train",
            str(tmp_path / "tr.csv"),
            "--test",
            str(tmp_path / "te.data"),
            *options,
        ]
    )


def _planted(n_users=40, n_items=50, seed=0):
    return planted_split(n_users, n_items, seed)


@pytest.mark.parametrize("loss", LOSSES, ids=repr)
def test_every_loss_trains_mf_above_random(loss):
    d = _planted()
    r = fit(
        d,
        loss=loss,
        optimizer=Adam(lr=0.02, batch_size=64, milestones=(100,)),
        epochs=25,
        evaluation=Evaluation(every=25, ks=(5,)),
        rng=1,
    )
    free = ~d.train_mask()
    base = d.test_mask().sum() / free.sum()  # precision@5 of a random ranking
    assert r.engine == "torch" and r.history[-1]["test_precision@5"] > 1.5 * base
    assert r.scores.shape == (d.n_users, d.n_items)


def test_loss_assembly_follows_the_released_conventions():
    # s = [own positive, M extra positives, N negatives]; DCL/HCL average the positive with the
    # extras and clamp at N e^{-1/t}; DPL uses the extras only
    g = torch.Generator().manual_seed(0)
    s = torch.randn(6, 1 + 3 + 4, generator=g)
    from negtheory.bridge import build_loss
    from negtheory.training import BPR, DCL, DPL, HCL

    def loss(
        spec, scores, m
    ):  # the loss modules of the specs at their defaults, as the trainer builds them
        return _loss(build_loss(spec), scores, m)

    pos, extra, neg = s[:, 0], s[:, 1:4], s[:, 4:]
    e = torch.exp
    pbar = e(s[:, :4]).mean(1)
    ng = torch.clamp((e(neg).sum(1) - 4 * 0.06 * pbar) / 0.94, min=4 * math.exp(-1.0))
    ref_dcl = -torch.log(e(pos) / (e(pos) + ng)).mean()
    assert torch.allclose(loss(DCL(negatives=4, extra_positives=3), s, 3), ref_dcl, atol=1e-6)
    imp = e(0.5 * neg)
    ng_h = torch.clamp(
        (-4 * 0.06 * pbar + (imp * e(neg)).sum(1) / imp.mean(1)) / 0.94, min=4 * math.exp(-1.0)
    )
    ref_hcl = -torch.log(e(pos) / (e(pos) + ng_h)).mean()
    assert torch.allclose(loss(HCL(negatives=4, extra_positives=3), s, 3), ref_hcl, atol=1e-6)
    pu = torch.sigmoid(pos[:, None] - neg).mean(1)
    pp = torch.sigmoid(pos[:, None] - extra).mean(1)
    ref_dpl = -torch.log(torch.clamp((pu - 0.06 * pp) / 0.94, min=1e-2)).mean()
    assert torch.allclose(loss(DPL(negatives=4, extra_positives=3), s, 3), ref_dpl, atol=1e-6)
    assert torch.allclose(loss(BPR(), s[:, [0, 4]], 0), Fn.bpr(pos, neg[:, :1]))


def test_validation_drives_early_stopping_and_best_epoch():
    d = _planted(seed=3).with_validation(0.2, rng=0)
    r = fit(
        d,
        loss=InfoNCE(),
        optimizer=Adam(lr=0.05, batch_size=64, milestones=(100,)),
        epochs=60,
        evaluation=Evaluation(ks=(10,), patience=3),
    )
    hist = r.history
    vals = [h["valid_ndcg@10"] for h in hist]
    assert r.best_epoch == hist[int(np.argmax(vals))]["epoch"]
    if len(hist) < 60:  # stopped early: the last 3 evaluations did not beat the best
        assert max(vals[-3:]) <= max(vals[:-3])
    with pytest.raises(ValueError, match="patience needs a validation split"):
        fit(_planted(), loss=BPR(), optimizer=Adam(), epochs=1, evaluation=Evaluation(patience=2))
    with pytest.raises(TypeError, match="loss must be a spec"):
        fit(d, loss="nce")


def test_thesis_numbers_are_the_printed_rows():
    # spot checks against the thesis text, and the repeated rows it prints
    assert THESIS[("4.2", "BNS", "BPR-MF SGD")][("ndcg", 10)] == 0.4217
    assert THESIS[("5.2", "DPL", "MF")][("ndcg", 10)] == 0.4356
    assert THESIS[("6.3", "BCL", "MF")][("ndcg", 10)] == 0.4380
    assert THESIS[("4.5", "BNS-oracle", "|M_u|=all")][("ndcg", 10)] == 0.6495
    assert (
        THESIS[("5.2", "BPR", "MF")]
        == THESIS[("4.2", "RNS", "BPR-MF SGD")]
        == THESIS[("4.5", "BNS-oracle", "|M_u|=1")]
    )
    for m in ("InfoNCE", "DCL", "HCL"):
        assert THESIS[("5.2", m, "MF")] == THESIS[("6.3", m, "MF")]


def test_reproduce_thesis_tables_end_to_end(tmp_path, capsys):
    d = _planted(n_users=30, n_items=40, seed=5)
    tr = pd.DataFrame(
        {"user": d.user_ids[d.train[:, 0]], "item": d.item_ids[d.train[:, 1]], "rating": 4}
    )
    te = pd.DataFrame(
        {"user": d.user_ids[d.test[:, 0]], "item": d.item_ids[d.test[:, 1]], "rating": 5}
    )
    tr.to_csv(tmp_path / "train.csv", index=False)
    te.to_csv(tmp_path / "test.csv", sep="\t", header=False, index=False)  # u.data-like second file
    out = tmp_path / "out"
    rc = _thesis_tables(
        tmp_path,
        out,
        *"--tables 4.2 4.5 5.2 6.3 --methods RNS BNS BNS-oracle BPR DPL BCL SRNS --bns-sizes 1 3 --srns-variants alpha0".split(),
    )
    assert rc == 0
    df = pd.read_csv(out / "thesis_tables.csv", dtype={"table": str})
    assert list(df.columns[:11]) == [
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
    rows = df[(df.metric == "ndcg") & (df.k == 10) & (df.convention == "final epoch")]
    assert set(rows.table) == {"4.2", "4.5", "5.2", "6.3"}
    assert (rows[rows.method == "SRNS"].n_seeds == 2).all() and list(
        rows[rows.method == "SRNS"].variant
    ) == ["-", "alpha0"]
    # Table 4.5: |M_u| = 1 once (RNS, variant "-"), every reading of the oracle prior at |M_u| = 3
    t45 = rows[rows.table == "4.5"]
    assert list(t45.variant) == ["-", "soft", "soft-Fcand", "soft-tn0.001", "hard"]
    ran = rows[rows.n_seeds > 0]
    assert (ran.n_seeds == 2).all() and (
        (ran.ci_low <= ran["mean"]) & (ran["mean"] <= ran.ci_high)
    ).all()
    assert (
        rows.set_index(["table", "method", "setting"]).loc[("4.2", "BNS", "BPR-MF SGD"), "thesis"]
        == 0.4217
    )
    # the per-seed runs reproduce the summary's means
    runs = pd.read_csv(out / "runs.csv")
    assert set(runs.seed) == {0, 1}
    # P, R, NDCG and TNR/INF sections x (|M_u| = 1 + four variants at |M_u| = 3), and one verdict per printed row
    md = (out / "thesis_tables.md").read_text()
    pre, strict = md.split("## Strict verdicts", 1)
    assert (pre + strict[strict.index("\n## ") :]).count(
        "| 4.5 |"
    ) == 4 * 5 + 2  # without the strict section
    v = pd.read_csv(out / "verdicts.csv", dtype={"table": str})
    assert list(v[v.table == "4.5"].setting) == ["|M_u|=1", "|M_u|=3"]
    # strict verdicts: every printed row of the tables run (LightGCN and |M_u| > 3 not run here), one reading each
    sv = pd.read_csv(out / "verdicts_strict.csv", dtype={"table": str}, keep_default_na=False)
    assert sv.groupby("table").size().to_dict() == {"4.2": 12, "4.5": 9, "5.2": 10, "6.3": 8}
    assert set(sv[sv.setting == "LightGCN"].outcome) == {"not run"}
    assert set(sv[sv.setting.isin(["|M_u|=5", "|M_u|=all"])].outcome) == {"not run"}
    assert set(sv[sv.table == "4.5"].variant) <= {
        "-",
        "soft",
        "",
    }  # as written, never the closest reading
    assert "### Distinct printed rows" in md
    sq = pd.read_csv(out / "sampling_quality.csv")
    assert ((sq.tnr > 0) & (sq.tnr <= 1)).all() and set(sq.method) >= {"RNS", "BNS"}
    # a second call reuses the stored runs (OUT/runs) and gives the same table
    before = (out / "thesis_tables.csv").read_text()
    assert _thesis_tables(tmp_path, out, "--tables", "4.2", "--methods", "RNS", "BNS") == 0
    again = pd.read_csv(out / "thesis_tables.csv", dtype={"table": str})
    first = pd.read_csv(pd.io.common.StringIO(before), dtype={"table": str})
    key = ["table", "method", "setting", "metric", "k", "convention"]
    merged = again.merge(first, on=key, suffixes=("", "_first"))
    assert len(merged) == len(again) and np.allclose(merged["mean"], merged["mean_first"])
    assert (out / "thesis_tables.png").stat().st_size > 1000
    assert "thesis NDCG@10" in capsys.readouterr().out


def test_plan_rejects_unknown_variants():
    from negtheory.reproduce.thesis_tables import plan

    with pytest.raises(ValueError, match="bns_variants"):
        plan(["4.5"], bns_sizes=["3"], bns_variants=["softer"])
    with pytest.raises(ValueError, match="srns_variants"):
        plan(["4.2"], srns_variants=["alpha9"])
    # |M_u| = all: F over M_u is F over every negative, so soft-Fcand shares the soft runs
    rows = {r[3]: r[4] for r in plan(["4.5"], bns_sizes=["all"])}
    assert rows["soft-Fcand"] == rows["soft"] == ("sgd", "bns", 10**9, "oracle")


def test_reproduce_thesis_tables_rejects_bad_paths(tmp_path, capsys):
    rc = main(
        [
            "reproduce",
            "thesis-tables",
            "--train",
            str(tmp_path / "nope.csv"),
            "--test",
            str(tmp_path / "nope.csv"),
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 2 and "no such file" in capsys.readouterr().err


def test_bridge_train_on_an_explicit_split(tmp_path, capsys):
    d = _planted(n_users=25, n_items=30, seed=7)
    np.savetxt(
        tmp_path / "tr.csv",
        np.c_[d.train, np.full(len(d.train), 4)],
        fmt="%d",
        delimiter=",",
        header="user,item,rating",
        comments="",
    )
    np.savetxt(
        tmp_path / "te.data",
        np.c_[d.test, np.full(len(d.test), 4), np.zeros(len(d.test))],
        fmt="%d",
        delimiter="\t",
    )
    out = tmp_path / "run"
    rc = _bridge_train(
        tmp_path,
        "--loss",
        "bpr",
        "--sampler",
        "bns",
        "--optimizer",
        "sgd",
        "--epochs",
        "3",
        "--topk",
        "5",
        "10",
        "--quiet",
        "--out",
        str(out),
    )
    assert rc == 0
    hist = pd.read_csv(out / "history.csv")
    assert list(hist.epoch) == [1, 2, 3] and {"test_ndcg@5", "test_ndcg@10", "tnr", "inf"} <= set(
        hist.columns
    )
    rc = _bridge_train(
        tmp_path,
        "--loss",
        "hcl",
        "--epochs",
        "4",
        "--batch-size",
        "32",
        "--valid-fraction",
        "0.2",
        "--patience",
        "2",
        "--quiet",
    )
    assert rc == 0 and '"best_valid_epoch"' in capsys.readouterr().out
    rc = _bridge_train(tmp_path, "--loss", "bns", "--quiet")
    assert rc == 2 and "--loss bpr --sampler bns" in capsys.readouterr().err


def test_train_api_accepts_arrays_and_returns_model_and_scores():
    from negtheory.bridge.train import train

    d = _planted(n_users=20, n_items=25, seed=8)
    r = train(data=(d.train, d.test), loss="infonce", epochs=2, batch_size=32, progress=False)
    assert isinstance(r["model"], torch.nn.Module) and r["scores"].shape == (d.n_users, d.n_items)
    assert [h["epoch"] for h in r["history"]] == [1, 2]


def test_validation_auc_matches_pairwise_counting():
    from negtheory.reproduce.wu_k_sweep import validation_auc

    rng = np.random.default_rng(2)
    s = np.round(rng.normal(size=(6, 9)), 1)
    valid = rng.random((6, 9)) < 0.2
    excl = (rng.random((6, 9)) < 0.3) | valid
    ref = []
    for u in range(6):
        for i in np.flatnonzero(valid[u]):
            neg = s[u, ~excl[u]]
            ref.append(((neg < s[u, i]).sum() + 0.5 * (neg == s[u, i]).sum()) / neg.size)
    assert validation_auc(s, valid, excl) == pytest.approx(np.mean(ref), abs=1e-12)


def test_reproduce_wu_k_sweep_end_to_end(tmp_path):
    d = _planted(n_users=30, n_items=40, seed=9)
    np.savetxt(tmp_path / "tr.csv", d.train, fmt="%d", delimiter=",")
    np.savetxt(tmp_path / "te.csv", d.test, fmt="%d", delimiter=",")
    out = tmp_path / "wu"
    rc = main(
        [
            "reproduce",
            "wu-k-sweep",
            "--train",
            str(tmp_path / "tr.csv"),
            "--test",
            str(tmp_path / "te.csv"),
            "--ks",
            "1",
            "4",
            "--seeds",
            "2",
            "--epochs",
            "6",
            "--eval-every",
            "2",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    df = pd.read_csv(out / "wu_k_sweep.csv")
    assert sorted(df.k.unique()) == [1, 4] and len(df) == 4
    assert "validation AUC of the K = 1 model" in (out / "wu_k_sweep.md").read_text()


@pytest.mark.parametrize("block", [1, 7, 1000])
def test_blocked_validation_auc_equals_the_dense_one(block):
    # the K = 1 AUC by blocks of users against the dense formula on the same model, bit for bit; ties included
    from negtheory.recsys.loop import ScoreMatrix
    from negtheory.reproduce.wu_k_sweep import validation_auc, validation_auc_blocks

    d = _planted(n_users=30, n_items=40, seed=11).with_validation(0.2, rng=1)
    g = np.random.default_rng(0)
    dense = np.round(g.normal(size=(d.n_users, d.n_items)), 1).astype(np.float32)  # many ties
    ref = validation_auc(dense, d.valid_mask(), d.train_mask() | d.test_mask())
    assert validation_auc_blocks(ScoreMatrix.from_array(dense), d, block=block) == ref
    # a trained model's ScoreMatrix (read through its blocks, never whole: dense_limit 0)
    # small integers: every sum is exact in float32, so no BLAS path can change a score (ties again)
    U, V = (
        g.integers(-3, 4, size=(d.n_users, 4)).astype(np.float32),
        g.integers(-3, 4, size=(d.n_items, 4)).astype(np.float32),
    )
    sm = ScoreMatrix.from_embeddings(U, V, dense_limit=0)
    assert validation_auc_blocks(sm, d, block=block) == validation_auc(
        U @ V.T, d.valid_mask(), d.train_mask() | d.test_mask()
    )
    with pytest.raises(ValueError, match="block"):
        validation_auc_blocks(dense, d, block=0)
    with pytest.raises(ValueError, match="shape"):
        validation_auc_blocks(dense[:, :-1], d)


def test_wu_k_sweep_device_option(tmp_path, monkeypatch):
    from negtheory.reproduce import _common
    from negtheory.reproduce import wu_k_sweep as wk

    d = _planted(n_users=20, n_items=30, seed=4)
    seen, real = [], training.fit

    def spy(*a, device="cpu", **k):
        seen.append(device)
        return real(*a, **k, device="cpu")

    monkeypatch.setattr(training, "fit", spy)
    monkeypatch.setattr(_common, "cuda_available", lambda: True)
    df, summary = wk.sweep(
        d.train, d.test, ks=(1, 2), seeds=1, epochs=2, eval_every=1, progress=False, device="auto"
    )
    assert seen == ["cuda", "cuda"] and 0.0 <= summary["valid_auc_k1"] <= 1.0
    with pytest.raises(ValueError, match="device"):
        wk.sweep(d.train, d.test, ks=(1,), seeds=1, epochs=1, device="gpu")
    # a GPU job is stored apart from its CPU twin; the CPU task keeps its five fields
    np.savetxt(tmp_path / "tr.csv", d.train, fmt="%d", delimiter=",")
    cpu = wk._cache_name(tmp_path / "tr.csv", tmp_path / "tr.csv", "auto", (1, 0, 2, 1, 0.1))
    gpu = wk._cache_name(
        tmp_path / "tr.csv", tmp_path / "tr.csv", "auto", (1, 0, 2, 1, 0.1, "cuda")
    )
    assert cpu != gpu


def _verdict_frame(rows):
    import pandas as pd

    return pd.DataFrame(
        [
            dict(
                table=t,
                method=m,
                setting=s,
                variant=v,
                metric="ndcg",
                k=10,
                thesis=th,
                mean=mean,
                n_seeds=n,
                convention=conv,
            )
            for t, m, s, v, th, mean, n, conv in rows
        ]
    )


def test_verdicts_judge_each_printed_row_against_the_tolerance():
    from negtheory.reproduce.thesis_tables import TOLERANCE, verdicts

    fe, bv, mx = "final epoch", "best validation epoch", "max_test_over_epochs (released code)"
    df = _verdict_frame(
        [
            (
                "4.2",
                "RNS",
                "BPR-MF SGD",
                "-",
                0.40,
                0.40 + TOLERANCE * 0.99,
                3,
                fe,
            ),  # inside the tolerance
            ("4.2", "AOBPR", "BPR-MF SGD", "-", 0.39, 0.35, 3, fe),  # outside, no variant
            (
                "4.2",
                "AOBPR",
                "BPR-MF SGD",
                "-",
                0.39,
                0.392,
                3,
                mx,
            ),  # max over test epochs never counts
            ("4.2", "SRNS", "BPR-MF SGD", "-", 0.40, 0.38, 3, fe),
            (
                "4.2",
                "SRNS",
                "BPR-MF SGD",
                "-",
                0.40,
                0.408,
                3,
                bv,
            ),  # the other legit convention is a reading
            ("4.5", "BNS-oracle", "|M_u|=3", "soft", 0.49, 0.43, 3, fe),
            ("4.5", "BNS-oracle", "|M_u|=3", "hard", 0.49, 0.50, 3, fe),
            ("4.5", "BNS-oracle", "|M_u|=3", "soft-Fcand", 0.49, 0.47, 3, fe),
            ("4.5", "BNS-oracle", "|M_u|=all", "soft", 0.65, 0.44, 3, fe),
            ("4.5", "BNS-oracle", "|M_u|=all", "hard", 0.65, 0.49, 1, fe),
            ("6.3", "BCL", "MF", "-", 0.438, 0.398, 3, fe),
            ("6.3", "BCL-released", "MF", "-", 0.438, 0.43, 2, fe),
            ("4.2", "SRNS", "LightGCN", "-", 0.41, float("nan"), 0, fe),
            ("5.2", "BPR", "Other", "-", float("nan"), 0.3, 3, fe),  # nothing printed: no verdict
        ]
    )
    v = verdicts(df).set_index(["table", "method", "setting"]).verdict.to_dict()
    assert v[("4.2", "RNS", "BPR-MF SGD")] == "reproduced"
    assert v[("4.2", "AOBPR", "BPR-MF SGD")] == "not reproduced"
    assert v[("4.2", "SRNS", "BPR-MF SGD")] == "reproduced by - (best validation epoch)"
    assert (
        v[("4.5", "BNS-oracle", "|M_u|=3")] == "reproduced by hard"
    )  # the closest of two variants
    assert v[("4.5", "BNS-oracle", "|M_u|=all")] == "not reproduced"
    assert v[("6.3", "BCL", "MF")] == "reproduced by BCL-released (2 seeds)"
    assert v[("4.2", "SRNS", "LightGCN")] == "not run"
    assert ("5.2", "BPR", "Other") not in v
    row = verdicts(df).set_index("method").loc["AOBPR"]
    assert row.delta == pytest.approx(0.35 - 0.39) and row.best_variant == ""
    with pytest.raises(ValueError, match="metric"):
        verdicts(df, metric="mrr")
    with pytest.raises(ValueError, match="tol"):
        verdicts(df, tol=-0.01)
    with pytest.raises(ValueError, match="missing columns"):
        verdicts(df.drop(columns="variant"))


def test_cost_hint_starts_the_longest_runs_first():
    # the LPT order of _execute: LightGCN BNS before any MF run, RNS last, cost growing with |M_u|
    from negtheory.reproduce.thesis_tables import _cost_hint, plan

    rows = plan(["4.2", "4.5", "5.2", "6.3"], models=["mf", "lightgcn"])
    tasks = [
        (k, 0, "tr", "te", None) for k in dict.fromkeys(r[4] for r in rows if r[4] is not None)
    ]
    order = [t[0] for t in sorted(tasks, key=_cost_hint, reverse=True)]
    assert order[0] == ("lightgcn", "bpr", "bns")
    assert order.index(("sgd", "rns", 5, "popularity")) > order.index(("mf", "dpl"))
    for v in ("soft", "soft-Fcand", "hard"):
        keys = [
            ("sgd", "bns", m, "oracle") + (() if v == "soft" else (v,)) for m in (3, 10, 50, 100)
        ]
        hints = [_cost_hint((k, 0, "tr", "te", None)) for k in keys]
        assert hints == sorted(hints) and hints[0] < hints[-1]
    # epochs scale the hint (an --epochs override shortens every run alike)
    assert _cost_hint((("mf", "dcl"), 0, "tr", "te", 20)) == pytest.approx(
        _cost_hint((("mf", "dcl"), 0, "tr", "te", None)) / 10
    )


def test_device_option_reaches_the_minibatch_runs_and_keeps_gpu_runs_apart(
    tmp_path, monkeypatch, capsys
):
    from negtheory.reproduce import _common
    from negtheory.reproduce import thesis_tables as tt
    from negtheory.reproduce import wu_k_sweep as wk

    with pytest.raises(ValueError, match="device must be one of"):
        tt.TableOptions(device="gpu").check()
    # the GPU twin of a mini-batch run is cached under another name; an SGD run's name ignores the device
    mf = (("mf", "dcl"), 0, __file__, __file__, None, "fixed", 0.1, 5, False, "auto")
    sgd = (
        ("sgd", "rns", 5, "popularity"),
        0,
        __file__,
        __file__,
        None,
        "fixed",
        0.1,
        5,
        False,
        "auto",
    )
    assert tt._cache_name((*mf, "cuda")) != tt._cache_name((*mf, "cpu"))
    assert tt._cache_name((*sgd, "cuda")) == tt._cache_name((*sgd, "cpu"))
    d = _planted(n_users=20, n_items=30, seed=3)
    pd.DataFrame({"user": d.train[:, 0], "item": d.train[:, 1]}).to_csv(
        tmp_path / "train.csv", index=False
    )
    pd.DataFrame({"user": d.test[:, 0], "item": d.test[:, 1]}).to_csv(
        tmp_path / "test.csv", index=False
    )
    seen, real = [], training.fit

    def spy(*a, device="cpu", **k):  # records the device asked for, trains on the CPU
        seen.append(device)
        return real(*a, **k, device="cpu")

    monkeypatch.setattr(training, "fit", spy)
    monkeypatch.setattr(_common, "cuda_available", lambda: True)  # as on a GPU machine
    assert (
        _thesis_tables(
            tmp_path, tmp_path / "o", "--tables", "5.2", "--methods", "InfoNCE", "--device", "auto"
        )
        == 0
    )
    assert seen == ["cuda", "cuda"]  # 2 seeds, each on the resolved device
    assert "--device auto" in (tmp_path / "o" / "thesis_tables.md").read_text()
    monkeypatch.setattr(_common, "cuda_available", lambda: False)
    assert tt.TableOptions(device="auto").run_device() == "cpu"
    with pytest.raises(ValueError, match="no CUDA device"):
        tt.TableOptions(device="cuda").check()
    with pytest.raises(ValueError, match="no CUDA device"):
        wk.sweep(d.train, d.test, ks=(1,), seeds=1, epochs=1, progress=False, device="cuda")
    capsys.readouterr()
    assert (
        _thesis_tables(
            tmp_path, tmp_path / "o2", "--tables", "5.2", "--methods", "InfoNCE", "--device", "cuda"
        )
        == 2
    )
    assert "--device cuda: torch sees no CUDA device" in capsys.readouterr().err
