"""MF-CCL's released sampler and loss term: CatalogueUniform and CCL(positive_hinge=True).

* CatalogueUniform's law: each row's draws i.i.d. uniform over the whole catalogue, the user's training
  items included (chi-square on the host draw and on the device draw of the mini-batch engine), rows
  drawn independently (not shared), the same seed gives the same draws;
* the engines: the mini-batch engine trains with it (host and device draws) and records it; the
  batch-1 SGD engine refuses it, naming the sampler; the spec validates and round-trips through JSON;
* CCL's positive hinge equals the paper's term on scores <= 1, value and gradient, and differs from it
  exactly where a score exceeds 1 (there its gradient is 0), as relu(1 - s) must;
* the Gowalla rungs: ``-released-sampler`` changes only the sampler of its rung, ``-hinge`` only the loss.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from toy_data import random_train

from negtheory.recsys import load_split
from negtheory.training import CCL, MF, SGD, Adam, CatalogueUniform, InfoNCE, spec_from_json

torch = pytest.importorskip("torch")


_data = random_train


def test_host_draws_are_uniform_over_the_catalogue_per_row_training_items_included():
    d = load_split(
        np.array([[0, 0], [0, 1], [1, 2]]), np.array([[0, 3]])
    )  # 4 items, user 0 trained on 0 and 1
    b = CatalogueUniform().bind(d)
    x = b.draw(
        np.zeros(5000, dtype=np.int64), 4, np.random.default_rng(7)
    )  # 20 000 draws for user 0
    assert x.shape == (5000, 4) and x.dtype == np.int64
    counts = np.bincount(x.ravel(), minlength=4)
    assert (
        counts[0] > 0 and counts[1] > 0
    )  # the user's own training items are drawn (unlabeled draws)
    assert stats.chisquare(counts).pvalue > 1e-3
    # rows are drawn independently, not shared: 5 000 rows of 4 draws from 4 items cannot all agree
    assert not (x == x[0]).all()
    # independence of a row's positions: the pair (first, second) is uniform over the 16 cells
    cells = np.bincount(x[:, 0] * 4 + x[:, 1], minlength=16)
    assert stats.chisquare(cells).pvalue > 1e-3


def test_the_same_seed_gives_the_same_draws():
    d = _data()
    a = CatalogueUniform().sample(d, np.arange(5), 7, rng=3)
    np.testing.assert_array_equal(a, CatalogueUniform().sample(d, np.arange(5), 7, rng=3))
    assert not np.array_equal(a, CatalogueUniform().sample(d, np.arange(5), 7, rng=4))


def test_device_draws_have_the_same_law():
    from negtheory.recsys import load_split

    d5 = load_split(np.array([[0, 0], [0, 1], [0, 4]]), np.array([[0, 2], [0, 3]]))
    users = np.zeros(4000, dtype=np.int64)
    bound = CatalogueUniform(on_device=True).bind(d5)
    bound.start(None, np.random.default_rng(0))
    x = bound.draw(users, 5)
    assert isinstance(x, torch.Tensor) and tuple(x.shape) == (4000, 5) and x.dtype == torch.int64
    counts = np.bincount(x.numpy().ravel(), minlength=5)
    # uniform over the whole catalogue, the user's training items 0, 1 and 4 included
    assert counts.size == 5 and stats.chisquare(counts).pvalue > 1e-3
    again = CatalogueUniform(on_device=True).bind(d5)
    again.start(None, np.random.default_rng(0))
    assert torch.equal(x, again.draw(users, 5))


def test_spec_validates_and_round_trips():
    s = CatalogueUniform(on_device=True)
    assert spec_from_json(s.to_json()) == s and s != CatalogueUniform()
    with pytest.raises(TypeError, match="CatalogueUniform.on_device"):
        CatalogueUniform(on_device="yes")


@pytest.mark.parametrize("on_device", [False, True])
def test_the_minibatch_engine_trains_with_it_and_records_it(on_device):
    from negtheory.training import fit

    d = _data()
    res = fit(
        d,
        model=MF(dim=4, similarity="cosine", dropout=0.1),
        loss=InfoNCE(negatives=8),
        sampler=CatalogueUniform(on_device=on_device),
        optimizer=Adam(lr=0.01, batch_size=32),
        epochs=2,
        rng=0,
    )
    assert res.engine == "torch" and res.config["sampler"] == "catalogue_uniform"
    assert res.config.get("catalogue_on_device", False) == on_device
    assert all(np.isfinite([h["loss"] for h in res.history]))
    again = fit(
        d,
        model=MF(dim=4, similarity="cosine", dropout=0.1),
        loss=InfoNCE(negatives=8),
        sampler=CatalogueUniform(on_device=on_device),
        optimizer=Adam(lr=0.01, batch_size=32),
        epochs=2,
        rng=0,
    )
    np.testing.assert_array_equal(res.user_emb, again.user_emb)  # the run's seed fixes the draws


def test_the_host_path_feeds_the_spec_draws_to_the_step():
    """One step on the host path scores exactly the items CatalogueUniform.sample draws from the run's stream."""
    from negtheory.bridge import build_loss
    from negtheory.bridge import recommend as R
    from negtheory.training import specs as S

    d = _data()
    seen = []

    class Spy(R.MF):
        def forward(self, users, items):
            seen.append(items.detach().clone())
            return super().forward(users, items)

    model = Spy(d.n_users, d.n_items, 4, generator=torch.Generator().manual_seed(0))
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[])
    runner = R._MFRunner(
        model,
        opt,
        sched,
        build_loss(InfoNCE()),
        d,
        0,
        6,
        len(d.train),
        torch.device("cpu"),
        np.random.default_rng(5),
        spec=S.CatalogueUniform(),
    )
    runner.run_epoch(0)
    g = np.random.default_rng(5)
    b = d.train[g.permutation(len(d.train))]
    expect = CatalogueUniform().sample(d, b[:, 0], 6, rng=g)
    np.testing.assert_array_equal(seen[0][:, 1:].numpy(), expect)
    np.testing.assert_array_equal(seen[0][:, 0].numpy(), b[:, 1])


def test_batch1_runs_on_the_torch_trainer():
    from negtheory.training import fit

    r = fit(
        _data(),
        model=MF(dim=4),
        loss=InfoNCE(negatives=4),
        sampler=CatalogueUniform(),
        optimizer=SGD(),
        epochs=1,
    )
    assert r.engine == "torch" and np.isfinite(r.history[-1]["loss"])
    with pytest.raises(ValueError, match="sampler=CatalogueUniform: the numba backend"):
        fit(
            _data(),
            model=MF(dim=4),
            loss=InfoNCE(negatives=4),
            sampler=CatalogueUniform(),
            optimizer=SGD(),
            epochs=1,
            engine="sgd",
        )


def test_ccl_positive_hinge_is_relu_of_the_positive_term():
    from negtheory.bridge.functional import ccl

    g = torch.Generator().manual_seed(0)
    neg = torch.rand(8, 5, generator=g, dtype=torch.float64) * 2 - 1
    # scores <= 1 (a cosine): the hinge changes nothing, value and gradient
    pos = (torch.rand(8, generator=g, dtype=torch.float64) * 2 - 1).requires_grad_(True)
    a = ccl(pos, neg, 0.5, 3.0, reduction="none")
    b = ccl(pos, neg, 0.5, 3.0, positive_hinge=True, reduction="none")
    torch.testing.assert_close(a, b, rtol=0, atol=0)
    (ga,) = torch.autograd.grad(a.sum(), pos)
    (gb,) = torch.autograd.grad(b.sum(), pos)
    torch.testing.assert_close(ga, gb, rtol=0, atol=0)
    # scores above 1 (what the user-vector dropout allows): by hand, max(0, 1 - s) + w / N sum max(0, n - m)
    lifted = torch.tensor([0.4, 0.9, 1.3, 2.0], dtype=torch.float64, requires_grad=True)
    n4 = neg[:4]
    got = ccl(lifted, n4, 0.5, 3.0, positive_hinge=True, reduction="none")
    ref = np.maximum(0.0, 1 - lifted.detach().numpy()) + 3.0 / 5 * np.maximum(
        0.0, n4.numpy() - 0.5
    ).sum(1)
    np.testing.assert_allclose(got.detach().numpy(), ref, rtol=1e-12)
    (grad,) = torch.autograd.grad(got.sum(), lifted)
    np.testing.assert_array_equal(grad.numpy(), [-1.0, -1.0, 0.0, 0.0])
    plain = ccl(lifted.detach(), n4, 0.5, 3.0, reduction="none")
    assert (plain < got.detach())[2:].all() and (plain == got.detach())[:2].all()


def test_ccl_spec_positive_hinge():
    assert CCL().positive_hinge is False
    s = CCL(positive_hinge=True)
    assert spec_from_json(s.to_json()) == s
    with pytest.raises(TypeError, match="CCL.positive_hinge"):
        CCL(positive_hinge=1)


def test_the_released_sampler_and_hinge_rungs_change_one_thing_each():
    from negtheory.reproduce.gowalla_benchmark import RUNGS, rung_specs
    from negtheory.training import RNS

    base = "ccl-n800-simplex-adam-cut19-30-released-model-clip10"
    for loss in ("ccl", "infonce"):
        b = f"{loss}-n800-simplex-adam-cut19-30-released-model-clip10"
        plain, released = rung_specs(b), rung_specs(f"{b}-released-sampler")
        assert plain["sampler"] == RNS(on_device=True) and released["sampler"] == CatalogueUniform(
            on_device=True
        )
        assert {k: v for k, v in plain.items() if k != "sampler"} == {
            k: v for k, v in released.items() if k != "sampler"
        }
        assert RUNGS[f"{b}-released-sampler"][2] == RUNGS[b][2] == 40
    sampler, hinge = (
        rung_specs(f"{base}-released-sampler"),
        rung_specs(f"{base}-released-sampler-hinge"),
    )
    assert hinge["loss"] == CCL(negatives=800, positive_hinge=True) and sampler["loss"] == CCL(
        negatives=800
    )
    assert {k: v for k, v in hinge.items() if k != "loss"} == {
        k: v for k, v in sampler.items() if k != "loss"
    }
    assert all(
        (rung_specs(r)["sampler"] == CatalogueUniform(on_device=True)) == ("-released-sampler" in r)
        for r in RUNGS
    )


def test_the_thesis_loss_rungs_under_the_released_protocol_change_only_the_loss():
    from negtheory.reproduce.gowalla_benchmark import RUNGS, rung_specs
    from negtheory.training import BCL, DCL, HCL

    p = "n800-simplex-adam-cut19-30-released-model-clip10-released-sampler"
    infonce = rung_specs(f"infonce-{p}")
    # tau+ = 0.001 for DCL / HCL (Gowalla's positive share, fixed before any run), the thesis's settings otherwise
    expected = {
        f"dcl-tau0.001-{p}": DCL(negatives=800, tau_plus=0.001, temperature=0.1),
        f"hcl-tau0.001-{p}": HCL(negatives=800, tau_plus=0.001, temperature=0.1),
        f"bcl-{p}": BCL(negatives=800, temperature=0.1),
    }
    for rung, loss in expected.items():
        specs = rung_specs(rung)
        assert specs["loss"] == loss
        assert {k: v for k, v in specs.items() if k != "loss"} == {
            k: v for k, v in infonce.items() if k != "loss"
        }
        assert RUNGS[rung][0] == RUNGS[f"infonce-{p}"][0] and RUNGS[rung][2] == 40
