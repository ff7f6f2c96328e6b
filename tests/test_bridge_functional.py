"""negtheory.bridge.functional against the numpy estimators (float64, 1e-9) and in half precision."""

from __future__ import annotations

import doctest
import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from negtheory import estimators as est  # noqa: E402
from negtheory.bridge import functional as Fn  # noqa: E402
from negtheory.mechanics import nce_sample_objective  # noqa: E402
from negtheory.relaxed_softmax import relaxed_softmax_loss  # noqa: E402

RTOL = 1e-9


def _data(seed=0, b=7, n=33, k=5, scale=2.0, ties=False):
    rng = np.random.default_rng(seed)
    pos = rng.normal(1.0, scale, size=b)
    neg = rng.normal(0.0, scale, size=(b, n))
    if ties:
        neg = np.round(neg, 0)  # many tied scores: eCDF ties share the largest rank
    extra = rng.normal(1.0, scale, size=(b, k))
    return pos, neg, extra


def _t(x):
    return torch.tensor(x, dtype=torch.float64)


def _ref(pos, neg, theta):
    """-log(e^pos / (e^pos + N theta)) with theta the numpy estimate on exp(neg)."""
    n = neg.shape[-1]
    return -np.log(np.exp(pos) / (np.exp(pos) + n * theta))


def test_infonce_equals_biased_estimator():
    pos, neg, _ = _data()
    ref = _ref(pos, neg, est.theta_biased(np.exp(neg)))
    got = Fn.infonce(_t(pos), _t(neg), reduction="none").numpy()
    np.testing.assert_allclose(got, ref, rtol=RTOL)
    assert float(Fn.infonce(_t(pos), _t(neg), reduction="sum")) == pytest.approx(
        ref.sum(), rel=RTOL
    )
    assert float(Fn.infonce(_t(pos), _t(neg))) == pytest.approx(ref.mean(), rel=RTOL)


@pytest.mark.parametrize("extra", [False, True])
@pytest.mark.parametrize("floor", [None, math.exp(-1 / 0.5)])
def test_dcl_equals_theta_dcl(extra, floor):
    pos, neg, ext = _data(1, scale=0.7)
    positives = ext if extra else pos
    theta = est.theta_dcl(np.exp(neg), np.exp(positives), 0.1, floor=floor)
    assert np.all(theta > 0)
    ref = _ref(pos, neg, theta)
    got = Fn.dcl(
        _t(pos),
        _t(neg),
        0.1,
        pos_extra_logits=_t(ext) if extra else None,
        floor=floor,
        reduction="none",
    )
    np.testing.assert_allclose(got.numpy(), ref, rtol=RTOL)


def test_dcl_floor_is_active_and_matches():
    # a huge positive share makes the raw DCL estimate negative: the floor must take over
    pos, neg, _ = _data(2, scale=0.3)
    pos = pos + 6.0
    floor = math.exp(-1 / 0.5)
    theta = est.theta_dcl(np.exp(neg), np.exp(pos), 0.3, floor=floor)
    assert np.any(theta == floor)
    got = Fn.dcl(_t(pos), _t(neg), 0.3, floor=floor, reduction="none").numpy()
    np.testing.assert_allclose(got, _ref(pos, neg, theta), rtol=RTOL)
    # without a floor the loss stays finite (clamped at the dtype's tiny) and so does the gradient
    p = _t(pos).requires_grad_()
    loss = Fn.dcl(p, _t(neg), 0.3)
    loss.backward()
    assert torch.isfinite(loss) and torch.isfinite(p.grad).all()


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("extra", [False, True])
def test_hcl_equals_theta_hcl(beta, extra):
    pos, neg, ext = _data(3, scale=0.7)
    positives = ext if extra else pos
    floor = math.exp(-2.0)
    theta = est.theta_hcl(np.exp(neg), np.exp(positives), 0.1, beta, floor=floor)
    got = Fn.hcl(
        _t(pos),
        _t(neg),
        0.1,
        beta,
        pos_extra_logits=_t(ext) if extra else None,
        floor=floor,
        reduction="none",
    )
    np.testing.assert_allclose(got.numpy(), _ref(pos, neg, theta), rtol=RTOL)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize(
    "abt", [(0.9, 0.5, 0.1), (0.5, 0.5, 0.1), (0.7, 0.9, 0.5), (1.0, 0.3, 0.2), (0.8, 0.0, 0.05)]
)
def test_bcl_equals_theta_bcl(ties, normalize, abt):
    alpha, beta, tau = abt
    pos, neg, _ = _data(4, n=64, ties=ties)
    theta = est.theta_bcl(np.exp(neg), alpha, beta, tau, normalize=normalize)
    got = Fn.bcl(_t(pos), _t(neg), alpha, beta, tau, normalize=normalize, reduction="none")
    np.testing.assert_allclose(got.numpy(), _ref(pos, neg, theta), rtol=RTOL)
    w = Fn.bcl_log_weights(_t(neg), alpha, beta, tau).exp().numpy()
    np.testing.assert_allclose(
        w, est.bcl_weights(np.exp(neg), alpha, beta, tau), rtol=RTOL, atol=1e-300
    )


def test_ecdf_counts_match_numpy_ecdf_with_ties():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 5, size=(4, 50)).astype(float)
    got = Fn.ecdf_counts(_t(x)).numpy() / 50
    np.testing.assert_array_equal(got, est.ecdf(x))


def test_bcl_invalid_parameters():
    pos, neg, _ = _data()
    with pytest.raises(ValueError, match="Z = 0"):
        Fn.bcl(_t(pos), _t(neg), 1.0, 1.0, 0.1)
    with pytest.raises(ValueError, match="alpha"):
        Fn.bcl(_t(pos), _t(neg), 0.3, 0.5, 0.1)
    with pytest.raises(ValueError, match="reduction"):
        Fn.bcl(_t(pos), _t(neg), 0.9, 0.5, 0.1, reduction="avg")
    with pytest.raises(ValueError, match="pos_logits"):
        Fn.infonce(_t(pos[:3]), _t(neg))


@pytest.mark.parametrize("extra", [False, True])
def test_dpl_equals_numpy_dpl_loss(extra):
    pos, neg, ext = _data(6, scale=1.5)
    positives = ext if extra else pos[:, None]
    ref = est.dpl_loss(pos, neg, positives, 0.1, reduction="none")
    got = Fn.dpl(
        _t(pos), _t(neg), 0.1, pos_extra_logits=_t(ext) if extra else None, reduction="none"
    )
    np.testing.assert_allclose(got.numpy(), ref, rtol=RTOL)


def test_dpl_clamps_at_eps_like_numpy():
    pos = np.array([0.0])
    neg = np.array([[3.0, 4.0]])
    ext = np.array([[0.0]])  # P-hat = (mean sigma(-3, -4) - 0.5 * 0.5) / 0.5 < 0
    ref = est.dpl_loss(pos, neg, ext, 0.5, reduction="none")
    got = Fn.dpl(_t(pos), _t(neg), 0.5, _t(ext), reduction="none")
    np.testing.assert_allclose(got.numpy(), ref, rtol=RTOL)
    assert float(got[0]) == pytest.approx(-math.log(1e-6))


def test_bpr_bce_relaxed_softmax_match_numpy():
    pos, neg, _ = _data(7)
    ref_bpr = (-np.log(1.0 / (1.0 + np.exp(-(pos[:, None] - neg))))).mean(axis=1)
    np.testing.assert_allclose(
        Fn.bpr(_t(pos), _t(neg), reduction="none").numpy(), ref_bpr, rtol=RTOL
    )
    # BPR with one negative is InfoNCE with one negative
    np.testing.assert_allclose(
        Fn.bpr(_t(pos), _t(neg[:, :1]), reduction="none").numpy(),
        Fn.infonce(_t(pos), _t(neg[:, :1]), reduction="none").numpy(),
        rtol=RTOL,
    )
    for i in range(3):
        ref = -nce_sample_objective([pos[i]], neg[i], neg.shape[1])
        assert float(Fn.bce(_t(pos[i : i + 1]), _t(neg[i : i + 1]))) == pytest.approx(ref, rel=RTOL)
    # Relaxed Softmax: a score table whose item 0 is the positive and items 1..N the negatives
    g = np.concatenate([pos[:, None], neg], axis=1)
    idx = np.arange(1, neg.shape[1] + 1)
    for inc in (False, True):
        ref = relaxed_softmax_loss(g, np.zeros(len(pos), dtype=np.int64), idx, include_positive=inc)
        got = Fn.relaxed_softmax(_t(pos), _t(neg), include_positive=inc, reduction="none").numpy()
        np.testing.assert_allclose(got, ref, rtol=RTOL)


def test_bpr_weight_multiplies_each_anchor():
    pos, neg, _ = _data(8)
    w = np.linspace(0.1, 1.0, len(pos))
    got = Fn.bpr(_t(pos), _t(neg), weight=_t(w), reduction="none").numpy()
    np.testing.assert_allclose(
        got, w * Fn.bpr(_t(pos), _t(neg), reduction="none").numpy(), rtol=RTOL
    )


LOSSES = {
    "infonce": lambda p, n: Fn.infonce(p, n),
    "dcl": lambda p, n: Fn.dcl(p, n, 0.1),
    "dcl_floor": lambda p, n: Fn.dcl(p, n, 0.1, floor=math.exp(-1 / 0.05)),
    "hcl": lambda p, n: Fn.hcl(p, n, 0.1, 1.0),
    "bcl": lambda p, n: Fn.bcl(p, n, 0.9, 0.5, 0.1),
    "bcl_norm": lambda p, n: Fn.bcl(p, n, 0.9, 0.5, 0.1, normalize=True),
    "bpr": lambda p, n: Fn.bpr(p, n),
    "dpl": lambda p, n: Fn.dpl(p, n, 0.1),
    "bce": lambda p, n: Fn.bce(p, n),
    "relaxed_softmax": lambda p, n: Fn.relaxed_softmax(p, n),
}


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_half_precision_finite_at_logits_20(name, dtype):
    # cosine similarities in [-1, 1] at temperature 0.05: logits in [-20, 20]
    g = torch.Generator().manual_seed(0)
    sim_pos = torch.rand(16, generator=g) * 2 - 1
    sim_neg = torch.rand(16, 510, generator=g) * 2 - 1
    sim_pos[0], sim_neg[0, :] = 1.0, -1.0  # extremes: loss ~ 0 for row 0
    sim_pos[1], sim_neg[1, :] = -1.0, 1.0  # and huge for row 1
    pos = (sim_pos / 0.05).to(dtype).requires_grad_()
    neg = (sim_neg / 0.05).to(dtype).requires_grad_()
    loss = LOSSES[name](pos, neg)
    assert loss.dtype == dtype
    loss.backward()
    assert torch.isfinite(loss)
    assert torch.isfinite(pos.grad).all() and torch.isfinite(neg.grad).all()
    # and agrees with the float64 value to the half format's precision
    ref = LOSSES[name](pos.detach().double(), neg.detach().double())
    assert float(loss.detach()) == pytest.approx(float(ref), rel=2e-2, abs=2e-2)


@pytest.mark.parametrize("normalize", [False, True])
def test_bcl_float32_cpu_path_with_tied_rows(normalize):
    # float32 on the CPU takes the integer-key sort, whose rows with ties get their own weights;
    # some rows tied, some not, one with every score equal: against theta_bcl on the same values
    g = torch.Generator().manual_seed(5)
    neg = torch.randn(9, 50, generator=g, dtype=torch.float32)
    neg[::2] = neg[::2].round(decimals=0)  # even rows: many ties
    neg[3] = 0.25
    pos = torch.randn(9, generator=g, dtype=torch.float32)
    for abt in [(0.9, 0.5, 0.1), (0.8, 0.0, 0.05), (1.0, 0.3, 0.2)]:
        p, n = pos.clone().requires_grad_(), neg.clone().requires_grad_()
        got = Fn.bcl(p, n, *abt, normalize_weights=normalize, reduction="none")
        theta = est.theta_bcl(np.exp(neg.double().numpy()), *abt, normalize=normalize)
        np.testing.assert_allclose(
            got.detach().numpy(),
            _ref(pos.double().numpy(), neg.double().numpy(), theta),
            rtol=2e-5,
            atol=1e-6,
        )
        if (
            not normalize
        ):  # gradient: the softmax over (s+, s_i + log omega_i), omega without gradient
            got.sum().backward()
            logw = Fn.bcl_log_weights(neg.double(), *abt).numpy()
            z = np.concatenate([pos.double().numpy()[:, None], neg.double().numpy() + logw], axis=1)
            sm = np.exp(z - np.log(np.exp(z).sum(axis=1, keepdims=True)))
            np.testing.assert_allclose(n.grad.numpy(), sm[:, 1:], rtol=2e-4, atol=1e-7)


def test_bcl_gradient_is_the_weighted_softmax():
    # omega carries no gradient: dl/ds_i = -1{i=pos} + softmax over (s+, s_i + log omega_i)
    pos, neg, _ = _data(9, b=2, n=8)
    p, n = _t(pos).requires_grad_(), _t(neg).requires_grad_()
    Fn.bcl(p, n, 0.8, 0.5, 0.1, reduction="sum").backward()
    logw = Fn.bcl_log_weights(_t(neg), 0.8, 0.5, 0.1).numpy()
    z = np.concatenate([pos[:, None], neg + logw], axis=1)
    sm = np.exp(z - np.log(np.exp(z).sum(axis=1, keepdims=True)))
    np.testing.assert_allclose(p.grad.numpy(), sm[:, 0] - 1.0, rtol=1e-9)
    np.testing.assert_allclose(n.grad.numpy(), sm[:, 1:], rtol=1e-9)


@pytest.mark.parametrize("beta", [0.5, 1.0, 3.0])
def test_hcl_fused_gradient_equals_plain_logsumexp_form(beta):
    # the fused backward (beta = 1: w (2 w / S_e - 1 / S_w)) against autograd through the plain
    # difference of two logsumexps, with some masked (-inf) entries, in float64
    pos, neg, _ = _data(11, b=5, n=12)
    neg[1, :3] = -np.inf
    x = _t(neg).requires_grad_()
    got = Fn._LogPowerRatio.apply(x, beta)
    g = torch.linspace(0.5, 1.5, got.shape[0], dtype=got.dtype)
    (got * g).sum().backward()
    y = _t(neg).requires_grad_()
    ref = torch.logsumexp((beta + 1.0) * y, dim=-1) - torch.logsumexp(beta * y, dim=-1)
    (ref * g).sum().backward()
    np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-10, atol=1e-15)
    assert float(x.grad[1, :3].abs().max()) == 0.0


def test_ecdf_sort_buffer_reuse_across_shapes_and_threads():
    # the CPU sort keeps its keys and permutation in per-thread buffers: results must not depend on what
    # an earlier call (another shape) or another thread left in it; reference: numpy's ranks
    from concurrent.futures import ThreadPoolExecutor

    g = torch.Generator().manual_seed(3)
    shapes = [(5, 40), (64, 700), (5, 40), (3, 2), (64, 700)]
    data = [torch.randn(*sh, generator=g).round(decimals=1) for sh in shapes]  # with ties
    # and without: 2^20 scores and more keep their keys in the permutation's own buffer
    data[1:1] = [torch.randn(1030, 1024, generator=g), torch.randn(64, 700, generator=g)]

    def ranks(x):
        return Fn.ecdf_counts(x).numpy()

    want = [est.ecdf_counts(x.numpy()) for x in data]
    for x, w in zip(data, want):
        np.testing.assert_array_equal(ranks(x), w)
    with ThreadPoolExecutor(max_workers=4) as pool:
        for got, w in zip(pool.map(ranks, data * 4), want * 4):
            np.testing.assert_array_equal(got, w)


def _sort_kind(kind, rows, n, rng):
    x = rng.standard_normal((rows, n))
    if kind == "ties":
        x = np.round(x, 1)
    elif kind == "offset":  # |x| >> the row's range: few distinct float32 values, many collisions
        x = 1000.0 + 1e-3 * x
    elif kind == "one_tie":  # one exact tie per row among distinct scores (a single-pair run)
        x[:, 5] = x[:, 2]
    elif kind == "outlier":  # one far score squeezes the others into a few quanta
        x[:, 0] = 1e30
    elif kind == "constant":
        x[:] = 2.5
    elif kind == "signed_zeros":
        x[rng.random(x.shape) < 0.3] = 0.0
        x[rng.random(x.shape) < 0.3] = -0.0
    elif kind == "tiny":  # subnormal and tiny normal numbers
        x = x * 1e-39
    elif kind == "huge":  # x - lo overflows float32 in some entries
        x = np.clip(x * 1.5e38, -3e38, 3e38)
    return x.astype(np.float32)


SORT_KINDS = [
    "normal",
    "one_tie",
    "ties",
    "offset",
    "outlier",
    "constant",
    "signed_zeros",
    "tiny",
    "huge",
]


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("mode", ["repair", "repair_shared_buffer", "fallback"])
@pytest.mark.parametrize("kind", SORT_KINDS)
def test_cpu_sort_is_numpys_stable_argsort(kind, mode, masked, monkeypatch):
    # the CPU float32 sort (32-bit quantised keys with the equal-quantum runs re-sorted, or the
    # packed 64-bit keys it falls back to): the permutation of numpy's stable argsort of the
    # values, and the eCDF counts of est.ecdf_counts (independent numpy), for every input kind
    # -- with the repair forced on every collision (no fallback; keys in their own buffer or in
    # the permutation's, as large inputs have them), and with the fallback forced
    rng = np.random.default_rng(SORT_KINDS.index(kind))
    x = _sort_kind(kind, 23, 301, rng)
    skip = 0
    if masked:  # two masked entries per row, as the in-batch modules leave them
        skip = 2
        x[:, 7] = -np.inf
        x[:, 150] = -np.inf
    monkeypatch.setattr(Fn, "_Q32_MAX_COLLISIONS", 10**12 if mode == "fallback" else 1)
    monkeypatch.setattr(Fn, "_Q32_SHARED_MIN", 0 if mode == "repair_shared_buffer" else 1 << 20)
    order, cnt, rows = Fn._sort_ranks(torch.from_numpy(x), skip)
    order = order.clone()  # a view of the per-thread buffer
    np.testing.assert_array_equal(order.numpy(), np.argsort(x, axis=1, kind="stable"))
    counts = torch.empty_like(order).scatter_(-1, order, Fn._full_counts(order, cnt, rows)).numpy()
    want = est.ecdf_counts(x.astype(np.float64))
    finite = np.isfinite(x)
    np.testing.assert_array_equal(counts[finite], want[finite])


@pytest.mark.parametrize("rows", [1, 2, 3, 7, 64, 1000])
def test_low_bits_written_over_their_own_keys(rows):
    # the permutation is written over the keys it is computed from (keys in the second half of
    # its buffer): every row count must give key & mask
    n = 37
    buf = np.empty(rows * n, dtype=np.int64)
    key = buf.view(np.int32)[rows * n :].reshape(rows, n)
    key[:] = np.random.default_rng(rows).integers(-(2**31), 2**31 - 1, (rows, n), dtype=np.int32)
    want = (key & 63).astype(np.int64)
    Fn._low_bits_in_place(key, buf.reshape(rows, n), 63)
    np.testing.assert_array_equal(buf.reshape(rows, n), want)


def test_cpu_sort_takes_the_32_bit_path_on_ordinary_scores(monkeypatch):
    # the 64-bit fallback is for many collisions only; ordinary scores (a few equal-quantum
    # neighbours per row) stay on the 32-bit path
    calls = []
    monkeypatch.setattr(Fn, "_sort_ranks_packed64", lambda s, skip: calls.append(1))
    x = torch.from_numpy(_sort_kind("normal", 64, 2046, np.random.default_rng(0)) / np.float32(0.1))
    order, _, _ = Fn._sort_ranks(x)
    assert not calls
    np.testing.assert_array_equal(order.numpy(), np.argsort(x.numpy(), axis=1, kind="stable"))


def test_cpu_sort_non_finite_rows():
    # NaN and +-inf: valid permutations, no exception or warning; rows without them exact
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 40)).astype(np.float32)
    x[1, 3] = np.nan
    x[2, 5] = np.inf
    x[3, :] = -np.inf
    x[4, :] = np.nan
    x[5, ::2] = -np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        order, cnt, rows = Fn._sort_ranks(torch.from_numpy(x))
    order = order.clone()
    assert (np.sort(order.numpy(), axis=1) == np.arange(40)).all()
    for r in (0, 5):
        np.testing.assert_array_equal(order[r].numpy(), np.argsort(x[r], kind="stable"))


def test_bcl_never_builds_an_n_by_n_tensor():
    # N = 20 000 per anchor: an N x N boolean comparison would need 400 MB per anchor
    g = torch.Generator().manual_seed(1)
    neg = torch.randn(2, 20_000, generator=g)
    out = Fn.bcl(torch.zeros(2), neg, 0.9, 0.5, 0.1)
    assert torch.isfinite(out)


def test_functional_docstring_examples():
    res = doctest.testmod(Fn, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0 and res.attempted > 5
