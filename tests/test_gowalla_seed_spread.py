"""benchmarks/gowalla_seed_spread.py: the seed interval of a rung and single runs set beside it.

Checked against closed forms on synthetic curves: three seeds at x − 0.001, x, x + 0.001 have sample
standard deviation 0.001, so the 95 % t half-width is t_{0.975, 2} · 0.001 / √3, with the closed form of
Student's t with 2 degrees of freedom, F(t) = 1/2 + t / (2 √(2 + t²)), giving t_{0.975, 2} = √(2 · 0.95² / (1 − 0.95²))
= 4.3027; a ``beside`` run's column is its own value, and its gap the difference to the released value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


@pytest.fixture(scope="module")
def mod(load_script):
    return load_script("benchmarks/gowalla_seed_spread.py")


def _curves():
    rows = []
    for seed, shift in ((0, -0.001), (1, 0.0), (2, 0.001)):
        for e in (5, 10):
            rows.append(("a", "r", seed, e, 0.15 + 0.01 * e / 5 + shift))
    rows += [("b", "r-x", 0, 5, 0.17), ("b", "r-x", 0, 10, 0.18), ("b", "r-x", 0, 15, 0.19)]
    return pd.DataFrame(rows, columns=["run", "rung", "seed", "epoch", "test_recall20"])


def test_the_interval_is_the_t_interval_and_beside_runs_keep_their_values(mod):
    released = pd.DataFrame({"epoch": [5, 10, 15], "test_recall20": [0.161, 0.1705, 0.2]})
    df = mod.spread(_curves(), released, "r", [("a", 0), ("a", 1), ("a", 2)], [("b", "r-x", 0)])
    assert df.epoch.tolist() == [5, 10]  # epoch 15: only the beside run evaluated it
    np.testing.assert_allclose(df["mean"], [0.16, 0.17], rtol=1e-12)
    t = np.sqrt(2 * 0.95**2 / (1 - 0.95**2))
    np.testing.assert_allclose(df.half_width, t * 0.001 / np.sqrt(3), rtol=1e-9)
    np.testing.assert_allclose(df["r-x (seed 0)"], [0.17, 0.18])
    np.testing.assert_allclose(df.gap, [0.16 - 0.161, 0.17 - 0.1705], atol=1e-12)
    md = mod.markdown(df, "r")
    assert (
        "`-x` seed 0" in md
        and "| 5 | 0.1590 | 0.1600 | 0.1610 | 0.1600 [0.1575, 0.1625] | 0.1700 | 0.1610 | -0.0010 | +0.0090 |"
        in md
    )


def test_an_epoch_the_released_run_lacks_is_a_dash_not_nan(mod):
    # the released log stops at epoch 39, so a 40-epoch run's last row has no released value
    released = pd.DataFrame({"epoch": [5], "test_recall20": [0.161]})
    df = mod.spread(_curves(), released, "r", [("a", 0), ("a", 1), ("a", 2)], [("b", "r-x", 0)])
    assert np.isnan(df.released[1]) and np.isnan(df.gap[1])
    md = mod.markdown(df, "r")
    assert "nan" not in md
    assert "| 10 | 0.1690 | 0.1700 | 0.1710 | 0.1700 [0.1675, 0.1725] | 0.1800 | — | — | — |" in md
    assert (
        "| 5 | 0.1590 | 0.1600 | 0.1610 | 0.1600 [0.1575, 0.1625] | 0.1700 | 0.1610 | -0.0010 | +0.0090 |"
        in md
    )


def test_missing_curves_and_too_few_seeds_are_named(mod):
    released = pd.DataFrame({"epoch": [5], "test_recall20": [0.16]})
    with pytest.raises(ValueError, match="at least two seeds"):
        mod.spread(_curves(), released, "r", [("a", 0)])
    with pytest.raises(ValueError, match="runs: no curve"):
        mod.spread(_curves(), released, "r", [("a", 0), ("a", 7)])
    with pytest.raises(ValueError, match="beside: no curve"):
        mod.spread(_curves(), released, "r", [("a", 0), ("a", 1)], [("b", "nope", 0)])


def test_the_loss_column_is_compared_with_the_released_loss(mod):
    curves = _curves()
    curves["train_loss"] = (
        0.2 - curves.test_recall20
    )  # seeds at 0.2 - (x -/+ 0.001): the same spread, mirrored
    released = pd.DataFrame(
        {"epoch": [5, 10], "test_recall20": [0.161, 0.1705], "train_loss": [0.05, 0.03]}
    )
    df = mod.spread(
        curves,
        released,
        "r",
        [("a", 0), ("a", 1), ("a", 2)],
        [("b", "r-x", 0)],
        column="train_loss",
    )
    np.testing.assert_allclose(df["mean"], [0.04, 0.03], atol=1e-12)
    t = np.sqrt(2 * 0.95**2 / (1 - 0.95**2))
    np.testing.assert_allclose(df.half_width, t * 0.001 / np.sqrt(3), rtol=1e-9)
    np.testing.assert_allclose(df.gap, [0.04 - 0.05, 0.0], atol=1e-12)
    np.testing.assert_allclose(df["r-x (seed 0)"], [0.03, 0.02], atol=1e-12)
    assert mod.markdown(df, "r", "train_loss").startswith("Mean training loss per pair")
    with pytest.raises(ValueError, match="column: expected one of"):
        mod.spread(curves, released, "r", [("a", 0), ("a", 1)], column="valid_recall20")
