"""The sim-vs-train verdict rule: its constants are pinned, its logic checked on synthetic cells."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from negtheory.reproduce import sim_rule
from negtheory.reproduce.sim_rule import cell_verdicts, judge_cell, t_interval


def test_the_rule_constants_are_pinned():
    # changing any of these is a new rule: a new RULE_ID, a rerun of every committed table, both tallies
    assert sim_rule.RULE_ID == "sim-rule-1"
    assert sim_rule.BAND == 1.5
    assert sim_rule.LEVEL == 0.95
    assert sim_rule.MIN_SEEDS == 3
    assert sim_rule.TRAINED_AUC == 0.8
    assert sim_rule.ORACLE_GOAL == 1.1
    assert sim_rule.ORACLE_GOAL_LOOSE == 1.5
    assert sim_rule.MAX_AT_BOUND == 0.10


def test_t_interval_matches_scipy():
    v = np.array([0.3, -0.1, 0.2, 0.05, 0.4])
    m, lo, hi = t_interval(v, 0.99)
    ref = stats.t.interval(0.99, v.size - 1, loc=v.mean(), scale=stats.sem(v))
    assert m == pytest.approx(v.mean()) and (lo, hi) == pytest.approx(ref)
    assert all(math.isnan(x) for x in t_interval([1.0])[1:])
    with pytest.raises(ValueError, match="level"):
        t_interval(v, 1.0)


def _frame(values, est=("biased", "bcl")):
    v = np.asarray(values, dtype=float)
    return pd.DataFrame({e: v + 0.001 * k for k, e in enumerate(est)})


NEAR = [0.02, -0.01, 0.0, 0.01, -0.02, 0.015]
FAR_LOW = [-1.5, -1.6, -1.4, -1.55, -1.45, -1.5]


def test_confirmed_needs_oracle_and_model_in_band_and_blind_beaten():
    assert judge_cell(_frame(NEAR), _frame(NEAR), _frame(FAR_LOW))[0] == "confirmed"
    # blind as close as the model: not distinguishable
    assert judge_cell(_frame(NEAR), _frame(NEAR), _frame(NEAR))[0] == "undetermined"


def test_an_oracle_outside_the_band_means_the_simulator_is_off():
    v, reason, _ = judge_cell(_frame(NEAR), _frame(FAR_LOW), _frame(FAR_LOW))
    assert v == "simulator off" and "oracle" in reason


def test_refutations():
    # the model outside the band
    assert judge_cell(_frame(FAR_LOW), _frame(NEAR), _frame(FAR_LOW))[0] == "refuted"
    # the model inside the band but measurably further from 1 than the oracle
    off = [0.3, 0.32, 0.28, 0.31, 0.29, 0.3]
    v, reason, _ = judge_cell(_frame(off), _frame(NEAR), _frame(FAR_LOW))
    assert v == "refuted" and "further from 1 than the oracle" in reason
    # the blind control measurably closer
    v, reason, _ = judge_cell(_frame(off), _frame(off), _frame(NEAR))
    assert v == "refuted" and "blind" in reason


def test_one_estimator_decides_the_cell_and_intervals_are_simultaneous():
    cal = _frame(NEAR)
    cal["bcl"] = [0.3, 0.32, 0.28, 0.31, 0.29, 0.3]
    assert judge_cell(cal, _frame(NEAR), _frame(FAR_LOW))[0] == "refuted"
    # Bonferroni: with 5 estimators each interval is at level 0.99
    five = _frame(NEAR, est=("biased", "dcl", "hcl", "bcl", "bcl_norm"))
    _, _, iv = judge_cell(five, five, _frame(FAR_LOW, est=five.columns))
    assert iv["bcl"]["calibrated"][1:] == pytest.approx(t_interval(five["bcl"], 0.99)[1:])


def test_fewer_than_three_seeds_give_no_verdict():
    assert (
        judge_cell(_frame(NEAR[:2]), _frame(NEAR[:2]), _frame(FAR_LOW[:2]))[0]
        == "insufficient seeds"
    )
    with pytest.raises(ValueError, match="oracle"):
        judge_cell(_frame(NEAR), _frame(NEAR[:3]), _frame(FAR_LOW))


def test_cell_verdicts_on_a_tidy_table():
    rows = []
    g = np.random.default_rng(0)
    for seed in range(5):
        rows.append(
            dict(
                loss="rns",
                epoch=5,
                seed=seed,
                redraw=0,
                quantity="train_auc",
                estimator="",
                measured=0.85,
            )
        )
        for est in ("biased", "bcl"):
            for redraw in range(2):
                meas = 1.0 + 0.1 * g.random()
                rows.append(
                    dict(
                        loss="rns",
                        epoch=5,
                        seed=seed,
                        redraw=redraw,
                        quantity="mse",
                        estimator=est,
                        measured=meas,
                        simulated_calibrated=meas * math.exp(0.01 * g.normal()),
                        simulated_oracle=meas * math.exp(0.01 * g.normal()),
                        simulated_blind=meas * 0.2,
                    )
                )
    out = cell_verdicts(pd.DataFrame(rows))
    assert len(out) == 1
    r = out.iloc[0]
    assert r.verdict == "confirmed" and r.trained and r.n_seeds == 5
    assert r.blind_ratio == pytest.approx(0.2)
    assert r.oracle_low < 1 < r.oracle_high
    with pytest.raises(ValueError, match="quantity"):
        cell_verdicts(pd.DataFrame(rows), quantity="nope")
