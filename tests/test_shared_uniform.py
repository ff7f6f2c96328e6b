"""SharedUniform: one row of catalogue-uniform negatives per mini-batch, scored by one matrix product.

* the draw's law: every row of a batch holds the same items, i.i.d. uniform over the whole catalogue
  (training items included), checked by a chi-square test;
* ``shared_scores`` equals the model's own scores of the expanded [B, N] items, value and gradient
  (MF inner product, MF cosine, LightGCN);
* a training epoch with the shared path equals, step for step, the generic per-row path fed the same
  broadcast draws (same loss, same L2: each shared negative counted once per row);
* the batch-1 SGD engine refuses it with a message naming the sampler.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from toy_data import random_train

from negtheory.recsys import load_split
from negtheory.training import MF, SGD, Adam, SharedUniform

torch = pytest.importorskip("torch")


_data = random_train


def test_rows_share_the_draw_and_the_law_is_uniform_over_the_catalogue():
    d = load_split(
        np.array([[0, 0], [0, 1], [1, 2]]), np.array([[0, 3]])
    )  # 4 items, user 0 trained on 0 and 1
    x = SharedUniform().sample(d, [0, 1, 0], 5, rng=1)
    assert x.shape == (3, 5) and (x == x[0]).all()
    b = SharedUniform().bind(d)
    g = np.random.default_rng(7)
    draws = np.concatenate([b.draw([0], 50, g)[0] for _ in range(400)])  # 20 000 draws
    counts = np.bincount(draws, minlength=4)
    assert counts[0] > 0 and counts[1] > 0  # the user's training items are drawn too (unlabeled)
    assert stats.chisquare(counts).pvalue > 1e-3


def test_the_same_seed_gives_the_same_draws():
    d = _data()
    a = SharedUniform().sample(d, np.arange(5), 7, rng=3)
    np.testing.assert_array_equal(a, SharedUniform().sample(d, np.arange(5), 7, rng=3))


@pytest.mark.parametrize("model", ["dot", "cosine", "lightgcn"])
def test_shared_scores_equal_the_expanded_scores_with_gradients(model):
    from negtheory.bridge.recommend import MF as TorchMF
    from negtheory.bridge.recommend import LightGCN, shared_scores

    d = _data()
    gen = torch.Generator().manual_seed(0)
    if model == "lightgcn":
        m = LightGCN(d.n_users, d.n_items, d.train, 6, 2, generator=gen).double()
    else:
        m = TorchMF(d.n_users, d.n_items, 6, generator=gen, cosine=model == "cosine").double()
    g = torch.Generator().manual_seed(1)
    users = torch.randint(0, d.n_users, (8,), generator=g)
    items = torch.randint(
        0, d.n_items, (50,), generator=g
    )  # 8 x 50 > 30 items: MF's table-once cosine path too
    got = shared_scores(m, users, items)
    ref = m(users, items.expand(8, 50))
    torch.testing.assert_close(got, ref, rtol=1e-12, atol=1e-13)
    w = torch.randn(ref.shape, generator=g, dtype=ref.dtype)
    params = [p for p in m.parameters() if p.requires_grad]
    for a, b in zip(
        torch.autograd.grad((got * w).sum(), params), torch.autograd.grad((ref * w).sum(), params)
    ):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="items must be a 1-d tensor"):
        shared_scores(m, users, items[None, :])


@pytest.mark.parametrize("loss", ["infonce", "dcl"])
@pytest.mark.parametrize("model", ["mf", "lightgcn"])
def test_an_epoch_on_the_shared_path_equals_the_per_row_path_fed_the_same_draws(loss, model):
    from negtheory.bridge import build_loss
    from negtheory.bridge import recommend as R
    from negtheory.training import specs as S

    d = _data()
    m_extra = 2 if loss == "dcl" else 0
    spec = (
        S.DCL(extra_positives=2, tau_plus=0.01, temperature=0.5)
        if loss == "dcl"
        else S.InfoNCE(temperature=0.5)
    )
    nets = []
    for shared in (True, False):
        gen = torch.Generator().manual_seed(0)
        if model == "mf":
            net = R.MF(d.n_users, d.n_items, 4, generator=gen, cosine=True).double()
        else:
            net = R.LightGCN(d.n_users, d.n_items, d.train, 4, 2, generator=gen).double()
        opt = torch.optim.Adam(net.parameters(), lr=0.05)
        sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[], gamma=1.0)
        run = R._MFRunner(
            net,
            opt,
            sched,
            build_loss(spec),
            d,
            m_extra,
            6,
            32,
            torch.device("cpu"),
            np.random.default_rng(5),
            batch_l2=1e-2,
            spec=S.SharedUniform(),
        )
        run.shared = (
            shared  # False: the generic path draws through the same bound sampler, B broadcast rows
        )
        out = [run.run_epoch(e)["loss"] for e in range(2)]
        nets.append((out, [p.detach().clone() for p in net.parameters()]))
    (la, pa), (lb, pb) = nets
    np.testing.assert_allclose(la, lb, rtol=1e-10)
    for a, b in zip(pa, pb):
        torch.testing.assert_close(a, b, rtol=1e-8, atol=1e-10)


def test_fit_trains_with_shared_negatives_at_any_batch_size():
    from negtheory.training import InfoNCE, fit

    d = _data()
    res = fit(
        d,
        model=MF(dim=4, similarity="cosine"),
        loss=InfoNCE(negatives=16, temperature=0.2),
        sampler=SharedUniform(),
        optimizer=Adam(lr=0.01, batch_size=32),
        epochs=2,
        rng=0,
    )
    assert res.engine == "torch" and res.config["sampler"] == "shared_uniform"
    assert np.isfinite(res.history[-1]["loss"])
    # batch 1: the numba backend draws among the non-interacted items, so the torch trainer runs it
    r1 = fit(
        d,
        model=MF(dim=4),
        loss=InfoNCE(negatives=4),
        sampler=SharedUniform(),
        optimizer=SGD(),
        epochs=1,
    )
    assert r1.engine == "torch" and np.isfinite(r1.history[-1]["loss"])
    with pytest.raises(ValueError, match="sampler=SharedUniform: the numba backend"):
        fit(
            d,
            model=MF(dim=4),
            loss=InfoNCE(negatives=4),
            sampler=SharedUniform(),
            optimizer=SGD(),
            epochs=1,
            engine="sgd",
        )


def test_dropout_scores_a_rows_items_and_the_shared_negatives_with_one_mask():
    from negtheory.bridge.recommend import MF as TorchMF

    m = TorchMF(
        5,
        9,
        dim=6,
        generator=torch.Generator().manual_seed(0),
        cosine=True,
        dropout=0.5,
        dropout_seed=3,
    )
    m.train()
    u, items, shared = (
        torch.tensor([0, 1, 4]),
        torch.tensor([[1, 2], [3, 4], [0, 8]]),
        torch.tensor([5, 6, 7]),
    )
    own, extra = m.scores_with_shared(u, items, shared)
    # the one dropped user vector: the scores over all the items are those of a single forward pass with
    # the same mask (same seed) over the row's items followed by the shared ones
    m2 = TorchMF(
        5,
        9,
        dim=6,
        generator=torch.Generator().manual_seed(0),
        cosine=True,
        dropout=0.5,
        dropout_seed=3,
    )
    m2.train()
    both = m2(u, torch.cat([items, shared.expand(3, 3)], dim=1))
    torch.testing.assert_close(torch.cat([own, extra], dim=1), both)


def test_ccl_is_the_published_formula_value_and_gradient():
    from negtheory.bridge.functional import ccl

    g = torch.Generator().manual_seed(0)
    pos = torch.rand(6, generator=g, dtype=torch.float64) * 2 - 1
    neg = (torch.rand(6, 9, generator=g, dtype=torch.float64) * 2 - 1).requires_grad_(True)
    m, w = 0.3, 7.0
    # by hand, per anchor: (1 - pos) + w / N * sum_j max(0, neg_j - m)
    p, n = pos.numpy(), neg.detach().numpy()
    ref = (1 - p) + w / 9 * np.maximum(0.0, n - m).sum(1)
    got = ccl(pos, neg, m, w, reduction="none")
    np.testing.assert_allclose(got.detach().numpy(), ref, rtol=1e-12)
    (grad,) = torch.autograd.grad(got.sum(), neg)
    np.testing.assert_allclose(grad.numpy(), w / 9 * (n > m), rtol=1e-12)
    np.testing.assert_allclose(
        float(ccl(pos, neg.detach(), m, None)), np.mean((1 - p) + np.maximum(0, n - m).sum(1))
    )
    with pytest.raises(ValueError, match="margin"):
        ccl(pos, neg, 1.5)
    with pytest.raises(ValueError, match="negative_weight"):
        ccl(pos, neg, 0.5, 0.0)


def test_ccl_needs_bounded_scores():
    from negtheory.training import CCL, LightGCN, fit

    d = _data()
    res = fit(
        d,
        model=MF(dim=4, similarity="cosine"),
        loss=CCL(negatives=16, negative_weight=5.0),
        sampler=SharedUniform(),
        optimizer=Adam(lr=0.01, batch_size=32),
        epochs=2,
        rng=0,
    )
    assert res.config["loss"] == "ccl" and res.config["margin"] == 0.9
    losses = [h["loss"] for h in res.history]
    assert all(np.isfinite(losses))
    for model in (MF(dim=4), LightGCN(dim=4)):
        with pytest.raises(ValueError, match="CCL needs bounded scores"):
            fit(d, model=model, loss=CCL(negatives=4), optimizer=Adam(batch_size=32), epochs=1)
        # the released code's max(0, 1 - x) is bounded below: defined on inner products too
        r = fit(
            d,
            model=model,
            loss=CCL(negatives=4, positive_hinge=True),
            optimizer=Adam(batch_size=32),
            epochs=1,
        )
        assert np.isfinite(r.history[-1]["loss"])
    with pytest.raises(ValueError, match="CCL.margin"):
        CCL(margin=2.0)
