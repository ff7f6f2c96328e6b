"""Regression tests of an outside fuzz sweep (issue 20 item 9) and of the sweep that followed it.

Families: silent inf / NaN for legal but extreme input (scores near the float64 limit, huge
exponents), errors that named the wrong parameter or none (a deprecated alias, shapes that do not
broadcast, arrays given for a string or boolean option, huge integers), and the abstract base class.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
import scipy.stats as st

import negtheory as nt

QUIET = nt.Execution(progress=False)


def _names(param):
    return re.compile(r"(?<![A-Za-z0-9_])" + re.escape(param) + r"(?![A-Za-z0-9_])")


# ---------------------------------------------------------------- silent inf / NaN
def test_theta_biased_of_scores_near_the_float64_limit():
    assert nt.theta_biased(np.array([1e308, 1e308])) == 1e308  # was inf (the sum overflowed)
    assert nt.theta_biased(np.array([1e308, -1e308, 0.0])) == 0.0
    assert nt.theta_biased(np.array([[1e308, 1.7e308], [1.0, 3.0]])) == pytest.approx(
        [1.35e308, 2.0], rel=1e-15
    )


def test_theta_dcl_hcl_bcl_of_scores_near_the_float64_limit():
    x = np.array([1e308, 1e308, 1.0])
    assert np.isfinite(nt.theta_dcl(x, [1.0], 0.1))
    assert np.isfinite(nt.theta_hcl(x, [1.0], 0.1, beta=0.5))
    assert np.isfinite(nt.theta_bcl(x, 0.9, 0.5, 0.1))
    assert np.isfinite(nt.theta_bcl(x, 0.9, 0.5, 0.1, normalize=True))
    # ordinary input: the same numbers as the plain formulas
    s, p = np.array([1.0, 2.0, 3.0]), np.array([3.0])
    w = s**2.0 / np.mean(s**2.0)
    assert nt.theta_hcl(s, p, 0.1, beta=2.0) == pytest.approx(
        (np.mean(w * s) - 0.1 * 3.0) / 0.9, rel=1e-14
    )


def test_theta_hcl_huge_beta_is_the_max_score_limit():
    # beta = 1e308: beta ln x was +-inf and inf - inf NaN; the limit puts all weight on the max
    out = nt.theta_hcl(np.array([1.0, 2.0, 3.0]), [1.0], 0.1, beta=1e308)
    assert out == pytest.approx((3.0 - 0.1 * 1.0) / 0.9, rel=1e-14)


def test_entropy_temperature_derivative_of_huge_scores():
    s = np.array([1e308, -1e308, 0.0])
    assert nt.entropy_temperature_derivative(s, tau=0.645) == 0.0  # was NaN (0 * inf)
    out = nt.entropy_temperature_derivative(s, [1e306, 1e308, np.inf, 0.0])
    assert np.isfinite(out).all() and (out >= 0).all()
    # scale invariance dH/dtau (c s, c tau) = dH/dtau (s, tau) / c, checked far from overflow
    a = nt.entropy_temperature_derivative(np.array([0.9, 0.5, 0.1]), 0.3)
    b = nt.entropy_temperature_derivative(np.array([0.9, 0.5, 0.1]) * 1e300, 0.3e300)
    assert b == pytest.approx(a / 1e300, rel=1e-12)


def test_entropy_controller_update_with_huge_scores():
    ctl = nt.EntropyTemperatureController(0.1, 0.5)
    tau = ctl.update(np.array([1e308, -1e308, 0.0]))
    assert np.isfinite(tau) and np.isfinite(ctl.history[-1][1])


@pytest.mark.parametrize("alpha", [1e308, -1e308])
def test_unigram_proposal_and_mass_of_huge_alpha(alpha):
    q = nt.unigram_proposal([81.0, 16.0, 1.0, 0.0], alpha)
    assert np.array_equal(q, [1.0, 0.0, 0.0, 0.0] if alpha > 0 else [0.0, 0.0, 1.0, 0.0])
    m = nt.proposal_mass([90.0, 9.0, 1.0], [1, 2], alpha=alpha)
    assert m == (0.0 if alpha > 0 else 1.0)
    assert nt.proposal_mass([90.0, 9.0, 1.0], [1, 2], alpha=1.0) == pytest.approx(0.1, rel=1e-14)


def test_alias_table_weights_whose_sum_overflows():
    table = nt.AliasTable(np.array([1e308, 1e308]))
    assert np.allclose(table.p, [0.5, 0.5])
    draws = table.sample(size=263, rng=8)
    assert set(np.unique(draws)) == {0, 1}
    assert np.allclose(nt.InverseCDFSampler(np.array([1e308, 1e308])).p, [0.5, 0.5])


def test_expected_likelihood_joint_whose_sum_overflows():
    out = nt.expected_likelihood(
        [[0.5, 0.5], [0.9, 0.1]], joint=np.array([[1e308, 0.0], [1e308, 1e308]])
    )
    assert out == pytest.approx((0.5 + 0.9 + 0.1) / 3, rel=1e-14)


def test_mse_study_with_huge_hcl_beta():
    df = nt.mse_study(
        "alpha",
        [0.9],
        n_anchors=4,
        n_unlabeled=8,
        hcl_beta=1e308,
        estimators=("hcl",),
        execution=QUIET,
    )
    assert np.isfinite(df["mse"]).all()  # was ZeroDivisionError (x * (1/max) rounded below 1)


# ---------------------------------------------------------------- mse_study with one anchor
def test_mse_study_needs_two_anchors():
    with pytest.raises(ValueError, match=r"n_anchors must be an integer in \[2,"):
        nt.mse_study(
            "alpha", [0.5], n_anchors=1, rng=0, execution=nt.Execution(chunk_size=1, progress=False)
        )


def test_mse_study_deprecated_seed_still_works_and_errors_say_seed():
    with pytest.warns(DeprecationWarning, match="'seed' is deprecated"):
        df = nt.mse_study(
            "alpha",
            [0.5],
            n_anchors=2,
            seed=0,
            execution=nt.Execution(chunk_size=1, progress=False),
        )
    assert len(df) == 5
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match=r"^seed must be"):
        nt.mse_study("alpha", [0.5], n_anchors=2, seed="abc", execution=QUIET)


def test_mse_study_warns_when_mse_se_is_nan():
    # N = 1 and tau+ = 0.9: most anchors hold no true negative, so no truth is defined
    with pytest.warns(RuntimeWarning, match="fewer than two anchors with a defined truth"):
        df = nt.mse_study("tau_plus", [0.9], n_anchors=2, n_unlabeled=1, rng=0, execution=QUIET)
    assert df["mse_se"].isna().all()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        nt.mse_study("alpha", [0.9], n_anchors=8, n_unlabeled=8, rng=0, execution=QUIET)


# ---------------------------------------------------------------- the parameter named
@pytest.mark.parametrize("bad", ["abc", [1, "a"], 1.5, -1])
def test_deprecated_seed_is_named_as_spelled(bad):
    base = st.norm()
    calls = [
        lambda kw: nt.sample_class_conditional(base, 0.7, size=3, **kw),
        lambda kw: nt.MixtureOfGaussiansTask(4, 5, 5, **kw),
        lambda kw: nt.score_sets(4, 8, 0.9, 0.1, **kw),
    ]
    for call in calls:
        with pytest.warns(DeprecationWarning), pytest.raises((TypeError, ValueError)) as info:
            call({"seed": bad})
        msg = str(info.value)
        assert _names("seed").search(msg) and msg.startswith("seed "), msg
        with pytest.raises((TypeError, ValueError), match=r"^rng "):  # the new name, as spelled
            call({"rng": bad})


def test_effectiveness_dist_names_pos_pred():
    good = st.norm()
    with pytest.raises(ValueError, match=r"^pos_pred has invalid parameters"):
        nt.effectiveness_dist(10, st.norm(1.0), good, st.norm(math.nan, 1.0), good)
    with pytest.raises(ValueError, match=r"^neg_pred has invalid parameters"):
        nt.effectiveness_dist(10, st.norm(1.0), good, good, st.norm(0.0, -1.0))


@pytest.mark.parametrize(
    "value, kind",
    [(None, TypeError), (True, TypeError), (math.nan, ValueError), (-math.inf, ValueError)],
)
def test_expected_likelihood_names_model_probs(value, kind):
    with pytest.raises(kind, match=r"^model_probs "):
        nt.expected_likelihood(model_probs=value, joint=np.array([[0.5, 0.5]]))


def test_dpl_error_bound_names_every_invalid_parameter():
    with pytest.raises(ValueError) as info:
        nt.dpl_error_bound(n=2, m=5876.76, tau_plus=1.0000000000000002)
    msg = str(info.value)
    assert (
        _names("m").search(msg) and _names("tau_plus").search(msg) and not _names("n").search(msg)
    )
    with pytest.raises(
        ValueError, match=r"^tau_plus must lie in"
    ):  # one bad parameter: its own error
        nt.dpl_error_bound(n=2, m=5, tau_plus=1.5)
    with pytest.raises(ValueError, match="must broadcast"):
        nt.dpl_error_bound(n=[2, 3], m=[4, 5, 6], tau_plus=0.1)
    assert nt.dpl_error_bound(256, 16, 0.1) == pytest.approx(1.6206, abs=1e-4)


@pytest.mark.parametrize(
    "call, names",
    [
        (lambda: nt.bns_info(x_pos=np.zeros(3), x_neg=np.zeros(2)), ("x_pos", "x_neg")),
        (lambda: nt.bns_unbias(F=np.zeros(3), p_fn=np.zeros(2)), ("F", "p_fn")),
        (lambda: nt.bns_risk(info=np.zeros(3), unbias=np.zeros(2), lam=1.0), ("info", "unbias")),
        (lambda: nt.infonce_loss(pos=np.zeros(3), neg=np.zeros((2, 4)), tau=1.0), ("pos", "neg")),
        (
            lambda: nt.bns_select(np.zeros(3), np.zeros((2, 4)), np.zeros(4)),
            ("x_pos", "candidate_scores"),
        ),
        (lambda: nt.bns_select(np.zeros(2), np.zeros((2, 4)), np.zeros(3)), ("candidate_p_fn",)),
        (
            lambda: nt.bns_select(np.zeros(2), np.zeros((2, 4)), np.zeros(4), np.zeros((3, 5))),
            ("reference_scores",),
        ),
        (
            lambda: nt.dpl_probability(np.zeros(3), np.zeros((2, 4)), np.zeros((2, 1)), 0.1),
            ("pos_score", "unlabeled_scores"),
        ),
        (
            lambda: nt.dpl_loss(np.zeros(2), np.zeros((2, 4)), np.zeros((3, 1)), 0.1),
            ("extra_pos_scores",),
        ),
        (
            lambda: nt.theta_hcl(np.ones((2, 3)), np.ones(2), 0.1, 1.0, floor=np.zeros(3)),
            ("floor",),
        ),
        (lambda: nt.coverage_probability(rho=np.full(3, 0.3), k=np.ones(2)), ("rho", "k")),
    ],
)
def test_shape_mismatch_names_the_parameters_and_shapes(call, names):
    with pytest.raises(ValueError) as info:
        call()
    msg = str(info.value)
    assert "operands could not be broadcast" not in msg
    for name in names:
        assert _names(name).search(msg), msg
    assert re.search(r"\(\d+(, \d+)*,?\)", msg), msg  # a shape is shown


def test_quadratic_cdf_law_validates_its_coefficients_at_construction():
    with pytest.raises(TypeError, match=r"^b must be a real number"):
        nt.QuadraticCDFLaw(base=st.uniform(0, 1), a=0.47, b=None)
    with pytest.raises(ValueError, match=r"^b must not be NaN"):
        nt.QuadraticCDFLaw(base=st.uniform(0, 1), a=0.47, b=math.nan)
    with pytest.raises(TypeError, match=r"^a must be"):
        nt.QuadraticCDFLaw(base=st.uniform(0, 1), a="x", b=0.5)
    law = nt.QuadraticCDFLaw(base=st.uniform(0, 1), a=0.5, b=0.5)
    assert law.cdf(0.5) == pytest.approx(0.375)


def test_score_distribution_is_abstract():
    with pytest.raises(TypeError, match="abstract base class: use a subclass"):
        nt.ScoreDistribution()
    law = nt.true_negative(st.norm(), 0.8)  # subclasses (and their pickles) unaffected
    import pickle

    assert pickle.loads(pickle.dumps(law)).cdf(0.1) == law.cdf(0.1)


@pytest.mark.parametrize("value", [np.array([0.5, math.nan]), np.array([1e308, 1e308])])
@pytest.mark.parametrize(
    "name, call",
    [
        ("label", lambda v: nt.sample_class_conditional(st.norm(), 0.7, label=v)),
        ("method", lambda v: nt.sample_class_conditional(st.norm(), 0.7, method=v)),
        ("method", lambda v: nt.score_sets(4, 8, 0.9, 0.1, method=v)),
        ("vary", lambda v: nt.mse_study(v, [0.5], execution=QUIET)),
        ("denominator", lambda v: nt.ecdf(np.zeros(3), denominator=v)),
        ("denominator", lambda v: nt.choose_thresholds(np.linspace(0, 1, 8), denominator=v)),
        ("strategy", lambda v: nt.mine_negatives(np.zeros(2), np.ones((2, 3)), strategy=v)),
        ("pick", lambda v: nt.mine_negatives(np.zeros(2), np.ones((2, 3)), pick=v)),
        (
            "reduction",
            lambda v: nt.dpl_loss(
                [3.0, 1.0], [[0.0, 0.5], [0.0, 2.0]], [[2.5], [1.0]], 0.1, reduction=v
            ),
        ),
        ("normalize", lambda v: nt.theta_bcl(np.array([1.0, 2.0]), 0.9, 0.5, 0.1, normalize=v)),
        ("normalize", lambda v: nt.credence([0.1, 0.2], [0, 1], [1.0, 2.0], 4, 1.0, normalize=v)),
        (
            "return_acceptance",
            lambda v: nt.sample_class_conditional(st.norm(), 0.7, return_acceptance=v),
        ),
        ("log", lambda v: nt.boltzmann([1.0, 2.0], log=v)),
        (
            "include_positive",
            lambda v: nt.relaxed_softmax_loss([[1.0, 2.0, 3.0]], [0], [[1]], include_positive=v),
        ),
        ("positives", lambda v: nt.paper_table_scores(rng=0, positives=v)),
        ("progress", lambda v: nt.Execution(progress=v)),
    ],
)
def test_an_array_for_an_option_names_the_option(name, call, value):
    with pytest.raises((ValueError, TypeError)) as info:
        call(value)
    msg = str(info.value)
    assert "truth value" not in msg and _names(name).search(msg), msg


@pytest.mark.parametrize("value", ["abc", math.nan, None])
def test_a_non_boolean_for_a_flag_is_refused(value):
    with pytest.raises(TypeError, match=r"^normalize must be True or False"):
        nt.theta_bcl(np.array([1.0, 2.0]), 0.9, 0.5, 0.1, normalize=value)
    assert (
        nt.theta_bcl(np.array([1.0, 2.0]), 0.9, 0.5, 0.1, normalize=np.bool_(True)) > 0
    )  # numpy booleans pass


@pytest.mark.parametrize(
    "name, call",
    [
        ("size", lambda v: nt.AliasTable([0.5, 0.5]).sample(size=v)),
        ("size", lambda v: nt.true_negative(st.norm(), 0.8).rvs(size=v)),
        ("size", lambda v: nt.sample_class_conditional(st.norm(), 0.7, size=v)),
        ("size", lambda v: nt.sample_boltzmann([1.0, 2.0], size=v)),
        ("n", lambda v: nt.MixtureOfGaussiansTask(2, 3, 3).sample(v)),
        ("n_components", lambda v: nt.MixtureOfGaussiansTask(v, 3, 3)),
        ("d", lambda v: nt.credence([0.1], [0], [1.0], v, 1.0)),
        ("steps", lambda v: nt.optimal_k(1.0, 0.5, steps=v)),
        ("max_trials", lambda v: nt.sample_class_conditional(st.norm(), 0.7, max_trials=v)),
        ("n_unlabeled", lambda v: nt.score_sets(4, v, 0.9, 0.1)),
        ("n_anchors", lambda v: nt.mse_study("alpha", [0.5], n_anchors=v, execution=QUIET)),
        ("axis", lambda v: nt.kl_divergence([1.0, 2.0], [1.0, 2.0], axis=-v)),
    ],
)
@pytest.mark.parametrize("value", [1e308, 2**70])
def test_huge_integers_are_refused_with_the_name(name, call, value):
    with pytest.raises(ValueError) as info:
        call(value)
    assert _names(name).search(str(info.value)), str(info.value)


def test_huge_integer_seed_still_accepted():
    # seeds are not array sizes: a Python int of any size stays a valid seed
    a = nt.score_sets(2, 4, 0.9, 0.1, rng=2**70).scores
    assert np.array_equal(a, nt.score_sets(2, 4, 0.9, 0.1, rng=2**70).scores)


def test_mse_study_bad_swept_value_names_values():
    with pytest.raises(TypeError, match=r"^values\[0\] = None is not a valid alpha"):
        nt.mse_study("alpha", None, execution=QUIET)
    with pytest.raises(
        ValueError, match=r"^values\[1\] = 0.3 is not a valid alpha: alpha must lie in"
    ):
        nt.mse_study("alpha", [0.9, 0.3], execution=QUIET)


def test_solve_alpha_bracket_and_kl_axis_are_named():
    with pytest.raises(TypeError, match=r"^bracket must be a pair"):
        nt.solve_alpha([90.0, 9.0, 1.0], [1, 2], 0.2, bracket=None)
    with pytest.raises(TypeError, match=r"^axis must be an integer"):
        nt.kl_divergence([1.0, 2.0], [1.0, 2.0], axis=True)


def test_rvs_names_rng_as_spelled():
    law = nt.true_negative(st.norm(), 0.8)
    with pytest.raises(TypeError, match=r"^rng must be"):
        law.rvs(3, rng=[1, "a"])
    with pytest.raises(TypeError, match=r"^random_state must be"):
        law.rvs(3, random_state=[1, "a"])


def test_size_whose_product_is_too_big_is_named():
    with pytest.raises(ValueError, match=r"^size must describe at most 2\*\*60 elements"):
        nt.AliasTable([0.5, 0.5]).sample(size=(2**40, 2**40))


@pytest.mark.parametrize(
    "name, call",
    [
        ("axis", lambda: nt.boltzmann([1.0, 2.0], axis="abc")),
        ("axis", lambda: nt.boltzmann([1.0, 2.0], axis=True)),
        ("estimators", lambda: nt.mse_study("alpha", [0.5], estimators=None, execution=QUIET)),
        ("checkpoint", lambda: nt.Execution(checkpoint=True)),
        ("base_interval", lambda: nt.Generation(base_interval=True)),
        ("pairs", lambda: nt.approx_mpr([[1.0, 2.0]], pairs=True)),
        ("proposal", lambda: nt.AcceptRejectSampler(st.norm().pdf, st.norm(math.nan, 1.0), 2.0)),
    ],
)
def test_misc_bad_arguments_are_named(name, call):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert _names(name).search(str(info.value)), str(info.value)


# ---------------------------------------------------------------- the torch bridge
def test_bridge_non_tensor_and_option_errors_are_named():
    torch = pytest.importorskip("torch")
    from negtheory.bridge import BayesianContrastiveLoss, InfoNCELoss
    from negtheory.bridge import functional as F

    pos, neg = torch.zeros(2, dtype=torch.float64), torch.zeros((2, 3), dtype=torch.float64)
    cases = [
        ("neg_logits", lambda: F.ecdf_counts(None)),
        ("neg_logits", lambda: F.bcl_log_weights(True, 0.9, 0.5, 0.1)),
        ("weight", lambda: F.bpr(pos, neg[:, :1], weight="abc")),
        ("pos_extra_logits", lambda: F.dpl(pos, neg, 0.1, pos_extra_logits=True)),
        ("reduction", lambda: F.infonce(pos, neg, reduction=np.array([0.5, math.nan]))),
        ("normalize", lambda: F.bcl(pos, neg, 0.9, 0.5, 0.1, normalize="yes")),
        (
            "include_positive",
            lambda: F.relaxed_softmax(pos, neg, include_positive=np.array([1.0, 2.0])),
        ),
        ("normalize", lambda: InfoNCELoss(normalize=np.array([0.5, math.nan]))),
        ("reduction", lambda: InfoNCELoss(reduction=np.array([0.5, math.nan]))),
        ("normalize_weights", lambda: BayesianContrastiveLoss(normalize_weights="no")),
    ]
    for name, call in cases:
        with pytest.raises((TypeError, ValueError)) as info:
            call()
        msg = str(info.value)
        assert "truth value" not in msg and _names(name).search(msg), (name, msg)
