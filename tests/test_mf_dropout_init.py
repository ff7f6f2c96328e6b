"""MF's initial scale and user-vector dropout (MF-CCL's released model) in the mini-batch engine."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import negtheory.bridge.recommend as rec  # noqa: E402
from negtheory.bridge.recommend import MF as NetMF  # noqa: E402
from negtheory.recsys import load_split  # noqa: E402
from negtheory.training import MF, RNS, Adam, Evaluation, InfoNCE, fit  # noqa: E402


def _net(**kw):
    return NetMF(40, 300, dim=16, generator=torch.Generator().manual_seed(0), cosine=True, **kw)


def test_init_std_sets_the_scale_of_both_tables():
    # n = 40 x 16 and 300 x 16 entries N(0, s^2): the sample sd / s has sd ~ 1 / sqrt(2 n); 5 of them
    net = _net(init_std=1e-4)
    for w in (net.user.weight.detach(), net.item.weight.detach()):
        assert abs(float(w.std()) / 1e-4 - 1) < 5 / np.sqrt(2 * w.numel())
        assert abs(float(w.mean())) < 5 * 1e-4 / np.sqrt(w.numel())
    # Xavier normal without it: sd sqrt(2 / (d + n))
    xav = _net().item.weight.detach()
    assert abs(float(xav.std()) / np.sqrt(2 / (16 + 300)) - 1) < 5 / np.sqrt(2 * xav.numel())


def test_dropout_keeps_each_coordinate_with_probability_1_minus_p_and_rescales():
    p = 0.3
    net = _net(dropout=p, dropout_seed=5)
    wu = torch.randn(4000, 16, dtype=torch.float32)
    out = net._dropped(wu)
    kept = out != 0
    # 64 000 Bernoulli(0.7) coordinates: 5 standard errors
    rate, se = float(kept.float().mean()), np.sqrt(p * (1 - p) / kept.numel())
    assert abs(rate - (1 - p)) < 5 * se
    torch.testing.assert_close(out[kept], wu[kept] / (1 - p))
    # no dropout at evaluation time or without gradients
    with torch.no_grad():
        assert torch.equal(net._dropped(wu), wu)
    net.eval()
    assert torch.equal(net._dropped(wu), wu)


def test_the_masks_follow_the_seed_alone():
    users, items = (
        torch.tensor([0, 1, 2, 3]),
        torch.randint(0, 300, (4, 20), generator=torch.Generator().manual_seed(1)),
    )
    a, b, c = (_net(dropout=0.5, dropout_seed=s)(users, items) for s in (7, 7, 8))
    torch.manual_seed(123)  # torch's global stream does not enter
    assert torch.equal(a, b) and not torch.equal(a, c)


def test_dropout_is_the_same_on_the_fused_and_the_torch_path(monkeypatch):
    # K = 20 >= the fused threshold: the CPU kernels; with the threshold raised, torch's ops; the same mask
    users = torch.tensor([0, 5, 9])
    items = torch.randint(0, 300, (3, 20), generator=torch.Generator().manual_seed(2))
    fused = _net(dropout=0.4, dropout_seed=3)(users, items)
    monkeypatch.setattr(rec, "_FUSED_MIN_K", 10**9)
    plain = _net(dropout=0.4, dropout_seed=3)(users, items)
    torch.testing.assert_close(fused, plain, rtol=1e-5, atol=1e-6)
    # the dropped scores are the cosines of the kept coordinates, rescaled
    ref = _net()(users, items)
    assert not torch.allclose(fused, ref)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(dropout=1.0), "dropout"),
        (dict(dropout=-0.1), "dropout"),
        (dict(init_std=0.0), "init_std"),
    ],
)
def test_bad_values_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        _net(**kw)
    spec_kw = {"dropout": kw["dropout"]} if "dropout" in kw else {"init_std": kw["init_std"]}
    with pytest.raises(ValueError, match=f"MF.{match}"):
        MF(**spec_kw)


def test_fit_trains_with_both_and_records_them():
    rng = np.random.default_rng(0)
    pairs = np.unique(rng.integers(0, [25, 60], size=(500, 2)), axis=0)
    rng.shuffle(pairs)
    data = load_split(pairs[:400], pairs[400:])
    kw = dict(
        loss=InfoNCE(negatives=8, temperature=0.1),
        sampler=RNS(),
        optimizer=Adam(lr=1e-2, batch_size=64),
        epochs=2,
        evaluation=Evaluation(every=2, ks=(5,)),
        rng=4,
    )
    model = MF(dim=8, similarity="cosine", init_std=1e-4, dropout=0.1)
    r1, r2 = fit(data, model=model, **kw), fit(data, model=model, **kw)
    assert r1.config["dropout"] == 0.1 and r1.config["init_std"] == 1e-4
    np.testing.assert_array_equal(r1.item_emb, r2.item_emb)  # the same seed, the same run
    r0 = fit(data, model=MF(dim=8, similarity="cosine", init_std=1e-4), **kw)
    assert not np.array_equal(r0.item_emb, r1.item_emb)  # dropout changed the training
    assert all(np.isfinite(h["test_recall@5"]) for h in r1.history)
