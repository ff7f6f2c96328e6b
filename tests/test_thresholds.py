"""Tests of negtheory.thresholds (seed 002).

Independent references: the printed counts of Tables I-II (the synthetic scores are built
from *differences* of table entries, so matching every column checks the reading of the
tables), the seed's chosen thresholds (0.335, 0.121), a per-sample Python loop for the
category rule, and the order-statistic optimality of the chosen thresholds (moving either one
to the neighbouring score breaks its target).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from negtheory import thresholds as th


@pytest.fixture(scope="module")
def paper_scores():
    return th.paper_table_scores(rng=2024)


def test_paper_tables_are_reproduced_column_by_column(paper_scores):
    scores, labels = paper_scores
    for key, grid_col in (("table1", "upper"), ("table2", "lower")):
        tab = th.PAPER_TABLES[key]
        df = th.threshold_table(scores, tab["upper"], tab["lower"], labels)
        for col in ("positive", "false", "hard", "simple"):
            assert df[col].tolist() == list(tab[col]), (key, col)
        assert df[grid_col].tolist() == list(tab[grid_col])


def test_choose_thresholds_picks_the_seeds_values_on_the_table_grids(paper_scores):
    scores, labels = paper_scores
    t1, t2 = th.PAPER_TABLES["table1"], th.PAPER_TABLES["table2"]
    got = th.choose_thresholds(
        scores, 0.001, 0.05, labels, upper_grid=t1["upper"], lower_grid=t2["lower"]
    )
    assert got == th.PAPER_TABLES["chosen"] == (0.335, 0.121)
    # fractions over the negatives only would not give the seed's choice (module notes)
    alt = th.choose_thresholds(
        scores,
        0.001,
        0.05,
        labels,
        upper_grid=t1["upper"],
        lower_grid=t2["lower"],
        denominator="negatives",
    )
    assert alt == (0.34, 0.122)


def test_categorize_matches_a_python_loop():
    rng = np.random.default_rng(0)
    s = np.round(rng.normal(0.1, 0.2, 500), 2)  # rounding creates ties on the thresholds
    lab = rng.random(500) < 0.05
    upper, lower = 0.3, 0.05
    want = []
    for x, pos in zip(s, lab):
        if pos:
            want.append(th.POSITIVE)
        elif x > upper:
            want.append(th.FALSE)
        elif x > lower:
            want.append(th.HARD)
        else:
            want.append(th.SIMPLE)
    np.testing.assert_array_equal(th.categorize(s, upper, lower, lab), want)
    c = th.category_counts(s, upper, lower, lab)
    assert sum(c.values()) == 500 and c["positive"] == lab.sum()


@pytest.mark.parametrize(
    "n, ff, hf", [(100_000, 0.001, 0.05), (12_345, 0.003, 0.1), (1000, 0.0, 0.5)]
)
def test_choose_thresholds_hits_exact_counts_and_is_optimal(n, ff, hf):
    rng = np.random.default_rng(n)
    s = rng.normal(size=n)
    lab = rng.random(n) < 0.02
    up, lo = th.choose_thresholds(s, ff, hf, lab)
    c = th.category_counts(s, up, lo, lab)
    m, h = math.floor(ff * n), math.ceil(hf * n)
    assert c["false"] == m and c["hard"] == h
    neg = np.sort(s[~lab])
    # upper is the smallest threshold with <= m false: the next smaller negative score gives m + 1
    below_up = neg[neg < up]
    assert th.category_counts(s, below_up[-1], min(lo, below_up[-1]), lab)["false"] == m + 1
    # lower is as large as possible: the next larger negative score gives fewer than h hard
    above_lo = neg[neg > lo]
    assert th.category_counts(s, up, above_lo[0], lab)["hard"] == h - 1


def test_choose_thresholds_with_ties_keeps_the_one_sided_targets():
    s = np.repeat(np.arange(100.0), 10)  # every value 10 times: exact counts are impossible
    up, lo = th.choose_thresholds(s, 0.015, 0.05)
    c = th.category_counts(s, up, lo)
    assert c["false"] <= 15 and c["hard"] >= 50
    assert (c["false"], c["hard"]) == (10, 50)


def test_choose_thresholds_can_return_minus_inf_lower():
    s = np.arange(10.0)
    up, lo = th.choose_thresholds(s, 0.0, 0.9)
    assert up == 9.0 and lo == 0.0
    up, lo = th.choose_thresholds(np.ones(10), 0.0, 0.5)
    assert up == 1.0 and lo == -np.inf  # all ties at the top: every negative is 'hard'


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="lower must not exceed upper"):
        th.categorize([0.1], 0.1, 0.2)
    with pytest.raises(ValueError, match="labels"):
        th.categorize([0.1, 0.2], 0.3, 0.0, labels=[True])
    with pytest.raises(ValueError, match="NaN"):
        th.categorize([0.1, np.nan], 0.3, 0.0)
    with pytest.raises(ValueError, match="hard_frac"):
        th.choose_thresholds([0.1, 0.2], 0.001, 0.0)
    with pytest.raises(ValueError, match="false_frac"):
        th.choose_thresholds([0.1, 0.2], 1.5, 0.1)
    with pytest.raises(ValueError, match="not enough negatives"):
        th.choose_thresholds(np.arange(10.0), 0.5, 0.6)
    with pytest.raises(ValueError, match="no negatives"):
        th.choose_thresholds([0.1, 0.2], labels=[True, True])
    with pytest.raises(ValueError, match="upper_grid"):
        th.choose_thresholds(np.arange(1000.0), 0.001, 0.05, upper_grid=[1.0, 2.0])
    with pytest.raises(ValueError, match="lower_grid"):
        th.choose_thresholds(np.arange(1000.0), 0.001, 0.05, lower_grid=[990.0])
    with pytest.raises(ValueError, match="denominator"):
        th.choose_thresholds(np.arange(10.0), denominator="some")
