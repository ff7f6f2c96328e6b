"""Readers of the thesis's other data sets: MovieLens-1M, Yahoo!-R3 and the LightGCN release (issue 22, item 5)."""

from __future__ import annotations

import numpy as np
import pytest

from negtheory.recsys import load_movielens_dir, load_split, read_interactions, split_interactions
from negtheory.recsys.interactions import FORMATS
from negtheory.reproduce.thesis_numbers import (
    DATASETS,
    TABLES_BY_DATASET,
    THESIS,
    THESIS_BY_DATASET,
    thesis_value,
)


def _write(path, text):
    path.write_text(text)
    return path


# ------------------------------------------------------------------------------------------
# MovieLens-1M ratings.dat
# ------------------------------------------------------------------------------------------
ML1M = "1::1193::5::978300760\n1::661::3::978302109\n2::1193::1::978298413\n\n3::48::4::978301968\n"


def test_movielens_1m_ids_ratings_and_no_threshold(tmp_path):
    p = _write(tmp_path / "ratings.dat", ML1M)
    for fmt in ("auto", "movielens-1m"):
        df = read_interactions(p, format=fmt)
        assert df.values.tolist() == [
            ["1", "1193", 5.0],
            ["1", "661", 3.0],
            ["2", "1193", 1.0],
            ["3", "48", 4.0],
        ]
    # the thesis (§4.5.1.1) keeps every rating as an implicit positive: a 1-star rating is a positive
    d = split_interactions(p, 0.0, rng=0)
    assert len(d.train) == 4 and d.n_users == 3 and d.n_items == 3
    assert d.item_ids.tolist() == ["48", "661", "1193"]  # numeric ids in numeric order
    # min_rating is the opt-in threshold
    assert read_interactions(p, min_rating=4).rating.tolist() == [5.0, 4.0]
    # a folder holding ratings.dat is a data folder
    assert read_interactions(tmp_path).values.tolist() == read_interactions(p).values.tolist()


def test_movielens_1m_folder_is_split_80_20(tmp_path):
    lines = "".join(f"{u}::{i}::{1 + (u * i) % 5}::0\n" for u in range(1, 11) for i in range(1, 11))
    _write(tmp_path / "ratings.dat", lines)
    d = load_movielens_dir(tmp_path, 0.2, rng=3)
    assert (len(d.train), len(d.test)) == (80, 20)
    assert d.n_users == 10 and d.n_items == 10


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ("4::10::5\n", "UserID::MovieID::Rating::Timestamp"),  # a missing field
        ("4::10::5::0::7\n", "UserID::MovieID::Rating::Timestamp"),  # one too many
        ("x::10::5::0\n", "UserID::MovieID::Rating::Timestamp"),  # a user id that is not an integer
        ("4::10::five::0\n", "rating must be a finite number"),
        ("4::10::nan::0\n", "rating must be a finite number"),
    ],
)
def test_movielens_1m_malformed_line_names_file_and_line(tmp_path, line, what):
    p = _write(tmp_path / "ratings.dat", "1::1::5::0\n2::1::4::0\n\n" + line)
    with pytest.raises(ValueError, match=rf"ratings\.dat, line 4: .*{what}"):
        read_interactions(p)
    with pytest.raises(ValueError, match=r"ratings\.dat, line 4"):
        load_split(p, p, format="movielens-1m")


# ------------------------------------------------------------------------------------------
# Yahoo!-R3
# ------------------------------------------------------------------------------------------
def test_yahoo_r3_train_test_consistent_ids(tmp_path):
    tr = _write(
        tmp_path / "ydata-ymusic-rating-study-v1-u-train.txt",
        "1 14 5\n1 35 1\n2 14 3\n2  46   4\n10 1 2\n",
    )
    te = _write(
        tmp_path / "ydata-ymusic-rating-study-v1-u-test.txt", "1 46 5\n2 35 1\n3 14 4\n3 1 2\n"
    )
    assert read_interactions(tr).values.tolist() == [
        ["1", "14", 5.0],
        ["1", "35", 1.0],
        ["2", "14", 3.0],
        ["2", "46", 4.0],
        ["10", "1", 2.0],
    ]
    d = load_split(tr, te)
    assert d.user_ids.tolist() == ["1", "2", "3", "10"]
    assert d.item_ids.tolist() == ["1", "14", "35", "46"]
    uid = {u: k for k, u in enumerate(d.user_ids)}
    iid = {i: k for k, i in enumerate(d.item_ids)}
    # the same raw id is the same index in train and test
    assert [uid["1"], iid["46"]] in d.test.tolist() and [uid["2"], iid["46"]] in d.train.tolist()
    assert [uid["3"], iid["14"]] in d.test.tolist() and [uid["1"], iid["14"]] in d.train.tolist()
    assert len(d.train) == 5 and len(d.test) == 4  # every rating, 1 to 5 stars, is a positive
    # a tab-separated release reads the same
    tr_tab = _write(
        tmp_path / "tab.txt",
        tr.read_text().replace(" ", "\t").replace("\t\t", "\t").replace("\t\t", "\t"),
    )
    assert read_interactions(tr_tab).values.tolist() == read_interactions(tr).values.tolist()
    # a folder with both files: pooled and split 80/20 (the thesis re-splits, §4.5.1.1)
    pooled = load_movielens_dir(tmp_path, 0.0, rng=0)
    assert len(pooled.train) == 9 and pooled.n_users == 4


def test_yahoo_r3_malformed_line(tmp_path):
    p = _write(tmp_path / "y.txt", "1 14 5\n1 35 1\n2 14\n")
    with pytest.raises(ValueError, match=r"y\.txt, line 3: expected user item rating"):
        read_interactions(p, format="yahoo-r3")
    with pytest.raises(ValueError, match=r"y\.txt, line 2: rating must be a finite number"):
        read_interactions(_write(tmp_path / "y.txt", "1 14 5\n1 35 inf\n"), format="yahoo-r3")


# ------------------------------------------------------------------------------------------
# LightGCN train.txt / test.txt
# ------------------------------------------------------------------------------------------
def test_lightgcn_train_test(tmp_path):
    tr = _write(tmp_path / "train.txt", "0 0 1 2 3\n1 2 4\n2 0 5 6 1 3\n3 6\n")
    te = _write(
        tmp_path / "test.txt", "0 4 5\n1 0 2\n2 2\n3\n"
    )  # user 1's item 2 is in train too; user 3: no item
    df = read_interactions(tr)
    assert df.user.tolist() == ["0"] * 4 + ["1"] * 2 + ["2"] * 5 + ["3"]
    assert df.item.tolist() == ["0", "1", "2", "3", "2", "4", "0", "5", "6", "1", "3", "6"]
    assert (df.rating == 1.0).all()
    d = load_split(tr, te)
    # the release's 0-based contiguous ids keep their values
    assert d.user_ids.tolist() == ["0", "1", "2", "3"] and d.item_ids.tolist() == [
        str(i) for i in range(7)
    ]
    assert sorted(d.test.tolist()) == [[0, 4], [0, 5], [1, 0], [2, 2]]  # (1, 2) stays in train only
    assert len(d.train) == 12
    # a folder holding train.txt and test.txt is pooled and split again
    pooled = load_movielens_dir(tmp_path, 0.25, rng=1)
    assert len(pooled.train) + len(pooled.test) == 16


def test_lightgcn_malformed_line_and_ambiguity(tmp_path):
    p = _write(tmp_path / "train.txt", "0 1 2 3\n1 2 x\n")
    with pytest.raises(
        ValueError, match=r"train\.txt, line 2: expected a user id followed by its item ids"
    ):
        read_interactions(p)
    # three numbers a line and no repeated user: Yahoo!-R3 or LightGCN? the reader asks
    q = _write(tmp_path / "both.txt", "0 1 2\n1 2 3\n")
    with pytest.raises(ValueError, match="format='yahoo-r3' or format='lightgcn'"):
        read_interactions(q)
    assert len(read_interactions(q, format="lightgcn")) == 4
    assert read_interactions(q, format="yahoo-r3").rating.tolist() == [2.0, 3.0]


# ------------------------------------------------------------------------------------------
# the format parameter and the CSV path
# ------------------------------------------------------------------------------------------
def test_format_parameter(tmp_path):
    assert FORMATS == ("auto", "csv", "movielens-1m", "yahoo-r3", "lightgcn")
    p = _write(tmp_path / "a.csv", "user,item,rating\n1,2,5\n")
    for bad in ("movielens", "", None):
        with pytest.raises(ValueError, match="format must be one of"):
            read_interactions(p, format=bad)
        with pytest.raises(ValueError, match="format must be one of"):
            load_split(p, p, format=bad)
    assert read_interactions(p, format="csv").values.tolist() == [["1", "2", 5.0]]
    # a u.data read as MovieLens-1M is a malformed line 1, not silent garbage
    u = _write(tmp_path / "u.data", "1\t10\t5\t0\n")
    with pytest.raises(ValueError, match=r"u\.data, line 1: expected UserID::MovieID"):
        read_interactions(u, format="movielens-1m")
    # the CSV reader's tokenizer errors name the file
    c = _write(tmp_path / "b.csv", "1,2,5\n1,3,4\n1,4,4,9,9\n")
    with pytest.raises(ValueError, match=r"b\.csv: .*line 3"):
        read_interactions(c)


# ------------------------------------------------------------------------------------------
# the printed rows of the other data sets
# ------------------------------------------------------------------------------------------
def test_thesis_rows_per_dataset_are_consistent():
    assert DATASETS == tuple(THESIS_BY_DATASET) and THESIS_BY_DATASET["ml-100k"] is THESIS
    rows = {
        "4.2": ("RNS", "PNS", "AOBPR", "DNS", "SRNS", "BNS"),
        "5.2": ("BPR", "InfoNCE", "DCL", "HCL", "DPL"),
        "6.3": ("InfoNCE", "DCL", "HCL", "BCL"),
    }
    keys = {(m, k) for m in ("precision", "recall", "ndcg") for k in (5, 10, 20)}
    for ds in DATASETS:
        table = THESIS_BY_DATASET[ds]
        for t, methods in rows.items():
            if t not in TABLES_BY_DATASET[ds]:  # Yelp2018 and Gowalla print Tables 5.2 and 6.3 only
                continue
            setting = "BPR-MF SGD" if t == "4.2" else "MF"
            for m in methods:
                row = table[(t, m, setting)]
                assert set(row) == keys and all(0 < v < 1 for v in row.values()), (ds, t, m)
        # Table 6.3 repeats Table 5.2's InfoNCE, DCL and HCL rows on every data set
        for m in ("InfoNCE", "DCL", "HCL"):
            assert table[("5.2", m, "MF")] == table[("6.3", m, "MF")], (ds, m)
        # the proposed method of each table is the printed best at NDCG@10 (the thesis's bold cells)
        for t, best in (("4.2", "BNS"), ("5.2", "DPL"), ("6.3", "BCL")):
            if t not in TABLES_BY_DATASET[ds]:
                continue
            setting = "BPR-MF SGD" if t == "4.2" else "MF"
            ndcg = {m: table[(t, m, setting)][("ndcg", 10)] for m in rows[t]}
            assert max(ndcg, key=ndcg.get) == best, (ds, t, ndcg)
        # precision falls and recall grows with k
        for row in table.values():
            assert row[("precision", 5)] >= row[("precision", 10)] >= row[("precision", 20)]
            assert row[("recall", 5)] <= row[("recall", 10)] <= row[("recall", 20)]
    ml1m, yahoo = THESIS_BY_DATASET["ml-1m"], THESIS_BY_DATASET["yahoo-r3"]
    # MovieLens-1M: Table 5.2's BPR row repeats Table 4.2's RNS row (and Table 5.3 prints both)
    assert ml1m[("5.2", "BPR", "MF")] == ml1m[("4.2", "RNS", "BPR-MF SGD")]
    # spot checks against the thesis text (Table 4.2 / 5.2 / 6.3, third and fifth blocks)
    assert ml1m[("4.2", "BNS", "BPR-MF SGD")][("ndcg", 10)] == 0.4191
    assert ml1m[("5.2", "DPL", "MF")][("precision", 5)] == 0.4212
    assert ml1m[("6.3", "BCL", "MF")][("ndcg", 20)] == 0.3920
    assert yahoo[("4.2", "RNS", "BPR-MF SGD")][("precision", 5)] == 0.1196
    assert yahoo[("5.2", "BPR", "MF")][("recall", 20)] == 0.2259
    assert yahoo[("6.3", "BCL", "MF")][("ndcg", 10)] == 0.1736
    # Yahoo!-R3's test sets are small (Table 4.1: 36k pairs for 5,400 users): recall >> precision at 20
    assert (
        yahoo[("4.2", "RNS", "BPR-MF SGD")][("recall", 20)]
        > 2 * yahoo[("4.2", "RNS", "BPR-MF SGD")][("precision", 20)]
    )
    assert thesis_value(
        "4.5", "BNS-oracle", "|M_u|=5", "ndcg", 10, dataset="ml-1m"
    ) != thesis_value("4.5", "BNS-oracle", "|M_u|=5", "ndcg", 10)
    assert np.isnan(thesis_value("4.5", "BNS-oracle", "|M_u|=5", "ndcg", 10, dataset="ml-1m"))
    # Gowalla prints Tables 5.2 / 6.3 only (Table 5.2's ninth block, MF DPL NDCG@20 0.1340)
    assert np.isnan(thesis_value("4.2", "RNS", "BPR-MF SGD", "ndcg", 10, dataset="gowalla"))
    assert thesis_value("5.2", "DPL", "MF", "ndcg", 20, dataset="gowalla") == 0.1340
    with pytest.raises(ValueError, match="dataset must be one of"):
        thesis_value("4.2", "RNS", "BPR-MF SGD", "ndcg", 10, dataset="netflix")


def test_fast_and_line_parsers_agree(tmp_path):
    from negtheory.recsys.interactions import _parse_fast, _parse_lines

    for fmt, text in (
        ("movielens-1m", ML1M),
        ("yahoo-r3", " 1 14 5\n1\t35  1.5\n\n2 14 3\n"),
    ):
        fast = _parse_fast(text, fmt)
        slow = _parse_lines(tmp_path / "f", text.splitlines(), fmt)
        assert fast is not None
        assert (list(fast[0]), list(fast[1]), list(fast[2])) == (slow[0], slow[1], slow[2])
    # an off line sends the file to the line parser, which names it
    assert _parse_fast("1::2::3::4\n1::2::3\n", "movielens-1m") is None
    assert _parse_fast('"1" 2 3\n', "yahoo-r3") is None


def test_cli_data_dir_and_format(tmp_path, capsys):
    pytest.importorskip("torch")  # the bridge command group needs the torch extra
    from negtheory.cli import main

    rng = np.random.default_rng(0)
    lines = "".join(
        f"{u}::{i}::{rng.integers(1, 6)}::0\n"
        for u in range(1, 16)
        for i in range(1, 21)
        if rng.random() < 0.4
    )
    _write(tmp_path / "ratings.dat", lines)
    argv = [
        "bridge",
        "train",
        "--data-dir",
        str(tmp_path),
        "--loss",
        "bpr",
        "--optimizer",
        "sgd",
        "--epochs",
        "1",
        "--quiet",
    ]
    assert main([*argv, "--format", "movielens-1m"]) == 0
    assert main(argv) == 0  # recognised from the content
    capsys.readouterr()
    assert (
        main([*argv, "--format", "lightgcn"]) == 2
    )  # a ratings.dat line is no LightGCN line: file and line named
    assert "ratings.dat, line 1" in capsys.readouterr().err
