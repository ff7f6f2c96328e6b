"""Validation searches of `negtheory reproduce thesis-tables --tune`, Table 5.3 rows, and DNS negatives on mini-batches."""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from toy_data import planted_split

torch = pytest.importorskip("torch")

from negtheory import training as T  # noqa: E402
from negtheory.bridge.recommend import MF, LightGCN, dns_negatives  # noqa: E402
from negtheory.cli import main  # noqa: E402
from negtheory.reproduce import thesis_tables as tt  # noqa: E402
from negtheory.reproduce.thesis_numbers import THESIS, THESIS_ML1M  # noqa: E402


def _planted(n_users=30, n_items=40, seed=5):
    return planted_split(n_users, n_items, seed)


def _write_split(tmp_path):
    d = _planted()
    tr = pd.DataFrame({"user": d.user_ids[d.train[:, 0]], "item": d.item_ids[d.train[:, 1]]})
    te = pd.DataFrame({"user": d.user_ids[d.test[:, 0]], "item": d.item_ids[d.test[:, 1]]})
    tr.to_csv(tmp_path / "train.csv", index=False)
    te.to_csv(tmp_path / "test.csv", index=False)
    return tmp_path / "train.csv", tmp_path / "test.csv"


# ------------------------------------------------------------------------------------------ search
def test_validation_search_picks_the_argmax_stage_by_stage():
    seen = []

    def evaluate(cands):
        seen.append([dict(c) for c in cands])
        return [
            -((c["a"] - 2) ** 2) - (c.get("b", 0) - 1) ** 2 + 0.1 * c.get("c", 0) for c in cands
        ]

    chosen, recs = tt.validation_search(
        evaluate, [{"a": [0, 1, 2, 3], "c": [0, 1]}, {"b": [0, 1, 5]}]
    )
    assert chosen == {"a": 2, "c": 1, "b": 1}
    # stage 1 is the Cartesian product; stage 2 carries stage 1's choice
    assert len(seen[0]) == 8 and all(c["a"] == 2 and c["c"] == 1 for c in seen[1])
    assert [r["chosen"] for r in recs].count(True) == 2
    for st in (1, 2):
        rs = [r for r in recs if r["stage"] == st]
        best = max(rs, key=lambda r: r["score"])
        assert best["chosen"] and best["params"] == [r for r in rs if r["chosen"]][0]["params"]


def test_validation_search_ties_go_first_and_nan_never_wins():
    chosen, _ = tt.validation_search(lambda c: [1.0, 1.0, 0.0], [{"x": [3, 4, 5]}])
    assert chosen == {"x": 3}
    chosen, _ = tt.validation_search(lambda c: [math.nan, 0.2, 0.1], [{"x": [3, 4, 5]}])
    assert chosen == {"x": 4}


@pytest.mark.parametrize(
    "stages, match",
    [([], "stages"), ([{}], "stages"), ([{"x": []}], "stages")],
)
def test_validation_search_rejects_bad_stages(stages, match):
    with pytest.raises(ValueError, match=match):
        tt.validation_search(lambda c: [0.0] * len(c), stages)


def test_validation_search_rejects_wrong_number_of_scores():
    with pytest.raises(ValueError, match="evaluate"):
        tt.validation_search(lambda c: [0.0], [{"x": [1, 2]}])


def test_parse_tune_grid_and_its_errors():
    assert tt.parse_tune_grid(["AOBPR:rank_scale=20,80.5"]) == {
        "AOBPR": [{"rank_scale": (20, 80.5)}]
    }
    for bad in ("XYZ:a=1", "BCL", "BCL:alpha", "BCL:alpha="):
        with pytest.raises(ValueError, match="tune_grid"):
            tt.parse_tune_grid([bad])


def test_tuned_keys_drop_defaults_and_round_trip():
    assert tt._tuned_key(("mf", "bcl"), {"alpha": 0.55, "tau_plus": 0.06, "beta": 0.6}) == (
        "mf",
        "bcl",
    )
    key = tt._tuned_key(("mf", "bcl"), {"alpha": 0.7, "tau_plus": 0.06})
    assert key == ("mf", "bcl", "alpha=0.7")
    assert tt._split_key(key + ("protocol=valid", "sampler=dns")) == (
        ("mf", "bcl"),
        {"alpha": 0.7, "protocol": "valid", "sampler": "dns"},
    )
    assert tt._tuned_key(("sgd", "pns", 5, "popularity"), {"pns_power": 0.25}) == (
        "sgd",
        "pns",
        5,
        "popularity",
        "pns_power=0.25",
    )


def test_search_runs_never_see_the_test_split(monkeypatch):
    d = _planted()
    got = {}

    def spy(data, **kw):
        got["data"], got["kw"] = data, kw
        return SimpleNamespace(history=[{"epoch": 1, "valid_ndcg@10": 0.5}])

    monkeypatch.setattr(T, "fit", spy)
    key = ("sgd", "pns", 5, "popularity", "pns_power=0.25")
    assert tt._tuned_key(("sgd", "pns", 5, "popularity"), {"pns_power": 1.0}) == tt._tuned_key(
        ("sgd", "pns", 5, "popularity"), {"pns_power": 1}
    )
    out = tt._job(d, (key, 0, "tr", "te", 1, "tune", 0.1, 1, False, "auto"))
    seen = got["data"]
    assert (
        out["run"] == str(key)
        and got["kw"]["sampler"] == T.PNS(power=0.25)
        and got["kw"]["evaluation"].on == "valid"
    )
    assert len(seen.test) == 0 and len(seen.valid) == round(0.1 * len(d.train))
    # what the trainer holds is train minus validation: no test pair anywhere
    held = {tuple(p) for p in np.concatenate([seen.train, seen.valid])}
    assert held == {tuple(p) for p in d.train}
    assert not held & {tuple(p) for p in d.test}


def test_tune_end_to_end_writes_tuning_csv_and_variant_rows(tmp_path, monkeypatch):
    tr, te = _write_split(tmp_path)
    out = tmp_path / "out"
    # a fake trainer: the validation score is a known function of the exponent, test metrics a sentinel
    calls = []

    def fake(data, *, sampler, evaluation, **kw):
        pns_power, eval_on = getattr(sampler, "power", 0.75), evaluation.on
        calls.append((pns_power, eval_on, len(data.test), len(data.valid)))
        v = 1.0 - (pns_power - 0.25) ** 2
        hist = [{"epoch": e, "loss": 0.0, "tnr": 1.0, "inf": 0.0} for e in (1, 2)]
        hist[0]["valid_ndcg@10"], hist[1]["valid_ndcg@10"] = (
            v + (1.0 if pns_power == 1.0 else 0.0),
            v,
        )
        for h in hist:
            if eval_on in ("test", "both"):
                h.update(
                    {
                        f"test_{m}@{k}": 0.123
                        for m in ("precision", "recall", "ndcg")
                        for k in (5, 10, 20)
                    }
                )
        return SimpleNamespace(history=hist)

    monkeypatch.setattr(T, "fit", fake)
    rc = main(
        [
            "reproduce",
            "thesis-tables",
            "--train",
            str(tr),
            "--test",
            str(te),
            "--tables",
            "4.2",
            "--methods",
            "RNS",
            "--tune",
            "PNS",
            "--tune-grid",
            "PNS:pns_power=0,0.25,1.0",
            "--seeds",
            "2",
            "--epochs",
            "2",
            "--eval-every",
            "1",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    tun = pd.read_csv(out / "tuning.csv")
    assert list(tun.columns) == [
        "method",
        "table",
        "setting",
        "variant",
        "criterion",
        "stage",
        "params",
        "pns_power",
        "valid_ndcg@10",
        "epoch",
        "chosen",
        "seed",
        "valid_fraction",
    ]
    last = tun[tun.variant == "valid-tuned"]
    es = tun[tun.variant == "valid-tuned-es"]
    assert last.loc[last.chosen, "pns_power"].tolist() == [0.25]  # argmax after the last epoch
    assert es.loc[es.chosen, "pns_power"].tolist() == [1.0]  # argmax over epochs
    assert last["valid_ndcg@10"].tolist() == pytest.approx([1 - 0.0625, 1.0, 1 - 0.5625])
    # the search's runs received no test pair; each candidate trained once (both variants share them)
    search = [c for c in calls if c[1] == "valid"]
    assert len(search) == 3 and all(c[2] == 0 for c in search)
    df = pd.read_csv(out / "thesis_tables.csv", dtype={"table": str})
    rows = df[(df.metric == "ndcg") & (df.k == 10) & (df.method == "PNS")]
    assert set(rows.variant) == {"valid-tuned", "valid-tuned-es"}
    es_row = rows[(rows.variant == "valid-tuned-es") & (rows.convention == "best validation epoch")]
    assert es_row["mean"].tolist() == [0.123] and es_row.n_seeds.tolist() == [2]
    md = (out / "thesis_tables.md").read_text()
    assert "Hyper-parameters chosen on validation" in md and "**pns_power=0.25**" in md


def test_tune_only_runs_the_search_and_its_chosen_row_but_not_the_rows_as_written(
    tmp_path, monkeypatch, capsys
):
    # --tune-only: a search added to a report whose plain rows already ran; the plain RNS / PNS rows
    # (--tables 4.2 --methods RNS PNS) are not trained, the search's candidates and chosen row are
    tr, te = _write_split(tmp_path)
    out = tmp_path / "out"
    calls = []

    def fake(data, *, sampler, evaluation, **kw):
        pns_power, eval_on = getattr(sampler, "power", 0.75), evaluation.on
        calls.append((type(sampler).__name__.lower(), pns_power, eval_on))
        hist = [
            {
                "epoch": 1,
                "loss": 0.0,
                "tnr": 1.0,
                "inf": 0.0,
                "valid_ndcg@10": 1.0 - (pns_power - 0.5) ** 2,
            }
        ]
        if eval_on in ("test", "both"):
            hist[0].update(
                {f"test_{m}@{k}": 0.2 for m in ("precision", "recall", "ndcg") for k in (5, 10, 20)}
            )
        return SimpleNamespace(history=hist)

    monkeypatch.setattr(T, "fit", fake)
    rc = main(
        [
            "reproduce",
            "thesis-tables",
            "--train",
            str(tr),
            "--test",
            str(te),
            "--tables",
            "4.2",
            "--methods",
            "RNS",
            "PNS",
            "--tune",
            "PNS",
            "--tune-grid",
            "PNS:pns_power=0,0.5",
            "--tune-variants",
            "valid-tuned",
            "--tune-only",
            "--seeds",
            "2",
            "--epochs",
            "1",
            "--eval-every",
            "1",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    assert sorted(c[1] for c in calls if c[2] == "valid") == [0.0, 0.5]  # the search
    reported = [c for c in calls if c[2] != "valid"]
    assert [(c[0], c[1]) for c in reported] == [
        ("pns", 0.5)
    ] * 2  # the chosen row's two seeds, nothing else
    df = pd.read_csv(out / "thesis_tables.csv", dtype={"table": str})
    assert set(zip(df.method, df.variant)) == {("PNS", "valid-tuned")}
    # without a search the option is refused, naming it
    with pytest.raises(ValueError, match="tune_only"):
        tt.run_tables(tr, te, tt.TableOptions(tables=["4.2"], methods=["RNS"], tune_only=True))
    rc = main(
        [
            "reproduce",
            "thesis-tables",
            "--train",
            str(tr),
            "--test",
            str(te),
            "--tune-only",
            "--out",
            str(out),
        ]
    )
    assert rc == 2 and "--tune-only" in capsys.readouterr().err


def test_tune_lightgcn_bcl_searches_lightgcn_and_fills_the_printed_lightgcn_row(
    tmp_path, monkeypatch
):
    # Table 6.3's LightGCN BCL row: its search trains LightGCN (the thesis's settings) with the candidate's
    # keywords, never sees the test split, and the chosen value's row stands beside the printed LightGCN value
    tr, te = _write_split(tmp_path)
    out = tmp_path / "out"
    calls = []

    def fake(data, *, loss, **kw):
        name, alpha = type(loss).__name__.lower(), getattr(loss, "alpha", 0.55)
        calls.append(
            dict(loss=name, alpha=alpha, n_test=len(data.test), n_valid=len(data.valid), **kw)
        )
        v = 1.0 - (alpha - 0.7) ** 2  # validation peaks at alpha = 0.7
        hist = [{"epoch": e, "loss": 0.0} for e in (1, 2)]
        for h in hist:
            h["valid_ndcg@10"] = v
            h.update(
                {
                    f"test_{m}@{k}": 0.321
                    for m in ("precision", "recall", "ndcg")
                    for k in (5, 10, 20)
                }
            )
        return SimpleNamespace(history=hist)

    monkeypatch.setattr(T, "fit", fake)
    rc = main(
        [
            "reproduce",
            "thesis-tables",
            "--train",
            str(tr),
            "--test",
            str(te),
            "--tables",
            "6.3",
            "--methods",
            "InfoNCE",
            "--models",
            "lightgcn",
            "--tune",
            "BCL-LightGCN",
            "--tune-grid",
            "BCL-LightGCN:alpha=0.55,0.7,0.85",
            "--tune-variants",
            "valid-tuned",
            "--seeds",
            "2",
            "--epochs",
            "2",
            "--eval-every",
            "1",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    search = [c for c in calls if c["loss"] == "bcl" and c["n_test"] == 0]
    assert sorted(c["alpha"] for c in search) == [0.55, 0.7, 0.85]
    for c in calls:  # every run is LightGCN with the thesis's settings
        assert c["model"] == T.THESIS_LIGHTGCN["model"] and c["sampler"] == T.RNS()
        assert c["optimizer"] == T.THESIS_LIGHTGCN["optimizer"] and c["epochs"] == 2
    reported = [c for c in calls if c["loss"] == "bcl" and c["n_test"] > 0]
    assert [c["alpha"] for c in reported] == [0.7, 0.7] and all(c["n_valid"] == 0 for c in reported)
    tun = pd.read_csv(out / "tuning.csv")
    assert set(tun.method) == {"BCL-LightGCN"} and set(tun.setting) == {"LightGCN"}
    assert tun.loc[tun.chosen, "alpha"].tolist() == [0.7]
    df = pd.read_csv(out / "thesis_tables.csv", dtype={"table": str})
    row = df[
        (df.method == "BCL")
        & (df.setting == "LightGCN")
        & (df.metric == "ndcg")
        & (df.k == 10)
        & (df.convention == "final epoch")
    ]
    assert row.variant.tolist() == ["valid-tuned"]
    assert row["thesis"].tolist() == [THESIS[("6.3", "BCL", "LightGCN")][("ndcg", 10)]]
    assert row["mean"].tolist() == [0.321]


def test_tune_rejects_bad_arguments(tmp_path):
    tr, te = _write_split(tmp_path)
    o = tt.TableOptions(tables=["4.2"], methods=["RNS"])
    with pytest.raises(ValueError, match="tune"):
        tt.run_tables(tr, te, dataclasses.replace(o, tune=["XYZ"]))
    with pytest.raises(ValueError, match="tune_variants"):
        tt.run_tables(tr, te, dataclasses.replace(o, tune=["PNS"], tune_variants=["nope"]))
    with pytest.raises(ValueError, match="tune_seed"):
        tt.run_tables(tr, te, dataclasses.replace(o, tune=["PNS"], tune_seed=-1))
    # the call before issue 32 (tables, methods positionally, the rest by name) still works, with a warning
    with (
        pytest.warns(DeprecationWarning, match="TableOptions"),
        pytest.raises(ValueError, match="tune_seed"),
    ):
        tt.run_tables(tr, te, ["4.2"], ["RNS"], tune=["PNS"], tune_seed=-1)


# ------------------------------------------------------------------------------------------ Table 5.3
def test_table_5_3_rows_share_the_runs_of_tables_4_2_and_5_2():
    rows = tt.plan(["4.2", "5.2", "5.3"], ["BPR", "BNS", "DPL", "DPL-hard", "RNS"])
    by = {(r[0], r[1]): r[4] for r in rows}
    assert by[("5.3", "BPR")] == by[("5.2", "BPR")] == by[("4.2", "RNS")]
    assert by[("5.3", "BNS")] == by[("4.2", "BNS")]
    assert by[("5.3", "DPL")] == by[("5.2", "DPL")] == ("mf", "dpl")
    assert by[("5.3", "DPL-hard")] == ("mf", "dpl", "sampler=dns", "tau_plus=0.3")
    assert [r[1] for r in tt.plan(["5.3"])] == ["BPR", "BNS", "DPL", "DPL-hard"]


def test_table_5_3_printed_values():
    # the thesis's Table 5.3 (MovieLens-100K and -1M blocks); BPR / BNS / DPL repeat Tables 4.2 / 5.2
    assert THESIS[("5.3", "DPL-hard", "MF")][("ndcg", 10)] == 0.4395
    assert THESIS[("5.3", "DPL-hard", "MF")][("precision", 5)] == 0.4401
    assert THESIS[("5.3", "DPL-hard", "MF")][("ndcg", 20)] == 0.4351
    assert THESIS_ML1M[("5.3", "DPL-hard", "MF")][("recall", 10)] == 0.1701
    for th in (THESIS, THESIS_ML1M):
        assert th[("5.3", "BPR", "MF")] == th[("4.2", "RNS", "BPR-MF SGD")]
        assert th[("5.3", "BNS", "MF")] == th[("4.2", "BNS", "BPR-MF SGD")]
        assert th[("5.3", "DPL", "MF")] == th[("5.2", "DPL", "MF")]
        assert len(th[("5.3", "DPL-hard", "MF")]) == 9


# ------------------------------------------------------------------------------------------ DNS on mini-batches
@pytest.mark.parametrize("model", ["mf", "lightgcn"])
def test_dns_negatives_is_the_argmax_of_the_scores(model):
    d = _planted()
    g = torch.Generator().manual_seed(3)
    net = (
        MF(d.n_users, d.n_items, 8, generator=g)
        if model == "mf"
        else LightGCN(d.n_users, d.n_items, d.train, 8, 1, g)
    )
    rng = np.random.default_rng(0)
    users = rng.integers(0, d.n_users, 17)
    cand = rng.integers(0, d.n_items, (17, 4, 5))
    got = dns_negatives(net, users, cand)
    if model == "mf":
        U, V = net.user.weight.detach().numpy(), net.item.weight.detach().numpy()
    else:
        eu, ei = net.propagate()
        U, V = eu.detach().numpy(), ei.detach().numpy()
    sc = np.einsum("bd,bncd->bnc", U[users], V[cand])
    want = np.take_along_axis(cand, sc.argmax(-1)[..., None], -1)[..., 0]
    assert got.shape == (17, 4) and np.array_equal(got, want)
    with pytest.raises(ValueError, match="candidates"):
        dns_negatives(net, users, cand[:, 0])


def test_minibatch_dns_trains_dpl_and_bpr():
    d = _planted()
    opt = T.Adam(batch_size=64, milestones=(100,))
    for loss in (T.DPL(), T.BPR()):
        r = T.fit(
            d,
            loss=loss,
            sampler=T.DNS(candidates=3),
            optimizer=opt,
            epochs=2,
            evaluation=T.Evaluation(every=2, ks=(5,)),
        )
        assert r.engine == "torch" and r.config["sampler"] == "dns" and r.config["candidates"] == 3
        assert np.isfinite(r.history[-1]["loss"])
    with pytest.raises(ValueError, match=r"DNS\.candidates"):
        T.DNS(candidates=0)


def test_minibatch_dns_negatives_are_harder_than_uniform():
    # a trained model: DNS negatives score above uniform ones on average (they are per-slot maxima)
    d = _planted()
    r = T.fit(
        d,
        loss=T.DPL(),
        optimizer=T.Adam(lr=0.02, batch_size=64, milestones=(100,)),
        epochs=5,
        evaluation=T.Evaluation(every=5, ks=(5,)),
    )
    rng = np.random.default_rng(1)
    users = rng.integers(0, d.n_users, 200)
    free = ~d.train_mask()
    cand = np.stack([rng.choice(np.flatnonzero(free[u]), (1, 5)) for u in users])
    picked = dns_negatives(r.model, users, cand)[:, 0]
    s = np.asarray(r.scores)  # a ScoreMatrix: dense on small data
    assert s[users, picked].mean() > s[users[:, None], cand[:, 0]].mean()


def test_sgd_pns_power_is_validated_and_recorded():
    d = _planted()
    r = T.fit(d, sampler=T.PNS(power=0.0), epochs=1, evaluation=T.Evaluation(ks=(5,)))
    assert r.engine == "sgd" and r.config["pns_power"] == 0.0
    with pytest.raises(ValueError, match=r"PNS\.power"):
        T.PNS(power=-1.0)
