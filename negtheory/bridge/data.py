r"""Data sets for the bridge (no downloads).

* :func:`synthetic_pu` — a positive-unlabeled implicit-feedback generator with ground truth.
  Every user u has a standardised utility z_ui ~ N(0, 1) over the items (a low-rank part plus
  noise). The **positive class** of u is the top tau+ fraction of her items (class prior tau+,
  thesis ch. 6); every sampled negative's true label (false negative = positive class) is known.
  The **observed** interactions are drawn with probability proportional to e^{mu_q z_ui}
  (without replacement, Gumbel top-k): exponential tilting of N(0, 1) by mu_q is N(mu_q, 1), so a
  labeled positive's utility follows q = N(mu_q, 1) against p = N(0, 1) for a random item —
  exactly the label-noise model of Wu et al. (Rethinking InfoNCE, §3), whose label AUC is
  Phi(mu_q / sqrt 2) (eq. 7). Small mu_q = noisy labels.
* :func:`load_digits_views` — scikit-learn's bundled 8x8 digits (1797 images, 10 classes, so
  tau+ ~ 0.1 as in the thesis's image setting) with :func:`augment_digits`, two random views per
  image for contrastive learning; labels only for evaluation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import torch

from .._deprecation import renamed_keyword
from .._rng import int_seed
from .._validation import int_scalar, real_scalar
from ..recsys.interactions import Interactions

if TYPE_CHECKING:
    from .._typing import RNGLike

__all__ = ["RecData", "synthetic_pu", "DigitsData", "load_digits_views", "augment_digits"]


@dataclass
class RecData:
    """Implicit-feedback interactions with a train/test split.

    The fields are the constructor's parameters and are kept as attributes.

    Parameters
    ----------
    n_users, n_items : int
        Numbers of users and items (indices 0..n-1).
    train, test : LongTensor, shape [n, 2]
        (user, item) pairs of the training and test interactions.
    item_counts : Tensor, shape [n_items]
        Training interactions per item (popularity, for BNS's eq. 4.16 and BPRAC's eq. 3.28).
    relevant : BoolTensor, shape [n_users, n_items], optional
        Ground-truth positive class (synthetic data only): a sampled negative j of user u is a
        false negative iff ``relevant[u, j]``. None for real data.
    utility : Tensor, shape [n_users, n_items], optional
        Ground-truth utilities (synthetic only; None for real data).
    name : str, default "rec"
        Name of the data set ("synthetic", ...).
    params : dict, optional
        Generator parameters and ground-truth summaries (e.g. the label AUC); default empty.
    """

    n_users: int
    n_items: int
    train: torch.Tensor
    test: torch.Tensor
    item_counts: torch.Tensor
    relevant: torch.Tensor | None = None
    utility: torch.Tensor | None = None
    name: str = "rec"
    params: dict = field(default_factory=dict)

    def train_mask(self) -> torch.Tensor:
        """Dense boolean mask of the training interactions (excluded at evaluation).

        Returns
        -------
        BoolTensor, shape [n_users, n_items]
            True at every (user, item) pair of ``train``.
        """
        m = torch.zeros(self.n_users, self.n_items, dtype=torch.bool)
        m[self.train[:, 0], self.train[:, 1]] = True
        return m

    def interactions(self) -> Interactions:
        """The same split as a :class:`negtheory.recsys.Interactions` (what the one trainer ranks).

        Returns
        -------
        Interactions
            ``train`` and ``test`` as unique int64 (user, item) pairs, with this data set's sizes
            and name; no validation split.
        """

        def unique(pairs: torch.Tensor) -> np.ndarray:
            return np.unique(pairs.numpy().astype(np.int64).reshape(-1, 2), axis=0)

        return Interactions(
            self.n_users, self.n_items, unique(self.train), unique(self.test), name=self.name
        )


def _gumbel_topk(logits: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k indices per row sampled without replacement with probability proportional to e^logits."""
    g = logits + rng.gumbel(size=logits.shape)
    return np.argsort(-g, axis=1)[:, :k]


@renamed_keyword("seed", "rng")
def synthetic_pu(
    n_users: int = 300,
    n_items: int = 400,
    dim: int = 8,
    tau_plus: float = 0.1,
    mu_q: float = 2.0,
    n_train: int = 20,
    n_test: int = 5,
    signal: float = 0.9,
    rng: RNGLike = 0,
) -> RecData:
    r"""Synthetic positive-unlabeled implicit feedback with ground truth (Wu et al. (Rethinking InfoNCE) §3; Liu Bin's thesis ch. 6).

    .. math::
        z_{ui} = \mathrm{std}_u\big(\sqrt{s}\,\langle a_u, b_i\rangle' + \sqrt{1-s}\,\epsilon_{ui}\big),\qquad
        P(\text{observe } i \mid u) \propto e^{\mu_q z_{ui}},

    with a_u, b_i ~ N(0, I_dim), the inner product standardised (') and every user's utilities
    standardised over the items. Positive class of u: z_ui above its (1 - tau+) quantile.

    Parameters
    ----------
    n_users : int >= 1, default 300
        Number of users.
    n_items : int >= 2, default 400
        Number of items (the catalog; at least ``n_train + n_test``).
    dim : int >= 1, default 8
        Rank of the learnable part of the utilities (dimension of a_u, b_i).
    tau_plus : float in (0, 1)
        Class prior: fraction of every user's items in her positive class.
    mu_q : float >= 0
        Label quality (Wu's mu_q): labeled positives' utilities ~ N(mu_q, 1) approximately
        (exactly for an infinite catalog); 0 = labels carry no information.
    n_train, n_test : int
        Observed interactions per user (disjoint; the test ones are held out).
    signal : float in [0, 1]
        Share s of the utility variance that a rank-``dim`` model can learn.
    rng : int, SeedSequence, Generator or None
        An int is the seed (stored in ``params["seed"]``); a Generator or SeedSequence gives one
        63-bit seed; ``None`` a fresh one (``seed``: deprecated since 0.1, removed in 0.2).

    Returns
    -------
    RecData
        ``params`` holds the arguments plus ``label_auc`` (the empirical P(z_pos > z_item) of the
        training labels) and ``label_auc_theory`` = Phi(mu_q / sqrt 2) (Wu et al., eq. 7). The
        empirical value is somewhat lower (drawing n_train + n_test items without replacement from
        a finite catalog depletes the top of the tilted law); it is the ground truth to use.

    Examples
    --------
    >>> from negtheory.bridge.data import synthetic_pu
    >>> d = synthetic_pu(n_users=50, n_items=100, rng=0)
    >>> d.train.shape[0], d.test.shape[0], int(d.relevant.sum(1)[0])
    (1000, 250, 10)
    >>> round(d.params["label_auc_theory"], 3), round(d.params["label_auc"], 2)   # finite catalog, no replacement
    (0.921, 0.82)
    """
    n_users = int_scalar("n_users", n_users, 1)
    n_items = int_scalar("n_items", n_items, 2)
    dim = int_scalar("dim", dim, 1)
    tau_plus = real_scalar("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True)
    mu_q = real_scalar("mu_q", mu_q, 0.0)
    n_train = int_scalar("n_train", n_train, 1)
    n_test = int_scalar("n_test", n_test, 0)
    if n_train + n_test > n_items:
        raise ValueError(f"n_train + n_test = {n_train + n_test} exceeds n_items = {n_items}")
    signal = real_scalar("signal", signal, 0.0, 1.0)
    seed = int_seed("rng", rng)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n_users, dim))
    b = rng.standard_normal((n_items, dim))
    low = a @ b.T / math.sqrt(dim)
    z = math.sqrt(signal) * low + math.sqrt(1.0 - signal) * rng.standard_normal((n_users, n_items))
    z = (z - z.mean(axis=1, keepdims=True)) / z.std(axis=1, keepdims=True)
    n_rel = max(1, int(round(tau_plus * n_items)))
    thresh = np.sort(z, axis=1)[:, n_items - n_rel][:, None]
    relevant = z >= thresh
    picked = _gumbel_topk(mu_q * z, n_train + n_test, rng)
    users = np.repeat(np.arange(n_users), n_train + n_test).reshape(n_users, -1)
    tr = np.stack([users[:, :n_train].ravel(), picked[:, :n_train].ravel()], axis=1)
    te = np.stack([users[:, n_train:].ravel(), picked[:, n_train:].ravel()], axis=1)
    # ground-truth label AUC: P(z of a labeled positive > z of a uniformly drawn item)
    zpos = z[tr[:, 0], tr[:, 1]]
    ranks = (np.sort(z, axis=1)[tr[:, 0]] < zpos[:, None]).mean(axis=1)
    from scipy.special import ndtr

    params = dict(
        n_users=n_users,
        n_items=n_items,
        dim=dim,
        tau_plus=tau_plus,
        mu_q=mu_q,
        n_train=n_train,
        n_test=n_test,
        signal=signal,
        seed=seed,
        label_auc=float(ranks.mean()),
        label_auc_theory=float(ndtr(mu_q / math.sqrt(2.0))),
    )
    counts = np.bincount(tr[:, 1], minlength=n_items)
    return RecData(
        n_users,
        n_items,
        torch.from_numpy(tr).long(),
        torch.from_numpy(te).long(),
        torch.from_numpy(counts).float(),
        torch.from_numpy(relevant),
        torch.from_numpy(z).float(),
        "synthetic",
        params,
    )


@dataclass
class DigitsData:
    """scikit-learn's digits: ``x`` [n, 64] in [0, 1], labels ``y`` [n], a seeded train/test index split.

    The fields are the constructor's parameters and are kept as attributes.

    Parameters
    ----------
    x : Tensor, shape [n, 64]
        Flattened 8x8 images scaled to [0, 1] (float32).
    y : LongTensor, shape [n]
        Class labels in 0..n_classes-1 (used only by the linear probe).
    train_idx, test_idx : LongTensor
        Disjoint row indices of the training and test images.
    n_classes : int, default 10
        Number of classes.
    """

    x: torch.Tensor
    y: torch.Tensor
    train_idx: torch.Tensor
    test_idx: torch.Tensor
    n_classes: int = 10


@renamed_keyword("seed", "rng")
def load_digits_views(test_fraction: float = 0.3, rng: RNGLike = 0) -> DigitsData:
    r"""The bundled 8x8 digits of scikit-learn (no download), scaled to [0, 1], with a train/test split.

    10 balanced classes: an in-batch negative shares the anchor's class with probability
    tau+ ~ 0.1, the thesis's image setting (ch. 6). Labels are used only by the linear probe.
    ``rng`` (int, SeedSequence, Generator or None; ``seed``: deprecated since 0.1, removed in 0.2) seeds the
    torch Generator of the split: an int directly, anything else through one 63-bit draw.

    Parameters
    ----------
    test_fraction : float in [0, 1], default 0.3
        Share of the 1797 images held out for the linear probe's test set (rounded).
    rng : int, SeedSequence, Generator or None, default 0
        Seeds the split (``seed``: deprecated since 0.1, removed in 0.2).

    Returns
    -------
    DigitsData
        The images, labels and the train / test indices (``n_classes`` = 10).

    Examples
    --------
    >>> from negtheory.bridge.data import load_digits_views
    >>> d = load_digits_views()                                           # doctest: +SKIP
    >>> tuple(d.x.shape), d.n_classes                                     # doctest: +SKIP
    ((1797, 64), 10)
    """
    from sklearn.datasets import load_digits

    ds = load_digits()
    x = torch.tensor(ds.data / 16.0, dtype=torch.float32)
    y = torch.tensor(ds.target, dtype=torch.long)
    g = torch.Generator().manual_seed(int_seed("rng", rng))
    perm = torch.randperm(len(y), generator=g)
    n_test = int(round(test_fraction * len(y)))
    return DigitsData(x, y, perm[n_test:], perm[:n_test])


def augment_digits(x, generator=None, shift=1, noise=0.1, drop=0.1, scale=(0.8, 1.2)):
    r"""A random view of 8x8 digit images ``x`` [B, 64]: shift, intensity scale, pixel drop-out, noise.

    Each image is translated by up to ``shift`` pixels in each direction (zero fill), multiplied
    by a factor in ``scale``, loses a ``drop`` fraction of its pixels and gets N(0, noise^2)
    noise — SimCLR-style augmentations for images too small to crop.

    Parameters
    ----------
    x : Tensor, shape [B, 64]
        Flattened 8x8 images.
    generator : torch.Generator, optional
        Source of the random numbers (None: torch's global generator).
    shift : int >= 0, default 1
        Largest translation in pixels along each axis.
    noise : float >= 0, default 0.1
        Standard deviation of the additive Gaussian noise.
    drop : float in [0, 1], default 0.1
        Probability that a pixel is set to 0.
    scale : tuple of float, default (0.8, 1.2)
        Range (low, high) of the uniform intensity factor.

    Returns
    -------
    Tensor, shape [B, 64]
        One augmented view of each image, in the dtype of ``x``.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.data import augment_digits
    >>> v = augment_digits(torch.ones(2, 64), torch.Generator().manual_seed(0))
    >>> tuple(v.shape)
    (2, 64)
    """
    b = x.shape[0]
    img = x.reshape(b, 1, 8, 8)
    pad = torch.nn.functional.pad(img, (shift, shift, shift, shift))
    dx = torch.randint(0, 2 * shift + 1, (b,), generator=generator)
    dy = torch.randint(0, 2 * shift + 1, (b,), generator=generator)
    rows = dy[:, None] + torch.arange(8)[None, :]  # [b, 8]
    cols = dx[:, None] + torch.arange(8)[None, :]
    out = pad[torch.arange(b)[:, None, None], 0, rows[:, :, None], cols[:, None, :]]
    out = out * torch.empty(b, 1, 1).uniform_(scale[0], scale[1], generator=generator)
    keep = torch.rand(out.shape, generator=generator) >= drop
    out = out * keep + noise * torch.randn(out.shape, generator=generator)
    return out.reshape(b, 64).to(x.dtype)
