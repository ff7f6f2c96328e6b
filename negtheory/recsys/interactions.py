r"""Implicit-feedback interaction sets with consistent ids and explicit train / validation / test splits.

Liu Bin's thesis (ch. 4-6) turns every rating of MovieLens-100K into an implicit positive and
splits the interactions 80/20 at random. :func:`load_split` reads such a split from two files (or
arrays / DataFrames) and keeps the ids consistent across them; :func:`split_interactions` makes a
split from one file with a documented, seeded rule; :meth:`Interactions.with_validation` carves a
validation split out of train for early stopping (never tune on test).

Nothing is downloaded: every loader takes a user-supplied path. :func:`read_interactions` reads

* ``csv`` — MovieLens-100K ``u.data`` (tab separated ``user item rating timestamp``, no header), a
  CSV with a ``user,item[,rating]`` header (the thesis's ``100k_train.csv`` / ``100k_test.csv``
  layout) or a header-less ``user,item[,rating]`` CSV;
* ``movielens-1m`` — MovieLens-1M ``ratings.dat``, ``UserID::MovieID::Rating::Timestamp``;
* ``yahoo-r3`` — Yahoo!-R3 (``ydata-ymusic-rating-study-v1-u-train.txt`` / ``-u-test.txt``):
  ``user item rating`` per line, whitespace separated;
* ``lightgcn`` — the LightGCN release's ``train.txt`` / ``test.txt`` (Gowalla, Yelp2018): a user
  id followed by its item ids on one line, space separated (no rating: each pair counts once);

recognised from the file's content (``format="auto"``) or named by ``format``. Implicit feedback
follows the thesis's data sections (§4.5.1.1, §5.6.1.1, §6.6.2.1): every rating of MovieLens-100K,
MovieLens-1M and Yahoo!-R3 is an implicit positive, whatever its value, and the interactions are
split 80/20 at random — so no rating threshold is applied by default (``min_rating`` keeps only
ratings >= a value for other protocols, e.g. the "clean" 4-5 star test sets of ch. 3).
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._deprecation import renamed_keyword
from .._docstrings import docstring
from .._rng import int_seed
from .._validation import real_scalar

if TYPE_CHECKING:
    import os

    import pandas as pd

    from .._typing import IntArray, InteractionSource, RNGLike

__all__ = [
    "Interactions",
    "FORMATS",
    "read_interactions",
    "load_split",
    "split_interactions",
    "load_movielens_dir",
]

# the Returns of the CSR and mask views of the three parts of a split, written once (see negtheory._docstrings)
_CSR_RETURNS = """
Returns
-------
indptr : ndarray of int64, shape (n_users + 1,)
    Row pointers: user u's items are ``indices[indptr[u]:indptr[u + 1]]``.
indices : ndarray of int64, shape (n_{part},)
    Item indices, ascending within each user."""
_MASK_RETURNS = """
Returns
-------
ndarray of bool, shape (n_users, n_items)
    True at the pairs of ``{part}``."""
_doc = docstring(
    {
        f"{kind}_returns_{part}": text.format(part=part)
        for kind, text in (("csr", _CSR_RETURNS), ("mask", _MASK_RETURNS))
        for part in ("train", "valid", "test")
    }
)

#: values of ``format``: ``"auto"`` recognises the others from the file's content
FORMATS = ("auto", "csv", "movielens-1m", "yahoo-r3", "lightgcn")

#: interaction files looked for in a data folder, in this order (a released split is one set of files)
_FOLDER_FILES = (
    ("u.data",),
    ("u.data.gz",),
    ("ratings.dat",),
    ("ratings.dat.gz",),
    ("ydata-ymusic-rating-study-v1-u-train.txt", "ydata-ymusic-rating-study-v1-u-test.txt"),
    ("train.txt", "test.txt"),
)
_GZIP_MAGIC = b"\x1f\x8b"

#: largest interaction file read (bytes): a guard against FIFOs, devices and mistaken paths
MAX_FILE_BYTES = 2 * 1024**3

_USER_COLS = ("user", "userid", "user_id", "uid")
_ITEM_COLS = ("item", "itemid", "item_id", "movie", "movieid", "movie_id", "iid")
_RATING_COLS = ("rating", "ratings", "score")


def _folder_files(p: Path) -> list[Path]:
    """The interaction files of a data folder (see :data:`_FOLDER_FILES`); ``[p]`` for a file.

    A folder without any of them raises ``ValueError`` naming what was looked for and what is there.
    """
    if not p.is_dir():
        return [p]
    for names in _FOLDER_FILES:
        if all((p / n).is_file() for n in names):
            return [p / n for n in names]
    try:
        held = sorted(c.name for c in p.iterdir())
    except OSError:
        held = []
    looked = "; ".join(" + ".join(names) for names in _FOLDER_FILES)
    there = (
        "it is empty"
        if not held
        else f"it holds {', '.join(held[:8])}{', ...' if len(held) > 8 else ''}"
    )
    raise ValueError(
        f"{p}: no interaction file found in this folder (looked for {looked}); {there}. "
        "Pass a file instead (e.g. one CSV file, or --train/--test on the command line)"
    )


def _is_gzip(p: Path) -> bool:
    with p.open("rb") as fh:
        return fh.read(2) == _GZIP_MAGIC


def _open_text(p: Path):
    """The file as UTF-8 text, decompressed when it is gzip (by its magic bytes, whatever its name)."""
    if _is_gzip(p):
        import gzip

        return gzip.open(p, "rt", encoding="utf-8", errors="replace")
    return p.open(encoding="utf-8", errors="replace")


def _check_text(p: Path) -> None:
    """A file that is neither text nor gzip (an image, an archive, UTF-16, ...) raises ``ValueError`` naming it."""
    import codecs

    if _is_gzip(p):
        return
    with p.open("rb") as fh:
        head = fh.read(4096)
    bad = b"\0" in head
    if not bad:
        try:
            codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        except UnicodeDecodeError:
            bad = True
    if bad:
        shown = " ".join(f"{b:02x}" for b in head[:8])
        raise ValueError(
            f"{p} is not a text file of interactions (it starts with the bytes {shown}: a binary, compressed or "
            "non-UTF-8 file?); give a CSV / text file in UTF-8, or a gzip-compressed one"
        )


def _check_file(path) -> Path:
    p = _folder_files(Path(path))[0]
    try:
        st = p.stat()
    except FileNotFoundError:
        raise FileNotFoundError(f"interaction file not found: {p}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(
            f"{p} is not a regular file (a FIFO, device or folder cannot be read as interactions)"
        )
    if st.st_size > MAX_FILE_BYTES:
        raise ValueError(
            f"{p} is {st.st_size} bytes, more than the {MAX_FILE_BYTES}-byte limit of an interaction file"
        )
    _check_text(p)
    return p


def _check_format(format) -> str:
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
    return format


def _is_number(cell: str) -> bool:
    return cell.lstrip("-").replace(".", "", 1).isdigit()


def _detect_format(p: Path, lines: list[str]) -> str:
    """The format of a file from its lines (the rule of :func:`read_interactions`)."""
    first = next((ln for ln in lines if ln.strip()), "")
    if "::" in first:
        return "movielens-1m"
    if "," in first or "\t" in first or not _is_number(first.split()[0]):
        return "csv"
    counts = set()
    users = []
    for ln in lines:
        f = ln.split()
        if f:
            counts.add(len(f))
            users.append(f[0])
    if counts != {3}:
        return "lightgcn"
    if len(set(users)) < len(users):
        return "yahoo-r3"  # one rating a line: a user's id repeats
    raise ValueError(
        f"{p}: every line holds three numbers and no user id repeats, so it may be Yahoo!-R3 (user item rating) "
        "or LightGCN (a user and two items): pass format='yahoo-r3' or format='lightgcn' (--format)"
    )


def _bad_line(p: Path, n: int, line: str, expected: str) -> ValueError:
    shown = line if len(line) <= 80 else line[:77] + "..."
    return ValueError(f"{p}, line {n}: expected {expected}, got {shown!r}")


def _parse_fast(text: str, format: str):
    """(users, items, ratings) of a well-formed movielens-1m / yahoo-r3 text by pandas' C parser, or
    None when any line is off (then :func:`_parse_lines` finds and names it)."""
    import csv
    import io

    import pandas as pd

    width = 4 if format == "movielens-1m" else 3
    if format == "movielens-1m":
        if "\t" in text:
            return None
        text = text.replace("::", "\t")
    try:
        df = pd.read_csv(
            io.StringIO(text),
            sep="\t" if format == "movielens-1m" else r"\s+",
            header=None,
            names=list(range(width + 1)),
            dtype=str,
            quoting=csv.QUOTE_NONE,
            skip_blank_lines=True,
        )
    except (ValueError, pd.errors.ParserError):
        return None
    if df[width].notna().any() or df[list(range(width))].isna().any().any():
        return None
    ids = [df[0], df[1]] + ([df[3]] if width == 4 else [])
    if not all(c.str.isdigit().all() for c in ids):
        return None
    try:
        ratings = df[2].to_numpy().astype(float)
    except ValueError:
        return None
    if not np.isfinite(ratings).all():
        return None
    return df[0].tolist(), df[1].tolist(), ratings


def _parse_lines(p: Path, lines: list[str], format: str):
    """(users, items, ratings) lists of a movielens-1m, yahoo-r3 or lightgcn file; a bad line raises."""
    users: list[str] = []
    items: list[str] = []
    ratings: list[float] = []
    if format == "lightgcn":
        expected = (
            "a user id followed by its item ids, space separated (LightGCN train.txt / test.txt)"
        )
        for n, line in enumerate(lines, 1):
            f = line.split()
            if not f:
                continue
            if not all(c.isdigit() for c in f):
                raise _bad_line(p, n, line, expected)
            users.extend([f[0]] * (len(f) - 1))
            items.extend(f[1:])
        return users, items, [1.0] * len(users)
    if format == "movielens-1m":
        expected = "UserID::MovieID::Rating::Timestamp (MovieLens-1M ratings.dat)"
        split, width = (lambda s: s.strip().split("::")), 4
    else:
        expected = "user item rating, whitespace separated (Yahoo!-R3)"
        split, width = str.split, 3
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        f = split(line)
        if (
            len(f) != width
            or not (f[0].isdigit() and f[1].isdigit())
            or (width == 4 and not f[3].strip().isdigit())
        ):
            raise _bad_line(p, n, line, expected)
        try:
            r = float(f[2])
        except ValueError:
            r = float("nan")
        if not np.isfinite(r):
            raise ValueError(f"{p}, line {n}: rating must be a finite number, got {f[2]!r}")
        users.append(f[0])
        items.append(f[1])
        ratings.append(r)
    return users, items, ratings


def read_interactions(
    path: str | os.PathLike[str], min_rating: float | None = None, *, format: str = "auto"
) -> pd.DataFrame:
    """Read one interaction file into a DataFrame with columns ``user, item, rating`` (raw ids as strings).

    Parameters
    ----------
    path : str or Path
        An interaction file, or a folder holding MovieLens ``u.data`` or ``ratings.dat``.
    min_rating : float, optional
        Keep only ratings >= this value (default: every rating is an implicit positive, the
        thesis's convention for MovieLens-100K, MovieLens-1M and Yahoo!-R3, §4.5.1.1).
    format : str
        ``"auto"`` (default), ``"csv"``, ``"movielens-1m"``, ``"yahoo-r3"`` or ``"lightgcn"``
        (the layouts are listed in :mod:`negtheory.recsys.interactions`). ``"auto"`` decides from
        the content: a ``::`` on the first line is MovieLens-1M; a comma, a tab or a header is a
        CSV (``u.data`` and tab-separated Yahoo!-R3 read the same way); whitespace-separated
        numbers are Yahoo!-R3 when every line holds three of them and a user id repeats,
        LightGCN when the lines hold different counts; anything else is ambiguous and raises.

    Returns
    -------
    pandas.DataFrame
        Ids are kept as strings so that two files map the same raw id to the same index; a file
        without ratings (LightGCN, a two-column CSV) gets rating 1.

    Raises
    ------
    ValueError
        The file is not a regular file, has no row, misses a column, holds a rating that is not a
        finite number, has a malformed line (the message names the file and the line), or its
        format is ambiguous or unknown.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from negtheory.recsys import read_interactions
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "u.data"
    >>> _ = p.write_text("1\\t10\\t5\\t0\\n2\\t10\\t3\\t0\\n")
    >>> read_interactions(p).values.tolist()
    [['1', '10', 5.0], ['2', '10', 3.0]]
    >>> q = p.with_name("ratings.dat")
    >>> _ = q.write_text("1::1193::5::978300760\\n1::661::3::978302109\\n")
    >>> read_interactions(q).values.tolist()
    [['1', '1193', 5.0], ['1', '661', 3.0]]
    >>> t = p.with_name("train.txt")
    >>> _ = t.write_text("0 3 4 7\\n1 4\\n")
    >>> read_interactions(t).values.tolist()
    [['0', '3', 1.0], ['0', '4', 1.0], ['0', '7', 1.0], ['1', '4', 1.0]]
    """
    import pandas as pd

    format = _check_format(format)
    p = _check_file(path)
    if format == "auto":  # a CSV or u.data shows on its first line: no need to read the file twice
        with _open_text(p) as fh:
            first = next((ln for ln in fh if ln.strip()), "")
        if (
            first.strip()
            and "::" not in first
            and ("," in first or "\t" in first or not _is_number(first.split()[0]))
        ):
            format = "csv"
    if format != "csv":
        with _open_text(p) as fh:
            text = fh.read()
        if format in ("movielens-1m", "yahoo-r3"):
            fast = _parse_fast(text, format)
            if fast is not None:
                out = pd.DataFrame(
                    {"user": fast[0], "item": fast[1], "rating": np.asarray(fast[2], dtype=float)}
                )
                if min_rating is not None:
                    out = out[out["rating"] >= real_scalar("min_rating", min_rating)].reset_index(
                        drop=True
                    )
                return out
        lines = text.splitlines()
        del text
        if not any(ln.strip() for ln in lines):
            raise ValueError(f"{p} holds no interaction")
        if format == "auto":
            format = _detect_format(p, lines)
        if format != "csv":
            fast = (
                _parse_fast("\n".join(lines), format)
                if format in ("movielens-1m", "yahoo-r3")
                else None
            )
            users, items, ratings = fast if fast is not None else _parse_lines(p, lines, format)
            if not users:
                raise ValueError(f"{p} holds no interaction")
            out = pd.DataFrame(
                {"user": users, "item": items, "rating": np.asarray(ratings, dtype=float)}
            )
            if min_rating is not None:
                out = out[out["rating"] >= real_scalar("min_rating", min_rating)].reset_index(
                    drop=True
                )
            return out
        del lines
    with _open_text(p) as fh:
        first = fh.readline()
    if not first.strip():
        raise ValueError(f"{p} holds no interaction")
    sep = "\t" if "\t" in first else ","
    cells = [c.strip().lower() for c in first.split(sep)]
    has_header = not cells[0].lstrip("-").replace(".", "", 1).isdigit()
    try:
        df = pd.read_csv(
            p,
            sep=sep,
            header=0 if has_header else None,
            dtype=str,
            keep_default_na=False,  # a cell reads as written ("nan" is a bad rating, not a missing one)
            skip_blank_lines=True,
            compression="gzip" if _is_gzip(p) else None,
        )
    except pd.errors.ParserError as exc:  # e.g. "Expected 3 fields in line 7, saw 4"
        raise ValueError(f"{p}: {' '.join(str(exc).split())}") from None
    except UnicodeDecodeError as exc:  # past the first 4 KiB that _check_text looked at
        raise ValueError(
            f"{p} is not UTF-8 text: byte 0x{exc.object[exc.start]:02x} at offset {exc.start} ({exc.reason})"
        ) from None
    if has_header:
        cols = [str(c).strip().lower() for c in df.columns]
        try:
            cu = next(k for k, c in enumerate(cols) if c in _USER_COLS)
            ci = next(k for k, c in enumerate(cols) if c in _ITEM_COLS)
        except StopIteration:
            raise ValueError(
                f"{p}: the header {cols} has no user and item column (expected e.g. user,item,rating)"
            ) from None
        cr = next((k for k, c in enumerate(cols) if c in _RATING_COLS), None)
    else:
        if df.shape[1] < 2:
            raise ValueError(f"{p}: expected at least two columns (user, item), got {df.shape[1]}")
        cu, ci, cr = 0, 1, (2 if df.shape[1] > 2 else None)
    out = pd.DataFrame({"user": df.iloc[:, cu].str.strip(), "item": df.iloc[:, ci].str.strip()})
    if cr is None:
        out["rating"] = 1.0
    else:
        missing = (df.iloc[:, cr].isna() | (df.iloc[:, cr].str.strip() == "")).to_numpy()
        if missing.any():
            row = int(np.flatnonzero(missing)[0]) + (2 if has_header else 1)
            raise ValueError(
                f"{p}, line {row}: the rating field is missing or empty (a row with fewer fields than the "
                f"{df.shape[1]} columns{' of the header' if has_header else ' of the first line'})"
            )
        rating = pd.to_numeric(df.iloc[:, cr], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(rating)
        if bad.any():
            row = int(np.flatnonzero(bad)[0]) + (2 if has_header else 1)
            raise ValueError(
                f"{p}, line {row}: rating must be a finite number, got {df.iloc[row - (2 if has_header else 1), cr]!r}"
            )
        out["rating"] = rating
    absent = (
        out["user"].isna() | out["item"].isna() | (out["user"] == "") | (out["item"] == "")
    ).to_numpy()
    if absent.any():
        row = int(np.flatnonzero(absent)[0]) + (2 if has_header else 1)
        raise ValueError(
            f"{p}, line {row}: the row misses its user or item id (expected at least user{sep}item)"
        )
    if len(out) == 0:
        raise ValueError(f"{p} holds no interaction")
    if min_rating is not None:
        out = out[out["rating"] >= real_scalar("min_rating", min_rating)].reset_index(drop=True)
    return out


@_doc
@dataclass(frozen=True)
class Interactions:
    """An implicit-feedback data set: (user, item) index pairs in train / validation / test.

    A frozen dataclass, usually built by :func:`load_split`, :func:`split_interactions` or
    :func:`load_movielens_dir`; every parameter is also an attribute of the same name.

    Parameters
    ----------
    n_users, n_items : int
        Sizes of the id spaces (indices run over ``0 .. n_users - 1`` and ``0 .. n_items - 1``).
    train : ndarray of int64, shape (n_train, 2)
        Unique (user, item) training pairs: the positives, and the items never drawn as negatives.
    test : ndarray of int64, shape (n_test, 2)
        Unique (user, item) test pairs, disjoint from ``train`` (possibly empty).
    valid : ndarray of int64, shape (n_valid, 2)
        Validation pairs carved out of train by :meth:`with_validation` (default: empty).
    user_ids, item_ids : ndarray of str, shape (n_users,) and (n_items,), optional
        The raw id of each index as read from the files (default None: ids are the indices).
    name : str
        A label for results files and messages (default ``"interactions"``).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import Interactions
    >>> d = Interactions(2, 3, np.array([[0, 0], [1, 2]]), np.array([[0, 1]]))
    >>> d.train_mask().astype(int).tolist(), d.item_counts().tolist()
    ([[1, 0, 0], [0, 0, 1]], [1.0, 0.0, 1.0])
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
        """Training popularity pop_l: number of training interactions of each item.

        Returns
        -------
        ndarray of float64, shape (n_items,)
            pop_l of each item (the counts of BNS's prior, eq. 4.16, and of PNS).
        """
        return np.bincount(self.train[:, 1], minlength=self.n_items).astype(np.float64)

    def train_csr(self) -> tuple[IntArray, IntArray]:
        """Each user's training items in compressed sparse row form, sorted (for membership tests).

        %(csr_returns_train)s
        """
        return _csr(self.train, self.n_users)

    def valid_csr(self) -> tuple[IntArray, IntArray]:
        """Each user's validation items in compressed sparse row form (as :meth:`train_csr`).

        %(csr_returns_valid)s
        """
        return _csr(self.valid, self.n_users)

    def test_csr(self) -> tuple[IntArray, IntArray]:
        """The test items of each user in compressed sparse row form, as :meth:`train_csr` gives the training ones.

        %(csr_returns_test)s
        """
        return _csr(self.test, self.n_users)

    def train_mask(self) -> np.ndarray:
        """Dense boolean matrix [n_users, n_items], True at training interactions.

        For small data and tests: the trainers and the evaluation use :meth:`train_csr` (memory
        proportional to the interactions, not to n_users x n_items).

        %(mask_returns_train)s
        """
        return _mask(self.train, self.n_users, self.n_items)

    def test_mask(self) -> np.ndarray:
        """Dense boolean matrix [n_users, n_items], True at test interactions.

        %(mask_returns_test)s
        """
        return _mask(self.test, self.n_users, self.n_items)

    def valid_mask(self) -> np.ndarray:
        """Dense boolean matrix [n_users, n_items], True at validation interactions.

        %(mask_returns_valid)s
        """
        return _mask(self.valid, self.n_users, self.n_items)

    @renamed_keyword("seed", "rng")
    def with_validation(self, fraction: float = 0.1, rng: RNGLike = 0) -> Interactions:
        """Move a random ``fraction`` of the training pairs into ``valid`` (seeded; test untouched).

        The rule: a permutation of the training rows by ``numpy.random.default_rng(rng)``; the
        first ``round(fraction * n_train)`` rows become validation. Used for early stopping so
        that no choice is made on the test split.

        Parameters
        ----------
        fraction : float
            Share of the training pairs moved, in [0, 1) (default 0.1); 0 returns ``self``.
        rng : None, int, SeedSequence or numpy.random.Generator
            Seed of the permutation (default 0; ``seed``: deprecated since 0.1, removed in 0.2).

        Returns
        -------
        Interactions
            A new data set with the remaining training pairs, the same test pairs, the old and
            new validation pairs, and ``"+valid<fraction>"`` appended to the name.

        Examples
        --------
        >>> import numpy as np
        >>> from negtheory.recsys import load_split
        >>> d = load_split(np.array([[u, i] for u in range(2) for i in range(5)]), np.array([[0, 5]]))
        >>> v = d.with_validation(0.2, rng=0)
        >>> len(v.train), len(v.valid), len(v.test)
        (8, 2, 1)
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
        """Sizes and density, e.g. for a results file.

        Returns
        -------
        dict
            ``name``, ``n_users``, ``n_items``, ``n_train``, ``n_valid``, ``n_test`` and
            ``density`` (all pairs over ``n_users * n_items``).
        """
        return dict(
            name=self.name,
            n_users=self.n_users,
            n_items=self.n_items,
            n_train=len(self.train),
            n_valid=len(self.valid),
            n_test=len(self.test),
            density=(len(self.train) + len(self.valid) + len(self.test))
            / (self.n_users * self.n_items),
        )


def _csr(pairs, n_users):
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
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


def _frame(obj, what, format="auto"):
    """A file path, DataFrame or (n, 2|3) array -> DataFrame user, item, rating with string ids."""
    import pandas as pd

    if isinstance(obj, (str, Path)):
        return read_interactions(obj, format=format)
    if isinstance(obj, pd.DataFrame):
        cols = {str(c).lower(): c for c in obj.columns}
        cu = next((cols[c] for c in _USER_COLS if c in cols), None)
        ci = next((cols[c] for c in _ITEM_COLS if c in cols), None)
        if cu is None or ci is None:
            raise ValueError(
                f"{what}: the DataFrame needs user and item columns, got {list(obj.columns)}"
            )
        cr = next((cols[c] for c in _RATING_COLS if c in cols), None)
        rating = obj[cr].to_numpy(dtype=float) if cr is not None else np.ones(len(obj))
        df = pd.DataFrame(
            {
                "user": obj[cu].astype(str).to_numpy(),
                "item": obj[ci].astype(str).to_numpy(),
                "rating": rating,
            }
        )
    else:
        arr = np.asarray(obj)
        if arr.ndim != 2 or arr.shape[1] not in (2, 3):
            raise ValueError(
                f"{what} must be a path, a DataFrame or an array of shape (n, 2) or (n, 3), got shape {arr.shape}"
            )
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ValueError(f"{what} must hold finite ids and ratings")
        ids = arr[:, :2]
        if ids.dtype.kind == "f":
            if not np.all(ids == np.round(ids)):
                raise ValueError(f"{what}: user and item ids must be integers")
            ids = ids.astype(np.int64)
        rating = arr[:, 2].astype(float) if arr.shape[1] == 3 else np.ones(len(arr))
        df = pd.DataFrame(
            {"user": ids[:, 0].astype(str), "item": ids[:, 1].astype(str), "rating": rating}
        )
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
    u = np.fromiter(
        (uidx[v] for v in df["user"].to_numpy(dtype=str)), dtype=np.int64, count=len(df)
    )
    i = np.fromiter(
        (iidx[v] for v in df["item"].to_numpy(dtype=str)), dtype=np.int64, count=len(df)
    )
    return np.unique(np.stack([u, i], axis=1), axis=0)  # a repeated rating counts once


def load_split(
    train: InteractionSource,
    test: InteractionSource,
    *,
    min_rating: float | None = None,
    name: str | None = None,
    format: str = "auto",
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
        The data set's label (default: built from the file names, or ``"train / test"``).
    format : str
        Layout of the files: ``"auto"`` (recognised from each file's content), ``"csv"``,
        ``"movielens-1m"``, ``"yahoo-r3"`` or ``"lightgcn"`` (see :func:`read_interactions`).

    Returns
    -------
    Interactions
        The split, with ``user_ids`` / ``item_ids`` the raw ids of the indices and an empty
        ``valid``.

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
    format = _check_format(format)
    tr = _frame(train, "train", format)
    te = _frame(test, "test", format)
    if min_rating is not None:
        mr = real_scalar("min_rating", min_rating)
        tr, te = tr[tr["rating"] >= mr], te[te["rating"] >= mr]
        if len(tr) == 0:
            raise ValueError(f"no training interaction left with min_rating={min_rating}")
    users, uidx = _id_index(
        np.concatenate([tr["user"].to_numpy(dtype=str), te["user"].to_numpy(dtype=str)])
    )
    items, iidx = _id_index(
        np.concatenate([tr["item"].to_numpy(dtype=str), te["item"].to_numpy(dtype=str)])
    )
    ptr = _pairs(tr, uidx, iidx)
    pte = _pairs(te, uidx, iidx) if len(te) else np.zeros((0, 2), dtype=np.int64)
    if len(pte):
        key_tr = ptr[:, 0] * len(items) + ptr[:, 1]
        pte = pte[~np.isin(pte[:, 0] * len(items) + pte[:, 1], key_tr)]
    if name is None:
        name = f"{train if isinstance(train, (str, Path)) else 'train'} / {test if isinstance(test, (str, Path)) else 'test'}"
    return Interactions(
        len(users), len(items), ptr, pte, user_ids=users, item_ids=items, name=str(name)
    )


@renamed_keyword("seed", "rng")
def split_interactions(
    data: InteractionSource,
    test_fraction: float = 0.2,
    rng: RNGLike = 0,
    *,
    min_rating: float | None = None,
    name: str | None = None,
    format: str = "auto",
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
        Share of the unique pairs that become test (default 0.2, the thesis's 80/20 split).
    rng : int, SeedSequence, Generator or None
        An int is the seed (default 0); a Generator or SeedSequence gives one 63-bit seed;
        ``None`` a fresh one (``seed``: deprecated since 0.1, removed in 0.2).
    min_rating : float, optional
        Keep only ratings >= this value (default: every rating is an implicit positive).
    name : str, optional
        The data set's label (default: built from the file name, the fractions and the seed).
    format : str
        Layout of a file ``data`` (see :func:`read_interactions`; default ``"auto"``).

    Returns
    -------
    Interactions
        The split (empty ``valid``), ids indexed over the whole input.

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
    df = _frame(data, "data", _check_format(format))
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
    return Interactions(
        len(users), len(items), tr, te, user_ids=users, item_ids=items, name=str(name)
    )


@renamed_keyword("seed", "rng")
def load_movielens_dir(
    path: str | os.PathLike[str],
    test_fraction: float = 0.2,
    rng: RNGLike = 0,
    min_rating: float | None = None,
    *,
    format: str = "auto",
) -> Interactions:
    """A data folder (or one file), split 80/20 at random by :func:`split_interactions` (the thesis's protocol).

    The folder holds MovieLens-100K ``u.data``, MovieLens-1M ``ratings.dat``, Yahoo!-R3's
    ``ydata-ymusic-rating-study-v1-u-train.txt`` and ``-u-test.txt``, or LightGCN's ``train.txt``
    and ``test.txt`` (looked for in this order). The files of a released split are pooled and
    split again: the thesis splits every data set 80/20 at random (§4.5.1.1, §5.6.1.1; its
    Table 5.1 counts 821k / 205k Gowalla interactions, not the release's 810k / 217k). To keep a
    released split, pass its files to :func:`load_split`.

    Parameters
    ----------
    path : str or Path
        The folder, or one interaction file.
    test_fraction : float in [0, 1)
        Share of the (user, item) pairs that become test.
    rng : int, SeedSequence, Generator or None
        Seed of the split (``seed``: deprecated since 0.1, removed in 0.2).
    min_rating : float, optional
        Keep only ratings >= this value (default: every rating is a positive).
    format : str
        Layout of the files (see :func:`read_interactions`; default ``"auto"``).

    Returns
    -------
    Interactions
        The split, ids mapped as by :func:`split_interactions`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from negtheory.recsys import load_movielens_dir
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ratings.dat").write_text("".join(f"{u}::{i}::4::0\\n" for u in range(1, 5) for i in range(1, 6)))
    >>> data = load_movielens_dir(d, 0.2, rng=0)
    >>> data.n_users, data.n_items, len(data.train), len(data.test)
    (4, 5, 16, 4)
    """
    import pandas as pd

    seed = int_seed("rng", rng)
    format = _check_format(format)
    files = _folder_files(Path(path))
    for f in files:
        _check_file(f)
    df = (
        _frame(files[0], "data", format)
        if len(files) == 1
        else pd.concat([_frame(f, "data", format) for f in files])
    )
    return split_interactions(
        df, test_fraction, seed, min_rating=min_rating, name=f"{path} split seed {seed}"
    )
