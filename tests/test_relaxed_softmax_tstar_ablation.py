"""Tests of the T* ablation of ``negtheory reproduce relaxed-softmax --t-star-ablation`` and of its
``--experiments`` / ``--steps`` / ``--temperatures`` / ``--degeneracies`` options (issue 22, item 7).

Independent reference: the argmins and the paired gaps are recomputed with plain numpy loops over a
random table; the training sizes of the catalogue factor are checked against the paper's 300 000
pairs on 1000 x 1000 cells. Every run is tiny (a few optimiser steps on 6-16 items).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")

from negtheory.reproduce import relaxed_softmax as R  # noqa: E402

BASE = dict(n_items=6, n_pairs=36, batch_size=16, steps=3, dim=2, n_negatives=2)
COLUMNS = ["factor", "value", "degeneracy", "temperature", "seed", "kl_joint"]


def test_ablation_table_shape_and_the_base_point_is_shared():
    levels = {"n_items": [6, 8], "dim": [2, 4], "n_negatives": [2, 3]}
    df = R.run_t_star_ablation(
        levels,
        BASE,
        degeneracies=("inverse", "uniform"),
        temperatures=(2.0, 0.5),
        seeds=(0, 1),
        device="cpu",
    )
    assert list(df.columns) == COLUMNS
    assert len(df) == 3 * 2 * 2 * 2 * 2
    assert sorted(df.temperature.unique()) == [0.5, 2.0] and set(df.seed) == {0, 1}
    assert (df.kl_joint > 0).all() and np.isfinite(df.kl_joint).all()
    # the default point (6 items, d = 2, n = 2) is trained once and repeated under each factor
    key = ["degeneracy", "temperature", "seed"]
    a = df[(df.factor == "n_items") & (df.value == 6)].sort_values(key).kl_joint.to_numpy()
    b = df[(df.factor == "dim") & (df.value == 2)].sort_values(key).kl_joint.to_numpy()
    c = df[(df.factor == "n_negatives") & (df.value == 2)].sort_values(key).kl_joint.to_numpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    # another level is another training
    assert not np.array_equal(
        a, df[(df.factor == "dim") & (df.value == 4)].sort_values(key).kl_joint.to_numpy()
    )


def test_catalogue_factor_keeps_the_pairs_per_cell():
    base = R.ablation_base(R.PRESETS["default"])
    assert base == dict(n_items=100, n_pairs=3000, batch_size=256, steps=500, dim=32, n_negatives=5)
    # the paper: 300 000 pairs on card(I) = card(J) = 1000
    assert R.ablation_config(base, "n_items", 1000)["n_pairs"] == 300_000
    assert R.ablation_config(base, "n_items", 300)["n_pairs"] == 27_000
    cfg = R.ablation_config(base, "dim", 128)
    assert cfg["dim"] == 128 and cfg["n_pairs"] == 3000 and base["dim"] == 32


def _random_table(rng, temps, seeds):
    rows = []
    for factor, value in (("dim", 8), ("dim", 32), ("n_negatives", 1)):
        for deg in ("inverse", "uniform"):
            for s in seeds:
                for t in temps:
                    rows.append(
                        dict(
                            factor=factor,
                            value=value,
                            degeneracy=deg,
                            temperature=t,
                            seed=s,
                            kl_joint=rng.random(),
                        )
                    )
    return pd.DataFrame(rows, columns=COLUMNS)


def test_summary_argmin_matches_a_direct_numpy_computation():
    rng = np.random.default_rng(3)
    temps, seeds = [0.1, 0.3, 0.75, 2.0, 3.0], [0, 1, 2, 3]
    df = _random_table(rng, temps, seeds).sample(
        frac=1.0, random_state=1
    )  # row order must not matter
    summ = R.t_star_ablation_summary(df)
    assert len(summ) == 6
    for r in summ.itertuples():
        d = df[(df.factor == r.factor) & (df.value == r.value) & (df.degeneracy == r.degeneracy)]
        kl = np.empty((len(seeds), len(temps)))
        for a, s in enumerate(seeds):
            for b, t in enumerate(temps):
                kl[a, b] = d[(d.seed == s) & (d.temperature == t)].kl_joint.iloc[0]
        mean_curve = kl.sum(axis=0) / len(seeds)
        k = int(np.argmin(mean_curve))
        assert r.t_star == temps[k]
        per_seed = [temps[int(np.argmin(kl[a]))] for a in range(len(seeds))]
        assert r.per_seed == ", ".join(f"{t:g}" for t in per_seed)
        assert r.t_star_seed_mean == pytest.approx(np.mean(per_seed))
        assert (r.t_star_seed_min, r.t_star_seed_max) == (min(per_seed), max(per_seed))
        assert r.kl_star == pytest.approx(mean_curve[k])
        gap = kl[:, temps.index(0.75)] - kl[:, k]
        assert r.gap_ref == pytest.approx(gap.mean()) and r.gap_ref >= -1e-12
        assert r.kl_ref == pytest.approx(kl[:, temps.index(0.75)].mean())
    # a reference off the grid gives NaN, not an error
    assert R.t_star_ablation_summary(df, reference=0.5).kl_ref.isna().all()


def test_summary_finds_a_planted_optimum():
    temps = [0.05, 0.2, 0.75, 3.0]
    rows = [
        dict(
            factor="dim",
            value=8,
            degeneracy="inverse",
            temperature=t,
            seed=s,
            kl_joint=(np.log(t / 0.75)) ** 2 + 0.01 * s,
        )
        for s in range(3)
        for t in temps
    ]
    summ = R.t_star_ablation_summary(pd.DataFrame(rows))
    assert summ.t_star.iloc[0] == 0.75 and summ.per_seed.iloc[0] == "0.75, 0.75, 0.75"
    assert summ.gap_ref.iloc[0] == pytest.approx(0.0) and summ.t_star_seed_ci.iloc[
        0
    ] == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(levels={"width": [2]}), "levels"),
        (dict(levels={"dim": []}), "levels"),
        (dict(levels={}), "levels"),
        (dict(levels={"dim": [0]}), "levels"),
        (dict(base={"n_items": 6}), "base"),
        (dict(base=dict(BASE, steps=0)), "base"),
        (dict(temperatures=(-1.0,)), "temperatures"),
        (dict(temperatures=(float("inf"),)), "temperatures"),
        (dict(temperatures=()), "temperatures"),
        (dict(degeneracies=("gaussian",)), "degeneracies"),
        (dict(seeds=()), "seeds"),
        (dict(n_components=0), "n_components"),
    ],
)
def test_ablation_bad_inputs_name_the_parameter(kwargs, name):
    args = dict(levels={"dim": [2]}, base=BASE, temperatures=(1.0,), seeds=(0,), device="cpu")
    args.update(kwargs)
    levels, base = args.pop("levels"), args.pop("base")
    with pytest.raises(ValueError, match=name):
        R.run_t_star_ablation(levels, base, **args)


def test_summary_bad_inputs_name_the_parameter():
    df = _random_table(np.random.default_rng(0), [0.5, 1.0], [0, 1])
    with pytest.raises(ValueError, match="reference"):
        R.t_star_ablation_summary(df, reference=0.0)
    with pytest.raises(ValueError, match="df"):
        R.t_star_ablation_summary(df.drop(columns="seed"))
    with pytest.raises(ValueError, match="df"):
        R.t_star_ablation_summary(df.iloc[1:])  # one (seed, temperature) missing
    with pytest.raises(ValueError, match="factor"):
        R.ablation_config(BASE, "width", 3)


def test_cli_t_star_ablation_writes_csv_summary_and_figure(tmp_path):
    from negtheory.cli import main

    out = tmp_path / "abl"
    rc = main(
        [
            "reproduce",
            "relaxed-softmax",
            "--quick",
            "--t-star-ablation",
            "--seeds",
            "2",
            "--steps",
            "2",
        ]
        + [
            "--temperatures",
            "2",
            "0.5",
            "--ablation-factors",
            "dim",
            "n_negatives",
            "--ablation-dims",
            "8",
            "4",
        ]
        + ["--out", str(out), "--quiet"]
    )
    assert rc == 0
    df = pd.read_csv(out / "relaxed_softmax_tstar_ablation.csv")
    assert list(df.columns) == COLUMNS
    negatives = R.PRESETS["quick"]["ablation_negatives"]
    assert set(df.factor) == {"dim", "n_negatives"}
    assert sorted(df[df.factor == "dim"].value.unique()) == [4, 8]
    assert sorted(df[df.factor == "n_negatives"].value.unique()) == sorted(negatives)
    assert len(df) == (2 + len(negatives)) * 1 * 2 * 2 and set(df.degeneracy) == {
        "inverse"
    }  # default: D = 1/P only
    text = (out / "relaxed_softmax_tstar_ablation.md").read_text()
    assert "QUICK" in text and "| embedding size d |" in text
    assert (out / "relaxed_softmax_tstar_ablation.png").stat().st_size > 10_000


def test_cli_experiments_fig2_only_and_option_checks(tmp_path, capsys):
    from negtheory.cli import main

    out = tmp_path / "fig2"
    rc = main(
        [
            "reproduce",
            "relaxed-softmax",
            "--quick",
            "--experiments",
            "fig2",
            "--seeds",
            "1",
            "--steps",
            "2",
        ]
        + ["--temperatures", "1", "0.3", "--degeneracies", "uniform", "--out", str(out), "--quiet"]
    )
    assert rc == 0
    assert sorted(f.name for f in out.iterdir()) == [
        "relaxed_softmax_fig2_temperature.png",
        "relaxed_softmax_summary.md",
        "relaxed_softmax_temperature.csv",
    ]
    temp = pd.read_csv(out / "relaxed_softmax_temperature.csv")
    assert (
        len(temp) == 2
        and set(temp.degeneracy) == {"uniform"}
        and sorted(temp.temperature) == [0.3, 1.0]
    )
    summary = (out / "relaxed_softmax_summary.md").read_text()
    assert "2 steps" in summary and "Fig. 5" not in summary and "Fig. 3 / 4" not in summary
    capsys.readouterr()
    assert (
        main(
            [
                "reproduce",
                "relaxed-softmax",
                "--quick",
                "--t-star-ablation",
                "--experiments",
                "fig2",
                "--out",
                str(out),
            ]
        )
        != 0
    )
    assert "--experiments" in capsys.readouterr().err
    # a temperature must be > 0: refused before any work, the option named
    assert (
        main(["reproduce", "relaxed-softmax", "--quick", "--temperatures", "0", "--out", str(out)])
        != 0
    )
    assert "--temperatures" in capsys.readouterr().err
