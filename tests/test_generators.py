"""negtheory.generators: Algorithms 6-8, the generic accept-reject sampler, reproducibility.

Samplers are checked with Kolmogorov-Smirnov tests (fixed seeds, significance 1e-3) against the
exact CDFs written out from the thesis (CDF_TN(u) = 2 alpha u + (1 - 2 alpha) u^2,
CDF_FN(u) = 2 (1 - alpha) u + (2 alpha - 1) u^2, u = parent CDF), acceptance rates against
1 / (2 alpha) with a 5-sigma binomial/geometric tolerance, and the Philox generator against
the Random123 known-answer vectors.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
import scipy.stats as st

from negtheory._numeric import _philox4x32, _xoshiro_next
from negtheory.dists import hard_negative
from negtheory.generators import (
    AcceptRejectSampler,
    iter_score_sets,
    sample_class_conditional,
    score_sets,
)

KS_LEVEL = 1e-3


def cdf_tn(u, alpha):
    return 2 * alpha * u + (1 - 2 * alpha) * u**2


def cdf_fn(u, alpha):
    return 2 * (1 - alpha) * u + (2 * alpha - 1) * u**2


@pytest.mark.parametrize(
    "ctr, key, out",
    [
        ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        (
            (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
            (0xA4093822, 0x299F31D0),
            (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
        ),
    ],
)
def test_philox_known_answers(ctr, key, out):
    assert tuple(int(v) for v in _philox4x32(*ctr, *key)) == out


def test_xoshiro_reference_sequence():
    # xoshiro256** from state (1, 2, 3, 4): outputs worked out by hand from the reference
    # algorithm (rotl(s1 * 5, 7) * 9, then the linear state update)
    s = tuple(np.uint64(v) for v in (1, 2, 3, 4))
    got = []
    for _ in range(4):
        r, *s = _xoshiro_next(*s)
        got.append(int(r))
    assert got == [11520, 0, 1509978240, 1215971899390074240]


# ---------------------------------------------------------------------------------------------
# Algorithms 7-8 and inversion
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "base", [st.norm(0.2, 1.3), st.uniform(-1.0, 2.0), st.t(4)], ids=["norm", "uniform", "t4"]
)
@pytest.mark.parametrize("label", ["tn", "fn"])
@pytest.mark.parametrize("method", ["inverse", "accept-reject"])
def test_class_conditional_samplers_ks(base, label, method):
    alpha = 0.8
    x = sample_class_conditional(base, alpha, label, 5000, method=method, rng=7)
    cdf = cdf_tn if label == "tn" else cdf_fn
    assert st.kstest(x, lambda s: cdf(base.cdf(s), alpha)).pvalue > KS_LEVEL


@pytest.mark.parametrize("alpha", [0.5, 0.7, 0.9, 1.0])
@pytest.mark.parametrize("label", ["tn", "fn"])
def test_acceptance_rate_is_one_over_two_alpha(alpha, label):
    n = 100_000
    x, rate = sample_class_conditional(
        st.norm(), alpha, label, n, method="accept-reject", rng=3, return_acceptance=True
    )
    p = 1 / (2 * alpha)
    # proposals T = sum of n geometric(p) counts: sd(n / T) ~ p sqrt((1 - p) / n)
    assert abs(rate - p) <= 5 * p * math.sqrt((1 - p) / n) + 1e-12
    if alpha == 0.5:
        assert rate == 1.0  # every proposal is accepted: the laws equal the parent
    _, rate_inv = sample_class_conditional(
        st.norm(), alpha, label, 10, rng=3, return_acceptance=True
    )
    assert rate_inv == 1.0


def test_generic_parent_uses_the_same_random_stream_as_numba():
    # the kernel produces parent-CDF values for every parent; a parent without a numba fast
    # path (logistic) maps them with its own ppf, so the CDF values agree exactly
    for method in ("inverse", "accept-reject"):
        a, r1 = sample_class_conditional(
            st.norm(), 0.75, "fn", 9000, method=method, rng=9, return_acceptance=True
        )
        b, r2 = sample_class_conditional(
            st.logistic(), 0.75, "fn", 9000, method=method, rng=9, return_acceptance=True
        )
        assert r1 == r2
        np.testing.assert_allclose(st.norm.cdf(a), st.logistic.cdf(b), rtol=1e-9, atol=1e-15)


def test_labels_do_not_depend_on_method():
    kw = dict(n_anchors=20, n_unlabeled=30, alpha=0.8, tau_plus=0.3, rng=5)
    a = score_sets(**kw)
    b = score_sets(**kw, method="accept-reject")
    np.testing.assert_array_equal(a.is_true_negative, b.is_true_negative)
    np.testing.assert_array_equal(a.parent_params, b.parent_params)


def test_sampler_shapes_and_reproducibility():
    x = sample_class_conditional(st.norm(), 0.9, "tn", (3, 4), rng=1)
    assert x.shape == (3, 4)
    np.testing.assert_array_equal(x, sample_class_conditional(st.norm(), 0.9, "tn", (3, 4), rng=1))
    assert not np.array_equal(x, sample_class_conditional(st.norm(), 0.9, "tn", (3, 4), rng=2))
    assert isinstance(sample_class_conditional(st.norm(), 0.9, "tn", rng=1), float)
    ss = np.random.SeedSequence(5)
    np.testing.assert_array_equal(
        sample_class_conditional(st.norm(), 0.9, "fn", 10, method="accept-reject", rng=ss),
        sample_class_conditional(
            st.norm(), 0.9, "fn", 10, method="accept-reject", rng=np.random.SeedSequence(5)
        ),
    )


def test_sampler_bad_input():
    with pytest.raises(ValueError, match="alpha"):
        sample_class_conditional(st.norm(), 0.3, "tn", 5)
    with pytest.raises(ValueError, match="label"):
        sample_class_conditional(st.norm(), 0.8, "pos", 5)
    with pytest.raises(ValueError, match="method"):
        sample_class_conditional(st.norm(), 0.8, "tn", 5, method="rejection")
    with pytest.raises(TypeError, match="frozen"):
        sample_class_conditional(st.norm, 0.8, "tn", 5)
    with pytest.raises(TypeError, match="RandomState"):
        sample_class_conditional(st.norm(), 0.8, "tn", 5, rng=np.random.RandomState(0))


# ---------------------------------------------------------------------------------------------
# generic accept-reject
# ---------------------------------------------------------------------------------------------
def test_generic_accept_reject_hard_negative():
    base = st.norm()
    law = hard_negative(base, 0.7, 0.9)
    c = max(law.b, law.b + 2 * law.a)  # sup of phi_THN / (Z phi) over Phi in [0, 1]
    s = AcceptRejectSampler(law.pdf, base, c)
    x = s.rvs(20_000, random_state=4)
    assert st.kstest(x, law.cdf).pvalue > KS_LEVEL
    p = 1 / c
    assert abs(s.acceptance_rate - p) <= 5 * p * math.sqrt((1 - p) / 20_000)
    assert s.n_accepted == 20_000


def test_generic_accept_reject_beta_closed_form():
    # Beta(2, 2) density 6 x (1 - x) <= 1.5 on U(0, 1)
    s = AcceptRejectSampler(lambda x: 6 * x * (1 - x), st.uniform(), 1.5)
    x = s.rvs(10_000, random_state=0)
    assert st.kstest(x, st.beta(2, 2).cdf).pvalue > KS_LEVEL
    assert isinstance(s.rvs(random_state=1), float)


def test_generic_accept_reject_errors():
    with pytest.raises(ValueError, match="envelope violated"):
        AcceptRejectSampler(lambda x: 6 * x * (1 - x), st.uniform(), 1.0).rvs(1000, random_state=0)
    with pytest.raises(RuntimeError, match="max_rounds=3"):
        AcceptRejectSampler(lambda x: 0.0 * x, st.uniform(), 1.0, max_rounds=3).rvs(
            10, random_state=0
        )
    with pytest.raises(TypeError, match="callable"):
        AcceptRejectSampler(3.0, st.uniform(), 1.0)
    with pytest.raises(ValueError, match="c must lie in"):
        AcceptRejectSampler(st.uniform().pdf, st.uniform(), 0.0)


# ---------------------------------------------------------------------------------------------
# Algorithm 6
# ---------------------------------------------------------------------------------------------
def _pit(res, alpha):
    """Exact-CDF transform of every score: TN-labelled by CDF_TN, FN by CDF_FN (both U(0,1))."""
    u = res.parent_cdf()
    return np.where(res.is_true_negative, cdf_tn(u, alpha), cdf_fn(u, alpha))


@pytest.mark.parametrize("method", ["inverse", "accept-reject"])
def test_score_sets_ks_against_exact_cdfs(method):
    alpha, tau = 0.8, 0.3
    res = score_sets(2000, 8, alpha, tau, gamma=0.6, t=0.5, n_positives=3, method=method, rng=21)
    assert (
        res.scores.shape == (2000, 8)
        and res.is_true_negative.dtype == bool
        and res.positives.shape == (2000, 3)
    )
    # class-conditional laws (pooled over anchors after the exact per-anchor CDF)
    pit = _pit(res, alpha)
    assert st.kstest(pit[res.is_true_negative], "uniform").pvalue > KS_LEVEL
    assert st.kstest(pit[~res.is_true_negative], "uniform").pvalue > KS_LEVEL
    # the unlabeled marginal, ignoring labels: Phi_UN(u) of eq. 6.28 is U(0, 1)
    u = res.parent_cdf()
    a, b = (1 - 2 * alpha) * (1 - 2 * tau), 2 * (alpha * (1 - tau) + (1 - alpha) * tau)
    assert st.kstest((a * u**2 + b * u).ravel(), "uniform").pvalue > KS_LEVEL
    # positives from phi_FN
    up = res.parent_cdf(res.positives)
    assert st.kstest(cdf_fn(up, alpha).ravel(), "uniform").pvalue > KS_LEVEL
    # class prior: binomial 5-sigma
    n = res.scores.size
    assert abs((~res.is_true_negative).mean() - tau) <= 5 * math.sqrt(tau * (1 - tau) / n)


def test_score_sets_intervals_follow_algorithm_6():
    t, gamma = 0.5, 0.4
    res = score_sets(3000, 2, 0.9, 0.1, gamma=gamma, t=t, n_positives=0, rng=2)
    lo, hi = -1 / t**2, 1 / t**2  # released code's default
    w = gamma * (hi - lo) / 2
    a, b = res.parent_params[:, 0], res.parent_params[:, 1]
    assert st.kstest(a, st.uniform(lo, w).cdf).pvalue > KS_LEVEL
    assert st.kstest(b, st.uniform(hi - w, w).cdf).pvalue > KS_LEVEL
    # scores lie inside exp([a, b] / t)
    x = res.raw_scores
    assert np.all(x >= a[:, None] - 1e-12) and np.all(x <= b[:, None] + 1e-12)
    # gamma = 0: every anchor gets the base interval; the thesis text's (-0.5, 0.5) is an argument
    fixed = score_sets(5, 3, 0.9, 0.1, gamma=0.0, base_interval=(-0.5, 0.5), rng=2)
    np.testing.assert_array_equal(fixed.parent_params, np.tile([-0.5, 0.5], (5, 1)))
    assert res.positives.shape == (3000, 0)


def test_score_sets_normal_parent_fig_6_8():
    alpha, t = 0.7, 2.0
    res = score_sets(
        1, 20_000, alpha, 0.1, t=t, parent=st.norm(), n_positives=0, rng=8, method="accept-reject"
    )
    np.testing.assert_array_equal(res.parent_params, [[0.0, 1.0]])
    x = res.raw_scores
    u = st.norm.cdf(x)
    tn = res.is_true_negative
    assert st.kstest(cdf_tn(u[tn], alpha), "uniform").pvalue > KS_LEVEL
    assert st.kstest(cdf_fn(u[~tn], alpha), "uniform").pvalue > KS_LEVEL
    np.testing.assert_allclose(res.parent_cdf(), u, rtol=1e-13)


@pytest.mark.parametrize("method", ["inverse", "accept-reject"])
def test_score_sets_reproducible_across_threads_and_chunks(method):
    kw = dict(
        n_anchors=103,
        n_unlabeled=17,
        alpha=0.85,
        tau_plus=0.2,
        n_positives=4,
        method=method,
        rng=12345,
    )
    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = score_sets(**kw)
        numba.set_num_threads(max(2, saved))
        many = score_sets(**kw)
    finally:
        numba.set_num_threads(saved)
    for name in ("scores", "is_true_negative", "positives", "parent_params"):
        np.testing.assert_array_equal(getattr(one, name), getattr(many, name))
    for chunk in (1, 10, 64, 1000):
        blocks = list(iter_score_sets(**kw, chunk_size=chunk))
        assert [b.anchor_offset for b in blocks] == list(range(0, 103, chunk))
        for name in ("scores", "is_true_negative", "positives", "parent_params"):
            np.testing.assert_array_equal(
                np.concatenate([getattr(b, name) for b in blocks]), getattr(one, name)
            )
    # a slice of the study generated on its own (anchor_offset) equals the rows of the full run
    part = score_sets(**{**kw, "n_anchors": 40}, anchor_offset=50)
    np.testing.assert_array_equal(part.scores, one.scores[50:90])
    np.testing.assert_array_equal(part.positives, one.positives[50:90])
    assert part.anchor_offset == 50
    other = score_sets(**{**kw, "rng": 54321})
    assert not np.array_equal(other.scores, one.scores)


def test_class_sampler_reproducible_across_threads():
    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        a = sample_class_conditional(st.uniform(), 0.9, "fn", 20_000, method="accept-reject", rng=4)
        numba.set_num_threads(max(2, saved))
        b = sample_class_conditional(st.uniform(), 0.9, "fn", 20_000, method="accept-reject", rng=4)
    finally:
        numba.set_num_threads(saved)
    np.testing.assert_array_equal(a, b)


def test_score_sets_degenerate_but_legal():
    res = score_sets(50, 1, 0.5, 0.5, gamma=1.0, n_positives=1, rng=0)  # alpha = tau = 1/2, N = 1
    assert np.isfinite(res.scores).all() and res.scores.shape == (50, 1)
    res = score_sets(50, 5, 1.0, 1e-9, gamma=0.0, rng=0, method="accept-reject")
    assert res.is_true_negative.all()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(alpha=0.4), "alpha"),
        (dict(tau_plus=0.0), "tau_plus"),
        (dict(tau_plus=1.0), "tau_plus"),
        (dict(gamma=1.5), "gamma"),
        (dict(t=0.0), "t must lie"),
        (dict(method="mcmc"), "method"),
        (dict(base_interval=(1.0, -1.0)), "base_interval"),
        (dict(parent=st.t(3)), "normal and uniform"),
        (dict(parent="gauss"), "parent"),
        (dict(n_anchors=0), "n_anchors"),
        (dict(n_positives=-1), "n_positives"),
    ],
)
def test_score_sets_bad_input(kwargs, match):
    args = dict(n_anchors=4, n_unlabeled=4, alpha=0.9, tau_plus=0.1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        score_sets(**args)


def test_overflow_is_reported():
    with pytest.raises(ValueError, match="overflow"):
        score_sets(2, 2, 0.9, 0.1, t=0.01, rng=0)  # exp(1e4)


def test_exp_row_within_one_ulp_of_libm_exp():
    """The score kernel's vectorisable exp (Cody-Waite reduction, Taylor polynomial, 2^k table)
    against numpy's exp: within 1 ulp on (-700, 700); rows with an entry outside fall back to
    libm (overflow to inf stays inf, reported by score_sets)."""
    from negtheory.generators import _exp_row

    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            rng.uniform(-699.9, 699.9, 200_000),
            rng.uniform(-8, 8, 200_000),
            [0.0, -0.0, 1e-300, -1e-18, 0.34657359, -0.34657359],
        ]
    )
    y = x.copy()
    _exp_row(y)
    ref = np.exp(x)
    assert np.max(np.abs(y - ref) / np.spacing(ref)) <= 1.0
    z = np.array([1.0, 710.0, -800.0])
    _exp_row(z)
    assert z[0] == pytest.approx(math.e, rel=2e-16) and z[1] == np.inf and z[2] == 0.0
