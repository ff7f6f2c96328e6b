"""``rng`` on the torch bridge: an int seeds torch, a Generator / SeedSequence gives one int seed."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from negtheory.bridge import data as D  # noqa: E402
from negtheory.bridge import relaxed_softmax_training as RT  # noqa: E402
from negtheory.bridge.train import TrainConfig, train  # noqa: E402
from negtheory.relaxed_softmax import MixtureOfGaussiansTask  # noqa: E402

SMALL = dict(n_users=20, n_items=30, n_train=4, n_test=1)


def test_synthetic_pu_old_keyword_warns_and_matches():
    a = D.synthetic_pu(**SMALL, rng=3)
    with pytest.warns(DeprecationWarning, match="use 'rng'"):
        b = D.synthetic_pu(**SMALL, seed=3)
    assert torch.equal(a.train, b.train) and a.params["seed"] == b.params["seed"] == 3
    with pytest.raises(TypeError, match="both 'rng'"):
        D.synthetic_pu(**SMALL, rng=3, seed=3)


def test_synthetic_pu_generator_gives_a_recorded_int_seed():
    a = D.synthetic_pu(**SMALL, rng=np.random.default_rng(1))
    b = D.synthetic_pu(**SMALL, rng=np.random.default_rng(1))
    assert torch.equal(a.train, b.train)
    seed = a.params["seed"]
    assert isinstance(seed, int) and torch.equal(D.synthetic_pu(**SMALL, rng=seed).train, a.train)


def test_training_pairs_rng():
    task = MixtureOfGaussiansTask(3, n_context=8, n_target=8, rng=0)
    i, j = RT.training_pairs(task, 50, rng=4)
    with pytest.warns(DeprecationWarning, match="use 'rng'"):
        i2, j2 = RT.training_pairs(task, 50, seed=4)
    np.testing.assert_array_equal(i, i2)
    np.testing.assert_array_equal(j, j2)
    v1 = RT.validation_pairs(task, 20, 4, 50)
    with pytest.warns(DeprecationWarning, match="use 'rng'"):
        v2 = RT.validation_pairs(task, 20, seed=4, n_pairs=50)
    np.testing.assert_array_equal(v1[0], v2[0])


def test_train_and_config_accept_the_old_name_with_a_warning():
    kw = dict(data="synthetic", loss="bpr", epochs=1, probe=False, progress=False, synthetic=SMALL)
    a = train(**kw, rng=2)
    with pytest.warns(DeprecationWarning, match="use 'rng'"):
        b = train(**kw, seed=2)
    assert a["config"]["rng"] == b["config"]["rng"] == 2
    assert a["history"][-1]["loss"] == b["history"][-1]["loss"]
    g = train(**kw, rng=np.random.default_rng(0))
    assert isinstance(g["config"]["rng"], int)  # the int drawn from the Generator is what ran
    assert train(**kw, rng=g["config"]["rng"])["history"][-1]["loss"] == g["history"][-1]["loss"]
    with pytest.warns(DeprecationWarning, match="use 'rng'"):
        cfg = TrainConfig(seed=5)
    assert cfg.rng == 5
    with pytest.warns(DeprecationWarning, match="attribute 'seed'"):
        assert cfg.seed == 5
    with pytest.raises(TypeError, match="both 'rng'"):
        TrainConfig(seed=5, rng=5)
