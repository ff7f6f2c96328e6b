"""LightGCN on the one mini-batch trainer (issue 22 item 3): propagation, gradients, learning, options."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from negtheory import training as T  # noqa: E402
from negtheory._rng import int_seed  # noqa: E402
from negtheory.bridge.recommend import LightGCN, normalized_adjacency  # noqa: E402
from negtheory.recsys import load_split, topk_metrics  # noqa: E402


def _dense_propagation(pairs, n_users, n_items, e0, n_layers):
    """Independent reference: dense D^-1/2 A D^-1/2, its powers applied to e0, mean over layers."""
    n = n_users + n_items
    a = np.zeros((n, n))
    for u, i in pairs:
        a[u, n_users + i] = a[n_users + i, u] = 1.0
    deg = a.sum(1)
    inv = np.where(deg > 0, 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0)), 0.0)
    norm = inv[:, None] * a * inv[None, :]
    layers = [np.linalg.matrix_power(norm, k) @ e0 for k in range(n_layers + 1)]
    e = np.mean(layers, axis=0)
    return e[:n_users], e[n_users:]


# a small graph with a repeated pair, a user of degree 1, an item nobody interacted with (4)
PAIRS = np.array([[0, 0], [0, 1], [1, 1], [1, 2], [2, 3], [3, 0], [3, 1], [3, 3], [0, 1]])


@pytest.mark.parametrize("n_layers", [0, 1, 2, 3])
def test_propagation_equals_dense_adjacency_powers(n_layers):
    # float64 embeddings; the normalisation constants 1 / sqrt(|N_u| |N_i|) are stored in float32
    m = LightGCN(
        4, 5, PAIRS, dim=3, n_layers=n_layers, generator=torch.Generator().manual_seed(1)
    ).double()
    e0 = np.concatenate([m.user.weight.detach().numpy(), m.item.weight.detach().numpy()])
    ru, ri = _dense_propagation(np.unique(PAIRS, axis=0), 4, 5, e0, n_layers)
    eu, ei = m.propagate()
    np.testing.assert_allclose(eu.detach().numpy(), ru, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ei.detach().numpy(), ri, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(m.all_scores().numpy(), ru @ ri.T, rtol=1e-6, atol=1e-9)
    users, items = torch.tensor([0, 3, 2]), torch.tensor([[0, 4], [1, 3], [2, 2]])
    ref = np.einsum("bd,bkd->bk", ru[users.numpy()], ri[items.numpy()])
    np.testing.assert_allclose(m(users, items).detach().numpy(), ref, rtol=1e-6, atol=1e-9)


def test_normalized_adjacency_entries_and_bad_input():
    a = normalized_adjacency(PAIRS, 4, 5).to_dense().numpy()
    assert a.shape == (9, 9)
    np.testing.assert_allclose(a, a.T)
    # user 0 has items {0, 1}; item 1 has users {0, 1, 3}: 1 / sqrt(2 * 3)
    assert a[0, 4 + 1] == pytest.approx(1 / np.sqrt(6))
    assert a[:, 4 + 4].sum() == 0.0  # item 4: no neighbour
    with pytest.raises(ValueError, match="pairs"):
        normalized_adjacency(np.array([[0, 9]]), 4, 5)
    with pytest.raises(ValueError, match="pairs"):
        normalized_adjacency(np.array([0, 1]), 4, 5)
    with pytest.raises(ValueError, match="n_layers"):
        LightGCN(4, 5, PAIRS, n_layers=-1)


def test_gradients_flow_through_the_graph():
    # user 2's only item is 3; item 3's users are 2 and 3; user 3's items are 0, 1, 3
    for n_layers, reaches in ((0, False), (1, True), (2, True)):
        m = LightGCN(
            4, 5, PAIRS, dim=4, n_layers=n_layers, generator=torch.Generator().manual_seed(0)
        )
        m(torch.tensor([2]), torch.tensor([[3]])).sum().backward()
        gu, gi = m.user.weight.grad, m.item.weight.grad
        assert gu[2].abs().sum() > 0 and gi[3].abs().sum() > 0
        # one layer: e_2 and e_3 mix the layer-0 rows of their neighbours (user 3 is item 3's neighbour)
        assert bool(gu[3].abs().sum() > 0) is reaches
        assert bool(gi[4].abs().sum() == 0)  # an isolated item never receives gradient


def _planted(seed=0, n_users=60, n_items=48, groups=3):
    """Each user likes the items of its group; 70 % of a user's liked items train, the rest test."""
    rng = np.random.default_rng(seed)
    per = n_items // groups
    train, test = [], []
    for u in range(n_users):
        g = u % groups
        items = rng.permutation(np.arange(g * per, (g + 1) * per))[: rng.integers(8, per)]
        k = int(0.7 * len(items))
        train += [(u, i) for i in items[:k]]
        test += [(u, i) for i in items[k:]]
    return load_split(np.array(train), np.array(test))


@pytest.mark.parametrize(
    "loss, sampler",
    [
        (T.BPR(), T.RNS()),
        (T.InfoNCE(), T.RNS()),
        (T.BPR(), T.BNS()),
        (T.BPR(), T.AOBPR()),
        (T.BPR(), T.SRNS()),
    ],
    ids=repr,
)
def test_short_training_learns_the_planted_groups(loss, sampler):
    d = _planted()
    # the thesis's LightGCN settings, 8 epochs of batch 64 with the lr cut after epoch 6
    opt = T.THESIS_LIGHTGCN["optimizer"].replace(batch_size=64, milestones=(6,))
    r = T.fit(
        d,
        model=T.THESIS_LIGHTGCN["model"],
        loss=loss,
        sampler=sampler,
        optimizer=opt,
        epochs=8,
        evaluation=T.Evaluation(every=8, ks=(5,)),
        rng=0,
    )
    ndcg = r.history[-1]["test_ndcg@5"]
    # baselines: popularity (training counts) and random scores, ranked the same way
    pop = np.broadcast_to(d.item_counts().astype(float), (d.n_users, d.n_items))
    base_pop = topk_metrics(pop, d.test_mask(), d.train_mask(), (5,))["ndcg@5"]
    rnd = np.random.default_rng(1).random((d.n_users, d.n_items))
    base_rnd = topk_metrics(rnd, d.test_mask(), d.train_mask(), (5,))["ndcg@5"]
    assert isinstance(r.model, LightGCN) and r.config["model"] == "lightgcn"
    assert ndcg > max(base_pop, base_rnd) + 0.3, (ndcg, base_pop, base_rnd)


def test_options_are_validated():
    d = _planted()
    with pytest.raises(TypeError, match="model"):
        T.fit(d, model="gcn", epochs=1)
    with pytest.raises(ValueError, match=r"Adam\.penalty"):
        T.Adam(penalty="l1")
    with pytest.raises(ValueError, match=r"LightGCN\.layers"):
        T.LightGCN(layers=-1)


def test_batch_l2_is_the_release_penalty_and_preset_matches_the_thesis():
    assert (
        T.THESIS_LIGHTGCN["model"] == T.LightGCN(dim=32, layers=1)
        and T.THESIS_LIGHTGCN["epochs"] == 100
    )
    assert T.THESIS_LIGHTGCN["optimizer"] == T.Adam(
        lr=0.01,
        milestones=(20, 40, 60, 80),
        gamma=0.1,
        batch_size=128,
        weight_decay=1e-5,
        penalty="weight_decay",
    )
    # one full-batch SGD step: the two runs draw the same negatives, so their difference is the penalty's step
    d = _planted()
    n = len(d.train)

    def user_table(penalty, weight_decay):
        opt = T.SGD(
            lr=0.1, weight_decay=weight_decay, penalty=penalty, batch_size=n, milestones=(100,)
        )
        r = T.fit(
            d,
            model=T.LightGCN(),
            loss=T.BPR(),
            optimizer=opt,
            epochs=1,
            evaluation=T.Evaluation(ks=(5,)),
            rng=0,
        )
        assert r.engine == "torch"
        return r.model.user.weight.detach().numpy()

    e0 = LightGCN(
        d.n_users,
        d.n_items,
        d.train,
        32,
        1,
        generator=torch.Generator().manual_seed(int_seed("rng", 0)),
    )
    u0 = e0.user.weight.detach().numpy()
    free = user_table("batch", 0.0)
    batch = user_table("batch", 2.0)
    decay = user_table("weight_decay", 2.0)
    deg = np.bincount(d.train[:, 0], minlength=d.n_users)
    # batch L2: d/de_u of 2 * 0.5 * sum over the batch's rows of |e_u|^2 / B = 2 * deg_u * e_u / B
    np.testing.assert_allclose(
        batch - free, -0.1 * 2.0 * deg[:, None] * u0 / n, rtol=1e-4, atol=1e-7
    )
    # weight decay: 2 * e_u on every row, whatever the batch
    np.testing.assert_allclose(decay - free, -0.1 * 2.0 * u0, rtol=1e-4, atol=1e-7)


def test_gradient_of_the_propagation_is_exact():
    m = LightGCN(
        4, 5, PAIRS, dim=2, n_layers=2, generator=torch.Generator().manual_seed(3)
    ).double()
    users, items = torch.tensor([0, 2, 3]), torch.tensor([[1, 3], [3, 0], [2, 4]])

    def f(wu, wi):
        m.user.weight.data, m.item.weight.data = wu, wi
        with torch.no_grad():
            pass
        e = torch.cat([wu, wi])
        acc = e
        from negtheory.bridge.recommend import _SymmetricSpMM

        for _ in range(m.n_layers):
            e = _SymmetricSpMM.apply(m.adj, e)
            acc = acc + e
        acc = acc / (m.n_layers + 1)
        return (acc[:4][users][:, None, :] * acc[4:][items]).sum(-1)

    wu = m.user.weight.detach().clone().requires_grad_()
    wi = m.item.weight.detach().clone().requires_grad_()
    assert torch.autograd.gradcheck(f, (wu, wi))


# ------------------------------------------------------------------------------------------
# the printed LightGCN rows and `negtheory reproduce thesis-tables --models lightgcn`
# ------------------------------------------------------------------------------------------
def test_printed_lightgcn_rows_are_the_second_blocks():
    from negtheory.reproduce.thesis_numbers import THESIS, THESIS_YAHOO

    rows = {
        "4.2": ("RNS", "PNS", "AOBPR", "DNS", "SRNS", "BNS"),
        "5.2": ("BPR", "InfoNCE", "DCL", "HCL", "DPL"),
        "6.3": ("InfoNCE", "DCL", "HCL", "BCL"),
    }
    for t, methods in rows.items():
        ndcg = {m: THESIS[(t, m, "LightGCN")][("ndcg", 10)] for m in methods}
        assert (
            max(ndcg, key=ndcg.get) == {"4.2": "BNS", "5.2": "DPL", "6.3": "BCL"}[t]
        )  # the bold cells
    # repeats the thesis prints: Table 5.2's BPR row is Table 4.2's RNS row; Table 6.3 repeats Table 5.2
    assert THESIS[("5.2", "BPR", "LightGCN")] == THESIS[("4.2", "RNS", "LightGCN")]
    for m in ("InfoNCE", "DCL", "HCL"):
        assert THESIS[("5.2", m, "LightGCN")] == THESIS[("6.3", m, "LightGCN")]
    # spot checks against the thesis text
    assert THESIS[("4.2", "BNS", "LightGCN")][("ndcg", 10)] == 0.4368
    assert THESIS[("5.2", "DPL", "LightGCN")][("precision", 5)] == 0.4333
    assert THESIS[("6.3", "BCL", "LightGCN")][("recall", 20)] == 0.3599

    # 5 P@5 / R@5 tracks the test items per user (Table 4.1: 21 on ML-100K, 6.7 on Yahoo!-R3)
    def ratio(r):
        return 5 * r[("precision", 5)] / r[("recall", 5)]

    assert (
        14 < ratio(THESIS[("4.2", "RNS", "LightGCN")]) < 17
        and 14 < ratio(THESIS[("4.2", "RNS", "BPR-MF SGD")]) < 17
    )
    # the fifth block of Table 4.2 (printed "100K MF") is Yahoo!-R3 MF, not ML-100K LightGCN
    assert 6 < ratio(THESIS_YAHOO[("4.2", "RNS", "BPR-MF SGD")]) < 8


def test_plan_with_lightgcn():
    from negtheory.reproduce.thesis_tables import plan

    rows = plan(
        ["4.2", "5.2", "6.3"],
        ["RNS", "BNS", "BPR", "PNS", "AOBPR", "DNS", "BCL"],
        models=["lightgcn"],
    )
    assert rows == [
        ("4.2", "RNS", "LightGCN", "-", ("lightgcn", "bpr", "rns")),
        ("4.2", "PNS", "LightGCN", "-", ("lightgcn", "bpr", "pns")),
        (
            "4.2",
            "AOBPR",
            "LightGCN",
            "-",
            ("lightgcn", "bpr", "aobpr"),
        ),  # negtheory.recsys.adaptive_samplers
        ("4.2", "DNS", "LightGCN", "-", ("lightgcn", "bpr", "dns")),
        ("4.2", "BNS", "LightGCN", "-", ("lightgcn", "bpr", "bns")),
        ("5.2", "BPR", "LightGCN", "-", ("lightgcn", "bpr", "rns")),
        ("6.3", "BCL", "LightGCN", "-", ("lightgcn", "bcl", "rns")),
    ]
    assert plan(["5.2"], ["DPL"]) == [("5.2", "DPL", "MF", "-", ("mf", "dpl"))]  # default: MF only
    both = plan(["5.2"], ["DPL"], models=["mf", "lightgcn"])
    assert [r[2] for r in both] == ["MF", "LightGCN"]
    with pytest.raises(ValueError, match="models"):
        plan(["5.2"], models=["gcn"])
    # a named LightGCN reading adds its own rows (and runs) beside Table 4.2's RNS / BNS
    var = plan(["4.2"], ["RNS"], models=["lightgcn"], lightgcn_variants=["batch1024"])
    assert var == [
        ("4.2", "RNS", "LightGCN", "-", ("lightgcn", "bpr", "rns")),
        ("4.2", "RNS", "LightGCN", "batch1024", ("lightgcn", "bpr", "rns", "batch1024")),
    ]
    with pytest.raises(ValueError, match="lightgcn_variants"):
        plan(["4.2"], models=["lightgcn"], lightgcn_variants=["batch7"])
    # ... and beside every LightGCN row of Tables 5.2 / 6.3: one reading for the whole table, never crossed with
    # the τ⁺ reading, and the MF rows untouched
    rows = plan(
        ["5.2", "6.3"],
        ["BPR", "DCL"],
        models=["mf", "lightgcn"],
        lightgcn_variants=["batch-l2"],
        tau_variants=["density"],
        dataset="gowalla",
    )
    lg = [r for r in rows if r[2] == "LightGCN"]
    assert [(r[0], r[1], r[3]) for r in lg] == [
        ("5.2", "BPR", "-"),
        ("5.2", "BPR", "batch-l2"),
        ("5.2", "DCL", "-"),
        ("5.2", "DCL", "tau=density"),
        ("5.2", "DCL", "batch-l2"),
        ("6.3", "DCL", "-"),
        ("6.3", "DCL", "tau=density"),
        ("6.3", "DCL", "batch-l2"),
    ]
    assert ("5.2", "DCL", "LightGCN", "batch-l2", ("lightgcn", "dcl", "rns", "batch-l2")) in lg
    assert all(r[3] != "batch-l2" for r in rows if r[2] == "MF")


def test_lightgcn_variant_trains_with_its_settings(monkeypatch):
    from types import SimpleNamespace

    from negtheory.reproduce import thesis_tables as tt

    seen = {}

    def fake_fit(data, **kw):
        seen.update(kw)
        return SimpleNamespace(history=[{"epoch": 1, "test_ndcg@10": 0.5}])

    monkeypatch.setattr(T, "fit", fake_fit)
    d = _planted(seed=3, n_users=10, n_items=30)
    tt._job(
        d,
        (("lightgcn", "bpr", "bns", "batch1024"), 0, "", "", None, "fixed", 0.1, 5, False, "auto"),
    )
    thesis = T.THESIS_LIGHTGCN
    assert (
        seen["optimizer"] == thesis["optimizer"].replace(batch_size=1024)
        and seen["sampler"] == T.BNS()
    )
    assert seen["model"] == thesis["model"] and seen["loss"] == T.BPR() and seen["epochs"] == 100
    assert seen["device"] == "cpu"  # a ten-field task: the CPU; the runner's tasks carry --device
    # a Table 5.2 row's reading, run with batch propagation: the loss, the reading and the propagation all reach fit
    seen.clear()
    key = ("lightgcn", "dcl", "rns", "batch-l2", "propagation=batch")
    tt._job(d, (key, 0, "", "", None, "fixed", 0.1, 5, False, "auto"))
    assert (
        seen["loss"],
        seen["sampler"],
        seen["optimizer"].penalty,
        seen["model"].propagation,
    ) == (T.DCL(), T.RNS(), "batch", "batch")


@pytest.mark.parametrize(
    "variant, setting",
    [
        ("batch-l2", {"reg": "batch"}),
        ("layers3", {"n_layers": 3}),
        ("no-decay", {"lr_milestones": ()}),
    ],
)
def test_lightgcn_readings_change_one_setting_and_train(variant, setting):
    """Each named reading of the LightGCN rows changes its one setting of the thesis's, and a real run takes it."""
    from negtheory.reproduce._run_keys import LIGHTGCN_KEYWORDS, minibatch_fit_args
    from negtheory.reproduce.thesis_plan import LIGHTGCN_VARIANTS

    assert LIGHTGCN_VARIANTS[variant] == setting
    args = minibatch_fit_args(loss="bpr", **{**LIGHTGCN_KEYWORDS, **setting, "epochs": 2})
    thesis = T.THESIS_LIGHTGCN
    changed = [role for role in ("model", "optimizer") if args[role] != thesis[role]]
    assert changed == (["model"] if variant == "layers3" else ["optimizer"])
    d = _planted(seed=4, n_users=20, n_items=30)
    hist = T.fit(d, **args).history
    assert [h["epoch"] for h in hist] == [1, 2] and all(
        np.isfinite(h["test_ndcg@10"]) for h in hist
    )


def test_reproduce_thesis_tables_with_lightgcn(tmp_path):
    import pandas as pd

    from negtheory.cli import main

    d = _planted(seed=2, n_users=24, n_items=30)
    pd.DataFrame({"user": d.train[:, 0], "item": d.train[:, 1]}).to_csv(
        tmp_path / "train.csv", index=False
    )
    pd.DataFrame({"user": d.test[:, 0], "item": d.test[:, 1]}).to_csv(
        tmp_path / "test.csv", index=False
    )
    out = tmp_path / "out"
    args = [
        "reproduce",
        "thesis-tables",
        "--train",
        str(tmp_path / "train.csv"),
        "--test",
        str(tmp_path / "test.csv"),
    ]
    args += [
        "--tables",
        "4.2",
        "5.2",
        "--methods",
        "RNS",
        "BNS",
        "AOBPR",
        "SRNS",
        "BPR",
        "DPL",
        "--models",
        "mf",
        "lightgcn",
    ]
    args += ["--seeds", "2", "--epochs", "2", "--eval-every", "1", "--out", str(out), "--quiet"]
    assert main(args) == 0
    df = pd.read_csv(out / "thesis_tables.csv", dtype={"table": str})
    rows = df[(df.metric == "ndcg") & (df.k == 10) & (df.convention == "final epoch")].set_index(
        ["table", "method", "setting"]
    )
    assert rows.loc[("4.2", "BNS", "LightGCN"), "thesis"] == 0.4368
    assert (
        rows.loc[("5.2", "DPL", "LightGCN"), "n_seeds"] == 2
        and rows.loc[("5.2", "DPL", "MF"), "n_seeds"] == 2
    )
    assert (
        rows.loc[("4.2", "AOBPR", "LightGCN"), "n_seeds"] == 2
        and rows.loc[("4.2", "SRNS", "LightGCN"), "n_seeds"] == 2
    )
    # Table 5.2's BPR row reuses Table 4.2's RNS runs
    assert (
        rows.loc[("5.2", "BPR", "LightGCN"), "mean"] == rows.loc[("4.2", "RNS", "LightGCN"), "mean"]
    )
    runs = pd.read_csv(out / "runs.csv")
    assert {
        "('lightgcn', 'bpr', 'rns')",
        "('lightgcn', 'bpr', 'bns')",
        "('lightgcn', 'dpl', 'rns')",
        "('lightgcn', 'bpr', 'aobpr')",
        "('lightgcn', 'bpr', 'srns')",
    } <= set(runs.run)
    assert "models: mf, lightgcn" in (out / "thesis_tables.md").read_text()


def test_bns_choice_matches_a_loop_over_the_risk():
    from negtheory.bridge.recommend import StepScores
    from negtheory.recsys import bns_prior
    from negtheory.training import BNS

    d = _planted(seed=4)
    model = LightGCN(
        d.n_users, d.n_items, d.train, 8, 2, generator=torch.Generator().manual_seed(0)
    )
    prior = bns_prior(d.item_counts(), len(d.train))
    bound = BNS(candidates=4).bind(d)
    rng = np.random.default_rng(1)
    b = d.train[rng.choice(len(d.train), 16, replace=False)]
    free = ~d.train_mask()
    cand = np.stack([rng.choice(np.flatnonzero(free[u]), 4) for u in b[:, 0]])
    # the choice on the model's device (the trainer's) and in numpy (a user's loop, a score matrix)
    got = cand[np.arange(16), bound.choose(b[:, 0], b[:, 1], cand, StepScores(model), 5.0, rng)]
    dense = model.all_scores().numpy()
    assert np.array_equal(
        got, cand[np.arange(16), bound.choose(b[:, 0], b[:, 1], cand, dense, 5.0, rng)]
    )
    sc = model.all_scores().numpy().astype(np.float64)
    for row, (u, i) in enumerate(b):
        negs = sc[u, free[u]]
        risks = []
        for c in cand[row]:
            f = np.sum(negs <= sc[u, c]) / (len(negs) + 1.0)
            p = prior[c]
            unbias = (1 - f) * (1 - p) / (1 - f - p + 2 * f * p)
            risks.append(1 / (1 + np.exp(-(sc[u, c] - sc[u, i]))) * (1 - 6.0 * unbias))
        assert got[row] == cand[row][int(np.argmin(risks))]


def test_minibatch_pns_draws_popular_non_interacted_negatives(monkeypatch):
    # sampler=PNS(power) routes every negative through sample_popular with the training counts and
    # the power (its law is tested in test_recsys); the drawn items are never training items
    from negtheory.recsys import samplers as recsys_samplers

    d = _planted(seed=4, n_users=12, n_items=40)
    seen = []
    real = (
        recsys_samplers.sample_popular
    )  # the PNS spec's draw, shared by the engine and a user's loop

    def spy(users, n, mask, counts, rng, power, **kw):
        out = real(users, n, mask, counts, rng, power, **kw)
        seen.append(
            (np.asarray(counts).copy(), power, n, d.train_mask()[users[:, None], out].any())
        )
        return out

    monkeypatch.setattr(recsys_samplers, "sample_popular", spy)
    r = T.fit(
        d,
        loss=T.InfoNCE(negatives=3),
        sampler=T.PNS(power=0.5),
        optimizer=T.Adam(batch_size=64, milestones=(100,)),
        epochs=2,
        evaluation=T.Evaluation(ks=(5,)),
    )
    assert seen and all(p == 0.5 and n == 3 and not hit for _, p, n, hit in seen)
    np.testing.assert_array_equal(seen[0][0], d.item_counts())
    assert (
        r.config["sampler"] == "pns"
        and r.config["pns_power"] == 0.5
        and "candidates" not in r.config
    )
    assert np.isfinite(r.history[-1]["loss"])
    with pytest.raises(ValueError, match=r"PNS\.power"):
        T.PNS(power=-1.0)
