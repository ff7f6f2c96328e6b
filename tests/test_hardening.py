"""Regression tests of issue 12, items 1-7 (hang, out-of-range values, wrong moments, silent NaN,
NaN hidden by the torch losses, invalid input accepted, errors of the wrong kind).

Reference values are independent of the code under test: closed forms (Beta moments of uniform
order statistics, Renyi's representation of exponential order statistics, sigmoid(+-1), the KL
divergence of two small laws), mpmath at 40 digits, exact integer arithmetic, scipy.
"""

from __future__ import annotations

import math
import subprocess
import sys

import mpmath as mp
import numpy as np
import pytest
import scipy.stats as sst

import negtheory as nt


# ------------------------------------------------------------------ item 1: no hang
def test_reliability_huge_mu_returns_exact_limits_without_hanging():
    code = (
        "import negtheory as nt, numpy as np\n"
        "print(float(nt.reliability(1e16, 2)), float(nt.reliability(-1e16, 2)), float(nt.reliability(1e300, 7.5)))\n"
        "g, b, e = nt.sample_fractions(3, 1e300, 0.5)\n"
        "print(float(g), float(b), float(e), float(nt.reliability(0.5, 3)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=240, check=True
    ).stdout.split()
    hi, lo, far, g, b, e, pb = map(float, out)
    # 1 - P(A) <= K Phi(-mu / sqrt 2) and P(A) <= Phi(mu / sqrt 2): both round to the limits
    assert (hi, lo, far) == (1.0, 0.0, 1.0)
    assert (
        g == pytest.approx(1.0 - pb, rel=1e-14)
        and b == 0.0
        and g + b + e == pytest.approx(1.0, abs=1e-15)
    )


def test_reliability_is_continuous_at_the_far_tail_cutoff():
    # P(A) = int phi(x - mu) Phi(x)^K dx; near mu = 60 both sides must agree with the bound
    for k in (1.0, 1e6, 1e300):
        p = float(nt.reliability(59.999, k))
        assert 1.0 - p <= k * sst.norm.sf(59.999 / math.sqrt(2.0)) + 1e-16
        assert float(nt.reliability(-59.999, k)) <= sst.norm.cdf(-59.999 / math.sqrt(2.0)) + 1e-300


def test_reliability_huge_k_mode_search_terminates():
    # K ~ 1e306: the log-integrand is so steep that an unguarded Newton search crept and the
    # panel loop then ran for ever; compare with the independent quantile quadrature
    code = (
        "import negtheory as nt, scipy.stats as st\n"
        "for mu, k in [(5.646666666666667, 5.8e306), (8.47, 1e100), (0.0, 5.8e306)]:\n"
        "    print(float(nt.reliability(mu, k)), float(nt.reliability_dist(k, st.norm(mu, 1), st.norm())))\n"
        "print(float(nt.overall_effectiveness(5.8e306, 8.47)))\n"
    )
    lines = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=240, check=True
    ).stdout.split("\n")
    for line in lines[:3]:
        got, ref = map(float, line.split())
        assert got == pytest.approx(ref, rel=1e-10)
    assert float(lines[0].split()[0]) > 0 and float(lines[2].split()[0]) == pytest.approx(
        1 / 5.8e306, rel=1e-10
    )
    assert math.isfinite(float(lines[3]))


# ------------------------------------------------------------------ item 2: variance-gamma range
def _vg_log_pdf_mp(d, lam, x):
    mp.mp.dps = 40
    z = mp.mpf(abs(x)) / lam
    nu = mp.mpf(d - 1) / 2
    return float(
        nu * mp.log(z / 2)
        + mp.log(mp.besselk(nu, z))
        - mp.log(lam)
        - mp.log(mp.sqrt(mp.pi))
        - mp.loggamma(mp.mpf(d) / 2)
    )


@pytest.mark.parametrize("d, x", [(1024, 1e154), (1024, 1e155), (3, 1e12), (64, 3e9), (1, 1e20)])
def test_inner_product_far_tail_against_mpmath(d, x):
    ip = nt.inner_product(d, 1.0)
    ref = _vg_log_pdf_mp(d, 1.0, x)
    assert float(ip.logpdf(x)) == pytest.approx(ref, rel=1e-13)
    assert float(ip.logsf(x)) == pytest.approx(ref, rel=1e-12)  # S ~ f (1 + O(d / x)) in log scale
    assert float(ip.cdf(x)) == 1.0 and float(ip.cdf(-x)) == 0.0
    assert float(ip.pdf(x)) == 0.0 and float(ip.sf(x)) == 0.0


def test_inner_product_subnormal_arguments_and_quantiles():
    ip = nt.inner_product(5, 1.0)
    assert ip.cdf([1e-310, -1e-310]).tolist() == [0.5, 0.5]  # |cdf - 1/2| <= f(0) |x|
    assert float(ip.pdf(1e-310)) == pytest.approx(float(ip.pdf(0.0)), rel=1e-15)
    ip3 = nt.inner_product(3, 1.0)
    for q in (5e-324, 1e-310, 1e-300):
        x = float(ip3.ppf(q))
        assert math.isfinite(x) and x < 0
        assert float(ip3.logcdf(x)) == pytest.approx(math.log(q), rel=1e-9)
    assert float(nt.inner_product(1024, 1e300).std()) == pytest.approx(1e300 * 32.0, rel=1e-15)


# ------------------------------------------------------------------ item 3: moments
@pytest.mark.parametrize("k, n", [(10**6, 10**6), (1, 10**6), (3, 7), (1, 1)])
def test_uniform_order_statistic_moments_are_the_beta_moments(k, n):
    o = nt.order_statistic(sst.uniform(), k, n)
    a, b = k, n - k + 1
    assert o.mean() == pytest.approx(a / (a + b), rel=1e-14)
    assert o.var() == pytest.approx(a * b / ((a + b) ** 2 * (a + b + 1)), rel=1e-12)
    o2 = nt.order_statistic(sst.uniform(-2.0, 4.0), k, n)
    assert o2.mean() == pytest.approx(-2.0 + 4.0 * a / (a + b), rel=1e-13, abs=1e-14)


@pytest.mark.parametrize("k, n", [(1, 1), (2, 5), (1, 10**6), (10**6, 10**6), (500, 1000)])
def test_exponential_order_statistic_moments_renyi(k, n):
    # Renyi: X_(k) = sum_{i = n-k+1}^{n} E_i / i, E_i i.i.d. Exp(1)
    i = np.arange(n - k + 1, n + 1, dtype=float)
    o = nt.order_statistic(sst.expon(), k, n)
    assert o.mean() == pytest.approx(math.fsum(1.0 / i), rel=1e-11)
    assert o.var() == pytest.approx(math.fsum(1.0 / i**2), rel=1e-10)


def test_normal_pair_order_statistic_moments():
    lo = nt.order_statistic(sst.norm(), 1, 2)
    assert lo.mean() == pytest.approx(-1.0 / math.sqrt(math.pi), rel=1e-12)
    assert lo.var() == pytest.approx(1.0 - 1.0 / math.pi, rel=1e-11)


# ------------------------------------------------------------------ item 4: silent NaN / garbage
def test_theta_bcl_normalized_with_all_zero_weights_is_the_common_score():
    assert float(nt.theta_bcl([1.0, 1.0, 1.0], 0.5, 0.0, 0.1, normalize=True)) == 1.0
    assert nt.theta_bcl([[2.5]], 0.9, 0.0, 0.1, normalize=True).tolist() == [2.5]


@pytest.mark.parametrize("n", [1, 3])
def test_torch_bcl_beta0_ties_have_finite_values_and_gradients(n):
    torch = pytest.importorskip("torch")
    from negtheory.bridge.functional import bcl

    for nw in (False, True):
        pos = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
        neg = torch.full((1, n), 0.5, dtype=torch.float64, requires_grad=True)
        loss = bcl(pos, neg, 0.9, 0.0, 0.1, normalize_weights=nw)
        loss.backward()
        # omega = 0 at the top of the eCDF: N theta = 0 (plain) or the common score (normalised)
        expected = math.log1p(n * math.exp(0.5 - 1.0)) if nw else 0.0
        assert float(loss.detach()) == pytest.approx(expected, rel=1e-14, abs=1e-300)
        assert torch.isfinite(pos.grad).all() and torch.isfinite(neg.grad).all()


def test_popularity_prior_and_credence_near_the_float_limit():
    sig = 1.0 / (1.0 + math.exp(-1.0))
    assert nt.popularity_prior([1e200, 0.0]) == pytest.approx([sig, 1.0 - sig], rel=1e-15)
    # standardisation is scale-free: the same as counts (1, 1, 0)
    assert nt.popularity_prior([1e308, 1e308, 0.0]) == pytest.approx(
        nt.popularity_prior([1.0, 1.0, 0.0]), rel=1e-14
    )
    c_big = nt.credence([0.3, -0.2], [0, 1], [1e308, 1e307], 8, 0.5)
    c_ref = nt.credence([0.3, -0.2], [0, 1], [10.0, 1.0], 8, 0.5)
    assert np.all(np.isfinite(c_big)) and c_big == pytest.approx(c_ref, rel=1e-13)


def test_kl_divergence_of_huge_weights():
    ref = 0.5 * math.log(0.5 / (1 / 3)) + 0.5 * math.log(0.5 / (2 / 3))
    assert float(nt.kl_divergence([1e308, 1e308], [1.0, 2.0])) == pytest.approx(ref, rel=1e-14)
    assert float(nt.kl_divergence([1.0, 2.0], [1e308, 1e308])) == pytest.approx(
        (1 / 3) * math.log((1 / 3) / 0.5) + (2 / 3) * math.log((2 / 3) / 0.5), rel=1e-14
    )


def test_integer_outputs_never_wrap():
    with pytest.raises(ValueError, match="k"):
        nt.draw_negative_counts(1e19)
    with pytest.raises(ValueError, match="batch_size"):
        nt.negative_costs(2**40, 2**40, 1)
    c = nt.negative_costs(2**31, 2**31 - 1, 3)  # exact beyond 2^53, checked with Python integers
    assert int(c.memory_per_example) == 2**31 * (2**31 - 1)
    assert int(c.dots_per_example) == 2**31 * 2**31 and int(c.dots_shared) == 2**31 * 4
    counts = nt.draw_negative_counts(9.2e18, size=3, rng=0)
    assert counts.dtype == np.int64 and (counts >= 9.2e18 - 1).all()


def test_mixture_task_with_huge_scale_is_flat():
    task = nt.MixtureOfGaussiansTask(3, 4, 5, rng=0, scale=(1e300, 1e300))
    assert np.all(np.isfinite(task.joint))
    assert task.joint == pytest.approx(np.full((4, 5), 1 / 20), rel=1e-12)  # flat at this scale
    with pytest.raises(ValueError, match="scale"):
        nt.MixtureOfGaussiansTask(3, 4, 5, scale=(1e-300, 1e-300))


def test_temperature_functions_at_tiny_tau():
    # Var_p(s) = p (1 - p), p = e^{-1/tau} / (1 + e^{-1/tau}) = 0 in double at tau = 1e-110
    assert float(nt.entropy_temperature_derivative([1.0, 2.0], 1e-110)) == 0.0
    ctl = nt.EntropyTemperatureController(0.1, 0.5, tau=1e-200)
    tau = ctl.update([1.0, 2.0, 3.0])
    assert math.isfinite(tau) and tau > 0


def test_true_negative_log_cdf_deep_tail_against_mpmath():
    tn = nt.true_negative(sst.norm(), 0.9)
    mp.mp.dps = 40
    for x in (-40.0, -100.0, -10.0):
        u = mp.ncdf(x)
        ref = float(mp.log(tn.b * u + tn.a * u * u))
        assert float(tn.logcdf(x)) == pytest.approx(ref, rel=1e-13)
        v = mp.ncdf(x)  # the survival function at -x
        ref_sf = float(mp.log(v * ((tn.b + 2 * tn.a) - tn.a * v)))
        assert float(tn.logsf(-x)) == pytest.approx(ref_sf, rel=1e-13)


# ------------------------------------------------------------------ item 5: NaN in, NaN out (torch)
def test_torch_losses_never_hide_nan_or_inf():
    torch = pytest.importorskip("torch")
    import negtheory.bridge as bridge
    from negtheory.bridge import functional as F

    nan, inf = math.nan, math.inf
    pos = torch.tensor([1.0, 0.5])
    neg = torch.tensor([[0.0, nan], [0.2, 0.1]])
    out = F.dcl(pos, neg, 0.1, reduction="none")
    assert torch.isnan(out[0]) and torch.isfinite(out[1])  # only the poisoned anchor
    assert torch.isnan(F.dcl(pos, neg, 0.1))
    assert torch.isnan(F.dpl(torch.tensor([nan]), torch.tensor([[0.0, 1.0]]), 0.1))
    assert torch.isnan(F.hcl(torch.tensor([1.0]), torch.tensor([[inf, 0.0]]), 0.1, 1.0))
    for fn in (F.infonce, F.bpr, F.bce, F.relaxed_softmax):
        assert torch.isnan(fn(torch.tensor([inf]), torch.tensor([[0.0, 1.0]])))
    assert torch.isnan(F.bcl(torch.tensor([1.0]), torch.tensor([[nan, 0.0]]), 0.9, 0.5, 0.1))
    emb = torch.randn(3, 2)
    assert torch.isnan(bridge.DPLLoss()(torch.full((3, 2), nan), emb))
    assert torch.isnan(
        bridge.InfoNCELoss()(emb, emb.clone().index_fill_(0, torch.tensor([1]), inf))
    )
    # -inf stays a legal mask (a logit whose exponential is 0)
    a = F.infonce(torch.tensor([1.0]), torch.tensor([[0.0, -inf]]))
    b = F.infonce(torch.tensor([1.0]), torch.tensor([[0.0]]))
    assert float(a) == pytest.approx(float(b), rel=1e-7)


# ------------------------------------------------------------------ item 6: invalid input rejected
def test_invalid_parents_are_rejected_naming_the_parameter():
    with pytest.raises(ValueError, match="pos"):
        nt.reliability_dist(2, sst.norm(0, -1), sst.norm())
    with pytest.raises(ValueError, match="base"):
        nt.order_statistic(sst.norm(math.nan), 1, 2)
    with pytest.raises(ValueError, match="base"):
        nt.true_negative(sst.norm(0.0, math.inf), 0.9)
    with pytest.raises(ValueError, match="parent"):
        nt.score_sets(2, 3, 0.9, 0.1, parent=sst.norm(math.nan))
    with pytest.raises(ValueError, match="upper_grid"):
        nt.choose_thresholds([1.0, 2.0, 3.0], upper_grid=[math.nan, 0.5])


@pytest.mark.parametrize(
    "call",
    [
        lambda: nt.auc_from_mu(True),
        lambda: nt.reliability(0.5, True),
        lambda: nt.theta_biased(np.array([True, False])),
        lambda: nt.inner_product(3, True),
        lambda: nt.true_negative(sst.norm(), False),
    ],
)
def test_booleans_are_not_numbers(call):
    with pytest.raises(TypeError, match="boolean|integer"):
        call()


def test_non_integral_sizes_are_rejected():
    for call in (
        lambda: nt.sample_class_conditional(sst.norm(), 0.8, size=1.5),
        lambda: nt.AliasTable([1.0, 2.0]).sample(1.5),
        lambda: nt.InverseCDFSampler([1.0, 2.0]).sample((2, 1.5)),
        lambda: nt.order_statistic(sst.norm(), 1, 2).rvs(size=2.5),
    ):
        with pytest.raises(ValueError, match="size"):
            call()
    assert nt.AliasTable([1.0, 2.0]).sample(3.0, rng=0).shape == (3,)  # integral floats are fine


def test_torch_modules_validate_their_hyperparameters():
    pytest.importorskip("torch")
    import negtheory.bridge as bridge

    with pytest.raises(ValueError, match="tau_plus"):
        bridge.DebiasedContrastiveLoss(tau_plus=1.5)
    with pytest.raises(ValueError, match="alpha"):
        bridge.BayesianContrastiveLoss(alpha=3)
    with pytest.raises(ValueError, match="beta"):
        bridge.HardContrastiveLoss(beta=-1.0)
    with pytest.raises(ValueError, match="temperature"):
        bridge.InfoNCELoss(temperature=0.0)


# ------------------------------------------------------------------ item 7: right kind, right name
@pytest.mark.parametrize(
    "call, kind, name",
    [
        (lambda: nt.effective_margin([1.0, 2.0], [1.0, 2.0, 3.0], 2.0), ValueError, "tau"),
        (lambda: nt.k_min([0.1, 0.2], [0.5, 0.6, 0.7]), ValueError, "rho"),
        (lambda: nt.sample_boltzmann([]), ValueError, "scores"),
        (lambda: nt.hard_negative_probability(None, 0.5), TypeError, "n"),
        (
            lambda: nt.relaxed_softmax_limit_grad([1.0, 2.0], 0, proposal=[-1.0, 1.0]),
            ValueError,
            "proposal",
        ),
        (lambda: nt.score_sets(2, 3, 0.9, 0.1, parent=3.0), TypeError, "parent"),
        (lambda: nt.order_statistic(sst.norm(), 1, 2).rvs(size=-1), ValueError, "size"),
        (lambda: nt.order_statistic(sst.norm(), 1, 2).rvs(size="abc"), TypeError, "size"),
        (lambda: nt.inner_product(3, 1.0).rvs(random_state="abc"), TypeError, "random_state"),
        (lambda: nt.sample_class_conditional(sst.norm(), 0.8, size=3, rng="abc"), TypeError, "rng"),
        (lambda: nt.InverseCDFSampler([1e308, 1e308, 0.0]).sample(2, rng=-1), ValueError, "rng"),
        (lambda: nt.effectiveness([1.0, 2.0], 1.0, 1.0, lam=[0.1, 0.2, 0.3]), ValueError, "lam"),
        (lambda: nt.threshold_table([1.0, 2.0], [1.0, 2.0], [0.0, 0.0, 0.0]), ValueError, "upper"),
        (lambda: nt.categorize([1.0, 2.0], "abc", 0.0), TypeError, "upper"),
    ],
)
def test_errors_have_the_right_kind_and_name_the_parameter(call, kind, name):
    with pytest.raises(kind, match=rf"\b{name}\b"):
        call()


def test_temperature_for_entropy_with_huge_scores():
    s = np.array([0.0, 1e308, -1e308])
    target = 0.5
    tau = nt.temperature_for_entropy(s, target)
    assert math.isfinite(tau)
    # entropy of softmax(s / tau), evaluated independently with mpmath
    mp.mp.dps = 40
    z = [mp.mpf(float(v)) / mp.mpf(tau) for v in s]
    m = max(z)
    w = [mp.e ** (v - m) for v in z]
    tot = mp.fsum(w)
    h = -mp.fsum((wi / tot) * mp.log(wi / tot) for wi in w if wi > 0)
    assert float(h) == pytest.approx(target, rel=1e-9)
    assert nt.InverseCDFSampler([1e308, 1e308, 0.0]).cdf.tolist() == [0.5, 1.0]  # no fsum overflow


def test_normal_quantiles_at_subnormal_probabilities_against_mpmath():
    # Phi^{-1} of a subnormal p (used by the class-conditional laws' fast path) was NaN
    u = nt.unlabeled(sst.norm(), 0.9152954830439537, 0.6715148112055276)
    mp.mp.dps = 50
    for q in (
        1e-310,
        1e-300,
        1.2e-38,
    ):  # parent probabilities q / (b + 2a) still carry >= 13 digits
        x = float(u.isf(q))
        v = mp.ncdf(-mp.mpf(x))  # the parent's survival function at x
        s = v * ((u.b + 2 * u.a) - u.a * v)
        assert math.isfinite(x) and float(mp.log(s)) == pytest.approx(math.log(q), rel=1e-11)
        assert float(u.ppf(q)) == pytest.approx(-x, rel=1e-2)  # nearly symmetric tails
    # the smallest subnormal: finite, beyond the parent's own quantile of the same probability
    assert (
        math.isfinite(float(u.isf(5e-324)))
        and float(u.isf(5e-324)) >= float(sst.norm.isf(5e-324)) - 1e-12
    )
    assert float(nt.inner_product(3, 1.0).ppf(5e-324)) < 0


@pytest.mark.parametrize("d", [512, 1937, 3620])
def test_inner_product_large_d_tail_between_body_and_far_tail(d):
    """d >= 512 uses the Gauss-Hermite mixture for the tail probability up to z = 1e8 d^2; its curvature
    needs the Mills ratio without cancellation once a = z e^{-s0/2} / sqrt(d) > 30 (found by the
    fuzz suite: NaN at z ~ 3e14). Reference: the exact ladder of the d < 512 path, which is valid for
    every d (only slower)."""
    from negtheory.variance_gamma import _vg_log_pdf_sf, _vg_log_sf_mixture

    for z in (1e3, 1e5, 1e7, 3.2e14, 0.99e8 * d * d):
        ref = _vg_log_pdf_sf(d, z)[1]
        assert _vg_log_sf_mixture(d, z) == pytest.approx(ref, rel=1e-11)
    ip = nt.inner_product(d, 131.35)
    assert ip.cdf(-4.2e16) == 0.0 and np.isfinite(ip.logsf(-6.1e16)) and ip.logcdf(-4.2e16) < -1e13
