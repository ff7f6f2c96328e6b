r"""Probes of real recommendation training with the held-out interactions as false-negative labels.

Convention (the TNR of Liu Bin's thesis, eq. 4.27, and its Table 4.5's oracle): an item a user has not
interacted with in training is *unlabeled*; it is a **false negative** when it is one of the user's
held-out interactions (test, and validation when there is one) and a **true negative** otherwise.
The test labels are read by the probe only: never by training, sampling, model selection or the
simulations' inputs (which use the validation split's labels at most).

:class:`ScoreProbe` is a callback of :func:`negtheory.training.fit`, on either engine
(``callbacks=[probe]``, called as ``probe(epoch, scores)``
with the model's scores at initialisation and after every evaluated epoch; ``scores`` is a dense
array or an object with ``block(users)`` returning the rows of a block of users, so the probe never
holds an n_users x n_items matrix). It works through the users in blocks and, from its own random
stream (so the training is unchanged), draws:

**Two disjoint halves, fixed for the run.** Every unlabeled item of user u belongs to the *fit half*
or the *eval half* by a hash of (u, item, seed) (a fair coin per pair, the same at every probe
point); the held-out items are split by the same coin. Nothing on the fit side ever sees an eval
item, and the records hold the item ids (``eval_items``, ``fit_items``) so that this is checked.

* **eval batches** (the eval half): training pairs (u, i) as anchors, each with N distinct
  unlabeled items drawn uniformly from u's eval half (the law of the training sampler RNS, restricted
  to a random half); on these the estimators' real errors are measured;
* **fit batches** (the fit half): per user, ``fit_size`` distinct items of the fit half, drawn
  ``redraws`` times independently, the :data:`TOP_K` largest scores of the user's whole fit half
  (the simulated parent's upper tail, ``fit_top``), and the user's other training positives (the
  training pairs not used as anchors); from these alone come the simulations' score laws.

**The label-free alpha.** With a validation split carved from train (:meth:`Interactions.with_validation`),
the validation items are known held-out positives that training never saw, exchangeable with the
test items. ``alpha_valid_auc`` is P(x_pool < x_valid) pooled over users (pool: the fit batch without
validation items, ties 1/2), corrected for the share c of hidden held-out items in the pool,
A = (A_raw - c/2) / (1 - c), with c estimated from the split's sizes only (the validation items are a
fraction L = n_valid / (n_valid + n_test) of the held-out pairs). ``alpha_hat`` = 3/2 A - 1/4 is the
model's alpha whose own P(x_TN < x_FN) is A (:func:`negtheory.calibration.alpha_from_auc`);
``alpha_at_bound`` says when it is clipped to 1/2 or 1. ``tau_plus_hat`` = |V_u| / (L n_unl,u),
averaged with the anchors' weights.

Measured with the test labels, per call (:meth:`ScoreProbe.frame`):

* ``alpha`` = P(x_TN < x_FN) among the same user's unlabeled items of fit batch 0 (the thesis's
  eq. 6.21 with the false negatives in place of the positives), pooled over users as the sum of
  per-user pair counts (ties count 1/2),

  .. math::
      \alpha = \frac{\sum_u \sum_{f \in FN_u} \sum_{t \in TN_u}
      \big(\mathbb{I}[x_t < x_f] + \tfrac12 \mathbb{I}[x_t = x_f]\big)}{\sum_u |FN_u|\,|TN_u|},

  and ``alpha_model`` = 3/2 alpha - 1/4 clipped to [1/2, 1]; ``tau_plus``, the share of false
  negatives among the fit batch's unlabeled items, weighted by the users' training pairs;
* ``train_auc`` = P(x_pos > x_neg) over the eval anchors' (positive, negative) pairs (ties 1/2),
  the AUC of Wu et al. (Rethinking InfoNCE), eq. 7, at K = 1, and the K* it predicts (:func:`k_star`);
* ``ks_tn``, ``ks_fn``: Kolmogorov-Smirnov distance between the measured TN / FN laws and those
  the theory proposes at ``alpha_hat``, in parent-CDF space (eq. 6.29); at initialisation
  ``ks_prior``, the distance of the scores to the variance-gamma prior of Lemma 3.1 (when the
  initial variance is given);
* each estimator's MSE against theta_SUP on the eval batches (:func:`negtheory.calibration.estimator_errors`,
  at the label-free ``est_alpha`` and ``est_tau_plus``), with its median squared error, its MSE without
  the top 0.1 % of anchors and the share of the summed squared error those anchors carry;
* BNS's posterior P(fn | x) = 1 - unbias (eq. 4.14),

  .. math::
      P(fn \mid \hat x_l) = 1 - \frac{[1 - F(\hat x_l)]\,[1 - P_{fn}(l)]}
      {1 - F(\hat x_l) - P_{fn}(l) + 2 F(\hat x_l)\, P_{fn}(l)},

  with F the eCDF over n + 1 among all the user's n non-interacted items (eq. 4.15) and the prior
  :math:`P_{fn}(l) = \mathrm{pop}_l / N`, N the number of training interactions (eq. 4.16),
  against the observed false-negative frequency in equal-count bins (:meth:`ScoreProbe.calibration`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numba
import numpy as np

from .. import calibration as cal
from .. import estimators as est
from .._docstrings import docstring
from .._rng import int_seed
from .._validation import int_scalar, real_scalar
from .bpr_sgd import bns_prior
from .interactions import _csr

# the opening of the examples: a small random split (see negtheory._docstrings)
_doc = docstring(
    split_example="""
        Examples
        --------
        >>> import numpy as np
        >>> from negtheory.recsys import load_split
        >>> g = np.random.default_rng(0)
        >>> pairs = np.unique(g.integers(0, [20, 60], size=(500, 2)), axis=0)""",
)

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    import pandas as pd

    from .._typing import RNGLike
    from .interactions import Interactions

__all__ = [
    "ScoreProbe",
    "ProbeRecord",
    "FitBatch",
    "probe_scores",
    "finish",
    "k_star",
    "label_fraction",
    "LAW_LEVELS",
    "TOP_K",
]

#: how many of the largest scores of each user's fit half the probe keeps (the calibrated parent's upper tail)
TOP_K = 64

#: levels at which the measured and proposed class-conditional laws are compared (score_laws.csv)
LAW_LEVELS = np.round(np.arange(0.05, 1.0, 0.05), 2)


@dataclass
class FitBatch:
    """One draw of the fit batches (the fit half of every user; module notes).

    Parameters
    ----------
    unlabeled : ndarray of float64, shape (n_users, F)
        Each user's fit-batch scores (NaN-padded).
    items : ndarray of int64, shape (n_users, F)
        Their item ids (-1 at the padding).
    tn : ndarray of bool, shape (n_users, F)
        True-negative labels (False at the padding).
    fn_ranks : ndarray of float64, shape (n_fn,)
        Within-user mid-rank eCDF of every false negative of the batch.
    tau_user : ndarray of float64, shape (n_users,)
        Per-user false-negative share of the batch (NaN without one).
    alpha_user : ndarray of float64, shape (n_users,)
        Per-user P(x_TN < x_FN) (NaN without both classes).
    """

    unlabeled: np.ndarray
    items: np.ndarray
    tn: np.ndarray
    fn_ranks: np.ndarray
    tau_user: np.ndarray
    alpha_user: np.ndarray


def _first_fit(attr: str, doc: str) -> property:
    """A read-only property: field ``attr`` of the record's fit batch 0."""

    def get(self) -> np.ndarray:
        return getattr(self.fits[0], attr)

    get.__doc__ = doc
    return property(get)


@dataclass
class ProbeRecord:
    """What one probe call measured, with the raw probe batches the simulations need.

    A dataclass built by :func:`probe_scores`; every parameter is also an attribute of the same
    name. ``fit_unlabeled``, ``fit_tn``, ``fit_fn_ranks``, ``tau_user`` and ``alpha_user`` are
    those of fit batch 0.

    Parameters
    ----------
    epoch : int
        The probe point: 0 at initialisation, else the 1-based evaluated epoch.
    measured : dict
        Scalar measurements by name (module notes).
    eval_users : ndarray of int64, shape (A,)
        Eval batches: the user of each anchor.
    eval_items : ndarray of int64, shape (A, N)
        The ids of the N unlabeled items drawn for the anchor (eval half).
    eval_pos : ndarray of float64, shape (A,)
        The anchor's positive score.
    eval_neg : ndarray of float64, shape (A, N)
        The scores of the N unlabeled items.
    eval_tn : ndarray of bool, shape (A, N)
        True where the unlabeled item is a true negative (not a held-out item of the user).
    fit_pos : ndarray of float64, shape (n_users, P)
        Each user's fit positives (NaN-padded).
    fits : list of FitBatch
        The ``redraws`` independent draws of the fit batches (fit half).
    posterior : ndarray of float64, shape (n, 3)
        Per item of fit batch 0: predicted P(fn | x) (eq. 4.14-4.16), 1.0 for a false negative and
        0.0 otherwise, and the prediction with the prior read as pop_l / n_users.
    law_quantiles : dict
        ``{"tn": ..., "fn": ...}``: quantiles at :data:`LAW_LEVELS` of the measured TN / FN laws
        in parent-CDF space (default: empty).
    fit_top : ndarray of float64, shape (n_users, K)
        The :data:`TOP_K` largest scores of each user's whole fit half, ascending, NaN-padded (the
        calibrated parent's upper tail; default: empty).
    n_fit_half : ndarray of int64, shape (n_users,)
        The size of each user's fit half (default: empty).
    fit_top_tn, n_tn_half : ndarray
        The same among the fit half's true negatives, and their number (test labels: the oracle
        control's TN law only; default: empty).
    tau_user_hat : ndarray of float64, shape (n_users,)
        The label-free false-negative share of each user, proportional to the user's activity:
        tau+_u = |T_u| rho / n_unl,u, with |T_u| the user's training pairs, n_unl,u the user's
        unlabeled items and rho the split's held-out (test and validation) pairs per training
        pair (split sizes only, no label; default: empty).
    """

    epoch: int
    measured: dict
    eval_users: np.ndarray
    eval_items: np.ndarray
    eval_pos: np.ndarray
    eval_neg: np.ndarray
    eval_tn: np.ndarray
    fit_pos: np.ndarray
    fits: list
    posterior: np.ndarray = field(repr=False)
    fit_top: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)
    n_fit_half: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False)
    fit_top_tn: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)
    n_tn_half: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False)
    law_quantiles: dict = field(default_factory=dict, repr=False)
    tau_user_hat: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)

    # fit batch 0's fields, for callers of the one-batch record
    fit_unlabeled = _first_fit(
        "unlabeled", "Fit batch 0's unlabeled scores (n_users, F), NaN-padded."
    )
    fit_tn = _first_fit("tn", "Fit batch 0's true-negative labels.")
    fit_items = _first_fit("items", "Fit batch 0's item ids (-1 at the padding).")
    fit_fn_ranks = _first_fit("fn_ranks", "Fit batch 0's within-user false-negative ranks.")
    tau_user = _first_fit("tau_user", "Fit batch 0's per-user false-negative share.")
    alpha_user = _first_fit("alpha_user", "Fit batch 0's per-user P(x_TN < x_FN).")


# ------------------------------------------------------------------------------------------------
# the fixed fit / eval halves and the blocked pass over the users (numba)
# ------------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _half(u, i, salt):
    """The side of unlabeled item i of user u: 0 = fit half, 1 = eval half (splitmix64 hash of
    (u, i, salt)), fixed for the whole run and independent of the epoch, so the two halves never share an item."""
    z = (np.uint64(u) * np.uint64(0x9E3779B97F4A7C15)) ^ (np.uint64(i) + np.uint64(salt))
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z & np.uint64(1))


@numba.njit(cache=True, inline="always")
def _mark_user(code, u, t_ptr, t_idx, h_ptr, h_idx, v_ptr, v_idx, on):
    """Set (``on``) the codes of user u's training (1), test (2) and validation (3) items, or reset them to 0."""
    for p in range(t_ptr[u], t_ptr[u + 1]):
        code[t_idx[p]] = 1 if on else 0
    for p in range(h_ptr[u], h_ptr[u + 1]):
        code[h_idx[p]] = 2 if on else 0
    for p in range(v_ptr[u], v_ptr[u + 1]):
        code[v_idx[p]] = 3 if on else 0


@numba.njit(cache=True)
def _probe_block(
    rows,
    users,
    t_ptr,
    t_idx,
    h_ptr,
    h_idx,
    v_ptr,
    v_idx,
    salt,
    seed,
    f,
    redraws,
    a_ptr,
    n_neg,
    fit_items,
    fit_scores,
    fit_code,
    le,
    n_unl,
    n_fit_half,
    vnum,
    vden,
    vpool,
    eval_items,
    eval_scores,
    eval_code,
    eval_ok,
    top,
    top_tn,
    n_tn_half,
):
    """One block of users (row r of ``rows`` is user ``users[r]``'s scores over every item).

    Codes: 0 = true negative (unlabeled, not held out), 2 = held-out test item, 3 = held-out
    validation item; training items (code 1) are never drawn. Per user: ``redraws`` fit batches of
    min(f, #fit half) distinct items of the fit half (partial Fisher-Yates), the anchors' N distinct
    eval items from the eval half, BNS's count of the user's unlabeled items <= each item of fit
    batch 0 (eq. 4.15), and the pairs (pool item < validation item) of the label-free alpha estimate
    (pool: fit batch 0 without validation items).
    """
    np.random.seed(seed)
    n_items = rows.shape[1]
    code = np.zeros(n_items, dtype=np.int8)
    fbuf = np.empty(n_items, dtype=np.int64)
    ebuf = np.empty(n_items, dtype=np.int64)
    for r in range(users.size):
        u = users[r]
        _mark_user(code, u, t_ptr, t_idx, h_ptr, h_idx, v_ptr, v_idx, True)
        nf = 0
        ne = 0
        for j in range(n_items):
            if code[j] != 1:
                if _half(u, j, salt) == 0:
                    fbuf[nf] = j
                    nf += 1
                else:
                    ebuf[ne] = j
                    ne += 1
        n_unl[r] = nf + ne
        n_fit_half[r] = nf
        # the fit half's K largest scores (ascending, NaN-padded): the parent's upper tail beyond the batch
        K = top.shape[1]
        if nf > 0:
            hv = np.empty(nf)
            for q in range(nf):
                hv[q] = rows[r, fbuf[q]]
            kk = min(K, nf)
            hk = np.sort(np.partition(hv, nf - kk)[nf - kk :])  # the kk largest, O(nf)
            for q in range(kk):
                top[r, q] = hk[q]
            # the same among the fit half's true negatives (test labels: for the oracle control only)
            nt = 0
            for q in range(nf):
                if code[fbuf[q]] == 0:
                    hv[nt] = rows[r, fbuf[q]]
                    nt += 1
            n_tn_half[r] = nt
            if nt > 0:
                kt = min(K, nt)
                ht = np.sort(np.partition(hv[:nt], nt - kt)[nt - kt :])
                for q in range(kt):
                    top_tn[r, q] = ht[q]
        m = min(f, nf)
        for d in range(redraws):
            for k in range(m):
                s = k + np.random.randint(0, nf - k)
                tmp = fbuf[k]
                fbuf[k] = fbuf[s]
                fbuf[s] = tmp
                fit_items[d, r, k] = fbuf[k]
                fit_scores[d, r, k] = rows[r, fbuf[k]]
                fit_code[d, r, k] = code[fbuf[k]]
        # BNS's F numerator for fit batch 0: # of all the user's unlabeled items <= each fit item
        if m > 0:
            vals = fit_scores[0, r, :m].copy()
            order = np.argsort(vals)
            sv = vals[order]
            cnt = np.zeros(m + 1, dtype=np.int64)
            for j in range(n_items):
                if code[j] != 1:
                    cnt[np.searchsorted(sv, rows[r, j], side="left")] += 1
            acc = 0
            for q in range(m):
                acc += cnt[q]
                le[r, order[q]] = acc
            # label-free alpha: validation items against the pool (fit batch 0 without validation items)
            npool = 0
            for q in range(m):
                if fit_code[0, r, q] != 3:
                    npool += 1
            pool = np.empty(npool)
            c = 0
            for q in range(m):
                if fit_code[0, r, q] != 3:
                    pool[c] = fit_scores[0, r, q]
                    c += 1
            pool.sort()
            num = 0.0
            nv = 0
            for p in range(v_ptr[u], v_ptr[u + 1]):
                x = rows[r, v_idx[p]]
                lo = np.searchsorted(pool, x, side="left")
                hi = np.searchsorted(pool, x, side="right")
                num += lo + 0.5 * (hi - lo)
                nv += 1
            vnum[r] = num
            vden[r] = nv * npool
            vpool[r] = npool
        # the anchors' eval items: N distinct items of the eval half, uniformly
        for a in range(a_ptr[r], a_ptr[r + 1]):
            if ne < n_neg:
                eval_ok[a] = False
                continue
            eval_ok[a] = True
            for k in range(n_neg):
                s = k + np.random.randint(0, ne - k)
                tmp = ebuf[k]
                ebuf[k] = ebuf[s]
                ebuf[s] = tmp
                eval_items[a, k] = ebuf[k]
                eval_scores[a, k] = rows[r, ebuf[k]]
                eval_code[a, k] = code[ebuf[k]]
        _mark_user(code, u, t_ptr, t_idx, h_ptr, h_idx, v_ptr, v_idx, False)


@numba.njit(cache=True)
def _fit_row_stats(fit_unl, fit_tn, n_fit, pair_num, pair_den, G):
    """Per user u (first n_fit[u] entries of row u): alpha's (FN, TN) pair counts, 1[t < f] + 1[t = f] / 2
    (eq. 6.21 with the false negatives), and G[u, k], the mid-rank eCDF of item k in the user's fit batch."""
    for u in range(fit_unl.shape[0]):
        m = n_fit[u]
        if m == 0:
            continue
        row = fit_unl[u, :m]
        order = np.argsort(row)
        sv = row[order]
        k = 0
        while k < m:
            e = k
            while e + 1 < m and sv[e + 1] == sv[k]:
                e += 1
            mid = 0.5 * (k + e + 1) / m
            for q in range(k, e + 1):
                G[u, order[q]] = mid
            k = e + 1
        tvals = np.empty(m)
        n_t = 0
        for q in range(m):
            if fit_tn[u, order[q]]:
                tvals[n_t] = sv[q]
                n_t += 1
        tvals = tvals[:n_t]
        num = 0.0
        n_f = 0
        for q in range(m):
            if not fit_tn[u, q]:
                n_f += 1
                lo = np.searchsorted(tvals, row[q], side="left")
                hi = np.searchsorted(tvals, row[q], side="right")
                num += lo + 0.5 * (hi - lo)
        pair_num[u] = num
        pair_den[u] = n_f * n_t


def k_star(train_auc: float) -> int:
    r"""Wu et al.'s K* from a training AUC (Rethinking InfoNCE, eq. 7 then §4.3).

    The AUC of the model trained with K = 1 gives the label quality :math:`\mu_q` by eq. 7 of
    Wu et al. (Rethinking InfoNCE), which has the closed form

    .. math::
        \mathrm{AUC} = \int_{-\infty}^{\infty} \phi(x - \mu_q)\, \Phi(x)\, dx
        = \Phi\big(\mu_q / \sqrt{2}\big),

    and K* maximises the training effectiveness averaged over a 100-step trajectory
    (:func:`negtheory.infonce.optimal_k_from_auc` with ``steps=100``, λ = 0.9).

    Parameters
    ----------
    train_auc : float
        P(x_pos > x_neg) of the model, in [0, 1]; clipped to [0.5, 0.999] (the prediction is
        not defined at 1).

    Returns
    -------
    int
        K*, at least 1; 1 when ``train_auc`` is at or below 1/2 (no better than chance).

    Examples
    --------
    >>> from negtheory.recsys.score_probe import k_star
    >>> k_star(0.75)
    4
    """
    from ..infonce import optimal_k_from_auc

    auc = float(train_auc)
    return int(optimal_k_from_auc(min(max(auc, 0.5), 0.999), steps=100)) if auc > 0.5 else 1


def _ks_sorted(x, cdf):
    """Two-sided Kolmogorov-Smirnov distance of a *sorted* sample to a CDF."""
    m = x.size
    if m == 0:
        return math.nan
    c = cdf(x)
    k = np.arange(1, m + 1)
    return float(max(np.max(k / m - c), np.max(c - (k - 1) / m)))


def _sorted_quantiles(x):
    """numpy's default (linear) quantiles at LAW_LEVELS of a sorted sample; NaN when empty."""
    if x.size == 0:
        return np.full(LAW_LEVELS.size, np.nan)
    pos = LAW_LEVELS * (x.size - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, x.size - 1)
    return x[lo] + (pos - lo) * (x[hi] - x[lo])


def _ks(sample, cdf):
    """Two-sided Kolmogorov-Smirnov distance of a sample to a CDF (callable on sorted values)."""
    return _ks_sorted(np.sort(np.asarray(sample, dtype=np.float64)), cdf)


def _row_source(scores, n_users: int, n_items: int):
    """A function users -> their score rows (float32 or float64), for a dense array or a block source."""
    if hasattr(scores, "block") and not isinstance(scores, np.ndarray):
        shape = tuple(getattr(scores, "shape", (n_users, n_items)))
        if shape != (n_users, n_items):
            raise ValueError(f"scores must have shape {(n_users, n_items)}, got {shape}")
        return scores.block
    s = np.asarray(scores)
    if s.dtype not in (np.float32, np.float64):
        s = s.astype(np.float64)
    if s.shape != (n_users, n_items):
        raise ValueError(f"scores must have shape {(n_users, n_items)}, got {s.shape}")
    return lambda users: s[users]


def _block_size(n_items: int) -> int:
    """Users per block: about 4M scores (32 MB in float64), whatever the number of users (so the
    draws, seeded per block, do not depend on anything but the data's shape)."""
    return max(1, (1 << 22) // max(n_items, 1))


def label_fraction(data: Interactions) -> float:
    """Share of the held-out pairs that the validation split holds, L = n_valid / (n_valid + n_test).

    A property of the split's sizes (no item's label): it scales the validation items seen among a
    user's unlabeled items up to all its held-out items (module notes).

    Parameters
    ----------
    data : Interactions
        The split.

    Returns
    -------
    float
        L in [0, 1]; NaN when there is no held-out pair.
    """
    nv, nt = len(data.valid), len(data.test)
    return nv / (nv + nt) if nv + nt else math.nan


@_doc
def probe_scores(
    scores: Any,
    data: Interactions,
    *,
    epoch: int = 0,
    n_negatives: int = 5,
    n_anchors: int = 4096,
    fit_size: int = 256,
    redraws: int = 1,
    t: float = 1.0,
    beta: float = 0.5,
    hcl_beta: float = 0.5,
    prior: tuple[int, float] | None = None,
    rng: RNGLike = 0,
    defer: bool = False,
) -> ProbeRecord:
    r"""Measure one probe point of a model's scores (module notes); the engine of :class:`ScoreProbe`.

    Parameters
    ----------
    scores : ndarray of shape (n_users, n_items), or an object with ``block(users)``
        The model's scores x_ui, dense or by blocks of users (never materialised whole then).
    data : Interactions
        The split: training pairs (anchors, and the items never sampled), held-out pairs
        (test and validation: the false-negative labels; validation labels also give the
        label-free alpha).
    epoch : int
        Recorded with the result; with ``rng`` it seeds this probe point's draws.
    n_negatives : int
        N unlabeled items per eval anchor (the training's N).
    n_anchors : int
        Eval anchors, drawn without replacement from the training pairs (at most half of them:
        the rest are the fit positives).
    fit_size : int
        Items per user in each fit batch, from the user's fit half (all of them if fewer).
    redraws : int
        Independent fit batches per probe point (default 1).
    t : float
        Temperature of the estimators' map exp(s / t).
    beta, hcl_beta : float
        BCL's hardness (eq. 6.25) and HCL's concentration for the measured errors.
    prior : (d, lam), optional
        Embedding dimension and variance parameter of the variance-gamma prior of the scores
        (Lemma 3.1); with it, ``ks_prior`` is measured (give it at initialisation).
    rng : int, SeedSequence, Generator or None
        The probe's own stream (never the training's); it also fixes the fit / eval halves,
        the same at every epoch.
    defer : bool
        Leave the estimators' errors and K* to :func:`finish`.

    Returns
    -------
    ProbeRecord
        The measurements (``measured``) and the raw eval and fit batches.

    %(split_example)s
    >>> from negtheory.recsys.score_probe import probe_scores
    >>> d = load_split(pairs[::2], pairs[1::2])
    >>> rec = probe_scores(g.normal(size=(20, 60)), d, n_anchors=64, fit_size=20)
    >>> rec.eval_neg.shape, len(rec.fits)
    ((64, 5), 1)
    """
    t_start = time.perf_counter()
    n_users, n_items = data.n_users, data.n_items
    rows_of = _row_source(scores, n_users, n_items)
    n_negatives = int_scalar("n_negatives", n_negatives, 1)
    n_anchors = int_scalar("n_anchors", n_anchors, 1)
    fit_size = int_scalar("fit_size", fit_size, 2)
    redraws = int_scalar("redraws", redraws, 1)
    t = real_scalar("t", t, 0.0, lo_open=True)
    seed = int_seed("rng", rng)
    g = np.random.default_rng(np.random.SeedSequence([seed, int(epoch)]))
    salt = int(
        np.random.SeedSequence([seed, 7919]).generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)
    )

    pairs = data.train
    anchors, fitpos, fp = _split_training_pairs(pairs, n_anchors, g)
    bp = _block_pass(rows_of, data, anchors, fp, g, salt, int(fit_size), redraws, n_negatives)
    ok = bp.eval_ok
    anchors, eval_items, eval_neg, eval_code, eval_pos = (
        anchors[ok],
        bp.eval_items[ok],
        bp.eval_neg[ok],
        bp.eval_code[ok],
        bp.eval_pos[ok],
    )
    users = anchors[:, 0]
    eval_tn = eval_code == 0
    fit_pos = _fit_positive_matrix(fitpos, fp, bp.fp_scores, n_users)
    w_user = np.bincount(pairs[:, 0], minlength=n_users).astype(np.float64)
    fits, alpha, tau_plus, (G0, is_fn0, fu0) = _fit_batches(
        bp, w_user, int(fit_size), redraws, n_users
    )
    lf = _label_free(data, bp, w_user, alpha, tau_plus)

    a_m = float(cal.alpha_from_auc(alpha)) if np.isfinite(alpha) else 0.5
    v_tn, v_fn, ks_tn, ks_fn = _parent_cdf_laws(G0, is_fn0, lf["alpha_hat"], lf["est_tau_plus"])
    measured = {"alpha": alpha, "alpha_model": a_m}
    measured.update(
        (k, lf[k])
        for k in (
            "alpha_valid_auc",
            "alpha_valid_raw",
            "alpha_hat",
            "alpha_at_bound",
            "alpha_source",
        )
    )
    measured["tau_plus"] = tau_plus
    measured.update((k, lf[k]) for k in ("tau_plus_hat", "est_alpha", "est_tau_plus"))
    measured["tau_plus_eval"] = float(1.0 - eval_tn.mean()) if eval_tn.size else math.nan
    measured.update(
        n=n_negatives,
        n_anchors=int(len(users)),
        ks_tn=ks_tn,
        ks_fn=ks_fn,
        n_fn_fit=int(is_fn0.sum()),
    )
    measured["label_fraction"] = lf["label_fraction"]
    auc = (
        float(((eval_neg < eval_pos[:, None]) + 0.5 * (eval_neg == eval_pos[:, None])).mean())
        if len(users)
        else math.nan
    )
    measured["train_auc"] = auc
    if prior is not None:
        measured["ks_prior"] = _ks_prior(fits[0].unlabeled, prior, g)
    measured.update(t=t, beta=beta, hcl_beta=hcl_beta)

    posterior = _bns_posterior(data, bp, fu0, is_fn0)
    pred = posterior[:, 0]
    measured["probe_seconds"] = (
        time.perf_counter() - t_start
    )  # the measurement's own cost (not finish's)
    measured["posterior_mean"] = float(pred.mean()) if pred.size else math.nan
    measured["fn_rate_fit"] = float(is_fn0.mean()) if is_fn0.size else math.nan

    rec = ProbeRecord(
        epoch=int(epoch),
        measured=measured,
        eval_users=users,
        eval_items=eval_items,
        eval_pos=eval_pos,
        eval_neg=eval_neg,
        eval_tn=eval_tn,
        fit_pos=fit_pos,
        fits=fits,
        posterior=posterior,
        law_quantiles={"tn": _sorted_quantiles(v_tn), "fn": _sorted_quantiles(v_fn)},
        fit_top=bp.fit_top,
        n_fit_half=bp.n_fit_half,
        fit_top_tn=bp.fit_top_tn,
        n_tn_half=bp.n_tn_half,
        tau_user_hat=_activity_tau(data, w_user, bp.n_unl),
    )
    if not defer:
        finish(rec)
    return rec


def _split_training_pairs(pairs, n_anchors, g):
    """The training pairs as eval anchors and fit positives: (anchors, fit positives, fit positives by user)."""
    perm = g.permutation(len(pairs))
    a = min(n_anchors, max(len(pairs) // 2, 1))
    anchors = pairs[np.sort(perm[:a])]  # sorted by user (train pairs are unique and user-sorted)
    anchors = anchors[np.argsort(anchors[:, 0], kind="stable")]
    fitpos = pairs[perm[a:]]
    fp = fitpos[np.argsort(fitpos[:, 0], kind="stable")]  # the fit positives by user
    return anchors, fitpos, fp


def _parent_cdf_laws(G0, is_fn0, alpha_hat, est_tau):
    """Score laws in parent-CDF space (eq. 6.29) at the label-free alpha: sorted v of TN and FN, their KS distances."""
    tp_c = min(max(est_tau, 0.0), 0.999)
    v = cal.class_conditional_ppf(G0, "un", alpha_hat, tp_c)
    v_tn, v_fn = np.sort(v[~is_fn0]), np.sort(v[is_fn0])
    ks_tn = _ks_sorted(v_tn, lambda x: cal.class_conditional_cdf(np.clip(x, 0, 1), "tn", alpha_hat))
    ks_fn = _ks_sorted(v_fn, lambda x: cal.class_conditional_cdf(np.clip(x, 0, 1), "fn", alpha_hat))
    return v_tn, v_fn, ks_tn, ks_fn


def _ks_prior(unlabeled, prior, g):
    """KS distance of (at most 4000 of) fit batch 0's unlabeled scores to the variance-gamma prior (d, lam)."""
    from ..variance_gamma import inner_product

    d_emb, lam = prior
    sample = unlabeled[np.isfinite(unlabeled)]
    sample = sample[g.permutation(sample.size)[:4000]]
    return _ks(sample, inner_product(int(d_emb), float(lam)).cdf)


def _block_pass(rows_of, data, anchors, fp, g, salt, f, redraws, n_negatives):
    """The one pass over the score rows, by blocks of users (:func:`_probe_block` per block).

    Returns a namespace of the fit batches' items / scores / codes (``[redraws, n_users, f]``),
    the per-user counts and validation-AUC sums, the eval batch (before dropping anchors without
    a full batch), the top scores, and the fit positives' scores gathered from the same rows.
    """
    n_users, n_items = data.n_users, data.n_items
    t_ptr, t_idx = data.train_csr()
    held = data.test  # test items: code 2; validation items (code 3) come from v_ptr / v_idx
    h_ptr, h_idx = _csr(held, n_users)
    v_ptr, v_idx = _csr(data.valid, n_users)
    A = len(anchors)
    bp = SimpleNamespace(
        v_ptr=v_ptr,
        fit_items=np.full((redraws, n_users, f), -1, dtype=np.int64),
        fit_scores=np.full((redraws, n_users, f), np.nan),
        fit_code=np.full((redraws, n_users, f), -1, dtype=np.int8),
        le_rows=np.zeros((n_users, f), dtype=np.int64),
        n_unl=np.zeros(n_users, dtype=np.int64),
        n_fit_half=np.zeros(n_users, dtype=np.int64),
        vnum=np.zeros(n_users),
        vden=np.zeros(n_users),
        vpool=np.zeros(n_users),
        eval_items=np.zeros((A, n_negatives), dtype=np.int64),
        eval_neg=np.zeros((A, n_negatives)),
        eval_code=np.zeros((A, n_negatives), dtype=np.int8),
        eval_ok=np.zeros(A, dtype=np.bool_),
        eval_pos=np.zeros(A),
        fit_top=np.full((n_users, TOP_K), np.nan),
        fit_top_tn=np.full((n_users, TOP_K), np.nan),
        n_tn_half=np.zeros(n_users, dtype=np.int64),
        fp_scores=np.empty(len(fp)),
    )
    a_start = np.searchsorted(anchors[:, 0], np.arange(n_users + 1), side="left").astype(np.int64)
    bs = _block_size(n_items)
    starts = np.arange(0, n_users, bs)
    block_seeds = g.integers(0, 2**31 - 1, size=len(starts))
    for b, s0 in enumerate(starts):
        users = np.arange(s0, min(s0 + bs, n_users), dtype=np.int64)
        rows = np.asarray(rows_of(users))
        if rows.dtype not in (np.float32, np.float64):
            rows = rows.astype(np.float64)
        if not np.all(np.isfinite(rows)):
            raise ValueError("scores must be finite")
        sl = slice(s0, s0 + len(users))
        a_ptr = a_start[s0 : s0 + len(users) + 1]
        _probe_block(
            rows,
            users,
            t_ptr,
            t_idx,
            h_ptr,
            h_idx,
            v_ptr,
            v_idx,
            np.uint64(salt),
            int(block_seeds[b]),
            f,
            redraws,
            a_ptr,
            n_negatives,
            bp.fit_items[:, sl],
            bp.fit_scores[:, sl],
            bp.fit_code[:, sl],
            bp.le_rows[sl],
            bp.n_unl[sl],
            bp.n_fit_half[sl],
            bp.vnum[sl],
            bp.vden[sl],
            bp.vpool[sl],
            bp.eval_items,
            bp.eval_neg,
            bp.eval_code,
            bp.eval_ok,
            bp.fit_top[sl],
            bp.fit_top_tn[sl],
            bp.n_tn_half[sl],
        )
        lo, hi = a_ptr[0], a_ptr[-1]
        if hi > lo:
            bp.eval_pos[lo:hi] = rows[anchors[lo:hi, 0] - s0, anchors[lo:hi, 1]]
        lo, hi = np.searchsorted(fp[:, 0], [s0, s0 + len(users)])
        if (
            hi > lo
        ):  # the fit positives of these users, from the same rows (one pass over the scores)
            bp.fp_scores[lo:hi] = rows[fp[lo:hi, 0] - s0, fp[lo:hi, 1]]
    return bp


def _fit_positive_matrix(fitpos, fp, fp_scores, n_users):
    """The fit positives' scores by user, NaN-padded: shape (n_users, max positives per user)."""
    pos_counts = np.bincount(fitpos[:, 0], minlength=n_users)
    p_max = max(int(pos_counts.max()) if n_users else 1, 1)
    fit_pos = np.full((n_users, p_max), np.nan)
    start = np.concatenate([[0], np.cumsum(pos_counts)[:-1]])
    col = np.arange(len(fp)) - start[fp[:, 0]]
    fit_pos[fp[:, 0], col] = fp_scores
    return fit_pos


def _fit_batches(bp, w_user, f, redraws, n_users):
    """Per fit batch: labels, within-user ranks, alpha's pairs, tau.

    Returns the :class:`FitBatch` list, batch 0's pooled alpha and tau+, and batch 0's
    (within-user ranks of the false negatives' rows, false-negative flags, (user, column) of
    the labelled items).
    """
    n_fit = np.minimum(bp.n_fit_half, f).astype(np.int64)
    fits = []
    for d in range(redraws):
        valid = bp.fit_code[d] >= 0
        fit_tn = valid & (bp.fit_code[d] == 0)
        pair_num, pair_den = np.zeros(n_users), np.zeros(n_users)
        G_rows = np.full((n_users, f), np.nan)
        _fit_row_stats(bp.fit_scores[d], fit_tn, n_fit, pair_num, pair_den, G_rows)
        with np.errstate(invalid="ignore", divide="ignore"):
            alpha_user = np.where(pair_den > 0, pair_num / pair_den, np.nan)
        n_valid = valid.sum(axis=1)
        tau_user = np.where(
            n_valid > 0, (valid & ~fit_tn).sum(axis=1) / np.maximum(n_valid, 1), np.nan
        )
        fu_idx, fu_col = np.nonzero(valid)
        is_fn = ~fit_tn[fu_idx, fu_col]
        fits.append(
            FitBatch(
                bp.fit_scores[d],
                bp.fit_items[d],
                fit_tn,
                G_rows[fu_idx, fu_col][is_fn],
                tau_user,
                alpha_user,
            )
        )
        if d == 0:
            alpha = float(pair_num.sum() / pair_den.sum()) if pair_den.sum() else math.nan
            has = np.isfinite(tau_user)
            tau_plus = (
                float(np.sum(w_user[has] * tau_user[has]) / np.sum(w_user[has]))
                if has.any()
                else math.nan
            )
            first = (G_rows[fu_idx, fu_col], is_fn, (fu_idx, fu_col))
    return fits, alpha, tau_plus, first


def _activity_tau(data, w_user, n_unl):
    """Per-user false-negative share from activity and split sizes: |T_u| rho / n_unl,u (no label)."""
    rho = (len(data.test) + len(data.valid)) / max(len(data.train), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(n_unl > 0, w_user * rho / np.maximum(n_unl, 1), 0.0)
    return np.clip(tau, 0.0, 0.999)


def _label_free(data, bp, w_user, alpha, tau_plus):
    """The label-free alpha and tau+ (validation labels and the split's sizes only), and the estimators' inputs."""
    L = label_fraction(data)
    vnum, vden, n_unl = bp.vnum, bp.vden, bp.n_unl
    nv_user = np.diff(bp.v_ptr).astype(np.float64)
    a_raw = float(vnum.sum() / vden.sum()) if vden.sum() > 0 else math.nan
    if np.isfinite(a_raw) and L > 0:
        # share of hidden held-out (test) items in the pool: |V_u| (1/L - 1) of the n_unl - |V_u| others
        with np.errstate(invalid="ignore", divide="ignore"):
            c_u = np.where(
                n_unl > nv_user, nv_user * (1.0 / L - 1.0) / np.maximum(n_unl - nv_user, 1), 0.0
            )
        c = float(np.sum(vden * c_u) / vden.sum())
        a_valid = (a_raw - 0.5 * c) / (1.0 - c)
        tau_u = np.where(n_unl > 0, nv_user / L / np.maximum(n_unl, 1), 0.0)
        tau_hat = float(np.sum(w_user * tau_u) / np.sum(w_user))
        source = "validation labels"
    else:
        a_valid, tau_hat, source = math.nan, math.nan, "test labels (no validation split)"
    a_for_hat = a_valid if np.isfinite(a_valid) else alpha
    alpha_hat = (
        float(cal.alpha_from_auc(min(max(a_for_hat, 0.0), 1.0))) if np.isfinite(a_for_hat) else 0.5
    )
    raw_map = 1.5 * a_for_hat - 0.25 if np.isfinite(a_for_hat) else 0.5
    est_alpha = min(max(a_for_hat, 0.5), 1.0) if np.isfinite(a_for_hat) else 0.5
    est_tau = tau_hat if np.isfinite(tau_hat) else tau_plus
    est_tau = min(max(est_tau, 1e-6), 0.999) if np.isfinite(est_tau) else 1e-6
    return dict(
        alpha_valid_auc=a_valid,
        alpha_valid_raw=a_raw,
        alpha_hat=alpha_hat,
        alpha_at_bound=float(not (0.5 < raw_map < 1.0)),
        alpha_source=source,
        tau_plus_hat=tau_hat,
        est_alpha=est_alpha,
        est_tau_plus=est_tau,
        label_fraction=L,
    )


def _bns_posterior(data, bp, fu0, is_fn0):
    """BNS posterior P(fn | x) = 1 - unbias (eq. 4.14-4.16) on the items of fit batch 0.

    Columns: the posterior with BNS's prior, the false-negative label, the posterior with the
    users' popularity as the prior.
    """
    fu_idx, fu_col = fu0
    F = bp.le_rows[fu_idx, fu_col] / (
        bp.n_unl[fu_idx] + 1.0
    )  # eq. 4.15, released-code convention (n + 1)
    counts = data.item_counts()
    items = bp.fit_items[0][fu_idx, fu_col]
    p_fn = np.clip(bns_prior(counts, len(data.train))[items], 0.0, 1.0)
    p_users = np.clip(counts[items] / data.n_users, 0.0, 1.0 - 1e-12)
    num, den = est._unbias_terms(F, np.stack([p_fn, p_users]))
    pred, pred_users = 1.0 - num / den
    return np.column_stack([pred, is_fn0.astype(np.float64), pred_users])


@_doc
def finish(rec: ProbeRecord) -> ProbeRecord:
    """Complete a probe point's deferred measurements (in place).

    Adds the estimators' real errors on the eval batches
    (:func:`negtheory.calibration.estimator_errors` at the label-free ``est_alpha`` and
    ``est_tau_plus``) with their robust companions, and Wu's K* from the training AUC
    (:func:`k_star`). A record already complete is returned unchanged.

    Parameters
    ----------
    rec : ProbeRecord
        A record of :func:`probe_scores` (typically with ``defer=True``).

    Returns
    -------
    ProbeRecord
        ``rec`` itself, its ``measured`` completed with ``mse_<estimator>``,
        ``mse_se_<estimator>``, ``mean_<estimator>``, ``median_se_<estimator>``,
        ``trimmed_mse_<estimator>``, ``top_share_<estimator>``, ``truth_mean`` and ``k_star``.

    %(split_example)s
    >>> from negtheory.recsys.score_probe import finish, probe_scores
    >>> rec = probe_scores(g.normal(size=(20, 60)), load_split(pairs[::2], pairs[1::2]), n_anchors=64, fit_size=20, defer=True)
    >>> "mse_bcl" in rec.measured, "mse_bcl" in finish(rec).measured
    (False, True)
    """
    m = rec.measured
    if "truth_mean" in m and "k_star" in m:
        return rec
    errs = cal.estimator_errors(
        rec.eval_neg,
        rec.eval_tn,
        rec.eval_pos,
        t=m["t"],
        alpha=m["est_alpha"],
        tau_plus=m["est_tau_plus"],
        beta=m["beta"],
        hcl_beta=m["hcl_beta"],
    )
    for name, r in errs.items():
        for key in ("mse", "mse_se", "median_se", "trimmed_mse", "top_share"):
            m[f"{key}_{name}"] = r[key]
        m[f"mean_{name}"] = r["mean"]
    m["truth_mean"] = next(iter(errs.values()))["truth_mean"]
    m["k_star"] = k_star(m["train_auc"])
    return rec


@_doc
class ScoreProbe:
    """Training callback: :func:`probe_scores` at initialisation and at evaluated epochs.

    Parameters
    ----------
    data : Interactions
        The split being trained on (the held-out pairs are the false-negative labels).
    rng : int, SeedSequence, Generator or None
        The probe's seed; probe point e uses ``SeedSequence([seed, e])``, independent of training;
        the fit / eval halves depend on the seed only.
    snapshot : bool
        False (default): measure at each call, inside the training loop, and return
        ``probe_alpha``, ``probe_tau_plus`` and ``probe_train_auc`` into that epoch's history row.
        True: a call keeps a dense copy of the scores and the measurements run when
        :attr:`records`, :meth:`frame` or :meth:`calibration` is first read (the same records;
        for data small enough to hold one n_users x n_items copy per probe point).
    epochs : sequence of int, optional
        Probe only at these epochs (0 = initialisation); default None: at every call.
    n_negatives, n_anchors, fit_size, redraws, t, beta, hcl_beta, prior
        Passed to every :func:`probe_scores` call (same defaults); ``prior`` is used at epoch 0 only.

    %(split_example)s
    >>> from negtheory.recsys.score_probe import ScoreProbe
    >>> from negtheory.training import Evaluation, fit
    >>> d = load_split(pairs[::2], pairs[1::2])
    >>> probe = ScoreProbe(d, n_anchors=64, fit_size=20)
    >>> _ = fit(d, epochs=2, evaluation=Evaluation(ks=(5,)), callbacks=[probe])
    >>> [r.epoch for r in probe.records]
    [0, 1, 2]
    """

    def __init__(
        self,
        data: Interactions,
        *,
        rng: RNGLike = 0,
        snapshot: bool = False,
        epochs: Iterable[int] | None = None,
        n_negatives: int = 5,
        n_anchors: int = 4096,
        fit_size: int = 256,
        redraws: int = 1,
        t: float = 1.0,
        beta: float = 0.5,
        hcl_beta: float = 0.5,
        prior: tuple[int, float] | None = None,
    ):
        if not isinstance(snapshot, (bool, np.bool_)):
            raise ValueError(f"snapshot must be True or False, got {snapshot!r}")
        self.data = data
        self.seed = int_seed("rng", rng)
        self.snapshot = bool(snapshot)
        self.epochs = None if epochs is None else {int_scalar("epochs", e, 0) for e in epochs}
        self.kwargs: dict[str, Any] = dict(
            n_negatives=n_negatives,
            n_anchors=n_anchors,
            fit_size=fit_size,
            redraws=redraws,
            t=t,
            beta=beta,
            hcl_beta=hcl_beta,
            prior=prior,
        )
        self._records: list[ProbeRecord] = []
        self._pending: list[tuple[int, np.ndarray]] = []

    def _measure(self, epoch: int, scores: Any) -> ProbeRecord:
        kw = dict(self.kwargs)
        if epoch != 0:
            kw.pop("prior", None)
        rec = probe_scores(scores, self.data, epoch=epoch, rng=self.seed, defer=True, **kw)
        self._records.append(rec)
        return rec

    @property
    def records(self) -> list[ProbeRecord]:
        """The :class:`ProbeRecord` of every probe point so far, in call order (snapshots measured now)."""
        while self._pending:
            self._measure(*self._pending.pop(0))
        return self._records

    def __call__(self, epoch: int, scores: Any) -> dict | None:
        if self.epochs is not None and int(epoch) not in self.epochs:
            return None
        if self.snapshot:
            self._pending.append((int(epoch), np.array(scores, copy=True)))
            return None
        m = self._measure(epoch, scores).measured
        return {f"probe_{k}": m[k] for k in ("alpha", "tau_plus", "train_auc")}

    def frame(self) -> pd.DataFrame:
        """One row per probe point: ``epoch`` and the measured scalars.

        The deferred measurements are completed by :func:`finish` first (the estimators'
        ``mse_*``, ``truth_mean``, ``k_star``).

        Returns
        -------
        pandas.DataFrame
            One row per recorded probe point, in call order; columns ``epoch`` and the keys of
            :attr:`ProbeRecord.measured`.
        """
        import pandas as pd

        for r in self.records:
            finish(r)
        return pd.DataFrame([dict(epoch=r.epoch, **r.measured) for r in self.records])

    def calibration(self, bins: int = 10) -> pd.DataFrame:
        """BNS's reliability diagram per probe point: equal-count bins of the predicted P(fn | x).

        Parameters
        ----------
        bins : int
            Number of bins per probe point, at least 1 (default 10): the fit-batch items sorted
            by prediction and split into ``bins`` parts of (almost) equal count.

        Returns
        -------
        pandas.DataFrame
            One row per (probe point, non-empty bin): ``epoch, bin, predicted`` (mean
            prediction), ``observed`` (false-negative frequency), ``n``, ``ci_low``, ``ci_high``
            (Wilson 95 % interval of the frequency).
        """
        import pandas as pd

        bins = int_scalar("bins", bins, 1)
        rows = []
        for r in self.records:
            pred, obs = r.posterior[:, 0], r.posterior[:, 1]
            ok = np.isfinite(pred)
            pred, obs = pred[ok], obs[ok]
            order = np.argsort(pred, kind="stable")
            for b, idx in enumerate(np.array_split(order, bins)):
                if idx.size == 0:
                    continue
                m = idx.size
                k = obs[idx].sum()
                p = k / m
                z = 1.959963984540054
                centre = (p + z * z / (2 * m)) / (1 + z * z / m)
                half = z * math.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / (1 + z * z / m)
                rows.append(
                    dict(
                        epoch=r.epoch,
                        bin=b,
                        predicted=float(pred[idx].mean()),
                        observed=float(p),
                        n=int(m),
                        ci_low=centre - half,
                        ci_high=centre + half,
                    )
                )
        return pd.DataFrame(rows)
