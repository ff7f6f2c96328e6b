r"""Probes: real scores with their true labels, recorded during training (simulation vs training).

For a batch of anchors with N sampled negatives whose true labels are known (false negative =
the anchor's class; synthetic PU data or digits), :func:`probe_batch` measures

* ``auc_k1`` — the training AUC of Wu et al. (Rethinking InfoNCE, eq. 7, K = 1): the fraction of
  (positive, sampled negative) pairs ordered correctly (ties count 1/2);
* ``alpha`` — Liu Bin's thesis's encoder quality (ch. 6, eq. 6.21): P(x_TN < x_FN) among the sampled
  negatives of the same anchor, pooled over anchors;
* ``tau_plus`` — the real class prior: the share of false negatives among the samples;
* per anchor, the truth :math:`\theta_{SUP}` (eq. 6.45, mean of the true negatives' :math:`\hat x = e^{\mathrm{logit}}`) and
  every estimator of :mod:`negtheory.estimators` — biased (6.46), DCL (6.47, the anchor's own
  positive as in the released code), HCL, BCL and self-normalised BCL (6.48) at the measured
  (alpha, tau+) — hence their real squared errors.

:class:`ProbeRecorder` keeps one row per probed batch; :func:`summarize` gives MSEs and the
(alpha, tau+, N) at which to run :func:`negtheory.studies.mse_study` for comparison.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from .. import estimators as est

__all__ = ["pairwise_auc", "probe_batch", "ProbeRecorder", "summarize", "ESTIMATORS"]

ESTIMATORS = ("biased", "dcl", "hcl", "bcl", "bcl_norm")


def pairwise_auc(pos, neg):
    r"""Pairwise AUC, P(neg < pos) + P(neg = pos) / 2 over all pairs, by ranks (Mann-Whitney).

    O(n log n): the negatives are sorted once and each positive is located by binary search.

    Parameters
    ----------
    pos : array_like of float
        Scores of the positive class (flattened).
    neg : array_like of float
        Scores of the negative class (flattened).

    Returns
    -------
    float
        The AUC in [0, 1]; NaN when either set is empty.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.bridge.probes import pairwise_auc
    >>> pairwise_auc(np.array([1.0, 3.0]), np.array([0.0, 2.0]))
    0.75
    """
    pos = np.asarray(pos, dtype=float).ravel()
    neg = np.asarray(neg, dtype=float).ravel()
    if pos.size == 0 or neg.size == 0:
        return math.nan
    srt = np.sort(neg)
    less = np.searchsorted(srt, pos, side="left")
    leq = np.searchsorted(srt, pos, side="right")
    return float((less + 0.5 * (leq - less)).sum() / (pos.size * neg.size))


def probe_batch(
    pos_logits, neg_logits, is_false_negative, *, tau_plus_model=None, beta=0.5, hcl_beta=1.0
):
    r"""Measure (AUC, alpha, tau+) and every estimator's squared error on one batch.

    Parameters
    ----------
    pos_logits : Tensor or ndarray, shape [A]
        Logit of each anchor's positive (:math:`\hat x^+ = e^{\mathrm{logit}}`).
    neg_logits : Tensor or ndarray, shape [A, N]
        Logits of each anchor's N sampled negatives (:math:`\hat x = e^{\mathrm{logit}}`).
    is_false_negative : bool array, shape [A, N]
        True where the sampled negative is in the anchor's positive class.
    tau_plus_model : float, optional
        tau+ given to the DCL/HCL/BCL estimators (default: the measured tau+ of this batch).
    beta, hcl_beta : float
        BCL hardness (eq. 6.25) and HCL concentration.

    Returns
    -------
    dict
        ``auc_k1``, ``alpha``, ``tau_plus``, ``n``, ``truth_mean``, ``mse_<est>``,
        ``mean_<est>`` and ``n_anchors`` (anchors with at least one true negative).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.bridge.probes import probe_batch
    >>> rng = np.random.default_rng(0)
    >>> fn = rng.random((32, 64)) < 0.1
    >>> neg = rng.normal(size=(32, 64)) + 1.5 * fn
    >>> r = probe_batch(rng.normal(2.0, 1.0, 32), neg, fn)
    >>> 0.8 < r["alpha"] < 0.9, r["n"]
    (True, 64)
    """
    pos = (
        pos_logits.detach().double().cpu().numpy()
        if isinstance(pos_logits, torch.Tensor)
        else np.asarray(pos_logits, float)
    )
    neg = (
        neg_logits.detach().double().cpu().numpy()
        if isinstance(neg_logits, torch.Tensor)
        else np.asarray(neg_logits, float)
    )
    fn = (
        is_false_negative.cpu().numpy()
        if isinstance(is_false_negative, torch.Tensor)
        else np.asarray(is_false_negative)
    )
    fn = fn.astype(bool)
    tn = ~fn
    out = {
        "n": int(neg.shape[1]),
        "auc_k1": pairwise_auc_rows(pos, neg),
        "tau_plus": float(fn.mean()),
    }
    # alpha = P(x_TN < x_FN) within an anchor (eq. 6.21), pooled: sum of per-anchor counts
    num = 0.0
    den = 0
    for r in range(neg.shape[0]):
        f, t = neg[r, fn[r]], neg[r, tn[r]]
        if f.size and t.size:
            num += pairwise_auc(f, t) * f.size * t.size
            den += f.size * t.size
    out["alpha"] = num / den if den else math.nan
    ok = tn.any(axis=1)
    x = np.exp(neg[ok])
    xp = np.exp(pos[ok])
    truth = est.theta_sup(x, tn[ok])
    tp = out["tau_plus"] if tau_plus_model is None else float(tau_plus_model)
    tp = min(max(tp, 1e-3), 1 - 1e-3)
    a = out["alpha"] if np.isfinite(out["alpha"]) else 0.5
    a = min(max(a, 0.5), 1.0)
    b = beta if not (a == 1.0 and beta == 1.0) else 0.99
    values = {
        "biased": est.theta_biased(x),
        "dcl": est.theta_dcl(x, xp, tp),
        "hcl": est.theta_hcl(x, xp, tp, hcl_beta),
        "bcl": est.theta_bcl(x, a, b, tp),
        "bcl_norm": est.theta_bcl(x, a, b, tp, normalize=True),
    }
    out["truth_mean"] = float(np.mean(truth))
    out["n_anchors"] = int(ok.sum())
    for k, v in values.items():
        v = np.asarray(v)
        out[f"mse_{k}"] = float(np.mean((v - truth) ** 2))
        out[f"mean_{k}"] = float(np.mean(v))
    return out


def pairwise_auc_rows(pos, neg):
    """Mean over anchors of P(neg < pos): Wu's training AUC with the anchor's own sampled negatives."""
    return float(((neg < pos[:, None]) + 0.5 * (neg == pos[:, None])).mean())


class ProbeRecorder:
    """Collects :func:`probe_batch` rows (with the step and epoch) during training.

    Parameters
    ----------
    tau_plus_model : float, optional
        tau+ given to the DCL/HCL/BCL estimators (default: each batch's measured tau+).
    beta, hcl_beta : float
        BCL hardness (eq. 6.25) and HCL concentration; every :func:`probe_batch` call gets
        these three.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.bridge.probes import ProbeRecorder
    >>> rec = ProbeRecorder()
    >>> rec.record(0, 0, np.zeros(4), -np.ones((4, 8)), np.zeros((4, 8), bool))
    >>> len(rec.rows), rec.rows[0]["tau_plus"]
    (1, 0.0)
    """

    def __init__(self, *, tau_plus_model=None, beta=0.5, hcl_beta=1.0):
        self.kwargs = dict(tau_plus_model=tau_plus_model, beta=beta, hcl_beta=hcl_beta)
        self.rows: list[dict] = []

    def record(self, step, epoch, pos_logits, neg_logits, is_false_negative):
        """Probe one batch (:func:`probe_batch`) and append its row, with ``step`` and ``epoch``, to ``rows``.

        Parameters
        ----------
        step : int
            Optimiser step of the batch.
        epoch : int
            Epoch of the batch.
        pos_logits : Tensor or ndarray, shape [A]
            Logit of each anchor's positive.
        neg_logits : Tensor or ndarray, shape [A, N]
            Logits of each anchor's N sampled negatives.
        is_false_negative : bool array, shape [A, N]
            True where the sampled negative is in the anchor's positive class.
        """
        row = probe_batch(pos_logits, neg_logits, is_false_negative, **self.kwargs)
        row.update(step=int(step), epoch=int(epoch))
        self.rows.append(row)

    def frame(self):
        """The recorded rows as a table.

        Returns
        -------
        pandas.DataFrame
            One row per probed batch (the keys of :func:`probe_batch` plus ``step``, ``epoch``).
        """
        import pandas as pd

        return pd.DataFrame(self.rows)


def summarize(rows, last_fraction=0.5):
    r"""Average the probe rows of the last ``last_fraction`` of training.

    Parameters
    ----------
    rows : list of dict
        Rows of :func:`probe_batch` (e.g. ``ProbeRecorder.rows``), in training order.
    last_fraction : float in (0, 1], default 0.5
        Share of the rows, counted from the end, that are averaged (all rows if it keeps none).

    Returns
    -------
    dict
        The mean of every numeric key over the kept rows (non-finite values left out; ``step``
        and ``epoch`` dropped): ``alpha``, ``tau_plus``, ``auc_k1``, ``n``, ``truth_mean``,
        each estimator's mean per-batch MSE ``mse_<est>``, ..., and the relative MSE
        ``rmse_<est>`` = MSE / truth_mean^2 (scale-free, for comparing with the simulation).
        Empty for no rows.

    Examples
    --------
    >>> from negtheory.bridge.probes import summarize
    >>> summarize([{"alpha": 0.8, "tau_plus": 0.1, "auc_k1": 0.9, "n": 8, "truth_mean": 2.0, "mse_biased": 4.0}])["rmse_biased"]
    1.0
    """
    if not rows:
        return {}
    keep = rows[int(len(rows) * (1 - last_fraction)) :] or rows
    out = {}
    for key in keep[0]:
        if key in ("step", "epoch"):
            continue
        vals = [r[key] for r in keep if key in r and r[key] is not None and np.isfinite(r[key])]
        out[key] = float(np.mean(vals)) if vals else math.nan
    for key in list(out):
        if key.startswith("mse_"):
            out["r" + key] = (
                out[key] / out["truth_mean"] ** 2 if out.get("truth_mean") else math.nan
            )
    return out
