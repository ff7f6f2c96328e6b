"""Device-side RNS (exact inverse CDF) and device-side top-k ranking against their reference versions.

Each test runs on the CPU; with CUDA present the ``device`` parameter adds the GPU.
"""

import numpy as np
import pytest
from scipy import stats

torch = pytest.importorskip("torch")

from negtheory.bridge.device_sampling import UniformFreeSampler  # noqa: E402
from negtheory.bridge.recommend import device_top_items  # noqa: E402
from negtheory.recsys import load_split  # noqa: E402
from negtheory.recsys.loop import ScoreMatrix  # noqa: E402
from negtheory.recsys.metrics import _top_items, topk_metrics_csr  # noqa: E402

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def _random_csr(rng, n_users, n_items, max_deg):
    rows = []
    for _ in range(n_users):
        k = int(rng.integers(0, max_deg + 1))
        rows.append(rng.choice(n_items, size=k, replace=False))  # unsorted on purpose
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    return indptr, np.concatenate(rows).astype(np.int64)


@pytest.mark.parametrize("device", DEVICES)
def test_free_item_is_a_bijection_onto_each_users_free_items(device):
    # exact: r = 0 .. n_free - 1 maps onto the sorted non-interacted items of the user, in order
    rng = np.random.default_rng(3)
    n_items = 37
    indptr, indices = _random_csr(rng, 25, n_items, 36)
    s = UniformFreeSampler((indptr, indices), n_items, device)
    for u in range(25):
        train = set(indices[indptr[u] : indptr[u + 1]].tolist())
        free = [i for i in range(n_items) if i not in train]
        r = torch.arange(len(free), device=device)
        got = s.free_item(torch.full_like(r, u), r).cpu().tolist()
        assert got == free


@pytest.mark.parametrize("device", DEVICES)
def test_draws_are_uniform_on_free_items_and_never_training_items(device):
    n_items = 12
    indptr = np.array([0, 4, 4, 11])
    indices = np.array(
        [7, 0, 3, 11, 0, 1, 2, 3, 4, 5, 6]
    )  # user 2 has one free item group: 7..11 minus 11
    s = UniformFreeSampler((indptr, indices), n_items, device)
    gen = torch.Generator(device=device).manual_seed(0)
    users = torch.tensor([0, 1, 2], device=device)
    d = s.draw(users, 60_000, gen).cpu().numpy()
    for u in range(3):
        train = set(indices[indptr[u] : indptr[u + 1]].tolist())
        free = np.array([i for i in range(n_items) if i not in train])
        assert not set(np.unique(d[u]).tolist()) - set(free.tolist())
        counts = np.array([(d[u] == i).sum() for i in free])
        # chi-square goodness of fit to the uniform law on the free items (alpha = 1e-4)
        assert stats.chisquare(counts).pvalue > 1e-4


def test_sampler_rejects_a_full_user_and_bad_csr():
    s = UniformFreeSampler((np.array([0, 2]), np.array([0, 1])), 2)
    with pytest.raises(ValueError, match="every item"):
        s.draw(torch.tensor([0]), 1)
    with pytest.raises(ValueError, match="twice"):
        UniformFreeSampler((np.array([0, 2]), np.array([1, 1])), 3)
    with pytest.raises(ValueError, match="outside"):
        UniformFreeSampler((np.array([0, 1]), np.array([5])), 3)


@pytest.mark.parametrize("device", DEVICES)
def test_device_top_items_equals_the_reference_ranking_with_ties_and_masks(device):
    rng = np.random.default_rng(0)
    s = rng.integers(0, 6, size=(40, 30)).astype(np.float32)  # many ties
    s[3] = 1.0  # a whole row tied
    rows = rng.integers(0, 40, 200)
    items = rng.integers(0, 30, 200)
    ref = s.astype(np.float64)
    ref[rows, items] = -np.inf
    for k in (1, 5, 29, 30):
        got = device_top_items(torch.from_numpy(s.copy()).to(device), k, [(rows, items)])
        np.testing.assert_array_equal(got, _top_items(ref, k))
    cont = rng.normal(size=(40, 30)).astype(np.float32)  # no ties: the device result stands alone
    np.testing.assert_array_equal(
        device_top_items(torch.from_numpy(cont).to(device), 7),
        _top_items(cont.astype(np.float64), 7),
    )
    bad = torch.from_numpy(cont).to(device)
    bad[0, 0] = float("nan")
    with pytest.raises(ValueError, match="NaN"):
        device_top_items(bad, 3)


@pytest.mark.parametrize("device", DEVICES)
def test_blocked_metrics_with_a_device_ranking_equal_the_dense_metrics(device):
    # a ScoreMatrix above its dense limit that ranks on the device gives the dense metrics bit for bit
    rng = np.random.default_rng(1)
    pairs = np.unique(rng.integers(0, [150, 90], size=(3000, 2)), axis=0)
    rng.shuffle(pairs)
    d = load_split(pairs[:2000], pairs[2000:]).with_validation(0.1, rng=0)
    eu = torch.from_numpy(rng.normal(size=(150, 8)).astype(np.float32)).to(device)
    ei = torch.from_numpy(rng.normal(size=(90, 8)).astype(np.float32)).to(device)
    ei[5] = ei[6]  # two items with identical scores for every user: ties

    def rows(u):
        return eu[torch.from_numpy(u).to(device)] @ ei.T

    def block(u):
        return rows(u).cpu().numpy()

    def top(u, k, masked):
        return device_top_items(rows(u), k, masked)

    fast = ScoreMatrix((150, 90), block, dense_limit=0, min_rows=64, top=top)
    slow = ScoreMatrix((150, 90), block, dense_limit=0, min_rows=64)
    dense = np.concatenate([block(np.arange(s0, min(150, s0 + 64))) for s0 in range(0, 150, 64)])
    ex = (d.train_csr(), d.valid_csr())
    for ks in ((20,), (1, 5, 10)):
        a = topk_metrics_csr(fast, d.test_csr(), ex, ks, block_users=64)
        b = topk_metrics_csr(slow, d.test_csr(), ex, ks, block_users=64)
        c = topk_metrics_csr(dense, d.test_csr(), ex, ks, block_users=64)
        assert a == b == c
    assert fast.top_items(np.array([0, 1]), 3, []).shape == (2, 3)
    assert slow.top_items(np.array([0]), 3) is None


def test_fit_with_device_rns_cosine_and_many_bpr_negatives_runs_and_learns():
    from negtheory.training import BPR, MF, RNS, Adam, Evaluation, InfoNCE, fit

    rng = np.random.default_rng(0)
    # planted structure: users and items in 4 groups, users interact within their group
    users = rng.integers(0, 120, 2000)
    items = (users % 4) * 25 + rng.integers(0, 25, 2000)
    pairs = np.unique(np.stack([users, items], 1), axis=0)
    rng.shuffle(pairs)
    cut = int(0.75 * len(pairs))
    d = load_split(pairs[:cut], pairs[cut:]).with_validation(0.1, rng=0)
    ev = Evaluation(every=5, ks=(10,))
    opt = Adam(lr=0.02, batch_size=256)
    for model, loss in (
        (MF(dim=8), BPR(negatives=20)),
        (MF(dim=8, similarity="cosine"), InfoNCE(negatives=16, temperature=0.2)),
    ):
        r = fit(
            d,
            model=model,
            loss=loss,
            sampler=RNS(on_device=True),
            optimizer=opt,
            epochs=15,
            evaluation=ev,
        )
        # random ranking gives recall@10 about 10 / 75; the planted groups lift it far above
        assert r.history[-1]["test_recall@10"] > 0.3
        assert r.config["rns_on_device"] is True
    again = fit(
        d,
        model=MF(dim=8),
        loss=BPR(negatives=20),
        sampler=RNS(on_device=True),
        optimizer=opt,
        epochs=2,
        evaluation=ev,
        rng=4,
    )
    same = fit(
        d,
        model=MF(dim=8),
        loss=BPR(negatives=20),
        sampler=RNS(on_device=True),
        optimizer=opt,
        epochs=2,
        evaluation=ev,
        rng=4,
    )
    np.testing.assert_array_equal(again.item_emb, same.item_emb)  # seeded: the same run twice


def test_the_new_options_go_to_the_torch_trainer_and_bad_values_name_their_parameters():
    from negtheory.training import BNS, BPR, MF, RNS, SGD, Adam, choose_engine

    # what the numba backend does not cover runs on the torch trainer (auto); asked for, it is named
    assert choose_engine(MF(similarity="cosine"), BPR(), RNS(), SGD()) == "torch"
    assert choose_engine(MF(), BPR(negatives=3), RNS(), SGD()) == "torch"
    assert choose_engine(MF(similarity="cosine"), BPR(), BNS(), Adam()) == "torch"
    with pytest.raises(ValueError, match="negatives=3"):
        choose_engine(MF(), BPR(negatives=3), RNS(), SGD(), engine="sgd")
    with pytest.raises(ValueError, match="on_device"):
        choose_engine(MF(), BPR(), RNS(on_device=True), SGD(), engine="sgd")
    with pytest.raises(ValueError, match="similarity"):
        MF(similarity="euclid")
    with pytest.raises(TypeError, match="on_device"):
        RNS(on_device="yes")


def test_new_spec_fields_round_trip_through_json():
    from negtheory.training import BPR, MF, RNS, spec_from_json

    for spec in (
        MF(dim=4, similarity="cosine"),
        RNS(on_device=True),
        BPR(negatives=300, temperature=0.5),
    ):
        assert spec_from_json(spec.to_json()) == spec
    # specs written before these fields existed read back with the old behaviour
    assert spec_from_json('{"kind": "BPR", "temperature": 1.0}') == BPR(negatives=1)
    assert spec_from_json('{"kind": "MF", "dim": 8, "init_std": null}').similarity == "dot"
    assert spec_from_json('{"kind": "RNS"}') == RNS(on_device=False)


def test_host_draw_equals_the_global_searchsorted_draw():
    # on the CPU draw() counts within each user's row (_free_items); the module's formula with one
    # searchsorted over every user's keys is the reference: the same integers for the same uniforms
    rng = np.random.default_rng(11)
    n_items = 53
    indptr, indices = _random_csr(rng, 40, n_items, 30)
    s = UniformFreeSampler((indptr, indices), n_items)
    users = torch.from_numpy(rng.integers(0, 40, 64))
    got = s.draw(users, 200, torch.Generator().manual_seed(5))
    u01 = torch.rand((64, 200), generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    free = s.n_free[users]
    r = torch.minimum((u01 * free[:, None]).long(), free[:, None] - 1)
    ref = (
        r
        + torch.searchsorted(s.keys, users[:, None] * s.stride + r, right=True)
        - s.start[users][:, None]
    )
    assert torch.equal(got, ref)
    for b, u in enumerate(users.tolist()):
        assert not set(got[b].tolist()) & set(indices[indptr[u] : indptr[u + 1]].tolist())
