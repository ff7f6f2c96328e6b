"""``negtheory.training.fit``: the published configurations as specs, the engine each runs on, the specs' JSON.

Every configuration the reproductions run (thesis Tables 4.2-4.5 by batch-1 SGD, 5.2 / 5.3 / 6.3 by
mini-batches, the LightGCN rows, the sim-vs-train and Wu K-sweep protocols) is named in the run keys by
the keywords of the trainers that came before ``fit``; :mod:`negtheory.reproduce._run_keys` turns them
into specs. Each translation is checked against the specs written out by hand, and each configuration
trains on its engine on a tiny split. Unsupported combinations raise a ``ValueError`` that names
their parameters; every spec round-trips through JSON.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from toy_data import fit_with_negatives

from negtheory.recsys import bns_lam_warm_start, bns_occupation_prior, load_split
from negtheory.reproduce._run_keys import LIGHTGCN_KEYWORDS, minibatch_fit_args, sgd_fit_args
from negtheory.training import (
    AOBPR,
    BCE,
    BCL,
    BNS,
    BPR,
    DCL,
    DNS,
    DPL,
    ENGINES,
    HCL,
    MF,
    PNS,
    RELEASED_MINIBATCH_MF,
    RNS,
    SGD,
    SRNS,
    THESIS_BPR_MF,
    THESIS_LIGHTGCN,
    Adam,
    Evaluation,
    InfoNCE,
    LightGCN,
    SharedUniform,
    choose_engine,
    fit,
    spec_from_dict,
    spec_from_json,
)

EPOCHS = 2


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    pairs = np.unique(rng.integers(0, [30, 45], size=(650, 2)), axis=0)
    rng.shuffle(pairs)
    return load_split(pairs[:450], pairs[450:])


def _hist(h):
    return [{k: v for k, v in row.items() if "seconds" not in k} for row in h]


def _new(data, **kw):
    kw.setdefault("evaluation", Evaluation(ks=(5, 10)))
    return fit(data, epochs=EPOCHS, rng=5, **kw)


# (batch-1 SGD run-key keywords, fit specs): Tables 4.2 (six samplers), 4.3 (BNS-1..4), 4.4 (BCE, InfoNCE N = 2),
# 4.5 (oracle readings), the SRNS readings, the sim-vs-train SGD runs (RNS, BNS with topk 10)
SGD_CASES = {
    "4.2-rns": (dict(sampler="rns"), dict(sampler=RNS())),
    "4.2-pns": (dict(sampler="pns"), dict(sampler=PNS())),
    "4.2-dns": (dict(sampler="dns"), dict(sampler=DNS(candidates=5))),
    "4.2-aobpr": (dict(sampler="aobpr"), dict(sampler=AOBPR())),
    "4.2-srns": (dict(sampler="srns"), dict(sampler=SRNS())),
    "4.2-bns": (dict(sampler="bns"), dict(sampler=BNS(candidates=5, lam=5.0))),
    "4.3-bns1": (
        dict(sampler="bns", lam_schedule=bns_lam_warm_start),
        dict(sampler=BNS(lam_schedule=tuple(bns_lam_warm_start(t) for t in range(EPOCHS)))),
    ),
    "4.3-bns2": (dict(sampler="bns", warm_rns_epochs=1), dict(sampler=BNS(warm_rns_epochs=1))),
    "4.3-bns3": (dict(sampler="bns", prior="uniform"), dict(sampler=BNS(prior="uniform"))),
    "4.4-bce-bns": (dict(sampler="bns", loss="bce"), dict(sampler=BNS(), loss=BCE())),
    "4.4-infonce-bns": (
        dict(sampler="bns", loss="infonce", n_negatives=2),
        dict(sampler=BNS(), loss=InfoNCE(negatives=2)),
    ),
    "4.4-infonce-dns": (
        dict(sampler="dns", loss="infonce", n_negatives=2),
        dict(sampler=DNS(), loss=InfoNCE(negatives=2)),
    ),
    "4.5-soft": (
        dict(sampler="bns", prior="oracle", candidates=10),
        dict(sampler=BNS(prior="oracle", candidates=10)),
    ),
    "4.5-soft-Fcand": (
        dict(sampler="bns", prior="oracle", ecdf="candidates"),
        dict(sampler=BNS(prior="oracle", ecdf="candidates")),
    ),
    "4.5-soft-tn": (
        dict(sampler="bns", prior="oracle", oracle_levels=(0.64, 0.001)),
        dict(sampler=BNS(prior="oracle", oracle_levels=(0.64, 0.001))),
    ),
    "4.5-hard": (
        dict(sampler="bns", prior="oracle", oracle_levels=(1.0, 0.0)),
        dict(sampler=BNS(prior="oracle", oracle_levels=(1.0, 0.0))),
    ),
    "srns-code-defaults": (
        dict(
            sampler="srns",
            srns_memory=20,
            srns_candidates=20,
            srns_alpha=1.0,
            srns_warmup=1.0,
            srns_tau=1.0,
        ),
        dict(sampler=SRNS(memory=20, candidates=20, alpha=1.0, warmup=1.0, tau=1.0)),
    ),
    "srns-alpha0": (dict(sampler="srns", srns_alpha=0.0), dict(sampler=SRNS(alpha=0.0))),
    "bns-f-sample": (dict(sampler="bns", bns_f_sample=7), dict(sampler=BNS(f_sample=7))),
    "tuned": (
        dict(sampler="pns", pns_power=0.5, lr=0.02, reg=0.001, shuffle="once", init_std=0.05),
        dict(
            sampler=PNS(power=0.5),
            optimizer=SGD(lr=0.02, weight_decay=0.001, shuffle="once"),
            model=MF(dim=8, init_std=0.05),
        ),
    ),
}


@pytest.mark.parametrize("case", sorted(SGD_CASES))
def test_sgd_run_keys_are_these_specs_and_train_on_the_batch1_engine(data, case):
    keywords, specs = SGD_CASES[case]
    args = sgd_fit_args(**keywords, dim=8, epochs=EPOCHS, topk=(5, 10))
    want = {
        **dict(
            model=MF(dim=8),
            loss=BPR(),
            optimizer=SGD(),
            evaluation=Evaluation(ks=(5, 10), on="test"),
        ),
        **specs,
    }
    assert (
        {k: args[k] for k in want} == want and args["epochs"] == EPOCHS and args["engine"] == "sgd"
    )
    r = fit(data, **args, rng=5)
    assert r.engine == "sgd" and r.config["sampler"] == keywords["sampler"]
    assert r.config["epochs"] == EPOCHS and np.isfinite(r.history[-1]["loss"])


def test_sgd_run_keys_translate_defaults_and_refuse_unknown_keywords():
    assert sgd_fit_args(sampler="rns")["model"] == THESIS_BPR_MF["model"]
    assert sgd_fit_args(sampler="rns")["optimizer"] == THESIS_BPR_MF["optimizer"]
    with pytest.raises(TypeError, match="unknown keyword"):
        sgd_fit_args(sampler="rns", dimension=8)
    with pytest.raises(ValueError, match="BNS"):
        sgd_fit_args(sampler="rns", warm_rns_epochs=2)  # BNS-2's keyword
    with pytest.raises(ValueError, match="n_negatives"):
        sgd_fit_args(sampler="rns", n_negatives=2)  # BPR reads one negative
    with pytest.raises(ValueError, match="sampler"):
        sgd_fit_args(sampler="xns")


def test_sgd_occupation_prior_bns4(data):
    occ = np.array(["a", "b", "c"])[np.arange(data.n_users) % 3]
    prior = bns_occupation_prior(data, occ)
    args = sgd_fit_args(sampler="bns", prior=prior, dim=8, epochs=EPOCHS)
    assert args["sampler"] == BNS(prior=prior)
    new = _new(data, model=MF(dim=8), sampler=BNS(prior=prior))
    assert new.config["prior"] == f"array{prior.shape}"
    assert np.array_equal(
        fit(data, **dict(args, evaluation=Evaluation(ks=(5, 10))), rng=5).user_emb, new.user_emb
    )


def test_sgd_negatives_record_and_eval_on_both(data):
    d = data.with_validation(0.1, rng=0)
    kw = dict(
        model=MF(dim=8),
        sampler=DNS(),
        evaluation=Evaluation(ks=(5, 10), on="both"),
        epochs=EPOCHS,
        rng=5,
    )
    plain = fit(d, **kw)
    recorded = fit_with_negatives(d, **kw)  # the engine's negatives record changes no number
    assert _hist(plain.history) == _hist(recorded.history) and np.array_equal(
        plain.item_emb, recorded.item_emb
    )
    assert len(recorded.negatives) == EPOCHS and plain.negatives is None
    assert {"valid_ndcg@10", "test_ndcg@10"} <= set(plain.history[-1])


# --------------------------------------------------------------------------------------------
# mini-batch (torch)
# --------------------------------------------------------------------------------------------
torch = pytest.importorskip("torch", reason="the mini-batch engine needs the torch extra")

# released ch. 5-6 settings (Tables 5.2, 6.3): Adam lr 1e-3, weight decay 1e-5, N = M = 5, lr / 10 after epoch 100
_ADAM = Adam(lr=1e-3, weight_decay=1e-5, batch_size=128, milestones=(100,))
_LGCN = Adam(lr=0.01, weight_decay=1e-5, batch_size=64, milestones=(20, 40, 60, 80), gamma=0.1)
MB_CASES = {
    "5.2-bpr": (dict(loss="bpr"), dict(loss=BPR())),
    "5.2-infonce": (dict(loss="infonce"), dict(loss=InfoNCE())),
    "5.2-dcl": (dict(loss="dcl"), dict(loss=DCL())),
    "5.2-hcl": (dict(loss="hcl"), dict(loss=HCL())),
    "5.2-dpl": (dict(loss="dpl"), dict(loss=DPL())),
    "6.3-bcl": (dict(loss="bcl"), dict(loss=BCL())),
    "6.3-bcl-released": (dict(loss="bcl_released"), dict(loss=BCL(form="released"))),
    "6.3-bcl-tuned": (
        dict(loss="bcl", alpha=0.7, tau_plus=0.02, beta=0.4),
        dict(loss=BCL(alpha=0.7, tau_plus=0.02, beta=0.4)),
    ),
    "5.3-dpl-hard": (
        dict(loss="dpl", sampler="dns", tau_plus=0.3),
        dict(loss=DPL(tau_plus=0.3), sampler=DNS()),
    ),
    "bpr-bns": (dict(loss="bpr", sampler="bns"), dict(loss=BPR(), sampler=BNS())),
    "bpr-pns": (dict(loss="bpr", sampler="pns"), dict(loss=BPR(), sampler=PNS())),
    "wu-k-sweep": (
        dict(loss="infonce", negatives=3, lr_milestones=()),
        dict(loss=InfoNCE(negatives=3), optimizer=Adam(batch_size=128)),
    ),
    "sgd-torch": (
        dict(loss="infonce", optimizer="sgd", lr=0.05),
        dict(
            loss=InfoNCE(),
            optimizer=SGD(
                lr=0.05,
                weight_decay=1e-5,
                batch_size=128,
                milestones=(100,),
                penalty="weight_decay",
            ),
        ),
    ),
    "lgcn-bpr-rns": (
        dict(loss="bpr", **LIGHTGCN_KEYWORDS),
        dict(loss=BPR(), model=LightGCN(), optimizer=_LGCN),
    ),
    "lgcn-bpr-bns": (
        dict(loss="bpr", sampler="bns", **LIGHTGCN_KEYWORDS),
        dict(loss=BPR(), sampler=BNS(), model=LightGCN(), optimizer=_LGCN),
    ),
    "lgcn-bpr-dns": (
        dict(loss="bpr", sampler="dns", **LIGHTGCN_KEYWORDS),
        dict(loss=BPR(), sampler=DNS(), model=LightGCN(), optimizer=_LGCN),
    ),
    "lgcn-bcl": (
        dict(loss="bcl", **LIGHTGCN_KEYWORDS),
        dict(loss=BCL(), model=LightGCN(), optimizer=_LGCN),
    ),
    "lgcn-batch-l2": (
        dict(loss="bpr", **{**LIGHTGCN_KEYWORDS, "reg": "batch"}),
        dict(loss=BPR(), model=LightGCN(), optimizer=_LGCN.replace(penalty="batch")),
    ),
    "lgcn-batch-propagation": (
        dict(loss="dcl", **LIGHTGCN_KEYWORDS, propagation="batch"),
        dict(loss=DCL(), model=LightGCN(propagation="batch"), optimizer=_LGCN),
    ),
}


@pytest.mark.parametrize("case", sorted(MB_CASES))
def test_minibatch_run_keys_are_these_specs_and_train_on_the_torch_engine(data, case):
    keywords, specs = MB_CASES[case]
    keywords = dict(
        keywords,
        dim=8,
        epochs=EPOCHS,
        topk=(5, 10),
        batch_size=64 if keywords.get("model") == "lightgcn" else 128,
    )
    args = minibatch_fit_args(**keywords)
    specs = dict(specs)
    want = dict(
        model=specs.pop("model", MF()).replace(dim=8),
        loss=specs.pop("loss"),
        sampler=specs.pop("sampler", RNS()),
        optimizer=specs.pop("optimizer", _ADAM),
        evaluation=Evaluation(ks=(5, 10)),
    )
    assert (
        not specs
        and {k: args[k] for k in want} == want
        and args["epochs"] == EPOCHS
        and args["engine"] == "torch"
    )
    d = data.with_validation(0.1, rng=1)
    r = fit(d, **args, rng=5)
    assert r.engine == "torch" and r.best_epoch in (1, 2) and np.isfinite(r.history[-1]["loss"])
    if not isinstance(
        want["model"], LightGCN
    ):  # the scores are the embeddings' product (numpy's BLAS and torch's may
        # round a float32 product differently in the last place, so this check is to float32 precision)
        np.testing.assert_allclose(
            np.asarray(r.scores), r.user_emb @ r.item_emb.T, rtol=1e-5, atol=1e-6
        )


def test_minibatch_run_keys_refuse_unknown_keywords():
    with pytest.raises(TypeError, match="unknown keyword"):
        minibatch_fit_args(loss="dpl", n_layer=3)
    with pytest.raises(ValueError, match="propagation"):
        minibatch_fit_args(loss="infonce", propagation="batch")  # MF propagates nothing
    with pytest.raises(ValueError, match="loss must be one of"):
        minibatch_fit_args(loss="nce")


# --------------------------------------------------------------------------------------------
# engine choice and unsupported combinations
# --------------------------------------------------------------------------------------------
def _engine(**kw):
    base = dict(model=MF(), loss=BPR(), sampler=RNS(), optimizer=SGD())
    return choose_engine(**{**base, **kw})


def test_engine_follows_the_combination():
    assert ENGINES == ("sgd", "torch")
    assert _engine() == "sgd"
    assert _engine(loss=InfoNCE(negatives=2), sampler=DNS()) == "sgd"
    assert _engine(loss=BCE(negatives=3), sampler=AOBPR()) == "sgd"
    assert _engine(optimizer=Adam()) == "torch"
    assert _engine(model=LightGCN(), sampler=BNS()) == "torch"
    assert _engine(optimizer=SGD(batch_size=256)) == "torch"
    assert (
        _engine(loss=DCL(), optimizer=SGD()) == "torch"
    )  # batch 1, but a loss the numba engine lacks


# the combinations that one engine or the other used to refuse: each now has a backend (issue 67)
ONCE_REFUSED = [
    dict(sampler=AOBPR(), model=LightGCN(), loss=InfoNCE()),
    dict(sampler=SRNS(), optimizer=Adam(), loss=BPR(negatives=3)),
    dict(sampler=SRNS(), loss=InfoNCE(negatives=2)),
    dict(loss=BCE(), optimizer=Adam()),
    dict(loss=InfoNCE(temperature=0.5)),
    dict(sampler=BNS(), loss=InfoNCE(), optimizer=Adam()),
    dict(sampler=BNS(prior="oracle"), optimizer=Adam()),
    dict(sampler=BNS(warm_rns_epochs=3), model=LightGCN()),
    dict(sampler=DNS(), loss=BCL(), optimizer=Adam()),
    dict(model=MF(dropout=0.1), optimizer=Adam(), sampler=SharedUniform()),
    dict(model=MF(dropout=0.1)),
    dict(optimizer=SGD(batch_size=64, shuffle="once")),
    dict(device="cuda"),
]


@pytest.mark.parametrize("kw", ONCE_REFUSED)
def test_once_refused_combinations_run_on_the_torch_backend(kw):
    base = dict(model=MF(), loss=BPR(), sampler=RNS(), optimizer=SGD())
    assert choose_engine(**{**base, **kw}) == "torch"


@pytest.mark.parametrize(
    "kw, names",
    [
        (dict(sampler=SRNS(), loss=InfoNCE(negatives=2)), ("sampler=SRNS", "loss.negatives")),
        (dict(loss=InfoNCE(temperature=0.5)), ("loss.temperature",)),
        (dict(model=MF(dropout=0.1)), ("model.dropout",)),
        (dict(device="cuda"), ("device",)),
        (dict(model=LightGCN()), ("model=LightGCN",)),
    ],
)
def test_the_numba_backend_asked_for_names_what_it_does_not_cover(kw, names):
    base = dict(model=MF(), loss=BPR(), sampler=RNS(), optimizer=SGD())
    with pytest.raises(ValueError) as err:
        choose_engine(**{**base, **kw}, engine="sgd")
    for name in names:
        assert name in str(err.value)


def test_forced_engine_and_bad_arguments(data):
    with pytest.raises(ValueError, match="optimizer.milestones"):
        fit(data, optimizer=SGD(milestones=(1,)), engine="sgd", epochs=1)
    with pytest.raises(ValueError, match="optimizer.max_grad_norm"):
        fit(data, optimizer=SGD(max_grad_norm=1.0), engine="sgd", epochs=1)
    with pytest.raises(ValueError, match="engine"):
        fit(data, engine="jax", epochs=1)
    with pytest.raises(TypeError, match="sampler"):
        fit(data, sampler="bns", epochs=1)
    with pytest.raises(ValueError, match="lam_schedule"):
        fit(data, sampler=BNS(lam_schedule=(1.0,)), epochs=2)
    with pytest.raises(ValueError, match="patience"):
        fit(data, evaluation=Evaluation(patience=2), epochs=1)


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: BNS(candidates=0), "BNS.candidates"),
        (lambda: BNS(ecdf="all"), "BNS.ecdf"),
        (lambda: BNS(f_sample=5, ecdf="candidates"), "BNS.f_sample"),
        (lambda: BCL(alpha=0.2), "BCL.alpha"),
        (lambda: DCL(tau_plus=1.0), "DCL.tau_plus"),
        (lambda: Adam(lr=0), "Adam.lr"),
        (lambda: Adam(max_grad_norm=-1.0), "Adam.max_grad_norm"),
        (lambda: SGD(max_grad_norm=float("nan")), "SGD.max_grad_norm"),
        (lambda: SGD(penalty="l1"), "SGD.penalty"),
        (lambda: LightGCN(layers=-1), "LightGCN.layers"),
        (lambda: Evaluation(ks=()), "Evaluation.ks"),
        (lambda: SRNS(window=0), "SRNS.window"),
    ],
)
def test_spec_validation_names_the_parameter(make, name):
    with pytest.raises(ValueError, match=name.replace(".", r"\.")):
        make()


ALL_SPECS = [
    MF(dim=16, init_std=0.2),
    LightGCN(layers=3),
    BPR(),
    BCE(negatives=2),
    InfoNCE(negatives=7, temperature=0.2),
    DCL(),
    HCL(beta=1.0),
    DPL(eps=0.05),
    BCL(form="released"),
    RNS(),
    PNS(power=0.0),
    DNS(candidates=3),
    BNS(prior=[[0.1, 0.2]], lam_schedule=(3.0, 2.0), f_sample=4),
    BNS(prior="oracle", oracle_levels=(1, 0)),
    AOBPR(rank_scale=2.5),
    SRNS(window=2),
    SGD(milestones=(3,)),
    Adam(penalty="batch", max_grad_norm=10.0),
    Evaluation(on="both", ks=(10,)),
]


@pytest.mark.parametrize("spec", ALL_SPECS, ids=lambda s: type(s).__name__)
def test_specs_round_trip_through_json(spec):
    text = spec.to_json()
    assert json.loads(text)["kind"] == type(spec).__name__
    back = spec_from_json(text)
    assert (
        back == spec and hash(back) == hash(spec) and type(back).from_dict(spec.to_dict()) == spec
    )
    assert spec_from_dict(json.loads(json.dumps(spec.to_dict()))) == spec


def test_spec_from_dict_rejects_unknown_kind_and_keys():
    with pytest.raises(ValueError, match="kind"):
        spec_from_dict({"kind": "Nope"})
    with pytest.raises(ValueError, match="candidates"):
        spec_from_dict({"kind": "RNS", "candidates": 3})
    with pytest.raises(ValueError, match="not a"):
        Adam.from_dict(RNS().to_dict())


def test_result_carries_its_specs(data):
    r = fit(
        data, model=MF(dim=4), sampler=DNS(candidates=2), epochs=1, evaluation=Evaluation(ks=(5,))
    )
    assert spec_from_dict(r.specs["sampler"]) == DNS(candidates=2)
    assert list(r.history_frame()["epoch"]) == [1]


def test_samplers_draw_for_a_users_own_loop(data):
    from negtheory.recsys.samplers import sample_popular, sample_uninteracted

    users = np.array([0, 1, 2, 2])
    csr = data.train_csr()
    assert np.array_equal(
        RNS().sample(data, users, 3, rng=4),
        sample_uninteracted(users, 3, csr, 4, n_items=data.n_items),
    )
    want = sample_popular(users, 2, csr, data.item_counts(), 4, 0.5, n_items=data.n_items)
    assert np.array_equal(PNS(power=0.5).sample(data, users, 2, rng=4), want)
    scores = np.random.default_rng(0).normal(size=(data.n_users, data.n_items))
    dns = DNS(candidates=4).sample(data, users, 2, rng=4, scores=scores)
    bns = BNS().sample(
        data,
        users,
        1,
        rng=4,
        scores=scores,
        positives=data.train[:4, 1] * 0 + csr[1][csr[0][users]],
    )
    train = data.train_mask()
    for out in (dns, bns):
        assert not train[users[:, None], out].any()
    # SRNS in a user's own loop: its memories are built from the model's scoring embeddings at start()
    with pytest.raises(ValueError, match="embeddings"):
        SRNS().sample(data, users, 1)

    class Embeddings:
        def __init__(self):
            g = np.random.default_rng(0)
            self.eu = g.normal(size=(data.n_users, 4)).astype(np.float32)
            self.ei = g.normal(size=(data.n_items, 4)).astype(np.float32)

        def embeddings(self):
            return self.eu, self.ei

    srns = SRNS(memory=3, candidates=4).bind(data)
    srns.start(Embeddings(), np.random.default_rng(1))
    indptr, items = data.train_csr()
    got = srns.draw(users, 2, rng=2, scores=Embeddings(), positives=items[indptr[users]], epoch=0)
    assert got.shape == (len(users), 2) and not train[users[:, None], got].any()
    # the engine's form: bound once, DNS scored by a callable of the (B, n, C) candidates
    bound = DNS(candidates=4).bind(data)
    got = bound.draw(users, 2, rng=4, scores=lambda u, cand: scores[u[:, None, None], cand])
    assert np.array_equal(got, dns)
    with pytest.raises(ValueError, match="scores"):
        DNS().sample(data, users, 1, rng=0)


def test_the_harness_split_path_trains_through_fit_without_a_warning(data):
    from negtheory.bridge.train import train

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        r = train(
            data=data, loss="bpr", epochs=1, dim=4, progress=False, batch_size=256, probe=False
        )
    assert spec_from_dict(r["specs"]["optimizer"]) == Adam(
        lr=0.01, weight_decay=0.0, batch_size=256
    )


_MB1 = dict(
    optimizer=Adam(batch_size=64, milestones=(100,)), epochs=1, evaluation=Evaluation(ks=(5,))
)


@pytest.mark.parametrize(
    "flags, ref",
    [
        (
            ["--optimizer", "sgd", "--loss", "bpr", "--sampler", "bns"],
            lambda d: fit(d, sampler=BNS(), epochs=1, evaluation=Evaluation(ks=(5,))),
        ),
        (
            ["--optimizer", "adam", "--loss", "bpr", "--sampler", "bns", "--batch-size", "64"],
            lambda d: fit(d, loss=BPR(), sampler=BNS(), **_MB1),
        ),
        (
            [
                "--optimizer",
                "adam",
                "--loss",
                "dpl",
                "--sampler",
                "dns",
                "--batch-size",
                "64",
                "--negatives",
                "2",
            ],
            lambda d: fit(d, loss=DPL(negatives=2), sampler=DNS(), **_MB1),
        ),  # the flags left out: the spec's defaults
    ],
)
def test_cli_split_runs_through_fit_with_the_specs_of_its_flags(tmp_path, data, flags, ref):
    """``negtheory bridge train`` on a split: the sampler asked for runs (BNS with Adam is BNS, not RNS), same numbers."""
    from negtheory import cli

    for name, pairs in (("train", data.train), ("test", data.test)):
        (tmp_path / f"{name}.csv").write_text(
            "user,item\n" + "".join(f"{u},{i}\n" for u, i in pairs)
        )
    d = load_split(tmp_path / "train.csv", tmp_path / "test.csv")
    argv = [
        "bridge",
        "train",
        "--train",
        str(tmp_path / "train.csv"),
        "--test",
        str(tmp_path / "test.csv"),
        "--epochs",
        "1",
        "--topk",
        "5",
        "--device",
        "cpu",
        "--out",
        str(tmp_path / "out"),
        "--quiet",
        *flags,
    ]
    assert cli.main(argv) == 0
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert saved["final"] == ref(d).history[-1]
    kind = flags[flags.index("--sampler") + 1].upper() if "--sampler" in flags else "BNS"
    assert spec_from_dict(saved["specs"]["sampler"]) == spec_from_dict(
        {"kind": kind, **({"candidates": 5} if kind != "RNS" else {})}
    )


class _Mean:
    """A callback as the sim-vs-train probe is one: reads the scores, adds an item to the history row."""

    def __init__(self):
        self.seen = []

    def __call__(self, epoch, scores):
        self.seen.append((epoch, np.asarray(scores).copy()))
        return {"score_mean": float(np.asarray(scores).mean())}


@pytest.mark.parametrize("loss", ["bns", "dcl"])
def test_sim_vs_train_runs_are_the_presets_with_their_loss_and_sampler(data, loss):
    """sim-vs-train's protocols (SGD BNS with topk 10; mini-batch DCL with N negatives): its trainer is ``fit`` with the
    thesis's BPR-MF or the released mini-batch MF, and the probe-like callback sees the same scores."""
    from negtheory.reproduce.sim_vs_train import _train

    mine, direct = _Mean(), _Mean()
    got = _train(data, loss, 2, EPOCHS, "mf", 3, mine, False)
    if loss == "bns":
        want = fit(
            data,
            **dict(THESIS_BPR_MF, epochs=EPOCHS),
            sampler=BNS(),
            evaluation=Evaluation(ks=(10,)),
            rng=2,
            callbacks=[direct],
        )
    else:
        want = fit(
            data,
            **dict(RELEASED_MINIBATCH_MF, epochs=EPOCHS),
            loss=DCL(negatives=3),
            evaluation=Evaluation(ks=(10,)),
            rng=2,
            callbacks=[direct],
        )
    assert got.engine == want.engine == ("sgd" if loss == "bns" else "torch")
    assert _hist(got.history) == _hist(want.history) and "score_mean" in got.history[-1]
    assert len(mine.seen) == EPOCHS + 1
    assert all(
        e1 == e2 and np.array_equal(a, b) for (e1, a), (e2, b) in zip(mine.seen, direct.seen)
    )


def test_presets_are_the_run_keys_defaults():
    """THESIS_BPR_MF is fit's defaults and the batch-1 run keys', THESIS_LIGHTGCN the LightGCN rows',
    RELEASED_MINIBATCH_MF the mini-batch run keys' (the thesis's settings and the released code's)."""
    import inspect

    defaults = {n: p.default for n, p in inspect.signature(fit).parameters.items()}
    assert THESIS_BPR_MF == {k: defaults[k] for k in ("model", "optimizer", "epochs")}
    sgd = sgd_fit_args()
    assert THESIS_BPR_MF == {k: sgd[k] for k in ("model", "optimizer", "epochs")}
    lgcn = minibatch_fit_args(**LIGHTGCN_KEYWORDS)
    assert THESIS_LIGHTGCN == {k: lgcn[k] for k in ("model", "optimizer", "epochs")}
    mb = minibatch_fit_args()
    assert RELEASED_MINIBATCH_MF == {k: mb[k] for k in ("model", "optimizer", "epochs")}
    with pytest.raises(TypeError):
        THESIS_LIGHTGCN["epochs"] = 5  # read-only


def test_max_grad_norm_clips_the_total_gradient(data):
    """One full-batch SGD step moves the parameters by lr x the clipped gradient: norm lr * c, same direction.

    The initial parameters are those of a run with lr = 1e-30 (the seed fixes the initialisation and the
    negatives; the step is below float32's resolution), so each step's update is read off two runs.
    """
    n = len(data.train)

    def params(lr, clip):
        opt = SGD(lr=lr, weight_decay=0.0, batch_size=n, max_grad_norm=clip)
        r = fit(
            data,
            model=MF(dim=8),
            loss=BPR(),
            sampler=RNS(),
            optimizer=opt,
            epochs=1,
            rng=5,
            evaluation=Evaluation(ks=(5,)),
            progress=False,
        )
        return np.concatenate([r.user_emb.ravel(), r.item_emb.ravel()]).astype(np.float64)

    start = params(1e-30, None)
    free = params(0.5, None) - start
    assert np.linalg.norm(free) > 0.5 * 1e-3  # the gradient is larger than the clip below
    clipped = params(0.5, 1e-3) - start
    np.testing.assert_allclose(np.linalg.norm(clipped), 0.5 * 1e-3, rtol=1e-3)
    cosine = clipped @ free / (np.linalg.norm(clipped) * np.linalg.norm(free))
    assert cosine > 1 - 1e-6
    # a bound above the gradient's norm changes nothing, bit for bit
    np.testing.assert_array_equal(params(0.5, 1e9), params(0.5, None))
