"""LightGCN's batch propagation (negtheory.bridge.graph_rows): the rows of the last layer for a step's nodes.

Checked against independent computations: the dense float64 product Ã x and its transpose for the rows and
their gradient, and the whole-graph propagation (torch's sparse CSR product) for the model's scores,
gradients and a short training run.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import negtheory.bridge.graph_rows as gr  # noqa: E402
from negtheory import training  # noqa: E402
from negtheory.bridge.graph_rows import adjacency_rows, csr_parts  # noqa: E402
from negtheory.bridge.recommend import LightGCN  # noqa: E402
from negtheory.recsys import load_split  # noqa: E402
from negtheory.training import specs as S  # noqa: E402


def _graph(seed=0, n_users=9, n_items=13, n=50):
    rng = np.random.default_rng(seed)
    pairs = np.unique(rng.integers(0, [n_users, n_items], size=(n, 2)), axis=0)
    return pairs, n_users, n_items


@pytest.fixture(params=[True, False], ids=["numba", "torch-ops"])
def kernels(request, monkeypatch):
    # the torch-ops path is what a GPU runs; forcing it on the CPU checks the same sums on this machine
    if not request.param:
        monkeypatch.setattr(gr, "_use_kernels", lambda t: False)
    return request.param


@pytest.mark.parametrize(
    "add_self, divisor", [(False, 1.0), (True, 2.0), (True, 3.0), (False, 4.0)]
)
def test_rows_and_their_gradient_equal_the_dense_product(kernels, add_self, divisor):
    pairs, nu, ni = _graph()
    m = LightGCN(nu, ni, pairs, dim=4)
    dense = m.adj.to_dense().double()  # the reference: Ã as a dense float64 matrix
    rng = np.random.default_rng(1)
    xu = torch.from_numpy(rng.normal(size=(nu, 4)).astype(np.float32)).requires_grad_()
    xi = torch.from_numpy(rng.normal(size=(ni, 4)).astype(np.float32)).requires_grad_()
    nodes = torch.tensor(
        [3, nu + 5, 0, 3, nu + ni - 1, nu]
    )  # any order, a repeat, both ends of each side
    out = adjacency_rows(xu, xi, csr_parts(m.adj), nodes, add_self=add_self, divisor=divisor)
    x64 = torch.cat([xu, xi]).detach().double()
    op = (
        dense + torch.eye(nu + ni, dtype=torch.float64) * add_self
    ) / divisor  # (add_self I + Ã) / c
    np.testing.assert_allclose(
        out.detach().numpy(), (op @ x64)[nodes].numpy(), rtol=1e-6, atol=1e-6
    )
    g = torch.from_numpy(rng.normal(size=(len(nodes), 4)).astype(np.float32))
    out.backward(g)
    # d/dx of <g, (op x)[nodes]> = op^T S^T g, with S the selection of the rows (repeats add up)
    sel = torch.zeros(len(nodes), nu + ni, dtype=torch.float64)
    sel[torch.arange(len(nodes)), nodes] = 1.0
    ref = op.T @ (sel.T @ g.double())
    np.testing.assert_allclose(xu.grad.numpy(), ref[:nu].numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(xi.grad.numpy(), ref[nu:].numpy(), rtol=1e-6, atol=1e-6)


def test_a_node_without_neighbours_gets_a_zero_row():
    pairs = np.array([[0, 0], [1, 0]])  # user 2 and item 1 have no training pair
    m = LightGCN(3, 2, pairs, dim=2)
    xu, xi = torch.ones(3, 2, requires_grad=True), torch.ones(2, 2, requires_grad=True)
    out = adjacency_rows(xu, xi, csr_parts(m.adj), torch.tensor([2, 4]))
    assert torch.equal(out, torch.zeros(2, 2))
    out.sum().backward()
    assert not xu.grad.any() and not xi.grad.any()


@pytest.mark.parametrize("n_layers", [0, 1, 2, 3])
def test_batch_propagation_gives_the_whole_graph_scores_and_gradients(n_layers, kernels):
    pairs, nu, ni = _graph(2, 15, 20, 90)
    models = [
        LightGCN(
            nu,
            ni,
            pairs,
            dim=6,
            n_layers=n_layers,
            generator=torch.Generator().manual_seed(0),
            propagation=p,
        )
        for p in ("full", "batch")
    ]
    users = torch.tensor([0, 4, 4, 14, 7])
    items = torch.tensor([[1, 2, 19], [0, 0, 5], [3, 8, 1], [19, 18, 17], [6, 6, 6]])
    res = []
    for m in models:
        s = m(users, items)
        loss = torch.logsumexp(s, 1).mean() - s[:, 0].mean()
        loss.backward()
        res.append((s.detach(), m.user.weight.grad, m.item.weight.grad))
    (s_full, gu_full, gi_full), (s_batch, gu_batch, gi_batch) = res
    torch.testing.assert_close(s_batch, s_full, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(gu_batch, gu_full, rtol=1e-5, atol=1e-7)
    torch.testing.assert_close(gi_batch, gi_full, rtol=1e-5, atol=1e-7)
    assert gi_full.abs().sum() > 0  # the comparison is not between two zero gradients


def test_training_with_batch_propagation_follows_the_whole_graph_run():
    # same seeds, same draws: the two runs differ only in float rounding of the propagation, so after a few
    # hundred Adam steps their metrics still agree to rounding (a wrong row or gradient would not)
    rng = np.random.default_rng(3)
    pairs = np.unique(rng.integers(0, [40, 60], size=(900, 2)), axis=0)
    perm = rng.permutation(len(pairs))
    data = load_split(pairs[perm[:700]], pairs[perm[700:]])
    opt = S.Adam(lr=0.01, batch_size=32, milestones=(100,))
    runs = [
        training.fit(
            data, model=S.LightGCN(propagation=p), loss=S.DCL(), optimizer=opt, epochs=3, rng=5
        )
        for p in ("full", "batch")
    ]
    for h_full, h_batch in zip(runs[0].history, runs[1].history):
        assert h_batch["loss"] == pytest.approx(h_full["loss"], rel=1e-4)
        for k in ("test_ndcg@10", "test_recall@20", "test_precision@5"):
            assert h_batch[k] == pytest.approx(h_full[k], abs=2e-3)
    assert runs[1].model.propagation == "batch"
    assert runs[1].history[-1]["test_ndcg@10"] > runs[1].history[0]["test_ndcg@10"] - 0.05


def test_bad_input_is_refused_with_the_parameter_named():
    pairs, nu, ni = _graph()
    m = LightGCN(nu, ni, pairs, dim=4)
    adj = csr_parts(m.adj)
    xu, xi = torch.zeros(nu, 4), torch.zeros(ni, 4)
    with pytest.raises(ValueError, match="nodes must lie"):
        adjacency_rows(xu, xi, adj, torch.tensor([nu + ni]))
    with pytest.raises(ValueError, match="nodes must be a 1-d int64"):
        adjacency_rows(xu, xi, adj, torch.tensor([0.0]))
    with pytest.raises(ValueError, match="same d"):
        adjacency_rows(xu, torch.zeros(ni, 3), adj, torch.tensor([0]))
    with pytest.raises(ValueError, match="adj has"):
        adjacency_rows(torch.zeros(nu + 1, 4), xi, adj, torch.tensor([0]))
    with pytest.raises(ValueError, match="divisor"):
        adjacency_rows(xu, xi, adj, torch.tensor([0]), divisor=0.0)
    with pytest.raises(ValueError, match="dtype"):
        adjacency_rows(xu.double(), xi.double(), adj, torch.tensor([0]))
    with pytest.raises(ValueError, match="propagation"):
        LightGCN(nu, ni, pairs, propagation="rows")
    with pytest.raises(ValueError, match="LightGCN.propagation"):
        S.LightGCN(propagation="rows")


def test_thesis_tables_batch_propagation_runs_apart_and_resumes_from_its_checkpoint(
    tmp_path, monkeypatch
):
    import pandas as pd

    import negtheory.bridge.recommend as rec
    from negtheory.cli import main

    rng = np.random.default_rng(4)
    pairs = np.unique(rng.integers(0, [30, 40], size=(500, 2)), axis=0)
    perm = rng.permutation(len(pairs))
    pd.DataFrame(pairs[perm[:400]], columns=["user", "item"]).to_csv(
        tmp_path / "train.csv", index=False
    )
    pd.DataFrame(pairs[perm[400:]], columns=["user", "item"]).to_csv(
        tmp_path / "test.csv", index=False
    )
    out = tmp_path / "out"
    seen = []
    real_fit = training.fit

    def spy(*a, **kw):
        seen.append((kw["model"].propagation, kw.get("checkpoint")))
        return real_fit(*a, **kw)

    monkeypatch.setattr(training, "fit", spy)
    args = [
        "reproduce",
        "thesis-tables",
        "--train",
        str(tmp_path / "train.csv"),
        "--test",
        str(tmp_path / "test.csv"),
        "--tables",
        "5.2",
        "--methods",
        "InfoNCE",
        "--models",
        "lightgcn",
        "--lightgcn-propagation",
        "batch",
        "--checkpoints",
        "--seeds",
        "1",
        "--epochs",
        "2",
        "--eval-every",
        "1",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(args) == 0
    (cached,) = (out / "runs").glob("lightgcn_infonce_rns_propagation=batch_seed0_*.json")
    (ck,) = (out / "checkpoints").glob("*.pt")
    assert ck.stem == cached.stem and seen == [("batch", str(ck))]
    df = pd.read_csv(out / "thesis_tables.csv", dtype={"table": str})
    row = df[
        (df.method == "InfoNCE") & (df.setting == "LightGCN") & (df.metric == "ndcg") & (df.k == 10)
    ]
    assert (
        len(row) > 0 and row["n_seeds"].iloc[0] == 1
    )  # the run fills the printed row: its key is the row's
    assert (
        "--lightgcn-propagation batch" in (out / "thesis_tables.md").read_text()
    )  # the report says how it ran
    first = pd.read_csv(out / "runs.csv")
    assert set(first.run) == {"('lightgcn', 'infonce', 'rns')"}
    # the cached result gone, the command again: the run resumes from its checkpoint at epoch 2 and trains nothing
    cached.unlink()
    monkeypatch.setattr(
        rec._MFRunner, "run_epoch", lambda *a, **k: pytest.fail("an epoch was trained again")
    )
    assert main(args) == 0
    again = pd.read_csv(out / "runs.csv")
    pd.testing.assert_frame_equal(again.drop(columns="seconds"), first.drop(columns="seconds"))
    # refused without a cache to put the checkpoints beside
    import negtheory.reproduce.thesis_tables as tt

    with pytest.raises(ValueError, match="checkpoints needs a cache_dir"):
        tt.run_tables(
            tmp_path / "train.csv",
            tmp_path / "test.csv",
            tt.TableOptions(tables=["5.2"], checkpoints=True),
        )
    with pytest.raises(ValueError, match="lightgcn_propagation"):
        tt.TableOptions(lightgcn_propagation="rows").check()
