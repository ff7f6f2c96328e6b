"""negtheory.recsys.datasets: each thesis data set prepared from files the tests write (no download)."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from negtheory.recsys import load_split, thesis_split, write_split


def _pairs_set(d, part):
    """The raw (user id, item id) pairs of one part of a split."""
    return {(d.user_ids[u], d.item_ids[i]) for u, i in getattr(d, part)}


def test_yahoo_keeps_the_test_file_users_and_pools_their_ratings(tmp_path):
    # Webscope layout: train holds users 1..6, test only users 1..3 (the "5,400 test users" of the real files)
    rng = np.random.default_rng(0)
    train = [
        (u, s, int(rng.integers(1, 6)))
        for u in range(1, 7)
        for s in range(1, 31)
        if rng.random() < 0.5
    ]
    test = [(u, s, 3) for u in range(1, 4) for s in range(31, 41)]
    with gzip.open(tmp_path / "ydata-ymusic-rating-study-v1_0-train.txt.gz", "wt") as f:
        f.writelines(f"{u}\t{s}\t{r}\n" for u, s, r in train)
    (tmp_path / "ydata-ymusic-rating-study-v1_0-test.txt").write_text(
        "".join(f"{u}\t{s}\t{r}\n" for u, s, r in test)
    )
    d = thesis_split("yahoo-r3", tmp_path, rng=3)
    expected = {(str(u), str(s)) for u, s, _ in train if u <= 3} | {
        (str(u), str(s)) for u, s, _ in test
    }
    got = _pairs_set(d, "train") | _pairs_set(d, "test")
    assert (
        got == expected
    )  # every rating of the test-file users, train and test pooled; users 4-6 dropped
    assert not (_pairs_set(d, "train") & _pairs_set(d, "test"))
    assert len(d.test) == round(0.2 * len(expected))
    # the split is a function of the seed alone
    again = thesis_split("yahoo-r3", tmp_path, rng=3)
    assert np.array_equal(again.test, d.test)
    assert not np.array_equal(thesis_split("yahoo-r3", tmp_path, rng=4).test, d.test)


def test_ml1m_every_rating_is_a_positive_and_the_split_is_80_20(tmp_path):
    lines = [
        f"{u}::{i}::{1 + (u * i) % 5}::97830{u}\n"
        for u in range(1, 21)
        for i in range(1, 16)
        if (u + i) % 3
    ]
    (tmp_path / "ratings.dat").write_text("".join(lines))
    for path in (tmp_path, tmp_path / "ratings.dat"):
        d = thesis_split("ml-1m", path, rng=0)
        assert len(d.train) + len(d.test) == len(lines)
        assert len(d.test) == round(0.2 * len(lines))


def test_gowalla_pooled_or_as_released(tmp_path):
    (tmp_path / "train.txt").write_text("0 1 2 3\n1 0 4\n2 5 6 7 8\n")
    (tmp_path / "test.txt").write_text("0 4\n1 2\n2 0\n")
    released = thesis_split("gowalla-lightgcn", tmp_path)
    assert _pairs_set(released, "test") == {("0", "4"), ("1", "2"), ("2", "0")}
    pooled = thesis_split("gowalla", tmp_path, rng=1)
    assert _pairs_set(pooled, "train") | _pairs_set(pooled, "test") == _pairs_set(
        released, "train"
    ) | _pairs_set(released, "test")
    assert len(pooled.test) == round(0.2 * 12)


def test_ml100k_uses_the_thesis_split_when_present(tmp_path):
    (tmp_path / "100k_train.csv").write_text("user,item,rating\n0,0,5\n0,1,3\n1,1,4\n")
    (tmp_path / "100k_test.csv").write_text("user,item,rating\n1,0,2\n")
    d = thesis_split("ml-100k", tmp_path)
    assert _pairs_set(d, "test") == {("1", "0")} and len(d.train) == 3


def test_write_split_round_trips(tmp_path):
    (tmp_path / "ratings.dat").write_text(
        "".join(f"{u}::{i}::4::0\n" for u in range(3, 9) for i in range(10, 18))
    )
    d = thesis_split("ml-1m", tmp_path, rng=2)
    tr, te = write_split(d, tmp_path / "out")
    back = load_split(tr, te)
    assert _pairs_set(back, "train") == _pairs_set(d, "train") and _pairs_set(
        back, "test"
    ) == _pairs_set(d, "test")


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        (dict(name="netflix"), "name"),
        (dict(name="ml-1m", path="/nonexistent/folder"), "path"),
        (dict(name="yahoo-r3"), "path"),  # an empty folder has no Yahoo!-R3 files
    ],
)
def test_bad_input_names_the_parameter(tmp_path, kw, match):
    kw.setdefault("path", tmp_path)
    with pytest.raises(ValueError, match=match):
        thesis_split(**kw)
