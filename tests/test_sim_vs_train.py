"""`negtheory reproduce sim-vs-train` end to end on a small written split, the probe as a callback of
the one trainer, and the simulations of one probe point."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from negtheory import calibration as cal
from negtheory.cli import main
from negtheory.recsys import fit_bpr_sgd, split_interactions
from negtheory.recsys.score_probe import ScoreProbe
from negtheory.reproduce.sim_vs_train import ESTIMATORS, VARIANTS, simulate_point


def _planted(n_users=40, n_items=60, seed=0):
    """Users and items in 5 clusters; users interact mostly within their cluster (learnable)."""
    rng = np.random.default_rng(seed)
    cu, ci = rng.integers(0, 5, n_users), rng.integers(0, 5, n_items)
    p = np.where(cu[:, None] == ci[None, :], 0.5, 0.03)
    pairs = np.argwhere(rng.random((n_users, n_items)) < p)
    return split_interactions(pairs, 0.2, rng=seed)


def test_probe_as_a_callback_leaves_training_unchanged_and_records_each_evaluation():
    d = _planted()
    plain = fit_bpr_sgd(d, "rns", epochs=4, eval_every=2, topk=(5,), progress=False, rng=3)
    probe = ScoreProbe(d, rng=0, n_anchors=64, fit_size=20)
    probed = fit_bpr_sgd(d, "rns", epochs=4, eval_every=2, topk=(5,), progress=False, rng=3, callbacks=[probe])
    np.testing.assert_array_equal(plain["user_emb"], probed["user_emb"])
    assert [r.epoch for r in probe.records] == [0, 2, 4]
    # the probe's summary is merged into the evaluated epochs' history rows
    assert probed["history"][-1]["probe_alpha"] == probe.records[-1].measured["alpha"]
    # at initialisation (N(0, 0.1^2) embeddings) the probe sees no learned order: alpha near 1/2
    assert abs(probe.records[0].measured["alpha"] - 0.5) < 0.1


def test_snapshot_probe_defers_the_measurement_and_records_the_same_numbers():
    d = _planted(seed=2)
    live = ScoreProbe(d, rng=4, n_anchors=64, fit_size=20)
    snap = ScoreProbe(d, rng=4, n_anchors=64, fit_size=20, snapshot=True)
    r1 = fit_bpr_sgd(d, "rns", epochs=4, eval_every=2, topk=(5,), progress=False, rng=3, callbacks=[live])
    r2 = fit_bpr_sgd(d, "rns", epochs=4, eval_every=2, topk=(5,), progress=False, rng=3, callbacks=[snap])
    assert "probe_alpha" in r1["history"][-1] and "probe_alpha" not in r2["history"][-1]  # nothing measured in the loop
    assert len(snap._pending) == 3 and not snap._records
    pd.testing.assert_frame_equal(live.frame(), snap.frame())  # the same records, measured after training
    for a, b in zip(live.records, snap.records):
        np.testing.assert_array_equal(a.posterior, b.posterior)
    with pytest.raises(ValueError, match="snapshot"):
        ScoreProbe(d, snapshot="yes")


def test_simulate_point_returns_every_source_and_variant():
    d = _planted(seed=1)
    probe = ScoreProbe(d, rng=0, n_anchors=128, fit_size=30)
    fit_bpr_sgd(d, "rns", epochs=6, eval_every=6, topk=(5,), progress=False, rng=0, callbacks=[probe])
    main_, ab = simulate_point(probe.records[-1], reps=2, rng=0)
    assert set(main_) == {"parametric", "calibrated", "resampled"}
    assert set(ab) == set(VARIANTS)
    for src in main_.values():
        assert set(src) == set(ESTIMATORS)
        assert all(math.isfinite(v["mse"]) and v["mse"] >= 0 for v in src.values())
    # reproducible
    again, _ = simulate_point(probe.records[-1], reps=2, rng=0)
    assert again["calibrated"]["bcl"]["mse"] == main_["calibrated"]["bcl"]["mse"]


def test_resampled_simulation_matches_measured_errors_on_iid_scores():
    # scores that ARE i.i.d. per user given the class (no training): the bootstrap of the fit batches
    # must reproduce the errors measured on the disjoint eval batches, within Monte-Carlo error
    from negtheory.recsys import load_split
    from negtheory.recsys.score_probe import probe_scores

    g = np.random.default_rng(5)
    n_users, n_items = 80, 300
    train, test = [], []
    for u in range(n_users):
        items = g.permutation(n_items)
        train += [(u, i) for i in items[:40]]
        test += [(u, i) for i in items[40:70]]
    d = load_split(np.array(train), np.array(test))
    s = g.normal(size=(d.n_users, d.n_items)) * g.uniform(0.5, 1.5, (d.n_users, 1))
    s[d.test_mask()] += 1.5
    s[d.train_mask()] += 2.0
    rec = probe_scores(s, d, n_anchors=1600, fit_size=260, n_negatives=5, rng=0)
    main_, _ = simulate_point(rec, reps=8, rng=1)
    for name in ESTIMATORS:
        meas = rec.measured[f"mse_{name}"]
        se = rec.measured[f"mse_se_{name}"]
        sim = main_["resampled"][name]["mse"]
        assert abs(sim - meas) < 4 * math.hypot(se, main_["resampled"][name]["mse_se"]) + 0.05 * meas, name


def test_reproduce_sim_vs_train_end_to_end_and_resumes(tmp_path):
    pytest.importorskip("torch")
    d = _planted(n_users=30, n_items=50, seed=4)
    np.savetxt(tmp_path / "tr.csv", d.train, fmt="%d", delimiter=",")
    np.savetxt(tmp_path / "te.csv", d.test, fmt="%d", delimiter=",")
    out = tmp_path / "svt"
    argv = ["reproduce", "sim-vs-train", "--train", str(tmp_path / "tr.csv"), "--test", str(tmp_path / "te.csv"),
            "--losses", "rns", "infonce", "--seeds", "2", "--epochs", "2", "--probe-every", "1", "--anchors", "64",
            "--fit-size", "20", "--reps", "2", "--out", str(out), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    df = pd.read_csv(out / "sim_vs_train.csv", keep_default_na=False, na_values=[""])
    assert list(df.columns) == ["epoch", "seed", "loss", "quantity", "estimator", "measured", "simulated_parametric",
                                "simulated_calibrated", "simulated_resampled"]  # fmt: skip
    mse = df[df.quantity == "mse"]
    assert set(mse.loss) == {"rns", "infonce"} and set(mse.seed) == {0, 1} and set(mse.epoch) == {1, 2}
    assert set(mse.estimator) == set(ESTIMATORS)
    assert {"alpha", "tau_plus", "train_auc", "k_star", "ks_tn", "ks_fn", "ks_prior"} <= set(df.quantity)
    for name in ("ablations.csv", "posterior_calibration.csv", "score_laws.csv", "sim_vs_train.md", "sim_vs_train.png"):
        assert (out / name).stat().st_size > 0, name
    md = (out / "sim_vs_train.md").read_text()
    assert "## Verdicts" in md and "calibrated" in md
    runs = sorted((out / "runs").glob("*.json"))
    assert len(runs) == 4
    stamps = [p.stat().st_mtime_ns for p in runs]
    assert main(argv) == 0  # resumes: every run is reused, same table
    assert [p.stat().st_mtime_ns for p in runs] == stamps
    pd.testing.assert_frame_equal(pd.read_csv(out / "sim_vs_train.csv", keep_default_na=False, na_values=[""]), df)


def test_reproduce_sim_vs_train_rejects_bad_inputs(tmp_path, capsys):
    assert main(["reproduce", "sim-vs-train", "--train", str(tmp_path / "no.csv"), "--test", str(tmp_path / "no.csv"),
                 "--out", str(tmp_path / "o")]) != 0  # fmt: skip
    assert "no.csv" in capsys.readouterr().err
    assert main(["reproduce", "sim-vs-train", "--train", "a", "--test", "b", "--losses", "nope"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_calibration_estimator_list_is_the_reproduction_list():
    assert tuple(ESTIMATORS) == tuple(cal.ESTIMATORS)
