"""``fit`` takes objects as well as specs: a loss module, a Sampler subclass, a torch optimizer (issue 67).

Each object is checked against the spec it re-implements: the same random stream gives the same
numbers bit for bit, so the trainer composes what it is given and adds nothing of its own.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from negtheory.bridge import functional as Fn  # noqa: E402
from negtheory.recsys import load_split  # noqa: E402
from negtheory.recsys.samplers import sample_uninteracted  # noqa: E402
from negtheory.training import BCL, BPR, MF, RNS, Adam, Evaluation, LightGCN, Sampler, fit  # noqa: E402

EV = Evaluation(ks=(5,))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    pairs = np.unique(rng.integers(0, [20, 30], size=(300, 2)), axis=0)
    return load_split(pairs[:200], pairs[200:])


def _losses(r):
    return [h["loss"] for h in r.history]


class MyBPR(torch.nn.Module):
    """The user's BPR: the mean of -ln sigma(x_ui - x_uj) (thesis eq. 4.1), written with the functional."""

    negatives = 1

    def forward(self, pos, neg):
        return Fn.bpr(pos, neg)


class MyUniform(Sampler):
    """The user's RNS: uniform non-interacted items, drawn from the run's stream as RNS draws them."""

    def negatives(self, bound, users, n, rng, *, scores=None, positives=None, epoch=0):
        return sample_uninteracted(users, n, bound.csr, rng, n_items=bound.n_items)


class MyHardest(Sampler):
    """A score-aware user sampler: each negative the best-scored of 3 uniform non-interacted items."""

    score_aware = True

    def negatives(self, bound, users, n, rng, *, scores=None, positives=None, epoch=0):
        cand = sample_uninteracted(users, 3 * n, bound.csr, rng, n_items=bound.n_items).reshape(
            len(users), n, 3
        )
        sc = scores(users, cand)
        return np.take_along_axis(cand, sc.argmax(-1)[..., None], -1)[..., 0]


def test_a_users_loss_module_gives_the_specs_numbers(data):
    kw = dict(
        model=MF(dim=4),
        sampler=RNS(),
        optimizer=Adam(lr=0.01, batch_size=32),
        epochs=3,
        evaluation=EV,
        rng=2,
    )
    ref = fit(data, loss=BPR(), **kw)
    got = fit(data, loss=MyBPR(), **kw)
    assert got.engine == "torch" and _losses(got) == _losses(ref)
    np.testing.assert_array_equal(got.user_emb, ref.user_emb)
    assert got.specs["loss"]["kind"] == "object" and got.specs["loss"]["class"].endswith("MyBPR")


def test_the_packages_loss_module_trains_through_fit(data):
    from negtheory.bridge import BayesianContrastiveLoss

    class N4(BayesianContrastiveLoss):
        negatives = 4

    module = N4(alpha=0.9, beta=0.5, tau_plus=0.1, temperature=0.5)
    spec = BCL(negatives=4, alpha=0.9, beta=0.5, tau_plus=0.1, temperature=0.5)
    kw = dict(
        model=LightGCN(dim=4),
        sampler=RNS(),
        optimizer=Adam(lr=0.01, batch_size=32),
        epochs=2,
        evaluation=EV,
    )
    got, ref = fit(data, loss=module, **kw), fit(data, loss=spec, **kw)
    # the module's eq. 6.31 on the model's scores / its temperature: the spec's run
    np.testing.assert_allclose(_losses(got), _losses(ref), rtol=1e-6)


def test_a_users_sampler_gives_the_specs_numbers_and_a_score_aware_one_reads_scores(data):
    kw = dict(
        model=MF(dim=4),
        loss=BPR(),
        optimizer=Adam(lr=0.01, batch_size=32),
        epochs=2,
        evaluation=EV,
        rng=5,
    )
    ref = fit(data, sampler=RNS(), **kw)
    got = fit(data, sampler=MyUniform(), **kw)
    assert _losses(got) == _losses(ref) and got.config["sampler"] == "MyUniform"
    hard = fit(
        data,
        sampler=MyHardest(),
        model=LightGCN(dim=4),
        loss=BPR(),
        optimizer=Adam(batch_size=32),
        epochs=2,
        evaluation=EV,
    )
    assert np.isfinite(_losses(hard)).all()


def test_torch_optimizer_class_and_factory(data):
    kw = dict(model=MF(dim=4), loss=BPR(), sampler=RNS(), epochs=2, evaluation=EV, rng=3)
    ref = fit(data, optimizer=Adam(lr=0.01, weight_decay=0.0, batch_size=32), **kw)
    # the spec's optimizer is torch's fused Adam on the CPU: the same factory gives the same numbers
    got = fit(
        data, optimizer=lambda p: torch.optim.Adam(p, lr=0.01, fused=True), batch_size=32, **kw
    )
    assert _losses(got) == _losses(ref)
    cls = fit(data, optimizer=torch.optim.Adagrad, batch_size=64, **kw)
    assert cls.config["optimizer"] == "Adagrad" and cls.config["batch_size"] == 64
    with pytest.raises(ValueError, match="batch_size: set it in the optimizer spec"):
        fit(data, optimizer=Adam(), batch_size=64, **kw)


def test_objects_of_the_wrong_role_are_refused_by_name(data):
    with pytest.raises(TypeError, match="sampler must be a spec.*Sampler subclass"):
        fit(data, sampler=object(), epochs=1)
    with pytest.raises(TypeError, match="loss must be a spec"):
        fit(data, loss=RNS(), epochs=1)

    class Vector(torch.nn.Module):
        def forward(self, pos, neg):
            return -(pos - neg[:, 0])

    with pytest.raises(ValueError, match="must return a scalar"):
        fit(data, loss=Vector(), optimizer=Adam(batch_size=32), epochs=1)
