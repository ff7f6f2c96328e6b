"""negtheory.bridge: modules, samplers, data, probes, BPRAC EM, harness, CLI, optional-import contract."""

from __future__ import annotations

import doctest
import importlib
import json
import math
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from negtheory import estimators as est  # noqa: E402
from negtheory.bridge import functional as Fn  # noqa: E402
from negtheory.bridge import losses as M  # noqa: E402
from negtheory.bridge import samplers as S  # noqa: E402
from negtheory.infonce import ans_schedule  # noqa: E402
from negtheory.sampling import boltzmann  # noqa: E402

# --------------------------------------------------------------------------------------------
# optional dependency contract
# --------------------------------------------------------------------------------------------
# ``sys.modules['torch'] = None`` would also block torch, but scipy's array-API helpers then
# trip over the None entry (``sys.modules['torch'].Tensor``); a meta-path finder that refuses
# torch is what a torch-less installation looks like.
_BLOCK_TORCH = (
    "import sys\n"
    "class _NoTorch:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'torch' or name.startswith('torch.'):\n"
    "            raise ImportError(f'No module named {name!r} (blocked by the test)')\n"
    "        return None\n"
    "sys.meta_path.insert(0, _NoTorch())\n"
    "for m in [m for m in sys.modules if m == 'torch' or m.startswith('torch.')]:\n"
    "    del sys.modules[m]\n"
)


def test_import_negtheory_without_torch_and_bridge_error_names_the_extra():
    code = _BLOCK_TORCH + (
        "import negtheory, negtheory.estimators, negtheory.studies, negtheory.cli\n"
        "assert 'negtheory.bridge' not in sys.modules and 'torch' not in sys.modules\n"
        "try:\n"
        "    import negtheory.bridge\n"
        "except ImportError as exc:\n"
        "    msg = str(exc)\n"
        "    assert 'negtheory[torch]' in msg and 'torch' in msg, msg\n"
        "else:\n"
        "    raise SystemExit('negtheory.bridge imported without torch')\n"
        "from negtheory.bridge import functional\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    # the last line must fail too, with the same hint (never an AttributeError or a NameError)
    assert res.returncode != 0
    assert "ImportError" in res.stderr and "negtheory[torch]" in res.stderr, res.stderr
    assert "SystemExit" not in res.stderr and "AssertionError" not in res.stderr, res.stderr


@pytest.mark.parametrize(
    "name",
    [
        *(
            f"losses.{m}"
            for m in (
                "_base",
                "infonce",
                "dcl",
                "hcl",
                "bcl",
                "bpr",
                "dpl",
                "bce",
                "ccl",
                "relaxed_softmax",
                "registry",
            )
        ),
        "samplers",
        "data",
        "probes",
        "bprac_em",
        "train",
        "recommend",
        "relaxed_softmax_training",
        "device",
    ],
)
def test_docstring_examples(name):
    mod = importlib.import_module(f"negtheory.bridge.{name}")
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0 and res.attempted > 0


# --------------------------------------------------------------------------------------------
# modules
# --------------------------------------------------------------------------------------------
def _emb(b=6, d=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(b, d, generator=g, dtype=torch.float64), torch.randn(
        b, d, generator=g, dtype=torch.float64
    )


def test_in_batch_symmetric_logits_match_an_explicit_loop():
    a, p = _emb()
    pos, neg = M.pair_logits(a, p, temperature=0.5, normalize=True)
    z = torch.nn.functional.normalize(torch.cat([a, p]), dim=-1)
    b = a.shape[0]
    for i in range(2 * b):
        partner = (i + b) % (2 * b)
        others = [j for j in range(2 * b) if j not in (i, partner)]
        assert float(pos[i]) == pytest.approx(float(z[i] @ z[partner]) / 0.5, rel=1e-12)
        np.testing.assert_allclose(neg[i].numpy(), (z[others] @ z[i]).numpy() / 0.5, rtol=1e-12)
    assert neg.shape == (2 * b, 2 * b - 2)


def test_module_losses_equal_functionals_on_the_same_logits():
    a, p = _emb()
    shared = torch.randn(7, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    paired = torch.randn(6, 4, 5, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    cases = [
        (M.InfoNCELoss(0.5), lambda q, n: Fn.infonce(q, n)),
        (M.DebiasedContrastiveLoss(0.1, 0.5), lambda q, n: Fn.dcl(q, n, 0.1, floor=math.exp(-2.0))),
        (
            M.HardContrastiveLoss(0.1, 1.0, 0.5),
            lambda q, n: Fn.hcl(q, n, 0.1, 1.0, floor=math.exp(-2.0)),
        ),
        (M.BayesianContrastiveLoss(0.9, 0.5, 0.1, 0.5), lambda q, n: Fn.bcl(q, n, 0.9, 0.5, 0.1)),
        (M.BPRLoss(), lambda q, n: Fn.bpr(q, n)),
        (
            M.DPLLoss(0.1),
            lambda q, n: Fn.dpl(q, n, 0.1, eps=1e-2),
        ),  # the module's eps: DPL's spec default
        (M.BCELoss(), lambda q, n: Fn.bce(q, n)),
        (M.RelaxedSoftmaxLoss(), lambda q, n: Fn.relaxed_softmax(q, n)),
    ]
    for mod, fn in cases:
        for negs in (None, shared, paired):
            q, n = mod.logits(a, p, negs)
            assert float(mod(a, p, negs)) == pytest.approx(float(fn(q, n)), rel=1e-12)
    # shared [M, D] and paired [B, M, D] with the same rows agree
    q1, n1 = M.pair_logits(a, p, shared, temperature=0.3)
    q2, n2 = M.pair_logits(a, p, shared.expand(6, 7, 5), temperature=0.3)
    torch.testing.assert_close(n1, n2)
    with pytest.raises(ValueError, match="negatives"):
        M.pair_logits(a, p, torch.zeros(2, 3, 4, 5))


def test_dcl_module_trains_a_tiny_encoder():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 8, generator=g)
    enc = torch.nn.Linear(8, 4)
    opt = torch.optim.SGD(enc.parameters(), lr=0.5)
    loss_fn = M.DebiasedContrastiveLoss(tau_plus=0.1, temperature=0.5)
    first = None
    for _ in range(30):
        v1 = x + 0.1 * torch.randn(x.shape, generator=g)
        v2 = x + 0.1 * torch.randn(x.shape, generator=g)
        loss = loss_fn(enc(v1), enc(v2))
        opt.zero_grad()
        loss.backward()
        opt.step()
        first = float(loss.detach()) if first is None else first
    assert float(loss.detach()) < first


# --------------------------------------------------------------------------------------------
# samplers
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("with_ref", [False, True])
def test_bns_select_matches_numpy(with_ref):
    rng = np.random.default_rng(0)
    xp = rng.normal(1.0, 1.0, 50)
    cand = rng.normal(0.0, 1.0, (50, 12))
    pfn = rng.random(12) * 0.5
    ref = rng.normal(0.0, 1.0, (50, 30)) if with_ref else None
    want = est.bns_select(xp, cand, pfn, reference_scores=ref, lam=5.0)
    got = S.bns_select(
        torch.tensor(xp),
        torch.tensor(cand),
        torch.tensor(pfn),
        None if ref is None else torch.tensor(ref),
        lam=5.0,
    )
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("n_cand", [1, 5, 8, 9, 40])
def test_bns_count_le_both_paths_equal_brute_force(n_cand):
    # the direct count (few candidates) and sort + searchsorted (many) against numpy's count,
    # with ties (values on a 0.25 grid) and masked +inf references as BNS uses them
    rng = np.random.default_rng(n_cand)
    ref = np.round(rng.normal(0.0, 1.0, (7, 60)) * 4) / 4
    ref[rng.random(ref.shape) < 0.2] = np.inf
    cand = np.round(rng.normal(0.0, 1.0, (7, n_cand)) * 4) / 4
    want = (ref[:, None, :] <= cand[:, :, None]).sum(-1)
    got = S._count_le(torch.tensor(ref), torch.tensor(cand))
    np.testing.assert_array_equal(got.numpy(), want)
    srt = torch.sort(torch.tensor(ref), dim=-1)[0]
    np.testing.assert_array_equal(
        torch.searchsorted(srt, torch.tensor(cand), right=True).numpy(), want
    )


@pytest.mark.parametrize("temperature", [0.0, 0.3, 1.0, 5.0, math.inf])
def test_boltzmann_log_probs_match_numpy(temperature):
    rng = np.random.default_rng(1)
    g = rng.normal(size=(3, 9))
    d = rng.random(9)
    d[2] = 0.0
    want = boltzmann(g, d, temperature)
    got = S.boltzmann_log_probs(torch.tensor(g), temperature, torch.tensor(d)).exp().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


def test_boltzmann_sample_frequencies():
    # chi-square goodness of fit at the 0.1 % level (fixed seed)
    from scipy.stats import chisquare

    g = torch.tensor([0.0, 1.0, 2.0, -1.0, 0.5], dtype=torch.float64)
    p = S.boltzmann_log_probs(g, 0.7).exp().numpy()
    draws = S.boltzmann_sample(g[None], 40_000, 0.7, generator=torch.Generator().manual_seed(0))[
        0
    ].numpy()
    counts = np.bincount(draws, minlength=5)
    assert chisquare(counts, 40_000 * p).pvalue > 1e-3
    # same generator seed, same draws
    again = S.boltzmann_sample(g[None], 40_000, 0.7, generator=torch.Generator().manual_seed(0))[
        0
    ].numpy()
    np.testing.assert_array_equal(draws, again)


def test_fractional_counts_and_ans_callback():
    c = S.draw_negative_counts(2.25, (200_000,), torch.Generator().manual_seed(1))
    assert set(c.unique().tolist()) == {2, 3}
    assert float(c.float().mean()) == pytest.approx(2.25, abs=0.005)  # se = 0.001
    cb = S.ANSCallback(
        total_steps=200, k_opt=7, warmup=0.2, generator=torch.Generator().manual_seed(0)
    )
    steps = np.arange(0, 201, 7)
    np.testing.assert_allclose(
        [cb.on_step(s) for s in steps], ans_schedule(steps, 200, 7, 0.2), rtol=1e-15
    )
    assert len(cb.history) == len(steps)


def test_bns_sampler_prefers_low_risk_candidates():
    # item 0 is hugely popular (likely a false negative): BNS must avoid it when it is hard
    counts = torch.tensor([100.0] + [1.0] * 9)
    s = S.BNSSampler(
        counts, n_users=100, n_candidates=10, lam=5.0, generator=torch.Generator().manual_seed(0)
    )
    score = lambda u, i: torch.where(i == 0, 5.0, 0.0).double()  # noqa: E731
    chosen = s.sample(
        score, torch.zeros(500, dtype=torch.long), torch.zeros(500, dtype=torch.float64)
    )
    assert not (chosen == 0).any()


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------
def test_synthetic_pu_ground_truth():
    from negtheory.bridge.data import synthetic_pu

    d = synthetic_pu(n_users=200, n_items=300, tau_plus=0.2, mu_q=1.5, n_train=10, n_test=2, rng=3)
    assert d.relevant.shape == (200, 300)
    np.testing.assert_allclose(d.relevant.float().mean(1).numpy(), 0.2)  # class prior per user
    assert (
        float(d.utility.mean(1).abs().max()) < 1e-5
        and float((d.utility.std(1, correction=0) - 1).abs().max()) < 1e-5
    )
    tr = set(map(tuple, d.train.tolist()))
    te = set(map(tuple, d.test.tolist()))
    assert not tr & te and len(tr) == 2000 and len(te) == 400
    # labels are noisy but informative: tilted utilities; the empirical label AUC lies below
    # Phi(mu_q / sqrt 2) (finite catalog, no replacement) and above 1/2
    assert 0.6 < d.params["label_auc"] < d.params["label_auc_theory"]
    # more label noise (smaller mu_q) -> lower label AUC
    d0 = synthetic_pu(n_users=200, n_items=300, tau_plus=0.2, mu_q=0.5, n_train=10, n_test=2, rng=3)
    assert d0.params["label_auc"] < d.params["label_auc"]
    np.testing.assert_array_equal(
        d.item_counts.numpy(), np.bincount(d.train[:, 1].numpy(), minlength=300)
    )


def test_digits_views_and_augment():
    pytest.importorskip("sklearn")
    from negtheory.bridge.data import augment_digits, load_digits_views

    d = load_digits_views()
    assert d.x.shape == (1797, 64) and float(d.x.max()) == 1.0
    assert len(set(d.train_idx.tolist()) & set(d.test_idx.tolist())) == 0
    g = torch.Generator().manual_seed(0)
    v1, v2 = augment_digits(d.x[:32], g), augment_digits(d.x[:32], g)
    assert v1.shape == (32, 64) and not torch.equal(v1, v2)
    # a view stays close to its image: nearer to it than to other images on average
    dist_same = (v1 - d.x[:32]).norm(dim=1).mean()
    dist_other = (v1 - d.x[32:64]).norm(dim=1).mean()
    assert dist_same < dist_other


# --------------------------------------------------------------------------------------------
# probes and BPRAC
# --------------------------------------------------------------------------------------------
def test_probe_batch_against_direct_computation():
    from negtheory.bridge.probes import probe_batch

    rng = np.random.default_rng(2)
    fn = rng.random((40, 30)) < 0.15
    neg = rng.normal(size=(40, 30)) + 1.0 * fn
    pos = rng.normal(2.0, 0.5, 40)
    r = probe_batch(torch.tensor(pos), torch.tensor(neg), torch.tensor(fn))
    assert r["tau_plus"] == pytest.approx(fn.mean())
    assert r["auc_k1"] == pytest.approx(np.mean(neg < pos[:, None]))
    pairs = [(f, t) for i in range(40) for f in neg[i, fn[i]] for t in neg[i, ~fn[i]]]
    assert r["alpha"] == pytest.approx(np.mean([t < f for f, t in pairs]))
    x = np.exp(neg)
    truth = est.theta_sup(x, ~fn)
    assert r["mse_biased"] == pytest.approx(np.mean((x.mean(1) - truth) ** 2))
    a = min(max(r["alpha"], 0.5), 1.0)
    assert r["mse_bcl"] == pytest.approx(
        np.mean((est.theta_bcl(x, a, 0.5, r["tau_plus"]) - truth) ** 2)
    )


def test_bprac_e_step_uses_credence():
    bprac = pytest.importorskip("negtheory.bprac")
    from negtheory.bridge.bprac_em import e_step

    scores = torch.tensor([-1.0, 0.5, 2.0, 2.0, 0.0])
    items = torch.tensor([0, 0, 1, 1, 2])
    counts = torch.tensor([3.0, 10.0, 1.0])
    got = e_step(scores, items, counts, 4, 0.7).numpy()
    want = bprac.credence(scores.numpy().astype(float), items.numpy(), counts.numpy(), 4, 0.7)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got.max() == pytest.approx(1.0)


# --------------------------------------------------------------------------------------------
# harness and CLI
# --------------------------------------------------------------------------------------------
SMALL = dict(n_users=40, n_items=60, n_train=8, n_test=2)


@pytest.mark.parametrize(
    "loss", ["infonce", "dcl", "hcl", "bcl_norm", "dpl", "bce", "relaxed_softmax", "bns", "bprac"]
)
def test_every_rec_loss_trains(loss):
    from negtheory.bridge.train import train

    r = train(
        data="synthetic",
        loss=loss,
        epochs=2,
        k=4.0,
        dim=8,
        progress=False,
        synthetic=SMALL,
        probe_every=2,
    )
    assert len(r["history"]) == 2
    assert all(np.isfinite(h["loss"]) for h in r["history"])
    assert 0.0 <= r["final"]["test_ndcg@10"] <= 1.0
    assert [h["epoch"] for h in r["history"]] == [1, 2]  # the one trainer's 1-based epochs
    assert 0.5 < r["probe"]["auc_k1"] < 1.0 or loss in ("bce",)
    assert r["probe"]["tau_plus"] == pytest.approx(0.1, abs=0.05)


def test_training_is_reproducible_and_learns():
    from negtheory.bridge.train import train

    kw = dict(
        data="synthetic",
        loss="bpr",
        epochs=3,
        dim=8,
        progress=False,
        synthetic=dict(SMALL, n_train=15),
        probe=False,
    )
    a, b = train(**kw), train(**kw)
    assert a["history"] == b["history"]
    aucs = [h["train_auc"] for h in a["history"]]
    # random scores give 0.5 with a standard error of about 0.29 / sqrt(600 pairs) = 0.012
    assert aucs == sorted(aucs) and aucs[-1] > 0.55


def test_ans_and_fractional_k_with_infonce():
    from negtheory.bridge.train import train

    r = train(
        data="synthetic",
        loss="infonce",
        epochs=2,
        k=3.5,
        dim=8,
        progress=False,
        synthetic=SMALL,
        ans=True,
        probe=False,
    )
    assert (
        2.5 < max(r["ans_k"]) <= 3.5 and min(r["ans_k"]) >= 1.0
    )  # rises to K* = 3.5, falls back to 1
    r = train(
        data="synthetic",
        loss="infonce",
        epochs=1,
        k=2.5,
        dim=8,
        progress=False,
        synthetic=SMALL,
        probe=False,
    )
    assert np.isfinite(r["final"]["loss"])
    with pytest.raises(ValueError, match="infonce"):
        train(data="synthetic", loss="bpr", epochs=1, k=2.5, progress=False, synthetic=SMALL)


def test_digits_contrastive_run_and_probe():
    pytest.importorskip("sklearn")
    from negtheory.bridge.train import train

    r = train(data="digits", loss="bcl", epochs=1, batch_size=64, progress=False, probe_every=4)
    assert r["final"]["probe_acc"] > 0.5  # 10 classes: chance is 0.1
    p = r["probe"]
    assert p["n"] == pytest.approx(126, abs=1)
    assert 0.05 < p["tau_plus"] < 0.15  # 10 balanced classes
    assert p["alpha"] > 0.5


def test_the_harness_trains_its_tower_model_without_warnings():
    import warnings

    from negtheory.bridge.train import TowerModel, train

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TowerModel(5, 7, 4)
        train(
            data="synthetic",
            loss="bpr",
            epochs=1,
            dim=4,
            progress=False,
            probe=False,
            synthetic=dict(n_users=20, n_items=30, n_train=5, n_test=2),
        )


class _Stop(Exception):
    pass


def test_retired_bridge_experiments_warn_and_run_all_skips_them(tmp_path, monkeypatch):
    """mse_sim_vs_train warns (pointing at the caller), downstream(movielens=) is gone; run_all runs neither."""
    import warnings
    from pathlib import Path

    import pandas as pd

    from negtheory.bridge import experiments as E

    def stop(*a, **k):
        raise _Stop

    monkeypatch.setattr(E, "train", stop)
    msg = r"mse_sim_vs_train is deprecated since negtheory 0\.1 and removed in 0\.2; use `negtheory reproduce sim-vs-train`"
    with pytest.raises(_Stop), pytest.warns(DeprecationWarning, match=msg) as w:
        E.mse_sim_vs_train(epochs=1)
    assert w[0].filename == __file__
    with pytest.raises(TypeError, match="movielens"):
        E.downstream(
            movielens=tmp_path / "u.data", seeds=(0,)
        )  # the harness's real-data task is removed
    fake = {"final": {"probe_acc": 0.9, "test_ndcg@10": 0.1}, "history": [{"test_ndcg@10": 0.1}]}
    monkeypatch.setattr(E, "train", lambda **k: fake)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # downstream does not warn
        d = E.downstream(digits_losses=("infonce",), rec_losses=("bpr",), seeds=(0,))
    assert set(d.task) == {"digits", "synthetic"}

    class _Fig:
        def savefig(self, path, **kw):
            Path(path).write_bytes(b"png")

    monkeypatch.setattr(E, "mse_sim_vs_train", stop)
    monkeypatch.setattr(E, "wu_k_sweep", lambda **k: pd.DataFrame({"k": ["1"]}))
    monkeypatch.setattr(E, "downstream", lambda **k: pd.DataFrame({"task": ["digits"]}))
    monkeypatch.setattr(E, "plot_wu", lambda df: _Fig())
    monkeypatch.setattr(E, "plot_downstream", lambda df: _Fig())
    res = E.run_all(out=tmp_path / "data", figures=tmp_path / "figs", quick=True, progress=False)
    assert len(res) == 2
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == [
        "bridge_downstream.csv",
        "bridge_wu_k_sweep.csv",
    ]
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == [
        "bridge_downstream.png",
        "bridge_wu_k_sweep.png",
    ]
    assert "mse_sim_vs_train" in E.__all__ and "plot_mse" not in E.__all__


def test_cli_bridge_train_synthetic_bcl_one_epoch(tmp_path):
    import argparse

    from negtheory._cli_bridge import add_bridge_parser

    parser = argparse.ArgumentParser(prog="negtheory")
    add_bridge_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(
        [
            "bridge",
            "train",
            "--data",
            "synthetic",
            "--loss",
            "bcl",
            "--epochs",
            "1",
            "--device",
            "cpu",
            "--out",
            str(tmp_path),
            "--quiet",
        ]
    )
    assert args.func(args) == 0
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["config"]["loss"] == "bcl" and len(res["history"]) == 1
    assert (tmp_path / "probes.csv").exists()


def test_cli_bridge_train_subprocess_with_progress(tmp_path):
    # the command CI runs (through the bridge's own parser: negtheory.cli registers it)
    code = (
        "import argparse, sys\n"
        "from negtheory._cli_bridge import add_bridge_parser\n"
        "p = argparse.ArgumentParser(prog='negtheory'); add_bridge_parser(p.add_subparsers(dest='command', required=True))\n"
        "a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))\n"
    )
    res = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "bridge",
            "train",
            "--data",
            "synthetic",
            "--loss",
            "bcl",
            "--epochs",
            "1",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    assert "final" in res.stdout and (tmp_path / "results.json").exists()


def test_bad_configurations_raise():
    from negtheory.bridge.train import train

    with pytest.raises(ValueError, match="loss"):
        train(data="synthetic", loss="nope", epochs=1, progress=False)
    with pytest.raises(ValueError, match="data"):
        train(data="imagenet", loss="bpr", epochs=1, progress=False)
    with pytest.raises(
        ValueError, match="data"
    ):  # the toy harness reads no real data: train(data=Interactions) does
        train(data="movielens:u.data", loss="bpr", epochs=1, progress=False)
    with pytest.raises(ValueError, match="mlp"):
        train(data="digits", loss="bcl", model="tower", epochs=1, progress=False)
    with pytest.raises(TypeError, match="field"):
        train(epochz=1)
