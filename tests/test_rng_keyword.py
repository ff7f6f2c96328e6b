"""The randomness keyword ``rng`` (Scientific Python SPEC 7) and the deprecated ``seed=``.

Every public function that takes randomness calls it ``rng``; the old name keeps working for
one release with a ``DeprecationWarning`` that names the new keyword and gives identical numbers;
passing both is a ``TypeError``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import warnings

import numpy as np
import pytest
import scipy.stats as st

import negtheory
from negtheory import generators, studies
from negtheory._deprecation import renamed_keyword
from negtheory._rng import int_seed
from negtheory.recsys import split_interactions
from negtheory.relaxed_softmax import MixtureOfGaussiansTask

PAIRS = np.array([[u, i] for u in range(8) for i in range(9) if (u + i) % 3])

# (callable, positional args, other keywords) of the renamed functions that need no torch
CASES = {
    "sample_class_conditional": (
        generators.sample_class_conditional,
        (st.norm(), 0.8, "tn", 50),
        {},
    ),
    "score_sets": (generators.score_sets, (5, 8, 0.9, 0.1), {}),
    "iter_score_sets": (
        lambda **kw: list(generators.iter_score_sets(5, 8, 0.9, 0.1, chunk_size=2, **kw)),
        (),
        {},
    ),
    "mse_study": (
        studies.mse_study,
        ("alpha", [0.9]),
        dict(n_anchors=64, estimators=("biased",), execution=studies.Execution(progress=False)),
    ),
    "MixtureOfGaussiansTask": (MixtureOfGaussiansTask, (3,), dict(n_context=6, n_target=5)),
    "split_interactions": (split_interactions, (PAIRS, 0.25), {}),
    "with_validation": (
        lambda **kw: split_interactions(PAIRS, 0.25, rng=0).with_validation(0.3, **kw),
        (),
        {},
    ),
}


def _numbers(out):
    """The arrays a result holds, for comparing two calls."""
    if isinstance(out, tuple) and hasattr(out, "_fields") or hasattr(out, "scores"):
        return [np.asarray(out.scores), np.asarray(out.is_true_negative)]
    if isinstance(out, list):
        return [a for b in out for a in _numbers(b)]
    if isinstance(out, MixtureOfGaussiansTask):
        return [out.means, out.stds, out.rho, out.weights]
    if hasattr(out, "train") and hasattr(out, "test"):
        return [out.train, out.test, out.valid]
    if hasattr(out, "to_numpy"):
        return [out[["mse", "mean"]].to_numpy()]
    return [np.asarray(out)]


def _same(a, b):
    xs, ys = _numbers(a), _numbers(b)
    assert len(xs) == len(ys) > 0
    for x, y in zip(xs, ys, strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("name", sorted(CASES))
def test_old_keyword_warns_and_gives_identical_numbers(name):
    func, args, kw = CASES[name]
    new = func(*args, rng=7, **kw)
    with pytest.warns(DeprecationWarning, match=r"'seed' is deprecated .* use 'rng'") as rec:
        old = func(*args, seed=7, **kw)
    assert all(r.filename == __file__ for r in rec if issubclass(r.category, DeprecationWarning)), (
        "warning must point at the caller"
    )
    _same(new, old)


@pytest.mark.parametrize("name", sorted(CASES))
def test_both_keywords_is_a_type_error(name):
    func, args, kw = CASES[name]
    with pytest.raises(TypeError, match=r"both 'rng' and its deprecated name 'seed'"):
        func(*args, rng=1, seed=1, **kw)


@pytest.mark.parametrize("name", sorted(CASES))
def test_rng_accepts_int_generator_and_seedsequence(name):
    func, args, kw = CASES[name]
    _same(func(*args, rng=3, **kw), func(*args, rng=3, **kw))
    _same(
        func(*args, rng=np.random.SeedSequence(4), **kw),
        func(*args, rng=np.random.SeedSequence(4), **kw),
    )
    _same(
        func(*args, rng=np.random.default_rng(5), **kw),
        func(*args, rng=np.random.default_rng(5), **kw),
    )
    # a Generator is advanced: two calls with the same Generator differ
    g = np.random.default_rng(6)
    first, second = _numbers(func(*args, rng=g, **kw)), _numbers(func(*args, rng=g, **kw))
    assert any(not np.array_equal(x, y) for x, y in zip(first, second, strict=True))


def test_rng_as_generator_is_reproducible_for_the_score_sets():
    a = generators.score_sets(20, 16, 0.9, 0.1, rng=np.random.default_rng(12))
    b = generators.score_sets(20, 16, 0.9, 0.1, rng=np.random.default_rng(12))
    np.testing.assert_array_equal(a.scores, b.scores)


def test_rvs_keeps_random_state_and_accepts_rng():
    law = negtheory.true_negative(st.norm(), 0.8)
    np.testing.assert_array_equal(law.rvs(100, random_state=3), law.rvs(100, rng=3))
    sampler = generators.AcceptRejectSampler(lambda x: 6 * x * (1 - x), st.uniform(), 1.5)
    np.testing.assert_array_equal(sampler.rvs(100, random_state=4), sampler.rvs(100, rng=4))
    with pytest.raises(TypeError, match="both random_state and rng"):
        law.rvs(10, random_state=1, rng=1)
    with pytest.raises(TypeError, match="both random_state and rng"):
        sampler.rvs(10, random_state=1, rng=1)


def test_int_seed_rule():
    assert int_seed("rng", 7) == 7
    assert int_seed("rng", np.int64(7)) == 7
    assert int_seed("rng", np.random.SeedSequence(3)) == int_seed("rng", np.random.SeedSequence(3))
    assert int_seed("rng", [1, 2]) == int_seed("rng", [1, 2])
    g = np.random.default_rng(0)
    a, b = int_seed("rng", g), int_seed("rng", g)
    assert a != b and 0 <= a < 2**63 and 0 <= b < 2**63
    assert int_seed("rng", np.random.default_rng(0)) == a
    assert 0 <= int_seed("rng", None) < 2**63
    with pytest.raises(ValueError, match="rng must be an integer in"):
        int_seed("rng", -1)
    with pytest.raises(TypeError, match="rng must be"):
        int_seed("rng", np.random.RandomState(0))
    with pytest.raises(TypeError, match="rng must be"):
        int_seed("rng", "abc")


def test_renamed_keyword_keeps_the_signature_and_checks_its_arguments():
    @renamed_keyword("seed", "rng")
    def f(x, rng=None):
        """Doc."""
        return x, rng

    assert list(inspect.signature(f).parameters) == ["x", "rng"]
    assert f.__doc__ == "Doc." and f.__renamed_keywords__ == {"seed": "rng"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(1, rng=2) == (1, 2)  # the new name never warns
    with pytest.raises(TypeError, match="no parameter 'rng'"):
        renamed_keyword("seed", "rng")(lambda x: x)
    with pytest.raises(TypeError, match="still has the parameter 'seed'"):
        renamed_keyword("seed", "rng")(lambda seed, rng: seed)


def _public_callables():
    for info in pkgutil.walk_packages(negtheory.__path__, "negtheory."):
        name = info.name
        if "._" in name or name.endswith("__main__") or name.startswith("negtheory.figures"):
            continue  # figure builders: plotting scripts with their own ``seed`` (see the figures branch)
        if name.startswith("negtheory.bridge") and importlib.util.find_spec("torch") is None:
            continue
        mod = importlib.import_module(name)
        for attr, obj in vars(mod).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != name:
                continue
            if inspect.isfunction(obj):
                yield f"{name}.{attr}", obj
            elif inspect.isclass(obj):
                for meth_name, meth in vars(obj).items():
                    if inspect.isfunction(meth) and (
                        meth_name == "__init__" or not meth_name.startswith("_")
                    ):
                        yield f"{name}.{attr}.{meth_name}", meth


def test_no_public_signature_still_says_seed():
    """SPEC 7: ``rng`` everywhere (``random_state`` only on scipy's ``rvs``, ``seeds`` = replicate seeds)."""
    bad = [
        qual
        for qual, func in _public_callables()
        for p in inspect.signature(func).parameters
        if p in ("seed", "random_seed", "random_state")
        and not (p == "random_state" and qual.endswith(".rvs"))
    ]
    assert bad == []
