r"""Probes of real recommendation training with the held-out interactions as false-negative labels.

Convention (the TNR of Liu Bin's thesis, eq. 4.27, and its Table 4.5's oracle): an item a user has not
interacted with in training is *unlabeled*; it is a **false negative** when it is one of the user's
held-out interactions (test, and validation when there is one) and a **true negative** otherwise.
The labels are read by the probe only: never by training, sampling or model selection.

:class:`ScoreProbe` is a callback of :func:`negtheory.recsys.fit_bpr_sgd` and
:func:`negtheory.bridge.recommend.fit_mf` (``callbacks=[probe]``, called as ``probe(epoch, scores)``
with the model's score matrix at initialisation and after every evaluated epoch). Each call draws,
from its own random stream (so the training is unchanged), two disjoint kinds of probe batches:

* **eval batches**: training pairs (u, i) as anchors, each with N negatives drawn uniformly from
  u's non-interacted items exactly as the training sampler draws them
  (:func:`negtheory.recsys.samplers.sample_uninteracted`); on these the estimators' real errors are
  measured;
* **fit batches**: per user, ``fit_size`` non-interacted items and the user's other training
  positives (the training pairs not used as eval anchors); from these alone come the inputs of
  the simulations (alpha, tau+, the score laws), so a calibrated simulation is never fitted to the
  batches it is compared with.

Measured per call (:meth:`ScoreProbe.frame`):

* ``alpha`` = P(x_TN < x_FN) among the same user's unlabeled items (the thesis's eq. 6.21 with
  the false negatives in place of the positives), pooled over users as the sum of per-user
  pair counts (ties count 1/2),

  .. math::
      \alpha = \frac{\sum_u \sum_{f \in FN_u} \sum_{t \in TN_u}
      \big(\mathbb{I}[x_t < x_f] + \tfrac12 \mathbb{I}[x_t = x_f]\big)}{\sum_u |FN_u|\,|TN_u|},

  and ``alpha_model`` = 3/2 alpha - 1/4 clipped to [1/2, 1], the parameter of eq. 6.14-6.15
  whose laws have that P(x_TN < x_FN) for independent draws
  (:func:`negtheory.calibration.alpha_from_auc`); ``tau_plus``, the share of false negatives
  among the anchors' unlabeled items;
* ``train_auc`` = P(x_pos > x_neg) over the eval anchors' (positive, negative) pairs (ties 1/2),
  the AUC of Wu et al. (Rethinking InfoNCE), eq. 7, at K = 1, and the K* it predicts
  (:func:`k_star`, :func:`negtheory.infonce.optimal_k_from_auc`);
* ``ks_tn``, ``ks_fn``: Kolmogorov-Smirnov distance between the measured TN / FN laws and those
  the theory proposes at the measured alpha, in parent-CDF space: a score's within-user eCDF
  G is mapped to v = Phi(x) by eq. 6.29 and the pooled v of true (false) negatives are compared
  with Phi_TN (Phi_FN) of :func:`negtheory.calibration.class_conditional_cdf` at ``alpha_model``
  (``ks_fn_alpha_as_auc``: the same with the measured AUC used as alpha); at initialisation
  ``ks_prior``, the distance of the scores to the variance-gamma prior of Lemma 3.1 (when the
  initial variance is given);
* each estimator's MSE against theta_SUP (:func:`negtheory.calibration.estimator_errors`);
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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numba
import numpy as np

from .. import calibration as cal
from .. import estimators as est
from .._rng import int_seed
from .._validation import int_scalar, real_scalar
from .bpr_sgd import bns_prior
from .samplers import sample_uninteracted

if TYPE_CHECKING:
    from typing import Any

    import pandas as pd

    from .._typing import RNGLike
    from .interactions import Interactions

__all__ = ["ScoreProbe", "ProbeRecord", "probe_scores", "finish", "k_star", "LAW_LEVELS"]

#: levels at which the measured and proposed class-conditional laws are compared (score_laws.csv)
LAW_LEVELS = np.round(np.arange(0.05, 1.0, 0.05), 2)


@dataclass
class ProbeRecord:
    """What one probe call measured, with the raw probe batches the simulations need.

    A dataclass built by :func:`probe_scores`; every parameter is also an attribute of the same
    name.

    Parameters
    ----------
    epoch : int
        The probe point: 0 at initialisation, else the 1-based evaluated epoch.
    measured : dict
        Scalar measurements by name (module notes): ``alpha``, ``alpha_model``, ``tau_plus``,
        ``train_auc``, ``ks_tn``, ``ks_fn``, ..., and after :func:`finish` the estimators'
        ``mse_*``, ``truth_mean`` and ``k_star``.
    eval_users : ndarray of int64, shape (A,)
        Eval batches: the user of each anchor.
    eval_pos : ndarray of float64, shape (A,)
        The anchor's positive score.
    eval_neg : ndarray of float64, shape (A, N)
        The scores of the N unlabeled items drawn for the anchor.
    eval_tn : ndarray of bool, shape (A, N)
        True where the unlabeled item is a true negative (not a held-out item of the user).
    fit_unlabeled : ndarray of float64, shape (n_users, F)
        Fit batches: each user's unlabeled scores (NaN-padded).
    fit_tn : ndarray of bool, shape (n_users, F)
        Their true-negative labels (False at the padding).
    fit_pos : ndarray of float64, shape (n_users, P)
        Each user's fit positives (NaN-padded).
    fit_fn_ranks : ndarray of float64, shape (n_fn,)
        Within-user mid-rank eCDF of every false negative in the fit batches.
    tau_user : ndarray of float64, shape (n_users,)
        Per-user false-negative share of the fit batch's unlabeled items (NaN without one).
    alpha_user : ndarray of float64, shape (n_users,)
        Per-user alpha (NaN without both classes), from the fit batches.
    posterior : ndarray of float64, shape (n, 3)
        Per fit-batch item: predicted P(fn | x) (eq. 4.14-4.16), 1.0 for a false negative and 0.0
        otherwise, and the prediction with the prior read as pop_l / n_users.
    law_quantiles : dict
        ``{"tn": ..., "fn": ...}``: quantiles at :data:`LAW_LEVELS` of the measured TN / FN laws
        in parent-CDF space (default: empty).
    """

    epoch: int
    measured: dict
    eval_users: np.ndarray
    eval_pos: np.ndarray
    eval_neg: np.ndarray
    eval_tn: np.ndarray
    fit_unlabeled: np.ndarray
    fit_tn: np.ndarray
    fit_pos: np.ndarray
    fit_fn_ranks: np.ndarray
    tau_user: np.ndarray
    alpha_user: np.ndarray
    posterior: np.ndarray = field(repr=False)
    law_quantiles: dict = field(default_factory=dict, repr=False)


@numba.njit(cache=True)
def _fit_draws(train_mask, f, seed, pick):
    """min(f, # unlabeled) distinct unlabeled items per user, uniformly: a partial Fisher-Yates
    shuffle of the user's unlabeled items (O(n_items) per user)."""
    np.random.seed(seed)
    n_users, n_items = train_mask.shape
    buf = np.empty(n_items, dtype=np.int64)
    for u in range(n_users):
        n = 0
        for j in range(n_items):
            if not train_mask[u, j]:
                buf[n] = j
                n += 1
        for k in range(min(f, n)):
            r = k + np.random.randint(0, n - k)
            tmp = buf[k]
            buf[k] = buf[r]
            buf[r] = tmp
            pick[u, k] = buf[k]


@numba.njit(cache=True)
def _fit_row_stats(sorted_unl, n_unl, fit_unl, fit_order, fit_tn, n_fit, pair_num, pair_den, G, le):
    """Per user u (row of the fit batch, first n_fit[u] entries):

    * pair_num[u], pair_den[u]: sum over (FN f, TN t) pairs of 1[t < f] + 1[t = f] / 2, and the
      number of pairs (alpha of eq. 6.21);
    * G[u, k]: mid-rank eCDF (# < + # <=) / 2 / n of fit item k among the user's fit items;
    * le[u, k]: # of *all* the user's unlabeled items with score <= fit item k, by merging the
      sorted fit values with the user's sorted unlabeled scores (``sorted_unl[u, :n_unl[u]]``).
    """
    n_users = fit_unl.shape[0]
    for u in range(n_users):
        m = n_fit[u]
        if m == 0:
            continue
        order = fit_order[u, :m]  # argsort of the row (its first m entries are the finite ones)
        sv = fit_unl[u][order]
        # ranks within the fit batch (ties share the mid-rank)
        k = 0
        while k < m:
            e = k
            while e + 1 < m and sv[e + 1] == sv[k]:
                e += 1
            mid = 0.5 * (k + e + 1) / m
            for q in range(k, e + 1):
                G[u, order[q]] = mid
            k = e + 1
        # alpha's pairs: sorted true negatives, binary search of each false negative
        # the true negatives' values in sorted order, read off the sorted row (no second sort)
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
                x = fit_unl[u, q]
                lo = np.searchsorted(tvals, x, side="left")
                hi = np.searchsorted(tvals, x, side="right")
                num += lo + 0.5 * (hi - lo)
        pair_num[u] = num
        pair_den[u] = n_f * n_t
        # # unlabeled scores <= each sorted fit value: merge with the user's sorted unlabeled row
        row = sorted_unl[u]
        n = n_unl[u]
        j = 0
        for q in range(m):
            x = sv[q]
            while j < n and row[j] <= x:
                j += 1
            le[u, order[q]] = j


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


def probe_scores(
    scores: np.ndarray,
    data: Interactions,
    *,
    epoch: int = 0,
    n_negatives: int = 5,
    n_anchors: int = 4096,
    fit_size: int = 256,
    t: float = 1.0,
    beta: float = 0.5,
    hcl_beta: float = 0.5,
    prior: tuple[int, float] | None = None,
    rng: RNGLike = 0,
    defer: bool = False,
    _masks: tuple[np.ndarray, np.ndarray] | None = None,
) -> ProbeRecord:
    r"""Measure one probe point of a score matrix (module notes); the engine of :class:`ScoreProbe`.

    Parameters
    ----------
    scores : ndarray, shape (n_users, n_items)
        The model's scores x_ui.
    data : Interactions
        The split: training pairs (anchors, and the items never sampled), held-out pairs
        (test and validation: the false-negative labels).
    epoch : int
        Recorded with the result.
    n_negatives : int
        N unlabeled items per eval anchor (the training's N).
    n_anchors : int
        Eval anchors, drawn without replacement from the training pairs (at most half of them:
        the rest are the fit positives).
    fit_size : int
        Unlabeled items per user in the fit batches (all of them if the user has fewer).
    t : float
        Temperature of the estimators' map exp(s / t).
    beta, hcl_beta : float
        BCL's hardness (eq. 6.25) and HCL's concentration for the measured errors.
    prior : (d, lam), optional
        Embedding dimension and variance parameter of the variance-gamma prior of the scores
        (Lemma 3.1, :func:`negtheory.variance_gamma.inner_product`); with it, ``ks_prior`` is
        measured (give it at initialisation).
    rng : int, SeedSequence, Generator or None
        The probe's own stream (never the training's).
    defer : bool
        Leave the estimators' errors and K* to :func:`finish` (they need only the recorded
        batches): :class:`ScoreProbe` defers them out of the training loop.
    _masks : tuple of ndarray, optional
        Private: ``(train_mask, held-out mask)`` precomputed by :class:`ScoreProbe` (default
        None: built from ``data``).

    Returns
    -------
    ProbeRecord
        The measurements (``measured``) and the raw eval and fit batches; the estimators'
        errors and K* are missing when ``defer`` is True.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.recsys.score_probe import probe_scores
    >>> g = np.random.default_rng(0)
    >>> pairs = np.unique(g.integers(0, [20, 60], size=(500, 2)), axis=0)
    >>> d = load_split(pairs[::2], pairs[1::2])
    >>> rec = probe_scores(g.normal(size=(20, 60)), d, n_anchors=64, fit_size=30)
    >>> sorted(rec.measured)[:3], rec.eval_neg.shape
    (['alpha', 'alpha_model', 'beta'], (64, 5))
    """
    # float32 or float64 as given: the full-matrix passes (finiteness, the sorted rows) stay in the
    # input's dtype; every gathered score is converted to float64 exactly
    s = np.asarray(scores)
    if s.dtype not in (np.float32, np.float64):
        s = s.astype(np.float64)
    if s.shape != (data.n_users, data.n_items):
        raise ValueError(f"scores must have shape {(data.n_users, data.n_items)}, got {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    n_negatives = int_scalar("n_negatives", n_negatives, 1)
    n_anchors = int_scalar("n_anchors", n_anchors, 1)
    fit_size = int_scalar("fit_size", fit_size, 2)
    t = real_scalar("t", t, 0.0, lo_open=True)
    g = np.random.default_rng(np.random.SeedSequence([int_seed("rng", rng), int(epoch)]))
    n_users, n_items = data.n_users, data.n_items
    # the dense masks (a ScoreProbe builds them once per run)
    train_mask, fn_mask = _masks if _masks is not None else (data.train_mask(), data.test_mask() | data.valid_mask())
    n_unl = n_items - train_mask.sum(axis=1)

    # ---- split the training pairs: eval anchors / fit positives
    pairs = data.train
    perm = g.permutation(len(pairs))
    a = min(n_anchors, max(len(pairs) // 2, 1))
    anchors = pairs[np.sort(perm[:a])]
    fitpos = pairs[perm[a:]]

    # ---- eval batches (as training draws them)
    users = anchors[:, 0]
    ok_users = n_unl[users] >= n_negatives
    anchors, users = anchors[ok_users], users[ok_users]
    neg_items = sample_uninteracted(users, n_negatives, train_mask, g)
    eval_neg = s[users[:, None], neg_items].astype(np.float64)
    eval_tn = ~fn_mask[users[:, None], neg_items]
    eval_pos = s[users, anchors[:, 1]].astype(np.float64)

    # ---- fit batches: fit_size distinct unlabeled items per user (all of them for a user with fewer)
    f = int(min(fit_size, n_unl.max()))
    pick = np.zeros((n_users, f), dtype=np.int64)
    _fit_draws(train_mask, f, int(g.integers(0, 2**31 - 1)), pick)
    rows = np.arange(n_users)[:, None]
    valid = np.arange(f)[None, :] < np.minimum(n_unl, f)[:, None]
    fit_unl = np.where(valid, s[rows, pick].astype(np.float64), np.nan)
    fit_tn = valid & ~fn_mask[rows, pick]
    pos_counts = np.bincount(fitpos[:, 0], minlength=n_users)
    p_max = max(int(pos_counts.max()), 1)
    fit_pos = np.full((n_users, p_max), np.nan)
    order = np.argsort(fitpos[:, 0], kind="stable")
    fp = fitpos[order]
    start = np.concatenate([[0], np.cumsum(pos_counts)[:-1]])
    col = np.arange(len(fp)) - start[fp[:, 0]]
    fit_pos[fp[:, 0], col] = s[fp[:, 0], fp[:, 1]].astype(np.float64)

    # ---- per user, one pass (numba): alpha's pair counts, the fit items' mid-rank eCDF G among the
    # fit batch, and # of all the user's unlabeled items <= each fit item (BNS's F, eq. 4.15)
    n_fit = np.minimum(n_unl, f).astype(np.int64)
    pair_num = np.zeros(n_users)
    pair_den = np.zeros(n_users)
    G_rows = np.full((n_users, f), np.nan)
    le_rows = np.zeros((n_users, f), dtype=np.int64)
    # each user's unlabeled scores sorted (training items as +inf, which sort last): numpy's sort
    sorted_unl = np.sort(np.where(train_mask, np.inf, s), axis=1)
    fit_order = np.argsort(fit_unl, axis=1)  # NaN padding last
    _fit_row_stats(sorted_unl, n_unl.astype(np.int64), fit_unl, fit_order, fit_tn, n_fit, pair_num, pair_den, G_rows, le_rows)
    alpha = float(pair_num.sum() / pair_den.sum()) if pair_den.sum() else math.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha_user = np.where(pair_den > 0, pair_num / pair_den, np.nan)
    n_valid = valid.sum(axis=1)
    tau_user = np.where(n_valid > 0, (valid & ~fit_tn).sum(axis=1) / np.maximum(n_valid, 1), np.nan)
    # tau+ as the anchors see it: users weighted by their number of training pairs
    w_user = np.bincount(pairs[:, 0], minlength=n_users).astype(np.float64)
    has = np.isfinite(tau_user)
    tau_plus = float(np.sum(w_user[has] * tau_user[has]) / np.sum(w_user[has]))

    # ---- score laws in parent-CDF space (eq. 6.29) at the measured alpha
    fu_idx, fu_col = np.nonzero(valid)
    G = G_rows[fu_idx, fu_col]
    is_fn_fit = ~fit_tn[fu_idx, fu_col]
    a_c = min(max(alpha, 0.5), 1.0) if np.isfinite(alpha) else 0.5
    # the model's alpha whose own P(x_TN < x_FN) is the measured one (calibration.alpha_from_auc)
    a_m = float(cal.alpha_from_auc(alpha)) if np.isfinite(alpha) else 0.5
    tp_c = min(max(tau_plus, 0.0), 0.999)
    v = cal.class_conditional_ppf(G, "un", a_m, tp_c)
    v_tn, v_fn = np.sort(v[~is_fn_fit]), np.sort(v[is_fn_fit])
    ks_tn = _ks_sorted(v_tn, lambda x: cal.class_conditional_cdf(np.clip(x, 0, 1), "tn", a_m))
    ks_fn = _ks_sorted(v_fn, lambda x: cal.class_conditional_cdf(np.clip(x, 0, 1), "fn", a_m))
    v_raw = cal.class_conditional_ppf(G[is_fn_fit], "un", a_c, tp_c)
    ks_fn_raw = _ks(v_raw, lambda x: cal.class_conditional_cdf(np.clip(x, 0, 1), "fn", a_c))
    measured = dict(
        alpha=alpha,
        alpha_model=a_m,
        ks_fn_alpha_as_auc=ks_fn_raw,
        tau_plus=tau_plus,
        tau_plus_eval=float(1.0 - eval_tn.mean()),
        n=n_negatives,
        n_anchors=int(len(users)),
        ks_tn=ks_tn,
        ks_fn=ks_fn,
        n_fn_fit=int(is_fn_fit.sum()),
    )
    auc = float(((eval_neg < eval_pos[:, None]) + 0.5 * (eval_neg == eval_pos[:, None])).mean())
    measured["train_auc"] = auc
    if prior is not None:
        from ..variance_gamma import inner_product

        d_emb, lam = prior
        # 4000 scores of the fit batches (the variance-gamma cdf is exact but not free: ~1 ms per 10 points)
        sample = fit_unl[valid]
        sample = sample[g.permutation(sample.size)[:4000]]
        measured["ks_prior"] = _ks(sample, inner_product(int(d_emb), float(lam)).cdf)

    measured.update(t=t, beta=beta, hcl_beta=hcl_beta)

    # ---- BNS posterior P(fn | x) = 1 - unbias (eq. 4.14-4.16) on the fit-batch items
    F = le_rows[fu_idx, fu_col] / (n_unl[fu_idx] + 1.0)  # eq. 4.15, released-code convention (n + 1)
    counts = data.item_counts()
    items = pick[fu_idx, fu_col]
    p_fn = np.clip(bns_prior(counts, len(data.train))[items], 0.0, 1.0)
    # the reading with N = number of users: the share of users who interacted with the item
    p_users = np.clip(counts[items] / n_users, 0.0, 1.0 - 1e-12)
    # both priors in one call (F broadcast over the two rows)
    # F in (0, 1) (the item counts itself; n + 1 convention), so the denominator of eq. 4.14 is positive
    num, den = est._unbias_terms(F, np.stack([p_fn, p_users]))
    pred, pred_users = 1.0 - num / den
    posterior = np.column_stack([pred, is_fn_fit.astype(np.float64), pred_users])
    measured["posterior_mean"] = float(pred.mean())
    measured["fn_rate_fit"] = float(is_fn_fit.mean())

    rec = ProbeRecord(
        epoch=int(epoch),
        measured=measured,
        eval_users=users,
        eval_pos=eval_pos,
        eval_neg=eval_neg,
        eval_tn=eval_tn,
        fit_unlabeled=fit_unl,
        fit_tn=fit_tn,
        fit_pos=fit_pos,
        fit_fn_ranks=G[is_fn_fit],
        tau_user=tau_user,
        alpha_user=alpha_user,
        posterior=posterior,
        law_quantiles={"tn": _sorted_quantiles(v_tn), "fn": _sorted_quantiles(v_fn)},
    )
    if not defer:
        finish(rec)
    return rec


def finish(rec: ProbeRecord) -> ProbeRecord:
    """Complete a probe point's deferred measurements (in place).

    Adds the estimators' real errors on the eval batches
    (:func:`negtheory.calibration.estimator_errors` at the measured alpha and tau+, clipped to
    [1/2, 1] and [1e-6, 0.999]) and Wu's K* from the training AUC (:func:`k_star`). They need only
    the recorded batches, so a :class:`ScoreProbe` computes them after training, outside the
    training loop. A record already complete is returned unchanged.

    Parameters
    ----------
    rec : ProbeRecord
        A record of :func:`probe_scores` (typically with ``defer=True``).

    Returns
    -------
    ProbeRecord
        ``rec`` itself, its ``measured`` completed with ``mse_<estimator>``,
        ``mse_se_<estimator>``, ``mean_<estimator>``, ``truth_mean`` and ``k_star``.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.recsys.score_probe import finish, probe_scores
    >>> g = np.random.default_rng(0)
    >>> pairs = np.unique(g.integers(0, [20, 60], size=(500, 2)), axis=0)
    >>> rec = probe_scores(g.normal(size=(20, 60)), load_split(pairs[::2], pairs[1::2]), n_anchors=64, fit_size=30, defer=True)
    >>> "mse_bcl" in rec.measured, "mse_bcl" in finish(rec).measured
    (False, True)
    """
    m = rec.measured
    if "truth_mean" in m and "k_star" in m:
        return rec
    a_c = min(max(m["alpha"], 0.5), 1.0) if np.isfinite(m["alpha"]) else 0.5
    errs = cal.estimator_errors(
        rec.eval_neg, rec.eval_tn, rec.eval_pos, t=m["t"], alpha=a_c, tau_plus=min(max(m["tau_plus"], 1e-6), 0.999),
        beta=m["beta"], hcl_beta=m["hcl_beta"],
    )  # fmt: skip
    for name, r in errs.items():
        m[f"mse_{name}"] = r["mse"]
        m[f"mse_se_{name}"] = r["mse_se"]
        m[f"mean_{name}"] = r["mean"]
    m["truth_mean"] = next(iter(errs.values()))["truth_mean"]
    m["k_star"] = k_star(m["train_auc"])
    return rec


class ScoreProbe:
    """Training callback: :func:`probe_scores` at initialisation and every evaluated epoch.

    Parameters
    ----------
    data : Interactions
        The split being trained on (the held-out pairs are the false-negative labels).
    rng : int, SeedSequence, Generator or None
        The probe's seed; probe point e uses ``SeedSequence([seed, e])``, independent of training.
    snapshot : bool
        False (default): measure at each call, inside the training loop, and return
        ``probe_alpha``, ``probe_tau_plus`` and ``probe_train_auc`` into that epoch's history row.
        True: a call only keeps a copy of the score matrix (one [n_users, n_items] array per
        probe point in memory) and returns nothing; the measurements run when :attr:`records`,
        :meth:`frame` or :meth:`calibration` is first read, after training. The records are
        identical either way (each probe point draws from ``SeedSequence([seed, epoch])``);
        only where the time is spent differs — a snapshot costs a probed epoch one copy of the
        matrix instead of the whole measurement.
    **kwargs
        Passed to :func:`probe_scores` (``n_negatives``, ``n_anchors``, ``fit_size``, ``t``,
        ``beta``, ``hcl_beta``, ``prior``; ``prior`` is used at epoch 0 only).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split, fit_bpr_sgd
    >>> from negtheory.recsys.score_probe import ScoreProbe
    >>> g = np.random.default_rng(0)
    >>> pairs = np.unique(g.integers(0, [20, 60], size=(500, 2)), axis=0)
    >>> d = load_split(pairs[::2], pairs[1::2])
    >>> probe = ScoreProbe(d, n_anchors=64, fit_size=30)
    >>> _ = fit_bpr_sgd(d, "rns", epochs=2, progress=False, topk=(5,), callbacks=[probe])
    >>> [r.epoch for r in probe.records]
    [0, 1, 2]
    """

    def __init__(self, data: Interactions, *, rng: RNGLike = 0, snapshot: bool = False, **kwargs: Any):
        if not isinstance(snapshot, (bool, np.bool_)):
            raise ValueError(f"snapshot must be True or False, got {snapshot!r}")
        self.data = data
        self.seed = int_seed("rng", rng)
        self.snapshot = bool(snapshot)
        self.kwargs = kwargs
        self._records: list[ProbeRecord] = []
        self._pending: list[tuple[int, np.ndarray]] = []
        self._masks = (data.train_mask(), data.test_mask() | data.valid_mask())

    def _measure(self, epoch: int, scores: np.ndarray) -> ProbeRecord:
        kw = dict(self.kwargs)
        if epoch != 0:
            kw.pop("prior", None)
        rec = probe_scores(scores, self.data, epoch=epoch, rng=self.seed, defer=True, _masks=self._masks, **kw)
        self._records.append(rec)
        return rec

    @property
    def records(self) -> list[ProbeRecord]:
        """The :class:`ProbeRecord` of every probe point so far, in call order (snapshots measured now)."""
        while self._pending:
            self._measure(*self._pending.pop(0))
        return self._records

    def __call__(self, epoch: int, scores: np.ndarray) -> dict | None:
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
                rows.append(dict(epoch=r.epoch, bin=b, predicted=float(pred[idx].mean()), observed=float(p), n=int(m),
                                 ci_low=centre - half, ci_high=centre + half))  # fmt: skip
        return pd.DataFrame(rows)
