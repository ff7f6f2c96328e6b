"""Tests of the Relaxed-Softmax training path (negtheory.bridge.relaxed_softmax_training) and of
``negtheory reproduce relaxed-softmax`` (seed 004, §2.3-3.2).

Independent references: the numpy gradient of eq. 6 (:func:`negtheory.relaxed_softmax.relaxed_softmax_grad`)
with the chain rule written out in the test; the numpy Boltzmann law of eq. 8
(:func:`negtheory.sampling.boltzmann`) with a chi-square test at significance 1e-3; the softmax
(MLE) gradient of eq. 3 written in numpy for the T -> inf, D = U(J) limit; the effective
temperature T/(T+1) of the eq.-7 limit; scipy-free direct sums for the KLs.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

torch = pytest.importorskip("torch")

from negtheory.bridge import relaxed_softmax_training as T  # noqa: E402
from negtheory.relaxed_softmax import (  # noqa: E402
    MixtureOfGaussiansTask,
    effective_temperature,
    kl_divergence,
    relaxed_softmax_grad,
)
from negtheory.sampling import boltzmann  # noqa: E402

ALPHA = 1e-3  # significance level of every chi-square test here


def _stack(n_runs, n_i, n_j, dim, seed=0):
    gens = [torch.Generator().manual_seed(seed + r) for r in range(n_runs)]
    return T.BilinearStack(n_runs, n_i, n_j, dim, init_std=0.7, generators=gens).double()


# ------------------------------------------------------------------ the training step's gradient


def test_rs_training_step_gradient_is_eq6_through_the_chain_rule():
    model = _stack(2, 4, 6, 3)
    i = torch.tensor([[0, 2, 2], [3, 1, 0]])
    j = torch.tensor([[1, 5, 0], [2, 2, 4]])
    neg = torch.tensor(
        [[[3, 3, 4], [0, 1, 1], [5, 2, 0]], [[0, 1, 5], [2, 2, 3], [4, 1, 1]]]
    )  # duplicates and a hit
    loss = T.pair_losses(model, "rs", i, j, neg).mean(dim=1).sum()
    loss.backward()
    u = model.u.detach().numpy()
    v = model.v.detach().numpy()
    gu, gv = np.zeros_like(u), np.zeros_like(v)
    for r in range(2):
        for b in range(3):
            ii, jj = int(i[r, b]), int(j[r, b])
            scores = v[r] @ u[r, ii]  # G_r(i, .)
            dg = relaxed_softmax_grad(scores, jj, neg[r, b].numpy()) / 3  # eq. 6, the batch mean
            gu[r, ii] += dg @ v[r]  # dG(i, j')/du_i = v_j'
            gv[r] += np.outer(dg, u[r, ii])  # dG(i, j')/dv_j' = u_i
    np.testing.assert_allclose(model.u.grad.numpy(), gu, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(model.v.grad.numpy(), gv, rtol=1e-12, atol=1e-14)


def test_mle_step_gradient_is_eq3():
    model = _stack(1, 3, 5, 2)
    i, j = torch.tensor([[1]]), torch.tensor([[4]])
    T.pair_losses(model, "mle", i, j).sum().backward()
    u, v = model.u.detach().numpy()[0], model.v.detach().numpy()[0]
    g = v @ u[1]
    dg = np.exp(g - g.max()) / np.exp(g - g.max()).sum()
    dg[4] -= 1.0  # -e_j + E_{g_i}[e_j'] (eq. 3)
    np.testing.assert_allclose(model.v.grad.numpy()[0], np.outer(dg, u[1]), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(model.u.grad.numpy()[0, 1], dg @ v, rtol=1e-12, atol=1e-14)


def test_sampled_softmax_loss_matches_the_corrected_cross_entropy():
    pos = torch.tensor([1.0], dtype=torch.float64)
    neg = torch.tensor([[0.5, -1.0, 2.0]], dtype=torch.float64)
    lq_pos = torch.tensor([math.log(0.2)], dtype=torch.float64)
    lq_neg = torch.log(torch.tensor([[0.1, 0.3, 0.2]], dtype=torch.float64))
    hit = torch.tensor([[False, False, True]])
    got = float(T.sampled_softmax_loss(pos, neg, lq_pos, lq_neg, hit)[0])
    n = 3
    lp = 1.0 - math.log(n * 0.2)
    terms = [lp, 0.5 - math.log(n * 0.1), -1.0 - math.log(n * 0.3)]  # the hit is removed
    assert got == pytest.approx(-lp + math.log(sum(math.exp(t) for t in terms)), rel=1e-12)


# ------------------------------------------------------------------ the Boltzmann sampler (eq. 8)


def test_boltzmann_negatives_follow_eq8_chi_square():
    rng = np.random.default_rng(1)
    n_j = 8
    p = rng.dirichlet(np.full(n_j, 2.0), size=3)  # three contexts' P_i
    log_d = torch.as_tensor(-np.log(p))  # D_i = 1/P_i
    g = torch.as_tensor(rng.normal(size=(2, 3, n_j)))  # two runs x three pairs
    temps = [0.5, 3.0]
    t = torch.tensor(temps, dtype=torch.float64).reshape(2, 1, 1)
    log_q = T.boltzmann_log_q(g, log_d[None], t)
    gen = torch.Generator().manual_seed(0)
    n = 40_000
    neg = T.sample_negatives(log_q, n, gen).numpy()
    for r in range(2):
        want = boltzmann(g[r].numpy(), 1.0 / p, temps[r])  # eq. 8, numpy implementation
        np.testing.assert_allclose(np.exp(log_q[r].numpy()), want, rtol=1e-10)
        for b in range(3):
            counts = np.bincount(neg[r, b], minlength=n_j)
            expected = want[b] * n
            assert expected.min() >= 5
            assert stats.chisquare(counts, expected).pvalue > ALPHA


def test_draw_negatives_at_infinite_temperature_samples_d_and_uses_the_model_at_finite_t():
    model = _stack(2, 3, 5, 4)
    i = torch.tensor([[0, 1], [2, 2]])
    pop = np.array([5.0, 1.0, 1.0, 2.0, 1.0])
    log_d = torch.as_tensor(np.log(pop))[None, None, :].expand(2, 1, 5)
    gen = torch.Generator().manual_seed(3)
    n = 20_000
    neg, lq = T.draw_negatives(
        model, i, log_d, torch.tensor([math.inf, math.inf]), n, gen, need_log_q=True
    )
    np.testing.assert_allclose(
        np.exp(lq[:, 0].numpy()), np.tile(pop / pop.sum(), (2, 1)), rtol=1e-12
    )
    counts = np.bincount(neg.numpy().ravel(), minlength=5)
    assert stats.chisquare(counts, pop / pop.sum() * counts.sum()).pvalue > ALPHA
    # finite T: the law is B(G, D, T) of the model's current scores (eq. 8)
    neg, lq = T.draw_negatives(model, i, log_d, torch.tensor([0.5, 2.0]), n, gen, need_log_q=True)
    with torch.no_grad():
        g = model.all_scores(i).numpy()
    for r, t in enumerate((0.5, 2.0)):
        want = boltzmann(g[r], pop, t)
        np.testing.assert_allclose(np.exp(lq[r].numpy()), want, rtol=1e-9)
        counts = np.bincount(neg[r, 1].numpy(), minlength=5)
        assert stats.chisquare(counts, want[1] * n).pvalue > ALPHA


# ------------------------------------------------------------------ large-n limits of the RS update (eq. 7, §2.3)


def _rs_param_grads(model, i, j, neg):
    model.zero_grad(set_to_none=True)
    T.pair_losses(model, "rs", i, j, neg).sum().backward()
    return model.u.grad.clone(), model.v.grad.clone()


def test_rs_update_with_uniform_d_and_infinite_t_is_the_monte_carlo_softmax_gradient():
    # §2.3: D = U(J), T = inf makes the RS update a Monte-Carlo approximation of the softmax
    # (MLE) gradient, eq. 3. With n negatives the self-normalised weights converge at rate n^-1/2.
    model = _stack(1, 2, 12, 3)
    i, j = torch.tensor([[1]]), torch.tensor([[7]])
    log_d = torch.zeros(1, 1, 12, dtype=torch.float64)
    gen = torch.Generator().manual_seed(0)
    neg, _ = T.draw_negatives(model, i, log_d, torch.tensor([math.inf]), 400_000, gen)
    gu, gv = _rs_param_grads(model, i, j, neg)
    u, v = model.u.detach().numpy()[0], model.v.detach().numpy()[0]
    g = v @ u[1]
    dg = np.exp(g - g.max()) / np.exp(g - g.max()).sum()
    dg[7] -= 1.0  # eq. 3 in the scores
    np.testing.assert_allclose(gv.numpy()[0], np.outer(dg, u[1]), atol=5e-3)
    np.testing.assert_allclose(gu.numpy()[0, 1], dg @ v, atol=5e-3)
    # and it is the gradient of the MLE loss of the same pair
    model.zero_grad(set_to_none=True)
    T.pair_losses(model, "mle", i, j).sum().backward()
    np.testing.assert_allclose(gv.numpy(), model.v.grad.numpy(), atol=5e-3)


def test_rs_update_with_boltzmann_negatives_targets_the_effective_temperature():
    # eq. 7 with Q = B(G, D, T): the weights e^G make the limit law B(G, D, T/(T+1)) (errata of §2.3)
    model = _stack(1, 1, 10, 3)
    i, j = torch.tensor([[0]]), torch.tensor([[2]])
    d = np.linspace(1.0, 3.0, 10)
    log_d = torch.as_tensor(np.log(d))[None, None, :]
    gen = torch.Generator().manual_seed(1)
    t = 0.6
    neg, _ = T.draw_negatives(model, i, log_d, torch.tensor([t]), 400_000, gen)
    _, gv = _rs_param_grads(model, i, j, neg)
    u, v = model.u.detach().numpy()[0], model.v.detach().numpy()[0]
    b = boltzmann(v @ u[0], d, effective_temperature(t))
    b[2] -= 1.0
    np.testing.assert_allclose(gv.numpy()[0], np.outer(b, u[0]), atol=5e-3)


# ------------------------------------------------------------------ metrics, training, validation


def test_evaluate_log_g_kls_match_direct_computations():
    task = MixtureOfGaussiansTask(4, n_context=12, n_target=9, rng=2)
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(12, 9))
    log_g = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    ti, tj = T.training_pairs(task, 40, rng=1)
    m = T.evaluate_log_g(log_g, task, ti, tj, prec_k=3)
    g = np.exp(log_g)
    pop = task.context_popularity
    # Fig. 2's KL of the joint against Pop(I) x g, as one distribution on I x J
    assert m["kl_joint"] == pytest.approx(
        float(kl_divergence(task.joint.ravel(), (pop[:, None] * g).ravel())), rel=1e-9
    )
    seen = np.unique(ti)
    p = task.conditional
    assert m["kl_true"] == pytest.approx(
        np.mean([kl_divergence(p[r], g[r]) for r in seen]), rel=1e-9
    )
    emp = []
    for r in seen:
        c = np.bincount(tj[ti == r], minlength=9).astype(float)
        emp.append(kl_divergence(c / c.sum(), g[r]))
    assert m["kl_emp"] == pytest.approx(np.mean(emp), rel=1e-9)
    assert 0.0 <= m["mpr"] <= 1.0 and 0.0 <= m["prec_at_k"] <= 1.0


def test_training_is_seeded_and_learns():
    task = MixtureOfGaussiansTask(3, n_context=10, n_target=10, rng=0)
    kw = dict(seeds=(0, 1), n_pairs=2000, steps=100, batch_size=128, device="cpu", ranking=False)
    a = T.train_density(task, "mle", **kw)
    b = T.train_density(task, "mle", **kw)
    assert a == b
    untrained = T.train_density(task, "mle", **{**kw, "steps": 1})
    for r, r0 in zip(a, untrained):
        assert r["kl_joint"] < 0.2 * r0["kl_joint"]
    rs = T.train_density(task, "rs", degeneracy="inverse", temperatures=(0.5, 1.0), n_val=500, **kw)
    assert [(r["seed"], r["temperature"]) for r in rs] == [(0, 0.5), (0, 1.0), (1, 0.5), (1, 1.0)]
    assert all(np.isfinite(r["val_nll"]) and r["kl_joint"] >= 0 for r in rs)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(loss="foo"), "loss"),
        (dict(loss="rs"), "degeneracy"),
        (dict(loss="rs", degeneracy="uniform", temperatures=(-1.0,)), "temperature"),
        (dict(loss="ss", degeneracy="popularity", temperatures=(1.0,)), "temperatures"),
        (dict(loss="mle", n_pairs=0), "n_pairs"),
        (dict(loss="mle", batch_size=0), "batch_size"),
        (dict(loss="mle", device="tpu"), "device"),
    ],
)
def test_invalid_inputs_name_the_parameter(kwargs, name):
    task = MixtureOfGaussiansTask(2, n_context=5, n_target=5, rng=0)
    loss = kwargs.pop("loss")
    with pytest.raises(ValueError, match=name):
        T.train_density(task, loss, **kwargs)


def test_method_spec_covers_the_six_methods_of_section_3_2():
    assert T.method_spec("mle")[0] == "mle"
    assert T.method_spec("ss") == ("ss", "popularity", math.inf)
    assert T.method_spec("ubs", 2.0) == ("rs", "uniform", 2.0)
    assert T.method_spec("ubs")[2] == 5.0 and T.method_spec("pbs")[2] == 7.5  # Fig. 5's T*
    with pytest.raises(ValueError, match="method"):
        T.method_spec("bce")


# ------------------------------------------------------------------ the command


def test_reproduce_help_does_not_import_torch():
    code = (
        "import sys\nfrom negtheory.cli import main\n"
        "try:\n    main(['reproduce', 'relaxed-softmax', '--help'])\nexcept SystemExit:\n    pass\n"
        "assert 'torch' not in sys.modules\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "--quick" in res.stdout and "--seeds" in res.stdout


def test_reproduce_relaxed_softmax_quick_end_to_end(tmp_path, capsys):
    from negtheory.cli import main
    from negtheory.reproduce.relaxed_softmax import PRESETS

    out, figs = tmp_path / "out", tmp_path / "figs"
    rc = main(
        [
            "reproduce",
            "relaxed-softmax",
            "--quick",
            "--seeds",
            "2",
            "--out",
            str(out),
            "--figures",
            str(figs),
            "--no-progress",
        ]
    )
    assert rc == 0
    temp = pd.read_csv(out / "relaxed_softmax_temperature.csv")
    assert list(temp.columns) == ["degeneracy", "temperature", "seed", "kl_joint"]
    n_t = len(PRESETS["quick"]["temperatures"])
    assert len(temp) == 3 * n_t * 2 and set(temp.degeneracy) == {"uniform", "popularity", "inverse"}
    assert temp.temperature.min() <= 0.1 and temp.temperature.max() >= 100
    meth = pd.read_csv(out / "relaxed_softmax_methods.csv")
    assert list(meth.columns) == ["n_components", "method", "seed", "kl", "mpr", "prec_at_k"]
    assert {"mle", "ss", "us", "ps", "ubs", "pbs"} <= set(meth.method) and set(
        meth.n_components
    ) == {10, 50, 90}
    assert (
        (meth.kl >= 0).all() and meth.mpr.between(0, 1).all() and meth.prec_at_k.between(0, 1).all()
    )
    for name in ("fig2_temperature", "fig3_batch_size", "fig4_train_size", "fig5_methods"):
        assert (figs / f"relaxed_softmax_{name}.png").stat().st_size > 10_000
    assert "Fig. 2" in (out / "relaxed_softmax_summary.md").read_text()


def test_summary_statistics_t_interval_and_interior_optimum():
    from negtheory.reproduce.relaxed_softmax import mean_ci, paired, temperature_summary

    x = np.array([1.0, 1.4, 0.7, 1.2, 0.9])
    lo, hi = stats.t.interval(0.95, df=4, loc=x.mean(), scale=stats.sem(x))
    m, h = mean_ci(x)
    assert m == pytest.approx(x.mean()) and h == pytest.approx((hi - lo) / 2, rel=1e-12)
    temps = [0.1, 1.0, 10.0]
    rows = []
    for s in range(4):
        for t, base in zip(temps, (0.5, 0.2, 3.0)):  # a U-shaped curve: T* = 1 in the interior
            rows.append(dict(degeneracy="uniform", temperature=t, seed=s, kl_joint=base + 0.01 * s))
        for t, base in zip(temps, (0.1, 0.2, 3.0)):  # monotone: the optimum is the grid's end
            rows.append(dict(degeneracy="inverse", temperature=t, seed=s, kl_joint=base + 0.01 * s))
    summ = temperature_summary(pd.DataFrame(rows))
    assert summ["uniform"]["t_star"] == 1.0 and summ["uniform"]["interior"]
    assert summ["uniform"]["gap_lo"][0] == pytest.approx(0.3)
    assert summ["inverse"]["t_star"] == 0.1 and not summ["inverse"]["interior"]
    df = pd.DataFrame(
        [
            dict(k=1, method=mth, seed=s, v=v + s)
            for s in range(3)
            for mth, v in (("a", 2.0), ("b", 0.5))
        ]
    )
    assert paired(df, "k", "a", "b", "v")[1][0] == pytest.approx(1.5)
