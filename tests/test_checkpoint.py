"""Resumable fits (negtheory.training.checkpoint): an interrupted run, resumed, is the uninterrupted run.

The reference is independent of the checkpoint code: the same ``fit`` call without a checkpoint,
run straight through. For each sampler of the mini-batch engine (each keeps a different state: the
host stream, a device generator, SRNS's memories, dropout masks, the schedule) the run is
interrupted by an exception in a callback at epoch 3, after the state of epoch 2 was saved, and
resumed; its history and final embeddings must equal the straight run's bit for bit.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from negtheory.recsys import load_split  # noqa: E402
from negtheory.recsys.loop import TimeBudget  # noqa: E402
from negtheory.training import (  # noqa: E402
    AOBPR,
    BNS,
    BPR,
    CCL,
    DCL,
    DNS,
    MF,
    PNS,
    RNS,
    SGD,
    SRNS,
    Adam,
    CatalogueUniform,
    Evaluation,
    InfoNCE,
    LightGCN,
    SharedUniform,
    fit,
)
from negtheory.training.checkpoint import FitCheckpoint  # noqa: E402


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    pairs = np.unique(np.c_[rng.integers(0, 24, 420), rng.integers(0, 36, 420)], axis=0)
    return load_split(pairs[:300], pairs[300:]).with_validation(0.1, rng=0)


# the released MF-CCL run's rung (Gowalla), small: cosine MF with dropout, catalogue draws on the device,
# CCL with the hinge, Adam with milestones inside the run, clipping and the batch penalty
MFCCL = dict(
    model=MF(dim=8, init_std=1e-4, similarity="cosine", dropout=0.1),
    loss=CCL(negatives=6, positive_hinge=True),
    sampler=CatalogueUniform(on_device=True),
    optimizer=Adam(
        lr=1e-2,
        weight_decay=1e-8,
        batch_size=32,
        milestones=(2, 3),
        penalty="batch",
        max_grad_norm=10.0,
    ),
)
CASES = {
    "mfccl-released": MFCCL,
    "bpr-rns-host": dict(
        model=MF(dim=8), loss=BPR(), sampler=RNS(), optimizer=SGD(lr=0.05, batch_size=16)
    ),
    "infonce-rns-device": dict(
        model=MF(dim=8, similarity="cosine"),
        loss=InfoNCE(negatives=5),
        sampler=RNS(on_device=True),
        optimizer=Adam(lr=1e-2, batch_size=32),
    ),
    "dcl-extra-positives": dict(
        model=MF(dim=8, similarity="cosine"),
        loss=DCL(negatives=5),
        sampler=RNS(),
        optimizer=Adam(lr=1e-2, batch_size=32),
    ),
    "bpr-pns": dict(
        model=MF(dim=8), loss=BPR(), sampler=PNS(), optimizer=Adam(lr=1e-2, batch_size=32)
    ),
    "bpr-dns": dict(
        model=MF(dim=8),
        loss=BPR(),
        sampler=DNS(candidates=4),
        optimizer=Adam(lr=1e-2, batch_size=32),
    ),
    "bpr-bns": dict(
        model=MF(dim=8),
        loss=BPR(),
        sampler=BNS(candidates=4),
        optimizer=Adam(lr=1e-2, batch_size=32),
    ),
    "bpr-aobpr": dict(
        model=MF(dim=8), loss=BPR(), sampler=AOBPR(), optimizer=Adam(lr=1e-2, batch_size=32)
    ),
    "bpr-srns": dict(
        model=MF(dim=8), loss=BPR(), sampler=SRNS(), optimizer=Adam(lr=1e-2, batch_size=32)
    ),
    "infonce-shared": dict(
        model=MF(dim=8, similarity="cosine"),
        loss=InfoNCE(negatives=7),
        sampler=SharedUniform(),
        optimizer=Adam(lr=1e-2, batch_size=32),
    ),
    "lightgcn-bpr": dict(
        model=LightGCN(dim=8, layers=2),
        loss=BPR(),
        sampler=RNS(),
        optimizer=Adam(lr=1e-2, batch_size=32),
    ),
}
EV = Evaluation(every=1, ks=(5,), on="both")


class Interrupt(Exception):
    pass


def _interrupt_at(epoch):
    def cb(e, scores):
        if e == epoch:
            raise Interrupt

    return cb


def _same(a, b):
    assert [h["epoch"] for h in a.history] == [h["epoch"] for h in b.history]
    for x, y in zip(a.history, b.history):
        assert x == y  # every statistic and metric, exactly
    np.testing.assert_array_equal(a.user_emb, b.user_emb)
    np.testing.assert_array_equal(a.item_emb, b.item_emb)
    assert a.best_epoch == b.best_epoch


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_interrupted_run_resumed_is_the_straight_run(data, case, tmp_path):
    kw = dict(CASES[case], evaluation=EV, rng=5, epochs=4)
    straight = fit(data, **kw)
    path = tmp_path / "run.pt"
    with pytest.raises(Interrupt):
        fit(data, checkpoint=path, callbacks=[_interrupt_at(3)], **kw)
    assert path.exists() and not path.with_name("run.pt.tmp").exists()
    resumed = fit(data, checkpoint=path, **kw)
    assert resumed.resumed_from == 2 and straight.resumed_from == 0
    _same(resumed, straight)


def test_more_epochs_continue_a_shorter_run_across_the_milestones(data, tmp_path):
    # the shorter run stops at epoch 2, before the milestones (2, 3) have both acted; 2 is on the grid of every=2
    kw = dict(MFCCL, evaluation=Evaluation(every=2, ks=(5,), on="both"), rng=7)
    path = tmp_path / "run.pt"
    short = fit(data, epochs=2, checkpoint=path, **kw)
    longer = fit(data, epochs=6, checkpoint=path, **kw)
    straight = fit(data, epochs=6, **kw)
    assert [h["epoch"] for h in short.history] == [2] and longer.resumed_from == 2
    _same(longer, straight)
    again = fit(
        data, epochs=6, checkpoint=path, **kw
    )  # nothing left to train: the saved run comes back
    assert again.resumed_from == 6
    _same(again, straight)
    with pytest.raises(ValueError, match="holds 6 epochs, more than epochs=4"):
        fit(data, epochs=4, checkpoint=path, **kw)


def test_a_time_budget_stop_is_resumed(data, tmp_path):
    kw = dict(CASES["infonce-rns-device"], evaluation=EV, rng=2, epochs=3)
    path = tmp_path / "run.pt"
    first = fit(
        data, checkpoint=path, callbacks=[TimeBudget(1e-9)], **kw
    )  # stops at the first evaluation
    assert [h["epoch"] for h in first.history] == [1] and first.history[0]["time_budget_hit"]
    resumed = fit(data, checkpoint=path, **kw)
    straight = fit(data, **kw)
    assert resumed.resumed_from == 1
    np.testing.assert_array_equal(resumed.user_emb, straight.user_emb)
    assert [h["loss"] for h in resumed.history[1:]] == [h["loss"] for h in straight.history[1:]]


def test_a_patience_stop_is_final(data, tmp_path):
    # lr 1e-12: Adam steps of about 1e-12 vanish in float32 entries of order 0.1, so the model never changes,
    # validation never improves after epoch 1, and patience 1 stops at epoch 2
    kw = dict(
        model=MF(dim=4),
        loss=BPR(),
        sampler=RNS(),
        optimizer=Adam(lr=1e-12, batch_size=64),
        rng=0,
        epochs=5,
        evaluation=Evaluation(every=1, ks=(5,), on="both", monitor="ndcg@5", patience=1),
    )
    path = tmp_path / "run.pt"
    first = fit(data, checkpoint=path, **kw)
    assert [h["epoch"] for h in first.history] == [1, 2]
    calls = []
    again = fit(data, checkpoint=path, callbacks=[lambda e, s: calls.append(e)], **kw)
    assert (
        calls == []
        and [h["epoch"] for h in again.history] == [1, 2]
        and again.best_epoch == first.best_epoch
    )


def test_a_checkpoint_of_another_run_is_refused_by_name(data, tmp_path):
    kw = dict(CASES["bpr-rns-host"], evaluation=EV, epochs=1)
    path = tmp_path / "run.pt"
    fit(data, checkpoint=path, rng=0, **kw)
    with pytest.raises(ValueError, match=r"saved by another run \(it differs in seed\)"):
        fit(data, checkpoint=path, rng=1, **kw)
    with pytest.raises(ValueError, match="differs in loss"):
        fit(data, checkpoint=path, rng=0, **{**kw, "loss": BPR(negatives=2)})
    other = load_split(data.train[:-1], data.test)
    with pytest.raises(ValueError, match="differs in pairs"):
        fit(other, checkpoint=path, rng=0, **kw)


def test_bad_checkpoints_get_clear_errors(data, tmp_path):
    kw = dict(CASES["bpr-rns-host"], evaluation=EV, epochs=1)
    with pytest.raises(ValueError, match="is a folder"):
        fit(data, checkpoint=tmp_path, **kw)
    with pytest.raises(ValueError, match="does not exist"):
        fit(data, checkpoint=tmp_path / "nope" / "run.pt", **kw)
    with pytest.raises(TypeError, match="checkpoint must be a path"):
        fit(data, checkpoint=3, **kw)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match="not readable as a negtheory checkpoint"):
        fit(data, checkpoint=junk, **kw)
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2)}, other)
    with pytest.raises(ValueError, match="not a negtheory fit checkpoint"):
        fit(data, checkpoint=other, **kw)
    with pytest.raises(ValueError, match="numba batch-1 SGD backend does not save its state"):
        fit(
            data,
            model=MF(dim=4),
            loss=BPR(),
            sampler=RNS(),
            optimizer=SGD(),
            epochs=1,
            checkpoint=tmp_path / "s.pt",
            engine="sgd",
        )
    # engine="auto": a checkpointed batch-1 run trains on the torch backend, which keeps its state
    r = fit(
        data,
        model=MF(dim=4),
        loss=BPR(),
        sampler=RNS(),
        optimizer=SGD(),
        epochs=1,
        checkpoint=tmp_path / "s.pt",
    )
    assert r.engine == "torch" and (tmp_path / "s.pt").exists()


def test_the_file_holds_only_what_weights_only_reads(data, tmp_path):
    path = tmp_path / "run.pt"
    fit(data, **dict(CASES["bpr-srns"], evaluation=EV, epochs=2, rng=0), checkpoint=path)
    st = torch.load(
        path, weights_only=True
    )  # raises on any pickled object other than tensors and containers
    assert (
        st["format"] == "negtheory.fit.checkpoint" and st["epoch"] == 2 and len(st["history"]) == 2
    )
    assert isinstance(st["runner"]["srns"]["memory"], torch.Tensor)
    key = json.loads(st["key"])  # what a resumed call must match
    assert set(key) == {
        "model",
        "loss",
        "sampler",
        "optimizer",
        "evaluation",
        "seed",
        "device",
        "n_users",
        "n_items",
        "pairs",
    }
    assert key["seed"] == 0 and key["sampler"]["kind"] == "SRNS" and len(key["pairs"]) == 64
    with pytest.raises(ValueError, match="differs in seed"):
        FitCheckpoint(path, {**key, "seed": 1}).load()
