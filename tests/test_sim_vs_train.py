"""`negtheory reproduce sim-vs-train` end to end on a small written split, the probe as a callback of
the one trainer, and the simulations of one probe point."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from toy_data import planted_split

from negtheory import calibration as cal
from negtheory.cli import main
from negtheory.recsys.score_probe import ScoreProbe
from negtheory.reproduce.sim_vs_train import (
    ESTIMATORS,
    ORACLE_VARIANTS,
    SOURCES,
    VARIANTS,
    oracle_ablation_table,
    simulate_point,
    summary,
    verdict_table,
)
from negtheory.training import Evaluation, fit

#: BPR-MF by batch-1 SGD with RNS (fit's defaults), evaluated every 2 epochs
EVERY2 = Evaluation(every=2, ks=(5,))


def _planted(n_users=40, n_items=60, seed=0):
    return planted_split(n_users, n_items, seed)


def test_probe_as_a_callback_leaves_training_unchanged_and_records_each_evaluation():
    d = _planted()
    plain = fit(d, epochs=4, evaluation=EVERY2, rng=3)
    probe = ScoreProbe(d, rng=0, n_anchors=64, fit_size=20)
    probed = fit(d, epochs=4, evaluation=EVERY2, rng=3, callbacks=[probe])
    np.testing.assert_array_equal(plain.user_emb, probed.user_emb)
    assert [r.epoch for r in probe.records] == [0, 2, 4]
    # the probe's summary is merged into the evaluated epochs' history rows
    assert probed.history[-1]["probe_alpha"] == probe.records[-1].measured["alpha"]
    # at initialisation (N(0, 0.1^2) embeddings) the probe sees no learned order: alpha near 1/2
    assert abs(probe.records[0].measured["alpha"] - 0.5) < 0.1


def test_snapshot_probe_defers_the_measurement_and_records_the_same_numbers():
    d = _planted(seed=2)
    live = ScoreProbe(d, rng=4, n_anchors=64, fit_size=20)
    snap = ScoreProbe(d, rng=4, n_anchors=64, fit_size=20, snapshot=True)
    r1 = fit(d, epochs=4, evaluation=EVERY2, rng=3, callbacks=[live])
    r2 = fit(d, epochs=4, evaluation=EVERY2, rng=3, callbacks=[snap])
    assert (
        "probe_alpha" in r1.history[-1] and "probe_alpha" not in r2.history[-1]
    )  # nothing measured in the loop
    assert len(snap._pending) == 3 and not snap._records
    # the same records, measured after training (but for the measurement's own cost)
    pd.testing.assert_frame_equal(
        live.frame().drop(columns="probe_seconds"), snap.frame().drop(columns="probe_seconds")
    )
    for a, b in zip(live.records, snap.records):
        np.testing.assert_array_equal(a.posterior, b.posterior)
    with pytest.raises(ValueError, match="snapshot"):
        ScoreProbe(d, snapshot="yes")


def test_simulate_point_returns_every_source_and_variant():
    d = _planted(seed=1).with_validation(0.2, rng=0)
    probe = ScoreProbe(d, rng=0, n_anchors=128, fit_size=30, redraws=2)
    fit(d, epochs=6, evaluation=Evaluation(every=6, ks=(5,)), rng=0, callbacks=[probe])
    main_, ab = simulate_point(probe.records[-1], reps=2, rng=0)
    assert set(main_) == set(SOURCES)
    assert set(ab) == set(VARIANTS) | set(ORACLE_VARIANTS)
    for src, per_fit in main_.items():
        assert len(per_fit) == 2, src  # one result per fit redraw
        for res in per_fit:
            assert set(res) == set(ESTIMATORS)
            assert all(math.isfinite(v["mse"]) and v["mse"] >= 0 for v in res.values())
    # the controls differ from the model in alpha only: blind is alpha = 1/2
    assert main_["blind"][0]["bcl"]["mse"] != main_["calibrated"][0]["bcl"]["mse"]
    # reproducible
    again, _ = simulate_point(probe.records[-1], reps=2, rng=0)
    assert again["calibrated"][1]["bcl"]["mse"] == main_["calibrated"][1]["bcl"]["mse"]


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
        sim = main_["oracle"][0][name]
        assert abs(sim["mse"] - meas) < 4 * math.hypot(se, sim["mse_se"]) + 0.05 * meas, name


def test_reproduce_sim_vs_train_end_to_end_and_resumes(tmp_path, capsys):
    pytest.importorskip("torch")
    d = _planted(n_users=30, n_items=50, seed=4)
    np.savetxt(tmp_path / "tr.csv", d.train, fmt="%d", delimiter=",")
    np.savetxt(tmp_path / "te.csv", d.test, fmt="%d", delimiter=",")
    out = tmp_path / "svt"
    argv = [
        "reproduce",
        "sim-vs-train",
        "--train",
        str(tmp_path / "tr.csv"),
        "--test",
        str(tmp_path / "te.csv"),
        "--losses",
        "rns",
        "infonce",
        "--seeds",
        "2",
        "--epochs",
        "2",
        "--probe-epochs",
        "1",
        "2",
        "--anchors",
        "64",
        "--fit-size",
        "20",
        "--redraws",
        "2",
        "--reps",
        "2",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    df = pd.read_csv(out / "sim_vs_train.csv", keep_default_na=False, na_values=[""])
    assert list(df.columns) == [
        "epoch",
        "seed",
        "redraw",
        "loss",
        "quantity",
        "estimator",
        "measured",
    ] + [f"simulated_{s}" for s in SOURCES]
    mse = df[df.quantity == "mse"]
    assert (
        set(mse.loss) == {"rns", "infonce"} and set(mse.seed) == {0, 1} and set(mse.epoch) == {1, 2}
    )
    assert set(mse.estimator) == set(ESTIMATORS) and set(mse.redraw) == {0, 1}
    assert {"mse", "trimmed_mse", "median_se", "top_share"} <= set(df.quantity)
    assert {
        "alpha",
        "alpha_hat",
        "alpha_valid_auc",
        "tau_plus",
        "tau_plus_hat",
        "train_auc",
        "k_star",
        "ks_prior",
    } <= set(df.quantity)
    written = [
        "sim_vs_train.csv",
        "ablations.csv",
        "posterior_calibration.csv",
        "score_laws.csv",
        "history.csv",
        "verdicts.csv",
        "sim_vs_train.md",
        "sim_vs_train.png",
    ]
    for name in written:
        assert (out / name).stat().st_size > 0, name
        assert name in printed.splitlines()[-1]  # the last line names every file written
    v = pd.read_csv(out / "verdicts.csv")
    # one verdict per (loss, epoch) cell; 2 seeds are fewer than the rule's minimum
    assert set(v.verdict) == {"insufficient seeds"} and len(v) == 2 * 2
    assert set(v.rule) == {"sim-rule-1"}
    md = (out / "sim_vs_train.md").read_text()
    assert "## Verdicts" in md and "**epochs 2**" in md and "sim-rule-1" in md
    oa = oracle_ablation_table(df, pd.read_csv(out / "ablations.csv"))
    assert oa.groupby(["loss", "epoch"]).size().eq(5).all() and (oa.low <= oa.ratio).all()
    text = summary([dict(label="toy split", folder="svt", oracle_goal=1.1)], root=tmp_path)
    assert "| toy split | 2 | 4 |" in text and "sim-rule-1" in text
    with pytest.raises(ValueError, match="oracle_goal"):
        summary([dict(label="toy split", folder="svt")], root=tmp_path)
    runs = sorted((out / "runs").glob("*.json"))
    assert len(runs) == 4
    stamps = [p.stat().st_mtime_ns for p in runs]
    assert main(argv) == 0  # resumes: every run is reused, same table
    assert [p.stat().st_mtime_ns for p in runs] == stamps
    pd.testing.assert_frame_equal(
        pd.read_csv(out / "sim_vs_train.csv", keep_default_na=False, na_values=[""]), df
    )


def test_reproduce_sim_vs_train_rejects_bad_inputs(tmp_path, capsys):
    assert (
        main(
            [
                "reproduce",
                "sim-vs-train",
                "--train",
                str(tmp_path / "no.csv"),
                "--test",
                str(tmp_path / "no.csv"),
                "--out",
                str(tmp_path / "o"),
            ]
        )
        != 0
    )
    assert "no.csv" in capsys.readouterr().err
    assert (
        main(["reproduce", "sim-vs-train", "--train", "a", "--test", "b", "--losses", "nope"]) == 2
    )
    assert "invalid choice" in capsys.readouterr().err


def test_calibration_estimator_list_is_the_reproduction_list():
    assert tuple(ESTIMATORS) == tuple(cal.ESTIMATORS)


def test_reproduce_sim_vs_train_data_option(tmp_path, capsys):
    d = _planted(n_users=30, n_items=50, seed=5)
    np.savetxt(tmp_path / "all.csv", np.vstack([d.train, d.test]), fmt="%d", delimiter=",")
    argv = [
        "reproduce",
        "sim-vs-train",
        "--data",
        str(tmp_path / "all.csv"),
        "--losses",
        "rns",
        "--seeds",
        "2",
        "--epochs",
        "1",
        "--probe-epochs",
        "1",
        "--anchors",
        "32",
        "--fit-size",
        "10",
        "--redraws",
        "1",
        "--reps",
        "1",
        "--out",
        str(tmp_path / "o"),
        "--quiet",
    ]
    assert main(argv) == 0
    assert "random 80%/20% split, seed 0" in (tmp_path / "o" / "sim_vs_train.md").read_text()
    assert (
        main(
            argv[:4]
            + ["--train", str(tmp_path / "all.csv"), "--test", str(tmp_path / "all.csv")]
            + argv[4:]
        )
        != 0
    )
    assert "--data" in capsys.readouterr().err


def _synthetic(cal_lr, blind_lr, oracle_lr, seeds=6, noise=0.02, seed=0):
    """A sim_vs_train table whose log ratios per seed are the given centres plus small noise."""
    g = np.random.default_rng(seed)
    rows = []
    for s in range(seeds):
        for r in range(2):
            meas = float(g.uniform(1, 10))
            row = dict(
                epoch=10, seed=s, redraw=r, loss="x", quantity="mse", estimator="bcl", measured=meas
            )
            for src, c in (
                ("calibrated", cal_lr),
                ("thesis_laws", cal_lr),
                ("blind", blind_lr),
                ("auc_recipe", 0.0),
                ("oracle", oracle_lr),
                ("parametric", -5.0),
            ):
                row[f"simulated_{src}"] = meas * math.exp(c + noise * g.normal())
            rows.append(row)
    return pd.DataFrame(rows)


def test_verdict_table_judges_cells_under_the_committed_rule():
    one = lambda df: verdict_table(df).iloc[0]  # noqa: E731
    r = one(_synthetic(0.05, 0.9, 0.05))
    assert r.verdict == "confirmed" and r.n_seeds == 6 and r.rule == "sim-rule-1"
    assert (
        abs(math.log(r.calibrated_ratio) - 0.05) < 0.03
        and r.calibrated_low < r.calibrated_ratio < r.calibrated_high
    )
    # outside the band
    assert one(_synthetic(0.8, 2.0, 0.8)).verdict in ("refuted", "simulator off")
    assert one(_synthetic(0.8, 2.0, 0.0)).verdict == "refuted"
    # inside the band but the blind control is closer to training
    assert "blind" in one(_synthetic(0.3, 0.0, 0.3)).reason
    # inside the band and better than blind, but measurably further from 1 than the oracle
    r = one(_synthetic(0.3, 0.9, 0.05))
    assert r.verdict == "refuted" and "oracle" in r.reason
    # the model closer than the oracle: no worse than it
    assert one(_synthetic(0.05, 0.9, 0.3)).verdict == "confirmed"
    # the oracle outside the band: the simulator, not the theory, misses
    assert one(_synthetic(0.05, 0.9, 0.6)).verdict == "simulator off"
    # noisy seeds: wide intervals cross the band's edge, so the cell cannot be confirmed
    r = one(_synthetic(0.35, 1.5, 0.35, noise=0.3, seed=2))
    assert r.verdict in ("undetermined", "simulator off") and r.calibrated_high > 1.5
    # fewer than three seeds: no verdict
    assert one(_synthetic(0.05, 0.9, 0.05, seeds=2)).verdict == "insufficient seeds"


def test_verdict_table_and_fit_tail_name_a_bad_parameter():
    df = _synthetic(0.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="quantity"):
        verdict_table(df, quantity="rel_mse")
    rows = np.sort(np.random.default_rng(0).exponential(size=(20, 50)), axis=1)
    with pytest.raises(ValueError, match="fraction"):
        cal.fit_tail(rows, np.full(20, 50), fraction=0.9)
    with pytest.raises(ValueError, match="k_min"):
        cal.fit_tail(rows, np.full(20, 50), k_min=1)
    with pytest.raises(ValueError, match="counts"):
        cal.fit_tail(rows, np.full(3, 50))


def test_the_committed_summary_is_rendered_from_the_committed_runs():
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "notebooks" / "data"
    studies = json.loads((root / "sim_vs_train_studies.json").read_text())
    assert (root / "sim_vs_train_summary.md").read_text() == summary(studies, root=root)
