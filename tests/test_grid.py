"""The training grid: every (model, loss, sampler, optimizer) combination that is defined runs (issue 67).

The grid is the review's: 3 models x 8 losses x 9 samplers x 3 optimizers = 648 combinations,
each trained for one epoch on a tiny split through :func:`negtheory.training.fit` with
``engine="auto"``. A combination is refused only when it is not defined mathematically
(:func:`negtheory.training.undefined`), with a reason that says what needs what; the expected set
of refusals is written here from the maths (CCL's positive term 1 - x needs bounded scores), not
read from the code.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

pytest.importorskip("torch")

from negtheory.recsys import load_split  # noqa: E402
from negtheory.training import (  # noqa: E402
    AOBPR,
    BCE,
    BCL,
    BNS,
    BPR,
    CCL,
    DCL,
    DNS,
    DPL,
    HCL,
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
    choose_engine,
    fit,
    undefined,
)

MODELS = {
    "MF": MF(dim=4),
    "MF-cosine": MF(dim=4, similarity="cosine", dropout=0.1),
    "LightGCN": LightGCN(dim=4),
}
LOSSES = {
    "BPR": BPR(),
    "BCE": BCE(negatives=3),
    "InfoNCE": InfoNCE(negatives=3),
    "DCL": DCL(negatives=3),
    "HCL": HCL(negatives=3),
    "DPL": DPL(negatives=3),
    "BCL": BCL(negatives=3),
    "CCL": CCL(negatives=3),
}
SAMPLERS = {
    "RNS": RNS(),
    "RNS-device": RNS(on_device=True),
    "PNS": PNS(),
    "DNS": DNS(candidates=2),
    "BNS": BNS(candidates=3),
    "AOBPR": AOBPR(),
    "SRNS": SRNS(memory=2, candidates=2, warmup=1.0),
    "SharedUniform": SharedUniform(),
    "CatalogueUniform": CatalogueUniform(),
}
OPTIMIZERS = {"SGD-1": SGD(), "SGD-32": SGD(batch_size=32), "Adam": Adam(batch_size=32)}


@pytest.fixture(scope="module")
def tiny():
    rng = np.random.default_rng(0)
    pairs = np.unique(rng.integers(0, [12, 24], size=(150, 2)), axis=0)
    return load_split(pairs[:100], pairs[100:])


def _expected_undefined(model: str, loss: str) -> bool:
    # CCL = (1 - x_ui) + w/N sum_j max(0, x_uj - m): its positive term is unbounded below unless the
    # scores are bounded (cosine); the grid's CCL keeps the paper's 1 - x (positive_hinge=False)
    return loss == "CCL" and model != "MF-cosine"


def test_the_grid_runs_every_defined_combination(tiny):
    ran, refused, backends = 0, {}, {"sgd": 0, "torch": 0}
    ev = Evaluation(ks=(5,))
    grid = itertools.product(MODELS.items(), LOSSES.items(), SAMPLERS.items(), OPTIMIZERS.items())
    for (mn, m), (ln, loss), (sn, s), (on, opt) in grid:
        if _expected_undefined(mn, ln):
            with pytest.raises(ValueError, match="not defined") as exc:
                fit(tiny, model=m, loss=loss, sampler=s, optimizer=opt, epochs=1, evaluation=ev)
            refused[(mn, ln, sn, on)] = str(exc.value)
            continue
        r = fit(tiny, model=m, loss=loss, sampler=s, optimizer=opt, epochs=1, evaluation=ev, rng=1)
        assert r.history[-1]["epoch"] == 1, (mn, ln, sn, on)
        assert math.isfinite(r.history[-1]["loss"]), (mn, ln, sn, on)
        assert 0.0 <= r.history[-1]["test_ndcg@5"] <= 1.0
        assert r.user_emb.shape == (tiny.n_users, 4)
        backends[r.engine] += 1
        ran += 1
    total = len(MODELS) * len(LOSSES) * len(SAMPLERS) * len(OPTIMIZERS)
    assert total == 648
    assert ran + len(refused) == total
    # the refusals: CCL on the two inner-product models, each with the mathematical reason
    assert len(refused) == 2 * len(SAMPLERS) * len(OPTIMIZERS) == 54
    assert all(
        "CCL needs bounded scores" in msg and "engine" not in msg for msg in refused.values()
    )
    # the numba backend serves what it covers: MF with the inner product and SGD batch 1, BPR with the
    # six host samplers (RNS, PNS, DNS, BNS, AOBPR, SRNS), BCE and InfoNCE with N = 3 negatives with the
    # five that draw N per pair there (SRNS draws one per pair in the numba kernel)
    assert backends["sgd"] == 6 + 2 * 5
    print(
        f"\ngrid: {total} combinations, {ran} run ({backends}), {len(refused)} refused (not defined):"
    )
    print("  " + next(iter(refused.values())))


@pytest.mark.parametrize("model", [MF(dim=4), LightGCN(dim=4)], ids=["MF", "LightGCN"])
@pytest.mark.parametrize(
    "loss",
    [BCL(negatives=4), DCL(negatives=4), HCL(negatives=4), InfoNCE(negatives=4)],
    ids=["BCL", "DCL", "HCL", "InfoNCE"],
)
def test_the_thesis_pairings_of_bns_run(tiny, model, loss):
    # BNS with the contrastive losses (thesis ch. 5-6): each of the N negatives its own BNS choice
    r = fit(
        tiny,
        model=model,
        loss=loss,
        sampler=BNS(candidates=3),
        optimizer=Adam(batch_size=32),
        epochs=2,
        evaluation=Evaluation(ks=(5,)),
    )
    assert r.engine == "torch" and len(r.history) == 2 and math.isfinite(r.history[-1]["loss"])


def test_bns_options_run_on_the_torch_trainer(tiny):
    # the options that the numba backend alone used to run: the oracle, uniform and per-user priors,
    # F over the candidates, a lambda schedule and RNS warm-up epochs
    rows = np.full((tiny.n_users, tiny.n_items), 0.05)
    for s in [
        BNS(prior="oracle"),
        BNS(prior="uniform"),
        BNS(prior=rows),
        BNS(ecdf="candidates"),
        BNS(lam_schedule=(10.0, 5.0)),
        BNS(warm_rns_epochs=1),
    ]:
        r = fit(
            tiny,
            model=LightGCN(dim=4),
            loss=BPR(),
            sampler=s,
            optimizer=Adam(batch_size=32),
            epochs=2,
            evaluation=Evaluation(ks=(5,)),
        )
        assert math.isfinite(r.history[-1]["loss"])


def test_engine_sgd_asked_for_an_uncovered_combination_names_the_backend():
    with pytest.raises(ValueError, match="numba backend does not cover"):
        choose_engine(LightGCN(), BPR(), RNS(), SGD(), engine="sgd")
    assert choose_engine(LightGCN(), BPR(), RNS(), SGD()) == "torch"
    assert undefined(MF(), CCL(positive_hinge=True), RNS(), Adam()) == []
