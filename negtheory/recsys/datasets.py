r"""Each data set of the thesis, prepared as the thesis states it (Tables 4.1 / 5.1, §4.5.1.1).

One function, :func:`thesis_split`, turns a user's copy of a data set into the train / test split
the reproductions run on. The files are never shipped (their licences forbid it): ``path`` is the
user's folder or file. Every rating is an implicit positive (§4.5.1.1) and, unless the data set
ships the thesis's own split, the unique (user, item) pairs are split 80/20 at random by
:func:`~negtheory.recsys.split_interactions` with the stated ``seed``.

====================  ====================================================================  ====================
name                  preparation                                                           Table 5.1 (printed)
====================  ====================================================================  ====================
``ml-100k``           the thesis's own ``100k_train.csv`` / ``100k_test.csv`` when the       943 x 1 682, 100k
                      folder has them, else ``u.data`` split 80/20
``ml-1m``             every pair of ``ratings.dat`` (or a ``user,item`` CSV of it), 80/20    6 040 x 3 952, 1 000k
``yahoo-r3``          the 5 400 users of the Webscope *test* file, each with all of its      5 400 x 1 000, 182k
                      ratings in the train and test files pooled (183 179 pairs), 80/20
``gowalla``           the LightGCN release's ``train.txt`` + ``test.txt`` pooled, 80/20      29 858 x 40 981, 1 027k
``gowalla-lightgcn``  the LightGCN release's own split as it is (the field's benchmark)      —
``yelp2018``          as ``gowalla`` (the LightGCN release's files pooled, 80/20)            31 668 x 38 048, 1 561k
====================  ====================================================================  ====================

The Yahoo!-R3 reading is worked out from Table 5.1: the Webscope files hold 15 400 users in train
and the 5 400 users ids 1..5 400 in test (10 random songs each). Of the constructions tried —
all 15 400 users (365 704 pairs, density 0.0237), the 5 400 test users' training ratings only
(129 179), their ratings >= 4 (55 219) and the pooled ratings of the 5 400 test users
(183 179, density 0.03392) — only the last matches the printed 5 400 users, 1 000 items,
"182k" interactions and density 0.03370 (0.65 % above the printed density; the printed "146k /
36k" train / test are its 80/20 split). ML-1M's printed 3 952 items are ``movies.dat``'s id
range; 3 706 of them are rated, and only rated items enter the split.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .._rng import int_seed
from .._typing import RNGLike
from .interactions import Interactions, load_split, read_interactions, split_interactions

#: data set name -> one-line description of its preparation (see the module notes)
THESIS_DATASETS = {
    "ml-100k": "the thesis's 100k_train.csv / 100k_test.csv, else u.data split 80/20",
    "ml-1m": "every rating of ratings.dat an implicit positive, random 80/20",
    "yahoo-r3": "the 5,400 users of the Webscope test file, train and test ratings pooled, random 80/20",
    "gowalla": "the LightGCN release's train.txt + test.txt pooled, random 80/20",
    "gowalla-lightgcn": "the LightGCN release's own train.txt / test.txt split (the field's benchmark)",
    "yelp2018": "the LightGCN release's train.txt + test.txt pooled, random 80/20",
}


def _find(folder: Path, names: tuple[str, ...], what: str) -> Path:
    for n in names:
        for cand in (folder / n, folder / (n + ".gz")):
            if cand.is_file():
                return cand
    raise ValueError(
        f"path: {folder} holds no {what} (looked for {', '.join(names)}, optionally .gz)"
    )


def _yahoo_frame(folder: Path):
    import pandas as pd

    tr = read_interactions(
        _find(
            folder,
            ("ydata-ymusic-rating-study-v1_0-train.txt", "train.txt"),
            "Yahoo!-R3 train file",
        ),
        format="yahoo-r3",
    )
    te = read_interactions(
        _find(
            folder, ("ydata-ymusic-rating-study-v1_0-test.txt", "test.txt"), "Yahoo!-R3 test file"
        ),
        format="yahoo-r3",
    )
    users = set(te["user"].tolist())
    return pd.concat([tr[tr["user"].isin(users)], te], ignore_index=True)


def thesis_split(
    name: str, path: str | os.PathLike[str], rng: RNGLike = 0, *, test_fraction: float = 0.2
) -> Interactions:
    """The train / test split of one of the thesis's data sets, prepared as the thesis states it.

    Parameters
    ----------
    name : str
        One of :data:`THESIS_DATASETS` (``ml-100k``, ``ml-1m``, ``yahoo-r3``, ``gowalla``,
        ``gowalla-lightgcn``, ``yelp2018``).
    path : str or Path
        The user's copy: a folder holding the data set's files (``.gz`` accepted), or for
        ``ml-1m`` the ratings file itself.
    rng : int, SeedSequence or Generator
        Seed of the random 80/20 split (default 0; an int is used as the seed of
        :func:`~negtheory.recsys.split_interactions`; ignored where the data set ships its split).
    test_fraction : float in (0, 1)
        The test share of the random split (default 0.2, the thesis's).

    Returns
    -------
    Interactions
        The split, named ``"<name> seed <seed>"`` (or ``"<name>"`` for a shipped split).

    Raises
    ------
    ValueError
        ``name`` unknown, ``path`` missing or without the data set's files.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ratings.dat").write_text("".join(f"{u}::{i}::5::0\\n" for u in range(1, 6) for i in range(1, 5)))
    >>> s = thesis_split("ml-1m", d, rng=0)
    >>> len(s.train), len(s.test)
    (16, 4)
    """
    if name not in THESIS_DATASETS:
        raise ValueError(f"name must be one of {', '.join(THESIS_DATASETS)}, got {name!r}")
    p = Path(path)
    if not p.exists():
        raise ValueError(f"path: {p} does not exist")
    seed_int = None if name == "gowalla-lightgcn" else int_seed("rng", rng)
    label = f"{name}" if seed_int is None else f"{name} seed {seed_int}"
    if name == "ml-100k":
        if p.is_dir() and any((p / n).is_file() for n in ("100k_train.csv", "100k_train.csv.gz")):
            return load_split(
                _find(p, ("100k_train.csv",), "train"),
                _find(p, ("100k_test.csv",), "test"),
                name="ml-100k (thesis split)",
            )
        src = _find(p, ("u.data",), "u.data") if p.is_dir() else p
        return split_interactions(src, test_fraction, rng=seed_int, name=label)
    if name == "ml-1m":
        src = (
            _find(p, ("ratings.dat", "interactions.csv"), "ratings.dat or interactions.csv")
            if p.is_dir()
            else p
        )
        return split_interactions(src, test_fraction, rng=seed_int, name=label)
    if not p.is_dir():
        raise ValueError(
            f"path: {name} needs the folder holding its train and test files, got the file {p}"
        )
    if name == "yahoo-r3":
        return split_interactions(_yahoo_frame(p), test_fraction, rng=seed_int, name=label)
    train = _find(p, ("train.txt",), "train.txt")
    test = _find(p, ("test.txt",), "test.txt")
    if name == "gowalla-lightgcn":
        return load_split(train, test, format="lightgcn", name=name)
    import pandas as pd

    pooled = pd.concat(
        [read_interactions(train, format="lightgcn"), read_interactions(test, format="lightgcn")],
        ignore_index=True,
    )
    return split_interactions(pooled, test_fraction, rng=seed_int, name=label)


def write_split(data: Interactions, out: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write a split as ``train.csv`` / ``test.csv`` (``user,item`` with the raw ids) in folder ``out``.

    Parameters
    ----------
    data : Interactions
        The split (e.g. from :func:`thesis_split`).
    out : str or Path
        Folder to write into (created if absent).

    Returns
    -------
    (Path, Path)
        The train and test files; :func:`~negtheory.recsys.load_split` on them gives back the
        same pairs.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for part in ("train", "test"):
        pairs = getattr(data, part)
        uid = data.user_ids if data.user_ids is not None else np.arange(data.n_users).astype(str)
        iid = data.item_ids if data.item_ids is not None else np.arange(data.n_items).astype(str)
        f = out / f"{part}.csv"
        with open(f, "w") as fh:
            fh.write("user,item\n")
            fh.writelines(f"{uid[u]},{iid[i]}\n" for u, i in pairs)
        paths.append(f)
    return paths[0], paths[1]
