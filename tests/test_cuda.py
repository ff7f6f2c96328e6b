"""The bridge on every device: losses, modules, samplers and trainers on CUDA against the CPU.

Each test is parametrised over ``cpu`` and ``cuda``; the ``cuda`` cases carry the ``cuda`` marker
and are skipped (tests/conftest.py) where ``torch.cuda.is_available()`` is False, so CI on CPU
machines runs only the CPU cases. ``pytest -m cuda tests/test_cuda.py`` selects the GPU cases.

The reference is always the same computation on the CPU in float64, from the same float32 inputs
(cast exactly), so that ties and ranks -- which BCL's weights depend on -- are those of the
device's input. Tolerances: float32 against float64, 2e-5 relative on values and 1e-4 on
gradients (far above float32 rounding over N <= 5000 terms, far below any formula error);
bfloat16 inputs are computed in float32 inside the losses, so their result is compared with the
float32 result of the same bf16-rounded inputs to 1e-2 (one bf16 rounding of the output).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from negtheory.bridge import functional as Fn  # noqa: E402
from negtheory.bridge import losses as M  # noqa: E402
from negtheory.bridge import samplers as S  # noqa: E402

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)]
RTOL, GRAD_RTOL = 2e-5, 1e-4


def _inputs(a=48, n=300, seed=0, ties=False, scale=2.0):
    """float32 (pos [a], neg [a, n], extra [a, 5]) on the CPU; ``ties``: neg rounded to 1/4."""
    g = torch.Generator().manual_seed(seed)
    pos = torch.randn(a, generator=g) * scale + 1.0
    neg = torch.randn(a, n, generator=g) * scale
    if ties:
        neg = torch.round(neg * 4) / 4
    extra = torch.randn(a, 5, generator=g) * scale + 1.0
    return pos, neg, extra


FUNCTIONAL = {
    "infonce": lambda p, q, e: Fn.infonce(p, q, reduction="none"),
    "dcl": lambda p, q, e: Fn.dcl(p, q, 0.1, reduction="none"),
    "dcl_extra_floor": lambda p, q, e: Fn.dcl(
        p, q, 0.1, pos_extra_logits=e, floor=math.exp(-2.0), reduction="none"
    ),
    "hcl_beta1": lambda p, q, e: Fn.hcl(p, q, 0.1, 1.0, floor=math.exp(-2.0), reduction="none"),
    "hcl_beta05": lambda p, q, e: Fn.hcl(p, q, 0.1, 0.5, pos_extra_logits=e, reduction="none"),
    "bcl": lambda p, q, e: Fn.bcl(p, q, 0.9, 0.5, 0.1, reduction="none"),
    "bcl_normalized": lambda p, q, e: Fn.bcl(
        p, q, 0.55, 0.6, 0.06, normalize_weights=True, reduction="none"
    ),
    "bpr": lambda p, q, e: Fn.bpr(p, q, reduction="none"),
    "dpl": lambda p, q, e: Fn.dpl(p, q, 0.1, pos_extra_logits=e, eps=1e-2, reduction="none"),
    "bce": lambda p, q, e: Fn.bce(p, q, reduction="none"),
    "relaxed_softmax": lambda p, q, e: Fn.relaxed_softmax(p, q, reduction="none"),
}


def _value_and_grads(f, tensors, device, dtype):
    """f's per-anchor values and the gradients of their weighted sum w.r.t. every input tensor."""
    xs = [t.detach().to(device, dtype, copy=True).requires_grad_() for t in tensors]
    out = f(*xs)
    w = torch.linspace(0.5, 1.5, out.numel(), dtype=torch.float64).reshape(out.shape)
    (out.double() * w.to(device)).sum().backward()
    return out, [x.grad for x in xs]


def _close(got, ref, rtol):
    """Relative error of ``got`` (any device) against the float64 ``ref``, in the 2-norm."""
    got = got.detach().double().cpu()
    assert torch.isfinite(got).all()
    return float(torch.linalg.vector_norm(got - ref) / torch.linalg.vector_norm(ref)) <= rtol


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
@pytest.mark.parametrize("ties", [False, True])
def test_functional_float32_on_device_equals_cpu_float64(device, name, ties):
    f = FUNCTIONAL[name]
    tensors = _inputs(ties=ties)
    ref, ref_grads = _value_and_grads(f, tensors, "cpu", torch.float64)
    out, grads = _value_and_grads(f, tensors, device, torch.float32)
    assert out.device.type == device and out.dtype == torch.float32
    assert _close(out, ref.detach(), RTOL)
    for g, rg in zip(grads, ref_grads):
        if rg is None:  # an input the loss does not read (extra positives of some losses)
            assert g is None
            continue
        assert g.device.type == device and g.dtype == torch.float32
        assert _close(g, rg, GRAD_RTOL)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [7, 300, 5000])
def test_ecdf_counts_and_bcl_weights_on_device_equal_cpu(device, n):
    # n = 5000 > 2^12: the CPU sorts packed 64-bit keys; smaller rows quantised 32-bit keys;
    # CUDA always torch.sort -- the integer counts must agree exactly, ties included
    _, neg, _ = _inputs(a=12, n=n, ties=True)
    neg[0, : n // 2] = neg[0, 0]  # a long run of ties
    ref = Fn.ecdf_counts(neg.double())
    got = Fn.ecdf_counts(neg.to(device))
    assert got.device.type == device and got.dtype == torch.int64
    assert torch.equal(got.cpu(), ref)
    lw = Fn.bcl_log_weights(neg.to(device), 0.9, 0.5, 0.1)
    assert lw.device.type == device
    assert _close(lw.exp(), Fn.bcl_log_weights(neg.double(), 0.9, 0.5, 0.1).exp(), RTOL)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["infonce", "dcl", "hcl_beta1", "bcl", "bpr", "dpl"])
def test_functional_bfloat16_stays_on_device_and_matches_float32(device, name):
    f = FUNCTIONAL[name]
    tensors = [t.to(torch.bfloat16) for t in _inputs(n=200)]
    out, grads = _value_and_grads(f, tensors, device, torch.bfloat16)
    ref, ref_grads = _value_and_grads(f, [t.float() for t in tensors], "cpu", torch.float32)
    assert out.device.type == device and out.dtype == torch.bfloat16
    assert _close(out, ref.detach().double(), 1e-2)
    for g, rg in zip(grads, ref_grads):
        if rg is not None:
            assert g.dtype == torch.bfloat16 and g.device.type == device
            assert _close(g, rg.double(), 2e-2)


MODULES = {
    "infonce": lambda: M.InfoNCELoss(0.5, reduction="none"),
    "dcl": lambda: M.DebiasedContrastiveLoss(0.1, 0.5, reduction="none"),
    "hcl": lambda: M.HardContrastiveLoss(0.1, 1.0, 0.5, reduction="none"),
    "bcl": lambda: M.BayesianContrastiveLoss(0.9, 0.5, 0.1, 0.5, reduction="none"),
    "bpr": lambda: M.BPRLoss(reduction="none"),
    "dpl": lambda: M.DPLLoss(0.1, reduction="none"),
    "bce": lambda: M.BCELoss(reduction="none"),
    "relaxed_softmax": lambda: M.RelaxedSoftmaxLoss(reduction="none"),
}


def _embeddings(b=40, d=16, m=30, seed=1):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(b, d, generator=g)
    p = a + 0.5 * torch.randn(b, d, generator=g)
    shared = torch.randn(m, d, generator=g)
    paired = torch.randn(b, 7, d, generator=g)
    labels = torch.randint(0, 6, (b,), generator=g)
    return a, p, shared, paired, labels


CALLS = {
    "in_batch": lambda loss, a, p, s, q, lab: loss(a, p),
    "shared": lambda loss, a, p, s, q, lab: loss(a, p, s),
    "paired": lambda loss, a, p, s, q, lab: loss(a, p, q),
    "labels": lambda loss, a, p, s, q, lab: loss(torch.cat([a, p]), torch.cat([lab, lab])),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(MODULES))
@pytest.mark.parametrize("call", sorted(CALLS))
def test_modules_float32_on_device_equal_cpu_float64(device, name, call):
    a, p, s, q, lab = _embeddings()
    loss = MODULES[name]()

    def run(dev, dtype):
        xs = [t.to(dev, dtype, copy=True).requires_grad_() for t in (a, p, s, q)]
        out = CALLS[call](loss, *xs, lab.to(dev))
        w = torch.linspace(0.5, 1.5, out.numel(), dtype=torch.float64, device=dev).reshape(
            out.shape
        )
        (out.double() * w).sum().backward()
        return out, [x.grad for x in xs]

    ref, ref_grads = run("cpu", torch.float64)
    out, grads = run(device, torch.float32)
    assert out.device.type == device and out.dtype == torch.float32 and out.shape == ref.shape
    assert _close(out, ref.detach(), RTOL)
    n_grads = 0
    for g, rg in zip(grads, ref_grads):
        assert (g is None) == (rg is None)
        if rg is not None:
            assert g.device.type == device
            assert _close(g, rg, GRAD_RTOL)
            n_grads += 1
    assert n_grads >= 1


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["infonce", "dcl", "hcl", "bcl", "bpr", "dpl"])
def test_modules_bfloat16_on_device(device, name):
    a, p, _, _, _ = _embeddings(b=64, d=32)
    loss = MODULES[name]()
    ab, pb = (t.to(device, torch.bfloat16, copy=True).requires_grad_() for t in (a, p))
    out = loss(ab, pb)
    out.sum().backward()
    assert out.dtype == torch.bfloat16 and out.device.type == device
    assert (
        ab.grad.dtype == torch.bfloat16
        and ab.grad.device.type == device
        and torch.isfinite(ab.grad.float()).all()
    )
    ref = loss(
        ab.detach().float().cpu(), pb.detach().float().cpu()
    )  # float32 from the same bf16 values
    assert _close(out, ref.double(), 1e-2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("b", [1024])
def test_large_in_batch_bcl_and_infonce_equal_cpu_float64(device, b):
    # 2B = 2048 anchors with N = 2046 negatives: the size the benchmark runs; the module's masked
    # in-batch path (torch.sort on CUDA, numpy's quantised sort on the CPU)
    a, p, _, _, _ = _embeddings(b=b, d=64, seed=3)
    for loss in (M.BayesianContrastiveLoss(0.9, 0.5, 0.1, 0.5), M.InfoNCELoss(0.5)):
        xs = [t.to(device, copy=True).requires_grad_() for t in (a, p)]
        out = loss(*xs)
        out.backward()
        rs = [t.double().requires_grad_() for t in (a, p)]
        ref = loss(*rs)
        ref.backward()
        assert out.device.type == device
        assert abs(out.item() - ref.item()) <= RTOL * abs(ref.item())
        for x, r in zip(xs, rs):
            assert _close(x.grad, r.grad, GRAD_RTOL)


@pytest.mark.parametrize("device", DEVICES)
def test_bcl_step_is_deterministic_on_device(device):
    # the same inputs give bitwise the same loss and gradient (no atomics reorder a sum)
    a, p, _, _, _ = _embeddings(b=256, d=32, seed=4)
    loss = M.BayesianContrastiveLoss(0.9, 0.5, 0.1, 0.5)
    runs = []
    for _ in range(3):
        xs = [t.to(device, copy=True).requires_grad_() for t in (a, p)]
        out = loss(*xs)
        out.backward()
        runs.append((out.detach().cpu(), xs[0].grad.cpu(), xs[1].grad.cpu()))
    for r in runs[1:]:
        assert all(torch.equal(x, y) for x, y in zip(r, runs[0]))


# --------------------------------------------------------------------------------------------
# samplers
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_uniform_items_and_counts_from_a_cpu_generator_land_on_device(device):
    # a seeded CPU generator gives the same draws whatever the output's device
    items = S.uniform_items(50, (64, 8), torch.Generator().manual_seed(0), device=device)
    ref = S.uniform_items(50, (64, 8), torch.Generator().manual_seed(0))
    assert items.device.type == device and torch.equal(items.cpu(), ref)
    counts = S.draw_negative_counts(4.3, (20_000,), torch.Generator().manual_seed(1), device=device)
    assert counts.device.type == device
    assert torch.equal(
        counts.cpu(), S.draw_negative_counts(4.3, (20_000,), torch.Generator().manual_seed(1))
    )
    assert (
        set(counts.unique().tolist()) == {4, 5} and abs(float(counts.float().mean()) - 4.3) < 0.02
    )
    cb = S.ANSCallback(total_steps=100, k_opt=5, generator=torch.Generator().manual_seed(2))
    c = cb.counts(50, 1000, device=device)
    assert c.device.type == device and c.shape == (1000,)
    assert set(c.unique().tolist()) <= {math.floor(cb.k(50)), math.floor(cb.k(50)) + 1}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("gen_on_device", [False, True])
def test_boltzmann_sample_on_device_follows_its_law(device, gen_on_device):
    scores = torch.tensor([[0.0, 1.0, 2.0, -1.0], [3.0, 0.0, 0.0, 0.0]], device=device)
    gen = torch.Generator(device=device if gen_on_device else "cpu").manual_seed(0)
    draws = S.boltzmann_sample(scores, 40_000, temperature=1.0, generator=gen)
    assert draws.device.type == device and draws.shape == (2, 40_000)
    expect = S.boltzmann_log_probs(scores, 1.0).exp().cpu().double()
    freq = torch.stack([torch.bincount(r, minlength=4) for r in draws.cpu()]).double() / 40_000
    # binomial standard error <= 0.0025: 5 of them
    assert float((freq - expect).abs().max()) < 0.0125
    assert torch.equal(
        S.boltzmann_sample(scores, 5, temperature=0.0, generator=gen).cpu(),
        torch.tensor([[2] * 5, [0] * 5]),
    )


@pytest.mark.parametrize("device", DEVICES)
def test_bns_select_and_sampler_on_device_equal_cpu(device):
    g = torch.Generator().manual_seed(5)
    pos = torch.randn(64, generator=g)
    cand = torch.randn(64, 5, generator=g)
    ref_scores = torch.randn(64, 300, generator=g)
    p_fn = torch.rand(64, 5, generator=g) * 0.3
    for r in (None, ref_scores):
        want = S.bns_select(
            pos.double(),
            cand.double(),
            p_fn.double(),
            reference_scores=None if r is None else r.double(),
        )
        got = S.bns_select(
            pos.to(device),
            cand.to(device),
            p_fn.to(device),
            reference_scores=None if r is None else r.to(device),
        )
        assert got.device.type == device and torch.equal(got.cpu(), want)
    item_vecs = torch.randn(40, 8, generator=g).to(device)
    user_vecs = torch.randn(10, 8, generator=g).to(device)

    def score_fn(u, items):
        return (user_vecs[u][:, None, :] * item_vecs[items]).sum(-1)

    sampler = S.BNSSampler(
        torch.arange(40.0), n_users=10, n_candidates=6, generator=torch.Generator().manual_seed(0)
    )
    users = torch.arange(10, device=device)
    neg = sampler.sample(
        score_fn, users, score_fn(users, torch.zeros(10, 1, dtype=torch.long, device=device))[:, 0]
    )
    assert (
        neg.device.type == device
        and neg.shape == (10,)
        and int(neg.min()) >= 0
        and int(neg.max()) < 40
    )


# --------------------------------------------------------------------------------------------
# trainers
# --------------------------------------------------------------------------------------------
def _tiny_split():
    from negtheory.recsys import load_split

    rng = np.random.default_rng(0)
    pairs = np.unique(rng.integers(0, [40, 60], size=(1200, 2)), axis=0)
    pairs = pairs[rng.permutation(len(pairs))]
    return load_split(pairs[:900], pairs[900:]).with_validation(0.1)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "model,loss",
    [("mf", "bcl"), ("mf", "infonce"), ("mf", "dpl"), ("lightgcn", "bcl"), ("lightgcn", "bpr")],
)
def test_minibatch_fit_on_device_follows_the_cpu_run(device, model, loss):
    from negtheory import training as T

    data = _tiny_split()
    spec = {"bcl": T.BCL(), "infonce": T.InfoNCE(), "dpl": T.DPL(), "bpr": T.BPR()}[loss]
    kw = dict(
        model=T.LightGCN(layers=2) if model == "lightgcn" else T.MF(),
        loss=spec,
        optimizer=T.Adam(batch_size=128, milestones=(100,)),
        epochs=3,
        evaluation=T.Evaluation(ks=(5, 10)),
        rng=0,
    )
    got = T.fit(data, device=device, **kw)
    ref = T.fit(data, device="cpu", **kw)
    assert got.config["device"].startswith(device)
    assert next(got.model.parameters()).device.type == device
    scores, ref_scores = (
        np.asarray(got.scores),
        np.asarray(ref.scores),
    )  # host copies of the final scores
    assert scores.shape == (data.n_users, data.n_items) and np.isfinite(scores).all()
    losses = [h["loss"] for h in got.history]
    want = [h["loss"] for h in ref.history]
    assert all(np.isfinite(losses))
    # same initialisation and the same numpy-drawn batches: the first epoch agrees to float32
    # rounding; later epochs drift only by the rounding Adam carries forward
    assert losses[0] == pytest.approx(want[0], rel=1e-4)
    assert losses == pytest.approx(want, rel=2e-3)
    assert np.abs(scores - ref_scores).max() <= 2e-2 * np.abs(ref_scores).max()


@pytest.mark.parametrize("device", DEVICES)
def test_lightgcn_propagation_on_device_equals_dense_float64(device):
    from negtheory.bridge.recommend import LightGCN

    data = _tiny_split()
    m = LightGCN(
        data.n_users,
        data.n_items,
        data.train,
        dim=8,
        n_layers=3,
        generator=torch.Generator().manual_seed(0),
    )
    adj = m.adj.to_dense().double()
    e0 = torch.cat([m.user.weight, m.item.weight]).detach().double()
    acc, e = e0.clone(), e0
    for _ in range(3):
        e = adj @ e
        acc = acc + e
    ref = acc / 4
    md = m.to(device)
    eu, ei = md.propagate()
    assert eu.device.type == device
    assert _close(torch.cat([eu, ei]), ref, RTOL)
    (eu.sum() + 2 * ei.sum()).backward()
    assert md.user.weight.grad.device.type == device and torch.isfinite(md.user.weight.grad).all()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("loss,k,ans", [("bcl", 8, False), ("infonce", 4.5, True)])
def test_train_harness_on_device(device, loss, k, ans):
    # ANS and a real-valued k draw counts from the run's CPU generator and move them to the device
    from negtheory.bridge.train import TrainConfig, train

    cfg = TrainConfig(
        loss=loss,
        epochs=2,
        batch_size=128,
        k=k,
        ans=ans,
        device=device,
        progress=False,
        rng=0,
        synthetic=dict(n_users=60, n_items=80),
    )
    res = train(cfg)
    assert res["device"].startswith(device)
    assert len(res["history"]) == 2 and all(np.isfinite(h["loss"]) for h in res["history"])


@pytest.mark.parametrize("device", DEVICES)
def test_mf_dropout_masks_on_device_follow_the_seed_and_the_law(device):
    # the masks come from a generator on the scores' device, seeded by dropout_seed: the same seed gives the
    # same scores, and a coordinate is kept with probability 1 - p (64 000 Bernoulli draws, 5 standard errors)
    from negtheory.bridge.recommend import MF as NetMF

    def net(seed):
        return NetMF(
            50,
            200,
            dim=16,
            generator=torch.Generator().manual_seed(0),
            cosine=True,
            init_std=1e-4,
            dropout=0.25,
            dropout_seed=seed,
        ).to(device)

    users = torch.arange(8, device=device)
    items = torch.randint(0, 200, (8, 30), generator=torch.Generator().manual_seed(1)).to(device)
    assert torch.equal(net(4)(users, items), net(4)(users, items))
    wu = torch.randn(4000, 16, device=device, requires_grad=True)
    kept = (net(4)._dropped(wu) != 0).float().mean().item()
    assert abs(kept - 0.75) < 5 * math.sqrt(0.25 * 0.75 / wu.numel())
