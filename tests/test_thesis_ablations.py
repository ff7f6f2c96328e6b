"""Thesis Tables 4.3 (BNS ablations) and 4.4 (BPR / BCE / InfoNCE losses): the SGD kernel's new options and the rows.

Each kernel option is checked against a direct computation: the λ and sampler handed to the epoch
kernel (recorded by a wrapper around it), the uniform prior against the same prior as an array,
the BCE / InfoNCE step against central finite differences of the regularised loss, the occupation
prior against a plain loop over users and items.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from negtheory.cli import main
from negtheory.recsys import (
    _sgd_kernels,
    bns_lam_warm_start,
    bns_occupation_prior,
    bns_prior,
    load_split,
    read_user_occupations,
)
from negtheory.recsys import bpr_sgd as sgd_mod
from negtheory.reproduce.thesis_numbers import THESIS, thesis_value
from negtheory.reproduce.thesis_tables import figure, markdown, plan, summarize
from negtheory.training import BCE, BNS, BPR, MF, RNS, SGD, SRNS, Evaluation, InfoNCE, fit


def _split(seed=0, n_users=30, n_items=40, n=700, n_test=200):
    rng = np.random.default_rng(seed)
    pairs = np.unique(rng.integers(0, [n_users, n_items], size=(n, 2)), axis=0)
    pairs = pairs[rng.permutation(len(pairs))]
    return load_split(pairs[n_test:], pairs[:n_test])


def _fit(d, sampler=None, loss=None, epochs=3):
    """MF (d = 8) by batch-1 SGD (lr 0.05) on the numba kernel, BPR with BNS unless others are given."""
    return fit(
        d,
        model=MF(dim=8),
        loss=loss or BPR(),
        sampler=sampler or BNS(),
        optimizer=SGD(lr=0.05),
        epochs=epochs,
        evaluation=Evaluation(),
        rng=4,
        engine="sgd",
    )


def _same_run(a, b):
    assert np.array_equal(a.user_emb, b.user_emb) and np.array_equal(a.item_emb, b.item_emb)
    assert a.history == b.history


# ------------------------------------------------------------------------------------------
# BNS-1 / BNS-2: what the epoch kernel is handed
# ------------------------------------------------------------------------------------------
def _record_kernel(monkeypatch):
    calls = []
    real = sgd_mod._bpr_epoch

    def spy(*args):
        calls.append((args[7], args[9]))  # sampler code, lambda
        return real(*args)

    monkeypatch.setattr(sgd_mod, "_bpr_epoch", spy)
    return calls


def test_lam_warm_start_is_the_thesis_schedule():
    # lambda = max(10 - 0.1 epoch, 2), epoch 0-based
    lams = [bns_lam_warm_start(t) for t in range(100)]
    assert lams == [max(10.0 - 0.1 * t, 2.0) for t in range(100)]
    assert lams[0] == 10.0 and lams[80] == 2.0 and lams[79] > 2.0 and lams[99] == 2.0
    with pytest.raises(ValueError, match="epoch"):
        bns_lam_warm_start(-1)


def test_lam_schedule_and_warm_rns_epochs_reach_the_kernel(monkeypatch):
    d = _split()
    calls = _record_kernel(monkeypatch)
    r = _fit(d, BNS(lam_schedule=[bns_lam_warm_start(t) for t in range(4)]), epochs=4)
    assert [c[1] for c in calls] == [10.0, 9.9, 9.8, 9.7] == r.config["lam_schedule"]
    assert [c[0] for c in calls] == [sgd_mod.SAMPLERS.index("bns")] * 4
    calls.clear()
    r = _fit(d, BNS(warm_rns_epochs=2), epochs=4)
    assert [c[0] for c in calls] == [0, 0, 4, 4] and r.config["warm_rns_epochs"] == 2
    assert [c[1] for c in calls] == [5.0] * 4


def test_constant_schedule_and_full_warm_start_are_the_plain_runs():
    d = _split()
    _same_run(_fit(d, BNS(lam_schedule=[5.0, 5.0, 5.0])), _fit(d, BNS(lam=5.0)))
    # RNS for every epoch is RNS: the same draws from the same per-epoch seeds
    _same_run(_fit(d, BNS(warm_rns_epochs=3)), _fit(d, RNS()))
    # BNS-2 leaves the RNS epochs as they were, then departs from RNS
    a, b = _fit(d, BNS(warm_rns_epochs=2), epochs=3), _fit(d, RNS(), epochs=3)
    assert a.history[1] == b.history[1] and a.history[2] != b.history[2]


# ------------------------------------------------------------------------------------------
# BNS-3 / BNS-4: priors
# ------------------------------------------------------------------------------------------
def test_uniform_prior_is_the_constant_array():
    d = _split()
    a = _fit(d, BNS(prior="uniform"))
    _same_run(a, _fit(d, BNS(prior=np.full(d.n_items, 1.0 / d.n_items))))
    _same_run(
        a, _fit(d, BNS(prior=np.full((d.n_users, d.n_items), 1.0 / d.n_items)))
    )  # one row per user
    # a popularity array is the default prior, and the uniform prior changes the draws
    _same_run(_fit(d), _fit(d, BNS(prior=bns_prior(d.item_counts(), len(d.train)))))
    assert not np.array_equal(a.user_emb, _fit(d).user_emb)


def test_per_user_prior_rows_are_used():
    d = _split()
    pop = bns_prior(d.item_counts(), len(d.train))
    # every user but user 0 gets the popularity prior; user 0 a prior of 1 (never a true negative)
    p = np.tile(pop, (d.n_users, 1))
    p[0] = 1.0
    a, b = _fit(d, BNS(prior=p)), _fit(d)
    assert not np.array_equal(a.user_emb, b.user_emb)


def test_occupation_prior_against_a_loop(tmp_path):
    d = _split(n_users=12, n_items=15, n=120, n_test=30)
    occ = np.array(["a", "b", "c", "a"] * 3)
    p = bns_occupation_prior(d, occ)
    pop = d.item_counts() / len(d.train)
    for u in range(d.n_users):
        for item in range(d.n_items):
            o = {
                g: sum(1 for v, i in d.train if i == item and occ[v] == g) for g in ("a", "b", "c")
            }
            top = max(o.values())
            delta = (o[occ[u]] - np.mean(list(o.values()))) / top if top else 0.0
            assert np.isclose(p[u, item], pop[item] * (1 + delta))
    # the u.user reader: 1-based ids beside 0-based interaction files
    f = tmp_path / "u.user"
    f.write_text("".join(f"{u + 1}|30|M|{occ[u]}|00000\n" for u in range(d.n_users)))
    assert list(read_user_occupations(f, d.user_ids, id_offset=-1)) == list(occ)
    with pytest.raises(ValueError, match="id_offset"):
        read_user_occupations(f, d.user_ids)
    with pytest.raises(ValueError, match="occupations"):
        bns_occupation_prior(d, occ[:-1])


# ------------------------------------------------------------------------------------------
# Table 4.4: the BCE / InfoNCE step against finite differences
# ------------------------------------------------------------------------------------------
def _objective(loss, w, hi, hn, reg):
    xi, xn = w @ hi, hn @ w
    if loss == "bce":
        lval = -np.log(1 / (1 + np.exp(-xi))) - np.sum(np.log(1 - 1 / (1 + np.exp(-xn))))
    else:
        lval = -(xi - np.log(np.exp(xi) + np.exp(xn).sum()))
    return lval, lval + reg / 2 * (w @ w + hi @ hi + np.sum(hn * hn))


@pytest.mark.parametrize(
    "loss,jn", [("bce", [2]), ("bce", [2, 4]), ("infonce", [2, 4]), ("infonce", [3, 3, 5])]
)
def test_contrastive_step_is_a_gradient_step(loss, jn):
    rng = np.random.default_rng(1)
    d, lr, reg = 6, 0.05, 0.01
    U = rng.normal(0, 0.5, (3, d)).astype(np.float32)
    V = rng.normal(0, 0.5, (7, d)).astype(np.float32)
    u, i, jn = 1, 0, np.array(jn)
    n = len(jn)
    # the objective of the flat parameters (w_u, h_i, h_j for each distinct j), float64
    items = [i, *dict.fromkeys(jn.tolist())]
    theta = np.concatenate([U[u], *(V[k] for k in items)]).astype(np.float64)

    def obj(th):
        rows = {k: th[d * (1 + m) : d * (2 + m)] for m, k in enumerate(items)}
        return _objective(loss, th[:d], rows[i], np.array([rows[j] for j in jn]), reg)

    eps = 1e-6
    grad = np.array(
        [
            (obj(theta + eps * e)[1] - obj(theta - eps * e)[1]) / (2 * eps)
            for e in np.eye(len(theta))
        ]
    )
    expect = theta - lr * grad
    stats = np.zeros(4)
    t_indptr, t_indices = np.zeros(4, dtype=np.int64), np.zeros(0, dtype=np.int64)
    code = sgd_mod._LOSSES[loss]
    _sgd_kernels._contrastive_step(
        U,
        V,
        u,
        i,
        jn,
        code,
        np.float32(lr),
        np.float32(reg),
        np.empty(d, np.float32),
        np.empty(n),
        np.empty(n),
        np.empty((n, d), np.float32),
        stats,
        t_indptr,
        t_indices,
    )
    got = np.concatenate([U[u], *(V[k] for k in items)])
    assert np.allclose(got, expect, rtol=0, atol=2e-6)
    assert np.isclose(stats[3], obj(theta)[0], rtol=1e-5)  # the loss before the step
    assert stats[0] == n and stats[1] == 0  # no test items: every negative is a true negative


def test_losses_train_and_bpr_is_unchanged():
    d = _split()
    for loss, name in ((BCE(), "bce"), (InfoNCE(negatives=2), "infonce")):
        for sampler in (RNS(), BNS()):
            r = _fit(d, sampler, loss=loss, epochs=2)
            h = r.history[-1]
            assert np.isfinite(h["loss"]) and 0 < h["tnr"] <= 1 and r.config["loss"] == name
    _same_run(_fit(d, loss=BPR(negatives=1)), _fit(d))
    assert "loss" not in _fit(d).config  # the default config is unchanged


@pytest.mark.parametrize(
    "make,name",
    [
        (lambda: dict(loss=BCE(negatives=0)), "BCE.negatives"),
        (lambda: dict(loss=BPR(negatives=2)), "negatives"),  # the batch-1 BPR takes one negative
        (lambda: dict(loss=BCE(negatives=2), sampler=SRNS()), "loss.negatives"),
        (lambda: dict(sampler=BNS(lam_schedule=[5.0, 5.0])), "lam_schedule"),  # 3 epochs
        (lambda: dict(sampler=BNS(lam_schedule=[5.0, -1.0, 5.0])), "lam_schedule"),
        (lambda: dict(sampler=BNS(warm_rns_epochs=-1)), "warm_rns_epochs"),
        (lambda: dict(sampler=BNS(prior="flat")), "prior"),
        (lambda: dict(sampler=BNS(prior=np.full(7, 0.1))), "prior"),
        (lambda: dict(sampler=BNS(prior=np.full(40, 1.5))), "prior"),
    ],
)
def test_bad_inputs_name_the_parameter(make, name):
    d = _split()
    with pytest.raises(ValueError, match=name):
        _fit(d, **make())


# ------------------------------------------------------------------------------------------
# rows, printed values, CLI
# ------------------------------------------------------------------------------------------
def test_plan_rows_of_tables_43_44():
    rows = plan(["4.3", "4.4"])
    t43 = [r for r in rows if r[0] == "4.3"]
    assert [r[1] for r in t43] == ["RNS", "BNS", "BNS-1", "BNS-2", "BNS-3", "BNS-4"]
    by = {(r[0], r[1], r[2], r[3]): r[4] for r in rows}
    # RNS / BNS of Table 4.3 and BPR of Table 4.4 reuse Table 4.2's runs
    k42 = {r[1]: r[4] for r in plan(["4.2"], ["RNS", "BNS"])}
    assert by[("4.3", "RNS", "BPR-MF SGD", "-")] == by[("4.4", "RNS", "BPR", "-")] == k42["RNS"]
    assert by[("4.3", "BNS", "BPR-MF SGD", "-")] == by[("4.4", "BNS", "BPR", "-")] == k42["BNS"]
    assert by[("4.3", "BNS-2", "BPR-MF SGD", "E=20")] == (
        "sgd",
        "bns",
        5,
        "popularity",
        "rns-warm20",
    )
    assert by[("4.3", "BNS-3", "BPR-MF SGD", "-")] == ("sgd", "bns", 5, "uniform")
    assert by[("4.3", "BNS-4", "BPR-MF SGD", "-")] is None  # not run without u.user
    assert plan(["4.3"], ["BNS-4"], occupation=True)[0][4] == ("sgd", "bns", 5, "occupation")
    assert [r[3] for r in plan(["4.3"], ["BNS-2"], bns2_warm=(20, 50))] == ["E=20", "E=50"]
    assert [(r[1], r[2]) for r in rows if r[0] == "4.4"] == [
        (m, loss) for loss in ("BPR", "BCE", "InfoNCE") for m in ("RNS", "BNS")
    ]
    assert by[("4.4", "BNS", "InfoNCE", "-")] == ("sgd", "bns", 5, "popularity", "infonce")
    with pytest.raises(ValueError, match="bns2_warm"):
        plan(["4.3"], bns2_warm=(7,))


def test_printed_values_of_tables_43_44():
    # spot checks against the thesis text (Tables 4.3 and 4.4, MovieLens-100K, MF)
    assert thesis_value("4.3", "BNS-1", "BPR-MF SGD", "ndcg", 10) == 0.4238
    assert thesis_value("4.3", "BNS-2", "BPR-MF SGD", "precision", 5) == 0.4148
    assert thesis_value("4.3", "BNS-3", "BPR-MF SGD", "recall", 20) == 0.3406
    assert thesis_value("4.3", "BNS-4", "BPR-MF SGD", "ndcg", 20) == 0.4216
    assert thesis_value("4.4", "RNS", "BCE", "ndcg", 5) == 0.4107
    assert thesis_value("4.4", "BNS", "InfoNCE", "precision", 10) == 0.3519
    assert np.isnan(thesis_value("4.4", "BNS", "InfoNCE", "ndcg", 10, dataset="ml-1m"))
    # Table 4.3's RNS / BNS rows and Table 4.4's BPR rows repeat Table 4.2's
    for m in ("RNS", "BNS"):
        assert (
            THESIS[("4.3", m, "BPR-MF SGD")]
            == THESIS[("4.4", m, "BPR")]
            == THESIS[("4.2", m, "BPR-MF SGD")]
        )
    # the orderings the thesis reads off the tables
    nd = {
        m: thesis_value("4.3", m, "BPR-MF SGD", "ndcg", 10)
        for m in ("BNS", "BNS-1", "BNS-2", "BNS-3")
    }
    assert nd["BNS-1"] >= nd["BNS"] > nd["BNS-2"] > nd["BNS-3"]
    for loss in ("BPR", "BCE", "InfoNCE"):
        assert thesis_value("4.4", "BNS", loss, "ndcg", 10) > thesis_value(
            "4.4", "RNS", loss, "ndcg", 10
        )


def test_markdown_and_figure_of_tables_43_44():
    rows = plan(["4.3", "4.4"], bns2_warm=(20, 50))
    recs = [
        dict(
            run=str(key),
            seed=s,
            convention=c,
            metric=m,
            k=k,
            value=0.3 + 0.01 * s,
            epoch=3,
            seconds=1.0,
        )
        for key in {r[4] for r in rows if r[4] is not None}
        for s in range(2)
        for c in ("reported", "max_test_over_epochs (released code)")
        for m in ("precision", "recall", "ndcg")
        for k in (5, 10, 20)
    ]
    df = summarize(rows, pd.DataFrame(recs))
    md = markdown(df)
    assert "| 4.3 | BNS-2 | BPR-MF SGD | E=50 | 0.4132 |" in md
    assert "| 4.3 | BNS-4 | BPR-MF SGD | - | 0.4235 | not run |" in md
    assert "| 4.4 | BNS | InfoNCE | - | 0.4226 |" in md
    fig = figure(df)
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == ["Table 4.3", "Table 4.4"]
    labels = [t.get_text() for t in axes[1].get_xticklabels()]
    assert labels[:2] == ["BPR RNS", "BPR BNS"] and labels[-1] == "InfoNCE BNS"
    assert "BNS-2 [E=50]" in [t.get_text() for t in axes[0].get_xticklabels()]
    # a note longer than the figure is wide is wrapped, not clipped: drawn, the title lies inside the figure
    note = (
        "LightGCN rows: seed 0 only, each step propagated over its own rows (--lightgcn-propagation batch) "
        * 2
    )
    fig = figure(df, note=note)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    box = fig._suptitle.get_window_extent(canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width
    assert (
        " ".join(fig._suptitle.get_text().split())
        == f"MovieLens-100K, MF: negtheory vs thesis {note.strip()}"
    )
    # a panel grows with its table's rows: with 21 rows the 45-degree labels are still at least a line height / sin 45
    # apart (they would overlap in a panel of the 7-row width), so they do not overlap
    short = df[df.table == "4.3"]
    long = pd.concat(
        [short.assign(method=short.method + f" {i}") for i in range(3)], ignore_index=True
    )
    widths = []
    for frame, rows in ((short, 7), (long, 21)):
        fig = figure(frame)
        widths.append(fig.get_size_inches()[0])
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        ax = [a for a in fig.axes if a.get_title()][0]
        px = ax.transData.transform([(x, 0) for x in ax.get_xticks()])[:, 0]
        assert len(px) == rows
        height = ax.get_xticklabels()[0].get_fontsize() * fig.dpi / 72
        assert np.diff(px).min() >= height * 2**0.5, (rows, np.diff(px).min(), height)
    assert widths[1] > widths[0]


def test_cli_runs_bns4_with_a_user_file(tmp_path, capsys):
    d = _split(n_users=20, n_items=30, n=400, n_test=100)
    pd.DataFrame({"user": d.user_ids[d.train[:, 0]], "item": d.item_ids[d.train[:, 1]]}).to_csv(
        tmp_path / "train.csv", index=False
    )
    pd.DataFrame({"user": d.user_ids[d.test[:, 0]], "item": d.item_ids[d.test[:, 1]]}).to_csv(
        tmp_path / "test.csv", index=False
    )
    (tmp_path / "u.user").write_text("".join(f"{u + 1}|30|F|{'ab'[u % 2]}|0\n" for u in range(20)))
    base = [
        "reproduce",
        "thesis-tables",
        "--train",
        str(tmp_path / "train.csv"),
        "--test",
        str(tmp_path / "test.csv"),
    ]
    base += [
        "--tables",
        "4.3",
        "--methods",
        "BNS-4",
        "BNS-3",
        "--seeds",
        "1",
        "--epochs",
        "1",
        "--quiet",
    ]
    base += ["--out", str(tmp_path / "out"), "--user-file", str(tmp_path / "u.user")]
    assert main(base + ["--user-id-offset", "-1"]) == 0
    df = pd.read_csv(tmp_path / "out" / "thesis_tables.csv", dtype={"table": str})
    assert set(df[df.n_seeds == 1].method) == {"BNS-3", "BNS-4"}
    capsys.readouterr()
    assert main(base) != 0  # u.user is 1-based: without the offset user 0 has no line
    assert "--user-id-offset" in capsys.readouterr().err
