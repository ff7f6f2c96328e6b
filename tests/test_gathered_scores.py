"""The fused CPU scores of gathered items against torch's own ops (forward and gradients) and their validation."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from negtheory.bridge.gathered_scores import gathered_scores  # noqa: E402
from negtheory.bridge.recommend import _FUSED_MIN_K, MF  # noqa: E402


def _torch_ops(w, h, items, cosine):
    hi = h[items]
    if cosine:
        hi = torch.nn.functional.normalize(hi, dim=-1)
    return torch.bmm(hi, w[:, :, None])[..., 0]


def _scores_and_grads(fn, w0, h0, users, items, g, cosine):
    w, h = w0.clone().requires_grad_(True), h0.clone().requires_grad_(True)
    wu = w[users]
    wu = torch.nn.functional.normalize(wu, dim=-1) if cosine else wu
    s = fn(wu, h, items, cosine)
    (s * g).sum().backward()
    return s.detach(), w.grad, h.grad


@pytest.mark.parametrize("cosine", [False, True])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_scores_and_gradients_equal_torch_ops(cosine, dtype):
    # items repeat within and across rows, some rows of h are never gathered (zero gradient there)
    gen = torch.Generator().manual_seed(0)
    w0 = torch.randn(30, 7, generator=gen, dtype=dtype)
    h0 = (
        torch.randn(25, 7, generator=gen, dtype=dtype)
        * torch.rand(25, 1, generator=gen, dtype=dtype)
        * 3
    )
    users = torch.randint(0, 30, (12,), generator=gen)
    items = torch.randint(0, 20, (12, 40), generator=gen)
    g = torch.randn(12, 40, generator=gen, dtype=dtype)
    got = _scores_and_grads(gathered_scores, w0, h0, users, items, g, cosine)
    ref = _scores_and_grads(_torch_ops, w0, h0, users, items, g, cosine)
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == torch.float64 else dict(rtol=2e-5, atol=2e-5)
    for a, b in zip(got, ref):
        assert a.dtype == dtype
        torch.testing.assert_close(a, b, **tol)
    assert torch.all(got[2][20:] == 0)


def test_cosine_gradient_matches_finite_differences():
    # an independent check of the closed-form gradient of the normalisation (module notes)
    gen = torch.Generator().manual_seed(1)
    w = torch.nn.functional.normalize(torch.randn(3, 4, generator=gen, dtype=torch.float64), dim=-1)
    h = torch.randn(5, 4, generator=gen, dtype=torch.float64, requires_grad=True)
    items = torch.tensor([[0, 1, 1], [2, 3, 0], [4, 4, 4]])
    assert torch.autograd.gradcheck(lambda t: gathered_scores(w, t, items, cosine=True), (h,))


def test_a_zero_item_row_gives_finite_scores_and_gradients():
    # below normalize's clamp the row scores 0 and its gradient is w / eps-clamped, as in torch (no NaN)
    w = torch.tensor([[0.6, 0.8]], dtype=torch.float64)
    h0 = torch.tensor([[0.0, 0.0], [1.0, 1.0]], dtype=torch.float64)
    items = torch.tensor([[0, 1]])
    got = _scores_and_grads(
        gathered_scores,
        w,
        h0,
        torch.tensor([0]),
        items,
        torch.ones(1, 2, dtype=torch.float64),
        True,
    )
    ref = _scores_and_grads(
        _torch_ops, w, h0, torch.tensor([0]), items, torch.ones(1, 2, dtype=torch.float64), True
    )
    for a, b in zip(got, ref):
        assert torch.isfinite(a).all()
        torch.testing.assert_close(a, b)


def test_mf_takes_the_fused_path_from_the_threshold_on_with_the_same_scores():
    gen = torch.Generator().manual_seed(2)
    for cosine in (False, True):
        m = MF(9, 30, dim=5, generator=gen, cosine=cosine).double()
        users = torch.arange(6)
        for k in (_FUSED_MIN_K - 1, _FUSED_MIN_K, 3 * _FUSED_MIN_K):
            items = torch.randint(0, 30, (6, k), generator=gen)
            wu = m.user(users)
            wu = torch.nn.functional.normalize(wu, dim=-1) if cosine else wu
            torch.testing.assert_close(
                m(users, items), _torch_ops(wu, m.item.weight, items, cosine)
            )


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (
            (torch.ones(2, 3), torch.ones(4, 2), torch.zeros(2, 1, dtype=torch.int64)),
            "w and h must be",
        ),
        (
            (
                torch.ones(2, 3),
                torch.ones(4, 3, dtype=torch.float64),
                torch.zeros(2, 1, dtype=torch.int64),
            ),
            "dtype",
        ),
        (
            (torch.ones(2, 3), torch.ones(4, 3), torch.zeros(3, 1, dtype=torch.int64)),
            "items must be",
        ),
        (
            (torch.ones(2, 3), torch.ones(4, 3), torch.zeros(2, 1, dtype=torch.int32)),
            "items must be",
        ),
        (
            (torch.ones(2, 3), torch.ones(4, 3), torch.full((2, 1), 4)),
            r"items must lie in \[0, n_items = 4\)",
        ),
        ((torch.ones(2, 3), torch.ones(4, 3), torch.full((2, 1), -1)), "items must lie"),
    ],
)
def test_bad_input_is_refused_naming_the_parameter(args, match):
    with pytest.raises(ValueError, match=match):
        gathered_scores(*args)


def test_integer_items_from_numpy_work():
    w, h = torch.ones(1, 2), torch.ones(3, 2)
    s = gathered_scores(w, h, torch.from_numpy(np.array([[0, 2]])))
    assert s.tolist() == [[2.0, 2.0]]


def test_an_in_place_change_to_the_scores_is_caught_by_autograd():
    # the backward pass of the cosine reads the scores; changing them in place must not go unnoticed
    w = torch.randn(2, 3, requires_grad=True)
    h = torch.randn(4, 3, requires_grad=True)
    s = gathered_scores(w, h, torch.tensor([[0, 1], [2, 3]]), cosine=True)
    s.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()


@pytest.mark.parametrize("cosine", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_parallel_kernels_give_the_serial_bits_for_any_split(cosine, dtype):
    # each entry is summed in one fixed order, so the parallel compilation and every number of item parts
    # (threads) must return exactly the serial kernels' numbers: a run's result cannot depend on its core count
    from negtheory.bridge import gathered_scores as gs

    rng = np.random.default_rng(3)
    b_n, k_n, d, n = 9, 37, 6, 23
    w = rng.normal(size=(b_n, d)).astype(dtype)
    h = rng.normal(size=(n, d)).astype(dtype)
    h[4] = 0.0  # a row at the norm's clamp
    items = rng.integers(0, n - 2, size=(b_n, k_n))  # the last rows never gathered
    g = rng.normal(size=(b_n, k_n)).astype(dtype)
    g[:, ::5] = 0.0
    r = gs._inv_norms(h) if cosine else np.ones(n)
    s = gs._forward(w, h, items, r)
    gw, gh = gs._backward(g, s, w, h, items, r, cosine, n, 1)
    assert np.array_equal(gs._forward_parallel(w, h, items, r), s)
    for parts in (1, 2, 3, 7, n + 5):  # more parts than items: the empty ones do nothing
        pw, ph = gs._backward_parallel(g, s, w, h, items, r, cosine, n, parts)
        assert np.array_equal(pw, gw) and np.array_equal(ph, gh), parts
        sw, sh = gs._backward(g, s, w, h, items, r, cosine, n, parts)
        assert np.array_equal(sw, gw) and np.array_equal(sh, gh), parts
    assert not gh[n - 2 :].any()


def test_small_steps_stay_serial(monkeypatch):
    from negtheory.bridge import gathered_scores as gs

    assert gs._threads(gs.PARALLEL_MIN_WORK - 1) == 1
    monkeypatch.setattr(
        torch, "get_num_threads", lambda: 1
    )  # OMP_NUM_THREADS=1: the process has one core
    assert gs._threads(10 * gs.PARALLEL_MIN_WORK) == 1
    monkeypatch.setattr(torch, "get_num_threads", lambda: 64)
    import numba

    assert gs._threads(10 * gs.PARALLEL_MIN_WORK) == numba.get_num_threads()
