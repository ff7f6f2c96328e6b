r"""Implicit-feedback interaction sets with consistent ids and explicit train / validation / test splits.

The thesis (seed 003, ch. 4-6) turns every rating of MovieLens-100K into an implicit positive and
splits the interactions 80/20 at random. :func:`load_split` reads such a split from two files (or
arrays / DataFrames) and keeps the ids consistent across them; :func:`split_interactions` makes a
split from one file with a documented, seeded rule; :meth:`Interactions.with_validation` carves a
validation split out of train for early stopping (never tune on test).

Nothing is downloaded: every loader takes a user-supplied path. Files may be MovieLens ``u.data``
(tab separated ``user item rating timestamp``, no header) or a CSV with a ``user,item[,rating]``
header (the thesis's ``100k_train.csv`` / ``100k_test.csv`` layout) or a header-less
``user,item[,rating]`` CSV.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._deprecation import renamed_keyword
from .._rng import int_seed
from .._validation import real_scalar

if TYPE_CHECKING:
    import os

    import pandas as pd

    from .._typing import IntArray, InteractionSource, RNGLike

__all__ = ["Interactions", "read_interactions", "load_split", "split_interactions", "load_movielens_dir"]

#: largest interaction file read (bytes): a guard against FIFOs, devices and mistaken paths
MAX_FILE_BYTES = 2 * 1024**3

_USER_COLS = ("user", "userid", "user_id", "uid")
_ITEM_COLS = ("item", "itemid", "item_id", "movie", "movieid", "movie_id", "iid")
_RATING_COLS = ("rating", "ratings", "score")


def _check_file(path) -> Path:
    p = Path(path)
    if p.is_dir() and (p / "u.data").is_file():
        p = p / "u.data"
    try:
        st = p.stat()
    except FileNotFoundError:
        raise FileNotFoundError(f"interaction file not found: {p}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{p} is not a regular file (a FIFO, device or folder cannot be read as interactions)")
    if st.st_size > MAX_FILE_BYTES:
        raise ValueError(f"{p} is {st.st_size} bytes, more than the {MAX_FILE_BYTES}-byte limit of an interaction file")
    return p


def read_interactions(path: str | os.PathLike[str], min_rating: float | None = None) -> pd.DataFrame:
    """Read one interaction file into a DataFrame with columns ``user, item, rating`` (raw ids as strings).

    Parameters
    ----------
    path : str or Path
        MovieLens ``u.data`` (or the folder holding it), or a CSV with or without a
        ``user,item[,rating]`` header.
    min_rating : float, optional
        Keep only ratings >= this value (default: every rating is an implicit positive, the
        thesis's convention).

    Returns
    -------
    pandas.DataFrame
        Ids are kept as strings so that two files map the same raw id to the same index.

    Raises
    ------
    ValueError
        The file is not a regular file, has no row, misses a column, or holds a rating that is
        not a finite number.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from negtheory.recsys import read_interactions
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "u.data"
    >>> _ = p.write_text("1\\t10\\t5\\t0\\n2\\t10\\t3\\t0\\n")
    >>> read_interactions(p).values.tolist()
    [['1', '10', 5.0], ['2', '10', 3.0]]
    """
    import pandas as pd

    p = _check_file(path)
    with p.open(encoding="utf-8", errors="replace") as fh:
        first = fh.readline()
    if not first.strip():
        raise ValueError(f"{p} holds no interaction")
    sep = "\t" if "\t" in first else ","
    cells = [c.strip().lower() for c in first.split(sep)]
    has_header = not cells[0].lstrip("-").replace(".", "", 1).isdigit()
    df = pd.read_csv(p, sep=sep, header=0 if has_header else None, dtype=str, skip_blank_lines=True)
    if has_header:
        cols = [str(c).strip().lower() for c in df.columns]
        try:
            cu = next(k for k, c in enumerate(cols) if c in _USER_COLS)
            ci = next(k for k, c in enumerate(cols) if c in _ITEM_COLS)
        except StopIteration:
            raise ValueError(f"{p}: the header {cols} has no user and item column (expected e.g. user,item,rating)") from None
        cr = next((k for k, c in enumerate(cols) if c in _RATING_COLS), None)
    else:
        if df.shape[1] < 2:
            raise ValueError(f"{p}: expected at least two columns (user, item), got {df.shape[1]}")
        cu, ci, cr = 0, 1, (2 if df.shape[1] > 2 else None)
    out = pd.DataFrame({"user": df.iloc[:, cu].str.strip(), "item": df.iloc[:, ci].str.strip()})
    if cr is None:
        out["rating"] = 1.0
    else:
        rating = pd.to_numeric(df.iloc[:, cr], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(rating)
        if bad.any():
            row = int(np.flatnonzero(bad)[0]) + (2 if has_header else 1)
            raise ValueError(
                f"{p}, line {row}: rating must be a finite number, got {df.iloc[row - (2 if has_header else 1), cr]!r}"
            )
        out["rating"] = rating
    if out["user"].isna().any() or out["item"].isna().any():
        raise ValueError(f"{p}: a row misses its user or item id")
    if len(out) == 0:
        raise ValueError(f"{p} holds no interaction")
    if min_rating is not None:
        out = out[out["rating"] >= real_scalar("min_rating", min_rating)].reset_index(drop=True)
    return out


@dataclass(frozen=True)
class Interactions:
    """An implicit-feedback data set: (user, item) index pairs in train / validation / test.

    Attributes
    ----------
    n_users, n_items : int
        Sizes of the id spaces (indices run over ``0 .. n - 1``).
    train, valid, test : ndarray of int64, shape (n, 2)
        Unique (user, item) pairs; ``valid`` is empty unless carved by :meth:`with_validation`.
    user_ids, item_ids : ndarray
        The raw id of each index (as read from the files).
    name : str
    """

    n_users: int
    n_items: int
    train: np.ndarray
    test: np.ndarray
    valid: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    user_ids: np.ndarray | None = None
    item_ids: np.ndarray | None = None
    name: str = "interactions"

    # ---------------------------------------------------------------- derived structures
    def item_counts(self) -> np.ndarray:
        """Training popularity pop_l: number of training interactions of each item."""
        return np.bincount(self.train[:, 1], minlength=self.n_items).astype(np.float64)

    def train_csr(self) -> tuple[IntArray, IntArray]:
        """``(indptr, indices)``: each user's training items, sorted (for membership tests)."""
        return _csr(self.train, self.n_users)

    def train_mask(self) -> np.ndarray:
        """Dense boolean matrix [n_users, n_items], True at training interactions."""
        return _mask(self.train, self.n_users, self.n_items)

    def test_mask(self) -> np.ndarray:
        """Dense boolean matrix [n_users, n_items], True at test interactions."""
        return _mask(self.test, self.n_users, self.n_items)

    def valid_mask(self) -> np.ndarray:
        """Dense boolean matrix [n_users, n_items], True at validation interactions."""
        return _mask(self.valid, self.n_users, self.n_items)

    @renamed_keyword("seed", "rng")
    def with_validation(self, fraction: float = 0.1, rng: RNGLike = 0) -> Interactions:
        """Move a random ``fraction`` of the training pairs into ``valid`` (seeded; test untouched).

        The rule: a permutation of the training rows by ``numpy.random.default_rng(rng)``
        (``rng``: None, int, SeedSequence or Generator; ``seed``: deprecated since 0.1, removed in 0.2); the
        first ``round(fraction * n_train)`` rows become validation. Used for early stopping so
        that no choice is made on the test split.
        """
        fraction = real_scalar("fraction", fraction, 0.0, 1.0, hi_open=True)
        if fraction == 0.0:
            return self
        rng = np.random.default_rng(rng)
        perm = rng.permutation(len(self.train))
        n_val = int(round(fraction * len(self.train)))
        val, tr = self.train[np.sort(perm[:n_val])], self.train[np.sort(perm[n_val:])]
        return Interactions(
            self.n_users,
            self.n_items,
            tr,
            self.test,
            np.concatenate([self.valid, val]),
            self.user_ids,
            self.item_ids,
            self.name + f"+valid{fraction:g}",
        )

    def summary(self) -> dict:
        """Sizes and density, e.g. for a results file."""
        return dict(
            name=self.name,
            n_users=self.n_users,
            n_items=self.n_items,
            n_train=len(self.train),
            n_valid=len(self.valid),
            n_test=len(self.test),
            density=(len(self.train) + len(self.valid) + len(self.test)) / (self.n_users * self.n_items),
        )


def _csr(pairs, n_users):
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    p = pairs[order]
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(p[:, 0], minlength=n_users), out=indptr[1:])
    return indptr, np.ascontiguousarray(p[:, 1], dtype=np.int64)


def _mask(pairs, n_users, n_items):
    m = np.zeros((n_users, n_items), dtype=bool)
    if len(pairs):
        m[pairs[:, 0], pairs[:, 1]] = True
    return m


def _frame(obj, what):
    """A file path, DataFrame or (n, 2|3) array -> DataFrame user, item, rating with string ids."""
    import pandas as pd

    if isinstance(obj, (str, Path)):
        return read_interactions(obj)
    if isinstance(obj, pd.DataFrame):
        cols = {str(c).lower(): c for c in obj.columns}
        cu = next((cols[c] for c in _USER_COLS if c in cols), None)
        ci = next((cols[c] for c in _ITEM_COLS if c in cols), None)
        if cu is None or ci is None:
            raise ValueError(f"{what}: the DataFrame needs user and item columns, got {list(obj.columns)}")
        cr = next((cols[c] for c in _RATING_COLS if c in cols), None)
        rating = obj[cr].to_numpy(dtype=float) if cr is not None else np.ones(len(obj))
        df = pd.DataFrame({"user": obj[cu].astype(str).to_numpy(), "item": obj[ci].astype(str).to_numpy(), "rating": rating})
    else:
        arr = np.asarray(obj)
        if arr.ndim != 2 or arr.shape[1] not in (2, 3):
            raise ValueError(f"{what} must be a path, a DataFrame or an array of shape (n, 2) or (n, 3), got shape {arr.shape}")
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ValueError(f"{what} must hold finite ids and ratings")
        ids = arr[:, :2]
        if ids.dtype.kind == "f":
            if not np.all(ids == np.round(ids)):
                raise ValueError(f"{what}: user and item ids must be integers")
            ids = ids.astype(np.int64)
        rating = arr[:, 2].astype(float) if arr.shape[1] == 3 else np.ones(len(arr))
        df = pd.DataFrame({"user": ids[:, 0].astype(str), "item": ids[:, 1].astype(str), "rating": rating})
    if not np.all(np.isfinite(df["rating"].to_numpy(dtype=float))):
        raise ValueError(f"{what}: ratings must be finite numbers")
    if len(df) == 0:
        raise ValueError(f"{what} holds no interaction")
    return df


def _id_index(values):
    """Sorted unique raw ids -> index; numeric ids sort numerically (so 0-based ids map to themselves)."""
    vals = np.asarray(values, dtype=str)
    uniq = np.unique(vals)
    try:
        num = uniq.astype(np.int64)
        uniq = uniq[np.argsort(num, kind="stable")]
    except ValueError:
        pass
    index = {v: k for k, v in enumerate(uniq)}
    return uniq, index


def _pairs(df, uidx, iidx):
    u = np.fromiter((uidx[v] for v in df["user"].to_numpy(dtype=str)), dtype=np.int64, count=len(df))
    i = np.fromiter((iidx[v] for v in df["item"].to_numpy(dtype=str)), dtype=np.int64, count=len(df))
    return np.unique(np.stack([u, i], axis=1), axis=0)  # a repeated rating counts once


def load_split(
    train: InteractionSource, test: InteractionSource, *, min_rating: float | None = None, name: str | None = None
) -> Interactions:
    """An explicit train/test split from two files, DataFrames or arrays, with consistent ids.

    User and item ids are mapped to indices over the *union* of both parts (numeric ids in
    numeric order, so the thesis's 0-based ids keep their values); a pair present in both parts
    stays in train only (an item the user has already interacted with is never a test target).

    Parameters
    ----------
    train, test : str, Path, pandas.DataFrame or array_like of shape (n, 2) or (n, 3)
        ``user, item[, rating]``.
    min_rating : float, optional
        Keep only ratings >= this value in both parts (default: all ratings are positives).
    name : str, optional

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> d = load_split(np.array([[7, 1], [7, 2], [9, 2]]), np.array([[9, 3]]))
    >>> d.n_users, d.n_items, d.test.tolist()
    (2, 3, [[1, 2]])
    >>> d.user_ids.tolist(), d.item_ids.tolist()
    (['7', '9'], ['1', '2', '3'])
    """
    tr = _frame(train, "train")
    te = _frame(test, "test")
    if min_rating is not None:
        mr = real_scalar("min_rating", min_rating)
        tr, te = tr[tr["rating"] >= mr], te[te["rating"] >= mr]
        if len(tr) == 0:
            raise ValueError(f"no training interaction left with min_rating={min_rating}")
    users, uidx = _id_index(np.concatenate([tr["user"].to_numpy(dtype=str), te["user"].to_numpy(dtype=str)]))
    items, iidx = _id_index(np.concatenate([tr["item"].to_numpy(dtype=str), te["item"].to_numpy(dtype=str)]))
    ptr = _pairs(tr, uidx, iidx)
    pte = _pairs(te, uidx, iidx) if len(te) else np.zeros((0, 2), dtype=np.int64)
    if len(pte):
        key_tr = ptr[:, 0] * len(items) + ptr[:, 1]
        pte = pte[~np.isin(pte[:, 0] * len(items) + pte[:, 1], key_tr)]
    if name is None:
        name = f"{train if isinstance(train, (str, Path)) else 'train'} / {test if isinstance(test, (str, Path)) else 'test'}"
    return Interactions(len(users), len(items), ptr, pte, user_ids=users, item_ids=items, name=str(name))


@renamed_keyword("seed", "rng")
def split_interactions(
    data: InteractionSource,
    test_fraction: float = 0.2,
    rng: RNGLike = 0,
    *,
    min_rating: float | None = None,
    name: str | None = None,
) -> Interactions:
    """Split one interaction set at random into train and test (the thesis's 80/20 protocol).

    The rule: duplicates are dropped, the unique (user, item) pairs are put in (user, item)
    order, permuted by ``numpy.random.default_rng(seed)`` with ``seed`` the integer given by ``rng``, and the first
    ``round(test_fraction * n)`` pairs of the permutation become test. As in the thesis the split
    is over interactions, not per user, so a user may have no test item (such users are left out
    of the ranking metrics).

    Parameters
    ----------
    data : str, Path, pandas.DataFrame or array_like
        A file (MovieLens ``u.data``, a folder holding it, or a CSV) or pairs.
    test_fraction : float in [0, 1)
    rng : int, SeedSequence, Generator or None
        An int is the seed; a Generator or SeedSequence gives one 63-bit seed; ``None`` a fresh one
        (``seed``: deprecated since 0.1, removed in 0.2).
    min_rating : float, optional

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import split_interactions
    >>> d = split_interactions(np.array([[u, i] for u in range(4) for i in range(5)]), 0.25, rng=1)
    >>> len(d.train), len(d.test)
    (15, 5)
    """
    test_fraction = real_scalar("test_fraction", test_fraction, 0.0, 1.0, hi_open=True)
    seed = int_seed("rng", rng)
    df = _frame(data, "data")
    if min_rating is not None:
        df = df[df["rating"] >= real_scalar("min_rating", min_rating)]
        if len(df) == 0:
            raise ValueError(f"no interaction left with min_rating={min_rating}")
    users, uidx = _id_index(df["user"].to_numpy(dtype=str))
    items, iidx = _id_index(df["item"].to_numpy(dtype=str))
    pairs = _pairs(df, uidx, iidx)
    perm = np.random.default_rng(seed).permutation(len(pairs))
    n_test = int(round(test_fraction * len(pairs)))
    te, tr = pairs[np.sort(perm[:n_test])], pairs[np.sort(perm[n_test:])]
    if name is None:
        name = f"{data if isinstance(data, (str, Path)) else 'data'} split {1 - test_fraction:g}/{test_fraction:g} seed {seed}"
    return Interactions(len(users), len(items), tr, te, user_ids=users, item_ids=items, name=str(name))


@renamed_keyword("seed", "rng")
def load_movielens_dir(
    path: str | os.PathLike[str], test_fraction: float = 0.2, rng: RNGLike = 0, min_rating: float | None = None
) -> Interactions:
    """A folder holding MovieLens ``u.data`` (or the file itself), split by :func:`split_interactions`."""
    seed = int_seed("rng", rng)
    return split_interactions(_check_file(path), test_fraction, seed, min_rating=min_rating, name=f"{path} split seed {seed}")
