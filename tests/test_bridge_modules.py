"""negtheory.bridge.losses: fast paths against float64 references, labelled call, half precision,
constructor checks, thread settings and torch.compile."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from negtheory import estimators as est  # noqa: E402
from negtheory.bridge import functional as Fn  # noqa: E402
from negtheory.bridge import losses as M  # noqa: E402


def _all_modules(**kw):
    return [
        M.InfoNCELoss(0.5, **kw),
        M.DebiasedContrastiveLoss(0.1, 0.5, **kw),
        M.HardContrastiveLoss(0.1, 1.0, 0.5, **kw),
        M.BayesianContrastiveLoss(0.9, 0.5, 0.1, 0.5, **kw),
        M.BPRLoss(**kw),
        M.DPLLoss(0.1, **kw),
        M.BCELoss(**kw),
        M.RelaxedSoftmaxLoss(**kw),
    ]


def _emb(b=6, d=5, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(b, d, generator=g, dtype=dtype), torch.randn(b, d, generator=g, dtype=dtype)


def _ref_logits(a, p, t, normalize, symmetric):
    """In-batch logits by an explicit loop (float64), independent of pair_logits."""
    if normalize:
        a, p = torch.nn.functional.normalize(a, dim=-1), torch.nn.functional.normalize(p, dim=-1)
    b = a.shape[0]
    if symmetric:
        z = torch.cat([a, p])
        pos = torch.stack([z[i] @ z[(i + b) % (2 * b)] for i in range(2 * b)]) / t
        neg = (
            torch.stack(
                [
                    torch.stack(
                        [z[i] @ z[j] for j in range(2 * b) if j not in (i, (i + b) % (2 * b))]
                    )
                    for i in range(2 * b)
                ]
            )
            / t
        )
        return pos, neg
    pos = torch.stack([a[i] @ p[i] for i in range(b)]) / t
    neg = (
        torch.stack([torch.stack([a[i] @ p[j] for j in range(b) if j != i]) for i in range(b)]) / t
    )
    return pos, neg


@pytest.mark.parametrize("symmetric", [True, False])
def test_in_batch_fast_path_equals_functionals_on_loop_logits(symmetric):
    a, p = _emb(5, 4, seed=1)
    for mod in _all_modules(symmetric=symmetric):
        pos, neg = _ref_logits(a, p, mod.temperature, mod.normalize, symmetric)
        q, n = mod.logits(a, p)
        torch.testing.assert_close(q, pos, rtol=1e-12, atol=1e-12)
        torch.testing.assert_close(n, neg, rtol=1e-12, atol=1e-12)
        ref = mod.loss_from_logits(pos, neg)
        assert float(mod(a, p)) == pytest.approx(float(ref), rel=1e-10), type(mod).__name__


def test_bcl_module_matches_numpy_theta_bcl():
    a, p = _emb(7, 3, seed=2)
    mod = M.BayesianContrastiveLoss(0.8, 0.3, 0.2, temperature=0.4, reduction="none")
    pos, neg = _ref_logits(a, p, 0.4, True, True)
    theta = est.theta_bcl(np.exp(neg.numpy()), 0.8, 0.3, 0.2)
    ref = -np.log(np.exp(pos.numpy()) / (np.exp(pos.numpy()) + neg.shape[1] * theta))
    np.testing.assert_allclose(mod(a, p).numpy(), ref, rtol=1e-10)
    # float32 goes through the CPU integer-key sort: same loss to float32 precision
    np.testing.assert_allclose(mod(a.float(), p.float()).numpy(), ref, rtol=2e-5)


def test_float32_ecdf_counts_with_ties_signed_zero_and_masks():
    g = torch.Generator().manual_seed(0)
    x = torch.round(torch.randn(40, 30, generator=g) * 2) / 2  # many ties
    x[0, 0], x[0, 1] = -0.0, 0.0
    ref = est.ecdf_counts(x.double().numpy())
    np.testing.assert_array_equal(Fn.ecdf_counts(x).numpy(), ref)
    np.testing.assert_array_equal(Fn.ecdf_counts(x.double()).numpy(), ref)  # torch.sort path
    # ties in a few rows only (the usual float32 case): those rows are redone
    y = torch.randn(40, 30, generator=g)
    y[3, 5] = y[3, 7]
    y[17, :4] = y[17, 9]
    np.testing.assert_array_equal(Fn.ecdf_counts(y).numpy(), est.ecdf_counts(y.double().numpy()))
    ym = torch.cat([torch.full((40, 2), -math.inf), y], dim=1)
    torch.testing.assert_close(
        torch.log(Fn._bcl_weights_masked(ym, 30, 0.9, 0.5, 0.1))[:, 2:],
        Fn.bcl_log_weights(y.double(), 0.9, 0.5, 0.1).float(),
    )
    # masked entries (-inf) are counted out: the weights of the real entries are unchanged
    xm = torch.cat([torch.full((40, 2), -math.inf), x], dim=1)
    w = torch.log(Fn._bcl_weights_masked(xm, 30, 0.9, 0.5, 0.1))
    torch.testing.assert_close(w[:, 2:], Fn.bcl_log_weights(x, 0.9, 0.5, 0.1))
    assert torch.isneginf(w[:, :2]).all()


def _loop_labels_loss(mod, emb, labels):
    """Loss of the labelled call by an explicit loop over positive pairs (float64)."""
    z = torch.nn.functional.normalize(emb, dim=-1) if mod.normalize else emb
    sim = z @ z.T / mod.temperature
    losses = []
    for i in range(len(labels)):
        negs = [k for k in range(len(labels)) if labels[k] != labels[i]]
        for j in range(len(labels)):
            if j != i and labels[j] == labels[i] and negs:
                losses.append(
                    mod.loss_from_logits(sim[i, j].reshape(1), sim[i, negs].reshape(1, -1))
                )
    return torch.stack(losses).mean()


def test_labels_call_equals_two_view_call_and_a_loop():
    a, p = _emb(6, 4, seed=3)
    k = torch.arange(6)
    for mod in _all_modules(symmetric=True):
        two_view = mod(a, p)
        torch.testing.assert_close(
            mod(torch.cat([a, p]), torch.cat([k, k])), two_view, rtol=1e-10, atol=1e-12
        )
        torch.testing.assert_close(
            mod(torch.cat([a, p]), labels=torch.cat([k, k])), two_view, rtol=1e-10, atol=1e-12
        )
    # unbalanced classes: anchors have different numbers of negatives (per-row counts)
    emb = torch.randn(9, 4, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    labels = torch.tensor([0, 0, 0, 1, 1, 2, 2, 2, 2])
    for mod in _all_modules():
        got = mod(emb, labels)
        assert float(got) == pytest.approx(
            float(_loop_labels_loss(mod, emb, labels.tolist())), rel=1e-10
        ), type(mod).__name__
    # no positive pair: a zero loss that still backpropagates
    e = emb.clone().requires_grad_()
    loss = M.InfoNCELoss()(e, torch.arange(9))
    loss.backward()
    assert float(loss.detach()) == 0.0 and torch.equal(e.grad, torch.zeros_like(e))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_gradients_match_float64(dtype):
    g = torch.Generator().manual_seed(5)
    a = torch.randn(16, 8, generator=g)
    p = a + 0.5 * torch.randn(16, 8, generator=g)
    a, p = a.to(dtype).double(), p.to(dtype).double()  # representable in half: one set of inputs
    for mod in _all_modules() + [
        M.DebiasedContrastiveLoss(0.1, 0.2),
        M.HardContrastiveLoss(0.1, 2.0, 0.2),
    ]:
        grads = []
        for dt in (torch.float64, dtype):
            x, y = (
                a.to(dt).detach().clone().requires_grad_(),
                p.to(dt).detach().clone().requires_grad_(),
            )
            loss = mod(x, y)
            assert loss.dtype == dt
            loss.backward()
            grads.append(torch.cat([x.grad.double(), y.grad.double()]))
        ref, got = grads
        err = float((got - ref).abs().max() / ref.abs().max())
        assert err < 1e-2, (type(mod).__name__, err)


@pytest.mark.parametrize("symmetric", [True, False])
def test_infonce_loss_is_never_negative_when_the_positive_dominates(symmetric):
    # logsumexp(row) - s+ >= 0 needs s+ to be the row's own entry to the last bit: at temperature
    # 0.02 (logits near 50) a dot product computed apart from the matmul differed by ~2e-5
    g = torch.Generator().manual_seed(0)
    loss = M.InfoNCELoss(temperature=0.02, reduction="none", symmetric=symmetric)
    worst = 0.0
    for _ in range(50):
        a = torch.randn(64, 32, generator=g)
        p = (a + 1e-4 * torch.randn(64, 32, generator=g)).requires_grad_()
        out = loss(a, p)
        worst = min(worst, float(out.detach().min()))
        out.sum().backward()
        assert torch.isfinite(p.grad).all()
    assert worst >= 0.0


def test_thread_settings_unchanged_by_every_loss():
    numba = pytest.importorskip("numba")
    # numba.get_num_threads() itself starts numba's threading layer, and its OpenMP layer sets the
    # OpenMP thread count torch reads (with OMP_NUM_THREADS=1, torch goes from 1 to numba's count):
    # ask numba first, so that the reference is taken after that and measures the losses alone
    nb = numba.get_num_threads()
    before = (torch.get_num_threads(), nb)
    a, p = _emb(64, 8, dtype=torch.float32)
    for mod in _all_modules():
        mod(a, p).item()
        mod(torch.cat([a, p]), torch.cat([torch.arange(64)] * 2)).item()
        assert (torch.get_num_threads(), numba.get_num_threads()) == before, type(mod).__name__
    Fn.bcl(torch.zeros(64), torch.randn(64, 300), 0.9, 0.5, 0.1).item()
    est.ecdf_counts(np.random.default_rng(0).random((64, 300)))  # small: the serial numba twin
    assert (torch.get_num_threads(), numba.get_num_threads()) == before


def test_constructor_validates_and_repr_shows_hyper_parameters():
    with pytest.raises(ValueError, match="temperature"):
        M.InfoNCELoss(temperature=0.0)
    with pytest.raises(ValueError, match="reduction"):
        M.InfoNCELoss(reduction="avg")
    with pytest.raises(ValueError, match="tau_plus"):
        M.DebiasedContrastiveLoss(tau_plus=1.5)
    with pytest.raises(ValueError, match="beta"):
        M.HardContrastiveLoss(beta=-1.0)
    with pytest.raises(ValueError, match="floor"):
        M.DebiasedContrastiveLoss(floor=-1.0)
    with pytest.raises(ValueError, match="alpha"):
        M.BayesianContrastiveLoss(alpha=0.2)
    with pytest.raises(ValueError, match="eps"):
        M.DPLLoss(eps=2.0)
    assert M.InfoNCELoss(symmetric=False).symmetric is False
    r = repr(M.HardContrastiveLoss(tau_plus=0.2, beta=0.5, temperature=0.25))
    for part in (
        "tau_plus=0.2",
        "beta=0.5",
        "temperature=0.25",
        f"floor={math.exp(-4.0)}",
        "symmetric=True",
    ):
        assert part in r
    assert "alpha=0.55, beta=0.6, tau_plus=0.06" in repr(
        M.BayesianContrastiveLoss()
    )  # the BCL spec's defaults
    with pytest.raises(ValueError, match="labels"):
        M.InfoNCELoss()(torch.zeros(4, 3), torch.zeros(4, 3), labels=torch.arange(4))


def test_bcl_functional_normalize_weights_alias():
    pos, neg = torch.randn(5, dtype=torch.float64), torch.randn(5, 9, dtype=torch.float64)
    a = Fn.bcl(pos, neg, 0.9, 0.5, 0.1, normalize=True)
    b = Fn.bcl(pos, neg, 0.9, 0.5, 0.1, normalize_weights=True)
    assert float(a) == float(b) != float(Fn.bcl(pos, neg, 0.9, 0.5, 0.1))


def test_compiled_modules_equal_eager_without_graph_breaks():
    dynamo = pytest.importorskip("torch._dynamo")
    a, p = _emb(8, 4, dtype=torch.float32)
    for mod in _all_modules():
        name = type(mod).__name__
        if name in (
            "InfoNCELoss",
            "DebiasedContrastiveLoss",
            "HardContrastiveLoss",
            "BayesianContrastiveLoss",
        ):
            dynamo.reset()
            assert dynamo.explain(mod)(a, p).graph_break_count == 0, name
        dynamo.reset()
        compiled = torch.compile(mod, backend="aot_eager")
        x1, x2 = a.clone().requires_grad_(), a.clone().requires_grad_()
        l1, l2 = mod(x1, p), compiled(x2, p)
        l1.backward()
        l2.backward()
        torch.testing.assert_close(l2, l1, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(x2.grad, x1.grad, rtol=1e-5, atol=1e-6)
    dynamo.reset()


def test_bcl_weight_table_cache_across_modes():
    # BCL's omega table is cached per (n, masked, alpha, beta, tau_plus, dtype, device): one made
    # under inference_mode must serve a training step (not saved for backward, never written),
    # and the losses must not depend on which mode filled the cache
    g = torch.Generator().manual_seed(7)
    a, p = torch.randn(16, 8, generator=g), torch.randn(16, 8, generator=g)
    loss = M.BayesianContrastiveLoss(alpha=0.8, beta=0.4, tau_plus=0.15)
    Fn._omega_table_cached.cache_clear()
    with torch.inference_mode():
        first = loss(a, p)
    a1 = a.clone().requires_grad_()
    train = loss(a1, p)
    train.backward()
    Fn._omega_table_cached.cache_clear()
    a2 = a.clone().requires_grad_()
    fresh = loss(a2, p)
    fresh.backward()
    assert float(first) == float(train.detach()) == float(fresh.detach())
    torch.testing.assert_close(a1.grad, a2.grad, rtol=0, atol=0)
    table = Fn._omega_table_cached(30, 2, 0.8, 0.4, 0.15, torch.float32, torch.device("cpu"))
    want = Fn._omega_table(30, 2, 0.8, 0.4, 0.15, torch.float32, torch.device("cpu"))
    torch.testing.assert_close(table, want, rtol=0, atol=0)  # nothing wrote into the cached one
