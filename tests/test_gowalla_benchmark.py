"""``negtheory reproduce gowalla-benchmark`` on a small LightGCN-format split the test writes (issue 29 item 4),
and the TimeBudget callback that bounds its runs."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from negtheory import cli
from negtheory.recsys.loop import TimeBudget, train_loop

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def gowalla_like(tmp_path_factory):
    """The release's format: one line per user, the user id then its item ids (train.txt / test.txt)."""
    root = tmp_path_factory.mktemp("gowalla")
    g = np.random.default_rng(0)
    tr, te = [], []
    for u in range(60):
        items = g.choice(80, 12, replace=False)
        tr.append(" ".join(map(str, [u, *items[:9]])))
        te.append(" ".join(map(str, [u, *items[9:]])))
    (root / "train.txt").write_text("\n".join(tr) + "\n")
    (root / "test.txt").write_text("\n".join(te) + "\n")
    return root


def test_quick_ladder_writes_its_files_and_resumes(gowalla_like, tmp_path, capsys):
    argv = [
        "reproduce",
        "gowalla-benchmark",
        "--data",
        str(gowalla_like),
        "--quick",
        "--device",
        "cpu",
        "--rungs",
        "bpr",
        "bpr-300",
        "infonce",
        "bcl",
        "--out",
        str(tmp_path),
        "--quiet",
    ]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    for name in (
        "gowalla_benchmark.csv",
        "gowalla_benchmark_runs.csv",
        "gowalla_benchmark.md",
        "gowalla_benchmark.png",
    ):
        assert (tmp_path / name).exists() and name in out
    runs = pd.read_csv(tmp_path / "gowalla_benchmark_runs.csv")
    assert list(runs.rung) == ["bpr", "bpr-300", "infonce", "bcl"]
    assert (runs.epochs_run == 2).all() and runs.recall20.between(0, 1).all()
    # the metrics are the test metrics at the best validation epoch, and never above their maximum over evaluations
    assert (runs.recall20 <= runs.max_recall20 + 1e-12).all()
    summ = pd.read_csv(tmp_path / "gowalla_benchmark.csv")
    assert set(summ.published) == {"MF-BPR", "MF-BPR (300 neg., BARS)", "MF-CCL"}
    assert np.allclose(summ.relative_gap, summ.recall20 / summ.published_recall20 - 1)
    md = (tmp_path / "gowalla_benchmark.md").read_text()
    assert "0.1627 / 0.1378" in md and "--quick" in md
    stored = sorted(p.name for p in (tmp_path / "runs").glob("*.json"))
    assert len(stored) == 4 and json.loads((tmp_path / "runs" / stored[0]).read_text())["curve"]
    # a rerun reads the stored runs: identical rows, nothing trained (the data folder may even be gone)
    assert cli.main(argv) == 0
    again = pd.read_csv(tmp_path / "gowalla_benchmark_runs.csv")
    pd.testing.assert_frame_equal(runs, again)


def test_rung_specs_are_the_stated_protocol():
    from negtheory.reproduce.gowalla_benchmark import PUBLISHED, RUNGS, rung_specs
    from negtheory.training import BPR, MF, RNS, Adam, InfoNCE

    s = rung_specs("bpr-300")
    assert (
        s["loss"] == BPR(negatives=300)
        and s["model"] == MF(dim=64)
        and s["sampler"] == RNS(on_device=True)
    )
    assert s["optimizer"] == Adam(lr=1e-3, batch_size=2048, weight_decay=1e-4, penalty="batch")
    assert rung_specs("infonce")["loss"] == InfoNCE(negatives=256, temperature=0.1)
    assert rung_specs("bcl")["model"].similarity == "cosine"
    assert all(RUNGS[r][3] in PUBLISHED for r in RUNGS)
    # each named ablation changes one setting of a ladder rung, and none runs unless named
    from negtheory.reproduce.gowalla_benchmark import ABLATIONS, LADDER
    from negtheory.training import DCL, HCL

    assert not set(ABLATIONS) & set(LADDER) and set(RUNGS) == set(ABLATIONS) | set(LADDER)
    assert rung_specs("infonce-t0.05")["loss"] == InfoNCE(negatives=256, temperature=0.05)
    assert rung_specs("infonce-t0.2")["loss"] == InfoNCE(negatives=256, temperature=0.2)
    assert rung_specs("dcl-tau0.001")["loss"] == DCL(negatives=256, temperature=0.1, tau_plus=0.001)
    assert rung_specs("hcl-tau0.001")["loss"] == HCL(negatives=256, temperature=0.1, tau_plus=0.001)
    assert rung_specs("infonce-n1024")["loss"] == InfoNCE(negatives=1024, temperature=0.1)
    assert rung_specs("dcl-tau0.001-n1024")["loss"] == DCL(
        negatives=1024, temperature=0.1, tau_plus=0.001
    )
    # the model of the ladder everywhere except where the name says MF-CCL's released model
    released = MF(dim=64, similarity="cosine", init_std=1e-4, dropout=0.1)
    for r in set(ABLATIONS) - {"lightgcn"}:
        named = "-released-model" in r
        assert rung_specs(r)["model"] == (released if named else rung_specs("infonce")["model"])
    # the shared-negative ablations change only the sampler (and N) of their rung
    from negtheory.training import SharedUniform

    assert rung_specs("infonce-shared-n256")["loss"] == rung_specs("infonce")["loss"]
    assert rung_specs("infonce-shared-n4096")["loss"] == InfoNCE(negatives=4096, temperature=0.1)
    assert rung_specs("dcl-tau0.001-shared-n4096")["loss"] == DCL(
        negatives=4096, temperature=0.1, tau_plus=0.001
    )
    assert all((rung_specs(r)["sampler"] == SharedUniform()) == ("-shared-" in r) for r in RUNGS)
    # the released MF-CCL optimiser, only where the rung's name says so
    simplex = Adam(lr=1e-4, batch_size=256, weight_decay=1e-8, penalty="batch")
    assert all(
        (rung_specs(r)["optimizer"] == simplex) == r.endswith("-simplex-adam") for r in RUNGS
    )
    # ... and with its learning-rate cut after epoch 20, drawn per row (RNS), where the name says "-decay20"
    decayed = Adam(
        lr=1e-4, batch_size=256, weight_decay=1e-8, penalty="batch", milestones=(20,), gamma=0.1
    )
    assert all(
        (rung_specs(r)["optimizer"] == decayed) == ("-decay20" in r and not r.endswith("-clip10"))
        for r in RUNGS
    )
    for loss in ("ccl", "infonce"):  # the released model changes only the model of its rung
        with_model, without = (
            rung_specs(f"{loss}-n800-simplex-adam-decay20-released-model"),
            rung_specs(f"{loss}-n800-simplex-adam-decay20"),
        )
        assert {k: v for k, v in with_model.items() if k != "model"} == {
            k: v for k, v in without.items() if k != "model"
        }
    # the released run's schedule read off its log (cuts after epochs 19 and 30, 40 epochs) and its clipping at 10
    for loss in ("ccl", "infonce"):
        base = rung_specs(f"{loss}-n800-simplex-adam-decay20-released-model")
        cut = rung_specs(f"{loss}-n800-simplex-adam-cut19-30-released-model")
        assert cut["optimizer"] == Adam(
            lr=1e-4, batch_size=256, weight_decay=1e-8, penalty="batch", milestones=(19, 30)
        )
        assert {k: v for k, v in cut.items() if k != "optimizer"} == {
            k: v for k, v in base.items() if k != "optimizer"
        }
        assert RUNGS[f"{loss}-n800-simplex-adam-cut19-30-released-model"][2] == 40
        for b in (
            f"{loss}-n800-simplex-adam-decay20-released-model",
            f"{loss}-n800-simplex-adam-cut19-30-released-model",
        ):
            clipped, plain = rung_specs(f"{b}-clip10"), rung_specs(b)
            assert clipped["optimizer"] == dataclasses.replace(
                plain["optimizer"], max_grad_norm=10.0
            )
            assert {k: v for k, v in clipped.items() if k != "optimizer"} == {
                k: v for k, v in plain.items() if k != "optimizer"
            }
    assert all(
        (rung_specs(r)["optimizer"].max_grad_norm is not None) == ("-clip10" in r) for r in RUNGS
    )
    assert (
        rung_specs("infonce-n800-simplex-adam-decay20")["sampler"]
        == rung_specs("infonce")["sampler"]
    )
    assert rung_specs("infonce-shared-n800-simplex-adam-decay20")["sampler"] == SharedUniform()
    assert rung_specs("infonce-n800-simplex-adam")["sampler"] == rung_specs("infonce")["sampler"]
    assert (
        rung_specs("ccl-n800-simplex-adam-decay20")["loss"]
        == rung_specs("ccl-shared-n800-simplex-adam")["loss"]
    )
    assert rung_specs("infonce-shared-n800-simplex-adam")["loss"] == InfoNCE(
        negatives=800, temperature=0.1
    )
    args = cli.build_parser().parse_args(["reproduce", "gowalla-benchmark", "--data", "x"])
    assert tuple(args.rungs) == LADDER
    with pytest.raises(ValueError, match="rung must be one of"):
        rung_specs("lightgcn-4")
    # LightGCN as its release trains it on this split: 3 layers, d = 64, BPR, the ladder's optimiser, 1 000 epochs
    from negtheory.training import LightGCN

    lg = rung_specs("lightgcn")
    assert lg["model"] == LightGCN(dim=64, layers=3, propagation="full") and lg["loss"] == BPR()
    assert lg["sampler"] == RNS(on_device=True) and lg["optimizer"] == s["optimizer"]
    assert RUNGS["lightgcn"][2:] == (1000, "LightGCN") and "lightgcn" not in LADDER


def test_quick_lightgcn_rung_stands_beside_the_published_lightgcn(gowalla_like, tmp_path, capsys):
    argv = [
        "reproduce",
        "gowalla-benchmark",
        "--data",
        str(gowalla_like),
        "--quick",
        "--device",
        "cpu",
        "--rungs",
        "lightgcn",
        "--out",
        str(tmp_path),
        "--quiet",
    ]
    assert cli.main(argv) == 0
    runs = pd.read_csv(tmp_path / "gowalla_benchmark_runs.csv")
    assert (
        list(runs.rung) == ["lightgcn"]
        and (runs.epochs_run == 2).all()
        and runs.recall20.between(0, 1).all()
    )
    summ = pd.read_csv(tmp_path / "gowalla_benchmark.csv")
    assert list(summ.published) == ["LightGCN"] and np.allclose(summ.published_recall20, 0.1824)


def test_bad_data_folder_is_named(tmp_path, capsys):
    code = cli.main(
        [
            "reproduce",
            "gowalla-benchmark",
            "--data",
            str(tmp_path / "missing"),
            "--quick",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert code != 0
    assert "--data" in capsys.readouterr().err


class _Idle:
    def __init__(self):
        self.epochs = 0

    def run_epoch(self, epoch):
        self.epochs += 1
        return {}

    def scores(self):
        return np.zeros((3, 2))


def test_time_budget_stops_after_the_first_evaluation_past_it():
    r = train_loop(_Idle(), None, epochs=50, eval_on=(), callbacks=[TimeBudget(1e-9)])
    assert r["epochs_run"] == 1 and r["history"][-1]["time_budget_hit"] is True
    assert "stop" not in r["history"][-1]
    r = train_loop(_Idle(), None, epochs=6, eval_every=2, eval_on=(), callbacks=[TimeBudget(3600)])
    assert r["epochs_run"] == 6 and "time_budget_hit" not in r["history"][-1]
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="seconds"):
            TimeBudget(bad)


def test_a_callback_asking_to_stop_ends_the_run_after_that_evaluation():
    calls = []

    def cb(epoch, scores):
        calls.append(epoch)
        return {"mark": epoch, "stop": epoch >= 4}

    r = train_loop(_Idle(), None, epochs=10, eval_every=2, eval_on=(), callbacks=[cb])
    assert calls == [0, 2, 4] and r["epochs_run"] == 4
    assert [h["mark"] for h in r["history"]] == [2, 4]


def test_refit_protocol_trains_on_every_pair_and_reports_the_final_epoch(
    gowalla_like, tmp_path, capsys
):
    """``--valid-fraction 0``: nothing held out, no selection; the row is the final epoch of a fit on all of train."""
    from negtheory.recsys.datasets import thesis_split
    from negtheory.reproduce.gowalla_benchmark import rung_specs
    from negtheory.training import Evaluation, fit

    argv = [
        "reproduce",
        "gowalla-benchmark",
        "--data",
        str(gowalla_like),
        "--quick",
        "--device",
        "cpu",
        "--rungs",
        "infonce",
        "--valid-fraction",
        "0",
        "--epochs",
        "3",
        "--eval-every",
        "1",
        "--out",
        str(tmp_path),
        "--quiet",
    ]
    assert cli.main(argv) == 0
    row = pd.read_csv(tmp_path / "gowalla_benchmark_runs.csv").iloc[0]
    assert row.valid_fraction == 0 and np.isnan(row.valid_recall20)
    assert row.best_epoch == row.epochs_run == 3 and row.recall20 == row.final_recall20
    assert "the refit protocol" in (tmp_path / "gowalla_benchmark.md").read_text()
    # the same fit written out by hand on the whole training split (the seed of replicate 0) gives the same numbers
    data = thesis_split("gowalla-lightgcn", gowalla_like)
    res = fit(
        data,
        **rung_specs("infonce", quick=True),
        epochs=3,
        rng=0,
        device="cpu",
        evaluation=Evaluation(every=1, ks=(20,), on="test", monitor="recall@20"),
    )
    assert res.history[-1]["test_recall@20"] == pytest.approx(row.recall20, rel=1e-12)
    assert len(data.valid) == 0 and res.best_epoch is None
    # a held-out split changes what is trained on, so the numbers differ
    argv[argv.index("0")] = "0.2"
    assert cli.main(argv) == 0
    held = pd.read_csv(tmp_path / "gowalla_benchmark_runs.csv").iloc[0]
    assert held.valid_recall20 == held.valid_recall20 and held.final_ndcg20 != row.final_ndcg20


def test_negative_valid_fraction_is_refused(gowalla_like, tmp_path, capsys):
    argv = [
        "reproduce",
        "gowalla-benchmark",
        "--data",
        str(gowalla_like),
        "--quick",
        "--valid-fraction",
        "-0.1",
        "--out",
        str(tmp_path),
    ]
    assert cli.main(argv) == 2
    assert "--valid-fraction: must be in [0, 1), got -0.1" in capsys.readouterr().err


def test_a_shorter_run_is_the_prefix_of_a_longer_one(gowalla_like):
    """The seed-spread runs stop at 30 of the released schedule's 40 epochs: with a fixed milestone schedule,
    gradient clipping and embedding dropout, a run of E epochs is the first E epochs of a longer run, bit for bit
    (nothing in an epoch depends on the planned total)."""
    import dataclasses as dc

    from negtheory.recsys.datasets import thesis_split
    from negtheory.reproduce.gowalla_benchmark import rung_specs
    from negtheory.training import Evaluation, fit

    data = thesis_split("gowalla-lightgcn", gowalla_like)
    specs = rung_specs("ccl-n800-simplex-adam-cut19-30-released-model-clip10", quick=True)
    # the milestones moved inside the short window, so the cut happens in both runs
    specs["optimizer"] = dc.replace(specs["optimizer"], milestones=(2,), batch_size=64)
    assert specs["optimizer"].max_grad_norm == 10 and specs["model"].dropout > 0
    ev = Evaluation(every=1, ks=(20,), on="test", monitor="recall@20")
    short = fit(data, **specs, epochs=3, rng=4, device="cpu", evaluation=ev)
    long = fit(data, **specs, epochs=5, rng=4, device="cpu", evaluation=ev)
    assert len(long.history) == 5
    for a, b in zip(short.history, long.history[:3]):
        assert a["epoch"] == b["epoch"]
        assert a["test_recall@20"] == b["test_recall@20"] and a["test_ndcg@20"] == b["test_ndcg@20"]
        assert a["loss"] == b["loss"]
    # and the runs do go on changing after the prefix (the comparison above is not vacuous)
    assert long.history[4]["loss"] != long.history[2]["loss"]


def test_checkpoints_let_a_longer_run_continue_a_shorter_one(gowalla_like, tmp_path, capsys):
    """``--checkpoints``: the 4-epoch run continues the 2-epoch run's saved state and equals a straight 4-epoch run."""
    rung = "ccl-n800-simplex-adam-cut19-30-released-model-clip10-released-sampler-hinge"
    base = [
        "reproduce",
        "gowalla-benchmark",
        "--data",
        str(gowalla_like),
        "--quick",
        "--device",
        "cpu",
        "--rungs",
        rung,
        "--valid-fraction",
        "0",
        "--eval-every",
        "1",
        "--quiet",
    ]
    ck = tmp_path / "ck"
    assert cli.main([*base, "--epochs", "2", "--checkpoints", "--out", str(ck)]) == 0
    saved = sorted(p.name for p in (ck / "checkpoints").iterdir())
    assert saved == [f"{rung}_seed0_v0.0_quick.pt"]
    assert cli.main([*base, "--epochs", "4", "--checkpoints", "--out", str(ck)]) == 0
    longer = pd.read_csv(ck / "gowalla_benchmark_runs.csv").iloc[0]
    assert cli.main([*base, "--epochs", "4", "--out", str(tmp_path / "straight")]) == 0
    straight = pd.read_csv(tmp_path / "straight" / "gowalla_benchmark_runs.csv").iloc[0]
    assert (
        longer.resumed_from == 2
        and straight.resumed_from == 0
        and longer.epochs_run == straight.epochs_run == 4
    )
    for col in ("recall20", "ndcg20", "final_recall20", "final_ndcg20", "max_recall20"):
        assert longer[col] == straight[col]
