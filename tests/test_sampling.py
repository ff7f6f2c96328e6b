"""Tests of negtheory.sampling (seed 001 proposals and samplers; seed 004 eq. 8 Boltzmann law).

Independent references: closed forms (two-level unigram counts, softmax, the T -> 0 / T -> inf
limits of eq. 8), the probability law *implied* by an alias table (recomputed here from its
columns), numpy's own ``searchsorted`` on the same uniforms, and chi-square goodness-of-fit
tests with fixed seeds at significance 1e-3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from negtheory import sampling
from negtheory.sampling import AliasTable, InverseCDFSampler, boltzmann, sample_boltzmann

ALPHA_STAT = 1e-3  # significance level of every goodness-of-fit test below


def chisq_pvalue(draws, p):
    """Chi-square p-value of integer draws against p, pooling cells with expected count < 5."""
    n = draws.size
    obs = np.bincount(draws, minlength=p.size).astype(float)
    exp = n * p
    assert obs[p == 0].sum() == 0, "a zero-probability entry was drawn"
    keep = exp >= 5
    o = np.append(obs[keep], obs[~keep].sum())
    e = np.append(exp[keep], exp[~keep].sum())
    if e[-1] == 0:
        o, e = o[:-1], e[:-1]
    return stats.chisquare(o, e * o.sum() / e.sum()).pvalue


# ------------------------------------------------------------------ unigram proposals


def test_unigram_two_level_closed_form_and_limits():
    counts = np.array([1000.0, 10.0, 0.0, 10.0])
    for a in (0.0, 0.5, 0.75, 1.0, 2.0, -1.0):
        q = sampling.unigram_proposal(counts, a)
        w = np.array([1000.0**a, 10.0**a, 0.0, 10.0**a])
        np.testing.assert_allclose(q, w / w.sum(), rtol=1e-14)
    # alpha = 0: uniform over the observed classes; alpha = 1: the raw frequencies
    np.testing.assert_allclose(sampling.unigram_proposal(counts, 0.0), [1 / 3, 1 / 3, 0, 1 / 3])
    np.testing.assert_allclose(sampling.unigram_proposal(counts, 1.0), counts / counts.sum())


def test_unigram_is_log_space_stable():
    # f^alpha overflows for these counts; the ratio is (10)^2 : 1
    q = sampling.unigram_proposal([1e300, 1e299], alpha=2.0)
    # (alpha ln f carries ~|alpha ln f| * 1e-16 of absolute rounding, i.e. ~2e-13 relative here)
    np.testing.assert_allclose(q, [100 / 101, 1 / 101], rtol=1e-12)
    q = sampling.unigram_proposal([1e-300, 1e-301], alpha=3.0)
    np.testing.assert_allclose(q, [1000 / 1001, 1 / 1001], rtol=1e-12)


def test_unigram_flattens_for_alpha_below_one():
    counts = np.array([500.0, 100.0, 20.0, 4.0, 1.0])
    q1 = sampling.unigram_proposal(counts, 1.0)
    q = sampling.unigram_proposal(counts, 0.75)
    assert q[0] < q1[0] and q[-1] > q1[-1]  # frequent classes lose mass, rare ones gain


def test_solve_alpha_matches_two_level_closed_form():
    # m minority classes with count a, M majority classes with count b:
    # mass = m a^x / (m a^x + M b^x) = t  =>  x = ln(t M / ((1 - t) m)) / ln(a / b)
    m, big_m, a, b = 3, 7, 5.0, 400.0
    counts = np.array([a] * m + [b] * big_m)
    minority = np.arange(m)
    for t in (0.05, 0.1, 0.2):
        want = math.log(t * big_m / ((1 - t) * m)) / math.log(a / b)
        got = sampling.solve_alpha(counts, minority, t, bracket=(-5, 5))
        assert got == pytest.approx(want, abs=1e-10)
        mask = np.zeros(counts.size, bool)
        mask[minority] = True
        assert sampling.proposal_mass(counts, mask, got) == pytest.approx(t, rel=1e-10)


def test_proposal_mass_decreases_in_alpha_when_minority_is_rarest():
    rng = np.random.default_rng(3)
    counts = np.sort(rng.zipf(1.5, 200).astype(float))
    alphas = np.linspace(-1, 2, 31)
    mass = sampling.proposal_mass(counts, np.arange(50), alphas)
    assert np.all(np.diff(mass) < 0)


def test_solve_alpha_rejects_unreachable_target():
    with pytest.raises(ValueError, match="not reachable"):
        sampling.solve_alpha([100, 100, 1, 1], [2, 3], 0.9)  # bracket (0, 1) tops out at 0.5
    with pytest.raises(ValueError, match="target"):
        sampling.solve_alpha([100, 1], [1], 1.0)
    with pytest.raises(ValueError, match="every observed"):
        sampling.solve_alpha([100, 1, 0], [0, 1], 0.5)


@pytest.mark.parametrize(
    "counts, match",
    [
        ([1.0, -1.0], "counts"),
        ([0.0, 0.0], "positive"),
        ([[1.0, 2.0]], "1-D"),
        ([1.0, np.nan], "NaN"),
    ],
)
def test_unigram_rejects_bad_counts(counts, match):
    with pytest.raises(ValueError, match=match):
        sampling.unigram_proposal(counts)


def test_unigram_rejects_bad_alpha():
    with pytest.raises(ValueError, match="alpha"):
        sampling.unigram_proposal([1.0, 2.0], alpha=np.inf)


# ------------------------------------------------------------------ alias table


def implied_pmf(table: AliasTable) -> np.ndarray:
    """The law an alias table samples: column c gives itself w.p. prob[c], alias[c] otherwise."""
    n = table.prob.size
    pmf = np.zeros(n)
    np.add.at(pmf, np.arange(n), table.prob / n)
    np.add.at(pmf, table.alias, (1.0 - table.prob) / n)
    full = np.zeros(table.n)
    full[table.support] = pmf
    return full


@pytest.mark.parametrize("seed", range(6))
def test_alias_table_encodes_p_exactly(seed):
    rng = np.random.default_rng(seed)
    n = [1, 2, 7, 100, 1000, 1_000_000][seed]
    p = rng.exponential(size=n) ** 3
    p[rng.random(n) < 0.3] = 0.0
    if not p.any():
        p[0] = 1.0
    table = AliasTable(p)
    np.testing.assert_allclose(implied_pmf(table), p / p.sum(), rtol=1e-12, atol=1e-15)
    assert np.all(table.prob >= 0) and np.all(table.prob <= 1)


def test_alias_table_extreme_weights():
    p = np.array([1e-300, 1.0, 0.0, 1e-200])
    np.testing.assert_allclose(implied_pmf(AliasTable(p)), p / p.sum(), rtol=1e-12, atol=0)


def test_alias_chi_square_and_zero_entries():
    rng = np.random.default_rng(11)
    p = rng.dirichlet(np.ones(60) * 0.5)
    p[::7] = 0.0
    p /= p.sum()
    draws = AliasTable(p).sample(200_000, rng=12)
    assert chisq_pvalue(draws, p) > ALPHA_STAT


def test_alias_never_draws_zero_probability_entries():
    p = np.zeros(1000)
    p[[3, 500, 999]] = [1e-12, 1.0, 1e-12]
    draws = AliasTable(p).sample(1_000_000, rng=0)
    assert set(np.unique(draws).tolist()) <= {3, 500, 999}


def test_alias_reproducible_and_shapes():
    t = AliasTable([1.0, 2.0, 3.0])
    a = t.sample((3, 4), rng=5)
    b = t.sample((3, 4), rng=np.random.default_rng(5))
    assert a.shape == (3, 4) and a.dtype == np.int64
    np.testing.assert_array_equal(a, b)
    assert isinstance(t.sample(rng=1), int)
    assert AliasTable([0.0, 2.0]).sample(10, rng=0).tolist() == [1] * 10
    assert t.sample(0, rng=0).shape == (0,)


@pytest.mark.parametrize(
    "p, match",
    [
        ([1.0, -0.1], "p must lie"),
        ([0.0, 0.0], "positive"),
        ([[0.5, 0.5]], "1-D"),
        ([], "non-empty"),
        ([1.0, np.inf], "finite"),
    ],
)
def test_samplers_reject_bad_p(p, match):
    for cls in (AliasTable, InverseCDFSampler):
        with pytest.raises(ValueError, match=match):
            cls(p)


def test_sampler_rejects_bad_size_and_rng():
    t = AliasTable([1.0, 1.0])
    with pytest.raises(ValueError, match="size"):
        t.sample(-1)
    with pytest.raises(TypeError, match="RandomState"):
        t.sample(3, rng=np.random.RandomState(0))


# ------------------------------------------------------------------ inverse CDF


def test_inverse_cdf_agrees_with_numpy_searchsorted_on_the_same_uniforms():
    rng = np.random.default_rng(2)
    p = rng.random(777)
    p[rng.random(777) < 0.2] = 0.0
    s = InverseCDFSampler(p)
    draws = s.sample(50_000, rng=9)
    u = np.random.default_rng(9).random(50_000)
    support = np.flatnonzero(p > 0)
    cdf = np.cumsum(p[support]) / p[support].sum()
    cdf[-1] = 1.0
    np.testing.assert_array_equal(draws, support[np.searchsorted(cdf, u, side="right")])


def test_inverse_cdf_chi_square_with_zero_ends():
    p = np.array([0.0, 0.0, 0.1, 0.0, 0.3, 0.2, 0.4, 0.0, 0.0])
    draws = InverseCDFSampler(p).sample(100_000, rng=4)
    assert chisq_pvalue(draws, p) > ALPHA_STAT
    assert InverseCDFSampler([0.0, 0.0, 1.0]).sample(5, rng=0).tolist() == [2] * 5


# ------------------------------------------------------------------ Boltzmann law (seed 004 eq. 8)


def test_boltzmann_uniform_t1_is_softmax_and_popularity_weights():
    rng = np.random.default_rng(0)
    g = rng.normal(size=(4, 30))
    np.testing.assert_allclose(boltzmann(g), special.softmax(g, axis=-1), rtol=1e-13)
    d = rng.integers(1, 50, size=30).astype(float)
    for t in (0.3, 1.0, 7.5):
        want = d * np.exp(g / t)
        np.testing.assert_allclose(
            boltzmann(g, d, t), want / want.sum(-1, keepdims=True), rtol=1e-12
        )


def test_boltzmann_limits_t0_and_tinf():
    g = np.array([0.3, 2.0, -1.0, 2.0, 1.9])
    d = np.array([1.0, 1.0, 5.0, 3.0, 1.0])
    # T = 0: argmax (ties shared in proportion to D); approached continuously
    np.testing.assert_allclose(boltzmann(g, d, 0.0), [0, 0.25, 0, 0.75, 0])
    np.testing.assert_allclose(boltzmann(g, d, 1e-3), [0, 0.25, 0, 0.75, 0], atol=1e-40)
    np.testing.assert_allclose(boltzmann(g, d, 1e-300), [0, 0.25, 0, 0.75, 0])
    # T = inf: the degeneracy law itself; approached continuously
    np.testing.assert_allclose(boltzmann(g, d, np.inf), d / d.sum(), rtol=1e-15)
    np.testing.assert_allclose(boltzmann(g, d, 1e12), d / d.sum(), rtol=1e-10)


def test_boltzmann_huge_scores_and_zero_degeneracy():
    g = np.array([1e4, 1e4 - 1.0, -1e4, 5e4])
    d = np.array([1.0, 1.0, 1.0, 0.0])  # the best-scored item is excluded by D = 0
    b = boltzmann(g, d, 1.0)
    e = math.exp(-1.0)
    np.testing.assert_allclose(b, [1 / (1 + e), e / (1 + e), 0.0, 0.0], rtol=1e-14)
    lb = boltzmann(g, d, 1.0, log=True)
    assert lb[3] == -np.inf and lb[2] == pytest.approx(-2e4 - math.log1p(e), rel=1e-14)


def test_boltzmann_axis():
    g = np.random.default_rng(1).normal(size=(5, 3))
    np.testing.assert_allclose(boltzmann(g, axis=0), special.softmax(g, axis=0), rtol=1e-13)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"degeneracy": "popular"}, "uniform"),
        ({"degeneracy": [1.0, -1.0, 1.0]}, "degeneracy"),
        ({"degeneracy": [0.0, 0.0, 0.0]}, "positive entry"),
        ({"degeneracy": [1.0, 1.0]}, "broadcast"),
        ({"temperature": -0.5}, "temperature"),
        ({"temperature": np.nan}, "NaN"),
    ],
)
def test_boltzmann_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        boltzmann([0.0, 1.0, 2.0], **kwargs)


def test_sample_boltzmann_rows_chi_square():
    rng = np.random.default_rng(5)
    g = rng.normal(size=(3, 40))
    d = rng.integers(0, 4, size=40).astype(float)
    d[0] = 1.0
    t = 0.7
    draws = sample_boltzmann(g, d, t, size=60_000, rng=6)
    b = boltzmann(g, d, t)
    assert draws.shape == (3, 60_000)
    for r in range(3):
        assert chisq_pvalue(draws[r], b[r]) > ALPHA_STAT


def test_sample_boltzmann_limits_and_1d():
    g = np.array([0.0, 3.0, 1.0, 3.0])
    draws = sample_boltzmann(g, [1.0, 1.0, 1.0, 0.0], 0.0, size=200, rng=0)
    assert draws.shape == (200,) and set(draws.tolist()) == {1}
    draws = sample_boltzmann(g, [1.0, 0.0, 0.0, 3.0], np.inf, size=40_000, rng=1)
    assert set(draws.tolist()) <= {0, 3}
    assert abs(np.mean(draws == 3) - 0.75) < 4 * math.sqrt(0.75 * 0.25 / 40_000)


def test_sample_boltzmann_size_zero_is_an_empty_draw():
    # as numpy's Generator.choice(size=0): legal, an empty int64 array of the right shape
    out = sample_boltzmann([[0.0, 1.0], [2.0, 0.5], [0.1, 0.2]], size=0, rng=0)
    assert out.shape == (3, 0) and out.dtype == np.int64
    assert sample_boltzmann([0.0, 1.0, 2.0], size=0, rng=0).shape == (0,)
