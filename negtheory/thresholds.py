r"""Two-threshold split of negatives into false / hard / simple (the threshold-selection note).

The threshold-selection note sorts unlabeled ("negative") candidates by their score and uses two thresholds:
an upper one (threshold1) above which a negative is taken to be a *false* negative, and a
lower one (threshold2) above which it is *hard*; the rest are *simple*. The thresholds are
chosen so that the categories hit target fractions, about 0.1 % false and 5 % hard negatives
(Cai et al., cited by the note). Tables I-II of the note scan a grid of thresholds and keep
threshold1 = 0.335, threshold2 = 0.121.

Category convention (a score on a threshold goes to the *lower* category):

* false negative: s > upper;
* hard negative: lower < s <= upper;
* simple negative: s <= lower;
* known positives (``labels=True``) form their own category and are never split.

Reading of Tables I-II
----------------------
The note's choices are reproduced by one rule: fractions are taken over *all* samples
(positives included; 1 175 226 in the tables), the upper threshold is the smallest one whose
false-negative count does not exceed ``false_frac`` (1165 <= 1175.2 at 0.335; 1682 at 0.33 is
too many) and the lower threshold is the largest one whose hard-negative count reaches
``hard_frac`` (59576 >= 58761.3 at 0.121; 58224 at 0.122 is too few). "Closest to the
target" would have chosen 0.122 in Table II, so the note's rule is the one-sided one; fractions
over the negatives only would have chosen 0.34 in Table I. :func:`choose_thresholds` implements
that rule, on a candidate grid (as in the tables) or on the exact order statistics.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ._validation import as_float_array, as_generator, broadcast, flag, real_array, real_scalar

if TYPE_CHECKING:
    from typing import Any

    import numpy.typing as npt
    import pandas as pd

    from ._typing import ArrayLike, BoolArray, FloatArray, RNGLike

__all__ = [
    "SIMPLE",
    "HARD",
    "FALSE",
    "POSITIVE",
    "CATEGORY_NAMES",
    "categorize",
    "category_counts",
    "threshold_table",
    "choose_thresholds",
    "PAPER_TABLES",
    "paper_table_scores",
]

SIMPLE, HARD, FALSE, POSITIVE = 0, 1, 2, 3
CATEGORY_NAMES = ("simple", "hard", "false", "positive")

#: Tables I-II of the threshold-selection note (counts of each category at the listed thresholds).
PAPER_TABLES: dict[str, Any] = {
    "table1": {
        "upper": (0.35, 0.34, 0.335, 0.33),
        "lower": 0.0,
        "positive": (11540, 11540, 11540, 11540),
        "false": (1036, 1136, 1165, 1682),
        "hard": (616191, 616091, 616062, 615545),
        "simple": (546459, 546459, 546459, 546459),
    },
    "table2": {
        "upper": 0.335,
        "lower": (0.12, 0.121, 0.122, 0.123),
        "positive": (11540, 11540, 11540, 11540),
        "false": (1165, 1165, 1165, 1165),
        "hard": (60705, 59576, 58224, 57079),
        "simple": (1101816, 1102945, 1104297, 1105442),
    },
    "chosen": (0.335, 0.121),
}


def _scores_labels(scores, labels):
    s = real_array("scores", scores)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"scores must be a non-empty 1-D array, got shape {s.shape}")
    if labels is None:
        return s, np.zeros(s.size, dtype=bool)
    lab = np.asarray(labels)
    if lab.shape != s.shape:
        raise ValueError(f"labels must have the shape of scores {s.shape}, got {lab.shape}")
    if lab.dtype != bool:
        if lab.dtype.kind not in "iu" or not np.isin(lab, (0, 1)).all():
            raise ValueError("labels must be boolean (True = known positive) or 0/1 integers")
        lab = lab.astype(bool)
    return s, lab


def categorize(
    scores: ArrayLike, upper: float, lower: float, labels: ArrayLike | None = None
) -> npt.NDArray[np.int8]:
    r"""Category of every sample: SIMPLE (0), HARD (1), FALSE (2) negative, or POSITIVE (3) (threshold-selection note).

    Parameters
    ----------
    scores : array_like, shape (n,)
        Similarity scores of the candidates.
    upper, lower : float
        Thresholds with lower <= upper: s > upper is a false negative, lower < s <= upper hard,
        s <= lower simple.
    labels : array_like of bool, optional
        True marks known positives; they get POSITIVE whatever their score.

    Returns
    -------
    ndarray of int8
        The category code of every sample, shape (n,).

    Examples
    --------
    >>> from negtheory.thresholds import categorize
    >>> categorize([0.5, 0.335, 0.2, 0.121, -0.3], upper=0.335, lower=0.121).tolist()
    [2, 1, 1, 0, 0]
    >>> categorize([0.9, 0.9], 0.335, 0.121, labels=[True, False]).tolist()
    [3, 2]
    """
    s, lab = _scores_labels(scores, labels)
    u = _threshold("upper", upper)
    lo = _threshold("lower", lower)
    if lo > u:
        raise ValueError(f"lower must not exceed upper, got lower={lo!r} > upper={u!r}")
    out = np.where(s > u, FALSE, np.where(s > lo, HARD, SIMPLE)).astype(np.int8)
    out[lab] = POSITIVE
    return out


def _threshold(name, value):
    arr = as_float_array(
        name, value, allow_inf=True
    )  # +-inf allowed: 'no false negatives' / 'no simple negatives'
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a scalar threshold, got an array of shape {arr.shape}")
    return float(arr)


def category_counts(
    scores: ArrayLike, upper: float, lower: float, labels: ArrayLike | None = None
) -> dict[str, int]:
    """Number of samples in each category (threshold-selection note, one column of Tables I-II).

    Parameters
    ----------
    scores : array_like, shape (n,)
        Similarity scores of the samples (non-empty, 1-D).
    upper, lower : float
        Thresholds with lower <= upper, as in :func:`categorize`.
    labels : array_like of bool, optional
        True marks known positives (counted under ``'positive'``, never split).

    Returns
    -------
    dict
        ``{'positive': ..., 'false': ..., 'hard': ..., 'simple': ...}``, the int count of each
        category.

    Examples
    --------
    >>> from negtheory.thresholds import category_counts
    >>> category_counts([0.5, 0.3, 0.2, 0.0], 0.4, 0.1)
    {'positive': 0, 'false': 1, 'hard': 2, 'simple': 1}
    """
    c = np.bincount(categorize(scores, upper, lower, labels), minlength=4)
    return {
        "positive": int(c[POSITIVE]),
        "false": int(c[FALSE]),
        "hard": int(c[HARD]),
        "simple": int(c[SIMPLE]),
    }


def _counts_sorted(neg_sorted, x):
    """#(negatives > x) for an ascending sorted array (vectorised over x)."""
    return neg_sorted.size - np.searchsorted(neg_sorted, x, side="right")


def threshold_table(
    scores: ArrayLike, upper: ArrayLike, lower: ArrayLike, labels: ArrayLike | None = None
) -> pd.DataFrame:
    r"""Counts and fractions of each category over a grid of thresholds, as in Tables I-II of the threshold-selection note.

    Parameters
    ----------
    scores : array_like, shape (n,)
        Similarity scores of the samples (non-empty, 1-D).
    upper, lower : array_like
        Candidate thresholds, broadcast against each other (one row per pair).
    labels : array_like of bool, optional
        Known positives (counted in the totals, never split).

    Returns
    -------
    pandas.DataFrame
        Columns ``upper, lower, positive, false, hard, simple, false_frac, hard_frac`` with the
        fractions taken over all samples (the reading that reproduces the note's choices).

    Examples
    --------
    >>> from negtheory.thresholds import threshold_table
    >>> threshold_table([0.5, 0.3, 0.2, 0.0], upper=[0.4, 0.25], lower=0.1)[["upper", "false", "hard", "simple"]]
       upper  false  hard  simple
    0   0.40      1     2       1
    1   0.25      2     1       1
    """
    import pandas as pd

    s, lab = _scores_labels(scores, labels)
    u = as_float_array("upper", upper, allow_inf=True)
    lo = as_float_array("lower", lower, allow_inf=True)
    u, lo = broadcast(upper=np.atleast_1d(u), lower=np.atleast_1d(lo))
    if (lo > u).any():
        raise ValueError(
            f"lower must not exceed upper, got pairs {list(zip(lo[lo > u][:3].tolist(), u[lo > u][:3].tolist()))}"
        )
    neg = np.sort(s[~lab])
    n_all = s.size
    false = _counts_sorted(neg, u)
    above_lower = _counts_sorted(neg, lo)
    hard = above_lower - false
    simple = neg.size - above_lower
    return pd.DataFrame(
        {
            "upper": u,
            "lower": lo,
            "positive": int(lab.sum()),
            "false": false,
            "hard": hard,
            "simple": simple,
            "false_frac": false / n_all,
            "hard_frac": hard / n_all,
        }
    )


def choose_thresholds(
    scores: ArrayLike,
    false_frac: float = 0.001,
    hard_frac: float = 0.05,
    labels: ArrayLike | None = None,
    *,
    upper_grid: ArrayLike | None = None,
    lower_grid: ArrayLike | None = None,
    denominator: str = "all",
) -> tuple[float, float]:
    r"""Thresholds (upper, lower) that hit target fractions of false and hard negatives (threshold-selection note).

    With N the number of samples (``denominator='all'``; positives included when ``labels``
    are given) or of negatives (``'negatives'``):

    * ``upper`` is the smallest threshold with #false <= floor(false_frac N);
    * ``lower`` is the largest threshold with #hard >= ceil(hard_frac N) given ``upper``.

    Without grids the thresholds are order statistics of the negative scores: ``upper`` is the
    (m + 1)-th largest negative score (m = floor(false_frac N)), so exactly m negatives lie
    above it when there are no ties, and ``lower`` is the largest negative score strictly below
    the one that completes the hard quota (-inf if there is none), so the hard count is exactly
    ceil(hard_frac N) without ties. With grids (``upper_grid``, ``lower_grid``) the same rule
    picks grid values, which is what Tables I-II do (see the module notes).

    Parameters
    ----------
    scores : array_like, shape (n,)
        Similarity scores of the samples (non-empty, 1-D).
    false_frac : float, default 0.001
        Target fraction of false negatives, in [0, 1) (the note's 0.1 %).
    hard_frac : float, default 0.05
        Target fraction of hard negatives, in (0, 1) (the note's 5 %).
    labels : array_like of bool, optional
        Known positives: excluded from the categories, counted in N when denominator='all'.
    upper_grid, lower_grid : array_like, optional
        Candidate thresholds (either or both); ``None`` (default): exact order statistics of the
        negative scores.
    denominator : {'all', 'negatives'}, default 'all'
        N counts every sample (the reading that reproduces Tables I-II) or the negatives only.

    Returns
    -------
    (upper, lower) : tuple of float
        The chosen thresholds, lower <= upper (``lower`` may be -inf); ``ValueError`` when no
        threshold meets the targets.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.thresholds import choose_thresholds, category_counts
    >>> s = np.random.default_rng(0).normal(size=100_000)
    >>> up, lo = choose_thresholds(s, 0.001, 0.05)
    >>> category_counts(s, up, lo)
    {'positive': 0, 'false': 100, 'hard': 5000, 'simple': 94900}
    """
    s, lab = _scores_labels(scores, labels)
    ff = real_scalar("false_frac", false_frac, 0.0, 1.0, hi_open=True)
    hf = real_scalar("hard_frac", hard_frac, 0.0, 1.0, lo_open=True, hi_open=True)
    if not isinstance(denominator, str) or denominator not in ("all", "negatives"):
        raise ValueError(f"denominator must be 'all' or 'negatives', got {denominator!r}")
    neg = np.sort(s[~lab])
    if neg.size == 0:
        raise ValueError("there are no negatives (every sample is labelled positive)")
    n = s.size if denominator == "all" else neg.size
    # a hair of slack so that e.g. 0.05 * 1e5 = 5000.000000000001 does not become 5001
    m = math.floor(ff * n * (1 + 1e-12))
    h = math.ceil(hf * n * (1 - 1e-12))
    desc = neg[::-1]

    if upper_grid is None:
        upper = float(desc[m]) if m < desc.size else -math.inf
    else:
        grid = np.sort(as_float_array("upper_grid", upper_grid, allow_inf=True).ravel())
        ok = grid[_counts_sorted(neg, grid) <= m]
        if ok.size == 0:
            raise ValueError(
                f"no upper threshold in upper_grid keeps the false negatives <= {m}; add larger candidates"
            )
        upper = float(ok[0])
    n_false = int(_counts_sorted(neg, upper))

    if lower_grid is None:
        t = n_false + h  # we need #(neg > lower) >= t
        if t > neg.size:
            raise ValueError(
                f"not enough negatives: {neg.size - n_false} lie at or below upper={upper!r}, the hard quota is {h}"
            )
        below = neg[neg < desc[t - 1]]
        lower = float(below[-1]) if below.size else -math.inf
    else:
        grid = np.sort(as_float_array("lower_grid", lower_grid, allow_inf=True).ravel())
        grid = grid[grid <= upper]
        ok = grid[_counts_sorted(neg, grid) - n_false >= h]
        if ok.size == 0:
            raise ValueError(
                f"no lower threshold in lower_grid (<= upper) gives at least {h} hard negatives; add smaller candidates"
            )
        lower = float(ok[-1])
    return upper, lower


def paper_table_scores(
    rng: RNGLike = None, *, positives: bool = True
) -> tuple[FloatArray, BoolArray]:
    r"""Synthetic scores whose category counts reproduce Tables I-II of the threshold-selection note exactly.

    Negative scores are spread uniformly inside the intervals cut by all the thresholds of the
    two tables (e.g. 29 scores in (0.335, 0.34], 1352 in (0.121, 0.122]), with the counts
    implied by the tables; positives (11540) are uniform in (0.2, 1].

    Parameters
    ----------
    rng : numpy.random.Generator, int or SeedSequence, optional
        Source of randomness (``None``: fresh OS entropy).
    positives : bool, default True
        Include the 11540 positives (shuffled in); False returns the negatives only.

    Returns
    -------
    scores : ndarray, shape (n,)
        The scores (n = 1 175 226 with the positives, 1 163 686 without).
    labels : ndarray of bool, shape (n,)
        True for the positives.

    Examples
    --------
    >>> from negtheory.thresholds import paper_table_scores, category_counts
    >>> s, lab = paper_table_scores(rng=0)
    >>> category_counts(s, 0.335, 0.121, labels=lab)
    {'positive': 11540, 'false': 1165, 'hard': 59576, 'simple': 1102945}
    """
    gen = as_generator(rng)
    t1, t2 = PAPER_TABLES["table1"], PAPER_TABLES["table2"]
    # (lower edge, upper edge, count): differences of consecutive table entries
    bins = [
        (0.35, 1.0, t1["false"][0]),
        (0.34, 0.35, t1["false"][1] - t1["false"][0]),
        (0.335, 0.34, t1["false"][2] - t1["false"][1]),
        (0.33, 0.335, t1["false"][3] - t1["false"][2]),
        (0.123, 0.33, t2["hard"][3] - (t1["false"][3] - t1["false"][2])),
        (0.122, 0.123, t2["hard"][2] - t2["hard"][3]),
        (0.121, 0.122, t2["hard"][1] - t2["hard"][2]),
        (0.12, 0.121, t2["hard"][0] - t2["hard"][1]),
        (0.0, 0.12, t1["hard"][2] - t2["hard"][0]),
        (-1.0, 0.0, t1["simple"][0]),
    ]
    parts = [a + (b - a) * (1.0 - gen.random(c)) for a, b, c in bins]  # uniform on (a, b]
    neg = np.concatenate(parts)
    if not flag("positives", positives):
        return neg, np.zeros(neg.size, dtype=bool)
    npos = t1["positive"][0]
    pos = 0.2 + 0.8 * (1.0 - gen.random(npos))
    scores = np.concatenate([neg, pos])
    labels = np.zeros(scores.size, dtype=bool)
    labels[neg.size :] = True
    perm = gen.permutation(scores.size)
    return scores[perm], labels[perm]
