"""The mini-batch step's cost cuts (issue 29) give the plain formulas' values and gradients.

* ``batch_sq_norm``: the L2 of the gathered rows by row counts equals the gather-and-square sum;
* ``MF``: cosine scores from the table normalised once equal the cosine of the gathered rows, and the
  ``bmm`` scores equal the elementwise product summed;
* a diverging run still stops with ``FloatingPointError`` although the loss is read once per epoch.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from negtheory.bridge.recommend import MF, batch_sq_norm  # noqa: E402


@pytest.mark.parametrize(
    "n_idx", [3, 50]
)  # fewer entries than rows (gather path) and more (count path)
def test_batch_sq_norm_equals_the_gathered_sum_value_and_gradient(n_idx):
    g = torch.Generator().manual_seed(n_idx)
    emb = torch.nn.Embedding(7, 4).double()
    with torch.no_grad():
        emb.weight.normal_(generator=g)
    idx = torch.randint(0, 7, (n_idx, 2), generator=g)
    ref = emb(idx).pow(2).sum()
    (g_ref,) = torch.autograd.grad(ref, emb.weight)
    got = batch_sq_norm(emb, idx)
    (g_got,) = torch.autograd.grad(got, emb.weight)
    torch.testing.assert_close(got, ref, rtol=1e-12, atol=0)
    torch.testing.assert_close(g_got, g_ref, rtol=1e-12, atol=0)
    # the count form by hand: sum_r c_r ||e_r||^2, with gradient 2 c_r e_r
    c = np.bincount(idx.numpy().ravel(), minlength=7)
    w = emb.weight.detach().numpy()
    assert np.isclose(float(got.detach()), float((c * (w**2).sum(1)).sum()), rtol=1e-12)
    np.testing.assert_allclose(g_got.numpy(), 2 * c[:, None] * w, rtol=1e-12)


def test_batch_sq_norm_names_a_non_integer_index():
    with pytest.raises(ValueError, match="idx must be an integer"):
        batch_sq_norm(torch.nn.Embedding(3, 2), torch.tensor([0.0, 1.0]))


@pytest.mark.parametrize("cosine", [False, True])
@pytest.mark.parametrize(
    "k", [2, 40]
)  # 2 x 4 < 9 items: per-row path; 40 x 4 > 9 items: the table once
def test_mf_scores_equal_the_elementwise_formula_with_gradients(cosine, k):
    m = MF(5, 9, dim=6, generator=torch.Generator().manual_seed(k), cosine=cosine).double()
    g = torch.Generator().manual_seed(1)
    users = torch.randint(0, 5, (4,), generator=g)
    items = torch.randint(0, 9, (4, k), generator=g)
    got = m(users, items)
    wu, hi = m.user(users), m.item(items)
    if cosine:
        wu, hi = wu / wu.norm(dim=-1, keepdim=True), hi / hi.norm(dim=-1, keepdim=True)
    ref = (wu[:, None, :] * hi).sum(-1)
    torch.testing.assert_close(got, ref, rtol=1e-12, atol=1e-14)
    w = torch.randn(ref.shape, generator=g, dtype=ref.dtype)
    grads_got = torch.autograd.grad((got * w).sum(), list(m.parameters()))
    grads_ref = torch.autograd.grad((ref * w).sum(), list(m.parameters()))
    for a, b in zip(grads_got, grads_ref):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)


def test_a_diverging_minibatch_run_still_raises():
    from negtheory.recsys import Interactions
    from negtheory.training import MF as MFSpec
    from negtheory.training import RNS, SGD, InfoNCE, fit

    rng = np.random.default_rng(0)
    pairs = np.unique(np.c_[rng.integers(0, 20, 200), rng.integers(0, 30, 200)], axis=0)
    data = Interactions(20, 30, pairs, np.zeros((0, 2), dtype=np.int64))
    with pytest.raises(FloatingPointError, match="training diverged"):
        fit(
            data,
            model=MFSpec(dim=4),
            loss=InfoNCE(negatives=3, temperature=1e-30),
            sampler=RNS(),
            optimizer=SGD(lr=1e30, batch_size=16),
            epochs=3,
            rng=0,
            engine="torch",
        )
